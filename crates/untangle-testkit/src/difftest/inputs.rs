//! Seeded random contents for every resource a shader declares.
//!
//! From the DXIL resource table alone: raw and structured buffers, typed buffers and
//! textures of 32-bit formats (1–4 components as the HLSL type says), constant buffers of
//! their declared size, point/clamp samplers. Arrays of resources bind their first
//! [`MAX_ARRAY`] elements. A resource the harness cannot describe is an [`Unsupported`]
//! reason naming it.
//!
//! Words are drawn to exercise both in-range indexing and arithmetic: half are small
//! integers (0–63, useful as indices), a quarter are random bits, a quarter are "nice"
//! floats (multiples of 1/8 in ±512, so no denormals and exact sums).

use crate::fuzzing::mutate::SplitMix64;
use crate::interp::memory::Mem;
use crate::interp::{CompKind, Filter, ResKind, ResourceData, Resources, TexDim, TexelFormat, Unsupported};
use untangle::dxil::{ComponentType, Resource, ResourceClass, ResourceKind};

/// Most elements of a resource array the harness binds.
pub const MAX_ARRAY: u32 = 4;
/// Bytes of a raw buffer.
pub const RAW_BYTES: usize = 1024;
/// Elements of structured and typed buffers.
pub const ELEMENTS: usize = 64;
/// Width and height of textures (arrays: 4 layers; 3D: depth 4).
pub const TEX: u32 = 8;

/// One resource's shape and initial bytes, independent of how it is bound.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    pub class: ResourceClass,
    pub space: u32,
    pub register: u32,
    pub kind: ResKind,
    pub bytes: Vec<u8>,
    pub has_counter: bool,
}

fn component(t: Option<ComponentType>) -> Result<CompKind, String> {
    Ok(match t {
        Some(ComponentType::F32) => CompKind::Float,
        Some(ComponentType::I32) => CompKind::Sint,
        Some(ComponentType::U32) => CompKind::Uint,
        other => return Err(format!("typed element type {other:?}")),
    })
}

/// Components of a typed resource from its HLSL type name (`Buffer<vector<float, 4> >`).
fn components(type_name: Option<&str>) -> u32 {
    let Some(n) = type_name else { return 1 };
    match n.find("vector<") {
        Some(at) => {
            let rest = &n[at..];
            rest.split(',')
                .nth(1)
                .and_then(|s| s.trim().trim_end_matches(|c: char| !c.is_ascii_digit()).parse().ok())
                .unwrap_or(4)
        }
        None => 1,
    }
}

/// The kind a declared resource gets.
pub fn kind_of(r: &Resource) -> Result<ResKind, String> {
    let k = r.kind;
    let tex = |dim: TexDim| -> Result<ResKind, String> {
        let format = TexelFormat { kind: component(r.element_type)?, comps: components(r.type_name.as_deref()) };
        if format.comps == 3 {
            return Err("3-component texture format".into());
        }
        let extent = match dim {
            TexDim::D1 => [TEX, 1, 1],
            TexDim::D1Array => [TEX, 1, 4],
            TexDim::D2 => [TEX, TEX, 1],
            TexDim::D2Array | TexDim::D3 => [TEX, TEX, 4],
        };
        Ok(ResKind::Texture { dim, format, extent })
    };
    Ok(match k {
        ResourceKind::RawBuffer => ResKind::Raw,
        ResourceKind::StructuredBuffer => ResKind::Structured { stride: r.struct_stride.unwrap_or(4).max(1) },
        ResourceKind::TypedBuffer => {
            let format = TexelFormat { kind: component(r.element_type)?, comps: components(r.type_name.as_deref()) };
            if format.comps == 3 {
                return Err("3-component typed buffer format".into());
            }
            ResKind::Typed { format }
        }
        ResourceKind::CBuffer => ResKind::Cbuffer,
        ResourceKind::Sampler => ResKind::Sampler { filter: Filter::Point },
        ResourceKind::Texture1D => tex(TexDim::D1)?,
        ResourceKind::Texture1DArray => tex(TexDim::D1Array)?,
        ResourceKind::Texture2D => tex(TexDim::D2)?,
        ResourceKind::Texture2DArray => tex(TexDim::D2Array)?,
        ResourceKind::Texture3D => tex(TexDim::D3)?,
        other => return Err(format!("resource kind {other:?}")),
    })
}

fn word(rng: &mut SplitMix64) -> u32 {
    match rng.next_u32() % 4 {
        0 | 1 => rng.next_u32() % 64,
        2 => rng.next_u32(),
        _ => {
            let v = (rng.next_u32() % 8192) as i32 - 4096;
            (v as f32 / 8.0).to_bits()
        }
    }
}

fn bytes(rng: &mut SplitMix64, n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n.next_multiple_of(4));
    while v.len() < n {
        v.extend_from_slice(&word(rng).to_le_bytes());
    }
    v.truncate(n.next_multiple_of(4));
    v
}

/// Inputs for every declared resource (arrays: their first elements), from `seed`.
pub fn inputs(resources: &untangle::dxil::Resources, seed: u64) -> Result<Vec<Input>, Unsupported> {
    let mut rng = SplitMix64::new(seed ^ 0x005e_ed0f_1e55);
    let mut out = Vec::new();
    for r in resources.iter() {
        let kind = kind_of(r).map_err(|e| Unsupported(format!("{}: {e}", r.register())))?;
        let count = r.range_size.unwrap_or(MAX_ARRAY).min(MAX_ARRAY);
        for k in 0..count {
            let len = match &kind {
                ResKind::Raw => RAW_BYTES,
                ResKind::Structured { stride } => ELEMENTS * *stride as usize,
                ResKind::Typed { format } => ELEMENTS * format.bytes(),
                ResKind::Texture { format, extent, .. } => {
                    extent.iter().map(|&e| e as usize).product::<usize>() * format.bytes()
                }
                ResKind::Cbuffer => (r.cbuffer_size.unwrap_or(256) as usize).next_multiple_of(16).max(16),
                ResKind::Sampler { .. } => 0,
            };
            out.push(Input {
                class: r.class,
                space: r.space,
                register: r.lower_bound + k,
                kind: kind.clone(),
                bytes: bytes(&mut rng, len),
                has_counter: r.uav.is_some_and(|u| u.has_counter),
            });
        }
    }
    Ok(out)
}

/// The interpreter's view of the inputs.
pub fn to_interp(inputs: &[Input]) -> Resources {
    Resources {
        list: inputs
            .iter()
            .map(|i| ResourceData {
                class: i.class,
                space: i.space,
                register: i.register,
                kind: i.kind.clone(),
                mem: Mem::from_bytes(i.bytes.clone()),
                counter: i.has_counter.then_some(0),
            })
            .collect(),
    }
}
