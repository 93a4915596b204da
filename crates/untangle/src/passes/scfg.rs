//! The structurizer's working graph: [`Scfg`].
//!
//! Every pass reads and rewrites one `Scfg`. A block is either a copy of an original LLVM
//! block ([`Origin::Original`]) or a block the structurizer added ([`Origin::Synthetic`]).
//! Original blocks keep their original terminator ([`Term::Orig`]) with retargeted successor
//! slots, so the branch condition (a decision read, in shape mode) is evaluated exactly where
//! and as often as in the input. Synthetic blocks branch unconditionally ([`Term::Goto`]) or
//! on a selector variable ([`Term::Dispatch`]).
//!
//! Values that flow along edges are *variables* ([`VarKind`]): the structurizer's selectors,
//! and for each original block with PHIs, the number of the original predecessor control came
//! from ([`VarKind::IncomingBlock`]). Definitions sit on edges ([`Block::edge_defs`], keyed by
//! successor slot, so redirecting a slot keeps its definitions); reads sit at block entries.
//! `crate::passes::phi` turns them into SSA form: after it runs, every block's
//! [`Block::entry_values`] says which value each variable it reads has, and
//! [`Block::phis`] holds the PHIs that make it so.
//!
//! Merge annotations ([`Block::merge`]) are written only by the final marking pass.

use crate::cfg::order::Order;
use crate::ir::{BlockId, Function, IndexExt};
use cranelift_entity::PrimaryMap;
use smallvec::SmallVec;

entity!(
    /// A block of the structurized CFG.
    pub struct SBlock, "s"
);

entity!(
    /// A variable carried along edges (selector or PHI input).
    pub struct VarId, "v"
);

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Origin {
    /// A copy of this original block: executing it executes the original block's body.
    Original(BlockId),
    /// Added by the structurizer; executing it has no effect of its own.
    Synthetic(SyntheticKind),
}

/// Why a synthetic block exists (for dumps, statistics and readable names).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum SyntheticKind {
    /// The single continue target that all back edges of a loop go through.
    Continue,
    /// The single exit of a loop (its merge); may dispatch to the loop's exit targets.
    LoopMerge,
    /// A selection's merge that collects the construct's exits; may dispatch (a ladder).
    SelectionMerge,
    /// A merge that no path reaches (every arm leaves by break, continue or return).
    UnreachableMerge,
    /// The conditional tail split off a loop header that also needs a selection.
    HeaderTail,
    /// A block on an edge, so that parallel edges carry different PHI inputs.
    EdgeSplit,
    /// The header of a block construct: a loop that runs once, so that the construct it
    /// wraps can leave by `break` from any depth (see `passes::selection`).
    BlockHeader,
    /// The continue target of a block construct: unreachable, it only closes the loop.
    BlockContinue,
    /// An empty block before a loop header that another construct merges at; it becomes
    /// that construct's merge (see `passes::loop_entry`).
    LoopEntry,
}

/// A block's terminator.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Term {
    Goto(SBlock),
    /// The original terminator of `block`, successor slots in `Terminator::successors` order
    /// (for a switch: slot 0 is the default, slot k + 1 the k-th case in source order).
    /// `ret` and `unreachable` have no slots.
    Orig {
        block: BlockId,
        succs: SmallVec<[SBlock; 2]>,
    },
    /// Go to `targets[k]` where k is the value of `var` (always in range on executed paths).
    Dispatch {
        var: VarId,
        targets: SmallVec<[SBlock; 4]>,
    },
    /// Synthetic dead end (an unreachable merge block).
    Unreachable,
}

impl Term {
    /// Successor slots, parallel edges included, in slot order.
    pub fn succs(&self) -> &[SBlock] {
        match self {
            Term::Goto(t) => std::slice::from_ref(t),
            Term::Orig { succs, .. } => succs,
            Term::Dispatch { targets, .. } => targets,
            Term::Unreachable => &[],
        }
    }

    pub fn succs_mut(&mut self) -> &mut [SBlock] {
        match self {
            Term::Goto(t) => std::slice::from_mut(t),
            Term::Orig { succs, .. } => succs,
            Term::Dispatch { targets, .. } => targets,
            Term::Unreachable => &mut [],
        }
    }
}

