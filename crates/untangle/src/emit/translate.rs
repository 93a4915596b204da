//! The translator's entry: DXIL module → SPIR-V words for one compute, vertex, hull,
//! domain, geometry, mesh, amplification or pixel entry point.
//!
//! Steps: decode the DXIL metadata (`crate::dxil`), structurize the entry function
//! (`crate::passes`), emit its body (`function` + `dxop`), then the entry point with its
//! interface (every module-scope variable, as SPIR-V 1.4+ requires) and execution modes.
//! A hull shader's two DXIL functions (control-point phase and patch-constant function)
//! become two SPIR-V functions that a generated entry function calls (`stage::hull`).
//! Stage-specific execution modes come from `stage`. The module is SPIR-V 1.6 for
//! Vulkan 1.3. Output is deterministic: the same input and options give the same words.
//!
//! A leaf of `emit` (see its documentation): the driver. It reaches the stages, functions,
//! resources and interface through methods on the root's types ([`super::ModuleBuilder`],
//! [`super::StageIo`], [`super::RayState`], [`super::MeshVars`], `NodeState`,
//! [`super::Resources`]), never by importing another leaf. The crate's `Shader` and
//! `translate_module` call `translate_analyzed` and `translate_entry_local`.

pub use super::{LayoutReport, Options, RootSignatureBinding, Translation, LAYOUT_SCHEMA};

use super::binding_model::{mapping_with_counters, DefaultPlacement, MappingRow, VkBinding};
use super::entry::{entry_kind, execution_model, export_name, only_entry, used_resources};
use super::error::{malformed, Error, NotAShader, Result, Subject};
use super::placement::{
    location_allows, offsets_allowed, BufferView, CounterPlace, Location, Placement, ResourcePlace, TableOffset,
};
use super::stream_output::XfbState;
use super::support::stage_support;
use super::work_graph::{local_size, push_offset_after, NodeState, Push, PushPlace};
use super::{typecheck, validate, ThreadQuads};
use super::{
    Binder, Interface, MinPrecision, ModuleBuilder, RayState, Resources, StageIo, TessDomainOrigin, ViewState,
};
use crate::dxil::{DxilInfo, EntryPoint, ShaderModel};
use crate::front::container::ShaderKind;
use crate::ir::Module;
use crate::rootsig::resolve::Place;
use crate::rootsig::RootSignature;
use rspirv::spirv::{self, ExecutionMode, Word};

/// Translate a module whose DXIL meaning `info` was decoded already: its entry point, or a
/// library's one entry (`stage::ray_tracing` translates libraries by entry).
pub(crate) fn translate_analyzed(m: &Module, info: &DxilInfo, options: &Options) -> Result<Translation> {
    let sm = info.shader_model.clone().ok_or(Error::NotAShader(NotAShader::NoShaderModel))?;
    if sm.kind == ShaderKind::Library {
        let ep = only_entry(&info.entry_points)?;
        return translate_entry(m, info, ep, options);
    }
    let ep = info
        .entry_points
        .iter()
        .find(|e| e.function.is_some())
        .ok_or(Error::NotAShader(NotAShader::NoEntryFunction))?;
    translate_entry(m, info, ep, options)
}

/// Translate entry point `ep` of a module whose DXIL meaning `info` was decoded already (a
/// library's entry is translated in its own shader kind).
pub(crate) fn translate_entry(m: &Module, info: &DxilInfo, ep: &EntryPoint, options: &Options) -> Result<Translation> {
    translate_entry_local(m, info, ep, options, None)
}

