//! What kind of input a byte buffer is, from its first bytes (and, for text, its lines).
//!
//! Facts: the DXBC magic (DXC `DxilContainer.h`, `DFCC_Container`); the LLVM bitcode
//! magic `BC C0 DE` and the bitcode wrapper header (`0x0B17C0DE`, then u32 version,
//! offset, size, CPU type) from LLVM's `BitcodeReader`/`BitCodeFormat` documentation.

use serde::Serialize;

use super::container::chunk::FourCc;
use super::container::error::{ContainerError, Location};
use super::container::reader::Reader;

/// Raw LLVM bitcode starts with these bytes (`'B' 'C' 0xC0DE`).
pub const BITCODE_MAGIC: [u8; 4] = [0x42, 0x43, 0xC0, 0xDE];
/// The bitcode wrapper header's magic, `0x0B17C0DE` little-endian.
pub const BITCODE_WRAPPER_MAGIC: [u8; 4] = [0xDE, 0xC0, 0x17, 0x0B];
/// Size of the wrapper header: magic, version, offset, size, CPU type.
pub const BITCODE_WRAPPER_SIZE: usize = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum InputKind {
    /// A DXBC container (`"DXBC"`).
    Container,
    /// Raw LLVM bitcode (`BC C0 DE`).
    Bitcode,
    /// LLVM bitcode behind a wrapper header (`0x0B17C0DE`); see [`unwrap_bitcode`].
    BitcodeWrapper,
    /// LLVM textual IR (`.ll`).
    LlvmText,
    Unknown,
}

pub fn detect(bytes: &[u8]) -> InputKind {
    if bytes.starts_with(&FourCc::DXBC.0) {
        InputKind::Container
    } else if bytes.starts_with(&BITCODE_MAGIC) {
        InputKind::Bitcode
    } else if bytes.starts_with(&BITCODE_WRAPPER_MAGIC) {
        InputKind::BitcodeWrapper
    } else if looks_like_llvm_text(bytes) {
        InputKind::LlvmText
    } else {
        InputKind::Unknown
    }
}

/// The bitcode inside a wrapper; raw bitcode is returned as is.
pub fn unwrap_bitcode(bytes: &[u8]) -> Result<&[u8], ContainerError> {
    if bytes.starts_with(&BITCODE_MAGIC) {
        return Ok(bytes);
    }
    let mut r = Reader::new(bytes, 0, None);
    let magic = r.fourcc("bitcode wrapper")?;
    if magic.0 != BITCODE_WRAPPER_MAGIC {
        return Err(ContainerError::BadMagic {
            at: Location::new(0, None),
            what: "bitcode wrapper",
            expected: FourCc(BITCODE_WRAPPER_MAGIC),
            found: magic,
        });
    }
    let _version = r.u32("bitcode wrapper version")?;
    let offset = r.u32("bitcode wrapper offset")?;
    let size = r.u32("bitcode wrapper size")?;
    let _cpu_type = r.u32("bitcode wrapper CPU type")?;
    if (offset as usize) < BITCODE_WRAPPER_SIZE {
        return Err(r.invalid(
            12,
            "bitcode wrapper offset",
            "at least 20 (past the wrapper header)",
            u64::from(offset),
        ));
    }
    let inner = r.slice_at(u64::from(offset), u64::from(size), "wrapped bitcode")?;
    if !inner.starts_with(&BITCODE_MAGIC) {
        let mut found = [0u8; 4];
        let n = inner.len().min(4);
        found[..n].copy_from_slice(&inner[..n]);
        return Err(ContainerError::BadMagic {
            at: Location::new(offset as usize, None),
            what: "wrapped bitcode",
            expected: FourCc(BITCODE_MAGIC),
            found: FourCc(found),
        });
    }
    Ok(inner)
}

/// Lines that only LLVM assembly starts with (after leading whitespace).
const LINE_PREFIXES: &[&str] =
    &["; ModuleID", "target datalayout", "target triple", "source_filename", "define ", "declare ", "attributes #"];

