//! Work-graph nodes (`[Shader("node")]` entries of SM 6.8 libraries) as Vulkan compute
//! shaders, one module per node, driven by a scheduler through the contract of
//! `docs/work-graphs.md` (push-constant block `NodeDispatch`, buffer device addresses).
//!
//! # Module shape
//!
//! The node's DXIL function becomes a SPIR-V function `EXPORT.body`; the `GLCompute`
//! entry point `EXPORT` is a wrapper that decodes which records this group (or thread)
//! owns from `WorkgroupId`, `LocalInvocationIndex` and the push constants, stores them in
//! `Private` variables ([`NodeState`]: the first record's index, the record count, the
//! broadcasting `SV_GroupID`), and calls the body only when the group or thread has work
//! (a group outside its record's dynamic `SV_DispatchGrid`, a thread past the last record
//! of a thread-launch dispatch, returns at once). The node operations
//! (`crate::emit::dxop::nodes`) read those variables. The contract itself (push constants,
//! record memory, the output table) is [`crate::emit::work_graph`]'s.
//!
//! Cost: constant per node beyond the body's emission.

use crate::dxil::node::NodeLaunch;
use crate::dxil::EntryPoint;
use crate::emit::entry::export_name;
use crate::emit::error::{malformed, Error, Result, Subject};
use crate::emit::work_graph::{
    element_addr, load_at, local_size, offset_addr, output_table, push_members, record_grid, NodePush, NodeState, Push,
    PushPlace, ARGUMENTS_RECORD_COUNT,
};
use crate::emit::{Interface, ModuleBuilder};
use crate::ir::hash::HashMap;
use rspirv::dr::Operand;
use rspirv::spirv::{self, BuiltIn, Capability, Decoration, Op, StorageClass, Word};

impl NodeState {
    /// Declares what every node module has: the addressing model, capabilities, the push
    /// constants and the `Private` variables; checks what the translation cannot handle.
    pub(in crate::emit) fn prepare(cx: &mut ModuleBuilder<'_>, ep: &EntryPoint, place: PushPlace) -> Result<NodeState> {
        let name = export_name(&ep.name).to_string();
        let props =
            ep.properties.node.clone().ok_or_else(|| {
                malformed(Subject::Entry(name.clone()), format!("node `{name}` has no node properties"))
            })?;
        let num_threads = local_size(cx.m, ep);
        if num_threads.contains(&0) {
            return Err(malformed(
                Subject::Entry(name.clone()),
                format!("node `{name}` has numthreads {num_threads:?}"),
            ));
        }
        if props.launch == NodeLaunch::Thread && (num_threads[1] != 1 || num_threads[2] != 1) {
            return Err(malformed(
                Subject::Entry(name.clone()),
                format!("thread-launch node `{name}` has numthreads {num_threads:?} (only x may exceed 1)"),
            ));
        }
        if let Some(g) = props.dispatch.dispatch_grid.or(props.dispatch.max_dispatch_grid) {
            if g.contains(&0) || g.iter().any(|&d| d > 65535) {
                return Err(malformed(Subject::Entry(name.clone()), format!("node `{name}` has dispatch grid {g:?}")));
            }
        }
        for (k, o) in props.outputs.iter().enumerate() {
            if !o.is_unbounded() && o.array_size.is_some_and(|n| n == 0 || n > (1 << 24)) {
                return Err(malformed(
                    Subject::Entry(name.clone()),
                    format!("node `{name}`: output {k} is a node array of {} elements", o.array_size.unwrap_or(0)),
                ));
            }
        }
        cx.capability(Capability::Int64);
        cx.physical_addressing();
        let u = cx.u32_t();
        let push = match place {
            PushPlace::Root(push) => push,
            PushPlace::Own => {
                let members = push_members(cx);
                let st = cx.b.id();
                cx.b.type_struct_id(Some(st), members.iter().map(|m| m.2).collect::<Vec<_>>());
                cx.decorate(st, Decoration::Block, &[]);
                cx.b.name(st, "NodeDispatch");
                for (k, (member, offset, _)) in members.iter().enumerate() {
                    cx.b.member_decorate(st, k as u32, Decoration::Offset, [Operand::LiteralBit32(*offset)]);
                    cx.b.member_name(st, k as u32, member);
                }
                NodePush { var: cx.global_var(StorageClass::PushConstant, st, "node_dispatch"), first_member: 0 }
            }
        };
        let record_index = cx.global_var(StorageClass::Private, u, "node_record_index");
        let record_count = cx.global_var(StorageClass::Private, u, "node_record_count");
        let v3 = cx.vec(u, 3);
        let group_id = cx.global_var(StorageClass::Private, v3, "node_group_id");
        let (table_index, _) = output_table(&props);
        Ok(NodeState {
            props,
            num_threads,
            push,
            record_index,
            record_count,
            group_id,
            exchange: None,
            table_index,
            node_handles: HashMap::default(),
            record_handles: HashMap::default(),
        })
    }
}

