//! Which DXIL operations the translator lowers, in which stages, and why it refuses the
//! others: the one place that says so. The dispatcher (`FnEmit::dx_op`, `dxop`) routes every call
//! through [`support`], so a call is lowered exactly when this module says it is; the
//! coverage table (`docs/dxil-coverage.md`, regenerated and checked by the test kit's
//! `dxil_coverage` test) and `untangle info --ops` print the same answers, so a layer can
//! ask up front ([`support`], [`stage_support`], [`crate::Shader::unsupported_operations`]).
//!
//! # The rules, in order
//!
//! 1. A reserved opcode slot is never valid DXIL ([`Refusal::Reserved`]).
//! 2. An operation outside the stages DXIL allows it in is refused
//!    ([`Refusal::NotInStage`]; the stage lists are DXC's, see [`crate::dxil::op_facts::valid_in`]).
//! 3. Operations owned by a stage family whose lowering is somebody else's work (none
//!    today: work graphs landed in [`Family::WorkGraphs`]), and the DXBC converter's
//!    private operations, are refused with that reason ([`Refusal::StageFamily`],
//!    [`Refusal::DxbcConverterOnly`]).
//! 4. A stage the translator does not handle yet refuses everything
//!    ([`Refusal::StageNotTranslated`], from [`stage_support`]).
//! 5. Everything else is [`Support::Lowered`] by its [`Family`].
//!
//! Libraries are translated entry by entry, each in its own stage (raygen, intersection,
//! any-hit, closest-hit, miss, callable, compute, or node: `stage::node`): the `lib` column
//! of the table says lowered for what some ray-tracing stage or node may call.
//!
//! When a family lands, its operations move from rule 3 to rule 5 here, and the table
//! follows by itself.

use crate::dxil::DxOp;
use crate::front::container::ShaderKind;
use serde::Serialize;

/// How the translator handles one operation in one stage.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
pub enum Support {
    /// Lowered by the module of this family (`emit/dxop/<family>.rs`).
    Lowered(Family),
    /// Refused with a typed error ([`super::Error::UnsupportedOp`]) saying why.
    Refused(Refusal),
}

impl Support {
    pub fn is_lowered(self) -> bool {
        matches!(self, Support::Lowered(_))
    }
}

/// The operation families, one lowering module each.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Serialize)]
pub enum Family {
    /// `createHandle`, `createHandleFromBinding`, `createHandleFromHeap`, `annotateHandle`.
    Handles,
    /// Compute-style thread and group ids.
    ComputeIds,
    /// `barrier`, `barrierByMemoryType`, `barrierByMemoryHandle`.
    Barriers,
    /// Constant, raw, structured and typed buffers, atomics, UAV counters.
    Buffers,
    /// Texture loads and stores, sampling, gathers, queries, sample positions.
    Textures,
    /// Stage inputs and outputs, pixel-shader system operations, derivatives.
    StageIo,
    /// Wave and quad operations.
    Wave,
    /// Floating-point arithmetic, classification and dot products.
    FloatMath,
    /// Integer arithmetic, carries, bit fields and bit counts.
    IntegerMath,
    /// Bit casts, half and double conversions, packing.
    Conversions,
    /// System values without a stage family (`viewID`, draw parameters) and the cycle
    /// counter.
    SystemValues,
    /// Hull, domain and geometry shader operations: control points, patch constants,
    /// tessellation coordinates, emits and cuts, instance and primitive ids (`stages.rs`
    /// routes them to `crates/untangle/src/emit/stage/`).
    GraphicsStages,
    /// Pixel-shader pull-model interpolation (`evalSnapped`, `evalSampleIndex`,
    /// `evalCentroid`), per-vertex attributes (`attributeAtVertex`) and the render target's
    /// sample count and sample positions.
    Interpolation,
    /// Mesh and amplification shader operations: output counts, indices, vertex and
    /// primitive outputs, the payload and `dispatchMesh` (`mesh.rs` routes them to
    /// `crates/untangle/src/emit/stage/{mesh,amplification}.rs`).
    MeshShading,
    /// Ray-tracing stage operations: `traceRay`, `reportHit`, `callShader`, hit control and
    /// the ray system values (`raytracing.rs`; the stages are `crates/untangle/src/emit/stage/ray_tracing.rs`).
    RayTracing,
    /// Inline ray queries: `allocateRayQuery` and every `rayQuery_*` operation, in any
    /// stage (`ray_query.rs`).
    RayQuery,
    /// SM 6.9 shader execution reordering: every `HitObject_*` operation and
    /// `MaybeReorderThread` (`hit_object.rs`).
    HitObjects,
    /// Work-graph node operations: node and record handles, input and output records,
    /// output counts, cross-group sharing, recursion levels (`nodes.rs`; the node stage is
    /// `crates/untangle/src/emit/stage/node.rs`, the scheduler contract
    /// `docs/work-graphs.md`).
    WorkGraphs,
    /// SM 6.10 debugging (`debugBreak`, `isDebuggingEnabled`) and the experimental table's
    /// `nop` (`debug.rs`).
    Debugging,
    /// SM 6.10 LinAlg matrices. Thread scope: matrix-vector products from a matrix in a
    /// `ByteAddressBuffer`, outer-product and vector accumulation into a
    /// `RWByteAddressBuffer` (`linalg.rs`, `SPV_NV_cooperative_vector`). Wave and thread-group
    /// scope: cooperative matrices (`linalg_matrix.rs`, `SPV_KHR_cooperative_matrix`,
    /// `SPV_NV_cooperative_matrix2`). `LinAlgConvert`: per-element saturating conversions
    /// (`linalg_convert.rs`).
    LinearAlgebra,
}

impl Family {
    /// The lowering module, relative to `crates/untangle/src/emit/dxop/`.
    pub fn module(self) -> &'static str {
        match self {
            Family::Handles => "handles.rs",
            Family::ComputeIds => "compute.rs",
            Family::Barriers => "barriers.rs",
            Family::Buffers => "buffers.rs",
            Family::Textures => "textures.rs",
            Family::StageIo => "io.rs",
            Family::Wave => "wave.rs",
            Family::FloatMath => "math.rs",
            Family::IntegerMath => "integer.rs",
            Family::Conversions => "convert.rs",
            Family::SystemValues => "system.rs",
            Family::GraphicsStages => "stages.rs",
            Family::Interpolation => "interpolation.rs",
            Family::MeshShading => "mesh.rs",
            Family::RayTracing => "raytracing.rs",
            Family::RayQuery => "ray_query.rs",
            Family::HitObjects => "hit_object.rs",
            Family::WorkGraphs => "nodes.rs",
            Family::Debugging => "debug.rs",
            Family::LinearAlgebra => "linalg.rs",
        }
    }
}

