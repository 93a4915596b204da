//! `SFI0`: the shader feature-info flags, one little-endian `u64`.
//!
//! Facts: DXC `DxilContainer.h` (`DxilShaderFeatureInfo`) and `DxilConstants.h`
//! (`ShaderFeatureInfo_*` for the required-feature bits 0..40, `OptFeatureInfo_*` for
//! the informational bits from 40 up). A larger chunk is accepted (DXC's comments plan a
//! second flags word); its extra bytes are kept raw.

use serde::Serialize;

use super::chunk::Chunk;
use super::error::ContainerError;
use super::reader::{serialize_hex, Reader};

/// Flag bit and its DXC name (without the `ShaderFeatureInfo_` / `OptFeatureInfo_` prefix).
pub const FEATURE_NAMES: &[(u64, &str)] = &[
    (0x0001, "Doubles"),
    (0x0002, "ComputeShadersPlusRawAndStructuredBuffersViaShader4X"),
    (0x0004, "UAVsAtEveryStage"),
    (0x0008, "64UAVs"),
    (0x0010, "MinimumPrecision"),
    (0x0020, "11_1_DoubleExtensions"),
    (0x0040, "11_1_ShaderExtensions"),
    (0x0080, "LEVEL9ComparisonFiltering"),
    (0x0100, "TiledResources"),
    (0x0200, "StencilRef"),
    (0x0400, "InnerCoverage"),
    (0x0800, "TypedUAVLoadAdditionalFormats"),
    (0x1000, "ROVs"),
    (0x2000, "ViewportAndRTArrayIndexFromAnyShaderFeedingRasterizer"),
    (0x4000, "WaveOps"),
    (0x8000, "Int64Ops"),
    (0x1_0000, "ViewID"),
    (0x2_0000, "Barycentrics"),
    (0x4_0000, "NativeLowPrecision"),
    (0x8_0000, "ShadingRate"),
    (0x10_0000, "Raytracing_Tier_1_1"),
    (0x20_0000, "SamplerFeedback"),
    (0x40_0000, "AtomicInt64OnTypedResource"),
    (0x80_0000, "AtomicInt64OnGroupShared"),
    (0x100_0000, "DerivativesInMeshAndAmpShaders"),
    (0x200_0000, "ResourceDescriptorHeapIndexing"),
    (0x400_0000, "SamplerDescriptorHeapIndexing"),
    (0x800_0000, "Reserved"),
    (0x1000_0000, "AtomicInt64OnHeapResource"),
    (0x2000_0000, "AdvancedTextureOps"),
    (0x4000_0000, "WriteableMSAATextures"),
    (0x8000_0000, "SampleCmpGradientOrBias"),
    (0x1_0000_0000, "ExtendedCommandInfo"),
    (0x100_0000_0000, "UsesDerivatives"),
    (0x200_0000_0000, "RequiresGroup"),
];

/// The decoded `SFI0` chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureInfo<'a> {
    pub flags: u64,
    /// Bytes after the flags word, if any.
    pub trailing: &'a [u8],
}

impl<'a> FeatureInfo<'a> {
    pub fn parse(chunk: &Chunk<'a>) -> Result<Self, ContainerError> {
        let mut r = Reader::of(chunk);
        let flags = r.u64("feature flags")?;
        Ok(FeatureInfo { flags, trailing: r.rest() })
    }

    /// Names of the set flags that DXC defines, in bit order.
    pub fn names(&self) -> Vec<&'static str> {
        FEATURE_NAMES.iter().filter(|(bit, _)| self.flags & bit != 0).map(|&(_, name)| name).collect()
    }

    /// Set bits that have no name in [`FEATURE_NAMES`].
    pub fn unknown_bits(&self) -> u64 {
        let known = FEATURE_NAMES.iter().fold(0, |acc, (bit, _)| acc | bit);
        self.flags & !known
    }

    pub fn has(&self, name: &str) -> bool {
        FEATURE_NAMES.iter().any(|&(bit, n)| n == name && self.flags & bit != 0)
    }
}

impl Serialize for FeatureInfo<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Repr<'a> {
            flags: u64,
            names: Vec<&'static str>,
            unknown_bits: u64,
            #[serde(serialize_with = "serialize_hex", skip_serializing_if = "<[u8]>::is_empty")]
            trailing: &'a [u8],
        }
        Repr { flags: self.flags, names: self.names(), unknown_bits: self.unknown_bits(), trailing: self.trailing }
            .serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::super::chunk::FourCc;
    use super::*;

    #[test]
    fn decodes_flags() {
        let bytes = 0x1_8000_0104u64.to_le_bytes();
        let info = FeatureInfo::parse(&Chunk::test(FourCc::SFI0, &bytes)).unwrap();
        assert_eq!(
            info.names(),
            ["UAVsAtEveryStage", "TiledResources", "SampleCmpGradientOrBias", "ExtendedCommandInfo"]
        );
        assert_eq!(info.unknown_bits(), 0);
        assert!(info.has("TiledResources"));
        assert!(!info.has("Doubles"));
        assert!(info.trailing.is_empty());
        let json = serde_json::to_value(info).unwrap();
        assert_eq!(json["names"][0], "UAVsAtEveryStage");
    }

    #[test]
    fn names_are_unique_single_bits() {
        for (i, &(bit, name)) in FEATURE_NAMES.iter().enumerate() {
            assert_eq!(bit.count_ones(), 1, "{name}");
            assert!(FEATURE_NAMES[i + 1..].iter().all(|&(b, n)| b != bit && n != name));
        }
    }

    #[test]
    fn unknown_bits_and_trailing() {
        let mut bytes = (1u64 << 50 | 1).to_le_bytes().to_vec();
        bytes.extend_from_slice(&[9, 9]);
        let info = FeatureInfo::parse(&Chunk::test(FourCc::SFI0, &bytes)).unwrap();
        assert_eq!(info.unknown_bits(), 1 << 50);
        assert_eq!(info.names(), ["Doubles"]);
        assert_eq!(info.trailing, &[9, 9]);
    }

    #[test]
    fn rejects_short_chunk() {
        let err = FeatureInfo::parse(&Chunk::test(FourCc::SFI0, &[0; 7])).unwrap_err();
        assert!(matches!(err, ContainerError::Truncated { needed: 8, available: 7, .. }), "{err}");
        assert_eq!(err.offset(), Some(48));
        assert_eq!(err.chunk(), Some(FourCc::SFI0));
    }
}
