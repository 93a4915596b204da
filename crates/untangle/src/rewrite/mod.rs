//! DXIL-aware rewrites of the IR that run before the structurizer, one file per pass.
//!
//! They know what `dx.op` calls mean (through [`crate::dxil`]) and use the CFG analyses of
//! [`crate::cfg`]; the structurizer and the analyses stay ignorant of them. Each pass takes
//! a function and returns a rewritten copy only when it changed something, so a shader it
//! does not concern costs one scan and no copy. An analysis that plans a lowering the IR
//! cannot express (a read of a constant buffer at a computed word) lives here too and
//! hands emission a plan instead of a copy.
//!
//! | pass | what | stages |
//! | --- | --- | --- |
//! | [`cbuffer_array`] | an analysis, not a rewrite: local arrays copied from constant-buffer words, which emission reads from the constant buffer instead of local memory | all |
//! | [`uniform_derivatives`] | explicit derivatives of draw-uniform values (constants, constant-buffer reads, math on them) become `x - x` | pixel, compute, mesh, amplification |
//! | [`derivative_hoisting`] | explicit derivatives in divergent control flow are computed in the nearest quad-uniform block that dominates them | pixel, compute, mesh, amplification |

pub mod cbuffer_array;
pub mod derivative_hoisting;
pub mod uniform_derivatives;
