//! The C API called from Rust (the crate is also an rlib): reflection agrees with the Rust
//! API on the whole corpus, root signatures given as RTS0 bytes and as strings agree, the
//! binding map and the embedded-root-signature switch pass through, and one shader and
//! one options object serve concurrent translations on several threads, callbacks and all.

use std::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};
use untangle::rootsig::{self, Version};
use untangle::Shader;
use untangle_capi::*;

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(MANIFEST).join("../../../shared/corpus/dxil/vkd3d-proton");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        assert!(std::env::var_os("CI").is_none(), "{} is missing under CI", dir.display());
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    v.sort();
    v
}

fn shared(name: &str) -> Option<Vec<u8>> {
    corpus().into_iter().find(|p| p.file_name().is_some_and(|n| n == name)).map(|p| std::fs::read(p).unwrap())
}

/// Parses through the C API.
fn parse(bytes: &[u8]) -> Result<*mut untangle_shader, untangle_status> {
    let mut shader = null_mut();
    // SAFETY: valid buffer and out-pointer; no error wanted.
    let st = unsafe { untangle_shader_parse(bytes.as_ptr(), bytes.len(), &mut shader, null_mut()) };
    if st == untangle_status::UNTANGLE_OK {
        Ok(shader)
    } else {
        assert!(shader.is_null());
        Err(st)
    }
}

fn str_of(p: *const std::ffi::c_char) -> String {
    assert!(!p.is_null());
    // SAFETY: the API hands out NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string()
}

/// Translates through the C API: the words, or the status and message.
///
/// # Safety
/// Live shader; NULL or live options.
unsafe fn translate(
    shader: *const untangle_shader,
    options: *const untangle_options,
) -> Result<(Vec<u32>, Option<String>), (untangle_status, String)> {
    let mut result = null_mut();
    let mut error = null_mut();
    // SAFETY: the caller's contract; the out-pointers are valid.
    let st = unsafe { untangle_translate(shader, options, &mut result, &mut error) };
    if st != untangle_status::UNTANGLE_OK {
        // SAFETY: an error object from the failed call.
        let message = unsafe { str_of(untangle_error_message(error)) };
        // SAFETY: as above.
        assert_eq!(unsafe { untangle_error_status(error) }, st);
        // SAFETY: freed once.
        unsafe { untangle_error_free(error) };
        return Err((st, message));
    }
    assert!(error.is_null());
    let (mut words, mut count, mut json) = (null(), 0usize, null());
    // SAFETY: a live result and valid out-pointers.
    unsafe {
        assert_eq!(untangle_result_spirv(result, &mut words, &mut count), untangle_status::UNTANGLE_OK);
        assert_eq!(untangle_result_layout_json(result, &mut json), untangle_status::UNTANGLE_OK);
    }
    // SAFETY: `count` words at `words`, owned by the result.
    let v = unsafe { std::slice::from_raw_parts(words, count) }.to_vec();
    let json = (!json.is_null()).then(|| str_of(json));
    // SAFETY: freed once.
    unsafe { untangle_result_free(result) };
    Ok((v, json))
}

fn options() -> *mut untangle_options {
    let mut o = null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { untangle_options_create(&mut o) }, untangle_status::UNTANGLE_OK);
    o
}

