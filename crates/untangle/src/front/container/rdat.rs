//! The runtime data part (`RDAT`) of a library: its state subobjects (hit groups, shader and
//! pipeline configs, global and local root signatures, export associations), which a layer
//! needs to build a ray-tracing pipeline and its shader binding table.
//!
//! Layout (all little-endian u32; facts from DXC's `DxilRuntimeReflection.h` and
//! `RDAT_SubobjectTypes.inl`): a header `{ version (0x10), part count, part offsets[] }`;
//! each part `{ type, size, bytes }`. Parts used here: 1 string buffer (NUL-terminated
//! strings named by byte offset), 2 index arrays (an array reference `k` names
//! `{ n, idx[n] }` at word `k`), 5 raw bytes (a byte reference is `{ offset, size }`) and
//! 6 the subobject table (`{ count, stride, records }`, each record `{ kind, name, union }`,
//! the union by kind: state object config `{ flags }`; root signatures `{ bytes }` (an
//! `RTS0` blob); export association `{ subobject, exports (string array) }`; shader config
//! `{ max payload, max attributes }`; pipeline config `{ max recursion }`; hit group
//! `{ type, any hit, closest hit, intersection }`; pipeline config 1 `{ max recursion,
//! flags }`). Other parts (resources, functions, work-graph nodes) are skipped.
//!
//! Invariants: every offset is bounds-checked; a malformed part is a typed
//! [`ContainerError`], never a panic. Cost: linear in the part's size.

use super::chunk::FourCc;
use super::error::{ContainerError, Location};
use serde::Serialize;

/// One state subobject declared in the library (HLSL `GlobalRootSignature grs = {...};`,
/// `TriangleHitGroup hg = {...};`, ...).
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct Subobject {
    pub name: String,
    #[serde(flatten)]
    pub kind: SubobjectKind,
}

/// What a subobject declares (`D3D12_STATE_SUBOBJECT_TYPE` numbering).
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SubobjectKind {
    /// Kind 0: `D3D12_STATE_OBJECT_FLAGS`.
    StateObjectConfig { flags: u32 },
    /// Kind 1: the root signature as an `RTS0` blob.
    GlobalRootSignature {
        #[serde(skip)]
        rts0: Vec<u8>,
    },
    /// Kind 2: a local root signature (shader records), as an `RTS0` blob.
    LocalRootSignature {
        #[serde(skip)]
        rts0: Vec<u8>,
    },
    /// Kind 8: associates subobject `subobject` with these exports.
    SubobjectToExportsAssociation { subobject: String, exports: Vec<String> },
    /// Kind 9.
    RaytracingShaderConfig { max_payload_size_in_bytes: u32, max_attribute_size_in_bytes: u32 },
    /// Kind 10.
    RaytracingPipelineConfig { max_trace_recursion_depth: u32 },
    /// Kind 11: `hit_group_type` 0 triangles, 1 procedural primitive; empty names are absent.
    HitGroup {
        hit_group_type: HitGroupType,
        #[serde(skip_serializing_if = "Option::is_none")]
        any_hit: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        closest_hit: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        intersection: Option<String>,
    },
    /// Kind 12: `D3D12_RAYTRACING_PIPELINE_FLAGS` (0x100 skip triangles, 0x200 skip
    /// procedural primitives).
    RaytracingPipelineConfig1 { max_trace_recursion_depth: u32, flags: u32 },
    /// A kind DXIL does not define for libraries.
    Other { raw_kind: u32 },
}

#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HitGroupType {
    Triangles,
    ProceduralPrimitive,
}

const STRING_BUFFER: u32 = 1;
const INDEX_ARRAYS: u32 = 2;
const RAW_BYTES: u32 = 5;
const SUBOBJECT_TABLE: u32 = 6;

/// The parts of one `RDAT` payload.
struct Parts<'a> {
    /// The payload's offset in the input, for error locations.
    base: usize,
    strings: &'a [u8],
    strings_at: usize,
    indices: &'a [u8],
    raw: &'a [u8],
    subobjects: Option<(usize, &'a [u8])>,
}

fn at(offset: usize) -> Location {
    Location::new(offset, Some(FourCc::RDAT))
}

