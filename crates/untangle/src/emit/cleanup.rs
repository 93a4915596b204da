//! Local clean-ups of the instructions the emitters write, done by the writer as they come:
//! what `spirv-opt` would otherwise do for the obvious cases, without depending on it.
//!
//! Within one block (the tables start empty at every `OpLabel`):
//! - **Value numbering**: a pure instruction (no memory access, no side effect, no
//!   floating-point arithmetic whose result a decoration could change: access chains,
//!   integer arithmetic, comparisons and logic, selects, conversions, composite and vector
//!   operations, integer `GLSL.std.450` functions) identical to an earlier one of the block
//!   (same opcode, result type and operands) is not written again: the earlier result is
//!   returned. The earlier one dominates every later instruction of the block.
//! - **Loads**: a load through a pointer to private memory of the invocation or to memory
//!   it cannot write (`Function`, `Private`, `Input`, `Uniform`, `UniformConstant`,
//!   `PushConstant`) is answered by the same load earlier in the block, or by the value the
//!   block last stored through the same pointer, while no instruction with an effect
//!   (store, atomic, call, barrier, image write, anything not known to be pure) came in
//!   between. Volatile and availability/visibility operands are never reused.
//!
//! Within one function:
//! - **Extracts of constructs**: `OpCompositeExtract c k` of a `OpCompositeConstruct` of a
//!   struct, or of a vector built from scalars of the extract's type, is constituent `k`.
//!   (A construct's constituents dominate it, so they dominate every use of it.)
//! - **Dead code**: at the end of the function, pure instructions and plain loads whose
//!   results nothing uses are removed, last first (so that chains go), with their names
//!   and decorations. Uses are counted conservatively: any operand word equal to the id.
//!
//! All tables are hash maps consulted by key; nothing is iterated, so the output is
//! deterministic. Cost: a hash lookup per instruction, and one pass over the function's
//! words at its end.
//!
//! A low-level module of `emit`: it imports nothing from `emit`.

use foldhash::fast::FixedState;
use rspirv::spirv::{Op, StorageClass, Word};
use smallvec::SmallVec;
use std::collections::{HashMap, HashSet};

type Key = SmallVec<[Word; 8]>;

/// `GLSL.std.450` functions on integers: no floating-point result a decoration could change,
/// no pointer operand.
const GLSL_INTEGER: [Word; 11] = [
    5,  // SAbs
    7,  // SSign
    38, // UMin
    39, // SMin
    41, // UMax
    42, // SMax
    44, // UClamp
    45, // SClamp
    73, // FindILsb
    74, // FindSMsb
    75, // FindUMsb
];

/// Memory-access bits that allow reuse: `Aligned` and `Nontemporal`.
const PLAIN_ACCESS: Word = 0x2 | 0x4;

/// Whether `op` computes its result from its operands alone (identical instructions give
/// identical results; an unused one can go), `GLSL.std.450` calls aside.
fn pure_op(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        AccessChain
            | InBoundsAccessChain
            | CompositeExtract
            | CompositeConstruct
            | CompositeInsert
            | VectorShuffle
            | VectorExtractDynamic
            | VectorInsertDynamic
            | Bitcast
            | UConvert
            | SConvert
            | IAdd
            | ISub
            | IMul
            | UDiv
            | SDiv
            | UMod
            | SRem
            | SMod
            | SNegate
            | ShiftLeftLogical
            | ShiftRightLogical
            | ShiftRightArithmetic
            | BitwiseAnd
            | BitwiseOr
            | BitwiseXor
            | Not
            | BitFieldInsert
            | BitFieldSExtract
            | BitFieldUExtract
            | BitReverse
            | BitCount
            | IEqual
            | INotEqual
            | UGreaterThan
            | SGreaterThan
            | UGreaterThanEqual
            | SGreaterThanEqual
            | ULessThan
            | SLessThan
            | ULessThanEqual
            | SLessThanEqual
            | LogicalAnd
            | LogicalOr
            | LogicalNot
            | LogicalEqual
            | LogicalNotEqual
            | Select
            | Any
            | All
    )
}

