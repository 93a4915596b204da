//! Local root signatures: their arguments live in the shader record (the shader binding
//! table entry after the group handle), which SPIR-V reads through a
//! `ShaderRecordBufferKHR` block.
//!
//! The record keeps D3D12's local root argument layout, so a layer copies the arguments the
//! application wrote (`D3D12_RAYTRACING_SHADER_RECORD`) after the handle, changing only
//! table handles: parameters in order, each aligned to its size class — root constants 4
//! bytes a value (4-aligned), root CBV/SRV/UAV a 64-bit buffer device address (8-aligned),
//! a descriptor table 8 bytes (8-aligned) whose low word is the table's start in its heap, in
//! descriptors (the heap offset, as in the `heap` model's push constants), high word unused.
//! The record size is rounded up to 8.
//!
//! [`resolve`] resolves an entry's resources against the local signature first (its places
//! become `record_*` places), then the global one. Static samplers of a local signature are
//! not supported (they would need descriptor sets of their own). Cost: linear in parameters.

use super::layout::{
    lower, ArgStore, BindingModel, LayoutOptions, PipelineLayout, PushKind, PushMember, RootDescriptors,
};
use super::model::{ParameterKind, RootSignature};
use super::resolve::{resolve_all, resolve_one_in, Place, ResolveError, ResolvedResource};
use crate::dxil::Resource;
use crate::front::container::ShaderKind;
use serde::Serialize;

/// Where each local root argument is in the shader record.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct ShaderRecordLayout {
    /// Bytes of local root arguments (a multiple of 8).
    pub size: u32,
    /// One member per root parameter, in parameter order (`kind` as in `push_constants`).
    pub members: Vec<PushMember>,
}

impl ShaderRecordLayout {
    /// The record layout of local root signature `rs`.
    pub fn of(rs: &RootSignature) -> ShaderRecordLayout {
        let mut at = 0u32;
        let mut members = Vec::with_capacity(rs.parameters.len());
        for (p, param) in rs.parameters.iter().enumerate() {
            let (align, size, kind) = match &param.kind {
                ParameterKind::Constants(c) => (
                    4,
                    4 * c.num_values,
                    PushKind::RootConstants { register: c.register, space: c.space, num_values: c.num_values },
                ),
                ParameterKind::Descriptor(d) => {
                    (8, 8, PushKind::RootDescriptorAddress { class: d.class, register: d.register, space: d.space })
                }
                ParameterKind::Table(ranges) => {
                    let heap = if ranges.iter().any(|r| r.class == crate::dxil::ResourceClass::Sampler) {
                        super::layout::HeapKind::Sampler
                    } else {
                        super::layout::HeapKind::CbvSrvUav
                    };
                    (8, 8, PushKind::TableOffset { heap })
                }
            };
            at = at.next_multiple_of(align);
            members.push(PushMember { parameter: p as u32, offset: at, size, kind });
            at = at.saturating_add(size);
        }
        ShaderRecordLayout { size: at.next_multiple_of(8), members }
    }

    fn offset_of(&self, parameter: u32) -> Option<u32> {
        self.members.iter().find(|m| m.parameter == parameter).map(|m| m.offset)
    }
}

/// The root flags that give the global pipeline layout the descriptor heaps local root
/// signature `local`'s tables index (`CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED`,
/// `SAMPLER_HEAP_DIRECTLY_INDEXED`); 0 without tables.
pub fn heap_flags(local: &RootSignature) -> u32 {
    use super::model::RootFlags;
    let mut flags = 0;
    for p in &local.parameters {
        if let ParameterKind::Table(ranges) = &p.kind {
            for r in ranges {
                flags |= if r.class == crate::dxil::ResourceClass::Sampler {
                    RootFlags::SAMPLER_HEAP_DIRECTLY_INDEXED
                } else {
                    RootFlags::CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED
                };
            }
        }
    }
    flags
}

/// Resolves `resources` of a `stage` shader: against local root signature `local` first
/// (places in the shader record, laid out by `record`), then against the global `global`
/// lowered to `layout`.
pub fn resolve<'r>(
    global: &RootSignature,
    layout: &PipelineLayout,
    local: &RootSignature,
    record: &ShaderRecordLayout,
    stage: ShaderKind,
    resources: impl IntoIterator<Item = &'r Resource>,
) -> Result<Vec<ResolvedResource>, ResolveError> {
    // The local signature lowered under `heap` gives each parameter's range offsets; its
    // argument offsets are replaced by the record's.
    let options = LayoutOptions {
        model: BindingModel::Heap,
        root_descriptors: RootDescriptors::Address,
        max_push_constant_bytes: !3,
    };
    let local_layout = lower(local, &options)?;
    let mut out = Vec::new();
    for r in resources {
        match resolve_one_in(local, &local_layout, stage, r) {
            Ok(mut resolved) => {
                let offset = resolved.parameter.and_then(|p| record.offset_of(p));
                resolved.place = match (resolved.place, offset) {
                    (Place::RootConstants { num_values, .. }, Some(offset)) => {
                        Place::RootConstants { store: ArgStore::ShaderRecord, offset, num_values }
                    }
                    (Place::RootAddress { .. }, Some(offset)) => {
                        Place::RootAddress { store: ArgStore::ShaderRecord, offset }
                    }
                    (Place::HeapTable { offset_in_table, base_register, .. }, Some(table_offset)) => {
                        Place::HeapTable { store: ArgStore::ShaderRecord, table_offset, offset_in_table, base_register }
                    }
                    _ => {
                        return Err(ResolveError::LocalStaticSampler {
                            register: super::resolve::short_register(r),
                            space: r.space,
                        })
                    }
                };
                out.push(resolved);
            }
            Err(ResolveError::Uncovered { .. }) => {
                out.extend(resolve_all(global, layout, stage, std::iter::once(r))?);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}
