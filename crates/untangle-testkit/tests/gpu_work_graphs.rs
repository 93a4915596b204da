//! Work-graph nodes on a device, one dispatch each, through the contract of
//! `docs/work-graphs.md` exactly as a scheduler drives it (a `NodeDispatch` push-constant
//! block, input records by buffer device address): the corpus nodes without outputs, so no
//! scheduler is needed. Inputs are vkd3d-proton's (`tests/d3d12_workgraphs.c`), the
//! expected `RWBuf` computed here from the HLSL each library was compiled from:
//!
//! - `basic`: a broadcasting node with a dynamic grid (`uint3 SV_DispatchGrid`), two
//!   records of different grids flattened into one dispatch by their maximum; groups
//!   outside a record's grid must not run;
//! - `thread_custom_input`: 256 records, one thread each;
//! - `coalesce_custom_input`: 8 records in groups of `[MaxRecords(3)]`, the last group
//!   with 2 (`GetInputRecordCount`);
//! - `broadcast_custom_input_u16_2`: a `uint16_t2 SV_DispatchGrid` at offset 4 (read
//!   through 32-bit loads), records of grids (3, 2) and (2, 1).
//!
//! - `local_root_signature`: nodes `A` and `B` translated through a global root signature
//!   (`UAV(u0)`, heap lowering: 8 bytes of push constants, so the node block starts at 8)
//!   and their local ones (`LRS0`, `LRS1`: a root UAV and two root constants), each run
//!   alone with its local root arguments record (`{output address, 30, 20}`,
//!   `{output address, 40, 50}`) at the `local_root_arguments` address, 30 and 60 times.
//!
//! `whole_graphs_run_through_the_reference_scheduler` runs whole libraries, every level,
//! through both reference schedulers of `untangle_testkit::vulkan::work_graph` (host-driven,
//! and GPU-driven: one submission of indirect dispatches sized on the device) from the
//! library report alone, checks the expected results of `docs/work-graphs.md`'s table
//! (vkd3d-proton's inputs and answers) for each, and that both dispatched the same records
//! per (level, node, depth); a mutated expectation must be caught. Also: `basic`
//! at record strides 16 and 0, `thread_custom_input` with 2,098,120 records (a dispatch the
//! scheduler must split at 65535 groups of 32 threads), `basic_recursion`'s dispatch log (one level per
//! recursion depth, 0 to 6).
//!
//! `the_arguments_pass_sizes_dispatches_from_counters` checks the GPU-driven scheduler's
//! arguments pass alone against the `DispatchArguments` rule on 200 random plan entries;
//! `a_plan_past_the_memory_limit_is_a_typed_error` its refusal of a graph too large to plan.

use std::path::PathBuf;
use std::time::Duration;
use untangle::rootsig::{parse_hlsl, BindingModel, LayoutOptions, Version};
use untangle::{Options, RootSignatureBinding, Shader};
use untangle_testkit::vulkan::program::{Launch, Program, ProgramDispatch, PushAddress, Shader as ProgramShader, Step};
use untangle_testkit::vulkan::work_graph::arguments::{self, PlanEntry};
use untangle_testkit::vulkan::work_graph::{
    run_graph, run_graph_indirect, Graph, GraphInput, GraphResources, GraphRun, LocalRootTable, NodeKey,
};
use untangle_testkit::vulkan::{open_or_skip, AddressSlot, Binding, DeviceBuffer, Dispatch, Gpu, Resource};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");

/// The corpus: where it was at build time, else `../shared/corpus` from the working
/// directory (a test binary run from a copy of the repository root, as on a device machine).
fn corpus_dir() -> Option<PathBuf> {
    [DIR, "../shared/corpus/dxil/vkd3d-proton"].into_iter().map(PathBuf::from).find(|p| p.is_dir())
}
/// `RWBuf` (u0, space 0) under the default binding model.
const RWBUF: (u32, u32) = (0, 2000);
const WORDS: usize = 1024;
/// Thread-launch records past one dispatch of 65535 workgroups of 32 threads.
const SPLIT_RECORDS: u32 = 65535 * 32 + 1000;

