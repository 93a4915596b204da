//! Graphviz pictures of an [`Scfg`] (the per-pass dumps of `--dump-cfg`).
//!
//! [`render_dot`] draws one graph, built with `graphviz-rust`'s DOT structures and printed by
//! its printer; the output depends on nothing but the graph, so it is byte-identical from run
//! to run. Nodes are named `s<N>` after their [`SBlock`] and labelled by [`Scfg::label`];
//! original blocks also show their layout number (`#N`), synthetic blocks are dashed and
//! grey, blocks named but missing from the layout red. Loop headers are circles and
//! selection headers triangles; before the marking pass (no block has a merge yet) the
//! targets of back edges are circles and blocks with two or more distinct successors
//! triangles. Control edges are solid and, where a block has several successor slots,
//! labelled with the slot number; a header's edge to its merge block is dashed (blue), a
//! loop header's edge to its continue target dotted (green); neither constrains the layout.
//!
//! [`write_pass_dot`] writes `FUNCTION.NN-PASS.dot`, and its SVG when Graphviz's `dot` is
//! installed.

use crate::passes::scfg::{Merge, Origin, SBlock, Scfg};
use graphviz_rust::dot_structures::{Attribute, Edge, EdgeTy, Graph, GraphAttributes, Id, Node, NodeId, Stmt, Vertex};
use graphviz_rust::printer::{DotPrinter, PrinterContext};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A DOT string literal.
fn quoted(s: &str) -> Id {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out.push('"');
    Id::Escaped(out)
}

fn plain(s: &str) -> Id {
    Id::Plain(s.to_string())
}

fn attr(k: &str, v: &str) -> Attribute {
    Attribute(plain(k), plain(v))
}

fn attr_q(k: &str, v: &str) -> Attribute {
    Attribute(plain(k), quoted(v))
}

fn node_id(b: SBlock) -> NodeId {
    NodeId(Id::Plain(format!("{b}")), None)
}

fn edge(from: SBlock, to: SBlock, attributes: Vec<Attribute>) -> Stmt {
    Stmt::Edge(Edge { ty: EdgeTy::Pair(Vertex::N(node_id(from)), Vertex::N(node_id(to))), attributes })
}

/// Blocks that are targets of retreating edges of a depth-first search from the entry.
fn back_edge_targets(scfg: &Scfg) -> HashSet<SBlock> {
    let mut targets = HashSet::new();
    let mut visited = HashSet::new();
    let mut on_stack = HashSet::new();
    if scfg.blocks.get(scfg.entry).is_none() {
        return targets;
    }
    let mut stack: Vec<(SBlock, usize)> = vec![(scfg.entry, 0)];
    visited.insert(scfg.entry);
    on_stack.insert(scfg.entry);
    while let Some(top) = stack.last_mut() {
        let (b, k) = *top;
        let succs = scfg.blocks.get(b).map(|x| x.term.succs()).unwrap_or(&[]);
        match succs.get(k) {
            Some(&s) => {
                top.1 += 1;
                if scfg.blocks.get(s).is_none() {
                    continue;
                }
                if visited.insert(s) {
                    on_stack.insert(s);
                    stack.push((s, 0));
                } else if on_stack.contains(&s) {
                    targets.insert(s);
                }
            }
            None => {
                on_stack.remove(&b);
                stack.pop();
            }
        }
    }
    targets
}

