//! Corpus graphics pipelines with expected pixels (issue 17 part 6): vkd3d-proton vertex,
//! hull, domain, geometry and pixel shaders from `../shared/corpus/dxil/vkd3d-proton`,
//! each translated on its own (as a layer translates them, no knowledge of the other
//! stages), linked into one Vulkan pipeline by the translator's location rule, drawn with
//! [`super::graphics`] and compared with pixels derived from what the shaders compute.
//!
//! Inputs (vertex positions, constant buffers, topology, culling, sample counts) are our own
//! choices; where a vkd3d-proton test states a result for the same shaders (its
//! `tests/d3d12_*.c`), the case keeps its setup and states the same outcome (noted per
//! case). Expectations are written per case as probes: a rectangle of pixels of one target
//! and the raw 32-bit words each of its texels must hold; storage buffers by word.
//!
//! | case | stages | checks |
//! | --- | --- | --- |
//! | `vs_ps_front_facing` | `vs_mismatch`, `ps_mismatch_7` | `SV_IsFrontFace` of a clockwise (front) and a counter-clockwise triangle, D3D winding through the flipped viewport |
//! | `vs_ps_primitive_id` | `vs_mismatch`, `ps_mismatch_sv_6` | `SV_PrimitiveID` (a built-in packed in a row with a flat varying), `arg2 + primid` per triangle |
//! | `vs_ps_nointerpolation` | `vs_mismatch`, `ps_mismatch_9` | a `nointerpolation` float reading one column of a float2 output |
//! | `vs_ps_uint_scalar` | `vs_mismatch`, `ps_mismatch_1` | a one-column `uint` input of a `uint4` output, 3 targets |
//! | `vs_ps_varying_mixed` | `vs_varying_mixed`, `ps_varying_mixed` | flat `uint` and `float` sharing one register, `SV_VertexID`, a VS constant buffer, provoking vertex |
//! | `vs_ps_export_coverage` | `vs_sample_mask`, `ps_export_coverage` | `SV_Coverage` output (mask 0b0101 of 4 samples), resolved to half intensity |
//! | `vs_ps_coverage_input` | `vs_sample_mask`, `ps_atoc` | `SV_Coverage` input at 4 samples selects a constant-buffer alpha |
//! | `vs_ps_sample_index` | `vs_sample_mask`, `ps_sample_mask66` | `SV_SampleIndex` (sample-rate shading), resolved |
//! | `vs_ps_sample_coverage` | the same | per-sample `SV_Coverage`, `IsHelperLane` + quad reads, a structured UAV written per sample and pixel (known failure) |
//! | `vs_ps_immediate_constants` | `vs_sample_mask`, `ps_immediate_constant_buffer` | static const arrays indexed by a constant-buffer value |
//! | `vs_ps_derivatives` | `vs_sample_cmp_grad_bias`, `ps_derivative_hoisting` | fine and coarse derivatives after a divergent early return, a UAV, a link through `IoRemap` |
//! | `tess_quad_cw` | `quad_tess_vs`, `quad_tess_hs_cw`, `quad_tess_ds`, `ps_mismatch_sv_4` | quad domain, factors from a HS constant buffer, `triangle_cw` kept by back-face culling (vkd3d-proton: drawn), patch index as `SV_PrimitiveID` (known failure) |
//! | `tess_quad_ccw` | … `quad_tess_hs_ccw` … | `triangle_ccw` is back-facing: culled under back-face culling (vkd3d-proton), so drawn here under front-face culling (known failure) |
//! | `tess_control_point_phase` | `quad_tess_vs`, `control_point_phase_hs`, `control_point_phase_ds`, `ps_green` | control points built by the HS from `SV_OutputControlPointID`, DS selecting one by `SV_DomainLocation` (vkd3d-proton: green screen) |
//! | `tess_fork_phase` | `fork_phase_vs`, `fork_phase_hs`, `dcl_index_range_ds`, `ps_mismatch_sv_4` | a 1-point input patch expanded to 4 control points, patch constants (with an extra `CENTER`) |
//! | `tess_index_range` | `dcl_index_range_vs_complex`, `dcl_index_range_hs_complex`, `dcl_index_range_ds`, `ps_green` | an input array `FROG[4]` indexed by a flat `SV_InstanceID` varying in the HS, 4 instances (vkd3d-proton: green screen) |
//! | `gs_points` | `vs_mismatch`, `gs_mismatch_ref`, `ps_mismatch_1` | triangle in, 3 points out: only the 3 vertex pixels drawn |
//! | `gs_primitive_id` | `vs_mismatch`, `gs_mismatch_primid`, `ps_mismatch_sv_3` | GS `SV_PrimitiveID` input written as an output, read by the PS |
//! | `gs_topology_point` | `vs_topology`, `gs_topology_point`, `ps_green` | point input, one pixel at the centre |
//! | `gs_topology_line` | `vs_topology`, `gs_topology_line`, `ps_green` | line input |
//! | `gs_topology_triangle_adj` | `vs_topology`, `gs_topology_triangle_adj`, `ps_green` | triangle-with-adjacency input (6 vertices), `maxvertexcount` 3 |
//! | `all_stages` | `vs_mismatch`, `hs_mismatch_ref`, `ds_mismatch_ref`, `gs_mismatch_ref`, `ps_mismatch_10` | vs → hs → ds → gs → ps: every tessellated vertex lands on one pixel, points are front-facing |
//!
//! Mesh pipelines (issue 18 part 3; `mesh_shader.*` amplification, mesh and pixel shaders,
//! the expected results of vkd3d-proton's `tests/d3d12_mesh_shader.c`):
//!
//! | case | stages | checks |
//! | --- | --- | --- |
//! | `as_ms_payload` | `as_simple`, `ms_payload`, `ps_color` | a payload from the amplification shader, a per-primitive colour |
//! | `as_ms_multi_workgroup` | `as_multi_workgroup`, `ms_multi_workgroup` | 4 task groups launching 1, 7, 0 and 32 mesh groups (counts from an SRV), `SV_GroupID` through the payload, no pixel shader |
//! | `ms_interface_matching` | `ms_interface_matching`, `ps_interface_matching` | per-vertex interpolated and flat, per-primitive colour and uint, a UAV |
//! | `ms_culling` | `ms_culling`, `ps_culling` | groupshared counter, dynamic primitive count, 4 groups, no target |
//! | `ms_cull_primitive` | `ms_cull_primitive`, `ps_culling` | `SV_CullPrimitive` |
//! | `ms_clip_distance_kept` / `_clipped` | `ms_clip_distance`, `ps_green` | `SV_ClipDistance` from a constant buffer (5: drawn, -1: clipped) |
//! | `ms_system_values` | `ms_system_values`, `ps_system_values` | per-primitive `SV_RenderTargetArrayIndex` (8 layers) and `SV_PrimitiveID` |
//!
//! View instancing and output swizzles (the options vkd3d-proton sets; their stages are
//! translated with the options a layer passes, `Case::stage_options`):
//!
//! | case | stages | checks |
//! | --- | --- | --- |
//! | `multiview_view_id` | `vs_view_id`, `ps_view_id` | two-view multiview; `SV_ViewID` through the `ViewIndex` map (swapped instances: each layer gets the other view's id and triangle) |
//! | `multiview_viewports` | the same | the instance's viewport written by the vertex shader from the viewport map |
//! | `ps_a8_swizzle` | `vs_mismatch`, `ps_render_a8` | `SV_Target0` stored through the A8 swizzle `(W, X, Y, Z)` |
//!
//! Each mesh case links its stages as a layer does (an `IoRemap` by semantic on the mesh and
//! pixel shaders, `Options::per_primitive_inputs` on the pixel shader) and checks the link
//! with [`crate::check::stage_link`] before drawing.
//!
//! Cases needing what the device lacks are skipped: the two sample-rate cases need quad
//! operations, the mesh cases `VK_EXT_mesh_shader` (lavapipe has none). Known failures (translator or driver faults, [`Case::known_failure`]) are
//! explained in `docs/graphics-runner.md`.

