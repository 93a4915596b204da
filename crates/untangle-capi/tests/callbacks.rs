//! Issue 33, item 3: remapping callbacks' answers are checked (two elements or ranges on
//! one place, a location, set or binding past the documented limits: `UNTANGLE_CALLBACK`,
//! naming the callback, not `UNTANGLE_MALFORMED`, which blames the shader), binding maps
//! past the limits are refused, and the binding table reports each range's array element
//! and its UAV counter's placement. Every module translated here passes spirv-val.

use std::ffi::{c_void, CStr, CString};
use std::path::Path;
use std::ptr::{null, null_mut};
use untangle_capi::*;

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

fn corpus_file(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(MANIFEST).join("../../corpus").join(name)).unwrap()
}

/// A compute shader with one `RWStructuredBuffer<uint> buf : register(u0)` whose counter it
/// increments (`buf[buf.IncrementCounter()] = ...`).
const COUNTER_CS: &str = r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%"class.RWStructuredBuffer<unsigned int>" = type { i32 }

define void @main() {
entry:
  %h = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %c = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %h, i8 1)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %h, i32 %c, i32 0, i32 %c, i32 undef, i32 undef, i32 undef, i8 1)
  ret void
}

declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.bufferUpdateCounter(i32, %dx.types.Handle, i8)
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!7}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!"cs", i32 6, i32 0}
!3 = !{null, !4, null, null}
!4 = !{!5}
!5 = !{i32 0, %"class.RWStructuredBuffer<unsigned int>"* undef, !"buf", i32 0, i32 0, i32 1, i32 12, i1 false, i1 true, i1 false, !6}
!6 = !{i32 1, i32 4}
!7 = !{void ()* @main, !"main", null, !3, !8}
!8 = !{i32 4, !9}
!9 = !{i32 1, i32 1, i32 1}
"#;

/// What a case expects: `None`, success; `Some(parts)`, `UNTANGLE_CALLBACK` with a message
/// holding every part.
type Expected = Option<&'static [&'static str]>;

fn parse(bytes: &[u8]) -> *mut untangle_shader {
    let mut shader = null_mut();
    // SAFETY: a valid buffer and out-pointer.
    let st = unsafe { untangle_shader_parse(bytes.as_ptr(), bytes.len(), &mut shader, null_mut()) };
    assert_eq!(st, untangle_status::UNTANGLE_OK);
    shader
}

fn options() -> *mut untangle_options {
    let mut o = null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { untangle_options_create(&mut o) }, untangle_status::UNTANGLE_OK);
    o
}

/// Checks a module with spirv-val (required under CI).
fn validate(words: &[u32]) {
    untangle_spirv_tools::assert_valid(words, "vulkan1.3", "callbacks");
}

/// Translates: the result (validated), or the status and message.
///
/// # Safety
/// Live shader and options.
unsafe fn translate(
    shader: *const untangle_shader,
    options: *const untangle_options,
) -> Result<*mut untangle_result, (untangle_status, String)> {
    let (mut result, mut error) = (null_mut(), null_mut());
    // SAFETY: the caller's contract; valid out-pointers.
    let st = unsafe { untangle_translate(shader, options, &mut result, &mut error) };
    if st != untangle_status::UNTANGLE_OK {
        // SAFETY: the failed call's error object, freed once.
        let message = unsafe {
            assert_eq!(untangle_error_status(error), st);
            let m = CStr::from_ptr(untangle_error_message(error)).to_str().unwrap().to_string();
            untangle_error_free(error);
            m
        };
        return Err((st, message));
    }
    let (mut words, mut n) = (null(), 0usize);
    // SAFETY: a live result; its words live as long as it.
    unsafe {
        assert_eq!(untangle_result_spirv(result, &mut words, &mut n), untangle_status::UNTANGLE_OK);
        validate(std::slice::from_raw_parts(words, n));
    }
    Ok(result)
}

/// The result's binding table.
///
/// # Safety
/// A live result.
unsafe fn bindings(result: *const untangle_result) -> Vec<untangle_binding> {
    let mut n = 0usize;
    // SAFETY: the caller's contract.
    unsafe {
        assert_eq!(untangle_result_binding_count(result, &mut n), untangle_status::UNTANGLE_OK);
        (0..n)
            .map(|i| {
                let mut b = std::mem::MaybeUninit::<untangle_binding>::uninit();
                assert_eq!(untangle_result_binding(result, i, b.as_mut_ptr()), untangle_status::UNTANGLE_OK);
                b.assume_init()
            })
            .collect()
    }
}

