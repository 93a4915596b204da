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

use super::binding_model::{mapping, BindingMap, DefaultPlacement, MappingRow, ResourceRemap};
use super::error::{Error, Result};
use super::function::FnEmit;
use super::interface::{Interface, IoRemap};
use super::module::ModuleBuilder;
use super::resources::{Binder, Resources};
use super::stage::{self, TessDomainOrigin};
use super::stream_output::{StreamOutput, XfbState};
use crate::dxil::DxilInfo;
use crate::front::container::ShaderKind;
use crate::ir::Module;
use crate::rootsig::layout::{LayoutOptions, PipelineLayout};
use crate::rootsig::resolve::{Place, ResolvedResource};
use crate::rootsig::RootSignature;
use rspirv::spirv::{self, ExecutionMode, ExecutionModel};

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Overrides of the default binding model (`--binding-map`); unused with a root
    /// signature.
    pub binding_map: BindingMap,
    /// Bind resources through this root signature instead of the default model.
    pub root_signature: Option<RootSignatureBinding>,
    /// When `root_signature` is `None` and the input is a DXBC container with an `RTS0`
    /// part, bind through that root signature, lowered like this (the command line does).
    pub embedded_root_signature: Option<LayoutOptions>,
    /// Places register ranges (and UAV counters) under the default model before the
    /// binding map and the default rule are consulted; unused with a root signature, whose
    /// layout places everything.
    pub resource_remap: Option<ResourceRemap>,
    /// Places the shader's stage inputs and outputs (`Location`, `Component`) instead of
    /// their signature registers.
    pub io_remap: Option<IoRemap>,
    /// D3D12 stream output for the last pre-rasterization stage, lowered to transform
    /// feedback ([`super::stream_output`]).
    pub stream_output: Option<StreamOutput>,
    /// The tessellation domain origin the pipeline will use
    /// (`VkPipelineTessellationDomainOriginStateCreateInfo`): hull shaders' triangle winding
    /// is expressed for it (`docs/stage-interfaces.md`).
    pub tess_domain_origin: TessDomainOrigin,
    /// Pixel shaders of mesh pipelines: the inputs (semantic name, case-insensitive, and
    /// index) the mesh shader writes per primitive, decorated `PerPrimitiveEXT` as Vulkan
    /// requires (D3D's pixel signature does not say which they are).
    pub per_primitive_inputs: Vec<(String, u32)>,
    /// Declare `MaximallyReconvergesKHR` (`SPV_KHR_maximal_reconvergence`): invocations
    /// that diverged at a branch run together again where the structured control flow
    /// merges, as D3D drivers do and as wave operations after an `if` expect. Without it
    /// Vulkan promises no reconvergence (NVIDIA's driver then runs a wave operation after
    /// a merge once per divergent group: `docs/dxil-semantics.md`). The pipeline's device
    /// must enable `shaderMaximalReconvergence` (`VK_KHR_shader_maximal_reconvergence`).
    pub maximal_reconvergence: bool,
    /// Float operations DXIL marks precise (no fast-math flags) carry `FPFastMathMode None`
    /// (`SPV_KHR_float_controls2`) in place of `NoContraction`, and the entry point declares
    /// `FPFastMathDefault None` for their widths (fast operations of those widths then carry
    /// their relaxations). Neither `NoContraction` nor the decoration alone stopped NVIDIA's
    /// compiler from folding `x - (x - 12.25)` to `12.25`; the default did
    /// (`docs/dxil-semantics.md`). The pipeline's device must enable `shaderFloatControls2`
    /// (Vulkan 1.4, `VK_KHR_shader_float_controls2`).
    pub float_controls2: bool,
}

/// A root signature and how to lower it.
#[derive(Clone, Debug)]
pub struct RootSignatureBinding {
    pub signature: RootSignature,
    pub layout: LayoutOptions,
}

/// The layout report (`--layout-json`): everything a translation layer needs to build the
/// `VkPipelineLayout` and fill it, and where each of this shader's resources went.
/// Its JSON schema is documented in `docs/layout-json.md`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LayoutReport {
    /// `"untangle-layout/1"`.
    pub schema: &'static str,
    pub stage: &'static str,
    pub entry_point: String,
    #[serde(flatten)]
    pub layout: PipelineLayout,
    /// Ray-tracing entries with a local root signature: where its arguments are in the
    /// shader record (`rootsig::record`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shader_record: Option<crate::rootsig::record::ShaderRecordLayout>,
    pub resources: Vec<ResolvedResource>,
}

pub const LAYOUT_SCHEMA: &str = "untangle-layout/1";

