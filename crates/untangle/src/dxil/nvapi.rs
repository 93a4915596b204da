//! NVIDIA NVAPI HLSL extensions: the records that `nvHLSLExtns.h` (NVIDIA's nvapi
//! repository, public) writes to its magic UAV so that NVIDIA's D3D12 driver replaces them
//! with an instruction.
//!
//! The magic UAV is `RWStructuredBuffer<NvShaderExtnStruct> g_NvidiaExt` at a register and
//! space the application chooses and tells the driver (`NvAPI_D3D12_SetNvShaderExtnSlotSpace`;
//! vkd3d-proton passes them on as dxil-spirv's `NVAPI` option). One intrinsic is:
//!
//! 1. `index = g_NvidiaExt.IncrementCounter()` (`bufferUpdateCounter(+1)`): opens a record;
//! 2. stores of its operands into the 256-byte record at `index` (`bufferStore` /
//!    `rawBufferStore` at byte offsets of the struct's fields, the opcode last);
//! 3. its results: one more `IncrementCounter()` per result word (shuffles, votes, lane id,
//!    special registers, match), or a load of `dst0u` at `index` (atomics).
//!
//! An atomic on an application UAV is preceded by a *marking* record: `markUavRef = 1` at
//! a fresh index, then one store to the application's UAV at that index, which the driver
//! drops and which only names the atomic's target.
//!
//! Record layout (dwords): `opcode` 0, `rid` 1, `sid` 2, `dst1u` 3..6, `src3u` 7..10,
//! `src4u` 11..14, `src5u` 15..18, `src0u` 19..22, `src1u` 23..26, `src2u` 27..30, `dst0u`
//! 31..34, `markUavRef` 35, `numOutputsForIncCounter` 36, padding to 64.
//!
//! This module decodes opcodes and sub-operations and follows the record protocol
//! ([`Stream`]); it knows nothing of SPIR-V (`emit::dxop::nvapi` lowers). It is generic over
//! the values the stores carry (`V`) and the handle that names an atomic's target (`T`).
//! Invariants: a store outside an open record, a field written at a misaligned or
//! out-of-record offset, a result read before its record is complete, a non-constant
//! opcode or sub-operation, and a record left incomplete are [`NvapiError`]s naming the
//! instruction (its opcode where known). Cost: constant per call.

use crate::ir::{InstId, Value};
use std::fmt;

/// Dword positions of the record's fields.
pub mod field {
    pub const OPCODE: u32 = 0;
    pub const DST1U: u32 = 3;
    pub const SRC3U: u32 = 7;
    pub const SRC4U: u32 = 11;
    pub const SRC5U: u32 = 15;
    pub const SRC0U: u32 = 19;
    pub const SRC1U: u32 = 23;
    pub const SRC2U: u32 = 27;
    pub const DST0U: u32 = 31;
    pub const MARK_UAV_REF: u32 = 35;
    pub const NUM_OUTPUTS: u32 = 36;
    /// Dwords that carry meaning (the rest of the 64 is padding).
    pub const COUNT: usize = 37;
}

/// The shader execution reordering opcodes (`NV_EXTN_OP_HIT_OBJECT_*`, [`Opcode::HitObject`]).
/// A hit object is a word (`NvHitObject::_handle`) that the record making it returns
/// through `IncrementCounter`; the records reading one take it in `src0u.x` (`src0u.y` for
/// `REORDER_THREAD`). `TRACE_RAY`, `MAKE_HIT*` and `INVOKE` also return a *token* that the
/// next `TraceRay` takes as its miss shader index (its ray, payload and structure are the
/// operation's); `MAKE_HIT*` pass the attributes to a `CallShader` on the token first, and
/// `GET_ATTRIBUTES` receives them from one.
pub mod hit {
    pub const TRACE_RAY: u32 = 67;
    pub const MAKE_HIT: u32 = 68;
    pub const MAKE_HIT_WITH_RECORD_INDEX: u32 = 69;
    pub const MAKE_MISS: u32 = 70;
    pub const REORDER_THREAD: u32 = 71;
    pub const INVOKE: u32 = 72;
    pub const IS_MISS: u32 = 73;
    pub const GET_INSTANCE_ID: u32 = 74;
    pub const GET_INSTANCE_INDEX: u32 = 75;
    pub const GET_PRIMITIVE_INDEX: u32 = 76;
    pub const GET_GEOMETRY_INDEX: u32 = 77;
    pub const GET_HIT_KIND: u32 = 78;
    pub const GET_RAY_DESC: u32 = 79;
    pub const GET_ATTRIBUTES: u32 = 80;
    pub const GET_SHADER_TABLE_INDEX: u32 = 81;
    pub const LOAD_LOCAL_ROOT_TABLE_CONSTANT: u32 = 82;
    pub const IS_HIT: u32 = 83;
    pub const IS_NOP: u32 = 84;
    pub const MAKE_NOP: u32 = 85;

    /// The records that make a hit object (each owns one).
    pub fn makes_hit_object(n: u32) -> bool {
        matches!(n, TRACE_RAY | MAKE_HIT | MAKE_HIT_WITH_RECORD_INDEX | MAKE_MISS | MAKE_NOP)
    }

    /// The name after `NV_EXTN_OP_HIT_OBJECT_`.
    pub fn name(n: u32) -> &'static str {
        const NAMES: [&str; 19] = [
            "TRACE_RAY",
            "MAKE_HIT",
            "MAKE_HIT_WITH_RECORD_INDEX",
            "MAKE_MISS",
            "REORDER_THREAD",
            "INVOKE",
            "IS_MISS",
            "GET_INSTANCE_ID",
            "GET_INSTANCE_INDEX",
            "GET_PRIMITIVE_INDEX",
            "GET_GEOMETRY_INDEX",
            "GET_HIT_KIND",
            "GET_RAY_DESC",
            "GET_ATTRIBUTES",
            "GET_SHADER_TABLE_INDEX",
            "LOAD_LOCAL_ROOT_TABLE_CONSTANT",
            "IS_HIT",
            "IS_NOP",
            "MAKE_NOP",
        ];
        n.checked_sub(TRACE_RAY).and_then(|k| NAMES.get(k as usize)).copied().unwrap_or("?")
    }
}