/// The I/O callback's answer, read from `user`: (location, component) for every element.
unsafe extern "C" fn io_to(user: *mut c_void, _: *const untangle_io_query, l: *mut untangle_io_location) -> bool {
    // SAFETY: `user` is the test's (u32, u32); `l` is writable during the call.
    unsafe {
        let (location, component) = *(user as *const (u32, u32));
        *l = untangle_io_location { location, component };
    }
    true
}

/// Inputs only: the I/O callback of `io_to`, for the vertex shader's inputs.
unsafe extern "C" fn inputs_to(user: *mut c_void, q: *const untangle_io_query, l: *mut untangle_io_location) -> bool {
    // SAFETY: valid during the call.
    !unsafe { (*q).output } && unsafe { io_to(user, q, l) }
}

#[test]
fn io_callback_conflicts_and_limits_name_the_callback() {
    // POSITION (row 0, 4 columns) and NORMAL (row 1, 3 columns) are the vertex shader's inputs.
    let shader = parse(&corpus_file("pipeline/vs.ll"));
    let o = options();
    let cases: [((u32, u32), Expected); 5] = [
        // Both on location 3: a conflict the callback made, not malformed DXIL.
        ((3, 0), Some(&["I/O remapping callback", "input POSITION0", "input NORMAL0", "location 3, component 0"])),
        // Past the limits (and overflowing).
        ((u32::MAX, 0), Some(&["I/O remapping callback", "input POSITION0", "location 4294967295"])),
        ((UNTANGLE_MAX_IO_LOCATIONS, 0), Some(&["I/O remapping callback", "location 64"])),
        ((0, 2), Some(&["I/O remapping callback", "input POSITION0", "component 2"])),
        // The last location is usable... but both inputs cannot share it.
        ((UNTANGLE_MAX_IO_LOCATIONS - 1, 0), Some(&["I/O remapping callback", "location 63, component 0"])),
    ];
    for (answer, expected) in cases {
        let user = answer;
        // SAFETY: live options, shader; `user` outlives the translation.
        unsafe {
            untangle_options_set_io_remap(o, Some(inputs_to), &user as *const (u32, u32) as *mut c_void);
            match (translate(shader, o), expected) {
                (Err((st, message)), Some(parts)) => {
                    assert_eq!(st, untangle_status::UNTANGLE_CALLBACK, "{answer:?}: {message}");
                    for p in parts {
                        assert!(message.contains(p), "{answer:?}: no `{p}` in `{message}`");
                    }
                }
                (Ok(r), None) => untangle_result_free(r),
                (got, _) => panic!("{answer:?}: {:?}", got.map(|_| ())),
            }
        }
    }
    // A status name for the new status.
    // SAFETY: a static string.
    let name = unsafe { CStr::from_ptr(untangle_status_name(untangle_status::UNTANGLE_CALLBACK as i32)) };
    assert_eq!(name.to_str().unwrap(), "UNTANGLE_CALLBACK");
    // SAFETY: freed once.
    unsafe {
        untangle_options_free(o);
        untangle_shader_free(shader);
    }
}

#[test]
fn io_callback_answers_within_the_limits_translate() {
    let shader = parse(&corpus_file("pipeline/vs.ll"));
    let o = options();
    unsafe extern "C" fn spread(_: *mut c_void, q: *const untangle_io_query, l: *mut untangle_io_location) -> bool {
        // SAFETY: valid during the call.
        unsafe {
            let q = &*q;
            // Inputs at 62 and 63 (the last usable locations), outputs at 10 + the default.
            let location = if q.output { 10 + q.default_location.location } else { 62 + q.element.start_row as u32 };
            *l = untangle_io_location { location, component: q.default_location.component };
        }
        true
    }
    // SAFETY: live objects.
    unsafe {
        untangle_options_set_io_remap(o, Some(spread), null_mut());
        let r = translate(shader, o).unwrap();
        untangle_result_free(r);
        untangle_options_free(o);
        untangle_shader_free(shader);
    }
}

