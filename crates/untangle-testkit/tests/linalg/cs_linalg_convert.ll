; SM 6.10 linAlgConvert (hlsl-specs proposal 0035, "Data Conversion Rules"; operands from
; DXC's hctdb.py), hand-written for tests/linalg.rs and tests/gpu_linalg_convert.rs. One
; thread reads its inputs from Out and writes one 16-byte record per conversion:
;
;   RWByteAddressBuffer Out : register(u0);
;   [numthreads(1, 1, 1)]
;   void main() {
;     using namespace dx::linalg;
;     float4 f = Out.Load<float4>(0); int4 i = Out.Load<int4>(16);
;     uint p = Out.Load(32); uint q = Out.Load(36);
;     Out.Store(256, Convert<PackedS8x32, F32>(f));     // 0: float -> packed int8, saturating
;     Out.Store(272, Convert<F8_E4M3FN, F32>(f));       // 1: float -> E4M3, saturating
;     Out.Store(288, Convert<F8_E5M2, F32>(f));         // 2: float -> E5M2, saturating
;     Out.Store(304, Convert<I32, F32>(f));             // 3: float -> int, RTNE saturating
;     Out.Store(320, Convert<U32, F32>(f));             // 4: float -> uint
;     Out.Store(336, Convert<PackedU8x32, I32>(i));     // 5: int -> packed uint8
;     Out.Store(352, Convert<F8_E4M3FN, I32>(i));       // 6: int -> E4M3
;     Out.Store(368, Convert<F32, I32>(i));             // 7: int -> float
;     Out.Store(384, Convert<I32, U32>(i));             // 8: uint -> int, saturating
;     Out.Store(400, Convert<I8, PackedU8x32>(p));      // 9: uint8 -> int8, saturating
;     Out.Store(416, Convert<I32, PackedS8x32>(p));     // 10: int8 -> int
;     Out.Store(432, Convert<F32, F8_E4M3FN>(p));       // 11: E4M3 -> float
;     Out.Store(448, Convert<F8_E5M2, F8_E4M3FN>(p));   // 12: E4M3 -> E5M2
;     Out.Store(464, Convert<F32, U8>(p));              // 13: uint8 -> float
;     Out.Store(480, Convert<I32, F8_E5M2>(q));         // 14: E5M2 -> int
;     Out.Store(496, Convert<I8, F32>(f.xy));           // 15: 2 floats -> a half-filled packed lane
;   }
target datalayout = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.ResRet.i32 = type { i32, i32, i32, i32, i32 }
%dx.types.ResRet.f32 = type { float, float, float, float, i32 }
%struct.RWByteAddressBuffer = type { i32 }

define void @main() {
entry:
  %out = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %lf = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %out, i32 0, i32 undef, i8 15, i32 4)
  %f0 = extractvalue %dx.types.ResRet.f32 %lf, 0
  %f1 = extractvalue %dx.types.ResRet.f32 %lf, 1
  %f2 = extractvalue %dx.types.ResRet.f32 %lf, 2
  %f3 = extractvalue %dx.types.ResRet.f32 %lf, 3
  %fa = insertelement <4 x float> undef, float %f0, i32 0
  %fb = insertelement <4 x float> %fa, float %f1, i32 1
  %fc = insertelement <4 x float> %fb, float %f2, i32 2
  %f = insertelement <4 x float> %fc, float %f3, i32 3
  %li = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %out, i32 16, i32 undef, i8 15, i32 4)
  %i0 = extractvalue %dx.types.ResRet.i32 %li, 0
  %i1 = extractvalue %dx.types.ResRet.i32 %li, 1
  %i2 = extractvalue %dx.types.ResRet.i32 %li, 2
  %i3 = extractvalue %dx.types.ResRet.i32 %li, 3
  %ia = insertelement <4 x i32> undef, i32 %i0, i32 0
  %ib = insertelement <4 x i32> %ia, i32 %i1, i32 1
  %ic = insertelement <4 x i32> %ib, i32 %i2, i32 2
  %i = insertelement <4 x i32> %ic, i32 %i3, i32 3
  %lp = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %out, i32 32, i32 undef, i8 3, i32 4)
  %p0 = extractvalue %dx.types.ResRet.i32 %lp, 0
  %q0 = extractvalue %dx.types.ResRet.i32 %lp, 1

  %c0 = call i32 @dx.op.linAlgConvert.i32.v4f32(i32 -2147483618, <4 x float> %f, i32 9, i32 17)
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 256, i32 undef, i32 %c0, i32 0, i32 0, i32 0, i8 1, i32 4)
  %c1 = call i32 @dx.op.linAlgConvert.i32.v4f32(i32 -2147483618, <4 x float> %f, i32 9, i32 21)
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 272, i32 undef, i32 %c1, i32 0, i32 0, i32 0, i8 1, i32 4)
  %c2 = call i32 @dx.op.linAlgConvert.i32.v4f32(i32 -2147483618, <4 x float> %f, i32 9, i32 22)
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 288, i32 undef, i32 %c2, i32 0, i32 0, i32 0, i8 1, i32 4)
  %c3 = call <4 x i32> @dx.op.linAlgConvert.v4i32.v4f32(i32 -2147483618, <4 x float> %f, i32 9, i32 4)
  call void @store4(%dx.types.Handle %out, i32 304, <4 x i32> %c3)
  %c4 = call <4 x i32> @dx.op.linAlgConvert.v4i32.v4f32(i32 -2147483618, <4 x float> %f, i32 9, i32 5)
  call void @store4(%dx.types.Handle %out, i32 320, <4 x i32> %c4)
  %c5 = call i32 @dx.op.linAlgConvert.i32.v4i32(i32 -2147483618, <4 x i32> %i, i32 4, i32 18)
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 336, i32 undef, i32 %c5, i32 0, i32 0, i32 0, i8 1, i32 4)
  %c6 = call i32 @dx.op.linAlgConvert.i32.v4i32(i32 -2147483618, <4 x i32> %i, i32 4, i32 21)
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 352, i32 undef, i32 %c6, i32 0, i32 0, i32 0, i8 1, i32 4)
  %c7 = call <4 x float> @dx.op.linAlgConvert.v4f32.v4i32(i32 -2147483618, <4 x i32> %i, i32 4, i32 9)
  %c7i = bitcast <4 x float> %c7 to <4 x i32>
  call void @store4(%dx.types.Handle %out, i32 368, <4 x i32> %c7i)
  %c8 = call <4 x i32> @dx.op.linAlgConvert.v4i32.v4i32(i32 -2147483618, <4 x i32> %i, i32 5, i32 4)
  call void @store4(%dx.types.Handle %out, i32 384, <4 x i32> %c8)
  %c9 = call i32 @dx.op.linAlgConvert.i32.i32(i32 -2147483618, i32 %p0, i32 18, i32 19)
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 400, i32 undef, i32 %c9, i32 0, i32 0, i32 0, i8 1, i32 4)
  %c10 = call <4 x i32> @dx.op.linAlgConvert.v4i32.i32(i32 -2147483618, i32 %p0, i32 17, i32 4)
  call void @store4(%dx.types.Handle %out, i32 416, <4 x i32> %c10)
  %c11 = call <4 x float> @dx.op.linAlgConvert.v4f32.i32(i32 -2147483618, i32 %p0, i32 21, i32 9)
  %c11i = bitcast <4 x float> %c11 to <4 x i32>
  call void @store4(%dx.types.Handle %out, i32 432, <4 x i32> %c11i)
  %c12 = call i32 @dx.op.linAlgConvert.i32.i32(i32 -2147483618, i32 %p0, i32 21, i32 22)
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 448, i32 undef, i32 %c12, i32 0, i32 0, i32 0, i8 1, i32 4)
  %c13 = call <4 x float> @dx.op.linAlgConvert.v4f32.i32(i32 -2147483618, i32 %p0, i32 20, i32 9)
  %c13i = bitcast <4 x float> %c13 to <4 x i32>
  call void @store4(%dx.types.Handle %out, i32 464, <4 x i32> %c13i)
  %c14 = call <4 x i32> @dx.op.linAlgConvert.v4i32.i32(i32 -2147483618, i32 %q0, i32 22, i32 4)
  call void @store4(%dx.types.Handle %out, i32 480, <4 x i32> %c14)
  %f2v = shufflevector <4 x float> %f, <4 x float> undef, <2 x i32> <i32 0, i32 1>
  %c15 = call i32 @dx.op.linAlgConvert.i32.v2f32(i32 -2147483618, <2 x float> %f2v, i32 9, i32 19)
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 496, i32 undef, i32 %c15, i32 0, i32 0, i32 0, i8 1, i32 4)
  ret void
}

