//! Where a resolved resource range lands in the lowered pipeline layout ([`Place`]): a
//! descriptor binding, or a root argument (heap table offset, root descriptor address or
//! root constants) in one of the argument stores ([`ArgStore`]).
//!
//! The layout report names a root argument's place by its kind and store together:
//! `heap_table`, `spilled_heap_table` (root argument buffer), `record_heap_table` (shader
//! record), and likewise `root_address` and `root_constants`.

use super::pipeline::ArgStore;
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// How the translated shader reaches one declared resource range.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Place {
    /// Descriptors at `(set, binding)`: register `r` is element `r - first_register`
    /// (`count`: the binding's descriptor count, `None` for a runtime array). `counter`:
    /// the binding of a UAV's counters, indexed the same way.
    Descriptor { set: u32, binding: u32, first_register: u32, count: Option<u32>, counter: Option<(u32, u32)> },
    /// `heap` tables: register `r` is heap element `word + offset_in_table +
    /// (r - base_register)` of the heap array of the resource's type, `word` being the
    /// table offset at byte `table_offset` of `store`.
    HeapTable { store: ArgStore, table_offset: u32, offset_in_table: u32, base_register: u32 },
    /// A root CBV/SRV/UAV whose buffer device address is at byte `offset` of `store`.
    RootAddress { store: ArgStore, offset: u32 },
    /// Root constants: `num_values` words at byte `offset` of `store`.
    RootConstants { store: ArgStore, offset: u32, num_values: u32 },
}

impl ArgStore {
    /// What the layout report puts before a root argument place's kind.
    fn report_prefix(self) -> &'static str {
        match self {
            ArgStore::PushConstants => "",
            ArgStore::RootArgumentBuffer => "spilled_",
            ArgStore::ShaderRecord => "record_",
        }
    }
}

impl Serialize for Place {
    /// `{"kind": ..., fields...}`, the kind naming the store of a root argument.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let kind = |store: ArgStore, name: &str| format!("{}{name}", store.report_prefix());
        match *self {
            Place::Descriptor { set, binding, first_register, count, counter } => {
                let mut out = s.serialize_struct("Place", 6)?;
                out.serialize_field("kind", "descriptor")?;
                out.serialize_field("set", &set)?;
                out.serialize_field("binding", &binding)?;
                out.serialize_field("first_register", &first_register)?;
                out.serialize_field("count", &count)?;
                out.serialize_field("counter", &counter)?;
                out.end()
            }
            Place::HeapTable { store, table_offset, offset_in_table, base_register } => {
                let mut out = s.serialize_struct("Place", 4)?;
                out.serialize_field("kind", &kind(store, "heap_table"))?;
                out.serialize_field("table_offset", &table_offset)?;
                out.serialize_field("offset_in_table", &offset_in_table)?;
                out.serialize_field("base_register", &base_register)?;
                out.end()
            }
            Place::RootAddress { store, offset } => {
                let mut out = s.serialize_struct("Place", 2)?;
                out.serialize_field("kind", &kind(store, "root_address"))?;
                out.serialize_field("offset", &offset)?;
                out.end()
            }
            Place::RootConstants { store, offset, num_values } => {
                let mut out = s.serialize_struct("Place", 3)?;
                out.serialize_field("kind", &kind(store, "root_constants"))?;
                out.serialize_field("offset", &offset)?;
                out.serialize_field("num_values", &num_values)?;
                out.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report keeps the names it had when each store was a variant of its own.
    #[test]
    fn report_names_kind_and_store() {
        let json = |p: Place| serde_json::to_string(&p).unwrap();
        assert_eq!(
            json(Place::HeapTable {
                store: ArgStore::RootArgumentBuffer,
                table_offset: 4,
                offset_in_table: 1,
                base_register: 2
            }),
            r#"{"kind":"spilled_heap_table","table_offset":4,"offset_in_table":1,"base_register":2}"#
        );
        assert_eq!(
            json(Place::RootAddress { store: ArgStore::ShaderRecord, offset: 8 }),
            r#"{"kind":"record_root_address","offset":8}"#
        );
        assert_eq!(
            json(Place::RootConstants { store: ArgStore::PushConstants, offset: 0, num_values: 3 }),
            r#"{"kind":"root_constants","offset":0,"num_values":3}"#
        );
        assert_eq!(
            json(Place::Descriptor { set: 1, binding: 2, first_register: 0, count: None, counter: Some((1, 3)) }),
            r#"{"kind":"descriptor","set":1,"binding":2,"first_register":0,"count":null,"counter":[1,3]}"#
        );
    }
}
