//! A reference work-graph scheduler: runs a whole translated `lib_6_8` work graph (one
//! Vulkan compute module per node) level by level under the contract of
//! `docs/work-graphs.md`, from the library report alone (no DXIL).
//!
//! # Algorithm
//!
//! The graph's nodes are the report entries with a `node` object, each paired with its
//! translation (by export name). Entry nodes ([`Graph::entry_nodes`]) are the ones marked
//! `[NodeIsProgramEntry]` and the ones no output of another node targets (D3D's rule).
//! The caller hands the scheduler the program input (records of one entry node).
//!
//! Pending records are kept per **(target node id, recursion depth)**: one record buffer
//! and one `u32` count, as the contract recommends. Level 0 holds the program input. Per
//! level, every pending (node, depth) with a non-zero count is dispatched (together with
//! every node that declares `[NodeShareInputOf]` it, on the same records):
//!
//! * launch: broadcasting `(count · gx, gy, gz)` with the fixed grid or, for a dynamic
//!   grid, the component-wise maximum of the records' `SV_DispatchGrid` (read on the host,
//!   missing components 1); coalescing `ceil(count / max_records)`; thread
//!   `ceil(count / NumThreads.x)`. A dispatch is split by records so that no group count
//!   passes 65535 (the `maxComputeWorkGroupCount` every device has).
//! * `NodeDispatch` push constants: input address, output table, sharing counters (one
//!   zeroed `u32` per record when `uses_sharing_counters`), stride, count, grid,
//!   `remaining_recursion_levels = max_recursion_depth − depth` (0 without the attribute),
//!   at offset 0, or after the root arguments (`S` rounded up to 8) for a node translated
//!   with push constants of its own.
//! * Output table: one 32-byte entry per (output, array index). An entry whose target
//!   exists gets a counter starting at 0 and (non-empty outputs) a record window of
//!   `groups launched · max_records` slots (`max_records_shared_with`: the larger of the
//!   two budgets); `counter = 0` for targets that do not exist (sparse arrays) and for a
//!   node's outputs to itself at its deepest recursion level (`NodeOutputIsValid` false).
//!   Unbounded arrays get their indirect entry and a sub-table sized to the highest array
//!   index of that node name in the graph plus one.
//! * After the dispatch each entry's counter is read back on the host, checked against the
//!   window's capacity, and that many records are appended to the target's pending buffer
//!   of the next level: depth + 1 for a node's outputs to itself, depth 0 otherwise.
//!   Empty outputs only add to the count (`input_records = 0` when dispatched).
//! * Stop when the next level has no records; more than [`MAX_LEVELS`] levels is an error
//!   (a graph that does not terminate is reported, not waited on).
//!
//! # Two schedulers
//!
//! This one ([`run_graph`]) is **host-driven**: it runs on [`Gpu::dispatch`], every node
//! dispatch one submission whose buffers are read back after its fence, so the "barrier
//! between levels" is the fence and counters are read on the host between levels (the
//! contract's step 2), pushed as `record_count` and `grid`. Each output-table entry gets its
//! own counter and record window for the dispatch; the host then appends the window to the
//! target's (node, level) buffer. [`indirect::run_graph_indirect`] is the **GPU-driven**
//! one: the whole graph in one command buffer, shared counters per (node, level), dispatch
//! sizes computed on the device and launched with `vkCmdDispatchIndirect`
//! (`DispatchArguments`). The shader sees the same tables, atomics and addresses either way;
//! the tests run every graph through both and compare results and records per level. They
//! are checking tools, not fast schedulers.
//!
//! # Invariants
//!
//! * Records are never reordered within one window, but the order of windows in a pending
//!   buffer is the (deterministic) order of dispatches; consumers must not depend on it
//!   (the contract does not order records).
//! * Every record buffer given to a dispatch holds at least `count · stride` bytes; every
//!   counter read back is ≤ its window's capacity, else [`GraphError::Overflow`].
//! * Resources ([`Binding`]s) carry over from dispatch to dispatch: the graph's UAVs see
//!   every node's writes, in dispatch order.

pub mod arguments;
pub mod indirect;

pub use indirect::run_graph_indirect;

use super::{AddressSlot, Binding, DeviceBuffer, Dispatch, Gpu, VkError};
use std::collections::BTreeMap;
use std::time::Duration;
use untangle::dxil::node::{NodeLaunch, NodeRecordType};
use untangle::emit::library::{LibraryReport, NodeOutputReport, NodeReport};
use untangle::Translation;

