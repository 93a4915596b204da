//! The root signature as D3D12 defines it (`D3D12_VERSIONED_ROOT_SIGNATURE_DESC`, versions
//! 1.0 to 1.2), independent of how it was written down (RTS0 binary or HLSL string).
//!
//! Every enum keeps D3D12's numeric values, so the binary reader and writer convert with
//! `from_raw` / `as u32` and nothing else. The enumerations and flag sets are declared
//! together with their HLSL keywords (`keyword_enum!`, `flag_set!`; [`super::names`] says
//! where values and keywords come from; an enumeration's keywords are a prefix and its
//! variants' names). Optional D3D values are `Option`s: an unbounded
//! range is `count: None`, `D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND` is
//! [`RangeOffset::Append`].
//!
//! Register classes reuse [`ResourceClass`], whose order (SRV 0, UAV 1, CBV 2, Sampler 3)
//! is D3D12's `D3D12_DESCRIPTOR_RANGE_TYPE`.

pub use crate::dxil::ResourceClass;

/// The serialized version (`D3D_ROOT_SIGNATURE_VERSION`).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Version {
    V1_0 = 1,
    V1_1 = 2,
    V1_2 = 3,
}

/// Declares a D3D12 flag set once: a `u32` newtype, a constant per flag, `ALL` (their
/// union) and the keyword table `$table` for the string parser and printer (a flag's
/// keyword is its name), in bit order. Flags take consecutive bits from bit 0; `= n`
/// moves a flag (and those after it) to bit `n`.
macro_rules! flag_set {
    ($(#[$meta:meta])* pub struct $name:ident, keywords $table:ident { $($flag:ident $(= $bit:literal)?),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
        pub struct $name(pub u32);

        impl $name {
            flag_set!(@bits 0; $($flag $(= $bit)?,)*);
            pub const ALL: u32 = 0 $(| $name::$flag)*;
        }

        #[doc = concat!("`", stringify!($name), "` keywords.")]
        pub(crate) const $table: &[(&str, u32)] = &[$((stringify!($flag), $name::$flag)),*];
    };
    (@bits $next:expr; $flag:ident = $bit:literal, $($rest:tt)*) => {
        pub const $flag: u32 = 1 << $bit;
        flag_set!(@bits $bit + 1; $($rest)*);
    };
    (@bits $next:expr; $flag:ident, $($rest:tt)*) => {
        pub const $flag: u32 = 1 << ($next);
        flag_set!(@bits $next + 1; $($rest)*);
    };
    (@bits $next:expr;) => {};
}

/// Declares D3D12 enumerations once: the variants in value order, numbered from `$start`
/// (D3D12's values are consecutive), and the prefix of their HLSL keywords, each keyword
/// being the prefix and the variant's name in SCREAMING_SNAKE_CASE (`MirrorOnce` of
/// `TEXTURE_ADDRESS_` is `TEXTURE_ADDRESS_MIRROR_ONCE`). Makes each enum (`Copy`, `Eq`,
/// `Hash`, `Debug`; more derives may be given), `from_raw` (for the binary reader),
/// `keyword` (for the printer) and the keyword table `$table` for the string parser, in
/// value order.
macro_rules! keyword_enum {
    ($(
        $(#[$meta:meta])*
        pub enum $name:ident = $start:literal.., keywords $table:ident $prefix:literal {
            $(#[$first_meta:meta])* $first:ident $(, $rest:ident)* $(,)?
        }
    )*) => {$(
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        pub enum $name {
            $(#[$first_meta])* $first = $start, $($rest,)*
        }

        #[doc = concat!("`", stringify!($name), "` keywords.")]
        pub(crate) const $table: &[(&str, $name)] = &[
            (keyword!($prefix, $first), $name::$first), $((keyword!($prefix, $rest), $name::$rest)),*
        ];

        impl $name {
            pub fn from_raw(raw: u32) -> Option<$name> {
                let index = raw.checked_sub($start)?;
                $table.get(index as usize).map(|&(_, v)| v)
            }

            pub fn keyword(self) -> &'static str {
                $table[(self as u32 - $start) as usize].0
            }
        }
    )*};
}

/// The keyword `$prefix` + `$variant` in SCREAMING_SNAKE_CASE, built at compile time.
macro_rules! keyword {
    ($prefix:literal, $variant:ident) => {{
        const BYTES: [u8; keyword_len($prefix, stringify!($variant))] = keyword_bytes($prefix, stringify!($variant));
        match std::str::from_utf8(&BYTES) {
            Ok(keyword) => keyword,
            Err(_) => panic!("keywords are ASCII"),
        }
    }};
}

/// The length of `prefix` followed by `camel` (an ASCII CamelCase name) in
/// SCREAMING_SNAKE_CASE: one underscore more for each capital after the first letter.
const fn keyword_len(prefix: &str, camel: &str) -> usize {
    let camel = camel.as_bytes();
    let mut len = prefix.len() + camel.len();
    let mut i = 1;
    while i < camel.len() {
        if camel[i].is_ascii_uppercase() {
            len += 1;
        }
        i += 1;
    }
    len
}

/// `prefix` followed by `camel` in SCREAMING_SNAKE_CASE, as bytes (`N` is
/// [`keyword_len`]).
const fn keyword_bytes<const N: usize>(prefix: &str, camel: &str) -> [u8; N] {
    let (prefix, camel) = (prefix.as_bytes(), camel.as_bytes());
    let mut out = [0u8; N];
    let mut at = 0;
    while at < prefix.len() {
        out[at] = prefix[at];
        at += 1;
    }
    let mut i = 0;
    while i < camel.len() {
        if i > 0 && camel[i].is_ascii_uppercase() {
            out[at] = b'_';
            at += 1;
        }
        out[at] = camel[i].to_ascii_uppercase();
        at += 1;
        i += 1;
    }
    out
}

flag_set! {
    /// `D3D12_ROOT_SIGNATURE_FLAGS` (bit set; unknown bits are rejected by the parsers).
    pub struct RootFlags, keywords ROOT_FLAG_NAMES {
        ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT, DENY_VERTEX_SHADER_ROOT_ACCESS, DENY_HULL_SHADER_ROOT_ACCESS,
        DENY_DOMAIN_SHADER_ROOT_ACCESS, DENY_GEOMETRY_SHADER_ROOT_ACCESS, DENY_PIXEL_SHADER_ROOT_ACCESS,
        ALLOW_STREAM_OUTPUT, LOCAL_ROOT_SIGNATURE, DENY_AMPLIFICATION_SHADER_ROOT_ACCESS,
        DENY_MESH_SHADER_ROOT_ACCESS, CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED, SAMPLER_HEAP_DIRECTLY_INDEXED,
    }
}

impl RootFlags {
    pub fn contains(self, bit: u32) -> bool {
        self.0 & bit == bit
    }
}

flag_set! {
    /// `D3D12_DESCRIPTOR_RANGE_FLAGS` (1.1+).
    pub struct RangeFlags, keywords RANGE_FLAG_NAMES {
        DESCRIPTORS_VOLATILE, DATA_VOLATILE, DATA_STATIC_WHILE_SET_AT_EXECUTE, DATA_STATIC,
        DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS = 16,
    }
}

flag_set! {
    /// `D3D12_ROOT_DESCRIPTOR_FLAGS` (1.1+).
    pub struct DescriptorFlags, keywords DESCRIPTOR_FLAG_NAMES {
        DATA_VOLATILE = 1, DATA_STATIC_WHILE_SET_AT_EXECUTE, DATA_STATIC,
    }
}

flag_set! {
    /// `D3D12_SAMPLER_FLAGS` (1.2 static samplers).
    pub struct SamplerFlags, keywords SAMPLER_FLAG_NAMES {
        UINT_BORDER_COLOR, NON_NORMALIZED_COORDINATES,
    }
}

keyword_enum! {
    /// `D3D12_SHADER_VISIBILITY`.
    #[derive(PartialOrd, Ord, Default)]
    pub enum Visibility = 0.., keywords VISIBILITIES "SHADER_VISIBILITY_" {
        #[default] All, Vertex, Hull, Domain, Geometry, Pixel, Amplification, Mesh
    }
}

/// A whole root signature.
#[derive(Clone, PartialEq, Debug)]
pub struct RootSignature {
    pub version: Version,
    pub flags: RootFlags,
    /// Root parameters in root-argument order (the index is the D3D root parameter index).
    pub parameters: Vec<RootParameter>,
    pub static_samplers: Vec<StaticSampler>,
}

#[derive(Clone, PartialEq, Debug)]
pub struct RootParameter {
    pub visibility: Visibility,
    pub kind: ParameterKind,
}

#[derive(Clone, PartialEq, Debug)]
pub enum ParameterKind {
    Table(Vec<DescriptorRange>),
    Constants(RootConstants),
    Descriptor(RootDescriptor),
}

/// `D3D12_DESCRIPTOR_RANGE1`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct DescriptorRange {
    pub class: ResourceClass,
    /// `None`: unbounded (`0xFFFFFFFF`, `numDescriptors = unbounded`).
    pub count: Option<u32>,
    pub base_register: u32,
    pub space: u32,
    /// Always `RangeFlags(0)` in a 1.0 signature.
    pub flags: RangeFlags,
    pub offset: RangeOffset,
}

/// `OffsetInDescriptorsFromTableStart`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum RangeOffset {
    /// `D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND` (`0xFFFFFFFF`): right after the previous range.
    Append,
    At(u32),
}

/// `D3D12_ROOT_CONSTANTS`: `num_values` 32-bit values readable as constant buffer
/// `b<register>, space<space>`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct RootConstants {
    pub register: u32,
    pub space: u32,
    pub num_values: u32,
}

