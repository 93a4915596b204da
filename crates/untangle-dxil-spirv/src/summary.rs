//! The exit summary (`UNTANGLE_DXIL_SPIRV_SUMMARY=PATH`, or `1` / `stderr`): at process exit
//! (an `atexit` handler registered on first use), one JSON object on one line:
//!
//! ```json
//! {"format":"untangle-dxil-spirv-summary/1","pid":123,"exe":"/path/d3d12",
//!  "dxil_untangle":0,"dxil_delegated":5,"dxil_delegate_failed":0,"dxbc_delegated":2,
//!  "dxbc_delegate_failed":0,"dxil_refused":3,"refusals":{"not implemented":3},
//!  "run_ms":{"untangle":0.1,"delegate_dxil":12.5,"delegate_dxbc":3.0},"delegate":"/path/lib.so"}
//! ```
//!
//! `dxil_untangle`: DXIL runs untangle translated; `dxil_delegated`: DXIL runs dxil-spirv
//! did (reference mode); `dxbc_delegated`: DXBC runs (always dxil-spirv's);
//! `*_delegate_failed`: runs dxil-spirv failed; `dxil_refused`: DXIL runs untangle refused,
//! by reason; `run_ms`: time inside `dxil_spv_converter_run` per path. The line is written
//! with one `write` on a descriptor opened with `O_APPEND`, so processes sharing the file
//! never interleave their lines.

use crate::blob::Route;
use crate::config::SummaryTarget;
use crate::ffi::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

#[derive(Default)]
struct Counter {
    ok: AtomicU64,
    failed: AtomicU64,
    nanos: AtomicU64,
}

static UNTANGLE: Counter = Counter { ok: AtomicU64::new(0), failed: AtomicU64::new(0), nanos: AtomicU64::new(0) };
static DELEGATE_DXIL: Counter = Counter { ok: AtomicU64::new(0), failed: AtomicU64::new(0), nanos: AtomicU64::new(0) };
static DELEGATE_DXBC: Counter = Counter { ok: AtomicU64::new(0), failed: AtomicU64::new(0), nanos: AtomicU64::new(0) };
static REFUSALS: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

/// Counts one `dxil_spv_converter_run` (`refusal`: the untangle path's reason).
pub fn note_run(route: Route, result: dxil_spv_result, refusal: Option<&str>, elapsed: Duration) {
    let c = match route {
        Route::Untangle => &UNTANGLE,
        Route::DelegateDxil => &DELEGATE_DXIL,
        Route::DelegateDxbc => &DELEGATE_DXBC,
    };
    c.nanos.fetch_add(elapsed.as_nanos() as u64, Ordering::Relaxed);
    if result == DXIL_SPV_SUCCESS {
        c.ok.fetch_add(1, Ordering::Relaxed);
    } else {
        c.failed.fetch_add(1, Ordering::Relaxed);
        if route == Route::Untangle {
            let reason = refusal.map_or_else(|| format!("error {result}"), str::to_string);
            *REFUSALS.lock().unwrap_or_else(|p| p.into_inner()).entry(reason).or_default() += 1;
        }
    }
}

fn ms(c: &Counter) -> f64 {
    (c.nanos.load(Ordering::Relaxed) as f64 / 1e4).round() / 100.0
}

/// The summary line (without its newline).
pub fn line() -> String {
    let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
    let refusals = REFUSALS.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let exe = std::fs::read_link("/proc/self/exe").map(|p| p.display().to_string()).unwrap_or_default();
    let delegate = match crate::delegate::loaded() {
        Some(d) => serde_json::json!(d.path.display().to_string()),
        None => serde_json::Value::Null,
    };
    serde_json::json!({
        "format": "untangle-dxil-spirv-summary/1",
        "pid": std::process::id(),
        "exe": exe,
        "reference_mode": crate::config::get().reference,
        "dxil_untangle": get(&UNTANGLE.ok),
        "dxil_refused": get(&UNTANGLE.failed),
        "refusals": refusals,
        "dxil_delegated": get(&DELEGATE_DXIL.ok),
        "dxil_delegate_failed": get(&DELEGATE_DXIL.failed),
        "dxbc_delegated": get(&DELEGATE_DXBC.ok),
        "dxbc_delegate_failed": get(&DELEGATE_DXBC.failed),
        "run_ms": { "untangle": ms(&UNTANGLE), "delegate_dxil": ms(&DELEGATE_DXIL), "delegate_dxbc": ms(&DELEGATE_DXBC) },
        "delegate": delegate,
    })
    .to_string()
}

/// Writes the line to the configured target in one `write`.
pub fn write() {
    let Some(target) = crate::config::get().summary.clone() else { return };
    let mut text = line();
    text.push('\n');
    let fd = match &target {
        SummaryTarget::Stderr => 2,
        SummaryTarget::File(path) => {
            let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else { return };
            // SAFETY: open(2) with a NUL-terminated path.
            unsafe { libc::open(c.as_ptr(), libc::O_WRONLY | libc::O_CREAT | libc::O_APPEND | libc::O_CLOEXEC, 0o644) }
        }
    };
    if fd < 0 {
        return;
    }
    // SAFETY: writing our buffer to a descriptor we hold.
    unsafe {
        libc::write(fd, text.as_ptr() as *const libc::c_void, text.len());
        if fd != 2 {
            libc::close(fd);
        }
    }
}

extern "C" fn at_exit() {
    let _ = std::panic::catch_unwind(write);
}

/// Registers the exit handler (once; the configuration calls it).
pub fn register_at_exit() {
    // SAFETY: registering a handler that never unwinds. Registered from a shared object,
    // glibc runs it at exit or when that object is unloaded, whichever comes first.
    unsafe { libc::atexit(at_exit) };
}
