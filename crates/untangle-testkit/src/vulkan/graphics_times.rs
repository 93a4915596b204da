//! GPU execution time and driver pipeline-creation time of the graphics runner's corpus
//! pipelines ([`super::graphics_cases::cases`]), every stage from untangle against every
//! stage from the reference translator: what `untangle-gpu gpu-times --graphics` and
//! `pipeline-times --graphics` measure (issue 36 part 3).
//!
//! # The two sides of a case ([`pair_case`])
//! * untangle: the case's stages as the runner translates them
//!   ([`super::graphics_cases::translate_case`], the case's own stage options: remapping
//!   hooks, view instancing, per-primitive inputs, output swizzles, which the command line
//!   cannot express), with `min16float` computed in 32 bits as the reference does by default
//!   (`tools/bench-reference.py` gives the command line `--min-precision-32bit` for the same
//!   reason);
//! * the reference: `DIR/<file>.spv` for each of the case's files, as
//!   `tools/bench-reference.py --pipeline-modules OUT` writes them into `OUT/graphics/r`
//!   (dxil-spirv through `reference-time --remap`: resources placed as untangle places
//!   them, stage interfaces by its own rule, no stage options).
//!
//! Both draws are the case's own ([`super::graphics_cases::Spec`]): topology, vertices,
//! constant buffers (tessellation factors among them), UAV and SRV contents, targets,
//! samples, layers, view mask, specialization constants, with the buffers at the places
//! untangle's resource rows give, and the targets scaled ([`scaled`]). Nothing is compared
//! with the case's probes: a case marked as a known failure is timed all the same.
//!
//! A case is skipped with its reason ([`Skip`]) where its stage options change what a stage
//! computes (view instancing, output swizzles: [`computing_options`]), where a reference
//! module is missing (the
//! reference refused the file), is of another stage than the file name says, where adjacent
//! stages of either side do not link ([`crate::check::stage_link`]; a vector output read by
//! a scalar input is accepted as drivers accept it), or where either side's stages declare a
//! binding that the case does not bind with that descriptor type (a layout without it would
//! make pipeline creation invalid). The device's missing features are the caller's check
//! ([`super::graphics_cases::Needs::missing`]).
//!
//! # Timing
//! * Execution ([`Gpu::prepare_draw_bench`]): the pipeline, buffers, attachments and a
//!   command buffer are made once; the command buffer moves the attachments to
//!   `COLOR_ATTACHMENT_OPTIMAL`, begins the rendering (clears), writes timestamp 0, records
//!   the case's draw `draws` times, ends the rendering (resolves, stores) and writes
//!   timestamp 1; [`Gpu::run_bench`] submits it and returns the time between the
//!   timestamps. Buffers are the runner's host-visible ones on both sides.
//! * Creation ([`Gpu::time_draw_pipeline_creation`]): `vkCreateShaderModule` of every stage
//!   plus `vkCreateGraphicsPipelines` (no cache), each stage's words given a fresh nonce
//!   ([`super::pipeline_times::with_nonce`]) so that no driver cache answers; the layout is
//!   made before the clock starts.
//!
//! Cost: per case and side, one pipeline, its buffers and its attachments (an RGBA32F
//! target of 1024² is 16 MiB, multisampled ×4).

use super::gpu_times::Bench;
use super::graphics::{Draw, StageModule};
use super::graphics_cases::{bind_spec, stage_of, translate_case, Case, Tweak};
use super::pipeline_times::{first_entry_point, reflect_bindings, with_nonce};
use super::{vkr, Gpu, Scratch, VkError};
use crate::check::stage_link::{link, LinkError, StageIo};
use ash::vk;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// Why a case has no pair to time (module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skip(pub String);

/// `d` with its targets at least `extent` pixels wide: width, height and every viewport
/// rectangle multiplied by the same whole factor (`extent / width` rounded up, at least 1), so
/// that clip-space geometry covers the same fraction of the target and viewports keep their
/// places relative to it.
pub fn scaled(d: &Draw, extent: u32) -> Draw {
    let k = extent.div_ceil(d.width.max(1)).max(1);
    Draw {
        width: d.width * k,
        height: d.height * k,
        viewports: d.viewports.iter().map(|v| v.map(|x| x * k)).collect(),
        ..d.clone()
    }
}

