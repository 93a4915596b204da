//! The `untangle` command line: argument parsing and printing only; the library does the work.

use clap::{Args, Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `untangle FILE -o OUT.spv` translates; `untangle A B DIR -o OUTDIR` translates in batch.
#[derive(Parser)]
#[command(
    name = "untangle",
    version,
    about = "DXIL to structured SPIR-V",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    convert: Convert,
}

/// The default command: translate shaders to SPIR-V (Vulkan 1.3).
#[derive(Args)]
struct Convert {
    /// Input shaders (DXBC containers, LLVM bitcode or text) or directories of them.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Output file; with several inputs or a directory, an output directory.
    #[arg(short = 'o', long = "output", value_name = "OUT", required = true)]
    output: Option<PathBuf>,
    /// Write SPIR-V assembly text instead of binary.
    #[arg(long)]
    asm: bool,
    /// Run spirv-val (vulkan1.3) on every output; an invalid module is a failure.
    #[arg(long)]
    validate: bool,
    /// JSON binding overrides (see `emit::binding_model`).
    #[arg(long, value_name = "FILE")]
    binding_map: Option<PathBuf>,
    /// Bind through this D3D12 root signature: an RTS0 part, a DXBC container holding one,
    /// or a text file with a root-signature string. Without it (and without
    /// --root-signature-string) a container's own RTS0 part is used if it has one.
    #[arg(long, value_name = "FILE", conflicts_with = "root_signature_string")]
    root_signature: Option<PathBuf>,
    /// Bind through this root-signature string (as in `[RootSignature("...")]`).
    #[arg(long, value_name = "TEXT")]
    root_signature_string: Option<String>,
    /// The version a root-signature string is parsed for (default 1.1).
    #[arg(long, value_name = "1.0|1.1|1.2", value_parser = parse_rootsig_version)]
    root_signature_version: Option<untangle::rootsig::Version>,
    /// How a root signature becomes a Vulkan pipeline layout: `heap` (descriptor heaps as
    /// bindless arrays, push constants for root arguments) or `direct` (a binding per
    /// range, no descriptor indexing). Schema of the result: docs/layout-json.md.
    #[arg(long, value_enum, default_value_t = CliBindingModel::Heap)]
    binding_model: CliBindingModel,
    /// `heap` only: root CBV/SRV/UAV as buffer device addresses in push constants
    /// (`address`) or as plain descriptors in set 3 (`descriptor`).
    #[arg(long, value_enum, default_value_t = CliRootDescriptors::Address)]
    root_descriptors: CliRootDescriptors,
    /// Write the layout report (pipeline layout + where each resource went) as JSON.
    #[arg(long, value_name = "FILE")]
    layout_json: Option<PathBuf>,
}

#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
enum CliBindingModel {
    Heap,
    Direct,
}

#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
enum CliRootDescriptors {
    Address,
    Descriptor,
}

#[derive(Subcommand)]
enum Command {
    /// Describe a shader: container chunks, shader model, entry points, signatures,
    /// resources, functions and the DXIL operations it uses.
    Info {
        file: PathBuf,
        /// Print JSON (schema: docs/cli-json.md).
        #[arg(long)]
        json: bool,
    },
    /// Print the module in untangle's IR (LLVM-like text).
    Ir { file: PathBuf },
    /// Per function: blocks, immediate (post-)dominators, back edges, loops and
    /// (post-)dominance frontiers.
    Cfg {
        file: PathBuf,
        /// Print JSON (schema: docs/cli-json.md).
        #[arg(long)]
        json: bool,
        /// Also write each function's input CFG as `FUNCTION.dot` into this directory.
        #[arg(long, value_name = "DIR")]
        dot: Option<PathBuf>,
    },
    /// Translate one file to SPIR-V (as the default command does), or with `--shape` emit
    /// each function's structurized control flow as a compute entry point that reads its
    /// branch decisions from a buffer and writes the blocks it runs to a trace (`emit::shape`).
    Translate {
        file: PathBuf,
        /// Emit the shape module (the structurizer's testable output).
        #[arg(long)]
        shape: bool,
        /// The SPIR-V file to write.
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        output: PathBuf,
        /// Also write each function's graph after every structurizer pass as DOT into DIR.
        #[arg(long, value_name = "DIR")]
        dump_cfg: Option<PathBuf>,
        /// Batch mode (with --shape): LocalSize N 1 1, one decision stream per invocation in
        /// per-invocation buffer slices (layout: `emit::shape` docs, README).
        #[arg(long, value_name = "N", requires = "shape")]
        shape_batch: Option<u32>,
        /// Batch mode: decision words per invocation.
        #[arg(long, value_name = "D", default_value_t = 64, requires = "shape_batch")]
        decision_stride: u32,
        /// Batch mode: trace words per invocation, the count included (at least 2).
        #[arg(long, value_name = "T", default_value_t = 512, requires = "shape_batch")]
        trace_stride: u32,
    },
    /// Read a root signature (an RTS0 part, a DXBC container holding one, a text file with
    /// a root-signature string, or `--string`), validate it against D3D12's rules, and print
    /// it as a canonical root-signature string (or JSON); `-o` writes the RTS0 part.
    Rootsig(RootsigArgs),
}

