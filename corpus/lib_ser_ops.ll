; SM 6.9 shader execution reordering (hlsl-specs 0027; operands from DXC's hctdb.py):
; raygen `Gen` traces into a hit object or makes a miss one (a HitObject PHI across a
; branch), reads its state, reorders (with the hit object and hint, and the hint-only form
; on a nop hit object) and invokes it; closest hit `Hit` reads every accessor of a traced
; hit object (matrix, vectors, attributes, a local root table constant); miss `Sky` makes a
; miss hit object and invokes it. Raygen `Ext` uses what only SPV_EXT_shader_invocation_reorder
; expresses (ray flags, SetShaderTableIndex, FromRayQuery on an AllocateRayQuery2 query with
; RAY_FLAG_FORCE_OMM_2_STATE; tests/shader_execution_reordering.rs swaps in
; FromRayQueryWithAttrs, which is refused). Hand-written for tests/shader_execution_reordering.rs.
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

define void @"\01?Gen@@YAXXZ"() #0 {
entry:
  %pl = alloca %struct.Payload, align 4
  %s = load %struct.RaytracingAccelerationStructure, %struct.RaytracingAccelerationStructure* @"\01?Scene@@3URaytracingAccelerationStructure@@A", align 4
  %o = load %struct.RWByteAddressBuffer, %struct.RWByteAddressBuffer* @"\01?Out@@3URWByteAddressBuffer@@A", align 4
  %x = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %fx = uitofp i32 %x to float
  %as = call %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32 160, %struct.RaytracingAccelerationStructure %s)
  %odd = and i32 %x, 1
  %c = icmp eq i32 %odd, 0
  br i1 %c, label %trace, label %miss

trace:
  %ht = call %dx.types.HitObject @dx.op.hitObject_TraceRay.struct.Payload(i32 262, %dx.types.Handle %as, i32 0, i32 255, i32 0, i32 1, i32 0, float %fx, float 0.000000e+00, float -1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 1.000000e+02, %struct.Payload* nonnull %pl)
  br label %join

miss:
  %hm = call %dx.types.HitObject @dx.op.hitObject_MakeMiss(i32 265, i32 0, i32 1, float %fx, float 0.000000e+00, float -1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 1.000000e+02)
  br label %join

join:
  %h = phi %dx.types.HitObject [ %ht, %trace ], [ %hm, %miss ]
  %hit = call i1 @dx.op.hitObject_StateScalar.i1(i32 270, %dx.types.HitObject %h)
  %sti = call i32 @dx.op.hitObject_StateScalar.i32(i32 286, %dx.types.HitObject %h)
  %hint = select i1 %hit, i32 %sti, i32 7
  call void @dx.op.maybeReorderThread(i32 268, %dx.types.HitObject %h, i32 %hint, i32 4)
  call void @dx.op.maybeReorderThread(i32 268, %dx.types.HitObject %h, i32 undef, i32 0)
  %nop = call %dx.types.HitObject @dx.op.hitObject_MakeNop(i32 266)
  call void @dx.op.maybeReorderThread(i32 268, %dx.types.HitObject %nop, i32 %x, i32 2)
  call void @dx.op.hitObject_Invoke.struct.Payload(i32 267, %dx.types.HitObject %h, %struct.Payload* nonnull %pl)
  %cnt = getelementptr inbounds %struct.Payload, %struct.Payload* %pl, i32 0, i32 1
  %v = load i32, i32* %cnt, align 4
  %ob = call %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32 160, %struct.RWByteAddressBuffer %o)
  %at = shl i32 %x, 2
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %ob, i32 %at, i32 undef, i32 %v, i32 undef, i32 undef, i32 undef, i8 1)
  ret void
}

