//! DXBC container reader: the file format DXC (and FXC before it) wraps shaders in.
//!
//! [`Container::parse`] checks the header and the chunk table and borrows every chunk
//! from the input; nothing is copied. Chunk contents are decoded on demand by the
//! accessors ([`Container::dxil`], [`Container::psv0`], …), each returning a typed
//! [`ContainerError`] on malformed data, so one bad optional chunk does not hide the
//! program. [`detect()`] and [`unwrap_bitcode`] classify inputs that are not containers.
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

pub mod detect;
pub mod error;
pub mod hash;
pub mod header;
pub mod program;
pub mod psv0;
pub mod rdat;
mod reader;
pub mod sfi0;
pub mod signature;
pub mod summary;
pub mod vers;

use std::fmt;

use serde::Serialize;

pub use detect::{detect, looks_like_llvm_text, unwrap_bitcode, InputKind};
pub use error::{ContainerError, Location};
pub use hash::ShaderHash;
pub use header::Header;
pub use program::{Program, ShaderKind};
pub use psv0::Psv0;
pub use sfi0::FeatureInfo;
pub use signature::{Signature, SignatureElement};
pub use summary::ContainerSummary;
pub use vers::{CompilerVersion, DebugName};

/// A chunk identifier: four ASCII bytes, in file order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FourCc(pub [u8; 4]);

impl FourCc {
    pub const DXBC: FourCc = FourCc(*b"DXBC");
    pub const DXIL: FourCc = FourCc(*b"DXIL");
    /// Debug DXIL: the program with debug info, when `DXIL` holds the stripped one.
    pub const ILDB: FourCc = FourCc(*b"ILDB");
    pub const ILDN: FourCc = FourCc(*b"ILDN");
    pub const SFI0: FourCc = FourCc(*b"SFI0");
    pub const HASH: FourCc = FourCc(*b"HASH");
    pub const ISG1: FourCc = FourCc(*b"ISG1");
    pub const OSG1: FourCc = FourCc(*b"OSG1");
    pub const PSG1: FourCc = FourCc(*b"PSG1");
    pub const ISGN: FourCc = FourCc(*b"ISGN");
    pub const OSGN: FourCc = FourCc(*b"OSGN");
    pub const OSG5: FourCc = FourCc(*b"OSG5");
    pub const PCSG: FourCc = FourCc(*b"PCSG");
    pub const PSV0: FourCc = FourCc(*b"PSV0");
    pub const RDAT: FourCc = FourCc(*b"RDAT");
    pub const RTS0: FourCc = FourCc(*b"RTS0");
    pub const VERS: FourCc = FourCc(*b"VERS");
    pub const STAT: FourCc = FourCc(*b"STAT");
    pub const PRIV: FourCc = FourCc(*b"PRIV");
    pub const SHEX: FourCc = FourCc(*b"SHEX");
    pub const SHDR: FourCc = FourCc(*b"SHDR");

    /// The value as DXC's `DXIL_FOURCC` macro builds it (first byte lowest).
    pub fn to_u32(self) -> u32 {
        u32::from_le_bytes(self.0)
    }

    pub fn from_u32(value: u32) -> Self {
        FourCc(value.to_le_bytes())
    }

    /// Whether all four bytes are printable ASCII.
    pub fn is_printable(self) -> bool {
        self.0.iter().all(|b| b.is_ascii_graphic() || *b == b' ')
    }
}

impl fmt::Display for FourCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_printable() {
            self.0.iter().try_for_each(|&b| write!(f, "{}", b as char))
        } else {
            write!(f, "{:#010x}", self.to_u32())
        }
    }
}

impl fmt::Debug for FourCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FourCc({self})")
    }
}

impl Serialize for FourCc {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One chunk ("part") of a container, borrowed from the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Chunk<'a> {
    pub fourcc: FourCc,
    /// Offset of the chunk header (fourcc, size) from the start of the container.
    pub offset: u32,
    /// Payload size in bytes.
    pub size: u32,
    #[serde(skip)]
    pub data: &'a [u8],
}

impl Chunk<'_> {
    /// Absolute offset of the payload.
    pub fn payload_offset(&self) -> usize {
        (self.offset as usize).saturating_add(header::CHUNK_HEADER_SIZE)
    }

    /// Offset of the chunk header, widened.
    pub fn offset(&self) -> u64 {
        u64::from(self.offset)
    }

    /// One past the last byte of the payload.
    pub fn end(&self) -> u64 {
        self.offset() + header::CHUNK_HEADER_SIZE as u64 + u64::from(self.size)
    }
}

