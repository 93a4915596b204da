//! The device side of differential execution (feature `vulkan`): translate once, bind the
//! random inputs through the default placement ([`crate::vulkan::corpus::DefaultPlacement`]),
//! dispatch once per seed (the runner caches the pipeline), read back, compare with the
//! interpreter.

use super::inputs::{self, Input};
use super::sabotage::Sabotage;
use super::{compare_variants, reference_variants, Counts, Mismatch};
use crate::interp::heap::{HEAP_SAMPLER_SPACE, HEAP_SPACE};
use crate::interp::{CompKind, Program, ResKind, RunError, TexDim, TexelFormat};
use crate::vulkan::corpus::{default_resource, CaseResource, Kind, Placed, Placement, Reg};
use crate::vulkan::{Binding, Dispatch, Gpu, Image, ImageDim, SamplerDesc};
use ash::vk;
use std::time::Duration;
use untangle::emit::translate::Translation;
use untangle::ir::Module;
use untangle::rootsig::layout::ArgStore;

/// The thread groups a corpus shader's dispatch runs: one, as the tests they come from
/// dispatch them (several index groupshared memory by `SV_DispatchThreadID`).
pub const GROUPS: [u32; 3] = [1, 1, 1];

fn vk_format(f: TexelFormat) -> vk::Format {
    use vk::Format as F;
    if f.bits == 16 {
        return match (f.kind, f.comps) {
            (CompKind::Sint, 1) => F::R16_SINT,
            (CompKind::Sint, 2) => F::R16G16_SINT,
            (CompKind::Sint, _) => F::R16G16B16A16_SINT,
            (_, 1) => F::R16_UINT,
            (_, 2) => F::R16G16_UINT,
            (_, _) => F::R16G16B16A16_UINT,
        };
    }
    match (f.kind, f.comps) {
        (CompKind::Uint, 1) => F::R32_UINT,
        (CompKind::Uint, 2) => F::R32G32_UINT,
        (CompKind::Uint, 3) => F::R32G32B32_UINT,
        (CompKind::Sint, 3) => F::R32G32B32_SINT,
        (CompKind::Float, 3) => F::R32G32B32_SFLOAT,
        (CompKind::Uint, _) => F::R32G32B32A32_UINT,
        (CompKind::Sint, 1) => F::R32_SINT,
        (CompKind::Sint, 2) => F::R32G32_SINT,
        (CompKind::Sint, _) => F::R32G32B32A32_SINT,
        (CompKind::Depth, _) => F::D32_SFLOAT,
        (CompKind::Float, 1) => F::R32_SFLOAT,
        (CompKind::Float, 2) => F::R32G32_SFLOAT,
        (CompKind::Float, _) => F::R32G32B32A32_SFLOAT,
    }
}

/// The runner's description of an input.
pub fn case_resource(i: &Input) -> CaseResource {
    let reg = Reg { class: i.class, space: i.space, register: i.register };
    let kind = match &i.kind {
        ResKind::Cbuffer => Kind::Cbv(i.bytes.clone()),
        ResKind::Raw | ResKind::Structured { .. } => Kind::Buffer(i.bytes.clone()),
        ResKind::Typed { format } => Kind::Typed { format: vk_format(*format), bytes: i.bytes.clone() },
        ResKind::Texture { dim, format, extent } => {
            let (d, ext, layers, arrayed) = match dim {
                TexDim::D1 => (ImageDim::D1, [extent[0], 1, 1], 1, false),
                TexDim::D1Array => (ImageDim::D1, [extent[0], 1, 1], extent[2], true),
                TexDim::D2 => (ImageDim::D2, [extent[0], extent[1], 1], 1, false),
                TexDim::D2Array => (ImageDim::D2, [extent[0], extent[1], 1], extent[2], true),
                TexDim::D3 => (ImageDim::D3, *extent, 1, false),
            };
            Kind::Texture(Image {
                dim: d,
                format: vk_format(*format),
                extent: ext,
                layers,
                arrayed,
                bytes: i.bytes.clone(),
            })
        }
        ResKind::Sampler { compare, .. } => Kind::Sampler(SamplerDesc {
            compare: compare.then_some(vk::CompareOp::LESS_OR_EQUAL),
            ..SamplerDesc::default()
        }),
    };
    CaseResource { reg, kind }
}

