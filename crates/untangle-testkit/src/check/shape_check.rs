//! The whole shape-mode check of one module, shared by the corpus tests, the property
//! tests, the long fuzzing run and the cargo-fuzz target: structurize every function,
//! check the SPIR-V structured rules, run the structurized graph against the original on
//! random decision streams, emit the shape module, validate it with `spirv-val` (when a
//! validator is given), and run the emitted SPIR-V against the original.

use super::scfg_trace::{scfg_trace, ScfgTraceError};
use super::spirv_interp::{InterpError, ShapeProgram};
use super::spirv_val::SpirvVal;
use super::structured::{check_structured_with, StructuredViolations};
use super::trace::{original_trace, Limits};
use super::trace_equiv::{check_trace_equivalence, TraceMismatch};
use crate::fuzzing::mutate::SplitMix64;
use untangle::ir::{Function, Module};
use untangle::passes::{structurize, Options, Stats, Structured, StructurizeError};

/// What a passing check covered.
#[derive(Clone, Debug, Default)]
pub struct ShapeSummary {
    pub functions: usize,
    pub streams: usize,
    pub validated: bool,
    /// Sums over the functions.
    pub stats: Stats,
}

/// The first thing that went wrong.
#[derive(Debug, thiserror::Error)]
pub enum ShapeFailure {
    #[error("{0}")]
    Structurize(#[from] StructurizeError),
    #[error("{0}")]
    Rules(Box<StructuredViolations>),
    /// A loop header that is also another construct's merge: valid SPIR-V, but the
    /// structurizer promises none (`passes::loop_entry`: NVIDIA does not reconverge there).
    #[error("function `{function}`: loop header {header} is also the merge of {construct}")]
    MergeAtLoopHeader { function: String, header: String, construct: String },
    #[error("function `{function}`: structurized graph disagrees with the input on decisions {decisions:?} (trace length {trace_len}): expected {expected:?}, got {got}")]
    GraphTrace { function: String, decisions: Vec<u32>, trace_len: usize, expected: Vec<u32>, got: String },
    #[error("emission: {0}")]
    Emit(#[from] untangle::emit::shape::EmitError),
    #[error("spirv-val: {0}")]
    SpirvVal(String),
    #[error("SPIR-V interpreter: {0}")]
    Interp(#[from] InterpError),
    #[error("{0}")]
    Trace(Box<TraceMismatch>),
}

/// Checks every function of `module` with `streams` decision streams each.
pub fn check_module(
    module: &Module,
    streams: usize,
    seed: u64,
    validator: Option<&SpirvVal>,
) -> Result<ShapeSummary, ShapeFailure> {
    check_module_with(module, streams, seed, validator, false)
}

/// [`check_module`], structurizing with [`Options::verify`] set to `verify`: the passes
/// also check their incremental bookkeeping against a recomputation as they go (slower).
pub fn check_module_with(
    module: &Module,
    streams: usize,
    seed: u64,
    validator: Option<&SpirvVal>,
    verify: bool,
) -> Result<ShapeSummary, ShapeFailure> {
    let mut summary = ShapeSummary { streams, ..ShapeSummary::default() };
    let mut done: Vec<(&Function, Structured)> = Vec::new();
    for (_, func) in module.defined_functions() {
        let s = structurize(func, Options { verify, ..Options::default() })?;
        check_structured_with(&s.scfg, Some(func)).map_err(|v| ShapeFailure::Rules(Box::new(v)))?;
        check_no_merge_at_loop_header(&s.scfg)?;
        check_graph_traces(func, &s, streams, seed)?;
        add_stats(&mut summary.stats, &s.stats);
        done.push((func, s));
    }
    summary.functions = done.len();
    let pairs: Vec<(&Function, &Structured)> = done.iter().map(|(f, s)| (*f, s)).collect();
    let words = untangle::emit::shape::emit_shape_module(module, &pairs)?;
    if let Some(v) = validator {
        v.validate(&words, "vulkan1.1").map_err(ShapeFailure::SpirvVal)?;
        summary.validated = true;
    }
    let program = ShapeProgram::parse(&words)?;
    for (func, _) in &done {
        check_trace_equivalence(func, &program, streams, seed).map_err(|m| ShapeFailure::Trace(Box::new(m)))?;
    }
    Ok(summary)
}

/// `passes::loop_entry`'s guarantee: no loop header is the merge block of a construct.
pub fn check_no_merge_at_loop_header(scfg: &untangle::passes::Scfg) -> Result<(), ShapeFailure> {
    use untangle::passes::Merge;
    let labels = untangle::passes::labels::Labels::new(scfg);
    for &h in &scfg.layout {
        let merge = match scfg.blocks[h].merge {
            Some(Merge::Selection { merge }) | Some(Merge::Loop { merge, .. }) => merge,
            None => continue,
        };
        if matches!(scfg.blocks[merge].merge, Some(Merge::Loop { .. })) {
            return Err(ShapeFailure::MergeAtLoopHeader {
                function: scfg.name.clone(),
                header: labels.get(merge),
                construct: labels.get(h),
            });
        }
    }
    Ok(())
}

/// Runs the structurized graph itself (no SPIR-V) against the original: a failure here
/// points at the structurizer rather than the emitter.
pub fn check_graph_traces(func: &Function, s: &Structured, streams: usize, seed: u64) -> Result<(), ShapeFailure> {
    let mut rng = SplitMix64::new(seed ^ 0x5eed_6a4f);
    let limits = Limits { max_block_entries: 4096 };
    for stream in 0..streams {
        let len = rng.below(64);
        let decisions: Vec<u32> = (0..len)
            .map(|_| match stream % 4 {
                0 => rng.next_u32() % 8,
                1 => rng.next_u32(),
                2 => (rng.next_u32() % 3).min(1),
                _ => 1,
            })
            .collect();
        let trace_len = if stream % 3 == 0 { 6 } else { 8192 };
        let expected = original_trace(func, &decisions, trace_len, &limits);
        let got = scfg_trace(func, &s.scfg, &decisions, trace_len, &limits);
        let same = matches!(&got, Ok(t) if *t == expected);
        if !same {
            return Err(ShapeFailure::GraphTrace {
                function: func.name.clone(),
                decisions,
                trace_len,
                expected: expected.buffer.iter().copied().take(64).collect(),
                got: match got {
                    Ok(t) => format!("{:?}", t.buffer.iter().take(64).collect::<Vec<_>>()),
                    Err(e @ ScfgTraceError::Undefined { .. }) | Err(e) => e.to_string(),
                },
            });
        }
    }
    Ok(())
}

pub fn add_stats(total: &mut Stats, s: &Stats) {
    total.original_blocks += s.original_blocks;
    total.blocks_added += s.blocks_added;
    total.ladders += s.ladders;
    total.block_constructs += s.block_constructs;
    total.duplicated_blocks += s.duplicated_blocks;
    total.function_variables += s.function_variables;
    total.phis += s.phis;
}
