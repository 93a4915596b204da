//! The pre-rasterization stages other than the vertex shader, one module each:
//! [`hull`] (→ `TessellationControl`), [`domain`] (→ `TessellationEvaluation`),
//! [`geometry`] (→ `Geometry`), [`amplification`] (→ `TaskEXT`) and [`mesh`] (→ `MeshEXT`). Each owns its stage's `dx.op`s, execution modes and the
//! per-stage facts of the interface ([`StageIo`]); signature elements themselves are
//! `crate::emit::interface`'s. The D3D ↔ Vulkan differences each module handles are
//! written down in `docs/stage-interfaces.md`.
//!
//! The operations reach these modules through `crate::emit::dxop`'s `stages` family, which
//! also lowers the ones shared by several of these stages (`primitiveID`, `loadPatchConstant`);
//! mesh and amplification operations come through the `mesh` family (`dxop::mesh`).

pub(crate) mod amplification;
pub(crate) mod domain;
pub(crate) mod geometry;
pub(crate) mod hull;
pub(crate) mod mesh;
pub mod node;
pub(crate) mod pixel;
pub mod ray_tracing;

pub use hull::TessDomainOrigin;
pub use pixel::RENDER_TARGET_SAMPLE_COUNT_SPEC_ID;

use super::error::{Error, Result};
use super::interface::StageIo;
use super::module::ModuleBuilder;
use crate::dxil::{EntryPoint, ShaderModel};
use crate::front::container::ShaderKind;
use rspirv::spirv::Word;

/// The interface facts of `ep`'s stage (per-vertex array lengths, streams, tessellation
/// factor rules).
pub(crate) fn stage_io(sm: &ShaderModel, ep: &EntryPoint) -> Result<StageIo> {
    let missing = |what: &str| Error::Malformed(format!("{} shader without {what}", sm.profile));
    Ok(match sm.kind {
        ShaderKind::Hull => {
            let hs = ep.properties.hull.as_ref().ok_or_else(|| missing("HS state"))?;
            hull::stage_io(hs)?
        }
        ShaderKind::Domain => {
            let ds = ep.properties.domain.as_ref().ok_or_else(|| missing("DS state"))?;
            domain::stage_io(ds)?
        }
        ShaderKind::Geometry => {
            let gs = ep.properties.geometry.as_ref().ok_or_else(|| missing("GS state"))?;
            geometry::stage_io(gs)?
        }
        ShaderKind::Mesh => mesh::stage_io(ep.properties.mesh.as_ref().ok_or_else(|| missing("MS state"))?)?,
        ShaderKind::Amplification => {
            amplification::stage_io(ep.properties.amplification.as_ref().ok_or_else(|| missing("AS state"))?)?
        }
        _ => StageIo::default(),
    })
}

/// Execution modes (and capabilities) of a hull, domain, geometry, mesh or amplification
/// shader's entry point.
pub(crate) fn execution_modes(
    cx: &mut ModuleBuilder<'_>,
    entry: Word,
    sm: &ShaderModel,
    ep: &EntryPoint,
    origin: TessDomainOrigin,
) -> Result<()> {
    let missing = |what: &str| Error::Malformed(format!("{} shader without {what}", sm.profile));
    match sm.kind {
        ShaderKind::Hull => {
            hull::execution_modes(cx, entry, ep.properties.hull.as_ref().ok_or_else(|| missing("HS state"))?, origin)
        }
        ShaderKind::Domain => {
            domain::execution_modes(cx, entry, ep.properties.domain.as_ref().ok_or_else(|| missing("DS state"))?)
        }
        ShaderKind::Geometry => {
            geometry::execution_modes(cx, entry, ep.properties.geometry.as_ref().ok_or_else(|| missing("GS state"))?)
        }
        ShaderKind::Mesh => {
            mesh::execution_modes(cx, entry, ep.properties.mesh.as_ref().ok_or_else(|| missing("MS state"))?)
        }
        ShaderKind::Amplification => amplification::execution_modes(
            cx,
            entry,
            ep.properties.amplification.as_ref().ok_or_else(|| missing("AS state"))?,
        ),
        _ => Ok(()),
    }
}
