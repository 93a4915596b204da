; nested_ifs_shared_merge: the same nested ifs after simplifycfg: all four inner arms branch
; straight to the outer merge, which is therefore the merge candidate of three selections.
; SPIR-V allows a block to be the merge of one header only, so the structurizer must add
; inner merge blocks (the blog's stage 4, "ladder" blocks for 1 and 2) and split the PHI.
define i32 @nested_ifs_shared_merge(i32 %x, i32 %y) {
entry:
  %a = icmp ne i32 %x, 0
  br i1 %a, label %outer.then, label %outer.else

outer.then:
  %b = icmp sgt i32 %y, 4
  br i1 %b, label %x1, label %y1

x1:
  br label %end

y1:
  br label %end

outer.else:
  %c = icmp sgt i32 %y, 12
  br i1 %c, label %z1, label %w1

z1:
  br label %end

w1:
  br label %end

end:
  %v = phi i32 [ 1, %x1 ], [ 2, %y1 ], [ 3, %z1 ], [ 4, %w1 ]
  ret i32 %v
}
