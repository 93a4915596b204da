//! Instructions (LangRef, "Instruction Reference", LLVM 14 syntax) into
//! [`crate::ir::InstKind`] / [`crate::ir::Terminator`].
//!
//! Each instruction computes its result type as LLVM does and checks its operands' types
//! where LLVM's parser does (so input LLVM rejects is rejected here too, with a position).
//! What our IR does not keep is parsed and dropped, as the LLVM front end drops it: wrap
//! and exactness flags, fast-math flags, `tail`/`musttail`, calling conventions,
//! attributes, operand bundles, sync scopes, atomic orderings of loads and stores,
//! `inrange`, metadata attachments. Alignment follows LLVM 14's parser: a `load`/`store`
//! without `align` gets the type's ABI alignment, an `alloca` its preferred alignment,
//! from the data layout in effect (`crate::front::bitcode::layout`). Instructions our IR cannot
//! model (`invoke`, `landingpad`, `indirectbr`, `callbr`, funclet pads, inline assembly)
//! are typed errors naming the instruction, where the LLVM front end fails too.
//!
//! Cost: linear in the instruction's tokens.

use super::body::{Body, Parsed};
use super::constants::{binary_op, cast_op, float_predicate, int_predicate, skip_wrap_flags};
use super::lexer::{Tok, Token};
use super::parser::{skip_attribute_reference, skip_param_attributes};
use super::parser::{PResult, Parser};
use crate::ir::{AtomicRmwOp, BinaryOp, ConstKind, InstKind, Ordering, Terminator, Type, TypeId, Value};
use smallvec::SmallVec;

