//! The entry point's interface: built-in variables (`dx.op.threadId` → `GlobalInvocationId`
//! …) and signature elements (`loadInput` / `storeOutput`) as `Input`/`Output` variables.
//!
//! A signature element with no system value is a user varying at `Location` = its start row
//! and `Component` = its start column, a vector of its columns (an array of such vectors
//! when it has several rows), always 32 bits wide; loads and stores convert to and from the
//! operation's overload. System values map to built-ins:
//! `SV_Position` (`FragCoord` in pixel shaders, `Position` elsewhere), `SV_VertexID`
//! (`VertexIndex − BaseVertex`: D3D counts from the draw's first vertex), `SV_InstanceID`
//! (`InstanceIndex − BaseInstance`), `SV_IsFrontFace` (`FrontFacing`), `SV_SampleIndex`
//! (`SampleId`), `SV_PrimitiveID`, `SV_RenderTargetArrayIndex` (`Layer`),
//! `SV_ViewportArrayIndex`, `SV_Depth*` (`FragDepth`, with the matching execution mode),
//! `SV_Coverage` (`SampleMask`), `SV_ClipDistance`/`SV_CullDistance` (one float array per
//! system value, elements in register order), `SV_StencilRef`, `SV_ShadingRate`,
//! `SV_Barycentrics`; `SV_Target` is a
//! user output at `Location` = its start row.
//!
//! An [`IoRemap`] callback (library and C API) may place any element that is not a built-in
//! elsewhere (`Location`, `Component`): a layer matching vertex attributes to an input
//! layout by semantic, or assigning locations across stages itself, answers per element.

use super::error::{Result, TranslateError};
use super::function::FnEmit;
use super::module::ModuleBuilder;
use super::stream_output::{decorate_capture, Lowering, XfbState};
use crate::container::ShaderKind;
use crate::dxil::{ComponentType, InterpolationMode, SemanticKind, SignatureElement};
use rspirv::spirv::{BuiltIn, Capability, Decoration, ExecutionMode, Op, StorageClass, Word};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What an [`IoRemap`] callback is asked: one element of the shader's input (`output` false)
/// or output signature that becomes a `Location`-decorated variable (no built-in).
#[derive(Clone, Copy, Debug)]
pub struct IoQuery<'a> {
    pub stage: ShaderKind,
    pub output: bool,
    /// Semantic name and index, component type, rows, columns, start row and column.
    pub element: &'a SignatureElement,
}

/// Where an element goes: its first row's `Location` and its first `Component` (0–3).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct IoLocation {
    pub location: u32,
    pub component: u32,
}

/// The signature of a stage-I/O remapping callback: `Some` places the element, `None`
/// keeps the default (`Location` = start row, `Component` = start column). Called once per
/// element the shader uses, in a deterministic order.
pub type IoRemapFn = dyn Fn(&IoQuery<'_>) -> Option<IoLocation> + Send + Sync;

/// A shared stage-I/O remapping callback ([`crate::Options::io_remap`]).
#[derive(Clone)]
pub struct IoRemap(pub Arc<IoRemapFn>);

impl IoRemap {
    pub fn new(f: impl Fn(&IoQuery<'_>) -> Option<IoLocation> + Send + Sync + 'static) -> IoRemap {
        IoRemap(Arc::new(f))
    }
}

impl std::fmt::Debug for IoRemap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IoRemap(..)")
    }
}

/// The numeric kind of a 32-bit interface scalar.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Num {
    Float,
    SInt,
    UInt,
    Bool,
}

