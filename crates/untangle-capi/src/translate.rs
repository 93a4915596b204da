//! `untangle_translate` and its result.

use crate::error::{c_string, guard, guard_simple, guard_value, object, take, untangle_error, Failure, Out};
use crate::options::untangle_options;
use crate::reflect::{
    class_of, stage_of, untangle_resource_class, untangle_shader, untangle_stage, UNTANGLE_UNBOUNDED,
};
use crate::untangle_status;
use std::ffi::{c_char, CString};
use untangle::dxil::EntryPoint;
use untangle::Translation;

/// Where one declared register range was bound: descriptor set and binding, the element of
/// that binding's descriptor array its first register is, and for a UAV with a counter
/// where the counter buffers are (ranges reached otherwise, through push constants or a
/// heap table, are in the layout JSON). Register `base_register + i` of the range is
/// descriptor `array_element + i` of (`set`, `binding`), and its counter, descriptor
/// `array_element + i` of (`counter_set`, `counter_binding`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct untangle_binding {
    /// `UNTANGLE_RESOURCE_CLASS_*`.
    pub resource_class: untangle_resource_class,
    pub space: u32,
    pub base_register: u32,
    /// Registers in the range (`UNTANGLE_UNBOUNDED`: a runtime array).
    pub count: u32,
    pub set: u32,
    pub binding: u32,
    /// The variable's name (owned by the result).
    pub name: *const c_char,
    /// The descriptor array element of (`set`, `binding`) the range's first register is:
    /// 0 unless the binding holds more than the range (a root signature's descriptor
    /// table lowered by the `direct` model: of `DescriptorTable(SRV(t0, numDescriptors =
    /// 2))`, `t1` declared alone is element 1).
    pub array_element: u32,
    /// A UAV whose counter the module uses: its counter buffers (`{ uint counter; }`
    /// storage buffers, indexed like the range) are at `counter_set`/`counter_binding`,
    /// which are 0 otherwise.
    pub has_counter: bool,
    pub counter_set: u32,
    pub counter_binding: u32,
}

/// A translated shader: SPIR-V words and what a layer needs to bind them. Immutable:
/// readable from any thread. Free with `untangle_result_free`.
pub struct untangle_result {
    translation: Translation,
    entry_point: CString,
    layout_json: Option<CString>,
    binding_names: Vec<CString>,
    /// What the DXIL says about the translated entry (its properties and signatures).
    entry: Option<EntryPoint>,
    /// The module's `OpCapability` operands and `OpExtension` names, in module order.
    capabilities: Vec<u32>,
    extensions: Vec<CString>,
    /// The device requirements' rows (`untangle_result_device_feature`).
    device_features: Vec<crate::features::FeatureRow>,
}

/// Translates the shader's entry point to SPIR-V 1.6 for Vulkan 1.3. `options` may be NULL
/// (every default). On success `*result` receives a new result. The shader and options
/// are only read: several threads may translate one shader at once, with one or several
/// options objects. Remapping callbacks run on this thread before this call returns.
/// Errors: `UNTANGLE_UNSUPPORTED` (stage, operation, control flow), `UNTANGLE_MALFORMED`,
/// `UNTANGLE_ROOT_SIGNATURE` (the shader does not fit the root signature, e.g. an
/// uncovered register), `UNTANGLE_BINDING_MAP`, `UNTANGLE_STREAM_OUTPUT`,
/// `UNTANGLE_NOT_A_SHADER`, `UNTANGLE_CALLBACK` (a remapping callback's answer cannot be
/// used), `UNTANGLE_INTERNAL`.
#[no_mangle]
pub unsafe extern "C" fn untangle_translate(
    shader: *const untangle_shader,
    options: *const untangle_options,
    result: *mut *mut untangle_result,
    error: *mut *mut untangle_error,
) -> untangle_status {
    // SAFETY: the caller's contract.
    guard(error, || unsafe { translate_into(shader, options, result, |s, o| Ok((s.translate(o)?, default_entry(s)))) })
}

