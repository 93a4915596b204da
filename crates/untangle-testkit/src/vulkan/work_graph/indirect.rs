//! The GPU-driven reference scheduler: a whole work graph recorded into one command buffer
//! and submitted once, every node dispatch a `vkCmdDispatchIndirect` whose size the device
//! computes from the record counters (`docs/work-graphs.md`, "GPU-driven scheduling"). The
//! host never reads a counter before the graph has finished.
//!
//! # Algorithm
//!
//! 1. **Plan, on the host, from the report alone.** A work graph is a DAG apart from a
//!    node's outputs to itself, which `[NodeMaxRecursionDepth]` bounds, so the (node,
//!    recursion depth) pairs that can hold records at each level are known before anything
//!    runs: level 0 holds the program input's node; level `L + 1` every live output target
//!    ([`Graph::output_targets`]) of a node dispatched at level `L` (depth + 1 for a node's
//!    outputs to itself, 0 otherwise). Each such **slot** gets one record buffer and one
//!    `u32` counter, shared by every output-table entry that targets it, from any producer
//!    (the contract's "one buffer + counter per target node and level"). Its capacity is the
//!    bound the contract gives: the sum over its producers of `groups launched · budget`,
//!    where a producer's groups are bounded by its own slot's capacity (broadcasting:
//!    `capacity · grid`, with `max_dispatch_grid` for a dynamic grid; coalescing:
//!    `ceil(capacity / max_records)`; thread launch: `capacity`).
//! 2. **Memory.** One device buffer holds every counter, record buffer, output table and
//!    sub-table, `sharing_counters` array, local root argument record, plan and
//!    `DispatchArguments` record, each at a fixed offset, so every address is known when
//!    the command buffer is recorded. It starts zeroed (every counter of every level is a
//!    fresh one), with the program input in the level-0 slot and its counter set.
//! 3. **Record**, per level: the arguments pass ([`super::arguments`]) writes one
//!    `DispatchArguments` record per dispatch of the level (a slot's records split into
//!    chunks so that no group count passes 65,535), a barrier, every node dispatch of the
//!    level as `vkCmdDispatchIndirect` on its record with `dispatch_arguments` pointing at
//!    it (no barrier between them: nodes of one level may run concurrently), a barrier.
//! 4. **Read back** the memory: each dispatch's count and groups (the run's log), each
//!    slot's counter checked against its capacity.
//!
//! # Invariants
//!
//! * A counter never passes its slot's capacity for a graph whose nodes keep their
//!   `max_records` budgets (the contract's bound); one that does is
//!   [`GraphError::Overflow`] after the run.
//! * The log lists the dispatches that launched records, in recording order: by level, then
//!   by (node, depth), the node before the nodes sharing its input, then by chunk. The
//!   host-driven scheduler ([`super::run_graph`]) dispatches in the same order.
//! * Levels, slots, chunks and offsets depend on the report and the program input only.
//!
//! Cost: a plan and a memory linear in the slots, dispatches and capacities of the graph; the
//! capacities can grow geometrically with depth (bounded by [`MEMORY_LIMIT`]).

use super::arguments::{self, PlanEntry, ARGUMENTS_BYTES, PLAN_ENTRY_BYTES};
use super::{
    budget, put_u32, record_stride, u32_at, Graph, GraphError, GraphInput, GraphNode, GraphResources, GraphRun,
    NodeKey, NodeRun, MAX_GROUPS, MAX_LEVELS,
};
use crate::vulkan::program::{AddressPatch, Launch, Program, ProgramDispatch, PushAddress, Shader, Step};
use crate::vulkan::{AddressSlot, DeviceBuffer, Gpu};
use std::collections::BTreeMap;
use std::time::Duration;
use untangle::dxil::node::NodeLaunch;

/// The most bytes of scheduler memory a plan may take.
pub const MEMORY_LIMIT: u64 = 1 << 30;

/// The memory buffer's index among the program's device buffers (the graph's own device
/// buffers follow it).
const MEMORY: usize = 0;

/// One (node, depth) of one level: its records and counter.
#[derive(Clone, Debug, Default)]
struct Slot {
    /// The most records it can receive.
    capacity: u64,
    /// Bytes between records; 0 for records without data (empty outputs, empty input).
    stride: u32,
    counter: u32,
    /// Offset of record 0, when the records carry data.
    records: Option<u32>,
}

