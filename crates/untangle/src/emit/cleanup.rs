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
//!   between; loads from memory the shader cannot write (`UniformConstant`, `Uniform`,
//!   `PushConstant`) stay answerable across such instructions. Volatile and
//!   availability/visibility operands are never reused.
//!
//! Within one function:
//! - **Extracts of constructs**: `OpCompositeExtract c k` of a `OpCompositeConstruct` of a
//!   struct, or of a vector built from scalars of the extract's type, is constituent `k`.
//!   (A construct's constituents dominate it, so they dominate every use of it.)
//! - **Constructs of extracts**: `OpCompositeConstruct` of type `T` whose constituents are
//!   `OpCompositeExtract v 0`, `v 1`, … in order, `v` of type `T`, is `v` (a vector loaded
//!   whole and stored back whole). `v` dominates the extracts, which dominate the construct.
//! - **Bitcasts of bitcasts**: `OpBitcast` to type `T` of an `OpBitcast` whose operand is of
//!   type `T` (not a pointer) is that operand (a 64-bit value assembled from two words and
//!   split into words again). The operand dominates the inner bitcast, which dominates the
//!   outer one.
//! - **Lanes of bitcast vectors**: `OpBitcast` to type `T` of lane `k` of an `OpBitcast` of
//!   vector `v`, whose lanes are of type `T` (lanes of equal width: a `u16vec4` loaded and
//!   read as `f16vec4`, one lane written back as `uint16_t`), is `OpCompositeExtract v k`.
//!   `v` dominates the bitcast, which dominates the lane.
//! - **Dead code**: at the end of the function, pure instructions and plain loads whose
//!   results nothing uses are removed, last first (so that chains go), with their names
//!   and decorations. Uses are counted conservatively: any operand word equal to the id.
//!   The counts are kept for the whole module (a function's words are counted once, at
//!   its end), so that [`prune_globals`] starts from them instead of reading every
//!   function again.
//!
//! When the module is assembled:
//! - **Unused globals**: types (scalar types too), constants, undefs and storage-buffer
//!   variables nothing uses go, with their names, decorations and interface entries
//!   ([`prune_globals`]).
//! - **Width capabilities**: `Int8`, `Int16`, `Int64`, `Float16` and `Float64` go when no
//!   type of their width is left ([`extend_width_capabilities_used`]).
//!
//! All tables are hash maps consulted by key; nothing is iterated, so the output is
//! deterministic. Cost: one hash of the key per pure instruction or load (the key is
//! entered with the id the writer will give it, so it is not hashed again); facts about
//! ids (types, storage classes, struct types, use counts) live in vectors indexed by id,
//! not in hash maps; one pass over the function's words at its end (and one over the
//! instructions that may go), and two over the global section when the module is
//! assembled.
//!
//! A low-level module of `emit`: it imports nothing from `emit`.

use foldhash::fast::FixedState;
use rspirv::spirv::{Capability, Op, StorageClass, Word};
use smallvec::SmallVec;
use std::collections::hash_map::Entry;
use std::collections::HashMap;

/// A remembered instruction of the block ([`Cleanup::values`], [`Cleanup::loads`]): where
/// its key words (opcode or nothing, type, operands) are in [`Cleanup::keys`], and its
/// result. The tables are keyed by the key words' hash; a hit compares the words.
#[derive(Clone, Copy)]
struct Remembered {
    start: u32,
    len: u32,
    result: Word,
}

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

