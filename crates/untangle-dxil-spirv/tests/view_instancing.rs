//! `DXIL_SPV_OPTION_VIEW_INSTANCING` and `DXIL_SPV_OPTION_OUTPUT_SWIZZLE` through the C API,
//! called as vkd3d-proton's `libs/vkd3d-shader/dxil.c` calls it (the option, then the dummy
//! `DYNAMIC_VIEW_INSTANCING_OFFSETS` meta descriptor at (0, 0), `run`, then
//! `is_multiview_compatible`), on the shaders of its view-instancing and A8 tests
//! (`../shared/corpus/dxil/vkd3d-proton`; skipped without it outside CI). Every module
//! passes `spirv-val`.
//!
//! `is_multiview_compatible` answers as dxil-spirv's does: true iff view instancing is on, a
//! ViewIndex → ViewID specialization constant is given, and the shader writes no
//! `SV_RenderTargetArrayIndex` (vkd3d-proton then fails the pipeline with `E_NOTIMPL`, which
//! `test_view_instancing` expects of `vs_multiview_export_layer_viewport`; the module must
//! still translate, or the error would be another one).

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use untangle_dxil_spirv::exports::*;
use untangle_dxil_spirv::ffi::*;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");

fn shader(name: &str) -> Option<PathBuf> {
    let p = Path::new(CORPUS).join(name);
    if p.is_file() {
        return Some(p);
    }
    assert!(std::env::var_os("CI").is_none(), "{} is required under CI", p.display());
    println!("{} not found: skipping", p.display());
    None
}

struct Run {
    result: dxil_spv_result,
    spirv: Vec<u32>,
    multiview_compatible: bool,
}

/// Parses `path`, lets `setup` configure the converter, runs it and reads the module and
/// `is_multiview_compatible`.
fn convert(path: &Path, setup: impl FnOnce(dxil_spv_converter)) -> Run {
    let bytes = std::fs::read(path).unwrap();
    // SAFETY: the API's contract: handles from its own constructors, freed once.
    unsafe {
        let mut blob: dxil_spv_parsed_blob = std::ptr::null_mut();
        assert_eq!(dxil_spv_parse_dxil_blob(bytes.as_ptr() as *const c_void, bytes.len(), &mut blob), DXIL_SPV_SUCCESS);
        let mut conv: dxil_spv_converter = std::ptr::null_mut();
        assert_eq!(dxil_spv_create_converter(blob, &mut conv), DXIL_SPV_SUCCESS);
        setup(conv);
        let result = dxil_spv_converter_run(conv);
        let mut spirv = Vec::new();
        if result == DXIL_SPV_SUCCESS {
            let mut compiled = dxil_spv_compiled_spirv { data: std::ptr::null(), size: 0 };
            assert_eq!(dxil_spv_converter_get_compiled_spirv(conv, &mut compiled), DXIL_SPV_SUCCESS);
            let words = std::slice::from_raw_parts(compiled.data as *const u32, compiled.size / 4);
            spirv = words.to_vec();
        }
        let mut compatible: dxil_spv_bool = DXIL_SPV_TRUE;
        assert_eq!(dxil_spv_converter_is_multiview_compatible(conv, &mut compatible), DXIL_SPV_SUCCESS);
        dxil_spv_converter_free(conv);
        dxil_spv_parsed_blob_free(blob);
        Run { result, spirv, multiview_compatible: compatible != 0 }
    }
}

/// vkd3d-proton's multiview setup (dxil.c): the option, then the dummy meta descriptor.
fn view_instancing(conv: dxil_spv_converter, last: bool, view_id_spec: u32, viewport_spec: u32) {
    let option = dxil_spv_option_view_instancing {
        base: dxil_spv_option_base { type_: DXIL_SPV_OPTION_VIEW_INSTANCING },
        enabled: DXIL_SPV_TRUE,
        last_pre_rasterization_stage: if last { DXIL_SPV_TRUE } else { DXIL_SPV_FALSE },
        view_index_to_view_instance_spec_id: view_id_spec,
        view_instance_to_viewport_spec_id: viewport_spec,
    };
    // SAFETY: a converter from `convert`; the option lives through the call.
    unsafe {
        assert_eq!(dxil_spv_converter_add_option(conv, &option.base), DXIL_SPV_SUCCESS);
        assert_eq!(
            dxil_spv_converter_set_meta_descriptor(
                conv,
                DXIL_SPV_META_DESCRIPTOR_DYNAMIC_VIEW_INSTANCING_OFFSETS,
                DXIL_SPV_META_DESCRIPTOR_KIND_UBO_CONTAINING_CONSTANT,
                0,
                0,
            ),
            DXIL_SPV_SUCCESS
        );
    }
}

fn disassemble(words: &[u32]) -> String {
    let Some(val) = untangle_spirv_tools::find_spirv_val() else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        return String::new();
    };
    val.validate(words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}"));
    val.disassemble(words).unwrap_or_default()
}

