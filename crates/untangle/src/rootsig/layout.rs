//! Lowering a root signature onto a Vulkan pipeline layout: push constants, descriptor set
//! layouts and immutable samplers, under one of two binding models. The result depends on
//! the root signature alone, never on a shader, so a translation layer can build one
//! `VkPipelineLayout` per root signature and use it with every shader translated against it.
//!
//! **`heap`**, the D3D12 model as vkd3d-proton implements it (see the blog series, part 3):
//! - push constants: every root descriptor's 64-bit buffer device address (8 bytes each,
//!   first, so they stay 8-aligned), then every root constant (4 bytes each), then one `u32`
//!   per descriptor table: the table's start in its descriptor heap, in descriptors;
//! - set 0, the CBV/SRV/UAV heap: one runtime array per Vulkan descriptor type
//!   (see [`HEAP_RESOURCE_BINDINGS`]), all indexed by heap index; a descriptor written at
//!   heap index `i` goes to element `i` of the binding of its type;
//! - set 1, the sampler heap: binding 0, a runtime array of samplers;
//! - set 2, static samplers: binding `k` is static sampler `k`, immutable;
//! - with [`RootDescriptors::Descriptor`], root CBV/SRV/UAV are plain descriptors in set 3
//!   (binding `k` = `k`-th root descriptor) instead of addresses.
//!
//! SM 6.6 `ResourceDescriptorHeap[i]` / `SamplerDescriptorHeap[i]` index sets 0 and 1
//! directly, the same arrays tables index.
//!
//! **`direct`**, a D3D11-style slot model (Ogre's root layouts: each range its own binding,
//! fixed per-type order), which needs no descriptor indexing:
//! - push constants: the root constants only, in parameter order;
//! - set 0: for each CBV/SRV/UAV range (parameter order, then range order) a group of
//!   consecutive bindings, one per view type a register of that class can have (see
//!   [`View`]): CBV 1 (uniform buffer), SRV 3 (sampled image, uniform texel buffer, storage
//!   buffer), UAV 4 (storage image, storage texel buffer, storage buffer, counter); each
//!   binding holds the range's descriptor count (an unbounded range: a runtime array, which
//!   does need descriptor indexing); root CBV/SRV/UAV get one binding each, in the same
//!   sequence, as plain descriptors;
//! - set 1: sampler ranges (one binding each), then static samplers (immutable);
//! - sets 2 and 3: the CBV/SRV/UAV and sampler heaps as in `heap`, only when the root flags
//!   allow direct heap indexing (`CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED`,
//!   `SAMPLER_HEAP_DIRECTLY_INDEXED`).
//!
//! **Push-constant budget** (both models, [`LayoutOptions::max_push_constant_bytes`], default
//! 128 bytes, Vulkan's guaranteed `maxPushConstantsSize`): the root arguments that do not
//! fit stay out of push constants and go to the *root argument buffer*, a uniform buffer at
//! binding 0 of its own set, one past the highest set the layout has otherwise
//! ([`RootArgumentBuffer`]). Which arguments stay and where each lands: [`super::spill`].
//! When everything fits there is no such buffer and the layout is the unbudgeted one.

pub use super::pipeline::*;

use super::model::*;
use super::spill::{self, RootArg};

