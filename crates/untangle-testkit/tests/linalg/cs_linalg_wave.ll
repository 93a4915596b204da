; SM 6.10 LinAlg wave and thread-group matrices (hlsl-specs proposal 0035; operands from
; DXC's hctdb.py), hand-written for tests/linalg.rs:
;
;   ByteAddressBuffer Weights : register(t0);
;   RWByteAddressBuffer Out : register(u0);
;   groupshared uint GS[1024];
;   [numthreads(64, 1, 1)]
;   void main(uint3 id : SV_DispatchThreadID) {
;     using namespace dx::linalg;
;     // 16x16 F16 A from Weights (row major, 32-byte rows), B from GS (column major, at
;     // half 8, 16 halves a column), F32 accumulators at Wave scope
;     Matrix<F16, 16, 16, A, Wave> A = A.Load(Weights, 0, 32, RowMajor);
;     Matrix<F16, 16, 16, B, Wave> B = B.Load(GS, 8, 16, ColMajor);
;     Matrix<F32, 16, 16, Accumulator, Wave> C = C.Splat(1.0);
;     auto P = Multiply<F32>(A, B);  C.MultiplyAccumulate(A, B);
;     uint n = C.Length(); float e = C.Get(id.x); C.Set(3, e + 1.0);
;     auto H = C.Cast<F16>();                     // F32 -> F16 accumulator
;     auto HA = C.Cast<F16, A>();                 // F32 accumulator -> F16 A
;     auto CA = C.Cast<F32, A>();                 // accumulator -> A, same type
;     auto CB = C.Cast<F32, B, true>();           // accumulator -> B, transposed
;     C.Store(Out, 0, 64, RowMajor); P.Store(GS, 0, 16, RowMajor);
;     Out.Store(2048, n); Out.Store(2052, asuint(e));
;     H.Store(Out, 4096, 32, ColMajor); HA.Store(Out, 8192, 32, RowMajor);
;     CA.Store(Out, 12288, 64, RowMajor); CB.Store(Out, 16384, 64, RowMajor);
;     // thread-group scope: 32x16 * 16x32 at Workgroup scope
;     Matrix<F16, 32, 16, A, ThreadGroup> TA = TA.Load(Weights, 1024, 32, RowMajor);
;     Matrix<F16, 16, 32, B, ThreadGroup> TB = TB.Splat(half(2.0));
;     Multiply<F32>(TA, TB).Store(Out, 20480, 128, RowMajor);
;   }
target datalayout = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.LinAlgMatrixC8M16N16U0S1 = type { i8* }
%dx.types.LinAlgMatrixC8M16N16U1S1 = type { i8* }
%dx.types.LinAlgMatrixC9M16N16U2S1 = type { i8* }
%dx.types.LinAlgMatrixC8M16N16U2S1 = type { i8* }
%dx.types.LinAlgMatrixC9M16N16U0S1 = type { i8* }
%dx.types.LinAlgMatrixC9M16N16U1S1 = type { i8* }
%dx.types.LinAlgMatrixC8M32N16U0S2 = type { i8* }
%dx.types.LinAlgMatrixC8M16N32U1S2 = type { i8* }
%dx.types.LinAlgMatrixC9M32N32U2S2 = type { i8* }
%struct.ByteAddressBuffer = type { i32 }
%struct.RWByteAddressBuffer = type { i32 }

@GS = external addrspace(3) global [1024 x i32], align 4

define void @main() {
entry:
  %weights = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)
  %out = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %id = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a = call %dx.types.LinAlgMatrixC8M16N16U0S1 @dx.op.linAlgMatrixLoadFromDescriptor.mC8M16N16U0S1(i32 -2147483634, %dx.types.Handle %weights, i32 0, i32 32, i32 0, i32 128)
  %b = call %dx.types.LinAlgMatrixC8M16N16U1S1 @dx.op.linAlgMatrixLoadFromMemory.mC8M16N16U1S1.i32(i32 -2147483633, i32 addrspace(3)* getelementptr inbounds ([1024 x i32], [1024 x i32] addrspace(3)* @GS, i32 0, i32 0), i32 8, i32 16, i32 1)
  %c = call %dx.types.LinAlgMatrixC9M16N16U2S1 @dx.op.linAlgFillMatrix.mC9M16N16U2S1.f32(i32 -2147483636, float 1.000000e+00)
  %p = call %dx.types.LinAlgMatrixC9M16N16U2S1 @dx.op.linAlgMatrixMultiply.mC9M16N16U2S1.mC8M16N16U0S1.mC8M16N16U1S1(i32 -2147483625, %dx.types.LinAlgMatrixC8M16N16U0S1 %a, %dx.types.LinAlgMatrixC8M16N16U1S1 %b)
  %q = call %dx.types.LinAlgMatrixC9M16N16U2S1 @dx.op.linAlgMatrixMultiplyAccumulate.mC9M16N16U2S1.mC8M16N16U0S1.mC8M16N16U1S1.mC9M16N16U2S1(i32 -2147483637, %dx.types.LinAlgMatrixC8M16N16U0S1 %a, %dx.types.LinAlgMatrixC8M16N16U1S1 %b, %dx.types.LinAlgMatrixC9M16N16U2S1 %c)
  %n = call i32 @dx.op.linAlgMatrixLength.mC9M16N16U2S1(i32 -2147483632, %dx.types.LinAlgMatrixC9M16N16U2S1 %q)
  %e = call float @dx.op.linAlgMatrixGetElement.f32.mC9M16N16U2S1(i32 -2147483630, %dx.types.LinAlgMatrixC9M16N16U2S1 %q, i32 %id)
  %e1 = fadd fast float %e, 1.000000e+00
  %q2 = call %dx.types.LinAlgMatrixC9M16N16U2S1 @dx.op.linAlgMatrixSetElement.mC9M16N16U2S1.mC9M16N16U2S1.f32(i32 -2147483629, %dx.types.LinAlgMatrixC9M16N16U2S1 %q, i32 3, float %e1)
  %h = call %dx.types.LinAlgMatrixC8M16N16U2S1 @dx.op.linAlgCopyConvertMatrix.mC8M16N16U2S1.mC9M16N16U2S1(i32 -2147483635, %dx.types.LinAlgMatrixC9M16N16U2S1 %q2, i1 false)
  %ha = call %dx.types.LinAlgMatrixC8M16N16U0S1 @dx.op.linAlgCopyConvertMatrix.mC8M16N16U0S1.mC9M16N16U2S1(i32 -2147483635, %dx.types.LinAlgMatrixC9M16N16U2S1 %q2, i1 false)
  %ca = call %dx.types.LinAlgMatrixC9M16N16U0S1 @dx.op.linAlgCopyConvertMatrix.mC9M16N16U0S1.mC9M16N16U2S1(i32 -2147483635, %dx.types.LinAlgMatrixC9M16N16U2S1 %q2, i1 false)
  %cb = call %dx.types.LinAlgMatrixC9M16N16U1S1 @dx.op.linAlgCopyConvertMatrix.mC9M16N16U1S1.mC9M16N16U2S1(i32 -2147483635, %dx.types.LinAlgMatrixC9M16N16U2S1 %q2, i1 true)
  call void @dx.op.linAlgMatrixStoreToDescriptor.mC9M16N16U2S1(i32 -2147483628, %dx.types.LinAlgMatrixC9M16N16U2S1 %q2, %dx.types.Handle %out, i32 0, i32 64, i32 0, i32 128)
  call void @dx.op.linAlgMatrixStoreToMemory.mC9M16N16U2S1.i32(i32 -2147483627, %dx.types.LinAlgMatrixC9M16N16U2S1 %p, i32 addrspace(3)* getelementptr inbounds ([1024 x i32], [1024 x i32] addrspace(3)* @GS, i32 0, i32 0), i32 0, i32 16, i32 0)
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 2048, i32 undef, i32 %n, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  %eb = bitcast float %e to i32
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 2052, i32 undef, i32 %eb, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  call void @dx.op.linAlgMatrixStoreToDescriptor.mC8M16N16U2S1(i32 -2147483628, %dx.types.LinAlgMatrixC8M16N16U2S1 %h, %dx.types.Handle %out, i32 4096, i32 32, i32 1, i32 128)
  call void @dx.op.linAlgMatrixStoreToDescriptor.mC8M16N16U0S1(i32 -2147483628, %dx.types.LinAlgMatrixC8M16N16U0S1 %ha, %dx.types.Handle %out, i32 8192, i32 32, i32 0, i32 128)
  call void @dx.op.linAlgMatrixStoreToDescriptor.mC9M16N16U0S1(i32 -2147483628, %dx.types.LinAlgMatrixC9M16N16U0S1 %ca, %dx.types.Handle %out, i32 12288, i32 64, i32 0, i32 128)
  call void @dx.op.linAlgMatrixStoreToDescriptor.mC9M16N16U1S1(i32 -2147483628, %dx.types.LinAlgMatrixC9M16N16U1S1 %cb, %dx.types.Handle %out, i32 16384, i32 64, i32 0, i32 128)
  %ta = call %dx.types.LinAlgMatrixC8M32N16U0S2 @dx.op.linAlgMatrixLoadFromDescriptor.mC8M32N16U0S2(i32 -2147483634, %dx.types.Handle %weights, i32 1024, i32 32, i32 0, i32 128)
  %tb = call %dx.types.LinAlgMatrixC8M16N32U1S2 @dx.op.linAlgFillMatrix.mC8M16N32U1S2.f16(i32 -2147483636, half 0xH4000)
  %tc = call %dx.types.LinAlgMatrixC9M32N32U2S2 @dx.op.linAlgMatrixMultiply.mC9M32N32U2S2.mC8M32N16U0S2.mC8M16N32U1S2(i32 -2147483625, %dx.types.LinAlgMatrixC8M32N16U0S2 %ta, %dx.types.LinAlgMatrixC8M16N32U1S2 %tb)
  call void @dx.op.linAlgMatrixStoreToDescriptor.mC9M32N32U2S2(i32 -2147483628, %dx.types.LinAlgMatrixC9M32N32U2S2 %tc, %dx.types.Handle %out, i32 20480, i32 128, i32 0, i32 128)
  ret void
}

declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
declare %dx.types.LinAlgMatrixC8M16N16U0S1 @dx.op.linAlgMatrixLoadFromDescriptor.mC8M16N16U0S1(i32, %dx.types.Handle, i32, i32, i32, i32)
declare %dx.types.LinAlgMatrixC8M16N16U1S1 @dx.op.linAlgMatrixLoadFromMemory.mC8M16N16U1S1.i32(i32, i32 addrspace(3)*, i32, i32, i32)
declare %dx.types.LinAlgMatrixC9M16N16U2S1 @dx.op.linAlgFillMatrix.mC9M16N16U2S1.f32(i32, float)
declare %dx.types.LinAlgMatrixC9M16N16U2S1 @dx.op.linAlgMatrixMultiply.mC9M16N16U2S1.mC8M16N16U0S1.mC8M16N16U1S1(i32, %dx.types.LinAlgMatrixC8M16N16U0S1, %dx.types.LinAlgMatrixC8M16N16U1S1)
declare %dx.types.LinAlgMatrixC9M16N16U2S1 @dx.op.linAlgMatrixMultiplyAccumulate.mC9M16N16U2S1.mC8M16N16U0S1.mC8M16N16U1S1.mC9M16N16U2S1(i32, %dx.types.LinAlgMatrixC8M16N16U0S1, %dx.types.LinAlgMatrixC8M16N16U1S1, %dx.types.LinAlgMatrixC9M16N16U2S1)
declare i32 @dx.op.linAlgMatrixLength.mC9M16N16U2S1(i32, %dx.types.LinAlgMatrixC9M16N16U2S1)
declare float @dx.op.linAlgMatrixGetElement.f32.mC9M16N16U2S1(i32, %dx.types.LinAlgMatrixC9M16N16U2S1, i32)
declare %dx.types.LinAlgMatrixC9M16N16U2S1 @dx.op.linAlgMatrixSetElement.mC9M16N16U2S1.mC9M16N16U2S1.f32(i32, %dx.types.LinAlgMatrixC9M16N16U2S1, i32, float)
declare %dx.types.LinAlgMatrixC8M16N16U2S1 @dx.op.linAlgCopyConvertMatrix.mC8M16N16U2S1.mC9M16N16U2S1(i32, %dx.types.LinAlgMatrixC9M16N16U2S1, i1)
declare %dx.types.LinAlgMatrixC8M16N16U0S1 @dx.op.linAlgCopyConvertMatrix.mC8M16N16U0S1.mC9M16N16U2S1(i32, %dx.types.LinAlgMatrixC9M16N16U2S1, i1)
declare %dx.types.LinAlgMatrixC9M16N16U0S1 @dx.op.linAlgCopyConvertMatrix.mC9M16N16U0S1.mC9M16N16U2S1(i32, %dx.types.LinAlgMatrixC9M16N16U2S1, i1)
declare %dx.types.LinAlgMatrixC9M16N16U1S1 @dx.op.linAlgCopyConvertMatrix.mC9M16N16U1S1.mC9M16N16U2S1(i32, %dx.types.LinAlgMatrixC9M16N16U2S1, i1)
declare void @dx.op.linAlgMatrixStoreToDescriptor.mC9M16N16U2S1(i32, %dx.types.LinAlgMatrixC9M16N16U2S1, %dx.types.Handle, i32, i32, i32, i32)
declare void @dx.op.linAlgMatrixStoreToMemory.mC9M16N16U2S1.i32(i32, %dx.types.LinAlgMatrixC9M16N16U2S1, i32 addrspace(3)*, i32, i32, i32)
declare void @dx.op.linAlgMatrixStoreToDescriptor.mC8M16N16U2S1(i32, %dx.types.LinAlgMatrixC8M16N16U2S1, %dx.types.Handle, i32, i32, i32, i32)
declare void @dx.op.linAlgMatrixStoreToDescriptor.mC8M16N16U0S1(i32, %dx.types.LinAlgMatrixC8M16N16U0S1, %dx.types.Handle, i32, i32, i32, i32)
declare void @dx.op.linAlgMatrixStoreToDescriptor.mC9M16N16U0S1(i32, %dx.types.LinAlgMatrixC9M16N16U0S1, %dx.types.Handle, i32, i32, i32, i32)
declare void @dx.op.linAlgMatrixStoreToDescriptor.mC9M16N16U1S1(i32, %dx.types.LinAlgMatrixC9M16N16U1S1, %dx.types.Handle, i32, i32, i32, i32)
declare %dx.types.LinAlgMatrixC8M32N16U0S2 @dx.op.linAlgMatrixLoadFromDescriptor.mC8M32N16U0S2(i32, %dx.types.Handle, i32, i32, i32, i32)
declare %dx.types.LinAlgMatrixC8M16N32U1S2 @dx.op.linAlgFillMatrix.mC8M16N32U1S2.f16(i32, half)
declare %dx.types.LinAlgMatrixC9M32N32U2S2 @dx.op.linAlgMatrixMultiply.mC9M32N32U2S2.mC8M32N16U0S2.mC8M16N32U1S2(i32, %dx.types.LinAlgMatrixC8M32N16U0S2, %dx.types.LinAlgMatrixC8M16N32U1S2)
declare void @dx.op.linAlgMatrixStoreToDescriptor.mC9M32N32U2S2(i32, %dx.types.LinAlgMatrixC9M32N32U2S2, %dx.types.Handle, i32, i32, i32, i32)

