//! AMD AGS WMMA matrices kept in local arrays: DXC lowers `WMMA_Matrix m[N]` to an
//! `alloca [8N x i32]` whose word `k` of matrix `i` sits at index `8 i + k` (vkd3d-proton's
//! `test_wmma_alloca`). A matrix's words are opaque (`ags_wmma.rs`), so such an alloca
//! becomes a `Function` variable of `N` cooperative matrices, accessed whole.
//!
//! Planned once per function (`FnEmit::wmma_plan_slots`, before its variables), per
//! alloca of `i32`s whose count is a multiple of 8 and to which a matrix word is stored:
//! - every use of the alloca is a `getelementptr [.., 0, index]` (or a pointer cast that
//!   only lifetime markers use), and every use of those is a load or a store of an `i32`;
//! - an index is a constant `c` (matrix `c / 8`, word `c % 8`), or `add`/`or` of a word
//!   constant `k < 8` and `mul(i, 8)` / `shl(i, 3)` (matrix `i`, word `k`), or the latter
//!   alone (word 0);
//! - stores come in groups, per block and matrix index: 8 stores, words 0..7, of the 8
//!   words of one matrix, with no other access to the alloca between the group's first
//!   and last store; the matrix is stored whole (`OpStore` through `OpAccessChain`) at the
//!   last one;
//! - loads come in groups, per block and matrix index, each word at most once, with no
//!   store to the alloca between the group's first and last load; the matrix is loaded
//!   whole at the first one, and each load's result is that matrix's word (an undefined
//!   `u32`, which only magic-UAV calls read; the word check enforces that).
//!
//! Invariant: the per-group orders make the whole-matrix accesses see the same words the
//! word accesses saw (no access of the alloca falls between a group's first and last
//! member). A matrix alloca that does not match exactly is left alone, and the word check
//! (`FnEmit::wmma_check_words`) refuses its store of a matrix word with the reason
//! recorded here, naming the instruction. The variable's matrix type is the first stored
//! matrix's; a store of another type, or a load emitted before any store, is refused.
//! Cost: one pass over the function's instructions per function with WMMA calls.

use crate::dxil::ags::{MatrixType, Opcode};
use crate::emit::error::{Error, Result, VendorRefusal};
use crate::emit::{FnEmit, Slot, SlotAccess};
use crate::ir::hash::HashMap;
use crate::ir::{BinaryOp, BlockId, InstId, InstKind, Type, Value};
use rspirv::spirv::{Op, StorageClass, Word};

/// One word access of a candidate alloca, in block order.
struct Access {
    block: BlockId,
    pos: usize,
    inst: InstId,
    slot: Slot,
    k: u32,
    /// The stored value (`None`: a load).
    stored: Option<Value>,
}

impl<'a, 'm> FnEmit<'a, 'm> {
    #[cold]
    fn wmma_slot_refuse(&self, why: impl Into<String>) -> Error {
        self.ags_error("an alloca of WMMA matrix words".into(), VendorRefusal::NotLowered(why.into()))
    }

    /// Plans the matrix allocas (`Wmma::slots`). `word` maps each output word to its
    /// matrix's word-0 instruction and its index; the loads planned here join it (a load
    /// group's leader standing for its matrix). A matrix alloca that does not match is left
    /// out, its reason kept in `Wmma::slot_refusals`.
    pub(in crate::emit) fn wmma_plan_slots(&mut self, word: &mut HashMap<InstId, (InstId, u32)>) {
        let f = self.f;
        let types = &self.cx.m.types;
        let candidates: Vec<InstId> = f
            .layout
            .iter()
            .flat_map(|&b| f.blocks[b].insts.iter().copied())
            .filter(|&i| match &f.insts[i].kind {
                InstKind::Alloca { allocated, count, .. } => {
                    self.const_int(*count) == Some(1)
                        && matches!(types.get(*allocated), Type::Array { elem, len }
                            if *len % 8 == 0 && *len > 0 && matches!(types.get(*elem), Type::Int(32)))
                }
                _ => false,
            })
            .collect();
        for a in candidates {
            match self.wmma_slot_accesses(a, word) {
                Ok(None) => {}
                Ok(Some(plan)) => {
                    for (i, access) in plan {
                        if let SlotAccess::Load { k, leader, .. } = access {
                            word.insert(i, (leader, k));
                        }
                        self.wmma.slots.insert(i, access);
                    }
                }
                Err(why) => {
                    self.wmma.slot_refusals.insert(a, why);
                }
            }
        }
    }