/// Storage classes whose memory only this invocation writes, or nobody does.
fn reusable_class(class: Word) -> bool {
    [
        StorageClass::Function,
        StorageClass::Private,
        StorageClass::Input,
        StorageClass::Uniform,
        StorageClass::UniformConstant,
        StorageClass::PushConstant,
    ]
    .iter()
    .any(|&c| c as Word == class)
}

/// What the writer does with an instruction it was asked for.
pub enum Answer {
    /// Reuse this id; write nothing.
    Reuse(Word),
    /// Write it.
    Write,
}

#[derive(Default)]
pub struct Cleanup {
    /// The `GLSL.std.450` import.
    glsl: Option<Word>,
    /// Pointer type → its storage class.
    pointer_types: HashMap<Word, Word, FixedState>,
    /// Pointer value (variable, access chain) → its storage class.
    pointers: HashMap<Word, Word, FixedState>,
    /// Struct types.
    structs: HashSet<Word, FixedState>,
    /// Result id → its type (values made in functions, and constants).
    types: HashMap<Word, Word, FixedState>,
    /// This block's pure instructions: opcode, type and operands → result.
    values: HashMap<Key, Word, FixedState>,
    /// This block's loads since the last effect: type and operands → result.
    loads: HashMap<Key, Word, FixedState>,
    /// This block's stores since the last effect: pointer → value.
    stored: HashMap<Word, Word, FixedState>,
    /// This function's constructs: result → (type, constituents).
    constructs: HashMap<Word, (Word, SmallVec<[Word; 4]>), FixedState>,
}

fn key(head: &[Word], operands: &[Word]) -> Key {
    let mut k = Key::from_slice(head);
    k.extend_from_slice(operands);
    k
}

impl Cleanup {
    pub fn glsl_import(&mut self, id: Word) {
        self.glsl.get_or_insert(id);
    }

    pub fn pointer_type(&mut self, id: Word, class: Word) {
        self.pointer_types.insert(id, class);
    }

    pub fn struct_type(&mut self, id: Word) {
        self.structs.insert(id);
    }

    /// A value of type `ty` (a constant, a variable, a parameter).
    pub fn value(&mut self, id: Word, ty: Word) {
        self.types.insert(id, ty);
        if let Some(&class) = self.pointer_types.get(&ty) {
            self.pointers.insert(id, class);
        }
    }

    pub fn begin_block(&mut self) {
        self.values.clear();
        self.loads.clear();
        self.stored.clear();
    }

    pub fn begin_function(&mut self) {
        self.begin_block();
        self.constructs.clear();
    }

    fn pure(&self, op: Op, operands: &[Word]) -> bool {
        pure_op(op)
            || (op == Op::ExtInst
                && operands.len() >= 2
                && Some(operands[0]) == self.glsl
                && GLSL_INTEGER.contains(&operands[1]))
    }

    /// Whether a load or store through `ptr` with memory operands `access` may be reused.
    fn reusable_access(&self, ptr: Word, access: &[Word]) -> bool {
        self.pointers.get(&ptr).is_some_and(|&c| reusable_class(c))
            && access.first().is_none_or(|&mask| mask & !PLAIN_ACCESS == 0)
    }

    /// Before writing `op` (result type `ty`) with `operands` in a block.
    pub fn before(&mut self, op: Op, ty: Word, operands: &[Word]) -> Answer {
        if op == Op::CompositeExtract && operands.len() == 2 {
            if let Some(x) = self.extracted(ty, operands[0], operands[1]) {
                return Answer::Reuse(x);
            }
        }
        if self.pure(op, operands) {
            let key = key(&[op as Word, ty], operands);
            if let Some(&id) = self.values.get(&key) {
                return Answer::Reuse(id);
            }
        } else if op == Op::Load && !operands.is_empty() && self.reusable_access(operands[0], &operands[1..]) {
            if let Some(&v) = self.stored.get(&operands[0]) {
                if self.types.get(&v) == Some(&ty) {
                    return Answer::Reuse(v);
                }
            }
            let key = key(&[ty], operands);
            if let Some(&id) = self.loads.get(&key) {
                return Answer::Reuse(id);
            }
        }
        Answer::Write
    }