use super::graphics::{color_texel_size, BufferBinding, Draw, StageModule, Target};
use super::{Features, Gpu};
use ash::vk;
use std::path::Path;
use std::time::{Duration, Instant};
use untangle::dxil::ResourceClass;
use untangle::emit::binding_model::MappingRow;

/// Pixels of one target that must all hold `want` (raw words; as many as the format has
/// components).
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub target: usize,
    /// x0, y0, x1, y1 (exclusive ends).
    pub rect: [u32; 4],
    pub want: [u32; 4],
}

/// A draw without its stages and resources' places, with what it must produce.
#[derive(Clone, Debug)]
pub struct Spec {
    pub draw: Draw,
    /// Constant buffers by `b` register (space 0).
    pub cbvs: Vec<(u32, Vec<u8>)>,
    /// Structured or raw UAVs by `u` register (space 0), read back.
    pub uavs: Vec<(u32, Vec<u8>)>,
    /// Structured or raw buffer SRVs by `t` register (space 0), bound as storage buffers
    /// (the translator's buffer views of SRVs are read-only storage buffers).
    pub srvs: Vec<(u32, Vec<u8>)>,
    pub probes: Vec<Probe>,
    /// Per UAV (in `uavs` order) the words it must hold.
    pub uav_words: Vec<Vec<u32>>,
}

/// Optional device features a case needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    pub quad_in_fragment: bool,
    /// `VK_EXT_mesh_shader` (`taskShader`, `meshShader`): every mesh pipeline.
    pub mesh_shader: bool,
    /// `multiview`: draws with a view mask.
    pub multiview: bool,
    /// `multiViewport` and `shaderOutputViewportIndex`.
    pub multi_viewport: bool,
}

impl Needs {
    pub fn missing(&self, f: &Features) -> Option<String> {
        if self.mesh_shader && !f.mesh_shader {
            return Some("VK_EXT_mesh_shader (taskShader + meshShader), which this device lacks".to_string());
        }
        if self.multiview && !f.multiview {
            return Some("multiview".to_string());
        }
        if self.multi_viewport && !f.multi_viewport {
            return Some("multiViewport and shaderOutputViewportIndex".to_string());
        }
        (self.quad_in_fragment && f.subgroup_ops & vk::SubgroupFeatureFlags::QUAD.as_raw() == 0)
            .then(|| "quad subgroup operations".to_string())
    }
}

/// Translation options by stage (file-name suffix: `"ms"`, `"ps"`, …).
pub type StageOptions = Vec<(&'static str, untangle::Options)>;

/// One corpus pipeline.
#[derive(Clone, Copy)]
pub struct Case {
    pub name: &'static str,
    /// Files in `dxil/vkd3d-proton/`, in pipeline order; the stage is the name's
    /// `.<stage>_<major>_<minor>.dxil` suffix.
    pub files: &'static [&'static str],
    pub checks: &'static str,
    pub needs: Needs,
    pub spec: fn() -> Spec,
    /// A known fault (of the translator or of the driver) that makes this case fail today,
    /// and why. The case still runs: failing is reported as [`Outcome::KnownFailure`],
    /// passing is a failure ("passes now: drop the note"), so the note cannot outlive the
    /// fault.
    pub known_failure: Option<&'static str>,
    /// Options for stages (by file-name suffix), for a case that links through the
    /// remapping hook as a layer assigning locations itself would (and, for mesh
    /// pipelines, names the pixel shader's per-primitive inputs).
    pub stage_options: Option<fn() -> StageOptions>,
}

