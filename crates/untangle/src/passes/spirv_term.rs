//! The SPIR-V terminator each block of a structurized graph becomes ([`op_of`]) and its
//! targets in SPIR-V operand order ([`spirv_targets`]): the one reading of [`Term`] shared by
//! the emitters, the renderings and the structured-rules checker.

use super::scfg::{OrigKind, SBlock, Scfg, Term};
use crate::ir::{BlockId, Function, Terminator};
use cranelift_entity::EntityRef;

/// The SPIR-V terminator a block becomes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Op {
    Branch,
    Cond,
    Switch,
    /// `OpReturn`, `OpUnreachable`: no successors.
    End,
}

/// The kind of original terminator `block`: from `scfg.original_kinds`, else from `func`,
/// else `None`.
pub fn orig_kind(scfg: &Scfg, func: Option<&Function>, block: BlockId) -> Option<OrigKind> {
    if let Some(k) = scfg.original_kinds.get(block.index()) {
        return Some(*k);
    }
    func.and_then(|f| f.blocks.get(block)).map(|b| match b.terminator {
        Terminator::Br { .. } => OrigKind::Br,
        Terminator::CondBr { .. } => OrigKind::CondBr,
        Terminator::Switch { .. } => OrigKind::Switch,
        Terminator::Ret { .. } | Terminator::Unreachable => OrigKind::Exit,
    })
}

/// The SPIR-V terminator `term` becomes (see the module documentation).
pub fn op_of(scfg: &Scfg, func: Option<&Function>, term: &Term) -> Op {
    let by_count = |n: usize| match n {
        0 => Op::End,
        1 => Op::Branch,
        2 => Op::Cond,
        _ => Op::Switch,
    };
    match term {
        Term::Goto(_) => Op::Branch,
        Term::Unreachable => Op::End,
        Term::Dispatch { targets, .. } => by_count(targets.len()),
        Term::Orig { block, succs } => match orig_kind(scfg, func, *block) {
            Some(OrigKind::Br) => Op::Branch,
            Some(OrigKind::CondBr) => Op::Cond,
            Some(OrigKind::Switch) => Op::Switch,
            Some(OrigKind::Exit) => Op::End,
            None => by_count(succs.len()),
        },
    }
}

/// The targets of `term` in SPIR-V operand order: slot order, except that a dispatch of
/// three or more targets becomes an `OpSwitch` whose Default is its last target (case k goes
/// to `targets[k]`), as `crate::emit` writes it.
pub fn spirv_targets(term: &Term) -> Vec<SBlock> {
    match term {
        Term::Dispatch { targets, .. } if targets.len() >= 3 => {
            let last = targets.len() - 1;
            std::iter::once(targets[last]).chain(targets[..last].iter().copied()).collect()
        }
        _ => term.succs().to_vec(),
    }
}
