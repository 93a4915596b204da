//! The untangle path: a DXIL converter run done by untangle instead of dxil-spirv.
//!
//! [`run`] gets everything the application told the converter ([`ConverterSetup`]: entry
//! point, decoded options, root constant and descriptor counts, local root parameters, root
//! parameter mappings, meta descriptors, patch location offset) and the converter's
//! [`Remapper`], through which it asks the application's callbacks where resources and
//! stage I/O go (each question reaches the application at most once; see `remap`). It
//! answers with the module and the facts the converter's getters report ([`RunOutput`]), or
//! a [`Refusal`]: the status `dxil_spv_converter_run` returns, a short reason (the exit
//! summary counts refusals by it) and a message for the log.
//!
//! # From dxil-spirv's binding contract to untangle's placement by the layer
//!
//! untangle's [`untangle::emit::placement`] asks one question per declared range (and one
//! per SM 6.6 heap kind); each becomes the callback question dxil-spirv would ask
//! ([`binding::d3d_binding`]) and its answer a placement ([`binding`]): plain descriptors,
//! bindless heap arrays indexed by a push-constant word (`root_constant_index` words after
//! the root descriptors' addresses) plus `heap_root_offset`, root descriptors through their
//! buffer device addresses, root constants, UAV counters and acceleration structures
//! through the raw-address table, and the shader record's local root arguments. Stage I/O
//! keeps untangle's location rule, which is dxil-spirv's (start row, start column, patch
//! constants after the control points, geometry streams after each other); installed
//! callbacks answer in its place ([`io`]). Every SPIR-V entry point is called `main`.

mod binding;
mod io;

use crate::blob::NativeBlob;
use crate::ffi::*;
use crate::options::{ConverterSetup, Opt};
use crate::remap::Remapper;
use std::sync::{Arc, Mutex};
use untangle::front::container::ShaderKind;

/// What a run has to work with.
pub struct RunInput<'a> {
    pub blob: &'a NativeBlob,
    pub setup: &'a ConverterSetup,
    pub remap: &'a mut Remapper,
}

/// A successful run: the module and what the converter's getters report after it (the
/// meaning of each is dxil-spirv's; see the header's comments).
#[derive(Clone, Debug, Default)]
pub struct RunOutput {
    pub spirv: Vec<u32>,
    /// `dxil_spv_converter_get_compiled_entry_point`: the entry's DXIL name.
    pub compiled_entry_point: String,
    pub uses_subgroup_size: bool,
    pub workgroup_size: [u32; 3],
    pub wave_size_min: u32,
    pub wave_size_max: u32,
    pub wave_size_preferred: u32,
    pub heuristic_min_wave_size: u32,
    pub heuristic_max_wave_size: u32,
    pub patch_vertex_count: u32,
    /// `dxil_spv_converter_get_patch_location_offset` after the run.
    pub patch_location_offset: u32,
    pub multiview_compatible: bool,
    pub analysis_warnings: Option<String>,
    /// `dxil_spv_converter_uses_shader_feature(NATIVE_16BIT_OPERATIONS)`.
    pub native_16bit_operations: bool,
}

/// A run untangle declines.
#[derive(Clone, Debug)]
pub struct Refusal {
    /// What `dxil_spv_converter_run` returns.
    pub result: dxil_spv_result,
    /// A short, shader-independent reason (the summary's key).
    pub reason: String,
    /// The log message.
    pub message: String,
}

impl Refusal {
    fn new(result: dxil_spv_result, reason: &str, message: impl Into<String>) -> Refusal {
        Refusal { result, reason: reason.into(), message: message.into() }
    }
}

/// The remapper while untangle translates: untangle's callbacks are `Send + Sync`, the
/// application's are plain C function pointers with user data. Translation runs on the
/// calling thread and calls back synchronously, so the pointers never cross threads.
struct Shared(Mutex<Remapper>);

// SAFETY: see the type's documentation: only the thread that owns the converter calls
// untangle, and untangle calls these callbacks on that thread, during the run.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    fn with<T>(&self, f: impl FnOnce(&mut Remapper) -> T) -> T {
        let mut guard = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }
}

