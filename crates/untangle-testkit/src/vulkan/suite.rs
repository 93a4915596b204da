//! Running batch trace cases ([`crate::check::gpu_trace::TraceCase`]) on a [`Gpu`]: one
//! dispatch per case (one invocation per decision stream), the trace buffer compared with
//! the original CFG's traces. [`run_suite`] builds cases on CPU threads while the calling
//! thread feeds the GPU.

use super::{Binding, Dispatch, Gpu, Resource, VkError};
use crate::check::gpu_trace::{SliceMismatch, TraceCase};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Why a case failed.
#[derive(Debug, thiserror::Error)]
pub enum CaseFailure {
    /// The case could not be built (structurizer or emitter error, unreadable input).
    #[error("{name}: could not build the case: {message}")]
    Build { name: String, message: String },
    #[error("{0}")]
    Mismatch(Box<SliceMismatch>),
    #[error("{name}: {error}")]
    Gpu { name: String, error: VkError },
}

impl CaseFailure {
    pub fn is_hang(&self) -> bool {
        matches!(self, CaseFailure::Gpu { error: VkError::Timeout { .. }, .. })
    }
}

/// Dispatches `case` and compares the trace buffer; returns the time from submission to
/// the fence.
pub fn run_case(gpu: &mut Gpu, case: &TraceCase, timeout: Duration) -> Result<Duration, CaseFailure> {
    // A zero-length buffer cannot be bound; one zero word reads like none (stride 0).
    let decisions = if case.decisions.is_empty() { vec![0] } else { case.decisions.clone() };
    let trace = vec![0u32; case.expected.len().max(1)];
    let dispatch = Dispatch {
        spirv: &case.words,
        entry: &case.entry,
        bindings: vec![Binding::new(0, 0, Resource::words(&decisions)), Binding::new(0, 1, Resource::words(&trace))],
        groups: [case.groups().max(1), 1, 1],
        timeout,
        ..Default::default()
    };
    let gpu_err = |error| CaseFailure::Gpu { name: case.name.clone(), error };
    let result = gpu.dispatch(&dispatch).map_err(gpu_err)?;
    let got = result.words(1).unwrap_or_default();
    let got = if case.expected.is_empty() { Vec::new() } else { got };
    case.compare(&got).map_err(CaseFailure::Mismatch)?;
    Ok(result.gpu_wall)
}

/// Totals of a suite run.
#[derive(Clone, Debug, Default)]
pub struct SuiteStats {
    pub cases: usize,
    pub passed: usize,
    pub failed: usize,
    pub hangs: usize,
    /// Decision streams run (invocations of passed and failed cases).
    pub streams: u64,
    pub gpu_time: Duration,
    pub wall: Duration,
}

impl std::fmt::Display for SuiteStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} cases, {} streams: {} passed, {} failed ({} hangs); submit-to-fence {:.2?}, wall {:.2?}",
            self.cases, self.streams, self.passed, self.failed, self.hangs, self.gpu_time, self.wall
        )
    }
}

/// How [`run_suite`] runs.
#[derive(Clone, Copy, Debug)]
pub struct SuiteConfig {
    /// CPU threads building cases.
    pub threads: usize,
    /// Per-dispatch time limit.
    pub timeout: Duration,
    /// Print a progress line to stderr every this many cases (0: never).
    pub progress_every: usize,
}

/// Builds cases `0..count` with `build` on CPU threads and runs each, as it becomes ready,
/// on whichever of `gpus` is free (one thread per device instance: pipeline compilation is
/// the bottleneck). `on_failure` sees every failure. After a hang or a lost device that
/// instance stops and leaves the remaining cases to the others; cases no instance ran
/// count as failed.
pub fn run_suite<B, F>(gpus: &mut [Gpu], count: usize, config: SuiteConfig, build: B, on_failure: F) -> SuiteStats
where
    B: Fn(usize) -> Result<TraceCase, CaseFailure> + Sync,
    F: FnMut(&CaseFailure) + Send,
{
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let threads = config.threads.max(1);
    let on_failure = std::sync::Mutex::new(on_failure);
    let mut total = SuiteStats { cases: count, ..SuiteStats::default() };
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<TraceCase, CaseFailure>>(threads * 4);
    let rx = std::sync::Mutex::new(rx);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (tx, next, build) = (tx.clone(), &next, &build);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count || tx.send(build(i)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let workers: Vec<_> = gpus
            .iter_mut()
            .map(|gpu| {
                let (rx, on_failure, done) = (&rx, &on_failure, &done);
                scope.spawn(move || {
                    let mut stats = SuiteStats::default();
                    let mut dead = false;
                    let next_case = || rx.lock().ok().and_then(|r| r.recv().ok());
                    while let Some(built) = next_case() {
                        let outcome = match built {
                            Err(e) => Err(e),
                            Ok(case) => {
                                stats.streams += case.invocations as u64;
                                run_case(gpu, &case, config.timeout).map(|t| stats.gpu_time += t)
                            }
                        };
                        match outcome {
                            Ok(()) => stats.passed += 1,
                            Err(e) => {
                                stats.failed += 1;
                                stats.hangs += usize::from(e.is_hang());
                                if matches!(
                                    e,
                                    CaseFailure::Gpu {
                                        error: VkError::Timeout { .. } | VkError::DeviceLost { .. } | VkError::Poisoned,
                                        ..
                                    }
                                ) {
                                    dead = true;
                                }
                                if let Ok(mut f) = on_failure.lock() {
                                    f(&e);
                                }
                            }
                        }
                        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                        if config.progress_every > 0 && n % config.progress_every == 0 {
                            eprintln!("  {n}/{count} cases, {:.1?}", start.elapsed());
                        }
                        if dead {
                            // Leave the remaining cases to the instances still alive.
                            break;
                        }
                    }
                    stats
                })
            })
            .collect();
        for w in workers {
            if let Ok(s) = w.join() {
                total.passed += s.passed;
                total.hangs += s.hangs;
                total.streams += s.streams;
                total.gpu_time += s.gpu_time;
            }
        }
        // Every instance died: drain what the builders still make (they stop once the
        // channel is empty and closed); those cases count as failed below.
        if let Ok(rx) = rx.lock() {
            while rx.recv().is_ok() {}
        }
    });
    // Cases nobody ran (every instance died) are failures too.
    total.failed = count - total.passed.min(count);
    total.wall = start.elapsed();
    total
}
