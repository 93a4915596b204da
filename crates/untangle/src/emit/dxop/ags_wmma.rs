//! AMD AGS WMMA (wave matrix) intrinsics → `SPV_KHR_cooperative_matrix` (16x16 matrices at
//! `Subgroup` scope), with `SPV_NV_cooperative_matrix2` where KHR has no form, and
//! `SPV_EXT_float8` component types for FP8/BF8 matrices.
//!
//! A matrix travels through AGS's magic UAV as 8 words: input calls pass two words each
//! (`MatrixIo` channel/reg), output calls return one each. Those words are opaque: the
//! matrix lives in the driver's registers. Here a matrix is one cooperative-matrix SSA id;
//! each output call is recorded in [`Wmma::words`] as (matrix id, type, word index) and
//! defined as an undefined `u32`, and an input call must pass words `2k` and `2k + 1` of one
//! recorded matrix, in order. [`FnEmit::wmma_check_words`] (run once per function, before
//! any WMMA call is lowered) refuses a word that reaches anything but a magic-UAV call
//! (a PHI, memory, arithmetic), naming the instruction: those would lose the matrix.
//!
//! | AGS | SPIR-V |
//! |---|---|
//! | `WaveMatrixUavLoad` / `UavStore` (doorbell, buffer load naming the buffer, type) | `OpCooperativeMatrixLoadKHR` / `StoreKHR` through the buffer's byte view, byte offset and stride; layout from the type's column-major bit |
//! | `WaveMatrixLdsLoad` / `LdsStore` (doorbell, `InterlockedAdd(LDS[doorbell], 0)`) | the same on the groupshared element the atomic names, stride in 32-bit elements; the atomic is not emitted |
//! | `WaveMatrixMulAcc` | `OpCooperativeMatrixMulAddKHR` (signed operands flagged for int8) |
//! | `WaveMatrixFill` | `OpCompositeConstruct` of the value's low bits as the component type |
//! | `WaveMatrixLength` | `OpCooperativeMatrixLengthKHR` |
//! | `WaveMatrixCopy` (type conversion) | `OpFConvert` (format), `OpCooperativeMatrixConvertNV` (accumulator → A/B; `cooperative_matrix2`) |
//!
//! The doorbell (phase 0 of a load or store) returns its offset; the buffer load or LDS
//! atomic at that address only names the memory and is replaced by an undefined value.
//! Refused with a typed error naming the instruction: shapes other than 16x16, BF16 and
//! int4 formats, FP8/BF8 without `Options::vendor.float8` (naming `VK_EXT_shader_float8`),
//! use changes other than accumulator → A/B, element extract/fill and element-wise
//! arithmetic, matrix words through PHIs or memory.
//! Cost: one pass over the function's instructions, then a few instructions per intrinsic.

use crate::dxil::ags::{self, DataFormat, MatrixIo, MatrixType, MatrixUse, Opcode};
use crate::dxil::DxOp;
use crate::emit::error::{Result, VendorRefusal};
use crate::emit::{Call, FnEmit, Memory, Open};
use crate::ir::{InstId, InstKind, Value};
use rspirv::spirv::{Capability, Op, Scope, StorageClass, Word};
use std::collections::HashSet;

impl<'a, 'm> FnEmit<'a, 'm> {
    fn wmma_refuse(&self, op: Opcode, why: impl Into<String>) -> crate::emit::error::Error {
        crate::emit::error::Error::VendorExtension {
            vendor: "AMD AGS",
            instruction: op.to_string(),
            reason: VendorRefusal::NotLowered(why.into()),
        }
    }

    fn wmma_malformed(&self, op: Opcode, phase: u32, what: &str) -> crate::emit::error::Error {
        crate::emit::error::Error::VendorExtension {
            vendor: "AMD AGS",
            instruction: op.to_string(),
            reason: VendorRefusal::Malformed(ags::AgsError::Phase { opcode: op, phase, what: what.into() }),
        }
    }

