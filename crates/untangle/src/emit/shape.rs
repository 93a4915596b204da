//! Shape mode: a structurized CFG as a SPIR-V compute module that records its own path.
//!
//! `untangle translate --shape` turns every function with a body into one GLCompute entry
//! point (LocalSize 1 1 1) named exactly as the LLVM function. The emitted code keeps
//! nothing of the original computation, only the control flow: every branch condition is
//! read from a buffer of decisions and every executed original block is written to a trace,
//! so running the input's CFG and the output module on the same decisions must give the same
//! trace. That is the structurizer's correctness check.
//!
//! Interface (descriptor set 0):
//! - binding 0: `Decisions { uint decisions[]; }`, read in order by each branch;
//! - binding 1: `Trace { uint trace[]; }`: `trace[0]` counts entries, entry `i` is stored at
//!   `trace[1 + i]` when that index is in bounds.
//!
//! Semantics, per original block `b` (numbered by its position in the LLVM function): append
//! `b`, then for each of its PHIs append the number of the predecessor control came from;
//! then its terminator: `ret`/`unreachable` end the invocation, `br label` goes on, a
//! conditional branch reads `d` and takes the true target when `d & 1 == 1`, a switch with
//! `n` cases reads `d` and takes the default when `d % (n + 1) == 0`, else case
//! `d % (n + 1) - 1`. Reads past the end of `decisions` give 0. Blocks the structurizer
//! added append nothing; copies of an original block append its original number.
//!
//! # Batch mode ([`ShapeOptions::batch`], CLI `--shape-batch N`)
//!
//! The default contract above runs one decision stream per dispatch. With a [`ShapeBatch`]
//! `{ local_size: N, decision_stride: D, trace_stride: T }` (`T ≥ 2`) every entry point has
//! `LocalSize N 1 1` and each invocation runs its own stream; the buffers and bindings stay
//! the same, split into per-invocation slices. Invocation `i = GlobalInvocationId.x`:
//! - reads its decisions from `decisions[i·D .. i·D + D]`, in order; its `c`-th read
//!   (from 0) gives `decisions[i·D + c]` when `c < D` and that index is inside the buffer,
//!   else 0 (so a stream shorter than `D` is padded with zeros);
//! - owns the trace slice `trace[i·T .. i·T + T]`: `trace[i·T]` counts its entries and entry
//!   `k` is stored at `trace[i·T + 1 + k]`. The count **saturates** at the slice capacity
//!   `T − 1`: an append to a full slice changes nothing;
//! - **ends early once its slice is full**: every edge from a loop header into its loop
//!   passes a guard that returns when the count is `T − 1`. Every cycle of the structured
//!   graph passes such an edge, so infinite loops of the original terminate, and nothing
//!   observable depends on where they stop (a full slice no longer changes). The CPU
//!   side of the same contract is `check::trace::original_trace` with at most `T − 1` block
//!   entries and the count clamped to `T − 1` (`check::gpu_trace::expected_slice`);
//! - as a safety net against a structurizer bug that loops without appending, the guard
//!   also counts its passes: after `64·T + 1024` passes without a full slice the invocation
//!   writes `0xFFFF_FFFF` to its count (never a valid count) and returns;
//! - does nothing at all when its slice does not fit in `trace` (`i ≥ len(trace) / T`), so
//!   the host may round the invocation count up to a multiple of `N`.
//!
//! The default (no batch) module is unchanged, word for word, by the existence of this mode.
//!
//! The module uses a small, fixed instruction set (see the brief of the in-crate SPIR-V
//! interpreter): helpers `decide() -> uint` and `append(uint)` are ordinary functions called
//! with `OpFunctionCall`, and the decision counter is a `Private` variable reset to 0 by a
//! `start` block in front of each entry point's body.
//!
//! # Cost
//!
//! Linear in the structurized blocks, their edges and PHI inputs. Instructions are encoded
//! into words as they are made ([`super::writer`]), so no function is ever held as objects
//! (rspirv's heap object per instruction and operand list made emission memory-bound on
//! 100,000-block functions).

use super::writer::{BuildError, Builder};
use crate::ir::{Function, IndexExt, InstKind, Module, Terminator};
use crate::passes::{Merge, Origin, SBlock, Scfg, Structured, Term, Val, VarKind};
use cranelift_entity::EntityRef;
use rspirv::dr::Operand;
use rspirv::spirv::{self, Op, Word};
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

