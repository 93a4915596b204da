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
        Command::Ir { file } => {
            let loaded = untangle::load::load_path(&file).map_err(|error| Failure { file, error })?;
            print!("{}", untangle::ir::dump::Dumper::new(&loaded.module).module());
        }
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