/// The body every `untangle_translate*` shares: checks the shader and out-pointer, reads
/// the options, translates with `translate` and hands the result over.
///
/// # Safety
/// `shader` live, `options` NULL or live and not being modified, `result` writable.
unsafe fn translate_into(
    shader: *const untangle_shader,
    options: *const untangle_options,
    result: *mut *mut untangle_result,
    translate: impl for<'s> FnOnce(
        &'s untangle::Shader,
        &untangle::Options,
    ) -> Result<(Translation, Option<&'s EntryPoint>), Failure>,
) -> Result<(), Failure> {
    // SAFETY: the caller's contract.
    let s = unsafe { object(shader, "shader") }?;
    let out = Out::new(result, "result")?;
    // SAFETY: the caller's contract.
    let opts = unsafe { options_of(options) }?;
    let (translation, entry) = translate(&s.shader, &opts)?;
    let made = untangle_result::new(translation, entry.cloned())?;
    // SAFETY: checked; writable by contract.
    unsafe { out.set(Box::into_raw(Box::new(made))) };
    Ok(())
}

/// The options behind `options` (NULL: every default).
///
/// # Safety
/// `options` is NULL or live options no call modifies now.
unsafe fn options_of(options: *const untangle_options) -> Result<untangle::Options, Failure> {
    if options.is_null() {
        Ok(untangle::Options::default())
    } else {
        // SAFETY: the caller's contract.
        Ok(unsafe { object(options, "options") }?.to_options())
    }
}

/// A NUL-terminated UTF-8 name argument.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string.
unsafe fn name_of<'a>(name: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if name.is_null() {
        return Err(Failure::invalid(format!("{what} is NULL")));
    }
    // SAFETY: the caller's contract.
    unsafe { std::ffi::CStr::from_ptr(name) }.to_str().map_err(|_| Failure::invalid(format!("{what} is not UTF-8")))
}

/// Translates one entry of a library (`UNTANGLE_STAGE_LIBRARY`: a ray-tracing stage, a
/// work-graph node, a compute entry), named by its export name
/// (`untangle_shader_entry_point_name` lists them; the mangled name, `?RayGen@@YAXXZ`,
/// is accepted too, with or without LLVM's leading `\x01`), to one
/// SPIR-V module. For another stage, `name` must be its entry point's name. The library's
/// local root-signature subobject that applies to the entry is used when the options
/// bind through a root signature. As `untangle_translate` otherwise; also
/// `UNTANGLE_INVALID_ARGUMENT` when no entry has that name.
#[no_mangle]
pub unsafe extern "C" fn untangle_translate_entry(
    shader: *const untangle_shader,
    options: *const untangle_options,
    name: *const c_char,
    result: *mut *mut untangle_result,
    error: *mut *mut untangle_error,
) -> untangle_status {
    guard(error, || {
        // SAFETY: the caller's contract.
        let name = unsafe { name_of(name, "name") }?;
        // SAFETY: the caller's contract.
        unsafe {
            translate_into(shader, options, result, |s, o| Ok((s.translate_entry(name, o)?, named_entry(s, name))))
        }
    })
}

/// `untangle_translate_entry` with the local root signature a pipeline associates with
/// the entry (a layer's `D3D12_LOCAL_ROOT_SIGNATURE`, as its serialized RTS0 bytes: what
/// `D3D12SerializeVersionedRootSignature` wrote): the resources it covers are read from
/// the shader record or the node's local root arguments (the layout report's
/// `shader_record`). The options must bind through a (global) root signature.
/// Errors as `untangle_translate_entry`; `UNTANGLE_ROOT_SIGNATURE` when the bytes do not
/// decode or no global root signature is set.
#[no_mangle]
pub unsafe extern "C" fn untangle_translate_entry_with_local_root_signature(
    shader: *const untangle_shader,
    options: *const untangle_options,
    name: *const c_char,
    rts0: *const u8,
    rts0_len: usize,
    result: *mut *mut untangle_result,
    error: *mut *mut untangle_error,
) -> untangle_status {
    guard(error, || {
        // SAFETY: the caller's contract.
        let name = unsafe { name_of(name, "name") }?;
        if rts0.is_null() {
            return Err(Failure::invalid("rts0 is NULL"));
        }
        // The root signature's bytes are read once the shader, options and result pointers
        // have been checked (a NULL one is `UNTANGLE_INVALID_ARGUMENT` whatever the bytes).
        // SAFETY: the caller's contract.
        unsafe {
            translate_into(shader, options, result, |s, o| {
                // SAFETY: `rts0_len` readable bytes at `rts0` (the caller's contract).
                let bytes = std::slice::from_raw_parts(rts0, rts0_len);
                let local = untangle::rootsig::decode_rts0(bytes)?;
                Ok((s.translate_entry_with_local_root_signature(name, o, &local)?, named_entry(s, name)))
            })
        }
    })
}

