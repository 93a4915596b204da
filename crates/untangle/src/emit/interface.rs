//! The entry point's interface: built-in variables (`dx.op.threadId` → `GlobalInvocationId`
//! …) and signature elements (`loadInput` / `storeOutput` / the hull and domain shaders'
//! patch-constant and control-point operations) as `Input`/`Output` variables.
//!
//! # Varyings and the location rule
//!
//! A signature element that is not a built-in is a varying: a vector of its columns (an
//! array of such vectors when it has several rows), always 32 bits wide per component;
//! loads and stores convert to and from the operation's overload. Its place is the
//! *location rule* of [`super::locations`] ([`default_location`]), unless an [`IoRemap`]
//! callback places it.
//!
//! Hull, domain and geometry shaders see per-vertex data as arrays with one element per
//! vertex (input control points, output control points, the input primitive's vertices);
//! the access operations' vertex index selects it. Mesh shader outputs are arrays of
//! `[maxvertices]` (vertex outputs) or `[maxprimitives]` (primitive outputs, built-ins
//! included) elements, indexed by `storeVertexOutput`'s and `storePrimitiveOutput`'s index. Hull shader control-point outputs are
//! written at `InvocationId`, the only index Vulkan allows for writes.
//!
//! # System values
//!
//! Which system values are built-ins follows DXC's semantic-interpretation table
//! (`docs/DXIL.rst`, SigPoint × SemanticKind), with Vulkan's rules on top:
//! `SV_Position` (`FragCoord` in pixel shaders, `Position` elsewhere, a vertex attribute in
//! vertex shaders, a varying as a patch constant), `SV_VertexID` (`VertexIndex −
//! BaseVertex`: D3D counts from the draw's first vertex), `SV_InstanceID` (`InstanceIndex −
//! BaseInstance` as a vertex input, a flat varying anywhere else), `SV_IsFrontFace`
//! (`FrontFacing`), `SV_SampleIndex` (`SampleId`), `SV_PrimitiveID` (`PrimitiveId`: pixel
//! inputs and geometry outputs), `SV_RenderTargetArrayIndex` (`Layer`),
//! `SV_ViewportArrayIndex` (`ViewportIndex`), `SV_ShadingRate` (`PrimitiveShadingRateKHR`
//! / `ShadingRateKHR`), `SV_Depth*` (`FragDepth`, with the matching execution mode),
//! `SV_Coverage` (`SampleMask`), `SV_ClipDistance`/`SV_CullDistance` (one float array per
//! system value, elements in register order, per vertex where the stage is arrayed),
//! `SV_StencilRef`, `SV_Barycentrics`, `SV_TessFactor`/`SV_InsideTessFactor`
//! (`TessLevelOuter`/`TessLevelInner`, decorated `Patch`; factor *k*, the semantic index,
//! is array element *k*, see `docs/stage-interfaces.md`); `SV_Target` is a user output at
//! `Location` = its start row.
//!
//! System values that are built-ins in one stage and varyings in another:
//! `Layer`, `ViewportIndex` and `PrimitiveShadingRateKHR` can be written by Vulkan vertex
//! and tessellation-evaluation (layer, viewport) shaders but read by no pre-rasterization
//! stage, while D3D lets hull, domain and geometry shaders read them as signature inputs.
//! Where a later pre-rasterization stage may read them (vertex and domain outputs), the
//! store goes to the built-in *and* to a varying at the location rule's place; hull, domain
//! and geometry inputs read that varying. Built-ins Vulkan has no way to write
//! (`SV_IsFrontFace` from a geometry shader, `SV_ShadingRate` from a domain shader) are
//! typed errors.
//!
//! A leaf of `emit` (see its documentation): methods of [`super::Interface`] and [`FnEmit`];
//! the types are the root's, the location rule [`super::locations`]'s and stream output's
//! copies `transform_feedback`'s.

use crate::dxil::{ComponentType, InterpolationMode, SemanticKind, SignatureElement};
use crate::emit::error::{malformed, Error, Result, Subject};
use crate::emit::locations::default_location;
use crate::emit::locations::{IoLocation, IoQuery, SigKind, IO_REMAP_CALLBACK, MAX_REMAPPED_LOCATIONS};
use crate::emit::stream_output::Lowering;
use crate::emit::Num;
use crate::emit::TessFactorRule;
use crate::emit::{Call, Interface};
use crate::emit::{FnEmit, ModuleBuilder};
use crate::emit::{Repr, SigVar};
use crate::front::container::ShaderKind;
use crate::ir::{TypeId, Value};
use rspirv::spirv::{BuiltIn, Capability, Decoration, ExecutionMode, Op, StorageClass, Word};

/// One scalar of a signature element, as a load or store addresses it: element `id` of
/// signature `kind`, `row` (an `i32` value) and constant column `col`, and the control point
/// or input vertex of a per-vertex array (`None`: the stage's default).
#[derive(Copy, Clone, Debug)]
pub struct ElementScalar {
    pub kind: SigKind,
    pub id: u32,
    pub row: Value,
    pub col: u64,
    pub vertex: Option<Value>,
}

/// The signature point of DXC's semantic-interpretation table: which signature of which
/// stage an element is in.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum SigPoint {
    VsIn,
    VsOut,
    HsCpIn,
    HsCpOut,
    PcOut,
    DsIn,
    DsCpIn,
    DsOut,
    GsIn,
    GsOut,
    PsIn,
    PsOut,
    /// Mesh shader vertex outputs.
    MsOut,
    /// Mesh shader primitive outputs (DXIL's third signature, `SigKind::PatchConstant`).
    MsPOut,
}