const FAST_MATH_FLAGS: &[&str] = &["nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "fast"];

/// Function attributes that may follow a call's argument list (LangRef, "Function
/// Attributes", LLVM 14); anything else ends the call.
const CALL_FN_ATTRIBUTES: &[&str] = &[
    "alignstack",
    "allocsize",
    "alwaysinline",
    "argmemonly",
    "builtin",
    "cold",
    "convergent",
    "disable_sanitizer_instrumentation",
    "hot",
    "inaccessiblememonly",
    "inaccessiblemem_or_argmemonly",
    "inlinehint",
    "jumptable",
    "minsize",
    "mustprogress",
    "naked",
    "nobuiltin",
    "nocallback",
    "nocf_check",
    "noduplicate",
    "nofree",
    "noimplicitfloat",
    "noinline",
    "nomerge",
    "noprofile",
    "norecurse",
    "noredzone",
    "noreturn",
    "nosanitize_coverage",
    "nosync",
    "nounwind",
    "null_pointer_is_valid",
    "optforfuzzing",
    "optnone",
    "optsize",
    "readnone",
    "readonly",
    "returns_twice",
    "safestack",
    "sanitize_address",
    "sanitize_hwaddress",
    "sanitize_memory",
    "sanitize_memtag",
    "sanitize_thread",
    "shadowcallstack",
    "speculatable",
    "speculative_load_hardening",
    "ssp",
    "sspreq",
    "sspstrong",
    "strictfp",
    "uwtable",
    "vscale_range",
    "willreturn",
    "writeonly",
];

/// Skips fast-math flags; whether one lets the operation be reassociated or contracted
/// (`fast`, `reassoc`, `contract`: see [`InstKind::Binary`]).
fn skip_fast_math_flags(p: &mut Parser) -> bool {
    let mut fast = false;
    while p.peek() == Tok::Word && FAST_MATH_FLAGS.contains(&p.text(p.tok())) {
        fast |= matches!(p.text(p.tok()), "fast" | "reassoc" | "contract");
        p.bump();
    }
    fast
}

fn ordering(p: &mut Parser) -> PResult<Ordering> {
    use Ordering::*;
    let words = "unordered monotonic acquire release acq_rel seq_cst";
    keyword(p, words, [Unordered, Monotonic, Acquire, Release, AcqRel, SeqCst], "an atomic ordering")
}

/// The value paired with the keyword at the cursor, `words` (space-separated) naming
/// `values` in order; the keyword is consumed when found.
fn keyword<T: Copy, const N: usize>(p: &mut Parser, words: &str, values: [T; N], what: &str) -> PResult<T> {
    debug_assert_eq!(words.split(' ').count(), N);
    let word = p.text(p.tok());
    let Some((_, v)) = words.split(' ').zip(values).find(|&(w, _)| w == word) else {
        return Err(p.unexpected(what));
    };
    p.bump();
    Ok(v)
}

/// `[syncscope("...")]` before an ordering.
fn skip_syncscope(p: &mut Parser) -> PResult<()> {
    if p.eat_word("syncscope") {
        p.expect(Tok::LParen, "`(` after `syncscope`")?;
        p.expect(Tok::String, "a sync scope name")?;
        p.expect(Tok::RParen, "`)`")?;
    }
    Ok(())
}

/// Trailing `, !kind !N` attachments.
fn parse_attachments(p: &mut Parser) -> PResult<()> {
    while p.peek() == Tok::Comma && p.peek_at(1) == Tok::MetadataVar {
        p.bump();
        p.bump();
        p.parse_md_attachment_value()?;
    }
    Ok(())
}

/// `, align N` and attachments in any order after memory instructions; returns the
/// alignment if given.
fn parse_align_and_attachments(p: &mut Parser) -> PResult<Option<u32>> {
    let mut align = None;
    while p.eat(Tok::Comma) {
        if p.eat_word("align") {
            align = Some(p.parse_alignment()?);
        } else if p.peek() == Tok::MetadataVar {
            p.bump();
            p.parse_md_attachment_value()?;
        } else {
            return Err(p.unexpected("`align` or a metadata attachment"));
        }
    }
    Ok(align)
}

fn check_type(p: &Parser, at: Token, ok: bool, what: &str, ty: TypeId) -> PResult<()> {
    if ok {
        Ok(())
    } else {
        Err(p.error_at(at, format!("invalid operand type `{}` for {what}", p.describe(ty))))
    }
}

/// One instruction or terminator, with its trailing attachments.
pub fn parse_instruction<'a>(p: &mut Parser<'a>, b: &mut Body<'a>) -> PResult<Parsed> {
    let t = p.tok();
    if t.kind != Tok::Word {
        return Err(p.unexpected("an instruction opcode"));
    }
    let w = p.text(t);
    p.bump();
    let parsed = match w {
        "ret" | "br" | "switch" | "unreachable" => Parsed::Terminator(terminator(p, b, w, t)?),
        "invoke" | "callbr" | "indirectbr" | "resume" | "catchswitch" | "catchret" | "cleanupret" => {
            return Err(p.unsupported(t, &format!("the `{w}` terminator")))
        }
        "landingpad" | "catchpad" | "cleanuppad" => return Err(p.unsupported(t, &format!("the `{w}` instruction"))),
        "phi" => phi(p, b)?,
        "fneg" => {
            let _ = skip_fast_math_flags(p);
            let at = p.tok();
            let (value, ty) = b.parse_typed_value(p)?;
            check_type(p, at, p.is_fp_or_fp_vector(ty), "fneg", ty)?;
            Parsed::Inst(InstKind::FNeg { value }, ty)
        }
        "icmp" | "fcmp" => compare(p, b, w == "icmp")?,
        "select" => {
            let _ = skip_fast_math_flags(p);
            let at = p.tok();
            let [(cond, ct), (if_true, ty), (if_false, ft)] = b.parse_typed_values(p)?;
            let i1 = p.intern(Type::Int(1));
            let cond_ok = p.scalar_of(ct) == i1 && (p.vector_len(ct).is_none() || p.vector_len(ct) == p.vector_len(ty));
            if !cond_ok || ty != ft {
                return Err(p.error_at(at, "invalid select operands"));
            }
            Parsed::Inst(InstKind::Select { cond, if_true, if_false }, ty)
        }
        "extractelement" => {
            let at = p.tok();
            let [(vector, vt), (index, it)] = b.parse_typed_values(p)?;
            if p.vector_len(vt).is_none() || p.int_width(it).is_none() {
                return Err(p.error_at(at, "invalid extractelement operands"));
            }
            Parsed::Inst(InstKind::ExtractElement { vector, index }, p.scalar_of(vt))
        }
        "insertelement" => {
            let at = p.tok();
            let [(vector, vt), (element, et), (index, it)] = b.parse_typed_values(p)?;
            if p.vector_len(vt).is_none() || p.scalar_of(vt) != et || p.int_width(it).is_none() {
                return Err(p.error_at(at, "invalid insertelement operands"));
            }
            Parsed::Inst(InstKind::InsertElement { vector, element, index }, vt)
        }
        "shufflevector" => shuffle(p, b)?,
        "extractvalue" => {
            let at = p.tok();
            let (aggregate, at_ty) = b.parse_typed_value(p)?;
            let indices = parse_indices(p)?;
            let ty = indexed_type(p, at_ty, &indices, at)?;
            Parsed::Inst(InstKind::ExtractValue { aggregate, indices }, ty)
        }
        "insertvalue" => {
            let at = p.tok();
            let [(aggregate, at_ty), (element, et)] = b.parse_typed_values(p)?;
            let indices = parse_indices(p)?;
            if indexed_type(p, at_ty, &indices, at)? != et {
                return Err(p.error_at(at, "insertvalue operand and field disagree in type"));
            }
            Parsed::Inst(InstKind::InsertValue { aggregate, element, indices }, at_ty)
        }
        "alloca" => alloca(p, b)?,
        "load" => load(p, b)?,
        "store" => store(p, b)?,
        "fence" => {
            skip_syncscope(p)?;
            let ordering = ordering(p)?;
            let void = p.intern(Type::Void);
            Parsed::Inst(InstKind::Fence { ordering }, void)
        }
        "cmpxchg" => cmpxchg(p, b)?,
        "atomicrmw" => atomicrmw(p, b)?,
        "getelementptr" => gep(p, b)?,
        "tail" | "musttail" | "notail" => {
            p.expect_word("call")?;
            call(p, b)?
        }
        "call" => call(p, b)?,
        "freeze" => {
            let (value, ty) = b.parse_typed_value(p)?;
            Parsed::Inst(InstKind::Freeze { value }, ty)
        }
        "va_arg" => {
            let (list, _) = b.parse_typed_value(p)?;
            p.expect(Tok::Comma, "`,`")?;
            let ty = p.parse_type()?;
            Parsed::Inst(InstKind::VaArg { list }, ty)
        }
        _ => {
            if let Some(op) = binary_op(w) {
                binary(p, b, op, w)?
            } else if let Some(op) = cast_op(w) {
                let at = p.tok();
                let (value, st) = b.parse_typed_value(p)?;
                p.expect_word("to")?;
                let dest = p.parse_type()?;
                p.check_cast(op, st, dest, at)?;
                Parsed::Inst(InstKind::Cast { op, value }, dest)
            } else {
                return Err(p.error_at(t, format!("expected an instruction opcode, found `{w}`")));
            }
        }
    };
    parse_attachments(p)?;
    Ok(parsed)
}