/// The entry `untangle_translate` translates: a library's only entry with a body, another
/// stage's entry point.
fn default_entry(s: &untangle::Shader) -> Option<&EntryPoint> {
    if s.stage() == untangle::ShaderKind::Library {
        let mut with_body = s.entry_points().iter().filter(|e| e.function.is_some());
        match (with_body.next(), with_body.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    } else {
        s.entry_point()
    }
}

/// The entry `untangle_translate_entry` translates for `name`: the one exported as `name`
/// (a mangled name demangled) or whose function is named `name`.
fn named_entry<'s>(s: &'s untangle::Shader, name: &str) -> Option<&'s EntryPoint> {
    fn export_name(name: &str) -> &str {
        let bare = name.strip_prefix('\u{1}').unwrap_or(name);
        match bare.strip_prefix('?') {
            Some(rest) => rest.split('@').next().filter(|s| !s.is_empty()).unwrap_or(bare),
            None => bare,
        }
    }
    s.entry_points().iter().filter(|e| e.function.is_some()).find(|e| export_name(&e.name) == name || e.name == name)
}

/// The operands of a module's `OpCapability` instructions and the names of its
/// `OpExtension`s, in module order (both come before any function).
fn capabilities_and_extensions(words: &[u32]) -> (Vec<u32>, Vec<CString>) {
    const OP_EXTENSION: u32 = 10;
    const OP_CAPABILITY: u32 = 17;
    let (mut caps, mut exts) = (Vec::new(), Vec::new());
    let mut at = 5; // past the header
    while let Some(&first) = words.get(at) {
        let (count, opcode) = ((first >> 16) as usize, first & 0xffff);
        let Some(operands) = words.get(at + 1..at + count.max(1)) else { break };
        match opcode {
            OP_CAPABILITY => caps.extend(operands.first()),
            OP_EXTENSION => {
                let bytes: Vec<u8> = operands.iter().flat_map(|w| w.to_le_bytes()).collect();
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                exts.push(c_string(&String::from_utf8_lossy(&bytes[..end])));
            }
            _ => {}
        }
        at += count.max(1);
    }
    (caps, exts)
}

impl untangle_result {
    fn new(translation: Translation, entry: Option<EntryPoint>) -> Result<untangle_result, Failure> {
        let (capabilities, extensions) = capabilities_and_extensions(&translation.words);
        let device_features = crate::features::feature_rows(&translation.words);
        let layout_json = match &translation.layout {
            Some(l) => Some(c_string(
                &serde_json::to_string(l)
                    .map_err(|e| Failure::new(untangle_status::UNTANGLE_INTERNAL, e.to_string()))?,
            )),
            None => None,
        };
        Ok(untangle_result {
            entry_point: c_string(&translation.entry_point),
            binding_names: translation.bindings.iter().map(|b| c_string(&b.name)).collect(),
            layout_json,
            translation,
            entry,
            capabilities,
            extensions,
            device_features,
        })
    }

    pub(crate) fn device_features(&self) -> &[crate::features::FeatureRow] {
        &self.device_features
    }
}

/// Frees a result; NULL is ignored. Pointers obtained from it become invalid.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_free(result: *mut untangle_result) {
    // SAFETY: NULL or a result from untangle_translate, freed once.
    guard_value((), || drop(unsafe { take(result) }));
}

/// # Safety
/// `p` is NULL or a live result.
pub(crate) unsafe fn result_ref<'a>(p: *const untangle_result) -> Result<&'a untangle_result, untangle_status> {
    // SAFETY: the caller's contract.
    unsafe { object(p, "result") }.map_err(|f| f.status)
}

pub(crate) fn out<T>(p: *mut T) -> Result<Out<T>, untangle_status> {
    Out::new(p, "out").map_err(|f| f.status)
}

/// The SPIR-V module: `*word_count` 32-bit words at `*words` (owned by the result), in
/// host byte order. Write them out as bytes for a `.spv` file.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_spirv(
    result: *const untangle_result,
    words: *mut *const u32,
    word_count: *mut usize,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let r = result_ref(result)?;
            let (w, n) = (out(words)?, out(word_count)?);
            w.set(r.translation.words.as_ptr());
            n.set(r.translation.words.len());
        }
        Ok(())
    })
}

/// The translated stage (`UNTANGLE_STAGE_*`).
#[no_mangle]
pub unsafe extern "C" fn untangle_result_stage(
    result: *const untangle_result,
    stage: *mut untangle_stage,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe { out(stage)?.set(stage_of(result_ref(result)?.translation.stage)) };
        Ok(())
    })
}

