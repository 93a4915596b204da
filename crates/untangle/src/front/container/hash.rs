//! `HASH`: the shader hash DXC computes over the program (not the container hash in
//! the header). Layout (DXC `DxilContainer.h`: `DxilShaderHash`, `DxilShaderHashFlags`):
//! `u32 flags` (bit 0: the hash covers source information, `-Zss`), then a 16-byte digest.

use serde::Serialize;

use super::chunk::Chunk;
use super::error::ContainerError;
use super::reader::{serialize_hex, Reader};

/// `DxilShaderHashFlags::IncludesSource`.
pub const HASH_INCLUDES_SOURCE: u32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ShaderHash {
    pub flags: u32,
    #[serde(serialize_with = "serialize_hex")]
    pub digest: [u8; 16],
}

impl ShaderHash {
    pub fn parse(chunk: &Chunk<'_>) -> Result<Self, ContainerError> {
        let mut r = Reader::of(chunk);
        let flags = r.u32("shader hash flags")?;
        let digest = r.array::<16>("shader hash digest")?;
        if r.remaining() != 0 {
            return Err(ContainerError::SizeMismatch {
                at: r.at(0),
                what: "HASH chunk size",
                expected: 20,
                found: chunk.data.len() as u64,
            });
        }
        Ok(ShaderHash { flags, digest })
    }

    pub fn includes_source(&self) -> bool {
        self.flags & HASH_INCLUDES_SOURCE != 0
    }
}

#[cfg(test)]
mod tests {
    use super::super::chunk::FourCc;
    use super::*;

    #[test]
    fn parses_hash() {
        let mut bytes = 1u32.to_le_bytes().to_vec();
        bytes.extend(0..16u8);
        let hash = ShaderHash::parse(&Chunk::test(FourCc::HASH, &bytes)).unwrap();
        assert!(hash.includes_source());
        assert_eq!(hash.digest[15], 15);
        let json = serde_json::to_value(hash).unwrap();
        assert_eq!(json["digest"], "000102030405060708090a0b0c0d0e0f");
    }

    #[test]
    fn rejects_wrong_sizes() {
        let bytes = [0u8; 21];
        assert!(matches!(
            ShaderHash::parse(&Chunk::test(FourCc::HASH, &bytes)),
            Err(ContainerError::SizeMismatch { found: 21, .. })
        ));
        let err = ShaderHash::parse(&Chunk::test(FourCc::HASH, &bytes[..19])).unwrap_err();
        assert!(matches!(err, ContainerError::Truncated { needed: 16, available: 15, .. }), "{err}");
    }
}
