//! `dxil_spv_converter`: a translation's configuration, the run, and its results.
//!
//! A converter takes its blob's route. On the untangle route it keeps what it is told
//! ([`ConverterSetup`]) and hands it to [`crate::untangle_path`] at run time. On a delegate
//! route it wraps the delegate's converter and forwards every call as it comes (return
//! values included), keeping a decoded copy for the record; for DXIL (reference mode) the
//! remapping callbacks are interposed ([`crate::remap`]) so that each query is recorded and
//! reaches the application once; for DXBC they are handed to the delegate as they are.
//! In the shadow mode an untangle-route run is followed by the same run through the
//! delegate, only timed ([`crate::shadow`]).

use crate::blob::{ParsedBlob, Route};
use crate::delegate::{self, Delegate};
use crate::ffi::*;
use crate::options::{
    self, ConverterSetup, LocalRootParameter, MetaDescriptor, NonSemanticDebugInfo, RootParameterMapping, TableEntry,
};
use crate::remap::{Callback, Kind, Remapper};
use crate::shadow::{self, ShadowInput};
use crate::untangle_path::{self, Refusal, RunOutput};
use std::ffi::{c_char, c_void, CStr, CString};
use std::time::Instant;

/// A remapping callback of any kind, as a `dxil_spv_converter_set_*_remapper` passes it.
#[derive(Clone, Copy)]
pub enum AnyCallback {
    Srv(dxil_spv_srv_remapper_cb),
    Sampler(dxil_spv_sampler_remapper_cb),
    Uav(dxil_spv_uav_remapper_cb),
    Cbv(dxil_spv_cbv_remapper_cb),
    VertexInput(dxil_spv_vertex_input_remapper_cb),
    StreamOutput(dxil_spv_stream_output_remapper_cb),
    StageInput(dxil_spv_shader_stage_io_remapper_cb),
    StageOutput(dxil_spv_shader_stage_io_remapper_cb),
}

impl AnyCallback {
    pub fn kind(self) -> Kind {
        match self {
            AnyCallback::Srv(_) => Kind::Srv,
            AnyCallback::Sampler(_) => Kind::Sampler,
            AnyCallback::Uav(_) => Kind::Uav,
            AnyCallback::Cbv(_) => Kind::Cbv,
            AnyCallback::VertexInput(_) => Kind::VertexInput,
            AnyCallback::StreamOutput(_) => Kind::StreamOutput,
            AnyCallback::StageInput(_) => Kind::StageInput,
            AnyCallback::StageOutput(_) => Kind::StageOutput,
        }
    }
}

pub struct Converter {
    pub route: Route,
    /// The blob (the application keeps it alive while the converter lives).
    pub blob: *const ParsedBlob,
    /// The delegate's converter on a delegate route.
    pub delegate: Option<*mut c_void>,
    pub setup: ConverterSetup,
    /// Boxed: the delegate holds its address as the trampolines' user data.
    pub remap: Box<Remapper>,
    /// The untangle path's last successful run.
    pub output: Option<RunOutput>,
    compiled_entry_point: Option<CString>,
    warnings: Option<CString>,
}

fn delegate_of(route: Route) -> Option<&'static Delegate> {
    if route == Route::Untangle {
        None
    } else {
        delegate::loaded()
    }
}

impl Converter {
    /// # Safety
    /// `blob` (and `reflection`) are live blobs of this library.
    pub unsafe fn new(
        blob: *const ParsedBlob,
        reflection: Option<*const ParsedBlob>,
    ) -> Result<Converter, dxil_spv_result> {
        let b = &*blob;
        let mut delegate_conv = None;
        if b.route != Route::Untangle {
            let d = delegate::loaded().ok_or(DXIL_SPV_ERROR_GENERIC)?;
            let handle = b.delegate_handle().ok_or(DXIL_SPV_ERROR_GENERIC)?;
            let refl = match reflection {
                Some(r) => Some((*r).delegate_handle().ok_or_else(|| {
                    crate::log::error("the reflection blob was parsed by untangle, the blob by dxil-spirv");
                    DXIL_SPV_ERROR_INVALID_ARGUMENT
                })?),
                None => None,
            };
            d.enter();
            let mut conv = std::ptr::null_mut();
            let r = match refl {
                Some(rh) => (d.f.dxil_spv_create_converter_with_reflection)(handle, rh, &mut conv),
                None => (d.f.dxil_spv_create_converter)(handle, &mut conv),
            };
            if r != DXIL_SPV_SUCCESS {
                return Err(r);
            }
            delegate_conv = Some(conv);
        } else if reflection.is_some_and(|r| (*r).route != Route::Untangle) {
            crate::log::error("the reflection blob was parsed by dxil-spirv, the blob by untangle");
            return Err(DXIL_SPV_ERROR_INVALID_ARGUMENT);
        }
        Ok(Converter {
            route: b.route,
            blob,
            delegate: delegate_conv,
            setup: ConverterSetup::default(),
            remap: Box::default(),
            output: None,
            compiled_entry_point: None,
            warnings: None,
        })
    }

