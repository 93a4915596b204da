//! The `DXIL` (and debug `ILDB`) chunk: program header and the LLVM bitcode it wraps.
//!
//! Layout (DXC `DxilContainer.h`: `DxilProgramHeader`, `DxilBitcodeHeader`,
//! `GetVersionShaderType`/`GetVersionMajor`/`GetVersionMinor`; `DxilConstants.h`:
//! `DXIL::ShaderKind`, `MakeDxilVersion`), all little-endian:
//!
//! ```text
//! 0   u32 program version: shader kind in bits 16..32, major in 4..8, minor in 0..4
//! 4   u32 size of the program in dwords, this header included
//! 8   "DXIL"
//! 12  u32 DXIL version: major in bits 8..16, minor in 0..8
//! 16  u32 bitcode offset, counted from the "DXIL" magic (offset 8)
//! 20  u32 bitcode size
//! ```
//!
//! The bitcode must lie inside the program's declared size, which must lie inside the
//! chunk (DXC's `IsValidDxilProgramHeader` checks the same, except against the chunk).

use serde::Serialize;

use super::chunk::{Chunk, FourCc};
use super::error::ContainerError;
use super::reader::Reader;

/// Size of `DxilProgramHeader`.
pub const PROGRAM_HEADER_SIZE: usize = 24;
/// Size of `DxilBitcodeHeader`, the part the bitcode offset counts from.
const BITCODE_HEADER_SIZE: u64 = 16;
/// Offset of `DxilBitcodeHeader` inside the program header.
const BITCODE_HEADER_AT: u64 = 8;

/// `DXIL::ShaderKind`: the stage a program was compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ShaderKind {
    Pixel,
    Vertex,
    Geometry,
    Hull,
    Domain,
    Compute,
    Library,
    RayGeneration,
    Intersection,
    AnyHit,
    ClosestHit,
    Miss,
    Callable,
    Mesh,
    Amplification,
    Node,
    /// DXC's own `Invalid` (16) and any value past it.
    Invalid,
}

impl ShaderKind {
    /// DXC's stages in its numbering (`Invalid` aside).
    pub(crate) const ALL: [ShaderKind; 16] = [
        ShaderKind::Pixel,
        ShaderKind::Vertex,
        ShaderKind::Geometry,
        ShaderKind::Hull,
        ShaderKind::Domain,
        ShaderKind::Compute,
        ShaderKind::Library,
        ShaderKind::RayGeneration,
        ShaderKind::Intersection,
        ShaderKind::AnyHit,
        ShaderKind::ClosestHit,
        ShaderKind::Miss,
        ShaderKind::Callable,
        ShaderKind::Mesh,
        ShaderKind::Amplification,
        ShaderKind::Node,
    ];

    /// Maps DXC's numbering; unknown values become `Invalid` (keep the raw value if it matters).
    pub fn from_raw(raw: u32) -> Self {
        ShaderKind::ALL.get(raw as usize).copied().unwrap_or(ShaderKind::Invalid)
    }

    pub fn to_raw(self) -> u32 {
        ShaderKind::ALL.iter().position(|&k| k == self).map_or(16, |i| i as u32)
    }

    /// The six ray-tracing stages (DXC's 7 to 12, `RayGeneration` to `Callable`), compiled
    /// into libraries.
    pub fn ray_tracing() -> &'static [ShaderKind] {
        &ShaderKind::ALL[7..13]
    }

    /// Whether this is one of the six ray-tracing stages.
    pub fn is_ray_tracing(self) -> bool {
        ShaderKind::ray_tracing().contains(&self)
    }

    /// The target-profile prefix (`ps` in `ps_6_0`), if the kind has its own profile.
    /// Ray tracing and node shaders are compiled as libraries (`lib_6_x`).
    pub fn profile_prefix(self) -> Option<&'static str> {
        Some(match self {
            ShaderKind::Pixel => "ps",
            ShaderKind::Vertex => "vs",
            ShaderKind::Geometry => "gs",
            ShaderKind::Hull => "hs",
            ShaderKind::Domain => "ds",
            ShaderKind::Compute => "cs",
            ShaderKind::Mesh => "ms",
            ShaderKind::Amplification => "as",
            ShaderKind::Library => "lib",
            _ => return None,
        })
    }
}

