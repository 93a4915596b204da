//! Typed failures of the root-signature readers ([`super::binary`], [`super::text`]) and
//! of [`super::validate`](mod@super::validate).
//!
//! Binary errors carry the byte offset (from the start of the RTS0 part) and the element
//! being read ("parameter 3 range 1: range type"); string errors carry the 1-based line and
//! column and the offending token; validation errors name the rule broken
//! ([`Rule`]) and the element, so tests and callers can match on the rule rather than on
//! message text. The rules themselves are documented in [`super::validate`](mod@super::validate).

use std::fmt;

use crate::front::container::ContainerError;

/// A validation rule of D3D12 (see [`super::validate`](mod@super::validate) for the sources of each).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Rule {
    /// The root arguments need more than 64 DWORDs.
    RootCost,
    /// Two bindings of one register class and space, visible to a common stage, share a
    /// register.
    RegisterOverlap,
    /// `base_register + count - 1` does not fit in 32 bits.
    RegisterOverflow,
    /// A range's last descriptor offset (`offset + count - 1`) does not fit in 32 bits.
    OffsetOverflow,
    /// A table mixes sampler ranges with CBV/SRV/UAV ranges.
    SamplersMixed,
    /// A descriptor range with `NumDescriptors = 0`.
    ZeroCount,
    /// An appended range after an unbounded one (its start is undefined).
    AppendAfterUnbounded,
    /// Flags given where the version has none (1.0 range/descriptor flags, sampler flags
    /// below 1.2, comparison `NONE` below 1.2).
    FlagsNotInVersion,
    /// A flag bit that the flag kind does not define.
    UnknownFlag,
    /// A flag combination D3D12 rejects.
    FlagCombination,
    /// An enumeration value D3D12 does not define (filter).
    BadEnum,
    /// A root CBV/SRV/UAV whose class is `Sampler`.
    SamplerRootDescriptor,
    /// A static sampler field out of D3D12's range (anisotropy, LOD bias, LODs).
    SamplerField,
    /// A register space in the range `0xFFFFFFF0..` that D3D12 reserves for the system.
    ReservedSpace,
}

/// Where a string error was found: 1-based line and column (in characters).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TextPos {
    pub line: u32,
    pub column: u32,
}

impl fmt::Display for TextPos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// The kind of a string syntax error, for callers and tests that match on it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum SyntaxKind {
    /// A character sequence that is no token (a bad number, `0x10`, a stray character).
    BadToken,
    /// A token that cannot stand here (unknown element or argument, missing `,`).
    Unexpected,
    /// The text ended inside an element.
    UnexpectedEnd,
    /// A required argument (register, `num32BitConstants`) is missing.
    Missing,
    /// An argument given twice in one clause.
    Duplicate,
    /// `RootFlags` given twice.
    DuplicateRootFlags,
    /// A register of the wrong class (`CBV(t0)`).
    WrongRegister,
    /// A numeric flag value other than `0`.
    NonZeroFlags,
    /// `flags` under root signature 1.0, or sampler `flags` below 1.2.
    FlagsNotInVersion,
    /// A number out of range for its argument.
    NumberRange,
    /// An unterminated `"` string piece.
    BadQuote,
}

/// A malformed or invalid root signature.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RootSigError {
    /// A structure does not fit in the RTS0 part.
    #[error("RTS0: byte {offset:#x}: truncated {what}: needs {needed} bytes, {available} available")]
    Truncated { offset: u64, what: String, needed: u64, available: u64 },
    /// An element count that cannot fit in the bytes that remain (checked before allocating).
    #[error("RTS0: byte {offset:#x}: {what}: count {count} needs {needed} bytes, {available} available")]
    CountTooLarge { offset: u64, what: String, count: u32, needed: u64, available: u64 },
    /// The header's version is not 1 (1.0), 2 (1.1) or 3 (1.2).
    #[error("RTS0: byte 0x0: unknown root signature version {0}")]
    BadVersion(u32),
    /// A field holds a value its enumeration does not define.
    #[error("RTS0: byte {offset:#x}: {what} {value}")]
    BadValue { offset: u64, what: String, value: u32 },
    /// The DXBC container around the part is malformed.
    #[error("{0}")]
    Container(#[from] ContainerError),
    /// The container has no `RTS0` part.
    #[error("RTS0: the container has no RTS0 part")]
    MissingPart,
    /// The HLSL root-signature string is malformed.
    #[error("root signature string {at}: {message} (at `{token}`)")]
    Syntax { at: TextPos, kind: SyntaxKind, token: String, message: String },
    /// The signature is well formed but D3D12 would reject it.
    #[error("root signature: {element}: {message}")]
    Invalid { rule: Rule, element: String, message: String },
}

impl RootSigError {
    /// The rule a validation error broke.
    pub fn rule(&self) -> Option<Rule> {
        match self {
            RootSigError::Invalid { rule, .. } => Some(*rule),
            _ => None,
        }
    }

    /// The kind of a string syntax error.
    pub fn syntax_kind(&self) -> Option<SyntaxKind> {
        match self {
            RootSigError::Syntax { kind, .. } => Some(*kind),
            _ => None,
        }
    }

    pub(crate) fn invalid(rule: Rule, element: impl Into<String>, message: impl Into<String>) -> RootSigError {
        RootSigError::Invalid { rule, element: element.into(), message: message.into() }
    }
}
