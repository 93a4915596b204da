//! The untangle path: a DXIL converter run done by untangle instead of dxil-spirv.
//!
//! [`run`] gets everything the application told the converter ([`ConverterSetup`]: entry
//! point, decoded options, root constant and descriptor counts, local root parameters, root
//! parameter mappings, meta descriptors, patch location offset) and the converter's
//! [`Remapper`], through which it asks the application's callbacks where resources and
//! stage I/O go (each question reaches the application at most once; see `remap`). It
//! answers with the module and the facts the converter's getters report ([`RunOutput`]), or
//! a [`Refusal`]: the status `dxil_spv_converter_run` returns, a short reason (the exit
//! summary counts refusals by it) and a message for the log.
//!
//! Not implemented yet: every run is refused with `DXIL_SPV_ERROR_UNSUPPORTED_FEATURE`. The
//! reference mode (`UNTANGLE_DXIL_SPIRV_REFERENCE=1`) sends DXIL to dxil-spirv instead.

use crate::blob::NativeBlob;
use crate::ffi::*;
use crate::options::ConverterSetup;
use crate::remap::Remapper;

/// What a run has to work with.
pub struct RunInput<'a> {
    pub blob: &'a NativeBlob,
    pub setup: &'a ConverterSetup,
    pub remap: &'a mut Remapper,
}

/// A successful run: the module and what the converter's getters report after it (the
/// meaning of each is dxil-spirv's; see the header's comments).
#[derive(Clone, Debug, Default)]
pub struct RunOutput {
    pub spirv: Vec<u32>,
    /// `dxil_spv_converter_get_compiled_entry_point`: the SPIR-V entry point's name.
    pub compiled_entry_point: String,
    pub uses_subgroup_size: bool,
    pub workgroup_size: [u32; 3],
    pub wave_size_min: u32,
    pub wave_size_max: u32,
    pub wave_size_preferred: u32,
    pub heuristic_min_wave_size: u32,
    pub heuristic_max_wave_size: u32,
    pub patch_vertex_count: u32,
    /// `dxil_spv_converter_get_patch_location_offset` after the run.
    pub patch_location_offset: u32,
    pub multiview_compatible: bool,
    pub analysis_warnings: Option<String>,
    /// `dxil_spv_converter_uses_shader_feature(NATIVE_16BIT_OPERATIONS)`.
    pub native_16bit_operations: bool,
}

/// A run untangle declines.
#[derive(Clone, Debug)]
pub struct Refusal {
    /// What `dxil_spv_converter_run` returns.
    pub result: dxil_spv_result,
    /// A short, shader-independent reason (the summary's key).
    pub reason: String,
    /// The log message.
    pub message: String,
}

/// Translates the blob's entry point (or the one `setup.entry_point` names).
pub fn run(input: RunInput<'_>) -> Result<RunOutput, Refusal> {
    let _ = (input.blob, input.setup, &input.remap);
    Err(Refusal {
        result: DXIL_SPV_ERROR_UNSUPPORTED_FEATURE,
        reason: "not implemented".into(),
        message: "DXIL through untangle is not implemented yet (set UNTANGLE_DXIL_SPIRV_REFERENCE=1 to translate \
                  DXIL with dxil-spirv)"
            .into(),
    })
}
