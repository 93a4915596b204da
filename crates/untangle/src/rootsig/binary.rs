//! The serialized root signature: the `RTS0` part, versions 1.0, 1.1 and 1.2.
//!
//! Layout (all fields little-endian `u32`, all offsets from the start of the part):
//! `shared/docs/root-signature.md`, which restates DXC's serializer
//! (`lib/DxilRootSignature/DxilRootSignatureSerializer.cpp`) and the readers of
//! vkd3d (`libs/vkd3d-shader/dxbc.c`, 1.0/1.1) and vkd3d-proton (adds 1.2).
//!
//! - [`decode_rts0`] reads through the offsets, never assuming the pieces' order; every
//!   read is bounds-checked in `u64`, and every count is checked against the bytes left
//!   before anything is allocated for it, so hostile input cannot panic or allocate much.
//!   [`parse_rts0`] also runs [`validate`](super::validate::validate).
//! - [`to_rts0`] writes DXC's layout exactly: header, parameter array, each parameter's
//!   payload in order (a table's ranges right after its 8-byte table header), the static
//!   sampler array last. Every block is a whole number of DWORDs, so DXC's 4-byte
//!   alignment never inserts its `0xAB` padding.
//! - [`parse_rts0_file`] takes either a bare `RTS0` part or a DXBC container holding one
//!   (what `dxc -T rootsig_1_1` writes, and what a shader with a root signature carries).

use super::error::RootSigError;
use super::model::*;
use crate::front::container::{Container, FourCc};

const HEADER_SIZE: u64 = 24;
const PARAMETER_SIZE: u64 = 12;
const TABLE_SIZE: u64 = 8;

/// `D3D12_DESCRIPTOR_RANGE`(1) size: 1.1 adds `Flags`.
fn range_size(version: Version) -> u64 {
    if version == Version::V1_0 {
        20
    } else {
        24
    }
}

/// `D3D12_STATIC_SAMPLER_DESC`(1) size: 1.2 adds `Flags`.
fn sampler_size(version: Version) -> u64 {
    if version == Version::V1_2 {
        56
    } else {
        52
    }
}

/// `D3D12_ROOT_PARAMETER_TYPE`.
const PARAM_TABLE: u32 = 0;
const PARAM_CONSTANTS: u32 = 1;
const PARAM_CBV: u32 = 2;
const PARAM_SRV: u32 = 3;
const PARAM_UAV: u32 = 4;

/// Reads little-endian DWORDs at offsets of the part, bounds-checked.
struct Part<'a> {
    bytes: &'a [u8],
}

impl Part<'_> {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// `N` DWORDs at `offset`; `what` names the structure for the error.
    fn dwords<const N: usize>(&self, offset: u64, what: impl FnOnce() -> String) -> Result<[u32; N], RootSigError> {
        let needed = 4 * N as u64;
        let available = self.len().saturating_sub(offset);
        if offset > self.len() || needed > available {
            return Err(RootSigError::Truncated { offset, what: what(), needed, available });
        }
        let mut out = [0u32; N];
        for (i, slot) in out.iter_mut().enumerate() {
            let at = offset as usize + 4 * i;
            // In bounds: checked above that `offset + 4 * N <= len`.
            let word = self.bytes.get(at..at + 4).and_then(|b| <[u8; 4]>::try_from(b).ok()).unwrap_or([0; 4]);
            *slot = u32::from_le_bytes(word);
        }
        Ok(out)
    }

    /// Checks that `count` elements of `size` bytes fit at `offset`, before any allocation.
    fn check_array(
        &self,
        offset: u64,
        count: u32,
        size: u64,
        what: impl FnOnce() -> String,
    ) -> Result<(), RootSigError> {
        let needed = u64::from(count) * size;
        let available = self.len().saturating_sub(offset);
        if offset > self.len() || needed > available {
            return Err(RootSigError::CountTooLarge { offset, what: what(), count, needed, available });
        }
        Ok(())
    }
}

fn bad_value(offset: u64, what: String, value: u32) -> RootSigError {
    RootSigError::BadValue { offset, what, value }
}

