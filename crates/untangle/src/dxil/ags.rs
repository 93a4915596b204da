//! AMD AGS driver intrinsics: the instruction words that `ags_shader_intrinsics_dx12.hlsl`
//! (AMD's AGS SDK, public) passes to the D3D12 driver through its magic UAV.
//!
//! Source of the encoding: the AGS SDK's HLSL header (opcodes, phases, immediates, wave and
//! atomic sub-operations) and, for the WMMA and float8 words added after AGS 6.3, the
//! constants dxil-spirv documents (facts only). Every intrinsic is one or more
//! `InterlockedCompareExchange(instruction, src0, src1, out)` on `u0, space2147420894`
//! (`0x7FFF0ADE`), i.e. `dx.op.atomicCompareExchange(79, magic, instruction, undef, undef,
//! src0, src1)`, one call per phase. An instruction word is
//!
//! | bits | field |
//! |---|---|
//! | 28..31 | magic code, always 5 |
//! | 24..25 | phase (0..3) |
//! | 8..23 | immediate data (16 bits) |
//! | 0..7 | opcode |
//!
//! This module decodes words into typed [`Instruction`]s and checks the phase order of a
//! stream of them ([`Sequencer`]); it knows nothing of SPIR-V (emission lowers the typed
//! operations, `emit::dxop::ags`). Invariants: a word whose magic code is not 5, whose
//! opcode is unknown or reserved, or whose immediate names no sub-operation is an
//! [`AgsError`] naming the instruction; a phase out of order (a later phase without the
//! earlier ones, or a new intrinsic while one is incomplete) is an [`AgsError`] naming the
//! incomplete instruction. Cost: constant per word.

use std::fmt;

/// The register space of the magic UAV (`AmdExtD3DShaderIntrinsicsSpaceId`); the UAV is `u0`.
pub const MAGIC_SPACE: u32 = 0x7FFF_0ADE;
/// `r` is the magic UAV itself (`u0` in [`MAGIC_SPACE`]): a layer exposing AGS binds
/// nothing there, its calls being intrinsics.
pub fn is_magic_uav(r: &super::Resource) -> bool {
    is_magic_register(r.class, r.space, r.lower_bound)
}

/// Whether a range of class `class` starting at register `lower_bound` of `space` is the
/// magic UAV.
pub fn is_magic_register(class: super::ResourceClass, space: u32, lower_bound: u32) -> bool {
    class == super::ResourceClass::Uav && space == MAGIC_SPACE && lower_bound == 0
}

/// The magic code in bits 28..31 of every instruction word.
pub const MAGIC_CODE: u32 = 5;

/// An AGS opcode (bits 0..7). Every opcode the SDK defines, lowered or not.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    Readfirstlane,
    Readlane,
    LaneId,
    Swizzle,
    Ballot,
    MBCnt,
    Min3U,
    Min3F,
    Med3U,
    Med3F,
    Max3U,
    Max3F,
    BaryCoord,
    VtxParam,
    WaveReduce,
    WaveScan,
    LoadDwAtAddr,
    DrawIndex,
    AtomicU64,
    GetWaveSize,
    BaseInstance,
    BaseVertex,
    FloatConversion,
    ReadlaneAt,
    ShaderClock,
    ShaderRealtimeClock,
    Halt,
    IntersectBvhNode,
    BufferStoreByte,
    BufferStoreShort,
    ShaderMarker,
    FloatOpWithRoundMode,
    WaveMatrixMulAcc,
    WaveMatrixUavLoad,
    WaveMatrixUavStore,
    WaveMatrixGlobalLoad,
    WaveMatrixGlobalStore,
    WaveMatrixLdsLoad,
    WaveMatrixLdsStore,
    WaveMatrixElementFill,
    WaveMatrixElementExtract,
    WaveMatrixLength,
    WaveMatrixCopy,
    WaveMatrixFill,
    MatrixSparsityIndexLoad,
    MatrixElementWiseArithmetic,
    Float8Conversion,
    BuiltIn1,
    BuiltInArg,
}

