//! D3D12's numeric values and HLSL keywords of the root-signature enumerations and flags:
//! `from_raw` for the binary reader, keyword tables for the string parser and printer.
//!
//! Values: `d3d12.h` (`D3D12_SHADER_VISIBILITY`, `D3D12_FILTER`, `D3D12_TEXTURE_ADDRESS_MODE`,
//! `D3D12_COMPARISON_FUNC`, `D3D12_STATIC_BORDER_COLOR`, the flag enums), as restated in
//! `shared/docs/root-signature.md`. Keywords: DXC's root-signature tokenizer
//! (`tools/clang/lib/Parse/HLSLRootSignature.cpp`); DXC compares them case-insensitively.
//! Two spellings are ours, not DXC's, so that every valid model prints and parses back:
//! `COMPARISON_NONE` (1.2) and the `FILTER_*MIN_MAG_ANISOTROPIC_MIP_POINT` family
//! (`D3D12_FILTER` 0x54, newer Agility SDKs); sampler flags use the `D3D12_SAMPLER_FLAG_`
//! suffixes (`UINT_BORDER_COLOR`, `NON_NORMALIZED_COORDINATES`).

use super::model::*;

impl Version {
    pub fn from_raw(raw: u32) -> Option<Version> {
        Some(match raw {
            1 => Version::V1_0,
            2 => Version::V1_1,
            3 => Version::V1_2,
            _ => return None,
        })
    }

    /// `"1.0"`, `"1.1"`, `"1.2"`.
    pub fn name(self) -> &'static str {
        match self {
            Version::V1_0 => "1.0",
            Version::V1_1 => "1.1",
            Version::V1_2 => "1.2",
        }
    }

    /// Parses `"1.0"`, `"1.1"`, `"1.2"` (also `rootsig_1_1` / `1_1` spellings).
    pub fn from_name(name: &str) -> Option<Version> {
        let tail = name.trim().trim_start_matches("rootsig_").replace('_', ".");
        Some(match tail.as_str() {
            "1.0" | "1" => Version::V1_0,
            "1.1" => Version::V1_1,
            "1.2" => Version::V1_2,
            _ => return None,
        })
    }
}

pub(crate) const VISIBILITIES: [(&str, Visibility); 8] = [
    ("SHADER_VISIBILITY_ALL", Visibility::All),
    ("SHADER_VISIBILITY_VERTEX", Visibility::Vertex),
    ("SHADER_VISIBILITY_HULL", Visibility::Hull),
    ("SHADER_VISIBILITY_DOMAIN", Visibility::Domain),
    ("SHADER_VISIBILITY_GEOMETRY", Visibility::Geometry),
    ("SHADER_VISIBILITY_PIXEL", Visibility::Pixel),
    ("SHADER_VISIBILITY_AMPLIFICATION", Visibility::Amplification),
    ("SHADER_VISIBILITY_MESH", Visibility::Mesh),
];

impl Visibility {
    pub fn from_raw(raw: u32) -> Option<Visibility> {
        VISIBILITIES.iter().map(|&(_, v)| v).find(|&v| v as u32 == raw)
    }

    pub fn keyword(self) -> &'static str {
        VISIBILITIES[self as usize].0
    }
}

pub(crate) const ADDRESS_MODES: [(&str, AddressMode); 5] = [
    ("TEXTURE_ADDRESS_WRAP", AddressMode::Wrap),
    ("TEXTURE_ADDRESS_MIRROR", AddressMode::Mirror),
    ("TEXTURE_ADDRESS_CLAMP", AddressMode::Clamp),
    ("TEXTURE_ADDRESS_BORDER", AddressMode::Border),
    ("TEXTURE_ADDRESS_MIRROR_ONCE", AddressMode::MirrorOnce),
];

impl AddressMode {
    pub fn from_raw(raw: u32) -> Option<AddressMode> {
        ADDRESS_MODES.iter().map(|&(_, v)| v).find(|&v| v as u32 == raw)
    }

    pub fn keyword(self) -> &'static str {
        ADDRESS_MODES[self as usize - 1].0
    }
}

