//! Corpus compute shaders with known answers (issue 9 part 3): vkd3d-proton compute
//! shaders from `../shared/corpus/dxil/vkd3d-proton`, each with inputs and an expected
//! output derived on the CPU from what the shader computes (read from its DXIL, never
//! from running this crate's translator), translated, dispatched and compared.
//!
//! A case describes its resources the D3D way, by register ([`Reg`]: class, space,
//! register), each with its kind and initial bytes ([`CaseResource`]); CBV contents are
//! plain bytes. Turning them into Vulkan bindings is one pluggable step, [`Placement`]:
//! [`DefaultPlacement`] follows the translator's default binding model (set = space;
//! binding = class base + lower bound of the declared range; array element = register −
//! lower bound). A placement derived from a root signature may instead put a CBV into
//! push constants or a device-address buffer, and either of them into the root argument
//! buffer when it spilled past the push-constant budget ([`Placed`]); results are read back
//! by register whatever the placement.
//!
//! | case | shader computes | inputs | expected |
//! | --- | --- | --- | --- |
//! | `root_constant_indexing` | `u0[g] = b0[g].x`, g = group id | b0: 12 rows, x = 0x1000 + 7r | `u0[g] = 0x1000 + 7g` |
//! | `update_root_descriptors` | raw `u0[b0.x * 4] = b0.y` | b0 = (5, 0xCAFE0005) | word 5 set, others untouched |
//! | `uav_robustness_oob_structure_element` | structured `u0[b0.x].m[b0.y] = b0.z` (stride 16) | b0 = (3, 2, 0xBEEF) | word 3·4 + 2 set |
//! | `unpack_u8_u32` | `u0[i] = unpack_u8(t0[i])` (4 bytes zero-extended) | 8 words | bytes of each word |
//! | `unpack_s8_s32` | sign-extended bytes | 8 words | bytes sign-extended |
//! | `pack_s32_s8_clamp` | `pack_clamp_s8(t0[i].xyzw)` | int4s around ±128 | bytes clamped to [-128, 127] |
//! | `pack_s16_s8_clamp` | as above from int16_t4 (16-bit) | int16 4-vectors | clamped to [-128, 127] |
//! | `pack_s16_u8_clamp` | from int16_t4, clamp to [0, 255] | int16 4-vectors | clamped to [0, 255] |
//! | `packed_i8dot` | `dot4add_i8packed(a, b, acc)` | (a, b, acc) triples | acc + Σ a_k·b_k (signed bytes) |
//! | `msad` | `msad4(ref, src.xy, accum)` | uint4s | four masked SADs at byte shifts 0..3 |
//! | `bindless_cbv` | `u0[tid] = b[tid + 2].x` (space 1, unbounded, non-uniform) | 64 CBVs | x of each (needs descriptor indexing) |
//! | `cbv_hoisting` | thread t reads b0, b1, b2, b3 (b2..b3 an array) | 4 CBVs | their x |
//! | `cbv_layout_modern_uint32` | byte-pack 4 dwords of row t of two CBVs | 2 CBVs of 8 rows | `u0[2t], u0[2t + 1]` |
//! | `cbv_layout_legacy_uint64` | 64-bit adds of two CBVs, packed bytes | 2 CBVs of 16 rows | per thread 2 words (int64) |
//! | `descriptor_range_validation` | `InterlockedAdd(u[g + 1][0], 1)` in spaces 0 and 1 | 2 groups | +1 on element 0 of u1, u2 in both spaces |
//! | `wave_match` | `u0[lane] = WaveMatch(t0[lane]).x` | 16 lanes, 4 values | equal-value lane masks (subgroup ≥ 16) |
//! | `wave_multi_prefix` | multi-prefix sum/product/and/or/xor and bit count | 16 lanes, 3 partitions | exclusive prefixes per partition (subgroup ≥ 16) |
//! | `quad_swap_2d_sm60` | `u0[x, y] = (v, QuadReadAcrossX/Y/Diagonal(v))` | 8×8 R32F texture | quads of 4 consecutive lanes |
//! | `quad_swap_2d_unaligned` | the same, 8×9 threads (SM 6.6) | 8×9 texture | the same |
//! | `64bit_atomics_shared` | groupshared 64-bit atomics (add/and/or/umax/umin/max/min/xor/xchg/cmpxchg) + barriers | 4 u64 | per slot fold of the 4 inputs (xchg/cmpxchg: one of them) |
//! | `bindless_uav` | `u[tid + 2]` (space 1) `[0] = tid + 1`; RWTexture2D `u[tid + 2]` (space 2) `= tid + 257` | 64 + 64 descriptors | (needs descriptor indexing) |
//! | `bindless_samplers` | `u0[tid] = (uint)t0.SampleLevel(s[tid], (1.1, 1.1), 0)` | 2×2 texture 1..4, 64 samplers of 4 address modes | repeat 1, clamp 4, mirror 4, border 0 |
//! | `static_sampler_dynamic_index` | `u0[g] = t0.SampleLevel(s[g] (space 100), 0.5, 0)` | 4 samplers nearest/linear | 4 or 2.5 |
//! | `oob_vectorized_byte_address_32bit_write` | raw 1-, 2-, 3-, 4-vector stores of their own word indices (u2..u5, 64 threads) | in-bounds buffers | word k = k |
//! | `oob_vectorized_byte_address_32bit_read` | raw vector loads from u2..u5 copied into u1 at 0, 64, 128, 192 bytes while in the 48 bytes | distinct sources | copies; sources unchanged |
//! | `oob_vectorized_structured_16bit_write` | uint16 1..4-vector and single-component structured stores (u0..u6) | in-bounds buffers | halfword k = k (16-bit) |
//! | `cbv_layout_modern_uint16` | sums of 16-bit CBV loads at 4-byte steps, byte-packed (two CBVs) | byte ramps | per thread 2 words; thread 7 (past the CBV) unchecked |
//! | `packed_dot2add` | `dot2add(half2 a, half2 b, float acc)` | exact halves; (1, 1)·(1, 1) + 2^24 | 16.875, 26, 100.5, 2^24 + 2 (fp16) |
//! | `typed_buffer_reads` | typed buffers t0..t15 (uint/float × 1..4 components, arrays of 2) copied to `u[r][tid]` as uint4, last component repeated | distinct bit patterns | the texels (texel buffers) |
//! | `resinfo` | `GetDimensions` of Texture2D, Texture2DArray, Buffer, ByteAddressBuffer, StructuredBuffer and their RW forms into u10 | resources of distinct sizes (all bound: the vkd3d test binds null descriptors) | sizes, layers, 1 mip, stride 4; −1 where the shader writes constants |
//! | `sample_cmp_level` | `u0[x, y] = t0.SampleCmpLevel(s0, (0.5, 0.5), x / 8, lod y / 2 + 1/16)` | 1×1 D32 texture 0.4 (one mip), LESS_EQUAL comparison sampler | 1 for x ≤ 3, else 0 |
//! | `raw_gather_32` | `GatherRaw` and `Gather{Red,Green,Blue,Alpha}` of t0 at (0.5, 0.5) into u0 words 0..20 | 2×2 RGBA32UI texture, distinct channels | per gather (T(0,1), T(1,1), T(1,0), T(0,0)) of the channel (raw: red) |
//! | `denorm_ftz`, `denorm_preserve` | `u0[i] = t0[i] * 2` | normal and denormal floats | exact for normal; denormals: flushed or preserved (device float controls) |
//! | `denorm_fp64_fp32_*` (any, ftz, preserve) | double add (make/split double) and float add | normal values | exact sums (fp64) |
//! | `denorm_fp16_fp32_*` | float add and two half adds | exact values | exact sums (fp16) |
//! | `denorm_fp16_fp64_fp32_*` | double, float and half adds | exact values | exact sums (fp16, fp64) |
//!
//! Cases needing a feature the device lacks ([`Needs`], checked against
//! [`Features`]) are skipped: on lavapipe (no descriptor indexing) `bindless_cbv`,
//! `descriptor_range_validation`, `bindless_uav`, `bindless_samplers` and
//! `static_sampler_dynamic_index`. Wave cases compute their expectation from the device's
//! subgroup size.

use super::{
    AddressSlot, Binding, DeviceBuffer, DeviceInfo, Dispatch, Features, Gpu, Image, ImageDim, Resource, SamplerDesc,
    VkError,
};
use ash::vk;
use std::time::{Duration, Instant};
use untangle::dxil::ResourceClass;
use untangle::rootsig::layout::ArgStore;

/// A D3D register: class, space, register number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg {
    pub class: ResourceClass,
    pub space: u32,
    pub register: u32,
}

impl std::fmt::Display for Reg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}, space{}", self.class.register_letter(), self.register, self.space)
    }
}

pub fn t(register: u32, space: u32) -> Reg {
    Reg { class: ResourceClass::Srv, space, register }
}
pub fn u(register: u32, space: u32) -> Reg {
    Reg { class: ResourceClass::Uav, space, register }
}
pub fn b(register: u32, space: u32) -> Reg {
    Reg { class: ResourceClass::Cbv, space, register }
}
pub fn s(register: u32, space: u32) -> Reg {
    Reg { class: ResourceClass::Sampler, space, register }
}