/// A parsed DXBC container borrowing from its input bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container<'a> {
    pub bytes: &'a [u8],
    pub header: Header,
    /// In offset-table order.
    pub chunks: Vec<Chunk<'a>>,
}

impl<'a> Container<'a> {
    /// Checks the header and that every chunk lies inside the container, after the
    /// offset table, without overlapping another. Chunk contents are not decoded yet.
    pub fn parse(bytes: &'a [u8]) -> Result<Container<'a>, ContainerError> {
        let (header, chunks) = header::parse(bytes)?;
        Ok(Container { bytes, header, chunks })
    }

    /// The first chunk with this fourcc (DXC's `GetDxilPartByType` also takes the first).
    pub fn chunk(&self, fourcc: FourCc) -> Option<&Chunk<'a>> {
        self.chunks.iter().find(|c| c.fourcc == fourcc)
    }

    pub fn has_chunk(&self, fourcc: FourCc) -> bool {
        self.chunk(fourcc).is_some()
    }

    /// The program: the `DXIL` chunk, or the debug `ILDB` chunk if there is no `DXIL`.
    pub fn dxil(&self) -> Result<Program<'a>, ContainerError> {
        let chunk = self
            .chunk(FourCc::DXIL)
            .or_else(|| self.chunk(FourCc::ILDB))
            .ok_or(ContainerError::MissingChunk { expected: "DXIL or ILDB" })?;
        Program::parse(chunk)
    }

    /// The debug program (`ILDB`), if present.
    pub fn debug_dxil(&self) -> Result<Option<Program<'a>>, ContainerError> {
        self.chunk(FourCc::ILDB).map(Program::parse).transpose()
    }

    /// The serialized root signature (`RTS0`), undecoded.
    pub fn rts0(&self) -> Option<&'a [u8]> {
        self.chunk(FourCc::RTS0).map(|c| c.data)
    }

    /// The root signature (`RTS0`) decoded and validated; `None` without the part.
    pub fn root_signature(&self) -> Result<Option<crate::rootsig::RootSignature>, crate::rootsig::RootSigError> {
        crate::rootsig::from_container(self)
    }

    /// The runtime data (`RDAT`, libraries), undecoded.
    pub fn rdat(&self) -> Option<&'a [u8]> {
        self.chunk(FourCc::RDAT).map(|c| c.data)
    }

    /// A library's state subobjects, from its `RDAT` part (none without one).
    pub fn subobjects(&self) -> Result<Vec<rdat::Subobject>, ContainerError> {
        match self.chunk(FourCc::RDAT) {
            Some(c) => rdat::subobjects(c.data, c.payload_offset()),
            None => Ok(Vec::new()),
        }
    }

    pub fn sfi0(&self) -> Result<Option<FeatureInfo<'a>>, ContainerError> {
        self.chunk(FourCc::SFI0).map(FeatureInfo::parse).transpose()
    }

    pub fn hash(&self) -> Result<Option<ShaderHash>, ContainerError> {
        self.chunk(FourCc::HASH).map(ShaderHash::parse).transpose()
    }

    pub fn compiler_version(&self) -> Result<Option<CompilerVersion<'a>>, ContainerError> {
        self.chunk(FourCc::VERS).map(CompilerVersion::parse).transpose()
    }

    pub fn debug_name(&self) -> Result<Option<DebugName<'a>>, ContainerError> {
        self.chunk(FourCc::ILDN).map(DebugName::parse).transpose()
    }

    /// `ISG1`, else the FXC-era `ISGN`.
    pub fn input_signature(&self) -> Result<Option<Signature<'a>>, ContainerError> {
        self.signature(&[FourCc::ISG1, FourCc::ISGN])
    }

    /// `OSG1`, else `OSG5`, else `OSGN`.
    pub fn output_signature(&self) -> Result<Option<Signature<'a>>, ContainerError> {
        self.signature(&[FourCc::OSG1, FourCc::OSG5, FourCc::OSGN])
    }

    /// `PSG1`, else `PCSG`.
    pub fn patch_constant_signature(&self) -> Result<Option<Signature<'a>>, ContainerError> {
        self.signature(&[FourCc::PSG1, FourCc::PCSG])
    }

    fn signature(&self, preference: &[FourCc]) -> Result<Option<Signature<'a>>, ContainerError> {
        preference.iter().find_map(|&f| self.chunk(f)).map(Signature::parse).transpose()
    }

    /// Pipeline state validation data. The program's shader kind decodes the stage
    /// union of version-0 runtime info (which does not name its stage).
    pub fn psv0(&self) -> Result<Option<Psv0<'a>>, ContainerError> {
        let Some(chunk) = self.chunk(FourCc::PSV0) else {
            return Ok(None);
        };
        let stage_hint = self.dxil().ok().map(|p| p.shader_kind);
        Psv0::parse(chunk, stage_hint).map(Some)
    }

    /// Everything decodable, for reports; errors of individual chunks are collected.
    pub fn summary(&self) -> ContainerSummary<'a> {
        ContainerSummary::new(self)
    }
}

