//! Pixel-shader pull-model interpolation, per-vertex attributes and render-target sample
//! queries.
//!
//! - `evalCentroid`, `evalSampleIndex`, `evalSnapped` → GLSL.std.450 `InterpolateAtCentroid`,
//!   `InterpolateAtSample`, `InterpolateAtOffset` (capability `InterpolationFunction`) on a
//!   pointer to the element's row in its `Input` variable, then the column is extracted. The
//!   variable keeps its own decorations, so `noperspective` elements interpolate without
//!   perspective as D3D does; `centroid` and `sample` qualifiers are overridden by the
//!   function, as in D3D. DXC's validator allows these operations only on linearly
//!   interpolated float elements; anything else (a `nointerpolation` or integer element, a
//!   built-in such as `SV_Position`, which Vulkan's functions do not take) is a typed error.
//! - `evalSnapped`'s offset: D3D uses bits 3:0 of each integer operand as a signed 4-bit
//!   fixed-point number of 1/16 pixel ([-8, 7] / 16, relative to the pixel centre), the
//!   offset `InterpolateAtOffset` takes in pixels: `BitFieldSExtract(x, 0, 4) / 16`. Vulkan
//!   guarantees the same range (`minInterpolationOffset` ≤ -0.5, `maxInterpolationOffset`
//!   ≥ 0.4375, 4 sub-pixel bits).
//! - `attributeAtVertex(element, row, column, vertex)` reads the `PerVertexKHR` array that
//!   `crate::emit::stage::pixel` makes of an element it reads (`SPV_KHR_fragment_shader_barycentric`);
//!   DXC allows it only on `nointerpolation` elements. The vertex index is clamped to 2.
//!   Vertex order: vertex *k* is the primitive's *k*-th vertex in both APIs for triangle
//!   lists; for odd triangles of strips Vulkan's order depends on the provoking-vertex mode
//!   (see `docs/stage-interfaces.md`).
//! - `renderTargetGetSampleCount`: the immediate count the options give, else a
//!   specialization constant with id `Options::render_target_sample_count_spec_id`
//!   (default [`crate::emit::RENDER_TARGET_SAMPLE_COUNT_SPEC_ID`]; the layer sets it to the
//!   pipeline's rasterization samples; default 1).
//! - `renderTargetGetSamplePosition(index)`: D3D's standard pattern for that count, (0, 0)
//!   past it (`textures.rs`' table, shared with `texture2DMSGetSamplePosition`).
//!
//! Cost: a few instructions per call; the specialization constant is declared once per
//! module (found again by its `SpecId` decoration).

use crate::dxil::{DxOp, InterpolationMode, SignatureElement};
use crate::emit::error::Result;
use crate::emit::locations::SigKind;
use crate::emit::{Call, FnEmit, Num};
use rspirv::spirv::{Capability, Decoration, Op, StorageClass, Word};

const FAMILY: &str = "interpolation";