/// [`translate_entry`], a ray-tracing entry's resources resolved against local root
/// signature `local` first (its arguments in the shader record), when bound through a
/// root signature.
pub(crate) fn translate_entry_local(
    m: &Module,
    info: &DxilInfo,
    ep: &EntryPoint,
    options: &Options,
    local: Option<&RootSignature>,
) -> Result<Translation> {
    let mut sm = info.shader_model.clone().ok_or(Error::NotAShader(NotAShader::NoShaderModel))?;
    // Calls to functions with a body (a library's shared functions) are inlined: the
    // module holds what the entry reaches.
    let inlined = match ep.function.map(|f| &m.functions[f]) {
        Some(f) if !f.is_declaration() => crate::passes::inline::inline_calls(m, f)
            .map_err(|e| Error::Unsupported { function: f.name.clone(), message: e.to_string() })?,
        _ => None,
    };
    let library_entry;
    let ep = if sm.kind == ShaderKind::Library {
        sm.kind = entry_kind(ep)?;
        // The library's entries share its resource table: each binds what it uses.
        let f = inlined.as_ref().or(ep.function.map(|f| &m.functions[f]));
        let resources = f.map_or_else(|| ep.resources.clone(), |f| used_resources(m, f, &ep.resources));
        library_entry = EntryPoint { resources, ..ep.clone() };
        &library_entry
    } else {
        ep
    };
    let model = stage_support(sm.kind)
        .is_none()
        .then(|| execution_model(sm.kind))
        .flatten()
        .ok_or_else(|| Error::UnsupportedStage { stage: sm.profile.clone() })?;
    let fid = ep.function.ok_or(Error::NotAShader(NotAShader::EntryWithoutFunction))?;
    let func = inlined.as_ref().unwrap_or(&m.functions[fid]);
    if func.is_declaration() {
        return Err(Error::NotAShader(NotAShader::EntryWithoutBody { entry: func.name.clone() }));
    }
    if ep.name.contains('\0') {
        return Err(malformed(Subject::Entry(ep.name.clone()), "entry point name contains NUL"));
    }
    validate::entry_point(ep, sm.kind)?;
    // The structurizer's input check computes the dominator tree the dominance check needs:
    // once for both.
    let (cfg_check, dom) = crate::cfg::Cfg::check_keeping_dominators(func);
    typecheck::function_with_dominators(m, func, dom.as_ref())?;
    drop(dom);
    // The stages with derivatives: those of draw-uniform values become subtractions
    // (`crate::rewrite::uniform_derivatives`), and the others in divergent control flow are
    // computed where the whole quad runs (`crate::rewrite::derivative_hoisting`).
    let derivatives = matches!(
        sm.kind,
        ShaderKind::Pixel | ShaderKind::Compute | ShaderKind::Mesh | ShaderKind::Amplification | ShaderKind::Node
    );
    let folded = derivatives.then(|| crate::rewrite::uniform_derivatives::run(m, func)).flatten();
    let func = folded.as_ref().map_or(func, |u| &u.function);
    let hoisted = derivatives.then(|| crate::rewrite::derivative_hoisting::run(m, func)).flatten();
    // Neither pass touches edges (folding rewrites instructions in place, hoisting moves
    // them); the check is reused unless hoisting moved something.
    let cfg_check = hoisted.is_none().then_some(cfg_check);
    let func = hoisted.as_ref().map_or(func, |h| &h.function);
    let xfb = match &options.stream_output {
        Some(so) => Some(so.plan(sm.kind, &ep.signatures.outputs).map_err(Error::from)?),
        None => None,
    };
    let default_placement =
        DefaultPlacement { stage: sm.kind, map: options.binding_map.clone(), remap: options.resource_remap.clone() };
    // UAVs whose counter the shader uses, besides those declared with one.
    let counted = crate::dxil::handles::handle_targets(m, func, &ep.resources, |op, _| {
        op == crate::dxil::DxOp::BufferUpdateCounter
    });
    let uav_counted =
        |r: &crate::dxil::Resource| r.uav.is_some_and(|u| u.has_counter) || counted.contains(&(r.class, r.id));
    if options.placement.is_none() && options.root_signature.is_none() {
        default_placement.check_answers(&ep.resources, uav_counted)?;
    }

    let mut cx = ModuleBuilder::new(m, options.cleanups);
    cx.float_controls2 = options.float_controls2;
    // DXIL shader flag 0x800000 (`UseNativeLowPrecision`): the module's `half` is a real
    // 16-bit type; without it `half` is minimum precision, which the options may widen.
    const USE_NATIVE_LOW_PRECISION: u64 = 1 << 23;
    if options.min_precision == MinPrecision::Float32 && ep.properties.shader_flags & USE_NATIVE_LOW_PRECISION == 0 {
        cx.half_bits = 32;
    }
    cx.sample_count.value = options.render_target_sample_count;
    cx.sample_count.spec_id = options.render_target_sample_count_spec_id;
    cx.ray_primitive_culling = options.ray_traversal_primitive_culling;
    cx.reorder = options.shader_invocation_reorder;
    let (binder, layout) = match (&options.placement, &options.root_signature) {
        (Some(placement), _) => (layer_binder(m, func, ep, sm.kind, placement, &options.vendor)?, None),
        (None, None) => (Binder::Default(default_placement.clone()), None),
        (None, Some(rsb)) => {
            crate::rootsig::validate(&rsb.signature)?;
            // A local root signature's tables index the descriptor heaps: the pipeline
            // layout must have them even when the global signature has no tables.
            let heaps = local.map_or(0, crate::rootsig::record::heap_flags);
            let global = crate::rootsig::RootSignature {
                flags: crate::rootsig::RootFlags(rsb.signature.flags.0 | heaps),
                ..rsb.signature.clone()
            };
            let layout = crate::rootsig::layout::lower(&global, &rsb.layout)
                .map_err(crate::rootsig::resolve::ResolveError::from)
                .map_err(Error::from)?;
            let record = match local {
                Some(l) => {
                    crate::rootsig::validate(l)?;
                    Some(crate::rootsig::record::ShaderRecordLayout::of(l))
                }
                None => None,
            };
            // The vendor magic UAVs are consumed by their lowerings and never declared: a
            // layer binds nothing there, and the application's root signature need not
            // cover them (D3D drivers intercept them before binding).
            let bound = ep.resources.iter().filter(|r| !is_vendor_magic_uav(r, &options.vendor));
            let resolved = match (local, &record) {
                (Some(l), Some(rec)) => crate::rootsig::record::resolve(&global, &layout, l, rec, sm.kind, bound),
                _ => crate::rootsig::resolve::resolve_all(&rsb.signature, &layout, sm.kind, bound),
            }
            .map_err(Error::from)?;
            let places = resolved.iter().map(|r| ((r.class, r.id), r.place)).collect();
            let binder = Binder::Root {
                places,
                push: layout.push_constants.clone(),
                heaps: layout.heaps,
                spill: layout.root_argument_buffer.clone(),
                record: record.as_ref().map_or(0, |r| r.size),
            };
            let report = LayoutReport {
                schema: LAYOUT_SCHEMA,
                stage: crate::rootsig::resolve::stage_visibility(sm.kind).map_or("other", |(_, _, name)| name),
                entry_point: export_name(&ep.name).to_string(),
                layout,
                shader_record: record,
                resources: resolved,
            };
            (binder, Some(report))
        }
    };
    let mut res = Resources::new(&ep.resources, binder);
    res.atomic_uavs = crate::dxil::handles::atomic_uavs(m, func, &ep.resources);
    let mut iface = Interface::default();
    if sm.kind.is_ray_tracing() {
        iface.ray = Some(RayState::prepare(&mut cx, m, func, sm.kind)?);
    }
    if sm.kind == ShaderKind::Node {
        // The node's push constants follow the root signature's, in its one block.
        let place = match layout.as_ref().map(|l| l.layout.push_constants.size).filter(|&s| s > 0) {
            Some(size) => {
                res.node_push_offset = Some(push_offset_after(size));
                PushPlace::Root(res.node_push_block(&mut cx)?)
            }
            None => PushPlace::Own,
        };
        let node = NodeState::prepare(&mut cx, ep, place)?;
        res.node_record = Some((node.push.var, node.push.member(Push::LocalRootArguments)));
        iface.node = Some(node);
    }
    iface.remap = options.io_remap.clone();
    iface.dual_source = options.dual_source_blending;
    iface.invariant_position = options.invariant_position;
    if sm.kind == ShaderKind::Pixel {
        iface.output_swizzles = check_output_swizzles(&options.output_swizzles)?;
    }
    if let Some(v) = options.view_instancing {
        // The stages Vulkan's `ViewIndex` reaches (compute and ray tracing have no views).
        let viewed = matches!(
            sm.kind,
            ShaderKind::Vertex
                | ShaderKind::Hull
                | ShaderKind::Domain
                | ShaderKind::Geometry
                | ShaderKind::Pixel
                | ShaderKind::Mesh
        );
        if viewed {
            iface.view = Some(ViewState::new(v, sm.kind, &ep.signatures)?);
        }
    }
    iface.stage = stage_io(&sm, ep)?;
    iface.stage.wave_lane_count = options.wave_lane_count;
    iface.stage.sampler_feedback = options.sampler_feedback;
    iface.stage.vendor = options.vendor;
    iface.stage.raw_buffer_vectors = options.raw_buffer_vectors;
    if sm.kind == ShaderKind::Compute {
        if let Some([x, y, z]) = ep.properties.num_threads {
            let threads = x.saturating_mul(y).saturating_mul(z);
            let lanes = ep.properties.wave_size.map_or(1, |w| w.min.max(1));
            iface.stage.max_subgroups = Some(threads.div_ceil(lanes));
        }
    }
    if let (Some(rule), Some(limit)) = (iface.stage.tess_factors.as_mut(), options.max_tess_factor) {
        rule.max = rule.max.min(limit.max(1.0));
    }
    if sm.kind == ShaderKind::Pixel {
        iface.stage.rov_interlock = super::rov::declares_rov(ep);
        iface.stage.per_vertex_inputs =
            StageIo::per_vertex_inputs(m, func, &ep.signatures.inputs, &ep.resources, options.vendor.amd_ags);
        iface.stage.per_primitive_inputs = options.per_primitive_inputs.clone();
        // SM 6.7's `[WaveOpsIncludeHelperLanes]` (DXC marks the entry function). With it,
        // dxil-spirv also declares `MaximallyReconvergesKHR`; untangle leaves that to
        // `Options::maximal_reconvergence`, which needs the device feature.
        iface.stage.wave_excludes_helpers = options.strict_helper_lane_wave_ops
            && !m.function_has_attribute(&m.functions[fid], "waveops-include-helper-lanes");
    }
    iface.xfb = xfb.map(XfbState::new);
    let (fn_id, quads, captures) = match sm.kind {
        ShaderKind::Hull => {
            let hs = ep
                .properties
                .hull
                .as_ref()
                .ok_or_else(|| malformed(Subject::Stage(ShaderKind::Hull), "hull shader without HS state"))?;
            let pc = hs.patch_constant_function.map(|f| &m.functions[f]);
            if let Some(pc) = pc.filter(|f| !f.is_declaration()) {
                typecheck::function(m, pc)?;
                res.atomic_uavs.extend(crate::dxil::handles::atomic_uavs(m, pc, &ep.resources));
            }
            (iface.hull_entry(&mut cx, &mut res, &sm, ep, func, pc, cfg_check)?, ThreadQuads::None, false)
        }
        ShaderKind::Node => {
            let name = export_name(&ep.name);
            let body_name = format!("{name}.body");
            let (body, quads, _) =
                iface.emit_function(&mut cx, &mut res, &sm, &ep.signatures, func, &body_name, cfg_check)?;
            (iface.node_entry(&mut cx, name, body)?, quads, false)
        }
        _ => iface.emit_function(&mut cx, &mut res, &sm, &ep.signatures, func, export_name(&ep.name), cfg_check)?,
    };
    let modes = std::mem::take(&mut iface.modes);
    if sm.kind == ShaderKind::Amplification {
        iface.mesh.define_unused_payload(&mut cx);
    }

    let interface = cx.interface.clone();
    let entry_name = options.entry_point_name.clone().unwrap_or_else(|| export_name(&ep.name).to_string());
    cx.b.entry_point(model, fn_id, entry_name.as_str(), interface);
    cx.finish_float_controls(fn_id);
    // DXC's `-denorm ftz|preserve` (the entry's `"fp32-denorm-mode"` attribute) is the
    // shader's 32-bit denormal behaviour in D3D (vkd3d-proton's `test_denorm_behavior_dxil`
    // checks both); `any`, the default, leaves it to the device. 16- and 64-bit floats keep
    // their denormals in D3D, which Vulkan's default does not promise, and devices that
    // cannot preserve them would reject the mode, so those widths get none (as dxil-spirv
    // on NVIDIA).
    match m.function_attribute(&m.functions[fid], "fp32-denorm-mode") {
        Some("ftz") => {
            cx.capability(spirv::Capability::DenormFlushToZero);
            cx.b.execution_mode(fn_id, ExecutionMode::DenormFlushToZero, [32]);
        }
        Some("preserve") => {
            cx.capability(spirv::Capability::DenormPreserve);
            cx.b.execution_mode(fn_id, ExecutionMode::DenormPreserve, [32]);
        }
        _ => {}
    }
    if options.maximal_reconvergence {
        cx.extension("SPV_KHR_maximal_reconvergence");
        cx.b.execution_mode(fn_id, ExecutionMode::MaximallyReconvergesKHR, []);
    }
    if captures {
        cx.capability(spirv::Capability::TransformFeedback);
        cx.b.execution_mode(fn_id, ExecutionMode::Xfb, []);
    }
    match sm.kind {
        ShaderKind::Compute | ShaderKind::Mesh | ShaderKind::Amplification | ShaderKind::Node => {
            let [x, y, z] = match sm.kind {
                ShaderKind::Compute | ShaderKind::Node => {
                    let n = if sm.kind == ShaderKind::Node {
                        local_size(cx.m, ep)
                    } else {
                        ep.properties.num_threads.unwrap_or([1, 1, 1])
                    };
                    cx.b.execution_mode(fn_id, ExecutionMode::LocalSize, n);
                    n
                }
                _ => {
                    execution_modes(&mut cx, fn_id, &sm, ep, options)?;
                    let state = ep.properties.mesh.as_ref().map(|m| m.num_threads);
                    state.or(ep.properties.amplification.as_ref().map(|a| a.num_threads)).unwrap_or([1, 1, 1])
                }
            };
            // D3D: quads of 2x2 threads when the group is two-dimensional with even sides,
            // else groups of 4 consecutive threads; none when the group's size is not a
            // multiple of 4, which D3D requires of derivatives (not of SM 6.6 quad
            // operations, which keep the lanes' quads then).
            let quads_fit = (x * y * z).is_multiple_of(4);
            if quads == ThreadQuads::Derivatives && !quads_fit {
                return Err(malformed(
                    Subject::Stage(sm.kind),
                    format!("derivatives in a compute shader of {x}x{y}x{z} threads (a multiple of 4 is required)"),
                ));
            }
            if quads != ThreadQuads::None && quads_fit {
                cx.extension("SPV_KHR_compute_shader_derivatives");
                if y > 1 && x.is_multiple_of(2) && y.is_multiple_of(2) {
                    cx.capability(spirv::Capability::ComputeDerivativeGroupQuadsKHR);
                    cx.b.execution_mode(fn_id, ExecutionMode::DerivativeGroupQuadsKHR, []);
                } else {
                    cx.capability(spirv::Capability::ComputeDerivativeGroupLinearKHR);
                    cx.b.execution_mode(fn_id, ExecutionMode::DerivativeGroupLinearKHR, []);
                }
            }
        }
        ShaderKind::Pixel => {
            cx.b.execution_mode(fn_id, ExecutionMode::OriginUpperLeft, []);
            if iface.stage.rov_interlock {
                super::rov::interlock_entry(&mut cx, fn_id)?;
            }
            // Shader flag bit 3: [earlydepthstencil].
            if ep.properties.shader_flags & (1 << 3) != 0 {
                cx.b.execution_mode(fn_id, ExecutionMode::EarlyFragmentTests, []);
            }
            let mut seen = Vec::new();
            for mode in modes {
                if !seen.contains(&mode) {
                    seen.push(mode);
                    cx.b.execution_mode(fn_id, mode, []);
                }
            }
        }
        ShaderKind::Hull | ShaderKind::Domain | ShaderKind::Geometry => {
            execution_modes(&mut cx, fn_id, &sm, ep, options)?
        }
        _ => {}
    }
    let bindings = match &layout {
        None if options.placement.is_some() => Vec::new(),
        None => {
            let mut rows = mapping_with_counters(&ep.resources, &default_placement, |r| uav_counted(r));
            // The vendor magic UAVs are consumed by their lowerings: nothing is declared
            // there, and a layer must bind nothing.
            rows.retain(|row| !is_vendor_magic_register(&options.vendor, row.class, row.space, row.lower_bound));
            rows
        }
        Some(report) => report
            .resources
            .iter()
            .filter_map(|r| match r.place {
                Place::Descriptor { set, binding, first_register, counter, .. } => {
                    let lower_bound = ep.resources.by_id(r.class, r.id).map_or(0, |d| d.lower_bound);
                    Some(MappingRow {
                        register: r.resource.register.clone(),
                        name: r.resource.name.clone(),
                        count: r.count,
                        set,
                        binding,
                        class: r.class,
                        space: r.resource.space,
                        lower_bound,
                        array_element: lower_bound.saturating_sub(first_register),
                        counter: counter.map(|(set, binding)| VkBinding { set, binding }),
                    })
                }
                _ => None,
            })
            .collect(),
    };
    let words = cx.b.assemble().map_err(Error::from)?;
    Ok(Translation { words, stage: sm.kind, entry_point: entry_name, bindings, layout })
}