/// The opcodes whose instructions compute their result from their operands alone
/// (identical instructions give identical results; an unused one can go), `GLSL.std.450`
/// calls aside.
const PURE_OPS: [Op; 51] = [
    // A sampled image must be used in its own block, where the first one dominates.
    Op::SampledImage,
    Op::AccessChain,
    Op::InBoundsAccessChain,
    Op::CompositeExtract,
    Op::CompositeConstruct,
    Op::CompositeInsert,
    Op::VectorShuffle,
    Op::VectorExtractDynamic,
    Op::VectorInsertDynamic,
    Op::Bitcast,
    Op::UConvert,
    Op::SConvert,
    Op::IAdd,
    Op::ISub,
    Op::IMul,
    Op::UDiv,
    Op::SDiv,
    Op::UMod,
    Op::SRem,
    Op::SMod,
    Op::SNegate,
    Op::ShiftLeftLogical,
    Op::ShiftRightLogical,
    Op::ShiftRightArithmetic,
    Op::BitwiseAnd,
    Op::BitwiseOr,
    Op::BitwiseXor,
    Op::Not,
    Op::BitFieldInsert,
    Op::BitFieldSExtract,
    Op::BitFieldUExtract,
    Op::BitReverse,
    Op::BitCount,
    Op::IEqual,
    Op::INotEqual,
    Op::UGreaterThan,
    Op::SGreaterThan,
    Op::UGreaterThanEqual,
    Op::SGreaterThanEqual,
    Op::ULessThan,
    Op::SLessThan,
    Op::ULessThanEqual,
    Op::SLessThanEqual,
    Op::LogicalAnd,
    Op::LogicalOr,
    Op::LogicalNot,
    Op::LogicalEqual,
    Op::LogicalNotEqual,
    Op::Select,
    Op::Any,
    Op::All,
];

/// [`PURE_OPS`] as a table by opcode (all of them are core opcodes below 512): the test
/// runs for every instruction written and every word of a function's dead-code pass.
const PURE_TABLE: [bool; 512] = {
    let mut table = [false; 512];
    let mut k = 0;
    while k < PURE_OPS.len() {
        table[PURE_OPS[k] as usize] = true;
        k += 1;
    }
    table
};

/// Whether the opcode `code` is one of [`PURE_OPS`].
#[inline]
fn pure_op(code: Word) -> bool {
    PURE_TABLE.get(code as usize).copied().unwrap_or(false)
}

/// [`pure_op`], or a call of an integer `GLSL.std.450` function of the import `glsl`.
#[inline]
fn pure_with(glsl: Option<Word>, op: Word, operands: &[Word]) -> bool {
    pure_op(op)
        || (op == Op::ExtInst as Word
            && operands.len() >= 2
            && Some(operands[0]) == glsl
            && GLSL_INTEGER.contains(&operands[1]))
}

/// Storage classes whose memory only this invocation writes, or nobody does.
/// Storage classes that no instruction of the shader writes: a load from them gives the
/// same value however many stores, calls and barriers come between.
fn unwritable_class(class: Word) -> bool {
    [StorageClass::Uniform, StorageClass::UniformConstant, StorageClass::PushConstant]
        .iter()
        .any(|&c| c as Word == class)
}

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
    /// Write `OpCompositeExtract` of component `.1` of vector `.0` instead (same result
    /// type).
    Extract(Word, Word),
    /// Write it.
    Write,
}

/// What the clean-ups know of an id ([`IdTable`]); zeros for nothing known.
#[derive(Clone, Copy, Default)]
struct IdFacts {
    /// A pointer type's or pointer value's (variable, access chain) storage class + 1.
    class: Word,
    /// A value's type (values made in functions, and constants).
    ty: Word,
    /// A struct type.
    is_struct: bool,
    /// A vector type's component type.
    component: Word,
}

/// Facts about ids, in one vector indexed by id (ids are small and dense: the writer hands
/// them out in order): no hashing on the per-instruction path.
#[derive(Default)]
struct IdTable(Vec<IdFacts>);

impl IdTable {
    #[inline]
    fn get(&self, id: Word) -> IdFacts {
        self.0.get(id as usize).copied().unwrap_or_default()
    }

    #[inline]
    fn class(&self, id: Word) -> Word {
        self.get(id).class
    }

    #[inline]
    fn ty(&self, id: Word) -> Word {
        self.get(id).ty
    }

    #[inline]
    fn at(&mut self, id: Word) -> &mut IdFacts {
        let i = id as usize;
        if i >= self.0.len() {
            // `resize` reserves amortized: ids arrive in increasing order.
            self.0.resize(i + 1, IdFacts::default());
        }
        &mut self.0[i]
    }
}

/// A set of ids, dense like [`IdTable`]: which results a removal took away.
#[derive(Default)]
pub struct IdSet {
    members: Vec<bool>,
    len: usize,
}

