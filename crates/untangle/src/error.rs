//! The crate's error: every failure on bad input is one of these, each wrapping the typed
//! error of the layer that failed; nothing panics, aborts or exits on user input.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    #[error("{0}")]
    Container(#[from] crate::front::container::ContainerError),
    /// The input is none of the formats we read.
    #[error("unrecognised input: {0}")]
    UnknownFormat(String),
    /// The LLVM front end was compiled out (feature `llvm`) but was asked for.
    #[error("{0} input needs the `llvm` cargo feature, which this build lacks")]
    FrontEndMissing(&'static str),
    /// The native bitcode reader rejected the input (with bit offset, block and record).
    #[error("{0}")]
    Bitcode(#[from] crate::front::BitcodeError),
    /// The native text reader rejected the input (with line and column).
    #[error("LLVM text: {0}")]
    LlText(#[from] crate::front::LlTextError),
    /// LLVM rejected the bitcode or text (its diagnostic, verbatim).
    #[error("LLVM: {0}")]
    Llvm(String),
    /// The module is well-formed LLVM but uses something our IR does not model.
    #[error("function `{function}`, block `{block}`: {message}")]
    Ir { function: String, block: String, message: String },
    /// The DXIL metadata or a `dx.op` call is malformed ([`crate::dxil::Error`] says where).
    #[error(transparent)]
    Dxil(#[from] crate::dxil::Error),
    #[error("{0}")]
    Cfg(#[from] crate::cfg::CfgError),
    /// The structurizer could not handle a function (irreducible CFG, or an internal error).
    #[error("{0}")]
    Structurize(#[from] crate::passes::StructurizeError),
    /// SPIR-V emission failed (`crate::emit`).
    #[error("{0}")]
    Emit(#[from] crate::emit::shape::EmitError),
    /// DXIL → SPIR-V translation failed (`crate::emit`). The errors of lower layers that
    /// translation carries (structurizer, root signature) arrive as their own variants.
    #[error("{0}")]
    Translate(crate::emit::Error),
    /// A malformed or invalid root signature (RTS0 part or HLSL string).
    #[error("{0}")]
    RootSig(#[from] crate::rootsig::RootSigError),
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
}

/// The front end's errors keep their own variants here, so that a caller matches one
/// enum whichever layer failed.
impl From<crate::front::Error> for Error {
    fn from(e: crate::front::Error) -> Self {
        use crate::front::Error as F;
        match e {
            F::Container(e) => Error::Container(e),
            F::UnknownFormat(s) => Error::UnknownFormat(s),
            F::FrontEndMissing(s) => Error::FrontEndMissing(s),
            F::Bitcode(e) => Error::Bitcode(e),
            F::LlText(e) => Error::LlText(e),
            F::Llvm(s) => Error::Llvm(s),
            F::Ir { function, block, message } => Error::Ir { function, block, message },
            F::Io(e) => Error::Io(e),
        }
    }
}

impl From<crate::emit::Error> for Error {
    fn from(e: crate::emit::Error) -> Error {
        match e {
            crate::emit::Error::Structurize(e) => Error::Structurize(*e),
            crate::emit::Error::RootSig(e) => Error::RootSig(e),
            e => Error::Translate(e),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
