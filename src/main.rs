//! The `untangle` command line: argument parsing and printing only; the library does the work.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "untangle", version, about = "DXIL to structured SPIR-V")]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
    /// Translate to SPIR-V. Only shape mode exists so far: `--shape` emits each function's
    /// structurized control flow as a compute entry point that reads its branch decisions
    /// from a buffer and writes the blocks it runs to a trace (see `emit::shape`).
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
}

/// A failure tied to an input file, printed as one line.
struct Failure {
    file: PathBuf,
    error: untangle::Error,
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Info { file, json } => {
            let loaded = untangle::load::load_path(&file).map_err(|error| Failure { file: file.clone(), error })?;
            let container = loaded.container();
            let info = untangle::info::Info::new(&loaded, container.as_ref()).map_err(|error| Failure { file, error })?;
            if json {
                println!("{}", serde_json::to_string_pretty(&info.to_json()).unwrap_or_default());
            } else {
                print!("{}", info.render_text());
            }
        }
        Command::Cfg { file, json, dot } => {
            let loaded = untangle::load::load_path(&file).map_err(|error| Failure { file: file.clone(), error })?;
            let m = &loaded.module;
            let fail = |error: untangle::Error| Failure { file: file.clone(), error };
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
        Command::Ir { file } => {
            let loaded = untangle::load::load_path(&file).map_err(|error| Failure { file, error })?;
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
    let fail = |error: untangle::Error| Failure { file: file.clone(), error };
    if !shape {
        return Err(fail(untangle::emit::shape::EmitError::FullTranslationUnsupported.into()));
    }
    let loaded = untangle::load::load_path(&file).map_err(fail)?;
    if let Some(dir) = &dump_cfg {
        std::fs::create_dir_all(dir).map_err(|e| Failure { file: dir.clone(), error: e.into() })?;
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
                    return Err(Failure { file: dir.clone(), error: e.into() });
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
    std::fs::write(&output, bytes).map_err(|e| Failure { file: output.clone(), error: e.into() })?;
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
