; nested_ifs: if (a) { if (b) X else Y } else { if (c) Z else W }, each selection with its
; own merge block (the blog's "recover nested selection constructs" example before
; optimization). The easy case: three selections, three merges, no rewriting needed.
define i32 @nested_ifs(i32 %x, i32 %y) {
entry:
  %a = icmp ne i32 %x, 0
  br i1 %a, label %outer.then, label %outer.else

outer.then:
  %b = icmp sgt i32 %y, 4
  br i1 %b, label %x1, label %y1

x1:
  br label %inner1.end

y1:
  br label %inner1.end

inner1.end:
  %p = phi i32 [ 1, %x1 ], [ 2, %y1 ]
  br label %end

outer.else:
  %c = icmp sgt i32 %y, 12
  br i1 %c, label %z1, label %w1

z1:
  br label %inner2.end

w1:
  br label %inner2.end

inner2.end:
  %q = phi i32 [ 3, %z1 ], [ 4, %w1 ]
  br label %end

end:
  %v = phi i32 [ %p, %inner1.end ], [ %q, %inner2.end ]
  ret i32 %v
}
