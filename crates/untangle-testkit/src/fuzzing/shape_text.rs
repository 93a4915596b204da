//! LLVM text of the scaling benchmark's shapes (BENCHMARKS.md, "Scaling"), and the same
//! functions as DXIL compute shaders for the full translation path.
//!
//! Shapes, by repeat count `n` (blocks in parentheses):
//! - [`Shape::Diamonds`]: `n` if/else diamonds in a chain, each join with a PHI that the
//!   next fork's condition reads (4n + 2);
//! - [`Shape::Loops`]: `n` `while` loops nested, each with an induction-variable PHI (2n + 2);
//! - [`Shape::Switch`]: one switch with `n` cases, each its own block, a PHI at the merge (n + 2);
//! - [`Shape::Unrolled`]: an unrolled loop of `n` iterations with interleaved breaks (about
//!   11n + 5; [`unrolled_interleaved_breaks`]);
//! - [`Shape::Random`]: a random reducible function of at most `n` blocks (`structured_gen`,
//!   the first seed that comes near the bound).
//!
//! [`Shape::count_for_blocks`] inverts the block counts, so a benchmark can ask for about
//! 10^3, 10^4 or 10^5 blocks of every shape. Deterministic.

use super::structured_gen::{generate, to_llvm_text, unrolled_interleaved_breaks, ShapeGenConfig};
use std::fmt::Write;
use untangle::ir::Types;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Diamonds,
    Loops,
    Switch,
    Unrolled,
    Random,
}

impl Shape {
    pub const ALL: [Shape; 5] = [Shape::Diamonds, Shape::Loops, Shape::Switch, Shape::Unrolled, Shape::Random];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Diamonds => "diamonds",
            Shape::Loops => "loops",
            Shape::Switch => "switch",
            Shape::Unrolled => "unrolled",
            Shape::Random => "random",
        }
    }

    pub fn from_name(name: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.name() == name)
    }

    /// What the shape is, for tables.
    pub fn description(self) -> &'static str {
        match self {
            Shape::Diamonds => "chain of if/else diamonds, a PHI at each join",
            Shape::Loops => "`while` loops nested n deep, an induction PHI each",
            Shape::Switch => "one switch with n cases, a PHI at the merge",
            Shape::Unrolled => "unrolled loop with interleaved breaks (DXC's `[unroll]`)",
            Shape::Random => "random reducible function (`structured_gen`, default config)",
        }
    }

    /// The repeat count that gives about `blocks` blocks.
    pub fn count_for_blocks(self, blocks: usize) -> usize {
        let n = match self {
            Shape::Diamonds => blocks / 4,
            Shape::Loops => blocks / 2,
            Shape::Switch => blocks.saturating_sub(2),
            Shape::Unrolled => blocks / 11,
            Shape::Random => blocks,
        };
        n.max(1)
    }

    /// The function's LLVM text (one `define`).
    pub fn text(self, n: usize) -> String {
        let n = n.max(1);
        match self {
            Shape::Diamonds => diamonds(n),
            Shape::Loops => loops(n),
            Shape::Switch => switch(n),
            Shape::Unrolled => {
                let mut types = Types::default();
                let f = unrolled_interleaved_breaks(n, &mut types);
                to_llvm_text(&f, &types)
            }
            Shape::Random => random(n),
        }
    }
}

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

/// The first seed (from 1) whose generated function has at least 80% of `max_blocks`
/// blocks (the generator aims at a random size up to its bound), so that the three sizes
/// of a scaling run are comparable. Gives up after 64 seeds and takes the largest.
fn random(max_blocks: usize) -> String {
    let config = ShapeGenConfig { max_blocks, ..ShapeGenConfig::default() };
    let mut best: Option<(usize, untangle::ir::Function, Types)> = None;
    for seed in 1..=64u64 {
        let mut types = Types::default();
        let f = generate(seed, &config, &mut types);
        let blocks = f.layout.len();
        if best.as_ref().is_none_or(|(b, _, _)| blocks > *b) {
            best = Some((blocks, f, types));
        }
        if blocks * 5 >= max_blocks * 4 {
            break;
        }
    }
    let (_, f, types) = best.expect("at least one seed");
    to_llvm_text(&f, &types)
}

