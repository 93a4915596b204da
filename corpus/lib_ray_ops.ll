; A ray-tracing library calling every ray-tracing operation of DXIL 1.8 in the stages
; that allow it: raygen (launch ids, traceRay, callShader), closest hit (every system
; value, ObjectToWorld/WorldToObject in both HLSL layouts, a nested traceRay), any hit
; (acceptHitAndEndSearch and ignoreHit under conditions), intersection (two reportHit
; of one attribute type), miss and callable. Hand-written for tests/ray_tracing.rs.
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%struct.RaytracingAccelerationStructure = type { i32 }
%struct.RWByteAddressBuffer = type { i32 }
%struct.Payload = type { <4 x float>, i32 }
%struct.Attribs = type { <2 x float> }
%struct.Custom = type { float, i32 }
%struct.CallData = type { i32 }
%dx.types.Handle = type { i8* }

@"\01?Scene@@3URaytracingAccelerationStructure@@A" = external constant %struct.RaytracingAccelerationStructure, align 4
@"\01?Out@@3URWByteAddressBuffer@@A" = external constant %struct.RWByteAddressBuffer, align 4

define void @"\01?Gen@@YAXXZ"() #0 {
  %pl = alloca %struct.Payload, align 4
  %cd = alloca %struct.CallData, align 4
  %s = load %struct.RaytracingAccelerationStructure, %struct.RaytracingAccelerationStructure* @"\01?Scene@@3URaytracingAccelerationStructure@@A", align 4
  %o = load %struct.RWByteAddressBuffer, %struct.RWByteAddressBuffer* @"\01?Out@@3URWByteAddressBuffer@@A", align 4
  %x = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %y = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 1)
  %w = call i32 @dx.op.dispatchRaysDimensions.i32(i32 146, i8 0)
  %h = call i32 @dx.op.dispatchRaysDimensions.i32(i32 146, i8 1)
  %row = mul i32 %y, %w
  %lin = add i32 %row, %x
  %fx = uitofp i32 %x to float
  %fy = uitofp i32 %y to float
  %col = getelementptr inbounds %struct.Payload, %struct.Payload* %pl, i32 0, i32 0
  store <4 x float> zeroinitializer, <4 x float>* %col, align 4
  %as = call %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32 160, %struct.RaytracingAccelerationStructure %s)
  call void @dx.op.traceRay.struct.Payload(i32 157, %dx.types.Handle %as, i32 0, i32 255, i32 0, i32 1, i32 0, float %fx, float %fy, float -1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 1.000000e+02, %struct.Payload* nonnull %pl)
  %v = load <4 x float>, <4 x float>* %col, align 4
  %c0 = extractelement <4 x float> %v, i32 0
  %cdi = getelementptr inbounds %struct.CallData, %struct.CallData* %cd, i32 0, i32 0
  store i32 %h, i32* %cdi, align 4
  call void @dx.op.callShader.struct.CallData(i32 159, i32 0, %struct.CallData* nonnull %cd)
  %cr = load i32, i32* %cdi, align 4
  %ob = call %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32 160, %struct.RWByteAddressBuffer %o)
  %at = shl i32 %lin, 3
  %bits = bitcast float %c0 to i32
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %ob, i32 %at, i32 undef, i32 %bits, i32 %cr, i32 undef, i32 undef, i8 3)
  ret void
}