fn words_to_bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The `NodeDispatch` block: input stride, record count and flattening grid (the input
/// address is written at offset 0 by the runner).
fn push(stride: u32, count: u32, grid: [u32; 3]) -> Vec<u8> {
    let mut p = vec![0u8; 48];
    p[24..28].copy_from_slice(&stride.to_le_bytes());
    p[28..32].copy_from_slice(&count.to_le_bytes());
    for (k, g) in grid.iter().enumerate() {
        p[32 + 4 * k..36 + 4 * k].copy_from_slice(&g.to_le_bytes());
    }
    p
}

/// Translates the one node of `library`, dispatches `groups` groups over `records` and
/// returns `RWBuf`.
fn run(
    gpu: &mut Gpu,
    library: &str,
    records: Vec<u8>,
    stride: u32,
    count: u32,
    grid: [u32; 3],
    groups: [u32; 3],
) -> Vec<u32> {
    let path = corpus_dir().unwrap().join(format!("workgraph.{library}.lib_6_8.dxil"));
    let shader = Shader::parse(&std::fs::read(&path).unwrap()).unwrap();
    let t = shader.translate(&Options::default()).unwrap_or_else(|e| panic!("{library}: {e}"));
    let d = Dispatch {
        spirv: &t.words,
        entry: &t.entry_point,
        bindings: vec![Binding::new(RWBUF.0, RWBUF.1, Resource::StorageBuffer(vec![0; 4 * WORDS]))],
        push_constants: push(stride, count, grid),
        device_buffers: vec![DeviceBuffer { bytes: records, address: AddressSlot::Push(0) }],
        groups,
        timeout: Duration::from_secs(60),
        ..Default::default()
    };
    let r = gpu.dispatch(&d).unwrap_or_else(|e| panic!("{library}: {e}"));
    r.words(0).unwrap()
}

/// The device the tests run on, or `None` (saying why) without the corpus, a Vulkan
/// device, or the buffer device addresses and 64-bit integers the node modules need.
fn corpus_and_device() -> Option<Gpu> {
    if corpus_dir().is_none() {
        eprintln!("{DIR} not found (nor ../shared/corpus): skipping");
        return None;
    }
    let gpu = open_or_skip("gpu_work_graphs")?;
    let f = &gpu.info().features;
    if !(f.buffer_device_address && f.shader_int64) {
        println!("SKIPPED gpu_work_graphs: no bufferDeviceAddress or shaderInt64");
        return None;
    }
    Some(gpu)
}

#[test]
fn single_level_nodes_run_under_the_scheduler_contract() {
    let Some(mut gpu) = corpus_and_device() else { return };

    // basic: numthreads (2, 3, 4); RWBuf[z * 100 + y * 10 + x] += 1 per dispatch thread.
    let grids = [[1u32, 2, 2], [2, 1, 1]];
    let records: Vec<u32> = grids.iter().flatten().copied().collect();
    let got = run(&mut gpu, "basic", words_to_bytes(&records), 12, 2, [2, 2, 2], [2 * 2, 2, 2]);
    let mut want = vec![0u32; WORDS];
    for g in &grids {
        for z in 0..g[2] * 4 {
            for y in 0..g[1] * 3 {
                for x in 0..g[0] * 2 {
                    want[(z * 100 + y * 10 + x) as usize] += 1;
                }
            }
        }
    }
    assert_eq!(got, want, "basic");

    // thread_custom_input: RWBuf[idx] += v.
    let payloads: Vec<[u32; 2]> = (0..256u32).map(|i| [(i ^ 7) * 3, i ^ 0xabcd]).collect();
    let records: Vec<u32> = payloads.iter().flatten().copied().collect();
    let got = run(&mut gpu, "thread_custom_input", words_to_bytes(&records), 8, 256, [0; 3], [256, 1, 1]);
    let mut want = vec![0u32; WORDS];
    for p in &payloads {
        want[p[0] as usize] = want[p[0] as usize].wrapping_add(p[1]);
    }
    assert_eq!(got, want, "thread_custom_input");

    // coalesce_custom_input: 24 threads, RWBuf[idx + thread] += v for each record of the group.
    let payloads: [[u32; 2]; 8] =
        [[100, 50], [150, 40], [200, 79], [300, 40], [400, 30], [490, 20], [530, 10], [32, 32]];
    let records: Vec<u32> = payloads.iter().flatten().copied().collect();
    let got = run(&mut gpu, "coalesce_custom_input", words_to_bytes(&records), 8, 8, [0; 3], [3, 1, 1]);
    let mut want = vec![0u32; WORDS];
    for p in &payloads {
        for thr in 0..24 {
            want[(p[0] + thr) as usize] += p[1];
        }
    }
    assert_eq!(got, want, "coalesce_custom_input");

    // broadcast_custom_input_u16_2: numthreads (2, 3, 4); RWBuf[z * 100 + y * 10 + x] += v ^ w.
    let payloads: [[u32; 3]; 2] = [[19, 3 | (2 << 16), 800], [400, 2 | (1 << 16), 90]];
    let records: Vec<u32> = payloads.iter().flatten().copied().collect();
    let got = run(&mut gpu, "broadcast_custom_input_u16_2", words_to_bytes(&records), 12, 2, [3, 2, 1], [2 * 3, 2, 1]);
    let mut want = vec![0u32; WORDS];
    for p in &payloads {
        let (gx, gy) = (p[1] & 0xffff, p[1] >> 16);
        for z in 0..4 {
            for y in 0..gy * 3 {
                for x in 0..gx * 2 {
                    want[(z * 100 + y * 10 + x) as usize] += p[0] ^ p[2];
                }
            }
        }
    }
    assert_eq!(got, want, "broadcast_custom_input_u16_2");

    // local_root_signature: A adds b1 to U0[b0] (LRS0: U0 at 0, b0 at 8, b1 at 12), B adds
    // b1 to U1[b0] (LRS1: U1 at 0, b1 at 8, b0 at 12); vkd3d-proton's records.
    let path = corpus_dir().unwrap().join("workgraph.local_root_signature.lib_6_8.dxil");
    let shader = Shader::parse(&std::fs::read(&path).unwrap()).unwrap();
    let options = Options {
        root_signature: Some(RootSignatureBinding {
            signature: parse_hlsl("UAV(u0)", Version::V1_1).unwrap(),
            layout: LayoutOptions { model: BindingModel::Heap, ..Default::default() },
        }),
        ..Default::default()
    };
    let translations = shader.translate_library(&options).unwrap_or_else(|e| panic!("local_root_signature: {e}"));
    for (node, constants, runs, index, value) in
        [("A", [30u32, 20], 30u32, 30usize, 20 * 30), ("B", [40, 50], 60, 50, 40 * 60)]
    {
        let t = translations.iter().find(|t| t.entry_point == node).unwrap();
        let layout = t.layout.as_ref().unwrap();
        assert_eq!(layout.layout.push_constants.size, 8, "the root UAV's address");
        assert_eq!(layout.shader_record.as_ref().map(|r| r.size), Some(16), "{node}: local root arguments");
        // The node block at 8: record_count at 8 + 28, local_root_arguments at 8 + 48.
        let mut push = vec![0u8; 8 + 64];
        push[36..40].copy_from_slice(&runs.to_le_bytes());
        let record = words_to_bytes(&[0, 0, constants[0], constants[1]]);
        let d = Dispatch {
            spirv: &t.words,
            entry: &t.entry_point,
            push_constants: push,
            device_buffers: vec![
                DeviceBuffer { bytes: record, address: AddressSlot::Push(56) },
                DeviceBuffer { bytes: vec![0; 4 * WORDS], address: AddressSlot::Device { buffer: 0, offset: 0 } },
            ],
            groups: [runs, 1, 1],
            timeout: Duration::from_secs(60),
            ..Default::default()
        };
        let r = gpu.dispatch(&d).unwrap_or_else(|e| panic!("{node}: {e}"));
        let out: Vec<u32> =
            r.device_buffers[1].chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        let mut want = vec![0u32; WORDS];
        want[index] = value;
        assert_eq!(out, want, "local_root_signature {node}");
    }
}

/// One library run through the scheduler: program input for `entry`, `uavs` buffers at
/// u0, u1, ... (set 0, bindings 2000 + k) of `WORDS` words each, and the expected words.
struct GraphCase {
    library: &'static str,
    entry: &'static str,
    records: Vec<u32>,
    stride: u32,
    count: u32,
    want: Vec<Vec<u32>>,
}

/// `want` against `got`: the first differing word of each UAV.
fn compare(library: &str, got: &[Vec<u32>], want: &[Vec<u32>]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{library}: {} UAVs, expected {}", got.len(), want.len()));
    }
    for (u, (g, w)) in got.iter().zip(want).enumerate() {
        if let Some(i) = (0..g.len().max(w.len())).find(|&i| g.get(i) != w.get(i)) {
            return Err(format!("{library}: u{u}[{i}] = {:?}, expected {:?}", g.get(i), w.get(i)));
        }
    }
    Ok(())
}

