//! AMD AGS WMMA (wave matrix) intrinsics → `SPV_KHR_cooperative_matrix` (16x16 matrices at
//! `Subgroup` scope), with `SPV_NV_cooperative_matrix2` where KHR has no form, and
//! `SPV_EXT_float8` component types for FP8/BF8 matrices.
//!
//! A matrix travels through AGS's magic UAV as 8 words: input calls pass two words each
//! (`MatrixIo` channel/reg), output calls return one each. Those words are opaque: the
//! matrix lives in the driver's registers. Here a matrix is one cooperative-matrix SSA id;
//! each output call is recorded in `Wmma::words` as (matrix id, type, word index) and
//! defined as an undefined `u32`, and an input call must pass words `2k` and `2k + 1` of one
//! recorded matrix, in order. PHIs may carry the words (`FnEmit::wmma_plan_carriers`):
//! the 8 PHIs of one matrix become one `Function` variable of the matrix type, stored at
//! the end of each predecessor and loaded on entry (their block's PHIs are never
//! `OpPhi`s). `FnEmit::wmma_check_words` (run once per function, before any WMMA call is
//! lowered) refuses a word that reaches anything else (memory, arithmetic, a PHI mixing
//! words), naming the instruction: those would lose the matrix.
//!
//! | AGS | SPIR-V |
//! |---|---|
//! | `WaveMatrixUavLoad` / `UavStore` (doorbell, buffer load naming the buffer, type) | `OpCooperativeMatrixLoadKHR` / `StoreKHR` through the buffer's byte view, byte offset and stride; layout from the type's column-major bit |
//! | `WaveMatrixLdsLoad` / `LdsStore` (doorbell, `InterlockedAdd(LDS[doorbell], 0)`) | the same on the groupshared element the atomic names, stride in 32-bit elements; the atomic is not emitted |
//! | `WaveMatrixGlobalLoad` / `GlobalStore` (phase 0: offset, stride; the type's phase: the 64-bit address's low, high words) | the same through a `PhysicalStorageBuffer` byte pointer at address + offset (`Aligned 16`, as Vulkan requires of cooperative-matrix pointers; `bufferDeviceAddress`) |
//! | `WaveMatrixMulAcc` | `OpCooperativeMatrixMulAddKHR` (signed operands flagged for int8) |
//! | `WaveMatrixFill` | `OpCompositeConstruct` of the value's low bits as the component type |
//! | `WaveMatrixLength` | `OpCooperativeMatrixLengthKHR`, divided by 4 for float8 (AGS counts words of four packed elements; vkd3d-proton's `test_wmma_matrix_length` expects 2 for 16x16 FP8 on wave32) |
//! | `WaveMatrixElementExtract` (4 input calls, phase 1: type, index) | `OpCompositeExtract` of invocation element `index` (f16: its bits zero-extended; 8-bit formats: elements `4 index .. 4 index + 3` packed low byte first); a dynamic index loads through a `Function` variable of the matrix |
//! | `WaveMatrixElementFill` (4 input calls, phase 1: type, index, value; 8 outputs) | `OpCompositeInsert` (or a store through the variable) of the same elements |
//! | `MatrixElementWiseArithmetic` (A and B inputs, phase 1: type, operation, 0) | `OpFAdd` / `OpFSub` / `OpFMul` / `OpFDiv` of the two matrices (f16, f32); `Times` multiplies (vkd3d-proton accepts a product or AMD's 0) |
//! | `WaveMatrixCopy` (type conversion) | `OpFConvert` (format), `OpCooperativeMatrixConvertNV` (accumulator → A/B with `cooperative_matrix2`); other use changes (B or A → accumulator, A ↔ B, accumulator → A/B without `cooperative_matrix2`, after the format conversion) store the matrix row major to the subgroup's slot of a groupshared scratch and load it as the new use: element (row, column) stays put, exactly |
//!
//! Element indices: SPIR-V leaves the mapping of a cooperative matrix's per-invocation
//! components to (row, column) implementation-dependent, and AGS's element index is the
//! same kind of per-lane register index (dxil-spirv maps it to the component index, with
//! four FP8 components a word). A shader whose result depends only on each element's
//! value (vkd3d-proton's extract/insert and element-wise tests) gets AMD's results; one
//! that assumes AMD's positions gets the device's positions.
//!
//! The doorbell (phase 0 of a load or store) returns its offset; the buffer load or LDS
//! atomic at that address only names the memory and is replaced by an undefined value.
//! Refused with a typed error naming the instruction: shapes other than 16x16, BF16 and
//! int4 formats, FP8/BF8 without `Options::vendor.float8` (naming `VK_EXT_shader_float8`),
//! use changes through memory outside compute shaders or
//! whose scratch (1 KiB a subgroup) would pass 16 KiB, element-wise arithmetic on other
//! formats, sparse forms, global-address forms without `Options::vendor.buffer_device_address`
//! (naming `bufferDeviceAddress`), and matrix words through memory other than
//! whole matrices in an `i32` alloca (`ags_wmma_memory.rs`: a `Function` array of matrices).
//! Cost: one pass over the function's instructions (and a fixed point over its PHIs),
//! then a few instructions per intrinsic; a dynamic element access spills the matrix.