/// More levels than this is a graph that does not terminate (D3D caps recursion at 32).
pub const MAX_LEVELS: usize = 64;

/// The most workgroups of one dimension of one dispatch.
pub(crate) const MAX_GROUPS: u64 = 65535;

/// Why a graph run failed.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    #[error(transparent)]
    Vk(#[from] VkError),
    #[error("node `{node}`: {message}")]
    Node { node: String, message: String },
    #[error("work graph: {0}")]
    Graph(String),
    #[error("node `{node}` wrote {count} records to output entry {entry}, whose window holds {capacity}")]
    Overflow { node: String, entry: u32, count: u32, capacity: u32 },
}

/// A node id as a key: `(name, array index)`.
pub type NodeKey = (String, u32);

/// One node of a graph: its report and its module.
#[derive(Clone, Debug)]
pub struct GraphNode<'a> {
    /// The export name (the module's entry point).
    pub export: &'a str,
    pub node: &'a NodeReport,
    pub translation: &'a Translation,
}

impl GraphNode<'_> {
    pub fn key(&self) -> NodeKey {
        (self.node.id.name.clone(), self.node.id.index)
    }

    /// Where the `NodeDispatch` block starts: after the root arguments, rounded up to 8.
    pub(crate) fn push_offset(&self) -> u32 {
        let s = self.translation.layout.as_ref().map_or(0, |l| l.layout.push_constants.size);
        s.div_ceil(8) * 8
    }
}

/// The nodes of a translated library.
#[derive(Clone, Debug)]
pub struct Graph<'a> {
    pub nodes: Vec<GraphNode<'a>>,
}

impl<'a> Graph<'a> {
    /// Pairs every node entry of `report` with its translation (same export name).
    pub fn new(report: &'a LibraryReport, translations: &'a [Translation]) -> Result<Graph<'a>, GraphError> {
        let mut nodes = Vec::new();
        for e in &report.entries {
            let Some(node) = &e.node else { continue };
            let translation = translations
                .iter()
                .find(|t| t.entry_point == e.name)
                .ok_or_else(|| GraphError::Graph(format!("no translation of node entry `{}`", e.name)))?;
            nodes.push(GraphNode { export: &e.name, node, translation });
        }
        let mut seen = std::collections::BTreeSet::new();
        for n in &nodes {
            if !seen.insert(n.key()) {
                return Err(GraphError::Graph(format!("node id {:?} declared twice", n.key())));
            }
        }
        Ok(Graph { nodes })
    }

    pub fn find(&self, key: &NodeKey) -> Option<&GraphNode<'a>> {
        self.nodes.iter().find(|n| n.node.id.name == key.0 && n.node.id.index == key.1)
    }

    /// Program entries: `[NodeIsProgramEntry]` nodes and nodes no other node outputs to.
    pub fn entry_nodes(&self) -> Vec<NodeKey> {
        let targeted = |k: &NodeKey| {
            self.nodes.iter().filter(|p| p.key() != *k).any(|p| {
                p.node.outputs.iter().any(|o| {
                    o.id.name == k.0
                        && (o.unbounded || (o.id.index..o.id.index + o.array_size.unwrap_or(1)).contains(&k.1))
                })
            })
        };
        self.nodes
            .iter()
            .filter(|n| n.node.program_entry || (n.node.share_input_of.is_none() && !targeted(&n.key())))
            .map(|n| n.key())
            .collect()
    }
}

/// The program input: `count` records of `stride` bytes for `node` (empty `records` for
/// nodes without input data).
#[derive(Clone, Debug)]
pub struct GraphInput {
    pub node: NodeKey,
    pub records: Vec<u8>,
    pub stride: u32,
    pub count: u32,
}

impl GraphInput {
    /// The input names a node of `graph` and holds `count` records (or none at all).
    fn check(&self, graph: &Graph) -> Result<(), GraphError> {
        if graph.find(&self.node).is_none() {
            return Err(GraphError::Graph(format!("program input for {:?}, which is no node", self.node)));
        }
        let needed = self.count as usize * self.stride as usize;
        if !self.records.is_empty() && self.records.len() < needed {
            return Err(GraphError::Graph("program input shorter than its records".into()));
        }
        Ok(())
    }
}

