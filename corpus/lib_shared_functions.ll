; A ray-tracing library whose two entries (raygen Gen, miss Miss) call the same functions:
; shade (a payload pointer, a branch, a returned value) and store (a resource write).
; Hand-written for tests/ray_tracing.rs (inlining per entry).
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%struct.RWByteAddressBuffer = type { i32 }
%struct.Payload = type { float, i32 }
%dx.types.Handle = type { i8* }

@"\01?Out@@3URWByteAddressBuffer@@A" = external constant %struct.RWByteAddressBuffer, align 4

define i32 @"\01?shade@@YAIAIAUPayload@@I@Z"(%struct.Payload* %p, i32 %x) #1 {
entry:
  %f = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 0
  %v = load float, float* %f, align 4
  %big = fcmp fast ogt float %v, 1.000000e+00
  br i1 %big, label %then, label %done

then:
  %h = fadd fast float %v, 5.000000e-01
  store float %h, float* %f, align 4
  %y = add i32 %x, 1
  br label %done

done:
  %r = phi i32 [ %y, %then ], [ %x, %entry ]
  %cnt = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 1
  store i32 %r, i32* %cnt, align 4
  ret i32 %r
}

define void @"\01?store@@YAXII@Z"(i32 %at, i32 %v) #1 {
  %b = load %struct.RWByteAddressBuffer, %struct.RWByteAddressBuffer* @"\01?Out@@3URWByteAddressBuffer@@A", align 4
  %h = call %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32 160, %struct.RWByteAddressBuffer %b)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %h, i32 %at, i32 undef, i32 %v, i32 undef, i32 undef, i32 undef, i8 1)
  ret void
}

define void @"\01?Gen@@YAXXZ"() #0 {
  %pl = alloca %struct.Payload, align 4
  %f = getelementptr inbounds %struct.Payload, %struct.Payload* %pl, i32 0, i32 0
  store float 2.000000e+00, float* %f, align 4
  %i = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %r = call i32 @"\01?shade@@YAIAIAUPayload@@I@Z"(%struct.Payload* %pl, i32 %i)
  %a = shl i32 %i, 2
  call void @"\01?store@@YAXII@Z"(i32 %a, i32 %r)
  ret void
}

define void @"\01?Miss@@YAXUPayload@@@Z"(%struct.Payload* noalias nocapture %payload) #0 {
  %r = call i32 @"\01?shade@@YAIAIAUPayload@@I@Z"(%struct.Payload* %payload, i32 7)
  call void @"\01?store@@YAXII@Z"(i32 0, i32 %r)
  ret void
}

declare i32 @dx.op.dispatchRaysIndex.i32(i32, i8) #2
declare %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32, %struct.RWByteAddressBuffer) #3
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8) #0

attributes #0 = { nounwind }
attributes #1 = { noinline nounwind }
attributes #2 = { nounwind readnone }
attributes #3 = { nounwind readonly }

!dx.version = !{!1}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!6, !8, !10}

!1 = !{i32 1, i32 3}
!2 = !{!"lib", i32 6, i32 3}
!3 = !{null, !4, null, null}
!4 = !{!5}
!5 = !{i32 0, %struct.RWByteAddressBuffer* @"\01?Out@@3URWByteAddressBuffer@@A", !"Out", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!6 = !{null, !"", null, !3, !7}
!7 = !{i32 0, i64 65536}
!8 = !{void ()* @"\01?Gen@@YAXXZ", !"\01?Gen@@YAXXZ", null, null, !9}
!9 = !{i32 8, i32 7, i32 5, !12}
!10 = !{void (%struct.Payload*)* @"\01?Miss@@YAXUPayload@@@Z", !"\01?Miss@@YAXUPayload@@@Z", null, null, !11}
!11 = !{i32 8, i32 11, i32 6, i32 8, i32 5, !12}
!12 = !{i32 0}