/// The name of record dword `d` (`src0u.y`, `opcode`, ...).
pub fn field_name(d: u32) -> String {
    const VECS: [(u32, &str); 8] = [
        (field::DST1U, "dst1u"),
        (field::SRC3U, "src3u"),
        (field::SRC4U, "src4u"),
        (field::SRC5U, "src5u"),
        (field::SRC0U, "src0u"),
        (field::SRC1U, "src1u"),
        (field::SRC2U, "src2u"),
        (field::DST0U, "dst0u"),
    ];
    match d {
        0 => "opcode".into(),
        1 => "rid".into(),
        2 => "sid".into(),
        field::MARK_UAV_REF => "markUavRef".into(),
        field::NUM_OUTPUTS => "numOutputsForIncCounter".into(),
        _ => match VECS.iter().find(|(b, _)| (*b..*b + 4).contains(&d)) {
            Some((b, n)) => format!("{n}.{}", ["x", "y", "z", "w"][(d - b) as usize]),
            None => format!("padding dword {d}"),
        },
    }
}

/// Texture footprints (`nvShaderExtnEnums.h`): the opcodes and the constants their records
/// carry. A record holds the texture's register `src0u.x` and space `src3u.x`, the
/// sampler's `src0u.y` and `src3u.y`, the location `src1u.xyz` (floats), the granularity
/// `src1u.w`, the texture type `src3u.z`, the mode `src3u.w`, the texel offset `src4u.xyz`
/// (ints), the bias or level `src2u.x`, the gradients `src2u.xyz` and `src5u.xyz`; its
/// four result words come back through four `IncrementCounter`s.
pub mod footprint {
    /// `NV_EXTN_OP_FOOTPRINT` (implicit level).
    pub const PLAIN: u32 = 28;
    pub const BIAS: u32 = 29;
    pub const LEVEL: u32 = 31;
    pub const GRAD: u32 = 32;
    /// `NV_EXTN_TEXTURE_2D`, `_2D_ARRAY`, `_3D` (`src3u.z`).
    pub const TEXTURE_2D: u32 = 4;
    pub const TEXTURE_2D_ARRAY: u32 = 5;
    pub const TEXTURE_3D: u32 = 6;
    /// `NV_EXTN_FOOTPRINT_MODE_FINE` / `_COARSE` (`src3u.w`).
    pub const MODE_FINE: u32 = 0;
    pub const MODE_COARSE: u32 = 1;
}

/// Ray-tracing queries (`NV_EXTN_OP_RT_*`, 86..=119; `nvHLSLExtns.h`,
/// `nvHLSLExtnsInternal.h`): what each opcode reads and from where. The hit-shader forms
/// carry no operand; the ray-query forms (`NvRt*(rq)` macros) store `rq.RayFlags()` in
/// `src0u.x`, the only way the record names its `RayQuery` (the lowering follows that
/// value back to the `rayQuery_StateScalar` `RayFlags` call and its query); the hit-object
/// forms (`NvHitObject::GetClusterID`, `GetTriangleObjectPositions`, `GetSphere...`,
/// `GetLss...`, `IsSphereHit`, `IsLssHit`) store the hit object's handle in `src0u.x`, as
/// the `HIT_OBJECT_GET_*` records do. Results come back through `IncrementCounter`s, float
/// bits as words, row by row.
pub mod rt {
    /// What an `NV_EXTN_OP_RT_*` opcode returns.
    #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
    pub enum Query {
        /// `uint` cluster id (`-1` outside a cluster acceleration structure).
        ClusterId,
        /// `float3x3`: the hit triangle's three object-space vertex positions.
        TrianglePositions,
        /// `float4`: the sphere's object-space centre and radius.
        SpherePositionRadius,
        /// `float2x4`: the swept sphere's two end points, each with its radius.
        LssPositionsRadii,
        /// `bool` (a word, 0 or not): the hit is a sphere.
        IsSphere,
        /// `bool`: the hit is a linear swept sphere.
        IsLss,
        /// `float`: the swept sphere's hit parameter along its axis.
        LssHitParameter,
    }

    /// Which intersection a query reads.
    #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
    pub enum Source {
        /// The hit of the any-hit or closest-hit shader running.
        Hit,
        /// The candidate / committed intersection of the ray query `src0u.x` names.
        Candidate,
        Committed,
        /// The hit object whose handle (`NvHitObject::_handle`) `src0u.x` holds.
        HitObject,
    }

    /// The query opcode `n` makes, or `None` for those without one (micro-map queries
    /// 87..=92, `CANDIDATE_BUILTIN_PRIMITIVE_RAY_T`,
    /// `COMMIT_NONOPAQUE_BUILTIN_PRIMITIVE_HIT`).
    pub fn decode(n: u32) -> Option<(Query, Source)> {
        use Query::*;
        use Source::*;
        Some(match n {
            86 => (TrianglePositions, Hit),
            93 => (ClusterId, Hit),
            94 => (ClusterId, Candidate),
            95 => (ClusterId, Committed),
            96 => (ClusterId, HitObject),
            97 => (TrianglePositions, Candidate),
            98 => (TrianglePositions, Committed),
            99 => (TrianglePositions, HitObject),
            100 => (SpherePositionRadius, Hit),
            101 => (SpherePositionRadius, Candidate),
            102 => (SpherePositionRadius, Committed),
            103 => (SpherePositionRadius, HitObject),
            104 => (LssPositionsRadii, Hit),
            105 => (LssPositionsRadii, Candidate),
            106 => (LssPositionsRadii, Committed),
            107 => (LssPositionsRadii, HitObject),
            108 => (IsSphere, Hit),
            // `CANDIDATE_IS_NONOPAQUE_SPHERE`: a candidate a query stops at is non-opaque.
            109 => (IsSphere, Candidate),
            110 => (IsSphere, Committed),
            111 => (IsSphere, HitObject),
            112 => (IsLss, Hit),
            113 => (IsLss, Candidate),
            114 => (IsLss, Committed),
            115 => (IsLss, HitObject),
            116 => (LssHitParameter, Candidate),
            117 => (LssHitParameter, Committed),
            _ => return None,
        })
    }

