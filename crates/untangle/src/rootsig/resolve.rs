//! Resolving a shader's resources against a root signature: which root parameter (and
//! range) covers each declared register range, and what that means in the lowered
//! [`PipelineLayout`] ([`Place`]).
//!
//! D3D12's rules, as the runtime checks them at pipeline creation:
//! - only parameters visible to the stage count (`SHADER_VISIBILITY_ALL` or the stage's
//!   own), and none if the root flags deny the stage root access;
//! - every register of a declared range must be covered (D3D checks declared resources,
//!   used or not), and a range of several registers must lie within one descriptor range;
//! - root CBVs cover single constant buffers; root SRVs/UAVs only raw and structured
//!   buffers (root descriptors have no format and no counter); root constants cover a
//!   single constant buffer; static samplers cover single samplers.
//!
//! A root argument past the push-constant budget (`super::spill`) resolves to the same
//! [`Place`] in the root argument buffer instead of the push constants.

use super::layout::{BindingModel, PipelineLayout, PushKind, RootDescriptors, View};
use super::model::*;
use crate::dxil::{Resource, ResourceKind};
use crate::front::container::ShaderKind;
use serde::Serialize;

pub use super::place::Place;

/// One resolved resource, as the layout report lists it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct ResolvedResource {
    #[serde(flatten)]
    pub resource: ResourceName,
    /// Registers in the declared range (`None`: unbounded).
    pub count: Option<u32>,
    /// The root parameter that covers it (`None` for a static sampler).
    pub parameter: Option<u32>,
    /// The range within that parameter's table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub static_sampler: Option<u32>,
    pub place: Place,
    #[serde(skip)]
    pub class: ResourceClass,
    #[serde(skip)]
    pub id: u32,
}

/// A declared resource as reports and messages name it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct ResourceName {
    /// `t3`, `b0`, ... (the space is separate).
    pub register: String,
    pub space: u32,
    /// The DXIL name; empty when the DXIL kept none.
    pub name: String,
}

impl ResourceName {
    pub fn of(r: &Resource) -> ResourceName {
        ResourceName { register: short_register(r), space: r.space, name: r.name.clone() }
    }
}

/// `t3, space0 (name)`, or `t3, space0` when there is no name.
impl std::fmt::Display for ResourceName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, space{}", self.register, self.space)?;
        if !self.name.is_empty() {
            write!(f, " ({})", self.name)?;
        }
        Ok(())
    }
}