/// Opcode numbers, in the SDK's order (0x0f..0x11, 0x15, 0x16, 0x1e and 0x27 are reserved).
const OPCODES: &[(u32, Opcode)] = {
    use Opcode::*;
    &[
        (0x01, Readfirstlane),
        (0x02, Readlane),
        (0x03, LaneId),
        (0x04, Swizzle),
        (0x05, Ballot),
        (0x06, MBCnt),
        (0x07, Min3U),
        (0x08, Min3F),
        (0x09, Med3U),
        (0x0a, Med3F),
        (0x0b, Max3U),
        (0x0c, Max3F),
        (0x0d, BaryCoord),
        (0x0e, VtxParam),
        (0x12, WaveReduce),
        (0x13, WaveScan),
        (0x14, LoadDwAtAddr),
        (0x17, DrawIndex),
        (0x18, AtomicU64),
        (0x19, GetWaveSize),
        (0x1a, BaseInstance),
        (0x1b, BaseVertex),
        (0x1c, FloatConversion),
        (0x1d, ReadlaneAt),
        (0x1f, ShaderClock),
        (0x20, ShaderRealtimeClock),
        (0x21, Halt),
        (0x22, IntersectBvhNode),
        (0x23, BufferStoreByte),
        (0x24, BufferStoreShort),
        (0x25, ShaderMarker),
        (0x26, FloatOpWithRoundMode),
        (0x28, WaveMatrixMulAcc),
        (0x29, WaveMatrixUavLoad),
        (0x2a, WaveMatrixUavStore),
        (0x2b, WaveMatrixGlobalLoad),
        (0x2c, WaveMatrixGlobalStore),
        (0x2d, WaveMatrixLdsLoad),
        (0x2e, WaveMatrixLdsStore),
        (0x2f, WaveMatrixElementFill),
        (0x30, WaveMatrixElementExtract),
        (0x31, WaveMatrixLength),
        (0x32, WaveMatrixCopy),
        (0x33, WaveMatrixFill),
        (0x34, MatrixSparsityIndexLoad),
        (0x35, MatrixElementWiseArithmetic),
        (0x36, Float8Conversion),
        (0x37, BuiltIn1),
        (0x38, BuiltInArg),
    ]
};

impl Opcode {
    /// Every opcode, in number order.
    pub fn all() -> impl Iterator<Item = Opcode> {
        OPCODES.iter().map(|(_, o)| *o)
    }

    pub fn from_number(n: u32) -> Option<Opcode> {
        OPCODES.iter().find(|(k, _)| *k == n).map(|(_, o)| *o)
    }

    pub fn number(self) -> u32 {
        OPCODES.iter().find(|(_, o)| *o == self).map_or(0, |(k, _)| *k)
    }

    /// The SDK's name (`AmdExtD3DShaderIntrinsicsOpcode_<name>`).
    pub fn name(self) -> String {
        format!("{self:?}")
    }

    /// How many phases (calls) one intrinsic of this opcode takes, where the lowering knows:
    /// `None` for opcodes whose sequences vary (WMMA) or that are not lowered. Some
    /// sub-operations take more ([`Instruction::phases`]: the 64-bit compare-exchange 4,
    /// the pull-model barycentrics 3).
    pub fn phases(self) -> Option<u32> {
        use Opcode::*;
        Some(match self {
            Readfirstlane | Readlane | LaneId | Swizzle | MBCnt | WaveReduce | WaveScan | DrawIndex | GetWaveSize
            | BaseInstance | BaseVertex | ReadlaneAt | Float8Conversion | FloatConversion | FloatOpWithRoundMode => 1,
            ShaderMarker | VtxParam => 1,
            Ballot | Min3U | Min3F | Med3U | Med3F | Max3U | Max3F | ShaderClock | ShaderRealtimeClock
            | LoadDwAtAddr | BufferStoreByte | BufferStoreShort | BaryCoord => 2,
            AtomicU64 => 3,
            _ => return None,
        })
    }

    /// The WMMA (wave matrix) family: cooperative-matrix work.
    pub fn is_wave_matrix(self) -> bool {
        (0x28..=0x35).contains(&self.number())
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AmdExtD3DShaderIntrinsicsOpcode_{self:?} (0x{:02x})", self.number())
    }
}

/// A wave reduction or scan's operation (`AmdExtD3DShaderIntrinsicsWaveOp_*`, bits 0..7 of
/// the immediate).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WaveOp {
    AddF,
    AddI,
    AddU,
    MulF,
    MulI,
    MulU,
    MinF,
    MinI,
    MinU,
    MaxF,
    MaxI,
    MaxU,
    And,
    Or,
    Xor,
}

