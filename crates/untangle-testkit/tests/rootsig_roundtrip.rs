//! Root signatures: string → model → RTS0 → model round trips over signatures covering
//! every element, argument, flag, visibility, filter, address mode, comparison function and
//! border colour; DXC's byte layout checked word by word; typed errors for malformed
//! binaries, malformed strings and each validation rule; and a seeded mutation loop.

use untangle::rootsig::*;

use Version::{V1_0, V1_1, V1_2};

/// (version, string): every construct of the grammar at least once.
const CASES: &[(Version, &str)] = &[
    (V1_0, ""),
    (V1_0, "RootFlags(0)"),
    (
        V1_1,
        "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | DENY_VERTEX_SHADER_ROOT_ACCESS | DENY_HULL_SHADER_ROOT_ACCESS | \
         DENY_DOMAIN_SHADER_ROOT_ACCESS | DENY_GEOMETRY_SHADER_ROOT_ACCESS | DENY_PIXEL_SHADER_ROOT_ACCESS)",
    ),
    (
        V1_1,
        "RootFlags(ALLOW_STREAM_OUTPUT | DENY_AMPLIFICATION_SHADER_ROOT_ACCESS | DENY_MESH_SHADER_ROOT_ACCESS | \
         CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED | SAMPLER_HEAP_DIRECTLY_INDEXED)",
    ),
    (V1_1, "RootFlags(LOCAL_ROOT_SIGNATURE), CBV(b0)"),
    (V1_0, "RootConstants(num32BitConstants = 4, b0)"),
    (V1_1, "RootConstants(b3, space = 2, num32BitConstants = 16, visibility = SHADER_VISIBILITY_VERTEX)"),
    (
        V1_1,
        "CBV(b0, visibility = SHADER_VISIBILITY_HULL), SRV(t0, visibility = SHADER_VISIBILITY_DOMAIN), \
         UAV(u0, visibility = SHADER_VISIBILITY_GEOMETRY)",
    ),
    (
        V1_1,
        "CBV(b0, visibility = SHADER_VISIBILITY_PIXEL), CBV(b0, visibility = SHADER_VISIBILITY_AMPLIFICATION), \
         CBV(b0, visibility = SHADER_VISIBILITY_MESH), CBV(b1, visibility = SHADER_VISIBILITY_ALL)",
    ),
    (
        V1_1,
        "CBV(b0, flags = DATA_VOLATILE), SRV(t0, flags = DATA_STATIC), UAV(u0, flags = DATA_STATIC_WHILE_SET_AT_EXECUTE), \
         CBV(b1, flags = 0)",
    ),
    (V1_0, "CBV(b0, space = 1), SRV(t5, space = 3), UAV(u7, space = 4)"),
    (
        V1_1,
        "DescriptorTable(CBV(b0, flags = DESCRIPTORS_VOLATILE), SRV(t0, flags = DATA_VOLATILE), SRV(t1, flags = DATA_STATIC), \
         SRV(t2, flags = DATA_STATIC_WHILE_SET_AT_EXECUTE), UAV(u0, flags = DESCRIPTORS_VOLATILE | DATA_VOLATILE), \
         UAV(u1, flags = DESCRIPTORS_VOLATILE | DATA_STATIC_WHILE_SET_AT_EXECUTE), \
         SRV(t3, flags = DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS), SRV(t4, flags = 0))",
    ),
    (V1_1, "DescriptorTable(Sampler(s0, numDescriptors = 4, flags = DESCRIPTORS_VOLATILE), visibility = SHADER_VISIBILITY_PIXEL)"),
    (V1_0, "DescriptorTable(SRV(t0, numDescriptors = unbounded))"),
    (
        V1_1,
        "DescriptorTable(SRV(t0, numDescriptors = 2, offset = 4), UAV(u0, numDescriptors = 2, offset = 0), \
         CBV(b0, offset = DESCRIPTOR_RANGE_OFFSET_APPEND))",
    ),
    (
        V1_1,
        "DescriptorTable(SRV(t0, space = 1, numDescriptors = unbounded, offset = 0), \
         UAV(u0, space = 2, numDescriptors = unbounded, offset = 0), CBV(b0, space = 3, numDescriptors = unbounded, offset = 0))",
    ),
    (
        V1_1,
        "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), CBV(b0), \
         DescriptorTable(SRV(t0, numDescriptors = 8), visibility = SHADER_VISIBILITY_PIXEL), \
         DescriptorTable(Sampler(s0, numDescriptors = 2), visibility = SHADER_VISIBILITY_PIXEL)",
    ),
    (V1_0, "StaticSampler(s0)"),
    (
        V1_0,
        "StaticSampler(s0, filter = FILTER_MIN_MAG_MIP_POINT), StaticSampler(s1, filter = FILTER_MIN_MAG_POINT_MIP_LINEAR), \
         StaticSampler(s2, filter = FILTER_MIN_POINT_MAG_LINEAR_MIP_POINT), StaticSampler(s3, filter = FILTER_MIN_POINT_MAG_MIP_LINEAR), \
         StaticSampler(s4, filter = FILTER_MIN_LINEAR_MAG_MIP_POINT), StaticSampler(s5, filter = FILTER_MIN_LINEAR_MAG_POINT_MIP_LINEAR), \
         StaticSampler(s6, filter = FILTER_MIN_MAG_LINEAR_MIP_POINT), StaticSampler(s7, filter = FILTER_MIN_MAG_MIP_LINEAR), \
         StaticSampler(s8, filter = FILTER_ANISOTROPIC)",
    ),
    (
        V1_1,
        "StaticSampler(s0, filter = FILTER_COMPARISON_MIN_MAG_MIP_POINT), StaticSampler(s1, filter = FILTER_COMPARISON_MIN_MAG_POINT_MIP_LINEAR), \
         StaticSampler(s2, filter = FILTER_COMPARISON_MIN_POINT_MAG_LINEAR_MIP_POINT), \
         StaticSampler(s3, filter = FILTER_COMPARISON_MIN_POINT_MAG_MIP_LINEAR), \
         StaticSampler(s4, filter = FILTER_COMPARISON_MIN_LINEAR_MAG_MIP_POINT), \
         StaticSampler(s5, filter = FILTER_COMPARISON_MIN_LINEAR_MAG_POINT_MIP_LINEAR), \
         StaticSampler(s6, filter = FILTER_COMPARISON_MIN_MAG_LINEAR_MIP_POINT), StaticSampler(s7, filter = FILTER_COMPARISON_MIN_MAG_MIP_LINEAR), \
         StaticSampler(s8, filter = FILTER_COMPARISON_ANISOTROPIC)",
    ),
    (
        V1_1,
        "StaticSampler(s0, filter = FILTER_MINIMUM_MIN_MAG_MIP_POINT), StaticSampler(s1, filter = FILTER_MINIMUM_MIN_MAG_POINT_MIP_LINEAR), \
         StaticSampler(s2, filter = FILTER_MINIMUM_MIN_POINT_MAG_LINEAR_MIP_POINT), StaticSampler(s3, filter = FILTER_MINIMUM_MIN_POINT_MAG_MIP_LINEAR), \
         StaticSampler(s4, filter = FILTER_MINIMUM_MIN_LINEAR_MAG_MIP_POINT), \
         StaticSampler(s5, filter = FILTER_MINIMUM_MIN_LINEAR_MAG_POINT_MIP_LINEAR), \
         StaticSampler(s6, filter = FILTER_MINIMUM_MIN_MAG_LINEAR_MIP_POINT), StaticSampler(s7, filter = FILTER_MINIMUM_MIN_MAG_MIP_LINEAR), \
         StaticSampler(s8, filter = FILTER_MINIMUM_ANISOTROPIC)",
    ),
    (
        V1_1,
        "StaticSampler(s0, filter = FILTER_MAXIMUM_MIN_MAG_MIP_POINT), StaticSampler(s1, filter = FILTER_MAXIMUM_MIN_MAG_POINT_MIP_LINEAR), \
         StaticSampler(s2, filter = FILTER_MAXIMUM_MIN_POINT_MAG_LINEAR_MIP_POINT), StaticSampler(s3, filter = FILTER_MAXIMUM_MIN_POINT_MAG_MIP_LINEAR), \
         StaticSampler(s4, filter = FILTER_MAXIMUM_MIN_LINEAR_MAG_MIP_POINT), \
         StaticSampler(s5, filter = FILTER_MAXIMUM_MIN_LINEAR_MAG_POINT_MIP_LINEAR), \
         StaticSampler(s6, filter = FILTER_MAXIMUM_MIN_MAG_LINEAR_MIP_POINT), StaticSampler(s7, filter = FILTER_MAXIMUM_MIN_MAG_MIP_LINEAR), \
         StaticSampler(s8, filter = FILTER_MAXIMUM_ANISOTROPIC)",
    ),
    (
        V1_0,
        "StaticSampler(s0, addressU = TEXTURE_ADDRESS_MIRROR, addressV = TEXTURE_ADDRESS_CLAMP, addressW = TEXTURE_ADDRESS_BORDER), \
         StaticSampler(s1, addressU = TEXTURE_ADDRESS_MIRROR_ONCE, addressV = TEXTURE_ADDRESS_WRAP, addressW = TEXTURE_ADDRESS_MIRROR_ONCE)",
    ),
    (
        V1_1,
        "StaticSampler(s0, comparisonFunc = COMPARISON_NEVER), StaticSampler(s1, comparisonFunc = COMPARISON_LESS), \
         StaticSampler(s2, comparisonFunc = COMPARISON_EQUAL), StaticSampler(s3, comparisonFunc = COMPARISON_LESS_EQUAL), \
         StaticSampler(s4, comparisonFunc = COMPARISON_GREATER), StaticSampler(s5, comparisonFunc = COMPARISON_NOT_EQUAL), \
         StaticSampler(s6, comparisonFunc = COMPARISON_GREATER_EQUAL), StaticSampler(s7, comparisonFunc = COMPARISON_ALWAYS)",
    ),
    (
        V1_1,
        "StaticSampler(s0, borderColor = STATIC_BORDER_COLOR_TRANSPARENT_BLACK), StaticSampler(s1, borderColor = STATIC_BORDER_COLOR_OPAQUE_BLACK), \
         StaticSampler(s2, borderColor = STATIC_BORDER_COLOR_OPAQUE_WHITE), StaticSampler(s3, borderColor = STATIC_BORDER_COLOR_OPAQUE_BLACK_UINT), \
         StaticSampler(s4, borderColor = STATIC_BORDER_COLOR_OPAQUE_WHITE_UINT)",
    ),
    (
        V1_1,
        "StaticSampler(s0, mipLODBias = -1.5, minLOD = 1, maxLOD = 8.25f, maxAnisotropy = 8), \
         StaticSampler(s1, mipLODBias = 15.99, maxAnisotropy = 0, minLOD = .5, maxLOD = 1e3), \
         StaticSampler(s2, mipLODBias = -16, minLOD = -3.5e+2, maxLOD = 0)",
    ),
    (
        V1_1,
        "StaticSampler(s0, space = 3, visibility = SHADER_VISIBILITY_PIXEL), StaticSampler(s0, space = 3, visibility = SHADER_VISIBILITY_VERTEX), \
         StaticSampler(s0, space = 4)",
    ),
    (
        V1_2,
        "StaticSampler(s0, flags = UINT_BORDER_COLOR, borderColor = STATIC_BORDER_COLOR_OPAQUE_WHITE_UINT), \
         StaticSampler(s1, flags = NON_NORMALIZED_COORDINATES | UINT_BORDER_COLOR, filter = FILTER_MIN_MAG_MIP_POINT, \
         addressU = TEXTURE_ADDRESS_CLAMP, addressV = TEXTURE_ADDRESS_CLAMP, maxLOD = 0), \
         StaticSampler(s2, comparisonFunc = COMPARISON_NONE, flags = 0)",
    ),
    (
        V1_2,
        "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED), \
         RootConstants(num32BitConstants = 8, b0, space = 1), CBV(b1, flags = DATA_STATIC), SRV(t0, space = 2), UAV(u0, visibility = SHADER_VISIBILITY_PIXEL), \
         DescriptorTable(SRV(t1, numDescriptors = unbounded, flags = DESCRIPTORS_VOLATILE), visibility = SHADER_VISIBILITY_PIXEL), \
         DescriptorTable(Sampler(s0, numDescriptors = 16, space = 1)), \
         StaticSampler(s0, filter = FILTER_COMPARISON_MIN_MAG_MIP_LINEAR, comparisonFunc = COMPARISON_GREATER, flags = UINT_BORDER_COLOR, \
         borderColor = STATIC_BORDER_COLOR_OPAQUE_BLACK_UINT)",
    ),
    (
        V1_0,
        "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | DENY_HULL_SHADER_ROOT_ACCESS), RootConstants(num32BitConstants = 2, b0), \
         CBV(b1), DescriptorTable(SRV(t0, numDescriptors = 4), UAV(u0, numDescriptors = 2), CBV(b2)), \
         DescriptorTable(Sampler(s1, numDescriptors = 2)), StaticSampler(s0, filter = FILTER_MIN_MAG_MIP_LINEAR)",
    ),
    // Case-insensitive keywords, arguments in any order.
    (V1_1, "descriptortable(visibility=shader_visibility_pixel, uav(NUMDESCRIPTORS=3, u1, SPACE=2)), cbv(space = 7, b4)"),
    // An empty table (D3D12 accepts it; DXC's string needs an argument to write one).
    (V1_1, "DescriptorTable(visibility = SHADER_VISIBILITY_ALL), DescriptorTable(visibility = SHADER_VISIBILITY_MESH)"),
    // The C string pieces of a #define.
    (V1_1, "\"RootFlags(0), \" \\\n  \"CBV(b0), \"\n\"SRV(t0)\""),
    // Exactly 64 DWORDs.
    (V1_1, "RootConstants(num32BitConstants = 62, b0), CBV(b1)"),
    // Tabs, newlines, carriage returns.
    (V1_1, "CBV(b0)\r\n,\tDescriptorTable(\n\tSRV(t0,\n numDescriptors = 2)\n)\n"),
    // An explicit offset after an unbounded range is fine; numeric 0xFFFFFFFF spells unbounded/APPEND.
    (
        V1_1,
        "DescriptorTable(SRV(t0, numDescriptors = unbounded), SRV(t0, space = 1, offset = 100), \
         UAV(u0, numDescriptors = 4294967295, offset = 4294967295))",
    ),
    (V1_2, "RootConstants(num32BitConstants = 0, b0), DescriptorTable(UAV(u0, numDescriptors = 4, flags = DATA_VOLATILE))"),
];

