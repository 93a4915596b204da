//! A DXIL compute shader prepared for interpretation: its entry function, thread-group
//! size, loop forest (for wave-operation instances), decoded `dx.op` calls, constants and
//! global memory layout.
//!
//! Preparation rejects what the interpreter does not model ([`Unsupported`]) before any
//! thread runs, naming the operations, so a differential run can list why a shader was
//! left out. Cost: linear in the module.

use super::float::Fk;
use super::memory::Mem;
use super::value::{Ptr, Space, Val};
use cranelift_entity::{EntityRef, SecondaryMap};
use std::collections::{BTreeSet, HashMap};
use untangle::cfg::loops::LoopId;
use untangle::cfg::Cfg;
use untangle::dxil::{DxOp, DxilInfo, EntryPoint};
use untangle::ir::{
    BlockId, ConstExprOp, ConstId, ConstKind, FloatKind, FuncId, Function, InstId, InstKind, Module, Type, TypeId,
    Value,
};

/// Why a shader cannot be interpreted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A scalar IR type as the interpreter sees it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Scal {
    Int(u32),
    Float(Fk),
}

/// The `dx.op` operations the interpreter implements.
pub fn supported_op(op: DxOp) -> bool {
    use DxOp::*;
    // The element-wise operations (scalar, and lane by lane on native vectors), then the rest.
    super::vector::elementwise(op)
        || matches!(
            op,
            IMul | UMul
                | UDiv
                | UAddc
                | USubb
                | Msad
                | Dot2
                | Dot3
                | Dot4
                | CreateHandle
                | CBufferLoad
                | CBufferLoadLegacy
                | SampleLevel
                | Sample
                | CalculateLOD
                | DerivCoarseX
                | DerivCoarseY
                | DerivFineX
                | DerivFineY
                | TextureGather
                | SampleCmpLevel
                | SampleCmpLevelZero
                | TextureGatherRaw
                | TextureLoad
                | TextureStore
                | BufferLoad
                | BufferStore
                | BufferUpdateCounter
                | CheckAccessFullyMapped
                | GetDimensions
                | AtomicBinOp
                | AtomicCompareExchange
                | Barrier
                | ThreadId
                | GroupId
                | ThreadIdInGroup
                | FlattenedThreadIdInGroup
                | MakeDouble
                | SplitDouble
                | BitcastI16toF16
                | BitcastF16toI16
                | BitcastI32toF32
                | BitcastF32toI32
                | BitcastI64toF64
                | BitcastF64toI64
                | LegacyF32ToF16
                | LegacyF16ToF32
                | RawBufferLoad
                | RawBufferStore
                | Dot2AddHalf
                | Dot4AddI8Packed
                | Dot4AddU8Packed
                | AnnotateHandle
                | CreateHandleFromBinding
                | CreateHandleFromHeap
                | Unpack4x8
                | Pack4x8
                | RawBufferVectorLoad
                | RawBufferVectorStore
                | VectorReduceAnd
                | VectorReduceOr
                | FDot
        )
        || op.is_wave_op()
        || super::ray_query::is_ray_query(op)
}

/// A decoded `dx.op` call: operation, overload suffix, arguments after the opcode.
#[derive(Clone, Debug)]
pub struct OpCall {
    pub op: DxOp,
    pub overload: Option<String>,
    pub args: Vec<Value>,
}

/// A global's memory: groupshared (fresh per thread group) or constant (shared).
#[derive(Clone, Debug)]
pub struct GlobalMem {
    pub groupshared: bool,
    pub init: Mem,
}

pub struct Program<'m> {
    pub module: &'m Module,
    pub func_id: FuncId,
    pub func: &'m Function,
    pub info: DxilInfo,
    pub entry: EntryPoint,
    pub num_threads: [u32; 3],
    /// Loop of each header block, and per block its loop chain is asked of `cfg`.
    pub cfg: Cfg,
    pub ops: SecondaryMap<InstId, Option<Box<OpCall>>>,
    pub consts: HashMap<ConstId, Val>,
    pub globals: Vec<GlobalMem>,
    /// Dense block numbering for per-thread tables.
    pub block_index: SecondaryMap<BlockId, u32>,
}

