; Shader execution reordering on a device (tests/gpu_ray_tracing.rs): raygen `Gen` traces
; ray x (even x at the triangle, odd x beside it) into a hit object without running a
; hit or miss shader, reads IsHit, reorders on the hit object with the hint x (2 bits),
; then invokes it: closest hit `Hit` writes 1000 + x to the payload, miss `Sky` 2000 + x.
; `Gen` stores (payload, IsHit) at 8 x. Hand-written from hlsl-specs 0027 and DXC's hctdb.py.
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%struct.RaytracingAccelerationStructure = type { i32 }
%struct.RWByteAddressBuffer = type { i32 }
%struct.Payload = type { i32 }
%struct.Attribs = type { <2 x float> }
%dx.types.Handle = type { i8* }
%dx.types.HitObject = type { i8* }

@"\01?Scene@@3URaytracingAccelerationStructure@@A" = external constant %struct.RaytracingAccelerationStructure, align 4
@"\01?Out@@3URWByteAddressBuffer@@A" = external constant %struct.RWByteAddressBuffer, align 4

define void @"\01?Gen@@YAXXZ"() #0 {
  %pl = alloca %struct.Payload, align 4
  %s = load %struct.RaytracingAccelerationStructure, %struct.RaytracingAccelerationStructure* @"\01?Scene@@3URaytracingAccelerationStructure@@A", align 4
  %o = load %struct.RWByteAddressBuffer, %struct.RWByteAddressBuffer* @"\01?Out@@3URWByteAddressBuffer@@A", align 4
  %x = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %odd = and i32 %x, 1
  %fodd = uitofp i32 %odd to float
  %shift = fmul float %fodd, 5.000000e+00
  %ox = fadd float %shift, 2.500000e-01
  %v = getelementptr inbounds %struct.Payload, %struct.Payload* %pl, i32 0, i32 0
  store i32 0, i32* %v, align 4
  %as = call %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32 160, %struct.RaytracingAccelerationStructure %s)
  %h = call %dx.types.HitObject @dx.op.hitObject_TraceRay.struct.Payload(i32 262, %dx.types.Handle %as, i32 1, i32 255, i32 0, i32 1, i32 0, float %ox, float 2.500000e-01, float 1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float -1.000000e+00, float 1.000000e+02, %struct.Payload* nonnull %pl)
  %hit = call i1 @dx.op.hitObject_StateScalar.i1(i32 270, %dx.types.HitObject %h)
  call void @dx.op.maybeReorderThread(i32 268, %dx.types.HitObject %h, i32 %x, i32 2)
  call void @dx.op.hitObject_Invoke.struct.Payload(i32 267, %dx.types.HitObject %h, %struct.Payload* nonnull %pl)
  %r = load i32, i32* %v, align 4
  %hz = zext i1 %hit to i32
  %ob = call %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32 160, %struct.RWByteAddressBuffer %o)
  %at = shl i32 %x, 3
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %ob, i32 %at, i32 undef, i32 %r, i32 %hz, i32 undef, i32 undef, i8 3)
  ret void
}

define void @"\01?Hit@@YAXUPayload@@UAttribs@@@Z"(%struct.Payload* noalias nocapture %p, %struct.Attribs* nocapture readonly %a) #0 {
  %x = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %r = add i32 %x, 1000
  %v = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 0
  store i32 %r, i32* %v, align 4
  ret void
}

define void @"\01?Sky@@YAXUPayload@@@Z"(%struct.Payload* noalias nocapture %p) #0 {
  %x = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %r = add i32 %x, 2000
  %v = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 0
  store i32 %r, i32* %v, align 4
  ret void
}

declare i32 @dx.op.dispatchRaysIndex.i32(i32, i8) #1
declare %dx.types.HitObject @dx.op.hitObject_TraceRay.struct.Payload(i32, %dx.types.Handle, i32, i32, i32, i32, i32, float, float, float, float, float, float, float, float, %struct.Payload*) #0
declare void @dx.op.hitObject_Invoke.struct.Payload(i32, %dx.types.HitObject, %struct.Payload*) #0
declare void @dx.op.maybeReorderThread(i32, %dx.types.HitObject, i32, i32) #0
declare i1 @dx.op.hitObject_StateScalar.i1(i32, %dx.types.HitObject) #1
declare %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32, %struct.RaytracingAccelerationStructure) #2
declare %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32, %struct.RWByteAddressBuffer) #2
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8) #0

attributes #0 = { nounwind }
attributes #1 = { nounwind readnone }
attributes #2 = { nounwind readonly }

!dx.version = !{!1}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!10, !12, !14, !20}

!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{!4, !6, null, null}
!4 = !{!5}
!5 = !{i32 0, %struct.RaytracingAccelerationStructure* @"\01?Scene@@3URaytracingAccelerationStructure@@A", !"Scene", i32 0, i32 0, i32 1, i32 16, i32 0, null}
!6 = !{!7}
!7 = !{i32 0, %struct.RWByteAddressBuffer* @"\01?Out@@3URWByteAddressBuffer@@A", !"Out", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!8 = !{i32 0}
!10 = !{null, !"", null, !3, !11}
!11 = !{i32 0, i64 65536}
!12 = !{void ()* @"\01?Gen@@YAXXZ", !"\01?Gen@@YAXXZ", null, null, !13}
!13 = !{i32 8, i32 7, i32 5, !8}
!14 = !{void (%struct.Payload*, %struct.Attribs*)* @"\01?Hit@@YAXUPayload@@UAttribs@@@Z", !"\01?Hit@@YAXUPayload@@UAttribs@@@Z", null, null, !15}
!15 = !{i32 8, i32 10, i32 6, i32 4, i32 7, i32 8, i32 5, !8}
!20 = !{void (%struct.Payload*)* @"\01?Sky@@YAXUPayload@@@Z", !"\01?Sky@@YAXUPayload@@@Z", null, null, !21}
!21 = !{i32 8, i32 11, i32 6, i32 4, i32 5, !8}