/// The SPIR-V entry point's name (owned by the result): `pName` of
/// `VkPipelineShaderStageCreateInfo`.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_entry_point(
    result: *const untangle_result,
    name: *mut *const c_char,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe { out(name)?.set(result_ref(result)?.entry_point.as_ptr()) };
        Ok(())
    })
}

/// The layout report of a translation through a root signature, as JSON (schema
/// `untangle-layout/1`, docs/layout-json.md; owned by the result; on one line, otherwise
/// what `untangle --layout-json` writes): the pipeline layout to create (push constants,
/// the root argument buffer for arguments past the push-constant budget, descriptor
/// sets, heaps) and where each of the shader's resources went. `*json` is NULL without a
/// root signature.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_layout_json(
    result: *const untangle_result,
    json: *mut *const c_char,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let r = result_ref(result)?;
            out(json)?.set(r.layout_json.as_ref().map_or(std::ptr::null(), |j| j.as_ptr()));
        }
        Ok(())
    })
}

/// How many register ranges were bound to descriptors (see `untangle_result_binding`).
#[no_mangle]
pub unsafe extern "C" fn untangle_result_binding_count(
    result: *const untangle_result,
    count: *mut usize,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe { out(count)?.set(result_ref(result)?.translation.bindings.len()) };
        Ok(())
    })
}

/// Descriptor binding `index` (0 to count - 1): the range, its set, binding and array
/// element, and its UAV counter's set and binding.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_binding(
    result: *const untangle_result,
    index: usize,
    binding: *mut untangle_binding,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let r = result_ref(result)?;
            let b = r.translation.bindings.get(index).ok_or(untangle_status::UNTANGLE_INVALID_ARGUMENT)?;
            out(binding)?.set(untangle_binding {
                resource_class: class_of(b.class),
                space: b.space,
                base_register: b.lower_bound,
                count: b.count.unwrap_or(UNTANGLE_UNBOUNDED),
                set: b.set,
                binding: b.binding,
                name: r.binding_names[index].as_ptr(),
                array_element: b.array_element,
                has_counter: b.counter.is_some(),
                counter_set: b.counter.map_or(0, |c| c.set),
                counter_binding: b.counter.map_or(0, |c| c.binding),
            });
        }
        Ok(())
    })
}

/// Where a root argument is written (`UNTANGLE_ROOT_ARGUMENT_IN_*`).
pub type untangle_root_argument_store = u32;
/// In the push constants, at `offset`.
pub const UNTANGLE_ROOT_ARGUMENT_IN_PUSH_CONSTANTS: untangle_root_argument_store = 0;
/// Past the push-constant budget: in the root argument buffer, at `offset`.
pub const UNTANGLE_ROOT_ARGUMENT_IN_BUFFER: untangle_root_argument_store = 1;

/// What a root argument holds (`UNTANGLE_ROOT_ARGUMENT_*`).
pub type untangle_root_argument_kind = u32;
/// A descriptor table's start in its heap, in descriptors (4 bytes).
pub const UNTANGLE_ROOT_ARGUMENT_TABLE_OFFSET: untangle_root_argument_kind = 0;
/// A root CBV/SRV/UAV's buffer device address (8 bytes).
pub const UNTANGLE_ROOT_ARGUMENT_DESCRIPTOR_ADDRESS: untangle_root_argument_kind = 1;
/// Root constants (4 bytes each).
pub const UNTANGLE_ROOT_ARGUMENT_CONSTANTS: untangle_root_argument_kind = 2;

/// Where a translation's root arguments go: the layout report's `push_constants` and
/// `root_argument_buffer` (docs/layout-json.md) in numbers.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct untangle_root_arguments {
    /// Whether the translation went through a root signature (otherwise every other
    /// field is 0 or false).
    pub has_layout: bool,
    /// The push-constant range's size in bytes (0: none), within the budget.
    pub push_constant_bytes: u32,
    /// Whether root arguments past the push-constant budget went to a root argument
    /// buffer: a uniform buffer at `root_argument_buffer_set`/`_binding` of at least
    /// `root_argument_buffer_bytes` bytes, written by the layer at draw/dispatch time.
    pub has_root_argument_buffer: bool,
    pub root_argument_buffer_set: u32,
    pub root_argument_buffer_binding: u32,
    pub root_argument_buffer_bytes: u32,
    /// Root arguments in all (see `untangle_result_root_argument`): those in push
    /// constants by offset, then those in the buffer by offset.
    pub count: usize,
}