fn terminator<'a>(p: &mut Parser<'a>, b: &mut Body<'a>, w: &str, at: Token) -> PResult<Terminator> {
    Ok(match w {
        "unreachable" => Terminator::Unreachable,
        "ret" => {
            let ty = p.parse_type()?;
            if p.m.types.is_void(ty) {
                if !p.m.types.is_void(b.ret) {
                    return Err(
                        p.error_at(at, format!("value doesn't match function result type '{}'", p.describe(b.ret)))
                    );
                }
                Terminator::Ret { value: None }
            } else {
                if ty != b.ret {
                    return Err(
                        p.error_at(at, format!("value doesn't match function result type '{}'", p.describe(b.ret)))
                    );
                }
                Terminator::Ret { value: Some(b.parse_value(p, ty)?) }
            }
        }
        "br" => {
            if p.is_word("label") {
                Terminator::Br { target: b.parse_label(p)? }
            } else {
                let ct = p.tok();
                let ty = p.parse_type()?;
                if p.int_width(ty) != Some(1) {
                    return Err(p.error_at(ct, "branch condition must have 'i1' type"));
                }
                let cond = b.parse_value(p, ty)?;
                p.expect(Tok::Comma, "`,`")?;
                let if_true = b.parse_label(p)?;
                p.expect(Tok::Comma, "`,`")?;
                let if_false = b.parse_label(p)?;
                Terminator::CondBr { cond, if_true, if_false }
            }
        }
        _ => {
            let ct = p.tok();
            let (value, ty) = b.parse_typed_value(p)?;
            let Some(width) = p.int_width(ty) else {
                return Err(p.error_at(ct, "switch condition must have integer type"));
            };
            p.expect(Tok::Comma, "`,`")?;
            let default = b.parse_label(p)?;
            p.expect(Tok::LSquare, "`[` with the switch cases")?;
            let mut cases = Vec::new();
            let mut seen = std::collections::HashSet::new();
            while !p.eat(Tok::RSquare) {
                let vt = p.tok();
                if width > 64 {
                    // As the LLVM front end: the first case it cannot hold in 64 bits fails.
                    return Err(p.unsupported(vt, &format!("switch on i{width}")));
                }
                let cty = p.parse_type()?;
                let v = b.parse_value(p, cty)?;
                let Value::Const(c) = v else {
                    return Err(p.error_at(vt, "case value is not a constant integer"));
                };
                let ConstKind::Int(n) = p.m.constants.get(c).kind else {
                    return Err(p.error_at(vt, "case value is not a constant integer"));
                };
                if cty != ty {
                    return Err(p.error_at(vt, "case value has a different type than the condition"));
                }
                if !seen.insert(n) {
                    return Err(p.error_at(vt, "duplicate case value in switch"));
                }
                p.expect(Tok::Comma, "`,`")?;
                cases.push((n, b.parse_label(p)?));
            }
            Terminator::Switch { value, default, cases }
        }
    })
}

