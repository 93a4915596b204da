//! `PSV0`: pipeline state validation data, what the D3D12 runtime checks a pipeline
//! against without parsing DXIL.
//!
//! Facts: DXC `include/dxc/DxilContainer/DxilPipelineStateValidation.h` (the
//! `PSVRuntimeInfo0..4`, `PSVResourceBindInfo0..1`, `PSVSignatureElement0` structs, their
//! enums, and the part layout documented above `ReadOrWrite`) and
//! `lib/DxilContainer/DxilContainerAssembler.cpp` (`DxilPSVWriter`).
//!
//! ```text
//! u32 runtime info size          24 (v0), 36 (v1), 48 (v2), 52 (v3), 56 (v4); versioning is by size
//! runtime info
//! u32 resource count
//! if count > 0: u32 bind info size (16 or 24), bind info * count
//! if runtime info is v1 or later:
//!   u32 string table size (multiple of 4), string table
//!   u32 semantic index count, u32 * count
//!   if any signature element count > 0:
//!     u32 element size (16), elements: inputs, outputs, patch-constant/primitive
//!   ViewID output masks and input→output dependency tables
//! ```
//!
//! Records are read with the stride the file declares (a newer compiler may append
//! fields), keeping only the fields we know. The ViewID masks and dependency tables stay
//! raw bytes: their presence rules differ across DXC versions and nothing here needs them.

use serde::Serialize;

use super::chunk::Chunk;
use super::dxil_enums::{InterpolationMode, ResourceKind, SemanticKind};
use super::error::ContainerError;
use super::program::ShaderKind;
use super::reader::{serialize_hex, Reader};
use super::signature::ComponentType;

/// Sizes of `PSVRuntimeInfo0..4`.
pub const RUNTIME_INFO_SIZES: [u32; 5] = [24, 36, 48, 52, 56];
const BIND_INFO0_SIZE: u32 = 16;
const BIND_INFO1_SIZE: u32 = 24;
const SIGNATURE_ELEMENT0_SIZE: u32 = 16;

open_enum! {
    /// `PSVResourceType`.
    pub enum ResourceType: u32 {
        Invalid = 0, Sampler = 1, CBV = 2, SRVTyped = 3, SRVRaw = 4, SRVStructured = 5, UAVTyped = 6,
        UAVRaw = 7, UAVStructured = 8, UAVStructuredWithCounter = 9,
    }
}

/// The stage-specific union at the start of `PSVRuntimeInfo0`. Enumerated values
/// (tessellator domain, primitive topology, …) are DXIL enum numbers, left undecoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "stage")]
pub enum StageInfo {
    Vertex {
        output_position_present: bool,
    },
    Hull {
        input_control_point_count: u32,
        output_control_point_count: u32,
        tessellator_domain: u32,
        tessellator_output_primitive: u32,
    },
    Domain {
        input_control_point_count: u32,
        output_position_present: bool,
        tessellator_domain: u32,
    },
    Geometry {
        input_primitive: u32,
        output_topology: u32,
        output_stream_mask: u32,
        output_position_present: bool,
    },
    Pixel {
        depth_output: bool,
        sample_frequency: bool,
    },
    Mesh {
        group_shared_bytes_used: u32,
        group_shared_bytes_dependent_on_view_id: u32,
        payload_size_in_bytes: u32,
        max_output_vertices: u16,
        max_output_primitives: u16,
    },
    Amplification {
        payload_size_in_bytes: u32,
    },
}