/// A change to a run that must make it fail (the self-checks).
#[derive(Clone, Default)]
pub struct Tweak {
    /// Translate the stage of this file-name suffix (`"ps"`) with these options (a
    /// remapping hook, say) instead of the defaults.
    pub stage_options: Option<(&'static str, untangle::Options)>,
    /// Flip bit 0 of the first probe's first word (of the first expected UAV word in a
    /// case without probes).
    pub perturb_expectation: bool,
    /// Translate every stage with this `min16float` lowering instead of its options' own
    /// (gpu-times: 32-bit, as the reference translator computes by default).
    pub min_precision: Option<untangle::MinPrecision>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Pass,
    Skipped(String),
    /// Failed as [`Case::known_failure`] says it does (the note, then the mismatch).
    KnownFailure(String),
    Fail(String),
}

#[derive(Clone, Debug)]
pub struct Report {
    pub name: &'static str,
    pub stages: String,
    pub outcome: Outcome,
    pub wall: Duration,
}

fn fb(v: f32) -> u32 {
    v.to_bits()
}
fn f4(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}
fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The stage suffix of a corpus file name (`vs`, `hs`, `ds`, `gs`, `ps`, `as`, `ms`).
pub fn stage_of(file: &str) -> Option<&str> {
    let stem = file.strip_suffix(".dxil")?;
    let last = stem.rsplit('.').next()?;
    let stage = last.split('_').next()?;
    matches!(stage, "vs" | "hs" | "ds" | "gs" | "ps" | "as" | "ms").then_some(stage)
}

fn vk_stage(stage: &str) -> vk::ShaderStageFlags {
    match stage {
        "vs" => vk::ShaderStageFlags::VERTEX,
        "hs" => vk::ShaderStageFlags::TESSELLATION_CONTROL,
        "ds" => vk::ShaderStageFlags::TESSELLATION_EVALUATION,
        "gs" => vk::ShaderStageFlags::GEOMETRY,
        "as" => vk::ShaderStageFlags::TASK_EXT,
        "ms" => vk::ShaderStageFlags::MESH_EXT,
        _ => vk::ShaderStageFlags::FRAGMENT,
    }
}

const CLEAR_F: f32 = 0.25;
const CLEAR_U: u32 = 0xDEAD_BEEF;

/// The three targets of the `*_mismatch` pixel shaders (vkd3d-proton's `test_pso_mismatch`
/// formats): RGBA32F, RG32F, RGBA32UI.
fn mismatch_targets() -> Vec<Target> {
    vec![
        Target { format: vk::Format::R32G32B32A32_SFLOAT, clear: [fb(CLEAR_F); 4] },
        Target { format: vk::Format::R32G32_SFLOAT, clear: [fb(CLEAR_F); 4] },
        Target { format: vk::Format::R32G32B32A32_UINT, clear: [CLEAR_U; 4] },
    ]
}

fn rgba32f(clear: f32) -> Vec<Target> {
    vec![Target { format: vk::Format::R32G32B32A32_SFLOAT, clear: [fb(clear); 4] }]
}

/// Two triangles covering an 8×8 target: 0 the top-left half, clockwise on screen (front
/// facing in D3D), 1 the bottom-right half, counter-clockwise.
fn halves() -> Vec<[f32; 4]> {
    vec![
        [-1.0, 1.0, 0.0, 1.0],
        [1.0, 1.0, 0.0, 1.0],
        [-1.0, -1.0, 0.0, 1.0],
        [1.0, 1.0, 0.0, 1.0],
        [-1.0, -1.0, 0.0, 1.0],
        [1.0, -1.0, 0.0, 1.0],
    ]
}
/// Pixels well inside triangle 0 and triangle 1 of [`halves`].
const HALF0: [u32; 4] = [0, 0, 3, 3];
const HALF1: [u32; 4] = [5, 5, 8, 8];
const ALL: [u32; 4] = [0, 0, 8, 8];

/// The clip-space position of pixel (x, y)'s centre in a `w`×`h` target (D3D: y up).
fn pixel(x: u32, y: u32, w: u32, h: u32) -> [f32; 4] {
    [(x as f32 + 0.5) * 2.0 / w as f32 - 1.0, 1.0 - (y as f32 + 0.5) * 2.0 / h as f32, 0.0, 1.0]
}

/// Probes of the three mismatch targets over `rect`.
fn mismatch_probes(rect: [u32; 4], c0: [f32; 4], c1: [f32; 2], c2: [u32; 4]) -> Vec<Probe> {
    vec![
        Probe { target: 0, rect, want: f4(c0) },
        Probe { target: 1, rect, want: [fb(c1[0]), fb(c1[1]), 0, 0] },
        Probe { target: 2, rect, want: c2 },
    ]
}

fn cleared_probes(rect: [u32; 4]) -> Vec<Probe> {
    mismatch_probes(rect, [CLEAR_F; 4], [CLEAR_F; 2], [CLEAR_U; 4])
}

fn spec(draw: Draw, probes: Vec<Probe>) -> Spec {
    Spec { draw, cbvs: Vec::new(), uavs: Vec::new(), srvs: Vec::new(), probes, uav_words: Vec::new() }
}

/// `vs_mismatch` writes ARG0 = (1, 2, 3), ARG1 = (4, 5), ARG2 = (6, 7, 8, 9) for every vertex.
fn mismatch_halves(name: &str) -> Spec {
    let draw = Draw { targets: mismatch_targets(), positions: halves(), vertex_count: 6, ..Default::default() };
    let probes = match name {
        // ps_mismatch_7: color0 = (arg0, 0), color1 = 0, color2 = (front, 0, 0, 0).
        "front_facing" => [
            mismatch_probes(HALF0, [1.0, 2.0, 3.0, 0.0], [0.0, 0.0], [1, 0, 0, 0]),
            mismatch_probes(HALF1, [1.0, 2.0, 3.0, 0.0], [0.0, 0.0], [0, 0, 0, 0]),
        ]
        .concat(),
        // ps_mismatch_sv_6: color0 = (arg0, 0), color1 = arg1, color2 = arg2 + primid.
        "primitive_id" => [
            mismatch_probes(HALF0, [1.0, 2.0, 3.0, 0.0], [4.0, 5.0], [6, 7, 8, 9]),
            mismatch_probes(HALF1, [1.0, 2.0, 3.0, 0.0], [4.0, 5.0], [7, 8, 9, 10]),
        ]
        .concat(),
        // ps_mismatch_9: color1 = arg1.xx (nointerpolation float of the float2).
        "nointerpolation" => mismatch_probes(ALL, [1.0, 2.0, 3.0, 0.0], [4.0, 4.0], [6, 7, 8, 9]),
        // ps_mismatch_1: color2 = (arg2.x, 0, 0, 0).
        _ => mismatch_probes(ALL, [1.0, 2.0, 3.0, 0.0], [4.0, 5.0], [6, 0, 0, 0]),
    };
    spec(draw, probes)
}

fn front_facing() -> Spec {
    mismatch_halves("front_facing")
}
fn primitive_id() -> Spec {
    mismatch_halves("primitive_id")
}
fn nointerpolation() -> Spec {
    mismatch_halves("nointerpolation")
}
fn uint_scalar() -> Spec {
    mismatch_halves("uint_scalar")
}

/// `vs_varying_mixed`: a = cb.a + vid, b = cb.b + vid (flat), positions from `SV_VertexID`
/// ((-1, -1), (-1, 3), (3, 1)); the provoking vertex is the first in both APIs.
fn varying_mixed() -> Spec {
    let draw = Draw {
        targets: vec![Target { format: vk::Format::R32G32_SFLOAT, clear: [fb(CLEAR_F); 4] }],
        vertex_count: 3,
        ..Default::default()
    };
    let mut s = spec(
        draw,
        vec![
            // The top-left quadrant is inside the triangle.
            Probe { target: 0, rect: [0, 0, 4, 4], want: [fb(10.0), fb(20.0), 0, 0] },
            // Pixel (7, 7) (clip (0.875, -0.875)) is below the edge from (-1, -1) to (3, 1).
            Probe { target: 0, rect: [7, 7, 8, 8], want: [fb(CLEAR_F), fb(CLEAR_F), 0, 0] },
        ],
    );
    s.cbvs = vec![(0, words(&[10, 20]))];
    s
}

fn full_screen_4x() -> Draw {
    Draw {
        targets: rgba32f(0.0),
        positions: halves(),
        vertex_count: 6,
        samples: vk::SampleCountFlags::TYPE_4,
        ..Default::default()
    }
}

/// `ps_export_coverage`: SV_Coverage = cb value, colour (1, 1, 1, 0). Mask 0b0101 of 4
/// samples keeps 2, the resolve averages them with 2 cleared (0) samples.
fn export_coverage() -> Spec {
    let mut s = spec(full_screen_4x(), vec![Probe { target: 0, rect: ALL, want: f4([0.5, 0.5, 0.5, 0.0]) }]);
    s.cbvs = vec![(0, words(&[0b0101]))];
    s
}

/// `ps_atoc`: alpha = cb alpha where any of the low 8 coverage bits is set (all are).
fn coverage_input() -> Spec {
    let mut s = spec(full_screen_4x(), vec![Probe { target: 0, rect: ALL, want: f4([1.0, 1.0, 1.0, 0.75]) }]);
    s.cbvs = vec![(0, words(&[fb(0.75)]))];
    s
}

/// `ps_sample_mask66` on a fully covered 2×2 target of 4 samples, shaded per sample
/// (`SV_SampleIndex`): the target gets the sample index, resolved to the average 1.5.
fn sample_index() -> Spec {
    let draw = Draw {
        width: 2,
        height: 2,
        sample_shading: true,
        targets: vec![Target { format: vk::Format::R32_SFLOAT, clear: [0; 4] }],
        ..full_screen_4x()
    };
    let mut s = spec(draw, vec![Probe { target: 0, rect: [0, 0, 2, 2], want: [fb(1.5), 0, 0, 0] }]);
    s.uavs = vec![(1, vec![0xff; 64])];
    s
}

/// The same draw, its UAV: `RW[4 * sample + 2 * y + x] = coverage | helper bits`. D3D
/// gives a per-sample invocation the whole pixel's coverage (0xf) and no lane of a fully
/// covered quad is a helper: 0xf everywhere (vkd3d-proton's `test_sample_mask`).
fn sample_coverage() -> Spec {
    let mut s = sample_index();
    s.probes.clear();
    s.uav_words = vec![vec![0xf; 16]];
    s
}

/// `SV_Coverage` at sample rate (`docs/graphics-runner.md`, "Known failures").
const SAMPLE_COVERAGE: &str = "Vulkan: at sample rate `SampleMask` holds the invocation's own sample only (D3D: the \
     pixel's coverage, vkd3d-proton marks this `todo`); lavapipe also reports quad neighbours as helper lanes";

/// `ps_immediate_constant_buffer`: (int_array[i], uint_array[i], float_array[i], 1) as
/// floats; i = 3 from b0: (-513, 0xff800000 as a float, 0.75, 1).
fn immediate_constants() -> Spec {
    let draw = Draw { targets: rgba32f(CLEAR_F), positions: halves(), vertex_count: 6, ..Default::default() };
    let mut s = spec(draw, vec![Probe { target: 0, rect: ALL, want: f4([-513.0, 4_286_578_688.0, 0.75, 1.0]) }]);
    s.cbvs = vec![(0, words(&[3]))];
    s
}

/// The pixel shader's `UV` (register 0) linked to the vertex shader's `TEXCOORD`
/// (register 1) through the remapping hook.
fn uv_at_texcoord() -> StageOptions {
    let remap = untangle::IoRemap::new(|q| {
        (q.element.semantic == "UV").then_some(untangle::IoLocation { location: 1, component: 0 })
    });
    vec![("ps", untangle::Options { io_remap: Some(remap), ..Default::default() })]
}

/// `vs_sample_cmp_grad_bias` draws (-1, -1), (-1, 3), (3, -1) from `SV_VertexID` with
/// TEXCOORD = (clip + 1) / 2; on a 2×2 target ddx(u) = 1/2 and ddy(v) = -1/2 (screen y
/// runs down). `ps_derivative_hoisting` returns early where `quad_values[pixel] < 0`
/// (pixels 1 and 2 with (1, -1, -1, 1), as vkd3d-proton's test), else writes
/// `RWBuf[pixel] = 1 + (ddx_fine(u), ddy_fine(v), ddx_coarse(c), ddy_coarse(c))` with c a
/// constant: (1.5, 0.5, 1, 1). The fine derivatives hold only because the translator computes
/// them before the early return (`untangle::rewrite::derivative_hoisting`): NVIDIA gives 0
/// in the pixels whose quad neighbours returned.
fn derivatives() -> Spec {
    let draw = Draw { width: 2, height: 2, targets: rgba32f(CLEAR_F), vertex_count: 3, ..Default::default() };
    let mut s = spec(draw, Vec::new());
    let mut cb = vec![fb(1.0), fb(-1.0), fb(-1.0), fb(1.0)];
    cb.extend([fb(5.0), fb(7.0), 0, 0].iter().chain(&[0; 12]));
    s.cbvs = vec![(0, words(&cb))];
    s.uavs = vec![(0, vec![0; 64])];
    let written = [fb(1.5), fb(0.5), fb(1.0), fb(1.0)];
    s.uav_words = vec![[written, [0; 4], [0; 4], written].concat()];
    s
}

/// The quad_tess control points of one patch covering clip x in [x0, x1]: (x0, -1),
/// (x0, 1), (x1, -1), (x1, 1) (vkd3d-proton's quad, `a = lerp(p0, p1, u)`,
/// `b = lerp(p2, p3, u)`, `lerp(a, b, v)`).
fn quad_patch(x0: f32, x1: f32) -> Vec<[f32; 4]> {
    vec![[x0, -1.0, 0.0, 1.0], [x0, 1.0, 0.0, 1.0], [x1, -1.0, 0.0, 1.0], [x1, 1.0, 0.0, 1.0]]
}

/// Two patches (left and right half), tessellation factors 3 from `b0` (4 edges, 2
/// inside); `ps_mismatch_sv_4` writes color0 = 0, color1 = 0, color2 = (primid, 0, 0, 0).
fn quad_tess(cull: vk::CullModeFlags) -> Spec {
    let draw = Draw {
        targets: mismatch_targets(),
        positions: [quad_patch(-1.0, 0.0), quad_patch(0.0, 1.0)].concat(),
        vertex_count: 8,
        topology: vk::PrimitiveTopology::PATCH_LIST,
        patch_control_points: 4,
        cull,
        ..Default::default()
    };
    let probes = [
        mismatch_probes([0, 0, 4, 8], [0.0; 4], [0.0; 2], [0, 0, 0, 0]),
        mismatch_probes([4, 0, 8, 8], [0.0; 4], [0.0; 2], [1, 0, 0, 0]),
    ]
    .concat();
    let mut s = spec(draw, probes);
    s.cbvs = vec![(0, words(&[fb(3.0), fb(3.0), fb(3.0), fb(3.0), fb(3.0), fb(3.0)]))];
    s
}

fn tess_quad_cw() -> Spec {
    quad_tess(vk::CullModeFlags::BACK)
}
fn tess_quad_ccw() -> Spec {
    quad_tess(vk::CullModeFlags::FRONT)
}

const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];

