//! Stage I/O: untangle's location rule is dxil-spirv's default (`Location` = start row,
//! `Component` = start column; patch constants after the control-point rows; geometry
//! streams after each other; mesh per-primitive outputs after the per-vertex rows), so
//! elements keep it unless the application installed a callback that covers them:
//!
//! - vertex-shader inputs: the vertex-input callback's `location`, component 0 (dxil-spirv
//!   declares vertex inputs without a `Component`);
//! - other inputs and outputs: the stage-input or stage-output callback, asked with
//!   dxil-spirv's question (the semantic and its index) and its prefilled answer (the
//!   default location and component, `PER_PRIMITIVE` for mesh per-primitive outputs);
//! - domain-shader patch constants: after the patch location offset the application set
//!   (the hull shader's, which vkd3d-proton passes on), when it set one.
//!
//! A callback that declines leaves the default: untangle's IoRemap cannot fail a
//! translation, and dxil-spirv's defaults are the same places.

use super::{Refusal, Shared};
use crate::ffi::*;
use crate::options::ConverterSetup;
use std::ffi::CString;
use std::sync::Arc;
use untangle::front::container::ShaderKind;
use untangle::{IoLocation, IoQuery, IoRemap};

/// The stage-I/O placement untangle consults.
pub fn remap(setup: &ConverterSetup, shared: Arc<Shared>) -> IoRemap {
    let patch_offset = setup.patch_location_offset;
    IoRemap::new(move |q: &IoQuery<'_>| {
        let el = q.element;
        let semantic = CString::new(el.semantic.replace('\0', "")).unwrap_or_default();
        let index = el.semantic_indices.first().copied().unwrap_or(0);
        let start_row = el.start_row.unwrap_or(0);
        if q.stage == ShaderKind::Vertex && !q.output {
            let d3d = dxil_spv_d3d_vertex_input {
                semantic: semantic.as_ptr(),
                semantic_index: index,
                start_row,
                rows: el.rows,
            };
            let mut out = dxil_spv_vulkan_vertex_input { location: start_row };
            // SAFETY: `semantic` outlives the call.
            let ok = shared.with(|m| unsafe { m.vertex_input(&d3d, &mut out) });
            return Some(IoLocation { location: if ok { out.location } else { q.default.location }, component: 0 });
        }
        let mut default = q.default;
        if q.patch && q.stage == ShaderKind::Domain && !q.output {
            if let Some(offset) = patch_offset.filter(|&o| o != u32::MAX) {
                default.location = start_row.saturating_add(offset);
            }
        }
        let per_primitive = q.stage == ShaderKind::Mesh && q.patch;
        let (d3d, mut out) = stage_io_question(&semantic, index, default, per_primitive);
        let asked = shared.with(|m| {
            let kind = if q.output { crate::remap::Kind::StageOutput } else { crate::remap::Kind::StageInput };
            if !m.has_callback(kind) {
                return None;
            }
            // SAFETY: `semantic` outlives the call.
            let ok = unsafe {
                if q.output {
                    m.stage_output(&d3d, &mut out)
                } else {
                    m.stage_input(&d3d, &mut out)
                }
            };
            Some(ok)
        });
        match asked {
            Some(true) => Some(IoLocation { location: out.location, component: out.component }),
            _ => Some(default),
        }
    })
}

/// dxil-spirv's stage-I/O question about `semantic``index` and its prefilled answer (the
/// default place, `PER_PRIMITIVE` when the element is): one maker, so that asking ahead
/// ([`per_primitive_inputs`]) and asking during translation ([`remap`]) ask the same
/// question, which `Shared` answers once.
fn stage_io_question(
    semantic: &CString,
    index: u32,
    default: IoLocation,
    per_primitive: bool,
) -> (dxil_spv_d3d_shader_stage_io, dxil_spv_vulkan_shader_stage_io) {
    let d3d =
        dxil_spv_d3d_shader_stage_io { semantic: semantic.as_ptr(), semantic_index: index, start_row: 0, rows: 0 };
    let prefill = dxil_spv_vulkan_shader_stage_io {
        location: default.location,
        component: default.component,
        flags: if per_primitive { DXIL_SPV_SHADER_STAGE_IO_PER_PRIMITIVE } else { DXIL_SPV_SHADER_STAGE_IO_NONE },
    };
    (d3d, prefill)
}