/// Stage families: groups of stages and operations with their own lowering work.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize)]
pub enum StageFamily {
    /// The graphics stages; every stage of it is translated, so only a module without a
    /// valid shader kind is refused under it.
    Graphics,
    /// Work graphs (node shaders). Translated since issue 21 (`stage::node`); kept so the
    /// refusal stays nameable by API users.
    WorkGraphs,
}

impl StageFamily {
    pub fn name(self) -> &'static str {
        match self {
            StageFamily::Graphics => "graphics stages",
            StageFamily::WorkGraphs => "work graphs",
        }
    }

    /// Why it is refused today.
    pub fn reason(self) -> &'static str {
        match self {
            StageFamily::Graphics => "a shader of no valid graphics stage (DXIL shader kind `Invalid`)",
            StageFamily::WorkGraphs => {
                "work graphs have no Vulkan equivalent (VK_AMDX_shader_enqueue is a provisional vendor extension)"
            }
        }
    }
}

/// Why an operation is refused.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
pub enum Refusal {
    /// Reserved slots (226–237, DXIL 1.9's `ReservedA0`…`ReservedD3`, the experimental
    /// `ReservedE0`), never valid.
    Reserved,
    /// DXIL does not allow the operation in this stage (DXC's validator rejects the call).
    NotInStage,
    /// The operation belongs to a stage family not lowered yet.
    StageFamily(StageFamily),
    /// The stage itself is not translated yet.
    StageNotTranslated(StageFamily),
    /// `tempReg*` / `minPrecXReg*`: DXC's DXBC-to-DXIL converter emits them and its
    /// `dxil-cleanup` pass removes them; finished DXIL never holds them.
    DxbcConverterOnly,
    /// No Vulkan feature covers the operation.
    NoVulkanFeature(Uncovered),
}

/// Operations without a Vulkan counterpart.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
pub enum Uncovered {
    /// `writeSamplerFeedback*`: refused unless the layer selects a feedback-map encoding
    /// (`Options::sampler_feedback`), which the dispatcher then lowers (`dxop/feedback.rs`).
    SamplerFeedback,
    /// `HitObject_FromRayQueryWithAttrs`: a hit object from a ray query's procedural hit,
    /// with its hit kind.
    HitObjectFromQueryHitKind,
    /// `LinAlgMatrixGetCoordinate`: the row and column an element index of a matrix holds.
    LinAlgCoordinate,
    /// `LinAlgMatrixQueryAccumulatorLayout`: whether accumulator matrices are laid out as
    /// A or B matrices.
    LinAlgAccumulatorLayout,
    /// `LinAlgMatrixAccumulateToMemory`, and `LinAlgMatrixAccumulateToDescriptor` of a wave
    /// or thread-group matrix: an atomic accumulating store of a cooperative matrix.
    LinAlgInterlockedAccumulate,
    /// `LinAlgMatrixAccumulate`: an A or B matrix added into an accumulator, which needs an
    /// A/B → accumulator conversion.
    LinAlgUseToAccumulator,
}

impl Refusal {
    /// A sentence for error messages and the coverage table.
    pub fn reason(self) -> String {
        match self {
            Refusal::Reserved => "a reserved opcode slot, never valid DXIL".into(),
            Refusal::NotInStage => "DXIL does not allow it in this stage (DXC's validator rejects the call)".into(),
            Refusal::StageFamily(f) | Refusal::StageNotTranslated(f) => f.reason().into(),
            Refusal::NoVulkanFeature(Uncovered::SamplerFeedback) => "Vulkan has no sampler feedback: a layer \
                emulates feedback maps in a storage image under an encoding it shares with the shader, and none \
                was selected (Options::sampler_feedback; vkd3d-proton's is SamplerFeedbackEncoding::Vkd3dProton)"
                .into(),
            Refusal::NoVulkanFeature(Uncovered::HitObjectFromQueryHitKind) => "SPV_NV_shader_invocation_reorder \
                makes no hit object from a ray query, and SPV_EXT_shader_invocation_reorder's \
                OpHitObjectRecordFromQueryEXT takes the hit kind only since the SPIR-V registry's 2026 revision, \
                which the SPIRV-Tools untangle validates against (2025.5) rejects"
                .into(),
            Refusal::NoVulkanFeature(Uncovered::LinAlgCoordinate) => "VK_KHR_cooperative_matrix leaves which row \
                and column an element holds opaque, and VK_NV_cooperative_matrix2 exposes coordinates only to \
                OpCooperativeMatrixPerElementOpNV's callback; OpCooperativeMatrixGetCoordinateEXT \
                (SPV_EXT_cooperative_matrix_maintenance1) answers it, but the SPIRV-Tools untangle validates \
                against (2025.5) does not know it and no target device exposes it yet"
                .into(),
            Refusal::NoVulkanFeature(Uncovered::LinAlgAccumulatorLayout) => "Vulkan does not say whether its \
                accumulator matrices (MatrixAccumulatorKHR, a use of their own) are laid out as A or as B \
                matrices, so the query has no answer"
                .into(),
            Refusal::NoVulkanFeature(Uncovered::LinAlgUseToAccumulator) => "Vulkan cannot add an A or B \
                cooperative matrix into an accumulator: the uses lay elements out differently, element-wise \
                arithmetic needs operands of one use, and no instruction of VK_KHR_cooperative_matrix or \
                VK_NV_cooperative_matrix2 converts A or B matrices to accumulators (NV2 converts accumulators to \
                A or B only; SPV_EXT_cooperative_matrix_maintenance1's OpCooperativeMatrixConvertUseEXT is newer \
                than the SPIRV-Tools untangle validates against, 2025.5)"
                .into(),
            Refusal::NoVulkanFeature(Uncovered::LinAlgInterlockedAccumulate) => "Vulkan has no atomic \
                accumulating store of a wave or thread-group cooperative matrix (VK_NV_cooperative_vector's \
                OpCooperativeVectorOuterProductAccumulateNV accumulates only a thread's outer product of two \
                vectors, which is how a thread-scope matrix is lowered)"
                .into(),
            Refusal::DxbcConverterOnly => "an intermediate of DXC's DXBC converter, removed by its dxil-cleanup \
                                           pass; finished DXIL never contains it"
                .into(),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason())
    }
}

