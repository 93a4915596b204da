//! Work-graph node reflection on the untangle path: `dxil_spv_parsed_blob_get_entry_point_node_input`,
//! `..._num_node_outputs` and `..._node_output`, answered from untangle's reading of the
//! node metadata (`untangle::dxil::node`, DXIL entry tags 13–22).
//!
//! What each field means is dxil-spirv's (its header is the specification): the input's
//! record stride (the record size; for `[NodeTrackRWInputSharing]` rounded up to 4 bytes and
//! 4 more for the sharing word), its `SV_DispatchGrid` field, the fixed or maximum broadcast
//! grid, the maximum records of a coalescing input (1 when unsaid), recursion depth, shared
//! input, local root-argument table (`UINT32_MAX`: none), and the specialization-constant ids
//! of dxil-spirv's node interface (group size 0–2, entry 3, payload stride 4, upper bound 5,
//! static broadcast 6, maximum grid 7–9, outputs from 100). An entry that is not a node
//! reads as all zeros with empty names, as dxil-spirv's does.
//!
//! These are pure metadata queries. Translating a node entry through this library is a
//! separate matter: dxil-spirv's node modules follow vkd3d-proton's work-graph runtime (push
//! constants, the specialization constants above), which untangle's node emission does not
//! implement (it follows `docs/work-graphs.md`), so the run is refused by name
//! (`untangle_path`). vkd3d-proton enables work graphs only with `VK_EXT_descriptor_heap`
//! (its `i_want_broken_descriptor_heap` configuration), so its test suite does not reach them.

use crate::ffi::*;
use std::ffi::CString;
use untangle::dxil::node::{io_flags, NodeLaunch, NodeProperties};

const SPEC_GROUP_SIZE: [u32; 3] = [0, 1, 2];
const SPEC_IS_ENTRY_POINT: u32 = 3;
const SPEC_INDIRECT_PAYLOAD_STRIDE: u32 = 4;
const SPEC_DISPATCH_GRID_IS_UPPER_BOUND: u32 = 5;
const SPEC_IS_STATIC_BROADCAST_NODE: u32 = 6;
const SPEC_MAX_BROADCAST_GRID: [u32; 3] = [7, 8, 9];
const SPEC_OUTPUT_BASE: u32 = 100;
/// `DXIL::ComponentType::U32`.
const COMPONENT_U32: &str = "u32";

/// One entry's node input, with the strings it hands out.
pub struct NodeInput {
    node_id: CString,
    share_input_id: CString,
    data: dxil_spv_node_input_data,
}

