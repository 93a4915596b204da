; double_continue: `continue outer` from inside an inner loop: the inner body branches to
; the outer loop's latch, leaving the inner loop by an edge that is not its exit. The outer
; latch therefore has predecessors inside and outside the inner loop.
define void @double_continue(i32 %n, i32 %m) {
entry:
  br label %outer.header

outer.header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  %c1 = icmp slt i32 %i, %n
  br i1 %c1, label %inner.header, label %exit

inner.header:
  %j = phi i32 [ 0, %outer.header ], [ %j.next, %inner.latch ]
  %c2 = icmp slt i32 %j, %m
  br i1 %c2, label %inner.body, label %after.inner

inner.body:
  %x = xor i32 %i, %j
  %skip = icmp eq i32 %x, 3
  br i1 %skip, label %outer.latch, label %inner.latch

inner.latch:
  %j.next = add i32 %j, 1
  br label %inner.header

after.inner:
  br label %outer.latch

outer.latch:
  %i.next = add i32 %i, 1
  br label %outer.header

exit:
  ret void
}