#[cfg(test)]
mod tests {
    use super::header::tests::build;
    use super::*;

    #[test]
    fn fourcc_display() {
        assert_eq!(FourCc::DXIL.to_string(), "DXIL");
        assert_eq!(FourCc([0xde, 0xc0, 0x17, 0x0b]).to_string(), "0x0b17c0de");
        assert_eq!(FourCc::from_u32(FourCc::PSV0.to_u32()), FourCc::PSV0);
        assert_eq!(format!("{:?}", FourCc::HASH), "FourCc(HASH)");
    }

    #[test]
    fn accessors_on_a_minimal_container() {
        let mut program = Vec::new();
        for v in [0x0006_0060u32, 7, u32::from_le_bytes(*b"DXIL"), 0x100, 16, 4] {
            program.extend_from_slice(&v.to_le_bytes());
        }
        program.extend_from_slice(b"BC\xc0\xde");
        let rts0 = [2u8, 0, 0, 0];
        let bytes = build(&[(b"SFI0", &[0, 0, 0, 6, 0, 0, 0, 0]), (b"DXIL", &program), (b"RTS0", &rts0)]);
        let c = Container::parse(&bytes).unwrap();
        let p = c.dxil().unwrap();
        assert_eq!(p.shader_kind, ShaderKind::Library);
        assert_eq!(p.bitcode, b"BC\xc0\xde");
        assert_eq!(c.rts0(), Some(&rts0[..]));
        assert_eq!(
            c.sfi0().unwrap().unwrap().names(),
            ["ResourceDescriptorHeapIndexing", "SamplerDescriptorHeapIndexing"]
        );
        assert_eq!(c.hash().unwrap(), None);
        assert_eq!(c.input_signature().unwrap(), None);
        assert_eq!(c.psv0().unwrap(), None);
        let summary = c.summary();
        assert!(summary.errors.is_empty());
        let json = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["program"]["shader_kind"], "Library");
        assert_eq!(json["chunks"][1]["fourcc"], "DXIL");
        assert_eq!(json["root_signature_size"], 4);
    }

    #[test]
    fn falls_back_to_ildb_and_reports_missing_program() {
        let mut program = Vec::new();
        for v in [0x0000_0060u32, 7, u32::from_le_bytes(*b"DXIL"), 0x100, 16, 4] {
            program.extend_from_slice(&v.to_le_bytes());
        }
        program.extend_from_slice(b"BC\xc0\xde");
        let bytes = build(&[(b"ILDB", &program)]);
        let c = Container::parse(&bytes).unwrap();
        assert_eq!(c.dxil().unwrap().fourcc, FourCc::ILDB);
        let bytes = build(&[(b"SFI0", &[0; 8])]);
        let c = Container::parse(&bytes).unwrap();
        assert_eq!(c.dxil().unwrap_err(), ContainerError::MissingChunk { expected: "DXIL or ILDB" });
        let summary = c.summary();
        assert_eq!(summary.errors.len(), 1);
    }

    #[test]
    fn bad_optional_chunk_does_not_hide_the_rest() {
        let bytes = build(&[(b"SFI0", &[0; 3]), (b"HASH", &[0; 20])]);
        let c = Container::parse(&bytes).unwrap();
        let err = c.sfi0().unwrap_err();
        assert_eq!(err.chunk(), Some(FourCc::SFI0));
        assert_eq!(err.offset(), Some(48));
        assert!(c.hash().unwrap().is_some());
        assert!(err.to_string().contains("SFI0"), "{err}");
    }
}