#[derive(Clone, Copy, Debug)]
pub struct SigVar {
    pub var: Word,
    /// `Input` or `Output`; `Private` for an output element split for stream output
    /// (see [`super::stream_output`]), whose stores go to a copy.
    pub class: StorageClass,
    pub num: Num,
    /// Columns (vector size; 1 for scalars).
    pub cols: u32,
    /// Rows (array length; 1: not an array).
    pub rows: u32,
    pub builtin: Option<BuiltIn>,
    /// Value to subtract (`BaseVertex` / `BaseInstance` variable) after loading.
    pub minus: Option<Word>,
    /// Clip and cull distances: where this element starts in the built-in's float array
    /// (its elements are laid out in register order, row by row).
    pub flat_base: Option<u32>,
}

#[derive(Default)]
pub struct Interface {
    /// The remapping callback of [`crate::Options::io_remap`], if any.
    pub remap: Option<IoRemap>,
    builtins: BTreeMap<u32, Word>,
    inputs: BTreeMap<u32, SigVar>,
    outputs: BTreeMap<u32, SigVar>,
    /// Components taken per (output?, location), bit k: component k.
    locations: BTreeMap<(bool, u32), u8>,
    pub modes: Vec<ExecutionMode>,
    /// Stream output ([`crate::Options::stream_output`]), when given.
    pub(crate) xfb: Option<XfbState>,
    /// The highest `Location` an output variable occupies.
    pub max_output_location: Option<u32>,
}

impl Interface {
    /// The variable of a built-in (created on first use).
    pub fn builtin(&mut self, cx: &mut ModuleBuilder<'_>, b: BuiltIn, class: StorageClass, ty: Word) -> Word {
        if let Some(&v) = self.builtins.get(&(b as u32)) {
            return v;
        }
        let v = cx.global_var(class, ty, &format!("{b:?}"));
        cx.decorate(v, Decoration::BuiltIn, &[b as u32]);
        self.builtins.insert(b as u32, v);
        v
    }
}

fn num_of(c: ComponentType) -> Result<Num> {
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
            return Err(TranslateError::UnsupportedForm {
                name: "signature".into(),
                message: format!("element component type {other:?}"),
            })
        }
    })
}

