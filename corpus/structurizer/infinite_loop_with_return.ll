; infinite_loop_with_return: `for (;;) { if (x) return v; … }`: a loop with no exit edge at
; all, left only through a return inside it. The loop has no natural merge block: the
; structurizer must invent an (unreachable) merge, and post-dominance needs its
; infinite-loop treatment.
define i32 @infinite_loop_with_return(i32 %n) {
entry:
  br label %header

header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %done = icmp eq i32 %i, %n
  br i1 %done, label %ret, label %body

ret:
  ret i32 %i

body:
  %odd = and i32 %i, 1
  %c = icmp ne i32 %odd, 0
  br i1 %c, label %odd.path, label %latch

odd.path:
  br label %latch

latch:
  %step = phi i32 [ 1, %body ], [ 3, %odd.path ]
  %i.next = add i32 %i, %step
  br label %header
}
