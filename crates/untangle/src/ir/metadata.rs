//! Named metadata, as far as DXIL needs it.
//!
//! DXIL keeps the shader's interface (entry points, resources, signatures, shader model)
//! in named metadata. Front ends convert it into this small graph: tuples, strings and
//! typed values, numbered by [`MdId`]. Debug-info metadata is not kept.
//!
//! **Storage.** A [`MetadataTable`] owns no allocation per node: every tuple's operands lie
//! in one shared operand pool, every string's bytes (and every metadata name) in one shared
//! text buffer, and every named metadata list in one shared pool of ids. An entry refers to
//! its part of a pool by a span (`u32` start and length); readers get borrowed views
//! ([`MdRef`], `&[Option<MdId>]`, `&str`), never copies. Building a table costs amortized
//! O(1) per operand and per byte; a whole module's metadata costs a handful of allocations
//! (the pools' growth), whatever the number of nodes.
//!
//! **Invariants.** Every span lies inside its pool; text spans start and end on character
//! boundaries (only whole `&str`s are appended). Pools only grow: re-filling a tuple
//! ([`MetadataTable::set_node`]) or a name ([`MetadataTable::set_named`]) appends the new
//! list and leaves the old slots unreferenced (front ends fill each tuple once, so nothing
//! is wasted in practice). Names are unique and kept in the order first set (module order).
//! Pools are indexed by `u32`: a table holds fewer than 2^32 operands and text bytes (a
//! module that large exhausts memory while being read long before).

use super::types::TypeId;
use super::value::Value;
use cranelift_entity::PrimaryMap;

entity!(pub struct MdId, "md");

/// A borrowed view of one metadata entry.
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum MdRef<'a> {
    /// A tuple; `None` operands are `null`.
    Node(&'a [Option<MdId>]),
    String(&'a str),
    /// A value wrapped as metadata (`i32 4`, `void ()* @main`, `%T* undef`).
    Value {
        ty: TypeId,
        value: Value,
    },
    /// Metadata kinds we do not model (debug info and the like), and tuples whose operands
    /// are not filled in yet ([`MetadataTable::push_placeholder`]).
    Other,
}

/// A run of a pool: `len` items from `start`.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    /// The span from `start` to the pool's current length `end`.
    fn between(start: usize, end: usize) -> Span {
        Span { start: pool_index(start), len: pool_index(end - start) }
    }

    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
}

/// A pool position as `u32` (see the module docs for why it fits).
fn pool_index(n: usize) -> u32 {
    u32::try_from(n).expect("metadata pools hold fewer than 2^32 items")
}

/// One entry's storage.
#[derive(Copy, Clone, PartialEq, Debug)]
enum Entry {
    /// Operands: a span of the operand pool (`MetadataTable.operands`).
    Node(Span),
    /// Bytes: a span of the text buffer (`MetadataTable.text`).
    String(Span),
    Value {
        ty: TypeId,
        value: Value,
    },
    Other,
}

/// Named metadata `!name = !{...}`: the name a span of the text, the ids a span of the
/// named pool.
#[derive(Copy, Clone, PartialEq, Debug)]
struct Named {
    name: Span,
    ops: Span,
}

/// A list whose items are being appended to a pool ([`MetadataTable::begin_operands`],
/// [`MetadataTable::begin_named`]).
#[must_use]
pub struct OperandRun {
    start: usize,
}

/// The module's metadata (module docs: storage and invariants).
#[derive(Clone, Default)]
pub struct MetadataTable {
    entries: PrimaryMap<MdId, Entry>,
    /// Every tuple's operands, one tuple after another.
    operands: Vec<Option<MdId>>,
    /// Every string's and every name's bytes, one after another.
    text: String,
    /// Named metadata in module order.
    named: Vec<Named>,
    /// Every named metadata's ids, one list after another.
    named_ops: Vec<MdId>,
}

impl MetadataTable {
    /// Room for `entries` more entries, `operands` more tuple operands and `text` more bytes.
    pub fn reserve(&mut self, entries: usize, operands: usize, text: usize) {
        self.entries.reserve(entries);
        self.operands.reserve(operands);
        self.text.reserve(text);
    }

