//! Barriers: `barrier` (SM 6.0), `barrierByMemoryType` and `barrierByMemoryHandle` (SM 6.8).
//!
//! Each becomes one [`BarrierPlan`]: whether the thread group synchronizes execution
//! (`OpControlBarrier` at `Workgroup` scope, else `OpMemoryBarrier`), the memory scope
//! (`Device` or `Workgroup`) and the storage classes ordered (UAVs: `UniformMemory` and
//! `ImageMemory`; groupshared: `WorkgroupMemory`), always acquire-release.
//!
//! - `barrier(mode)` (`DXIL::BarrierMode`): bit 0 syncs the group, bit 1 orders UAVs
//!   device-wide, bit 2 UAVs in the group, bit 3 groupshared memory.
//! - `barrierByMemoryType(memory, semantics)` (`DXIL::MemoryTypeFlag`: 1 UAV, 2
//!   groupshared, 4 and 8 node records; `DXIL::BarrierSemanticFlag`: 1 group sync, 2 group
//!   scope, 4 device scope). Without a scope bit the memory is ordered at the widest scope
//!   the stage has (a stronger barrier than asked for is still correct).
//! - `barrierByMemoryHandle(uav, semantics)`: as UAV memory; the handle is not narrowed
//!   to one resource (stronger, still correct).
//! - `barrierByNodeRecordHandle(record, semantics)` and the node-record memory types (4
//!   input, 8 output) in node shaders: node records are physical storage buffer memory
//!   (`docs/work-graphs.md`), ordered as `UniformMemory` like UAVs.
//!
//! Rules DXC's validator enforces and the translator relies on (a violation is a typed
//! [`crate::emit::Error::Invalid`]): flags within their valid masks; node-record memory
//! only in node shaders; group sync, group scope and groupshared memory only in
//! compute-like stages (compute, mesh, amplification, node), where Vulkan allows `Workgroup`
//! scope.

use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::{Call, FnEmit};
use crate::front::container::ShaderKind;
use rspirv::spirv::{MemorySemantics, Op, Scope, Word};

const UAV_MEMORY: u64 = 1;
const GROUP_SHARED_MEMORY: u64 = 2;
const NODE_MEMORY: u64 = 4 | 8;
const GROUP_SYNC: u64 = 1;
const GROUP_SCOPE: u64 = 2;
const DEVICE_SCOPE: u64 = 4;

/// One barrier, as SPIR-V needs it.
#[derive(Copy, Clone, Debug, Default)]
struct BarrierPlan {
    sync: bool,
    device_scope: bool,
    uav: bool,
    groupshared: bool,
}

impl<'a, 'm> FnEmit<'a, 'm> {
    fn compute_like(&self) -> bool {
        matches!(self.sm.kind, ShaderKind::Compute | ShaderKind::Mesh | ShaderKind::Amplification | ShaderKind::Node)
    }

