//! LLVM text of a generated function of a given shape and size, for the scaling benchmark
//! (BENCHMARKS.md, "Scaling") and for profiling one shape through the command line:
//!
//!     cargo run --release -p untangle-testkit --example gen_shape -- diamonds 25000 > d.ll
//!     untangle translate --shape d.ll -o d.spv
//!
//! Shapes (N is the repeat count; blocks in parentheses): `diamonds N` (4N + 2), `loops N`
//! (2N + 2), `switch N` (N + 2), `unrolled N` (about 11N + 5), `random N` (at most N);
//! see `untangle_testkit::fuzzing::shape_text`. `--dxil` wraps the function into a DXIL
//! compute shader for the full translation (`untangle translate d.ll -o d.spv`).

use untangle_testkit::fuzzing::shape_text::{as_compute_shader, Shape};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let dxil = args.iter().any(|a| a == "--dxil");
    args.retain(|a| a != "--dxil");
    let (Some(shape), Some(n)) = (args.first(), args.get(1).and_then(|n| n.parse::<usize>().ok())) else {
        eprintln!("usage: gen_shape diamonds|loops|switch|unrolled|random N [--dxil]");
        std::process::exit(2);
    };
    let Some(shape) = Shape::from_name(shape) else {
        eprintln!("unknown shape {shape}");
        std::process::exit(2);
    };
    let text = shape.text(n);
    if dxil {
        match as_compute_shader(&text) {
            Some(s) => print!("{s}"),
            None => {
                eprintln!("cannot wrap this function into a compute shader");
                std::process::exit(1);
            }
        }
    } else {
        print!("{text}");
    }
}