fn word(bytes: &[u8], k: usize, base: usize, what: &'static str) -> Result<u32, ContainerError> {
    bytes.get(k..k + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).ok_or(ContainerError::Truncated {
        at: at(base + k),
        what,
        needed: 4,
        available: bytes.len().saturating_sub(k) as u64,
    })
}

impl<'a> Parts<'a> {
    fn read(data: &'a [u8], base: usize) -> Result<Parts<'a>, ContainerError> {
        let count = word(data, 4, base, "RDAT header")? as usize;
        if count > data.len() / 4 {
            return Err(ContainerError::CountTooLarge {
                at: at(base + 4),
                what: "RDAT parts",
                count: count as u64,
                needed: count as u64 * 4,
                available: data.len() as u64,
            });
        }
        let mut parts = Parts { base, strings: &[], strings_at: base, indices: &[], raw: &[], subobjects: None };
        for k in 0..count {
            let offset = word(data, 8 + 4 * k, base, "RDAT part offset")? as usize;
            let kind = word(data, offset, base, "RDAT part header")?;
            let size = word(data, offset + 4, base, "RDAT part header")? as usize;
            let start = offset + 8;
            let body = data.get(start..start.saturating_add(size)).ok_or(ContainerError::OutOfRange {
                at: at(base + offset),
                what: "RDAT part",
                start: start as u64,
                len: size as u64,
                limit: data.len() as u64,
            })?;
            match kind {
                STRING_BUFFER => {
                    parts.strings = body;
                    parts.strings_at = base + start;
                }
                INDEX_ARRAYS => parts.indices = body,
                RAW_BYTES => parts.raw = body,
                SUBOBJECT_TABLE => parts.subobjects = Some((base + start, body)),
                _ => {}
            }
        }
        Ok(parts)
    }

    fn string(&self, offset: u32) -> Result<String, ContainerError> {
        let s = self.strings.get(offset as usize..).ok_or(ContainerError::OutOfRange {
            at: at(self.strings_at),
            what: "RDAT string",
            start: u64::from(offset),
            len: 1,
            limit: self.strings.len() as u64,
        })?;
        let end = s.iter().position(|&b| b == 0).ok_or(ContainerError::UnterminatedString {
            at: at(self.strings_at + offset as usize),
            what: "RDAT string",
        })?;
        String::from_utf8(s[..end].to_vec())
            .map_err(|_| ContainerError::InvalidUtf8 { at: at(self.strings_at + offset as usize), what: "RDAT string" })
    }

    fn optional_string(&self, offset: u32) -> Result<Option<String>, ContainerError> {
        Ok(Some(self.string(offset)?).filter(|s| !s.is_empty()))
    }

    fn string_array(&self, index: u32) -> Result<Vec<String>, ContainerError> {
        let w = |k: usize| word(self.indices, 4 * k, self.base, "RDAT index array");
        let first = index as usize;
        let n = w(first)? as usize;
        if n > self.indices.len() / 4 {
            return Err(ContainerError::CountTooLarge {
                at: at(self.base),
                what: "RDAT index array",
                count: n as u64,
                needed: n as u64 * 4,
                available: self.indices.len() as u64,
            });
        }
        (0..n).map(|k| self.string(w(first + 1 + k)?)).collect()
    }

    fn bytes(&self, offset: u32, size: u32) -> Result<Vec<u8>, ContainerError> {
        let (o, n) = (offset as usize, size as usize);
        self.raw.get(o..o.saturating_add(n)).map(<[u8]>::to_vec).ok_or(ContainerError::OutOfRange {
            at: at(self.base),
            what: "RDAT raw bytes",
            start: o as u64,
            len: n as u64,
            limit: self.raw.len() as u64,
        })
    }
}

/// The subobjects of an `RDAT` payload (`data`, found at byte `base` of the input), in
/// table order; none when it has no subobject table.
pub fn subobjects(data: &[u8], base: usize) -> Result<Vec<Subobject>, ContainerError> {
    let parts = Parts::read(data, base)?;
    let Some((table_at, table)) = parts.subobjects else { return Ok(Vec::new()) };
    let count = word(table, 0, table_at, "RDAT subobject table")? as usize;
    let stride = word(table, 4, table_at, "RDAT subobject table")? as usize;
    if stride < 8 || count.saturating_mul(stride) > table.len().saturating_sub(8) {
        return Err(ContainerError::CountTooLarge {
            at: at(table_at),
            what: "RDAT subobjects",
            count: count as u64,
            needed: (count as u64).saturating_mul(stride as u64),
            available: table.len().saturating_sub(8) as u64,
        });
    }
    let mut out = Vec::with_capacity(count);
    for k in 0..count {
        let record = &table[8 + k * stride..8 + (k + 1) * stride];
        let f = |i: usize| word(record, 4 * i, table_at + 8 + k * stride, "RDAT subobject record");
        let raw_kind = f(0)?;
        let name = parts.string(f(1)?)?;
        let kind = match raw_kind {
            0 => SubobjectKind::StateObjectConfig { flags: f(2)? },
            1 => SubobjectKind::GlobalRootSignature { rts0: parts.bytes(f(2)?, f(3)?)? },
            2 => SubobjectKind::LocalRootSignature { rts0: parts.bytes(f(2)?, f(3)?)? },
            8 => SubobjectKind::SubobjectToExportsAssociation {
                subobject: parts.string(f(2)?)?,
                exports: parts.string_array(f(3)?)?,
            },
            9 => SubobjectKind::RaytracingShaderConfig {
                max_payload_size_in_bytes: f(2)?,
                max_attribute_size_in_bytes: f(3)?,
            },
            10 => SubobjectKind::RaytracingPipelineConfig { max_trace_recursion_depth: f(2)? },
            11 => SubobjectKind::HitGroup {
                hit_group_type: if f(2)? == 0 { HitGroupType::Triangles } else { HitGroupType::ProceduralPrimitive },
                any_hit: parts.optional_string(f(3)?)?,
                closest_hit: parts.optional_string(f(4)?)?,
                intersection: parts.optional_string(f(5)?)?,
            },
            12 => SubobjectKind::RaytracingPipelineConfig1 { max_trace_recursion_depth: f(2)?, flags: f(3)? },
            _ => SubobjectKind::Other { raw_kind },
        };
        out.push(Subobject { name, kind });
    }
    Ok(out)
}

impl SubobjectKind {
    /// The `RTS0` blob of a root-signature subobject.
    pub fn root_signature(&self) -> Option<&[u8]> {
        match self {
            SubobjectKind::GlobalRootSignature { rts0 } | SubobjectKind::LocalRootSignature { rts0 } => Some(rts0),
            _ => None,
        }
    }
}

/// The subobjects of the kind `is_kind` selects that apply to export `export`, by DXR's
/// rules: those an export association names it in; when none does, the ones no association
/// names (the library's defaults). A hit group's association also reaches the shaders it
/// groups.
pub fn applying_to<'s>(
    subobjects: &'s [Subobject],
    export: &str,
    is_kind: impl Fn(&SubobjectKind) -> bool,
) -> Vec<&'s Subobject> {
    let groups_of_export: Vec<&str> = subobjects
        .iter()
        .filter_map(|s| match &s.kind {
            SubobjectKind::HitGroup { any_hit, closest_hit, intersection, .. }
                if [any_hit, closest_hit, intersection].iter().any(|n| n.as_deref() == Some(export)) =>
            {
                Some(s.name.as_str())
            }
            _ => None,
        })
        .collect();
    let names_export =
        |exports: &[String]| exports.iter().any(|e| e == export || groups_of_export.contains(&e.as_str()));
    let mut explicit = Vec::new();
    let mut associated_anywhere = Vec::new();
    for s in subobjects {
        if let SubobjectKind::SubobjectToExportsAssociation { subobject, exports } = &s.kind {
            associated_anywhere.push(subobject.as_str());
            // An association without exports makes the subobject a default.
            if names_export(exports) {
                explicit.push(subobject.as_str());
            }
        }
    }
    let of_kind = subobjects.iter().filter(|s| is_kind(&s.kind));
    let chosen: Vec<&Subobject> = of_kind.clone().filter(|s| explicit.contains(&s.name.as_str())).collect();
    if !chosen.is_empty() {
        return chosen;
    }
    let unassociated_default = |s: &&Subobject| {
        !associated_anywhere.contains(&s.name.as_str())
            || subobjects.iter().any(|a| {
                matches!(&a.kind, SubobjectKind::SubobjectToExportsAssociation { subobject, exports }
                    if subobject == &s.name && exports.is_empty())
            })
    };
    of_kind.filter(unassociated_default).collect()
}
