//! Text renderings of an [`Scfg`], for snapshots and the command line.
//!
//! * [`render_listing`]: one line per block in layout order: label, origin, merge
//!   annotation, terminator, edge definitions, PHIs and entry values.
//! * [`render_structured`]: nested pseudo-code read off the merge annotations (`loop`,
//!   `if`, `switch`, `break`, `continue`, `goto_merge`, `fallthrough`, `return`), for any
//!   graph that follows the SPIR-V structured rules; other graphs get the listing. Every
//!   block is printed once; a second way into a block inside a construct (which the rules
//!   allow, e.g. one `if` arm branching into the other) prints as `goto LABEL`.
//!
//! Variables print as `sel3` (selector variable 3) or `from.LABEL` (the incoming-block
//! variable of original block `LABEL`); values as numbers, `undef`, or `phiK@LABEL` (the
//! K-th PHI of block `LABEL`). Both renderings depend only on the graph (and the function,
//! when given), so they are deterministic.

use crate::ir::{BlockId, Function, Terminator};
use crate::passes::labels::Labels;
use crate::passes::scfg::{Merge, OrigKind, Origin, SBlock, Scfg, Term, Val, VarId, VarKind};
use crate::passes::spirv_term::{op_of, orig_kind, Op};
use cranelift_entity::EntityRef;
use std::collections::HashSet;
use std::fmt::Write as _;

fn original_label(scfg: &Scfg, b: BlockId) -> String {
    match scfg.original_labels.get(b.index()) {
        Some(l) => l.clone(),
        None => format!("{b}"),
    }
}

/// `sel3` or `from.LABEL`.
pub fn var_name(scfg: &Scfg, v: VarId) -> String {
    match scfg.vars.get(v) {
        Some(VarKind::Selector) => format!("sel{}", v.index()),
        Some(VarKind::IncomingBlock(b)) => format!("from.{}", original_label(scfg, *b)),
        None => format!("{v}?"),
    }
}

/// `3`, `undef` or `phi0@LABEL`.
pub fn val_text(scfg: &Scfg, v: Val) -> String {
    val_text_with(&Labels::new(scfg), v)
}

fn val_text_with(labels: &Labels<'_>, v: Val) -> String {
    match v {
        Val::Const(n) => n.to_string(),
        Val::Undef => "undef".to_string(),
        Val::Phi { block, index } => format!("phi{index}@{}", labels.get(block)),
    }
}

/// The original terminator's kind name: `br`, `condbr`, `switch`, `ret`, `unreachable`
/// (`exit` for `ret` or `unreachable` when `func` is not given).
fn orig_kind_name(scfg: &Scfg, func: Option<&Function>, block: BlockId, slots: usize) -> &'static str {
    if let Some(ob) = func.and_then(|f| f.blocks.get(block)) {
        return match ob.terminator {
            Terminator::Br { .. } => "br",
            Terminator::CondBr { .. } => "condbr",
            Terminator::Switch { .. } => "switch",
            Terminator::Ret { .. } => "ret",
            Terminator::Unreachable => "unreachable",
        };
    }
    match orig_kind(scfg, func, block) {
        Some(OrigKind::Br) => "br",
        Some(OrigKind::CondBr) => "condbr",
        Some(OrigKind::Switch) => "switch",
        Some(OrigKind::Exit) => "exit",
        None => match slots {
            0 => "exit",
            1 => "br",
            2 => "condbr",
            _ => "switch",
        },
    }
}

/// The case values of an original switch, by slot (slot 0, the default, has none).
fn switch_values(func: Option<&Function>, block: BlockId) -> Option<Vec<u64>> {
    match &func?.blocks.get(block)?.terminator {
        Terminator::Switch { cases, .. } => Some(cases.iter().map(|(v, _)| *v).collect()),
        _ => None,
    }
}