/// What a variable stands for.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum VarKind {
    /// A structurizer selector: which of a dispatch block's targets to take.
    Selector,
    /// The layout number of the original predecessor through which control entered
    /// original block `BlockId` (the input to its PHIs). Read on entry to every copy of it.
    IncomingBlock(BlockId),
}

/// A value a variable can have.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Val {
    Const(u32),
    /// No definition reaches here (only on paths that never execute).
    Undef,
    /// The `index`-th PHI of block `block` (after `crate::passes::phi` runs).
    Phi {
        block: SBlock,
        index: u32,
    },
}

/// A PHI that `crate::passes::phi` placed: the value of `var` on entry to its block.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Phi {
    pub var: VarId,
    /// One entry per predecessor block (parallel edges carry the same value).
    pub incoming: Vec<(SBlock, Val)>,
}

/// SPIR-V merge annotation of a header block (written by the marking pass).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Merge {
    Selection { merge: SBlock },
    Loop { merge: SBlock, continue_target: SBlock },
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Block {
    pub origin: Origin,
    pub term: Term,
    /// Definitions made when leaving through successor slot `slot`.
    pub edge_defs: SmallVec<[EdgeDef; 2]>,
    pub merge: Option<Merge>,
    /// Filled by `crate::passes::phi`.
    pub phis: Vec<Phi>,
    /// Filled by `crate::passes::phi`: the value, on entry, of every variable this block reads
    /// (its original block's `IncomingBlock`, a dispatch selector).
    pub entry_values: SmallVec<[(VarId, Val); 2]>,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct EdgeDef {
    pub slot: u32,
    pub var: VarId,
    pub val: Val,
}

impl Block {
    pub fn new(origin: Origin, term: Term) -> Block {
        Block { origin, term, edge_defs: SmallVec::new(), merge: None, phis: Vec::new(), entry_values: SmallVec::new() }
    }

    pub fn original(&self) -> Option<BlockId> {
        match self.origin {
            Origin::Original(b) => Some(b),
            Origin::Synthetic(_) => None,
        }
    }

    /// Value of `var` on entry, after SSA repair.
    pub fn entry_value(&self, var: VarId) -> Option<Val> {
        self.entry_values.iter().find(|(v, _)| *v == var).map(|(_, val)| *val)
    }
}

/// The structurizer's graph for one function.
#[derive(Clone, Debug)]
pub struct Scfg {
    pub name: String,
    pub entry: SBlock,
    pub blocks: PrimaryMap<SBlock, Block>,
    /// Blocks in emission order (every block reachable from `entry`, plus unreachable merge
    /// blocks). Kept current by the passes; the final order puts every header before the
    /// blocks of its construct and every merge after them.
    pub layout: Vec<SBlock>,
    pub vars: PrimaryMap<VarId, VarKind>,
    /// For each original block, in `Function::layout` order: its layout number and whether
    /// it has PHIs. Indexed by `BlockId`.
    pub original_numbers: Vec<(BlockId, u32)>,
    /// The `IncomingBlock` variable of each original block with PHIs.
    pub incoming_vars: Vec<(BlockId, VarId)>,
    /// Labels of original blocks (for dumps), by `BlockId` index.
    pub original_labels: Vec<String>,
    /// `number_of` and `incoming_var` as dense tables, by `BlockId` index.
    /// (Empty for hand-built graphs: lookups then scan the lists above.)
    pub(crate) number_by_block: Vec<u32>,
    pub(crate) incoming_by_block: Vec<Option<VarId>>,
    /// The shape of each original block's terminator, by `BlockId` index.
    pub original_kinds: Vec<OrigKind>,
}

/// The shape of an original terminator.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum OrigKind {
    Br,
    CondBr,
    Switch,
    /// `ret` or `unreachable`: the invocation ends.
    Exit,
}

impl Scfg {
    /// The layout number (0-based position in `Function::layout`) of an original block.
    pub fn number_of(&self, b: BlockId) -> u32 {
        self.try_number_of(b).expect("original block of this function")
    }

