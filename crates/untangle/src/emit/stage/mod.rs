//! The pre-rasterization stages after the vertex shader, one module each:
//! [`hull`] (→ `TessellationControl`), [`domain`] (→ `TessellationEvaluation`) and
//! [`geometry`] (→ `Geometry`). Each owns its stage's `dx.op`s, execution modes and the
//! per-stage facts of the interface ([`StageIo`]); signature elements themselves are
//! `crate::emit::interface`'s. The D3D ↔ Vulkan differences each module handles are
//! written down in `docs/stage-interfaces.md`.
//!
//! Operations shared by several of these stages live here: `primitiveID` (`PrimitiveId`
//! in hull, domain and geometry shaders; pixel shaders read it from their signature). An
//! operation used in a stage that does not have it is a typed error naming operation and
//! stage.

pub(crate) mod domain;
pub(crate) mod geometry;
pub(crate) mod hull;

pub use hull::TessDomainOrigin;

use super::dxop::Call;
use super::error::{Result, TranslateError};
use super::function::FnEmit;
use super::interface::{Num, StageIo};
use super::module::ModuleBuilder;
use crate::container::ShaderKind;
use crate::dxil::{DxOp, EntryPoint, ShaderModel};
use crate::ir::TypeId;
use rspirv::spirv::{BuiltIn, Capability, Decoration, StorageClass, Word};

/// The interface facts of `ep`'s stage (per-vertex array lengths, streams, tessellation
/// factor rules).
pub(crate) fn stage_io(sm: &ShaderModel, ep: &EntryPoint) -> Result<StageIo> {
    let missing = |what: &str| TranslateError::Malformed(format!("{} shader without {what}", sm.profile));
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
        _ => StageIo::default(),
    })
}

/// Execution modes (and capabilities) of a hull, domain or geometry shader's entry point.
pub(crate) fn execution_modes(
    cx: &mut ModuleBuilder<'_>,
    entry: Word,
    sm: &ShaderModel,
    ep: &EntryPoint,
    origin: TessDomainOrigin,
) -> Result<()> {
    let missing = |what: &str| TranslateError::Malformed(format!("{} shader without {what}", sm.profile));
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
        _ => Ok(()),
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    /// Lowers the operations of this module's stages.
    pub(in crate::emit) fn stage_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        let stage = self.sm.kind;
        match c.op {
            DxOp::PrimitiveID if matches!(stage, ShaderKind::Hull | ShaderKind::Domain | ShaderKind::Geometry) => {
                if stage == ShaderKind::Geometry {
                    self.cx.capability(Capability::Geometry);
                }
                self.load_builtin(BuiltIn::PrimitiveId, Num::SInt, c.ty).map(Some)
            }
            DxOp::OutputControlPointID | DxOp::LoadOutputControlPoint | DxOp::StorePatchConstant
                if stage == ShaderKind::Hull =>
            {
                self.hull_op(c)
            }
            DxOp::LoadPatchConstant if matches!(stage, ShaderKind::Hull | ShaderKind::Domain) => {
                self.load_patch_constant(c).map(Some)
            }
            DxOp::DomainLocation if stage == ShaderKind::Domain => self.domain_op(c),
            DxOp::EmitStream | DxOp::CutStream | DxOp::EmitThenCutStream | DxOp::GSInstanceID
                if stage == ShaderKind::Geometry =>
            {
                self.geometry_op(c)
            }
            other => Err(self.not_in_family(other, "graphics stages")),
        }
    }

    /// Loads a scalar 32-bit input built-in of numeric kind `num` as IR type `to`.
    pub(crate) fn load_builtin(&mut self, b: BuiltIn, num: Num, to: TypeId) -> Result<Word> {
        self.check_scalar(to, "result")?;
        let t = super::interface::scalar_of(self.cx, num);
        let (var, created) = self.iface.builtin_created(self.cx, b, StorageClass::Input, t);
        if created && self.sm.kind == ShaderKind::Pixel && num != Num::Float {
            self.cx.decorate(var, Decoration::Flat, &[]);
        }
        let x = self.ids_op(rspirv::spirv::Op::Load, t, &[var])?;
        self.num_to_ir(x, num, to)
    }

    /// `loadPatchConstant(id, row, col)`: a domain shader's patch-constant input, or (DXBC
    /// conversions only) a hull shader reading back a patch constant it wrote.
    fn load_patch_constant(&mut self, c: &Call<'_>) -> Result<Word> {
        let id = self.arg_const(c, 0)? as u32;
        let row = self.arg(c, 1)?;
        let col = self.arg_const(c, 2)?;
        self.load_element(super::interface::SigKind::PatchConstant, id, row, col, None, c.ty)
    }
}