/// One line per block, in layout order.
pub fn render_listing(scfg: &Scfg, func: Option<&Function>) -> String {
    let mut out = String::new();
    let labels = Labels::new(scfg);
    let l = |b: SBlock| labels.get(b);
    for &b in &scfg.layout {
        let Some(block) = scfg.blocks.get(b) else {
            let _ = writeln!(out, "{b}: no such block");
            continue;
        };
        let _ = write!(out, "{}: ", l(b));
        match block.origin {
            Origin::Original(o) => match scfg.original_numbers.iter().find(|(x, _)| *x == o) {
                Some((_, n)) => {
                    let _ = write!(out, "orig #{n}");
                }
                None => {
                    let _ = write!(out, "orig {o}");
                }
            },
            Origin::Synthetic(_) => out.push_str("synth"),
        }
        match block.merge {
            Some(Merge::Selection { merge }) => {
                let _ = write!(out, " [selection merge={}]", l(merge));
            }
            Some(Merge::Loop { merge, continue_target }) => {
                let _ = write!(out, " [loop merge={} continue={}]", l(merge), l(continue_target));
            }
            None => {}
        }
        out.push_str("; ");
        match &block.term {
            Term::Goto(t) => {
                let _ = write!(out, "goto {}", l(*t));
            }
            Term::Orig { block: ob, succs } => {
                let kind = orig_kind_name(scfg, func, *ob, succs.len());
                out.push_str(kind);
                let values = if kind == "switch" { switch_values(func, *ob) } else { None };
                for (k, &t) in succs.iter().enumerate() {
                    out.push_str(if k == 0 { " " } else { ", " });
                    match (&values, k) {
                        (Some(_), 0) => out.push_str("default: "),
                        (Some(vs), k) => {
                            if let Some(v) = vs.get(k - 1) {
                                let _ = write!(out, "{v}: ");
                            }
                        }
                        _ => {}
                    }
                    out.push_str(&l(t));
                }
            }
            Term::Dispatch { var, targets } => {
                let _ = write!(out, "dispatch {}", var_name(scfg, *var));
                for (k, &t) in targets.iter().enumerate() {
                    let _ = write!(out, "{}{k}: {}", if k == 0 { " " } else { ", " }, l(t));
                }
            }
            Term::Unreachable => out.push_str("unreachable"),
        }
        if !block.edge_defs.is_empty() {
            out.push_str(" | defs ");
            for (k, d) in block.edge_defs.iter().enumerate() {
                let sep = if k == 0 { "" } else { ", " };
                let _ = write!(out, "{sep}{}: {} = {}", d.slot, var_name(scfg, d.var), val_text_with(&labels, d.val));
            }
        }
        if !block.phis.is_empty() {
            out.push_str(" | phis ");
            for (k, p) in block.phis.iter().enumerate() {
                let sep = if k == 0 { "" } else { ", " };
                let _ = write!(out, "{sep}{} = [", var_name(scfg, p.var));
                for (j, (pred, v)) in p.incoming.iter().enumerate() {
                    let sep = if j == 0 { "" } else { ", " };
                    let _ = write!(out, "{sep}{}: {}", l(*pred), val_text_with(&labels, *v));
                }
                out.push(']');
            }
        }
        if !block.entry_values.is_empty() {
            out.push_str(" | entry ");
            for (k, (var, v)) in block.entry_values.iter().enumerate() {
                let sep = if k == 0 { "" } else { ", " };
                let _ = write!(out, "{sep}{} = {}", var_name(scfg, *var), val_text_with(&labels, *v));
            }
        }
        out.push('\n');
    }
    out
}

// ------------------------------------------------------------------------------------------
// Structured pseudo-code.

/// An enclosing construct during the walk.
#[derive(Clone, Debug)]
enum Frame {
    /// An arm of an `if`.
    Sel { merge: SBlock },
    /// A case body of a switch: `own` is its target, `cases` every case target.
    Case { merge: SBlock, own: SBlock, cases: Vec<SBlock> },
    /// A loop body.
    Loop { merge: SBlock, cont: SBlock },
    /// A continue construct of the loop headed by `header`.
    Cont { header: SBlock, merge: SBlock },
}

/// The exit of the first of `targets` that is `t`, if any.
fn exit_to(t: SBlock, targets: [(SBlock, Exit); 2]) -> Option<Exit> {
    targets.into_iter().find(|&(b, _)| b == t).map(|(_, e)| e)
}

/// Where an edge goes, relative to the enclosing constructs.
#[derive(Clone, Copy, Debug)]
enum Exit {
    /// To the merge of the innermost selection or switch (the arm's natural end).
    End(SBlock),
    /// The back edge from the continue construct.
    Back,
    Break,
    Continue,
    /// To the merge of an enclosing, not innermost, selection or switch.
    GotoMerge(SBlock),
    Fallthrough(SBlock),
}

