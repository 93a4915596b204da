//! D3D12 view instancing on Vulkan multiview ([`crate::emit::Options::view_instancing`],
//! [`crate::emit::ViewInstancing`]; `docs/view-instancing.md`).
//!
//! - `viewID` is the view instance: with a `ViewIndex` mapping (and a shader that does not
//!   write `SV_RenderTargetArrayIndex`), `bitfieldExtract(map, 2·ViewIndex, 2)` of the
//!   `uint` specialization constant `map` (capability `MultiView`; `ViewIndex` is `Flat` in
//!   pixel shaders); otherwise bits 0..16 of the offsets buffer's word.
//! - The last pre-rasterization stage routes the instance: the viewport
//!   `bitfieldExtract(viewports, 8·ViewID, 8)` is written to `ViewportIndex` (vertex and
//!   domain shaders before their body, geometry shaders before each emitted vertex, mesh
//!   shaders for every primitive right after `SetMeshOutputsEXT`: thread `t` writes
//!   primitives `t`, `t + threads`, … below the count) or added to the shader's own
//!   `SV_ViewportArrayIndex`; the offsets buffer's slice (bits 16..32) is added to the
//!   shader's own `SV_RenderTargetArrayIndex`, or written to `Layer` when there is no
//!   `ViewIndex` mapping (multiview places the slice itself otherwise: view `v` renders to
//!   layer `v`).
//!
//! This is dxil-spirv's scheme, which vkd3d-proton drives (`VIEW_INSTANCING`, spec
//! constants 1000 and 1001, a meta descriptor for the offsets).
//!
//! A leaf of `emit` (see its documentation): methods of [`FnEmit`] and [`ViewState`].

use crate::dxil::{SemanticKind, Signatures};
use crate::emit::error::{Error, Result};
use crate::emit::{writes_system_value, FnEmit, ViewInstancing, ViewState};
use crate::front::container::ShaderKind;
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Capability, Decoration, Op, StorageClass, Word};

#[cold]
fn option_error(message: String) -> Error {
    Error::Options { option: "view_instancing", message }
}

impl ViewState {
    /// The state of a `stage` shader with `signatures` under `options`, which are checked.
    pub(in crate::emit) fn new(options: ViewInstancing, stage: ShaderKind, signatures: &Signatures) -> Result<Self> {
        if let (Some(a), Some(b)) = (options.view_index_to_view_id_spec_id, options.view_id_to_viewport_spec_id) {
            if a == b {
                return Err(option_error(format!("both maps are specialization constant {a}")));
            }
        }
        Ok(ViewState {
            options,
            writes_layer: writes_system_value(stage, signatures, SemanticKind::RenderTargetArrayIndex),
            writes_viewport: writes_system_value(stage, signatures, SemanticKind::ViewPortArrayIndex),
            ..Default::default()
        })
    }
}

/// Which of the two specialization constants.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Map {
    ViewId,
    Viewport,
}

impl<'a, 'm> FnEmit<'a, 'm> {
    fn view_state(&self) -> Result<&ViewState> {
        self.iface.view.as_ref().ok_or_else(|| Error::Internal("view instancing lowered without its options".into()))
    }

    /// The `uint` specialization constant of `which` (default 0), declared once.
    fn view_map(&mut self, which: Map, spec_id: u32) -> Word {
        let view = self.iface.view.get_or_insert_with(Default::default);
        let slot = if which == Map::ViewId { &mut view.view_id_map } else { &mut view.viewport_map };
        if let Some(w) = *slot {
            return w;
        }
        let u = self.cx.u32_t();
        let w = self.cx.b.id();
        self.cx.b.global_inst(Op::SpecConstant, Some(u), Some(w), &[0]);
        self.cx.decorate(w, Decoration::SpecId, &[spec_id]);
        self.cx.b.name(w, if which == Map::ViewId { "ViewIndexToViewID" } else { "ViewIDToViewport" });
        let view = self.iface.view.get_or_insert_with(Default::default);
        if which == Map::ViewId {
            view.view_id_map = Some(w);
        } else {
            view.viewport_map = Some(w);
        }
        w
    }