    /// The name of opcode `n` (86..=119) without `NV_EXTN_OP_`.
    pub fn name(n: u32) -> &'static str {
        const NAMES: [&str; 34] = [
            "RT_TRIANGLE_OBJECT_POSITIONS",
            "RT_MICRO_TRIANGLE_OBJECT_POSITIONS",
            "RT_MICRO_TRIANGLE_BARYCENTRICS",
            "RT_IS_MICRO_TRIANGLE_HIT",
            "RT_IS_BACK_FACING",
            "RT_MICRO_VERTEX_OBJECT_POSITION",
            "RT_MICRO_VERTEX_BARYCENTRICS",
            "RT_GET_CLUSTER_ID",
            "RT_GET_CANDIDATE_CLUSTER_ID",
            "RT_GET_COMMITTED_CLUSTER_ID",
            "HIT_OBJECT_GET_CLUSTER_ID",
            "RT_CANDIDATE_TRIANGLE_OBJECT_POSITIONS",
            "RT_COMMITTED_TRIANGLE_OBJECT_POSITIONS",
            "HIT_OBJECT_GET_TRIANGLE_OBJECT_POSITIONS",
            "RT_SPHERE_OBJECT_POSITION_AND_RADIUS",
            "RT_CANDIDATE_SPHERE_OBJECT_POSITION_AND_RADIUS",
            "RT_COMMITTED_SPHERE_OBJECT_POSITION_AND_RADIUS",
            "HIT_OBJECT_GET_SPHERE_OBJECT_POSITION_AND_RADIUS",
            "RT_LSS_OBJECT_POSITIONS_AND_RADII",
            "RT_CANDIDATE_LSS_OBJECT_POSITIONS_AND_RADII",
            "RT_COMMITTED_LSS_OBJECT_POSITIONS_AND_RADII",
            "HIT_OBJECT_GET_LSS_OBJECT_POSITIONS_AND_RADII",
            "RT_IS_SPHERE_HIT",
            "RT_CANDIDATE_IS_NONOPAQUE_SPHERE",
            "RT_COMMITTED_IS_SPHERE",
            "HIT_OBJECT_IS_SPHERE_HIT",
            "RT_IS_LSS_HIT",
            "RT_CANDIDATE_IS_NONOPAQUE_LSS",
            "RT_COMMITTED_IS_LSS",
            "HIT_OBJECT_IS_LSS_HIT",
            "RT_CANDIDATE_LSS_HIT_PARAMETER",
            "RT_COMMITTED_LSS_HIT_PARAMETER",
            "RT_CANDIDATE_BUILTIN_PRIMITIVE_RAY_T",
            "RT_COMMIT_NONOPAQUE_BUILTIN_PRIMITIVE_HIT",
        ];
        n.checked_sub(86).and_then(|k| NAMES.get(k as usize)).copied().unwrap_or("RT")
    }

    /// The hit-object forms (96, 99, 103, 107, 111, 115; they store the handle in
    /// `src0u.x`): shader execution reordering.
    pub fn is_hit_object(n: u32) -> bool {
        matches!(n, 96 | 99 | 103 | 107 | 111 | 115)
    }

    /// The ray-query forms (they store `src0u.x`): 94..=119 but the hit-object ones.
    pub fn names_ray_query(n: u32) -> bool {
        matches!(n, 94 | 95 | 97 | 98 | 101 | 102 | 105 | 106 | 109 | 110 | 113 | 114 | 116..=119)
    }
}

/// A shuffle's lane selection (`shfl.sync` modes).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// From lane `src0u.y` of the segment.
    Idx,
    /// From `lane - src0u.y`, within the segment.
    Up,
    /// From `lane + src0u.y`, within the segment.
    Down,
    /// From `lane ^ src0u.y`, within the segment.
    Xor,
}

/// An NVAPI opcode (`NV_EXTN_OP_*`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    Shfl(ShflMode),
    VoteAll,
    VoteAny,
    VoteBallot,
    GetLaneId,
    Fp16Atomic,
    Fp32Atomic,
    GetSpecial,
    Uint64Atomic,
    MatchAny,
    /// `FOOTPRINT`, `_BIAS`, `_LEVEL`, `_GRAD` (the number).
    Footprint(u32),
    GetShadingRate,
    ShflGeneric,
    /// `VPRS_EVAL_ATTRIB_AT_SAMPLE` / `_SNAPPED` (the number).
    VprsEval(u32),
    /// Shader execution reordering, `HIT_OBJECT_*` (67..=85, the number).
    HitObject(u32),
    /// Ray-tracing queries of micro-maps, clusters, spheres and swept spheres (86..=119).
    RayTracing(u32),
}

