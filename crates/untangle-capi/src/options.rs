//! `untangle_options`: how to translate (binding model, root signature, stream output,
//! remapping callbacks).

use crate::error::{c_string, guard, guard_value, object_mut, slice, take, text, untangle_error, Failure, Out};
use crate::reflect::{
    class_of, resource_of, stage_of, untangle_resource, untangle_signature_element, untangle_stage, ElementNames,
};
use crate::untangle_status;
use std::ffi::{c_char, c_void};
use untangle::rootsig::{self, BindingModel, LayoutOptions, RootDescriptors, RootSignature, Version};
use untangle::{
    BindingMap, IoLocation, IoQuery, IoRemap, ResourceQuery, ResourceRemap, RootSignatureBinding, StreamOutput,
    StreamOutputDeclaration, TessDomainOrigin, VkBinding,
};

/// How a root signature is lowered onto a Vulkan pipeline layout
/// (`UNTANGLE_BINDING_MODEL_*`; see docs/layout-json.md).
pub type untangle_binding_model = u32;
/// vkd3d-proton's model: descriptor heaps as arrays, tables as offsets (the default).
pub const UNTANGLE_BINDING_MODEL_HEAP: untangle_binding_model = 0;
/// A slot per range: no descriptor indexing needed.
pub const UNTANGLE_BINDING_MODEL_DIRECT: untangle_binding_model = 1;

/// Whether modules declare `MaximallyReconvergesKHR` (default false): set it when the
/// device enables `shaderMaximalReconvergence` (`VK_KHR_shader_maximal_reconvergence`), so
/// wave operations after divergent control flow see the lanes D3D drivers give them.
#[no_mangle]
pub unsafe extern "C" fn untangle_options_set_maximal_reconvergence(
    options: *mut untangle_options,
    enabled: bool,
) -> untangle_status {
    with_options(options, std::ptr::null_mut(), |o| {
        o.maximal_reconvergence = enabled;
        Ok(())
    })
}

/// Whether precise float operations carry `FPFastMathMode None`, and entry points
/// `FPFastMathDefault None` for their widths (default false): set it when the device
/// enables `shaderFloatControls2`, so drivers may not reassociate them.
#[no_mangle]
pub unsafe extern "C" fn untangle_options_set_float_controls2(
    options: *mut untangle_options,
    enabled: bool,
) -> untangle_status {
    with_options(options, std::ptr::null_mut(), |o| {
        o.float_controls2 = enabled;
        Ok(())
    })
}

/// Whether the emitter's local clean-ups run (default true): value numbering, dead code,
/// unused globals, and `NonWritable`/`NonReadable` on storage buffers and images used one
/// way. Smaller modules that drivers compile faster; off, translation takes about an
/// eighth less time. Both are valid SPIR-V.
#[no_mangle]
pub unsafe extern "C" fn untangle_options_set_cleanups(
    options: *mut untangle_options,
    enabled: bool,
) -> untangle_status {
    with_options(options, std::ptr::null_mut(), |o| {
        o.skip_cleanups = !enabled;
        Ok(())
    })
}

/// How the `heap` model passes root CBV/SRV/UAV (`UNTANGLE_ROOT_DESCRIPTORS_*`).
pub type untangle_root_descriptors = u32;
/// 64-bit buffer device addresses in push constants (the default).
pub const UNTANGLE_ROOT_DESCRIPTORS_ADDRESS: untangle_root_descriptors = 0;
/// Plain uniform/storage buffer descriptors.
pub const UNTANGLE_ROOT_DESCRIPTORS_DESCRIPTOR: untangle_root_descriptors = 1;

/// A root-signature string's version, D3D12's numbering
/// (`D3D_ROOT_SIGNATURE_VERSION_1_0` = 1, `1_1` = 2, `1_2` = 3).
pub type untangle_root_signature_version = u32;
pub const UNTANGLE_ROOT_SIGNATURE_VERSION_1_0: untangle_root_signature_version = 1;
pub const UNTANGLE_ROOT_SIGNATURE_VERSION_1_1: untangle_root_signature_version = 2;
pub const UNTANGLE_ROOT_SIGNATURE_VERSION_1_2: untangle_root_signature_version = 3;

