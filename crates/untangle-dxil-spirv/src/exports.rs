//! Every function of `include/dxil_spirv_c.h`, exported with its C signature.
//!
//! Each catches panics ([`guard`]: logged, then `DXIL_SPV_ERROR_GENERIC` or the function's
//! neutral value) and checks its pointer arguments (`DXIL_SPV_ERROR_INVALID_ARGUMENT`, or
//! nothing for functions returning nothing) before doing anything.

#![allow(clippy::missing_safety_doc)] // the header documents the contract of every function

use crate::blob::{is_dxbc_program, BlobImpl, NativeBlob, ParseKind, ParsedBlob, Route};
use crate::converter::{AnyCallback, Converter};
use crate::delegate;
use crate::ffi::*;
use crate::options::{MetaDescriptor, RootParameterMapping, TableEntry};
use std::ffi::{c_char, c_uint, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Runs `f`, turning a panic into a logged error and `on_panic`.
pub fn guard<R>(function: &str, on_panic: R, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            crate::log::error(&format!("{function}: internal error: {what}"));
            on_panic
        }
    }
}

macro_rules! check {
    ($($p:expr),+ => $ret:expr) => {
        if $($p.is_null())||+ {
            return $ret;
        }
    };
    ($($p:expr),+) => {
        if $($p.is_null())||+ {
            return;
        }
    };
}

unsafe fn blob<'a>(b: dxil_spv_parsed_blob) -> &'a ParsedBlob {
    &*(b as *const ParsedBlob)
}

unsafe fn conv<'a>(c: dxil_spv_converter) -> &'a mut Converter {
    &mut *(c as *mut Converter)
}