/// The SPIR-V execution model of a stage's file-name suffix (`vs`, `hs`, …).
fn execution_model(stage: &str) -> Option<u32> {
    Some(match stage {
        "vs" => 0,
        "hs" => 1,
        "ds" => 2,
        "gs" => 3,
        "ps" => 4,
        "as" => 5364,
        "ms" => 5365,
        _ => return None,
    })
}

/// The reference's stages of `case`: `DIR/<file>.spv` for each file, checked to be of the
/// file's stage.
pub fn reference_stages(case: &Case, dir: &Path, ours: &[StageModule]) -> Result<Vec<StageModule>, Skip> {
    let mut out = Vec::new();
    for (file, own) in case.files.iter().zip(ours) {
        let path = dir.join(format!("{file}.spv"));
        let bytes = std::fs::read(&path).map_err(|_| Skip(format!("the reference refused {file} (no {file}.spv)")))?;
        if bytes.len() % 4 != 0 || bytes.len() < 20 {
            return Err(Skip(format!("{}: not a SPIR-V module", path.display())));
        }
        let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let want = stage_of(file).and_then(execution_model);
        let (model, entry) =
            first_entry_point(&words).ok_or_else(|| Skip(format!("{}: no entry point", path.display())))?;
        if Some(model) != want {
            return Err(Skip(format!("the reference's {file} is of execution model {model}, not {want:?}")));
        }
        out.push(StageModule { stage: own.stage, words, entry });
    }
    Ok(out)
}

/// Why a case has no comparable pair: its stage options change what a stage computes
/// (view instancing, output swizzles), which the reference, given no options, does not.
/// Options that only place the interface (remapping hooks, per-primitive inputs) are left to
/// the link check.
pub fn computing_options(case: &Case) -> Option<String> {
    let options = case.stage_options.map(|f| f()).unwrap_or_default();
    options.iter().find_map(|(stage, o)| {
        let what = if o.view_instancing.is_some() {
            "view instancing"
        } else if !o.output_swizzles.is_empty() {
            "output swizzles"
        } else {
            return None;
        };
        Some(format!("its {stage} is translated with {what}, which the reference is not given"))
    })
}

/// Checks that adjacent stages link (a task shader's payload is not a `Location`
/// interface: its pair is not checked); `side` names them in the reason.
pub fn check_links(stages: &[StageModule], side: &str) -> Result<(), Skip> {
    for pair in stages.windows(2) {
        if pair[0].stage == vk::ShaderStageFlags::TASK_EXT {
            continue;
        }
        let io = |m: &StageModule| StageIo::from_words(&m.words).map_err(|e| Skip(format!("{side}: {e}")));
        let errors: Vec<LinkError> = link(&io(&pair[0])?, &io(&pair[1])?)
            .into_iter()
            .filter(|e| !matches!(e, LinkError::NarrowedToScalar { .. }))
            .collect();
        if let Some(e) = errors.first() {
            return Err(Skip(format!(
                "{side}'s {:?} and {:?} stages do not link ({} mismatches, first: {e:?})",
                pair[0].stage,
                pair[1].stage,
                errors.len()
            )));
        }
    }
    Ok(())
}

