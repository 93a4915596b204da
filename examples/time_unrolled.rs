fn main() {
    let only: Option<usize> = std::env::args().nth(1).map(|a| a.parse().unwrap());
    for n in [4usize, 16, 64, 128, 256] {
        if only.is_some_and(|o| o != n) { continue; }
        let mut types = untangle::ir::Types::default();
        let f = untangle::fuzzing::structured_gen::unrolled_interleaved_breaks(n, &mut types);
        let t = std::time::Instant::now();
        let mut last = std::time::Instant::now();
        let mut hook = |i: usize, name: &str, _s: &untangle::passes::Scfg| { eprintln!("  {i} {name}: {:?}", last.elapsed()); last = std::time::Instant::now(); };
        let s = untangle::passes::structurize(&f, untangle::passes::Options { dump: Some(&mut hook) }).unwrap();
        println!("N={n}: {:?} blocks {} added {} ladders {} phis {}", t.elapsed(), s.stats.original_blocks, s.stats.blocks_added, s.stats.ladders, s.stats.phis);
    }
}