/// Which scheduler runs a graph: the host-driven one (`run_graph`: counters read between
/// levels) or the GPU-driven one (`run_graph_indirect`: one submission, indirect dispatches).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheduler {
    Host,
    Indirect,
}

/// Records dispatched per (level, node, depth): what both schedulers must agree on (they may
/// split dispatches differently).
fn records_by_slot(run: &GraphRun) -> std::collections::BTreeMap<(usize, NodeKey, u32), u64> {
    let mut m = std::collections::BTreeMap::new();
    for d in &run.dispatches {
        *m.entry((d.level, d.node.clone(), d.depth)).or_insert(0) += d.records as u64;
    }
    m
}

/// Translates `case.library`, runs it from its program input, returns the UAVs and the run.
fn run_graph_case(gpu: &mut Gpu, case: &GraphCase, scheduler: Scheduler) -> Result<(Vec<Vec<u32>>, GraphRun), String> {
    let bindings = (0..case.want.len() as u32)
        .map(|k| Binding::new(RWBUF.0, RWBUF.1 + k, Resource::StorageBuffer(vec![0; 4 * WORDS])))
        .collect();
    let resources = GraphResources { bindings, ..Default::default() };
    let run = run_library(gpu, case, &Options::default(), resources, scheduler)?;
    if case.count == SPLIT_RECORDS && run.dispatches.len() < 2 {
        return Err(format!("{}: {} records in {:?}, not split", case.library, case.count, run.dispatches));
    }
    if case.library == "basic_recursion" {
        // EntryNode, then Recursive at depths 0 to 6 (NodeMaxRecursionDepth(6)), each
        // record making two: 2, 4, ..., 128 records; nothing past the deepest level.
        let log: Vec<(usize, &str, u32, u32)> =
            run.dispatches.iter().map(|d| (d.level, d.node.0.as_str(), d.depth, d.records)).collect();
        let mut want = vec![(0, "EntryNode", 0, 1)];
        want.extend((0..=6u32).map(|d| (d as usize + 1, "Recursive", d, 2 << d)));
        if log != want {
            return Err(format!("basic_recursion: dispatches {log:?}, expected {want:?}"));
        }
    }
    Ok((run.bindings.iter().map(|b| bytes_to_words(b.resource.bytes().unwrap())).collect(), run))
}

