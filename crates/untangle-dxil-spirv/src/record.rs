//! The record mode (`UNTANGLE_DXIL_SPIRV_RECORD=DIR`): every DXIL converter run writes
//! `DIR/<shader sha256, 16 digits>-<pid>-<n>.json` (format `untangle-dxil-spirv-record/1`):
//!
//! - `shader_sha256`, `shader_size`, `parse` (`container`, `bitcode`, `reflection`), `route`
//!   (`untangle` or `delegate_dxil`), `stage`;
//! - what the converter was told: `entry_point`, `options` (each decoded into named fields,
//!   in the order added), `root_constant_word_count`, `root_descriptor_count`,
//!   `local_root_parameters`, `root_parameter_mappings`, `meta_descriptors`,
//!   `non_semantic_debug_info` (tags and sizes), `patch_location_offset`, and which
//!   callbacks were set (`callbacks`);
//! - `remaps`: every query the run made to a callback, in order, with the answer
//!   (`{"query": {...}, "ok": bool, "answer": {...}}`; `default: true` when no callback was
//!   set and dxil-spirv's default answered; `reused: n` when later identical queries got the
//!   recorded answer). On the delegate route a kind without callback is answered inside
//!   dxil-spirv and does not appear;
//! - the outcome: `result`, `refusal` (the untangle path's reason and message), `time_us`,
//!   `spirv_sha256` and `spirv_size` (bytes), and the converter's getters after the run
//!   (`reflection`: compiled entry point, workgroup size, wave sizes, patch vertex count and
//!   location offset, subgroup size use, multiview compatibility, analysis warnings).
//!
//! The shader itself goes to `DIR/shaders/<sha256>.dxil` and the module to
//! `DIR/spirv/<sha256>.spv`, each written once (content-addressed), so a record can be
//! replayed and compared.

