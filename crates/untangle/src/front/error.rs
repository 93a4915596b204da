//! Why an input could not be read into the IR: [`enum@Error`], one variant per reader.

use super::bitcode::BitcodeError;
use super::container::ContainerError;
use super::lltext::LlTextError;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// The DXBC container is malformed (offset and chunk say where).
    #[error("{0}")]
    Container(#[from] ContainerError),
    /// The input is none of the formats we read.
    #[error("unrecognised input: {0}")]
    UnknownFormat(String),
    /// The LLVM front end was compiled out (feature `llvm`) but was asked for.
    #[error("{0} input needs the `llvm` cargo feature, which this build lacks")]
    FrontEndMissing(&'static str),
    /// The native bitcode reader rejected the input (with bit offset, block and record).
    #[error("{0}")]
    Bitcode(#[from] BitcodeError),
    /// The native text reader rejected the input (with line and column).
    #[error("LLVM text: {0}")]
    LlText(#[from] LlTextError),
    /// LLVM rejected the bitcode or text (its diagnostic, verbatim; feature `llvm`).
    #[error("LLVM: {0}")]
    Llvm(String),
    /// The module is well-formed LLVM but uses something our IR does not model.
    #[error("function `{function}`, block `{block}`: {message}")]
    Ir { function: String, block: String, message: String },
    /// The input file could not be read.
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
