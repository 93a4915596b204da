//! The shadow run (`UNTANGLE_DXIL_SPIRV_SHADOW=1`): dxil-spirv timed on the same work as
//! untangle, in the same process, so that one run of an application (vkd3d-proton's test
//! suite) yields both translators' times from this library's own counters ([`crate::summary`])
//! and the suite need not run twice.
//!
//! After each `dxil_spv_converter_run` on the untangle route, whatever its result, the same
//! input goes through the delegate (dxil-spirv) with the same configuration:
//! - the blob's input bytes (which the native blob keeps) are parsed by the delegate once,
//!   on the first shadow run of that blob, and the handle lives as long as the blob
//!   ([`ShadowBlob`]);
//! - a delegate converter is created per run and told the whole [`ConverterSetup`]
//!   ([`Delegate::apply_setup`]); its callbacks are trampolines over the converter's own
//!   [`Remapper`], sealed for the run: a query untangle already made gets the recorded
//!   answer, and so does one about the same resource or semantic asked differently; one
//!   about something untangle never asked gets dxil-spirv's default answer. The application
//!   is never called from a shadow run: dxil-spirv asks queries untangle does not (a CBV
//!   with an unbounded range, `SV_Position` as a hull shader output, ...), and
//!   vkd3d-proton's stage-output callback is a capture that the next pipeline stage reads,
//!   so an extra call would change what the application does;
//! - only the delegate's `dxil_spv_converter_run` is timed; its module is dropped with the
//!   converter, and its log is silenced ([`Delegate::enter_quiet`]).
//!
//! Nothing the application sees changes: the module, result code and getters are untangle's.
//! A shadow run that fails in any way (no delegate, a parse or converter the delegate
//! refuses, its run's error, a panic here) is only counted (`shadow_failed`, by reason);
//! without a delegate one warning says why. Without the switch nothing here runs: the
//! converter checks [`enabled`] (a field of the configuration read once) and stops there.

use crate::blob::{NativeBlob, ParseKind};
use crate::delegate::{self, Delegate};
use crate::ffi::*;
use crate::options::ConverterSetup;
use crate::remap::Remapper;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Once, OnceLock};
use std::time::{Duration, Instant};

/// Why a shadow run did not reach the delegate's `dxil_spv_converter_run`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShadowError {
    /// The delegate cannot be loaded (the warning says why).
    Unavailable,
    /// The delegate could not parse the blob's input (its result code).
    Parse(dxil_spv_result),
    /// The delegate could not create a converter (its result code).
    Create(dxil_spv_result),
    /// This module panicked (a bug; the application still gets untangle's result).
    Panic,
}

impl ShadowError {
    /// A short, shader-independent key for the summary's `shadow_failures`.
    pub fn reason(&self) -> String {
        match self {
            ShadowError::Unavailable => "dxil-spirv unavailable".into(),
            ShadowError::Parse(r) => format!("parse: error {r}"),
            ShadowError::Create(r) => format!("create converter: error {r}"),
            ShadowError::Panic => "internal error".into(),
        }
    }
}

impl std::fmt::Display for ShadowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShadowError::Unavailable => write!(f, "dxil-spirv is unavailable"),
            ShadowError::Parse(r) => write!(f, "dxil-spirv cannot parse the shader ({r})"),
            ShadowError::Create(r) => write!(f, "dxil-spirv cannot create a converter ({r})"),
            ShadowError::Panic => write!(f, "internal error in the shadow run"),
        }
    }
}

/// A shadow run that reached the delegate's run: its result and how long the run took.
#[derive(Clone, Copy, Debug)]
pub struct ShadowRun {
    pub result: dxil_spv_result,
    pub elapsed: Duration,
}

/// The delegate's parse of a native blob's input, made on the blob's first shadow run.
#[derive(Default)]
pub struct ShadowBlob {
    parsed: OnceLock<Result<DelegateBlob, dxil_spv_result>>,
}

/// A delegate blob handle (used by one thread at a time, as the C API's objects are).
struct DelegateBlob(*mut c_void);

// SAFETY: the handle is only an address here; the delegate is called on it by whichever
// thread holds the blob, as the application's use of the C API allows.
unsafe impl Send for DelegateBlob {}
unsafe impl Sync for DelegateBlob {}

impl ShadowBlob {
    /// The delegate's handle for `native` (parsed now if this is the first time).
    fn handle(&self, d: &Delegate, native: &NativeBlob, kind: ParseKind) -> Result<*mut c_void, ShadowError> {
        let parsed = self.parsed.get_or_init(|| parse(d, native.input(), kind).map(DelegateBlob));
        parsed.as_ref().map(|b| b.0).map_err(|r| ShadowError::Parse(*r))
    }
}

impl Drop for ShadowBlob {
    fn drop(&mut self) {
        let (Some(Ok(blob)), Some(d)) = (self.parsed.get(), delegate::loaded()) else { return };
        d.enter_quiet();
        // SAFETY: the delegate's handle, freed once, with the blob that owns it.
        unsafe { (d.f.dxil_spv_parsed_blob_free)(blob.0) };
    }
}

