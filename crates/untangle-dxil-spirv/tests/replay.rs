//! Replays recorded converter runs (`UNTANGLE_DXIL_SPIRV_RECORD`, `src/record.rs`) through
//! untangle's path: the same shader, entry point, options, root counts and local root
//! signature, every callback answering from the record. Each module must pass `spirv-val`;
//! its descriptor interface (every `DescriptorSet`/`Binding` pair) and push-constant use
//! are compared with the recorded dxil-spirv module where the record holds it.
//!
//! Records come from `UNTANGLE_REPLAY_DIR` (a record directory with `shaders/` and
//! `spirv/`), else from `tests/traces/*.json`, whose shaders are looked up in
//! `../shared/corpus` by SHA-256. A run prints one line per record and a summary; it fails
//! on an invalid module, a run that panics, and (traces in the repository) a refusal.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use untangle_dxil_spirv::blob::NativeBlob;
use untangle_dxil_spirv::ffi::*;
use untangle_dxil_spirv::options::{ConverterSetup, LocalRootParameter, Opt};
use untangle_dxil_spirv::remap::{Callback, Query, Remapper, Semantic};
use untangle_dxil_spirv::untangle_path::{run, RunInput};

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

/// A record's exchanges, answering the callbacks.
struct Answers {
    exchanges: Vec<(Value, bool, Value)>,
    unanswered: std::cell::RefCell<Vec<Value>>,
}

impl Answers {
    fn find(&self, q: &Query) -> Option<(bool, &Value)> {
        let key = q.to_json();
        let hit = self.exchanges.iter().find(|(query, _, _)| same_query(query, &key));
        if hit.is_none() {
            self.unanswered.borrow_mut().push(key);
        }
        hit.map(|(_, ok, a)| (*ok, a))
    }
}

/// Queries match on everything but `has_counter` (untangle asks about the counter when the
/// shader uses it, dxil-spirv also when the declaration has one).
fn same_query(recorded: &Value, asked: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("has_counter");
        }
        v
    };
    strip(recorded) == strip(asked)
}

fn enum_value(table: &[(&str, i64)], prefix: &str, name: &str) -> u32 {
    table
        .iter()
        .find(|(n, _)| n.strip_prefix(prefix).is_some_and(|s| s.eq_ignore_ascii_case(name)))
        .map_or(0, |(_, v)| *v as u32)
}

fn binding(v: &Value) -> dxil_spv_vulkan_binding {
    let u = |k: &str| v[k].as_u64().unwrap_or(0) as u32;
    dxil_spv_vulkan_binding {
        set: u("set"),
        binding: u("binding"),
        root_constant_index: u("root_constant_index"),
        bindless: dxil_spv_vulkan_binding_bindless {
            heap_root_offset: v["bindless"]["heap_root_offset"].as_u64().unwrap_or(0) as u32,
            use_heap: v["bindless"]["use_heap"].as_bool().unwrap_or(false).into(),
        },
        descriptor_type: enum_value(
            DESCRIPTOR_TYPE_ENUMERATORS,
            "DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_",
            v["descriptor_type"].as_str().unwrap_or("identity"),
        ),
    }
}

unsafe fn answers<'a>(u: *mut c_void) -> &'a Answers {
    &*(u as *const Answers)
}

unsafe extern "C" fn srv(
    u: *mut c_void,
    d: *const dxil_spv_d3d_binding,
    o: *mut dxil_spv_srv_vulkan_binding,
) -> dxil_spv_bool {
    match answers(u).find(&Query::Srv(*d)) {
        Some((ok, a)) => {
            (*o).buffer_binding = binding(&a["buffer_binding"]);
            (*o).offset_binding = binding(&a["offset_binding"]);
            ok.into()
        }
        None => DXIL_SPV_FALSE,
    }
}

unsafe extern "C" fn uav(
    u: *mut c_void,
    d: *const dxil_spv_uav_d3d_binding,
    o: *mut dxil_spv_uav_vulkan_binding,
) -> dxil_spv_bool {
    match answers(u).find(&Query::Uav(*d)) {
        Some((ok, a)) => {
            (*o).buffer_binding = binding(&a["buffer_binding"]);
            (*o).counter_binding = binding(&a["counter_binding"]);
            (*o).offset_binding = binding(&a["offset_binding"]);
            ok.into()
        }
        None => DXIL_SPV_FALSE,
    }
}

unsafe extern "C" fn cbv(
    u: *mut c_void,
    d: *const dxil_spv_d3d_binding,
    o: *mut dxil_spv_cbv_vulkan_binding,
) -> dxil_spv_bool {
    match answers(u).find(&Query::Cbv(*d)) {
        Some((ok, a)) => {
            if a["push_constant"].as_bool().unwrap_or(false) {
                (*o).push_constant = DXIL_SPV_TRUE;
                (*o).vulkan.push_constant.offset_in_words = a["offset_in_words"].as_u64().unwrap_or(0) as u32;
            } else {
                (*o).push_constant = DXIL_SPV_FALSE;
                (*o).vulkan.uniform_binding = binding(&a["uniform_binding"]);
            }
            ok.into()
        }
        None => DXIL_SPV_FALSE,
    }
}

