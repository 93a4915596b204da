//! The library report (`--layout-json` given a library; schema `untangle-library/1`,
//! documented in `docs/layout-json.md`): every entry with its stage, payload and attribute
//! sizes and the subobjects that apply to it, and every state subobject of the library
//! (`crate::front::container::rdat`), root signatures spelled as HLSL root-signature strings. With
//! it a layer builds the `VkRayTracingPipelineCreateInfoKHR` (stages, groups from the hit
//! groups, recursion depth) and sizes the shader binding table (each entry's
//! `shader_record`: the local root arguments after the group handle).
//!
//! Which subobjects apply to an entry follows DXR's association rules
//! ([`crate::front::container::rdat::applying_to`]). Cost: linear in entries × subobjects.
//!
//! A leaf of `emit` (see its documentation): it imports the root, `entry`,
//! `work_graph` and the layers below `emit`.

use crate::dxil::node::{NodeDispatch, NodeId, NodeLaunch, NodeRecordType};
use crate::dxil::EntryPoint;
use crate::emit::entry::export_name;
use crate::emit::error::Result;
use crate::emit::work_graph;
use crate::emit::LayoutReport;
use crate::front::container::rdat::{applying_to, Subobject, SubobjectKind};
use crate::front::container::ShaderKind;
use serde::Serialize;

pub const LIBRARY_SCHEMA: &str = "untangle-library/1";

#[derive(Clone, Debug, Serialize)]
pub struct LibraryReport {
    /// `"untangle-library/1"`.
    pub schema: &'static str,
    pub entries: Vec<LibraryEntry>,
    pub subobjects: Vec<SubobjectReport>,
}

/// One exported entry.
#[derive(Clone, Debug, Serialize)]
pub struct LibraryEntry {
    /// The exported name (also the SPIR-V entry point's).
    pub name: String,
    /// `raygeneration`, `intersection`, `anyhit`, `closesthit`, `miss`, `callable`,
    /// `compute`, `node` (any entry with node properties, as it is translated).
    pub stage: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload_size_in_bytes: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribute_size_in_bytes: Option<u32>,
    /// The names of the subobjects that apply to it, by kind.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub global_root_signatures: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub local_root_signatures: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shader_configs: Vec<String>,
    /// The hit groups that contain it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hit_groups: Vec<String>,
    /// Work-graph nodes: what the scheduler needs (`docs/work-graphs.md`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeReport>,
    /// Its translation's pipeline layout report, when it was bound through a root
    /// signature (filled in by whoever translated it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<LayoutReport>,
}

/// A node entry's scheduling facts (`docs/work-graphs.md`, "The report's `node` object").
#[derive(Clone, Debug, Serialize)]
pub struct NodeReport {
    pub id: NodeId,
    pub launch: NodeLaunch,
    pub program_entry: bool,
    pub num_threads: [u32; 3],
    #[serde(flatten)]
    pub dispatch: NodeDispatch,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub share_input_of: Option<NodeId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_root_arguments_table_index: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<NodeInputReport>,
    pub outputs: Vec<NodeOutputReport>,
    pub output_table_entries: u32,
    pub uses_sharing_counters: bool,
    pub push_constant_size: u32,
}

/// The node's input.
#[derive(Clone, Debug, Serialize)]
pub struct NodeInputReport {
    pub kind: &'static str,
    /// Coalescing: records per group (1 when the shader does not say).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_records: Option<u32>,
    pub track_rw_input_sharing: bool,
    pub globally_coherent: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<NodeRecordType>,
}

/// One output.
#[derive(Clone, Debug, Serialize)]
pub struct NodeOutputReport {
    /// The `createNodeOutputHandle` index.
    pub index: u32,
    /// The target node (array element 0).
    pub id: NodeId,
    pub kind: &'static str,
    /// First output-table entry (the one indirect entry of an unbounded array).
    pub table_index: u32,
    /// Elements (1 for a single node); absent for an unbounded array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array_size: Option<u32>,
    pub unbounded: bool,
    pub max_records: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_records_shared_with: Option<u32>,
    pub allow_sparse_nodes: bool,
    pub empty: bool,
    pub track_rw_input_sharing: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<NodeRecordType>,
}

