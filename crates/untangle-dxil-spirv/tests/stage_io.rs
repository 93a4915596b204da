//! Stage I/O through the C API as vkd3d-proton drives it: a pixel-shader input the
//! stage-input callback marks `DXIL_SPV_SHADER_STAGE_IO_PER_PRIMITIVE` (vkd3d-proton does
//! for what a mesh shader writes per primitive) is decorated `PerPrimitiveEXT`, and only
//! that one; the module passes `spirv-val`. The shader is vkd3d-proton's
//! `mesh_shader.ps_interface_matching` (`../shared/corpus`; skipped without it outside CI).

use std::ffi::{c_void, CStr};
use std::path::Path;
use untangle_dxil_spirv::exports::*;
use untangle_dxil_spirv::ffi::*;

const SHADER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/corpus/dxil/vkd3d-proton/mesh_shader.ps_interface_matching.ps_6_0.dxil"
);

/// Marks `UV_PRIMITIVE_DATA` per primitive and keeps every prefilled place.
unsafe extern "C" fn input(
    _user: *mut c_void,
    d3d: *const dxil_spv_d3d_shader_stage_io,
    vk: *mut dxil_spv_vulkan_shader_stage_io,
) -> dxil_spv_bool {
    // SAFETY: the library passes valid pointers and a NUL-terminated semantic.
    unsafe {
        if CStr::from_ptr((*d3d).semantic).to_bytes() == b"UV_PRIMITIVE_DATA" {
            (*vk).flags |= DXIL_SPV_SHADER_STAGE_IO_PER_PRIMITIVE;
        }
    }
    DXIL_SPV_TRUE
}

/// The module's disassembly with the input callback installed or not.
fn translate(path: &Path, callback: bool) -> String {
    let bytes = std::fs::read(path).unwrap();
    let words = unsafe {
        // SAFETY: the API's contract: handles from its own constructors, freed once.
        let mut blob: dxil_spv_parsed_blob = std::ptr::null_mut();
        assert_eq!(dxil_spv_parse_dxil_blob(bytes.as_ptr() as *const c_void, bytes.len(), &mut blob), DXIL_SPV_SUCCESS);
        let mut conv: dxil_spv_converter = std::ptr::null_mut();
        assert_eq!(dxil_spv_create_converter(blob, &mut conv), DXIL_SPV_SUCCESS);
        if callback {
            dxil_spv_converter_set_stage_input_remapper(conv, Some(input), std::ptr::null_mut());
        }
        assert_eq!(dxil_spv_converter_run(conv), DXIL_SPV_SUCCESS);
        let mut compiled = dxil_spv_compiled_spirv { data: std::ptr::null(), size: 0 };
        assert_eq!(dxil_spv_converter_get_compiled_spirv(conv, &mut compiled), DXIL_SPV_SUCCESS);
        let words = std::slice::from_raw_parts(compiled.data as *const u32, compiled.size / 4).to_vec();
        dxil_spv_converter_free(conv);
        dxil_spv_parsed_blob_free(blob);
        words
    };
    let Some(val) = untangle_spirv_tools::find_spirv_val() else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        return String::new();
    };
    val.validate(&words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}"));
    val.disassemble(&words).unwrap_or_default()
}

#[test]
fn per_primitive_inputs_follow_the_callbacks_flag() {
    let path = Path::new(SHADER);
    if !path.is_file() {
        assert!(std::env::var_os("CI").is_none(), "{SHADER} is required under CI");
        return;
    }
    let marked = translate(path, true);
    if marked.is_empty() {
        return;
    }
    let per_primitive: Vec<&str> = marked.lines().filter(|l| l.contains("PerPrimitiveEXT")).collect();
    assert_eq!(per_primitive.len(), 1, "{marked}");
    let id = per_primitive[0].split_whitespace().nth(1).unwrap();
    assert!(
        marked.lines().any(|l| l.contains("OpName") && l.contains(id) && l.contains("UV_PRIMITIVE_DATA")),
        "{marked}"
    );
    assert!(!translate(path, false).contains("PerPrimitiveEXT"));
}