/// `VkTessellationDomainOrigin`, Vulkan's numbering (`UNTANGLE_TESS_DOMAIN_ORIGIN_*`).
pub type untangle_tess_domain_origin = u32;
/// `VK_TESSELLATION_DOMAIN_ORIGIN_UPPER_LEFT`, Vulkan's default (the default here too).
pub const UNTANGLE_TESS_DOMAIN_ORIGIN_UPPER_LEFT: untangle_tess_domain_origin = 0;
/// `VK_TESSELLATION_DOMAIN_ORIGIN_LOWER_LEFT`.
pub const UNTANGLE_TESS_DOMAIN_ORIGIN_LOWER_LEFT: untangle_tess_domain_origin = 1;

/// The push-constant budget of new options (`untangle_options_set_max_push_constant_bytes`).
pub const UNTANGLE_DEFAULT_MAX_PUSH_CONSTANT_BYTES: u32 = 128;

/// `RasterizedStream` for "no stream is rasterized" (`D3D12_SO_NO_RASTERIZED_STREAM`).
pub const UNTANGLE_NO_RASTERIZED_STREAM: u32 = u32::MAX;

/// One stream-output declaration, field for field `D3D12_SO_DECLARATION_ENTRY`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct untangle_stream_output_declaration {
    /// The stream (0 except for geometry shaders writing several).
    pub stream: u32,
    /// The output's semantic name, compared case-insensitively; NULL for a gap of
    /// `component_count` components.
    pub semantic_name: *const c_char,
    /// Its semantic index (the row of a multi-row element).
    pub semantic_index: u32,
    /// The element's first component to capture (x = 0).
    pub start_component: u32,
    /// Components to capture (1-4; a gap: any positive count).
    pub component_count: u32,
    /// The buffer slot (0-3).
    pub output_slot: u32,
}

/// Locations a stage-I/O remapping callback may use: an element of `rows` rows placed at
/// `location` needs `location + rows <= UNTANGLE_MAX_IO_LOCATIONS` (64: twice a D3D12
/// signature's 32 registers, past every Vulkan device's `maxVertexInputAttributes` and
/// `maxFragmentInputComponents / 4`). A larger answer, or one that overflows, fails the
/// translation with `UNTANGLE_CALLBACK`.
pub const UNTANGLE_MAX_IO_LOCATIONS: u32 = 64;

/// Descriptor sets a resource-remapping callback or a binding map may use: `set <
/// UNTANGLE_MAX_DESCRIPTOR_SETS` (32; Vulkan needs `set < maxBoundDescriptorSets`, at most
/// 32 on every implementation). Past it: `UNTANGLE_CALLBACK` (callback) or
/// `UNTANGLE_BINDING_MAP` (map).
pub const UNTANGLE_MAX_DESCRIPTOR_SETS: u32 = 32;

/// Bindings a resource-remapping callback or a binding map may use: `binding <
/// UNTANGLE_MAX_BINDINGS` (2^20; a set layout is sized by its highest binding, so a
/// larger one is a bug, not a placement). Past it: as `UNTANGLE_MAX_DESCRIPTOR_SETS`.
pub const UNTANGLE_MAX_BINDINGS: u32 = 1048576;

/// A Vulkan descriptor location, filled by a resource-remapping callback.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct untangle_vk_binding {
    pub set: u32,
    pub binding: u32,
}

/// What a resource-remapping callback is asked: one register range of the shader, or
/// (`counter` true) where the counter buffer of a UAV range goes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct untangle_resource_query {
    /// The shader's stage (`UNTANGLE_STAGE_*`).
    pub stage: untangle_stage,
    /// The range: class, kind, space, first register, count, counter flag, name (valid
    /// during the call).
    pub resource: untangle_resource,
    /// Asking for the UAV's counter, not the range itself.
    pub counter: bool,
}