struct Walk<'a> {
    scfg: &'a Scfg,
    labels: Labels<'a>,
    func: Option<&'a Function>,
    out: String,
    printed: HashSet<SBlock>,
}

type WalkResult<T = ()> = Result<T, String>;

impl<'a> Walk<'a> {
    fn l(&self, b: SBlock) -> String {
        self.labels.get(b)
    }

    fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn classify(&self, t: SBlock, stack: &[Frame]) -> Option<Exit> {
        for (depth, f) in stack.iter().rev().enumerate() {
            let innermost = depth == 0;
            match f {
                Frame::Sel { merge } => {
                    if t == *merge {
                        return Some(if innermost { Exit::End(t) } else { Exit::GotoMerge(t) });
                    }
                }
                Frame::Case { merge, own, cases } => {
                    if t == *merge {
                        return Some(if innermost { Exit::End(t) } else { Exit::GotoMerge(t) });
                    }
                    if innermost && t != *own && cases.contains(&t) {
                        return Some(Exit::Fallthrough(t));
                    }
                }
                // A loop's body and its continue construct reach only their own targets.
                Frame::Loop { merge, cont } => return exit_to(t, [(*merge, Exit::Break), (*cont, Exit::Continue)]),
                Frame::Cont { header, merge } => return exit_to(t, [(*header, Exit::Back), (*merge, Exit::Break)]),
            }
        }
        None
    }

    /// The statement for an exit; `None` for the natural end of an arm or continue block.
    fn stmt(&self, e: Exit, conditional: bool) -> Option<String> {
        match e {
            Exit::End(m) => conditional.then(|| format!("goto_merge {}", self.l(m))),
            Exit::Back => conditional.then(|| "continue".to_string()),
            Exit::Break => Some("break".to_string()),
            Exit::Continue => Some("continue".to_string()),
            Exit::GotoMerge(m) => Some(format!("goto_merge {}", self.l(m))),
            Exit::Fallthrough(t) => Some(format!("fallthrough {}", self.l(t))),
        }
    }

    /// The condition under which a two-slot terminator takes `slot`.
    fn condition(&self, term: &Term, slot: usize) -> String {
        match term {
            Term::Orig { block, .. } => {
                let c = format!("{}.cond", original_label(self.scfg, *block));
                if slot == 0 {
                    c
                } else {
                    format!("!{c}")
                }
            }
            Term::Dispatch { var, .. } => format!("{} == {slot}", var_name(self.scfg, *var)),
            _ => "?".to_string(),
        }
    }

    /// The switch scrutinee and the key of every slot.
    fn switch_keys(&self, term: &Term) -> (String, Vec<String>) {
        match term {
            Term::Dispatch { var, targets } => {
                (var_name(self.scfg, *var), (0..targets.len()).map(|k| k.to_string()).collect())
            }
            Term::Orig { block, succs } => {
                let values = switch_values(self.func, *block);
                let keys = (0..succs.len())
                    .map(|k| match (k, &values) {
                        (0, _) => "default".to_string(),
                        (k, Some(vs)) => vs.get(k - 1).map_or_else(|| format!("#{k}"), |v| v.to_string()),
                        (k, None) => format!("#{k}"),
                    })
                    .collect();
                (format!("{}.value", original_label(self.scfg, *block)), keys)
            }
            _ => ("?".to_string(), Vec::new()),
        }
    }

