; NVAPI shader execution reordering (NvHitObject, nvHLSLExtns.h), hand-written in the shape
; DXC gives the header's functions after inlining: each call opens a record on the magic UAV
; g_NvidiaExt (u7, space3) with IncrementCounter, stores its operands and opcode at the
; record's byte offsets (opcode 0, src0u 76, src1u 92, src2u 108, numOutputsForIncCounter
; 144), and reads its results with further IncrementCounters. NvTraceRayHitObject and
; NvInvokeHitObject pass the structure, ray and payload to a TraceRay whose miss index is the
; record's token; NvMakeHit* pass the attributes to a CallShader on the token first.
;
; `Gen` (tests/gpu_ray_tracing.rs): traces ray x (even x at the triangle, odd x beside it)
; into a hit object, reads IsHit and GetInstanceID, reorders on the hit object with hint x
; (2 bits), invokes it (closest hit `Hit` writes 1000 + x to the payload, miss `Sky`
; 2000 + x) and stores (payload, IsHit, IsHit ? InstanceID : 0) at 12 x.
; `All` (tests/vendor_nvapi.rs): every other hit-object record, results stored to Out.
; `Probe` (closest hit): a miss hit object made and queried inside a closest-hit shader.
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%struct.RaytracingAccelerationStructure = type { i32 }
%struct.RWByteAddressBuffer = type { i32 }
%struct.NvShaderExtnStruct = type { i32, i32, i32, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, i32, i32, [27 x float] }
%"class.RWStructuredBuffer<NvShaderExtnStruct>" = type { %struct.NvShaderExtnStruct }
%struct.Payload = type { i32 }
%struct.Attribs = type { <2 x float> }
%struct.AttrWrapper = type { %struct.Attribs }
%struct.DummyPayload = type { i32 }
%dx.types.Handle = type { i8* }

@"\01?Scene@@3URaytracingAccelerationStructure@@A" = external constant %struct.RaytracingAccelerationStructure, align 4
@"\01?Out@@3URWByteAddressBuffer@@A" = external constant %struct.RWByteAddressBuffer, align 4
@"\01?g_NvidiaExt@@3V?$RWStructuredBuffer@UNvShaderExtnStruct@@@@A" = external constant %"class.RWStructuredBuffer<NvShaderExtnStruct>", align 4

