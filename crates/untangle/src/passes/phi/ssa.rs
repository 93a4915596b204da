//! The SSA construction behind [`repair`](super::repair).

use crate::cfg::order::Order;
use crate::passes::graph::{Preds, ScfgView};
use crate::passes::scfg::{Phi, SBlock, Scfg, Term, Val, VarId};
use cranelift_entity::SecondaryMap;

#[derive(Debug, thiserror::Error)]
pub enum PhiError {
    #[error("function `{function}`: block {block} has parallel edges to {target} with different values of a variable (internal error)")]
    ConflictingEdges { function: String, block: String, target: String },
}

/// A value during construction: a final value or a PHI under construction.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum V {
    Known(Val),
    Temp(u32),
}

struct TempPhi {
    block: SBlock,
    var: VarId,
    operands: Vec<(SBlock, V)>,
}

/// Rebuilds `phis` and `entry_values` of every block. Returns the number of PHIs.
pub fn repair(scfg: &mut Scfg) -> Result<usize, PhiError> {
    let preds = Preds::compute(scfg);
    // Operands from unreachable predecessors (a block construct's continue target) say
    // nothing about the value: a PHI is trivial if its reachable operands agree.
    let reachable = Order::compute(&ScfgView { scfg: &*scfg, preds: &preds });
    for &b in &scfg.layout {
        scfg.blocks[b].phis.clear();
        scfg.blocks[b].entry_values.clear();
    }
    // Reads, grouped by variable, in layout order.
    let mut reads: Vec<(VarId, SBlock)> = Vec::new();
    for &b in &scfg.layout {
        let block = &scfg.blocks[b];
        if let Some(o) = block.original() {
            if let Some(v) = scfg.incoming_var(o) {
                reads.push((v, b));
            }
        }
        if let Term::Dispatch { var, .. } = block.term {
            if !reads.contains(&(var, b)) {
                reads.push((var, b));
            }
        }
    }
    let mut position: SecondaryMap<SBlock, u32> = SecondaryMap::new();
    for (i, &b) in scfg.layout.iter().enumerate() {
        position[b] = i as u32;
    }
    reads.sort_by_key(|&(v, b)| (v, position[b]));
    let mut temps: Vec<TempPhi> = Vec::new();
    let mut replaced: Vec<Option<V>> = Vec::new();
    let mut scratch = Scratch::default();
    let mut results: Vec<(SBlock, VarId, V)> = Vec::new();
    let mut i = 0;
    while i < reads.len() {
        let var = reads[i].0;
        let mut j = i;
        while j < reads.len() && reads[j].0 == var {
            j += 1;
        }
        let blocks: Vec<SBlock> = reads[i..j].iter().map(|&(_, b)| b).collect();
        let values = solve_var(scfg, &preds, var, &blocks, &mut temps, &mut replaced, &mut scratch)?;
        for (b, v) in blocks.into_iter().zip(values) {
            results.push((b, var, v));
        }
        i = j;
    }
    remove_trivial(&mut temps, &mut replaced, &reachable);
    // Every replaced PHI points at its final value from here on.
    for t in 0..replaced.len() {
        if replaced[t].is_some() {
            find(V::Temp(t as u32), &mut replaced);
        }
    }
    // Materialize the surviving PHIs.
    let mut final_val: Vec<Option<Val>> = vec![None; temps.len()];
    for (t, phi) in temps.iter().enumerate() {
        if replaced[t].is_none() {
            let index = scfg.blocks[phi.block].phis.len() as u32;
            scfg.blocks[phi.block].phis.push(Phi { var: phi.var, incoming: Vec::new() });
            final_val[t] = Some(Val::Phi { block: phi.block, index });
        }
    }
    let resolve = |v: V, replaced: &Vec<Option<V>>, final_val: &Vec<Option<Val>>| -> Val {
        let mut v = v;
        loop {
            match v {
                V::Known(k) => return k,
                V::Temp(t) => match replaced[t as usize] {
                    Some(r) => v = r,
                    None => return final_val[t as usize].expect("surviving phi"),
                },
            }
        }
    };
    let mut count = 0;
    for (t, phi) in temps.iter().enumerate() {
        if replaced[t].is_some() {
            continue;
        }
        let Some(Val::Phi { block, index }) = final_val[t] else { unreachable!() };
        let incoming: Vec<(SBlock, Val)> =
            phi.operands.iter().map(|&(p, v)| (p, resolve(v, &replaced, &final_val))).collect();
        scfg.blocks[block].phis[index as usize].incoming = incoming;
        count += 1;
    }
    for (b, var, v) in results {
        let val = resolve(v, &replaced, &final_val);
        scfg.blocks[b].entry_values.push((var, val));
    }
    Ok(count)
}

/// The value `var` has when leaving `p` towards `z`, if an edge of `p` to `z` defines it.
fn edge_value(scfg: &Scfg, var: VarId, p: SBlock, z: SBlock) -> Result<Option<Val>, PhiError> {
    let block = &scfg.blocks[p];
    let mut found: Option<Option<Val>> = None;
    for (slot, &s) in block.term.succs().iter().enumerate() {
        if s != z {
            continue;
        }
        let here = block.edge_defs.iter().rev().find(|d| d.slot as usize == slot && d.var == var).map(|d| d.val);
        match found {
            None => found = Some(here),
            Some(prev) if prev == here => {}
            Some(_) => {
                return Err(PhiError::ConflictingEdges {
                    function: scfg.name.clone(),
                    block: scfg.label(p),
                    target: scfg.label(z),
                })
            }
        }
    }
    Ok(found.flatten())
}

