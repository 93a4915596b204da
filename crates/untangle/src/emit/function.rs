//! One DXIL function over its structurized CFG: LLVM instructions to SPIR-V, SSA values
//! made available where they are used, and the structured terminators.
//!
//! # Values across the structurized graph
//!
//! The structurizer never duplicates an original block, so every instruction keeps its one
//! definition; but its ladders add paths in the graph (through a dispatch block, on selector
//! values that never occur together) on which an original definition no longer *dominates*
//! its original uses. Such a value is *demoted*: a `Function` variable is stored right
//! after the definition and loaded at each use the definition does not dominate. Control
//! really executed the definition first (the structurized function runs the original
//! blocks in the original order), so the load sees the stored value.
//!
//! Original PHIs stay `OpPhi`s where the structurizer left their block's incoming edges
//! alone (every predecessor an original one, through its original edge, emitted earlier, and
//! every incoming value available there); elsewhere they become `Function` variables: each
//! original predecessor stores the PHI's
//! incoming value for it at its end (the next original block to run is the PHI's block, so no
//! other store intervenes), and the PHI's block loads it on entry. Values read at the end of
//! a predecessor are SSA ids, so PHIs that read each other (swaps) keep their parallel-copy
//! meaning. The structurizer's own PHIs (selectors) become `OpPhi`.
//!
//! Pointers (GEP results) and resource handles are not stored: a GEP is emitted again where
//! its result is not dominated, and handles are compile-time descriptions (see
//! `resources`) whose index operand is an ordinary value.
//!
//! A leaf of `emit` (see its documentation): [`FnEmit`]'s constructor, its body emission
//! and [`ModuleBuilder::emit_function`], which structurizes a function and emits it. The
//! `dx.op` calls it meets go to [`FnEmit::dx_op`] (`dxop`).

use crate::cfg::dominators::DomTree;
use crate::cfg::order::Order;
use crate::dxil::ShaderModel;
use crate::emit::control::{emit_dispatch, emit_merge, emit_two_way, Labels};
use crate::emit::error::{malformed, unsupported, Error, Result, Subject};
use crate::emit::work_graph;
use crate::emit::{DescriptorKey, FnEmit, Interface, ModuleBuilder, Resources, ThreadQuads};
use crate::ir::hash::{HashMap, HashSet};
use crate::ir::{
    BinaryOp, BlockId, CastOp, ConstExprOp, ConstKind, FloatKind, FloatPredicate, Function, InstId, InstKind,
    IntPredicate, Terminator, Type, TypeId, Value,
};
use crate::passes::graph::{Preds, ScfgView};
use crate::passes::{Origin, SBlock, Scfg, Term, Val, VarKind};
use cranelift_entity::{EntityRef, SecondaryMap};
use rspirv::dr::Operand;
use rspirv::spirv::{self, Op, StorageClass, Word};
use smallvec::SmallVec;

/// What [`FnEmit::partition_loop`] partitions the invocations by.
#[derive(Clone, Copy, Debug)]
pub enum PartitionKeys<'k> {
    /// Invocations with equal values (32-bit unsigned ids) share a partition (`WaveMatch`).
    Values(&'k [Word]),
    /// The four 32-bit words of a lane mask (`WaveMultiPrefix*`): D3D ANDs the mask with
    /// the active lanes before using it, so invocations whose masks agree on the active
    /// lanes share a partition, whatever bits they set for inactive lanes.
    LaneMask(&'k [Word; 4]),
}

/// How the structurized successor slots of an original block correspond to its original
/// terminator's: for each structurized target the original target of its slots, and back
/// (`None` where slots disagree, or the slot counts differ).
struct SlotMap {
    to_orig: HashMap<SBlock, Option<BlockId>>,
    to_struct: HashMap<BlockId, Option<SBlock>>,
    same_len: bool,
}

impl SlotMap {
    fn new(succs: &[SBlock], orig: &[BlockId]) -> SlotMap {
        let mut to_orig: HashMap<SBlock, Option<BlockId>> = HashMap::default();
        let mut to_struct: HashMap<BlockId, Option<SBlock>> = HashMap::default();
        for (&s, &o) in succs.iter().zip(orig) {
            let e = to_orig.entry(s).or_insert(Some(o));
            if *e != Some(o) {
                *e = None;
            }
            let e = to_struct.entry(o).or_insert(Some(s));
            if *e != Some(s) {
                *e = None;
            }
        }
        SlotMap { to_orig, to_struct, same_len: succs.len() == orig.len() }
    }

    /// The slots to `st` are exactly the original slots to `t` (what the slot-by-slot
    /// comparison in `FnEmit::direct_phis` asks).
    fn same_slots(&self, st: SBlock, t: BlockId) -> bool {
        let st_ok = match self.to_orig.get(&st) {
            Some(o) => *o == Some(t),
            None => !self.to_struct.contains_key(&t),
        };
        let t_ok = match self.to_struct.get(&t) {
            Some(s) => *s == Some(st),
            None => !self.to_orig.contains_key(&st),
        };
        self.same_len && st_ok && t_ok
    }
}

fn is_handle_ty(m: &crate::ir::Module, t: TypeId) -> bool {
    matches!(m.types.struct_name(t), Some("dx.types.Handle" | "dx.types.NodeHandle" | "dx.types.NodeRecordHandle"))
}

/// A pointer that is re-made where it is used (not a node record pointer, which is a
/// 64-bit address value: `stage::node`).
fn is_remade_pointer(m: &crate::ir::Module, t: TypeId) -> bool {
    matches!(m.types.get(t), Type::Pointer { .. }) && !work_graph::is_record_pointer(&m.types, t)
}

impl Interface {
    /// Emits DXIL function `func` as a SPIR-V function named `name` (structurized first);
    /// returns its id, what it needs of thread quads ([`ThreadQuads`]) and whether it captures stream output
    /// (`transform_feedback`). The interface is shared by every function of the entry point;
    /// `cfg_check` is [`crate::cfg::Cfg::check`] of `func` if the caller ran it already.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn emit_function<'m>(
        &mut self,
        cx: &mut ModuleBuilder<'m>,
        res: &mut Resources<'m>,
        sm: &ShaderModel,
        sigs: &crate::dxil::Signatures,
        func: &'m Function,
        name: &str,
        cfg_check: Option<Result<(), crate::cfg::CfgError>>,
    ) -> Result<(Word, ThreadQuads, bool)> {
        let iface = self;
        let structured = crate::passes::structurize_checked(func, crate::passes::Options::default(), cfg_check)?;
        let void = cx.void();
        let fn_void = cx.b.type_function(void, []);
        let fn_id = cx.b.begin_function(void, None, spirv::FunctionControl::NONE, fn_void).map_err(Error::from)?;
        if !name.contains('\0') {
            cx.b.name(fn_id, name);
        }
        let (exits, derivatives, captures) = {
            let mut fe = FnEmit::new(cx, res, sm, func, sigs, &structured.scfg)?;
            fe.iface = std::mem::take(iface);
            let body = fe
                .emit_body()
                .and_then(|_| fe.ags_finish())
                .and_then(|_| fe.nvapi_finish())
                .and_then(|_| fe.finish_stream_output());
            *iface = std::mem::take(&mut fe.iface);
            let captures = body?;
            (std::mem::take(&mut fe.exit_labels), fe.thread_quads, captures)
        };
        cx.b.end_function().map_err(Error::from)?;
        if !exits.is_empty() {
            fix_phi_parents(cx, &exits);
        }
        Ok((fn_id, derivatives, captures))
    }
}

/// `op` on two 32-bit unsigned constants, where it is defined and integer arithmetic
/// (wrapping, as SPIR-V's): the constant the instruction would compute.
fn fold_u32(op: spirv::Op, x: u32, y: u32) -> Option<u32> {
    use spirv::Op::*;
    Some(match op {
        IAdd => x.wrapping_add(y),
        ISub => x.wrapping_sub(y),
        IMul => x.wrapping_mul(y),
        UDiv if y != 0 => x / y,
        UMod if y != 0 => x % y,
        BitwiseAnd => x & y,
        BitwiseOr => x | y,
        BitwiseXor => x ^ y,
        ShiftLeftLogical if y < 32 => x << y,
        ShiftRightLogical if y < 32 => x >> y,
        _ => return None,
    })
}

