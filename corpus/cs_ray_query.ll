; A compute shader tracing one inline ray per thread, written by hand in the shape DXC
; emits, for tests/gpu_ray_tracing.rs (the scene is the ray-tracing runner's triangles and
; box):
;
;   RaytracingAccelerationStructure Scene : register(t0);
;   ByteAddressBuffer Rays : register(t1);     // (x, y) per thread
;   RWByteAddressBuffer Out : register(u0);    // (status, instance, primitive, t) per thread
;   [numthreads(1, 1, 1)]
;   void main(uint3 id : SV_DispatchThreadID) {
;     float2 xy = asfloat(Rays.Load2(id.x * 8));
;     RayDesc ray = { float3(xy, 1.0), 0.0, float3(0.0, 0.0, -1.0), 100.0 };
;     RayQuery<RAY_FLAG_FORCE_OPAQUE> q;
;     q.TraceRayInline(Scene, RAY_FLAG_NONE, 0xff, ray);
;     while (q.Proceed())
;       if (q.CandidateType() == CANDIDATE_PROCEDURAL_PRIMITIVE)
;         q.CommitProceduralPrimitiveHit(2.0);
;     uint status = q.CommittedStatus();
;     bool hit = status != COMMITTED_NOTHING;
;     Out.Store4(id.x * 16, uint4(status,
;                                 hit ? q.CommittedInstanceIndex() : ~0u,
;                                 hit ? q.CommittedPrimitiveIndex() : ~0u,
;                                 asuint(hit ? q.CommittedRayT() : -1.0)));
;   }
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.ResRet.f32 = type { float, float, float, float, i32 }
%struct.RaytracingAccelerationStructure = type { i32 }
%struct.ByteAddressBuffer = type { i32 }
%struct.RWByteAddressBuffer = type { i32 }

define void @main() {
entry:
  %scene = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)
  %rays = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 1, i32 1, i1 false)
  %out = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %id = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %in = shl i32 %id, 3
  %ld = call %dx.types.ResRet.f32 @dx.op.bufferLoad.f32(i32 68, %dx.types.Handle %rays, i32 %in, i32 undef)
  %x = extractvalue %dx.types.ResRet.f32 %ld, 0
  %y = extractvalue %dx.types.ResRet.f32 %ld, 1
  %q = call i32 @dx.op.allocateRayQuery(i32 178, i32 1)
  call void @dx.op.rayQuery_TraceRayInline(i32 179, i32 %q, %dx.types.Handle %scene, i32 0, i32 255, float %x, float %y, float 1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float -1.000000e+00, float 1.000000e+02)
  br label %loop

loop:
  %go = call i1 @dx.op.rayQuery_Proceed.i1(i32 180, i32 %q)
  br i1 %go, label %candidate, label %done

candidate:
  %type = call i32 @dx.op.rayQuery_StateScalar.i32(i32 185, i32 %q)
  %procedural = icmp eq i32 %type, 1
  br i1 %procedural, label %commit, label %loop

commit:
  call void @dx.op.rayQuery_CommitProceduralPrimitiveHit(i32 183, i32 %q, float 2.000000e+00)
  br label %loop

done:
  %status = call i32 @dx.op.rayQuery_StateScalar.i32(i32 184, i32 %q)
  %instance = call i32 @dx.op.rayQuery_StateScalar.i32(i32 207, i32 %q)
  %primitive = call i32 @dx.op.rayQuery_StateScalar.i32(i32 210, i32 %q)
  %t = call float @dx.op.rayQuery_StateScalar.f32(i32 200, i32 %q)
  %hit = icmp ne i32 %status, 0
  %instance.out = select i1 %hit, i32 %instance, i32 -1
  %primitive.out = select i1 %hit, i32 %primitive, i32 -1
  %t.out = select i1 %hit, float %t, float -1.000000e+00
  %t.bits = bitcast float %t.out to i32
  %at = shl i32 %id, 4
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %out, i32 %at, i32 undef, i32 %status, i32 %instance.out, i32 %primitive.out, i32 %t.bits, i8 15)
  ret void
}

declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.f32 @dx.op.bufferLoad.f32(i32, %dx.types.Handle, i32, i32)
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)
declare i32 @dx.op.allocateRayQuery(i32, i32)
declare void @dx.op.rayQuery_TraceRayInline(i32, i32, %dx.types.Handle, i32, i32, float, float, float, float, float, float, float, float)
declare i1 @dx.op.rayQuery_Proceed.i1(i32, i32)
declare void @dx.op.rayQuery_CommitProceduralPrimitiveHit(i32, i32, float)
declare i32 @dx.op.rayQuery_StateScalar.i32(i32, i32)
declare float @dx.op.rayQuery_StateScalar.f32(i32, i32)

!dx.version = !{!0}
!dx.valver = !{!0}
!dx.shaderModel = !{!1}
!dx.resources = !{!2}
!dx.entryPoints = !{!9}

!0 = !{i32 1, i32 5}
!1 = !{!"cs", i32 6, i32 5}
!2 = !{!3, !6, null, null}
!3 = !{!4, !5}
!4 = !{i32 0, %struct.RaytracingAccelerationStructure* undef, !"Scene", i32 0, i32 0, i32 1, i32 16, i32 0, null}
!5 = !{i32 1, %struct.ByteAddressBuffer* undef, !"Rays", i32 0, i32 1, i32 1, i32 11, i32 0, null}
!6 = !{!7}
!7 = !{i32 0, %struct.RWByteAddressBuffer* undef, !"Out", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!9 = !{void ()* @main, !"main", null, !2, !10}
!10 = !{i32 0, i64 16, i32 4, !11}
!11 = !{i32 1, i32 1, i32 1}