impl SigPoint {
    pub fn of(stage: ShaderKind, kind: SigKind) -> Option<SigPoint> {
        use SigKind::*;
        use SigPoint::*;
        Some(match (stage, kind) {
            (ShaderKind::Vertex, Input) => VsIn,
            (ShaderKind::Vertex, Output) => VsOut,
            (ShaderKind::Hull, Input) => HsCpIn,
            (ShaderKind::Hull, Output) => HsCpOut,
            (ShaderKind::Hull, PatchConstant) => PcOut,
            (ShaderKind::Domain, Input) => DsCpIn,
            (ShaderKind::Domain, PatchConstant) => DsIn,
            (ShaderKind::Domain, Output) => DsOut,
            (ShaderKind::Geometry, Input) => GsIn,
            (ShaderKind::Geometry, Output) => GsOut,
            (ShaderKind::Pixel, Input) => PsIn,
            (ShaderKind::Pixel, Output) => PsOut,
            (ShaderKind::Mesh, Output) => MsOut,
            (ShaderKind::Mesh, PatchConstant) => MsPOut,
            _ => return None,
        })
    }

    fn is_output(self) -> bool {
        matches!(
            self,
            SigPoint::VsOut
                | SigPoint::HsCpOut
                | SigPoint::PcOut
                | SigPoint::DsOut
                | SigPoint::GsOut
                | SigPoint::PsOut
                | SigPoint::MsOut
                | SigPoint::MsPOut
        )
    }

    /// Per-vertex arrays (one element per control point or input vertex).
    fn arrayed(self) -> bool {
        matches!(self, SigPoint::HsCpIn | SigPoint::HsCpOut | SigPoint::DsCpIn | SigPoint::GsIn)
    }

    /// Patch constants.
    fn patch(self) -> bool {
        matches!(self, SigPoint::PcOut | SigPoint::DsIn)
    }
}

impl Interface {
    /// The swizzle of render target `el` ([`crate::emit::Options::output_swizzles`]) when it
    /// is not the identity; `Err(rows)` for a swizzled target of several rows (one element
    /// spanning several targets), which is not supported.
    fn target_swizzle(&self, el: &SignatureElement) -> std::result::Result<Option<[u8; 4]>, u32> {
        let first = el.start_row.unwrap_or(0);
        let rows = el.rows.max(1);
        let of = |t: u32| self.output_swizzles.get(t as usize).copied().filter(|s| *s != [0, 1, 2, 3]);
        if rows > 1 {
            return match (first..first.saturating_add(rows)).any(|t| of(t).is_some()) {
                true => Err(rows),
                false => Ok(None),
            };
        }
        Ok(of(first))
    }

    /// The variable of a built-in in storage class `class` (created on first use).
    pub fn builtin(&mut self, cx: &mut ModuleBuilder<'_>, b: BuiltIn, class: StorageClass, ty: Word) -> Word {
        self.builtin_created(cx, b, class, ty).0
    }

    /// [`Self::builtin`], and whether this call created the variable (to decorate it once).
    pub fn builtin_created(
        &mut self,
        cx: &mut ModuleBuilder<'_>,
        b: BuiltIn,
        class: StorageClass,
        ty: Word,
    ) -> (Word, bool) {
        let key = (b as u32, class as u32);
        if let Some(&v) = self.builtins.get(&key) {
            return (v, false);
        }
        let v = cx.global_var(class, ty, &format!("{b:?}"));
        cx.decorate(v, Decoration::BuiltIn, &[b as u32]);
        self.builtins.insert(key, v);
        (v, true)
    }
}

fn num_of(kind: SigKind, c: ComponentType) -> Result<Num> {
    Ok(match c {
        ComponentType::I1 => Num::Bool,
        ComponentType::I16 | ComponentType::I32 => Num::SInt,
        ComponentType::U16 | ComponentType::U32 => Num::UInt,
        ComponentType::F16
        | ComponentType::F32
        | ComponentType::SNormF32
        | ComponentType::UNormF32
        | ComponentType::SNormF16
        | ComponentType::UNormF16 => Num::Float,
        other => {
            return Err(Error::UnsupportedForm {
                subject: Subject::Signature(kind),
                message: format!("element component type {other:?}"),
            })
        }
    })
}

/// How a value of kind `n` travels through a `Location` variable: Vulkan has no boolean
/// ones, so a `bool` is a 32-bit 0 or 1 (a user varying, or the varying copy of a
/// built-in whose element says `i1`).
fn varying_num(n: Num) -> Num {
    if n == Num::Bool {
        Num::UInt
    } else {
        n
    }
}

/// How an element is represented.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Placement {
    Varying,
    Builtin(BuiltIn),
    /// A built-in, and a varying copy for a later pre-rasterization stage.
    BuiltinAndVarying(BuiltIn),
}

impl<'a, 'm> FnEmit<'a, 'm> {
    fn stage(&self) -> ShaderKind {
        self.sm.kind
    }