impl StageInfo {
    fn decode(stage: ShaderKind, raw: &[u8; 16]) -> Option<Self> {
        let u32_at = |at: usize| u32::from_le_bytes([raw[at], raw[at + 1], raw[at + 2], raw[at + 3]]);
        let u16_at = |at: usize| u16::from_le_bytes([raw[at], raw[at + 1]]);
        Some(match stage {
            ShaderKind::Vertex => StageInfo::Vertex { output_position_present: raw[0] != 0 },
            ShaderKind::Hull => StageInfo::Hull {
                input_control_point_count: u32_at(0),
                output_control_point_count: u32_at(4),
                tessellator_domain: u32_at(8),
                tessellator_output_primitive: u32_at(12),
            },
            // C layout: u32, char (+3 padding), u32.
            ShaderKind::Domain => StageInfo::Domain {
                input_control_point_count: u32_at(0),
                output_position_present: raw[4] != 0,
                tessellator_domain: u32_at(8),
            },
            ShaderKind::Geometry => StageInfo::Geometry {
                input_primitive: u32_at(0),
                output_topology: u32_at(4),
                output_stream_mask: u32_at(8),
                output_position_present: raw[12] != 0,
            },
            ShaderKind::Pixel => StageInfo::Pixel { depth_output: raw[0] != 0, sample_frequency: raw[1] != 0 },
            ShaderKind::Mesh => StageInfo::Mesh {
                group_shared_bytes_used: u32_at(0),
                group_shared_bytes_dependent_on_view_id: u32_at(4),
                payload_size_in_bytes: u32_at(8),
                max_output_vertices: u16_at(12),
                max_output_primitives: u16_at(14),
            },
            ShaderKind::Amplification => StageInfo::Amplification { payload_size_in_bytes: u32_at(0) },
            _ => return None,
        })
    }
}

/// `PSVRuntimeInfo1`'s additions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RuntimeInfo1 {
    pub shader_stage: ShaderKind,
    pub shader_stage_raw: u8,
    pub uses_view_id: bool,
    #[serde(flatten)]
    pub stage_word: StageWord,
    pub sig_input_elements: u8,
    pub sig_output_elements: u8,
    pub sig_patch_const_or_prim_elements: u8,
    pub sig_input_vectors: u8,
    /// One per geometry-shader stream; other stages use only the first.
    pub sig_output_vectors: [u8; 4],
}

/// `PSVRuntimeInfo1`'s stage-dependent `u16` union, raw and decoded for the stage it
/// belongs to (each decoded field is `None` for the other stages).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StageWord {
    #[serde(rename = "stage_word")]
    pub raw: u16,
    /// Geometry shaders: `MaxVertexCount`.
    pub max_vertex_count: Option<u16>,
    /// Hull (output), domain (input), mesh (primitive output): packed patch-constant or
    /// primitive vectors (the low byte).
    pub sig_patch_const_or_prim_vectors: Option<u8>,
    /// Mesh shaders: `MeshOutputTopology` (the high byte).
    pub mesh_output_topology: Option<u8>,
}

impl StageWord {
    /// Decodes `raw` as `stage`'s member of the union.
    pub fn decode(raw: u16, stage: ShaderKind) -> StageWord {
        let [low, high] = raw.to_le_bytes();
        let patch_const_or_prim = matches!(stage, ShaderKind::Hull | ShaderKind::Domain | ShaderKind::Mesh);
        StageWord {
            raw,
            max_vertex_count: (stage == ShaderKind::Geometry).then_some(raw),
            sig_patch_const_or_prim_vectors: patch_const_or_prim.then_some(low),
            mesh_output_topology: (stage == ShaderKind::Mesh).then_some(high),
        }
    }
}

/// The runtime info, as far as its size says it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RuntimeInfo<'a> {
    /// The declared size.
    pub size: u32,
    /// Highest `PSVRuntimeInfoN` the size covers (0..=4).
    pub version: u32,
    /// The stage the union below was decoded for: v1's `ShaderStage`, else the program's.
    pub stage: Option<ShaderKind>,
    pub stage_info: Option<StageInfo>,
    #[serde(serialize_with = "serialize_hex")]
    pub stage_raw: [u8; 16],
    pub min_wave_lane_count: u32,
    /// `0xffffffff` when unconstrained.
    pub max_wave_lane_count: u32,
    pub v1: Option<RuntimeInfo1>,
    pub num_threads: Option<[u32; 3]>,
    /// Offset into the string table (v3).
    pub entry_function_name_offset: Option<u32>,
    pub entry_function_name: Option<&'a str>,
    /// v4.
    pub num_bytes_group_shared_memory: Option<u32>,
    /// Bytes past the newest layout we know.
    #[serde(serialize_with = "serialize_hex", skip_serializing_if = "<[u8]>::is_empty")]
    pub trailing: &'a [u8],
}

