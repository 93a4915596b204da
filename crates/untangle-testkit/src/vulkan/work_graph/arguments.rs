//! The GPU-driven scheduler's one shader of its own: it turns record counters into
//! `DispatchArguments` records (`docs/work-graphs.md`, "GPU-driven scheduling"), so that the
//! node dispatches of a level can be `vkCmdDispatchIndirect`s the host never waits on.
//!
//! # Interface
//!
//! Push constants: `u64 memory` (the address of the scheduler's memory), `u32 plan` (byte
//! offset there of this level's plan), `u32 entries`. Invocation `i < entries` reads plan
//! entry `i` ([`PlanEntry`], 16 words at `plan + 64·i`) and writes one 32-byte
//! `DispatchArguments` record:
//!
//! * `count = min(chunk, counter − first)` (0 when the counter is at most `first`): the
//!   records of this chunk of the (node, level) buffer;
//! * broadcasting: `grid` = the fixed grid, or for a dynamic grid the component-wise maximum
//!   of the chunk's records' `SV_DispatchGrid` (missing components 1), each component
//!   clamped to the node's `max_dispatch_grid`; groups `(count · grid.x, grid.y, grid.z)`;
//! * coalescing and thread launch: groups `(ceil(count / per_group), 1, 1)`, grid `(1, 1, 1)`.
//!
//! A zero count gives zero groups, which `vkCmdDispatchIndirect` launches as nothing.
//!
//! Cost: one invocation per plan entry; a dynamic grid reads each of the chunk's records once.

use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Error, Operand};
use rspirv::spirv::{self, Word};

/// Bytes of one plan entry.
pub const PLAN_ENTRY_BYTES: u32 = 64;
/// Bytes of one `DispatchArguments` record.
pub const ARGUMENTS_BYTES: u32 = 32;
/// Invocations per workgroup of the shader.
pub const LOCAL_SIZE: u32 = 64;
/// The shader's entry point.
pub const ENTRY: &str = "node_dispatch_arguments";

/// How the node is launched, as the shader reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanLaunch {
    Broadcasting = 0,
    /// Coalescing and thread launch: `per_group` records per workgroup.
    PerGroup = 1,
}

/// One chunk of one (node, level) record buffer: what the shader needs to size its dispatch.
/// Offsets are bytes into the scheduler's memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanEntry {
    pub counter: u32,
    /// The chunk's first record.
    pub first: u32,
    /// The most records the chunk takes.
    pub chunk: u32,
    pub broadcasting: bool,
    /// Coalescing `max_records` or thread-launch `NumThreads.x`.
    pub per_group: u32,
    /// The fixed grid, or a dynamic grid's `max_dispatch_grid`.
    pub grid: [u32; 3],
    /// The chunk's first record.
    pub records: u32,
    pub stride: u32,
    /// `SV_DispatchGrid`: its byte offset in the record, its components (0: fixed grid),
    /// whether they are 16-bit.
    pub grid_field: u32,
    pub grid_components: u32,
    pub grid_u16: bool,
    /// Where the `DispatchArguments` record goes.
    pub arguments: u32,
}

impl PlanEntry {
    /// The entry's 16 little-endian words, as bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let words = [
            self.counter,
            self.first,
            self.chunk,
            if self.broadcasting { PlanLaunch::Broadcasting as u32 } else { PlanLaunch::PerGroup as u32 },
            self.per_group.max(1),
            self.grid[0],
            self.grid[1],
            self.grid[2],
            self.records,
            self.stride,
            self.grid_field,
            self.grid_components,
            self.grid_u16 as u32,
            self.arguments,
            0,
            0,
        ];
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// The shader's SPIR-V (module documentation).
pub fn module() -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 5);
    // The builder only fails on misuse (a block outside a function), not here.
    build(&mut b).expect("a well-formed builder sequence");
    b.module().assemble()
}

/// The ids every part of the shader uses.
struct Ids {
    uint: Word,
    ulong: Word,
    ptr_uint: Word,
}

/// `*(uint*)(base + offset)` with 4-byte alignment.
fn load(b: &mut Builder, t: &Ids, addr: Word) -> Result<Word, Error> {
    let p = b.convert_u_to_ptr(t.ptr_uint, None, addr)?;
    b.load(t.uint, None, p, Some(spirv::MemoryAccess::ALIGNED), [Operand::LiteralBit32(4)])
}

fn store(b: &mut Builder, t: &Ids, addr: Word, value: Word) -> Result<(), Error> {
    let p = b.convert_u_to_ptr(t.ptr_uint, None, addr)?;
    b.store(p, value, Some(spirv::MemoryAccess::ALIGNED), [Operand::LiteralBit32(4)])
}