impl Opcode {
    pub fn from_number(n: u32) -> Option<Opcode> {
        use Opcode::*;
        Some(match n {
            1 => Shfl(ShflMode::Idx),
            2 => Shfl(ShflMode::Up),
            3 => Shfl(ShflMode::Down),
            4 => Shfl(ShflMode::Xor),
            5 => VoteAll,
            6 => VoteAny,
            7 => VoteBallot,
            8 => GetLaneId,
            12 => Fp16Atomic,
            13 => Fp32Atomic,
            19 => GetSpecial,
            20 => Uint64Atomic,
            21 => MatchAny,
            footprint::PLAIN | footprint::BIAS | footprint::LEVEL | footprint::GRAD => Footprint(n),
            30 => GetShadingRate,
            33 => ShflGeneric,
            51 | 52 => VprsEval(n),
            67..=85 => HitObject(n),
            86..=119 => RayTracing(n),
            _ => return None,
        })
    }

    pub fn number(self) -> u32 {
        use Opcode::*;
        match self {
            Shfl(ShflMode::Idx) => 1,
            Shfl(ShflMode::Up) => 2,
            Shfl(ShflMode::Down) => 3,
            Shfl(ShflMode::Xor) => 4,
            VoteAll => 5,
            VoteAny => 6,
            VoteBallot => 7,
            GetLaneId => 8,
            Fp16Atomic => 12,
            Fp32Atomic => 13,
            GetSpecial => 19,
            Uint64Atomic => 20,
            MatchAny => 21,
            GetShadingRate => 30,
            ShflGeneric => 33,
            Footprint(n) | VprsEval(n) | HitObject(n) | RayTracing(n) => n,
        }
    }

    /// The record dwords the intrinsic reads, given the record so far (`konst` reads a
    /// constant dword): what must be stored before it can be performed.
    fn inputs(self, konst: impl Fn(u32) -> Option<u32>) -> Vec<u32> {
        use field::*;
        use Opcode::*;
        match self {
            Shfl(_) => vec![SRC0U, SRC0U + 1, SRC0U + 2],
            VoteAll | VoteAny | VoteBallot | GetSpecial => vec![SRC0U],
            GetLaneId => vec![],
            MatchAny => {
                let n = konst(SRC1U).unwrap_or(1).clamp(1, 4);
                let mut v = vec![SRC1U];
                v.extend((0..n).map(|k| SRC0U + k));
                v
            }
            Fp16Atomic | Fp32Atomic => vec![SRC0U, SRC1U, SRC2U],
            Uint64Atomic => {
                let cas = konst(SRC2U) == Some(AtomicOp::CAS);
                let n = if cas { 4 } else { 2 };
                let mut v = vec![SRC0U, SRC2U];
                v.extend((0..n).map(|k| SRC1U + k));
                v
            }
            Footprint(n) => {
                // Texture and sampler register, location and granularity, the spaces,
                // texture type and mode, the offset, and the result count (stored after the
                // opcode).
                let mut v = vec![SRC0U, SRC0U + 1];
                v.extend((0..4).map(|k| SRC1U + k));
                v.extend((0..4).map(|k| SRC3U + k));
                v.extend((0..3).map(|k| SRC4U + k));
                v.push(NUM_OUTPUTS);
                match n {
                    footprint::BIAS | footprint::LEVEL => v.push(SRC2U),
                    footprint::GRAD => {
                        v.extend((0..3).map(|k| SRC2U + k));
                        v.extend((0..3).map(|k| SRC5U + k));
                    }
                    _ => {}
                }
                v
            }
            HitObject(n) => {
                let v = |d: u32, k: u32| (0..k).map(move |j| d + j);
                match n {
                    hit::TRACE_RAY => vec![NUM_OUTPUTS, SRC0U],
                    hit::MAKE_HIT => [NUM_OUTPUTS].into_iter().chain(v(SRC0U, 4)).chain(v(SRC1U, 2)).collect(),
                    hit::MAKE_HIT_WITH_RECORD_INDEX => [NUM_OUTPUTS, SRC1U].into_iter().chain(v(SRC0U, 4)).collect(),
                    hit::MAKE_MISS => v(SRC0U, 3).chain(v(SRC1U, 3)).chain(v(SRC2U, 3)).collect(),
                    hit::REORDER_THREAD => v(SRC0U, 4).collect(),
                    hit::LOAD_LOCAL_ROOT_TABLE_CONSTANT => vec![SRC0U, SRC0U + 1],
                    hit::MAKE_NOP => vec![],
                    _ => vec![SRC0U],
                }
            }
            RayTracing(n) if rt::names_ray_query(n) || rt::is_hit_object(n) => vec![SRC0U],
            // Not performed: refused as soon as the opcode is known.
            GetShadingRate | ShflGeneric | VprsEval(_) | RayTracing(_) => vec![],
        }
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Opcode::*;
        let name = match self {
            Shfl(ShflMode::Idx) => "SHFL",
            Shfl(ShflMode::Up) => "SHFL_UP",
            Shfl(ShflMode::Down) => "SHFL_DOWN",
            Shfl(ShflMode::Xor) => "SHFL_XOR",
            VoteAll => "VOTE_ALL",
            VoteAny => "VOTE_ANY",
            VoteBallot => "VOTE_BALLOT",
            GetLaneId => "GET_LANE_ID",
            Fp16Atomic => "FP16_ATOMIC",
            Fp32Atomic => "FP32_ATOMIC",
            GetSpecial => "GET_SPECIAL",
            Uint64Atomic => "UINT64_ATOMIC",
            MatchAny => "MATCH_ANY",
            Footprint(_) => "FOOTPRINT",
            GetShadingRate => "GET_SHADING_RATE",
            ShflGeneric => "SHFL_GENERIC",
            VprsEval(_) => "VPRS_EVAL_ATTRIB",
            HitObject(n) => return write!(f, "NV_EXTN_OP_HIT_OBJECT_{} ({n})", hit::name(*n)),
            RayTracing(n) => rt::name(*n),
        };
        write!(f, "NV_EXTN_OP_{name} ({})", self.number())
    }
}

/// An atomic's sub-operation (`NV_EXTN_ATOM_*`, in `src2u.x`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    And,
    Or,
    Xor,
    Add,
    Max,
    Min,
    Swap,
    CompareExchange,
}