impl WaveOp {
    fn from_number(n: u32) -> Option<WaveOp> {
        use WaveOp::*;
        const ALL: [WaveOp; 15] =
            [AddF, AddI, AddU, MulF, MulI, MulU, MinF, MinI, MinU, MaxF, MaxI, MaxU, And, Or, Xor];
        (1..=15).contains(&n).then(|| ALL[n as usize - 1])
    }

    /// Operates on floats (the operands are their bits).
    pub fn is_float(self) -> bool {
        matches!(self, WaveOp::AddF | WaveOp::MulF | WaveOp::MinF | WaveOp::MaxF)
    }
}

/// A wave scan's kind (flags in bits 8..15 of the immediate).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scan {
    Inclusive,
    Exclusive,
}

/// A 64-bit atomic's operation (`AmdExtD3DShaderIntrinsicsAtomicOp_*`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    MinU64,
    MaxU64,
    AndU64,
    OrU64,
    XorU64,
    AddU64,
    XchgU64,
    CmpXchgU64,
}

/// A float8 conversion (`AmdExtD3DShaderIntrinsicsFloat8CvtOp_*`; bit 8: saturate).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Float8Cvt {
    Fp8ToF32,
    Bf8ToF32,
    F32ToFp8,
    F32ToBf8,
}

/// An IEEE rounding direction (`AmdExtD3DShaderIntrinsicsFloatOpWithRoundMode_*`: ties to
/// even 0, toward positive 1, toward negative 2, toward zero 3; `FloatConversion`'s
/// `FToF16Near` 1, `FToF16NegInf` 2, `FToF16PlusInf` 3 name the first three).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RoundMode {
    NearestEven,
    TowardPositive,
    TowardNegative,
    TowardZero,
}

impl RoundMode {
    pub const ALL: [RoundMode; 4] =
        [RoundMode::NearestEven, RoundMode::TowardPositive, RoundMode::TowardNegative, RoundMode::TowardZero];
}

/// `FloatOpWithRoundMode`'s operation (bits 4..7 of the immediate; the mode is bits 0..3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FloatOp {
    Add,
    Subtract,
    Multiply,
}

/// One decoded instruction word.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    pub opcode: Opcode,
    pub phase: u32,
    /// The 16-bit immediate, undecoded.
    pub data: u32,
    /// The typed meaning of the immediate.
    pub kind: Kind,
}

impl Instruction {
    /// How many phases this intrinsic takes ([`Opcode::phases`], refined by the
    /// immediate): `AtomicU64`'s compare-exchange passes the comparator in a fourth phase
    /// (`AmdExtD3DShaderIntrinsics_AtomicOp`'s compare-value form), and the pull-model
    /// barycentrics return three words.
    pub fn phases(&self) -> Option<u32> {
        match self.kind {
            Kind::Atomic(AtomicOp::CmpXchgU64) => Some(4),
            Kind::Barycentric(Barycentric::PerspPullModel) => Some(3),
            _ => self.opcode.phases(),
        }
    }
}

/// What an instruction's immediate says, by opcode family.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// No immediate (or one not interpreted: WMMA fields, which the lowering decodes).
    Plain,
    /// `Readlane`: the lane read.
    Lane(u32),
    /// `Swizzle`: the `ds_swizzle` offset pattern.
    Swizzle(Swizzle),
    /// `WaveReduce` (`scan` None) and `WaveScan`.
    Wave {
        op: WaveOp,
        scan: Option<Scan>,
    },
    Atomic(AtomicOp),
    Float8 {
        cvt: Float8Cvt,
        saturate: bool,
    },
    /// `FloatConversion`: src0 (an `f32`'s bits) to `f16` rounded so; the result is the
    /// `f16`'s bits, zero-extended.
    F16Conversion(RoundMode),
    /// `FloatOpWithRoundMode`: `src0 op src1` on `f32` bits, rounded so.
    RoundedOp {
        op: FloatOp,
        mode: RoundMode,
    },
    /// `BaryCoord`: the interpolation mode.
    Barycentric(Barycentric),
    /// `VtxParam`: component `component` (0..3) of input parameter `param` (0..31) at the
    /// triangle's vertex `vertex` (0..2).
    VertexParam {
        vertex: u32,
        param: u32,
        component: u32,
    },
}