    /// Room for `names` more named metadata holding `ids` more ids in all.
    pub fn reserve_named(&mut self, names: usize, ids: usize) {
        self.named.reserve(names);
        self.named_ops.reserve(ids);
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn view(&self, e: &Entry) -> MdRef<'_> {
        match *e {
            Entry::Node(s) => MdRef::Node(&self.operands[s.range()]),
            Entry::String(s) => MdRef::String(&self.text[s.range()]),
            Entry::Value { ty, value } => MdRef::Value { ty, value },
            Entry::Other => MdRef::Other,
        }
    }

    pub fn get(&self, id: MdId) -> MdRef<'_> {
        self.view(&self.entries[id])
    }

    /// Every entry in id order.
    pub fn iter(&self) -> impl Iterator<Item = (MdId, MdRef<'_>)> + '_ {
        self.entries.iter().map(|(id, e)| (id, self.view(e)))
    }

    /// The ids of named metadata `name` (empty if there is none).
    pub fn named(&self, name: &str) -> &[MdId] {
        match self.named.iter().find(|n| &self.text[n.name.range()] == name) {
            Some(n) => &self.named_ops[n.ops.range()],
            None => &[],
        }
    }

    /// Named metadata in module order.
    pub fn named_lists(&self) -> impl Iterator<Item = (&str, &[MdId])> + '_ {
        self.named.iter().map(|n| (&self.text[n.name.range()], &self.named_ops[n.ops.range()]))
    }

    /// Operands of a node, or `None` if `id` is not a node.
    pub fn operands(&self, id: MdId) -> Option<&[Option<MdId>]> {
        match self.entries[id] {
            Entry::Node(s) => Some(&self.operands[s.range()]),
            _ => None,
        }
    }

    /// Operands of a node for rewriting in place, or `None` if `id` is not a node.
    pub fn operands_mut(&mut self, id: MdId) -> Option<&mut [Option<MdId>]> {
        match self.entries[id] {
            Entry::Node(s) => Some(&mut self.operands[s.range()]),
            _ => None,
        }
    }

    pub fn string(&self, id: MdId) -> Option<&str> {
        match self.entries[id] {
            Entry::String(s) => Some(&self.text[s.range()]),
            _ => None,
        }
    }

    pub fn value(&self, id: MdId) -> Option<(TypeId, Value)> {
        match self.entries[id] {
            Entry::Value { ty, value } => Some((ty, value)),
            _ => None,
        }
    }

    /// Every value entry's type and value, for rewriting in place.
    pub fn values_mut(&mut self) -> impl Iterator<Item = (&mut TypeId, &mut Value)> + '_ {
        self.entries.values_mut().filter_map(|e| match e {
            Entry::Value { ty, value } => Some((ty, value)),
            _ => None,
        })
    }

    /// Make `id` the value `value` of type `ty` (whatever it was).
    pub fn set_value(&mut self, id: MdId, ty: TypeId, value: Value) {
        self.entries[id] = Entry::Value { ty, value };
    }

    pub fn push_node(&mut self, ops: &[Option<MdId>]) -> MdId {
        let start = self.operands.len();
        self.operands.extend_from_slice(ops);
        self.entries.push(Entry::Node(Span::between(start, self.operands.len())))
    }

    pub fn push_string(&mut self, s: &str) -> MdId {
        let start = self.text.len();
        self.text.push_str(s);
        self.entries.push(Entry::String(Span::between(start, self.text.len())))
    }

    /// A string from bytes, invalid UTF-8 replaced as [`String::from_utf8_lossy`] does,
    /// appended to the text without an intermediate `String`.
    pub fn push_string_lossy(&mut self, bytes: &[u8]) -> MdId {
        let start = self.text.len();
        // Valid UTF-8 (the usual case) is validated word at a time, not chunk by chunk.
        if let Ok(s) = std::str::from_utf8(bytes) {
            self.text.push_str(s);
            return self.entries.push(Entry::String(Span::between(start, self.text.len())));
        }
        for chunk in bytes.utf8_chunks() {
            self.text.push_str(chunk.valid());
            if !chunk.invalid().is_empty() {
                self.text.push(char::REPLACEMENT_CHARACTER);
            }
        }
        self.entries.push(Entry::String(Span::between(start, self.text.len())))
    }

    pub fn push_value(&mut self, ty: TypeId, value: Value) -> MdId {
        self.entries.push(Entry::Value { ty, value })
    }

    /// An entry of a kind not modelled.
    pub fn push_other(&mut self) -> MdId {
        self.entries.push(Entry::Other)
    }

    /// An id for a tuple whose operands come later ([`MetadataTable::set_node`] or
    /// [`MetadataTable::begin_operands`]); it reads as [`MdRef::Other`] until then.
    pub fn push_placeholder(&mut self) -> MdId {
        self.entries.push(Entry::Other)
    }

    /// Make `id` the tuple `ops`.
    pub fn set_node(&mut self, id: MdId, ops: &[Option<MdId>]) {
        let start = self.operands.len();
        self.operands.extend_from_slice(ops);
        self.entries[id] = Entry::Node(Span::between(start, self.operands.len()));
    }

    /// Start appending a tuple's operands one by one ([`MetadataTable::push_operand`]), for
    /// front ends that find operand ids while filling (no list in between). No other tuple
    /// may be pushed or set until [`MetadataTable::end_operands`].
    pub fn begin_operands(&self) -> OperandRun {
        OperandRun { start: self.operands.len() }
    }

    pub fn push_operand(&mut self, op: Option<MdId>) {
        self.operands.push(op);
    }

    /// Make `id` the tuple of the operands pushed since `run` began.
    pub fn end_operands(&mut self, id: MdId, run: OperandRun) {
        self.entries[id] = Entry::Node(Span::between(run.start, self.operands.len()));
    }

    /// Set named metadata `name` to `ops`: a new name goes last, an existing one keeps its
    /// place and gets the new list (as `IndexMap::insert` does).
    pub fn set_named(&mut self, name: &str, ops: &[MdId]) {
        let run = self.begin_named();
        self.named_ops.extend_from_slice(ops);
        self.end_named(name, run);
    }

    /// Start appending a named metadata's ids one by one ([`MetadataTable::push_named_id`]),
    /// for front ends that find the ids while filling (no list in between). No other named
    /// metadata may be set until [`MetadataTable::end_named`].
    pub fn begin_named(&self) -> OperandRun {
        OperandRun { start: self.named_ops.len() }
    }

    pub fn push_named_id(&mut self, id: MdId) {
        self.named_ops.push(id);
    }

    /// Set named metadata `name` (as [`MetadataTable::set_named`] does) to the ids pushed
    /// since `run` began.
    pub fn end_named(&mut self, name: &str, run: OperandRun) {
        let ops = Span::between(run.start, self.named_ops.len());
        if let Some(n) = self.named.iter_mut().find(|n| &self.text[n.name.range()] == name) {
            n.ops = ops;
            return;
        }
        let start = self.text.len();
        self.text.push_str(name);
        self.named.push(Named { name: Span::between(start, self.text.len()), ops });
    }
}