    /// Constituent `k` of `composite` when it is a construct whose constituents are its
    /// components one for one, of type `ty`.
    fn extracted(&self, ty: Word, composite: Word, k: Word) -> Option<Word> {
        let (cty, parts) = self.constructs.get(&composite)?;
        let x = *parts.get(k as usize)?;
        let whole = self.structs.contains(cty) || parts.iter().all(|p| self.types.get(p) == Some(&ty));
        (whole && self.types.get(&x) == Some(&ty)).then_some(x)
    }

    /// After writing `op` with result `id` (of type `ty`) in a block.
    pub fn after(&mut self, op: Op, ty: Word, id: Word, operands: &[Word]) {
        self.value(id, ty);
        if self.pure(op, operands) {
            let key = key(&[op as Word, ty], operands);
            self.values.insert(key, id);
            if op == Op::CompositeConstruct {
                self.constructs.insert(id, (ty, SmallVec::from_slice(operands)));
            }
        } else if op == Op::Load && !operands.is_empty() && self.reusable_access(operands[0], &operands[1..]) {
            let key = key(&[ty], operands);
            self.loads.insert(key, id);
        }
    }

    /// Any instruction written in a block (before [`Self::after`]): what it does to the
    /// loads and stores remembered.
    pub fn effect(&mut self, op: Op, operands: &[Word]) {
        if op == Op::Load || self.pure(op, operands) {
            return;
        }
        self.loads.clear();
        self.stored.clear();
        if op == Op::Store && operands.len() >= 2 && self.reusable_access(operands[0], &operands[2..]) {
            self.stored.insert(operands[0], operands[1]);
        }
    }

    /// Whether the instruction at the start of `inst` may be removed when its result is
    /// unused; then its first operand word is at index 3.
    fn removable(&self, inst: &[Word]) -> bool {
        let Some(op) = Op::from_u32(inst[0] & 0xffff) else { return false };
        if inst.len() < 3 {
            return false;
        }
        match op {
            Op::Load => inst.get(4).is_none_or(|&mask| mask & !PLAIN_ACCESS == 0),
            _ => self.pure(op, &inst[3..]),
        }
    }

    /// Removes the dead pure instructions and plain loads of the function whose words are
    /// `words` (whole instructions); returns the removed result ids.
    pub fn remove_dead(&self, words: &mut Vec<Word>) -> HashSet<Word, FixedState> {
        let mut starts = Vec::new();
        let mut at = 0;
        while at < words.len() {
            starts.push(at);
            at += ((words[at] >> 16) as usize).max(1);
        }
        let end_of = |k: usize, starts: &[usize]| starts.get(k + 1).copied().unwrap_or(words.len());
        let mut uses: HashMap<Word, u32, FixedState> = HashMap::default();
        let mut removable = Vec::with_capacity(starts.len());
        for (k, &s) in starts.iter().enumerate() {
            let inst = &words[s..end_of(k, &starts)];
            let r = self.removable(inst);
            removable.push(r);
            for &w in &inst[if r { 3 } else { 1 }..] {
                *uses.entry(w).or_default() += 1;
            }
        }
        let mut dead = vec![false; starts.len()];
        let mut removed = HashSet::default();
        for k in (0..starts.len()).rev() {
            if !removable[k] {
                continue;
            }
            let inst = &words[starts[k]..end_of(k, &starts)];
            if uses.get(&inst[2]).copied().unwrap_or(0) != 0 {
                continue;
            }
            dead[k] = true;
            removed.insert(inst[2]);
            for &w in &inst[3..] {
                if let Some(n) = uses.get_mut(&w) {
                    *n -= 1;
                }
            }
        }
        if removed.is_empty() {
            return removed;
        }
        let mut out = Vec::with_capacity(words.len());
        for (k, &s) in starts.iter().enumerate() {
            if !dead[k] {
                out.extend_from_slice(&words[s..end_of(k, &starts)]);
            }
        }
        *words = out;
        removed
    }
}

