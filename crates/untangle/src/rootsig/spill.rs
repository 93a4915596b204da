//! The push-constant budget ([`LayoutOptions::max_push_constant_bytes`]): which root
//! arguments stay in push constants and which spill to the root argument buffer
//! ([`RootArgumentBuffer`]), and where each one lands.
//!
//! A *root argument* is what one root parameter puts in push-constant form: a root
//! descriptor's buffer device address (8 bytes; `heap` with addresses), root constants (4
//! bytes per value), a descriptor table's heap offset (4 bytes; `heap`). Tables under
//! `direct` and root descriptors as descriptors have none.
//!
//! Rule (deterministic; it depends on the root signature, the binding model and the budget
//! only):
//! 1. an argument is never split: it stays whole or spills whole (root constants are one
//!    `b` register that a shader may index dynamically; split, an index would have to pick
//!    its store at run time);
//! 2. in root-parameter order, an argument stays if it fits in what the arguments kept
//!    before it left of the budget, else it spills. First fit: a later, smaller argument
//!    may still take room that an earlier, larger one could not use;
//! 3. each group is laid out from byte 0 as the unbudgeted lowering lays out push
//!    constants: addresses, then root constants, then table offsets, each in parameter
//!    order. Every size is a multiple of 4 and the addresses' a multiple of 8, so putting
//!    addresses first keeps each one 8-aligned with no padding in either store, and a kept
//!    group never needs more than the sum of its sizes (which is within the budget);
//! 4. the root argument buffer's size is its end rounded up to 16 bytes: the shader views
//!    it as `uvec4[]` (std140 arrays have a 16-byte stride), so an address is two
//!    components of one row.
//!
//! When everything fits, rule 3 gives the unbudgeted layout exactly (same members, same
//! offsets) and nothing spills, so translations are unchanged.
//!
//! Why parameter order decides: D3D12 applications order root parameters by how often they
//! change, most frequent first, because hardware with a small fast root-argument space
//! overflows *the items at the end of the root signature* into slower memory (Microsoft's
//! "Root Signature Limits": such items cost one more indirection). Following that order
//! keeps what the application changes per draw in push constants (`vkCmdPushConstants`,
//! no memory write) and moves what it changes rarely to memory, the trade-off the hardware
//! makes. Argument kinds do not rank: a table offset, a root constant and an address each
//! change per draw in some applications, and only the parameter order says which.
//! vkd3d-proton instead moves the whole block to an inline uniform block when it exceeds
//! `maxPushConstantsSize`; keeping the prefix in push constants leaves the common case (a
//! few hot parameters first) as fast as an unbudgeted layout.

use super::model::RootConstants;
#[cfg(doc)]
use super::pipeline::{LayoutOptions, RootArgumentBuffer};
use super::pipeline::{PushConstants, PushKind, PushMember};

/// One root argument before placement.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct RootArg {
    pub parameter: u32,
    pub size: u32,
    pub kind: PushKind,
}

impl RootArg {
    pub fn new(parameter: usize, size: u32, kind: PushKind) -> RootArg {
        RootArg { parameter: parameter as u32, size, kind }
    }

    pub fn constants(parameter: usize, c: &RootConstants) -> RootArg {
        RootArg::new(
            parameter,
            4 * c.num_values,
            PushKind::RootConstants { register: c.register, space: c.space, num_values: c.num_values },
        )
    }

    /// The layout group (rule 3): addresses, then root constants, then table offsets.
    fn group(&self) -> u8 {
        match self.kind {
            PushKind::RootDescriptorAddress { .. } => 0,
            PushKind::RootConstants { .. } => 1,
            PushKind::TableOffset { .. } => 2,
        }
    }
}

/// The arguments split under a budget.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(super) struct Split {
    pub push: PushConstants,
    /// The spilled arguments at their root-argument-buffer offsets.
    pub spilled: Vec<PushMember>,
    /// The root argument buffer's size (0 when nothing spilled).
    pub spilled_size: u32,
}