#[test]
fn strings_round_trip_through_rts0_and_back_to_text() {
    assert!(CASES.len() >= 30);
    for &(version, text) in CASES {
        let rs = parse_hlsl(text, version).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(rs.version, version);
        let bytes = to_rts0(&rs);
        assert_eq!(bytes.len() % 4, 0);
        let back = parse_rts0(&bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back, rs, "{text}");
        assert_eq!(to_rts0(&back), bytes, "{text}");
        let printed = to_hlsl(&rs);
        let reparsed = parse_hlsl(&printed, version).unwrap_or_else(|e| panic!("{printed}: {e}"));
        assert_eq!(reparsed, rs, "{text}\n--- printed ---\n{printed}");
        assert_eq!(to_hlsl(&reparsed), printed);
        // The same part inside a DXBC container.
        assert_eq!(parse_rts0_file(&to_rts0_container(&rs)), Ok(rs.clone()));
        assert_eq!(parse_rts0_file(&bytes), Ok(rs));
    }
}

#[test]
fn defaults_are_dxcs() {
    let rs = parse_hlsl("DescriptorTable(SRV(t3)), StaticSampler(s1)", V1_1).unwrap();
    assert_eq!(rs.parameters[0].visibility, Visibility::All);
    let ParameterKind::Table(ranges) = &rs.parameters[0].kind else { panic!() };
    assert_eq!(ranges, &vec![DescriptorRange::new(ResourceClass::Srv, 3)]);
    assert_eq!(rs.static_samplers, vec![StaticSampler::with_defaults(1)]);
    let rs = parse_hlsl("StaticSampler(s0, maxLOD = 3.402823466e+38f, mipLODBias = 0.0f)", V1_0).unwrap();
    assert_eq!(rs.static_samplers, vec![StaticSampler::with_defaults(0)]);
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

const APPEND: u32 = 0xFFFF_FFFF;
const FLT_MAX_BITS: u32 = 0x7F7F_FFFF;

/// A 1.1 table with two ranges, root constants and a static sampler, laid out by hand from
/// DXC's serializer order (header, parameters, payloads, samplers).
#[test]
fn layout_of_table_constants_and_sampler_matches_dxc() {
    let rs = parse_hlsl(
        "DescriptorTable(SRV(t0, numDescriptors = 2), CBV(b1, space = 1, flags = DATA_STATIC)), \
         RootConstants(num32BitConstants = 3, b0, visibility = SHADER_VISIBILITY_PIXEL), \
         StaticSampler(s2, filter = FILTER_MIN_MAG_MIP_LINEAR)",
        V1_1,
    )
    .unwrap();
    #[rustfmt::skip]
    let expected = words(&[
        // 0x00 header: version 1.1, 2 parameters at 0x18, 1 sampler at 0x74, no flags
        2, 2, 0x18, 1, 0x74, 0,
        // 0x18 parameter 0: table, ALL, payload 0x30; 0x24 parameter 1: constants, PIXEL, payload 0x68
        0, 0, 0x30,
        1, 5, 0x68,
        // 0x30 table: 2 ranges at 0x38
        2, 0x38,
        // 0x38 range 0: SRV, 2, t0, space 0, flags 0, APPEND
        0, 2, 0, 0, 0, APPEND,
        // 0x50 range 1: CBV, 1, b1, space 1, DATA_STATIC, APPEND
        2, 1, 1, 1, 8, APPEND,
        // 0x68 root constants: b0, space 0, 3 values
        0, 0, 3,
        // 0x74 sampler: filter 0x15, WRAP x3, bias 0.0, aniso 16, LESS_EQUAL, OPAQUE_WHITE,
        // minLOD 0.0, maxLOD FLT_MAX, s2, space 0, ALL
        0x15, 1, 1, 1, 0, 16, 4, 2, 0, FLT_MAX_BITS, 2, 0, 0,
    ]);
    assert_eq!(to_rts0(&rs), expected);
    assert_eq!(parse_rts0(&expected), Ok(rs));
}

/// A 1.0 signature: root CBV (8-byte descriptor) and an unbounded sampler table (20-byte range).
#[test]
fn layout_of_v1_0_descriptor_and_sampler_table_matches_dxc() {
    let rs = parse_hlsl("RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), CBV(b0), DescriptorTable(Sampler(s0, numDescriptors = unbounded, space = 1))", V1_0).unwrap();
    #[rustfmt::skip]
    let expected = words(&[
        // header: 1.0, 2 parameters at 0x18, 0 samplers at the end (0x54), flags 1
        1, 2, 0x18, 0, 0x54, 1,
        // parameter 0: CBV, ALL, payload 0x30; parameter 1: table, ALL, payload 0x38
        2, 0, 0x30,
        0, 0, 0x38,
        // 0x30 root descriptor: b0, space 0
        0, 0,
        // 0x38 table: 1 range at 0x40
        1, 0x40,
        // 0x40 range: Sampler, unbounded, s0, space 1, APPEND
        3, 0xFFFF_FFFF, 0, 1, APPEND,
    ]);
    assert_eq!(to_rts0(&rs), expected);
    assert_eq!(parse_rts0(&expected), Ok(rs));
}

/// 1.2: the 56-byte static sampler with its trailing flags.
#[test]
fn layout_of_v1_2_sampler_has_flags() {
    let rs = parse_hlsl(
        "StaticSampler(s0, flags = UINT_BORDER_COLOR, borderColor = STATIC_BORDER_COLOR_OPAQUE_WHITE_UINT)",
        V1_2,
    )
    .unwrap();
    #[rustfmt::skip]
    let expected = words(&[
        3, 0, 0x18, 1, 0x18, 0,
        0x55, 1, 1, 1, 0, 16, 4, 4, 0, FLT_MAX_BITS, 0, 0, 0, 1,
    ]);
    assert_eq!(to_rts0(&rs), expected);
}

/// Blobs for the malformed-input tests: a few of the cases, serialized.
fn blobs() -> Vec<Vec<u8>> {
    [4, 12, 15, 17, 24, 27, 28, 29].iter().map(|&i| to_rts0(&parse_hlsl(CASES[i].1, CASES[i].0).unwrap())).collect()
}

#[test]
fn every_truncation_is_an_error() {
    for blob in blobs() {
        for len in 0..blob.len() {
            let err = decode_rts0(&blob[..len]).expect_err("a truncated blob parsed");
            assert!(
                matches!(err, RootSigError::Truncated { .. } | RootSigError::CountTooLarge { .. }),
                "prefix {len}: {err:?}"
            );
        }
    }
}

fn put(bytes: &mut [u8], offset: usize, value: u32) {
    bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
}

fn table_blob() -> Vec<u8> {
    // Parameter 0 CBV at payload 0x30, parameter 1 table at 0x3c with ranges at 0x44.
    to_rts0(&parse_hlsl("CBV(b0), DescriptorTable(SRV(t0), UAV(u0)), StaticSampler(s0)", V1_1).unwrap())
}

#[test]
fn offsets_out_of_bounds_are_errors() {
    let good = table_blob();
    assert!(parse_rts0(&good).is_ok());
    let mut b = good.clone();
    put(&mut b, 8, 0xFFFF_FFF0);
    assert!(matches!(decode_rts0(&b), Err(RootSigError::CountTooLarge { offset: 0xFFFF_FFF0, .. })));
    let mut b = good.clone();
    put(&mut b, 0x18 + 8, good.len() as u32 - 4);
    assert!(matches!(decode_rts0(&b), Err(RootSigError::Truncated { .. })), "{:?}", decode_rts0(&b));
    let mut b = good.clone();
    put(&mut b, 0x24 + 8, u32::MAX);
    assert!(matches!(decode_rts0(&b), Err(RootSigError::Truncated { .. })));
    let mut b = good.clone();
    put(&mut b, 0x3c + 4, good.len() as u32);
    let err = decode_rts0(&b).unwrap_err();
    assert!(matches!(&err, RootSigError::CountTooLarge { what, .. } if what.contains("parameter 1")), "{err:?}");
    let mut b = good.clone();
    put(&mut b, 16, good.len() as u32 - 8);
    assert!(matches!(decode_rts0(&b), Err(RootSigError::CountTooLarge { .. })));
}

#[test]
fn bad_version_type_visibility_and_enums_are_named() {
    let good = table_blob();
    for v in [0, 4, 0xFFFF_FFFF] {
        let mut b = good.clone();
        put(&mut b, 0, v);
        assert_eq!(decode_rts0(&b), Err(RootSigError::BadVersion(v)));
    }
    let mut b = good.clone();
    put(&mut b, 0x18, 5);
    let err = decode_rts0(&b).unwrap_err();
    assert!(
        matches!(&err, RootSigError::BadValue { offset: 0x18, value: 5, what } if what == "parameter 0: parameter type"),
        "{err:?}"
    );
    let mut b = good.clone();
    put(&mut b, 0x24 + 4, 8);
    assert!(matches!(decode_rts0(&b), Err(RootSigError::BadValue { offset: 0x28, value: 8, .. })));
    // Range 1 of parameter 1: range type 7.
    let mut b = good.clone();
    put(&mut b, 0x44 + 24, 7);
    let err = decode_rts0(&b).unwrap_err();
    assert_eq!(err.to_string(), "RTS0: byte 0x5c: parameter 1 range 1: range type 7");
    // Static sampler fields: address U, comparison, border colour, visibility.
    let sampler = u32::from_le_bytes(good[16..20].try_into().unwrap()) as usize;
    for (field, value, name) in
        [(1, 0, "address U"), (6, 9, "comparison function"), (7, 5, "border color"), (12, 8, "shader visibility")]
    {
        let mut b = good.clone();
        put(&mut b, sampler + 4 * field, value);
        let err = decode_rts0(&b).unwrap_err();
        assert!(matches!(&err, RootSigError::BadValue { what, .. } if what.ends_with(name)), "{err:?}");
    }
}

#[test]
fn count_overflow_is_rejected_without_allocating() {
    let good = table_blob();
    for (offset, what) in
        [(4, "root parameter array"), (12, "static sampler array"), (0x3c, "parameter 1: descriptor range array")]
    {
        for count in [0x7FFF_FFFF, u32::MAX, 1000] {
            let mut b = good.clone();
            put(&mut b, offset, count);
            let err = decode_rts0(&b).unwrap_err();
            assert!(
                matches!(&err, RootSigError::CountTooLarge { what: w, count: c, .. } if w == what && *c == count),
                "{err:?}"
            );
        }
    }
}

#[test]
fn container_without_rts0_and_bad_container_are_errors() {
    let mut c = to_rts0_container(&parse_hlsl("CBV(b0)", V1_1).unwrap());
    c[36..40].copy_from_slice(b"XXXX");
    assert_eq!(parse_rts0_file(&c), Err(RootSigError::MissingPart));
    assert!(matches!(parse_rts0_file(&c[..c.len() - 1]), Err(RootSigError::Container(_))));
}

fn rule_of(text: &str, version: Version) -> Rule {
    match parse_hlsl(text, version) {
        Err(e) => e.rule().unwrap_or_else(|| panic!("{text}: not a validation error: {e}")),
        Ok(_) => panic!("{text}: accepted"),
    }
}

fn model(text: &str, version: Version) -> RootSignature {
    parse_hlsl(text, version).unwrap()
}

#[test]
fn rule_root_cost() {
    assert_eq!(rule_of("RootConstants(num32BitConstants = 63, b0), CBV(b1)", V1_1), Rule::RootCost);
    let tables = vec!["DescriptorTable(visibility = SHADER_VISIBILITY_ALL)"; 65].join(",");
    assert_eq!(rule_of(&tables, V1_1), Rule::RootCost);
}

#[test]
fn rule_register_overlap_within_a_table() {
    assert_eq!(rule_of("DescriptorTable(SRV(t0, numDescriptors = 4), SRV(t3))", V1_1), Rule::RegisterOverlap);
}

#[test]
fn rule_register_overlap_across_parameters() {
    assert_eq!(rule_of("CBV(b0), RootConstants(num32BitConstants = 1, b0)", V1_1), Rule::RegisterOverlap);
    assert_eq!(
        rule_of(
            "UAV(u2, visibility = SHADER_VISIBILITY_PIXEL), DescriptorTable(UAV(u0, numDescriptors = unbounded))",
            V1_1
        ),
        Rule::RegisterOverlap
    );
}

#[test]
fn rule_register_overlap_static_sampler_vs_sampler_range() {
    assert_eq!(
        rule_of("DescriptorTable(Sampler(s0, numDescriptors = unbounded)), StaticSampler(s5)", V1_1),
        Rule::RegisterOverlap
    );
    assert_eq!(
        rule_of("StaticSampler(s1), StaticSampler(s1, visibility = SHADER_VISIBILITY_PIXEL)", V1_1),
        Rule::RegisterOverlap
    );
}

#[test]
fn rule_register_overflow() {
    assert_eq!(rule_of("DescriptorTable(SRV(t4294967295, numDescriptors = 2))", V1_1), Rule::RegisterOverflow);
}

#[test]
fn rule_offset_overflow() {
    assert_eq!(
        rule_of("DescriptorTable(SRV(t0, numDescriptors = 10, offset = 4294967290))", V1_1),
        Rule::OffsetOverflow
    );
}

#[test]
fn rule_samplers_mixed() {
    assert_eq!(rule_of("DescriptorTable(SRV(t0), Sampler(s0))", V1_1), Rule::SamplersMixed);
}

#[test]
fn rule_zero_count() {
    assert_eq!(rule_of("DescriptorTable(SRV(t0, numDescriptors = 0))", V1_1), Rule::ZeroCount);
}

#[test]
fn rule_append_after_unbounded() {
    assert_eq!(
        rule_of("DescriptorTable(SRV(t0, numDescriptors = unbounded), UAV(u0))", V1_1),
        Rule::AppendAfterUnbounded
    );
}

#[test]
fn rule_flags_not_in_version() {
    // The string parser rejects these as syntax; a 1.0 model (or blob) can still carry them.
    let mut rs = model("DescriptorTable(SRV(t0))", V1_0);
    let ParameterKind::Table(ranges) = &mut rs.parameters[0].kind else { panic!() };
    ranges[0].flags = RangeFlags(RangeFlags::DATA_STATIC);
    assert_eq!(validate(&rs).unwrap_err().rule(), Some(Rule::FlagsNotInVersion));
    let mut rs = model("CBV(b0)", V1_0);
    let ParameterKind::Descriptor(d) = &mut rs.parameters[0].kind else { panic!() };
    d.flags = DescriptorFlags(DescriptorFlags::DATA_VOLATILE);
    assert_eq!(validate(&rs).unwrap_err().rule(), Some(Rule::FlagsNotInVersion));
    let mut rs = model("StaticSampler(s0)", V1_1);
    rs.static_samplers[0].flags = SamplerFlags(1);
    assert_eq!(validate(&rs).unwrap_err().rule(), Some(Rule::FlagsNotInVersion));
}

#[test]
fn rule_comparison_filter_needs_a_comparison_function() {
    assert_eq!(
        rule_of("StaticSampler(s0, filter = FILTER_COMPARISON_ANISOTROPIC, comparisonFunc = COMPARISON_NONE)", V1_2),
        Rule::BadEnum
    );
    // NONE with a plain filter is fine in every version (DXC checks it only for comparison
    // filters; zero-initialised samplers carry it).
    assert!(parse_hlsl("StaticSampler(s0, comparisonFunc = COMPARISON_NONE)", V1_0).is_ok());
}

#[test]
fn rule_unknown_flag() {
    let mut rs = model("CBV(b0), DescriptorTable(SRV(t0)), StaticSampler(s0)", V1_2);
    rs.flags = RootFlags(0x1000);
    assert_eq!(validate(&rs).unwrap_err().rule(), Some(Rule::UnknownFlag));
    // And from a blob: root flags are the header's last field.
    let mut bytes = to_rts0(&model("CBV(b0)", V1_1));
    put(&mut bytes, 20, 0x8000_0000);
    assert_eq!(parse_rts0(&bytes).unwrap_err().rule(), Some(Rule::UnknownFlag));
    let mut rs = model("DescriptorTable(SRV(t0))", V1_1);
    let ParameterKind::Table(ranges) = &mut rs.parameters[0].kind else { panic!() };
    ranges[0].flags = RangeFlags(0x20);
    assert_eq!(validate(&rs).unwrap_err().rule(), Some(Rule::UnknownFlag));
    let mut rs = model("UAV(u0)", V1_1);
    let ParameterKind::Descriptor(d) = &mut rs.parameters[0].kind else { panic!() };
    d.flags = DescriptorFlags(1);
    assert_eq!(validate(&rs).unwrap_err().rule(), Some(Rule::UnknownFlag));
    let mut rs = model("StaticSampler(s0)", V1_2);
    rs.static_samplers[0].flags = SamplerFlags(4);
    assert_eq!(validate(&rs).unwrap_err().rule(), Some(Rule::UnknownFlag));
}

#[test]
fn rule_flag_combination() {
    for text in [
        "DescriptorTable(SRV(t0, flags = DATA_VOLATILE | DATA_STATIC))",
        "DescriptorTable(SRV(t0, flags = DESCRIPTORS_VOLATILE | DATA_STATIC))",
        "DescriptorTable(SRV(t0, flags = DESCRIPTORS_VOLATILE | DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS))",
        "DescriptorTable(Sampler(s0, flags = DATA_VOLATILE))",
        "CBV(b0, flags = DATA_VOLATILE | DATA_STATIC)",
    ] {
        assert_eq!(rule_of(text, V1_1), Rule::FlagCombination, "{text}");
    }
}

#[test]
fn rule_bad_filter() {
    let mut rs = model("StaticSampler(s0)", V1_1);
    for bad in [0x2, 0x40, 0x56, 0x200, u32::MAX] {
        rs.static_samplers[0].filter = Filter(bad);
        assert_eq!(validate(&rs).unwrap_err().rule(), Some(Rule::BadEnum), "{bad:#x}");
    }
    assert!(matches!(
        parse_hlsl("StaticSampler(s0, filter = FILTER_BILINEAR)", V1_1),
        Err(RootSigError::Syntax { .. })
    ));
}

#[test]
fn rule_sampler_root_descriptor() {
    let mut rs = model("CBV(b0)", V1_1);
    let ParameterKind::Descriptor(d) = &mut rs.parameters[0].kind else { panic!() };
    d.class = ResourceClass::Sampler;
    assert_eq!(validate(&rs).unwrap_err().rule(), Some(Rule::SamplerRootDescriptor));
}

#[test]
fn rule_sampler_field() {
    assert_eq!(rule_of("StaticSampler(s0, maxAnisotropy = 17)", V1_1), Rule::SamplerField);
    assert_eq!(rule_of("StaticSampler(s0, mipLODBias = 16)", V1_1), Rule::SamplerField);
    assert_eq!(rule_of("StaticSampler(s0, mipLODBias = -16.5)", V1_1), Rule::SamplerField);
    let mut rs = model("StaticSampler(s0)", V1_1);
    rs.static_samplers[0].min_lod = f32::NAN;
    assert_eq!(validate(&rs).unwrap_err().rule(), Some(Rule::SamplerField));
    rs.static_samplers[0].min_lod = 0.0;
    rs.static_samplers[0].mip_lod_bias = f32::NAN;
    assert_eq!(validate(&rs).unwrap_err().rule(), Some(Rule::SamplerField));
    // Infinite LODs are valid (DXC rejects only NaN) and print as our `inf` extension.
    rs.static_samplers[0].mip_lod_bias = 0.0;
    rs.static_samplers[0].min_lod = f32::NEG_INFINITY;
    rs.static_samplers[0].max_lod = f32::INFINITY;
    assert_eq!(validate(&rs), Ok(()));
    let text = to_hlsl(&rs);
    assert_eq!(text, "StaticSampler(s0, minLOD = -inf, maxLOD = inf)");
    assert_eq!(parse_hlsl(&text, V1_1), Ok(rs.clone()));
    assert_eq!(parse_rts0(&to_rts0(&rs)), Ok(rs));
}

#[test]
fn rule_reserved_space() {
    assert_eq!(rule_of("CBV(b0, space = 4294967280)", V1_1), Rule::ReservedSpace);
    assert_eq!(rule_of("DescriptorTable(UAV(u0, space = 4294967295))", V1_1), Rule::ReservedSpace);
    assert_eq!(rule_of("StaticSampler(s0, space = 4294967290)", V1_1), Rule::ReservedSpace);
    assert_eq!(rule_of("RootConstants(b0, num32BitConstants = 1, space = 4294967281)", V1_1), Rule::ReservedSpace);
    assert!(parse_hlsl("CBV(b0, space = 4294967279)", V1_1).is_ok());
}

fn syntax_of(text: &str, version: Version) -> (SyntaxKind, TextPos, String) {
    match parse_hlsl(text, version) {
        Err(RootSigError::Syntax { kind, at, token, .. }) => (kind, at, token),
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn string_syntax_errors_are_typed_with_position_and_token() {
    use SyntaxKind::*;
    let pos = |line, column| TextPos { line, column };
    let cases: &[(&str, Version, SyntaxKind, TextPos, &str)] = &[
        ("CBV(b0), Foo(b1)", V1_1, Unexpected, pos(1, 10), "Foo"),
        ("CBV(space = 1)", V1_1, Missing, pos(1, 1), "CBV"),
        ("DescriptorTable(SRV(numDescriptors = 2))", V1_1, Missing, pos(1, 17), "SRV"),
        ("RootConstants(b0)", V1_1, Missing, pos(1, 1), "RootConstants"),
        ("StaticSampler(filter = FILTER_ANISOTROPIC)", V1_1, Missing, pos(1, 1), "StaticSampler"),
        ("CBV(b0, space = 1, space = 2)", V1_1, Duplicate, pos(1, 20), "space"),
        ("CBV(b0, b1)", V1_1, Duplicate, pos(1, 9), "b1"),
        ("StaticSampler(s0, maxLOD = 1, MAXLOD = 2)", V1_1, Duplicate, pos(1, 31), "MAXLOD"),
        (
            "DescriptorTable(SRV(t0), visibility = SHADER_VISIBILITY_ALL, visibility = SHADER_VISIBILITY_PIXEL)",
            V1_1,
            Duplicate,
            pos(1, 62),
            "visibility",
        ),
        ("RootFlags(DENY_EVERYTHING)", V1_1, Unexpected, pos(1, 11), "DENY_EVERYTHING"),
        ("CBV(b0, flags = DESCRIPTORS_VOLATILE)", V1_1, Unexpected, pos(1, 17), "DESCRIPTORS_VOLATILE"),
        ("RootFlags(0), RootFlags(0)", V1_1, DuplicateRootFlags, pos(1, 15), "RootFlags"),
        ("RootFlags(1)", V1_1, NonZeroFlags, pos(1, 11), "1"),
        ("DescriptorTable(SRV(t0, flags = 2))", V1_1, NonZeroFlags, pos(1, 33), "2"),
        ("CBV(b0, flags = 0)", V1_0, FlagsNotInVersion, pos(1, 9), "flags"),
        ("DescriptorTable(SRV(t0, flags = DATA_STATIC))", V1_0, FlagsNotInVersion, pos(1, 25), "flags"),
        ("StaticSampler(s0, flags = UINT_BORDER_COLOR)", V1_1, FlagsNotInVersion, pos(1, 19), "flags"),
        ("CBV(b0", V1_1, UnexpectedEnd, pos(1, 7), ""),
        ("DescriptorTable(SRV(t0)", V1_1, UnexpectedEnd, pos(1, 24), ""),
        ("CBV(b0),", V1_1, UnexpectedEnd, pos(1, 9), ""),
        ("CBV(b0,)", V1_1, Unexpected, pos(1, 8), ")"),
        ("DescriptorTable()", V1_1, Unexpected, pos(1, 17), ")"),
        ("CBV(b0) SRV(t0)", V1_1, Unexpected, pos(1, 9), "SRV"),
        ("CBV(t0)", V1_1, WrongRegister, pos(1, 5), "t0"),
        ("DescriptorTable(Sampler(b0))", V1_1, WrongRegister, pos(1, 25), "b0"),
        ("CBV(b0, space = 0x10)", V1_1, BadToken, pos(1, 17), "0x10"),
        ("CBV(b0, space = 4294967296)", V1_1, NumberRange, pos(1, 17), "4294967296"),
        ("CBV(b0, space = -1)", V1_1, NumberRange, pos(1, 17), "-1"),
        ("CBV(b0, space = 1.5)", V1_1, NumberRange, pos(1, 17), "1.5"),
        ("CBV(b4294967296)", V1_1, NumberRange, pos(1, 5), "b4294967296"),
        ("StaticSampler(s0, mipLODBias = 1e39)", V1_1, NumberRange, pos(1, 32), "1e39"),
        // Above FLT_MAX as a double: DXC rejects it too (d3d12.h writes 3.402823466e+38).
        ("StaticSampler(s0, maxLOD = 3.4028235e38)", V1_1, NumberRange, pos(1, 28), "3.4028235e38"),
        ("StaticSampler(s0, mipLODBias = 1e)", V1_1, BadToken, pos(1, 32), "1e"),
        ("CBV(b0, visibility = SHADER_VISIBILITY_COMPUTE)", V1_1, Unexpected, pos(1, 22), "SHADER_VISIBILITY_COMPUTE"),
        ("CBV(b0, space 1)", V1_1, Unexpected, pos(1, 15), "1"),
        (
            "StaticSampler(s0, addressU = TEXTURE_ADDRESS_REPEAT)",
            V1_1,
            Unexpected,
            pos(1, 30),
            "TEXTURE_ADDRESS_REPEAT",
        ),
        ("CBV(b0); SRV(t0)", V1_1, BadToken, pos(1, 8), ";"),
        ("\"CBV(b0)", V1_1, BadQuote, pos(1, 1), "\""),
        ("\"CBV(b0)\" x \"SRV(t0)\"", V1_1, BadQuote, pos(1, 11), "x"),
        ("CBV(b0),\n  SRV(t0, numDescriptors = 2)", V1_1, Unexpected, pos(2, 11), "numDescriptors"),
    ];
    for &(text, version, kind, at, token) in cases {
        assert_eq!(syntax_of(text, version), (kind, at, token.to_string()), "{text}");
    }
}

/// A deterministic xorshift generator, so the mutation loop is reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn seeded_binary_mutations_never_panic() {
    let mut rng = Rng(0x005e_ed0f_b10b);
    let blobs: Vec<Vec<u8>> = CASES.iter().map(|&(v, t)| to_rts0(&parse_hlsl(t, v).unwrap())).collect();
    let (mut accepted, mut total) = (0, 0);
    for round in 0..4000 {
        let mut b = blobs[round % blobs.len()].clone();
        for _ in 0..1 + rng.below(3) {
            match rng.below(5) {
                0 if !b.is_empty() => {
                    let i = rng.below(b.len());
                    b[i] ^= 1 << rng.below(8);
                }
                1 if b.len() >= 4 => {
                    let i = rng.below(b.len() / 4) * 4;
                    let special = [0, 1, 2, 3, 4, 7, 0x18, 0xFF, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFF0, u32::MAX];
                    put(&mut b, i, special[rng.below(special.len())]);
                }
                2 => b.truncate(rng.below(b.len() + 1)),
                3 => b.extend((0..rng.below(16)).map(|_| rng.next() as u8)),
                _ if !b.is_empty() => {
                    let i = rng.below(b.len());
                    b[i] = rng.next() as u8;
                }
                _ => {}
            }
        }
        total += 1;
        let _ = decode_rts0(&b);
        if let Ok(rs) = parse_rts0(&b) {
            accepted += 1;
            // Anything accepted is valid, so it must survive both round trips.
            let again = to_rts0(&rs);
            assert_eq!(parse_rts0(&again).as_ref(), Ok(&rs));
            assert_eq!(parse_hlsl(&to_hlsl(&rs), rs.version).as_ref(), Ok(&rs), "{}", to_hlsl(&rs));
        }
    }
    assert!(accepted > 0 && accepted < total, "{accepted} of {total}");
}

#[test]
fn seeded_string_mutations_never_panic() {
    let mut rng = Rng(0x7e57_5eed);
    let alphabet: Vec<char> = "(),=| \n\"\\-+.0123456789bstuefFxABCDEFGHIJKLMNOPQRSTUVWXYZ_é".chars().collect();
    for round in 0..3000 {
        let (version, text) = CASES[round % CASES.len()];
        let mut chars: Vec<char> = text.chars().collect();
        for _ in 0..1 + rng.below(3) {
            let i = rng.below(chars.len() + 1);
            match rng.below(3) {
                0 if i < chars.len() => {
                    chars.remove(i);
                }
                1 => chars.insert(i, alphabet[rng.below(alphabet.len())]),
                _ if i < chars.len() => chars[i] = alphabet[rng.below(alphabet.len())],
                _ => {}
            }
        }
        let mutated: String = chars.into_iter().collect();
        if let Ok(rs) = parse_hlsl(&mutated, version) {
            assert_eq!(parse_rts0(&to_rts0(&rs)).as_ref(), Ok(&rs), "{mutated}");
            assert_eq!(parse_hlsl(&to_hlsl(&rs), version).as_ref(), Ok(&rs), "{mutated}");
        }
    }
}

#[test]
fn errors_convert_into_the_crate_error() {
    fn via_crate(text: &str) -> untangle::Result<RootSignature> {
        Ok(parse_hlsl(text, V1_1)?)
    }
    let err = via_crate("CBV(").unwrap_err();
    assert!(matches!(err, untangle::Error::RootSig(_)));
    assert!(err.to_string().starts_with("root signature string 1:5:"), "{err}");
}

#[test]
fn json_dump_names_everything() {
    let rs = parse_hlsl(CASES[28].1, CASES[28].0).unwrap();
    let v = untangle::rootsig::json::to_json(&rs);
    assert_eq!(v["version"], "1.2");
    assert_eq!(v["root_cost_dwords"], 8 + 2 + 2 + 2 + 1 + 1);
    assert_eq!(v["parameters"][4]["ranges"][0]["numDescriptors"], "unbounded");
    assert_eq!(v["static_samplers"][0]["filter"], "FILTER_COMPARISON_MIN_MAG_MIP_LINEAR");
}

/// The canonical text: one element per line, tables' ranges indented, DXC's defaults left
/// out, arguments in a fixed order.
#[test]
fn canonical_text_is_pinned() {
    let rs = parse_hlsl(
        "StaticSampler(s0, maxLOD=12, mipLODBias=-0.25, flags = UINT_BORDER_COLOR, \
         borderColor = STATIC_BORDER_COLOR_OPAQUE_BLACK_UINT, comparisonFunc = COMPARISON_GREATER, \
         filter = FILTER_COMPARISON_MIN_MAG_MIP_LINEAR), \
         rootflags(cbv_srv_uav_heap_directly_indexed | allow_input_assembler_input_layout), \
         RootConstants(space = 1, b0, num32BitConstants = 8), CBV(flags = DATA_STATIC, b1), \
         DescriptorTable(visibility = SHADER_VISIBILITY_PIXEL, SRV(flags = DESCRIPTORS_VOLATILE, t1, numDescriptors = unbounded), \
         CBV(b0, offset = 3, space = 0, numDescriptors = 1)), DescriptorTable(Sampler(s0, numDescriptors = 16, space = 1))",
        V1_2,
    )
    .unwrap();
    let expected = "\
RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED),
RootConstants(num32BitConstants = 8, b0, space = 1),
CBV(b1, flags = DATA_STATIC),
DescriptorTable(
    SRV(t1, numDescriptors = unbounded, flags = DESCRIPTORS_VOLATILE),
    CBV(b0, offset = 3),
    visibility = SHADER_VISIBILITY_PIXEL
),
DescriptorTable(Sampler(s0, numDescriptors = 16, space = 1)),
StaticSampler(s0, filter = FILTER_COMPARISON_MIN_MAG_MIP_LINEAR, mipLODBias = -0.25, \
comparisonFunc = COMPARISON_GREATER, borderColor = STATIC_BORDER_COLOR_OPAQUE_BLACK_UINT, maxLOD = 12.0, \
flags = UINT_BORDER_COLOR)";
    assert_eq!(to_hlsl(&rs), expected);
}