/// `untangle rootsig`: see [`rootsig_command`].
#[derive(Args)]
struct RootsigArgs {
    /// RTS0 part, DXBC container (`dxc -T rootsig_1_x` output, or a shader with RTS0) or a
    /// text file holding a root-signature string.
    #[arg(required_unless_present = "string", conflicts_with = "string")]
    file: Option<PathBuf>,
    /// The root-signature string itself (as in `[RootSignature("...")]`).
    #[arg(long, value_name = "TEXT")]
    string: Option<String>,
    /// Root signature version to parse a string for (default 1.1); for a binary, the version
    /// it must have.
    #[arg(long, value_name = "1.0|1.1|1.2", value_parser = parse_rootsig_version)]
    version: Option<untangle::rootsig::Version>,
    /// Write the serialized RTS0 part (DXC's layout) to this file.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Print JSON instead of the root-signature string.
    #[arg(long)]
    json: bool,
}

/// A failure tied to an input file, printed as one line.
struct Failure {
    file: PathBuf,
    /// A library error, or a message of the command line's own (batch results, validation).
    error: Box<dyn std::fmt::Display>,
}

fn run(cli: Cli) -> Result<(), Failure> {
    let Some(command) = cli.command else {
        return convert(cli.convert);
    };
    match command {
        Command::Info { file, json } => {
            let loaded = untangle::load::load_path(&file)
                .map_err(|error| Failure { file: file.clone(), error: Box::new(error) })?;
            let container = loaded.container();
            let info = untangle::info::Info::new(&loaded, container.as_ref())
                .map_err(|error| Failure { file, error: Box::new(error) })?;
            if json {
                let mut v = info.to_json();
                if let (Some(obj), Ok(dxil)) = (v.as_object_mut(), untangle::dxil::analyze(&loaded.module)) {
                    let rows = untangle::emit::binding_model::mapping(&dxil.resources, &Default::default());
                    obj.insert("vulkan_bindings".into(), serde_json::to_value(rows).unwrap_or_default());
                }
                println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            } else {
                print!("{}", info.render_text());
                print_bindings(&loaded.module);
            }
        }
        Command::Cfg { file, json, dot } => {
            let loaded = untangle::load::load_path(&file)
                .map_err(|error| Failure { file: file.clone(), error: Box::new(error) })?;
            let m = &loaded.module;
            let fail = |error: untangle::Error| Failure { file: file.clone(), error: Box::new(error) };
            if json {
                let v = untangle::cfg::report::render_json(m).map_err(|e| fail(e.into()))?;
                println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            } else {
                print!("{}", untangle::cfg::report::render_text(m).map_err(|e| fail(e.into()))?);
            }
            if let Some(dir) = dot {
                std::fs::create_dir_all(&dir).map_err(|e| fail(e.into()))?;
                untangle::cfg::report::write_dot(m, &dir).map_err(|e| fail(e.into()))?;
            }
        }
        Command::Translate { file, shape, output, dump_cfg, shape_batch, decision_stride, trace_stride } => {
            let batch = shape_batch.map(|local_size| untangle::emit::shape::ShapeBatch {
                local_size,
                decision_stride,
                trace_stride,
                out_of_line_helpers: true,
            });
            let options = untangle::emit::shape::ShapeOptions { batch };
            translate(file, shape, output, dump_cfg, &options)?
        }
        Command::Rootsig(args) => rootsig_command(args)?,
        Command::Ir { file } => {
            let loaded = untangle::load::load_path(&file).map_err(|error| Failure { file, error: Box::new(error) })?;
            print!("{}", untangle::ir::dump::Dumper::new(&loaded.module).module());
        }
    }
    Ok(())
}