/// `control_point_phase_hs` makes (-1, 1), (3, 1), (-1, -3) (factors 1); the DS picks
/// control point `uint(v + 2w)`, so the patch is that triangle: the whole target.
fn control_point_phase() -> Spec {
    let draw = Draw {
        targets: rgba32f(CLEAR_F),
        positions: vec![[0.0; 4]; 3],
        vertex_count: 3,
        topology: vk::PrimitiveTopology::PATCH_LIST,
        patch_control_points: 3,
        cull: vk::CullModeFlags::NONE,
        ..Default::default()
    };
    spec(draw, vec![Probe { target: 0, rect: ALL, want: f4(GREEN) }])
}

/// `fork_phase_vs` writes (-1, -1, 0, 0); the HS adds (0, 0), (0, 2), (2, 0), (2, 2) (w 1):
/// a quad over the whole target, factors 1.
fn fork_phase() -> Spec {
    let draw = Draw {
        targets: mismatch_targets(),
        vertex_count: 1,
        topology: vk::PrimitiveTopology::PATCH_LIST,
        patch_control_points: 1,
        cull: vk::CullModeFlags::NONE,
        ..Default::default()
    };
    spec(draw, mismatch_probes(ALL, [0.0; 4], [0.0; 2], [0, 0, 0, 0]))
}

/// `dcl_index_range_vs_complex` writes FROG[k] = 0.5 · position + offset k (the four
/// quadrants) and PRIM = instance; the HS outputs FROG[PRIM of control point 0]. Four
/// instances of the full-screen quad patch: each draws its quadrant (vkd3d-proton: 4
/// vertices, 4 instances, green screen).
fn index_range() -> Spec {
    let draw = Draw {
        targets: rgba32f(CLEAR_F),
        positions: quad_patch(-1.0, 1.0),
        vertex_count: 4,
        instance_count: 4,
        topology: vk::PrimitiveTopology::PATCH_LIST,
        patch_control_points: 4,
        cull: vk::CullModeFlags::NONE,
        ..Default::default()
    };
    spec(draw, vec![Probe { target: 0, rect: ALL, want: f4(GREEN) }])
}

/// A triangle whose vertices are pixel centres (1, 1), (6, 1), (3, 5); the GS emits them as
/// points: those pixels get `ps_mismatch_1`'s colours, the triangle's inside stays clear.
fn gs_points() -> Spec {
    let draw = Draw {
        targets: mismatch_targets(),
        positions: vec![pixel(1, 1, 8, 8), pixel(6, 1, 8, 8), pixel(3, 5, 8, 8)],
        vertex_count: 3,
        ..Default::default()
    };
    let mut probes = Vec::new();
    for (x, y) in [(1, 1), (6, 1), (3, 5)] {
        probes.extend(mismatch_probes([x, y, x + 1, y + 1], [1.0, 2.0, 3.0, 0.0], [4.0, 5.0], [6, 0, 0, 0]));
    }
    probes.extend(cleared_probes([3, 2, 4, 4]));
    probes.extend(cleared_probes([0, 6, 8, 8]));
    spec(draw, probes)
}

/// `gs_mismatch_primid` passes the triangles through with SV_PrimitiveID; `ps_mismatch_sv_3`
/// writes color2 = (primid, 0, 0, 0).
fn gs_primitive_id() -> Spec {
    let draw = Draw { targets: mismatch_targets(), positions: halves(), vertex_count: 6, ..Default::default() };
    let probes = [
        mismatch_probes(HALF0, [1.0, 2.0, 3.0, 0.0], [0.0, 0.0], [0, 0, 0, 0]),
        mismatch_probes(HALF1, [1.0, 2.0, 3.0, 0.0], [0.0, 0.0], [1, 0, 0, 0]),
    ]
    .concat();
    spec(draw, probes)
}

/// `vs_topology` puts every vertex at the centre; the GS emits points there: on a 9×9
/// target the centre pixel (4, 4) only.
fn gs_topology(topology: vk::PrimitiveTopology, vertices: u32) -> Spec {
    let draw =
        Draw { width: 9, height: 9, targets: rgba32f(CLEAR_F), vertex_count: vertices, topology, ..Default::default() };
    let clear = f4([CLEAR_F; 4]);
    let probes = vec![
        Probe { target: 0, rect: [4, 4, 5, 5], want: f4(GREEN) },
        Probe { target: 0, rect: [0, 0, 9, 4], want: clear },
        Probe { target: 0, rect: [0, 5, 9, 9], want: clear },
        Probe { target: 0, rect: [0, 4, 4, 5], want: clear },
        Probe { target: 0, rect: [5, 4, 9, 5], want: clear },
    ];
    spec(draw, probes)
}
fn gs_topology_point() -> Spec {
    gs_topology(vk::PrimitiveTopology::POINT_LIST, 1)
}
fn gs_topology_line() -> Spec {
    gs_topology(vk::PrimitiveTopology::LINE_LIST, 2)
}
fn gs_topology_triangle_adj() -> Spec {
    gs_topology(vk::PrimitiveTopology::TRIANGLE_LIST_WITH_ADJACENCY, 6)
}

/// `ds_mismatch_ref` writes position = (u + v + w) + p0 + p1 + p2 for every domain point:
/// with p0 = (0.5, 0.5, 0, 1), p1 = p2 = (0, 0, 0, 1) that is (1.5, 1.5, 1, 4), clip
/// (0.375, 0.375): pixel (5, 2). The GS emits points; `ps_mismatch_10` writes
/// (arg0, front = 1), arg1, arg2 of control point 0.
fn all_stages() -> Spec {
    let draw = Draw {
        targets: mismatch_targets(),
        positions: vec![[0.5, 0.5, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0]],
        vertex_count: 3,
        topology: vk::PrimitiveTopology::PATCH_LIST,
        patch_control_points: 3,
        ..Default::default()
    };
    let mut probes = mismatch_probes([5, 2, 6, 3], [1.0, 2.0, 3.0, 1.0], [4.0, 5.0], [6, 7, 8, 9]);
    probes.extend(cleared_probes([0, 0, 8, 2]));
    probes.extend(cleared_probes([0, 3, 8, 8]));
    probes.extend(cleared_probes([0, 2, 5, 3]));
    spec(draw, probes)
}