define void @store4(%dx.types.Handle %h, i32 %at, <4 x i32> %v) {
entry:
  %v0 = extractelement <4 x i32> %v, i32 0
  %v1 = extractelement <4 x i32> %v, i32 1
  %v2 = extractelement <4 x i32> %v, i32 2
  %v3 = extractelement <4 x i32> %v, i32 3
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %h, i32 %at, i32 undef, i32 %v0, i32 %v1, i32 %v2, i32 %v3, i8 15, i32 4)
  ret void
}

declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
declare i32 @dx.op.linAlgConvert.i32.v4f32(i32, <4 x float>, i32, i32)
declare <4 x i32> @dx.op.linAlgConvert.v4i32.v4f32(i32, <4 x float>, i32, i32)
declare i32 @dx.op.linAlgConvert.i32.v4i32(i32, <4 x i32>, i32, i32)
declare <4 x float> @dx.op.linAlgConvert.v4f32.v4i32(i32, <4 x i32>, i32, i32)
declare <4 x i32> @dx.op.linAlgConvert.v4i32.v4i32(i32, <4 x i32>, i32, i32)
declare i32 @dx.op.linAlgConvert.i32.i32(i32, i32, i32, i32)
declare <4 x i32> @dx.op.linAlgConvert.v4i32.i32(i32, i32, i32, i32)
declare <4 x float> @dx.op.linAlgConvert.v4f32.i32(i32, i32, i32, i32)
declare i32 @dx.op.linAlgConvert.i32.v2f32(i32, <2 x float>, i32, i32)

!dx.version = !{!0}
!dx.valver = !{!0}
!dx.shaderModel = !{!1}
!dx.resources = !{!2}
!dx.entryPoints = !{!9}

!0 = !{i32 1, i32 10}
!1 = !{!"cs", i32 6, i32 10}
!2 = !{null, !6, null, null}
!6 = !{!7}
!7 = !{i32 0, %struct.RWByteAddressBuffer* undef, !"Out", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!9 = !{void ()* @main, !"main", null, !2, !10}
!10 = !{i32 0, i64 16, i32 4, !11}
!11 = !{i32 1, i32 1, i32 1}
