//! System values without a stage family, and the cycle counter.
//!
//! - `viewID` is `ViewIndex` (`MultiView`; flat in pixel shaders); under view instancing
//!   the instance that view renders (`crate::emit::Options::view_instancing`).
//! - `startVertexLocation` / `startInstanceLocation` (SM 6.8) are `BaseVertex` /
//!   `BaseInstance` (`DrawParameters`): the draw's first vertex and instance.
//! - `cycleCounterLegacy` reads `OpReadClockKHR` at `Subgroup` scope (`SPV_KHR_shader_clock`;
//!   a layer enables `VK_KHR_shader_clock`'s `shaderSubgroupClock`), returning `{lo, hi}` of
//!   the 64-bit counter as DXBC's cycle-counter register did (DXC's DXBC converter reads
//!   component 0 as the low word). D3D promised only a monotonic per-core counter, which is
//!   what the subgroup clock is.

use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::{Call, FnEmit, Num};
use crate::front::container::ShaderKind;
use rspirv::spirv::{BuiltIn, Capability, Decoration, Op, Scope, StorageClass, Word};

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn system_op(&mut self, c: &Call<'_>) -> Result<Word> {
        match c.op {
            DxOp::ViewID if self.iface.view.is_some() => {
                // View instancing: the instance Vulkan's view renders (`view_instancing`).
                let x = self.view_instance_id()?;
                self.num_to_ir(x, Num::UInt, c.ty)
            }
            DxOp::ViewID | DxOp::StartVertexLocation | DxOp::StartInstanceLocation => {
                let b = match c.op {
                    DxOp::ViewID => {
                        self.cx.capability(Capability::MultiView);
                        BuiltIn::ViewIndex
                    }
                    DxOp::StartVertexLocation => {
                        self.cx.capability(Capability::DrawParameters);
                        BuiltIn::BaseVertex
                    }
                    _ => {
                        self.cx.capability(Capability::DrawParameters);
                        BuiltIn::BaseInstance
                    }
                };
                let i = self.cx.sint(32);
                let var = self.iface.builtin(self.cx, b, StorageClass::Input, i);
                if c.op == DxOp::ViewID && self.sm.kind == ShaderKind::Pixel {
                    self.cx.decorate(var, Decoration::Flat, &[]);
                }
                let x = self.ids_op(Op::Load, i, &[var])?;
                self.num_to_ir(x, Num::SInt, c.ty)
            }
            DxOp::CycleCounterLegacy => {
                self.cx.extension("SPV_KHR_shader_clock");
                self.cx.capability(Capability::ShaderClockKHR);
                let u = self.cx.u32_t();
                let u2 = self.cx.vec(u, 2);
                let scope = self.cx.const_u32(Scope::Subgroup as u32);
                let clock = self.ids_op(Op::ReadClockKHR, u2, &[scope])?;
                let lo = self.extract(u, clock, 0)?;
                let hi = self.extract(u, clock, 1)?;
                self.make_ret(c.ty, &[lo, hi], None)
            }
            other => Err(self.not_in_family(other, "system values")),
        }
    }
}
