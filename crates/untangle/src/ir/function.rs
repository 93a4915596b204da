//! Functions and basic blocks.

use super::inst::{Inst, Terminator};
use super::types::TypeId;
use super::value::{BlockId, InstId};
use cranelift_entity::PrimaryMap;

#[derive(Clone, PartialEq, Debug)]
pub struct Param {
    pub name: Option<String>,
    pub ty: TypeId,
}

#[derive(Clone, PartialEq, Debug)]
pub struct Block {
    /// The LLVM label, kept for dumps; `None` for numbered blocks.
    pub name: Option<String>,
    /// Instructions in order; PHIs come first.
    pub insts: Vec<InstId>,
    pub terminator: Terminator,
}

#[derive(Clone, PartialEq, Debug)]
pub struct Function {
    pub name: String,
    /// The function's type (`Type::Function`).
    pub ty: TypeId,
    pub ret: TypeId,
    pub params: Vec<Param>,
    pub blocks: PrimaryMap<BlockId, Block>,
    pub insts: PrimaryMap<InstId, Inst>,
    /// Block layout order; `layout[0]` is the entry. Empty for declarations.
    pub layout: Vec<BlockId>,
}

impl Function {
    pub fn is_declaration(&self) -> bool {
        self.layout.is_empty()
    }

    pub fn entry(&self) -> Option<BlockId> {
        self.layout.first().copied()
    }

    /// The function's only block, when its body is one block that branches nowhere (most
    /// shaders): the analyses' fast path, which needs no graph, order or search (its
    /// dominator tree is the block alone, and it alone is reachable). `None` for anything
    /// else, a layout naming a block that does not exist included.
    pub fn single_block(&self) -> Option<BlockId> {
        match self.layout[..] {
            [b] if self.blocks.is_valid(b) && self.blocks[b].terminator.successors().is_empty() => Some(b),
            _ => None,
        }
    }

    /// Display name of a block: its LLVM label, or its position in layout order.
    pub fn block_label(&self, b: BlockId) -> String {
        match &self.blocks[b].name {
            Some(n) => n.clone(),
            None => format!("{}", b.as_u32_index()),
        }
    }

    pub fn block_by_name(&self, name: &str) -> Option<BlockId> {
        self.layout.iter().copied().find(|&b| self.blocks[b].name.as_deref() == Some(name))
    }
}

/// Small extension so typed ids print as plain numbers.
#[allow(clippy::wrong_self_convention)] // ids are `Copy`; `as_` reads as the cast it is
pub trait IndexExt {
    fn as_u32_index(self) -> u32;
}

impl<T: cranelift_entity::EntityRef> IndexExt for T {
    fn as_u32_index(self) -> u32 {
        self.index() as u32
    }
}