/// Places a register range (or a UAV's counter) under the default binding model: fill
/// `*binding` and return true, or return false to leave it to the binding map and the
/// default rule. Called synchronously by `untangle_translate` on the thread that called
/// it (never later, never on another thread; concurrently only if the same options are
/// used by concurrent translations), in a deterministic order, once per range (and once
/// per UAV counter) per translation: the answer is kept for the whole translation, so the
/// SPIR-V and `untangle_result_binding` both use it. It must not unwind or longjmp across
/// untangle.
/// Its answers are checked: each `set < UNTANGLE_MAX_DESCRIPTOR_SETS` and `binding <
/// UNTANGLE_MAX_BINDINGS`, and no two ranges or counters at one set and binding when the
/// callback placed either; otherwise the translation fails with `UNTANGLE_CALLBACK`,
/// naming the callback, the ranges and the place.
/// Unused with a root signature, whose layout places everything.
pub type untangle_resource_remap_fn = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        query: *const untangle_resource_query,
        binding: *mut untangle_vk_binding,
    ) -> bool,
>;

/// Where a stage input or output goes: its first row's `Location` and its first
/// `Component` (0-3).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct untangle_io_location {
    pub location: u32,
    pub component: u32,
}

/// What a stage-I/O remapping callback is asked: one element of the shader's input
/// (`output` false), output or patch-constant (`patch`) signature that becomes a `Location`
/// variable (built-ins such as `SV_Position` are never asked). Its strings are valid during
/// the call.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct untangle_io_query {
    pub stage: untangle_stage,
    /// An output of this stage (hull shader patch constants included).
    pub output: bool,
    pub element: untangle_signature_element,
    /// A patch constant: a hull shader output or domain shader input decorated `Patch`.
    pub patch: bool,
    /// Where untangle's location rule puts the element (docs/stage-interfaces.md): the same
    /// place in every stage, so stages translated one at a time link.
    pub default_location: untangle_io_location,
}

/// Places a stage input or output: fill `*location` and return true, or return false to
/// keep the default (`query->default_location`). Called like
/// `untangle_resource_remap_fn` (synchronously, on the translating thread), once per
/// element the shader uses. Its answers are checked: `component` + the element's columns
/// within 4, `location` + its rows within `UNTANGLE_MAX_IO_LOCATIONS`, and no two
/// elements of one direction on one location component when the callback placed either;
/// otherwise the translation fails with `UNTANGLE_CALLBACK`, naming the callback, the
/// elements and the location (not `UNTANGLE_MALFORMED`: the shader is fine).
pub type untangle_io_remap_fn = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        query: *const untangle_io_query,
        location: *mut untangle_io_location,
    ) -> bool,
>;

/// Translation options. Create with `untangle_options_create` (defaults: the default
/// binding model, no root signature, no callbacks, no stream output), change with the
/// `untangle_options_*` setters (not while another call uses the options), free with
/// `untangle_options_free`. `untangle_translate` only reads them: once set up, one
/// options object may serve concurrent translations (its callbacks then run
/// concurrently).
#[derive(Default)]
pub struct untangle_options {
    binding_map: BindingMap,
    root_signature: Option<RootSignature>,
    layout: LayoutOptions,
    embedded_root_signature: bool,
    resource_remap: Option<ResourceRemap>,
    io_remap: Option<IoRemap>,
    stream_output: Option<StreamOutput>,
    tess_domain_origin: TessDomainOrigin,
    maximal_reconvergence: bool,
    float_controls2: bool,
    /// `untangle_options_set_cleanups(false)` (stored negated: the default is on).
    skip_cleanups: bool,
}

impl untangle_options {
    /// The library's options.
    pub fn to_options(&self) -> untangle::Options {
        untangle::Options {
            binding_map: self.binding_map.clone(),
            root_signature: self
                .root_signature
                .clone()
                .map(|signature| RootSignatureBinding { signature, layout: self.layout }),
            embedded_root_signature: self.embedded_root_signature.then_some(self.layout),
            resource_remap: self.resource_remap.as_ref().map(once_per_range),
            io_remap: self.io_remap.clone(),
            stream_output: self.stream_output.clone(),
            tess_domain_origin: self.tess_domain_origin,
            // Mesh pipelines' per-primitive pixel inputs are not in the C API yet.
            per_primitive_inputs: Vec::new(),
            maximal_reconvergence: self.maximal_reconvergence,
            float_controls2: self.float_controls2,
            cleanups: !self.skip_cleanups,
            // Not in the C API yet: the library's defaults (no placement callbacks, no
            // dual-source blending, the entry's own name, native 16-bit minimum precision).
            ..untangle::Options::default()
        }
    }
}