    /// [`Scfg::number_of`], or `None` for a block the function does not have. O(1) for
    /// graphs built by [`Scfg::from_function`]; hand-built graphs scan their list.
    pub fn try_number_of(&self, b: BlockId) -> Option<u32> {
        match self.number_by_block.get(b.as_u32_index() as usize) {
            Some(&n) if n != u32::MAX => Some(n),
            _ => self.original_numbers.iter().find(|(o, _)| *o == b).map(|(_, n)| *n),
        }
    }

    pub fn incoming_var(&self, b: BlockId) -> Option<VarId> {
        if self.incoming_by_block.is_empty() {
            return self.incoming_vars.iter().find(|(o, _)| *o == b).map(|(_, v)| *v);
        }
        self.incoming_by_block.get(b.as_u32_index() as usize).copied().flatten()
    }

    pub fn orig_kind(&self, b: BlockId) -> OrigKind {
        self.original_kinds[b.as_u32_index() as usize]
    }

    pub fn succs(&self, b: SBlock) -> &[SBlock] {
        self.blocks[b].term.succs()
    }

    /// A short readable name: the original label, or kind and number for synthetic blocks.
    /// Linear in the layout (it counts the copies of an original block): to label many
    /// blocks, count once with [`Scfg::copy_counts`] and use [`Scfg::label_counted`].
    pub fn label(&self, b: SBlock) -> String {
        self.label_counted(b, &self.copy_counts())
    }

    /// How many layout blocks stand for each original block, by `BlockId` index. O(n).
    pub fn copy_counts(&self) -> Vec<u32> {
        let mut counts = vec![0u32; self.original_labels.len()];
        for &b in &self.layout {
            if let Some(Origin::Original(o)) = self.blocks.get(b).map(|blk| blk.origin) {
                if let Some(c) = counts.get_mut(o.as_u32_index() as usize) {
                    *c += 1;
                }
            }
        }
        counts
    }

    /// [`Scfg::label`] with the copy counts given (from [`Scfg::copy_counts`]): O(label).
    pub fn label_counted(&self, b: SBlock, copy_counts: &[u32]) -> String {
        match self.blocks[b].origin {
            Origin::Original(o) => {
                let base = self.original_labels[o.as_u32_index() as usize].clone();
                // Copies of one original block are told apart by their block number.
                if copy_counts.get(o.as_u32_index() as usize).is_some_and(|&n| n > 1) {
                    format!("{base}.{}", b.as_u32())
                } else {
                    base
                }
            }
            Origin::Synthetic(kind) => {
                let prefix = match kind {
                    SyntheticKind::Continue => "continue",
                    SyntheticKind::LoopMerge => "loop_merge",
                    SyntheticKind::SelectionMerge => "merge",
                    SyntheticKind::UnreachableMerge => "dead_merge",
                    SyntheticKind::HeaderTail => "header_tail",
                    SyntheticKind::EdgeSplit => "edge",
                    SyntheticKind::BlockHeader => "block",
                    SyntheticKind::BlockContinue => "block_continue",
                    SyntheticKind::LoopEntry => "loop_entry",
                };
                format!("{prefix}.{}", b.as_u32())
            }
        }
    }

    pub fn add_block(&mut self, origin: Origin, term: Term) -> SBlock {
        self.blocks.push(Block::new(origin, term))
    }

    /// Predecessor lists (with parallel edges folded), for every block in the arena.
    pub fn preds(&self) -> cranelift_entity::SecondaryMap<SBlock, SmallVec<[SBlock; 2]>> {
        let mut preds: cranelift_entity::SecondaryMap<SBlock, SmallVec<[SBlock; 2]>> =
            cranelift_entity::SecondaryMap::new();
        for &b in &self.layout {
            for &s in self.blocks[b].term.succs() {
                if !preds[s].contains(&b) {
                    preds[s].push(b);
                }
            }
        }
        preds
    }

    /// Whether the graph is one block without edges (most shaders, as
    /// [`crate::ir::Function::single_block`] is for the IR): its dominator tree is the block
    /// alone.
    pub fn is_single_block(&self) -> bool {
        self.layout.len() == 1 && self.blocks.get(self.entry).is_some_and(|b| b.term.succs().is_empty())
    }

