; Mesh shader of the hand-written mesh pipeline in this folder. Written by hand.
;
;   struct P { uint base; };            // the amplification shader's payload
;   struct V { float4 pos : SV_Position; float clip : SV_ClipDistance; float2 uv : TEXCOORD; };
;   struct Q { uint id : SV_PrimitiveID; uint layer : SV_RenderTargetArrayIndex;
;              uint vp : SV_ViewportArrayIndex; bool cull : SV_CullPrimitive;
;              uint rate : SV_ShadingRate; float4 color : COLOR; };
;   groupshared uint visible;
;   [numthreads(4, 1, 1)] [outputtopology("triangle")]
;   void main(uint t : SV_GroupIndex, uint view : SV_ViewID, in payload P p,
;             out vertices V v[4], out indices uint3 tri[2], out primitives Q q[2]) {
;     if (t == 0) visible = 0;
;     GroupMemoryBarrierWithGroupSync();
;     InterlockedAdd(visible, 1);
;     GroupMemoryBarrierWithGroupSync();
;     uint n = WaveReadLaneFirst(visible);        // 4
;     if (p.base < 100) {
;       SetMeshOutputCounts(4, 2);
;       v[t].pos = float4(t & 1, t >> 1, 0, 1); v[t].clip = 1; v[t].uv = float2(t, n);
;       if (t < 2) {
;         tri[t] = uint3(t, t + 1, t + 2);
;         q[t].id = p.base + t; q[t].layer = view; q[t].vp = 0; q[t].cull = t == 1;
;         q[t].rate = 0; q[t].color = float4(t, 0, 0, 1);
;       }
;     } else {
;       SetMeshOutputCounts(0, 0);
;     }
;   }
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%struct.P = type { i32 }

@visible = addrspace(3) global i32 undef, align 4

define void @main() {
entry:
  %payload = call %struct.P* @dx.op.getMeshPayload.struct.P(i32 170)
  %t = call i32 @dx.op.flattenedThreadIdInGroup.i32(i32 96)
  %view = call i32 @dx.op.viewID.i32(i32 138)
  %first = icmp eq i32 %t, 0
  br i1 %first, label %init, label %sync

init:
  store i32 0, i32 addrspace(3)* @visible, align 4
  br label %sync

sync:
  call void @dx.op.barrier(i32 80, i32 9)
  %old = atomicrmw add i32 addrspace(3)* @visible, i32 1 seq_cst
  call void @dx.op.barrier(i32 80, i32 9)
  %count = load i32, i32 addrspace(3)* @visible, align 4
  %n = call i32 @dx.op.waveReadLaneFirst.i32(i32 118, i32 %count)
  %basep = getelementptr inbounds %struct.P, %struct.P* %payload, i32 0, i32 0
  %base = load i32, i32* %basep, align 4
  %small = icmp ult i32 %base, 100
  br i1 %small, label %emit, label %empty

emit:
  call void @dx.op.setMeshOutputCounts(i32 168, i32 4, i32 2)
  %tx = and i32 %t, 1
  %ty = lshr i32 %t, 1
  %fx = uitofp i32 %tx to float
  %fy = uitofp i32 %ty to float
  %ft = uitofp i32 %t to float
  %fn = uitofp i32 %n to float
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 0, float %fx, i32 %t)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 1, float %fy, i32 %t)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 2, float 0.0, i32 %t)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 3, float 1.0, i32 %t)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 1, i32 0, i8 0, float 1.0, i32 %t)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 2, i32 0, i8 0, float %ft, i32 %t)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 2, i32 0, i8 1, float %fn, i32 %t)
  %lead = icmp ult i32 %t, 2
  br i1 %lead, label %prim, label %done