/// Lower `rs` under `options`.
pub fn lower(rs: &RootSignature, options: &LayoutOptions) -> Result<PipelineLayout, LayoutError> {
    let budget = options.max_push_constant_bytes;
    if !budget.is_multiple_of(4) {
        return Err(LayoutError::PushConstantBudget { bytes: budget });
    }
    let mut range_offsets = Vec::with_capacity(rs.parameters.len());
    for (p, param) in rs.parameters.iter().enumerate() {
        match &param.kind {
            ParameterKind::Table(ranges) => {
                let offs = DescriptorRange::resolve_offsets(ranges).ok_or_else(|| {
                    // Name the first range whose offset cannot be placed.
                    let bad = (0..ranges.len())
                        .find(|&k| DescriptorRange::resolve_offsets(&ranges[..=k]).is_none())
                        .unwrap_or(0);
                    LayoutError::TableOverflow { parameter: p as u32, range: bad as u32 }
                })?;
                range_offsets.push(offs);
            }
            _ => range_offsets.push(Vec::new()),
        }
    }
    let mut layout = PipelineLayout {
        binding_model: options.model,
        root_descriptors: if options.model == BindingModel::Direct {
            RootDescriptors::Descriptor
        } else {
            options.root_descriptors
        },
        push_constants: PushConstants::default(),
        root_argument_buffer: None,
        sets: Vec::new(),
        heaps: None,
        range_offsets,
        range_slots: Vec::new(),
        root_descriptor_slots: Vec::new(),
    };
    let args = match options.model {
        BindingModel::Heap => lower_heap(rs, &mut layout),
        BindingModel::Direct => lower_direct(rs, &mut layout),
    };
    layout.sets.retain(|s| !s.bindings.is_empty());
    layout.sets.sort_by_key(|s| s.set);
    let total: u32 = args.iter().map(|a| a.size).sum();
    if total > MAX_ROOT_ARGUMENT_BYTES {
        return Err(LayoutError::PushConstantsTooLarge { size: total });
    }
    let split = spill::split(args, budget);
    layout.push_constants = split.push;
    if !split.spilled.is_empty() {
        // Its own set, after every other: per-draw data in the last set lets a layer
        // rebind it alone (binding set N keeps sets below N bound), and a set holding one
        // uniform buffer can also be a push-descriptor set or use a dynamic offset.
        let set = layout.sets.last().map_or(0, |s| s.set + 1);
        layout.sets.push(SetLayout {
            set,
            bindings: vec![SetBinding {
                binding: 0,
                descriptor_type: DescriptorType::UniformBuffer,
                count: Some(1),
                stages: "ALL",
                source: BindingSource::RootArgumentBuffer,
                immutable_sampler: None,
            }],
        });
        layout.root_argument_buffer =
            Some(RootArgumentBuffer { set, binding: 0, size: split.spilled_size, members: split.spilled });
    }
    Ok(layout)
}

fn table_heap(ranges: &[DescriptorRange]) -> HeapKind {
    if ranges.first().is_some_and(|r| r.class == ResourceClass::Sampler) {
        HeapKind::Sampler
    } else {
        HeapKind::CbvSrvUav
    }
}

fn heap_sets_into(layout: &mut PipelineLayout, sets: HeapSets, resources: bool, samplers: bool) {
    if resources {
        let bindings = HEAP_RESOURCE_BINDINGS
            .iter()
            .enumerate()
            .map(|(k, &(view, class))| SetBinding {
                binding: k as u32,
                descriptor_type: view.descriptor_type(class),
                count: None,
                stages: "ALL",
                source: BindingSource::Heap { heap: HeapKind::CbvSrvUav },
                immutable_sampler: None,
            })
            .collect();
        layout.sets.push(SetLayout { set: sets.resources, bindings });
    }
    if samplers {
        layout.sets.push(SetLayout {
            set: sets.samplers,
            bindings: vec![SetBinding {
                binding: 0,
                descriptor_type: DescriptorType::Sampler,
                count: None,
                stages: "ALL",
                source: BindingSource::Heap { heap: HeapKind::Sampler },
                immutable_sampler: None,
            }],
        });
    }
    if resources || samplers {
        layout.heaps = Some(sets);
    }
}

fn static_sampler_bindings(rs: &RootSignature, first_binding: u32) -> Vec<SetBinding> {
    rs.static_samplers
        .iter()
        .enumerate()
        .map(|(k, s)| SetBinding {
            binding: first_binding + k as u32,
            descriptor_type: DescriptorType::Sampler,
            count: Some(1),
            stages: stage_names(s.visibility),
            source: BindingSource::StaticSampler { index: k as u32 },
            immutable_sampler: Some(sampler_desc(s)),
        })
        .collect()
}

fn root_descriptor_type(class: ResourceClass) -> DescriptorType {
    if class == ResourceClass::Cbv {
        DescriptorType::UniformBuffer
    } else {
        DescriptorType::StorageBuffer
    }
}