/// Dispatches `tr` over `inputs`; per input the bytes read back (`None`: not bound).
pub fn device_run(
    gpu: &mut Gpu,
    tr: &Translation,
    placement: &dyn Placement,
    inputs: &[Input],
    groups: [u32; 3],
    timeout: Duration,
) -> Result<Vec<Option<Vec<u8>>>, String> {
    let mut bindings: Vec<Binding> = Vec::new();
    let mut back = Vec::new();
    let mut push = placement.base_push_constants(tr);
    let (heap_set, sampler_heap_set) = super::heap_sets::heap_sets(&tr.words);
    for i in inputs {
        let cr = case_resource(i);
        let placed = if i.space >= HEAP_SPACE {
            // A descriptor-heap element (`interp::heap`): element `register` of the heap
            // array at binding `space - HEAP_SPACE` (samplers: the sampler heap's binding 0).
            let (set, binding) =
                if i.space == HEAP_SAMPLER_SPACE { (sampler_heap_set, 0) } else { (heap_set, i.space - HEAP_SPACE) };
            match set {
                Some(set) => {
                    if i.has_counter {
                        // Its counter: element `register` of the heap's counter array
                        // (binding 6: `rootsig::layout::heap_resource_binding`), from 0.
                        let counter = crate::vulkan::Resource::StorageBuffer(vec![0; 4]);
                        bindings.push(Binding { set, binding: 6, element: i.register, resource: counter });
                    }
                    let resource = default_resource(cr.reg.class, &cr.kind);
                    Placed::Binding(Binding { set, binding, element: i.register, resource })
                }
                None => Placed::Unused,
            }
        } else {
            placement.place(tr, &cr).map_err(|e| format!("placing {}: {e}", cr.reg))?
        };
        match placed {
            Placed::Unused => back.push(None),
            Placed::Binding(mut b) => {
                b.resource = default_resource(cr.reg.class, &cr.kind);
                back.push(Some(bindings.len()));
                let (first, element) = (i.register - b.element, b.element);
                bindings.push(b);
                if i.has_counter && i.space < HEAP_SPACE {
                    // The counter: a `{ uint }` storage buffer at 4000 + the range's first
                    // register in the UAV's space (the default model), starting at 0 as
                    // the interpreter's does.
                    bindings.push(Binding {
                        set: i.space,
                        binding: untangle::emit::binding_model::COUNTER_BASE + first,
                        element,
                        resource: crate::vulkan::Resource::StorageBuffer(vec![0; 4]),
                    });
                }
            }
            Placed::RootBytes { store: ArgStore::PushConstants, offset, len } => {
                let mut b = i.bytes.clone();
                b.resize(len as usize, 0);
                let end = offset as usize + b.len();
                if push.len() < end {
                    push.resize(end, 0);
                }
                push[offset as usize..end].copy_from_slice(&b);
                back.push(None);
            }
            Placed::RootBytes { .. } | Placed::DeviceBuffer { .. } => {
                return Err("root argument buffers and device-address buffers are not used here".into())
            }
        }
    }
    let d = Dispatch {
        spirv: &tr.words,
        entry: &tr.entry_point,
        bindings,
        push_constants: push,
        device_buffers: Vec::new(),
        min_counts: placement.min_counts(tr),
        groups,
        timeout,
    };
    let r = gpu.dispatch(&d).map_err(|e| e.to_string())?;
    Ok(back.into_iter().map(|b| b.and_then(|j| r.resources[j].bytes().map(<[u8]>::to_vec))).collect())
}

/// What happened to one shader.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Not run, and why (an operation the interpreter lacks, a resource kind, a device
    /// limit, a translation failure).
    LeftOut(String),
    Ran(RanReport),
}

#[derive(Clone, Debug, Default)]
pub struct RanReport {
    /// Seeds whose outputs were compared.
    pub seeds: u32,
    /// Seeds skipped because D3D leaves the run undefined (with the first reason).
    pub indeterminate: u32,
    pub first_indeterminate: Option<String>,
    pub counts: Counts,
    /// `(seed, mismatch)`, at most a few per seed.
    pub mismatches: Vec<(u64, Mismatch)>,
    /// Seeds with at least one mismatch.
    pub failing_seeds: Vec<u64>,
    /// A device or harness error (the shader counts as failing).
    pub error: Option<String>,
}

