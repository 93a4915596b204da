//! SM 6.10 LinAlg wave and thread-group matrices (hlsl-specs proposal 0035) →
//! `SPV_KHR_cooperative_matrix`, with `SPV_NV_cooperative_matrix2` for workgroup scope and
//! the conversions KHR lacks.
//!
//! A `Wave`- or `ThreadGroup`-scope matrix is a register value: each `%dx.types.LinAlgMatrix…`
//! value is one `OpTypeCooperativeMatrixKHR` id ([`crate::emit::module::ModuleBuilder::linalg_matrix_type`]:
//! the component type, `Subgroup` scope for `Wave`, `Workgroup` for `ThreadGroup`, `M` rows,
//! `N` columns, the use), so PHIs, selects and `undef` carry it like any value.
//!
//! | DXIL | SPIR-V |
//! |---|---|
//! | `linAlgMatrixLoadFromDescriptor(buffer, offset, stride, layout, align)` | `OpCooperativeMatrixLoadKHR` from the buffer's `uint` element `offset / 4` (plus the range's first word for offset-table buffers), `Stride` = `stride / 4` (in the pointer's `uint`s), layout `RowMajorKHR` / `ColumnMajorKHR` |
//! | `linAlgMatrixStoreToDescriptor(matrix, buffer, …)` | `OpCooperativeMatrixStoreKHR`, the same addressing (a `RWByteAddressBuffer`) |
//! | `linAlgMatrixLoadFromMemory(gs, offset, stride, layout)` / `StoreToMemory` | the same on the groupshared element `offset` matrix elements after `gs` (`offset · e / a` array elements for matrix elements of `e` bytes in an array of `a`-byte elements; the stride likewise) |
//! | `linAlgFillMatrix(value)` | `OpCompositeConstruct` of the value as the component type |
//! | `linAlgMatrixLength(m)` | `OpCooperativeMatrixLengthKHR` |
//! | `linAlgMatrixGetElement(m, i)` / `SetElement(m, i, v)` | through a `Function` variable of the matrix: `OpAccessChain` to component `i` (`i` clamped to 0 when not below the length), then the value or 0 / the new or the old value (D3D: an index out of range reads 0, writes nothing) |
//! | `linAlgMatrixMultiply(a, b)` | `OpCooperativeMatrixMulAddKHR(a, b, 0)` |
//! | `linAlgMatrixMultiplyAccumulate(a, b, c)` | `OpCooperativeMatrixMulAddKHR(a, b, c)`; signed integer operands and result flagged (`Matrix{A,B,C,Result}SignedComponentsKHR`) |
//! | `linAlgCopyConvertMatrix(m, false)`, same use | the identity, or `OpFConvert` / `OpSConvert` / `OpUConvert` / `OpConvert{S,U}ToF` of the matrix |
//! | `linAlgCopyConvertMatrix(m, false)`, accumulator → A or B | `OpCooperativeMatrixConvertNV` (same component type) or the conversion above (`CooperativeMatrixConversionsNV`) |
//! | `linAlgCopyConvertMatrix(m, true)`, accumulator → B | the component conversion (as an accumulator), then `OpCooperativeMatrixTransposeNV` |
//!
//! Conversions follow the proposal's "Data Conversion Rules" only where SPIR-V's do the
//! same: float → float (best approximation), integer → float (round to nearest even) and
//! exact integer widenings are lowered; a conversion D3D saturates (integer narrowing, a
//! sign change, float → integer) is an unsupported form, as SPIR-V's cooperative-matrix
//! conversions wrap or truncate and Vulkan has no saturating conversion
//! (`SaturatedConversion` is Kernel-only). A fill or element value of another type than the
//! elements is converted float → float only (an integer's signedness is not in DXIL).
//! Refused as an unsupported form naming the case: use changes SPIR-V has no instruction for
//! (A or B → accumulator, A ↔ B; a transpose other than accumulator → B), a groupshared
//! pointer that is not a `getelementptr` of a groupshared array. Invalid DXIL (DXC's
//! validator rejects it: a `Thread`-scope operand, mismatched scopes, uses or dimensions, a
//! layout other than `RowMajor`/`ColMajor`, a store to an SRV) is an input error.
//! `LinAlgMatrixAccumulate` (an A or B matrix added to an accumulator) needs the missing
//! A/B → accumulator conversion and is refused by the support table.
//!
//! Which shapes, component types and scopes run is the client API's list
//! (`vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR`, and the flexible-dimension
//! properties of `VK_NV_cooperative_matrix2` for workgroup scope), as D3D's is its own query.
//! Cost: a few instructions per operation; an element access spills the matrix to a
//! variable (`OpAccessChain` is SPIR-V's only dynamic way into a cooperative matrix).