    /// The plan of alloca `a`: `None` when no matrix word is stored to it, `Err` (the
    /// reason) when it holds matrix words but does not match.
    #[allow(clippy::type_complexity)]
    fn wmma_slot_accesses(
        &self,
        a: InstId,
        word: &HashMap<InstId, (InstId, u32)>,
    ) -> std::result::Result<Option<Vec<(InstId, SlotAccess)>>, String> {
        let f = self.f;
        let InstKind::Alloca { allocated, .. } = f.insts[a].kind else { return Ok(None) };
        let Type::Array { len, .. } = *self.cx.m.types.get(allocated) else { return Ok(None) };
        let count = (len / 8) as u32;
        let mut plan = vec![(a, SlotAccess::Address)];
        let mut addresses: HashMap<InstId, (Slot, u32)> = HashMap::default();
        let mut casts = Vec::new();
        let mut bad: Option<String> = None;
        let mut accesses = Vec::new();
        let mut any_word = false;
        // Uses of the alloca first (addresses are defined before their uses in block order
        // only within a block, so collect them over the whole function before the accesses).
        for &b in &f.layout {
            for &i in &f.blocks[b].insts {
                let kind = &f.insts[i].kind;
                let mut uses = false;
                kind.for_each_operand(|v| uses |= v == Value::Inst(a));
                if !uses {
                    continue;
                }
                match kind {
                    InstKind::GetElementPtr { base, indices, .. }
                        if *base == Value::Inst(a) && indices.len() == 2 && self.const_int(indices[0]) == Some(0) =>
                    {
                        match self.wmma_slot_index(indices[1]) {
                            Some((Slot::Const(s), _)) if s >= count => {
                                bad.get_or_insert(format!("matrix {s} of {count} is out of range ({i:?})"));
                            }
                            Some(x) => {
                                addresses.insert(i, x);
                                plan.push((i, SlotAccess::Address));
                            }
                            None => {
                                bad.get_or_insert(format!("an index is not `8 i + k` ({i:?})"));
                            }
                        }
                    }
                    InstKind::Cast { .. } => casts.push(i),
                    _ => {
                        bad.get_or_insert(format!("the alloca is used other than by an address ({i:?})"));
                    }
                }
            }
        }
        for &b in &f.layout {
            for (pos, &i) in f.blocks[b].insts.iter().enumerate() {
                let kind = &f.insts[i].kind;
                let mut uses: Option<InstId> = None;
                kind.for_each_operand(|v| match v {
                    Value::Inst(x) if addresses.contains_key(&x) => uses = Some(x),
                    Value::Inst(x) if casts.contains(&x) && !is_lifetime_marker(self.cx.m, kind) => {
                        bad.get_or_insert(format!(
                            "a cast of the alloca is used other than by lifetime markers ({i:?})"
                        ));
                    }
                    _ => {}
                });
                let Some(g) = uses else { continue };
                let (slot, k) = addresses[&g];
                match *kind {
                    InstKind::Load { ptr, .. } if ptr == Value::Inst(g) => {
                        accesses.push(Access { block: b, pos, inst: i, slot, k, stored: None });
                    }
                    InstKind::Store { ptr, value, .. } if ptr == Value::Inst(g) && value != Value::Inst(g) => {
                        any_word |= matches!(value, Value::Inst(x) if word.contains_key(&x));
                        accesses.push(Access { block: b, pos, inst: i, slot, k, stored: Some(value) });
                    }
                    _ => {
                        bad.get_or_insert(format!(
                            "an address into the alloca is used other than by a load or a store ({i:?})"
                        ));
                    }
                }
            }
        }
        if !any_word {
            return Ok(None);
        }
        if let Some(why) = bad {
            return Err(why);
        }
        // Groups per block and matrix index, in block order.
        type Key = (BlockId, Slot, bool);
        let mut groups: Vec<(Key, Vec<&Access>)> = Vec::new();
        for x in &accesses {
            let key = (x.block, x.slot, x.stored.is_some());
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, members)) => members.push(x),
                None => groups.push((key, vec![x])),
            }
        }
        for ((block, slot, store), members) in &groups {
            let (first, last) = (members[0].pos, members[members.len() - 1].pos);
            let between = |x: &&Access| x.block == *block && x.pos > first && x.pos < last;
            let mut seen = [false; 8];
            for m in members {
                if std::mem::replace(&mut seen[m.k as usize], true) {
                    return Err(format!("word {} of one matrix is accessed twice in a block ({:?})", m.k, m.inst));
                }
            }
            if *store {
                let interleaved = accesses.iter().filter(between).find(|x| !members.iter().any(|m| m.inst == x.inst));
                if let Some(x) = interleaved {
                    return Err(format!("another access falls between a matrix's word stores ({:?})", x.inst));
                }
                if members.len() != 8 {
                    return Err(format!("{} of a matrix's 8 words are stored ({:?})", members.len(), members[0].inst));
                }
                let mut root = None;
                for m in members {
                    let w = match m.stored {
                        Some(Value::Inst(x)) => word.get(&x).copied(),
                        _ => None,
                    };
                    match w {
                        Some((r, kw)) if kw == m.k && root.is_none_or(|root| root == r) => root = Some(r),
                        _ => {
                            return Err(format!(
                                "word {} stored is not word {} of the matrix the other words come from ({:?})",
                                m.k, m.k, m.inst
                            ))
                        }
                    }
                }
                let whole = members.iter().find(|m| m.k == 0).and_then(|m| m.stored);
                for m in members {
                    let whole = if m.pos == last { whole } else { None };
                    plan.push((m.inst, SlotAccess::Store { alloca: a, slot: *slot, whole }));
                }
            } else {
                if let Some(x) = accesses.iter().filter(between).find(|x| x.stored.is_some()) {
                    return Err(format!("a store falls between a matrix's word loads ({:?})", x.inst));
                }
                let leader = members[0].inst;
                for m in members {
                    plan.push((m.inst, SlotAccess::Load { alloca: a, slot: *slot, k: m.k, leader }));
                }
            }
        }
        plan.extend(casts.into_iter().map(|c| (c, SlotAccess::Address)));
        Ok(Some(plan))
    }

    /// Why store `kind` of a matrix word is not lowered: its alloca's refusal, or that its
    /// memory is no `i32` alloca.
    pub(in crate::emit) fn wmma_slot_refusal(&self, kind: &InstKind) -> String {
        let InstKind::Store { ptr: Value::Inst(p), .. } = *kind else { return "not a store".into() };
        let a = match self.f.insts[p].kind {
            InstKind::GetElementPtr { base: Value::Inst(a), .. } => a,
            _ => p,
        };
        match self.wmma.slot_refusals.get(&a) {
            Some(why) => why.clone(),
            None => "its memory is not an `i32` alloca whose length is a multiple of 8".into(),
        }
    }

    /// The matrix and word an index names: a constant, `8 i + k` as `add`/`or` of a
    /// constant `k < 8` and `mul(i, 8)` / `shl(i, 3)`, or the latter alone.
    fn wmma_slot_index(&self, index: Value) -> Option<(Slot, u32)> {
        if let Some(c) = self.const_int(index) {
            return Some((Slot::Const(u32::try_from(c / 8).ok()?), (c % 8) as u32));
        }
        let times8 = |v: Value| -> Option<Value> {
            let Value::Inst(x) = v else { return None };
            match self.f.insts[x].kind {
                InstKind::Binary { op: BinaryOp::Mul, lhs, rhs, .. } => {
                    match (self.const_int(lhs), self.const_int(rhs)) {
                        (_, Some(8)) => Some(lhs),
                        (Some(8), _) => Some(rhs),
                        _ => None,
                    }
                }
                InstKind::Binary { op: BinaryOp::Shl, lhs, rhs, .. } if self.const_int(rhs) == Some(3) => Some(lhs),
                _ => None,
            }
        };
        if let Some(i) = times8(index) {
            return Some((Slot::Dynamic(i), 0));
        }
        let Value::Inst(x) = index else { return None };
        let InstKind::Binary { op: BinaryOp::Add | BinaryOp::Or, lhs, rhs, .. } = self.f.insts[x].kind else {
            return None;
        };
        let (k, base) = match (self.const_int(lhs), self.const_int(rhs)) {
            (Some(k), None) => (k, rhs),
            (None, Some(k)) => (k, lhs),
            _ => return None,
        };
        (k < 8).then_some(())?;
        Some((Slot::Dynamic(times8(base)?), k as u32))
    }

    /// Emits instruction `i` of a matrix alloca; `false` when `i` is not one.
    pub(in crate::emit) fn wmma_slot_access(&mut self, i: InstId) -> Result<bool> {
        let Some(&access) = self.wmma.slots.get(&i) else { return Ok(false) };
        match access {
            SlotAccess::Address | SlotAccess::Store { whole: None, .. } => {}
            SlotAccess::Store { alloca, slot, whole: Some(v) } => {
                let found = match v {
                    Value::Inst(x) => self.wmma.words.get(&x).copied(),
                    _ => None,
                };
                let Some((m, t, 0)) = found else {
                    return Err(self.wmma_slot_refuse(format!("the matrix stored is not a lowered matrix ({i:?})")));
                };
                let (var, vt, mt) = match self.wmma.slot_vars.get(&alloca) {
                    Some(&x) => x,
                    None => self.wmma_slot_var(alloca, t)?,
                };
                if (vt.format, vt.usage) != (t.format, t.usage) {
                    return Err(self.wmma_slot_refuse(format!("it holds matrices of different types ({i:?})")));
                }
                let p = self.wmma_slot_ptr(var, mt, slot)?;
                self.ids_void(Op::Store, &[p, m])?;
            }
            SlotAccess::Load { alloca, slot, k, leader } => {
                let (m, t) = match self.wmma.slot_loads.get(&leader) {
                    Some(&x) if leader != i => x,
                    _ => {
                        let Some(&(var, t, mt)) = self.wmma.slot_vars.get(&alloca) else {
                            return Err(self.wmma_slot_refuse(format!(
                                "a matrix is loaded before any store to the alloca is emitted ({i:?})"
                            )));
                        };
                        let p = self.wmma_slot_ptr(var, mt, slot)?;
                        let m = self.ids_op(Op::Load, mt, &[p])?;
                        self.wmma.slot_loads.insert(leader, (m, t));
                        (m, t)
                    }
                };
                self.wmma.words.insert(i, (m, t, k));
                let u = self.cx.u32_t();
                let undef = self.cx.undef(u);
                self.define(i, undef)?;
            }
        }
        Ok(true)
    }

    /// The `Function` variable of alloca `a`, an array of its matrices of type `t`.
    fn wmma_slot_var(&mut self, a: InstId, t: MatrixType) -> Result<(Word, MatrixType, Word)> {
        let mt = self.coopmat_type(Opcode::WaveMatrixCopy, t)?;
        let InstKind::Alloca { allocated, .. } = self.f.insts[a].kind else {
            return Err(Error::Internal("WMMA slot variable without its alloca".into()));
        };
        let Type::Array { len, .. } = *self.cx.m.types.get(allocated) else {
            return Err(Error::Internal("WMMA slot alloca is not an array".into()));
        };
        let n = self.cx.const_u32((len / 8) as u32);
        let array = self.cx.b.type_array(mt, n);
        let pty = self.cx.ptr(StorageClass::Function, array);
        let var = self.cx.b.id();
        self.wmma.late_vars.push((pty, var));
        let entry = (var, t, mt);
        self.wmma.slot_vars.insert(a, entry);
        Ok(entry)
    }

    /// A pointer to matrix `slot` of variable `var` (matrices of type `mt`).
    fn wmma_slot_ptr(&mut self, var: Word, mt: Word, slot: Slot) -> Result<Word> {
        let index = match slot {
            Slot::Const(c) => self.cx.const_u32(c),
            Slot::Dynamic(v) => self.value(v)?,
        };
        let pty = self.cx.ptr(StorageClass::Function, mt);
        self.ids_op(Op::AccessChain, pty, &[var, index])
    }
}

/// A call of `llvm.lifetime.start` / `end`.
fn is_lifetime_marker(m: &crate::ir::Module, kind: &InstKind) -> bool {
    matches!(kind, InstKind::Call { callee: Value::Func(f), .. } if m.functions[*f].name.starts_with("llvm.lifetime."))
}
