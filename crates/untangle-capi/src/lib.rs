//! untangle's C API: `libuntangle_capi.so` / `libuntangle_capi.a` with the header
//! `include/untangle.h` (generated from this crate by cbindgen; `tests/header.rs` keeps
//! it in step).
//!
//! The conventions (objects and ownership, errors, threads, callbacks) are written once,
//! at the top of the header (`cbindgen.toml`'s `header`); each function's comment says
//! what it does. In short:
//! - opaque objects: `untangle_shader` (parse once, immutable), `untangle_options`,
//!   `untangle_result`, `untangle_error`; each has its `*_free`, which accepts NULL;
//! - every function returns an `untangle_status` (the `*_free` functions and the two
//!   error accessors excepted); those that can fail on their input also take an
//!   `untangle_error **` out-parameter (NULL: no message wanted) that receives a new error
//!   object on failure and NULL on success; no thread-local or global last-error;
//! - no global state: a shader may be reflected and translated from several threads at
//!   once; options may be shared by concurrent translations once set up;
//! - every entry point catches panics (`UNTANGLE_INTERNAL`) and checks its pointers,
//!   lengths and enumeration values (`UNTANGLE_INVALID_ARGUMENT`).
//!
//! The crate is also an `rlib`, so Rust tests call the same functions.

// C names for C types.
#![allow(non_camel_case_types)]
// Every entry point has the same safety contract, stated once at the top of the header:
// pointers are NULL or valid for what the call reads or writes, objects are live and come
// from this library, strings are NUL-terminated. A `# Safety` section on each would repeat it.
#![allow(clippy::missing_safety_doc)]
#![deny(unsafe_op_in_unsafe_fn)]

mod error;
mod features;
mod options;
mod reflect;
mod translate;

pub use error::*;
pub use features::*;
pub use options::*;
pub use reflect::*;
pub use translate::*;

/// The major version of this library (`UNTANGLE_VERSION_MAJOR`); compare with
/// `untangle_version` at run time.
pub const UNTANGLE_VERSION_MAJOR: u32 = 0;
/// The minor version of this library.
pub const UNTANGLE_VERSION_MINOR: u32 = 1;
/// The patch version of this library.
pub const UNTANGLE_VERSION_PATCH: u32 = 0;

/// The ABI version of the shared library: its `SONAME` is
/// `libuntangle_capi.so.<UNTANGLE_ABI_VERSION>` (`libuntangle_capi.so.1`), the name a
/// program linked with `-luntangle_capi` loads at run time. It changes when, and only
/// when, a release breaks binary compatibility (a function removed or its parameters
/// changed, a struct's layout or an enumeration value changed); adding functions does
/// not change it. 1: `untangle_binding` gained `array_element` and the counter fields.
// build.rs reads the value from this line for the SONAME.
pub const UNTANGLE_ABI_VERSION: u32 = 1;

/// The version of the library in use (it may differ from the header's
/// `UNTANGLE_VERSION_*` when a program runs against another shared library). Every
/// out-parameter may be NULL. `text` receives a static string such as `"0.1.0"`.
#[no_mangle]
pub unsafe extern "C" fn untangle_version(
    major: *mut u32,
    minor: *mut u32,
    patch: *mut u32,
    text: *mut *const std::ffi::c_char,
) -> untangle_status {
    error::guard_simple(|| {
        // SAFETY: each pointer is NULL or, by the caller's contract, writable.
        unsafe {
            error::write_opt(major, UNTANGLE_VERSION_MAJOR);
            error::write_opt(minor, UNTANGLE_VERSION_MINOR);
            error::write_opt(patch, UNTANGLE_VERSION_PATCH);
            error::write_opt(text, VERSION_TEXT.as_ptr().cast());
        }
        Ok(())
    })
}

const VERSION_TEXT: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

// The objects handed to C are shared between threads as documented.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<untangle_shader>();
    send_sync::<untangle_options>();
    send_sync::<untangle_result>();
    send_sync::<untangle_error>();
};

#[cfg(test)]
mod tests {
    #[test]
    fn version_constants_match_the_package() {
        assert_eq!(super::UNTANGLE_VERSION_MAJOR.to_string(), env!("CARGO_PKG_VERSION_MAJOR"));
        assert_eq!(super::UNTANGLE_VERSION_MINOR.to_string(), env!("CARGO_PKG_VERSION_MINOR"));
        assert_eq!(super::UNTANGLE_VERSION_PATCH.to_string(), env!("CARGO_PKG_VERSION_PATCH"));
    }

    #[test]
    fn default_push_constant_budget_is_the_library_s() {
        use untangle::rootsig::layout::{LayoutOptions, DEFAULT_MAX_PUSH_CONSTANT_BYTES};
        assert_eq!(super::UNTANGLE_DEFAULT_MAX_PUSH_CONSTANT_BYTES, DEFAULT_MAX_PUSH_CONSTANT_BYTES);
        assert_eq!(LayoutOptions::default().max_push_constant_bytes, DEFAULT_MAX_PUSH_CONSTANT_BYTES);
    }

    #[test]
    fn callback_limits_are_the_library_s() {
        use untangle::emit::{binding_model, locations};
        assert_eq!(super::UNTANGLE_MAX_IO_LOCATIONS, locations::MAX_REMAPPED_LOCATIONS);
        assert_eq!(super::UNTANGLE_MAX_DESCRIPTOR_SETS, binding_model::MAX_REMAPPED_SETS);
        assert_eq!(super::UNTANGLE_MAX_BINDINGS, binding_model::MAX_REMAPPED_BINDINGS);
    }
}