/// One `PSVResourceBindInfo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ResourceBinding {
    pub resource_type: ResourceType,
    pub space: u32,
    pub lower_bound: u32,
    /// Inclusive; `0xffffffff` for an unbounded range.
    pub upper_bound: u32,
    /// `PSVResourceBindInfo1`'s additions (PSV version 2 and later); absent from the
    /// report before.
    #[serde(flatten)]
    pub v1: Option<BindInfo1>,
}

/// `PSVResourceBindInfo1`'s additions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BindInfo1 {
    pub kind: ResourceKind,
    pub flags: u32,
}

impl ResourceBinding {
    /// `PSVResourceFlag::UsedByAtomic64`.
    pub fn used_by_atomic64(&self) -> bool {
        self.v1.is_some_and(|b| b.flags & 1 != 0)
    }
}

/// One `PSVSignatureElement0`: a whole (possibly multi-row) signature element, unlike
/// `ISG1`, which lists each row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PsvSignatureElement<'a> {
    /// Empty for system values (DXC stores names only for arbitrary semantics).
    pub semantic_name: &'a str,
    /// One semantic index per row.
    pub semantic_indexes: Vec<u32>,
    pub rows: u8,
    /// `None` when the element is not allocated a location.
    pub start_row: Option<u8>,
    pub cols: u8,
    pub start_col: Option<u8>,
    pub semantic_kind: SemanticKind,
    pub component_type: ComponentType,
    pub interpolation_mode: InterpolationMode,
    pub dynamic_index_mask: u8,
    pub output_stream: u8,
}

/// The parsed `PSV0` chunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Psv0<'a> {
    pub runtime_info: RuntimeInfo<'a>,
    /// Declared stride of the resource records (0 when there are none).
    pub resource_bind_info_size: u32,
    pub resources: Vec<ResourceBinding>,
    pub string_table_size: u32,
    #[serde(skip)]
    pub string_table: &'a [u8],
    pub semantic_index_count: u32,
    /// Declared stride of the signature element records (0 when there are none).
    pub signature_element_size: u32,
    pub input_elements: Vec<PsvSignatureElement<'a>>,
    pub output_elements: Vec<PsvSignatureElement<'a>>,
    pub patch_const_or_prim_elements: Vec<PsvSignatureElement<'a>>,
    /// ViewID masks and input→output dependency tables, raw (see
    /// [`Psv0::expected_dependency_data_len`]).
    #[serde(serialize_with = "serialize_hex", skip_serializing_if = "<[u8]>::is_empty")]
    pub dependency_data: &'a [u8],
}