impl AtomicOp {
    const CAS: u32 = 9;

    pub fn from_number(n: u32) -> Option<AtomicOp> {
        use AtomicOp::*;
        Some(match n {
            0 => And,
            1 => Or,
            2 => Xor,
            3 => Add,
            6 => Max,
            7 => Min,
            8 => Swap,
            Self::CAS => CompareExchange,
            _ => return None,
        })
    }
}

/// `GET_SPECIAL`'s register (`NV_SPECIALOP_*`, in `src0u.x`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SpecialOp {
    ThreadLtMask,
    FootprintSingleLodPred,
    GlobalTimerLo,
    GlobalTimerHi,
}

impl SpecialOp {
    pub fn from_number(n: u32) -> Option<SpecialOp> {
        Some(match n {
            4 => SpecialOp::ThreadLtMask,
            5 => SpecialOp::FootprintSingleLodPred,
            9 => SpecialOp::GlobalTimerLo,
            10 => SpecialOp::GlobalTimerHi,
            _ => return None,
        })
    }
}

/// A malformed NVAPI record sequence. It names the call (and the record's opcode where
/// known).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NvapiError {
    #[error("opcode {0} is not an NVAPI opcode")]
    UnknownOpcode(u32),
    #[error("{what}: the opcode is not a constant")]
    OpcodeNotConstant { what: String },
    #[error("{opcode}: {field} = {value} names no sub-operation")]
    BadSubOp { opcode: Opcode, field: String, value: u32 },
    #[error("{opcode}: {field} must be a constant")]
    NotConstant { opcode: Opcode, field: String },
    #[error("{what} outside an open record (it is not at the index the last IncrementCounter returned)")]
    OutsideRecord { what: String },
    #[error("{what}: byte offset {offset} is not a field of the 256-byte record")]
    BadOffset { what: String, offset: u32 },
    #[error("{record}: {field} is missing when {when}")]
    Incomplete { record: String, field: String, when: String },
    #[error("{opcode}: its hit object (`{field}`) is made by no record of this function")]
    NoHitObject { opcode: Opcode, field: String },
    #[error("{call} on the token of {opcode}, which waits for {want}")]
    WrongTokenCall { call: String, opcode: Opcode, want: &'static str },
    #[error("{what} reads {field}, which the record of {record} does not produce")]
    NoResult { what: String, field: String, record: String },
    #[error("{opcode}: src0u.x is not `RayFlags()` of a RayQuery that allocateRayQuery makes (the record names its query only so)")]
    NoRayQuery { opcode: Opcode },
    #[error("{what} reads the single-LOD predicate, but no NV_EXTN_OP_FOOTPRINT record precedes it in the function")]
    NoFootprint { what: String },
}

/// One field written: the value, when it is a constant its bits, and the shader's value
/// stored (what a register index that names a resource is taken from).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Field<V> {
    pub value: V,
    pub konst: Option<u32>,
    pub arg: Option<Value>,
}

/// A complete record: what the lowering performs.
#[derive(Clone, Debug)]
pub struct Record<V> {
    pub opcode: Opcode,
    /// The `IncrementCounter` that opened the record.
    pub doorbell: InstId,
    fields: [Option<Field<V>>; field::COUNT],
}

impl<V: Copy> Record<V> {
    /// Dword `d`, which `Opcode::inputs` guaranteed present.
    pub fn get(&self, d: u32) -> Option<V> {
        self.fields.get(d as usize).copied().flatten().map(|f| f.value)
    }

    /// The shader's value stored at dword `d`.
    pub fn arg(&self, d: u32) -> Option<Value> {
        self.fields.get(d as usize).copied().flatten().and_then(|f| f.arg)
    }

    /// Dword `d` as a constant, or an error naming it.
    pub fn konst(&self, d: u32) -> Result<u32, NvapiError> {
        self.fields
            .get(d as usize)
            .copied()
            .flatten()
            .and_then(|f| f.konst)
            .ok_or(NvapiError::NotConstant { opcode: self.opcode, field: field_name(d) })
    }

    /// The atomic sub-operation in `src2u.x`.
    pub fn atomic_op(&self) -> Result<AtomicOp, NvapiError> {
        self.sub_op(field::SRC2U, AtomicOp::from_number)
    }

    /// `GET_SPECIAL`'s register in `src0u.x`.
    pub fn special_op(&self) -> Result<SpecialOp, NvapiError> {
        self.sub_op(field::SRC0U, SpecialOp::from_number)
    }

    /// A sub-operation number in the constant field `d`, decoded by `decode`.
    fn sub_op<T>(&self, d: u32, decode: fn(u32) -> Option<T>) -> Result<T, NvapiError> {
        let n = self.konst(d)?;
        decode(n).ok_or(NvapiError::BadSubOp { opcode: self.opcode, field: field_name(d), value: n })
    }
}

#[derive(Clone, Debug)]
enum State<V> {
    Idle,
    /// A record being written at the index `IncrementCounter` `doorbell` returned.
    Open {
        doorbell: InstId,
        fields: Box<[Option<Field<V>>; field::COUNT]>,
    },
    /// A marking record: the next store at `doorbell` names an atomic's target.
    Marking {
        doorbell: InstId,
    },
    /// A performed intrinsic whose results are read: `counter` by the next
    /// `IncrementCounter`s, `dst0u` by loads at `doorbell`.
    Done {
        doorbell: InstId,
        opcode: Opcode,
        counter: Vec<V>,
        next: usize,
        dst: [Option<V>; 4],
    },
}

/// What an `IncrementCounter` on the magic UAV is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Counter<V> {
    /// It opens a record (its value is the record's index, used only by the stores).
    Open,
    /// It returns a result of the intrinsic just performed.
    Result(V),
}

