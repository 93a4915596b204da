//! Local arrays that are copies of constant-buffer words: an analysis whose result lets
//! emission read such an array's elements straight from the constant buffer, with no
//! local memory.
//!
//! # The pattern
//!
//! HLSL that copies constants into a local array and indexes it dynamically
//! (`float a[4] = { cb.x, cb.y, cb.z, cb.w }; … a[i]`, or `float a[N] = cb.arr;`) compiles
//! to an `alloca [N x T]`, one store per element of a value read from a constant buffer
//! (`cbufferLoadLegacy` then `extractvalue`, or `cbufferLoad`), and loads through dynamic
//! `getelementptr`s. Kept as memory, the array is a `Function` variable indexed
//! dynamically: GPUs place it in local (scratch) memory, which is slow to access and costly
//! for the driver to compile. Reading element `k` as the constant-buffer word it was copied
//! from is exact and needs no memory.
//!
//! # What qualifies (all of it, or the alloca is left alone)
//!
//! - The alloca is one `[N x T]` (`count` 1), `T` a 32-bit `float` or `i32` (16- and
//!   64-bit elements are refused: their words do not map one to one).
//! - Every use of the alloca is a `getelementptr A, 0, k` (`k` an `i32`) over its own array
//!   type, and every use of such a pointer is the pointer operand of a non-volatile load or
//!   store: the address never escapes (no call, PHI, select or whole-array access; a
//!   pointer cast of the alloca may feed `llvm.lifetime.*` markers, which emission drops).
//! - Every store has a constant `k` in `0..N` and stores, unconverted, a 32-bit component
//!   read from a constant buffer at a constant place: `extractvalue (cbufferLoadLegacy h,
//!   row), c` (word `4·row + c`) or `cbufferLoad h, offset` (word `offset / 4`, `offset` a
//!   multiple of 4). All stores name the same handle value `h`, which names a declared
//!   constant buffer with a constant index (so it names the same descriptor wherever it
//!   is evaluated: [`crate::dxil::handles::declared_resource`]).
//! - Every element is stored, each always with the same word, and the words are
//!   `base + k·stride` for constants `base` and `stride`; the last one lies inside the
//!   constant buffer's declared size.
//! - Every store dominates every (reachable) load: the whole array is written before any
//!   read.
//!
//! # Meaning
//!
//! A load of element `i` reads word `base + i·stride` of the same constant buffer. The
//! constants do not change during the invocation, so the value equals what the stores left
//! there. D3D leaves an out-of-range index into a local array undefined (LLVM: an
//! `inbounds` address past the array); emission clamps the index to `N - 1` (one unsigned
//! minimum), so every read stays inside the words the array was copied from, which lie
//! inside the buffer: no read past the constant buffer, whatever robustness the device
//! has. The stores and the alloca are then not emitted; the constant-buffer reads that fed
//! them become dead and emission's dead-code removal drops them.
//!
//! The function is not rewritten: the result is a plan ([`CbufferArrays`]) that emission
//! follows. Knows DXIL and the CFG analyses, no SPIR-V.
//!
//! # Cost
//!
//! One scan for allocas; none: nothing else. Otherwise two scans of the function's
//! instructions (uses), the dominator tree (O((n + e) log n)), and per candidate
//! stores × loads dominance queries of O(1), at most [`MAX_PAIRS`] of them.

use crate::cfg::function::Cfg;
use crate::dxil::handles::declared_resource;
use crate::dxil::ops::decode_call_with;
use crate::dxil::{DxOp, ResourceClass};
use crate::ir::hash::HashMap;
use crate::ir::{BlockId, CastOp, FloatKind, Function, InstId, InstKind, Module, Type, TypeId, Value};

/// The most store × load dominance checks one alloca may need; a larger array stays memory.
pub const MAX_PAIRS: usize = 1 << 16;

