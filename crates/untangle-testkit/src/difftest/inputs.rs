//! Seeded random contents for every resource a shader declares.
//!
//! From the DXIL resource table alone: raw and structured buffers, typed buffers and
//! textures of 32-bit formats (1–4 components as the HLSL type says; 16-bit integer
//! textures too), constant buffers of their declared size, point/clamp samplers
//! (comparison samplers: `LESS_OR_EQUAL`, their textures depth). Descriptor-heap arrays
//! from the heap views the shader annotates ([`heap_inputs`]). Arrays of resources bind their first
//! elements, as many as [`bound_elements`] gives them. A resource the harness cannot
//! describe is an [`Unsupported`] reason naming it.
//!
//! Words are drawn to exercise both in-range indexing and arithmetic: half are small
//! integers (0–63, useful as indices), a quarter are random bits, a quarter are "nice"
//! floats (multiples of 1/8 in ±512, so no denormals and exact sums).

use crate::fuzzing::mutate::SplitMix64;
use crate::interp::memory::Mem;
use crate::interp::{CompKind, Filter, ResKind, ResourceData, Resources, TexDim, TexelFormat, Unsupported};
use untangle::dxil::{ComponentType, Resource, ResourceClass, ResourceKind};

/// Descriptors of each Vulkan kind the harness binds per shader, all ranges together:
/// storage buffers, uniform buffers, sampled images (and uniform texel buffers), storage
/// images (and storage texel buffers), samplers. A device's `maxPerStageDescriptor*`
/// limits, at most [`Budget::CAP`] each (lavapipe crashes past its limits).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Budget(pub [u32; 5]);

impl Budget {
    /// Most descriptors of one kind bound for a shader, whatever the device allows.
    pub const CAP: u32 = 256;

    pub fn from_limits(limits: [u32; 5]) -> Budget {
        Budget(limits.map(|l| l.min(Budget::CAP)))
    }

    fn of(self, kind: DescKind) -> u32 {
        self.0[kind as usize]
    }
}

impl Default for Budget {
    /// Lavapipe's limits (Mesa 22.3).
    fn default() -> Budget {
        Budget([32, 15, 128, 64, 32])
    }
}

/// The Vulkan descriptor kind a resource binds as (in [`Budget`]'s order).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum DescKind {
    StorageBuffer = 0,
    UniformBuffer,
    SampledImage,
    StorageImage,
    Sampler,
}

fn desc_kind(r: &Resource) -> DescKind {
    match (r.class, r.kind) {
        (ResourceClass::Cbv, _) => DescKind::UniformBuffer,
        (ResourceClass::Sampler, _) => DescKind::Sampler,
        (_, ResourceKind::RawBuffer | ResourceKind::StructuredBuffer) => DescKind::StorageBuffer,
        (ResourceClass::Uav, _) => DescKind::StorageImage,
        _ => DescKind::SampledImage,
    }
}

/// How many elements of each declared range the harness binds (in the order of
/// `resources.iter()`): each range its size, as far as its descriptor kind's budget goes
/// (shared out smallest range first, each range at least one). An index past the bound
/// elements is an unbound resource to the interpreter.
pub fn bound_elements(resources: &untangle::dxil::Resources, budget: Budget) -> Vec<u32> {
    let all: Vec<&Resource> = resources.iter().collect();
    let mut out = vec![0; all.len()];
    for kind in [
        DescKind::StorageBuffer,
        DescKind::UniformBuffer,
        DescKind::SampledImage,
        DescKind::StorageImage,
        DescKind::Sampler,
    ] {
        // Water-filling: smallest ranges first, each at most an equal share of what is left.
        let mut of_kind: Vec<usize> = (0..all.len()).filter(|&i| desc_kind(all[i]) == kind).collect();
        of_kind.sort_by_key(|&i| all[i].range_size.unwrap_or(u32::MAX));
        let mut left = budget.of(kind);
        for (k, &i) in of_kind.iter().enumerate() {
            let share = (left / (of_kind.len() - k) as u32).max(1);
            out[i] = all[i].range_size.unwrap_or(u32::MAX).clamp(1, share);
            left = left.saturating_sub(out[i]);
        }
    }
    out
}
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

/// Component kind and bits of a typed element type.
fn component(t: Option<ComponentType>) -> Result<(CompKind, u32), String> {
    Ok(match t {
        Some(ComponentType::F32) => (CompKind::Float, 32),
        Some(ComponentType::I32) => (CompKind::Sint, 32),
        Some(ComponentType::U32) => (CompKind::Uint, 32),
        Some(ComponentType::I16) => (CompKind::Sint, 16),
        Some(ComponentType::U16) => (CompKind::Uint, 16),
        other => return Err(format!("typed element type {other:?}")),
    })
}

