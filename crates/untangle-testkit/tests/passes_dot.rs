//! The DOT rendering of structurized graphs (`untangle::passes::dot`) on hand-built graphs.

use untangle::passes::dot::*;
use untangle::passes::scfg::SyntheticKind;
use untangle_testkit::check::structured::testing::G;

/// A loop whose body is an if; the loop's continue target is synthetic.
fn marked() -> G {
    let mut g = G::new(&["entry", "h", "a", "b", "j", "exit"]);
    g.synth("c", SyntheticKind::Continue);
    g.br("entry", "h").lp("h", "exit", "c").cond("h", "a", "exit").cond("a", "b", "j").sel("a", "j");
    g.br("b", "j").goto("j", "c").goto("c", "h");
    g
}

fn line_of<'a>(dot: &'a str, start: &str) -> &'a str {
    match dot.lines().map(str::trim).find(|l| l.starts_with(start)) {
        Some(l) => l,
        None => panic!("no line starting with {start:?} in\n{dot}"),
    }
}

#[test]
fn shapes_and_styles() {
    let g = marked();
    let dot = render_dot(&g.scfg);
    assert!(dot.starts_with("digraph \"f\" {"), "{dot}");
    let h = format!("{}[", g.b("h"));
    assert!(line_of(&dot, &h).contains("shape=circle"), "{dot}");
    assert!(line_of(&dot, &h).contains("label=\"h\\n#1\""), "{dot}");
    let a = format!("{}[", g.b("a"));
    assert!(line_of(&dot, &a).contains("shape=triangle"), "{dot}");
    let c = format!("{}[", g.b("c"));
    let c_line = line_of(&dot, &c);
    assert!(c_line.contains("style=\"dashed,filled\""), "{dot}");
    assert!(c_line.contains(&format!("label=\"continue.{}\"", g.b("c").as_u32())), "{dot}");
    assert!(!c_line.contains("shape="), "{dot}");
    // Control edges with slot labels, merge and continue edges.
    let (s_h, s_a, s_exit, s_c, s_j) = (g.b("h"), g.b("a"), g.b("exit"), g.b("c"), g.b("j"));
    assert!(dot.contains(&format!("{s_h} -> {s_a} [label=\"0\"]")), "{dot}");
    assert!(dot.contains(&format!("{s_h} -> {s_exit} [label=\"1\"]")), "{dot}");
    assert!(dot.contains(&format!("{s_h} -> {s_exit} [style=dashed color=blue constraint=false]")), "{dot}");
    assert!(dot.contains(&format!("{s_h} -> {s_c} [style=dotted color=darkgreen constraint=false]")), "{dot}");
    assert!(dot.contains(&format!("{s_a} -> {s_j} [style=dashed color=blue constraint=false]")), "{dot}");
    // A single-slot edge has no label.
    let single = format!("{s_j} -> {s_c}");
    assert_eq!(line_of(&dot, &single), single, "{dot}");
}

#[test]
fn unmarked_shapes() {
    let mut g = marked();
    for b in g.scfg.layout.clone() {
        g.scfg.blocks[b].merge = None;
    }
    let dot = render_dot(&g.scfg);
    assert!(line_of(&dot, &format!("{}[", g.b("h"))).contains("shape=circle"), "{dot}");
    assert!(line_of(&dot, &format!("{}[", g.b("a"))).contains("shape=triangle"), "{dot}");
    assert!(!line_of(&dot, &format!("{}[", g.b("j"))).contains("shape="), "{dot}");
    assert!(!dot.contains("dashed color=blue"), "{dot}");
}

#[test]
fn deterministic_and_escaped() {
    let mut g = marked();
    g.scfg.name = "we\"ird\\name".into();
    let one = render_dot(&g.scfg);
    let two = render_dot(&g.scfg.clone());
    assert_eq!(one, two);
    assert!(one.starts_with("digraph \"we\\\"ird\\\\name\" {"), "{one}");
    // A graph naming a missing block still renders.
    let mut g = marked();
    g.order(&["entry", "h", "a", "b", "j", "c"]);
    let dot = render_dot(&g.scfg);
    assert!(dot.contains("(not in layout)"), "{dot}");
}

#[test]
fn file_names() {
    assert_eq!(sanitize_file_name("main"), "main");
    assert_eq!(sanitize_file_name("\u{1}?f@@YAXXZ"), "__f__YAXXZ");
    assert_eq!(sanitize_file_name("a/b c.d-e"), "a_b_c.d-e");
    assert_eq!(sanitize_file_name(""), "_");
}

#[test]
fn writes_dot_and_svg() {
    let dir = std::env::temp_dir().join(format!("untangle-dot-test-{}", std::process::id()));
    let g = marked();
    let path = write_pass_dot(&dir, "?main@@", 3, "loop exits", &g.scfg).expect("write");
    assert_eq!(path, dir.join("_main__.03-loop_exits.dot"));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), render_dot(&g.scfg));
    let dot_runs = std::process::Command::new("dot").arg("-V").output().is_ok_and(|o| o.status.success());
    let svg = dir.join("_main__.03-loop_exits.svg");
    assert_eq!(svg.exists(), dot_runs);
    if dot_runs {
        let text = std::fs::read_to_string(&svg).expect("svg");
        assert!(text.contains("<svg"), "{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
