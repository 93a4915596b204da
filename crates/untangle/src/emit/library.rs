//! The library report (`--layout-json` given a library; schema `untangle-library/1`,
//! documented in `docs/layout-json.md`): every entry with its stage, payload and attribute
//! sizes and the subobjects that apply to it, and every state subobject of the library
//! (`crate::container::rdat`), root signatures spelled as HLSL root-signature strings. With
//! it a layer builds the `VkRayTracingPipelineCreateInfoKHR` (stages, groups from the hit
//! groups, recursion depth) and sizes the shader binding table (each entry's
//! `shader_record`: the local root arguments after the group handle).
//!
//! Which subobjects apply to an entry follows DXR's association rules
//! ([`crate::container::rdat::applying_to`]). Cost: linear in entries × subobjects.

use super::translate::LayoutReport;
use crate::container::rdat::{applying_to, Subobject, SubobjectKind};
use crate::container::ShaderKind;
use crate::dxil::EntryPoint;
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
    /// `compute`, `node`.
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
    /// Its translation's pipeline layout report, when it was bound through a root
    /// signature (filled in by whoever translated it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<LayoutReport>,
}

/// A subobject, and for root signatures their HLSL spelling.
#[derive(Clone, Debug, Serialize)]
pub struct SubobjectReport {
    #[serde(flatten)]
    pub subobject: Subobject,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_signature: Option<String>,
}

/// The stage name the report uses.
pub fn stage_name(kind: ShaderKind) -> &'static str {
    match kind {
        ShaderKind::RayGeneration => "raygeneration",
        ShaderKind::Intersection => "intersection",
        ShaderKind::AnyHit => "anyhit",
        ShaderKind::ClosestHit => "closesthit",
        ShaderKind::Miss => "miss",
        ShaderKind::Callable => "callable",
        ShaderKind::Compute => "compute",
        ShaderKind::Node => "node",
        _ => "other",
    }
}

/// The report of a library with these entries and subobjects.
pub fn report(entries: &[EntryPoint], subobjects: &[Subobject]) -> crate::Result<LibraryReport> {
    let names = |kind: fn(&SubobjectKind) -> bool, export: &str| -> Vec<String> {
        applying_to(subobjects, export, kind).into_iter().map(|s| s.name.clone()).collect()
    };
    let entries = entries
        .iter()
        .filter(|e| e.function.is_some())
        .map(|e| {
            let name = super::stage::ray_tracing::export_name(&e.name).to_string();
            let kind = e.properties.shader_kind.unwrap_or(ShaderKind::Invalid);
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
        .collect::<crate::Result<Vec<_>>>()?;
    Ok(LibraryReport { schema: LIBRARY_SCHEMA, entries, subobjects })
}
