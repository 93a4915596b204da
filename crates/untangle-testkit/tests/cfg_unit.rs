//! Hand-built CFGs with known answers: the blog's example, irreducible and endless loops,
//! unreachable blocks, each rewrite's preconditions and PHI handling, and the reports.

use untangle::cfg::report::{render_json, render_text, write_dot};
use untangle::cfg::{Cfg, CfgError};
use untangle::ir::{BlockId, Function, Inst, InstKind, Module, Type, Types, Value};
use untangle_testkit::fuzzing::synthetic::from_adjacency;

fn func(blocks: &[(&str, &[&str])]) -> Function {
    from_adjacency("f", blocks, &mut Types::default()).expect("valid adjacency")
}

fn id(f: &Function, name: &str) -> BlockId {
    f.block_by_name(name).expect("block exists")
}

fn names(f: &Function, blocks: impl IntoIterator<Item = BlockId>) -> Vec<String> {
    let mut v: Vec<String> = blocks.into_iter().map(|b| f.block_label(b)).collect();
    v.sort();
    v
}

/// The first CFG of part 5 of the blog series (labels as there).
fn blog_example() -> Function {
    func(&[
        ("entry", &["1", "2"]),
        ("2", &["1"]),
        ("1", &["3", "4"]),
        ("3", &["5", "6"]),
        ("4", &["7", "8"]),
        ("7", &["9"]),
        ("8", &["9"]),
        ("5", &["9"]),
        ("6", &["9"]),
        ("9", &[]),
    ])
}

#[test]
fn blog_example_facts() {
    let f = blog_example();
    let cfg = Cfg::new(&f).unwrap();
    let b = |n| id(&f, n);
    // "4 can reach 9 by branching via either 7 or 8, but 4 cannot reach 6."
    assert!(cfg.reaches(b("4"), b("9")));
    assert!(!cfg.reaches(b("4"), b("6")));
    // "For block 4, 9 is in the domination frontier."
    let df = cfg.dominance_frontiers();
    assert_eq!(names(&f, df.get(b("4")).iter().copied()), ["9"]);
    assert_eq!(cfg.idom(b("1")), Some(b("entry")));
    assert_eq!(cfg.idom(b("9")), Some(b("1")));
    assert_eq!(cfg.ipdom(b("entry")), Some(b("1")));
    assert_eq!(cfg.ipdom(b("9")), None);
    // 7 is control dependent on 4.
    let pdf = cfg.post_dominance_frontiers();
    assert_eq!(names(&f, pdf.get(b("7")).iter().copied()), ["4"]);
    assert!(cfg.reaches_avoiding(b("1"), b("9"), b("4")));
    assert!(!cfg.reaches_avoiding(b("4"), b("9"), b("7")) || cfg.reaches(b("8"), b("9")));
    assert!(!cfg.reaches_avoiding(b("entry"), b("4"), b("1")));
    assert_eq!(cfg.common_dominator([b("5"), b("8")]), Some(b("1")));
    assert_eq!(cfg.common_post_dominator([b("3"), b("4")]), Some(b("9")));
    assert!(cfg.loops().is_empty());
    assert_eq!(cfg.back_edges().count(), 0);
}

#[test]
fn irreducible_region_is_a_typed_error_naming_its_entries() {
    let f = func(&[("entry", &["a", "b"]), ("a", &["b", "x"]), ("b", &["a"]), ("x", &[])]);
    match Cfg::new(&f) {
        Err(CfgError::Irreducible { function, blocks }) => {
            assert_eq!(function, "f");
            assert_eq!(blocks, ["a", "b"]);
        }
        other => panic!("expected an irreducible error, got {other:?}"),
    }
    // And it converts into the crate error.
    let e: untangle::Error = Cfg::new(&f).unwrap_err().into();
    assert!(e.to_string().contains("irreducible"), "{e}");
}