define void @"\01?Hit@@YAXUPayload@@UAttribs@@@Z"(%struct.Payload* noalias nocapture %p, %struct.Attribs* nocapture readonly %a) #0 {
  %bary = getelementptr inbounds %struct.Attribs, %struct.Attribs* %a, i32 0, i32 0
  %b = load <2 x float>, <2 x float>* %bary, align 4
  %b0 = extractelement <2 x float> %b, i32 0
  %wo0 = call float @dx.op.worldRayOrigin.f32(i32 147, i8 0)
  %wo2 = call float @dx.op.worldRayOrigin.f32(i32 147, i8 2)
  %wd1 = call float @dx.op.worldRayDirection.f32(i32 148, i8 1)
  %oo0 = call float @dx.op.objectRayOrigin.f32(i32 149, i8 0)
  %od2 = call float @dx.op.objectRayDirection.f32(i32 150, i8 2)
  ; ObjectToWorld3x4()[1][3] and ObjectToWorld4x3()[3][1] are the same element.
  %m34 = call float @dx.op.objectToWorld.f32(i32 151, i32 1, i8 3)
  %m43 = call float @dx.op.objectToWorld.f32(i32 151, i32 2, i8 0)
  %w34 = call float @dx.op.worldToObject.f32(i32 152, i32 0, i8 3)
  %w43 = call float @dx.op.worldToObject.f32(i32 152, i32 2, i8 1)
  %tmin = call float @dx.op.rayTMin.f32(i32 153)
  %tcur = call float @dx.op.rayTCurrent.f32(i32 154)
  %kind = call i32 @dx.op.hitKind.i32(i32 143)
  %flags = call i32 @dx.op.rayFlags.i32(i32 144)
  %iid = call i32 @dx.op.instanceID.i32(i32 141)
  %iix = call i32 @dx.op.instanceIndex.i32(i32 142)
  %prim = call i32 @dx.op.primitiveIndex.i32(i32 161)
  %geo = call i32 @dx.op.geometryIndex.i32(i32 213)
  %s1 = fadd fast float %wo0, %wo2
  %s2 = fadd fast float %s1, %wd1
  %s3 = fadd fast float %s2, %oo0
  %s4 = fadd fast float %s3, %od2
  %s5 = fadd fast float %s4, %m34
  %s6 = fadd fast float %s5, %m43
  %s7 = fadd fast float %s6, %w34
  %s8 = fadd fast float %s7, %w43
  %s9 = fadd fast float %s8, %tmin
  %s10 = fadd fast float %s9, %tcur
  %s11 = fadd fast float %s10, %b0
  %i1 = add i32 %kind, %flags
  %i2 = add i32 %i1, %iid
  %i3 = add i32 %i2, %iix
  %i4 = add i32 %i3, %prim
  %i5 = add i32 %i4, %geo
  %col = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 0
  %v0 = insertelement <4 x float> undef, float %s11, i32 0
  %v1 = insertelement <4 x float> %v0, float %tcur, i32 1
  %v2 = insertelement <4 x float> %v1, float %b0, i32 2
  %v3 = insertelement <4 x float> %v2, float 1.000000e+00, i32 3
  store <4 x float> %v3, <4 x float>* %col, align 4
  %cnt = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 1
  store i32 %i5, i32* %cnt, align 4
  ; A second bounce from the closest hit, with a payload of its own.
  %depth = icmp ult i32 %i5, 4
  br i1 %depth, label %again, label %done

again:
  %q = alloca %struct.Payload, align 4
  %s = load %struct.RaytracingAccelerationStructure, %struct.RaytracingAccelerationStructure* @"\01?Scene@@3URaytracingAccelerationStructure@@A", align 4
  %as = call %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32 160, %struct.RaytracingAccelerationStructure %s)
  call void @dx.op.traceRay.struct.Payload(i32 157, %dx.types.Handle %as, i32 1, i32 1, i32 0, i32 1, i32 0, float %wo0, float %wo2, float %wd1, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 0.000000e+00, float 1.000000e+01, %struct.Payload* nonnull %q)
  br label %done

done:
  ret void
}

define void @"\01?Any@@YAXUPayload@@UAttribs@@@Z"(%struct.Payload* noalias nocapture %p, %struct.Attribs* nocapture readonly %a) #0 {
  %kind = call i32 @dx.op.hitKind.i32(i32 143)
  %front = icmp eq i32 %kind, 254
  br i1 %front, label %accept, label %test

accept:
  %cnt = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 1
  store i32 1, i32* %cnt, align 4
  call void @dx.op.acceptHitAndEndSearch(i32 156)
  unreachable

test:
  %prim = call i32 @dx.op.primitiveIndex.i32(i32 161)
  %odd = and i32 %prim, 1
  %skip = icmp ne i32 %odd, 0
  br i1 %skip, label %ignore, label %keep

ignore:
  call void @dx.op.ignoreHit(i32 155)
  unreachable

keep:
  ret void
}

define void @"\01?Box@@YAXXZ"() #0 {
  %at = alloca %struct.Custom, align 4
  %tmin = call float @dx.op.rayTMin.f32(i32 153)
  %o = call float @dx.op.objectRayOrigin.f32(i32 149, i8 0)
  %t = fadd fast float %tmin, 5.000000e-01
  %f = getelementptr inbounds %struct.Custom, %struct.Custom* %at, i32 0, i32 0
  store float %o, float* %f, align 4
  %k = getelementptr inbounds %struct.Custom, %struct.Custom* %at, i32 0, i32 1
  store i32 7, i32* %k, align 4
  %hit = call i1 @dx.op.reportHit.struct.Custom(i32 158, float %t, i32 1, %struct.Custom* nonnull %at)
  br i1 %hit, label %done, label %second

second:
  %t2 = fadd fast float %t, 1.000000e+00
  store i32 8, i32* %k, align 4
  %hit2 = call i1 @dx.op.reportHit.struct.Custom(i32 158, float %t2, i32 2, %struct.Custom* nonnull %at)
  br label %done

done:
  ret void
}