impl IdSet {
    fn insert(&mut self, id: Word) {
        let i = id as usize;
        if i >= self.members.len() {
            self.members.resize(i + 1, false);
        }
        self.len += usize::from(!self.members[i]);
        self.members[i] = true;
    }

    #[inline]
    pub fn contains(&self, id: Word) -> bool {
        self.members.get(id as usize).copied().unwrap_or(false)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[derive(Default)]
pub struct Cleanup {
    /// The `GLSL.std.450` import.
    glsl: Option<Word>,
    /// Storage classes, types, struct types and vector types' components by id.
    ids: IdTable,
    /// This block's pure instructions: opcode, type and operands → result.
    values: HashMap<u64, Remembered, FixedState>,
    /// This block's loads since the last effect: type and operands → result.
    loads: HashMap<u64, Remembered, FixedState>,
    /// This block's loads from memory no instruction writes ([`unwritable_class`]), which
    /// effects leave standing: type and operands → result.
    constant_loads: HashMap<u64, Remembered, FixedState>,
    /// The key words of this block's remembered instructions, one after another.
    keys: Vec<Word>,
    /// This block's stores since the last effect: pointer → value.
    stored: HashMap<Word, Word, FixedState>,
    /// This function's constructs, single-index extracts and bitcasts of values, by
    /// result (one table: a result is one of them).
    made: HashMap<Word, Made, FixedState>,
    /// Use counts by id over the words of every function ended so far (each counted by
    /// [`Cleanup::remove_dead`], less the operands of the instructions it removed): the
    /// functions' share of the counts [`prune_globals`] needs.
    uses: Vec<u32>,
    /// [`Cleanup::remove_dead`]'s scratch, kept across functions: the span of each removable
    /// instruction of the function and whether it was removed.
    insts: Vec<FnInst>,
}

/// How a result of the function was made, for the clean-ups of constructs, extracts and
/// bitcasts.
#[derive(Clone, PartialEq, Eq)]
enum Made {
    /// `OpCompositeConstruct`: type, constituents.
    Construct(Word, SmallVec<[Word; 4]>),
    /// `OpCompositeExtract` with one index: composite, index.
    Extract(Word, Word),
    /// `OpBitcast`: operand.
    Bitcast(Word),
}

/// A removable instruction of the function [`Cleanup::remove_dead`] looks at: its words'
/// span in the functions section, and whether it went.
#[derive(Clone, Copy)]
struct FnInst {
    start: u32,
    end: u32,
    dead: bool,
}

/// The hash of key words `head` and `operands`: a multiply-rotate mix per word (the
/// tables hash this value once more, so it needs to be distinct, not uniform).
#[inline]
fn key_hash(head: &[Word], operands: &[Word]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = (head.len() + operands.len()) as u64;
    for &w in head {
        h = (h.rotate_left(5) ^ u64::from(w)).wrapping_mul(K);
    }
    for &w in operands {
        h = (h.rotate_left(5) ^ u64::from(w)).wrapping_mul(K);
    }
    h
}

/// Looks key words `head` + `operands` up in `table` (by [`key_hash`]): the remembered result
/// of the same words, or `None` after remembering them (words in `keys`) with result
/// `next_id`. A different key of the same hash (a 64-bit collision) is neither reused
/// nor remembered.
#[inline]
fn remember(
    table: &mut HashMap<u64, Remembered, FixedState>,
    keys: &mut Vec<Word>,
    head: &[Word],
    operands: &[Word],
    next_id: Word,
) -> Option<Word> {
    match table.entry(key_hash(head, operands)) {
        Entry::Occupied(e) => {
            let r = *e.get();
            let words = &keys[r.start as usize..(r.start + r.len) as usize];
            let same = words.len() == head.len() + operands.len()
                && words[..head.len()] == *head
                && words[head.len()..] == *operands;
            same.then_some(r.result)
        }
        Entry::Vacant(e) => {
            let start = keys.len() as u32;
            keys.extend_from_slice(head);
            keys.extend_from_slice(operands);
            e.insert(Remembered { start, len: (head.len() + operands.len()) as u32, result: next_id });
            None
        }
    }
}

/// The most room each per-block and per-function table starts with: enough for the blocks
/// and functions of most shaders, so that a translation's tables are not grown (and
/// rehashed) step by step from empty; emptied tables keep their room.
pub const TABLE_ROOM: usize = 32;

impl Cleanup {
    /// Empty tables with room for `room` entries each (a tiny shader's blocks need a few),
    /// and the tables by id for ids below `ids`.
    pub fn with_room(room: usize, ids: usize) -> Cleanup {
        fn table<K, V>(room: usize) -> HashMap<K, V, FixedState> {
            HashMap::with_capacity_and_hasher(room, FixedState::default())
        }
        Cleanup {
            values: table(room),
            loads: table(room),
            constant_loads: table(room),
            stored: table(room),
            made: table(room),
            keys: Vec::with_capacity(room * 4),
            ids: IdTable(Vec::with_capacity(ids)),
            ..Cleanup::default()
        }
    }

    pub fn glsl_import(&mut self, id: Word) {
        self.glsl.get_or_insert(id);
    }

    pub fn pointer_type(&mut self, id: Word, class: Word) {
        self.ids.at(id).class = class + 1;
    }

    pub fn vector_type(&mut self, id: Word, component: Word) {
        self.ids.at(id).component = component;
    }

    pub fn struct_type(&mut self, id: Word) {
        self.ids.at(id).is_struct = true;
    }

    /// A value of type `ty` (a constant, a variable, a parameter).
    #[inline]
    pub fn value(&mut self, id: Word, ty: Word) {
        let class = self.ids.class(ty);
        let facts = self.ids.at(id);
        facts.ty = ty;
        if class != 0 {
            facts.class = class;
        }
    }

    pub fn begin_block(&mut self) {
        self.values.clear();
        self.loads.clear();
        self.constant_loads.clear();
        self.keys.clear();
        self.stored.clear();
    }

    pub fn begin_function(&mut self) {
        self.begin_block();
        self.made.clear();
    }

    fn pure(&self, op: Op, operands: &[Word]) -> bool {
        pure_with(self.glsl, op as Word, operands)
    }

    /// Whether a load or store through `ptr` with memory operands `access` may be reused.
    fn reusable_access(&self, ptr: Word, access: &[Word]) -> bool {
        let class = self.ids.class(ptr);
        class != 0 && reusable_class(class - 1) && access.first().is_none_or(|&mask| mask & !PLAIN_ACCESS == 0)
    }

    /// Before writing `op` (result type `ty`) with `operands` in a block. When the answer is
    /// [`Answer::Write`], the writer gives the instruction the result id `next_id` and
    /// then calls [`Self::after`]: the tables learn it here, so each key is hashed once.
    pub fn before(&mut self, op: Op, ty: Word, operands: &[Word], next_id: Word) -> Answer {
        if op == Op::CompositeExtract && operands.len() == 2 {
            if let Some(x) = self.extracted(ty, operands[0], operands[1]) {
                return Answer::Reuse(x);
            }
        }
        if let (Op::Bitcast, &[x]) = (op, operands) {
            if let Some(&Made::Bitcast(y)) = self.made.get(&x) {
                if self.ids.ty(y) == ty && self.ids.class(ty) == 0 {
                    return Answer::Reuse(y);
                }
            }
            // Lane `k` of a bitcast vector, bitcast back to the lane type of the vector
            // before it: that vector's lane `k`.
            if let Some(&Made::Extract(lanes, k)) = self.made.get(&x) {
                if let Some(&Made::Bitcast(v)) = self.made.get(&lanes) {
                    if self.ids.get(self.ids.ty(v)).component == ty && ty != 0 {
                        return Answer::Extract(v, k);
                    }
                }
            }
        }
        if op == Op::CompositeConstruct {
            if let Some(v) = self.reassembled(ty, operands) {
                return Answer::Reuse(v);
            }
        }
        if self.pure(op, operands) {
            if let Some(x) = remember(&mut self.values, &mut self.keys, &[op as Word, ty], operands, next_id) {
                return Answer::Reuse(x);
            }
        } else if op == Op::Load && !operands.is_empty() && self.reusable_access(operands[0], &operands[1..]) {
            if let Some(&v) = self.stored.get(&operands[0]) {
                if self.ids.ty(v) == ty {
                    return Answer::Reuse(v);
                }
            }
            let loads = if unwritable_class(self.ids.class(operands[0]).wrapping_sub(1)) {
                &mut self.constant_loads
            } else {
                &mut self.loads
            };
            if let Some(x) = remember(loads, &mut self.keys, &[ty], operands, next_id) {
                return Answer::Reuse(x);
            }
        }
        Answer::Write
    }

    /// Constituent `k` of `composite` when it is a construct whose constituents are its
    /// components one for one, of type `ty`.
    fn extracted(&self, ty: Word, composite: Word, k: Word) -> Option<Word> {
        let Made::Construct(cty, parts) = self.made.get(&composite)? else { return None };
        let x = *parts.get(k as usize)?;
        let whole = self.ids.get(*cty).is_struct || parts.iter().all(|&p| self.ids.ty(p) == ty);
        (whole && self.ids.ty(x) == ty).then_some(x)
    }

    /// The composite of type `ty` whose components `0, 1, …` in order are the extracts
    /// `parts`, if they are.
    fn reassembled(&self, ty: Word, parts: &[Word]) -> Option<Word> {
        let &Made::Extract(v, _) = self.made.get(parts.first()?)? else { return None };
        let whole = self.ids.ty(v) == ty
            && parts.iter().enumerate().all(|(k, p)| self.made.get(p) == Some(&Made::Extract(v, k as Word)));
        whole.then_some(v)
    }

    /// After writing `op` with result `id` (of type `ty`) in a block.
    pub fn after(&mut self, op: Op, ty: Word, id: Word, operands: &[Word]) {
        self.value(id, ty);
        match op {
            Op::CompositeConstruct => {
                self.made.insert(id, Made::Construct(ty, SmallVec::from_slice(operands)));
            }
            Op::CompositeExtract if operands.len() == 2 => {
                self.made.insert(id, Made::Extract(operands[0], operands[1]));
            }
            Op::Bitcast if operands.len() == 1 => {
                self.made.insert(id, Made::Bitcast(operands[0]));
            }
            _ => {}
        }
    }

    /// Any instruction written in a block (before [`Self::after`]): what it does to the
    /// loads and stores remembered.
    pub fn effect(&mut self, op: Op, operands: &[Word]) {
        if op == Op::Load || self.pure(op, operands) {
            return;
        }
        // `constant_loads` stay: nothing the invocation does changes that memory.
        self.loads.clear();
        self.stored.clear();
        if op == Op::Store && operands.len() >= 2 && self.reusable_access(operands[0], &operands[2..]) {
            self.stored.insert(operands[0], operands[1]);
        }
    }

    /// Removes the dead pure instructions and plain loads of the function whose words are
    /// `words[start..]` (whole instructions); returns the removed result ids. Counts the
    /// function's uses into the module's counts ([`Self::function_uses`]): every word after
    /// the opcode but literals and the result ids of removable instructions, less the
    /// operands (and result types) of those removed. One pass over the function's words,
    /// one back over its instructions; counts live in a table indexed by id (words that are
    /// no id, at or past the module's `bound`, are not counted).
    pub fn remove_dead(&mut self, words: &mut Vec<Word>, start: usize, bound: Word) -> IdSet {
        // Only the removable instructions are listed (spans as u32: a module's words are
        // counted in u32 by its header).
        let insts = &mut self.insts;
        insts.clear();
        let uses = &mut self.uses;
        if uses.len() < bound as usize {
            uses.resize(bound as usize, 0);
        }
        let mut at = start;
        while at < words.len() {
            let end = (at + ((words[at] >> 16) as usize).max(1)).min(words.len());
            let inst = &words[at..end];
            let removable = removable_inst(self.glsl, inst);
            count_uses(inst, removable, uses, true);
            if removable {
                insts.push(FnInst { start: at as u32, end: end as u32, dead: false });
            }
            at = end;
        }
        let mut removed = IdSet::default();
        for i in insts.iter_mut().rev() {
            let inst = &words[i.start as usize..i.end as usize];
            if uses.get(inst[2] as usize).copied().unwrap_or(0) != 0 {
                continue;
            }
            i.dead = true;
            removed.insert(inst[2]);
            count_uses(inst, true, uses, false);
        }
        if !removed.is_empty() {
            // Close the gaps the dead instructions leave, front to back.
            let (mut to, mut from) = (start, start);
            for i in insts.iter().filter(|i| i.dead) {
                let (s, e) = (i.start as usize, i.end as usize);
                words.copy_within(from..s, to);
                to += s - from;
                from = e;
            }
            words.copy_within(from.., to);
            to += words.len() - from;
            words.truncate(to);
        }
        removed
    }

    /// The use counts by id of the words of every function [`Self::remove_dead`] has seen
    /// (after its removals): what [`prune_globals`] would count over the functions section.
    pub fn function_uses(&self) -> &[u32] {
        &self.uses
    }
}

/// Counts (`add`) or uncounts a use of each word of instruction `inst` that may be an id:
/// every word after the opcode but the literals ([`literal_operands`]) and, when the
/// instruction is `removable` (then word 2 is its result), its result id. The counts
/// outlive the function, so a literal that equals a later function's id keeps that
/// result too (a use too many only keeps dead code).
#[inline]
fn count_uses(inst: &[Word], removable: bool, uses: &mut [u32], add: bool) {
    let literal = literal_operands(inst);
    for (k, &w) in inst.iter().enumerate().skip(1) {
        if literal.contains(&k) || (removable && k == 2) {
            continue;
        }
        if let Some(n) = uses.get_mut(w as usize) {
            *n = if add { *n + 1 } else { n.saturating_sub(1) };
        }
    }
}

/// Whether the instruction at the start of `inst` may be removed when its result is
/// unused; then its first operand word is at index 3.
/// The word positions of `inst` that are literals, for the instructions the emitter writes
/// often whose literals would otherwise count as uses: `OpExtInst`'s instruction number,
/// `OpCompositeExtract`'s and `OpCompositeInsert`'s indices, `OpVectorShuffle`'s
/// components. A literal equal to a dead id's number (`UMin` is 38) must not keep it
/// alive; other instructions count every word (a use too many only keeps dead code).
fn literal_operands(inst: &[Word]) -> std::ops::Range<usize> {
    let op = inst[0] & 0xffff;
    match op {
        o if o == Op::ExtInst as Word => 4..5,
        o if o == Op::CompositeExtract as Word => 4..inst.len(),
        o if o == Op::CompositeInsert as Word || o == Op::VectorShuffle as Word => 5..inst.len(),
        _ => 0..0,
    }
}

fn removable_inst(glsl: Option<Word>, inst: &[Word]) -> bool {
    let op = inst[0] & 0xffff;
    if inst.len() < 3 {
        return false;
    }
    if op == Op::Load as Word {
        inst.get(4).is_none_or(|&mask| mask & !PLAIN_ACCESS == 0)
    } else {
        pure_with(glsl, op, &inst[3..])
    }
}

/// Appends to `out` the instructions of `words` (a section of `OpName`s or decorations)
/// whose target (word 1) is not in `removed`.
pub fn extend_without_targets(out: &mut Vec<Word>, words: &[Word], removed: &IdSet) {
    if removed.is_empty() {
        out.extend_from_slice(words);
        return;
    }
    for (s, e) in spans(words) {
        if !words.get(s + 1).is_some_and(|&t| removed.contains(t)) {
            out.extend_from_slice(&words[s..e]);
        }
    }
}

/// Removes from `words` (a section of `OpName`s or decorations) the instructions whose
/// target (word 1) is in `removed`.
pub fn drop_targets(words: &mut Vec<Word>, removed: &IdSet) {
    let mut to = 0;
    let mut at = 0;
    while at < words.len() {
        let len = ((words[at] >> 16) as usize).max(1);
        let end = (at + len).min(words.len());
        if !words.get(at + 1).is_some_and(|&t| removed.contains(t)) {
            words.copy_within(at..end, to);
            to += end - at;
        }
        at = end;
    }
    words.truncate(to);
}

/// Whether the global instruction `inst` may go when nothing uses its result (types that
/// only other types, constants and variables refer to, scalar types among them: a 64-bit
/// value whose bitcasts folded away leaves its type unused; constants, undefs, storage-buffer
/// variables: a buffer reached only through other views of its binding), and where its
/// result id is (word 1 for types, word 2 for constants and variables).
fn removable_global(inst: &[Word]) -> Option<usize> {
    use Op::*;
    // Compared as words: decoding the opcode into an `Op` costs more than these tests.
    const TYPES: [Op; 9] =
        [TypeStruct, TypePointer, TypeArray, TypeRuntimeArray, TypeVector, TypeFunction, TypeInt, TypeFloat, TypeBool];
    const CONSTANTS: [Op; 6] = [Constant, ConstantTrue, ConstantFalse, ConstantNull, ConstantComposite, Undef];
    let op = inst[0] & 0xffff;
    let at = if TYPES.iter().any(|&o| o as Word == op) {
        1
    } else if CONSTANTS.iter().any(|&o| o as Word == op)
        || (op == Variable as Word && inst.get(3) == Some(&(StorageClass::StorageBuffer as Word)))
    {
        2
    } else {
        return None;
    };
    (at < inst.len()).then_some(at)
}

/// Where the interface ids of the `OpEntryPoint` `inst` start: after its name (the first
/// word with a zero byte ends the string).
fn interface_start(inst: &[Word]) -> usize {
    let name = inst.iter().skip(3).position(|w| w.to_le_bytes().contains(&0));
    name.map_or(inst.len(), |k| 3 + k + 1).min(inst.len())
}

/// Appends to `out` the entry points `words` without the interface ids in `removed`
/// (variables that [`prune_globals`] removed).
pub fn extend_without_interface(out: &mut Vec<Word>, words: &[Word], removed: &IdSet) {
    if removed.is_empty() {
        out.extend_from_slice(words);
        return;
    }
    for (s, e) in spans(words) {
        let inst = &words[s..e];
        if inst[0] & 0xffff != Op::EntryPoint as Word {
            out.extend_from_slice(inst);
            continue;
        }
        let head = out.len();
        let k = interface_start(inst);
        out.extend_from_slice(&inst[..k]);
        out.extend(inst[k..].iter().filter(|&&id| !removed.contains(id)));
        let len = (out.len() - head) as Word;
        out[head] = (len << 16) | (inst[0] & 0xffff);
    }
}

/// Whole instructions of `words`: (start, end) of each, in order.
pub fn spans(words: &[Word]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        (at < words.len()).then(|| {
            let end = (at + ((words[at] >> 16) as usize).max(1)).min(words.len());
            let span = (at, end);
            at = end;
            span
        })
    })
}