/// The graph's memory besides records: descriptors every node binds, buffers reached by
/// address, and D3D's local root argument table.
#[derive(Clone, Debug, Default)]
pub struct GraphResources {
    /// Every node binds all of them (a node ignores what it does not declare).
    pub bindings: Vec<Binding>,
    /// Buffers whose addresses the local root argument table holds (root UAVs, ...).
    pub device_buffers: Vec<Vec<u8>>,
    pub local_root_table: Option<LocalRootTable>,
}

/// `D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE` of the local root arguments: record `i`
/// at `i · stride`. `addresses` are `(byte offset in the table, index into
/// [`GraphResources::device_buffers`])`: the buffer's address is written there.
#[derive(Clone, Debug, Default)]
pub struct LocalRootTable {
    pub bytes: Vec<u8>,
    pub stride: u32,
    pub addresses: Vec<(u32, usize)>,
}

/// One dispatch the scheduler made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRun {
    pub level: usize,
    pub node: NodeKey,
    pub depth: u32,
    pub records: u32,
    pub groups: [u32; 3],
}

/// The graph's resources after the run, and what ran.
#[derive(Clone, Debug)]
pub struct GraphRun {
    /// The caller's bindings, in order, after every dispatch.
    pub bindings: Vec<Binding>,
    /// [`GraphResources::device_buffers`] after every dispatch.
    pub device_buffers: Vec<Vec<u8>>,
    pub dispatches: Vec<NodeRun>,
    /// Levels run (0 when the program input was empty).
    pub levels: usize,
}

/// Records waiting for one (node, depth).
#[derive(Clone, Debug, Default)]
struct Pending {
    bytes: Vec<u8>,
    count: u32,
    stride: u32,
}

impl Pending {
    fn append(&mut self, bytes: &[u8], count: u32, stride: u32, node: &str) -> Result<(), GraphError> {
        if self.count > 0 && self.stride != stride {
            return Err(GraphError::Graph(format!("records of stride {stride} and {} for `{node}`", self.stride)));
        }
        self.stride = stride;
        self.bytes.extend_from_slice(bytes);
        self.count = self
            .count
            .checked_add(count)
            .ok_or_else(|| GraphError::Graph(format!("over 2^32 records for `{node}`")))?;
        Ok(())
    }
}

/// Bytes between records of type `r`: its size rounded up to `max(alignment, 4)`.
pub(crate) fn record_stride(r: &NodeRecordType) -> u32 {
    let a = r.alignment.max(4);
    r.size.div_ceil(a) * a
}

pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4).map_or(0, |c| u32::from_le_bytes(c.try_into().unwrap()))
}

pub(crate) fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Runs the graph from `input` until no records are left (each dispatch waits at most
/// `timeout`).
pub fn run_graph(
    gpu: &mut Gpu,
    graph: &Graph,
    input: &GraphInput,
    resources: GraphResources,
    timeout: Duration,
) -> Result<GraphRun, GraphError> {
    input.check(graph)?;
    let GraphResources { bindings, device_buffers, local_root_table } = resources;
    let mut s = Scheduler {
        gpu,
        graph,
        local_root_table: local_root_table.as_ref(),
        run: GraphRun { bindings, device_buffers, dispatches: Vec::new(), levels: 0 },
        timeout,
    };
    let mut level: BTreeMap<(NodeKey, u32), Pending> = BTreeMap::new();
    if input.count > 0 {
        level.insert(
            (input.node.clone(), 0),
            Pending { bytes: input.records.clone(), count: input.count, stride: input.stride },
        );
    }
    while !level.is_empty() {
        if s.run.levels == MAX_LEVELS {
            return Err(GraphError::Graph(format!("still records after {MAX_LEVELS} levels")));
        }
        let mut next: BTreeMap<(NodeKey, u32), Pending> = BTreeMap::new();
        for ((key, depth), pending) in &level {
            let node = graph.find(key).ok_or_else(|| GraphError::Graph(format!("records for missing node {key:?}")))?;
            let sharers = graph
                .nodes
                .iter()
                .filter(|n| n.node.share_input_of.as_ref().is_some_and(|s| s.name == key.0 && s.index == key.1));
            for n in std::iter::once(node).chain(sharers) {
                s.dispatch_node(n, *depth, pending, &mut next)?;
            }
        }
        s.run.levels += 1;
        next.retain(|_, p| p.count > 0);
        level = next;
    }
    Ok(s.run)
}

/// A run in progress: the device, the graph, what has run so far.
struct Scheduler<'s, 'a> {
    gpu: &'s mut Gpu,
    graph: &'s Graph<'a>,
    local_root_table: Option<&'s LocalRootTable>,
    run: GraphRun,
    timeout: Duration,
}

/// Records pending for the next level, by (target node, recursion depth).
type NextLevel = BTreeMap<(NodeKey, u32), Pending>;

/// One dispatch's records: `count` records `stride` bytes apart, and the broadcasting grid.
struct Input<'r> {
    records: &'r [u8],
    stride: u32,
    count: u32,
    grid: [u32; 3],
}