/// Why a module could not be emitted. The graph variants mean the structurizer's output
/// broke the contract of [`crate::passes::Scfg`] (a bug upstream, reported, not a panic).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum EmitError {
    #[error("function `{function}` has no body")]
    NoBody { function: String },
    /// SPIR-V literal strings cannot hold NUL.
    #[error("function name {function:?} contains a NUL character, which a SPIR-V entry point name cannot hold")]
    BadName { function: String },
    #[error("two functions are named `{function}`; entry point names must differ")]
    DuplicateEntryPoint { function: String },
    /// The structurized graph is inconsistent (`block` is its label, or `-`).
    #[error("function `{function}`, structurized block `{block}`: {message}")]
    Graph { function: String, block: String, message: String },
    /// [`ShapeOptions`] out of range.
    #[error("shape options: {0}")]
    BadOptions(String),
    /// The module writer refused an instruction sequence (an emitter bug).
    #[error("function `{function}`: SPIR-V builder: {message}")]
    Builder { function: String, message: String },
}

/// How shape mode lays out its invocations; the default is the single-invocation contract.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShapeOptions {
    /// `Some`: batch mode (module docs, "Batch mode").
    pub batch: Option<ShapeBatch>,
}

/// Batch mode: one decision stream per invocation, in per-invocation buffer slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeBatch {
    /// `LocalSize N 1 1` (at least 1).
    pub local_size: u32,
    /// `D`: decision words per invocation (0: every read gives 0).
    pub decision_stride: u32,
    /// `T`: trace words per invocation, the count included (at least 2).
    pub trace_stride: u32,
    /// Mark `decide` and `append` `DontInline` (a hint: a driver that keeps them out of
    /// line compiles large modules much faster; NVIDIA: about 30 times).
    pub out_of_line_helpers: bool,
}

impl ShapeBatch {
    /// Guard passes allowed before an invocation without a full slice is declared stalled.
    pub fn max_guard_passes(&self) -> u32 {
        self.trace_stride.saturating_mul(64).saturating_add(1024)
    }
}

/// Declares helper function `f` (`ret f(...)` of type `fn_ty`) and names it `name`; the
/// builder, for its body.
fn begin_helper<'b>(
    b: &'b mut Builder,
    (ret, f, name): (Word, Word, &str),
    control: spirv::FunctionControl,
    fn_ty: Word,
) -> Result<&'b mut Builder, BuildError> {
    b.begin_function(ret, Some(f), control, fn_ty)?;
    b.name(f, name);
    Ok(b)
}

/// The blocks of helper `name`, named `name.<label>`; enters the first.
fn helper_blocks<const K: usize>(b: &mut Builder, name: &str, labels: [&str; K]) -> Result<[Word; K], BuildError> {
    let ids = labels.map(|label| {
        let id = b.id();
        b.name(id, format!("{name}.{label}"));
        id
    });
    b.begin_block(Some(ids[0]))?;
    Ok(ids)
}

fn helper_control(cfg: ShapeBatch) -> spirv::FunctionControl {
    if cfg.out_of_line_helpers {
        spirv::FunctionControl::DONT_INLINE
    } else {
        spirv::FunctionControl::NONE
    }
}

/// The count an invocation writes when the stall guard fires.
pub const STALLED: u32 = u32::MAX;

/// Emits one shape-mode module holding an entry point for each `(function, structured)`
/// pair, in the given order. Deterministic: the same input gives the same words.
pub fn emit_shape_module(module: &Module, functions: &[(&Function, &Structured)]) -> Result<Vec<u32>, EmitError> {
    emit_shape_module_with(module, functions, &ShapeOptions::default())
}

/// [`emit_shape_module`] with options (batch mode).
pub fn emit_shape_module_with(
    module: &Module,
    functions: &[(&Function, &Structured)],
    options: &ShapeOptions,
) -> Result<Vec<u32>, EmitError> {
    // The module carries nothing the shape needs yet (names come from the functions).
    let _ = module;
    if let Some(b) = options.batch {
        if b.local_size == 0 || b.trace_stride < 2 {
            return Err(EmitError::BadOptions(format!(
                "batch mode needs local_size >= 1 and trace_stride >= 2, got {} and {}",
                b.local_size, b.trace_stride
            )));
        }
    }
    let mut seen = BTreeSet::new();
    for (func, _) in functions {
        if func.is_declaration() {
            return Err(EmitError::NoBody { function: func.name.clone() });
        }
        if func.name.contains('\0') {
            return Err(EmitError::BadName { function: func.name.clone() });
        }
        if !seen.insert(func.name.as_str()) {
            return Err(EmitError::DuplicateEntryPoint { function: func.name.clone() });
        }
    }
    let mut e = Emitter::new(options.batch).map_err(|message| EmitError::Builder { function: "-".into(), message })?;
    for (func, structured) in functions {
        e.function(func, &structured.scfg)?;
    }
    e.b.assemble().map_err(|err| EmitError::Builder { function: "-".into(), message: format!("{err:?}") })
}

fn builder_err(function: &str) -> impl Fn(BuildError) -> EmitError + '_ {
    move |err| EmitError::Builder { function: function.to_string(), message: format!("{err:?}") }
}

