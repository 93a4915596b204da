//! Typed failures of the container reader.
//!
//! Every error says where it happened (absolute byte offset into the input and, once
//! inside a chunk, that chunk's fourcc) and what was expected against what was found,
//! so a report on a corrupt file can be acted on without a hex editor.

use std::fmt;

use super::chunk::FourCc;

/// Where in the input an error was detected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// Absolute byte offset from the start of the input.
    pub offset: usize,
    /// The chunk being read, if the error is inside one.
    pub chunk: Option<FourCc>,
}

impl Location {
    pub const fn new(offset: usize, chunk: Option<FourCc>) -> Self {
        Location { offset, chunk }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.chunk {
            Some(chunk) => write!(f, "chunk {chunk}, byte {:#x}", self.offset),
            None => write!(f, "byte {:#x}", self.offset),
        }
    }
}

/// A malformed or unsupported container, chunk or bitcode wrapper.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContainerError {
    /// Fewer bytes remain than a fixed-size structure needs.
    #[error("container: {at}: truncated {what}: needs {needed} bytes, {available} available")]
    Truncated { at: Location, what: &'static str, needed: u64, available: u64 },

    /// A magic number (file or chunk identifier) is wrong.
    #[error("container: {at}: bad {what} magic: expected {expected}, found {found}")]
    BadMagic { at: Location, what: &'static str, expected: FourCc, found: FourCc },

    /// A size field disagrees with the size it describes.
    #[error("container: {at}: {what} mismatch: expected {expected}, found {found}")]
    SizeMismatch { at: Location, what: &'static str, expected: u64, found: u64 },

    /// A region named by an offset and a length does not lie inside its parent.
    #[error("container: {at}: {what} [{start:#x}, {start:#x} + {len:#x}) is out of range (limit {limit:#x})")]
    OutOfRange { at: Location, what: &'static str, start: u64, len: u64, limit: u64 },

    /// Two chunks of the container share bytes.
    #[error(
        "container: chunk {second} at {second_offset:#x} overlaps chunk {first} at {first_offset:#x}..{first_end:#x}"
    )]
    Overlap { first: FourCc, first_offset: u64, first_end: u64, second: FourCc, second_offset: u64 },

    /// A count times its record size exceeds the bytes that are left.
    #[error("container: {at}: {what} count {count} needs {needed} bytes, only {available} remain")]
    CountTooLarge { at: Location, what: &'static str, count: u64, needed: u64, available: u64 },

    /// A string runs to the end of its table without a NUL.
    #[error("container: {at}: {what} is not NUL-terminated")]
    UnterminatedString { at: Location, what: &'static str },

    /// A string is not UTF-8 (names in these formats are ASCII).
    #[error("container: {at}: {what} is not valid UTF-8")]
    InvalidUtf8 { at: Location, what: &'static str },

    /// A field holds a value the format forbids.
    #[error("container: {at}: invalid {what}: expected {expected}, found {found:#x}")]
    InvalidValue { at: Location, what: &'static str, expected: &'static str, found: u64 },

    /// A version this reader does not understand.
    #[error("container: {at}: unsupported {what} {found} (supported: {supported})")]
    Unsupported { at: Location, what: &'static str, supported: &'static str, found: u64 },

    /// A chunk the caller asked for is absent.
    #[error("container: no {expected} chunk")]
    MissingChunk { expected: &'static str },
}

impl ContainerError {
    /// The location of the error, where it has one.
    pub fn location(&self) -> Option<Location> {
        match *self {
            ContainerError::Truncated { at, .. }
            | ContainerError::BadMagic { at, .. }
            | ContainerError::SizeMismatch { at, .. }
            | ContainerError::OutOfRange { at, .. }
            | ContainerError::CountTooLarge { at, .. }
            | ContainerError::UnterminatedString { at, .. }
            | ContainerError::InvalidUtf8 { at, .. }
            | ContainerError::InvalidValue { at, .. }
            | ContainerError::Unsupported { at, .. } => Some(at),
            ContainerError::Overlap { second_offset, second, .. } => {
                Some(Location::new(second_offset as usize, Some(second)))
            }
            ContainerError::MissingChunk { .. } => None,
        }
    }

    /// Absolute byte offset of the error, where it has one.
    pub fn offset(&self) -> Option<usize> {
        self.location().map(|at| at.offset)
    }

    /// The chunk the error is in, where it is in one.
    pub fn chunk(&self) -> Option<FourCc> {
        self.location().and_then(|at| at.chunk)
    }
}