fn translate(
    file: PathBuf,
    shape: bool,
    output: PathBuf,
    dump_cfg: Option<PathBuf>,
    options: &untangle::emit::shape::ShapeOptions,
) -> Result<(), Failure> {
    use untangle::passes::{self, Options, Scfg};
    let fail = |error: untangle::Error| Failure { file: file.clone(), error: Box::new(error) };
    if !shape {
        let bytes = std::fs::read(&file).map_err(|e| fail(e.into()))?;
        let t = untangle::emit::translate(&bytes, &untangle::emit::Options::default()).map_err(fail)?;
        let out: Vec<u8> = t.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        return std::fs::write(&output, out)
            .map_err(|e| Failure { file: output.clone(), error: Box::new(untangle::Error::from(e)) });
    }
    let loaded = untangle::load::load_path(&file).map_err(fail)?;
    if let Some(dir) = &dump_cfg {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure { file: dir.clone(), error: Box::new(untangle::Error::from(e)) })?;
    }
    let mut structured = Vec::new();
    for (_, func) in loaded.module.defined_functions() {
        let result = match &dump_cfg {
            None => passes::structurize(func, Options::default()),
            Some(dir) => {
                let mut dump_error: Option<std::io::Error> = None;
                let mut hook = |index: usize, pass: &str, scfg: &Scfg| {
                    if dump_error.is_none() {
                        if let Err(e) = passes::dot::write_pass_dot(dir, &func.name, index, pass, scfg) {
                            dump_error = Some(e);
                        }
                    }
                };
                let result = passes::structurize(func, Options { dump: Some(&mut hook) });
                if let Some(e) = dump_error {
                    return Err(Failure { file: dir.clone(), error: Box::new(untangle::Error::from(e)) });
                }
                result
            }
        };
        structured.push((func, result.map_err(|e| fail(e.into()))?));
    }
    let pairs: Vec<_> = structured.iter().map(|(f, s)| (*f, s)).collect();
    let words =
        untangle::emit::shape::emit_shape_module_with(&loaded.module, &pairs, options).map_err(|e| fail(e.into()))?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&output, bytes)
        .map_err(|e| Failure { file: output.clone(), error: Box::new(untangle::Error::from(e)) })?;
    Ok(())
}

/// The default binding model's mapping of the shader's resources (`untangle info`).
fn print_bindings(m: &untangle::ir::Module) {
    let Ok(info) = untangle::dxil::analyze(m) else { return };
    if info.resources.is_empty() {
        return;
    }
    println!("vulkan bindings (default model: set = space; binding = b 0 / t 1000 / u 2000 / s 3000 + register):");
    for row in untangle::emit::binding_model::mapping(&info.resources, &Default::default()) {
        let count = row.count.map_or("unbounded".to_string(), |n| n.to_string());
        println!(
            "  {:<18} {:<24} count {:<9} -> set {} binding {}",
            row.register, row.name, count, row.set, row.binding
        );
    }
}

/// Shader files under `p` (itself if it is a file), sorted.
fn collect_inputs(p: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)?.flatten().map(|e| e.path()).collect();
        entries.sort();
        for e in entries {
            if e.is_dir() {
                collect_inputs(&e, out)?;
            } else if e.extension().is_some_and(|x| ["dxil", "dxbc", "cso", "bc", "ll"].iter().any(|k| x == *k)) {
                out.push(e);
            }
        }
    } else {
        out.push(p.to_path_buf());
    }
    Ok(())
}

/// Translate one file; the output bytes.
#[allow(clippy::type_complexity)]
fn convert_one(
    path: &Path,
    options: &untangle::emit::Options,
    asm: bool,
    validate: bool,
    validator: Option<&untangle_spirv_tools::SpirvVal>,
) -> Result<
    (untangle::container::ShaderKind, Vec<u8>, Option<untangle::emit::translate::LayoutReport>),
    (Option<untangle::container::ShaderKind>, String),
