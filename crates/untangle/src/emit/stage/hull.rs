//! Hull shaders → `TessellationControl`.
//!
//! # One entry point for two phases
//!
//! DXIL keeps D3D's two hull-shader phases as two functions: the control-point phase (the
//! entry function, run once per output control point) and the patch-constant function (run
//! once per patch, reading every input and output control point). Vulkan has one
//! tessellation control shader invoked once per output control point. The translation
//! emits both DXIL functions as SPIR-V functions and an entry function that runs
//!
//! ```text
//! control_point_phase();                      // this invocation's control point
//! OpControlBarrier(Workgroup, Invocation, None)  // outputs visible to the patch
//! if (InvocationId == 0) patch_constant_phase();
//! ```
//!
//! The patch-constant phase is *guarded*, not spread: invocation 0 runs all of it. DXIL
//! from HLSL has one patch-constant function with no fork/join split (DXIL.rst, "Hull shader
//! representation"), whose statements may depend on each other, so splitting it over
//! invocations would need an analysis of its data flow for a gain only on wide patches;
//! the guard is always correct. `OpControlBarrier` in a tessellation control shader makes
//! the control-point outputs written before it visible to every invocation after it
//! (SPIR-V's definition of the instruction for this execution model), so
//! `loadOutputControlPoint` reads every control point. Output control-point counts of 0
//! (D3D allows them) still run one invocation (`OutputVertices 1`) that writes nothing.
//!
//! # Operations
//!
//! `outputControlPointID` → `InvocationId`; `loadInput(id, row, col, cp)` reads input
//! control point `cp` (per-vertex arrays of the `[inputcontrolpoints]` length);
//! `storeOutput` writes the invocation's own output control point (`out[InvocationId]`,
//! the only index Vulkan allows); `loadOutputControlPoint(id, row, col, cp)` reads any
//! output control point; `storePatchConstant` writes `Patch` outputs, tessellation factors
//! to `TessLevelOuter`/`TessLevelInner` after D3D's adjustments (`interface::TessFactorRule`);
//! `primitiveID` → `PrimitiveId` (`stage`).
//!
//! # Execution modes
//!
//! `[domain]` → `Triangles`/`Quads`/`Isolines`; `[partitioning]` → `SpacingEqual`
//! (integer, and pow2 whose factors the stores round up to powers of two),
//! `SpacingFractionalOdd`, `SpacingFractionalEven`; `[outputtopology]` → `PointMode`, nothing
//! (lines), or a vertex order: D3D's `triangle_cw` is `VertexOrderCw` under Vulkan's default
//! upper-left tessellation domain origin and `VertexOrderCcw` under the lower-left origin
//! ([`crate::emit::TessDomainOrigin`]), `triangle_ccw` the reverse (checked by drawing: the graphics
//! runner's `tess_quad_cw`/`tess_quad_ccw` under D3D's flipped viewport); `[outputcontrolpoints]` →
//! `OutputVertices`. Domain shaders repeat the domain (Vulkan accepts modes on either stage
//! and requires equal ones where both say).

use crate::dxil::{
    DxOp, EntryPoint, HsState, ShaderModel, TessellatorDomain, TessellatorOutputPrimitive, TessellatorPartitioning,
};
use crate::emit::error::{malformed, Error, Result, Subject};
use crate::emit::locations::SigKind;
use crate::emit::{Call, FnEmit, Interface, ModuleBuilder, Num, Resources, StageIo, TessFactorRule};
use crate::front::container::ShaderKind;
use crate::ir::Function;
use rspirv::spirv::{self, BuiltIn, Capability, ExecutionMode, Op, Scope, StorageClass, Word};

/// D3D's maximum tessellation factor (`D3D11_TESSELLATOR_MAX_TESSELLATION_FACTOR`; 63,
/// `..._MAX_ODD_TESSELLATION_FACTOR`, with fractional-odd partitioning).
const D3D_MAX_TESS_FACTOR: f32 = 64.0;
const D3D_MAX_ODD_TESS_FACTOR: f32 = 63.0;