/// Placement by the layer: asks the layer about every range `ep` declares (in class, then
/// range id order), and checks each answer against the range and the layer's push layout
/// and shader record.
fn layer_binder(
    m: &Module,
    func: &crate::ir::Function,
    ep: &EntryPoint,
    stage: ShaderKind,
    placement: &Placement,
    vendor: &super::VendorFeatures,
) -> Result<Binder> {
    use crate::dxil::DxOp;
    use crate::dxil::ResourceClass;
    // UAVs whose counter the shader uses, besides those declared with one.
    let counted = crate::dxil::handles::handle_targets(m, func, &ep.resources, |op, _| op == DxOp::BufferUpdateCounter);
    let mut places = std::collections::BTreeMap::new();
    // The layer is not asked for the vendor magic UAVs: nothing is declared there.
    for r in ep.resources.iter().filter(|r| !is_vendor_magic_uav(r, vendor)) {
        let counter = r.class == ResourceClass::Uav
            && (r.uav.is_some_and(|u| u.has_counter) || counted.contains(&(r.class, r.id)));
        let bad = |reason: String| Error::Placement { register: r.register(), reason };
        let a = placement.ask(stage, r, false, counter).ok_or_else(|| bad("the layer declined it".into()))?;
        check_layer_answer(r, &a, placement, counter).map_err(bad)?;
        places.insert((r.class, r.id), a);
    }
    Ok(Binder::Layer { placement: placement.clone(), stage, places })
}