    /// The offsets buffer's word (bits 0..16 the instance, 16..32 its slice), loaded here.
    fn view_offsets_word(&mut self, why: &str) -> Result<Word> {
        let view = self.view_state()?;
        let var = match (view.offsets, view.options.offsets_buffer) {
            (Some(v), _) => v,
            (None, Some((set, binding))) => {
                let u = self.cx.u32_t();
                let st = self.cx.b.id();
                self.cx.b.type_struct_id(Some(st), [u]);
                self.cx.decorate(st, Decoration::Block, &[]);
                self.cx.b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
                self.cx.b.member_decorate(st, 0, Decoration::NonWritable, []);
                self.cx.b.name(st, "ViewInstancingOffsetsUBO");
                self.cx.b.member_name(st, 0, "ViewID_Layer");
                let v = self.cx.global_var(StorageClass::Uniform, st, "ViewInstancingOffsets");
                self.cx.decorate(v, Decoration::DescriptorSet, &[set]);
                self.cx.decorate(v, Decoration::Binding, &[binding]);
                if let Some(view) = self.iface.view.as_mut() {
                    view.offsets = Some(v);
                }
                v
            }
            (None, None) => return Err(option_error(format!("{why} needs the offsets buffer, and none is given"))),
        };
        let u = self.cx.u32_t();
        let ptr = self.cx.ptr(StorageClass::Uniform, u);
        let zero = self.cx.const_u32(0);
        let p = self.ids_op(Op::AccessChain, ptr, &[var, zero])?;
        self.ids_op(Op::Load, u, &[p])
    }

    /// `SV_ViewID` under view instancing, a `uint`.
    pub(in crate::emit) fn view_instance_id(&mut self) -> Result<Word> {
        let view = self.view_state()?;
        let mapped = (view.options.view_index_to_view_id_spec_id, view.writes_layer);
        let u = self.cx.u32_t();
        match mapped {
            (Some(spec_id), false) => {
                let map = self.view_map(Map::ViewId, spec_id);
                self.cx.capability(Capability::MultiView);
                let i = self.cx.sint(32);
                let var = self.iface.builtin(self.cx, BuiltIn::ViewIndex, StorageClass::Input, i);
                if self.sm.kind == ShaderKind::Pixel {
                    self.cx.decorate(var, Decoration::Flat, &[]);
                }
                let index = self.ids_op(Op::Load, i, &[var])?;
                let index = self.ids_op(Op::Bitcast, u, &[index])?;
                let two = self.cx.const_u32(2);
                let at = self.ids_op(Op::IMul, u, &[index, two])?;
                self.ids_op(Op::BitFieldUExtract, u, &[map, at, two])
            }
            (spec, _) => {
                let why = match spec {
                    Some(_) => {
                        "SV_ViewID in a shader that writes SV_RenderTargetArrayIndex (which multiview cannot offset)"
                    }
                    None => "SV_ViewID without a ViewIndex mapping",
                };
                let word = self.view_offsets_word(why)?;
                let (zero, sixteen) = (self.cx.const_u32(0), self.cx.const_u32(16));
                self.ids_op(Op::BitFieldUExtract, u, &[word, zero, sixteen])
            }
        }
    }

    /// The instance's viewport (a `uint`), when a viewport map is given.
    fn view_instance_viewport(&mut self) -> Result<Option<Word>> {
        let Some(spec_id) = self.view_state()?.options.view_id_to_viewport_spec_id else { return Ok(None) };
        let map = self.view_map(Map::Viewport, spec_id);
        let id = self.view_instance_id()?;
        let u = self.cx.u32_t();
        let eight = self.cx.const_u32(8);
        let at = self.ids_op(Op::IMul, u, &[id, eight])?;
        self.ids_op(Op::BitFieldUExtract, u, &[map, at, eight]).map(Some)
    }

    /// The instance's render-target array slice (a `uint`), when an offsets buffer is given.
    fn view_instance_slice(&mut self) -> Result<Option<Word>> {
        if self.view_state()?.options.offsets_buffer.is_none() {
            return Ok(None);
        }
        let word = self.view_offsets_word("the slice")?;
        let u = self.cx.u32_t();
        let sixteen = self.cx.const_u32(16);
        self.ids_op(Op::ShiftRightLogical, u, &[word, sixteen]).map(Some)
    }