/// Decodes an `RTS0` part and validates it ([`super::validate::validate`]).
pub fn parse_rts0(bytes: &[u8]) -> Result<RootSignature, RootSigError> {
    let rs = decode_rts0(bytes)?;
    super::validate::validate(&rs)?;
    Ok(rs)
}

/// Decodes an `RTS0` part without the semantic checks of [`super::validate`](mod@super::validate): the result is
/// well formed (known versions and enumeration values) but may break D3D12's rules.
pub fn decode_rts0(bytes: &[u8]) -> Result<RootSignature, RootSigError> {
    let part = Part { bytes };
    let [raw_version, num_parameters, parameters_offset, num_samplers, samplers_offset, flags] =
        part.dwords::<6>(0, || "header".into())?;
    let version = Version::from_raw(raw_version).ok_or(RootSigError::BadVersion(raw_version))?;

    let parameters_offset = u64::from(parameters_offset);
    part.check_array(parameters_offset, num_parameters, PARAMETER_SIZE, || "root parameter array".into())?;
    let mut parameters = Vec::with_capacity(num_parameters as usize);
    for index in 0..num_parameters {
        let at = parameters_offset + PARAMETER_SIZE * u64::from(index);
        parameters.push(decode_parameter(&part, version, index, at)?);
    }

    let samplers_offset = u64::from(samplers_offset);
    let size = sampler_size(version);
    part.check_array(samplers_offset, num_samplers, size, || "static sampler array".into())?;
    let mut static_samplers = Vec::with_capacity(num_samplers as usize);
    for index in 0..num_samplers {
        let at = samplers_offset + size * u64::from(index);
        static_samplers.push(decode_sampler(&part, version, index, at)?);
    }

    Ok(RootSignature { version, flags: RootFlags(flags), parameters, static_samplers })
}

fn decode_parameter(part: &Part, version: Version, index: u32, at: u64) -> Result<RootParameter, RootSigError> {
    let name = || format!("parameter {index}");
    let [kind, raw_visibility, payload] = part.dwords::<3>(at, name)?;
    let visibility = Visibility::from_raw(raw_visibility)
        .ok_or_else(|| bad_value(at + 4, format!("parameter {index}: shader visibility"), raw_visibility))?;
    let payload = u64::from(payload);
    let kind = match kind {
        PARAM_TABLE => {
            let [num_ranges, ranges_offset] =
                part.dwords::<2>(payload, || format!("parameter {index}: descriptor table"))?;
            let ranges_offset = u64::from(ranges_offset);
            let size = range_size(version);
            part.check_array(ranges_offset, num_ranges, size, || format!("parameter {index}: descriptor range array"))?;
            let mut ranges = Vec::with_capacity(num_ranges as usize);
            for r in 0..num_ranges {
                ranges.push(decode_range(part, version, index, r, ranges_offset + size * u64::from(r))?);
            }
            ParameterKind::Table(ranges)
        }
        PARAM_CONSTANTS => {
            let [register, space, num_values] =
                part.dwords::<3>(payload, || format!("parameter {index}: root constants"))?;
            ParameterKind::Constants(RootConstants { register, space, num_values })
        }
        PARAM_CBV | PARAM_SRV | PARAM_UAV => {
            let class = match kind {
                PARAM_CBV => ResourceClass::Cbv,
                PARAM_SRV => ResourceClass::Srv,
                _ => ResourceClass::Uav,
            };
            let what = || format!("parameter {index}: root descriptor");
            let (register, space, flags) = if version == Version::V1_0 {
                let [register, space] = part.dwords::<2>(payload, what)?;
                (register, space, 0)
            } else {
                let [register, space, flags] = part.dwords::<3>(payload, what)?;
                (register, space, flags)
            };
            ParameterKind::Descriptor(RootDescriptor { class, register, space, flags: DescriptorFlags(flags) })
        }
        other => return Err(bad_value(at, format!("parameter {index}: parameter type"), other)),
    };
    Ok(RootParameter { visibility, kind })
}