/// Why the layer's answer `a` cannot serve range `r`, if it cannot.
fn check_layer_answer(
    r: &crate::dxil::Resource,
    a: &ResourcePlace,
    placement: &Placement,
    counter: bool,
) -> std::result::Result<(), String> {
    use crate::dxil::{ResourceClass, ResourceKind};
    if !location_allows(&a.location, r.class) {
        return Err(format!("a {} cannot be at {:?}", r.class.name(), a.location));
    }
    let push = placement.push;
    let words_start = 8 * push.addresses;
    let in_words = |offset: u32, n: u32| {
        offset >= words_start && offset.is_multiple_of(4) && offset.saturating_add(4 * n) <= push.size()
    };
    let in_record = |offset: u32, n: u32| offset.is_multiple_of(4) && offset.saturating_add(n) <= placement.record_size;
    match a.location {
        Location::RootAddress { offset } if offset % 8 != 0 || offset + 8 > words_start => {
            return Err(format!(
                "root address at push-constant byte {offset}: not one of the layer's {} addresses",
                push.addresses
            ));
        }
        Location::RootConstants { offset } if !in_words(offset, 1) => {
            return Err(format!("root constants at push-constant byte {offset}: outside the layer's words"));
        }
        Location::Heap { table: Some(TableOffset::Push { offset }), .. } if !in_words(offset, 1) => {
            return Err(format!("table offset at push-constant byte {offset}: outside the layer's words"));
        }
        Location::Heap { table: Some(TableOffset::Record { offset, shift }), .. }
            if !in_record(offset, 4) || shift > 31 =>
        {
            return Err(format!("table offset at shader-record byte {offset} (shift {shift}): outside the record"));
        }
        Location::RecordAddress { offset } if !in_record(offset, 8) => {
            return Err(format!("root address at shader-record byte {offset}: outside the record"));
        }
        Location::RecordConstants { offset } if !in_record(offset, 4) => {
            return Err(format!("root constants at shader-record byte {offset}: outside the record"));
        }
        Location::Heap { table: None, .. } => {
            return Err("a declared range in a heap needs a table offset (only SM 6.6 heap accesses have none)".into());
        }
        _ => {}
    }
    if a.view == BufferView::AddressTable
        && !(r.class == ResourceClass::Srv && r.kind == ResourceKind::RTAccelerationStructure)
    {
        return Err("only acceleration structures can be read from an address table".into());
    }
    offsets_allowed(r, a)?;
    match (counter, a.counter, a.location) {
        (true, None, _) => return Err("the UAV's counter is used, and the layer gave it none".into()),
        (_, Some(CounterPlace::Binding { .. }), Location::Heap { .. }) => {
            return Err("a UAV in a heap needs its counters in a heap too".into())
        }
        (_, Some(CounterPlace::Heap { .. } | CounterPlace::AddressTable { .. }), loc)
            if !matches!(loc, Location::Heap { .. }) =>
        {
            return Err("counters in a heap need the UAV in a heap too".into())
        }
        _ => {}
    }
    Ok(())
}