/// The global section `globals` without the types, constants, undefs and storage-buffer
/// variables nothing uses (removed last first, so that chains go), given the counts of the
/// uses in the functions (`function_uses`, [`Cleanup::function_uses`]) and the other
/// sections that may use them: `users` (entry points, execution modes: every operand word
/// counts, except an entry point's interface list, which only names the variables) and
/// `annotations` (decoration operands after the target count). Also returns the removed
/// ids, whose names, decorations and interface entries ([`extend_without_interface`]) must
/// go too. Uses are counted conservatively: any operand word equal to the id.
pub fn prune_globals(
    globals: &[Word],
    function_uses: &[u32],
    users: &[&[Word]],
    annotations: &[Word],
    bound: Word,
) -> (Vec<Word>, IdSet) {
    let mut uses = Vec::with_capacity(bound as usize);
    uses.extend_from_slice(&function_uses[..function_uses.len().min(bound as usize)]);
    uses.resize(bound as usize, 0);
    let count = |ws: &[Word], uses: &mut Vec<u32>| {
        for &w in ws {
            if let Some(n) = uses.get_mut(w as usize) {
                *n += 1;
            }
        }
    };
    for section in users {
        for (s, e) in spans(section) {
            let end =
                if section[s] & 0xffff == Op::EntryPoint as Word { s + interface_start(&section[s..e]) } else { e };
            let literal = literal_operands(&section[s..e]);
            if literal.is_empty() {
                count(&section[s + 1..end], &mut uses);
            } else {
                count(&section[s + 1..(s + literal.start).min(end)], &mut uses);
                count(&section[(s + literal.end).min(end)..end], &mut uses);
            }
        }
    }
    for (s, e) in spans(annotations) {
        // OpDecorate / OpMemberDecorate: target, then operands (ids only in OpDecorateId).
        if annotations[s] & 0xffff == Op::DecorateId as Word {
            count(&annotations[(s + 3).min(e)..e], &mut uses);
        }
    }
    // One entry per global instruction: its span, where its removable result is (word
    // index), whether it went. Global instructions average more than 3 words: room for all
    // of them at once.
    struct Global {
        start: usize,
        end: usize,
        result_at: Option<usize>,
        dead: bool,
    }
    let mut insts: Vec<Global> = Vec::with_capacity(globals.len() / 3 + 1);
    for (start, end) in spans(globals) {
        let result_at = removable_global(&globals[start..end]);
        for (k, &w) in globals[start + 1..end].iter().enumerate() {
            if Some(k + 1) != result_at {
                if let Some(n) = uses.get_mut(w as usize) {
                    *n += 1;
                }
            }
        }
        insts.push(Global { start, end, result_at, dead: false });
    }
    let mut removed = IdSet::default();
    for g in insts.iter_mut().rev() {
        let Some(at) = g.result_at else { continue };
        let id = globals[g.start + at];
        if uses.get(id as usize).copied().unwrap_or(0) != 0 {
            continue;
        }
        g.dead = true;
        removed.insert(id);
        for (k, &w) in globals[g.start + 1..g.end].iter().enumerate() {
            if k + 1 != at {
                if let Some(n) = uses.get_mut(w as usize) {
                    *n = n.saturating_sub(1);
                }
            }
        }
    }
    let mut out = Vec::with_capacity(globals.len());
    for g in insts.iter().filter(|g| !g.dead) {
        out.extend_from_slice(&globals[g.start..g.end]);
    }
    (out, removed)
}

