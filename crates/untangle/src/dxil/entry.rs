//! Entry points (`dx.entryPoints`).
//!
//! Each entry: function (null for a library's module-level entry), name, signatures,
//! resources, properties. Properties are a tag/value list (DXC `DxilMDHelper`): 0 shader
//! flags (i64), 1 GS state, 2 DS state, 3 HS state, 4 numthreads, 5 auto binding space,
//! 6 ray payload size, 7 ray attribute size, 8 shader kind, 9 MS state, 10 AS state,
//! 11 wave size, 12 entry root signature, 13–22 work-graph node properties (read into
//! [`super::node::NodeProperties`]), 23 ranged wave size. Tags 1–3, 9 and 10 are read into [`GsState`], [`DsState`], [`HsState`], [`MsState`]
//! and [`AsState`] (layouts in DXC's `DxilMDHelper::LoadDxil{GS,DS,HS,MS,AS}State`); states
//! we do not interpret yet are kept as their tag number.

use super::enums::{
    InputPrimitive, PrimitiveTopology, TessellatorDomain, TessellatorOutputPrimitive, TessellatorPartitioning,
};
use super::error::Result;
use super::md::Tuple;
use super::resources::Resources;
use super::signature::Signatures;
use crate::front::container::ShaderKind;
use crate::ir::{FuncId, MdId, Module};
use serde::Serialize;

#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct EntryPoint {
    /// `None` for a library's module-level entry, which only carries resources.
    #[serde(skip)]
    pub function: Option<FuncId>,
    /// The LLVM function's name.
    pub function_name: Option<String>,
    /// The entry point's name as the application sees it.
    pub name: String,
    pub signatures: Signatures,
    /// Entry-specific resources (libraries); for other stages this is the module's table.
    pub resources: Resources,
    pub properties: EntryProperties,
}

#[derive(Clone, PartialEq, Debug, Default, Serialize)]
pub struct EntryProperties {
    pub shader_flags: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_threads: Option<[u32; 3]>,
    /// Library function kind (tag 8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shader_kind: Option<ShaderKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wave_size: Option<WaveSize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_binding_space: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ray_payload_size: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ray_attribute_size: Option<u32>,
    /// Geometry shader state (tag 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geometry: Option<GsState>,
    /// Domain shader state (tag 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<DsState>,
    /// Hull shader state (tag 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hull: Option<HsState>,
    /// Mesh shader state (tag 9).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh: Option<MsState>,
    /// Amplification shader state (tag 10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amplification: Option<AsState>,
    /// Work-graph node properties (tags 13–22, `super::node`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<super::node::NodeProperties>,
    /// Node tags that were read but break a rule of the node metadata (no launch type, a
    /// max dispatch grid without `SV_DispatchGrid`, ...): the reason. The module still
    /// loads (`untangle info` describes it); translating the entry fails with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_error: Option<String>,
    /// Tags present but not interpreted (stage states).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_tags: Vec<u32>,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
pub struct WaveSize {
    pub min: u32,
    pub max: u32,
    pub preferred: u32,
}

/// `[maxvertexcount]`, `[instance]` and the primitive types of a geometry shader.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct GsState {
    pub input_primitive: InputPrimitive,
    pub max_vertex_count: u32,
    /// Bit k: stream k is written.
    pub active_stream_mask: u32,
    /// The output topology (all streams share it).
    pub output_topology: PrimitiveTopology,
    /// `[instance(n)]`: invocations per primitive.
    pub instance_count: u32,
}

/// A domain shader's `[domain]` and the number of control points it reads.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct DsState {
    pub domain: TessellatorDomain,
    pub input_control_points: u32,
}

/// A hull shader's attributes and its patch-constant function.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct HsState {
    /// The patch-constant function (`None` when the metadata names none).
    #[serde(skip)]
    pub patch_constant_function: Option<FuncId>,
    pub input_control_points: u32,
    pub output_control_points: u32,
    pub domain: TessellatorDomain,
    pub partitioning: TessellatorPartitioning,
    pub output_primitive: TessellatorOutputPrimitive,
    /// `[maxtessfactor]` (64 when the shader does not say).
    pub max_tess_factor: f64,
}

/// A mesh shader's `[numthreads]`, `[outputtopology]` and output limits
/// (`{numthreads, maxVertexCount, maxPrimitiveCount, topology, payloadSizeInBytes}`).
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct MsState {
    pub num_threads: [u32; 3],
    /// The declared length of the `vertices` output array.
    pub max_vertex_count: u32,
    /// The declared length of the `indices` (and `primitives`) output arrays.
    pub max_primitive_count: u32,
    /// `DXIL::MeshOutputTopology`: 0 undefined, 1 lines, 2 triangles.
    pub output_topology: u32,
    /// Bytes of the payload read with `getMeshPayload` (0 without one).
    pub payload_size: u32,
}

/// An amplification shader's `[numthreads]` and the size of the payload it dispatches.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct AsState {
    pub num_threads: [u32; 3],
    pub payload_size: u32,
}

