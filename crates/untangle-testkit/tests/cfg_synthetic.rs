//! The benchmark shapes: small ones against the oracle, 100k-block ones for the facts we
//! know in closed form (and to show nothing recurses 100k deep).

use untangle::cfg::Cfg;
use untangle::ir::Types;
use untangle_testkit::check::cfg_compare::compare_with_oracle;
use untangle_testkit::check::cfg_oracle::CfgOracle;
use untangle_testkit::fuzzing::synthetic::{diamond_chain, loop_nest, wide_switch};

#[test]
fn small_shapes_match_oracle() {
    for make in [diamond_chain, loop_nest, wide_switch] {
        for n in [2, 3, 7, 40, 101] {
            let f = make(n, &mut Types::default());
            let cfg = Cfg::new(&f).unwrap();
            compare_with_oracle(&f, &cfg, &CfgOracle::new(&f)).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        }
    }
}

#[test]
fn hundred_thousand_block_shapes() {
    let n = 100_000;
    let f = diamond_chain(n, &mut Types::default());
    let cfg = Cfg::new(&f).unwrap();
    let (first, last) = (f.layout[0], *f.layout.last().unwrap());
    assert!(cfg.dominates(first, last) && cfg.post_dominates(last, first));
    assert!(!cfg.dominates(f.layout[1], f.layout[2]) && !cfg.dominates(f.layout[2], f.layout[1]));

    let f = loop_nest(n, &mut Types::default());
    let cfg = Cfg::new(&f).unwrap();
    let depth = (n - 2) / 2;
    assert_eq!(cfg.loops().len(), depth);
    assert_eq!(cfg.loops().iter().map(|(_, l)| l.depth).max(), Some(depth as u32));
    let innermost = cfg.loops().innermost(f.layout[depth]).unwrap();
    assert!(cfg.loops().contains(cfg.loops().roots()[0], f.layout[depth]));
    assert_eq!(cfg.loops().get(innermost).header, f.layout[depth - 1]);
    let df = cfg.dominance_frontiers();
    assert!(cfg.blocks().iter().all(|&b| df.get(b).len() <= 2));

    let f = wide_switch(n, &mut Types::default());
    let cfg = Cfg::new(&f).unwrap();
    assert_eq!(cfg.dom().children(f.layout[0]).len(), n - 1);
    assert_eq!(cfg.ipdom(f.layout[1]), Some(f.layout[n - 1]));
}
