//! Batch trace cases: what a GPU (or any runner of batch-mode shape modules) is given and
//! what it must give back, with no Vulkan in sight.
//!
//! A [`TraceCase`] is one function's batch-mode shape module (see `emit::shape`, "Batch
//! mode") plus `invocations` decision streams, laid out as the module reads them, and the
//! trace slices the original CFG writes for them under the same contract
//! ([`expected_slice`]: `original_trace` with at most `T − 1` block entries, count clamped
//! to `T − 1`). [`TraceCase::compare`] checks a runner's trace buffer against them word
//! for word and reports the first disagreeing invocation.
//!
//! [`CfgShape`] is the part of a function the oracle reads (block order, PHI counts,
//! terminators), serializable, so a host with LLVM can hand corpus functions to a machine
//! without it: [`CfgShape::to_function`] rebuilds a function that traces identically.

use super::trace::{block_numbers, original_trace, Limits};
use crate::fuzzing::mutate::SplitMix64;
use crate::fuzzing::structured_gen::{generate, ShapeGenConfig};
use cranelift_entity::{EntityRef, PrimaryMap};
use serde::{Deserialize, Serialize};
use std::fmt;
use untangle::emit::shape::{emit_shape_module_with, EmitError, ShapeBatch, ShapeOptions};
use untangle::ir::{Block, BlockId, Function, Inst, InstKind, Module, Terminator, Type, Types, Value};
use untangle::passes::{structurize, Options, Structured, StructurizeError};

/// The batch layout the GPU suites use: 64 streams per workgroup, streams of up to 64
/// decisions, traces of up to 511 entries; helpers inlined (with the `DontInline` hint,
/// NVIDIA 580.159.04 compiles ~30 times faster but some modules then never finish or lose
/// the device, e.g. random seeds 850 and 4106; under investigation).
pub const DEFAULT_BATCH: ShapeBatch =
    ShapeBatch { local_size: 64, decision_stride: 64, trace_stride: 512, out_of_line_helpers: false };

/// The generator's size class for random case `seed` (as the long CPU run,
/// `examples/fuzz_structurizer.rs`): a tenth up to 600 blocks, three tenths up to 40.
pub fn random_config(seed: u64) -> ShapeGenConfig {
    let mut c = ShapeGenConfig::default();
    match seed % 10 {
        0 => c.max_blocks = 600,
        1..=3 => c.max_blocks = 40,
        _ => {}
    }
    c
}

/// The random CFG of `seed` as a case with `invocations` streams; `max_blocks` caps the
/// size class (software drivers compile large shaders slowly).
pub fn random_case(
    seed: u64,
    batch: ShapeBatch,
    invocations: u32,
    max_blocks: Option<usize>,
) -> Result<TraceCase, CaseError> {
    let mut types = Types::default();
    let mut config = random_config(seed);
    if let Some(m) = max_blocks {
        config.max_blocks = config.max_blocks.min(m.max(4));
    }
    let func = generate(seed, &config, &mut types);
    TraceCase::new(format!("random seed {seed}"), &func, batch, invocations, seed)
}

/// The trace slice (`T = batch.trace_stride` words) that invocation with these decisions
/// must leave behind: the original run until it finishes or its slice is full.
pub fn expected_slice(func: &Function, decisions: &[u32], batch: &ShapeBatch) -> Vec<u32> {
    let t = batch.trace_stride as usize;
    let capacity = batch.trace_stride.saturating_sub(1);
    let d = &decisions[..decisions.len().min(batch.decision_stride as usize)];
    // Every block entry appends at least once: after `T − 1` entries the slice is full.
    let mut trace = original_trace(func, d, t, &Limits { max_block_entries: capacity as u64 });
    if let Some(count) = trace.buffer.first_mut() {
        *count = (*count).min(capacity);
    }
    trace.buffer
}

