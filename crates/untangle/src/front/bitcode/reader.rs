//! The module reader's state ([`Reader`]): the module being built, the type table, the
//! value list the blocks index ([`Slot`]), and the metadata read so far. The module,
//! constants, metadata and function blocks all read into it; this module reads no block.

use super::bitstream::Res;
use super::error::malformed;
use super::layout::DataLayout;
use crate::ir::*;
use std::borrow::Cow;
use std::ops::Range;

/// One entry of the value list.
#[derive(Clone, Debug)]
pub enum Slot {
    Val(Value, TypeId),
    /// A constant read but not resolved yet: record `raw` of its block's
    /// [`constants::RawConsts`].
    Pending {
        ty: TypeId,
        raw: u32,
        visiting: bool,
    },
    /// A constant being resolved.
    Busy,
}

/// The reader's working lists, which the module read does not keep: a caller reading
/// modules in a row keeps them between reads ([`super::ReadCache`]), so that their
/// capacity is reused instead of grown again for every module. Empty between reads.
#[derive(Default)]
pub struct Buffers {
    values: Vec<Slot>,
    depths: Vec<u32>,
    md: ModuleMetadata,
}

impl ModuleMetadata {
    fn clear(&mut self) {
        self.slots.clear();
        self.named.clear();
        self.bytes.clear();
        self.lists.clear();
    }
}

pub struct Reader {
    pub m: Module,
    pub type_ids: Vec<TypeId>,
    pub values: Vec<Slot>,
    /// The data layout's alignments, parsed from `m.data_layout` when first needed (only
    /// instructions with an unspecified alignment need them).
    layout: Option<DataLayout>,
    pub md: ModuleMetadata,
    /// Nesting depth of each constant, by `ConstId` index.
    pub depths: Vec<u32>,
    /// Upper bound for counts that cost memory (the input's size in bits).
    pub budget_values: usize,
}

impl Reader {
    /// A reader for a module named `name` whose input has `budget_values` bits, working in
    /// `buffers` (empty ones for a single read).
    pub fn new(name: &str, budget_values: usize, buffers: Buffers) -> Reader {
        let Buffers { values, depths, md } = buffers;
        Reader {
            m: Module { source_name: name.to_string(), ..Module::default() },
            type_ids: Vec::new(),
            values,
            layout: None,
            md,
            depths,
            budget_values,
        }
    }

    /// The module read, and the buffers emptied for the next read.
    pub fn finish(self) -> (Module, Buffers) {
        let Reader { m, mut values, mut depths, mut md, .. } = self;
        values.clear();
        depths.clear();
        md.clear();
        (m, Buffers { values, depths, md })
    }

    pub fn ty(&self, id: u64) -> Res<TypeId> {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.type_ids.get(i).copied())
            .ok_or_else(|| malformed(format!("type id {id} is not defined")))
    }

    pub fn is_fp(&self, t: TypeId) -> bool {
        self.m.types.is_fp_like(t)
    }

    pub fn is_int(&self, t: TypeId) -> bool {
        self.m.types.is_int_like(t)
    }

    pub fn intern(&mut self, c: Constant, depth: u32) -> ConstId {
        let id = self.m.constants.intern(c);
        let i = cranelift_entity::EntityRef::index(id);
        // A new constant is the pool's last entry.
        if i == self.depths.len() {
            self.depths.push(depth);
        } else if i > self.depths.len() {
            self.depths.resize(i + 1, depth);
        }
        id
    }

    /// Sets the module's data layout (parsed again when an alignment is next asked for).
    pub fn set_data_layout(&mut self, layout: String) {
        self.m.data_layout = layout;
        self.layout = None;
    }

    /// ABI alignment of `t` in bytes, from the data layout.
    pub fn abi_align(&mut self, t: TypeId) -> u32 {
        let layout = self.layout.get_or_insert_with(|| DataLayout::parse(&self.m.data_layout));
        layout.abi_align(&self.m.types, t)
    }

    /// Preferred alignment of `t` in bytes, from the data layout.
    pub fn pref_align(&mut self, t: TypeId) -> u32 {
        let layout = self.layout.get_or_insert_with(|| DataLayout::parse(&self.m.data_layout));
        layout.pref_align(&self.m.types, t)
    }

    pub fn const_depth(&self, c: ConstId) -> u32 {
        self.depths.get(cranelift_entity::EntityRef::index(c)).copied().unwrap_or(1)
    }
}

/// A metadata record: strings as ranges of [`ModuleMetadata::bytes`], node operands as
/// ranges of [`ModuleMetadata::lists`].
pub enum RawMd {
    String(Range<usize>),
    Value { ty: crate::ir::TypeId, value: u64 },
    Node(Range<usize>),
    Other,
}

#[derive(Default)]
pub struct ModuleMetadata {
    pub slots: Vec<RawMd>,
    /// Named metadata records in module order: the name as a range of
    /// [`ModuleMetadata::bytes`], the operands (metadata ids) as a range of
    /// [`ModuleMetadata::lists`]. A name may repeat.
    pub named: Vec<(Range<usize>, Range<usize>)>,
    /// Every string's bytes, one after another.
    pub bytes: Vec<u8>,
    /// Every node's operands (metadata id + 1, 0 for null), one after another.
    pub lists: Vec<u64>,
}

impl ModuleMetadata {
    /// The bytes of the string in `r`.
    pub fn string_bytes(&self, r: &Range<usize>) -> &[u8] {
        self.bytes.get(r.clone()).unwrap_or(&[])
    }

    /// The string in `r` (invalid UTF-8 replaced, as the LLVM front end does; borrowed
    /// unless it had to be). Valid UTF-8, which DXC writes, is checked by the standard
    /// library's word-at-a-time validation, several times cheaper than the chunk walk
    /// of [`String::from_utf8_lossy`].
    pub fn string(&self, r: &Range<usize>) -> Cow<'_, str> {
        let bytes = self.string_bytes(r);
        match std::str::from_utf8(bytes) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(bytes),
        }
    }
}