fn phi<'a>(p: &mut Parser<'a>, b: &mut Body<'a>) -> PResult<Parsed> {
    let _ = skip_fast_math_flags(p);
    let tt = p.tok();
    let ty = p.parse_type()?;
    if matches!(p.m.types.get(ty), Type::Void | Type::Label | Type::Metadata | Type::Function { .. }) {
        return Err(p.error_at(tt, "phi node must have first class type"));
    }
    let mut incoming = SmallVec::new();
    loop {
        p.expect(Tok::LSquare, "`[` with a phi incoming value")?;
        let v = b.parse_value(p, ty)?;
        p.expect(Tok::Comma, "`,`")?;
        let bb = b.parse_block_name(p)?;
        p.expect(Tok::RSquare, "`]`")?;
        incoming.push((v, bb));
        if !(p.peek() == Tok::Comma && p.peek_at(1) == Tok::LSquare) {
            break;
        }
        p.bump();
    }
    Ok(Parsed::Inst(InstKind::Phi { incoming }, ty))
}

fn binary<'a>(p: &mut Parser<'a>, b: &mut Body<'a>, op: BinaryOp, w: &str) -> PResult<Parsed> {
    skip_wrap_flags(p);
    let fast = skip_fast_math_flags(p);
    let at = p.tok();
    let (lhs, ty) = b.parse_typed_value(p)?;
    p.expect(Tok::Comma, "`,`")?;
    let rhs = b.parse_value(p, ty)?;
    let float_op = matches!(op, BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv | BinaryOp::FRem);
    let ok = if float_op { p.is_fp_or_fp_vector(ty) } else { p.is_int_or_int_vector(ty) };
    check_type(p, at, ok, &format!("`{w}`"), ty)?;
    Ok(Parsed::Inst(InstKind::Binary { op, lhs, rhs, fast: fast && float_op }, ty))
}

