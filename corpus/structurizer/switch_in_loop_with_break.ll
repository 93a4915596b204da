; switch_in_loop_with_break: a loop whose body is a switch: one case breaks out of the loop
; (a switch case leaving two constructs at once), one continues (branches to the latch),
; the others merge after the switch and fall into the latch.
define i32 @switch_in_loop_with_break(i32 %n) {
entry:
  br label %header

header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %latch ]
  %sel = and i32 %i, 3
  switch i32 %sel, label %sw.default [
    i32 0, label %case.break
    i32 1, label %case.continue
    i32 2, label %case.work
  ]

case.break:
  %stop = icmp sgt i32 %acc, %n
  br i1 %stop, label %exit, label %sw.end

case.continue:
  br label %latch

case.work:
  %w = add i32 %acc, %i
  br label %sw.end

sw.default:
  br label %sw.end

sw.end:
  %a = phi i32 [ %acc, %case.break ], [ %w, %case.work ], [ 1, %sw.default ]
  br label %latch

latch:
  %acc.next = phi i32 [ %acc, %case.continue ], [ %a, %sw.end ]
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %header, label %exit

exit:
  %r = phi i32 [ %acc, %case.break ], [ %acc.next, %latch ]
  ret i32 %r
}