/// Where one output-table entry's records go.
struct Window {
    /// The output's first table entry (for errors).
    entry: u32,
    target: NodeKey,
    depth: u32,
    counter: usize,
    records: Option<usize>,
    stride: u32,
    capacity: u32,
}

/// The `(gx, gy, gz)` a broadcasting node's records need.
fn broadcast_grid(n: &GraphNode, p: &Pending) -> Result<[u32; 3], GraphError> {
    if let Some(g) = n.node.dispatch.dispatch_grid {
        return Ok(g);
    }
    let field =
        n.node.input.as_ref().and_then(|i| i.record.as_ref()).and_then(|r| r.dispatch_grid).ok_or_else(|| {
            GraphError::Node { node: n.export.into(), message: "no grid: fixed or SV_DispatchGrid".into() }
        })?;
    let mut grid = [1u32; 3];
    grid[..field.components as usize].fill(0);
    for r in 0..p.count as usize {
        let base = r * p.stride as usize + field.offset as usize;
        for (c, g) in grid.iter_mut().enumerate().take(field.components as usize) {
            let v = if field.component_type == "u16" {
                let at = base + 2 * c;
                p.bytes.get(at..at + 2).map_or(0, |b| u16::from_le_bytes([b[0], b[1]]) as u32)
            } else {
                u32_at(&p.bytes, base + 4 * c)
            };
            *g = (*g).max(v);
        }
    }
    Ok(grid)
}

/// The live output-table entries of one output of a node dispatched at some depth.
pub(crate) struct OutputTargets {
    /// Unbounded arrays: the sub-table's length (entries); the indirect entry at
    /// `table_index` points at it, and `live` indexes it.
    pub(crate) sub_table_len: Option<u32>,
    /// `(entry, target)`: the entry (of the table, or of the sub-table) and the node it
    /// feeds. Entries left out keep `counter = 0` (the target does not exist, or it is the
    /// node itself at its deepest recursion level): `NodeOutputIsValid` is false there.
    pub(crate) live: Vec<(u32, NodeKey)>,
}

impl Graph<'_> {
    /// Where output `o` of node `n`, dispatched at recursion depth `depth`, sends records.
    pub(crate) fn output_targets(&self, n: &GraphNode, depth: u32, o: &NodeOutputReport) -> OutputTargets {
        let (sub_table_len, candidates): (Option<u32>, Vec<(u32, u32)>) = if o.unbounded {
            let len = self.nodes.iter().filter(|m| m.node.id.name == o.id.name).map(|m| m.node.id.index + 1).max();
            let len = len.unwrap_or(0);
            (Some(len), (0..len).map(|i| (i, i)).collect())
        } else {
            (None, (0..o.array_size.unwrap_or(1)).map(|i| (o.table_index + i, o.id.index + i)).collect())
        };
        let max_depth = n.node.dispatch.max_recursion_depth.unwrap_or(0);
        let live = candidates
            .into_iter()
            .map(|(entry, index)| (entry, (o.id.name.clone(), index)))
            .filter(|(_, target)| self.find(target).is_some() && !(*target == n.key() && depth >= max_depth))
            .collect();
        OutputTargets { sub_table_len, live }
    }
}

/// The record budget of output `o` per group (per thread for thread launch).
pub(crate) fn budget(outputs: &[NodeOutputReport], o: &NodeOutputReport) -> u32 {
    let shared = o.max_records_shared_with.and_then(|k| outputs.get(k as usize)).map_or(0, |s| s.max_records);
    o.max_records.max(shared)
}

