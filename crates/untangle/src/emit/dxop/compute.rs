//! Compute-style built-ins: `threadId` (`GlobalInvocationId`), `groupId` (`WorkgroupId`),
//! `threadIdInGroup` (`LocalInvocationId`) and `flattenedThreadIdInGroup`
//! (`LocalInvocationIndex`). A component index outside 0..=2 reads an undefined value, as
//! in DXIL (the validator requires an immediate in range). A broadcasting node's
//! `threadId` and `groupId` are its record's (`nodes.rs`, `stage::node`).
//!
//! SM 6.10's `getGroupWaveIndex` and `getGroupWaveCount` (hlsl-specs proposal 0048) are
//! the `SubgroupId` and `NumSubgroups` built-ins (capability `GroupNonUniform`), which the
//! proposal names as their SPIR-V form: the index of the subgroup in the workgroup, in
//! `[0, NumSubgroups)`, and the number of subgroups of the workgroup. DXIL allows them in
//! compute, mesh, amplification and node shaders, and Vulkan allows the built-ins in the
//! `GLCompute`, `MeshEXT` and `TaskEXT` models these become. A thread-launch node is one
//! D3D thread group per thread (the proposal excludes it; DXC's validator rejects it)
//! while its SPIR-V workgroup holds many: a typed error.

use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::{Call, FnEmit};
use rspirv::spirv::{BuiltIn, Capability, Op, StorageClass, Word};

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn compute_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        let u = self.cx.u32_t();
        match c.op {
            DxOp::ThreadId | DxOp::GroupId | DxOp::ThreadIdInGroup => {
                let b = match c.op {
                    DxOp::ThreadId => BuiltIn::GlobalInvocationId,
                    DxOp::GroupId => BuiltIn::WorkgroupId,
                    _ => BuiltIn::LocalInvocationId,
                };
                let v3 = self.cx.vec(u, 3);
                let comp = self.arg(c, 0)?;
                if c.op != DxOp::ThreadIdInGroup && self.iface.node.is_some() {
                    // A broadcasting node's group and dispatch-thread ids come from its
                    // record's grid (`stage::node`).
                    let k = match self.const_int(comp) {
                        Some(k @ 0..=2) => self.cx.const_u32(k as u32),
                        Some(_) => return Ok(Some(self.cx.undef(u))),
                        None => self.value(comp)?,
                    };
                    if let Some(w) = self.node_compute_id(c.op == DxOp::ThreadId, k)? {
                        return Ok(Some(w));
                    }
                }
                let var = self.iface.builtin(self.cx, b, StorageClass::Input, v3);
                self.vec3_component(var, u, comp, |me| me.value(comp)).map(Some)
            }
            DxOp::FlattenedThreadIdInGroup => {
                let var = self.iface.builtin(self.cx, BuiltIn::LocalInvocationIndex, StorageClass::Input, u);
                Ok(Some(self.ids_op(Op::Load, u, &[var])?))
            }
            DxOp::GetGroupWaveIndex | DxOp::GetGroupWaveCount => {
                if self.iface.node.as_ref().is_some_and(|n| n.props.launch == crate::dxil::node::NodeLaunch::Thread) {
                    return Err(self.form(
                        c.op,
                        "a thread-launch node has no thread group of several threads (hlsl-specs 0048 excludes it)",
                    ));
                }
                self.cx.capability(Capability::GroupNonUniform);
                let b = if c.op == DxOp::GetGroupWaveIndex { BuiltIn::SubgroupId } else { BuiltIn::NumSubgroups };
                let var = self.iface.builtin(self.cx, b, StorageClass::Input, u);
                Ok(Some(self.ids_op(Op::Load, u, &[var])?))
            }
            other => Err(self.not_in_family(other, "compute ids")),
        }
    }
}