/// An alloca whose element `k` is constant-buffer word `base + k·stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CbufferArray {
    /// The constant-buffer handle every store's value was read through.
    pub handle: Value,
    /// Word (32-bit) index of element 0 in the constant buffer.
    pub base: u32,
    /// Words between consecutive elements (0 when `len` is 1).
    pub stride: u32,
    /// Elements (`N`, at least 1).
    pub len: u32,
    /// The element type (32-bit `float` or `i32`).
    pub elem: TypeId,
}

/// What an instruction of a planned alloca is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The alloca or an address into it: nothing to emit.
    Address,
    /// A store into it: nothing to emit.
    Store,
    /// A load of element `index` of alloca `alloca`.
    Load { alloca: InstId, index: Value },
}

/// The plan for one function: the arrays, and the role of every instruction of theirs.
#[derive(Clone, Debug, Default)]
pub struct CbufferArrays {
    pub arrays: HashMap<InstId, CbufferArray>,
    pub roles: HashMap<InstId, Role>,
}

impl CbufferArrays {
    pub fn role(&self, i: InstId) -> Option<Role> {
        self.roles.get(&i).copied()
    }
}

/// The allocas of `f` that are copies of constant-buffer words (see the module
/// documentation); `table` is the entry point's resource table.
pub fn plan(m: &Module, f: &Function, table: &crate::dxil::Resources) -> CbufferArrays {
    let mut out = CbufferArrays::default();
    // Candidates: allocas of one array of 32-bit scalars.
    let mut cands: HashMap<InstId, (u32, TypeId, TypeId)> = HashMap::default();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            let InstKind::Alloca { allocated, count, .. } = f.insts[i].kind else { continue };
            let one = matches!(count, Value::Const(c) if m.constants.as_int(c) == Some(1));
            let Type::Array { elem, len } = *m.types.get(allocated) else { continue };
            let scalar32 = matches!(m.types.get(elem), Type::Int(32) | Type::Float(FloatKind::Float));
            if one && scalar32 && (1..=u64::from(u32::MAX)).contains(&len) {
                cands.insert(i, (len as u32, elem, allocated));
            }
        }
    }
    if cands.is_empty() {
        return out;
    }
    // Pass 1: the GEPs into candidates; any other use of a candidate refuses it.
    let mut geps: HashMap<InstId, InstId> = HashMap::default();
    // Pointer casts of candidates, allowed when they feed lifetime markers only.
    let mut casts: HashMap<InstId, InstId> = HashMap::default();
    let mut refused: crate::ir::hash::HashSet<InstId> = Default::default();
    let mut pos: HashMap<InstId, (BlockId, usize)> = HashMap::default();
    for &b in &f.layout {
        for (k, &i) in f.blocks[b].insts.iter().enumerate() {
            pos.insert(i, (b, k));
            let kind = &f.insts[i].kind;
            if let InstKind::GetElementPtr { source, base: Value::Inst(a), indices, .. } = kind {
                if let Some(&(_, _, arr)) = cands.get(a) {
                    let zero = matches!(indices.first(), Some(Value::Const(c)) if m.constants.as_int(*c) == Some(0));
                    let idx32 = indices.get(1).is_some_and(|&x| value_is_i32(m, f, x));
                    if *source == arr && indices.len() == 2 && zero && idx32 {
                        geps.insert(i, *a);
                    } else {
                        refused.insert(*a);
                    }
                    // Its indices are not pointers into a candidate.
                    continue;
                }
            }
            if let InstKind::Cast { op: CastOp::BitCast, value: Value::Inst(a) } = kind {
                if cands.contains_key(a) {
                    casts.insert(i, *a);
                    continue;
                }
            }
            if is_lifetime_marker(m, kind) {
                continue;
            }
            kind.for_each_operand(|v| {
                if let Value::Inst(a) = v {
                    if cands.contains_key(&a) {
                        refused.insert(a);
                    }
                }
            });
        }
        for v in f.blocks[b].terminator.operands() {
            if let Value::Inst(a) = v {
                refused.insert(a);
            }
        }
    }
    // Pass 2: the uses of those GEPs.
    let mut acc: HashMap<InstId, Acc> = HashMap::default();
    let gep_alloca = |v: Value| match v {
        Value::Inst(g) => geps.get(&g).copied(),
        _ => None,
    };
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            let kind = &f.insts[i].kind;
            match *kind {
                InstKind::Load { ptr, volatile: false, .. } if gep_alloca(ptr).is_some() => {
                    let a = gep_alloca(ptr).unwrap_or(i);
                    let index = gep_index(f, ptr);
                    let e = acc.entry(a).or_insert_with(|| new_acc(cands[&a].0));
                    e.loads.push((i, index));
                    continue;
                }
                InstKind::Store { ptr, value, volatile: false, .. }
                    if gep_alloca(ptr).is_some() && gep_alloca(value).is_none() =>
                {
                    let a = gep_alloca(ptr).unwrap_or(i);
                    let len = cands[&a].0;
                    let e = acc.entry(a).or_insert_with(|| new_acc(len));
                    let slot = match gep_index(f, ptr) {
                        Value::Const(c) => m.constants.as_int(c).filter(|&k| k < u64::from(len)),
                        _ => None,
                    };
                    let src = cbuffer_word(m, f, value);
                    match (slot, src) {
                        (Some(k), Some((h, w)))
                            if e.handle.is_none_or(|x| x == h) && e.words[k as usize].is_none_or(|x| x == w) =>
                        {
                            e.handle = Some(h);
                            e.words[k as usize] = Some(w);
                            e.stores.push(i);
                        }
                        _ => {
                            refused.insert(a);
                        }
                    }
                    continue;
                }
                _ => {}
            }
            let marker = is_lifetime_marker(m, kind);
            kind.for_each_operand(|v| {
                if let Some(a) = gep_alloca(v) {
                    refused.insert(a);
                }
                if let (Value::Inst(c), false) = (v, marker) {
                    if let Some(&a) = casts.get(&c) {
                        refused.insert(a);
                    }
                }
            });
        }
        for v in f.blocks[b].terminator.operands() {
            if let Some(a) =
                gep_alloca(v).or_else(|| if let Value::Inst(c) = v { casts.get(&c).copied() } else { None })
            {
                refused.insert(a);
            }
        }
    }
    let mut cfg: Option<Option<Cfg>> = None;
    let mut keys: Vec<InstId> = acc.keys().copied().filter(|a| !refused.contains(a)).collect();
    keys.sort();
    for a in keys {
        let e = &acc[&a];
        let (len, elem, _) = cands[&a];
        let (Some(handle), Some(words)) = (e.handle, e.words.iter().copied().collect::<Option<Vec<u32>>>()) else {
            continue;
        };
        let Some(array) = arithmetic(&words).map(|(base, stride)| CbufferArray { handle, base, stride, len, elem })
        else {
            continue;
        };
        let Some((ResourceClass::Cbv, id, true)) = declared_resource(m, f, table, handle) else { continue };
        let size_words = table.by_id(ResourceClass::Cbv, id).and_then(|r| r.cbuffer_size).map_or(0, |s| s / 4);
        let last = u64::from(array.base) + u64::from(array.stride) * u64::from(len - 1);
        if last >= u64::from(size_words) {
            continue;
        }
        if e.stores.len().saturating_mul(e.loads.len()) > MAX_PAIRS {
            continue;
        }
        let Some(cfg) = cfg.get_or_insert_with(|| Cfg::new(f).ok()) else { return CbufferArrays::default() };
        let dominates = |s: InstId, l: InstId| {
            let ((bs, ks), (bl, kl)) = (pos[&s], pos[&l]);
            if bs == bl {
                ks < kl
            } else {
                cfg.strictly_dominates(bs, bl)
            }
        };
        let all =
            e.loads.iter().all(|&(l, _)| !cfg.is_reachable(pos[&l].0) || e.stores.iter().all(|&s| dominates(s, l)));
        if !all {
            continue;
        }
        out.arrays.insert(a, array);
        out.roles.insert(a, Role::Address);
        for &s in &e.stores {
            out.roles.insert(s, Role::Store);
        }
        for &(l, index) in &e.loads {
            out.roles.insert(l, Role::Load { alloca: a, index });
        }
    }
    for (&g, a) in geps.iter().chain(casts.iter()) {
        if out.arrays.contains_key(a) {
            out.roles.insert(g, Role::Address);
        }
    }
    out
}

