//! Record encodings that the constants and function blocks share: LLVM's numbering of
//! binary opcodes, casts and compare predicates (`LLVMBitCodes.h`: `BinaryOpcodes`,
//! `CastOpcodes`, and `CmpInst::Predicate`'s values), and the sign-folded integers of
//! `CST_CODE_INTEGER` and relative value ids.

use super::bitstream::Res;
use super::error::malformed;
use crate::ir::{BinaryOp, CastOp, FloatPredicate, IntPredicate};

pub fn binary_op(code: u64, fp: bool) -> Res<BinaryOp> {
    use BinaryOp::*;
    Ok(match (code, fp) {
        (0, false) => Add,
        (0, true) => FAdd,
        (1, false) => Sub,
        (1, true) => FSub,
        (2, false) => Mul,
        (2, true) => FMul,
        (3, false) => UDiv,
        (4, false) => SDiv,
        (4, true) => FDiv,
        (5, false) => URem,
        (6, false) => SRem,
        (6, true) => FRem,
        (7, false) => Shl,
        (8, false) => LShr,
        (9, false) => AShr,
        (10, false) => And,
        (11, false) => Or,
        (12, false) => Xor,
        (c, fp) => {
            return Err(malformed(format!("binary opcode {c} on {} operands", if fp { "float" } else { "integer" })))
        }
    })
}

pub fn int_predicate(p: u64) -> Res<IntPredicate> {
    use IntPredicate::*;
    Ok(match p {
        32 => Eq,
        33 => Ne,
        34 => Ugt,
        35 => Uge,
        36 => Ult,
        37 => Ule,
        38 => Sgt,
        39 => Sge,
        40 => Slt,
        41 => Sle,
        other => return Err(malformed(format!("integer predicate {other}"))),
    })
}

pub fn float_predicate(p: u64) -> Res<FloatPredicate> {
    use FloatPredicate::*;
    Ok(match p {
        0 => False,
        1 => Oeq,
        2 => Ogt,
        3 => Oge,
        4 => Olt,
        5 => Ole,
        6 => One,
        7 => Ord,
        8 => Uno,
        9 => Ueq,
        10 => Ugt,
        11 => Uge,
        12 => Ult,
        13 => Ule,
        14 => Une,
        15 => True,
        other => return Err(malformed(format!("float predicate {other}"))),
    })
}

pub fn decode_signed(v: u64) -> u64 {
    if v & 1 == 0 {
        v >> 1
    } else if v != 1 {
        (v >> 1).wrapping_neg()
    } else {
        1 << 63
    }
}

pub fn cast_op(code: u64) -> Res<CastOp> {
    use CastOp::*;
    Ok(match code {
        0 => Trunc,
        1 => ZExt,
        2 => SExt,
        3 => FPToUI,
        4 => FPToSI,
        5 => UIToFP,
        6 => SIToFP,
        7 => FPTrunc,
        8 => FPExt,
        9 => PtrToInt,
        10 => IntToPtr,
        11 => BitCast,
        12 => AddrSpaceCast,
        other => return Err(malformed(format!("cast opcode {other}"))),
    })
}

pub fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}