/// [`Options::output_swizzles`], each checked to be a permutation of the four components.
fn check_output_swizzles(swizzles: &[[u8; 4]]) -> Result<Vec<[u8; 4]>> {
    for (n, s) in swizzles.iter().enumerate() {
        let mut seen = 0u8;
        for &k in s {
            seen |= 1u8.checked_shl(k as u32).unwrap_or(0);
        }
        if seen != 0b1111 {
            return Err(Error::Options {
                option: "output_swizzles",
                message: format!("render target {n}: {s:?} is not a permutation of the components 0..=3"),
            });
        }
    }
    Ok(swizzles.to_vec())
}

/// The interface facts of `ep`'s stage (per-vertex array lengths, streams, tessellation
/// factor rules).
fn stage_io(sm: &ShaderModel, ep: &EntryPoint) -> Result<StageIo> {
    let missing = |what: &str| malformed(Subject::Stage(sm.kind), format!("{} shader without {what}", sm.profile));
    let p = &ep.properties;
    Ok(match sm.kind {
        ShaderKind::Hull => StageIo::hull(p.hull.as_ref().ok_or_else(|| missing("HS state"))?)?,
        ShaderKind::Domain => StageIo::domain(p.domain.as_ref().ok_or_else(|| missing("DS state"))?)?,
        ShaderKind::Geometry => StageIo::geometry(p.geometry.as_ref().ok_or_else(|| missing("GS state"))?)?,
        ShaderKind::Mesh => StageIo::mesh(p.mesh.as_ref().ok_or_else(|| missing("MS state"))?)?,
        ShaderKind::Amplification => {
            StageIo::amplification(p.amplification.as_ref().ok_or_else(|| missing("AS state"))?)?
        }
        _ => StageIo::default(),
    })
}