#[test]
fn endless_loop_gets_virtual_exit_edges_from_its_latch() {
    // while (true) { if (c) a else b; }  with the return after it unreachable.
    let f = func(&[
        ("entry", &["h"]),
        ("h", &["a", "b"]),
        ("a", &["latch"]),
        ("b", &["latch"]),
        ("latch", &["h"]),
        ("after", &[]),
    ]);
    let cfg = Cfg::new(&f).unwrap();
    let b = |n| id(&f, n);
    assert_eq!(cfg.postdom().virtual_exit_sources(), [b("latch")]);
    assert_eq!(cfg.ipdom(b("latch")), None);
    assert_eq!(cfg.ipdom(b("a")), Some(b("latch")));
    assert_eq!(cfg.ipdom(b("h")), Some(b("latch")));
    assert_eq!(cfg.ipdom(b("entry")), Some(b("h")));
    // The unreachable return is kept, without any analysis fact.
    assert!(!cfg.is_reachable(b("after")));
    assert_eq!(cfg.idom(b("after")), None);
    assert!(!cfg.postdom().contains(b("after")));
    assert_eq!(cfg.blocks().len(), 6);
    assert_eq!(cfg.exits().count(), 0);
    let l = cfg.loops().loop_of_header(b("h")).unwrap();
    assert_eq!(cfg.loops().get(l).continue_block(), Some(b("latch")));
    assert!(cfg.loops().get(l).exits.is_empty());
}

#[test]
fn nested_loops_with_multi_level_break() {
    let f = func(&[
        ("entry", &["outer"]),
        ("outer", &["inner", "done"]),
        ("inner", &["body", "olatch"]),
        ("body", &["inner", "done"]), // continue inner, or break out of both
        ("olatch", &["outer"]),
        ("done", &[]),
    ]);
    let cfg = Cfg::new(&f).unwrap();
    let b = |n| id(&f, n);
    let forest = cfg.loops();
    let outer = forest.loop_of_header(b("outer")).unwrap();
    let inner = forest.loop_of_header(b("inner")).unwrap();
    assert_eq!(forest.get(inner).parent, Some(outer));
    assert_eq!(forest.get(inner).depth, 2);
    assert_eq!(names(&f, forest.body(inner)), ["body", "inner"]);
    assert_eq!(names(&f, forest.body(outer)), ["body", "inner", "olatch", "outer"]);
    assert_eq!(names(&f, forest.get(inner).exits.iter().copied()), ["done", "olatch"]);
    assert_eq!(names(&f, forest.get(outer).exits.iter().copied()), ["done"]);
    assert!(cfg.is_back_edge(b("body"), b("inner")));
    assert!(!cfg.reaches(b("body"), b("inner")));
}

#[test]
fn declarations_have_no_cfg() {
    let mut f = func(&[("entry", &[])]);
    f.layout.clear();
    assert!(matches!(Cfg::new(&f), Err(CfgError::Declaration { .. })));
}

fn phi(f: &mut Function, types: &mut Types, block: BlockId, incoming: &[(u32, BlockId)]) {
    let ty = types.intern(Type::Int(32));
    let i = f.insts.push(Inst {
        name: None,
        ty,
        kind: InstKind::Phi { incoming: incoming.iter().map(|&(v, b)| (Value::Arg(v), b)).collect() },
    });
    f.blocks[block].insts.insert(0, i);
}

fn phi_incoming(f: &Function, block: BlockId) -> Vec<(Value, BlockId)> {
    match &f.insts[f.blocks[block].insts[0]].kind {
        InstKind::Phi { incoming } => incoming.to_vec(),
        _ => panic!("no PHI"),
    }
}

