//! What is particular to one stage, one leaf module each: [`hull`] (→
//! `TessellationControl`), [`domain`] (→ `TessellationEvaluation`), [`geometry`] (→
//! `Geometry`), [`pixel`] (→ `Fragment`: per-vertex inputs, the render-target sample
//! count), [`amplification`] (→ `TaskEXT`), [`mesh`] (→ `MeshEXT`), [`ray_tracing`] (the six
//! ray-tracing stages of a library) and [`node`] (work-graph nodes as compute shaders,
//! `docs/work-graphs.md`).
//!
//! Each adds methods to the root's types and imports nothing from the other stages: its
//! `dx.op`s (`impl FnEmit { fn hull_op(..) }`), the interface facts of its state
//! (`StageIo::hull`), its execution modes (`ModuleBuilder::hull_modes`) and, where it has
//! one, its entry function (`ModuleBuilder::hull_entry`, `ModuleBuilder::node_entry`). The
//! driver (`translate`) and the operation families (`dxop::stages`, `dxop::mesh`) call
//! them; what two stages share sits on the root's types (`ModuleBuilder::tessellation_domain`
//! for hull and domain shaders, [`super::MeshVars`]'s payload for mesh and amplification
//! shaders), and checks of their states in this module (the control-point counts of hull
//! and domain shaders). Signature elements themselves are `interface`'s, the work-graph contract
//! `work_graph`'s and library entries `entry`'s. The D3D ↔ Vulkan differences each module
//! handles are written down in `docs/stage-interfaces.md`.

use crate::emit::error::{malformed, Result, Subject};
use crate::front::container::ShaderKind;
use std::ops::RangeInclusive;

mod amplification;
mod domain;
mod geometry;
mod hull;
mod mesh;
mod node;
mod pixel;
mod ray_tracing;

/// Checks a patch's control-point count `count` against `range`; the error says "`what`
/// with `count` `which`".
fn check_control_points(
    stage: ShaderKind,
    count: u32,
    range: RangeInclusive<u32>,
    what: &str,
    which: &str,
) -> Result<()> {
    if range.contains(&count) {
        return Ok(());
    }
    Err(malformed(Subject::Stage(stage), format!("{what} with {count} {which}")))
}