use crate::dxil::ags::{self, DataFormat, MatrixIo, MatrixType, MatrixUse, Opcode};
use crate::dxil::DxOp;
use crate::emit::error::{Result, VendorRefusal};
use crate::emit::{Call, FnEmit, Memory, Open, SlotAccess};
use crate::ir::hash::HashMap;
use crate::ir::{BlockId, InstId, InstKind, Value};
use rspirv::spirv::{Capability, MemoryAccess, Op, Scope, StorageClass, Word};
use std::collections::HashSet;

impl<'a, 'm> FnEmit<'a, 'm> {
    fn wmma_refuse(&self, op: Opcode, why: impl Into<String>) -> crate::emit::error::Error {
        self.ags_error(op.to_string(), VendorRefusal::NotLowered(why.into()))
    }

    fn wmma_malformed(&self, op: Opcode, phase: u32, what: &str) -> crate::emit::error::Error {
        self.ags_error(
            op.to_string(),
            VendorRefusal::Malformed(ags::AgsError::Phase { opcode: op, phase, what: what.into() }),
        )
    }

    /// The cooperative-matrix type of `t` (capabilities declared; unsupported formats and
    /// shapes refused for `op`).
    pub(super) fn coopmat_type(&mut self, op: Opcode, t: MatrixType) -> Result<Word> {
        let vendor = self.iface.stage.vendor;
        self.ags_need(
            op,
            vendor.cooperative_matrix,
            "cooperativeMatrix (VK_KHR_cooperative_matrix)",
            "cooperative_matrix",
        )?;
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
                self.ags_need(op, vendor.float8, "shaderFloat8CooperativeMatrix (VK_EXT_shader_float8)", "float8")?;
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
        let mut outputs: HashSet<InstId> = self
            .f
            .insts
            .iter()
            .filter(|(_, inst)| wmma_word(m, &inst.kind).is_some_and(is_output))
            .map(|(i, _)| i)
            .collect();
        outputs.extend(self.wmma.carriers.keys().copied());
        outputs.extend(self.wmma.slots.iter().filter(|(_, a)| matches!(a, SlotAccess::Load { .. })).map(|(&i, _)| i));
        for (i, inst) in self.f.insts.iter() {
            if magic.contains(&i) || self.wmma.carriers.contains_key(&i) || self.wmma.slots.contains_key(&i) {
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
                    InstKind::Phi { .. } => {
                        "a PHI whose incoming values are not all the same word of whole matrices (or undefined)".into()
                    }
                    InstKind::Store { .. } => format!(
                        "a store to memory that is not a whole matrix in an alloca of matrices ({})",
                        self.wmma_slot_refusal(&inst.kind)
                    ),
                    _ => "an instruction other than a WMMA intrinsic".into(),
                };
                return Err(self.wmma_refuse(
                    op.unwrap_or(Opcode::WaveMatrixCopy),
                    format!("a matrix word flows into {what} ({i:?})"),
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
        let offset = self.view_byte_offset(h, mem.offset)?;
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
                let n = self.ids_op(Op::CooperativeMatrixLengthKHR, u, &[mt])?;
                if t.format.is_float8() {
                    // AGS packs four float8 elements in each word it counts.
                    let four = self.cx.const_u32(4);
                    return self.ids_op(Op::UDiv, u, &[n, four]);
                }
                return Ok(n);
            }
            (WaveMatrixGlobalLoad | WaveMatrixGlobalStore, 0) => {
                // Offset and stride; the address comes with the type, at the last phase.
                self.ags_need_addresses(op)?;
                let (offset, stride) = (self.arg_val(c, 4)?, self.arg_val(c, 5)?);
                let o = self.wmma.open.as_mut().expect("open");
                if o.memory.is_some() {
                    return Err(self.wmma_malformed(op, 0, "sets its offset and stride twice"));
                }
                o.memory = Some(Memory { offset, stride, ptr: None });
                return Ok(undef);
            }
            (WaveMatrixGlobalLoad, 1) | (WaveMatrixGlobalStore, 2) => {
                let t = ty_of(self, inst.data)?;
                let Some(Memory { offset, stride, .. }) = self.wmma.open.as_ref().expect("open").memory else {
                    return Err(self.wmma_malformed(op, inst.phase, "comes without phase 0's offset and stride"));
                };
                let (lo, hi) = (self.arg_val(c, 4)?, self.arg_val(c, 5)?);
                // A byte pointer, as the buffer forms' byte view: the stride counts bytes.
                self.cx.capability(Capability::StorageBuffer8BitAccess);
                let u8t = self.cx.uint(8);
                let ptr = self.ags_address(lo, hi, offset, u8t)?;
                self.wmma_memory_access(op, t, ptr, stride, Place::Physical)?;
                return Ok(undef);
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
                self.wmma_memory_access(op, t, ptr, stride, if lds { Place::Lds } else { Place::Buffer })?;
                return Ok(undef);
            }
            (WaveMatrixUavStore | WaveMatrixLdsStore | WaveMatrixGlobalStore, 1)
            | (
                WaveMatrixMulAcc
                | WaveMatrixCopy
                | WaveMatrixElementExtract
                | WaveMatrixElementFill
                | MatrixElementWiseArithmetic,
                0,
            ) => {
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
            (WaveMatrixElementExtract, 1) => {
                let (m, t) = self.wmma_element_operand(op, inst.data, 0)?;
                let index = self.arg_val(c, 4)?;
                let w = self.wmma_extract(op, m, t, index)?;
                self.wmma.open = None;
                return Ok(w);
            }
            (WaveMatrixElementFill, 1) => {
                let (m, t) = self.wmma_element_operand(op, inst.data, 0)?;
                let (index, data) = (self.arg_val(c, 4)?, self.arg_val(c, 5)?);
                let m = self.wmma_insert(op, m, t, index, data)?;
                self.wmma.open.as_mut().expect("open").result = Some((m, t, 0));
                return Ok(undef);
            }
            (MatrixElementWiseArithmetic, 1) => {
                let (a, t) = self.wmma_element_operand(op, inst.data, 1)?;
                let (b, _) = self.wmma_element_operand(op, inst.data, 2)?;
                let m = self.wmma_element_wise(c, op, t, a, b)?;
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
                MatrixSparsityIndexLoad => Err(self.wmma_refuse(op, "not lowered (sparse forms)")),
                _ => Err(self.wmma_malformed(op, inst.phase, "comes out of order")),
            },
        }
    }

    /// The load or store of a load/store intrinsic's last phase: matrix type `t` at `ptr`
    /// (stride `stride` in pointee elements), layout from the type. A load leaves its
    /// result for the output calls; a store closes the intrinsic.
    fn wmma_memory_access(&mut self, op: Opcode, t: MatrixType, ptr: Word, stride: Word, place: Place) -> Result<()> {
        let mt = self.coopmat_type(op, t)?;
        let layout = self.cx.const_u32(u32::from(t.column_major));
        let lds = place == Place::Lds;
        // `PhysicalStorageBuffer` accesses need `Aligned`: Vulkan requires a cooperative
        // matrix's pointer aligned to the lesser of 16 bytes and a row (column) of the matrix,
        // 16 bytes for every 16x16 format (VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986).
        let aligned: &[Word] = if place == Place::Physical { &[MemoryAccess::ALIGNED.bits(), 16] } else { &[] };
        if lds {
            // AGS issues no barrier around its LDS matrix accesses; the subgroup's lanes
            // share the memory.
            self.wmma_subgroup_barrier()?;
        }
        if matches!(op, Opcode::WaveMatrixUavLoad | Opcode::WaveMatrixLdsLoad | Opcode::WaveMatrixGlobalLoad) {
            let m = self.ids_op(Op::CooperativeMatrixLoadKHR, mt, &[&[ptr, layout, stride], aligned].concat())?;
            if lds {
                self.wmma_subgroup_barrier()?;
            }
            self.wmma.open.as_mut().expect("open").result = Some((m, t, 0));
        } else {
            let (m, mt0) = self.wmma_operand(op, 0)?;
            if mt0.format != t.format || mt0.usage != t.usage {
                return Err(self.wmma_refuse(op, "stores a matrix as another type"));
            }
            self.ids_void(Op::CooperativeMatrixStoreKHR, &[&[ptr, m, layout, stride], aligned].concat())?;
            if lds {
                self.wmma_subgroup_barrier()?;
            }
            self.wmma.open = None;
        }
        Ok(())
    }

    fn wmma_malformed_from(&self, op: Opcode, e: ags::AgsError) -> crate::emit::error::Error {
        self.ags_error(op.to_string(), VendorRefusal::Malformed(e))
    }

    /// At the end of a function: a WMMA intrinsic left incomplete is malformed.
    pub(super) fn wmma_finish(&mut self) -> Result<()> {
        if let Some(o) = &self.wmma.open {
            return Err(self.wmma_malformed(o.opcode, 0, "is left incomplete: the function ends first"));
        }
        let vars = std::mem::take(&mut self.wmma.late_vars);
        if !vars.is_empty() {
            self.cx.b.insert_function_variables(self.wmma.vars_at, &vars);
        }
        Ok(())
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

    /// `WaveMatrixCopy`: a format conversion (`OpFConvert`, same use) and a use change:
    /// accumulator → A/B by `OpCooperativeMatrixConvertNV` with `cooperative_matrix2`,
    /// any other through groupshared memory (`FnEmit::wmma_use_through_memory`). The
    /// move comes before the format conversion unless the input is float8 (so the scratch
    /// never holds a float8 accumulator) or an accumulator (converted in accumulator use
    /// first, as dxil-spirv does without NV conversions: A and B have no f32 form).
    fn wmma_convert(&mut self, op: Opcode, m: Word, tin: MatrixType, tout: MatrixType, saturate: bool) -> Result<Word> {
        if tin.shape != tout.shape {
            return Err(self.wmma_refuse(op, "converts between shapes"));
        }
        let (mut m, mut tin) = (m, tin);
        let from_accumulator = tin.usage == MatrixUse::Accumulator && tout.usage != MatrixUse::Accumulator;
        let by_memory = tin.usage != tout.usage && (!from_accumulator || !self.iface.stage.vendor.cooperative_matrix2);
        if by_memory && !tin.format.is_float8() && !from_accumulator {
            let moved = MatrixType { usage: tout.usage, ..tin };
            m = self.wmma_use_through_memory(op, m, tin, moved)?;
            tin = moved;
        }
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
            tin = mid;
        }
        if tin.usage != tout.usage {
            if by_memory {
                return self.wmma_use_through_memory(op, m, tin, tout);
            }
            self.cx.extension("SPV_NV_cooperative_matrix2");
            self.cx.capability(Capability::CooperativeMatrixConversionsNV);
            let mt = self.coopmat_type(op, tout)?;
            m = self.ids_op(Op::CooperativeMatrixConvertNV, mt, &[m])?;
        }
        Ok(m)
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    /// The matrix passed in register kind `kind` of an element operation whose type
    /// immediate is `code`: the types must agree in format and use.
    fn wmma_element_operand(&mut self, op: Opcode, code: u32, kind: u32) -> Result<(Word, MatrixType)> {
        let t = MatrixType::decode(op, code).map_err(|e| self.wmma_malformed_from(op, e))?;
        let (m, tm) = self.wmma_operand(op, kind)?;
        if tm.format != t.format || tm.usage != t.usage {
            return Err(self.wmma_refuse(op, "operates on a matrix as another type"));
        }
        Ok((m, t))
    }

    /// The component type of `t`'s cooperative matrix, and how many of its elements one
    /// AGS element word holds (four for 8-bit formats, packed low byte first, else one).
    fn wmma_element_type(&mut self, op: Opcode, t: MatrixType) -> Result<(Word, u32)> {
        Ok(match t.format {
            DataFormat::F32 => (self.cx.float(32), 1),
            DataFormat::F16 => (self.cx.float(16), 1),
            DataFormat::I32 => (self.cx.sint(32), 1),
            DataFormat::U32 => (self.cx.u32_t(), 1),
            DataFormat::I8 => (self.cx.sint(8), 4),
            DataFormat::U8 => (self.cx.uint(8), 4),
            DataFormat::Fp8 | DataFormat::Bf8 => (self.cx.float8(t.format == DataFormat::Bf8), 4),
            f => return Err(self.wmma_refuse(op, format!("{f:?} element access is not lowered"))),
        })
    }

    /// A `Function` variable of cooperative-matrix type `mt` holding `m` (dynamic element
    /// access: `OpAccessChain` is the only dynamic way into a cooperative matrix). Shared
    /// with the LinAlg register matrices (`linalg_matrix.rs`); the variables are declared at
    /// the function's end ([`Self::wmma_finish`]).
    pub(super) fn wmma_spill(&mut self, mt: Word, m: Word) -> Result<Word> {
        let pty = self.cx.ptr(StorageClass::Function, mt);
        let var = self.cx.b.id();
        self.wmma.late_vars.push((pty, var));
        self.ids_void(Op::Store, &[var, m])?;
        Ok(var)
    }

    /// Element indices `first + 0..n` of a constant first index, else `None`.
    fn wmma_const_indices(&self, index: Word, per_word: u32) -> Option<Vec<u32>> {
        let k = self.cx.const_value_u32(index)?;
        Some((0..per_word).map(|i| k * per_word + i).collect())
    }

    /// Pointers to the elements word `index` covers in variable `var`.
    fn wmma_element_ptrs(&mut self, var: Word, elem: Word, index: Word, per_word: u32) -> Result<Vec<Word>> {
        let u = self.cx.u32_t();
        let pty = self.cx.ptr(StorageClass::Function, elem);
        let n = self.cx.const_u32(per_word);
        let base = if per_word == 1 { index } else { self.ids_op(Op::IMul, u, &[index, n])? };
        (0..per_word)
            .map(|i| {
                let at = if i == 0 {
                    base
                } else {
                    let k = self.cx.const_u32(i);
                    self.ids_op(Op::IAdd, u, &[base, k])?
                };
                self.ids_op(Op::AccessChain, pty, &[var, at])
            })
            .collect()
    }

    /// `WaveMatrixElementExtract`: the word AGS returns for element word `index` of `m`:
    /// the element's bits (an f16 zero-extended), or four 8-bit elements packed.
    fn wmma_extract(&mut self, op: Opcode, m: Word, t: MatrixType, index: Word) -> Result<Word> {
        let (elem, per_word) = self.wmma_element_type(op, t)?;
        let elems: Vec<Word> = match self.wmma_const_indices(index, per_word) {
            Some(ks) => {
                ks.into_iter().map(|k| self.ids_op(Op::CompositeExtract, elem, &[m, k])).collect::<Result<_>>()?
            }
            None => {
                let mt = self.coopmat_type(op, t)?;
                let var = self.wmma_spill(mt, m)?;
                let ptrs = self.wmma_element_ptrs(var, elem, index, per_word)?;
                ptrs.into_iter().map(|p| self.ids_op(Op::Load, elem, &[p])).collect::<Result<_>>()?
            }
        };
        let u = self.cx.u32_t();
        match t.format {
            DataFormat::F16 => {
                let u16t = self.cx.uint(16);
                let bits = self.ids_op(Op::Bitcast, u16t, &[elems[0]])?;
                self.ids_op(Op::UConvert, u, &[bits])
            }
            _ if per_word == 4 => {
                let u8t = self.cx.uint(8);
                let bytes =
                    elems.into_iter().map(|e| self.ids_op(Op::Bitcast, u8t, &[e])).collect::<Result<Vec<_>>>()?;
                let v4 = self.cx.vec(u8t, 4);
                let v = self.ids_op(Op::CompositeConstruct, v4, &bytes)?;
                self.ids_op(Op::Bitcast, u, &[v])
            }
            _ => self.ids_op(Op::Bitcast, u, &[elems[0]]),
        }
    }

    /// `WaveMatrixElementFill`: `m` with element word `index` set from `data` (its low 16
    /// bits for f16, four packed bytes for 8-bit formats).
    fn wmma_insert(&mut self, op: Opcode, m: Word, t: MatrixType, index: Word, data: Word) -> Result<Word> {
        let (elem, per_word) = self.wmma_element_type(op, t)?;
        let values: Vec<Word> = match t.format {
            DataFormat::F16 => {
                let u16t = self.cx.uint(16);
                let bits = self.ids_op(Op::UConvert, u16t, &[data])?;
                vec![self.ids_op(Op::Bitcast, elem, &[bits])?]
            }
            _ if per_word == 4 => {
                let u8t = self.cx.uint(8);
                let v4 = self.cx.vec(u8t, 4);
                let v = self.ids_op(Op::Bitcast, v4, &[data])?;
                (0..4)
                    .map(|i| {
                        let b = self.ids_op(Op::CompositeExtract, u8t, &[v, i])?;
                        if elem == u8t {
                            Ok(b)
                        } else {
                            self.ids_op(Op::Bitcast, elem, &[b])
                        }
                    })
                    .collect::<Result<_>>()?
            }
            _ => vec![self.ids_op(Op::Bitcast, elem, &[data])?],
        };
        let mt = self.coopmat_type(op, t)?;
        match self.wmma_const_indices(index, per_word) {
            Some(ks) => {
                let mut m = m;
                for (k, v) in ks.into_iter().zip(values) {
                    m = self.ids_op(Op::CompositeInsert, mt, &[v, m, k])?;
                }
                Ok(m)
            }
            None => {
                let var = self.wmma_spill(mt, m)?;
                let ptrs = self.wmma_element_ptrs(var, elem, index, per_word)?;
                for (p, v) in ptrs.into_iter().zip(values) {
                    self.ids_void(Op::Store, &[p, v])?;
                }
                self.ids_op(Op::Load, mt, &[var])
            }
        }
    }

    /// `MatrixElementWiseArithmetic` (src0: the operation, src1: 0) on float matrices of
    /// 16 or 32 bits: `OpFAdd`, `OpFSub`, `OpFMul`, `OpFDiv`; `Times` is a multiply too
    /// (vkd3d-proton's test accepts a product or 0, which AMD returns).
    fn wmma_element_wise(&mut self, c: &Call<'_>, op: Opcode, t: MatrixType, a: Word, b: Word) -> Result<Word> {
        let which = self.arg_const(c, 4).map_err(|_| self.wmma_refuse(op, "the operation is not a constant"))?;
        if self.arg_const(c, 5).ok() != Some(0) {
            return Err(self.wmma_refuse(op, "its second source is not 0"));
        }
        let opcode = match ags::ElementWise::from_number(which as u32) {
            Some(ags::ElementWise::Add) => Op::FAdd,
            Some(ags::ElementWise::Sub) => Op::FSub,
            Some(ags::ElementWise::Mul | ags::ElementWise::Times) => Op::FMul,
            Some(ags::ElementWise::Div) => Op::FDiv,
            None => {
                return Err(self.wmma_malformed(op, 1, &format!("names no element-wise operation ({which})")));
            }
        };
        if !matches!(t.format, DataFormat::F16 | DataFormat::F32) {
            return Err(self.wmma_refuse(
                op,
                format!("{:?} element-wise arithmetic (SPIR-V has it for 16- and 32-bit floats only)", t.format),
            ));
        }
        let mt = self.coopmat_type(op, t)?;
        self.ids_op(opcode, mt, &[a, b])
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    /// A use change `OpCooperativeMatrixConvertNV` cannot make (to the accumulator, between
    /// A and B), exactly: the subgroup stores `m` to its slot of a groupshared scratch and
    /// loads it back as `tout`, both row major, so element (row, column) stays where it
    /// is. A slot is 256 words (a row of 16 elements of at most 32 bits each at a stride of
    /// 16 words), indexed by `SubgroupId`; the scratch has one slot per subgroup the group
    /// can have (`StageIo::max_subgroups`). Compute shaders only; refused
    /// when the scratch would pass 16 KiB (Vulkan's minimum `maxComputeSharedMemorySize`).
    fn wmma_use_through_memory(&mut self, op: Opcode, m: Word, t: MatrixType, tout: MatrixType) -> Result<Word> {
        const SLOT: u32 = 256;
        let slots = match (self.sm.kind, self.iface.stage.max_subgroups) {
            (crate::front::container::ShaderKind::Compute, Some(n)) => n,
            _ => {
                return Err(self.wmma_refuse(
                    op,
                    format!(
                        "changes a {:?} matrix to {:?} through groupshared memory, which needs a compute shader",
                        t.usage, tout.usage
                    ),
                ))
            }
        };
        if slots.saturating_mul(SLOT * 4) > 16 * 1024 {
            return Err(self.wmma_refuse(
                op,
                format!(
                    "changes a {:?} matrix to {:?} through {slots} subgroups' groupshared scratch (over 16 KiB; a [WaveSize] bounds the subgroups)",
                    t.usage, tout.usage
                ),
            ));
        }
        let u = self.cx.u32_t();
        let scratch = match self.wmma.scratch {
            Some(v) => v,
            None => {
                let n = self.cx.const_u32(slots * SLOT);
                let arr = self.cx.b.type_array(u, n);
                let v = self.cx.global_var(StorageClass::Workgroup, arr, "wmma_scratch");
                self.wmma.scratch = Some(v);
                v
            }
        };
        let id = self.ags_builtin(rspirv::spirv::BuiltIn::SubgroupId)?;
        let slot = self.cx.const_u32(SLOT);
        let base = self.ids_op(Op::IMul, u, &[id, slot])?;
        let pty = self.cx.ptr(StorageClass::Workgroup, u);
        let ptr = self.ids_op(Op::AccessChain, pty, &[scratch, base])?;
        let row_major = self.cx.const_u32(0);
        let stride = self.cx.const_u32(16);
        self.wmma_subgroup_barrier()?;
        self.ids_void(Op::CooperativeMatrixStoreKHR, &[ptr, m, row_major, stride])?;
        self.wmma_subgroup_barrier()?;
        let mt = self.coopmat_type(op, tout)?;
        let r = self.ids_op(Op::CooperativeMatrixLoadKHR, mt, &[ptr, row_major, stride])?;
        self.wmma_subgroup_barrier()?;
        Ok(r)
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    fn wmma_phi_refuse(&self, why: impl Into<String>) -> crate::emit::error::Error {
        self.ags_error("a PHI of WMMA matrix words".into(), VendorRefusal::NotLowered(why.into()))
    }

    /// Plans the PHIs that carry matrix words (`Wmma::carriers`), once per
    /// function before its variables. A PHI carries word `k` when each incoming value is
    /// word `k` of a matrix (an output call or another carrier) or undefined; it joins the
    /// group of the word-0 carrier of its block whose incoming matrices are the same on
    /// every edge. Resolved to a fixed point (a loop's PHIs read each other through the
    /// back edge last); a PHI left unresolved is refused by the word check. Cost: linear
    /// in the function per round, rounds bounded by the PHI nesting depth.
    pub(in crate::emit) fn wmma_plan_carriers(&mut self) {
        let (m, f) = (self.cx.m, self.f);
        // WMMA words travel through `atomicCompareExchange` calls only: a module that
        // declares none (nearly all) has nothing to plan, found without a pass over the
        // function.
        if !m.functions.values().any(|g| g.name.starts_with(WMMA_CARRIER)) {
            return;
        }
        let mut word: HashMap<InstId, (InstId, u32)> = HashMap::default();
        let mut any = false;
        for &b in &f.layout {
            let mut root = None;
            for &i in &f.blocks[b].insts {
                let Some(w) = wmma_word(m, &f.insts[i].kind) else { continue };
                any = true;
                if !is_output(w) {
                    continue;
                }
                let Some(k) = ags::decode(w).ok().and_then(|d| MatrixIo::decode(d.data).output_word()) else {
                    continue;
                };
                if k == 0 {
                    root = Some(i);
                }
                if let Some(r) = root {
                    word.insert(i, (r, k));
                }
            }
        }
        if !any {
            return;
        }
        self.wmma_plan_slots(&mut word);
        let phis: Vec<(BlockId, InstId)> = f
            .layout
            .iter()
            .flat_map(|&b| f.blocks[b].insts.iter().filter(|&&i| f.insts[i].kind.is_phi()).map(move |&i| (b, i)))
            .collect();
        type Key = Vec<(BlockId, Option<InstId>)>;
        let mut keys: HashMap<InstId, Key> = HashMap::default();
        loop {
            let mut changed = false;
            for &(b, p) in &phis {
                if word.contains_key(&p) {
                    continue;
                }
                let InstKind::Phi { incoming } = &f.insts[p].kind else { continue };
                let (mut k, mut key, mut ok) = (None, Key::new(), true);
                for &(v, pred) in incoming {
                    match v {
                        Value::Inst(x) => match word.get(&x) {
                            Some(&(r, kx)) if k.is_none_or(|k| k == kx) => {
                                k = Some(kx);
                                key.push((pred, Some(r)));
                            }
                            _ => ok = false,
                        },
                        v if self.is_undef(v) => key.push((pred, None)),
                        _ => ok = false,
                    }
                }
                let (true, Some(k)) = (ok, k) else { continue };
                key.sort();
                key.dedup();
                let leader = if k == 0 {
                    Some(p)
                } else {
                    f.blocks[b]
                        .insts
                        .iter()
                        .copied()
                        .find(|l| word.get(l) == Some(&(*l, 0)) && keys.get(l) == Some(&key))
                };
                if let Some(l) = leader {
                    word.insert(p, (l, k));
                    if k == 0 {
                        keys.insert(p, key);
                    }
                    self.wmma.carriers.insert(p, (l, k));
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// On entry to a block: its carrier PHIs' words, from the leader's variable (each
    /// carrier's own id is an undefined `u32`, which only magic-UAV calls read).
    pub(in crate::emit) fn wmma_phi_entry(&mut self, insts: &[InstId]) -> Result<()> {
        if self.wmma.carriers.is_empty() {
            return Ok(());
        }
        let u = self.cx.u32_t();
        let undef = self.cx.undef(u);
        let mut loaded: HashMap<InstId, (Word, MatrixType)> = HashMap::default();
        for leaders in [true, false] {
            for &i in insts {
                let Some(&(l, k)) = self.wmma.carriers.get(&i) else { continue };
                if (k == 0) != leaders {
                    continue;
                }
                let (m, t) = if leaders {
                    let Some(&(var, t, mt)) = self.wmma.carrier_vars.get(&l) else {
                        return Err(
                            self.wmma_phi_refuse("no predecessor emitted before the PHI's block gives it a matrix")
                        );
                    };
                    let m = self.ids_op(Op::Load, mt, &[var])?;
                    loaded.insert(i, (m, t));
                    (m, t)
                } else {
                    *loaded
                        .get(&l)
                        .ok_or_else(|| crate::emit::error::Error::Internal("WMMA carrier without its leader".into()))?
                };
                self.wmma.words.insert(i, (m, t, k));
                self.define(i, undef)?;
            }
        }
        Ok(())
    }

    /// At the end of a predecessor: the matrix carrier PHI `p` (a leader) takes, `v`,
    /// stored to its variable. `false` when `p` carries no matrix.
    pub(in crate::emit) fn wmma_phi_store(&mut self, p: InstId, v: Value) -> Result<bool> {
        let Some(&(l, k)) = self.wmma.carriers.get(&p) else { return Ok(false) };
        if k != 0 || self.is_undef(v) {
            return Ok(true);
        }
        let found = match v {
            Value::Inst(x) => self.wmma.words.get(&x).copied(),
            _ => None,
        };
        let Some((m, t, 0)) = found else {
            return Err(self.wmma_phi_refuse("its incoming value is not word 0 of a lowered matrix"));
        };
        let (var, vt) = match self.wmma.carrier_vars.get(&l) {
            Some(&(var, vt, _)) => (var, vt),
            None => {
                let mt = self.coopmat_type(Opcode::WaveMatrixCopy, t)?;
                let pty = self.cx.ptr(StorageClass::Function, mt);
                let var = self.cx.b.id();
                self.wmma.late_vars.push((pty, var));
                self.wmma.carrier_vars.insert(l, (var, t, mt));
                (var, t)
            }
        };
        if (vt.format, vt.usage) != (t.format, t.usage) {
            return Err(self.wmma_phi_refuse("it joins matrices of different types"));
        }
        self.ids_void(Op::Store, &[var, m])?;
        Ok(true)
    }
}

/// The `dx.op` functions whose calls can carry an AGS WMMA word.
const WMMA_CARRIER: &str = "dx.op.atomicCompareExchange";

/// The constant AGS instruction word of a magic-UAV `atomicCompareExchange` call, if `kind`
/// is one whose opcode is in the WMMA family.
fn wmma_word(m: &crate::ir::Module, kind: &InstKind) -> Option<u32> {
    let InstKind::Call { callee: Value::Func(f), args } = kind else { return None };
    if !m.functions[*f].name.starts_with(WMMA_CARRIER) {
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
        (
            WaveMatrixMulAcc
                | WaveMatrixUavLoad
                | WaveMatrixLdsLoad
                | WaveMatrixCopy
                | WaveMatrixElementFill
                | MatrixElementWiseArithmetic,
            2
        ) | (WaveMatrixFill, 1)
    )
}

/// Where a WMMA load or store accesses memory.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Place {
    /// A raw or structured buffer's byte view.
    Buffer,
    /// Groupshared memory (subgroup barriers around the access).
    Lds,
    /// A raw GPU address (`PhysicalStorageBuffer`).
    Physical,
}