#[test]
fn reflection_agrees_with_the_rust_api() {
    let mut checked = 0;
    for path in corpus() {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(rust) = Shader::parse(&bytes) else {
            assert!(parse(&bytes).is_err());
            continue;
        };
        let c = parse(&bytes).unwrap();
        // SAFETY: `c` is live until freed below; out-pointers are valid.
        unsafe {
            let (mut stage, mut major, mut minor) = (99, 99, 99);
            assert_eq!(untangle_shader_stage(c, &mut stage), untangle_status::UNTANGLE_OK);
            assert_eq!(stage, rust.stage().to_raw());
            untangle_shader_model(c, &mut major, &mut minor);
            assert_eq!((major, minor), (rust.shader_model().major, rust.shader_model().minor));
            let mut n = 0;
            // The entries' export names: a library's module entry and `\x01` prefixes left out.
            untangle_shader_entry_point_count(c, &mut n);
            assert_eq!(n, rust.entry_names().len());
            for (i, e) in rust.entry_names().iter().enumerate() {
                let mut name = null();
                untangle_shader_entry_point_name(c, i, &mut name);
                assert_eq!(&str_of(name), e);
            }
            untangle_shader_resource_count(c, &mut n);
            let resources: Vec<_> = rust.resources().iter().collect();
            assert_eq!(n, resources.len());
            for (i, r) in resources.iter().enumerate() {
                let mut out = std::mem::MaybeUninit::<untangle_resource>::uninit();
                assert_eq!(untangle_shader_resource(c, i, out.as_mut_ptr()), untangle_status::UNTANGLE_OK);
                let out = out.assume_init();
                assert_eq!(out.resource_class, r.class.index());
                assert_eq!(out.kind, r.kind.to_raw());
                assert_eq!((out.id, out.space, out.base_register), (r.id, r.space, r.lower_bound));
                assert_eq!(out.count, r.range_size.unwrap_or(UNTANGLE_UNBOUNDED));
                assert_eq!(out.has_counter, r.uav.is_some_and(|u| u.has_counter));
                assert_eq!(str_of(out.name), r.name);
            }
            let sigs = rust.signatures().cloned().unwrap_or_default();
            for (which, list) in [
                (UNTANGLE_SIGNATURE_INPUT, &sigs.inputs),
                (UNTANGLE_SIGNATURE_OUTPUT, &sigs.outputs),
                (UNTANGLE_SIGNATURE_PATCH_CONSTANT, &sigs.patch_constants),
            ] {
                untangle_shader_signature_count(c, which, &mut n);
                assert_eq!(n, list.len());
                for (i, e) in list.iter().enumerate() {
                    let mut out = std::mem::MaybeUninit::<untangle_signature_element>::uninit();
                    assert_eq!(
                        untangle_shader_signature_element(c, which, i, out.as_mut_ptr()),
                        untangle_status::UNTANGLE_OK
                    );
                    let out = out.assume_init();
                    assert_eq!(str_of(out.semantic), e.semantic);
                    let indices = std::slice::from_raw_parts(out.semantic_indices, out.semantic_index_count as usize);
                    if !e.semantic_indices.is_empty() {
                        assert_eq!(indices, &e.semantic_indices[..]);
                    }
                    assert_eq!(out.semantic_index, indices[0]);
                    assert_eq!(out.system_value, e.system_value.to_raw());
                    assert_eq!(out.component_type, e.component_type.to_raw());
                    assert_eq!(out.interpolation, e.interpolation.to_raw());
                    assert_eq!((out.rows, out.cols, out.id), (e.rows, e.cols, e.id));
                    assert_eq!(out.start_row, e.start_row.map_or(-1, |r| r as i32));
                    assert_eq!(out.start_col, e.start_col.map_or(-1, |r| r as i32));
                    assert_eq!(out.stream, e.output_stream.unwrap_or(0));
                }
                let mut out = std::mem::MaybeUninit::<untangle_signature_element>::uninit();
                assert_eq!(
                    untangle_shader_signature_element(c, which, n, out.as_mut_ptr()),
                    untangle_status::UNTANGLE_INVALID_ARGUMENT
                );
            }
            let mut has = true;
            assert_eq!(untangle_shader_has_root_signature(c, &mut has, null_mut()), untangle_status::UNTANGLE_OK);
            assert_eq!(has, rust.embedded_root_signature().unwrap().is_some());
            untangle_shader_free(c);
        }
        checked += 1;
    }
    assert!(checked >= 200 || corpus().is_empty(), "only {checked} shaders reflected");
}

#[test]
fn root_signatures_as_bytes_and_strings_and_binding_maps() {
    let Some(bytes) = shared("descriptors.update_root_descriptors.cs_6_0.dxil") else { return };
    let shader = parse(&bytes).unwrap();
    let text = "RootFlags(0), CBV(b0), DescriptorTable(UAV(u0, numDescriptors = 1))";
    let rs = rootsig::parse_hlsl(text, Version::V1_1).unwrap();
    let rts0 = rootsig::to_rts0(&rs);
    let container = rootsig::to_rts0_container(&rs);
    let rust = Shader::parse(&bytes).unwrap();
    for model in [UNTANGLE_BINDING_MODEL_HEAP, UNTANGLE_BINDING_MODEL_DIRECT] {
        let expected = rust
            .translate(&untangle::Options {
                root_signature: Some(untangle::RootSignatureBinding {
                    signature: rs.clone(),
                    layout: rootsig::LayoutOptions {
                        model: if model == UNTANGLE_BINDING_MODEL_HEAP {
                            rootsig::BindingModel::Heap
                        } else {
                            rootsig::BindingModel::Direct
                        },
                        ..Default::default()
                    },
                }),
                ..Default::default()
            })
            .unwrap();
        let json = serde_json::to_string(expected.layout.as_ref().unwrap()).unwrap();
        let c_text = std::ffi::CString::new(text).unwrap();
        for how in 0..3 {
            let o = options();
            // SAFETY: live options and shader, valid buffers.
            unsafe {
                assert_eq!(untangle_options_set_binding_model(o, model), untangle_status::UNTANGLE_OK);
                let st = match how {
                    0 => untangle_options_set_root_signature_string(
                        o,
                        c_text.as_ptr(),
                        UNTANGLE_ROOT_SIGNATURE_VERSION_1_1,
                        null_mut(),
                    ),
                    1 => untangle_options_set_root_signature_rts0(o, rts0.as_ptr(), rts0.len(), null_mut()),
                    _ => untangle_options_set_root_signature_rts0(o, container.as_ptr(), container.len(), null_mut()),
                };
                assert_eq!(st, untangle_status::UNTANGLE_OK);
                let (words, layout) = translate(shader, o).unwrap();
                assert_eq!(words, expected.words, "model {model}, way {how}");
                assert_eq!(layout.as_deref(), Some(json.as_str()));
                // Cleared: back to the default model, no layout.
                untangle_options_clear_root_signature(o);
                let (words, layout) = translate(shader, o).unwrap();
                assert_eq!(words, rust.translate(&untangle::Options::default()).unwrap().words);
                assert_eq!(layout, None);
                // No RTS0 part in the corpus's containers: the switch changes nothing.
                assert_eq!(untangle_options_use_embedded_root_signature(o, true), untangle_status::UNTANGLE_OK);
                assert_eq!(translate(shader, o).unwrap().0, words);
                untangle_options_free(o);
            }
        }
    }
    // A binding map moves u0.
    let map = r#"[{"class": "UAV", "space": 0, "register": 0, "set": 5, "binding": 9}]"#;
    let expected = rust
        .translate(&untangle::Options { binding_map: untangle::BindingMap::parse(map).unwrap(), ..Default::default() })
        .unwrap();
    let o = options();
    let c_map = std::ffi::CString::new(map).unwrap();
    // SAFETY: live options and shader.
    unsafe {
        assert_eq!(untangle_options_set_binding_map_json(o, c_map.as_ptr(), null_mut()), untangle_status::UNTANGLE_OK);
        let mut result = null_mut();
        assert_eq!(untangle_translate(shader, o, &mut result, null_mut()), untangle_status::UNTANGLE_OK);
        let mut n = 0;
        untangle_result_binding_count(result, &mut n);
        assert_eq!(n, expected.bindings.len());
        let mut found = false;
        for i in 0..n {
            let mut b = std::mem::MaybeUninit::<untangle_binding>::uninit();
            assert_eq!(untangle_result_binding(result, i, b.as_mut_ptr()), untangle_status::UNTANGLE_OK);
            let b = b.assume_init();
            let row = &expected.bindings[i];
            assert_eq!(
                (b.set, b.binding, b.space, b.base_register),
                (row.set, row.binding, row.space, row.lower_bound)
            );
            found |= b.resource_class == UNTANGLE_RESOURCE_CLASS_UAV && (b.set, b.binding) == (5, 9);
        }
        assert!(found);
        untangle_result_free(result);
        // Removing the map restores the default rule.
        untangle_options_set_binding_map_json(o, null(), null_mut());
        assert_eq!(translate(shader, o).unwrap().0, rust.translate(&untangle::Options::default()).unwrap().words);
        untangle_options_free(o);
        untangle_shader_free(shader);
    }
}