fn bytes_to_words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Translates `case.library` with `options` (every module validated), checks its entry
/// nodes, runs it from the program input over `resources`.
fn run_library(
    gpu: &mut Gpu,
    case: &GraphCase,
    options: &Options,
    resources: GraphResources,
    scheduler: Scheduler,
) -> Result<GraphRun, String> {
    let lib = case.library;
    let path = corpus_dir().unwrap().join(format!("workgraph.{lib}.lib_6_8.dxil"));
    let shader =
        Shader::parse(&std::fs::read(&path).map_err(|e| format!("{lib}: {e}"))?).map_err(|e| format!("{lib}: {e}"))?;
    let report = shader.library_report().map_err(|e| format!("{lib}: report: {e}"))?;
    let translations = shader.translate_library(options).map_err(|e| format!("{lib}: {e}"))?;
    match untangle_spirv_tools::find_spirv_val() {
        Some(val) => {
            for t in &translations {
                val.validate(&t.words, "vulkan1.3").map_err(|e| format!("{lib} {}: spirv-val: {e}", t.entry_point))?;
            }
        }
        None => eprintln!("spirv-val not found: {lib} not validated"),
    }
    let graph = Graph::new(&report, &translations).map_err(|e| format!("{lib}: {e}"))?;
    let entry = (case.entry.to_string(), 0);
    let entries = graph.entry_nodes();
    if entries != [entry.clone()] {
        return Err(format!("{lib}: entry nodes {entries:?}, expected [{entry:?}]"));
    }
    let input =
        GraphInput { node: entry, records: words_to_bytes(&case.records), stride: case.stride, count: case.count };
    let timeout = Duration::from_secs(60);
    let run = match scheduler {
        Scheduler::Host => run_graph(gpu, &graph, &input, resources, timeout),
        Scheduler::Indirect => run_graph_indirect(gpu, &graph, &input, resources, timeout),
    }
    .map_err(|e| format!("{lib} ({scheduler:?}): {e}"))?;
    println!("{lib} ({scheduler:?}): {} levels, {} dispatches", run.levels, run.dispatches.len());
    Ok(run)
}

/// `RWBuf[z * 100 + y * 10 + x] += value` for every dispatch thread of a `(2, 3, 4)` group
/// grid `grid`.
fn add_broadcast_2x3x4(want: &mut [u32], grid: [u32; 3], value: u32) {
    for z in 0..grid[2] * 4 {
        for y in 0..grid[1] * 3 {
            for x in 0..grid[0] * 2 {
                let i = (z * 100 + y * 10 + x) as usize;
                want[i] = want[i].wrapping_add(value);
            }
        }
    }
}

