//! DXIL-aware rewrites of the IR that run before the structurizer, one file per pass.
//!
//! They know what `dx.op` calls mean (through [`crate::dxil`]) and use the CFG analyses of
//! [`crate::cfg`]; the structurizer and the analyses stay ignorant of them. Each pass takes
//! a function and returns a rewritten copy only when it changed something, so a shader it
//! does not concern costs one scan and no copy.
//!
//! | pass | what | stages |
//! | --- | --- | --- |
//! | [`derivative_hoisting`] | explicit derivatives in divergent control flow are computed in the nearest quad-uniform block that dominates them | pixel, compute, mesh, amplification |

pub mod derivative_hoisting;
