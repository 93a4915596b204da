//! The exit summary (`UNTANGLE_DXIL_SPIRV_SUMMARY=PATH`, or `1` / `stderr`): at process exit
//! (an `atexit` handler registered on first use), one JSON object on one line:
//!
//! ```json
//! {"format":"untangle-dxil-spirv-summary/1","pid":123,"exe":"/path/d3d12",
//!  "reference_mode":false,"shadow_mode":true,
//!  "dxil_untangle":4,"dxil_delegated":0,"dxil_delegate_failed":0,"dxbc_delegated":2,
//!  "dxbc_delegate_failed":0,"dxil_refused":1,"refusals":{"work-graph node":1},
//!  "shadow_ok":4,"shadow_failed":1,"shadow_failures":{"run: error -3":1},
//!  "run_ms":{"untangle":3.1,"delegate_dxil":0.0,"delegate_dxbc":3.0,"shadow_dxil":12.5},
//!  "run_count":{"untangle":5,"delegate_dxil":0,"delegate_dxbc":2,"shadow_dxil":5},
//!  "shadow_paired":{"runs":4,"untangle_ms":3.0,"untangle_callbacks_ms":0.4,"shadow_dxil_ms":10.2},
//!  "delegate":"/path/lib.so"}
//! ```
//!
//! `dxil_untangle`: DXIL runs untangle translated; `dxil_delegated`: DXIL runs dxil-spirv
//! did (reference mode); `dxbc_delegated`: DXBC runs (always dxil-spirv's);
//! `*_delegate_failed`: runs dxil-spirv failed; `dxil_refused`: DXIL runs untangle refused,
//! by reason; `run_ms`: time inside `dxil_spv_converter_run` per path; `run_count`: how
//! many runs each `run_ms` entry sums (divide for a mean).
//!
//! Shadow mode (`UNTANGLE_DXIL_SPIRV_SHADOW=1`, [`crate::shadow`]): `shadow_ok` /
//! `shadow_failed`: untangle-route runs the shadow dxil-spirv translated / failed, so that
//! their sum is `dxil_untangle + dxil_refused`; `shadow_failures`: the failed ones by
//! reason (a shadow that had no delegate, could not parse the shader or create a converter
//! is not timed; one whose run failed is); `run_ms.shadow_dxil`: time inside the delegate's `dxil_spv_converter_run`
//! (its shadow runs only, `run_count.shadow_dxil` of them); `shadow_paired`: the runs both
//! untangle and the shadow translated, with each one's time over them (the like-for-like
//! comparison), and `untangle_callbacks_ms`, the part of untangle's spent inside the
//! application's callbacks (the shadow run's are answered from the record, so it does not
//! pay them). Without the shadow mode these are zero.
//!
//! The line is written with one `write` on a descriptor opened with `O_APPEND`, so
//! processes sharing the file never interleave their lines.

use crate::blob::Route;
use crate::config::SummaryTarget;
use crate::ffi::*;
use crate::shadow::{ShadowError, ShadowRun};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The runs of one path: how they ended, and the time of those timed.
struct Counter {
    ok: AtomicU64,
    failed: AtomicU64,
    nanos: AtomicU64,
    timed: AtomicU64,
}

impl Counter {
    const fn new() -> Counter {
        Counter { ok: AtomicU64::new(0), failed: AtomicU64::new(0), nanos: AtomicU64::new(0), timed: AtomicU64::new(0) }
    }

