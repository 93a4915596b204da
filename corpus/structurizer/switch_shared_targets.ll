; switch_shared_targets: several case values branch to one block, one case value targets
; the default's block, and one case goes straight to the merge. The PHIs list the switch
; block once per edge (LLVM's rule: one entry per incoming edge, equal values).
define i32 @switch_shared_targets(i32 %x) {
entry:
  switch i32 %x, label %default [
    i32 1, label %small
    i32 2, label %small
    i32 3, label %small
    i32 7, label %default
    i32 9, label %end
  ]

small:
  %s = phi i32 [ %x, %entry ], [ %x, %entry ], [ %x, %entry ]
  br label %end

default:
  %d = phi i32 [ 0, %entry ], [ 0, %entry ]
  br label %end

end:
  %v = phi i32 [ %s, %small ], [ %d, %default ], [ 99, %entry ]
  ret i32 %v
}