/// What a D3D resource is, independent of how it is bound.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// Constant buffer contents (a placement pads them as it needs).
    Cbv(Vec<u8>),
    /// Raw (`ByteAddressBuffer`) or structured buffer bytes.
    Buffer(Vec<u8>),
    /// A typed buffer (`Buffer<T>`, `RWBuffer<T>`) of texels in `format`.
    Typed {
        format: vk::Format,
        bytes: Vec<u8>,
    },
    /// A texture (SRV) or RW texture (UAV).
    Texture(Image),
    Sampler(SamplerDesc),
}

#[derive(Clone, Debug, PartialEq)]
pub struct CaseResource {
    pub reg: Reg,
    pub kind: Kind,
}

/// What one 32-bit word read back must be.
#[derive(Clone, Debug, PartialEq)]
pub enum Want {
    Eq(u32),
    /// Any value (undefined by D3D, or not looked at).
    Any,
    OneOf(Vec<u32>),
    /// A float within `ulps` units in the last place of `want` (its bits), counted across
    /// zero as vkd3d-proton's `compare_float` counts them (−0 and +0 are 0 apart).
    F32Ulps {
        want: u32,
        ulps: u32,
    },
}

/// The distance in units in the last place between two floats' bits, on one ordered
/// integer line through zero (vkd3d-proton's `compare_float`).
pub fn f32_ulp_distance(a: u32, b: u32) -> u64 {
    let line = |x: u32| if x & 0x8000_0000 != 0 { -i64::from(x & 0x7fff_ffff) } else { i64::from(x) };
    line(a).abs_diff(line(b))
}

/// A case's inputs and expected outputs (which may depend on the device's features, for
/// example its subgroup size).
#[derive(Clone, Debug)]
pub struct Spec {
    pub groups: [u32; 3],
    pub resources: Vec<CaseResource>,
    /// Per register, what each word read back must be (the whole resource).
    pub expect: Vec<(Reg, Vec<Want>)>,
}

/// Optional device features a case needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    pub descriptor_indexing: bool,
    pub int64: bool,
    pub int64_atomics: bool,
    pub int16: bool,
    /// 16-bit floats (and 16-bit storage).
    pub float16: bool,
    pub float64: bool,
    /// A subgroup size at least this (0: no need).
    pub min_subgroup: u32,
    /// Quad operations in compute.
    pub quad: bool,
}

impl Needs {
    /// Why `f` cannot run the case, if it cannot.
    pub fn missing(&self, f: &Features) -> Option<String> {
        let mut m = Vec::new();
        if self.descriptor_indexing && !f.descriptor_indexing {
            m.push("descriptor indexing".to_string());
        }
        if self.int64 && !f.shader_int64 {
            m.push("shaderInt64".to_string());
        }
        if self.int64_atomics && !f.int64_atomics {
            m.push("64-bit atomics".to_string());
        }
        if self.int16 && !(f.shader_int16 && f.storage_16bit) {
            m.push("16-bit ints and storage".to_string());
        }
        if self.float16 && !(f.shader_float16 && f.storage_16bit) {
            m.push("16-bit floats and storage".to_string());
        }
        if self.float64 && !f.shader_float64 {
            m.push("shaderFloat64".to_string());
        }
        if self.min_subgroup > 0 && f.subgroup_size < self.min_subgroup {
            m.push(format!("subgroup size ≥ {} (have {})", self.min_subgroup, f.subgroup_size));
        }
        if self.quad && f.subgroup_ops & vk::SubgroupFeatureFlags::QUAD.as_raw() == 0 {
            m.push("quad subgroup operations".to_string());
        }
        (!m.is_empty()).then(|| m.join(", "))
    }
}

/// One corpus case.
#[derive(Clone, Copy)]
pub struct Case {
    pub name: &'static str,
    /// The file in `dxil/vkd3d-proton/`.
    pub file: &'static str,
    pub needs: Needs,
    pub spec: fn(&Features) -> Spec,
}

/// Where one D3D resource goes for a dispatch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placed {
    /// The shader does not use it: not bound, read back unchanged.
    Unused,
    Binding(Binding),
    /// Its first `len` bytes copied into the root arguments (push constants or the root
    /// argument buffer) at this offset (CBV contents as root constants; not read back).
    RootBytes {
        store: ArgStore,
        offset: u32,
        len: u32,
    },
    /// A device-address buffer whose address lands in the root arguments at this offset.
    DeviceBuffer {
        store: ArgStore,
        offset: u32,
    },
}

/// The root argument buffer of a translation: a uniform buffer at `(set, binding)` with its
/// bytes before any resource lands there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootArgumentBytes {
    pub set: u32,
    pub binding: u32,
    pub bytes: Vec<u8>,
}

/// Turns a case's D3D resources into runner bindings for one translated shader.
pub trait Placement {
    /// The translator options `shader` is translated with (a root-signature placement
    /// passes its root signature and layout options here).
    fn options(&self, _shader: &[u8]) -> Result<untangle::emit::translate::Options, String> {
        Ok(untangle::emit::translate::Options::default())
    }
    /// Push-constant bytes the placement writes itself (descriptor-table offsets), before
    /// any resource's bytes land there.
    fn base_push_constants(&self, _translation: &untangle::emit::translate::Translation) -> Vec<u8> {
        Vec::new()
    }
    /// The root argument buffer the translation reads (`None`: it has none), with the
    /// bytes the placement writes itself (descriptor-table offsets).
    fn root_argument_buffer(&self, _translation: &untangle::emit::translate::Translation) -> Option<RootArgumentBytes> {
        None
    }
    /// Where `res` goes.
    fn place(&self, translation: &untangle::emit::translate::Translation, res: &CaseResource)
        -> Result<Placed, String>;
    /// Minimum descriptor counts `(set, binding, count)` (descriptor tables larger than
    /// the elements a case binds); see [`Dispatch::min_counts`].
    fn min_counts(&self, _translation: &untangle::emit::translate::Translation) -> Vec<(u32, u32, u32)> {
        Vec::new()
    }
}

/// The translator's default binding model (`emit::binding_model`).
pub struct DefaultPlacement;

/// Parses a mapping row's register (`"u2, space1"`) into (letter, lower bound, space).
fn parse_register(r: &str) -> Option<(char, u32, u32)> {
    let (a, sp) = r.split_once(", space")?;
    let letter = a.chars().next()?;
    Some((letter, a[1..].parse().ok()?, sp.trim().parse().ok()?))
}

/// Vulkan resource for a D3D resource of `kind` in `class` (SRV/CBV read-only kinds).
pub fn default_resource(class: ResourceClass, kind: &Kind) -> Resource {
    let uav = class == ResourceClass::Uav;
    match kind {
        Kind::Cbv(bytes) => {
            let mut b = bytes.clone();
            b.resize(bytes.len().div_ceil(16).max(1) * 16, 0);
            Resource::UniformBuffer(b)
        }
        Kind::Buffer(bytes) => Resource::StorageBuffer(bytes.clone()),
        Kind::Typed { format, bytes } if uav => Resource::StorageTexelBuffer { format: *format, bytes: bytes.clone() },
        Kind::Typed { format, bytes } => Resource::UniformTexelBuffer { format: *format, bytes: bytes.clone() },
        Kind::Texture(i) if uav => Resource::StorageImage(i.clone()),
        Kind::Texture(i) => Resource::SampledImage(i.clone()),
        Kind::Sampler(sd) => Resource::Sampler(*sd),
    }
}

impl Placement for DefaultPlacement {
    /// The default model puts space `s` in set `s`, but Vulkan devices bind at most 32 sets
    /// (lavapipe 8): ranges in spaces 32 and up move to set `16 + s % 16` through the
    /// binding map (`--binding-map`), keeping their default binding.
    fn options(&self, shader: &[u8]) -> Result<untangle::emit::translate::Options, String> {
        use untangle::emit::binding_model::{default_binding, BindingMap, MapEntry};
        let loaded = untangle::front::load_bytes(shader.to_vec(), "shader").map_err(|e| e.to_string())?;
        let info = untangle::dxil::analyze(&loaded.module).map_err(|e| e.to_string())?;
        let mut entries = Vec::new();
        for ep in &info.entry_points {
            for r in ep.resources.iter().filter(|r| r.space >= 32) {
                let b = default_binding(r.class, r.space, r.lower_bound);
                entries.push(MapEntry {
                    class: r.class,
                    space: r.space,
                    register: r.lower_bound,
                    set: 16 + r.space % 16,
                    binding: b.binding,
                });
            }
        }
        Ok(untangle::emit::translate::Options { binding_map: BindingMap { entries }, ..Default::default() })
    }

    fn place(&self, tr: &untangle::emit::translate::Translation, res: &CaseResource) -> Result<Placed, String> {
        let letter = res.reg.class.register_letter();
        for row in &tr.bindings {
            let Some((l, lower, space)) = parse_register(&row.register) else {
                continue;
            };
            if l != letter || space != res.reg.space || res.reg.register < lower {
                continue;
            }
            let offset = res.reg.register - lower;
            if row.count.is_some_and(|c| offset >= c) {
                continue;
            }
            let resource = default_resource(res.reg.class, &res.kind);
            return Ok(Placed::Binding(Binding { set: row.set, binding: row.binding, element: offset, resource }));
        }
        Ok(Placed::Unused)
    }
}

/// The outcome of one case.
#[derive(Clone, Debug)]
pub enum Outcome {
    Pass,
    /// The device lacks a feature the case needs.
    Skipped(String),
    Fail(String),
}

