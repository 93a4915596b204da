//! The DXIL operation table: every `dx.op.*` intrinsic of DXIL 1.0 through 1.8
//! (shader models 6.0–6.8), by opcode number, with the facts the rest of the
//! translator needs to decide what a call means and what it may do to it.
//!
//! A DXIL operation is a call to a declared function named
//! `dx.op.<class>[.<overload>]` whose first argument is a constant `i32`
//! opcode. The opcode, not the function name, says which operation it is; the
//! class names the *shape* the operation shares with others (`unary` covers
//! `Cos`, `Sqrt`, `DerivFineX`, …) and the overload suffix names the type.
//!
//! # Where the facts come from
//!
//! Names, numbers, class spellings, minimum shader models and the DXC
//! function attributes are facts taken from the DirectX Shader Compiler
//! (`microsoft/DirectXShaderCompiler`, read at commit `9a3e225d`, cross-checked
//! against the `v1.8.2403` release tag):
//!
//! - `include/dxc/DXIL/DxilConstants.h`: `enum class OpCode` (numbers) and the
//!   `NumOpCodes_Dxil_1_x` counts. `NumOpCodes_Dxil_1_8 = 258`, so the last
//!   DXIL 1.8 opcode is 257 (`StartInstanceLocation`); this table ends there.
//! - `utils/hct/hctdb.py`: each op's class, shader model, function
//!   attribute (`rn`/`ro`/`nd`/`nr`), and the wave / gradient / derivative /
//!   barrier flags behind the predicates below.
//! - `lib/DXIL/DxilOperations.cpp` (generated from the above): the class
//!   names as they appear in function names. They are the class with its first
//!   letter lowered, except `cbufferLoad`, `cbufferLoadLegacy` and
//!   `gsInstanceID`.
//! - `docs/DXIL.rst`: the prose description of each operation.
//! - For which operations must be reached in thread-group uniform control
//!   flow: the HLSL work graphs proposal (`hlsl-specs`), DXC's mesh validation
//!   rules (`Instr.NotOnceDispatchMesh`, `Instr.MultipleSetMeshOutputCounts`,
//!   `Instr.NonDominating*`), and `SPV_EXT_mesh_shader`, whose
//!   `OpSetMeshOutputsEXT` / `OpEmitMeshTasksEXT` must run in uniform control
//!   flow.
//!
//! # Things to know
//!
//! - The numbers are dense from 0 to 257: no gaps. Opcodes 226–237 are
//!   reserved slots (`Reserved0`–`Reserved11`, class `reserved`). DXC 1.8.2403
//!   briefly used them for the experimental `WaveMatrix_*` operations (an SM
//!   6.9 preview that never shipped); later DXC renamed them to reserved. No
//!   valid shader uses them: see [`DxOp::is_reserved`].
//! - Shader model 6.9 operations (258 and up, and the experimental table with
//!   bit 31 set) are deliberately absent: [`DxOp::from_u32`] returns `None`
//!   for them. Their numbering was still moving between DXC releases.
//! - [`DxOp::min_shader_model`] is the model that introduced the opcode. A few
//!   operations (`RawBufferLoad`, `AnnotateHandle`, …) may also appear in
//!   older library targets because DXC's linker translates them down; that is
//!   not modelled here.

use serde::Serialize;

/// The function attribute DXC puts on an operation's declaration.
///
/// This is what LLVM passes inside DXC were allowed to assume; it is a floor,
/// not the whole story. Wave operations, for example, carry no attribute even
/// though they write no memory: DXC withholds `readnone` so that LLVM will not
/// merge or move them across control flow.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize)]
pub enum FnAttr {
    /// `readnone`: depends only on its operands (and on where it runs, for
    /// system values).
    ReadNone,
    /// `readonly`: reads resources or state but writes nothing.
    ReadOnly,
    /// No attribute: may write memory or have other effects.
    None,
    /// `noduplicate`: the barriers.
    NoDuplicate,
    /// `noreturn`: ends the invocation (`IgnoreHit`, `AcceptHitAndEndSearch`).
    NoReturn,
}

