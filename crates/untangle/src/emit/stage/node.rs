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
//! (`crate::emit::dxop::nodes`) read those variables.
//!
//! # Record memory
//!
//! Record pointers (`addrspace(6)`) are 64-bit device addresses in SPIR-V (`uint64`): a GEP
//! on one is integer arithmetic over the record's natural layout ([`layout_of`]: DXIL's
//! data layout, each scalar aligned to its size), and a load, store or atomic converts the
//! address to a `PhysicalStorageBuffer` pointer to the scalar or vector it reaches (with the
//! `Aligned` memory operand), so no explicitly laid-out record types are needed.
//!
//! Cost: constant per node beyond the body's emission.

use super::super::error::{Error, Result};
use super::super::module::ModuleBuilder;
use crate::dxil::node::{NodeLaunch, NodeProperties};
use crate::dxil::EntryPoint;
use crate::ir::hash::HashMap;
use crate::ir::{InstId, Type, TypeId, Types, Value};
use rspirv::dr::Operand;
use rspirv::spirv::{self, AddressingModel, BuiltIn, Capability, Decoration, MemoryModel, Op, StorageClass, Word};

/// Bytes of the `NodeDispatch` push-constant block.
pub const PUSH_CONSTANT_SIZE: u32 = 64;
/// Byte offset of `record_count` in a `DispatchArguments` record (after the
/// `VkDispatchIndirectCommand`); `grid` follows at +4.
pub const ARGUMENTS_RECORD_COUNT: u32 = 12;
/// Bytes of one output-table entry.
pub const OUTPUT_ENTRY_SIZE: u32 = 32;

/// Members of the `NodeDispatch` block: (name, offset, is 64-bit).
const PUSH_MEMBERS: [(&str, u32, bool); 11] = [
    ("input_records", 0, true),
    ("output_table", 8, true),
    ("sharing_counters", 16, true),
    ("input_stride", 24, false),
    ("record_count", 28, false),
    ("grid_x", 32, false),
    ("grid_y", 36, false),
    ("grid_z", 40, false),
    ("remaining_recursion_levels", 44, false),
    ("local_root_arguments", 48, true),
    ("dispatch_arguments", 56, true),
];

/// A member of the push-constant block.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Push {
    InputRecords = 0,
    OutputTable = 1,
    SharingCounters = 2,
    InputStride = 3,
    RecordCount = 4,
    /// `grid_y` and `grid_z` (members 6 and 7) are the dispatch's own y and z sizes, which
    /// the shader reads from `WorkgroupId` instead.
    GridX = 5,
    RemainingRecursionLevels = 8,
    LocalRootArguments = 9,
    /// Address of the `DispatchArguments` record a GPU-driven scheduler wrote, or 0.
    DispatchArguments = 10,
}

/// A node output handle: output `output` (its index in the metadata's output list), array
/// element `index` (an IR value; `None`: element 0).
#[derive(Copy, Clone, Debug)]
pub struct NodeHandle {
    pub output: u32,
    pub index: Option<Value>,
}

/// A node record handle.
#[derive(Copy, Clone, Debug)]
pub enum RecordHandle {
    /// The node's input records.
    Input,
    /// Records allocated from an output: the first slot is in `Private` variable `slot`.
    Output { node: NodeHandle, slot: Word },
}

/// The node's variables and the symbolic handles of its body.
#[derive(Clone, Debug)]
pub struct NodeState {
    pub props: NodeProperties,
    pub num_threads: [u32; 3],
    /// The push-constant variable holding the `NodeDispatch` members.
    pub push: Word,
    /// The member index of the first of them (0 in the node's own block).
    pub push_first_member: u32,
    /// `Private` `uint`: index (from `input_records`) of this group's first record, or of
    /// this thread's record (thread launch).
    pub record_index: Word,
    /// `Private` `uint`: `GetInputRecordCount()`.
    pub record_count: Word,
    /// `Private` `uvec3`: the broadcasting node's `SV_GroupID`.
    pub group_id: Word,
    /// `Workgroup` `uint` through which one thread hands a value to its group (made on
    /// first use).
    pub exchange: Option<Word>,
    /// First output-table entry of each output.
    pub table_index: Vec<u32>,
    pub node_handles: HashMap<InstId, NodeHandle>,
    pub record_handles: HashMap<InstId, RecordHandle>,
}

