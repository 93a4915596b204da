//! The root signature as D3D12 defines it (`D3D12_VERSIONED_ROOT_SIGNATURE_DESC`, versions
//! 1.0 to 1.2), independent of how it was written down (RTS0 binary or HLSL string).
//!
//! Every enum keeps D3D12's numeric values, so the binary reader and writer convert with
//! `from_raw` / `as u32` and nothing else. The enumerations and flag sets are declared
//! together with their HLSL keywords (`keyword_enum!`, `flag_set!`; [`super::names`] says
//! where values and keywords come from). Optional D3D values are `Option`s: an unbounded
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
/// keyword is its name), in bit order.
macro_rules! flag_set {
    ($(#[$meta:meta])* pub struct $name:ident, keywords $table:ident { $($flag:ident = $bit:literal,)* }) => {
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
        pub struct $name(pub u32);

        impl $name {
            $(pub const $flag: u32 = $bit;)*
            pub const ALL: u32 = 0 $(| $bit)*;
        }

        #[doc = concat!("`", stringify!($name), "` keywords.")]
        pub(crate) const $table: &[(&str, u32)] = &[$((stringify!($flag), $bit)),*];
    };
}

/// Declares D3D12 enumerations once: each variant with its numeric value and its HLSL
/// keyword. Makes each enum (`Copy`, `Eq`, `Hash`, `Debug`; more derives may be given),
/// `from_raw` (for the binary reader), `keyword` (for the printer) and the keyword table
/// `$table` for the string parser, in value order.
macro_rules! keyword_enum {
    ($(
        $(#[$meta:meta])*
        pub enum $name:ident, keywords $table:ident {
            $($(#[$vmeta:meta])* $variant:ident = $value:literal => $keyword:literal,)*
        }
    )*) => {$(
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        pub enum $name {
            $($(#[$vmeta])* $variant = $value,)*
        }

        #[doc = concat!("`", stringify!($name), "` keywords.")]
        pub(crate) const $table: &[(&str, $name)] = &[$(($keyword, $name::$variant)),*];

        impl $name {
            pub fn from_raw(raw: u32) -> Option<$name> {
                $table.iter().map(|&(_, v)| v).find(|&v| v as u32 == raw)
            }

            pub fn keyword(self) -> &'static str {
                match self {
                    $($name::$variant => $keyword,)*
                }
            }
        }
    )*};
}

flag_set! {
    /// `D3D12_ROOT_SIGNATURE_FLAGS` (bit set; unknown bits are rejected by the parsers).
    pub struct RootFlags, keywords ROOT_FLAG_NAMES {
        ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT = 0x1,
        DENY_VERTEX_SHADER_ROOT_ACCESS = 0x2,
        DENY_HULL_SHADER_ROOT_ACCESS = 0x4,
        DENY_DOMAIN_SHADER_ROOT_ACCESS = 0x8,
        DENY_GEOMETRY_SHADER_ROOT_ACCESS = 0x10,
        DENY_PIXEL_SHADER_ROOT_ACCESS = 0x20,
        ALLOW_STREAM_OUTPUT = 0x40,
        LOCAL_ROOT_SIGNATURE = 0x80,
        DENY_AMPLIFICATION_SHADER_ROOT_ACCESS = 0x100,
        DENY_MESH_SHADER_ROOT_ACCESS = 0x200,
        CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED = 0x400,
        SAMPLER_HEAP_DIRECTLY_INDEXED = 0x800,
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
        DESCRIPTORS_VOLATILE = 0x1,
        DATA_VOLATILE = 0x2,
        DATA_STATIC_WHILE_SET_AT_EXECUTE = 0x4,
        DATA_STATIC = 0x8,
        DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS = 0x10000,
    }
}

flag_set! {
    /// `D3D12_ROOT_DESCRIPTOR_FLAGS` (1.1+).
    pub struct DescriptorFlags, keywords DESCRIPTOR_FLAG_NAMES {
        DATA_VOLATILE = 0x2,
        DATA_STATIC_WHILE_SET_AT_EXECUTE = 0x4,
        DATA_STATIC = 0x8,
    }
}

flag_set! {
    /// `D3D12_SAMPLER_FLAGS` (1.2 static samplers).
    pub struct SamplerFlags, keywords SAMPLER_FLAG_NAMES {
        UINT_BORDER_COLOR = 0x1,
        NON_NORMALIZED_COORDINATES = 0x2,
    }
}

keyword_enum! {
    /// `D3D12_SHADER_VISIBILITY`.
    #[derive(PartialOrd, Ord, Default)]
    pub enum Visibility, keywords VISIBILITIES {
        #[default]
        All = 0 => "SHADER_VISIBILITY_ALL",
        Vertex = 1 => "SHADER_VISIBILITY_VERTEX",
        Hull = 2 => "SHADER_VISIBILITY_HULL",
        Domain = 3 => "SHADER_VISIBILITY_DOMAIN",
        Geometry = 4 => "SHADER_VISIBILITY_GEOMETRY",
        Pixel = 5 => "SHADER_VISIBILITY_PIXEL",
        Amplification = 6 => "SHADER_VISIBILITY_AMPLIFICATION",
        Mesh = 7 => "SHADER_VISIBILITY_MESH",
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
    pub enum AddressMode, keywords ADDRESS_MODES {
        Wrap = 1 => "TEXTURE_ADDRESS_WRAP",
        Mirror = 2 => "TEXTURE_ADDRESS_MIRROR",
        Clamp = 3 => "TEXTURE_ADDRESS_CLAMP",
        Border = 4 => "TEXTURE_ADDRESS_BORDER",
        MirrorOnce = 5 => "TEXTURE_ADDRESS_MIRROR_ONCE",
    }

    /// `D3D12_COMPARISON_FUNC` (`None` = 0 is accepted from 1.2 / agility SDK 1.608 on).
    pub enum ComparisonFunc, keywords COMPARISON_FUNCS {
        None = 0 => "COMPARISON_NONE",
        Never = 1 => "COMPARISON_NEVER",
        Less = 2 => "COMPARISON_LESS",
        Equal = 3 => "COMPARISON_EQUAL",
        LessEqual = 4 => "COMPARISON_LESS_EQUAL",
        Greater = 5 => "COMPARISON_GREATER",
        NotEqual = 6 => "COMPARISON_NOT_EQUAL",
        GreaterEqual = 7 => "COMPARISON_GREATER_EQUAL",
        Always = 8 => "COMPARISON_ALWAYS",
    }

    /// `D3D12_STATIC_BORDER_COLOR`.
    pub enum BorderColor, keywords BORDER_COLORS {
        TransparentBlack = 0 => "STATIC_BORDER_COLOR_TRANSPARENT_BLACK",
        OpaqueBlack = 1 => "STATIC_BORDER_COLOR_OPAQUE_BLACK",
        OpaqueWhite = 2 => "STATIC_BORDER_COLOR_OPAQUE_WHITE",
        OpaqueBlackUint = 3 => "STATIC_BORDER_COLOR_OPAQUE_BLACK_UINT",
        OpaqueWhiteUint = 4 => "STATIC_BORDER_COLOR_OPAQUE_WHITE_UINT",
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