/// `remap`, asked at most once per register range (and once per UAV counter) of the
/// translation the result serves: the library asks again for a range it already placed
/// (declaring the variable, then listing the result's bindings), and a C callback that
/// allocates per call would then answer differently each time, leaving the SPIR-V and
/// `untangle_result_binding` disagreeing. `to_options` makes one per translation, so
/// answers are never reused across translations (or across concurrent ones).
fn once_per_range(remap: &ResourceRemap) -> ResourceRemap {
    use std::collections::HashMap;
    use std::sync::Mutex;
    // The range (class, id, space, first register, count) and whether its counter is asked.
    type Key = (u32, u32, u32, u32, Option<u32>, bool);
    let inner = remap.clone();
    let answers: Mutex<HashMap<Key, Option<VkBinding>>> = Mutex::new(HashMap::new());
    ResourceRemap::new(move |q: &ResourceQuery<'_>| {
        let r = q.resource;
        let key = (class_of(r.class), r.id, r.space, r.lower_bound, r.range_size, q.counter);
        let cached = answers.lock().unwrap_or_else(|e| e.into_inner()).get(&key).copied();
        if let Some(answer) = cached {
            return answer;
        }
        // Not under the lock: the callback may take as long as it likes.
        let answer = (inner.0)(q);
        answers.lock().unwrap_or_else(|e| e.into_inner()).insert(key, answer);
        answer
    })
}

/// A C callback and its user pointer.
///
/// `Send + Sync` because untangle's callbacks must be: the C caller, by installing the
/// callback, accepts what the header documents, that it is called on whichever thread
/// calls `untangle_translate` with these options (concurrently when options are shared
/// across threads), never after that call returns. untangle itself starts no threads.
struct CCallback<F> {
    f: F,
    user: *mut c_void,
}

impl<F: Copy> CCallback<F> {
    /// The function and the user pointer (a method, so closures capture the whole
    /// `CCallback`, not its fields).
    fn parts(&self) -> (F, *mut c_void) {
        (self.f, self.user)
    }
}

// SAFETY: see the type's documentation: the pointer is only passed back to the C
// callback, on the threads the C caller translates on, as the API documents.
unsafe impl<F> Send for CCallback<F> {}
// SAFETY: as above.
unsafe impl<F> Sync for CCallback<F> {}

/// Creates options with every default. `*options` receives them.
#[no_mangle]
pub unsafe extern "C" fn untangle_options_create(options: *mut *mut untangle_options) -> untangle_status {
    crate::error::guard_simple(|| {
        let out = Out::new(options, "options").map_err(|f| f.status)?;
        // SAFETY: checked; writable by contract.
        unsafe { out.set(Box::into_raw(Box::default())) };
        Ok(())
    })
}

/// Frees options; NULL is ignored. No other call may be using them.
#[no_mangle]
pub unsafe extern "C" fn untangle_options_free(options: *mut untangle_options) {
    // SAFETY: NULL or options from untangle_options_create, freed once.
    guard_value((), || drop(unsafe { take(options) }));
}

/// Runs a setter's body on the options it modifies.
fn with_options(
    options: *mut untangle_options,
    error: *mut *mut untangle_error,
    body: impl FnOnce(&mut untangle_options) -> Result<(), Failure>,
) -> untangle_status {
    guard(error, || {
        // SAFETY: NULL or live options no other call uses now (the caller's contract).
        let o = unsafe { object_mut(options, "options") }?;
        body(o)
    })
}

/// Overrides the default binding model's placement of some ranges with a binding map:
/// UTF-8 JSON, a NUL-terminated array of
/// `{"class": "SRV"|"UAV"|"CBV"|"Sampler", "space": S, "register": R, "set": N, "binding": M}`.
/// NULL removes the map. `UNTANGLE_BINDING_MAP` if it cannot be used, or a set or binding
/// is past `UNTANGLE_MAX_DESCRIPTOR_SETS` / `UNTANGLE_MAX_BINDINGS` (the options keep
/// their previous map).
#[no_mangle]
pub unsafe extern "C" fn untangle_options_set_binding_map_json(
    options: *mut untangle_options,
    json: *const c_char,
    error: *mut *mut untangle_error,
) -> untangle_status {
    with_options(options, error, |o| {
        o.binding_map = if json.is_null() {
            BindingMap::default()
        } else {
            // SAFETY: a NUL-terminated string (the caller's contract).
            let map = BindingMap::parse(unsafe { text(json, "json") }?).map_err(Failure::from)?;
            check_binding_map(&map)?;
            map
        };
        Ok(())
    })
}

