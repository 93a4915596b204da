; do_while: do { body (with an if inside) } while (cond); the loop is tested at the bottom,
; so the latch holds the conditional back edge and the only exit.
define i32 @do_while(i32 %n) {
entry:
  br label %body

body:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %odd = and i32 %i, 1
  %c = icmp eq i32 %odd, 0
  br i1 %c, label %even, label %latch

even:
  br label %latch

latch:
  %step = phi i32 [ 1, %body ], [ 2, %even ]
  %i.next = add i32 %i, %step
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %body, label %exit

exit:
  ret i32 %i.next
}