    /// The cooperative-matrix type of `t` (capabilities declared; unsupported formats and
    /// shapes refused for `op`).
    fn coopmat_type(&mut self, op: Opcode, t: MatrixType) -> Result<Word> {
        let vendor = self.iface.stage.vendor;
        if !vendor.cooperative_matrix {
            return Err(crate::emit::error::Error::VendorExtension {
                vendor: "AMD AGS",
                instruction: op.to_string(),
                reason: VendorRefusal::MissingFeature {
                    feature: "cooperativeMatrix (VK_KHR_cooperative_matrix)",
                    option: "cooperative_matrix",
                },
            });
        }
        if t.shape != (16, 16) {
            return Err(self.wmma_refuse(op, format!("{}x{} matrices (only 16x16 is lowered)", t.shape.0, t.shape.1)));
        }
        let component = match t.format {
            DataFormat::F16 => self.cx.float(16),
            DataFormat::F32 => self.cx.float(32),
            DataFormat::I32 => self.cx.sint(32),
            DataFormat::U32 => self.cx.u32_t(),
            DataFormat::I8 => self.cx.sint(8),
            DataFormat::U8 => self.cx.uint(8),
            DataFormat::Fp8 | DataFormat::Bf8 => {
                if !vendor.float8 {
                    return Err(crate::emit::error::Error::VendorExtension {
                        vendor: "AMD AGS",
                        instruction: op.to_string(),
                        reason: VendorRefusal::MissingFeature {
                            feature: "shaderFloat8CooperativeMatrix (VK_EXT_shader_float8)",
                            option: "float8",
                        },
                    });
                }
                self.cx.extension("SPV_EXT_float8");
                self.cx.capability(Capability::Float8EXT);
                self.cx.capability(Capability::Float8CooperativeMatrixEXT);
                self.cx.float8(t.format == DataFormat::Bf8)
            }
            f @ (DataFormat::BF16 | DataFormat::I4 | DataFormat::U4) => {
                return Err(self.wmma_refuse(op, format!("{f:?} matrices are not lowered")))
            }
        };
        self.cx.extension("SPV_KHR_cooperative_matrix");
        self.cx.capability(Capability::CooperativeMatrixKHR);
        // SPV_KHR_cooperative_matrix requires the Vulkan memory model with `Shader`.
        self.cx.capability(Capability::VulkanMemoryModel);
        self.cx.b.vulkan_memory_model = true;
        let scope = self.cx.const_u32(Scope::Subgroup as u32);
        let sixteen = self.cx.const_u32(16);
        let usage = self.cx.const_u32(match t.usage {
            MatrixUse::A => 0,
            MatrixUse::B => 1,
            MatrixUse::Accumulator => 2,
        });
        Ok(self.cx.b.type_cooperative_matrix_khr(component, scope, sixteen, sixteen, usage))
    }

