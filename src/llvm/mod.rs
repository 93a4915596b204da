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
//! unwind that [`parse`] catches and reports as [`Error::Llvm`]. A context that saw a fatal
//! error is leaked rather than disposed, since LLVM's state is unknown at that point.

mod context;
mod convert;
mod metadata;
mod types;

use crate::error::{Error, Result};
use crate::ir::Module;

/// What the bytes hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Syntax {
    Bitcode,
    Text,
}

/// Parse LLVM bitcode or text and convert it into our IR.
pub fn parse(bytes: &[u8], syntax: Syntax, name: &str) -> Result<Module> {
    context::install_fatal_error_handler();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let ctx = context::Context::new();
        let module = ctx.parse(bytes, syntax, name)?;
        let result = convert::convert_module(module.raw(), name);
        drop(module);
        ctx.dispose();
        result
    }));
    match outcome {
        Ok(result) => result,
        Err(payload) => Err(Error::Llvm(context::panic_message(payload))),
    }
}

pub fn parse_bitcode(bytes: &[u8], name: &str) -> Result<Module> {
    parse(bytes, Syntax::Bitcode, name)
}

pub fn parse_text(text: &str, name: &str) -> Result<Module> {
    parse(text.as_bytes(), Syntax::Text, name)
}
