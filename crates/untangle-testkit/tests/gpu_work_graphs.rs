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
//! The multi-level graphs are the scheduler's (`crates/untangle-testkit`).

use std::path::PathBuf;
use std::time::Duration;
use untangle::rootsig::{parse_hlsl, BindingModel, LayoutOptions, Version};
use untangle::{Options, RootSignatureBinding, Shader};
use untangle_testkit::vulkan::{open_or_skip, AddressSlot, Binding, DeviceBuffer, Dispatch, Gpu, Resource};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");
/// `RWBuf` (u0, space 0) under the default binding model.
const RWBUF: (u32, u32) = (0, 2000);
const WORDS: usize = 1024;

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
    let path = PathBuf::from(DIR).join(format!("workgraph.{library}.lib_6_8.dxil"));
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

#[test]
fn single_level_nodes_run_under_the_scheduler_contract() {
    if !PathBuf::from(DIR).exists() {
        eprintln!("{DIR} not found: skipping");
        return;
    }
    let Some(mut gpu) = open_or_skip("gpu_work_graphs") else { return };
    let f = gpu.info().features.clone();
    if !(f.buffer_device_address && f.shader_int64) {
        println!("SKIPPED gpu_work_graphs: no bufferDeviceAddress or shaderInt64");
        return;
    }

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
    let path = PathBuf::from(DIR).join("workgraph.local_root_signature.lib_6_8.dxil");
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
        let mut push = vec![0u8; 8 + 56];
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