/// A `BaryCoord` interpolation mode (`AmdExtD3DShaderIntrinsicsBarycentric_*`, the
/// immediate).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Barycentric {
    LinearCenter,
    LinearCentroid,
    LinearSample,
    PerspCenter,
    PerspCentroid,
    PerspSample,
    /// `(1/W, 1/I, 1/J)` at the pixel centre, for interpolation by the shader.
    PerspPullModel,
}

/// A `ds_swizzle_b32` pattern: bit 15 set selects quad permutation (four 2-bit lane
/// selectors in bits 0..7), else bit masks over each group of 32 lanes: the source lane is
/// `((lane & and) | or) ^ xor` in the low 5 bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Swizzle {
    Quad([u32; 4]),
    BitMasks { and: u32, or: u32, xor: u32 },
}

impl Swizzle {
    fn decode(offset: u32) -> Swizzle {
        if offset & 0x8000 != 0 {
            Swizzle::Quad([offset & 3, (offset >> 2) & 3, (offset >> 4) & 3, (offset >> 6) & 3])
        } else {
            Swizzle::BitMasks { and: offset & 0x1f, or: (offset >> 5) & 0x1f, xor: (offset >> 10) & 0x1f }
        }
    }

    /// The lane lane `lane` reads (a model of the pattern, for tests and interpreters).
    pub fn source(self, lane: u32) -> u32 {
        match self {
            Swizzle::Quad(sel) => (lane & !3) | sel[(lane & 3) as usize],
            Swizzle::BitMasks { and, or, xor } => (lane & !31) | ((((lane & 31) & and) | or) ^ xor),
        }
    }
}

/// A malformed AGS instruction stream. It names the instruction word (and, once decoded,
/// the instruction).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AgsError {
    #[error("instruction word 0x{word:08x} is not an AGS instruction (magic code {magic}, not 5)")]
    NotMagic { word: u32, magic: u32 },
    #[error("instruction word 0x{word:08x}: opcode 0x{opcode:02x} is unknown or reserved")]
    UnknownOpcode { word: u32, opcode: u32 },
    #[error("{opcode}: immediate 0x{data:04x} {what}")]
    BadImmediate { opcode: Opcode, data: u32, what: &'static str },
    #[error("{opcode}: phase {phase} {what}")]
    Phase { opcode: Opcode, phase: u32, what: String },
}