pub(crate) const COMPARISON_FUNCS: [(&str, ComparisonFunc); 9] = [
    ("COMPARISON_NONE", ComparisonFunc::None),
    ("COMPARISON_NEVER", ComparisonFunc::Never),
    ("COMPARISON_LESS", ComparisonFunc::Less),
    ("COMPARISON_EQUAL", ComparisonFunc::Equal),
    ("COMPARISON_LESS_EQUAL", ComparisonFunc::LessEqual),
    ("COMPARISON_GREATER", ComparisonFunc::Greater),
    ("COMPARISON_NOT_EQUAL", ComparisonFunc::NotEqual),
    ("COMPARISON_GREATER_EQUAL", ComparisonFunc::GreaterEqual),
    ("COMPARISON_ALWAYS", ComparisonFunc::Always),
];

impl ComparisonFunc {
    pub fn from_raw(raw: u32) -> Option<ComparisonFunc> {
        COMPARISON_FUNCS.iter().map(|&(_, v)| v).find(|&v| v as u32 == raw)
    }

    pub fn keyword(self) -> &'static str {
        COMPARISON_FUNCS[self as usize].0
    }
}

pub(crate) const BORDER_COLORS: [(&str, BorderColor); 5] = [
    ("STATIC_BORDER_COLOR_TRANSPARENT_BLACK", BorderColor::TransparentBlack),
    ("STATIC_BORDER_COLOR_OPAQUE_BLACK", BorderColor::OpaqueBlack),
    ("STATIC_BORDER_COLOR_OPAQUE_WHITE", BorderColor::OpaqueWhite),
    ("STATIC_BORDER_COLOR_OPAQUE_BLACK_UINT", BorderColor::OpaqueBlackUint),
    ("STATIC_BORDER_COLOR_OPAQUE_WHITE_UINT", BorderColor::OpaqueWhiteUint),
];

impl BorderColor {
    pub fn from_raw(raw: u32) -> Option<BorderColor> {
        BORDER_COLORS.iter().map(|&(_, v)| v).find(|&v| v as u32 == raw)
    }

    pub fn keyword(self) -> &'static str {
        BORDER_COLORS[self as usize].0
    }
}

/// The filter kinds (bits 0-6 of `D3D12_FILTER`) D3D12 defines, with their keyword stems.
const FILTER_BASES: [(&str, u32); 10] = [
    ("MIN_MAG_MIP_POINT", 0x00),
    ("MIN_MAG_POINT_MIP_LINEAR", 0x01),
    ("MIN_POINT_MAG_LINEAR_MIP_POINT", 0x04),
    ("MIN_POINT_MAG_MIP_LINEAR", 0x05),
    ("MIN_LINEAR_MAG_MIP_POINT", 0x10),
    ("MIN_LINEAR_MAG_POINT_MIP_LINEAR", 0x11),
    ("MIN_MAG_LINEAR_MIP_POINT", 0x14),
    ("MIN_MAG_MIP_LINEAR", 0x15),
    ("MIN_MAG_ANISOTROPIC_MIP_POINT", 0x54),
    ("ANISOTROPIC", 0x55),
];

/// Reduction prefixes (bits 7-8 of `D3D12_FILTER`).
const FILTER_REDUCTIONS: [&str; 4] = ["", "COMPARISON_", "MINIMUM_", "MAXIMUM_"];

impl Filter {
    /// Whether D3D12 defines this value: a known filter kind and reduction, no other bits.
    pub fn is_valid(self) -> bool {
        self.0 < 0x200 && FILTER_BASES.iter().any(|&(_, b)| b == self.0 & 0x7f)
    }

    /// `FILTER_...` as `d3d12.h` spells it (`D3D12_` dropped); `None` for invalid values.
    pub fn keyword(self) -> Option<String> {
        if !self.is_valid() {
            return None;
        }
        let stem = FILTER_BASES.iter().find(|&&(_, b)| b == self.0 & 0x7f).map(|&(n, _)| n)?;
        Some(format!("FILTER_{}{}", FILTER_REDUCTIONS[self.reduction() as usize], stem))
    }

    /// The value of a `FILTER_...` keyword (ASCII case-insensitive).
    pub fn from_keyword(word: &str) -> Option<Filter> {
        (0..4u32)
            .flat_map(|r| FILTER_BASES.iter().map(move |&(_, b)| Filter(b | (r << 7))))
            .find(|f| f.keyword().is_some_and(|k| k.eq_ignore_ascii_case(word)))
    }
}