impl Interface {
    /// Emits the wrapper entry function of a node whose body is `body` (module documentation);
    /// returns its id.
    pub(in crate::emit) fn node_entry(&mut self, cx: &mut ModuleBuilder<'_>, name: &str, body: Word) -> Result<Word> {
        let iface = self;
        let node = iface.node.clone().ok_or_else(|| Error::Internal("node entry without node state".into()))?;
        let void = cx.void();
        let fn_void = cx.b.type_function(void, []);
        let entry = cx.b.begin_function(void, None, spirv::FunctionControl::NONE, fn_void)?;
        if !name.contains('\0') {
            cx.b.name(entry, name);
        }
        let first_block = cx.b.begin_block(None)?;
        let u = cx.u32_t();
        let v3 = cx.vec(u, 3);
        let bool_t = cx.bool_t();
        let wg_var = iface.builtin(cx, BuiltIn::WorkgroupId, StorageClass::Input, v3);
        let wg = cx.b.block_value(Op::Load, v3, &[wg_var])?;
        let wx = cx.b.block_value(Op::CompositeExtract, u, &[wg, 0])?;
        let (count, gx_raw) = dispatch_counts(cx, &node, first_block)?;
        let one = cx.const_u32(1);
        let (index, records, run) = match node.props.launch {
            NodeLaunch::Broadcasting => {
                // A zero grid.x launches nothing; it is read as 1 so the division is defined.
                let zero = cx.const_u32(0);
                let is_zero = cx.b.block_value(Op::IEqual, bool_t, &[gx_raw, zero])?;
                let gx = cx.b.block_value(Op::Select, u, &[is_zero, one, gx_raw])?;
                let record = cx.b.block_value(Op::UDiv, u, &[wx, gx])?;
                let gid_x = cx.b.block_value(Op::UMod, u, &[wx, gx])?;
                let wy = cx.b.block_value(Op::CompositeExtract, u, &[wg, 1])?;
                let wz = cx.b.block_value(Op::CompositeExtract, u, &[wg, 2])?;
                let gid = cx.b.block_value(Op::CompositeConstruct, v3, &[gid_x, wy, wz])?;
                cx.b.block_inst(Op::Store, None, None, &[node.group_id, gid])?;
                let mut run = cx.b.block_value(Op::ULessThan, bool_t, &[record, count])?;
                if node.props.dispatch.dispatch_grid.is_none() {
                    // Dynamic grid: the record's own SV_DispatchGrid bounds its groups.
                    let base = node.push.load(cx, Push::InputRecords)?;
                    let stride = node.push.load(cx, Push::InputStride)?;
                    let rec = element_addr(cx, base, record, stride)?;
                    let grid = record_grid(cx, &node.props, rec)?;
                    let bvec3 = cx_bvec3(cx);
                    let inside = cx.b.block_value(Op::ULessThan, bvec3, &[gid, grid])?;
                    let all = cx.b.block_value(Op::All, bool_t, &[inside])?;
                    run = cx.b.block_value(Op::LogicalAnd, bool_t, &[run, all])?;
                }
                (record, one, run)
            }
            NodeLaunch::Coalescing => {
                let max = node.props.inputs.first().and_then(|i| i.max_records).unwrap_or(1).max(1);
                let max_w = cx.const_u32(max);
                let first = cx.b.block_value(Op::IMul, u, &[wx, max_w])?;
                let run = cx.b.block_value(Op::ULessThan, bool_t, &[first, count])?;
                let left = cx.b.block_value(Op::ISub, u, &[count, first])?;
                let fewer = cx.b.block_value(Op::ULessThan, bool_t, &[left, max_w])?;
                let n = cx.b.block_value(Op::Select, u, &[fewer, left, max_w])?;
                (first, n, run)
            }
            NodeLaunch::Thread => {
                let li = iface.builtin(cx, BuiltIn::LocalInvocationIndex, StorageClass::Input, u);
                let l = cx.b.block_value(Op::Load, u, &[li])?;
                let n = cx.const_u32(node.num_threads[0]);
                let base = cx.b.block_value(Op::IMul, u, &[wx, n])?;
                let t = cx.b.block_value(Op::IAdd, u, &[base, l])?;
                let run = cx.b.block_value(Op::ULessThan, bool_t, &[t, count])?;
                (t, one, run)
            }
        };
        cx.b.block_inst(Op::Store, None, None, &[node.record_index, index])?;
        cx.b.block_inst(Op::Store, None, None, &[node.record_count, records])?;
        cx.b.call_if_and_return(run, void, body)?;
        cx.b.end_function()?;
        Ok(entry)
    }
}