/// Expands the table once into the enum, [`ALL`] and the per-op facts, so the
/// three cannot disagree. Rows must be in opcode order; a compile-time check
/// below enforces it, which lets lookups index by number.
macro_rules! dx_ops {
    ($( $(#[$doc:meta])* $name:ident = $num:literal, $class:literal, ($maj:literal, $min:literal), $attr:ident; )*) => {
        /// A DXIL operation (the `i32` opcode of a `dx.op.*` call), DXIL 1.0–1.8.
        ///
        /// Variant names are DXC's `hlsl::DXIL::OpCode` names, underscores and all.
        #[repr(u32)]
        #[allow(non_camel_case_types)]
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Serialize)]
        pub enum DxOp {
            $( $(#[$doc])* $name = $num, )*
        }

        /// Every operation, in opcode order: `ALL[n].number() == n`.
        pub const ALL: &[DxOp] = &[ $( DxOp::$name, )* ];

        const INFO: &[OpInfo] = &[
            $( OpInfo {
                name: stringify!($name),
                class: $class,
                sm: ($maj, $min),
                attr: FnAttr::$attr,
            }, )*
        ];
    };
}

struct OpInfo {
    name: &'static str,
    class: &'static str,
    sm: (u8, u8),
    attr: FnAttr,
}

// Columns: name = opcode, class as spelled in `dx.op.<class>`, minimum shader
// model, DXC function attribute. Group headings follow DXC's categories.
dx_ops! {
    // Temporary, indexable, input, output registers
    TempRegLoad = 0, "tempRegLoad", (6, 0), ReadOnly;
    TempRegStore = 1, "tempRegStore", (6, 0), None;
    MinPrecXRegLoad = 2, "minPrecXRegLoad", (6, 0), ReadOnly;
    MinPrecXRegStore = 3, "minPrecXRegStore", (6, 0), None;
    LoadInput = 4, "loadInput", (6, 0), ReadNone;
    StoreOutput = 5, "storeOutput", (6, 0), None;

    // Unary float
    FAbs = 6, "unary", (6, 0), ReadNone;
    Saturate = 7, "unary", (6, 0), ReadNone;
    IsNaN = 8, "isSpecialFloat", (6, 0), ReadNone;
    IsInf = 9, "isSpecialFloat", (6, 0), ReadNone;
    IsFinite = 10, "isSpecialFloat", (6, 0), ReadNone;
    IsNormal = 11, "isSpecialFloat", (6, 0), ReadNone;
    Cos = 12, "unary", (6, 0), ReadNone;
    Sin = 13, "unary", (6, 0), ReadNone;
    Tan = 14, "unary", (6, 0), ReadNone;
    Acos = 15, "unary", (6, 0), ReadNone;
    Asin = 16, "unary", (6, 0), ReadNone;
    Atan = 17, "unary", (6, 0), ReadNone;
    Hcos = 18, "unary", (6, 0), ReadNone;
    Hsin = 19, "unary", (6, 0), ReadNone;
    Htan = 20, "unary", (6, 0), ReadNone;
    Exp = 21, "unary", (6, 0), ReadNone;
    Frc = 22, "unary", (6, 0), ReadNone;
    Log = 23, "unary", (6, 0), ReadNone;
    Sqrt = 24, "unary", (6, 0), ReadNone;
    Rsqrt = 25, "unary", (6, 0), ReadNone;

    // Unary float - rounding
    Round_ne = 26, "unary", (6, 0), ReadNone;
    Round_ni = 27, "unary", (6, 0), ReadNone;
    Round_pi = 28, "unary", (6, 0), ReadNone;
    Round_z = 29, "unary", (6, 0), ReadNone;

    // Unary int
    Bfrev = 30, "unary", (6, 0), ReadNone;
    Countbits = 31, "unaryBits", (6, 0), ReadNone;
    FirstbitLo = 32, "unaryBits", (6, 0), ReadNone;

    // Unary uint
    FirstbitHi = 33, "unaryBits", (6, 0), ReadNone;

    // Unary int
    FirstbitSHi = 34, "unaryBits", (6, 0), ReadNone;

    // Binary float
    FMax = 35, "binary", (6, 0), ReadNone;
    FMin = 36, "binary", (6, 0), ReadNone;

    // Binary int
    IMax = 37, "binary", (6, 0), ReadNone;
    IMin = 38, "binary", (6, 0), ReadNone;

    // Binary uint
    UMax = 39, "binary", (6, 0), ReadNone;
    UMin = 40, "binary", (6, 0), ReadNone;

    // Binary int with two outputs
    IMul = 41, "binaryWithTwoOuts", (6, 0), ReadNone;

    // Binary uint with two outputs
    UMul = 42, "binaryWithTwoOuts", (6, 0), ReadNone;
    UDiv = 43, "binaryWithTwoOuts", (6, 0), ReadNone;

    // Binary uint with carry or borrow
    UAddc = 44, "binaryWithCarryOrBorrow", (6, 0), ReadNone;
    USubb = 45, "binaryWithCarryOrBorrow", (6, 0), ReadNone;

    // Tertiary float
    FMad = 46, "tertiary", (6, 0), ReadNone;
    Fma = 47, "tertiary", (6, 0), ReadNone;

    // Tertiary int
    IMad = 48, "tertiary", (6, 0), ReadNone;

    // Tertiary uint
    UMad = 49, "tertiary", (6, 0), ReadNone;

    // Tertiary int
    Msad = 50, "tertiary", (6, 0), ReadNone;
    Ibfe = 51, "tertiary", (6, 0), ReadNone;

    // Tertiary uint
    Ubfe = 52, "tertiary", (6, 0), ReadNone;

    // Quaternary
    Bfi = 53, "quaternary", (6, 0), ReadNone;

    // Dot
    Dot2 = 54, "dot2", (6, 0), ReadNone;
    Dot3 = 55, "dot3", (6, 0), ReadNone;
    Dot4 = 56, "dot4", (6, 0), ReadNone;

    // Resources
    CreateHandle = 57, "createHandle", (6, 0), ReadOnly;
    CBufferLoad = 58, "cbufferLoad", (6, 0), ReadOnly;
    CBufferLoadLegacy = 59, "cbufferLoadLegacy", (6, 0), ReadOnly;

    // Resources - sample
    Sample = 60, "sample", (6, 0), ReadOnly;
    SampleBias = 61, "sampleBias", (6, 0), ReadOnly;
    SampleLevel = 62, "sampleLevel", (6, 0), ReadOnly;
    SampleGrad = 63, "sampleGrad", (6, 0), ReadOnly;
    SampleCmp = 64, "sampleCmp", (6, 0), ReadOnly;
    SampleCmpLevelZero = 65, "sampleCmpLevelZero", (6, 0), ReadOnly;

    // Resources
    TextureLoad = 66, "textureLoad", (6, 0), ReadOnly;
    TextureStore = 67, "textureStore", (6, 0), None;
    BufferLoad = 68, "bufferLoad", (6, 0), ReadOnly;
    BufferStore = 69, "bufferStore", (6, 0), None;
    BufferUpdateCounter = 70, "bufferUpdateCounter", (6, 0), None;
    CheckAccessFullyMapped = 71, "checkAccessFullyMapped", (6, 0), ReadOnly;
    GetDimensions = 72, "getDimensions", (6, 0), ReadOnly;

    // Resources - gather
    TextureGather = 73, "textureGather", (6, 0), ReadOnly;
    TextureGatherCmp = 74, "textureGatherCmp", (6, 0), ReadOnly;

    // Resources - sample
    Texture2DMSGetSamplePosition = 75, "texture2DMSGetSamplePosition", (6, 0), ReadOnly;
    RenderTargetGetSamplePosition = 76, "renderTargetGetSamplePosition", (6, 0), ReadOnly;
    RenderTargetGetSampleCount = 77, "renderTargetGetSampleCount", (6, 0), ReadOnly;

    // Synchronization
    AtomicBinOp = 78, "atomicBinOp", (6, 0), None;
    AtomicCompareExchange = 79, "atomicCompareExchange", (6, 0), None;
    Barrier = 80, "barrier", (6, 0), NoDuplicate;

    // Derivatives
    CalculateLOD = 81, "calculateLOD", (6, 0), ReadOnly;

    // Pixel shader
    Discard = 82, "discard", (6, 0), None;

    // Derivatives
    DerivCoarseX = 83, "unary", (6, 0), ReadNone;
    DerivCoarseY = 84, "unary", (6, 0), ReadNone;
    DerivFineX = 85, "unary", (6, 0), ReadNone;
    DerivFineY = 86, "unary", (6, 0), ReadNone;

    // Pixel shader
    EvalSnapped = 87, "evalSnapped", (6, 0), ReadNone;
    EvalSampleIndex = 88, "evalSampleIndex", (6, 0), ReadNone;
    EvalCentroid = 89, "evalCentroid", (6, 0), ReadNone;
    SampleIndex = 90, "sampleIndex", (6, 0), ReadNone;
    Coverage = 91, "coverage", (6, 0), ReadNone;
    InnerCoverage = 92, "innerCoverage", (6, 0), ReadNone;

    // Compute/Mesh/Amplification/Node shader
    ThreadId = 93, "threadId", (6, 0), ReadNone;
    GroupId = 94, "groupId", (6, 0), ReadNone;
    ThreadIdInGroup = 95, "threadIdInGroup", (6, 0), ReadNone;
    FlattenedThreadIdInGroup = 96, "flattenedThreadIdInGroup", (6, 0), ReadNone;

    // Geometry shader
    EmitStream = 97, "emitStream", (6, 0), None;
    CutStream = 98, "cutStream", (6, 0), None;
    EmitThenCutStream = 99, "emitThenCutStream", (6, 0), None;
    GSInstanceID = 100, "gsInstanceID", (6, 0), ReadNone;

    // Double precision
    MakeDouble = 101, "makeDouble", (6, 0), ReadNone;
    SplitDouble = 102, "splitDouble", (6, 0), ReadNone;

    // Domain and hull shader
    LoadOutputControlPoint = 103, "loadOutputControlPoint", (6, 0), ReadNone;
    LoadPatchConstant = 104, "loadPatchConstant", (6, 0), ReadNone;

    // Domain shader
    DomainLocation = 105, "domainLocation", (6, 0), ReadNone;

    // Hull shader
    StorePatchConstant = 106, "storePatchConstant", (6, 0), None;
    OutputControlPointID = 107, "outputControlPointID", (6, 0), ReadNone;

    // Hull, Domain and Geometry shaders
    PrimitiveID = 108, "primitiveID", (6, 0), ReadNone;

    // Other
    CycleCounterLegacy = 109, "cycleCounterLegacy", (6, 0), None;

    // Wave
    WaveIsFirstLane = 110, "waveIsFirstLane", (6, 0), None;
    WaveGetLaneIndex = 111, "waveGetLaneIndex", (6, 0), ReadOnly;
    WaveGetLaneCount = 112, "waveGetLaneCount", (6, 0), ReadNone;
    WaveAnyTrue = 113, "waveAnyTrue", (6, 0), None;
    WaveAllTrue = 114, "waveAllTrue", (6, 0), None;
    WaveActiveAllEqual = 115, "waveActiveAllEqual", (6, 0), None;
    WaveActiveBallot = 116, "waveActiveBallot", (6, 0), None;
    WaveReadLaneAt = 117, "waveReadLaneAt", (6, 0), None;
    WaveReadLaneFirst = 118, "waveReadLaneFirst", (6, 0), None;
    WaveActiveOp = 119, "waveActiveOp", (6, 0), None;
    WaveActiveBit = 120, "waveActiveBit", (6, 0), None;
    WavePrefixOp = 121, "wavePrefixOp", (6, 0), None;

    // Quad Wave Ops
    QuadReadLaneAt = 122, "quadReadLaneAt", (6, 0), None;
    QuadOp = 123, "quadOp", (6, 0), None;

    // Bitcasts with different sizes
    BitcastI16toF16 = 124, "bitcastI16toF16", (6, 0), ReadNone;
    BitcastF16toI16 = 125, "bitcastF16toI16", (6, 0), ReadNone;
    BitcastI32toF32 = 126, "bitcastI32toF32", (6, 0), ReadNone;
    BitcastF32toI32 = 127, "bitcastF32toI32", (6, 0), ReadNone;
    BitcastI64toF64 = 128, "bitcastI64toF64", (6, 0), ReadNone;
    BitcastF64toI64 = 129, "bitcastF64toI64", (6, 0), ReadNone;

    // Legacy floating-point
    LegacyF32ToF16 = 130, "legacyF32ToF16", (6, 0), ReadNone;
    LegacyF16ToF32 = 131, "legacyF16ToF32", (6, 0), ReadNone;

    // Double precision
    LegacyDoubleToFloat = 132, "legacyDoubleToFloat", (6, 0), ReadNone;
    LegacyDoubleToSInt32 = 133, "legacyDoubleToSInt32", (6, 0), ReadNone;
    LegacyDoubleToUInt32 = 134, "legacyDoubleToUInt32", (6, 0), ReadNone;

    // Wave
    WaveAllBitCount = 135, "waveAllOp", (6, 0), None;
    WavePrefixBitCount = 136, "wavePrefixOp", (6, 0), None;

    // Pixel shader
    AttributeAtVertex = 137, "attributeAtVertex", (6, 1), ReadNone;

    // Graphics shader
    ViewID = 138, "viewID", (6, 1), ReadNone;

    // Resources
    RawBufferLoad = 139, "rawBufferLoad", (6, 2), ReadOnly;
    RawBufferStore = 140, "rawBufferStore", (6, 2), None;

    // Raytracing object space uint System Values
    InstanceID = 141, "instanceID", (6, 3), ReadNone;
    InstanceIndex = 142, "instanceIndex", (6, 3), ReadNone;

    // Raytracing hit uint System Values
    HitKind = 143, "hitKind", (6, 3), ReadNone;

    // Raytracing uint System Values
    RayFlags = 144, "rayFlags", (6, 3), ReadNone;

    // Ray Dispatch Arguments
    DispatchRaysIndex = 145, "dispatchRaysIndex", (6, 3), ReadNone;
    DispatchRaysDimensions = 146, "dispatchRaysDimensions", (6, 3), ReadNone;

    // Ray Vectors
    WorldRayOrigin = 147, "worldRayOrigin", (6, 3), ReadNone;
    WorldRayDirection = 148, "worldRayDirection", (6, 3), ReadNone;

    // Ray object space Vectors
    ObjectRayOrigin = 149, "objectRayOrigin", (6, 3), ReadNone;
    ObjectRayDirection = 150, "objectRayDirection", (6, 3), ReadNone;

    // Ray Transforms
    ObjectToWorld = 151, "objectToWorld", (6, 3), ReadNone;
    WorldToObject = 152, "worldToObject", (6, 3), ReadNone;

    // RayT
    RayTMin = 153, "rayTMin", (6, 3), ReadNone;
    RayTCurrent = 154, "rayTCurrent", (6, 3), ReadOnly;

    // AnyHit Terminals
    IgnoreHit = 155, "ignoreHit", (6, 3), NoReturn;
    AcceptHitAndEndSearch = 156, "acceptHitAndEndSearch", (6, 3), NoReturn;

    // Indirect Shader Invocation
    TraceRay = 157, "traceRay", (6, 3), None;
    ReportHit = 158, "reportHit", (6, 3), None;
    CallShader = 159, "callShader", (6, 3), None;

    // Library create handle from resource struct (like HL intrinsic)
    CreateHandleForLib = 160, "createHandleForLib", (6, 3), ReadOnly;

    // Raytracing object space uint System Values
    PrimitiveIndex = 161, "primitiveIndex", (6, 3), ReadNone;

    // Dot product with accumulate
    Dot2AddHalf = 162, "dot2AddHalf", (6, 4), ReadNone;
    Dot4AddI8Packed = 163, "dot4AddPacked", (6, 4), ReadNone;
    Dot4AddU8Packed = 164, "dot4AddPacked", (6, 4), ReadNone;

    // Wave
    WaveMatch = 165, "waveMatch", (6, 5), None;
    WaveMultiPrefixOp = 166, "waveMultiPrefixOp", (6, 5), None;
    WaveMultiPrefixBitCount = 167, "waveMultiPrefixBitCount", (6, 5), None;

    // Mesh shader instructions
    SetMeshOutputCounts = 168, "setMeshOutputCounts", (6, 5), None;
    EmitIndices = 169, "emitIndices", (6, 5), None;
    GetMeshPayload = 170, "getMeshPayload", (6, 5), ReadOnly;
    StoreVertexOutput = 171, "storeVertexOutput", (6, 5), None;
    StorePrimitiveOutput = 172, "storePrimitiveOutput", (6, 5), None;

    // Amplification shader instructions
    DispatchMesh = 173, "dispatchMesh", (6, 5), None;

    // Sampler Feedback
    WriteSamplerFeedback = 174, "writeSamplerFeedback", (6, 5), None;
    WriteSamplerFeedbackBias = 175, "writeSamplerFeedbackBias", (6, 5), None;
    WriteSamplerFeedbackLevel = 176, "writeSamplerFeedbackLevel", (6, 5), None;
    WriteSamplerFeedbackGrad = 177, "writeSamplerFeedbackGrad", (6, 5), None;

    // Inline Ray Query
    AllocateRayQuery = 178, "allocateRayQuery", (6, 5), None;
    RayQuery_TraceRayInline = 179, "rayQuery_TraceRayInline", (6, 5), None;
    RayQuery_Proceed = 180, "rayQuery_Proceed", (6, 5), None;
    RayQuery_Abort = 181, "rayQuery_Abort", (6, 5), None;
    RayQuery_CommitNonOpaqueTriangleHit = 182, "rayQuery_CommitNonOpaqueTriangleHit", (6, 5), None;
    RayQuery_CommitProceduralPrimitiveHit = 183, "rayQuery_CommitProceduralPrimitiveHit", (6, 5), None;
    RayQuery_CommittedStatus = 184, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CandidateType = 185, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CandidateObjectToWorld3x4 = 186, "rayQuery_StateMatrix", (6, 5), ReadOnly;
    RayQuery_CandidateWorldToObject3x4 = 187, "rayQuery_StateMatrix", (6, 5), ReadOnly;
    RayQuery_CommittedObjectToWorld3x4 = 188, "rayQuery_StateMatrix", (6, 5), ReadOnly;
    RayQuery_CommittedWorldToObject3x4 = 189, "rayQuery_StateMatrix", (6, 5), ReadOnly;
    RayQuery_CandidateProceduralPrimitiveNonOpaque = 190, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CandidateTriangleFrontFace = 191, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CommittedTriangleFrontFace = 192, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CandidateTriangleBarycentrics = 193, "rayQuery_StateVector", (6, 5), ReadOnly;
    RayQuery_CommittedTriangleBarycentrics = 194, "rayQuery_StateVector", (6, 5), ReadOnly;
    RayQuery_RayFlags = 195, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_WorldRayOrigin = 196, "rayQuery_StateVector", (6, 5), ReadOnly;
    RayQuery_WorldRayDirection = 197, "rayQuery_StateVector", (6, 5), ReadOnly;
    RayQuery_RayTMin = 198, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CandidateTriangleRayT = 199, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CommittedRayT = 200, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CandidateInstanceIndex = 201, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CandidateInstanceID = 202, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CandidateGeometryIndex = 203, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CandidatePrimitiveIndex = 204, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CandidateObjectRayOrigin = 205, "rayQuery_StateVector", (6, 5), ReadOnly;
    RayQuery_CandidateObjectRayDirection = 206, "rayQuery_StateVector", (6, 5), ReadOnly;
    RayQuery_CommittedInstanceIndex = 207, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CommittedInstanceID = 208, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CommittedGeometryIndex = 209, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CommittedPrimitiveIndex = 210, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CommittedObjectRayOrigin = 211, "rayQuery_StateVector", (6, 5), ReadOnly;
    RayQuery_CommittedObjectRayDirection = 212, "rayQuery_StateVector", (6, 5), ReadOnly;

    // Raytracing object space uint System Values, raytracing tier 1.1
    GeometryIndex = 213, "geometryIndex", (6, 5), ReadNone;

    // Inline Ray Query
    RayQuery_CandidateInstanceContributionToHitGroupIndex = 214, "rayQuery_StateScalar", (6, 5), ReadOnly;
    RayQuery_CommittedInstanceContributionToHitGroupIndex = 215, "rayQuery_StateScalar", (6, 5), ReadOnly;

    // Get handle from heap
    AnnotateHandle = 216, "annotateHandle", (6, 6), ReadNone;
    CreateHandleFromBinding = 217, "createHandleFromBinding", (6, 6), ReadNone;
    CreateHandleFromHeap = 218, "createHandleFromHeap", (6, 6), ReadNone;

    // Unpacking intrinsics
    Unpack4x8 = 219, "unpack4x8", (6, 6), ReadNone;

    // Packing intrinsics
    Pack4x8 = 220, "pack4x8", (6, 6), ReadNone;

    // Helper Lanes
    IsHelperLane = 221, "isHelperLane", (6, 6), ReadOnly;

    // Quad Wave Ops
    QuadVote = 222, "quadVote", (6, 7), None;

    // Resources - gather
    TextureGatherRaw = 223, "textureGatherRaw", (6, 7), ReadOnly;

    // Resources - sample
    SampleCmpLevel = 224, "sampleCmpLevel", (6, 7), ReadOnly;

    // Resources
    TextureStoreSample = 225, "textureStoreSample", (6, 7), None;

    // Reserved (DXIL 1.8 slots, never valid)
    Reserved0 = 226, "reserved", (6, 8), None;
    Reserved1 = 227, "reserved", (6, 8), None;
    Reserved2 = 228, "reserved", (6, 8), None;
    Reserved3 = 229, "reserved", (6, 8), None;
    Reserved4 = 230, "reserved", (6, 8), None;
    Reserved5 = 231, "reserved", (6, 8), None;
    Reserved6 = 232, "reserved", (6, 8), None;
    Reserved7 = 233, "reserved", (6, 8), None;
    Reserved8 = 234, "reserved", (6, 8), None;
    Reserved9 = 235, "reserved", (6, 8), None;
    Reserved10 = 236, "reserved", (6, 8), None;
    Reserved11 = 237, "reserved", (6, 8), None;

    // Create/Annotate Node Handles
    AllocateNodeOutputRecords = 238, "allocateNodeOutputRecords", (6, 8), None;

    // Get Pointer to Node Record in Address Space 6
    GetNodeRecordPtr = 239, "getNodeRecordPtr", (6, 8), ReadNone;

    // Work Graph intrinsics
    IncrementOutputCount = 240, "incrementOutputCount", (6, 8), None;
    OutputComplete = 241, "outputComplete", (6, 8), None;
    GetInputRecordCount = 242, "getInputRecordCount", (6, 8), ReadOnly;
    FinishedCrossGroupSharing = 243, "finishedCrossGroupSharing", (6, 8), None;

    // Synchronization
    BarrierByMemoryType = 244, "barrierByMemoryType", (6, 8), NoDuplicate;
    BarrierByMemoryHandle = 245, "barrierByMemoryHandle", (6, 8), NoDuplicate;
    BarrierByNodeRecordHandle = 246, "barrierByNodeRecordHandle", (6, 8), NoDuplicate;

    // Create/Annotate Node Handles
    CreateNodeOutputHandle = 247, "createNodeOutputHandle", (6, 8), ReadNone;
    IndexNodeHandle = 248, "indexNodeHandle", (6, 8), ReadNone;
    AnnotateNodeHandle = 249, "annotateNodeHandle", (6, 8), ReadNone;
    CreateNodeInputRecordHandle = 250, "createNodeInputRecordHandle", (6, 8), ReadNone;
    AnnotateNodeRecordHandle = 251, "annotateNodeRecordHandle", (6, 8), ReadNone;

    // Work Graph intrinsics
    NodeOutputIsValid = 252, "nodeOutputIsValid", (6, 8), ReadOnly;
    GetRemainingRecursionLevels = 253, "getRemainingRecursionLevels", (6, 8), ReadOnly;

    // Comparison Samples
    SampleCmpGrad = 254, "sampleCmpGrad", (6, 8), ReadOnly;
    SampleCmpBias = 255, "sampleCmpBias", (6, 8), ReadOnly;

    // Extended Command Information
    StartVertexLocation = 256, "startVertexLocation", (6, 8), ReadNone;
    StartInstanceLocation = 257, "startInstanceLocation", (6, 8), ReadNone;
}

// `from_u32` and the accessors index `ALL`/`INFO` by opcode, which is only
// sound if the rows are dense and in order. Checked at compile time so a bad
// edit to the table cannot build.
const _: () = {
    assert!(ALL.len() == INFO.len());
    let mut i = 0;
    while i < ALL.len() {
        assert!(ALL[i] as u32 == i as u32);
        i += 1;
    }
};

/// Number of operations in DXIL 1.8 (`NumOpCodes_Dxil_1_8` in DXC).
pub const COUNT: usize = 258;
const _: () = assert!(ALL.len() == COUNT);

/// The highest DXIL 1.8 opcode.
pub const LAST: DxOp = DxOp::StartInstanceLocation;

/// Prefix of every DXIL operation's function name.
pub const FUNCTION_PREFIX: &str = "dx.op.";

impl DxOp {
    /// The operation with opcode `n`, or `None` for opcodes outside DXIL 1.8
    /// (SM 6.9 operations, the experimental table, garbage).
    pub fn from_u32(n: u32) -> Option<DxOp> {
        ALL.get(usize::try_from(n).ok()?).copied()
    }

    /// The operation whose DXC name is `name` (e.g. `"CBufferLoadLegacy"`).
    pub fn from_name(name: &str) -> Option<DxOp> {
        ALL.iter().copied().find(|op| op.name() == name)
    }

    /// The opcode: the constant first argument of the call.
    pub fn number(self) -> u32 {
        self as u32
    }

    fn info(self) -> &'static OpInfo {
        &INFO[self as usize]
    }

    /// DXC's name for the operation (`"CBufferLoadLegacy"`, `"Round_ne"`).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The class: the part of the function name between `dx.op.` and the
    /// overload suffix (`"cbufferLoadLegacy"`, `"unary"`, `"threadId"`).
    /// Several operations share a class; only the opcode tells them apart.
    pub fn class(self) -> &'static str {
        self.info().class
    }

    /// The shader model that introduced the operation. Reserved slots report
    /// (6, 8), the model whose table first contained them; they are never valid.
    pub fn min_shader_model(self) -> (u8, u8) {
        self.info().sm
    }

    /// The DXIL version that introduced the operation: DXIL 1.x goes with
    /// shader model 6.x.
    pub fn min_dxil_version(self) -> (u8, u8) {
        let (_, minor) = self.min_shader_model();
        (1, minor)
    }

    /// The function attribute DXC declares the operation with.
    pub fn dxc_attr(self) -> FnAttr {
        self.info().attr
    }

    /// An unused opcode slot (226–237). A call with one is invalid DXIL.
    pub fn is_reserved(self) -> bool {
        (DxOp::Reserved0 as u32..=DxOp::Reserved11 as u32).contains(&(self as u32))
    }

    /// Operations that read or exchange values across the lanes of a wave
    /// (DXC's "is_wave" set). Includes the quad operations, which are wave
    /// operations restricted to a 2x2 quad, and the two lane queries
    /// `WaveGetLaneIndex`/`WaveGetLaneCount`.
    pub fn is_wave_op(self) -> bool {
        use DxOp::*;
        matches!(
            self,
            WaveIsFirstLane
                | WaveGetLaneIndex
                | WaveGetLaneCount
                | WaveAnyTrue
                | WaveAllTrue
                | WaveActiveAllEqual
                | WaveActiveBallot
                | WaveReadLaneAt
                | WaveReadLaneFirst
                | WaveActiveOp
                | WaveActiveBit
                | WavePrefixOp
                | QuadReadLaneAt
                | QuadOp
                | WaveAllBitCount
                | WavePrefixBitCount
                | WaveMatch
                | WaveMultiPrefixOp
                | WaveMultiPrefixBitCount
                | QuadVote
        )
    }

    /// Quad operations: read lanes of the same 2x2 quad. Every quad op is
    /// also a wave op.
    pub fn is_quad_op(self) -> bool {
        matches!(self, DxOp::QuadReadLaneAt | DxOp::QuadOp | DxOp::QuadVote)
    }

    /// The explicit screen-space derivatives (`ddx`/`ddy` coarse and fine).
    pub fn is_derivative(self) -> bool {
        matches!(self, DxOp::DerivCoarseX | DxOp::DerivCoarseY | DxOp::DerivFineX | DxOp::DerivFineY)
    }

    /// Operations that compute derivatives implicitly from neighbouring quad
    /// lanes to pick a level of detail (DXC's "gradient" ops other than the
    /// explicit derivatives). Their result depends on which quad lanes are
    /// active, like a derivative's.
    pub fn uses_implicit_derivatives(self) -> bool {
        matches!(
            self,
            DxOp::Sample
                | DxOp::SampleBias
                | DxOp::SampleCmp
                | DxOp::SampleCmpBias
                | DxOp::CalculateLOD
                | DxOp::WriteSamplerFeedback
                | DxOp::WriteSamplerFeedbackBias
        )
    }

    /// Memory and execution barriers. All carry DXC's `noduplicate`.
    pub fn is_barrier(self) -> bool {
        matches!(
            self,
            DxOp::Barrier | DxOp::BarrierByMemoryType | DxOp::BarrierByMemoryHandle | DxOp::BarrierByNodeRecordHandle
        )
    }

    /// Operations the specs require to be reached in thread-group uniform
    /// control flow (or once per group), without being barriers: work-graph
    /// output allocation and completion, cross-group input sharing, and the
    /// mesh / amplification output declarations (DXC also insists on a single
    /// call site for these two, and their SPIR-V counterparts must run in
    /// uniform control flow). Splitting the threads of a group between two
    /// copies of such a call is undefined behaviour.
    ///
    /// The per-thread variants of the node calls share opcodes with the
    /// per-group ones (a flag operand picks), and the spec asks group-uniform
    /// control flow of both, so the whole opcode counts.
    pub fn is_group_uniform(self) -> bool {
        matches!(
            self,
            DxOp::AllocateNodeOutputRecords
                | DxOp::IncrementOutputCount
                | DxOp::OutputComplete
                | DxOp::FinishedCrossGroupSharing
                | DxOp::SetMeshOutputCounts
                | DxOp::DispatchMesh
        )
    }

    /// The operation's result or effect depends on *which other threads*
    /// execute the same call together, so a transform must not change the set
    /// of threads that reach each call: the structurizer must never duplicate
    /// (tail-duplicate, split, clone into two paths) a block that contains one,
    /// nor move one across divergent control flow.
    ///
    /// Covers: wave and quad operations that communicate between lanes;
    /// explicit derivatives; implicit-derivative sampling and LOD queries
    /// ([`Self::uses_implicit_derivatives`]); barriers; and the
    /// [group-uniform](Self::is_group_uniform) work-graph and mesh operations.
    ///
    /// Deliberately excluded: `WaveGetLaneIndex` and `WaveGetLaneCount`. The
    /// lane index is fixed per lane and the lane count is the wave width, not
    /// the number of active lanes, so neither changes with the set of threads
    /// that arrive together. `WaveIsFirstLane` *is* included: "first" means
    /// first active lane. `Barrier` counts even when its flags ask only for a
    /// memory fence: the flags are an operand, and erring towards "do not
    /// duplicate" only costs code shape.
    pub fn is_convergent(self) -> bool {
        (self.is_wave_op() && !matches!(self, DxOp::WaveGetLaneIndex | DxOp::WaveGetLaneCount))
            || self.is_derivative()
            || self.uses_implicit_derivatives()
            || self.is_barrier()
            || self.is_group_uniform()
    }

    /// The operation does something besides computing its result: writes
    /// memory, outputs or counters, performs atomics, synchronizes, discards
    /// or ends the invocation, emits primitives, invokes other shaders, or
    /// advances ray-query / node-output state. Such a call must be kept even
    /// when its result is unused, and kept in order with other effects.
    ///
    /// The converse is weaker: an op without side effects may be deleted when
    /// its result is unused, but it is not necessarily pure. Wave operations
    /// and `CycleCounterLegacy` write nothing yet depend on where and when they
    /// run; `AllocateRayQuery` only creates state that later calls mutate.
    pub fn has_side_effects(self) -> bool {
        use DxOp::*;
        matches!(
            self,
            TempRegStore
                | MinPrecXRegStore
                | StoreOutput
                | TextureStore
                | BufferStore
                | BufferUpdateCounter
                | AtomicBinOp
                | AtomicCompareExchange
                | Barrier
                | Discard
                | EmitStream
                | CutStream
                | EmitThenCutStream
                | StorePatchConstant
                | RawBufferStore
                | IgnoreHit
                | AcceptHitAndEndSearch
                | TraceRay
                | ReportHit
                | CallShader
                | SetMeshOutputCounts
                | EmitIndices
                | StoreVertexOutput
                | StorePrimitiveOutput
                | DispatchMesh
                | WriteSamplerFeedback
                | WriteSamplerFeedbackBias
                | WriteSamplerFeedbackLevel
                | WriteSamplerFeedbackGrad
                | RayQuery_TraceRayInline
                | RayQuery_Proceed
                | RayQuery_Abort
                | RayQuery_CommitNonOpaqueTriangleHit
                | RayQuery_CommitProceduralPrimitiveHit
                | TextureStoreSample
                | AllocateNodeOutputRecords
                | IncrementOutputCount
                | OutputComplete
                | FinishedCrossGroupSharing
                | BarrierByMemoryType
                | BarrierByMemoryHandle
                | BarrierByNodeRecordHandle
        )
    }
}