const MISMATCH_VS: &str = "pso.vs_mismatch.vs_6_0.dxil";

/// Places every varying of a mesh or pixel shader by semantic (`order`'s index is the
/// `Location`), as a layer linking D3D's by-name mesh → pixel interface does
/// (`docs/stage-interfaces.md`); the pixel shader also gets its per-primitive inputs.
fn mesh_link(order: &'static [&'static str], per_primitive: &[&str]) -> StageOptions {
    let remap = untangle::IoRemap::new(move |q| {
        let k = order.iter().position(|s| q.element.semantic.eq_ignore_ascii_case(s))?;
        Some(untangle::IoLocation { location: k as u32, component: 0 })
    });
    let plain = untangle::Options { io_remap: Some(remap), ..Default::default() };
    let ps = untangle::Options {
        per_primitive_inputs: per_primitive.iter().map(|s| (s.to_string(), 0)).collect(),
        ..plain.clone()
    };
    vec![("ms", plain), ("ps", ps)]
}
fn color_link() -> StageOptions {
    mesh_link(&["UV_COLOR"], &["UV_COLOR"])
}
fn interface_matching_link() -> StageOptions {
    mesh_link(&["UV_COORD", "UV_COLOR", "UV_PRIMITIVE_DATA", "UV_VERTEX_ID"], &["UV_COLOR", "UV_PRIMITIVE_DATA"])
}
fn culling_link() -> StageOptions {
    mesh_link(&["UV_PRIMITIVE_ID"], &["UV_PRIMITIVE_ID"])
}

/// vkd3d-proton's mesh tests render to `R8G8B8A8_UNORM` cleared to white; results are
/// packed words (`0xAABBGGRR`): green is `0xff00ff00`.
const WHITE_RGBA8: u32 = 0xffff_ffff;
const GREEN_RGBA8: u32 = 0xff00_ff00;

fn rgba8_white() -> Vec<Target> {
    vec![Target { format: vk::Format::R8G8B8A8_UNORM, clear: [fb(1.0); 4] }]
}

fn mesh_draw(tasks: [u32; 3], targets: Vec<Target>) -> Draw {
    Draw { mesh_tasks: Some(tasks), targets, ..Default::default() }
}

/// `as_simple` sends the payload colour (0, 1, 0, 1) to one `ms_payload` group, which draws a
/// full-screen triangle with it as a per-primitive `UV_COLOR`; `ps_color` returns it
/// (`test_amplification_shader`: 0xff00ff00 everywhere).
fn as_ms_payload() -> Spec {
    spec(mesh_draw([1, 1, 1], rgba8_white()), vec![Probe { target: 0, rect: ALL, want: [GREEN_RGBA8, 0, 0, 0] }])
}

/// Task group g launches `t0[g]` mesh groups (1, 7, 0, 32) with payload g; each mesh group
/// ORs `1 << SV_GroupID.x` into `u1[g]` and emits nothing (`test_amplification_shader`:
/// 0x1, 0x7f, 0, 0xffffffff). No pixel shader, no target.
fn as_ms_multi_workgroup() -> Spec {
    let mut s = spec(mesh_draw([4, 1, 1], Vec::new()), Vec::new());
    s.srvs = vec![(0, words(&[1, 7, 0, 32]))];
    s.uavs = vec![(1, vec![0; 16])];
    s.uav_words = vec![vec![0x1, 0x7f, 0, 0xffff_ffff]];
    s
}

/// One group of 3 threads: a full-screen triangle ((-1, -1), (3, -1), (-1, 3)) with
/// `UV_COORD` = (clip + 1) / 2, flat `UV_VERTEX_ID` = thread + 1 and per-primitive
/// `UV_COLOR` green, `UV_PRIMITIVE_DATA` 0xdeadbeef. The pixel shader ORs the primitive
/// data, `round(2 * coord)` (0, 1 and 2 occur on 8×8) and the provoking (first) vertex's id
/// into u1 (`test_mesh_shader_rendering`: 0xdeadbeef, 3, 3, 1; target 0xff00ff00).
fn ms_interface_matching() -> Spec {
    let mut s =
        spec(mesh_draw([1, 1, 1], rgba8_white()), vec![Probe { target: 0, rect: ALL, want: [GREEN_RGBA8, 0, 0, 0] }]);
    s.uavs = vec![(1, vec![0; 16])];
    s.uav_words = vec![vec![0xdead_beef, 3, 3, 1]];
    s
}

/// 4 groups of 32 threads; in group g thread i emits a full-screen primitive with
/// `UV_PRIMITIVE_ID` = 32 g + i where bit i of `t0[g]` is set (ms_culling: counted in
/// groupshared memory, the primitive count set from it; ms_cull_primitive: all 32 emitted,
/// the others `SV_CullPrimitive`). `ps_culling` sets bit `id` of u1: u1 ends equal to t0
/// (`test_mesh_shader_rendering`). No target.
fn ms_culling() -> Spec {
    let mask = [0xdead_beef, 0x1234_5678, 0, 0xffff_ffff];
    let mut s = spec(mesh_draw([4, 1, 1], Vec::new()), Vec::new());
    s.srvs = vec![(0, words(&mask))];
    s.uavs = vec![(1, vec![0; 16])];
    s.uav_words = vec![mask.to_vec()];
    s
}

/// 4 groups draw the full-screen quad with `SV_ClipDistance` = b2 − thread (4 vertices):
/// b2 = 5 keeps every vertex inside (green), b2 = −1 clips everything (the white clear)
/// (`test_mesh_shader_rendering`: 0xff00ff00 and 0xffffffff).
fn ms_clip_distance(clip: f32) -> Spec {
    let want = if clip > 3.0 { GREEN_RGBA8 } else { WHITE_RGBA8 };
    let mut s = spec(mesh_draw([4, 1, 1], rgba8_white()), vec![Probe { target: 0, rect: ALL, want: [want, 0, 0, 0] }]);
    s.cbvs = vec![(2, words(&[fb(clip)]))];
    s
}
fn ms_clip_distance_kept() -> Spec {
    ms_clip_distance(5.0)
}
fn ms_clip_distance_clipped() -> Spec {
    ms_clip_distance(-1.0)
}

/// 8 full-screen primitives; primitive i goes to layer i (`SV_RenderTargetArrayIndex`) with
/// colour (i & 1, i & 2, i & 4, 1) (UNORM: any non-zero channel saturates to 0xff) and
/// `SV_PrimitiveID` (i + 1)²; the pixel shader sets bit `id` of u1
/// (`test_mesh_shader_rendering`: layer colours 0xff000000, 0xff0000ff, …, 0xffffffff;
/// u1 = 0x02010212, 0x00020010, 1, 0). Layer `l` is rows `8 l .. 8 l + 8` of the result.
fn ms_system_values() -> Spec {
    let mut draw = mesh_draw([1, 1, 1], rgba8_white());
    draw.layers = 8;
    let probes = (0..8u32)
        .map(|l| {
            let channel = |bit: u32, shift: u32| if l & bit != 0 { 0xff << shift } else { 0 };
            let want = 0xff00_0000 | channel(1, 0) | channel(2, 8) | channel(4, 16);
            Probe { target: 0, rect: [0, 8 * l, 8, 8 * l + 8], want: [want, 0, 0, 0] }
        })
        .collect();
    let mut s = spec(draw, probes);
    s.uavs = vec![(1, vec![0; 16])];
    s.uav_words = vec![vec![0x0201_0212, 0x0002_0010, 1, 0]];
    s
}

