; Amplification shader of the hand-written mesh pipeline in this folder. Written by hand.
;
;   struct P { uint base; };
;   groupshared P p;
;   [numthreads(2, 1, 1)]
;   void main(uint t : SV_GroupIndex, uint g : SV_GroupID) {
;     if (t == 0) p.base = g * 2;
;     GroupMemoryBarrierWithGroupSync();
;     uint lanes = WaveActiveCountBits(true);
;     if (g > 7) return;            // groups past 7 launch no mesh groups
;     DispatchMesh(lanes, 1, 1, p);
;   }
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%struct.P = type { i32 }

@p = addrspace(3) global %struct.P undef, align 4

define void @main() {
entry:
  %t = call i32 @dx.op.flattenedThreadIdInGroup.i32(i32 96)
  %g = call i32 @dx.op.groupId.i32(i32 94, i32 0)
  %first = icmp eq i32 %t, 0
  br i1 %first, label %init, label %sync

init:
  %g2 = shl i32 %g, 1
  store i32 %g2, i32 addrspace(3)* getelementptr inbounds (%struct.P, %struct.P addrspace(3)* @p, i32 0, i32 0), align 4
  br label %sync

sync:
  call void @dx.op.barrier(i32 80, i32 9)
  %lanes = call i32 @dx.op.waveAllOp(i32 135, i1 true)
  %late = icmp ugt i32 %g, 7
  br i1 %late, label %done, label %launch

launch:
  call void @dx.op.dispatchMesh.struct.P(i32 173, i32 %lanes, i32 1, i32 1, %struct.P addrspace(3)* @p)
  br label %done

done:
  ret void
}

declare i32 @dx.op.flattenedThreadIdInGroup.i32(i32)
declare i32 @dx.op.groupId.i32(i32, i32)
declare void @dx.op.barrier(i32, i32)
declare i32 @dx.op.waveAllOp(i32, i1)
declare void @dx.op.dispatchMesh.struct.P(i32, i32, i32, i32, %struct.P addrspace(3)*)

!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.entryPoints = !{!4}
!1 = !{i32 1, i32 5}
!2 = !{i32 1, i32 7}
!3 = !{!"as", i32 6, i32 5}
!4 = !{void ()* @main, !"main", null, null, !5}
!5 = !{i32 10, !6}
!6 = !{!7, i32 4}
!7 = !{i32 2, i32 1, i32 1}
