//! The state of one function body being parsed ([`Body`]): local names and numbers,
//! forward references and provisional blocks, and the instructions and blocks read so
//! far. `function` drives the parse; `instructions` reads into it.

use super::lexer::{Tok, Token};
use super::parser::{PResult, Parser};
use crate::ir::{Block, BlockId, Inst, InstId, InstKind, Terminator, Type, TypeId, Value};
use cranelift_entity::{EntityRef, PrimaryMap};
use std::borrow::Cow;
use std::collections::HashMap;

/// A parameter's name: `Some((name, token))` for `%x`, `Some(("", token))` for `%N`.
pub type ParamName = Option<(String, Token)>;

/// Instruction ids at and above this are forward-reference placeholders.
pub(super) const FORWARD_BASE: u32 = 1 << 31;

#[derive(Copy, Clone)]
pub(super) enum Local {
    Value(Value, TypeId),
    /// Used before its definition: index into [`Body::forwards`].
    Forward(u32),
    /// A block, by provisional id.
    Block(u32),
}

pub(super) struct Forward {
    pub(super) ty: TypeId,
    pub(super) at: Token,
    pub(super) resolved: Option<Value>,
}

pub(super) struct ProvisionalBlock {
    pub(super) defined: Option<BlockId>,
    pub(super) first_use: Token,
}

/// What [`super::instructions`] parsed.
pub enum Parsed {
    Inst(InstKind, TypeId),
    Terminator(Terminator),
}

/// The state of one function body being parsed.
pub struct Body<'a> {
    /// Local names as written (borrowed from the text unless unescaping changed them).
    pub(super) names: HashMap<Cow<'a, str>, Local>,
    pub(super) numbered: HashMap<u32, Local>,
    pub(super) next_number: u32,
    pub(super) forwards: Vec<Forward>,
    pub(super) provisional: Vec<ProvisionalBlock>,
    pub(super) insts: PrimaryMap<InstId, Inst>,
    pub(super) blocks: PrimaryMap<BlockId, Block>,
    /// The function's return type (what `ret` must return).
    pub ret: TypeId,
}