/// Counts the calls it gets through its user pointer.
unsafe extern "C" fn counting_remap(
    user: *mut c_void,
    query: *const untangle_resource_query,
    binding: *mut untangle_vk_binding,
) -> bool {
    // SAFETY: `user` is the AtomicUsize the test installed; query and binding are valid
    // during the call.
    unsafe {
        (*(user as *const AtomicUsize)).fetch_add(1, Ordering::SeqCst);
        let r = &(*query).resource;
        (*binding).set = 3;
        (*binding).binding = r.resource_class * 10 + r.base_register + u32::from((*query).counter) * 5;
    }
    true
}

struct Shared(*const untangle_shader, *const untangle_options);
// SAFETY: the API documents that a shader and set-up options may be used from several
// threads at once; the callback's user pointer is an AtomicUsize.
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

#[test]
fn one_shader_and_options_translate_on_many_threads() {
    let files: Vec<PathBuf> = corpus()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".cs_6_0.") || p.to_string_lossy().contains(".ps_6_0."))
        .take(6)
        .collect();
    let calls = AtomicUsize::new(0);
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let shader = parse(&bytes).unwrap();
        let o = options();
        // SAFETY: live options; `calls` outlives every translation below.
        unsafe {
            untangle_options_set_resource_remap(o, Some(counting_remap), &calls as *const AtomicUsize as *mut c_void);
        }
        calls.store(0, Ordering::SeqCst);
        // SAFETY: live shader and options.
        let Ok((alone, _)) = (unsafe { translate(shader, o) }) else { continue };
        let per_translation = calls.swap(0, Ordering::SeqCst);
        let shared = Shared(shader, o);
        std::thread::scope(|s| {
            for _ in 0..4 {
                let shared = &shared;
                let alone = &alone;
                s.spawn(move || {
                    for _ in 0..5 {
                        // SAFETY: concurrent translations of one shader with one options
                        // object are allowed; both outlive the scope.
                        let (words, _) = unsafe { translate(shared.0, shared.1) }.unwrap();
                        assert_eq!(&words, alone);
                    }
                });
            }
        });
        assert_eq!(calls.load(Ordering::SeqCst), 20 * per_translation, "{}", path.display());
        // SAFETY: nothing uses them any more.
        unsafe {
            untangle_options_free(o);
            untangle_shader_free(shader);
        }
    }
}