    /// The variable of element `id` of signature `kind`.
    pub fn sig_var(&mut self, iface: &mut Interface, kind: SigKind, id: u32) -> Result<SigVar> {
        if let Some(v) = iface.elements.get(&(kind, id)) {
            return Ok(*v);
        }
        let sigs = self.sigs;
        let all = kind.of(sigs);
        let el = all
            .iter()
            .find(|e| e.id == id)
            .ok_or_else(|| malformed(Subject::Element { kind, id }, format!("no {kind:?} signature element {id}")))?;
        let stage = self.stage();
        let point = SigPoint::of(stage, kind).ok_or_else(|| Error::UnsupportedForm {
            subject: Subject::Signature(kind),
            message: format!("{kind:?} signature element {} in a {stage:?} shader", el.semantic),
        })?;
        let output = point.is_output();
        let class = if output { StorageClass::Output } else { StorageClass::Input };
        let unsupported = |what: &str| Error::UnsupportedForm {
            subject: Subject::Element { kind, id },
            message: format!("{what} ({} at {point:?} of a {stage:?} shader)", el.semantic),
        };
        let element_num = num_of(kind, el.component_type)?;
        let mut num = element_num;
        let mut cols = el.cols.max(1);
        let rows = el.rows.max(1);
        let mut minus = None;
        let placement = placement(el, point).map_err(&unsupported)?;
        let builtin = match placement {
            Placement::Varying => None,
            Placement::Builtin(b) | Placement::BuiltinAndVarying(b) => Some(b),
        };
        match builtin {
            None => {}
            Some(BuiltIn::VertexIndex | BuiltIn::InstanceIndex) => {
                let i = self.cx.sint(32);
                let base =
                    if builtin == Some(BuiltIn::VertexIndex) { BuiltIn::BaseVertex } else { BuiltIn::BaseInstance };
                minus = Some(iface.builtin(self.cx, base, StorageClass::Input, i));
                self.cx.capability(Capability::DrawParameters);
                num = Num::SInt;
            }
            Some(BuiltIn::FrontFacing) => num = Num::Bool,
            Some(BuiltIn::SampleId) => {
                self.cx.capability(Capability::SampleRateShading);
                num = Num::SInt;
            }
            Some(BuiltIn::PrimitiveId) => {
                num = Num::SInt;
                if stage != ShaderKind::Mesh {
                    self.cx.capability(Capability::Geometry);
                }
            }
            Some(b @ (BuiltIn::Layer | BuiltIn::ViewportIndex)) => {
                num = Num::SInt;
                let layer = b == BuiltIn::Layer;
                self.cx.capability(match stage {
                    ShaderKind::Pixel | ShaderKind::Geometry if layer => Capability::Geometry,
                    ShaderKind::Pixel | ShaderKind::Geometry => Capability::MultiViewport,
                    ShaderKind::Mesh => Capability::MeshShadingEXT,
                    _ if layer => Capability::ShaderLayer,
                    _ => Capability::ShaderViewportIndex,
                });
            }
            Some(BuiltIn::CullPrimitiveEXT) => num = Num::Bool,
            Some(BuiltIn::FragDepth) => {
                iface.modes.push(ExecutionMode::DepthReplacing);
                match el.system_value {
                    SemanticKind::DepthLessEqual => iface.modes.push(ExecutionMode::DepthLess),
                    SemanticKind::DepthGreaterEqual => iface.modes.push(ExecutionMode::DepthGreater),
                    _ => {}
                }
                num = Num::Float;
            }
            Some(BuiltIn::SampleMask) => num = Num::SInt,
            Some(BuiltIn::FragStencilRefEXT) => {
                self.cx.extension("SPV_EXT_shader_stencil_export");
                self.cx.capability(Capability::StencilExportEXT);
                iface.modes.push(ExecutionMode::StencilRefReplacingEXT);
                num = Num::SInt;
            }
            Some(BuiltIn::PrimitiveShadingRateKHR | BuiltIn::ShadingRateKHR) => {
                // D3D12 and Vulkan encode rates alike: (log2 width << 2) | log2 height.
                self.cx.extension("SPV_KHR_fragment_shading_rate");
                self.cx.capability(Capability::FragmentShadingRateKHR);
                num = Num::SInt;
            }
            Some(BuiltIn::BaryCoordKHR | BuiltIn::BaryCoordNoPerspKHR) => {
                self.cx.extension("SPV_KHR_fragment_shader_barycentric");
                self.cx.capability(Capability::FragmentBarycentricKHR);
                num = Num::Float;
            }
            Some(BuiltIn::ClipDistance) => {
                self.cx.capability(Capability::ClipDistance);
                num = Num::Float;
            }
            Some(BuiltIn::CullDistance) => {
                self.cx.capability(Capability::CullDistance);
                num = Num::Float;
            }
            Some(BuiltIn::TessLevelOuter | BuiltIn::TessLevelInner) => num = Num::Float,
            Some(BuiltIn::Position | BuiltIn::FragCoord) => num = Num::Float,
            Some(other) => return Err(Error::Internal(format!("built-in {other:?} without a rule"))),
        }
        // Pixel inputs that `attributeAtVertex` reads: one value per vertex of the triangle.
        let per_vertex = point == SigPoint::PsIn && builtin.is_none() && iface.stage.per_vertex_inputs.contains(&id);
        // Built-ins that are one scalar per primitive are never per-vertex arrays.
        let vertices = if point == SigPoint::MsOut {
            iface.stage.output_vertices.max(1)
        } else if point == SigPoint::MsPOut {
            iface.stage.output_primitives.max(1)
        } else if per_vertex {
            3
        } else if point.arrayed()
            && matches!(builtin, None | Some(BuiltIn::Position | BuiltIn::ClipDistance | BuiltIn::CullDistance))
        {
            match point {
                SigPoint::HsCpOut => iface.stage.output_vertices.max(1),
                _ => iface.stage.input_vertices.max(1),
            }
        } else {
            0
        };
        if builtin.is_none() {
            num = varying_num(num);
        }
        // A swizzled render target: a whole vec4 at component 0, each column stored to the
        // component its attachment reads it from.
        let swizzle = match (point, el.system_value) {
            (SigPoint::PsOut, SemanticKind::Target) => match iface.target_swizzle(el) {
                Ok(s) => s,
                Err(rows) => return Err(unsupported(&format!("an output swizzle on a target of {rows} rows"))),
            },
            _ => None,
        }
        .map(|swz| {
            let start = el.start_col.unwrap_or(0);
            let mut to = [0u8; 4];
            for (c, slot) in to.iter_mut().enumerate() {
                let a = (start + c as u32).min(3) as u8;
                *slot = swz.iter().position(|&k| k == a).unwrap_or(c) as u8;
            }
            cols = 4;
            to
        });
        let scalar = num.scalar(self.cx);
        let mut flat_base = None;
        let ty = match builtin {
            Some(BuiltIn::FragCoord | BuiltIn::Position) => {
                cols = 4;
                let f = self.cx.float(32);
                self.cx.vec(f, 4)
            }
            Some(BuiltIn::BaryCoordKHR | BuiltIn::BaryCoordNoPerspKHR) => {
                cols = 3;
                let f = self.cx.float(32);
                self.cx.vec(f, 3)
            }
            Some(BuiltIn::ClipDistance | BuiltIn::CullDistance) => {
                // One float array for all elements of this system value, in register order.
                let mut same: Vec<&SignatureElement> =
                    all.iter().filter(|e| e.system_value == el.system_value).collect();
                same.sort_by_key(|e| (e.start_row, e.start_col, e.id));
                let size = |e: &&SignatureElement| e.rows.max(1).saturating_mul(e.cols.max(1));
                let total = same.iter().map(size).fold(0, u32::saturating_add);
                let base = same.iter().take_while(|e| e.id != el.id).map(size).fold(0, u32::saturating_add);
                if total > 8 {
                    // Vulkan guarantees 8 clip and cull distances (D3D's limit, too).
                    return Err(unsupported(&format!("{total} distances")));
                }
                flat_base = Some(base);
                let f = self.cx.float(32);
                let n = self.cx.const_u32(total.max(1));
                self.cx.b.type_array(f, n)
            }
            Some(BuiltIn::TessLevelOuter | BuiltIn::TessLevelInner) => {
                // Factor k (the semantic index) is array element k: D3D's order is Vulkan's
                // (see the docs). An element holds several factors (one per row) or, in
                // DXBC conversions, one factor each.
                let len = if builtin == Some(BuiltIn::TessLevelOuter) { 4 } else { 2 };
                let first = el.semantic_indices.first().copied().unwrap_or(0);
                if first.saturating_add(rows.saturating_mul(cols)) > len {
                    return Err(unsupported(&format!(
                        "factors {first}..{} where Vulkan has {len}",
                        first.saturating_add(rows.saturating_mul(cols))
                    )));
                }
                flat_base = Some(first);
                let f = self.cx.float(32);
                let n = self.cx.const_u32(len);
                self.cx.b.type_array(f, n)
            }
            Some(BuiltIn::SampleMask) => {
                cols = 1;
                let one = self.cx.const_u32(1);
                self.cx.b.type_array(scalar, one)
            }
            Some(_) => {
                cols = 1;
                scalar
            }
            None => self.varying_type(scalar, cols, rows),
        };
        let ty = if vertices > 0 {
            let n = self.cx.const_u32(vertices);
            self.cx.b.type_array(ty, n)
        } else {
            ty
        };
        // Stream output: how a captured output is lowered (a split one is stored to a
        // private copy, whose pieces the copy-out writes).
        let lowering = match &iface.xfb {
            Some(x) if kind == SigKind::Output => x.plan.lowering(el, builtin),
            _ => None,
        };
        // Dual-source blending: targets past the two blend sources are not written.
        let dropped_target = stage == ShaderKind::Pixel
            && output
            && iface.dual_source
            && el.system_value == SemanticKind::Target
            && el.start_row.unwrap_or(0) >= 2;
        let var_class = if lowering == Some(Lowering::Split) || dropped_target { StorageClass::Private } else { class };
        let var = match builtin {
            Some(b) => {
                let (v, created) = iface.builtin_created(self.cx, b, class, ty);
                if created && point.patch() {
                    self.cx.decorate(v, Decoration::Patch, &[]);
                }
                if created && b == BuiltIn::Position && output && iface.invariant_position {
                    self.cx.decorate(v, Decoration::Invariant, &[]);
                }
                if created && point == SigPoint::MsPOut {
                    self.cx.decorate(v, Decoration::PerPrimitiveEXT, &[]);
                }
                v
            }
            None => varying(self, iface, el, kind, point, var_class, ty, num)?,
        };
        if let Some(Lowering::Whole(capture)) = lowering {
            self.cx.decorate_capture(var, &capture);
        }
        let copy = match placement {
            Placement::BuiltinAndVarying(_) => {
                let n = varying_num(element_num);
                let s = n.scalar(self.cx);
                let t = self.varying_type(s, el.cols.max(1), rows);
                Some(varying(self, iface, el, kind, point, class, t, n)?)
            }
            _ => None,
        };
        if builtin.is_some() && stage == ShaderKind::Pixel && !output && num != Num::Float && num != Num::Bool {
            self.cx.decorate(var, Decoration::Flat, &[]);
        }
        let sv = SigVar {
            var,
            class: var_class,
            repr: Repr { num, rows: if builtin.is_none() { rows } else { 1 }, cols },
            builtin,
            minus,
            flat_base,
            vertices,
            copy,
            element: Repr { num: element_num, rows, cols: el.cols.max(1) },
            swizzle,
        };
        iface.elements.insert((kind, id), sv);
        Ok(sv)
    }

