//! [`Container`]: a parsed DXBC container, its chunk table checked, each chunk decoded on
//! demand by an accessor that returns a typed [`ContainerError`] for malformed data.

use super::chunk::{Chunk, FourCc};
use super::error::ContainerError;
use super::hash::ShaderHash;
use super::header::{self, Header};
use super::program::Program;
use super::psv0::Psv0;
use super::rdat;
use super::sfi0::FeatureInfo;
use super::signature::Signature;
use super::vers::{CompilerVersion, DebugName};

/// A parsed DXBC container borrowing from its input bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container<'a> {
    pub bytes: &'a [u8],
    pub header: Header,
    /// In offset-table order.
    pub chunks: Vec<Chunk<'a>>,
}

/// A container's header and chunk table without its bytes: what [`Container::parse`]
/// checked, kept so that a view of the same bytes can be rebuilt without parsing again
/// ([`ChunkTable::view`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkTable {
    pub header: Header,
    /// Each chunk's fourcc, header offset and payload size, in offset-table order.
    chunks: Vec<(FourCc, u32, u32)>,
}

impl ChunkTable {
    /// The container view of `bytes`, which must be the bytes this table was read from
    /// (a chunk that does not lie in `bytes` gets an empty payload, never a panic).
    pub fn view<'a>(&self, bytes: &'a [u8]) -> Container<'a> {
        let chunks = self
            .chunks
            .iter()
            .map(|&(fourcc, offset, size)| {
                let mut c = Chunk { fourcc, offset, size, data: &[] };
                let start = c.payload_offset();
                c.data = bytes.get(start..start.saturating_add(size as usize)).unwrap_or(&[]);
                c
            })
            .collect();
        Container { bytes, header: self.header, chunks }
    }
}

impl<'a> Container<'a> {
    /// Checks the header and that every chunk lies inside the container, after the
    /// offset table, without overlapping another. Chunk contents are not decoded yet.
    pub fn parse(bytes: &'a [u8]) -> Result<Container<'a>, ContainerError> {
        let (header, chunks) = header::parse(bytes)?;
        Ok(Container { bytes, header, chunks })
    }

    /// The header and chunk table, to rebuild this view later ([`ChunkTable::view`]).
    pub fn table(&self) -> ChunkTable {
        ChunkTable { header: self.header, chunks: self.chunks.iter().map(|c| (c.fourcc, c.offset, c.size)).collect() }
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
}

#[cfg(test)]
mod tests {
    use super::super::header::tests::build;
    use super::super::program::ShaderKind;
    use super::super::summary::ContainerSummary;
    use super::*;

    #[test]
    fn fourcc_display() {
        assert_eq!(FourCc::DXIL.to_string(), "DXIL");
        assert_eq!(FourCc([0xde, 0xc0, 0x17, 0x0b]).to_string(), "0x0b17c0de");
        assert_eq!(FourCc::from_u32(FourCc::PSV0.to_u32()), FourCc::PSV0);
        assert_eq!(format!("{:?}", FourCc::HASH), "FourCc(HASH)");
    }

    /// A program part of program version `version` (28 bytes: header, then `BC\xc0\xde`
    /// as its bitcode).
    fn program_part(version: u32) -> Vec<u8> {
        let mut program = Vec::new();
        for v in [version, 7, u32::from_le_bytes(*b"DXIL"), 0x100, 16, 4] {
            program.extend_from_slice(&v.to_le_bytes());
        }
        program.extend_from_slice(b"BC\xc0\xde");
        program
    }

    #[test]
    fn accessors_on_a_minimal_container() {
        let program = program_part(0x0006_0060);
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
        let summary = ContainerSummary::new(&c);
        assert!(summary.errors.is_empty());
        let json = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["program"]["shader_kind"], "Library");
        assert_eq!(json["chunks"][1]["fourcc"], "DXIL");
        assert_eq!(json["root_signature_size"], 4);
    }

    #[test]
    fn falls_back_to_ildb_and_reports_missing_program() {
        let program = program_part(0x0000_0060);
        let bytes = build(&[(b"ILDB", &program)]);
        let c = Container::parse(&bytes).unwrap();
        assert_eq!(c.dxil().unwrap().fourcc, FourCc::ILDB);
        let bytes = build(&[(b"SFI0", &[0; 8])]);
        let c = Container::parse(&bytes).unwrap();
        assert_eq!(c.dxil().unwrap_err(), ContainerError::MissingChunk { expected: "DXIL or ILDB" });
        let summary = ContainerSummary::new(&c);
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
