//! Property tests of `untangle::cfg` against the brute-force oracle of `untangle_testkit::check`.
//!
//! Random reducible CFGs (`fuzzing::cfg_gen`: loops nested up to depth 6, multi-level
//! break/continue, switches, several returns, endless loops, dead code, up to 200 blocks)
//! are analysed and every query compared with its definition; random extra edges check the
//! irreducibility verdict against the T1/T2 reduction; and the analyses on a graph that
//! lists parallel edges once per slot agree with those on the folded graph. 1,800 cases in all.

use cranelift_entity::EntityRef;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use untangle::cfg::{Cfg, CfgError, DenseGraph, DomTree, FlowGraph, Frontiers, LoopForest, Order, PostDomTree};
use untangle::ir::{BlockId, Function, Terminator, Types, Value};
use untangle_testkit::check::cfg_compare::compare_with_oracle;
use untangle_testkit::check::cfg_oracle::CfgOracle;
use untangle_testkit::fuzzing::cfg_gen::{random_function, CfgGenConfig};

/// Fixed proptest seed and no regression files: the run is the same everywhere. Failing
/// cases print the generator seed, which reproduces them alone.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x5EED_CF60),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn generate(seed: u64, max_blocks: usize) -> Function {
    let config = CfgGenConfig { max_blocks, ..CfgGenConfig::default() };
    random_function(seed, &config, &mut Types::default())
}

fn analyse_and_compare(func: &Function) -> Result<(), TestCaseError> {
    let oracle = CfgOracle::new(func);
    prop_assert!(oracle.is_reducible(), "generator produced an irreducible CFG");
    let cfg = Cfg::new(func).map_err(|e| TestCaseError::fail(e.to_string()))?;
    compare_with_oracle(func, &cfg, &oracle).map_err(TestCaseError::fail)?;
    Ok(())
}

proptest! {
    #![proptest_config(config(1000))]

    /// Every analysis equals its brute-force definition.
    #[test]
    fn analyses_match_oracle(seed in any::<u64>()) {
        let func = generate(seed, 200);
        prop_assert!(func.layout.len() <= 200);
        analyse_and_compare(&func)?;
    }
}

/// Adds one edge `u → v` to a copy of `func`, by turning `u`'s terminator into a switch
/// with one more case.
fn with_extra_edge(func: &Function, u: usize, v: usize) -> Function {
    let mut f = func.clone();
    let (u, v) = (f.layout[u % f.layout.len()], f.layout[v % f.layout.len()]);
    let old = std::mem::replace(&mut f.blocks[u].terminator, Terminator::Unreachable);
    let mut cases: Vec<(u64, _)> = Vec::new();
    let default = match old {
        Terminator::Br { target } => target,
        Terminator::CondBr { if_true, if_false, .. } => {
            cases.push((1, if_false));
            if_true
        }
        Terminator::Switch { default, cases: c, .. } => {
            cases = c;
            default
        }
        Terminator::Ret { .. } | Terminator::Unreachable => v,
    };
    cases.push((1000, v));
    f.blocks[u].terminator = Terminator::Switch { value: Value::Arg(0), default, cases };
    f
}

proptest! {
    #![proptest_config(config(500))]

    /// Random extra edges: `Cfg::new` reports `Irreducible` exactly when the T1/T2
    /// reduction fails, names real blocks, and is otherwise right on every query.
    #[test]
    fn irreducibility_verdict_matches_t1_t2(seed in any::<u64>(), u in any::<usize>(), v in any::<usize>(), w in any::<usize>(), x in any::<usize>()) {
        let base = generate(seed, 60);
        let func = with_extra_edge(&with_extra_edge(&base, u, v), w, x);
        let oracle = CfgOracle::new(&func);
        match Cfg::new(&func) {
            Ok(cfg) => {
                prop_assert!(oracle.is_reducible(), "accepted an irreducible CFG");
                compare_with_oracle(&func, &cfg, &oracle).map_err(TestCaseError::fail)?;
            }
            Err(CfgError::Irreducible { function, blocks }) => {
                prop_assert!(!oracle.is_reducible(), "rejected a reducible CFG");
                prop_assert_eq!(function, func.name.clone());
                prop_assert!(blocks.len() >= 2);
                for b in &blocks {
                    prop_assert!(func.layout.iter().any(|&x| &func.block_label(x) == b));
                }
            }
            Err(e) => prop_assert!(false, "unexpected error {e}"),
        }
    }
}