/// `module_resources`: the module's `dx.resources` table and its node. An entry point names
/// that same node in nearly every module; it is then cloned, not read a second time.
pub(crate) fn read_entry_points(m: &Module, module_resources: (Option<MdId>, &Resources)) -> Result<Vec<EntryPoint>> {
    let (module_resources_node, module_resources) = module_resources;
    let mut out = Vec::new();
    for (k, &id) in m.metadata.named("dx.entryPoints").iter().enumerate() {
        let t = Tuple::of_named(m, id, "dx.entryPoints", k)?;
        let function = t.function_opt(0)?;
        let signatures = match t.opt_tuple(2)? {
            Some(s) => Signatures::read(&s)?,
            None => Signatures::default(),
        };
        let resources = match t.get(3) {
            Some(id) if Some(id) == module_resources_node => module_resources.clone(),
            Some(_) => Resources::from_tuple(&t.node(3)?)?,
            None => module_resources.clone(),
        };
        let name = t.string(1).unwrap_or("").to_string();
        let properties = match t.opt_tuple(4)? {
            Some(p) => read_properties(&p, &name)?,
            None => EntryProperties::default(),
        };
        out.push(EntryPoint {
            function,
            function_name: function.map(|f| m.functions[f].name.clone()),
            name,
            signatures,
            resources,
            properties,
        });
    }
    Ok(out)
}

fn read_properties(p: &Tuple<'_>, entry: &str) -> Result<EntryProperties> {
    let mut props = EntryProperties::default();
    let mut node = super::node::NodeTags::default();
    for (tag, at) in p.tag_pairs()? {
        if node.read(p, tag, at)? {
            continue;
        }
        match tag {
            0 => props.shader_flags = p.uint(at)?,
            4 => {
                let n = p.tuple(at)?;
                props.num_threads = Some([n.u32(0)?, n.u32(1)?, n.u32(2)?]);
            }
            // A bare i32, or (in libraries compiled for SM 6.8) a one-element tuple.
            5 => props.auto_binding_space = Some(p.u32(at).or_else(|_| p.tuple(at)?.u32(0))?),
            6 => props.ray_payload_size = Some(p.u32(at)?),
            7 => props.ray_attribute_size = Some(p.u32(at)?),
            8 => props.shader_kind = Some(ShaderKind::from_raw(p.u32(at)?)),
            1 => {
                let g = p.tuple(at)?;
                props.geometry = Some(GsState {
                    input_primitive: InputPrimitive::from_raw(g.u32(0)?),
                    max_vertex_count: g.u32(1)?,
                    active_stream_mask: g.u32(2)?,
                    output_topology: PrimitiveTopology::from_raw(g.u32(3)?),
                    instance_count: g.u32(4)?,
                });
            }
            2 => {
                let d = p.tuple(at)?;
                props.domain =
                    Some(DsState { domain: TessellatorDomain::from_raw(d.u32(0)?), input_control_points: d.u32(1)? });
            }
            3 => {
                let h = p.tuple(at)?;
                let patch_constant_function = h.function_opt(0)?;
                props.hull = Some(HsState {
                    patch_constant_function,
                    input_control_points: h.u32(1)?,
                    output_control_points: h.u32(2)?,
                    domain: TessellatorDomain::from_raw(h.u32(3)?),
                    partitioning: TessellatorPartitioning::from_raw(h.u32(4)?),
                    output_primitive: TessellatorOutputPrimitive::from_raw(h.u32(5)?),
                    max_tess_factor: h.float(6)?,
                });
            }
            9 => {
                let t = p.tuple(at)?;
                let n = t.tuple(0)?;
                props.mesh = Some(MsState {
                    num_threads: [n.u32(0)?, n.u32(1)?, n.u32(2)?],
                    max_vertex_count: t.u32(1)?,
                    max_primitive_count: t.u32(2)?,
                    output_topology: t.u32(3)?,
                    payload_size: t.u32(4)?,
                });
            }
            10 => {
                let t = p.tuple(at)?;
                let n = t.tuple(0)?;
                props.amplification =
                    Some(AsState { num_threads: [n.u32(0)?, n.u32(1)?, n.u32(2)?], payload_size: t.u32(1)? });
            }
            11 => {
                // Either a bare i32 (SM 6.6) or a tuple {min, max, preferred} (SM 6.8).
                let w = if let Some(n) = p.u32_opt(at) {
                    WaveSize { min: n, max: n, preferred: n }
                } else {
                    let t = p.tuple(at)?;
                    let min = t.u32(0)?;
                    WaveSize { min, max: t.u32_opt(1).unwrap_or(min), preferred: t.u32_opt(2).unwrap_or(0) }
                };
                props.wave_size = Some(w);
            }
            23 => {
                let t = p.tuple(at)?;
                let min = t.u32(0)?;
                props.wave_size =
                    Some(WaveSize { min, max: t.u32_opt(1).unwrap_or(min), preferred: t.u32_opt(2).unwrap_or(0) });
            }
            other => props.other_tags.push(other),
        }
    }
    match node.finish(entry) {
        Ok(n) => props.node = n,
        Err(e) => props.node_error = Some(e.detail()),
    }
    Ok(props)
}
