//! Rasterizer-ordered views (`RasterizerOrderedBuffer`, `RasterizerOrderedTexture2D`, ...):
//! D3D orders the accesses of overlapping pixel shader invocations to such UAVs in
//! primitive order. Vulkan's equivalent is a fragment shader interlock
//! (`SPV_EXT_fragment_shader_interlock`): an ordered interlock execution mode,
//! `PixelInterlockOrderedEXT`, or `SampleInterlockOrderedEXT` when the shader runs per sample
//! (it declares `SampleRateShading`: sample-frequency inputs or `SV_SampleIndex`), and a
//! critical section between `OpBeginInvocationInterlockEXT` and `OpEndInvocationInterlockEXT`.
//!
//! A pixel shader needs the interlock when it declares a rasterizer-ordered UAV (the ROV
//! flag of the resource metadata) or annotates a descriptor-heap handle as one (SM 6.6
//! `annotateHandle`: UAV and ROV bits of the resource properties).
//!
//! # Invariant
//!
//! The extension requires every invocation of an entry point with an interlock mode to
//! execute `OpBeginInvocationInterlockEXT` and then `OpEndInvocationInterlockEXT`, each
//! exactly once, and the ROV accesses must lie between them. untangle makes the whole entry
//! function the critical section, which holds for any control flow:
//!
//! - `OpBeginInvocationInterlockEXT` is the first instruction after the entry function's
//!   variables, in its first block, which every invocation runs exactly once (no branch
//!   targets it) before any other code;
//! - `OpEndInvocationInterlockEXT` immediately precedes every `OpReturn` of the entry
//!   function. A pixel shader leaves its entry only through one of them: `discard` demotes
//!   (`OpDemoteToHelperInvocation`) and goes on, no other function of a pixel shader is
//!   emitted, and `OpUnreachable` is never reached; so every invocation runs exactly one.
//!
//! The section is placed after the entry function is emitted ([`interlock_entry`]), when
//! every handle, heap annotations included, has been seen.
//!
//! dxil-spirv narrows the section to the blocks between the ROV accesses where a single
//! entry and exit outside loops exist, and falls back to the same whole-function section
//! otherwise; the whole function orders more code than needed, never less.
//!
//! ROV resources are decorated `Coherent` (`emit::resources`), as for `globallycoherent`:
//! the critical section orders the accesses, and coherence makes one invocation's writes
//! visible to the next (dxil-spirv does the same: "ROV implies coherent"). Heap UAVs and root
//! descriptors (device addresses) get no such decoration here.

use super::ModuleBuilder;
use crate::dxil::EntryPoint;
use crate::emit::error::{Error, Result};
use rspirv::spirv::{Capability, ExecutionMode, Op, Word};

/// `dx.types.ResourceProperties` word 0: the UAV bit and the rasterizer-ordered bit.
const PROPS_UAV: u32 = 1 << 12;
const PROPS_ROV: u32 = 1 << 13;

/// Whether the entry declares a rasterizer-ordered UAV.
pub(crate) fn declares_rov(ep: &EntryPoint) -> bool {
    ep.resources.uavs.iter().any(|r| r.uav.is_some_and(|u| u.rasterizer_ordered))
}

/// Whether `annotateHandle` properties (word 0) describe a rasterizer-ordered UAV.
pub(crate) fn is_rov_heap_props(basic: u32) -> bool {
    basic & (PROPS_UAV | PROPS_ROV) == PROPS_UAV | PROPS_ROV
}

/// Makes entry function `fn_id` (emitted) one critical section (module documentation) and
/// declares the ordered interlock: per sample when the shader runs per sample.
pub(crate) fn interlock_entry(cx: &mut ModuleBuilder<'_>, fn_id: Word) -> Result<()> {
    let words = cx.b.functions_words_mut();
    let sites = section_sites(words, fn_id)?;
    // Insert from the back so that earlier positions stay valid.
    for (at, op) in sites.into_iter().rev() {
        words.insert(at, (1 << 16) | op as u32);
    }
    cx.extension("SPV_EXT_fragment_shader_interlock");
    if cx.has_capability(Capability::SampleRateShading) {
        cx.capability(Capability::FragmentShaderSampleInterlockEXT);
        cx.b.execution_mode(fn_id, ExecutionMode::SampleInterlockOrderedEXT, []);
    } else {
        cx.capability(Capability::FragmentShaderPixelInterlockEXT);
        cx.b.execution_mode(fn_id, ExecutionMode::PixelInterlockOrderedEXT, []);
    }
    Ok(())
}

/// Where the critical section's instructions go in the functions section `words`, in
/// increasing order: the begin after the first block's variables of function `fn_id`, an
/// end before each of its `OpReturn`s.
fn section_sites(words: &[Word], fn_id: Word) -> Result<Vec<(usize, Op)>> {
    let bad = |why: &str| Error::Internal(format!("interlocking the entry function: {why}"));
    let mut sites = Vec::new();
    let (mut at, mut inside, mut labels, mut begun) = (0usize, false, 0u32, false);
    while at < words.len() {
        let (len, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        if len == 0 || at + len > words.len() {
            return Err(bad("a malformed instruction"));
        }
        match op {
            o if o == Op::Function as u32 => inside = words.get(at + 2) == Some(&fn_id),
            o if !inside || o == Op::FunctionEnd as u32 => {}
            o if o == Op::Label as u32 => labels += 1,
            o if o == Op::Variable as u32 => {}
            o if o == Op::Return as u32 => sites.push((at, Op::EndInvocationInterlockEXT)),
            _ => {}
        }
        // The first instruction of the first block that is not a variable.
        if inside && labels == 1 && !begun && op != Op::Label as u32 && op != Op::Variable as u32 {
            sites.push((at, Op::BeginInvocationInterlockEXT));
            begun = true;
        }
        at += len;
    }
    if !begun {
        return Err(bad("no entry function with a block"));
    }
    sites.sort_by_key(|&(at, op)| (at, op != Op::BeginInvocationInterlockEXT));
    Ok(sites)
}
