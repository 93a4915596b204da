//! Input detection and loading: any supported input into an IR module.
//!
//! DXBC container → its `DXIL` program's bitcode; raw bitcode (optionally inside the
//! bitcode wrapper header) → as is; LLVM text → the text parser. The bitcode and text
//! front end is LLVM 14 for now (feature `llvm`).

use crate::container::{self, Container, InputKind};
use crate::error::{Error, Result};
use crate::ir::Module;
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
            return Err(Error::UnknownFormat(
                "not a DXBC container, LLVM bitcode or LLVM text file".to_string(),
            ))
        }
    })
}

/// Load from memory. `name` is used in messages and as the module's source name.
pub fn load_bytes(bytes: Vec<u8>, name: &str) -> Result<Loaded> {
    let input = container::detect(&bytes);
    let module = parse_module(&bytes, name)?;
    Ok(Loaded { name: name.to_string(), input, bytes, module })
}

pub fn load_path(path: &Path) -> Result<Loaded> {
    let bytes = std::fs::read(path)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    load_bytes(bytes, &name)
}

#[cfg(feature = "llvm")]
fn parse_module(bytes: &[u8], name: &str) -> Result<Module> {
    match bitcode_of(bytes)? {
        Some(bc) => crate::llvm::parse_bitcode(bc, name),
        None => {
            let text = std::str::from_utf8(bytes).map_err(|e| Error::UnknownFormat(format!("LLVM text is not UTF-8: {e}")))?;
            crate::llvm::parse_text(text, name)
        }
    }
}

#[cfg(not(feature = "llvm"))]
fn parse_module(bytes: &[u8], _name: &str) -> Result<Module> {
    match bitcode_of(bytes)? {
        Some(_) => Err(Error::FrontEndMissing("bitcode")),
        None => Err(Error::FrontEndMissing("LLVM text")),
    }
}