/// The cases of docs/work-graphs.md's table (all but `local_root_signature`, whose local
/// root arguments the scheduler does not bind).
fn graph_cases() -> Vec<GraphCase> {
    let mut cases = Vec::new();
    // basic: uint3 SV_DispatchGrid records, max grid (2, 2, 2).
    let grids = [[1u32, 2, 2], [2, 1, 1]];
    let mut want = vec![0u32; WORDS];
    for g in grids {
        add_broadcast_2x3x4(&mut want, g, 1);
    }
    let records = grids.iter().flatten().copied().collect();
    cases.push(GraphCase { library: "basic", entry: "BroadcastNode", records, stride: 12, count: 2, want: vec![want] });
    // The same records 16 bytes apart, and stride 0 (every record is the first).
    let mut want = vec![0u32; WORDS];
    for g in grids {
        add_broadcast_2x3x4(&mut want, g, 1);
    }
    let records = grids.iter().flat_map(|g| [g[0], g[1], g[2], 0xdead]).collect();
    cases.push(GraphCase { library: "basic", entry: "BroadcastNode", records, stride: 16, count: 2, want: vec![want] });
    let mut want = vec![0u32; WORDS];
    add_broadcast_2x3x4(&mut want, grids[0], 3);
    let records = grids[0].to_vec();
    cases.push(GraphCase { library: "basic", entry: "BroadcastNode", records, stride: 0, count: 3, want: vec![want] });

    // broadcast_custom_input: fixed grid (3, 3, 2), records {v, w}.
    let payloads = [[19u32, 800], [400, 90]];
    let mut want = vec![0u32; WORDS];
    for p in payloads {
        add_broadcast_2x3x4(&mut want, [3, 3, 2], p[0] ^ p[1]);
    }
    let records = payloads.iter().flatten().copied().collect();
    cases.push(GraphCase {
        library: "broadcast_custom_input",
        entry: "BroadcastNode",
        records,
        stride: 8,
        count: 2,
        want: vec![want],
    });

    // broadcast_custom_input_uint: {v, uint grid, w}, max grid (3, 1, 1).
    let payloads = [[19u32, 3, 800], [400, 2, 90]];
    let mut want = vec![0u32; WORDS];
    for p in payloads {
        add_broadcast_2x3x4(&mut want, [p[1], 1, 1], p[0] ^ p[2]);
    }
    let records = payloads.iter().flatten().copied().collect();
    cases.push(GraphCase {
        library: "broadcast_custom_input_uint",
        entry: "BroadcastNode",
        records,
        stride: 12,
        count: 2,
        want: vec![want],
    });

    // broadcast_custom_input_uint2: {v, uint2 grid, w}, max grid (3, 3, 2).
    let payloads = [[19u32, 3, 2, 800], [400, 2, 3, 90]];
    let mut want = vec![0u32; WORDS];
    for p in payloads {
        add_broadcast_2x3x4(&mut want, [p[1], p[2], 1], p[0] ^ p[3]);
    }
    let records = payloads.iter().flatten().copied().collect();
    cases.push(GraphCase {
        library: "broadcast_custom_input_uint2",
        entry: "BroadcastNode",
        records,
        stride: 16,
        count: 2,
        want: vec![want],
    });

    // broadcast_custom_input_u16_2: {v, uint16_t2 grid, w}.
    let payloads = [[19u32, 3 | (2 << 16), 800], [400, 2 | (1 << 16), 90]];
    let mut want = vec![0u32; WORDS];
    for p in payloads {
        add_broadcast_2x3x4(&mut want, [p[1] & 0xffff, p[1] >> 16, 1], p[0] ^ p[2]);
    }
    let records = payloads.iter().flatten().copied().collect();
    cases.push(GraphCase {
        library: "broadcast_custom_input_u16_2",
        entry: "BroadcastNode",
        records,
        stride: 12,
        count: 2,
        want: vec![want],
    });

    // thread_custom_input: RWBuf[idx] += v.
    let payloads: Vec<[u32; 2]> = (0..256u32).map(|i| [(i ^ 7) * 3, i ^ 0xabcd]).collect();
    let mut want = vec![0u32; WORDS];
    for p in &payloads {
        want[p[0] as usize] = want[p[0] as usize].wrapping_add(p[1]);
    }
    let records = payloads.iter().flatten().copied().collect();
    cases.push(GraphCase {
        library: "thread_custom_input",
        entry: "ThreadNode",
        records,
        stride: 8,
        count: 256,
        want: vec![want],
    });

    // thread_custom_input with more records than one dispatch's 65535 workgroups of 32
    // threads (the module batches 32 thread-launch threads per workgroup): the scheduler
    // splits the dispatch (records 65535 · 32.. in a second one).
    let payloads: Vec<[u32; 2]> = (0..SPLIT_RECORDS).map(|i| [i % WORDS as u32, 1 + (i >> 16)]).collect();
    let mut want = vec![0u32; WORDS];
    for p in &payloads {
        want[p[0] as usize] += p[1];
    }
    let records = payloads.iter().flatten().copied().collect();
    cases.push(GraphCase {
        library: "thread_custom_input",
        entry: "ThreadNode",
        records,
        stride: 8,
        count: SPLIT_RECORDS,
        want: vec![want],
    });

    // coalesce_custom_input: RWBuf[idx + t] += v for t < 24.
    let payloads = [[100u32, 50], [150, 40], [200, 79], [300, 40], [400, 30], [490, 20], [530, 10], [32, 32]];
    let mut want = vec![0u32; WORDS];
    for p in payloads {
        for t in 0..24 {
            want[(p[0] + t) as usize] += p[1];
        }
    }
    let records = payloads.iter().flatten().copied().collect();
    cases.push(GraphCase {
        library: "coalesce_custom_input",
        entry: "CoalesceNode",
        records,
        stride: 8,
        count: 8,
        want: vec![want],
    });

    // two_level_*: {grid, node_idx, size, offset, increment}; buffer node_idx gets
    // [k + offset] += increment for k < size * grid * 64.
    let entry = [[2u32, 0, 1, 1, 1], [2, 1, 1, 3, 2], [3, 0, 3, 5, 3], [1, 1, 3, 4, 4]];
    let mut want = vec![vec![0u32; WORDS]; 2];
    for [grid, node_idx, size, offset, increment] in entry {
        for k in 0..size * grid * 64 {
            want[node_idx as usize][(k + offset) as usize] += increment;
        }
    }
    for library in
        ["two_level_broadcast", "two_level_broadcast_node_array", "two_level_thread", "two_level_thread_node_array"]
    {
        let records = entry.iter().flatten().copied().collect();
        cases.push(GraphCase { library, entry: "EntryNode", records, stride: 20, count: 4, want: want.clone() });
    }

    // The one-empty-record graphs.
    let mut want = vec![0u32; WORDS];
    want[..14].copy_from_slice(&[5, 5, 4, 6, 4, 6, 3, 2, 3, 2, 9, 7, 9, 7]);
    cases.push(GraphCase {
        library: "two_level_empty_node",
        entry: "EntryNode",
        records: vec![],
        stride: 0,
        count: 1,
        want: vec![want],
    });
    let mut want = vec![0u32; WORDS];
    want[..15].copy_from_slice(&[0, 7, 13, 17, 25, 34, 46, 59, 71, 76, 68, 47, 23, 7, 1]);
    cases.push(GraphCase {
        library: "basic_recursion",
        entry: "EntryNode",
        records: vec![],
        stride: 0,
        count: 1,
        want: vec![want],
    });
    let mut want = vec![0u32; WORDS];
    want[..64].fill(512 * 64 + 9);
    want[64..128].fill(256 * 64 + 11);
    cases.push(GraphCase {
        library: "cross_group_sharing",
        entry: "EntryNode",
        records: vec![],
        stride: 0,
        count: 1,
        want: vec![want],
    });
    let mut want = vec![0u32; WORDS];
    want[..64].fill(512 * 9);
    want[64..128].fill(256 * 9);
    cases.push(GraphCase {
        library: "shared_inputs",
        entry: "EntryNode",
        records: vec![],
        stride: 0,
        count: 1,
        want: vec![want],
    });
    cases
}