/// Translates the blob's entry point (or the one `setup.entry_point` names).
pub fn run(input: RunInput<'_>) -> Result<RunOutput, Refusal> {
    let RunInput { blob, setup, remap } = input;
    let shader = &blob.shader;
    let entry = match &setup.entry_point {
        Some(name) => blob.entry_index(name).ok_or_else(|| {
            Refusal::new(
                DXIL_SPV_ERROR_GENERIC,
                "unknown entry point",
                format!("Could not find entry point \"{name}\"."),
            )
        })?,
        None => 0,
    };
    let native = blob.entries.get(entry).ok_or_else(|| {
        Refusal::new(DXIL_SPV_ERROR_GENERIC, "no entry point", "the DXIL module has no entry point with a function")
    })?;
    let mangled = native.mangled.to_string_lossy().into_owned();
    let ep = shader
        .entry_points()
        .iter()
        .find(|e| e.function.is_some() && e.name == mangled)
        .ok_or_else(|| Refusal::new(DXIL_SPV_ERROR_GENERIC, "no entry point", format!("no entry `{mangled}`")))?;
    let kind = match shader.stage() {
        ShaderKind::Library => ep.properties.shader_kind.unwrap_or(ShaderKind::Invalid),
        k => k,
    };
    unsupported_options(setup, kind)?;
    if ep.properties.node.is_some() {
        // dxil-spirv's node modules follow vkd3d-proton's work-graph runtime (its push
        // constants and specialization constants, `crate::nodes`); untangle's follow
        // docs/work-graphs.md. Handing one to the layer would run wrong.
        return Err(Refusal::new(
            DXIL_SPV_ERROR_UNSUPPORTED_FEATURE,
            "work-graph node",
            format!("entry `{mangled}` is a work-graph node: dxil-spirv's node interface (vkd3d-proton's work-graph runtime) is not implemented by untangle"),
        ));
    }

    let stream_output = io::stream_output(ep, kind, remap)?;
    let shared = Arc::new(Shared(Mutex::new(std::mem::take(remap))));
    let refusals: Arc<Mutex<Vec<String>>> = Arc::default();
    let mut options = untangle::Options {
        entry_point_name: Some("main".into()),
        placement: Some(binding::placement(setup, kind, crate::blob::stage_of(kind), shared.clone(), refusals.clone())),
        io_remap: Some(io::remap(setup, shared.clone())),
        stream_output,
        // dxil-spirv has one feedback-map encoding, no option: the one vkd3d-proton's
        // feedback images and resolve passes are built for.
        sampler_feedback: Some(untangle::SamplerFeedbackEncoding::Vkd3dProton),
        ..Default::default()
    };
    if let Some(Opt::QuadControlReconvergence { supports_maximal_reconvergence: true, .. }) =
        setup.last(|o| matches!(o, Opt::QuadControlReconvergence { .. }))
    {
        options.maximal_reconvergence = true;
    }
    if let Some(Opt::DualSourceBlending { enabled }) = setup.last(|o| matches!(o, Opt::DualSourceBlending { .. })) {
        options.dual_source_blending = *enabled && kind == ShaderKind::Pixel;
    }
    if let Some(Opt::InvariantPosition { enabled }) = setup.last(|o| matches!(o, Opt::InvariantPosition { .. })) {
        options.invariant_position = *enabled;
    }
    if let Some(Opt::StrictHelperLaneWaveOps { enable }) =
        setup.last(|o| matches!(o, Opt::StrictHelperLaneWaveOps { .. }))
    {
        options.strict_helper_lane_wave_ops = *enable;
    }
    // The count itself, or (spec_constant) the id of the specialization constant holding it.
    if let Some(Opt::RasterizerSampleCount { sample_count, spec_constant }) =
        setup.last(|o| matches!(o, Opt::RasterizerSampleCount { .. }))
    {
        if *spec_constant {
            options.render_target_sample_count = None;
            options.render_target_sample_count_spec_id = *sample_count;
        } else {
            options.render_target_sample_count = Some(*sample_count);
        }
    }
    // dxil-spirv computes minimum precision in 32 bits unless the layer says the device has
    // native 16-bit arithmetic (vkd3d-proton does when `Native16BitShaderOpsSupported`).
    options.min_precision = match setup.last(|o| matches!(o, Opt::MinPrecisionNative16bit { .. })) {
        Some(Opt::MinPrecisionNative16bit { enabled: true }) => untangle::MinPrecision::Native16Bit,
        _ => untangle::MinPrecision::Float32,
    };
    options.view_instancing = view_instancing(setup);
    if let Some(Opt::ShaderRayTracingPrimitiveCulling { supported }) =
        setup.last(|o| matches!(o, Opt::ShaderRayTracingPrimitiveCulling { .. }))
    {
        options.ray_traversal_primitive_culling = *supported;
    }
    // dxil-spirv always decodes AGS's magic UAV (and loads `DrawIndex` for it) and always
    // lowers AGS WMMA to `VK_KHR_cooperative_matrix`: the layer learns of it from the
    // module's `CooperativeMatrixKHR` capability (vkd3d-proton's
    // `VKD3D_SHADER_META_FLAG_USES_COOPERATIVE_MATRIX`) and refuses the pipeline on a device
    // without `cooperativeMatrix`. Its FLOAT8_SUPPORT option says the device has float8
    // cooperative matrices (`wmma_fp8`: `Float8CooperativeMatrixEXT`, the `_FP8` flag) and
    // NV cooperative matrix 2's conversions (without them an accumulator becomes an A or B
    // matrix through groupshared memory, as in dxil-spirv).
    options.vendor.amd_ags = true;
    options.vendor.draw_parameters = true;
    // dxil-spirv has no option for 64-bit image atomics: it declares an AGS 64-bit atomic's
    // texture target `R64ui` (`Int64ImageEXT`) whatever the device, as it does SM 6.6's
    // 64-bit typed atomics, which vkd3d-proton exposes only with `shaderImageInt64Atomics`.
    options.vendor.image_int64_atomics = true;
    options.vendor.cooperative_matrix = true;
    if let Some(Opt::Float8Support { wmma_fp8, nv_cooperative_matrix2_conversions }) =
        setup.last(|o| matches!(o, Opt::Float8Support { .. }))
    {
        options.vendor.float8 = *wmma_fp8;
        options.vendor.cooperative_matrix2 = *nv_cooperative_matrix2_conversions;
    }
    // dxil-spirv's PHYSICAL_STORAGE_BUFFER option: vkd3d-proton sets it when the device has
    // `bufferDeviceAddress` (its `bda` path), which AGS's loads from raw GPU addresses and
    // WMMA global loads and stores need.
    if let Some(Opt::PhysicalStorageBuffer { enable }) = setup.last(|o| matches!(o, Opt::PhysicalStorageBuffer { .. }))
    {
        options.vendor.buffer_device_address = *enable;
    }
    // dxil-spirv's BARYCENTRIC_KHR option says the device has
    // `VK_KHR_fragment_shader_barycentric` (AGS barycentrics and vertex parameters).
    if let Some(Opt::BarycentricKhr { supported }) = setup.last(|o| matches!(o, Opt::BarycentricKhr { .. })) {
        options.vendor.fragment_shader_barycentric = *supported;
    }
    // dxil-spirv's NVAPI option names the magic UAV's register (vkd3d-proton passes the slot
    // the application set); without it that UAV is an ordinary one.
    if let Some(Opt::Nvapi { enabled: true, register_index, register_space }) =
        setup.last(|o| matches!(o, Opt::Nvapi { .. }))
    {
        options.vendor.nvapi = Some(untangle::NvapiSlot { register: *register_index, space: *register_space });
        // dxil-spirv lowers NVAPI's hit objects to `SPV_NV_shader_invocation_reorder`
        // whenever its NVAPI option is on; it has no option of their own.
        options.vendor.invocation_reorder = true;
    }
    // dxil-spirv's FORCE_SUBGROUP_SIZE: WaveGetLaneCount() becomes the forced value (0: off).
    if let Some(Opt::ForceSubgroupSize { forced_value, .. }) =
        setup.last(|o| matches!(o, Opt::ForceSubgroupSize { .. }))
    {
        options.wave_lane_count = (*forced_value > 0).then_some(*forced_value);
    }
    // 0 leaves the factors alone, as in dxil-spirv.
    if let Some(Opt::MaxTessFactor { max_tess_factor }) = setup.last(|o| matches!(o, Opt::MaxTessFactor { .. })) {
        options.max_tess_factor = (*max_tess_factor > 0).then_some(*max_tess_factor as f32);
    }
    if kind == ShaderKind::Pixel {
        options.per_primitive_inputs = io::per_primitive_inputs(ep, &shared);
        if let Some(Opt::OutputSwizzle { swizzles, .. }) = setup.last(|o| matches!(o, Opt::OutputSwizzle { .. })) {
            options.output_swizzles = swizzles.iter().map(|&s| output_swizzle(s)).collect();
        }
    }
    let result = if shader.stage() == ShaderKind::Library {
        shader.translate_entry(blob::demangled_or(&mangled), &options)
    } else {
        shader.translate(&options)
    };
    drop(options);
    *remap = match Arc::try_unwrap(shared) {
        Ok(s) => s.0.into_inner().unwrap_or_else(|p| p.into_inner()),
        Err(s) => s.with(std::mem::take),
    };
    let translation = result.map_err(|e| {
        let declined = refusals.lock().map(|r| r.join("; ")).unwrap_or_default();
        let message = if declined.is_empty() { e.to_string() } else { format!("{e} ({declined})") };
        // A device feature the layer did not grant (float8 cooperative matrices without
        // FLOAT8_SUPPORT's `wmma_fp8`): an unsupported feature, counted under its name.
        let result =
            if missing_feature(&e).is_some() { DXIL_SPV_ERROR_UNSUPPORTED_FEATURE } else { DXIL_SPV_ERROR_GENERIC };
        Refusal::new(result, refusal_reason(&e), message)
    })?;
    Ok(reflect(shader, ep, kind, setup, mangled, translation.words))
}

