//! Domain shaders → `TessellationEvaluation`.
//!
//! `domainLocation(c)` → component `c` of `TessCoord` (D3D's `SV_DomainLocation`: (u, v)
//! in the quad and isoline domains, barycentric (u, v, w) in the tri domain, the same
//! parameterization as Vulkan's); `loadInput(id, row, col, cp)` (and
//! `loadOutputControlPoint`, which DXIL allows here too) reads control point `cp` of the hull
//! shader's output patch (per-vertex arrays of the DS state's control-point count); `loadPatchConstant` reads `Patch` inputs and the tessellation factors
//! (`TessLevelOuter`/`TessLevelInner` inputs, see `interface`); `primitiveID` →
//! `PrimitiveId` (`stage`).
//!
//! Execution modes: the DS state's domain (`Triangles`/`Quads`/`Isolines`). Spacing,
//! vertex order and point mode are properties of the hull shader in D3D and are declared
//! there; Vulkan takes them from either tessellation stage.

use crate::dxil::{DsState, DxOp};
use crate::emit::error::Result;
use crate::emit::locations::SigKind;
use crate::emit::{Call, FnEmit, ModuleBuilder, Num, StageIo};
use crate::front::container::ShaderKind;
use rspirv::spirv::{BuiltIn, Capability, Op, StorageClass, Word};

impl StageIo {
    /// Checks the DS state and derives the interface facts.
    pub(in crate::emit) fn domain(ds: &DsState) -> Result<StageIo> {
        let n = ds.input_control_points;
        super::check_control_points(ShaderKind::Domain, n, 1..=32, "domain shader", "control points")?;
        Ok(StageIo { input_vertices: ds.input_control_points, ..Default::default() })
    }
}

impl ModuleBuilder<'_> {
    /// The domain shader's execution modes (module documentation).
    pub(in crate::emit) fn domain_modes(&mut self, entry: Word, ds: &DsState) -> Result<()> {
        self.capability(Capability::Tessellation);
        self.tessellation_domain(entry, ds.domain)
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(in crate::emit) fn domain_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        match c.op {
            DxOp::DomainLocation => {
                let component = self.arg_const(c, 0)?;
                if component > 2 {
                    return Err(self.form(c.op, format!("component {component} (a domain location has 3)")));
                }
                let f = self.cx.float(32);
                let v3 = self.cx.vec(f, 3);
                let var = self.iface.builtin(self.cx, BuiltIn::TessCoord, StorageClass::Input, v3);
                let pty = self.cx.ptr(StorageClass::Input, f);
                let k = self.cx.const_u32(component as u32);
                let p = self.ids_op(Op::AccessChain, pty, &[var, k])?;
                let x = self.ids_op(Op::Load, f, &[p])?;
                self.num_to_ir(x, Num::Float, c.ty).map(Some)
            }
            // The hull shader's output control points are this stage's control-point inputs
            // (DXIL allows the operation here; DXC writes `loadInput`).
            DxOp::LoadOutputControlPoint => {
                let at = self.element_operands(c, SigKind::Input, Some(3))?;
                self.load_element(at, c.ty).map(Some)
            }
            other => Err(self.not_in_family(other, "graphics stages")),
        }
    }
}
