//! Native LLVM text reader: LLVM 14 assembly (`.ll`) into [`crate::ir::Module`], no LLVM.
//!
//! The output is the module the LLVM front end (`crate::front::llvm`, feature `llvm`) builds from
//! the same text: same value numbering, same type, constant and metadata ids, same names
//! and alignments; `untangle-testkit`'s `tests/native_text.rs` checks IR dumps and
//! `info --json` over every `.ll` input the project has against it. Syntax from the LLVM
//! Language Reference (LLVM 14); semantics of what LLVM's reader does beyond the syntax
//! (constant folding, default alignments, intrinsic and debug-info upgrades, uniquing of
//! metadata) from LLVM's documentation of those behaviours. No code is taken from LLVM's
//! parser.
//!
//! Layers, one module each:
//! - [`lexer`]: bytes into tokens; [`parser`]: the token cursor, names, errors, nesting.
//! - [`types`]: types and type definitions; [`constants`]: constants and their folds;
//!   [`metadata`]: metadata nodes, named metadata and their conversion.
//! - [`instructions`]: one instruction; [`function`]: bodies, local names, forward
//!   references; [`module`]: the prescan, top-level entities, final checks and the
//!   canonical numbering shared with the native bitcode reader.
//! - [`error`]: [`LlTextError`], `line L, column C: message`.
//!
//! Guarantees: any input gives a module or an [`LlTextError`], never a panic; nesting is
//! bounded ([`parser::MAX_NESTING`]); time and memory are linear in the input (names are
//! looked up in hash maps, forward references resolved by one patch pass per function).
//! By design it does not run LLVM's verifier: it checks what parsing checks (types of
//! operands, definitions of every name, numbering) and what our IR relies on. Constructs
//! our IR cannot model (aliases, inline assembly, exception handling, `blockaddress`,
//! opaque pointers, some types) are errors naming the construct and its position.

pub mod body;
mod constants;
pub mod error;
pub mod function;
pub mod instructions;
pub mod lexer;
pub mod metadata;
pub mod module;
pub mod parser;
pub mod tables;
pub mod types;

pub use error::LlTextError;

use crate::ir::Module;

/// Parse LLVM text into an IR module named `name`.
pub fn parse(text: &str, name: &str) -> Result<Module, LlTextError> {
    let (toks, locals) = lexer::lex_counting_locals(text.as_bytes())?;
    let mut p = parser::Parser::new(text.as_bytes(), toks, locals, name);
    module::parse_module(&mut p)
}
