//! Compute-style built-ins: `threadId` (`GlobalInvocationId`), `groupId` (`WorkgroupId`),
//! `threadIdInGroup` (`LocalInvocationId`) and `flattenedThreadIdInGroup`
//! (`LocalInvocationIndex`). A component index outside 0..=2 reads an undefined value, as
//! in DXIL (the validator requires an immediate in range). A broadcasting node's
//! `threadId` and `groupId` are its record's (`nodes.rs`, `stage::node`).

use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::{Call, FnEmit};
use rspirv::spirv::{BuiltIn, Op, StorageClass, Word};

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
            other => Err(self.not_in_family(other, "compute ids")),
        }
    }
}