/// vkd3d-proton's view instancing (`Options::view_instancing`): the `ViewIndex` → `SV_ViewID`
/// map is specialization constant 1000, the `SV_ViewID` → viewport map 1001 (the values
/// come with the draw, [`Draw::spec_constants`]).
pub const VIEW_ID_SPEC: u32 = 1000;
pub const VIEWPORT_SPEC: u32 = 1001;

/// The vertex shader's options under view instancing, as the last pre-rasterization stage;
/// `viewports`: with the viewport map.
pub fn view_instancing_vs(viewports: bool) -> untangle::Options {
    untangle::Options {
        view_instancing: Some(untangle::ViewInstancing {
            last_pre_rasterization: true,
            view_index_to_view_id_spec_id: Some(VIEW_ID_SPEC),
            view_id_to_viewport_spec_id: viewports.then_some(VIEWPORT_SPEC),
            offsets_buffer: None,
        }),
        ..Default::default()
    }
}

fn view_instancing_link() -> StageOptions {
    vec![("vs", view_instancing_vs(false))]
}
fn view_instancing_viewports_link() -> StageOptions {
    vec![("vs", view_instancing_vs(true))]
}

/// `vs_view_id` draws instance `iid`'s triangle in the upper-left half of the viewport's
/// top-left quadrant for `SV_ViewID` 0 and of its bottom-left quadrant for 1 (cookie ≤ 200);
/// `ps_view_id` writes (cookie, view id, instance, 0). Two views, layers 0 and 1, with two
/// D3D view instances placed as `{ RenderTargetArrayIndex 1, 0 }` (instance 0 on slice 1):
/// the `ViewIndex` map is `1 | 0 << 2`, view 0 renders instance 1 and view 1 instance 0.
/// Layer 0 gets the bottom-left triangle with view id 1, layer 1 the top-left one with 0
/// (a translation reading `ViewIndex` as the id swaps both). Layer `l` is rows
/// `8 l .. 8 l + 8`.
fn multiview_view_id() -> Spec {
    let draw = Draw {
        targets: rgba32f(CLEAR_F),
        vertex_count: 3,
        layers: 2,
        view_mask: 0b11,
        spec_constants: vec![(VIEW_ID_SPEC, 1)],
        ..Default::default()
    };
    let clear = f4([CLEAR_F; 4]);
    let mut s = spec(
        draw,
        vec![
            Probe { target: 0, rect: [0, 4, 2, 6], want: f4([100.0, 1.0, 0.0, 0.0]) },
            Probe { target: 0, rect: [0, 0, 2, 2], want: clear },
            Probe { target: 0, rect: [0, 8, 2, 10], want: f4([100.0, 0.0, 0.0, 0.0]) },
            Probe { target: 0, rect: [0, 12, 2, 14], want: clear },
        ],
    );
    s.cbvs = vec![(0, words(&[fb(100.0)]))];
    s
}

/// [`multiview_view_id`] with viewports: instance 0 on slice 1 through viewport 1 (the right
/// half), instance 1 on slice 0 through viewport 0 (the left half), so the viewport map is
/// `1 | 0 << 8`. Layer 0: instance 1's triangle at the bottom left of the left half; layer
/// 1: instance 0's at the top left of the right half; the other half of each layer keeps
/// the clear colour (a translation that writes no viewport draws both into the left half).
fn multiview_viewports() -> Spec {
    let mut s = multiview_view_id();
    s.draw.spec_constants.push((VIEWPORT_SPEC, 1));
    s.draw.viewports = vec![[0, 0, 4, 8], [4, 0, 4, 8]];
    let clear = f4([CLEAR_F; 4]);
    s.probes = vec![
        Probe { target: 0, rect: [0, 4, 1, 5], want: f4([100.0, 1.0, 0.0, 0.0]) },
        Probe { target: 0, rect: [4, 4, 5, 5], want: clear },
        Probe { target: 0, rect: [0, 0, 1, 1], want: clear },
        Probe { target: 0, rect: [4, 8, 5, 9], want: f4([100.0, 0.0, 0.0, 0.0]) },
        Probe { target: 0, rect: [0, 8, 1, 9], want: clear },
        Probe { target: 0, rect: [4, 12, 5, 13], want: clear },
    ];
    s
}

/// `ps_render_a8` writes (0, 0.25, 0.5, 1) to an `A8_UNORM` target, which vkd3d-proton
/// renders as `R8_UNORM` with the output swizzle `(W, X, Y, Z)`: red holds alpha
/// (`test_render_a8_dxil` reads back 0xff). Rendered to RGBA32F here to see every
/// component: (1, 0, 0.25, 0.5).
fn a8_swizzle() -> Spec {
    let draw = Draw { targets: rgba32f(CLEAR_F), positions: halves(), vertex_count: 6, ..Default::default() };
    spec(draw, vec![Probe { target: 0, rect: ALL, want: f4([1.0, 0.0, 0.25, 0.5]) }])
}

/// vkd3d-proton's swizzle for an `A8_UNORM` target without `VK_FORMAT_A8_UNORM_KHR`.
pub fn a8_swizzle_link() -> StageOptions {
    vec![("ps", untangle::Options { output_swizzles: vec![[3, 0, 1, 2]], ..Default::default() })]
}

