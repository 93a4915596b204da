//! The crate's typed errors. Every failure on bad input is one of these; nothing panics,
//! aborts or exits on user input.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    #[error("{0}")]
    Container(#[from] crate::front::container::ContainerError),
    /// The input is none of the formats we read.
    #[error("unrecognised input: {0}")]
    UnknownFormat(String),
    /// The front end was compiled out (`--no-default-features`) but the input needs it.
    #[error("{0} input needs the `llvm` cargo feature, which this build lacks")]
    FrontEndMissing(&'static str),
    /// The native bitcode reader rejected the input (with bit offset, block and record).
    #[error("{0}")]
    Bitcode(#[from] crate::front::bitcode::BitcodeError),
    /// The native text reader (`lltext`) rejected the input (with line and column).
    #[error("LLVM text: {0}")]
    LlText(#[from] crate::front::lltext::LlTextError),
    /// LLVM rejected the bitcode or text (its diagnostic, verbatim).
    #[error("LLVM: {0}")]
    Llvm(String),
    /// The module is well-formed LLVM but uses something our IR does not model.
    #[error("function `{function}`, block `{block}`: {message}")]
    Ir { function: String, block: String, message: String },
    /// The DXIL metadata or a `dx.op` call is malformed.
    #[error("DXIL: {0}")]
    Dxil(String),
    #[error("{0}")]
    Cfg(#[from] crate::cfg::CfgError),
    /// The structurizer could not handle a function (irreducible CFG, or an internal error).
    #[error("{0}")]
    Structurize(#[from] crate::passes::StructurizeError),
    /// SPIR-V emission failed (`crate::emit`).
    #[error("{0}")]
    Emit(#[from] crate::emit::shape::EmitError),
    /// DXIL → SPIR-V translation failed (`crate::emit::translate`).
    #[error("{0}")]
    Translate(#[from] crate::emit::TranslateError),
    /// A malformed or invalid root signature (RTS0 part or HLSL string).
    #[error("{0}")]
    RootSig(#[from] crate::rootsig::RootSigError),
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
