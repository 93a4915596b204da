; SM 6.10 preview operations of ray-tracing shaders (operands from DXC's hctdb.py; hlsl-specs
; proposals 0041 triangle object positions, 0045 clustered geometry, 0039 debugging),
; hand-written for tests/sm610_preview.rs. Closest hit `Hit` and any hit `Any` read
; ClusterID() and TriangleObjectPositions() into the payload; raygen `Gen` traces into a
; hit object and reads its cluster id (both SER extensions), raygen `GenPos` its triangle
; positions (SPV_EXT_shader_invocation_reorder only) and breaks into a debugger.
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%struct.RaytracingAccelerationStructure = type { i32 }
%struct.RWByteAddressBuffer = type { i32 }
%struct.Payload = type { <4 x float>, i32 }
%struct.Attribs = type { <2 x float> }
%dx.types.Handle = type { i8* }
%dx.types.HitObject = type { i8* }

@"\01?Scene@@3URaytracingAccelerationStructure@@A" = external constant %struct.RaytracingAccelerationStructure, align 4
@"\01?Out@@3URWByteAddressBuffer@@A" = external constant %struct.RWByteAddressBuffer, align 4

define void @"\01?Hit@@YAXUPayload@@UAttribs@@@Z"(%struct.Payload* noalias nocapture %p, %struct.Attribs* nocapture readonly %a) #0 {
  %cid = call i32 @dx.op.clusterID(i32 -2147483645)
  %pos = call <9 x float> @dx.op.triangleObjectPosition.f32(i32 -2147483641)
  %x0 = extractelement <9 x float> %pos, i32 0
  %y1 = extractelement <9 x float> %pos, i32 4
  %z2 = extractelement <9 x float> %pos, i32 8
  %v0 = insertelement <4 x float> undef, float %x0, i32 0
  %v1 = insertelement <4 x float> %v0, float %y1, i32 1
  %v2 = insertelement <4 x float> %v1, float %z2, i32 2
  %v3 = insertelement <4 x float> %v2, float 1.000000e+00, i32 3
  %col = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 0
  store <4 x float> %v3, <4 x float>* %col, align 4
  %cnt = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 1
  store i32 %cid, i32* %cnt, align 4
  ret void
}

define void @"\01?Any@@YAXUPayload@@UAttribs@@@Z"(%struct.Payload* noalias nocapture %p, %struct.Attribs* nocapture readonly %a) #0 {
  %cid = call i32 @dx.op.clusterID(i32 -2147483645)
  %pos = call <9 x float> @dx.op.triangleObjectPosition.f32(i32 -2147483641)
  %y0 = extractelement <9 x float> %pos, i32 1
  %bits = bitcast float %y0 to i32
  %sum = add i32 %cid, %bits
  %cnt = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 1
  store i32 %sum, i32* %cnt, align 4
  ret void
}

define void @"\01?Gen@@YAXXZ"() #0 {
  %pl = alloca %struct.Payload, align 4
  %s = load %struct.RaytracingAccelerationStructure, %struct.RaytracingAccelerationStructure* @"\01?Scene@@3URaytracingAccelerationStructure@@A", align 4
  %o = load %struct.RWByteAddressBuffer, %struct.RWByteAddressBuffer* @"\01?Out@@3URWByteAddressBuffer@@A", align 4
  %x = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %as = call %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32 160, %struct.RaytracingAccelerationStructure %s)
  %h = call %dx.types.HitObject @dx.op.hitObject_TraceRay.struct.Payload(i32 262, %dx.types.Handle %as, i32 0, i32 255, i32 0, i32 1, i32 0, float 0.000000e+00, float 0.000000e+00, float -1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 1.000000e+02, %struct.Payload* nonnull %pl)
  %cid = call i32 @dx.op.hitObject_StateScalar.i32(i32 -2147483642, %dx.types.HitObject %h)
  %ob = call %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32 160, %struct.RWByteAddressBuffer %o)
  %at = shl i32 %x, 2
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %ob, i32 %at, i32 undef, i32 %cid, i32 undef, i32 undef, i32 undef, i8 1)
  ret void
}

