//! Metadata (LangRef, "Metadata": strings, tuples, named metadata, attachments) into
//! [`crate::ir::MetadataTable`].
//!
//! Parsing keeps every node raw in [`MdTable::slots`] (numbered `!N = ...` definitions and
//! inline `!{...}` operands alike; forward references get a slot at first mention and are
//! checked for a definition at the end). Conversion then reproduces what the LLVM front end
//! sees after LLVM's uniquing: non-`distinct` tuples with the same operands are one node,
//! equal strings are one string, equal constants one value; and it numbers them in that
//! front end's walk: named metadata in module order, each operand given an id when first
//! met, tuples filled from a LIFO work list (`crate::front::llvm::metadata`). Specialised nodes
//! (`!DILocation(...)` and other debug-info records) are skipped when parsed; reaching one
//! from named metadata is an error (our IR does not model their operands).
//!
//! Debug info follows LLVM's reader (`UpgradeDebugInfo`): without a `"Debug Info Version"`
//! module flag of 3, named metadata `llvm.dbg.*`/`llvm.gcov` is dropped (and
//! [`super::module`] drops calls to `llvm.dbg.*` intrinsics).
//!
//! Cost: linear in the metadata (hashing each node's operand list once); the uniquing
//! walk and the conversion use explicit stacks, so deep or cyclic graphs cannot overflow.

use super::lexer::{Tok, Token};
use super::parser::{PResult, Parser};
use super::tables::{MdOperand, RawNode};
use crate::ir::{MdId, Value};
use std::collections::HashMap;

/// Identity of a converted metadata operand (what LLVM's uniquing makes one object).
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Node(u32),
    String(String),
    Value(Value),
}