impl RanReport {
    pub fn passed(&self) -> bool {
        self.failing_seeds.is_empty() && self.error.is_none()
    }
}

/// The descriptors the harness may bind on this device.
pub fn budget(gpu: &Gpu) -> inputs::Budget {
    inputs::Budget::from_limits(gpu.info().features.per_stage_descriptors)
}

/// Why a device cannot run `p` at its subgroup size, if it cannot.
pub fn device_gap(p: &Program, gpu: &Gpu) -> Option<String> {
    let f = &gpu.info().features;
    // `Program` analyses its module fully (`dxil::analyze`): the operations are counted.
    let ops = p.info.ops.as_deref().expect("a program's operations are counted");
    let wave_dependent = ops
        .iter()
        .any(|u| u.op.and_then(untangle::dxil::DxOp::from_name).is_some_and(|op| op.is_wave_op() || op.is_quad_op()));
    // A required wave size matters only to a shader whose results depend on the wave.
    if let (Some(w), true) = (p.entry.properties.wave_size, wave_dependent) {
        if f.subgroup_size < w.min || f.subgroup_size > w.max.max(w.min) {
            return Some(format!("wave size {}..{} (device subgroup size {})", w.min, w.max, f.subgroup_size));
        }
    }
    let derivatives = ops.iter().any(|u| {
        u.op.and_then(untangle::dxil::DxOp::from_name).is_some_and(|op| {
            use untangle::dxil::DxOp::*;
            matches!(op, DerivCoarseX | DerivCoarseY | DerivFineX | DerivFineY | Sample | SampleBias | CalculateLOD)
        })
    });
    if derivatives && !f.compute_derivatives {
        return Some("compute-shader derivatives need VK_KHR_compute_shader_derivatives".into());
    }
    if !f.descriptor_indexing && p.info.resources.iter().any(|r| r.range_size.is_none()) {
        return Some("unbounded resource arrays need descriptor indexing".into());
    }
    None
}

/// Inputs for the declared resources and the descriptor-heap arrays `p` reads.
pub fn all_inputs(p: &Program, seed: u64, budget: inputs::Budget) -> Result<Vec<Input>, crate::interp::Unsupported> {
    let mut ins = inputs::inputs(&p.info.resources, seed, budget)?;
    let views = p.heap_views().map_err(crate::interp::Unsupported)?;
    if !views.is_empty() && seed % 2 == 1 {
        // Heap indices mostly come from constant buffers: every other seed makes their
        // words small (0-7), so that computed indices land on bound descriptors.
        for i in ins.iter_mut().filter(|i| i.kind == ResKind::Cbuffer) {
            inputs::small_words(&mut i.bytes, seed);
        }
    }
    ins.extend(inputs::heap_inputs(&views, &p.info.resources, seed, budget, p.uses_counters())?);
    Ok(ins)
}

/// The translation as the device can bind it: heap sets moved below 8 where the device
/// binds few sets (no descriptor indexing: lavapipe).
fn fit_to_device(gpu: &Gpu, tr: &Translation) -> Option<Translation> {
    if gpu.info().features.descriptor_indexing {
        return None;
    }
    let mut t = tr.clone();
    super::heap_sets::move_heap_sets(&mut t.words).then_some(t)
}