/// A translated shader.
#[derive(Clone, Debug)]
pub struct Translation {
    pub words: Vec<u32>,
    pub stage: ShaderKind,
    pub entry_point: String,
    /// Where each declared resource landed (descriptor bindings; with a root signature,
    /// see `layout` for push constants and heap tables).
    pub bindings: Vec<MappingRow>,
    /// The lowered root signature and this shader's resources in it (with a root
    /// signature only).
    pub layout: Option<LayoutReport>,
}

/// Translate a module whose DXIL meaning `info` was decoded already: its entry point, or a
/// library's one entry (`stage::ray_tracing` translates libraries by entry).
pub(crate) fn translate_analyzed(m: &Module, info: &DxilInfo, options: &Options) -> Result<Translation> {
    let sm = info.shader_model.clone().ok_or_else(|| Error::NotAShader("no dx.shaderModel".into()))?;
    if sm.kind == ShaderKind::Library {
        let ep = stage::ray_tracing::only_entry(&info.entry_points)?;
        return translate_entry(m, info, ep, options);
    }
    let ep = info
        .entry_points
        .iter()
        .find(|e| e.function.is_some())
        .ok_or_else(|| Error::NotAShader("no entry point with a function".into()))?;
    translate_entry(m, info, ep, options)
}

/// Translate entry point `ep` of a module whose DXIL meaning `info` was decoded already (a
/// library's entry is translated in its own shader kind).
pub(crate) fn translate_entry(
    m: &Module,
    info: &DxilInfo,
    ep: &crate::dxil::EntryPoint,
    options: &Options,
) -> Result<Translation> {
    translate_entry_local(m, info, ep, options, None)
}

