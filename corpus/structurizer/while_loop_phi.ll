; while_loop_phi: while (i < n) { s += i; i++; } return s; with loop-carried PHIs in the
; header and an LCSSA PHI (one predecessor) in the exit block.
define i32 @while_loop_phi(i32 %n) {
entry:
  br label %header

header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %body ]
  %s = phi i32 [ 0, %entry ], [ %s.next, %body ]
  %cmp = icmp slt i32 %i, %n
  br i1 %cmp, label %body, label %exit

body:
  %s.next = add i32 %s, %i
  %i.next = add i32 %i, 1
  br label %header

exit:
  %s.lcssa = phi i32 [ %s, %header ]
  ret i32 %s.lcssa
}