define void @"\01?Gen@@YAXXZ"() #0 {
  %pl = alloca %struct.Payload, align 4
  %s = load %struct.RaytracingAccelerationStructure, %struct.RaytracingAccelerationStructure* @"\01?Scene@@3URaytracingAccelerationStructure@@A", align 4
  %o = load %struct.RWByteAddressBuffer, %struct.RWByteAddressBuffer* @"\01?Out@@3URWByteAddressBuffer@@A", align 4
  %g = load %"class.RWStructuredBuffer<NvShaderExtnStruct>", %"class.RWStructuredBuffer<NvShaderExtnStruct>"* @"\01?g_NvidiaExt@@3V?$RWStructuredBuffer@UNvShaderExtnStruct@@@@A", align 4
  %x = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %odd = and i32 %x, 1
  %fodd = uitofp i32 %odd to float
  %shift = fmul float %fodd, 5.000000e+00
  %ox = fadd float %shift, 2.500000e-01
  %v = getelementptr inbounds %struct.Payload, %struct.Payload* %pl, i32 0, i32 0
  store i32 0, i32* %v, align 4
  %nv = call %dx.types.Handle @"dx.op.createHandleForLib.class.RWStructuredBuffer<NvShaderExtnStruct>"(i32 160, %"class.RWStructuredBuffer<NvShaderExtnStruct>" %g)
  %as = call %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32 160, %struct.RaytracingAccelerationStructure %s)
  ; NvTraceRayHitObject(Scene, RAY_FLAG_FORCE_OPAQUE, 0xff, 0, 1, 0, ray, pl)
  %t0 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %t0, i32 0, i32 67, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %t0, i32 144, i32 2, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %t0, i32 76, i32 0, i32 undef, i32 undef, i32 undef, i8 1)
  %hh = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %tk = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.traceRay.struct.Payload(i32 157, %dx.types.Handle %as, i32 1, i32 255, i32 0, i32 1, i32 %tk, float %ox, float 2.500000e-01, float 1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float -1.000000e+00, float 1.000000e+02, %struct.Payload* nonnull %pl)
  ; hitObj.IsHit()
  %t1 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %t1, i32 0, i32 83, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %t1, i32 76, i32 %hh, i32 undef, i32 undef, i32 undef, i8 1)
  %ih = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %hit = icmp ne i32 %ih, 0
  ; hitObj.GetInstanceID()
  %t2 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %t2, i32 0, i32 74, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %t2, i32 76, i32 %hh, i32 undef, i32 undef, i32 undef, i8 1)
  %iid = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  ; NvReorderThread(hitObj, x, 2)
  %t3 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %t3, i32 0, i32 71, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %t3, i32 76, i32 1, i32 %hh, i32 %x, i32 2, i8 15)
  %r3 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  ; NvInvokeHitObject(Scene, hitObj, pl)
  %t4 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %t4, i32 0, i32 72, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %t4, i32 76, i32 %hh, i32 undef, i32 undef, i32 undef, i8 1)
  %tk4 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.traceRay.struct.Payload(i32 157, %dx.types.Handle %as, i32 0, i32 0, i32 0, i32 0, i32 %tk4, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, %struct.Payload* nonnull %pl)
  %r = load i32, i32* %v, align 4
  %hz = zext i1 %hit to i32
  %iz = mul i32 %iid, %hz
  %ob = call %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32 160, %struct.RWByteAddressBuffer %o)
  %at = mul i32 %x, 12
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %ob, i32 %at, i32 undef, i32 %r, i32 %hz, i32 %iz, i32 undef, i8 7)
  ret void
}

