//! The pass manager: [`structurize`] runs the passes in the order of [`PASSES`] on one
//! function, hands the graph to [`Options::dump`] after each, and counts what they did
//! ([`Stats`]).

use super::edge_split;
use super::graph::Work;
use super::header_split;
use super::loop_continue;
use super::loop_entry;
use super::loop_exit;
use super::mark;
use super::phi;
use super::plan::{Plan, StructurizeError};
use super::scfg::{Origin, SBlock, Scfg, SyntheticKind, Term};
use super::selection;
use crate::cfg::error::CfgError;
use crate::cfg::function::Cfg;
use crate::ir::Function;

/// What the structurizer did to one function (the quality figures in `BENCHMARKS.md`).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    pub original_blocks: usize,
    pub blocks_added: usize,
    /// Dispatch blocks (ladder rungs that branch on a selector).
    pub ladders: usize,
    /// Loops whose continue target is unreachable, used only to give a region a break target.
    pub block_constructs: usize,
    pub duplicated_blocks: usize,
    /// `Function` storage class variables the output needs (0: every value is an SSA PHI).
    pub function_variables: usize,
    pub phis: usize,
}

/// The structurized function.
#[derive(Clone, Debug)]
pub struct Structured {
    pub scfg: Scfg,
    pub stats: Stats,
}

/// Called after every pass with the pass's number and name.
pub type DumpHook<'a> = &'a mut dyn FnMut(usize, &str, &Scfg);

#[derive(Default)]
pub struct Options<'a> {
    /// Receives the graph after every pass (`--dump-cfg`).
    pub dump: Option<DumpHook<'a>>,
    /// Check the passes' incremental bookkeeping against a recomputation as they go: the
    /// loop forest against the body walks (`loop_exit`, `selection`), and the selection
    /// pass's patched region trees after every rewrite. A disagreement is an internal error.
    /// For tests: O(region) per rewrite.
    pub verify: bool,
}

/// The passes in order. `mark` must leave the graph as it found it.
pub const PASSES: &[&str] =
    &["loop_continue", "loop_exit", "header_split", "selection", "edge_split", "loop_entry", "mark", "phi"];

/// Structurizes one function with a body.
pub fn structurize(func: &Function, options: Options<'_>) -> Result<Structured, StructurizeError> {
    structurize_checked(func, options, None)
}

/// [`structurize`], given the result of [`Cfg::check`] on `func` when the caller has it
/// already (`None`: checked here).
pub fn structurize_checked(
    func: &Function,
    mut options: Options<'_>,
    checked: Option<Result<(), CfgError>>,
) -> Result<Structured, StructurizeError> {
    if func.is_declaration() {
        return Err(StructurizeError::Internal {
            function: func.name.clone(),
            pass: "input",
            message: "the function has no body".into(),
        });
    }
    checked
        .unwrap_or_else(|| Cfg::check(func))
        .map_err(|source| StructurizeError::Cfg { function: func.name.clone(), source })?;
    let mut scfg = Scfg::from_function(func);
    let original_blocks = scfg.layout.len();
    let mut plan = Plan::default();
    let verify = options.verify;
    let mut dump = |index: usize, name: &str, scfg: &Scfg| {
        if let Some(hook) = options.dump.as_mut() {
            hook(index, name, scfg);
        }
    };
    dump(0, "input", &scfg);
    if is_single_block(&scfg) {
        // No edges: every pass would find nothing to do and PHI repair nothing to repair
        // (an entry block has no PHIs), so the graph is final as read. Most shaders are one
        // block, and the passes' tables would cost more than the rest of their translation.
        for (index, name) in PASSES.iter().enumerate() {
            dump(index + 1, name, &scfg);
        }
        let stats = Stats { original_blocks, ..Stats::default() };
        return Ok(Structured { scfg, stats });
    }
    let mut work = Work::new(&mut scfg);
    loop_continue::run(&mut work, &mut plan);
    dump(1, PASSES[0], work.scfg);
    loop_exit::run(&mut work, &mut plan, verify)?;
    dump(2, PASSES[1], work.scfg);
    header_split::run(&mut work, &mut plan);
    dump(3, PASSES[2], work.scfg);
    selection::run(&mut work, &mut plan, verify)?;
    dump(4, PASSES[3], work.scfg);
    edge_split::run(&mut work, &mut plan);
    dump(5, PASSES[4], work.scfg);
    loop_entry::run(&mut work, &mut plan);
    dump(6, PASSES[5], work.scfg);
    let edges_before = edge_list(work.scfg);
    mark::run(&mut work, &mut plan);
    if edge_list(work.scfg) != edges_before {
        return Err(StructurizeError::Internal {
            function: func.name.clone(),
            pass: "mark",
            message: "the marking pass changed the graph".into(),
        });
    }
    dump(7, PASSES[6], work.scfg);
    let phis = phi::repair(&mut scfg).map_err(|e| StructurizeError::Internal {
        function: func.name.clone(),
        pass: "phi",
        message: e.to_string(),
    })?;
    dump(8, PASSES[7], &scfg);
    let stats = Stats {
        original_blocks,
        blocks_added: scfg.layout.len().saturating_sub(original_blocks),
        ladders: scfg.layout.iter().filter(|&&b| matches!(scfg.blocks[b].term, Term::Dispatch { .. })).count(),
        block_constructs: scfg
            .layout
            .iter()
            .filter(|&&b| scfg.blocks[b].origin == Origin::Synthetic(SyntheticKind::BlockHeader))
            .count(),
        duplicated_blocks: 0,
        function_variables: 0,
        phis,
    };
    Ok(Structured { scfg, stats })
}

/// The graph is its entry block alone, without successors (a return or `unreachable`).
fn is_single_block(scfg: &Scfg) -> bool {
    scfg.layout.len() == 1 && scfg.blocks.len() == 1 && scfg.blocks[scfg.entry].term.succs().is_empty()
}

/// Every edge of the reachable graph with its slot, for the "marking changes nothing" check.
fn edge_list(scfg: &Scfg) -> Vec<(SBlock, usize, SBlock)> {
    let mut edges: Vec<(SBlock, usize, SBlock)> = Vec::new();
    for (b, block) in scfg.blocks.iter() {
        for (slot, &s) in block.term.succs().iter().enumerate() {
            edges.push((b, slot, s));
        }
    }
    edges
}
