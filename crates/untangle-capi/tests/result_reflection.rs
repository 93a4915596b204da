//! What a translation result tells a layer about the pipeline it goes into (issue 33 item
//! 4): the workgroup size, the wave size and its range, the tessellation control points and
//! patch constants, the SPIR-V capabilities and extensions the module declares, the device
//! features they need; and the
//! shared library's versioned `SONAME` (item 5).

use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::ptr::null_mut;
use untangle_capi::*;

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");
const OK: untangle_status = untangle_status::UNTANGLE_OK;
const INVALID: untangle_status = untangle_status::UNTANGLE_INVALID_ARGUMENT;

fn repo_file(path: &str) -> Vec<u8> {
    std::fs::read(Path::new(MANIFEST).join("../..").join(path)).unwrap()
}

/// A file of the vkd3d-proton corpus; `None` (skip) when the corpus is absent outside CI.
fn shared(name: &str) -> Option<Vec<u8>> {
    let dir = Path::new(MANIFEST).join("../../../shared/corpus/dxil/vkd3d-proton");
    if !dir.is_dir() {
        assert!(std::env::var_os("CI").is_none(), "{} is missing under CI", dir.display());
        eprintln!("{} is absent: skipping", dir.display());
        return None;
    }
    Some(std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// A translation result, freed on drop.
struct Translated(*mut untangle_result);

impl Drop for Translated {
    fn drop(&mut self) {
        // SAFETY: a result from untangle_translate, freed once.
        unsafe { untangle_result_free(self.0) }
    }
}

/// Parses and translates `bytes` with the default options.
fn translate(bytes: &[u8]) -> Translated {
    let (mut shader, mut result) = (null_mut(), null_mut());
    // SAFETY: valid buffers and out-pointers.
    unsafe {
        assert_eq!(untangle_shader_parse(bytes.as_ptr(), bytes.len(), &mut shader, null_mut()), OK);
        assert_eq!(untangle_translate(shader, std::ptr::null(), &mut result, null_mut()), OK);
        // The result does not borrow from the shader.
        untangle_shader_free(shader);
    }
    Translated(result)
}

impl Translated {
    fn workgroup_size(&self) -> [u32; 3] {
        let mut size = [7u32; 3];
        // SAFETY: a live result; three writable words.
        assert_eq!(unsafe { untangle_result_workgroup_size(self.0, size.as_mut_ptr()) }, OK);
        size
    }

    fn wave_size(&self) -> (u32, u32, u32) {
        let (mut min, mut max, mut preferred) = (7, 7, 7);
        // SAFETY: a live result and writable out-parameters.
        assert_eq!(unsafe { untangle_result_wave_size(self.0, &mut min, &mut max, &mut preferred) }, OK);
        (min, max, preferred)
    }

    fn control_points(&self) -> (u32, u32) {
        let (mut input, mut output) = (7, 7);
        // SAFETY: as above.
        assert_eq!(unsafe { untangle_result_control_points(self.0, &mut input, &mut output) }, OK);
        (input, output)
    }

    fn patch_constant_rows(&self) -> u32 {
        let mut rows = 7;
        // SAFETY: as above.
        assert_eq!(unsafe { untangle_result_patch_constant_rows(self.0, &mut rows) }, OK);
        rows
    }

    fn capabilities(&self) -> Vec<u32> {
        let mut count = 0;
        // SAFETY: as above.
        assert_eq!(unsafe { untangle_result_capability_count(self.0, &mut count) }, OK);
        let caps = (0..count)
            .map(|i| {
                let mut c = 0;
                // SAFETY: as above; `i` is in range.
                assert_eq!(unsafe { untangle_result_capability(self.0, i, &mut c) }, OK);
                c
            })
            .collect();
        let mut c = 0;
        // SAFETY: as above; the index is out of range.
        assert_eq!(unsafe { untangle_result_capability(self.0, count, &mut c) }, INVALID);
        caps
    }

    fn extensions(&self) -> Vec<String> {
        let mut count = 0;
        // SAFETY: as above.
        assert_eq!(unsafe { untangle_result_extension_count(self.0, &mut count) }, OK);
        (0..count)
            .map(|i| {
                let mut name = std::ptr::null();
                // SAFETY: as above; the name is NUL-terminated and owned by the result.
                unsafe {
                    assert_eq!(untangle_result_extension(self.0, i, &mut name), OK);
                    CStr::from_ptr(name).to_str().unwrap().to_string()
                }
            })
            .collect()
    }

    /// The device feature rows: (requirement, SPIR-V name, kind, name, member).
    fn device_features(&self) -> Vec<(u32, String, u32, String, String)> {
        let mut count = 0;
        // SAFETY: as above.
        assert_eq!(unsafe { untangle_result_device_feature_count(self.0, &mut count) }, OK);
        let text = |p: *const std::ffi::c_char| {
            // SAFETY: never NULL, NUL-terminated, owned by the result.
            unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string()
        };
        (0..count)
            .map(|i| {
                // SAFETY: as above; every pointer is written.
                let f = unsafe {
                    let mut f = std::mem::MaybeUninit::<untangle_device_feature>::uninit();
                    assert_eq!(untangle_result_device_feature(self.0, i, f.as_mut_ptr()), OK);
                    f.assume_init()
                };
                (f.requirement, text(f.spirv), f.kind, text(f.name), text(f.member))
            })
            .collect()
    }

    fn words(&self) -> Vec<u32> {
        let (mut words, mut count) = (std::ptr::null(), 0);
        // SAFETY: as above; `count` words at `words`.
        unsafe {
            assert_eq!(untangle_result_spirv(self.0, &mut words, &mut count), OK);
            std::slice::from_raw_parts(words, count).to_vec()
        }
    }
}

/// The capabilities and extensions rspirv reads from the module.
fn rspirv_view(words: &[u32]) -> (Vec<u32>, Vec<String>) {
    let m = rspirv::dr::load_words(words).unwrap();
    let caps = m
        .capabilities
        .iter()
        .map(|i| match i.operands[0] {
            rspirv::dr::Operand::Capability(c) => c as u32,
            ref o => panic!("{o:?}"),
        })
        .collect();
    let exts = m
        .extensions
        .iter()
        .map(|i| match &i.operands[0] {
            rspirv::dr::Operand::LiteralString(s) => s.clone(),
            o => panic!("{o:?}"),
        })
        .collect();
    (caps, exts)
}

#[test]
fn compute_workgroup_size_is_its_numthreads() {
    let r = translate(&repo_file("corpus/cs_groupshared_reduce.ll"));
    assert_eq!(r.workgroup_size(), [64, 1, 1]);
    assert_eq!(r.wave_size(), (0, 0, 0));
    assert_eq!(r.control_points(), (0, 0));
    assert_eq!(r.patch_constant_rows(), 0);
    let shader_cap = rspirv::spirv::Capability::Shader as u32;
    let caps = r.capabilities();
    assert!(caps.contains(&shader_cap), "{caps:?}");
    assert_eq!((caps, r.extensions()), rspirv_view(&r.words()));
    // Mesh and amplification shaders give theirs too.
    assert_eq!(translate(&repo_file("corpus/mesh/ms.ll")).workgroup_size(), [4, 1, 1]);
    // A pixel shader has none.
    assert_eq!(translate(&repo_file("corpus/ps_textured.ll")).workgroup_size(), [0, 0, 0]);
}

#[test]
fn hull_shader_control_points_and_patch_constants() {
    // [outputcontrolpoints(3)] over InputPatch<CP, 3>; SV_TessFactor (rows 0-2),
    // SV_InsideTessFactor (row 3) and CENTER (row 0) span four rows.
    let r = translate(&repo_file("corpus/pipeline/hs.ll"));
    assert_eq!(r.control_points(), (3, 3));
    assert_eq!(r.patch_constant_rows(), 4);
    assert_eq!(r.workgroup_size(), [0, 0, 0]);
    let caps = r.capabilities();
    assert!(caps.contains(&(rspirv::spirv::Capability::Tessellation as u32)), "{caps:?}");
}

#[test]
fn wave_sizes_and_ranges() {
    let cases = [
        ("sm_advanced.cs_wave_size_wave32.cs_6_6.dxil", (32, 32, 0)),
        ("sm_advanced.cs_wave_size_range_prefer_32.cs_6_8.dxil", (4, 128, 32)),
        ("sm_advanced.cs_wave_size_range_16_32.cs_6_8.dxil", (16, 32, 0)),
    ];
    for (name, (min, max, preferred)) in cases {
        let Some(bytes) = shared(name) else { return };
        let r = translate(&bytes);
        assert_eq!(r.wave_size(), (min, max, preferred), "{name}");
        assert_eq!(r.workgroup_size(), [128, 1, 1], "{name}");
    }
}

#[test]
fn sixteen_bit_shaders_declare_float16() {
    let Some(bytes) = shared("sm_advanced.ps_fp16_native.ps_6_2.dxil") else { return };
    let r = translate(&bytes);
    let caps = r.capabilities();
    for c in [rspirv::spirv::Capability::Shader, rspirv::spirv::Capability::Float16] {
        assert!(caps.contains(&(c as u32)), "{c:?} not in {caps:?}");
    }
    assert_eq!((caps, r.extensions()), rspirv_view(&r.words()));
}

/// One requirement per capability and extension, in module order; the Float16 one met by
/// `VkPhysicalDeviceVulkan12Features::shaderFloat16` (or AMD's half-float extension).
#[test]
fn device_features_name_the_vulkan_features() {
    let Some(bytes) = shared("sm_advanced.ps_fp16_native.ps_6_2.dxil") else { return };
    let r = translate(&bytes);
    let rows = r.device_features();
    let requirements = rows.iter().map(|row| row.0).max().map_or(0, |m| m as usize + 1);
    assert_eq!(requirements, r.capabilities().len() + r.extensions().len(), "{rows:?}");
    assert!(rows.windows(2).all(|w| w[0].0 <= w[1].0), "rows of one requirement are consecutive");
    assert!(rows.iter().all(|row| row.2 != UNTANGLE_DEVICE_FEATURE_NONE), "{rows:?}");
    let float16: Vec<_> = rows.iter().filter(|row| row.1 == "Float16").collect();
    assert_eq!(float16.len(), 2, "{float16:?}");
    assert_eq!(
        (float16[0].2, float16[0].3.as_str(), float16[0].4.as_str()),
        (UNTANGLE_DEVICE_FEATURE_STRUCT_MEMBER, "VkPhysicalDeviceVulkan12Features", "shaderFloat16")
    );
    assert_eq!(
        (float16[1].2, float16[1].3.as_str()),
        (UNTANGLE_DEVICE_FEATURE_EXTENSION, "VK_AMD_gpu_shader_half_float")
    );
    let mut count = 0;
    // SAFETY: NULL arguments and an index past the end are refused.
    unsafe {
        assert_eq!(untangle_result_device_feature_count(std::ptr::null(), &mut count), INVALID);
        assert_eq!(untangle_result_device_feature_count(r.0, null_mut()), INVALID);
        assert_eq!(untangle_result_device_feature(r.0, 0, null_mut()), INVALID);
        let mut f = std::mem::MaybeUninit::<untangle_device_feature>::uninit();
        assert_eq!(untangle_result_device_feature(r.0, rows.len(), f.as_mut_ptr()), INVALID);
    }
}

#[test]
fn accessors_check_their_arguments() {
    let r = translate(&repo_file("corpus/cs_groupshared_reduce.ll"));
    let mut n = 0usize;
    let mut v = 0u32;
    let mut size = [0u32; 3];
    // SAFETY: NULL results and out-parameters are refused before any access.
    unsafe {
        assert_eq!(untangle_result_workgroup_size(std::ptr::null(), size.as_mut_ptr()), INVALID);
        assert_eq!(untangle_result_workgroup_size(r.0, null_mut()), INVALID);
        assert_eq!(untangle_result_wave_size(std::ptr::null(), &mut v, &mut v, &mut v), INVALID);
        // Optional out-parameters.
        assert_eq!(untangle_result_wave_size(r.0, null_mut(), null_mut(), null_mut()), OK);
        assert_eq!(untangle_result_control_points(r.0, null_mut(), null_mut()), OK);
        assert_eq!(untangle_result_control_points(std::ptr::null(), &mut v, &mut v), INVALID);
        assert_eq!(untangle_result_patch_constant_rows(r.0, null_mut()), INVALID);
        assert_eq!(untangle_result_capability_count(std::ptr::null(), &mut n), INVALID);
        assert_eq!(untangle_result_capability_count(r.0, null_mut()), INVALID);
        assert_eq!(untangle_result_capability(r.0, 0, null_mut()), INVALID);
        assert_eq!(untangle_result_extension_count(std::ptr::null(), &mut n), INVALID);
        assert_eq!(untangle_result_extension_count(r.0, &mut n), OK);
        let mut name = std::ptr::null();
        assert_eq!(untangle_result_extension(r.0, n, &mut name), INVALID);
        assert!(name.is_null());
    }
}

#[test]
fn library_entries_report_their_own_workgroup_size() {
    let Some(bytes) = shared("workgraph.two_level_broadcast_node_array.lib_6_8.dxil") else { return };
    let rust = untangle::Shader::parse(&bytes).unwrap();
    let mut shader = null_mut();
    // SAFETY: valid buffers, out-pointers and NUL-terminated names; freed once.
    unsafe {
        assert_eq!(untangle_shader_parse(bytes.as_ptr(), bytes.len(), &mut shader, null_mut()), OK);
        let mut entries = 0;
        for e in rust.entry_points().iter().filter(|e| e.function.is_some()) {
            entries += 1;
            let name = std::ffi::CString::new(e.name.as_str()).unwrap();
            let mut result = null_mut();
            assert_eq!(untangle_translate_entry(shader, std::ptr::null(), name.as_ptr(), &mut result, null_mut()), OK);
            let r = Translated(result);
            assert_eq!(r.workgroup_size(), e.properties.num_threads.unwrap(), "{}", e.name);
            assert_eq!(r.workgroup_size(), [8, 1, 1], "{}", e.name);
        }
        assert_eq!(entries, 3);
        untangle_shader_free(shader);
    }
}

/// The directory holding this build's `libuntangle_capi.so` (as tests/c_program.rs finds it).
fn library_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let found = [deps, deps.parent().unwrap()].into_iter().find(|d| d.join("libuntangle_capi.so").exists());
    found.map(Path::to_path_buf)
}

#[test]
fn shared_library_has_a_versioned_soname() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let lib = library_dir().expect("libuntangle_capi.so next to the test").join("libuntangle_capi.so");
    let output = match std::process::Command::new("readelf").arg("-d").arg(&lib).output() {
        Ok(o) => o,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("cannot run readelf: {e}: skipping");
            return;
        }
        Err(e) => panic!("cannot run readelf: {e}"),
    };
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let dynamic = String::from_utf8_lossy(&output.stdout);
    let soname = format!("Library soname: [libuntangle_capi.so.{UNTANGLE_ABI_VERSION}]");
    assert!(dynamic.contains(&soname), "no `{soname}` in readelf -d {}:\n{dynamic}", lib.display());
}