/// Decodes one instruction word.
pub fn decode(word: u32) -> Result<Instruction, AgsError> {
    let magic = word >> 28;
    if magic != MAGIC_CODE {
        return Err(AgsError::NotMagic { word, magic });
    }
    let number = word & 0xff;
    let opcode = Opcode::from_number(number).ok_or(AgsError::UnknownOpcode { word, opcode: number })?;
    let phase = (word >> 24) & 3;
    let data = (word >> 8) & 0xffff;
    let bad = |what| AgsError::BadImmediate { opcode, data, what };
    let kind = match opcode {
        Opcode::Readlane => Kind::Lane(data),
        Opcode::Swizzle => Kind::Swizzle(Swizzle::decode(data)),
        Opcode::WaveReduce | Opcode::WaveScan => {
            let op = WaveOp::from_number(data & 0xff).ok_or(bad("names no wave operation"))?;
            let scan = match (opcode, data >> 8) {
                (Opcode::WaveReduce, 0) => None,
                (Opcode::WaveScan, 1) => Some(Scan::Inclusive),
                (Opcode::WaveScan, 2) => Some(Scan::Exclusive),
                _ => return Err(bad("has scan flags that are not exactly one of inclusive (1), exclusive (2)")),
            };
            if scan.is_some() && matches!(op, WaveOp::And | WaveOp::Or | WaveOp::Xor) {
                return Err(bad("scans a bitwise operation (AGS defines them for reductions only)"));
            }
            Kind::Wave { op, scan }
        }
        Opcode::AtomicU64 => {
            use AtomicOp::*;
            const ALL: [AtomicOp; 8] = [MinU64, MaxU64, AndU64, OrU64, XorU64, AddU64, XchgU64, CmpXchgU64];
            let k = data.checked_sub(1).and_then(|k| ALL.get(k as usize)).ok_or(bad("names no 64-bit atomic"))?;
            Kind::Atomic(*k)
        }
        Opcode::Float8Conversion => {
            use Float8Cvt::*;
            let cvt = [Fp8ToF32, Bf8ToF32, F32ToFp8, F32ToBf8]
                .get((data & 0xff) as usize)
                .copied()
                .ok_or(bad("names no float8 conversion"))?;
            Kind::Float8 { cvt, saturate: data & 0x100 != 0 }
        }
        Opcode::FloatConversion => Kind::F16Conversion(match data {
            1 => RoundMode::NearestEven,
            2 => RoundMode::TowardNegative,
            3 => RoundMode::TowardPositive,
            _ => return Err(bad("names no f32 → f16 rounding (FToF16Near 1, NegInf 2, PlusInf 3)")),
        }),
        Opcode::FloatOpWithRoundMode => {
            let mode = *RoundMode::ALL.get((data & 0xf) as usize).ok_or(bad("names no rounding mode (bits 0..3)"))?;
            let op = [FloatOp::Add, FloatOp::Subtract, FloatOp::Multiply]
                .get(((data >> 4) & 0xf) as usize)
                .copied()
                .ok_or(bad("names no operation (bits 4..7: add, subtract, multiply)"))?;
            if data >> 8 != 0 {
                return Err(bad("sets bits 8..15, which FloatOpWithRoundMode does not define"));
            }
            Kind::RoundedOp { op, mode }
        }
        Opcode::BaryCoord => {
            use Barycentric::*;
            const ALL: [Barycentric; 7] =
                [LinearCenter, LinearCentroid, LinearSample, PerspCenter, PerspCentroid, PerspSample, PerspPullModel];
            let k = data.checked_sub(1).and_then(|k| ALL.get(k as usize)).ok_or(bad("names no interpolation mode"))?;
            Kind::Barycentric(*k)
        }
        Opcode::VtxParam => {
            // Bits 0..4: parameter, 5..6: vertex, 7..8: component.
            let vertex = (data >> 5) & 3;
            if vertex > 2 || data >> 9 != 0 {
                return Err(bad("names no vertex (0..2), or sets bits above the component (9..15)"));
            }
            Kind::VertexParam { vertex, param: data & 0x1f, component: (data >> 7) & 3 }
        }
        _ => Kind::Plain,
    };
    Ok(Instruction { opcode, phase, data, kind })
}

/// Where one call stands in its intrinsic's sequence.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub inst: Instruction,
    /// The call completes the intrinsic.
    pub last: bool,
}

/// Checks the phase order of a function's stream of AGS calls (in program order), one
/// intrinsic at a time: phase 0 starts one, each next phase follows its predecessor with
/// the same opcode and immediate, and a new intrinsic waits for the last phase of the
/// previous one.
#[derive(Clone, Debug, Default)]
pub struct Sequencer {
    open: Option<Instruction>,
}

impl Sequencer {
    pub fn push(&mut self, word: u32) -> Result<Step, AgsError> {
        let inst = decode(word)?;
        let phases = inst.phases();
        match self.open {
            Some(prev) if prev.opcode != inst.opcode || prev.data != inst.data || inst.phase != prev.phase + 1 => {
                return Err(AgsError::Phase {
                    opcode: prev.opcode,
                    phase: prev.phase + 1,
                    what: format!("is missing: the next call is {} phase {}", inst.opcode, inst.phase),
                });
            }
            None if inst.phase != 0 => {
                return Err(AgsError::Phase {
                    opcode: inst.opcode,
                    phase: inst.phase,
                    what: "comes without phase 0".into(),
                })
            }
            _ => {}
        }
        let last = phases.is_none_or(|n| inst.phase + 1 >= n);
        self.open = (!last).then_some(inst);
        Ok(Step { inst, last })
    }

    /// The intrinsic left incomplete, if any (an error at the end of a function).
    pub fn open(&self) -> Option<Instruction> {
        self.open
    }
}

/// The pixel-shader input element `VtxParam` reads: the user varying whose registers hold
/// parameter `param` (the input register, the element's signature row) and component
/// `component`. AGS names parameters by the pixel shader's input registers
/// (`AmdExtD3DShaderIntrinsicsBarycentric_Param0..31`).
pub fn vertex_param_element(
    inputs: &[super::SignatureElement],
    param: u32,
    component: u32,
) -> Option<&super::SignatureElement> {
    inputs.iter().find(|e| {
        let (Some(row), Some(col)) = (e.start_row, e.start_col) else { return false };
        e.system_value == super::enums::SemanticKind::Arbitrary
            && (row..row + e.rows.max(1)).contains(&param)
            && (col..col + e.cols.max(1)).contains(&component)
    })
}