impl std::fmt::Debug for MetadataTable {
    /// The logical content (entries and named lists), not the pools.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetadataTable")
            .field("nodes", &self.iter().collect::<Vec<_>>())
            .field("named", &self.named_lists().collect::<Vec<_>>())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooled_entries_read_back() {
        let mut t = MetadataTable::default();
        let s = t.push_string("cs");
        let bad = t.push_string_lossy(b"a\xffb\xe2\x82");
        let placeholder = t.push_placeholder();
        let n = t.push_node(&[Some(s), None]);
        assert_eq!(t.get(placeholder), MdRef::Other);
        let run = t.begin_operands();
        t.push_operand(Some(n));
        t.push_operand(Some(bad));
        t.end_operands(placeholder, run);
        t.set_named("dx.version", &[n]);
        let run = t.begin_named();
        t.push_named_id(placeholder);
        t.push_named_id(n);
        t.end_named("dx.entryPoints", run);
        t.set_named("dx.version", &[placeholder]);
        assert_eq!(t.string(s), Some("cs"));
        assert_eq!(t.string(bad), Some(String::from_utf8_lossy(b"a\xffb\xe2\x82").as_ref()));
        assert_eq!(t.operands(n), Some(&[Some(s), None][..]));
        assert_eq!(t.get(placeholder), MdRef::Node(&[Some(n), Some(bad)]));
        assert_eq!(t.named("dx.version"), &[placeholder]);
        assert_eq!(t.named("dx.entryPoints"), &[placeholder, n]);
        assert_eq!(t.named("dx.resources"), &[] as &[MdId]);
        let names: Vec<&str> = t.named_lists().map(|(name, _)| name).collect();
        assert_eq!(names, ["dx.version", "dx.entryPoints"]);
        t.operands_mut(n).unwrap()[1] = Some(bad);
        assert_eq!(t.operands(n), Some(&[Some(s), Some(bad)][..]));
        assert_eq!(t.len(), 4);
    }
}
