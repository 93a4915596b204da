//! Why a function has no usable control-flow graph: [`CfgError`].

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CfgError {
    /// A loop with more than one entry. `blocks` are the entry blocks of the first such
    /// region in RPO (all its blocks if it somehow has fewer than two entries).
    #[error("function `{function}`: irreducible control flow (a cycle entered at {})", .blocks.join(", "))]
    Irreducible { function: String, blocks: Vec<String> },
    #[error("function `{function}` is a declaration: it has no control-flow graph")]
    Declaration { function: String },
    #[error("function `{function}`: the layout lists block {block}, which does not exist")]
    UnknownBlock { function: String, block: u32 },
    #[error("function `{function}`, block `{block}`: branch to block {target}, which is not in the layout")]
    UnknownTarget { function: String, block: String, target: u32 },
}