/// `D3D12_ROOT_SIGNATURE_FLAGS` keywords.
pub(crate) const ROOT_FLAG_NAMES: [(&str, u32); 12] = [
    ("ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT", RootFlags::ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT),
    ("DENY_VERTEX_SHADER_ROOT_ACCESS", RootFlags::DENY_VERTEX_SHADER_ROOT_ACCESS),
    ("DENY_HULL_SHADER_ROOT_ACCESS", RootFlags::DENY_HULL_SHADER_ROOT_ACCESS),
    ("DENY_DOMAIN_SHADER_ROOT_ACCESS", RootFlags::DENY_DOMAIN_SHADER_ROOT_ACCESS),
    ("DENY_GEOMETRY_SHADER_ROOT_ACCESS", RootFlags::DENY_GEOMETRY_SHADER_ROOT_ACCESS),
    ("DENY_PIXEL_SHADER_ROOT_ACCESS", RootFlags::DENY_PIXEL_SHADER_ROOT_ACCESS),
    ("ALLOW_STREAM_OUTPUT", RootFlags::ALLOW_STREAM_OUTPUT),
    ("LOCAL_ROOT_SIGNATURE", RootFlags::LOCAL_ROOT_SIGNATURE),
    ("DENY_AMPLIFICATION_SHADER_ROOT_ACCESS", RootFlags::DENY_AMPLIFICATION_SHADER_ROOT_ACCESS),
    ("DENY_MESH_SHADER_ROOT_ACCESS", RootFlags::DENY_MESH_SHADER_ROOT_ACCESS),
    ("CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED", RootFlags::CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED),
    ("SAMPLER_HEAP_DIRECTLY_INDEXED", RootFlags::SAMPLER_HEAP_DIRECTLY_INDEXED),
];

/// `D3D12_DESCRIPTOR_RANGE_FLAGS` keywords.
pub(crate) const RANGE_FLAG_NAMES: [(&str, u32); 5] = [
    ("DESCRIPTORS_VOLATILE", RangeFlags::DESCRIPTORS_VOLATILE),
    ("DATA_VOLATILE", RangeFlags::DATA_VOLATILE),
    ("DATA_STATIC_WHILE_SET_AT_EXECUTE", RangeFlags::DATA_STATIC_WHILE_SET_AT_EXECUTE),
    ("DATA_STATIC", RangeFlags::DATA_STATIC),
    ("DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS", RangeFlags::DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS),
];

/// `D3D12_ROOT_DESCRIPTOR_FLAGS` keywords.
pub(crate) const DESCRIPTOR_FLAG_NAMES: [(&str, u32); 3] = [
    ("DATA_VOLATILE", DescriptorFlags::DATA_VOLATILE),
    ("DATA_STATIC_WHILE_SET_AT_EXECUTE", DescriptorFlags::DATA_STATIC_WHILE_SET_AT_EXECUTE),
    ("DATA_STATIC", DescriptorFlags::DATA_STATIC),
];

/// `D3D12_SAMPLER_FLAGS` keywords (1.2).
pub(crate) const SAMPLER_FLAG_NAMES: [(&str, u32); 2] = [
    ("UINT_BORDER_COLOR", SamplerFlags::UINT_BORDER_COLOR),
    ("NON_NORMALIZED_COORDINATES", SamplerFlags::NON_NORMALIZED_COORDINATES),
];

/// `A | B | C` for the set bits of `bits` (table order), `0` when none; unknown bits
/// are printed as a hex number (they fail validation, so only diagnostics show them).
pub(crate) fn flags_text(bits: u32, names: &[(&str, u32)]) -> String {
    let mut parts: Vec<String> = names.iter().filter(|&&(_, b)| bits & b != 0).map(|&(n, _)| n.to_string()).collect();
    let known = names.iter().fold(0, |acc, &(_, b)| acc | b);
    if bits & !known != 0 {
        parts.push(format!("{:#x}", bits & !known));
    }
    if parts.is_empty() {
        "0".to_string()
    } else {
        parts.join(" | ")
    }
}