fn decode_range(
    part: &Part,
    version: Version,
    parameter: u32,
    index: u32,
    at: u64,
) -> Result<DescriptorRange, RootSigError> {
    let what = || format!("parameter {parameter} range {index}");
    let (raw_class, count, base_register, space, flags, offset) = if version == Version::V1_0 {
        let [t, n, b, s, o] = part.dwords::<5>(at, what)?;
        (t, n, b, s, 0, o)
    } else {
        let [t, n, b, s, f, o] = part.dwords::<6>(at, what)?;
        (t, n, b, s, f, o)
    };
    let class = ResourceClass::from_index(u64::from(raw_class))
        .ok_or_else(|| bad_value(at, format!("parameter {parameter} range {index}: range type"), raw_class))?;
    Ok(DescriptorRange {
        class,
        count: (count != u32::MAX).then_some(count),
        base_register,
        space,
        flags: RangeFlags(flags),
        offset: if offset == u32::MAX { RangeOffset::Append } else { RangeOffset::At(offset) },
    })
}

fn decode_sampler(part: &Part, version: Version, index: u32, at: u64) -> Result<StaticSampler, RootSigError> {
    let what = || format!("static sampler {index}");
    let mut words = [0u32; 14];
    if version == Version::V1_2 {
        words = part.dwords::<14>(at, what)?;
    } else {
        let w13 = part.dwords::<13>(at, what)?;
        words[..13].copy_from_slice(&w13);
    }
    let field = |i: usize, name: &str| (at + 4 * i as u64, format!("static sampler {index}: {name}"), words[i]);
    let address = |i: usize, name: &str| {
        let (o, w, v) = field(i, name);
        AddressMode::from_raw(v).ok_or_else(|| bad_value(o, w, v))
    };
    let comparison = {
        let (o, w, v) = field(6, "comparison function");
        ComparisonFunc::from_raw(v).ok_or_else(|| bad_value(o, w, v))?
    };
    let border_color = {
        let (o, w, v) = field(7, "border color");
        BorderColor::from_raw(v).ok_or_else(|| bad_value(o, w, v))?
    };
    let visibility = {
        let (o, w, v) = field(12, "shader visibility");
        Visibility::from_raw(v).ok_or_else(|| bad_value(o, w, v))?
    };
    Ok(StaticSampler {
        // Checked by the validator (a packed bit field, kept raw in the model).
        filter: Filter(words[0]),
        address_u: address(1, "address U")?,
        address_v: address(2, "address V")?,
        address_w: address(3, "address W")?,
        mip_lod_bias: f32::from_bits(words[4]),
        max_anisotropy: words[5],
        comparison,
        border_color,
        min_lod: f32::from_bits(words[8]),
        max_lod: f32::from_bits(words[9]),
        register: words[10],
        space: words[11],
        visibility,
        flags: SamplerFlags(words[13]),
    })
}

/// Reads a root signature from a file's bytes: a DXBC container (its first `RTS0` part)
/// when the bytes start with `DXBC`, otherwise a bare `RTS0` part. Validated.
pub fn parse_rts0_file(bytes: &[u8]) -> Result<RootSignature, RootSigError> {
    if bytes.starts_with(b"DXBC") {
        let container = Container::parse(bytes)?;
        from_container(&container)?.ok_or(RootSigError::MissingPart)
    } else {
        parse_rts0(bytes)
    }
}

/// The container's root signature (its first `RTS0` part), validated; `None` without one.
pub fn from_container(container: &Container) -> Result<Option<RootSignature>, RootSigError> {
    container.chunk(FourCc::RTS0).map(|chunk| parse_rts0(chunk.data)).transpose()
}