/// A heuristic: UTF-8 text, no NUL bytes, and at least one line that reads like LLVM
/// assembly (module header, function, named type `%x = type`, global `@g = `, or
/// metadata `!0 = ` / `!llvm.x = `).
pub fn looks_like_llvm_text(bytes: &[u8]) -> bool {
    if bytes.contains(&0) {
        return false;
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines().map(str::trim_start).any(|line| {
        LINE_PREFIXES.iter().any(|p| line.starts_with(p))
            || (line.starts_with('%') && line.contains(" = type "))
            || (line.starts_with('@') && is_assignment(&line[1..]))
            || (line.starts_with('!') && is_assignment(&line[1..]))
    })
}

/// `name = ...` where the name is an LLVM identifier (or number) and nothing but a space
/// separates it from the `=`.
fn is_assignment(rest: &str) -> bool {
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$' | '-' | '"')))
        .unwrap_or(rest.len());
    name_len > 0 && rest[name_len..].starts_with(" = ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrapper(offset: u32, size: u32, inner: &[u8]) -> Vec<u8> {
        let mut out = BITCODE_WRAPPER_MAGIC.to_vec();
        for v in [0, offset, size, 0] {
            out.extend_from_slice(&u32::to_le_bytes(v));
        }
        out.extend_from_slice(inner);
        out
    }

    #[test]
    fn detects_binary_kinds() {
        assert_eq!(detect(b"DXBC\0\0"), InputKind::Container);
        assert_eq!(detect(b"BC\xc0\xde\x35\x14"), InputKind::Bitcode);
        assert_eq!(detect(&wrapper(20, 4, &BITCODE_MAGIC)), InputKind::BitcodeWrapper);
        assert_eq!(detect(b""), InputKind::Unknown);
        assert_eq!(detect(b"\x7fELF"), InputKind::Unknown);
    }

    #[test]
    fn detects_llvm_text() {
        assert_eq!(detect(b"; ModuleID = 'x'\n"), InputKind::LlvmText);
        assert_eq!(detect(b"target datalayout = \"e-m:e\"\n"), InputKind::LlvmText);
        assert_eq!(detect(b"\xef\xbb\xbf  define void @main() {\n}\n"), InputKind::LlvmText);
        assert_eq!(detect(b"%dx.types.Handle = type { i8* }\n"), InputKind::LlvmText);
        assert_eq!(detect(b"@g = global i32 0\n"), InputKind::LlvmText);
        assert_eq!(detect(b"!llvm.ident = !{!0}\n"), InputKind::LlvmText);
        assert_eq!(detect(b"!0 = !{i32 1}\n"), InputKind::LlvmText);
        assert_eq!(detect(b"hello world\n"), InputKind::Unknown);
        assert_eq!(detect(b"! not an assignment"), InputKind::Unknown);
        assert_eq!(detect(b"define \0"), InputKind::Unknown);
        assert_eq!(detect(b"define \xff"), InputKind::Unknown);
    }

    #[test]
    fn unwraps_bitcode() {
        let inner = b"BC\xc0\xde\x01\x02";
        let bytes = wrapper(20, 6, inner);
        assert_eq!(unwrap_bitcode(&bytes).unwrap(), inner);
        assert_eq!(unwrap_bitcode(inner).unwrap(), inner);
    }

    #[test]
    fn rejects_bad_wrappers() {
        let inner = b"BC\xc0\xde";
        assert!(matches!(unwrap_bitcode(&wrapper(20, 5, inner)), Err(ContainerError::OutOfRange { .. })));
        assert!(matches!(unwrap_bitcode(&wrapper(u32::MAX, u32::MAX, inner)), Err(ContainerError::OutOfRange { .. })));
        assert!(matches!(unwrap_bitcode(&wrapper(4, 4, inner)), Err(ContainerError::InvalidValue { .. })));
        assert!(matches!(unwrap_bitcode(&wrapper(20, 4, b"XXXX")), Err(ContainerError::BadMagic { .. })));
        assert!(matches!(unwrap_bitcode(&wrapper(20, 0, b"")), Err(ContainerError::BadMagic { .. })));
        assert!(matches!(unwrap_bitcode(&BITCODE_WRAPPER_MAGIC), Err(ContainerError::Truncated { .. })));
        assert!(matches!(unwrap_bitcode(b"DXBC"), Err(ContainerError::BadMagic { .. })));
        assert!(matches!(unwrap_bitcode(b"DX"), Err(ContainerError::Truncated { .. })));
    }
}