> {
    let bytes = std::fs::read(path).map_err(|e| (None, e.to_string()))?;
    let t = untangle::emit::translate(&bytes, options).map_err(|e| (None, e.to_string()))?;
    if let Some(v) = validator.filter(|_| validate) {
        v.validate(&t.words, "vulkan1.3").map_err(|e| {
            (Some(t.stage), format!("spirv-val: {}", e.lines().find(|l| l.contains("error")).unwrap_or(e.as_str())))
        })?;
    }
    let out = if asm {
        match validator.and_then(|v| v.disassemble(&t.words).ok()) {
            Some(text) => text.into_bytes(),
            None => {
                use rspirv::binary::Disassemble;
                match rspirv::dr::load_words(&t.words) {
                    Ok(m) => m.disassemble().into_bytes(),
                    Err(e) => return Err((Some(t.stage), format!("disassembly: {e:?}"))),
                }
            }
        }
    } else {
        t.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    };
    Ok((t.stage, out, t.layout))
}

/// A root signature from a file: an RTS0 part, a DXBC container holding one, or text
/// (parsed for `version`, default 1.1). `true` with it when the file was binary.
fn read_root_signature(
    file: &Path,
    version: Option<untangle::rootsig::Version>,
) -> Result<(untangle::rootsig::RootSignature, bool), untangle::Error> {
    use untangle::rootsig;
    let bytes = std::fs::read(file)?;
    // A bare RTS0 part starts with its version as a little-endian u32 (1 to 3).
    let bare_part = bytes.len() >= 4 && (1..=3).contains(&bytes[0]) && bytes[1..4] == [0, 0, 0];
    let text = std::str::from_utf8(&bytes).ok().filter(|_| !bare_part && !bytes.starts_with(b"DXBC"));
    Ok(match text {
        Some(text) => (rootsig::parse_hlsl(text, version.unwrap_or(rootsig::Version::V1_1))?, false),
        None => (rootsig::parse_rts0_file(&bytes)?, true),
    })
}