use crate::blob::{ParseKind, Route};
use crate::converter::Converter;
use crate::ffi::*;
use crate::remap::Kind;
use crate::untangle_path::Refusal;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` unless it exists (through a temporary name, so a concurrent
/// writer of the same content never leaves a partial file).
fn write_once(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if path.exists() {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

fn getters(conv: &Converter) -> Value {
    let entry =
        conv.compiled_entry_point().map(|p| unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned());
    let warnings = conv.analysis_warnings();
    let warnings =
        (!warnings.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(warnings) }.to_string_lossy().into_owned());
    let mut v = json!({ "compiled_entry_point": entry, "analysis_warnings": warnings });
    let facts = match conv.forward() {
        Some((d, h)) => unsafe {
            let (mut x, mut y, mut z) = (0, 0, 0);
            (d.f.dxil_spv_converter_get_compute_workgroup_dimensions)(h, &mut x, &mut y, &mut z);
            let (mut wmin, mut wmax, mut wpref) = (0, 0, 0);
            (d.f.dxil_spv_converter_get_compute_wave_size_range)(h, &mut wmin, &mut wmax, &mut wpref);
            let (mut hmin, mut hmax, mut pvc, mut plo) = (0, 0, 0, 0);
            (d.f.dxil_spv_converter_get_compute_heuristic_min_wave_size)(h, &mut hmin);
            (d.f.dxil_spv_converter_get_compute_heuristic_max_wave_size)(h, &mut hmax);
            (d.f.dxil_spv_converter_get_patch_vertex_count)(h, &mut pvc);
            (d.f.dxil_spv_converter_get_patch_location_offset)(h, &mut plo);
            let mut mv = 0;
            (d.f.dxil_spv_converter_is_multiview_compatible)(h, &mut mv);
            json!({
                "workgroup_size": [x, y, z],
                "wave_size_range": [wmin, wmax, wpref],
                "heuristic_wave_size": [hmin, hmax],
                "patch_vertex_count": pvc,
                "patch_location_offset": plo,
                "uses_subgroup_size": (d.f.dxil_spv_converter_uses_subgroup_size)(h) != 0,
                "multiview_compatible": mv != 0,
                "native_16bit_operations": (d.f.dxil_spv_converter_uses_shader_feature)(h, DXIL_SPV_SHADER_FEATURE_NATIVE_16BIT_OPERATIONS) != 0,
            })
        },
        None => conv.with_output(|o| {
            json!({
                "workgroup_size": o.workgroup_size,
                "wave_size_range": [o.wave_size_min, o.wave_size_max, o.wave_size_preferred],
                "heuristic_wave_size": [o.heuristic_min_wave_size, o.heuristic_max_wave_size],
                "patch_vertex_count": o.patch_vertex_count,
                "patch_location_offset": o.patch_location_offset,
                "uses_subgroup_size": o.uses_subgroup_size,
                "multiview_compatible": o.multiview_compatible,
                "native_16bit_operations": o.native_16bit_operations,
            })
        }),
    };
    if let (Value::Object(v), Value::Object(f)) = (&mut v, facts) {
        v.extend(f);
    }
    v
}

/// Writes the record of a run that just ended with `result`.
pub fn write(conv: &Converter, result: dxil_spv_result, refusal: Option<&Refusal>, elapsed: Duration) {
    let Some(dir) = crate::config::get().record_dir.as_deref() else { return };
    if let Err(e) = write_in(dir, conv, result, refusal, elapsed) {
        crate::log::warn(&format!("record mode: cannot write to {}: {e}", dir.display()));
    }
}

fn write_in(
    dir: &Path,
    conv: &Converter,
    result: dxil_spv_result,
    refusal: Option<&Refusal>,
    elapsed: Duration,
) -> std::io::Result<()> {
    // SAFETY: the application keeps the blob alive while the converter lives.
    let blob = unsafe { &*conv.blob };
    let sha = blob.sha256.clone().unwrap_or_default();
    let setup = &conv.setup;
    let stage = match (blob.native(), blob.delegate_handle(), crate::delegate::loaded()) {
        (Some(n), _, _) => n.stage(),
        (None, Some(h), Some(d)) => unsafe { (d.f.dxil_spv_parsed_blob_get_shader_stage)(h) },
        _ => DXIL_SPV_STAGE_UNKNOWN,
    };
    let spirv = if result == DXIL_SPV_SUCCESS { conv.spirv() } else { None };
    let mut record = json!({
        "format": "untangle-dxil-spirv-record/1",
        "shader_sha256": sha,
        "shader_size": blob.bytes.as_ref().map_or(0, |b| b.len()),
        "parse": match blob.kind { ParseKind::Container => "container", ParseKind::Bitcode => "bitcode", ParseKind::Reflection => "reflection" },
        "route": match conv.route { Route::Untangle => "untangle", Route::DelegateDxil => "delegate_dxil", Route::DelegateDxbc => "delegate_dxbc" },
        "stage": stage_name(stage),
        "entry_point": setup.entry_point,
        "options": setup.options,
        "root_constant_word_count": setup.root_constant_word_count,
        "root_descriptor_count": setup.root_descriptor_count,
        "local_root_parameters": setup.local_root_parameters,
        "root_parameter_mappings": setup.root_parameter_mappings,
        "meta_descriptors": setup.meta_descriptors.iter().map(|m| json!({
            "meta": meta_descriptor_name(m.meta).unwrap_or_else(|| m.meta.to_string()),
            "kind": meta_descriptor_kind_name(m.kind).unwrap_or_else(|| m.kind.to_string()),
            "desc_set": m.desc_set,
            "binding_or_push_index": m.binding_or_push_index,
        })).collect::<Vec<_>>(),
        "non_semantic_debug_info": setup.non_semantic_debug_info.iter().map(|i| json!({ "tag": i.tag, "size": i.size })).collect::<Vec<_>>(),
        "patch_location_offset": setup.patch_location_offset,
        "callbacks": Kind::ALL.iter().map(|k| (k.name().to_string(), json!(conv.remap.has_callback(*k)))).collect::<serde_json::Map<_, _>>(),
        "remaps": conv.remap.exchanges().iter().map(|e| e.to_json()).collect::<Vec<_>>(),
        "result": result_name(result).unwrap_or_else(|| result.to_string()),
        "time_us": elapsed.as_micros() as u64,
    });
    if let Some(r) = refusal {
        record["refusal"] = json!({ "reason": r.reason, "message": r.message });
    }
    if let Some(words) = spirv {
        let spirv_sha = crate::sha256::hex(words);
        record["spirv_sha256"] = json!(spirv_sha);
        record["spirv_size"] = json!(words.len());
        write_once(&dir.join("spirv").join(format!("{spirv_sha}.spv")), words)?;
    }
    if result == DXIL_SPV_SUCCESS {
        record["reflection"] = getters(conv);
    }
    if let Some(bytes) = &blob.bytes {
        write_once(&dir.join("shaders").join(format!("{sha}.dxil")), bytes)?;
    }
    let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let name = format!("{}-{}-{n}.json", &sha[..sha.len().min(16)], std::process::id());
    let mut text = serde_json::to_string_pretty(&record).unwrap_or_default();
    text.push('\n');
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(name), text)
}