unsafe extern "C" fn sampler(
    u: *mut c_void,
    d: *const dxil_spv_d3d_binding,
    o: *mut dxil_spv_vulkan_binding,
) -> dxil_spv_bool {
    match answers(u).find(&Query::Sampler(*d)) {
        Some((ok, a)) => {
            *o = binding(a);
            ok.into()
        }
        None => DXIL_SPV_FALSE,
    }
}

unsafe fn semantic(p: *const std::ffi::c_char, index: u32) -> Semantic {
    let name = (!p.is_null()).then(|| std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned());
    Semantic { name, index }
}

unsafe extern "C" fn vertex_input(
    u: *mut c_void,
    d: *const dxil_spv_d3d_vertex_input,
    o: *mut dxil_spv_vulkan_vertex_input,
) -> dxil_spv_bool {
    let d = &*d;
    let q =
        Query::VertexInput { semantic: semantic(d.semantic, d.semantic_index), start_row: d.start_row, rows: d.rows };
    match answers(u).find(&q) {
        Some((ok, a)) => {
            (*o).location = a["location"].as_u64().unwrap_or(0) as u32;
            ok.into()
        }
        // The recorded run may have asked about another row count; vkd3d-proton answers
        // with the start row whatever it is asked.
        None => {
            (*o).location = d.start_row;
            DXIL_SPV_TRUE
        }
    }
}

unsafe extern "C" fn stage_io(
    u: *mut c_void,
    d: *const dxil_spv_d3d_shader_stage_io,
    o: *mut dxil_spv_vulkan_shader_stage_io,
    output: bool,
) -> dxil_spv_bool {
    let d = &*d;
    let (semantic, prefill) = (semantic(d.semantic, d.semantic_index), *o);
    let q = if output {
        Query::StageOutput { semantic, start_row: d.start_row, rows: d.rows, prefill }
    } else {
        Query::StageInput { semantic, start_row: d.start_row, rows: d.rows, prefill }
    };
    match answers(u).find(&q) {
        Some((ok, a)) => {
            (*o).location = a["location"].as_u64().unwrap_or(0) as u32;
            (*o).component = a["component"].as_u64().unwrap_or(0) as u32;
            (*o).flags = a["flags"].as_u64().unwrap_or(0) as u32;
            ok.into()
        }
        None => DXIL_SPV_FALSE,
    }
}

unsafe extern "C" fn stage_input(
    u: *mut c_void,
    d: *const dxil_spv_d3d_shader_stage_io,
    o: *mut dxil_spv_vulkan_shader_stage_io,
) -> dxil_spv_bool {
    stage_io(u, d, o, false)
}

unsafe extern "C" fn stage_output(
    u: *mut c_void,
    d: *const dxil_spv_d3d_shader_stage_io,
    o: *mut dxil_spv_vulkan_shader_stage_io,
) -> dxil_spv_bool {
    stage_io(u, d, o, true)
}

/// The converter setup a record describes.
fn setup_of(r: &Value) -> ConverterSetup {
    let options: Vec<Opt> =
        r["options"].as_array().into_iter().flatten().filter_map(|o| serde_json::from_value(o.clone()).ok()).collect();
    let local: Vec<LocalRootParameter> = r["local_root_parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| serde_json::from_value(o.clone()).ok())
        .collect();
    ConverterSetup {
        entry_point: r["entry_point"].as_str().map(String::from),
        options,
        root_constant_word_count: r["root_constant_word_count"].as_u64().unwrap_or(0) as u32,
        root_descriptor_count: r["root_descriptor_count"].as_u64().unwrap_or(0) as u32,
        local_root_parameters: local,
        patch_location_offset: r["patch_location_offset"].as_u64().map(|v| v as u32),
        ..ConverterSetup::default()
    }
}

/// Every `(set, binding)` a module decorates, and whether it has a push-constant variable.
fn interface(words: &[u32]) -> (BTreeSet<(u32, u32)>, bool) {
    let mut sets: BTreeMap<u32, u32> = BTreeMap::new();
    let mut bindings: BTreeMap<u32, u32> = BTreeMap::new();
    let mut push = false;
    let mut i = 5;
    while i < words.len() {
        let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        if len == 0 || i + len > words.len() {
            break;
        }
        match op {
            71 if len >= 4 && words[i + 2] == 34 => {
                sets.insert(words[i + 1], words[i + 3]);
            }
            71 if len >= 4 && words[i + 2] == 33 => {
                bindings.insert(words[i + 1], words[i + 3]);
            }
            59 if len >= 4 && words[i + 3] == 9 => push = true,
            _ => {}
        }
        i += len;
    }
    (sets.iter().filter_map(|(id, s)| bindings.get(id).map(|b| (*s, *b))).collect(), push)
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn records() -> (Vec<(PathBuf, Value)>, Option<PathBuf>) {
    let (dir, own) = match std::env::var_os("UNTANGLE_REPLAY_DIR") {
        Some(d) => (PathBuf::from(d), true),
        None => (Path::new(MANIFEST).join("tests/traces"), false),
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "json")).collect())
        .unwrap_or_default();
    files.sort();
    let recs = files
        .into_iter()
        .filter_map(|p| Some((p.clone(), serde_json::from_slice(&std::fs::read(&p).ok()?).ok()?)))
        .collect();
    (recs, own.then_some(dir))
}

