//! The parser's symbol tables: named and numbered types ([`TypeTable`]), globals and
//! functions from the prescan ([`GlobalTable`]), and metadata nodes ([`MdTable`]). The
//! parser owns one of each; `types`, `module` and `metadata` fill and read them.

use super::lexer::Token;
use crate::ir::{FuncId, GlobalId, TypeId, Value};
use cranelift_entity::EntityRef;
use indexmap::IndexMap;
use std::collections::{BTreeMap, HashMap};

/// Where a type name is defined, and what parsing it produced so far.
#[derive(Clone, Debug)]
pub enum TypeDef {
    /// Not parsed yet: the definition's `%name` token index.
    Pending(usize),
    /// Being parsed (a reference now is a cycle through a nameless or alias type).
    InProgress,
    Done(TypeId),
}

#[derive(Default)]
pub struct TypeTable {
    pub named: HashMap<String, TypeDef>,
    pub numbered: HashMap<u32, TypeDef>,
    /// Token index after each definition, filled when it is parsed (for skipping it later).
    pub def_end: HashMap<usize, usize>,
}

/// Globals and functions by name, from the prescan.
#[derive(Default)]
pub struct GlobalTable {
    pub(super) by_name: HashMap<String, Value>,
    pub(super) numbered: Vec<Value>,
    pub(super) extern_weak: Vec<bool>,
    pub(super) global_defined: Vec<bool>,
    pub(super) func_defined: Vec<bool>,
    /// `(global, the pointer type a reference gave it, where)`: checked at the end.
    pub checks: Vec<(Value, TypeId, Token)>,
    /// The string attributes of each attribute group (`attributes #N = { ... }`).
    pub attr_groups: HashMap<u32, BTreeMap<String, String>>,
    /// Each function's attribute groups and string attributes written in its header:
    /// merged into the module's `function_attributes` at the end (groups are defined last).
    pub fn_attrs: Vec<(FuncId, Vec<u32>, BTreeMap<String, String>)>,
}

impl GlobalTable {
    pub fn is_extern_weak(&self, g: GlobalId) -> bool {
        self.extern_weak.get(g.index()).copied().unwrap_or(false)
    }
}

/// An operand of a metadata tuple.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MdOperand {
    Null,
    Node(u32),
    String(String),
    Value(TypeId, Value),
}

#[derive(Clone, Debug)]
pub enum RawNode {
    /// Referenced (first at this token) but not defined yet.
    Undefined(Token),
    Tuple {
        distinct: bool,
        ops: Vec<MdOperand>,
    },
    /// A specialised node (`!DIFile(...)`); its token, for the error if it is reached.
    Specialized(Token),
}

#[derive(Default)]
pub struct MdTable {
    pub slots: Vec<RawNode>,
    pub(super) numbered: HashMap<u32, u32>,
    pub named: IndexMap<String, Vec<u32>>,
}