/// Runs one translated program over `seeds` seeds; `sabotage` breaks the translation on
/// purpose ([`Sabotage`]).
#[allow(clippy::too_many_arguments)]
pub fn run_program(
    gpu: &mut Gpu,
    module: &Module,
    tr: &Translation,
    placement: &dyn Placement,
    seeds: std::ops::Range<u64>,
    groups: [u32; 3],
    timeout: Duration,
    sabotage: Option<Sabotage>,
) -> Outcome {
    let broken;
    let tr = match sabotage {
        Some(s) => {
            let mut t = tr.clone();
            s.apply(&mut t.words);
            broken = t;
            &broken
        }
        None => tr,
    };
    let fitted = fit_to_device(gpu, tr);
    let tr = fitted.as_ref().unwrap_or(tr);
    let p = match Program::new(module) {
        Ok(p) => p,
        Err(e) => return Outcome::LeftOut(e.0),
    };
    if let Some(gap) = device_gap(&p, gpu) {
        return Outcome::LeftOut(gap);
    }
    let wave = gpu.info().features.subgroup_size.max(1);
    let mut rep = RanReport::default();
    for seed in seeds {
        let ins = match all_inputs(&p, seed, budget(gpu)) {
            Ok(i) => i,
            Err(e) => return Outcome::LeftOut(e.0),
        };
        let want = match reference_variants(&p, &inputs::to_interp(&ins), wave, groups) {
            Ok(w) => w,
            Err(RunError::Indeterminate(why)) | Err(RunError::Limit(why)) => {
                rep.indeterminate += 1;
                rep.first_indeterminate.get_or_insert(why);
                continue;
            }
            Err(RunError::Internal(why)) => {
                rep.error = Some(format!("seed {seed}: interpreter: {why}"));
                return Outcome::Ran(rep);
            }
        };
        let got = match device_run(gpu, tr, placement, &ins, groups, timeout) {
            Ok(g) => g,
            Err(e) if e.contains("vkCreateComputePipelines") && rep.seeds == 0 => {
                return Outcome::LeftOut(format!("the device cannot compile it: {e}"));
            }
            Err(e) => {
                rep.error = Some(format!("seed {seed}: device: {e}"));
                return Outcome::Ran(rep);
            }
        };
        let (bad, counts) = compare_variants(&want, &got);
        rep.seeds += 1;
        rep.counts.compared += counts.compared;
        rep.counts.skipped += counts.skipped;
        if !bad.is_empty() {
            rep.failing_seeds.push(seed);
            rep.mismatches.extend(bad.into_iter().take(4).map(|m| (seed, m)));
        }
    }
    Outcome::Ran(rep)
}

/// A corpus shader (container bytes): load, translate with the default placement, run.
pub fn run_shader_bytes(
    gpu: &mut Gpu,
    bytes: &[u8],
    seeds: std::ops::Range<u64>,
    timeout: Duration,
    sabotage: Option<Sabotage>,
) -> Outcome {
    let placement = crate::vulkan::corpus::DefaultPlacement;
    let mut loaded = match untangle::front::load_bytes(bytes.to_vec(), "shader") {
        Ok(l) => l,
        Err(e) => return Outcome::LeftOut(format!("load: {e}")),
    };
    if !gpu.info().features.descriptor_indexing {
        // No runtime descriptor arrays: bound the ranges to what the harness binds.
        inputs::bound_unbounded_ranges(&mut loaded.module, budget(gpu));
    }
    let mut options = match placement.options(bytes) {
        Ok(o) => o,
        Err(e) => return Outcome::LeftOut(format!("options: {e}")),
    };
    // The interpreter reconverges at merges, as D3D drivers do; ask the device to.
    options.maximal_reconvergence = gpu.info().features.maximal_reconvergence;
    options.float_controls2 = gpu.info().features.float_controls2;
    let tr = match untangle::translate_module(&loaded.module, &options) {
        Ok(t) => t,
        Err(e) => return Outcome::LeftOut(format!("translate: {e}")),
    };
    run_program(gpu, &loaded.module, &tr, &placement, seeds, GROUPS, timeout, sabotage)
}

/// The compute shaders of a corpus folder (`*.cs_*.dxil`), sorted by name.
pub fn corpus_files(dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut v: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains(".cs_") && n.ends_with(".dxil")))
        .collect();
    v.sort();
    Ok(v)
}