/// Refuses a binding map entry past `UNTANGLE_MAX_DESCRIPTOR_SETS` or `UNTANGLE_MAX_BINDINGS`.
fn check_binding_map(map: &BindingMap) -> Result<(), Failure> {
    for e in &map.entries {
        if e.set >= UNTANGLE_MAX_DESCRIPTOR_SETS || e.binding >= UNTANGLE_MAX_BINDINGS {
            return Err(Failure::new(
                untangle_status::UNTANGLE_BINDING_MAP,
                format!(
                    "binding map: {}{}, space{} at set {}, binding {}: past the limits (set < \
                     {UNTANGLE_MAX_DESCRIPTOR_SETS}, binding < {UNTANGLE_MAX_BINDINGS})",
                    e.class.register_letter(),
                    e.register,
                    e.space,
                    e.set,
                    e.binding
                ),
            ));
        }
    }
    Ok(())
}

/// Binds resources through a root signature given as bytes: an `RTS0` part, or a DXBC
/// container holding one (its first). The bytes are parsed and validated now (and not
/// kept). `UNTANGLE_ROOT_SIGNATURE` if malformed or invalid (the options keep their
/// previous root signature).
#[no_mangle]
pub unsafe extern "C" fn untangle_options_set_root_signature_rts0(
    options: *mut untangle_options,
    bytes: *const u8,
    len: usize,
    error: *mut *mut untangle_error,
) -> untangle_status {
    with_options(options, error, |o| {
        if bytes.is_null() {
            return Err(Failure::invalid("`bytes` is NULL"));
        }
        // SAFETY: `len` readable bytes (the caller's contract).
        let bytes = unsafe { slice(bytes, len, "bytes") }?;
        o.root_signature = Some(rootsig::parse_rts0_file(bytes)?);
        Ok(())
    })
}

/// Binds resources through a root signature given as an HLSL root-signature string
/// (`"RootFlags(0), DescriptorTable(SRV(t0, numDescriptors = 4))"`), read as `version`
/// (`UNTANGLE_ROOT_SIGNATURE_VERSION_*`) and validated now. `UNTANGLE_ROOT_SIGNATURE` if
/// malformed or invalid, with line and column (the options keep their previous root
/// signature).
#[no_mangle]
pub unsafe extern "C" fn untangle_options_set_root_signature_string(
    options: *mut untangle_options,
    signature: *const c_char,
    version: untangle_root_signature_version,
    error: *mut *mut untangle_error,
) -> untangle_status {
    with_options(options, error, |o| {
        let version = match version {
            UNTANGLE_ROOT_SIGNATURE_VERSION_1_0 => Version::V1_0,
            UNTANGLE_ROOT_SIGNATURE_VERSION_1_1 => Version::V1_1,
            UNTANGLE_ROOT_SIGNATURE_VERSION_1_2 => Version::V1_2,
            other => return Err(Failure::invalid(format!("unknown root signature version {other}"))),
        };
        // SAFETY: a NUL-terminated string (the caller's contract).
        let s = unsafe { text(signature, "signature") }?;
        let rs = rootsig::parse_hlsl(s, version)?;
        rootsig::validate(&rs)?;
        o.root_signature = Some(rs);
        Ok(())
    })
}

/// Removes the root signature (back to the default binding model).
#[no_mangle]
pub unsafe extern "C" fn untangle_options_clear_root_signature(options: *mut untangle_options) -> untangle_status {
    with_options(options, std::ptr::null_mut(), |o| {
        o.root_signature = None;
        Ok(())
    })
}

/// How root signatures are lowered (`UNTANGLE_BINDING_MODEL_*`; default `HEAP`). Applies
/// to a root signature set on the options and to an embedded one.
#[no_mangle]
pub unsafe extern "C" fn untangle_options_set_binding_model(
    options: *mut untangle_options,
    model: untangle_binding_model,
) -> untangle_status {
    with_options(options, std::ptr::null_mut(), |o| {
        o.layout.model = match model {
            UNTANGLE_BINDING_MODEL_HEAP => BindingModel::Heap,
            UNTANGLE_BINDING_MODEL_DIRECT => BindingModel::Direct,
            other => return Err(Failure::invalid(format!("unknown binding model {other}"))),
        };
        Ok(())
    })
}