use crate::dxil::linalg::{MatrixLayout, MatrixScope, MatrixType, MatrixUse};
use crate::dxil::{ComponentType, DxOp};
use crate::emit::error::Result;
use crate::emit::{Call, FnEmit, ResShape};
use crate::ir::TypeId;
use rspirv::spirv::{Capability, CooperativeMatrixOperands, Op, StorageClass, Word};

/// A register matrix: its LinAlg type and its SPIR-V type.
#[derive(Copy, Clone)]
struct Reg {
    t: MatrixType,
    ty: Word,
}

/// How a component type converts.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    Float,
    Signed,
    Unsigned,
}

fn kind(ct: ComponentType) -> Kind {
    use ComponentType as C;
    match ct {
        C::I8 | C::I16 | C::I32 | C::I64 => Kind::Signed,
        C::U8 | C::U16 | C::U32 | C::U64 => Kind::Unsigned,
        _ => Kind::Float,
    }
}

/// Bytes of one element of component type `ct` (its cooperative-matrix form).
fn bytes(ct: ComponentType) -> u32 {
    use ComponentType as C;
    match ct {
        C::I8 | C::U8 | C::F8_E4M3FN | C::F8_E5M2 => 1,
        C::I16 | C::U16 | C::F16 | C::BFloat16 => 2,
        C::I64 | C::U64 | C::F64 => 8,
        _ => 4,
    }
}

