//! Stage input and output: `loadInput` / `storeOutput` through the signature variables of
//! `crate::emit::interface`, pixel-shader system operations (`discard` as demote-to-helper,
//! `sampleIndex`, `coverage`, `isHelperLane`) and derivatives.
//!
//! `SV_Position.w` in a pixel shader is the clip-space w, the reciprocal of `FragCoord.w`.
//! A conditional `discard` splits its block around `OpDemoteToHelperInvocation`; the
//! structurizer's PHIs in successors then name the split's last block (see
//! [`FnEmit::exit_labels`]).

use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::interface::ElementScalar;
use crate::emit::locations::SigKind;
use crate::emit::{Call, FnEmit, Num, ThreadQuads};
use rspirv::spirv::{BuiltIn, Capability, Op, StorageClass, Word};

const FAMILY: &str = "stage I/O";

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn io_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        match c.op {
            DxOp::LoadInput => self.load_input(c).map(Some),
            DxOp::StoreOutput => self.store_output(c).map(|_| None),
            DxOp::Discard => self.discard(c).map(|_| None),
            DxOp::SampleIndex => {
                self.cx.capability(Capability::SampleRateShading);
                let i = self.cx.sint(32);
                // Shared with an `SV_SampleIndex` signature element (`interface`), hence signed.
                let var = self.iface.builtin(self.cx, BuiltIn::SampleId, StorageClass::Input, i);
                self.cx.decorate(var, rspirv::spirv::Decoration::Flat, &[]);
                let x = self.ids_op(Op::Load, i, &[var])?;
                self.num_to_ir(x, Num::SInt, c.ty).map(Some)
            }
            DxOp::Coverage => {
                // Unsigned, as the IR's `i32` is: the load needs no bitcast. Flat, as every
                // integer fragment input.
                let u = self.cx.uint(32);
                let one = self.cx.const_u32(1);
                let arr = self.cx.b.type_array(u, one);
                let var = self.iface.builtin(self.cx, BuiltIn::SampleMask, StorageClass::Input, arr);
                self.cx.decorate(var, rspirv::spirv::Decoration::Flat, &[]);
                let pty = self.cx.ptr(StorageClass::Input, u);
                let zero = self.cx.const_u32(0);
                let p = self.ids_op(Op::AccessChain, pty, &[var, zero])?;
                let x = self.ids_op(Op::Load, u, &[p])?;
                self.num_to_ir(x, Num::UInt, c.ty).map(Some)
            }
            DxOp::InnerCoverage => {
                self.cx.extension("SPV_EXT_fragment_fully_covered");
                self.cx.capability(Capability::FragmentFullyCoveredEXT);
                let b = self.cx.bool_t();
                let var = self.iface.builtin(self.cx, BuiltIn::FullyCoveredEXT, StorageClass::Input, b);
                let x = self.ids_op(Op::Load, b, &[var])?;
                self.num_to_ir(x, Num::Bool, c.ty).map(Some)
            }
            DxOp::IsHelperLane => {
                let b = self.cx.bool_t();
                if self.sm.kind != crate::front::container::ShaderKind::Pixel {
                    // Only pixel shaders have helper lanes (DXC folds the call to false
                    // elsewhere, `DxilPreparePasses.cpp`).
                    let f = self.cx.b.constant_false(b);
                    return self.num_to_ir(f, Num::Bool, c.ty).map(Some);
                }
                self.cx.capability(Capability::DemoteToHelperInvocation);
                let x = self.ids_op(Op::IsHelperInvocationEXT, b, &[])?;
                self.num_to_ir(x, Num::Bool, c.ty).map(Some)
            }
            DxOp::DerivCoarseX | DxOp::DerivCoarseY | DxOp::DerivFineX | DxOp::DerivFineY => {
                let op = match c.op {
                    DxOp::DerivCoarseX => Op::DPdxCoarse,
                    DxOp::DerivCoarseY => Op::DPdyCoarse,
                    DxOp::DerivFineX => Op::DPdxFine,
                    _ => Op::DPdyFine,
                };
                self.cx.capability(Capability::DerivativeControl);
                self.need_thread_quads(ThreadQuads::Derivatives);
                let v = self.arg_val(c, 0)?;
                let ty = self.arg_ty(c, 0)?;
                let x = self.ir_to_num(v, ty, Num::Float)?;
                let f = self.cx.float(32);
                let d = self.ids_op(op, f, &[x])?;
                self.num_to_ir(d, Num::Float, c.ty).map(Some)
            }
            other => Err(self.not_in_family(other, FAMILY)),
        }
    }

    fn load_input(&mut self, c: &Call<'_>) -> Result<Word> {
        let id = self.arg_const(c, 0)? as u32;
        let sigs = self.sigs;
        let col = u64::from(self.check_element_index(c, &sigs.inputs, id)?);
        let row = self.arg(c, 1)?;
        // Hull, domain and geometry shaders: the control point or vertex (undef elsewhere).
        let vertex = c.args.get(3).copied().filter(|&v| !self.is_undef(v));
        self.load_element(ElementScalar { kind: SigKind::Input, id, row, col, vertex }, c.ty)
    }

    fn store_output(&mut self, c: &Call<'_>) -> Result<()> {
        let id = self.arg_const(c, 0)? as u32;
        let sigs = self.sigs;
        let col = u64::from(self.check_element_index(c, &sigs.outputs, id)?);
        let row = self.arg(c, 1)?;
        let v = self.arg(c, 3)?;
        self.store_element(ElementScalar { kind: SigKind::Output, id, row, col, vertex: None }, v)
    }

    /// The column of a `loadInput`/`storeOutput` (operands 1 and 2: row, column) after
    /// checking both against element `id`'s rows and columns, as DXC's validator does: an
    /// index past them would address outside the interface variable.
    fn check_element_index(&self, c: &Call<'_>, sig: &[crate::dxil::SignatureElement], id: u32) -> Result<u32> {
        let el = sig.iter().find(|e| e.id == id);
        let (rows, cols) = el.map_or((1, 1), |e| (e.rows.max(1), e.cols.max(1)));
        let col = self.arg_const(c, 2)?;
        if col >= u64::from(cols) {
            return Err(self.invalid(c, "operand 2", format!("column {col} of an element with {cols} columns")));
        }
        if let Some(row) = self.const_int(self.arg(c, 1)?) {
            if row >= u64::from(rows) {
                return Err(self.invalid(c, "operand 1", format!("row {row} of an element with {rows} rows")));
            }
        }
        Ok(col as u32)
    }

    fn discard(&mut self, c: &Call<'_>) -> Result<()> {
        self.cx.capability(Capability::DemoteToHelperInvocation);
        let cond = self.arg(c, 0)?;
        if self.const_int(cond) == Some(1) {
            return self.ids_void(Op::DemoteToHelperInvocation, &[]);
        }
        if self.const_int(cond) == Some(0) {
            return Ok(());
        }
        let w = self.value(cond)?;
        self.split_if(w, |me| me.ids_void(Op::DemoteToHelperInvocation, &[]))
    }
}