/// Serializes in DXC's layout (see the module docs). The model is written as is, without
/// validation; fields the version lacks (1.0 flags, sampler flags below 1.2) are dropped.
pub fn to_rts0(rs: &RootSignature) -> Vec<u8> {
    let version = rs.version;
    let mut out: Vec<u32> = Vec::new();
    // Header; the two offsets are patched once known.
    out.extend([
        version as u32,
        rs.parameters.len() as u32,
        HEADER_SIZE as u32,
        rs.static_samplers.len() as u32,
        0,
        rs.flags.0,
    ]);
    let parameters_start = out.len();
    out.resize(parameters_start + 3 * rs.parameters.len(), 0);
    for (i, p) in rs.parameters.iter().enumerate() {
        let payload = (out.len() * 4) as u32;
        let kind = match &p.kind {
            ParameterKind::Table(ranges) => {
                let ranges_offset = payload + TABLE_SIZE as u32;
                out.extend([ranges.len() as u32, ranges_offset]);
                for r in ranges {
                    out.extend([r.class.index(), r.count.unwrap_or(u32::MAX), r.base_register, r.space]);
                    if version != Version::V1_0 {
                        out.push(r.flags.0);
                    }
                    out.push(match r.offset {
                        RangeOffset::Append => u32::MAX,
                        RangeOffset::At(o) => o,
                    });
                }
                PARAM_TABLE
            }
            ParameterKind::Constants(c) => {
                out.extend([c.register, c.space, c.num_values]);
                PARAM_CONSTANTS
            }
            ParameterKind::Descriptor(d) => {
                out.extend([d.register, d.space]);
                if version != Version::V1_0 {
                    out.push(d.flags.0);
                }
                match d.class {
                    ResourceClass::Cbv => PARAM_CBV,
                    ResourceClass::Srv => PARAM_SRV,
                    // A root descriptor of class Sampler is invalid (the validator says so);
                    // written as UAV only so that this function stays total.
                    ResourceClass::Uav | ResourceClass::Sampler => PARAM_UAV,
                }
            }
        };
        let entry = parameters_start + 3 * i;
        out[entry] = kind;
        out[entry + 1] = p.visibility as u32;
        out[entry + 2] = payload;
    }
    out[4] = (out.len() * 4) as u32;
    for s in &rs.static_samplers {
        out.extend([
            s.filter.0,
            s.address_u as u32,
            s.address_v as u32,
            s.address_w as u32,
            s.mip_lod_bias.to_bits(),
            s.max_anisotropy,
            s.comparison as u32,
            s.border_color as u32,
            s.min_lod.to_bits(),
            s.max_lod.to_bits(),
            s.register,
            s.space,
            s.visibility as u32,
        ]);
        if version == Version::V1_2 {
            out.push(s.flags.0);
        }
    }
    out.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Wraps [`to_rts0`] in a DXBC container holding just the `RTS0` part, as `dxc -T rootsig_1_x`
/// writes one (`container::header::write`). The hash is left zero (unsigned): DXC signs
/// with its validator, which this crate does not reimplement.
pub fn to_rts0_container(rs: &RootSignature) -> Vec<u8> {
    crate::front::container::header::write([0; 16], &[(b"RTS0", &to_rts0(rs))])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_signature_is_a_bare_header() {
        let rs =
            RootSignature { version: Version::V1_1, flags: RootFlags(1), parameters: vec![], static_samplers: vec![] };
        let bytes = to_rts0(&rs);
        assert_eq!(bytes.len(), 24);
        // Offsets of the empty arrays point at the end, as DXC's serializer reserves them.
        assert_eq!(&bytes[8..12], &24u32.to_le_bytes());
        assert_eq!(&bytes[16..20], &24u32.to_le_bytes());
        assert_eq!(parse_rts0(&bytes), Ok(rs));
    }

    #[test]
    fn huge_counts_are_rejected_before_allocating() {
        let mut bytes = vec![0u8; 24];
        bytes[0] = 2;
        bytes[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        bytes[8..12].copy_from_slice(&24u32.to_le_bytes());
        assert!(matches!(decode_rts0(&bytes), Err(RootSigError::CountTooLarge { count: u32::MAX, .. })));
    }

    #[test]
    fn bad_version_is_named() {
        let mut bytes = vec![0u8; 24];
        bytes[0] = 4;
        assert_eq!(decode_rts0(&bytes), Err(RootSigError::BadVersion(4)));
    }
}
