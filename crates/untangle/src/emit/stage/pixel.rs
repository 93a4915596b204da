//! Pixel-shader facts the interface needs before any operation is lowered, and the contract
//! with the layer for what Vulkan fragment shaders cannot see themselves.
//!
//! - **Per-vertex inputs.** An input element that some `attributeAtVertex` reads becomes a
//!   `PerVertexKHR` array of the triangle's 3 vertices (`SPV_KHR_fragment_shader_barycentric`):
//!   Vulkan allows one variable per location, so the whole element changes representation,
//!   and its `loadInput`s read vertex 0, the provoking vertex under Vulkan's default
//!   first-vertex convention (what a D3D `nointerpolation` input gives). AMD AGS's
//!   `VtxParam` reads make an element per-vertex too, where it is `nointerpolation` or read
//!   no other way (`dxop/ags.rs` refuses the rest). [`StageIo::per_vertex_inputs`]
//!   finds these elements with one pass over the function's calls (cost: linear in its
//!   instructions).
//! - **Render-target sample count.** A Vulkan fragment shader has no built-in for the
//!   rasterization sample count (`SampleMask` holds coverage, `NumSamples` does not exist in
//!   SPIR-V; `OpImageQuerySamples` needs an image). `renderTargetGetSampleCount` and
//!   `renderTargetGetSamplePosition` read a 32-bit unsigned specialization constant with
//!   `SpecId` [`crate::emit::RENDER_TARGET_SAMPLE_COUNT_SPEC_ID`] (or the id the options name;
//!   default value 1) that the layer sets to
//!   `VkPipelineMultisampleStateCreateInfo::rasterizationSamples` when it creates the
//!   pipeline. Vulkan ignores map entries for ids a module does not declare, so a layer may
//!   always pass it. `docs/stage-interfaces.md` writes both down.

use crate::dxil::{ags, decode_call, DxOp, InterpolationMode, Resources, SignatureElement};
use crate::emit::StageIo;
use crate::ir::{Function, InstKind, Module, Value};
use std::collections::BTreeSet;

impl StageIo {
    /// The input element ids that `attributeAtVertex` calls of `f` read (operand 0, a constant;
    /// a call with a non-constant id is reported when it is lowered), and with `ags` (AMD
    /// AGS decoded) those AGS `VtxParam` reads that can be per-vertex arrays: an element
    /// that is `nointerpolation`, or that nothing else reads (`loadInput`, `eval*`), since
    /// a `PerVertexKHR` array has no interpolated value. `inputs` and `table` are the
    /// entry's input signature and resources.
    pub(in crate::emit) fn per_vertex_inputs(
        m: &Module,
        f: &Function,
        inputs: &[SignatureElement],
        table: &Resources,
        ags: bool,
    ) -> BTreeSet<u32> {
        let mut out = BTreeSet::new();
        let (mut vertex_params, mut interpolated) = (BTreeSet::new(), BTreeSet::new());
        for (inst, data) in f.insts.iter() {
            if !matches!(data.kind, InstKind::Call { .. }) {
                continue;
            }
            let Ok(Some(call)) = decode_call(m, f, inst, "") else { continue };
            let element = || match call.args.first() {
                Some(Value::Const(c)) => m.constants.as_int(*c).and_then(|k| u32::try_from(k).ok()),
                _ => None,
            };
            match call.op {
                DxOp::AttributeAtVertex => out.extend(element()),
                DxOp::LoadInput | DxOp::EvalCentroid | DxOp::EvalSampleIndex | DxOp::EvalSnapped => {
                    interpolated.extend(element())
                }
                DxOp::AtomicCompareExchange if ags => {
                    if let Some((_, param, component)) = ags::vertex_param_call(m, f, table, inst) {
                        vertex_params.extend(ags::vertex_param_element(inputs, param, component).map(|e| e.id));
                    }
                }
                _ => {}
            }
        }
        for id in vertex_params {
            let flat = inputs.iter().any(|e| e.id == id && e.interpolation == InterpolationMode::Constant);
            if flat || !interpolated.contains(&id) {
                out.insert(id);
            }
        }
        out
    }
}