/// The node report of entry `e` (`None` for other entries).
fn node_report(m: &crate::ir::Module, e: &EntryPoint) -> Option<NodeReport> {
    use crate::dxil::node::io_flags;
    let p = e.properties.node.as_ref()?;
    let (table_index, entries) = work_graph::output_table(p);
    let uses_sharing_counters = e.function.is_some_and(|f| {
        let f = &m.functions[f];
        f.layout.iter().flat_map(|&b| f.blocks[b].insts.iter()).any(|&i| {
            matches!(crate::dxil::ops::decode_call(m, f, i, ""), Ok(Some(c)) if c.op == crate::dxil::DxOp::FinishedCrossGroupSharing)
        })
    });
    let input = p.inputs.first().map(|i| NodeInputReport {
        kind: i.kind_name(),
        max_records: match p.launch {
            NodeLaunch::Coalescing => Some(i.max_records.unwrap_or(1).max(1)),
            _ => None,
        },
        track_rw_input_sharing: i.flags & io_flags::TRACK_RW_INPUT_SHARING != 0,
        globally_coherent: i.flags & io_flags::GLOBALLY_COHERENT != 0,
        record: i.record,
    });
    let outputs = p
        .outputs
        .iter()
        .enumerate()
        .map(|(k, o)| NodeOutputReport {
            index: k as u32,
            id: o.output_id.clone().unwrap_or(NodeId { name: String::new(), index: 0 }),
            kind: o.kind_name(),
            table_index: table_index[k],
            array_size: if o.is_unbounded() { None } else { Some(o.array_size.unwrap_or(1).max(1)) },
            unbounded: o.is_unbounded(),
            max_records: o.max_records.unwrap_or(0),
            max_records_shared_with: o.max_records_shared_with,
            allow_sparse_nodes: o.allow_sparse_nodes,
            empty: o.is_empty_record(),
            track_rw_input_sharing: o.flags & io_flags::TRACK_RW_INPUT_SHARING != 0,
            record: o.record,
        })
        .collect();
    Some(NodeReport {
        id: p.id.clone(),
        launch: p.launch,
        program_entry: p.program_entry,
        num_threads: work_graph::local_size(m, e),
        dispatch: p.dispatch,
        share_input_of: p.share_input_of.clone(),
        local_root_arguments_table_index: p.local_root_arguments_table_index,
        input,
        outputs,
        output_table_entries: entries,
        uses_sharing_counters,
        push_constant_size: work_graph::PUSH_CONSTANT_SIZE,
    })
}

/// A subobject, and for root signatures their HLSL spelling.
#[derive(Clone, Debug, Serialize)]
pub struct SubobjectReport {
    #[serde(flatten)]
    pub subobject: Subobject,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_signature: Option<String>,
}

/// The stage name the report uses: the root signature's name for it
/// ([`crate::rootsig::resolve::stage_visibility`], one table for both reports).
pub fn stage_name(kind: ShaderKind) -> &'static str {
    crate::rootsig::resolve::stage_visibility(kind).map_or("other", |(_, _, name)| name)
}

/// The report of a library with these entries and subobjects.
pub fn report(m: &crate::ir::Module, entries: &[EntryPoint], subobjects: &[Subobject]) -> Result<LibraryReport> {
    let names = |kind: fn(&SubobjectKind) -> bool, export: &str| -> Vec<String> {
        applying_to(subobjects, export, kind).into_iter().map(|s| s.name.clone()).collect()
    };
    let entries = entries
        .iter()
        .filter(|e| e.function.is_some())
        .map(|e| {
            let name = export_name(&e.name).to_string();
            let kind = match e.properties.node {
                Some(_) => ShaderKind::Node,
                None => e.properties.shader_kind.unwrap_or(ShaderKind::Invalid),
            };
            let hit_groups = subobjects
                .iter()
                .filter(|s| match &s.kind {
                    SubobjectKind::HitGroup { any_hit, closest_hit, intersection, .. } => {
                        [any_hit, closest_hit, intersection].iter().any(|n| n.as_deref() == Some(name.as_str()))
                    }
                    _ => false,
                })
                .map(|s| s.name.clone())
                .collect();
            LibraryEntry {
                stage: stage_name(kind),
                payload_size_in_bytes: e.properties.ray_payload_size,
                attribute_size_in_bytes: e.properties.ray_attribute_size,
                global_root_signatures: names(|k| matches!(k, SubobjectKind::GlobalRootSignature { .. }), &name),
                local_root_signatures: names(|k| matches!(k, SubobjectKind::LocalRootSignature { .. }), &name),
                shader_configs: names(|k| matches!(k, SubobjectKind::RaytracingShaderConfig { .. }), &name),
                hit_groups,
                node: node_report(m, e),
                layout: None,
                name,
            }
        })
        .collect();
    let subobjects = subobjects
        .iter()
        .map(|s| {
            let root_signature = match s.kind.root_signature() {
                Some(bytes) => Some(crate::rootsig::to_hlsl(&crate::rootsig::decode_rts0(bytes)?)),
                None => None,
            };
            Ok(SubobjectReport { subobject: s.clone(), root_signature })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(LibraryReport { schema: LIBRARY_SCHEMA, entries, subobjects })
}

#[cfg(test)]
mod stage_name_tests {
    use super::stage_name;
    use crate::front::container::ShaderKind;

    /// Every stage an entry can have is named in the report ("other" was what compute and
    /// pixel entries of libraries got, issue 33).
    #[test]
    fn every_entry_stage_is_named() {
        // Every stage DXC numbers but `Library`, which is a program's kind, not an entry's.
        let stages: Vec<ShaderKind> = ShaderKind::ALL.into_iter().filter(|&s| s != ShaderKind::Library).collect();
        for &s in &stages {
            assert_ne!(stage_name(s), "other", "{s:?}");
        }
        let names: std::collections::BTreeSet<_> = stages.iter().map(|&s| stage_name(s)).collect();
        assert_eq!(names.len(), stages.len(), "two stages share a name");
    }
}