/// Whether the translator handles `stage` at all: `None` when it does, else the stage family
/// whose work it is. [`crate::translate()`] refuses other stages with
/// [`super::Error::UnsupportedStage`].
pub fn stage_support(stage: ShaderKind) -> Option<StageFamily> {
    use ShaderKind::*;
    match stage {
        Compute | Pixel | Vertex | Geometry | Hull | Domain | Mesh | Amplification => None,
        Library | RayGeneration | Intersection | AnyHit | ClosestHit | Miss | Callable | Node => None,
        Invalid => Some(StageFamily::Graphics),
    }
}

/// Who owns an operation: a lowering family, or a refusal that holds in every stage.
#[derive(Copy, Clone)]
enum Owner {
    Family(Family),
    Refused(Refusal),
}

fn owner(op: DxOp) -> Owner {
    use DxOp::*;
    use Family as F;
    let family = |f| Owner::Family(f);
    match op {
        TempRegLoad | TempRegStore | MinPrecXRegLoad | MinPrecXRegStore => Owner::Refused(Refusal::DxbcConverterOnly),
        LoadInput | StoreOutput | Discard | SampleIndex | Coverage | InnerCoverage | IsHelperLane | DerivCoarseX
        | DerivCoarseY | DerivFineX | DerivFineY => family(F::StageIo),
        FAbs | Saturate | IsNaN | IsInf | IsFinite | IsNormal | Cos | Sin | Tan | Acos | Asin | Atan | Hcos | Hsin
        | Htan | Exp | Frc | Log | Sqrt | Rsqrt | Round_ne | Round_ni | Round_pi | Round_z | FMax | FMin | FMad
        | Fma | Dot2 | Dot3 | Dot4 | Dot2AddHalf | FDot => family(F::FloatMath),
        Bfrev | Countbits | FirstbitLo | FirstbitHi | FirstbitSHi | IMax | IMin | UMax | UMin | IMul | UMul | UDiv
        | UAddc | USubb | IMad | UMad | Msad | Ibfe | Ubfe | Bfi | Dot4AddI8Packed | Dot4AddU8Packed
        | VectorReduceAnd | VectorReduceOr => family(F::IntegerMath),
        CreateHandle | CreateHandleFromBinding | CreateHandleFromHeap | AnnotateHandle | CreateHandleForLib => {
            family(F::Handles)
        }
        CBufferLoad
        | CBufferLoadLegacy
        | BufferLoad
        | BufferStore
        | BufferUpdateCounter
        | CheckAccessFullyMapped
        | RawBufferLoad
        | RawBufferStore
        | RawBufferVectorLoad
        | RawBufferVectorStore
        | AtomicBinOp
        | AtomicCompareExchange => family(F::Buffers),
        Sample
        | SampleBias
        | SampleLevel
        | SampleGrad
        | SampleCmp
        | SampleCmpLevelZero
        | SampleCmpLevel
        | SampleCmpBias
        | SampleCmpGrad
        | TextureLoad
        | TextureStore
        | TextureStoreSample
        | GetDimensions
        | TextureGather
        | TextureGatherCmp
        | TextureGatherRaw
        | CalculateLOD
        | Texture2DMSGetSamplePosition => family(F::Textures),
        Barrier | BarrierByMemoryType | BarrierByMemoryHandle | BarrierByNodeRecordHandle => family(F::Barriers),
        ThreadId | GroupId | ThreadIdInGroup | FlattenedThreadIdInGroup => family(F::ComputeIds),
        BitcastI16toF16 | BitcastF16toI16 | BitcastI32toF32 | BitcastF32toI32 | BitcastI64toF64 | BitcastF64toI64
        | LegacyF32ToF16 | LegacyF16ToF32 | LegacyDoubleToFloat | LegacyDoubleToSInt32 | LegacyDoubleToUInt32
        | MakeDouble | SplitDouble | Pack4x8 | Unpack4x8 => family(F::Conversions),
        ViewID | StartVertexLocation | StartInstanceLocation | CycleCounterLegacy => family(F::SystemValues),
        EmitStream
        | CutStream
        | EmitThenCutStream
        | GSInstanceID
        | LoadOutputControlPoint
        | LoadPatchConstant
        | DomainLocation
        | StorePatchConstant
        | OutputControlPointID
        | PrimitiveID => family(F::GraphicsStages),
        EvalSnapped
        | EvalSampleIndex
        | EvalCentroid
        | AttributeAtVertex
        | RenderTargetGetSamplePosition
        | RenderTargetGetSampleCount => family(F::Interpolation),
        SetMeshOutputCounts | EmitIndices | GetMeshPayload | StoreVertexOutput | StorePrimitiveOutput
        | DispatchMesh => family(F::MeshShading),
        InstanceID
        | InstanceIndex
        | HitKind
        | RayFlags
        | DispatchRaysIndex
        | DispatchRaysDimensions
        | WorldRayOrigin
        | WorldRayDirection
        | ObjectRayOrigin
        | ObjectRayDirection
        | ObjectToWorld
        | WorldToObject
        | RayTMin
        | RayTCurrent
        | IgnoreHit
        | AcceptHitAndEndSearch
        | TraceRay
        | ReportHit
        | CallShader
        | PrimitiveIndex
        | GeometryIndex => family(F::RayTracing),
        AllocateRayQuery
        | AllocateRayQuery2
        | RayQuery_TraceRayInline
        | RayQuery_Proceed
        | RayQuery_Abort
        | RayQuery_CommitNonOpaqueTriangleHit
        | RayQuery_CommitProceduralPrimitiveHit
        | RayQuery_CommittedStatus
        | RayQuery_CandidateType
        | RayQuery_CandidateObjectToWorld3x4
        | RayQuery_CandidateWorldToObject3x4
        | RayQuery_CommittedObjectToWorld3x4
        | RayQuery_CommittedWorldToObject3x4
        | RayQuery_CandidateProceduralPrimitiveNonOpaque
        | RayQuery_CandidateTriangleFrontFace
        | RayQuery_CommittedTriangleFrontFace
        | RayQuery_CandidateTriangleBarycentrics
        | RayQuery_CommittedTriangleBarycentrics
        | RayQuery_RayFlags
        | RayQuery_WorldRayOrigin
        | RayQuery_WorldRayDirection
        | RayQuery_RayTMin
        | RayQuery_CandidateTriangleRayT
        | RayQuery_CommittedRayT
        | RayQuery_CandidateInstanceIndex
        | RayQuery_CandidateInstanceID
        | RayQuery_CandidateGeometryIndex
        | RayQuery_CandidatePrimitiveIndex
        | RayQuery_CandidateObjectRayOrigin
        | RayQuery_CandidateObjectRayDirection
        | RayQuery_CommittedInstanceIndex
        | RayQuery_CommittedInstanceID
        | RayQuery_CommittedGeometryIndex
        | RayQuery_CommittedPrimitiveIndex
        | RayQuery_CommittedObjectRayOrigin
        | RayQuery_CommittedObjectRayDirection
        | RayQuery_CandidateInstanceContributionToHitGroupIndex
        | RayQuery_CommittedInstanceContributionToHitGroupIndex => family(F::RayQuery),
        AllocateNodeOutputRecords
        | GetNodeRecordPtr
        | IncrementOutputCount
        | OutputComplete
        | GetInputRecordCount
        | FinishedCrossGroupSharing
        | CreateNodeOutputHandle
        | IndexNodeHandle
        | AnnotateNodeHandle
        | CreateNodeInputRecordHandle
        | AnnotateNodeRecordHandle
        | NodeOutputIsValid
        | GetRemainingRecursionLevels => family(F::WorkGraphs),
        WriteSamplerFeedback | WriteSamplerFeedbackBias | WriteSamplerFeedbackLevel | WriteSamplerFeedbackGrad => {
            Owner::Refused(Refusal::NoVulkanFeature(Uncovered::SamplerFeedback))
        }
        _ if op.is_reserved() => Owner::Refused(Refusal::Reserved),
        GetGroupWaveIndex | GetGroupWaveCount => family(F::ComputeIds),
        ClusterID | TriangleObjectPosition => family(F::RayTracing),
        RayQuery_CandidateClusterID
        | RayQuery_CommittedClusterID
        | RayQuery_CandidateTriangleObjectPosition
        | RayQuery_CommittedTriangleObjectPosition => family(F::RayQuery),
        HitObject_ClusterID | HitObject_TriangleObjectPosition => family(F::HitObjects),
        ExperimentalNop | DebugBreak | IsDebuggingEnabled => family(F::Debugging),
        // Thread scope through SPV_NV_cooperative_vector; `linalg.rs` refuses other scopes.
        // `LinAlgConvert`: plain arithmetic (`linalg_convert.rs`). Wave and thread-group
        // matrices: cooperative matrices (`linalg_matrix.rs`).
        LinAlgMatrixLoadFromDescriptor
        | LinAlgMatVecMul
        | LinAlgMatVecMulAdd
        | LinAlgMatrixOuterProduct
        | LinAlgMatrixAccumulateToDescriptor
        | LinAlgVectorAccumulateToDescriptor
        | LinAlgConvert
        | LinAlgMatrixMultiplyAccumulate
        | LinAlgFillMatrix
        | LinAlgCopyConvertMatrix
        | LinAlgMatrixLoadFromMemory
        | LinAlgMatrixLength
        | LinAlgMatrixGetElement
        | LinAlgMatrixSetElement
        | LinAlgMatrixStoreToDescriptor
        | LinAlgMatrixStoreToMemory
        | LinAlgMatrixMultiply => family(F::LinearAlgebra),
        LinAlgMatrixGetCoordinate => Owner::Refused(Refusal::NoVulkanFeature(Uncovered::LinAlgCoordinate)),
        LinAlgMatrixQueryAccumulatorLayout => {
            Owner::Refused(Refusal::NoVulkanFeature(Uncovered::LinAlgAccumulatorLayout))
        }
        LinAlgMatrixAccumulateToMemory => {
            Owner::Refused(Refusal::NoVulkanFeature(Uncovered::LinAlgInterlockedAccumulate))
        }
        LinAlgMatrixAccumulate => Owner::Refused(Refusal::NoVulkanFeature(Uncovered::LinAlgUseToAccumulator)),
        HitObject_TraceRay
        | HitObject_FromRayQuery
        | HitObject_MakeMiss
        | HitObject_MakeNop
        | HitObject_Invoke
        | MaybeReorderThread
        | HitObject_IsMiss
        | HitObject_IsHit
        | HitObject_IsNop
        | HitObject_RayFlags
        | HitObject_RayTMin
        | HitObject_RayTCurrent
        | HitObject_WorldRayOrigin
        | HitObject_WorldRayDirection
        | HitObject_ObjectRayOrigin
        | HitObject_ObjectRayDirection
        | HitObject_ObjectToWorld3x4
        | HitObject_WorldToObject3x4
        | HitObject_GeometryIndex
        | HitObject_InstanceIndex
        | HitObject_InstanceID
        | HitObject_PrimitiveIndex
        | HitObject_HitKind
        | HitObject_ShaderTableIndex
        | HitObject_SetShaderTableIndex
        | HitObject_LoadLocalRootTableConstant
        | HitObject_Attributes => family(F::HitObjects),
        HitObject_FromRayQueryWithAttrs => {
            Owner::Refused(Refusal::NoVulkanFeature(Uncovered::HitObjectFromQueryHitKind))
        }
        // The wave and quad operations: DXIL's own list, `DxOp::is_wave_op` (the test
        // `wave_family_is_dxils_wave_list` checks nothing else lands here).
        _ => family(F::Wave),
    }
}