/// Every case.
pub fn cases() -> Vec<Case> {
    let n = Needs::default();
    let mesh = Needs { mesh_shader: true, ..n };
    vec![
        Case {
            name: "vs_ps_front_facing",
            files: &[MISMATCH_VS, "pso.ps_mismatch_7.ps_6_0.dxil"],
            checks: "SV_IsFrontFace, D3D winding",
            needs: n,
            spec: front_facing,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "vs_ps_primitive_id",
            files: &[MISMATCH_VS, "pso.ps_mismatch_sv_6.ps_6_0.dxil"],
            checks: "SV_PrimitiveID packed with a flat varying",
            needs: n,
            spec: primitive_id,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "vs_ps_nointerpolation",
            files: &[MISMATCH_VS, "pso.ps_mismatch_9.ps_6_0.dxil"],
            checks: "nointerpolation, narrower input",
            needs: n,
            spec: nointerpolation,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "vs_ps_uint_scalar",
            files: &[MISMATCH_VS, "pso.ps_mismatch_1.ps_6_0.dxil"],
            checks: "uint input of a uint4 output, 3 targets",
            needs: n,
            spec: uint_scalar,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "vs_ps_varying_mixed",
            files: &["shaders.vs_varying_mixed.vs_6_0.dxil", "shaders.ps_varying_mixed.ps_6_0.dxil"],
            checks: "flat uint+float in one register, SV_VertexID, VS cbuffer",
            needs: n,
            spec: varying_mixed,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "vs_ps_export_coverage",
            files: &["pso.vs_sample_mask.vs_6_0.dxil", "pso.ps_export_coverage.ps_6_0.dxil"],
            checks: "SV_Coverage output, 4x MSAA resolve",
            needs: n,
            spec: export_coverage,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "vs_ps_coverage_input",
            files: &["pso.vs_sample_mask.vs_6_0.dxil", "pso.ps_atoc.ps_6_0.dxil"],
            checks: "SV_Coverage input, 4x MSAA",
            needs: n,
            spec: coverage_input,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "vs_ps_sample_index",
            files: &["pso.vs_sample_mask.vs_6_0.dxil", "pso.ps_sample_mask66.ps_6_6.dxil"],
            checks: "SV_SampleIndex at sample rate, 4x MSAA resolve",
            needs: Needs { quad_in_fragment: true, ..n },
            spec: sample_index,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "vs_ps_sample_coverage",
            files: &["pso.vs_sample_mask.vs_6_0.dxil", "pso.ps_sample_mask66.ps_6_6.dxil"],
            checks: "SV_Coverage at sample rate, IsHelperLane + quad reads, UAV",
            needs: Needs { quad_in_fragment: true, ..n },
            spec: sample_coverage,
            known_failure: Some(SAMPLE_COVERAGE),
            stage_options: None,
        },
        Case {
            name: "vs_ps_immediate_constants",
            files: &["pso.vs_sample_mask.vs_6_0.dxil", "shaders.ps_immediate_constant_buffer.ps_6_0.dxil"],
            checks: "static const arrays indexed by a cbuffer value",
            needs: n,
            spec: immediate_constants,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "vs_ps_derivatives",
            files: &["sm_advanced.vs_sample_cmp_grad_bias.vs_6_8.dxil", "shaders.ps_derivative_hoisting.ps_6_0.dxil"],
            checks: "ddx/ddy fine and coarse in divergent flow, early return, UAV, IoRemap link",
            needs: n,
            spec: derivatives,
            known_failure: None,
            stage_options: Some(uv_at_texcoord),
        },
        Case {
            name: "tess_quad_cw",
            files: &[
                "tessellation.quad_tess_vs.vs_6_0.dxil",
                "tessellation.quad_tess_hs_cw.hs_6_0.dxil",
                "tessellation.quad_tess_ds.ds_6_0.dxil",
                "pso.ps_mismatch_sv_4.ps_6_0.dxil",
            ],
            checks: "quad domain, HS cbuffer factors, cw winding, patch primitive ID",
            needs: n,
            spec: tess_quad_cw,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "tess_quad_ccw",
            files: &[
                "tessellation.quad_tess_vs.vs_6_0.dxil",
                "tessellation.quad_tess_hs_ccw.hs_6_0.dxil",
                "tessellation.quad_tess_ds.ds_6_0.dxil",
                "pso.ps_mismatch_sv_4.ps_6_0.dxil",
            ],
            checks: "ccw winding (front faces culled)",
            needs: n,
            spec: tess_quad_ccw,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "tess_control_point_phase",
            files: &[
                "tessellation.quad_tess_vs.vs_6_0.dxil",
                "tessellation.control_point_phase_hs.hs_6_0.dxil",
                "tessellation.control_point_phase_ds.ds_6_0.dxil",
                "mesh_shader.ps_green.ps_6_0.dxil",
            ],
            checks: "OutputControlPointID, DomainLocation (tri)",
            needs: n,
            spec: control_point_phase,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "tess_fork_phase",
            files: &[
                "tessellation.fork_phase_vs.vs_6_0.dxil",
                "tessellation.fork_phase_hs.hs_6_0.dxil",
                "tessellation.dcl_index_range_ds.ds_6_0.dxil",
                "pso.ps_mismatch_sv_4.ps_6_0.dxil",
            ],
            checks: "1 input → 4 output control points, patch constants",
            needs: n,
            spec: fork_phase,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "tess_index_range",
            files: &[
                "tessellation.dcl_index_range_vs_complex.vs_6_0.dxil",
                "tessellation.dcl_index_range_hs_complex.hs_6_0.dxil",
                "tessellation.dcl_index_range_ds.ds_6_0.dxil",
                "mesh_shader.ps_green.ps_6_0.dxil",
            ],
            checks: "dynamically indexed input array, SV_InstanceID varying",
            needs: n,
            spec: index_range,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "gs_points",
            files: &[MISMATCH_VS, "pso.gs_mismatch_ref.gs_6_0.dxil", "pso.ps_mismatch_1.ps_6_0.dxil"],
            checks: "triangle in, points out",
            needs: n,
            spec: gs_points,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "gs_primitive_id",
            files: &[MISMATCH_VS, "pso.gs_mismatch_primid.gs_6_0.dxil", "pso.ps_mismatch_sv_3.ps_6_0.dxil"],
            checks: "GS SV_PrimitiveID in and out",
            needs: n,
            spec: gs_primitive_id,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "gs_topology_point",
            files: &[
                "pso.vs_topology.vs_6_0.dxil",
                "pso.gs_topology_point.gs_6_0.dxil",
                "mesh_shader.ps_green.ps_6_0.dxil",
            ],
            checks: "point input",
            needs: n,
            spec: gs_topology_point,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "gs_topology_line",
            files: &[
                "pso.vs_topology.vs_6_0.dxil",
                "pso.gs_topology_line.gs_6_0.dxil",
                "mesh_shader.ps_green.ps_6_0.dxil",
            ],
            checks: "line input",
            needs: n,
            spec: gs_topology_line,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "gs_topology_triangle_adj",
            files: &[
                "pso.vs_topology.vs_6_0.dxil",
                "pso.gs_topology_triangle_adj.gs_6_0.dxil",
                "mesh_shader.ps_green.ps_6_0.dxil",
            ],
            checks: "triangle-adjacency input",
            needs: n,
            spec: gs_topology_triangle_adj,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "all_stages",
            files: &[
                MISMATCH_VS,
                "pso.hs_mismatch_ref.hs_6_0.dxil",
                "pso.ds_mismatch_ref.ds_6_0.dxil",
                "pso.gs_mismatch_ref.gs_6_0.dxil",
                "pso.ps_mismatch_10.ps_6_0.dxil",
            ],
            checks: "vs+hs+ds+gs+ps, points front-facing",
            needs: n,
            spec: all_stages,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "as_ms_payload",
            files: &[
                "mesh_shader.as_simple.as_6_5.dxil",
                "mesh_shader.ms_payload.ms_6_5.dxil",
                "mesh_shader.ps_color.ps_6_0.dxil",
            ],
            checks: "amplification payload, per-primitive colour",
            needs: mesh,
            spec: as_ms_payload,
            known_failure: None,
            stage_options: Some(color_link),
        },
        Case {
            name: "as_ms_multi_workgroup",
            files: &["mesh_shader.as_multi_workgroup.as_6_5.dxil", "mesh_shader.ms_multi_workgroup.ms_6_5.dxil"],
            checks: "task groups launching 1/7/0/32 mesh groups from an SRV, payload, UAV atomics",
            needs: mesh,
            spec: as_ms_multi_workgroup,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "ms_interface_matching",
            files: &["mesh_shader.ms_interface_matching.ms_6_5.dxil", "mesh_shader.ps_interface_matching.ps_6_0.dxil"],
            checks: "per-vertex and per-primitive varyings, flat provoking vertex, UAV",
            needs: mesh,
            spec: ms_interface_matching,
            known_failure: None,
            stage_options: Some(interface_matching_link),
        },
        Case {
            name: "ms_culling",
            files: &["mesh_shader.ms_culling.ms_6_5.dxil", "mesh_shader.ps_culling.ps_6_0.dxil"],
            checks: "groupshared count, dynamic primitive count, no target",
            needs: mesh,
            spec: ms_culling,
            known_failure: None,
            stage_options: Some(culling_link),
        },
        Case {
            name: "ms_cull_primitive",
            files: &["mesh_shader.ms_cull_primitive.ms_6_5.dxil", "mesh_shader.ps_culling.ps_6_0.dxil"],
            checks: "SV_CullPrimitive",
            needs: mesh,
            spec: ms_culling,
            known_failure: None,
            stage_options: Some(culling_link),
        },
        Case {
            name: "ms_clip_distance_kept",
            files: &["mesh_shader.ms_clip_distance.ms_6_5.dxil", "mesh_shader.ps_green.ps_6_0.dxil"],
            checks: "SV_ClipDistance > 0 from a cbuffer: drawn",
            needs: mesh,
            spec: ms_clip_distance_kept,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "ms_clip_distance_clipped",
            files: &["mesh_shader.ms_clip_distance.ms_6_5.dxil", "mesh_shader.ps_green.ps_6_0.dxil"],
            checks: "SV_ClipDistance < 0: clipped",
            needs: mesh,
            spec: ms_clip_distance_clipped,
            known_failure: None,
            stage_options: None,
        },
        Case {
            name: "ms_system_values",
            files: &["mesh_shader.ms_system_values.ms_6_5.dxil", "mesh_shader.ps_system_values.ps_6_0.dxil"],
            checks: "per-primitive SV_RenderTargetArrayIndex (8 layers), SV_PrimitiveID",
            needs: mesh,
            spec: ms_system_values,
            known_failure: None,
            stage_options: Some(color_link),
        },
        Case {
            name: "multiview_view_id",
            files: &["pso.vs_view_id.vs_6_1.dxil", "pso.ps_view_id.ps_6_1.dxil"],
            checks: "view instancing: SV_ViewID from the ViewIndex map, two views",
            needs: Needs { multiview: true, ..n },
            spec: multiview_view_id,
            known_failure: None,
            stage_options: Some(view_instancing_link),
        },
        Case {
            name: "multiview_viewports",
            files: &["pso.vs_view_id.vs_6_1.dxil", "pso.ps_view_id.ps_6_1.dxil"],
            checks: "view instancing: each instance's viewport from the viewport map",
            needs: Needs { multiview: true, multi_viewport: true, ..n },
            spec: multiview_viewports,
            known_failure: None,
            stage_options: Some(view_instancing_viewports_link),
        },
        Case {
            name: "ps_a8_swizzle",
            files: &[MISMATCH_VS, "render_target.ps_render_a8.ps_6_0.dxil"],
            checks: "output swizzle (W, X, Y, Z) of an A8_UNORM target",
            needs: n,
            spec: a8_swizzle,
            known_failure: None,
            stage_options: Some(a8_swizzle_link),
        },
    ]
}