    /// The delegate and its converter, on a delegate route.
    pub fn forward(&self) -> Option<(&'static Delegate, *mut c_void)> {
        let d = delegate_of(self.route)?;
        let h = self.delegate?;
        d.enter();
        Some((d, h))
    }

    /// # Safety
    /// `entry` is NULL or a NUL-terminated string.
    pub unsafe fn set_entry_point(&mut self, entry: *const c_char) {
        self.setup.entry_point = (!entry.is_null()).then(|| CStr::from_ptr(entry).to_string_lossy().into_owned());
        if let Some((d, h)) = self.forward() {
            (d.f.dxil_spv_converter_set_entry_point)(h, entry);
        }
    }

    /// Sets a remapping callback: kept in the remapper; on a delegate route handed on (DXIL:
    /// the trampoline over the remapper; DXBC: the application's own).
    ///
    /// # Safety
    /// The callback may be called with `userdata` until the converter is freed or the
    /// callback replaced (the application's contract).
    pub unsafe fn set_callback(&mut self, callback: AnyCallback, userdata: *mut c_void) {
        let kind = callback.kind();
        self.remap.forget(kind);
        self.store_callback(callback, userdata);
        let Some((d, h)) = self.forward() else { return };
        // The delegate's converter; the remapper's box lives as long as `h`.
        if self.route == Route::DelegateDxil {
            let remap: *mut Remapper = &mut *self.remap;
            d.set_trampoline(h, kind, self.remap.has_callback(kind).then_some(remap));
        } else {
            d.set_callback(h, callback, userdata);
        }
    }

    fn store_callback(&mut self, callback: AnyCallback, userdata: *mut c_void) {
        let r = &mut self.remap;
        match callback {
            AnyCallback::Srv(f) => r.srv = f.map(|f| Callback { f, userdata }),
            AnyCallback::Sampler(f) => r.sampler = f.map(|f| Callback { f, userdata }),
            AnyCallback::Uav(f) => r.uav = f.map(|f| Callback { f, userdata }),
            AnyCallback::Cbv(f) => r.cbv = f.map(|f| Callback { f, userdata }),
            AnyCallback::VertexInput(f) => r.vertex_input = f.map(|f| Callback { f, userdata }),
            AnyCallback::StreamOutput(f) => r.stream_output = f.map(|f| Callback { f, userdata }),
            AnyCallback::StageInput(f) => r.stage_input = f.map(|f| Callback { f, userdata }),
            AnyCallback::StageOutput(f) => r.stage_output = f.map(|f| Callback { f, userdata }),
        }
    }

    pub fn set_root_constant_word_count(&mut self, n: u32) {
        self.setup.root_constant_word_count = n;
        if let Some((d, h)) = self.forward() {
            unsafe { (d.f.dxil_spv_converter_set_root_constant_word_count)(h, n) };
        }
    }

    pub fn set_root_descriptor_count(&mut self, n: u32) {
        self.setup.root_descriptor_count = n;
        if let Some((d, h)) = self.forward() {
            unsafe { (d.f.dxil_spv_converter_set_root_descriptor_count)(h, n) };
        }
    }

    pub fn add_local_root_constants(&mut self, register_space: u32, register_index: u32, num_words: u32) {
        self.add_local_root_parameter(LocalRootParameter::Constants { register_space, register_index, num_words });
    }

    pub fn add_local_root_descriptor(&mut self, resource_class: u32, register_space: u32, register_index: u32) {
        self.add_local_root_parameter(LocalRootParameter::Descriptor {
            resource_class,
            register_space,
            register_index,
        });
    }

    /// A local root constant or descriptor (tables are built call by call, below).
    fn add_local_root_parameter(&mut self, p: LocalRootParameter) {
        if let Some((d, h)) = self.forward() {
            unsafe { d.add_local_root_parameter(h, &p) };
        }
        self.setup.local_root_parameters.push(p);
    }

