//! The type table (`TYPE_BLOCK_ID_NEW`, block 17) into interned IR types.
//!
//! Record codes and layouts from LLVM's `LLVMBitCodes.h` (`TYPE_CODE_*`) as LLVM 3.7's
//! reader interprets them: `NUMENTRY` is a size hint (ignored; never trusted for an
//! allocation), `STRUCT_NAME` names the next `STRUCT_NAMED` or `OPAQUE`, `FUNCTION`
//! is `[vararg, ret, params...]` (`FUNCTION_OLD` has an extra attribute id), pointers carry
//! their pointee and address space (typed pointers: LLVM 3.7).
//!
//! Only identified (named) structs may be referenced before they are defined, as in LLVM.
//! Types are converted in table order, so every other reference is already converted; the
//! nesting depth of a type (named structs cut it) is limited to [`MAX_TYPE_DEPTH`], which
//! bounds every later recursion over types (dumps, canonical ordering).
//!
//! Cost: the records' type-id lists (struct fields, function parameters) are kept in one
//! buffer while the block is read, so the only allocations are the interned types' own.

use super::bitstream::Res;
use super::cursor::Cursor;
use super::error::{malformed, unsupported, ErrorKind};
use crate::ir::{FloatKind, StructBody, Type, TypeId, Types};
use std::ops::Range;

pub const MAX_TYPE_DEPTH: u32 = 64;

/// A type record, its type-id lists as ranges of [`RawTable::lists`].
enum Raw {
    Ready(Type),
    Pointer { elem: u64, space: u64 },
    Array { elem: u64, len: u64 },
    Vector { elem: u64, len: u64 },
    Function { var_arg: bool, ret: u64, params: Range<usize> },
    Struct { packed: bool, fields: Range<usize> },
    Named { name: String, body: Option<(bool, Range<usize>)> },
}

#[derive(Default)]
struct RawTable {
    records: Vec<Raw>,
    /// Every record's type-id list, one after another.
    lists: Vec<u64>,
}

impl RawTable {
    /// Append a type-id list; its range in [`RawTable::lists`].
    fn list(&mut self, ids: &[u64]) -> Range<usize> {
        let start = self.lists.len();
        self.lists.extend_from_slice(ids);
        start..self.lists.len()
    }

    fn ids(&self, r: &Range<usize>) -> &[u64] {
        self.lists.get(r.clone()).unwrap_or(&[])
    }
}

/// Read the type block (after [`Entry::SubBlock`]) and intern every type; the result maps
/// bitcode type ids to IR ids.
pub fn read(cur: &mut Cursor, types: &mut Types) -> Res<Vec<TypeId>> {
    cur.enter(17)?;
    let mut raw = RawTable::default();
    // A size hint (DXC's type records average about 56 bits).
    raw.records.reserve((cur.bits_left_in_block() / 48) as usize);
    let mut pending_name: Option<String> = None;
    while let Some(code) = cur.next_record(|_| false)? {
        let ops = &cur.ops;
        let op = |i: usize| ops.get(i).copied().ok_or_else(|| malformed(format!("type record {code} too short")));
        let t = match code {
            1 => continue, // NUMENTRY
            2 => Raw::Ready(Type::Void),
            3 => Raw::Ready(Type::Float(FloatKind::Float)),
            4 => Raw::Ready(Type::Float(FloatKind::Double)),
            5 => Raw::Ready(Type::Label),
            10 => Raw::Ready(Type::Float(FloatKind::Half)),
            13 => Raw::Ready(Type::Float(FloatKind::X86Fp80)),
            14 => Raw::Ready(Type::Float(FloatKind::Fp128)),
            16 => Raw::Ready(Type::Metadata),
            22 => Raw::Ready(Type::Token),
            7 => {
                let w = op(0)?;
                if w == 0 || w >= 1 << 24 {
                    return Err(malformed(format!("integer width {w}")));
                }
                Raw::Ready(Type::Int(w as u32))
            }
            8 => Raw::Pointer { elem: op(0)?, space: ops.get(1).copied().unwrap_or(0) },
            11 => Raw::Array { len: op(0)?, elem: op(1)? },
            12 => Raw::Vector { len: op(0)?, elem: op(1)? },
            9 => Raw::Function { var_arg: op(0)? != 0, ret: op(2)?, params: raw.list(ops.get(3..).unwrap_or(&[])) },
            21 => Raw::Function { var_arg: op(0)? != 0, ret: op(1)?, params: raw.list(ops.get(2..).unwrap_or(&[])) },
            18 => Raw::Struct { packed: op(0)? != 0, fields: raw.list(ops.get(1..).unwrap_or(&[])) },
            19 => {
                pending_name = Some(super::symtab::string_of(ops)?);
                continue;
            }
            20 | 6 => {
                let name = pending_name.take().ok_or_else(|| unsupported("unnamed identified struct"))?;
                let body = if code == 20 { Some((op(0)? != 0, raw.list(ops.get(1..).unwrap_or(&[])))) } else { None };
                Raw::Named { name, body }
            }
            other => return Err(unsupported(format!("type code {other}"))),
        };
        raw.records.push(t);
    }
    convert(raw, types)
}

