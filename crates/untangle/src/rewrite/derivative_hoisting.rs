//! Derivative hoisting: an explicit screen-space derivative (`ddx`/`ddy`, coarse or fine:
//! `dx.op` `DerivCoarseX/Y`, `DerivFineX/Y`) that sits in divergent control flow is
//! computed instead at the end of the nearest quad-uniform block that dominates it.
//!
//! # Why
//!
//! SPIR-V leaves `OpDPdx*` undefined unless every invocation of the quad executes it
//! together; an early `return` taken by some pixels of a quad makes the derivatives after
//! it undefined, and drivers differ (NVIDIA's inactive lanes read as 0, lavapipe keeps
//! computing them). D3D drivers give the value the derivative has in uniform control flow,
//! and applications rely on it (vkd3d-proton's `test_derivative_hoisting` checks it). The
//! idea is the one of dxil-spirv and of dxbc-spirv's derivative pass: move the derivative
//! to a point every lane of the quad reaches, where its operand already has its value.
//!
//! # What moves, and where
//!
//! A block is *uniform* when it is reachable, post-dominates the entry (every invocation
//! that returns passes through it) and belongs to no loop: every invocation runs it exactly
//! once, so the lanes of a quad run it together. Uniform blocks form a chain ordered by
//! dominance. For a derivative in a block `D` that is not uniform, the target `T` is the
//! nearest uniform block that strictly dominates `D`. The derivative moves to the end of
//! `T` (after its last instruction, before its terminator) when each operand is available
//! there: a constant or argument, an instruction of a block that dominates `T`, or an
//! instruction that is itself *speculatable* and available by the same rule, which then
//! moves along (at most [`MAX_MOVED`] instructions per derivative, operands first).
//!
//! Speculatable: LLVM arithmetic (but integer division and remainder, whose divisor a
//! branch may guard), comparisons, casts, `select`, `freeze` and aggregate and vector
//! element operations whose result is neither a pointer nor a resource handle; and `dx.op`
//! calls DXC declares `readnone` that are neither convergent nor side-effecting (input
//! loads, system values, math). Memory reads are not: a load, a constant-buffer read or a
//! buffer read names an address or a descriptor that the branch may be guarding (a dynamic
//! index, a heap descriptor the application left unwritten), and reading it for lanes that
//! skipped the branch is outside what the program asked. So `ddx_coarse(cb.x)` whose
//! constant-buffer read sits in the branch stays where it is (its uniform-flow value is 0:
//! the operand is the same for the whole draw). Derivatives of PHIs stay too.
//!
//! `CalculateLOD` and the implicit-derivative samples are not hoisted: they read texture
//! and sampler descriptors (the same guarding concern) and sampling for every pixel costs
//! texture bandwidth the branch was meant to save. Only the explicit derivatives move.
//!
//! # Invariant
//!
//! Moving a pure operation to a dominating point in quad-uniform control flow never
//! changes a defined result, and only makes an undefined result defined: the operands are
//! the same SSA values there, so wherever the derivative was defined at its old place (all
//! four lanes active) it has the same value at the new one; where it was undefined it now
//! has the value D3D gives. Speculatable operands compute the same value wherever they
//! run. The rewritten function has the same blocks, edges, instructions and ids; only the
//! blocks' instruction lists change, and every definition still dominates its uses (`T`
//! dominates the old block of each moved instruction, and moved operands precede their
//! users in `T`).
//!
//! # Cost
//!
//! One scan for derivatives outside the entry block; none: no analysis and no copy.
//! Otherwise the dominator and post-dominator trees and the loop forest (O((n + e) log n)),
//! the nearest uniform dominator of every block in one
//! reverse-post-order walk, O(1) dominance queries per operand, at most [`MAX_MOVED`]
//! instructions examined per derivative, and one copy of the function whose block lists
//! are rebuilt once: near-linear in the function's size.

use crate::cfg::function::Cfg;
use crate::dxil::opcodes::{DxOp, FnAttr};
use crate::dxil::ops::decode_call_with;
use crate::ir::hash::HashMap;
use crate::ir::{BinaryOp, BlockId, Function, InstId, InstKind, Module, Type, Value};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;

/// The most instructions (the derivative and its speculated operands) one derivative may
/// move; a longer operand chain leaves the derivative where it is.
pub const MAX_MOVED: usize = 32;

/// What the pass did to one function.
#[derive(Clone, Debug)]
pub struct Hoisted {
    /// The rewritten function.
    pub function: Function,
    /// Derivatives moved.
    pub derivatives: usize,
    /// Speculatable operands moved along with them.
    pub operands: usize,
}