/// The slots of one level, by (node, recursion depth).
type Level = BTreeMap<(NodeKey, u32), Slot>;

/// One indirect dispatch: a chunk of a slot for one node.
struct Chunk {
    level: usize,
    node: usize,
    key: NodeKey,
    depth: u32,
    plan: PlanEntry,
    push: Vec<u8>,
    push_addresses: Vec<PushAddress>,
}

/// The scheduler memory under construction: bytes appended at 16-byte aligned offsets.
#[derive(Default)]
struct Memory {
    bytes: Vec<u8>,
    patches: Vec<AddressPatch>,
}

impl Memory {
    fn alloc(&mut self, len: u64) -> Result<u32, GraphError> {
        let at = (self.bytes.len() as u64).next_multiple_of(16);
        let end = at + len.max(4);
        if end > MEMORY_LIMIT {
            return Err(GraphError::Graph(format!("the graph's records need over {MEMORY_LIMIT} bytes")));
        }
        self.bytes.resize(end as usize, 0);
        Ok(at as u32)
    }

    /// Writes the address of `target`'s byte `plus` at `at`.
    fn address(&mut self, at: u32, target: usize, plus: u64) {
        self.patches.push(AddressPatch { buffer: MEMORY, offset: at as u64, target, plus });
    }
}

/// The groups one dispatch of `capacity` records can launch at most, and the records per
/// chunk that keep every group count at or under [`MAX_GROUPS`].
fn launch_bounds(n: &GraphNode, capacity: u64, grid: [u32; 3]) -> (u64, u64) {
    match n.node.launch {
        NodeLaunch::Broadcasting => {
            let per_record = grid.iter().map(|&g| g as u64).product::<u64>();
            (capacity * per_record, (MAX_GROUPS / grid[0].max(1) as u64).max(1))
        }
        NodeLaunch::Coalescing => {
            let m = n.node.input.as_ref().and_then(|i| i.max_records).unwrap_or(1).max(1) as u64;
            (capacity.div_ceil(m), MAX_GROUPS * m)
        }
        NodeLaunch::Thread => (capacity, MAX_GROUPS * n.node.num_threads[0].max(1) as u64),
    }
}

/// A broadcasting node's grid bound: its fixed grid or its `max_dispatch_grid`.
fn grid_bound(n: &GraphNode) -> Result<[u32; 3], GraphError> {
    match n.node.launch {
        NodeLaunch::Broadcasting => {
            n.node.dispatch.dispatch_grid.or(n.node.dispatch.max_dispatch_grid).ok_or_else(|| GraphError::Node {
                node: n.export.into(),
                message: "no grid: fixed or SV_DispatchGrid".into(),
            })
        }
        _ => Ok([1, 1, 1]),
    }
}

/// The nodes dispatched on the records of `key`: the node, then those sharing its input.
fn consumers<'g, 'a>(graph: &'g Graph<'a>, key: &NodeKey) -> Vec<(usize, &'g GraphNode<'a>)> {
    let mut out: Vec<(usize, &GraphNode)> = graph.nodes.iter().enumerate().filter(|(_, n)| n.key() == *key).collect();
    out.extend(
        graph
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.node.share_input_of.as_ref().is_some_and(|s| s.name == key.0 && s.index == key.1)),
    );
    out
}

