; if_else_ladder_shared_tail: an if / else if / else if / else ladder whose first two arms
; end in a shared tail block (common code sunk by the optimizer) before the final merge,
; while the other two arms branch to the merge directly. The tail is a merge nested inside
; the ladder that is not the merge of any one test.
define i32 @if_else_ladder_shared_tail(i32 %x, i32 %y) {
entry:
  %c1 = icmp slt i32 %x, 0
  br i1 %c1, label %arm1, label %test2

arm1:
  br label %tail

test2:
  %c2 = icmp slt i32 %y, 0
  br i1 %c2, label %arm2, label %test3

arm2:
  br label %tail

test3:
  %c3 = icmp eq i32 %x, %y
  br i1 %c3, label %arm3, label %else

arm3:
  br label %end

else:
  br label %end

tail:
  %t = phi i32 [ 1, %arm1 ], [ 2, %arm2 ]
  br label %end

end:
  %v = phi i32 [ %t, %tail ], [ 3, %arm3 ], [ 4, %else ]
  ret i32 %v
}