impl<'a> Psv0<'a> {
    /// `stage_hint` (the program's shader kind) decodes the v0 stage union when the
    /// runtime info is too old to name its own stage.
    pub fn parse(chunk: &Chunk<'a>, stage_hint: Option<ShaderKind>) -> Result<Self, ContainerError> {
        let mut r = Reader::of(chunk);
        let info_size = r.u32("runtime info size")?;
        if info_size < RUNTIME_INFO_SIZES[0] {
            return Err(r.invalid(4, "runtime info size", "at least 24", u64::from(info_size)));
        }
        let info_at = r.pos();
        let info_bytes = r.bytes(info_size as usize, "runtime info")?;
        let mut runtime_info =
            parse_runtime_info(Reader::new(info_bytes, r.absolute(info_at), Some(chunk.fourcc)), stage_hint)?;

        let resource_count = r.u32("resource count")?;
        let mut resource_bind_info_size = 0;
        let mut resources = Vec::new();
        if resource_count > 0 {
            resource_bind_info_size = r.u32("resource bind info size")?;
            if resource_bind_info_size < BIND_INFO0_SIZE {
                return Err(r.invalid(4, "resource bind info size", "at least 16", u64::from(resource_bind_info_size)));
            }
            let (len, count) =
                r.check_count(u64::from(resource_count), u64::from(resource_bind_info_size), "resource binding")?;
            let table_at = r.pos();
            let table = r.bytes(len, "resource bindings")?;
            resources.reserve_exact(count);
            for record in table.chunks_exact(resource_bind_info_size as usize) {
                let mut rr = Reader::new(record, r.absolute(table_at), Some(chunk.fourcc));
                let resource_type = ResourceType::from_raw(rr.u32("resource type")?);
                let space = rr.u32("resource space")?;
                let lower_bound = rr.u32("resource lower bound")?;
                let upper_bound = rr.u32("resource upper bound")?;
                let v1 = if resource_bind_info_size >= BIND_INFO1_SIZE {
                    let kind = ResourceKind::from_raw(rr.u32("resource kind")?);
                    Some(BindInfo1 { kind, flags: rr.u32("resource flags")? })
                } else {
                    None
                };
                resources.push(ResourceBinding { resource_type, space, lower_bound, upper_bound, v1 });
            }
        }

        let mut psv = Psv0 {
            runtime_info,
            resource_bind_info_size,
            resources,
            string_table_size: 0,
            string_table: &[],
            semantic_index_count: 0,
            signature_element_size: 0,
            input_elements: Vec::new(),
            output_elements: Vec::new(),
            patch_const_or_prim_elements: Vec::new(),
            dependency_data: &[],
        };
        let Some(v1) = runtime_info.v1 else {
            psv.dependency_data = r.rest();
            return Ok(psv);
        };

        let string_table_size = r.u32("string table size")?;
        if string_table_size % 4 != 0 {
            return Err(r.invalid(4, "string table size", "a multiple of 4", u64::from(string_table_size)));
        }
        let strings_at = r.pos();
        let string_table = r.bytes(string_table_size as usize, "string table")?;
        let strings = Reader::new(string_table, r.absolute(strings_at), Some(chunk.fourcc));

        let semantic_index_count = r.u32("semantic index count")?;
        let (len, _) = r.check_count(u64::from(semantic_index_count), 4, "semantic index")?;
        let indexes_at = r.pos();
        let index_table =
            Reader::new(r.bytes(len, "semantic index table")?, r.absolute(indexes_at), Some(chunk.fourcc));

        let counts = [v1.sig_input_elements, v1.sig_output_elements, v1.sig_patch_const_or_prim_elements];
        let mut lists: [Vec<PsvSignatureElement<'a>>; 3] = Default::default();
        if counts.iter().any(|&n| n > 0) {
            let stride = r.u32("signature element size")?;
            if stride < SIGNATURE_ELEMENT0_SIZE {
                return Err(r.invalid(4, "signature element size", "at least 16", u64::from(stride)));
            }
            psv.signature_element_size = stride;
            for (list, &count) in lists.iter_mut().zip(&counts) {
                let (len, count) = r.check_count(u64::from(count), u64::from(stride), "signature element")?;
                let at = r.pos();
                let records = r.bytes(len, "signature elements")?;
                list.reserve_exact(count);
                for (i, record) in records.chunks_exact(stride as usize).enumerate() {
                    let rr = Reader::new(record, r.absolute(at + i * stride as usize), Some(chunk.fourcc));
                    list.push(parse_signature_element(rr, &strings, &index_table)?);
                }
            }
        }
        let [input_elements, output_elements, patch_const_or_prim_elements] = lists;

        if let Some(offset) = runtime_info.entry_function_name_offset {
            runtime_info.entry_function_name = Some(strings.cstr_at(u64::from(offset), "entry function name")?);
        }
        psv.runtime_info = runtime_info;
        psv.string_table_size = string_table_size;
        psv.string_table = string_table;
        psv.semantic_index_count = semantic_index_count;
        psv.input_elements = input_elements;
        psv.output_elements = output_elements;
        psv.patch_const_or_prim_elements = patch_const_or_prim_elements;
        psv.dependency_data = r.rest();
        Ok(psv)
    }

    /// The length `dependency_data` should have under DXC's current layout rules (the
    /// list above `DxilPipelineStateValidation::ReadOrWrite`): ViewID output masks when
    /// the shader uses ViewID, then input→output tables, one per geometry-shader stream.
    /// `None` before runtime info v1. Not enforced by [`Psv0::parse`], since older
    /// compilers may differ; a mismatch means the raw tables should not be interpreted.
    pub fn expected_dependency_data_len(&self) -> Option<u64> {
        let v1 = self.runtime_info.v1?;
        let stage = v1.shader_stage;
        let (is_gs, is_hs, is_ds, is_ms) = (
            stage == ShaderKind::Geometry,
            stage == ShaderKind::Hull,
            stage == ShaderKind::Domain,
            stage == ShaderKind::Mesh,
        );
        let mask_dwords = |vectors: u8| (u64::from(vectors) + 7) >> 3;
        let table_dwords = |inputs: u8, outputs: u8| mask_dwords(outputs) * u64::from(inputs) * 4;
        let pc_vectors = v1.stage_word.sig_patch_const_or_prim_vectors.unwrap_or(0);
        let inputs = v1.sig_input_vectors;
        let streams = if is_gs { 4 } else { 1 };
        let mut dwords = 0;
        if v1.uses_view_id {
            dwords += v1.sig_output_vectors[..streams].iter().map(|&v| mask_dwords(v)).sum::<u64>();
            if is_hs || is_ms {
                dwords += mask_dwords(pc_vectors);
            }
        }
        if !is_ms && inputs > 0 {
            dwords += v1.sig_output_vectors[..streams].iter().map(|&v| table_dwords(inputs, v)).sum::<u64>();
        }
        if is_hs && inputs > 0 {
            dwords += table_dwords(inputs, pc_vectors);
        }
        if is_ds {
            dwords += table_dwords(pc_vectors, v1.sig_output_vectors[0]);
        }
        Some(dwords * 4)
    }

    /// The string at `offset` of the string table.
    pub fn string(&self, offset: u32) -> Option<&'a str> {
        let table = self.string_table.get(offset as usize..)?;
        let len = table.iter().position(|&b| b == 0)?;
        std::str::from_utf8(&table[..len]).ok()
    }
}

