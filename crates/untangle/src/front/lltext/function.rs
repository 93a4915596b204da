//! Function bodies (LangRef, "Functions", "Identifiers"): blocks, local names, numbering
//! and forward references.
//!
//! Numbering follows the LLVM front end (`crate::front::llvm::convert`): blocks get ids in
//! textual order, non-terminator instructions (void ones included) get ids in textual
//! order across blocks, arguments are `Value::Arg(i)`. LLVM's own rules for names apply:
//! arguments, blocks and instructions share one namespace per function; unnamed
//! arguments, blocks and non-void instructions take the next number, and an explicit
//! `%N`/`N:` must be that number; void instructions cannot be named.
//!
//! Forward references are resolved with placeholders, so every name is looked up once:
//! a value used before its definition becomes `Value::Inst` with an id at
//! `FORWARD_BASE` + its forward slot, and a block is referred to by a provisional id
//! (first mention order) until the block is defined. One pass at the end of the body
//! rewrites placeholders (values) and provisional ids (blocks), and reports any that were
//! never defined, at the token that used them. Types of forward-referenced values are
//! checked at the definition. Cost: linear in the body.

use super::body::{for_each_value, Body, ParamName, Parsed};
use super::lexer::Tok;
use super::parser::{PResult, Parser};
use crate::ir::{Block, BlockId, FuncId, Function, Inst, InstId, InstKind, Module, Terminator, TypeId, Value};
use cranelift_entity::{EntityRef, PrimaryMap};

/// Parse a function body (the cursor is at `{`) into function `f`.
pub fn parse_body(p: &mut Parser<'_>, f: FuncId, params: &[ParamName]) -> PResult<()> {
    let (named, numbered) = p.locals.of_function_at(p.pos);
    let open = p.expect(Tok::LBrace, "`{` to start the function body")?;
    let mut b = Body::new(p.m.functions[f].ret);
    b.names.reserve(named);
    b.numbered.reserve(numbered);
    let param_types: Vec<TypeId> = p.m.functions[f].params.iter().map(|x| x.ty).collect();
    for (i, (name, &ty)) in params.iter().zip(&param_types).enumerate() {
        b.define_value(p, name.as_ref().map(|(_, t)| *t), Value::Arg(i as u32), ty)?;
    }
    if p.peek() == Tok::RBrace {
        return Err(p.error_at(open, "function body requires at least one basic block"));
    }
    while !p.eat(Tok::RBrace) {
        parse_block(p, &mut b)?;
    }
    b.resolve(p)?;
    let func: &mut Function = &mut p.m.functions[f];
    func.layout = b.blocks.keys().collect();
    func.blocks = b.blocks;
    func.insts = b.insts;
    Ok(())
}

fn parse_block<'a>(p: &mut Parser<'a>, b: &mut Body<'a>) -> PResult<()> {
    let label = if p.peek() == Tok::Label { Some(p.bump()) } else { None };
    let (prov, name) = b.define_block(p, label)?;
    let id = BlockId::new(b.blocks.len());
    b.provisional[prov as usize].defined = Some(id);
    let mut insts = Vec::new();
    loop {
        let start = p.tok();
        // `%x = ` / `%N = `
        let result = if matches!(start.kind, Tok::LocalVar | Tok::LocalId) && p.peek_at(1) == Tok::Equal {
            p.bump();
            p.bump();
            Some(start)
        } else {
            None
        };
        if matches!(p.peek(), Tok::RBrace | Tok::Eof | Tok::Label) {
            return Err(p.unexpected("an instruction opcode"));
        }
        match super::instructions::parse_instruction(p, b)? {
            Parsed::Terminator(t) => {
                if let Some(r) = result {
                    return Err(p.error_at(r, "instructions returning void cannot have a name"));
                }
                b.blocks.push(Block { name, insts, terminator: t });
                return Ok(());
            }
            Parsed::Inst(kind, ty) => {
                let iid = InstId::new(b.insts.len());
                let is_void = p.m.types.is_void(ty);
                if is_void {
                    if let Some(r) = result {
                        return Err(p.error_at(r, "instructions returning void cannot have a name"));
                    }
                } else {
                    b.define_value(p, result, Value::Inst(iid), ty)?;
                }
                let inst_name = result.filter(|r| r.kind == Tok::LocalVar).map(|r| p.name(r).into_owned());
                b.insts.push(Inst { name: inst_name, ty, kind });
                insts.push(iid);
            }
        }
    }
}

/// `StripDebugInfo`'s removal of debug intrinsic calls (`llvm.dbg.declare`/`value`/
/// `addr`/`label`), applied when the module has no version-3 debug info. The calls are
/// void, so nothing refers to them; the remaining instructions are renumbered in order.
pub fn strip_debug_intrinsic_calls(m: &mut Module) {
    let dbg: Vec<FuncId> = m
        .functions
        .iter()
        .filter(|(_, f)| {
            matches!(f.name.as_str(), "llvm.dbg.declare" | "llvm.dbg.value" | "llvm.dbg.addr" | "llvm.dbg.label")
        })
        .map(|(id, _)| id)
        .collect();
    if dbg.is_empty() {
        return;
    }
    let is_dbg = |k: &InstKind| matches!(k, InstKind::Call { callee: Value::Func(c), .. } if dbg.contains(c));
    for f in m.functions.values_mut() {
        if !f.insts.values().any(|i| is_dbg(&i.kind)) {
            continue;
        }
        let old = std::mem::take(&mut f.insts);
        let mut map: Vec<Option<InstId>> = Vec::with_capacity(old.len());
        let mut insts = PrimaryMap::new();
        for (_, inst) in old {
            if is_dbg(&inst.kind) {
                map.push(None);
            } else {
                map.push(Some(insts.push(inst)));
            }
        }
        for inst in insts.values_mut() {
            for_each_value(&mut inst.kind, |v| {
                if let Value::Inst(i) = *v {
                    if let Some(Some(n)) = map.get(i.index()) {
                        *v = Value::Inst(*n);
                    }
                }
            });
        }
        for block in f.blocks.values_mut() {
            block.insts = block.insts.iter().filter_map(|i| map.get(i.index()).copied().flatten()).collect();
            match &mut block.terminator {
                Terminator::Ret { value: Some(v) }
                | Terminator::CondBr { cond: v, .. }
                | Terminator::Switch { value: v, .. } => {
                    if let Value::Inst(i) = *v {
                        if let Some(Some(n)) = map.get(i.index()) {
                            *v = Value::Inst(*n);
                        }
                    }
                }
                _ => {}
            }
        }
        f.insts = insts;
    }
}
