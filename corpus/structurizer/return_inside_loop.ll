; return_inside_loop: a while loop with a normal exit and an early `return` from inside a
; nested if in its body. The return block is inside no construct that can reach the loop's
; merge, so it must sit inside the loop's construct in the output.
define i32 @return_inside_loop(i32 %n, i32 %key) {
entry:
  br label %header

header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %cmp = icmp slt i32 %i, %n
  br i1 %cmp, label %body, label %exit

body:
  %hit = icmp eq i32 %i, %key
  br i1 %hit, label %check, label %latch

check:
  %big = icmp sgt i32 %i, 10
  br i1 %big, label %early.ret, label %latch

early.ret:
  ret i32 %i

latch:
  %i.next = add i32 %i, 1
  br label %header

exit:
  ret i32 -1
}
