//! A converter's setup handed to a delegate converter.
//!
//! The delegate routes forward each setup call as the application makes it
//! ([`crate::converter`]); the shadow run ([`crate::shadow`]) hands a whole recorded
//! [`ConverterSetup`] to a fresh delegate converter at once ([`Delegate::apply_setup`]). Both
//! go through the per-item calls here, so that a setup item reaches dxil-spirv the same way
//! whichever path hands it on.

use super::{Conv, Delegate};
use crate::converter::AnyCallback;
use crate::ffi::*;
use crate::options::{self, ConverterSetup, EncodedOption, LocalRootParameter, MetaDescriptor, RootParameterMapping};
use crate::remap::{self, Kind, Remapper};
use std::ffi::{c_void, CString};

/// What a delegate converter given a setup points into: the encoded options (dxil-spirv
/// keeps the output swizzle's pointer) and the debug-info tags (it keeps those pointers
/// too). Keep it until the delegate's run is over.
pub struct AppliedSetup {
    _options: Vec<EncodedOption>,
    _tags: Vec<Option<CString>>,
}

fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

impl Delegate {
    /// `dxil_spv_converter_add_local_root_*` for one parameter; a table is begun, given its
    /// ranges and ended.
    ///
    /// # Safety
    /// `h` is a live converter of this delegate.
    pub unsafe fn add_local_root_parameter(&self, h: Conv, p: &LocalRootParameter) {
        match p {
            LocalRootParameter::Constants { register_space, register_index, num_words } => {
                (self.f.dxil_spv_converter_add_local_root_constants)(h, *register_space, *register_index, *num_words)
            }
            LocalRootParameter::Descriptor { resource_class, register_space, register_index } => {
                (self.f.dxil_spv_converter_add_local_root_descriptor)(
                    h,
                    *resource_class,
                    *register_space,
                    *register_index,
                )
            }
            LocalRootParameter::Table { entries } => {
                (self.f.dxil_spv_converter_begin_local_root_descriptor_table)(h);
                for e in entries {
                    (self.f.dxil_spv_converter_add_local_root_descriptor_table)(
                        h,
                        e.resource_class,
                        e.register_space,
                        e.register_index,
                        e.num_descriptors_in_range,
                        e.offset_in_heap,
                    );
                }
                (self.f.dxil_spv_converter_end_local_root_descriptor_table)(h);
            }
        }
    }

    /// `dxil_spv_converter_add_root_parameter_mapping` / `_add_root_descriptor_mapping`.
    ///
    /// # Safety
    /// `h` is a live converter of this delegate.
    pub unsafe fn add_root_parameter_mapping(&self, h: Conv, m: RootParameterMapping) {
        match m {
            RootParameterMapping::Offset { root_parameter_index, offset } => {
                (self.f.dxil_spv_converter_add_root_parameter_mapping)(h, root_parameter_index, offset)
            }
            RootParameterMapping::Descriptor { root_parameter_index, desc_set, binding } => {
                (self.f.dxil_spv_converter_add_root_descriptor_mapping)(h, root_parameter_index, desc_set, binding)
            }
        }
    }

    /// `dxil_spv_converter_set_meta_descriptor`.
    ///
    /// # Safety
    /// `h` is a live converter of this delegate.
    pub unsafe fn set_meta_descriptor(&self, h: Conv, m: MetaDescriptor) -> dxil_spv_result {
        (self.f.dxil_spv_converter_set_meta_descriptor)(h, m.meta, m.kind, m.desc_set, m.binding_or_push_index)
    }

    /// Sets `h`'s callback of `callback`'s kind to the application's own (DXBC: nothing to
    /// interpose).
    ///
    /// # Safety
    /// `h` is a live converter of this delegate; the callback and `userdata` stay valid as
    /// the application's contract says.
    pub unsafe fn set_callback(&self, h: Conv, callback: AnyCallback, userdata: *mut c_void) {
        let f = &self.f;
        match callback {
            AnyCallback::Srv(cb) => (f.dxil_spv_converter_set_srv_remapper)(h, cb, userdata),
            AnyCallback::Sampler(cb) => (f.dxil_spv_converter_set_sampler_remapper)(h, cb, userdata),
            AnyCallback::Uav(cb) => (f.dxil_spv_converter_set_uav_remapper)(h, cb, userdata),
            AnyCallback::Cbv(cb) => (f.dxil_spv_converter_set_cbv_remapper)(h, cb, userdata),
            AnyCallback::VertexInput(cb) => (f.dxil_spv_converter_set_vertex_input_remapper)(h, cb, userdata),
            AnyCallback::StreamOutput(cb) => (f.dxil_spv_converter_set_stream_output_remapper)(h, cb, userdata),
            AnyCallback::StageInput(cb) => (f.dxil_spv_converter_set_stage_input_remapper)(h, cb, userdata),
            AnyCallback::StageOutput(cb) => (f.dxil_spv_converter_set_stage_output_remapper)(h, cb, userdata),
        }
    }