fn texel_format(r: &Resource) -> Result<TexelFormat, String> {
    let (kind, bits) = component(r.element_type)?;
    Ok(TexelFormat { kind, comps: components(r.type_name.as_deref()), bits })
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
    let typed = !matches!(
        k,
        ResourceKind::RawBuffer | ResourceKind::StructuredBuffer | ResourceKind::CBuffer | ResourceKind::Sampler
    );
    let name = r.type_name.as_deref().unwrap_or("");
    if typed && ["long long", "int64_t", "double"].iter().any(|w| name.contains(w)) {
        // D3D views these as two 32-bit channels (R32G32_UINT) and runs 64-bit atomics on
        // them; the translation declares an R32G32 view for loads and stores and an R64 view
        // for atomics on one binding, and no Vulkan image view serves both.
        return Err("64-bit typed resource (R32G32 in D3D, R64 for atomics in Vulkan)".into());
    }
    let tex = |dim: TexDim| -> Result<ResKind, String> {
        let format = texel_format(r)?;
        if format.comps == 3 {
            return Err("3-component texture format".into());
        }
        Ok(ResKind::Texture { dim, format, extent: extent(dim) })
    };
    Ok(match k {
        ResourceKind::RawBuffer => ResKind::Raw,
        ResourceKind::StructuredBuffer => ResKind::Structured { stride: r.struct_stride.unwrap_or(4).max(1) },
        ResourceKind::TypedBuffer => {
            let format = texel_format(r)?;
            if format.bits != 32 {
                return Err("16-bit typed buffer".into());
            }
            ResKind::Typed { format }
        }
        ResourceKind::CBuffer => ResKind::Cbuffer,
        ResourceKind::Sampler => ResKind::Sampler {
            filter: Filter::Point,
            compare: r.sampler_kind == Some(untangle::dxil::SamplerKind::Comparison),
        },
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

/// Inputs for every declared resource (arrays: their first elements, see
/// [`bound_elements`]), from `seed`.
pub fn inputs(resources: &untangle::dxil::Resources, seed: u64, budget: Budget) -> Result<Vec<Input>, Unsupported> {
    let mut rng = SplitMix64::new(seed ^ 0x005e_ed0f_1e55);
    let mut out = Vec::new();
    let counts = bound_elements(resources, budget);
    // With a comparison sampler, one-channel float textures are depth textures (Vulkan
    // compares only depth formats); loads and point samples read them as floats.
    let depth = resources.iter().any(|r| r.sampler_kind == Some(untangle::dxil::SamplerKind::Comparison));
    for (r, &count) in resources.iter().zip(&counts) {
        let mut kind = kind_of(r).map_err(|e| Unsupported(format!("{}: {e}", r.register())))?;
        if let ResKind::Texture { format, .. } = &mut kind {
            if depth && r.class == ResourceClass::Srv && format.kind == CompKind::Float && format.comps == 1 {
                format.kind = CompKind::Depth;
            }
        }
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

/// Most descriptors the harness binds in one heap array.
pub const HEAP_DESCRIPTORS: u32 = 128;

/// Replaces every word of `bytes` with a small integer (0-7) drawn from `seed`.
pub fn small_words(bytes: &mut [u8], seed: u64) {
    let mut rng = SplitMix64::new(seed ^ 0x5a11);
    for w in bytes.chunks_mut(4) {
        let v = (rng.next_u32() % 8).to_le_bytes();
        w.copy_from_slice(&v[..w.len()]);
    }
}

/// Inputs for the descriptor-heap arrays a shader reads ([`crate::interp::heap`]). Each
/// array gets as many elements as its descriptor kind's budget leaves after the declared
/// ranges (shared equally by the arrays of a kind, at most [`HEAP_DESCRIPTORS`]). Element
/// `i` holds a resource of the view the shader reads it as: the view annotated on a
/// constant index `i`, else the views read through computed indices in turn (program
/// order), so that a shader reading neighbouring descriptors as different types finds
/// them. Contents random from `seed`; with `counters`, UAV buffers have counters (which
/// cost a storage buffer each).
pub fn heap_inputs(
    views: &[(crate::interp::heap::HeapView, Option<u32>)],
    declared: &untangle::dxil::Resources,
    seed: u64,
    budget: Budget,
    counters: bool,
) -> Result<Vec<Input>, Unsupported> {
    use crate::interp::heap::HeapView;
    let mut rng = SplitMix64::new(seed ^ 0x0000_4ea9_5eed);
    let mut used = [0u32; 5];
    for (r, n) in declared.iter().zip(bound_elements(declared, budget)) {
        used[desc_kind(r) as usize] += n;
    }
    // Arrays in order of first use: (space, pinned views, views by computed index).
    type Array<'a> = (u32, Vec<(u32, &'a HeapView)>, Vec<&'a HeapView>);
    let mut arrays: Vec<Array> = Vec::new();
    for (v, index) in views {
        let at = match arrays.iter().position(|a| a.0 == v.space()) {
            Some(at) => at,
            None => {
                arrays.push((v.space(), Vec::new(), Vec::new()));
                arrays.len() - 1
            }
        };
        let a = &mut arrays[at];
        match index {
            Some(i) if !a.1.iter().any(|(k, _)| k == i) => a.1.push((*i, v)),
            Some(_) => {}
            None if !a.2.iter().any(|w| w.kind == v.kind) => a.2.push(v),
            None => {}
        }
    }
    let desc = |v: &HeapView| match (&v.kind, v.class) {
        (ResKind::Sampler { .. }, _) => DescKind::Sampler,
        (ResKind::Cbuffer, _) => DescKind::UniformBuffer,
        (ResKind::Raw | ResKind::Structured { .. }, _) => DescKind::StorageBuffer,
        (_, ResourceClass::Uav) => DescKind::StorageImage,
        _ => DescKind::SampledImage,
    };
    let first = |a: &Array<'_>| -> HeapView { a.2.first().copied().unwrap_or_else(|| a.1[0].1).clone() };
    let mut out = Vec::new();
    for (k, a) in arrays.iter().enumerate() {
        let v0 = first(a);
        let dk = desc(&v0);
        let counted = counters && matches!(v0.kind, ResKind::Raw | ResKind::Structured { .. });
        let sharing = arrays[k..].iter().filter(|b| desc(&first(b)) == dk).count() as u32;
        let mut count = (budget.of(dk).saturating_sub(used[dk as usize]) / sharing).min(HEAP_DESCRIPTORS);
        if counted {
            count /= 2;
        }
        used[dk as usize] += if counted { 2 * count } else { count };
        if count == 0 {
            return Err(Unsupported(format!("no descriptors left for heap array {}", v0.binding)));
        }
        for i in 0..count {
            let v = match a.1.iter().find(|(k, _)| *k == i) {
                Some((_, v)) => *v,
                None if !a.2.is_empty() => a.2[i as usize % a.2.len()],
                None => &v0,
            };
            let kind = match &v.kind {
                ResKind::Texture { dim, format, .. } => {
                    ResKind::Texture { dim: *dim, format: *format, extent: extent(*dim) }
                }
                k => k.clone(),
            };
            let len = match &kind {
                ResKind::Raw => RAW_BYTES,
                ResKind::Structured { stride } => ELEMENTS * *stride as usize,
                ResKind::Typed { format } => ELEMENTS * format.bytes(),
                ResKind::Texture { format, extent, .. } => {
                    extent.iter().map(|&e| e as usize).product::<usize>() * format.bytes()
                }
                ResKind::Cbuffer => 256,
                ResKind::Sampler { .. } => 0,
            };
            out.push(Input {
                class: v.class,
                space: v.space(),
                register: i,
                kind,
                bytes: bytes(&mut rng, len),
                has_counter: counted,
            });
        }
    }
    Ok(out)
}

/// Texture extents the harness binds for a shape.
fn extent(dim: TexDim) -> [u32; 3] {
    match dim {
        TexDim::D1 => [TEX, 1, 1],
        TexDim::D1Array => [TEX, 1, 4],
        TexDim::D2 => [TEX, TEX, 1],
        TexDim::D2Array | TexDim::D3 => [TEX, TEX, 4],
    }
}

/// The interpreter's view of the inputs.
pub fn to_interp(inputs: &[Input]) -> Resources {
    Resources {
        scenes: Vec::new(),
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

/// Makes every unbounded resource range (`range size -1` in `dx.resources`) the range the
/// harness binds ([`bound_elements`]), for devices without descriptor indexing: an index
/// past the bound elements is an unbound resource to the interpreter (indeterminate)
/// either way. Returns how many ranges changed.
pub fn bound_unbounded_ranges(m: &mut untangle::ir::Module, budget: Budget) -> usize {
    use untangle::ir::{ConstKind, Constant, Value};
    let Ok(info) = untangle::dxil::analyze(m) else { return 0 };
    let counts = bound_elements(&info.resources, budget);
    // Records in `dx.resources` order (SRVs, UAVs, CBVs, samplers), as `Resources::iter`.
    let mut records = Vec::new();
    for &root in m.metadata.named("dx.resources").iter().take(1) {
        for class_list in m.metadata.operands(root).unwrap_or(&[]).iter().flatten() {
            for rec in m.metadata.operands(*class_list).unwrap_or(&[]).iter().flatten() {
                records.push(*rec);
            }
        }
    }
    if records.len() != counts.len() {
        return 0;
    }
    let mut changed = 0;
    for (rec, n) in records.into_iter().zip(counts) {
        let Some(Some(size)) = m.metadata.operands(rec).and_then(|o| o.get(5)).copied() else { continue };
        let Some((ty, Value::Const(c))) = m.metadata.value(size) else { continue };
        if m.constants.as_int(c).map(|v| v as u32) != Some(u32::MAX) {
            continue;
        }
        let k = m.constants.intern(Constant { ty, kind: ConstKind::Int(n as u64) });
        let node = m.metadata.push_value(ty, Value::Const(k));
        if let Some(ops) = m.metadata.operands_mut(rec) {
            ops[5] = Some(node);
            changed += 1;
        }
    }
    changed
}