/// What pass 2 gathered about one candidate.
struct Acc {
    /// The word each element was stored from (`None`: not stored yet).
    words: Vec<Option<u32>>,
    handle: Option<Value>,
    stores: Vec<InstId>,
    loads: Vec<(InstId, Value)>,
}

fn new_acc(len: u32) -> Acc {
    Acc { words: vec![None; len as usize], handle: None, stores: Vec::new(), loads: Vec::new() }
}

/// `base` and `stride` with `words[k] == base + k·stride` for every `k`, if there are.
fn arithmetic(words: &[u32]) -> Option<(u32, u32)> {
    let base = *words.first()?;
    let stride = match words.get(1) {
        Some(&w) => w.checked_sub(base)?,
        None => 0,
    };
    let fits = words.iter().enumerate().all(|(k, &w)| {
        u32::try_from(k).ok().and_then(|k| k.checked_mul(stride)).and_then(|o| o.checked_add(base)) == Some(w)
    });
    fits.then_some((base, stride))
}

/// The element index of `getelementptr A, 0, k` (a planned GEP).
fn gep_index(f: &Function, ptr: Value) -> Value {
    match ptr {
        Value::Inst(g) => match &f.insts[g].kind {
            InstKind::GetElementPtr { indices, .. } => indices[1],
            _ => ptr,
        },
        _ => ptr,
    }
}

