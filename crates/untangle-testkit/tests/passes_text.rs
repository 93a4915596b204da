//! The text renderings of structurized graphs (`untangle::passes::text`) on hand-built graphs.

use untangle::passes::scfg::{EdgeDef, Phi, SyntheticKind, Val, VarKind};
use untangle::passes::text::*;
use untangle_testkit::check::structured::testing::{if_else, loop_break_continue, G};

#[test]
fn structured_if_else() {
    let g = if_else();
    let want = "\
entry
if entry.cond {
  a
} else {
  b
}
m
return
";
    assert_eq!(render_structured(&g.scfg, None), want);
}

#[test]
fn structured_loop_with_break_and_continue() {
    let g = loop_break_continue();
    assert!(untangle_testkit::check::structured::check_structured(&g.scfg).is_ok());
    let want = "\
entry
loop h {
  h
  if !h.cond { break }
  a
  if a.cond { break }
  b
  if b.cond { continue }
  d
  continue
} continue {
  c
}
exit
return
";
    assert_eq!(render_structured(&g.scfg, None), want);
}

#[test]
fn structured_switch_and_dispatch() {
    let mut g = G::new(&["entry", "d", "c1", "c2", "m", "x", "y"]);
    g.synth("lad", SyntheticKind::SelectionMerge);
    g.switch("entry", &["d", "c1", "c1", "c2"]).sel("entry", "m").br("d", "m").br("c1", "c2").br("c2", "m");
    g.goto("m", "lad");
    g.dispatch("lad", &["x", "y", "x"]).sel("lad", "y").br("x", "y").ret("y");
    g.order(&["entry", "d", "c1", "c2", "m", "lad", "x", "y"]);
    assert_eq!(untangle_testkit::check::structured::violations(&g.scfg, None), vec![]);
    let f = g.function();
    let want = "\
entry
switch entry.value {
  default => {
    d
  }
  10 | 20 => {
    c1
    fallthrough c2
  }
  30 => {
    c2
  }
}
m
merge.7
switch sel0 {
  0 | 2 => {
    x
  }
  1 => {}
}
y
return
";
    assert_eq!(render_structured(&g.scfg, Some(&f)), want);
    // Without the function, case keys are slot numbers.
    assert!(render_structured(&g.scfg, None).contains("  #1 | #2 => {\n"));
}

#[test]
fn structured_nested_exits() {
    // A loop whose body holds a switch: one case continues, one breaks, one leaves the
    // case through an if to the switch merge.
    let mut g = G::new(&["entry", "h", "s", "d", "c1", "y", "j", "e", "m", "c", "exit"]);
    g.br("entry", "h").lp("h", "exit", "c").br("h", "s").sel("s", "m");
    g.switch("s", &["d", "c1", "e"]).br("d", "c").br("e", "exit").cond("c1", "y", "j").sel("c1", "j");
    g.br("y", "m").br("j", "m").br("m", "c").cond("c", "h", "exit").ret("exit");
    assert_eq!(untangle_testkit::check::structured::violations(&g.scfg, None), vec![]);
    let want = "\
entry
loop h {
  h
  s
  switch s.value {
    default => {
      d
      continue
    }
    #1 => {
      c1
      if c1.cond {
        y
        goto_merge m
      }
      j
    }
    #2 => {
      e
      break
    }
  }
  m
  continue
} continue {
  c
  if c.cond { continue } else { break }
}
exit
return
";
    assert_eq!(render_structured(&g.scfg, None), want);
}

#[test]
fn structured_falls_back_to_listing() {
    let mut g = if_else();
    let entry = g.b("entry");
    g.scfg.blocks[entry].merge = None;
    let text = render_structured(&g.scfg, None);
    assert!(text.starts_with("# not structured (no merge annotations); listing:\n"), "{text}");
    assert!(text.ends_with(&render_listing(&g.scfg, None)));
}

#[test]
fn listing() {
    let mut g = loop_break_continue();
    let (h, c, exit) = (g.b("h"), g.b("c"), g.b("exit"));
    let phi_var = g.scfg.vars.push(VarKind::IncomingBlock(g.scfg.blocks[h].original().expect("orig")));
    let sel = g.scfg.vars.push(VarKind::Selector);
    let entry = g.b("entry");
    g.scfg.blocks[entry].edge_defs.push(EdgeDef { slot: 0, var: phi_var, val: Val::Const(0) });
    g.scfg.blocks[c].edge_defs.push(EdgeDef { slot: 0, var: phi_var, val: Val::Const(5) });
    g.scfg.blocks[c].edge_defs.push(EdgeDef { slot: 0, var: sel, val: Val::Undef });
    g.scfg.blocks[h].phis.push(Phi { var: phi_var, incoming: vec![(entry, Val::Const(0)), (c, Val::Const(5))] });
    g.scfg.blocks[h].entry_values.push((phi_var, Val::Phi { block: h, index: 0 }));
    g.switch("exit", &["a", "b", "d"]);
    let _ = exit;
    let want = "\
entry: orig #0; br h | defs 0: from.h = 0
h: orig #1 [loop merge=exit continue=c]; condbr a, exit | phis from.h = [entry: 0, c: 5] | entry from.h = phi0@h
a: orig #2; condbr exit, b
b: orig #3; condbr c, d
d: orig #4; br c
c: orig #5; br h | defs 0: from.h = 5, 0: sel1 = undef
exit: orig #6; switch a, b, d
";
    assert_eq!(render_listing(&g.scfg, None), want);
    let f = g.function();
    let with_f = render_listing(&g.scfg, Some(&f));
    assert!(with_f.contains("exit: orig #6; switch default: a, 10: b, 20: d\n"), "{with_f}");
    // Synthetic blocks, dispatches and dead ends.
    let mut g = G::new(&["entry", "x", "y"]);
    g.synth("lm", SyntheticKind::LoopMerge);
    g.synth("dead", SyntheticKind::UnreachableMerge);
    g.goto("entry", "lm").dispatch("lm", &["x", "y"]).sel("lm", "dead");
    let lm = g.b("lm").as_u32();
    let dead = g.b("dead").as_u32();
    let want = format!(
        "entry: orig #0; goto loop_merge.{lm}\nx: orig #1; exit\ny: orig #2; exit\n\
             loop_merge.{lm}: synth [selection merge=dead_merge.{dead}]; dispatch sel0 0: x, 1: y\n\
             dead_merge.{dead}: synth; unreachable\n"
    );
    assert_eq!(render_listing(&g.scfg, None), want);
}

#[test]
fn deterministic() {
    let g = loop_break_continue();
    assert_eq!(render_structured(&g.scfg, None), render_structured(&g.scfg.clone(), None));
    assert_eq!(render_listing(&g.scfg, None), render_listing(&g.scfg.clone(), None));
}