/// The `VtxParam` instruction of call `inst` of `f`, if it is an `atomicCompareExchange`
/// on the magic UAV (resources `table`) whose constant word is one. A pre-pass's view
/// (`emit::stage::pixel`): a malformed word is `None` here and an error when lowered.
pub fn vertex_param_call(
    m: &crate::ir::Module,
    f: &crate::ir::Function,
    table: &super::Resources,
    inst: crate::ir::InstId,
) -> Option<(u32, u32, u32)> {
    let call = super::decode_call(m, f, inst, "").ok()??;
    if call.op != super::DxOp::AtomicCompareExchange {
        return None;
    }
    let word = match call.args.get(1)? {
        crate::ir::Value::Const(c) => u32::try_from(m.constants.as_int(*c)? & 0xffff_ffff).ok()?,
        _ => return None,
    };
    let Kind::VertexParam { vertex, param, component } = decode(word).ok()?.kind else { return None };
    let (class, id, _) = super::handles::declared_resource(m, f, table, *call.args.first()?)?;
    let r = table.class(class).iter().find(|r| r.id == id)?;
    is_magic_uav(r).then_some((vertex, param, component))
}

/// A WMMA matrix's element format (`WaveMatrixModifier` bits 0..3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DataFormat {
    I4,
    U4,
    I8,
    U8,
    F16,
    BF16,
    F32,
    I32,
    U32,
    /// float8 E5M2.
    Bf8,
    /// float8 E4M3.
    Fp8,
}

impl DataFormat {
    fn from_number(n: u32) -> Option<DataFormat> {
        use DataFormat::*;
        [I4, U4, I8, U8, F16, BF16, F32, I32, U32, Bf8, Fp8].get(n as usize).copied()
    }

    pub fn is_float(self) -> bool {
        matches!(self, DataFormat::F16 | DataFormat::BF16 | DataFormat::F32 | DataFormat::Bf8 | DataFormat::Fp8)
    }

    pub fn is_float8(self) -> bool {
        matches!(self, DataFormat::Bf8 | DataFormat::Fp8)
    }
}

/// A WMMA matrix's role in a multiply-add (`WaveMatrixModifier` bits 4..6).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MatrixUse {
    A,
    B,
    Accumulator,
}

/// A WMMA matrix type code (`WMMA_MakeType`): format, use, layout (bit 7: column major,
/// "transposed") and shape (bits 8..10: 16x16, 32x16, 16x32, 64x16). Bit 11 (a tile
/// selector) and bits 14..15 (sparsity index memory) must be zero: no lowered operation
/// uses them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MatrixType {
    pub format: DataFormat,
    pub usage: MatrixUse,
    pub column_major: bool,
    /// `(rows, columns)`.
    pub shape: (u32, u32),
}

impl MatrixType {
    /// Decodes type code `code` of `opcode`'s instruction (the immediate or a source).
    pub fn decode(opcode: Opcode, code: u32) -> Result<MatrixType, AgsError> {
        let bad = |what| AgsError::BadImmediate { opcode, data: code, what };
        let format = DataFormat::from_number(code & 0xf).ok_or(bad("names no matrix data format"))?;
        let usage = match (code >> 4) & 7 {
            0 => MatrixUse::A,
            1 => MatrixUse::B,
            2 => MatrixUse::Accumulator,
            _ => return Err(bad("names no matrix use (A, B, accumulator)")),
        };
        let shape = match (code >> 8) & 7 {
            0 => (16, 16),
            1 => (32, 16),
            2 => (16, 32),
            3 => (64, 16),
            _ => return Err(bad("names no matrix shape")),
        };
        if code & !0x7ff != 0 {
            return Err(bad("sets tile or sparsity bits (11..15), which no lowered operation has"));
        }
        Ok(MatrixType { format, usage, column_major: code & 0x80 != 0, shape })
    }
}

/// Which register a WMMA call passes or returns (`MatrixIO(channel, reg, type)`): two of a
/// matrix's 8 words per input call (`channel` 0..1, `reg` 0..1: words `4 reg + 2 channel`
/// and the next), one per output call (`channel` 0..3: word `4 reg + channel`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MatrixIo {
    pub channel: u32,
    pub reg: u32,
    /// 0: the return value, 1: A, 2: B, 3: the accumulator (of a multiply-add).
    pub kind: u32,
}

