; Domain shader of the hand-written pipeline in this folder. Written by hand.
;
;   struct CP { float4 pos : SV_Position; float3 nrm : NORMAL; };
;   struct PC { float edge[3] : SV_TessFactor; float inside : SV_InsideTessFactor; float3 center : CENTER; };
;   struct V { float4 pos : SV_Position; float3 nrm : NORMAL; uint layer : SV_RenderTargetArrayIndex; };
;   [domain("tri")]
;   V main(PC pc, float3 uvw : SV_DomainLocation, const OutputPatch<CP, 3> cp, uint prim : SV_PrimitiveID) {
;     V o;
;     o.pos = float4(uvw.x * cp[0].pos.x + uvw.y * cp[1].pos.x + uvw.z * cp[2].pos.x,
;                    uvw.x * cp[0].pos.y + uvw.y * cp[1].pos.y + uvw.z * cp[2].pos.y, 0, 1);
;     o.nrm = float3(pc.center.x, pc.edge[1], cp[2].nrm.z); o.layer = prim & 3; return o;
;   }
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
entry:
  %u = call float @dx.op.domainLocation.f32(i32 105, i8 0)
  %v = call float @dx.op.domainLocation.f32(i32 105, i8 1)
  %w = call float @dx.op.domainLocation.f32(i32 105, i8 2)
  %x0 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 0)
  %x1 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 1)
  %x2 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 2)
  %y0 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 1, i32 0)
  %y1 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 1, i32 1)
  %y2 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 1, i32 2)
  %ux = fmul fast float %u, %x0
  %vx = fmul fast float %v, %x1
  %wx = fmul fast float %w, %x2
  %uvx = fadd fast float %ux, %vx
  %x = fadd fast float %uvx, %wx
  %uy = fmul fast float %u, %y0
  %vy = fmul fast float %v, %y1
  %wy = fmul fast float %w, %y2
  %uvy = fadd fast float %uy, %vy
  %y = fadd fast float %uvy, %wy
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %x)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %y)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float 0.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float 1.000000e+00)
  %cx = call float @dx.op.loadPatchConstant.f32(i32 104, i32 2, i32 0, i8 0)
  %e1 = call float @dx.op.loadPatchConstant.f32(i32 104, i32 0, i32 1, i8 0)
  %nz = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 2, i32 2)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 0, float %cx)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 1, float %e1)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 2, float %nz)
  %prim = call i32 @dx.op.primitiveID.i32(i32 108)
  %layer = and i32 %prim, 3
  call void @dx.op.storeOutput.i32(i32 5, i32 2, i32 0, i8 0, i32 %layer)
  ret void
}

declare float @dx.op.domainLocation.f32(i32, i8)
declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)
declare float @dx.op.loadPatchConstant.f32(i32, i32, i32, i8)
declare i32 @dx.op.primitiveID.i32(i32)
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)
declare void @dx.op.storeOutput.i32(i32, i32, i32, i8, i32)

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!"ds", i32 6, i32 0}
!3 = !{void ()* @main, !"main", !4, null, !20}
!4 = !{!5, !15, !10}
!5 = !{!6, !8}
!6 = !{i32 0, !"SV_Position", i8 9, i8 3, !7, i8 4, i32 1, i8 4, i32 0, i8 0, null}
!7 = !{i32 0}
!8 = !{i32 1, !"NORMAL", i8 9, i8 0, !7, i8 2, i32 1, i8 3, i32 1, i8 0, null}
!10 = !{!11, !13, !14}
!11 = !{i32 0, !"SV_TessFactor", i8 9, i8 25, !12, i8 0, i32 3, i8 1, i32 0, i8 3, null}
!12 = !{i32 0, i32 1, i32 2}
!13 = !{i32 1, !"SV_InsideTessFactor", i8 9, i8 26, !7, i8 0, i32 1, i8 1, i32 3, i8 0, null}
!14 = !{i32 2, !"CENTER", i8 9, i8 0, !7, i8 0, i32 1, i8 3, i32 0, i8 0, null}
!15 = !{!6, !8, !16}
!16 = !{i32 2, !"SV_RenderTargetArrayIndex", i8 5, i8 4, !7, i8 1, i32 1, i8 1, i32 1, i8 3, null}
!20 = !{i32 2, !21}
!21 = !{i32 2, i32 3}