define void @"\01?All@@YAXXZ"() #0 {
  %wr = alloca %struct.AttrWrapper, align 4
  %wr2 = alloca %struct.AttrWrapper, align 4
  %dp = alloca %struct.DummyPayload, align 4
  %dp2 = alloca %struct.DummyPayload, align 4
  %ga = alloca %struct.Attribs, align 4
  %s = load %struct.RaytracingAccelerationStructure, %struct.RaytracingAccelerationStructure* @"\01?Scene@@3URaytracingAccelerationStructure@@A", align 4
  %o = load %struct.RWByteAddressBuffer, %struct.RWByteAddressBuffer* @"\01?Out@@3URWByteAddressBuffer@@A", align 4
  %g = load %"class.RWStructuredBuffer<NvShaderExtnStruct>", %"class.RWStructuredBuffer<NvShaderExtnStruct>"* @"\01?g_NvidiaExt@@3V?$RWStructuredBuffer@UNvShaderExtnStruct@@@@A", align 4
  %x = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %odd = and i32 %x, 1
  %nv = call %dx.types.Handle @"dx.op.createHandleForLib.class.RWStructuredBuffer<NvShaderExtnStruct>"(i32 160, %"class.RWStructuredBuffer<NvShaderExtnStruct>" %g)
  %as = call %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32 160, %struct.RaytracingAccelerationStructure %s)
  ; NvMakeMiss(1, ray): tmin 0.5, tmax 50, origin (1, 2, 3), direction (0, 0, -1)
  %m = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %m, i32 0, i32 70, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %m, i32 76, i32 1, i32 1056964608, i32 1112014848, i32 undef, i8 7)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %m, i32 92, i32 1065353216, i32 1073741824, i32 1077936128, i32 undef, i8 7)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %m, i32 108, i32 0, i32 0, i32 -1082130432, i32 undef, i8 7)
  %mh = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  ; NvMakeNop()
  %n = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %n, i32 0, i32 85, i32 undef, i32 undef, i32 undef, i8 1)
  %nh = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  ; NvMakeHit(Scene, 0, 0, 0, 254, 0, 1, ray, attrs)
  %h = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %h, i32 0, i32 68, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %h, i32 144, i32 2, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %h, i32 76, i32 0, i32 0, i32 0, i32 254, i8 15)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %h, i32 92, i32 0, i32 1, i32 undef, i32 undef, i8 3)
  %hh = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %htk = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %wv = getelementptr inbounds %struct.AttrWrapper, %struct.AttrWrapper* %wr, i32 0, i32 0, i32 0
  store <2 x float> <float 2.500000e-01, float 5.000000e-01>, <2 x float>* %wv, align 4
  call void @dx.op.callShader.struct.AttrWrapper(i32 159, i32 %htk, %struct.AttrWrapper* nonnull %wr)
  call void @dx.op.traceRay.struct.DummyPayload(i32 157, %dx.types.Handle %as, i32 0, i32 0, i32 0, i32 0, i32 %htk, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float -1.000000e+00, float 1.000000e+02, %struct.DummyPayload* nonnull %dp)
  ; NvMakeHitWithRecordIndex(3, Scene, 0, 0, 0, 254, ray, attrs)
  %k = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %k, i32 0, i32 69, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %k, i32 144, i32 2, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %k, i32 76, i32 0, i32 0, i32 0, i32 254, i8 15)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %k, i32 92, i32 3, i32 undef, i32 undef, i32 undef, i8 1)
  %kh = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %ktk = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %wv2 = getelementptr inbounds %struct.AttrWrapper, %struct.AttrWrapper* %wr2, i32 0, i32 0, i32 0
  store <2 x float> <float 1.250000e-01, float 1.250000e-01>, <2 x float>* %wv2, align 4
  call void @dx.op.callShader.struct.AttrWrapper(i32 159, i32 %ktk, %struct.AttrWrapper* nonnull %wr2)
  call void @dx.op.traceRay.struct.DummyPayload(i32 157, %dx.types.Handle %as, i32 0, i32 0, i32 0, i32 0, i32 %ktk, float 0.000000e+00, float 0.000000e+00, float 1.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float -1.000000e+00, float 1.000000e+02, %struct.DummyPayload* nonnull %dp2)
  ; (odd ? miss : nop).IsMiss(), nop.IsNop(), hit.IsHit()
  %isodd = icmp ne i32 %odd, 0
  %sel = select i1 %isodd, i32 %mh, i32 %nh
  %q0 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q0, i32 0, i32 73, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q0, i32 76, i32 %sel, i32 undef, i32 undef, i32 undef, i8 1)
  %w0 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %q1 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q1, i32 0, i32 84, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q1, i32 76, i32 %nh, i32 undef, i32 undef, i32 undef, i8 1)
  %w1 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %q2 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q2, i32 0, i32 83, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q2, i32 76, i32 %hh, i32 undef, i32 undef, i32 undef, i8 1)
  %w2 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  ; GetInstanceIndex, GetPrimitiveIndex, GetGeometryIndex, GetHitKind, GetShaderTableIndex
  %q3 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q3, i32 0, i32 75, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q3, i32 76, i32 %hh, i32 undef, i32 undef, i32 undef, i8 1)
  %w3 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %q4 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q4, i32 0, i32 76, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q4, i32 76, i32 %hh, i32 undef, i32 undef, i32 undef, i8 1)
  %w4 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %q5 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q5, i32 0, i32 77, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q5, i32 76, i32 %kh, i32 undef, i32 undef, i32 undef, i8 1)
  %w5 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %q6 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q6, i32 0, i32 78, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q6, i32 76, i32 %kh, i32 undef, i32 undef, i32 undef, i8 1)
  %w6 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %q7 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q7, i32 0, i32 81, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q7, i32 76, i32 %kh, i32 undef, i32 undef, i32 undef, i8 1)
  %w7 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  ; miss.GetRayDesc(): tmin, tmax, origin, direction
  %q8 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q8, i32 0, i32 79, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q8, i32 76, i32 %mh, i32 undef, i32 undef, i32 undef, i8 1)
  %rd0 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %rd1 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %rd2 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %rd3 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %rd4 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %rd5 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %rd6 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %rd7 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  ; hit.GetAttributes<Attribs>()
  %q9 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q9, i32 0, i32 80, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q9, i32 76, i32 %hh, i32 undef, i32 undef, i32 undef, i8 1)
  %gtk = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.callShader.struct.Attribs(i32 159, i32 %gtk, %struct.Attribs* nonnull %ga)
  %gp = getelementptr inbounds %struct.Attribs, %struct.Attribs* %ga, i32 0, i32 0
  %gv = load <2 x float>, <2 x float>* %gp, align 4
  %gx = extractelement <2 x float> %gv, i32 0
  %gxi = bitcast float %gx to i32
  ; hit.LoadLocalRootTableConstant(8)
  %q10 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q10, i32 0, i32 82, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q10, i32 76, i32 %kh, i32 8, i32 undef, i32 undef, i8 3)
  %w10 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  ; NvReorderThread(x, 3)
  %q11 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q11, i32 0, i32 71, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q11, i32 76, i32 0, i32 0, i32 %x, i32 3, i8 15)
  %w11 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %ob = call %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32 160, %struct.RWByteAddressBuffer %o)
  %at = mul i32 %x, 64
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %ob, i32 %at, i32 undef, i32 %w0, i32 %w1, i32 %w2, i32 %w3, i8 15)
  %at1 = add i32 %at, 16
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %ob, i32 %at1, i32 undef, i32 %w4, i32 %w5, i32 %w6, i32 %w7, i8 15)
  %at2 = add i32 %at, 32
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %ob, i32 %at2, i32 undef, i32 %rd0, i32 %rd1, i32 %rd2, i32 %rd3, i8 15)
  %at3 = add i32 %at, 48
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %ob, i32 %at3, i32 undef, i32 %rd4, i32 %rd5, i32 %gxi, i32 %w10, i8 15)
  ret void
}

