//! Root signatures that cover a shader's declared resources, for tests and fuzzing: three
//! shapes a translation layer meets in practice.
//!
//! - [`Variant::Tables`]: every register range in a descriptor table (CBV/SRV/UAV in one,
//!   samplers in another; an unbounded range gets a table of its own, since nothing may be
//!   appended after it), visible to the shader's stage only.
//! - [`Variant::RootParameters`]: what D3D allows at the root where it is legal: root
//!   constants for constant buffers of at most 16 DWORDs, root CBVs for other single
//!   constant buffers, root SRVs/UAVs for single raw and structured buffers without a
//!   counter, static samplers for single samplers; the rest in tables; within the 64-DWORD
//!   root budget.
//! - [`Variant::MixedSpaces`]: one table per register space with explicit, gapped offsets,
//!   ranges widened past the declared registers where that overlaps nothing, an unused
//!   root-constant parameter first (so push-constant offsets are not zero), sampler
//!   tables at an explicit offset, visibility `ALL`.
//! - [`Variant::NearLimit`]: root arguments at D3D's 64-DWORD limit (256 bytes lowered, past
//!   Vulkan's guaranteed 128 bytes of push constants), for the push-constant budget: 31
//!   unused root constants first (124 bytes: under a 128-byte budget only a 4-byte argument
//!   still fits after them), then 2 unused ones (the first to spill, so spilled arguments
//!   the shader reads do not start at byte 0 of the root argument buffer), then the shader's
//!   resources as [`Variant::RootParameters`] places them (within what is left of the cost),
//!   then unused root constants up to exactly 64 DWORDs. Unused constants are in space 78.
//!
//! Shaders that index descriptor heaps directly (SM 6.6) get both heap-indexing flags;
//! buffers whose size the shader queries never become root descriptors ([`ShaderFacts`]).

use std::collections::BTreeSet;
use untangle::dxil::{Resource, ResourceKind, Resources, SamplerKind};
use untangle::front::container::ShaderKind;
use untangle::rootsig::model::*;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Variant {
    Tables,
    RootParameters,
    MixedSpaces,
    NearLimit,
}

impl Variant {
    pub const ALL: [Variant; 4] = [Variant::Tables, Variant::RootParameters, Variant::MixedSpaces, Variant::NearLimit];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Tables => "tables",
            Variant::RootParameters => "root-parameters",
            Variant::MixedSpaces => "mixed-spaces",
            Variant::NearLimit => "near-limit",
        }
    }
}

/// D3D12's root-signature cost limit, in DWORDs.
const COST_LIMIT: u32 = 64;

/// An unused root-constant parameter (`b<register>, space78`).
fn filler(register: u32, num_values: u32) -> RootParameter {
    RootParameter {
        visibility: Visibility::All,
        kind: ParameterKind::Constants(RootConstants { register, space: 78, num_values }),
    }
}

/// The D3D cost of a parameter in DWORDs.
fn cost(p: &RootParameter) -> u32 {
    match &p.kind {
        ParameterKind::Constants(c) => c.num_values,
        ParameterKind::Descriptor(_) => 2,
        ParameterKind::Table(_) => 1,
    }
}

fn range_of(r: &Resource) -> DescriptorRange {
    DescriptorRange { count: r.range_size, space: r.space, ..DescriptorRange::new(r.class, r.lower_bound) }
}

/// Tables holding `ranges` in order; an unbounded range closes its table.
fn tables(ranges: Vec<DescriptorRange>, visibility: Visibility, out: &mut Vec<RootParameter>) {
    let mut current = Vec::new();
    for r in ranges {
        let unbounded = r.count.is_none();
        current.push(r);
        if unbounded {
            out.push(RootParameter { visibility, kind: ParameterKind::Table(std::mem::take(&mut current)) });
        }
    }
    if !current.is_empty() {
        out.push(RootParameter { visibility, kind: ParameterKind::Table(current) });
    }
}

fn flags(stage: ShaderKind, uses_heaps: bool) -> RootFlags {
    let mut f = 0;
    if stage == ShaderKind::Vertex {
        f |= RootFlags::ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT;
    }
    if uses_heaps {
        f |= RootFlags::CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED | RootFlags::SAMPLER_HEAP_DIRECTLY_INDEXED;
    }
    RootFlags(f)
}

