; cond_br_same_target: `br i1 %c, label %join, label %join`, a conditional branch whose two
; targets are one block (left by optimizers when both arms became empty), into a block with
; a PHI that lists the predecessor twice with equal values; then a loop whose latch ends in
; such a branch to the header (two parallel back edges), and one more to the exit.
define i32 @cond_br_same_target(i32 %x, i32 %n) {
entry:
  %c = icmp eq i32 %x, 0
  br i1 %c, label %join, label %join

join:
  %v = phi i32 [ %x, %entry ], [ %x, %entry ]
  br label %header

header:
  %i = phi i32 [ %v, %join ], [ %i.next, %latch ], [ %i.next, %latch ]
  %more = icmp slt i32 %i, %n
  br i1 %more, label %latch, label %header.exit

latch:
  %i.next = add i32 %i, 1
  %odd = icmp ne i32 %i.next, 7
  br i1 %odd, label %header, label %header

header.exit:
  %stop = icmp sgt i32 %i, 100
  br i1 %stop, label %exit, label %exit

exit:
  %r = phi i32 [ %i, %header.exit ], [ %i, %header.exit ]
  ret i32 %r
}