fn compare<'a>(p: &mut Parser<'a>, b: &mut Body<'a>, int: bool) -> PResult<Parsed> {
    if !int {
        let _ = skip_fast_math_flags(p);
    }
    let pt = p.tok();
    let pred = p.text(pt);
    p.bump();
    let at = p.tok();
    let (lhs, ty) = b.parse_typed_value(p)?;
    p.expect(Tok::Comma, "`,`")?;
    let rhs = b.parse_value(p, ty)?;
    let rt = p.bool_like(ty);
    let kind = if int {
        let pred =
            int_predicate(pred).ok_or_else(|| p.error_at(pt, format!("expected an icmp predicate, found `{pred}`")))?;
        check_type(p, at, p.is_int_or_int_vector(ty) || p.is_ptr_or_ptr_vector(ty), "icmp", ty)?;
        InstKind::ICmp { pred, lhs, rhs }
    } else {
        let pred = float_predicate(pred)
            .ok_or_else(|| p.error_at(pt, format!("expected an fcmp predicate, found `{pred}`")))?;
        check_type(p, at, p.is_fp_or_fp_vector(ty), "fcmp", ty)?;
        InstKind::FCmp { pred, lhs, rhs }
    };
    Ok(Parsed::Inst(kind, rt))
}

fn shuffle<'a>(p: &mut Parser<'a>, b: &mut Body<'a>) -> PResult<Parsed> {
    let at = p.tok();
    let [(lhs, vt), (rhs, rt)] = b.parse_typed_values(p)?;
    p.expect(Tok::Comma, "`,`")?;
    let mt_at = p.tok();
    let mt = p.parse_type()?;
    let m = p.parse_const(mt)?;
    let i32t = p.intern(Type::Int(32));
    let (Some(_), Some(len)) = (p.vector_len(vt), p.vector_len(mt)) else {
        return Err(p.error_at(at, "invalid shufflevector operands"));
    };
    if vt != rt || p.scalar_of(mt) != i32t {
        return Err(p.error_at(mt_at, "invalid shufflevector operands"));
    }
    let mask: Vec<i32> = match &p.m.constants.get(m).kind {
        ConstKind::Zero => vec![0; len as usize],
        ConstKind::Undef | ConstKind::Poison => vec![-1; len as usize],
        ConstKind::Aggregate(es) => es
            .iter()
            .map(|&e| match p.m.constants.get(e).kind {
                ConstKind::Int(v) => v as u32 as i32,
                _ => -1,
            })
            .collect(),
        _ => return Err(p.error_at(mt_at, "shufflevector mask must be a constant vector")),
    };
    let elem = p.scalar_of(vt);
    let ty = p.intern(Type::Vector { elem, len });
    Ok(Parsed::Inst(InstKind::ShuffleVector { lhs, rhs, mask }, ty))
}

/// `, i, j, ...` of extractvalue/insertvalue (attachments may follow).
fn parse_indices(p: &mut Parser) -> PResult<SmallVec<[u32; 2]>> {
    let mut out = SmallVec::new();
    while p.peek() == Tok::Comma && p.peek_at(1) == Tok::Integer {
        p.bump();
        out.push(p.expect_u32("an index")?);
    }
    if out.is_empty() {
        return Err(p.unexpected("`,` and an index"));
    }
    Ok(out)
}

fn indexed_type(p: &Parser, mut t: TypeId, indices: &[u32], at: Token) -> PResult<TypeId> {
    for &i in indices {
        t = match p.m.types.get(t) {
            Type::Array { elem, len } if (i as u64) < *len => *elem,
            Type::Struct { .. } | Type::Named(_) => {
                p.member_type(t, i as u64).ok_or_else(|| p.error_at(at, "invalid indices"))?
            }
            _ => return Err(p.error_at(at, "invalid indices for an aggregate value")),
        };
    }
    Ok(t)
}