fn sampler_for(r: &Resource, k: usize) -> StaticSampler {
    let mut s = StaticSampler::with_defaults(r.lower_bound);
    s.space = r.space;
    if r.sampler_kind == Some(SamplerKind::Comparison) {
        s.filter = Filter(0x95); // COMPARISON_MIN_MAG_MIP_LINEAR
        s.comparison = ComparisonFunc::Less;
    } else {
        // Vary the description so immutable samplers differ between tests.
        let (filter, address) =
            [(Filter(0x0), AddressMode::Clamp), (Filter(0x15), AddressMode::Wrap), (Filter(0x55), AddressMode::Mirror)]
                [k % 3];
        s.filter = filter;
        s.address_u = address;
        s.address_v = address;
        s.address_w = AddressMode::Border;
        s.border_color = BorderColor::TransparentBlack;
    }
    s
}

/// What the generator must know of a shader beyond its resource table.
#[derive(Clone, Debug, Default)]
pub struct ShaderFacts {
    /// It indexes descriptor heaps directly (`createHandleFromHeap`).
    pub uses_heaps: bool,
    /// Resources whose size it queries (`getDimensions`): a root descriptor bound by
    /// address has none, so these stay in tables.
    pub sized: BTreeSet<(ResourceClass, u32)>,
}

/// The facts of module `m`'s entry point.
pub fn shader_facts(m: &untangle::ir::Module) -> ShaderFacts {
    let uses_heaps = untangle::dxil::op_uses(m).iter().any(|u| u.op == Some("CreateHandleFromHeap"));
    let mut sized = BTreeSet::new();
    if let Ok(info) = untangle::dxil::analyze(m) {
        for ep in &info.entry_points {
            if let Some(fid) = ep.function {
                sized.extend(untangle::dxil::handles::handle_targets(m, &m.functions[fid], &ep.resources, |op, _| {
                    op == untangle::dxil::DxOp::GetDimensions
                }));
            }
        }
    }
    ShaderFacts { uses_heaps, sized }
}

/// A root signature of `variant` covering `resources` of a `stage` shader.
pub fn covering(resources: &Resources, stage: ShaderKind, variant: Variant, facts: &ShaderFacts) -> RootSignature {
    let mut rs = RootSignature {
        version: Version::V1_1,
        flags: flags(stage, facts.uses_heaps),
        parameters: Vec::new(),
        static_samplers: Vec::new(),
    };
    let vis = untangle::rootsig::resolve::stage_visibility(stage).map_or(Visibility::All, |(v, _, _)| v);
    let all: Vec<&Resource> = resources.iter().collect();
    match variant {
        Variant::Tables => {
            let (samplers, views): (Vec<&Resource>, Vec<&Resource>) =
                all.into_iter().partition(|r| r.class == ResourceClass::Sampler);
            tables(views.iter().map(|r| range_of(r)).collect(), vis, &mut rs.parameters);
            tables(samplers.iter().map(|r| range_of(r)).collect(), vis, &mut rs.parameters);
        }
        Variant::RootParameters => root_parameters(&mut rs, all, vis, facts, 48),
        Variant::NearLimit => {
            rs.parameters.push(filler(0, 31));
            rs.parameters.push(filler(1, 2));
            // Leave a DWORD per table the rest may need: one per unbounded range (each
            // closes its table) and one each for bounded views and samplers.
            let tables = all.iter().filter(|r| r.range_size.is_none()).count() as u32 + 2;
            let spent = 33;
            root_parameters(&mut rs, all, vis, facts, COST_LIMIT.saturating_sub(spent + tables).min(24));
            let used: u32 = rs.parameters.iter().map(cost).sum();
            if used < COST_LIMIT {
                rs.parameters.push(filler(2, COST_LIMIT - used));
            }
        }
        Variant::MixedSpaces => {
            rs.parameters.push(RootParameter {
                visibility: Visibility::All,
                kind: ParameterKind::Constants(RootConstants { register: 0, space: 77, num_values: 3 }),
            });
            let mut taken: Vec<(ResourceClass, u32, u32, Option<u32>)> = all
                .iter()
                .map(|r| (r.class, r.space, r.lower_bound, r.range_size.map(|n| r.lower_bound.saturating_add(n))))
                .collect();
            let free = |taken: &[(ResourceClass, u32, u32, Option<u32>)], class, space, reg: u32| {
                !taken.iter().any(|&(c, s, lo, hi)| c == class && s == space && reg >= lo && hi.is_none_or(|h| reg < h))
            };
            let mut spaces: Vec<u32> = all.iter().map(|r| r.space).collect();
            spaces.sort_unstable();
            spaces.dedup();
            let mut first_cbv = true;
            for space in spaces {
                for samplers in [false, true] {
                    let mut ranges = Vec::new();
                    let mut offset = if samplers { 5 } else { 2 };
                    for r in all.iter().filter(|r| r.space == space && (r.class == ResourceClass::Sampler) == samplers)
                    {
                        if r.class == ResourceClass::Cbv && r.range_size == Some(1) && first_cbv {
                            first_cbv = false;
                            rs.parameters.push(RootParameter {
                                visibility: Visibility::All,
                                kind: ParameterKind::Descriptor(RootDescriptor {
                                    class: r.class,
                                    register: r.lower_bound,
                                    space,
                                    flags: DescriptorFlags(0),
                                }),
                            });
                            continue;
                        }
                        let mut range = range_of(r);
                        if let Some(n) = range.count {
                            // Widen by one register each way where nothing else sits.
                            if range.base_register > 0 && free(&taken, r.class, space, range.base_register - 1) {
                                range.base_register -= 1;
                                range.count = Some(n + 1);
                                taken.push((r.class, space, range.base_register, Some(range.base_register + 1)));
                            }
                            let end = range.base_register.saturating_add(range.count.unwrap_or(0));
                            if end < u32::MAX - 1 && free(&taken, r.class, space, end) {
                                range.count = range.count.map(|c| c + 1);
                                taken.push((r.class, space, end, Some(end + 1)));
                            }
                        }
                        range.offset = RangeOffset::At(offset);
                        range.flags =
                            RangeFlags(if r.class == ResourceClass::Sampler { 0 } else { RangeFlags::DATA_VOLATILE });
                        match range.count {
                            Some(c) => offset = offset.saturating_add(c).saturating_add(3),
                            None => {
                                // Nothing may follow an unbounded range's offset: own table.
                                rs.parameters.push(RootParameter {
                                    visibility: Visibility::All,
                                    kind: ParameterKind::Table(vec![range]),
                                });
                                continue;
                            }
                        }
                        ranges.push(range);
                    }
                    if !ranges.is_empty() {
                        rs.parameters
                            .push(RootParameter { visibility: Visibility::All, kind: ParameterKind::Table(ranges) });
                    }
                }
            }
        }
    }
    rs
}