/// The `heap` sets; returns the root arguments in push-constant form.
fn lower_heap(rs: &RootSignature, layout: &mut PipelineLayout) -> Vec<RootArg> {
    let by_address = layout.root_descriptors == RootDescriptors::Address;
    let mut args = Vec::new();
    let mut root_set = Vec::new();
    for (p, param) in rs.parameters.iter().enumerate() {
        if let ParameterKind::Descriptor(d) = &param.kind {
            if by_address {
                args.push(RootArg::new(
                    p,
                    8,
                    PushKind::RootDescriptorAddress { class: d.class, register: d.register, space: d.space },
                ));
            } else {
                let binding = root_set.len() as u32;
                layout.root_descriptor_slots.push((p as u32, ROOT_DESCRIPTOR_SET_HEAP, binding));
                root_set.push(SetBinding {
                    binding,
                    descriptor_type: root_descriptor_type(d.class),
                    count: Some(1),
                    stages: stage_names(param.visibility),
                    source: BindingSource::RootDescriptor { parameter: p as u32 },
                    immutable_sampler: None,
                });
            }
        }
    }
    for (p, param) in rs.parameters.iter().enumerate() {
        if let ParameterKind::Constants(c) = &param.kind {
            args.push(RootArg::constants(p, c));
        }
    }
    let (mut resources, mut samplers) = (
        rs.flags.contains(RootFlags::CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED),
        rs.flags.contains(RootFlags::SAMPLER_HEAP_DIRECTLY_INDEXED),
    );
    for (p, param) in rs.parameters.iter().enumerate() {
        if let ParameterKind::Table(ranges) = &param.kind {
            let heap = table_heap(ranges);
            match heap {
                HeapKind::Sampler => samplers = true,
                HeapKind::CbvSrvUav => resources = true,
            }
            args.push(RootArg::new(p, 4, PushKind::TableOffset { heap }));
        }
    }
    heap_sets_into(layout, HeapSets { resources: RESOURCE_SET_HEAP, samplers: SAMPLER_SET_HEAP }, resources, samplers);
    layout.sets.push(SetLayout { set: STATIC_SAMPLER_SET_HEAP, bindings: static_sampler_bindings(rs, 0) });
    layout.sets.push(SetLayout { set: ROOT_DESCRIPTOR_SET_HEAP, bindings: root_set });
    args
}

/// The `direct` sets; returns the root arguments in push-constant form (root constants).
fn lower_direct(rs: &RootSignature, layout: &mut PipelineLayout) -> Vec<RootArg> {
    let mut args = Vec::new();
    let mut set0 = Vec::new();
    let mut set1 = Vec::new();
    for (p, param) in rs.parameters.iter().enumerate() {
        let stages = stage_names(param.visibility);
        match &param.kind {
            ParameterKind::Constants(c) => args.push(RootArg::constants(p, c)),
            ParameterKind::Descriptor(d) => {
                let binding = set0.len() as u32;
                layout.root_descriptor_slots.push((p as u32, 0, binding));
                set0.push(SetBinding {
                    binding,
                    descriptor_type: root_descriptor_type(d.class),
                    count: Some(1),
                    stages,
                    source: BindingSource::RootDescriptor { parameter: p as u32 },
                    immutable_sampler: None,
                });
            }
            ParameterKind::Table(ranges) => {
                for (k, r) in ranges.iter().enumerate() {
                    let set_bindings = if r.class == ResourceClass::Sampler { &mut set1 } else { &mut set0 };
                    let first_binding = set_bindings.len() as u32;
                    layout.range_slots.push(RangeSlot {
                        parameter: p as u32,
                        range: k as u32,
                        set: u32::from(r.class == ResourceClass::Sampler),
                        first_binding,
                    });
                    for &view in View::of_class(r.class) {
                        let binding = set_bindings.len() as u32;
                        set_bindings.push(SetBinding {
                            binding,
                            descriptor_type: view.descriptor_type(r.class),
                            count: r.count,
                            stages,
                            source: BindingSource::Range { parameter: p as u32, range: k as u32, view },
                            immutable_sampler: None,
                        });
                    }
                }
            }
        }
    }
    let first_static = set1.len() as u32;
    set1.extend(static_sampler_bindings(rs, first_static));
    layout.sets.push(SetLayout { set: 0, bindings: set0 });
    layout.sets.push(SetLayout { set: 1, bindings: set1 });
    heap_sets_into(
        layout,
        HeapSets { resources: 2, samplers: 3 },
        rs.flags.contains(RootFlags::CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED),
        rs.flags.contains(RootFlags::SAMPLER_HEAP_DIRECTLY_INDEXED),
    );
    args
}