/// The first output-table entry of each output and the table's length.
pub fn output_table(props: &NodeProperties) -> (Vec<u32>, u32) {
    let mut next = 0u32;
    let mut first = Vec::with_capacity(props.outputs.len());
    for o in &props.outputs {
        first.push(next);
        // An unbounded array has one indirect entry (docs/work-graphs.md).
        let n = if o.is_unbounded() { 1 } else { o.array_size.unwrap_or(1).max(1) };
        next = next.saturating_add(n);
    }
    (first, next)
}

/// The `NodeDispatch` members: name, byte offset in the block, SPIR-V type.
pub(crate) fn push_members(cx: &mut ModuleBuilder<'_>) -> Vec<(&'static str, u32, Word)> {
    let u = cx.u32_t();
    let u64t = cx.uint(64);
    PUSH_MEMBERS.iter().map(|&(name, offset, wide)| (name, offset, if wide { u64t } else { u })).collect()
}

/// Threads per workgroup of a thread-launch node's module when D3D's group is the usual
/// single thread: each thread is a D3D group of its own, so the module's workgroups only
/// batch them (`docs/work-graphs.md`, "Thread"), and 32 fill a wave on most hardware.
pub const THREAD_LAUNCH_BATCH: u32 = 32;

/// The node's `LocalSize` (and the report's `num_threads`): its `[NumThreads]`, except that
/// a thread-launch node of one thread per D3D group is batched [`THREAD_LAUNCH_BATCH`] to a
/// workgroup, unless the module has groupshared memory (which batched threads would share;
/// D3D gives thread-launch nodes none, so this only keeps odd input correct).
pub fn local_size(m: &crate::ir::Module, ep: &EntryPoint) -> [u32; 3] {
    let n = ep.properties.num_threads.unwrap_or([1, 1, 1]);
    let thread = ep.properties.node.as_ref().is_some_and(|p| p.launch == NodeLaunch::Thread);
    let groupshared = m.globals.values().any(|g| g.addr_space == 3);
    if thread && n == [1, 1, 1] && !groupshared {
        [THREAD_LAUNCH_BATCH, 1, 1]
    } else {
        n
    }
}

/// The byte offset of the `NodeDispatch` members when a root signature's lowering already
/// has `root_push_bytes` of push constants: the next multiple of 8.
pub fn push_offset_after(root_push_bytes: u32) -> u32 {
    root_push_bytes.next_multiple_of(8)
}

/// Where the node's push constants live: its own block, or the root signature's
/// (`resources.rs` appends the members; `first_member` is the first one's index).
pub(crate) enum PushPlace {
    Own,
    Root { var: Word, first_member: u32 },
}

/// Declares what every node module has: the addressing model, capabilities, the push
/// constants and the `Private` variables; checks what the translation cannot handle.
pub(crate) fn prepare(cx: &mut ModuleBuilder<'_>, ep: &EntryPoint, place: PushPlace) -> Result<NodeState> {
    let name = super::ray_tracing::export_name(&ep.name).to_string();
    let props =
        ep.properties.node.clone().ok_or_else(|| Error::Malformed(format!("node `{name}` has no node properties")))?;
    let num_threads = local_size(cx.m, ep);
    if num_threads.contains(&0) {
        return Err(Error::Malformed(format!("node `{name}` has numthreads {num_threads:?}")));
    }
    if props.launch == NodeLaunch::Thread && (num_threads[1] != 1 || num_threads[2] != 1) {
        return Err(Error::Malformed(format!(
            "thread-launch node `{name}` has numthreads {num_threads:?} (only x may exceed 1)"
        )));
    }
    if let Some(g) = props.dispatch_grid.or(props.max_dispatch_grid) {
        if g.contains(&0) || g.iter().any(|&d| d > 65535) {
            return Err(Error::Malformed(format!("node `{name}` has dispatch grid {g:?}")));
        }
    }
    for (k, o) in props.outputs.iter().enumerate() {
        if !o.is_unbounded() && o.array_size.is_some_and(|n| n == 0 || n > (1 << 24)) {
            return Err(Error::Malformed(format!(
                "node `{name}`: output {k} is a node array of {} elements",
                o.array_size.unwrap_or(0)
            )));
        }
    }
    cx.capability(Capability::Int64);
    cx.capability(Capability::PhysicalStorageBufferAddresses);
    cx.b.memory_model(AddressingModel::PhysicalStorageBuffer64, MemoryModel::GLSL450);
    let u = cx.u32_t();
    let (push, push_first_member) = match place {
        PushPlace::Root { var, first_member } => (var, first_member),
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
            (cx.global_var(StorageClass::PushConstant, st, "node_dispatch"), 0)
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
        push_first_member,
        record_index,
        record_count,
        group_id,
        exchange: None,
        table_index,
        node_handles: HashMap::default(),
        record_handles: HashMap::default(),
    })
}