fn parse_runtime_info(mut r: Reader<'_>, stage_hint: Option<ShaderKind>) -> Result<RuntimeInfo<'_>, ContainerError> {
    let size = r.data().len() as u32;
    let version = RUNTIME_INFO_SIZES.iter().rposition(|&s| size >= s).unwrap_or(0) as u32;
    let stage_raw = r.array::<16>("runtime info stage union")?;
    let min_wave_lane_count = r.u32("minimum wave lane count")?;
    let max_wave_lane_count = r.u32("maximum wave lane count")?;

    let v1 = if version >= 1 {
        let shader_stage_raw = r.u8("shader stage")?;
        let shader_stage = ShaderKind::from_raw(u32::from(shader_stage_raw));
        let uses_view_id = r.u8("uses view id")? != 0;
        let stage_word = StageWord::decode(r.u16("stage word")?, shader_stage);
        Some(RuntimeInfo1 {
            shader_stage,
            shader_stage_raw,
            uses_view_id,
            stage_word,
            sig_input_elements: r.u8("input element count")?,
            sig_output_elements: r.u8("output element count")?,
            sig_patch_const_or_prim_elements: r.u8("patch constant or primitive element count")?,
            sig_input_vectors: r.u8("input vector count")?,
            sig_output_vectors: r.array::<4>("output vector counts")?,
        })
    } else {
        None
    };
    let num_threads = if version >= 2 {
        Some([r.u32("num threads x")?, r.u32("num threads y")?, r.u32("num threads z")?])
    } else {
        None
    };
    let entry_function_name_offset = if version >= 3 { Some(r.u32("entry function name")?) } else { None };
    let num_bytes_group_shared_memory = if version >= 4 { Some(r.u32("group shared memory size")?) } else { None };

    let stage = v1.map(|v1| v1.shader_stage).or(stage_hint);
    Ok(RuntimeInfo {
        size,
        version,
        stage,
        stage_info: stage.and_then(|s| StageInfo::decode(s, &stage_raw)),
        stage_raw,
        min_wave_lane_count,
        max_wave_lane_count,
        v1,
        num_threads,
        entry_function_name_offset,
        entry_function_name: None,
        num_bytes_group_shared_memory,
        trailing: r.rest(),
    })
}

fn parse_signature_element<'a>(
    mut r: Reader<'a>,
    strings: &Reader<'a>,
    index_table: &Reader<'a>,
) -> Result<PsvSignatureElement<'a>, ContainerError> {
    let name_offset = r.u32("semantic name offset")?;
    let indexes_offset = r.u32("semantic indexes offset")?;
    let rows = r.u8("rows")?;
    let start_row = r.u8("start row")?;
    let cols_and_start = r.u8("columns and start")?;
    let semantic_kind = SemanticKind::from_raw(u32::from(r.u8("semantic kind")?));
    let component_type = ComponentType::from_raw(u32::from(r.u8("component type")?));
    let interpolation_mode = InterpolationMode::from_raw(u32::from(r.u8("interpolation mode")?));
    let dynamic_mask_and_stream = r.u8("dynamic mask and stream")?;
    let _reserved = r.u8("reserved")?;

    let semantic_name = strings.cstr_at(u64::from(name_offset), "semantic name")?;
    let indexes = index_table.slice_at(u64::from(indexes_offset) * 4, u64::from(rows) * 4, "semantic indexes")?;
    let semantic_indexes = indexes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    let allocated = cols_and_start & 0x40 != 0;
    Ok(PsvSignatureElement {
        semantic_name,
        semantic_indexes,
        rows,
        start_row: allocated.then_some(start_row),
        cols: cols_and_start & 0xf,
        start_col: allocated.then_some((cols_and_start >> 4) & 0x3),
        semantic_kind,
        component_type,
        interpolation_mode,
        dynamic_index_mask: dynamic_mask_and_stream & 0xf,
        output_stream: (dynamic_mask_and_stream >> 4) & 0x3,
    })
}

