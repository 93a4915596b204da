; diamond_chain: three if/else diamonds in sequence, each merge carrying a PHI that feeds the
; next diamond. Each join is both the merge of one selection and the header of the next.
define i32 @diamond_chain(i32 %x, i32 %y) {
entry:
  %c0 = icmp slt i32 %x, %y
  br i1 %c0, label %t0, label %f0

t0:
  br label %j0

f0:
  br label %j0

j0:
  %v0 = phi i32 [ %x, %t0 ], [ %y, %f0 ]
  %c1 = icmp eq i32 %v0, 7
  br i1 %c1, label %t1, label %f1

t1:
  br label %j1

f1:
  br label %j1

j1:
  %v1 = phi i32 [ %v0, %t1 ], [ 7, %f1 ]
  %c2 = icmp ugt i32 %v1, 100
  br i1 %c2, label %t2, label %f2

t2:
  br label %j2

f2:
  br label %j2

j2:
  %v2 = phi i32 [ 100, %t2 ], [ %v1, %f2 ]
  ret i32 %v2
}
