//! SM 6.10 debugging intrinsics (hlsl-specs proposal 0039) and the experimental table's
//! `nop`, in every stage.
//!
//! | DXIL | SPIR-V |
//! | --- | --- |
//! | `debugBreak` | `OpExtInst %void NonSemantic.DebugBreak DebugBreak` |
//! | `isDebuggingEnabled` | `OpConstantFalse` |
//! | `nop` (`ExperimentalNop`) | nothing |
//!
//! - `debugBreak`: proposal 0039 gives `DebugBreak()` a SPIR-V lowering, the
//!   `NonSemantic.DebugBreak` extended instruction set's `DebugBreak` (SPIR-V registry,
//!   `nonsemantic/NonSemantic.DebugBreak.asciidoc`): a hint for an attached shader
//!   debugger to break, ignored when none is attached, which is D3D's behaviour too ("if
//!   debugging is not enabled, this is a no-op"; execution continues after the break).
//!   Non-semantic instruction sets are core in SPIR-V 1.6, which untangle writes, and in
//!   Vulkan 1.3 (`VK_KHR_shader_non_semantic_info` before): no capability, no extension.
//!   The instruction is kept where the call was (the emitter's clean-ups remove only pure
//!   instructions), so a debugger that honours it breaks at the same place.
//! - `isDebuggingEnabled`: the proposal defines no SPIR-V lowering ("a DirectX extension").
//!   Vulkan exposes no per-thread debugging state to a shader, and a break is a no-op on
//!   it without a debugger; `false` is the value D3D returns when debugging is not
//!   enabled, so a program's debug-only paths (the proposal's use) are skipped, exactly as
//!   on a D3D runtime without a debugger.
//! - `nop`: hctdb.py's "nop does nothing", a test of the experimental table's plumbing.
//!
//! Source: DXC `utils/hct/hctdb.py` (operands: the opcode only; `debugBreak` returns
//! `void`, `isDebuggingEnabled` `i1`), hlsl-specs 0039. Cost: at most one instruction a call.

use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::{Call, FnEmit, Num};
use rspirv::spirv::{Op, Word};

/// `DebugBreak`'s number in `NonSemantic.DebugBreak`.
const DEBUG_BREAK: u32 = 1;

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn debug_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        match c.op {
            DxOp::DebugBreak => {
                let set = self.cx.debug_break_set();
                let void = self.cx.void();
                self.cx.b.block_value(Op::ExtInst, void, &[set, DEBUG_BREAK])?;
                Ok(None)
            }
            DxOp::IsDebuggingEnabled => {
                let no = self.cx.const_bool(false);
                self.num_to_ir(no, Num::Bool, c.ty).map(Some)
            }
            DxOp::ExperimentalNop => Ok(None),
            other => Err(self.not_in_family(other, "debugging")),
        }
    }
}