/// The tessellation domain origin the pipeline uses (`UNTANGLE_TESS_DOMAIN_ORIGIN_*`;
/// default `UPPER_LEFT`, Vulkan's default): hull shaders write D3D's triangle winding for
/// it (docs/stage-interfaces.md).
#[no_mangle]
pub unsafe extern "C" fn untangle_options_set_tess_domain_origin(
    options: *mut untangle_options,
    origin: untangle_tess_domain_origin,
) -> untangle_status {
    with_options(options, std::ptr::null_mut(), |o| {
        o.tess_domain_origin = match origin {
            UNTANGLE_TESS_DOMAIN_ORIGIN_UPPER_LEFT => TessDomainOrigin::UpperLeft,
            UNTANGLE_TESS_DOMAIN_ORIGIN_LOWER_LEFT => TessDomainOrigin::LowerLeft,
            other => return Err(Failure::invalid(format!("unknown tessellation domain origin {other}"))),
        };
        Ok(())
    })
}

/// How the `heap` model passes root CBV/SRV/UAV (`UNTANGLE_ROOT_DESCRIPTORS_*`; default
/// `ADDRESS`).
#[no_mangle]
pub unsafe extern "C" fn untangle_options_set_root_descriptors(
    options: *mut untangle_options,
    root_descriptors: untangle_root_descriptors,
) -> untangle_status {
    with_options(options, std::ptr::null_mut(), |o| {
        o.layout.root_descriptors = match root_descriptors {
            UNTANGLE_ROOT_DESCRIPTORS_ADDRESS => RootDescriptors::Address,
            UNTANGLE_ROOT_DESCRIPTORS_DESCRIPTOR => RootDescriptors::Descriptor,
            other => return Err(Failure::invalid(format!("unknown root descriptor mode {other}"))),
        };
        Ok(())
    })
}

/// The push-constant budget of root-signature layouts, in bytes (default
/// `UNTANGLE_DEFAULT_MAX_PUSH_CONSTANT_BYTES`, 128): set it to the device's
/// `maxPushConstantsSize`. Root arguments past it go to a root argument buffer, a uniform
/// buffer the layout report describes (`root_argument_buffer`; see
/// `untangle_result_root_arguments`). 0 puts every root argument there; 256 or more keeps
/// every root signature in push constants. Applies to a root signature set on the options
/// and to an embedded one. `UNTANGLE_INVALID_ARGUMENT` unless a multiple of 4 (the
/// options keep their previous budget).
#[no_mangle]
pub unsafe extern "C" fn untangle_options_set_max_push_constant_bytes(
    options: *mut untangle_options,
    bytes: u32,
    error: *mut *mut untangle_error,
) -> untangle_status {
    with_options(options, error, |o| {
        if !bytes.is_multiple_of(4) {
            return Err(Failure::invalid(format!(
                "push-constant budget of {bytes} bytes: it must be a multiple of 4 (push constants are 32-bit words)"
            )));
        }
        o.layout.max_push_constant_bytes = bytes;
        Ok(())
    })
}

/// When no root signature is set and the shader's container has an `RTS0` part, bind
/// through that one (`enable` true), lowered as the binding model and root-descriptor
/// settings say. Default false.
#[no_mangle]
pub unsafe extern "C" fn untangle_options_use_embedded_root_signature(
    options: *mut untangle_options,
    enable: bool,
) -> untangle_status {
    with_options(options, std::ptr::null_mut(), |o| {
        o.embedded_root_signature = enable;
        Ok(())
    })
}