#[test]
fn whole_graphs_run_through_the_reference_scheduler() {
    let Some(mut gpu) = corpus_and_device() else { return };
    let mut failures = Vec::new();
    let mut passed = Vec::new();
    for case in graph_cases() {
        let mut logs = Vec::new();
        for scheduler in [Scheduler::Host, Scheduler::Indirect] {
            match run_graph_case(&mut gpu, &case, scheduler).and_then(|(got, run)| {
                compare(case.library, &got, &case.want).map_err(|e| format!("{e} ({scheduler:?})"))?;
                Ok((got, run))
            }) {
                Ok((got, run)) => {
                    passed.push((case.library, scheduler));
                    logs.push(records_by_slot(&run));
                    if case.library == "basic_recursion" {
                        // A wrong expectation must be caught: one word off.
                        let mut wrong = case.want.clone();
                        wrong[0][5] += 1;
                        assert!(compare(case.library, &got, &wrong).is_err(), "a mutated expectation passed");
                        wrong = case.want.clone();
                        wrong[0][20] = 1;
                        assert!(compare(case.library, &got, &wrong).is_err(), "a mutated zero passed");
                    }
                }
                Err(e) => failures.push(e),
            }
        }
        if logs.len() == 2 && logs[0] != logs[1] {
            failures.push(format!("{}: host-driven records {:?}, GPU-driven {:?}", case.library, logs[0], logs[1]));
        }
    }

    // local_root_signature: through a global root signature (`UAV(u0)`, heap: 8 bytes of
    // push constants) and the local ones; the table of vkd3d-proton (stride 16: the output's
    // address, then the two root constants) for A (index 0) and B (index 1).
    let options = Options {
        root_signature: Some(RootSignatureBinding {
            signature: parse_hlsl("UAV(u0)", Version::V1_1).unwrap(),
            layout: LayoutOptions { model: BindingModel::Heap, ..Default::default() },
        }),
        ..Default::default()
    };
    let mut want = vec![0u32; WORDS];
    want[30] = 20 * 30;
    want[50] = 40 * 60;
    let case = GraphCase {
        library: "local_root_signature",
        entry: "EntryNode",
        records: vec![],
        stride: 0,
        count: 1,
        want: vec![want],
    };
    let resources = GraphResources {
        device_buffers: vec![vec![0; 4 * WORDS]],
        local_root_table: Some(LocalRootTable {
            bytes: words_to_bytes(&[0, 0, 30, 20, 0, 0, 40, 50]),
            stride: 16,
            addresses: vec![(0, 0), (16, 0)],
        }),
        ..Default::default()
    };
    for scheduler in [Scheduler::Host, Scheduler::Indirect] {
        match run_library(&mut gpu, &case, &options, resources.clone(), scheduler)
            .and_then(|run| compare(case.library, &[bytes_to_words(&run.device_buffers[0])], &case.want))
        {
            Ok(()) => passed.push((case.library, scheduler)),
            Err(e) => failures.push(format!("{e} ({scheduler:?})")),
        }
    }

    println!("passed through the schedulers: {passed:?}");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    for scheduler in [Scheduler::Host, Scheduler::Indirect] {
        assert!(passed.contains(&("basic_recursion", scheduler)), "the mutation check ran ({scheduler:?})");
    }
}