/// `D3D12_ROOT_DESCRIPTOR1` of a root CBV, SRV or UAV (`class` is never `Sampler`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct RootDescriptor {
    pub class: ResourceClass,
    pub register: u32,
    pub space: u32,
    /// Always `DescriptorFlags(0)` in a 1.0 signature.
    pub flags: DescriptorFlags,
}

/// `D3D12_STATIC_SAMPLER_DESC1`. Enumerations are kept as D3D's raw numbers, checked by
/// the parsers against the known values (`Filter`, `D3D12_TEXTURE_ADDRESS_MODE`, ...).
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct StaticSampler {
    pub filter: Filter,
    pub address_u: AddressMode,
    pub address_v: AddressMode,
    pub address_w: AddressMode,
    pub mip_lod_bias: f32,
    pub max_anisotropy: u32,
    pub comparison: ComparisonFunc,
    pub border_color: BorderColor,
    pub min_lod: f32,
    pub max_lod: f32,
    pub register: u32,
    pub space: u32,
    pub visibility: Visibility,
    /// Always `SamplerFlags(0)` below 1.2.
    pub flags: SamplerFlags,
}

/// `D3D12_FILTER`, a packed value: bits 0-1 mip, 2-3 mag, 4-5 min (0 point, 1 linear),
/// bit 6 anisotropic, bits 7-8 reduction (0 standard, 1 comparison, 2 minimum, 3 maximum).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Filter(pub u32);