#[test]
fn split_edge_and_split_block_rename_phi_incoming_blocks() {
    let mut types = Types::default();
    let mut f = from_adjacency("f", &[("entry", &["a", "j"]), ("a", &["j"]), ("j", &[])], &mut types).unwrap();
    let (entry, a, j) = (id(&f, "entry"), id(&f, "a"), id(&f, "j"));
    phi(&mut f, &mut types, j, &[(0, entry), (1, a)]);
    let mut cfg = Cfg::new(&f).unwrap();
    let n = cfg.split_edge(&mut f, entry, j).unwrap();
    assert_eq!(phi_incoming(&f, j), [(Value::Arg(0), n), (Value::Arg(1), a)]);
    assert_eq!(cfg.idom(n), Some(entry));
    assert_eq!(cfg.ipdom(n), Some(j));
    cfg.verify_against_recompute(&f).unwrap();
    let m = cfg.split_block(&mut f, a, 0).unwrap();
    assert_eq!(phi_incoming(&f, j), [(Value::Arg(0), n), (Value::Arg(1), m)]);
    assert_eq!(cfg.idom(m), Some(a));
    cfg.verify_against_recompute(&f).unwrap();
    // A PHI cannot be split off its block.
    assert!(matches!(cfg.split_block(&mut f, j, 0), Err(CfgError::InvalidRewrite { .. })));
    assert!(matches!(cfg.split_block(&mut f, j, 2), Err(CfgError::InvalidRewrite { .. })));
    let tail = cfg.split_block(&mut f, j, 1).unwrap();
    assert_eq!(f.blocks[j].insts.len(), 1);
    assert_eq!(cfg.ipdom(j), Some(tail));
    cfg.verify_against_recompute(&f).unwrap();
    assert_eq!(cfg.stats().recomputed, 0);
}

#[test]
fn remove_passthrough_moves_phi_values_and_refuses_conflicts() {
    let mut types = Types::default();
    let blocks: &[(&str, &[&str])] = &[("entry", &["p", "q"]), ("q", &["p", "t"]), ("p", &["t"]), ("t", &[])];
    let mut f = from_adjacency("f", blocks, &mut types).unwrap();
    let (entry, q, p, t) = (id(&f, "entry"), id(&f, "q"), id(&f, "p"), id(&f, "t"));
    phi(&mut f, &mut types, t, &[(0, p), (1, q)]);
    let mut cfg = Cfg::new(&f).unwrap();
    let before = f.clone();
    // q would bring both %0 (through p) and %1 (directly).
    assert!(matches!(cfg.remove_passthrough(&mut f, p), Err(CfgError::PhiConflict { .. })));
    assert!(f == before);
    cfg.verify_against_recompute(&f).unwrap();
    // With agreeing values it goes through: p's value arrives from each predecessor.
    let mut f = from_adjacency("f", blocks, &mut types).unwrap();
    phi(&mut f, &mut types, t, &[(0, p), (0, q)]);
    let mut cfg = Cfg::new(&f).unwrap();
    cfg.remove_passthrough(&mut f, p).unwrap();
    assert_eq!(phi_incoming(&f, t), [(Value::Arg(0), q), (Value::Arg(0), entry)]);
    assert!(!f.layout.contains(&p));
    assert_eq!(cfg.idom(t), Some(entry));
    cfg.verify_against_recompute(&f).unwrap();
    // The entry and blocks with instructions are not pass-throughs.
    assert!(matches!(cfg.remove_passthrough(&mut f, entry), Err(CfgError::InvalidRewrite { .. })));
    assert!(matches!(cfg.remove_passthrough(&mut f, t), Err(CfgError::InvalidRewrite { .. })));
}

#[test]
fn merge_back_edges_gives_one_continue_block() {
    let mut f = func(&[
        ("entry", &["h"]),
        ("h", &["a", "exit"]),
        ("a", &["h", "b"]), // continue
        ("b", &["h"]),      // end of body
        ("exit", &[]),
    ]);
    // With the built-in check on, a divergence would panic inside the rewrite (debug builds).
    let options = untangle::cfg::CfgOptions { verify_rewrites: true, ..Default::default() };
    let mut cfg = Cfg::with_options(&f, options).unwrap();
    let h = id(&f, "h");
    let l = cfg.loops().loop_of_header(h).unwrap();
    assert_eq!(cfg.loops().get(l).continue_block(), None);
    let created = cfg.merge_back_edges(&mut f).unwrap();
    assert_eq!(created.len(), 1);
    let c = created[0];
    assert_eq!(cfg.loops().get(l).continue_block(), Some(c));
    assert_eq!(cfg.back_edges().collect::<Vec<_>>(), [(c, h)]);
    assert_eq!(cfg.idom(c), Some(id(&f, "a")));
    cfg.verify_against_recompute(&f).unwrap();
    assert_eq!(cfg.stats().incremental, 1);
    assert!(cfg.merge_back_edges(&mut f).unwrap().is_empty());
}

