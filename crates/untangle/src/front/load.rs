//! Loading: any supported input into an IR module. The input's kind is detected once, a
//! container's chunk table is read once and kept with the module ([`Loaded::container`]
//! rebuilds the view from it without parsing again).
//!
//! DXBC container → its `DXIL` program's bitcode; raw bitcode (optionally inside the
//! bitcode wrapper header) → as is; LLVM text → the text parser. The native readers
//! (`bitcode`, `lltext`) read every input; [`FrontEnd::Llvm`] picks
//! LLVM 14 instead (feature `llvm`), for cross-checks. The library reads no environment:
//! the caller chooses the front end.

use super::bitcode;
use super::container::file::ChunkTable;
use super::container::Container;
use super::detect::{detect, unwrap_bitcode, InputKind};
use super::error::{Error, Result};
use super::lltext;
#[cfg(feature = "llvm")]
use super::llvm;
use crate::ir::Module;
use std::path::Path;

/// State a caller keeps from one parse to the next so that shaders read in a row share
/// work: the decoded `BLOCKINFO` blocks, which every DXC module carries and which are a
/// visible share of a small shader's translation (about 2%, BENCHMARKS.md), and the bitcode
/// reader's working buffers (`bitcode::ReadCache`). Owned by the caller, never global:
/// one per thread or per batch ([`load_for_translation_in`],
/// [`crate::Shader::parse_for_translation_in`], [`crate::translate_in`]). A context only
/// saves time: every result is the one a fresh context gives (a cached block is reused
/// only for identical bytes, a buffer only once emptied).
#[derive(Default)]
pub struct ParseContext {
    bitcode: bitcode::ReadCache,
}

impl ParseContext {
    pub fn new() -> ParseContext {
        ParseContext::default()
    }

    /// A context for a single parse, dropped after it: it does not store the `BLOCKINFO`
    /// block it decodes (a copy of the block's bytes and decoded state no later parse would
    /// read). Results are the same as with any context.
    pub(crate) fn one_shot() -> ParseContext {
        let mut cx = ParseContext::default();
        cx.bitcode.blockinfo.one_shot = true;
        cx
    }

    /// How many parses with this context reused a `BLOCKINFO` block decoded by an earlier
    /// one (for tests and measurements).
    pub fn blockinfo_reuses(&self) -> u64 {
        self.bitcode.blockinfo.hits
    }
}

impl std::fmt::Debug for ParseContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParseContext").finish_non_exhaustive()
    }
}

/// A loaded input: the bytes it came from, what they were, and the IR.
pub struct Loaded {
    pub name: String,
    pub input: InputKind,
    /// The input's bytes; empty when loaded for translation alone ([`load_for_translation`]).
    pub bytes: Vec<u8>,
    pub module: Module,
    /// A container's header and chunk table, read once at load (`None` for other inputs).
    table: Option<ChunkTable>,
}

impl Loaded {
    /// The DXBC container, for container inputs whose bytes were kept: a view rebuilt from
    /// the chunk table read at load, not a second parse.
    pub fn container(&self) -> Option<Container<'_>> {
        match &self.table {
            Some(t) if !self.bytes.is_empty() => Some(t.view(&self.bytes)),
            _ => None,
        }
    }

    /// Keeps `bytes` (the input this was loaded from) so that [`Loaded::container`] can
    /// read its chunks.
    pub fn keep_bytes(&mut self, bytes: Vec<u8>) {
        self.bytes = bytes;
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

/// What an input holds once its kind is known: the bitcode (with the container's chunk
/// table for a container) or the text.
enum Payload<'a> {
    Bitcode(&'a [u8], Option<ChunkTable>),
    Text(&'a [u8]),
}

/// Detects the input's kind (once) and finds its payload.
fn payload(bytes: &[u8]) -> Result<(InputKind, Payload<'_>)> {
    let input = detect(bytes);
    let payload = match input {
        InputKind::Container => {
            let c = Container::parse(bytes)?;
            Payload::Bitcode(c.dxil()?.bitcode, Some(c.table()))
        }
        InputKind::Bitcode => Payload::Bitcode(bytes, None),
        InputKind::BitcodeWrapper => Payload::Bitcode(unwrap_bitcode(bytes)?, None),
        InputKind::LlvmText => Payload::Text(bytes),
        InputKind::Unknown => {
            return Err(Error::UnknownFormat("not a DXBC container, LLVM bitcode or LLVM text file".to_string()))
        }
    };
    Ok((input, payload))
}

/// The bitcode inside an input, or `None` for text inputs.
pub fn bitcode_of(bytes: &[u8]) -> Result<Option<&[u8]>> {
    Ok(match payload(bytes)?.1 {
        Payload::Bitcode(bc, _) => Some(bc),
        Payload::Text(_) => None,
    })
}

/// Load from memory with the native readers. `name` is used in messages and as the
/// module's source name.
pub fn load_bytes(bytes: Vec<u8>, name: &str) -> Result<Loaded> {
    load_bytes_with(bytes, name, FrontEnd::Native)
}

/// Load a file with the native readers.
pub fn load_path(path: &Path) -> Result<Loaded> {
    load_path_with(path, FrontEnd::Native)
}

/// Load a file with the chosen front end.
pub fn load_path_with(path: &Path, front_end: FrontEnd) -> Result<Loaded> {
    let bytes = std::fs::read(path)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    load_bytes_with(bytes, &name, front_end)
}

/// Which front end reads bitcode and LLVM text.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum FrontEnd {
    /// The native readers (`bitcode`, `lltext`): the default, no LLVM, safe on any input.
    #[default]
    Native,
    /// LLVM 14 (feature `llvm`), each untrusted input first read in a forked child.
    Llvm,
    /// LLVM 14 in this process without the forked trial run: for input known to be
    /// well-formed (a benchmark's fixed corpus). A malformed input can crash the process.
    LlvmInProcess,
}

/// How the native bitcode reader numbers types and constants.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Numbering {
    /// The LLVM front end's visiting order, so that IR dumps match it.
    Canonical,
    /// The file's own order: translation observes no type or constant id, and skipping the
    /// renumbering saves about 6% of a translation.
    File,
}