/// The delegate for a blob's calls (entered for this thread).
fn delegate_for(b: &ParsedBlob) -> Option<(&'static delegate::Delegate, *mut c_void)> {
    let h = b.delegate_handle()?;
    let d = delegate::loaded()?;
    d.enter();
    Some((d, h))
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_get_version(major: *mut c_uint, minor: *mut c_uint, patch: *mut c_uint) {
    guard("dxil_spv_get_version", (), || {
        check!(major, minor, patch);
        *major = DXIL_SPV_API_VERSION_MAJOR;
        *minor = DXIL_SPV_API_VERSION_MINOR;
        *patch = DXIL_SPV_API_VERSION_PATCH;
    })
}

// ---- Parsing ----------------------------------------------------------------------------------

unsafe fn parse(data: *const c_void, size: usize, out: *mut dxil_spv_parsed_blob, kind: ParseKind) -> dxil_spv_result {
    check!(data, out => DXIL_SPV_ERROR_INVALID_ARGUMENT);
    let config = crate::config::get();
    let bytes = std::slice::from_raw_parts(data as *const u8, size);
    let route = if kind == ParseKind::Container && is_dxbc_program(bytes) {
        Route::DelegateDxbc
    } else if config.reference || kind == ParseKind::Reflection {
        Route::DelegateDxil
    } else {
        Route::Untangle
    };
    let imp = if route == Route::Untangle {
        match NativeBlob::parse(bytes) {
            Ok(n) => BlobImpl::Native(Box::new(n)),
            Err(e) => {
                crate::log::error(&format!("cannot parse the DXIL: {e}"));
                return DXIL_SPV_ERROR_PARSER;
            }
        }
    } else {
        let d = match delegate::get() {
            Ok(d) => d,
            Err(e) => {
                let what = if route == Route::DelegateDxbc { "a DXBC shader" } else { "DXIL in the reference mode" };
                crate::log::error(&format!("{what} needs dxil-spirv, which is unavailable: {e}"));
                return DXIL_SPV_ERROR_UNSUPPORTED_FEATURE;
            }
        };
        d.enter();
        let mut h = std::ptr::null_mut();
        let f = match kind {
            ParseKind::Container => d.f.dxil_spv_parse_dxil_blob,
            ParseKind::Reflection => d.f.dxil_spv_parse_reflection_dxil_blob,
            ParseKind::Bitcode => d.f.dxil_spv_parse_dxil,
        };
        let r = f(data, size, &mut h);
        if r != DXIL_SPV_SUCCESS {
            return r;
        }
        BlobImpl::Delegate(h)
    };
    let record = config.record_dir.is_some() && route.is_dxil();
    let parsed = ParsedBlob {
        route,
        kind,
        imp,
        bytes: record.then(|| Arc::from(bytes)),
        sha256: record.then(|| crate::sha256::hex(bytes)),
        shadow: Default::default(),
    };
    *out = Box::into_raw(Box::new(parsed)) as dxil_spv_parsed_blob;
    DXIL_SPV_SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parse_dxil_blob(
    data: *const c_void,
    size: usize,
    blob: *mut dxil_spv_parsed_blob,
) -> dxil_spv_result {
    guard("dxil_spv_parse_dxil_blob", DXIL_SPV_ERROR_GENERIC, || parse(data, size, blob, ParseKind::Container))
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parse_reflection_dxil_blob(
    data: *const c_void,
    size: usize,
    blob: *mut dxil_spv_parsed_blob,
) -> dxil_spv_result {
    guard("dxil_spv_parse_reflection_dxil_blob", DXIL_SPV_ERROR_GENERIC, || {
        parse(data, size, blob, ParseKind::Reflection)
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parse_dxil(
    data: *const c_void,
    size: usize,
    blob: *mut dxil_spv_parsed_blob,
) -> dxil_spv_result {
    guard("dxil_spv_parse_dxil", DXIL_SPV_ERROR_GENERIC, || parse(data, size, blob, ParseKind::Bitcode))
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_dump_llvm_ir(b: dxil_spv_parsed_blob) {
    guard("dxil_spv_parsed_blob_dump_llvm_ir", (), || {
        check!(b);
        match delegate_for(blob(b)) {
            Some((d, h)) => (d.f.dxil_spv_parsed_blob_dump_llvm_ir)(h),
            None => crate::log::warn("dxil_spv_parsed_blob_dump_llvm_ir: no LLVM assembly on the untangle path"),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_disassembled_ir(
    b: dxil_spv_parsed_blob,
    str_: *mut *const c_char,
) -> dxil_spv_result {
    guard("dxil_spv_parsed_blob_get_disassembled_ir", DXIL_SPV_ERROR_GENERIC, || {
        check!(b, str_ => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        match delegate_for(blob(b)) {
            Some((d, h)) => (d.f.dxil_spv_parsed_blob_get_disassembled_ir)(h, str_),
            None => {
                crate::log::warn("dxil_spv_parsed_blob_get_disassembled_ir: no LLVM assembly on the untangle path");
                DXIL_SPV_ERROR_UNSUPPORTED_FEATURE
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_raw_ir(
    b: dxil_spv_parsed_blob,
    data: *mut *const c_void,
    size: *mut usize,
) -> dxil_spv_result {
    guard("dxil_spv_parsed_blob_get_raw_ir", DXIL_SPV_ERROR_GENERIC, || {
        check!(b, data, size => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        let pb = blob(b);
        if let Some((d, h)) = delegate_for(pb) {
            return (d.f.dxil_spv_parsed_blob_get_raw_ir)(h, data, size);
        }
        let native = pb.native().expect("native blob");
        match untangle::front::bitcode_of(&native.shader.loaded().bytes) {
            Ok(Some(bc)) if !bc.is_empty() => {
                *data = bc.as_ptr() as *const c_void;
                *size = bc.len();
                DXIL_SPV_SUCCESS
            }
            _ => DXIL_SPV_ERROR_GENERIC,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_shader_stage(b: dxil_spv_parsed_blob) -> dxil_spv_shader_stage {
    guard("dxil_spv_parsed_blob_get_shader_stage", DXIL_SPV_STAGE_UNKNOWN, || {
        check!(b => DXIL_SPV_STAGE_UNKNOWN);
        match delegate_for(blob(b)) {
            Some((d, h)) => (d.f.dxil_spv_parsed_blob_get_shader_stage)(h),
            None => blob(b).native().map_or(DXIL_SPV_STAGE_UNKNOWN, |n| n.stage()),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_shader_stage_for_entry(
    b: dxil_spv_parsed_blob,
    entry: *const c_char,
) -> dxil_spv_shader_stage {
    guard("dxil_spv_parsed_blob_get_shader_stage_for_entry", DXIL_SPV_STAGE_UNKNOWN, || {
        check!(b => DXIL_SPV_STAGE_UNKNOWN);
        if let Some((d, h)) = delegate_for(blob(b)) {
            return (d.f.dxil_spv_parsed_blob_get_shader_stage_for_entry)(h, entry);
        }
        let native = blob(b).native().expect("native blob");
        if entry.is_null() {
            return native.stage();
        }
        let name = CStr::from_ptr(entry).to_string_lossy();
        native.entry_index(&name).map_or(DXIL_SPV_STAGE_UNKNOWN, |i| native.entries[i].stage)
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_entry_index_by_name(
    b: dxil_spv_parsed_blob,
    entry: *const c_char,
    index: *mut c_uint,
) -> dxil_spv_result {
    guard("dxil_spv_parsed_blob_get_entry_index_by_name", DXIL_SPV_ERROR_GENERIC, || {
        check!(b, entry, index => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        if let Some((d, h)) = delegate_for(blob(b)) {
            return (d.f.dxil_spv_parsed_blob_get_entry_index_by_name)(h, entry, index);
        }
        let name = CStr::from_ptr(entry).to_string_lossy();
        match blob(b).native().and_then(|n| n.entry_index(&name)) {
            Some(i) => {
                *index = i as c_uint;
                DXIL_SPV_SUCCESS
            }
            None => DXIL_SPV_ERROR_GENERIC,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_num_entry_points(
    b: dxil_spv_parsed_blob,
    count: *mut c_uint,
) -> dxil_spv_result {
    guard("dxil_spv_parsed_blob_get_num_entry_points", DXIL_SPV_ERROR_GENERIC, || {
        check!(b, count => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        if let Some((d, h)) = delegate_for(blob(b)) {
            return (d.f.dxil_spv_parsed_blob_get_num_entry_points)(h, count);
        }
        *count = blob(b).native().map_or(0, |n| n.entries.len()) as c_uint;
        DXIL_SPV_SUCCESS
    })
}

unsafe fn entry_name(
    b: dxil_spv_parsed_blob,
    index: c_uint,
    out: *mut *const c_char,
    demangled: bool,
) -> dxil_spv_result {
    check!(b, out => DXIL_SPV_ERROR_INVALID_ARGUMENT);
    if let Some((d, h)) = delegate_for(blob(b)) {
        return if demangled {
            (d.f.dxil_spv_parsed_blob_get_entry_point_demangled_name)(h, index, out)
        } else {
            (d.f.dxil_spv_parsed_blob_get_entry_point_name)(h, index, out)
        };
    }
    match blob(b).native().and_then(|n| n.entries.get(index as usize)) {
        Some(e) => {
            *out = if demangled { e.demangled.as_ptr() } else { e.mangled.as_ptr() };
            DXIL_SPV_SUCCESS
        }
        None => DXIL_SPV_ERROR_INVALID_ARGUMENT,
    }
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_entry_point_name(
    b: dxil_spv_parsed_blob,
    index: c_uint,
    mangled_entry: *mut *const c_char,
) -> dxil_spv_result {
    guard("dxil_spv_parsed_blob_get_entry_point_name", DXIL_SPV_ERROR_GENERIC, || {
        entry_name(b, index, mangled_entry, false)
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_entry_point_demangled_name(
    b: dxil_spv_parsed_blob,
    index: c_uint,
    demangled_entry: *mut *const c_char,
) -> dxil_spv_result {
    guard("dxil_spv_parsed_blob_get_entry_point_demangled_name", DXIL_SPV_ERROR_GENERIC, || {
        entry_name(b, index, demangled_entry, true)
    })
}

/// Entry `index` of a blob parsed by untangle (`None` past the last, as dxil-spirv's
/// `INVALID_ARGUMENT`).
fn native_entry(b: &ParsedBlob, index: c_uint) -> Option<&crate::blob::NativeEntry> {
    b.native()?.entries.get(index as usize)
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_entry_point_node_input(
    b: dxil_spv_parsed_blob,
    index: c_uint,
    data: *mut dxil_spv_node_input_data,
) -> dxil_spv_result {
    guard("dxil_spv_parsed_blob_get_entry_point_node_input", DXIL_SPV_ERROR_GENERIC, || {
        check!(b, data => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        match delegate_for(blob(b)) {
            Some((d, h)) => (d.f.dxil_spv_parsed_blob_get_entry_point_node_input)(h, index, data),
            None => match native_entry(blob(b), index) {
                Some(e) => {
                    *data = e.node_input.c();
                    DXIL_SPV_SUCCESS
                }
                None => DXIL_SPV_ERROR_INVALID_ARGUMENT,
            },
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_entry_point_num_node_outputs(
    b: dxil_spv_parsed_blob,
    index: c_uint,
    num_outputs: *mut c_uint,
) -> dxil_spv_result {
    guard("dxil_spv_parsed_blob_get_entry_point_num_node_outputs", DXIL_SPV_ERROR_GENERIC, || {
        check!(b, num_outputs => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        match delegate_for(blob(b)) {
            Some((d, h)) => (d.f.dxil_spv_parsed_blob_get_entry_point_num_node_outputs)(h, index, num_outputs),
            None => match native_entry(blob(b), index) {
                Some(e) => {
                    *num_outputs = e.node_outputs.len() as c_uint;
                    DXIL_SPV_SUCCESS
                }
                None => DXIL_SPV_ERROR_INVALID_ARGUMENT,
            },
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_entry_point_node_output(
    b: dxil_spv_parsed_blob,
    index: c_uint,
    output_index: c_uint,
    data: *mut dxil_spv_node_output_data,
) -> dxil_spv_result {
    guard("dxil_spv_parsed_blob_get_entry_point_node_output", DXIL_SPV_ERROR_GENERIC, || {
        check!(b, data => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        match delegate_for(blob(b)) {
            Some((d, h)) => (d.f.dxil_spv_parsed_blob_get_entry_point_node_output)(h, index, output_index, data),
            None => match native_entry(blob(b), index).and_then(|e| e.node_outputs.get(output_index as usize)) {
                Some(o) => {
                    *data = o.c();
                    DXIL_SPV_SUCCESS
                }
                None => DXIL_SPV_ERROR_INVALID_ARGUMENT,
            },
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_scan_resources(
    b: dxil_spv_parsed_blob,
    srv_remapper: dxil_spv_srv_remapper_cb,
    sampler_remapper: dxil_spv_sampler_remapper_cb,
    cbv_remapper: dxil_spv_cbv_remapper_cb,
    uav_remapper: dxil_spv_uav_remapper_cb,
    userdata: *mut c_void,
) -> dxil_spv_result {
    guard("dxil_spv_parsed_blob_scan_resources", DXIL_SPV_ERROR_GENERIC, || {
        check!(b => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        match delegate_for(blob(b)) {
            Some((d, h)) => (d.f.dxil_spv_parsed_blob_scan_resources)(
                h,
                srv_remapper,
                sampler_remapper,
                cbv_remapper,
                uav_remapper,
                userdata,
            ),
            None => {
                crate::log::error("dxil_spv_parsed_blob_scan_resources: not implemented on the untangle path");
                DXIL_SPV_ERROR_UNSUPPORTED_FEATURE
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_num_rdat_subobjects(b: dxil_spv_parsed_blob) -> c_uint {
    guard("dxil_spv_parsed_blob_get_num_rdat_subobjects", 0, || {
        check!(b => 0);
        match delegate_for(blob(b)) {
            Some((d, h)) => (d.f.dxil_spv_parsed_blob_get_num_rdat_subobjects)(h),
            None => blob(b).native().map_or(0, |n| n.num_subobjects()) as c_uint,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_rdat_subobject(
    b: dxil_spv_parsed_blob,
    index: c_uint,
    subobject: *mut dxil_spv_rdat_subobject,
) {
    guard("dxil_spv_parsed_blob_get_rdat_subobject", (), || {
        check!(b, subobject);
        match delegate_for(blob(b)) {
            Some((d, h)) => {
                // dxil-spirv does not check the index; neither may we let it read past its table.
                if index < (d.f.dxil_spv_parsed_blob_get_num_rdat_subobjects)(h) {
                    (d.f.dxil_spv_parsed_blob_get_rdat_subobject)(h, index, subobject)
                }
            }
            None => {
                if let Some(n) = blob(b).native() {
                    n.subobject(index as usize, &mut *subobject);
                }
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_parsed_blob_free(b: dxil_spv_parsed_blob) {
    guard("dxil_spv_parsed_blob_free", (), || {
        if !b.is_null() {
            drop(Box::from_raw(b as *mut ParsedBlob));
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_set_thread_log_callback(callback: dxil_spv_log_cb, userdata: *mut c_void) {
    guard("dxil_spv_set_thread_log_callback", (), || {
        crate::log::set_thread_callback(callback, userdata);
        if let Some(d) = delegate::loaded() {
            d.enter();
        }
    })
}

// ---- Converter ---------------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_create_converter(
    b: dxil_spv_parsed_blob,
    converter: *mut dxil_spv_converter,
) -> dxil_spv_result {
    guard("dxil_spv_create_converter", DXIL_SPV_ERROR_GENERIC, || {
        check!(b, converter => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        match Converter::new(b as *const ParsedBlob, None) {
            Ok(c) => {
                *converter = Box::into_raw(Box::new(c)) as dxil_spv_converter;
                DXIL_SPV_SUCCESS
            }
            Err(r) => r,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_create_converter_with_reflection(
    b: dxil_spv_parsed_blob,
    reflection_blob: dxil_spv_parsed_blob,
    converter: *mut dxil_spv_converter,
) -> dxil_spv_result {
    guard("dxil_spv_create_converter_with_reflection", DXIL_SPV_ERROR_GENERIC, || {
        check!(b, converter => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        let reflection = (!reflection_blob.is_null()).then_some(reflection_blob as *const ParsedBlob);
        match Converter::new(b as *const ParsedBlob, reflection) {
            Ok(c) => {
                *converter = Box::into_raw(Box::new(c)) as dxil_spv_converter;
                DXIL_SPV_SUCCESS
            }
            Err(r) => r,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_free(c: dxil_spv_converter) {
    guard("dxil_spv_converter_free", (), || {
        if !c.is_null() {
            drop(Box::from_raw(c as *mut Converter));
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_set_entry_point(c: dxil_spv_converter, entry_point: *const c_char) {
    guard("dxil_spv_converter_set_entry_point", (), || {
        check!(c);
        conv(c).set_entry_point(entry_point)
    })
}

macro_rules! set_remapper {
    ($name:ident, $cb:ty, $variant:ident) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(c: dxil_spv_converter, remapper: $cb, userdata: *mut c_void) {
            guard(stringify!($name), (), || {
                check!(c);
                conv(c).set_callback(AnyCallback::$variant(remapper), userdata)
            })
        }
    };
}

set_remapper!(dxil_spv_converter_set_stage_input_remapper, dxil_spv_shader_stage_io_remapper_cb, StageInput);
set_remapper!(dxil_spv_converter_set_stage_output_remapper, dxil_spv_shader_stage_io_remapper_cb, StageOutput);
set_remapper!(dxil_spv_converter_set_vertex_input_remapper, dxil_spv_vertex_input_remapper_cb, VertexInput);
set_remapper!(dxil_spv_converter_set_stream_output_remapper, dxil_spv_stream_output_remapper_cb, StreamOutput);
set_remapper!(dxil_spv_converter_set_srv_remapper, dxil_spv_srv_remapper_cb, Srv);
set_remapper!(dxil_spv_converter_set_sampler_remapper, dxil_spv_sampler_remapper_cb, Sampler);
set_remapper!(dxil_spv_converter_set_uav_remapper, dxil_spv_uav_remapper_cb, Uav);
set_remapper!(dxil_spv_converter_set_cbv_remapper, dxil_spv_cbv_remapper_cb, Cbv);

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_set_root_constant_word_count(c: dxil_spv_converter, num_words: c_uint) {
    guard("dxil_spv_converter_set_root_constant_word_count", (), || {
        check!(c);
        conv(c).set_root_constant_word_count(num_words)
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_set_root_descriptor_count(c: dxil_spv_converter, count: c_uint) {
    guard("dxil_spv_converter_set_root_descriptor_count", (), || {
        check!(c);
        conv(c).set_root_descriptor_count(count)
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_add_local_root_constants(
    c: dxil_spv_converter,
    register_space: c_uint,
    register_index: c_uint,
    num_words: c_uint,
) {
    guard("dxil_spv_converter_add_local_root_constants", (), || {
        check!(c);
        conv(c).add_local_root_constants(register_space, register_index, num_words)
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_add_local_root_descriptor(
    c: dxil_spv_converter,
    resource_class: dxil_spv_resource_class,
    register_space: c_uint,
    register_index: c_uint,
) {
    guard("dxil_spv_converter_add_local_root_descriptor", (), || {
        check!(c);
        conv(c).add_local_root_descriptor(resource_class, register_space, register_index)
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_add_local_root_descriptor_table(
    c: dxil_spv_converter,
    resource_class: dxil_spv_resource_class,
    register_space: c_uint,
    register_index: c_uint,
    num_descriptors_in_range: c_uint,
    offset_in_heap: c_uint,
) {
    guard("dxil_spv_converter_add_local_root_descriptor_table", (), || {
        check!(c);
        conv(c).add_local_root_descriptor_table(TableEntry {
            resource_class,
            register_space,
            register_index,
            num_descriptors_in_range,
            offset_in_heap,
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_begin_local_root_descriptor_table(
    c: dxil_spv_converter,
) -> dxil_spv_result {
    guard("dxil_spv_converter_begin_local_root_descriptor_table", DXIL_SPV_ERROR_GENERIC, || {
        check!(c => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        conv(c).begin_local_root_descriptor_table()
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_end_local_root_descriptor_table(c: dxil_spv_converter) -> dxil_spv_result {
    guard("dxil_spv_converter_end_local_root_descriptor_table", DXIL_SPV_ERROR_GENERIC, || {
        check!(c => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        conv(c).end_local_root_descriptor_table()
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_add_root_parameter_mapping(
    c: dxil_spv_converter,
    root_parameter_index: c_uint,
    offset: c_uint,
) {
    guard("dxil_spv_converter_add_root_parameter_mapping", (), || {
        check!(c);
        conv(c).add_root_parameter_mapping(RootParameterMapping::Offset { root_parameter_index, offset })
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_add_root_descriptor_mapping(
    c: dxil_spv_converter,
    root_parameter_index: c_uint,
    desc_set: c_uint,
    binding: c_uint,
) {
    guard("dxil_spv_converter_add_root_descriptor_mapping", (), || {
        check!(c);
        conv(c).add_root_parameter_mapping(RootParameterMapping::Descriptor { root_parameter_index, desc_set, binding })
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_add_non_semantic_debug_info(
    c: dxil_spv_converter,
    tag: *const c_char,
    data: *const c_void,
    size: usize,
) {
    guard("dxil_spv_converter_add_non_semantic_debug_info", (), || {
        check!(c);
        conv(c).add_non_semantic_debug_info(tag, data, size)
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_set_patch_location_offset(c: dxil_spv_converter, offset: c_uint) {
    guard("dxil_spv_converter_set_patch_location_offset", (), || {
        check!(c);
        conv(c).set_patch_location_offset(offset)
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_run(c: dxil_spv_converter) -> dxil_spv_result {
    guard("dxil_spv_converter_run", DXIL_SPV_ERROR_GENERIC, || {
        check!(c => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        conv(c).run()
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_get_compiled_spirv(
    c: dxil_spv_converter,
    compiled: *mut dxil_spv_compiled_spirv,
) -> dxil_spv_result {
    guard("dxil_spv_converter_get_compiled_spirv", DXIL_SPV_ERROR_GENERIC, || {
        check!(c, compiled => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        let cv = conv(c);
        if let Some((d, h)) = cv.forward() {
            return (d.f.dxil_spv_converter_get_compiled_spirv)(h, compiled);
        }
        match cv.spirv() {
            Some(bytes) => {
                *compiled = dxil_spv_compiled_spirv { data: bytes.as_ptr() as *const c_void, size: bytes.len() };
                DXIL_SPV_SUCCESS
            }
            None => DXIL_SPV_ERROR_GENERIC,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_get_compiled_entry_point(
    c: dxil_spv_converter,
    entry_point: *mut *const c_char,
) -> dxil_spv_result {
    guard("dxil_spv_converter_get_compiled_entry_point", DXIL_SPV_ERROR_GENERIC, || {
        check!(c, entry_point => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        let cv = conv(c);
        if let Some((d, h)) = cv.forward() {
            return (d.f.dxil_spv_converter_get_compiled_entry_point)(h, entry_point);
        }
        match cv.compiled_entry_point() {
            Some(p) => {
                *entry_point = p;
                DXIL_SPV_SUCCESS
            }
            None => DXIL_SPV_ERROR_GENERIC,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_supports_option(option: dxil_spv_option) -> dxil_spv_bool {
    guard("dxil_spv_converter_supports_option", DXIL_SPV_FALSE, || {
        if option < DXIL_SPV_OPTION_COUNT {
            DXIL_SPV_TRUE
        } else {
            DXIL_SPV_FALSE
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_add_option(
    c: dxil_spv_converter,
    option: *const dxil_spv_option_base,
) -> dxil_spv_result {
    guard("dxil_spv_converter_add_option", DXIL_SPV_ERROR_GENERIC, || {
        check!(c, option => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        if (*option).type_ >= DXIL_SPV_OPTION_COUNT {
            return DXIL_SPV_ERROR_UNSUPPORTED_FEATURE;
        }
        conv(c).add_option(option)
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_uses_subgroup_size(c: dxil_spv_converter) -> dxil_spv_bool {
    guard("dxil_spv_converter_uses_subgroup_size", DXIL_SPV_FALSE, || {
        check!(c => DXIL_SPV_FALSE);
        let cv = conv(c);
        match cv.forward() {
            Some((d, h)) => (d.f.dxil_spv_converter_uses_subgroup_size)(h),
            None => cv.with_output(|o| o.uses_subgroup_size as dxil_spv_bool),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_get_compute_workgroup_dimensions(
    c: dxil_spv_converter,
    x: *mut c_uint,
    y: *mut c_uint,
    z: *mut c_uint,
) -> dxil_spv_result {
    guard("dxil_spv_converter_get_compute_workgroup_dimensions", DXIL_SPV_ERROR_GENERIC, || {
        check!(c, x, y, z => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        let cv = conv(c);
        if let Some((d, h)) = cv.forward() {
            return (d.f.dxil_spv_converter_get_compute_workgroup_dimensions)(h, x, y, z);
        }
        [*x, *y, *z] = cv.with_output(|o| o.workgroup_size);
        DXIL_SPV_SUCCESS
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_get_compute_required_wave_size(
    c: dxil_spv_converter,
    wave_size: *mut c_uint,
) -> dxil_spv_result {
    guard("dxil_spv_converter_get_compute_required_wave_size", DXIL_SPV_ERROR_GENERIC, || {
        check!(c, wave_size => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        let cv = conv(c);
        if let Some((d, h)) = cv.forward() {
            return (d.f.dxil_spv_converter_get_compute_required_wave_size)(h, wave_size);
        }
        let (min, max) = cv.with_output(|o| (o.wave_size_min, o.wave_size_max));
        // A range cannot be expressed here (dxil-spirv's rule).
        if max != 0 && min != max {
            return DXIL_SPV_ERROR_GENERIC;
        }
        *wave_size = min;
        DXIL_SPV_SUCCESS
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_get_compute_wave_size_range(
    c: dxil_spv_converter,
    wave_size: *mut c_uint,
    wave_size_max: *mut c_uint,
    wave_size_preferred: *mut c_uint,
) -> dxil_spv_result {
    guard("dxil_spv_converter_get_compute_wave_size_range", DXIL_SPV_ERROR_GENERIC, || {
        check!(c, wave_size, wave_size_max, wave_size_preferred => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        let cv = conv(c);
        if let Some((d, h)) = cv.forward() {
            return (d.f.dxil_spv_converter_get_compute_wave_size_range)(
                h,
                wave_size,
                wave_size_max,
                wave_size_preferred,
            );
        }
        [*wave_size, *wave_size_max, *wave_size_preferred] =
            cv.with_output(|o| [o.wave_size_min, o.wave_size_max, o.wave_size_preferred]);
        DXIL_SPV_SUCCESS
    })
}

macro_rules! getter_u32 {
    ($name:ident, $field:ident) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(c: dxil_spv_converter, value: *mut c_uint) -> dxil_spv_result {
            guard(stringify!($name), DXIL_SPV_ERROR_GENERIC, || {
                check!(c, value => DXIL_SPV_ERROR_INVALID_ARGUMENT);
                let cv = conv(c);
                if let Some((d, h)) = cv.forward() {
                    return (d.f.$name)(h, value);
                }
                *value = cv.with_output(|o| o.$field);
                DXIL_SPV_SUCCESS
            })
        }
    };
}

getter_u32!(dxil_spv_converter_get_compute_heuristic_max_wave_size, heuristic_max_wave_size);
getter_u32!(dxil_spv_converter_get_compute_heuristic_min_wave_size, heuristic_min_wave_size);
getter_u32!(dxil_spv_converter_get_patch_vertex_count, patch_vertex_count);
getter_u32!(dxil_spv_converter_get_patch_location_offset, patch_location_offset);

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_uses_shader_feature(
    c: dxil_spv_converter,
    feature: dxil_spv_shader_feature,
) -> dxil_spv_bool {
    guard("dxil_spv_converter_uses_shader_feature", DXIL_SPV_FALSE, || {
        check!(c => DXIL_SPV_FALSE);
        let cv = conv(c);
        match cv.forward() {
            Some((d, h)) => (d.f.dxil_spv_converter_uses_shader_feature)(h, feature),
            None if feature == DXIL_SPV_SHADER_FEATURE_NATIVE_16BIT_OPERATIONS => {
                cv.with_output(|o| o.native_16bit_operations as dxil_spv_bool)
            }
            None => DXIL_SPV_FALSE,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_is_multiview_compatible(
    c: dxil_spv_converter,
    result: *mut dxil_spv_bool,
) -> dxil_spv_result {
    guard("dxil_spv_converter_is_multiview_compatible", DXIL_SPV_ERROR_GENERIC, || {
        check!(c, result => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        let cv = conv(c);
        if let Some((d, h)) = cv.forward() {
            return (d.f.dxil_spv_converter_is_multiview_compatible)(h, result);
        }
        *result = cv.with_output(|o| o.multiview_compatible as dxil_spv_bool);
        DXIL_SPV_SUCCESS
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_get_analysis_warnings(c: dxil_spv_converter) -> *const c_char {
    guard("dxil_spv_converter_get_analysis_warnings", std::ptr::null(), || {
        check!(c => std::ptr::null());
        conv(c).analysis_warnings()
    })
}

#[no_mangle]
pub unsafe extern "C" fn dxil_spv_converter_set_meta_descriptor(
    c: dxil_spv_converter,
    meta: dxil_spv_meta_descriptor,
    kind: dxil_spv_meta_descriptor_kind,
    desc_set: c_uint,
    binding_or_push_index: c_uint,
) -> dxil_spv_result {
    guard("dxil_spv_converter_set_meta_descriptor", DXIL_SPV_ERROR_GENERIC, || {
        check!(c => DXIL_SPV_ERROR_INVALID_ARGUMENT);
        conv(c).set_meta_descriptor(MetaDescriptor { meta, kind, desc_set, binding_or_push_index })
    })
}

#[no_mangle]
pub extern "C" fn dxil_spv_begin_thread_allocator_context() {
    guard("dxil_spv_begin_thread_allocator_context", (), delegate::begin_thread_allocator_context)
}

#[no_mangle]
pub extern "C" fn dxil_spv_end_thread_allocator_context() {
    guard("dxil_spv_end_thread_allocator_context", (), delegate::end_thread_allocator_context)
}

#[no_mangle]
pub extern "C" fn dxil_spv_reset_thread_allocator_context() {
    guard("dxil_spv_reset_thread_allocator_context", (), delegate::reset_thread_allocator_context)
}
