//! SM 6.10 LinAlg thread-scope matrices (hlsl-specs proposal 0035) → `SPV_NV_cooperative_vector`.
//!
//! A `Thread`-scope matrix is never a register value: DXIL loads it from a `ByteAddressBuffer`
//! (`linAlgMatrixLoadFromDescriptor`) only to multiply vectors by it, which is exactly
//! `OpCooperativeVectorMatrixMulNV`'s model (the matrix stays in memory, the instruction reads
//! it at a byte offset), or makes it as an outer product (`linAlgMatrixOuterProduct`) only to
//! accumulate it into a `RWByteAddressBuffer`, which is
//! `OpCooperativeVectorOuterProductAccumulateNV`. So the load and the outer product emit
//! nothing and define no SPIR-V value (invariant: a matrix-typed call has no id; a use other
//! than these is a typed error, `FnEmit::value`); the product or accumulation finds the call
//! that made its matrix operand and takes that call's operands.
//!
//! | DXIL | SPIR-V |
//! |---|---|
//! | matrix `C<c>M<m>N<k>U0S0` from `(buffer, offset, stride, layout)` | `Matrix` = the buffer's `uint[]`, `MatrixOffset` = offset (plus the range's first byte for offset-table buffers), `MatrixInterpretation` = `c`, `M` = m, `K` = k |
//! | layout `RowMajor` / `ColMajor` | `RowMajorNV` / `ColumnMajorNV`, `MatrixStride` = stride |
//! | `MulOptimal` / `MulOptimalTranspose` | `InferencingOptimalNV`, `Transpose` false / true |
//! | `OuterProductOptimal` / `…Transpose` | `TrainingOptimalNV`, `Transpose` false / true |
//! | input vector, interpretation | an `OpTypeCooperativeVectorNV` of the vector's lanes, `InputInterpretation` (packed `PackedS8x32`/`PackedU8x32` → `SignedInt8PackedNV`/`UnsignedInt8PackedNV`) |
//! | `isOutputSigned` (integer result) | `MatrixResultSignedComponentsKHR` |
//! | `linAlgMatVecMul` | `OpCooperativeVectorMatrixMulNV`, its `M` lanes extracted into the DXIL vector |
//! | `linAlgMatVecMulAdd` (bias vector of the result's type) | the same, then `OpFAdd` / `OpIAdd` of the bias lane by lane (SPIR-V's bias operand is memory; DXIL's is a value) |
//! | `linAlgMatrixAccumulateToDescriptor(linAlgMatrixOuterProduct(a, b), buffer, offset, 0, OuterProductOptimal)` | `OpCooperativeVectorOuterProductAccumulateNV` (`TrainingOptimalNV`, `MatrixInterpretation` = the matrix's component type; a relaxed device-scope atomic add, as D3D's interlocked accumulate) |
//! | `linAlgVectorAccumulateToDescriptor(buffer, offset, align, v)` | `OpCooperativeVectorReduceSumAccumulateNV` (lane `i` atomically added at element `i` after the byte offset, in `v`'s type) |
//!
//! Component types map one to one (DXIL `I8…U64`, `F16…F64`, `F8_E4M3FN`, `F8_E5M2` to the
//! `Cooperative Vector Component Type` of the same kind); which combinations a device runs is
//! the client API's list (`vkGetPhysicalDeviceCooperativeVectorPropertiesNV`), as D3D's is
//! its own query. An integer input vector is read with the signedness of its integer
//! interpretation (the same width is then the identity, as in D3D).
//!
//! `Wave` and `ThreadGroup` matrices are register values, cooperative matrices: this module
//! routes their operations (and their loads) to `linalg_matrix.rs`. `linAlgConvert` (a vector
//! converted between interpretations) is `linalg_convert.rs`.
//!
//! Refused with a typed error naming the case: a matrix operand that is not a load's direct
//! result (through a PHI, select or memory), `BFloat16`
//! matrices or interpretations (`SPV_NV_cooperative_vector` has no bfloat16 component type),
//! a result other than 16/32-bit float or 32-bit integer lanes (the extension's rule), an
//! integer input vector with a floating-point interpretation (DXIL does not record the
//! input's signedness, which the conversion needs), an outer product of packed 32-bit
//! lanes (the NV instruction takes vectors of the accumulated type), accumulating a wave or
//! thread-group matrix (no Vulkan instruction: `Uncovered::LinAlgInterlockedAccumulate`).
//! Invalid DXIL (DXC's validator rejects it: a non-`A` matrix, vector lengths that are not
//! `K` and `M`, an unsigned float output, a bias of another type than the result, a layout
//! that is not a constant, an `Invalid` component type, a thread-scope load from anything but
//! an SRV `ByteAddressBuffer`) is an input error.
//!
//! D3D bounds-checks the load (out-of-range elements read 0); Vulkan's cooperative-vector
//! reads follow the device's robustness rules. Cost: per product, one instruction, `K` + `M`
//! lane moves (and `M` adds for the bias); the load costs nothing.