    /// A sequence of blocks starting at `b`, until it leaves the innermost construct.
    fn seq(&mut self, mut b: SBlock, stack: &mut Vec<Frame>, indent: usize) -> WalkResult {
        loop {
            if !self.printed.insert(b) {
                // A join inside a construct (e.g. one arm branching into the other).
                self.line(indent, &format!("goto {}", self.l(b)));
                return Ok(());
            }
            let Some(block) = self.scfg.blocks.get(b) else {
                return Err(format!("no block {b}"));
            };
            let label = self.l(b);
            let next = match block.merge {
                Some(Merge::Loop { merge, continue_target: cont }) => {
                    self.line(indent, &format!("loop {label} {{"));
                    self.line(indent + 1, &label);
                    stack.push(Frame::Loop { merge, cont });
                    let r = match self.tail(b, stack, indent + 1) {
                        Ok(Some(t)) => self.seq(t, stack, indent + 1),
                        Ok(None) => Ok(()),
                        Err(e) => Err(e),
                    };
                    stack.pop();
                    r?;
                    if cont != b {
                        self.line(indent, "} continue {");
                        stack.push(Frame::Cont { header: b, merge });
                        let r = self.seq(cont, stack, indent + 1);
                        stack.pop();
                        r?;
                    }
                    self.line(indent, "}");
                    merge
                }
                Some(Merge::Selection { merge }) => {
                    self.line(indent, &label);
                    let term = &block.term;
                    let op = op_of(self.scfg, self.func, term);
                    if op == Op::Switch || (op == Op::Cond && matches!(term, Term::Dispatch { .. })) {
                        self.switch(term, merge, stack, indent)?;
                    } else if op == Op::Cond {
                        self.if_else(term, merge, stack, indent)?;
                    } else {
                        return Err(format!("selection header {label} has no conditional branch"));
                    }
                    merge
                }
                None => {
                    self.line(indent, &label);
                    match self.tail(b, stack, indent)? {
                        Some(t) => t,
                        None => return Ok(()),
                    }
                }
            };
            match self.classify(next, stack) {
                Some(e) => {
                    if let Some(s) = self.stmt(e, false) {
                        self.line(indent, &s);
                    }
                    return Ok(());
                }
                None => b = next,
            }
        }
    }

    /// The body of one arm: an exit statement or a sequence.
    fn arm(&mut self, t: SBlock, stack: &mut Vec<Frame>, indent: usize) -> WalkResult {
        match self.classify(t, stack) {
            Some(e) => {
                if let Some(s) = self.stmt(e, false) {
                    self.line(indent, &s);
                }
                Ok(())
            }
            None => self.seq(t, stack, indent),
        }
    }

    fn if_else(&mut self, term: &Term, merge: SBlock, stack: &mut Vec<Frame>, indent: usize) -> WalkResult {
        let (t, f) = match *term.succs() {
            [t, f] => (t, f),
            _ => return Err("a conditional branch without two targets".to_string()),
        };
        stack.push(Frame::Sel { merge });
        let r = (|| {
            if t != merge && f == merge {
                self.line(indent, &format!("if {} {{", self.condition(term, 0)));
                self.arm(t, stack, indent + 1)?;
            } else if t == merge && f != merge {
                self.line(indent, &format!("if {} {{", self.condition(term, 1)));
                self.arm(f, stack, indent + 1)?;
            } else {
                self.line(indent, &format!("if {} {{", self.condition(term, 0)));
                self.arm(t, stack, indent + 1)?;
                if f != t {
                    self.line(indent, "} else {");
                    self.arm(f, stack, indent + 1)?;
                }
            }
            self.line(indent, "}");
            Ok(())
        })();
        stack.pop();
        r
    }

    fn switch(&mut self, term: &Term, merge: SBlock, stack: &mut Vec<Frame>, indent: usize) -> WalkResult {
        let (scrutinee, keys) = self.switch_keys(term);
        let slots = term.succs();
        let mut cases: Vec<SBlock> = Vec::new();
        for &t in slots {
            if t != merge && !cases.contains(&t) {
                cases.push(t);
            }
        }
        self.line(indent, &format!("switch {scrutinee} {{"));
        let mut done: Vec<SBlock> = Vec::new();
        for &t in slots {
            if done.contains(&t) {
                continue;
            }
            done.push(t);
            let k: Vec<&str> = slots.iter().zip(&keys).filter(|(x, _)| **x == t).map(|(_, k)| k.as_str()).collect();
            let k = k.join(" | ");
            if t == merge {
                self.line(indent + 1, &format!("{k} => {{}}"));
                continue;
            }
            stack.push(Frame::Case { merge, own: t, cases: cases.clone() });
            let r = match self.classify(t, stack) {
                Some(e) => {
                    let s = self.stmt(e, false).unwrap_or_default();
                    self.line(indent + 1, &format!("{k} => {s}"));
                    Ok(())
                }
                None => {
                    self.line(indent + 1, &format!("{k} => {{"));
                    let r = self.seq(t, stack, indent + 2);
                    self.line(indent + 1, "}");
                    r
                }
            };
            stack.pop();
            r?;
        }
        self.line(indent, "}");
        Ok(())
    }