/// [`translate_entry`], a ray-tracing entry's resources resolved against local root
/// signature `local` first (its arguments in the shader record), when bound through a
/// root signature.
pub(crate) fn translate_entry_local(
    m: &Module,
    info: &DxilInfo,
    ep: &crate::dxil::EntryPoint,
    options: &Options,
    local: Option<&RootSignature>,
) -> Result<Translation> {
    let mut sm = info.shader_model.clone().ok_or_else(|| Error::NotAShader("no dx.shaderModel".into()))?;
    // Calls to functions with a body (a library's shared functions) are inlined: the
    // module holds what the entry reaches.
    let inlined = match ep.function.map(|f| &m.functions[f]) {
        Some(f) if !f.is_declaration() => crate::passes::inline::inline_calls(m, f)
            .map_err(|e| Error::Unsupported { function: f.name.clone(), message: e.to_string() })?,
        _ => None,
    };
    let library_entry;
    let ep = if sm.kind == ShaderKind::Library {
        sm.kind = stage::ray_tracing::entry_kind(ep)?;
        // The library's entries share its resource table: each binds what it uses.
        let f = inlined.as_ref().or(ep.function.map(|f| &m.functions[f]));
        let resources =
            f.map_or_else(|| ep.resources.clone(), |f| stage::ray_tracing::used_resources(m, f, &ep.resources));
        library_entry = crate::dxil::EntryPoint { resources, ..ep.clone() };
        &library_entry
    } else {
        ep
    };
    let model = match (super::support::stage_support(sm.kind), sm.kind) {
        (None, ShaderKind::Compute | ShaderKind::Node) => ExecutionModel::GLCompute,
        (None, ShaderKind::Pixel) => ExecutionModel::Fragment,
        (None, ShaderKind::Vertex) => ExecutionModel::Vertex,
        (None, ShaderKind::Hull) => ExecutionModel::TessellationControl,
        (None, ShaderKind::Domain) => ExecutionModel::TessellationEvaluation,
        (None, ShaderKind::Geometry) => ExecutionModel::Geometry,
        (None, ShaderKind::Mesh) => ExecutionModel::MeshEXT,
        (None, ShaderKind::Amplification) => ExecutionModel::TaskEXT,
        (None, k) if stage::ray_tracing::is_ray_stage(k) => {
            stage::ray_tracing::execution_model(k).ok_or(Error::UnsupportedStage { stage: sm.profile.clone() })?
        }
        _ => return Err(Error::UnsupportedStage { stage: sm.profile.clone() }),
    };
    let fid = ep.function.ok_or_else(|| Error::NotAShader("entry point without a function".into()))?;
    let func = inlined.as_ref().unwrap_or(&m.functions[fid]);
    if func.is_declaration() {
        return Err(Error::NotAShader(format!("entry point `{}` has no body", func.name)));
    }
    if ep.name.contains('\0') {
        return Err(Error::Malformed("entry point name contains NUL".into()));
    }
    super::validate::entry_point(ep, sm.kind)?;
    // The structurizer's input check computes the dominator tree the dominance check needs:
    // once for both.
    let (cfg_check, dom) = crate::cfg::Cfg::check_keeping_dominators(func);
    super::typecheck::function_with_dominators(m, func, dom.as_ref())?;
    drop(dom);
    // Derivatives in divergent control flow are computed where the whole quad runs
    // (`crate::rewrite::derivative_hoisting`); the stages with derivatives only.
    let hoisted = match sm.kind {
        ShaderKind::Pixel | ShaderKind::Compute | ShaderKind::Mesh | ShaderKind::Amplification | ShaderKind::Node => {
            crate::rewrite::derivative_hoisting::run(m, func)
        }
        _ => None,
    };
    // Hoisting moves instructions, not edges; the check is reused for the function it ran on.
    let cfg_check = hoisted.is_none().then_some(cfg_check);
    let func = hoisted.as_ref().map_or(func, |h| &h.function);
    let xfb = match &options.stream_output {
        Some(so) => Some(so.plan(sm.kind, &ep.signatures.outputs).map_err(Error::from)?),
        None => None,
    };
    let default_placement =
        DefaultPlacement { stage: sm.kind, map: options.binding_map.clone(), remap: options.resource_remap.clone() };

    let mut cx = ModuleBuilder::new(m);
    cx.float_controls2 = options.float_controls2;
    let (binder, layout) = match &options.root_signature {
        None => (Binder::Default(default_placement.clone()), None),
        Some(rsb) => {
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
            let resolved = match (local, &record) {
                (Some(l), Some(rec)) => {
                    crate::rootsig::record::resolve(&global, &layout, l, rec, sm.kind, ep.resources.iter())
                }
                _ => crate::rootsig::resolve::resolve_all(&rsb.signature, &layout, sm.kind, ep.resources.iter()),
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
                entry_point: stage::ray_tracing::export_name(&ep.name).to_string(),
                layout,
                shader_record: record,
                resources: resolved,
            };
            (binder, Some(report))
        }
    };
    let mut res = Resources::new(ep.resources.clone(), binder);
    res.atomic_uavs = crate::dxil::handles::atomic_uavs(m, func, &ep.resources);
    let mut iface = Interface::default();
    if stage::ray_tracing::is_ray_stage(sm.kind) {
        iface.ray = Some(stage::ray_tracing::prepare(&mut cx, m, func, sm.kind)?);
    }
    if sm.kind == ShaderKind::Node {
        // The node's push constants follow the root signature's, in its one block.
        let place = match layout.as_ref().map(|l| l.layout.push_constants.size).filter(|&s| s > 0) {
            Some(size) => {
                res.node_push_offset = Some(stage::node::push_offset_after(size));
                let (var, first_member) = res.node_push_block(&mut cx)?;
                stage::node::PushPlace::Root { var, first_member }
            }
            None => stage::node::PushPlace::Own,
        };
        let node = stage::node::prepare(&mut cx, ep, place)?;
        res.node_record = Some((node.push, node.push_first_member + stage::node::Push::LocalRootArguments as u32));
        iface.node = Some(node);
    }
    iface.remap = options.io_remap.clone();
    iface.stage = stage::stage_io(&sm, ep)?;
    if sm.kind == ShaderKind::Pixel {
        iface.stage.per_vertex_inputs = stage::pixel::per_vertex_inputs(m, func);
        iface.stage.per_primitive_inputs = options.per_primitive_inputs.clone();
    }
    iface.xfb = xfb.map(XfbState::new);
    let (fn_id, derivatives, captures) = match sm.kind {
        ShaderKind::Hull => {
            let hs =
                ep.properties.hull.as_ref().ok_or_else(|| Error::Malformed("hull shader without HS state".into()))?;
            let pc = hs.patch_constant_function.map(|f| &m.functions[f]);
            if let Some(pc) = pc.filter(|f| !f.is_declaration()) {
                super::typecheck::function(m, pc)?;
                res.atomic_uavs.extend(crate::dxil::handles::atomic_uavs(m, pc, &ep.resources));
            }
            (stage::hull::emit_entry(&mut cx, &mut res, &sm, ep, func, pc, &mut iface, cfg_check)?, false, false)
        }
        ShaderKind::Node => {
            let name = stage::ray_tracing::export_name(&ep.name);
            let body_name = format!("{name}.body");
            let (body, derivatives, _) =
                emit_function(&mut cx, &mut res, &sm, &ep.signatures, func, &mut iface, &body_name, cfg_check)?;
            (stage::node::emit_entry(&mut cx, &mut iface, name, body)?, derivatives, false)
        }
        _ => emit_function(
            &mut cx,
            &mut res,
            &sm,
            &ep.signatures,
            func,
            &mut iface,
            stage::ray_tracing::export_name(&ep.name),
            cfg_check,
        )?,
    };
    let modes = std::mem::take(&mut iface.modes);
    if sm.kind == ShaderKind::Amplification {
        stage::amplification::define_unused_payload(&mut cx, &mut iface.mesh);
    }

    let interface = cx.interface.clone();
    let entry_name = stage::ray_tracing::export_name(&ep.name).to_string();
    cx.b.entry_point(model, fn_id, entry_name.as_str(), interface);
    cx.finish_float_controls(fn_id);
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
                        stage::node::local_size(cx.m, ep)
                    } else {
                        ep.properties.num_threads.unwrap_or([1, 1, 1])
                    };
                    cx.b.execution_mode(fn_id, ExecutionMode::LocalSize, n);
                    n
                }
                _ => {
                    stage::execution_modes(&mut cx, fn_id, &sm, ep, options.tess_domain_origin)?;
                    let state = ep.properties.mesh.as_ref().map(|m| m.num_threads);
                    state.or(ep.properties.amplification.as_ref().map(|a| a.num_threads)).unwrap_or([1, 1, 1])
                }
            };
            if derivatives {
                if (x * y * z) % 4 != 0 {
                    // D3D requires it of compute shaders with derivatives (quads or groups of 4).
                    return Err(Error::Malformed(format!(
                        "derivatives in a compute shader of {x}x{y}x{z} threads (a multiple of 4 is required)"
                    )));
                }
                // D3D: quads of 2x2 threads when the group is two-dimensional with even
                // sides, else groups of 4 consecutive threads.
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
            stage::execution_modes(&mut cx, fn_id, &sm, ep, options.tess_domain_origin)?
        }
        _ => {}
    }
    let bindings = match &layout {
        None => mapping(&ep.resources, &default_placement),
        Some(report) => report
            .resources
            .iter()
            .filter_map(|r| match r.place {
                Place::Descriptor { set, binding, .. } => Some(MappingRow {
                    register: r.register.clone(),
                    name: r.name.clone(),
                    count: r.count,
                    set,
                    binding,
                    class: r.class,
                    space: r.space,
                    lower_bound: ep.resources.by_id(r.class, r.id).map_or(0, |d| d.lower_bound),
                }),
                _ => None,
            })
            .collect(),
    };
    let words = cx.b.assemble().map_err(Error::from)?;
    Ok(Translation { words, stage: sm.kind, entry_point: entry_name, bindings, layout })
}