/// The capabilities that only let a module declare scalar types of one width: `Int8`,
/// `Int16`, `Int64` (`OpTypeInt`), `Float16`, `Float64` (`OpTypeFloat`), with that width.
const WIDTH_CAPABILITIES: [(Capability, Op, Word); 5] = [
    (Capability::Int8, Op::TypeInt, 8),
    (Capability::Int16, Op::TypeInt, 16),
    (Capability::Int64, Op::TypeInt, 64),
    (Capability::Float16, Op::TypeFloat, 16),
    (Capability::Float64, Op::TypeFloat, 64),
];

/// Appends to `out` the `OpCapability` section `capabilities` without the width
/// capabilities ([`WIDTH_CAPABILITIES`]) whose type the global section `globals` no longer
/// declares (after [`prune_globals`]: a 64-bit integer assembled from two words and split
/// again leaves nothing of 64 bits). Declaring one without the type is valid but asks the
/// driver for a feature the module never uses. Capabilities that depend on one of these
/// (`Int64Atomics` on `Int64`, ...) declare it implicitly, so removing the explicit one
/// is safe wherever they stay. Cost: one pass over each section.
pub fn extend_width_capabilities_used(out: &mut Vec<Word>, capabilities: &[Word], globals: &[Word]) {
    let mut declared = [false; WIDTH_CAPABILITIES.len()];
    for (s, e) in spans(globals) {
        let (op, width) = (globals[s] & 0xffff, globals.get(s + 2).copied());
        for (k, &(_, type_op, w)) in WIDTH_CAPABILITIES.iter().enumerate() {
            declared[k] |= e > s + 2 && op == type_op as Word && width == Some(w);
        }
    }
    for (s, e) in spans(capabilities) {
        let inst = &capabilities[s..e];
        let unused = WIDTH_CAPABILITIES.iter().zip(declared).any(|(&(c, _, _), has)| {
            !has && inst[0] & 0xffff == Op::Capability as Word && inst.get(1) == Some(&(c as Word))
        });
        if !unused {
            out.extend_from_slice(inst);
        }
    }
}
