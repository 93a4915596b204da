//! D3D12's rules for a root signature, checked on the model after either parser.
//!
//! Sources: the D3D12 documentation ("Root Signature Limits", "Root Signature Version 1.1",
//! `D3D12_DESCRIPTOR_RANGE_FLAGS`, `D3D12_ROOT_DESCRIPTOR_FLAGS`, `D3D12_STATIC_SAMPLER_DESC`)
//! and DXC's root-signature verifier (`lib/DxilRootSignature/DxilRootSignatureValidator.cpp`),
//! which mirrors the runtime's checks. One [`Rule`] per check:
//!
//! - [`Rule::RootCost`]: at most 64 DWORDs of root arguments (table 1, root constants
//!   `num_values`, root descriptor 2).
//! - [`Rule::RegisterOverlap`]: no two bindings of one register class (static samplers
//!   count as sampler bindings) and space share a register when their visibilities
//!   intersect (equal, or either is `ALL`): across the whole signature, within one table too.
//! - [`Rule::RegisterOverflow`]: a bounded range's last register fits in 32 bits.
//! - [`Rule::OffsetOverflow`]: a bounded range's last descriptor offset fits in 32 bits.
//! - [`Rule::SamplersMixed`]: a table holds sampler ranges or CBV/SRV/UAV ranges, not both.
//! - [`Rule::ZeroCount`]: `NumDescriptors` is not 0.
//! - [`Rule::AppendAfterUnbounded`]: no `APPEND` range after an unbounded one.
//! - [`Rule::FlagsNotInVersion`]: no range/descriptor flags in 1.0; no sampler flags below 1.2.
//! - [`Rule::UnknownFlag`]: no bits outside each flag kind's defined set.
//! - [`Rule::FlagCombination`]: at most one `DATA_*` flag; not `DESCRIPTORS_VOLATILE` with
//!   `DATA_STATIC`; not `DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS` with
//!   `DESCRIPTORS_VOLATILE` (D3D12's flag documentation; DXC's verifier predates the flag);
//!   no `DATA_*` flag on sampler ranges.
//! - [`Rule::BadEnum`]: the filter is a defined `D3D12_FILTER` (the other enumerations are
//!   typed in the model, so their parsers already reject unknown values); a comparison
//!   filter's comparison function is not `NONE`.
//! - [`Rule::SamplerRootDescriptor`]: root CBV/SRV/UAV only.
//! - [`Rule::SamplerField`]: `MaxAnisotropy <= 16`; `MipLODBias` in `[-16, 15.99]`
//!   (`D3D12_MIP_LOD_BIAS_MIN/MAX`); `MinLOD`, `MaxLOD` not NaN (infinities are allowed,
//!   as in DXC's verifier; the printer writes them `inf`, an extension of ours).
//! - [`Rule::ReservedSpace`]: register spaces `0xFFFFFFF0..=0xFFFFFFFF` are reserved.
//!
//! Deliberately not rejected, because D3D12 accepts them (or we could not confirm it rejects
//! them): empty descriptor tables (DXC's string parser can write one,
//! `DescriptorTable(visibility = ...)`, and its verifier has no check); ranges of one table
//! whose descriptor offsets overlap (D3D12 allows aliasing descriptors within a table; DXC's
//! verifier checks only offset overflow); `Num32BitValues = 0`; `MinLOD > MaxLOD`; root
//! flag combinations (only unknown bits are checked); `NON_NORMALIZED_COORDINATES` together
//! with filters or address modes it does not support.

use super::error::{RootSigError, Rule};
use super::model::*;

/// D3D12's limit on the root arguments, in DWORDs.
pub const MAX_ROOT_COST: u64 = 64;

/// The first register space D3D12 reserves for the system.
pub const RESERVED_SPACE_START: u32 = 0xFFFF_FFF0;

/// Root arguments' size in DWORDs (table 1, constants `num_values`, descriptor 2).
pub fn root_cost(rs: &RootSignature) -> u64 {
    rs.parameters
        .iter()
        .map(|p| match &p.kind {
            ParameterKind::Table(_) => 1,
            ParameterKind::Constants(c) => u64::from(c.num_values),
            ParameterKind::Descriptor(_) => 2,
        })
        .sum()
}

/// One binding's registers, for the overlap check.
struct Binding {
    class: ResourceClass,
    space: u32,
    first: u64,
    /// Inclusive; `u32::MAX` for an unbounded range.
    last: u64,
    visibility: Visibility,
    element: String,
}

