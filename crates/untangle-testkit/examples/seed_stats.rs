//! Structurizer statistics of the GPU suite's random CFGs, by seed:
//! `cargo run --release -p untangle-testkit --example seed_stats 662 1098 2232` (used to relate device
//! failures to what the structurizer built, e.g. block constructs).
fn main() {
    for s in std::env::args().skip(1) {
        let seed: u64 = s.parse().unwrap();
        let mut types = untangle::ir::Types::default();
        let config = untangle_testkit::check::gpu_trace::random_config(seed);
        let f = untangle_testkit::fuzzing::structured_gen::generate(seed, &config, &mut types);
        let st = untangle::passes::structurize(&f, untangle::passes::Options::default()).unwrap();
        println!("{seed}: blocks {} {:?}", f.layout.len(), st.stats);
    }
}