/// One root argument: which root parameter, where it is written, what it holds.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct untangle_root_argument {
    /// The root parameter index.
    pub parameter: u32,
    /// `UNTANGLE_ROOT_ARGUMENT_IN_*`.
    pub store: untangle_root_argument_store,
    /// The byte offset in its store.
    pub offset: u32,
    /// Its size in bytes.
    pub size: u32,
    /// `UNTANGLE_ROOT_ARGUMENT_*`.
    pub kind: untangle_root_argument_kind,
}

impl untangle_result {
    /// The root arguments in push constants, then those in the root argument buffer.
    fn root_arguments(&self) -> impl Iterator<Item = untangle_root_argument> + '_ {
        use untangle::rootsig::layout::PushKind;
        let layout = self.translation.layout.as_ref().map(|r| &r.layout);
        let push = layout.into_iter().flat_map(|l| l.push_constants.members.iter());
        let spilled = layout.into_iter().flat_map(|l| l.root_argument_buffer.iter().flat_map(|b| b.members.iter()));
        let of = |store: untangle_root_argument_store| {
            move |m: &untangle::rootsig::layout::PushMember| untangle_root_argument {
                parameter: m.parameter,
                store,
                offset: m.offset,
                size: m.size,
                kind: match m.kind {
                    PushKind::TableOffset { .. } => UNTANGLE_ROOT_ARGUMENT_TABLE_OFFSET,
                    PushKind::RootDescriptorAddress { .. } => UNTANGLE_ROOT_ARGUMENT_DESCRIPTOR_ADDRESS,
                    PushKind::RootConstants { .. } => UNTANGLE_ROOT_ARGUMENT_CONSTANTS,
                },
            }
        };
        push.map(of(UNTANGLE_ROOT_ARGUMENT_IN_PUSH_CONSTANTS)).chain(spilled.map(of(UNTANGLE_ROOT_ARGUMENT_IN_BUFFER)))
    }
}

/// Where the root arguments go under the push-constant budget
/// (`untangle_options_set_max_push_constant_bytes`): the push-constant size and the root
/// argument buffer, if any. Without a root signature `has_layout` is false.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_root_arguments(
    result: *const untangle_result,
    arguments: *mut untangle_root_arguments,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let r = result_ref(result)?;
            let out = out(arguments)?;
            let mut a = untangle_root_arguments::default();
            if let Some(report) = &r.translation.layout {
                let l = &report.layout;
                a.has_layout = true;
                a.push_constant_bytes = l.push_constants.size;
                if let Some(b) = &l.root_argument_buffer {
                    a.has_root_argument_buffer = true;
                    a.root_argument_buffer_set = b.set;
                    a.root_argument_buffer_binding = b.binding;
                    a.root_argument_buffer_bytes = b.size;
                }
                a.count = r.root_arguments().count();
            }
            out.set(a);
        }
        Ok(())
    })
}

/// Root argument `index` (0 to `untangle_root_arguments.count` - 1).
#[no_mangle]
pub unsafe extern "C" fn untangle_result_root_argument(
    result: *const untangle_result,
    index: usize,
    argument: *mut untangle_root_argument,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let r = result_ref(result)?;
            let a = r.root_arguments().nth(index).ok_or(untangle_status::UNTANGLE_INVALID_ARGUMENT)?;
            out(argument)?.set(a);
        }
        Ok(())
    })
}

impl untangle_result {
    fn properties(&self) -> Option<&untangle::dxil::EntryProperties> {
        self.entry.as_ref().map(|e| &e.properties)
    }
}

/// The workgroup size (`[numthreads(x, y, z)]`, the module's `LocalSize`) of a compute,
/// mesh, amplification or work-graph node entry, written to `size[0]`, `size[1]` and
/// `size[2]` (an array of three); 0, 0, 0 for a stage without one.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_workgroup_size(
    result: *const untangle_result,
    size: *mut u32,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let r = result_ref(result)?;
            let out = out(size.cast::<[u32; 3]>())?;
            let p = r.properties();
            let n = p
                .and_then(|p| {
                    p.num_threads
                        .or(p.mesh.as_ref().map(|m| m.num_threads))
                        .or(p.amplification.as_ref().map(|a| a.num_threads))
                })
                .unwrap_or([0; 3]);
            out.set(n);
        }
        Ok(())
    })
}