impl Filter {
    pub const ANISOTROPIC: Filter = Filter(0x55);
    pub fn mip_linear(self) -> bool {
        self.0 & 0x3 == 1
    }
    pub fn mag_linear(self) -> bool {
        (self.0 >> 2) & 0x3 == 1
    }
    pub fn min_linear(self) -> bool {
        (self.0 >> 4) & 0x3 == 1
    }
    pub fn anisotropic(self) -> bool {
        self.0 & 0x40 != 0
    }
    /// 0 standard, 1 comparison, 2 minimum, 3 maximum.
    pub fn reduction(self) -> u32 {
        (self.0 >> 7) & 0x3
    }
}

keyword_enum! {
    /// `D3D12_TEXTURE_ADDRESS_MODE`.
    pub enum AddressMode = 1.., keywords ADDRESS_MODES "TEXTURE_ADDRESS_" {
        Wrap, Mirror, Clamp, Border, MirrorOnce
    }

    /// `D3D12_COMPARISON_FUNC` (`None` = 0 is accepted from 1.2 / agility SDK 1.608 on).
    pub enum ComparisonFunc = 0.., keywords COMPARISON_FUNCS "COMPARISON_" {
        None, Never, Less, Equal, LessEqual, Greater, NotEqual, GreaterEqual, Always
    }

    /// `D3D12_STATIC_BORDER_COLOR`.
    pub enum BorderColor = 0.., keywords BORDER_COLORS "STATIC_BORDER_COLOR_" {
        TransparentBlack, OpaqueBlack, OpaqueWhite, OpaqueBlackUint, OpaqueWhiteUint
    }
}

