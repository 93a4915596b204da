; loop_multiple_continues: a loop whose continues branch straight to the header from three
; places (three back edges into one header, as DXC emits when the continue block is empty);
; the loop leaves from the header only. The header PHI has one entry per back edge. SPIR-V
; needs a single continue target, so the back edges must be merged.
define i32 @loop_multiple_continues(i32 %n) {
entry:
  br label %header

header:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ], [ %i2, %mid ], [ %i3, %tail ]
  %cmp = icmp slt i32 %i, %n
  br i1 %cmp, label %body, label %exit

body:
  %i1 = add i32 %i, 1
  %c1 = icmp eq i32 %i, 3
  br i1 %c1, label %header, label %mid

mid:
  %i2 = add i32 %i, 2
  %c2 = icmp eq i32 %i, 5
  br i1 %c2, label %header, label %tail

tail:
  %i3 = add i32 %i, 3
  br label %header

exit:
  ret i32 %i
}