#[test]
fn misuse_is_reported_not_crashed() {
    // SAFETY: every call below passes NULLs or valid pointers; the API must check them.
    unsafe {
        let mut shader = null_mut();
        let mut error = null_mut();
        assert_eq!(
            untangle_shader_parse(null(), 0, &mut shader, &mut error),
            untangle_status::UNTANGLE_INVALID_ARGUMENT
        );
        assert_eq!(str_of(untangle_error_message(error)), "`bytes` is NULL");
        untangle_error_free(error);
        let bytes = [0u8; 4];
        assert_eq!(
            untangle_shader_parse(bytes.as_ptr(), usize::MAX, &mut shader, &mut error),
            untangle_status::UNTANGLE_INVALID_ARGUMENT
        );
        untangle_error_free(error);
        let o = options();
        let decl = untangle_stream_output_declaration {
            stream: 0,
            semantic_name: c"SV_Position".as_ptr(),
            semantic_index: 0,
            start_component: 0,
            component_count: 4,
            output_slot: 0,
        };
        let small = [8u32];
        assert_eq!(
            untangle_options_set_stream_output(o, &decl, 1, small.as_ptr(), 1, 0, &mut error),
            untangle_status::UNTANGLE_STREAM_OUTPUT
        );
        assert!(str_of(untangle_error_message(error)).contains("declaration 0 (SV_Position0)"));
        untangle_error_free(error);
        assert_eq!(
            untangle_options_set_stream_output(o, null(), 1, small.as_ptr(), 1, 0, null_mut()),
            untangle_status::UNTANGLE_INVALID_ARGUMENT
        );
        let bad = [0xffu8, 0xfe, 0];
        assert_eq!(
            untangle_options_set_binding_map_json(o, bad.as_ptr().cast(), &mut error),
            untangle_status::UNTANGLE_INVALID_ARGUMENT
        );
        assert!(str_of(untangle_error_message(error)).contains("UTF-8"));
        untangle_error_free(error);
        assert_eq!(
            untangle_options_set_io_remap(null_mut(), None, null_mut()),
            untangle_status::UNTANGLE_INVALID_ARGUMENT
        );
        assert_eq!(untangle_result_spirv(null(), null_mut(), null_mut()), untangle_status::UNTANGLE_INVALID_ARGUMENT);
        // A NULL shader or result is reported as such before the root signature's bytes are
        // read (these three are no RTS0 part: they used to give UNTANGLE_ROOT_SIGNATURE).
        let not_rts0 = [1u8, 2, 3];
        let mut result = null_mut();
        assert_eq!(
            untangle_translate_entry_with_local_root_signature(
                null(),
                null(),
                c"RayGen".as_ptr(),
                not_rts0.as_ptr(),
                not_rts0.len(),
                &mut result,
                null_mut()
            ),
            untangle_status::UNTANGLE_INVALID_ARGUMENT
        );
        for status in 0..10 {
            assert!(str_of(untangle_status_name(status)).starts_with("UNTANGLE_"));
        }
        assert_eq!(str_of(untangle_status_name(42)), "UNTANGLE_UNKNOWN_STATUS");
        untangle_options_free(o);
    }
}