/// `OpPhi` operands name predecessors by label; a block split by `split_if` ends in its last
/// part, so PHIs that name the block's entry label are redirected there.
fn fix_phi_parents(cx: &mut ModuleBuilder<'_>, exits: &HashMap<u32, u32>) {
    let words = cx.b.current_function_words_mut();
    let mut at = 0;
    while at < words.len() {
        let len = ((words[at] >> 16) as usize).max(1);
        let end = (at + len).min(words.len());
        if words[at] & 0xffff == spirv::Op::Phi as u32 {
            // Result type, result id, then (value, parent) pairs.
            for parent in words[at..end].iter_mut().skip(4).step_by(2) {
                if let Some(&n) = exits.get(parent) {
                    *parent = n;
                }
            }
        }
        at = end;
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    pub fn new(
        cx: &'a mut ModuleBuilder<'m>,
        res: &'a mut Resources<'m>,
        sm: &'a ShaderModel,
        f: &'m Function,
        sigs: &'a crate::dxil::Signatures,
        scfg: &'a Scfg,
    ) -> Result<FnEmit<'a, 'm>> {
        let mut sblock_of = SecondaryMap::with_capacity(f.blocks.len());
        for &sb in &scfg.layout {
            if let Some(Origin::Original(o)) = scfg.blocks.get(sb).map(|b| b.origin) {
                sblock_of[o] = Some(sb);
            }
        }
        // One block without edges (most shaders): its tree is the block alone.
        let single = scfg.is_single_block();
        let preds = Preds::compute(scfg);
        let doms = if single {
            DomTree::single(scfg.entry)
        } else {
            let view = ScfgView { scfg, preds: &preds };
            DomTree::of(&view, &Order::compute(&view))
        };
        // Every instruction gets a defining block and (most) an id: sized once.
        let insts = f.insts.len();
        let mut def_block = SecondaryMap::with_capacity(insts);
        let mut used_members: HashMap<InstId, u32> = HashMap::default();
        for &b in &f.layout {
            for &i in &f.blocks[b].insts {
                def_block[i] = Some(b);
                if let InstKind::ExtractValue { aggregate: Value::Inst(a), indices } = &f.insts[i].kind {
                    if let Some(&k) = indices.first() {
                        *used_members.entry(*a).or_default() |= 1u32.checked_shl(k).unwrap_or(0);
                    }
                }
            }
        }
        Ok(FnEmit {
            cx,
            res,
            sm,
            f,
            sigs,
            iface: Default::default(),
            scfg,
            sblock_of,
            doms,
            def_block,
            ids: SecondaryMap::with_capacity(insts),
            ptrs: HashMap::default(),
            global_ptrs: HashMap::default(),
            demoted: HashMap::default(),
            phi_vars: HashMap::default(),
            allocas: HashMap::default(),
            cb_arrays: Default::default(),
            long_scratch: HashMap::default(),
            handles: HashMap::default(),
            ray_queries: HashMap::default(),
            hit_slots: HashMap::default(),
            hit_array: 0,
            hit_attrs: HashMap::default(),
            cur: scfg.entry,
            reloads: HashMap::default(),
            descriptors: HashMap::default(),
            address_words: HashMap::default(),
            pending_word: None,
            exact_shift: None,
            used_members,
            exit_labels: HashMap::default(),
            direct: HashSet::default(),
            block_labels: HashMap::default(),
            phi_inputs: HashMap::default(),
            layout_pos: scfg.layout.iter().enumerate().map(|(k, &b)| (b, k)).collect(),
            preds,
            thread_quads: ThreadQuads::None,
            ags: Default::default(),
            ags_pending: Vec::new(),
            ags_u64: None,
            ags_store: None,
            nvapi: Default::default(),
            nv_hit: None,
            wmma: Default::default(),
            signatures_checked: HashSet::default(),
            cur_label: 0,
            cur_loop_header: false,
        })
    }

    fn fname(&self) -> &str {
        &self.f.name
    }

    #[cold]
    pub fn err(&self, message: impl Into<String>) -> Error {
        unsupported(&self.f.name, message)
    }

    /// The function and block (named as LLVM prints them) that hold `inst`, and the
    /// instruction's own name, for error messages.
    pub fn site(&self, inst: InstId) -> (String, String, String) {
        let types = &self.cx.m.types;
        let block =
            self.def_block[inst].map(|b| crate::ir::dump::block_name(self.f, types, b)).unwrap_or_else(|| "?".into());
        (self.f.name.clone(), block, crate::ir::dump::inst_name(self.f, types, inst))
    }

    // --- raw emission helpers ---

    /// An instruction whose operands are all ids (or literals given as words).
    /// Records that an operation needs quads of threads at least as `q` says.
    pub fn need_thread_quads(&mut self, q: ThreadQuads) {
        self.thread_quads = self.thread_quads.max(q);
    }

    /// An instruction with a result: lane by lane when a long vector is involved
    /// (`long_vector`), folded to a constant when it is 32-bit unsigned integer arithmetic
    /// on constants (`fold_u32`).
    pub fn ids_op(&mut self, opcode: Op, ty: Word, ids: &[Word]) -> Result<Word> {
        if let Some(w) = self.lanewise(opcode, ty, ids)? {
            return Ok(w);
        }
        if let [a, b] = *ids {
            if let (Some(x), Some(y)) = (self.cx.const_value_u32(a), self.cx.const_value_u32(b)) {
                if ty == self.cx.u32_t() {
                    if let Some(k) = fold_u32(opcode, x, y) {
                        return Ok(self.cx.const_u32(k));
                    }
                }
            }
        }
        let w = self.cx.b.block_value(opcode, ty, ids)?;
        self.cx.note_value(w, ty);
        Ok(w)
    }

    /// [`Self::ids_op`] with the operands `head` then `tail` (literal indices, lanes).
    fn ids_op_list(&mut self, opcode: Op, ty: Word, head: &[Word], tail: impl Iterator<Item = Word>) -> Result<Word> {
        let mut ops: SmallVec<[Word; 8]> = SmallVec::from_slice(head);
        ops.extend(tail);
        self.ids_op(opcode, ty, &ops)
    }

    /// An instruction without a result whose operands are all ids (or literal words).
    pub fn ids_void(&mut self, opcode: Op, ids: &[Word]) -> Result<()> {
        Ok(self.cx.b.block_inst(opcode, None, None, ids)?)
    }

    pub fn glsl(&mut self, ty: Word, inst: u32, args: &[Word]) -> Result<Word> {
        if let [a, b] = *args {
            if let (Some(x), Some(y)) = (self.cx.const_value_u32(a), self.cx.const_value_u32(b)) {
                if ty == self.cx.u32_t() && matches!(inst, 38 | 41) {
                    // UMin, UMax.
                    return Ok(self.cx.const_u32(if inst == 38 { x.min(y) } else { x.max(y) }));
                }
            }
        }
        let set = self.cx.glsl();
        let mut ops = [0; 8];
        let n = 2 + args.len();
        if n > ops.len() {
            return Err(self.err(format!("GLSL.std.450 instruction {inst} with {} arguments", args.len())));
        }
        ops[0] = set;
        ops[1] = inst;
        ops[2..n].copy_from_slice(args);
        self.ids_op(Op::ExtInst, ty, &ops[..n])
    }

    // --- types of IR values ---

    pub fn value_ty(&self, v: Value) -> Option<TypeId> {
        match v {
            Value::Inst(i) => self.f.insts.get(i).map(|x| x.ty),
            Value::Const(c) => Some(self.cx.m.constants.get(c).ty),
            Value::Arg(a) => self.f.params.get(a as usize).map(|p| p.ty),
            Value::Global(g) => {
                let gl = &self.cx.m.globals[g];
                self.cx.m.types.lookup(&Type::Pointer { pointee: gl.value_ty, addr_space: gl.addr_space })
            }
            _ => None,
        }
    }

    /// Bit width of a scalar int/float IR type (element type for vectors).
    pub fn scalar_bits(&self, t: TypeId) -> Option<u32> {
        match self.cx.m.types.get(t) {
            Type::Int(b) => Some(*b),
            Type::Float(FloatKind::Half) => Some(self.cx.half_bits),
            Type::Float(k) => Some(k.bits()),
            Type::Vector { elem, .. } => self.scalar_bits(*elem),
            _ => None,
        }
    }

    /// Bits of a scalar or vector value as emitted (a widened `half` counts 32).
    fn total_bits(&self, t: TypeId) -> Option<u32> {
        let lanes = match self.cx.m.types.get(t) {
            Type::Vector { len, .. } => *len,
            _ => 1,
        };
        self.scalar_bits(t).map(|b| b * lanes)
    }

    pub fn is_float_ty(&self, t: TypeId) -> bool {
        match self.cx.m.types.get(t) {
            Type::Float(_) => true,
            Type::Vector { elem, .. } => self.is_float_ty(*elem),
            _ => false,
        }
    }

    /// Whether constant lane `k` exists in vector value `v`.
    fn lane_in_range(&self, v: Value, k: u64) -> bool {
        match self.value_ty(v).map(|t| self.cx.m.types.get(t)) {
            Some(Type::Vector { len, .. }) => k < u64::from(*len),
            _ => false,
        }
    }

    pub fn const_int(&self, v: Value) -> Option<u64> {
        match v {
            Value::Const(c) => self.cx.m.constants.as_int(c),
            _ => None,
        }
    }

    pub fn is_undef(&self, v: Value) -> bool {
        matches!(v, Value::Const(c) if matches!(self.cx.m.constants.get(c).kind, ConstKind::Undef | ConstKind::Poison))
    }

    // --- values ---

    /// The structurized block that defines `i` (`None` for a block the structurizer left
    /// out, or an instruction outside the layout).
    fn def_sblock(&self, i: InstId) -> Option<SBlock> {
        self.def_block[i].and_then(|b| self.sblock_of[b])
    }

    /// The result id of `i` so far.
    fn id_of(&self, i: InstId) -> Option<Word> {
        Some(self.ids[i]).filter(|&w| w != 0)
    }

    /// Whether `i`'s emission makes a SPIR-V value (allocas, GEPs and a library's resource
    /// object loads make pointers or nothing; [`FnEmit::pointer`] and the handle analysis
    /// read those).
    fn has_value(&self, i: InstId) -> bool {
        match &self.f.insts[i].kind {
            InstKind::Alloca { .. } | InstKind::GetElementPtr { .. } => false,
            InstKind::Load { ptr, .. } => self.library_resource(*ptr).is_none(),
            // A LinAlg thread-scope matrix stays in its buffer (`dxop/linalg.rs`); wave and
            // thread-group ones are cooperative matrices (`dxop/linalg_matrix.rs`).
            InstKind::Call { .. } => !is_linalg_thread_matrix_ty(self.cx.m, self.f.insts[i].ty),
            _ => true,
        }
    }

    fn dominated(&self, def: InstId) -> bool {
        match self.def_sblock(def) {
            Some(s) => self.doms.dominates(s, self.cur),
            None => false,
        }
    }

    /// The id of descriptor access `key` (a descriptor pointer or a loaded descriptor) made
    /// earlier in the function where it dominates the current position: in the open SPIR-V
    /// block, or in an original block that dominates the current one, in the first SPIR-V
    /// block of its parts (which dominates them all) or in the last so far (the merge that a
    /// split left, which every later part and every dominated block follows). A part inside
    /// a split (the body of [`Self::split_if`]) dominates nothing after it: what was made
    /// there is reused only there. A descriptor does not change during the invocation, so
    /// the access made earlier is the one that would be made here; reusing it is what keeps
    /// one `OpAccessChain`/`OpLoad` per handle where the shader creates the handle once and
    /// uses it in several blocks. Cost: one hash lookup.
    pub fn reusable(&self, key: DescriptorKey) -> Option<Word> {
        let &(s, label, id) = self.descriptors.get(&key)?;
        if self.cx.b.current_label() == Some(label) {
            return Some(id);
        }
        if !self.doms.dominates(s, self.cur) {
            return None;
        }
        let first = *self.block_labels.get(&s)?;
        let last = self.exit_labels.get(&first).copied().unwrap_or(first);
        (label == first || label == last).then_some(id)
    }

    /// Records descriptor access `key`, just written as `id`, for [`Self::reusable`].
    pub fn remember(&mut self, key: DescriptorKey, id: Word) {
        if let Some(label) = self.cx.b.current_label() {
            self.descriptors.insert(key, (self.cur, label, id));
        }
    }

    /// The SPIR-V ids of two operands, `lhs` first.
    fn value_pair(&mut self, lhs: Value, rhs: Value) -> Result<(Word, Word)> {
        Ok((self.value(lhs)?, self.value(rhs)?))
    }

    /// The SPIR-V type of a two-operand instruction's result, then its operands' ids.
    fn typed_pair(&mut self, ty: TypeId, lhs: Value, rhs: Value) -> Result<(Word, Word, Word)> {
        let t = self.cx.ty(ty)?;
        let (a, b) = self.value_pair(lhs, rhs)?;
        Ok((t, a, b))
    }

    /// The SPIR-V id of an IR value in the current block.
    pub fn value(&mut self, v: Value) -> Result<Word> {
        match v {
            Value::Const(c) => self.cx.constant(c),
            Value::Inst(i) => {
                if let Some(w) = self.id_of(i) {
                    if self.dominated(i) {
                        return Ok(w);
                    }
                    if let Some(&var) = self.demoted.get(&i) {
                        if let Some(&w) = self.reloads.get(&(self.cur, i)) {
                            return Ok(w);
                        }
                        let ty = self.cx.ty(self.f.insts[i].ty)?;
                        let w = self.ids_op(Op::Load, ty, &[var])?;
                        self.reloads.insert((self.cur, i), w);
                        return Ok(w);
                    }
                } else if self.def_block[i].is_some() && !self.has_value(i) {
                    // Dominance was checked (`typecheck`): the definition was emitted and made
                    // no SPIR-V value (a library's resource object, an alloca, a pointer).
                    let (function, block, value) = self.site(i);
                    return Err(Error::Invalid {
                        function,
                        block,
                        value,
                        message: "a resource object, pointer or LinAlg matrix, which has no value, used as an operand"
                            .into(),
                    });
                }
                Err(Error::Internal(format!(
                    "function `{}`: value %{} used where it is not available",
                    self.fname(),
                    self.f.insts[i].name.clone().unwrap_or_else(|| i.to_string())
                )))
            }
            Value::Arg(_) => Err(self.err("function arguments (only entry points without parameters are supported)")),
            Value::Global(_) | Value::Func(_) | Value::Metadata => {
                Err(self.err("an address or metadata used as a value"))
            }
        }
    }

    /// [`FnEmit::pointer`] for a store or an atomic: memory the stage may not write is
    /// refused. An any-hit or closest-hit shader's attributes (`HitAttributeKHR`) are
    /// read-only there (only an intersection shader writes them, which `reportHit` does).
    fn written_pointer(&mut self, v: Value) -> Result<(Word, StorageClass)> {
        let (p, class) = self.pointer(v)?;
        if class == StorageClass::HitAttributeKHR {
            return Err(self.err(
                "a store to the hit attributes (an any-hit or closest-hit shader's attribute parameter \
                 is read-only HitAttributeKHR memory in SPIR-V)",
            ));
        }
        Ok((p, class))
    }

    /// A pointer operand: its id and storage class, re-emitting GEPs where needed.
    pub fn pointer(&mut self, v: Value) -> Result<(Word, StorageClass)> {
        if let Some(p) = self.iface.ray.as_ref().and_then(|r| r.pointer(v)) {
            return Ok(p);
        }
        if let Some(t) = self.value_ty(v).filter(|&t| work_graph::is_record_pointer(&self.cx.m.types, t)) {
            // A node record pointer is a device address (`stage::node`).
            let pointee = self.cx.m.types.pointee(t).ok_or_else(|| self.err("record pointer"))?;
            if !matches!(self.cx.m.types.get(pointee), Type::Int(_) | Type::Float(_) | Type::Vector { .. }) {
                return Err(self.err(format!(
                    "a whole-aggregate access to node record memory ({})",
                    self.cx.m.types.display(pointee)
                )));
            }
            let addr = self.value(v)?;
            let pty = self.cx.ptr_to(StorageClass::PhysicalStorageBuffer, pointee)?;
            match self.scalar_bits(pointee).or_else(|| self.vector_elem_bits(pointee)) {
                Some(8) => {
                    self.cx.extension("SPV_KHR_8bit_storage");
                    self.cx.capability(spirv::Capability::StorageBuffer8BitAccess);
                }
                Some(16) => self.cx.capability(spirv::Capability::StorageBuffer16BitAccess),
                _ => {}
            }
            let p = self.ids_op(Op::ConvertUToPtr, pty, &[addr])?;
            return Ok((p, StorageClass::PhysicalStorageBuffer));
        }
        match v {
            Value::Global(g) => self.cx.global(g),
            Value::Inst(i) => {
                if let Some(&var) = self.allocas.get(&i) {
                    return Ok((var, StorageClass::Function));
                }
                if let Some(&p) = self.global_ptrs.get(&i) {
                    return Ok(p);
                }
                if let Some(&p) = self.ptrs.get(&i) {
                    if self.dominated(i) {
                        return Ok(p);
                    }
                }
                match &self.f.insts[i].kind {
                    InstKind::GetElementPtr { base, indices, .. } => {
                        let (base, indices) = (*base, indices.clone());
                        self.gep(self.f.insts[i].ty, base, &indices)
                    }
                    InstKind::Cast { op: CastOp::BitCast | CastOp::AddrSpaceCast, value } => {
                        let value = *value;
                        let (p, class) = self.pointer(value)?;
                        let from = self.value_ty(value);
                        if from.and_then(|t| self.cx.m.types.pointee(t)) == self.cx.m.types.pointee(self.f.insts[i].ty)
                        {
                            Ok((p, class))
                        } else {
                            Err(self.err("pointer bitcast between different pointee types"))
                        }
                    }
                    _ => Err(self.err("pointer produced by an unsupported instruction")),
                }
            }
            Value::Const(c) => {
                if let ConstKind::GlobalAddr(g) = self.cx.m.constants.get(c).kind {
                    return self.cx.global(g);
                }
                match self.gep_parts(v) {
                    Some((ty, base, idx)) => self.gep(ty, base, &idx),
                    None => Err(self.err("unsupported constant pointer")),
                }
            }
            _ => Err(self.err("unsupported pointer operand")),
        }
    }

    /// The parts of a `getelementptr` pointer `v` (an instruction or a constant
    /// expression): result type, base, indices.
    pub(super) fn gep_parts(&self, v: Value) -> Option<(TypeId, Value, Vec<Value>)> {
        match v {
            Value::Inst(i) => match &self.f.insts[i].kind {
                InstKind::GetElementPtr { base, indices, .. } => Some((self.f.insts[i].ty, *base, indices.to_vec())),
                _ => None,
            },
            Value::Const(c) => {
                let k = self.cx.m.constants.get(c);
                match &k.kind {
                    ConstKind::Expr { op: ConstExprOp::GetElementPtr { .. }, operands, .. } if !operands.is_empty() => {
                        let base = match self.cx.m.constants.get(operands[0]).kind {
                            ConstKind::GlobalAddr(g) => Value::Global(g),
                            _ => Value::Const(operands[0]),
                        };
                        Some((k.ty, base, operands[1..].iter().map(|&o| Value::Const(o)).collect()))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn gep(&mut self, result_ty: TypeId, base: Value, indices: &[Value]) -> Result<(Word, StorageClass)> {
        let (b, class) = self.pointer(base)?;
        let Some((first, rest)) = indices.split_first() else { return Ok((b, class)) };
        if self.const_int(*first) != Some(0) {
            return Err(self.err("getelementptr with a non-zero first index (pointer arithmetic)"));
        }
        if rest.is_empty() {
            return Ok((b, class));
        }
        let pointee = self.cx.m.types.pointee(result_ty).ok_or_else(|| self.err("GEP result is not a pointer"))?;
        let pty = self.cx.ptr_to(class, pointee)?;
        let mut ops = Vec::with_capacity(1 + rest.len());
        ops.push(b);
        for &ix in rest {
            ops.push(self.gep_index(ix)?);
        }
        let w = self.ids_op(Op::AccessChain, pty, &ops)?;
        Ok((w, class))
    }

    /// A GEP index as a SPIR-V integer. LLVM sign-extends an index narrower than the index
    /// width, so an `i1` index (a SPIR-V bool, which `OpAccessChain` does not take) is 0 or
    /// -1: a constant for a constant, else an `OpSelect`.
    pub(super) fn gep_index(&mut self, ix: Value) -> Result<Word> {
        if !self.value_ty(ix).is_some_and(|t| self.is_bool(t)) {
            return self.value(ix);
        }
        if let Some(v) = self.const_int(ix) {
            return Ok(self.cx.const_u32(if v & 1 == 1 { u32::MAX } else { 0 }));
        }
        let b = self.value(ix)?;
        let (u, ones, zero) = (self.cx.u32_t(), self.cx.const_u32(u32::MAX), self.cx.const_u32(0));
        self.ids_op(Op::Select, u, &[b, ones, zero])
    }

    // --- the function ---

    /// Which values need a `Function` variable, and the variables of PHIs and allocas.
    fn plan_variables(&mut self) -> Result<Vec<(Word, Word)>> {
        let mut demote: HashSet<InstId> = HashSet::default();
        let mut vars = Vec::new();
        let f = self.f;
        self.cb_arrays = crate::rewrite::cbuffer_array::plan(self.cx.m, f, self.res.table);
        let mut blocks: Vec<BlockId> = f.layout.iter().copied().filter(|&b| self.sblock_of[b].is_some()).collect();
        blocks.sort();
        // In a graph of one block every definition dominates every use: nothing to demote,
        // so the operand scan below is skipped.
        let scan = if self.scfg.layout.len() > 1 { &blocks[..] } else { &[] };
        for &u in scan {
            let Some(su) = self.sblock_of[u] else { continue };
            for &i in &f.blocks[u].insts {
                match &f.insts[i].kind {
                    InstKind::Phi { incoming } => {
                        for (v, p) in incoming {
                            if let Some(sp) = self.sblock_of[*p] {
                                self.need(*v, sp, &mut demote);
                            }
                        }
                    }
                    k => k.for_each_operand(|v| self.need(v, su, &mut demote)),
                }
            }
            for v in f.blocks[u].terminator.operands() {
                self.need(v, su, &mut demote);
            }
        }
        vars.extend(self.plan_hit_objects()?);
        let wide = self.wide_slot_maps();
        self.wmma_plan_carriers();
        for &u in &blocks {
            let carries = f.blocks[u].insts.iter().any(|i| self.wmma.carriers.contains_key(i));
            if !carries && self.direct_phis(u, &wide) {
                self.direct.insert(u);
            }
        }
        let mut sorted: Vec<InstId> = demote.into_iter().collect();
        sorted.sort();
        for i in sorted {
            let ty = self.cx.ptr_to(StorageClass::Function, f.insts[i].ty)?;
            let id = self.cx.b.id();
            self.demoted.insert(i, id);
            vars.push((ty, id));
        }
        for &u in &blocks {
            for &i in &f.blocks[u].insts {
                match &f.insts[i].kind {
                    InstKind::Phi { .. } => {
                        if is_handle_ty(self.cx.m, f.insts[i].ty) {
                            return Err(self.err("PHI of resource handles"));
                        }
                        if self.direct.contains(&u) || self.wmma.carriers.contains_key(&i) {
                            continue;
                        }
                        let ty = self.cx.ptr_to(StorageClass::Function, f.insts[i].ty)?;
                        let id = self.cx.b.id();
                        self.phi_vars.insert(i, id);
                        vars.push((ty, id));
                    }
                    InstKind::Alloca { allocated, count, .. } => {
                        if self.iface.ray.as_ref().is_some_and(|r| r.locals.contains_key(&i))
                            || self.wmma.slots.contains_key(&i)
                            || self.cb_arrays.arrays.contains_key(&i)
                        {
                            continue;
                        }
                        if self.const_int(*count) != Some(1) {
                            return Err(self.err("alloca of a dynamic count"));
                        }
                        if is_linalg_matrix_ty(self.cx.m, *allocated) {
                            // SM 6.10 LinAlg matrices are not memory (`dxop/linalg.rs`): an
                            // unused slot (DXC's validator allows one) is dropped.
                            if f.insts.values().any(|x| x.kind.operands().contains(&Value::Inst(i))) {
                                return Err(self.err(
                                    "a LinAlg matrix stored in memory (an alloca of a matrix type that is used)",
                                ));
                            }
                            continue;
                        }
                        let ty = self.cx.ptr_to(StorageClass::Function, *allocated)?;
                        let id = self.cx.b.id();
                        self.allocas.insert(i, id);
                        vars.push((ty, id));
                    }
                    InstKind::ExtractElement { vector: v, index }
                    | InstKind::InsertElement { vector: v, index, .. }
                        if self.const_int(*index).is_none() =>
                    {
                        let Some(vt) = self.value_ty(*v) else { continue };
                        let at = self.cx.ty(vt)?;
                        if self.cx.long_type(at).is_some() && !self.long_scratch.contains_key(&at) {
                            let ty = self.cx.ptr(StorageClass::Function, at);
                            let id = self.cx.b.id();
                            self.long_scratch.insert(at, id);
                            vars.push((ty, id));
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(vars)
    }

    /// Whether the PHIs of original block `t` can be `OpPhi`s: every predecessor of its
    /// structurized block is an original predecessor reaching it through its original edge,
    /// emitted before it, and every incoming value is available at the end of its
    /// predecessor without emitting anything (a constant or a dominating definition).
    fn direct_phis(&self, t: BlockId, wide: &HashMap<SBlock, SlotMap>) -> bool {
        let f = self.f;
        let Some(st) = self.sblock_of[t] else { return false };
        let mut preds: Vec<BlockId> = Vec::new();
        for &sp in self.preds.slots_into(st) {
            let Origin::Original(p) = self.scfg.blocks[sp].origin else { return false };
            let Term::Orig { succs, .. } = &self.scfg.blocks[sp].term else { return false };
            let same_slots = match wide.get(&sp) {
                Some(map) => map.same_slots(st, t),
                None => {
                    let orig = f.blocks[p].terminator.successors();
                    succs.len() == orig.len() && succs.iter().zip(orig.iter()).all(|(&s, &o)| (s == st) == (o == t))
                }
            };
            if !same_slots {
                return false;
            }
            if self.layout_pos.get(&sp) >= self.layout_pos.get(&st) {
                return false;
            }
            preds.push(p);
        }
        // A set: a join can have thousands of predecessors.
        let preds: HashSet<BlockId> = preds.into_iter().collect();
        for &i in &f.blocks[t].insts {
            let InstKind::Phi { incoming } = &f.insts[i].kind else { continue };
            for (v, p) in incoming {
                let Some(sp) = self.sblock_of[*p] else { continue };
                if !preds.contains(p) {
                    return false;
                }
                let ok = match *v {
                    Value::Const(c) => {
                        !matches!(self.cx.m.types.get(self.cx.m.constants.get(c).ty), Type::Pointer { .. })
                    }
                    Value::Inst(d) => {
                        let inst = &f.insts[d];
                        !is_handle_ty(self.cx.m, inst.ty)
                            && !is_remade_pointer(self.cx.m, inst.ty)
                            && self.def_sblock(d).is_some_and(|sd| self.doms.dominates(sd, sp))
                    }
                    _ => false,
                };
                if !ok {
                    return false;
                }
            }
        }
        true
    }

    /// [`SlotMap`]s of the original blocks with more than 16 successor slots (a switch is
    /// checked once per case target: comparing its slot lists each time was O(k²)).
    fn wide_slot_maps(&self) -> HashMap<SBlock, SlotMap> {
        let mut out = HashMap::default();
        for &sp in &self.scfg.layout {
            let (Origin::Original(p), Term::Orig { succs, .. }) =
                (self.scfg.blocks[sp].origin, &self.scfg.blocks[sp].term)
            else {
                continue;
            };
            if succs.len() > 16 {
                out.insert(sp, SlotMap::new(succs, &self.f.blocks[p].terminator.successors()));
            }
        }
        out
    }

    fn need(&self, v: Value, at: SBlock, demote: &mut HashSet<InstId>) {
        let Value::Inst(d) = v else { return };
        let inst = &self.f.insts[d];
        let record_pointer = work_graph::is_record_pointer(&self.cx.m.types, inst.ty);
        let remat = is_handle_ty(self.cx.m, inst.ty)
            || (matches!(inst.kind, InstKind::GetElementPtr { .. }) && !record_pointer)
            || matches!(inst.kind, InstKind::Alloca { .. })
            || is_remade_pointer(self.cx.m, inst.ty);
        if remat {
            inst.kind.for_each_operand(|o| self.need(o, at, demote));
            return;
        }
        if let Some(s) = self.def_sblock(d) {
            if !self.doms.dominates(s, at) {
                demote.insert(d);
            }
        }
    }

    /// Emits the function body (the function must have been begun by the caller).
    pub fn emit_body(&mut self) -> Result<()> {
        let scfg = self.scfg;
        let labels = Labels::allocate(&mut self.cx.b, scfg).map_err(Error::Internal)?;
        let vars = self.plan_variables()?;
        let entry_label = labels.get(scfg.entry).ok_or_else(|| Error::Internal("entry not in layout".into()))?;
        for &sb in &scfg.layout {
            if let Some(l) = labels.get(sb) {
                self.block_labels.insert(sb, l);
            }
        }
        self.cx.b.begin_block(None)?;
        for (ty, id) in vars {
            self.cx.b.variable(ty, Some(id), StorageClass::Function, None);
        }
        self.wmma.vars_at = self.cx.b.function_offset();
        // View instancing: a vertex or domain shader routes its instance first.
        self.view_instance_prologue()?;
        self.cx.b.branch(entry_label)?;

        for &sb in &scfg.layout {
            let block = &scfg.blocks[sb];
            let label = labels.get(sb).ok_or_else(|| Error::Internal("block without label".into()))?;
            self.cx.b.begin_block(Some(label))?;
            self.cur = sb;
            self.cur_label = label;
            self.cur_loop_header = matches!(block.merge, Some(crate::passes::Merge::Loop { .. }));
            // Structurizer PHIs (selectors); incoming-block variables are shape mode's.
            let uint = self.cx.u32_t();
            for (k, phi) in block.phis.iter().enumerate() {
                if matches!(scfg.vars.get(phi.var), Some(VarKind::IncomingBlock(_))) {
                    continue;
                }
                let mut pairs = Vec::new();
                for &(pred, val) in &phi.incoming {
                    let v = self.sval(val, &labels)?;
                    let l = labels.get(pred).ok_or_else(|| Error::Internal("PHI predecessor".into()))?;
                    pairs.push((v, l));
                }
                self.cx.b.phi(uint, Some(labels.phi_ids[sb.index()][k]), pairs)?;
            }
            if let Origin::Original(o) = block.origin {
                self.original_block(o)?;
            }
            let merge = labels.merge_of(block.merge).ok_or_else(|| Error::Internal("merge label".into()))?;
            let targets: Vec<Word> = block
                .term
                .succs()
                .iter()
                .map(|&t| labels.get(t).ok_or_else(|| Error::Internal("successor not in layout".into())))
                .collect::<Result<_>>()?;
            match &block.term {
                Term::Goto(_) => {
                    emit_merge(&mut self.cx.b, merge)?;
                    self.cx.b.branch(targets[0])?;
                }
                Term::Unreachable => {
                    emit_merge(&mut self.cx.b, merge)?;
                    self.cx.b.unreachable()?;
                }
                Term::Dispatch { var, .. } => {
                    let val = block.entry_value(*var).ok_or_else(|| Error::Internal("dispatch value".into()))?;
                    let s = self.sval(val, &labels)?;
                    let (bool_t, zero) = (self.cx.bool_t(), self.cx.const_u32(0));
                    if let [t0, t1] = targets[..] {
                        let cond = self.cx.b.block_value(Op::IEqual, bool_t, &[s, zero])?;
                        emit_two_way(&mut self.cx.b, cond, t0, t1, merge, zero)?;
                    } else {
                        emit_dispatch(&mut self.cx.b, bool_t, zero, s, &targets, merge).map_err(Error::Internal)?;
                    }
                }
                Term::Orig { block: o, .. } => self.terminator(*o, &targets, merge)?,
            }
        }
        Ok(())
    }

    fn sval(&mut self, val: Val, labels: &Labels) -> Result<Word> {
        match val {
            Val::Const(n) => Ok(self.cx.const_u32(n)),
            Val::Undef => {
                let u = self.cx.u32_t();
                Ok(self.cx.undef(u))
            }
            Val::Phi { block, index } => labels
                .phi_ids
                .get(block.index())
                .and_then(|v| v.get(index as usize))
                .copied()
                .ok_or_else(|| Error::Internal("structurizer PHI out of range".into())),
        }
    }

    fn original_block(&mut self, o: BlockId) -> Result<()> {
        let f = self.f;
        let insts = f.blocks[o].insts.clone();
        if self.direct.contains(&o) {
            let here = self.cur;
            for &i in &insts {
                let InstKind::Phi { incoming } = &f.insts[i].kind else { continue };
                let mut pairs = Vec::new();
                let mut named: HashSet<Word> = HashSet::default();
                for (v, p) in incoming {
                    let Some(sp) = self.sblock_of[*p] else { continue };
                    self.cur = sp;
                    let w = self.value(*v);
                    self.cur = here;
                    let label = self
                        .block_labels
                        .get(&sp)
                        .copied()
                        .ok_or_else(|| Error::Internal("PHI predecessor label".into()))?;
                    let label = self.exit_labels.get(&label).copied().unwrap_or(label);
                    let w = w?;
                    // LLVM repeats a predecessor once per edge; SPIR-V names it once.
                    if named.insert(label) {
                        pairs.push((w, label));
                    }
                }
                let ty = self.cx.ty(f.insts[i].ty)?;
                let id = self.cx.b.phi(ty, None, pairs)?;
                self.cx.note_value(id, ty);
                self.ids[i] = id;
            }
            for &i in &insts {
                if f.insts[i].kind.is_phi() && self.demoted.contains_key(&i) {
                    let (var, w) = (self.demoted[&i], self.ids[i]);
                    self.ids_void(Op::Store, &[var, w])?;
                }
            }
        }
        self.wmma_phi_entry(&insts)?;
        for &i in &insts {
            if let InstKind::Phi { .. } = f.insts[i].kind {
                let Some(&var) = self.phi_vars.get(&i) else { continue };
                let ty = self.cx.ty(f.insts[i].ty)?;
                let w = self.ids_op(Op::Load, ty, &[var])?;
                self.define(i, w)?;
            }
        }
        for &i in &insts {
            if !f.insts[i].kind.is_phi() {
                self.inst(i)?;
            }
        }
        // PHI inputs of the original successors.
        let mut succs: Vec<BlockId> = f.blocks[o].terminator.successors().to_vec();
        succs.dedup();
        let mut done = HashSet::default();
        for t in succs {
            if !done.insert(t) {
                continue;
            }
            for &p in &f.blocks[t].insts {
                let InstKind::Phi { .. } = &f.insts[p].kind else { continue };
                let v = self.phi_input(p, o).ok_or_else(|| {
                    malformed(Subject::Module, format!("a PHI has no incoming value for a predecessor in `{}`", f.name))
                })?;
                if self.wmma_phi_store(p, v)? {
                    continue;
                }
                let Some(&var) = self.phi_vars.get(&p) else { continue };
                let w = self.value(v)?;
                self.ids_void(Op::Store, &[var, w])?;
            }
        }
        Ok(())
    }

    /// The value PHI `phi` takes when entered from `pred` (its first entry for `pred`): a
    /// scan for short lists; a PHI with many entries gets a map on first use, so that the
    /// k predecessors of a wide join cost O(k), not O(k²).
    fn phi_input(&mut self, phi: InstId, pred: BlockId) -> Option<Value> {
        let InstKind::Phi { incoming } = &self.f.insts[phi].kind else { return None };
        if incoming.len() <= 16 {
            return incoming.iter().find(|(_, b)| *b == pred).map(|(v, _)| *v);
        }
        let map = self.phi_inputs.entry(phi).or_insert_with(|| {
            let mut m = HashMap::with_capacity_and_hasher(incoming.len(), Default::default());
            for &(v, b) in incoming {
                m.entry(b).or_insert(v);
            }
            m
        });
        map.get(&pred).copied()
    }

    /// Runs `body` only when `cond` holds, splitting the current block into a selection.
    pub fn split_if(&mut self, cond: Word, body: impl FnOnce(&mut Self) -> Result<()>) -> Result<()> {
        if self.cur_loop_header {
            return Err(self.err("a conditional discard in a loop header block"));
        }
        let then = self.cx.b.id();
        let merge = self.cx.b.id();
        self.cx.b.selection_merge(merge, spirv::SelectionControl::NONE)?;
        self.cx.b.branch_conditional(cond, then, merge, [])?;
        self.cx.b.begin_block(Some(then))?;
        body(self)?;
        self.cx.b.branch(merge)?;
        self.cx.b.begin_block(Some(merge))?;
        self.exit_labels.insert(self.cur_label, merge);
        Ok(())
    }

    /// Ends the invocation with terminator `op` (`OpIgnoreIntersectionKHR`, ...) in the middle
    /// of the current block: `if (true) { op }`, the rest of the block continuing in the
    /// selection's merge block. Splits the block like [`Self::split_if`].
    pub fn terminate_in_block(&mut self, op: Op) -> Result<()> {
        if self.cur_loop_header {
            return Err(self.err("an invocation-ending operation in a loop header block"));
        }
        let then = self.cx.b.id();
        let merge = self.cx.b.id();
        let yes = self.cx.const_bool(true);
        self.cx.b.selection_merge(merge, spirv::SelectionControl::NONE)?;
        self.cx.b.branch_conditional(yes, then, merge, [])?;
        self.cx.b.begin_block(Some(then))?;
        self.cx.b.terminator(op)?;
        self.cx.b.begin_block(Some(merge))?;
        self.exit_labels.insert(self.cur_label, merge);
        Ok(())
    }

    /// A switch on `selector` (a 32-bit unsigned id whose value is below `cases`): case `k`
    /// runs `body(k)`, whose value (of type `ty`) an `OpPhi` in the merge block picks.
    /// Splits the current block like [`Self::split_if`]; the merge block ends it.
    pub fn split_switch(
        &mut self,
        selector: Word,
        cases: u32,
        ty: Word,
        mut body: impl FnMut(&mut Self, u32) -> Result<Word>,
    ) -> Result<Word> {
        if self.cur_loop_header {
            return Err(self.err("a switch-lowered operation in a loop header block"));
        }
        if cases == 0 {
            return Err(Error::Internal("switch without cases".into()));
        }
        let merge = self.cx.b.id();
        let labels: Vec<Word> = (0..cases).map(|_| self.cx.b.id()).collect();
        self.cx.b.selection_merge(merge, spirv::SelectionControl::NONE)?;
        // Case 0 is the default; the selector's value is always below `cases`.
        let targets = (1..cases).map(|k| (Operand::LiteralBit32(k), labels[k as usize]));
        self.cx.b.switch(selector, labels[0], targets)?;
        let mut pairs = Vec::new();
        for k in 0..cases {
            let l = labels[k as usize];
            self.cx.b.begin_block(Some(l))?;
            let v = body(self, k)?;
            self.cx.b.branch(merge)?;
            pairs.push((v, l));
        }
        self.cx.b.begin_block(Some(merge))?;
        let v = self.cx.b.phi(ty, None, pairs)?;
        self.cx.note_value(v, ty);
        self.exit_labels.insert(self.cur_label, merge);
        Ok(v)
    }

    /// Runs `body` once per partition of the subgroup's active invocations that agree on all
    /// `keys` (32-bit unsigned ids): a loop whose every iteration elects the partition of the
    /// first active invocation, runs `body` in it, and lets those invocations leave. Returns
    /// the value of `body` (of type `ty`) for each invocation. Invocations for which `skip`
    /// holds (a boolean id) stay out of the loop, and so out of every partition, and get an
    /// undefined value. Splits the current block like [`Self::split_if`].
    ///
    /// `PartitionKeys::LaneMask` keys are first ANDed with the ballot of the invocations
    /// entering the loop (after `skip`), so that bits of inactive lanes (and of lanes past
    /// the subgroup) never split a partition.
    pub fn partition_loop(
        &mut self,
        keys: PartitionKeys<'_>,
        ty: Word,
        skip: Option<Word>,
        body: impl FnOnce(&mut Self) -> Result<Word>,
    ) -> Result<Word> {
        if self.cur_loop_header {
            return Err(self.err("a partitioned wave operation in a loop header block"));
        }
        // `if (skip) {} else { loop }`: the skipped invocations wait at the merge.
        let outer = match skip {
            Some(cond) => {
                let b = &mut self.cx.b;
                let (skipped, enter, after) = (b.id(), b.id(), b.id());
                b.selection_merge(after, spirv::SelectionControl::NONE)?;
                b.branch_conditional(cond, skipped, enter, [])?;
                b.begin_block(Some(skipped))?;
                b.branch(after)?;
                b.begin_block(Some(enter))?;
                Some((skipped, after))
            }
            None => None,
        };
        let keys: Vec<Word> = match keys {
            PartitionKeys::Values(k) => k.to_vec(),
            PartitionKeys::LaneMask(words) => {
                // The lanes entering the loop: every active lane not skipped.
                let u = self.cx.u32_t();
                let u4 = self.cx.vec(u, 4);
                let bool_t = self.cx.bool_t();
                let sg = self.cx.const_u32(spirv::Scope::Subgroup as u32);
                let t = self.cx.b.constant_true(bool_t);
                let active = self.ids_op(Op::GroupNonUniformBallot, u4, &[sg, t])?;
                let mut masked = Vec::with_capacity(4);
                for (k, &w) in words.iter().enumerate() {
                    let a = self.extract(u, active, k as u32)?;
                    masked.push(self.ids_op(Op::BitwiseAnd, u, &[w, a])?);
                }
                masked
            }
        };
        let b = &mut self.cx.b;
        let (header, inner, found, sel, cont, merge) = (b.id(), b.id(), b.id(), b.id(), b.id(), b.id());
        b.branch(header)?;
        b.begin_block(Some(header))?;
        b.loop_merge(merge, cont, spirv::LoopControl::NONE, [])?;
        b.branch(inner)?;
        b.begin_block(Some(inner))?;
        let u = self.cx.u32_t();
        let bool_t = self.cx.bool_t();
        let sg = self.cx.const_u32(spirv::Scope::Subgroup as u32);
        let mut eq = None;
        for &k in &keys {
            let first = self.ids_op(Op::GroupNonUniformBroadcastFirst, u, &[sg, k])?;
            let e = self.ids_op(Op::IEqual, bool_t, &[k, first])?;
            eq = Some(match eq {
                None => e,
                Some(prev) => self.ids_op(Op::LogicalAnd, bool_t, &[prev, e])?,
            });
        }
        let eq = eq.ok_or_else(|| Error::Internal("partition without keys".into()))?;
        self.cx.b.selection_merge(sel, spirv::SelectionControl::NONE)?;
        self.cx.b.branch_conditional(eq, found, sel, [])?;
        self.cx.b.begin_block(Some(found))?;
        let r = body(self)?;
        self.cx.b.branch(sel)?;
        self.cx.b.begin_block(Some(sel))?;
        let (t, f) = (self.cx.b.constant_true(bool_t), self.cx.b.constant_false(bool_t));
        let done = self.cx.b.phi(bool_t, None, [(t, found), (f, inner)])?;
        let undef = self.cx.undef(ty);
        let v = self.cx.b.phi(ty, None, [(r, found), (undef, inner)])?;
        self.cx.note_value(v, ty);
        self.cx.b.branch_conditional(done, merge, cont, [])?;
        self.cx.b.begin_block(Some(cont))?;
        self.cx.b.branch(header)?;
        self.cx.b.begin_block(Some(merge))?;
        let Some((skipped, after)) = outer else {
            self.exit_labels.insert(self.cur_label, merge);
            return Ok(v);
        };
        self.cx.b.branch(after)?;
        self.cx.b.begin_block(Some(after))?;
        let undef = self.cx.undef(ty);
        let v = self.cx.b.phi(ty, None, [(v, merge), (undef, skipped)])?;
        self.cx.note_value(v, ty);
        self.exit_labels.insert(self.cur_label, after);
        Ok(v)
    }

    /// Records that instruction `i` yields module-scope variable `var` of `class`.
    pub fn define_pointer(&mut self, i: InstId, var: Word, class: StorageClass) {
        self.global_ptrs.insert(i, (var, class));
    }

    /// Records the id of an instruction result, storing it if it is demoted.
    pub fn define(&mut self, i: InstId, w: Word) -> Result<()> {
        self.ids[i] = w;
        if let Some(&var) = self.demoted.get(&i) {
            self.ids_void(Op::Store, &[var, w])?;
        }
        Ok(())
    }

    fn terminator(&mut self, o: BlockId, targets: &[Word], merge: Option<(Word, Option<Word>)>) -> Result<()> {
        let slots = |n: usize| -> Result<()> {
            if targets.len() == n {
                Ok(())
            } else {
                Err(Error::Internal("terminator slot count".into()))
            }
        };
        match self.f.blocks[o].terminator.clone() {
            Terminator::Br { .. } => {
                slots(1)?;
                emit_merge(&mut self.cx.b, merge)?;
                self.cx.b.branch(targets[0])?;
            }
            Terminator::CondBr { cond, .. } => {
                slots(2)?;
                let c = self.value(cond)?;
                // Only a switch needs the constant (made only then, so other modules keep their ids).
                let zero = if targets[0] == targets[1] { self.cx.const_u32(0) } else { 0 };
                emit_two_way(&mut self.cx.b, c, targets[0], targets[1], merge, zero)?;
            }
            Terminator::Switch { value, cases, .. } => {
                slots(cases.len() + 1)?;
                let bits = self.value_ty(value).and_then(|t| self.scalar_bits(t)).unwrap_or(32);
                let s = self.value(value)?;
                let lits: Vec<(Operand, Word)> = cases
                    .iter()
                    .enumerate()
                    .map(|(k, (v, _))| {
                        let lit = if bits == 64 { Operand::LiteralBit64(*v) } else { Operand::LiteralBit32(*v as u32) };
                        (lit, targets[k + 1])
                    })
                    .collect();
                emit_merge(&mut self.cx.b, merge)?;
                self.cx.b.switch(s, targets[0], lits)?;
            }
            Terminator::Ret { value } => {
                if value.is_some() {
                    return Err(self.err("`ret` with a value in an entry point"));
                }
                self.xfb_copy_out()?;
                // Amplification shaders end in `OpEmitMeshTasksEXT` (`stage::amplification`).
                let tasks = match self.sm.kind {
                    crate::front::container::ShaderKind::Amplification => Some(self.task_return_counts()?),
                    _ => None,
                };
                emit_merge(&mut self.cx.b, merge)?;
                match tasks {
                    Some(counts) => self.emit_mesh_tasks(counts)?,
                    None => self.cx.b.ret()?,
                }
            }
            Terminator::Unreachable => {
                emit_merge(&mut self.cx.b, merge)?;
                self.cx.b.unreachable()?;
            }
        }
        Ok(())
    }

    // --- instructions ---

    fn inst(&mut self, i: InstId) -> Result<()> {
        if !self.wmma.slots.is_empty() && self.wmma_slot_access(i)? {
            return Ok(());
        }
        let inst = self.f.insts[i].clone();
        let ty = inst.ty;
        let w = match &inst.kind {
            InstKind::Phi { .. } => return Ok(()),
            InstKind::Binary { op, lhs, rhs, fast } => self.binary(*op, ty, *lhs, *rhs, *fast)?,
            InstKind::FNeg { value } => {
                let t = self.cx.ty(ty)?;
                let v = self.value(*value)?;
                self.ids_op(Op::FNegate, t, &[v])?
            }
            InstKind::Cast { op: CastOp::BitCast | CastOp::AddrSpaceCast, value }
                if work_graph::is_record_pointer(&self.cx.m.types, ty) =>
            {
                // The same record address, another pointee type.
                self.value(*value)?
            }
            InstKind::GetElementPtr { source, base, indices, .. }
                if work_graph::is_record_pointer(&self.cx.m.types, ty) =>
            {
                let (source, base, indices) = (*source, *base, indices.clone());
                self.record_gep(source, base, &indices)?
            }
            InstKind::Cast { op, value } => {
                if matches!(self.cx.m.types.get(ty), Type::Pointer { .. }) {
                    // Resolved where it is used (`pointer`); casts that only feed lifetime
                    // markers are never used.
                    return Ok(());
                }
                self.cast(*op, ty, *value)?
            }
            InstKind::ICmp { pred, lhs, rhs } => self.icmp(*pred, ty, *lhs, *rhs)?,
            InstKind::FCmp { pred, lhs, rhs } => self.fcmp(*pred, ty, *lhs, *rhs)?,
            InstKind::Select { cond, if_true, if_false } => {
                if is_handle_ty(self.cx.m, ty) {
                    return Err(self.err("select between resource handles"));
                }
                let t = self.cx.ty(ty)?;
                let ops = [self.value(*cond)?, self.value(*if_true)?, self.value(*if_false)?];
                self.ids_op(Op::Select, t, &ops)?
            }
            InstKind::ExtractValue { aggregate, indices } => {
                let t = self.cx.ty(ty)?;
                let a = self.value(*aggregate)?;
                self.ids_op_list(Op::CompositeExtract, t, &[a], indices.iter().copied())?
            }
            InstKind::InsertValue { aggregate, element, indices } => {
                let t = self.cx.ty(ty)?;
                let e = self.value(*element)?;
                let a = self.value(*aggregate)?;
                self.ids_op_list(Op::CompositeInsert, t, &[e, a], indices.iter().copied())?
            }
            // A constant lane past the vector's end gives poison in LLVM (a corrupted index,
            // or dead code DXC did not fold): an undefined value, never an
            // `OpCompositeExtract`/`OpCompositeInsert` past the end, which is invalid SPIR-V.
            InstKind::ExtractElement { vector, index } => {
                let t = self.cx.ty(ty)?;
                let v = self.value(*vector)?;
                match self.const_int(*index) {
                    Some(k) if !self.lane_in_range(*vector, k) => self.cx.undef(t),
                    Some(k) => self.ids_op(Op::CompositeExtract, t, &[v, k as u32])?,
                    None => {
                        let x = self.value(*index)?;
                        let vt = self.value_ty(*vector).ok_or_else(|| self.err("extractelement operand"))?;
                        let vt = self.cx.ty(vt)?;
                        if self.cx.long_type(vt).is_some() {
                            self.long_extract_dynamic(vt, t, v, x)?
                        } else {
                            self.ids_op(Op::VectorExtractDynamic, t, &[v, x])?
                        }
                    }
                }
            }
            InstKind::InsertElement { vector, element, index } => {
                let t = self.cx.ty(ty)?;
                let v = self.value(*vector)?;
                let e = self.value(*element)?;
                match self.const_int(*index) {
                    Some(k) if !self.lane_in_range(*vector, k) => self.cx.undef(t),
                    Some(k) => self.ids_op(Op::CompositeInsert, t, &[e, v, k as u32])?,
                    None => {
                        let x = self.value(*index)?;
                        match self.cx.long_type(t) {
                            Some((elem, _)) => self.long_insert_dynamic(t, elem, v, e, x)?,
                            None => self.ids_op(Op::VectorInsertDynamic, t, &[v, e, x])?,
                        }
                    }
                }
            }
            InstKind::ShuffleVector { lhs, rhs, mask } => {
                let t = self.cx.ty(ty)?;
                let a = self.value(*lhs)?;
                let b = self.value(*rhs)?;
                let lanes = |me: &Self, v: Value| match me.value_ty(v).map(|t| me.cx.m.types.get(t)) {
                    Some(Type::Vector { len, elem }) => Some((*len, *elem)),
                    _ => None,
                };
                let (a_len, elem) = lanes(self, *lhs).ok_or_else(|| self.err("shufflevector operand"))?;
                let b_len = lanes(self, *rhs).map_or(0, |l| l.0);
                if a_len > 4 || b_len > 4 || mask.len() > 4 {
                    let e = self.cx.ty(elem)?;
                    let w = self.long_shuffle(t, e, (a, b), a_len, mask)?;
                    return self.define(i, w);
                }
                let lanes = mask.iter().map(|&k| if k < 0 { u32::MAX } else { k as u32 });
                self.ids_op_list(Op::VectorShuffle, t, &[a, b], lanes)?
            }
            InstKind::Alloca { .. } => return Ok(()),
            _ if self.cb_arrays.roles.contains_key(&i) => {
                use crate::rewrite::cbuffer_array::Role;
                let Some(Role::Load { alloca, index }) = self.cb_arrays.role(i) else { return Ok(()) };
                let array = *self
                    .cb_arrays
                    .arrays
                    .get(&alloca)
                    .ok_or_else(|| Error::Internal("constant-buffer array load without its array".into()))?;
                self.cbuffer_array_load(&array, index, ty)?
            }
            InstKind::Load { ptr, .. } if self.library_resource(*ptr).is_some() => return Ok(()),
            InstKind::GetElementPtr { base, .. } if self.library_resource(*base).is_some() => return Ok(()),
            InstKind::Load { ptr, align, .. } => {
                let t = self.cx.ty(ty)?;
                let (p, class) = self.pointer(*ptr)?;
                if class == StorageClass::PhysicalStorageBuffer {
                    let align = self.access_align(*align, ty);
                    let access = self.record_access();
                    self.ids_op(Op::Load, t, &[p, access, align])?
                } else {
                    self.ids_op(Op::Load, t, &[p])?
                }
            }
            InstKind::Store { ptr, value, align, .. } => {
                let (p, class) = self.written_pointer(*ptr)?;
                let v = self.value(*value)?;
                if class == StorageClass::PhysicalStorageBuffer {
                    let vty = self.value_ty(*value).ok_or_else(|| self.err("store operand"))?;
                    let align = self.access_align(*align, vty);
                    let access = self.record_access();
                    return self.ids_void(Op::Store, &[p, v, access, align]);
                }
                return self.ids_void(Op::Store, &[p, v]);
            }
            InstKind::GetElementPtr { base, indices, .. } => {
                let p = self.gep(ty, *base, &indices.clone())?;
                self.ptrs.insert(i, p);
                return Ok(());
            }
            InstKind::AtomicRmw { op, ptr, value, .. } => {
                use crate::ir::AtomicRmwOp as A;
                if let Some(w) = self.wmma_lds_hook(i, *ptr, ty)? {
                    return self.define(i, w);
                }
                let opcode = match op {
                    A::Xchg => Op::AtomicExchange,
                    A::Add => Op::AtomicIAdd,
                    A::Sub => Op::AtomicISub,
                    A::And => Op::AtomicAnd,
                    A::Or => Op::AtomicOr,
                    A::Xor => Op::AtomicXor,
                    A::Max => Op::AtomicSMax,
                    A::Min => Op::AtomicSMin,
                    A::UMax => Op::AtomicUMax,
                    A::UMin => Op::AtomicUMin,
                    other => return Err(self.err(format!("atomicrmw {}", other.name()))),
                };
                let (t, [p, scope, sem]) = self.atomic_access(ty, *ptr)?;
                let v = self.value(*value)?;
                self.ids_op(opcode, t, &[p, scope, sem, v])?
            }
            InstKind::CmpXchg { ptr, expected, replacement, .. } => {
                let vty = self.value_ty(*expected).ok_or_else(|| self.err("cmpxchg operand"))?;
                let (vt, [p, scope, sem]) = self.atomic_access(vty, *ptr)?;
                let e = self.value(*expected)?;
                let r = self.value(*replacement)?;
                let old = self.ids_op(Op::AtomicCompareExchange, vt, &[p, scope, sem, sem, r, e])?;
                let bool_t = self.cx.bool_t();
                let ok = self.ids_op(Op::IEqual, bool_t, &[old, e])?;
                let t = self.cx.ty(ty)?;
                self.ids_op(Op::CompositeConstruct, t, &[old, ok])?
            }
            InstKind::Freeze { value } => {
                let t = self.cx.ty(ty)?;
                let v = self.value(*value)?;
                self.ids_op(Op::CopyObject, t, &[v])?
            }
            InstKind::Call { callee, args } => {
                let Value::Func(fid) = callee else { return Err(self.err("indirect call")) };
                let (m, f) = (self.cx.m, self.f);
                let name = &m.functions[*fid].name;
                if name.starts_with("llvm.lifetime.") || name.starts_with("llvm.dbg.") {
                    return Ok(());
                }
                let block = self.def_block[i].ok_or_else(|| Error::Internal("call outside the layout".into()))?;
                let call =
                    crate::dxil::ops::decode_call_with(m, f, i, || f.block_label(block)).map_err(|e| match e {
                        e @ crate::dxil::Error::NewerOperation { .. } => Error::NewerOperation(Box::new(e)),
                        e => malformed(Subject::Module, e.to_string()),
                    })?;
                let Some(call) = call else {
                    let _ = args;
                    return Err(self.err(format!("call to `{name}`")));
                };
                match self.dx_op(i, &call)? {
                    Some(w) => w,
                    None => return Ok(()),
                }
            }
            InstKind::Fence { .. } => return Err(self.err("fence")),
            InstKind::VaArg { .. } => return Err(self.err("va_arg")),
        };
        self.define(i, w)
    }

    /// The `Aligned` operand of a record-memory access of a `ty` value: the instruction's
    /// alignment, raised to the type's natural one. Vulkan wants at least the largest
    /// scalar's size on a `PhysicalStorageBuffer` access (VUID-StandaloneSpirv-
    /// PhysicalStorageBuffer64-06314), and D3D lays records out with natural alignment, so a
    /// smaller one (`align 1`) says less than is known.
    fn access_align(&self, align: u32, ty: TypeId) -> u32 {
        let natural = work_graph::layout_of(&self.cx.m.types, ty).map_or(4, |(_, a)| a.clamp(1, 16) as u32);
        if align.is_power_of_two() {
            align.max(natural)
        } else {
            natural
        }
    }

    /// The memory-access operand of record loads and stores: `Aligned`, and `Volatile` when
    /// the node's input is `globallycoherent` (other groups' writes must be seen).
    fn record_access(&self) -> u32 {
        let coherent = self.iface.node.as_ref().is_some_and(|n| {
            n.props.inputs.iter().any(|i| i.flags & crate::dxil::node::io_flags::GLOBALLY_COHERENT != 0)
        });
        let mut access = spirv::MemoryAccess::ALIGNED;
        if coherent {
            access |= spirv::MemoryAccess::VOLATILE;
        }
        access.bits()
    }

    /// Bits of a vector's element, if `t` is a vector.
    fn vector_elem_bits(&self, t: TypeId) -> Option<u32> {
        match self.cx.m.types.get(t) {
            Type::Vector { elem, .. } => self.scalar_bits(*elem),
            _ => None,
        }
    }

    /// A GEP on a node record pointer: the base address plus the byte offset the indices
    /// select in record memory's layout (`work_graph::layout_of`).
    fn record_gep(&mut self, source: TypeId, base: Value, indices: &[Value]) -> Result<Word> {
        use work_graph::{field_offset, layout_of};
        let u64t = self.cx.uint(64);
        let mut addr = self.value(base)?;
        let mut cur = source;
        for (k, &ix) in indices.iter().enumerate() {
            let types = &self.cx.m.types;
            let (offset_const, scale, next) = if k == 0 {
                let (size, _) = layout_of(types, cur).ok_or_else(|| self.err("GEP over a type without a layout"))?;
                (None, size, cur)
            } else {
                match types.get(cur).clone() {
                    Type::Struct { .. } | Type::Named(_) => {
                        let field = self.const_int(ix).ok_or_else(|| self.err("GEP with a dynamic struct index"))?;
                        let off = field_offset(types, cur, field as usize)
                            .ok_or_else(|| self.err("GEP struct index out of range"))?;
                        let next = types.struct_fields(cur).and_then(|f| f.get(field as usize).copied());
                        (Some(off), 0, next.ok_or_else(|| self.err("GEP struct index out of range"))?)
                    }
                    Type::Array { elem, .. } | Type::Vector { elem, .. } => {
                        let (size, _) =
                            layout_of(types, elem).ok_or_else(|| self.err("GEP over a type without a layout"))?;
                        (None, size, elem)
                    }
                    _ => return Err(self.err("GEP into a scalar")),
                }
            };
            let delta = match offset_const {
                Some(0) => None,
                Some(off) => Some(self.cx.const_bits(u64t, 64, off)),
                None => match self.const_int(ix) {
                    Some(0) => None,
                    Some(c) => {
                        let bits = self.value_ty(ix).and_then(|t| self.scalar_bits(t)).unwrap_or(32);
                        let signed = if bits < 64 { ((c << (64 - bits)) as i64) >> (64 - bits) } else { c as i64 };
                        Some(self.cx.const_bits(u64t, 64, signed.wrapping_mul(scale as i64) as u64))
                    }
                    None => {
                        let v = self.value(ix)?;
                        let bits = self.value_ty(ix).and_then(|t| self.scalar_bits(t)).unwrap_or(32);
                        let wide = if bits == 64 { v } else { self.ids_op(Op::SConvert, u64t, &[v])? };
                        let s = self.cx.const_bits(u64t, 64, scale);
                        Some(self.ids_op(Op::IMul, u64t, &[wide, s])?)
                    }
                },
            };
            if let Some(d) = delta {
                addr = self.ids_op(Op::IAdd, u64t, &[addr, d])?;
            }
            cur = next;
        }
        Ok(addr)
    }

    /// An atomic instruction's value type (declaring `Int64Atomics` for a 64-bit one) and
    /// its first operands: pointer, scope ([`Self::atomic_scope`]) and semantics.
    fn atomic_access(&mut self, value_ty: TypeId, ptr: Value) -> Result<(Word, [Word; 3])> {
        let t = self.cx.ty(value_ty)?;
        if self.scalar_bits(value_ty) == Some(64) {
            self.cx.capability(spirv::Capability::Int64Atomics);
        }
        let (p, class) = self.written_pointer(ptr)?;
        let (scope, sem) = self.atomic_scope(class);
        Ok((t, [p, scope, sem]))
    }

    /// Scope and (relaxed) semantics ids for an atomic on memory of `class`.
    pub fn atomic_scope(&mut self, class: StorageClass) -> (Word, Word) {
        let scope = match class {
            StorageClass::Workgroup => spirv::Scope::Workgroup,
            StorageClass::Function | StorageClass::Private => spirv::Scope::Invocation,
            _ => spirv::Scope::Device,
        };
        (self.cx.const_u32(scope as u32), self.cx.const_u32(0))
    }

    fn is_bool(&self, t: TypeId) -> bool {
        match self.cx.m.types.get(t) {
            Type::Int(1) => true,
            Type::Vector { elem, .. } => self.is_bool(*elem),
            _ => false,
        }
    }

    fn binary(&mut self, op: BinaryOp, ty: TypeId, lhs: Value, rhs: Value, fast: bool) -> Result<Word> {
        use BinaryOp::*;
        let boolean = self.is_bool(ty);
        let opcode = match op {
            Add | Sub | Xor if boolean => Op::LogicalNotEqual,
            Mul | And if boolean => Op::LogicalAnd,
            Or if boolean => Op::LogicalOr,
            _ if boolean => return Err(self.err(format!("`{}` on i1", op.name()))),
            Add => Op::IAdd,
            Sub => Op::ISub,
            Mul => Op::IMul,
            UDiv => Op::UDiv,
            SDiv => Op::SDiv,
            URem => Op::UMod,
            SRem => Op::SRem,
            Shl => Op::ShiftLeftLogical,
            LShr => Op::ShiftRightLogical,
            AShr => Op::ShiftRightArithmetic,
            And => Op::BitwiseAnd,
            Or => Op::BitwiseOr,
            Xor => Op::BitwiseXor,
            FAdd => Op::FAdd,
            FSub => Op::FSub,
            FMul => Op::FMul,
            FDiv => Op::FDiv,
            FRem => Op::FRem,
        };
        let (t, a, b) = self.typed_pair(ty, lhs, rhs)?;
        // D3D: an unsigned division by zero gives all ones (quotient and remainder). SPIR-V
        // makes it undefined *behaviour*, not an undefined value: a driver may assume the
        // divisor is not 0 and fold away a select on the result (NVIDIA's does), so the
        // division is made with 1 in place of 0 and the select picks all ones.
        let by_zero = if matches!(op, BinaryOp::UDiv | BinaryOp::URem) && !boolean {
            let zero = self.scalar_const(ty, 0, 0.0)?;
            let bt = self.cx.bool_t();
            // A vector divides lane by lane: a `bool` per lane.
            let bt = match self.cx.m.types.get(ty) {
                Type::Vector { len, .. } => self.cx.lanes_type(bt, *len),
                _ => bt,
            };
            Some(self.ids_op(Op::IEqual, bt, &[b, zero])?)
        } else {
            None
        };
        let b = match by_zero {
            Some(z) => {
                let one = self.scalar_const(ty, 1, 0.0)?;
                self.ids_op(Op::Select, t, &[z, one, b])?
            }
            None => b,
        };
        let r = self.ids_op(opcode, t, &[a, b])?;
        if op.is_float() {
            let bits = self.scalar_bits(ty).unwrap_or(32);
            if !fast {
                // `precise` (no fast-math flag): the driver must not fuse it into a
                // multiply-add (nor, in Mesa's reading, reassociate it).
                if self.cx.float_controls2 {
                    // Under float controls 2 the two may not decorate one instruction;
                    // `None` says more (no contraction, no reassociation, IEEE zeros, NaNs
                    // and infinities). The entry point also gets `FPFastMathDefault None`
                    // for the type (`ModuleBuilder::finish_float_controls`).
                    self.cx.extension("SPV_KHR_float_controls2");
                    self.cx.capability(rspirv::spirv::Capability::FloatControls2);
                    self.cx.decorate(r, rspirv::spirv::Decoration::FPFastMathMode, &[0]);
                    self.cx.float_controls.precise(bits);
                } else {
                    self.cx.decorate(r, rspirv::spirv::Decoration::NoContraction, &[]);
                }
            } else if self.cx.float_controls2 {
                self.cx.float_controls.fast(r, bits);
            }
        }
        if let Some(z) = by_zero {
            let ones = self.scalar_const(ty, -1, 0.0)?;
            return self.ids_op(Op::Select, t, &[z, ones, r]);
        }
        Ok(r)
    }

    /// A scalar constant of IR type `ty` with value `v` (ints) or `f` (floats); of a native
    /// vector type, that value in every lane.
    pub fn scalar_const(&mut self, ty: TypeId, v: i64, f: f64) -> Result<Word> {
        let t = self.cx.ty(ty)?;
        Ok(match self.cx.m.types.get(ty).clone() {
            Type::Vector { elem, len } => {
                let k = self.scalar_const(elem, v, f)?;
                let w = self.cx.b.constant_composite(t, vec![k; len as usize]);
                self.cx.note_value(w, t);
                w
            }
            Type::Int(1) => {
                if v != 0 {
                    self.cx.b.constant_true(t)
                } else {
                    self.cx.b.constant_false(t)
                }
            }
            Type::Int(bits) => {
                let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                self.cx.const_bits(t, bits, (v as u64) & mask)
            }
            Type::Float(k) => match if k == FloatKind::Half { self.cx.half_bits } else { k.bits() } {
                16 => self.cx.const_bits(t, 16, half::f16::from_f64(f).to_bits() as u64),
                32 => self.cx.const_bits(t, 32, (f as f32).to_bits() as u64),
                _ => self.cx.const_bits(t, 64, f.to_bits()),
            },
            _ => return Err(self.err("a constant of a non-numeric type")),
        })
    }

    fn cast(&mut self, op: CastOp, ty: TypeId, value: Value) -> Result<Word> {
        let from = self.value_ty(value).ok_or_else(|| self.err("cast operand"))?;
        let t = self.cx.ty(ty)?;
        let v = self.value(value)?;
        let from_bool = self.is_bool(from);
        let sel = |me: &mut Self, on: (i64, f64), off: (i64, f64)| -> Result<Word> {
            let a = me.scalar_const(ty, on.0, on.1)?;
            let b = me.scalar_const(ty, off.0, off.1)?;
            me.ids_op(Op::Select, t, &[v, a, b])
        };
        match op {
            CastOp::ZExt if from_bool => sel(self, (1, 1.0), (0, 0.0)),
            CastOp::SExt if from_bool => sel(self, (-1, -1.0), (0, 0.0)),
            CastOp::UIToFP if from_bool => sel(self, (1, 1.0), (0, 0.0)),
            CastOp::SIToFP if from_bool => sel(self, (-1, -1.0), (0, 0.0)),
            CastOp::Trunc if self.is_bool(ty) => {
                let one = self.scalar_const(from, 1, 1.0)?;
                let zero = self.scalar_const(from, 0, 0.0)?;
                let ft = self.cx.ty(from)?;
                let bit = self.ids_op(Op::BitwiseAnd, ft, &[v, one])?;
                self.ids_op(Op::INotEqual, t, &[bit, zero])
            }
            CastOp::FPToUI | CastOp::FPToSI if self.is_bool(ty) => {
                let zero = self.scalar_const(from, 0, 0.0)?;
                self.ids_op(Op::FUnordNotEqual, t, &[v, zero])
            }
            CastOp::Trunc | CastOp::ZExt => self.ids_op(Op::UConvert, t, &[v]),
            CastOp::SExt => self.ids_op(Op::SConvert, t, &[v]),
            CastOp::FPToUI => self.ids_op(Op::ConvertFToU, t, &[v]),
            CastOp::FPToSI => self.ids_op(Op::ConvertFToS, t, &[v]),
            CastOp::UIToFP => self.ids_op(Op::ConvertUToF, t, &[v]),
            CastOp::SIToFP => self.ids_op(Op::ConvertSToF, t, &[v]),
            // Minimum precision widened to 32 bits: `half` is `float`, and converting between
            // them converts nothing.
            CastOp::FPTrunc | CastOp::FPExt if self.cx.ty(from)? == t => Ok(v),
            CastOp::FPExt if self.scalar_bits(ty) == Some(32) => match self.quantized_f32(value)? {
                // `fpext(fptrunc(x))`, float → half → float: `OpQuantizeToF16` of `x`. A
                // driver may fold the pair of `OpFConvert`s back to `x` (NVIDIA does, even
                // with `NoContraction`), while D3D rounds to half precision here.
                Some(x) => self.ids_op(Op::QuantizeToF16, t, &[x]),
                None => self.ids_op(Op::FConvert, t, &[v]),
            },
            CastOp::FPTrunc | CastOp::FPExt => self.ids_op(Op::FConvert, t, &[v]),
            CastOp::BitCast => {
                if from == ty {
                    Ok(v)
                } else if self.total_bits(from) != self.total_bits(ty) {
                    Err(self.err("bitcast of a minimum-precision `half` widened to 32 bits (MinPrecision::Float32)"))
                } else {
                    self.ids_op(Op::Bitcast, t, &[v])
                }
            }
            other => Err(self.err(format!("cast `{}`", other.name()))),
        }
    }

    /// For `fpext` of `value`: when `value` is `fptrunc x` from 32-bit float to a real
    /// 16-bit `half`, the SPIR-V id of `x` (the whole pair is then a quantization of `x`);
    /// `None` otherwise.
    fn quantized_f32(&mut self, value: Value) -> Result<Option<Word>> {
        let Value::Inst(i) = value else { return Ok(None) };
        let Some(inst) = self.f.insts.get(i) else { return Ok(None) };
        let InstKind::Cast { op: CastOp::FPTrunc, value: x } = inst.kind else { return Ok(None) };
        let half = matches!(self.cx.m.types.get(inst.ty), Type::Float(FloatKind::Half)) && self.cx.half_bits == 16;
        let from_f32 =
            self.value_ty(x).is_some_and(|t| matches!(self.cx.m.types.get(t), Type::Float(FloatKind::Float)));
        if !(half && from_f32) {
            return Ok(None);
        }
        self.value(x).map(Some)
    }

    fn icmp(&mut self, pred: IntPredicate, ty: TypeId, lhs: Value, rhs: Value) -> Result<Word> {
        use IntPredicate::*;
        let operand_bool = self.value_ty(lhs).is_some_and(|t| self.is_bool(t));
        let opcode = match pred {
            Eq if operand_bool => Op::LogicalEqual,
            Ne if operand_bool => Op::LogicalNotEqual,
            _ if operand_bool => return Err(self.err("ordered comparison of i1 values")),
            Eq => Op::IEqual,
            Ne => Op::INotEqual,
            Ugt => Op::UGreaterThan,
            Uge => Op::UGreaterThanEqual,
            Ult => Op::ULessThan,
            Ule => Op::ULessThanEqual,
            Sgt => Op::SGreaterThan,
            Sge => Op::SGreaterThanEqual,
            Slt => Op::SLessThan,
            Sle => Op::SLessThanEqual,
        };
        let (t, a, b) = self.typed_pair(ty, lhs, rhs)?;
        self.ids_op(opcode, t, &[a, b])
    }

    fn fcmp(&mut self, pred: FloatPredicate, ty: TypeId, lhs: Value, rhs: Value) -> Result<Word> {
        use FloatPredicate::*;
        let t = self.cx.ty(ty)?;
        let opcode = match pred {
            True => return self.scalar_const(ty, 1, 0.0),
            False => return self.scalar_const(ty, 0, 0.0),
            Oeq => Op::FOrdEqual,
            Ogt => Op::FOrdGreaterThan,
            Oge => Op::FOrdGreaterThanEqual,
            Olt => Op::FOrdLessThan,
            Ole => Op::FOrdLessThanEqual,
            One => Op::FOrdNotEqual,
            Ueq => Op::FUnordEqual,
            Ugt => Op::FUnordGreaterThan,
            Uge => Op::FUnordGreaterThanEqual,
            Ult => Op::FUnordLessThan,
            Ule => Op::FUnordLessThanEqual,
            Une => Op::FUnordNotEqual,
            Ord | Uno => {
                let (a, b) = self.value_pair(lhs, rhs)?;
                let na = self.ids_op(Op::IsNan, t, &[a])?;
                let nb = self.ids_op(Op::IsNan, t, &[b])?;
                let any = self.ids_op(Op::LogicalOr, t, &[na, nb])?;
                return if pred == Uno { Ok(any) } else { self.ids_op(Op::LogicalNot, t, &[any]) };
            }
        };
        let (a, b) = self.value_pair(lhs, rhs)?;
        self.ids_op(opcode, t, &[a, b])
    }
}

/// Whether `t` is an SM 6.10 LinAlg thread-scope matrix, which has no SPIR-V value of its
/// own (`dxop/linalg.rs`).
fn is_linalg_thread_matrix_ty(m: &crate::ir::Module, t: TypeId) -> bool {
    is_linalg_matrix_ty(m, t) && super::module::register_matrix(m.types.struct_name(t)).is_none()
}

/// Whether `t` is an SM 6.10 LinAlg matrix (`%dx.types.LinAlgMatrix…`), which has no SPIR-V
/// value of its own here (`dxop/linalg.rs`).
fn is_linalg_matrix_ty(m: &crate::ir::Module, t: TypeId) -> bool {
    m.types.struct_name(t).is_some_and(crate::dxil::linalg::is_matrix_name)
}
