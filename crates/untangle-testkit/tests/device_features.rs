//! The device features a module needs (`untangle::emit::features`, issue 33 item 4): every
//! capability and extension untangle emits over the shared vkd3d-proton corpus is in the
//! Vulkan registry's table (none unknown), and the answers for fp16, 64-bit atomics on
//! buffers, shared memory and images, and a storage image read without format are the
//! features the Vulkan specification names for them.

use std::path::Path;
use untangle::emit::features::{capability_enables, requirements, Enable, Requirement, SpirvItem};
use untangle::{Options, Shader, Translation};

fn corpus() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton")
}

/// Every translation of the shader at `path` (a library's entries each), or none when it is
/// refused.
fn translations(path: &Path) -> Vec<Translation> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let Ok(shader) = Shader::parse_for_translation(bytes, "corpus") else { return Vec::new() };
    shader.translate_library(&Options::default()).unwrap_or_default()
}

fn features_of(file: &str) -> Vec<Requirement> {
    let t = translations(&corpus().join(file));
    assert_eq!(t.len(), 1, "{file} translates to one module");
    t[0].device_features()
}

/// The feature members of the requirements from capability `cap` (each requirement's
/// alternatives, in order).
fn members(reqs: &[Requirement], cap: &str) -> Vec<Vec<&'static str>> {
    reqs.iter()
        .filter(|r| r.item == SpirvItem::Capability && r.spirv == cap)
        .map(|r| {
            r.any_of
                .iter()
                .filter_map(|e| match e {
                    Enable::Feature { member, .. } => Some(*member),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

#[test]
fn every_capability_and_extension_over_the_corpus_is_in_the_table() {
    let mut files: Vec<_> =
        std::fs::read_dir(corpus()).expect("the shared corpus").flatten().map(|e| e.path()).collect();
    files.sort();
    let (mut modules, mut seen) = (0, std::collections::BTreeSet::new());
    for path in &files {
        for t in translations(path) {
            modules += 1;
            for r in t.device_features() {
                assert!(
                    r.is_known(),
                    "{}: {:?} {} is not in the Vulkan registry's table",
                    path.display(),
                    r.item,
                    r.spirv
                );
                seen.insert(r.spirv);
            }
        }
    }
    assert!(modules > 200, "only {modules} modules translated");
    for expected in
        ["Shader", "Float16", "Int64", "Int64Atomics", "StorageImageReadWithoutFormat", "RuntimeDescriptorArray"]
    {
        assert!(seen.contains(expected), "no module over the corpus declares {expected} (seen: {seen:?})");
    }
}

#[test]
fn fp16_needs_shader_float16() {
    let reqs = features_of("sm_advanced.ps_fp16_native.ps_6_2.dxil");
    let float16 = members(&reqs, "Float16");
    assert_eq!(float16.len(), 1, "{reqs:?}");
    let f = reqs.iter().find(|r| r.spirv == "Float16").unwrap();
    assert!(f.any_of.contains(&Enable::Feature {
        structure: "VkPhysicalDeviceVulkan12Features",
        member: "shaderFloat16",
        requires: "VK_VERSION_1_2,VK_KHR_shader_float16_int8",
    }));
}

#[test]
fn int64_atomics_need_the_feature_of_the_memory_they_touch() {
    let buffer = features_of("sm_advanced.cs_64bit_atomics.cs_6_6.dxil");
    assert_eq!(members(&buffer, "Int64Atomics"), [["shaderBufferInt64Atomics"]], "{buffer:?}");
    let shared = features_of("sm_advanced.cs_64bit_atomics_shared.cs_6_6.dxil");
    assert_eq!(members(&shared, "Int64Atomics"), [["shaderSharedInt64Atomics"]], "{shared:?}");
    let typed = features_of("sm_advanced.cs_64bit_atomics_typed.cs_6_6.dxil");
    assert!(members(&typed, "Int64Atomics").contains(&vec!["shaderImageInt64Atomics"]), "{typed:?}");
    assert_eq!(members(&typed, "Int64ImageEXT"), [["shaderImageInt64Atomics"]], "{typed:?}");
}

#[test]
fn alternatives_are_listed_in_full() {
    // Vulkan 1.3 or VK_KHR_format_feature_flags2 allow the capability without the feature.
    let enables = capability_enables("StorageImageReadWithoutFormat").unwrap();
    assert_eq!(
        enables,
        [
            Enable::Feature {
                structure: "VkPhysicalDeviceFeatures",
                member: "shaderStorageImageReadWithoutFormat",
                requires: "VK_VERSION_1_0"
            },
            Enable::Version { version: "VK_VERSION_1_3" },
            Enable::Extension { extension: "VK_KHR_format_feature_flags2" },
        ]
    );
    // A capability Vulkan does not allow is unknown, and so is a module's use of it.
    assert!(capability_enables("Kernel").is_none());
    let kernel = [0x0723_0203, 0x0001_0600, 0, 1, 0, (2 << 16) | 17, 6];
    let reqs = requirements(&kernel);
    assert_eq!(reqs.len(), 1);
    assert!(!reqs[0].is_known());
    // Without 64-bit atomics the capability keeps the table's three alternatives.
    let declared = [0x0723_0203, 0x0001_0600, 0, 1, 0, (2 << 16) | 17, 12];
    assert_eq!(
        members(&requirements(&declared), "Int64Atomics"),
        [["shaderBufferInt64Atomics", "shaderSharedInt64Atomics", "shaderImageInt64Atomics"]]
    );
}