/// The tessellation domain origin and the per-stage I/O query (patch-ness, the location
/// rule's default) pass through: a hull shader's winding follows the origin, and a
/// callback that moves only patch constants sees them flagged with their default place.
#[test]
fn hull_shaders_through_the_c_api() {
    let text = std::fs::read(Path::new(MANIFEST).join("../../corpus/pipeline/hs.ll")).unwrap();
    let shader = parse(&text).unwrap();
    let modes = |words: &[u32]| {
        let m = rspirv::dr::load_words(words).unwrap();
        m.execution_modes
            .iter()
            .filter_map(|i| match i.operands.get(1) {
                Some(rspirv::dr::Operand::ExecutionMode(e)) => Some(*e),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    unsafe extern "C" fn patch_to_7(_: *mut c_void, q: *const untangle_io_query, l: *mut untangle_io_location) -> bool {
        // SAFETY: valid during the call, by contract.
        let q = unsafe { &*q };
        if !q.patch {
            return false;
        }
        // CENTER is the hull shader's only user patch constant: row 0 after 2 control-point rows.
        assert_eq!((q.output, q.default_location.location, q.default_location.component), (true, 2, 0));
        // SAFETY: writable by contract.
        unsafe { *l = untangle_io_location { location: 7, component: 0 } };
        true
    }
    // SAFETY: live shader and options; the callback follows the contract.
    unsafe {
        let o = options();
        let (words, _) = translate(shader, o).unwrap();
        assert!(modes(&words).contains(&rspirv::spirv::ExecutionMode::VertexOrderCw));
        assert_eq!(
            untangle_options_set_tess_domain_origin(o, UNTANGLE_TESS_DOMAIN_ORIGIN_LOWER_LEFT),
            untangle_status::UNTANGLE_OK
        );
        assert_eq!(untangle_options_set_tess_domain_origin(o, 2), untangle_status::UNTANGLE_INVALID_ARGUMENT);
        assert_eq!(untangle_options_set_io_remap(o, Some(patch_to_7), null_mut()), untangle_status::UNTANGLE_OK);
        let (words, _) = translate(shader, o).unwrap();
        assert!(modes(&words).contains(&rspirv::spirv::ExecutionMode::VertexOrderCcw));
        let m = rspirv::dr::load_words(&words).unwrap();
        let locations: Vec<u32> = m
            .annotations
            .iter()
            .filter(|i| {
                i.operands.get(1) == Some(&rspirv::dr::Operand::Decoration(rspirv::spirv::Decoration::Location))
            })
            .filter_map(|i| match i.operands.get(2) {
                Some(rspirv::dr::Operand::LiteralBit32(l)) => Some(*l),
                _ => None,
            })
            .collect();
        assert!(locations.contains(&7) && !locations.contains(&2), "{locations:?}");
        untangle_options_free(o);
        untangle_shader_free(shader);
    }
}

/// Translates entry `name` through the C API (with a local root signature's RTS0 bytes when
/// given): the words, or the status.
///
/// # Safety
/// Live shader; NULL or live options.
unsafe fn translate_entry(
    shader: *const untangle_shader,
    options: *const untangle_options,
    name: &str,
    local_rts0: Option<&[u8]>,
) -> Result<Vec<u32>, untangle_status> {
    let name = std::ffi::CString::new(name).unwrap();
    let mut result = null_mut();
    // SAFETY: the caller's contract; valid name, bytes and out-pointers.
    let st = unsafe {
        match local_rts0 {
            None => untangle_translate_entry(shader, options, name.as_ptr(), &mut result, null_mut()),
            Some(b) => untangle_translate_entry_with_local_root_signature(
                shader,
                options,
                name.as_ptr(),
                b.as_ptr(),
                b.len(),
                &mut result,
                null_mut(),
            ),
        }
    };
    if st != untangle_status::UNTANGLE_OK {
        assert!(result.is_null());
        return Err(st);
    }
    let (mut words, mut count) = (null(), 0usize);
    // SAFETY: a live result, valid out-pointers; `count` words at `words`; freed once.
    unsafe {
        assert_eq!(untangle_result_spirv(result, &mut words, &mut count), untangle_status::UNTANGLE_OK);
        let v = std::slice::from_raw_parts(words, count).to_vec();
        untangle_result_free(result);
        Ok(v)
    }
}

/// Library entries (work-graph nodes, ray-tracing stages) translate one by one through the
/// C API exactly as through the Rust API, with and without a local root signature, and the
/// library report's JSON is the Rust report's; unknown names and bad bytes are errors.
#[test]
fn library_entries_and_the_library_report_through_the_c_api() {
    let mut libraries = 0;
    for name in ["workgraph.two_level_broadcast_node_array.lib_6_8.dxil", "rt.default.lib_6_3.dxil"] {
        let Some(bytes) = shared(name) else { continue };
        libraries += 1;
        let shader = parse(&bytes).unwrap();
        let rust = Shader::parse(&bytes).unwrap();
        let report = rust.library_report().unwrap();
        let mut json = null();
        // SAFETY: a live shader and a valid out-pointer; the JSON is owned by the shader.
        assert_eq!(
            unsafe { untangle_shader_library_report_json(shader, &mut json, null_mut()) },
            untangle_status::UNTANGLE_OK
        );
        assert_eq!(str_of(json), serde_json::to_string(&report).unwrap(), "{name}");
        let again = {
            let mut j = null();
            // SAFETY: as above.
            unsafe { untangle_shader_library_report_json(shader, &mut j, null_mut()) };
            j
        };
        assert_eq!(again, json, "made once, then the same string");
        assert!(!report.entries.is_empty());
        for e in &report.entries {
            let expected = rust.translate_entry(&e.name, &untangle::Options::default()).unwrap().words;
            // SAFETY: a live shader, default options.
            let got = unsafe { translate_entry(shader, null(), &e.name, None) }.unwrap();
            assert_eq!(got, expected, "{name} {}", e.name);
        }
        // SAFETY: a live shader; a NUL-terminated name; NULL name.
        unsafe {
            assert_eq!(
                translate_entry(shader, null(), "no_such_entry", None),
                Err(untangle_status::UNTANGLE_INVALID_ARGUMENT)
            );
            let mut result = null_mut();
            let st = untangle_translate_entry(shader, null(), null(), &mut result, null_mut());
            assert_eq!(st, untangle_status::UNTANGLE_INVALID_ARGUMENT);
            untangle_shader_free(shader);
        }
    }

    // A node with a local root signature: the global one through options, the local one as
    // RTS0 bytes, as a layer hands them over.
    if let Some(bytes) = shared("workgraph.local_root_signature.lib_6_8.dxil") {
        libraries += 1;
        let shader = parse(&bytes).unwrap();
        let rust = Shader::parse(&bytes).unwrap();
        let global = rootsig::parse_hlsl("UAV(u0)", Version::V1_1).unwrap();
        // Not the library's own (LRS0: u0 and b0, b1 for A; LRS1: u1 and b1, b0 for B): one
        // covering both, in another order.
        let local = rootsig::parse_hlsl(
            "RootFlags(LOCAL_ROOT_SIGNATURE), RootConstants(num32BitConstants = 1, b1), \
             RootConstants(num32BitConstants = 1, b0), UAV(u1, space = 1), UAV(u0, space = 1)",
            Version::V1_1,
        )
        .unwrap();
        let opts = options();
        let text = std::ffi::CString::new("UAV(u0)").unwrap();
        // SAFETY: live options, a NUL-terminated string.
        assert_eq!(
            unsafe {
                untangle_options_set_root_signature_string(
                    opts,
                    text.as_ptr(),
                    UNTANGLE_ROOT_SIGNATURE_VERSION_1_1,
                    null_mut(),
                )
            },
            untangle_status::UNTANGLE_OK
        );
        let rust_options = untangle::Options {
            root_signature: Some(untangle::RootSignatureBinding { signature: global, layout: Default::default() }),
            ..Default::default()
        };
        for entry in ["A", "B"] {
            let expected = rust.translate_entry_with_local_root_signature(entry, &rust_options, &local).unwrap().words;
            // SAFETY: a live shader and options.
            let got = unsafe { translate_entry(shader, opts, entry, Some(&rootsig::to_rts0(&local))) }.unwrap();
            assert_eq!(got, expected, "{entry}");
            // The library's own local root-signature subobject applies without one given.
            let own = rust.translate_entry(entry, &rust_options).unwrap().words;
            // SAFETY: as above.
            assert_eq!(unsafe { translate_entry(shader, opts, entry, None) }.unwrap(), own, "{entry}");
            assert_ne!(own, expected, "{entry}: the given local root signature made no difference");
        }
        // SAFETY: as above; bytes that are no RTS0.
        unsafe {
            assert_eq!(
                translate_entry(shader, opts, "A", Some(&[1, 2, 3])),
                Err(untangle_status::UNTANGLE_ROOT_SIGNATURE)
            );
            // A local root signature needs a global one.
            assert_eq!(
                translate_entry(shader, null(), "A", Some(&rootsig::to_rts0(&local))),
                Err(untangle_status::UNTANGLE_ROOT_SIGNATURE)
            );
            untangle_options_free(opts);
            untangle_shader_free(shader);
        }
    }
    assert!(libraries == 3 || std::env::var_os("CI").is_none(), "the corpus libraries are missing under CI");
}

/// The corpus's libraries (`*.lib_6_*.dxil`).
fn corpus_libraries() -> Vec<PathBuf> {
    corpus()
        .into_iter()
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains(".lib_6_") && n.ends_with(".dxil"))
        })
        .collect()
}

