; triple_break: three nested loops; the innermost body breaks out of all three at once to
; the outermost loop's exit. SPIR-V has no multi-level break: the structurizer needs a
; ladder (a flag tested at each loop's merge) or an equivalent rewrite.
define i32 @triple_break(i32 %n, i32 %key) {
entry:
  br label %l1.header

l1.header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %l1.latch ]
  %c1 = icmp slt i32 %i, %n
  br i1 %c1, label %l2.header, label %exit

l2.header:
  %j = phi i32 [ 0, %l1.header ], [ %j.next, %l2.latch ]
  %c2 = icmp slt i32 %j, %n
  br i1 %c2, label %l3.header, label %l1.latch

l3.header:
  %k = phi i32 [ 0, %l2.header ], [ %k.next, %l3.latch ]
  %c3 = icmp slt i32 %k, %n
  br i1 %c3, label %l3.body, label %l2.latch

l3.body:
  %ij = add i32 %i, %j
  %ijk = add i32 %ij, %k
  %found = icmp eq i32 %ijk, %key
  br i1 %found, label %exit, label %l3.latch

l3.latch:
  %k.next = add i32 %k, 1
  br label %l3.header

l2.latch:
  %j.next = add i32 %j, 1
  br label %l2.header

l1.latch:
  %i.next = add i32 %i, 1
  br label %l1.header

exit:
  %r = phi i32 [ -1, %l1.header ], [ %ijk, %l3.body ]
  ret i32 %r
}
