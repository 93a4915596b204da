//! Typed errors of the native bitcode reader, with where they happened.
//!
//! Every failure carries the bit offset in the bitstream and, where known, the block id and
//! record code being read, so a malformed file can be located with `llvm-bcanalyzer -dump`.

use thiserror::Error;

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ErrorKind {
    #[error("not LLVM bitcode (bad magic)")]
    BadMagic,
    #[error("unexpected end of the bitstream")]
    UnexpectedEof,
    #[error("invalid abbreviation: {0}")]
    InvalidAbbrev(&'static str),
    #[error("abbreviation id {0} is not defined")]
    UnknownAbbrev(u64),
    #[error("blocks nested deeper than {0}")]
    TooDeep(usize),
    #[error("a count or length ({0}) exceeds what the rest of the input can hold")]
    Implausible(u64),
    #[error("malformed record: {0}")]
    Malformed(String),
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("no module block in the bitcode")]
    NoModule,
}

/// A bitcode reading error with its context.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("bitcode: {kind} (at bit {bit}{}{})", block.map(|b| format!(", block {b}")).unwrap_or_default(), code.map(|c| format!(", record code {c}")).unwrap_or_default())]
pub struct BitcodeError {
    pub kind: ErrorKind,
    /// Bit offset in the bitstream (from the `BC` magic) where reading stopped.
    pub bit: u64,
    /// Id of the block being read (8 module, 11 constants, 12 function, 15 metadata, 17 types ...).
    pub block: Option<u32>,
    /// Code of the record being read.
    pub code: Option<u32>,
}

impl BitcodeError {
    pub fn new(kind: ErrorKind, bit: u64) -> Self {
        BitcodeError { kind, bit, block: None, code: None }
    }
}

/// Shorthand for a malformed-record error kind.
#[cold]
pub(crate) fn malformed(msg: impl Into<String>) -> ErrorKind {
    ErrorKind::Malformed(msg.into())
}

/// Shorthand for an unsupported-feature error kind.
#[cold]
pub(crate) fn unsupported(msg: impl Into<String>) -> ErrorKind {
    ErrorKind::Unsupported(msg.into())
}