/// The entry names the C API reports for `shader`.
fn entry_names(shader: *const untangle_shader) -> Vec<Vec<u8>> {
    let mut count = 0usize;
    // SAFETY: a live shader and a valid out-pointer.
    assert_eq!(unsafe { untangle_shader_entry_point_count(shader, &mut count) }, untangle_status::UNTANGLE_OK);
    (0..count)
        .map(|i| {
            let mut p = null();
            // SAFETY: as above; the name is owned by the shader.
            assert_eq!(unsafe { untangle_shader_entry_point_name(shader, i, &mut p) }, untangle_status::UNTANGLE_OK);
            assert!(!p.is_null());
            // SAFETY: a NUL-terminated string owned by the shader.
            unsafe { CStr::from_ptr(p) }.to_bytes().to_vec()
        })
        .collect()
}

/// Every name `untangle_shader_entry_point_name` reports for a library is an export name
/// (not empty: no `dx.entryPoints` module entry; no LLVM `\x01` prefix) that
/// `untangle_translate_entry` takes: it translates, or is refused for what it is (AGS
/// vendor extensions: `UNSUPPORTED`; the corpus's deliberate local root-signature conflict:
/// `ROOT_SIGNATURE`), never as an unknown name. A ray-tracing entry translates by its
/// mangled name (`?RayGen@@YAXXZ`, with or without `\x01`) as by its export name (`RayGen`).
#[test]
fn every_reported_library_entry_name_translates_by_that_name() {
    let libraries = corpus_libraries();
    let (mut reported, mut translated, mut refused, mut mangled) = (0, 0, 0, 0);
    for path in &libraries {
        let file = path.file_name().unwrap().to_string_lossy();
        let bytes = std::fs::read(path).unwrap();
        let shader = parse(&bytes).unwrap();
        for name in entry_names(shader) {
            let shown = String::from_utf8_lossy(&name).into_owned();
            assert!(!name.is_empty(), "{file}: an empty entry name");
            assert!(!name.contains(&1), "{file}: entry name {shown:?} has LLVM's \\x01 prefix");
            let name = String::from_utf8(name).unwrap();
            reported += 1;
            // SAFETY: a live shader, default options.
            match unsafe { translate_entry(shader, null(), &name, None) } {
                Ok(words) => {
                    assert!(!words.is_empty());
                    translated += 1;
                }
                Err(untangle_status::UNTANGLE_UNSUPPORTED | untangle_status::UNTANGLE_ROOT_SIGNATURE) => refused += 1,
                Err(st) => panic!("{file}: entry {name:?} reported but not translatable by that name: {st:?}"),
            }
        }
        // Every form of a mangled entry's name names the same entry.
        let rust = Shader::parse(&bytes).unwrap();
        for e in rust.entry_points().iter().filter(|e| e.function.is_some()) {
            let Some(bare) = e.name.strip_prefix('\u{1}').filter(|n| n.starts_with('?')) else { continue };
            let export = bare[1..].split('@').next().unwrap();
            // SAFETY: a live shader, default options.
            let (by_export, by_mangled, by_llvm) = unsafe {
                (
                    translate_entry(shader, null(), export, None),
                    translate_entry(shader, null(), bare, None),
                    translate_entry(shader, null(), &e.name, None),
                )
            };
            assert_eq!(by_mangled, by_export, "{file}: {bare:?} and {export:?}");
            assert_eq!(by_llvm, by_export, "{file}: {:?} and {export:?}", e.name);
            assert_ne!(by_export, Err(untangle_status::UNTANGLE_INVALID_ARGUMENT), "{file}: {export:?}");
            mangled += 1;
        }
        // SAFETY: freed once.
        unsafe { untangle_shader_free(shader) };
    }
    eprintln!(
        "{} libraries: {reported} entry names reported, {translated} translated, {refused} refused \
         (unsupported or root-signature conflict); {mangled} mangled names checked",
        libraries.len()
    );
    if let Some(bytes) = shared("rt.default.lib_6_3.dxil") {
        let shader = parse(&bytes).unwrap();
        assert!(entry_names(shader).contains(&b"RayGen".to_vec()));
        // SAFETY: a live shader, default options.
        unsafe {
            let demangled = translate_entry(shader, null(), "RayGen", None).unwrap();
            assert_eq!(translate_entry(shader, null(), "?RayGen@@YAXXZ", None).unwrap(), demangled);
            assert_eq!(translate_entry(shader, null(), "\u{1}?RayGen@@YAXXZ", None).unwrap(), demangled);
            assert_eq!(
                translate_entry(shader, null(), "?RayGen", None),
                Err(untangle_status::UNTANGLE_INVALID_ARGUMENT)
            );
            untangle_shader_free(shader);
        }
    }
    assert!(libraries.is_empty() || (reported > 0 && mangled > 0), "no library entry checked");
    assert!(!libraries.is_empty() || std::env::var_os("CI").is_none(), "the corpus libraries are missing under CI");
}