define void @"\01?Hit@@YAXUPayload@@UAttribs@@@Z"(%struct.Payload* noalias nocapture %p, %struct.Attribs* nocapture readonly %a) #0 {
  %attrs = alloca %struct.Attribs, align 4
  %s = load %struct.RaytracingAccelerationStructure, %struct.RaytracingAccelerationStructure* @"\01?Scene@@3URaytracingAccelerationStructure@@A", align 4
  %as = call %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32 160, %struct.RaytracingAccelerationStructure %s)
  %h = call %dx.types.HitObject @dx.op.hitObject_TraceRay.struct.Payload(i32 262, %dx.types.Handle %as, i32 1, i32 255, i32 0, i32 1, i32 0, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 1.000000e+02, %struct.Payload* %p)
  %miss = call i1 @dx.op.hitObject_StateScalar.i1(i32 269, %dx.types.HitObject %h)
  %nop = call i1 @dx.op.hitObject_StateScalar.i1(i32 271, %dx.types.HitObject %h)
  %tmin = call float @dx.op.hitObject_StateScalar.f32(i32 273, %dx.types.HitObject %h)
  %tcur = call float @dx.op.hitObject_StateScalar.f32(i32 274, %dx.types.HitObject %h)
  %wo = call float @dx.op.hitObject_StateVector.f32(i32 275, %dx.types.HitObject %h, i32 0)
  %wd = call float @dx.op.hitObject_StateVector.f32(i32 276, %dx.types.HitObject %h, i32 1)
  %oo = call float @dx.op.hitObject_StateVector.f32(i32 277, %dx.types.HitObject %h, i32 2)
  %od = call float @dx.op.hitObject_StateVector.f32(i32 278, %dx.types.HitObject %h, i32 0)
  %m1 = call float @dx.op.hitObject_StateMatrix.f32(i32 279, %dx.types.HitObject %h, i32 1, i32 3)
  %m2 = call float @dx.op.hitObject_StateMatrix.f32(i32 280, %dx.types.HitObject %h, i32 2, i32 0)
  %gi = call i32 @dx.op.hitObject_StateScalar.i32(i32 281, %dx.types.HitObject %h)
  %ii = call i32 @dx.op.hitObject_StateScalar.i32(i32 282, %dx.types.HitObject %h)
  %id = call i32 @dx.op.hitObject_StateScalar.i32(i32 283, %dx.types.HitObject %h)
  %pi = call i32 @dx.op.hitObject_StateScalar.i32(i32 284, %dx.types.HitObject %h)
  %hk = call i32 @dx.op.hitObject_StateScalar.i32(i32 285, %dx.types.HitObject %h)
  %lc = call i32 @dx.op.hitObject_LoadLocalRootTableConstant(i32 288, %dx.types.HitObject %h, i32 16)
  call void @dx.op.hitObject_Attributes.struct.Attribs(i32 289, %dx.types.HitObject %h, %struct.Attribs* nonnull %attrs)
  %ap = getelementptr inbounds %struct.Attribs, %struct.Attribs* %attrs, i32 0, i32 0
  %av = load <2 x float>, <2 x float>* %ap, align 4
  %a0 = extractelement <2 x float> %av, i32 0
  %f0 = fadd float %tmin, %tcur
  %f1 = fadd float %f0, %wo
  %f2 = fadd float %f1, %wd
  %f3 = fadd float %f2, %oo
  %f4 = fadd float %f3, %od
  %f5 = fadd float %f4, %m1
  %f6 = fadd float %f5, %m2
  %f7 = fadd float %f6, %a0
  %i0 = add i32 %gi, %ii
  %i1 = add i32 %i0, %id
  %i2 = add i32 %i1, %pi
  %i3 = add i32 %i2, %hk
  %i4 = add i32 %i3, %lc
  %mz = zext i1 %miss to i32
  %nz = zext i1 %nop to i32
  %i5 = add i32 %i4, %mz
  %i6 = add i32 %i5, %nz
  %col = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 0
  %v0 = insertelement <4 x float> zeroinitializer, float %f7, i32 0
  store <4 x float> %v0, <4 x float>* %col, align 4
  %cnt = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 1
  store i32 %i6, i32* %cnt, align 4
  ret void
}

define void @"\01?Sky@@YAXUPayload@@@Z"(%struct.Payload* noalias nocapture %p) #0 {
  %h = call %dx.types.HitObject @dx.op.hitObject_MakeMiss(i32 265, i32 0, i32 0, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 1.000000e+01)
  %m = call i1 @dx.op.hitObject_StateScalar.i1(i32 269, %dx.types.HitObject %h)
  %mz = zext i1 %m to i32
  %cnt = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 1
  store i32 %mz, i32* %cnt, align 4
  ret void
}