/// `n` decision streams of at most `stride` words, from `seed`: uniform words, small
/// values, all zeros, all ones, alternating bits, and a per-word mix of those, each with a
/// random length (the rest of the slice stays 0, which the contract reads as the end).
pub fn draw_streams(seed: u64, n: usize, stride: usize) -> Vec<Vec<u32>> {
    let mut rng = SplitMix64::new(seed ^ 0x6770_7574_7261_6365);
    (0..n)
        .map(|i| {
            let len = rng.below(stride + 1);
            super::trace_equiv::decision_words(&mut rng, i % 6, len)
        })
        .collect()
}

/// One function's batch run: module, inputs and expected output.
#[derive(Clone, Debug)]
pub struct TraceCase {
    /// What the case is called in reports (`random seed 17`, a corpus path, …).
    pub name: String,
    /// The entry point (the function's name).
    pub entry: String,
    pub words: Vec<u32>,
    pub batch: ShapeBatch,
    pub invocations: u32,
    /// `invocations · D` words.
    pub decisions: Vec<u32>,
    /// `invocations · T` words.
    pub expected: Vec<u32>,
    /// Original block labels by number, for reports.
    pub labels: Vec<String>,
}

/// Why a case could not be built.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("{0}")]
    Structurize(#[from] StructurizeError),
    #[error("emission: {0}")]
    Emit(#[from] EmitError),
    #[error("case `{name}`: {invocations} invocations of {stride} words do not fit in 32-bit indices")]
    TooLarge { name: String, invocations: u32, stride: u32 },
}

impl TraceCase {
    /// Structurizes `func`, emits its batch module and draws the streams.
    pub fn new(
        name: String,
        func: &Function,
        batch: ShapeBatch,
        invocations: u32,
        seed: u64,
    ) -> Result<Self, CaseError> {
        let s = structurize(func, Options::default())?;
        Self::from_structured(name, func, &s, batch, invocations, seed)
    }

    /// Like [`TraceCase::new`] from an already structurized graph (tests break it on purpose).
    pub fn from_structured(
        name: String,
        func: &Function,
        s: &Structured,
        batch: ShapeBatch,
        invocations: u32,
        seed: u64,
    ) -> Result<Self, CaseError> {
        let words = emit_shape_module_with(&Module::default(), &[(func, s)], &ShapeOptions { batch: Some(batch) })?;
        Self::from_words(name, func, words, batch, invocations, seed)
    }

    /// A case around a module emitted elsewhere (with the same `batch`).
    pub fn from_words(
        name: String,
        func: &Function,
        words: Vec<u32>,
        batch: ShapeBatch,
        invocations: u32,
        seed: u64,
    ) -> Result<Self, CaseError> {
        let too_large = |stride: u32| CaseError::TooLarge { name: name.clone(), invocations, stride };
        let (d, t) = (batch.decision_stride as usize, batch.trace_stride as usize);
        let words_of = |stride: u32| (invocations as u64).checked_mul(stride as u64).filter(|&w| w <= u32::MAX as u64);
        words_of(batch.decision_stride).ok_or_else(|| too_large(batch.decision_stride))?;
        words_of(batch.trace_stride).ok_or_else(|| too_large(batch.trace_stride))?;
        let streams = draw_streams(seed, invocations as usize, d);
        let mut decisions = vec![0u32; invocations as usize * d];
        let mut expected = Vec::with_capacity(invocations as usize * t);
        for (i, stream) in streams.iter().enumerate() {
            decisions[i * d..i * d + stream.len()].copy_from_slice(stream);
            expected.extend(expected_slice(func, stream, &batch));
        }
        Ok(TraceCase {
            name,
            entry: func.name.clone(),
            words,
            batch,
            invocations,
            decisions,
            expected,
            labels: labels(func),
        })
    }

    /// Workgroups to dispatch (`x`; `y = z = 1`).
    pub fn groups(&self) -> u32 {
        self.invocations.div_ceil(self.batch.local_size.max(1))
    }

    /// Compares a runner's whole trace buffer with the expected one.
    pub fn compare(&self, got: &[u32]) -> Result<(), Box<SliceMismatch>> {
        let t = self.batch.trace_stride as usize;
        let d = self.batch.decision_stride as usize;
        if got.len() != self.expected.len() {
            return Err(Box::new(SliceMismatch {
                case: self.name.clone(),
                entry: self.entry.clone(),
                invocation: None,
                decisions: Vec::new(),
                expected: Vec::new(),
                got: Vec::new(),
                got_len: got.len(),
                expected_len: self.expected.len(),
                labels: Vec::new(),
            }));
        }
        for i in 0..self.invocations as usize {
            let (want, have) = (&self.expected[i * t..(i + 1) * t], &got[i * t..(i + 1) * t]);
            if want != have {
                return Err(Box::new(SliceMismatch {
                    case: self.name.clone(),
                    entry: self.entry.clone(),
                    invocation: Some(i),
                    decisions: self.decisions[i * d..(i + 1) * d].to_vec(),
                    expected: want.to_vec(),
                    got: have.to_vec(),
                    got_len: got.len(),
                    expected_len: self.expected.len(),
                    labels: self.labels.clone(),
                }));
            }
        }
        Ok(())
    }
}

fn labels(func: &Function) -> Vec<String> {
    let numbers = block_numbers(func);
    let mut labels = vec![String::new(); numbers.len()];
    for (i, &n) in numbers.iter().enumerate() {
        labels[n as usize] = func.block_label(BlockId::new(i));
    }
    labels
}

/// The first invocation whose trace slice differs from the original's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceMismatch {
    pub case: String,
    pub entry: String,
    /// `None`: the buffer has the wrong length.
    pub invocation: Option<usize>,
    /// That invocation's decision slice, expected and actual trace slices.
    pub decisions: Vec<u32>,
    pub expected: Vec<u32>,
    pub got: Vec<u32>,
    pub got_len: usize,
    pub expected_len: usize,
    pub labels: Vec<String>,
}