/// Why a shader does not fit a root signature.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    #[error("{resource} is not covered by any root parameter visible to the {stage} stage")]
    Uncovered { resource: ResourceName, stage: &'static str },
    #[error("{resource}: the declared range of {registers} registers is only partly covered by root parameter {parameter} range {range}")]
    PartlyCovered { resource: ResourceName, registers: String, parameter: u32, range: u32 },
    #[error("{resource} is a {kind}; root parameter {parameter} is a root descriptor, which can only be a raw or structured buffer or a single constant buffer")]
    RootDescriptorKind { resource: ResourceName, kind: String, parameter: u32 },
    #[error("{resource} uses a UAV counter; root parameter {parameter} is a root UAV, which has none")]
    RootDescriptorCounter { resource: ResourceName, parameter: u32 },
    #[error("{resource} is an array; {what} cover single registers only")]
    ArrayOnRoot { resource: ResourceName, what: &'static str },
    #[error("the root flags deny the {stage} stage root access, but it declares {register}, space{space}")]
    StageDenied { stage: &'static str, register: String, space: u32 },
    #[error("shader stage `{0}` has no root-signature visibility")]
    NoVisibility(String),
    #[error("the shader indexes a descriptor heap directly, but the root signature has neither a descriptor table nor the CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED / SAMPLER_HEAP_DIRECTLY_INDEXED flag")]
    NoHeap,
    #[error("{resource} uses a UAV counter, but the root parameter it resolved to has none")]
    NoCounter { resource: ResourceName },
    #[error(transparent)]
    Layout(#[from] super::layout::LayoutError),
    #[error("{register}, space{space} is a static sampler of the local root signature; static samplers of local root signatures are not supported")]
    LocalStaticSampler { register: String, space: u32 },
}

/// The D3D visibility of a stage, the root flag that denies it, and its name.
pub fn stage_visibility(stage: ShaderKind) -> Option<(Visibility, u32, &'static str)> {
    Some(match stage {
        ShaderKind::Compute => (Visibility::All, 0, "compute"),
        ShaderKind::Vertex => (Visibility::Vertex, RootFlags::DENY_VERTEX_SHADER_ROOT_ACCESS, "vertex"),
        ShaderKind::Pixel => (Visibility::Pixel, RootFlags::DENY_PIXEL_SHADER_ROOT_ACCESS, "pixel"),
        ShaderKind::Hull => (Visibility::Hull, RootFlags::DENY_HULL_SHADER_ROOT_ACCESS, "hull"),
        ShaderKind::Domain => (Visibility::Domain, RootFlags::DENY_DOMAIN_SHADER_ROOT_ACCESS, "domain"),
        ShaderKind::Geometry => (Visibility::Geometry, RootFlags::DENY_GEOMETRY_SHADER_ROOT_ACCESS, "geometry"),
        ShaderKind::Mesh => (Visibility::Mesh, RootFlags::DENY_MESH_SHADER_ROOT_ACCESS, "mesh"),
        ShaderKind::Amplification => {
            (Visibility::Amplification, RootFlags::DENY_AMPLIFICATION_SHADER_ROOT_ACCESS, "amplification")
        }
        // Ray-tracing shaders see the parameters visible to all stages (D3D12 has no
        // ray-tracing visibility and no deny flag for them).
        ShaderKind::RayGeneration => (Visibility::All, 0, "raygeneration"),
        ShaderKind::Intersection => (Visibility::All, 0, "intersection"),
        ShaderKind::AnyHit => (Visibility::All, 0, "anyhit"),
        ShaderKind::ClosestHit => (Visibility::All, 0, "closesthit"),
        ShaderKind::Miss => (Visibility::All, 0, "miss"),
        ShaderKind::Callable => (Visibility::All, 0, "callable"),
        // Work-graph nodes are compute shaders to D3D12's root signature.
        ShaderKind::Node => (Visibility::All, 0, "node"),
        _ => return None,
    })
}

/// The view a declared resource is bound through.
pub fn view_of(r: &Resource) -> View {
    match r.class {
        ResourceClass::Cbv => View::ConstantBuffer,
        ResourceClass::Sampler => View::Sampler,
        ResourceClass::Srv | ResourceClass::Uav => match r.kind {
            ResourceKind::RawBuffer | ResourceKind::StructuredBuffer => View::Buffer,
            ResourceKind::TypedBuffer => View::TexelBuffer,
            _ => View::Image,
        },
    }
}

/// `t3` (the space is reported separately).
pub(crate) fn short_register(r: &Resource) -> String {
    format!("{}{}", r.class.register_letter(), r.lower_bound)
}

fn has_counter(r: &Resource) -> bool {
    r.uav.is_some_and(|u| u.has_counter)
}

/// Resolve one declared resource of a `stage` shader.
pub fn resolve_one_in(
    rs: &RootSignature,
    layout: &PipelineLayout,
    stage: ShaderKind,
    r: &Resource,
) -> Result<ResolvedResource, ResolveError> {
    let (vis, deny, stage_name) =
        stage_visibility(stage).ok_or_else(|| ResolveError::NoVisibility(format!("{stage:?}")))?;
    if deny != 0 && rs.flags.contains(deny) {
        return Err(ResolveError::StageDenied { stage: stage_name, register: short_register(r), space: r.space });
    }
    resolve_one(rs, layout, vis, stage_name, r)
}

/// Resolve every declared resource of a `stage` shader.
pub fn resolve_all<'r>(
    rs: &RootSignature,
    layout: &PipelineLayout,
    stage: ShaderKind,
    resources: impl IntoIterator<Item = &'r Resource>,
) -> Result<Vec<ResolvedResource>, ResolveError> {
    let (vis, deny, stage_name) =
        stage_visibility(stage).ok_or_else(|| ResolveError::NoVisibility(format!("{stage:?}")))?;
    let mut out = Vec::new();
    for r in resources {
        if deny != 0 && rs.flags.contains(deny) {
            return Err(ResolveError::StageDenied { stage: stage_name, register: short_register(r), space: r.space });
        }
        out.push(resolve_one(rs, layout, vis, stage_name, r)?);
    }
    Ok(out)
}

fn resolve_one(
    rs: &RootSignature,
    layout: &PipelineLayout,
    vis: Visibility,
    stage: &'static str,
    r: &Resource,
) -> Result<ResolvedResource, ResolveError> {
    let visible = |v: Visibility| v == Visibility::All || v == vis;
    let registers = r.range_size;
    let single = registers == Some(1);
    let done =
        |parameter: Option<u32>, range: Option<u32>, static_sampler: Option<u32>, place: Place| ResolvedResource {
            resource: ResourceName::of(r),
            count: registers,
            parameter,
            range,
            static_sampler,
            place,
            class: r.class,
            id: r.id,
        };
    let array_on_root = |what| ResolveError::ArrayOnRoot { resource: ResourceName::of(r), what };
    for (p, param) in rs.parameters.iter().enumerate() {
        if !visible(param.visibility) {
            continue;
        }
        let p32 = p as u32;
        match &param.kind {
            ParameterKind::Constants(c) => {
                if r.class != ResourceClass::Cbv || c.space != r.space || c.register != r.lower_bound {
                    continue;
                }
                if !single {
                    return Err(array_on_root("root constants"));
                }
                let arg = layout.root_argument(p32).filter(|(_, m)| matches!(m.kind, PushKind::RootConstants { .. }));
                let Some((store, m)) = arg else { continue };
                let (offset, num_values) = (m.offset, c.num_values);
                let place = Place::RootConstants { store, offset, num_values };
                return Ok(done(Some(p32), None, None, place));
            }
            ParameterKind::Descriptor(d) => {
                if d.class != r.class || d.space != r.space || d.register != r.lower_bound {
                    continue;
                }
                if !single {
                    return Err(array_on_root("root descriptors"));
                }
                if r.class != ResourceClass::Cbv
                    && !matches!(
                        r.kind,
                        ResourceKind::RawBuffer
                            | ResourceKind::StructuredBuffer
                            | ResourceKind::RTAccelerationStructure
                    )
                {
                    return Err(ResolveError::RootDescriptorKind {
                        resource: ResourceName::of(r),
                        kind: format!("{:?}", r.kind),
                        parameter: p32,
                    });
                }
                if has_counter(r) {
                    return Err(ResolveError::RootDescriptorCounter { resource: ResourceName::of(r), parameter: p32 });
                }
                let place = if layout.root_descriptors == RootDescriptors::Address {
                    let Some((store, m)) = layout.root_argument(p32) else { continue };
                    Place::RootAddress { store, offset: m.offset }
                } else {
                    let Some(&(_, set, binding)) = layout.root_descriptor_slots.iter().find(|s| s.0 == p32) else {
                        continue;
                    };
                    Place::Descriptor { set, binding, first_register: d.register, count: Some(1), counter: None }
                };
                return Ok(done(Some(p32), None, None, place));
            }
            ParameterKind::Table(ranges) => {
                for (k, range) in ranges.iter().enumerate() {
                    if !range.holds(r.class, r.space, r.lower_bound) {
                        continue;
                    }
                    let k32 = k as u32;
                    // The whole declared range must lie within this one.
                    let fits = match (registers, range.count) {
                        (_, None) => true,
                        (None, Some(_)) => false,
                        (Some(n), Some(m)) => {
                            (r.lower_bound - range.base_register).checked_add(n).is_some_and(|end| end <= m)
                        }
                    };
                    if !fits {
                        return Err(ResolveError::PartlyCovered {
                            resource: ResourceName::of(r),
                            registers: registers.map_or("unbounded".into(), |n| n.to_string()),
                            parameter: p32,
                            range: k32,
                        });
                    }
                    let place = match layout.binding_model {
                        BindingModel::Heap => {
                            let Some((store, m)) = layout.root_argument(p32) else { continue };
                            let (table_offset, offset_in_table) = (m.offset, layout.range_offsets[p][k]);
                            let base_register = range.base_register;
                            Place::HeapTable { store, table_offset, offset_in_table, base_register }
                        }
                        BindingModel::Direct => {
                            let Some(slot) = layout.range_slots.iter().find(|s| s.parameter == p32 && s.range == k32)
                            else {
                                continue;
                            };
                            let views = View::of_class(r.class);
                            let at =
                                |v: View| views.iter().position(|&x| x == v).map(|i| slot.first_binding + i as u32);
                            let binding = at(view_of(r)).unwrap_or(slot.first_binding);
                            let counter = at(View::Counter).filter(|_| has_counter(r)).map(|b| (slot.set, b));
                            Place::Descriptor {
                                set: slot.set,
                                binding,
                                first_register: range.base_register,
                                count: range.count,
                                counter,
                            }
                        }
                    };
                    return Ok(done(Some(p32), Some(k32), None, place));
                }
            }
        }
    }
    if r.class == ResourceClass::Sampler {
        for (k, s) in rs.static_samplers.iter().enumerate() {
            if !visible(s.visibility) || s.space != r.space || s.register != r.lower_bound {
                continue;
            }
            if !single {
                return Err(array_on_root("static samplers"));
            }
            let set = match layout.binding_model {
                BindingModel::Heap => super::layout::STATIC_SAMPLER_SET_HEAP,
                BindingModel::Direct => 1,
            };
            let binding = layout
                .sets
                .iter()
                .filter(|l| l.set == set)
                .flat_map(|l| &l.bindings)
                .find(|b| b.source == super::layout::BindingSource::StaticSampler { index: k as u32 })
                .map(|b| b.binding);
            let Some(binding) = binding else { continue };
            return Ok(done(
                None,
                None,
                Some(k as u32),
                Place::Descriptor { set, binding, first_register: s.register, count: Some(1), counter: None },
            ));
        }
    }
    Err(ResolveError::Uncovered { resource: ResourceName::of(r), stage })
}
