//! Work-graph node operations (DXIL 1.8, opcodes 238–253 but the two barriers of
//! `barriers.rs`), lowered to the scheduler contract of `docs/work-graphs.md` (state and
//! module shape: `crate::emit::stage::node`).
//!
//! Handles are symbolic: `createNodeOutputHandle` / `indexNodeHandle` /
//! `annotateNodeHandle` name an (output, array index) pair, `createNodeInputRecordHandle`
//! the input, `allocateNodeOutputRecords` an allocation whose first slot lives in a
//! `Private` variable (so a use in a block the allocation does not dominate after
//! structurization still reads it). A handle that flows through a PHI, `select` or memory
//! is refused (typed error), as DXC never produces one.
//!
//! - output entry of (o, i): `output_table + (table_index[o] + i) · 32`; its `records`
//!   (u64, offset 0), `counter` (u64, 8) and `stride` (u32, 16).
//! - `allocateNodeOutputRecords(h, n, perThread)`: per thread `slot = atomicAdd(counter,
//!   n)`; per group thread 0 does it and hands `slot` over through a `Workgroup` variable
//!   between two workgroup barriers (in thread-launch nodes, whose D3D groups are single
//!   threads, per-group operations are per thread).
//! - `getNodeRecordPtr(h, i)`: input `input_records + (record_index + i) · input_stride`;
//!   output `records + (slot + i) · stride` (a 64-bit address; `stage::node`).
//! - `incrementOutputCount(h, n, perThread)`: `atomicAdd(counter, n)`, per group by thread 0.
//! - `outputComplete`: nothing (records are complete when the dispatch ends).
//! - `getInputRecordCount`, `getRemainingRecursionLevels`: the wrapper's variable, the push
//!   constant.
//! - `nodeOutputIsValid(h)`: the entry's `counter` is not 0.
//! - `finishedCrossGroupSharing`: barrier, thread 0 counts the group at
//!   `sharing_counters[record]` (acquire-release, device scope), the last of the record's
//!   groups gets true, handed to the group like an allocation.