/// Checks that every binding the stages declare is one of the draw's buffers, of the same
/// descriptor type and a single descriptor.
pub fn check_bindings(d: &Draw, side: &str) -> Result<(), Skip> {
    let bound: BTreeMap<(u32, u32), vk::DescriptorType> = d
        .buffers
        .iter()
        .map(|b| {
            let ty = if b.storage { vk::DescriptorType::STORAGE_BUFFER } else { vk::DescriptorType::UNIFORM_BUFFER };
            ((b.set, b.binding), ty)
        })
        .collect();
    for m in &d.stages {
        let sets = reflect_bindings(&m.words).ok_or_else(|| Skip(format!("{side}: a malformed module")))?;
        for (set, bindings) in sets {
            for (binding, (ty, count)) in bindings {
                if bound.get(&(set, binding)) != Some(&ty) || count != 1 {
                    return Err(Skip(format!(
                        "{side}'s {:?} stage declares set {set} binding {binding} ({count} × {ty:?}), which the case does not bind so",
                        m.stage
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The two draws of a case, untangle's and the reference's (module documentation), scaled
/// to `extent`; `Err` when the case has no pair to time, with the reason.
pub fn pair_case(case: &Case, corpus_dir: &Path, reference_dir: &Path, extent: u32) -> Result<[Draw; 2], Skip> {
    if let Some(why) = computing_options(case) {
        return Err(Skip(why));
    }
    let tweak = Tweak { min_precision: Some(untangle::MinPrecision::Float32), ..Default::default() };
    let (ours, rows) = translate_case(case, corpus_dir, &tweak).map_err(|e| Skip(format!("untangle: {e}")))?;
    let reference = reference_stages(case, reference_dir, &ours)?;
    let mut spec = (case.spec)();
    bind_spec(&mut spec, &rows).map_err(Skip)?;
    let draw = scaled(&spec.draw, extent);
    let mut sides = [Draw { stages: ours, ..draw.clone() }, Draw { stages: reference, ..draw }];
    for (d, side) in sides.iter_mut().zip(["untangle", "the reference"]) {
        check_links(&d.stages, side)?;
        check_bindings(d, side)?;
    }
    Ok(sides)
}

impl Gpu {
    /// The draw's pipeline and resources with a command buffer that records `draws` draws
    /// between two timestamps (module documentation); [`Gpu::run_bench`] runs it,
    /// [`Gpu::release_bench`] destroys it.
    pub fn prepare_draw_bench(&mut self, d: &Draw, draws: u32, timeout: Duration) -> Result<Bench, VkError> {
        if self.poisoned {
            return Err(VkError::Poisoned);
        }
        if self.timestamps.valid_bits == 0 {
            return Err(VkError::BadLayout("the queue has no timestamps (timestampValidBits 0)".into()));
        }
        self.check_draw(d)?;
        let mut s = Scratch::default();
        match self.prepare_draw_in(d, draws, &mut s) {
            Ok((cb, queries)) => {
                let label = format!("gpu-times of a {}-stage draw", d.stages.len());
                Ok(Bench { scratch: s, cb, queries, timeout, label })
            }
            Err(e) => {
                self.release_scratch(s);
                Err(e)
            }
        }
    }

    fn prepare_draw_in(
        &mut self,
        d: &Draw,
        draws: u32,
        s: &mut Scratch,
    ) -> Result<(vk::CommandBuffer, vk::QueryPool), VkError> {
        // SAFETY (this block): create infos outlive each call; every object is recorded in `s`.
        unsafe {
            let r = self.draw_resources(d, s)?;
            let pipeline = self.draw_pipeline(d, r.layout, s)?;
            let a = self.draw_attachments(d, s)?;
            let dev = &self.device;
            let qinfo = vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(2);
            let queries = dev.create_query_pool(&qinfo, None).map_err(vkr("vkCreateQueryPool"))?;
            s.query_pools.push(queries);
            let alloc = vk::CommandBufferAllocateInfo::default()
                .command_pool(self.pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            let cb = dev.allocate_command_buffers(&alloc).map_err(vkr("vkAllocateCommandBuffers"))?[0];
            s.command_buffers.push((self.pool, cb));
            dev.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .map_err(vkr("vkBeginCommandBuffer"))?;
            dev.cmd_reset_query_pool(cb, queries, 0, 2);
            self.record_pass(cb, d, pipeline, &r, &a, draws.max(1), Some(queries));
            dev.end_command_buffer(cb).map_err(vkr("vkEndCommandBuffer"))?;
            Ok((cb, queries))
        }
    }

    /// Times the creation of the draw's pipeline: every stage's `vkCreateShaderModule` and
    /// `vkCreateGraphicsPipelines`, each stage's words given `nonce` first (module
    /// documentation).
    pub fn time_draw_pipeline_creation(&mut self, d: &Draw, nonce: u64) -> Result<Duration, VkError> {
        if self.poisoned {
            return Err(VkError::Poisoned);
        }
        self.check_draw(d)?;
        let fresh = Draw {
            stages: d.stages.iter().map(|m| StageModule { words: with_nonce(&m.words, nonce), ..m.clone() }).collect(),
            buffers: Vec::new(),
            ..d.clone()
        };
        let mut s = Scratch::default();
        // SAFETY: every object is recorded in `s`; nothing is submitted.
        let result = unsafe {
            self.draw_resources(d, &mut s).and_then(|r| {
                let start = Instant::now();
                self.draw_pipeline(&fresh, r.layout, &mut s)?;
                Ok(start.elapsed())
            })
        };
        self.release_scratch(s);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vulkan::graphics_cases::cases;
    use std::path::PathBuf;

    fn corpus() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton")
    }

    fn case(name: &str) -> Case {
        cases().into_iter().find(|c| c.name == name).expect("a runner case")
    }

    /// A folder holding untangle's own translations of `case`'s files (default options) as
    /// the reference's.
    fn reference_dir(case: &Case, tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("untangle-graphics-times-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (stages, _) = translate_case(case, &corpus(), &Tweak::default()).unwrap();
        for (file, m) in case.files.iter().zip(&stages) {
            let bytes: Vec<u8> = m.words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(dir.join(format!("{file}.spv")), bytes).unwrap();
        }
        dir
    }

    #[test]
    fn scaled_multiplies_extent_and_viewports_by_a_whole_factor() {
        let d = Draw { width: 8, height: 8, viewports: vec![[0, 0, 4, 8], [4, 0, 4, 8]], ..Default::default() };
        let s = scaled(&d, 1000);
        assert_eq!((s.width, s.height), (1000, 1000));
        assert_eq!(s.viewports, vec![[0, 0, 500, 1000], [500, 0, 500, 1000]]);
        // Never smaller than the case's own; rounded up to a whole factor.
        assert_eq!(scaled(&d, 4).width, 8);
        let narrow = Draw { width: 3, height: 3, ..Default::default() };
        assert_eq!((scaled(&narrow, 64).width, scaled(&narrow, 64).height), (66, 66));
    }

    #[test]
    fn pairs_every_stage_of_a_tessellation_case_with_its_reference_file() {
        let c = case("tess_quad_cw");
        let dir = reference_dir(&c, "pair");
        let [ours, reference] = pair_case(&c, &corpus(), &dir, 64).expect("pairs");
        let stages = |d: &Draw| d.stages.iter().map(|m| m.stage).collect::<Vec<_>>();
        assert_eq!(stages(&ours), stages(&reference));
        assert_eq!(reference.stages.len(), 4);
        assert_eq!(reference.stages[1].stage, vk::ShaderStageFlags::TESSELLATION_CONTROL);
        assert_eq!((ours.width, reference.width), (64, 64));
        // The same buffers on both sides (the hull shader's constant buffer of factors).
        assert_eq!(ours.buffers, reference.buffers);
        assert!(!ours.buffers.is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn skips_a_case_whose_reference_file_is_missing_or_of_another_stage() {
        let c = case("gs_points");
        let dir = reference_dir(&c, "skip");
        let gs = dir.join(format!("{}.spv", c.files[1]));
        let vs = std::fs::read(dir.join(format!("{}.spv", c.files[0]))).unwrap();
        std::fs::write(&gs, &vs).unwrap();
        let Skip(why) = pair_case(&c, &corpus(), &dir, 8).unwrap_err();
        assert!(why.contains("execution model 0"), "{why}");
        std::fs::remove_file(&gs).unwrap();
        let Skip(why) = pair_case(&c, &corpus(), &dir, 8).unwrap_err();
        assert!(why.contains("the reference refused"), "{why}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn skips_cases_whose_options_change_what_a_stage_computes() {
        for (name, what) in [("multiview_view_id", "view instancing"), ("ps_a8_swizzle", "output swizzles")] {
            let Skip(why) = pair_case(&case(name), &corpus(), Path::new("/nonexistent"), 8).unwrap_err();
            assert!(why.contains(what), "{name}: {why}");
        }
        // Remapping hooks only place the interface.
        assert_eq!(computing_options(&case("vs_ps_derivatives")), None);
        assert_eq!(computing_options(&case("as_ms_payload")), None);
    }

    #[test]
    fn skips_stages_that_do_not_link_or_bind_what_the_case_does_not() {
        // The vertex shader of one case before the pixel shader of another whose inputs it
        // does not write.
        let c = case("vs_ps_varying_mixed");
        let (stages, _) = translate_case(&c, &corpus(), &Tweak::default()).unwrap();
        let other = case("tess_control_point_phase");
        let (tess, _) = translate_case(&other, &corpus(), &Tweak::default()).unwrap();
        let Skip(why) = check_links(&[tess[0].clone(), stages[1].clone()], "the reference").unwrap_err();
        assert!(why.contains("do not link"), "{why}");
        check_links(&stages, "untangle").expect("the case's own stages link");
        // `vs_varying_mixed` reads a constant buffer: unbound, it is refused.
        let d = Draw { stages, ..Default::default() };
        let Skip(why) = check_bindings(&d, "untangle").unwrap_err();
        assert!(why.contains("does not bind"), "{why}");
    }
}
