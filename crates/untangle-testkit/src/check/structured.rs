//! An independent checker of SPIR-V structured control flow on an [`Scfg`].
//!
//! [`check_structured`] verifies the rules of the unified SPIR-V specification, section 2.11
//! ("Structured Control Flow"), as `spirv-val` enforces them (SPIRV-Tools
//! `source/val/validate_cfg.cpp`, `construct.cpp`, `validate_adjacency.cpp`), on the graph the
//! structurizer hands to emission. It shares no analysis with `untangle::cfg` or the passes: it
//! computes its own reachability, dominators and post-dominators (Cooper, Harvey and Kennedy's
//! iterative algorithm over reverse postorder), so a bug there cannot hide here.
//!
//! # The SPIR-V the checker assumes
//!
//! Each block's terminator becomes one SPIR-V branch ([`Term::Goto`]: `OpBranch`;
//! [`Term::Orig`]: the original kind, `br`/`condbr`/`switch`/`ret`/`unreachable`;
//! [`Term::Dispatch`] with 1, 2, 3+ targets: `OpBranch`, `OpBranchConditional`, `OpSwitch`;
//! [`Term::Unreachable`]: `OpUnreachable`), and [`Block::merge`](untangle::passes::Block::merge)
//! becomes `OpSelectionMerge` / `OpLoopMerge` right before it. The `OpSwitch` target
//! operands of an original switch are its slots in order (slot 0 is the Default); a dispatch
//! of three or more targets has its *last* target as Default and `targets[k]` as case `k`,
//! as `untangle::emit` writes it. An original terminator's kind comes from
//! [`Scfg::original_kinds`], else from the [`Function`] given to [`check_structured_with`],
//! else from its number of slots (0: return, 1: branch, 2: conditional branch, 3+: switch);
//! with the function, slot counts are also checked against the original terminators.
//!
//! # Rules
//!
//! Dominance and post-dominance in the construct rules are *structural*, as in SPIR-V 1.6
//! and `spirv-val`: computed on the CFG plus an edge from every header to its merge block
//! and from every loop header to its continue target. A construct whose first block (header,
//! or continue target for a continue construct) is not structurally reachable from the entry
//! is exempt from the construct rules, as in `spirv-val`. See [`Violation`] for the list;
//! every rule is reported for every place it fails, not only the first.
//!
//! Beyond `spirv-val`, the checker rejects blocks that are unreachable and no merge block or
//! continue target, and (through dominance) an entry block named as a merge block or continue
//! target. The `differential` tests hold it to `spirv-val`'s verdict on thousands of mutated
//! random structured programs.
//!
//! Not checked: the control-flow nesting depth limit, `OpPhi` operands, and anything about
//! instructions other than terminators and merge instructions.

use cranelift_entity::SecondaryMap;
use std::collections::HashMap;
use untangle::ir::Function;
use untangle::passes::labels::Labels;
use untangle::passes::scfg::{Merge, OrigKind, SBlock, Scfg, Term};
pub use untangle::passes::spirv_term::{op_of, orig_kind, spirv_targets, Op};

/// The kinds of structured constructs of the specification.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ConstructKind {
    /// An `OpSelectionMerge` header ending in `OpBranchConditional`.
    Selection,
    /// An `OpSelectionMerge` header ending in `OpSwitch`.
    Switch,
    /// An `OpLoopMerge` header, without its continue construct.
    Loop,
    /// A continue target up to the loop's back-edge block.
    Continue,
    /// The blocks dominated by one `OpSwitch` target.
    Case,
}

impl ConstructKind {
    pub fn name(self) -> &'static str {
        match self {
            ConstructKind::Selection => "selection",
            ConstructKind::Switch => "switch",
            ConstructKind::Loop => "loop",
            ConstructKind::Continue => "continue",
            ConstructKind::Case => "case",
        }
    }
}

/// One broken rule. Blocks are named by their [`SBlock`]; [`StructuredViolations`]'s
/// `Display` names them by label.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Violation {
    // ---- layout and graph sanity ----
    /// `Scfg::entry` is not in the layout (nothing else can be checked).
    EntryNotInLayout { entry: SBlock },
    /// The layout does not start with the entry block.
    EntryNotFirst { entry: SBlock, first: SBlock },
    /// A block appears twice in the layout.
    DuplicateInLayout { block: SBlock },
    /// A terminator, merge or continue operand names a block that does not exist.
    UnknownBlock { from: SBlock, target: SBlock },
    /// A terminator, merge or continue operand names a block missing from the layout.
    NotInLayout { from: SBlock, target: SBlock },
    /// A block in the layout is unreachable from the entry and is no merge block or
    /// continue target of any header.
    UnreachableBlock { block: SBlock },
    /// A block appears in the layout before its immediate dominator.
    BlockBeforeDominator { block: SBlock, dominator: SBlock },
    /// A branch targets the entry block (SPIR-V forbids it).
    BranchToEntry { from: SBlock },
    /// `Term::Orig` names a block the function lacks.
    UnknownOriginal { block: SBlock },
    /// `Term::Orig` has a different number of slots than its original terminator.
    OrigSlotCount { block: SBlock, expected: usize, found: usize },
    /// `Term::Dispatch` with no targets.
    EmptyDispatch { block: SBlock },

    // ---- terminators and merge instructions ----
    /// An `OpSwitch` block without `OpSelectionMerge`.
    SwitchWithoutSelectionMerge { block: SBlock },
    /// `OpLoopMerge` not followed by `OpBranch` or `OpBranchConditional`.
    LoopHeaderBadTerminator { header: SBlock },
    /// `OpSelectionMerge` not followed by `OpBranchConditional` or `OpSwitch`.
    SelectionHeaderBadTerminator { header: SBlock },
    /// A conditional branch without `OpSelectionMerge` to two targets that no earlier block
    /// (in reverse postorder) declared as merge/continue or branched to ("Selection must be
    /// structured" in `spirv-val`).
    UnstructuredSelection { block: SBlock },

    // ---- merge and continue declarations ----
    /// The merge block is declared by more than one header.
    MergeOfSeveralHeaders { merge: SBlock, headers: Vec<SBlock> },
    /// A header does not strictly (structurally) dominate its merge block.
    HeaderDoesNotDominateMerge { header: SBlock, merge: SBlock },
    /// A loop's merge block is also its continue target.
    MergeIsContinueTarget { header: SBlock },
    /// The loop header does not (structurally) dominate its continue target.
    HeaderDoesNotDominateContinue { header: SBlock, continue_target: SBlock },
    /// A back edge (a CFG edge to a block on the depth-first stack) whose target is no loop
    /// header.
    BackEdgeToNonLoopHeader { from: SBlock, to: SBlock },
    /// A loop header is not the target of exactly one back-edge block.
    LoopBackEdges { header: SBlock, back_edge_blocks: Vec<SBlock> },
    /// The continue target does not dominate the back-edge block.
    ContinueDoesNotDominateBackEdge { header: SBlock, continue_target: SBlock, back_edge: SBlock },
    /// The back-edge block does not post-dominate the continue target.
    BackEdgeDoesNotPostDominateContinue { header: SBlock, continue_target: SBlock, back_edge: SBlock },

    // ---- constructs ----
    /// An edge leaves a construct other than by one of its structured exits.
    UnstructuredExit { kind: ConstructKind, header: SBlock, from: SBlock, to: SBlock },
    /// An edge enters a construct at a block other than its header.
    EnteredNotThroughHeader { kind: ConstructKind, header: SBlock, from: SBlock, to: SBlock },
    /// A construct contains a header whose (reachable) merge block it does not contain.
    MergeOutsideConstruct { kind: ConstructKind, header: SBlock, inner: SBlock, merge: SBlock },
    /// A block outside the loop construct branches to the continue target.
    ContinueEnteredFromOutsideLoop { header: SBlock, continue_target: SBlock, from: SBlock },

    // ---- switches ----
    /// The switch header does not dominate one of its case targets.
    SwitchDoesNotDominateCase { header: SBlock, case: SBlock },
    /// A case construct branches somewhere that is neither another case, the switch merge,
    /// nor a structured exit of the switch.
    CaseInvalidExit { header: SBlock, case: SBlock, from: SBlock, to: SBlock },
    /// A case construct falls through to two different cases.
    CaseFallsThroughToSeveral { header: SBlock, case: SBlock, first: SBlock, second: SBlock },
    /// A case falls through to a case that does not follow it in the `OpSwitch` operands.
    CaseFallThroughNotNext { header: SBlock, case: SBlock, target: SBlock },
    /// Several case constructs fall through to the same case.
    CaseEnteredFromSeveral { header: SBlock, case: SBlock, from: Vec<SBlock> },
}

impl Violation {
    /// The violation in words, blocks named by `scfg`'s labels.
    pub fn describe(&self, scfg: &Scfg) -> String {
        self.describe_with(&Labels::new(scfg))
    }