/// `text` (one `define` of the shapes above or of `structured_gen`) as a DXIL compute
/// shader `@main`: each `i32` parameter becomes a thread-id component, each `i1` parameter
/// a comparison of one, and a returned `i32` is stored to a `RWByteAddressBuffer` (u0).
/// `None` when the text does not look like such a function.
pub fn as_compute_shader(text: &str) -> Option<String> {
    let define = text.lines().position(|l| l.starts_with("define "))?;
    let lines: Vec<&str> = text.lines().collect();
    let head = lines[define];
    let params = &head[head.find('(')? + 1..head.rfind(')')?];
    let mut prologue =
        String::from("  %buf = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)\n");
    for (k, param) in params.split(',').map(str::trim).filter(|p| !p.is_empty()).enumerate() {
        let (ty, name) = param.split_once(' ')?;
        let component = k % 3;
        match ty {
            "i32" => {
                let _ = writeln!(prologue, "  {name} = call i32 @dx.op.threadId.i32(i32 93, i32 {component})");
            }
            "i1" => {
                let _ = writeln!(prologue, "  {name}.tid = call i32 @dx.op.threadId.i32(i32 93, i32 {component})");
                let _ = writeln!(prologue, "  {name} = icmp eq i32 {name}.tid, 0");
            }
            _ => return None,
        }
    }
    let entry_label = lines[define + 1..].iter().position(|l| l.ends_with(':'))? + define + 1;
    let mut body = String::new();
    for (i, line) in lines.iter().enumerate().skip(define + 1) {
        let trimmed = line.trim();
        if let Some(value) = trimmed.strip_prefix("ret i32 ") {
            let _ = writeln!(
                body,
                "  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %buf, i32 0, i32 undef, i32 {value}, \
                 i32 undef, i32 undef, i32 undef, i8 1)\n  ret void"
            );
        } else {
            body.push_str(line);
            body.push('\n');
        }
        if i == entry_label {
            body.push_str(&prologue);
        }
    }
    Some(format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%struct.RWByteAddressBuffer = type {{ i32 }}
define void @main() {{
{body}declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)
!dx.version = !{{!0}}
!dx.valver = !{{!1}}
!dx.shaderModel = !{{!2}}
!dx.resources = !{{!3}}
!dx.entryPoints = !{{!6}}
!0 = !{{i32 1, i32 0}}
!1 = !{{i32 1, i32 8}}
!2 = !{{!"cs", i32 6, i32 0}}
!3 = !{{null, !4, null, null}}
!4 = !{{!5}}
!5 = !{{i32 0, %struct.RWByteAddressBuffer* undef, !"buf", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}}
!6 = !{{void ()* @main, !"main", null, !3, !7}}
!7 = !{{i32 0, i64 16, i32 4, !8}}
!8 = !{{i32 1, i32 1, i32 1}}
"#
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_counts_match_the_requested_size() {
        for shape in Shape::ALL {
            let n = shape.count_for_blocks(1000);
            let text = shape.text(n);
            let blocks = text.lines().filter(|l| !l.starts_with(' ') && l.ends_with(':')).count();
            assert!((500..=1100).contains(&blocks), "{}: {blocks} blocks", shape.name());
        }
    }

    #[test]
    fn shaders_wrap_the_function() {
        let s = as_compute_shader(&Shape::Diamonds.text(2)).expect("wraps");
        assert!(s.contains("define void @main()"));
        assert!(s.contains("%x = call i32 @dx.op.threadId.i32"));
        assert!(s.contains("@dx.op.bufferStore.i32"));
        assert!(!s.contains("ret i32"));
    }
}