/// The dispatch's `record_count` and `grid.x`: from the `DispatchArguments` record at
/// `dispatch_arguments` when that is not 0 (a GPU-driven scheduler wrote them there beside
/// the indirect dispatch command), else from the push constants. Emitted as a selection
/// closing the wrapper's first block (`entry_block`); leaves the builder in its merge.
fn dispatch_counts(cx: &mut ModuleBuilder<'_>, node: &NodeState, entry_block: Word) -> Result<(Word, Word)> {
    let u = cx.u32_t();
    let u64t = cx.uint(64);
    let bool_t = cx.bool_t();
    let pushed_count = node.push.load(cx, Push::RecordCount)?;
    let pushed_gx = node.push.load(cx, Push::GridX)?;
    let args = node.push.load(cx, Push::DispatchArguments)?;
    let zero64 = cx.const_bits(u64t, 64, 0);
    let in_memory = cx.b.block_value(Op::INotEqual, bool_t, &[args, zero64])?;
    let (read, join) = (cx.b.id(), cx.b.id());
    cx.b.selection_merge(join, spirv::SelectionControl::NONE)?;
    cx.b.branch_conditional(in_memory, read, join, [])?;
    cx.b.begin_block(Some(read))?;
    let at_count = cx.const_u32(ARGUMENTS_RECORD_COUNT);
    let count_addr = offset_addr(cx, args, at_count)?;
    let stored_count = load_at(cx, count_addr, u, 4)?;
    let at_gx = cx.const_u32(ARGUMENTS_RECORD_COUNT + 4);
    let gx_addr = offset_addr(cx, args, at_gx)?;
    let stored_gx = load_at(cx, gx_addr, u, 4)?;
    cx.b.branch(join)?;
    cx.b.begin_block(Some(join))?;
    let count = cx.b.phi(u, None, [(stored_count, read), (pushed_count, entry_block)])?;
    let gx = cx.b.phi(u, None, [(stored_gx, read), (pushed_gx, entry_block)])?;
    Ok((count, gx))
}

fn cx_bvec3(cx: &mut ModuleBuilder<'_>) -> Word {
    let b = cx.bool_t();
    cx.vec(b, 3)
}