    pub fn add_local_root_descriptor_table(&mut self, entry: TableEntry) {
        match &mut self.setup.open_table {
            Some(entries) => entries.push(entry),
            None => self.setup.local_root_parameters.push(LocalRootParameter::Table { entries: vec![entry] }),
        }
        if let Some((d, h)) = self.forward() {
            unsafe {
                (d.f.dxil_spv_converter_add_local_root_descriptor_table)(
                    h,
                    entry.resource_class,
                    entry.register_space,
                    entry.register_index,
                    entry.num_descriptors_in_range,
                    entry.offset_in_heap,
                )
            };
        }
    }

    pub fn begin_local_root_descriptor_table(&mut self) -> dxil_spv_result {
        let ours = if self.setup.open_table.is_some() {
            DXIL_SPV_ERROR_INVALID_ARGUMENT
        } else {
            self.setup.open_table = Some(Vec::new());
            DXIL_SPV_SUCCESS
        };
        match self.forward() {
            Some((d, h)) => unsafe { (d.f.dxil_spv_converter_begin_local_root_descriptor_table)(h) },
            None => ours,
        }
    }

    pub fn end_local_root_descriptor_table(&mut self) -> dxil_spv_result {
        let ours = match self.setup.open_table.take() {
            Some(entries) if !entries.is_empty() => {
                self.setup.local_root_parameters.push(LocalRootParameter::Table { entries });
                DXIL_SPV_SUCCESS
            }
            other => {
                self.setup.open_table = other;
                DXIL_SPV_ERROR_INVALID_ARGUMENT
            }
        };
        match self.forward() {
            Some((d, h)) => unsafe { (d.f.dxil_spv_converter_end_local_root_descriptor_table)(h) },
            None => ours,
        }
    }

    pub fn add_root_parameter_mapping(&mut self, m: RootParameterMapping) {
        self.setup.root_parameter_mappings.push(m);
        if let Some((d, h)) = self.forward() {
            unsafe { d.add_root_parameter_mapping(h, m) };
        }
    }

    /// # Safety
    /// `tag` is NULL or a NUL-terminated string; `data` holds `size` bytes until the run.
    pub unsafe fn add_non_semantic_debug_info(&mut self, tag: *const c_char, data: *const c_void, size: usize) {
        let tag_s = (!tag.is_null()).then(|| CStr::from_ptr(tag).to_string_lossy().into_owned());
        self.setup.non_semantic_debug_info.push(NonSemanticDebugInfo { tag: tag_s, data: data as *const u8, size });
        if let Some((d, h)) = self.forward() {
            (d.f.dxil_spv_converter_add_non_semantic_debug_info)(h, tag, data, size);
        }
    }

    pub fn set_patch_location_offset(&mut self, offset: u32) {
        self.setup.patch_location_offset = Some(offset);
        if let Some((d, h)) = self.forward() {
            unsafe { (d.f.dxil_spv_converter_set_patch_location_offset)(h, offset) };
        }
    }

    pub fn set_meta_descriptor(&mut self, m: MetaDescriptor) -> dxil_spv_result {
        self.setup.meta_descriptors.push(m);
        match self.forward() {
            Some((d, h)) => unsafe { d.set_meta_descriptor(h, m) },
            None => DXIL_SPV_SUCCESS,
        }
    }

    /// # Safety
    /// `option` points to the option structure its type names.
    pub unsafe fn add_option(&mut self, option: *const dxil_spv_option_base) -> dxil_spv_result {
        let decoded = options::decode(option);
        let result = match self.forward() {
            Some((d, h)) => (d.f.dxil_spv_converter_add_option)(h, option),
            None if decoded.is_ok() => DXIL_SPV_SUCCESS,
            None => DXIL_SPV_ERROR_UNSUPPORTED_FEATURE,
        };
        if let (DXIL_SPV_SUCCESS, Ok(opt)) = (result, decoded) {
            self.setup.options.push(opt);
        }
        result
    }