/// The slots of every level with their capacities and strides (step 1 of the algorithm).
fn plan_levels(graph: &Graph, input: &GraphInput) -> Result<Vec<Level>, GraphError> {
    let mut levels: Vec<Level> = Vec::new();
    if input.count == 0 {
        return Ok(levels);
    }
    let first = Slot { capacity: input.count as u64, stride: input.stride, ..Default::default() };
    levels.push(BTreeMap::from([((input.node.clone(), 0), first)]));
    loop {
        let level = levels.last().expect("a level");
        let mut next = Level::new();
        for ((key, depth), slot) in level {
            let nodes = consumers(graph, key);
            if nodes.is_empty() {
                return Err(GraphError::Graph(format!("records for missing node {key:?}")));
            }
            for (_, n) in nodes {
                let grid = grid_bound(n)?;
                if grid.contains(&0) {
                    continue; // A zero grid launches nothing.
                }
                let (groups, _) = launch_bounds(n, slot.capacity, grid);
                for o in &n.node.outputs {
                    let stride = if o.empty { 0 } else { o.record.as_ref().map_or(0, record_stride) };
                    let adds = groups.saturating_mul(budget(&n.node.outputs, o) as u64);
                    for (_, target) in graph.output_targets(n, *depth, o).live {
                        let d = if target == n.key() { depth + 1 } else { 0 };
                        let s = next.entry((target.clone(), d)).or_insert(Slot { stride, ..Default::default() });
                        if s.stride != stride {
                            return Err(GraphError::Graph(format!(
                                "records of stride {stride} and {} for `{}`",
                                s.stride, target.0
                            )));
                        }
                        s.capacity = s.capacity.saturating_add(adds);
                    }
                }
            }
        }
        // Slots that can get no records still hold the counters their producers' tables
        // name (a zero budget), but end the plan when they are all there is.
        let more = next.values().any(|s| s.capacity > 0);
        if next.is_empty() {
            return Ok(levels);
        }
        if more && levels.len() == MAX_LEVELS {
            return Err(GraphError::Graph(format!("records may remain after {MAX_LEVELS} levels")));
        }
        levels.push(next);
        if !more {
            return Ok(levels);
        }
    }
}

