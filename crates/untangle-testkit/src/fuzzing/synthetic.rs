//! Large regular CFGs for scaling benchmarks and tests: chains of diamonds, deep loop
//! nests and wide switches of any size. Deterministic, no randomness.

use cranelift_entity::{EntityRef, PrimaryMap};
use untangle::ir::{Block, BlockId, Function, Param, Terminator, Type, Types, Value};

fn function(name: String, types: &mut Types, terms: Vec<Terminator>) -> Function {
    let mut blocks = PrimaryMap::new();
    for t in terms {
        blocks.push(Block { name: None, insts: Vec::new(), terminator: t });
    }
    let layout = blocks.keys().collect();
    cfg_function(name, types, blocks, layout)
}

/// A `void (i32 %c)` function around the given blocks: the shape every generated CFG
/// has (branch conditions read `%c`).
pub fn cfg_function(
    name: String,
    types: &mut Types,
    blocks: PrimaryMap<BlockId, Block>,
    layout: Vec<BlockId>,
) -> Function {
    let void = types.intern(Type::Void);
    let i32t = types.intern(Type::Int(32));
    let ty = types.intern(Type::Function { ret: void, params: vec![i32t], var_arg: false });
    Function {
        name,
        ty,
        ret: void,
        params: vec![Param { name: Some("c".into()), ty: i32t }],
        blocks,
        insts: PrimaryMap::new(),
        layout,
    }
}

fn b(i: usize) -> BlockId {
    BlockId::new(i)
}

fn cond_br(t: usize, f: usize) -> Terminator {
    Terminator::CondBr { cond: Value::Arg(0), if_true: b(t), if_false: b(f) }
}

/// `if/else` diamonds one after another: fork, two arms, next fork …; about `n` blocks
/// (3 per diamond, plus the final return).
pub fn diamond_chain(n: usize, types: &mut Types) -> Function {
    let diamonds = (n.saturating_sub(1) / 3).max(1);
    let mut terms = Vec::with_capacity(3 * diamonds + 1);
    for d in 0..diamonds {
        let fork = 3 * d;
        let join = 3 * (d + 1);
        terms.push(cond_br(fork + 1, fork + 2));
        terms.push(Terminator::Br { target: b(join) });
        terms.push(Terminator::Br { target: b(join) });
    }
    terms.push(Terminator::Ret { value: None });
    function(format!("diamonds_{n}"), types, terms)
}

/// `while` loops nested `(n − 1) / 2` deep: header `h_k` enters `h_{k+1}` or leaves to
/// `x_k`; the innermost header runs a one-block body; `x_k` is the latch of loop `k − 1`
/// (it continues `h_{k−1}`), and `x_0` returns. About `n` blocks.
pub fn loop_nest(n: usize, types: &mut Types) -> Function {
    let depth = (n.saturating_sub(2) / 2).max(1);
    // Blocks: h_0..h_{depth-1} = 0..depth, body = depth, x_k = depth + 1 + k.
    let h = |k: usize| k;
    let body = depth;
    let x = |k: usize| depth + 1 + k;
    let mut terms = Vec::with_capacity(2 * depth + 1);
    for k in 0..depth {
        let inner = if k + 1 < depth { h(k + 1) } else { body };
        terms.push(cond_br(inner, x(k)));
    }
    terms.push(Terminator::Br { target: b(h(depth - 1)) });
    for k in 0..depth {
        terms.push(if k == 0 { Terminator::Ret { value: None } } else { Terminator::Br { target: b(h(k - 1)) } });
    }
    function(format!("loop_nest_{n}"), types, terms)
}

/// One switch with `n − 2` cases, each in its own block, all merging before the return.
pub fn wide_switch(n: usize, types: &mut Types) -> Function {
    let cases = n.saturating_sub(2).max(1);
    let merge = cases + 1;
    let mut terms = Vec::with_capacity(cases + 2);
    terms.push(Terminator::Switch {
        value: Value::Arg(0),
        default: b(merge),
        cases: (0..cases).map(|i| (i as u64, b(1 + i))).collect(),
    });
    for _ in 0..cases {
        terms.push(Terminator::Br { target: b(merge) });
    }
    terms.push(Terminator::Ret { value: None });
    function(format!("wide_switch_{n}"), types, terms)
}

/// A function from an adjacency list of named blocks (the first is the entry): no
/// successors → `ret`, one → `br`, two → conditional branch, more → switch on the
/// argument with the first as default. Unknown successor names are an `Err`.
pub fn from_adjacency(name: &str, blocks: &[(&str, &[&str])], types: &mut Types) -> Result<Function, String> {
    let index = |n: &str| blocks.iter().position(|(b, _)| *b == n).ok_or_else(|| format!("no block named {n}"));
    let mut terms = Vec::with_capacity(blocks.len());
    for (_, succs) in blocks {
        let t: Vec<usize> = succs.iter().map(|s| index(s)).collect::<Result<_, _>>()?;
        terms.push(match t.as_slice() {
            [] => Terminator::Ret { value: None },
            [a] => Terminator::Br { target: b(*a) },
            [x, y] => cond_br(*x, *y),
            [d, rest @ ..] => Terminator::Switch {
                value: Value::Arg(0),
                default: b(*d),
                cases: rest.iter().enumerate().map(|(i, &s)| (i as u64, b(s))).collect(),
            },
        });
    }
    let mut f = function(name.to_string(), types, terms);
    for (i, (n, _)) in blocks.iter().enumerate() {
        f.blocks[b(i)].name = Some(n.to_string());
    }
    Ok(f)
}
