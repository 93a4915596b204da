//! Front ends: every input kind read into our IR ([`crate::ir`]).
//!
//! | module | reads |
//! | --- | --- |
//! | [`detect`] | what kind of input a buffer is (container, bitcode, wrapped bitcode, LLVM text) |
//! | [`container`] | DXBC containers: the program, signatures, PSV0, RDAT subobjects, RTS0 bytes, ... |
//! | `bitcode` | LLVM 3.7-era bitcode as DXC writes it (native, no LLVM) |
//! | `lltext` | LLVM assembly text (native) |
//! | `llvm` | both, through LLVM 14 (feature `llvm`): the oracle the native readers are tested against |
//! | [`load`] | the entry points: detect once, read, keep what later stages ask of the container |
//!
//! The readers build the same module from the same input, bit for bit: the native ones end
//! with the intrinsic upgrades LLVM's readers apply and the renumbering of types and
//! constants in the LLVM reader's visiting order. Nothing after the front end knows which
//! reader ran. Every failure is an [`Error`]; no input panics.

pub(crate) mod bitcode;
pub mod container;
pub mod detect;
pub mod error;
pub(crate) mod lltext;
#[cfg(feature = "llvm")]
pub(crate) mod llvm;
pub mod load;

pub use bitcode::{BitcodeError, ErrorKind as BitcodeErrorKind};
pub use detect::InputKind;
pub use error::Error;
pub use lltext::LlTextError;
pub use load::*;
