//! A reference interpreter of DXIL compute shaders over untangle's IR (issue 20): the
//! "what the DXIL computes" side of differential execution. Test tooling only; nothing in
//! the translator calls it.
//!
//! It runs every thread group of a dispatch: barriers, groupshared memory, wave
//! operations at a chosen wave size (lanes of a dynamic instance together), atomics,
//! resources with D3D's rules (raw, structured and typed buffers, textures with loads,
//! point sampling, gathers and comparison sampling, constant buffers, UAV counters, SM 6.6
//! descriptor heaps, out-of-bounds loads 0 and stores dropped), half/float/double and
//! 1-to-64-bit integer arithmetic with D3D's rules.
//!
//! Semantics are written from DXC's `docs/DXIL.rst` and the D3D11.3 functional spec (and
//! the HLSL wave-intrinsic documentation), never from untangle's emitter; each module says
//! which sections it follows, and `docs/dxil-semantics.md` collects the rules and the
//! tolerance (ULP) table. Every value carries an accuracy ([`value::Acc`]): where D3D
//! leaves a result open the interpreter says so instead of guessing, and the harness
//! compares only what D3D defines.
//!
//! | module | concern |
//! | --- | --- |
//! | [`value`] | values, accuracy tags |
//! | [`float`] | half/float/double arithmetic, denormal modes, min/max NaN rules, ULP distance |
//! | [`memory`] | byte memory with per-byte accuracy and format tags |
//! | [`resources`] | resource kinds, bounds, formats |
//! | [`heap`] | SM 6.6 descriptor heaps |
//! | [`program`] | preparing a module: entry, layout, supported operations |
//! | [`exec`] | LLVM instructions of one thread |
//! | [`dxop`] | thread-local `dx.op` operations |
//! | [`sample`] | point sampling, gathers, comparison sampling |
//! | [`wave`] | wave and quad operations |
//! | [`vector`] | DXIL 1.9 native vectors: vector loads/stores, reductions, `FDot`, element-wise overloads |
//! | [`ags`] | AMD AGS wave, lane and min/med/max intrinsics, 64-bit atomics on the magic UAV |
//! | [`ray_query`] | inline ray tracing against a scene model |
//! | [`sched`] | groups, waves, barriers, schedules |
//!
//! Cost: a tree-walking interpreter, roughly 10–30 million IR instructions a second;
//! values are cloned (aggregates are reference-counted).

pub mod ags;
pub mod dxop;
pub mod exec;
pub mod float;
pub mod heap;
pub mod memory;
pub mod program;
pub mod ray_query;
pub mod resources;
pub mod sample;
pub mod sched;
pub mod value;
pub mod vector;
pub mod wave;

pub use exec::RunError;
pub use program::{Program, Unsupported};
pub use resources::{CompKind, Filter, ResKind, ResourceData, Resources, TexDim, TexelFormat};
pub use sched::{run, Config, RunInfo, Schedule};