pub fn scalar_of(cx: &mut ModuleBuilder<'_>, n: Num) -> Word {
    match n {
        Num::Float => cx.float(32),
        Num::SInt => cx.sint(32),
        Num::UInt => cx.uint(32),
        Num::Bool => cx.bool_t(),
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    fn stage(&self) -> ShaderKind {
        self.sm.kind
    }

    /// The variable of signature element `id` (inputs when `output` is false).
    pub fn sig_var(
        &mut self,
        iface: &mut Interface,
        sig: &[SignatureElement],
        id: u32,
        output: bool,
    ) -> Result<SigVar> {
        let cached = if output { iface.outputs.get(&id) } else { iface.inputs.get(&id) };
        if let Some(v) = cached {
            return Ok(*v);
        }
        let el = sig
            .iter()
            .find(|e| e.id == id)
            .ok_or_else(|| TranslateError::Malformed(format!("no signature element {id}")))?
            .clone();
        let class = if output { StorageClass::Output } else { StorageClass::Input };
        let stage = self.stage();
        let unsupported = |what: &str| TranslateError::UnsupportedForm {
            name: if output { "storeOutput".into() } else { "loadInput".into() },
            message: format!("{what} ({} in a {stage:?} shader)", el.semantic),
        };
        let mut num = num_of(el.component_type)?;
        let mut cols = el.cols.max(1);
        let rows = el.rows.max(1);
        let mut minus = None;
        let vertex_input = stage == ShaderKind::Vertex && !output;
        let builtin = match el.system_value {
            SemanticKind::Arbitrary | SemanticKind::Target => None,
            // A vertex shader's inputs are vertex attributes, whatever their semantic.
            SemanticKind::Position if vertex_input => None,
            // Vertex and instance ids reach later stages as ordinary (flat) varyings.
            SemanticKind::VertexID | SemanticKind::InstanceID if stage != ShaderKind::Vertex => None,
            SemanticKind::Position => {
                Some(if stage == ShaderKind::Pixel && !output { BuiltIn::FragCoord } else { BuiltIn::Position })
            }
            SemanticKind::VertexID if !output => {
                let i = self.cx.sint(32);
                minus = Some(iface.builtin(self.cx, BuiltIn::BaseVertex, StorageClass::Input, i));
                self.cx.capability(Capability::DrawParameters);
                num = Num::SInt;
                Some(BuiltIn::VertexIndex)
            }
            SemanticKind::InstanceID if !output => {
                let i = self.cx.sint(32);
                minus = Some(iface.builtin(self.cx, BuiltIn::BaseInstance, StorageClass::Input, i));
                self.cx.capability(Capability::DrawParameters);
                num = Num::SInt;
                Some(BuiltIn::InstanceIndex)
            }
            SemanticKind::IsFrontFace if !output => {
                num = Num::Bool;
                Some(BuiltIn::FrontFacing)
            }
            SemanticKind::SampleIndex if !output => {
                self.cx.capability(Capability::SampleRateShading);
                num = Num::SInt;
                Some(BuiltIn::SampleId)
            }
            SemanticKind::PrimitiveID if !output => {
                num = Num::SInt;
                self.cx.capability(Capability::Geometry);
                Some(BuiltIn::PrimitiveId)
            }
            SemanticKind::RenderTargetArrayIndex if !vertex_input => {
                num = Num::SInt;
                self.cx.capability(if stage == ShaderKind::Pixel {
                    Capability::Geometry
                } else {
                    Capability::ShaderLayer
                });
                Some(BuiltIn::Layer)
            }
            SemanticKind::ViewPortArrayIndex if !vertex_input => {
                num = Num::SInt;
                self.cx.capability(if stage == ShaderKind::Pixel {
                    Capability::MultiViewport
                } else {
                    Capability::ShaderViewportIndex
                });
                Some(BuiltIn::ViewportIndex)
            }
            SemanticKind::Depth | SemanticKind::DepthLessEqual | SemanticKind::DepthGreaterEqual if output => {
                iface.modes.push(ExecutionMode::DepthReplacing);
                match el.system_value {
                    SemanticKind::DepthLessEqual => iface.modes.push(ExecutionMode::DepthLess),
                    SemanticKind::DepthGreaterEqual => iface.modes.push(ExecutionMode::DepthGreater),
                    _ => {}
                }
                num = Num::Float;
                Some(BuiltIn::FragDepth)
            }
            SemanticKind::Coverage if output => {
                num = Num::SInt;
                Some(BuiltIn::SampleMask)
            }
            SemanticKind::StencilRef if output => {
                self.cx.extension("SPV_EXT_shader_stencil_export");
                self.cx.capability(Capability::StencilExportEXT);
                iface.modes.push(ExecutionMode::StencilRefReplacingEXT);
                num = Num::SInt;
                Some(BuiltIn::FragStencilRefEXT)
            }
            SemanticKind::ShadingRate => {
                // D3D12 and Vulkan encode rates alike: (log2 width << 2) | log2 height.
                self.cx.extension("SPV_KHR_fragment_shading_rate");
                self.cx.capability(Capability::FragmentShadingRateKHR);
                num = Num::SInt;
                Some(if output { BuiltIn::PrimitiveShadingRateKHR } else { BuiltIn::ShadingRateKHR })
            }
            SemanticKind::Barycentrics if !output => {
                self.cx.extension("SPV_KHR_fragment_shader_barycentric");
                self.cx.capability(Capability::FragmentBarycentricKHR);
                num = Num::Float;
                Some(match el.interpolation {
                    InterpolationMode::LinearNoperspective
                    | InterpolationMode::LinearNoperspectiveCentroid
                    | InterpolationMode::LinearNoperspectiveSample => BuiltIn::BaryCoordNoPerspKHR,
                    _ => BuiltIn::BaryCoordKHR,
                })
            }
            SemanticKind::ClipDistance | SemanticKind::CullDistance if !vertex_input => {
                let clip = el.system_value == SemanticKind::ClipDistance;
                self.cx.capability(if clip { Capability::ClipDistance } else { Capability::CullDistance });
                num = Num::Float;
                Some(if clip { BuiltIn::ClipDistance } else { BuiltIn::CullDistance })
            }
            _ => return Err(unsupported("system value")),
        };
        // A `bool` user varying: Vulkan has no boolean `Location` variables; it travels as a
        // 32-bit 0 or 1.
        if builtin.is_none() && num == Num::Bool {
            num = Num::UInt;
        }
        let scalar = scalar_of(self.cx, num);
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
                let mut all: Vec<&SignatureElement> =
                    sig.iter().filter(|e| e.system_value == el.system_value).collect();
                all.sort_by_key(|e| (e.start_row, e.start_col, e.id));
                let total: u32 = all.iter().map(|e| e.rows.max(1) * e.cols.max(1)).sum();
                let base: u32 = all.iter().take_while(|e| e.id != el.id).map(|e| e.rows.max(1) * e.cols.max(1)).sum();
                flat_base = Some(base);
                let f = self.cx.float(32);
                let n = self.cx.const_u32(total.max(1));
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
            None => {
                let v = self.cx.vec(scalar, cols);
                if rows > 1 {
                    let n = self.cx.const_u32(rows);
                    self.cx.b.type_array(v, n)
                } else {
                    v
                }
            }
        };
        let lowering = match &iface.xfb {
            Some(x) if output => x.plan.lowering(&el, builtin),
            _ => None,
        };
        let mut var_class = class;
        let var = match builtin {
            Some(b) => iface.builtin(self.cx, b, class, ty),
            None => {
                let prefix = if output { "out" } else { "in" };
                // A split element's stores go to a private copy; stream output writes its
                // pieces from there.
                if lowering == Some(Lowering::Split) {
                    var_class = StorageClass::Private;
                }
                let v = self.cx.global_var(
                    var_class,
                    ty,
                    &format!("{prefix}.{}{}", el.semantic, el.semantic_indices.first().copied().unwrap_or(0)),
                );
                let remapped = iface.remap.as_ref().and_then(|r| (r.0)(&IoQuery { stage, output, element: &el }));
                let place = match remapped {
                    Some(p) => p,
                    None => IoLocation {
                        location: el.start_row.ok_or_else(|| unsupported("element without a register"))?,
                        component: el.start_col.unwrap_or(0),
                    },
                };
                // A location holds four 32-bit components.
                if place.component.saturating_add(cols) > 4 {
                    let by = if remapped.is_some() { "the I/O remapping callback" } else { "the signature" };
                    return Err(TranslateError::Malformed(format!(
                        "{} {}{}: {by} places {cols} columns at component {}",
                        if output { "output" } else { "input" },
                        el.semantic,
                        el.semantic_indices.first().copied().unwrap_or(0),
                        place.component
                    )));
                }
                // Two variables may not share a location component (DXC packs signatures
                // so they never do; a damaged or remapped one could).
                for r in 0..rows {
                    let slot = (output, place.location.saturating_add(r));
                    let mask = ((1u8 << cols) - 1) << place.component;
                    let taken = iface.locations.entry(slot).or_insert(0);
                    if *taken & mask != 0 {
                        return Err(TranslateError::Malformed(format!(
                            "{} {}{} overlaps another element at location {}",
                            if output { "output" } else { "input" },
                            el.semantic,
                            el.semantic_indices.first().copied().unwrap_or(0),
                            slot.1
                        )));
                    }
                    *taken |= mask;
                }
                if output {
                    let last = place.location.checked_add(rows - 1).ok_or_else(|| {
                        TranslateError::Malformed(format!(
                            "output {}: location {} + {rows} rows overflows",
                            el.semantic, place.location
                        ))
                    })?;
                    iface.max_output_location = iface.max_output_location.max(Some(last));
                }
                if var_class == StorageClass::Private {
                    if let Some(x) = iface.xfb.as_mut() {
                        x.split_place.insert(el.id, place);
                    }
                } else {
                    self.cx.decorate(v, Decoration::Location, &[place.location]);
                    if place.component > 0 {
                        self.cx.decorate(v, Decoration::Component, &[place.component]);
                    }
                }
                if stage == ShaderKind::Pixel && !output {
                    if num != Num::Float {
                        self.cx.decorate(v, Decoration::Flat, &[]);
                    } else {
                        match el.interpolation {
                            InterpolationMode::Constant => self.cx.decorate(v, Decoration::Flat, &[]),
                            InterpolationMode::LinearCentroid => self.cx.decorate(v, Decoration::Centroid, &[]),
                            InterpolationMode::LinearNoperspective => {
                                self.cx.decorate(v, Decoration::NoPerspective, &[])
                            }
                            InterpolationMode::LinearNoperspectiveCentroid => {
                                self.cx.decorate(v, Decoration::NoPerspective, &[]);
                                self.cx.decorate(v, Decoration::Centroid, &[]);
                            }
                            InterpolationMode::LinearSample | InterpolationMode::LinearNoperspectiveSample => {
                                self.cx.capability(Capability::SampleRateShading);
                                if el.interpolation == InterpolationMode::LinearNoperspectiveSample {
                                    self.cx.decorate(v, Decoration::NoPerspective, &[]);
                                }
                                self.cx.decorate(v, Decoration::Sample, &[]);
                            }
                            _ => {}
                        }
                    }
                }
                v
            }
        };
        if builtin.is_some() && stage == ShaderKind::Pixel && !output && num != Num::Float && num != Num::Bool {
            self.cx.decorate(var, Decoration::Flat, &[]);
        }
        if let Some(Lowering::Whole(capture)) = lowering {
            decorate_capture(self.cx, var, &capture);
        }
        let sv = SigVar {
            var,
            class: var_class,
            num,
            cols,
            rows: if builtin.is_none() { rows } else { 1 },
            builtin,
            minus,
            flat_base,
        };
        if output {
            iface.outputs.insert(id, sv);
        } else {
            iface.inputs.insert(id, sv);
        }
        Ok(sv)
    }

    /// Pointer to one scalar of a signature variable.
    pub fn sig_scalar_ptr(
        &mut self,
        sv: SigVar,
        class: StorageClass,
        row: Word,
        col: Option<u32>,
        col_dyn: Word,
    ) -> Result<Word> {
        let scalar = match sv.builtin {
            Some(BuiltIn::FragCoord | BuiltIn::Position | BuiltIn::BaryCoordKHR | BuiltIn::BaryCoordNoPerspKHR) => {
                self.cx.float(32)
            }
            _ => scalar_of(self.cx, sv.num),
        };
        let pty = self.cx.ptr(class, scalar);
        if let Some(base) = sv.flat_base {
            // index = base + row * cols + col
            let u = self.cx.u32_t();
            let cols = self.cx.const_u32(sv.cols.max(1));
            let r = self.ids_op(Op::IMul, u, &[row, cols])?;
            let c = match col {
                Some(c) => self.cx.const_u32(c + base),
                None => {
                    let b = self.cx.const_u32(base);
                    self.ids_op(Op::IAdd, u, &[col_dyn, b])?
                }
            };
            let index = self.ids_op(Op::IAdd, u, &[r, c])?;
            return self.ids_op(Op::AccessChain, pty, &[sv.var, index]);
        }
        // The variable, then the row and column indices it needs.
        let mut ids = [sv.var, 0, 0];
        let mut n = 1;
        if sv.rows > 1 || sv.builtin == Some(BuiltIn::SampleMask) {
            ids[n] = row;
            n += 1;
        }
        if sv.cols > 1 {
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
