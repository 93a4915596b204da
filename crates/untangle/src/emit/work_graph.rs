//! The work-graph contract that node modules share with their scheduler
//! (`docs/work-graphs.md`): the `NodeDispatch` push-constant block ([`Push`]), the output
//! table, the `DispatchArguments` record, record memory, and the state of one node's
//! translation ([`NodeState`]). The node stage (`stage::node`), the node operations
//! (`dxop::nodes`), resources (local root arguments), function emission (record pointers)
//! and the library report all read it.
//!
//! # Record memory
//!
//! Record pointers (`addrspace(6)`) are 64-bit device addresses in SPIR-V (`uint64`): a GEP
//! on one is integer arithmetic over the record's natural layout ([`layout_of`]: DXIL's
//! data layout, each scalar aligned to its size), and a load, store or atomic converts the
//! address to a `PhysicalStorageBuffer` pointer to the scalar or vector it reaches (with the
//! `Aligned` memory operand), so no explicitly laid-out record types are needed.
//!
//! A low-level module of `emit` (see its documentation): it imports only
//! [`super::error`], [`super::module`], [`super::entry`] and the layers below `emit`.

use super::error::{malformed, Result, Subject};
use super::module::ModuleBuilder;
use crate::dxil::node::{NodeLaunch, NodeProperties};
use crate::dxil::EntryPoint;
use crate::front::container::ShaderKind;
use crate::ir::hash::HashMap;
use crate::ir::{InstId, Type, TypeId, Types, Value};
use rspirv::spirv::{self, Op, StorageClass, Word};

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
    /// The `NodeDispatch` members.
    pub push: NodePush,
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
/// (`resources.rs` appends the members).
pub(crate) enum PushPlace {
    Own,
    Root(NodePush),
}

/// The `NodeDispatch` members in a push-constant block: the block's variable and the
/// index of the first member (0 in the node's own block).
#[derive(Clone, Copy, Debug)]
pub struct NodePush {
    pub var: Word,
    pub first_member: u32,
}

impl NodePush {
    /// The index of member `m` in the block.
    pub fn member(self, m: Push) -> u32 {
        self.first_member + m as u32
    }

    /// Loads member `m` in the current block.
    pub(crate) fn load(self, cx: &mut ModuleBuilder<'_>, m: Push) -> Result<Word> {
        let ty = if PUSH_MEMBERS[m as usize].2 { cx.uint(64) } else { cx.u32_t() };
        let pty = cx.ptr(StorageClass::PushConstant, ty);
        let k = cx.const_u32(self.member(m));
        let p = cx.b.block_value(Op::AccessChain, pty, &[self.var, k])?;
        Ok(cx.b.block_value(Op::Load, ty, &[p])?)
    }
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

/// The `SV_DispatchGrid` of the record at `rec` (missing components 1), as a `uvec3`.
pub(crate) fn record_grid(cx: &mut ModuleBuilder<'_>, props: &NodeProperties, rec: Word) -> Result<Word> {
    let u = cx.u32_t();
    let v3 = cx.vec(u, 3);
    let field = props.inputs.first().and_then(|i| i.record).and_then(|r| r.dispatch_grid).ok_or_else(|| {
        malformed(Subject::Stage(ShaderKind::Node), "a dynamic dispatch grid without an SV_DispatchGrid field")
    })?;
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