    /// `x` (a signed 32-bit value about to be stored to output built-in `b`, `Layer` or
    /// `ViewportIndex`) with the view instance's slice or viewport added, in the last
    /// pre-rasterization stage under view instancing; else `x` unchanged.
    pub(in crate::emit) fn view_instance_offset(&mut self, b: BuiltIn, x: Word) -> Result<Word> {
        match &self.iface.view {
            Some(v) if v.options.last_pre_rasterization => {}
            _ => return Ok(x),
        }
        let offset = match b {
            BuiltIn::Layer => self.view_instance_slice()?,
            BuiltIn::ViewportIndex => self.view_instance_viewport()?,
            _ => None,
        };
        let Some(offset) = offset else { return Ok(x) };
        let i = self.cx.sint(32);
        let offset = self.ids_op(Op::Bitcast, i, &[offset])?;
        self.ids_op(Op::IAdd, i, &[x, offset])
    }

    /// Vertex and domain shaders, before their body: the instance's routing outputs.
    pub(in crate::emit) fn view_instance_prologue(&mut self) -> Result<()> {
        match self.sm.kind {
            ShaderKind::Vertex | ShaderKind::Domain => self.view_instance_outputs(None),
            _ => Ok(()),
        }
    }

    /// The last pre-rasterization stage's routing outputs the shader does not write itself:
    /// `ViewportIndex` from the viewport map, and `Layer` from the offsets buffer when there
    /// is no `ViewIndex` mapping. Mesh shaders pass their primitive count (`primitives`, a
    /// `uint`): every primitive below it gets them.
    pub(in crate::emit) fn view_instance_outputs(&mut self, primitives: Option<Word>) -> Result<()> {
        let Some(view) = self.iface.view.clone() else { return Ok(()) };
        let o = view.options;
        if !o.last_pre_rasterization {
            return Ok(());
        }
        if !view.writes_layer && o.view_index_to_view_id_spec_id.is_none() {
            if let Some(slice) = self.view_instance_slice()? {
                self.store_routing(BuiltIn::Layer, slice, primitives)?;
            }
        }
        if !view.writes_viewport {
            if let Some(viewport) = self.view_instance_viewport()? {
                self.store_routing(BuiltIn::ViewportIndex, viewport, primitives)?;
            }
        }
        Ok(())
    }

    /// Stores `value` (a `uint`) to output built-in `b` (`Layer` or `ViewportIndex`), for
    /// every primitive below `primitives` in a mesh shader.
    fn store_routing(&mut self, b: BuiltIn, value: Word, primitives: Option<Word>) -> Result<()> {
        let stage = self.sm.kind;
        let i = self.cx.sint(32);
        let mesh = stage == ShaderKind::Mesh;
        let ty = if mesh {
            let n = self.cx.const_u32(self.iface.stage.output_primitives.max(1));
            self.cx.b.type_array(i, n)
        } else {
            i
        };
        let (var, created) = self.iface.builtin_created(self.cx, b, StorageClass::Output, ty);
        if created {
            let layer = b == BuiltIn::Layer;
            self.cx.capability(match stage {
                ShaderKind::Geometry if layer => Capability::Geometry,
                ShaderKind::Geometry => Capability::MultiViewport,
                ShaderKind::Mesh => Capability::MeshShadingEXT,
                _ if layer => Capability::ShaderLayer,
                _ => Capability::ShaderViewportIndex,
            });
            if mesh {
                self.cx.decorate(var, Decoration::PerPrimitiveEXT, &[]);
            }
        }
        let value = self.ids_op(Op::Bitcast, i, &[value])?;
        let Some(count) = primitives.filter(|_| mesh) else {
            return self.ids_void(Op::Store, &[var, value]);
        };
        // Thread t writes primitives t, t + threads, ... below the count.
        let u = self.cx.u32_t();
        let bool_t = self.cx.bool_t();
        let local = self.iface.builtin(self.cx, BuiltIn::LocalInvocationIndex, StorageClass::Input, u);
        let thread = self.ids_op(Op::Load, u, &[local])?;
        let ptr = self.cx.ptr(StorageClass::Output, i);
        let threads = self.iface.stage.mesh_threads.max(1);
        for first in (0..self.iface.stage.output_primitives).step_by(threads as usize) {
            let k = self.cx.const_u32(first);
            let prim = self.ids_op(Op::IAdd, u, &[thread, k])?;
            let below = self.ids_op(Op::ULessThan, bool_t, &[prim, count])?;
            self.split_if(below, |fe| {
                let p = fe.ids_op(Op::AccessChain, ptr, &[var, prim])?;
                fe.ids_void(Op::Store, &[p, value])
            })?;
        }
        Ok(())
    }
}