/// Checks every rule of the module docs; the first broken one is returned.
pub fn validate(rs: &RootSignature) -> Result<(), RootSigError> {
    if rs.flags.0 & !RootFlags::ALL != 0 {
        return Err(RootSigError::invalid(
            Rule::UnknownFlag,
            "root flags",
            format!("unknown bits {:#x}", rs.flags.0 & !RootFlags::ALL),
        ));
    }
    let mut bindings = Vec::new();
    for (i, p) in rs.parameters.iter().enumerate() {
        match &p.kind {
            ParameterKind::Table(ranges) => check_table(rs.version, i, p.visibility, ranges, &mut bindings)?,
            ParameterKind::Constants(c) => {
                let element = format!("parameter {i} (root constants)");
                check_space(c.space, &element)?;
                let first = u64::from(c.register);
                bindings.push(Binding {
                    class: ResourceClass::Cbv,
                    space: c.space,
                    first,
                    last: first,
                    visibility: p.visibility,
                    element,
                });
            }
            ParameterKind::Descriptor(d) => {
                let element = format!("parameter {i} (root {})", d.class.name());
                if d.class == ResourceClass::Sampler {
                    return Err(RootSigError::invalid(
                        Rule::SamplerRootDescriptor,
                        element,
                        "a root descriptor must be a CBV, SRV or UAV",
                    ));
                }
                check_space(d.space, &element)?;
                check_descriptor_flags(rs.version, d.flags, &element)?;
                let first = u64::from(d.register);
                bindings.push(Binding {
                    class: d.class,
                    space: d.space,
                    first,
                    last: first,
                    visibility: p.visibility,
                    element,
                });
            }
        }
    }
    for (k, s) in rs.static_samplers.iter().enumerate() {
        let element = format!("static sampler {k}");
        check_sampler(rs.version, s, &element)?;
        let first = u64::from(s.register);
        bindings.push(Binding {
            class: ResourceClass::Sampler,
            space: s.space,
            first,
            last: first,
            visibility: s.visibility,
            element,
        });
    }
    let cost = root_cost(rs);
    if cost > MAX_ROOT_COST {
        return Err(RootSigError::invalid(
            Rule::RootCost,
            "root parameters",
            format!("{cost} DWORDs of root arguments, more than D3D12's {MAX_ROOT_COST}"),
        ));
    }
    check_overlaps(bindings)
}

fn check_space(space: u32, element: &str) -> Result<(), RootSigError> {
    if space >= RESERVED_SPACE_START {
        return Err(RootSigError::invalid(
            Rule::ReservedSpace,
            element,
            format!("register space {space:#x} is reserved for the system"),
        ));
    }
    Ok(())
}

fn check_table(
    version: Version,
    index: usize,
    visibility: Visibility,
    ranges: &[DescriptorRange],
    bindings: &mut Vec<Binding>,
) -> Result<(), RootSigError> {
    let mut has_samplers = false;
    let mut has_resources = false;
    // Where an appended range would start; `None` after an unbounded range.
    let mut next_offset: Option<u64> = Some(0);
    for (j, r) in ranges.iter().enumerate() {
        let element = format!("parameter {index} range {j} ({})", r.class.name());
        if r.class == ResourceClass::Sampler {
            has_samplers = true;
        } else {
            has_resources = true;
        }
        if has_samplers && has_resources {
            return Err(RootSigError::invalid(
                Rule::SamplersMixed,
                element,
                "a descriptor table cannot mix samplers with CBV/SRV/UAV ranges",
            ));
        }
        if r.count == Some(0) {
            return Err(RootSigError::invalid(Rule::ZeroCount, element, "numDescriptors is 0"));
        }
        check_space(r.space, &element)?;
        check_range_flags(version, r, &element)?;
        let start = match r.offset {
            RangeOffset::At(o) => u64::from(o),
            RangeOffset::Append => match next_offset {
                Some(o) => o,
                None => {
                    return Err(RootSigError::invalid(
                        Rule::AppendAfterUnbounded,
                        element,
                        "offset APPEND after an unbounded range has no defined start",
                    ))
                }
            },
        };
        let first = u64::from(r.base_register);
        let last = match r.count {
            Some(n) => {
                let last = last_of(first, n, Rule::RegisterOverflow, &element, "registers")?;
                last_of(start, n, Rule::OffsetOverflow, &element, "descriptor offsets")?;
                next_offset = Some(start + u64::from(n));
                last
            }
            None => {
                next_offset = None;
                u64::from(u32::MAX)
            }
        };
        bindings.push(Binding { class: r.class, space: r.space, first, last, visibility, element });
    }
    Ok(())
}

