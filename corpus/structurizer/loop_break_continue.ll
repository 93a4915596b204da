; loop_break_continue: for (i = 0; i < n; i++) { if (a) break; if (b) continue; body; }
; The break leaves from the middle of the body; the continue goes to the latch (the
; continue target), which also receives the body's fall-through. The exit PHI gets values
; from the header's exit and from the break.
define i32 @loop_break_continue(i32 %n, i32 %a) {
entry:
  br label %header

header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %cmp = icmp slt i32 %i, %n
  br i1 %cmp, label %body, label %exit

body:
  %brk = icmp eq i32 %i, %a
  br i1 %brk, label %exit, label %test.continue

test.continue:
  %odd = and i32 %i, 1
  %cont = icmp ne i32 %odd, 0
  br i1 %cont, label %latch, label %work

work:
  br label %latch

latch:
  %i.next = add i32 %i, 1
  br label %header

exit:
  %r = phi i32 [ -1, %header ], [ %i, %body ]
  ret i32 %r
}
