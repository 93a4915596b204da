; switch_fallthrough: C fall-through: case 0's block does its work and branches into case
; 1's block, which is also a switch target. SPIR-V allows a case to fall into the next case
; only if that case directly follows it and is not reached otherwise from another case.
;
;   switch (x) { case 0: a(); /* fall through */ case 1: b(); break; case 2: c(); break; }
define i32 @switch_fallthrough(i32 %x) {
entry:
  switch i32 %x, label %default [
    i32 0, label %case0
    i32 1, label %case1
    i32 2, label %case2
  ]

case0:
  br label %case1

case1:
  %from = phi i32 [ 10, %case0 ], [ 11, %entry ]
  br label %end

case2:
  br label %end

default:
  br label %end

end:
  %v = phi i32 [ %from, %case1 ], [ 2, %case2 ], [ 0, %default ]
  ret i32 %v
}
