//! dxil-spirv's C API (`include/dxil_spirv_c.h`, API 2.66.0) on top of untangle, so that
//! vkd3d-proton (which translates every shader through that API, `libs/vkd3d-shader/dxil.c`)
//! runs with untangle in place of dxil-spirv, unchanged. `meson/` is the replacement for
//! vkd3d-proton's `subprojects/dxil-spirv`; `tools/vkd3d-proton/build.sh untangle` builds
//! vkd3d-proton with it.
//!
//! # Routes
//! Each parsed blob takes one route, decided by `dxil_spv_parse_*` ([`blob::Route`]):
//! - **untangle**: DXIL. The blob is read by untangle (stage, entry points, RDAT subobjects
//!   answered from it); a converter keeps what it is told and [`untangle_path::run`]
//!   translates: resources placed by the layer from the remapper's answers, stage I/O from
//!   the location rule and the callbacks, the getters answered from the module. It refuses
//!   by design what untangle does not do the layer's way (work-graph nodes) and what it
//!   does not lower, each refusal logged and counted with its reason ([`summary`]; a
//!   missing device feature under the feature's name, as `DXIL_SPV_ERROR_UNSUPPORTED_FEATURE`).
//!
//! # AMD AGS and WMMA
//! dxil-spirv decodes AGS's magic UAV unasked, and so does this library: wave, lane,
//! atomic and float8-conversion intrinsics, and WMMA, always as `VK_KHR_cooperative_matrix`
//! (`untangle::VendorFeatures::cooperative_matrix` is always granted). vkd3d-proton learns
//! of it from the module: `CooperativeMatrixKHR` sets `USES_COOPERATIVE_MATRIX`,
//! `Float8CooperativeMatrixEXT` `USES_COOPERATIVE_MATRIX_FP8` (`vkd3d_shader_main.c`), and the
//! pipeline fails on a device without the feature. `DXIL_SPV_OPTION_FLOAT8_SUPPORT`
//! (vkd3d-proton adds it from `shaderFloat8CooperativeMatrix` and
//! `cooperativeMatrixConversions`) maps to `VendorFeatures::float8` (`wmma_fp8`: float8
//! matrices as `SPV_EXT_float8` types; scalar float8 conversions in one instruction) and
//! `VendorFeatures::cooperative_matrix2` (NV conversions: accumulator → A/B in one
//! `OpCooperativeMatrixConvertNV`; without them through groupshared memory, as dxil-spirv).
//! Float8 (FP8/BF8) matrices without `wmma_fp8` are refused naming `VK_EXT_shader_float8`:
//! dxil-spirv emulates them in f16 (bytes in memory), which vkd3d-proton exposes only in
//! builds with `VKD3D_ENABLE_EXTENDED_EMULATION` (`vkd3d_supports_minimum_coopmat_caps`:
//! official builds expose WMMA only with float8 cooperative matrices); untangle has no such
//! emulation. `DXIL_SPV_OPTION_PHYSICAL_STORAGE_BUFFER` (vkd3d-proton adds it when the
//! device has `bufferDeviceAddress`) maps to `VendorFeatures::buffer_device_address`: AGS's
//! loads from raw GPU addresses and WMMA global loads and stores (`PhysicalStorageBuffer`
//! pointers); without it they are refused naming `bufferDeviceAddress`.
//! - **delegate, DXBC**: a container with a `SHDR`/`SHEX` part (shader model 5 and older)
//!   goes to dxil-spirv itself (its DXBC front end, dxbc-spirv), loaded at run time
//!   ([`delegate`]): the blob and converter wrap the delegate's and forward every call.
//! - **delegate, DXIL** (reference mode, `UNTANGLE_DXIL_SPIRV_REFERENCE=1`): DXIL goes to the
//!   delegate too; the run is then stock dxil-spirv's behind this library's ABI layer, with
//!   its remapping callbacks interposed ([`remap`]) so they can be recorded.
//!
//! # Environment
//! [`config`] lists the switches: reference mode, record mode ([`record`]: a JSON file per
//! DXIL run with the decoded options, every callback query and answer, and the module's
//! hash), the exit summary ([`summary`]), the delegate's path, and the shadow mode
//! ([`shadow`]: every untangle-route DXIL run also run through the delegate, only to time
//! dxil-spirv against untangle in the same process; `tools/vkd3d-proton/times.py` adds up
//! the summaries of a suite run).
//!
//! Only this crate reads the environment; `untangle` itself is configured through its
//! `Options` alone.
//!
//! # Guarantees
//! No panic crosses the C boundary (every export runs under [`exports::guard`]); every
//! pointer argument is checked; a callback is asked each distinct question once per
//! converter ([`remap`]); the log callback is per thread, as dxil-spirv's is.

pub mod blob;
pub mod config;
pub mod converter;
pub mod delegate;
pub mod exports;
pub mod ffi;
pub mod log;
pub mod nodes;
pub mod options;
pub mod record;
pub mod remap;
pub mod sha256;
pub mod shadow;
pub mod summary;
pub mod untangle_path;