/// How `op` is handled in a `stage` shader (see the module documentation for the rules).
pub fn support(op: DxOp, stage: ShaderKind) -> Support {
    let owner = owner(op);
    if let Owner::Refused(Refusal::Reserved) = owner {
        return Support::Refused(Refusal::Reserved);
    }
    // Compute-like shaders have no input or output signature (DXC's validator finds no
    // element for any `loadInput`/`storeOutput` there), whatever hctdb's empty stage list says.
    let no_signature = matches!(stage, ShaderKind::Compute | ShaderKind::Mesh | ShaderKind::Amplification)
        && matches!(op, DxOp::LoadInput | DxOp::StoreOutput);
    // `createHandleForLib` names a library's resource objects; DXC's validator allows it in
    // library functions only (`SmOpcodeInInvalidFunction`).
    let library_only = op == DxOp::CreateHandleForLib
        && !(matches!(stage, ShaderKind::Library | ShaderKind::Node) || stage.is_ray_tracing());
    if !crate::dxil::op_facts::valid_in(op, stage) || no_signature || library_only {
        return Support::Refused(Refusal::NotInStage);
    }
    // A library's functions are translated as ray-tracing entries; operations only work
    // graphs' node shaders may call are not.
    let library_stage = match stage {
        ShaderKind::Library if !ShaderKind::ray_tracing().iter().any(|&s| crate::dxil::op_facts::valid_in(op, s)) => {
            ShaderKind::Node
        }
        _ => stage,
    };
    match owner {
        Owner::Refused(r) => Support::Refused(r),
        Owner::Family(f) => match stage_support(library_stage) {
            Some(sf) => Support::Refused(Refusal::StageNotTranslated(sf)),
            None => Support::Lowered(f),
        },
    }
}