prim:
  %t1 = add i32 %t, 1
  %t2 = add i32 %t, 2
  call void @dx.op.emitIndices(i32 169, i32 %t, i32 %t, i32 %t1, i32 %t2)
  %id = add i32 %base, %t
  call void @dx.op.storePrimitiveOutput.i32(i32 172, i32 0, i32 0, i8 0, i32 %id, i32 %t)
  call void @dx.op.storePrimitiveOutput.i32(i32 172, i32 1, i32 0, i8 0, i32 %view, i32 %t)
  call void @dx.op.storePrimitiveOutput.i32(i32 172, i32 2, i32 0, i8 0, i32 0, i32 %t)
  %cull = icmp eq i32 %t, 1
  %culli = zext i1 %cull to i32
  call void @dx.op.storePrimitiveOutput.i32(i32 172, i32 3, i32 0, i8 0, i32 %culli, i32 %t)
  call void @dx.op.storePrimitiveOutput.i32(i32 172, i32 4, i32 0, i8 0, i32 0, i32 %t)
  call void @dx.op.storePrimitiveOutput.f32(i32 172, i32 5, i32 0, i8 0, float %ft, i32 %t)
  call void @dx.op.storePrimitiveOutput.f32(i32 172, i32 5, i32 0, i8 1, float 0.0, i32 %t)
  call void @dx.op.storePrimitiveOutput.f32(i32 172, i32 5, i32 0, i8 2, float 0.0, i32 %t)
  call void @dx.op.storePrimitiveOutput.f32(i32 172, i32 5, i32 0, i8 3, float 1.0, i32 %t)
  br label %done

empty:
  call void @dx.op.setMeshOutputCounts(i32 168, i32 0, i32 0)
  br label %done

done:
  ret void
}

declare %struct.P* @dx.op.getMeshPayload.struct.P(i32)
declare i32 @dx.op.flattenedThreadIdInGroup.i32(i32)
declare i32 @dx.op.viewID.i32(i32)
declare void @dx.op.barrier(i32, i32)
declare i32 @dx.op.waveReadLaneFirst.i32(i32, i32)
declare void @dx.op.setMeshOutputCounts(i32, i32, i32)
declare void @dx.op.emitIndices(i32, i32, i32, i32, i32)
declare void @dx.op.storeVertexOutput.f32(i32, i32, i32, i8, float, i32)
declare void @dx.op.storePrimitiveOutput.i32(i32, i32, i32, i8, i32, i32)
declare void @dx.op.storePrimitiveOutput.f32(i32, i32, i32, i8, float, i32)

!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.entryPoints = !{!4}
!1 = !{i32 1, i32 5}
!2 = !{i32 1, i32 7}
!3 = !{!"ms", i32 6, i32 5}
!4 = !{void ()* @main, !"main", !5, null, !6}
!5 = !{null, !10, !20}
!6 = !{i32 9, !7}
!7 = !{!8, i32 4, i32 2, i32 2, i32 4}
!8 = !{i32 4, i32 1, i32 1}
!9 = !{i32 0}
!10 = !{!11, !12, !13}
!11 = !{i32 0, !"SV_Position", i8 9, i8 3, !9, i8 4, i32 1, i8 4, i32 0, i8 0, null}
!12 = !{i32 1, !"SV_ClipDistance", i8 9, i8 6, !9, i8 2, i32 1, i8 1, i32 1, i8 0, null}
!13 = !{i32 2, !"TEXCOORD", i8 9, i8 0, !9, i8 2, i32 1, i8 2, i32 2, i8 0, null}
!20 = !{!21, !22, !23, !24, !25, !26}
!21 = !{i32 0, !"SV_PrimitiveID", i8 5, i8 10, !9, i8 1, i32 1, i8 1, i32 0, i8 0, null}
!22 = !{i32 1, !"SV_RenderTargetArrayIndex", i8 5, i8 4, !9, i8 1, i32 1, i8 1, i32 0, i8 1, null}
!23 = !{i32 2, !"SV_ViewportArrayIndex", i8 5, i8 5, !9, i8 1, i32 1, i8 1, i32 0, i8 2, null}
!24 = !{i32 3, !"SV_CullPrimitive", i8 1, i8 30, !9, i8 1, i32 1, i8 1, i32 -1, i8 -1, null}
!25 = !{i32 4, !"SV_ShadingRate", i8 5, i8 29, !9, i8 1, i32 1, i8 1, i32 0, i8 3, null}
!26 = !{i32 5, !"COLOR", i8 9, i8 0, !9, i8 1, i32 1, i8 4, i32 1, i8 0, null}