    fn describe_with(&self, labels: &Labels<'_>) -> String {
        let l = |b: &SBlock| labels.get(*b);
        let ls = |bs: &[SBlock]| bs.iter().map(|b| labels.get(*b)).collect::<Vec<_>>().join(", ");
        match self {
            Violation::EntryNotInLayout { entry } => format!("entry block {} is not in the layout", l(entry)),
            Violation::EntryNotFirst { entry, first } => {
                format!("the layout starts with {}, not with the entry block {}", l(first), l(entry))
            }
            Violation::DuplicateInLayout { block } => format!("block {} appears twice in the layout", l(block)),
            Violation::UnknownBlock { from, target } => {
                format!("block {} names block {target}, which does not exist", l(from))
            }
            Violation::NotInLayout { from, target } => {
                format!("block {} names block {}, which is not in the layout", l(from), l(target))
            }
            Violation::UnreachableBlock { block } => {
                format!("block {} is unreachable from the entry and is no merge block or continue target", l(block))
            }
            Violation::BlockBeforeDominator { block, dominator } => {
                format!("block {} appears in the layout before its dominator {}", l(block), l(dominator))
            }
            Violation::BranchToEntry { from } => format!("block {} branches to the entry block", l(from)),
            Violation::UnknownOriginal { block } => {
                format!("block {} has the terminator of a block the function lacks", l(block))
            }
            Violation::OrigSlotCount { block, expected, found } => {
                format!("block {} has {found} successor slots, its original terminator {expected}", l(block))
            }
            Violation::EmptyDispatch { block } => format!("block {} dispatches to no target", l(block)),
            Violation::SwitchWithoutSelectionMerge { block } => {
                format!("switch in block {} has no selection merge", l(block))
            }
            Violation::LoopHeaderBadTerminator { header } => {
                format!("loop header {} does not end in a branch or conditional branch", l(header))
            }
            Violation::SelectionHeaderBadTerminator { header } => {
                format!("selection header {} does not end in a conditional branch or switch", l(header))
            }
            Violation::UnstructuredSelection { block } => {
                format!("conditional branch in block {} needs a selection merge (both targets are new)", l(block))
            }
            Violation::MergeOfSeveralHeaders { merge, headers } => {
                format!("block {} is the merge block of several headers: {}", l(merge), ls(headers))
            }
            Violation::HeaderDoesNotDominateMerge { header, merge } => {
                format!("header {} does not strictly dominate its merge block {}", l(header), l(merge))
            }
            Violation::MergeIsContinueTarget { header } => {
                format!("loop header {}: merge block and continue target are the same block", l(header))
            }
            Violation::HeaderDoesNotDominateContinue { header, continue_target } => {
                format!("loop header {} does not dominate its continue target {}", l(header), l(continue_target))
            }
            Violation::BackEdgeToNonLoopHeader { from, to } => {
                format!("back edge {} -> {} does not go to a loop header", l(from), l(to))
            }
            Violation::LoopBackEdges { header, back_edge_blocks } => format!(
                "loop header {} is the target of {} back-edge blocks ({}), not exactly one",
                l(header),
                back_edge_blocks.len(),
                ls(back_edge_blocks)
            ),
            Violation::ContinueDoesNotDominateBackEdge { header, continue_target, back_edge } => format!(
                "loop {}: continue target {} does not dominate the back-edge block {}",
                l(header),
                l(continue_target),
                l(back_edge)
            ),
            Violation::BackEdgeDoesNotPostDominateContinue { header, continue_target, back_edge } => format!(
                "loop {}: back-edge block {} does not post-dominate the continue target {}",
                l(header),
                l(back_edge),
                l(continue_target)
            ),
            Violation::UnstructuredExit { kind, header, from, to } => format!(
                "edge {} -> {} leaves the {} construct of {} but is no structured exit",
                l(from),
                l(to),
                kind.name(),
                l(header)
            ),
            Violation::EnteredNotThroughHeader { kind, header, from, to } => format!(
                "edge {} -> {} enters the {} construct of {} other than through its header",
                l(from),
                l(to),
                kind.name(),
                l(header)
            ),
            Violation::MergeOutsideConstruct { kind, header, inner, merge } => format!(
                "header {} is inside the {} construct of {} but its merge block {} is not",
                l(inner),
                kind.name(),
                l(header),
                l(merge)
            ),
            Violation::ContinueEnteredFromOutsideLoop { header, continue_target, from } => format!(
                "block {} branches to the continue target {} of loop {} from outside the loop",
                l(from),
                l(continue_target),
                l(header)
            ),
            Violation::SwitchDoesNotDominateCase { header, case } => {
                format!("switch {} does not dominate its case {}", l(header), l(case))
            }
            Violation::CaseInvalidExit { header, case, from, to } => format!(
                "switch {}: case {} leaves by edge {} -> {}, which is no case, merge or loop exit",
                l(header),
                l(case),
                l(from),
                l(to)
            ),
            Violation::CaseFallsThroughToSeveral { header, case, first, second } => {
                format!("switch {}: case {} falls through to both {} and {}", l(header), l(case), l(first), l(second))
            }
            Violation::CaseFallThroughNotNext { header, case, target } => format!(
                "switch {}: case {} falls through to {}, which does not follow it in the switch",
                l(header),
                l(case),
                l(target)
            ),
            Violation::CaseEnteredFromSeveral { header, case, from } => {
                format!("switch {}: several cases fall through to case {}: {}", l(header), l(case), ls(from))
            }
        }
    }
}

/// Every structured-control-flow rule a graph breaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("function `{function}` breaks {} structured control-flow rule(s):{}", .violations.len(), bullets(.messages))]
pub struct StructuredViolations {
    pub function: String,
    pub violations: Vec<Violation>,
    /// `violations[i]` in words, with block labels.
    pub messages: Vec<String>,
}

fn bullets(messages: &[String]) -> String {
    messages.iter().map(|m| format!("\n  - {m}")).collect()
}

/// Checks `scfg` against the structured control-flow rules (original terminator kinds
/// inferred from slot counts).
pub fn check_structured(scfg: &Scfg) -> Result<(), StructuredViolations> {
    check_structured_with(scfg, None)
}

/// Like [`check_structured`]; with `func` (the function `scfg` was built from) the kind of
/// every original terminator is known, and slot counts are checked against it.
pub fn check_structured_with(scfg: &Scfg, func: Option<&Function>) -> Result<(), StructuredViolations> {
    let violations = violations(scfg, func);
    if violations.is_empty() {
        return Ok(());
    }
    let labels = Labels::new(scfg);
    let messages = violations.iter().map(|v| v.describe_with(&labels)).collect();
    Err(StructuredViolations { function: scfg.name.clone(), violations, messages })
}

/// The violations of `scfg`, in a deterministic order, each once.
pub fn violations(scfg: &Scfg, func: Option<&Function>) -> Vec<Violation> {
    let mut out = Vec::new();
    if let Some(graph) = Graph::build(scfg, func, &mut out) {
        Checker::new(&graph).run(&mut out);
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|v| seen.insert(v.clone()));
    out
}

// ------------------------------------------------------------------------------------------
// The graph, indexed by layout position.

const NONE: u32 = u32::MAX;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Hdr {
    Sel { merge: u32 },
    Loop { merge: u32, cont: u32 },
}

impl Hdr {
    fn merge(self) -> u32 {
        match self {
            Hdr::Sel { merge } | Hdr::Loop { merge, .. } => merge,
        }
    }
}

struct Graph<'a> {
    scfg: &'a Scfg,
    /// Layout blocks, duplicates dropped; node `i` is `nodes[i]`.
    nodes: Vec<SBlock>,
    index: SecondaryMap<SBlock, u32>,
    /// Successors that name layout blocks, in SPIR-V operand order ([`spirv_targets`]).
    slots: Vec<Vec<u32>>,
    /// Distinct CFG successors.
    succ: Vec<Vec<u32>>,
    /// Distinct CFG predecessors.
    pred: Vec<Vec<u32>>,
    /// Structural successors: merge, continue target, then the CFG successors.
    ssucc: Vec<Vec<u32>>,
    spred: Vec<Vec<u32>>,
    op: Vec<Op>,
    hdr: Vec<Option<Hdr>>,
}

fn push_unique(v: &mut Vec<u32>, x: u32) {
    if !v.contains(&x) {
        v.push(x);
    }
}

