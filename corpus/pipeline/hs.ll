; Hull shader of the hand-written pipeline in this folder. Written by hand.
;
;   struct CP { float4 pos : SV_Position; float3 nrm : NORMAL; };
;   struct PC { float edge[3] : SV_TessFactor; float inside : SV_InsideTessFactor; float3 center : CENTER; };
;   PC patch(InputPatch<CP, 3> ip, OutputPatch<CP, 3> op, uint prim : SV_PrimitiveID) {
;     PC o; float f = prim + 2.5; o.edge[0] = o.edge[1] = o.edge[2] = f; o.inside = f * 2;
;     o.center.x = (op[0].nrm.x + op[1].nrm.x + op[2].nrm.x) / 3; o.center.y = ip[1].pos.y;
;     o.center.z = 0; for (uint i = 0; i < 3; i++) o.center.z += op[i].nrm.z;
;     return o;
;   }
;   [domain("tri")] [partitioning("pow2")] [outputtopology("triangle_cw")] [outputcontrolpoints(3)]
;   [patchconstantfunc("patch")] [maxtessfactor(15)]
;   CP main(InputPatch<CP, 3> ip, uint id : SV_OutputControlPointID) { CP o = ip[id]; o.nrm *= 2; return o; }
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
entry:
  %id = call i32 @dx.op.outputControlPointID.i32(i32 107)
  %px = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 %id)
  %py = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 1, i32 %id)
  %pz = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 2, i32 %id)
  %pw = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 3, i32 %id)
  %nx = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 0, i32 %id)
  %ny = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 1, i32 %id)
  %nz = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 2, i32 %id)
  %mx = fmul fast float %nx, 2.000000e+00
  %my = fmul fast float %ny, 2.000000e+00
  %mz = fmul fast float %nz, 2.000000e+00
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %px)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %py)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float %pz)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float %pw)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 0, float %mx)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 1, float %my)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 2, float %mz)
  ret void
}

define void @patch() {
entry:
  %prim = call i32 @dx.op.primitiveID.i32(i32 108)
  %pf = uitofp i32 %prim to float
  %f = fadd fast float %pf, 2.500000e+00
  call void @dx.op.storePatchConstant.f32(i32 106, i32 0, i32 0, i8 0, float %f)
  call void @dx.op.storePatchConstant.f32(i32 106, i32 0, i32 1, i8 0, float %f)
  call void @dx.op.storePatchConstant.f32(i32 106, i32 0, i32 2, i8 0, float %f)
  %inside = fmul fast float %f, 2.000000e+00
  call void @dx.op.storePatchConstant.f32(i32 106, i32 1, i32 0, i8 0, float %inside)
  %a = call float @dx.op.loadOutputControlPoint.f32(i32 103, i32 1, i32 0, i8 0, i32 0)
  %b = call float @dx.op.loadOutputControlPoint.f32(i32 103, i32 1, i32 0, i8 0, i32 1)
  %c = call float @dx.op.loadOutputControlPoint.f32(i32 103, i32 1, i32 0, i8 0, i32 2)
  %ab = fadd fast float %a, %b
  %abc = fadd fast float %ab, %c
  %avg = fmul fast float %abc, 0x3FD5555560000000
  call void @dx.op.storePatchConstant.f32(i32 106, i32 2, i32 0, i8 0, float %avg)
  %y = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 1, i32 1)
  call void @dx.op.storePatchConstant.f32(i32 106, i32 2, i32 0, i8 1, float %y)
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %acc = phi float [ 0.000000e+00, %entry ], [ %sum, %loop ]
  %z = call float @dx.op.loadOutputControlPoint.f32(i32 103, i32 1, i32 0, i8 2, i32 %i)
  %sum = fadd fast float %acc, %z
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, 3
  br i1 %done, label %exit, label %loop

exit:
  call void @dx.op.storePatchConstant.f32(i32 106, i32 2, i32 0, i8 2, float %sum)
  ret void
}

declare i32 @dx.op.outputControlPointID.i32(i32)
declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32)
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float)
declare i32 @dx.op.primitiveID.i32(i32)
declare void @dx.op.storePatchConstant.f32(i32, i32, i32, i8, float)
declare float @dx.op.loadOutputControlPoint.f32(i32, i32, i32, i8, i32)

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!"hs", i32 6, i32 0}
!3 = !{void ()* @main, !"main", !4, null, !20}
!4 = !{!5, !5, !10}
!5 = !{!6, !8}
!6 = !{i32 0, !"SV_Position", i8 9, i8 3, !7, i8 4, i32 1, i8 4, i32 0, i8 0, null}
!7 = !{i32 0}
!8 = !{i32 1, !"NORMAL", i8 9, i8 0, !7, i8 2, i32 1, i8 3, i32 1, i8 0, null}
!10 = !{!11, !13, !14}
!11 = !{i32 0, !"SV_TessFactor", i8 9, i8 25, !12, i8 0, i32 3, i8 1, i32 0, i8 3, null}
!12 = !{i32 0, i32 1, i32 2}
!13 = !{i32 1, !"SV_InsideTessFactor", i8 9, i8 26, !7, i8 0, i32 1, i8 1, i32 3, i8 0, null}
!14 = !{i32 2, !"CENTER", i8 9, i8 0, !7, i8 0, i32 1, i8 3, i32 0, i8 0, null}
!20 = !{i32 3, !21}
!21 = !{void ()* @patch, i32 3, i32 3, i32 2, i32 2, i32 3, float 1.500000e+01}