/// The last of `n` (at least 1) consecutive values from `first`, which must fit in 32 bits
/// (else an error of `rule` on `element`, the values named `what`).
fn last_of(first: u64, n: u32, rule: Rule, element: &str, what: &str) -> Result<u64, RootSigError> {
    let last = first + u64::from(n) - 1;
    if last > u64::from(u32::MAX) {
        return Err(RootSigError::invalid(rule, element, format!("{what} {first}..={last} overflow 32 bits")));
    }
    Ok(last)
}

/// The rules every flags field of version 1.1 shares: none in 1.0, no unknown bits.
/// `Ok(false)` when there are no flags (nothing more to check).
fn check_flag_bits(version: Version, f: u32, known: u32, what: &str, element: &str) -> Result<bool, RootSigError> {
    if f == 0 {
        return Ok(false);
    }
    if version == Version::V1_0 {
        return Err(RootSigError::invalid(
            Rule::FlagsNotInVersion,
            element,
            format!("{what} flags need root signature 1.1"),
        ));
    }
    if f & !known != 0 {
        return Err(RootSigError::invalid(
            Rule::UnknownFlag,
            element,
            format!("unknown {what} flag bits {:#x}", f & !known),
        ));
    }
    Ok(true)
}

fn check_range_flags(version: Version, r: &DescriptorRange, element: &str) -> Result<(), RootSigError> {
    let f = r.flags.0;
    if !check_flag_bits(version, f, RangeFlags::ALL, "descriptor range", element)? {
        return Ok(());
    }
    let data = f & (RangeFlags::DATA_VOLATILE | RangeFlags::DATA_STATIC_WHILE_SET_AT_EXECUTE | RangeFlags::DATA_STATIC);
    if r.class == ResourceClass::Sampler && data != 0 {
        return Err(RootSigError::invalid(
            Rule::FlagCombination,
            element,
            "sampler ranges take no DATA_* flags (no data lies behind a sampler)",
        ));
    }
    if data.count_ones() > 1 {
        return Err(RootSigError::invalid(Rule::FlagCombination, element, "at most one DATA_* flag"));
    }
    let descriptors_volatile = f & RangeFlags::DESCRIPTORS_VOLATILE != 0;
    if descriptors_volatile && data == RangeFlags::DATA_STATIC {
        return Err(RootSigError::invalid(
            Rule::FlagCombination,
            element,
            "DESCRIPTORS_VOLATILE cannot be combined with DATA_STATIC",
        ));
    }
    if descriptors_volatile && f & RangeFlags::DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS != 0 {
        return Err(RootSigError::invalid(
            Rule::FlagCombination,
            element,
            "DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS cannot be combined with DESCRIPTORS_VOLATILE",
        ));
    }
    Ok(())
}

fn check_descriptor_flags(version: Version, flags: DescriptorFlags, element: &str) -> Result<(), RootSigError> {
    let f = flags.0;
    if !check_flag_bits(version, f, DescriptorFlags::ALL, "root descriptor", element)? {
        return Ok(());
    }
    if f.count_ones() > 1 {
        return Err(RootSigError::invalid(Rule::FlagCombination, element, "at most one DATA_* flag"));
    }
    Ok(())
}

fn check_sampler(version: Version, s: &StaticSampler, element: &str) -> Result<(), RootSigError> {
    if !s.filter.is_valid() {
        return Err(RootSigError::invalid(
            Rule::BadEnum,
            element,
            format!("filter {:#x} is not a D3D12_FILTER", s.filter.0),
        ));
    }
    if s.max_anisotropy > 16 {
        return Err(RootSigError::invalid(
            Rule::SamplerField,
            element,
            format!("maxAnisotropy {} is above 16", s.max_anisotropy),
        ));
    }
    // DXC's verifier (mirroring the runtime's sampler checks) rejects only NaN LODs;
    // infinities are fine there.
    for (name, value) in [("minLOD", s.min_lod), ("maxLOD", s.max_lod)] {
        if value.is_nan() {
            return Err(RootSigError::invalid(Rule::SamplerField, element, format!("{name} is NaN")));
        }
    }
    // Also false for NaN.
    if !(-16.0..=15.99).contains(&s.mip_lod_bias) {
        return Err(RootSigError::invalid(
            Rule::SamplerField,
            element,
            format!("mipLODBias {} is outside [-16, 15.99]", s.mip_lod_bias),
        ));
    }
    // The comparison function matters only for comparison filters (DXC checks it only
    // there), so `NONE` (0) is fine elsewhere in any version: zero-initialised
    // descriptors serialized by the runtime carry it.
    if s.comparison == ComparisonFunc::None && s.filter.reduction() == 1 {
        return Err(RootSigError::invalid(
            Rule::BadEnum,
            element,
            "a comparison filter needs a comparison function other than NONE",
        ));
    }
    if s.flags.0 != 0 {
        if version < Version::V1_2 {
            return Err(RootSigError::invalid(
                Rule::FlagsNotInVersion,
                element,
                "static sampler flags need root signature 1.2",
            ));
        }
        if s.flags.0 & !SamplerFlags::ALL != 0 {
            return Err(RootSigError::invalid(
                Rule::UnknownFlag,
                element,
                format!("unknown sampler flag bits {:#x}", s.flags.0 & !SamplerFlags::ALL),
            ));
        }
    }
    check_space(s.space, element)
}