/// The stages of the coverage table's columns, in order (ray tracing and node shaders are
/// compiled as libraries).
pub const TABLE_STAGES: [ShaderKind; 9] = [
    ShaderKind::Compute,
    ShaderKind::Pixel,
    ShaderKind::Vertex,
    ShaderKind::Geometry,
    ShaderKind::Hull,
    ShaderKind::Domain,
    ShaderKind::Mesh,
    ShaderKind::Amplification,
    ShaderKind::Library,
];

/// One cell of the coverage table: how one stage handles an operation, in a form that
/// serializes flat (`{"stage": "cs", "status": "lowered", "module": "math.rs"}`).
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct StageCoverage {
    /// The profile prefix: `cs`, `ps`, `vs`, `gs`, `hs`, `ds`, `ms`, `as`, `lib`.
    pub stage: &'static str,
    /// `lowered`, `not_in_stage` (DXIL forbids it there), `stage_not_translated`,
    /// `reserved` or `refused`.
    pub status: &'static str,
    /// For `lowered`: the lowering module under `crates/untangle/src/emit/dxop/`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<&'static str>,
    /// For every refusal: the reason the typed error gives.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl StageCoverage {
    /// The cell for `support` in `stage`.
    pub fn new(stage: ShaderKind, support: Support) -> StageCoverage {
        let (status, module, reason) = match support {
            Support::Lowered(f) => ("lowered", Some(f.module()), None),
            Support::Refused(r) => {
                let status = match r {
                    Refusal::NotInStage => "not_in_stage",
                    Refusal::StageNotTranslated(_) => "stage_not_translated",
                    Refusal::Reserved => "reserved",
                    _ => "refused",
                };
                (status, None, Some(r.reason()))
            }
        };
        StageCoverage { stage: stage.profile_prefix().unwrap_or("?"), status, module, reason }
    }
}

/// One row of the coverage table: an operation and how every [`TABLE_STAGES`] stage handles
/// it. `docs/dxil-coverage.md` and `untangle info --ops` print these rows.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct OpCoverage {
    pub opcode: u32,
    pub name: &'static str,
    /// The shader model that introduced it, `major.minor`.
    pub shader_model: String,
    pub stages: Vec<StageCoverage>,
}

impl OpCoverage {
    /// The row of `op`.
    pub fn new(op: DxOp) -> OpCoverage {
        let (major, minor) = op.min_shader_model();
        OpCoverage {
            opcode: op.number(),
            name: op.name(),
            shader_model: format!("{major}.{minor}"),
            stages: TABLE_STAGES.iter().map(|&st| StageCoverage::new(st, support(op, st))).collect(),
        }
    }

    /// Whether some stage lowers it.
    pub fn is_lowered_somewhere(&self) -> bool {
        self.stages.iter().any(|s| s.status == "lowered")
    }
}

/// The whole coverage table: every DXIL 1.9 operation and every SM 6.10 experimental one
/// (reserved slots included) in opcode order, each in every [`TABLE_STAGES`] stage. Cost:
/// 347 × 9 table look-ups.
pub fn coverage() -> Vec<OpCoverage> {
    crate::dxil::opcodes::ALL.iter().map(|&op| OpCoverage::new(op)).collect()
}