define void @"\01?Ext@@YAXXZ"() #0 {
  %pl = alloca %struct.Payload, align 4
  %attrs = alloca %struct.Attribs, align 4
  %s = load %struct.RaytracingAccelerationStructure, %struct.RaytracingAccelerationStructure* @"\01?Scene@@3URaytracingAccelerationStructure@@A", align 4
  %as = call %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32 160, %struct.RaytracingAccelerationStructure %s)
  %q = call i32 @dx.op.allocateRayQuery2(i32 258, i32 1024, i32 1)
  call void @dx.op.rayQuery_TraceRayInline(i32 179, i32 %q, %dx.types.Handle %as, i32 0, i32 255, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 9.999000e+03)
  %hq = call %dx.types.HitObject @dx.op.hitObject_FromRayQuery(i32 263, i32 %q)
  %ap = getelementptr inbounds %struct.Attribs, %struct.Attribs* %attrs, i32 0, i32 0
  store <2 x float> zeroinitializer, <2 x float>* %ap, align 4
  %hm = call %dx.types.HitObject @dx.op.hitObject_MakeMiss(i32 265, i32 1024, i32 0, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 1.000000e+01)
  %hs = call %dx.types.HitObject @dx.op.hitObject_SetShaderTableIndex(i32 287, %dx.types.HitObject %hm, i32 3)
  %f = call i32 @dx.op.hitObject_StateScalar.i32(i32 272, %dx.types.HitObject %hs)
  %hk = call i32 @dx.op.hitObject_StateScalar.i32(i32 285, %dx.types.HitObject %hq)
  %sum = add i32 %f, %hk
  %c = icmp eq i32 %sum, 0
  %h = select i1 %c, %dx.types.HitObject %hq, %dx.types.HitObject %hs
  call void @dx.op.hitObject_Invoke.struct.Payload(i32 267, %dx.types.HitObject %h, %struct.Payload* nonnull %pl)
  ret void
}

declare i32 @dx.op.dispatchRaysIndex.i32(i32, i8) #1
declare %dx.types.HitObject @dx.op.hitObject_TraceRay.struct.Payload(i32, %dx.types.Handle, i32, i32, i32, i32, i32, float, float, float, float, float, float, float, float, %struct.Payload*) #0
declare %dx.types.HitObject @dx.op.hitObject_MakeMiss(i32, i32, i32, float, float, float, float, float, float, float, float) #1
declare %dx.types.HitObject @dx.op.hitObject_MakeNop(i32) #1
declare %dx.types.HitObject @dx.op.hitObject_FromRayQuery(i32, i32) #2
declare %dx.types.HitObject @dx.op.hitObject_FromRayQueryWithAttrs.struct.Attribs(i32, i32, i32, %struct.Attribs*) #2
declare %dx.types.HitObject @dx.op.hitObject_SetShaderTableIndex(i32, %dx.types.HitObject, i32) #1
declare void @dx.op.hitObject_Invoke.struct.Payload(i32, %dx.types.HitObject, %struct.Payload*) #0
declare void @dx.op.maybeReorderThread(i32, %dx.types.HitObject, i32, i32) #0
declare i1 @dx.op.hitObject_StateScalar.i1(i32, %dx.types.HitObject) #1
declare i32 @dx.op.hitObject_StateScalar.i32(i32, %dx.types.HitObject) #1
declare float @dx.op.hitObject_StateScalar.f32(i32, %dx.types.HitObject) #1
declare float @dx.op.hitObject_StateVector.f32(i32, %dx.types.HitObject, i32) #1
declare float @dx.op.hitObject_StateMatrix.f32(i32, %dx.types.HitObject, i32, i32) #1
declare i32 @dx.op.hitObject_LoadLocalRootTableConstant(i32, %dx.types.HitObject, i32) #2
declare void @dx.op.hitObject_Attributes.struct.Attribs(i32, %dx.types.HitObject, %struct.Attribs*) #3
declare i32 @dx.op.allocateRayQuery2(i32, i32, i32) #0
declare void @dx.op.rayQuery_TraceRayInline(i32, i32, %dx.types.Handle, i32, i32, float, float, float, float, float, float, float, float) #0
declare %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32, %struct.RaytracingAccelerationStructure) #2
declare %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32, %struct.RWByteAddressBuffer) #2
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8) #0

attributes #0 = { nounwind }
attributes #1 = { nounwind readnone }
attributes #2 = { nounwind readonly }
attributes #3 = { nounwind argmemonly }

!dx.version = !{!1}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!10, !12, !14, !20, !24}

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
!15 = !{i32 8, i32 10, i32 6, i32 20, i32 7, i32 8, i32 5, !8}
!20 = !{void (%struct.Payload*)* @"\01?Sky@@YAXUPayload@@@Z", !"\01?Sky@@YAXUPayload@@@Z", null, null, !21}
!21 = !{i32 8, i32 11, i32 6, i32 20, i32 5, !8}
!24 = !{void ()* @"\01?Ext@@YAXXZ", !"\01?Ext@@YAXXZ", null, null, !25}
!25 = !{i32 8, i32 7, i32 5, !8}