impl Scheduler<'_, '_> {
    /// Dispatches `pending` to node `n` at recursion depth `depth`, split so that no group
    /// count passes [`MAX_GROUPS`].
    fn dispatch_node(
        &mut self,
        n: &GraphNode,
        depth: u32,
        pending: &Pending,
        next: &mut NextLevel,
    ) -> Result<(), GraphError> {
        let node = n.node;
        let err = |message: String| GraphError::Node { node: n.export.into(), message };
        let max_depth = node.dispatch.max_recursion_depth.unwrap_or(0);
        if depth > max_depth {
            return Err(err(format!("recursion depth {depth} past [NodeMaxRecursionDepth({max_depth})]")));
        }
        let grid = match node.launch {
            NodeLaunch::Broadcasting => broadcast_grid(n, pending)?,
            _ => [1, 1, 1],
        };
        if grid.contains(&0) {
            return Ok(()); // A zero grid launches nothing.
        }
        // Records per dispatch so that no group count passes MAX_GROUPS.
        let per_group = match node.launch {
            NodeLaunch::Broadcasting => {
                if grid[1] as u64 > MAX_GROUPS || grid[2] as u64 > MAX_GROUPS || grid[0] as u64 > MAX_GROUPS {
                    return Err(err(format!("grid {grid:?} past {MAX_GROUPS}")));
                }
                return self.dispatch_chunks(n, depth, pending, next, grid, MAX_GROUPS / grid[0] as u64);
            }
            NodeLaunch::Coalescing => node.input.as_ref().and_then(|i| i.max_records).unwrap_or(1).max(1),
            NodeLaunch::Thread => node.num_threads[0].max(1),
        };
        self.dispatch_chunks(n, depth, pending, next, grid, MAX_GROUPS * per_group as u64)
    }

    /// `pending` in dispatches of at most `chunk` records.
    fn dispatch_chunks(
        &mut self,
        n: &GraphNode,
        depth: u32,
        pending: &Pending,
        next: &mut NextLevel,
        grid: [u32; 3],
        chunk: u64,
    ) -> Result<(), GraphError> {
        let chunk = chunk.min(u32::MAX as u64) as u32;
        let mut first = 0u32;
        while first < pending.count {
            let count = chunk.min(pending.count - first);
            let start = first as usize * pending.stride as usize;
            let end = if pending.stride == 0 {
                pending.bytes.len()
            } else {
                start + count as usize * pending.stride as usize
            };
            let bytes = pending.bytes.get(start..end.min(pending.bytes.len())).unwrap_or(&[]);
            let input = Input { records: bytes, stride: pending.stride, count, grid };
            self.dispatch_one(n, depth, &input, next)?;
            first += count;
        }
        Ok(())
    }