fn alloca<'a>(p: &mut Parser<'a>, b: &mut Body<'a>) -> PResult<Parsed> {
    p.eat_word("inalloca");
    p.eat_word("swifterror");
    let tt = p.tok();
    let ty = p.parse_type()?;
    let mut count = None;
    let mut align = None;
    let mut space = 0;
    while p.eat(Tok::Comma) {
        if p.eat_word("align") {
            align = Some(p.parse_alignment()?);
        } else if p.eat_word("addrspace") {
            space = p.parse_addrspace_number()?;
        } else if p.peek() == Tok::MetadataVar {
            p.bump();
            p.parse_md_attachment_value()?;
        } else if count.is_none() && align.is_none() {
            let at = p.tok();
            let (v, ct) = b.parse_typed_value(p)?;
            if p.int_width(ct).is_none() {
                return Err(p.error_at(at, "element count must have integer type"));
            }
            count = Some(v);
        } else {
            return Err(p.unexpected("`align`, `addrspace` or a metadata attachment"));
        }
    }
    if !p.is_sized(ty) {
        return Err(p.error_at(tt, "Cannot allocate unsized type"));
    }
    let count = match count {
        Some(c) => c,
        None => {
            let i32t = p.intern(Type::Int(32));
            Value::Const(p.konst(i32t, ConstKind::Int(1)))
        }
    };
    let align = match align {
        Some(a) => a,
        None => p.layout.pref_align(&p.m.types, ty),
    };
    let result = p.pointer_to(ty, space);
    Ok(Parsed::Inst(InstKind::Alloca { allocated: ty, count, align }, result))
}

/// `[atomic] [volatile]`.
fn atomic_volatile(p: &mut Parser) -> (bool, bool) {
    let atomic = p.eat_word("atomic");
    let volatile = p.eat_word("volatile");
    (atomic, volatile)
}

/// The pointee of a pointer operand, which must be `expected`.
fn check_pointer_to(p: &Parser, at: Token, ptr_ty: TypeId, expected: TypeId, what: &str) -> PResult<()> {
    match p.m.types.get(ptr_ty) {
        Type::Pointer { pointee, .. } if *pointee == expected => Ok(()),
        Type::Pointer { .. } => {
            Err(p.error_at(at, format!("{what}: explicit pointee type doesn't match operand's pointee type")))
        }
        _ => Err(p.error_at(at, format!("{what} operand must be a pointer"))),
    }
}

fn load<'a>(p: &mut Parser<'a>, b: &mut Body<'a>) -> PResult<Parsed> {
    let (atomic, volatile) = atomic_volatile(p);
    let tt = p.tok();
    let ty = p.parse_type()?;
    let (ptr, align) = access(p, b, ty, Some(tt), atomic, "load")?;
    Ok(Parsed::Inst(InstKind::Load { ptr, align, volatile }, ty))
}

/// The rest of a load or store (`what`) of a `ty` after its leading operand: `,`, the
/// pointer (checked against `ty`), the atomic ordering, the alignment (`ty`'s ABI
/// alignment when absent) and the attachments. An unsized `ty` is reported at `ty_at`, or
/// else at the pointer.
fn access<'a>(
    p: &mut Parser<'a>,
    b: &mut Body<'a>,
    ty: TypeId,
    ty_at: Option<Token>,
    atomic: bool,
    what: &str,
) -> PResult<(Value, u32)> {
    p.expect(Tok::Comma, "`,`")?;
    let at = p.tok();
    let (ptr, pt) = b.parse_typed_value(p)?;
    check_pointer_to(p, at, pt, ty, what)?;
    if atomic {
        skip_syncscope(p)?;
        ordering(p)?;
    }
    let align = parse_align_and_attachments(p)?;
    if !p.is_sized(ty) {
        let verb = if what == "load" { "loading" } else { "storing" };
        return Err(p.error_at(ty_at.unwrap_or(at), format!("{verb} unsized types is not allowed")));
    }
    Ok((ptr, align.unwrap_or_else(|| p.layout.abi_align(&p.m.types, ty))))
}

fn store<'a>(p: &mut Parser<'a>, b: &mut Body<'a>) -> PResult<Parsed> {
    let (atomic, volatile) = atomic_volatile(p);
    let (value, vt) = b.parse_typed_value(p)?;
    let (ptr, align) = access(p, b, vt, None, atomic, "store")?;
    let void = p.intern(Type::Void);
    Ok(Parsed::Inst(InstKind::Store { value, ptr, align, volatile }, void))
}

