//! untangle: DXIL to structured SPIR-V.
//!
//! Data flow: bytes → [`container`] → front end ([`bitcode`], native; [`llvm`], optional) → [`ir`] → [`dxil`] (meaning)
//! → [`cfg`] (analyses) → [`passes`] + [`phi`] (structurizer) → [`emit`] (SPIR-V).
//! See `docs/architecture.md` in the repository for the boundaries between modules.

pub mod bitcode;
pub mod cfg;
pub mod container;
pub mod dxil;
pub mod emit;
pub mod error;
pub mod info;
pub mod ir;
#[cfg(feature = "llvm")]
pub mod llvm;
pub mod load;
pub mod passes;
pub mod phi;
pub mod rootsig;

pub use error::{Error, Result};
