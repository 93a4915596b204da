//! Typed access to metadata tuples, with errors that say where in the metadata we were.
//!
//! Cost: a tuple's path is kept as its root's name (borrowed) and the operand indices below
//! it, and formatted only for an error message; operands, strings and tag/value pairs are
//! read in place from the metadata table's pools, so walking the metadata allocates nothing
//! per tuple.

use super::error::{Error, Result};
use crate::ir::{ConstKind, FuncId, MdId, MdRef, Module, Type, TypeId, Value};
use smallvec::SmallVec;

/// A metadata tuple being read, with its path for error messages (`dx.resources[1][0]`).
#[derive(Clone)]
pub(crate) struct Tuple<'m> {
    pub m: &'m Module,
    pub ops: &'m [Option<MdId>],
    root: &'m str,
    indices: SmallVec<[u32; 6]>,
}

impl<'m> Tuple<'m> {
    /// The tuple `id`, named `root` in messages (`dx.shaderModel`).
    pub fn of(m: &'m Module, id: MdId, root: &'m str) -> Result<Tuple<'m>> {
        Tuple::at(m, id, root, SmallVec::new())
    }

    /// The tuple `id`, operand `index` of named metadata `root` (`dx.entryPoints[0]`).
    pub fn of_named(m: &'m Module, id: MdId, root: &'m str, index: usize) -> Result<Tuple<'m>> {
        Tuple::at(m, id, root, SmallVec::from_slice(&[u32::try_from(index).unwrap_or(u32::MAX)]))
    }

    fn at(m: &'m Module, id: MdId, root: &'m str, indices: SmallVec<[u32; 6]>) -> Result<Tuple<'m>> {
        match m.metadata.get(id) {
            MdRef::Node(ops) => Ok(Tuple { m, ops, root, indices }),
            _ => Err(Error::Metadata { path: path(root, &indices), problem: "expected a metadata tuple".into() }),
        }
    }

    /// Where this tuple is: `dx.resources[1][0]`.
    pub fn path(&self) -> String {
        path(self.root, &self.indices)
    }

    fn child_indices(&self, i: usize) -> SmallVec<[u32; 6]> {
        let mut indices = self.indices.clone();
        indices.push(u32::try_from(i).unwrap_or(u32::MAX));
        indices
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    #[cold]
    pub(super) fn err(&self, i: usize, what: &str) -> Error {
        Error::Metadata { path: format!("{}[{i}]", self.path()), problem: format!("expected {what}") }
    }

    pub fn get(&self, i: usize) -> Option<MdId> {
        self.ops.get(i).copied().flatten()
    }

    pub fn tuple(&self, i: usize) -> Result<Tuple<'m>> {
        let id = self.get(i).ok_or_else(|| self.err(i, "a tuple"))?;
        Tuple::at(self.m, id, self.root, self.child_indices(i)).map_err(|_| self.err(i, "a tuple"))
    }

    /// Operand `i` (which must be present) as a tuple, failing as [`Tuple::of`] does.
    pub fn node(&self, i: usize) -> Result<Tuple<'m>> {
        let id = self.get(i).ok_or_else(|| self.err(i, "a tuple"))?;
        Tuple::at(self.m, id, self.root, self.child_indices(i))
    }

    pub fn opt_tuple(&self, i: usize) -> Result<Option<Tuple<'m>>> {
        match self.get(i) {
            None => Ok(None),
            Some(_) => self.tuple(i).map(Some),
        }
    }

    pub fn string(&self, i: usize) -> Result<&'m str> {
        self.get(i).and_then(|id| self.m.metadata.string(id)).ok_or_else(|| self.err(i, "a string"))
    }

    /// A value operand: its type and value.
    pub fn value(&self, i: usize) -> Result<(TypeId, Value)> {
        self.get(i).and_then(|id| self.m.metadata.value(id)).ok_or_else(|| self.err(i, "a value"))
    }

    /// A function operand; `None` when the operand is null.
    pub fn function_opt(&self, i: usize) -> Result<Option<FuncId>> {
        if self.get(i).is_none() {
            return Ok(None);
        }
        match self.value(i)? {
            (_, Value::Func(f)) => Ok(Some(f)),
            _ => Err(self.err(i, "a function")),
        }
    }

    /// An integer constant, zero-extended.
    pub fn uint(&self, i: usize) -> Result<u64> {
        self.uint_opt(i).ok_or_else(|| self.err(i, "an integer constant"))
    }

    /// [`Tuple::uint`] for an operand that may be something else (no message made).
    pub fn uint_opt(&self, i: usize) -> Option<u64> {
        match self.get(i).and_then(|id| self.m.metadata.value(id)) {
            Some((_, Value::Const(c))) => match self.m.constants.get(c).kind {
                ConstKind::Int(v) => Some(v),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn u32(&self, i: usize) -> Result<u32> {
        let v = self.uint(i)?;
        u32::try_from(v).map_err(|_| self.err(i, "a 32-bit integer"))
    }

    /// [`Tuple::u32`] for an optional operand (no message made).
    pub fn u32_opt(&self, i: usize) -> Option<u32> {
        self.uint_opt(i).and_then(|v| u32::try_from(v).ok())
    }

    /// A floating-point constant (half, float or double), as `f64`.
    pub fn float(&self, i: usize) -> Result<f64> {
        let bad = || self.err(i, "a floating-point constant");
        let (ty, Value::Const(c)) = self.value(i).map_err(|_| bad())? else { return Err(bad()) };
        let ConstKind::Float(bits) = self.m.constants.get(c).kind else { return Err(bad()) };
        match self.m.types.get(ty) {
            Type::Float(k) if k.bits() == 32 => Ok(f32::from_bits(bits as u32) as f64),
            Type::Float(k) if k.bits() == 64 => Ok(f64::from_bits(bits)),
            Type::Float(k) if k.bits() == 16 => Ok(half::f16::from_bits(bits as u16).to_f64()),
            _ => Err(bad()),
        }
    }

    pub fn bool(&self, i: usize) -> Result<bool> {
        Ok(self.uint(i)? != 0)
    }

    /// An i32 that DXIL uses with -1 meaning "none" (e.g. unbounded range size).
    pub fn i32(&self, i: usize) -> Result<i32> {
        Ok(self.u32(i)? as i32)
    }

    /// Pairs of `(tag, operand index)` in a tag/value list. Every tag is checked before
    /// the first pair is yielded (so a bad tag is reported before any value is read), and
    /// the pairs are read on the fly (no list).
    pub fn tag_pairs(&self) -> Result<impl Iterator<Item = (u32, usize)> + '_> {
        if !self.len().is_multiple_of(2) {
            return Err(Error::Metadata {
                path: self.path(),
                problem: format!("tag/value list has odd length {}", self.len()),
            });
        }
        for k in 0..self.len() / 2 {
            self.u32(2 * k)?;
        }
        // Checked above: every tag is a 32-bit integer, so nothing is filtered out.
        Ok((0..self.len() / 2).filter_map(move |k| Some((self.u32_opt(2 * k)?, 2 * k + 1))))
    }
}

fn path(root: &str, indices: &[u32]) -> String {
    use std::fmt::Write;
    let mut s = root.to_string();
    for i in indices {
        let _ = write!(s, "[{i}]");
    }
    s
}

/// Name of the struct a resource's `%T* undef` variable points to (through arrays),
/// borrowed from the type table.
pub(crate) fn pointee_struct_name(m: &Module, ty: TypeId) -> Option<&str> {
    let mut t = m.types.pointee(ty)?;
    loop {
        match m.types.get(t) {
            Type::Array { elem, .. } => t = *elem,
            Type::Named(n) => return Some(n),
            _ => return None,
        }
    }
}