#[test]
fn view_instancing_translates_and_answers_multiview_compatibility() {
    let (Some(passthrough), Some(export), Some(ps)) = (
        shader("pso.vs_view_id_passthrough.vs_6_1.dxil"),
        shader("pso.vs_multiview_export_layer_viewport.vs_6_1.dxil"),
        shader("pso.ps_view_id.ps_6_1.dxil"),
    ) else {
        return;
    };
    // test_view_instancing's "mixed" locations: ViewID through 1000, viewports through 1001.
    let r = convert(&passthrough, |c| view_instancing(c, true, 1000, 1001));
    assert_eq!(r.result, DXIL_SPV_SUCCESS);
    assert!(r.multiview_compatible);
    let asm = disassemble(&r.spirv);
    if !asm.is_empty() {
        assert!(asm.contains("SpecId 1000") && asm.contains("SpecId 1001"), "{asm}");
        assert!(asm.contains("BuiltIn ViewIndex") && asm.contains("BuiltIn ViewportIndex"), "{asm}");
        // The dummy offsets buffer is not read: multiview serves.
        assert!(!asm.contains("ViewInstancingOffsets"), "{asm}");
    }
    // Not the last pre-rasterization stage: no viewport written.
    let r = convert(&passthrough, |c| view_instancing(c, false, 1000, 1001));
    assert_eq!(r.result, DXIL_SPV_SUCCESS);
    assert!(r.multiview_compatible);
    let asm = disassemble(&r.spirv);
    assert!(!asm.contains("ViewportIndex"), "{asm}");
    // A pixel shader (this one reads the view id the vertex shader passes) translates as
    // without the option, and is compatible: it writes no slice.
    let r = convert(&ps, |c| view_instancing(c, false, 1000, u32::MAX));
    assert_eq!(r.result, DXIL_SPV_SUCCESS);
    assert!(r.multiview_compatible);
    assert_eq!(r.spirv, convert(&ps, |_| {}).spirv);
    disassemble(&r.spirv);

    // A shader that writes SV_RenderTargetArrayIndex translates (its ViewID and offsets
    // from the dummy buffer) and is not multiview compatible.
    let r = convert(&export, |c| view_instancing(c, true, 1000, 1001));
    assert_eq!(r.result, DXIL_SPV_SUCCESS);
    assert!(!r.multiview_compatible);
    let asm = disassemble(&r.spirv);
    assert!(asm.is_empty() || asm.contains("ViewInstancingOffsets"), "{asm}");

    // Without a ViewIndex → ViewID constant, or without view instancing: not compatible.
    let r = convert(&passthrough, |c| view_instancing(c, true, u32::MAX, u32::MAX));
    assert_eq!(r.result, DXIL_SPV_SUCCESS);
    assert!(!r.multiview_compatible);
    let r = convert(&passthrough, |_| {});
    assert_eq!(r.result, DXIL_SPV_SUCCESS);
    assert!(!r.multiview_compatible);
    let asm = disassemble(&r.spirv);
    assert!(!asm.contains("SpecId"), "{asm}");
    // The last option wins: a later disabled one turns view instancing off.
    let r = convert(&passthrough, |c| {
        view_instancing(c, true, 1000, 1001);
        let off = dxil_spv_option_view_instancing {
            base: dxil_spv_option_base { type_: DXIL_SPV_OPTION_VIEW_INSTANCING },
            enabled: DXIL_SPV_FALSE,
            last_pre_rasterization_stage: DXIL_SPV_FALSE,
            view_index_to_view_instance_spec_id: 1000,
            view_instance_to_viewport_spec_id: 1001,
        };
        // SAFETY: as in `view_instancing`.
        unsafe { assert_eq!(dxil_spv_converter_add_option(c, &off.base), DXIL_SPV_SUCCESS) };
    });
    assert_eq!(r.result, DXIL_SPV_SUCCESS);
    assert!(!r.multiview_compatible);
}

/// vkd3d-proton's swizzles: `VKD3D_NO_SWIZZLE` (0xe4) and A8_UNORM's `(W, X, Y, Z)` (0x93).
fn swizzle(conv: dxil_spv_converter, swizzles: &[u32]) {
    let option = dxil_spv_option_output_swizzle {
        base: dxil_spv_option_base { type_: DXIL_SPV_OPTION_OUTPUT_SWIZZLE },
        swizzles: swizzles.as_ptr(),
        swizzle_count: swizzles.len() as u32,
    };
    // SAFETY: a converter from `convert`; the array lives through the call (it is copied).
    unsafe { assert_eq!(dxil_spv_converter_add_option(conv, &option.base), DXIL_SPV_SUCCESS) };
}

#[test]
fn output_swizzle_moves_a8_alpha_to_red() {
    let Some(a8) = shader("render_target.ps_render_a8.ps_6_0.dxil") else { return };
    // target = float4(0, 0.25, 0.5, 1): with A8's swizzle red gets 1.0 (what
    // test_render_a8_dxil reads back: 0xff).
    let plain = convert(&a8, |c| swizzle(c, &[0xe4]));
    assert_eq!(plain.result, DXIL_SPV_SUCCESS);
    let none = convert(&a8, |_| {});
    assert_eq!(plain.spirv, none.spirv, "the identity swizzle changes nothing");
    let r = convert(&a8, |c| swizzle(c, &[0x93]));
    assert_eq!(r.result, DXIL_SPV_SUCCESS);
    assert_ne!(r.spirv, plain.spirv);
    let asm = disassemble(&r.spirv);
    if !asm.is_empty() {
        let chain = asm
            .lines()
            .find_map(|l| {
                let (id, rest) = l.trim().split_once(" = OpAccessChain ")?;
                rest.ends_with(" %uint_0").then(|| id.to_string())
            })
            .expect("an access to component 0");
        assert!(asm.contains(&format!("OpStore {chain} %float_1")), "{asm}");
    }
    // A swizzle that is no permutation is refused.
    let r = convert(&a8, |c| swizzle(c, &[0x00]));
    assert_eq!(r.result, DXIL_SPV_ERROR_UNSUPPORTED_FEATURE);
}
