//! Findings the differential runs explain, so that a run fails only on new ones.
//!
//! Each entry names the shader, what differs, and which side is wrong (translator,
//! interpreter, driver). The closing note of issue 20 and `docs/dxil-semantics.md` list
//! the same findings.

/// A mismatch understood and attributed; the shader still runs, its result is reported as
/// "known" instead of failing.
pub struct Known {
    /// A substring of the shader's file name.
    pub shader: &'static str,
    /// `translator`, `interpreter` or `driver`.
    pub side: &'static str,
    pub why: &'static str,
}

/// None at present: the one listed before (`descriptors.root_descriptor_offset_sign`, a
/// structured `index × stride` wrapping in 32 bits) was a translator bug, now fixed.
/// `docs/dxil-semantics.md` ("Findings") lists every mismatch found and its resolution.
pub const KNOWN_MISMATCHES: &[Known] = &[];

/// Shaders a device cannot run at all (it crashes or hangs): not run there.
pub struct DeviceCrash {
    /// A substring of the device name (`llvmpipe`).
    pub device: &'static str,
    pub shader: &'static str,
    pub why: &'static str,
}

pub const DEVICE_CRASHES: &[DeviceCrash] = &[
    DeviceCrash {
        device: "llvmpipe",
        shader: "robustness.structured_buffer_address_wrapping",
        why: "lavapipe (Mesa 22.3) segfaults in the dispatch (structured indices near 2^32 / stride)",
    },
    // A typed SRV buffer load whose status is read is `OpImageSparseFetch` of a uniform
    // texel buffer (dxil-spirv's SPIR-V too); the storage texel buffer's `OpImageSparseRead`
    // runs.
    DeviceCrash {
        device: "llvmpipe",
        shader: "sparse.buffer_feedback_ld_typed.cs",
        why: "lavapipe segfaults on OpImageSparseFetch of a uniform texel buffer (seen on Mesa 25.0)",
    },
    DeviceCrash {
        device: "llvmpipe",
        shader: "sparse.buffer_feedback_ld_typed_uav.cs",
        why: "lavapipe (Mesa 22.3) segfaults on OpImageSparseRead of a storage texel buffer ('Unsupported intrinsic: image_sparse_load', image_dim=Buf)",
    },
    DeviceCrash {
        device: "llvmpipe",
        shader: "sparse.sparse_query.cs",
        why: "lavapipe segfaults on OpImageSparseFetch of a uniform texel buffer (seen on Mesa 25.0)",
    },
];

pub fn known_mismatch(name: &str) -> Option<&'static Known> {
    KNOWN_MISMATCHES.iter().find(|k| name.contains(k.shader))
}

pub fn device_crash(device: &str, name: &str) -> Option<&'static DeviceCrash> {
    DEVICE_CRASHES.iter().find(|k| device.contains(k.device) && name.contains(k.shader))
}

/// Corpus shaders that use AMD's AGS extension (WMMA, float8 conversions) through the magic
/// UAV `u0, space 0x7FFF0ADE`: their meaning is AMD's, not D3D's. While the translator
/// lowers those accesses as plain UAV accesses they run (both sides read them as plain
/// D3D); once it rejects them with a typed error they are left out with it.
pub fn uses_ags(name: &str) -> bool {
    name.contains(".cs_wmma_") || name.contains(".cs_ags_")
}

/// The corpus shaders lavapipe (Mesa 22.3, llvmpipe) compares nothing of, AGS shaders
/// aside, and why (a substring of the reason the run gives): left out, or every seed
/// indeterminate. `tests/gpu_differential.rs` asserts exactly this list there;
/// `docs/dxil-semantics.md` ("Coverage") explains each.
pub const LAVAPIPE_NOT_COMPARED: &[(&str, &str)] = &[
    // Device limits: more descriptors of a kind than lavapipe binds (32 storage buffers,
    // 15 uniform buffers, 32 samplers), so some thread always reads an unbound one.
    ("bindless.bindless_cbv.", "outside its range"),
    ("bindless.bindless_heap_sm66.", "unbound resource"),
    ("bindless.bindless_samplers.", "outside its range"),
    ("bindless.bindless_uav.", "outside its range"),
    ("bindless.bindless_uav_counter.", "outside its range"),
    ("robustness.undefined_read_typed_buffer_as_untyped.", "unbound resource"),
    ("robustness.byte_address_wrapping.", "register 32 is outside"),
    ("robustness.structured_buffer_address_wrapping.", "device crash"),
    ("sparse.buffer_feedback_ld_typed.cs", "device crash"),
    ("sparse.sparse_query.cs", "device crash"),
    ("sparse.buffer_feedback_ld_typed_uav.cs", "device crash"),
    // Subgroups of 8 only.
    ("sm_advanced.cs_wave_size_range_16_32.", "wave size"),
    ("sm_advanced.cs_wave_size_range_64_128.", "wave size"),
    ("sm_advanced.cs_wave_size_wave16.", "wave size"),
    ("sm_advanced.cs_wave_size_wave32.", "wave size"),
    ("sm_advanced.cs_wave_size_wave64.", "wave size"),
    // No compute-shader derivatives in lavapipe (the interpreter has them).
    ("sm_advanced.cs_derivative_1d.", "VK_KHR_compute_shader_derivatives"),
    ("sm_advanced.cs_derivative_2d_aligned.", "VK_KHR_compute_shader_derivatives"),
    ("sm_advanced.cs_derivative_2d_unaligned.", "VK_KHR_compute_shader_derivatives"),
    // What the interpreter or the harness does not model.
    ("sm_advanced.cs_64bit_atomics_typed.", "64-bit typed resource"),
    ("sm_advanced.cs_raw_gather_64.", "64-bit typed resource"),
    ("sm_advanced.cs_multisample_uav.", "TextureStoreSample"),
    // Branches on the residency status of out-of-bounds accesses, which D3D leaves open.
    ("sparse.sparse_init_access.", "branch condition"),
];