impl StageIo {
    /// Checks the HS state and derives the interface facts.
    pub(in crate::emit) fn hull(hs: &HsState) -> Result<StageIo> {
        let (inputs, outputs) = (hs.input_control_points, hs.output_control_points);
        super::check_control_points(ShaderKind::Hull, inputs, 1..=32, "hull shader", "input control points")?;
        super::check_control_points(ShaderKind::Hull, outputs, 0..=32, "hull shader", "output control points")?;
        let limit = if hs.partitioning == TessellatorPartitioning::FractionalOdd {
            D3D_MAX_ODD_TESS_FACTOR
        } else {
            D3D_MAX_TESS_FACTOR
        };
        let max = if hs.max_tess_factor.is_nan() { limit } else { hs.max_tess_factor as f32 };
        Ok(StageIo {
            input_vertices: hs.input_control_points,
            output_vertices: hs.output_control_points.max(1),
            tess_factors: Some(TessFactorRule {
                max: max.clamp(1.0, limit),
                pow2: hs.partitioning == TessellatorPartitioning::Pow2,
            }),
            ..Default::default()
        })
    }
}

impl Interface {
    /// Emits the control-point phase `cp`, the patch-constant function `pc` and the entry
    /// function that runs them (module documentation); returns the entry function.
    /// `cp_check` is [`crate::cfg::Cfg::check`] of `cp` if the caller ran it already.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::emit) fn hull_entry<'m>(
        &mut self,
        cx: &mut ModuleBuilder<'m>,
        res: &mut Resources<'m>,
        sm: &ShaderModel,
        ep: &EntryPoint,
        cp: &'m Function,
        pc: Option<&'m Function>,
        cp_check: Option<Result<(), crate::cfg::CfgError>>,
    ) -> Result<Word> {
        let iface = self;
        let (cp_fn, _, _) =
            iface.emit_function(cx, res, sm, &ep.signatures, cp, &format!("{}.control_point", ep.name), cp_check)?;
        let pc_fn = match pc {
            Some(f) if !f.is_declaration() => Some(
                iface.emit_function(cx, res, sm, &ep.signatures, f, &format!("{}.patch_constant", f.name), None)?.0,
            ),
            Some(f) => {
                return Err(malformed(
                    Subject::Stage(ShaderKind::Hull),
                    format!("patch-constant function `{}` has no body", f.name),
                ))
            }
            None => None,
        };
        let void = cx.void();
        let fn_void = cx.b.type_function(void, []);
        let entry = cx.b.begin_function(void, None, spirv::FunctionControl::NONE, fn_void).map_err(Error::from)?;
        cx.b.name(entry, ep.name.as_str());
        build_entry_body(cx, iface, cp_fn, pc_fn).map_err(Error::from)?;
        cx.b.end_function().map_err(Error::from)?;
        Ok(entry)
    }
}

fn build_entry_body(
    cx: &mut ModuleBuilder<'_>,
    iface: &mut Interface,
    cp_fn: Word,
    pc_fn: Option<Word>,
) -> crate::emit::writer::BuildResult<()> {
    let void = cx.void();
    cx.b.begin_block(None)?;
    cx.b.block_value(Op::FunctionCall, void, &[cp_fn])?;
    let Some(pc_fn) = pc_fn else { return cx.b.ret() };
    let workgroup = cx.const_u32(Scope::Workgroup as u32);
    let invocation = cx.const_u32(Scope::Invocation as u32);
    let none = cx.const_u32(0);
    cx.b.block_inst(spirv::Op::ControlBarrier, None, None, &[workgroup, invocation, none])?;
    let int = cx.sint(32);
    let var = iface.builtin(cx, BuiltIn::InvocationId, StorageClass::Input, int);
    let id = cx.b.load(int, None, var, None, [])?;
    let zero = cx.b.constant_bit32(int, 0);
    let bool_t = cx.bool_t();
    let first = cx.b.block_value(Op::IEqual, bool_t, &[id, zero])?;
    cx.b.call_if_and_return(first, void, pc_fn)
}