/// Follows a function's calls on the magic UAV in program order (see the module
/// documentation), and the target an atomic's marking record named.
#[derive(Clone, Debug)]
pub struct Stream<V, T> {
    state: State<V>,
    target: Option<T>,
    /// The single-LOD predicate the last footprint set (`GET_SPECIAL`
    /// `FOOTPRINT_SINGLELOD_PRED` reads it).
    single_lod: Option<V>,
}

impl<V, T> Default for Stream<V, T> {
    fn default() -> Self {
        Stream { state: State::Idle, target: None, single_lod: None }
    }
}

impl<V: Copy, T: Copy> Stream<V, T> {
    /// The record being written, for messages.
    fn describe(fields: &[Option<Field<V>>; field::COUNT]) -> String {
        match fields[0].and_then(|f| f.konst) {
            Some(n) => match Opcode::from_number(n) {
                Some(op) => format!("the record of {op}"),
                None => format!("the record of opcode {n}"),
            },
            None => "a record without its opcode".into(),
        }
    }

    /// `IncrementCounter` call `inst` on the magic UAV.
    pub fn counter(&mut self, inst: InstId) -> Result<Counter<V>, NvapiError> {
        match &mut self.state {
            State::Done { counter, next, .. } if *next < counter.len() => {
                *next += 1;
                return Ok(Counter::Result(counter[*next - 1]));
            }
            State::Open { fields, .. } => {
                let record = Self::describe(fields);
                let missing = match fields[0].and_then(|f| f.konst).and_then(Opcode::from_number) {
                    Some(op) => op
                        .inputs(|d| fields[d as usize].and_then(|f| f.konst))
                        .into_iter()
                        .find(|&d| fields[d as usize].is_none())
                        .unwrap_or(field::OPCODE),
                    None => field::OPCODE,
                };
                return Err(NvapiError::Incomplete {
                    record,
                    field: field_name(missing),
                    when: "the next IncrementCounter comes".into(),
                });
            }
            State::Marking { .. } => {
                return Err(NvapiError::Incomplete {
                    record: "a marking record (markUavRef = 1)".into(),
                    field: "the store to the atomic's target".into(),
                    when: "the next IncrementCounter comes".into(),
                })
            }
            _ => {}
        }
        self.state = State::Open { doorbell: inst, fields: Box::new([None; field::COUNT]) };
        Ok(Counter::Open)
    }

    /// A store of `values` (by mask) at record `index`, byte `offset`: `Some` when it
    /// completes a record, which the caller performs and then reports with [`Self::done`].
    pub fn store(
        &mut self,
        what: &str,
        index: Option<InstId>,
        offset: Option<u32>,
        values: [Option<Field<V>>; 4],
    ) -> Result<Option<Record<V>>, NvapiError> {
        let State::Open { doorbell, fields } = &mut self.state else {
            return Err(NvapiError::OutsideRecord { what: what.into() });
        };
        if index != Some(*doorbell) {
            return Err(NvapiError::OutsideRecord { what: what.into() });
        }
        let offset = offset.ok_or_else(|| NvapiError::BadOffset { what: what.into(), offset: u32::MAX })?;
        let first = offset / 4;
        for (k, v) in values.iter().enumerate() {
            let Some(v) = v else { continue };
            let d = first as usize + k;
            if offset % 4 != 0 || d >= field::COUNT {
                return Err(NvapiError::BadOffset { what: what.into(), offset });
            }
            fields[d] = Some(*v);
        }
        if fields[field::MARK_UAV_REF as usize].is_some_and(|f| f.konst == Some(1)) {
            self.state = State::Marking { doorbell: *doorbell };
            return Ok(None);
        }
        let Some(opcode) = fields[0] else { return Ok(None) };
        let n = opcode.konst.ok_or_else(|| NvapiError::OpcodeNotConstant { what: what.into() })?;
        let opcode = Opcode::from_number(n).ok_or(NvapiError::UnknownOpcode(n))?;
        let inputs = opcode.inputs(|d| fields[d as usize].and_then(|f| f.konst));
        if inputs.iter().any(|&d| fields[d as usize].is_none()) {
            return Ok(None);
        }
        Ok(Some(Record { opcode, doorbell: *doorbell, fields: **fields }))
    }

    /// The record [`Self::store`] returned was performed: `counter` are the results the next
    /// `IncrementCounter`s return, `dst` those loads of `dst0u` read.
    pub fn done(&mut self, opcode: Opcode, counter: Vec<V>, dst: [Option<V>; 4]) {
        let doorbell = match self.state {
            State::Open { doorbell, .. } | State::Marking { doorbell } | State::Done { doorbell, .. } => doorbell,
            State::Idle => return,
        };
        self.state = State::Done { doorbell, opcode, counter, next: 0, dst };
    }

    /// A store at record `index` to a UAV other than the magic one: when a marking record
    /// is open at `index`, it names the next atomic's target `t` (and is dropped: true).
    pub fn mark_target(&mut self, index: Option<InstId>, t: T) -> bool {
        match self.state {
            State::Marking { doorbell } if index == Some(doorbell) => {
                self.target = Some(t);
                self.state = State::Idle;
                true
            }
            _ => false,
        }
    }

    /// A footprint was performed: `pred` is its single-LOD predicate.
    pub fn set_single_lod(&mut self, pred: V) {
        self.single_lod = Some(pred);
    }

    /// The single-LOD predicate of the last footprint (`what` reads it).
    pub fn single_lod(&self, what: &str) -> Result<V, NvapiError> {
        self.single_lod.ok_or_else(|| NvapiError::NoFootprint { what: what.into() })
    }

    /// How many results of the intrinsic just performed the next `IncrementCounter`s still
    /// return.
    pub fn results_left(&self) -> usize {
        match &self.state {
            State::Done { counter, next, .. } => counter.len() - next,
            _ => 0,
        }
    }