    /// Sets `h`'s callback of `kind` to the trampoline over `remap` ([`crate::remap`]: each
    /// query answered from the record or asked once); `None`: no callback (dxil-spirv's
    /// default answers).
    ///
    /// # Safety
    /// `h` is a live converter of this delegate; `remap` outlives `h`'s runs.
    pub unsafe fn set_trampoline(&self, h: Conv, kind: Kind, remap: Option<*mut Remapper>) {
        let ud = remap.map_or(std::ptr::null_mut(), |r| r as *mut c_void);
        let on = remap.is_some();
        let f = &self.f;
        match kind {
            Kind::Srv => (f.dxil_spv_converter_set_srv_remapper)(h, on.then_some(remap::tramp_srv), ud),
            Kind::Sampler => (f.dxil_spv_converter_set_sampler_remapper)(h, on.then_some(remap::tramp_sampler), ud),
            Kind::Uav => (f.dxil_spv_converter_set_uav_remapper)(h, on.then_some(remap::tramp_uav), ud),
            Kind::Cbv => (f.dxil_spv_converter_set_cbv_remapper)(h, on.then_some(remap::tramp_cbv), ud),
            Kind::VertexInput => {
                (f.dxil_spv_converter_set_vertex_input_remapper)(h, on.then_some(remap::tramp_vertex_input), ud)
            }
            Kind::StreamOutput => {
                (f.dxil_spv_converter_set_stream_output_remapper)(h, on.then_some(remap::tramp_stream_output), ud)
            }
            Kind::StageInput => {
                (f.dxil_spv_converter_set_stage_input_remapper)(h, on.then_some(remap::tramp_stage_input), ud)
            }
            Kind::StageOutput => {
                (f.dxil_spv_converter_set_stage_output_remapper)(h, on.then_some(remap::tramp_stage_output), ud)
            }
        }
    }

    /// Sets every callback of `h` to the trampoline over `remap`, for each kind the
    /// application set one of (the others: none, as the application left them).
    ///
    /// # Safety
    /// As [`Delegate::set_trampoline`].
    pub unsafe fn set_trampolines(&self, h: Conv, remap: *mut Remapper) {
        for kind in Kind::ALL {
            let on = (*remap).has_callback(kind);
            self.set_trampoline(h, kind, on.then_some(remap));
        }
    }

    /// Tells delegate converter `h` everything `setup` holds: entry point, options in order,
    /// root constant and descriptor counts, local root parameters, meta descriptors, root
    /// parameter mappings, patch location offset, non-semantic debug info. (A local root
    /// table still open is left out, as dxil-spirv leaves it out of a run.) The callbacks
    /// are the caller's business.
    ///
    /// # Safety
    /// `h` is a live converter of this delegate; the debug-info data `setup` points to is
    /// live until the run (the application's promise).
    pub unsafe fn apply_setup(&self, h: Conv, setup: &ConverterSetup) -> AppliedSetup {
        if let Some(entry) = &setup.entry_point {
            (self.f.dxil_spv_converter_set_entry_point)(h, c_string(entry).as_ptr());
        }
        let encoded: Vec<EncodedOption> = setup.options.iter().map(options::encode).collect();
        for o in &encoded {
            (self.f.dxil_spv_converter_add_option)(h, o.as_ptr());
        }
        (self.f.dxil_spv_converter_set_root_constant_word_count)(h, setup.root_constant_word_count);
        (self.f.dxil_spv_converter_set_root_descriptor_count)(h, setup.root_descriptor_count);
        for p in &setup.local_root_parameters {
            self.add_local_root_parameter(h, p);
        }
        for m in &setup.meta_descriptors {
            self.set_meta_descriptor(h, *m);
        }
        for m in &setup.root_parameter_mappings {
            self.add_root_parameter_mapping(h, *m);
        }
        if let Some(offset) = setup.patch_location_offset {
            (self.f.dxil_spv_converter_set_patch_location_offset)(h, offset);
        }
        let tags: Vec<Option<CString>> =
            setup.non_semantic_debug_info.iter().map(|i| i.tag.as_deref().map(c_string)).collect();
        for (info, tag) in setup.non_semantic_debug_info.iter().zip(&tags) {
            let tag = tag.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
            (self.f.dxil_spv_converter_add_non_semantic_debug_info)(h, tag, info.data as *const c_void, info.size);
        }
        AppliedSetup { _options: encoded, _tags: tags }
    }
}