    fn varying_type(&mut self, scalar: Word, cols: u32, rows: u32) -> Word {
        let v = self.cx.vec(scalar, cols);
        if rows > 1 {
            let n = self.cx.const_u32(rows);
            self.cx.b.type_array(v, n)
        } else {
            v
        }
    }

    /// The variable of element `id` of signature `kind` (the interface moved out of `self`
    /// while it is built).
    pub fn element(&mut self, kind: SigKind, id: u32) -> Result<SigVar> {
        let mut iface = std::mem::take(&mut self.iface);
        let sv = self.sig_var(&mut iface, kind, id);
        self.iface = iface;
        sv
    }

    /// Signature accesses load and store scalars (DXIL's overloads: `half`, `float`,
    /// `double`, `i1`, `i16`, `i32`, `i64`).
    pub(crate) fn check_scalar(&self, t: TypeId, what: &str) -> Result<()> {
        match self.cx.m.types.get(t) {
            crate::ir::Type::Int(1 | 16 | 32 | 64) | crate::ir::Type::Float(_) => Ok(()),
            _ => Err(malformed(
                Subject::Module,
                format!("a signature access's {what} is a {}, not a scalar", self.cx.m.types.display(t)),
            )),
        }
    }

    /// An `i32` index operand (row, vertex) of a signature access.
    fn index_operand(&mut self, v: Value, what: &str) -> Result<Word> {
        match self.value_ty(v).map(|t| self.cx.m.types.get(t)) {
            Some(crate::ir::Type::Int(32)) => self.value(v),
            _ => Err(malformed(Subject::Module, format!("a signature access's {what} index is not an i32"))),
        }
    }

    /// The row (an id) and column of an access to `sv`, checked against the element's
    /// shape where they are constants.
    fn row_col(&mut self, sv: SigVar, row: Value, col: u64) -> Result<(Word, u32)> {
        let r = self.index_operand(row, "row")?;
        let out_of_shape = |what: &str, at: u64, of: u32| {
            malformed(Subject::Module, format!("a signature access at {what} {at} of an element with {of}"))
        };
        let Repr { rows, cols, .. } = sv.element;
        if let Some(k) = self.const_int(row).filter(|&k| k >= rows as u64) {
            return Err(out_of_shape("row", k, rows));
        }
        if col >= cols as u64 {
            return Err(out_of_shape("column", col, cols));
        }
        Ok((r, col as u32))
    }