define void @"\01?Hit@@YAXUPayload@@UAttribs@@@Z"(%struct.Payload* noalias nocapture %p, %struct.Attribs* nocapture readonly %a) #0 {
  %x = call i32 @dx.op.dispatchRaysIndex.i32(i32 145, i8 0)
  %r = add i32 %x, 1000
  %v = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 0
  store i32 %r, i32* %v, align 4
  ret void
}

define void @"\01?Probe@@YAXUPayload@@UAttribs@@@Z"(%struct.Payload* noalias nocapture %p, %struct.Attribs* nocapture readonly %a) #0 {
  %g = load %"class.RWStructuredBuffer<NvShaderExtnStruct>", %"class.RWStructuredBuffer<NvShaderExtnStruct>"* @"\01?g_NvidiaExt@@3V?$RWStructuredBuffer@UNvShaderExtnStruct@@@@A", align 4
  %nv = call %dx.types.Handle @"dx.op.createHandleForLib.class.RWStructuredBuffer<NvShaderExtnStruct>"(i32 160, %"class.RWStructuredBuffer<NvShaderExtnStruct>" %g)
  %m = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %m, i32 0, i32 70, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %m, i32 76, i32 0, i32 0, i32 1065353216, i32 undef, i8 7)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %m, i32 92, i32 0, i32 0, i32 0, i32 undef, i8 7)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %m, i32 108, i32 0, i32 1065353216, i32 0, i32 undef, i8 7)
  %mh = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %q = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q, i32 0, i32 73, i32 undef, i32 undef, i32 undef, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %q, i32 76, i32 %mh, i32 undef, i32 undef, i32 undef, i8 1)
  %w = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)
  %v = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 0
  store i32 %w, i32* %v, align 4
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
declare void @dx.op.traceRay.struct.Payload(i32, %dx.types.Handle, i32, i32, i32, i32, i32, float, float, float, float, float, float, float, float, %struct.Payload*) #0
declare void @dx.op.traceRay.struct.DummyPayload(i32, %dx.types.Handle, i32, i32, i32, i32, i32, float, float, float, float, float, float, float, float, %struct.DummyPayload*) #0
declare void @dx.op.callShader.struct.AttrWrapper(i32, i32, %struct.AttrWrapper*) #0
declare void @dx.op.callShader.struct.Attribs(i32, i32, %struct.Attribs*) #0
declare i32 @dx.op.bufferUpdateCounter(i32, %dx.types.Handle, i8) #0
declare %dx.types.Handle @dx.op.createHandleForLib.struct.RaytracingAccelerationStructure(i32, %struct.RaytracingAccelerationStructure) #2
declare %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32, %struct.RWByteAddressBuffer) #2
declare %dx.types.Handle @"dx.op.createHandleForLib.class.RWStructuredBuffer<NvShaderExtnStruct>"(i32, %"class.RWStructuredBuffer<NvShaderExtnStruct>") #2
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8) #0