/// What the arguments pass must write for plan entry `e` over `memory`: the rule of
/// `docs/work-graphs.md` ("GPU-driven scheduling"), computed here independently.
fn expected_arguments(e: &PlanEntry, memory: &[u8]) -> [u32; 8] {
    let word = |at: usize| u32::from_le_bytes(memory[at..at + 4].try_into().unwrap());
    let total = word(e.counter as usize);
    let count = total.saturating_sub(e.first).min(e.chunk);
    if !e.broadcasting {
        return [count.div_ceil(e.per_group.max(1)), 1, 1, count, 1, 1, 1, 0];
    }
    let mut grid = e.grid;
    if e.grid_components > 0 {
        let mut m = [1u32; 3];
        m[..e.grid_components as usize].fill(0);
        for r in 0..count as usize {
            let field = e.records as usize + r * e.stride as usize + e.grid_field as usize;
            for (c, v) in m.iter_mut().enumerate().take(e.grid_components as usize) {
                let x = if e.grid_u16 {
                    u16::from_le_bytes(memory[field + 2 * c..field + 2 * c + 2].try_into().unwrap()) as u32
                } else {
                    word(field + 4 * c)
                };
                *v = (*v).max(x);
            }
        }
        for c in 0..3 {
            grid[c] = m[c].min(e.grid[c]);
        }
    }
    [count * grid[0], grid[1], grid[2], count, grid[0], grid[1], grid[2], 0]
}