impl<'a> Graph<'a> {
    fn build(scfg: &'a Scfg, func: Option<&Function>, out: &mut Vec<Violation>) -> Option<Graph<'a>> {
        let mut index: SecondaryMap<SBlock, u32> = SecondaryMap::with_default(NONE);
        let mut nodes = Vec::with_capacity(scfg.layout.len());
        for &b in &scfg.layout {
            if scfg.blocks.get(b).is_none() {
                out.push(Violation::UnknownBlock { from: scfg.entry, target: b });
                continue;
            }
            if index[b] != NONE {
                out.push(Violation::DuplicateInLayout { block: b });
                continue;
            }
            index[b] = nodes.len() as u32;
            nodes.push(b);
        }
        if index[scfg.entry] == NONE {
            out.push(Violation::EntryNotInLayout { entry: scfg.entry });
            return None;
        }
        if nodes[0] != scfg.entry {
            out.push(Violation::EntryNotFirst { entry: scfg.entry, first: nodes[0] });
        }
        let n = nodes.len();
        let resolve = |from: SBlock, t: SBlock, out: &mut Vec<Violation>| -> Option<u32> {
            if scfg.blocks.get(t).is_none() {
                out.push(Violation::UnknownBlock { from, target: t });
                None
            } else if index[t] == NONE {
                out.push(Violation::NotInLayout { from, target: t });
                None
            } else {
                Some(index[t])
            }
        };
        let mut slots = vec![Vec::new(); n];
        let mut succ = vec![Vec::new(); n];
        let mut op = vec![Op::End; n];
        let mut hdr = vec![None; n];
        for (i, &b) in nodes.iter().enumerate() {
            let block = &scfg.blocks[b];
            let term = &block.term;
            op[i] = op_of(scfg, func, term);
            match term {
                Term::Dispatch { targets, .. } if targets.is_empty() => {
                    out.push(Violation::EmptyDispatch { block: b });
                }
                Term::Orig { block: ob, succs } => {
                    let found = succs.len();
                    match func {
                        Some(f) => match f.blocks.get(*ob) {
                            None => out.push(Violation::UnknownOriginal { block: b }),
                            Some(o) => {
                                let expected = o.terminator.successors().len();
                                if expected != found {
                                    out.push(Violation::OrigSlotCount { block: b, expected, found });
                                }
                            }
                        },
                        None => {
                            let expected = match orig_kind(scfg, None, *ob) {
                                Some(OrigKind::Br) => Some(1),
                                Some(OrigKind::CondBr) => Some(2),
                                Some(OrigKind::Exit) => Some(0),
                                Some(OrigKind::Switch) | None => None,
                            };
                            if let Some(expected) = expected.filter(|&e| e != found) {
                                out.push(Violation::OrigSlotCount { block: b, expected, found });
                            }
                        }
                    }
                }
                _ => {}
            }
            for t in spirv_targets(term) {
                if let Some(j) = resolve(b, t, out) {
                    slots[i].push(j);
                    push_unique(&mut succ[i], j);
                }
            }
            hdr[i] = match block.merge {
                None => None,
                Some(Merge::Selection { merge }) => resolve(b, merge, out).map(|m| Hdr::Sel { merge: m }),
                Some(Merge::Loop { merge, continue_target }) => {
                    let m = resolve(b, merge, out);
                    let c = resolve(b, continue_target, out);
                    match (m, c) {
                        (Some(merge), Some(cont)) => Some(Hdr::Loop { merge, cont }),
                        _ => None,
                    }
                }
            };
        }
        let mut pred = vec![Vec::new(); n];
        let mut ssucc = vec![Vec::new(); n];
        let mut spred = vec![Vec::new(); n];
        for i in 0..n {
            for &j in &succ[i] {
                pred[j as usize].push(i as u32);
            }
            match hdr[i] {
                Some(Hdr::Sel { merge }) => push_unique(&mut ssucc[i], merge),
                Some(Hdr::Loop { merge, cont }) => {
                    push_unique(&mut ssucc[i], merge);
                    push_unique(&mut ssucc[i], cont);
                }
                None => {}
            }
            for &j in &succ[i] {
                push_unique(&mut ssucc[i], j);
            }
            for &j in &ssucc[i] {
                spred[j as usize].push(i as u32);
            }
        }
        Some(Graph { scfg, nodes, index, slots, succ, pred, ssucc, spred, op, hdr })
    }

    fn n(&self) -> usize {
        self.nodes.len()
    }

    fn entry(&self) -> u32 {
        self.index[self.scfg.entry]
    }

    fn block(&self, i: u32) -> SBlock {
        self.nodes[i as usize]
    }
}

// ------------------------------------------------------------------------------------------
// Dominators.

/// A dominator tree with O(1) queries (pre/post numbers of the tree).
struct Dom {
    idom: Vec<u32>,
    pre: Vec<u32>,
    post: Vec<u32>,
    /// Reverse postorder of the nodes reachable from the root.
    rpo: Vec<u32>,
}

/// Depth-first postorder from `root`, successors visited in order (as a recursive DFS).
/// Calls `back(from, to)` for every edge to a node on the DFS stack.
fn dfs_postorder(
    root: u32,
    succ: &[Vec<u32>],
    visited: &mut [bool],
    post: &mut Vec<u32>,
    mut back: impl FnMut(u32, u32),
) {
    let n = succ.len();
    let mut on_stack = vec![false; n];
    let mut stack: Vec<(u32, usize)> = vec![(root, 0)];
    visited[root as usize] = true;
    on_stack[root as usize] = true;
    while let Some(top) = stack.last_mut() {
        let (v, k) = *top;
        if let Some(&w) = succ[v as usize].get(k) {
            top.1 += 1;
            if !visited[w as usize] {
                visited[w as usize] = true;
                on_stack[w as usize] = true;
                stack.push((w, 0));
            } else if on_stack[w as usize] {
                back(v, w);
            }
        } else {
            on_stack[v as usize] = false;
            post.push(v);
            stack.pop();
        }
    }
}

impl Dom {
    /// Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm" (2001).
    fn compute(root: u32, succ: &[Vec<u32>], pred: &[Vec<u32>]) -> Dom {
        let n = succ.len();
        let mut visited = vec![false; n];
        let mut post = Vec::with_capacity(n);
        dfs_postorder(root, succ, &mut visited, &mut post, |_, _| {});
        let mut po_num = vec![NONE; n];
        for (k, &v) in post.iter().enumerate() {
            po_num[v as usize] = k as u32;
        }
        let rpo: Vec<u32> = post.iter().rev().copied().collect();
        let mut idom = vec![NONE; n];
        idom[root as usize] = root;
        let intersect = |idom: &[u32], mut a: u32, mut b: u32| {
            while a != b {
                while po_num[a as usize] < po_num[b as usize] {
                    a = idom[a as usize];
                }
                while po_num[b as usize] < po_num[a as usize] {
                    b = idom[b as usize];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &v in rpo.iter().skip(1) {
                let mut new = NONE;
                for &p in &pred[v as usize] {
                    if idom[p as usize] == NONE {
                        continue;
                    }
                    new = if new == NONE { p } else { intersect(&idom, p, new) };
                }
                if new != NONE && idom[v as usize] != new {
                    idom[v as usize] = new;
                    changed = true;
                }
            }
        }
        // Tree numbering.
        let mut children = vec![Vec::new(); n];
        for &v in &rpo {
            if v != root {
                children[idom[v as usize] as usize].push(v);
            }
        }
        let mut pre_n = vec![NONE; n];
        let mut post_n = vec![NONE; n];
        let mut clock = 0u32;
        let mut stack: Vec<(u32, usize)> = vec![(root, 0)];
        pre_n[root as usize] = clock;
        clock += 1;
        while let Some(top) = stack.last_mut() {
            let (v, k) = *top;
            if let Some(&c) = children[v as usize].get(k) {
                top.1 += 1;
                pre_n[c as usize] = clock;
                clock += 1;
                stack.push((c, 0));
            } else {
                post_n[v as usize] = clock;
                clock += 1;
                stack.pop();
            }
        }
        Dom { idom, pre: pre_n, post: post_n, rpo }
    }

    fn reachable(&self, v: u32) -> bool {
        self.idom[v as usize] != NONE
    }

    fn dominates(&self, a: u32, b: u32) -> bool {
        self.reachable(a)
            && self.reachable(b)
            && self.pre[a as usize] <= self.pre[b as usize]
            && self.post[b as usize] <= self.post[a as usize]
    }

    fn idom(&self, v: u32) -> Option<u32> {
        match self.idom[v as usize] {
            x if x == NONE || x == v => None,
            x => Some(x),
        }
    }
}

// ------------------------------------------------------------------------------------------
// The checks.

struct Checker<'g, 'a> {
    g: &'g Graph<'a>,
    /// Dominators of the CFG (block order, reachability).
    dom: Dom,
    /// Structural dominators.
    sdom: Dom,
    /// Structural post-dominators; node `n` is the virtual exit.
    spdom: Dom,
    /// Real CFG edges that are retreating edges of a DFS of the structural CFG.
    back_edges: Vec<(u32, u32)>,
    /// For each block, the first header (other than itself) that names it as merge block.
    merge_header: Vec<u32>,
}

#[derive(Copy, Clone, Debug)]
struct Construct {
    kind: ConstructKind,
    header: u32,
    /// The merge block (selection, switch, loop) or the back-edge block (continue).
    exit: u32,
    /// The loop header (continue), or the loop's continue target (loop).
    other: u32,
    /// The loop's merge (continue).
    loop_merge: u32,
}

impl<'g, 'a> Checker<'g, 'a> {
    fn new(g: &'g Graph<'a>) -> Checker<'g, 'a> {
        let n = g.n();
        let entry = g.entry();
        let dom = Dom::compute(entry, &g.succ, &g.pred);
        let sdom = Dom::compute(entry, &g.ssucc, &g.spred);

        // Post-dominators of the structural CFG with a virtual exit (node n) whose
        // predecessors are the blocks without successors, plus one block of each region
        // that reaches none of them (the last in layout order, as spirv-val does).
        let mut sinks = Vec::new();
        let mut marked = vec![false; n];
        let mark = |from: u32, marked: &mut Vec<bool>| {
            let mut stack = vec![from];
            marked[from as usize] = true;
            while let Some(v) = stack.pop() {
                for &p in &g.spred[v as usize] {
                    if !marked[p as usize] {
                        marked[p as usize] = true;
                        stack.push(p);
                    }
                }
            }
        };
        for v in (0..n as u32).rev() {
            if g.ssucc[v as usize].is_empty() {
                sinks.push(v);
                mark(v, &mut marked);
            }
        }
        for v in (0..n as u32).rev() {
            if !marked[v as usize] {
                sinks.push(v);
                mark(v, &mut marked);
            }
        }
        let exit = n as u32;
        let mut rsucc: Vec<Vec<u32>> = g.spred.clone();
        rsucc.push(sinks.clone());
        let mut rpred: Vec<Vec<u32>> = g.ssucc.clone();
        rpred.push(Vec::new());
        for &s in &sinks {
            rpred[s as usize].push(exit);
        }
        let spdom = Dom::compute(exit, &rsucc, &rpred);

        // Back edges: retreating edges of a DFS of the structural CFG, kept if they are CFG
        // edges. As in spirv-val, the search starts from every block without structural
        // predecessors, then from every block not yet visited, both in layout order.
        let mut back = Vec::new();
        let mut visited = vec![false; n];
        let mut post = Vec::new();
        let mut roots: Vec<u32> = (0..n as u32).filter(|&v| g.spred[v as usize].is_empty()).collect();
        roots.extend(0..n as u32);
        for r in roots {
            if visited[r as usize] {
                continue;
            }
            dfs_postorder(r, &g.ssucc, &mut visited, &mut post, |from, to| {
                if g.succ[from as usize].contains(&to) {
                    back.push((from, to));
                }
            });
        }
        back.sort_unstable();
        back.dedup();

        let mut merge_header = vec![NONE; n];
        for h in 0..n {
            if let Some(hdr) = g.hdr[h] {
                let m = hdr.merge() as usize;
                if m != h && merge_header[m] == NONE {
                    merge_header[m] = h as u32;
                }
            }
        }
        Checker { g, dom, sdom, spdom, back_edges: back, merge_header }
    }

    fn b(&self, i: u32) -> SBlock {
        self.g.block(i)
    }

    fn sreach(&self, v: u32) -> bool {
        self.sdom.reachable(v)
    }

    fn run(&self, out: &mut Vec<Violation>) {
        self.layout_rules(out);
        self.terminator_rules(out);
        self.selection_rule(out);
        self.declaration_rules(out);
        self.construct_rules(out);
    }

    fn layout_rules(&self, out: &mut Vec<Violation>) {
        let g = self.g;
        let n = g.n();
        let mut named = vec![false; n];
        for h in g.hdr.iter().flatten() {
            match *h {
                Hdr::Sel { merge } => named[merge as usize] = true,
                Hdr::Loop { merge, cont } => {
                    named[merge as usize] = true;
                    named[cont as usize] = true;
                }
            }
        }
        let entry = g.entry();
        for v in 0..n as u32 {
            if !self.dom.reachable(v) && !named[v as usize] {
                out.push(Violation::UnreachableBlock { block: self.b(v) });
            }
            if let Some(d) = self.dom.idom(v) {
                if d > v {
                    out.push(Violation::BlockBeforeDominator { block: self.b(v), dominator: self.b(d) });
                }
            }
            if g.succ[v as usize].contains(&entry) {
                out.push(Violation::BranchToEntry { from: self.b(v) });
            }
        }
    }

    fn terminator_rules(&self, out: &mut Vec<Violation>) {
        let g = self.g;
        for v in 0..g.n() {
            let b = self.b(v as u32);
            match (g.hdr[v], g.op[v]) {
                (Some(Hdr::Loop { .. }), Op::Branch | Op::Cond) => {}
                (Some(Hdr::Loop { .. }), _) => out.push(Violation::LoopHeaderBadTerminator { header: b }),
                (Some(Hdr::Sel { .. }), Op::Cond | Op::Switch) => {}
                (Some(Hdr::Sel { .. }), _) => out.push(Violation::SelectionHeaderBadTerminator { header: b }),
                (None, _) => {}
            }
        }
    }

    /// spirv-val's "Selection must be structured": in reverse postorder of the structural
    /// CFG, a conditional branch of a block without selection merge must target at most one
    /// block that no earlier merge instruction or branch named.
    fn selection_rule(&self, out: &mut Vec<Violation>) {
        let g = self.g;
        let mut seen = vec![false; g.n()];
        for &v in &self.sdom.rpo {
            let v = v as usize;
            match g.hdr[v] {
                Some(Hdr::Sel { merge }) => seen[merge as usize] = true,
                Some(Hdr::Loop { merge, cont }) => {
                    seen[merge as usize] = true;
                    seen[cont as usize] = true;
                }
                None => {}
            }
            match g.op[v] {
                Op::Cond => {
                    let mut unseen = 0;
                    for &t in &g.slots[v] {
                        if !seen[t as usize] {
                            seen[t as usize] = true;
                            unseen += 1;
                        }
                    }
                    let selection = matches!(g.hdr[v], Some(Hdr::Sel { .. }));
                    if !selection && unseen >= 2 {
                        out.push(Violation::UnstructuredSelection { block: self.b(v as u32) });
                    }
                }
                Op::Switch => {
                    if g.hdr[v].is_none() {
                        out.push(Violation::SwitchWithoutSelectionMerge { block: self.b(v as u32) });
                    }
                    for &t in &g.slots[v] {
                        seen[t as usize] = true;
                    }
                }
                Op::Branch | Op::End => {}
            }
        }
    }

    fn declaration_rules(&self, out: &mut Vec<Violation>) {
        let g = self.g;
        let n = g.n();
        // Merge blocks named by several headers.
        let mut by_merge: Vec<Vec<u32>> = vec![Vec::new(); n];
        for h in 0..n {
            if let Some(hdr) = g.hdr[h] {
                by_merge[hdr.merge() as usize].push(h as u32);
            }
        }
        for (m, hs) in by_merge.iter().enumerate() {
            if hs.len() > 1 {
                out.push(Violation::MergeOfSeveralHeaders {
                    merge: self.b(m as u32),
                    headers: hs.iter().map(|&h| self.b(h)).collect(),
                });
            }
        }
        // Back edges go to loop headers; each reachable loop header has exactly one
        // back-edge block.
        let mut latches: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &(from, to) in &self.back_edges {
            if matches!(g.hdr[to as usize], Some(Hdr::Loop { .. })) {
                push_unique(&mut latches[to as usize], from);
            } else {
                out.push(Violation::BackEdgeToNonLoopHeader { from: self.b(from), to: self.b(to) });
            }
        }
        for h in 0..n as u32 {
            let Some(hdr) = g.hdr[h as usize] else { continue };
            // As in spirv-val: the operand rules of OpLoopMerge hold everywhere, the
            // dominance rules where the construct's first block is structurally reachable.
            let reachable = self.sreach(h);
            let merge = hdr.merge();
            let is_loop = matches!(hdr, Hdr::Loop { .. });
            if (merge == h && (reachable || is_loop)) || (reachable && !self.sdom.dominates(h, merge)) {
                out.push(Violation::HeaderDoesNotDominateMerge { header: self.b(h), merge: self.b(merge) });
            }
            if let Hdr::Loop { merge, cont } = hdr {
                if merge == cont {
                    out.push(Violation::MergeIsContinueTarget { header: self.b(h) });
                }
                if reachable && !self.sdom.dominates(h, cont) {
                    out.push(Violation::HeaderDoesNotDominateContinue {
                        header: self.b(h),
                        continue_target: self.b(cont),
                    });
                }
                // A reachable header makes its continue target reachable; the continue
                // construct is checked whenever its continue target is reachable.
                if !self.sreach(cont) {
                    continue;
                }
                let l = &latches[h as usize];
                if l.len() != 1 {
                    out.push(Violation::LoopBackEdges {
                        header: self.b(h),
                        back_edge_blocks: l.iter().map(|&x| self.b(x)).collect(),
                    });
                    continue;
                }
                let latch = l[0];
                if !self.sdom.dominates(cont, latch) {
                    out.push(Violation::ContinueDoesNotDominateBackEdge {
                        header: self.b(h),
                        continue_target: self.b(cont),
                        back_edge: self.b(latch),
                    });
                }
                if !self.spdom.dominates(latch, cont) {
                    out.push(Violation::BackEdgeDoesNotPostDominateContinue {
                        header: self.b(h),
                        continue_target: self.b(cont),
                        back_edge: self.b(latch),
                    });
                }
            }
        }
    }

    /// The back-edge block of loop header `h`, if it has exactly one.
    fn latch(&self, h: u32) -> Option<u32> {
        let mut it = self.back_edges.iter().filter(|&&(_, to)| to == h).map(|&(from, _)| from);
        let first = it.next()?;
        if it.any(|x| x != first) {
            None
        } else {
            Some(first)
        }
    }

    fn constructs(&self) -> Vec<Construct> {
        let g = self.g;
        let mut cs = Vec::new();
        for h in 0..g.n() as u32 {
            let reachable = self.sreach(h);
            match g.hdr[h as usize] {
                Some(Hdr::Sel { merge }) if reachable => {
                    let kind =
                        if g.op[h as usize] == Op::Switch { ConstructKind::Switch } else { ConstructKind::Selection };
                    cs.push(Construct { kind, header: h, exit: merge, other: NONE, loop_merge: NONE });
                }
                Some(Hdr::Loop { merge, cont }) => {
                    if reachable {
                        cs.push(Construct {
                            kind: ConstructKind::Loop,
                            header: h,
                            exit: merge,
                            other: cont,
                            loop_merge: NONE,
                        });
                    }
                    if let Some(latch) = self.latch(h) {
                        if self.sreach(cont) {
                            cs.push(Construct {
                                kind: ConstructKind::Continue,
                                header: cont,
                                exit: latch,
                                other: h,
                                loop_merge: merge,
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        cs
    }

    /// The blocks of a construct, found as spirv-val does: a search from the header over
    /// structural successors through the blocks the definition admits.
    fn blocks(&self, c: &Construct) -> Vec<bool> {
        let n = self.g.n();
        let mut member = vec![false; n];
        let admits = |b: u32| -> bool {
            if !self.sdom.dominates(c.header, b) {
                return false;
            }
            match c.kind {
                ConstructKind::Continue => self.spdom.dominates(c.exit, b) || !self.sdom.dominates(c.exit, b),
                ConstructKind::Loop => !self.sdom.dominates(c.exit, b) && !self.sdom.dominates(c.other, b),
                _ => !self.sdom.dominates(c.exit, b),
            }
        };
        let mut stack = vec![c.header];
        while let Some(b) = stack.pop() {
            if member[b as usize] || !admits(b) {
                continue;
            }
            member[b as usize] = true;
            stack.extend(self.g.ssucc[b as usize].iter().copied());
        }
        member
    }

    /// spirv-val's `NextBlock`: the header that names `b` as its merge, else `b`'s
    /// structural immediate dominator.
    fn next_out(&self, b: u32) -> Option<u32> {
        let h = self.merge_header[b as usize];
        if h != NONE && self.sdom.dominates(h, b) {
            return Some(h);
        }
        self.sdom.idom(b)
    }

    fn is_structured_exit(&self, c: &Construct, dest: u32) -> bool {
        let g = self.g;
        match c.kind {
            ConstructKind::Loop => dest == c.exit || dest == c.other,
            ConstructKind::Continue => dest == c.other || dest == c.loop_merge,
            ConstructKind::Selection | ConstructKind::Switch | ConstructKind::Case => {
                if dest == c.exit {
                    return true;
                }
                let header_is_switch = g.op[c.header as usize] == Op::Switch;
                let mut seen_switch = false;
                let mut cur = self.next_out(c.header);
                let mut steps = 0;
                while let Some(b) = cur {
                    steps += 1;
                    if steps > g.n() + 1 {
                        break;
                    }
                    let bi = b as usize;
                    let hdr = g.hdr[bi];
                    let is_loop = matches!(hdr, Some(Hdr::Loop { .. }));
                    let is_outer_switch =
                        !header_is_switch && matches!(hdr, Some(Hdr::Sel { .. })) && g.op[bi] == Op::Switch;
                    if let (Some(hdr), true) = (hdr, is_loop || is_outer_switch) {
                        let merge = hdr.merge();
                        if self.sdom.dominates(merge, c.header) {
                            cur = self.next_out(b);
                            continue;
                        }
                        if (!seen_switch || is_loop) && dest == merge {
                            return true;
                        }
                        if let Hdr::Loop { cont, .. } = hdr {
                            if dest == cont {
                                return true;
                            }
                        }
                        if g.op[bi] == Op::Switch {
                            seen_switch = true;
                        }
                        if is_loop {
                            return false;
                        }
                    }
                    cur = self.next_out(b);
                }
                false
            }
        }
    }

    fn construct_rules(&self, out: &mut Vec<Violation>) {
        let g = self.g;
        for c in self.constructs() {
            let member = self.blocks(&c);
            let header = self.b(c.header);
            for b in 0..g.n() as u32 {
                if !member[b as usize] {
                    continue;
                }
                for &s in &g.succ[b as usize] {
                    if !member[s as usize] && !self.is_structured_exit(&c, s) {
                        out.push(Violation::UnstructuredExit { kind: c.kind, header, from: self.b(b), to: self.b(s) });
                    }
                }
                if b == c.header {
                    continue;
                }
                for &p in &g.pred[b as usize] {
                    if self.sreach(p) && !member[p as usize] {
                        out.push(Violation::EnteredNotThroughHeader {
                            kind: c.kind,
                            header,
                            from: self.b(p),
                            to: self.b(b),
                        });
                    }
                }
                if let Some(hdr) = g.hdr[b as usize] {
                    let m = hdr.merge();
                    if self.sreach(m) && !member[m as usize] {
                        out.push(Violation::MergeOutsideConstruct {
                            kind: c.kind,
                            header,
                            inner: self.b(b),
                            merge: self.b(m),
                        });
                    }
                }
            }
            if c.kind == ConstructKind::Loop && c.other != c.header {
                let cont = c.other;
                for &p in &g.pred[cont as usize] {
                    if !self.sreach(p) || member[p as usize] {
                        continue;
                    }
                    if self.back_edges.contains(&(p, cont)) {
                        continue;
                    }
                    out.push(Violation::ContinueEnteredFromOutsideLoop {
                        header,
                        continue_target: self.b(cont),
                        from: self.b(p),
                    });
                }
            }
            if c.kind == ConstructKind::Switch {
                self.switch_rules(&c, out);
            }
        }
    }

    /// The case rules of one switch construct (spirv-val's `StructuredSwitchChecks`).
    fn switch_rules(&self, c: &Construct, out: &mut Vec<Violation>) {
        let g = self.g;
        let h = c.header;
        let header = self.b(h);
        let merge = c.exit;
        let targets = &g.slots[h as usize];
        if targets.is_empty() {
            return;
        }
        let is_case = |t: u32| t != merge && targets.contains(&t);
        let default = targets[0];
        let default_repeated = targets[1..].contains(&default);
        // Fall-through target of each distinct case target.
        let mut fall_of: HashMap<u32, Option<u32>> = HashMap::new();
        let mut fallen_into: Vec<(u32, Vec<u32>)> = Vec::new();
        let mut default_fall: Option<u32> = None;
        for (i, &t) in targets.iter().enumerate() {
            if t == merge {
                continue;
            }
            let fall = match fall_of.get(&t) {
                Some(f) => *f,
                None => {
                    if self.sreach(h) && self.sreach(t) && !self.sdom.dominates(h, t) {
                        out.push(Violation::SwitchDoesNotDominateCase { header, case: self.b(t) });
                    }
                    let f = self.case_fall_through(c, t, &is_case, out);
                    if let Some(f) = f {
                        match fallen_into.iter_mut().find(|(x, _)| *x == f) {
                            Some((_, from)) => from.push(t),
                            None => fallen_into.push((f, vec![t])),
                        }
                    }
                    fall_of.insert(t, f);
                    f
                }
            };
            let mut fall = fall;
            if fall == Some(default) && !default_repeated {
                fall = default_fall;
            }
            let Some(f) = fall else { continue };
            if i == 0 {
                default_fall = Some(f);
                continue;
            }
            let mut j = i;
            while j + 1 < targets.len() && targets[j + 1] == t {
                j += 1;
            }
            if j + 1 >= targets.len() || targets[j + 1] != f {
                out.push(Violation::CaseFallThroughNotNext { header, case: self.b(t), target: self.b(f) });
            }
        }
        for (f, from) in fallen_into {
            if from.len() > 1 {
                out.push(Violation::CaseEnteredFromSeveral {
                    header,
                    case: self.b(f),
                    from: from.iter().map(|&x| self.b(x)).collect(),
                });
            }
        }
    }

    /// Searches the case construct of `target`; returns the case it falls through to.
    fn case_fall_through(
        &self,
        c: &Construct,
        target: u32,
        is_case: &dyn Fn(u32) -> bool,
        out: &mut Vec<Violation>,
    ) -> Option<u32> {
        let g = self.g;
        let merge = c.exit;
        let mut fall: Option<u32> = None;
        let mut visited = vec![false; g.n()];
        let reachable = self.sreach(target);
        // (block, the block that branched to it)
        let mut stack = vec![(target, target)];
        while let Some((b, from)) = stack.pop() {
            if b == merge || visited[b as usize] {
                continue;
            }
            visited[b as usize] = true;
            if reachable && self.sreach(b) && self.sdom.dominates(target, b) {
                for &s in g.succ[b as usize].iter().rev() {
                    stack.push((s, b));
                }
                continue;
            }
            if !is_case(b) {
                if !self.is_structured_exit(c, b) {
                    out.push(Violation::CaseInvalidExit {
                        header: self.b(c.header),
                        case: self.b(target),
                        from: self.b(from),
                        to: self.b(b),
                    });
                }
                continue;
            }
            match fall {
                None if b != target => fall = Some(b),
                Some(f) if f != b => out.push(Violation::CaseFallsThroughToSeveral {
                    header: self.b(c.header),
                    case: self.b(target),
                    first: self.b(f),
                    second: self.b(b),
                }),
                _ => {}
            }
        }
        fall
    }
}

/// A small builder of hand-made [`Scfg`]s for unit tests (shared with the DOT and text
/// renderers' tests).
pub mod testing {
    use cranelift_entity::{EntityRef, PrimaryMap};
    use smallvec::SmallVec;
    use untangle::ir::{Block as IrBlock, BlockId, Function, Terminator, Value};
    use untangle::passes::scfg::{Merge, OrigKind, Origin, SBlock, Scfg, SyntheticKind, Term, VarKind};

    pub struct G {
        pub scfg: Scfg,
        names: Vec<(String, SBlock)>,
        /// Original terminators by `BlockId` index (for [`G::function`]).
        terms: Vec<Terminator>,
    }

    impl G {
        /// One original block per name, in layout order; the first is the entry. Every block
        /// returns until told otherwise.
        pub fn new(names: &[&str]) -> G {
            let scfg = Scfg::empty("f".into());
            let mut g = G { scfg, names: Vec::new(), terms: Vec::new() };
            for name in names {
                g.add(name);
            }
            g
        }

        /// A new original block (returning), appended to the layout.
        pub fn add(&mut self, name: &str) -> SBlock {
            let i = self.terms.len();
            let o = BlockId::new(i);
            let b = self.scfg.add_block(Origin::Original(o), Term::Orig { block: o, succs: SmallVec::new() });
            self.scfg.layout.push(b);
            self.scfg.original_numbers.push((o, i as u32));
            self.scfg.original_labels.push(name.to_string());
            self.scfg.original_kinds.push(OrigKind::Exit);
            self.terms.push(Terminator::Ret { value: None });
            self.names.push((name.to_string(), b));
            b
        }

        /// A synthetic block, appended to the layout, known to the builder as `name`.
        pub fn synth(&mut self, name: &str, kind: SyntheticKind) -> SBlock {
            let b = self.scfg.add_block(Origin::Synthetic(kind), Term::Unreachable);
            self.scfg.layout.push(b);
            self.names.push((name.to_string(), b));
            b
        }

        pub fn b(&self, name: &str) -> SBlock {
            match self.names.iter().find(|(n, _)| n == name) {
                Some((_, b)) => *b,
                None => panic!("test graph has no block {name}"),
            }
        }

        fn bs(&self, names: &[&str]) -> SmallVec<[SBlock; 4]> {
            names.iter().map(|n| self.b(n)).collect()
        }

        fn orig(&mut self, a: &str, kind: OrigKind, term: Terminator, targets: &[&str]) -> &mut G {
            let b = self.b(a);
            let o = match self.scfg.blocks[b].origin {
                Origin::Original(o) => o,
                Origin::Synthetic(_) => panic!("{a} is synthetic"),
            };
            self.scfg.original_kinds[o.index()] = kind;
            self.terms[o.index()] = term;
            let succs = self.bs(targets).into_iter().collect();
            self.scfg.blocks[b].term = Term::Orig { block: o, succs };
            self
        }

        fn id(&self, name: &str) -> BlockId {
            match self.scfg.blocks[self.b(name)].origin {
                Origin::Original(o) => o,
                Origin::Synthetic(_) => BlockId::new(0),
            }
        }

        pub fn goto(&mut self, a: &str, t: &str) -> &mut G {
            let t = self.b(t);
            let a = self.b(a);
            self.scfg.blocks[a].term = Term::Goto(t);
            self
        }

        pub fn br(&mut self, a: &str, t: &str) -> &mut G {
            let term = Terminator::Br { target: self.id(t) };
            self.orig(a, OrigKind::Br, term, &[t])
        }

        pub fn cond(&mut self, a: &str, t: &str, f: &str) -> &mut G {
            let term = Terminator::CondBr { cond: Value::Arg(0), if_true: self.id(t), if_false: self.id(f) };
            self.orig(a, OrigKind::CondBr, term, &[t, f])
        }

        /// An original switch: `targets[0]` is the default, case k has value 10 * k.
        pub fn switch(&mut self, a: &str, targets: &[&str]) -> &mut G {
            let term = Terminator::Switch {
                value: Value::Arg(0),
                default: self.id(targets[0]),
                cases: targets[1..].iter().enumerate().map(|(k, t)| (10 * (k as u64 + 1), self.id(t))).collect(),
            };
            self.orig(a, OrigKind::Switch, term, targets)
        }

        pub fn ret(&mut self, a: &str) -> &mut G {
            self.orig(a, OrigKind::Exit, Terminator::Ret { value: None }, &[])
        }

        pub fn dead(&mut self, a: &str) -> &mut G {
            let a = self.b(a);
            self.scfg.blocks[a].term = Term::Unreachable;
            self
        }

        /// A dispatch on a new selector variable.
        pub fn dispatch(&mut self, a: &str, targets: &[&str]) -> &mut G {
            let var = self.scfg.vars.push(VarKind::Selector);
            let targets = self.bs(targets);
            let a = self.b(a);
            self.scfg.blocks[a].term = Term::Dispatch { var, targets };
            self
        }

        pub fn sel(&mut self, h: &str, merge: &str) -> &mut G {
            let merge = self.b(merge);
            let h = self.b(h);
            self.scfg.blocks[h].merge = Some(Merge::Selection { merge });
            self
        }

        pub fn lp(&mut self, h: &str, merge: &str, cont: &str) -> &mut G {
            let (merge, continue_target) = (self.b(merge), self.b(cont));
            let h = self.b(h);
            self.scfg.blocks[h].merge = Some(Merge::Loop { merge, continue_target });
            self
        }

        pub fn order(&mut self, names: &[&str]) -> &mut G {
            self.scfg.layout = names.iter().map(|n| self.b(n)).collect();
            self
        }

        /// The original function the graph's original blocks come from.
        pub fn function(&self) -> Function {
            let mut blocks = PrimaryMap::new();
            for (i, t) in self.terms.iter().enumerate() {
                blocks.push(IrBlock {
                    name: self.scfg.original_labels.get(i).cloned(),
                    insts: Vec::new(),
                    terminator: t.clone(),
                });
            }
            Function {
                name: self.scfg.name.clone(),
                ty: untangle::ir::TypeId::new(0),
                ret: untangle::ir::TypeId::new(0),
                params: Vec::new(),
                blocks,
                insts: PrimaryMap::new(),
                layout: (0..self.terms.len()).map(BlockId::new).collect(),
            }
        }
    }

    /// entry: if (a) else (b), merge m.
    pub fn if_else() -> G {
        let mut g = G::new(&["entry", "a", "b", "m"]);
        g.cond("entry", "a", "b").sel("entry", "m").br("a", "m").br("b", "m").ret("m");
        g
    }

    /// entry -> h; loop h (merge exit, continue c): if h.cond { a } else break;
    /// a: if a.cond break else b; b: if b.cond continue else d; d -> c; c -> h.
    pub fn loop_break_continue() -> G {
        let mut g = G::new(&["entry", "h", "a", "b", "d", "c", "exit"]);
        g.br("entry", "h").lp("h", "exit", "c").cond("h", "a", "exit");
        g.cond("a", "exit", "b").cond("b", "c", "d").br("d", "c").br("c", "h").ret("exit");
        g
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{if_else, loop_break_continue, G};
    use super::*;
    use untangle::passes::scfg::SyntheticKind;

    fn vs(g: &G) -> Vec<Violation> {
        violations(&g.scfg, None)
    }

    #[track_caller]
    fn ok(g: &G) {
        let v = vs(g);
        assert!(v.is_empty(), "expected no violations, got {:#?}", v);
        assert!(check_structured(&g.scfg).is_ok());
    }

    #[track_caller]
    fn has(g: &G, want: Violation) {
        let v = vs(g);
        assert!(v.contains(&want), "expected {want:?} among {v:#?}");
        let err = check_structured(&g.scfg).expect_err("violations");
        assert_eq!(err.violations, v);
    }

    #[test]
    fn valid_graphs() {
        ok(&if_else());
        ok(&loop_break_continue());
        // Straight line code needs no merges.
        let mut g = G::new(&["entry", "a"]);
        g.br("entry", "a");
        ok(&g);
    }

    #[test]
    fn display_lists_every_violation_with_labels() {
        let mut g = if_else();
        g.order(&["entry", "a", "b"]);
        let err = check_structured(&g.scfg).expect_err("m is not in the layout");
        let text = err.to_string();
        assert!(text.starts_with("function `f` breaks"), "{text}");
        assert_eq!(text.lines().count(), 1 + err.violations.len(), "{text}");
        assert!(text.contains("block a names block m, which is not in the layout"), "{text}");
    }

    // ---- layout ----

    #[test]
    fn entry_first() {
        let mut g = if_else();
        g.order(&["a", "entry", "b", "m"]);
        has(&g, Violation::EntryNotFirst { entry: g.b("entry"), first: g.b("a") });
        let mut g = if_else();
        g.order(&["a", "b", "m"]);
        has(&g, Violation::EntryNotInLayout { entry: g.b("entry") });
    }

    #[test]
    fn duplicate_in_layout() {
        let mut g = if_else();
        g.order(&["entry", "a", "b", "a", "m"]);
        has(&g, Violation::DuplicateInLayout { block: g.b("a") });
    }

    #[test]
    fn successors_in_layout() {
        let mut g = if_else();
        g.order(&["entry", "a", "m"]);
        has(&g, Violation::NotInLayout { from: g.b("entry"), target: g.b("b") });
        let mut g = if_else();
        let a = g.b("a");
        g.scfg.blocks[a].term = Term::Goto(SBlock::from_u32(99));
        has(&g, Violation::UnknownBlock { from: a, target: SBlock::from_u32(99) });
    }

    #[test]
    fn unreachable_blocks() {
        let mut g = G::new(&["entry", "z"]);
        has(&g, Violation::UnreachableBlock { block: g.b("z") });
        // An unreachable merge block is allowed.
        g = G::new(&["entry", "a", "b", "m"]);
        g.cond("entry", "a", "b").sel("entry", "m").dead("m");
        ok(&g);
        // So is an unreachable continue target that branches back to its header.
        g = G::new(&["entry", "h", "a", "c", "exit"]);
        g.br("entry", "h").lp("h", "exit", "c").br("h", "a").cond("a", "exit", "exit").br("c", "h");
        ok(&g);
    }

    #[test]
    fn block_order() {
        let mut g = G::new(&["entry", "a", "b"]);
        g.br("entry", "a").br("a", "b");
        ok(&g);
        g.order(&["entry", "b", "a"]);
        has(&g, Violation::BlockBeforeDominator { block: g.b("b"), dominator: g.b("a") });
    }

    #[test]
    fn branch_to_entry() {
        let mut g = G::new(&["entry", "a"]);
        g.br("entry", "a").br("a", "entry");
        has(&g, Violation::BranchToEntry { from: g.b("a") });
    }

    #[test]
    fn orig_slot_counts() {
        let mut g = if_else();
        let a = g.b("a");
        let o = g.scfg.blocks[a].original().expect("original");
        g.scfg.blocks[a].term = Term::Orig { block: o, succs: smallvec::smallvec![g.b("m"), g.b("m")] };
        has(&g, Violation::OrigSlotCount { block: a, expected: 1, found: 2 });
        let f = if_else().function();
        assert_eq!(violations(&if_else().scfg, Some(&f)), vec![]);
        assert!(violations(&g.scfg, Some(&f)).contains(&Violation::OrigSlotCount { block: a, expected: 1, found: 2 }));
    }

    // ---- terminators ----

    #[test]
    fn switch_needs_selection_merge() {
        let mut g = G::new(&["entry", "x", "y", "z", "m"]);
        g.switch("entry", &["x", "y", "z"]).br("x", "m").br("y", "m").br("z", "m");
        has(&g, Violation::SwitchWithoutSelectionMerge { block: g.b("entry") });
        g.sel("entry", "m");
        ok(&g);
        // A dispatch of three targets is a switch too; of two, a conditional branch.
        let mut g = G::new(&["entry", "x", "y", "z", "m"]);
        g.dispatch("entry", &["x", "y", "z"]).br("x", "m").br("y", "m").br("z", "m");
        has(&g, Violation::SwitchWithoutSelectionMerge { block: g.b("entry") });
        let mut g = G::new(&["entry", "x", "y", "m"]);
        g.dispatch("entry", &["x", "y"]).br("x", "m").br("y", "m");
        has(&g, Violation::UnstructuredSelection { block: g.b("entry") });
    }

    #[test]
    fn two_slot_switch_is_a_switch() {
        // With `original_kinds`, a switch with one case is still an OpSwitch.
        let mut g = G::new(&["entry", "x", "y", "m"]);
        g.switch("entry", &["x", "y"]).br("x", "m").br("y", "m");
        has(&g, Violation::SwitchWithoutSelectionMerge { block: g.b("entry") });
        assert!(!vs(&g).contains(&Violation::UnstructuredSelection { block: g.b("entry") }));
    }

    #[test]
    fn loop_header_terminator() {
        let mut g = loop_break_continue();
        ok(&g);
        g.switch("h", &["a", "exit", "c"]);
        has(&g, Violation::LoopHeaderBadTerminator { header: g.b("h") });
    }

    #[test]
    fn selection_header_terminator() {
        let mut g = G::new(&["entry", "a", "m"]);
        g.br("entry", "a").sel("entry", "m").br("a", "m");
        has(&g, Violation::SelectionHeaderBadTerminator { header: g.b("entry") });
    }

    #[test]
    fn selection_must_be_structured() {
        let mut g = if_else();
        let entry = g.b("entry");
        g.scfg.blocks[entry].merge = None;
        has(&g, Violation::UnstructuredSelection { block: g.b("entry") });
        // A loop header's conditional branch must target its merge or continue target.
        let mut g = loop_break_continue();
        g.cond("h", "a", "d");
        has(&g, Violation::UnstructuredSelection { block: g.b("h") });
        // A conditional break needs no merge (tested in the valid loop); a branch to an
        // enclosing selection's merge neither.
        let mut g = G::new(&["entry", "a", "b", "m"]);
        g.cond("entry", "a", "m").sel("entry", "m").cond("a", "b", "m").br("b", "m");
        ok(&g);
    }

    // ---- merge and continue declarations ----

    #[test]
    fn merge_of_several_headers() {
        let mut g = G::new(&["entry", "a", "b", "m"]);
        g.cond("entry", "a", "m").sel("entry", "m").cond("a", "b", "m").sel("a", "m").br("b", "m");
        has(&g, Violation::MergeOfSeveralHeaders { merge: g.b("m"), headers: vec![g.b("entry"), g.b("a")] });
        // A loop and a selection cannot share a merge either.
        let mut g = loop_break_continue();
        g.cond("a", "b", "exit").sel("a", "exit");
        has(&g, Violation::MergeOfSeveralHeaders { merge: g.b("exit"), headers: vec![g.b("h"), g.b("a")] });
    }

    #[test]
    fn header_dominates_merge() {
        let mut g = G::new(&["entry", "h", "y", "x", "m"]);
        g.cond("entry", "h", "m").sel("entry", "m").cond("h", "y", "x").sel("h", "x").br("y", "x").br("x", "m");
        ok(&g);
        // Now x is reachable from entry without passing h.
        let mut g = G::new(&["entry", "h", "x", "y", "m"]);
        g.cond("entry", "h", "x").sel("entry", "m").cond("h", "y", "x").sel("h", "x").br("x", "m").br("y", "x");
        has(&g, Violation::HeaderDoesNotDominateMerge { header: g.b("h"), merge: g.b("x") });
        // A header is not its own merge.
        let mut g = if_else();
        g.sel("entry", "entry");
        has(&g, Violation::HeaderDoesNotDominateMerge { header: g.b("entry"), merge: g.b("entry") });
    }

    #[test]
    fn merge_is_not_continue() {
        let mut g = loop_break_continue();
        g.lp("h", "c", "c");
        has(&g, Violation::MergeIsContinueTarget { header: g.b("h") });
    }

    #[test]
    fn header_dominates_continue() {
        // entry branches straight to the continue target of h.
        let mut g = G::new(&["entry", "h", "b", "c", "exit", "m"]);
        g.cond("entry", "h", "c").sel("entry", "m").lp("h", "exit", "c").cond("h", "b", "exit");
        g.br("b", "c").cond("c", "h", "exit").br("exit", "m");
        has(&g, Violation::HeaderDoesNotDominateContinue { header: g.b("h"), continue_target: g.b("c") });
        assert!(vs(&g).contains(&Violation::ContinueEnteredFromOutsideLoop {
            header: g.b("h"),
            continue_target: g.b("c"),
            from: g.b("entry"),
        }));
    }

    #[test]
    fn back_edges_go_to_loop_headers() {
        let mut g = G::new(&["entry", "a", "b", "x"]);
        g.br("entry", "a").br("a", "b").cond("b", "a", "x");
        has(&g, Violation::BackEdgeToNonLoopHeader { from: g.b("b"), to: g.b("a") });
    }

    #[test]
    fn one_back_edge_per_loop() {
        // Two back-edge blocks: c and a.
        let mut g = loop_break_continue();
        g.cond("a", "h", "b");
        has(&g, Violation::LoopBackEdges { header: g.b("h"), back_edge_blocks: vec![g.b("a"), g.b("c")] });
        // None: c leaves to the merge.
        let mut g = loop_break_continue();
        g.br("c", "exit");
        has(&g, Violation::LoopBackEdges { header: g.b("h"), back_edge_blocks: vec![] });
    }

    #[test]
    fn continue_dominates_back_edge() {
        // The back-edge block l is reached from the loop body without the continue target.
        let mut g = G::new(&["entry", "h", "b", "c", "l", "exit"]);
        g.br("entry", "h").lp("h", "exit", "c").cond("h", "b", "exit").cond("b", "c", "l");
        g.br("c", "l").br("l", "h");
        has(
            &g,
            Violation::ContinueDoesNotDominateBackEdge {
                header: g.b("h"),
                continue_target: g.b("c"),
                back_edge: g.b("l"),
            },
        );
    }

    #[test]
    fn back_edge_post_dominates_continue() {
        // The continue target may leave the loop without passing the back-edge block.
        let mut g = G::new(&["entry", "h", "c", "l", "exit"]);
        g.br("entry", "h").lp("h", "exit", "c").br("h", "c").cond("c", "l", "exit").br("l", "h");
        has(
            &g,
            Violation::BackEdgeDoesNotPostDominateContinue {
                header: g.b("h"),
                continue_target: g.b("c"),
                back_edge: g.b("l"),
            },
        );
        // A conditional back edge from the continue target itself is fine (do-while).
        let mut g = G::new(&["entry", "h", "c", "exit"]);
        g.br("entry", "h").lp("h", "exit", "c").br("h", "c").cond("c", "h", "exit");
        ok(&g);
        // And so is a single-block loop (the header is its own continue target).
        let mut g = G::new(&["entry", "h", "exit"]);
        g.br("entry", "h").lp("h", "exit", "h").cond("h", "h", "exit");
        ok(&g);
    }

    // ---- constructs ----

    #[test]
    fn exits_must_be_structured() {
        // From an inner selection straight to the outer selection's merge.
        let mut g = G::new(&["entry", "a", "b", "n", "m"]);
        g.cond("entry", "a", "m").sel("entry", "m").cond("a", "b", "n").sel("a", "n");
        g.br("b", "m").br("n", "m");
        has(
            &g,
            Violation::UnstructuredExit {
                kind: ConstructKind::Selection,
                header: g.b("a"),
                from: g.b("b"),
                to: g.b("m"),
            },
        );
        // A break from an if inside a loop is structured.
        let mut g = G::new(&["entry", "h", "a", "b", "j", "c", "exit"]);
        g.br("entry", "h").lp("h", "exit", "c").cond("h", "a", "exit").cond("a", "b", "j").sel("a", "j");
        g.br("b", "exit").br("j", "c").br("c", "h");
        ok(&g);
        // A break from an inner loop to the outer loop's merge is not.
        let mut g = G::new(&["entry", "h1", "h2", "x", "c2", "m2", "c1", "m1"]);
        g.br("entry", "h1").lp("h1", "m1", "c1").br("h1", "h2");
        g.lp("h2", "m2", "c2").cond("h2", "x", "m2").cond("x", "c2", "m1").br("c2", "h2");
        g.br("m2", "c1").cond("c1", "h1", "m1");
        has(
            &g,
            Violation::UnstructuredExit { kind: ConstructKind::Loop, header: g.b("h2"), from: g.b("x"), to: g.b("m1") },
        );
        g.cond("x", "c2", "m2");
        ok(&g);
    }

    #[test]
    fn constructs_entered_through_header() {
        // a jumps into the middle of entry's selection? No: m -> n where n is inside it.
        let mut g = G::new(&["entry", "a", "m", "n"]);
        g.cond("entry", "a", "m").sel("entry", "m").br("a", "n").br("m", "n");
        has(
            &g,
            Violation::EnteredNotThroughHeader {
                kind: ConstructKind::Selection,
                header: g.b("entry"),
                from: g.b("m"),
                to: g.b("n"),
            },
        );
    }

    #[test]
    fn nested_merges_inside() {
        // The selection in the loop body merges at the continue target.
        let mut g = G::new(&["entry", "h", "a", "b", "c", "exit"]);
        g.br("entry", "h").lp("h", "exit", "c").cond("h", "a", "exit").cond("a", "b", "c").sel("a", "c");
        g.br("b", "c").br("c", "h");
        has(
            &g,
            Violation::MergeOutsideConstruct {
                kind: ConstructKind::Loop,
                header: g.b("h"),
                inner: g.b("a"),
                merge: g.b("c"),
            },
        );
    }

    #[test]
    fn continue_target_entered_from_loop_only() {
        // The continue target is entered from the merge of the loop.
        let mut g = G::new(&["entry", "h", "b", "c", "exit", "end"]);
        g.br("entry", "h").lp("h", "exit", "c").cond("h", "b", "exit").br("b", "c").br("c", "h");
        g.cond("exit", "c", "end");
        has(
            &g,
            Violation::ContinueEnteredFromOutsideLoop {
                header: g.b("h"),
                continue_target: g.b("c"),
                from: g.b("exit"),
            },
        );
    }

    // ---- switches ----

    fn switch3() -> G {
        let mut g = G::new(&["entry", "d", "c1", "c2", "m"]);
        g.switch("entry", &["d", "c1", "c2"]).sel("entry", "m").br("d", "m").br("c1", "c2").br("c2", "m");
        g
    }

    #[test]
    fn switch_fall_through() {
        ok(&switch3());
        // c2 falls through to c1, which precedes it.
        let mut g = switch3();
        g.br("c1", "m").br("c2", "c1");
        has(&g, Violation::CaseFallThroughNotNext { header: g.b("entry"), case: g.b("c2"), target: g.b("c1") });
        // c1 falls through to two cases.
        let mut g = switch3();
        g.cond("c1", "c2", "d");
        has(
            &g,
            Violation::CaseFallsThroughToSeveral {
                header: g.b("entry"),
                case: g.b("c1"),
                first: g.b("c2"),
                second: g.b("d"),
            },
        );
        // The default and c1 both fall through to c2.
        let mut g = switch3();
        g.br("d", "c2");
        has(
            &g,
            Violation::CaseEnteredFromSeveral {
                header: g.b("entry"),
                case: g.b("c2"),
                from: vec![g.b("d"), g.b("c1")],
            },
        );
    }

    #[test]
    fn case_exits() {
        // c1 and c2 branch to x, which is no case and no merge.
        let mut g = G::new(&["entry", "d", "c1", "c2", "x", "m"]);
        g.switch("entry", &["d", "c1", "c2"]).sel("entry", "m").br("d", "m").br("c1", "x").br("c2", "x");
        g.br("x", "m");
        has(&g, Violation::CaseInvalidExit { header: g.b("entry"), case: g.b("c1"), from: g.b("c1"), to: g.b("x") });
        // An if inside a case may branch to the switch's merge.
        let mut g = G::new(&["entry", "d", "c1", "y", "j", "m"]);
        g.switch("entry", &["d", "c1", "m"]).sel("entry", "m").br("d", "m");
        g.cond("c1", "y", "j").sel("c1", "j").br("y", "m").br("j", "m");
        ok(&g);
        // A case may break out of an enclosing loop, or continue it.
        let mut g = G::new(&["entry", "h", "s", "d", "c1", "e", "m", "c", "exit"]);
        g.br("entry", "h").lp("h", "exit", "c").br("h", "s").sel("s", "m");
        g.switch("s", &["d", "c1", "e"]).br("d", "c").br("c1", "m").br("e", "exit").br("m", "c");
        g.cond("c", "h", "exit");
        ok(&g);
        // But an OpSwitch target is a case construct, which the switch must dominate: a
        // target that is the loop's merge is not (as spirv-val has it).
        g.switch("s", &["d", "c1", "exit"]);
        g.order(&["entry", "h", "s", "d", "c1", "m", "c", "exit", "e"]);
        let v = vs(&g);
        assert!(v.contains(&Violation::SwitchDoesNotDominateCase { header: g.b("s"), case: g.b("exit") }), "{v:#?}");
    }

    #[test]
    fn switch_dominates_cases() {
        let mut g = G::new(&["entry", "s", "d", "c1", "m", "end"]);
        g.cond("entry", "s", "c1").sel("entry", "end").switch("s", &["d", "c1", "m"]).sel("s", "m");
        g.br("d", "m").br("c1", "m").br("m", "end");
        has(&g, Violation::SwitchDoesNotDominateCase { header: g.b("s"), case: g.b("c1") });
    }

    #[test]
    fn synthetic_blocks_and_dispatch() {
        // A ladder: the merge dispatches to the loop's exits.
        let mut g = G::new(&["entry", "h", "a", "c", "r1", "r2"]);
        g.synth("lm", SyntheticKind::LoopMerge);
        g.br("entry", "h").lp("h", "lm", "c").cond("h", "a", "lm").cond("a", "lm", "c").br("c", "h");
        g.dispatch("lm", &["r1", "r2"]).sel("lm", "r2").br("r1", "r2");
        g.order(&["entry", "h", "a", "c", "lm", "r1", "r2"]);
        ok(&g);
        let lm = g.b("lm");
        g.scfg.blocks[lm].merge = None;
        has(&g, Violation::UnstructuredSelection { block: g.b("lm") });
    }

    #[test]
    fn dispatch_switch_operand_order() {
        // A dispatch of three becomes `OpSwitch sel z 0 x 1 y`: z (the Default) may fall
        // through to x, and x to y, but y not to x.
        let mut g = G::new(&["entry", "x", "y", "z", "m"]);
        g.dispatch("entry", &["x", "y", "z"]).sel("entry", "m").br("z", "x").br("x", "y").br("y", "m");
        g.order(&["entry", "z", "x", "y", "m"]);
        ok(&g);
        g.br("z", "m").br("x", "m").br("y", "x");
        has(&g, Violation::CaseFallThroughNotNext { header: g.b("entry"), case: g.b("y"), target: g.b("x") });
    }
}

/// Random structured programs and mutants of them, checked against SPIRV-Tools' validator:
/// the checker must accept what `spirv-val` accepts and reject what it rejects (blocks that
/// are unreachable and no merge or continue target, which `spirv-val` allows, aside).
#[cfg(test)]
mod differential {
    use super::testing::G;
    use super::*;
    use std::collections::HashMap;
    use untangle::passes::scfg::SyntheticKind;

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            // splitmix64
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn coin(&mut self) -> bool {
            self.next() & 1 == 1
        }
    }

    #[derive(Clone, Default)]
    struct Ctx {
        /// Innermost loop: (merge, continue target).
        lp: Option<(String, String)>,
        /// Innermost switch merge not beyond the innermost loop.
        sw: Option<String>,
        /// Innermost selection merge.
        sel: Option<String>,
    }

    struct Gen {
        g: G,
        rng: Rng,
        n: usize,
        max: usize,
    }

    impl Gen {
        fn fresh(&mut self) -> String {
            let name = format!("b{}", self.n);
            self.n += 1;
            self.g.add(&name);
            name
        }

        fn has_pred(&self, name: &str) -> bool {
            let t = self.g.b(name);
            self.g.scfg.blocks.values().any(|b| b.term.succs().contains(&t))
        }

        fn exit_target(&mut self, ctx: &Ctx) -> Option<String> {
            let mut c: Vec<String> = Vec::new();
            if let Some((m, k)) = &ctx.lp {
                c.push(m.clone());
                c.push(k.clone());
            }
            c.extend(ctx.sw.iter().cloned());
            c.extend(ctx.sel.iter().cloned());
            if c.is_empty() {
                None
            } else {
                let k = self.rng.below(c.len());
                Some(c.swap_remove(k))
            }
        }

        /// Statements from the open block `cur`; the open block at the end, if control
        /// reaches it.
        fn seq(&mut self, mut cur: String, ctx: &Ctx, depth: u32) -> Option<String> {
            let len = 1 + self.rng.below(3);
            for _ in 0..len {
                let room = self.n < self.max && depth < 4;
                let k = if room { self.rng.below(12) } else { 8 + self.rng.below(4) };
                cur = match k {
                    0 | 1 => self.if_(cur, ctx, depth)?,
                    2 | 3 => self.loop_(cur, depth)?,
                    4 | 5 => self.switch_(cur, ctx, depth)?,
                    6 | 8 => match self.exit_target(ctx) {
                        Some(t) => {
                            let nb = self.fresh();
                            if self.rng.coin() {
                                self.g.cond(&cur, &t, &nb);
                            } else {
                                self.g.cond(&cur, &nb, &t);
                            }
                            nb
                        }
                        None => self.plain(cur),
                    },
                    7 => {
                        match self.exit_target(ctx) {
                            Some(t) if self.rng.coin() => {
                                self.g.br(&cur, &t);
                            }
                            _ => {
                                self.g.ret(&cur);
                            }
                        }
                        return None;
                    }
                    _ => self.plain(cur),
                };
            }
            Some(cur)
        }

        fn plain(&mut self, cur: String) -> String {
            let nb = self.fresh();
            if self.rng.coin() {
                self.g.br(&cur, &nb);
            } else {
                self.g.goto(&cur, &nb);
            }
            nb
        }

        fn if_(&mut self, h: String, ctx: &Ctx, depth: u32) -> Option<String> {
            let m = self.fresh();
            let inner = Ctx { sel: Some(m.clone()), ..ctx.clone() };
            let t = self.fresh();
            if let Some(e) = self.seq(t.clone(), &inner, depth + 1) {
                self.g.br(&e, &m);
            }
            let f = if self.rng.coin() {
                let f = self.fresh();
                if let Some(e) = self.seq(f.clone(), &inner, depth + 1) {
                    self.g.br(&e, &m);
                }
                f
            } else {
                m.clone()
            };
            if self.rng.coin() {
                self.g.cond(&h, &t, &f);
            } else {
                self.g.cond(&h, &f, &t);
            }
            self.g.sel(&h, &m);
            self.after_merge(m)
        }

        fn after_merge(&mut self, m: String) -> Option<String> {
            if self.has_pred(&m) {
                Some(m)
            } else {
                self.g.dead(&m);
                None
            }
        }

        fn loop_(&mut self, cur: String, depth: u32) -> Option<String> {
            let h = self.fresh();
            self.g.br(&cur, &h);
            let m = self.fresh();
            let c = self.fresh();
            self.g.lp(&h, &m, &c);
            let inner = Ctx { lp: Some((m.clone(), c.clone())), sw: None, sel: None };
            let b = self.fresh();
            match self.rng.below(3) {
                0 => self.g.cond(&h, &b, &m),
                1 => self.g.cond(&h, &m, &b),
                _ => self.g.br(&h, &b),
            };
            if let Some(e) = self.seq(b, &inner, depth + 1) {
                self.g.br(&e, &c);
            }
            if self.has_pred(&c) && self.rng.coin() {
                self.g.cond(&c, &h, &m);
            } else {
                self.g.br(&c, &h);
            }
            self.after_merge(m)
        }

        fn switch_(&mut self, h: String, ctx: &Ctx, depth: u32) -> Option<String> {
            let m = self.fresh();
            let k = 2 + self.rng.below(3);
            let cases: Vec<String> = (0..k).map(|_| self.fresh()).collect();
            let inner = Ctx { sw: Some(m.clone()), sel: None, ..ctx.clone() };
            let mut fallen = vec![false; k];
            for i in 0..k {
                if let Some(e) = self.seq(cases[i].clone(), &inner, depth + 1) {
                    if i + 1 < k && !fallen[i + 1] && self.rng.below(3) == 0 {
                        fallen[i + 1] = true;
                        self.g.br(&e, &cases[i + 1]);
                    } else {
                        self.g.br(&e, &m);
                    }
                }
            }
            let mut targets: Vec<&str> = cases.iter().map(String::as_str).collect();
            if self.rng.coin() {
                targets.push(&m);
            }
            if targets.len() >= 3 && self.rng.coin() {
                // A dispatch: its last target is the Default, so rotate.
                let first = targets.remove(0);
                targets.push(first);
                self.g.dispatch(&h, &targets);
            } else {
                self.g.switch(&h, &targets);
            }
            self.g.sel(&h, &m);
            self.after_merge(m)
        }
    }

    /// Layout: reverse postorder of the CFG from the entry, then the unreachable blocks.
    fn rpo_layout(scfg: &mut Scfg) {
        let mut seen = std::collections::HashSet::new();
        let mut post = Vec::new();
        let mut stack = vec![(scfg.entry, 0usize)];
        seen.insert(scfg.entry);
        while let Some(top) = stack.last_mut() {
            let (b, k) = *top;
            match scfg.blocks[b].term.succs().get(k) {
                Some(&s) => {
                    top.1 += 1;
                    if seen.insert(s) {
                        stack.push((s, 0));
                    }
                }
                None => {
                    post.push(b);
                    stack.pop();
                }
            }
        }
        post.reverse();
        let rest: Vec<SBlock> = scfg.layout.iter().copied().filter(|b| !seen.contains(b)).collect();
        post.extend(rest);
        scfg.layout = post;
    }

    fn generate(seed: u64) -> G {
        let mut gen = Gen { g: G::new(&["entry"]), rng: Rng(seed), n: 0, max: 40 };
        if let Some(e) = gen.seq("entry".to_string(), &Ctx::default(), 0) {
            gen.g.ret(&e);
        }
        if seed.is_multiple_of(5) {
            // Some synthetic blocks: a goto-block in front of a random block.
            let blocks: Vec<SBlock> = gen.g.scfg.layout.clone();
            let b = blocks[gen.rng.below(blocks.len())];
            if let [t] = *gen.g.scfg.blocks[b].term.succs() {
                let e = gen.g.synth("edge", SyntheticKind::EdgeSplit);
                gen.g.scfg.blocks[e].term = Term::Goto(t);
                gen.g.scfg.blocks[b].term.succs_mut()[0] = e;
            }
        }
        rpo_layout(&mut gen.g.scfg);
        gen.g
    }

    fn mutate(g: &mut G, rng: &mut Rng) {
        let layout = g.scfg.layout.clone();
        let n = layout.len();
        let pick = |rng: &mut Rng| layout[rng.below(n)];
        match rng.below(6) {
            // Retarget a successor slot.
            0 | 1 => {
                for _ in 0..8 {
                    let b = pick(rng);
                    let k = g.scfg.blocks[b].term.succs().len();
                    if k > 0 {
                        let t = pick(rng);
                        g.scfg.blocks[b].term.succs_mut()[rng.below(k)] = t;
                        break;
                    }
                }
            }
            // Drop a merge annotation.
            2 => {
                let headers: Vec<SBlock> =
                    layout.iter().copied().filter(|&b| g.scfg.blocks[b].merge.is_some()).collect();
                if !headers.is_empty() {
                    g.scfg.blocks[headers[rng.below(headers.len())]].merge = None;
                }
            }
            // Move a merge or continue target.
            3 => {
                let headers: Vec<SBlock> =
                    layout.iter().copied().filter(|&b| g.scfg.blocks[b].merge.is_some()).collect();
                if !headers.is_empty() {
                    let h = headers[rng.below(headers.len())];
                    let t = pick(rng);
                    let coin = rng.coin();
                    g.scfg.blocks[h].merge = match g.scfg.blocks[h].merge {
                        Some(Merge::Selection { .. }) => Some(Merge::Selection { merge: t }),
                        Some(Merge::Loop { merge, continue_target }) => Some(if coin {
                            Merge::Loop { merge: t, continue_target }
                        } else {
                            Merge::Loop { merge, continue_target: t }
                        }),
                        None => None,
                    };
                }
            }
            // Add a merge annotation.
            4 => {
                let b = pick(rng);
                let t = pick(rng);
                g.scfg.blocks[b].merge = Some(if rng.coin() {
                    Merge::Selection { merge: t }
                } else {
                    Merge::Loop { merge: t, continue_target: pick(rng) }
                });
            }
            // Swap two blocks of the layout (not the entry).
            _ => {
                if n > 2 {
                    let (i, j) = (1 + rng.below(n - 1), 1 + rng.below(n - 1));
                    g.scfg.layout.swap(i, j);
                }
            }
        }
    }

    /// Malformed graphs (unknown blocks anywhere, slot counts that do not match the original
    /// terminator, odd layouts) give violations and renderings, never a panic.
    #[test]
    fn garbage_never_panics() {
        use untangle::passes::scfg::{EdgeDef, Phi, Val, VarId};
        let mut rng = Rng(7);
        for seed in 0..300 {
            let mut g = generate(seed);
            let n = g.scfg.blocks.len() as u32;
            let any = |rng: &mut Rng| SBlock::from_u32(rng.below(n as usize + 3) as u32);
            for _ in 0..1 + rng.below(4) {
                let b = SBlock::from_u32(rng.below(n as usize) as u32);
                match rng.below(9) {
                    0 => g.scfg.layout.push(any(&mut rng)),
                    1 => {
                        let k = g.scfg.blocks[b].term.succs().len();
                        if k > 0 {
                            g.scfg.blocks[b].term.succs_mut()[rng.below(k)] = any(&mut rng);
                        }
                    }
                    2 => {
                        g.scfg.blocks[b].merge =
                            Some(Merge::Loop { merge: any(&mut rng), continue_target: any(&mut rng) })
                    }
                    3 => {
                        let o = untangle::ir::BlockId::from_u32(rng.below(n as usize + 3) as u32);
                        let succs = (0..rng.below(4)).map(|_| any(&mut rng)).collect();
                        g.scfg.blocks[b].term = Term::Orig { block: o, succs };
                    }
                    4 => g.scfg.entry = any(&mut rng),
                    5 => g.scfg.layout.clear(),
                    6 => {
                        let targets = (0..rng.below(5)).map(|_| any(&mut rng)).collect();
                        g.scfg.blocks[b].term = Term::Dispatch { var: VarId::from_u32(9), targets };
                    }
                    7 => {
                        let v = VarId::from_u32(rng.below(3) as u32);
                        let val = Val::Phi { block: any(&mut rng), index: 0 };
                        g.scfg.blocks[b].edge_defs.push(EdgeDef { slot: 7, var: v, val });
                        g.scfg.blocks[b].phis.push(Phi { var: v, incoming: vec![(any(&mut rng), val)] });
                        g.scfg.blocks[b].entry_values.push((v, val));
                    }
                    _ => {
                        g.scfg.original_labels.truncate(1);
                        g.scfg.original_kinds.truncate(1);
                    }
                }
            }
            let f = g.function();
            let _ = check_structured(&g.scfg).map_err(|e| e.to_string());
            let _ = check_structured_with(&g.scfg, Some(&f));
            let _ = untangle::passes::dot::render_dot(&g.scfg);
            let _ = untangle::passes::text::render_listing(&g.scfg, Some(&f));
            let _ = untangle::passes::text::render_structured(&g.scfg, None);
            let _ = untangle::passes::text::render_structured(&g.scfg, Some(&f));
        }
    }

    /// A module with one GLCompute entry point whose body is `scfg`'s control flow.
    fn to_spirv(scfg: &Scfg) -> Vec<u32> {
        use rspirv::binary::Assemble;
        use rspirv::dr::{Builder, Operand};
        use rspirv::spirv::{
            AddressingModel, Capability, ExecutionMode, ExecutionModel, FunctionControl, LoopControl, MemoryModel,
            SelectionControl,
        };
        let mut b = Builder::new();
        b.set_version(1, 5);
        b.capability(Capability::Shader);
        b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
        let void = b.type_void();
        let boolt = b.type_bool();
        let u32t = b.type_int(32, 0);
        let fty = b.type_function(void, []);
        let cond = b.constant_true(boolt);
        let zero = b.constant_bit32(u32t, 0);
        let f = b.begin_function(void, None, FunctionControl::NONE, fty).expect("function");
        let ids: HashMap<SBlock, u32> = scfg.layout.iter().map(|&x| (x, b.id())).collect();
        for &x in &scfg.layout {
            let block = &scfg.blocks[x];
            b.begin_block(Some(ids[&x])).expect("block");
            match block.merge {
                Some(Merge::Selection { merge }) => b.selection_merge(ids[&merge], SelectionControl::NONE),
                Some(Merge::Loop { merge, continue_target }) => {
                    b.loop_merge(ids[&merge], ids[&continue_target], LoopControl::NONE, [])
                }
                None => Ok(()),
            }
            .expect("merge");
            let t: Vec<u32> = spirv_targets(&block.term).iter().map(|s| ids[s]).collect();
            match op_of(scfg, None, &block.term) {
                Op::Branch => b.branch(t[0]),
                Op::Cond => b.branch_conditional(cond, t[0], t[1], []),
                Op::Switch => {
                    let cases: Vec<(Operand, u32)> =
                        t[1..].iter().enumerate().map(|(k, &x)| (Operand::LiteralBit32(k as u32 + 1), x)).collect();
                    b.switch(zero, t[0], cases)
                }
                Op::End if matches!(block.term, Term::Unreachable) => b.unreachable(),
                Op::End => b.ret(),
            }
            .expect("terminator");
        }
        b.end_function().expect("end");
        b.entry_point(ExecutionModel::GLCompute, f, "main", []);
        b.execution_mode(f, ExecutionMode::LocalSize, [1, 1, 1]);
        b.module().assemble()
    }

    /// A merge or continue target that is the entry block: spirv-val then roots its
    /// structural dominator tree elsewhere (the entry has a structural predecessor), and
    /// verdicts differ; we reject such graphs (the header cannot dominate the entry).
    fn names_entry(scfg: &Scfg) -> bool {
        scfg.layout.iter().any(|&b| match scfg.blocks[b].merge {
            Some(Merge::Selection { merge }) => merge == scfg.entry,
            Some(Merge::Loop { merge, continue_target }) => merge == scfg.entry || continue_target == scfg.entry,
            None => false,
        })
    }

    fn verdict(scfg: &Scfg) -> Vec<Violation> {
        let mut v = violations(scfg, None);
        v.retain(|x| !matches!(x, Violation::UnreachableBlock { .. }));
        v
    }

    #[test]
    fn generated_programs_are_structured() {
        for seed in 0..400 {
            let g = generate(seed);
            let v = violations(&g.scfg, None);
            assert!(v.is_empty(), "seed {seed}: {v:#?}\n{}", untangle::passes::text::render_listing(&g.scfg, None));
            let text = untangle::passes::text::render_structured(&g.scfg, None);
            assert!(!text.starts_with("# not structured") && !text.contains("# not reached"), "seed {seed}:\n{text}");
        }
    }

    #[test]
    fn agrees_with_spirv_val() {
        let Some(val) = crate::check::spirv_val::find_spirv_val() else {
            eprintln!("spirv-val not found: differential test skipped");
            return;
        };
        let (mut valid, mut invalid) = (0, 0);
        let mut disagreements = Vec::new();
        // UNTANGLE_DIFF_SEEDS=N runs N seeds (default 300) of three mutants each.
        let seeds: u64 = std::env::var("UNTANGLE_DIFF_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
        let mut kinds: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
        let first: u64 = std::env::var("UNTANGLE_DIFF_FIRST").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
        for seed in first..first + seeds {
            let mut rng = Rng(seed ^ 0x5eed_5eed);
            let g = generate(seed);
            let base_ok = val.validate(&to_spirv(&g.scfg), "spv1.5");
            assert!(base_ok.is_ok(), "seed {seed}: spirv-val rejects a generated program: {base_ok:?}");
            for round in 0..3 {
                let mut m = generate(seed);
                for _ in 0..=round {
                    mutate(&mut m, &mut rng);
                }
                if names_entry(&m.scfg) {
                    continue;
                }
                let ours = verdict(&m.scfg);
                for v in &ours {
                    let name = format!("{v:?}");
                    let name = name.split([' ', '{']).next().unwrap_or_default().to_string();
                    *kinds.entry(name).or_default() += 1;
                }
                let theirs = val.validate(&to_spirv(&m.scfg), "spv1.5");
                if theirs.is_ok() {
                    valid += 1;
                } else {
                    invalid += 1;
                }
                if ours.is_empty() != theirs.is_ok() {
                    disagreements.push(format!(
                        "seed {seed} round {round}: ours {ours:?}\nspirv-val: {theirs:?}\n{}{}",
                        untangle::passes::text::render_listing(&m.scfg, None),
                        val.disassemble(&to_spirv(&m.scfg)).unwrap_or_default()
                    ));
                }
            }
        }
        eprintln!("mutants: {valid} valid, {invalid} invalid, {} disagreements", disagreements.len());
        eprintln!("violations found: {kinds:?}");
        assert!(disagreements.is_empty(), "{}", disagreements.join("\n\n"));
        assert!(valid * 20 > seeds as usize && invalid * 2 > seeds as usize, "{valid} valid, {invalid} invalid");
    }
}