define void @"\01?Sky@@YAXUPayload@@@Z"(%struct.Payload* noalias nocapture %p) #0 {
  %d = call float @dx.op.worldRayDirection.f32(i32 148, i8 1)
  %t = call float @dx.op.rayTCurrent.f32(i32 154)
  %m = call float @dx.op.rayTMin.f32(i32 153)
  %flags = call i32 @dx.op.rayFlags.i32(i32 144)
  %x = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %col = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 0
  %v0 = insertelement <4 x float> undef, float %d, i32 0
  %v1 = insertelement <4 x float> %v0, float %t, i32 1
  %v2 = insertelement <4 x float> %v1, float %m, i32 2
  %v3 = insertelement <4 x float> %v2, float 0.000000e+00, i32 3
  store <4 x float> %v3, <4 x float>* %col, align 4
  %cnt = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 1
  %sum = add i32 %flags, %x
  store i32 %sum, i32* %cnt, align 4
  ret void
}

define void @"\01?Fn@@YAXUCallData@@@Z"(%struct.CallData* noalias nocapture %d) #0 {
  %f = getelementptr inbounds %struct.CallData, %struct.CallData* %d, i32 0, i32 0
  %v = load i32, i32* %f, align 4
  %x = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %s = add i32 %v, %x
  %m = mul i32 %s, 3
  store i32 %m, i32* %f, align 4
  ret void
}

declare i32 @dx.op.dispatchRaysIndex.i32(i32, i8) #1
declare i32 @dx.op.dispatchRaysDimensions.i32(i32, i8) #1
declare float @dx.op.worldRayOrigin.f32(i32, i8) #1
declare float @dx.op.worldRayDirection.f32(i32, i8) #1
declare float @dx.op.objectRayOrigin.f32(i32, i8) #1
declare float @dx.op.objectRayDirection.f32(i32, i8) #1
declare float @dx.op.objectToWorld.f32(i32, i32, i8) #1
declare float @dx.op.worldToObject.f32(i32, i32, i8) #1
declare float @dx.op.rayTMin.f32(i32) #1
declare float @dx.op.rayTCurrent.f32(i32) #2
declare i32 @dx.op.hitKind.i32(i32) #1
declare i32 @dx.op.rayFlags.i32(i32) #1
declare i32 @dx.op.instanceID.i32(i32) #1
declare i32 @dx.op.instanceIndex.i32(i32) #1
declare i32 @dx.op.primitiveIndex.i32(i32) #1
declare i32 @dx.op.geometryIndex.i32(i32) #1
declare void @dx.op.ignoreHit(i32) #3
declare void @dx.op.acceptHitAndEndSearch(i32) #3
declare void @dx.op.traceRay.struct.Payload(i32, %dx.types.Handle, i32, i32, i32, i32, i32, float, float, float, float, float, float, float, float, %struct.Payload*) #0
declare i1 @dx.op.reportHit.struct.Custom(i32, float, i32, %struct.Custom*) #0
declare void @dx.op.callShader.struct.CallData(i32, i32, %struct.CallData*) #0
declare %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32, %struct.RaytracingAccelerationStructure) #2
declare %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32, %struct.RWByteAddressBuffer) #2
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8) #0

attributes #0 = { nounwind }
attributes #1 = { nounwind readnone }
attributes #2 = { nounwind readonly }
attributes #3 = { noreturn nounwind }

!dx.version = !{!1}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!10, !12, !14, !16, !18, !20, !22}

!1 = !{i32 1, i32 3}
!2 = !{!"lib", i32 6, i32 3}
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
!15 = !{i32 8, i32 10, i32 6, i32 20, i32 7, i32 8, i32 5, !8}
!16 = !{void (%struct.Payload*, %struct.Attribs*)* @"\01?Any@@YAXUPayload@@UAttribs@@@Z", !"\01?Any@@YAXUPayload@@UAttribs@@@Z", null, null, !17}
!17 = !{i32 8, i32 9, i32 6, i32 20, i32 7, i32 8, i32 5, !8}
!18 = !{void ()* @"\01?Box@@YAXXZ", !"\01?Box@@YAXXZ", null, null, !19}
!19 = !{i32 8, i32 8, i32 5, !8}
!20 = !{void (%struct.Payload*)* @"\01?Sky@@YAXUPayload@@@Z", !"\01?Sky@@YAXUPayload@@@Z", null, null, !21}
!21 = !{i32 8, i32 11, i32 6, i32 20, i32 5, !8}
!22 = !{void (%struct.CallData*)* @"\01?Fn@@YAXUCallData@@@Z", !"\01?Fn@@YAXUCallData@@@Z", null, null, !23}
!23 = !{i32 8, i32 12, i32 5, !8}
