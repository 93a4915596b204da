//! Structured control flow pieces shared by shape mode and the translator: label allocation
//! for a structurized CFG, merge instructions, and the terminators of the structurizer's
//! synthetic blocks (`Term::Goto`, `Term::Dispatch`, `Term::Unreachable`).
//!
//! A low-level module of `emit` (see its documentation): it imports only [`super::writer`]
//! and the layers below `emit`.

use super::writer::{BuildError, Builder};
use crate::passes::{Merge, SBlock, Scfg};
use cranelift_entity::EntityRef;
use rspirv::dr::Operand;
use rspirv::spirv::{self, Op, Word};

/// A label for every block of `scfg.layout`, and an id for each of its structurizer PHIs,
/// allocated up front (branches and PHIs refer forward).
pub struct Labels {
    labels: Vec<Option<Word>>,
    pub phi_ids: Vec<Vec<Word>>,
}

impl Labels {
    /// `Err` names a layout entry that is not a block or appears twice.
    pub fn allocate(b: &mut Builder, scfg: &Scfg) -> Result<Labels, String> {
        let n = scfg.blocks.len();
        let mut labels = vec![None; n];
        let mut phi_ids = vec![Vec::new(); n];
        for &sb in &scfg.layout {
            if sb.index() >= n {
                return Err(format!("layout names {sb}, which is not a block"));
            }
            if labels[sb.index()].is_some() {
                return Err(format!("{sb} appears twice in the layout"));
            }
            labels[sb.index()] = Some(b.id());
            phi_ids[sb.index()] = scfg.blocks[sb].phis.iter().map(|_| b.id()).collect();
        }
        Ok(Labels { labels, phi_ids })
    }

    pub fn get(&self, b: SBlock) -> Option<Word> {
        self.labels.get(b.index()).copied().flatten()
    }

    /// The merge (and continue) labels of a header's annotation.
    pub fn merge_of(&self, merge: Option<Merge>) -> Option<Option<(Word, Option<Word>)>> {
        Some(match merge {
            None => None,
            Some(Merge::Selection { merge }) => Some((self.get(merge)?, None)),
            Some(Merge::Loop { merge, continue_target }) => Some((self.get(merge)?, Some(self.get(continue_target)?))),
        })
    }
}

/// `OpSelectionMerge` or `OpLoopMerge`, right before a block's branch.
pub fn emit_merge(b: &mut Builder, merge: Option<(Word, Option<Word>)>) -> Result<(), BuildError> {
    match merge {
        None => Ok(()),
        Some((m, None)) => b.selection_merge(m, spirv::SelectionControl::NONE),
        Some((m, Some(c))) => b.loop_merge(m, c, spirv::LoopControl::NONE, []),
    }
}

/// A two-way branch on `cond` for a SPIR-V 1.6 module, which may not name one label twice
/// in `OpBranchConditional` (the structurizer leaves both slots of a block on one target
/// when they carry the same definitions). With both targets equal: `OpBranch` without a
/// merge or under `OpLoopMerge`; under `OpSelectionMerge`, which a conditional branch or a
/// switch must follow, a switch on the integer constant `zero` with the target as default.
pub fn emit_two_way(
    b: &mut Builder,
    cond: Word,
    if_true: Word,
    if_false: Word,
    merge: Option<(Word, Option<Word>)>,
    zero: Word,
) -> Result<(), BuildError> {
    emit_merge(b, merge)?;
    if if_true != if_false {
        return b.branch_conditional(cond, if_true, if_false, []);
    }
    match merge {
        Some((_, None)) => b.switch(zero, if_true, []),
        _ => b.branch(if_true),
    }
}

/// A dispatch on a 32-bit selector: go to `targets[k]` where `k` is the selector's value.
/// Two targets become a conditional branch on `selector == 0`, more a switch whose default
/// is the last target.
pub fn emit_dispatch(
    b: &mut Builder,
    bool_t: Word,
    zero: Word,
    selector: Word,
    targets: &[Word],
    merge: Option<(Word, Option<Word>)>,
) -> Result<(), String> {
    let err = |e: BuildError| format!("{e:?}");
    match targets.len() {
        0 => Err("dispatch with no targets".into()),
        1 => {
            emit_merge(b, merge).map_err(err)?;
            b.branch(targets[0]).map_err(err)
        }
        2 => {
            let cond = b.block_value(Op::IEqual, bool_t, &[selector, zero]).map_err(err)?;
            emit_merge(b, merge).map_err(err)?;
            b.branch_conditional(cond, targets[0], targets[1], []).map_err(err)
        }
        len => {
            let last = targets[len - 1];
            let cases = (0..len - 1).map(|k| (Operand::LiteralBit32(k as u32), targets[k]));
            emit_merge(b, merge).map_err(err)?;
            b.switch(selector, last, cases).map_err(err)
        }
    }
}