fn parse(d: &Delegate, bytes: &[u8], kind: ParseKind) -> Result<*mut c_void, dxil_spv_result> {
    let f = match kind {
        ParseKind::Bitcode => d.f.dxil_spv_parse_dxil,
        ParseKind::Container | ParseKind::Reflection => d.f.dxil_spv_parse_dxil_blob,
    };
    let mut h = std::ptr::null_mut();
    d.enter_quiet();
    // SAFETY: the bytes and the out pointer are live for the call.
    let r = unsafe { f(bytes.as_ptr() as *const c_void, bytes.len(), &mut h) };
    if r == DXIL_SPV_SUCCESS && !h.is_null() {
        Ok(h)
    } else {
        Err(if r == DXIL_SPV_SUCCESS { DXIL_SPV_ERROR_GENERIC } else { r })
    }
}

/// A delegate converter, freed when dropped.
struct DelegateConverter<'d> {
    d: &'d Delegate,
    h: *mut c_void,
}

impl<'d> DelegateConverter<'d> {
    fn create(d: &'d Delegate, blob: *mut c_void) -> Result<DelegateConverter<'d>, ShadowError> {
        let mut h = std::ptr::null_mut();
        // SAFETY: a live blob of the delegate.
        let r = unsafe { (d.f.dxil_spv_create_converter)(blob, &mut h) };
        if r != DXIL_SPV_SUCCESS || h.is_null() {
            return Err(ShadowError::Create(if r == DXIL_SPV_SUCCESS { DXIL_SPV_ERROR_GENERIC } else { r }));
        }
        Ok(DelegateConverter { d, h })
    }
}

impl Drop for DelegateConverter<'_> {
    fn drop(&mut self) {
        // SAFETY: the converter this owns, freed once.
        unsafe { (self.d.f.dxil_spv_converter_free)(self.h) };
    }
}

/// Whether shadow runs are asked for (`UNTANGLE_DXIL_SPIRV_SHADOW`).
pub fn enabled() -> bool {
    crate::config::get().shadow
}

/// The delegate, loading it now if needed; a failure is reported once (and every shadow
/// run then counts as failed).
fn delegate() -> Result<&'static Delegate, ShadowError> {
    delegate::get().map_err(|why| {
        static WARNED: Once = Once::new();
        WARNED.call_once(|| {
            crate::log::warn(&format!(
                "{}: no shadow runs, dxil-spirv is unavailable: {why}",
                crate::config::ENV_SHADOW
            ))
        });
        ShadowError::Unavailable
    })
}

/// What one shadow run needs: the untangle converter's blob, parse kind, setup and remapper.
pub struct ShadowInput<'a> {
    pub blob: &'a ShadowBlob,
    pub native: &'a NativeBlob,
    pub kind: ParseKind,
    pub setup: &'a ConverterSetup,
    pub remap: &'a mut Remapper,
}

/// Runs `input` through the delegate; only the delegate's run is timed. Never panics: a
/// panic here is caught and reported as [`ShadowError::Panic`], and the remapper is
/// unsealed whatever happens (a sealed one would keep later runs of the converter from the
/// application's callbacks).
pub fn run(input: ShadowInput<'_>) -> Result<ShadowRun, ShadowError> {
    let ShadowInput { blob, native, kind, setup, remap } = input;
    let mut seal = Seal::new(remap);
    catch_unwind(AssertUnwindSafe(|| -> Result<ShadowRun, ShadowError> {
        let d = delegate()?;
        let handle = blob.handle(d, native, kind)?;
        d.enter_quiet();
        let conv = DelegateConverter::create(d, handle)?;
        let remap_ptr: *mut Remapper = seal.remapper();
        // SAFETY: `conv.h` is live; the setup's debug-info data is the application's until
        // this run ends (the header's promise for `dxil_spv_converter_run`); the remapper
        // outlives `conv`, and is reached only through `remap_ptr` until `conv` is freed.
        let _applied = unsafe { d.apply_setup(conv.h, setup) };
        unsafe { d.set_trampolines(conv.h, remap_ptr) };
        let start = Instant::now();
        // SAFETY: a live converter, fully set up.
        let result = unsafe { (d.f.dxil_spv_converter_run)(conv.h) };
        let elapsed = start.elapsed();
        // The delegate's module goes with its converter, before the remapper is unsealed.
        drop(conv);
        Ok(ShadowRun { result, elapsed })
    }))
    .unwrap_or(Err(ShadowError::Panic))
}

/// A remapper sealed for a shadow run, unsealed when dropped (also on a panic).
struct Seal<'a>(&'a mut Remapper);

impl<'a> Seal<'a> {
    fn new(remap: &'a mut Remapper) -> Seal<'a> {
        remap.set_sealed(true);
        Seal(remap)
    }

    fn remapper(&mut self) -> *mut Remapper {
        &mut *self.0
    }
}

impl Drop for Seal<'_> {
    fn drop(&mut self) {
        self.0.set_sealed(false);
    }
}