    /// The element scalar that operands 0 to 2 of `c` (element id, row, constant column)
    /// address in signature `kind`, at the vertex that operand `vertex_operand` names, if any.
    pub fn element_operands(
        &self,
        c: &Call<'_>,
        kind: SigKind,
        vertex_operand: Option<usize>,
    ) -> Result<ElementScalar> {
        let id = self.arg_const(c, 0)? as u32;
        let row = self.arg(c, 1)?;
        let col = self.arg_const(c, 2)?;
        let vertex = vertex_operand.map(|k| self.arg(c, k)).transpose()?;
        Ok(ElementScalar { kind, id, row, col, vertex })
    }

    /// Loads element scalar `at` as IR type `to`.
    pub fn load_element(&mut self, at: ElementScalar, to: TypeId) -> Result<Word> {
        self.check_scalar(to, "result")?;
        let (sv, row, col, vertex) = self.element_at(at)?;
        let p = self.sig_scalar_ptr(sv, sv.class, vertex, row, Some(col), row)?;
        let num = match sv.builtin {
            Some(BuiltIn::FragCoord | BuiltIn::Position) => Num::Float,
            _ => sv.repr.num,
        };
        let st = num.scalar(self.cx);
        let mut x = self.ids_op(Op::Load, st, &[p])?;
        if let Some(base) = sv.minus {
            let b = self.ids_op(Op::Load, st, &[base])?;
            x = self.ids_op(Op::ISub, st, &[x, b])?;
        }
        if sv.builtin == Some(BuiltIn::FragCoord) && col == 3 {
            let one = self.cx.const_bits(st, 32, 1.0f32.to_bits() as u64);
            x = self.ids_op(Op::FDiv, st, &[one, x])?;
        }
        if sv.builtin == Some(BuiltIn::FrontFacing)
            && matches!(self.cx.m.types.get(to), crate::ir::Type::Int(b) if *b > 1)
        {
            // `uint front : SV_IsFrontFace` reads D3D's system boolean: all ones when the
            // primitive faces front (0xFFFFFFFF, as DXBC's and every D3D12 driver's), not 1.
            let t = self.cx.ty(to)?;
            let ones = self.scalar_const(to, -1, 0.0)?;
            let zero = self.scalar_const(to, 0, 0.0)?;
            return self.ids_op(Op::Select, t, &[x, ones, zero]);
        }
        self.num_to_ir(x, num, to)
    }

    /// The element of `at` and the ids that address its scalar: the row, the column, and the
    /// vertex of a per-vertex array (given, or the stage's default).
    fn element_at(&mut self, at: ElementScalar) -> Result<(SigVar, Word, u32, Option<Word>)> {
        let ElementScalar { kind, id, row, col, vertex } = at;
        let sv = self.element(kind, id)?;
        let (row, col) = self.row_col(sv, row, col)?;
        let vertex = match vertex {
            Some(v) if sv.vertices > 0 => Some(self.index_operand(v, "vertex")?),
            _ => None,
        };
        let vertex = self.vertex_index(sv, kind, vertex)?;
        Ok((sv, row, col, vertex))
    }

    /// Stores IR value `value` into element scalar `at` (hull shader control-point outputs
    /// default to `InvocationId`).
    pub fn store_element(&mut self, at: ElementScalar, value: Value) -> Result<()> {
        let (sv, row, col, vertex) = self.element_at(at)?;
        let row = if sv.builtin == Some(BuiltIn::SampleMask) { self.cx.const_u32(0) } else { row };
        let target_col = sv.swizzle.map_or(col, |s| s[col as usize & 3] as u32);
        let p = self.sig_scalar_ptr(sv, sv.class, vertex, row, Some(target_col), row)?;
        let from = self.value_ty(value).ok_or_else(|| malformed(Subject::Module, "a stored value has no type"))?;
        self.check_scalar(from, "stored value")?;
        let value = self.value(value)?;
        let num = match sv.builtin {
            Some(BuiltIn::Position) => Num::Float,
            _ => sv.repr.num,
        };
        let mut x = self.ir_to_num(value, from, num)?;
        if matches!(sv.builtin, Some(BuiltIn::TessLevelOuter | BuiltIn::TessLevelInner)) {
            if let Some(rule) = self.iface.stage.tess_factors {
                x = self.adjust_tess_factor(x, rule)?;
            }
        }
        if let Some(b @ (BuiltIn::Layer | BuiltIn::ViewportIndex)) = sv.builtin {
            if sv.class == StorageClass::Output {
                // View instancing: the instance's slice or viewport is added (`view_instancing`).
                x = self.view_instance_offset(b, x)?;
            }
        }
        self.ids_void(Op::Store, &[p, x])?;
        if let Some(copy) = sv.copy {
            let copy_num = varying_num(sv.element.num);
            // One row of the element, as a vector.
            let one_row = Repr { num: copy_num, rows: 1, ..sv.element };
            let c = SigVar {
                var: copy,
                class: StorageClass::Output,
                repr: one_row,
                builtin: None,
                minus: None,
                flat_base: None,
                vertices: 0,
                copy: None,
                element: one_row,
                swizzle: None,
            };
            let p = self.sig_scalar_ptr(c, StorageClass::Output, None, row, Some(col), row)?;
            let x = self.ir_to_num(value, from, copy_num)?;
            self.ids_void(Op::Store, &[p, x])?;
        }
        Ok(())
    }

