//! AMD AGS WMMA through the C API as vkd3d-proton drives it (FSR4's path): its
//! `libs/vkd3d-shader/dxil.c` adds `DXIL_SPV_OPTION_FLOAT8_SUPPORT` with `wmma_fp8` when the
//! device has `shaderFloat8CooperativeMatrix` and `nv_cooperative_matrix2_conversions` when
//! it has `cooperativeMatrixConversions`, and learns that a module uses WMMA from its
//! capabilities (`vkd3d_shader_main.c`: `CooperativeMatrixKHR` sets
//! `USES_COOPERATIVE_MATRIX`, `Float8CooperativeMatrixEXT` sets `USES_COOPERATIVE_MATRIX_FP8`;
//! the pipeline fails on a device without the matching feature). dxil-spirv lowers AGS WMMA
//! unasked, whatever the options.
//!
//! On the corpus's WMMA shaders (`../shared/corpus/dxil/vkd3d-proton/sm_advanced.cs_wmma_*`;
//! skipped without it outside CI), with no option, with `wmma_fp8`, with NV conversions,
//! and with both:
//! - every module passes `spirv-val` (Vulkan 1.4) and declares `CooperativeMatrixKHR`;
//! - with `wmma_fp8` every shader translates; the float8 ones (those declaring
//!   `Float8CooperativeMatrixEXT`) are exactly the ones refused without it;
//! - without `wmma_fp8` a float8 shader is refused (`DXIL_SPV_ERROR_UNSUPPORTED_FEATURE`)
//!   with a logged message naming `VK_EXT_shader_float8`, counted in the summary under that
//!   feature: untangle does not emulate float8 matrices (dxil-spirv computes them in f16,
//!   which vkd3d-proton exposes only in builds with `VKD3D_ENABLE_EXTENDED_EMULATION`);
//! - without NV conversions no module uses `SPV_NV_cooperative_matrix2` (an accumulator
//!   becomes an A or B matrix through groupshared memory, as in dxil-spirv); with them,
//!   some do.

use std::ffi::{c_char, c_void, CStr};
use std::path::PathBuf;
use std::sync::Mutex;
use untangle_dxil_spirv::exports::*;
use untangle_dxil_spirv::ffi::*;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");

fn wmma_shaders() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(CORPUS).map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    v.retain(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("sm_advanced.cs_wmma_")));
    v.sort();
    v
}

static LOG: Mutex<String> = Mutex::new(String::new());

unsafe extern "C" fn log(_user: *mut c_void, _level: dxil_spv_log_level, msg: *const c_char) {
    // SAFETY: the library passes a NUL-terminated message.
    let text = unsafe { CStr::from_ptr(msg) }.to_string_lossy().into_owned();
    LOG.lock().unwrap().push_str(&text);
}

struct Run {
    result: dxil_spv_result,
    spirv: Vec<u32>,
    log: String,
}

/// Translates `bytes` as vkd3d-proton does, with FLOAT8_SUPPORT as given (`None`: the
/// option is not added).
fn convert(bytes: &[u8], float8: Option<(bool, bool)>) -> Run {
    LOG.lock().unwrap().clear();
    // SAFETY: the API's contract: handles from its own constructors, freed once; the option
    // lives through the call.
    unsafe {
        dxil_spv_set_thread_log_callback(Some(log), std::ptr::null_mut());
        let mut blob: dxil_spv_parsed_blob = std::ptr::null_mut();
        assert_eq!(dxil_spv_parse_dxil_blob(bytes.as_ptr() as *const c_void, bytes.len(), &mut blob), DXIL_SPV_SUCCESS);
        let mut conv: dxil_spv_converter = std::ptr::null_mut();
        assert_eq!(dxil_spv_create_converter(blob, &mut conv), DXIL_SPV_SUCCESS);
        if let Some((fp8, nv)) = float8 {
            let b = |x: bool| if x { DXIL_SPV_TRUE } else { DXIL_SPV_FALSE };
            let option = dxil_spv_option_float8_support {
                base: dxil_spv_option_base { type_: DXIL_SPV_OPTION_FLOAT8_SUPPORT },
                wmma_fp8: b(fp8),
                nv_cooperative_matrix2_conversions: b(nv),
            };
            assert_eq!(dxil_spv_converter_add_option(conv, &option.base), DXIL_SPV_SUCCESS);
        }
        let result = dxil_spv_converter_run(conv);
        let mut spirv = Vec::new();
        if result == DXIL_SPV_SUCCESS {
            let mut compiled = dxil_spv_compiled_spirv { data: std::ptr::null(), size: 0 };
            assert_eq!(dxil_spv_converter_get_compiled_spirv(conv, &mut compiled), DXIL_SPV_SUCCESS);
            spirv = std::slice::from_raw_parts(compiled.data as *const u32, compiled.size / 4).to_vec();
        }
        dxil_spv_converter_free(conv);
        dxil_spv_parsed_blob_free(blob);
        dxil_spv_set_thread_log_callback(None, std::ptr::null_mut());
        Run { result, spirv, log: std::mem::take(&mut *LOG.lock().unwrap()) }
    }
}

