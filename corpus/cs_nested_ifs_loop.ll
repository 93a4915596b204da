; A compute shader with nested ifs inside a loop, written by hand in the shape DXC emits.
;
;   RWByteAddressBuffer buf : register(u0);
;   cbuffer Params : register(b0) { uint count; uint threshold; };
;   [numthreads(64, 1, 1)]
;   void main(uint3 id : SV_DispatchThreadID) {
;     uint acc = 0;
;     for (uint i = 0; i < count; ++i) {
;       uint v = buf.Load((id.x + i) * 4);
;       if (v > threshold) {
;         if (v & 1) acc += v; else acc -= 1;
;       } else {
;         acc ^= i;
;       }
;     }
;     buf.Store(id.x * 4, acc);
;   }
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.CBufRet.i32 = type { i32, i32, i32, i32 }
%dx.types.ResRet.i32 = type { i32, i32, i32, i32, i32 }
%struct.RWByteAddressBuffer = type { i32 }
%Params = type { i32, i32 }

define void @main() {
entry:
  %buf = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %cb = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 2, i32 0, i32 0, i1 false)
  %id = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %params = call %dx.types.CBufRet.i32 @dx.op.cbufferLoadLegacy.i32(i32 59, %dx.types.Handle %cb, i32 0)
  %count = extractvalue %dx.types.CBufRet.i32 %params, 0
  %threshold = extractvalue %dx.types.CBufRet.i32 %params, 1
  %empty = icmp eq i32 %count, 0
  br i1 %empty, label %exit, label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %latch ]
  %idx = add i32 %id, %i
  %addr = shl i32 %idx, 2
  %ld = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %buf, i32 %addr, i32 undef)
  %v = extractvalue %dx.types.ResRet.i32 %ld, 0
  %big = icmp ugt i32 %v, %threshold
  br i1 %big, label %then, label %else

then:
  %bit = and i32 %v, 1
  %odd = icmp ne i32 %bit, 0
  br i1 %odd, label %then.odd, label %then.even

then.odd:
  %acc.add = add i32 %acc, %v
  br label %latch

then.even:
  %acc.dec = add i32 %acc, -1
  br label %latch

else:
  %acc.xor = xor i32 %acc, %i
  br label %latch

latch:
  %acc.next = phi i32 [ %acc.add, %then.odd ], [ %acc.dec, %then.even ], [ %acc.xor, %else ]
  %i.next = add nuw i32 %i, 1
  %more = icmp ult i32 %i.next, %count
  br i1 %more, label %loop, label %exit

exit:
  %result = phi i32 [ 0, %entry ], [ %acc.next, %latch ]
  %out = shl i32 %id, 2
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %buf, i32 %out, i32 undef, i32 %result, i32 undef, i32 undef, i32 undef, i8 1)
  ret void
}

declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.CBufRet.i32 @dx.op.cbufferLoadLegacy.i32(i32, %dx.types.Handle, i32)
declare %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32, %dx.types.Handle, i32, i32)
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.typeAnnotations = !{!9}
!dx.entryPoints = !{!13}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!"cs", i32 6, i32 0}
!3 = !{null, !4, !6, null}
!4 = !{!5}
!5 = !{i32 0, %struct.RWByteAddressBuffer* undef, !"buf", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!6 = !{!7}
!7 = !{i32 0, %Params* undef, !"Params", i32 0, i32 0, i32 1, i32 8, null}
!9 = !{i32 0, %Params undef, !10}
!10 = !{i32 8, !11, !12}
!11 = !{i32 6, !"count", i32 3, i32 0, i32 7, i32 5}
!12 = !{i32 6, !"threshold", i32 3, i32 4, i32 7, i32 5}
!13 = !{void ()* @main, !"main", null, !3, !14}
!14 = !{i32 0, i64 16, i32 4, !15}
!15 = !{i32 64, i32 1, i32 1}
