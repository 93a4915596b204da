; loop_with_header_switch: the loop header itself ends in a switch: one case leaves the
; loop, the others run bodies that reach the latch. A SPIR-V header block carries one merge
; instruction, so the loop header and the switch need separate blocks.
define i32 @loop_with_header_switch(i32 %n) {
entry:
  br label %header

header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %sel = urem i32 %i, 4
  switch i32 %sel, label %latch [
    i32 0, label %a
    i32 1, label %b
    i32 3, label %exit
  ]

a:
  br label %latch

b:
  br label %latch

latch:
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %header, label %exit

exit:
  %r = phi i32 [ %i, %header ], [ %i.next, %latch ]
  ret i32 %r
}