impl std::error::Error for SliceMismatch {}

impl fmt::Display for SliceMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(i) = self.invocation else {
            return write!(
                f,
                "{} (@{}): trace buffer has {} words, expected {}",
                self.case, self.entry, self.got_len, self.expected_len
            );
        };
        let show = |v: u32| match self.labels.get(v as usize) {
            Some(l) => format!("{v}:{l}"),
            None => format!("{v}"),
        };
        // Stored entries: words 1..=count of each side.
        let stored = |v: &[u32]| (v[0] as usize).min(v.len() - 1);
        let (want_n, got_n) = (stored(&self.expected), stored(&self.got));
        let first =
            (1..=want_n.max(got_n)).find(|&k| self.expected.get(k) != self.got.get(k) || k > want_n || k > got_n);
        let used = self.decisions.iter().rposition(|&d| d != 0).map_or(0, |p| p + 1);
        writeln!(f, "{} (@{}): invocation {i} disagrees with the original CFG", self.case, self.entry)?;
        writeln!(f, "  decisions (trailing zeros dropped): {:?}", &self.decisions[..used])?;
        if self.expected[0] != self.got[0] {
            let note = if self.got[0] == untangle::emit::shape::STALLED { " (the stall guard fired)" } else { "" };
            writeln!(f, "  count: expected {}, got {}{note}", self.expected[0], self.got[0])?;
        }
        let at = first.unwrap_or(1);
        if let Some(k) = first {
            let side = |v: &[u32], n: usize| if k <= n { show(v[k]) } else { "(none)".to_string() };
            writeln!(
                f,
                "  first difference at entry {}: expected {}, got {}",
                k - 1,
                side(&self.expected, want_n),
                side(&self.got, got_n)
            )?;
        }
        let window = |v: &[u32], n: usize| {
            let from = at.saturating_sub(6).max(1);
            let to = (at + 7).min(n + 1);
            let mut s = if from > 1 { "… ".to_string() } else { String::new() };
            s.push_str(&(from..to).map(|k| show(v[k])).collect::<Vec<_>>().join(" "));
            s.push_str(if to <= n { " …" } else { " (end)" });
            s
        };
        writeln!(f, "  expected: {}", window(&self.expected, want_n))?;
        write!(f, "  got:      {}", window(&self.got, got_n))
    }
}