impl ModuleBuilder<'_> {
    /// The hull shader's execution modes (module documentation).
    pub(in crate::emit) fn hull_modes(&mut self, entry: Word, hs: &HsState, upper_left_origin: bool) -> Result<()> {
        self.capability(Capability::Tessellation);
        self.tessellation_domain(entry, hs.domain)?;
        let spacing = match hs.partitioning {
            TessellatorPartitioning::Integer | TessellatorPartitioning::Pow2 => ExecutionMode::SpacingEqual,
            TessellatorPartitioning::FractionalOdd => ExecutionMode::SpacingFractionalOdd,
            TessellatorPartitioning::FractionalEven => ExecutionMode::SpacingFractionalEven,
            other => {
                return Err(malformed(Subject::Stage(ShaderKind::Hull), format!("tessellator partitioning {other:?}")))
            }
        };
        self.b.execution_mode(entry, spacing, []);
        let clockwise = match (hs.output_primitive, hs.domain) {
            (TessellatorOutputPrimitive::Point, _) => {
                self.b.execution_mode(entry, ExecutionMode::PointMode, []);
                None
            }
            (TessellatorOutputPrimitive::Line, TessellatorDomain::IsoLine) => None,
            (TessellatorOutputPrimitive::TriangleCW, TessellatorDomain::Tri | TessellatorDomain::Quad) => Some(true),
            (TessellatorOutputPrimitive::TriangleCCW, TessellatorDomain::Tri | TessellatorDomain::Quad) => Some(false),
            (prim, domain) => {
                return Err(malformed(
                    Subject::Stage(ShaderKind::Hull),
                    format!("tessellator output {prim:?} for the {domain:?} domain"),
                ))
            }
        };
        if let Some(d3d_cw) = clockwise {
            // D3D12-on-Vulkan layers flip the viewport (negative height) to keep D3D's
            // window-space y; that mirror cancels the upper-left domain origin's, so D3D's
            // winding keeps its name there and flips under the lower-left origin.
            let vulkan_cw = d3d_cw == upper_left_origin;
            let mode = if vulkan_cw { ExecutionMode::VertexOrderCw } else { ExecutionMode::VertexOrderCcw };
            self.b.execution_mode(entry, mode, []);
        }
        self.b.execution_mode(entry, ExecutionMode::OutputVertices, [hs.output_control_points.max(1)]);
        Ok(())
    }

    /// Declares the tessellator domain: `Triangles` / `Quads` / `Isolines` (the hull and
    /// domain shaders both do).
    pub(in crate::emit) fn tessellation_domain(&mut self, entry: Word, domain: TessellatorDomain) -> Result<()> {
        let mode = match domain {
            TessellatorDomain::Tri => ExecutionMode::Triangles,
            TessellatorDomain::Quad => ExecutionMode::Quads,
            TessellatorDomain::IsoLine => ExecutionMode::Isolines,
            other => return Err(malformed(Subject::Module, format!("tessellator domain {other:?}"))),
        };
        self.b.execution_mode(entry, mode, []);
        Ok(())
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(in crate::emit) fn hull_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        match c.op {
            DxOp::OutputControlPointID => self.load_builtin(BuiltIn::InvocationId, Num::SInt, c.ty).map(Some),
            DxOp::LoadOutputControlPoint => {
                let at = self.element_operands(c, SigKind::Output, Some(3))?;
                self.load_element(at, c.ty).map(Some)
            }
            DxOp::StorePatchConstant => {
                let at = self.element_operands(c, SigKind::PatchConstant, None)?;
                let v = self.arg(c, 3)?;
                self.store_element(at, v).map(|_| None)
            }
            other => Err(self.not_in_family(other, "graphics stages")),
        }
    }
}
