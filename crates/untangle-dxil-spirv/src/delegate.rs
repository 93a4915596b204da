//! The delegate: dxil-spirv itself (`libdxil-spirv-c-shared.so`, the archive's dxil-spirv
//! built as a shared library by `tools/vkd3d-proton/build.sh`), loaded at run time for what
//! untangle leaves to it: DXBC (shader model 5 and older) always, DXIL in the reference mode.
//!
//! It is opened with `RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND`: its own references to
//! `dxil_spv_*` bind inside it, never to this library's functions of the same names (which
//! the process may also export). It is looked for at `UNTANGLE_DXIL_SPIRV_DELEGATE`, else
//! next to the shared object holding this code (`dladdr`): in vkd3d-proton that is
//! `libvkd3d-proton-d3d12core.so`, into which this library is linked statically.
//!
//! Per-thread state of the delegate follows ours: before a call that may log or allocate,
//! [`Delegate::enter`] hands it the thread's log callback and opens its thread allocator
//! context when the application has opened ours. [`Delegate::enter_quiet`] does the same
//! but silences its log, for runs the application must not hear of (the shadow run).
//!
//! [`setup`] hands a converter's setup to a delegate converter, call by call or whole.

use crate::ffi::*;
use std::cell::Cell;
use std::ffi::{c_char, c_uint, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod setup;
pub use setup::AppliedSetup;

/// The file name looked for next to this library.
pub const DELEGATE_FILE: &str = "libdxil-spirv-c-shared.so";

type Blob = *mut c_void;
type Conv = *mut c_void;

macro_rules! functions {
    ($($name:ident: fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        /// The delegate's C API, one field per function.
        #[allow(non_snake_case)]
        pub struct Functions {
            $(pub $name: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
        }

        impl Functions {
            /// Looks every function up; fails naming the first one missing.
            unsafe fn load(lib: *mut c_void) -> Result<Functions, String> {
                Ok(Functions {
                    $($name: {
                        let name = concat!(stringify!($name), "\0");
                        let p = libc::dlsym(lib, name.as_ptr() as *const c_char);
                        if p.is_null() {
                            return Err(format!("it has no {}", stringify!($name)));
                        }
                        std::mem::transmute::<*mut c_void, unsafe extern "C" fn($($arg),*) $(-> $ret)?>(p)
                    },)*
                })
            }
        }
    };
}

functions! {
    dxil_spv_get_version: fn(*mut c_uint, *mut c_uint, *mut c_uint);
    dxil_spv_parse_dxil_blob: fn(*const c_void, usize, *mut Blob) -> dxil_spv_result;
    dxil_spv_parse_reflection_dxil_blob: fn(*const c_void, usize, *mut Blob) -> dxil_spv_result;
    dxil_spv_parse_dxil: fn(*const c_void, usize, *mut Blob) -> dxil_spv_result;
    dxil_spv_parsed_blob_dump_llvm_ir: fn(Blob);
    dxil_spv_parsed_blob_get_disassembled_ir: fn(Blob, *mut *const c_char) -> dxil_spv_result;
    dxil_spv_parsed_blob_get_raw_ir: fn(Blob, *mut *const c_void, *mut usize) -> dxil_spv_result;
    dxil_spv_parsed_blob_get_shader_stage: fn(Blob) -> dxil_spv_shader_stage;
    dxil_spv_parsed_blob_get_shader_stage_for_entry: fn(Blob, *const c_char) -> dxil_spv_shader_stage;
    dxil_spv_parsed_blob_get_entry_index_by_name: fn(Blob, *const c_char, *mut c_uint) -> dxil_spv_result;
    dxil_spv_parsed_blob_get_num_entry_points: fn(Blob, *mut c_uint) -> dxil_spv_result;
    dxil_spv_parsed_blob_get_entry_point_name: fn(Blob, c_uint, *mut *const c_char) -> dxil_spv_result;
    dxil_spv_parsed_blob_get_entry_point_demangled_name: fn(Blob, c_uint, *mut *const c_char) -> dxil_spv_result;
    dxil_spv_parsed_blob_get_entry_point_node_input: fn(Blob, c_uint, *mut dxil_spv_node_input_data) -> dxil_spv_result;
    dxil_spv_parsed_blob_get_entry_point_num_node_outputs: fn(Blob, c_uint, *mut c_uint) -> dxil_spv_result;
    dxil_spv_parsed_blob_get_entry_point_node_output: fn(Blob, c_uint, c_uint, *mut dxil_spv_node_output_data) -> dxil_spv_result;
    dxil_spv_parsed_blob_scan_resources: fn(
        Blob, dxil_spv_srv_remapper_cb, dxil_spv_sampler_remapper_cb, dxil_spv_cbv_remapper_cb,
        dxil_spv_uav_remapper_cb, *mut c_void) -> dxil_spv_result;
    dxil_spv_parsed_blob_get_num_rdat_subobjects: fn(Blob) -> c_uint;
    dxil_spv_parsed_blob_get_rdat_subobject: fn(Blob, c_uint, *mut dxil_spv_rdat_subobject);
    dxil_spv_parsed_blob_free: fn(Blob);
    dxil_spv_set_thread_log_callback: fn(dxil_spv_log_cb, *mut c_void);
    dxil_spv_create_converter: fn(Blob, *mut Conv) -> dxil_spv_result;
    dxil_spv_create_converter_with_reflection: fn(Blob, Blob, *mut Conv) -> dxil_spv_result;
    dxil_spv_converter_free: fn(Conv);
    dxil_spv_converter_set_entry_point: fn(Conv, *const c_char);
    dxil_spv_converter_set_stage_input_remapper: fn(Conv, dxil_spv_shader_stage_io_remapper_cb, *mut c_void);
    dxil_spv_converter_set_stage_output_remapper: fn(Conv, dxil_spv_shader_stage_io_remapper_cb, *mut c_void);
    dxil_spv_converter_set_vertex_input_remapper: fn(Conv, dxil_spv_vertex_input_remapper_cb, *mut c_void);
    dxil_spv_converter_set_stream_output_remapper: fn(Conv, dxil_spv_stream_output_remapper_cb, *mut c_void);
    dxil_spv_converter_set_srv_remapper: fn(Conv, dxil_spv_srv_remapper_cb, *mut c_void);
    dxil_spv_converter_set_sampler_remapper: fn(Conv, dxil_spv_sampler_remapper_cb, *mut c_void);
    dxil_spv_converter_set_root_constant_word_count: fn(Conv, c_uint);
    dxil_spv_converter_set_root_descriptor_count: fn(Conv, c_uint);
    dxil_spv_converter_set_uav_remapper: fn(Conv, dxil_spv_uav_remapper_cb, *mut c_void);
    dxil_spv_converter_set_cbv_remapper: fn(Conv, dxil_spv_cbv_remapper_cb, *mut c_void);
    dxil_spv_converter_add_local_root_constants: fn(Conv, c_uint, c_uint, c_uint);
    dxil_spv_converter_add_local_root_descriptor: fn(Conv, dxil_spv_resource_class, c_uint, c_uint);
    dxil_spv_converter_add_local_root_descriptor_table: fn(Conv, dxil_spv_resource_class, c_uint, c_uint, c_uint, c_uint);
    dxil_spv_converter_begin_local_root_descriptor_table: fn(Conv) -> dxil_spv_result;
    dxil_spv_converter_end_local_root_descriptor_table: fn(Conv) -> dxil_spv_result;
    dxil_spv_converter_add_root_parameter_mapping: fn(Conv, c_uint, c_uint);
    dxil_spv_converter_add_root_descriptor_mapping: fn(Conv, c_uint, c_uint, c_uint);
    dxil_spv_converter_add_non_semantic_debug_info: fn(Conv, *const c_char, *const c_void, usize);
    dxil_spv_converter_set_patch_location_offset: fn(Conv, c_uint);
    dxil_spv_converter_run: fn(Conv) -> dxil_spv_result;
    dxil_spv_converter_get_compiled_spirv: fn(Conv, *mut dxil_spv_compiled_spirv) -> dxil_spv_result;
    dxil_spv_converter_get_compiled_entry_point: fn(Conv, *mut *const c_char) -> dxil_spv_result;
    dxil_spv_converter_supports_option: fn(dxil_spv_option) -> dxil_spv_bool;
    dxil_spv_converter_add_option: fn(Conv, *const dxil_spv_option_base) -> dxil_spv_result;
    dxil_spv_converter_uses_subgroup_size: fn(Conv) -> dxil_spv_bool;
    dxil_spv_converter_get_compute_workgroup_dimensions: fn(Conv, *mut c_uint, *mut c_uint, *mut c_uint) -> dxil_spv_result;
    dxil_spv_converter_get_compute_required_wave_size: fn(Conv, *mut c_uint) -> dxil_spv_result;
    dxil_spv_converter_get_compute_wave_size_range: fn(Conv, *mut c_uint, *mut c_uint, *mut c_uint) -> dxil_spv_result;
    dxil_spv_converter_get_compute_heuristic_max_wave_size: fn(Conv, *mut c_uint) -> dxil_spv_result;
    dxil_spv_converter_get_compute_heuristic_min_wave_size: fn(Conv, *mut c_uint) -> dxil_spv_result;
    dxil_spv_converter_get_patch_vertex_count: fn(Conv, *mut c_uint) -> dxil_spv_result;
    dxil_spv_converter_get_patch_location_offset: fn(Conv, *mut c_uint) -> dxil_spv_result;
    dxil_spv_converter_uses_shader_feature: fn(Conv, dxil_spv_shader_feature) -> dxil_spv_bool;
    dxil_spv_converter_is_multiview_compatible: fn(Conv, *mut dxil_spv_bool) -> dxil_spv_result;
    dxil_spv_converter_get_analysis_warnings: fn(Conv) -> *const c_char;
    dxil_spv_converter_set_meta_descriptor: fn(
        Conv, dxil_spv_meta_descriptor, dxil_spv_meta_descriptor_kind, c_uint, c_uint) -> dxil_spv_result;
    dxil_spv_begin_thread_allocator_context: fn();
    dxil_spv_end_thread_allocator_context: fn();
    dxil_spv_reset_thread_allocator_context: fn();
}

/// The loaded delegate.
pub struct Delegate {
    pub path: PathBuf,
    pub version: (u32, u32, u32),
    pub f: Functions,
}

// SAFETY: the delegate's C API is thread-safe in the way ours is (objects are used by one
// thread at a time; global state is per thread); the table only holds function pointers.
unsafe impl Send for Delegate {}
unsafe impl Sync for Delegate {}

static DELEGATE: OnceLock<Result<Delegate, String>> = OnceLock::new();

thread_local! {
    /// The log callback last handed to the delegate on this thread.
    static LOG_SYNCED: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
    /// Whether the application opened our thread allocator context (and how often).
    static ALLOCATOR_OPEN: Cell<bool> = const { Cell::new(false) };
    /// Whether we opened the delegate's on this thread.
    static DELEGATE_ALLOCATOR_OPEN: Cell<bool> = const { Cell::new(false) };
}

/// The path of the shared object holding this function (`dladdr`).
fn own_object_path() -> Option<PathBuf> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr reads the address of one of our functions and fills `info`.
    let found = unsafe { libc::dladdr(own_object_path as *const c_void, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is a NUL-terminated string owned by the loader.
    let name = unsafe { CStr::from_ptr(info.dli_fname) }.to_string_lossy().into_owned();
    let path = PathBuf::from(name);
    Some(std::fs::canonicalize(&path).unwrap_or(path))
}

/// Where the delegate is looked for.
pub fn delegate_path() -> Result<PathBuf, String> {
    if let Some(p) = &crate::config::get().delegate {
        return Ok(p.clone());
    }
    let own = own_object_path().ok_or("dladdr cannot name the library holding this code")?;
    Ok(own.parent().unwrap_or(Path::new(".")).join(DELEGATE_FILE))
}

fn load() -> Result<Delegate, String> {
    let path = delegate_path()?;
    let cpath = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| "path holds a NUL byte".to_string())?;
    // SAFETY: dlopen/dlerror as documented; the handle is never closed (the functions stay
    // valid for the life of the process).
    let lib = unsafe { libc::dlopen(cpath.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND) };
    if lib.is_null() {
        let err = unsafe { libc::dlerror() };
        let why = if err.is_null() {
            "unknown error".to_string()
        } else {
            unsafe { CStr::from_ptr(err) }.to_string_lossy().into_owned()
        };
        return Err(format!("cannot load {}: {why}", path.display()));
    }
    let f =
        unsafe { Functions::load(lib) }.map_err(|e| format!("{} is not dxil-spirv's C API: {e}", path.display()))?;
    // The delegate must not be this library: its functions would be ours.
    let ours = crate::exports::dxil_spv_converter_run as *const () as usize;
    if f.dxil_spv_converter_run as usize == ours {
        return Err(format!("{} resolves to this library itself, not to dxil-spirv", path.display()));
    }
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    unsafe { (f.dxil_spv_get_version)(&mut major, &mut minor, &mut patch) };
    if major != DXIL_SPV_API_VERSION_MAJOR || minor < DXIL_SPV_API_VERSION_MINOR {
        return Err(format!(
            "{} implements dxil-spirv API {major}.{minor}.{patch}; {}.{} or a later {}.x is needed",
            path.display(),
            DXIL_SPV_API_VERSION_MAJOR,
            DXIL_SPV_API_VERSION_MINOR,
            DXIL_SPV_API_VERSION_MAJOR
        ));
    }
    Ok(Delegate { path, version: (major, minor, patch), f })
}

/// The delegate, loaded on first use; `Err` says why it cannot be (logged once per call
/// site by the caller).
pub fn get() -> Result<&'static Delegate, &'static str> {
    DELEGATE.get_or_init(load).as_ref().map_err(|e| e.as_str())
}

/// The delegate if it is already loaded (nothing is loaded).
pub fn loaded() -> Option<&'static Delegate> {
    DELEGATE.get().and_then(|d| d.as_ref().ok())
}

impl Delegate {
    /// Brings the delegate's per-thread state in line with ours before a call on this
    /// thread: the log callback, and the thread allocator context.
    pub fn enter(&self) {
        let (cb, ud) = crate::log::thread_callback();
        self.sync_log(cb, ud);
        self.sync_allocator();
    }

    /// [`Delegate::enter`] with the delegate's log silenced on this thread (its C API drops
    /// messages when given no callback) until the next `enter`.
    pub fn enter_quiet(&self) {
        self.sync_log(None, std::ptr::null_mut());
        self.sync_allocator();
    }

    fn sync_log(&self, cb: dxil_spv_log_cb, ud: *mut c_void) {
        let key = (cb.map_or(0, |f| f as usize), ud as usize);
        if LOG_SYNCED.with(|s| s.get()) != Some(key) {
            unsafe { (self.f.dxil_spv_set_thread_log_callback)(cb, ud) };
            LOG_SYNCED.with(|s| s.set(Some(key)));
        }
    }

    fn sync_allocator(&self) {
        if ALLOCATOR_OPEN.with(|a| a.get()) && !DELEGATE_ALLOCATOR_OPEN.with(|a| a.get()) {
            unsafe { (self.f.dxil_spv_begin_thread_allocator_context)() };
            DELEGATE_ALLOCATOR_OPEN.with(|a| a.set(true));
        }
    }
}

/// `dxil_spv_begin_thread_allocator_context`: ours has nothing to allocate; the delegate's
/// opens now when it is loaded, else at its first use on this thread.
pub fn begin_thread_allocator_context() {
    ALLOCATOR_OPEN.with(|a| a.set(true));
    if let Some(d) = loaded() {
        d.enter();
    }
}

pub fn end_thread_allocator_context() {
    ALLOCATOR_OPEN.with(|a| a.set(false));
    if DELEGATE_ALLOCATOR_OPEN.with(|a| a.replace(false)) {
        if let Some(d) = loaded() {
            unsafe { (d.f.dxil_spv_end_thread_allocator_context)() };
        }
    }
}

pub fn reset_thread_allocator_context() {
    if DELEGATE_ALLOCATOR_OPEN.with(|a| a.get()) {
        if let Some(d) = loaded() {
            unsafe { (d.f.dxil_spv_reset_thread_allocator_context)() };
        }
    }
}
