//! D3D12's numeric values and HLSL keywords of the root-signature enumerations and flags:
//! `from_raw` for the binary reader, keyword tables for the string parser and printer. The
//! plain enumerations and the flag sets declare their values and keywords together, in
//! [`super::model`] (`keyword_enum!`, `flag_set!`); here are the version, the packed
//! `D3D12_FILTER` and the printing of flag sets.
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