/// A call of `llvm.lifetime.start` / `llvm.lifetime.end` (emission drops them).
fn is_lifetime_marker(m: &Module, kind: &InstKind) -> bool {
    matches!(kind, InstKind::Call { callee: Value::Func(c), .. } if m.functions[*c].name.starts_with("llvm.lifetime."))
}

fn value_is_i32(m: &Module, f: &Function, v: Value) -> bool {
    let ty = match v {
        Value::Inst(i) => f.insts[i].ty,
        Value::Const(c) => m.constants.get(c).ty,
        Value::Arg(k) => match f.params.get(k as usize) {
            Some(p) => p.ty,
            None => return false,
        },
        _ => return false,
    };
    matches!(m.types.get(ty), Type::Int(32))
}

/// The constant buffer (handle) and the word a stored 32-bit value was read from, when it
/// is one component read at a constant place.
fn cbuffer_word(m: &Module, f: &Function, v: Value) -> Option<(Value, u32)> {
    let Value::Inst(i) = v else { return None };
    let int = |v: Option<&Value>| match v {
        Some(Value::Const(c)) => m.constants.as_int(*c).and_then(|x| u32::try_from(x).ok()),
        _ => None,
    };
    let word32 = |o: Option<&str>| matches!(o, Some("f32" | "i32"));
    match &f.insts[i].kind {
        InstKind::ExtractValue { aggregate: Value::Inst(c), indices } if indices.len() == 1 && indices[0] < 4 => {
            let call = decode_call_with(m, f, *c, String::new).ok()??;
            if call.op != DxOp::CBufferLoadLegacy || !word32(call.overload) {
                return None;
            }
            let row = int(call.args.get(1))?;
            Some((*call.args.first()?, row.checked_mul(4)?.checked_add(indices[0])?))
        }
        InstKind::Call { .. } => {
            let call = decode_call_with(m, f, i, String::new).ok()??;
            if call.op != DxOp::CBufferLoad || !word32(call.overload) {
                return None;
            }
            let offset = int(call.args.get(1))?;
            offset.is_multiple_of(4).then(|| (call.args[0], offset / 4))
        }
        _ => None,
    }
}