fn corpus_by_hash() -> BTreeMap<String, PathBuf> {
    let dir = Path::new(MANIFEST).join("../../../shared/corpus/dxil/vkd3d-proton");
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if let Ok(bytes) = std::fs::read(e.path()) {
            out.insert(untangle_dxil_spirv::sha256::hex(&bytes), e.path());
        }
    }
    out
}

#[test]
fn recorded_runs_translate_and_validate() {
    let (recs, own_dir) = records();
    if recs.is_empty() {
        eprintln!("no records to replay");
        return;
    }
    let corpus = if own_dir.is_none() { corpus_by_hash() } else { BTreeMap::new() };
    let val = untangle_spirv_tools::find_spirv_val();
    let (mut ok, mut refused, mut invalid, mut missing, mut differ) =
        (0, BTreeMap::<String, usize>::new(), Vec::new(), 0, 0);
    for (path, r) in &recs {
        let sha = r["shader_sha256"].as_str().unwrap_or_default();
        let shader = match &own_dir {
            Some(d) => d.join("shaders").join(format!("{sha}.dxil")),
            None => corpus.get(sha).cloned().unwrap_or_default(),
        };
        let Ok(bytes) = std::fs::read(&shader) else {
            missing += 1;
            continue;
        };
        let blob = NativeBlob::parse(&bytes).expect("a recorded DXIL shader parses");
        let setup = setup_of(r);
        let answers = Answers {
            exchanges: r["remaps"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| (e["query"].clone(), e["ok"].as_bool().unwrap_or(false), e["answer"].clone()))
                .collect(),
            unanswered: Default::default(),
        };
        let ud = &answers as *const Answers as *mut c_void;
        let cb = &r["callbacks"];
        let on = |k: &str| cb[k].as_bool().unwrap_or(false);
        let mut remap = Remapper::default();
        remap.srv = on("srv").then_some(Callback { f: srv, userdata: ud });
        remap.uav = on("uav").then_some(Callback { f: uav, userdata: ud });
        remap.cbv = on("cbv").then_some(Callback { f: cbv, userdata: ud });
        remap.sampler = on("sampler").then_some(Callback { f: sampler, userdata: ud });
        remap.vertex_input = on("vertex_input").then_some(Callback { f: vertex_input, userdata: ud });
        remap.stage_input = on("stage_input").then_some(Callback { f: stage_input, userdata: ud });
        remap.stage_output = on("stage_output").then_some(Callback { f: stage_output, userdata: ud });
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let out = run(RunInput { blob: &blob, setup: &setup, remap: &mut remap });
        let out = match out {
            Ok(o) => o,
            Err(e) => {
                println!("{name}: refused: {}", e.message);
                for q in answers.unanswered.borrow().iter() {
                    println!("    unanswered: {q}");
                }
                *refused.entry(e.reason).or_default() += 1;
                continue;
            }
        };
        if let Some(v) = &val {
            if let Err(msg) = v.validate(&out.spirv, "vulkan1.3") {
                println!("{name}: INVALID: {}", msg.lines().next().unwrap_or(""));
                invalid.push(name.clone());
                continue;
            }
        }
        ok += 1;
        if let Some(d) = &own_dir {
            let spv = r["spirv_sha256"].as_str().unwrap_or_default();
            if let Ok(theirs) = std::fs::read(d.join("spirv").join(format!("{spv}.spv"))) {
                let (a, pa) = interface(&out.spirv);
                let (b, pb) = interface(&words_of(&theirs));
                // Ours declares push constants only when read; dxil-spirv whenever the layout
                // has any. Every binding ours decorates must be one dxil-spirv's does.
                if !a.is_subset(&b) || (pa && !pb) {
                    differ += 1;
                    println!("{name}: interface differs: untangle {a:?} push {pa}, dxil-spirv {b:?} push {pb}");
                }
            }
        }
    }
    println!(
        "replayed {}: {ok} valid, {} refused {refused:?}, {} invalid, {missing} without their shader, {differ} with another interface",
        recs.len(),
        refused.values().sum::<usize>(),
        invalid.len()
    );
    assert!(invalid.is_empty(), "invalid modules: {invalid:?}");
    if own_dir.is_none() {
        assert!(refused.is_empty(), "refused: {refused:?}");
    }
}