/// One node output, with its name.
pub struct NodeOutput {
    node_id: CString,
    data: dxil_spv_node_output_data,
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

fn zeroed_input() -> dxil_spv_node_input_data {
    dxil_spv_node_input_data {
        node_id: std::ptr::null(),
        payload_stride: 0,
        launch_type: DXIL_SPV_NODE_LAUNCH_TYPE_INVALID,
        node_array_index: 0,
        dispatch_grid_offset: 0,
        dispatch_grid_type_bits: 0,
        dispatch_grid_components: 0,
        broadcast_grid: [0; 3],
        thread_group_size_spec_id: [0; 3],
        max_broadcast_grid_spec_id: [0; 3],
        recursion_factor: 0,
        coalesce_factor: 0,
        node_share_input_id: std::ptr::null(),
        node_share_input_array_index: 0,
        local_root_arguments_table_index: 0,
        is_indirect_bda_stride_program_entry_spec_id: 0,
        is_entry_point_spec_id: 0,
        dispatch_grid_is_upper_bound_spec_id: 0,
        is_static_broadcast_node_spec_id: 0,
        dispatch_grid_is_upper_bound: DXIL_SPV_FALSE,
        node_track_rw_input_sharing: DXIL_SPV_FALSE,
        is_program_entry: DXIL_SPV_FALSE,
    }
}

impl NodeInput {
    /// The node input of an entry (`None`: not a node).
    pub fn of(node: Option<&NodeProperties>) -> NodeInput {
        let mut data = zeroed_input();
        let (mut node_id, mut share_input_id) = (CString::default(), CString::default());
        if let Some(n) = node {
            let broadcast = n.launch == NodeLaunch::Broadcasting;
            data.launch_type = match n.launch {
                NodeLaunch::Broadcasting => DXIL_SPV_NODE_LAUNCH_TYPE_BROADCASTING,
                NodeLaunch::Coalescing => DXIL_SPV_NODE_LAUNCH_TYPE_COALESCING,
                NodeLaunch::Thread => DXIL_SPV_NODE_LAUNCH_TYPE_THREAD,
            };
            data.is_program_entry = n.program_entry as dxil_spv_bool;
            data.is_indirect_bda_stride_program_entry_spec_id = SPEC_INDIRECT_PAYLOAD_STRIDE;
            data.is_entry_point_spec_id = SPEC_IS_ENTRY_POINT;
            if broadcast {
                data.dispatch_grid_is_upper_bound_spec_id = SPEC_DISPATCH_GRID_IS_UPPER_BOUND;
                data.is_static_broadcast_node_spec_id = SPEC_IS_STATIC_BROADCAST_NODE;
                data.max_broadcast_grid_spec_id = SPEC_MAX_BROADCAST_GRID;
                let (grid, upper) = match (n.dispatch.max_dispatch_grid, n.dispatch.dispatch_grid) {
                    (Some(g), _) => (g, true),
                    (None, Some(g)) => (g, false),
                    (None, None) => ([0; 3], false),
                };
                data.broadcast_grid = grid;
                data.dispatch_grid_is_upper_bound = upper as dxil_spv_bool;
            } else {
                data.dispatch_grid_is_upper_bound_spec_id = u32::MAX;
                data.is_static_broadcast_node_spec_id = u32::MAX;
                data.max_broadcast_grid_spec_id = [u32::MAX; 3];
            }
            data.recursion_factor = n.dispatch.max_recursion_depth.unwrap_or(0);
            data.thread_group_size_spec_id = SPEC_GROUP_SIZE;
            node_id = cstring(&n.id.name);
            data.node_array_index = n.id.index;
            // 32 for a `u32` grid, else 16 (also without a grid, as dxil-spirv answers).
            data.dispatch_grid_type_bits = 16;
            if let Some(input) = n.inputs.first() {
                if let Some(g) = input.record.and_then(|r| r.dispatch_grid) {
                    data.dispatch_grid_offset = g.offset;
                    data.dispatch_grid_type_bits = if g.component_type == COMPONENT_U32 { 32 } else { 16 };
                    data.dispatch_grid_components = g.components;
                }
                let sharing = input.flags & io_flags::TRACK_RW_INPUT_SHARING != 0;
                data.node_track_rw_input_sharing = sharing as dxil_spv_bool;
                data.payload_stride = if input.is_empty_record() {
                    0
                } else {
                    let size = input.record.map_or(0, |r| r.size);
                    // The sharing word follows the record, 4-byte aligned.
                    if sharing {
                        size.div_ceil(4) * 4 + 4
                    } else {
                        size
                    }
                };
                data.coalesce_factor = input.max_records.unwrap_or(0);
                if data.coalesce_factor == 0 && n.launch == NodeLaunch::Coalescing {
                    data.coalesce_factor = 1;
                }
            }
            if let Some(s) = &n.share_input_of {
                share_input_id = cstring(&s.name);
                data.node_share_input_array_index = s.index;
            }
            data.local_root_arguments_table_index = n.local_root_arguments_table_index.unwrap_or(u32::MAX);
        }
        NodeInput { node_id, share_input_id, data }
    }

    /// The C structure (its strings live as long as `self`).
    pub fn c(&self) -> dxil_spv_node_input_data {
        dxil_spv_node_input_data {
            node_id: self.node_id.as_ptr(),
            node_share_input_id: self.share_input_id.as_ptr(),
            ..self.data
        }
    }
}

impl NodeOutput {
    /// The outputs of an entry, in metadata order (none for other entries).
    pub fn all_of(node: Option<&NodeProperties>) -> Vec<NodeOutput> {
        let Some(n) = node else { return Vec::new() };
        n.outputs
            .iter()
            .zip(SPEC_OUTPUT_BASE..)
            .map(|(o, spec)| {
                let id = o.output_id.as_ref();
                NodeOutput {
                    node_id: cstring(id.map_or("", |i| i.name.as_str())),
                    data: dxil_spv_node_output_data {
                        node_id: std::ptr::null(),
                        node_array_index: id.map_or(0, |i| i.index),
                        node_array_size: o.array_size.unwrap_or(0),
                        node_index_spec_constant_id: spec,
                        max_records: o.max_records.unwrap_or(0),
                        sparse_array: o.allow_sparse_nodes as dxil_spv_bool,
                    },
                }
            })
            .collect()
    }

    /// The C structure (its name lives as long as `self`).
    pub fn c(&self) -> dxil_spv_node_output_data {
        dxil_spv_node_output_data { node_id: self.node_id.as_ptr(), ..self.data }
    }
}
