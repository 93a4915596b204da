//! LLVM 14 front end (cargo feature `llvm`): LLVM bitcode or text into our IR.
//!
//! We drive LLVM through its C API (`llvm-sys`) and walk the parsed module ourselves.
//! The `llvm-ir` crate was the first choice, but it drops the value of `half` constants
//! (its `Float::Half` carries no bits, and DXIL min-precision shaders use them), separates
//! defined from declared functions (losing module order), exposes no metadata (so a second
//! parse would be needed for `dx.*` metadata) and panics on some valid inputs. Walking the
//! C API directly fixes all four with one parse.
//!
//! Robustness: LLVM must never end the process. Every parse runs in a fresh context with
//! a diagnostic handler that collects messages (the default handler calls `exit(1)` on
//! errors), the module is verified before we walk it (we never walk IR LLVM considers
//! invalid), and a process-wide fatal-error handler turns `report_fatal_error` into an
//! unwind that is caught and reported as [`Error::Llvm`]. LLVM's reader still crashes on
//! some malformed bitcode, so untrusted input is first read in a forked child
//! ([`isolate`]); only input that child read without crashing is read in-process.

mod context;
mod convert;
mod isolate;
mod metadata;
mod types;

pub use context::Syntax;

use super::error::{Error, Result};
use crate::ir::Module;

/// Parse LLVM bitcode or text and convert it into our IR. The input is untrusted: it is
/// read in a forked child first (on Unix), so a crash inside LLVM is a typed error.
pub fn parse(bytes: &[u8], syntax: Syntax, name: &str) -> Result<Module> {
    let _llvm = isolate::LLVM_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    #[cfg(unix)]
    match isolate::trial(|| parse_in_process(bytes, syntax, name).map(drop).map_err(|e| e.to_string()))? {
        isolate::Trial::Clean => {}
        isolate::Trial::Failed(message) => return Err(Error::Llvm(strip_prefix(&message))),
    }
    parse_in_process(bytes, syntax, name)
}

/// Parse input known to be well-formed (e.g. a benchmark's fixed corpus) without the
/// forked trial run. A malformed input can crash the process here.
pub fn parse_trusted(bytes: &[u8], syntax: Syntax, name: &str) -> Result<Module> {
    let _llvm = isolate::LLVM_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    parse_in_process(bytes, syntax, name)
}

/// The child's message is an [`Error`]'s display; keep its text, not a doubled prefix.
fn strip_prefix(message: &str) -> String {
    message.strip_prefix("LLVM: ").unwrap_or(message).to_string()
}

fn parse_in_process(bytes: &[u8], syntax: Syntax, name: &str) -> Result<Module> {
    context::install_fatal_error_handler();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let ctx = context::Context::new();
        let module = ctx.parse(bytes, syntax, name)?;
        convert::convert_module(module.raw(), name)
    }));
    match outcome {
        Ok(result) => result,
        Err(payload) => Err(Error::Llvm(context::panic_message(payload))),
    }
}