/// Emits DXIL function `func` as a SPIR-V function named `name` (structurized first);
/// returns its id, whether it uses derivatives and whether it captures stream output
/// (`super::stream_output`). `iface` is shared by every function of the entry point;
/// `cfg_check` is [`crate::cfg::Cfg::check`] of `func` if the caller ran it already.
#[allow(clippy::too_many_arguments)]
pub(super) fn emit_function<'m>(
    cx: &mut ModuleBuilder<'m>,
    res: &mut Resources,
    sm: &crate::dxil::ShaderModel,
    sigs: &crate::dxil::Signatures,
    func: &'m crate::ir::Function,
    iface: &mut Interface,
    name: &str,
    cfg_check: Option<Result<(), crate::cfg::CfgError>>,
) -> Result<(spirv::Word, bool, bool)> {
    let structured = crate::passes::structurize_checked(func, crate::passes::Options::default(), cfg_check)?;
    let void = cx.void();
    let fn_void = cx.b.type_function(void, []);
    let fn_id = cx.b.begin_function(void, None, spirv::FunctionControl::NONE, fn_void).map_err(Error::from)?;
    if !name.contains('\0') {
        cx.b.name(fn_id, name);
    }
    let (exits, derivatives, captures) = {
        let mut fe = FnEmit::new(cx, res, sm, func, sigs, &structured.scfg)?;
        fe.iface = std::mem::take(iface);
        let body = fe.emit_body().and_then(|_| fe.finish_stream_output());
        *iface = std::mem::take(&mut fe.iface);
        let captures = body?;
        (std::mem::take(&mut fe.exit_labels), fe.uses_derivatives, captures)
    };
    cx.b.end_function().map_err(Error::from)?;
    if !exits.is_empty() {
        fix_phi_parents(cx, &exits);
    }
    Ok((fn_id, derivatives, captures))
}

/// `OpPhi` operands name predecessors by label; a block split by `split_if` ends in its last
/// part, so PHIs that name the block's entry label are redirected there.
fn fix_phi_parents(cx: &mut ModuleBuilder<'_>, exits: &crate::ir::hash::HashMap<u32, u32>) {
    let words = cx.b.current_function_words_mut();
    let mut at = 0;
    while at < words.len() {
        let len = ((words[at] >> 16) as usize).max(1);
        let end = (at + len).min(words.len());
        if words[at] & 0xffff == spirv::Op::Phi as u32 {
            // Result type, result id, then (value, parent) pairs.
            for parent in words[at..end].iter_mut().skip(4).step_by(2) {
                if let Some(&n) = exits.get(parent) {
                    *parent = n;
                }
            }
        }
        at = end;
    }
}
