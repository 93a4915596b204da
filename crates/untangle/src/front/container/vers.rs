//! `VERS` (compiler version) and `ILDN` (debug name) chunks.
//!
//! Facts: DXC `DxilContainer.h` (`DxilCompilerVersion`, `DxilShaderDebugName`) and
//! `DxilContainerAssembler.cpp` (`DxilVersionWriter`: the string list holds the commit
//! SHA and then a custom version string, each NUL-terminated, then padding to 4 bytes).
//!
//! ```text
//! VERS: u16 major, u16 minor, u32 flags, u32 commit count, u32 string list size,
//!       string list (commit sha \0 custom version \0), 0-3 bytes of padding
//! ILDN: u16 flags, u16 name length, name, \0, 0-3 bytes of padding
//! ```
//!
//! An older DXC draft of `DxilCompilerVersion` had a fixed 8-byte SHA instead; it is not
//! recognised here.

use serde::Serialize;

use super::chunk::Chunk;
use super::error::ContainerError;
use super::reader::Reader;

/// The DXC build that wrote the container.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CompilerVersion<'a> {
    pub major: u16,
    pub minor: u16,
    /// `DxcVersionInfoFlags` (bit 0 debug build, bit 1 internal validator).
    pub flags: u32,
    pub commit_count: u32,
    pub commit_sha: &'a str,
    /// Empty when the compiler had no custom version string.
    pub custom_version: &'a str,
}

impl<'a> CompilerVersion<'a> {
    pub fn parse(chunk: &Chunk<'a>) -> Result<Self, ContainerError> {
        let mut r = Reader::of(chunk);
        let major = r.u16("compiler major version")?;
        let minor = r.u16("compiler minor version")?;
        let flags = r.u32("compiler version flags")?;
        let commit_count = r.u32("commit count")?;
        let list_size = r.u32("version string list size")?;
        let list = r.sub(r.pos() as u64, u64::from(list_size), "version string list")?;
        let (commit_sha, custom_version) = if list_size == 0 {
            ("", "")
        } else {
            let sha = list.cstr_at(0, "commit sha")?;
            let next = sha.len() as u64 + 1;
            let custom = if next < u64::from(list_size) { list.cstr_at(next, "custom version string")? } else { "" };
            (sha, custom)
        };
        Ok(CompilerVersion { major, minor, flags, commit_count, commit_sha, custom_version })
    }
}

/// The `ILDN` chunk: the name of the separate debug (PDB) file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DebugName<'a> {
    pub flags: u16,
    pub name: &'a str,
}

impl<'a> DebugName<'a> {
    pub fn parse(chunk: &Chunk<'a>) -> Result<Self, ContainerError> {
        let mut r = Reader::of(chunk);
        Ok(DebugName { flags: r.u16("debug name flags")?, name: r.counted_cstr("debug name length", "debug name")? })
    }
}

#[cfg(test)]
mod tests {
    use super::super::chunk::FourCc;
    use super::*;

    /// The VERS chunk of a DXC 1.8.2403.34 build, as seen in the corpus.
    const VERS: &str = "01000800000000006a11000015000000633936363061386300312e382e323430332e333400000000";

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    #[test]
    fn parses_vers() {
        let bytes = unhex(VERS);
        let v = CompilerVersion::parse(&Chunk::test(FourCc::VERS, &bytes)).unwrap();
        assert_eq!((v.major, v.minor, v.flags, v.commit_count), (1, 8, 0, 0x116a));
        assert_eq!(v.commit_sha, "c9660a8c");
        assert_eq!(v.custom_version, "1.8.2403.34");
    }

    #[test]
    fn rejects_bad_vers() {
        let mut bytes = unhex(VERS);
        bytes[12] = 0xff; // string list larger than the chunk
        let err = CompilerVersion::parse(&Chunk::test(FourCc::VERS, &bytes)).unwrap_err();
        assert!(matches!(err, ContainerError::OutOfRange { .. }), "{err}");
        let mut bytes = unhex(VERS);
        bytes[12] = 4; // list cut inside the SHA: no terminator
        assert!(matches!(
            CompilerVersion::parse(&Chunk::test(FourCc::VERS, &bytes)),
            Err(ContainerError::UnterminatedString { .. })
        ));
        assert!(CompilerVersion::parse(&Chunk::test(FourCc::VERS, &bytes[..10])).is_err());
    }

    #[test]
    fn parses_debug_name() {
        let bytes = b"\0\0\x05\0a.pdb\0\0\0";
        let n = DebugName::parse(&Chunk::test(FourCc::ILDN, bytes)).unwrap();
        assert_eq!(n.name, "a.pdb");
        assert!(matches!(
            DebugName::parse(&Chunk::test(FourCc::ILDN, b"\0\0\x05\0a.pdbX")),
            Err(ContainerError::UnterminatedString { .. })
        ));
        assert!(matches!(
            DebugName::parse(&Chunk::test(FourCc::ILDN, b"\0\0\x09\0a.pdb")),
            Err(ContainerError::Truncated { .. })
        ));
    }
}