    /// The vertex index for an access to `sv`: the given one for per-vertex arrays, the
    /// invocation's own control point for hull shader outputs without one.
    fn vertex_index(&mut self, sv: SigVar, kind: SigKind, vertex: Option<Word>) -> Result<Option<Word>> {
        if sv.vertices == 0 {
            return Ok(None);
        }
        match vertex {
            Some(v) => Ok(Some(v)),
            // A pixel input read per vertex: `loadInput` gives the provoking vertex's value (a
            // `nointerpolation` input's), vertex 0 under Vulkan's first-vertex convention.
            None if kind == SigKind::Input && self.stage() == ShaderKind::Pixel => Ok(Some(self.cx.const_u32(0))),
            None if kind == SigKind::Output && self.stage() == ShaderKind::Hull => {
                let i = self.cx.sint(32);
                let var = self.iface.builtin(self.cx, BuiltIn::InvocationId, StorageClass::Input, i);
                Ok(Some(self.ids_op(Op::Load, i, &[var])?))
            }
            None => Err(malformed(
                Subject::Signature(kind),
                format!("a per-vertex {kind:?} element of a {:?} shader accessed without a vertex index", self.stage()),
            )),
        }
    }

    /// D3D's `[maxtessfactor]` clamp (NaN and non-positive factors, which cull the patch in
    /// both APIs, pass unchanged) and `pow2` rounding (a positive factor becomes the next
    /// power of two at or above `max(f, 1)`).
    fn adjust_tess_factor(&mut self, x: Word, rule: TessFactorRule) -> Result<Word> {
        let f = self.cx.float(32);
        let b = self.cx.bool_t();
        let max = self.cx.const_bits(f, 32, rule.max.to_bits() as u64);
        let above = self.ids_op(Op::FOrdGreaterThan, b, &[x, max])?;
        let mut x = self.ids_op(Op::Select, f, &[above, max, x])?;
        if rule.pow2 {
            let one = self.cx.const_bits(f, 32, 1.0f32.to_bits() as u64);
            let zero = self.cx.const_bits(f, 32, 0);
            let positive = self.ids_op(Op::FOrdGreaterThan, b, &[x, zero])?;
            // GLSL.std.450 FMax, Log2, Ceil, Exp2 (the select drops NaN).
            let at_least_one = self.glsl(f, 40, &[x, one])?;
            let log = self.glsl(f, 30, &[at_least_one])?;
            let up = self.glsl(f, 9, &[log])?;
            let pow = self.glsl(f, 29, &[up])?;
            x = self.ids_op(Op::Select, f, &[positive, pow, x])?;
        }
        Ok(x)
    }

    /// Pointer to one scalar of a signature variable.
    pub fn sig_scalar_ptr(
        &mut self,
        sv: SigVar,
        class: StorageClass,
        vertex: Option<Word>,
        row: Word,
        col: Option<u32>,
        col_dyn: Word,
    ) -> Result<Word> {
        let scalar = match sv.builtin {
            Some(BuiltIn::FragCoord | BuiltIn::Position | BuiltIn::BaryCoordKHR | BuiltIn::BaryCoordNoPerspKHR) => {
                self.cx.float(32)
            }
            _ => sv.repr.num.scalar(self.cx),
        };
        let pty = self.cx.ptr(class, scalar);
        // The variable, then the vertex, row and column indices it needs.
        let mut ids = [sv.var, 0, 0, 0];
        let mut n = 1;
        if sv.vertices > 0 {
            ids[n] = vertex.ok_or_else(|| Error::Internal("per-vertex access without a vertex".into()))?;
            n += 1;
        }
        if let Some(base) = sv.flat_base {
            // index = base + row * cols + col, folded when row and col are constants
            let u = self.cx.u32_t();
            let cols = sv.repr.cols.max(1);
            let index = match (self.cx.const_value_u32(row), col) {
                (Some(r), Some(c)) => self.cx.const_u32(r.wrapping_mul(cols).wrapping_add(c).wrapping_add(base)),
                _ => {
                    let cols = self.cx.const_u32(cols);
                    let r = self.ids_op(Op::IMul, u, &[row, cols])?;
                    let c = match col {
                        Some(c) => self.cx.const_u32(c + base),
                        None => {
                            let b = self.cx.const_u32(base);
                            self.ids_op(Op::IAdd, u, &[col_dyn, b])?
                        }
                    };
                    self.ids_op(Op::IAdd, u, &[r, c])?
                }
            };
            ids[n] = index;
            n += 1;
            return self.ids_op(Op::AccessChain, pty, &ids[..n]);
        }
        if sv.repr.rows > 1 || sv.builtin == Some(BuiltIn::SampleMask) {
            ids[n] = row;
            n += 1;
        }
        if sv.repr.cols > 1 {
            ids[n] = match col {
                Some(c) => self.cx.const_u32(c),
                None => col_dyn,
            };
            n += 1;
        }
        if n == 1 {
            return Ok(sv.var);
        }
        self.ids_op(Op::AccessChain, pty, &ids[..n])
    }
}

