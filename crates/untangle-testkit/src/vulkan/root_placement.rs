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
//! - a `heap` table: the table's heap start is chosen here (table `k` of the push block
//!   starts at heap index `7 + 256·k`, so tables never share descriptors and a forgotten
//!   start offset reads the wrong descriptor), written into the push constants at the
//!   table's offset; element = start + range offset + register − range base, in the heap
//!   binding of the resource's descriptor type;
//! - root constants: the CBV's first `4·n` bytes at the member's push offset;
//! - root descriptors: a device-address buffer whose address goes to the member's offset.
//!
//! Static samplers are immutable in a real pipeline layout; the runner binds the case's own
//! sampler state at the static sampler's binding instead (the generated static sampler's
//! state is arbitrary, the case's expectation assumes its own).

use super::corpus::{default_resource, CaseResource, Kind, Placed, Placement};
use super::Binding;
use crate::rootsig_gen::{covering, shader_facts, Variant};
use ash::vk;
use untangle::emit::translate::{LayoutReport, Options, RootSignatureBinding, Translation};
use untangle::rootsig::layout::{heap_resource_binding, DescriptorType, LayoutOptions, PushKind, View};
use untangle::rootsig::resolve::Place;
use untangle::rootsig::ResourceClass;

pub struct RootSignaturePlacement {
    pub variant: Variant,
    pub layout: LayoutOptions,
}

/// The heap index where the table whose offset word is at push byte `table_offset` starts.
fn table_start(table_offset: u32) -> u32 {
    7 + 256 * (table_offset / 4)
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
        let loaded = untangle::load::load_bytes(shader.to_vec(), "shader").map_err(|e| e.to_string())?;
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
        let mut push = vec![0u8; r.layout.push_constants.size as usize];
        for m in &r.layout.push_constants.members {
            if let PushKind::TableOffset { .. } = m.kind {
                let at = m.offset as usize;
                push[at..at + 4].copy_from_slice(&table_start(m.offset).to_le_bytes());
            }
        }
        push
    }

    fn place(&self, tr: &Translation, res: &CaseResource) -> Result<Placed, String> {
        let r = report(tr)?;
        let reg = res.reg;
        let found = r.resources.iter().find(|x| {
            let lower: u32 = x.register[1..].parse().unwrap_or(u32::MAX);
            x.class == reg.class
                && x.space == reg.space
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
            Place::HeapTable { table_offset, offset_in_table, base_register } => {
                let heaps = r.layout.heaps.ok_or("a heap table without heap sets")?;
                let view = view_of(&res.kind);
                let (set, binding) = match view {
                    View::Sampler => (heaps.samplers, 0),
                    _ => (heaps.resources, heap_resource_binding(view, reg.class)),
                };
                let element = table_start(table_offset) + offset_in_table + (reg.register - base_register);
                checked(r, set, binding, element, res)
            }
            Place::RootAddress { offset } => Ok(Placed::DeviceBuffer { push_offset: offset }),
            Place::RootConstants { offset, num_values } => {
                if reg.class != ResourceClass::Cbv {
                    return Err(format!("{reg}: root constants for a non-CBV"));
                }
                Ok(Placed::PushConstants { offset, len: 4 * num_values })
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