/// Loads push-constant member `m` in the current block (`push`: the variable and the
/// index of the first `NodeDispatch` member in it).
pub(crate) fn push_load(cx: &mut ModuleBuilder<'_>, push: (Word, u32), m: Push) -> Result<Word> {
    let ty = if PUSH_MEMBERS[m as usize].2 { cx.uint(64) } else { cx.u32_t() };
    let pty = cx.ptr(StorageClass::PushConstant, ty);
    let k = cx.const_u32(push.1 + m as u32);
    let p = cx.b.block_value(Op::AccessChain, pty, &[push.0, k])?;
    Ok(cx.b.block_value(Op::Load, ty, &[p])?)
}

/// Loads a scalar or vector of SPIR-V type `ty` from device address `addr` (a `uint64`).
pub(crate) fn load_at(cx: &mut ModuleBuilder<'_>, addr: Word, ty: Word, align: u32) -> Result<Word> {
    let pty = cx.ptr(StorageClass::PhysicalStorageBuffer, ty);
    let p = cx.b.block_value(Op::ConvertUToPtr, pty, &[addr])?;
    Ok(cx.b.block_value(Op::Load, ty, &[p, spirv::MemoryAccess::ALIGNED.bits(), align])?)
}

/// `addr + offset` (64-bit), `offset` a 32-bit unsigned id.
pub(crate) fn offset_addr(cx: &mut ModuleBuilder<'_>, addr: Word, offset32: Word) -> Result<Word> {
    let u64t = cx.uint(64);
    let wide = cx.b.block_value(Op::UConvert, u64t, &[offset32])?;
    Ok(cx.b.block_value(Op::IAdd, u64t, &[addr, wide])?)
}

/// `addr + index * stride` (64-bit), `index` and `stride` 32-bit unsigned ids.
pub(crate) fn element_addr(cx: &mut ModuleBuilder<'_>, addr: Word, index: Word, stride: Word) -> Result<Word> {
    let u64t = cx.uint(64);
    let i = cx.b.block_value(Op::UConvert, u64t, &[index])?;
    let s = cx.b.block_value(Op::UConvert, u64t, &[stride])?;
    let off = cx.b.block_value(Op::IMul, u64t, &[i, s])?;
    Ok(cx.b.block_value(Op::IAdd, u64t, &[addr, off])?)
}

/// Size and alignment in bytes of an IR type in record memory (DXIL's data layout:
/// scalars aligned to their size, `i1` as 4 bytes, aggregates to their widest member).
pub fn layout_of(types: &Types, t: TypeId) -> Option<(u64, u64)> {
    layout_depth(types, t, 0)
}

fn layout_depth(types: &Types, t: TypeId, depth: u32) -> Option<(u64, u64)> {
    if depth > 32 {
        return None;
    }
    match types.get(t) {
        Type::Int(1) => Some((4, 4)),
        Type::Int(b @ (8 | 16 | 32 | 64)) => Some((*b as u64 / 8, *b as u64 / 8)),
        Type::Float(k) if matches!(k.bits(), 16 | 32 | 64) => Some((k.bits() as u64 / 8, k.bits() as u64 / 8)),
        Type::Vector { elem, len } => {
            let (s, a) = layout_depth(types, *elem, depth + 1)?;
            Some((s.checked_mul(*len as u64)?, a))
        }
        Type::Array { elem, len } => {
            let (s, a) = layout_depth(types, *elem, depth + 1)?;
            Some((s.checked_mul(*len)?, a))
        }
        Type::Struct { .. } | Type::Named(_) => {
            let fields = types.struct_fields(t)?;
            let (mut size, mut align) = (0u64, 1u64);
            for &f in fields {
                let (s, a) = layout_depth(types, f, depth + 1)?;
                size = size.checked_next_multiple_of(a)?.checked_add(s)?;
                align = align.max(a);
            }
            Some((size.checked_next_multiple_of(align)?, align))
        }
        _ => None,
    }
}