    /// A graph with no blocks, named `name`, for building one by hand (tests, tools); the
    /// by-block lookup tables stay empty, so lookups fall back to scanning.
    pub fn empty(name: String) -> Scfg {
        Scfg {
            name,
            entry: SBlock::from_u32(0),
            blocks: PrimaryMap::new(),
            layout: Vec::new(),
            vars: PrimaryMap::new(),
            original_numbers: Vec::new(),
            incoming_vars: Vec::new(),
            original_labels: Vec::new(),
            original_kinds: Vec::new(),
            number_by_block: Vec::new(),
            incoming_by_block: Vec::new(),
        }
    }

    /// Builds the initial graph of `func` (one block per reachable original block, original
    /// terminators, and the `IncomingBlock` definitions on original edges).
    pub fn from_function(func: &Function) -> Scfg {
        let mut scfg = Scfg {
            number_by_block: vec![u32::MAX; func.blocks.len()],
            incoming_by_block: vec![None; func.blocks.len()],
            ..Scfg::empty(func.name.clone())
        };
        scfg.original_kinds = func
            .blocks
            .values()
            .map(|b| match b.terminator {
                crate::ir::Terminator::Br { .. } => OrigKind::Br,
                crate::ir::Terminator::CondBr { .. } => OrigKind::CondBr,
                crate::ir::Terminator::Switch { .. } => OrigKind::Switch,
                crate::ir::Terminator::Ret { .. } | crate::ir::Terminator::Unreachable => OrigKind::Exit,
            })
            .collect();
        let mut labels = vec![String::new(); func.blocks.len()];
        for (n, &b) in func.layout.iter().enumerate() {
            labels[b.as_u32_index() as usize] = func.block_label(b);
            scfg.original_numbers.push((b, n as u32));
            scfg.number_by_block[b.as_u32_index() as usize] = n as u32;
        }
        scfg.original_labels = labels;
        // `Cfg::check` accepted the function: it has an entry, and branches name its blocks.
        let entry = func.entry().expect("a function with a body");
        // One block that branches nowhere (most shaders): it alone is reachable, without a
        // search.
        let single = func.single_block().is_some();
        let reachable = (!single)
            .then(|| Order::with_successors(entry, func.blocks.len(), |b| func.blocks[b].terminator.successors()));
        let mut map: Vec<Option<SBlock>> = vec![None; func.blocks.len()];
        for &b in &func.layout {
            if reachable.as_ref().map_or(b == entry, |r| r.is_reachable(b)) {
                let s = scfg.add_block(Origin::Original(b), Term::Unreachable);
                map[b.as_u32_index() as usize] = Some(s);
                scfg.layout.push(s);
            }
        }
        for &b in &func.layout {
            let Some(s) = map[b.as_u32_index() as usize] else {
                continue;
            };
            let has_phis = func.blocks[b]
                .insts
                .first()
                .is_some_and(|&i| matches!(func.insts[i].kind, crate::ir::InstKind::Phi { .. }));
            if has_phis {
                let v = scfg.vars.push(VarKind::IncomingBlock(b));
                scfg.incoming_vars.push((b, v));
                scfg.incoming_by_block[b.as_u32_index() as usize] = Some(v);
            }
            let succs: SmallVec<[SBlock; 2]> = func.blocks[b]
                .terminator
                .successors()
                .iter()
                .map(|t| map[t.as_u32_index() as usize].expect("successor of a reachable block"))
                .collect();
            scfg.blocks[s].term = Term::Orig { block: b, succs };
        }
        // IncomingBlock definitions on every original edge into a block with PHIs.
        for &b in &func.layout {
            let Some(s) = map[b.as_u32_index() as usize] else {
                continue;
            };
            let number = scfg.number_of(b);
            let targets: SmallVec<[BlockId; 2]> = func.blocks[b].terminator.successors();
            for (slot, t) in targets.iter().enumerate() {
                if let Some(var) = scfg.incoming_var(*t) {
                    scfg.blocks[s].edge_defs.push(EdgeDef { slot: slot as u32, var, val: Val::Const(number) });
                }
            }
        }
        scfg.entry = map[func.layout[0].as_u32_index() as usize].expect("entry is reachable");
        scfg
    }
}