/// Pixel-shader inputs the stage-input callback marks `PER_PRIMITIVE` (vkd3d-proton does for
/// what the mesh shader writes per primitive), for [`untangle::Options::per_primitive_inputs`]:
/// every user input with a register is asked the question [`remap`] will ask (the same
/// semantic and prefilled default, so the answer is the one it gets; `Shared` asks the
/// callback once per question).
pub fn per_primitive_inputs(ep: &untangle::dxil::EntryPoint, shared: &Shared) -> Vec<(String, u32)> {
    use untangle::dxil::SemanticKind;
    if !shared.with(|m| m.has_callback(crate::remap::Kind::StageInput)) {
        return Vec::new();
    }
    let sigs = &ep.signatures;
    let mut marked = Vec::new();
    for el in sigs.inputs.iter().filter(|e| e.system_value == SemanticKind::Arbitrary) {
        let Some(default) = untangle::default_location(ShaderKind::Pixel, untangle::SigKind::Input, el, sigs) else {
            continue;
        };
        let semantic = CString::new(el.semantic.replace('\0', "")).unwrap_or_default();
        let index = el.semantic_indices.first().copied().unwrap_or(0);
        let (d3d, mut out) = stage_io_question(&semantic, index, default, false);
        // SAFETY: `semantic` outlives the call.
        let ok = shared.with(|m| unsafe { m.stage_input(&d3d, &mut out) });
        if ok && out.flags & DXIL_SPV_SHADER_STAGE_IO_PER_PRIMITIVE != 0 {
            marked.push((el.semantic.clone(), index));
        }
    }
    marked
}

/// Stream output from the stream-output callback (set only when the pipeline captures):
/// dxil-spirv asks about every output of a vertex, domain or geometry shader but clip and
/// cull distances, and captures each enabled one whole at the offset, stride and buffer the
/// callback gives. That becomes a D3D12 declaration list: per buffer, the captured elements
/// in offset order with gaps between them.
pub fn stream_output(
    ep: &untangle::dxil::EntryPoint,
    kind: ShaderKind,
    remap: &mut crate::remap::Remapper,
) -> Result<Option<untangle::StreamOutput>, Refusal> {
    use untangle::dxil::SemanticKind;
    use untangle::{StreamOutput, StreamOutputDeclaration};
    if !matches!(kind, ShaderKind::Vertex | ShaderKind::Domain | ShaderKind::Geometry)
        || !remap.has_callback(crate::remap::Kind::StreamOutput)
    {
        return Ok(None);
    }
    // (buffer, offset, stride, declaration)
    let mut captured: Vec<(u32, u32, u32, StreamOutputDeclaration)> = Vec::new();
    for el in &ep.signatures.outputs {
        if matches!(el.system_value, SemanticKind::ClipDistance | SemanticKind::CullDistance) {
            continue;
        }
        let semantic = CString::new(el.semantic.replace('\0', "")).unwrap_or_default();
        let index = el.semantic_indices.first().copied().unwrap_or(0);
        let d3d = dxil_spv_d3d_stream_output { semantic: semantic.as_ptr(), semantic_index: index };
        let mut out = dxil_spv_vulkan_stream_output::default();
        // SAFETY: `semantic` outlives the call.
        if !unsafe { remap.stream_output(&d3d, &mut out) } {
            return Err(Refusal::new(
                DXIL_SPV_ERROR_GENERIC,
                "stream output",
                format!("the stream-output callback declined {}{index}", el.semantic),
            ));
        }
        if out.enable == 0 {
            continue;
        }
        let decl = StreamOutputDeclaration::new(&el.semantic, index, 0, el.cols.max(1), out.buffer_index)
            .on_stream(el.output_stream.unwrap_or(0));
        captured.push((out.buffer_index, out.offset, out.stride, decl));
    }
    if captured.is_empty() {
        return Ok(None);
    }
    captured.sort_by_key(|c| (c.0, c.1));
    let mut so = StreamOutput { rasterized_stream: Some(0), ..StreamOutput::default() };
    let mut next = std::collections::BTreeMap::<u32, u32>::new();
    for (buffer, offset, stride, decl) in captured {
        let at = next.entry(buffer).or_insert(0);
        if offset % 4 != 0 || offset < *at {
            return Err(Refusal::new(
                DXIL_SPV_ERROR_UNSUPPORTED_FEATURE,
                "stream output",
                format!(
                    "stream output of {} at byte {offset} of buffer {buffer} overlaps or is unaligned",
                    decl.label()
                ),
            ));
        }
        if offset > *at {
            so.declarations.push(StreamOutputDeclaration::gap((offset - *at) / 4, buffer).on_stream(decl.stream));
        }
        *at = offset + 4 * decl.component_count;
        if so.buffer_strides.len() <= buffer as usize {
            so.buffer_strides.resize(buffer as usize + 1, 0);
        }
        so.buffer_strides[buffer as usize] = stride;
        so.declarations.push(decl);
    }
    Ok(Some(so))
}