    /// One dispatch of `input` to `n`; its outputs go to `next`.
    fn dispatch_one(
        &mut self,
        n: &GraphNode,
        depth: u32,
        input: &Input,
        next: &mut NextLevel,
    ) -> Result<(), GraphError> {
        let &Input { records, stride, count, grid } = input;
        let graph = self.graph;
        let node = n.node;
        let err = |message: String| GraphError::Node { node: n.export.into(), message };
        let (groups, launched): ([u32; 3], u64) = match node.launch {
            NodeLaunch::Broadcasting => {
                ([count * grid[0], grid[1], grid[2]], count as u64 * grid[0] as u64 * grid[1] as u64 * grid[2] as u64)
            }
            NodeLaunch::Coalescing => {
                let m = node.input.as_ref().and_then(|i| i.max_records).unwrap_or(1).max(1);
                let g = count.div_ceil(m);
                ([g, 1, 1], g as u64)
            }
            NodeLaunch::Thread => ([count.div_ceil(node.num_threads[0].max(1)), 1, 1], count as u64),
        };
        let base = n.push_offset();
        let mut push = vec![0u8; base as usize + 64];
        let b = base as usize;
        put_u32(&mut push, b + 24, stride);
        put_u32(&mut push, b + 28, count);
        for (k, g) in grid.iter().enumerate() {
            put_u32(&mut push, b + 32 + 4 * k, *g);
        }
        let max_depth = node.dispatch.max_recursion_depth.unwrap_or(0);
        put_u32(&mut push, b + 44, max_depth - depth);

        let mut buffers: Vec<DeviceBuffer> = Vec::new();
        if !records.is_empty() {
            buffers.push(DeviceBuffer { bytes: records.to_vec(), address: AddressSlot::Push(base) });
        }
        if node.uses_sharing_counters {
            buffers.push(DeviceBuffer { bytes: vec![0; 4 * count as usize], address: AddressSlot::Push(base + 16) });
        }
        // The output table, then per entry its counter and record window (device buffers
        // name earlier ones, so the table and sub-tables come first).
        let mut windows: Vec<Window> = Vec::new();
        if node.output_table_entries > 0 {
            let table = buffers.len();
            buffers.push(DeviceBuffer {
                bytes: vec![0u8; 32 * node.output_table_entries as usize],
                address: AddressSlot::Push(base + 8),
            });
            for o in &node.outputs {
                let stride = o.record.as_ref().map_or(0, record_stride);
                let capacity64 = launched * budget(&node.outputs, o) as u64;
                let capacity = u32::try_from(capacity64).map_err(|_| err(format!("{capacity64} output slots")))?;
                let targets = graph.output_targets(n, depth, o);
                let sub = targets.sub_table_len.map(|len| {
                    put_u32(&mut buffers[table].bytes, 32 * o.table_index as usize + 16, len);
                    buffers.push(DeviceBuffer {
                        bytes: vec![0u8; 32 * len.max(1) as usize],
                        address: AddressSlot::Device { buffer: table, offset: 32 * o.table_index },
                    });
                    buffers.len() - 1
                });
                for (entry, target) in targets.live {
                    let at = sub.unwrap_or(table);
                    let is_self = target == n.key();
                    put_u32(&mut buffers[at].bytes, 32 * entry as usize + 16, stride);
                    put_u32(&mut buffers[at].bytes, 32 * entry as usize + 20, capacity);
                    let counter = buffers.len();
                    buffers.push(DeviceBuffer {
                        bytes: vec![0; 4],
                        address: AddressSlot::Device { buffer: at, offset: 32 * entry + 8 },
                    });
                    let records = (!o.empty).then(|| {
                        buffers.push(DeviceBuffer {
                            bytes: vec![0; (capacity as usize * stride as usize).max(4)],
                            address: AddressSlot::Device { buffer: at, offset: 32 * entry },
                        });
                        buffers.len() - 1
                    });
                    let depth = if is_self { depth + 1 } else { 0 };
                    windows.push(Window { entry: o.table_index, target, depth, counter, records, stride, capacity });
                }
            }
        }

        // Local root arguments: the node's record of the table, with the addresses of the
        // graph buffers it names.
        let mut graph_buffers: Vec<(usize, usize)> = Vec::new();
        if let (Some(index), Some(t)) = (node.local_root_arguments_table_index, self.local_root_table) {
            let (start, end) = (index as usize * t.stride as usize, (index as usize + 1) * t.stride as usize);
            let record =
                t.bytes.get(start..end).ok_or_else(|| err(format!("no local root arguments record {index}")))?;
            let at = buffers.len();
            buffers.push(DeviceBuffer { bytes: record.to_vec(), address: AddressSlot::Push(base + 48) });
            for &(offset, k) in t.addresses.iter().filter(|(o, _)| (start..end).contains(&(*o as usize))) {
                if graph_buffers.iter().any(|&(_, seen)| seen == k) {
                    // Two copies would be read back and one lost.
                    return Err(err(format!("local root arguments record {index} names graph buffer {k} twice")));
                }
                let bytes =
                    self.run.device_buffers.get(k).ok_or_else(|| err(format!("no graph device buffer {k}")))?.clone();
                graph_buffers.push((buffers.len(), k));
                buffers.push(DeviceBuffer {
                    bytes,
                    address: AddressSlot::Device { buffer: at, offset: offset - start as u32 },
                });
            }
        }

        self.run.dispatches.push(NodeRun { level: self.run.levels, node: n.key(), depth, records: count, groups });
        let d = Dispatch {
            spirv: &n.translation.words,
            entry: &n.translation.entry_point,
            bindings: self.run.bindings.clone(),
            push_constants: push,
            device_buffers: buffers,
            groups,
            timeout: self.timeout,
            ..Default::default()
        };
        let r = self.gpu.dispatch(&d)?;
        for (b, res) in self.run.bindings.iter_mut().zip(r.resources) {
            b.resource = res;
        }
        for &(at, k) in &graph_buffers {
            self.run.device_buffers[k] = r.device_buffers[at].clone();
        }
        for w in &windows {
            let written = u32_at(&r.device_buffers[w.counter], 0);
            let bytes: &[u8] = match w.records {
                Some(at) => {
                    if written > w.capacity {
                        return Err(GraphError::Overflow {
                            node: n.export.into(),
                            entry: w.entry,
                            count: written,
                            capacity: w.capacity,
                        });
                    }
                    &r.device_buffers[at][..written as usize * w.stride as usize]
                }
                None => &[],
            };
            let stride = if w.records.is_some() { w.stride } else { 0 };
            next.entry((w.target.clone(), w.depth)).or_default().append(bytes, written, stride, &w.target.0)?;
        }
        Ok(())
    }
}
