//! The `GraphicsStages` family (`crate::emit::support::Family::GraphicsStages`): the hull,
//! domain and geometry shader operations, routed to their stage's module
//! (`crate::emit::stage::{hull, domain, geometry}`, which also own execution modes and entry
//! points), and the ones several of these stages share:
//!
//! - `primitiveID` → `PrimitiveId` in hull, domain and geometry shaders (pixel shaders read
//!   `SV_PrimitiveID` from their signature);
//! - `loadPatchConstant(id, row, col)`: a domain shader's patch-constant input, or (DXBC
//!   conversions only) a hull shader reading back a patch constant it wrote.
//!
//! `crate::emit::support` refuses these operations in stages DXIL does not allow them in,
//! so a call that reaches a stage module is one its stage has.

use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::locations::SigKind;
use crate::emit::{Call, FnEmit, Num};
use crate::front::container::ShaderKind;
use crate::ir::TypeId;
use rspirv::spirv::{BuiltIn, Capability, Decoration, Op, StorageClass, Word};

impl<'a, 'm> FnEmit<'a, 'm> {
    /// Lowers a hull, domain or geometry shader operation.
    pub(super) fn stage_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
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
            DxOp::DomainLocation | DxOp::LoadOutputControlPoint if stage == ShaderKind::Domain => self.domain_op(c),
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
        let t = num.scalar(self.cx);
        let (var, created) = self.iface.builtin_created(self.cx, b, StorageClass::Input, t);
        if created && self.sm.kind == ShaderKind::Pixel && num != Num::Float {
            self.cx.decorate(var, Decoration::Flat, &[]);
        }
        let x = self.ids_op(Op::Load, t, &[var])?;
        self.num_to_ir(x, num, to)
    }

    /// `loadPatchConstant(id, row, col)`: a domain shader's patch-constant input, or (DXBC
    /// conversions only) a hull shader reading back a patch constant it wrote.
    fn load_patch_constant(&mut self, c: &Call<'_>) -> Result<Word> {
        let at = self.element_operands(c, SigKind::PatchConstant, None)?;
        self.load_element(at, c.ty)
    }
}
