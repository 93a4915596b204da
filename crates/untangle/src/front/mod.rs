//! Input detection and loading: any supported input into an IR module.
//!
//! DXBC container → its `DXIL` program's bitcode; raw bitcode (optionally inside the
//! bitcode wrapper header) → as is; LLVM text → the text parser. Both are read by the
//! native readers ([`crate::front::bitcode`], [`crate::front::lltext`]) unless `UNTANGLE_FRONTEND=llvm`
//! (or [`load_bytes_with`]) picks LLVM 14 (feature `llvm`), for cross-checks. A build
//! without the feature reads every input kind.

#[doc(hidden)]
pub mod bitcode;
pub mod container;
#[doc(hidden)]
pub mod lltext;
#[doc(hidden)]
#[cfg(feature = "llvm")]
pub mod llvm;

use crate::error::{Error, Result};
use crate::ir::Module;
use container::{Container, InputKind};
use std::path::Path;

/// A loaded input: the bytes it came from, what they were, and the IR.
pub struct Loaded {
    pub name: String,
    pub input: InputKind,
    pub bytes: Vec<u8>,
    pub module: Module,
}

impl Loaded {
    /// The DXBC container, for container inputs.
    pub fn container(&self) -> Option<Container<'_>> {
        match self.input {
            InputKind::Container => Container::parse(&self.bytes).ok(),
            _ => None,
        }
    }
}

/// What kind of input this is, by name for messages.
pub fn input_kind_name(k: InputKind) -> &'static str {
    match k {
        InputKind::Container => "DXBC container",
        InputKind::Bitcode => "LLVM bitcode",
        InputKind::BitcodeWrapper => "wrapped LLVM bitcode",
        InputKind::LlvmText => "LLVM text",
        InputKind::Unknown => "unknown",
    }
}

/// The bitcode inside an input, or `None` for text inputs.
pub fn bitcode_of(bytes: &[u8]) -> Result<Option<&[u8]>> {
    Ok(match container::detect(bytes) {
        InputKind::Container => Some(Container::parse(bytes)?.dxil()?.bitcode),
        InputKind::Bitcode => Some(bytes),
        InputKind::BitcodeWrapper => Some(container::unwrap_bitcode(bytes)?),
        InputKind::LlvmText => None,
        InputKind::Unknown => {
            return Err(Error::UnknownFormat("not a DXBC container, LLVM bitcode or LLVM text file".to_string()))
        }
    })
}

/// Load from memory. `name` is used in messages and as the module's source name.
pub fn load_bytes(bytes: Vec<u8>, name: &str) -> Result<Loaded> {
    load_bytes_with(bytes, name, default_front_end())
}

pub fn load_path(path: &Path) -> Result<Loaded> {
    let bytes = std::fs::read(path)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    load_bytes(bytes, &name)
}

/// Which front end reads bitcode and LLVM text.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrontEnd {
    /// The native readers ([`crate::front::bitcode`], [`crate::front::lltext`]): the default, no LLVM,
    /// safe on any input.
    Native,
    /// LLVM 14 (feature `llvm`), each untrusted input first read in a forked child.
    Llvm,
}

/// The front end: native, unless `UNTANGLE_FRONTEND=llvm` asks for the LLVM
/// route (for cross-checks and benchmarks; needs the `llvm` feature).
pub fn default_front_end() -> FrontEnd {
    match std::env::var("UNTANGLE_FRONTEND") {
        Ok(v) if v.eq_ignore_ascii_case("llvm") => FrontEnd::Llvm,
        _ => FrontEnd::Native,
    }
}

/// Read bitcode (raw or wrapped) with the chosen front end.
pub fn parse_bitcode(bc: &[u8], name: &str, front_end: FrontEnd) -> Result<Module> {
    match front_end {
        FrontEnd::Native => Ok(crate::front::bitcode::parse(bc, name)?),
        #[cfg(feature = "llvm")]
        FrontEnd::Llvm => crate::front::llvm::parse_bitcode(bc, name),
        #[cfg(not(feature = "llvm"))]
        FrontEnd::Llvm => Err(Error::FrontEndMissing("bitcode (LLVM route)")),
    }
}

/// Load from memory with an explicit front end.
pub fn load_bytes_with(bytes: Vec<u8>, name: &str, front_end: FrontEnd) -> Result<Loaded> {
    let mut loaded = load_borrowed(&bytes, name, front_end)?;
    loaded.bytes = bytes;
    Ok(loaded)
}

/// [`load_bytes_with`] without taking the input: the module is read from `bytes` in
/// place and the result's [`Loaded::bytes`] is empty (so [`Loaded::container`] is `None`).
/// For callers that need only the module, such as [`crate::translate`], which would
/// otherwise copy every input once.
pub(crate) fn load_borrowed(bytes: &[u8], name: &str, front_end: FrontEnd) -> Result<Loaded> {
    let input = container::detect(bytes);
    let module = parse_module(bytes, name, front_end)?;
    Ok(Loaded { name: name.to_string(), input, bytes: Vec::new(), module })
}

/// [`load_borrowed`] for [`crate::translate`] and [`crate::Shader::parse_for_translation`]:
/// native bitcode keeps the file's type and constant numbering, which translation does
/// not observe ([`crate::front::bitcode::parse_for_translation`]).
pub(crate) fn load_for_translation(bytes: &[u8], name: &str, front_end: FrontEnd) -> Result<Loaded> {
    // The container is read once (`parse_module` would read it again).
    let module = match bitcode_of(bytes)? {
        Some(bc) if front_end == FrontEnd::Native => crate::front::bitcode::parse_for_translation(bc, name)?,
        Some(bc) => parse_bitcode(bc, name, front_end)?,
        None => parse_text(bytes, name, front_end)?,
    };
    Ok(Loaded { name: name.to_string(), input: container::detect(bytes), bytes: Vec::new(), module })
}

fn parse_module(bytes: &[u8], name: &str, front_end: FrontEnd) -> Result<Module> {
    match bitcode_of(bytes)? {
        Some(bc) => parse_bitcode(bc, name, front_end),
        None => parse_text(bytes, name, front_end),
    }
}

/// Read LLVM text with the chosen front end.
pub fn parse_text(bytes: &[u8], name: &str, front_end: FrontEnd) -> Result<Module> {
    let text = std::str::from_utf8(bytes).map_err(|e| Error::UnknownFormat(format!("LLVM text is not UTF-8: {e}")))?;
    match front_end {
        FrontEnd::Native => Ok(crate::front::lltext::parse(text, name)?),
        #[cfg(feature = "llvm")]
        FrontEnd::Llvm => crate::front::llvm::parse_text(text, name),
        #[cfg(not(feature = "llvm"))]
        FrontEnd::Llvm => Err(Error::FrontEndMissing("LLVM text (LLVM route)")),
    }
}