use crate::dxil::linalg::{MatrixLayout, MatrixScope, MatrixType, MatrixUse};
use crate::dxil::{ComponentType, DxOp};
use crate::emit::error::Result;
use crate::emit::support::Refusal;
use crate::emit::{Call, FnEmit, ResShape};
use crate::ir::{Type, TypeId, Value};
use rspirv::spirv::{
    Capability, ComponentType as Cv, CooperativeMatrixOperands, CooperativeVectorMatrixLayout, Op, Word,
};

/// A thread-scope matrix as its load names it.
struct InMemory {
    t: MatrixType,
    /// The load's call arguments: handle, offset, stride, layout, alignment.
    load: [Value; 5],
}

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn linalg_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        match c.op {
            DxOp::LinAlgMatrixLoadFromDescriptor
                if crate::emit::module::register_matrix(self.cx.m.types.struct_name(c.ty)).is_some() =>
            {
                self.linalg_matrix_op(c)
            }
            DxOp::LinAlgMatrixLoadFromDescriptor => self.linalg_load(c).map(|()| None),
            DxOp::LinAlgMatrixLoadFromMemory
            | DxOp::LinAlgMatrixStoreToDescriptor
            | DxOp::LinAlgMatrixStoreToMemory
            | DxOp::LinAlgFillMatrix
            | DxOp::LinAlgMatrixLength
            | DxOp::LinAlgMatrixGetElement
            | DxOp::LinAlgMatrixSetElement
            | DxOp::LinAlgMatrixMultiply
            | DxOp::LinAlgMatrixMultiplyAccumulate
            | DxOp::LinAlgCopyConvertMatrix => self.linalg_matrix_op(c),
            DxOp::LinAlgConvert => self.linalg_convert(c).map(Some),
            DxOp::LinAlgMatVecMul | DxOp::LinAlgMatVecMulAdd => self.linalg_mat_vec(c).map(Some),
            DxOp::LinAlgMatrixOuterProduct => self.linalg_outer_product(c).map(|()| None),
            DxOp::LinAlgMatrixAccumulateToDescriptor => self.linalg_accumulate_matrix(c).map(|()| None),
            DxOp::LinAlgVectorAccumulateToDescriptor => self.linalg_accumulate_vector(c).map(|()| None),
            op => Err(self.not_in_family(op, "linear algebra")),
        }
    }

    /// The LinAlg matrix type named by IR type `ty`.
    pub(super) fn linalg_type(&self, c: &Call<'_>, ty: TypeId, what: &str) -> Result<MatrixType> {
        self.cx
            .m
            .types
            .struct_name(ty)
            .and_then(MatrixType::parse)
            .ok_or_else(|| self.invalid(c, what, "is not a %dx.types.LinAlgMatrix type"))
    }

    /// `linAlgMatrixLoadFromDescriptor`: checked, nothing emitted (a thread-scope matrix
    /// stays in its buffer; see the module documentation).
    fn linalg_load(&mut self, c: &Call<'_>) -> Result<()> {
        let t = self.linalg_type(c, c.ty, "the result")?;
        if !(4..=128).contains(&t.n) {
            // DXC's validator: "K dimension out of bounds" (`Instr.LinAlgIllegalKDim`).
            return Err(self.invalid(c, "the result", format!("K = {} is outside 4..=128", t.n)));
        }
        self.linalg_component(c, t.component, "matrix")?;
        let h = self.handle(self.arg(c, 0)?)?;
        let rv = self.res_var(h)?;
        if rv.uav || !matches!(rv.shape, ResShape::Words { stride: None }) {
            return Err(self.invalid(c, "operand 0", "a thread-scope matrix loads from a ByteAddressBuffer (an SRV)"));
        }
        self.linalg_layout(c, self.arg(c, 3)?)?;
        Ok(())
    }

    fn linalg_layout(&self, c: &Call<'_>, v: Value) -> Result<MatrixLayout> {
        let raw = self
            .const_int(v)
            .ok_or_else(|| self.invalid(c, "the layout", "the layout of a thread-scope matrix must be a constant"))?;
        MatrixLayout::from_raw(raw).ok_or_else(|| self.invalid(c, "the layout", format!("{raw} is no MatrixLayout")))
    }

    /// The type and arguments (after the opcode) of the `op` call that made `v`, if one did.
    fn linalg_made_by(&self, v: Value, op: DxOp) -> Option<(TypeId, &'m [Value])> {
        let Value::Inst(i) = v else { return None };
        let (m, f): (&'m crate::ir::Module, &'m crate::ir::Function) = (self.cx.m, self.f);
        let d = crate::dxil::ops::decode_call(m, f, i, "").ok().flatten()?;
        (d.op == op).then_some((f.insts[i].ty, d.args))
    }

    /// The load behind matrix operand `v` of `c`.
    fn linalg_in_memory(&self, c: &Call<'_>, v: Value) -> Result<InMemory> {
        let load = self.linalg_made_by(v, DxOp::LinAlgMatrixLoadFromDescriptor).and_then(|(ty, args)| match *args {
            [h, offset, stride, layout, align] => Some((ty, [h, offset, stride, layout, align])),
            _ => None,
        });
        let Some((ty, load)) = load else {
            return Err(self.form(
                c.op,
                "a thread-scope matrix operand that is not the direct result of linAlgMatrixLoadFromDescriptor \
                 (through a PHI, select, call or memory): the cooperative-vector product reads the matrix from \
                 its buffer, which must be known where it is used",
            ));
        };
        let t = self.linalg_type(c, ty, "operand 1")?;
        if t.scope != MatrixScope::Thread || t.use_ != MatrixUse::A {
            return Err(self.invalid(
                c,
                "operand 1",
                "the matrix of a matrix-vector product is an A matrix of Thread scope",
            ));
        }
        Ok(InMemory { t, load })
    }

    /// `Cooperative Vector Component Type` of DXIL component type `ct` (`what` names the
    /// operand for errors).
    fn linalg_component(&self, c: &Call<'_>, ct: ComponentType, what: &str) -> Result<Cv> {
        use ComponentType as D;
        Ok(match ct {
            D::F16 => Cv::Float16NV,
            D::F32 => Cv::Float32NV,
            D::F64 => Cv::Float64NV,
            D::I8 => Cv::SignedInt8NV,
            D::I16 => Cv::SignedInt16NV,
            D::I32 => Cv::SignedInt32NV,
            D::I64 => Cv::SignedInt64NV,
            D::U8 => Cv::UnsignedInt8NV,
            D::U16 => Cv::UnsignedInt16NV,
            D::U32 => Cv::UnsignedInt32NV,
            D::U64 => Cv::UnsignedInt64NV,
            D::PackedS8x32 => Cv::SignedInt8PackedNV,
            D::PackedU8x32 => Cv::UnsignedInt8PackedNV,
            D::F8_E4M3FN => Cv::FloatE4M3NV,
            D::F8_E5M2 => Cv::FloatE5M2NV,
            D::BFloat16 => {
                return Err(self.form(
                    c.op,
                    format!(
                        "a BFloat16 {what}: SPV_NV_cooperative_vector has no bfloat16 component type \
                         (its Component Type list stops at the float8 formats)"
                    ),
                ))
            }
            other => {
                let name = other.name().map(str::to_string).unwrap_or_else(|| other.to_raw().to_string());
                return Err(self.invalid(c, what, format!("component type {name} is not a LinAlg component type")));
            }
        })
    }

    /// (element type, lane count, is float, bits) of an IR vector type (`what` names the
    /// operand: DXIL's overloads are vectors).
    fn linalg_lanes(&self, c: &Call<'_>, t: TypeId, what: &str) -> Result<(TypeId, u32, bool, u32)> {
        let Type::Vector { elem, len } = *self.cx.m.types.get(t) else {
            return Err(self.invalid(c, what, "is not a vector"));
        };
        Ok((elem, len, self.is_float_ty(elem), self.scalar_bits(elem).unwrap_or(0)))
    }

    /// `linAlgMatVecMul(matrix, isOutputSigned, input, interpretation)` and
    /// `linAlgMatVecMulAdd(…, bias)`.
    fn linalg_mat_vec(&mut self, c: &Call<'_>) -> Result<Word> {
        let mat = self.linalg_in_memory(c, self.arg(c, 0)?)?;
        let (m, k) = (mat.t.m, mat.t.n);
        let signed_out = self.arg_const(c, 1)? != 0;
        let in_ty = self.arg_ty(c, 2)?;
        let interp = ComponentType::from_raw(self.arg_const(c, 3)? as u32);
        let (out_elem, out_n, out_float, out_bits) = self.linalg_lanes(c, c.ty, "the result")?;
        let (in_elem, in_n, in_float, _) = self.linalg_lanes(c, in_ty, "operand 2")?;
        if out_n != m {
            return Err(self.invalid(c, "the result", format!("{out_n} lanes, but the matrix has M = {m} rows")));
        }
        let packed = matches!(interp, ComponentType::PackedS8x32 | ComponentType::PackedU8x32);
        let want_in = if packed { k.div_ceil(4) } else { k };
        if in_n != want_in {
            return Err(self.invalid(c, "operand 2", format!("{in_n} lanes, but K = {k} needs {want_in}")));
        }
        if out_float && !signed_out {
            return Err(self.invalid(c, "operand 1", "a floating-point result must be signed"));
        }
        if !(matches!((out_float, out_bits), (true, 16) | (true, 32) | (false, 32))) {
            return Err(self.form(
                c.op,
                "a result with lanes other than 16/32-bit floats or 32-bit integers: OpCooperativeVectorMatrixMulNV \
                 returns only those",
            ));
        }
        let matrix_interp = self.linalg_component(c, mat.t.component, "matrix")?;
        let input_interp = self.linalg_component(c, interp, "input interpretation")?;
        let mut operands = CooperativeMatrixOperands::NONE_KHR;
        if !in_float && !packed {
            match interp {
                ComponentType::I8 | ComponentType::I16 | ComponentType::I32 | ComponentType::I64 => {
                    operands |= CooperativeMatrixOperands::MATRIX_B_SIGNED_COMPONENTS_KHR;
                }
                ComponentType::U8 | ComponentType::U16 | ComponentType::U32 | ComponentType::U64 => {}
                _ => {
                    return Err(self.form(
                        c.op,
                        "an integer input vector with a floating-point interpretation: DXIL does not record whether \
                         the input is signed, which the conversion to the interpretation depends on",
                    ))
                }
            }
        }
        if packed && (in_float || self.scalar_bits(in_elem) != Some(32)) {
            return Err(self.invalid(c, "operand 2", "a packed interpretation takes 32-bit integer lanes"));
        }
        if !out_float && signed_out {
            operands |= CooperativeMatrixOperands::MATRIX_RESULT_SIGNED_COMPONENTS_KHR;
        }
        let layout = self.linalg_layout(c, mat.load[3])?;
        let (nv_layout, transpose) = match layout {
            MatrixLayout::RowMajor => (CooperativeVectorMatrixLayout::RowMajorNV, false),
            MatrixLayout::ColMajor => (CooperativeVectorMatrixLayout::ColumnMajorNV, false),
            MatrixLayout::MulOptimal => (CooperativeVectorMatrixLayout::InferencingOptimalNV, false),
            MatrixLayout::MulOptimalTranspose => (CooperativeVectorMatrixLayout::InferencingOptimalNV, true),
            MatrixLayout::OuterProductOptimal => (CooperativeVectorMatrixLayout::TrainingOptimalNV, false),
            MatrixLayout::OuterProductOptimalTranspose => (CooperativeVectorMatrixLayout::TrainingOptimalNV, true),
        };

        self.cx.extension("SPV_NV_cooperative_vector");
        self.cx.capability(Capability::CooperativeVectorNV);
        // The matrix: the buffer's `uint[]` and the byte offset in it.
        let h = self.handle(mat.load[0])?;
        let (array, offset) = {
            let offset = self.value(mat.load[1])?;
            self.byte_view_array(h, offset)?
        };
        let stride = self.value(mat.load[2])?;
        // The input as a cooperative vector of its lanes.
        let in_scalar = self.cx.ty(in_elem)?;
        let n_in = self.cx.const_u32(in_n);
        let in_cv = self.cx.b.type_cooperative_vector_nv(in_scalar, n_in);
        let input = self.arg_val(c, 2)?;
        let lanes = self.linalg_split(input, in_scalar, in_n)?;
        let input = self.ids_op(Op::CompositeConstruct, in_cv, &lanes)?;
        let out_scalar = self.cx.ty(out_elem)?;
        let n_out = self.cx.const_u32(m);
        let out_cv = self.cx.b.type_cooperative_vector_nv(out_scalar, n_out);
        let input_interp = self.cx.const_u32(input_interp as u32);
        let matrix_interp = self.cx.const_u32(matrix_interp as u32);
        let (mw, kw) = (self.cx.const_u32(m), self.cx.const_u32(k));
        let nv_layout = self.cx.const_u32(nv_layout as u32);
        let transpose = self.cx.const_bool(transpose);
        let mut ids = vec![input, input_interp, array, offset, matrix_interp, mw, kw, nv_layout, transpose, stride];
        if !operands.is_empty() {
            ids.push(operands.bits());
        }
        let product = self.ids_op(Op::CooperativeVectorMatrixMulNV, out_cv, &ids)?;
        let mut lanes = self.linalg_split(product, out_scalar, m)?;
        if c.op == DxOp::LinAlgMatVecMulAdd {
            if self.arg_ty(c, 4)? != c.ty {
                return Err(self.invalid(c, "operand 4", "the bias vector has the result's type"));
            }
            let bias = self.arg_val(c, 4)?;
            let add = if out_float { Op::FAdd } else { Op::IAdd };
            for (j, lane) in lanes.iter_mut().enumerate() {
                let b = self.ids_op(Op::CompositeExtract, out_scalar, &[bias, j as u32])?;
                *lane = self.ids_op(add, out_scalar, &[*lane, b])?;
            }
        }
        let t = self.cx.ty(c.ty)?;
        self.ids_op(Op::CompositeConstruct, t, &lanes)
    }

    /// A cooperative vector of the lanes of DXIL vector operand `k` of `c`, and its
    /// component type (IR).
    fn linalg_coop_vector(&mut self, c: &Call<'_>, k: usize) -> Result<(Word, TypeId)> {
        let ty = self.arg_ty(c, k)?;
        let (elem, n, _, _) = self.linalg_lanes(c, ty, &format!("operand {k}"))?;
        let scalar = self.cx.ty(elem)?;
        let count = self.cx.const_u32(n);
        self.cx.extension("SPV_NV_cooperative_vector");
        self.cx.capability(Capability::CooperativeVectorNV);
        let cv = self.cx.b.type_cooperative_vector_nv(scalar, count);
        let v = self.arg_val(c, k)?;
        let lanes = self.linalg_split(v, scalar, n)?;
        Ok((self.ids_op(Op::CompositeConstruct, cv, &lanes)?, elem))
    }

    /// The handle of operand `k` of `c`, which must be a `RWByteAddressBuffer`.
    fn linalg_rw_raw(&mut self, c: &Call<'_>, k: usize) -> Result<crate::emit::Handle> {
        let h = self.handle(self.arg(c, k)?)?;
        let rv = self.res_var(h)?;
        if !rv.uav || !matches!(rv.shape, ResShape::Words { stride: None }) {
            return Err(self.invalid(c, &format!("operand {k}"), "accumulation targets a RWByteAddressBuffer"));
        }
        Ok(h)
    }

    /// `linAlgMatrixOuterProduct(a, b)`: checked, nothing emitted; the accumulation that
    /// takes the matrix computes it (`OpCooperativeVectorOuterProductAccumulateNV`).
    fn linalg_outer_product(&mut self, c: &Call<'_>) -> Result<()> {
        let t = self.linalg_type(c, c.ty, "the result")?;
        if t.scope != MatrixScope::Thread || t.use_ != MatrixUse::Accumulator {
            return Err(self.invalid(c, "the result", "an outer product is a Thread-scope Accumulator matrix"));
        }
        Ok(())
    }

    /// `linAlgMatrixAccumulateToDescriptor(matrix, buffer, offset, stride, layout, align)`:
    /// a thread-scope matrix made by `linAlgMatrixOuterProduct(a, b)` becomes
    /// `OpCooperativeVectorOuterProductAccumulateNV` (a relaxed device-scope atomic add of
    /// the outer product into the matrix in memory, as D3D's interlocked accumulate).
    fn linalg_accumulate_matrix(&mut self, c: &Call<'_>) -> Result<()> {
        let mt = self.arg_ty(c, 0)?;
        let t = self.linalg_type(c, mt, "operand 0")?;
        if t.scope != MatrixScope::Thread {
            return Err(
                self.refused(c, Refusal::NoVulkanFeature(crate::emit::support::Uncovered::LinAlgInterlockedAccumulate))
            );
        }
        let outer =
            self.linalg_made_by(self.arg(c, 0)?, DxOp::LinAlgMatrixOuterProduct).and_then(|(_, args)| match *args {
                [a, b] => Some((a, b)),
                _ => None,
            });
        let Some((a, b)) = outer else {
            return Err(self.form(
                c.op,
                "a thread-scope matrix to accumulate that is not the direct result of linAlgMatrixOuterProduct: \
                 SPV_NV_cooperative_vector accumulates only an outer product of two vectors",
            ));
        };
        if self.linalg_layout(c, self.arg(c, 4)?)? != MatrixLayout::OuterProductOptimal {
            return Err(self.invalid(
                c,
                "the layout",
                "a thread-scope matrix accumulates in the OuterProductOptimal layout",
            ));
        }
        let h = self.linalg_rw_raw(c, 1)?;
        let interp = self.linalg_component(c, t.component, "matrix")?;
        let a_ty = self.value_ty(a).unwrap_or(mt);
        let (elem, _, _, _) = self.linalg_lanes(c, a_ty, "outer product vector A")?;
        if self.linalg_component_of(elem) != Some(interp) {
            return Err(self.form(
                c.op,
                "an outer product of vectors whose element type is not the matrix's (packed 32-bit lanes): \
                 OpCooperativeVectorOuterProductAccumulateNV takes vectors of the accumulated type",
            ));
        }
        let call = Call { op: DxOp::LinAlgMatrixOuterProduct, args: &[a, b], inst: c.inst, ty: mt };
        let (va, _) = self.linalg_coop_vector(&call, 0)?;
        let (vb, _) = self.linalg_coop_vector(&call, 1)?;
        self.cx.capability(Capability::CooperativeVectorTrainingNV);
        let offset = self.arg_val(c, 2)?;
        let (array, offset) = self.byte_view_array(h, offset)?;
        let layout = self.cx.const_u32(CooperativeVectorMatrixLayout::TrainingOptimalNV as u32);
        let interp = self.cx.const_u32(interp as u32);
        let stride = self.arg_val(c, 3)?;
        self.ids_void(Op::CooperativeVectorOuterProductAccumulateNV, &[array, offset, va, vb, layout, interp, stride])
    }

    /// The cooperative-vector component type of IR scalar type `t`, for floats (DXIL's
    /// integers carry no signedness, so only a float vector names its type exactly).
    fn linalg_component_of(&self, t: TypeId) -> Option<Cv> {
        match (self.is_float_ty(t), self.scalar_bits(t)?) {
            (true, 16) => Some(Cv::Float16NV),
            (true, 32) => Some(Cv::Float32NV),
            (true, 64) => Some(Cv::Float64NV),
            _ => None,
        }
    }

    /// `linAlgVectorAccumulateToDescriptor(buffer, offset, align, vector)`:
    /// `OpCooperativeVectorReduceSumAccumulateNV` (component `i` atomically added at element
    /// `i` after the byte offset, in the vector's component type, device scope).
    fn linalg_accumulate_vector(&mut self, c: &Call<'_>) -> Result<()> {
        let h = self.linalg_rw_raw(c, 0)?;
        let (v, _) = self.linalg_coop_vector(c, 3)?;
        self.cx.capability(Capability::CooperativeVectorTrainingNV);
        let offset = self.arg_val(c, 1)?;
        let (array, offset) = self.byte_view_array(h, offset)?;
        self.ids_void(Op::CooperativeVectorReduceSumAccumulateNV, &[array, offset, v])
    }

    /// The `n` lanes of a vector, long vector (array) or cooperative vector `v`.
    fn linalg_split(&mut self, v: Word, scalar: Word, n: u32) -> Result<Vec<Word>> {
        (0..n).map(|j| self.ids_op(Op::CompositeExtract, scalar, &[v, j])).collect()
    }
}