fn convert(args: Convert) -> Result<(), Failure> {
    let output = args.output.clone().unwrap_or_default();
    let mut options = untangle::emit::Options::default();
    if let Some(map) = &args.binding_map {
        let text = std::fs::read_to_string(map)
            .map_err(|e| Failure { file: map.clone(), error: Box::new(untangle::Error::from(e)) })?;
        options.binding_map = untangle::emit::binding_model::BindingMap::parse(&text)
            .map_err(|e| Failure { file: map.clone(), error: Box::new(untangle::Error::from(e)) })?;
    }
    {
        use untangle::rootsig::layout::{BindingModel, LayoutOptions, RootDescriptors};
        let layout = LayoutOptions {
            model: match args.binding_model {
                CliBindingModel::Heap => BindingModel::Heap,
                CliBindingModel::Direct => BindingModel::Direct,
            },
            root_descriptors: match args.root_descriptors {
                CliRootDescriptors::Address => RootDescriptors::Address,
                CliRootDescriptors::Descriptor => RootDescriptors::Descriptor,
            },
        };
        let signature = match (&args.root_signature, &args.root_signature_string) {
            (Some(file), _) => Some(
                read_root_signature(file, args.root_signature_version)
                    .map_err(|e| Failure { file: file.clone(), error: Box::new(e) })?
                    .0,
            ),
            (None, Some(text)) => Some(
                untangle::rootsig::parse_hlsl(
                    text,
                    args.root_signature_version.unwrap_or(untangle::rootsig::Version::V1_1),
                )
                .map_err(|e| Failure {
                    file: PathBuf::from("--root-signature-string"),
                    error: Box::new(untangle::Error::from(e)),
                })?,
            ),
            (None, None) => None,
        };
        options.root_signature =
            signature.map(|signature| untangle::emit::translate::RootSignatureBinding { signature, layout });
        options.embedded_root_signature = Some(layout);
    }
    let validator = if args.validate || args.asm { untangle_spirv_tools::find_spirv_val() } else { None };
    if args.validate && validator.is_none() {
        return Err(Failure {
            file: PathBuf::from("spirv-val"),
            error: Box::new("--validate needs spirv-val (SPIRV-Tools) on PATH"),
        });
    }
    let batch = args.inputs.len() > 1 || args.inputs.iter().any(|p| p.is_dir());
    if !batch {
        let file = &args.inputs[0];
        let (_, out, layout) = convert_one(file, &options, args.asm, args.validate, validator.as_ref())
            .map_err(|(_, msg)| Failure { file: file.clone(), error: Box::new(msg) })?;
        if let Some(dest) = &args.layout_json {
            let Some(report) = layout else {
                return Err(Failure {
                    file: file.clone(),
                    error: Box::new("--layout-json needs a root signature (--root-signature, --root-signature-string, or an RTS0 part in the container)"),
                });
            };
            let json = serde_json::to_string_pretty(&report)
                .map_err(|e| Failure { file: dest.clone(), error: Box::new(e) })?
                + "\n";
            std::fs::write(dest, json)
                .map_err(|e| Failure { file: dest.clone(), error: Box::new(untangle::Error::from(e)) })?;
        }
        return std::fs::write(&output, out)
            .map_err(|e| Failure { file: output.clone(), error: Box::new(untangle::Error::from(e)) });
    }
    if args.layout_json.is_some() {
        return Err(Failure {
            file: output,
            error: Box::new("--layout-json takes one input (the report describes one shader)"),
        });
    }
    let mut files = Vec::new();
    for p in &args.inputs {
        collect_inputs(p, &mut files)
            .map_err(|e| Failure { file: p.clone(), error: Box::new(untangle::Error::from(e)) })?;
    }
    std::fs::create_dir_all(&output)
        .map_err(|e| Failure { file: output.clone(), error: Box::new(untangle::Error::from(e)) })?;
    let bar = indicatif::ProgressBar::new(files.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut table: std::collections::BTreeMap<String, (usize, usize)> = std::collections::BTreeMap::new();
    let mut failures = Vec::new();
    for f in &files {
        bar.set_message(f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let dest = output.join(format!("{stem}.{}", if args.asm { "spvasm" } else { "spv" }));
        match convert_one(f, &options, args.asm, args.validate, validator.as_ref()) {
            Ok((stage, bytes, _)) => {
                let row = table.entry(format!("{stage:?}")).or_default();
                match std::fs::write(&dest, bytes) {
                    Ok(()) => row.0 += 1,
                    Err(e) => {
                        row.1 += 1;
                        failures.push(format!("{}: {e}", f.display()));
                    }
                }
            }
            Err((stage, msg)) => {
                table.entry(stage.map_or("-".to_string(), |s| format!("{s:?}"))).or_default().1 += 1;
                failures.push(format!("{}: {msg}", f.display()));
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    for f in &failures {
        eprintln!("untangle: {f}");
    }
    println!("{:<14} {:>8} {:>8}", "stage", "ok", "failed");
    let (mut ok, mut bad) = (0, 0);
    for (stage, (o, b)) in &table {
        println!("{stage:<14} {o:>8} {b:>8}");
        ok += o;
        bad += b;
    }
    println!("{:<14} {ok:>8} {bad:>8}", "total");
    if bad > 0 {
        return Err(Failure { file: output, error: Box::new(format!("{bad} of {} inputs failed", files.len())) });
    }
    Ok(())
}

// --- `untangle rootsig` ---------------------------------------------------------------

fn parse_rootsig_version(text: &str) -> Result<untangle::rootsig::Version, String> {
    untangle::rootsig::Version::from_name(text)
        .ok_or_else(|| format!("unknown root signature version `{text}` (1.0, 1.1 or 1.2)"))
}

/// Reads, validates and prints one root signature; writes its RTS0 part with `-o`.
fn rootsig_command(args: RootsigArgs) -> Result<(), Failure> {
    use untangle::rootsig;
    let source = args.file.clone().unwrap_or_else(|| PathBuf::from("<string>"));
    let fail = |error: untangle::Error| Failure { file: source.clone(), error: Box::new(error) };
    let from_text = |text: &str| rootsig::parse_hlsl(text, args.version.unwrap_or(rootsig::Version::V1_1));
    let rs = match (&args.string, &args.file) {
        (Some(text), _) => from_text(text).map_err(|e| fail(e.into()))?,
        (None, Some(file)) => {
            let (rs, binary) = read_root_signature(file, args.version).map_err(fail)?;
            if let Some(wanted) = args.version.filter(|&v| binary && v != rs.version) {
                let message = format!("root signature version is {}, not {}", rs.version.name(), wanted.name());
                return Err(Failure { file: source, error: Box::new(message) });
            }
            rs
        }
        (None, None) => return Err(Failure { file: source, error: Box::new("a FILE or --string is required") }),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rootsig::json::to_json(&rs)).unwrap_or_default());
    } else {
        println!("{}", rootsig::to_hlsl(&rs));
    }
    if let Some(out) = &args.output {
        std::fs::write(out, rootsig::to_rts0(&rs)).map_err(|e| Failure { file: out.clone(), error: Box::new(e) })?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("untangle: {}: {}", f.file.display(), f.error);
            ExitCode::from(1)
        }
    }
}