/// The entry's `[WaveSize]`: the subgroup sizes it may run with, `min` to `max` (one size,
/// `[WaveSize(32)]`: both 32; SM 6.8's range, `[WaveSize(16, 64)]`), and the size it
/// prefers within them (`[WaveSize(16, 64, 32)]`; 0 when it names none). A layer picks a
/// size in the range the device supports (the preferred one if it can) and sets it with
/// `VkPipelineShaderStageRequiredSubgroupSizeCreateInfo`. All 0 when the shader does not
/// say. Each out-parameter may be NULL.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_wave_size(
    result: *const untangle_result,
    min: *mut u32,
    max: *mut u32,
    preferred: *mut u32,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let r = result_ref(result)?;
            let w = r.properties().and_then(|p| p.wave_size);
            crate::error::write_opt(min, w.map_or(0, |w| w.min));
            crate::error::write_opt(max, w.map_or(0, |w| w.max));
            crate::error::write_opt(preferred, w.map_or(0, |w| w.preferred));
        }
        Ok(())
    })
}

/// The tessellation patch sizes: a hull shader's input control points (the
/// `patchControlPoints` of `VkPipelineTessellationStateCreateInfo`) and output control
/// points; a domain shader's input control points (the hull shader's output) and 0.
/// 0 and 0 for other stages. Each out-parameter may be NULL.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_control_points(
    result: *const untangle_result,
    input: *mut u32,
    output: *mut u32,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let p = result_ref(result)?.properties();
            let (i, o) = match (p.and_then(|p| p.hull.as_ref()), p.and_then(|p| p.domain.as_ref())) {
                (Some(h), _) => (h.input_control_points, h.output_control_points),
                (None, Some(d)) => (d.input_control_points, 0),
                (None, None) => (0, 0),
            };
            crate::error::write_opt(input, i);
            crate::error::write_opt(output, o);
        }
        Ok(())
    })
}

/// The patch constants of a hull or domain shader: how many 4-component registers its
/// patch-constant signature spans (tessellation factors included; the highest packed
/// row + 1, or the sum of the rows when the signature is not packed). 0 for other stages.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_patch_constant_rows(
    result: *const untangle_result,
    rows: *mut u32,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let r = result_ref(result)?;
            let out = out(rows)?;
            let elements = r.entry.as_ref().map_or(&[][..], |e| &e.signatures.patch_constants[..]);
            let packed =
                elements.iter().map(|e| e.start_row.map(|s| s.saturating_add(e.rows))).collect::<Option<Vec<_>>>();
            let n = match packed {
                Some(ends) => ends.into_iter().max().unwrap_or(0),
                None => elements.iter().map(|e| e.rows).fold(0u32, u32::saturating_add),
            };
            out.set(n);
        }
        Ok(())
    })
}

/// How many `OpCapability` instructions the SPIR-V module has (see
/// `untangle_result_capability`).
#[no_mangle]
pub unsafe extern "C" fn untangle_result_capability_count(
    result: *const untangle_result,
    count: *mut usize,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe { out(count)?.set(result_ref(result)?.capabilities.len()) };
        Ok(())
    })
}

/// Capability `index` (0 to count - 1) the module declares, in module order: a
/// `SpvCapability` value of spirv.h (`SpvCapabilityShader` = 1, `SpvCapabilityFloat16` =
/// 9, ...). The device must support each: a layer checks them against its features
/// (`shaderFloat16`, `shaderInt64`, ...) before creating the pipeline.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_capability(
    result: *const untangle_result,
    index: usize,
    capability: *mut u32,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let r = result_ref(result)?;
            let c = *r.capabilities.get(index).ok_or(untangle_status::UNTANGLE_INVALID_ARGUMENT)?;
            out(capability)?.set(c);
        }
        Ok(())
    })
}

/// How many `OpExtension` instructions the SPIR-V module has (see
/// `untangle_result_extension`).
#[no_mangle]
pub unsafe extern "C" fn untangle_result_extension_count(
    result: *const untangle_result,
    count: *mut usize,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe { out(count)?.set(result_ref(result)?.extensions.len()) };
        Ok(())
    })
}

/// The name of SPIR-V extension `index` (0 to count - 1) the module uses, in module order
/// (`"SPV_KHR_maximal_reconvergence"`; owned by the result). Most are also Vulkan device
/// extensions or features a layer must enable.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_extension(
    result: *const untangle_result,
    index: usize,
    name: *mut *const c_char,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let r = result_ref(result)?;
            let e = r.extensions.get(index).ok_or(untangle_status::UNTANGLE_INVALID_ARGUMENT)?;
            out(name)?.set(e.as_ptr());
        }
        Ok(())
    })
}