mod blob {
    /// The name untangle's `translate_entry` takes for a library entry: its demangled
    /// export name.
    pub fn demangled_or(mangled: &str) -> &str {
        crate::blob::demangle(mangled)
    }
}

/// `DXIL_SPV_OPTION_VIEW_INSTANCING` (the last one added) as untangle's option: the spec
/// constant ids (`UINT32_MAX`: none) and, as the offsets buffer, the
/// `DYNAMIC_VIEW_INSTANCING_OFFSETS` meta descriptor when it is a UBO holding the constant
/// (vkd3d-proton sets a dummy one at (0, 0) with every multiview pipeline, which the module
/// reads only when it cannot use multiview, and then `is_multiview_compatible` is false).
fn view_instancing(setup: &ConverterSetup) -> Option<untangle::ViewInstancing> {
    let Some(Opt::ViewInstancing {
        enabled: true,
        last_pre_rasterization_stage,
        view_index_to_view_instance_spec_id,
        view_instance_to_viewport_spec_id,
    }) = setup.last(|o| matches!(o, Opt::ViewInstancing { .. }))
    else {
        return None;
    };
    let spec = |id: u32| (id != u32::MAX).then_some(id);
    let offsets = meta_descriptor(setup, DXIL_SPV_META_DESCRIPTOR_DYNAMIC_VIEW_INSTANCING_OFFSETS)
        .filter(|m| m.kind == DXIL_SPV_META_DESCRIPTOR_KIND_UBO_CONTAINING_CONSTANT)
        .map(|m| (m.desc_set, m.binding_or_push_index));
    Some(untangle::ViewInstancing {
        last_pre_rasterization: *last_pre_rasterization_stage,
        view_index_to_view_id_spec_id: spec(*view_index_to_view_instance_spec_id),
        view_id_to_viewport_spec_id: spec(*view_instance_to_viewport_spec_id),
        offsets_buffer: offsets,
    })
}