fn convert(mut raw: RawTable, types: &mut Types) -> Res<Vec<TypeId>> {
    let n = raw.records.len();
    types.reserve(n);
    let mut ids: Vec<Option<TypeId>> = vec![None; n];
    let mut depth = vec![1u32; n];
    // Named structs first: they may be referenced before their definition. The name moves
    // into the table (an interned name that does not grow the table is a duplicate).
    for (i, r) in raw.records.iter_mut().enumerate() {
        if let Raw::Named { name, .. } = r {
            let before = types.len();
            let id = types.intern(Type::Named(std::mem::take(name)));
            if types.len() == before {
                let Type::Named(name) = types.get(id) else { return Err(malformed("named struct")) };
                return Err(unsupported(format!("duplicate struct name `{name}`")));
            }
            ids[i] = Some(id);
        }
    }
    let raw = &raw;
    let get = |ids: &[Option<TypeId>], depth: &[u32], r: u64| -> Res<(TypeId, u32)> {
        let i = usize::try_from(r).map_err(|_| malformed("type id"))?;
        match (ids.get(i).copied().flatten(), depth.get(i)) {
            (Some(t), Some(&d)) => Ok((t, d)),
            _ => Err(malformed(format!("type id {r} used before its definition"))),
        }
    };
    for i in 0..n {
        let (ty, d) = match &raw.records[i] {
            Raw::Named { .. } => continue,
            Raw::Ready(t) => (t.clone(), 1),
            Raw::Pointer { elem, space } => {
                let (e, d) = get(&ids, &depth, *elem)?;
                if matches!(types.get(e), Type::Void | Type::Label | Type::Metadata | Type::Token) {
                    return Err(malformed("pointer to a non-pointee type"));
                }
                let addr_space = u32::try_from(*space).map_err(|_| malformed("address space"))?;
                (Type::Pointer { pointee: e, addr_space }, d + 1)
            }
            Raw::Array { elem, len } => {
                let (e, d) = get(&ids, &depth, *elem)?;
                if !aggregate_element(types.get(e)) {
                    return Err(malformed("invalid array element type"));
                }
                (Type::Array { elem: e, len: *len }, d + 1)
            }
            Raw::Vector { elem, len } => {
                let (e, d) = get(&ids, &depth, *elem)?;
                if !matches!(types.get(e), Type::Int(_) | Type::Float(_) | Type::Pointer { .. }) {
                    return Err(malformed("invalid vector element type"));
                }
                let len = u32::try_from(*len).ok().filter(|&l| l > 0).ok_or_else(|| malformed("vector length"))?;
                (Type::Vector { elem: e, len }, d + 1)
            }
            Raw::Function { var_arg, ret, params } => {
                let (r, mut d) = get(&ids, &depth, *ret)?;
                if matches!(types.get(r), Type::Function { .. } | Type::Label | Type::Metadata) {
                    return Err(malformed("invalid return type"));
                }
                let params = raw.ids(params);
                let mut ps = Vec::with_capacity(params.len());
                for &p in params {
                    let (p, pd) = get(&ids, &depth, p)?;
                    if matches!(types.get(p), Type::Void | Type::Function { .. }) {
                        return Err(malformed("invalid parameter type"));
                    }
                    d = d.max(pd);
                    ps.push(p);
                }
                (Type::Function { ret: r, params: ps, var_arg: *var_arg }, d + 1)
            }
            Raw::Struct { packed, fields } => {
                let (fs, d) = fields_of(&ids, &depth, raw.ids(fields), types, &get)?;
                (Type::Struct { fields: fs, packed: *packed }, d + 1)
            }
        };
        if d > MAX_TYPE_DEPTH {
            return Err(ErrorKind::Malformed(format!("type nested deeper than {MAX_TYPE_DEPTH}")));
        }
        ids[i] = Some(types.intern(ty));
        depth[i] = d;
    }
    for (i, r) in raw.records.iter().enumerate() {
        if let Raw::Named { body, .. } = r {
            let id = ids[i].ok_or_else(|| malformed("named struct"))?;
            let body = match body {
                None => StructBody { fields: None, packed: false },
                Some((packed, fields)) => {
                    let (fs, _) = fields_of(&ids, &depth, raw.ids(fields), types, &get)?;
                    StructBody { fields: Some(fs), packed: *packed }
                }
            };
            types.set_body(id, body);
        }
    }
    ids.into_iter().map(|t| t.ok_or_else(|| malformed("type table hole"))).collect()
}