/// The resource callback's answer, read from `user`: (set, binding, counter set, counter
/// binding).
unsafe extern "C" fn resources_to(
    user: *mut c_void,
    q: *const untangle_resource_query,
    b: *mut untangle_vk_binding,
) -> bool {
    // SAFETY: `user` is the test's [u32; 4]; valid during the call.
    unsafe {
        let a = *(user as *const [u32; 4]);
        *b = if (*q).counter {
            untangle_vk_binding { set: a[2], binding: a[3] }
        } else {
            untangle_vk_binding { set: a[0], binding: a[1] }
        };
    }
    true
}

#[test]
fn resource_callback_conflicts_and_limits_name_the_callback() {
    // A texture and a sampler: both at one place is the callback's conflict.
    let ps = parse(&corpus_file("ps_textured.ll"));
    let cs = parse(COUNTER_CS.as_bytes());
    let o = options();
    let cases: [(*mut untangle_shader, [u32; 4], Expected); 6] = [
        (ps, [1, 2, 0, 0], Some(&["resource remapping callback", "t0, space0", "s0, space0", "set 1, binding 2"])),
        (ps, [u32::MAX, 0, 0, 0], Some(&["resource remapping callback", "t0, space0", "set 4294967295"])),
        (ps, [UNTANGLE_MAX_DESCRIPTOR_SETS, 0, 0, 0], Some(&["resource remapping callback", "set 32"])),
        (cs, [0, UNTANGLE_MAX_BINDINGS, 0, 1], Some(&["resource remapping callback", "binding 1048576"])),
        // The counter on the UAV's own binding.
        (cs, [2, 7, 2, 7], Some(&["resource remapping callback", "the counter of u0, space0", "set 2, binding 7"])),
        (cs, [UNTANGLE_MAX_DESCRIPTOR_SETS - 1, UNTANGLE_MAX_BINDINGS - 1, 31, 0], None),
    ];
    for (shader, answer, expected) in cases {
        let user = answer;
        // SAFETY: live objects; `user` outlives the translation.
        unsafe {
            untangle_options_set_resource_remap(o, Some(resources_to), &user as *const [u32; 4] as *mut c_void);
            match (translate(shader, o), expected) {
                (Err((st, message)), Some(parts)) => {
                    assert_eq!(st, untangle_status::UNTANGLE_CALLBACK, "{answer:?}: {message}");
                    for p in parts {
                        assert!(message.contains(p), "{answer:?}: no `{p}` in `{message}`");
                    }
                }
                (Ok(r), None) => {
                    let b = bindings(r);
                    assert_eq!(b.len(), 1);
                    assert_eq!((b[0].set, b[0].binding), (31, UNTANGLE_MAX_BINDINGS - 1));
                    assert!(b[0].has_counter);
                    assert_eq!((b[0].counter_set, b[0].counter_binding), (31, 0));
                    untangle_result_free(r);
                }
                (got, _) => panic!("{answer:?}: {:?}", got.map(|_| ())),
            }
        }
    }
    // SAFETY: freed once.
    unsafe {
        untangle_options_free(o);
        untangle_shader_free(ps);
        untangle_shader_free(cs);
    }
}