/// Runs every file with seeds `seeds`; `each` sees every result as it comes.
pub fn run_corpus(
    gpu: &mut Gpu,
    files: &[std::path::PathBuf],
    seeds: std::ops::Range<u64>,
    timeout: Duration,
    sabotage: Option<Sabotage>,
    mut each: impl FnMut(&str, &Outcome),
) -> Vec<(String, Outcome)> {
    let mut out = Vec::new();
    for f in files {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let device = gpu.info().name.clone();
        let outcome = match std::fs::read(f) {
            _ if super::known::device_crash(&device, &name).is_some() => {
                let k = super::known::device_crash(&device, &name).expect("checked");
                Outcome::LeftOut(format!("device crash: {}", k.why))
            }
            Ok(bytes) => run_shader_bytes(gpu, &bytes, seeds.clone(), timeout, sabotage),
            Err(e) => Outcome::LeftOut(format!("read: {e}")),
        };
        each(&name, &outcome);
        out.push((name, outcome));
    }
    out
}

/// One line per shader and a closing count, for logs and the device report.
pub fn outcome_line(name: &str, o: &Outcome) -> String {
    match o {
        Outcome::LeftOut(why) => format!("left out  {name}: {why}"),
        Outcome::Ran(r) => {
            let known = super::known::known_mismatch(name);
            let status = match (r.passed(), known) {
                (true, _) => "pass",
                (false, Some(_)) => "known",
                (false, None) => "FAIL",
            };
            let mut s = format!(
                "{status:9} {name}: {} seeds ({} indeterminate), {} words compared, {} open",
                r.seeds, r.indeterminate, r.counts.compared, r.counts.skipped
            );
            if let Some(e) = &r.error {
                s.push_str(&format!("\n    error: {e}"));
            }
            if let (false, Some(k)) = (r.passed(), known) {
                s.push_str(&format!("\n    known ({}): {}", k.side, k.why));
            }
            for (seed, m) in r.mismatches.iter().take(6) {
                s.push_str(&format!("\n    seed {seed}: {m}"));
            }
            if r.indeterminate > 0 {
                if let Some(w) = &r.first_indeterminate {
                    s.push_str(&format!("\n    indeterminate: {w}"));
                }
            }
            s
        }
    }
}

/// Totals of a generated-program run.
#[derive(Clone, Debug, Default)]
pub struct GenSummary {
    pub programs: u64,
    pub passed: u64,
    /// Programs whose every input was indeterminate (nothing compared).
    pub indeterminate: u64,
    /// Programs the translator rejected (`seed: error`).
    pub untranslated: Vec<(u64, String)>,
    /// Programs the interpreter rejected.
    pub left_out: Vec<(u64, String)>,
    /// Programs with a mismatch or a device error (`seed`, report line).
    pub failed: Vec<(u64, String)>,
    pub words_compared: usize,
}

/// Generates programs `seeds` ([`crate::fuzzing::shader_gen`]), translates each and runs it
/// on `inputs` random input seeds; `each` sees every program's outcome line.
pub fn run_generated(
    gpu: &mut Gpu,
    seeds: std::ops::Range<u64>,
    inputs: u64,
    timeout: Duration,
    sabotage: Option<Sabotage>,
    each: impl FnMut(u64, &str),
) -> GenSummary {
    run_generated_with(gpu, Default::default(), seeds, inputs, timeout, sabotage, each)
}

/// [`run_generated`] of programs generated under `config` (long vectors, say).
pub fn run_generated_with(
    gpu: &mut Gpu,
    config: crate::fuzzing::shader_gen::Config,
    seeds: std::ops::Range<u64>,
    inputs: u64,
    timeout: Duration,
    sabotage: Option<Sabotage>,
    mut each: impl FnMut(u64, &str),
) -> GenSummary {
    let mut s = GenSummary::default();
    let placement = crate::vulkan::corpus::DefaultPlacement;
    for seed in seeds {
        s.programs += 1;
        let m = crate::fuzzing::shader_gen::generate_with(seed, config);
        let options = untangle::Options {
            maximal_reconvergence: gpu.info().features.maximal_reconvergence,
            float_controls2: gpu.info().features.float_controls2,
            ..Default::default()
        };
        let tr = match untangle::translate_module(&m, &options) {
            Ok(t) => t,
            Err(e) => {
                each(seed, &format!("untranslated: {e}"));
                s.untranslated.push((seed, e.to_string()));
                continue;
            }
        };
        let o = run_program(gpu, &m, &tr, &placement, 0..inputs, [1, 1, 1], timeout, sabotage);
        let line = outcome_line(&format!("gen-{seed}"), &o);
        match &o {
            Outcome::LeftOut(why) => s.left_out.push((seed, why.clone())),
            Outcome::Ran(r) if !r.passed() => s.failed.push((seed, line.clone())),
            Outcome::Ran(r) if r.seeds == 0 => s.indeterminate += 1,
            Outcome::Ran(r) => {
                s.passed += 1;
                s.words_compared += r.counts.compared;
            }
        }
        each(seed, &line);
    }
    s
}

