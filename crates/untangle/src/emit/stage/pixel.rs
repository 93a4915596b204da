//! Pixel-shader facts the interface needs before any operation is lowered, and the contract
//! with the layer for what Vulkan fragment shaders cannot see themselves.
//!
//! - **Per-vertex inputs.** An input element that some `attributeAtVertex` reads becomes a
//!   `PerVertexKHR` array of the triangle's 3 vertices (`SPV_KHR_fragment_shader_barycentric`):
//!   Vulkan allows one variable per location, so the whole element changes representation,
//!   and its `loadInput`s read vertex 0, the provoking vertex under Vulkan's default
//!   first-vertex convention (what a D3D `nointerpolation` input gives). [`StageIo::per_vertex_inputs`]
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

use crate::dxil::{decode_call, DxOp};
use crate::emit::StageIo;
use crate::ir::{Function, InstKind, Module, Value};
use std::collections::BTreeSet;

impl StageIo {
    /// The input element ids that `attributeAtVertex` calls of `f` read (operand 0, a constant;
    /// a call with a non-constant id is reported when it is lowered).
    pub(in crate::emit) fn per_vertex_inputs(m: &Module, f: &Function) -> BTreeSet<u32> {
        let mut out = BTreeSet::new();
        for (inst, data) in f.insts.iter() {
            if !matches!(data.kind, InstKind::Call { .. }) {
                continue;
            }
            let Ok(Some(call)) = decode_call(m, f, inst, "") else { continue };
            if call.op != DxOp::AttributeAtVertex {
                continue;
            }
            if let Some(Value::Const(c)) = call.args.first() {
                if let Some(id) = m.constants.as_int(*c).and_then(|k| u32::try_from(k).ok()) {
                    out.insert(id);
                }
            }
        }
        out
    }
}
