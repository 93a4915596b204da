//! LLVM text of a generated function of a given shape and size, for the scaling benchmark
//! (BENCHMARKS.md, "Scaling") and for profiling one shape through the command line:
//!
//!     cargo run --release -p untangle-testkit --example gen_shape -- diamonds 25000 > d.ll
//!     untangle translate --shape d.ll -o d.spv
//!
//! Shapes (N is the repeat count; blocks in parentheses):
//! - `diamonds N`: N if/else diamonds in a chain, each join with a PHI that the next fork's
//!   condition reads (4N + 1 blocks);
//! - `loops N`: N `while` loops nested, each with an induction-variable PHI (2N + 2);
//! - `switch N`: one switch with N cases, each its own block, a PHI at the merge (N + 2);
//! - `unrolled N`: an unrolled loop of N iterations with interleaved breaks (about 11N + 5;
//!   `structured_gen::unrolled_interleaved_breaks`);
//! - `random N`: a random reducible function of about N blocks (`structured_gen`, seed 1).

use std::fmt::Write;
use untangle::ir::Types;
use untangle_testkit::fuzzing::structured_gen::{generate, to_llvm_text, unrolled_interleaved_breaks, ShapeGenConfig};

fn diamonds(n: usize) -> String {
    let mut s = String::from("define i32 @diamonds(i32 %x) {\nentry:\n  br label %d0\n");
    let mut prev = "%x".to_string();
    for k in 0..n {
        let _ = write!(
            s,
            "d{k}:\n  %c{k} = icmp ult i32 {prev}, {k}\n  br i1 %c{k}, label %a{k}, label %b{k}\n\
             a{k}:\n  br label %j{k}\n\
             b{k}:\n  br label %j{k}\n\
             j{k}:\n  %p{k} = phi i32 [ {k}, %a{k} ], [ {prev}, %b{k} ]\n  br label %d{}\n",
            k + 1
        );
        prev = format!("%p{k}");
    }
    let _ = write!(s, "d{n}:\n  ret i32 {prev}\n}}\n");
    s
}

fn loops(n: usize) -> String {
    let mut s = String::from("define i32 @loops(i32 %x) {\nentry:\n  br label %h0\n");
    for k in 0..n {
        let pred = if k == 0 { "entry".to_string() } else { format!("h{}", k - 1) };
        let inner = if k + 1 < n { format!("h{}", k + 1) } else { "body".to_string() };
        let latch = if k + 1 < n { format!("x{}", k + 1) } else { "body".to_string() };
        let _ = write!(
            s,
            "h{k}:\n  %i{k} = phi i32 [ 0, %{pred} ], [ %n{k}, %{latch} ]\n  %n{k} = add i32 %i{k}, 1\n  \
             %c{k} = icmp ult i32 %i{k}, %x\n  br i1 %c{k}, label %{inner}, label %x{k}\n"
        );
    }
    let _ = write!(s, "body:\n  br label %h{}\n", n - 1);
    for k in 0..n {
        let next = if k == 0 { "  ret i32 0\n".to_string() } else { format!("  br label %h{}\n", k - 1) };
        let _ = write!(s, "x{k}:\n{next}");
    }
    s.push_str("}\n");
    s
}

fn switch(n: usize) -> String {
    let mut s = String::from("define i32 @switch(i32 %x) {\nentry:\n  switch i32 %x, label %m [\n");
    for k in 0..n {
        let _ = writeln!(s, "    i32 {k}, label %c{k}");
    }
    s.push_str("  ]\n");
    for k in 0..n {
        let _ = write!(s, "c{k}:\n  br label %m\n");
    }
    s.push_str("m:\n  %p = phi i32 [ -1, %entry ]");
    for k in 0..n {
        let _ = write!(s, ", [ {k}, %c{k} ]");
    }
    s.push_str("\n  ret i32 %p\n}\n");
    s
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(shape), Some(n)) = (args.first(), args.get(1).and_then(|n| n.parse::<usize>().ok())) else {
        eprintln!("usage: gen_shape diamonds|loops|switch|unrolled|random N");
        std::process::exit(2);
    };
    let n = n.max(1);
    let text = match shape.as_str() {
        "diamonds" => diamonds(n),
        "loops" => loops(n),
        "switch" => switch(n),
        "unrolled" => {
            let mut types = Types::default();
            let f = unrolled_interleaved_breaks(n, &mut types);
            to_llvm_text(&f, &types)
        }
        "random" => {
            let mut types = Types::default();
            let config = ShapeGenConfig { max_blocks: n, ..ShapeGenConfig::default() };
            let f = generate(1, &config, &mut types);
            to_llvm_text(&f, &types)
        }
        other => {
            eprintln!("unknown shape {other}");
            std::process::exit(2);
        }
    };
    print!("{text}");
}