#[test]
fn mixed_insertion_that_would_be_irreducible_is_refused() {
    // h has two forward entries (x, y) and a latch; taking x and the latch but not y would
    // give the loop two entries.
    let mut f = func(&[
        ("entry", &["x", "y"]),
        ("x", &["h"]),
        ("y", &["h"]),
        ("h", &["l", "exit"]),
        ("l", &["h"]),
        ("exit", &[]),
    ]);
    let mut cfg = Cfg::new(&f).unwrap();
    let (x, y, h, l) = (id(&f, "x"), id(&f, "y"), id(&f, "h"), id(&f, "l"));
    let before = f.clone();
    assert!(matches!(cfg.insert_block_on_edges(&mut f, &[x, l], h), Err(CfgError::InvalidRewrite { .. })));
    assert!(f == before);
    assert!(matches!(cfg.split_edge(&mut f, x, l), Err(CfgError::NoSuchEdge { .. })));
    // All entries plus the latch: the new block becomes the header.
    let n = cfg.insert_block_on_edges(&mut f, &[x, y, l], h).unwrap();
    assert!(cfg.loops().is_header(n));
    assert!(!cfg.loops().is_header(h));
    cfg.verify_against_recompute(&f).unwrap();
}

#[test]
fn redirect_that_would_make_the_graph_irreducible_changes_nothing() {
    let mut f = func(&[("entry", &["h", "x"]), ("h", &["b", "exit"]), ("b", &["h"]), ("x", &["exit"]), ("exit", &[])]);
    let mut cfg = Cfg::new(&f).unwrap();
    let (x, b, exit) = (id(&f, "x"), id(&f, "b"), id(&f, "exit"));
    let before = f.clone();
    assert!(matches!(cfg.redirect_edge(&mut f, x, exit, b), Err(CfgError::Irreducible { .. })));
    assert!(f == before);
    cfg.verify_against_recompute(&f).unwrap();
    let h = id(&f, "h");
    cfg.redirect_edge(&mut f, x, exit, h).unwrap();
    assert_eq!(cfg.idom(h), Some(id(&f, "entry")));
    cfg.verify_against_recompute(&f).unwrap();
}

fn module_of(f: Function) -> Module {
    let mut m = Module::default();
    m.functions.push(f);
    m
}