/// Every word where the device differs from the interpreter for input `seed` (no cap),
/// or why nothing was compared.
pub fn all_mismatches(
    gpu: &mut Gpu,
    module: &Module,
    tr: &Translation,
    placement: &dyn Placement,
    seed: u64,
    groups: [u32; 3],
    timeout: Duration,
) -> Result<(Vec<Mismatch>, Counts), String> {
    let p = Program::new(module).map_err(|e| format!("left out: {}", e.0))?;
    if let Some(gap) = device_gap(&p, gpu) {
        return Err(format!("left out: {gap}"));
    }
    let wave = gpu.info().features.subgroup_size.max(1);
    let ins = all_inputs(&p, seed, budget(gpu)).map_err(|e| format!("left out: {}", e.0))?;
    let want = reference_variants(&p, &inputs::to_interp(&ins), wave, groups).map_err(|e| e.to_string())?;
    let fitted = fit_to_device(gpu, tr);
    let got = device_run(gpu, fitted.as_ref().unwrap_or(tr), placement, &ins, groups, timeout)?;
    Ok(compare_variants(&want, &got))
}

/// A mismatch shrunk by [`super::reduce`]: the small program and both results.
pub struct Reduced {
    pub module: Module,
    pub stats: super::reduce::Stats,
    /// The words that differ on the reduced program.
    pub mismatches: Vec<Mismatch>,
}

impl Reduced {
    /// The report: sizes, the program as text, and every differing word.
    pub fn report(&self) -> String {
        let s = &self.stats;
        let mut out = format!(
            "reduced in {} tests: {} → {} instructions, {} → {} blocks\n",
            s.tests, s.insts_before, s.insts_after, s.blocks_before, s.blocks_after
        );
        out.push_str(&crate::fuzzing::shader_gen::dump(&self.module));
        for m in &self.mismatches {
            out.push_str(&format!("\n{m}"));
        }
        out.push('\n');
        out
    }
}

/// The words where `m`, translated with `options` (and broken by `sabotage`), differs from
/// the interpreter on input `seed`; `None` when nothing can be compared (no translation,
/// an indeterminate or failing interpreter run, a device error).
#[allow(clippy::too_many_arguments)]
pub fn differing_words(
    gpu: &mut Gpu,
    m: &Module,
    options: &untangle::emit::translate::Options,
    placement: &dyn Placement,
    seed: u64,
    groups: [u32; 3],
    timeout: Duration,
    sabotage: Option<Sabotage>,
) -> Option<Vec<Mismatch>> {
    let mut tr = untangle::translate_module(m, options).ok()?;
    if let Some(s) = sabotage {
        s.apply(&mut tr.words);
    }
    all_mismatches(gpu, m, &tr, placement, seed, groups, timeout).ok().map(|(bad, _)| bad)
}

/// Shrinks `m` while the device still differs from the interpreter on input `seed`
/// (at most `budget` device runs); `None` when it does not differ to begin with.
#[allow(clippy::too_many_arguments)]
pub fn reduce_mismatch(
    gpu: &mut Gpu,
    m: &Module,
    options: &untangle::emit::translate::Options,
    placement: &dyn Placement,
    seed: u64,
    groups: [u32; 3],
    timeout: Duration,
    sabotage: Option<Sabotage>,
    budget: usize,
) -> Option<Reduced> {
    let mut differs = |c: &Module| differing_words(gpu, c, options, placement, seed, groups, timeout, sabotage);
    differs(m).filter(|b| !b.is_empty())?;
    let (module, stats) = super::reduce::reduce(m, |c| differs(c).is_some_and(|b| !b.is_empty()), budget);
    let mismatches = differs(&module).unwrap_or_default();
    Some(Reduced { module, stats, mismatches })
}