/// The meta descriptor `meta` as last set, unless it was set to kind `INVALID`.
fn meta_descriptor(setup: &ConverterSetup, meta: dxil_spv_meta_descriptor) -> Option<&crate::options::MetaDescriptor> {
    setup
        .meta_descriptors
        .iter()
        .rev()
        .find(|m| m.meta == meta)
        .filter(|m| m.kind != DXIL_SPV_META_DESCRIPTOR_KIND_INVALID)
}

/// One `DXIL_SPV_OPTION_OUTPUT_SWIZZLE` entry (2 bits per component, `x` lowest: the
/// attachment component `k` reads the shader's component `(s >> 2k) & 3`).
fn output_swizzle(s: u32) -> [u8; 4] {
    [0, 1, 2, 3].map(|k| ((s >> (2 * k)) & 3) as u8)
}

/// The Vulkan feature (and extension) a vendor intrinsic needs and the options did not
/// grant.
fn missing_feature(e: &untangle::Error) -> Option<&'static str> {
    match e {
        untangle::Error::Translate(untangle::emit::Error::VendorExtension {
            reason: untangle::VendorRefusal::MissingFeature { feature, .. },
            ..
        }) => Some(feature),
        _ => None,
    }
}

/// A short, shader-independent key for the summary (a missing vendor feature: its name).
fn refusal_reason(e: &untangle::Error) -> &'static str {
    use untangle::Error as E;
    if let Some(feature) = missing_feature(e) {
        return feature;
    }
    match e {
        E::Translate(t) => match t {
            untangle::emit::Error::UnsupportedOp { .. } => "unsupported DXIL operation",
            untangle::emit::Error::UnsupportedForm { .. } => "unsupported form",
            untangle::emit::Error::Unsupported { .. } => "unsupported instruction",
            untangle::emit::Error::UnsupportedStage { .. } => "unsupported stage",
            untangle::emit::Error::Placement { .. } => "resource placement",
            untangle::emit::Error::VendorExtension { .. } => "vendor extension",
            untangle::emit::Error::NewerOperation(_) => "DXIL operation newer than DXIL 1.9",
            untangle::emit::Error::Malformed { .. } | untangle::emit::Error::Invalid { .. } => "malformed DXIL",
            _ => "translation error",
        },
        E::Structurize(_) | E::Cfg(_) => "control flow",
        E::Dxil(untangle::dxil::Error::NewerOperation { .. }) => "DXIL operation newer than DXIL 1.9",
        E::Dxil(_) => "malformed DXIL metadata",
        _ => "input",
    }
}

