; SM 6.10 preview operations of a compute shader (operands from DXC's hctdb.py; hlsl-specs
; proposals 0039, 0041, 0045, 0048), hand-written for tests/sm610_preview.rs:
;
;   RaytracingAccelerationStructure Scene : register(t0);
;   RWByteAddressBuffer Out : register(u0);
;   [numthreads(64, 1, 1)]
;   void main(uint3 id : SV_DispatchThreadID) {
;     Out.Store2(id.x * 8, uint2(GetGroupWaveIndex(), GetGroupWaveCount()));
;     if (dx::IsDebuggingEnabled()) DebugBreak();
;     RayQuery<RAY_FLAG_NONE> q;
;     q.TraceRayInline(Scene, RAY_FLAG_NONE, 0xff, ray);
;     while (q.Proceed())
;       Out.Store(512, q.CandidateClusterID() + asuint(q.CandidateTriangleObjectPositions().p1.y));
;     float3 p2 = q.CommittedTriangleObjectPositions().p2;
;     Out.Store4(1024, uint4(q.CommittedClusterID(), asuint(p2)));
;   }
;
; plus the experimental table's nop. The positions are <9 x float> (p0.xyz, p1.xyz, p2.xyz).
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%struct.RaytracingAccelerationStructure = type { i32 }
%struct.RWByteAddressBuffer = type { i32 }

define void @main() {
entry:
  %scene = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)
  %out = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %id = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %wi = call i32 @dx.op.getGroupWaveIndex(i32 -2147483647)
  %wc = call i32 @dx.op.getGroupWaveCount(i32 -2147483646)
  %at = shl i32 %id, 3
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 %at, i32 undef, i32 %wi, i32 %wc, i32 undef, i32 undef, i8 3, i32 4)
  call void @dx.op.nop(i32 -2147483648)
  %dbg = call i1 @dx.op.isDebuggingEnabled(i32 -2147483614)
  br i1 %dbg, label %brk, label %trace

brk:
  call void @dx.op.debugBreak(i32 -2147483615)
  br label %trace

trace:
  %q = call i32 @dx.op.allocateRayQuery(i32 178, i32 0)
  call void @dx.op.rayQuery_TraceRayInline(i32 179, i32 %q, %dx.types.Handle %scene, i32 0, i32 255, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float -1.000000e+00, float 1.000000e+02)
  br label %loop

loop:
  %go = call i1 @dx.op.rayQuery_Proceed.i1(i32 180, i32 %q)
  br i1 %go, label %candidate, label %done

candidate:
  %ccid = call i32 @dx.op.rayQuery_StateScalar.i32(i32 -2147483644, i32 %q)
  %cpos = call <9 x float> @dx.op.rayQuery_CandidateTriangleObjectPosition.f32(i32 -2147483640, i32 %q)
  %p1y = extractelement <9 x float> %cpos, i32 4
  %p1yb = bitcast float %p1y to i32
  %cs = add i32 %ccid, %p1yb
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 512, i32 undef, i32 %cs, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  br label %loop

done:
  %kcid = call i32 @dx.op.rayQuery_StateScalar.i32(i32 -2147483643, i32 %q)
  %kpos = call <9 x float> @dx.op.rayQuery_CommittedTriangleObjectPosition.f32(i32 -2147483639, i32 %q)
  %p2x = extractelement <9 x float> %kpos, i32 6
  %p2y = extractelement <9 x float> %kpos, i32 7
  %p2z = extractelement <9 x float> %kpos, i32 8
  %bx = bitcast float %p2x to i32
  %by = bitcast float %p2y to i32
  %bz = bitcast float %p2z to i32
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 1024, i32 undef, i32 %kcid, i32 %bx, i32 %by, i32 %bz, i8 15, i32 4)
  ret void
}

declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
declare i32 @dx.op.getGroupWaveIndex(i32)
declare i32 @dx.op.getGroupWaveCount(i32)
declare void @dx.op.nop(i32)
declare i1 @dx.op.isDebuggingEnabled(i32)
declare void @dx.op.debugBreak(i32)
declare i32 @dx.op.allocateRayQuery(i32, i32)
declare void @dx.op.rayQuery_TraceRayInline(i32, i32, %dx.types.Handle, i32, i32, float, float, float, float, float, float, float, float)
declare i1 @dx.op.rayQuery_Proceed.i1(i32, i32)
declare i32 @dx.op.rayQuery_StateScalar.i32(i32, i32)
declare <9 x float> @dx.op.rayQuery_CandidateTriangleObjectPosition.f32(i32, i32)
declare <9 x float> @dx.op.rayQuery_CommittedTriangleObjectPosition.f32(i32, i32)

!dx.version = !{!0}
!dx.valver = !{!0}
!dx.shaderModel = !{!1}
!dx.resources = !{!2}
!dx.entryPoints = !{!9}

!0 = !{i32 1, i32 10}
!1 = !{!"cs", i32 6, i32 10}
!2 = !{!3, !6, null, null}
!3 = !{!4}
!4 = !{i32 0, %struct.RaytracingAccelerationStructure* undef, !"Scene", i32 0, i32 0, i32 1, i32 16, i32 0, null}
!6 = !{!7}
!7 = !{i32 0, %struct.RWByteAddressBuffer* undef, !"Out", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!9 = !{void ()* @main, !"main", null, !2, !10}
!10 = !{i32 0, i64 16, i32 4, !11}
!11 = !{i32 64, i32 1, i32 1}