/// Removes from `words` (a section of `OpName`s or decorations) the instructions whose
/// target (word 1) is in `removed`.
pub fn drop_targets(words: &mut Vec<Word>, removed: &HashSet<Word, FixedState>) {
    let mut out = Vec::with_capacity(words.len());
    let mut at = 0;
    while at < words.len() {
        let len = ((words[at] >> 16) as usize).max(1);
        let end = (at + len).min(words.len());
        if !words.get(at + 1).is_some_and(|t| removed.contains(t)) {
            out.extend_from_slice(&words[at..end]);
        }
        at = end;
    }
    *words = out;
}

/// Whether a global instruction of opcode `op` may go when nothing uses its result (types
/// that only other types, constants and variables refer to, constants, undefs), and where
/// its result id is (word 1 for types, word 2 for constants).
fn removable_global(op: Word) -> Option<usize> {
    let op = Op::from_u32(op)?;
    use Op::*;
    match op {
        TypeStruct | TypePointer | TypeArray | TypeRuntimeArray | TypeVector | TypeFunction => Some(1),
        Constant | ConstantTrue | ConstantFalse | ConstantNull | ConstantComposite | Undef => Some(2),
        _ => None,
    }
}

/// Whole instructions of `words`: (start, end) of each.
fn instructions(words: &[Word]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < words.len() {
        let end = (at + ((words[at] >> 16) as usize).max(1)).min(words.len());
        out.push((at, end));
        at = end;
    }
    out
}

/// The global section `globals` without the types, constants and undefs nothing uses
/// (removed last first, so that chains go), given the sections that may use them: `users`
/// (entry points, execution modes, functions: every operand word counts) and
/// `annotations` (decoration operands after the target count). Also returns the removed
/// ids, whose names and decorations must go too. Uses are counted conservatively: any
/// operand word equal to the id.
pub fn prune_globals(
    globals: &[Word],
    users: &[&[Word]],
    annotations: &[Word],
) -> (Vec<Word>, HashSet<Word, FixedState>) {
    let mut uses: HashMap<Word, u32, FixedState> = HashMap::default();
    let count = |ws: &[Word], uses: &mut HashMap<Word, u32, FixedState>| {
        for &w in ws {
            *uses.entry(w).or_default() += 1;
        }
    };
    for section in users {
        for (s, e) in instructions(section) {
            count(&section[s + 1..e], &mut uses);
        }
    }
    for (s, e) in instructions(annotations) {
        // OpDecorate / OpMemberDecorate: target, then operands (ids only in OpDecorateId).
        if annotations[s] & 0xffff == Op::DecorateId as Word {
            count(&annotations[(s + 3).min(e)..e], &mut uses);
        }
    }
    let insts = instructions(globals);
    let mut result = Vec::with_capacity(insts.len());
    for &(s, e) in &insts {
        let at = removable_global(globals[s] & 0xffff).filter(|&k| s + k < e);
        for (k, &w) in globals[s + 1..e].iter().enumerate() {
            if Some(k + 1) != at {
                *uses.entry(w).or_default() += 1;
            }
        }
        result.push(at.map(|k| globals[s + k]));
    }
    let mut removed = HashSet::default();
    let mut dead = vec![false; insts.len()];
    for (i, &(s, e)) in insts.iter().enumerate().rev() {
        let Some(id) = result[i] else { continue };
        if uses.get(&id).copied().unwrap_or(0) != 0 {
            continue;
        }
        dead[i] = true;
        removed.insert(id);
        let at = removable_global(globals[s] & 0xffff).unwrap_or(0);
        for (k, w) in globals[s + 1..e].iter().enumerate() {
            if k + 1 != at {
                if let Some(n) = uses.get_mut(w) {
                    *n -= 1;
                }
            }
        }
    }
    let mut out = Vec::with_capacity(globals.len());
    for (i, &(s, e)) in insts.iter().enumerate() {
        if !dead[i] {
            out.extend_from_slice(&globals[s..e]);
        }
    }
    (out, removed)
}
