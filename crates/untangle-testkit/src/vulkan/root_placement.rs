//! Corpus cases through a root signature: a [`Placement`] that generates a covering root
//! signature for the shader (`rootsig::generate`, one [`Variant`]), translates it under a
//! binding model, and binds every case resource where the translation's layout report says
//! (`Translation::layout`, schema in `docs/layout-json.md`). Nothing here knows the
//! lowering rules: the report alone decides sets, bindings, array elements, push-constant
//! offsets and heap indices, as it must for a translation layer.
//!
//! - a descriptor place: `(set, binding)`, element = register − `first_register`; the
//!   runner's descriptor type must be the report's, and the binding gets the report's
//!   descriptor count;
//! - a `heap` table: the table's heap start is chosen here (the `k`-th table parameter
//!   starts at heap index `7 + 256·k`, so tables never share descriptors and a forgotten
//!   start offset reads the wrong descriptor), written into the root arguments at the
//!   table's offset; element = start + range offset + register − range base, in the heap
//!   binding of the resource's descriptor type;
//! - root constants: the CBV's first `4·n` bytes at the member's offset;
//! - root descriptors: a device-address buffer whose address goes to the member's offset;
//! - each of the three in push constants, or, past the push-constant budget, in the root
//!   argument buffer (`root_argument_buffer` of the report): a uniform buffer of the
//!   report's size at its set and binding, zeros where no argument lies, filled here as a
//!   layer fills it per draw (docs/layout-json.md).
//!
//! Static samplers are immutable in a real pipeline layout; the runner binds the case's own
//! sampler state at the static sampler's binding instead (the generated static sampler's
//! state is arbitrary, the case's expectation assumes its own).

use super::corpus::{default_resource, CaseResource, Kind, Placed, Placement, RootArgumentBytes};
use super::Binding;
use crate::rootsig_gen::{covering, shader_facts, Variant};
use ash::vk;
use untangle::emit::translate::{LayoutReport, Options, RootSignatureBinding, Translation};
use untangle::rootsig::layout::{
    heap_resource_binding, ArgStore, DescriptorType, LayoutOptions, PushKind, PushMember, View,
};
use untangle::rootsig::resolve::Place;
use untangle::rootsig::ResourceClass;

#[derive(Clone, Copy, Debug)]
pub struct RootSignaturePlacement {
    pub variant: Variant,
    pub layout: LayoutOptions,
}

/// The heap index where the table of root parameter `parameter` starts: `7 + 256·k` for
/// the `k`-th table parameter (push constants and root argument buffer together).
fn table_start(r: &LayoutReport, parameter: u32) -> u32 {
    let spilled = r.layout.root_argument_buffer.iter().flat_map(|b| &b.members);
    let k = r
        .layout
        .push_constants
        .members
        .iter()
        .chain(spilled)
        .filter(|m| matches!(m.kind, PushKind::TableOffset { .. }) && m.parameter < parameter)
        .count() as u32;
    7 + 256 * k
}

/// `bytes` with every table offset of `members` written (its table's start).
fn with_table_starts(r: &LayoutReport, members: &[PushMember], mut bytes: Vec<u8>) -> Vec<u8> {
    for m in members {
        if let PushKind::TableOffset { .. } = m.kind {
            let at = m.offset as usize;
            bytes[at..at + 4].copy_from_slice(&table_start(r, m.parameter).to_le_bytes());
        }
    }
    bytes
}

fn report(tr: &Translation) -> Result<&LayoutReport, String> {
    tr.layout.as_ref().ok_or_else(|| "the translation has no layout report".to_string())
}

fn vk_type(t: DescriptorType) -> vk::DescriptorType {
    match t {
        DescriptorType::Sampler => vk::DescriptorType::SAMPLER,
        DescriptorType::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
        DescriptorType::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        DescriptorType::UniformTexelBuffer => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
        DescriptorType::StorageTexelBuffer => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
        DescriptorType::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        DescriptorType::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
    }
}

fn view_of(kind: &Kind) -> View {
    match kind {
        Kind::Cbv(_) => View::ConstantBuffer,
        Kind::Buffer(_) => View::Buffer,
        Kind::Typed { .. } => View::TexelBuffer,
        Kind::Texture(_) => View::Image,
        Kind::Sampler(_) => View::Sampler,
    }
}

