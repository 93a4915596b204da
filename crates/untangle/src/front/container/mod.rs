//! DXBC container reader: the file format DXC (and FXC before it) wraps shaders in.
//!
//! [`Container::parse`] checks the header and the chunk table and borrows every chunk
//! from the input; nothing is copied. Chunk contents are decoded on demand by the
//! accessors ([`Container::dxil`], [`Container::psv0`], …), each returning a typed
//! [`ContainerError`] on malformed data, so one bad optional chunk does not hide the
//! program. [`crate::front::detect`] classifies inputs that are not containers.
//!
//! Facts come from DXC's `include/dxc/DxilContainer/DxilContainer.h` and
//! `DxilPipelineStateValidation.h`, `include/dxc/DXIL/DxilConstants.h`, DXC's container
//! writer (`lib/DxilContainer/DxilContainerAssembler.cpp`), dxvk's `src/dxbc` readers for
//! the FXC-era signature chunks, and `../shared/corpus/README.md`; each file says which.
//! Every multi-byte field is little-endian.
//!
//! Untrusted input never panics here: offsets and sizes are checked with 64-bit or
//! checked arithmetic, and counts are checked against the bytes left before anything is
//! allocated for them.

#[macro_use]
pub(crate) mod open_enum;

pub mod chunk;
pub mod dxil_enums;
pub mod error;
pub mod file;
pub mod hash;
pub mod header;
pub mod program;
pub mod psv0;
pub mod rdat;
pub(in crate::front) mod reader;
pub mod sfi0;
pub mod signature;
pub mod summary;
pub mod vers;

pub use chunk::{Chunk, FourCc};
pub use error::{ContainerError, Location};
pub use file::Container;
pub use hash::ShaderHash;
pub use header::Header;
pub use program::{Program, ShaderKind};
pub use psv0::Psv0;
pub use sfi0::FeatureInfo;
pub use signature::{Signature, SignatureElement};
pub use summary::ContainerSummary;
pub use vers::{CompilerVersion, DebugName};
