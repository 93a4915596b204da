//! Named metadata, as far as DXIL needs it.
//!
//! DXIL keeps the shader's interface (entry points, resources, signatures, shader model)
//! in named metadata. Front ends convert it into this small tree: nodes, strings and
//! typed values. Debug-info metadata is not kept.

use super::types::TypeId;
use super::value::Value;
use cranelift_entity::{entity_impl, PrimaryMap};
use indexmap::IndexMap;

#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MdId(u32);
entity_impl!(MdId, "md");

#[derive(Clone, PartialEq, Debug)]
pub enum Metadata {
    /// A tuple; `None` operands are `null`.
    Node(Vec<Option<MdId>>),
    String(String),
    /// A value wrapped as metadata (`i32 4`, `void ()* @main`, `%T* undef`).
    Value {
        ty: TypeId,
        value: Value,
    },
    /// Metadata kinds we do not model (debug info and the like).
    Other,
}

#[derive(Clone, Debug, Default)]
pub struct MetadataTable {
    pub nodes: PrimaryMap<MdId, Metadata>,
    /// Named metadata in module order: `!dx.entryPoints = !{...}`.
    pub named: IndexMap<String, Vec<MdId>>,
}

impl MetadataTable {
    pub fn get(&self, id: MdId) -> &Metadata {
        &self.nodes[id]
    }

    pub fn named(&self, name: &str) -> &[MdId] {
        self.named.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Operands of a node, or `None` if `id` is not a node.
    pub fn operands(&self, id: MdId) -> Option<&[Option<MdId>]> {
        match &self.nodes[id] {
            Metadata::Node(ops) => Some(ops),
            _ => None,
        }
    }

    pub fn string(&self, id: MdId) -> Option<&str> {
        match &self.nodes[id] {
            Metadata::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn value(&self, id: MdId) -> Option<(TypeId, Value)> {
        match &self.nodes[id] {
            Metadata::Value { ty, value } => Some((*ty, *value)),
            _ => None,
        }
    }
}
