//! SPIR-V emission.
//!
//! - [`shape`]: shape mode, the structurizer's testable output.
//! - [`translate`](mod@translate): the full DXIL → SPIR-V translation of compute, vertex, hull, domain,
//!   geometry and pixel shaders.
//!   It is built from small pieces: [`module`] (the module under construction: types,
//!   constants, capabilities, globals), `function` (LLVM instructions and SSA values over the
//!   structurized CFG), [`control`] (merge instructions and dispatch terminators, shared with
//!   shape mode), `resources` (descriptor variables and `dx.op` handles), `interface`
//!   (signatures and built-ins), `dxop` (`dx.op.*` lowering by family) and `stage` (hull,
//!   domain and geometry shaders: their operations, execution modes and entry points; ray
//!   tracing; work-graph nodes as compute shaders, `docs/work-graphs.md`).
//! - [`support`](mod@support): which operations are lowered in which stage, and why the others are
//!   refused (the dispatcher, `docs/dxil-coverage.md` and `untangle info --ops` read it).
//! - [`writer`]: the module's words, written as instructions are added (both modes).
//! - [`binding_model`]: where each D3D register lands in Vulkan when no root signature says.
//! - [`stream_output`]: D3D12 stream output lowered to Vulkan transform feedback.

pub mod binding_model;
pub mod control;
mod dxop;
mod error;
mod function;
pub mod interface;
pub mod library;
pub mod module;
pub(crate) mod resources;
pub mod shape;
pub(crate) mod stage;
pub mod stream_output;
pub mod support;
pub mod translate;
mod typecheck;
mod validate;
pub mod writer;

pub use error::Error;
pub use stage::{TessDomainOrigin, RENDER_TARGET_SAMPLE_COUNT_SPEC_ID};
pub use support::{stage_support, support, Family, Refusal, StageFamily, Support};
pub use translate::{Options, Translation};