/// Read bitcode (raw or wrapped) with the chosen front end.
pub fn parse_bitcode(bc: &[u8], name: &str, front_end: FrontEnd) -> Result<Module> {
    parse_bitcode_numbered(bc, name, front_end, Numbering::Canonical, &mut ParseContext::one_shot())
}

fn parse_bitcode_numbered(
    bc: &[u8],
    name: &str,
    front_end: FrontEnd,
    numbering: Numbering,
    cx: &mut ParseContext,
) -> Result<Module> {
    match (front_end, numbering) {
        (FrontEnd::Native, Numbering::Canonical) => Ok(bitcode::parse(bc, name)?),
        (FrontEnd::Native, Numbering::File) => Ok(bitcode::parse_for_translation(bc, name, &mut cx.bitcode)?),
        #[cfg(feature = "llvm")]
        (FrontEnd::Llvm, _) => llvm::parse(bc, llvm::Syntax::Bitcode, name),
        #[cfg(feature = "llvm")]
        (FrontEnd::LlvmInProcess, _) => llvm::parse_trusted(bc, llvm::Syntax::Bitcode, name),
        #[cfg(not(feature = "llvm"))]
        (FrontEnd::Llvm | FrontEnd::LlvmInProcess, _) => Err(Error::FrontEndMissing("bitcode (LLVM route)")),
    }
}

/// Read LLVM text with the chosen front end.
pub fn parse_text(bytes: &[u8], name: &str, front_end: FrontEnd) -> Result<Module> {
    let text = std::str::from_utf8(bytes).map_err(|e| Error::UnknownFormat(format!("LLVM text is not UTF-8: {e}")))?;
    match front_end {
        FrontEnd::Native => Ok(lltext::parse(text, name)?),
        #[cfg(feature = "llvm")]
        FrontEnd::Llvm => llvm::parse(text.as_bytes(), llvm::Syntax::Text, name),
        #[cfg(feature = "llvm")]
        FrontEnd::LlvmInProcess => llvm::parse_trusted(text.as_bytes(), llvm::Syntax::Text, name),
        #[cfg(not(feature = "llvm"))]
        FrontEnd::Llvm | FrontEnd::LlvmInProcess => Err(Error::FrontEndMissing("LLVM text (LLVM route)")),
    }
}

/// Load from memory with an explicit front end.
pub fn load_bytes_with(bytes: Vec<u8>, name: &str, front_end: FrontEnd) -> Result<Loaded> {
    let mut loaded = load_numbered(&bytes, name, front_end, Numbering::Canonical, &mut ParseContext::one_shot())?;
    loaded.bytes = bytes;
    Ok(loaded)
}

/// Load for translation: the module is read from `bytes` in place (the result's
/// [`Loaded::bytes`] is empty until [`Loaded::keep_bytes`]), and native bitcode keeps the
/// file's type and constant numbering, which translation does not observe.
pub fn load_for_translation(bytes: &[u8], name: &str, front_end: FrontEnd) -> Result<Loaded> {
    load_for_translation_in(&mut ParseContext::one_shot(), bytes, name, front_end)
}

/// [`load_for_translation`] with the caller's [`ParseContext`], which a run of inputs
/// shares.
pub fn load_for_translation_in(cx: &mut ParseContext, bytes: &[u8], name: &str, front_end: FrontEnd) -> Result<Loaded> {
    load_numbered(bytes, name, front_end, Numbering::File, cx)
}

fn load_numbered(
    bytes: &[u8],
    name: &str,
    front_end: FrontEnd,
    numbering: Numbering,
    cx: &mut ParseContext,
) -> Result<Loaded> {
    let (input, payload) = payload(bytes)?;
    let (module, table) = match payload {
        Payload::Bitcode(bc, table) => (parse_bitcode_numbered(bc, name, front_end, numbering, cx)?, table),
        Payload::Text(text) => (parse_text(text, name, front_end)?, None),
    };
    Ok(Loaded { name: name.to_string(), input, bytes: Vec::new(), module, table })
}
