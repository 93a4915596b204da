//! A small SPIR-V interpreter for shape-mode trace programs (see [`super::trace`] for the
//! contract they implement).
//!
//! It runs one `GLCompute` entry point of a module parsed with `rspirv`, with the decisions
//! buffer (descriptor set 0, binding 0) and the trace buffer (set 0, binding 1) bound as
//! runtime arrays of `u32`, and returns the trace buffer afterwards. It accepts exactly the
//! instruction set the shape emitter promises (listed in [`SUPPORTED`]); anything else is
//! [`InterpError::Unsupported`] when the module is parsed, so a module either runs under
//! the semantics below or is rejected up front.
//!
//! Semantics, and where they are stricter than a Vulkan driver:
//! * Values are 32-bit integers, booleans, pointers, or *undefined* (`OpUndef`, variables
//!   without an initializer, results computed from undefined operands). Undefined values
//!   flow through `OpPhi`, `OpSelect`, arithmetic, calls and `Private`/`Function`
//!   variables, but branching on one (`OpBranchConditional`, `OpSwitch`), storing one into
//!   a buffer, or indexing with one is an [`InterpError::Undefined`]: the program's
//!   observable behaviour would depend on it. Operations whose result does not depend on
//!   the undefined operand stay defined (`false && u`, `true || u`, `0 & u`, and
//!   `OpSelect` on a defined condition).
//! * Buffer accesses out of bounds are an [`InterpError::OutOfBounds`] (robust buffer
//!   access would hide the bug); the check is made at the load or store.
//! * `OpUnreachable` executed, `OpUMod` by zero, recursion, use of an id before its
//!   definition and type confusions are errors too.
//! * `OpSelectionMerge`/`OpLoopMerge` are no-ops: structure is not validated (that is
//!   `spirv-val`'s job), so an unstructured module runs as well.
//!
//! Limits: every block entered (each `OpLabel`, function entries included) counts against
//! [`SpirvLimits::max_block_entries`]; the instructions of a block (its `OpPhi`s, body and
//! terminator) are charged against [`SpirvLimits::max_instructions`] when it is entered.
//! Hitting either ends the run with [`Outcome::StepLimit`], as does a store to `trace[0]`
//! of a value at least [`SpirvLimits::stop_at_trace_count`].
//!
//! Parsing resolves everything up front ([`ShapeProgram::parse`]): ids index a dense value
//! table, branch targets are block indices, callees are function indices; a run clones the
//! table of constants and walks the compiled blocks with an explicit call stack (no Rust
//! recursion, so deep call chains cannot overflow the stack).

use super::trace::{Outcome, Trace};
use rspirv::dr;
use rspirv::spirv::{Decoration, ExecutionModel, Op, StorageClass};
use smallvec::SmallVec;
use std::collections::HashMap;

/// The largest id bound accepted (the value table has one slot per id).
pub const MAX_BOUND: u32 = 1 << 22;

/// Every opcode a shape module may contain.
pub const SUPPORTED: &[Op] = &[
    Op::Capability,
    Op::Extension,
    Op::ExtInstImport,
    Op::MemoryModel,
    Op::EntryPoint,
    Op::ExecutionMode,
    Op::Name,
    Op::MemberName,
    Op::Decorate,
    Op::MemberDecorate,
    Op::TypeVoid,
    Op::TypeBool,
    Op::TypeInt,
    Op::TypeRuntimeArray,
    Op::TypeStruct,
    Op::TypePointer,
    Op::TypeFunction,
    Op::Constant,
    Op::ConstantTrue,
    Op::ConstantFalse,
    Op::Undef,
    Op::Variable,
    Op::Function,
    Op::FunctionParameter,
    Op::FunctionEnd,
    Op::FunctionCall,
    Op::Label,
    Op::Load,
    Op::Store,
    Op::AccessChain,
    Op::ArrayLength,
    Op::IAdd,
    Op::ISub,
    Op::UMod,
    Op::BitwiseAnd,
    Op::IEqual,
    Op::INotEqual,
    Op::ULessThan,
    Op::UGreaterThanEqual,
    Op::Select,
    Op::LogicalNot,
    Op::LogicalAnd,
    Op::LogicalOr,
    Op::Phi,
    Op::Branch,
    Op::BranchConditional,
    Op::Switch,
    Op::SelectionMerge,
    Op::LoopMerge,
    Op::Return,
    Op::ReturnValue,
    Op::Unreachable,
];

/// Why a module could not be parsed or a run failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    #[error("SPIR-V parse error: {0}")]
    Parse(String),
    #[error("unsupported instruction Op{opcode:?} in a shape module")]
    Unsupported { opcode: Op },
    /// The module breaks a rule the interpreter relies on (types, ids, bindings, layout).
    #[error("malformed shape module: {0}")]
    Malformed(String),
    #[error("no GLCompute entry point named {0:?}")]
    NoEntryPoint(String),
    #[error("OpUnreachable executed in {at}")]
    UnreachableExecuted { at: String },
    /// An undefined value decided a branch, reached a buffer, or indexed one.
    #[error("undefined value used as {what} in {at}")]
    Undefined { what: String, at: String },
    #[error("out-of-bounds access {buffer}[{index}] (length {len}) in {at}")]
    OutOfBounds { buffer: &'static str, index: u32, len: usize, at: String },
    /// Anything else that goes wrong while running: use before definition, type
    /// confusion, `OpUMod` by zero, recursion, a PHI without the predecessor.
    #[error("{what} in {at}")]
    Runtime { what: String, at: String },
}

/// Bounds of one run of a [`ShapeProgram`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpirvLimits {
    /// Blocks entered (every `OpLabel`, structurizer blocks included).
    pub max_block_entries: u64,
    /// Instructions executed, charged per block on entry.
    pub max_instructions: u64,
    /// Stop (as [`Outcome::StepLimit`]) right after a store to `trace[0]` of a value at
    /// least this. `None`: never.
    pub stop_at_trace_count: Option<u32>,
}

impl SpirvLimits {
    pub fn new(max_block_entries: u64, max_instructions: u64) -> Self {
        SpirvLimits { max_block_entries, max_instructions, stop_at_trace_count: None }
    }
}

impl Default for SpirvLimits {
    fn default() -> Self {
        SpirvLimits::new(1 << 20, 1 << 24)
    }
}

/// Parses `words` and runs the entry point `entry` once. To run many decision streams,
/// parse once with [`ShapeProgram::parse`] and call [`ShapeProgram::run`].
pub fn run_entry(
    words: &[u32],
    entry: &str,
    decisions: &[u32],
    trace_len: usize,
    limits: &SpirvLimits,
) -> Result<Trace, InterpError> {
    ShapeProgram::parse(words)?.run(entry, decisions, trace_len, limits)
}

type Id = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Buf {
    Decisions,
    Trace,
}