/// Sorts the bindings by (class, space, first register) and sweeps each group, keeping per
/// visibility the binding reaching furthest: O(n log n), so a hostile blob with many
/// ranges cannot make validation quadratic.
fn check_overlaps(mut bindings: Vec<Binding>) -> Result<(), RootSigError> {
    bindings.sort_by_key(|b| (b.class, b.space, b.first, b.last));
    let mut group: Option<(ResourceClass, u32)> = None;
    // Per visibility (index = D3D value): the furthest-reaching binding seen in the group.
    let mut reach: [Option<usize>; 8] = [None; 8];
    for (i, b) in bindings.iter().enumerate() {
        if group != Some((b.class, b.space)) {
            group = Some((b.class, b.space));
            reach = [None; 8];
        }
        let candidates: Vec<usize> = if b.visibility == Visibility::All {
            reach.iter().flatten().copied().collect()
        } else {
            [reach[Visibility::All as usize], reach[b.visibility as usize]].into_iter().flatten().collect()
        };
        if let Some(&j) = candidates.iter().find(|&&j| bindings[j].last >= b.first) {
            let other = &bindings[j];
            return Err(RootSigError::invalid(
                Rule::RegisterOverlap,
                b.element.clone(),
                format!(
                    "registers {}{}..={} space {} overlap {} (visibilities {:?} and {:?})",
                    b.class.register_letter(),
                    b.first,
                    b.last,
                    b.space,
                    other.element,
                    b.visibility,
                    other.visibility
                ),
            ));
        }
        let slot = &mut reach[b.visibility as usize];
        if slot.is_none_or(|j| bindings[j].last < b.last) {
            *slot = Some(i);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(visibility: Visibility, ranges: Vec<DescriptorRange>) -> RootParameter {
        RootParameter { visibility, kind: ParameterKind::Table(ranges) }
    }

    fn sig(parameters: Vec<RootParameter>) -> RootSignature {
        RootSignature { version: Version::V1_1, flags: RootFlags(0), parameters, static_samplers: vec![] }
    }

    #[test]
    fn overlap_needs_intersecting_visibility() {
        let a = table(Visibility::Pixel, vec![DescriptorRange::new(ResourceClass::Srv, 0)]);
        let b = table(Visibility::Vertex, vec![DescriptorRange::new(ResourceClass::Srv, 0)]);
        assert_eq!(validate(&sig(vec![a.clone(), b])), Ok(()));
        let c = table(Visibility::All, vec![DescriptorRange::new(ResourceClass::Srv, 0)]);
        assert_eq!(validate(&sig(vec![a, c])).unwrap_err().rule(), Some(Rule::RegisterOverlap));
    }

    #[test]
    fn overlap_found_behind_a_longer_range_of_another_visibility() {
        // Pixel t0..t9, Vertex t1, Pixel t5: the Pixel pair overlaps although the Vertex
        // binding sorts between them.
        let mut wide = DescriptorRange::new(ResourceClass::Srv, 0);
        wide.count = Some(10);
        let rs = sig(vec![
            table(Visibility::Pixel, vec![wide]),
            table(Visibility::Vertex, vec![DescriptorRange::new(ResourceClass::Srv, 1)]),
            table(Visibility::Pixel, vec![DescriptorRange::new(ResourceClass::Srv, 5)]),
        ]);
        assert_eq!(validate(&rs).unwrap_err().rule(), Some(Rule::RegisterOverlap));
    }

    #[test]
    fn different_spaces_and_classes_do_not_overlap() {
        let mut r = DescriptorRange::new(ResourceClass::Srv, 0);
        r.space = 1;
        let rs = sig(vec![table(
            Visibility::All,
            vec![DescriptorRange::new(ResourceClass::Srv, 0), r, DescriptorRange::new(ResourceClass::Uav, 0)],
        )]);
        assert_eq!(validate(&rs), Ok(()));
    }
}