/// Options this path cannot honour yet, refused by name (dxil-spirv would change the
/// module for them; translating without would not give the application what it asked).
fn unsupported_options(setup: &ConverterSetup, kind: ShaderKind) -> Result<(), Refusal> {
    let refuse = |what: &str| {
        Err(Refusal::new(
            DXIL_SPV_ERROR_UNSUPPORTED_FEATURE,
            &format!("option {what}"),
            format!("untangle does not implement the option {what} yet"),
        ))
    };
    for o in &setup.options {
        match o {
            Opt::RootConstantInlineUniformBlock { enable: true, .. } => {
                return refuse("ROOT_CONSTANT_INLINE_UNIFORM_BLOCK")
            }
            Opt::BindlessCbvSsboEmulation { enable: true } => return refuse("BINDLESS_CBV_SSBO_EMULATION"),
            Opt::DescriptorQa { enabled: true, .. } => return refuse("DESCRIPTOR_QA"),
            Opt::InstructionInstrumentation { enabled: true, .. } => return refuse("INSTRUCTION_INSTRUMENTATION"),
            // Address tables (raw-VA acceleration structures and counters) are one `uvec2` per
            // descriptor in untangle; another stride or offset would index them wrongly.
            Opt::PhysicalAddressDescriptorIndexing { element_stride, element_offset }
                if (*element_stride, *element_offset) != (1, 0) =>
            {
                return refuse("PHYSICAL_ADDRESS_DESCRIPTOR_INDEXING with a stride other than 1 or an offset")
            }
            _ => {}
        }
    }
    // View masking (a culled view's primitives dropped by the last pre-rasterization
    // stage) is not implemented; vkd3d-proton does not ask for it.
    let masked = meta_descriptor(setup, DXIL_SPV_META_DESCRIPTOR_DYNAMIC_VIEW_INSTANCING_MASK).is_some();
    if masked && view_instancing(setup).is_some_and(|v| v.last_pre_rasterization) {
        return refuse("VIEW_INSTANCING with the DYNAMIC_VIEW_INSTANCING_MASK meta descriptor");
    }
    if let Some(Opt::OutputSwizzle { swizzles, .. }) = setup.last(|o| matches!(o, Opt::OutputSwizzle { .. })) {
        let permutation = |s: [u8; 4]| (0..4).all(|c| s.contains(&c));
        if kind == ShaderKind::Pixel && !swizzles.iter().all(|&s| permutation(output_swizzle(s))) {
            return refuse("OUTPUT_SWIZZLE with a swizzle that is not a permutation");
        }
    }
    Ok(())
}