impl Parser<'_> {
    /// The slot of `!N`, creating an undefined one at its first mention.
    fn md_slot(&mut self, t: Token) -> PResult<u32> {
        let n = self.number(t)?;
        if let Some(&s) = self.md.numbered.get(&n) {
            return Ok(s);
        }
        let s = self.new_slot(RawNode::Undefined(t));
        self.md.numbered.insert(n, s);
        Ok(s)
    }

    fn new_slot(&mut self, node: RawNode) -> u32 {
        self.md.slots.push(node);
        (self.md.slots.len() - 1) as u32
    }

    /// `!N = [distinct] !{...}` or `!N = [distinct] !DIxxx(...)` at the top level.
    pub fn parse_md_definition(&mut self) -> PResult<()> {
        let t = self.bump();
        let slot = self.md_slot(t)?;
        if !matches!(self.md.slots[slot as usize], RawNode::Undefined(_)) {
            return Err(self.error_at(t, format!("metadata id {} is already used", self.text(t))));
        }
        self.expect(Tok::Equal, "`=` after a metadata id")?;
        let distinct = self.eat_word("distinct");
        let node = match self.peek() {
            Tok::Exclaim if self.peek_at(1) == Tok::LBrace => {
                self.bump();
                RawNode::Tuple { distinct, ops: self.parse_md_tuple_body()? }
            }
            Tok::MetadataVar if self.peek_at(1) == Tok::LParen => self.parse_specialized()?,
            _ => return Err(self.unexpected("`!{` or a specialized metadata node")),
        };
        self.md.slots[slot as usize] = node;
        Ok(())
    }

    /// `!name = !{!0, !1, ...}`.
    pub fn parse_named_md(&mut self) -> PResult<()> {
        let t = self.bump();
        let name = self.name(t).into_owned();
        self.expect(Tok::Equal, "`=` after a named metadata name")?;
        self.expect(Tok::Exclaim, "`!{`")?;
        self.expect(Tok::LBrace, "`!{`")?;
        let ops = self.list_until(Tok::RBrace, "`,` or `}`", |p| {
            let at = p.expect(Tok::MetadataId, "a metadata reference `!N`")?;
            p.md_slot(at)
        })?;
        // A repeated name appends, as LLVM's `getOrInsertNamedMetadata` does.
        self.md.named.entry(name).or_default().extend(ops);
        Ok(())
    }

    /// The operands of `{ ... }` (the `!` is consumed, the cursor is at `{`).
    fn parse_md_tuple_body(&mut self) -> PResult<Vec<MdOperand>> {
        self.expect(Tok::LBrace, "`{`")?;
        self.list_until(Tok::RBrace, "`,` or `}` in a metadata tuple", Self::parse_md_operand)
    }

    fn parse_md_operand(&mut self) -> PResult<MdOperand> {
        self.enter()?;
        let r = self.parse_md_operand_inner();
        self.leave();
        r
    }

    fn parse_md_operand_inner(&mut self) -> PResult<MdOperand> {
        if self.eat_word("null") {
            return Ok(MdOperand::Null);
        }
        if let Some(node) = self.parse_md_node_opt()? {
            return Ok(MdOperand::Node(node));
        }
        if self.peek() == Tok::Exclaim && self.peek_at(1) == Tok::String {
            self.bump();
            let s = self.bump();
            return Ok(MdOperand::String(String::from_utf8_lossy(&self.string_bytes(s)).into_owned()));
        }
        let at = self.tok();
        let ty = self.parse_type()?;
        if matches!(self.m.types.get(ty), crate::ir::Type::Metadata | crate::ir::Type::Void | crate::ir::Type::Label) {
            return Err(self.error_at(at, format!("invalid type `{}` for a metadata value", self.describe(ty))));
        }
        let c = self.parse_const(ty)?;
        Ok(MdOperand::Value(ty, self.const_value(c)))
    }

    /// A node operand, if one starts here: `!N`, `!{...}` or `!DIxxx(...)`.
    pub fn parse_md_node_opt(&mut self) -> PResult<Option<u32>> {
        match self.peek() {
            Tok::MetadataId => {
                let t = self.bump();
                Ok(Some(self.md_slot(t)?))
            }
            Tok::Exclaim if self.peek_at(1) == Tok::LBrace => {
                self.bump();
                let ops = self.parse_md_tuple_body()?;
                Ok(Some(self.new_slot(RawNode::Tuple { distinct: false, ops })))
            }
            Tok::MetadataVar if self.peek_at(1) == Tok::LParen => {
                let node = self.parse_specialized()?;
                Ok(Some(self.new_slot(node)))
            }
            _ => Ok(None),
        }
    }

    /// Metadata as an attachment or call argument (`!5`, `!{...}`, `!"s"`, `!DI...(...)`).
    pub fn parse_md_attachment_value(&mut self) -> PResult<()> {
        if self.parse_md_node_opt()?.is_some() {
            return Ok(());
        }
        if self.peek() == Tok::Exclaim && self.peek_at(1) == Tok::String {
            self.bump();
            self.bump();
            return Ok(());
        }
        Err(self.unexpected("metadata"))
    }

    /// `!DIxxx(field: value, ...)`: skipped, but `!N` references inside are registered so
    /// that undefined ones are reported.
    fn parse_specialized(&mut self) -> PResult<RawNode> {
        let name = self.bump();
        let open = self.expect(Tok::LParen, "`(`")?;
        self.balanced(open, (Tok::LParen, Tok::RParen), "unbalanced `(` in a specialized metadata node", |p, t, _| {
            if t.kind == Tok::MetadataId {
                p.md_slot(t)?;
            }
            Ok(())
        })?;
        Ok(RawNode::Specialized(name))
    }

    /// Every `!N` that was referenced is defined.
    pub fn check_md_defined(&self) -> PResult<()> {
        for node in &self.md.slots {
            if let RawNode::Undefined(t) = node {
                return Err(self.error_at(*t, format!("use of undefined metadata '{}'", self.text(*t))));
            }
        }
        Ok(())
    }

    /// The `"Debug Info Version"` module flag, 0 if absent (LLVM's
    /// `getDebugMetadataVersionFromModule`).
    pub fn debug_info_version(&self) -> u64 {
        let Some(flags) = self.md.named.get("llvm.module.flags") else { return 0 };
        for &f in flags {
            let RawNode::Tuple { ops, .. } = &self.md.slots[f as usize] else { continue };
            if let (Some(MdOperand::String(key)), Some(MdOperand::Value(_, Value::Const(c)))) = (ops.get(1), ops.get(2))
            {
                if key == "Debug Info Version" {
                    return match self.m.constants.get(*c).kind {
                        crate::ir::ConstKind::Int(v) => v,
                        _ => 0,
                    };
                }
            }
        }
        0
    }

    /// Drop debug-info named metadata (`UpgradeDebugInfo` without a version-3 flag).
    pub fn strip_debug_named_md(&mut self) {
        self.md.named.retain(|name, _| !(name.starts_with("llvm.dbg.") || name == "llvm.gcov"));
    }

    /// Representative slot of every node after uniquing (see the module docs).
    fn unique_nodes(&self) -> Vec<u32> {
        let n = self.md.slots.len();
        let mut rep: Vec<u32> = (0..n as u32).collect();
        // 0 = unvisited, 1 = on the stack, 2 = done.
        let mut state = vec![0u8; n];
        let mut table: HashMap<Vec<MdOperand>, u32> = HashMap::new();
        let mut in_cycle = vec![false; n];
        for root in 0..n {
            if state[root] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            state[root] = 1;
            while let Some(&mut (s, ref mut next)) = stack.last_mut() {
                let ops: &[MdOperand] = match &self.md.slots[s] {
                    RawNode::Tuple { ops, .. } => ops,
                    _ => &[],
                };
                if let Some(op) = ops.get(*next) {
                    *next += 1;
                    if let MdOperand::Node(c) = op {
                        let c = *c as usize;
                        match state[c] {
                            0 => {
                                state[c] = 1;
                                stack.push((c, 0));
                            }
                            // A back edge: nodes on a cycle keep their own identity.
                            1 => in_cycle[c] = true,
                            _ => {}
                        }
                    }
                    continue;
                }
                stack.pop();
                state[s] = 2;
                if let RawNode::Tuple { distinct: false, ops } = &self.md.slots[s] {
                    let cyclic =
                        in_cycle[s] || ops.iter().any(|o| matches!(o, MdOperand::Node(c) if state[*c as usize] == 1));
                    if !cyclic {
                        let key: Vec<MdOperand> = ops
                            .iter()
                            .map(|o| match o {
                                MdOperand::Node(c) => MdOperand::Node(rep[*c as usize]),
                                other => other.clone(),
                            })
                            .collect();
                        rep[s] = *table.entry(key).or_insert(s as u32);
                    }
                }
            }
        }
        rep
    }

    /// Build [`crate::ir::MetadataTable`] from the named metadata, in the LLVM front end's
    /// order.
    pub fn convert_metadata(&mut self) -> PResult<()> {
        let rep = self.unique_nodes();
        let mut ids: HashMap<Key, MdId> = HashMap::new();
        let mut work: Vec<(u32, MdId)> = Vec::new();
        let named = std::mem::take(&mut self.md.named);
        let mut list = Vec::new();
        for (name, ops) in &named {
            list.clear();
            for &op in ops {
                let id = self.md_id(&rep, &mut ids, &mut work, &MdOperand::Node(op))?;
                list.extend(id);
            }
            self.m.metadata.set_named(name, &list);
            while let Some((slot, id)) = work.pop() {
                // The slot's operands are taken out while they are converted (`md_id` reads
                // other slots only to reject specialised nodes) and put back after.
                let ops = match &mut self.md.slots[slot as usize] {
                    RawNode::Tuple { ops, .. } => std::mem::take(ops),
                    _ => Vec::new(),
                };
                // `md_id` pushes only placeholders for tuples, never operands, so this
                // tuple's operands stay one run of the pool.
                let run = self.m.metadata.begin_operands();
                for op in &ops {
                    let id = self.md_id(&rep, &mut ids, &mut work, op)?;
                    self.m.metadata.push_operand(id);
                }
                self.m.metadata.end_operands(id, run);
                if let RawNode::Tuple { ops: slot_ops, .. } = &mut self.md.slots[slot as usize] {
                    *slot_ops = ops;
                }
            }
        }
        self.md.named = named;
        Ok(())
    }

    fn md_id(
        &mut self,
        rep: &[u32],
        ids: &mut HashMap<Key, MdId>,
        work: &mut Vec<(u32, MdId)>,
        op: &MdOperand,
    ) -> PResult<Option<MdId>> {
        let key = match op {
            MdOperand::Null => return Ok(None),
            MdOperand::Node(s) => Key::Node(rep[*s as usize]),
            MdOperand::String(s) => Key::String(s.clone()),
            MdOperand::Value(_, v) => Key::Value(*v),
        };
        if let Some(&id) = ids.get(&key) {
            return Ok(Some(id));
        }
        let id = match op {
            MdOperand::Node(s) => match &self.md.slots[rep[*s as usize] as usize] {
                RawNode::Specialized(t) => {
                    return Err(self.unsupported(
                        *t,
                        &format!("specialized metadata node `{}` reachable from named metadata", self.text(*t)),
                    ))
                }
                _ => {
                    let id = self.m.metadata.push_placeholder();
                    work.push((rep[*s as usize], id));
                    id
                }
            },
            MdOperand::String(s) => self.m.metadata.push_string(s),
            MdOperand::Value(ty, v) => self.m.metadata.push_value(*ty, *v),
            // Returned early above.
            MdOperand::Null => self.m.metadata.push_other(),
        };
        ids.insert(key, id);
        Ok(Some(id))
    }
}