/// What a resource callback was asked: (class, range id, space, first register, counter).
type RangeKey = (u32, u32, u32, u32, bool);

/// A resource callback that hands out a new binding on every call (as one allocating
/// descriptor slots would): what it was asked, and what it answered.
#[derive(Default)]
struct Allocating {
    next: AtomicUsize,
    /// What it was asked and the binding it gave.
    calls: std::sync::Mutex<Vec<(RangeKey, u32)>>,
}

const ALLOCATING_SET: u32 = 5;

unsafe extern "C" fn allocating_remap(
    user: *mut c_void,
    query: *const untangle_resource_query,
    binding: *mut untangle_vk_binding,
) -> bool {
    // SAFETY: `user` is the Allocating the test installed; query and binding are valid
    // during the call.
    unsafe {
        let a = &*(user as *const Allocating);
        let (q, r) = (&*query, &(*query).resource);
        let b = u32::try_from(a.next.fetch_add(1, Ordering::SeqCst)).unwrap();
        a.calls.lock().unwrap().push(((r.resource_class, r.id, r.space, r.base_register, q.counter), b));
        (*binding).set = ALLOCATING_SET;
        (*binding).binding = b;
    }
    true
}

/// The (set, binding) pairs a module decorates variables with.
fn decorated_bindings(words: &[u32]) -> std::collections::BTreeSet<(u32, u32)> {
    use rspirv::dr::Operand;
    use rspirv::spirv::{Decoration, Op};
    let m = rspirv::dr::load_words(words).unwrap();
    let mut sets = std::collections::HashMap::new();
    let mut bindings = std::collections::HashMap::new();
    for i in m.annotations.iter().filter(|i| i.class.opcode == Op::Decorate) {
        let (Some(Operand::IdRef(target)), Some(Operand::Decoration(d)), Some(Operand::LiteralBit32(v))) =
            (i.operands.first(), i.operands.get(1), i.operands.get(2))
        else {
            continue;
        };
        match d {
            Decoration::DescriptorSet => sets.insert(*target, *v),
            Decoration::Binding => bindings.insert(*target, *v),
            _ => None,
        };
    }
    bindings.iter().map(|(id, b)| (sets.get(id).copied().unwrap_or(0), *b)).collect()
}

