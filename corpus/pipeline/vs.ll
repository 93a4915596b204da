; Vertex shader of the hand-written pipeline in this folder (vs -> hs -> ds -> gs -> ps), each
; stage translated on its own; tests check that their interfaces link. Written by hand.
;
;   struct V { float4 pos : SV_Position; float3 nrm : NORMAL; uint layer : SV_RenderTargetArrayIndex; };
;   V main(float4 pos : POSITION, float3 nrm : NORMAL, uint inst : SV_InstanceID) {
;     V o; o.pos = pos; o.nrm = nrm; o.layer = inst; return o;
;   }
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
entry:
  %px = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 undef)
  %py = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 1, i32 undef)
  %pz = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 2, i32 undef)
  %pw = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 3, i32 undef)
  %nx = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 0, i32 undef)
  %ny = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 1, i32 undef)
  %nz = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 2, i32 undef)
  %inst = call i32 @dx.op.loadInput.i32(i32 4, i32 2, i32 0, i8 0, i32 undef)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %px)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %py)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float %pz)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float %pw)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 0, float %nx)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 1, float %ny)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 2, float %nz)
  call void @dx.op.storeOutput.i32(i32 5, i32 2, i32 0, i8 0, i32 %inst)
  ret void
}

declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)
declare i32 @dx.op.loadInput.i32(i32, i32, i32, i8, i32)
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)
declare void @dx.op.storeOutput.i32(i32, i32, i32, i8, i32)

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!"vs", i32 6, i32 0}
!3 = !{void ()* @main, !"main", !4, null, null}
!4 = !{!5, !10, null}
!5 = !{!6, !8, !9}
!6 = !{i32 0, !"POSITION", i8 9, i8 0, !7, i8 0, i32 1, i8 4, i32 0, i8 0, null}
!7 = !{i32 0}
!8 = !{i32 1, !"NORMAL", i8 9, i8 0, !7, i8 0, i32 1, i8 3, i32 1, i8 0, null}
!9 = !{i32 2, !"SV_InstanceID", i8 5, i8 2, !7, i8 0, i32 1, i8 1, i32 2, i8 0, null}
!10 = !{!11, !12, !13}
!11 = !{i32 0, !"SV_Position", i8 9, i8 3, !7, i8 4, i32 1, i8 4, i32 0, i8 0, null}
!12 = !{i32 1, !"NORMAL", i8 9, i8 0, !7, i8 2, i32 1, i8 3, i32 1, i8 0, null}
!13 = !{i32 2, !"SV_RenderTargetArrayIndex", i8 5, i8 4, !7, i8 1, i32 1, i8 1, i32 1, i8 3, null}