attributes #0 = { nounwind }
attributes #1 = { nounwind readnone }
attributes #2 = { nounwind readonly }

!dx.version = !{!1}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!10, !12, !22, !14, !24, !20}

!1 = !{i32 1, i32 3}
!2 = !{!"lib", i32 6, i32 3}
!3 = !{!4, !6, null, null}
!4 = !{!5}
!5 = !{i32 0, %struct.RaytracingAccelerationStructure* @"\01?Scene@@3URaytracingAccelerationStructure@@A", !"Scene", i32 0, i32 0, i32 1, i32 16, i32 0, null}
!6 = !{!7, !9}
!7 = !{i32 0, %struct.RWByteAddressBuffer* @"\01?Out@@3URWByteAddressBuffer@@A", !"Out", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!9 = !{i32 1, %"class.RWStructuredBuffer<NvShaderExtnStruct>"* @"\01?g_NvidiaExt@@3V?$RWStructuredBuffer@UNvShaderExtnStruct@@@@A", !"g_NvidiaExt", i32 3, i32 7, i32 1, i32 12, i1 false, i1 true, i1 false, !26}
!26 = !{i32 1, i32 256}
!8 = !{i32 0}
!10 = !{null, !"", null, !3, !11}
!11 = !{i32 0, i64 65536}
!12 = !{void ()* @"\01?Gen@@YAXXZ", !"\01?Gen@@YAXXZ", null, null, !13}
!13 = !{i32 8, i32 7, i32 5, !8}
!22 = !{void ()* @"\01?All@@YAXXZ", !"\01?All@@YAXXZ", null, null, !13}
!14 = !{void (%struct.Payload*, %struct.Attribs*)* @"\01?Hit@@YAXUPayload@@UAttribs@@@Z", !"\01?Hit@@YAXUPayload@@UAttribs@@@Z", null, null, !15}
!15 = !{i32 8, i32 10, i32 6, i32 4, i32 7, i32 8, i32 5, !8}
!24 = !{void (%struct.Payload*, %struct.Attribs*)* @"\01?Probe@@YAXUPayload@@UAttribs@@@Z", !"\01?Probe@@YAXUPayload@@UAttribs@@@Z", null, null, !15}
!20 = !{void (%struct.Payload*)* @"\01?Sky@@YAXUPayload@@@Z", !"\01?Sky@@YAXUPayload@@@Z", null, null, !21}
!21 = !{i32 8, i32 11, i32 6, i32 4, i32 5, !8}