/// Labels of one batch-mode guard (see [`Emitter::batch_guard`]).
#[derive(Clone, Copy)]
struct GuardIds {
    guard: Word,
    stop: Word,
    go: Word,
}

/// Ids shared by every entry point.
struct Common {
    void: Word,
    bool_t: Word,
    uint: Word,
    fn_void: Word,
    decisions: Word,
    trace: Word,
    counter: Word,
    decide: Word,
    append: Word,
}

/// Ids of batch mode (module docs, "Batch mode").
#[derive(Clone, Copy)]
struct BatchIds {
    cfg: ShapeBatch,
    /// `Private uint`s: the invocation's first decision and trace word, guard passes.
    d_base: Word,
    t_base: Word,
    passes: Word,
    /// `Input v3uint` decorated `GlobalInvocationId`.
    gid: Word,
    v3uint: Word,
    p_sb_uint: Word,
}

struct Emitter {
    b: Builder,
    c: Common,
    consts: BTreeMap<u32, Word>,
    undef: Option<Word>,
    batch: Option<BatchIds>,
    /// Interface variables of every entry point (the Input builtin in batch mode).
    interface: Vec<Word>,
}

impl Emitter {
    fn new(batch: Option<ShapeBatch>) -> Result<Emitter, String> {
        let mut b = Builder::new();
        b.set_version(1, 3);
        b.capability(spirv::Capability::Shader);
        b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);

