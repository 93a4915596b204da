//! Reports for `untangle cfg`: text, JSON (schema in `docs/cli-json.md`, section
//! `## untangle cfg --json`) and Graphviz DOT.
//!
//! Blocks are numbered by their position in the function's IR layout; `idom`/`ipdom` are
//! such indices or `null` (`ipdom: null` is the virtual exit; unreachable blocks have both
//! `null` and are listed under `unreachable`). Every list is sorted, so output is
//! deterministic. DOT is written as plain text (no `graphviz-rust`: the format is three
//! lines of syntax and the crate would pull in a parser we do not need).

use super::error::CfgError;
use super::function::Cfg;
use crate::ir::{BlockId, Function, Module, Terminator};
use cranelift_entity::{EntityRef, SecondaryMap};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One analysed function, everything as layout indices.
struct FunctionReport {
    name: String,
    blocks: Vec<String>,
    unreachable: Vec<usize>,
    exits: Vec<usize>,
    idom: Vec<Option<usize>>,
    ipdom: Vec<Option<usize>>,
    back_edges: Vec<(usize, usize)>,
    virtual_exit_edges: Vec<usize>,
    loops: Vec<LoopReport>,
    df: Vec<Vec<usize>>,
    pdf: Vec<Vec<usize>>,
}

struct LoopReport {
    header: usize,
    continue_block: Option<usize>,
    latches: Vec<usize>,
    parent: Option<usize>,
    depth: u32,
    body: Vec<usize>,
    exits: Vec<usize>,
}

fn analyse(func: &Function) -> Result<FunctionReport, CfgError> {
    let cfg = Cfg::new(func)?;
    let mut index: SecondaryMap<BlockId, usize> = SecondaryMap::with_default(usize::MAX);
    for (i, &b) in cfg.blocks().iter().enumerate() {
        index[b] = i;
    }
    let ix = |b: BlockId| index[b];
    let sorted = |it: &mut dyn Iterator<Item = BlockId>| {
        let mut v: Vec<usize> = it.map(ix).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let blocks = cfg.blocks().iter().map(|&b| func.block_label(b)).collect();
    let unreachable = sorted(&mut cfg.blocks().iter().copied().filter(|&b| !cfg.is_reachable(b)));
    let exits = sorted(&mut cfg.exits());
    let idom = cfg.blocks().iter().map(|&b| cfg.idom(b).map(ix)).collect();
    let ipdom = cfg.blocks().iter().map(|&b| cfg.ipdom(b).map(ix)).collect();
    let mut back_edges: Vec<(usize, usize)> = cfg.back_edges().map(|(u, v)| (ix(u), ix(v))).collect();
    back_edges.sort_unstable();
    let virtual_exit_edges = sorted(&mut cfg.postdom().virtual_exit_sources().iter().copied());
    // Loop ids are positions in header RPO, the order in which loops are listed.
    let (bodies, loop_exits) = (cfg.loop_bodies(), cfg.loop_exits());
    let loops = cfg
        .loops()
        .iter()
        .zip(bodies.into_iter().zip(loop_exits))
        .map(|((_, lp), (body, exits))| LoopReport {
            header: ix(lp.header),
            continue_block: lp.continue_block().map(ix),
            latches: sorted(&mut lp.latches.iter().copied()),
            parent: lp.parent.map(|p| p.index()),
            depth: lp.depth,
            body: sorted(&mut body.into_iter()),
            exits: sorted(&mut exits.into_iter()),
        })
        .collect();
    let dfs = cfg.dominance_frontiers();
    let pdfs = cfg.post_dominance_frontiers();
    let df = cfg.blocks().iter().map(|&b| sorted(&mut dfs.get(b).iter().copied())).collect();
    let pdf = cfg.blocks().iter().map(|&b| sorted(&mut pdfs.get(b).iter().copied())).collect();
    Ok(FunctionReport {
        name: func.name.clone(),
        blocks,
        unreachable,
        exits,
        idom,
        ipdom,
        back_edges,
        virtual_exit_edges,
        loops,
        df,
        pdf,
    })
}

fn list(v: &[usize]) -> String {
    if v.is_empty() {
        "-".to_string()
    } else {
        v.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",")
    }
}

fn opt(v: Option<usize>) -> String {
    v.map_or_else(|| "-".to_string(), |i| i.to_string())
}