/// An IR function's graph with one edge per terminator slot (parallel edges repeated),
/// unlike `cfg::Graph`, which folds them.
struct Slots<'f>(&'f Function, Vec<Vec<BlockId>>);

impl<'f> Slots<'f> {
    fn new(f: &'f Function) -> Slots<'f> {
        let mut preds = vec![Vec::new(); f.blocks.len()];
        for &b in &f.layout {
            for s in f.blocks[b].terminator.successors() {
                preds[s.index()].push(b);
            }
        }
        Slots(f, preds)
    }
}

impl FlowGraph for Slots<'_> {
    type Node = BlockId;

    fn entry(&self) -> BlockId {
        self.0.layout[0]
    }

    fn successors(&self, b: BlockId) -> impl Iterator<Item = BlockId> {
        self.0.blocks[b].terminator.successors().into_iter()
    }

    fn predecessors(&self, b: BlockId) -> impl Iterator<Item = BlockId> {
        self.1[b.index()].iter().copied()
    }
}

proptest! {
    #![proptest_config(config(300))]

    /// The generic analyses give the same answers on a graph that lists parallel edges once
    /// per slot (as the structurizer's does) as `Cfg` on the folded graph: orders, both
    /// trees, the loop forest and the frontiers.
    #[test]
    fn parallel_edges_change_no_answer(seed in any::<u64>(), u in any::<usize>(), v in any::<usize>()) {
        // A repeated target: one more slot to an existing successor of `u`.
        let base = generate(seed, 120);
        let mut func = base.clone();
        let b = func.layout[u % func.layout.len()];
        if let Some(&t) = func.blocks[b].terminator.successors().get(v % 2) {
            func = with_extra_slot(&func, b, t);
        }
        let cfg = Cfg::new(&func).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let g = Slots::new(&func);
        let order = Order::compute(&g);
        prop_assert_eq!(order.rpo(), cfg.rpo());
        let dense = DenseGraph::new(&g, &order);
        let dom = DomTree::compute(&dense);
        let loops = LoopForest::compute(&order, |b| g.predecessors(b).collect::<Vec<_>>());
        let postdom = PostDomTree::compute(&dense, &loops);
        let (df, pdf) = (Frontiers::dominance(&g, &order, &dom), Frontiers::post_dominance(&g, &order, &postdom));
        let (cdf, cpdf) = (cfg.dominance_frontiers(), cfg.post_dominance_frontiers());
        for &b in &func.layout {
            prop_assert_eq!(dom.idom(b), cfg.idom(b));
            prop_assert_eq!(postdom.ipdom(b), cfg.ipdom(b));
            prop_assert_eq!(loops.innermost(b), cfg.loops().innermost(b));
            prop_assert_eq!(df.get(b), cdf.get(b));
            prop_assert_eq!(pdf.get(b), cpdf.get(b));
        }
        prop_assert_eq!(loops.len(), cfg.loops().len());
        for (l, lp) in loops.iter() {
            let theirs = cfg.loops().get(l);
            prop_assert_eq!((lp.header, lp.parent, lp.depth), (theirs.header, theirs.parent, theirs.depth));
            prop_assert_eq!(&lp.latches, &theirs.latches);
        }
        prop_assert_eq!(postdom.virtual_exit_sources(), cfg.postdom().virtual_exit_sources());
    }
}

/// `func` with one more switch case from `b` to `t` (already a successor of `b`).
fn with_extra_slot(func: &Function, b: BlockId, t: BlockId) -> Function {
    let mut f = func.clone();
    let old = std::mem::replace(&mut f.blocks[b].terminator, Terminator::Unreachable);
    let (default, mut cases) = match old {
        Terminator::Br { target } => (target, Vec::new()),
        Terminator::CondBr { if_true, if_false, .. } => (if_true, vec![(1, if_false)]),
        Terminator::Switch { default, cases, .. } => (default, cases),
        Terminator::Ret { .. } | Terminator::Unreachable => return f,
    };
    cases.push((1000, t));
    f.blocks[b].terminator = Terminator::Switch { value: Value::Arg(0), default, cases };
    f
}