/// An operation a shader calls that the translator refuses in its stage
/// ([`crate::Shader::unsupported_operations`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct UnsupportedOperation {
    pub op: DxOp,
    /// How many calls the module makes.
    pub calls: usize,
    pub refusal: Refusal,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dxil::opcodes::ALL;

    #[test]
    fn every_opcode_has_an_owner_and_reserved_slots_are_refused() {
        for &op in ALL {
            for stage in TABLE_STAGES {
                let s = support(op, stage);
                if op.is_reserved() {
                    assert_eq!(s, Support::Refused(Refusal::Reserved));
                }
                if s.is_lowered() {
                    assert!(
                        crate::dxil::op_facts::valid_in(op, stage) && stage_support(stage).is_none(),
                        "{op:?} in {stage:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn wave_family_is_dxils_wave_list() {
        for &op in ALL {
            assert_eq!(matches!(owner(op), Owner::Family(Family::Wave)), op.is_wave_op(), "{op:?}");
        }
    }

    #[test]
    fn examples() {
        use ShaderKind::*;
        assert_eq!(support(DxOp::FAbs, Compute), Support::Lowered(Family::FloatMath));
        assert_eq!(support(DxOp::UAddc, Vertex), Support::Lowered(Family::IntegerMath));
        assert_eq!(support(DxOp::ThreadId, Pixel), Support::Refused(Refusal::NotInStage));
        assert_eq!(support(DxOp::FAbs, Hull), Support::Lowered(Family::FloatMath));
        assert_eq!(support(DxOp::StorePatchConstant, Hull), Support::Lowered(Family::GraphicsStages));
        assert_eq!(support(DxOp::EmitStream, Geometry), Support::Lowered(Family::GraphicsStages));
        assert_eq!(support(DxOp::EmitStream, Hull), Support::Refused(Refusal::NotInStage));
        assert_eq!(support(DxOp::EvalCentroid, Pixel), Support::Lowered(Family::Interpolation));
        assert_eq!(support(DxOp::EvalCentroid, Vertex), Support::Refused(Refusal::NotInStage));
        assert_eq!(support(DxOp::FAbs, Mesh), Support::Lowered(Family::FloatMath));
        assert_eq!(support(DxOp::DispatchMesh, Amplification), Support::Lowered(Family::MeshShading));
        assert_eq!(support(DxOp::EmitIndices, Amplification), Support::Refused(Refusal::NotInStage));
        assert_eq!(support(DxOp::TempRegLoad, Compute), Support::Refused(Refusal::DxbcConverterOnly));
        assert_eq!(support(DxOp::RayQuery_Proceed, Compute), Support::Lowered(Family::RayQuery));
        assert_eq!(support(DxOp::TraceRay, RayGeneration), Support::Lowered(Family::RayTracing));
        assert_eq!(support(DxOp::TraceRay, Compute), Support::Refused(Refusal::NotInStage));
        assert_eq!(support(DxOp::Reserved3, Compute), Support::Refused(Refusal::Reserved));
        assert_eq!(support(DxOp::ReservedC4, Pixel), Support::Refused(Refusal::Reserved));
        assert_eq!(support(DxOp::ReservedE0, Compute), Support::Refused(Refusal::Reserved));
        assert_eq!(support(DxOp::HitObject_Invoke, RayGeneration), Support::Lowered(Family::HitObjects));
        assert_eq!(support(DxOp::AllocateRayQuery2, Pixel), Support::Lowered(Family::RayQuery));
        assert_eq!(support(DxOp::MaybeReorderThread, Miss), Support::Refused(Refusal::NotInStage));
        assert_eq!(support(DxOp::GetGroupWaveIndex, Compute), Support::Lowered(Family::ComputeIds));
        assert_eq!(support(DxOp::GetGroupWaveIndex, Pixel), Support::Refused(Refusal::NotInStage));
        assert_eq!(support(DxOp::TriangleObjectPosition, ClosestHit), Support::Lowered(Family::RayTracing));
        assert_eq!(support(DxOp::DebugBreak, Vertex), Support::Lowered(Family::Debugging));
        assert_eq!(support(DxOp::LinAlgConvert, Compute), Support::Lowered(Family::LinearAlgebra));
        assert_eq!(support(DxOp::LinAlgMatrixMultiply, Compute), Support::Lowered(Family::LinearAlgebra));
        for op in ALL.iter().filter(|op| op.is_experimental() && !op.is_reserved()) {
            let s = support(*op, Compute);
            let linalg = format!("{op:?}").starts_with("LinAlg");
            assert!(s.is_lowered() || linalg || s == Support::Refused(Refusal::NotInStage), "{op:?}");
        }
    }

    #[test]
    fn coverage_rows_agree_with_support() {
        let rows = coverage();
        assert_eq!(rows.len(), ALL.len());
        for (row, &op) in rows.iter().zip(ALL) {
            assert_eq!((row.opcode, row.name), (op.number(), op.name()));
            for (cell, &stage) in row.stages.iter().zip(&TABLE_STAGES) {
                assert_eq!(cell, &StageCoverage::new(stage, support(op, stage)));
                assert_eq!(cell.status == "lowered", support(op, stage).is_lowered());
                assert_eq!(cell.module.is_some(), cell.reason.is_none());
            }
        }
        let umul = &rows[DxOp::UMul.number() as usize];
        assert_eq!(umul.stages[0].module, Some("integer.rs"));
        let feedback = &rows[DxOp::WriteSamplerFeedback.number() as usize].stages[1];
        assert_eq!(feedback.status, "refused");
        assert!(feedback.reason.as_deref().is_some_and(|r| r.contains("sampler feedback")));
    }
}

/// How an AMD AGS intrinsic (an opcode of [`crate::dxil::ags`]) is translated when the
/// layer exposes AGS (`Options::vendor.amd_ags`): `dxop/ags.rs` lowers exactly the opcodes
/// this calls lowered, and the coverage table prints it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum VendorSupport {
    /// Lowered to `spirv`; `feature` names the `VendorFeatures` option the lowering needs,
    /// or several joined by ` + ` (without one, a typed error names its Vulkan feature).
    Lowered { spirv: &'static str, feature: Option<&'static str> },
    /// Refused ([`super::VendorRefusal::NotLowered`]) for this reason.
    Refused(&'static str),
}

/// Lowered to `spirv` when the `VendorFeatures` option `feature` is granted.
fn needs(spirv: &'static str, feature: &'static str) -> VendorSupport {
    VendorSupport::Lowered { spirv, feature: Some(feature) }
}

/// [`VendorSupport`] of AGS opcode `op`.
pub fn ags_support(op: crate::dxil::ags::Opcode) -> VendorSupport {
    use crate::dxil::ags::Opcode::*;
    let lowered = |spirv| VendorSupport::Lowered { spirv, feature: None };
    // WMMA: every form needs the cooperative-matrix option.
    let coopmat = |spirv| needs(spirv, "cooperative_matrix");
    match op {
        Readfirstlane => lowered("`OpGroupNonUniformBroadcastFirst`"),
        Readlane => lowered("`OpGroupNonUniformBroadcast` (constant lane)"),
        ReadlaneAt => lowered("`OpGroupNonUniformShuffle`"),
        LaneId => lowered("`SubgroupLocalInvocationId`"),
        GetWaveSize => lowered("`SubgroupSize`"),
        Swizzle => lowered("`OpGroupNonUniformShuffle` from the lane the `ds_swizzle` pattern names"),
        Ballot => lowered("`OpGroupNonUniformBallot`, one component a phase"),
        MBCnt => lowered("`OpBitCount` of the mask and `SubgroupLtMask`"),
        Min3U | Min3F | Med3U | Med3F | Max3U | Max3F => lowered("GLSL.std.450 `UMin`/`UMax`/`NMin`/`NMax`"),
        WaveReduce => lowered("`OpGroupNonUniform*` `Reduce`"),
        WaveScan => lowered("`OpGroupNonUniform*` `InclusiveScan` / `ExclusiveScan`"),
        DrawIndex | BaseVertex | BaseInstance => needs("the `DrawIndex` / `BaseVertex` / `BaseInstance` built-ins (vertex shaders)", "draw_parameters"),
        ShaderClock | ShaderRealtimeClock => needs("`OpReadClockKHR` (`Subgroup` / `Device` scope), read once for both phases", "shader_clock"),
        Float8Conversion => lowered(
            "`OpFConvert` with `SPV_EXT_float8` (option `float8`), else an exact emulation in 32-bit arithmetic",
        ),
        BaryCoord => needs("components 1 and 2 of `BaryCoordKHR` / `BaryCoordNoPerspKHR` (`Centroid` / `Sample` for those modes; one place per built-in); not the pull model", "fragment_shader_barycentric"),
        VtxParam => needs("a `PerVertexKHR` input array's element (inputs `nointerpolation` or read no other way)", "fragment_shader_barycentric"),
        LoadDwAtAddr => needs(
            "`OpLoad` (`Aligned 4`) through a `PhysicalStorageBuffer` pointer at the address plus the offset",
            "buffer_device_address",
        ),
        AtomicU64 => lowered(
            "64-bit `OpAtomic*` (compare-exchange included) on the target buffer's 64-bit view (the store between phases names it); on a texture or typed-buffer target, through `OpImageTexelPointer` on its `R64ui` view (option `image_int64_atomics`, else refused naming `shaderImageInt64Atomics`); not multisampled textures",
        ),
        Halt => VendorSupport::Refused("Vulkan has no shader halt"),
        IntersectBvhNode => VendorSupport::Refused("Vulkan exposes no single-node BVH intersection"),
        FloatConversion => lowered("an exact emulation in 32-bit integer arithmetic: f32 → f16 to nearest even, toward −∞, toward +∞"),
        FloatOpWithRoundMode => lowered(
            "an exact emulation in 32-bit integer arithmetic: f32 add, subtract, multiply, each of the 4 IEEE rounding directions (subnormals kept)",
        ),
        BufferStoreByte | BufferStoreShort => lowered(
            "a short: one element of the buffer's 16-bit view (where it has one); a byte (and a short without the view): `OpAtomicAnd` then `OpAtomicOr` on its word, so neighbouring bytes other threads write are kept",
        ),
        ShaderMarker => lowered(
            "nothing: a marker in the hardware thread trace (RGP), with no value the shader observes; Vulkan has no such side channel",
        ),
        BuiltIn1 | BuiltInArg => VendorSupport::Refused("AGS's built-in escape opcodes are undocumented"),
        WaveMatrixUavLoad | WaveMatrixUavStore | WaveMatrixLdsLoad | WaveMatrixLdsStore => coopmat("`OpCooperativeMatrixLoadKHR` / `StoreKHR` (buffer byte view or groupshared element; 16x16; FP8/BF8 with option `float8`)"),
        WaveMatrixMulAcc => coopmat("`OpCooperativeMatrixMulAddKHR` (16x16x16 f16, fp8/bf8, int8 forms)"),
        WaveMatrixFill | WaveMatrixLength => coopmat("`OpCompositeConstruct` / `OpCooperativeMatrixLengthKHR`"),
        WaveMatrixCopy => coopmat("`OpFConvert`; accumulator → A/B by `OpCooperativeMatrixConvertNV` (option `cooperative_matrix2`) or, without it, through a groupshared round trip after the format conversion, as other use changes (compute shaders)"),
        WaveMatrixElementFill | WaveMatrixElementExtract => coopmat("`OpCompositeInsert` / `OpCompositeExtract` of the invocation's elements (four 8-bit elements a word); a dynamic index through a `Function` variable"),
        MatrixElementWiseArithmetic => coopmat("`OpFAdd` / `OpFSub` / `OpFMul` / `OpFDiv` on f16 and f32 matrices"),
        WaveMatrixGlobalLoad | WaveMatrixGlobalStore => needs(
            "`OpCooperativeMatrixLoadKHR` / `StoreKHR` through a `PhysicalStorageBuffer` byte pointer at the address plus the offset (`Aligned 16`; 16x16)",
            "cooperative_matrix, buffer_device_address",
        ),
        MatrixSparsityIndexLoad => VendorSupport::Refused("WMMA sparse forms are not lowered yet"),
    }
}

/// [`VendorSupport`] of NVAPI opcode `op` when the layer exposes NVAPI
/// (`Options::vendor.nvapi`): `dxop/nvapi.rs` lowers exactly the opcodes this calls
/// lowered, and the coverage table prints it.
pub fn nvapi_support(op: crate::dxil::nvapi::Opcode) -> VendorSupport {
    use crate::dxil::nvapi::Opcode::*;
    let lowered = |spirv| VendorSupport::Lowered { spirv, feature: None };
    match op {
        Shfl(_) => lowered("`OpGroupNonUniformShuffle` from the lane `shfl.sync` picks in the clamp word's segment"),
        VoteAll | VoteAny => lowered("`OpGroupNonUniformAll` / `OpGroupNonUniformAny`, as `0xffffffff` / `0`"),
        VoteBallot => lowered("component 0 of `OpGroupNonUniformBallot`"),
        GetLaneId => lowered("`SubgroupLocalInvocationId`"),
        GetSpecial => needs("`THREADLTMASK`: `SubgroupLtMask`; `GLOBAL_TIMER_LO/HI`: `OpReadClockKHR` (`Device`); `FOOTPRINT_SINGLELOD_PRED`: member 0 of the last footprint's result, as 1 / 0", "shader_clock (timers)"),
        MatchAny => needs("component 0 of `OpGroupNonUniformPartitionNV`", "subgroup_partitioned"),
        Uint64Atomic => needs("64-bit `OpAtomic*` (compare-exchange included) on a `RWByteAddressBuffer`'s 64-bit view; on a `RWTexture*<uint2>` / `RWBuffer<uint2>`, through `OpImageTexelPointer` on its `R64ui` view", "int64_atomics (buffers), image_int64_atomics (textures)"),
        Fp32Atomic => needs("`OpAtomicFAddEXT` on a `RWByteAddressBuffer`'s `float` view; on a `RWTexture*<float>` / `RWBuffer<float>`, through `OpImageTexelPointer` on its `R32f` view", "float32_atomic_add (buffers), image_float32_atomic_add (textures)"),
        Fp16Atomic => needs("`OpAtomicF{Add,Min,Max}EXT` (`SPV_NV_shader_atomic_fp16_vector`) on a `RWByteAddressBuffer`'s `f16vec2` view; on a texture or typed buffer, through `OpImageTexelPointer` to an `f16vec2` texel of its `Rg16f` view", "float16_vector_atomics"),
        Footprint(_) => needs("`OpImageSampleFootprintNV` (`Bias` / `Lod` / `Grad`, `ConstOffset`) of the 2D or 3D texture and sampler the record's registers name, its result packed into `NvFootprint`'s four words; not 2D arrays", "image_footprint"),
        GetShadingRate | VprsEval(_) => VendorSupport::Refused("variable pixel rate shading has no Vulkan counterpart"),
        ShflGeneric => VendorSupport::Refused("the encoding of the generic shuffle's lane-valid result is undocumented"),
        HitObject(n) => {
            use crate::dxil::nvapi::hit::*;
            let spirv = match n {
                TRACE_RAY => "`OpHitObjectTraceRayNV` at the `TraceRay` on the record's token (`dxop/nvapi_hit.rs`)",
                MAKE_HIT => "`OpHitObjectRecordHitNV` at the `TraceRay` on the token, the attributes from the `CallShader` before it (NV spelling only)",
                MAKE_HIT_WITH_RECORD_INDEX => "`OpHitObjectRecordHitWithIndexNV` at the `TraceRay` on the token, the attributes from the `CallShader` before it (NV spelling only)",
                MAKE_MISS => "`OpHitObjectRecordMissNV`",
                MAKE_NOP => "`OpHitObjectRecordEmptyNV`",
                REORDER_THREAD => "`OpReorderThreadWithHitObjectNV` (`src0u.x` 1) / `OpReorderThreadWithHintNV` (0)",
                INVOKE => "`OpHitObjectExecuteShaderNV` with the payload of the `TraceRay` on the token",
                IS_MISS => "`OpHitObjectIsMissNV`, as 1 / 0",
                IS_HIT => "`OpHitObjectIsHitNV`, as 1 / 0",
                IS_NOP => "`OpHitObjectIsEmptyNV`, as 1 / 0",
                GET_INSTANCE_ID => "`OpHitObjectGetInstanceCustomIndexNV` (D3D's `InstanceID()`)",
                GET_INSTANCE_INDEX => "`OpHitObjectGetInstanceIdNV` (D3D's `InstanceIndex()`)",
                GET_PRIMITIVE_INDEX => "`OpHitObjectGetPrimitiveIndexNV`",
                GET_GEOMETRY_INDEX => "`OpHitObjectGetGeometryIndexNV`",
                GET_HIT_KIND => "`OpHitObjectGetHitKindNV`",
                GET_SHADER_TABLE_INDEX => "`OpHitObjectGetShaderBindingTableRecordIndexNV`",
                GET_RAY_DESC => "`OpHitObjectGetRayTMinNV`, `GetRayTMax`, `GetWorldRayOrigin`, `GetWorldRayDirection` (8 words)",
                GET_ATTRIBUTES => "`OpHitObjectGetAttributesNV` into the data of the `CallShader` on the token",
                _ => "a load at `OpHitObjectGetShaderRecordBufferHandleNV` + offset (`PhysicalStorageBuffer`)",
            };
            needs(spirv, "invocation_reorder")
        }
        RayTracing(n) => nvapi_rt_support(n),
    }
}

/// [`nvapi_support`] of the ray-tracing opcodes (`NV_EXTN_OP_RT_*`, 86..=119;
/// `emit/dxop/nvapi_rt.rs` lowers them).
fn nvapi_rt_support(n: u32) -> VendorSupport {
    use crate::dxil::nvapi::rt::{self, Query, Source};
    let Some((query, source)) = rt::decode(n) else {
        return VendorSupport::Refused(match n {
            87..=92 => "displacement micro-map queries: `SPV_NV_displacement_micromap` is in no Vulkan SPIR-V environment (`VK_NV_displacement_micromap` is provisional), and opacity micro-maps have no such queries",
            _ => "not lowered: how Vulkan hands a non-opaque sphere or LSS candidate to a ray query (its intersection type, `OpRayQueryGetIntersectionTKHR`, `OpRayQueryConfirmIntersectionKHR`) is not established here",
        });
    };
    if source == Source::HitObject {
        // Both options: the hit object's and the query's (`emit/dxop/nvapi_rt.rs`).
        let (spirv, feature) = match query {
            Query::ClusterId => (
                "`OpHitObjectGetClusterIdNV` (refused under `ReorderExtension::Ext`: it takes NV hit objects)",
                "invocation_reorder + cluster_acceleration_structure",
            ),
            Query::TrianglePositions => (
                "`OpHitObjectGetIntersectionTriangleVertexPositionsEXT`, row by row, under `ReorderExtension::Ext` (refused under `Nv`: NV has no such query)",
                "invocation_reorder + ray_tracing_position_fetch",
            ),
            Query::SpherePositionRadius => (
                "`OpHitObjectGetSpherePositionNV`, `OpHitObjectGetSphereRadiusNV` (refused under `ReorderExtension::Ext`)",
                "invocation_reorder + spheres",
            ),
            Query::IsSphere => {
                ("`OpHitObjectIsSphereHitNV`, as 1 / 0 (refused under `ReorderExtension::Ext`)", "invocation_reorder + spheres")
            }
            Query::LssPositionsRadii => (
                "`OpHitObjectGetLSSPositionsNV`, `OpHitObjectGetLSSRadiiNV` (refused under `ReorderExtension::Ext`)",
                "invocation_reorder + linear_swept_spheres",
            ),
            Query::IsLss | Query::LssHitParameter => (
                "`OpHitObjectIsLSSHitNV`, as 1 / 0 (refused under `ReorderExtension::Ext`)",
                "invocation_reorder + linear_swept_spheres",
            ),
        };
        return VendorSupport::Lowered { spirv, feature: Some(feature) };
    }
    let hit = source == Source::Hit;
    let (spirv, feature) = match (query, hit) {
        (Query::ClusterId, true) => ("`ClusterIDNV`", "cluster_acceleration_structure"),
        (Query::ClusterId, false) => ("`OpRayQueryGetIntersectionClusterIdNV`", "cluster_acceleration_structure"),
        (Query::TrianglePositions, true) => {
            ("`HitTriangleVertexPositionsKHR`, row by row", "ray_tracing_position_fetch")
        }
        (Query::TrianglePositions, false) => {
            ("`OpRayQueryGetIntersectionTriangleVertexPositionsKHR`, row by row", "ray_tracing_position_fetch")
        }
        (Query::SpherePositionRadius, true) => ("`HitSpherePositionNV`, `HitSphereRadiusNV`", "spheres"),
        (Query::SpherePositionRadius, false) => {
            ("`OpRayQueryGetIntersectionSpherePositionNV`, `OpRayQueryGetIntersectionSphereRadiusNV`", "spheres")
        }
        (Query::IsSphere, true) => ("`HitIsSphereNV`, as 1 / 0", "spheres"),
        (Query::IsSphere, false) => ("`OpRayQueryIsSphereHitNV`, as 1 / 0", "spheres"),
        (Query::LssPositionsRadii, true) => ("`HitLSSPositionsNV`, `HitLSSRadiiNV`", "linear_swept_spheres"),
        (Query::LssPositionsRadii, false) => {
            ("`OpRayQueryGetIntersectionLSSPositionsNV`, `OpRayQueryGetIntersectionLSSRadiiNV`", "linear_swept_spheres")
        }
        (Query::IsLss, true) => ("`HitIsLSSNV`, as 1 / 0", "linear_swept_spheres"),
        (Query::IsLss, false) => ("`OpRayQueryIsLSSHitNV`, as 1 / 0", "linear_swept_spheres"),
        (Query::LssHitParameter, _) => ("`OpRayQueryGetIntersectionLSSHitValueNV`", "linear_swept_spheres"),
    };
    VendorSupport::Lowered { spirv, feature: Some(feature) }
}
