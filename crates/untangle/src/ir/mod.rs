//! untangle's own SSA IR.
//!
//! Module → functions → blocks → instructions, stored in arenas
//! ([`cranelift_entity::PrimaryMap`]) and named by typed indices, in the style of naga and
//! regalloc2. Types and constants are interned per module. Front ends (`crate::front::llvm`, the
//! native bitcode reader) build this IR; nothing from LLVM leaks past them.

/// The queries every interned pool ([`types::Types`], [`value::Constants`]) answers the same
/// way: `$pool` holds its items in `set` (an `IndexSet` whose index is the `$id`), so the
/// id of an item is its position, and interning an item already there returns its id.
/// Expanded in the module that defines `$id` (its index field is private there).
macro_rules! interned_pool {
    ($pool:ident, $id:ident, $item:ty) => {
        impl $pool {
            /// Make room for `additional` more items (for a front end that knows how many).
            pub fn reserve(&mut self, additional: usize) {
                self.set.reserve(additional);
            }

            /// The id of `item`, added to the pool if it is new.
            pub fn intern(&mut self, item: $item) -> $id {
                $id(self.set.insert_full(item).0 as u32)
            }

            pub fn get(&self, id: $id) -> &$item {
                // One bounds check (`IndexSet`'s `Index` asserts, then indexes again):
                // every pass asks this for nearly every value it looks at.
                match self.set.get_index(id.0 as usize) {
                    Some(item) => item,
                    None => panic!("{} {} out of range ({} items)", stringify!($id), id.0, self.set.len()),
                }
            }

            /// The id of `item` if it is in the pool.
            pub fn lookup(&self, item: &$item) -> Option<$id> {
                self.set.get_index_of(item).map(|i| $id(i as u32))
            }

            pub fn len(&self) -> usize {
                self.set.len()
            }

            pub fn is_empty(&self) -> bool {
                self.set.is_empty()
            }

            pub fn iter(&self) -> impl Iterator<Item = ($id, &$item)> {
                self.set.iter().enumerate().map(|(i, item)| ($id(i as u32), item))
            }
        }
    };
}

pub mod dump;
pub mod function;
pub mod hash;
pub mod inst;
pub mod metadata;
pub mod module;
pub mod ops;
pub mod types;
pub mod value;

pub use function::{Block, Function, IndexExt, Param};
pub use inst::*;
pub use metadata::{MdId, MdRef, MetadataTable, OperandRun};
pub use module::{Global, Module};
pub use ops::*;
pub use types::{FloatKind, StructBody, Type, TypeId, Types};
pub use value::{BlockId, ConstExprOp, ConstId, ConstKind, Constant, Constants, FuncId, GlobalId, InstId, Value};