/// What the converter's getters report for entry `ep` (a `kind` shader) after a run.
fn reflect(
    shader: &untangle::Shader,
    ep: &untangle::dxil::EntryPoint,
    kind: ShaderKind,
    setup: &ConverterSetup,
    mangled: String,
    spirv: Vec<u32>,
) -> RunOutput {
    let p = &ep.properties;
    let workgroup_size = match kind {
        ShaderKind::Compute => p.num_threads.unwrap_or([0; 3]),
        _ => [0; 3],
    };
    let (wave_size_min, wave_size_max, wave_size_preferred) = match p.wave_size {
        Some(w) => (w.min, if w.max == w.min { 0 } else { w.max }, w.preferred),
        None => (0, 0, 0),
    };
    let forced = setup.last(|o| matches!(o, Opt::ForceSubgroupSize { .. }));
    let (wave_size_min, wave_size_max, wave_size_preferred) = match forced {
        Some(Opt::ForceSubgroupSize { forced_value, wave_size_enable: true }) => (*forced_value, 0, 0),
        _ => (wave_size_min, wave_size_max, wave_size_preferred),
    };
    let patch_vertex_count = match kind {
        ShaderKind::Hull => p.hull.as_ref().map_or(0, |h| h.input_control_points),
        ShaderKind::Domain => p.domain.as_ref().map_or(0, |d| d.input_control_points),
        _ => 0,
    };
    let rows = |els: &[untangle::dxil::SignatureElement]| untangle::emit::locations::signature_rows(els, None);
    let patch_location_offset = match kind {
        ShaderKind::Hull | ShaderKind::Mesh => rows(&ep.signatures.outputs),
        ShaderKind::Domain => setup.patch_location_offset.unwrap_or_else(|| rows(&ep.signatures.inputs)),
        _ => setup.patch_location_offset.unwrap_or(u32::MAX),
    };
    let _ = shader;
    RunOutput {
        compiled_entry_point: mangled,
        workgroup_size,
        wave_size_min,
        wave_size_max,
        wave_size_preferred,
        patch_vertex_count,
        patch_location_offset,
        native_16bit_operations: declares_16bit_arithmetic(&spirv),
        multiview_compatible: view_instancing(setup).is_some_and(|v| v.multiview_compatible(kind, &ep.signatures)),
        spirv,
        ..RunOutput::default()
    }
}

/// Whether the module declares `Float16` or `Int16`: what dxil-spirv answers for
/// `NATIVE_16BIT_OPERATIONS`, and what the layer checks against the device's
/// `Native16BitShaderOpsSupported`. It is a fact of the output, not of the DXIL's flags: a
/// min-precision shader computes in 32 bits unless `MIN_PRECISION_NATIVE_16BIT` is on.
fn declares_16bit_arithmetic(words: &[u32]) -> bool {
    const OP_CAPABILITY: u32 = 17;
    const FLOAT16: u32 = 9;
    const INT16: u32 = 22;
    let mut at = 5; // the header
    while let Some(&first) = words.get(at) {
        let (count, op) = ((first >> 16) as usize, first & 0xffff);
        if op != OP_CAPABILITY || count == 0 {
            return false; // capabilities come first in a module
        }
        if matches!(words.get(at + 1), Some(&(FLOAT16 | INT16))) {
            return true;
        }
        at += count;
    }
    false
}