/// The `VkSamplerCreateInfo` of a static sampler.
pub fn sampler_desc(s: &StaticSampler) -> SamplerDesc {
    let f = s.filter;
    let lin = |b: bool| if b { "LINEAR" } else { "NEAREST" };
    let address = |a: AddressMode| match a {
        AddressMode::Wrap => "REPEAT",
        AddressMode::Mirror => "MIRRORED_REPEAT",
        AddressMode::Clamp => "CLAMP_TO_EDGE",
        AddressMode::Border => "CLAMP_TO_BORDER",
        AddressMode::MirrorOnce => "MIRROR_CLAMP_TO_EDGE",
    };
    let compare_enable = f.reduction() == 1 && s.comparison != ComparisonFunc::None;
    let compare_op = match s.comparison {
        ComparisonFunc::None | ComparisonFunc::Never => "NEVER",
        ComparisonFunc::Less => "LESS",
        ComparisonFunc::Equal => "EQUAL",
        ComparisonFunc::LessEqual => "LESS_OR_EQUAL",
        ComparisonFunc::Greater => "GREATER",
        ComparisonFunc::NotEqual => "NOT_EQUAL",
        ComparisonFunc::GreaterEqual => "GREATER_OR_EQUAL",
        ComparisonFunc::Always => "ALWAYS",
    };
    let int_border = s.flags.0 & SamplerFlags::UINT_BORDER_COLOR != 0;
    let border_color = match (s.border_color, int_border) {
        (BorderColor::TransparentBlack, false) => "FLOAT_TRANSPARENT_BLACK",
        (BorderColor::TransparentBlack, true) => "INT_TRANSPARENT_BLACK",
        (BorderColor::OpaqueBlack, false) => "FLOAT_OPAQUE_BLACK",
        (BorderColor::OpaqueWhite, false) => "FLOAT_OPAQUE_WHITE",
        (BorderColor::OpaqueBlack, true) | (BorderColor::OpaqueBlackUint, _) => "INT_OPAQUE_BLACK",
        (BorderColor::OpaqueWhite, true) | (BorderColor::OpaqueWhiteUint, _) => "INT_OPAQUE_WHITE",
    };
    let aniso = f.anisotropic();
    SamplerDesc {
        mag_filter: lin(aniso || f.mag_linear()),
        min_filter: lin(aniso || f.min_linear()),
        mipmap_mode: if aniso || f.mip_linear() { "LINEAR" } else { "NEAREST" },
        address_mode_u: address(s.address_u),
        address_mode_v: address(s.address_v),
        address_mode_w: address(s.address_w),
        mip_lod_bias: s.mip_lod_bias,
        anisotropy_enable: aniso,
        max_anisotropy: if aniso { s.max_anisotropy.clamp(1, 16) as f32 } else { 1.0 },
        compare_enable,
        compare_op,
        min_lod: s.min_lod,
        max_lod: s.max_lod,
        border_color,
        unnormalized_coordinates: s.flags.0 & SamplerFlags::NON_NORMALIZED_COORDINATES != 0,
        reduction_mode: match f.reduction() {
            2 => "MIN",
            3 => "MAX",
            _ => "WEIGHTED_AVERAGE",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(parameters: Vec<ParameterKind>) -> RootSignature {
        RootSignature {
            version: Version::V1_1,
            flags: RootFlags(0),
            parameters: parameters
                .into_iter()
                .map(|kind| RootParameter { visibility: Visibility::All, kind })
                .collect(),
            static_samplers: vec![StaticSampler::with_defaults(0)],
        }
    }

    fn mixed() -> RootSignature {
        let cbv = ParameterKind::Descriptor(RootDescriptor {
            class: ResourceClass::Cbv,
            register: 0,
            space: 0,
            flags: DescriptorFlags(0),
        });
        let consts = ParameterKind::Constants(RootConstants { register: 1, space: 0, num_values: 3 });
        let table = ParameterKind::Table(vec![
            DescriptorRange { count: Some(4), ..DescriptorRange::new(ResourceClass::Srv, 0) },
            DescriptorRange::new(ResourceClass::Uav, 2),
        ]);
        let samplers = ParameterKind::Table(vec![DescriptorRange {
            count: None,
            ..DescriptorRange::new(ResourceClass::Sampler, 1)
        }]);
        let srv = ParameterKind::Descriptor(RootDescriptor {
            class: ResourceClass::Srv,
            register: 9,
            space: 0,
            flags: DescriptorFlags(0),
        });
        sig(vec![table, cbv, consts, samplers, srv])
    }

    #[test]
    fn heap_push_constants_put_addresses_then_constants_then_tables() {
        let l = lower(&mixed(), &LayoutOptions::default()).unwrap();
        let got: Vec<(u32, u32, u32)> =
            l.push_constants.members.iter().map(|m| (m.parameter, m.offset, m.size)).collect();
        assert_eq!(got, vec![(1, 0, 8), (4, 8, 8), (2, 16, 12), (0, 28, 4), (3, 32, 4)]);
        assert_eq!(l.push_constants.size, 36);
        assert_eq!(l.heaps, Some(HeapSets { resources: 0, samplers: 1 }));
        let sets: Vec<u32> = l.sets.iter().map(|s| s.set).collect();
        assert_eq!(sets, vec![0, 1, 2], "resource heap, sampler heap, static samplers; no root-descriptor set");
        assert_eq!(l.sets[0].bindings.len(), 7);
        assert!(l.sets[2].bindings[0].immutable_sampler.is_some());
        assert_eq!(l.range_offsets[0], vec![0, 4]);
    }

    #[test]
    fn heap_with_descriptor_root_descriptors_uses_set_3() {
        let l = lower(
            &mixed(),
            &LayoutOptions {
                model: BindingModel::Heap,
                root_descriptors: RootDescriptors::Descriptor,
                ..LayoutOptions::default()
            },
        )
        .unwrap();
        assert_eq!(l.push_constants.size, 12 + 8);
        let set3 = l.sets.iter().find(|s| s.set == 3).unwrap();
        let types: Vec<DescriptorType> = set3.bindings.iter().map(|b| b.descriptor_type).collect();
        assert_eq!(types, vec![DescriptorType::UniformBuffer, DescriptorType::StorageBuffer]);
    }

    #[test]
    fn direct_gives_each_range_a_group_of_bindings() {
        let l = lower(&mixed(), &LayoutOptions { model: BindingModel::Direct, ..LayoutOptions::default() }).unwrap();
        assert_eq!(l.push_constants.size, 12);
        assert_eq!(l.heaps, None);
        let set0: Vec<(DescriptorType, Option<u32>)> =
            l.sets[0].bindings.iter().map(|b| (b.descriptor_type, b.count)).collect();
        use DescriptorType::*;
        assert_eq!(
            set0,
            vec![
                (SampledImage, Some(4)),
                (UniformTexelBuffer, Some(4)),
                (StorageBuffer, Some(4)),
                (StorageImage, Some(1)),
                (StorageTexelBuffer, Some(1)),
                (StorageBuffer, Some(1)),
                (StorageBuffer, Some(1)),
                (UniformBuffer, Some(1)),
                (StorageBuffer, Some(1)),
            ]
        );
        let set1: Vec<(DescriptorType, Option<u32>, bool)> =
            l.sets[1].bindings.iter().map(|b| (b.descriptor_type, b.count, b.immutable_sampler.is_some())).collect();
        assert_eq!(set1, vec![(Sampler, None, false), (Sampler, Some(1), true)]);
        assert_eq!(
            l.range_slots.iter().map(|s| (s.set, s.first_binding)).collect::<Vec<_>>(),
            vec![(0, 0), (0, 3), (1, 0)]
        );
    }

    #[test]
    fn overflowing_tables_and_push_constants_are_errors() {
        let bad = sig(vec![ParameterKind::Table(vec![
            DescriptorRange { count: None, ..DescriptorRange::new(ResourceClass::Srv, 0) },
            DescriptorRange::new(ResourceClass::Srv, 100),
        ])]);
        assert_eq!(lower(&bad, &LayoutOptions::default()), Err(LayoutError::TableOverflow { parameter: 0, range: 1 }));
        let big = sig(vec![ParameterKind::Constants(RootConstants { register: 0, space: 0, num_values: 65 })]);
        assert_eq!(lower(&big, &LayoutOptions::default()), Err(LayoutError::PushConstantsTooLarge { size: 260 }));
    }

    /// `mixed()` plus root constants of `words` values in front: parameters shift by one.
    fn crowded(words: u32) -> RootSignature {
        let mut rs = mixed();
        rs.parameters.insert(
            0,
            RootParameter {
                visibility: Visibility::All,
                kind: ParameterKind::Constants(RootConstants { register: 0, space: 9, num_values: words }),
            },
        );
        rs
    }

    fn budget(model: BindingModel, bytes: u32) -> LayoutOptions {
        LayoutOptions { model, max_push_constant_bytes: bytes, ..LayoutOptions::default() }
    }

    fn members(ms: &[PushMember]) -> Vec<(u32, u32, u32)> {
        ms.iter().map(|m| (m.parameter, m.offset, m.size)).collect()
    }

    #[test]
    fn a_layout_that_fits_is_the_unbudgeted_one() {
        for model in [BindingModel::Heap, BindingModel::Direct] {
            let base = lower(&crowded(20), &budget(model, 256)).unwrap();
            assert_eq!(base.root_argument_buffer, None);
            for bytes in [base.push_constants.size, 128, 4096] {
                assert_eq!(lower(&crowded(20), &budget(model, bytes)).unwrap(), base, "{model:?} budget {bytes}");
            }
            assert_eq!(lower(&crowded(20), &LayoutOptions { model, ..LayoutOptions::default() }).unwrap(), base);
        }
        // The JSON has no trace of the budget either.
        let json = serde_json::to_string(&lower(&mixed(), &LayoutOptions::default()).unwrap()).unwrap();
        assert!(!json.contains("root_argument"), "{json}");
    }

    #[test]
    fn heap_spills_the_last_parameters_to_a_uniform_buffer_in_its_own_set() {
        // Parameters: 0 constants (26 words), 1 table, 2 root CBV, 3 constants (3 words),
        // 4 sampler table, 5 root SRV. In order: 104, +4, +8 = 116, +12 = 128 fit; 4 and 5
        // no longer do.
        let l = lower(&crowded(26), &LayoutOptions::default()).unwrap();
        assert_eq!(members(&l.push_constants.members), vec![(2, 0, 8), (0, 8, 104), (3, 112, 12), (1, 124, 4)]);
        assert_eq!(l.push_constants.size, 128);
        let b = l.root_argument_buffer.as_ref().expect("a root argument buffer");
        assert_eq!(members(&b.members), vec![(5, 0, 8), (4, 8, 4)]);
        assert_eq!((b.set, b.binding, b.size), (3, 0, 16), "one past static samplers (set 2), 16-byte rows");
        let set = l.sets.last().unwrap();
        assert_eq!(set.set, 3);
        assert_eq!(set.bindings.len(), 1);
        assert_eq!(
            (set.bindings[0].descriptor_type, set.bindings[0].count, set.bindings[0].source),
            (DescriptorType::UniformBuffer, Some(1), BindingSource::RootArgumentBuffer)
        );
        assert_eq!(l.root_argument(5).map(|(s, m)| (s, m.offset)), Some((ArgStore::RootArgumentBuffer, 0)));
        assert_eq!(l.root_argument(2).map(|(s, m)| (s, m.offset)), Some((ArgStore::PushConstants, 0)));
        // Under 256 bytes everything fits again.
        let wide = lower(&crowded(26), &budget(BindingModel::Heap, 256)).unwrap();
        assert_eq!(wide.push_constants.size, 104 + 4 + 8 + 12 + 4 + 8);
        assert_eq!(wide.root_argument_buffer, None);
        assert_eq!(wide.sets.iter().map(|s| s.set).collect::<Vec<_>>(), vec![0, 1, 2]);
    }

    #[test]
    fn spilled_addresses_stay_8_aligned_and_sizes_round_to_16() {
        // 0: one constant; 1 table, 2 CBV, 3 constants, 4 sampler table, 5 SRV.
        for bytes in (0..=64).step_by(4) {
            let l = lower(&crowded(1), &budget(BindingModel::Heap, bytes)).unwrap();
            assert!(l.push_constants.size <= bytes);
            let spilled = l.root_argument_buffer.as_ref().map_or(&[][..], |b| &b.members);
            for m in l.push_constants.members.iter().chain(spilled) {
                if let PushKind::RootDescriptorAddress { .. } = m.kind {
                    assert_eq!(m.offset % 8, 0, "budget {bytes}: {m:?}");
                }
            }
            if let Some(b) = &l.root_argument_buffer {
                assert!(b.size.is_multiple_of(16) && b.members.iter().all(|m| m.offset + m.size <= b.size));
            }
            let all: u32 = l.push_constants.size + spilled.iter().map(|m| m.size).sum::<u32>();
            assert_eq!(all, 4 + 4 + 8 + 12 + 4 + 8, "budget {bytes}: every argument exactly once");
        }
        let none = lower(&crowded(1), &budget(BindingModel::Heap, 0)).unwrap();
        assert_eq!(none.push_constants, PushConstants::default());
        let b = none.root_argument_buffer.unwrap();
        assert_eq!(members(&b.members), vec![(2, 0, 8), (5, 8, 8), (0, 16, 4), (3, 20, 12), (1, 32, 4), (4, 36, 4)]);
        assert_eq!(b.size, 48);
    }

    #[test]
    fn direct_spills_root_constants_only() {
        let l = lower(&crowded(30), &budget(BindingModel::Direct, 128)).unwrap();
        assert_eq!(members(&l.push_constants.members), vec![(0, 0, 120)]);
        let b = l.root_argument_buffer.as_ref().unwrap();
        assert_eq!(members(&b.members), vec![(3, 0, 12)]);
        assert_eq!((b.set, b.size), (2, 16), "after set 0 (ranges) and set 1 (samplers)");
        // A root signature with nothing but constants: the buffer is set 0.
        let only = sig(vec![ParameterKind::Constants(RootConstants { register: 0, space: 0, num_values: 40 })]);
        let mut only = only;
        only.static_samplers.clear();
        let l = lower(&only, &budget(BindingModel::Direct, 128)).unwrap();
        assert_eq!(l.push_constants.size, 0, "40 words never fit in 128 bytes: they spill whole");
        let b = l.root_argument_buffer.unwrap();
        assert_eq!((b.set, b.size, members(&b.members)), (0, 160, vec![(0, 0, 160)]));
    }

    #[test]
    fn budgets_must_be_whole_words() {
        for bytes in [1, 2, 6, 127] {
            assert_eq!(
                lower(&mixed(), &budget(BindingModel::Heap, bytes)),
                Err(LayoutError::PushConstantBudget { bytes })
            );
        }
        assert!(lower(&mixed(), &budget(BindingModel::Heap, 0)).is_ok());
        assert!(lower(&mixed(), &budget(BindingModel::Direct, u32::MAX - 3)).is_ok());
    }

    #[test]
    fn static_sampler_descriptions_follow_d3d_fields() {
        let mut s = StaticSampler::with_defaults(0);
        let d = sampler_desc(&s);
        assert!(d.anisotropy_enable && d.max_anisotropy == 16.0 && !d.compare_enable);
        assert_eq!(
            (d.address_mode_u, d.border_color, d.reduction_mode),
            ("REPEAT", "FLOAT_OPAQUE_WHITE", "WEIGHTED_AVERAGE")
        );
        s.filter = Filter(0x94); // COMPARISON_MIN_MAG_LINEAR_MIP_POINT
        s.comparison = ComparisonFunc::Greater;
        s.address_u = AddressMode::MirrorOnce;
        s.border_color = BorderColor::OpaqueBlackUint;
        let d = sampler_desc(&s);
        assert_eq!((d.min_filter, d.mag_filter, d.mipmap_mode), ("LINEAR", "LINEAR", "NEAREST"));
        assert!(d.compare_enable && !d.anisotropy_enable);
        assert_eq!(
            (d.compare_op, d.address_mode_u, d.border_color),
            ("GREATER", "MIRROR_CLAMP_TO_EDGE", "INT_OPAQUE_BLACK")
        );
        s.filter = Filter(0x100); // MINIMUM_MIN_MAG_MIP_POINT
        assert_eq!(sampler_desc(&s).reduction_mode, "MIN");
        assert!(!sampler_desc(&s).compare_enable);
        s.filter = Filter(0x1d5); // MAXIMUM_ANISOTROPIC
        assert_eq!(sampler_desc(&s).reduction_mode, "MAX");
        assert!(sampler_desc(&s).anisotropy_enable);
    }
}
