//! Minimum precision (`min16float`: DXIL `half` in a module whose shader flags lack
//! `UseNativeLowPrecision`) under both [`MinPrecision`] settings, on every such shader of
//! the shared corpus: widened to 32 bits the module declares no 16-bit float type or
//! capability (a device without `shaderFloat16` can run it, and a layer that checks
//! `Float16` against D3D12's `Native16BitShaderOpsSupported` accepts it); native, `half`
//! stays 16-bit. A module with native 16-bit types keeps them whatever the setting. Every
//! module passes `spirv-val --target-env vulkan1.3`. (Execution: vkd3d-proton's
//! `test_shader_fp16` runs the widened pair on lavapipe, `docs/vkd3d-proton.md`.)

use std::path::{Path, PathBuf};
use untangle::{MinPrecision, Options, Shader};
use untangle_testkit::check::spirv_val::find_spirv_val;

const USE_NATIVE_LOW_PRECISION: u64 = 1 << 23;
const LOW_PRECISION_PRESENT: u64 = 1 << 5;

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dxil"))
        .collect();
    files.sort();
    files
}

/// The shader's entry flags, or `None` when it does not parse or has no entry.
fn flags(shader: &Shader) -> Option<u64> {
    shader.entry_points().iter().find(|e| e.function.is_some()).map(|e| e.properties.shader_flags)
}

fn translate(shader: &Shader, min_precision: MinPrecision) -> String {
    let t = shader
        .translate(&Options { min_precision, ..Options::default() })
        .unwrap_or_else(|e| panic!("{min_precision:?}: {e}"));
    let Some(val) = find_spirv_val() else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        return String::new();
    };
    val.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{min_precision:?}: {e}"));
    val.disassemble(&t.words).unwrap_or_default()
}

fn declares_f16(asm: &str) -> bool {
    asm.contains("OpCapability Float16") || asm.contains("OpTypeFloat 16")
}

#[test]
fn minimum_precision_widens_to_32_bits_on_request() {
    if find_spirv_val().is_none() {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        return;
    }
    let mut widened = Vec::new();
    for path in corpus() {
        let bytes = std::fs::read(&path).expect("read");
        let Ok(shader) = Shader::parse(&bytes) else { continue };
        let Some(f) = flags(&shader) else { continue };
        if f & LOW_PRECISION_PRESENT == 0 || f & USE_NATIVE_LOW_PRECISION != 0 {
            continue;
        }
        if shader.translate(&Options::default()).is_err() {
            continue; // not a translation this test is about (the corpus tests cover it)
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let native = translate(&shader, MinPrecision::Native16Bit);
        let wide = translate(&shader, MinPrecision::Float32);
        assert!(!declares_f16(&wide), "{name}: widened module still declares 16-bit floats");
        if declares_f16(&native) {
            widened.push(name);
        }
    }
    // The corpus's min16float shaders (vkd3d-proton's test_shader_fp16 pair and the
    // stage-mismatch ones) compute in `half`: the test saw them.
    for expected in ["sm_advanced.ps_fp16_nonnative.ps_6_2.dxil", "sm_advanced.vs_fp16_nonnative.vs_6_2.dxil"] {
        assert!(widened.iter().any(|n| n == expected), "{expected} not among {widened:?}");
    }
}

#[test]
fn native_16bit_modules_keep_half_whatever_the_setting() {
    if find_spirv_val().is_none() {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        return;
    }
    let mut seen = 0;
    for path in corpus() {
        let bytes = std::fs::read(&path).expect("read");
        let Ok(shader) = Shader::parse(&bytes) else { continue };
        let Some(f) = flags(&shader) else { continue };
        if f & USE_NATIVE_LOW_PRECISION == 0 || shader.translate(&Options::default()).is_err() {
            continue;
        }
        let native = translate(&shader, MinPrecision::Native16Bit);
        let wide = translate(&shader, MinPrecision::Float32);
        assert_eq!(native, wide, "{}: the setting changed a native 16-bit module", path.display());
        seen += declares_f16(&native) as usize;
    }
    assert!(seen > 0, "no native 16-bit shader with `half` in the corpus");
}