/// Whether converting `from` to `to` is exact in SPIR-V and D3D alike (see the module
/// documentation), and the instruction that does it (`None`: no conversion needed).
fn conversion(from: ComponentType, to: ComponentType) -> std::result::Result<Option<Op>, &'static str> {
    if from == to {
        return Ok(None);
    }
    let (bf, bt) = (bytes(from), bytes(to));
    match (kind(from), kind(to)) {
        (Kind::Float, Kind::Float) => Ok(Some(Op::FConvert)),
        (Kind::Signed, Kind::Float) => Ok(Some(Op::ConvertSToF)),
        (Kind::Unsigned, Kind::Float) => Ok(Some(Op::ConvertUToF)),
        (Kind::Signed, Kind::Signed) if bt > bf => Ok(Some(Op::SConvert)),
        (Kind::Unsigned, Kind::Unsigned) if bt > bf => Ok(Some(Op::UConvert)),
        (Kind::Unsigned, Kind::Signed) if bt > bf => Ok(Some(Op::UConvert)),
        (Kind::Float, _) => {
            Err("a float to integer conversion (D3D rounds to nearest even and saturates; SPIR-V truncates)")
        }
        _ => Err("an integer conversion that narrows or changes sign (D3D saturates; SPIR-V's conversions wrap)"),
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn linalg_matrix_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        match c.op {
            DxOp::LinAlgMatrixLoadFromDescriptor | DxOp::LinAlgMatrixLoadFromMemory => self.lm_load(c).map(Some),
            DxOp::LinAlgMatrixStoreToDescriptor | DxOp::LinAlgMatrixStoreToMemory => self.lm_store(c).map(|()| None),
            DxOp::LinAlgFillMatrix => self.lm_fill(c).map(Some),
            DxOp::LinAlgMatrixLength => {
                let r = self.lm_reg(c, self.arg_ty(c, 0)?, "operand 0")?;
                let u = self.cx.u32_t();
                self.ids_op(Op::CooperativeMatrixLengthKHR, u, &[r.ty]).map(Some)
            }
            DxOp::LinAlgMatrixGetElement | DxOp::LinAlgMatrixSetElement => self.lm_element(c).map(Some),
            DxOp::LinAlgMatrixMultiply | DxOp::LinAlgMatrixMultiplyAccumulate => self.lm_multiply(c).map(Some),
            DxOp::LinAlgCopyConvertMatrix => self.lm_copy_convert(c).map(Some),
            op => Err(self.not_in_family(op, "linear algebra (register matrices)")),
        }
    }

    /// The register matrix of IR type `ty` (`what` names the operand).
    fn lm_reg(&mut self, c: &Call<'_>, ty: TypeId, what: &str) -> Result<Reg> {
        let t = self.linalg_type(c, ty, what)?;
        if t.scope == MatrixScope::Thread {
            return Err(self.invalid(c, what, "a Thread-scope matrix where a Wave or ThreadGroup one is expected"));
        }
        self.cx.linalg_matrix_type(t).map_err(|m| self.form(c.op, m))?;
        Ok(Reg { t, ty: self.cx.ty(ty)? })
    }

    /// The register matrix operand `k` and its value.
    fn lm_operand(&mut self, c: &Call<'_>, k: usize) -> Result<(Reg, Word)> {
        let r = self.lm_reg(c, self.arg_ty(c, k)?, &format!("operand {k}"))?;
        Ok((r, self.arg_val(c, k)?))
    }

    /// The SPIR-V type of the elements of `r`.
    fn lm_component(&mut self, c: &Call<'_>, r: Reg) -> Result<Word> {
        self.cx.linalg_component_type(r.t.component).map_err(|m| self.form(c.op, m))
    }

    /// The `MemoryLayout` constant of operand `k` (row or column major).
    fn lm_layout(&mut self, c: &Call<'_>, k: usize) -> Result<Word> {
        let raw = self.arg_const(c, k)?;
        let layout = match MatrixLayout::from_raw(raw) {
            Some(MatrixLayout::RowMajor) => 0, // RowMajorKHR
            Some(MatrixLayout::ColMajor) => 1, // ColumnMajorKHR
            _ => {
                return Err(self.invalid(
                    c,
                    "the layout",
                    format!("layout {raw}: wave and thread-group matrices are RowMajor or ColMajor in memory"),
                ))
            }
        };
        Ok(self.cx.const_u32(layout))
    }

    /// `value >> 2` (a byte count of a raw buffer in its `uint`s).
    fn lm_words(&mut self, value: Word) -> Result<Word> {
        let (u, two) = (self.cx.u32_t(), self.cx.const_u32(2));
        self.ids_op(Op::ShiftRightLogical, u, &[value, two])
    }

    /// Pointer and stride (in pointer elements) of a load or store: operands `at..` are
    /// (buffer, offset, stride) or (groupshared pointer, offset, stride).
    fn lm_memory(&mut self, c: &Call<'_>, at: usize, r: Reg, store: bool) -> Result<(Word, Word)> {
        let descriptor = matches!(c.op, DxOp::LinAlgMatrixLoadFromDescriptor | DxOp::LinAlgMatrixStoreToDescriptor);
        if descriptor {
            let h = self.handle(self.arg(c, at)?)?;
            let rv = self.res_var(h)?;
            if !matches!(rv.shape, ResShape::Words { stride: None }) || (store && !rv.uav) {
                let want = if store { "a RWByteAddressBuffer" } else { "a [RW]ByteAddressBuffer" };
                return Err(self.invalid(c, &format!("operand {at}"), format!("the matrix's memory is {want}")));
            }
            let offset = self.arg_val(c, at + 1)?;
            let (array, offset) = self.byte_view_array(h, offset)?;
            let index = self.lm_words(offset)?;
            let u = self.cx.u32_t();
            let pty = self.cx.ptr(rv.storage, u);
            let ptr = self.ids_op(Op::AccessChain, pty, &[array, index])?;
            let stride = self.arg_val(c, at + 2)?;
            return Ok((ptr, self.lm_words(stride)?));
        }
        let p = self.arg(c, at)?;
        let Some((pty, base, indices)) = self.gep_parts(p) else {
            return Err(self.form(c.op, "a groupshared pointer that is not a getelementptr into a groupshared array"));
        };
        let elem = self.cx.m.types.pointee(pty).ok_or_else(|| self.invalid(c, "the memory", "is not a pointer"))?;
        // A scalar or a vector of up to 4 lanes (a SPIR-V vector; the stride counts them).
        let bits = match *self.cx.m.types.get(elem) {
            crate::ir::Type::Vector { elem: e, len } if len <= 4 => self.scalar_bits(e).map(|b| b * len),
            crate::ir::Type::Vector { .. } => None,
            _ => self.scalar_bits(elem),
        };
        let Some(bits) = bits else {
            return Err(self.form(
                c.op,
                "groupshared memory of elements other than scalars or vectors of up to 4 lanes (longer vectors \
                 are arrays in SPIR-V, which a cooperative-matrix load cannot address)",
            ));
        };
        let (Some((first, rest)), true) = (indices.split_first(), indices.len() >= 2) else {
            return Err(self.form(c.op, "a groupshared pointer that is not an element of a groupshared array"));
        };
        if self.const_int(*first) != Some(0) {
            return Err(self.form(c.op, "a groupshared pointer with a non-zero first index (pointer arithmetic)"));
        }
        let (b, class) = self.pointer(base)?;
        if class != StorageClass::Workgroup {
            return Err(self.invalid(c, "the memory", "is not groupshared memory"));
        }
        // Offset and stride count matrix elements; the pointer indexes array elements.
        let (e, a) = (bytes(r.t.component), (bits / 8).max(1));
        let offset = self.arg_val(c, at + 1)?;
        let offset = self.lm_rescale(offset, e, a)?;
        let mut ops = vec![b];
        for (k, &ix) in rest.iter().enumerate() {
            let w = self.gep_index(ix)?;
            ops.push(if k + 1 == rest.len() {
                let u = self.cx.u32_t();
                self.ids_op(Op::IAdd, u, &[w, offset])?
            } else {
                w
            });
        }
        let et = self.cx.ty(elem)?;
        let pty = self.cx.ptr(StorageClass::Workgroup, et);
        let ptr = self.ids_op(Op::AccessChain, pty, &ops)?;
        let stride = self.arg_val(c, at + 2)?;
        Ok((ptr, self.lm_rescale(stride, e, a)?))
    }

    /// `v · e / a`: a count of `e`-byte matrix elements in `a`-byte array elements.
    fn lm_rescale(&mut self, v: Word, e: u32, a: u32) -> Result<Word> {
        if e == a {
            return Ok(v);
        }
        let u = self.cx.u32_t();
        let (ew, aw) = (self.cx.const_u32(e), self.cx.const_u32(a));
        let bytes = self.ids_op(Op::IMul, u, &[v, ew])?;
        self.ids_op(Op::UDiv, u, &[bytes, aw])
    }

    /// `linAlgMatrixLoadFromDescriptor` / `LoadFromMemory`: `OpCooperativeMatrixLoadKHR`.
    fn lm_load(&mut self, c: &Call<'_>) -> Result<Word> {
        let r = self.lm_reg(c, c.ty, "the result")?;
        let layout = self.lm_layout(c, 3)?;
        let (ptr, stride) = self.lm_memory(c, 0, r, false)?;
        self.ids_op(Op::CooperativeMatrixLoadKHR, r.ty, &[ptr, layout, stride])
    }

    /// `linAlgMatrixStoreToDescriptor` / `StoreToMemory`: `OpCooperativeMatrixStoreKHR`.
    fn lm_store(&mut self, c: &Call<'_>) -> Result<()> {
        let (r, m) = self.lm_operand(c, 0)?;
        let layout = self.lm_layout(c, 4)?;
        let (ptr, stride) = self.lm_memory(c, 1, r, true)?;
        self.ids_void(Op::CooperativeMatrixStoreKHR, &[ptr, m, layout, stride])
    }

    /// Scalar `value` of IR type `from` as an element of `r` (float → float converted; an
    /// integer of the elements' width reinterpreted; a constant integer that is non-negative
    /// in its width converted exactly, as it reads the same signed or unsigned).
    fn lm_to_element(&mut self, c: &Call<'_>, value: crate::ir::Value, from: TypeId, r: Reg) -> Result<Word> {
        let v = self.value(value)?;
        let et = self.lm_component(c, r)?;
        if self.cx.ty(from)? == et {
            return Ok(v);
        }
        // A constant integer that is non-negative in its width converts alike as signed or
        // unsigned: exactly to a float, or to an integer that holds it.
        let int_const = self.const_int(value).filter(|&k| {
            let bits = self.scalar_bits(from).unwrap_or(64);
            !self.is_float_ty(from) && bits <= 64 && (bits == 64 && k >> 63 == 0 || bits < 64 && k >> (bits - 1) == 0)
        });
        if let Some(k) = int_const {
            let width = bytes(r.t.component) * 8;
            let fits = match kind(r.t.component) {
                Kind::Float => return self.ids_op(Op::ConvertUToF, et, &[v]),
                Kind::Signed => width == 64 || k >> (width - 1) == 0,
                Kind::Unsigned => width == 64 || k >> width == 0,
            };
            if fits && self.scalar_bits(from) != Some(width) {
                let ut = self.cx.uint(width);
                let u = self.ids_op(Op::UConvert, ut, &[v])?;
                return if ut == et { Ok(u) } else { self.ids_op(Op::Bitcast, et, &[u]) };
            }
        }
        match (self.is_float_ty(from), kind(r.t.component)) {
            (true, Kind::Float) => self.ids_op(Op::FConvert, et, &[v]),
            (false, Kind::Signed | Kind::Unsigned) if self.scalar_bits(from) == Some(bytes(r.t.component) * 8) => {
                self.ids_op(Op::Bitcast, et, &[v])
            }
            _ => Err(self.form(
                c.op,
                "a value of another kind or width than the matrix's elements: D3D converts it with the LinAlg \
                 conversion rules (saturating), which need the value's signedness DXIL does not record",
            )),
        }
    }

    /// Element `e` of `r` as IR scalar type `to` (the inverse of [`Self::lm_to_element`]).
    fn lm_from_element(&mut self, c: &Call<'_>, e: Word, r: Reg, to: TypeId) -> Result<Word> {
        let t = self.cx.ty(to)?;
        let et = self.lm_component(c, r)?;
        if t == et {
            return Ok(e);
        }
        match (self.is_float_ty(to), kind(r.t.component)) {
            (true, Kind::Float) => self.ids_op(Op::FConvert, t, &[e]),
            (false, Kind::Signed | Kind::Unsigned) if self.scalar_bits(to) == Some(bytes(r.t.component) * 8) => {
                self.ids_op(Op::Bitcast, t, &[e])
            }
            _ => Err(self.invalid(c, "the result", "is not the matrix's element type")),
        }
    }

    /// `linAlgFillMatrix(value)`: a matrix of one value.
    fn lm_fill(&mut self, c: &Call<'_>) -> Result<Word> {
        let r = self.lm_reg(c, c.ty, "the result")?;
        let from = self.arg_ty(c, 0)?;
        let s = self.lm_to_element(c, self.arg(c, 0)?, from, r)?;
        self.ids_op(Op::CompositeConstruct, r.ty, &[s])
    }

    /// `linAlgMatrixGetElement(m, i)` / `linAlgMatrixSetElement(m, i, v)`, bounds-checked
    /// as D3D defines them.
    fn lm_element(&mut self, c: &Call<'_>) -> Result<Word> {
        let (r, m) = self.lm_operand(c, 0)?;
        let et = self.lm_component(c, r)?;
        let var = self.wmma_spill(r.ty, m)?;
        let (u, bool_t) = (self.cx.u32_t(), self.cx.bool_t());
        let len = self.ids_op(Op::CooperativeMatrixLengthKHR, u, &[r.ty])?;
        let index = self.arg_val(c, 1)?;
        let inside = self.ids_op(Op::ULessThan, bool_t, &[index, len])?;
        let zero = self.cx.const_u32(0);
        let at = self.ids_op(Op::Select, u, &[inside, index, zero])?;
        let pty = self.cx.ptr(StorageClass::Function, et);
        let ptr = self.ids_op(Op::AccessChain, pty, &[var, at])?;
        let old = self.ids_op(Op::Load, et, &[ptr])?;
        if c.op == DxOp::LinAlgMatrixGetElement {
            let e = self.lm_from_element(c, old, r, c.ty)?;
            let t = self.cx.ty(c.ty)?;
            let none = self.cx.null(t);
            return self.ids_op(Op::Select, t, &[inside, e, none]);
        }
        if self.arg_ty(c, 0)? != c.ty {
            return Err(self.invalid(c, "the result", "is not the matrix operand's type"));
        }
        let from = self.arg_ty(c, 2)?;
        let new = self.lm_to_element(c, self.arg(c, 2)?, from, r)?;
        let chosen = self.ids_op(Op::Select, et, &[inside, new, old])?;
        self.ids_void(Op::Store, &[ptr, chosen])?;
        self.ids_op(Op::Load, r.ty, &[var])
    }

    /// `linAlgMatrixMultiply(a, b)` / `linAlgMatrixMultiplyAccumulate(a, b, c)`:
    /// `OpCooperativeMatrixMulAddKHR` (a zero accumulator for the product alone).
    fn lm_multiply(&mut self, c: &Call<'_>) -> Result<Word> {
        let out = self.lm_reg(c, c.ty, "the result")?;
        let (a, am) = self.lm_operand(c, 0)?;
        let (b, bm) = self.lm_operand(c, 1)?;
        let (acc, cm) = if c.op == DxOp::LinAlgMatrixMultiplyAccumulate {
            let (acc, cm) = self.lm_operand(c, 2)?;
            if acc.t != out.t {
                return Err(self.invalid(c, "operand 2", "the accumulator has the result's type"));
            }
            (acc, cm)
        } else {
            let et = self.lm_component(c, out)?;
            let zero = self.cx.null(et);
            (out, self.ids_op(Op::CompositeConstruct, out.ty, &[zero])?)
        };
        let (ta, tb, tc) = (a.t, b.t, out.t);
        let shapes = ta.m == tc.m && tb.n == tc.n && ta.n == tb.m;
        let uses = (ta.use_, tb.use_, tc.use_) == (MatrixUse::A, MatrixUse::B, MatrixUse::Accumulator);
        let scopes = ta.scope == tc.scope && tb.scope == tc.scope;
        if !(shapes && uses && scopes) {
            return Err(self.invalid(
                c,
                "the operands",
                "a product takes an M x K A matrix and a K x N B matrix of the result's scope into an M x N accumulator",
            ));
        }
        let mut operands = CooperativeMatrixOperands::NONE_KHR;
        for (t, flag) in [
            (ta, CooperativeMatrixOperands::MATRIX_A_SIGNED_COMPONENTS_KHR),
            (tb, CooperativeMatrixOperands::MATRIX_B_SIGNED_COMPONENTS_KHR),
            (acc.t, CooperativeMatrixOperands::MATRIX_C_SIGNED_COMPONENTS_KHR),
            (tc, CooperativeMatrixOperands::MATRIX_RESULT_SIGNED_COMPONENTS_KHR),
        ] {
            if kind(t.component) == Kind::Signed {
                operands |= flag;
            }
        }
        let mut ids = vec![am, bm, cm];
        if !operands.is_empty() {
            ids.push(operands.bits());
        }
        self.ids_op(Op::CooperativeMatrixMulAddKHR, out.ty, &ids)
    }

    /// `linAlgCopyConvertMatrix(m, transpose)`: a component conversion, a use change
    /// (accumulator → A/B) and a transpose (accumulator → B), as SPIR-V has them.
    fn lm_copy_convert(&mut self, c: &Call<'_>) -> Result<Word> {
        let out = self.lm_reg(c, c.ty, "the result")?;
        let (src, mut m) = self.lm_operand(c, 0)?;
        let transpose = self.arg_const(c, 1)? != 0;
        let (s, d) = (src.t, out.t);
        let dims = if transpose { (s.n, s.m) } else { (s.m, s.n) };
        if s.scope != d.scope || dims != (d.m, d.n) {
            return Err(self.invalid(
                c,
                "the result",
                "the copy has the source's scope and its dimensions (swapped when transposed)",
            ));
        }
        let convert = conversion(s.component, d.component)
            .map_err(|why| self.form(c.op, format!("{why}: Vulkan has no saturating cooperative-matrix conversion")))?;
        let use_change = s.use_ != d.use_;
        if transpose && !(s.use_ == MatrixUse::Accumulator && d.use_ == MatrixUse::B) {
            return Err(self.form(
                c.op,
                "a transposing copy other than accumulator → B: OpCooperativeMatrixTransposeNV \
                 (SPV_NV_cooperative_matrix2) transposes only that",
            ));
        }
        if use_change && s.use_ != MatrixUse::Accumulator {
            return Err(self.form(
                c.op,
                "a copy from an A or B matrix to another use: SPIR-V converts only accumulators to A or B \
                 (SPV_NV_cooperative_matrix2's OpCooperativeMatrixConvertNV and relaxed conversions)",
            ));
        }
        if use_change {
            self.cx.extension("SPV_NV_cooperative_matrix2");
            self.cx.capability(Capability::CooperativeMatrixConversionsNV);
        }
        // Convert the components in the source's use (or straight into the result's when
        // only the use changes besides), then change the use.
        let mid = if transpose || convert.is_none() { MatrixType { component: d.component, ..s } } else { d };
        if let Some(op) = convert {
            let mt = self.cx.linalg_matrix_type(mid).map_err(|e| self.form(c.op, e))?;
            m = self.ids_op(op, mt, &[m])?;
        }
        if transpose {
            return self.ids_op(Op::CooperativeMatrixTransposeNV, out.ty, &[m]);
        }
        if use_change && convert.is_none() {
            return self.ids_op(Op::CooperativeMatrixConvertNV, out.ty, &[m]);
        }
        Ok(m)
    }
}
