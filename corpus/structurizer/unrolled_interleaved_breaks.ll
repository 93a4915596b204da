; unrolled_interleaved_breaks: a loop with three breaks and a continue, [unroll]ed N = 4
; times, as DXC emits it (the "stairway to heaven" of the dxil-spirv blog series, stage 3
; "de-interleave unrolled loop breaks"):
;
;   for (int i = 0; i < 4; i++) {
;     w = f(w, i);
;     if (w & 13) { work; dummy = 1; break; }        // shared break block %break1
;     if (w & 8) continue;                            // to the next iteration
;     if (w & 1) { if (w & 4) work; dummy = 2; break; } // shared break block %break2
;     if (w & 2) { work; dummy = 3; break; }         // shared break block %break3
;   }
;
; Each break block is shared by all four iterations, so its predecessors interleave with
; the other breaks' across iterations; all three and the fall-through after the last
; iteration meet in %exit (PHIs for `dummy` and `w`). The post-dominance frontiers of the
; break blocks partially overlap: no nesting of selections explains them, and the
; structurizer has to rewrite the region (dxil-spirv dispatches through a ladder).
; untangle::fuzzing::structured_gen::unrolled_interleaved_breaks(n) builds this family.
define i32 @unrolled_interleaved_breaks(i32 %x) {
entry:
  br label %iter0

iter0:
  %w0 = add i32 %x, 1
  %m13.0 = and i32 %w0, 13
  %c13.0 = icmp ne i32 %m13.0, 0
  br i1 %c13.0, label %work1.0, label %test8.0

work1.0:
  %k1.0 = mul i32 %w0, 3
  br label %break1

test8.0:
  %m8.0 = and i32 %w0, 8
  %c8.0 = icmp ne i32 %m8.0, 0
  br i1 %c8.0, label %iter1, label %test1.0

test1.0:
  %m1.0 = and i32 %w0, 1
  %c1.0 = icmp ne i32 %m1.0, 0
  br i1 %c1.0, label %test4.0, label %test2.0

test4.0:
  %m4.0 = and i32 %w0, 4
  %c4.0 = icmp ne i32 %m4.0, 0
  br i1 %c4.0, label %work4.0, label %brk2.0

work4.0:
  %k4.0 = or i32 %w0, 16
  br label %brk2.0

brk2.0:
  %w2.0 = phi i32 [ %k4.0, %work4.0 ], [ %w0, %test4.0 ]
  br label %break2

test2.0:
  %m2.0 = and i32 %w0, 2
  %c2.0 = icmp ne i32 %m2.0, 0
  br i1 %c2.0, label %work3.0, label %iter1

work3.0:
  %k3.0 = or i32 %w0, 32
  br label %break3

iter1:
  %w1 = add i32 %w0, 2
  %m13.1 = and i32 %w1, 13
  %c13.1 = icmp ne i32 %m13.1, 0
  br i1 %c13.1, label %work1.1, label %test8.1

work1.1:
  %k1.1 = mul i32 %w1, 3
  br label %break1

test8.1:
  %m8.1 = and i32 %w1, 8
  %c8.1 = icmp ne i32 %m8.1, 0
  br i1 %c8.1, label %iter2, label %test1.1

test1.1:
  %m1.1 = and i32 %w1, 1
  %c1.1 = icmp ne i32 %m1.1, 0
  br i1 %c1.1, label %test4.1, label %test2.1

test4.1:
  %m4.1 = and i32 %w1, 4
  %c4.1 = icmp ne i32 %m4.1, 0
  br i1 %c4.1, label %work4.1, label %brk2.1

work4.1:
  %k4.1 = or i32 %w1, 16
  br label %brk2.1

brk2.1:
  %w2.1 = phi i32 [ %k4.1, %work4.1 ], [ %w1, %test4.1 ]
  br label %break2

test2.1:
  %m2.1 = and i32 %w1, 2
  %c2.1 = icmp ne i32 %m2.1, 0
  br i1 %c2.1, label %work3.1, label %iter2

work3.1:
  %k3.1 = or i32 %w1, 32
  br label %break3

iter2:
  %w2 = add i32 %w1, 3
  %m13.2 = and i32 %w2, 13
  %c13.2 = icmp ne i32 %m13.2, 0
  br i1 %c13.2, label %work1.2, label %test8.2

work1.2:
  %k1.2 = mul i32 %w2, 3
  br label %break1

test8.2:
  %m8.2 = and i32 %w2, 8
  %c8.2 = icmp ne i32 %m8.2, 0
  br i1 %c8.2, label %iter3, label %test1.2

test1.2:
  %m1.2 = and i32 %w2, 1
  %c1.2 = icmp ne i32 %m1.2, 0
  br i1 %c1.2, label %test4.2, label %test2.2

test4.2:
  %m4.2 = and i32 %w2, 4
  %c4.2 = icmp ne i32 %m4.2, 0
  br i1 %c4.2, label %work4.2, label %brk2.2

work4.2:
  %k4.2 = or i32 %w2, 16
  br label %brk2.2

brk2.2:
  %w2.2 = phi i32 [ %k4.2, %work4.2 ], [ %w2, %test4.2 ]
  br label %break2

test2.2:
  %m2.2 = and i32 %w2, 2
  %c2.2 = icmp ne i32 %m2.2, 0
  br i1 %c2.2, label %work3.2, label %iter3

work3.2:
  %k3.2 = or i32 %w2, 32
  br label %break3

iter3:
  %w3 = add i32 %w2, 4
  %m13.3 = and i32 %w3, 13
  %c13.3 = icmp ne i32 %m13.3, 0
  br i1 %c13.3, label %work1.3, label %test8.3

work1.3:
  %k1.3 = mul i32 %w3, 3
  br label %break1

test8.3:
  %m8.3 = and i32 %w3, 8
  %c8.3 = icmp ne i32 %m8.3, 0
  br i1 %c8.3, label %exit, label %test1.3

test1.3:
  %m1.3 = and i32 %w3, 1
  %c1.3 = icmp ne i32 %m1.3, 0
  br i1 %c1.3, label %test4.3, label %test2.3

test4.3:
  %m4.3 = and i32 %w3, 4
  %c4.3 = icmp ne i32 %m4.3, 0
  br i1 %c4.3, label %work4.3, label %brk2.3

work4.3:
  %k4.3 = or i32 %w3, 16
  br label %brk2.3

brk2.3:
  %w2.3 = phi i32 [ %k4.3, %work4.3 ], [ %w3, %test4.3 ]
  br label %break2

test2.3:
  %m2.3 = and i32 %w3, 2
  %c2.3 = icmp ne i32 %m2.3, 0
  br i1 %c2.3, label %work3.3, label %exit

work3.3:
  %k3.3 = or i32 %w3, 32
  br label %break3

break1:
  %b1 = phi i32 [ %k1.0, %work1.0 ], [ %k1.1, %work1.1 ], [ %k1.2, %work1.2 ], [ %k1.3, %work1.3 ]
  br label %exit

break2:
  %b2 = phi i32 [ %w2.0, %brk2.0 ], [ %w2.1, %brk2.1 ], [ %w2.2, %brk2.2 ], [ %w2.3, %brk2.3 ]
  br label %exit

break3:
  %b3 = phi i32 [ %k3.0, %work3.0 ], [ %k3.1, %work3.1 ], [ %k3.2, %work3.2 ], [ %k3.3, %work3.3 ]
  br label %exit

exit:
  %wout = phi i32 [ %b1, %break1 ], [ %b2, %break2 ], [ %b3, %break3 ], [ %w3, %test8.3 ], [ %w3, %test2.3 ]
  %dummy = phi i32 [ 1, %break1 ], [ 2, %break2 ], [ 3, %break3 ], [ 0, %test8.3 ], [ 0, %test2.3 ]
  %r = add i32 %wout, %dummy
  ret i32 %r
}