    /// Refuses matrix words that reach anything but a magic-UAV call (once per function).
    fn wmma_check_words(&mut self) -> Result<()> {
        if self.wmma.checked {
            return Ok(());
        }
        self.wmma.checked = true;
        let m = self.cx.m;
        let magic: HashSet<InstId> =
            self.f.insts.iter().filter(|(_, inst)| wmma_word(m, &inst.kind).is_some()).map(|(i, _)| i).collect();
        let outputs: HashSet<InstId> = self
            .f
            .insts
            .iter()
            .filter(|(_, inst)| wmma_word(m, &inst.kind).is_some_and(is_output))
            .map(|(i, _)| i)
            .collect();
        for (i, inst) in self.f.insts.iter() {
            if magic.contains(&i) {
                continue;
            }
            let mut bad = None;
            inst.kind.for_each_operand(|v| {
                if let Value::Inst(x) = v {
                    if outputs.contains(&x) {
                        bad = Some(x);
                    }
                }
            });
            if let Some(x) = bad {
                let op = wmma_word(m, &self.f.insts[x].kind).and_then(|w| ags::decode(w).ok()).map(|d| d.opcode);
                let what = match &inst.kind {
                    InstKind::Phi { .. } => "a PHI",
                    InstKind::Store { .. } => "a store to memory",
                    _ => "an instruction other than a WMMA intrinsic",
                };
                return Err(self.wmma_refuse(
                    op.unwrap_or(Opcode::WaveMatrixCopy),
                    format!(
                        "a matrix word flows into {what} ({i:?}): matrices through PHIs and memory are not lowered"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A call whose address is the open WMMA load or store's doorbell: it names the buffer
    /// and is replaced by an undefined value of its type.
    pub(super) fn wmma_buffer_hook(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        let Some(open) = self.wmma.open.as_ref() else { return Ok(None) };
        let Some(door) = open.doorbell else { return Ok(None) };
        if !matches!(c.op, DxOp::RawBufferLoad | DxOp::BufferLoad) || c.args.get(1) != Some(&Value::Inst(door)) {
            return Ok(None);
        }
        let opcode = open.opcode;
        let Some(mem) = open.memory else { return Ok(None) };
        let h = self.handle(self.arg(c, 0)?)?;
        let rv = self.res_var(h)?;
        if h.heap.is_some() || !matches!(rv.shape, crate::emit::ResShape::Words { .. }) {
            return Err(self.wmma_refuse(opcode, "only raw and structured buffers bound by register are lowered"));
        }
        let view = self.res.bytes8(self.cx, h.class, h.id)?;
        let var = self.element_ptr(h, &view)?;
        let u = self.cx.u32_t();
        let offset = match self.buffer_range(h)? {
            None => mem.offset,
            Some((first, _)) => {
                let four = self.cx.const_u32(4);
                let base = self.ids_op(Op::IMul, u, &[first, four])?;
                self.ids_op(Op::IAdd, u, &[base, mem.offset])?
            }
        };
        let u8t = self.cx.uint(8);
        let pty = self.cx.ptr(view.storage, u8t);
        let zero = self.cx.const_u32(0);
        let ptr = self.ids_op(Op::AccessChain, pty, &[var, zero, offset])?;
        let open = self.wmma.open.as_mut().expect("checked above");
        open.memory = Some(Memory { ptr: Some((ptr, false)), ..mem });
        open.hook = Some(c.inst);
        let t = self.cx.ty(c.ty)?;
        Ok(Some(self.cx.undef(t)))
    }

    /// An `atomicrmw` on groupshared memory at the open WMMA LDS load or store's doorbell:
    /// it names the memory (its pointer) and is replaced by an undefined value.
    pub(in crate::emit) fn wmma_lds_hook(
        &mut self,
        i: InstId,
        ptr: Value,
        ty: crate::ir::TypeId,
    ) -> Result<Option<Word>> {
        let Some(open) = self.wmma.open.as_ref() else { return Ok(None) };
        let (Some(door), Some(mem)) = (open.doorbell, open.memory) else { return Ok(None) };
        let Value::Inst(g) = ptr else { return Ok(None) };
        let names = matches!(&self.f.insts[g].kind, InstKind::GetElementPtr { indices, .. } if indices.last() == Some(&Value::Inst(door)));
        if !names || !matches!(open.opcode, Opcode::WaveMatrixLdsLoad | Opcode::WaveMatrixLdsStore) {
            return Ok(None);
        }
        let opcode = open.opcode;
        let (p, class) = self.pointer(ptr)?;
        if class != StorageClass::Workgroup {
            return Err(self.wmma_refuse(opcode, "the doorbell's atomic is not on groupshared memory"));
        }
        let open = self.wmma.open.as_mut().expect("checked above");
        open.memory = Some(Memory { ptr: Some((p, true)), ..mem });
        open.hook = Some(i);
        let t = self.cx.ty(ty)?;
        Ok(Some(self.cx.undef(t)))
    }

    /// `src0`/`src1` of an input call: words `2k`, `2k + 1` of one matrix.
    fn wmma_input(&mut self, c: &Call<'_>, op: Opcode, io: MatrixIo) -> Result<()> {
        let k = io.input_word().ok_or_else(|| self.wmma_malformed(op, 0, "passes a register out of range"))?;
        let word = |fe: &Self, a: usize| -> Option<(Word, MatrixType, u32)> {
            match c.args.get(a) {
                Some(Value::Inst(x)) => fe.wmma.words.get(x).copied(),
                _ => None,
            }
        };
        let (w0, w1) = (word(self, 4), word(self, 5));
        let (Some((m0, t0, k0)), Some((m1, _, k1))) = (w0, w1) else {
            return Err(self.wmma_refuse(op, "an operand is not a word of a matrix an AGS intrinsic returned"));
        };
        if m0 != m1 || k0 != k || k1 != k + 1 {
            return Err(self.wmma_refuse(op, format!("words {k0} and {k1} are passed as words {k} and {}", k + 1)));
        }
        let open = self.wmma.open.as_mut().expect("open");
        match open.inputs.iter_mut().find(|(kind, ..)| *kind == io.kind) {
            Some((_, m, _, n)) if *m == m0 && *n == k / 2 => *n += 1,
            Some(_) => {
                return Err(self.wmma_refuse(op, "a matrix's words come from different matrices or out of order"))
            }
            None if k == 0 => open.inputs.push((io.kind, m0, t0, 1)),
            None => return Err(self.wmma_refuse(op, "a matrix's words come out of order")),
        }
        Ok(())
    }

    /// The matrix passed in register kind `kind` (all 4 input calls seen).
    fn wmma_operand(&self, op: Opcode, kind: u32) -> Result<(Word, MatrixType)> {
        let open = self.wmma.open.as_ref().expect("open");
        match open.inputs.iter().find(|(k, ..)| *k == kind) {
            Some(&(_, m, t, 4)) => Ok((m, t)),
            _ => Err(self.wmma_malformed(op, 0, "does not pass all 8 words of its matrix")),
        }
    }

    /// Lowers one WMMA call (`word` decoded as `inst`).
    pub(super) fn wmma_op(&mut self, c: &Call<'_>, inst: ags::Instruction) -> Result<Word> {
        use Opcode::*;
        self.wmma_check_words()?;
        let op = inst.opcode;
        let u = self.cx.u32_t();
        let undef = self.cx.undef(u);
        let starts = inst.phase == 0;
        let continuing = self.wmma.open.as_ref().is_some_and(|o| o.opcode == op);
        if !continuing || (starts && self.wmma.open.as_ref().is_some_and(|o| o.result.is_some())) {
            if let Some(o) = &self.wmma.open {
                if o.opcode != op || o.result.is_some() {
                    return Err(self.wmma_malformed(o.opcode, inst.phase, "is left incomplete by the next intrinsic"));
                }
            }
            if !starts {
                return Err(self.wmma_malformed(op, inst.phase, "comes without phase 0"));
            }
            self.wmma.open =
                Some(Open { opcode: op, inputs: Vec::new(), memory: None, doorbell: None, hook: None, result: None });
        }
        let ty_of = |fe: &Self, code: u32| MatrixType::decode(op, code).map_err(|e| fe.wmma_malformed_from(op, e));
        match (op, inst.phase) {
            (WaveMatrixLength, 0) => {
                let t = ty_of(self, inst.data)?;
                let mt = self.coopmat_type(op, t)?;
                self.wmma.open = None;
                return self.ids_op(Op::CooperativeMatrixLengthKHR, u, &[mt]);
            }
            (WaveMatrixUavLoad | WaveMatrixUavStore | WaveMatrixLdsLoad | WaveMatrixLdsStore, 0) => {
                let (offset, stride) = (self.arg_val(c, 4)?, self.arg_val(c, 5)?);
                let o = self.wmma.open.as_mut().expect("open");
                if o.doorbell.is_some() {
                    return Err(self.wmma_malformed(op, 0, "rings the doorbell twice"));
                }
                o.doorbell = Some(c.inst);
                o.memory = Some(Memory { offset, stride, ptr: None });
                return Ok(offset);
            }
            (WaveMatrixUavLoad | WaveMatrixLdsLoad, 1) | (WaveMatrixUavStore | WaveMatrixLdsStore, 2) => {
                let t = ty_of(self, inst.data)?;
                let o = self.wmma.open.as_ref().expect("open");
                let hooked = match (c.args.get(4), o.hook) {
                    (Some(Value::Inst(h)), Some(hook)) => {
                        *h == hook
                            || matches!(&self.f.insts[*h].kind, InstKind::ExtractValue { aggregate: Value::Inst(a), .. } if *a == hook)
                    }
                    _ => false,
                };
                let Some(Memory { stride, ptr: Some((ptr, lds)), .. }) = o.memory.filter(|_| hooked) else {
                    return Err(self.wmma_malformed(
                        op,
                        inst.phase,
                        "comes without the memory access that names its buffer",
                    ));
                };
                let mt = self.coopmat_type(op, t)?;
                let layout = self.cx.const_u32(u32::from(t.column_major));
                if lds {
                    // AGS issues no barrier around its LDS matrix accesses; the subgroup's
                    // lanes share the memory.
                    self.wmma_subgroup_barrier()?;
                }
                if matches!(op, WaveMatrixUavLoad | WaveMatrixLdsLoad) {
                    let m = self.ids_op(Op::CooperativeMatrixLoadKHR, mt, &[ptr, layout, stride])?;
                    if lds {
                        self.wmma_subgroup_barrier()?;
                    }
                    self.wmma.open.as_mut().expect("open").result = Some((m, t, 0));
                } else {
                    let (m, mt0) = self.wmma_operand(op, 0)?;
                    if mt0.format != t.format || mt0.usage != t.usage {
                        return Err(self.wmma_refuse(op, "stores a matrix as another type"));
                    }
                    self.ids_void(Op::CooperativeMatrixStoreKHR, &[ptr, m, layout, stride])?;
                    if lds {
                        self.wmma_subgroup_barrier()?;
                    }
                    self.wmma.open = None;
                }
                return Ok(undef);
            }
            (WaveMatrixUavStore | WaveMatrixLdsStore, 1) | (WaveMatrixMulAcc | WaveMatrixCopy, 0) => {
                let io = MatrixIo::decode(inst.data);
                if op == WaveMatrixCopy && self.arg_const(c, 4).is_ok() && self.arg_const(c, 5).is_ok() {
                    // `WMMA_Convert`'s opening call passes nothing.
                    return Ok(undef);
                }
                self.wmma_input(c, op, io)?;
                return Ok(undef);
            }
            (WaveMatrixMulAcc, 1) => {
                let Some((fa, fb, fc)) = ags::mul_acc_formats(inst.data & 0x7f) else {
                    return Err(
                        self.wmma_refuse(op, format!("multiply-add form 0x{:02x} is not lowered", inst.data & 0x7f))
                    );
                };
                let (a, ta) = self.wmma_operand(op, 1)?;
                let (b, tb) = self.wmma_operand(op, 2)?;
                let (cm, tc) = self.wmma_operand(op, 3)?;
                if (ta.format, tb.format, tc.format) != (fa, fb, fc)
                    || (ta.usage, tb.usage, tc.usage) != (MatrixUse::A, MatrixUse::B, MatrixUse::Accumulator)
                {
                    return Err(self.wmma_refuse(op, "its operands' types are not the multiply-add form's"));
                }
                let rt = self.coopmat_type(op, tc)?;
                let mut operands = 0;
                if fa == DataFormat::I8 {
                    operands |= 1;
                }
                if fb == DataFormat::I8 {
                    operands |= 2;
                }
                if fc == DataFormat::I32 {
                    operands |= 4 | 8;
                }
                let m = if operands == 0 {
                    self.ids_op(Op::CooperativeMatrixMulAddKHR, rt, &[a, b, cm])?
                } else {
                    self.ids_op(Op::CooperativeMatrixMulAddKHR, rt, &[a, b, cm, operands])?
                };
                self.wmma.open.as_mut().expect("open").result = Some((m, tc, 0));
                return Ok(undef);
            }
            (WaveMatrixFill, 0) => {
                let t = ty_of(self, inst.data)?;
                let mt = self.coopmat_type(op, t)?;
                let v = self.arg_val(c, 4)?;
                let s = self.wmma_scalar(op, t.format, v)?;
                let m = self.ids_op(Op::CompositeConstruct, mt, &[s])?;
                self.wmma.open.as_mut().expect("open").result = Some((m, t, 0));
                return Ok(undef);
            }
            (WaveMatrixCopy, 1) => {
                let tin = ty_of(self, inst.data)?;
                let code =
                    self.arg_const(c, 4).map_err(|_| self.wmma_refuse(op, "the output type is not a constant"))?;
                let tout = ty_of(self, code as u32)?;
                let saturate =
                    self.arg_const(c, 5).map_err(|_| self.wmma_refuse(op, "saturation is not a constant"))? != 0;
                let (m, t) = self.wmma_operand(op, 0)?;
                if t.format != tin.format || t.usage != tin.usage {
                    return Err(self.wmma_refuse(op, "converts a matrix of another type"));
                }
                let m = self.wmma_convert(op, m, tin, tout, saturate)?;
                self.wmma.open.as_mut().expect("open").result = Some((m, tout, 0));
                return Ok(undef);
            }
            _ => {}
        }
        // Output calls: phase 2 (phase 1 for fill) returns the result's words in order.
        let out_phase = if op == WaveMatrixFill { 1 } else { 2 };
        let o = self.wmma.open.as_mut().expect("open");
        match o.result.as_mut() {
            Some((m, t, n)) if inst.phase == out_phase => {
                let io = MatrixIo::decode(inst.data);
                if io.output_word() != Some(*n) {
                    return Err(self.wmma_malformed(op, inst.phase, "returns a matrix's words out of order"));
                }
                let entry = (*m, *t, *n);
                *n += 1;
                if *n == 8 {
                    self.wmma.open = None;
                }
                self.wmma.words.insert(c.inst, entry);
                Ok(undef)
            }
            _ => match op {
                WaveMatrixElementExtract
                | WaveMatrixElementFill
                | MatrixElementWiseArithmetic
                | MatrixSparsityIndexLoad
                | WaveMatrixGlobalLoad
                | WaveMatrixGlobalStore => Err(self
                    .wmma_refuse(op, "not lowered (element access, element-wise arithmetic, global and sparse forms)")),
                _ => Err(self.wmma_malformed(op, inst.phase, "comes out of order")),
            },
        }
    }

    fn wmma_malformed_from(&self, op: Opcode, e: ags::AgsError) -> crate::emit::error::Error {
        crate::emit::error::Error::VendorExtension {
            vendor: "AMD AGS",
            instruction: op.to_string(),
            reason: VendorRefusal::Malformed(e),
        }
    }

    /// At the end of a function: a WMMA intrinsic left incomplete is malformed.
    pub(super) fn wmma_finish(&self) -> Result<()> {
        match &self.wmma.open {
            Some(o) => Err(self.wmma_malformed(o.opcode, 0, "is left incomplete: the function ends first")),
            None => Ok(()),
        }
    }

    fn wmma_subgroup_barrier(&mut self) -> Result<()> {
        let sg = self.cx.const_u32(Scope::Subgroup as u32);
        // AcquireRelease | WorkgroupMemory.
        let sem = self.cx.const_u32(0x8 | 0x100);
        self.ids_void(Op::ControlBarrier, &[sg, sg, sem])
    }

    /// A 32-bit word's low bits as a component of `format`.
    fn wmma_scalar(&mut self, op: Opcode, format: DataFormat, v: Word) -> Result<Word> {
        Ok(match format {
            DataFormat::F32 => {
                let f = self.cx.float(32);
                self.ids_op(Op::Bitcast, f, &[v])?
            }
            DataFormat::U32 => v,
            DataFormat::I32 => {
                let i = self.cx.sint(32);
                self.ids_op(Op::Bitcast, i, &[v])?
            }
            DataFormat::F16 => {
                let h = self.cx.float(16);
                let h2 = self.cx.vec(h, 2);
                let pair = self.ids_op(Op::Bitcast, h2, &[v])?;
                self.ids_op(Op::CompositeExtract, h, &[pair, 0])?
            }
            DataFormat::I8 | DataFormat::U8 | DataFormat::Fp8 | DataFormat::Bf8 => {
                let u8t = self.cx.uint(8);
                let b = self.ids_op(Op::UConvert, u8t, &[v])?;
                match format {
                    DataFormat::U8 => b,
                    DataFormat::I8 => {
                        let i8t = self.cx.sint(8);
                        self.ids_op(Op::Bitcast, i8t, &[b])?
                    }
                    _ => {
                        let f8 = self.cx.float8(format == DataFormat::Bf8);
                        self.ids_op(Op::Bitcast, f8, &[b])?
                    }
                }
            }
            f => return Err(self.wmma_refuse(op, format!("{f:?} fill values are not lowered"))),
        })
    }

    /// `WaveMatrixCopy`: format conversion (same use), then accumulator → A/B.
    fn wmma_convert(&mut self, op: Opcode, m: Word, tin: MatrixType, tout: MatrixType, saturate: bool) -> Result<Word> {
        if tin.shape != tout.shape {
            return Err(self.wmma_refuse(op, "converts between shapes"));
        }
        let mut m = m;
        if tin.format != tout.format {
            if !tin.format.is_float() || !tout.format.is_float() {
                return Err(self.wmma_refuse(op, "integer matrix conversions are not lowered"));
            }
            let mid = MatrixType { format: tout.format, ..tin };
            let mt = self.coopmat_type(op, mid)?;
            m = self.ids_op(Op::FConvert, mt, &[m])?;
            if saturate && tout.format.is_float8() {
                self.cx.decorate(m, rspirv::spirv::Decoration::SaturatedToLargestFloat8NormalConversionEXT, &[]);
            }
        }
        if tin.usage != tout.usage {
            if tin.usage != MatrixUse::Accumulator {
                return Err(self.wmma_refuse(
                    op,
                    format!("converts a {:?} matrix to {:?}: only accumulators change use", tin.usage, tout.usage),
                ));
            }
            if !self.iface.stage.vendor.cooperative_matrix2 {
                return Err(crate::emit::error::Error::VendorExtension {
                    vendor: "AMD AGS",
                    instruction: op.to_string(),
                    reason: VendorRefusal::MissingFeature {
                        feature: "cooperativeMatrixConversions (VK_NV_cooperative_matrix2)",
                        option: "cooperative_matrix2",
                    },
                });
            }
            self.cx.extension("SPV_NV_cooperative_matrix2");
            self.cx.capability(Capability::CooperativeMatrixConversionsNV);
            let mt = self.coopmat_type(op, tout)?;
            m = self.ids_op(Op::CooperativeMatrixConvertNV, mt, &[m])?;
        }
        Ok(m)
    }
}

/// The constant AGS instruction word of a magic-UAV `atomicCompareExchange` call, if `kind`
/// is one whose opcode is in the WMMA family.
fn wmma_word(m: &crate::ir::Module, kind: &InstKind) -> Option<u32> {
    let InstKind::Call { callee: Value::Func(f), args } = kind else { return None };
    if !m.functions[*f].name.starts_with("dx.op.atomicCompareExchange") {
        return None;
    }
    let Some(Value::Const(k)) = args.get(2) else { return None };
    let w = m.constants.as_int(*k)? as u32;
    let d = ags::decode(w).ok()?;
    d.opcode.is_wave_matrix().then_some(w)
}

/// The call returns a matrix word.
fn is_output(word: u32) -> bool {
    let Ok(d) = ags::decode(word) else { return false };
    use Opcode::*;
    matches!(
        (d.opcode, d.phase),
        (WaveMatrixMulAcc | WaveMatrixUavLoad | WaveMatrixLdsLoad | WaveMatrixCopy | WaveMatrixElementFill, 2)
            | (WaveMatrixFill, 1)
    )
}