impl MatrixIo {
    pub fn decode(data: u32) -> MatrixIo {
        MatrixIo { channel: data & 0xf, reg: (data >> 4) & 0xf, kind: (data >> 8) & 0xff }
    }

    /// The first word an input call passes, if its fields are in range.
    pub fn input_word(self) -> Option<u32> {
        (self.channel < 2 && self.reg < 2).then_some(4 * self.reg + 2 * self.channel)
    }

    /// The word an output call returns, if its fields are in range.
    pub fn output_word(self) -> Option<u32> {
        (self.channel < 4 && self.reg < 2 && self.kind == 0).then_some(4 * self.reg + self.channel)
    }
}

/// A WMMA multiply-add (`WaveMatrixOpcode`, bits 0..6 of phase 1's immediate): the formats
/// of A, B and the accumulator. The 16x16x16 forms only; the int4, 16x16x32 and sparse
/// (`SWMMA`) forms are `None`.
pub fn mul_acc_formats(op: u32) -> Option<(DataFormat, DataFormat, DataFormat)> {
    use DataFormat::*;
    Some(match op {
        0x0 => (BF16, BF16, BF16),
        0x1 => (F16, F16, F16),
        0x2 => (BF16, BF16, F32),
        0x3 => (Bf8, Bf8, F32),
        0x4 => (Bf8, Fp8, F32),
        0x5 => (F16, F16, F32),
        0x6 => (Fp8, Bf8, F32),
        0x7 => (Fp8, Fp8, F32),
        0xc => (I8, I8, I32),
        0xd => (U8, U8, I32),
        0xe => (I8, U8, I32),
        0xf => (U8, I8, I32),
        _ => return None,
    })
}

/// A WMMA element-wise operation (`MatrixElementWiseOp`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ElementWise {
    Add,
    Sub,
    Mul,
    Div,
    Times,
}

impl ElementWise {
    pub fn from_number(n: u32) -> Option<ElementWise> {
        use ElementWise::*;
        n.checked_sub(1).and_then(|k| [Add, Sub, Mul, Div, Times].get(k as usize).copied())
    }
}