/// Which built-in (if any) represents `el` at signature point `point`; `Err` says why
/// Vulkan cannot express it.
fn placement(el: &SignatureElement, point: SigPoint) -> std::result::Result<Placement, &'static str> {
    use Placement::*;
    use SigPoint::*;
    let output = point.is_output();
    Ok(match el.system_value {
        SemanticKind::Arbitrary | SemanticKind::Target => Varying,
        // A vertex shader's inputs are vertex attributes, whatever their semantic.
        _ if point == VsIn && !matches!(el.system_value, SemanticKind::VertexID | SemanticKind::InstanceID) => Varying,
        SemanticKind::VertexID if point == VsIn => Builtin(BuiltIn::VertexIndex),
        SemanticKind::InstanceID if point == VsIn => Builtin(BuiltIn::InstanceIndex),
        // Vertex and instance ids reach later stages as ordinary (flat) varyings.
        SemanticKind::VertexID | SemanticKind::InstanceID => Varying,
        // Streams other than 0 are never rasterized: their system values are data for
        // stream output only.
        _ if point == GsOut && el.output_stream.unwrap_or(0) != 0 => Varying,
        // Patch constants are plain data, whatever their semantic (DXC: "Arb").
        SemanticKind::TessFactor if point.patch() => Builtin(BuiltIn::TessLevelOuter),
        SemanticKind::InsideTessFactor if point.patch() => Builtin(BuiltIn::TessLevelInner),
        SemanticKind::TessFactor | SemanticKind::InsideTessFactor => {
            return Err("tessellation factors outside the patch-constant signature")
        }
        _ if point.patch() => Varying,
        // Mesh shaders: the per-primitive built-ins of `gl_MeshPrimitivesEXT`.
        SemanticKind::PrimitiveID if point == MsPOut => Builtin(BuiltIn::PrimitiveId),
        SemanticKind::RenderTargetArrayIndex if point == MsPOut => Builtin(BuiltIn::Layer),
        SemanticKind::ViewPortArrayIndex if point == MsPOut => Builtin(BuiltIn::ViewportIndex),
        SemanticKind::CullPrimitive if point == MsPOut => Builtin(BuiltIn::CullPrimitiveEXT),
        SemanticKind::ShadingRate if point == MsPOut => Builtin(BuiltIn::PrimitiveShadingRateKHR),
        _ if point == MsPOut => return Err("system value as a mesh shader primitive output"),
        SemanticKind::Position | SemanticKind::ClipDistance | SemanticKind::CullDistance if point == MsOut => {
            Builtin(match el.system_value {
                SemanticKind::Position => BuiltIn::Position,
                SemanticKind::ClipDistance => BuiltIn::ClipDistance,
                _ => BuiltIn::CullDistance,
            })
        }
        _ if point == MsOut => return Err("system value as a mesh shader vertex output"),
        SemanticKind::Position => Builtin(if point == PsIn { BuiltIn::FragCoord } else { BuiltIn::Position }),
        SemanticKind::ClipDistance => Builtin(BuiltIn::ClipDistance),
        SemanticKind::CullDistance => Builtin(BuiltIn::CullDistance),
        SemanticKind::RenderTargetArrayIndex | SemanticKind::ViewPortArrayIndex => {
            let b = if el.system_value == SemanticKind::RenderTargetArrayIndex {
                BuiltIn::Layer
            } else {
                BuiltIn::ViewportIndex
            };
            match point {
                PsIn | GsOut => Builtin(b),
                VsOut | DsOut => BuiltinAndVarying(b),
                _ => Varying,
            }
        }
        SemanticKind::ShadingRate => match point {
            PsIn => Builtin(BuiltIn::ShadingRateKHR),
            GsOut => Builtin(BuiltIn::PrimitiveShadingRateKHR),
            VsOut => BuiltinAndVarying(BuiltIn::PrimitiveShadingRateKHR),
            DsOut => return Err("Vulkan's PrimitiveShadingRateKHR cannot be written by a domain shader"),
            _ => Varying,
        },
        SemanticKind::PrimitiveID => match point {
            PsIn | GsOut | GsIn => Builtin(BuiltIn::PrimitiveId),
            _ => return Err("system value"),
        },
        SemanticKind::IsFrontFace => match point {
            PsIn => Builtin(BuiltIn::FrontFacing),
            GsOut => return Err("Vulkan's FrontFacing comes from the rasterizer; a geometry shader cannot set it"),
            _ => return Err("system value"),
        },
        SemanticKind::SampleIndex if point == PsIn => Builtin(BuiltIn::SampleId),
        SemanticKind::Depth | SemanticKind::DepthLessEqual | SemanticKind::DepthGreaterEqual if point == PsOut => {
            Builtin(BuiltIn::FragDepth)
        }
        SemanticKind::Coverage if point == PsOut => Builtin(BuiltIn::SampleMask),
        SemanticKind::StencilRef if point == PsOut => Builtin(BuiltIn::FragStencilRefEXT),
        SemanticKind::Barycentrics if point == PsIn => Builtin(match el.interpolation {
            InterpolationMode::LinearNoperspective
            | InterpolationMode::LinearNoperspectiveCentroid
            | InterpolationMode::LinearNoperspectiveSample => BuiltIn::BaryCoordNoPerspKHR,
            _ => BuiltIn::BaryCoordKHR,
        }),
        _ if output => return Err("system value output"),
        _ => return Err("system value"),
    })
}