impl<'m> Program<'m> {
    /// Prepares the module's first compute entry point.
    pub fn new(module: &'m Module) -> Result<Program<'m>, Unsupported> {
        let info = untangle::dxil::analyze(module).map_err(|e| Unsupported(format!("not DXIL: {e}")))?;
        let sm = info.shader_model.clone().ok_or_else(|| Unsupported("no shader model".into()))?;
        if sm.profile != "cs" {
            return Err(Unsupported(format!("stage {} (only compute)", sm.profile)));
        }
        let entry = info
            .entry_points
            .iter()
            .find(|e| e.function.is_some())
            .cloned()
            .ok_or_else(|| Unsupported("no entry function".into()))?;
        let func_id = entry.function.expect("checked");
        let func = &module.functions[func_id];
        let num_threads = entry.properties.num_threads.ok_or_else(|| Unsupported("no numthreads".into()))?;
        for (id, f) in module.defined_functions() {
            if id != func_id {
                return Err(Unsupported(format!("a second defined function `{}`", f.name)));
            }
        }
        let cfg = Cfg::new(func).map_err(|e| Unsupported(format!("CFG: {e}")))?;
        let mut ops: SecondaryMap<InstId, Option<Box<OpCall>>> = SecondaryMap::new();
        let mut missing = BTreeSet::new();
        for &b in &func.layout {
            for &i in &func.blocks[b].insts {
                let InstKind::Call { callee, .. } = &func.insts[i].kind else { continue };
                let Value::Func(fid) = callee else {
                    return Err(Unsupported("indirect call".into()));
                };
                let name = &module.functions[*fid].name;
                match untangle::dxil::decode_call(module, func, i, "") {
                    Ok(Some(c)) => {
                        if !supported_op(c.op) {
                            missing.insert(c.op.name().to_string());
                        } else if !super::vector::vector_form_supported(module, func, c.op, c.args) {
                            missing.insert(format!("{} on native vectors", c.op.name()));
                        }
                        ops[i] = Some(Box::new(OpCall {
                            op: c.op,
                            overload: c.overload.map(str::to_string),
                            args: c.args.to_vec(),
                        }));
                    }
                    Ok(None) if name.starts_with("llvm.lifetime") || name.starts_with("llvm.dbg") => {}
                    Ok(None) => {
                        missing.insert(format!("call to `{name}`"));
                    }
                    Err(e) => return Err(Unsupported(e.to_string())),
                }
            }
        }
        if !missing.is_empty() {
            return Err(Unsupported(format!(
                "operations the interpreter lacks: {}",
                missing.into_iter().collect::<Vec<_>>().join(", ")
            )));
        }
        let mut block_index = SecondaryMap::new();
        for (k, &b) in func.layout.iter().enumerate() {
            block_index[b] = k as u32;
        }
        let mut p = Program {
            module,
            func_id,
            func,
            info,
            entry,
            num_threads,
            cfg,
            ops,
            consts: HashMap::new(),
            globals: Vec::new(),
            block_index,
        };
        for (cid, _) in module.constants.iter() {
            if let Ok(v) = p.eval_const(cid) {
                p.consts.insert(cid, v);
            }
        }
        p.heap_views().map_err(Unsupported)?;
        for (_, g) in module.globals.iter() {
            let size = p.size_of(g.value_ty) as usize;
            let groupshared = g.addr_space == 3;
            let init = match g.initializer {
                Some(c) if !groupshared => {
                    let mut m = Mem::zeroed(size);
                    let v = p.eval_const(c).map_err(|e| Unsupported(format!("global `{}`: {e}", g.name)))?;
                    p.store_val(&mut m, 0, g.value_ty, &v).map_err(|e| Unsupported(format!("global: {e}")))?;
                    m
                }
                _ if groupshared => Mem::undefined(size),
                _ => Mem::zeroed(size),
            };
            p.globals.push(GlobalMem { groupshared, init });
        }
        Ok(p)
    }

    /// The heap views the shader's `AnnotateHandle`s of `CreateHandleFromHeap` handles
    /// read, in program order, each with the heap index when it is a constant (see
    /// [`super::heap`]); an error names one it cannot model.
    pub fn heap_views(&self) -> Result<Vec<(super::heap::HeapView, Option<u32>)>, String> {
        let mut out = Vec::new();
        let int = |v: Option<&Value>| -> Option<u64> {
            match v {
                Some(Value::Const(k)) => self.module.constants.as_int(*k),
                _ => None,
            }
        };
        for &b in &self.func.layout {
            for &i in &self.func.blocks[b].insts {
                let Some(c) = &self.ops[i] else { continue };
                if c.op != DxOp::AnnotateHandle {
                    continue;
                }
                let Some(Value::Inst(src)) = c.args.first() else { continue };
                let Some(h) = &self.ops[*src] else { continue };
                if h.op != DxOp::CreateHandleFromHeap {
                    continue;
                }
                let sampler = int(h.args.get(1)).ok_or("a heap handle whose sampler flag is not constant")? & 1 == 1;
                let props = match c.args.get(1) {
                    Some(Value::Const(k)) => match self.consts.get(k) {
                        Some(Val::Agg(w)) if w.len() >= 2 => {
                            let word = |k: usize| w[k].scalar().map(|s| s.bits as u32).unwrap_or(0);
                            [word(0), word(1)]
                        }
                        _ => return Err("annotateHandle of a heap handle without constant properties".into()),
                    },
                    _ => return Err("annotateHandle of a heap handle without constant properties".into()),
                };
                let index = int(h.args.first()).map(|v| v as u32);
                out.push((super::heap::view(props, sampler)?, index));
            }
        }
        Ok(out)
    }

    /// Whether the shader uses UAV counters (`BufferUpdateCounter`).
    pub fn uses_counters(&self) -> bool {
        self.ops.values().flatten().any(|c| c.op == DxOp::BufferUpdateCounter)
    }

    pub fn threads_per_group(&self) -> u32 {
        self.num_threads.iter().product()
    }

    pub fn ty(&self, t: TypeId) -> &Type {
        self.module.types.get(t)
    }

    pub fn scal(&self, t: TypeId) -> Option<Scal> {
        match self.ty(t) {
            Type::Int(b) => Some(Scal::Int(*b)),
            Type::Float(FloatKind::Half) => Some(Scal::Float(Fk::H)),
            Type::Float(FloatKind::Float) => Some(Scal::Float(Fk::F)),
            Type::Float(FloatKind::Double) => Some(Scal::Float(Fk::D)),
            _ => None,
        }
    }

    /// The lane type of a native vector type, `t` itself for any other type.
    pub fn lane_type(&self, t: TypeId) -> TypeId {
        match self.ty(t) {
            Type::Vector { elem, .. } => *elem,
            _ => t,
        }
    }

    /// Element types of an aggregate type (struct fields, array or vector elements).
    pub fn elems(&self, t: TypeId) -> Vec<TypeId> {
        match self.ty(t) {
            Type::Vector { elem, len } => vec![*elem; *len as usize],
            Type::Array { elem, len } => vec![*elem; *len as usize],
            _ => self.module.types.struct_fields(t).map(<[TypeId]>::to_vec).unwrap_or_default(),
        }
    }

    /// Natural alignment (DXIL's data layout aligns scalars to their size).
    pub fn align_of(&self, t: TypeId) -> u64 {
        match self.ty(t) {
            Type::Int(b) => (*b as u64).div_ceil(8).max(1),
            Type::Float(k) => k.bits() as u64 / 8,
            Type::Pointer { .. } => 4,
            Type::Vector { elem, .. } | Type::Array { elem, .. } => self.align_of(*elem),
            _ => self.elems(t).iter().map(|&e| self.align_of(e)).max().unwrap_or(1),
        }
    }

    /// Allocation size in bytes.
    pub fn size_of(&self, t: TypeId) -> u64 {
        match self.ty(t) {
            Type::Int(b) => (*b as u64).div_ceil(8).max(1),
            Type::Float(k) => k.bits() as u64 / 8,
            Type::Pointer { .. } => 4,
            Type::Vector { elem, len } => self.size_of(*elem) * *len as u64,
            Type::Array { elem, len } => self.size_of(*elem) * *len,
            _ => {
                let fields = self.elems(t);
                let mut off = 0u64;
                for &f in &fields {
                    off = off.next_multiple_of(self.align_of(f)) + self.size_of(f);
                }
                off.next_multiple_of(self.align_of(t))
            }
        }
    }

    /// Byte offset of field `i` of struct `t`.
    pub fn field_offset(&self, t: TypeId, i: usize) -> u64 {
        let fields = self.elems(t);
        let mut off = 0u64;
        for (k, &f) in fields.iter().enumerate() {
            off = off.next_multiple_of(self.align_of(f));
            if k == i {
                return off;
            }
            off += self.size_of(f);
        }
        off
    }

    pub fn is_struct(&self, t: TypeId) -> bool {
        matches!(self.ty(t), Type::Struct { .. } | Type::Named(_))
    }

    /// The zero value of a type.
    pub fn zero_of(&self, t: TypeId) -> Val {
        match self.ty(t) {
            Type::Int(_) | Type::Float(_) => Val::exact(0),
            Type::Pointer { .. } => Val::undefined(),
            _ => Val::agg(self.elems(t).into_iter().map(|e| self.zero_of(e)).collect()),
        }
    }

    pub fn undef_of(&self, t: TypeId) -> Val {
        match self.ty(t) {
            Type::Int(_) | Type::Float(_) | Type::Pointer { .. } => Val::undefined(),
            _ => Val::agg(self.elems(t).into_iter().map(|e| self.undef_of(e)).collect()),
        }
    }

    pub fn eval_const(&self, c: ConstId) -> Result<Val, String> {
        if let Some(v) = self.consts.get(&c) {
            return Ok(v.clone());
        }
        let k = self.module.constants.get(c);
        Ok(match &k.kind {
            ConstKind::Int(v) => Val::exact(*v),
            ConstKind::Float(b) => Val::exact(*b),
            ConstKind::Null | ConstKind::Zero => self.zero_of(k.ty),
            ConstKind::Undef | ConstKind::Poison => self.undef_of(k.ty),
            ConstKind::Aggregate(es) => Val::agg(es.iter().map(|&e| self.eval_const(e)).collect::<Result<_, _>>()?),
            ConstKind::GlobalAddr(g) => Val::Ptr(Ptr { space: Space::Global(g.index() as u32), offset: 0 }),
            ConstKind::Expr { op: ConstExprOp::Cast(_), operands, .. } if operands.len() == 1 => {
                self.eval_const(operands[0])?
            }
            ConstKind::Expr { op: ConstExprOp::GetElementPtr { .. }, operands, source_ty } => {
                let base = self.eval_const(operands[0])?;
                let Val::Ptr(p) = base else { return Err("constant GEP of a non-pointer".into()) };
                let idx: Vec<i64> = operands[1..]
                    .iter()
                    .map(|&o| self.module.constants.as_int(o).map(|v| v as i64).ok_or("non-integer GEP index"))
                    .collect::<Result<_, _>>()?;
                let src = source_ty.ok_or("constant GEP without a source type")?;
                Val::Ptr(Ptr { space: p.space, offset: p.offset + self.gep_offset(src, &idx)? })
            }
            other => return Err(format!("constant {other:?}")),
        })
    }

    /// Byte offset of a GEP with constant-folded indices over `source`.
    pub fn gep_offset(&self, source: TypeId, idx: &[i64]) -> Result<i64, String> {
        let Some((&first, rest)) = idx.split_first() else { return Ok(0) };
        let mut off = first * self.size_of(source) as i64;
        let mut t = source;
        for &i in rest {
            match self.ty(t).clone() {
                Type::Array { elem, .. } | Type::Vector { elem, .. } => {
                    off += i * self.size_of(elem) as i64;
                    t = elem;
                }
                Type::Struct { .. } | Type::Named(_) => {
                    off += self.field_offset(t, i as usize) as i64;
                    t = *self.elems(t).get(i as usize).ok_or("GEP field out of range")?;
                }
                other => return Err(format!("GEP into {other:?}")),
            }
        }
        Ok(off)
    }

    /// Writes a value of type `t` at `offset` (used for initialisers and aggregate stores).
    pub fn store_val(&self, m: &mut Mem, offset: i64, t: TypeId, v: &Val) -> Result<(), String> {
        match (self.scal(t), v) {
            (Some(s), Val::S(x)) => {
                let fk = match s {
                    Scal::Float(fk) => Some(fk),
                    Scal::Int(_) => None,
                };
                let size = self.size_of(t) as usize;
                if !m.write(offset, size, *x, fk) {
                    return Err("store out of bounds".into());
                }
                Ok(())
            }
            (None, Val::Agg(es)) => {
                let elems = self.elems(t);
                for (k, (&et, e)) in elems.iter().zip(es.iter()).enumerate() {
                    let o = if self.is_struct(t) { self.field_offset(t, k) } else { k as u64 * self.size_of(et) };
                    self.store_val(m, offset + o as i64, et, e)?;
                }
                Ok(())
            }
            _ => Err(format!("cannot store {v:?} as {}", self.module.types.display(t))),
        }
    }

    pub fn load_val(&self, m: &Mem, offset: i64, t: TypeId) -> Result<Val, String> {
        if self.scal(t).is_some() {
            let size = self.size_of(t) as usize;
            return m.read(offset, size).map(Val::S).ok_or_else(|| "load out of bounds".to_string());
        }
        let elems = self.elems(t);
        if elems.is_empty() {
            return Err(format!("load of {}", self.module.types.display(t)));
        }
        let mut out = Vec::with_capacity(elems.len());
        for (k, &et) in elems.iter().enumerate() {
            let o = if self.is_struct(t) { self.field_offset(t, k) } else { k as u64 * self.size_of(et) };
            out.push(self.load_val(m, offset + o as i64, et)?);
        }
        Ok(Val::agg(out))
    }

    /// The loop headed by `b`, if `b` is a loop header.
    pub fn loop_of_header(&self, b: BlockId) -> Option<LoopId> {
        self.cfg.loops().loop_of_header(b)
    }

    pub fn loop_contains(&self, l: LoopId, b: BlockId) -> bool {
        self.cfg.loops().contains(l, b)
    }
}
