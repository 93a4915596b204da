//! Hand-built CFGs with known answers: the blog's example, irreducible and endless loops,
//! unreachable blocks, parallel edges, and the reports.

use cranelift_entity::EntityRef;
use untangle::cfg::report::{render_json, render_text, write_dot};
use untangle::cfg::{Cfg, CfgError};
use untangle::ir::{BlockId, Function, Module, Types};
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
    assert!(cfg.loop_exits()[l.index()].is_empty());
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
    assert_eq!(names(&f, cfg.loop_body(inner)), ["body", "inner"]);
    assert_eq!(names(&f, cfg.loop_body(outer)), ["body", "inner", "olatch", "outer"]);
    let exits = cfg.loop_exits();
    assert_eq!(names(&f, exits[inner.index()].iter().copied()), ["done", "olatch"]);
    assert_eq!(names(&f, exits[outer.index()].iter().copied()), ["done"]);
    assert!(cfg.is_back_edge(b("body"), b("inner")));
    assert!(!cfg.forward_succs(b("body")).any(|s| s == b("inner")));
}

#[test]
fn declarations_have_no_cfg() {
    let mut f = func(&[("entry", &[])]);
    f.layout.clear();
    assert!(matches!(Cfg::new(&f), Err(CfgError::Declaration { .. })));
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