#[cfg(test)]
mod tests {
    use super::super::chunk::FourCc;
    use super::*;

    fn u32s(out: &mut Vec<u8>, values: &[u32]) {
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// A v3 pixel-shader PSV0 with one CBV, one input (TEXCOORD0..1) and one output
    /// (SV_Target0), ending in 8 bytes of dependency data.
    fn pixel_v3() -> Vec<u8> {
        let mut out = Vec::new();
        u32s(&mut out, &[52]);
        out.extend_from_slice(&[1, 0]); // depth output, sample frequency
        out.extend_from_slice(&[0; 14]);
        u32s(&mut out, &[0, 0xffff_ffff]);
        // stage, uses view id, stage word, 3 element counts, input vectors, output vectors
        out.extend_from_slice(&[0, 0, 0, 0, 1, 1, 0, 2, 1, 0, 0, 0]);
        u32s(&mut out, &[0, 0, 0]); // num threads
        u32s(&mut out, &[10]); // entry name offset
        u32s(&mut out, &[1, 24]); // resource count, stride
        u32s(&mut out, &[2, 0, 3, 3, 13, 0]);
        u32s(&mut out, &[16]);
        out.extend_from_slice(b"\0TEXCOORD\0main\0\0");
        u32s(&mut out, &[3, 0, 1, 0]); // semantic indexes: [0, 1] and [0]
        u32s(&mut out, &[16]);
        // TEXCOORD: name 1, indexes 0, 2 rows, start row 0, 2 cols allocated at col 0, arbitrary, float, linear
        u32s(&mut out, &[1, 0]);
        out.extend_from_slice(&[2, 0, 0x42, 0, 3, 2, 0, 0]);
        // SV_Target: name 0, indexes 2, 1 row, row 0, 4 cols allocated, Target, float
        u32s(&mut out, &[0, 2]);
        out.extend_from_slice(&[1, 0, 0x44, 16, 3, 0, 0, 0]);
        out.extend_from_slice(&[0xaa; 8]);
        out
    }

    #[test]
    fn parses_v3_pixel() {
        let bytes = pixel_v3();
        let psv = Psv0::parse(&Chunk::test(FourCc::PSV0, &bytes), None).unwrap();
        let info = psv.runtime_info;
        assert_eq!((info.size, info.version), (52, 3));
        assert_eq!(info.stage, Some(ShaderKind::Pixel));
        assert_eq!(info.stage_info, Some(StageInfo::Pixel { depth_output: true, sample_frequency: false }));
        assert_eq!(info.max_wave_lane_count, 0xffff_ffff);
        let v1 = info.v1.unwrap();
        assert_eq!((v1.sig_input_elements, v1.sig_output_elements, v1.sig_input_vectors), (1, 1, 2));
        assert_eq!(v1.stage_word.max_vertex_count, None);
        assert_eq!(info.num_threads, Some([0, 0, 0]));
        assert_eq!(info.entry_function_name, Some("main"));
        assert_eq!(psv.resources.len(), 1);
        let res = psv.resources[0];
        assert_eq!(res.resource_type, ResourceType::CBV);
        assert_eq!((res.space, res.lower_bound, res.upper_bound), (0, 3, 3));
        assert_eq!(res.v1.map(|b| b.kind), Some(ResourceKind::CBuffer));
        assert!(!res.used_by_atomic64());
        let input = &psv.input_elements[0];
        assert_eq!(input.semantic_name, "TEXCOORD");
        assert_eq!(input.semantic_indexes, [0, 1]);
        assert_eq!((input.rows, input.start_row, input.cols, input.start_col), (2, Some(0), 2, Some(0)));
        assert_eq!(input.interpolation_mode, InterpolationMode::Linear);
        let output = &psv.output_elements[0];
        assert_eq!(output.semantic_kind, SemanticKind::Target);
        assert_eq!(output.semantic_name, "");
        assert_eq!(output.semantic_indexes, [0]);
        assert_eq!(output.output_stream, 0);
        assert_eq!(psv.dependency_data, &[0xaa; 8]);
        assert_eq!(psv.string(1), Some("TEXCOORD"));
        let json = serde_json::to_value(&psv).unwrap();
        assert_eq!(json["runtime_info"]["stage_info"]["stage"], "Pixel");
        assert_eq!(json["resources"][0]["resource_type"], "CBV");
    }

    #[test]
    fn parses_v0_with_stage_hint() {
        let mut bytes = Vec::new();
        u32s(&mut bytes, &[24, 3, 4, 1, 2, 0, 64, 1, 16]);
        u32s(&mut bytes, &[7, 2, 5, 5]);
        let psv = Psv0::parse(&Chunk::test(FourCc::PSV0, &bytes), Some(ShaderKind::Hull)).unwrap();
        assert_eq!(psv.runtime_info.version, 0);
        assert_eq!(
            psv.runtime_info.stage_info,
            Some(StageInfo::Hull {
                input_control_point_count: 3,
                output_control_point_count: 4,
                tessellator_domain: 1,
                tessellator_output_primitive: 2
            })
        );
        assert_eq!(psv.resources[0].v1, None);
        assert_eq!(psv.resources[0].resource_type, ResourceType::UAVRaw);
        assert!(psv.input_elements.is_empty());
    }

    fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
        bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }

    #[test]
    fn rejects_bad_sizes_and_counts() {
        let good = pixel_v3();
        let cases: &[(usize, u32)] = &[
            (0, 8),             // runtime info smaller than v0
            (0, 0xffff_fff0),   // runtime info past the end
            (56, 1000),         // resource count
            (60, 8),            // bind info stride too small
            (60, u32::MAX),     // bind info stride huge
            (88, 15),           // string table size not a multiple of 4
            (88, 4096),         // string table past the end
            (108, 0x4000_0000), // semantic index count
            (124, 4),           // element stride too small
            (124, 4096),        // element stride huge
            (128, 99),          // semantic name offset out of range
            (132, 100),         // semantic indexes out of range
            (52, 99),           // entry function name out of range
        ];
        for &(at, value) in cases {
            let mut bad = good.clone();
            put_u32(&mut bad, at, value);
            let err =
                Psv0::parse(&Chunk::test(FourCc::PSV0, &bad), None).expect_err(&format!("field at {at} = {value:#x}"));
            assert_eq!(err.chunk(), Some(FourCc::PSV0), "{err}");
        }
        for len in 0..good.len() - 8 {
            assert!(Psv0::parse(&Chunk::test(FourCc::PSV0, &good[..len]), None).is_err(), "prefix {len}");
        }
    }

    #[test]
    fn unterminated_string_table() {
        let mut bad = pixel_v3();
        // Overwrite the string table's final NULs so "main" runs off the end.
        let at = 92 + 12;
        bad[at..at + 4].copy_from_slice(b"nXYZ");
        let err = Psv0::parse(&Chunk::test(FourCc::PSV0, &bad), None).unwrap_err();
        assert!(matches!(err, ContainerError::UnterminatedString { .. }), "{err}");
    }
}