/// The program header of a `DXIL` or `ILDB` chunk, and its bitcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Program<'a> {
    /// `DXIL`, or `ILDB` when only the debug program was present.
    pub fourcc: FourCc,
    pub shader_kind: ShaderKind,
    /// Shader model major and minor (the `6` and `0` of `ps_6_0`).
    pub major: u8,
    pub minor: u8,
    /// The raw program version word.
    pub program_version: u32,
    pub size_in_dwords: u32,
    pub dxil_major: u8,
    pub dxil_minor: u8,
    /// The raw DXIL version word.
    pub dxil_version: u32,
    /// Offset of the bitcode from the "DXIL" magic.
    pub bitcode_offset: u32,
    pub bitcode_size: u32,
    /// The LLVM bitcode (normally starting `BC\xC0\xDE`; not checked here).
    #[serde(skip)]
    pub bitcode: &'a [u8],
}

impl<'a> Program<'a> {
    pub fn parse(chunk: &Chunk<'a>) -> Result<Self, ContainerError> {
        let mut r = Reader::of(chunk);
        if chunk.data.len() < PROGRAM_HEADER_SIZE {
            return Err(ContainerError::Truncated {
                at: r.here(),
                what: "program header",
                needed: PROGRAM_HEADER_SIZE as u64,
                available: chunk.data.len() as u64,
            });
        }
        let program_version = r.u32("program version")?;
        let size_in_dwords = r.u32("program size")?;
        let magic = r.fourcc("program")?;
        if magic != FourCc::DXIL {
            return Err(ContainerError::BadMagic {
                at: r.at(8),
                what: "program",
                expected: FourCc::DXIL,
                found: magic,
            });
        }
        let dxil_version = r.u32("DXIL version")?;
        let bitcode_offset = r.u32("bitcode offset")?;
        let bitcode_size = r.u32("bitcode size")?;

        let program_len = u64::from(size_in_dwords) * 4;
        if program_len > chunk.data.len() as u64 {
            return Err(ContainerError::OutOfRange {
                at: r.at(4),
                what: "program (size in dwords)",
                start: 0,
                len: program_len,
                limit: chunk.data.len() as u64,
            });
        }
        if bitcode_offset < BITCODE_HEADER_SIZE as u32 {
            // The bitcode cannot start inside the header that locates it.
            return Err(ContainerError::InvalidValue {
                at: r.at(16),
                what: "bitcode offset",
                expected: "at least 16 (past the bitcode header)",
                found: u64::from(bitcode_offset),
            });
        }
        if bitcode_size == 0 {
            return Err(ContainerError::InvalidValue {
                at: r.at(20),
                what: "bitcode size",
                expected: "non-zero",
                found: 0,
            });
        }
        let program = r.sub(0, program_len, "program")?;
        let bitcode_start = BITCODE_HEADER_AT + u64::from(bitcode_offset);
        let bitcode = program.slice_at(bitcode_start, u64::from(bitcode_size), "bitcode")?;

        Ok(Program {
            fourcc: chunk.fourcc,
            shader_kind: ShaderKind::from_raw(program_version >> 16),
            major: ((program_version >> 4) & 0xf) as u8,
            minor: (program_version & 0xf) as u8,
            program_version,
            size_in_dwords,
            dxil_major: ((dxil_version >> 8) & 0xff) as u8,
            dxil_minor: (dxil_version & 0xff) as u8,
            dxil_version,
            bitcode_offset,
            bitcode_size,
            bitcode,
        })
    }

    /// The raw shader-kind field (bits 16..32 of the program version).
    pub fn shader_kind_raw(&self) -> u16 {
        (self.program_version >> 16) as u16
    }