fn cmpxchg<'a>(p: &mut Parser<'a>, b: &mut Body<'a>) -> PResult<Parsed> {
    let weak = p.eat_word("weak");
    let volatile = p.eat_word("volatile");
    let at = p.tok();
    let [(ptr, pt), (expected, et), (replacement, rt)] = b.parse_typed_values(p)?;
    check_pointer_to(p, at, pt, et, "cmpxchg")?;
    if et != rt {
        return Err(p.error_at(at, "compare value and new value type do not match"));
    }
    skip_syncscope(p)?;
    let success = ordering(p)?;
    let failure = ordering(p)?;
    parse_align_and_attachments(p)?;
    let i1 = p.intern(Type::Int(1));
    let ty = p.intern(Type::Struct { fields: vec![et, i1], packed: false });
    Ok(Parsed::Inst(InstKind::CmpXchg { ptr, expected, replacement, success, failure, weak, volatile }, ty))
}

fn atomicrmw<'a>(p: &mut Parser<'a>, b: &mut Body<'a>) -> PResult<Parsed> {
    let volatile = p.eat_word("volatile");
    let op = {
        use AtomicRmwOp::*;
        let words = "xchg add sub and nand or xor max min umax umin fadd fsub";
        keyword(
            p,
            words,
            [Xchg, Add, Sub, And, Nand, Or, Xor, Max, Min, UMax, UMin, FAdd, FSub],
            "an atomicrmw operation",
        )?
    };
    let at = p.tok();
    let [(ptr, pt), (value, vt)] = b.parse_typed_values(p)?;
    check_pointer_to(p, at, pt, vt, "atomicrmw")?;
    skip_syncscope(p)?;
    let ordering = ordering(p)?;
    parse_align_and_attachments(p)?;
    Ok(Parsed::Inst(InstKind::AtomicRmw { op, ptr, value, ordering, volatile }, vt))
}

fn gep<'a>(p: &mut Parser<'a>, b: &mut Body<'a>) -> PResult<Parsed> {
    let in_bounds = p.eat_word("inbounds");
    let source = p.parse_type()?;
    p.expect(Tok::Comma, "`,`")?;
    let at = p.tok();
    let (base, bt) = b.parse_typed_value(p)?;
    let mut indices = SmallVec::new();
    let mut index_types = Vec::new();
    let mut index_values = Vec::new();
    let mut index_at = Vec::new();
    while p.peek() == Tok::Comma && p.peek_at(1) != Tok::MetadataVar {
        p.bump();
        p.eat_word("inrange");
        index_at.push(p.tok());
        let (v, t) = b.parse_typed_value(p)?;
        index_values.push(match v {
            Value::Const(c) => match p.m.constants.get(c).kind {
                ConstKind::Int(n) => Some(n),
                ConstKind::Zero => Some(0),
                _ => None,
            },
            _ => None,
        });
        indices.push(v);
        index_types.push(t);
    }
    let ty = p.gep_result_type(source, bt, &index_types, &index_values, at, &index_at)?;
    Ok(Parsed::Inst(InstKind::GetElementPtr { source, base, indices, in_bounds }, ty))
}

/// Words between `call` and the type: fast-math flags, calling convention, return
/// attributes, `addrspace(N)`.
fn skip_call_prefix(p: &mut Parser) -> PResult<()> {
    loop {
        let t = p.tok();
        if t.kind != Tok::Word {
            return Ok(());
        }
        let w = p.text(t);
        let is_type = matches!(
            w,
            "void"
                | "half"
                | "float"
                | "double"
                | "x86_fp80"
                | "fp128"
                | "label"
                | "metadata"
                | "token"
                | "ptr"
                | "bfloat"
                | "ppc_fp128"
                | "x86_mmx"
                | "x86_amx"
        ) || (w.len() > 1 && w.starts_with('i') && w[1..].bytes().all(|c| c.is_ascii_digit()));
        if is_type {
            return Ok(());
        }
        p.bump();
        if p.peek() == Tok::LParen {
            p.skip_parens()?;
        } else if matches!(w, "cc" | "align" | "dereferenceable" | "dereferenceable_or_null") {
            p.eat(Tok::Integer);
        }
    }
}