impl<'a> Body<'a> {
    pub(super) fn new(ret: TypeId) -> Body<'a> {
        Body {
            ret,
            names: HashMap::new(),
            numbered: HashMap::new(),
            next_number: 0,
            forwards: Vec::new(),
            provisional: Vec::new(),
            insts: PrimaryMap::new(),
            blocks: PrimaryMap::new(),
        }
    }

    pub(super) fn lookup(&self, p: &Parser<'a>, t: Token) -> PResult<Option<Local>> {
        Ok(match t.kind {
            Tok::LocalId => self.numbered.get(&p.number(t)?).copied(),
            _ => self.names.get(p.name(t).as_ref()).copied(),
        })
    }

    pub(super) fn insert(&mut self, p: &Parser<'a>, t: Token, l: Local) -> PResult<()> {
        if t.kind == Tok::LocalId {
            self.numbered.insert(p.number(t)?, l);
        } else {
            self.names.insert(p.name(t), l);
        }
        Ok(())
    }

    /// The local value `t` names, of type `ty` (a placeholder if not defined yet).
    pub fn local_value(&mut self, p: &Parser<'a>, t: Token, ty: TypeId) -> PResult<Value> {
        match self.lookup(p, t)? {
            Some(Local::Value(v, vt)) => {
                if vt != ty {
                    return Err(p.error_at(
                        t,
                        format!(
                            "'{}' defined with type '{}' but expected '{}'",
                            p.text(t),
                            p.describe(vt),
                            p.describe(ty)
                        ),
                    ));
                }
                Ok(v)
            }
            Some(Local::Forward(i)) => {
                let f = &self.forwards[i as usize];
                if f.ty != ty {
                    return Err(p.error_at(
                        t,
                        format!("'{}' used with type '{}' and '{}'", p.text(t), p.describe(f.ty), p.describe(ty)),
                    ));
                }
                Ok(placeholder(i))
            }
            Some(Local::Block(_)) => Err(p.error_at(t, format!("'{}' is a basic block, not a value", p.text(t)))),
            None => {
                if matches!(p.m.types.get(ty), Type::Label | Type::Void) {
                    return Err(p.error_at(t, format!("invalid use of a value of type '{}'", p.describe(ty))));
                }
                let i = self.forwards.len() as u32;
                if i >= FORWARD_BASE {
                    return Err(p.error_at(t, "too many forward references"));
                }
                self.forwards.push(Forward { ty, at: t, resolved: None });
                self.insert(p, t, Local::Forward(i))?;
                Ok(placeholder(i))
            }
        }
    }

    /// The block `t` names (a provisional id).
    pub fn block_ref(&mut self, p: &Parser<'a>, t: Token) -> PResult<BlockId> {
        match self.lookup(p, t)? {
            Some(Local::Block(b)) => Ok(BlockId::from_u32(b)),
            Some(_) => Err(p.error_at(t, format!("'{}' is a value, not a basic block", p.text(t)))),
            None => {
                let b = self.provisional.len() as u32;
                self.provisional.push(ProvisionalBlock { defined: None, first_use: t });
                self.insert(p, t, Local::Block(b))?;
                Ok(BlockId::from_u32(b))
            }
        }
    }

    /// `label %x`.
    pub fn parse_label(&mut self, p: &mut Parser<'a>) -> PResult<BlockId> {
        p.expect_word("label")?;
        self.parse_block_name(p)
    }

    /// `%x` naming a block.
    pub fn parse_block_name(&mut self, p: &mut Parser<'a>) -> PResult<BlockId> {
        let t = p.tok();
        if !matches!(t.kind, Tok::LocalVar | Tok::LocalId) {
            return Err(p.unexpected("a block name"));
        }
        p.bump();
        self.block_ref(p, t)
    }

    /// A value of type `ty`: a local, a global, a constant, or metadata.
    pub fn parse_value(&mut self, p: &mut Parser<'a>, ty: TypeId) -> PResult<Value> {
        let t = p.tok();
        match t.kind {
            Tok::LocalVar | Tok::LocalId => {
                p.bump();
                self.local_value(p, t, ty)
            }
            _ if matches!(p.m.types.get(ty), Type::Metadata) => {
                // `metadata !5`, `metadata !{...}`, `metadata !"s"`, `metadata i32 %x`: not
                // modelled (the LLVM front end keeps `Value::Metadata` too).
                if matches!(p.peek(), Tok::MetadataId | Tok::MetadataVar | Tok::Exclaim) {
                    p.parse_md_attachment_value()?;
                } else {
                    let vt = p.parse_type()?;
                    if matches!(p.m.types.get(vt), Type::Metadata) {
                        return Err(p.error_at(t, "invalid metadata-value-metadata roundtrip"));
                    }
                    self.parse_value(p, vt)?;
                }
                Ok(Value::Metadata)
            }
            _ => {
                let c = p.parse_const(ty)?;
                Ok(p.const_value(c))
            }
        }
    }

    /// `type value`.
    pub fn parse_typed_value(&mut self, p: &mut Parser<'a>) -> PResult<(Value, TypeId)> {
        let ty = p.parse_type()?;
        Ok((self.parse_value(p, ty)?, ty))
    }

    /// `N` comma-separated `type value` operands (`N` at least 1).
    pub fn parse_typed_values<const N: usize>(&mut self, p: &mut Parser<'a>) -> PResult<[(Value, TypeId); N]> {
        let first = self.parse_typed_value(p)?;
        let mut out = [first; N];
        for slot in out.iter_mut().skip(1) {
            p.expect(Tok::Comma, "`,`")?;
            *slot = self.parse_typed_value(p)?;
        }
        Ok(out)
    }

    /// Give the next number to an unnamed value or block, or check an explicit one.
    pub(super) fn take_number(&mut self, p: &Parser<'a>, t: Option<Token>) -> PResult<u32> {
        let n = self.next_number;
        if let Some(t) = t {
            let got = p.number(t)?;
            if got != n {
                let what = if t.kind == Tok::Label { "label" } else { "instruction" };
                return Err(p.error_at(t, format!("{what} expected to be numbered '%{n}'")));
            }
        }
        self.next_number += 1;
        Ok(n)
    }

    /// Define a local value (argument or instruction result) named by `t` (`None`:
    /// unnamed, takes the next number).
    pub(super) fn define_value(&mut self, p: &Parser<'a>, t: Option<Token>, v: Value, ty: TypeId) -> PResult<()> {
        let key_numbered = match t {
            Some(t) if t.kind == Tok::LocalVar => None,
            other => Some(self.take_number(p, other)?),
        };
        let existing = match (key_numbered, t) {
            (Some(n), _) => self.numbered.get(&n).copied(),
            (None, Some(t)) => self.names.get(p.name(t).as_ref()).copied(),
            _ => None,
        };
        let err_at = t.unwrap_or_else(|| p.tok());
        match existing {
            None => {}
            Some(Local::Forward(i)) => {
                let f = &mut self.forwards[i as usize];
                if f.ty != ty {
                    return Err(p.error_at(
                        f.at,
                        format!(
                            "'{}' defined with type '{}' but expected '{}'",
                            p.text(f.at),
                            p.describe(ty),
                            p.describe(f.ty)
                        ),
                    ));
                }
                f.resolved = Some(v);
            }
            Some(Local::Block(_)) => {
                return Err(p.error_at(err_at, format!("'{}' is used as a basic block", p.text(err_at))));
            }
            Some(Local::Value(..)) => {
                return Err(
                    p.error_at(err_at, format!("multiple definition of local value named '{}'", p.text(err_at)))
                );
            }
        }
        match (key_numbered, t) {
            (Some(n), _) => {
                self.numbered.insert(n, Local::Value(v, ty));
            }
            (None, Some(t)) => {
                self.names.insert(p.name(t), Local::Value(v, ty));
            }
            _ => {}
        }
        Ok(())
    }

    /// Start a block: `label` is its `name:` token, or `None` for an unnamed block.
    pub(super) fn define_block(&mut self, p: &Parser<'a>, label: Option<Token>) -> PResult<(u32, Option<String>)> {
        let numbered = match label {
            Some(t) => p.text(t).trim_end_matches(':').bytes().all(|b| b.is_ascii_digit()),
            None => true,
        };
        let (existing, name) = if numbered {
            let n = self.take_number(p, label)?;
            (self.numbered.get(&n).copied(), None)
        } else {
            let t = label.unwrap_or_else(|| p.tok());
            let name = p.name(t);
            (self.names.get(&name).copied(), Some(name))
        };
        let err_at = label.unwrap_or_else(|| p.tok());
        let prov = match existing {
            None => {
                let b = self.provisional.len() as u32;
                self.provisional.push(ProvisionalBlock { defined: None, first_use: err_at });
                match &name {
                    Some(n) => self.names.insert(n.clone(), Local::Block(b)),
                    None => self.numbered.insert(self.next_number - 1, Local::Block(b)),
                };
                b
            }
            Some(Local::Block(b)) if self.provisional[b as usize].defined.is_none() => b,
            Some(_) => return Err(p.error_at(err_at, format!("redefinition of '{}'", p.text(err_at)))),
        };
        Ok((prov, name.map(Cow::into_owned)))
    }

    /// Rewrite placeholders and provisional block ids; report undefined ones.
    pub(super) fn resolve(&mut self, p: &Parser<'a>) -> PResult<()> {
        let mut values = Vec::with_capacity(self.forwards.len());
        for f in &self.forwards {
            match f.resolved {
                Some(v) => values.push(v),
                None => return Err(p.error_at(f.at, format!("use of undefined value '{}'", p.text(f.at)))),
            }
        }
        let mut blocks = Vec::with_capacity(self.provisional.len());
        for b in &self.provisional {
            match b.defined {
                Some(id) => blocks.push(id),
                None => {
                    return Err(p.error_at(b.first_use, format!("use of undefined value '{}'", p.text(b.first_use))))
                }
            }
        }
        let value = |v: &mut Value| {
            if let Value::Inst(i) = *v {
                if i.as_u32() >= FORWARD_BASE {
                    *v = values[(i.as_u32() - FORWARD_BASE) as usize];
                }
            }
        };
        for inst in self.insts.values_mut() {
            for_each_value(&mut inst.kind, value);
            if let InstKind::Phi { incoming } = &mut inst.kind {
                for (_, b) in incoming.iter_mut() {
                    *b = blocks[b.index()];
                }
            }
        }
        for block in self.blocks.values_mut() {
            match &mut block.terminator {
                Terminator::Ret { value: Some(v) }
                | Terminator::CondBr { cond: v, .. }
                | Terminator::Switch { value: v, .. } => value(v),
                _ => {}
            }
            for b in block.terminator.successors_mut() {
                *b = blocks[b.index()];
            }
        }
        Ok(())
    }
}

