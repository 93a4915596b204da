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

pub const DEVICE_CRASHES: &[DeviceCrash] = &[DeviceCrash {
    device: "llvmpipe",
    shader: "robustness.structured_buffer_address_wrapping",
    why: "lavapipe (Mesa 22.3) segfaults in the dispatch (structured indices near 2^32 / stride)",
}];

pub fn known_mismatch(name: &str) -> Option<&'static Known> {
    KNOWN_MISMATCHES.iter().find(|k| name.contains(k.shader))
}

pub fn device_crash(device: &str, name: &str) -> Option<&'static DeviceCrash> {
    DEVICE_CRASHES.iter().find(|k| device.contains(k.device) && name.contains(k.shader))
}
