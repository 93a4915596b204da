//! Development aid: structurize every function of the given files, run the graph-level
//! trace check on random decision streams, and print a summary.
use std::path::Path;
use untangle::check::scfg_trace::scfg_trace;
use untangle::check::trace::{original_trace, Limits};
use untangle::fuzzing::mutate::SplitMix64;
fn main() {
    let mut ok = 0;
    let mut failed = 0;
    let mut mismatches = 0;
    let mut bad_structure = 0;
    let mut stats = untangle::passes::Stats::default();
    for arg in std::env::args().skip(1) {
        let loaded = match untangle::load::load_path(Path::new(&arg)) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("{arg}: load: {e}");
                continue;
            }
        };
        for func in loaded.module.functions.values() {
            if func.is_declaration() {
                continue;
            }
            match untangle::passes::structurize(func, Default::default()) {
                Ok(s) => {
                    ok += 1;
                    stats.blocks_added += s.stats.blocks_added;
                    stats.original_blocks += s.stats.original_blocks;
                    stats.ladders += s.stats.ladders;
                    stats.phis += s.stats.phis;
                    if let Err(e) = untangle::check::structured::check_structured(&s.scfg) {
                        eprintln!("{arg}: {}: {e}", func.name);
                        bad_structure += 1;
                    }
                    let mut rng = SplitMix64::new(7);
                    for stream in 0..200 {
                        let len = rng.below(64);
                        let decisions: Vec<u32> = (0..len)
                            .map(|_| if stream % 3 == 0 { rng.next_u32() % 8 } else { rng.next_u32() })
                            .collect();
                        let trace_len = if stream % 2 == 0 { 4096 } else { 5 };
                        let limits = Limits { max_block_entries: 2000 };
                        let a = original_trace(func, &decisions, trace_len, &limits);
                        let b = scfg_trace(func, &s.scfg, &decisions, trace_len, &limits);
                        let same = matches!(&b, Ok(t) if *t == a);
                        if !same {
                            mismatches += 1;
                            eprintln!("{arg}: {}: mismatch on {decisions:?}: {:?} vs {:?}", func.name, a.buffer.iter().take(12).collect::<Vec<_>>(), b.map(|t| t.buffer.into_iter().take(12).collect::<Vec<_>>()));
                            break;
                        }
                    }
                }
                Err(e) => {
                    failed += 1;
                    eprintln!("{arg}: {e}");
                }
            }
        }
    }
    println!("ok {ok} failed {failed} bad_structure {bad_structure} mismatching functions {mismatches} {stats:?}");
}