impl std::fmt::Display for DxOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The bytes of an operation class name: ASCII letters, digits and `_` (one load per byte
/// where the range tests took several; every call's callee is decoded).
const IDENTIFIER: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    t
};

/// Splits a DXIL operation's function name, `dx.op.<class>[.<overload>]`,
/// into the class and the overload suffix.
///
/// The overload is everything after the class and may itself contain dots
/// (`dx.op.traceRay.struct.Payload` → `("traceRay", Some("struct.Payload"))`).
/// Operations without overloads have no suffix (`dx.op.createHandle`).
/// Returns `None` for names that are not DXIL operations or are malformed
/// (empty class, empty suffix). Pass the name without `@` and without quotes.
pub fn decode_function_name(name: &str) -> Option<(&str, Option<&str>)> {
    let rest = name.strip_prefix(FUNCTION_PREFIX)?;
    // One pass (every call instruction's callee is decoded): the class is the identifier
    // characters up to the first byte that is not one, which must be the end or a `.`
    // followed by a non-empty overload.
    let class_len = rest.bytes().position(|b| !IDENTIFIER[b as usize]).unwrap_or(rest.len());
    if class_len == 0 {
        return None;
    }
    match rest.as_bytes().get(class_len) {
        None => Some((rest, None)),
        Some(b'.') if class_len + 1 < rest.len() => Some((&rest[..class_len], Some(&rest[class_len + 1..]))),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn numbers_are_dense_unique_and_round_trip() {
        let mut seen = HashSet::new();
        for (i, &op) in ALL.iter().enumerate() {
            assert_eq!(op.number() as usize, i, "{op:?} out of order");
            assert!(seen.insert(op.number()), "{op:?} duplicated");
            assert_eq!(DxOp::from_u32(op.number()), Some(op));
            assert_eq!(DxOp::from_name(op.name()), Some(op));
            assert_eq!(format!("{op:?}"), op.name());
        }
        assert_eq!(ALL.len(), COUNT);
        assert_eq!(LAST.number(), 257);
        assert_eq!(ALL.last(), Some(&LAST));
        // SM 6.9 starts at 258; the experimental table sets bit 31.
        assert_eq!(DxOp::from_u32(258), None);
        assert_eq!(DxOp::from_u32(0x8000_0000), None);
        assert_eq!(DxOp::from_u32(u32::MAX), None);
    }

    #[test]
    fn well_known_numbers_and_classes() {
        use DxOp::*;
        // (op, DxilConstants.h number, class in the dx.op function name)
        let cases: &[(DxOp, u32, &str)] = &[
            (TempRegLoad, 0, "tempRegLoad"),
            (LoadInput, 4, "loadInput"),
            (StoreOutput, 5, "storeOutput"),
            (FAbs, 6, "unary"),
            (IsNaN, 8, "isSpecialFloat"),
            (Cos, 12, "unary"),
            (Countbits, 31, "unaryBits"),
            (FMax, 35, "binary"),
            (UDiv, 43, "binaryWithTwoOuts"),
            (FMad, 46, "tertiary"),
            (Bfi, 53, "quaternary"),
            (Dot3, 55, "dot3"),
            (CreateHandle, 57, "createHandle"),
            (CBufferLoad, 58, "cbufferLoad"),
            (CBufferLoadLegacy, 59, "cbufferLoadLegacy"),
            (Sample, 60, "sample"),
            (SampleLevel, 62, "sampleLevel"),
            (SampleCmp, 64, "sampleCmp"),
            (TextureLoad, 66, "textureLoad"),
            (TextureStore, 67, "textureStore"),
            (BufferLoad, 68, "bufferLoad"),
            (BufferStore, 69, "bufferStore"),
            (GetDimensions, 72, "getDimensions"),
            (AtomicBinOp, 78, "atomicBinOp"),
            (Barrier, 80, "barrier"),
            (CalculateLOD, 81, "calculateLOD"),
            (Discard, 82, "discard"),
            (DerivCoarseX, 83, "unary"),
            (DerivFineY, 86, "unary"),
            (ThreadId, 93, "threadId"),
            (GroupId, 94, "groupId"),
            (ThreadIdInGroup, 95, "threadIdInGroup"),
            (FlattenedThreadIdInGroup, 96, "flattenedThreadIdInGroup"),
            (EmitStream, 97, "emitStream"),
            (GSInstanceID, 100, "gsInstanceID"),
            (WaveIsFirstLane, 110, "waveIsFirstLane"),
            (WaveGetLaneIndex, 111, "waveGetLaneIndex"),
            (WaveActiveOp, 119, "waveActiveOp"),
            (QuadOp, 123, "quadOp"),
            (WaveAllBitCount, 135, "waveAllOp"),
            (WavePrefixBitCount, 136, "wavePrefixOp"),
            (ViewID, 138, "viewID"),
            (RawBufferLoad, 139, "rawBufferLoad"),
            (RawBufferStore, 140, "rawBufferStore"),
            (TraceRay, 157, "traceRay"),
            (CreateHandleForLib, 160, "createHandleForLib"),
            (Dot4AddU8Packed, 164, "dot4AddPacked"),
            (WaveMatch, 165, "waveMatch"),
            (DispatchMesh, 173, "dispatchMesh"),
            (RayQuery_Proceed, 180, "rayQuery_Proceed"),
            (RayQuery_CommittedStatus, 184, "rayQuery_StateScalar"),
            (AnnotateHandle, 216, "annotateHandle"),
            (CreateHandleFromBinding, 217, "createHandleFromBinding"),
            (CreateHandleFromHeap, 218, "createHandleFromHeap"),
            (IsHelperLane, 221, "isHelperLane"),
            (QuadVote, 222, "quadVote"),
            (Reserved0, 226, "reserved"),
            (Reserved11, 237, "reserved"),
            (AllocateNodeOutputRecords, 238, "allocateNodeOutputRecords"),
            (BarrierByMemoryType, 244, "barrierByMemoryType"),
            (CreateNodeOutputHandle, 247, "createNodeOutputHandle"),
            (SampleCmpBias, 255, "sampleCmpBias"),
            (StartVertexLocation, 256, "startVertexLocation"),
            (StartInstanceLocation, 257, "startInstanceLocation"),
        ];
        for &(op, number, class) in cases {
            assert_eq!(op.number(), number, "{op:?}");
            assert_eq!(DxOp::from_u32(number), Some(op));
            assert_eq!(op.class(), class, "{op:?}");
        }
    }

    #[test]
    fn shader_models_follow_dxil_version_boundaries() {
        // DxilConstants.h: NumOpCodes_Dxil_1_x, the exclusive end of each
        // version's opcodes. Every op must carry the model of its range.
        let ends = [137, 139, 141, 162, 165, 216, 222, 226, 258];
        for &op in ALL {
            let minor = ends.iter().position(|&end| op.number() < end).unwrap() as u8;
            assert_eq!(op.min_shader_model(), (6, minor), "{op:?}");
            assert_eq!(op.min_dxil_version(), (1, minor), "{op:?}");
        }
        assert_eq!(DxOp::AttributeAtVertex.min_shader_model(), (6, 1));
        assert_eq!(DxOp::CreateHandleFromHeap.min_shader_model(), (6, 6));
        assert_eq!(DxOp::StartVertexLocation.min_shader_model(), (6, 8));
    }

    #[test]
    fn class_spelling_matches_dxc_rule() {
        // An op alone in its class is usually spelled as its own name with the
        // first letter lowered; these are the ones DXC spells otherwise.
        let odd = ["Bfi", "CBufferLoad", "CBufferLoadLegacy", "GSInstanceID", "WaveAllBitCount"];
        let mut classes = HashSet::new();
        for &op in ALL {
            let class = op.class();
            classes.insert(class);
            assert_eq!(decode_function_name(&format!("dx.op.{class}")), Some((class, None)));
            let alone = ALL.iter().filter(|o| o.class() == class).count() == 1;
            if alone && !odd.contains(&op.name()) {
                let (first, rest) = op.name().split_at(1);
                assert_eq!(class, format!("{}{rest}", first.to_ascii_lowercase()), "{op:?}");
            }
        }
        assert_eq!(classes.len(), 173);
    }

    #[test]
    fn classification() {
        use DxOp::*;
        let convergent = [
            WaveIsFirstLane,
            WaveActiveOp,
            WaveReadLaneFirst,
            WaveActiveBallot,
            WavePrefixBitCount,
            WaveMatch,
            WaveMultiPrefixOp,
            QuadReadLaneAt,
            QuadOp,
            QuadVote,
            DerivCoarseX,
            DerivFineY,
            Sample,
            SampleBias,
            SampleCmp,
            SampleCmpBias,
            CalculateLOD,
            WriteSamplerFeedback,
            Barrier,
            BarrierByMemoryType,
            BarrierByNodeRecordHandle,
            AllocateNodeOutputRecords,
            OutputComplete,
            FinishedCrossGroupSharing,
            SetMeshOutputCounts,
        ];
        for op in convergent {
            assert!(op.is_convergent(), "{op:?}");
        }
        let not_convergent = [
            WaveGetLaneIndex,
            WaveGetLaneCount,
            SampleLevel,
            SampleGrad,
            SampleCmpLevelZero,
            SampleCmpGrad,
            TextureGather,
            TextureLoad,
            BufferStore,
            ThreadId,
            IsHelperLane,
            Discard,
            FAbs,
            WriteSamplerFeedbackLevel,
        ];
        for op in not_convergent {
            assert!(!op.is_convergent(), "{op:?}");
        }

        assert!(WaveGetLaneIndex.is_wave_op() && !WaveGetLaneIndex.is_quad_op());
        assert!(QuadReadLaneAt.is_wave_op() && QuadReadLaneAt.is_quad_op());
        assert!(DerivFineX.is_derivative() && !CalculateLOD.is_derivative());
        assert!(CalculateLOD.uses_implicit_derivatives() && !SampleLevel.uses_implicit_derivatives());

        for op in [
            BufferStore,
            RawBufferStore,
            StoreOutput,
            AtomicBinOp,
            Barrier,
            Discard,
            EmitStream,
            CutStream,
            TextureStore,
            OutputComplete,
            RayQuery_Proceed,
            IgnoreHit,
        ] {
            assert!(op.has_side_effects(), "{op:?}");
        }
        for op in [
            BufferLoad,
            Sample,
            ThreadId,
            CreateHandle,
            AnnotateHandle,
            WaveActiveOp,
            WaveReadLaneAt,
            CBufferLoadLegacy,
            IsHelperLane,
        ] {
            assert!(!op.has_side_effects(), "{op:?}");
        }
    }

    #[test]
    fn predicates_agree_with_dxc_attributes_and_each_other() {
        for &op in ALL {
            // DXC promised LLVM that readnone/readonly ops write nothing.
            if matches!(op.dxc_attr(), FnAttr::ReadNone | FnAttr::ReadOnly) {
                assert!(!op.has_side_effects(), "{op:?}");
            }
            // Barriers are exactly DXC's noduplicate ops.
            assert_eq!(op.is_barrier(), op.dxc_attr() == FnAttr::NoDuplicate, "{op:?}");
            if op.dxc_attr() == FnAttr::NoReturn {
                assert!(op.has_side_effects(), "{op:?}");
            }
            // An unattributed op without side effects must be one we can name a
            // reason for: cross-lane reads, a clock read, a fresh allocation, or
            // a reserved slot.
            if op.dxc_attr() == FnAttr::None && !op.has_side_effects() {
                assert!(
                    op.is_wave_op()
                        || op.is_reserved()
                        || matches!(op, DxOp::CycleCounterLegacy | DxOp::AllocateRayQuery),
                    "{op:?}"
                );
            }
            if op.is_quad_op() {
                assert!(op.is_wave_op(), "{op:?}");
            }
            if op.is_derivative() || op.uses_implicit_derivatives() || op.is_barrier() {
                assert!(op.is_convergent(), "{op:?}");
            }
            if op.is_reserved() {
                assert_eq!(op.class(), "reserved");
                assert!(!op.is_convergent() && !op.has_side_effects());
            }
        }
        let count = |f: fn(DxOp) -> bool| ALL.iter().filter(|&&op| f(op)).count();
        // DXC's IsDxilOpWave / IsDxilOpGradient / IsDxilOpBarrier list sizes.
        assert_eq!(count(DxOp::is_wave_op), 20);
        assert_eq!(count(|op| op.is_derivative() || op.uses_implicit_derivatives()), 11);
        assert_eq!(count(DxOp::is_barrier), 4);
        assert_eq!(count(DxOp::is_quad_op), 3);
        assert_eq!(count(DxOp::is_reserved), 12);
    }

    #[test]
    fn decodes_function_names() {
        assert_eq!(decode_function_name("dx.op.createHandle"), Some(("createHandle", None)));
        assert_eq!(decode_function_name("dx.op.bufferLoad.f32"), Some(("bufferLoad", Some("f32"))));
        assert_eq!(decode_function_name("dx.op.traceRay.struct.Payload"), Some(("traceRay", Some("struct.Payload"))));
        assert_eq!(decode_function_name("dx.op.rayQuery_StateScalar.i32"), Some(("rayQuery_StateScalar", Some("i32"))));
        assert_eq!(decode_function_name("dx.op."), None);
        assert_eq!(decode_function_name("dx.op.unary."), None);
        assert_eq!(decode_function_name("dx.op..f32"), None);
        assert_eq!(decode_function_name("dx.types.Handle"), None);
        assert_eq!(decode_function_name("llvm.dbg.value"), None);
        assert_eq!(decode_function_name("main"), None);
        assert_eq!(decode_function_name("dx.op.un-ary.f32"), None);
        assert_eq!(decode_function_name("dx.op.unary-"), None);
    }

    #[test]
    fn serializes_as_name() {
        assert_eq!(serde_json::to_string(&DxOp::CBufferLoadLegacy).unwrap(), "\"CBufferLoadLegacy\"");
        assert_eq!(serde_json::to_string(&FnAttr::ReadNone).unwrap(), "\"ReadNone\"");
    }
}