/// The GPU-driven scheduler's arguments pass against the rule, on random plans: counters
/// below, inside and past each chunk; coalescing and thread group sizes; fixed grids and
/// dynamic ones of 1 to 3 `u32` or `u16` components (16-bit fields at both halves of a
/// word), clamped to the node's maximum. A changed rule must be caught.
#[test]
fn the_arguments_pass_sizes_dispatches_from_counters() {
    use untangle_testkit::fuzzing::mutate::SplitMix64;
    let Some(mut gpu) = open_or_skip("gpu_work_graphs") else { return };
    let f = &gpu.info().features;
    if !(f.buffer_device_address && f.shader_int64) {
        println!("SKIPPED: no bufferDeviceAddress or shaderInt64");
        return;
    }
    let mut rng = SplitMix64::new(0x5eed_a7c5);
    // Uniform in `lo..hi`.
    let mut range = |lo: u32, hi: u32| lo + rng.below((hi - lo) as usize) as u32;
    const ENTRIES: usize = 200;
    // Memory: counters (one per entry), then each entry's records, plans, arguments.
    let mut memory = vec![0u8; 4 * ENTRIES];
    let mut plans = Vec::new();
    for i in 0..ENTRIES {
        let total = range(0, 300);
        memory[4 * i..4 * i + 4].copy_from_slice(&total.to_le_bytes());
        let broadcasting = range(0, 10) < 6;
        let components = if broadcasting && range(0, 10) < 7 { range(1, 4) } else { 0 };
        let grid_u16 = components > 0 && range(0, 10) < 5;
        let grid_field = if grid_u16 { 2 * range(0, 4) } else { 4 * range(0, 3) };
        let stride = (grid_field + 12).next_multiple_of(4) + 4 * range(0, 3);
        let first = range(0, 200);
        let chunk = range(1, 120);
        let records = memory.len().next_multiple_of(16);
        memory.resize(records, 0);
        for _ in 0..chunk.min(total.saturating_sub(first)) {
            let mut rec = vec![0u8; stride as usize];
            for c in 0..components as usize {
                let v = range(0, 40);
                if grid_u16 {
                    rec[grid_field as usize + 2 * c..][..2].copy_from_slice(&(v as u16).to_le_bytes());
                } else {
                    rec[grid_field as usize + 4 * c..][..4].copy_from_slice(&v.to_le_bytes());
                }
            }
            memory.extend_from_slice(&rec);
        }
        plans.push(PlanEntry {
            counter: 4 * i as u32,
            first,
            chunk,
            broadcasting,
            per_group: range(1, 70),
            grid: [range(1, 30), range(1, 30), range(1, 30)],
            records: records as u32,
            stride,
            grid_field,
            grid_components: components,
            grid_u16,
            arguments: 0,
        });
    }
    let plan_at = memory.len().next_multiple_of(16);
    let args_at = plan_at + 64 * ENTRIES;
    memory.resize(args_at + 32 * ENTRIES, 0);
    for (i, p) in plans.iter_mut().enumerate() {
        p.arguments = (args_at + 32 * i) as u32;
        memory[plan_at + 64 * i..][..64].copy_from_slice(&p.bytes());
    }
    let module = arguments::module();
    let mut push = vec![0u8; 16];
    push[8..12].copy_from_slice(&(plan_at as u32).to_le_bytes());
    push[12..16].copy_from_slice(&(ENTRIES as u32).to_le_bytes());
    let program = Program {
        device_buffers: vec![DeviceBuffer { bytes: memory.clone(), address: AddressSlot::Nowhere }],
        pipelines: vec![ProgramShader { spirv: &module, entry: arguments::ENTRY }],
        steps: vec![Step::Dispatch(ProgramDispatch {
            pipeline: 0,
            push,
            push_addresses: vec![PushAddress { at: 0, buffer: 0, plus: 0 }],
            launch: Launch::Groups([(ENTRIES as u32).div_ceil(arguments::LOCAL_SIZE), 1, 1]),
        })],
        timeout: Duration::from_secs(60),
        ..Default::default()
    };
    let got = gpu.run_program(&program).unwrap().device_buffers.remove(0);
    let words = |at: usize| -> [u32; 8] {
        std::array::from_fn(|k| u32::from_le_bytes(got[at + 4 * k..at + 4 * k + 4].try_into().unwrap()))
    };
    let mut kinds = std::collections::BTreeSet::new();
    for (i, p) in plans.iter().enumerate() {
        let want = expected_arguments(p, &memory);
        assert_eq!(words(p.arguments as usize), want, "plan entry {i}: {p:?}");
        kinds.insert((p.broadcasting, p.grid_components, p.grid_u16, want[3] == p.chunk, want[3] == 0));
    }
    // The random plans reached every kind of entry the rule distinguishes.
    assert!(kinds.len() >= 12, "{kinds:?}");
    // A changed rule is caught: thread and coalescing groups rounded down.
    let wrong = plans.iter().filter(|p| !p.broadcasting).any(|p| {
        let mut w = expected_arguments(p, &memory);
        w[0] = w[3] / p.per_group.max(1);
        words(p.arguments as usize) != w
    });
    assert!(wrong, "a rule rounding group counts down passed");
}

/// The GPU-driven scheduler sizes every buffer before anything runs: a program input whose
/// bound outgrows the scheduler's memory (2^28 records into `basic_recursion`, each able to
/// make two more per level) is a typed error, not an allocation failure or a device fault.
#[test]
fn a_plan_past_the_memory_limit_is_a_typed_error() {
    let Some(mut gpu) = corpus_and_device() else { return };
    let path = corpus_dir().unwrap().join("workgraph.basic_recursion.lib_6_8.dxil");
    let shader = Shader::parse(&std::fs::read(&path).unwrap()).unwrap();
    let report = shader.library_report().unwrap();
    let translations = shader.translate_library(&Options::default()).unwrap();
    let graph = Graph::new(&report, &translations).unwrap();
    let input = GraphInput { node: ("EntryNode".into(), 0), records: Vec::new(), stride: 0, count: 1 << 28 };
    let resources = GraphResources {
        bindings: vec![Binding::new(RWBUF.0, RWBUF.1, Resource::StorageBuffer(vec![0; 4 * WORDS]))],
        ..Default::default()
    };
    match run_graph_indirect(&mut gpu, &graph, &input, resources, Duration::from_secs(60)) {
        Err(untangle_testkit::vulkan::work_graph::GraphError::Graph(m)) => {
            assert!(m.contains("bytes"), "{m}")
        }
        other => panic!("expected the memory limit, got {:?}", other.map(|r| r.dispatches.len())),
    }
}