/// Split `args` (one per parameter at most, any order) under `budget` bytes.
pub(super) fn split(mut args: Vec<RootArg>, budget: u32) -> Split {
    args.sort_by_key(|a| a.parameter);
    let mut kept = Vec::new();
    let mut spilled = Vec::new();
    let mut used = 0u32;
    for a in args {
        if used.checked_add(a.size).is_some_and(|end| end <= budget) {
            used += a.size;
            kept.push(a);
        } else {
            spilled.push(a);
        }
    }
    let (members, size) = lay_out(kept);
    let (spilled, end) = lay_out(spilled);
    Split { push: PushConstants { size, members }, spilled, spilled_size: end.next_multiple_of(16) }
}

/// Members at consecutive offsets from 0 in group, then parameter, order; and their end.
fn lay_out(mut args: Vec<RootArg>) -> (Vec<PushMember>, u32) {
    args.sort_by_key(|a| (a.group(), a.parameter));
    let mut offset = 0;
    let members = args
        .into_iter()
        .map(|a| {
            let m = PushMember { parameter: a.parameter, offset, size: a.size, kind: a.kind };
            offset += a.size;
            m
        })
        .collect();
    (members, offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rootsig::model::ResourceClass;
    use crate::rootsig::pipeline::HeapKind;

    fn address(p: usize) -> RootArg {
        RootArg::new(p, 8, PushKind::RootDescriptorAddress { class: ResourceClass::Cbv, register: p as u32, space: 0 })
    }
    fn constants(p: usize, n: u32) -> RootArg {
        RootArg::constants(p, &RootConstants { register: p as u32, space: 0, num_values: n })
    }
    fn table(p: usize) -> RootArg {
        RootArg::new(p, 4, PushKind::TableOffset { heap: HeapKind::CbvSrvUav })
    }
    fn placed(ms: &[PushMember]) -> Vec<(u32, u32, u32)> {
        ms.iter().map(|m| (m.parameter, m.offset, m.size)).collect()
    }

    #[test]
    fn everything_fits_in_group_order() {
        let s = split(vec![table(0), constants(1, 3), address(2), table(3), address(4)], 128);
        assert_eq!(placed(&s.push.members), vec![(2, 0, 8), (4, 8, 8), (1, 16, 12), (0, 28, 4), (3, 32, 4)]);
        assert_eq!(s.push.size, 36);
        assert!(s.spilled.is_empty());
        assert_eq!(s.spilled_size, 0);
    }

    #[test]
    fn later_parameters_spill_first_fit() {
        // 0: 120 bytes kept; 1: 8 more = 128 kept; 2: spills; 3 (4 bytes) no longer fits.
        let s = split(vec![constants(0, 30), address(1), constants(2, 2), table(3), address(4)], 128);
        assert_eq!(placed(&s.push.members), vec![(1, 0, 8), (0, 8, 120)]);
        assert_eq!(s.push.size, 128);
        assert_eq!(placed(&s.spilled), vec![(4, 0, 8), (2, 8, 8), (3, 16, 4)]);
        assert_eq!(s.spilled_size, 32);
        // First fit: the 12-byte argument spills, the 4-byte table after it still fits.
        let s = split(vec![constants(0, 30), constants(1, 3), table(2)], 128);
        assert_eq!(placed(&s.push.members), vec![(0, 0, 120), (2, 120, 4)]);
        assert_eq!(placed(&s.spilled), vec![(1, 0, 12)]);
        assert_eq!(s.spilled_size, 16);
    }

    #[test]
    fn addresses_stay_8_aligned_in_both_stores() {
        // An odd number of words before the addresses in parameter order.
        let args = vec![constants(0, 1), address(1), table(2), address(3), constants(4, 5), address(5)];
        for budget in (0..=64).step_by(4) {
            let s = split(args.clone(), budget);
            assert!(s.push.size <= budget);
            for m in s.push.members.iter().chain(&s.spilled) {
                if m.size == 8 {
                    assert_eq!(m.offset % 8, 0, "budget {budget}: {m:?}");
                }
            }
            let total: u32 = s.push.size + s.spilled.iter().map(|m| m.size).sum::<u32>();
            assert_eq!(total, 4 + 8 + 4 + 8 + 20 + 8);
            assert_eq!(s.spilled_size % 16, 0);
        }
    }

    #[test]
    fn zero_budget_spills_everything() {
        let s = split(vec![table(0), address(1)], 0);
        assert_eq!(s.push, PushConstants::default());
        assert_eq!(placed(&s.spilled), vec![(1, 0, 8), (0, 8, 4)]);
        assert_eq!(s.spilled_size, 16);
    }
}
