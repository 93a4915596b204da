//! The module: types, constants, globals, functions and metadata.

use super::function::Function;
use super::metadata::MetadataTable;
use super::types::{Type, TypeId, Types};
use super::value::{ConstId, Constants, FuncId, GlobalId, Value};
use cranelift_entity::PrimaryMap;
use std::collections::BTreeMap;

#[derive(Clone, PartialEq, Debug)]
pub struct Global {
    pub name: String,
    /// The type of the global's value; the global itself is a pointer to it.
    pub value_ty: TypeId,
    /// The pointer type of the global.
    pub ty: TypeId,
    pub addr_space: u32,
    pub is_constant: bool,
    pub initializer: Option<ConstId>,
    pub align: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Module {
    pub source_name: String,
    pub data_layout: String,
    pub triple: String,
    pub types: Types,
    pub constants: Constants,
    pub globals: PrimaryMap<GlobalId, Global>,
    pub functions: PrimaryMap<FuncId, Function>,
    pub metadata: MetadataTable,
    /// The string function attributes (`"key"` or `"key"="value"`; a key alone has the
    /// empty value) of the functions that have some, by function name: DXC marks entries
    /// with them (`"waveops-include-helper-lanes"` in SM 6.7 pixel shaders,
    /// `"fp32-denorm-mode"="ftz"`). Enum and integer attributes are not kept.
    pub function_attributes: BTreeMap<String, BTreeMap<String, String>>,
}

impl Module {
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions.iter().find(|(_, f)| f.name == name).map(|(id, _)| id)
    }

    /// Whether function `f` carries string attribute `key` (with any value).
    pub fn function_has_attribute(&self, f: &Function, key: &str) -> bool {
        self.function_attribute(f, key).is_some()
    }

    /// The value of function `f`'s string attribute `key` (empty for a key alone).
    pub fn function_attribute(&self, f: &Function, key: &str) -> Option<&str> {
        self.function_attributes.get(&f.name).and_then(|a| a.get(key)).map(String::as_str)
    }

    /// The type of value `v` of function `f`, as far as the module knows it (a function's
    /// address: the pointer type to its type, where the module has one).
    #[inline]
    pub fn value_type(&self, f: &Function, v: Value) -> Option<TypeId> {
        match v {
            Value::Inst(i) => Some(f.insts[i].ty),
            Value::Arg(a) => f.params.get(a as usize).map(|p| p.ty),
            Value::Const(c) => Some(self.constants.get(c).ty),
            Value::Global(g) => Some(self.globals[g].ty),
            Value::Func(fid) => {
                let t = self.functions[fid].ty;
                self.types.lookup(&Type::Pointer { pointee: t, addr_space: 0 })
            }
            Value::Metadata => self.types.lookup(&Type::Metadata),
        }
    }

    /// Functions with bodies, in module order.
    pub fn defined_functions(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.functions.iter().filter(|(_, f)| !f.is_declaration())
    }
}