define void @"\01?GenPos@@YAXXZ"() #0 {
  %pl = alloca %struct.Payload, align 4
  %s = load %struct.RaytracingAccelerationStructure, %struct.RaytracingAccelerationStructure* @"\01?Scene@@3URaytracingAccelerationStructure@@A", align 4
  %o = load %struct.RWByteAddressBuffer, %struct.RWByteAddressBuffer* @"\01?Out@@3URWByteAddressBuffer@@A", align 4
  %x = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %as = call %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32 160, %struct.RaytracingAccelerationStructure %s)
  %h = call %dx.types.HitObject @dx.op.hitObject_TraceRay.struct.Payload(i32 262, %dx.types.Handle %as, i32 0, i32 255, i32 0, i32 1, i32 0, float 0.000000e+00, float 0.000000e+00, float -1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 1.000000e+02, %struct.Payload* nonnull %pl)
  %pos = call <9 x float> @dx.op.hitObject_TriangleObjectPosition.f32(i32 -2147483638, %dx.types.HitObject %h)
  %z1 = extractelement <9 x float> %pos, i32 5
  %bits = bitcast float %z1 to i32
  call void @dx.op.debugBreak(i32 -2147483615)
  %ob = call %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32 160, %struct.RWByteAddressBuffer %o)
  %at = shl i32 %x, 2
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %ob, i32 %at, i32 undef, i32 %bits, i32 undef, i32 undef, i32 undef, i8 1)
  ret void
}

declare i32 @dx.op.dispatchRaysIndex.i32(i32, i8) #1
declare i32 @dx.op.clusterID(i32) #1
declare <9 x float> @dx.op.triangleObjectPosition.f32(i32) #1
declare %dx.types.HitObject @dx.op.hitObject_TraceRay.struct.Payload(i32, %dx.types.Handle, i32, i32, i32, i32, i32, float, float, float, float, float, float, float, float, %struct.Payload*) #0
declare i32 @dx.op.hitObject_StateScalar.i32(i32, %dx.types.HitObject) #1
declare <9 x float> @dx.op.hitObject_TriangleObjectPosition.f32(i32, %dx.types.HitObject) #1
declare void @dx.op.debugBreak(i32) #0
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
!dx.entryPoints = !{!10, !12, !14, !16, !18}

!1 = !{i32 1, i32 10}
!2 = !{!"lib", i32 6, i32 10}
!3 = !{!4, !6, null, null}
!4 = !{!5}
!5 = !{i32 0, %struct.RaytracingAccelerationStructure* @"\01?Scene@@3URaytracingAccelerationStructure@@A", !"Scene", i32 0, i32 0, i32 1, i32 16, i32 0, null}
!6 = !{!7}
!7 = !{i32 0, %struct.RWByteAddressBuffer* @"\01?Out@@3URWByteAddressBuffer@@A", !"Out", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!8 = !{i32 0}
!10 = !{null, !"", null, !3, !11}
!11 = !{i32 0, i64 65536}
!12 = !{void (%struct.Payload*, %struct.Attribs*)* @"\01?Hit@@YAXUPayload@@UAttribs@@@Z", !"\01?Hit@@YAXUPayload@@UAttribs@@@Z", null, null, !13}
!13 = !{i32 8, i32 10, i32 6, i32 20, i32 7, i32 8, i32 5, !8}
!14 = !{void (%struct.Payload*, %struct.Attribs*)* @"\01?Any@@YAXUPayload@@UAttribs@@@Z", !"\01?Any@@YAXUPayload@@UAttribs@@@Z", null, null, !15}
!15 = !{i32 8, i32 9, i32 6, i32 20, i32 7, i32 8, i32 5, !8}
!16 = !{void ()* @"\01?Gen@@YAXXZ", !"\01?Gen@@YAXXZ", null, null, !17}
!17 = !{i32 8, i32 7, i32 5, !8}
!18 = !{void ()* @"\01?GenPos@@YAXXZ", !"\01?GenPos@@YAXXZ", null, null, !19}
!19 = !{i32 8, i32 7, i32 5, !8}