/// GLSL.std.450 instruction numbers.
const INTERPOLATE_AT_CENTROID: u32 = 76;
const INTERPOLATE_AT_SAMPLE: u32 = 77;
const INTERPOLATE_AT_OFFSET: u32 = 78;

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn interpolation_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        match c.op {
            DxOp::EvalCentroid | DxOp::EvalSampleIndex | DxOp::EvalSnapped => self.evaluate(c).map(Some),
            DxOp::AttributeAtVertex => self.attribute_at_vertex(c).map(Some),
            DxOp::RenderTargetGetSampleCount => {
                let count = self.render_target_sample_count();
                self.num_to_ir(count, Num::UInt, c.ty).map(Some)
            }
            DxOp::RenderTargetGetSamplePosition => {
                let count = self.render_target_sample_count();
                let index = self.arg_val(c, 0)?;
                self.standard_sample_position(count, index, c.ty).map(Some)
            }
            other => Err(self.not_in_family(other, FAMILY)),
        }
    }

    /// The input element operand 0 names, checked to be a pixel input.
    fn input_element(&self, c: &Call<'_>) -> Result<SignatureElement> {
        let id = self.arg_const(c, 0)?;
        self.sigs
            .inputs
            .iter()
            .find(|e| u64::from(e.id) == id)
            .cloned()
            .ok_or_else(|| self.invalid(c, "operand 0", format!("no input signature element {id}")))
    }

    /// The constant column (operand 2) after checking it against the element.
    fn element_column(&self, c: &Call<'_>, el: &SignatureElement) -> Result<u32> {
        let col = self.arg_const(c, 2)?;
        let cols = el.cols.max(1);
        if col >= u64::from(cols) {
            return Err(self.invalid(c, "operand 2", format!("column {col} of an element with {cols} columns")));
        }
        Ok(col as u32)
    }

    /// The row (operand 1) as an id, checked against the element where it is a constant.
    fn element_row(&mut self, c: &Call<'_>, el: &SignatureElement) -> Result<Word> {
        let row = self.arg(c, 1)?;
        let rows = el.rows.max(1);
        if let Some(r) = self.const_int(row).filter(|&r| r >= u64::from(rows)) {
            return Err(self.invalid(c, "operand 1", format!("row {r} of an element with {rows} rows")));
        }
        match self.value_ty(row).map(|t| self.cx.m.types.get(t)) {
            Some(crate::ir::Type::Int(32)) => self.value(row),
            _ => Err(self.invalid(c, "operand 1", "the row index is not an i32")),
        }
    }

    fn evaluate(&mut self, c: &Call<'_>) -> Result<Word> {
        let el = self.input_element(c)?;
        use InterpolationMode::*;
        let linear = matches!(
            el.interpolation,
            Undefined
                | Linear
                | LinearCentroid
                | LinearNoperspective
                | LinearNoperspectiveCentroid
                | LinearSample
                | LinearNoperspectiveSample
        );
        let float = matches!(
            el.component_type,
            crate::dxil::ComponentType::F16
                | crate::dxil::ComponentType::F32
                | crate::dxil::ComponentType::SNormF32
                | crate::dxil::ComponentType::UNormF32
                | crate::dxil::ComponentType::SNormF16
                | crate::dxil::ComponentType::UNormF16
        );
        if !linear || !float {
            return Err(self.invalid(
                c,
                "operand 0",
                format!(
                    "{} is a {:?} element with {:?} interpolation; evaluation needs a linearly interpolated float",
                    el.semantic, el.component_type, el.interpolation
                ),
            ));
        }
        let col = self.element_column(c, &el)?;
        let row = self.element_row(c, &el)?;
        let sv = self.element(SigKind::Input, el.id)?;
        if let Some(b) = sv.builtin {
            return Err(self.form(
                c.op,
                format!("{} is Vulkan's built-in {b:?}, which the interpolation functions do not take", el.semantic),
            ));
        }
        if sv.vertices > 0 {
            return Err(self.form(
                c.op,
                format!("{} is read per vertex (attributeAtVertex) and has no interpolation", el.semantic),
            ));
        }
        self.cx.capability(Capability::InterpolationFunction);
        let f = self.cx.float(32);
        let cols = sv.repr.cols.max(1);
        let row_ty = if cols > 1 { self.cx.vec(f, cols) } else { f };
        let pointer = if sv.repr.rows > 1 {
            let pty = self.cx.ptr(StorageClass::Input, row_ty);
            self.ids_op(Op::AccessChain, pty, &[sv.var, row])?
        } else {
            sv.var
        };
        let value = match c.op {
            DxOp::EvalCentroid => self.glsl(row_ty, INTERPOLATE_AT_CENTROID, &[pointer])?,
            DxOp::EvalSampleIndex => {
                let sample = self.arg_val(c, 3)?;
                self.glsl(row_ty, INTERPOLATE_AT_SAMPLE, &[pointer, sample])?
            }
            _ => {
                let u = self.cx.u32_t();
                let (zero, four) = (self.cx.const_u32(0), self.cx.const_u32(4));
                let sixteenth = self.cx.const_bits(f, 32, (1.0f32 / 16.0).to_bits() as u64);
                let mut offset = Vec::with_capacity(2);
                for k in [3, 4] {
                    let x = self.arg_val(c, k)?;
                    let nibble = self.ids_op(Op::BitFieldSExtract, u, &[x, zero, four])?;
                    let x = self.ids_op(Op::ConvertSToF, f, &[nibble])?;
                    offset.push(self.ids_op(Op::FMul, f, &[x, sixteenth])?);
                }
                let v2 = self.cx.vec(f, 2);
                let offset = self.ids_op(Op::CompositeConstruct, v2, &offset)?;
                self.glsl(row_ty, INTERPOLATE_AT_OFFSET, &[pointer, offset])?
            }
        };
        let x = if cols > 1 { self.extract(f, value, col)? } else { value };
        self.num_to_ir(x, Num::Float, c.ty)
    }

    fn attribute_at_vertex(&mut self, c: &Call<'_>) -> Result<Word> {
        let el = self.input_element(c)?;
        if el.interpolation != InterpolationMode::Constant {
            return Err(self.invalid(
                c,
                "operand 0",
                format!(
                    "{} has {:?} interpolation; attributeAtVertex needs nointerpolation",
                    el.semantic, el.interpolation
                ),
            ));
        }
        let col = self.element_column(c, &el)?;
        let row = self.element_row(c, &el)?;
        let sv = self.element(SigKind::Input, el.id)?;
        if sv.builtin.is_some() || sv.vertices != 3 {
            return Err(self.form(c.op, format!("{} is not a per-vertex varying", el.semantic)));
        }
        let vertex = self.arg(c, 3)?;
        let vertex = match self.const_int(vertex) {
            Some(k) if k < 3 => self.cx.const_u32(k as u32),
            Some(k) => return Err(self.invalid(c, "operand 3", format!("vertex {k} of a triangle"))),
            None => {
                let u = self.cx.u32_t();
                let v = self.value(vertex)?;
                let v = self.ids_op(Op::UConvert, u, &[v])?;
                let two = self.cx.const_u32(2);
                // GLSL.std.450 UMin.
                self.glsl(u, 38, &[v, two])?
            }
        };
        let p = self.sig_scalar_ptr(sv, StorageClass::Input, Some(vertex), row, Some(col), row)?;
        let st = sv.repr.num.scalar(self.cx);
        let x = self.ids_op(Op::Load, st, &[p])?;
        self.num_to_ir(x, sv.repr.num, c.ty)
    }

    /// The `u32` specialization constant holding the render target's sample count.
    fn render_target_sample_count(&mut self) -> Word {
        if let Some(w) = self.cx.sample_count.constant {
            return w;
        }
        if let Some(n) = self.cx.sample_count.value {
            let w = self.cx.const_u32(n);
            self.cx.sample_count.constant = Some(w);
            return w;
        }
        let u = self.cx.u32_t();
        let w = self.cx.b.id();
        self.cx.b.global_inst(Op::SpecConstant, Some(u), Some(w), &[1]);
        self.cx.sample_count.constant = Some(w);
        let id = self.cx.sample_count.spec_id;
        self.cx.decorate(w, Decoration::SpecId, &[id]);
        self.cx.b.name(w, "RenderTargetSampleCount");
        w
    }
}