/// The stages of a case as `vs+hs+ds+ps`.
pub fn stage_list(case: &Case) -> String {
    case.files.iter().filter_map(|f| stage_of(f)).collect::<Vec<_>>().join("+")
}

/// Compares what a draw produced with the spec's probes and UAV words; the first
/// mismatches (at most 8) as text.
pub fn compare(spec: &Spec, targets: &[Vec<u8>], uavs: &[Vec<u8>]) -> Result<(), String> {
    let mut errors = Vec::new();
    let width = spec.draw.width;
    for p in &spec.probes {
        let Some(t) = spec.draw.targets.get(p.target) else {
            return Err(format!("probe of target {} (the draw has {})", p.target, spec.draw.targets.len()));
        };
        let size = color_texel_size(t.format).unwrap_or(16);
        let bytes = &targets[p.target];
        for y in p.rect[1]..p.rect[3] {
            for x in p.rect[0]..p.rect[2] {
                let at = ((y * width + x) as usize) * size;
                let got: Vec<u32> = bytes[at..at + size]
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                let want = &p.want[..size / 4];
                if got != want {
                    errors.push(format!(
                        "target {} pixel ({x}, {y}): got {} want {}",
                        p.target,
                        show(&got, t.format),
                        show(want, t.format)
                    ));
                }
            }
        }
    }
    for (i, want) in spec.uav_words.iter().enumerate() {
        let got: Vec<u32> = uavs
            .get(i)
            .map(|b| b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
            .unwrap_or_default();
        for (k, w) in want.iter().enumerate() {
            if got.get(k) != Some(w) {
                let got = got.get(k).map_or("nothing".to_string(), |g| format!("{g:#x}"));
                errors.push(format!("u{} word {k}: got {got} want {w:#x}", spec.uavs[i].0));
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        let n = errors.len();
        errors.truncate(8);
        Err(format!("{n} mismatches: {}", errors.join("; ")))
    }
}

fn show(w: &[u32], f: vk::Format) -> String {
    let float = matches!(f, vk::Format::R32_SFLOAT | vk::Format::R32G32_SFLOAT | vk::Format::R32G32B32A32_SFLOAT);
    let parts: Vec<String> =
        w.iter().map(|&x| if float { format!("{}", f32::from_bits(x)) } else { format!("{x:#x}") }).collect();
    format!("({})", parts.join(", "))
}

/// Translates a case's stages one at a time (each knowing nothing of the others, with the
/// default options but for a tweak's remapping), binds its resources where the
/// translations put them, draws and compares.
pub fn run_case(gpu: &mut Gpu, case: &Case, corpus_dir: &Path, tweak: &Tweak) -> Report {
    let start = Instant::now();
    let outcome = match case.needs.missing(&gpu.info().features) {
        Some(why) => Outcome::Skipped(format!("needs {why}")),
        None => match (run_inner(gpu, case, corpus_dir, tweak), case.known_failure) {
            (Ok(()), None) => Outcome::Pass,
            (Err(e), None) => Outcome::Fail(e),
            (Err(e), Some(note)) => Outcome::KnownFailure(format!("{note} ({e})")),
            (Ok(()), Some(note)) => {
                Outcome::Fail(format!("passes now although noted as a known failure: drop the note ({note})"))
            }
        },
    };
    Report { name: case.name, stages: stage_list(case), outcome, wall: start.elapsed() }
}

fn run_inner(gpu: &mut Gpu, case: &Case, corpus_dir: &Path, tweak: &Tweak) -> Result<(), String> {
    let mut spec = (case.spec)();
    if tweak.perturb_expectation {
        if let Some(p) = spec.probes.first_mut() {
            p.want[0] ^= 1;
        } else if let Some(w) = spec.uav_words.iter_mut().find_map(|w| w.first_mut()) {
            *w ^= 1;
        }
    }
    let (stages, rows) = translate_case(case, corpus_dir, tweak)?;
    spec.draw.stages = stages;
    bind_spec(&mut spec, &rows)?;
    let result = gpu.draw(&spec.draw).map_err(|e| e.to_string())?;
    compare(&spec, &result.targets, &result.storage)
}

/// Adds the spec's constant buffers, UAVs and SRVs to its draw's buffers at the places the
/// translation's resource `rows` give their registers (space 0): constant buffers, then
/// UAVs (the draw's storage read-backs are then in `uavs` order), then SRVs.
pub fn bind_spec(spec: &mut Spec, rows: &[MappingRow]) -> Result<(), String> {
    let place = |class: ResourceClass, reg: u32| {
        rows.iter()
            .find(|r| r.class == class && r.space == 0 && r.lower_bound == reg)
            .map(|r| (r.set, r.binding))
            .ok_or_else(|| format!("no stage declares {}{reg}", class.register_letter()))
    };
    for (reg, bytes) in &spec.cbvs {
        let (set, binding) = place(ResourceClass::Cbv, *reg)?;
        spec.draw.buffers.push(BufferBinding { set, binding, storage: false, bytes: bytes.clone() });
    }
    for (reg, bytes) in &spec.uavs {
        let (set, binding) = place(ResourceClass::Uav, *reg)?;
        spec.draw.buffers.push(BufferBinding { set, binding, storage: true, bytes: bytes.clone() });
    }
    for (reg, bytes) in &spec.srvs {
        let (set, binding) = place(ResourceClass::Srv, *reg)?;
        spec.draw.buffers.push(BufferBinding { set, binding, storage: true, bytes: bytes.clone() });
    }
    Ok(())
}

/// Translates a case's stages one at a time (each knowing nothing of the others, with the
/// default options but for the case's and a tweak's), in pipeline order, with every
/// stage's resource rows. A mesh shader followed by a pixel shader must link
/// ([`crate::check::stage_link`]): a mismatch is reported here, before any draw, with the
/// checker's words. Needs no device.
pub fn translate_case(
    case: &Case,
    corpus_dir: &Path,
    tweak: &Tweak,
) -> Result<(Vec<StageModule>, Vec<MappingRow>), String> {
    let own = case.stage_options.map(|f| f()).unwrap_or_default();
    let mut rows = Vec::new();
    let mut stages = Vec::new();
    for file in case.files {
        let stage = stage_of(file).ok_or_else(|| format!("{file}: no stage in the name"))?;
        let path = corpus_dir.join(file);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut options = match &tweak.stage_options {
            Some((s, o)) if *s == stage => o.clone(),
            _ => own.iter().find(|(s, _)| *s == stage).map(|(_, o)| o.clone()).unwrap_or_default(),
        };
        if let Some(m) = tweak.min_precision {
            options.min_precision = m;
        }
        let t = untangle::translate(&bytes, &options).map_err(|e| format!("{file}: translation failed: {e}"))?;
        rows.extend(t.bindings.iter().cloned());
        stages.push(StageModule { stage: vk_stage(stage), words: t.words, entry: t.entry_point });
    }
    for pair in stages.windows(2) {
        if pair[0].stage == vk::ShaderStageFlags::MESH_EXT && pair[1].stage == vk::ShaderStageFlags::FRAGMENT {
            let io = |m: &StageModule| crate::check::stage_link::StageIo::from_words(&m.words);
            let errors = crate::check::stage_link::link(&io(&pair[0])?, &io(&pair[1])?);
            if !errors.is_empty() {
                return Err(format!("mesh and pixel shaders do not link: {errors:?}"));
            }
        }
    }
    Ok((stages, rows))
}