/// Per-block tables reused from one variable to the next: a function with a selector per
/// ladder rung has as many variables as blocks, so fresh tables would cost O(n) each.
#[derive(Default)]
struct Scratch {
    /// `needed[b] == round`: the entry value of `b` is needed for the current variable.
    needed: SecondaryMap<SBlock, u32>,
    round: u32,
    value: SecondaryMap<SBlock, Option<V>>,
}

/// Values of `var` on entry to each of `reads`.
fn solve_var(
    scfg: &Scfg,
    preds: &Preds,
    var: VarId,
    reads: &[SBlock],
    temps: &mut Vec<TempPhi>,
    replaced: &mut Vec<Option<V>>,
    scratch: &mut Scratch,
) -> Result<Vec<V>, PhiError> {
    scratch.round += 1;
    let round = scratch.round;
    let needed = &mut scratch.needed;
    let value = &mut scratch.value;
    // Backward closure: blocks whose entry value is needed.
    let mut order: Vec<SBlock> = Vec::new();
    let mut stack: Vec<SBlock> = Vec::new();
    for &r in reads {
        if needed[r] != round {
            needed[r] = round;
            order.push(r);
            stack.push(r);
        }
    }
    while let Some(z) = stack.pop() {
        for p in preds.distinct(z) {
            if edge_value(scfg, var, p, z)?.is_none() && needed[p] != round {
                needed[p] = round;
                order.push(p);
                stack.push(p);
            }
        }
    }
    // Entry value of each needed block: a PHI where several edges meet, else the single
    // incoming edge's value.
    for &z in &order {
        value[z] = None;
    }
    let first_temp = temps.len();
    for &z in &order {
        if preds.count_distinct(z) >= 2 {
            let t = temps.len() as u32;
            temps.push(TempPhi { block: z, var, operands: Vec::new() });
            replaced.push(None);
            value[z] = Some(V::Temp(t));
        } else if preds.count_distinct(z) == 0 {
            value[z] = Some(V::Known(Val::Undef));
        }
    }
    // Single-predecessor chains, resolved iteratively.
    for &z in &order {
        let mut chain: Vec<SBlock> = Vec::new();
        let mut cur = z;
        let v = loop {
            if let Some(v) = value[cur] {
                break v;
            }
            let p = preds.distinct(cur)[0];
            if let Some(val) = edge_value(scfg, var, p, cur)? {
                break V::Known(val);
            }
            chain.push(cur);
            if chain.len() > order.len() {
                // A cycle of single-predecessor blocks cannot be reached from the entry.
                break V::Known(Val::Undef);
            }
            cur = p;
        };
        value[cur] = Some(v);
        for c in chain {
            value[c] = Some(v);
        }
    }
    #[allow(clippy::needless_range_loop)] // `temps` grows inside the loop
    for t in first_temp..temps.len() {
        let z = temps[t].block;
        let mut operands = Vec::new();
        for p in preds.distinct(z) {
            let v = match edge_value(scfg, var, p, z)? {
                Some(val) => V::Known(val),
                None => value[p].expect("needed predecessor has a value"),
            };
            operands.push((p, v));
        }
        temps[t].operands = operands;
    }
    Ok(reads.iter().map(|&r| value[r].expect("read has a value")).collect())
}

/// What `v` stands for once replaced PHIs are followed; compresses the path it took.
fn find(v: V, replaced: &mut [Option<V>]) -> V {
    let mut root = v;
    while let V::Temp(t) = root {
        match replaced[t as usize] {
            Some(r) => root = r,
            None => break,
        }
    }
    let mut cur = v;
    while let V::Temp(t) = cur {
        match replaced[t as usize] {
            Some(r) if r != root => {
                replaced[t as usize] = Some(root);
                cur = r;
            }
            _ => break,
        }
    }
    root
}

/// Replaces PHIs whose inputs are all one value (or the PHI itself) until none is left.
/// A worklist (Braun et al.'s `tryRemoveTrivialPhi` on the users of each removed PHI) keeps
/// this linear in the operands: a chain of n PHIs, each trivial once the next one is gone,
/// would cost n sweeps over all PHIs otherwise.
fn remove_trivial(temps: &mut [TempPhi], replaced: &mut [Option<V>], reachable: &Order<SBlock>) {
    let mut users: Vec<Vec<u32>> = vec![Vec::new(); temps.len()];
    for (t, phi) in temps.iter().enumerate() {
        for &(_, op) in &phi.operands {
            if let V::Temp(u) = op {
                if u as usize != t {
                    users[u as usize].push(t as u32);
                }
            }
        }
    }
    let mut work: Vec<u32> = (0..temps.len() as u32).rev().collect();
    while let Some(t) = work.pop() {
        let t = t as usize;
        if replaced[t].is_some() {
            continue;
        }
        let me = V::Temp(t as u32);
        let mut same: Option<V> = None;
        let mut trivial = true;
        for &(p, op) in &temps[t].operands {
            if !reachable.is_reachable(p) {
                continue;
            }
            let op = find(op, replaced);
            if op == me || Some(op) == same {
                continue;
            }
            if same.is_some() {
                trivial = false;
                break;
            }
            same = Some(op);
        }
        if trivial {
            replaced[t] = Some(same.unwrap_or(V::Known(Val::Undef)));
            work.extend(users[t].iter().copied());
        }
    }
}
