//! Compute built-ins (`threadId`, `groupId`, `threadIdInGroup`, `flattenedThreadIdInGroup`)
//! and `barrier`.
//!
//! `barrier(flags)`: bit 0 syncs the thread group (`OpControlBarrier`, else
//! `OpMemoryBarrier`), bit 1 fences UAVs device-wide, bit 2 UAVs in the group, bit 3
//! groupshared memory. Semantics are acquire-release on the named memories.

use super::Call;
use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::function::FnEmit;
use rspirv::spirv::{BuiltIn, MemorySemantics, Op, Scope, StorageClass, Word};

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
                let var = self.iface.builtin(self.cx, b, StorageClass::Input, v3);
                let comp = self.arg_const(c, 0)? as u32;
                let x = match comp {
                    0..=2 => {
                        let pty = self.cx.ptr(StorageClass::Input, u);
                        let k = self.cx.const_u32(comp);
                        let p = self.ids_op(Op::AccessChain, pty, &[var, k])?;
                        self.ids_op(Op::Load, u, &[p])?
                    }
                    _ => self.cx.undef(u),
                };
                Ok(Some(x))
            }
            DxOp::FlattenedThreadIdInGroup => {
                let var = self.iface.builtin(self.cx, BuiltIn::LocalInvocationIndex, StorageClass::Input, u);
                Ok(Some(self.ids_op(Op::Load, u, &[var])?))
            }
            DxOp::Barrier => {
                let flags = self.arg_const(c, 0)?;
                let sync = flags & 1 != 0;
                let uav_global = flags & 2 != 0;
                let uav_group = flags & 4 != 0;
                let tgsm = flags & 8 != 0;
                let mut sem = MemorySemantics::ACQUIRE_RELEASE;
                if uav_global || uav_group {
                    sem |= MemorySemantics::UNIFORM_MEMORY | MemorySemantics::IMAGE_MEMORY;
                }
                if tgsm {
                    sem |= MemorySemantics::WORKGROUP_MEMORY;
                }
                let mem_scope = if uav_global { Scope::Device } else { Scope::Workgroup };
                let (ms, sm) = (self.cx.const_u32(mem_scope as u32), self.cx.const_u32(sem.bits()));
                if !(uav_global || uav_group || tgsm) {
                    if sync {
                        let wg = self.cx.const_u32(Scope::Workgroup as u32);
                        let none = self.cx.const_u32(0);
                        self.op_void(Op::ControlBarrier, ids(&[wg, wg, none]))?;
                    }
                    return Ok(None);
                }
                if sync {
                    let wg = self.cx.const_u32(Scope::Workgroup as u32);
                    self.op_void(Op::ControlBarrier, ids(&[wg, ms, sm]))?;
                } else {
                    self.op_void(Op::MemoryBarrier, ids(&[ms, sm]))?;
                }
                Ok(None)
            }
            other => Err(self.unsupported_op(other)),
        }
    }
}

pub(crate) fn ids(ws: &[Word]) -> Vec<rspirv::dr::Operand> {
    ws.iter().map(|&w| rspirv::dr::Operand::IdRef(w)).collect()
}