/// Skip a callee's tokens: a name, or a constant expression `op ... ( ... )`.
fn skip_callee(p: &mut Parser) -> PResult<()> {
    let t = p.tok();
    match t.kind {
        Tok::LocalVar | Tok::LocalId | Tok::GlobalVar | Tok::GlobalId => {
            p.bump();
            Ok(())
        }
        Tok::Word if p.text(t) == "asm" => Err(p.unsupported(t, "inline assembly")),
        Tok::Word => {
            while p.peek() == Tok::Word {
                p.bump();
            }
            p.skip_parens()
        }
        _ => Err(p.unexpected("a callee")),
    }
}

fn call<'a>(p: &mut Parser<'a>, b: &mut Body<'a>) -> PResult<Parsed> {
    skip_call_prefix(p)?;
    let tt = p.tok();
    let ty = p.parse_type()?;
    let callee_at = p.pos;
    skip_callee(p)?;
    // Arguments.
    p.expect(Tok::LParen, "`(` with the call's arguments")?;
    let explicit = match p.m.types.get(ty) {
        Type::Function { ret, params, var_arg } => Some((*ret, params.clone(), *var_arg)),
        _ => None,
    };
    let mut args: SmallVec<[Value; 8]> = SmallVec::new();
    let mut arg_types = Vec::new();
    if !p.eat(Tok::RParen) {
        loop {
            let at = p.tok();
            let aty = p.parse_type()?;
            skip_param_attributes(p)?;
            if let Some((_, params, var_arg)) = &explicit {
                match params.get(args.len()) {
                    Some(&want) if want != aty => {
                        return Err(p.error_at(at, format!("argument is not of expected type '{}'", p.describe(want))));
                    }
                    None if !var_arg => return Err(p.error_at(at, "too many arguments specified")),
                    _ => {}
                }
            }
            args.push(b.parse_value(p, aty)?);
            arg_types.push(aty);
            if p.eat(Tok::RParen) {
                break;
            }
            p.expect(Tok::Comma, "`,` or `)` in the argument list")?;
        }
    }
    let args_end = p.pos;
    let (ret, fty) = match explicit {
        Some((ret, params, _)) => {
            if params.len() > args.len() {
                return Err(p.error_at(p.toks[args_end - 1], "too few arguments specified"));
            }
            (ret, ty)
        }
        None => {
            if matches!(p.m.types.get(ty), Type::Label | Type::Metadata) {
                return Err(p.error_at(tt, "invalid result type for a call"));
            }
            (ty, p.intern(Type::Function { ret: ty, params: arg_types, var_arg: false }))
        }
    };
    // Now that the function type is known, read the callee with it.
    p.pos = callee_at;
    let ptr = p.pointer_to(fty, 0);
    let callee = b.parse_value(p, ptr)?;
    p.expect(Tok::LParen, "`(` with the call's arguments")?;
    p.pos = args_end;
    skip_call_attributes(p)?;
    Ok(Parsed::Inst(InstKind::Call { callee, args }, ret))
}

/// Function attributes and operand bundles after a call's arguments.
fn skip_call_attributes(p: &mut Parser) -> PResult<()> {
    loop {
        if skip_attribute_reference(p)? {
            continue;
        }
        match p.peek() {
            Tok::Word if CALL_FN_ATTRIBUTES.contains(&p.text(p.tok())) => {
                p.bump();
                if p.peek() == Tok::LParen {
                    p.skip_parens()?;
                }
            }
            Tok::LSquare => {
                // Operand bundles: `[ "tag"(args), ... ]`.
                let open = p.bump();
                let mut depth = 1u32;
                while depth > 0 {
                    match p.bump().kind {
                        Tok::LSquare => depth += 1,
                        Tok::RSquare => depth -= 1,
                        Tok::Eof => return Err(p.error_at(open, "unbalanced `[` in operand bundles")),
                        _ => {}
                    }
                }
            }
            _ => return Ok(()),
        }
    }
}