use crate::dxil::node::NodeLaunch;
use crate::dxil::DxOp;
use crate::emit::error::{Error, Result};
use crate::emit::work_graph::{self, NodeHandle, NodeState, Push, RecordHandle, OUTPUT_ENTRY_SIZE};
use crate::emit::{Call, FnEmit};
use crate::ir::hash::HashMap;
use crate::ir::{InstId, Value};
use rspirv::spirv::{BuiltIn, MemorySemantics, Op, Scope, StorageClass, Word};

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn node_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        if self.iface.node.is_none() {
            return Err(self.invalid(c, "the call", "node operations exist only in node shaders"));
        }
        let u = self.cx.u32_t();
        match c.op {
            DxOp::CreateNodeOutputHandle => {
                let output = self.arg_const(c, 0)?;
                let outputs = self.node_props().outputs.len();
                if output >= outputs as u64 {
                    return Err(self.invalid(c, "operand 0", format!("output {output} of a node with {outputs}")));
                }
                self.define_handle(c, |n| &mut n.node_handles, NodeHandle { output: output as u32, index: None })
            }
            DxOp::AnnotateNodeHandle => {
                let h = self.node_handle_arg(c, 0)?;
                self.define_handle(c, |n| &mut n.node_handles, h)
            }
            DxOp::IndexNodeHandle => {
                let h = self.node_handle_arg(c, 0)?;
                if h.index.is_some() {
                    return Err(self.form(c.op, "indexing a node handle that was indexed already"));
                }
                let index = self.arg(c, 1)?;
                self.define_handle(c, |n| &mut n.node_handles, NodeHandle { index: Some(index), ..h })
            }
            DxOp::CreateNodeInputRecordHandle => {
                let k = self.arg_const(c, 0)?;
                if k != 0 || self.node_props().inputs.is_empty() {
                    return Err(self.invalid(c, "operand 0", format!("input {k} of a node with no such input")));
                }
                self.define_handle(c, |n| &mut n.record_handles, RecordHandle::Input)
            }
            DxOp::AnnotateNodeRecordHandle => {
                let h = self.record_handle_arg(c, 0)?;
                self.define_handle(c, |n| &mut n.record_handles, h)
            }
            DxOp::AllocateNodeOutputRecords => {
                let h = self.node_handle_arg(c, 0)?;
                let per_thread = self.arg_const(c, 2)? != 0 || self.thread_launch();
                let count = self.arg_val(c, 1)?;
                let counter = self.entry_counter(h)?;
                let slot = if per_thread {
                    self.counter_add(counter, count)?
                } else {
                    self.group_uniform(|fe| fe.counter_add(counter, count))?
                };
                let var = self.cx.global_var(StorageClass::Private, u, "node_output_slot");
                self.ids_void(Op::Store, &[var, slot])?;
                self.define_handle(c, |n| &mut n.record_handles, RecordHandle::Output { node: h, slot: var })
            }
            DxOp::GetNodeRecordPtr => {
                let h = self.record_handle_arg(c, 0)?;
                let i = self.arg_val(c, 1)?;
                let addr = match h {
                    RecordHandle::Input => {
                        let push = self.node_ref().push;
                        let base = push.load(self.cx, Push::InputRecords)?;
                        let stride = push.load(self.cx, Push::InputStride)?;
                        let var = self.node_ref().record_index;
                        let first = self.ids_op(Op::Load, u, &[var])?;
                        let r = self.ids_op(Op::IAdd, u, &[first, i])?;
                        work_graph::element_addr(self.cx, base, r, stride)?
                    }
                    RecordHandle::Output { node, slot } => {
                        let entry = self.output_entry(node)?;
                        let u64t = self.cx.uint(64);
                        let records = work_graph::load_at(self.cx, entry, u64t, 8)?;
                        let off = self.cx.const_u32(16);
                        let stride_at = work_graph::offset_addr(self.cx, entry, off)?;
                        let stride = work_graph::load_at(self.cx, stride_at, u, 8)?;
                        let first = self.ids_op(Op::Load, u, &[slot])?;
                        let r = self.ids_op(Op::IAdd, u, &[first, i])?;
                        work_graph::element_addr(self.cx, records, r, stride)?
                    }
                };
                Ok(Some(addr))
            }
            DxOp::IncrementOutputCount => {
                let h = self.node_handle_arg(c, 0)?;
                let per_thread = self.arg_const(c, 2)? != 0 || self.thread_launch();
                let count = self.arg_val(c, 1)?;
                let counter = self.entry_counter(h)?;
                if per_thread {
                    self.counter_add(counter, count)?;
                } else {
                    let first = self.is_first_thread()?;
                    self.split_if(first, |fe| fe.counter_add(counter, count).map(|_| ()))?;
                }
                Ok(None)
            }
            DxOp::OutputComplete => {
                self.record_handle_arg(c, 0)?;
                Ok(None)
            }
            DxOp::GetInputRecordCount => {
                match self.record_handle_arg(c, 0)? {
                    RecordHandle::Input => {}
                    RecordHandle::Output { .. } => {
                        return Err(self.invalid(c, "operand 0", "GetInputRecordCount of output records"))
                    }
                }
                let var = self.node_ref().record_count;
                Ok(Some(self.ids_op(Op::Load, u, &[var])?))
            }
            DxOp::GetRemainingRecursionLevels => {
                let push = self.node_ref().push;
                Ok(Some(push.load(self.cx, Push::RemainingRecursionLevels)?))
            }
            DxOp::NodeOutputIsValid => {
                let h = self.node_handle_arg(c, 0)?;
                let entry = self.output_entry(h)?;
                let u64t = self.cx.uint(64);
                let off = self.cx.const_u32(8);
                let at = work_graph::offset_addr(self.cx, entry, off)?;
                let counter = work_graph::load_at(self.cx, at, u64t, 8)?;
                let zero = self.cx.const_bits(u64t, 64, 0);
                let b = self.cx.bool_t();
                Ok(Some(self.ids_op(Op::INotEqual, b, &[counter, zero])?))
            }
            DxOp::FinishedCrossGroupSharing => {
                if !matches!(self.record_handle_arg(c, 0)?, RecordHandle::Input) {
                    return Err(self.invalid(c, "operand 0", "FinishedCrossGroupSharing of output records"));
                }
                if self.node_props().launch != NodeLaunch::Broadcasting {
                    return Err(self.invalid(c, "the call", "FinishedCrossGroupSharing outside a broadcasting node"));
                }
                let total = self.groups_of_record()?;
                let push = self.node_ref().push;
                let var = self.node_ref().record_index;
                let record = self.ids_op(Op::Load, u, &[var])?;
                let last = self.group_uniform(|fe| {
                    let base = push.load(fe.cx, Push::SharingCounters)?;
                    let four = fe.cx.const_u32(4);
                    let at = work_graph::element_addr(fe.cx, base, record, four)?;
                    let pty = fe.cx.ptr(StorageClass::PhysicalStorageBuffer, u);
                    let p = fe.ids_op(Op::ConvertUToPtr, pty, &[at])?;
                    let scope = fe.cx.const_u32(Scope::Device as u32);
                    let sem = (MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::UNIFORM_MEMORY).bits();
                    let sem = fe.cx.const_u32(sem);
                    let one = fe.cx.const_u32(1);
                    let old = fe.ids_op(Op::AtomicIAdd, u, &[p, scope, sem, one])?;
                    let last = fe.ids_op(Op::ISub, u, &[total, one])?;
                    let b = fe.cx.bool_t();
                    let is_last = fe.ids_op(Op::IEqual, b, &[old, last])?;
                    let zero = fe.cx.const_u32(0);
                    fe.ids_op(Op::Select, u, &[is_last, one, zero])
                })?;
                let zero = self.cx.const_u32(0);
                let b = self.cx.bool_t();
                Ok(Some(self.ids_op(Op::INotEqual, b, &[last, zero])?))
            }
            other => Err(self.not_in_family(other, "work graphs")),
        }
    }

    /// A thread-launch node: each thread is a group of its own to D3D (the module's
    /// workgroups only batch them), so per-group operations are per thread.
    fn thread_launch(&self) -> bool {
        self.node_props().launch == NodeLaunch::Thread
    }

    fn node_props(&self) -> &crate::dxil::node::NodeProperties {
        &self.node_ref().props
    }

    fn node_ref(&self) -> &work_graph::NodeState {
        self.iface.node.as_ref().expect("node_op checked that the node state exists")
    }

    fn node_mut(&mut self) -> &mut work_graph::NodeState {
        self.iface.node.as_mut().expect("node_op checked that the node state exists")
    }

    /// Call `c` makes handle `h`, kept in `table` of the node state (a symbolic value: no
    /// SPIR-V of its own).
    fn define_handle<H>(
        &mut self,
        c: &Call<'_>,
        table: impl FnOnce(&mut NodeState) -> &mut HashMap<InstId, H>,
        h: H,
    ) -> Result<Option<Word>> {
        table(self.node_mut()).insert(c.inst, h);
        Ok(None)
    }

    /// The handle operand `k` of `c` is, from `table` of the node state; `what` says which
    /// kind and which operations make one, for the error.
    fn handle_arg<H: Copy>(
        &self,
        c: &Call<'_>,
        k: usize,
        table: impl FnOnce(&NodeState) -> &HashMap<InstId, H>,
        what: &str,
    ) -> Result<H> {
        let v = self.arg(c, k)?;
        match v {
            Value::Inst(i) => table(self.node_ref()).get(&i).copied(),
            _ => None,
        }
        .ok_or_else(|| self.form(c.op, format!("operand {k} is not {what} (PHI, select or memory)")))
    }

    fn node_handle_arg(&self, c: &Call<'_>, k: usize) -> Result<NodeHandle> {
        let what = "a node handle made by createNodeOutputHandle/indexNodeHandle/annotateNodeHandle";
        self.handle_arg(c, k, |n| &n.node_handles, what)
    }

    fn record_handle_arg(&self, c: &Call<'_>, k: usize) -> Result<RecordHandle> {
        let what =
            "a record handle made by createNodeInputRecordHandle/allocateNodeOutputRecords/annotateNodeRecordHandle";
        self.handle_arg(c, k, |n| &n.record_handles, what)
    }

    /// The 64-bit address of the output-table entry of `h`: entry `table_index + i`, or for
    /// an unbounded array entry `i` of the sub-table its one (indirect) entry points at.
    fn output_entry(&mut self, h: NodeHandle) -> Result<Word> {
        let u = self.cx.u32_t();
        let first = *self
            .node_ref()
            .table_index
            .get(h.output as usize)
            .ok_or_else(|| Error::Internal("output handle past the output table".into()))?;
        let unbounded = self.node_props().outputs.get(h.output as usize).is_some_and(|o| o.is_unbounded());
        let push = self.node_ref().push;
        let table = push.load(self.cx, Push::OutputTable)?;
        let size = self.cx.const_u32(OUTPUT_ENTRY_SIZE);
        let i = match h.index {
            Some(i) => Some(self.value(i)?),
            None => None,
        };
        if unbounded {
            let first = self.cx.const_u32(first);
            let indirect = work_graph::element_addr(self.cx, table, first, size)?;
            let u64t = self.cx.uint(64);
            let sub = work_graph::load_at(self.cx, indirect, u64t, 8)?;
            let i = i.unwrap_or_else(|| self.cx.const_u32(0));
            // An index past the sub-table (its length is the indirect entry's `stride`)
            // reads the indirect entry itself, whose `counter` is 0: not a valid node.
            let sixteen = self.cx.const_u32(16);
            let count_at = work_graph::offset_addr(self.cx, indirect, sixteen)?;
            let count = work_graph::load_at(self.cx, count_at, u, 8)?;
            let b = self.cx.bool_t();
            let inside = self.ids_op(Op::ULessThan, b, &[i, count])?;
            let entry = work_graph::element_addr(self.cx, sub, i, size)?;
            let u64t = self.cx.uint(64);
            return self.ids_op(Op::Select, u64t, &[inside, entry, indirect]);
        }
        let mut index = self.cx.const_u32(first);
        if let Some(i) = i {
            index = self.ids_op(Op::IAdd, u, &[index, i])?;
        }
        work_graph::element_addr(self.cx, table, index, size)
    }

    /// The 64-bit address of the counter of `h`'s output-table entry.
    fn entry_counter(&mut self, h: NodeHandle) -> Result<Word> {
        let entry = self.output_entry(h)?;
        let u64t = self.cx.uint(64);
        let off = self.cx.const_u32(8);
        let at = work_graph::offset_addr(self.cx, entry, off)?;
        work_graph::load_at(self.cx, at, u64t, 8)
    }

    /// `atomicAdd(*counter, n)` (relaxed, device scope); the old value.
    fn counter_add(&mut self, counter: Word, n: Word) -> Result<Word> {
        let u = self.cx.u32_t();
        let pty = self.cx.ptr(StorageClass::PhysicalStorageBuffer, u);
        let p = self.ids_op(Op::ConvertUToPtr, pty, &[counter])?;
        let scope = self.cx.const_u32(Scope::Device as u32);
        let sem = self.cx.const_u32(0);
        self.ids_op(Op::AtomicIAdd, u, &[p, scope, sem, n])
    }

    /// `LocalInvocationIndex == 0`.
    fn is_first_thread(&mut self) -> Result<Word> {
        let u = self.cx.u32_t();
        let var = self.iface.builtin(self.cx, BuiltIn::LocalInvocationIndex, StorageClass::Input, u);
        let l = self.ids_op(Op::Load, u, &[var])?;
        let zero = self.cx.const_u32(0);
        let b = self.cx.bool_t();
        self.ids_op(Op::IEqual, b, &[l, zero])
    }

    /// Runs `f` (which yields a `uint`) on the group's thread 0 and hands its value to every
    /// thread of the group through the `Workgroup` exchange variable, between workgroup
    /// barriers (the call must be group-uniform, as D3D requires of these operations).
    fn group_uniform(&mut self, f: impl FnOnce(&mut Self) -> Result<Word>) -> Result<Word> {
        let u = self.cx.u32_t();
        let exchange = match self.node_ref().exchange {
            Some(v) => v,
            None => {
                let v = self.cx.global_var(StorageClass::Workgroup, u, "node_exchange");
                self.node_mut().exchange = Some(v);
                v
            }
        };
        let first = self.is_first_thread()?;
        self.split_if(first, |fe| {
            let v = f(fe)?;
            fe.ids_void(Op::Store, &[exchange, v])
        })?;
        let wg = self.cx.const_u32(Scope::Workgroup as u32);
        // Record memory too: what thread 0 acquired (cross-group sharing) is then visible
        // to the whole group.
        let sem =
            (MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::WORKGROUP_MEMORY | MemorySemantics::UNIFORM_MEMORY)
                .bits();
        let sem = self.cx.const_u32(sem);
        self.ids_void(Op::ControlBarrier, &[wg, wg, sem])?;
        let v = self.ids_op(Op::Load, u, &[exchange])?;
        self.ids_void(Op::ControlBarrier, &[wg, wg, sem])?;
        Ok(v)
    }

    /// Groups launched for this group's record: the fixed grid's product, or that of the
    /// record's `SV_DispatchGrid`.
    fn groups_of_record(&mut self) -> Result<Word> {
        let u = self.cx.u32_t();
        if let Some([x, y, z]) = self.node_props().dispatch.dispatch_grid {
            return Ok(self.cx.const_u32(x.saturating_mul(y).saturating_mul(z)));
        }
        let push = self.node_ref().push;
        let base = push.load(self.cx, Push::InputRecords)?;
        let stride = push.load(self.cx, Push::InputStride)?;
        let var = self.node_ref().record_index;
        let r = self.ids_op(Op::Load, u, &[var])?;
        let rec = work_graph::element_addr(self.cx, base, r, stride)?;
        let props = self.node_props().clone();
        let grid = work_graph::record_grid(self.cx, &props, rec)?;
        let x = self.ids_op(Op::CompositeExtract, u, &[grid, 0])?;
        let y = self.ids_op(Op::CompositeExtract, u, &[grid, 1])?;
        let z = self.ids_op(Op::CompositeExtract, u, &[grid, 2])?;
        let xy = self.ids_op(Op::IMul, u, &[x, y])?;
        self.ids_op(Op::IMul, u, &[xy, z])
    }

    /// `SV_GroupID` (`group`) or `SV_DispatchThreadID` of a broadcasting node, component
    /// `comp` (an id); `None` for other nodes and stages (their built-ins are right).
    pub(super) fn node_compute_id(&mut self, dispatch_thread: bool, comp: Word) -> Result<Option<Word>> {
        let Some(node) = self.iface.node.as_ref() else { return Ok(None) };
        if node.props.launch != NodeLaunch::Broadcasting {
            return Ok(None);
        }
        let (gvar, nt) = (node.group_id, node.num_threads);
        let u = self.cx.u32_t();
        let v3 = self.cx.vec(u, 3);
        let g = self.ids_op(Op::Load, v3, &[gvar])?;
        let g = self.ids_op(Op::VectorExtractDynamic, u, &[g, comp])?;
        if !dispatch_thread {
            return Ok(Some(g));
        }
        let local = self.iface.builtin(self.cx, BuiltIn::LocalInvocationId, StorageClass::Input, v3);
        let l = self.ids_op(Op::Load, v3, &[local])?;
        let l = self.ids_op(Op::VectorExtractDynamic, u, &[l, comp])?;
        let ntx = self.cx.const_u32(nt[0]);
        let nty = self.cx.const_u32(nt[1]);
        let ntz = self.cx.const_u32(nt[2]);
        let ntv = self.ids_op(Op::CompositeConstruct, v3, &[ntx, nty, ntz])?;
        let n = self.ids_op(Op::VectorExtractDynamic, u, &[ntv, comp])?;
        let gn = self.ids_op(Op::IMul, u, &[g, n])?;
        Ok(Some(self.ids_op(Op::IAdd, u, &[gn, l])?))
    }
}