!dx.targetTypes = !{!20, !21, !22, !23, !24, !25, !26, !27, !28}
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
!11 = !{i32 64, i32 1, i32 1}
!20 = !{%dx.types.LinAlgMatrixC8M16N16U0S1 undef, i32 8, i32 16, i32 16, i32 0, i32 1}
!21 = !{%dx.types.LinAlgMatrixC8M16N16U1S1 undef, i32 8, i32 16, i32 16, i32 1, i32 1}
!22 = !{%dx.types.LinAlgMatrixC9M16N16U2S1 undef, i32 9, i32 16, i32 16, i32 2, i32 1}
!23 = !{%dx.types.LinAlgMatrixC8M16N16U2S1 undef, i32 8, i32 16, i32 16, i32 2, i32 1}
!24 = !{%dx.types.LinAlgMatrixC9M16N16U0S1 undef, i32 9, i32 16, i32 16, i32 0, i32 1}
!25 = !{%dx.types.LinAlgMatrixC9M16N16U1S1 undef, i32 9, i32 16, i32 16, i32 1, i32 1}
!26 = !{%dx.types.LinAlgMatrixC8M32N16U0S2 undef, i32 8, i32 32, i32 16, i32 0, i32 2}
!27 = !{%dx.types.LinAlgMatrixC8M16N32U1S2 undef, i32 8, i32 16, i32 32, i32 1, i32 2}
!28 = !{%dx.types.LinAlgMatrixC9M32N32U2S2 undef, i32 9, i32 32, i32 32, i32 2, i32 2}