        let void = b.type_void();
        let bool_t = b.type_bool();
        let uint = b.type_int(32, 0);
        let array = b.type_runtime_array(uint);
        b.decorate(array, spirv::Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
        // Explicit ids: the writer would fold the two identical structs into one.
        let block_struct = |b: &mut Builder, name: &str, member: &str| {
            let id = b.id();
            b.type_struct_id(Some(id), [array]);
            b.name(id, name);
            b.member_name(id, 0, member);
            b.decorate(id, spirv::Decoration::Block, []);
            b.member_decorate(id, 0, spirv::Decoration::Offset, [Operand::LiteralBit32(0)]);
            id
        };
        let decisions_t = block_struct(&mut b, "Decisions", "decisions");
        let trace_t = block_struct(&mut b, "Trace", "trace");
        let sb = spirv::StorageClass::StorageBuffer;
        let p_decisions = b.type_pointer(None, sb, decisions_t);
        let p_trace = b.type_pointer(None, sb, trace_t);
        let p_sb_uint = b.type_pointer(None, sb, uint);
        let p_private_uint = b.type_pointer(None, spirv::StorageClass::Private, uint);
        let fn_void = b.type_function(void, []);
        let fn_uint = b.type_function(uint, []);
        let fn_void_uint = b.type_function(void, [uint]);

        let decisions = b.variable(p_decisions, None, sb, None);
        b.name(decisions, "decisions");
        b.decorate(decisions, spirv::Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        b.decorate(decisions, spirv::Decoration::Binding, [Operand::LiteralBit32(0)]);
        let trace = b.variable(p_trace, None, sb, None);
        b.name(trace, "trace");
        b.decorate(trace, spirv::Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        b.decorate(trace, spirv::Decoration::Binding, [Operand::LiteralBit32(1)]);
        let counter = b.variable(p_private_uint, None, spirv::StorageClass::Private, None);
        b.name(counter, "decisions_read");

        let batch = batch.map(|cfg| {
            let private = |b: &mut Builder, name: &str| {
                let v = b.variable(p_private_uint, None, spirv::StorageClass::Private, None);
                b.name(v, name);
                v
            };
            let d_base = private(&mut b, "decisions_base");
            let t_base = private(&mut b, "trace_base");
            let passes = private(&mut b, "guard_passes");
            let v3uint = b.type_vector(uint, 3);
            let p_input_v3 = b.type_pointer(None, spirv::StorageClass::Input, v3uint);
            let gid = b.variable(p_input_v3, None, spirv::StorageClass::Input, None);
            b.name(gid, "gl_GlobalInvocationID");
            b.decorate(gid, spirv::Decoration::BuiltIn, [Operand::BuiltIn(spirv::BuiltIn::GlobalInvocationId)]);
            BatchIds { cfg, d_base, t_base, passes, gid, v3uint, p_sb_uint }
        });
        let decide = b.id();
        let append = b.id();
        let mut e = Emitter {
            b,
            c: Common { void, bool_t, uint, fn_void, decisions, trace, counter, decide, append },
            consts: BTreeMap::new(),
            undef: None,
            interface: batch.iter().map(|ids| ids.gid).collect(),
            batch,
        };
        if let Some(ids) = batch {
            e.batch_decide_fn(fn_uint, ids).map_err(|err| format!("decide: {err:?}"))?;
            e.batch_append_fn(fn_void_uint, ids).map_err(|err| format!("append: {err:?}"))?;
            return Ok(e);
        }
        e.decide_fn(fn_uint, p_sb_uint).map_err(|err| format!("decide: {err:?}"))?;
        e.append_fn(fn_void_uint, p_sb_uint).map_err(|err| format!("append: {err:?}"))?;
        Ok(e)
    }

    fn constants<const N: usize>(&mut self, ns: [u32; N]) -> [Word; N] {
        ns.map(|n| self.constant(n))
    }

    fn constant(&mut self, n: u32) -> Word {
        if let Some(&id) = self.consts.get(&n) {
            return id;
        }
        let id = self.b.constant_bit32(self.c.uint, n);
        self.consts.insert(n, id);
        id
    }

    fn undef(&mut self) -> Word {
        if let Some(id) = self.undef {
            return id;
        }
        let id = self.b.global_undef(self.c.uint);
        self.undef = Some(id);
        id
    }

    /// `uint decide()`: the next decision, or 0 past the end of `decisions`.
    fn decide_fn(&mut self, fn_uint: Word, p_sb_uint: Word) -> Result<(), BuildError> {
        let Common { uint, bool_t, decisions, counter, decide, .. } = self.c;
        let [zero, one] = self.constants([0, 1]);
        let b = begin_helper(&mut self.b, (uint, decide, "decide"), spirv::FunctionControl::NONE, fn_uint)?;
        let [entry, read, done] = helper_blocks(b, "decide", ["entry", "read", "done"])?;
        let c = b.load(uint, None, counter, None, [])?;
        b.name(c, "c");
        let len = b.block_value(Op::ArrayLength, uint, &[decisions, 0])?;
        let in_bounds = b.block_value(Op::ULessThan, bool_t, &[c, len])?;
        b.selection_merge(done, spirv::SelectionControl::NONE)?;
        b.branch_conditional(in_bounds, read, done, [])?;
        b.begin_block(Some(read))?;
        let next = b.block_value(Op::IAdd, uint, &[c, one])?;
        b.store(counter, next, None, [])?;
        let p = b.block_value(Op::AccessChain, p_sb_uint, &[decisions, zero, c])?;
        let d = b.load(uint, None, p, None, [])?;
        b.branch(done)?;
        b.begin_block(Some(done))?;
        let r = b.phi(uint, None, [(d, read), (zero, entry)])?;
        b.name(r, "d");
        b.ret_value(r)?;
        b.end_function()
    }

    /// Starts the function `void append(uint x)`; returns `x`.
    fn begin_append(&mut self, control: spirv::FunctionControl, fn_void_uint: Word) -> Result<Word, BuildError> {
        let Common { void, uint, append, .. } = self.c;
        let b = begin_helper(&mut self.b, (void, append, "append"), control, fn_void_uint)?;
        let x = b.function_parameter(uint)?;
        b.name(x, "x");
        Ok(x)
    }

    /// `void append(uint x)`: counts the entry in `trace[0]`, stores it when in bounds.
    fn append_fn(&mut self, fn_void_uint: Word, p_sb_uint: Word) -> Result<(), BuildError> {
        let Common { uint, bool_t, trace, .. } = self.c;
        let [zero, one] = self.constants([0, 1]);
        let x = self.begin_append(spirv::FunctionControl::NONE, fn_void_uint)?;
        let b = &mut self.b;
        let [_, count, write, counted, done] =
            helper_blocks(b, "append", ["entry", "count", "write", "counted", "done"])?;
        let len = b.block_value(Op::ArrayLength, uint, &[trace, 0])?;
        let has_count = b.block_value(Op::INotEqual, bool_t, &[len, zero])?;
        b.selection_merge(done, spirv::SelectionControl::NONE)?;
        b.branch_conditional(has_count, count, done, [])?;
        b.begin_block(Some(count))?;
        let p0 = b.block_value(Op::AccessChain, p_sb_uint, &[trace, zero, zero])?;
        let n = b.load(uint, None, p0, None, [])?;
        b.name(n, "n");
        let slot = b.block_value(Op::IAdd, uint, &[n, one])?;
        b.store(p0, slot, None, [])?;
        let in_bounds = b.block_value(Op::ULessThan, bool_t, &[slot, len])?;
        b.selection_merge(counted, spirv::SelectionControl::NONE)?;
        b.branch_conditional(in_bounds, write, counted, [])?;
        b.begin_block(Some(write))?;
        let p = b.block_value(Op::AccessChain, p_sb_uint, &[trace, zero, slot])?;
        b.store(p, x, None, [])?;
        b.branch(counted)?;
        b.begin_block(Some(counted))?;
        b.branch(done)?;
        b.begin_block(Some(done))?;
        b.ret()?;
        b.end_function()
    }

    /// Batch `uint decide()`: `decisions[d_base + c]` for the `c`-th read when `c < D` and
    /// in bounds, else 0. Branch-free (an out-of-range read loads word 0 and discards it):
    /// drivers compile one block per helper call faster than a selection.
    fn batch_decide_fn(&mut self, fn_uint: Word, ids: BatchIds) -> Result<(), BuildError> {
        let Common { uint, bool_t, decisions, counter, decide, .. } = self.c;
        let [zero, one] = self.constants([0, 1]);
        let stride = self.constant(ids.cfg.decision_stride);
        let b = begin_helper(&mut self.b, (uint, decide, "decide"), helper_control(ids.cfg), fn_uint)?;
        helper_blocks(b, "decide", ["entry"])?;
        let c = b.load(uint, None, counter, None, [])?;
        b.name(c, "c");
        let next = b.block_value(Op::IAdd, uint, &[c, one])?;
        b.store(counter, next, None, [])?;
        let base = b.load(uint, None, ids.d_base, None, [])?;
        let index = b.block_value(Op::IAdd, uint, &[base, c])?;
        let len = b.block_value(Op::ArrayLength, uint, &[decisions, 0])?;
        let in_stride = b.block_value(Op::ULessThan, bool_t, &[c, stride])?;
        let in_bounds = b.block_value(Op::ULessThan, bool_t, &[index, len])?;
        let ok = b.block_value(Op::LogicalAnd, bool_t, &[in_stride, in_bounds])?;
        let safe = b.block_value(Op::Select, uint, &[ok, index, zero])?;
        let p = b.block_value(Op::AccessChain, ids.p_sb_uint, &[decisions, zero, safe])?;
        let loaded = b.load(uint, None, p, None, [])?;
        let d = b.block_value(Op::Select, uint, &[ok, loaded, zero])?;
        b.name(d, "d");
        b.ret_value(d)?;
        b.end_function()
    }

    /// Batch `void append(uint x)`: stores `x` and counts it while the slice has room.
    /// Branch-free: on a full slice `x` goes to the count word, which is then rewritten
    /// with the unchanged count.
    fn batch_append_fn(&mut self, fn_void_uint: Word, ids: BatchIds) -> Result<(), BuildError> {
        let Common { uint, bool_t, trace, .. } = self.c;
        let [zero, one] = self.constants([0, 1]);
        let capacity = self.constant(ids.cfg.trace_stride - 1);
        let x = self.begin_append(helper_control(ids.cfg), fn_void_uint)?;
        let b = &mut self.b;
        helper_blocks(b, "append", ["entry"])?;
        let base = b.load(uint, None, ids.t_base, None, [])?;
        let p0 = b.block_value(Op::AccessChain, ids.p_sb_uint, &[trace, zero, base])?;
        let n = b.load(uint, None, p0, None, [])?;
        b.name(n, "n");
        let room = b.block_value(Op::ULessThan, bool_t, &[n, capacity])?;
        let n1 = b.block_value(Op::IAdd, uint, &[n, one])?;
        let slot = b.block_value(Op::IAdd, uint, &[base, n1])?;
        let slot = b.block_value(Op::Select, uint, &[room, slot, base])?;
        let p = b.block_value(Op::AccessChain, ids.p_sb_uint, &[trace, zero, slot])?;
        b.store(p, x, None, [])?;
        let count = b.block_value(Op::Select, uint, &[room, n1, n])?;
        b.store(p0, count, None, [])?;
        b.ret()?;
        b.end_function()
    }

    /// Batch mode's `start` block: reset the counters, find the invocation's slices, return
    /// at once when the trace slice does not fit; then enter the body at `entry_label`.
    fn batch_start(&mut self, ids: BatchIds, entry_label: Word) -> Result<(), BuildError> {
        let Common { uint, bool_t, trace, counter, .. } = self.c;
        let zero = self.constant(0);
        let t_stride = self.constant(ids.cfg.trace_stride);
        let d_stride = self.constant(ids.cfg.decision_stride);
        let b = &mut self.b;
        b.store(counter, zero, None, [])?;
        b.store(ids.passes, zero, None, [])?;
        let g = b.load(ids.v3uint, None, ids.gid, None, [])?;
        let i = b.block_value(Op::CompositeExtract, uint, &[g, 0])?;
        b.name(i, "invocation");
        let len = b.block_value(Op::ArrayLength, uint, &[trace, 0])?;
        let slices = b.block_value(Op::UDiv, uint, &[len, t_stride])?;
        let fits = b.block_value(Op::ULessThan, bool_t, &[i, slices])?;
        let t_base = b.block_value(Op::IMul, uint, &[i, t_stride])?;
        let d_base = b.block_value(Op::IMul, uint, &[i, d_stride])?;
        b.store(ids.t_base, t_base, None, [])?;
        b.store(ids.d_base, d_base, None, [])?;
        let (idle, go) = (b.id(), b.id());
        b.name(idle, "start.idle");
        b.name(go, "start.go");
        b.selection_merge(go, spirv::SelectionControl::NONE)?;
        b.branch_conditional(fits, go, idle, [])?;
        b.begin_block(Some(idle))?;
        b.ret()?;
        b.begin_block(Some(go))?;
        b.branch(entry_label)
    }

    /// Batch mode's guard on a loop-header edge (labels pre-allocated): count the pass;
    /// return when the slice is full (or, marking the count [`STALLED`], after too many
    /// passes); else go on to `target`.
    fn batch_guard(&mut self, ids: BatchIds, g: GuardIds, target: Word, header: &str) -> Result<(), BuildError> {
        let Common { uint, bool_t, trace, .. } = self.c;
        let [zero, one] = self.constants([0, 1]);
        let capacity = self.constant(ids.cfg.trace_stride - 1);
        let max_passes = self.constant(ids.cfg.max_guard_passes());
        let stalled = self.constant(STALLED);
        let b = &mut self.b;
        b.name(g.guard, format!("{}.guard", header));
        b.name(g.stop, format!("{}.stop", header));
        b.name(g.go, format!("{}.go", header));
        b.begin_block(Some(g.guard))?;
        let passes = b.load(uint, None, ids.passes, None, [])?;
        let passes = b.block_value(Op::IAdd, uint, &[passes, one])?;
        b.store(ids.passes, passes, None, [])?;
        let base = b.load(uint, None, ids.t_base, None, [])?;
        let p0 = b.block_value(Op::AccessChain, ids.p_sb_uint, &[trace, zero, base])?;
        let n = b.load(uint, None, p0, None, [])?;
        let full = b.block_value(Op::UGreaterThanEqual, bool_t, &[n, capacity])?;
        let within = b.block_value(Op::ULessThan, bool_t, &[passes, max_passes])?;
        let stall = b.block_value(Op::LogicalNot, bool_t, &[within])?;
        let stop = b.block_value(Op::LogicalOr, bool_t, &[full, stall])?;
        b.selection_merge(g.go, spirv::SelectionControl::NONE)?;
        b.branch_conditional(stop, g.stop, g.go, [])?;
        b.begin_block(Some(g.stop))?;
        let count = b.block_value(Op::Select, uint, &[full, n, stalled])?;
        b.store(p0, count, None, [])?;
        b.ret()?;
        b.begin_block(Some(g.go))?;
        b.branch(target)
    }

    fn function(&mut self, func: &Function, scfg: &Scfg) -> Result<(), EmitError> {
        let fname = func.name.as_str();
        let graph = |block: String, message: String| EmitError::Graph { function: fname.to_string(), block, message };
        let berr = builder_err(fname);

        // Labels and PHI ids of every emitted block, allocated up front (branches and PHIs
        // refer forward).
        let n = scfg.blocks.len();
        let mut labels: Vec<Option<Word>> = vec![None; n];
        let mut phi_ids: Vec<Vec<Word>> = vec![Vec::new(); n];
        for &sb in &scfg.layout {
            if sb.index() >= n {
                return Err(graph("-".into(), format!("layout names {sb}, which is not a block")));
            }
            if labels[sb.index()].is_some() {
                return Err(graph(safe_label(scfg, sb), "appears twice in the layout".into()));
            }
            labels[sb.index()] = Some(self.b.id());
            phi_ids[sb.index()] = scfg.blocks[sb].phis.iter().map(|_| self.b.id()).collect();
        }
        let label_of = |from: SBlock, to: SBlock| -> Result<Word, EmitError> {
            labels.get(to.index()).copied().flatten().ok_or_else(|| EmitError::Graph {
                function: fname.to_string(),
                block: safe_label(scfg, from),
                message: format!("refers to {to}, which is not in the layout"),
            })
        };
        // Batch mode: a guard on every edge from a loop header into its loop, keyed by
        // (header, target) block indices, in the order of the header's successors.
        let mut guards: BTreeMap<(usize, usize), GuardIds> = BTreeMap::new();
        let mut guards_of: BTreeMap<usize, Vec<(usize, GuardIds)>> = BTreeMap::new();
        if self.batch.is_some() {
            for &sb in &scfg.layout {
                let Some(Merge::Loop { merge, .. }) = scfg.blocks[sb].merge else { continue };
                for &t in scfg.blocks[sb].term.succs().iter() {
                    if t == merge || guards.contains_key(&(sb.index(), t.index())) {
                        continue;
                    }
                    let g = GuardIds { guard: self.b.id(), stop: self.b.id(), go: self.b.id() };
                    guards.insert((sb.index(), t.index()), g);
                    guards_of.entry(sb.index()).or_default().push((t.index(), g));
                }
            }
        }
        let entry_label = label_of(scfg.entry, scfg.entry)?;
        let block_names = crate::passes::labels::Labels::new(scfg);
        if !scfg.blocks[scfg.entry].phis.is_empty() {
            return Err(graph(safe_label(scfg, scfg.entry), "the entry block has PHIs".into()));
        }

        let Common { void, uint, bool_t, fn_void, counter, decide, append, .. } = self.c;
        let [zero, one] = self.constants([0, 1]);
        let fn_id = self.b.begin_function(void, None, spirv::FunctionControl::NONE, fn_void).map_err(&berr)?;
        self.b.name(fn_id, fname);
        self.b.entry_point(spirv::ExecutionModel::GLCompute, fn_id, fname, self.interface.clone());
        let local_size = self.batch.map_or(1, |ids| ids.cfg.local_size);
        self.b.execution_mode(fn_id, spirv::ExecutionMode::LocalSize, [local_size, 1, 1]);

        // `start`: reset the decision counter, enter the body.
        let start = self.b.begin_block(None).map_err(&berr)?;
        self.b.name(start, "start");
        match self.batch {
            None => {
                self.b.store(counter, zero, None, []).map_err(&berr)?;
                self.b.branch(entry_label).map_err(&berr)?;
            }
            Some(ids) => self.batch_start(ids, entry_label).map_err(&berr)?,
        }

        for &sb in &scfg.layout {
            let block = &scfg.blocks[sb];
            let label = label_of(sb, sb)?;
            let name = block_names.compute(sb);
            self.b.begin_block(Some(label)).map_err(&berr)?;
            self.b.name(label, name.as_str());

            // PHIs first.
            for (i, phi) in block.phis.iter().enumerate() {
                let mut pairs = Vec::with_capacity(phi.incoming.len());
                for &(pred, val) in &phi.incoming {
                    let v = self.value(scfg, sb, val, &phi_ids)?;
                    let from = match guards.get(&(pred.index(), sb.index())) {
                        Some(g) => g.go,
                        None => label_of(sb, pred)?,
                    };
                    pairs.push((v, from));
                }
                let id = phi_ids[sb.index()][i];
                self.b.phi(uint, Some(id), pairs).map_err(&berr)?;
                self.b.name(id, var_name(scfg, phi.var));
            }

            // The original block's trace entries.
            if let Origin::Original(o) = block.origin {
                let number = scfg
                    .try_number_of(o)
                    .ok_or_else(|| graph(name.clone(), format!("original block {o} has no layout number")))?;
                let orig = func
                    .blocks
                    .get(o)
                    .ok_or_else(|| graph(name.clone(), format!("original block {o} is not in the function")))?;
                let phis = orig
                    .insts
                    .iter()
                    .take_while(|&&i| func.insts.get(i).is_some_and(|inst| matches!(inst.kind, InstKind::Phi { .. })))
                    .count();
                let num = self.constant(number);
                self.b.block_value(Op::FunctionCall, void, &[append, num]).map_err(&berr)?;
                if phis > 0 {
                    let var = scfg.incoming_var(o).ok_or_else(|| {
                        graph(name.clone(), "original block has PHIs but no incoming-block variable".into())
                    })?;
                    let val = block
                        .entry_value(var)
                        .ok_or_else(|| graph(name.clone(), format!("no entry value for {var}")))?;
                    let v = self.value(scfg, sb, val, &phi_ids)?;
                    for _ in 0..phis {
                        self.b.block_value(Op::FunctionCall, void, &[append, v]).map_err(&berr)?;
                    }
                }
            }

            // Terminator, with the merge instruction right before the branch.
            let merge = match block.merge {
                None => None,
                Some(Merge::Selection { merge }) => Some((label_of(sb, merge)?, None)),
                Some(Merge::Loop { merge, continue_target }) => {
                    Some((label_of(sb, merge)?, Some(label_of(sb, continue_target)?)))
                }
            };
            let targets: Vec<Word> = block
                .term
                .succs()
                .iter()
                .map(|&t| match guards.get(&(sb.index(), t.index())) {
                    Some(g) => Ok(g.guard),
                    None => label_of(sb, t),
                })
                .collect::<Result<_, _>>()?;
            let emit_merge =
                |b: &mut Builder| -> Result<(), EmitError> { super::control::emit_merge(b, merge).map_err(&berr) };
            let slots = |expected: usize, what: &str| -> Result<(), EmitError> {
                if targets.len() == expected {
                    Ok(())
                } else {
                    Err(graph(
                        name.clone(),
                        format!("{what} needs {expected} successor slots, the terminator has {}", targets.len()),
                    ))
                }
            };
            match &block.term {
                Term::Goto(_) => {
                    emit_merge(&mut self.b)?;
                    self.b.branch(targets[0]).map_err(&berr)?;
                }
                Term::Unreachable => {
                    emit_merge(&mut self.b)?;
                    self.b.unreachable().map_err(&berr)?;
                }
                Term::Orig { block: o, .. } => {
                    let orig = func.blocks.get(*o).ok_or_else(|| {
                        graph(name.clone(), format!("terminator of {o}, which is not in the function"))
                    })?;
                    match &orig.terminator {
                        Terminator::Br { .. } => {
                            slots(1, "`br label`")?;
                            emit_merge(&mut self.b)?;
                            self.b.branch(targets[0]).map_err(&berr)?;
                        }
                        Terminator::CondBr { .. } => {
                            slots(2, "`br i1`")?;
                            let d = self.b.block_value(Op::FunctionCall, uint, &[decide]).map_err(&berr)?;
                            let bit = self.b.block_value(Op::BitwiseAnd, uint, &[d, one]).map_err(&berr)?;
                            let cond = self.b.block_value(Op::IEqual, bool_t, &[bit, one]).map_err(&berr)?;
                            emit_merge(&mut self.b)?;
                            self.b.branch_conditional(cond, targets[0], targets[1], []).map_err(&berr)?;
                        }
                        Terminator::Switch { cases, .. } => {
                            slots(cases.len() + 1, "`switch`")?;
                            let modulus = u32::try_from(cases.len())
                                .ok()
                                .and_then(|c| c.checked_add(1))
                                .ok_or_else(|| graph(name.clone(), "switch has too many cases".into()))?;
                            let m = self.constant(modulus);
                            let d = self.b.block_value(Op::FunctionCall, uint, &[decide]).map_err(&berr)?;
                            let k = self.b.block_value(Op::UMod, uint, &[d, m]).map_err(&berr)?;
                            emit_merge(&mut self.b)?;
                            let cases = (1..modulus).map(|i| (Operand::LiteralBit32(i), targets[i as usize]));
                            self.b.switch(k, targets[0], cases).map_err(&berr)?;
                        }
                        Terminator::Ret { .. } | Terminator::Unreachable => {
                            slots(0, "`ret`/`unreachable`")?;
                            emit_merge(&mut self.b)?;
                            self.b.ret().map_err(&berr)?;
                        }
                    }
                }
                Term::Dispatch { var, .. } => {
                    let val = block
                        .entry_value(*var)
                        .ok_or_else(|| graph(name.clone(), format!("dispatch on {var}, which has no entry value")))?;
                    let s = self.value(scfg, sb, val, &phi_ids)?;
                    super::control::emit_dispatch(&mut self.b, bool_t, zero, s, &targets, merge)
                        .map_err(|message| graph(name.clone(), message))?;
                }
            }
            // Batch mode: this header's guards, right behind it (each dominates its target).
            if let (Some(ids), Some(list)) = (self.batch, guards_of.get(&sb.index())) {
                for &(t, g) in list {
                    let target = label_of(sb, SBlock::new(t))?;
                    self.batch_guard(ids, g, target, &name).map_err(&berr)?;
                }
            }
        }
        self.b.end_function().map_err(&berr)?;
        Ok(())
    }

    /// The id holding `val` in block `at`.
    fn value(&mut self, scfg: &Scfg, at: SBlock, val: Val, phi_ids: &[Vec<Word>]) -> Result<Word, EmitError> {
        match val {
            Val::Const(n) => Ok(self.constant(n)),
            Val::Undef => Ok(self.undef()),
            Val::Phi { block, index } => {
                phi_ids.get(block.index()).and_then(|ids| ids.get(index as usize)).copied().ok_or_else(|| {
                    EmitError::Graph {
                        function: scfg.name.clone(),
                        block: safe_label(scfg, at),
                        message: format!("refers to PHI {index} of {block}, which does not exist"),
                    }
                })
            }
        }
    }
}

/// [`Scfg::label`], without its panics on a malformed graph.
fn safe_label(scfg: &Scfg, b: SBlock) -> String {
    crate::passes::labels::Labels::new(scfg).get(b)
}

/// Readable PHI names: `LABEL.pred` for incoming-block variables, `sel.N` for selectors.
fn var_name(scfg: &Scfg, var: crate::passes::VarId) -> String {
    match scfg.vars.get(var) {
        Some(VarKind::IncomingBlock(o)) => match scfg.original_labels.get(o.as_u32_index() as usize) {
            Some(l) => format!("{l}.pred"),
            None => format!("{o}.pred"),
        },
        Some(VarKind::Selector) => format!("sel.{}", var.as_u32()),
        None => var.to_string(),
    }
}