/// Stream output (`D3D12_STREAM_OUTPUT_DESC`) for the last pre-rasterization stage,
/// lowered to Vulkan transform feedback: `declaration_count` declarations, `stride_count`
/// buffer strides (stride of slot k = `strides[k]`), the rasterized stream (0-3 or
/// `UNTANGLE_NO_RASTERIZED_STREAM`). Checks that need no shader are made now
/// (`UNTANGLE_STREAM_OUTPUT`, naming the declaration; the options then keep their
/// previous description), the rest at translation. NULL declarations with a count of 0
/// remove stream output. Everything is copied.
#[no_mangle]
pub unsafe extern "C" fn untangle_options_set_stream_output(
    options: *mut untangle_options,
    declarations: *const untangle_stream_output_declaration,
    declaration_count: usize,
    strides: *const u32,
    stride_count: usize,
    rasterized_stream: u32,
    error: *mut *mut untangle_error,
) -> untangle_status {
    with_options(options, error, |o| {
        if declarations.is_null() && declaration_count == 0 {
            o.stream_output = None;
            return Ok(());
        }
        // SAFETY: the caller passes that many elements.
        let decls = unsafe { slice(declarations, declaration_count, "declarations") }?;
        // SAFETY: as above.
        let strides = unsafe { slice(strides, stride_count, "strides") }?;
        let mut so = StreamOutput {
            declarations: Vec::with_capacity(decls.len()),
            buffer_strides: strides.to_vec(),
            rasterized_stream: (rasterized_stream != UNTANGLE_NO_RASTERIZED_STREAM).then_some(rasterized_stream),
        };
        for (i, d) in decls.iter().enumerate() {
            let semantic = if d.semantic_name.is_null() {
                None
            } else {
                // SAFETY: a NUL-terminated string (the caller's contract).
                Some(unsafe { text(d.semantic_name, &format!("declarations[{i}].semantic_name")) }?.to_string())
            };
            so.declarations.push(StreamOutputDeclaration {
                stream: d.stream,
                semantic,
                semantic_index: d.semantic_index,
                start_component: d.start_component,
                component_count: d.component_count,
                output_slot: d.output_slot,
            });
        }
        so.validate().map_err(untangle::TranslateError::from)?;
        o.stream_output = Some(so);
        Ok(())
    })
}

/// Installs (or, with NULL, removes) the resource-remapping callback; `user` is passed
/// back to it. See `untangle_resource_remap_fn` for when it is called.
#[no_mangle]
pub unsafe extern "C" fn untangle_options_set_resource_remap(
    options: *mut untangle_options,
    callback: untangle_resource_remap_fn,
    user: *mut c_void,
) -> untangle_status {
    with_options(options, std::ptr::null_mut(), |o| {
        o.resource_remap = callback.map(|f| {
            let cb = CCallback { f, user };
            ResourceRemap::new(move |q: &ResourceQuery<'_>| {
                let name = c_string(&q.resource.name);
                let query = untangle_resource_query {
                    stage: stage_of(q.stage),
                    resource: resource_of(q.resource, &name),
                    counter: q.counter,
                };
                debug_assert_eq!(query.resource.resource_class, class_of(q.resource.class));
                let mut b = untangle_vk_binding::default();
                let (f, user) = cb.parts();
                // SAFETY: the C caller installed `f` for exactly this: a query valid
                // during the call and a writable binding.
                let placed = unsafe { f(user, &query, &mut b) };
                placed.then_some(VkBinding { set: b.set, binding: b.binding })
            })
        });
        Ok(())
    })
}

/// Installs (or, with NULL, removes) the stage-I/O remapping callback; `user` is passed
/// back to it. See `untangle_io_remap_fn` for when it is called.
#[no_mangle]
pub unsafe extern "C" fn untangle_options_set_io_remap(
    options: *mut untangle_options,
    callback: untangle_io_remap_fn,
    user: *mut c_void,
) -> untangle_status {
    with_options(options, std::ptr::null_mut(), |o| {
        o.io_remap = callback.map(|f| {
            let cb = CCallback { f, user };
            IoRemap::new(move |q: &IoQuery<'_>| {
                let names = ElementNames::of(q.element);
                let query = untangle_io_query {
                    stage: stage_of(q.stage),
                    output: q.output,
                    element: names.element(q.element),
                    patch: q.patch,
                    default_location: untangle_io_location {
                        location: q.default.location,
                        component: q.default.component,
                    },
                };
                let mut l = untangle_io_location::default();
                let (f, user) = cb.parts();
                // SAFETY: as for the resource callback.
                let placed = unsafe { f(user, &query, &mut l) };
                placed.then_some(IoLocation { location: l.location, component: l.component })
            })
        });
        Ok(())
    })
}
