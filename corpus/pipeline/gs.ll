; Geometry shader of the hand-written pipeline in this folder: two instances, two streams
; (multiple streams need point output). Written by hand.
;
;   struct V { float4 pos : SV_Position; float3 nrm : NORMAL; uint layer : SV_RenderTargetArrayIndex; };
;   struct S1 { float4 data : DATA; };
;   [maxvertexcount(4)] [instance(2)]
;   void main(triangle V tri[3], uint inst : SV_GSInstanceID, uint prim : SV_PrimitiveID,
;             inout PointStream<V> s0, inout PointStream<S1> s1) {
;     for (uint i = 0; i < 3; i++) {
;       V o; o.pos = float4(tri[i].pos.xy, 0, 1); o.nrm = float3(tri[i].nrm.x, inst, prim);
;       o.layer = tri[i].layer + inst; s0.Append(o);
;     }
;     s0.RestartStrip();
;     S1 d; d.data = float4(prim, inst, 0, 1); s1.Append(d); s1.RestartStrip();
;   }
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
entry:
  %inst = call i32 @dx.op.gsInstanceID.i32(i32 100)
  %prim = call i32 @dx.op.primitiveID.i32(i32 108)
  %instf = uitofp i32 %inst to float
  %primf = uitofp i32 %prim to float
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %px = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 %i)
  %py = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 1, i32 %i)
  %nx = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 0, i32 %i)
  %layer = call i32 @dx.op.loadInput.i32(i32 4, i32 2, i32 0, i8 0, i32 %i)
  %outlayer = add i32 %layer, %inst
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %px)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %py)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float 0.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float 1.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 0, float %nx)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 1, float %instf)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 2, float %primf)
  call void @dx.op.storeOutput.i32(i32 5, i32 2, i32 0, i8 0, i32 %outlayer)
  call void @dx.op.emitStream(i32 97, i8 0)
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, 3
  br i1 %done, label %exit, label %loop

exit:
  call void @dx.op.cutStream(i32 98, i8 0)
  call void @dx.op.storeOutput.f32(i32 5, i32 3, i32 0, i8 0, float %primf)
  call void @dx.op.storeOutput.f32(i32 5, i32 3, i32 0, i8 1, float %instf)
  call void @dx.op.storeOutput.f32(i32 5, i32 3, i32 0, i8 2, float 0.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 3, i32 0, i8 3, float 1.000000e+00)
  call void @dx.op.emitThenCutStream(i32 99, i8 1)
  ret void
}

declare i32 @dx.op.gsInstanceID.i32(i32)
declare i32 @dx.op.primitiveID.i32(i32)
declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)
declare i32 @dx.op.loadInput.i32(i32, i32, i32, i8, i32)
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)
declare void @dx.op.storeOutput.i32(i32, i32, i32, i8, i32)
declare void @dx.op.emitStream(i32, i8)
declare void @dx.op.cutStream(i32, i8)
declare void @dx.op.emitThenCutStream(i32, i8)

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!"gs", i32 6, i32 0}
!3 = !{void ()* @main, !"main", !4, null, !20}
!4 = !{!5, !10, null}
!5 = !{!6, !8, !9}
!6 = !{i32 0, !"SV_Position", i8 9, i8 3, !7, i8 4, i32 1, i8 4, i32 0, i8 0, null}
!7 = !{i32 0}
!8 = !{i32 1, !"NORMAL", i8 9, i8 0, !7, i8 2, i32 1, i8 3, i32 1, i8 0, null}
!9 = !{i32 2, !"SV_RenderTargetArrayIndex", i8 5, i8 4, !7, i8 1, i32 1, i8 1, i32 1, i8 3, null}
!10 = !{!6, !8, !9, !11}
!11 = !{i32 3, !"DATA", i8 9, i8 0, !7, i8 2, i32 1, i8 4, i32 0, i8 0, !12}
!12 = !{i32 0, i32 1}
!20 = !{i32 1, !21}
!21 = !{i32 3, i32 4, i32 3, i32 1, i32 2}