/// The resource callback is asked once per declared register range (and once per UAV
/// counter) per translation, and its one answer is what both the SPIR-V's decorations and
/// `untangle_result_binding` report, even when it answers differently on every call.
#[test]
fn resource_callback_is_asked_once_per_range() {
    let mut checked = 0;
    for path in corpus() {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if !file.ends_with(".dxil") || file.contains(".lib_6_") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let Ok(shader) = parse(&bytes) else { continue };
        let mut declared = Vec::new();
        let mut n = 0usize;
        // SAFETY: a live shader and valid out-pointers.
        unsafe {
            assert_eq!(untangle_shader_resource_count(shader, &mut n), untangle_status::UNTANGLE_OK);
            for i in 0..n {
                let mut r = std::mem::MaybeUninit::<untangle_resource>::uninit();
                assert_eq!(untangle_shader_resource(shader, i, r.as_mut_ptr()), untangle_status::UNTANGLE_OK);
                let r = r.assume_init();
                declared.push((r.resource_class, r.id, r.space, r.base_register, false));
            }
        }
        if declared.is_empty() {
            // SAFETY: freed once.
            unsafe { untangle_shader_free(shader) };
            continue;
        }
        let allocating = Allocating::default();
        let o = options();
        let mut result = null_mut();
        // SAFETY: live options, a callback and the Allocating it reads (alive past the
        // translation), a live shader, valid out-pointers.
        let st = unsafe {
            untangle_options_set_resource_remap(
                o,
                Some(allocating_remap),
                &allocating as *const Allocating as *mut c_void,
            );
            untangle_translate(shader, o, &mut result, null_mut())
        };
        if st != untangle_status::UNTANGLE_OK {
            // SAFETY: freed once.
            unsafe {
                untangle_options_free(o);
                untangle_shader_free(shader);
            }
            continue;
        }
        let calls = allocating.calls.lock().unwrap().clone();
        let mut asked: Vec<_> = calls.iter().map(|c| c.0).collect();
        asked.sort();
        let before = asked.len();
        asked.dedup();
        assert_eq!(asked.len(), before, "{file}: a range asked more than once: {calls:?}");
        let mut ranges: Vec<_> = asked.iter().filter(|k| !k.4).copied().collect();
        declared.sort();
        ranges.sort();
        assert_eq!(ranges, declared, "{file}: not every declared range asked exactly once");

        let (mut words, mut count, mut bound) = (null(), 0usize, 0usize);
        // SAFETY: a live result and valid out-pointers; `count` words at `words`.
        let words = unsafe {
            assert_eq!(untangle_result_spirv(result, &mut words, &mut count), untangle_status::UNTANGLE_OK);
            assert_eq!(untangle_result_binding_count(result, &mut bound), untangle_status::UNTANGLE_OK);
            std::slice::from_raw_parts(words, count).to_vec()
        };
        let decorated = decorated_bindings(&words);
        for i in 0..bound {
            let mut b = std::mem::MaybeUninit::<untangle_binding>::uninit();
            // SAFETY: a live result, a valid out-pointer.
            let b = unsafe {
                assert_eq!(untangle_result_binding(result, i, b.as_mut_ptr()), untangle_status::UNTANGLE_OK);
                b.assume_init()
            };
            let answer = calls
                .iter()
                .find(|((class, _, space, base, counter), _)| {
                    (*class, *space, *base, *counter) == (b.resource_class, b.space, b.base_register, false)
                })
                .map(|c| c.1);
            assert_eq!(answer, Some(b.binding), "{file}: untangle_result_binding {i} is not the callback's answer");
            assert_eq!(b.set, ALLOCATING_SET, "{file}");
            assert!(
                decorated.contains(&(b.set, b.binding)),
                "{file}: binding {i} ({}, {}) is not in the module's decorations {decorated:?}",
                b.set,
                b.binding
            );
        }
        // Every descriptor the module declares in the callback's set is one it handed out.
        for (set, binding) in decorated.iter().filter(|d| d.0 == ALLOCATING_SET) {
            assert!(calls.iter().any(|c| c.1 == *binding), "{file}: ({set}, {binding}) was never answered");
        }
        checked += 1;
        // SAFETY: freed once.
        unsafe {
            untangle_result_free(result);
            untangle_options_free(o);
            untangle_shader_free(shader);
        }
    }
    eprintln!("{checked} shaders' callbacks checked");
    assert!(checked >= 50 || corpus().is_empty(), "only {checked} shaders checked");
}

/// `untangle_options_set_cleanups(false)` reaches the library: the module is the one the
/// Rust API writes with `Options::cleanups` off, different from the default one, and
/// turning the clean-ups back on gives the default module again.
#[test]
fn the_cleanups_switch_passes_through() {
    let Some(bytes) = shared("robustness.undefined_structured_raw_alias.cs_6_0.dxil") else { return };
    let rust = Shader::parse(&bytes).unwrap();
    let plain = rust.translate(&untangle::Options { cleanups: false, ..Default::default() }).unwrap().words;
    let cleaned = rust.translate(&untangle::Options::default()).unwrap().words;
    assert_ne!(plain, cleaned, "the clean-ups change nothing in this shader: pick another");
    let shader = parse(&bytes).unwrap();
    let o = options();
    // SAFETY: live shader and options, freed once below.
    unsafe {
        assert_eq!(untangle_options_set_cleanups(o, false), untangle_status::UNTANGLE_OK);
        assert_eq!(translate(shader, o).unwrap().0, plain);
        assert_eq!(untangle_options_set_cleanups(o, true), untangle_status::UNTANGLE_OK);
        assert_eq!(translate(shader, o).unwrap().0, cleaned);
        assert_eq!(untangle_options_set_cleanups(null_mut(), false), untangle_status::UNTANGLE_INVALID_ARGUMENT);
        untangle_options_free(o);
        untangle_shader_free(shader);
    }
}