/// The graph in DOT, deterministic.
pub fn render_dot(scfg: &Scfg) -> String {
    let labels = crate::passes::labels::Labels::new(scfg);
    let label = |b: SBlock| labels.get(b);
    let in_layout: HashSet<SBlock> = scfg.layout.iter().copied().collect();
    // Nodes: the layout, then blocks named by it but missing from it, in order of mention.
    let mut nodes: Vec<SBlock> = Vec::new();
    let mut seen = HashSet::new();
    for &b in &scfg.layout {
        if seen.insert(b) {
            nodes.push(b);
        }
    }
    let mut extra = Vec::new();
    for &b in &scfg.layout {
        let Some(block) = scfg.blocks.get(b) else { continue };
        let mut named: Vec<SBlock> = block.term.succs().to_vec();
        match block.merge {
            Some(Merge::Selection { merge }) => named.push(merge),
            Some(Merge::Loop { merge, continue_target }) => named.extend([merge, continue_target]),
            None => {}
        }
        for t in named {
            if seen.insert(t) {
                extra.push(t);
            }
        }
    }
    let any_merge = scfg.layout.iter().any(|&b| scfg.blocks.get(b).is_some_and(|x| x.merge.is_some()));
    let loopish = if any_merge { HashSet::new() } else { back_edge_targets(scfg) };

    let mut stmts: Vec<Stmt> = vec![
        Stmt::GAttribute(GraphAttributes::Graph(vec![attr_q("label", &scfg.name), attr("labelloc", "t")])),
        Stmt::GAttribute(GraphAttributes::Node(vec![attr("shape", "box"), attr("fontname", "monospace")])),
        Stmt::GAttribute(GraphAttributes::Edge(vec![attr("fontname", "monospace")])),
    ];
    for &b in nodes.iter().chain(extra.iter()) {
        let mut attrs = Vec::new();
        let Some(block) = scfg.blocks.get(b) else {
            attrs.push(attr_q("label", &format!("{b}\n(no such block)")));
            attrs.push(attr("color", "red"));
            stmts.push(Stmt::Node(Node::new(node_id(b), attrs)));
            continue;
        };
        let mut text = label(b);
        if let Origin::Original(o) = block.origin {
            if let Some((_, n)) = scfg.original_numbers.iter().find(|(x, _)| *x == o) {
                text.push_str(&format!("\n#{n}"));
            }
        }
        if !in_layout.contains(&b) {
            text.push_str("\n(not in layout)");
        }
        attrs.push(attr_q("label", &text));
        let distinct: HashSet<SBlock> = block.term.succs().iter().copied().collect();
        let shape = match block.merge {
            Some(Merge::Loop { .. }) => Some("circle"),
            Some(Merge::Selection { .. }) => Some("triangle"),
            None if !any_merge && loopish.contains(&b) => Some("circle"),
            None if !any_merge && distinct.len() >= 2 => Some("triangle"),
            None => None,
        };
        if let Some(shape) = shape {
            attrs.push(attr("shape", shape));
        }
        if matches!(block.origin, Origin::Synthetic(_)) {
            attrs.push(attr_q("style", "dashed,filled"));
            attrs.push(attr("fillcolor", "grey92"));
            attrs.push(attr("color", "grey40"));
            attrs.push(attr("fontcolor", "grey25"));
        }
        if !in_layout.contains(&b) {
            attrs.push(attr("color", "red"));
        }
        if b == scfg.entry {
            attrs.push(attr("penwidth", "2"));
        }
        stmts.push(Stmt::Node(Node::new(node_id(b), attrs)));
    }
    for &b in &nodes {
        let Some(block) = scfg.blocks.get(b) else { continue };
        let succs = block.term.succs();
        for (slot, &t) in succs.iter().enumerate() {
            let attrs = if succs.len() >= 2 { vec![attr_q("label", &slot.to_string())] } else { Vec::new() };
            stmts.push(edge(b, t, attrs));
        }
        let structural =
            |style: &str, color: &str| vec![attr("style", style), attr("color", color), attr("constraint", "false")];
        match block.merge {
            Some(Merge::Selection { merge }) => stmts.push(edge(b, merge, structural("dashed", "blue"))),
            Some(Merge::Loop { merge, continue_target }) => {
                stmts.push(edge(b, merge, structural("dashed", "blue")));
                stmts.push(edge(b, continue_target, structural("dotted", "darkgreen")));
            }
            None => {}
        }
    }
    let graph = Graph::DiGraph { id: quoted(&scfg.name), strict: false, stmts };
    let mut ctx = PrinterContext::default();
    let mut out = graph.print(&mut ctx);
    out.push('\n');
    out
}

/// `name` with every character outside `[A-Za-z0-9_.-]` replaced by `_` (never empty).
pub fn sanitize_file_name(name: &str) -> String {
    let s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') { c } else { '_' }).collect();
    if s.is_empty() {
        "_".to_string()
    } else {
        s
    }
}

/// Writes `dir/FUNCTION.NN-PASS.dot` (creating `dir`) and, when Graphviz's `dot` runs,
/// `dir/FUNCTION.NN-PASS.svg` next to it. Returns the path of the `.dot` file.
pub fn write_pass_dot(dir: &Path, function: &str, index: usize, pass: &str, scfg: &Scfg) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let stem = format!("{}.{:02}-{}", sanitize_file_name(function), index, sanitize_file_name(pass));
    let dot_path = dir.join(format!("{stem}.dot"));
    std::fs::write(&dot_path, render_dot(scfg))?;
    let svg_path = dir.join(format!("{stem}.svg"));
    // Best effort: no `dot` on PATH, or a `dot` that fails, leaves just the .dot file.
    let _ = std::process::Command::new("dot")
        .arg("-Tsvg")
        .arg("-o")
        .arg(&svg_path)
        .arg(&dot_path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    Ok(dot_path)
}