/// A `Location`-decorated variable for `el` (placed by the callback or the location
/// rule), with the interpolation decorations of pixel shader inputs.
#[allow(clippy::too_many_arguments)]
fn varying(
    fe: &mut FnEmit<'_, '_>,
    iface: &mut Interface,
    el: &SignatureElement,
    kind: SigKind,
    point: SigPoint,
    class: StorageClass,
    ty: Word,
    num: Num,
) -> Result<Word> {
    let stage = fe.stage();
    let output = point.is_output();
    let prefix = match (output, point.patch()) {
        (true, true) => "patch.out",
        (false, true) => "patch.in",
        (true, false) => "out",
        (false, false) => "in",
    };
    let v = fe.cx.global_var(
        class,
        ty,
        &format!("{prefix}.{}{}", el.semantic, el.semantic_indices.first().copied().unwrap_or(0)),
    );
    let unplaced = || Error::UnsupportedForm {
        subject: Subject::Signature(kind),
        message: format!("{} has no register", el.semantic),
    };
    let default = default_location(stage, kind, el, fe.sigs).ok_or_else(unplaced)?;
    let query = IoQuery { stage, output, patch: point.patch(), element: el, default };
    let remapped = iface.remap.as_ref().and_then(|r| (r.0)(&query));
    let mut place = remapped.unwrap_or(default);
    // Dual-source blending: the two blend sources of location 0 (`Index` 0 and 1).
    let blend_index = (stage == ShaderKind::Pixel
        && output
        && iface.dual_source
        && el.system_value == SemanticKind::Target
        && class != StorageClass::Private)
        .then(|| el.start_row.unwrap_or(0));
    if let Some(index) = blend_index {
        if el.rows.max(1) != 1 {
            return Err(Error::UnsupportedForm {
                subject: Subject::Element { kind, id: el.id },
                message: format!("dual-source blending with SV_Target{index} of {} rows", el.rows),
            });
        }
        place = IoLocation { location: 0, component: place.component };
    }
    // An element as messages name it: `output TEXCOORD0`.
    let name_of = |el: &SignatureElement| {
        let direction = if output { "output" } else { "input" };
        format!("{direction} {}{}", el.semantic, el.semantic_indices.first().copied().unwrap_or(0))
    };
    let named = || name_of(el);
    // A swizzled render target is a whole vec4 at component 0 (see `sig_var`).
    let swizzled = point == SigPoint::PsOut
        && el.system_value == SemanticKind::Target
        && matches!(iface.target_swizzle(el), Ok(Some(_)));
    if swizzled {
        place.component = 0;
    }
    // A location holds four 32-bit components.
    let cols = if swizzled { 4 } else { el.cols.max(1) };
    if place.component.saturating_add(cols) > 4 {
        if remapped.is_some() {
            let message = format!("places {} ({cols} columns) at component {}", named(), place.component);
            return Err(Error::Remap { callback: IO_REMAP_CALLBACK, message });
        }
        let message = format!("{}: the signature places {cols} columns at component {}", named(), place.component);
        return Err(malformed(Subject::Element { kind, id: el.id }, message));
    }
    // A callback's answer must fit the locations a device can have (and not overflow).
    if let Some(answer) = remapped {
        let rows = el.rows.max(1);
        if answer.location.checked_add(rows).is_none_or(|end| end > MAX_REMAPPED_LOCATIONS) {
            let message = format!(
                "places {} ({rows} rows) at location {}: past the {MAX_REMAPPED_LOCATIONS} locations a stage \
                 interface may use",
                named(),
                answer.location
            );
            return Err(Error::Remap { callback: IO_REMAP_CALLBACK, message });
        }
    }
    // Two variables may not share a location component (DXC packs signatures so they
    // never do; a damaged or remapped one could).
    for r in 0..el.rows.max(1) {
        // The second blend source has a location of its own (`Index` 1).
        let slot = (output, place.location.saturating_add(r) | blend_index.unwrap_or(0) << 31);
        let mask = ((1u8 << cols) - 1) << place.component;
        let taken = iface.locations.entry(slot).or_insert(0);
        if *taken & mask != 0 {
            let component = (*taken & mask).trailing_zeros();
            let location = place.location.saturating_add(r);
            // The owner is of the same direction (the slot's), so named the same way.
            let owner = iface.location_owners.get(&(slot.0, slot.1, component)).copied();
            let other_remapped = owner.is_some_and(|(_, _, r)| r);
            let other = owner
                .and_then(|(k, id, _)| k.of(fe.sigs).iter().find(|e| e.id == id))
                .map_or_else(|| "another element".to_string(), name_of);
            let who = named();
            if remapped.is_some() || other_remapped {
                let message = format!("places {who} and {other} both at location {location}, component {component}");
                return Err(Error::Remap { callback: IO_REMAP_CALLBACK, message });
            }
            let message = format!("{who} overlaps {other} at location {location}, component {component}");
            return Err(malformed(Subject::Element { kind, id: el.id }, message));
        }
        *taken |= mask;
        for c in (0..4).filter(|c| mask & (1 << c) != 0) {
            iface.location_owners.insert((slot.0, slot.1, c), (kind, el.id, remapped.is_some()));
        }
    }
    if output {
        let last = place.location.checked_add(el.rows.max(1) - 1).ok_or_else(|| {
            malformed(
                Subject::Element { kind, id: el.id },
                format!("output {}: location {} + rows overflows", el.semantic, place.location),
            )
        })?;
        iface.max_output_location = iface.max_output_location.max(Some(last));
    }
    if class == StorageClass::Private {
        // Split for stream output: the pieces carry the place.
        if let Some(x) = iface.xfb.as_mut() {
            x.split_place.insert(el.id, place);
        }
        return Ok(v);
    }
    fe.cx.decorate(v, Decoration::Location, &[place.location]);
    if let Some(index) = blend_index {
        fe.cx.decorate(v, Decoration::Index, &[index]);
    }
    if place.component > 0 {
        fe.cx.decorate(v, Decoration::Component, &[place.component]);
    }
    if point.patch() {
        fe.cx.decorate(v, Decoration::Patch, &[]);
    }
    let index = el.semantic_indices.first().copied().unwrap_or(0);
    let per_primitive_input = point == SigPoint::PsIn
        && iface.stage.per_primitive_inputs.iter().any(|(n, k)| n.eq_ignore_ascii_case(&el.semantic) && *k == index);
    if point == SigPoint::MsPOut || per_primitive_input {
        fe.cx.extension("SPV_EXT_mesh_shader");
        fe.cx.capability(Capability::MeshShadingEXT);
        fe.cx.decorate(v, Decoration::PerPrimitiveEXT, &[]);
    }
    if point == SigPoint::GsOut && iface.stage.multi_stream {
        fe.cx.capability(Capability::GeometryStreams);
        fe.cx.decorate(v, Decoration::Stream, &[el.output_stream.unwrap_or(0)]);
    }
    if point == SigPoint::PsIn && iface.stage.per_vertex_inputs.contains(&el.id) {
        // Not interpolated: one value per vertex (no interpolation decoration allowed).
        fe.cx.extension("SPV_KHR_fragment_shader_barycentric");
        fe.cx.capability(Capability::FragmentBarycentricKHR);
        fe.cx.decorate(v, Decoration::PerVertexKHR, &[]);
    } else if point == SigPoint::PsIn {
        if num != Num::Float {
            fe.cx.decorate(v, Decoration::Flat, &[]);
        } else {
            match el.interpolation {
                InterpolationMode::Constant => fe.cx.decorate(v, Decoration::Flat, &[]),
                InterpolationMode::LinearCentroid => fe.cx.decorate(v, Decoration::Centroid, &[]),
                InterpolationMode::LinearNoperspective => fe.cx.decorate(v, Decoration::NoPerspective, &[]),
                InterpolationMode::LinearNoperspectiveCentroid => {
                    fe.cx.decorate(v, Decoration::NoPerspective, &[]);
                    fe.cx.decorate(v, Decoration::Centroid, &[]);
                }
                InterpolationMode::LinearSample | InterpolationMode::LinearNoperspectiveSample => {
                    fe.cx.capability(Capability::SampleRateShading);
                    if el.interpolation == InterpolationMode::LinearNoperspectiveSample {
                        fe.cx.decorate(v, Decoration::NoPerspective, &[]);
                    }
                    fe.cx.decorate(v, Decoration::Sample, &[]);
                }
                _ => {}
            }
        }
    }
    Ok(v)
}