impl Buf {
    fn name(self) -> &'static str {
        match self {
            Buf::Decisions => "decisions",
            Buf::Trace => "trace",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ptr {
    /// The buffer's block variable (a struct whose member 0 is the runtime array).
    Block(Buf),
    /// Member 0 of the block.
    Array(Buf),
    Elem(Buf, u32),
    /// A `Private` or `Function` variable's slot.
    Mem(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    /// Not yet computed in this run (an SSA result before its definition executed).
    Unset,
    Undef,
    Int(u32),
    Bool(bool),
    Ptr(Ptr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BinOp {
    IAdd,
    ISub,
    UMod,
    BitAnd,
    IEq,
    INe,
    ULt,
    UGe,
    LAnd,
    LOr,
}

#[derive(Clone, Debug)]
enum Ins {
    Load { res: Id, ptr: Id },
    Store { ptr: Id, val: Id },
    Access { res: Id, base: Id, idx: SmallVec<[Id; 2]> },
    ArrayLength { res: Id, base: Id },
    Bin { op: BinOp, res: Id, a: Id, b: Id },
    Not { res: Id, a: Id },
    Select { res: Id, c: Id, a: Id, b: Id },
    Var { res: Id, init: Option<Id> },
    Undef { res: Id },
    Call { res: Id, func: u32, args: SmallVec<[Id; 2]> },
}

#[derive(Clone, Debug)]
enum Term {
    Br(u32),
    CondBr { c: Id, t: u32, f: u32 },
    Switch { sel: Id, default: u32, cases: Vec<(u32, u32)> },
    Return,
    ReturnValue(Id),
    Unreachable,
}

#[derive(Clone, Debug)]
struct Phi {
    res: Id,
    /// (value, predecessor block index)
    incoming: SmallVec<[(Id, u32); 2]>,
}

#[derive(Clone, Debug)]
struct Blk {
    label: Id,
    phis: Vec<Phi>,
    ins: Vec<Ins>,
    term: Term,
    /// Instructions charged on entry.
    cost: u64,
}

#[derive(Clone, Debug)]
struct Func {
    id: Id,
    params: Vec<Id>,
    blocks: Vec<Blk>,
    /// Every result id of the body (reset to unset on each call).
    results: Vec<Id>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Void,
    Bool,
    Int,
    RuntimeArray(Id),
    /// Id of the type of member 0 (`None`: no members).
    Struct(Option<Id>),
    Pointer(StorageClass, Id),
    Function,
}

/// A parsed shape module, ready to run many times.
#[derive(Clone, Debug)]
pub struct ShapeProgram {
    funcs: Vec<Func>,
    /// GLCompute entry points: name → function index.
    entries: Vec<(String, u32)>,
    /// The value table at the start of a run: constants, `OpUndef`s and global variables.
    init: Vec<Val>,
    /// Initial contents of the `Private` variables (slots `0..`).
    private_init: Vec<Val>,
    names: HashMap<Id, String>,
    max_block_cost: u64,
}

fn parse_err(what: impl Into<String>) -> InterpError {
    InterpError::Malformed(what.into())
}

fn id_operand(inst: &dr::Instruction, k: usize) -> Result<Id, InterpError> {
    match inst.operands.get(k) {
        Some(dr::Operand::IdRef(id)) => Ok(*id),
        other => Err(parse_err(format!("Op{:?}: operand {k} should be an id, found {other:?}", inst.class.opcode))),
    }
}

fn literal_operand(inst: &dr::Instruction, k: usize) -> Result<u32, InterpError> {
    match inst.operands.get(k) {
        Some(dr::Operand::LiteralBit32(v)) => Ok(*v),
        other => Err(parse_err(format!(
            "Op{:?}: operand {k} should be a 32-bit literal, found {other:?}",
            inst.class.opcode
        ))),
    }
}

fn result_id(inst: &dr::Instruction) -> Result<Id, InterpError> {
    inst.result_id.ok_or_else(|| parse_err(format!("Op{:?} without a result id", inst.class.opcode)))
}

/// Loads with rspirv, turning a panic inside it (it asserts on some malformed input) into
/// an error.
fn load(words: &[u32]) -> Result<dr::Module, InterpError> {
    let outcome = std::panic::catch_unwind(|| dr::load_words(words));
    match outcome {
        Ok(Ok(module)) => Ok(module),
        Ok(Err(e)) => Err(InterpError::Parse(e.to_string())),
        Err(_) => Err(InterpError::Parse("the SPIR-V reader panicked on this input".into())),
    }
}

/// Shared state while compiling.
struct Compiler {
    types: HashMap<Id, Ty>,
    /// Which ids are values (constants, variables, parameters, results).
    defined: Vec<bool>,
    func_index: HashMap<Id, u32>,
}

impl Compiler {
    fn define(&mut self, id: Id) -> Result<(), InterpError> {
        let slot = &mut self.defined[id as usize];
        if *slot {
            return Err(parse_err(format!("%{id} is defined twice")));
        }
        *slot = true;
        Ok(())
    }

    fn value(&self, id: Id) -> Result<Id, InterpError> {
        if self.defined.get(id as usize).copied().unwrap_or(false) {
            Ok(id)
        } else {
            Err(parse_err(format!("%{id} is used as a value but never defined")))
        }
    }

    fn value_operand(&self, inst: &dr::Instruction, k: usize) -> Result<Id, InterpError> {
        self.value(id_operand(inst, k)?)
    }

    fn int_type(&self, inst: &dr::Instruction) -> Result<(), InterpError> {
        match inst.result_type.and_then(|t| self.types.get(&t)) {
            Some(Ty::Int) => Ok(()),
            _ => Err(parse_err(format!(
                "Op{:?} %{} must have a 32-bit integer type",
                inst.class.opcode,
                inst.result_id.unwrap_or(0)
            ))),
        }
    }

    /// Checks that a buffer variable's type is a pointer to a struct whose member 0 is a
    /// runtime array of 32-bit integers.
    fn check_buffer_type(&self, var: Id, ty: Id) -> Result<(), InterpError> {
        let bad = || parse_err(format!("buffer variable %{var} is not a block of a runtime u32 array"));
        let Some(Ty::Pointer(_, pointee)) = self.types.get(&ty) else {
            return Err(bad());
        };
        let Some(Ty::Struct(Some(member))) = self.types.get(pointee) else {
            return Err(bad());
        };
        let Some(Ty::RuntimeArray(elem)) = self.types.get(member) else {
            return Err(bad());
        };
        match self.types.get(elem) {
            Some(Ty::Int) => Ok(()),
            _ => Err(bad()),
        }
    }
}

impl ShapeProgram {
    /// Parses and compiles a shape module. Rejects opcodes outside [`SUPPORTED`] and
    /// modules whose ids, types or bindings the interpreter cannot make sense of.
    pub fn parse(words: &[u32]) -> Result<Self, InterpError> {
        let module = load(words)?;

        // Every instruction must be supported.
        for inst in module.all_inst_iter() {
            check_supported(inst.class.opcode)?;
        }

        // The value table's size: one past the largest result id.
        let mut max_id = 0u32;
        for inst in module.all_inst_iter() {
            if let Some(id) = inst.result_id {
                max_id = max_id.max(id);
            }
        }
        let bound = module.header.as_ref().map(|h| h.bound).unwrap_or(0);
        if max_id >= bound || bound > MAX_BOUND {
            return Err(parse_err(format!(
                "id bound {bound} (largest id %{max_id}); ids must lie below the bound, at most {MAX_BOUND}"
            )));
        }
        let n = max_id as usize + 1;

        let mut names = HashMap::new();
        for inst in &module.debug_names {
            if inst.class.opcode == Op::Name {
                if let (Ok(target), Some(dr::Operand::LiteralString(s))) = (id_operand(inst, 0), inst.operands.get(1)) {
                    names.insert(target, s.clone());
                }
            }
        }

        let mut set_of: HashMap<Id, u32> = HashMap::new();
        let mut binding_of: HashMap<Id, u32> = HashMap::new();
        for inst in &module.annotations {
            if inst.class.opcode != Op::Decorate {
                continue;
            }
            let target = id_operand(inst, 0)?;
            match inst.operands.get(1) {
                Some(dr::Operand::Decoration(Decoration::DescriptorSet)) => {
                    set_of.insert(target, literal_operand(inst, 2)?);
                }
                Some(dr::Operand::Decoration(Decoration::Binding)) => {
                    binding_of.insert(target, literal_operand(inst, 2)?);
                }
                _ => {}
            }
        }

        let mut comp = Compiler { types: HashMap::new(), defined: vec![false; n], func_index: HashMap::new() };
        let mut init = vec![Val::Unset; n];
        let mut private_init: Vec<Val> = Vec::new();

        for inst in &module.types_global_values {
            let op = inst.class.opcode;
            match op {
                Op::TypeVoid
                | Op::TypeBool
                | Op::TypeInt
                | Op::TypeRuntimeArray
                | Op::TypeStruct
                | Op::TypePointer
                | Op::TypeFunction => {
                    let id = result_id(inst)?;
                    let ty = match op {
                        Op::TypeVoid => Ty::Void,
                        Op::TypeBool => Ty::Bool,
                        Op::TypeInt => {
                            let width = literal_operand(inst, 0)?;
                            if width != 32 {
                                return Err(parse_err(format!(
                                    "%{id}: only 32-bit integers are supported, found {width}-bit"
                                )));
                            }
                            Ty::Int
                        }
                        Op::TypeRuntimeArray => Ty::RuntimeArray(id_operand(inst, 0)?),
                        Op::TypeStruct => Ty::Struct(match inst.operands.first() {
                            None => None,
                            Some(_) => Some(id_operand(inst, 0)?),
                        }),
                        Op::TypePointer => {
                            let sc = match inst.operands.first() {
                                Some(dr::Operand::StorageClass(sc)) => *sc,
                                _ => return Err(parse_err(format!("%{id}: OpTypePointer without a storage class"))),
                            };
                            Ty::Pointer(sc, id_operand(inst, 1)?)
                        }
                        _ => Ty::Function,
                    };
                    comp.types.insert(id, ty);
                }
                Op::Constant => {
                    let id = result_id(inst)?;
                    comp.int_type(inst)?;
                    init[id as usize] = Val::Int(literal_operand(inst, 0)?);
                    comp.define(id)?;
                }
                Op::ConstantTrue | Op::ConstantFalse => {
                    let id = result_id(inst)?;
                    init[id as usize] = Val::Bool(op == Op::ConstantTrue);
                    comp.define(id)?;
                }
                Op::Undef => {
                    let id = result_id(inst)?;
                    init[id as usize] = Val::Undef;
                    comp.define(id)?;
                }
                Op::Variable => {
                    let id = result_id(inst)?;
                    let sc = match inst.operands.first() {
                        Some(dr::Operand::StorageClass(sc)) => *sc,
                        _ => return Err(parse_err(format!("%{id}: OpVariable without a storage class"))),
                    };
                    let ty = inst.result_type.unwrap_or(0);
                    match sc {
                        StorageClass::StorageBuffer | StorageClass::Uniform => {
                            comp.check_buffer_type(id, ty)?;
                            let buf = match (set_of.get(&id), binding_of.get(&id)) {
                                (Some(0), Some(0)) => Buf::Decisions,
                                (Some(0), Some(1)) => Buf::Trace,
                                (set, binding) => {
                                    return Err(parse_err(format!(
                                        "buffer variable %{id} at set {set:?} binding {binding:?}; \
                                         shape modules bind set 0, bindings 0 and 1"
                                    )))
                                }
                            };
                            init[id as usize] = Val::Ptr(Ptr::Block(buf));
                        }
                        StorageClass::Private => {
                            let value = match inst.operands.get(1) {
                                None => Val::Undef,
                                Some(_) => match init[comp.value_operand(inst, 1)? as usize] {
                                    v @ (Val::Int(_) | Val::Bool(_) | Val::Undef) => v,
                                    _ => return Err(parse_err(format!("Private variable %{id}: the initializer is no constant"))),
                                },
                            };
                            init[id as usize] = Val::Ptr(Ptr::Mem(private_init.len() as u32));
                            private_init.push(value);
                        }
                        other => {
                            return Err(parse_err(format!(
                                "global variable %{id} in storage class {other:?} (shape modules use StorageBuffer and Private)"
                            )))
                        }
                    }
                    comp.define(id)?;
                }
                other => return Err(InterpError::Unsupported { opcode: other }),
            }
        }

        // Functions: indices, parameters and results first (calls and uses may refer
        // forward).
        for (i, f) in module.functions.iter().enumerate() {
            let id = f.def_id().ok_or_else(|| parse_err("OpFunction without a result id"))?;
            comp.func_index.insert(id, i as u32);
            for p in &f.parameters {
                comp.define(result_id(p)?)?;
            }
            for block in &f.blocks {
                for inst in &block.instructions {
                    if let Some(id) = inst.result_id {
                        comp.define(id)?;
                    }
                }
            }
        }

        let mut funcs = Vec::with_capacity(module.functions.len());
        let mut max_block_cost = 0;
        for f in &module.functions {
            let func = compile_function(&comp, f)?;
            for b in &func.blocks {
                max_block_cost = max_block_cost.max(b.cost);
            }
            funcs.push(func);
        }

        let mut entries = Vec::new();
        for inst in &module.entry_points {
            let model = match inst.operands.first() {
                Some(dr::Operand::ExecutionModel(m)) => *m,
                _ => return Err(parse_err("OpEntryPoint without an execution model")),
            };
            let func = id_operand(inst, 1)?;
            let name = match inst.operands.get(2) {
                Some(dr::Operand::LiteralString(s)) => s.clone(),
                _ => return Err(parse_err("OpEntryPoint without a name")),
            };
            if model != ExecutionModel::GLCompute {
                continue;
            }
            let index = *comp
                .func_index
                .get(&func)
                .ok_or_else(|| parse_err(format!("entry point {name:?} names %{func}, which is no function")))?;
            if !funcs[index as usize].params.is_empty() {
                return Err(parse_err(format!("entry point {name:?} takes parameters")));
            }
            entries.push((name, index));
        }

        Ok(ShapeProgram { funcs, entries, init, private_init, names, max_block_cost })
    }

    /// Names of the GLCompute entry points, in module order.
    pub fn entry_points(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(n, _)| n.as_str())
    }

    pub fn has_entry(&self, name: &str) -> bool {
        self.entries.iter().any(|(n, _)| n == name)
    }

    /// Blocks in all functions.
    pub fn block_count(&self) -> usize {
        self.funcs.iter().map(|f| f.blocks.len()).sum()
    }

    /// The largest number of instructions (PHIs, body, terminator) of one block.
    pub fn max_block_len(&self) -> u64 {
        self.max_block_cost
    }

    fn name(&self, id: Id) -> String {
        match self.names.get(&id) {
            Some(n) if !n.is_empty() => format!("%{n}"),
            _ => format!("%{id}"),
        }
    }

    fn at(&self, func: u32, block: u32) -> String {
        let f = &self.funcs[func as usize];
        format!("function {} block {}", self.name(f.id), self.name(f.blocks[block as usize].label))
    }

    /// Runs the entry point `entry` with the given decisions and a zeroed trace buffer of
    /// `trace_len` words; returns the trace buffer afterwards.
    pub fn run(
        &self,
        entry: &str,
        decisions: &[u32],
        trace_len: usize,
        limits: &SpirvLimits,
    ) -> Result<Trace, InterpError> {
        let &(_, func) = self
            .entries
            .iter()
            .find(|(n, _)| n == entry)
            .ok_or_else(|| InterpError::NoEntryPoint(entry.to_string()))?;
        let mut m = Machine {
            prog: self,
            values: self.init.clone(),
            mem: self.private_init.clone(),
            decisions: std::borrow::Cow::Borrowed(decisions),
            trace: vec![0; trace_len],
            frames: Vec::new(),
            blocks: 0,
            instructions: 0,
            limits,
        };
        let outcome = m.run(func)?;
        Ok(Trace { buffer: m.trace, outcome, steps: m.blocks })
    }
}

fn check_supported(op: Op) -> Result<(), InterpError> {
    if SUPPORTED.contains(&op) {
        Ok(())
    } else {
        Err(InterpError::Unsupported { opcode: op })
    }
}

fn compile_function(comp: &Compiler, f: &dr::Function) -> Result<Func, InterpError> {
    let id = f.def_id().unwrap_or(0);
    if f.blocks.is_empty() {
        return Err(parse_err(format!("function %{id} has no blocks")));
    }
    let mut labels: HashMap<Id, u32> = HashMap::new();
    for (i, block) in f.blocks.iter().enumerate() {
        let label = block
            .label
            .as_ref()
            .and_then(|l| l.result_id)
            .ok_or_else(|| parse_err(format!("function %{id}: a block without a label")))?;
        if labels.insert(label, i as u32).is_some() {
            return Err(parse_err(format!("function %{id}: label %{label} defined twice")));
        }
    }
    let target = |inst: &dr::Instruction, k: usize| -> Result<u32, InterpError> {
        let label = id_operand(inst, k)?;
        match labels.get(&label) {
            Some(0) => {
                Err(parse_err(format!("function %{id}: branch to its first block %{label} (not allowed in SPIR-V)")))
            }
            Some(&b) => Ok(b),
            None => Err(parse_err(format!("function %{id}: branch to %{label}, no block of this function"))),
        }
    };

    let params = f.parameters.iter().map(result_id).collect::<Result<Vec<_>, _>>()?;
    let mut blocks = Vec::with_capacity(f.blocks.len());
    for (bi, block) in f.blocks.iter().enumerate() {
        let label = block.label.as_ref().and_then(|l| l.result_id).unwrap_or(0);
        let mut phis = Vec::new();
        let mut ins = Vec::new();
        let mut term = None;
        let count = block.instructions.len();
        for (k, inst) in block.instructions.iter().enumerate() {
            let op = inst.class.opcode;
            let is_last = k + 1 == count;
            let is_term = matches!(
                op,
                Op::Branch | Op::BranchConditional | Op::Switch | Op::Return | Op::ReturnValue | Op::Unreachable
            );
            if is_term != is_last {
                return Err(parse_err(format!("block %{label}: terminator Op{op:?} not at the end, or none")));
            }
            let v = |k: usize| comp.value_operand(inst, k);
            match op {
                Op::Phi => {
                    if !ins.is_empty() {
                        return Err(parse_err(format!("block %{label}: OpPhi after other instructions")));
                    }
                    if bi == 0 {
                        return Err(parse_err(format!("block %{label}: OpPhi in the first block of a function")));
                    }
                    if inst.operands.len() % 2 != 0 {
                        return Err(parse_err(format!("block %{label}: OpPhi with an odd operand count")));
                    }
                    let mut incoming = SmallVec::new();
                    for pair in 0..inst.operands.len() / 2 {
                        let value = v(2 * pair)?;
                        let parent = id_operand(inst, 2 * pair + 1)?;
                        let pb = *labels.get(&parent).ok_or_else(|| {
                            parse_err(format!("block %{label}: OpPhi parent %{parent} is no block of this function"))
                        })?;
                        incoming.push((value, pb));
                    }
                    phis.push(Phi { res: result_id(inst)?, incoming });
                }
                Op::SelectionMerge | Op::LoopMerge => {}
                Op::Load => ins.push(Ins::Load { res: result_id(inst)?, ptr: v(0)? }),
                Op::Store => ins.push(Ins::Store { ptr: v(0)?, val: v(1)? }),
                Op::AccessChain => {
                    let base = v(0)?;
                    let idx = (1..inst.operands.len()).map(v).collect::<Result<SmallVec<_>, _>>()?;
                    ins.push(Ins::Access { res: result_id(inst)?, base, idx });
                }
                Op::ArrayLength => {
                    if literal_operand(inst, 1)? != 0 {
                        return Err(parse_err(format!("block %{label}: OpArrayLength of a member other than 0")));
                    }
                    ins.push(Ins::ArrayLength { res: result_id(inst)?, base: v(0)? });
                }
                Op::IAdd
                | Op::ISub
                | Op::UMod
                | Op::BitwiseAnd
                | Op::IEqual
                | Op::INotEqual
                | Op::ULessThan
                | Op::UGreaterThanEqual
                | Op::LogicalAnd
                | Op::LogicalOr => {
                    let bop = match op {
                        Op::IAdd => BinOp::IAdd,
                        Op::ISub => BinOp::ISub,
                        Op::UMod => BinOp::UMod,
                        Op::BitwiseAnd => BinOp::BitAnd,
                        Op::IEqual => BinOp::IEq,
                        Op::INotEqual => BinOp::INe,
                        Op::ULessThan => BinOp::ULt,
                        Op::UGreaterThanEqual => BinOp::UGe,
                        Op::LogicalAnd => BinOp::LAnd,
                        _ => BinOp::LOr,
                    };
                    ins.push(Ins::Bin { op: bop, res: result_id(inst)?, a: v(0)?, b: v(1)? });
                }
                Op::LogicalNot => ins.push(Ins::Not { res: result_id(inst)?, a: v(0)? }),
                Op::Select => ins.push(Ins::Select { res: result_id(inst)?, c: v(0)?, a: v(1)?, b: v(2)? }),
                Op::Variable => {
                    match inst.operands.first() {
                        Some(dr::Operand::StorageClass(StorageClass::Function)) => {}
                        other => {
                            return Err(parse_err(format!(
                            "block %{label}: OpVariable in a function must use storage class Function, found {other:?}"
                        )))
                        }
                    }
                    if bi != 0 {
                        return Err(parse_err(format!("block %{label}: OpVariable outside the first block")));
                    }
                    let init = match inst.operands.get(1) {
                        None => None,
                        Some(_) => Some(v(1)?),
                    };
                    ins.push(Ins::Var { res: result_id(inst)?, init });
                }
                Op::Undef => ins.push(Ins::Undef { res: result_id(inst)? }),
                Op::FunctionCall => {
                    let callee = id_operand(inst, 0)?;
                    let func = *comp
                        .func_index
                        .get(&callee)
                        .ok_or_else(|| parse_err(format!("block %{label}: call of %{callee}, which is no function")))?;
                    let args = (1..inst.operands.len()).map(v).collect::<Result<SmallVec<_>, _>>()?;
                    ins.push(Ins::Call { res: result_id(inst)?, func, args });
                }
                Op::Branch => term = Some(Term::Br(target(inst, 0)?)),
                Op::BranchConditional => {
                    term = Some(Term::CondBr { c: v(0)?, t: target(inst, 1)?, f: target(inst, 2)? })
                }
                Op::Switch => {
                    let sel = v(0)?;
                    let default = target(inst, 1)?;
                    let mut cases = Vec::new();
                    let mut k = 2;
                    while k < inst.operands.len() {
                        cases.push((literal_operand(inst, k)?, target(inst, k + 1)?));
                        k += 2;
                    }
                    term = Some(Term::Switch { sel, default, cases });
                }
                Op::Return => term = Some(Term::Return),
                Op::ReturnValue => term = Some(Term::ReturnValue(v(0)?)),
                Op::Unreachable => term = Some(Term::Unreachable),
                other => return Err(InterpError::Unsupported { opcode: other }),
            }
        }
        let term = term.ok_or_else(|| parse_err(format!("block %{label} has no terminator")))?;
        let cost = (phis.len() + ins.len() + 1) as u64;
        blocks.push(Blk { label, phis, ins, term, cost });
    }
    // Calls must pass as many arguments as the callee takes: checked at run time (the
    // callee may come later in the module).
    let results = f.blocks.iter().flat_map(|b| b.instructions.iter().filter_map(|i| i.result_id)).collect();
    Ok(Func { id, params, blocks, results })
}

struct Frame {
    func: u32,
    block: u32,
    /// Next instruction of the block.
    pc: u32,
    /// `mem.len()` on entry: the function's variables live above it.
    mem_base: usize,
    /// The caller's result id for this call.
    ret_to: Id,
}

struct Machine<'a> {
    prog: &'a ShapeProgram,
    values: Vec<Val>,
    mem: Vec<Val>,
    decisions: std::borrow::Cow<'a, [u32]>,
    trace: Vec<u32>,
    frames: Vec<Frame>,
    blocks: u64,
    instructions: u64,
    limits: &'a SpirvLimits,
}

/// What executing one step led to.
enum Flow {
    Continue,
    Stop(Outcome),
}

impl<'a> Machine<'a> {
    fn at(&self) -> String {
        match self.frames.last() {
            Some(f) => self.prog.at(f.func, f.block),
            None => "no function".into(),
        }
    }

    fn runtime(&self, what: impl Into<String>) -> InterpError {
        InterpError::Runtime { what: what.into(), at: self.at() }
    }

    fn undefined(&self, what: impl Into<String>) -> InterpError {
        InterpError::Undefined { what: what.into(), at: self.at() }
    }

    fn get(&self, id: Id) -> Result<Val, InterpError> {
        match self.values[id as usize] {
            Val::Unset => Err(self.runtime(format!("use of {} before its definition executed", self.prog.name(id)))),
            v => Ok(v),
        }
    }

    fn set(&mut self, id: Id, v: Val) {
        self.values[id as usize] = v;
    }

    fn run(&mut self, entry: u32) -> Result<Outcome, InterpError> {
        self.frames.push(Frame { func: entry, block: 0, pc: 0, mem_base: self.mem.len(), ret_to: 0 });
        if let Flow::Stop(o) = self.enter(0, None)? {
            return Ok(o);
        }
        loop {
            if let Flow::Stop(o) = self.step()? {
                return Ok(o);
            }
        }
    }

    /// Enters block `block` of the current frame's function, coming from `from`.
    fn enter(&mut self, block: u32, from: Option<u32>) -> Result<Flow, InterpError> {
        let prog = self.prog;
        let frame = self.frames.last_mut().expect("a frame is active");
        frame.block = block;
        frame.pc = 0;
        let blk = &prog.funcs[frame.func as usize].blocks[block as usize];
        if self.blocks >= self.limits.max_block_entries {
            return Ok(Flow::Stop(Outcome::StepLimit));
        }
        self.blocks += 1;
        self.instructions = self.instructions.saturating_add(blk.cost);
        if self.instructions > self.limits.max_instructions {
            return Ok(Flow::Stop(Outcome::StepLimit));
        }
        if blk.phis.is_empty() {
            return Ok(Flow::Continue);
        }
        let Some(from) = from else {
            return Err(self.runtime("OpPhi in a block entered without a predecessor"));
        };
        let mut chosen: SmallVec<[(Id, Val); 8]> = SmallVec::new();
        for phi in &blk.phis {
            let Some(&(value, _)) = phi.incoming.iter().find(|&&(_, p)| p == from) else {
                let func = self.frames.last().map(|f| f.func).unwrap_or(0);
                return Err(self.runtime(format!(
                    "OpPhi {} has no incoming value for predecessor {}",
                    prog.name(phi.res),
                    prog.name(prog.funcs[func as usize].blocks[from as usize].label)
                )));
            };
            chosen.push((phi.res, self.get(value)?));
        }
        for (res, v) in chosen {
            self.set(res, v);
        }
        Ok(Flow::Continue)
    }

    fn step(&mut self) -> Result<Flow, InterpError> {
        let prog = self.prog;
        let frame = self.frames.last_mut().expect("a frame is active");
        let (func, block, pc) = (frame.func, frame.block, frame.pc);
        let blk = &prog.funcs[func as usize].blocks[block as usize];
        if let Some(ins) = blk.ins.get(pc as usize) {
            frame.pc += 1;
            return self.exec(ins);
        }
        match &blk.term {
            Term::Br(t) => self.enter(*t, Some(block)),
            Term::CondBr { c, t, f } => match self.get(*c)? {
                Val::Bool(true) => self.enter(*t, Some(block)),
                Val::Bool(false) => self.enter(*f, Some(block)),
                Val::Undef => Err(self.undefined(format!("the condition {} of OpBranchConditional", prog.name(*c)))),
                other => Err(self.runtime(format!("OpBranchConditional on a non-boolean {other:?}"))),
            },
            Term::Switch { sel, default, cases } => match self.get(*sel)? {
                Val::Int(x) => {
                    let t = cases.iter().find(|&&(v, _)| v == x).map(|&(_, t)| t).unwrap_or(*default);
                    self.enter(t, Some(block))
                }
                Val::Undef => Err(self.undefined(format!("the selector {} of OpSwitch", prog.name(*sel)))),
                other => Err(self.runtime(format!("OpSwitch on a non-integer {other:?}"))),
            },
            Term::Return => self.ret(Val::Undef),
            Term::ReturnValue(v) => {
                let v = self.get(*v)?;
                self.ret(v)
            }
            Term::Unreachable => Err(InterpError::UnreachableExecuted { at: self.at() }),
        }
    }

    fn ret(&mut self, v: Val) -> Result<Flow, InterpError> {
        let frame = self.frames.pop().expect("a frame is active");
        self.mem.truncate(frame.mem_base);
        if self.frames.is_empty() {
            return Ok(Flow::Stop(Outcome::Finished));
        }
        self.set(frame.ret_to, v);
        Ok(Flow::Continue)
    }

    fn ptr(&self, id: Id, what: &str) -> Result<Ptr, InterpError> {
        match self.get(id)? {
            Val::Ptr(p) => Ok(p),
            Val::Undef => Err(self.undefined(format!("the pointer {} of {what}", self.prog.name(id)))),
            other => Err(self.runtime(format!("{what} through a non-pointer {other:?}"))),
        }
    }

    fn buffer_len(&self, buf: Buf) -> usize {
        match buf {
            Buf::Decisions => self.decisions.len(),
            Buf::Trace => self.trace.len(),
        }
    }

    fn check_index(&self, buf: Buf, index: u32) -> Result<usize, InterpError> {
        let len = self.buffer_len(buf);
        if (index as usize) < len {
            Ok(index as usize)
        } else {
            Err(InterpError::OutOfBounds { buffer: buf.name(), index, len, at: self.at() })
        }
    }

    fn exec(&mut self, ins: &Ins) -> Result<Flow, InterpError> {
        match ins {
            Ins::Load { res, ptr } => {
                let v = match self.ptr(*ptr, "OpLoad")? {
                    Ptr::Elem(buf, i) => {
                        let i = self.check_index(buf, i)?;
                        Val::Int(match buf {
                            Buf::Decisions => self.decisions[i],
                            Buf::Trace => self.trace[i],
                        })
                    }
                    Ptr::Mem(slot) => self.mem[slot as usize],
                    Ptr::Block(_) | Ptr::Array(_) => {
                        return Err(self.runtime("OpLoad of a whole buffer block or array"))
                    }
                };
                self.set(*res, v);
            }
            Ins::Store { ptr, val } => {
                let p = self.ptr(*ptr, "OpStore")?;
                let v = self.get(*val)?;
                match p {
                    Ptr::Elem(buf, i) => {
                        let i = self.check_index(buf, i)?;
                        let x = match v {
                            Val::Int(x) => x,
                            Val::Undef => {
                                return Err(self.undefined(format!(
                                    "the value {} stored to {}[{i}]",
                                    self.prog.name(*val),
                                    buf.name()
                                )))
                            }
                            other => return Err(self.runtime(format!("OpStore of {other:?} into a u32 buffer"))),
                        };
                        match buf {
                            Buf::Decisions => self.decisions.to_mut()[i] = x,
                            Buf::Trace => {
                                self.trace[i] = x;
                                if i == 0 {
                                    if let Some(stop) = self.limits.stop_at_trace_count {
                                        if x >= stop {
                                            return Ok(Flow::Stop(Outcome::StepLimit));
                                        }
                                    }
                                }
                            }
                        }
                    }
                    Ptr::Mem(slot) => match v {
                        Val::Int(_) | Val::Bool(_) | Val::Undef => self.mem[slot as usize] = v,
                        other => return Err(self.runtime(format!("OpStore of {other:?} into a variable"))),
                    },
                    Ptr::Block(_) | Ptr::Array(_) => {
                        return Err(self.runtime("OpStore to a whole buffer block or array"))
                    }
                }
            }
            Ins::Access { res, base, idx } => {
                let mut p = self.ptr(*base, "OpAccessChain")?;
                for &i in idx {
                    let i = match self.get(i)? {
                        Val::Int(x) => x,
                        Val::Undef => {
                            return Err(self.undefined(format!("the index {} of OpAccessChain", self.prog.name(i))))
                        }
                        other => return Err(self.runtime(format!("OpAccessChain index {other:?}"))),
                    };
                    p = match p {
                        Ptr::Block(buf) if i == 0 => Ptr::Array(buf),
                        Ptr::Block(_) => {
                            return Err(self.runtime(format!(
                                "OpAccessChain into member {i} of a buffer block (only member 0 exists)"
                            )))
                        }
                        Ptr::Array(buf) => Ptr::Elem(buf, i),
                        Ptr::Elem(..) | Ptr::Mem(_) => return Err(self.runtime("OpAccessChain into a scalar")),
                    };
                }
                self.set(*res, Val::Ptr(p));
            }
            Ins::ArrayLength { res, base } => match self.ptr(*base, "OpArrayLength")? {
                Ptr::Block(buf) => {
                    let len = u32::try_from(self.buffer_len(buf)).unwrap_or(u32::MAX);
                    self.set(*res, Val::Int(len));
                }
                other => return Err(self.runtime(format!("OpArrayLength of {other:?}, not a buffer block"))),
            },
            Ins::Bin { op, res, a, b } => {
                let (x, y) = (self.get(*a)?, self.get(*b)?);
                let v = self.binary(*op, x, y)?;
                self.set(*res, v);
            }
            Ins::Not { res, a } => {
                let v = match self.get(*a)? {
                    Val::Bool(x) => Val::Bool(!x),
                    Val::Undef => Val::Undef,
                    other => return Err(self.runtime(format!("OpLogicalNot of {other:?}"))),
                };
                self.set(*res, v);
            }
            Ins::Select { res, c, a, b } => {
                let (x, y) = (self.get(*a)?, self.get(*b)?);
                let v = match self.get(*c)? {
                    Val::Bool(true) => x,
                    Val::Bool(false) => y,
                    Val::Undef if x == y => x,
                    Val::Undef => Val::Undef,
                    other => return Err(self.runtime(format!("OpSelect on a non-boolean {other:?}"))),
                };
                self.set(*res, v);
            }
            Ins::Var { res, init } => {
                let v = match init {
                    Some(i) => self.get(*i)?,
                    None => Val::Undef,
                };
                let slot = u32::try_from(self.mem.len()).map_err(|_| self.runtime("too many variables"))?;
                self.mem.push(v);
                self.set(*res, Val::Ptr(Ptr::Mem(slot)));
            }
            Ins::Undef { res } => self.set(*res, Val::Undef),
            Ins::Call { res, func, args } => {
                let prog = self.prog;
                let callee = &prog.funcs[*func as usize];
                if self.frames.iter().any(|f| f.func == *func) {
                    return Err(self.runtime(format!("recursive call of {}", prog.name(callee.id))));
                }
                if callee.params.len() != args.len() {
                    return Err(self.runtime(format!(
                        "call of {} with {} arguments; it takes {}",
                        prog.name(callee.id),
                        args.len(),
                        callee.params.len()
                    )));
                }
                let mut vals: SmallVec<[Val; 4]> = SmallVec::new();
                for &a in args {
                    vals.push(self.get(a)?);
                }
                // The callee's results from an earlier call must not satisfy a use before
                // definition in this one.
                for &r in &callee.results {
                    self.values[r as usize] = Val::Unset;
                }
                for (&p, v) in callee.params.iter().zip(vals) {
                    self.set(p, v);
                }
                self.frames.push(Frame { func: *func, block: 0, pc: 0, mem_base: self.mem.len(), ret_to: *res });
                return self.enter(0, None);
            }
        }
        Ok(Flow::Continue)
    }

    fn binary(&self, op: BinOp, x: Val, y: Val) -> Result<Val, InterpError> {
        use BinOp::*;
        use Val::{Bool, Int, Undef};
        let v = match (op, x, y) {
            (IAdd, Int(a), Int(b)) => Int(a.wrapping_add(b)),
            (ISub, Int(a), Int(b)) => Int(a.wrapping_sub(b)),
            (UMod, Int(_), Int(0)) => return Err(self.runtime("OpUMod by zero")),
            (UMod, Int(a), Int(b)) => Int(a % b),
            (BitAnd, Int(a), Int(b)) => Int(a & b),
            (BitAnd, Int(0), Undef) | (BitAnd, Undef, Int(0)) => Int(0),
            (IEq, Int(a), Int(b)) => Bool(a == b),
            (INe, Int(a), Int(b)) => Bool(a != b),
            (ULt, Int(a), Int(b)) => Bool(a < b),
            (UGe, Int(a), Int(b)) => Bool(a >= b),
            (LAnd, Bool(a), Bool(b)) => Bool(a && b),
            (LAnd, Bool(false), Undef) | (LAnd, Undef, Bool(false)) => Bool(false),
            (LOr, Bool(a), Bool(b)) => Bool(a || b),
            (LOr, Bool(true), Undef) | (LOr, Undef, Bool(true)) => Bool(true),
            (IAdd | ISub | UMod | BitAnd | IEq | INe | ULt | UGe, Int(_) | Undef, Int(_) | Undef) => Undef,
            (LAnd | LOr, Bool(_) | Undef, Bool(_) | Undef) => Undef,
            _ => return Err(self.runtime(format!("{op:?} of {x:?} and {y:?}"))),
        };
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::trace::{original_trace, Limits};
    use crate::check::trace_equiv::naive_shape_module;
    use crate::fuzzing::mutate::SplitMix64;
    use crate::fuzzing::synthetic::from_adjacency;
    use cranelift_entity::EntityRef;
    use rspirv::binary::Assemble;
    use rspirv::dr::{Builder, Operand};
    use rspirv::spirv::{AddressingModel, Capability, FunctionControl, MemoryModel, SelectionControl};
    use untangle::ir::{BlockId, Function, Inst, InstKind, Type, Types, Value};

    const LIMITS: SpirvLimits =
        SpirvLimits { max_block_entries: 100_000, max_instructions: 10_000_000, stop_at_trace_count: None };

    fn func(blocks: &[(&str, &[&str])]) -> Function {
        let mut types = Types::default();
        from_adjacency("f", blocks, &mut types).unwrap()
    }

    fn buf(count: u32, entries: &[u32], len: usize) -> Vec<u32> {
        let mut v = vec![count];
        v.extend_from_slice(entries);
        v.resize(len, 0);
        v
    }

    /// Runs the naive module of `f` and the reference on the same input; both must give
    /// `expected`.
    fn both(f: &Function, decisions: &[u32], len: usize, expected: &[u32]) {
        let words = naive_shape_module(f).unwrap();
        let t = run_entry(&words, &f.name, decisions, len, &LIMITS).unwrap();
        assert_eq!(t.buffer, expected, "SPIR-V, decisions {decisions:?}");
        assert_eq!(t.outcome, Outcome::Finished);
        let o = original_trace(f, decisions, len, &Limits { max_block_entries: 10_000 });
        assert_eq!(o.buffer, expected, "original, decisions {decisions:?}");
    }

    #[test]
    fn loop_that_appends() {
        let f = func(&[("entry", &["h"]), ("h", &["body", "exit"]), ("body", &["h"]), ("exit", &[])]);
        both(&f, &[1, 1, 0], 16, &buf(7, &[0, 1, 2, 1, 2, 1, 3], 16));
        // Past the end of the decisions: 0, the exit.
        both(&f, &[1], 16, &buf(5, &[0, 1, 2, 1, 3], 16));
        // Capacity rule.
        both(&f, &[1, 1, 0], 4, &[7, 0, 1, 2]);
        both(&f, &[1, 1, 0], 1, &[7]);
    }

    #[test]
    fn switch_and_phi_and_calls() {
        let mut types = Types::default();
        let mut f = from_adjacency(
            "sw",
            &[("s", &["d", "c0", "c1"]), ("d", &["x"]), ("c0", &["x"]), ("c1", &["x"]), ("x", &[])],
            &mut types,
        )
        .unwrap();
        let i32t = types.intern(Type::Int(32));
        let phi = f.insts.push(Inst {
            name: None,
            ty: i32t,
            kind: InstKind::Phi { incoming: [1, 2, 3].iter().map(|&p| (Value::Arg(0), BlockId::new(p))).collect() },
        });
        f.blocks[BlockId::new(4)].insts.push(phi);
        both(&f, &[0], 8, &buf(4, &[0, 1, 4, 1], 8));
        both(&f, &[1], 8, &buf(4, &[0, 2, 4, 2], 8));
        both(&f, &[5], 8, &buf(4, &[0, 3, 4, 3], 8));
        both(&f, &[u32::MAX], 8, &buf(4, &[0, 1, 4, 1], 8));
    }

    #[test]
    fn program_reports_entries_and_sizes() {
        let f = func(&[("a", &["b", "c"]), ("b", &[]), ("c", &[])]);
        let p = ShapeProgram::parse(&naive_shape_module(&f).unwrap()).unwrap();
        assert!(p.has_entry("f"));
        assert_eq!(p.entry_points().collect::<Vec<_>>(), vec!["f"]);
        // append: 3 blocks, read: 3, main: entry + 3.
        assert_eq!(p.block_count(), 10);
        assert!(p.max_block_len() >= 5);
        let t = p.run("f", &[1], 4, &LIMITS).unwrap();
        assert_eq!(t.buffer, vec![2, 0, 1, 0]);
        // append, read and main entries: every OpLabel counts.
        assert!(t.steps > 3);
        assert_eq!(p.run("g", &[], 4, &LIMITS), Err(InterpError::NoEntryPoint("g".into())));
    }

    /// A module skeleton: buffers bound as in shape mode, and `main` (entry point "main")
    /// whose body `body` writes.
    struct Skel {
        b: Builder,
        void: u32,
        boolt: u32,
        u32t: u32,
        p_u: u32,
        p_fn: u32,
        dec: u32,
        tr: u32,
        main: u32,
    }

    impl Skel {
        fn new() -> Self {
            let mut b = Builder::new();
            b.set_version(1, 3);
            b.capability(Capability::Shader);
            b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
            let void = b.type_void();
            let boolt = b.type_bool();
            let u32t = b.type_int(32, 0);
            let rt = b.type_runtime_array(u32t);
            let st = b.type_struct([rt]);
            b.decorate(st, Decoration::Block, []);
            let p_st = b.type_pointer(None, StorageClass::StorageBuffer, st);
            let p_u = b.type_pointer(None, StorageClass::StorageBuffer, u32t);
            let p_fn = b.type_pointer(None, StorageClass::Function, u32t);
            let dec = b.variable(p_st, None, StorageClass::StorageBuffer, None);
            b.decorate(dec, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
            b.decorate(dec, Decoration::Binding, [Operand::LiteralBit32(0)]);
            let tr = b.variable(p_st, None, StorageClass::StorageBuffer, None);
            b.decorate(tr, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
            b.decorate(tr, Decoration::Binding, [Operand::LiteralBit32(1)]);
            let fty = b.type_function(void, []);
            let main = b.begin_function(void, None, FunctionControl::NONE, fty).unwrap();
            b.entry_point(ExecutionModel::GLCompute, main, "main", [dec, tr]);
            b.begin_block(None).unwrap();
            Skel { b, void, boolt, u32t, p_u, p_fn, dec, tr, main }
        }

        fn c(&mut self, v: u32) -> u32 {
            self.b.constant_bit32(self.u32t, v)
        }

        /// trace[i] = v
        fn put(&mut self, i: u32, v: u32) {
            let zero = self.c(0);
            let i = self.c(i);
            let p = self.b.access_chain(self.p_u, None, self.tr, [zero, i]).unwrap();
            self.b.store(p, v, None, []).unwrap();
        }

        /// trace[i] = b ? 1 : 0
        fn put_bool(&mut self, i: u32, b: u32) {
            let (one, zero) = (self.c(1), self.c(0));
            let v = self.b.select(self.u32t, None, b, one, zero).unwrap();
            self.put(i, v);
        }

        fn words(mut self) -> Vec<u32> {
            self.b.end_function().unwrap();
            self.b.module().assemble()
        }
    }

    fn run(words: &[u32], decisions: &[u32], len: usize) -> Result<Trace, InterpError> {
        run_entry(words, "main", decisions, len, &LIMITS)
    }

    #[test]
    fn arithmetic_logic_and_variables() {
        let mut s = Skel::new();
        let var = s.b.variable(s.p_fn, None, StorageClass::Function, None);
        let (c3, c5, c7) = (s.c(3), s.c(5), s.c(7));
        let t = s.b.constant_true(s.boolt);
        let f = s.b.constant_false(s.boolt);
        let sub = s.b.i_sub(s.u32t, None, c3, c5).unwrap();
        s.put(0, sub);
        let m = s.b.u_mod(s.u32t, None, c7, c3).unwrap();
        s.b.store(var, m, None, []).unwrap();
        let loaded = s.b.load(s.u32t, None, var, None, []).unwrap();
        s.put(1, loaded);
        let ne = s.b.i_not_equal(s.boolt, None, c3, c5).unwrap();
        s.put_bool(2, ne);
        let ge = s.b.u_greater_than_equal(s.boolt, None, c3, c5).unwrap();
        s.put_bool(3, ge);
        let and = s.b.logical_and(s.boolt, None, t, f).unwrap();
        s.put_bool(4, and);
        let or = s.b.logical_or(s.boolt, None, t, f).unwrap();
        s.put_bool(5, or);
        let not = s.b.logical_not(s.boolt, None, f).unwrap();
        s.put_bool(6, not);
        let band = s.b.bitwise_and(s.u32t, None, c7, c5).unwrap();
        s.put(7, band);
        // Reading the decisions and their length.
        let dlen = s.b.array_length(s.u32t, None, s.dec, 0).unwrap();
        s.put(8, dlen);
        let zero = s.c(0);
        let one = s.c(1);
        let p = s.b.access_chain(s.p_u, None, s.dec, [zero, one]).unwrap();
        let d1 = s.b.load(s.u32t, None, p, None, []).unwrap();
        s.put(9, d1);
        let tlen = s.b.array_length(s.u32t, None, s.tr, 0).unwrap();
        s.put(10, tlen);
        s.b.ret().unwrap();
        let words = s.words();
        let t = run(&words, &[10, 20, 30], 11).unwrap();
        assert_eq!(t.buffer, vec![3u32.wrapping_sub(5), 1, 1, 0, 0, 1, 1, 5, 3, 20, 11]);
        assert_eq!(t.outcome, Outcome::Finished);
        assert_eq!(t.steps, 1);
    }

    #[test]
    fn phi_reads_all_incoming_values_simultaneously() {
        // A swap loop: (a, b) = (b, a) three times; PHIs read the old values.
        let mut s = Skel::new();
        let (c0, c1, c2, c3) = (s.c(0), s.c(1), s.c(2), s.c(3));
        let entry = s.b.selected_block().unwrap();
        let entry_label = s.b.module_ref().functions[0].blocks[entry].label.as_ref().unwrap().result_id.unwrap();
        let (h, body, exit) = (s.b.id(), s.b.id(), s.b.id());
        s.b.branch(h).unwrap();
        s.b.begin_block(Some(h)).unwrap();
        let (a_next, b_next, i_next) = (s.b.id(), s.b.id(), s.b.id());
        let a = s.b.phi(s.u32t, None, [(c1, entry_label), (a_next, body)]).unwrap();
        let bb = s.b.phi(s.u32t, None, [(c2, entry_label), (b_next, body)]).unwrap();
        let i = s.b.phi(s.u32t, None, [(c0, entry_label), (i_next, body)]).unwrap();
        let more = s.b.u_less_than(s.boolt, None, i, c3).unwrap();
        s.b.loop_merge(exit, body, rspirv::spirv::LoopControl::NONE, []).unwrap();
        s.b.branch_conditional(more, body, exit, []).unwrap();
        s.b.begin_block(Some(body)).unwrap();
        // a_next = b, b_next = a: plain copies through OpSelect on true.
        let t = s.b.constant_true(s.boolt);
        s.b.select(s.u32t, Some(a_next), t, bb, a).unwrap();
        s.b.select(s.u32t, Some(b_next), t, a, bb).unwrap();
        s.b.i_add(s.u32t, Some(i_next), i, c1).unwrap();
        s.b.branch(h).unwrap();
        s.b.begin_block(Some(exit)).unwrap();
        s.put(0, a);
        s.put(1, bb);
        s.put(2, i);
        s.b.ret().unwrap();
        let t = run(&s.words(), &[], 3).unwrap();
        assert_eq!(t.buffer, vec![2, 1, 3]);
        // entry, h ×4, body ×3, exit
        assert_eq!(t.steps, 9);
    }

    #[test]
    fn switch_and_function_call_with_return_value() {
        let mut s = Skel::new();
        // main is open; close it after the switch, then add `twice(x) = x + x`.
        let fty = s.b.type_function(s.u32t, [s.u32t]);
        let twice = s.b.id();
        let zero = s.c(0);
        let p = s.b.access_chain(s.p_u, None, s.dec, [zero, zero]).unwrap();
        let d = s.b.load(s.u32t, None, p, None, []).unwrap();
        let (l_a, l_b, l_d, merge) = (s.b.id(), s.b.id(), s.b.id(), s.b.id());
        s.b.selection_merge(merge, SelectionControl::NONE).unwrap();
        s.b.switch(d, l_d, [(Operand::LiteralBit32(4), l_a), (Operand::LiteralBit32(9), l_b)]).unwrap();
        for (label, value) in [(l_a, 40), (l_b, 90), (l_d, 7)] {
            s.b.begin_block(Some(label)).unwrap();
            let v = s.c(value);
            let r = s.b.function_call(s.u32t, None, twice, [v]).unwrap();
            s.put(0, r);
            s.b.branch(merge).unwrap();
        }
        s.b.begin_block(Some(merge)).unwrap();
        s.b.ret().unwrap();
        s.b.end_function().unwrap();
        s.b.begin_function(s.u32t, Some(twice), FunctionControl::NONE, fty).unwrap();
        let x = s.b.function_parameter(s.u32t).unwrap();
        s.b.begin_block(None).unwrap();
        let y = s.b.i_add(s.u32t, None, x, x).unwrap();
        s.b.ret_value(y).unwrap();
        // `words` closes the current function.
        let words = s.words();
        assert_eq!(run(&words, &[4], 1).unwrap().buffer, vec![80]);
        assert_eq!(run(&words, &[9], 1).unwrap().buffer, vec![180]);
        assert_eq!(run(&words, &[5], 1).unwrap().buffer, vec![14]);
    }

    #[test]
    fn unsupported_opcode_is_rejected_at_parse() {
        let mut s = Skel::new();
        let (c2, c3) = (s.c(2), s.c(3));
        let m = s.b.i_mul(s.u32t, None, c2, c3).unwrap();
        s.put(0, m);
        s.b.ret().unwrap();
        let err = ShapeProgram::parse(&s.words()).unwrap_err();
        assert_eq!(err, InterpError::Unsupported { opcode: Op::IMul });
        assert!(err.to_string().contains("OpIMul"));
    }

    #[test]
    fn executed_unreachable_is_an_error() {
        let mut s = Skel::new();
        let zero = s.c(0);
        let p = s.b.access_chain(s.p_u, None, s.dec, [zero, zero]).unwrap();
        let d = s.b.load(s.u32t, None, p, None, []).unwrap();
        let one = s.c(1);
        let is_one = s.b.i_equal(s.boolt, None, d, one).unwrap();
        let (dead, fine) = (s.b.id(), s.b.id());
        s.b.branch_conditional(is_one, dead, fine, []).unwrap();
        s.b.begin_block(Some(dead)).unwrap();
        s.b.name(dead, "dead");
        s.b.unreachable().unwrap();
        s.b.begin_block(Some(fine)).unwrap();
        s.b.ret().unwrap();
        let words = s.words();
        assert_eq!(run(&words, &[0], 1).unwrap().outcome, Outcome::Finished);
        let err = run(&words, &[1], 1).unwrap_err();
        assert!(matches!(&err, InterpError::UnreachableExecuted { at } if at.contains("%dead")), "{err}");
    }

    #[test]
    fn undefined_values() {
        // Branch on an undefined condition.
        let mut s = Skel::new();
        let u = s.b.undef(s.boolt, None);
        let (x, y) = (s.b.id(), s.b.id());
        s.b.branch_conditional(u, x, y, []).unwrap();
        for l in [x, y] {
            s.b.begin_block(Some(l)).unwrap();
            s.b.ret().unwrap();
        }
        assert!(matches!(run(&s.words(), &[], 1), Err(InterpError::Undefined { .. })));

        // Store of arithmetic on undef into the trace.
        let mut s = Skel::new();
        let u = s.b.undef(s.u32t, None);
        let one = s.c(1);
        let sum = s.b.i_add(s.u32t, None, u, one).unwrap();
        s.put(0, sum);
        s.b.ret().unwrap();
        let err = run(&s.words(), &[], 1).unwrap_err();
        assert!(matches!(err, InterpError::Undefined { .. }), "{err}");

        // Undefined switch selector through an uninitialized variable.
        let mut s = Skel::new();
        let var = s.b.variable(s.p_fn, None, StorageClass::Function, None);
        let v = s.b.load(s.u32t, None, var, None, []).unwrap();
        let d = s.b.id();
        s.b.switch(v, d, []).unwrap();
        s.b.begin_block(Some(d)).unwrap();
        s.b.ret().unwrap();
        assert!(matches!(run(&s.words(), &[], 1), Err(InterpError::Undefined { .. })));

        // Undefined values that decide nothing are fine: select on a defined condition,
        // `false && undef`, `0 & undef`, and an undef kept in a variable but never used.
        let mut s = Skel::new();
        let var = s.b.variable(s.p_fn, None, StorageClass::Function, None);
        let ub = s.b.undef(s.boolt, None);
        let uu = s.b.undef(s.u32t, None);
        s.b.store(var, uu, None, []).unwrap();
        let f = s.b.constant_false(s.boolt);
        let t = s.b.constant_true(s.boolt);
        let and = s.b.logical_and(s.boolt, None, f, ub).unwrap();
        let or = s.b.logical_or(s.boolt, None, ub, t).unwrap();
        let both = s.b.logical_and(s.boolt, None, or, t).unwrap();
        let c9 = s.c(9);
        let zero = s.c(0);
        let pick = s.b.select(s.u32t, None, t, c9, uu).unwrap();
        let masked = s.b.bitwise_and(s.u32t, None, uu, zero).unwrap();
        let sum = s.b.i_add(s.u32t, None, pick, masked).unwrap();
        s.put(0, sum);
        let (x, y) = (s.b.id(), s.b.id());
        s.b.branch_conditional(and, x, y, []).unwrap();
        s.b.begin_block(Some(x)).unwrap();
        s.b.ret().unwrap();
        s.b.begin_block(Some(y)).unwrap();
        s.put_bool(1, both);
        s.b.ret().unwrap();
        assert_eq!(run(&s.words(), &[], 2).unwrap().buffer, vec![9, 1]);
    }

    fn endless(s: &mut Skel, append: bool) {
        let l = s.b.id();
        s.b.branch(l).unwrap();
        s.b.begin_block(Some(l)).unwrap();
        if append {
            // trace[0] += 1
            let zero = s.c(0);
            let one = s.c(1);
            let p = s.b.access_chain(s.p_u, None, s.tr, [zero, zero]).unwrap();
            let n = s.b.load(s.u32t, None, p, None, []).unwrap();
            let n1 = s.b.i_add(s.u32t, None, n, one).unwrap();
            s.b.store(p, n1, None, []).unwrap();
        }
        s.b.branch(l).unwrap();
    }

    #[test]
    fn step_limits() {
        let mut s = Skel::new();
        endless(&mut s, true);
        let words = s.words();
        let p = ShapeProgram::parse(&words).unwrap();
        let t = p.run("main", &[], 1, &SpirvLimits::new(10, 1_000)).unwrap();
        assert_eq!(t.outcome, Outcome::StepLimit);
        assert_eq!(t.steps, 10);
        // The first block and nine loop iterations.
        assert_eq!(t.buffer, vec![9]);
        // The instruction limit: the first block costs 1, the loop block 5 (access chain,
        // load, add, store, branch); a fourth iteration would need 21.
        assert_eq!(p.max_block_len(), 5);
        let t = p.run("main", &[], 1, &SpirvLimits::new(1_000, 1 + 5 * 3 + 4)).unwrap();
        assert_eq!(t.outcome, Outcome::StepLimit);
        assert_eq!(t.buffer, vec![3]);
        // Stop at a count.
        let limits = SpirvLimits { stop_at_trace_count: Some(5), ..SpirvLimits::new(1_000, 1_000_000) };
        let t = p.run("main", &[], 1, &limits).unwrap();
        assert_eq!((t.outcome, t.buffer.clone(), t.steps), (Outcome::StepLimit, vec![5], 6));
    }

    #[test]
    fn out_of_bounds_is_an_error() {
        let mut s = Skel::new();
        let zero = s.c(0);
        let two = s.c(2);
        let p = s.b.access_chain(s.p_u, None, s.dec, [zero, two]).unwrap();
        let d = s.b.load(s.u32t, None, p, None, []).unwrap();
        s.put(0, d);
        s.b.ret().unwrap();
        let words = s.words();
        assert_eq!(run(&words, &[1, 2, 3], 1).unwrap().buffer, vec![3]);
        let err = run(&words, &[1, 2], 1).unwrap_err();
        assert!(matches!(err, InterpError::OutOfBounds { buffer: "decisions", index: 2, len: 2, .. }), "{err}");
        // A zero-length trace buffer cannot take trace[0].
        assert!(matches!(run(&words, &[1, 2, 3], 0), Err(InterpError::OutOfBounds { buffer: "trace", .. })));
    }

    #[test]
    fn recursion_is_an_error() {
        let mut s = Skel::new();
        let fty = s.b.type_function(s.void, []);
        let rec = s.b.id();
        s.b.function_call(s.void, None, rec, []).unwrap();
        s.b.ret().unwrap();
        s.b.end_function().unwrap();
        s.b.begin_function(s.void, Some(rec), FunctionControl::NONE, fty).unwrap();
        s.b.begin_block(None).unwrap();
        s.b.function_call(s.void, None, rec, []).unwrap();
        s.b.ret().unwrap();
        let err = run(&s.words(), &[], 1).unwrap_err();
        assert!(matches!(&err, InterpError::Runtime { what, .. } if what.contains("recursive")), "{err}");
    }

    #[test]
    fn malformed_modules_are_errors() {
        assert!(matches!(ShapeProgram::parse(&[]), Err(InterpError::Parse(_))));
        assert!(ShapeProgram::parse(&[0x0723_0203, 0x0001_0300, 0, 10, 0, 0xdead_beef]).is_err());
        // A buffer at the wrong binding.
        let mut s = Skel::new();
        s.b.ret().unwrap();
        let main = s.main;
        let mut m = {
            s.b.end_function().unwrap();
            s.b.module()
        };
        for inst in &mut m.annotations {
            if inst.operands.get(1) == Some(&Operand::Decoration(Decoration::Binding)) {
                inst.operands[2] = Operand::LiteralBit32(7);
            }
        }
        let err = ShapeProgram::parse(&m.assemble()).unwrap_err();
        assert!(matches!(&err, InterpError::Malformed(w) if w.contains("binding")), "{err}");
        let _ = main;
    }

    /// Random word mutations of a valid module: parse and run must return, never panic.
    #[test]
    fn mutated_modules_never_panic() {
        let f = func(&[("e", &["h"]), ("h", &["b", "x", "y"]), ("b", &["h"]), ("x", &["h", "y"]), ("y", &[])]);
        let words = naive_shape_module(&f).unwrap();
        let mut rng = SplitMix64::new(7);
        let limits = SpirvLimits::new(2_000, 100_000);
        let mut parsed = 0;
        for _ in 0..3000 {
            let mut w = words.clone();
            for _ in 0..1 + rng.below(3) {
                let i = 5 + rng.below(w.len() - 5);
                w[i] = match rng.below(4) {
                    0 => rng.next_u32(),
                    1 => w[i] ^ (1 << rng.below(32)),
                    2 => rng.below(64) as u32,
                    _ => w[i].wrapping_add(1),
                };
            }
            if let Ok(p) = ShapeProgram::parse(&w) {
                parsed += 1;
                for d in [&[][..], &[1, 2, 3][..], &[1; 40][..]] {
                    let _ = p.run("f", d, 8, &limits);
                }
            }
        }
        assert!(parsed > 100, "only {parsed} mutants parsed");
    }
}