/// Byte offset of field `k` of struct type `t` in record memory.
pub fn field_offset(types: &Types, t: TypeId, k: usize) -> Option<u64> {
    let fields = types.struct_fields(t)?;
    let mut at = 0u64;
    for (j, &f) in fields.iter().enumerate() {
        let (s, a) = layout_of(types, f)?;
        at = at.checked_next_multiple_of(a)?;
        if j == k {
            return Some(at);
        }
        at = at.checked_add(s)?;
    }
    None
}

/// Whether IR type `t` is a record pointer (`addrspace(6)`).
pub fn is_record_pointer(types: &Types, t: TypeId) -> bool {
    matches!(types.get(t), Type::Pointer { addr_space: 6, .. })
}

/// Emits the wrapper entry function of a node whose body is `body` (module documentation);
/// returns its id.
pub(crate) fn emit_entry(
    cx: &mut ModuleBuilder<'_>,
    iface: &mut super::super::interface::Interface,
    name: &str,
    body: Word,
) -> Result<Word> {
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
            if node.props.dispatch_grid.is_none() {
                // Dynamic grid: the record's own SV_DispatchGrid bounds its groups.
                let base = push_load(cx, (node.push, node.push_first_member), Push::InputRecords)?;
                let stride = push_load(cx, (node.push, node.push_first_member), Push::InputStride)?;
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
    let (call, end) = (cx.b.id(), cx.b.id());
    cx.b.selection_merge(end, spirv::SelectionControl::NONE)?;
    cx.b.branch_conditional(run, call, end, [])?;
    cx.b.begin_block(Some(call))?;
    cx.b.function_call(void, None, body, [])?;
    cx.b.branch(end)?;
    cx.b.begin_block(Some(end))?;
    cx.b.ret()?;
    cx.b.end_function()?;
    Ok(entry)
}

/// The dispatch's `record_count` and `grid.x`: from the `DispatchArguments` record at
/// `dispatch_arguments` when that is not 0 (a GPU-driven scheduler wrote them there beside
/// the indirect dispatch command), else from the push constants. Emitted as a selection
/// closing the wrapper's first block (`entry_block`); leaves the builder in its merge.
fn dispatch_counts(cx: &mut ModuleBuilder<'_>, node: &NodeState, entry_block: Word) -> Result<(Word, Word)> {
    let u = cx.u32_t();
    let u64t = cx.uint(64);
    let bool_t = cx.bool_t();
    let push = (node.push, node.push_first_member);
    let pushed_count = push_load(cx, push, Push::RecordCount)?;
    let pushed_gx = push_load(cx, push, Push::GridX)?;
    let args = push_load(cx, push, Push::DispatchArguments)?;
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

/// The `SV_DispatchGrid` of the record at `rec` (missing components 1), as a `uvec3`.
pub(crate) fn record_grid(cx: &mut ModuleBuilder<'_>, props: &NodeProperties, rec: Word) -> Result<Word> {
    let u = cx.u32_t();
    let v3 = cx.vec(u, 3);
    let field = props
        .inputs
        .first()
        .and_then(|i| i.record)
        .and_then(|r| r.dispatch_grid)
        .ok_or_else(|| Error::Malformed("a dynamic dispatch grid without an SV_DispatchGrid field".into()))?;
    let one = cx.const_u32(1);
    let mut comps = [one; 3];
    let bytes = if field.component_type == "u16" { 2 } else { 4 };
    for (k, c) in comps.iter_mut().enumerate().take(field.components as usize) {
        // 16-bit components are read from their 32-bit word (no 16-bit storage needed).
        let at = field.offset + bytes * k as u32;
        let off = cx.const_u32(at & !3);
        let a = offset_addr(cx, rec, off)?;
        let word = load_at(cx, a, u, 4)?;
        *c = if bytes == 2 {
            let shift = cx.const_u32((at & 3) * 8);
            let mask = cx.const_u32(0xffff);
            let v = cx.b.block_value(Op::ShiftRightLogical, u, &[word, shift])?;
            cx.b.block_value(Op::BitwiseAnd, u, &[v, mask])?
        } else {
            word
        };
    }
    Ok(cx.b.block_value(Op::CompositeConstruct, v3, &comps)?)
}