/// Builds an instruction word (tests, and generators of AGS inputs).
pub fn word(opcode: Opcode, phase: u32, data: u32) -> u32 {
    (MAGIC_CODE << 28) | ((phase & 3) << 24) | ((data & 0xffff) << 8) | opcode.number()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opcode_round_trips() {
        for &(n, op) in OPCODES {
            let w = word(op, 0, 0);
            let d = decode(w).map(|i| i.opcode);
            if matches!(
                op,
                Opcode::WaveReduce | Opcode::WaveScan | Opcode::AtomicU64 | Opcode::FloatConversion | Opcode::BaryCoord
            ) {
                assert!(d.is_err(), "{op}: immediate 0 names no sub-operation");
            } else {
                assert_eq!(d, Ok(op));
            }
            assert_eq!(op.number(), n);
        }
        for reserved in [0x00, 0x0f, 0x10, 0x11, 0x15, 0x16, 0x1e, 0x27, 0x39, 0xff] {
            assert!(matches!(decode(0x5000_0000 | reserved), Err(AgsError::UnknownOpcode { .. })));
        }
        assert!(matches!(decode(0x4000_0001), Err(AgsError::NotMagic { .. })));
    }

    #[test]
    fn immediates() {
        let i = decode(word(Opcode::WaveScan, 0, 0x0203)).unwrap();
        assert_eq!(i.kind, Kind::Wave { op: WaveOp::AddU, scan: Some(Scan::Exclusive) });
        assert!(decode(word(Opcode::WaveScan, 0, 0x030d)).is_err());
        assert!(decode(word(Opcode::WaveScan, 0, 0x020d)).is_err(), "bitwise scans are reductions only");
        assert_eq!(decode(word(Opcode::AtomicU64, 2, 8)).unwrap().kind, Kind::Atomic(AtomicOp::CmpXchgU64));
        let f8 = decode(word(Opcode::Float8Conversion, 0, 0x102)).unwrap();
        assert_eq!(f8.kind, Kind::Float8 { cvt: Float8Cvt::F32ToFp8, saturate: true });
        // FloatOpWithRoundMode: mode in bits 0..3, operation in 4..7.
        let r = decode(word(Opcode::FloatOpWithRoundMode, 0, 0x21)).unwrap();
        assert_eq!(r.kind, Kind::RoundedOp { op: FloatOp::Multiply, mode: RoundMode::TowardPositive });
        let r = decode(word(Opcode::FloatOpWithRoundMode, 0, 0x13)).unwrap();
        assert_eq!(r.kind, Kind::RoundedOp { op: FloatOp::Subtract, mode: RoundMode::TowardZero });
        for bad in [0x04, 0x30, 0x100] {
            assert!(decode(word(Opcode::FloatOpWithRoundMode, 0, bad)).is_err(), "{bad:#x}");
        }
        let c = |d| decode(word(Opcode::FloatConversion, 0, d)).map(|i| i.kind);
        assert_eq!(c(2), Ok(Kind::F16Conversion(RoundMode::TowardNegative)));
        assert_eq!(c(3), Ok(Kind::F16Conversion(RoundMode::TowardPositive)));
        assert!(c(0).is_err() && c(4).is_err());
        // SDK swizzles: SwapX1 0x041f, ReverseX4 0x0c1f, BCastX32 0x0020.
        let s = |d| match decode(word(Opcode::Swizzle, 0, d)).unwrap().kind {
            Kind::Swizzle(s) => s,
            _ => unreachable!(),
        };
        assert_eq!((0..4).map(|l| s(0x041f).source(l)).collect::<Vec<_>>(), [1, 0, 3, 2]);
        assert_eq!((0..4).map(|l| s(0x0c1f).source(l)).collect::<Vec<_>>(), [3, 2, 1, 0]);
        assert_eq!(s(0x0020).source(45), 33);
        assert_eq!(s(0x8000 | 0b00_01_10_11).source(5), 6);
        // VertexParameterComponent(vertex 2, param 5, component W).
        let v = decode(word(Opcode::VtxParam, 0, 2 << 5 | 5 | 3 << 7)).unwrap();
        assert_eq!(v.kind, Kind::VertexParam { vertex: 2, param: 5, component: 3 });
        assert!(decode(word(Opcode::VtxParam, 0, 3 << 5)).is_err(), "no vertex 3");
        let b = decode(word(Opcode::BaryCoord, 1, 5)).unwrap();
        assert_eq!(b.kind, Kind::Barycentric(Barycentric::PerspCentroid));
        assert!(decode(word(Opcode::BaryCoord, 0, 8)).is_err());
    }

    #[test]
    fn phase_counts_follow_the_sub_operation() {
        let mut s = Sequencer::default();
        for phase in 0..4 {
            assert_eq!(s.push(word(Opcode::AtomicU64, phase, 8)).unwrap().last, phase == 3, "compare-exchange");
        }
        for phase in 0..3 {
            assert_eq!(s.push(word(Opcode::AtomicU64, phase, 1)).unwrap().last, phase == 2, "min");
        }
        assert!(!s.push(word(Opcode::BufferStoreByte, 0, 0)).unwrap().last);
        assert!(s.push(word(Opcode::BufferStoreByte, 1, 0)).unwrap().last);
        assert!(s.push(word(Opcode::ShaderMarker, 0, 0)).unwrap().last);
        for phase in 0..3 {
            assert_eq!(s.push(word(Opcode::BaryCoord, phase, 7)).unwrap().last, phase == 2, "pull model");
        }
    }

    #[test]
    fn phase_order() {
        let mut s = Sequencer::default();
        assert!(!s.push(word(Opcode::Ballot, 0, 0)).unwrap().last);
        assert!(s.push(word(Opcode::Ballot, 1, 0)).unwrap().last);
        assert!(s.push(word(Opcode::LaneId, 0, 0)).unwrap().last);
        assert!(matches!(s.push(word(Opcode::Med3F, 1, 0)), Err(AgsError::Phase { phase: 1, .. })));
        let mut s = Sequencer::default();
        s.push(word(Opcode::Min3U, 0, 0)).unwrap();
        let e = s.push(word(Opcode::LaneId, 0, 0)).unwrap_err();
        assert!(e.to_string().contains("Min3U") && e.to_string().contains("phase 1 is missing"), "{e}");
    }
}
