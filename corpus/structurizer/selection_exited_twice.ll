; selection_exited_twice: inside an inner loop, a selection whose two arms both leave, to
; two different outer targets: one breaks the inner loop, the other breaks the outer loop.
; Neither arm reaches a merge, and the two exits belong to different constructs.
define i32 @selection_exited_twice(i32 %n, i32 %key) {
entry:
  br label %outer.header

outer.header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  %c1 = icmp slt i32 %i, %n
  br i1 %c1, label %inner.header, label %exit

inner.header:
  %j = phi i32 [ 0, %outer.header ], [ %j.next, %inner.latch ]
  %x = add i32 %i, %j
  %hit = icmp eq i32 %x, %key
  br i1 %hit, label %sel, label %inner.latch

sel:
  %far = icmp sgt i32 %i, %j
  br i1 %far, label %exit, label %outer.latch

inner.latch:
  %j.next = add i32 %j, 1
  %c2 = icmp slt i32 %j.next, %n
  br i1 %c2, label %inner.header, label %outer.latch

outer.latch:
  %i.next = add i32 %i, 1
  br label %outer.header

exit:
  %r = phi i32 [ -1, %outer.header ], [ %x, %sel ]
  ret i32 %r
}
