//! untangle's own SSA IR.
//!
//! Module → functions → blocks → instructions, stored in arenas
//! ([`cranelift_entity::PrimaryMap`]) and named by typed indices, in the style of naga and
//! regalloc2. Types and constants are interned per module. Front ends (`crate::front::llvm`, the
//! native bitcode reader) build this IR; nothing from LLVM leaks past them.

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
