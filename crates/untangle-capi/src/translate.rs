//! `untangle_translate` and its result.

use crate::error::{c_string, guard, guard_simple, guard_value, object, take, untangle_error, Failure, Out};
use crate::options::untangle_options;
use crate::reflect::{
    class_of, stage_of, untangle_resource_class, untangle_shader, untangle_stage, UNTANGLE_UNBOUNDED,
};
use crate::untangle_status;
use std::ffi::{c_char, CString};
use untangle::Translation;

/// Where one declared register range was bound: descriptor set and binding (ranges
/// reached otherwise, through push constants or a heap table, are in the layout JSON).
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
}

/// A translated shader: SPIR-V words and what a layer needs to bind them. Immutable:
/// readable from any thread. Free with `untangle_result_free`.
pub struct untangle_result {
    translation: Translation,
    entry_point: CString,
    layout_json: Option<CString>,
    binding_names: Vec<CString>,
}

/// Translates the shader's entry point to SPIR-V 1.6 for Vulkan 1.3. `options` may be NULL
/// (every default). On success `*result` receives a new result. The shader and options
/// are only read: several threads may translate one shader at once, with one or several
/// options objects. Remapping callbacks run on this thread before this call returns.
/// Errors: `UNTANGLE_UNSUPPORTED` (stage, operation, control flow), `UNTANGLE_MALFORMED`,
/// `UNTANGLE_ROOT_SIGNATURE` (the shader does not fit the root signature, e.g. an
/// uncovered register), `UNTANGLE_BINDING_MAP`, `UNTANGLE_STREAM_OUTPUT`,
/// `UNTANGLE_NOT_A_SHADER`, `UNTANGLE_INTERNAL`.
#[no_mangle]
pub unsafe extern "C" fn untangle_translate(
    shader: *const untangle_shader,
    options: *const untangle_options,
    result: *mut *mut untangle_result,
    error: *mut *mut untangle_error,
) -> untangle_status {
    guard(error, || {
        // SAFETY: a live shader (the caller's contract).
        let s = unsafe { object(shader, "shader") }?;
        let out = Out::new(result, "result")?;
        let opts = if options.is_null() {
            untangle::Options::default()
        } else {
            // SAFETY: live options no call modifies now (the caller's contract).
            unsafe { object(options, "options") }?.to_options()
        };
        let translation = s.shader.translate(&opts)?;
        let layout_json = match &translation.layout {
            Some(l) => Some(c_string(
                &serde_json::to_string(l)
                    .map_err(|e| Failure::new(untangle_status::UNTANGLE_INTERNAL, e.to_string()))?,
            )),
            None => None,
        };
        let r = untangle_result {
            entry_point: c_string(&translation.entry_point),
            binding_names: translation.bindings.iter().map(|b| c_string(&b.name)).collect(),
            layout_json,
            translation,
        };
        // SAFETY: checked; writable by contract.
        unsafe { out.set(Box::into_raw(Box::new(r))) };
        Ok(())
    })
}

/// Frees a result; NULL is ignored. Pointers obtained from it become invalid.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_free(result: *mut untangle_result) {
    // SAFETY: NULL or a result from untangle_translate, freed once.
    guard_value((), || drop(unsafe { take(result) }));
}

/// # Safety
/// `p` is NULL or a live result.
unsafe fn result_ref<'a>(p: *const untangle_result) -> Result<&'a untangle_result, untangle_status> {
    // SAFETY: the caller's contract.
    unsafe { object(p, "result") }.map_err(|f| f.status)
}

fn out<T>(p: *mut T) -> Result<Out<T>, untangle_status> {
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
/// `untangle-layout/1`, docs/layout-json.md; owned by the result): the pipeline layout to
/// create and where each of the shader's resources went. `*json` is NULL without a root
/// signature.
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

/// Descriptor binding `index` (0 to count - 1): the range and its set and binding.
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
            });
        }
        Ok(())
    })
}