#[test]
fn binding_maps_past_the_limits_are_refused() {
    let o = options();
    for (set, binding, ok) in
        [(31, 5, true), (32, 5, false), (0, UNTANGLE_MAX_BINDINGS - 1, true), (0, UNTANGLE_MAX_BINDINGS, false)]
    {
        let map = format!(r#"[{{"class": "SRV", "space": 0, "register": 0, "set": {set}, "binding": {binding}}}]"#);
        let map = CString::new(map).unwrap();
        let mut error = null_mut();
        // SAFETY: live options, a NUL-terminated string, a valid error pointer.
        unsafe {
            let st = untangle_options_set_binding_map_json(o, map.as_ptr(), &mut error);
            if ok {
                assert_eq!(st, untangle_status::UNTANGLE_OK);
            } else {
                assert_eq!(st, untangle_status::UNTANGLE_BINDING_MAP);
                let message = CStr::from_ptr(untangle_error_message(error)).to_str().unwrap().to_string();
                assert!(message.contains(&format!("set {set}, binding {binding}")), "{message}");
                untangle_error_free(error);
            }
        }
    }
    // SAFETY: freed once.
    unsafe { untangle_options_free(o) };
}

#[test]
fn binding_table_reports_array_elements_and_counters() {
    // `t1` alone in `DescriptorTable(SRV(t0, numDescriptors = 2))`: element 1 of its binding
    // under the `direct` model.
    let text = String::from_utf8(corpus_file("ps_textured.ll")).unwrap();
    let t1 = text
        .replace(
            "createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)",
            "createHandle(i32 57, i8 0, i32 0, i32 1, i1 false)",
        )
        .replace(r#"!"tex", i32 0, i32 0, i32 1"#, r#"!"tex", i32 0, i32 1, i32 1"#);
    assert_ne!(t1, text);
    let ps = parse(t1.as_bytes());
    let cs = parse(COUNTER_CS.as_bytes());
    let ps_signature =
        CString::new("DescriptorTable(SRV(t0, numDescriptors = 2)), DescriptorTable(Sampler(s0))").unwrap();
    let cs_signature = CString::new("DescriptorTable(UAV(u0))").unwrap();
    // SAFETY: live objects throughout.
    unsafe {
        let o = options();
        assert_eq!(untangle_options_set_binding_model(o, UNTANGLE_BINDING_MODEL_DIRECT), untangle_status::UNTANGLE_OK);
        let st = untangle_options_set_root_signature_string(
            o,
            ps_signature.as_ptr(),
            UNTANGLE_ROOT_SIGNATURE_VERSION_1_1,
            null_mut(),
        );
        assert_eq!(st, untangle_status::UNTANGLE_OK);
        let r = translate(ps, o).unwrap();
        let b = bindings(r);
        let srv = b.iter().find(|b| b.resource_class == UNTANGLE_RESOURCE_CLASS_SRV).unwrap();
        assert_eq!((srv.base_register, srv.count, srv.array_element, srv.has_counter), (1, 1, 1, false));
        let sampler = b.iter().find(|b| b.resource_class == UNTANGLE_RESOURCE_CLASS_SAMPLER).unwrap();
        assert_eq!(sampler.array_element, 0);
        untangle_result_free(r);
        // Without a root signature: element 0 of its own binding.
        untangle_options_clear_root_signature(o);
        let r = translate(ps, o).unwrap();
        assert!(bindings(r).iter().all(|b| b.array_element == 0 && !b.has_counter));
        untangle_result_free(r);

        // The UAV counter: the default rule (binding 4000 + register), the root
        // signature's `direct` lowering, and the callback's answer.
        let r = translate(cs, o).unwrap();
        let b = bindings(r);
        assert_eq!(b.len(), 1);
        assert_eq!((b[0].set, b[0].binding, b[0].array_element), (0, 2000, 0));
        assert!(b[0].has_counter);
        assert_eq!((b[0].counter_set, b[0].counter_binding), (0, 4000));
        untangle_result_free(r);
        let st = untangle_options_set_root_signature_string(
            o,
            cs_signature.as_ptr(),
            UNTANGLE_ROOT_SIGNATURE_VERSION_1_1,
            null_mut(),
        );
        assert_eq!(st, untangle_status::UNTANGLE_OK);
        let r = translate(cs, o).unwrap();
        let b = bindings(r);
        assert_eq!(b.len(), 1);
        assert!(b[0].has_counter);
        assert_ne!((b[0].counter_set, b[0].counter_binding), (b[0].set, b[0].binding));
        // The layout report says the same.
        let mut json = null();
        untangle_result_layout_json(r, &mut json);
        let json = CStr::from_ptr(json).to_str().unwrap();
        assert!(json.contains("counter"), "{json}");
        untangle_result_free(r);
        untangle_options_clear_root_signature(o);
        let user = [4u32, 9, 4, 10];
        untangle_options_set_resource_remap(o, Some(resources_to), &user as *const [u32; 4] as *mut c_void);
        let r = translate(cs, o).unwrap();
        let b = bindings(r);
        assert_eq!((b[0].set, b[0].binding, b[0].counter_set, b[0].counter_binding), (4, 9, 4, 10));
        untangle_result_free(r);
        untangle_options_free(o);
        untangle_shader_free(ps);
        untangle_shader_free(cs);
    }
}