#[test]
fn reports_list_every_fact_by_layout_index() {
    let f = func(&[("entry", &["h"]), ("h", &["body", "exit"]), ("body", &["h"]), ("exit", &[]), ("dead", &["exit"])]);
    let m = module_of(f);
    let j = render_json(&m).unwrap();
    let fj = &j["functions"][0];
    assert_eq!(fj["name"], "f");
    assert_eq!(fj["blocks"], serde_json::json!(["entry", "h", "body", "exit", "dead"]));
    assert_eq!(fj["idom"], serde_json::json!([null, 0, 1, 1, null]));
    assert_eq!(fj["ipdom"], serde_json::json!([1, 3, 1, null, null]));
    assert_eq!(fj["unreachable"], serde_json::json!([4]));
    assert_eq!(fj["back_edges"], serde_json::json!([[2, 1]]));
    assert_eq!(fj["loops"][0]["header"], 1);
    assert_eq!(fj["loops"][0]["continue"], 2);
    assert_eq!(fj["loops"][0]["body"], serde_json::json!([1, 2]));
    assert_eq!(fj["loops"][0]["exits"], serde_json::json!([3]));
    assert_eq!(fj["dominance_frontiers"][2], serde_json::json!([1]));
    assert_eq!(fj["post_dominance_frontiers"][2], serde_json::json!([1]));
    // The example in docs/cli-json.md, verbatim.
    let documented: serde_json::Value = serde_json::from_str(
        r#"{"functions": [{
  "name": "f", "blocks": ["entry", "h", "body", "exit", "dead"], "entry": 0,
  "unreachable": [4], "exits": [3],
  "idom": [null, 0, 1, 1, null], "ipdom": [1, 3, 1, null, null],
  "back_edges": [[2, 1]], "virtual_exit_edges": [],
  "loops": [{"header": 1, "continue": 2, "latches": [2], "parent": null, "depth": 1, "body": [1, 2], "exits": [3]}],
  "dominance_frontiers": [[], [1], [1], [], []],
  "post_dominance_frontiers": [[], [1], [1], [], []]
}]}"#,
    )
    .unwrap();
    assert_eq!(j, documented);
    let text = render_text(&m).unwrap();
    assert!(text.contains("loop 0: header 1 (h), continue 2"), "{text}");
    assert!(text.contains("back edges: 2->1"), "{text}");

    let dir = std::env::temp_dir().join(format!("untangle-cfg-dot-{}", std::process::id()));
    let written = write_dot(&m, &dir).unwrap();
    assert_eq!(written, [dir.join("f.dot")]);
    let dot = std::fs::read_to_string(&written[0]).unwrap();
    assert!(dot.starts_with("digraph \"f\""));
    assert!(dot.contains("b1 -> b2 [label=\"T\"];"), "{dot}");
    std::fs::remove_dir_all(&dir).unwrap();

    let irreducible = module_of(func(&[("entry", &["a", "b"]), ("a", &["b"]), ("b", &["a"])]));
    assert!(matches!(render_json(&irreducible), Err(CfgError::Irreducible { .. })));
}

/// Splitting the same edge over and over exhausts the label gaps next to the target (and
/// the dense matrix's spare columns); the fallback rebuild must keep every answer right.
#[test]
fn repeated_splits_exhaust_gaps_and_capacity() {
    for dense_reach_limit in [0, untangle::cfg::DEFAULT_DENSE_LIMIT] {
        let options = untangle::cfg::CfgOptions { dense_reach_limit, ..Default::default() };
        let mut f = func(&[("entry", &["a", "b"]), ("a", &["j"]), ("b", &["j"]), ("j", &[])]);
        let mut cfg = Cfg::with_options(&f, options).unwrap();
        let (a, j) = (id(&f, "a"), id(&f, "j"));
        let mut from = a;
        for _ in 0..150 {
            from = cfg.split_edge(&mut f, from, j).unwrap();
            cfg.verify_against_recompute(&f).unwrap();
        }
        assert!(cfg.reaches(a, from) && cfg.reaches(from, j) && !cfg.reaches(from, id(&f, "b")));
        assert_eq!(cfg.idom(j), Some(id(&f, "entry")));
        assert!(cfg.stats().recomputed >= 1, "no fallback rebuild in mode {dense_reach_limit}");
        assert!(cfg.stats().incremental >= 140);
    }
}

/// Dominator-tree label gaps: many blocks inserted at the same spot force relabels.
#[test]
fn repeated_insertions_at_one_spot_relabel_the_dominator_tree() {
    let mut f = func(&[("entry", &["x"]), ("x", &[])]);
    let mut cfg = Cfg::new(&f).unwrap();
    let (entry, x) = (id(&f, "entry"), id(&f, "x"));
    let mut from = entry;
    for _ in 0..100 {
        // Each new block lands right above x in the dominator tree.
        from = cfg.split_edge(&mut f, from, x).unwrap();
        cfg.verify_against_recompute(&f).unwrap();
    }
    for _ in 0..100 {
        cfg.split_block(&mut f, entry, 0).unwrap();
        cfg.verify_against_recompute(&f).unwrap();
    }
    assert!(cfg.dominates(entry, x) && cfg.post_dominates(x, entry));
    assert_eq!(cfg.rpo().len(), 202);
}