/// Hoists the explicit derivatives of `f` out of divergent control flow; `None` when none
/// moves (no derivative outside uniform blocks, or none whose operands are available).
/// An irreducible or malformed graph is left alone for the structurizer to report.
pub fn run(m: &Module, f: &Function) -> Option<Hoisted> {
    let entry = f.entry()?;
    let derivatives: Vec<(BlockId, InstId)> = f
        .layout
        .iter()
        .filter(|&&b| b != entry)
        .flat_map(|&b| f.blocks[b].insts.iter().map(move |&i| (b, i)))
        .filter(|&(_, i)| dx_op(m, f, i).is_some_and(DxOp::is_derivative))
        .collect();
    if derivatives.is_empty() {
        return None;
    }
    let cfg = Cfg::new(f).ok()?;
    let uniform = |b: BlockId| cfg.post_dominates(b, entry) && cfg.loops().innermost(b).is_none();
    // The nearest uniform dominator of each block (itself when uniform); RPO visits a
    // block's immediate dominator first.
    let mut nearest: SecondaryMap<BlockId, PackedOption<BlockId>> = SecondaryMap::new();
    for &b in cfg.rpo() {
        nearest[b] = if uniform(b) { b.into() } else { cfg.idom(b).and_then(|d| nearest[d].expand()).into() };
    }
    let mut def_block: SecondaryMap<InstId, PackedOption<BlockId>> = SecondaryMap::with_capacity(f.insts.len());
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            def_block[i] = b.into();
        }
    }
    let mut planner = Planner { m, f, cfg: &cfg, def_block, moves: Vec::new() };
    let mut moved_derivatives = 0;
    for (block, derivative) in derivatives {
        if !cfg.is_reachable(block) || uniform(block) {
            continue;
        }
        let Some(target) = cfg.idom(block).and_then(|d| nearest[d].expand()) else { continue };
        let mut plan = Vec::new();
        if planner.gather(derivative, target, true, 0, &mut plan) {
            moved_derivatives += 1;
            for i in plan {
                planner.def_block[i] = target.into();
                planner.moves.push((i, target));
            }
        }
    }
    if planner.moves.is_empty() {
        return None;
    }
    // Last target wins (an instruction moved twice went to a dominator of its first one).
    let mut final_target: HashMap<InstId, BlockId> = HashMap::default();
    for &(i, t) in &planner.moves {
        final_target.insert(i, t);
    }
    let mut out = f.clone();
    for &b in &f.layout {
        out.blocks[b].insts.retain(|i| !final_target.contains_key(i));
    }
    let mut placed: usize = 0;
    for &(i, t) in &planner.moves {
        if final_target.get(&i) == Some(&t) && final_target.remove(&i).is_some() {
            out.blocks[t].insts.push(i);
            placed += 1;
        }
    }
    Some(Hoisted { function: out, derivatives: moved_derivatives, operands: placed.saturating_sub(moved_derivatives) })
}

/// The `dx.op` an instruction calls, if any (malformed calls are reported by emission).
fn dx_op(m: &Module, f: &Function, i: InstId) -> Option<DxOp> {
    decode_call_with(m, f, i, String::new).ok().flatten().map(|c| c.op)
}

struct Planner<'a> {
    m: &'a Module,
    f: &'a Function,
    cfg: &'a Cfg,
    /// The block each instruction is defined in, moves planned so far included.
    def_block: SecondaryMap<InstId, PackedOption<BlockId>>,
    moves: Vec<(InstId, BlockId)>,
}

impl Planner<'_> {
    /// Whether `i` (the derivative when `root`) can be computed at the end of `target`,
    /// moving what must move: appends to `plan`, operands before users, the instructions
    /// that are not available there yet.
    fn gather(&self, i: InstId, target: BlockId, root: bool, depth: usize, plan: &mut Vec<InstId>) -> bool {
        let Some(block) = self.def_block[i].expand() else { return false };
        if !self.cfg.is_reachable(block) {
            return false;
        }
        if (!root && self.cfg.dominates(block, target)) || plan.contains(&i) {
            return true;
        }
        if depth >= MAX_MOVED || plan.len() >= MAX_MOVED || (!root && !self.speculatable(i)) {
            return false;
        }
        let mut ok = true;
        self.f.insts[i].kind.for_each_operand(|v| {
            if let (true, Value::Inst(op)) = (ok, v) {
                ok = self.gather(op, target, false, depth + 1, plan);
            }
        });
        if ok {
            plan.push(i);
        }
        ok
    }

    /// `i` computes its result from its operands alone, with no effect and no fault, so
    /// running it where the original program would not changes nothing.
    fn speculatable(&self, i: InstId) -> bool {
        let inst = &self.f.insts[i];
        let plain_value = match self.m.types.get(inst.ty) {
            Type::Int(_) | Type::Float(_) | Type::Vector { .. } | Type::Array { .. } | Type::Struct { .. } => true,
            Type::Named(_) => self.m.types.struct_name(inst.ty) != Some("dx.types.Handle"),
            _ => false,
        };
        if !plain_value {
            return false;
        }
        match &inst.kind {
            // The divisor may be what a branch guards.
            InstKind::Binary { op: BinaryOp::UDiv | BinaryOp::SDiv | BinaryOp::URem | BinaryOp::SRem, .. } => false,
            InstKind::Call { .. } => dx_op(self.m, self.f, i)
                .is_some_and(|op| op.dxc_attr() == FnAttr::ReadNone && !op.is_convergent() && !op.has_side_effects()),
            kind => kind.is_pure_arithmetic(),
        }
    }
}
