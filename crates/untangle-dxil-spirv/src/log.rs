//! The per-thread log callback (`dxil_spv_set_thread_log_callback`), and the messages this
//! library logs. Without a callback, messages go to standard error, as dxil-spirv's do.

use crate::ffi::*;
use std::cell::Cell;
use std::ffi::{c_void, CString};

thread_local! {
    static CALLBACK: Cell<(dxil_spv_log_cb, usize)> = const { Cell::new((None, 0)) };
}

/// Sets the calling thread's callback (`None`: standard error).
pub fn set_thread_callback(callback: dxil_spv_log_cb, userdata: *mut c_void) {
    CALLBACK.with(|c| c.set((callback, userdata as usize)));
}

/// The calling thread's callback and its user data.
pub fn thread_callback() -> (dxil_spv_log_cb, *mut c_void) {
    let (cb, ud) = CALLBACK.try_with(|c| c.get()).unwrap_or((None, 0));
    (cb, ud as *mut c_void)
}

/// Logs `message` at `level` through the thread's callback (or on standard error). Every
/// message starts with `untangle: ` so a log tells this library's lines from dxil-spirv's.
pub fn log(level: dxil_spv_log_level, message: &str) {
    let text = format!("untangle: {}\n", message.trim_end());
    match thread_callback() {
        (Some(cb), ud) => {
            let c = CString::new(text.replace('\0', "\\0")).unwrap_or_default();
            // SAFETY: the application's callback, called as the header documents.
            unsafe { cb(ud, level, c.as_ptr()) };
        }
        (None, _) => {
            let tag = match level {
                DXIL_SPV_LOG_LEVEL_ERROR => "[ERROR]: ",
                DXIL_SPV_LOG_LEVEL_WARN => "[WARN]: ",
                _ => "[INFO]: ",
            };
            eprint!("{tag}{text}");
        }
    }
}

pub fn error(message: &str) {
    log(DXIL_SPV_LOG_LEVEL_ERROR, message)
}

pub fn warn(message: &str) {
    log(DXIL_SPV_LOG_LEVEL_WARN, message)
}