/// What the oracle reads of a function: blocks in layout-number order with their PHI
/// counts and terminators (targets as layout numbers).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CfgShape {
    pub name: String,
    pub blocks: Vec<BlockShape>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockShape {
    pub label: String,
    pub phis: u32,
    pub term: TermShape,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TermShape {
    Ret,
    Unreachable,
    Br(u32),
    CondBr(u32, u32),
    Switch { default: u32, cases: Vec<u32> },
}

impl CfgShape {
    /// The shape of `func` (a declaration gives no blocks).
    pub fn of(func: &Function) -> CfgShape {
        let numbers = block_numbers(func);
        let mut blocks: Vec<Option<BlockShape>> = vec![None; numbers.len()];
        if func.is_declaration() {
            return CfgShape { name: func.name.clone(), blocks: Vec::new() };
        }
        let num = |b: BlockId| numbers.get(b.index()).copied().unwrap_or(u32::MAX);
        for (id, block) in func.blocks.iter() {
            let phis =
                block.insts.iter().take_while(|&&i| func.insts.get(i).is_some_and(|inst| inst.kind.is_phi())).count()
                    as u32;
            let term = match &block.terminator {
                Terminator::Ret { .. } => TermShape::Ret,
                Terminator::Unreachable => TermShape::Unreachable,
                Terminator::Br { target } => TermShape::Br(num(*target)),
                Terminator::CondBr { if_true, if_false, .. } => TermShape::CondBr(num(*if_true), num(*if_false)),
                Terminator::Switch { default, cases, .. } => {
                    TermShape::Switch { default: num(*default), cases: cases.iter().map(|&(_, t)| num(t)).collect() }
                }
            };
            blocks[num(id) as usize] = Some(BlockShape { label: func.block_label(id), phis, term });
        }
        CfgShape { name: func.name.clone(), blocks: blocks.into_iter().flatten().collect() }
    }

    /// A function with this shape (PHIs without incoming values, `switch` case values
    /// `0..`); `original_trace` runs it exactly like the function the shape came from.
    /// Targets out of range are an error.
    pub fn to_function(&self, types: &mut Types) -> Result<Function, String> {
        let n = self.blocks.len() as u32;
        let target = |t: u32| {
            if t < n {
                Ok(BlockId::new(t as usize))
            } else {
                Err(format!("{}: target {t} of {n} blocks", self.name))
            }
        };
        let i32t = types.intern(Type::Int(32));
        let mut insts = PrimaryMap::new();
        let mut arena = PrimaryMap::new();
        for b in &self.blocks {
            let phis = (0..b.phis)
                .map(|_| {
                    insts.push(Inst { name: None, ty: i32t, kind: InstKind::Phi { incoming: Default::default() } })
                })
                .collect();
            let terminator = match &b.term {
                TermShape::Ret => Terminator::Ret { value: None },
                TermShape::Unreachable => Terminator::Unreachable,
                TermShape::Br(t) => Terminator::Br { target: target(*t)? },
                TermShape::CondBr(t, f) => {
                    Terminator::CondBr { cond: Value::Arg(0), if_true: target(*t)?, if_false: target(*f)? }
                }
                TermShape::Switch { default, cases } => Terminator::Switch {
                    value: Value::Arg(0),
                    default: target(*default)?,
                    cases: cases
                        .iter()
                        .enumerate()
                        .map(|(k, &t)| Ok((k as u64, target(t)?)))
                        .collect::<Result<_, String>>()?,
                },
            };
            arena.push(Block { name: Some(b.label.clone()), insts: phis, terminator });
        }
        let layout = arena.keys().collect();
        let mut f = crate::fuzzing::synthetic::cfg_function(self.name.clone(), types, arena, layout);
        f.insts = insts;
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::trace::Outcome;
    use crate::fuzzing::synthetic::from_adjacency;

    const B: ShapeBatch = ShapeBatch { local_size: 4, decision_stride: 8, trace_stride: 6, out_of_line_helpers: false };

    #[test]
    fn expected_slice_clamps_and_stops_when_full() {
        let mut types = Types::default();
        // entry → h; h: true → h, false → exit.
        let f = from_adjacency("f", &[("entry", &["h"]), ("h", &["h", "exit"]), ("exit", &[])], &mut types).unwrap();
        // Finishes within capacity: the plain trace.
        assert_eq!(expected_slice(&f, &[1, 0], &B), vec![4, 0, 1, 1, 2, 0]);
        // Overflows: count clamped to T − 1 = 5, entries are the first five.
        assert_eq!(expected_slice(&f, &[1; 8], &B), vec![5, 0, 1, 1, 1, 1]);
        // Decisions past D are not read (they would be 1s): the ninth read gives 0.
        let mut long = vec![1u32; 8];
        long.extend([1, 1, 1]);
        let big = ShapeBatch { trace_stride: 64, ..B };
        let t = expected_slice(&f, &long, &big);
        assert_eq!(t[0], 11, "entry + 9 loop entries + exit");
        // Infinite loop: the slice fills and the run stops.
        let g = from_adjacency("g", &[("entry", &["h"]), ("h", &["h"])], &mut types).unwrap();
        assert_eq!(expected_slice(&g, &[], &B), vec![5, 0, 1, 1, 1, 1]);
        let full = original_trace(&g, &[], 6, &Limits { max_block_entries: 5 });
        assert_eq!(full.outcome, Outcome::StepLimit);
    }

    #[test]
    fn cfg_shape_round_trips_traces() {
        let config = ShapeGenConfig::default();
        for seed in 0..40 {
            let mut types = Types::default();
            let f = generate(seed, &config, &mut types);
            let shape = CfgShape::of(&f);
            let json = serde_json::to_string(&shape).unwrap();
            let back: CfgShape = serde_json::from_str(&json).unwrap();
            let g = back.to_function(&mut types).unwrap();
            for (i, stream) in draw_streams(seed, 24, 32).iter().enumerate() {
                let want = original_trace(&f, stream, 300, &Limits { max_block_entries: 400 });
                let got = original_trace(&g, stream, 300, &Limits { max_block_entries: 400 });
                assert_eq!(want, got, "seed {seed}, stream {i}");
            }
        }
    }

    #[test]
    fn compare_reports_the_first_bad_invocation() {
        let mut types = Types::default();
        let f = generate(3, &ShapeGenConfig::default(), &mut types);
        let case = TraceCase::new("seed 3".into(), &f, B, 10, 3).unwrap();
        assert_eq!(case.groups(), 3);
        assert_eq!(case.decisions.len(), 80);
        assert!(case.compare(&case.expected).is_ok());
        let mut bad = case.expected.clone();
        bad[7 * 6 + 1] ^= 1;
        let m = case.compare(&bad).unwrap_err();
        assert_eq!(m.invocation, Some(7));
        assert!(m.to_string().contains("invocation 7"), "{m}");
        assert!(case.compare(&bad[1..]).unwrap_err().invocation.is_none());
    }

    #[test]
    fn streams_are_deterministic_and_bounded() {
        let a = draw_streams(9, 50, 16);
        assert_eq!(a, draw_streams(9, 50, 16));
        assert!(a.iter().all(|s| s.len() <= 16));
        assert!(a.iter().any(|s| s.len() > 8) && a.iter().any(|s| s.len() < 8));
        assert_ne!(a, draw_streams(10, 50, 16));
    }
}