/// The module's capabilities and extensions, read as vkd3d-proton's
/// `vkd3d_shader_extract_feature_meta` does: a walk over the instructions after the
/// 5-word header (`OpCapability` = 17, `OpExtension` = 10 with a NUL-padded string).
fn declared(words: &[u32]) -> (Vec<u32>, Vec<String>) {
    let (mut caps, mut exts) = (Vec::new(), Vec::new());
    let mut i = 5;
    while i < words.len() {
        let (op, count) = (words[i] & 0xffff, (words[i] >> 16) as usize);
        assert!(count > 0 && i + count <= words.len(), "a well-formed instruction stream");
        match op {
            17 => caps.push(words[i + 1]),
            10 => {
                let bytes: Vec<u8> = words[i + 1..i + count].iter().flat_map(|w| w.to_le_bytes()).collect();
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                exts.push(String::from_utf8_lossy(&bytes[..end]).into_owned());
            }
            _ => {}
        }
        i += count;
    }
    (caps, exts)
}

// SPIR-V capability numbers (the unified grammar): the ones vkd3d-proton's detection reads.
const COOPERATIVE_MATRIX_KHR: u32 = 6022;
const FLOAT8_COOPERATIVE_MATRIX_EXT: u32 = 4213;
const COOPERATIVE_MATRIX_CONVERSIONS_NV: u32 = 5431;

/// The summary's count of refusals under `reason` (this process).
fn refusals(reason: &str) -> u64 {
    let v: serde_json::Value = serde_json::from_str(&untangle_dxil_spirv::summary::line()).unwrap();
    v["refusals"][reason].as_u64().unwrap_or(0)
}

const FLOAT8_FEATURE: &str = "shaderFloat8CooperativeMatrix (VK_EXT_shader_float8)";

#[test]
fn corpus_wmma_shaders_translate_as_vkd3d_proton_asks() {
    let shaders = wmma_shaders();
    if shaders.is_empty() {
        assert!(std::env::var_os("CI").is_none(), "the corpus's WMMA shaders are required under CI");
        println!("no corpus: skipping");
        return;
    }
    assert!(shaders.len() >= 20, "{} WMMA shaders", shaders.len());
    let val = untangle_spirv_tools::find_spirv_val();
    assert!(val.is_some() || std::env::var_os("CI").is_none(), "spirv-val is required under CI");
    let refused_before = refusals(FLOAT8_FEATURE);
    let (mut float8_shaders, mut refused, mut nv_modules, mut emulated_use_changes) = (0, 0, 0, 0);
    for path in &shaders {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(path).unwrap();
        // First as vkd3d-proton on a device with both features: every shader translates,
        // and the module says whether it is a float8 one and converts uses through NV.
        let (mut float8, mut nv_with_both) = (false, false);
        for option in [Some((true, true)), Some((true, false)), None, Some((false, false)), Some((false, true))] {
            let r = convert(&bytes, option);
            let fp8 = option.is_some_and(|(f, _)| f);
            let nv = option.is_some_and(|(_, n)| n);
            if r.result != DXIL_SPV_SUCCESS {
                assert!(!fp8, "{name} {option:?}: refused with wmma_fp8 ({}):\n{}", r.result, r.log);
                assert_eq!(r.result, DXIL_SPV_ERROR_UNSUPPORTED_FEATURE, "{name} {option:?}:\n{}", r.log);
                assert!(
                    r.log.contains("VK_EXT_shader_float8"),
                    "{name} {option:?}: the log names the feature:\n{}",
                    r.log
                );
                assert!(float8, "{name}: refused without wmma_fp8, yet not a float8 shader:\n{}", r.log);
                refused += 1;
                continue;
            }
            assert!(!float8 || fp8, "{name} {option:?}: a float8 shader translated without wmma_fp8");
            if let Some(val) = &val {
                val.validate(&r.spirv, "vulkan1.4").unwrap_or_else(|e| panic!("{name} {option:?}: {e}"));
            }
            let (caps, exts) = declared(&r.spirv);
            assert!(caps.contains(&COOPERATIVE_MATRIX_KHR), "{name} {option:?}: {caps:?}");
            assert!(exts.iter().any(|e| e == "SPV_KHR_cooperative_matrix"), "{name} {option:?}: {exts:?}");
            let uses_float8 = caps.contains(&FLOAT8_COOPERATIVE_MATRIX_EXT);
            let uses_nv = exts.iter().any(|e| e == "SPV_NV_cooperative_matrix2");
            assert_eq!(uses_nv, caps.contains(&COOPERATIVE_MATRIX_CONVERSIONS_NV), "{name} {option:?}");
            assert!(nv || !uses_nv, "{name} {option:?}: NV conversions without the option");
            if option == Some((true, true)) {
                (float8, nv_with_both) = (uses_float8, uses_nv);
                float8_shaders += float8 as usize;
                nv_modules += uses_nv as usize;
            } else {
                assert_eq!(uses_float8, float8, "{name} {option:?}: float8 matrices as with both features");
            }
            emulated_use_changes += (option == Some((true, false)) && nv_with_both) as usize;
        }
    }
    println!(
        "{} WMMA shaders: {float8_shaders} float8, {refused} refusals without wmma_fp8, {nv_modules} using NV conversions, {emulated_use_changes} accumulator → A/B through groupshared memory without them",
        shaders.len()
    );
    assert!(float8_shaders > 0, "the corpus has float8 WMMA shaders");
    assert_eq!(refused, 3 * float8_shaders, "every float8 shader is refused under each option without wmma_fp8");
    assert_eq!(refusals(FLOAT8_FEATURE) - refused_before, refused as u64, "the summary counts them by feature");
    assert!(nv_modules > 0, "some shaders use NV conversions when granted");
    assert!(emulated_use_changes > 0, "some f16 shaders change accumulator to A/B without NV conversions");
}