    /// `dxil_spv_converter_run`: the route's translation, timed, counted for the summary and
    /// (DXIL) recorded.
    pub fn run(&mut self) -> dxil_spv_result {
        let app_time_before = self.remap.app_time;
        let start = Instant::now();
        let mut refusal: Option<Refusal> = None;
        let result = match self.forward() {
            Some((d, h)) => unsafe { (d.f.dxil_spv_converter_run)(h) },
            None if self.route == Route::Untangle => {
                // SAFETY: the application keeps the blob alive while the converter lives.
                let blob = unsafe { &*self.blob };
                let Some(native) = blob.native() else { return DXIL_SPV_ERROR_GENERIC };
                self.output = None;
                let input = untangle_path::RunInput { blob: native, setup: &self.setup, remap: &mut self.remap };
                match untangle_path::run(input) {
                    Ok(out) => {
                        self.compiled_entry_point =
                            Some(CString::new(out.compiled_entry_point.replace('\0', "")).unwrap_or_default());
                        self.warnings = out
                            .analysis_warnings
                            .as_deref()
                            .map(|w| CString::new(w.replace('\0', "")).unwrap_or_default());
                        self.output = Some(out);
                        DXIL_SPV_SUCCESS
                    }
                    Err(r) => {
                        crate::log::error(&r.message);
                        let code = r.result;
                        refusal = Some(r);
                        code
                    }
                }
            }
            None => DXIL_SPV_ERROR_GENERIC,
        };
        let elapsed = start.elapsed();
        crate::summary::note_run(self.route, result, refusal.as_ref().map(|r| r.reason.as_str()), elapsed);
        if self.route.is_dxil() && crate::config::get().record_dir.is_some() {
            crate::record::write(self, result, refusal.as_ref(), elapsed);
        }
        if self.route == Route::Untangle {
            // The application's own work in its callbacks, which the shadow run (answered
            // from the record) does not pay.
            let callbacks = self.remap.app_time.saturating_sub(app_time_before);
            self.run_shadow(result, elapsed, callbacks);
        }
        result
    }

    /// The shadow run ([`crate::shadow`]) after untangle's, when asked for: counted in the
    /// summary beside untangle's `result` and time; nothing of it reaches the application.
    fn run_shadow(&mut self, result: dxil_spv_result, elapsed: std::time::Duration, callbacks: std::time::Duration) {
        if !shadow::enabled() {
            return;
        }
        // SAFETY: the application keeps the blob alive while the converter lives.
        let blob = unsafe { &*self.blob };
        // An untangle-route blob is always native; nothing to shadow otherwise.
        let Some(native) = blob.native() else { return };
        let input =
            ShadowInput { blob: &blob.shadow, native, kind: blob.kind, setup: &self.setup, remap: &mut self.remap };
        let outcome = shadow::run(input);
        crate::summary::note_shadow(&outcome, result, elapsed, callbacks);
    }

    /// The module of the last successful run, as bytes.
    pub fn spirv(&self) -> Option<&[u8]> {
        if let Some((d, h)) = self.forward() {
            let mut c = dxil_spv_compiled_spirv { data: std::ptr::null(), size: 0 };
            let r = unsafe { (d.f.dxil_spv_converter_get_compiled_spirv)(h, &mut c) };
            if r != DXIL_SPV_SUCCESS || c.data.is_null() {
                return None;
            }
            // SAFETY: the delegate's module lives as long as its converter (self).
            return Some(unsafe { std::slice::from_raw_parts(c.data as *const u8, c.size) });
        }
        let out = self.output.as_ref()?;
        if out.spirv.is_empty() {
            return None;
        }
        // SAFETY: a u32 slice viewed as its bytes.
        Some(unsafe { std::slice::from_raw_parts(out.spirv.as_ptr() as *const u8, out.spirv.len() * 4) })
    }

    pub fn compiled_entry_point(&self) -> Option<*const c_char> {
        if let Some((d, h)) = self.forward() {
            let mut p = std::ptr::null();
            let r = unsafe { (d.f.dxil_spv_converter_get_compiled_entry_point)(h, &mut p) };
            return (r == DXIL_SPV_SUCCESS).then_some(p);
        }
        self.output.as_ref()?;
        self.compiled_entry_point.as_ref().map(|c| c.as_ptr())
    }

    pub fn analysis_warnings(&self) -> *const c_char {
        if let Some((d, h)) = self.forward() {
            return unsafe { (d.f.dxil_spv_converter_get_analysis_warnings)(h) };
        }
        self.warnings.as_ref().map_or(std::ptr::null(), |w| w.as_ptr())
    }

    /// `f` of the untangle path's results (zeros before a successful run, as dxil-spirv's are).
    pub fn with_output<T>(&self, f: impl FnOnce(&RunOutput) -> T) -> T {
        match &self.output {
            Some(out) => f(out),
            None => f(&RunOutput {
                patch_location_offset: self.setup.patch_location_offset.unwrap_or(u32::MAX),
                ..RunOutput::default()
            }),
        }
    }
}

impl Drop for Converter {
    fn drop(&mut self) {
        if let Some((d, h)) = self.forward() {
            unsafe { (d.f.dxil_spv_converter_free)(h) };
        }
    }
}