    /// The target the last marking record named, taken by the atomic that uses it.
    pub fn take_target(&mut self) -> Option<T> {
        self.target.take()
    }

    /// A load of up to 4 dwords at record `index`, byte `offset`: the results there.
    pub fn load(&self, what: &str, index: Option<InstId>, offset: Option<u32>) -> Result<[Option<V>; 4], NvapiError> {
        let State::Done { doorbell, opcode, dst, .. } = &self.state else {
            return Err(NvapiError::OutsideRecord { what: what.into() });
        };
        if index != Some(*doorbell) {
            return Err(NvapiError::OutsideRecord { what: what.into() });
        }
        let offset = offset.ok_or_else(|| NvapiError::BadOffset { what: what.into(), offset: u32::MAX })?;
        if offset != field::DST0U * 4 {
            return Err(NvapiError::NoResult {
                what: what.into(),
                field: field_name(offset / 4),
                record: opcode.to_string(),
            });
        }
        Ok(*dst)
    }

    /// At the end of a function: a record left incomplete is malformed.
    pub fn finish(&self) -> Result<(), NvapiError> {
        match &self.state {
            State::Open { fields, .. } => Err(NvapiError::Incomplete {
                record: Self::describe(fields),
                field: "a field".into(),
                when: "the function ends".into(),
            }),
            State::Marking { .. } => Err(NvapiError::Incomplete {
                record: "a marking record (markUavRef = 1)".into(),
                field: "the store to the atomic's target".into(),
                when: "the function ends".into(),
            }),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: u32) -> Option<Field<u32>> {
        Some(Field { value: v, konst: Some(v), arg: None })
    }

    #[test]
    fn opcodes_round_trip() {
        for n in 0..130 {
            if let Some(op) = Opcode::from_number(n) {
                assert_eq!(op.number(), n, "{op}");
            }
        }
        assert_eq!(Opcode::from_number(1), Some(Opcode::Shfl(ShflMode::Idx)));
        assert_eq!(Opcode::from_number(9), None);
        assert_eq!(field_name(21), "src0u.z");
        assert_eq!(field_name(36), "numOutputsForIncCounter");
        assert_eq!(AtomicOp::from_number(9), Some(AtomicOp::CompareExchange));
        assert_eq!(AtomicOp::from_number(4), None);
    }

    #[test]
    fn ray_tracing_opcodes() {
        for n in 86..=119 {
            assert_ne!(rt::name(n), "RT", "{n}");
            assert_eq!(Opcode::from_number(n), Some(Opcode::RayTracing(n)));
            if let Some((_, source)) = rt::decode(n) {
                let query = matches!(source, rt::Source::Candidate | rt::Source::Committed);
                assert_eq!(rt::names_ray_query(n), query, "{n}");
                assert_eq!(rt::is_hit_object(n), source == rt::Source::HitObject, "{n}");
            } else {
                assert!(!rt::is_hit_object(n), "{n}");
            }
        }
        assert_eq!(Opcode::RayTracing(93).to_string(), "NV_EXTN_OP_RT_GET_CLUSTER_ID (93)");
        assert_eq!(rt::decode(109), Some((rt::Query::IsSphere, rt::Source::Candidate)));
        assert_eq!(rt::decode(119), None);
        // A ray-query form completes with `src0u.x` (stored after the opcode); a hit-shader
        // form with its opcode.
        let a = InstId::from_u32(1);
        let mut s = Stream::<u32, ()>::default();
        assert_eq!(s.counter(a), Ok(Counter::Open));
        assert!(s.store("s", Some(a), Some(0), [f(95), None, None, None]).unwrap().is_none());
        let r = s.store("s", Some(a), Some(76), [f(7), None, None, None]).unwrap().expect("complete");
        assert_eq!(r.get(field::SRC0U), Some(7));
        let mut s = Stream::<u32, ()>::default();
        assert_eq!(s.counter(a), Ok(Counter::Open));
        assert!(s.store("s", Some(a), Some(0), [f(93), None, None, None]).unwrap().is_some());
    }

    #[test]
    fn shuffle_record() {
        let (a, b) = (InstId::from_u32(1), InstId::from_u32(2));
        let mut s = Stream::<u32, ()>::default();
        assert_eq!(s.counter(a), Ok(Counter::Open));
        let x = |v| [f(v), None, None, None];
        assert!(s.store("s", Some(a), Some(76), [f(7), f(3), f(0x1f), None]).unwrap().is_none());
        let r = s.store("s", Some(a), Some(0), x(1)).unwrap().expect("complete");
        assert_eq!(r.opcode, Opcode::Shfl(ShflMode::Idx));
        assert_eq!(r.get(field::SRC0U + 1), Some(3));
        s.done(r.opcode, vec![42], [None; 4]);
        assert_eq!(s.counter(b), Ok(Counter::Result(42)));
        assert_eq!(s.counter(b), Ok(Counter::Open), "the next counter opens a record");
        // Opcode before its operands: the record waits.
        assert!(s.store("s", Some(b), Some(0), x(1)).unwrap().is_none());
        let e = s.counter(a).unwrap_err();
        assert!(e.to_string().contains("SHFL (1): src0u.x is missing"), "{e}");
    }

    #[test]
    fn hit_object_records() {
        let (a, b) = (InstId::from_u32(1), InstId::from_u32(2));
        let mut s = Stream::<u32, ()>::default();
        s.counter(a).unwrap();
        // NvTraceRayHitObject: the opcode first, then numOutputsForIncCounter and src0u.x.
        assert!(s.store("s", Some(a), Some(0), [f(hit::TRACE_RAY), None, None, None]).unwrap().is_none());
        assert!(s.store("s", Some(a), Some(field::NUM_OUTPUTS * 4), [f(2), None, None, None]).unwrap().is_none());
        let r = s.store("s", Some(a), Some(field::SRC0U * 4), [f(0), None, None, None]).unwrap().expect("complete");
        assert_eq!((r.opcode, r.doorbell), (Opcode::HitObject(67), a));
        assert_eq!(r.opcode.to_string(), "NV_EXTN_OP_HIT_OBJECT_TRACE_RAY (67)");
        s.done(r.opcode, vec![5, 6], [None; 4]);
        assert_eq!(s.results_left(), 2);
        assert_eq!(s.counter(b), Ok(Counter::Result(5)));
        assert_eq!(s.counter(b), Ok(Counter::Result(6)));
        assert_eq!(s.results_left(), 0);
        // NvMakeNop needs nothing but its opcode.
        s.counter(b).unwrap();
        let r = s.store("s", Some(b), Some(0), [f(hit::MAKE_NOP), None, None, None]).unwrap().expect("complete");
        assert_eq!(r.opcode.to_string(), "NV_EXTN_OP_HIT_OBJECT_MAKE_NOP (85)");
        assert!(hit::makes_hit_object(hit::MAKE_MISS) && !hit::makes_hit_object(hit::INVOKE));
    }

    #[test]
    fn malformed() {
        let (a, b) = (InstId::from_u32(1), InstId::from_u32(2));
        let mut s = Stream::<u32, ()>::default();
        assert!(matches!(
            s.store("st", Some(a), Some(0), [f(1), None, None, None]),
            Err(NvapiError::OutsideRecord { .. })
        ));
        s.counter(a).unwrap();
        assert!(matches!(
            s.store("st", Some(b), Some(0), [f(1), None, None, None]),
            Err(NvapiError::OutsideRecord { .. })
        ));
        assert!(matches!(s.store("st", Some(a), Some(6), [f(1), None, None, None]), Err(NvapiError::BadOffset { .. })));
        assert!(matches!(s.store("st", Some(a), Some(0), [f(9), None, None, None]), Err(NvapiError::UnknownOpcode(9))));
        let nc = Some(Field { value: 0, konst: None, arg: None });
        assert!(matches!(
            s.store("st", Some(a), Some(0), [nc, None, None, None]),
            Err(NvapiError::OpcodeNotConstant { .. })
        ));
        assert!(s.finish().is_err());
    }

    #[test]
    fn footprint_record_completes_with_its_result_count() {
        let (a, b) = (InstId::from_u32(1), InstId::from_u32(2));
        let mut s = Stream::<u32, ()>::default();
        s.counter(a).unwrap();
        let d = |n: u32| Some(n * 4);
        s.store("st", Some(a), d(field::SRC0U), [f(0), f(1), None, None]).unwrap();
        s.store("st", Some(a), d(field::SRC1U), [f(1), f(2), f(3), f(1)]).unwrap();
        s.store("st", Some(a), d(field::SRC2U), [f(7), None, None, None]).unwrap();
        s.store("st", Some(a), d(field::SRC3U), [f(0), f(0), f(4), f(1)]).unwrap();
        s.store("st", Some(a), d(field::SRC4U), [f(0), f(0), f(0), None]).unwrap();
        let op = Some(Field { value: footprint::LEVEL, konst: Some(footprint::LEVEL), arg: None });
        assert!(s.store("st", Some(a), Some(0), [op, None, None, None]).unwrap().is_none(), "waits for the count");
        let r = s.store("st", Some(a), d(field::NUM_OUTPUTS), [f(4), None, None, None]).unwrap().expect("complete");
        assert_eq!(r.opcode, Opcode::Footprint(footprint::LEVEL));
        assert_eq!(r.get(field::SRC2U), Some(7));
        s.done(r.opcode, vec![10, 11, 12, 13], [None; 4]);
        for w in 10..14 {
            assert_eq!(s.counter(b), Ok(Counter::Result(w)));
        }
        assert!(matches!(s.single_lod("pred"), Err(NvapiError::NoFootprint { .. })));
        s.set_single_lod(1);
        assert_eq!(s.single_lod("pred"), Ok(1));
        // The gradient form also needs src2u.yz and src5u.xyz.
        let grad = Opcode::Footprint(footprint::GRAD).inputs(|_| None);
        assert!(grad.contains(&(field::SRC5U + 2)) && grad.contains(&(field::SRC2U + 2)));
        assert!(!Opcode::Footprint(footprint::PLAIN).inputs(|_| None).contains(&field::SRC2U));
    }

    #[test]
    fn atomic_records() {
        let (m, a) = (InstId::from_u32(1), InstId::from_u32(2));
        let mut s = Stream::<u32, char>::default();
        s.counter(m).unwrap();
        assert!(s.store("mark", Some(m), Some(140), [f(1), None, None, None]).unwrap().is_none());
        assert!(!s.mark_target(Some(a), 'u'), "another index names nothing");
        assert!(s.mark_target(Some(m), 'u'));
        s.counter(a).unwrap();
        s.store("st", Some(a), Some(76), [f(8), None, None, None]).unwrap();
        s.store("st", Some(a), Some(92), [f(5), f(6), None, None]).unwrap();
        s.store("st", Some(a), Some(108), [f(9), None, None, None]).unwrap();
        assert!(s.store("st", Some(a), Some(0), [f(20), None, None, None]).unwrap().is_none(), "CAS needs src1u.zw");
        let r = s.store("st", Some(a), Some(100), [f(1), f(2), None, None]).unwrap().expect("complete");
        assert_eq!(r.atomic_op(), Ok(AtomicOp::CompareExchange));
        assert_eq!(s.take_target(), Some('u'));
        s.done(r.opcode, vec![], [Some(10), Some(11), None, None]);
        assert_eq!(s.load("ld", Some(a), Some(124)).unwrap()[1], Some(11));
        assert!(matches!(s.load("ld", Some(a), Some(128)), Err(NvapiError::NoResult { .. })));
        assert!(s.finish().is_ok());
    }
}