/// `base + offset` where `offset` is a 32-bit value.
fn add(b: &mut Builder, t: &Ids, base: Word, offset: Word) -> Result<Word, Error> {
    let wide = b.u_convert(t.ulong, None, offset)?;
    b.i_add(t.ulong, None, base, wide)
}

fn build(b: &mut Builder) -> Result<(), Error> {
    b.capability(spirv::Capability::Shader);
    b.capability(spirv::Capability::Int64);
    b.capability(spirv::Capability::PhysicalStorageBufferAddresses);
    b.memory_model(spirv::AddressingModel::PhysicalStorageBuffer64, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let bool_t = b.type_bool();
    let uint = b.type_int(32, 0);
    let ulong = b.type_int(64, 0);
    let uvec3 = b.type_vector(uint, 3);
    let ptr_uint = b.type_pointer(None, spirv::StorageClass::PhysicalStorageBuffer, uint);
    let t = Ids { uint, ulong, ptr_uint };
    let push_t = b.type_struct([ulong, uint, uint]);
    b.decorate(push_t, spirv::Decoration::Block, []);
    for (k, offset) in [0u32, 8, 12].into_iter().enumerate() {
        b.member_decorate(push_t, k as u32, spirv::Decoration::Offset, [Operand::LiteralBit32(offset)]);
    }
    let pc = spirv::StorageClass::PushConstant;
    let push_ptr = b.type_pointer(None, pc, push_t);
    let push = b.variable(push_ptr, None, pc, None);
    let input_ptr = b.type_pointer(None, spirv::StorageClass::Input, uvec3);
    let gid_var = b.variable(input_ptr, None, spirv::StorageClass::Input, None);
    b.decorate(gid_var, spirv::Decoration::BuiltIn, [Operand::BuiltIn(spirv::BuiltIn::GlobalInvocationId)]);
    let c = |b: &mut Builder, v: u32| b.constant_bit32(uint, v);
    let (zero, one, two, four, eight) = (c(b, 0), c(b, 1), c(b, 2), c(b, 4), c(b, 8));
    let ffff = c(b, 0xffff);
    let not3 = b.constant_bit64(ulong, !3u64);
    let plan_bytes = c(b, PLAN_ENTRY_BYTES);
    let fn_void = b.type_function(void, []);

    let f = b.begin_function(void, None, spirv::FunctionControl::NONE, fn_void)?;
    b.entry_point(spirv::ExecutionModel::GLCompute, f, ENTRY, [push, gid_var]);
    b.execution_mode(f, spirv::ExecutionMode::LocalSize, [LOCAL_SIZE, 1, 1]);
    b.begin_block(None)?;
    let member = |b: &mut Builder, ty: Word, k: u32| -> Result<Word, Error> {
        let pt = b.type_pointer(None, pc, ty);
        let kk = b.constant_bit32(uint, k);
        let p = b.access_chain(pt, None, push, [kk])?;
        b.load(ty, None, p, None, [])
    };
    let memory = member(b, ulong, 0)?;
    let plan = member(b, uint, 1)?;
    let entries = member(b, uint, 2)?;
    let gid = b.load(uvec3, None, gid_var, None, [])?;
    let i = b.composite_extract(uint, None, gid, [0])?;
    let active = b.u_less_than(bool_t, None, i, entries)?;
    let (body, end) = (b.id(), b.id());
    b.selection_merge(end, spirv::SelectionControl::NONE)?;
    b.branch_conditional(active, body, end, [])?;

    b.begin_block(Some(body))?;
    let at = b.i_mul(uint, None, i, plan_bytes)?;
    let at = b.i_add(uint, None, plan, at)?;
    let entry = add(b, &t, memory, at)?;
    let mut word = Vec::with_capacity(14);
    for k in 0..14u32 {
        let off = c(b, 4 * k);
        let a = add(b, &t, entry, off)?;
        word.push(load(b, &t, a)?);
    }
    let [counter_at, first, chunk, launch, per_group, max_x, max_y, max_z, records_at, stride, field, components, is_u16, args_at] =
        word[..]
    else {
        unreachable!("14 words");
    };
    let counter_addr = add(b, &t, memory, counter_at)?;
    let total = load(b, &t, counter_addr)?;
    let has = b.u_greater_than(bool_t, None, total, first)?;
    let left = b.i_sub(uint, None, total, first)?;
    let left = b.select(uint, None, has, left, zero)?;
    let fewer = b.u_less_than(bool_t, None, left, chunk)?;
    let count = b.select(uint, None, fewer, left, chunk)?;
    let broadcasting = b.i_equal(bool_t, None, launch, zero)?;
    let dynamic = b.u_greater_than(bool_t, None, components, zero)?;
    let scan = b.logical_and(bool_t, None, broadcasting, dynamic)?;
    let scanned = b.select(uint, None, scan, count, zero)?;
    // Start values: components the field has start at 0, the others at 1.
    let starts: Vec<Word> = (0..3u32)
        .map(|k| {
            let kk = c(b, k);
            let present = b.u_less_than(bool_t, None, kk, components)?;
            b.select(uint, None, present, zero, one)
        })
        .collect::<Result<_, _>>()?;
    let records_base = add(b, &t, memory, records_at)?;
    let u16_field = b.i_not_equal(bool_t, None, is_u16, zero)?;
    let step = b.select(uint, None, u16_field, two, four)?;
    let entry_block = body;

    // for r in 0..scanned: m[k] = max(m[k], field k of record r)
    let (header, looped, cont, merge) = (b.id(), b.id(), b.id(), b.id());
    b.branch(header)?;
    b.begin_block(Some(header))?;
    let (r_id, m_ids) = (b.id(), [b.id(), b.id(), b.id()]);
    let (r_next, m_next) = (b.id(), [b.id(), b.id(), b.id()]);
    b.phi(uint, Some(r_id), [(zero, entry_block), (r_next, cont)])?;
    for k in 0..3 {
        b.phi(uint, Some(m_ids[k]), [(starts[k], entry_block), (m_next[k], cont)])?;
    }
    let more = b.u_less_than(bool_t, None, r_id, scanned)?;
    b.loop_merge(merge, cont, spirv::LoopControl::NONE, [])?;
    b.branch_conditional(more, looped, merge, [])?;

    b.begin_block(Some(looped))?;
    let rec_off = b.i_mul(uint, None, r_id, stride)?;
    let rec_off = b.i_add(uint, None, rec_off, field)?;
    let field_base = add(b, &t, records_base, rec_off)?;
    let mut maxed = Vec::with_capacity(3);
    for (k, &m) in m_ids.iter().enumerate() {
        let kk = c(b, k as u32);
        let present = b.u_less_than(bool_t, None, kk, components)?;
        let off = b.i_mul(uint, None, kk, step)?;
        let off = b.select(uint, None, present, off, zero)?;
        let addr = add(b, &t, field_base, off)?;
        let aligned = b.bitwise_and(ulong, None, addr, not3)?;
        let w = load(b, &t, aligned)?;
        // A 16-bit component in the upper half of its word when its address is 2 mod 4.
        let low = b.u_convert(uint, None, addr)?;
        let shift = b.bitwise_and(uint, None, low, two)?;
        let shift = b.i_mul(uint, None, shift, eight)?;
        let half = b.shift_right_logical(uint, None, w, shift)?;
        let half = b.bitwise_and(uint, None, half, ffff)?;
        let v = b.select(uint, None, u16_field, half, w)?;
        let v = b.select(uint, None, present, v, zero)?;
        let bigger = b.u_greater_than(bool_t, None, v, m)?;
        maxed.push(b.select(uint, None, bigger, v, m)?);
    }
    b.branch(cont)?;

    b.begin_block(Some(cont))?;
    let r1 = b.i_add(uint, None, r_id, one)?;
    // The continue block's values, under the ids the header's phis name.
    b.copy_object(uint, Some(r_next), r1)?;
    for k in 0..3 {
        b.copy_object(uint, Some(m_next[k]), maxed[k])?;
    }
    b.branch(header)?;

    b.begin_block(Some(merge))?;
    // The grid: fixed, or the records' maximum clamped to max_dispatch_grid.
    let mut grid = Vec::with_capacity(3);
    for (k, &max) in [max_x, max_y, max_z].iter().enumerate() {
        let over = b.u_greater_than(bool_t, None, m_ids[k], max)?;
        let clamped = b.select(uint, None, over, max, m_ids[k])?;
        let g = b.select(uint, None, dynamic, clamped, max)?;
        let g = b.select(uint, None, broadcasting, g, one)?;
        grid.push(g);
    }
    let bx = b.i_mul(uint, None, count, grid[0])?;
    let round = b.i_sub(uint, None, per_group, one)?;
    let up = b.i_add(uint, None, count, round)?;
    let groups = b.u_div(uint, None, up, per_group)?;
    let gx = b.select(uint, None, broadcasting, bx, groups)?;
    let gy = b.select(uint, None, broadcasting, grid[1], one)?;
    let gz = b.select(uint, None, broadcasting, grid[2], one)?;
    let args = add(b, &t, memory, args_at)?;
    for (k, v) in [gx, gy, gz, count, grid[0], grid[1], grid[2], zero].into_iter().enumerate() {
        let off = c(b, 4 * k as u32);
        let a = add(b, &t, args, off)?;
        store(b, &t, a, v)?;
    }
    b.branch(end)?;

    b.begin_block(Some(end))?;
    b.ret()?;
    b.end_function()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_shader_is_valid_spirv() {
        let val = untangle_spirv_tools::find_spirv_val().expect("spirv-val on PATH");
        val.validate(&super::module(), "vulkan1.2").unwrap();
    }
}