/// Runs the graph from `input` as one submission of indirect dispatches (module
/// documentation), waiting at most `timeout` for it.
pub fn run_graph_indirect(
    gpu: &mut Gpu,
    graph: &Graph,
    input: &GraphInput,
    resources: GraphResources,
    timeout: Duration,
) -> Result<GraphRun, GraphError> {
    input.check(graph)?;
    let GraphResources { bindings, device_buffers, local_root_table } = resources;
    let mut levels = plan_levels(graph, input)?;
    let mut mem = Memory::default();

    // Counters and record buffers of every slot.
    for (l, level) in levels.iter_mut().enumerate() {
        for slot in level.values_mut() {
            slot.counter = mem.alloc(4)?;
            let bytes =
                if l == 0 { input.records.len() as u64 } else { slot.capacity.saturating_mul(slot.stride as u64) };
            if bytes > 0 {
                slot.records = Some(mem.alloc(bytes)?);
            }
        }
    }
    if let Some(slot) = levels.first().and_then(|l| l.values().next()) {
        let (counter, records) = (slot.counter as usize, slot.records);
        put_u32(&mut mem.bytes, counter, input.count);
        if let Some(at) = records {
            mem.bytes[at as usize..at as usize + input.records.len()].copy_from_slice(&input.records);
        }
    }

    // Local root argument records, one per node that has one, naming graph buffers.
    let mut local_root: BTreeMap<usize, u32> = BTreeMap::new();
    for (k, n) in graph.nodes.iter().enumerate() {
        let (Some(index), Some(t)) = (n.node.local_root_arguments_table_index, local_root_table.as_ref()) else {
            continue;
        };
        let (start, end) = (index as usize * t.stride as usize, (index as usize + 1) * t.stride as usize);
        let record = t.bytes.get(start..end).ok_or_else(|| GraphError::Node {
            node: n.export.into(),
            message: format!("no local root arguments record {index}"),
        })?;
        let at = mem.alloc(record.len() as u64)?;
        mem.bytes[at as usize..at as usize + record.len()].copy_from_slice(record);
        for &(offset, buffer) in t.addresses.iter().filter(|(o, _)| (start..end).contains(&(*o as usize))) {
            if buffer >= device_buffers.len() {
                return Err(GraphError::Node {
                    node: n.export.into(),
                    message: format!("no graph device buffer {buffer}"),
                });
            }
            mem.address(at + offset - start as u32, 1 + buffer, 0);
        }
        local_root.insert(k, at);
    }

    // Per level, per slot, per consumer: output table, sharing counters, chunks.
    let mut chunks: Vec<Chunk> = Vec::new();
    for l in 0..levels.len() {
        for ((key, depth), slot) in &levels[l] {
            for (k, n) in consumers(graph, key) {
                let grid = grid_bound(n)?;
                if grid.contains(&0) {
                    continue;
                }
                if grid.iter().any(|&g| g as u64 > MAX_GROUPS) {
                    return Err(GraphError::Node {
                        node: n.export.into(),
                        message: format!("grid {grid:?} past {MAX_GROUPS}"),
                    });
                }
                let base = n.push_offset() as usize;
                let mut push = vec![0u8; base + 64];
                let mut push_addresses = Vec::new();
                put_u32(&mut push, base + 24, slot.stride);
                let max_depth = n.node.dispatch.max_recursion_depth.unwrap_or(0);
                put_u32(&mut push, base + 44, max_depth - depth);
                if let Some(&at) = local_root.get(&k) {
                    push_addresses.push(PushAddress { at: base as u32 + 48, buffer: MEMORY, plus: at as u64 });
                }
                if n.node.output_table_entries > 0 {
                    let table = mem.alloc(32 * n.node.output_table_entries as u64)?;
                    push_addresses.push(PushAddress { at: base as u32 + 8, buffer: MEMORY, plus: table as u64 });
                    for o in &n.node.outputs {
                        let stride = if o.empty { 0 } else { o.record.as_ref().map_or(0, record_stride) };
                        let targets = graph.output_targets(n, *depth, o);
                        let entries_at = match targets.sub_table_len {
                            Some(len) => {
                                let sub = mem.alloc(32 * len.max(1) as u64)?;
                                let indirect = table + 32 * o.table_index;
                                mem.address(indirect, MEMORY, sub as u64);
                                put_u32(&mut mem.bytes, indirect as usize + 16, len);
                                sub
                            }
                            None => table,
                        };
                        for (entry, target) in targets.live {
                            let d = if target == n.key() { depth + 1 } else { 0 };
                            let next = levels
                                .get(l + 1)
                                .and_then(|m| m.get(&(target, d)))
                                .ok_or_else(|| GraphError::Graph("an output target the plan has no slot for".into()))?;
                            let e = entries_at + 32 * entry;
                            if let Some(records) = next.records {
                                mem.address(e, MEMORY, records as u64);
                            }
                            mem.address(e + 8, MEMORY, next.counter as u64);
                            put_u32(&mut mem.bytes, e as usize + 16, stride);
                            put_u32(&mut mem.bytes, e as usize + 20, next.capacity.min(u32::MAX as u64) as u32);
                        }
                    }
                }
                let (_, chunk) = launch_bounds(n, slot.capacity, grid);
                let sharing = if n.node.uses_sharing_counters { Some(mem.alloc(4 * slot.capacity)?) } else { None };
                let field = n.node.input.as_ref().and_then(|i| i.record.as_ref()).and_then(|r| r.dispatch_grid);
                let dynamic = n.node.launch == NodeLaunch::Broadcasting && n.node.dispatch.dispatch_grid.is_none();
                let mut first = 0u64;
                while first < slot.capacity {
                    let args = mem.alloc(ARGUMENTS_BYTES as u64)?;
                    let records = slot.records.map_or(0, |r| r as u64 + first * slot.stride as u64);
                    let push = push.clone();
                    let mut push_addresses = push_addresses.clone();
                    if slot.records.is_some() {
                        push_addresses.push(PushAddress { at: base as u32, buffer: MEMORY, plus: records });
                    }
                    if let Some(s) = sharing {
                        push_addresses.push(PushAddress {
                            at: base as u32 + 16,
                            buffer: MEMORY,
                            plus: s as u64 + 4 * first,
                        });
                    }
                    push_addresses.push(PushAddress { at: base as u32 + 56, buffer: MEMORY, plus: args as u64 });
                    let plan = PlanEntry {
                        counter: slot.counter,
                        first: first as u32,
                        chunk: chunk.min(u32::MAX as u64) as u32,
                        broadcasting: n.node.launch == NodeLaunch::Broadcasting,
                        per_group: match n.node.launch {
                            NodeLaunch::Coalescing => n.node.input.as_ref().and_then(|i| i.max_records).unwrap_or(1),
                            NodeLaunch::Thread => n.node.num_threads[0],
                            NodeLaunch::Broadcasting => 1,
                        },
                        grid,
                        records: records as u32,
                        stride: slot.stride,
                        grid_field: field.filter(|_| dynamic).map_or(0, |f| f.offset),
                        grid_components: field.filter(|_| dynamic).map_or(0, |f| f.components),
                        grid_u16: field.is_some_and(|f| f.component_type == "u16"),
                        arguments: args,
                    };
                    if dynamic && field.is_none() {
                        return Err(GraphError::Node {
                            node: n.export.into(),
                            message: "a dynamic grid without an SV_DispatchGrid field".into(),
                        });
                    }
                    chunks.push(Chunk { level: l, node: k, key: n.key(), depth: *depth, plan, push, push_addresses });
                    first += chunk;
                }
            }
        }
    }

    // Plans, one array per level, then the steps.
    let mut steps = Vec::new();
    for l in 0..levels.len() {
        let of_level: Vec<&Chunk> = chunks.iter().filter(|c| c.level == l).collect();
        if of_level.is_empty() {
            continue;
        }
        let plan = mem.alloc(PLAN_ENTRY_BYTES as u64 * of_level.len() as u64)?;
        for (i, c) in of_level.iter().enumerate() {
            let at = plan as usize + PLAN_ENTRY_BYTES as usize * i;
            mem.bytes[at..at + PLAN_ENTRY_BYTES as usize].copy_from_slice(&c.plan.bytes());
        }
        let mut push = vec![0u8; 16];
        put_u32(&mut push, 8, plan);
        put_u32(&mut push, 12, of_level.len() as u32);
        steps.push(Step::Dispatch(ProgramDispatch {
            pipeline: 0,
            push,
            push_addresses: vec![PushAddress { at: 0, buffer: MEMORY, plus: 0 }],
            launch: Launch::Groups([(of_level.len() as u32).div_ceil(arguments::LOCAL_SIZE), 1, 1]),
        }));
        steps.push(Step::Barrier);
        for c in of_level {
            steps.push(Step::Dispatch(ProgramDispatch {
                pipeline: 1 + c.node,
                push: c.push.clone(),
                push_addresses: c.push_addresses.clone(),
                launch: Launch::Indirect { buffer: MEMORY, offset: c.plan.arguments as u64 },
            }));
        }
        steps.push(Step::Barrier);
    }

    let prepare = arguments::module();
    let mut pipelines = vec![Shader { spirv: &prepare, entry: arguments::ENTRY }];
    pipelines
        .extend(graph.nodes.iter().map(|n| Shader { spirv: &n.translation.words, entry: &n.translation.entry_point }));
    let mut buffers = vec![DeviceBuffer { bytes: mem.bytes, address: AddressSlot::Nowhere }];
    buffers.extend(device_buffers.into_iter().map(|bytes| DeviceBuffer { bytes, address: AddressSlot::Nowhere }));
    let program = Program {
        bindings,
        min_counts: Vec::new(),
        device_buffers: buffers,
        patches: mem.patches,
        pipelines,
        steps,
        timeout,
    };
    let result = gpu.run_program(&program)?;
    let mut bindings = program.bindings;
    for (b, r) in bindings.iter_mut().zip(result.resources) {
        b.resource = r;
    }
    let memory = &result.device_buffers[MEMORY];

    for (l, level) in levels.iter().enumerate() {
        for ((key, depth), slot) in level {
            let written = u32_at(memory, slot.counter as usize);
            if written as u64 > slot.capacity {
                return Err(GraphError::Graph(format!(
                    "{written} records for `{}` (depth {depth}) at level {l}, past the bound of {}",
                    key.0, slot.capacity
                )));
            }
        }
    }
    let mut dispatches = Vec::new();
    for c in &chunks {
        let a = c.plan.arguments as usize;
        let count = u32_at(memory, a + 12);
        if count == 0 {
            continue;
        }
        let groups = [u32_at(memory, a), u32_at(memory, a + 4), u32_at(memory, a + 8)];
        dispatches.push(NodeRun { level: c.level, node: c.key.clone(), depth: c.depth, records: count, groups });
    }
    let levels_run = dispatches.iter().map(|d| d.level + 1).max().unwrap_or(0);
    Ok(GraphRun { bindings, device_buffers: result.device_buffers[1..].to_vec(), dispatches, levels: levels_run })
}
