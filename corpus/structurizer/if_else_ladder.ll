; if_else_ladder: if / else if / else if / else, the shape of the blog's `val = …` ladder
; after DXC's simplifycfg. Every arm merges in one block with a PHI; the first test's
; empty arm was folded, so the PHI also has an entry straight from a test block.
; A structurizer should recover nested selections (one merge per level), no loops.
;
;   if (x == 1) v = 10; else if (x == 2) v = 20; else if (x == 3) v = 30; else v = 40;
define i32 @if_else_ladder(i32 %x) {
entry:
  %c1 = icmp eq i32 %x, 1
  br i1 %c1, label %end, label %test2

test2:
  %c2 = icmp eq i32 %x, 2
  br i1 %c2, label %arm2, label %test3

arm2:
  br label %end

test3:
  %c3 = icmp eq i32 %x, 3
  br i1 %c3, label %arm3, label %else

arm3:
  br label %end

else:
  br label %end

end:
  %v = phi i32 [ 10, %entry ], [ 20, %arm2 ], [ 30, %arm3 ], [ 40, %else ]
  ret i32 %v
}