/// [`Variant::RootParameters`]' placement of `all` into `rs`: root constants, root
/// descriptors and static samplers where D3D allows them, within `cap` DWORDs of root
/// constants and descriptors; the rest in tables.
fn root_parameters(rs: &mut RootSignature, all: Vec<&Resource>, vis: Visibility, facts: &ShaderFacts, cap: u32) {
    let mut cost = 0u32;
    let mut rest = Vec::new();
    let mut sampler_rest = Vec::new();
    for r in all {
        let single = r.range_size == Some(1);
        let words = r.cbuffer_size.unwrap_or(u32::MAX).div_ceil(4);
        let root = match r.class {
            ResourceClass::Cbv if single && words <= 16 && cost + words.max(1) <= cap => {
                cost += words.max(1);
                Some(ParameterKind::Constants(RootConstants {
                    register: r.lower_bound,
                    space: r.space,
                    num_values: words.max(1),
                }))
            }
            ResourceClass::Cbv if single && cost + 2 <= cap => {
                cost += 2;
                Some(ParameterKind::Descriptor(RootDescriptor {
                    class: r.class,
                    register: r.lower_bound,
                    space: r.space,
                    flags: DescriptorFlags(0),
                }))
            }
            ResourceClass::Srv | ResourceClass::Uav
                if single
                    && matches!(r.kind, ResourceKind::RawBuffer | ResourceKind::StructuredBuffer)
                    && !r.uav.is_some_and(|u| u.has_counter)
                    && !facts.sized.contains(&(r.class, r.id))
                    && cost + 2 <= cap =>
            {
                cost += 2;
                let flags = if r.class == ResourceClass::Uav {
                    DescriptorFlags(DescriptorFlags::DATA_VOLATILE)
                } else {
                    DescriptorFlags(DescriptorFlags::DATA_STATIC)
                };
                Some(ParameterKind::Descriptor(RootDescriptor {
                    class: r.class,
                    register: r.lower_bound,
                    space: r.space,
                    flags,
                }))
            }
            ResourceClass::Sampler if single => {
                let k = rs.static_samplers.len();
                rs.static_samplers.push(sampler_for(r, k));
                None
            }
            ResourceClass::Sampler => {
                sampler_rest.push(range_of(r));
                None
            }
            _ => {
                rest.push(range_of(r));
                None
            }
        };
        if let Some(kind) = root {
            rs.parameters.push(RootParameter { visibility: vis, kind });
        }
    }
    tables(rest, vis, &mut rs.parameters);
    tables(sampler_rest, vis, &mut rs.parameters);
}