/// A binding of the report's layout, checked against the resource the runner will bind.
fn checked(r: &LayoutReport, set: u32, binding: u32, element: u32, res: &CaseResource) -> Result<Placed, String> {
    let resource = default_resource(res.reg.class, &res.kind);
    let b = r
        .layout
        .sets
        .iter()
        .filter(|s| s.set == set)
        .flat_map(|s| &s.bindings)
        .find(|b| b.binding == binding)
        .ok_or_else(|| format!("{}: set {set} binding {binding} is not in the layout report", res.reg))?;
    if vk_type(b.descriptor_type) != resource.descriptor_type() {
        return Err(format!(
            "{}: the report declares {:?} at set {set} binding {binding}, the case binds {:?}",
            res.reg,
            b.descriptor_type,
            resource.descriptor_type()
        ));
    }
    if b.count.is_some_and(|c| element >= c) {
        return Err(format!("{}: element {element} past the binding's {} descriptors", res.reg, b.count.unwrap_or(0)));
    }
    Ok(Placed::Binding(Binding { set, binding, element, resource }))
}

impl Placement for RootSignaturePlacement {
    fn options(&self, shader: &[u8]) -> Result<Options, String> {
        let loaded = untangle::front::load_bytes(shader.to_vec(), "shader").map_err(|e| e.to_string())?;
        let info = untangle::dxil::analyze(&loaded.module).map_err(|e| e.to_string())?;
        let stage = info.shader_model.as_ref().map(|s| s.kind).ok_or("no shader model")?;
        let ep = info.entry_points.iter().find(|e| e.function.is_some()).ok_or("no entry point")?;
        let signature = covering(&ep.resources, stage, self.variant, &shader_facts(&loaded.module));
        Ok(Options {
            root_signature: Some(RootSignatureBinding { signature, layout: self.layout }),
            ..Options::default()
        })
    }

    fn base_push_constants(&self, tr: &Translation) -> Vec<u8> {
        let Ok(r) = report(tr) else { return Vec::new() };
        let pc = &r.layout.push_constants;
        with_table_starts(r, &pc.members, vec![0u8; pc.size as usize])
    }

    fn root_argument_buffer(&self, tr: &Translation) -> Option<RootArgumentBytes> {
        let r = report(tr).ok()?;
        let b = r.layout.root_argument_buffer.as_ref()?;
        let bytes = with_table_starts(r, &b.members, vec![0u8; b.size as usize]);
        Some(RootArgumentBytes { set: b.set, binding: b.binding, bytes })
    }

    fn place(&self, tr: &Translation, res: &CaseResource) -> Result<Placed, String> {
        let r = report(tr)?;
        let reg = res.reg;
        let found = r.resources.iter().find(|x| {
            let lower: u32 = x.resource.register[1..].parse().unwrap_or(u32::MAX);
            x.class == reg.class
                && x.resource.space == reg.space
                && reg.register >= lower
                && x.count.is_none_or(|n| reg.register - lower < n)
        });
        let Some(x) = found else {
            return Ok(Placed::Unused);
        };
        match x.place {
            Place::Descriptor { set, binding, first_register, .. } => {
                checked(r, set, binding, reg.register - first_register, res)
            }
            // Local root signatures (shader records) belong to ray-tracing pipelines, which
            // this compute/graphics runner does not build.
            Place::HeapTable { store: ArgStore::ShaderRecord, .. }
            | Place::RootAddress { store: ArgStore::ShaderRecord, .. }
            | Place::RootConstants { store: ArgStore::ShaderRecord, .. } => {
                Err(format!("{reg}: a shader-record argument outside a ray-tracing pipeline"))
            }
            Place::HeapTable { offset_in_table, base_register, .. } => {
                let heaps = r.layout.heaps.ok_or("a heap table without heap sets")?;
                let parameter = x.parameter.ok_or("a heap table without a root parameter")?;
                let view = view_of(&res.kind);
                let (set, binding) = match view {
                    View::Sampler => (heaps.samplers, 0),
                    _ => (heaps.resources, heap_resource_binding(view, reg.class)),
                };
                let element = table_start(r, parameter) + offset_in_table + (reg.register - base_register);
                checked(r, set, binding, element, res)
            }
            Place::RootAddress { store, offset } => Ok(Placed::DeviceBuffer { store, offset }),
            Place::RootConstants { store, offset, num_values } => {
                if reg.class != ResourceClass::Cbv {
                    return Err(format!("{reg}: root constants for a non-CBV"));
                }
                Ok(Placed::RootBytes { store, offset, len: 4 * num_values })
            }
        }
    }

    fn min_counts(&self, tr: &Translation) -> Vec<(u32, u32, u32)> {
        let Ok(r) = report(tr) else { return Vec::new() };
        r.layout
            .sets
            .iter()
            .flat_map(|s| s.bindings.iter().filter_map(move |b| b.count.map(|c| (s.set, b.binding, c))))
            .collect()
    }
}