    /// The terminator of a block without a selection merge (or of a loop header): prints
    /// its exits and returns the block the sequence continues with, if any.
    fn tail(&mut self, b: SBlock, stack: &mut [Frame], indent: usize) -> WalkResult<Option<SBlock>> {
        let Some(block) = self.scfg.blocks.get(b) else {
            return Err(format!("no block {b}"));
        };
        let term = &block.term;
        let slots = term.succs();
        match op_of(self.scfg, self.func, term) {
            Op::End => {
                let s = if matches!(term, Term::Unreachable) { "unreachable" } else { "return" };
                self.line(indent, s);
                Ok(None)
            }
            Op::Branch if slots.len() == 1 => match self.classify(slots[0], stack) {
                Some(e) => {
                    if let Some(s) = self.stmt(e, false) {
                        self.line(indent, &s);
                    }
                    Ok(None)
                }
                None => Ok(Some(slots[0])),
            },
            Op::Cond if slots.len() == 2 => {
                let e0 = self.classify(slots[0], stack);
                let e1 = self.classify(slots[1], stack);
                match (e0, e1) {
                    (Some(e0), Some(e1)) => {
                        let s0 = self.stmt(e0, true).unwrap_or_default();
                        let s1 = self.stmt(e1, true).unwrap_or_default();
                        if slots[0] == slots[1] {
                            if let Some(s) = self.stmt(e0, false) {
                                self.line(indent, &s);
                            }
                        } else {
                            let c = self.condition(term, 0);
                            self.line(indent, &format!("if {c} {{ {s0} }} else {{ {s1} }}"));
                        }
                        Ok(None)
                    }
                    (Some(e), None) | (None, Some(e)) => {
                        let (exit_slot, go) = if e0.is_some() { (0, slots[1]) } else { (1, slots[0]) };
                        let s = self.stmt(e, true).unwrap_or_default();
                        self.line(indent, &format!("if {} {{ {s} }}", self.condition(term, exit_slot)));
                        Ok(Some(go))
                    }
                    (None, None) if slots[0] == slots[1] => Ok(Some(slots[0])),
                    (None, None) => Err(format!("{} branches two ways without a merge", self.l(b))),
                }
            }
            _ => {
                // A switch without merge: fine only if every target leaves.
                let (scrutinee, keys) = self.switch_keys(term);
                let mut arms = Vec::new();
                for (k, &t) in slots.iter().enumerate() {
                    match self.classify(t, stack) {
                        Some(e) => arms.push(format!(
                            "{} => {}",
                            keys.get(k).map_or("?", String::as_str),
                            self.stmt(e, true).unwrap_or_default()
                        )),
                        None => return Err(format!("{} switches without a merge", self.l(b))),
                    }
                }
                self.line(indent, &format!("switch {scrutinee} {{ {} }}", arms.join(", ")));
                Ok(None)
            }
        }
    }
}

/// Nested pseudo-code of a structured graph; the listing (after a `# ...` line saying why)
/// for a graph the walk cannot follow, e.g. one without merge annotations.
pub fn render_structured(scfg: &Scfg, func: Option<&Function>) -> String {
    let mut w = Walk { scfg, labels: Labels::new(scfg), func, out: String::new(), printed: HashSet::new() };
    let mut stack = Vec::new();
    let result = if scfg.blocks.get(scfg.entry).is_some() {
        w.seq(scfg.entry, &mut stack, 0)
    } else {
        Err("no entry block".to_string())
    };
    match result {
        Ok(()) => {
            let missed: Vec<String> =
                scfg.layout.iter().filter(|b| !w.printed.contains(b)).map(|&b| w.labels.get(b)).collect();
            if !missed.is_empty() {
                let _ = writeln!(w.out, "# not reached: {}", missed.join(", "));
            }
            w.out
        }
        Err(why) => {
            let any_merge = scfg.layout.iter().any(|&b| scfg.blocks.get(b).is_some_and(|x| x.merge.is_some()));
            let why = if any_merge { why } else { "no merge annotations".to_string() };
            format!("# not structured ({why}); listing:\n{}", render_listing(scfg, func))
        }
    }
}