/// Human-readable analysis of every defined function; fails on the first irreducible one.
pub fn render_text(m: &Module) -> Result<String, CfgError> {
    let mut out = String::new();
    for (_, func) in m.defined_functions() {
        let r = analyse(func)?;
        let _ = writeln!(
            out,
            "function {}: {} blocks, {} unreachable, {} loops",
            r.name,
            r.blocks.len(),
            r.unreachable.len(),
            r.loops.len()
        );
        let width = r.blocks.iter().map(|b| b.len()).max().unwrap_or(5).max(5);
        let _ = writeln!(out, "  {:>4}  {:<width$}  {:>5}  {:>5}  {:<16}  PDF", "#", "block", "idom", "ipdom", "DF");
        for i in 0..r.blocks.len() {
            let (idom, ipdom) = if r.unreachable.binary_search(&i).is_ok() {
                ("unr".to_string(), "unr".to_string())
            } else {
                (opt(r.idom[i]), r.ipdom[i].map_or_else(|| "exit".to_string(), |x| x.to_string()))
            };
            let _ = writeln!(
                out,
                "  {:>4}  {:<width$}  {:>5}  {:>5}  {:<16}  {}",
                i,
                r.blocks[i],
                idom,
                ipdom,
                list(&r.df[i]),
                list(&r.pdf[i])
            );
        }
        let edges: Vec<String> = r.back_edges.iter().map(|(u, v)| format!("{u}->{v}")).collect();
        let _ = writeln!(out, "  back edges: {}", if edges.is_empty() { "-".into() } else { edges.join(", ") });
        if !r.virtual_exit_edges.is_empty() {
            let _ = writeln!(out, "  virtual exit edges (infinite loops): {}", list(&r.virtual_exit_edges));
        }
        for (i, l) in r.loops.iter().enumerate() {
            let _ = writeln!(
                out,
                "  loop {i}: header {} ({}), continue {}, latches {}, depth {}, parent {}, body {{{}}}, exits {{{}}}",
                l.header,
                r.blocks[l.header],
                opt(l.continue_block),
                list(&l.latches),
                l.depth,
                opt(l.parent),
                list(&l.body),
                list(&l.exits)
            );
        }
    }
    Ok(out)
}

/// The JSON report (schema: `docs/cli-json.md`, `## untangle cfg --json`).
pub fn render_json(m: &Module) -> Result<Value, CfgError> {
    let mut functions = Vec::new();
    for (_, func) in m.defined_functions() {
        let r = analyse(func)?;
        let loops: Vec<Value> = r
            .loops
            .iter()
            .map(|l| {
                json!({
                    "header": l.header,
                    "continue": l.continue_block,
                    "latches": l.latches,
                    "parent": l.parent,
                    "depth": l.depth,
                    "body": l.body,
                    "exits": l.exits,
                })
            })
            .collect();
        functions.push(json!({
            "name": r.name,
            "blocks": r.blocks,
            "entry": 0,
            "unreachable": r.unreachable,
            "exits": r.exits,
            "idom": r.idom,
            "ipdom": r.ipdom,
            "back_edges": r.back_edges.iter().map(|&(u, v)| json!([u, v])).collect::<Vec<_>>(),
            "virtual_exit_edges": r.virtual_exit_edges,
            "loops": loops,
            "dominance_frontiers": r.df,
            "post_dominance_frontiers": r.pdf,
        }));
    }
    Ok(json!({ "functions": functions }))
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The input CFG of `func` as DOT: one box per block in layout order, one arrow per
/// terminator edge, labelled `T`/`F` for conditional branches and with the case value (or
/// `default`) for switches.
pub fn function_dot(func: &Function) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", dot_escape(&func.name));
    let _ = writeln!(out, "  node [shape=box, fontname=\"monospace\"];");
    for &b in &func.layout {
        let _ = writeln!(out, "  b{} [label=\"{}\"];", b.index(), dot_escape(&func.block_label(b)));
    }
    for &b in &func.layout {
        let edge = |out: &mut String, to: BlockId, label: &str| {
            let _ = if label.is_empty() {
                writeln!(out, "  b{} -> b{};", b.index(), to.index())
            } else {
                writeln!(out, "  b{} -> b{} [label=\"{}\"];", b.index(), to.index(), label)
            };
        };
        match &func.blocks[b].terminator {
            Terminator::Br { target } => edge(&mut out, *target, ""),
            Terminator::CondBr { if_true, if_false, .. } => {
                edge(&mut out, *if_true, "T");
                edge(&mut out, *if_false, "F");
            }
            Terminator::Switch { default, cases, .. } => {
                edge(&mut out, *default, "default");
                for (v, t) in cases {
                    edge(&mut out, *t, &v.to_string());
                }
            }
            Terminator::Ret { .. } | Terminator::Unreachable => {}
        }
    }
    out.push_str("}\n");
    out
}

/// A file name for a function: its name with anything outside `[A-Za-z0-9_.-]` replaced by
/// `_` (LLVM names may hold quotes, slashes or spaces).
fn file_stem(name: &str) -> String {
    let s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with('.') {
        format!("_{s}")
    } else {
        s
    }
}

/// Writes `FUNCTION.dot` for every defined function into `dir` (created if missing).
/// Names that collide after sanitising get a `.2`, `.3`, … suffix. Returns the paths.
pub fn write_dot(m: &Module, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut used = std::collections::HashSet::new();
    let mut written = Vec::new();
    for (_, func) in m.defined_functions() {
        let stem = file_stem(&func.name);
        let mut name = format!("{stem}.dot");
        let mut k = 2;
        while !used.insert(name.clone()) {
            name = format!("{stem}.{k}.dot");
            k += 1;
        }
        let path = dir.join(&name);
        std::fs::write(&path, function_dot(func))?;
        written.push(path);
    }
    Ok(written)
}
