; SM 6.10 LinAlg thread-scope matrix-vector products (hlsl-specs proposal 0035; operands
; from DXC's hctdb.py), hand-written for tests/linalg.rs:
;
;   ByteAddressBuffer Weights : register(t0);
;   RWByteAddressBuffer Out : register(u0);
;   [numthreads(32, 1, 1)]
;   void main(uint3 id : SV_DispatchThreadID) {
;     using namespace dx::linalg;
;     // 4x8 F16 A matrix, row major, 16-byte rows, at byte 128
;     Matrix<ComponentType::F16, 4, 8, MatrixUse::A, MatrixScope::Thread> W =
;         W.Load(Weights, 128, 16, MatrixLayout::RowMajor);
;     half8 x = ...;                                   // from Out
;     float4 y = Multiply<float>(W, x);
;     float4 z = MultiplyAdd<float>(W, x, y);
;     // the same matrix in the inferencing-optimal layout, transposed, int8 packed input
;     Matrix<ComponentType::I8, 4, 8, MatrixUse::A, MatrixScope::Thread> Q =
;         Q.Load(Weights, 256, 0, MatrixLayout::MulOptimalTranspose);
;     int4 w = Multiply<int>(Q, MakeInterpretedVector<ComponentType::PackedS8x32>(uint2(..)));
;     Out.Store4(0, asuint(y)); Out.Store4(16, asuint(z)); Out.Store4(32, w);
;     // training: the outer product of y and z accumulated (optimal layout) at byte 512,
;     // z accumulated at byte 1024
;     OuterProduct<ComponentType::F32>(y, z).InterlockedAccumulate(Out, 512);
;     InterlockedAccumulate(Out, 1024, z);
;   }
target datalayout = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.ResRet.v8f16 = type { <8 x half>, i32 }
%dx.types.ResRet.v2i32 = type { <2 x i32>, i32 }
%dx.types.LinAlgMatrixC8M4N8U0S0 = type { i8* }
%dx.types.LinAlgMatrixC19M4N8U0S0 = type { i8* }
%dx.types.LinAlgMatrixC9M4N4U2S0 = type { i8* }
%struct.ByteAddressBuffer = type { i32 }
%struct.RWByteAddressBuffer = type { i32 }

define void @main() {
entry:
  %weights = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)
  %out = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %xr = call %dx.types.ResRet.v8f16 @dx.op.rawBufferVectorLoad.v8f16(i32 303, %dx.types.Handle %out, i32 64, i32 undef, i32 2)
  %xv = extractvalue %dx.types.ResRet.v8f16 %xr, 0
  %w = call %dx.types.LinAlgMatrixC8M4N8U0S0 @dx.op.linAlgMatrixLoadFromDescriptor.mC8M4N8U0S0(i32 -2147483634, %dx.types.Handle %weights, i32 128, i32 16, i32 0, i32 128)
  %y = call <4 x float> @dx.op.linAlgMatVecMul.v4f32.mC8M4N8U0S0.v8f16(i32 -2147483623, %dx.types.LinAlgMatrixC8M4N8U0S0 %w, i1 true, <8 x half> %xv, i32 8)
  %z = call <4 x float> @dx.op.linAlgMatVecMulAdd.v4f32.mC8M4N8U0S0.v8f16.v4f32(i32 -2147483622, %dx.types.LinAlgMatrixC8M4N8U0S0 %w, i1 true, <8 x half> %xv, i32 8, <4 x float> %y)
  %q = call %dx.types.LinAlgMatrixC19M4N8U0S0 @dx.op.linAlgMatrixLoadFromDescriptor.mC19M4N8U0S0(i32 -2147483634, %dx.types.Handle %weights, i32 256, i32 0, i32 3, i32 128)
  %pr = call %dx.types.ResRet.v2i32 @dx.op.rawBufferVectorLoad.v2i32(i32 303, %dx.types.Handle %out, i32 96, i32 undef, i32 4)
  %pv = extractvalue %dx.types.ResRet.v2i32 %pr, 0
  %wi = call <4 x i32> @dx.op.linAlgMatVecMul.v4i32.mC19M4N8U0S0.v2i32(i32 -2147483623, %dx.types.LinAlgMatrixC19M4N8U0S0 %q, i1 true, <2 x i32> %pv, i32 17)
  call void @dx.op.rawBufferVectorStore.v4f32(i32 304, %dx.types.Handle %out, i32 0, i32 undef, <4 x float> %y, i32 4)
  call void @dx.op.rawBufferVectorStore.v4f32(i32 304, %dx.types.Handle %out, i32 16, i32 undef, <4 x float> %z, i32 4)
  call void @dx.op.rawBufferVectorStore.v4i32(i32 304, %dx.types.Handle %out, i32 32, i32 undef, <4 x i32> %wi, i32 4)
  %op = call %dx.types.LinAlgMatrixC9M4N4U2S0 @dx.op.linAlgMatrixOuterProduct.mC9M4N4U2S0.v4f32.v4f32(i32 -2147483619, <4 x float> %y, <4 x float> %z)
  call void @dx.op.linAlgMatrixAccumulateToDescriptor.mC9M4N4U2S0(i32 -2147483621, %dx.types.LinAlgMatrixC9M4N4U2S0 %op, %dx.types.Handle %out, i32 512, i32 0, i32 4, i32 128)
  call void @dx.op.linAlgVectorAccumulateToDescriptor.v4f32(i32 -2147483617, %dx.types.Handle %out, i32 1024, i32 64, <4 x float> %z)
  ret void
}

declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare %dx.types.ResRet.v8f16 @dx.op.rawBufferVectorLoad.v8f16(i32, %dx.types.Handle, i32, i32, i32)
declare %dx.types.ResRet.v2i32 @dx.op.rawBufferVectorLoad.v2i32(i32, %dx.types.Handle, i32, i32, i32)
declare void @dx.op.rawBufferVectorStore.v4f32(i32, %dx.types.Handle, i32, i32, <4 x float>, i32)
declare void @dx.op.rawBufferVectorStore.v4i32(i32, %dx.types.Handle, i32, i32, <4 x i32>, i32)
declare %dx.types.LinAlgMatrixC8M4N8U0S0 @dx.op.linAlgMatrixLoadFromDescriptor.mC8M4N8U0S0(i32, %dx.types.Handle, i32, i32, i32, i32)
declare %dx.types.LinAlgMatrixC19M4N8U0S0 @dx.op.linAlgMatrixLoadFromDescriptor.mC19M4N8U0S0(i32, %dx.types.Handle, i32, i32, i32, i32)
declare <4 x float> @dx.op.linAlgMatVecMul.v4f32.mC8M4N8U0S0.v8f16(i32, %dx.types.LinAlgMatrixC8M4N8U0S0, i1, <8 x half>, i32)
declare <4 x float> @dx.op.linAlgMatVecMulAdd.v4f32.mC8M4N8U0S0.v8f16.v4f32(i32, %dx.types.LinAlgMatrixC8M4N8U0S0, i1, <8 x half>, i32, <4 x float>)
declare <4 x i32> @dx.op.linAlgMatVecMul.v4i32.mC19M4N8U0S0.v2i32(i32, %dx.types.LinAlgMatrixC19M4N8U0S0, i1, <2 x i32>, i32)
declare %dx.types.LinAlgMatrixC9M4N4U2S0 @dx.op.linAlgMatrixOuterProduct.mC9M4N4U2S0.v4f32.v4f32(i32, <4 x float>, <4 x float>)
declare void @dx.op.linAlgMatrixAccumulateToDescriptor.mC9M4N4U2S0(i32, %dx.types.LinAlgMatrixC9M4N4U2S0, %dx.types.Handle, i32, i32, i32, i32)
declare void @dx.op.linAlgVectorAccumulateToDescriptor.v4f32(i32, %dx.types.Handle, i32, i32, <4 x float>)

!dx.targetTypes = !{!20, !21, !22}
!dx.version = !{!0}
!dx.valver = !{!0}
!dx.shaderModel = !{!1}
!dx.resources = !{!2}
!dx.entryPoints = !{!9}

!0 = !{i32 1, i32 10}
!1 = !{!"cs", i32 6, i32 10}
!2 = !{!3, !6, null, null}
!3 = !{!4}
!4 = !{i32 0, %struct.ByteAddressBuffer* undef, !"Weights", i32 0, i32 0, i32 1, i32 11, i32 0, null}
!6 = !{!7}
!7 = !{i32 0, %struct.RWByteAddressBuffer* undef, !"Out", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!9 = !{void ()* @main, !"main", null, !2, !10}
!10 = !{i32 0, i64 8388624, i32 4, !11}
!11 = !{i32 32, i32 1, i32 1}
!20 = !{%dx.types.LinAlgMatrixC8M4N8U0S0 undef, i32 8, i32 4, i32 8, i32 0, i32 0}
!21 = !{%dx.types.LinAlgMatrixC19M4N8U0S0 undef, i32 19, i32 4, i32 8, i32 0, i32 0}
!22 = !{%dx.types.LinAlgMatrixC9M4N4U2S0 undef, i32 9, i32 4, i32 4, i32 2, i32 0}