/// Execution modes (and capabilities) of a hull, domain, geometry, mesh or amplification
/// shader's entry point (`stage/*`).
fn execution_modes(
    cx: &mut ModuleBuilder<'_>,
    entry: Word,
    sm: &ShaderModel,
    ep: &EntryPoint,
    options: &Options,
) -> Result<()> {
    let missing = |what: &str| malformed(Subject::Stage(sm.kind), format!("{} shader without {what}", sm.profile));
    let p = &ep.properties;
    match sm.kind {
        ShaderKind::Hull => cx.hull_modes(
            entry,
            p.hull.as_ref().ok_or_else(|| missing("HS state"))?,
            options.tess_domain_origin == TessDomainOrigin::UpperLeft,
        ),
        ShaderKind::Domain => cx.domain_modes(entry, p.domain.as_ref().ok_or_else(|| missing("DS state"))?),
        ShaderKind::Geometry => cx.geometry_modes(entry, p.geometry.as_ref().ok_or_else(|| missing("GS state"))?),
        ShaderKind::Mesh => cx.mesh_modes(entry, p.mesh.as_ref().ok_or_else(|| missing("MS state"))?),
        ShaderKind::Amplification => {
            cx.amplification_modes(entry, p.amplification.as_ref().ok_or_else(|| missing("AS state"))?)
        }
        _ => Ok(()),
    }
}

/// Whether `r` is a vendor magic UAV the options enable: AGS's (`u0` of its space) or the
/// register NVAPI's slot names. Its calls are intrinsics; nothing is declared or bound there.
fn is_vendor_magic_uav(r: &crate::dxil::Resource, vendor: &super::VendorFeatures) -> bool {
    is_vendor_magic_register(vendor, r.class, r.space, r.lower_bound)
}

fn is_vendor_magic_register(
    vendor: &super::VendorFeatures,
    class: crate::dxil::ResourceClass,
    space: u32,
    lower_bound: u32,
) -> bool {
    let nvapi = vendor.nvapi.is_some_and(|slot| {
        class == crate::dxil::ResourceClass::Uav && slot.space == space && slot.register == lower_bound
    });
    nvapi || (vendor.amd_ags && crate::dxil::ags::is_magic_register(class, space, lower_bound))
}
