; A compute shader that sums a buffer per thread group in groupshared memory and adds each
; group's total to a result with an atomic, written by hand in the shape DXC emits.
; `untangle corpus/cs_groupshared_reduce.ll -o reduce.spv --validate` translates it.
;
;   ByteAddressBuffer data : register(t0);
;   RWStructuredBuffer<uint> result : register(u0);
;   groupshared uint partial[64];
;   [numthreads(64, 1, 1)]
;   void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
;     partial[gi] = data.Load(id.x * 4);
;     GroupMemoryBarrierWithGroupSync();
;     for (uint s = 32; s > 0; s >>= 1) {
;       if (gi < s) partial[gi] += partial[gi + s];
;       GroupMemoryBarrierWithGroupSync();
;     }
;     if (gi == 0) InterlockedAdd(result[0], partial[0]);
;   }
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.ResRet.i32 = type { i32, i32, i32, i32, i32 }
%struct.ByteAddressBuffer = type { i32 }
%"class.RWStructuredBuffer<unsigned int>" = type { i32 }

@partial = internal addrspace(3) global [64 x i32] undef, align 4

define void @main() {
entry:
  %data = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)
  %result = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %id = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %gi = call i32 @dx.op.flattenedThreadIdInGroup.i32(i32 96)
  %addr = shl i32 %id, 2
  %ld = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %data, i32 %addr, i32 undef, i8 1, i32 4)
  %v = extractvalue %dx.types.ResRet.i32 %ld, 0
  %slot = getelementptr [64 x i32], [64 x i32] addrspace(3)* @partial, i32 0, i32 %gi
  store i32 %v, i32 addrspace(3)* %slot, align 4
  call void @dx.op.barrier(i32 80, i32 9)
  br label %loop

loop:
  %s = phi i32 [ 32, %entry ], [ %s.next, %step ]
  %active = icmp ult i32 %gi, %s
  br i1 %active, label %add, label %step

add:
  %other.i = add i32 %gi, %s
  %other.p = getelementptr [64 x i32], [64 x i32] addrspace(3)* @partial, i32 0, i32 %other.i
  %other = load i32, i32 addrspace(3)* %other.p, align 4
  %mine = load i32, i32 addrspace(3)* %slot, align 4
  %sum = add i32 %mine, %other
  store i32 %sum, i32 addrspace(3)* %slot, align 4
  br label %step

step:
  call void @dx.op.barrier(i32 80, i32 9)
  %s.next = lshr i32 %s, 1
  %more = icmp ne i32 %s.next, 0
  br i1 %more, label %loop, label %done

done:
  %first = icmp eq i32 %gi, 0
  br i1 %first, label %publish, label %exit

publish:
  %total.p = getelementptr [64 x i32], [64 x i32] addrspace(3)* @partial, i32 0, i32 0
  %total = load i32, i32 addrspace(3)* %total.p, align 4
  %old = call i32 @dx.op.atomicBinOp.i32(i32 78, %dx.types.Handle %result, i32 0, i32 0, i32 0, i32 undef, i32 %total)
  br label %exit

exit:
  ret void
}

declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare i32 @dx.op.flattenedThreadIdInGroup.i32(i32)
declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.barrier(i32, i32)
declare i32 @dx.op.atomicBinOp.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32)

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!10}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!"cs", i32 6, i32 0}
!3 = !{!4, !6, null, null}
!4 = !{!5}
!5 = !{i32 0, %struct.ByteAddressBuffer* undef, !"data", i32 0, i32 0, i32 1, i32 11, i32 0, null}
!6 = !{!7}
!7 = !{i32 0, %"class.RWStructuredBuffer<unsigned int>"* undef, !"result", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !8}
!8 = !{i32 1, i32 4}
!10 = !{void ()* @main, !"main", null, !3, !11}
!11 = !{i32 0, i64 16, i32 4, !12}
!12 = !{i32 64, i32 1, i32 1}
