//! The graph interface the analyses read: [`FlowGraph`], over any [`Node`] type.
//!
//! Two graphs implement it: the IR function's graph (`super::graph::Graph`, nodes
//! `ir::BlockId`) and the structurizer's working graph (`passes::graph::ScfgView`, nodes
//! `SBlock`). The analyses are generic over it, so both get the same orders, dominator
//! trees and loop forest.

use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::EntityRef;
use std::fmt::Debug;
use std::hash::Hash;

/// A node of a flow graph: a dense entity index (tables keyed by it are `SecondaryMap`s).
pub trait Node: EntityRef + ReservedValue + Ord + Hash + Debug {}

impl<T: EntityRef + ReservedValue + Ord + Hash + Debug> Node for T {}

/// A directed graph with an entry. Successors may repeat (parallel edges, one per
/// terminator slot); every analysis gives the same answers with or without the repeats.
/// Nodes the entry does not reach may exist: the analyses ignore them and their edges.
pub trait FlowGraph {
    type Node: Node;

    fn entry(&self) -> Self::Node;

    /// Successors in a fixed order (the terminator's): depth-first searches follow it.
    fn successors(&self, n: Self::Node) -> impl Iterator<Item = Self::Node>;

    /// Predecessors, in any order (with the same repeats as the successor lists).
    fn predecessors(&self, n: Self::Node) -> impl Iterator<Item = Self::Node>;

    /// One more than the largest node index, or 0 when unknown: tables are sized to it once.
    fn node_bound(&self) -> usize {
        0
    }
}