type Getter<'g> = dyn Fn(&[Option<TypeId>], &[u32], u64) -> Res<(TypeId, u32)> + 'g;

fn fields_of(
    ids: &[Option<TypeId>],
    depth: &[u32],
    fields: &[u64],
    types: &Types,
    get: &Getter,
) -> Res<(Vec<TypeId>, u32)> {
    let mut d = 0;
    let mut fs = Vec::with_capacity(fields.len());
    for &f in fields {
        let (t, fd) = get(ids, depth, f)?;
        if !aggregate_element(types.get(t)) {
            return Err(malformed("invalid struct element type"));
        }
        d = d.max(fd);
        fs.push(t);
    }
    Ok((fs, d))
}

fn aggregate_element(t: &Type) -> bool {
    !matches!(t, Type::Void | Type::Label | Type::Metadata | Type::Function { .. } | Type::Token)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(records: Vec<Raw>, lists: Vec<u64>) -> RawTable {
        RawTable { records, lists }
    }

    fn pointers(n: u64) -> RawTable {
        let mut raw = vec![Raw::Ready(Type::Int(8))];
        raw.extend((0..n).map(|i| Raw::Pointer { elem: i, space: 0 }));
        table(raw, Vec::new())
    }

    #[test]
    fn nesting_is_limited() {
        assert!(convert(pointers(MAX_TYPE_DEPTH as u64 - 1), &mut Types::default()).is_ok());
        assert!(convert(pointers(MAX_TYPE_DEPTH as u64 + 10), &mut Types::default()).is_err());
    }

    #[test]
    fn only_named_structs_may_be_used_before_their_definition() {
        let forward_int = table(vec![Raw::Pointer { elem: 1, space: 0 }, Raw::Ready(Type::Int(8))], Vec::new());
        assert!(convert(forward_int, &mut Types::default()).is_err());
        // A self-referential list node: %node = type { %node* }.
        let list = table(
            vec![Raw::Named { name: "node".into(), body: Some((false, 0..1)) }, Raw::Pointer { elem: 0, space: 0 }],
            vec![1],
        );
        let mut types = Types::default();
        let ids = convert(list, &mut types).expect("recursive named struct");
        assert_eq!(types.struct_fields(ids[0]), Some(&[ids[1]][..]));
    }

    #[test]
    fn duplicate_struct_names_are_refused() {
        let twice = table(
            vec![Raw::Named { name: "s".into(), body: None }, Raw::Named { name: "s".into(), body: None }],
            Vec::new(),
        );
        assert!(matches!(convert(twice, &mut Types::default()), Err(ErrorKind::Unsupported(m)) if m.contains("`s`")));
    }
}