/// One case's result with timing.
#[derive(Clone, Debug)]
pub struct CaseReport {
    pub name: &'static str,
    pub outcome: Outcome,
    pub wall: Duration,
}

/// Compares a resource's words read back with what they must be.
pub fn compare(reg: Reg, got: &[u8], want: &[Want]) -> Result<(), String> {
    let words: Vec<u32> = got.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    if words.len() < want.len() {
        return Err(format!("{reg}: {} words read back, {} expected", words.len(), want.len()));
    }
    let mut bad = Vec::new();
    for (i, (w, g)) in want.iter().zip(&words).enumerate() {
        let ok = match w {
            Want::Eq(v) => v == g,
            Want::Any => true,
            Want::OneOf(vs) => vs.contains(g),
            Want::F32Ulps { want, ulps } => f32_ulp_distance(*want, *g) <= u64::from(*ulps),
        };
        if !ok {
            bad.push(format!("[{i}] got {g:#x}, want {w:x?}"));
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        let n = bad.len();
        bad.truncate(6);
        Err(format!("{reg}: {n} words differ: {}", bad.join("; ")))
    }
}

/// Translates, places, dispatches and checks `spec` for the shader `bytes`.
pub fn run_spec(
    gpu: &mut Gpu,
    bytes: &[u8],
    spec: &Spec,
    placement: &dyn Placement,
    timeout: Duration,
) -> Result<(), String> {
    let options = placement.options(bytes)?;
    let tr = untangle::translate(bytes, &options).map_err(|e| format!("translate: {e}"))?;
    let mut bindings = Vec::new();
    let mut push = placement.base_push_constants(&tr);
    let mut root_args = placement.root_argument_buffer(&tr);
    let mut device_buffers = Vec::new();
    // Device buffers whose address goes into the root argument buffer, once it is a binding.
    let mut spilled_addresses = Vec::new();
    // Where each resource's bytes come back: binding index, device buffer index, or none.
    enum Back {
        Binding(usize),
        Device(usize),
        Unchanged,
    }
    let mut back = Vec::new();
    for res in &spec.resources {
        let placed = placement.place(&tr, res).map_err(|e| format!("placing {}: {e}", res.reg))?;
        let bytes_of = |k: &Kind| match k {
            Kind::Cbv(b) | Kind::Buffer(b) => b.clone(),
            Kind::Typed { bytes, .. } => bytes.clone(),
            Kind::Texture(i) => i.bytes.clone(),
            Kind::Sampler(_) => Vec::new(),
        };
        match placed {
            Placed::Unused => back.push(Back::Unchanged),
            Placed::Binding(b) => {
                back.push(Back::Binding(bindings.len()));
                bindings.push(b);
            }
            Placed::RootBytes { store, offset, len } => {
                let mut b = bytes_of(&res.kind);
                b.resize(len as usize, 0);
                let end = offset as usize + b.len();
                let target = match store {
                    ArgStore::PushConstants => &mut push,
                    ArgStore::RootArgumentBuffer => {
                        &mut root_args.as_mut().ok_or("a spilled root argument without a root argument buffer")?.bytes
                    }
                    ArgStore::ShaderRecord => {
                        return Err("a shader-record argument outside a ray-tracing pipeline".into())
                    }
                };
                if target.len() < end {
                    target.resize(end, 0);
                }
                target[offset as usize..end].copy_from_slice(&b);
                back.push(Back::Unchanged);
            }
            Placed::DeviceBuffer { store, offset } => {
                back.push(Back::Device(device_buffers.len()));
                if store == ArgStore::RootArgumentBuffer {
                    spilled_addresses.push((device_buffers.len(), offset));
                }
                device_buffers.push(DeviceBuffer { bytes: bytes_of(&res.kind), address: AddressSlot::Push(offset) });
            }
        }
    }
    if let Some(r) = root_args {
        for (i, offset) in spilled_addresses {
            device_buffers[i].address = AddressSlot::Binding { binding: bindings.len(), offset };
        }
        bindings.push(Binding::new(r.set, r.binding, Resource::UniformBuffer(r.bytes)));
    }
    let d = Dispatch {
        spirv: &tr.words,
        entry: &tr.entry_point,
        bindings,
        push_constants: push,
        device_buffers,
        min_counts: placement.min_counts(&tr),
        groups: spec.groups,
        timeout,
    };
    let result = gpu.dispatch(&d).map_err(|e: VkError| e.to_string())?;
    let mut errors = Vec::new();
    for (reg, want) in &spec.expect {
        let Some(i) = spec.resources.iter().position(|r| r.reg == *reg) else {
            errors.push(format!("{reg}: expected output names no resource"));
            continue;
        };
        let got: Vec<u8> = match back[i] {
            Back::Binding(j) => result.resources[j].bytes().unwrap_or_default().to_vec(),
            Back::Device(j) => result.device_buffers[j].clone(),
            Back::Unchanged => match &spec.resources[i].kind {
                Kind::Cbv(b) | Kind::Buffer(b) | Kind::Typed { bytes: b, .. } => b.clone(),
                Kind::Texture(img) => img.bytes.clone(),
                Kind::Sampler(_) => Vec::new(),
            },
        };
        if let Err(e) = compare(*reg, &got, want) {
            errors.push(e);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

/// Runs one case from `corpus_dir` (the `dxil/vkd3d-proton` folder).
pub fn run_case(
    gpu: &mut Gpu,
    case: &Case,
    corpus_dir: &std::path::Path,
    placement: &dyn Placement,
    timeout: Duration,
) -> CaseReport {
    let start = Instant::now();
    let info: DeviceInfo = gpu.info().clone();
    let outcome = if let Some(why) = case.needs.missing(&info.features) {
        Outcome::Skipped(why)
    } else {
        let spec = (case.spec)(&info.features);
        match std::fs::read(corpus_dir.join(case.file)) {
            Err(e) => Outcome::Fail(format!("reading {}: {e}", case.file)),
            Ok(bytes) => match run_spec(gpu, &bytes, &spec, placement, timeout) {
                Ok(()) => Outcome::Pass,
                Err(e) => Outcome::Fail(e),
            },
        }
    };
    CaseReport { name: case.name, outcome, wall: start.elapsed() }
}

// ---------------------------------------------------------------------------------------
// Helpers for building cases.

fn le(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
fn le64(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}
fn eq(words: &[u32]) -> Vec<Want> {
    words.iter().map(|&w| Want::Eq(w)).collect()
}
fn buf(reg: Reg, words: &[u32]) -> CaseResource {
    CaseResource { reg, kind: Kind::Buffer(le(words)) }
}
fn cbv(reg: Reg, words: &[u32]) -> CaseResource {
    CaseResource { reg, kind: Kind::Cbv(le(words)) }
}
/// Distinct filler words that a shader's writes must differ from.
fn fill(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32).map(|i| 0xA5A5_0000 ^ seed.wrapping_mul(0x9E37_79B9) ^ i.wrapping_mul(0x0101_0101)).collect()
}
fn tex2d(format: vk::Format, w: u32, h: u32, bytes: Vec<u8>) -> Image {
    Image { dim: ImageDim::D2, format, extent: [w, h, 1], layers: 1, arrayed: false, bytes }
}
fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

// ---------------------------------------------------------------------------------------
// The cases.

/// Every case, in table order.
pub fn cases() -> Vec<Case> {
    let n = Needs::default;
    vec![
        Case {
            name: "root_constant_indexing",
            file: "shaders.cs_root_constant_indexing.cs_6_0.dxil",
            needs: n(),
            spec: root_constant_indexing,
        },
        Case {
            name: "update_root_descriptors",
            file: "descriptors.update_root_descriptors.cs_6_0.dxil",
            needs: n(),
            spec: update_root_descriptors,
        },
        Case {
            name: "uav_robustness_oob_structure_element",
            file: "descriptors.uav_robustness_oob_structure_element.cs_6_0.dxil",
            needs: n(),
            spec: oob_structure_element,
        },
        Case { name: "unpack_u8_u32", file: "sm_advanced.cs_unpack_u8_u32.cs_6_6.dxil", needs: n(), spec: unpack_u8 },
        Case { name: "unpack_s8_s32", file: "sm_advanced.cs_unpack_s8_s32.cs_6_6.dxil", needs: n(), spec: unpack_s8 },
        Case {
            name: "pack_s32_s8_clamp",
            file: "sm_advanced.cs_pack_s32_s8_clamp.cs_6_6.dxil",
            needs: n(),
            spec: pack_s32_s8,
        },
        Case {
            name: "pack_s16_s8_clamp",
            file: "sm_advanced.cs_pack_s16_s8_clamp.cs_6_6.dxil",
            needs: Needs { int16: true, ..n() },
            spec: pack_s16_s8,
        },
        Case {
            name: "pack_s16_u8_clamp",
            file: "sm_advanced.cs_pack_s16_u8_clamp.cs_6_6.dxil",
            needs: Needs { int16: true, ..n() },
            spec: pack_s16_u8,
        },
        Case { name: "packed_i8dot", file: "sm_advanced.cs_packed_i8dot.cs_6_4.dxil", needs: n(), spec: packed_i8dot },
        Case { name: "msad", file: "shaders.cs_msad.cs_6_0.dxil", needs: n(), spec: msad },
        Case {
            name: "bindless_cbv",
            file: "bindless.bindless_cbv.cs_6_0.dxil",
            needs: Needs { descriptor_indexing: true, ..n() },
            spec: bindless_cbv,
        },
        Case { name: "cbv_hoisting", file: "command.cbv_hoisting.cs_6_0.dxil", needs: n(), spec: cbv_hoisting },
        Case {
            name: "cbv_layout_modern_uint32",
            file: "sm_advanced.cs_cbv_layout_modern_uint32.cs_6_0.dxil",
            needs: n(),
            spec: cbv_modern_u32,
        },
        Case {
            name: "cbv_layout_legacy_uint64",
            file: "sm_advanced.cs_cbv_layout_legacy_uint64.cs_6_0.dxil",
            needs: Needs { int64: true, ..n() },
            spec: cbv_legacy_u64,
        },
        Case {
            name: "descriptor_range_validation",
            file: "pso.descriptor_range_validation.cs_6_0.dxil",
            needs: Needs { descriptor_indexing: true, ..n() },
            spec: descriptor_range_validation,
        },
        Case {
            name: "wave_match",
            file: "sm_advanced.cs_wave_match.cs_6_5.dxil",
            needs: Needs { min_subgroup: 4, ..n() },
            spec: wave_match,
        },
        Case {
            name: "wave_multi_prefix",
            file: "sm_advanced.cs_wave_multi_prefix.cs_6_5.dxil",
            needs: Needs { min_subgroup: 4, ..n() },
            spec: wave_multi_prefix,
        },
        Case {
            name: "quad_swap_2d_sm60",
            file: "sm_advanced.cs_quad_swap_2d_sm60.cs_6_0.dxil",
            needs: Needs { quad: true, ..n() },
            spec: |_| quad_swap(8, 8),
        },
        Case {
            name: "quad_swap_2d_unaligned",
            file: "sm_advanced.cs_quad_swap_2d_unaligned.cs_6_6.dxil",
            needs: Needs { quad: true, ..n() },
            spec: |_| quad_swap(8, 9),
        },
        Case {
            name: "64bit_atomics_shared",
            file: "sm_advanced.cs_64bit_atomics_shared.cs_6_6.dxil",
            needs: Needs { int64: true, int64_atomics: true, ..n() },
            spec: atomics64_shared,
        },
        Case {
            name: "bindless_uav",
            file: "bindless.bindless_uav.cs_6_0.dxil",
            needs: Needs { descriptor_indexing: true, ..n() },
            spec: bindless_uav,
        },
        Case {
            name: "bindless_samplers",
            file: "bindless.bindless_samplers.cs_6_0.dxil",
            needs: Needs { descriptor_indexing: true, ..n() },
            spec: bindless_samplers,
        },
        Case {
            name: "static_sampler_dynamic_index",
            file: "descriptors.static_sampler_dynamic_index.cs_6_0.dxil",
            needs: Needs { descriptor_indexing: true, ..n() },
            spec: static_sampler_dynamic_index,
        },
        Case {
            name: "oob_vectorized_byte_address_32bit_write",
            file: "robustness.oob_behavior_vectorized_byte_address_32bit_write.cs_6_0.dxil",
            needs: n(),
            spec: raw_vector_write,
        },
        Case {
            name: "oob_vectorized_byte_address_32bit_read",
            file: "robustness.oob_behavior_vectorized_byte_address_32bit_read.cs_6_0.dxil",
            needs: n(),
            spec: raw_vector_read,
        },
        Case {
            name: "oob_vectorized_structured_16bit_write",
            file: "robustness.oob_behavior_vectorized_structured_16bit_write.cs_6_2.dxil",
            needs: Needs { int16: true, ..n() },
            spec: structured_16bit_write,
        },
        Case {
            name: "cbv_layout_modern_uint16",
            file: "sm_advanced.cs_cbv_layout_modern_uint16.cs_6_2.dxil",
            needs: Needs { int16: true, ..n() },
            spec: cbv_modern_u16,
        },
        Case {
            name: "packed_dot2add",
            file: "sm_advanced.cs_packed_dot2add.cs_6_4.dxil",
            needs: Needs { float16: true, ..n() },
            spec: packed_dot2add,
        },
        Case { name: "denorm_ftz", file: "sm_advanced.cs_denorm_ftz.cs_6_2.dxil", needs: n(), spec: denorm_mul2 },
        Case {
            name: "denorm_preserve",
            file: "sm_advanced.cs_denorm_preserve.cs_6_2.dxil",
            needs: n(),
            spec: denorm_mul2,
        },
        Case {
            name: "denorm_fp64_fp32_any",
            file: "sm_advanced.cs_denorm_fp64_fp32_any.cs_6_2.dxil",
            needs: Needs { float64: true, ..n() },
            spec: |_| denorm_adds(true, false),
        },
        Case {
            name: "denorm_fp16_fp32_any",
            file: "sm_advanced.cs_denorm_fp16_fp32_any.cs_6_2.dxil",
            needs: Needs { float16: true, ..n() },
            spec: |_| denorm_adds(false, true),
        },
        Case {
            name: "denorm_fp16_fp64_fp32_any",
            file: "sm_advanced.cs_denorm_fp16_fp64_fp32_any.cs_6_2.dxil",
            needs: Needs { float16: true, float64: true, ..n() },
            spec: |_| denorm_adds(true, true),
        },
        Case {
            name: "denorm_fp64_fp32_ftz",
            file: "sm_advanced.cs_denorm_fp64_fp32_ftz.cs_6_2.dxil",
            needs: Needs { float64: true, ..n() },
            spec: |_| denorm_adds(true, false),
        },
        Case {
            name: "denorm_fp16_fp32_ftz",
            file: "sm_advanced.cs_denorm_fp16_fp32_ftz.cs_6_2.dxil",
            needs: Needs { float16: true, ..n() },
            spec: |_| denorm_adds(false, true),
        },
        Case {
            name: "denorm_fp16_fp64_fp32_ftz",
            file: "sm_advanced.cs_denorm_fp16_fp64_fp32_ftz.cs_6_2.dxil",
            needs: Needs { float16: true, float64: true, ..n() },
            spec: |_| denorm_adds(true, true),
        },
        Case {
            name: "denorm_fp64_fp32_preserve",
            file: "sm_advanced.cs_denorm_fp64_fp32_preserve.cs_6_2.dxil",
            needs: Needs { float64: true, ..n() },
            spec: |_| denorm_adds(true, false),
        },
        Case {
            name: "denorm_fp16_fp32_preserve",
            file: "sm_advanced.cs_denorm_fp16_fp32_preserve.cs_6_2.dxil",
            needs: Needs { float16: true, ..n() },
            spec: |_| denorm_adds(false, true),
        },
        Case {
            name: "denorm_fp16_fp64_fp32_preserve",
            file: "sm_advanced.cs_denorm_fp16_fp64_fp32_preserve.cs_6_2.dxil",
            needs: Needs { float16: true, float64: true, ..n() },
            spec: |_| denorm_adds(true, true),
        },
        Case {
            name: "typed_buffer_reads",
            file: "robustness.undefined_structured_raw_read_typed.cs_6_0.dxil",
            needs: n(),
            spec: typed_buffer_reads,
        },
        Case { name: "resinfo", file: "descriptors.null_descriptor_resinfo.cs_6_0.dxil", needs: n(), spec: resinfo },
        Case {
            name: "sample_cmp_level",
            file: "sm_advanced.cs_sample_cmp_level.cs_6_7.dxil",
            needs: n(),
            spec: sample_cmp_level,
        },
        Case {
            name: "raw_gather_32",
            file: "sm_advanced.cs_raw_gather_32.cs_6_7.dxil",
            needs: n(),
            spec: raw_gather_32,
        },
    ]
}

fn root_constant_indexing(_: &Features) -> Spec {
    // 12 rows of 16 bytes; x of row r = 0x1000 + 7r, y..w noise.
    let rows: Vec<u32> =
        (0..12u32).flat_map(|r| [0x1000 + 7 * r, 0xdead_0000 | r, 0xbeef_0000 | r, 0xf00d_0000 | r]).collect();
    let out = fill(12, 1);
    Spec {
        groups: [12, 1, 1],
        resources: vec![buf(u(0, 0), &out), cbv(b(0, 0), &rows)],
        expect: vec![(u(0, 0), eq(&(0..12).map(|g| 0x1000 + 7 * g).collect::<Vec<_>>()))],
    }
}

fn update_root_descriptors(_: &Features) -> Spec {
    let out = fill(8, 2);
    let mut want = out.clone();
    want[5] = 0xCAFE_0005;
    Spec {
        groups: [1, 1, 1],
        resources: vec![buf(u(0, 0), &out), cbv(b(0, 0), &[5, 0xCAFE_0005])],
        expect: vec![(u(0, 0), eq(&want))],
    }
}

fn oob_structure_element(_: &Features) -> Spec {
    let out = fill(24, 3);
    let mut want = out.clone();
    want[3 * 4 + 2] = 0xBEEF;
    Spec {
        groups: [1, 1, 1],
        resources: vec![buf(u(0, 0), &out), cbv(b(0, 0), &[3, 2, 0xBEEF])],
        expect: vec![(u(0, 0), eq(&want))],
    }
}

const BYTES_IN: [u32; 8] =
    [0x0000_0000, 0xFFFF_FFFF, 0x7F80_01FE, 0x1234_5678, 0x80FF_7F01, 0xDEAD_BEEF, 0x0102_0304, 0xC0DE_F00D];

fn unpack(signed: bool) -> Spec {
    let want: Vec<u32> = BYTES_IN
        .iter()
        .flat_map(|&w| {
            (0..4).map(move |k| {
                let byte = (w >> (8 * k)) & 0xff;
                if signed {
                    byte as u8 as i8 as i32 as u32
                } else {
                    byte
                }
            })
        })
        .collect();
    Spec {
        groups: [8, 1, 1],
        resources: vec![buf(t(0, 0), &BYTES_IN), buf(u(0, 0), &fill(32, 4))],
        expect: vec![(u(0, 0), eq(&want))],
    }
}
fn unpack_u8(_: &Features) -> Spec {
    unpack(false)
}
fn unpack_s8(_: &Features) -> Spec {
    unpack(true)
}

fn pack_bytes(v: [i32; 4], lo: i32, hi: i32) -> u32 {
    v.iter().enumerate().map(|(k, &x)| ((x.clamp(lo, hi) as u32) & 0xff) << (8 * k)).fold(0, |a, b| a | b)
}

const PACK_IN: [[i32; 4]; 6] = [
    [0, 1, -1, 127],
    [128, -128, -129, 255],
    [256, -300, 1000, -1000],
    [i32::MAX, i32::MIN, 42, -42],
    [-7, 300, 5, 77],
    [100, -100, 200, -200],
];

fn pack_s32_s8(_: &Features) -> Spec {
    let input: Vec<u32> = PACK_IN.iter().flatten().map(|&x| x as u32).collect();
    let want: Vec<u32> = PACK_IN.iter().map(|&v| pack_bytes(v, -128, 127)).collect();
    Spec {
        groups: [6, 1, 1],
        resources: vec![buf(t(0, 0), &input), buf(u(0, 0), &fill(6, 5))],
        expect: vec![(u(0, 0), eq(&want))],
    }
}

fn pack_s16(lo: i32, hi: i32) -> Spec {
    let v16: Vec<[i16; 4]> = PACK_IN.iter().map(|v| v.map(|x| x.clamp(-32768, 32767) as i16)).collect();
    let input: Vec<u8> = v16.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
    let want: Vec<u32> = v16.iter().map(|v| pack_bytes(v.map(i32::from), lo, hi)).collect();
    Spec {
        groups: [6, 1, 1],
        resources: vec![CaseResource { reg: t(0, 0), kind: Kind::Buffer(input) }, buf(u(0, 0), &fill(6, 6))],
        expect: vec![(u(0, 0), eq(&want))],
    }
}
fn pack_s16_s8(_: &Features) -> Spec {
    pack_s16(-128, 127)
}
fn pack_s16_u8(_: &Features) -> Spec {
    pack_s16(0, 255)
}

fn packed_i8dot(_: &Features) -> Spec {
    // struct Inputs { uint a; uint b; int acc; }: result = acc + Σ sbyte(a, k) · sbyte(b, k).
    let triples: [[u32; 3]; 6] = [
        [0x0102_0304, 0x0506_0708, 0],
        [0xFFFF_FFFF, 0x0101_0101, 10],
        [0x8080_8080, 0x8080_8080, (-5i32) as u32],
        [0x7F7F_7F7F, 0x8181_8181, 1000],
        [0x1234_5678, 0x9ABC_DEF0, 0x7FFF_FFF0],
        [0x00FF_00FF, 0xFF00_FF00, 123_456],
    ];
    let sb = |w: u32, k: u32| ((w >> (8 * k)) & 0xff) as u8 as i8 as i32;
    let want: Vec<u32> = triples
        .iter()
        .map(|&[a, bb, acc]| (0..4).fold(acc as i32, |s, k| s.wrapping_add(sb(a, k) * sb(bb, k))) as u32)
        .collect();
    let input: Vec<u32> = triples.iter().flatten().copied().collect();
    Spec {
        groups: [6, 1, 1],
        resources: vec![buf(t(0, 0), &input), buf(u(0, 0), &fill(6, 7))],
        expect: vec![(u(0, 0), eq(&want))],
    }
}

fn msad(_: &Features) -> Spec {
    // msad4(reference = v.x, source = v.yz, accum = v.w): four masked SADs of the reference
    // against the source window starting at byte 0, 1, 2, 3 of (y, z); reference bytes of
    // 0 are skipped. (D3D: `accum[k] + Σ_{i: ref_i ≠ 0} |ref_i − src_{k+i}|`.)
    let v: [[u32; 4]; 4] = [
        [0x0102_0304, 0x0506_0708, 0x090A_0B0C, 0],
        [0xFF00_80FF, 0x1020_3040, 0x5060_7080, 100],
        [0x0000_0000, 0x1234_5678, 0x9ABC_DEF0, 7],
        [0x80FF_0110, 0xFFFF_FFFF, 0x0000_0000, 0x10_0000],
    ];
    let mut want = Vec::new();
    for [r, y, z, acc] in v {
        let src = (y as u64) | ((z as u64) << 32);
        for k in 0..4 {
            let window = (src >> (8 * k)) as u32;
            let mut sum = acc;
            for i in 0..4 {
                let rb = (r >> (8 * i)) & 0xff;
                let sbyte = (window >> (8 * i)) & 0xff;
                if rb != 0 {
                    sum = sum.wrapping_add(rb.abs_diff(sbyte));
                }
            }
            want.push(sum);
        }
    }
    let input: Vec<u32> = v.iter().flatten().copied().collect();
    Spec {
        groups: [4, 1, 1],
        resources: vec![buf(t(0, 0), &input), buf(u(0, 0), &fill(16, 8))],
        expect: vec![(u(0, 0), eq(&want))],
    }
}

fn bindless_cbv(_: &Features) -> Spec {
    let mut resources = vec![buf(u(0, 0), &fill(64, 9))];
    for i in 0..64u32 {
        resources.push(cbv(b(2 + i, 1), &[0x5000 + i * 3, 1, 2, 3]));
    }
    Spec {
        groups: [1, 1, 1],
        resources,
        expect: vec![(u(0, 0), eq(&(0..64).map(|i| 0x5000 + i * 3).collect::<Vec<_>>()))],
    }
}

fn cbv_hoisting(_: &Features) -> Spec {
    let vals = [0x1111_0000u32, 0x2222_0001, 0x3333_0002, 0x4444_0003];
    let mut resources = vec![buf(u(0, 0), &fill(4, 10))];
    for (r, &v) in vals.iter().enumerate() {
        resources.push(cbv(b(r as u32, 0), &[v, !v, v ^ 1, 0]));
    }
    Spec { groups: [1, 1, 1], resources, expect: vec![(u(0, 0), eq(&vals))] }
}

fn cbv_modern_u32(_: &Features) -> Spec {
    // Thread t: u0[2t] = c0.w0 | c0.w1 << 8 | c0.w2 << 16 | c0.w3 << 24 over row t of the
    // space-0 CBV, u0[2t + 1] the same over the space-1 CBV (32-bit wrapping ORs).
    let c0: Vec<u32> = (0..32u32).map(|i| i * 0x0103 + 1).collect();
    let c1: Vec<u32> = (0..32u32).map(|i| 0x80 + i * 5).collect();
    let pack = |c: &[u32], t: usize| c[4 * t] | c[4 * t + 1] << 8 | c[4 * t + 2] << 16 | c[4 * t + 3] << 24;
    let want: Vec<u32> = (0..8).flat_map(|t| [pack(&c0, t), pack(&c1, t)]).collect();
    Spec {
        groups: [1, 1, 1],
        resources: vec![buf(u(0, 0), &fill(16, 11)), cbv(b(0, 0), &c0), cbv(b(0, 1), &c1)],
        expect: vec![(u(0, 0), eq(&want))],
    }
}

fn cbv_legacy_u64(_: &Features) -> Spec {
    // Each 16-byte row holds two u64. Thread t sums rows 2t and 2t + 1 of both CBVs:
    // s0..s3 = a[k] + b[k] (u64, k over the four u64 of the two rows); writes
    // u0[2t] = lo8(s0) | lo8(s1) << 8 | lo8(s2) << 16 | lo8(s3) << 24 (32-bit ORs of the
    // truncated sums shifted) and u0[2t + 1] = hi32(s0) | (s1 >> 24 & !0xff) |
    // (s2 >> 16 & !0xffff) | (s3 >> 8 & 0xff000000), all truncated to 32 bits.
    let a: Vec<u64> = (0..32u64).map(|i| 0x0102_0304_0506_0708u64.wrapping_mul(i + 1)).collect();
    let c: Vec<u64> = (0..32u64).map(|i| 0xF0E0_D0C0_B0A0_9080u64.wrapping_add(i * 0x1111)).collect();
    let mut want = Vec::new();
    for t in 0..8usize {
        let s: Vec<u64> = (0..4).map(|k| a[4 * t + k].wrapping_add(c[4 * t + k])).collect();
        let w0 = (s[0] as u32) | (s[1] as u32) << 8 | (s[2] as u32) << 16 | (s[3] as u32) << 24;
        let w1 = ((s[0] >> 32) as u32)
            | (((s[1] >> 24) as u32) & !0xff)
            | (((s[2] >> 16) as u32) & !0xffff)
            | (((s[3] >> 8) as u32) & 0xff00_0000);
        want.push(w0);
        want.push(w1);
    }
    Spec {
        groups: [1, 1, 1],
        resources: vec![
            buf(u(0, 0), &fill(16, 12)),
            CaseResource { reg: b(0, 0), kind: Kind::Cbv(le64(&a)) },
            CaseResource { reg: b(0, 1), kind: Kind::Cbv(le64(&c)) },
        ],
        expect: vec![(u(0, 0), eq(&want))],
    }
}

fn descriptor_range_validation(_: &Features) -> Spec {
    // Group g: InterlockedAdd(u[g + 1][0], 1) in space 0 (u1..u2) and space 1 (u1..).
    let mut resources = Vec::new();
    let mut expect = Vec::new();
    for space in 0..2 {
        for r in 1..=2u32 {
            let init = [100 * r + 10 * space, 7, 8];
            resources.push(buf(u(r, space), &init));
            expect.push((u(r, space), eq(&[init[0] + 1, 7, 8])));
        }
    }
    Spec { groups: [2, 1, 1], resources, expect }
}

fn wave_match(f: &Features) -> Spec {
    // u0[lane] = low 32 bits of the mask of lanes (of the wave) holding the same
    // t0[lane] value. 16 threads: with a subgroup size S < 16 every wave has lanes
    // 0..S − 1, loads t0[0..S] and writes the same u0[0..S] (the rest stays); W = min(S, 16).
    let w = f.subgroup_size.clamp(1, 16) as usize;
    let vals: Vec<u32> = [7, 3, 7, 9, 3, 3, 1, 7, 9, 9, 2, 7, 1, 3, 2, 5].to_vec();
    let out = fill(16, 13);
    let want: Vec<u32> = (0..16)
        .map(|i| if i < w { (0..w).filter(|&j| vals[j] == vals[i]).fold(0u32, |m, j| m | 1 << j) } else { out[i] })
        .collect();
    Spec {
        groups: [1, 1, 1],
        resources: vec![buf(t(0, 0), &vals), buf(u(0, 0), &out)],
        expect: vec![(u(0, 0), eq(&want))],
    }
}

fn wave_multi_prefix(f: &Features) -> Spec {
    // Masks (t0[lane], as uint4(mask, 0, 0, 0)): three partitions: even lanes < 8 (0x55),
    // odd lanes < 8 (0xAA), lanes 8..15 (0xFF00). Value = lane + 1. Exclusive prefixes
    // over lanes j < lane of the same partition: u0[lane] = sum (unsigned), u0[16 + lane]
    // = product, u0[32 + lane] = count of those j whose (mask & 0xAAAA) != 0, u0[48 +]
    // = and (identity !0), u0[64 +] = or, u0[80 +] = xor.
    let mask = |l: u32| {
        if l >= 8 {
            0xFF00u32
        } else if l.is_multiple_of(2) {
            0x55
        } else {
            0xAA
        }
    };
    // As in `wave_match`, waves of S < 16 lanes all see lanes 0..S − 1: only lanes below
    // W = min(S, 16) are written (and masks are ANDed with the wave's lanes).
    let w = f.subgroup_size.clamp(1, 16);
    let masks: Vec<u32> = (0..16).map(mask).collect();
    let out = fill(96, 14);
    let mut want = out.clone();
    let mask = |l: u32| mask(l) & ((1u32 << w) - 1);
    for l in 0..w {
        let prev: Vec<u32> = (0..l).filter(|&j| mask(l) & (1 << j) != 0).collect();
        let vals = prev.iter().map(|&j| j + 1);
        want[l as usize] = vals.clone().fold(0u32, u32::wrapping_add);
        want[16 + l as usize] = vals.clone().fold(1u32, u32::wrapping_mul);
        want[32 + l as usize] = prev.iter().filter(|&&j| masks[j as usize] & 0xAAAA != 0).count() as u32;
        want[48 + l as usize] = vals.clone().fold(!0u32, |a, v| a & v);
        want[64 + l as usize] = vals.clone().fold(0u32, |a, v| a | v);
        want[80 + l as usize] = vals.fold(0u32, |a, v| a ^ v);
    }
    Spec {
        groups: [1, 1, 1],
        resources: vec![buf(t(0, 0), &masks), buf(u(0, 0), &out)],
        expect: vec![(u(0, 0), eq(&want))],
    }
}

fn quad_swap(w: u32, h: u32) -> Spec {
    // u0[x, y] = (v(x, y), v across X, across Y, across the diagonal) where the quad is 4
    // consecutive lanes (lane = x + w·y in one group; w = 8 keeps quads within a row):
    // across X = lane ^ 1, across Y = lane ^ 2, diagonal = lane ^ 3.
    let v = |x: u32, y: u32| (x * 16 + y) as f32 + 0.25;
    let tex: Vec<f32> = (0..h).flat_map(|y| (0..w).map(move |x| v(x, y))).collect();
    let mut want = Vec::new();
    for y in 0..h {
        for x in 0..w {
            want.extend([v(x, y), v(x ^ 1, y), v(x ^ 2, y), v(x ^ 3, y)].map(f32::to_bits));
        }
    }
    let out = tex2d(vk::Format::R32G32B32A32_SFLOAT, w, h, f32s(&vec![-1.0; (w * h * 4) as usize]));
    Spec {
        groups: [1, 1, 1],
        resources: vec![
            CaseResource { reg: t(0, 0), kind: Kind::Texture(tex2d(vk::Format::R32_SFLOAT, w, h, f32s(&tex))) },
            CaseResource { reg: u(0, 0), kind: Kind::Texture(out) },
        ],
        expect: vec![(u(0, 0), eq(&want))],
    }
}

fn atomics64_shared(_: &Features) -> Spec {
    // 11 threads; groupshared u64 uv[11], s64 sv[11]: uv[t] = (t ∈ {1, 4, 7}) ? !0 : 0,
    // sv[t] = 0; barrier; threads 0..3 with x = t0[t]: uv[0] += x, uv[1] &= !x,
    // uv[2] |= x, uv[3] umax= x, uv[4] umin= x, sv[5] max= x, sv[6] min= x, uv[7] ^= x,
    // uv[8] = x (exchange: last writer), uv[9], uv[10] = compare-exchange from 0 to x and
    // then x + 1 (the first thread's x); barrier; u0[t] = t ∈ {5, 6} ? sv[t] : uv[t].
    let x: [u64; 4] = [0x0000_0001_0000_0010, 0x8000_0000_0000_0003, 0x0000_0F00_0000_0100, 0x7000_0000_0002_0000];
    let mut want = vec![Want::Any; 22];
    let mut set = |i: usize, v: u64| {
        want[2 * i] = Want::Eq(v as u32);
        want[2 * i + 1] = Want::Eq((v >> 32) as u32);
    };
    set(0, x.iter().fold(0u64, |a, &v| a.wrapping_add(v)));
    set(1, x.iter().fold(!0u64, |a, &v| a & !v));
    set(2, x.iter().fold(0u64, |a, &v| a | v));
    set(3, *x.iter().max().unwrap_or(&0));
    set(4, *x.iter().min().unwrap_or(&0));
    set(5, x.iter().map(|&v| v as i64).fold(0i64, i64::max) as u64);
    set(6, x.iter().map(|&v| v as i64).fold(0i64, i64::min) as u64);
    set(7, x.iter().fold(!0u64, |a, &v| a ^ v));
    for i in [8usize, 9, 10] {
        want[2 * i] = Want::OneOf(x.iter().map(|&v| v as u32).collect());
        want[2 * i + 1] = Want::OneOf(x.iter().map(|&v| (v >> 32) as u32).collect());
    }
    Spec {
        groups: [1, 1, 1],
        resources: vec![CaseResource { reg: t(0, 0), kind: Kind::Buffer(le64(&x)) }, buf(u(0, 0), &fill(22, 15))],
        expect: vec![(u(0, 0), want)],
    }
}

fn bindless_uav(_: &Features) -> Spec {
    // Thread t < 64: RWStructuredBuffer<uint> u[t + 2] (space 1) [0] = t + 1 and
    // RWTexture2D<uint> u[t + 2] (space 2) [0, 0] = t + 257.
    let mut resources = Vec::new();
    let mut expect = Vec::new();
    for i in 0..64u32 {
        resources.push(buf(u(2 + i, 1), &[0xFFFF_0000 | i, 0x1234]));
        expect.push((u(2 + i, 1), eq(&[i + 1, 0x1234])));
        let img = tex2d(vk::Format::R32_UINT, 2, 1, le(&[0xEEEE_0000 | i, 0x4321]));
        resources.push(CaseResource { reg: u(2 + i, 2), kind: Kind::Texture(img) });
        expect.push((u(2 + i, 2), eq(&[i + 257, 0x4321])));
    }
    Spec { groups: [1, 1, 1], resources, expect }
}

fn sampler(linear: bool, address: vk::SamplerAddressMode) -> Kind {
    Kind::Sampler(SamplerDesc { linear, address, ..Default::default() })
}

fn bindless_samplers(_: &Features) -> Spec {
    // u0[t] = (uint) t0.SampleLevel(s[t], (1.1, 1.1), 0) over a 2×2 R32F texture of
    // 1, 2 / 3, 4, nearest filtering: repeat reads texel (0, 0) = 1; clamp-to-edge and
    // mirrored repeat texel (1, 1) = 4; clamp-to-border (transparent black) 0.
    let modes = [
        (vk::SamplerAddressMode::REPEAT, 1u32),
        (vk::SamplerAddressMode::CLAMP_TO_EDGE, 4),
        (vk::SamplerAddressMode::MIRRORED_REPEAT, 4),
        (vk::SamplerAddressMode::CLAMP_TO_BORDER, 0),
    ];
    let mut resources = vec![
        buf(u(0, 0), &fill(64, 16)),
        CaseResource {
            reg: t(0, 0),
            kind: Kind::Texture(tex2d(vk::Format::R32_SFLOAT, 2, 2, f32s(&[1.0, 2.0, 3.0, 4.0]))),
        },
    ];
    for i in 0..64u32 {
        resources.push(CaseResource { reg: s(i, 0), kind: sampler(false, modes[(i * 7 % 4) as usize].0) });
    }
    let want: Vec<u32> = (0..64u32).map(|i| modes[(i * 7 % 4) as usize].1).collect();
    Spec { groups: [1, 1, 1], resources, expect: vec![(u(0, 0), eq(&want))] }
}

fn static_sampler_dynamic_index(_: &Features) -> Spec {
    // u0[g] = t0.SampleLevel(s[g] (space 100), (0.5, 0.5), 0) over a 2×2 R32F texture
    // 1, 2 / 3, 4: nearest reads texel (1, 1) = 4, linear the average 2.5 (exact).
    let mut resources = vec![
        buf(u(0, 0), &fill(4, 17)),
        CaseResource {
            reg: t(0, 0),
            kind: Kind::Texture(tex2d(vk::Format::R32_SFLOAT, 2, 2, f32s(&[1.0, 2.0, 3.0, 4.0]))),
        },
    ];
    let linear = [false, true, true, false];
    for (i, &l) in linear.iter().enumerate() {
        resources.push(CaseResource { reg: s(i as u32, 100), kind: sampler(l, vk::SamplerAddressMode::CLAMP_TO_EDGE) });
    }
    let want: Vec<u32> = linear.iter().map(|&l| if l { 2.5f32 } else { 4.0 }.to_bits()).collect();
    Spec { groups: [4, 1, 1], resources, expect: vec![(u(0, 0), eq(&want))] }
}

fn raw_vector_write(_: &Features) -> Spec {
    // 64 threads: raw u2 word i = i; u3 words 2i, 2i + 1 = 2i, 2i + 1 (one 2-vector
    // store); u4 3-vectors, u5 4-vectors likewise: every written word equals its index.
    // Buffers sized so that every store is in bounds.
    let mut resources = Vec::new();
    let mut expect = Vec::new();
    for (r, n) in [(2u32, 64u32), (3, 128), (4, 192), (5, 256)] {
        resources.push(buf(u(r, 0), &fill(n as usize, 20 + r)));
        expect.push((u(r, 0), eq(&(0..n).collect::<Vec<_>>())));
    }
    Spec { groups: [1, 1, 1], resources, expect }
}

fn raw_vector_read(_: &Features) -> Spec {
    // 64 threads, all loads in bounds of 48-byte sources: thread i < 12 copies u2 word i
    // to u1 word i; i < 6 copies u3 words 2i..2i + 2 to u1 word 16 + 2i; i < 4 copies u4
    // words 3i..3i + 3 to u1 word 32 + 3i; i < 3 copies u5 words 4i..4i + 4 to u1 48 + 4i.
    let src = |r: u32| (0..12u32).map(|k| 0x100 * r + k * 0x11).collect::<Vec<_>>();
    let out = fill(64, 30);
    let mut want = out.clone();
    for (base, r) in [(0, 2), (16, 3), (32, 4), (48, 5)] {
        want[base..base + 12].copy_from_slice(&src(r));
    }
    let mut resources = vec![buf(u(1, 0), &out)];
    let mut expect = vec![(u(1, 0), eq(&want))];
    for r in 2..=5 {
        resources.push(buf(u(r, 0), &src(r)));
        expect.push((u(r, 0), eq(&src(r))));
    }
    Spec { groups: [1, 1, 1], resources, expect }
}

fn structured_16bit_write(_: &Features) -> Spec {
    // 64 threads storing uint16 vectors: u0 (stride 2) [i] = i; u1 (uint16_t2) [i] =
    // (2i, 2i + 1); u2 (uint16_t3) 3i..; u3 (uint16_t4) 4i..; u4, u5, u6 store one
    // uint16 at element i / (2, 3, 4), component i mod (2, 3, 4): halfword i = i. So
    // every written halfword k holds k.
    let halves = |n: u32| -> Vec<u32> { (0..n / 2).map(|w| (2 * w) | (2 * w + 1) << 16).collect() };
    let mut resources = Vec::new();
    let mut expect = Vec::new();
    for (r, n) in [(0u32, 64u32), (1, 128), (2, 192), (3, 256), (4, 64), (5, 64), (6, 64)] {
        // u5: 22 elements of 6 bytes: one more word, not written.
        let extra = if r == 5 { 1 } else { 0 };
        let init = fill((n / 2 + extra) as usize, 40 + r);
        let mut want = halves(n);
        want.extend(&init[(n / 2) as usize..]);
        resources.push(buf(u(r, 0), &init));
        expect.push((u(r, 0), eq(&want)));
    }
    Spec { groups: [1, 1, 1], resources, expect }
}

fn cbv_modern_u16(_: &Features) -> Spec {
    // Thread t, h(o) = the uint16 at byte o of a CBV, base = 16t:
    // s = (h(b + 8) + h(b), h(b + 12) + h(b + 4), h(b + 16) + h(b + 8), h(b + 20) + h(b + 12))
    // (32-bit sums of zero-extended halves); u0[2t] = s0 | s1 << 8 | s2 << 16 | s3 << 24
    // for the space-0 CBV, u0[2t + 1] for the space-1 CBV. Thread 7 reads past the
    // 128-byte CBVs (undefined): its words are not checked.
    let c0: Vec<u8> = (0..128u32).map(|i| (i * 7 + 3) as u8).collect();
    let c1: Vec<u8> = (0..128u32).map(|i| (0xF0u32.wrapping_sub(i * 5)) as u8).collect();
    let h = |c: &[u8], o: usize| u32::from(u16::from_le_bytes([c[o], c[o + 1]]));
    let word = |c: &[u8], t: usize| {
        let b = 16 * t;
        let s = [
            h(c, b + 8) + h(c, b),
            h(c, b + 12) + h(c, b + 4),
            h(c, b + 16) + h(c, b + 8),
            h(c, b + 20) + h(c, b + 12),
        ];
        s[0] | s[1] << 8 | s[2] << 16 | s[3] << 24
    };
    let mut want: Vec<Want> = (0..7).flat_map(|t| [Want::Eq(word(&c0, t)), Want::Eq(word(&c1, t))]).collect();
    want.extend([Want::Any, Want::Any]);
    Spec {
        groups: [1, 1, 1],
        resources: vec![
            buf(u(0, 0), &fill(16, 50)),
            CaseResource { reg: b(0, 0), kind: Kind::Cbv(c0.clone()) },
            CaseResource { reg: b(0, 1), kind: Kind::Cbv(c1.clone()) },
        ],
        expect: vec![(u(0, 0), want)],
    }
}

// Half-precision bit patterns (exact values).
const H1_5: u32 = 0x3E00;
const H2_25: u32 = 0x4080;
const H3_75: u32 = 0x4380;
const HM0_5: u32 = 0xB800;
const H10: u32 = 0x4900;
const H9_5: u32 = 0x48C0;

fn packed_dot2add(_: &Features) -> Spec {
    // struct { half2 a (word 0), half2 b (word 1), float acc }: u0[i] = acc + (a.x·b.x +
    // a.y·b.y); the values are exact in half and float. The last row is vkd3d-proton's
    // test 12: the dot product is completed before the accumulator is added, 2^24 + (1 + 1)
    // = 2^24 + 2 (adding the products one by one rounds back to 2^24 twice).
    const H1: u32 = 0x3C00;
    let rows: [[u32; 3]; 4] = [
        [H1_5 | H2_25 << 16, H10 | HM0_5 << 16, 3.0f32.to_bits()],
        [H3_75 | H9_5 << 16, H1_5 | H2_25 << 16, (-1.0f32).to_bits()],
        [HM0_5 | H10 << 16, HM0_5 | H10 << 16, 0.25f32.to_bits()],
        [H1 | H1 << 16, H1 | H1 << 16, 16_777_216.0f32.to_bits()],
    ];
    let want = [16.875f32, 26.0, 100.5, 16_777_218.0].map(f32::to_bits);
    let input: Vec<u32> = rows.iter().flatten().copied().collect();
    Spec {
        groups: [4, 1, 1],
        resources: vec![buf(t(0, 0), &input), buf(u(0, 0), &fill(4, 51))],
        expect: vec![(u(0, 0), eq(&want))],
    }
}

fn denorm_mul2(_: &Features) -> Spec {
    // u0[i] = t0[i] * 2.0 (float). Normal inputs are checked exactly; for denormal inputs
    // either result is accepted (flushing or preserving depends on the device's float
    // controls, which this test does not check).
    let normal = [1.5f32, -3.25, 1.0e-30, 6.0e37, -0.0, 123.456];
    let denorm = [f32::from_bits(0x0000_0001), f32::from_bits(0x8020_0000), f32::from_bits(0x0040_0000)];
    let input: Vec<f32> = normal.iter().chain(&denorm).copied().collect();
    let mut want: Vec<Want> = normal.iter().map(|&x| Want::Eq((x * 2.0).to_bits())).collect();
    for &x in &denorm {
        let zero = if x.is_sign_negative() { 0x8000_0000 } else { 0 };
        want.push(Want::OneOf(vec![(x * 2.0).to_bits(), zero]));
    }
    let n = input.len() as u32;
    Spec {
        groups: [n, 1, 1],
        resources: vec![
            CaseResource { reg: t(0, 0), kind: Kind::Buffer(f32s(&input)) },
            buf(u(0, 0), &fill(n as usize, 52)),
        ],
        expect: vec![(u(0, 0), want)],
    }
}

fn denorm_adds(fp64: bool, fp16: bool) -> Spec {
    // Raw t0: bytes 0..16 two doubles, 16..24 two floats, 24..32 four halves. Raw u0:
    // bytes 0..8 = the double sum (with fp64), 8..12 = the float sum, 16..20 = the two
    // half sums (h0 + h2, h1 + h3) (with fp16); other bytes untouched. Normal, exact values.
    let (d0, d1) = (1.25e300f64, -3.5e299f64);
    let (f0, f1) = (1.5f32, 2.75f32);
    let mut input = Vec::new();
    input.extend(d0.to_le_bytes());
    input.extend(d1.to_le_bytes());
    input.extend(f0.to_le_bytes());
    input.extend(f1.to_le_bytes());
    input.extend(le(&[H1_5 | H10 << 16, H2_25 | HM0_5 << 16]));
    let out = fill(6, 53);
    let mut want = eq(&out);
    if fp64 {
        let sum = (d0 + d1).to_bits();
        want[0] = Want::Eq(sum as u32);
        want[1] = Want::Eq((sum >> 32) as u32);
    }
    want[2] = Want::Eq((f0 + f1).to_bits());
    if fp16 {
        want[4] = Want::Eq(H3_75 | H9_5 << 16);
    }
    Spec {
        groups: [1, 1, 1],
        resources: vec![CaseResource { reg: t(0, 0), kind: Kind::Buffer(input) }, buf(u(0, 0), &out)],
        expect: vec![(u(0, 0), want)],
    }
}

fn typed_buffer_reads(_: &Features) -> Spec {
    // 64 threads; typed buffers t0..t15 (pairs: uint, float, uint2, float2, uint3, float3,
    // uint4, float4; each pair one array binding): u[r][tid] (RWStructuredBuffer<uint4>
    // array u0..u15) = the c components of t[r][tid] as uint bits, the last repeated to 4.
    // 3-component buffers use a 4-component view format (the shader reads xyz).
    let mut resources = Vec::new();
    let mut expect = Vec::new();
    for r in 0..16u32 {
        let c = (r / 4 + 1) as usize;
        let float = (r / 2) % 2 == 1;
        let value = |i: u32, k: u32| {
            let v = r * 1000 + i * 4 + k + 1;
            if float {
                (v as f32 * 0.5).to_bits()
            } else {
                v ^ 0x5A00_0000
            }
        };
        let stored = if c == 3 { 4 } else { c };
        let texels: Vec<u32> = (0..64u32).flat_map(|i| (0..stored as u32).map(move |k| value(i, k))).collect();
        use vk::Format as F;
        let format = match (stored, float) {
            (1, false) => F::R32_UINT,
            (1, true) => F::R32_SFLOAT,
            (2, false) => F::R32G32_UINT,
            (2, true) => F::R32G32_SFLOAT,
            (_, false) => F::R32G32B32A32_UINT,
            (_, true) => F::R32G32B32A32_SFLOAT,
        };
        resources.push(CaseResource { reg: t(r, 0), kind: Kind::Typed { format, bytes: le(&texels) } });
        let want: Vec<u32> = (0..64u32).flat_map(|i| (0..4u32).map(move |k| value(i, k.min(c as u32 - 1)))).collect();
        resources.push(buf(u(r, 0), &fill(256, 60 + r)));
        expect.push((u(r, 0), eq(&want)));
    }
    Spec { groups: [1, 1, 1], resources, expect }
}

fn resinfo(_: &Features) -> Spec {
    // u10 (uint4 per row): [0] t0 Texture2D<uint> (w, h, −1, mips); [1] t1 Texture2DArray
    // (w, h, layers, mips); [2] t2 Buffer<uint> (n, −1, −1, −1); [3] t3 ByteAddressBuffer
    // (bytes, −1, −1, −1); [4] t4 StructuredBuffer<uint> (n, 4, −1, −1); [5] u5
    // RWTexture2D (w, h, −1, −1); [6] u6 RWTexture2DArray (w, h, layers, −1); [7] u7
    // RWBuffer (n, …); [8] u8 RWByteAddressBuffer (bytes, …); [9] u9 RWStructuredBuffer (n, 4, …).
    let img = |w: u32, h: u32, layers: u32, arrayed: bool| Image {
        dim: ImageDim::D2,
        format: vk::Format::R32_UINT,
        extent: [w, h, 1],
        layers,
        arrayed,
        bytes: le(&fill((w * h * layers) as usize, w * 31 + h)),
    };
    let m = u32::MAX;
    let want: Vec<u32> = vec![
        5, 3, m, 1, //
        4, 2, 3, 1, //
        7, m, m, m, //
        36, m, m, m, //
        11, 4, m, m, //
        6, 4, m, m, //
        3, 5, 2, m, //
        13, m, m, m, //
        52, m, m, m, //
        17, 4, m, m,
    ];
    let typed = |n: usize, seed: u32| Kind::Typed { format: vk::Format::R32_UINT, bytes: le(&fill(n, seed)) };
    let r = |reg, kind| CaseResource { reg, kind };
    Spec {
        groups: [1, 1, 1],
        resources: vec![
            r(t(0, 0), Kind::Texture(img(5, 3, 1, false))),
            r(t(1, 0), Kind::Texture(img(4, 2, 3, true))),
            r(t(2, 0), typed(7, 70)),
            buf(t(3, 0), &fill(9, 71)),
            buf(t(4, 0), &fill(11, 72)),
            r(u(5, 0), Kind::Texture(img(6, 4, 1, false))),
            r(u(6, 0), Kind::Texture(img(3, 5, 2, true))),
            r(u(7, 0), typed(13, 73)),
            buf(u(8, 0), &fill(13, 74)),
            buf(u(9, 0), &fill(17, 75)),
            buf(u(10, 0), &fill(40, 76)),
        ],
        expect: vec![(u(10, 0), eq(&want))],
    }
}

fn sample_cmp_level(_: &Features) -> Spec {
    // 8×8 threads: u0[x, y] (RWTexture2D<float>) = t0.SampleCmpLevel(s0, (0.5, 0.5),
    // reference x · 0.125, lod y · 0.5 + 0.0625). One mip (lod clamps to 0), a 1×1 depth
    // texture of 0.4, comparison LESS_EQUAL (passes when reference ≤ texel): 1.0 for
    // x ≤ 3 (0.375), 0.0 from x = 4 (0.5).
    let depth = Image {
        dim: ImageDim::D2,
        format: vk::Format::D32_SFLOAT,
        extent: [1, 1, 1],
        layers: 1,
        arrayed: false,
        bytes: f32s(&[0.4]),
    };
    let want: Vec<u32> = (0..8).flat_map(|_y| (0..8u32).map(|x| if x <= 3 { 1.0f32 } else { 0.0 }.to_bits())).collect();
    let cmp = SamplerDesc { compare: Some(vk::CompareOp::LESS_OR_EQUAL), ..Default::default() };
    Spec {
        groups: [1, 1, 1],
        resources: vec![
            CaseResource { reg: t(0, 0), kind: Kind::Texture(depth) },
            CaseResource { reg: s(0, 0), kind: Kind::Sampler(cmp) },
            CaseResource { reg: u(0, 0), kind: Kind::Texture(tex2d(vk::Format::R32_SFLOAT, 8, 8, f32s(&[-2.0; 64]))) },
        ],
        expect: vec![(u(0, 0), eq(&want))],
    }
}

fn raw_gather_32(_: &Features) -> Spec {
    // Texture2D<uint> t0 (a 2×2 RGBA32UI view: every channel distinct), point sampler s0;
    // the gathers at (0.5, 0.5) cover all four texels and return, per channel c,
    // (T(0, 1), T(1, 1), T(1, 0), T(0, 0)): u0 words 0..4 = GatherRaw (channel 0), 4..8,
    // 8..12, 12..16, 16..20 = Gather of channels 0, 1, 2, 3.
    let texel = |x: u32, y: u32, c: u32| 0xA000_0000 | (0x100 * (c + 1)) | (0x10 * y) | x;
    let bytes: Vec<u32> = (0..2).flat_map(|y| (0..2).flat_map(move |x| (0..4).map(move |c| texel(x, y, c)))).collect();
    let mut want = Vec::new();
    for c in [0, 0, 1, 2, 3] {
        want.extend([texel(0, 1, c), texel(1, 1, c), texel(1, 0, c), texel(0, 0, c)]);
    }
    Spec {
        groups: [1, 1, 1],
        resources: vec![
            CaseResource { reg: t(0, 0), kind: Kind::Texture(tex2d(vk::Format::R32G32B32A32_UINT, 2, 2, le(&bytes))) },
            CaseResource { reg: s(0, 0), kind: sampler(false, vk::SamplerAddressMode::CLAMP_TO_EDGE) },
            buf(u(0, 0), &fill(20, 80)),
        ],
        expect: vec![(u(0, 0), eq(&want))],
    }
}