    pub(super) fn barrier_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        let plan = match c.op {
            DxOp::Barrier => {
                let mode = self.arg_const(c, 0)?;
                if mode & !0xf != 0 {
                    return Err(self.invalid(c, "operand 0", format!("barrier mode {mode:#x} has unknown bits")));
                }
                let plan = BarrierPlan {
                    sync: mode & 1 != 0,
                    device_scope: mode & 2 != 0,
                    uav: mode & (2 | 4) != 0,
                    groupshared: mode & 8 != 0,
                };
                if !self.compute_like() && (plan.sync || mode & (4 | 8) != 0) {
                    return Err(self.invalid(
                        c,
                        "operand 0",
                        "only device-wide UAV barriers exist outside compute-like stages",
                    ));
                }
                plan
            }
            DxOp::BarrierByMemoryType | DxOp::BarrierByMemoryHandle => {
                let (memory, semantics) = if c.op == DxOp::BarrierByMemoryType {
                    (self.arg_const(c, 0)?, self.arg_const(c, 1)?)
                } else {
                    let h = self.handle(self.arg(c, 0)?)?;
                    if h.class != crate::dxil::ResourceClass::Uav && h.heap.is_none() {
                        return Err(self.invalid(c, "operand 0", "barrierByMemoryHandle needs a UAV"));
                    }
                    (UAV_MEMORY, self.arg_const(c, 1)?)
                };
                if memory & !0xf != 0 {
                    return Err(self.invalid(
                        c,
                        "operand 0",
                        format!("memory type flags {memory:#x} have unknown bits"),
                    ));
                }
                if semantics & !0x7 != 0 {
                    return Err(self.invalid(
                        c,
                        "operand 1",
                        format!("semantic flags {semantics:#x} have unknown bits"),
                    ));
                }
                if memory & NODE_MEMORY != 0 && self.sm.kind != ShaderKind::Node {
                    return Err(self.invalid(c, "operand 0", "node-record memory exists only in node shaders"));
                }
                let group = memory & GROUP_SHARED_MEMORY != 0 || semantics & (GROUP_SYNC | GROUP_SCOPE) != 0;
                if group && !self.compute_like() {
                    return Err(self.invalid(
                        c,
                        "the call",
                        "group sync, group scope and groupshared memory exist only in compute-like stages",
                    ));
                }
                let scoped = semantics & (GROUP_SCOPE | DEVICE_SCOPE) != 0;
                BarrierPlan {
                    sync: semantics & GROUP_SYNC != 0,
                    device_scope: semantics & DEVICE_SCOPE != 0 || (!scoped && !self.compute_like()),
                    // Node records are physical storage buffer memory (`UniformMemory`).
                    uav: memory & (UAV_MEMORY | NODE_MEMORY) != 0,
                    groupshared: memory & GROUP_SHARED_MEMORY != 0,
                }
            }
            DxOp::BarrierByNodeRecordHandle => {
                let semantics = self.arg_const(c, 1)?;
                if semantics & !0x7 != 0 {
                    return Err(self.invalid(
                        c,
                        "operand 1",
                        format!("semantic flags {semantics:#x} have unknown bits"),
                    ));
                }
                if self.sm.kind != ShaderKind::Node {
                    return Err(self.invalid(c, "the call", "node-record memory exists only in node shaders"));
                }
                let scoped = semantics & (GROUP_SCOPE | DEVICE_SCOPE) != 0;
                BarrierPlan {
                    sync: semantics & GROUP_SYNC != 0,
                    device_scope: semantics & DEVICE_SCOPE != 0 || !scoped,
                    uav: true,
                    groupshared: false,
                }
            }
            other => return Err(self.not_in_family(other, "barriers")),
        };
        emit_barrier(self, plan)?;
        Ok(None)
    }
}

fn emit_barrier(fe: &mut FnEmit<'_, '_>, plan: BarrierPlan) -> Result<()> {
    let mut sem = MemorySemantics::empty();
    if plan.uav {
        sem |= MemorySemantics::UNIFORM_MEMORY | MemorySemantics::IMAGE_MEMORY;
    }
    if plan.groupshared {
        sem |= MemorySemantics::WORKGROUP_MEMORY;
    }
    if !sem.is_empty() {
        sem |= MemorySemantics::ACQUIRE_RELEASE;
    }
    let scope = if plan.device_scope { Scope::Device } else { Scope::Workgroup };
    let (ms, sm) = (fe.cx.const_u32(scope as u32), fe.cx.const_u32(sem.bits()));
    // A thread-launch node's D3D group is one thread, so group sync waits for no one; its
    // module's workgroups batch independent threads (`work_graph::local_size`), some of
    // which have returned: no control barrier.
    let thread_launch = fe.iface.node.as_ref().is_some_and(|n| n.props.launch == crate::dxil::node::NodeLaunch::Thread);
    if plan.sync && !thread_launch {
        let wg = fe.cx.const_u32(Scope::Workgroup as u32);
        let ms = if sem.is_empty() { wg } else { ms };
        fe.ids_void(Op::ControlBarrier, &[wg, ms, sm])
    } else if !sem.is_empty() {
        fe.ids_void(Op::MemoryBarrier, &[ms, sm])
    } else {
        Ok(())
    }
}