impl StaticSampler {
    /// A sampler at `s<register>` with DXC's defaults for every other field.
    pub fn with_defaults(register: u32) -> StaticSampler {
        StaticSampler {
            filter: Filter::ANISOTROPIC,
            address_u: AddressMode::Wrap,
            address_v: AddressMode::Wrap,
            address_w: AddressMode::Wrap,
            mip_lod_bias: 0.0,
            max_anisotropy: 16,
            comparison: ComparisonFunc::LessEqual,
            border_color: BorderColor::OpaqueWhite,
            min_lod: 0.0,
            max_lod: f32::MAX,
            register,
            space: 0,
            visibility: Visibility::All,
            flags: SamplerFlags(0),
        }
    }
}

impl DescriptorRange {
    /// A range with DXC's defaults (one descriptor, space 0, no flags, appended).
    pub fn new(class: ResourceClass, base_register: u32) -> DescriptorRange {
        DescriptorRange {
            class,
            count: Some(1),
            base_register,
            space: 0,
            flags: RangeFlags(0),
            offset: RangeOffset::Append,
        }
    }

    /// Whether the range holds register `register` of `space`.
    pub fn holds(&self, class: ResourceClass, space: u32, register: u32) -> bool {
        self.class == class
            && self.space == space
            && register >= self.base_register
            && self.count.is_none_or(|n| register - self.base_register < n)
    }
}

impl DescriptorRange {
    /// Each table's ranges with `Append` resolved: the offset (in descriptors, from the
    /// table start) of every range. `None` where the table overflows `u32` or an
    /// unbounded range is followed by an appended one (the validator reports both).
    pub fn resolve_offsets(ranges: &[DescriptorRange]) -> Option<Vec<u32>> {
        let mut out = Vec::with_capacity(ranges.len());
        let mut next: Option<u32> = Some(0);
        for r in ranges {
            let at = match r.offset {
                RangeOffset::At(o) => o,
                RangeOffset::Append => next?,
            };
            out.push(at);
            next = match r.count {
                Some(n) => at.checked_add(n),
                None => None,
            };
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keywords are the prefix and the variant's name in SCREAMING_SNAKE_CASE; values count
    /// from the declared start.
    #[test]
    fn keywords_and_values_follow_the_declaration() {
        assert_eq!(AddressMode::MirrorOnce.keyword(), "TEXTURE_ADDRESS_MIRROR_ONCE");
        assert_eq!(AddressMode::from_raw(5), Some(AddressMode::MirrorOnce));
        assert_eq!(AddressMode::from_raw(0), None);
        assert_eq!(AddressMode::from_raw(6), None);
        assert_eq!(ComparisonFunc::GreaterEqual as u32, 7);
        assert_eq!(BorderColor::OpaqueBlackUint.keyword(), "STATIC_BORDER_COLOR_OPAQUE_BLACK_UINT");
        assert_eq!(Visibility::default().keyword(), "SHADER_VISIBILITY_ALL");
        assert_eq!(VISIBILITIES.last(), Some(&("SHADER_VISIBILITY_MESH", Visibility::Mesh)));
    }

    /// Flags take consecutive bits but where a bit is given.
    #[test]
    fn flag_bits_follow_the_declaration() {
        assert_eq!(RootFlags::SAMPLER_HEAP_DIRECTLY_INDEXED, 0x800);
        assert_eq!(RootFlags::ALL, 0xfff);
        assert_eq!(RangeFlags::DATA_STATIC, 0x8);
        assert_eq!(RangeFlags::DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS, 0x10000);
        assert_eq!(DescriptorFlags::ALL, 0xe);
        assert_eq!(SAMPLER_FLAG_NAMES, &[("UINT_BORDER_COLOR", 1), ("NON_NORMALIZED_COORDINATES", 2)]);
    }
}