    /// `ps_6_0`-style profile name, where the kind has one.
    pub fn profile(&self) -> Option<String> {
        let prefix = self.shader_kind.profile_prefix()?;
        Some(format!("{prefix}_{}_{}", self.major, self.minor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn program_bytes(kind: u32, major: u32, minor: u32, bitcode: &[u8]) -> Vec<u8> {
        let padded = bitcode.len().div_ceil(4) * 4;
        let mut out = Vec::new();
        out.extend_from_slice(&((kind << 16) | (major << 4) | minor).to_le_bytes());
        out.extend_from_slice(&(((PROGRAM_HEADER_SIZE + padded) / 4) as u32).to_le_bytes());
        out.extend_from_slice(b"DXIL");
        out.extend_from_slice(&0x106u32.to_le_bytes());
        out.extend_from_slice(&16u32.to_le_bytes());
        out.extend_from_slice(&(bitcode.len() as u32).to_le_bytes());
        out.extend_from_slice(bitcode);
        out.resize(PROGRAM_HEADER_SIZE + padded, 0);
        out
    }

    fn chunk(data: &[u8]) -> Chunk<'_> {
        Chunk { fourcc: FourCc::DXIL, offset: 100, size: data.len() as u32, data }
    }

    fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
        bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }

    #[test]
    fn parses_program_header() {
        let bytes = program_bytes(5, 6, 6, b"BC\xc0\xde\x01");
        let p = Program::parse(&chunk(&bytes)).unwrap();
        assert_eq!(p.shader_kind, ShaderKind::Compute);
        assert_eq!((p.major, p.minor, p.dxil_major, p.dxil_minor), (6, 6, 1, 6));
        assert_eq!(p.bitcode, b"BC\xc0\xde\x01");
        assert_eq!(p.size_in_dwords, 8);
        assert_eq!(p.profile().as_deref(), Some("cs_6_6"));
        assert_eq!(p.shader_kind_raw(), 5);
    }

    #[test]
    fn shader_kind_numbering() {
        assert_eq!(ShaderKind::from_raw(0), ShaderKind::Pixel);
        assert_eq!(ShaderKind::from_raw(13), ShaderKind::Mesh);
        assert_eq!(ShaderKind::from_raw(14), ShaderKind::Amplification);
        assert_eq!(ShaderKind::from_raw(15), ShaderKind::Node);
        assert_eq!(ShaderKind::from_raw(16), ShaderKind::Invalid);
        assert_eq!(ShaderKind::from_raw(0xffff), ShaderKind::Invalid);
        for raw in 0..17 {
            assert_eq!(ShaderKind::from_raw(raw).to_raw(), raw);
        }
    }

    #[test]
    fn rejects_malformed_headers() {
        let good = program_bytes(0, 6, 0, b"BC\xc0\xde");
        let err = Program::parse(&chunk(&good[..23])).unwrap_err();
        assert!(matches!(err, ContainerError::Truncated { needed: 24, available: 23, .. }), "{err}");
        assert_eq!(err.offset(), Some(108));

        let mut bad = good.clone();
        bad[8] = b'X';
        let err = Program::parse(&chunk(&bad)).unwrap_err();
        assert!(matches!(err, ContainerError::BadMagic { .. }));
        assert_eq!(err.offset(), Some(116));

        let mut bad = good.clone();
        put_u32(&mut bad, 4, 100);
        assert!(matches!(Program::parse(&chunk(&bad)), Err(ContainerError::OutOfRange { .. })));

        let mut bad = good.clone();
        put_u32(&mut bad, 20, 5);
        assert!(matches!(Program::parse(&chunk(&bad)), Err(ContainerError::OutOfRange { .. })));

        let mut bad = good.clone();
        put_u32(&mut bad, 16, u32::MAX);
        assert!(matches!(Program::parse(&chunk(&bad)), Err(ContainerError::OutOfRange { .. })));

        let mut bad = good.clone();
        put_u32(&mut bad, 16, 4);
        assert!(matches!(Program::parse(&chunk(&bad)), Err(ContainerError::InvalidValue { .. })));

        let mut bad = good;
        put_u32(&mut bad, 20, 0);
        assert!(matches!(Program::parse(&chunk(&bad)), Err(ContainerError::InvalidValue { .. })));
    }
}