    fn note(&self, ok: bool, elapsed: Option<Duration>) {
        (if ok { &self.ok } else { &self.failed }).fetch_add(1, Ordering::Relaxed);
        if let Some(e) = elapsed {
            self.nanos.fetch_add(nanos(e), Ordering::Relaxed);
            self.timed.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Runs both untangle and the shadow translated, with each one's time over them.
struct Paired {
    runs: AtomicU64,
    untangle_nanos: AtomicU64,
    /// The part of `untangle_nanos` spent in the application's callbacks.
    callback_nanos: AtomicU64,
    shadow_nanos: AtomicU64,
}

static UNTANGLE: Counter = Counter::new();
static DELEGATE_DXIL: Counter = Counter::new();
static DELEGATE_DXBC: Counter = Counter::new();
static SHADOW_DXIL: Counter = Counter::new();
static SHADOW_PAIRED: Paired = Paired {
    runs: AtomicU64::new(0),
    untangle_nanos: AtomicU64::new(0),
    callback_nanos: AtomicU64::new(0),
    shadow_nanos: AtomicU64::new(0),
};
static REFUSALS: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());
static SHADOW_FAILURES: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

fn count(map: &Mutex<BTreeMap<String, u64>>, reason: String) {
    *map.lock().unwrap_or_else(|p| p.into_inner()).entry(reason).or_default() += 1;
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Counts one `dxil_spv_converter_run` (`refusal`: the untangle path's reason).
pub fn note_run(route: Route, result: dxil_spv_result, refusal: Option<&str>, elapsed: Duration) {
    let c = match route {
        Route::Untangle => &UNTANGLE,
        Route::DelegateDxil => &DELEGATE_DXIL,
        Route::DelegateDxbc => &DELEGATE_DXBC,
    };
    c.note(result == DXIL_SPV_SUCCESS, Some(elapsed));
    if result != DXIL_SPV_SUCCESS && route == Route::Untangle {
        count(&REFUSALS, refusal.map_or_else(|| format!("error {result}"), str::to_string));
    }
}

/// Counts one shadow run (`outcome`) after untangle's run of the same converter, which
/// gave `untangle_result` in `untangle_elapsed`.
pub fn note_shadow(
    outcome: &Result<ShadowRun, ShadowError>,
    untangle_result: dxil_spv_result,
    untangle_elapsed: Duration,
    untangle_callbacks: Duration,
) {
    match outcome {
        Ok(run) => {
            let ok = run.result == DXIL_SPV_SUCCESS;
            SHADOW_DXIL.note(ok, Some(run.elapsed));
            if !ok {
                count(&SHADOW_FAILURES, format!("run: error {}", run.result));
            }
            if ok && untangle_result == DXIL_SPV_SUCCESS {
                SHADOW_PAIRED.runs.fetch_add(1, Ordering::Relaxed);
                SHADOW_PAIRED.untangle_nanos.fetch_add(nanos(untangle_elapsed), Ordering::Relaxed);
                SHADOW_PAIRED.callback_nanos.fetch_add(nanos(untangle_callbacks), Ordering::Relaxed);
                SHADOW_PAIRED.shadow_nanos.fetch_add(nanos(run.elapsed), Ordering::Relaxed);
            }
        }
        Err(e) => {
            SHADOW_DXIL.note(false, None);
            count(&SHADOW_FAILURES, e.reason());
        }
    }
}

/// Nanoseconds as milliseconds rounded to 0.01.
fn ms_of(nanos: &AtomicU64) -> f64 {
    (nanos.load(Ordering::Relaxed) as f64 / 1e4).round() / 100.0
}

fn ms(c: &Counter) -> f64 {
    ms_of(&c.nanos)
}

/// The summary line (without its newline).
pub fn line() -> String {
    let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
    let refusals = REFUSALS.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let shadow_failures = SHADOW_FAILURES.lock().unwrap_or_else(|p| p.into_inner()).clone();
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
        "shadow_mode": crate::config::get().shadow,
        "dxil_untangle": get(&UNTANGLE.ok),
        "dxil_refused": get(&UNTANGLE.failed),
        "refusals": refusals,
        "dxil_delegated": get(&DELEGATE_DXIL.ok),
        "dxil_delegate_failed": get(&DELEGATE_DXIL.failed),
        "dxbc_delegated": get(&DELEGATE_DXBC.ok),
        "dxbc_delegate_failed": get(&DELEGATE_DXBC.failed),
        "shadow_ok": get(&SHADOW_DXIL.ok),
        "shadow_failed": get(&SHADOW_DXIL.failed),
        "shadow_failures": shadow_failures,
        "run_ms": {
            "untangle": ms(&UNTANGLE),
            "delegate_dxil": ms(&DELEGATE_DXIL),
            "delegate_dxbc": ms(&DELEGATE_DXBC),
            "shadow_dxil": ms(&SHADOW_DXIL),
        },
        "run_count": {
            "untangle": get(&UNTANGLE.timed),
            "delegate_dxil": get(&DELEGATE_DXIL.timed),
            "delegate_dxbc": get(&DELEGATE_DXBC.timed),
            "shadow_dxil": get(&SHADOW_DXIL.timed),
        },
        "shadow_paired": {
            "runs": get(&SHADOW_PAIRED.runs),
            "untangle_ms": ms_of(&SHADOW_PAIRED.untangle_nanos),
            "untangle_callbacks_ms": ms_of(&SHADOW_PAIRED.callback_nanos),
            "shadow_dxil_ms": ms_of(&SHADOW_PAIRED.shadow_nanos),
        },
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
