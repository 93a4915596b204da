//! Prints generated differential-test program SEED (`fuzzing::shader_gen`) as a whole
//! module in the IR's text form, which the translator's LLVM-text front end reads back:
//! `cargo run -p untangle-testkit --example gen_program -- SEED > p.ll`.

fn main() {
    let seed: u64 = match std::env::args().nth(1).map(|s| s.parse()) {
        Some(Ok(s)) => s,
        _ => {
            eprintln!("usage: gen_program SEED");
            std::process::exit(2);
        }
    };
    let m = untangle_testkit::fuzzing::shader_gen::generate(seed);
    print!("{}", untangle::ir::dump::Dumper::new(&m).module());
}