pub(super) fn placeholder(i: u32) -> Value {
    Value::Inst(InstId::from_u32(FORWARD_BASE + i))
}

/// Apply `f` to every value operand of an instruction.
pub(super) fn for_each_value(k: &mut InstKind, mut f: impl FnMut(&mut Value)) {
    use InstKind::*;
    match k {
        Phi { incoming } => incoming.iter_mut().for_each(|(v, _)| f(v)),
        // Two operands, in operand order.
        Binary { lhs: a, rhs: b, .. }
        | ICmp { lhs: a, rhs: b, .. }
        | FCmp { lhs: a, rhs: b, .. }
        | ShuffleVector { lhs: a, rhs: b, .. }
        | InsertValue { aggregate: a, element: b, .. }
        | ExtractElement { vector: a, index: b }
        | Store { value: a, ptr: b, .. }
        | AtomicRmw { ptr: a, value: b, .. } => {
            f(a);
            f(b);
        }
        // Three operands, in operand order.
        Select { cond: a, if_true: b, if_false: c }
        | InsertElement { vector: a, element: b, index: c }
        | CmpXchg { ptr: a, expected: b, replacement: c, .. } => {
            f(a);
            f(b);
            f(c);
        }
        FNeg { value }
        | Cast { value, .. }
        | Freeze { value }
        | VaArg { list: value }
        | Load { ptr: value, .. }
        | ExtractValue { aggregate: value, .. }
        | Alloca { count: value, .. } => f(value),
        GetElementPtr { base, indices, .. } => {
            f(base);
            indices.iter_mut().for_each(f);
        }
        Fence { .. } => {}
        Call { callee, args } => {
            f(callee);
            args.iter_mut().for_each(f);
        }
    }
}
