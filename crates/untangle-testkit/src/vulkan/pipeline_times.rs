//! Driver pipeline-creation time of a SPIR-V module (games stutter on pipeline creation,
//! so a translator's output is judged by what the driver makes of it, too).
//!
//! For each module: reflect its descriptor sets, push constants and (fragment) outputs
//! from the words ([`reflect`]), build a matching pipeline layout (not timed), then time
//! `vkCreateShaderModule` + `vkCreate*Pipelines` together. Compute modules get a compute
//! pipeline; vertex modules a graphics pipeline with rasterization discarded; fragment
//! modules one with a fixed pass-through vertex stage ([`position_only_vertex_shader`]),
//! dynamic rendering, one RGBA32F colour attachment per output location and a
//! depth/stencil attachment. Nothing is drawn.
//!
//! Caches: every creation uses its own copy of the module with a distinct
//! `OpSourceExtension "untangle-nonce-N"` ([`with_nonce`]), so a driver cache keyed on the
//! module's bytes cannot answer a later repetition; NVIDIA's on-disk cache must be off too
//! (`__GL_SHADER_DISK_CACHE=0`, set by `untangle-gpu pipeline-times` before loading
//! Vulkan). No `VkPipelineCache` is passed.
//!
//! Reflection is what pipeline creation needs, not a general reflector: one binding type
//! per (set, binding) (the first variable's, if two alias), runtime arrays as 1024
//! descriptors, one push-constant range of 256 bytes (Vulkan's `maxPushConstantsSize` on
//! the devices this runs on) where the module declares push constants.

use super::{vkr, Gpu, Scratch, VkError};
use ash::vk;
use std::collections::BTreeMap;
use std::ffi::CString;
use std::time::{Duration, Instant};

/// The shader stage of a module's first entry point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Vertex,
    Fragment,
    Compute,
}

/// Descriptor bindings: set → binding → (descriptor type, count).
pub type Bindings = BTreeMap<u32, BTreeMap<u32, (vk::DescriptorType, u32)>>;

/// What creating a pipeline for a module needs to know about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reflection {
    pub stage: Stage,
    pub entry: String,
    pub sets: Bindings,
    pub push_constants: bool,
    /// Fragment outputs: highest `Location` + 1.
    pub color_outputs: u32,
    /// The image type behind each image, texel-buffer or combined binding.
    pub images: BTreeMap<(u32, u32), ImageShape>,
    /// Compute: the workgroup size (`LocalSize`, or `LocalSizeId` of constants); else 1s.
    pub local_size: [u32; 3],
    /// The module's `OpCapability` operands.
    pub capabilities: Vec<u32>,
}

/// The scalar an image's texels read as (`OpTypeImage`'s sampled type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    Float,
    Int,
    Uint,
}

/// An `OpTypeImage` as far as binding a resource to it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageShape {
    /// SPIR-V `Dim`: 0 1D, 1 2D, 2 3D, 3 Cube, 4 Rect, 5 Buffer, 6 SubpassData.
    pub dim: u32,
    pub arrayed: bool,
    pub multisampled: bool,
    /// SPIR-V `ImageFormat` (0 = Unknown).
    pub format: u32,
    pub scalar: Scalar,
}

const OP_SOURCE_EXTENSION: u16 = 4;
const OP_CAPABILITY: u16 = 17;
const OP_TYPE_INT: u16 = 21;
const OP_TYPE_FLOAT: u16 = 22;
const OP_ENTRY_POINT: u16 = 15;
const OP_EXECUTION_MODE: u16 = 16;
const OP_EXECUTION_MODE_ID: u16 = 331;
const OP_TYPE_IMAGE: u16 = 25;
const OP_TYPE_SAMPLER: u16 = 26;
const OP_TYPE_SAMPLED_IMAGE: u16 = 27;
const OP_TYPE_ARRAY: u16 = 28;
const OP_TYPE_RUNTIME_ARRAY: u16 = 29;
const OP_TYPE_STRUCT: u16 = 30;
const OP_TYPE_POINTER: u16 = 32;
const OP_CONSTANT: u16 = 43;
const OP_VARIABLE: u16 = 59;
const OP_DECORATE: u16 = 71;
const OP_TYPE_ACCELERATION_STRUCTURE: u16 = 5341;

const EM_LOCAL_SIZE: u32 = 17;
const EM_LOCAL_SIZE_ID: u32 = 38;

const DEC_BLOCK: u32 = 2;
const DEC_BUFFER_BLOCK: u32 = 3;
const DEC_LOCATION: u32 = 30;
const DEC_BINDING: u32 = 33;
const DEC_DESCRIPTOR_SET: u32 = 34;

const SC_UNIFORM_CONSTANT: u32 = 0;
const SC_OUTPUT: u32 = 3;
const SC_UNIFORM: u32 = 2;
const SC_PUSH_CONSTANT: u32 = 9;
const SC_STORAGE_BUFFER: u32 = 12;

/// Descriptors a runtime array is given in the layout.
const RUNTIME_ARRAY_COUNT: u32 = 1024;
/// Descriptor sets a layout may have (`maxBoundDescriptorSets` is 32 on the devices this
/// runs on, 8 guaranteed); a module naming a higher set cannot get a pipeline.
const MAX_SETS: u32 = 32;
/// The push-constant range given to modules that declare push constants.
const PUSH_CONSTANT_BYTES: u32 = 256;

/// The instructions of a module after its header, as (opcode, operands) slices.
fn instructions(words: &[u32]) -> impl Iterator<Item = (u16, &[u32])> {
    let mut i = 5.min(words.len());
    std::iter::from_fn(move || {
        let first = *words.get(i)?;
        let n = ((first >> 16) as usize).max(1);
        let operands = words.get(i + 1..i + n)?;
        i += n;
        Some(((first & 0xffff) as u16, operands))
    })
}

fn literal_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).take_while(|&b| b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Reflects what [`Reflection`] holds; `None` for a module that is not a vertex, fragment
/// or compute shader, or that is malformed.
pub fn reflect(words: &[u32]) -> Option<Reflection> {
    reflect_as(words, false)
}

/// The descriptor bindings of a module of any stage (set → binding → (type, count), as
/// [`Reflection::sets`]); `None` for a malformed module or one without an entry point.
pub fn reflect_bindings(words: &[u32]) -> Option<Bindings> {
    reflect_as(words, true).map(|r| r.sets)
}

/// The execution model of a module's first `OpEntryPoint` (SPIR-V's number: 0 vertex,
/// 1 tessellation control, 2 tessellation evaluation, 3 geometry, 4 fragment, 5 compute,
/// 5364 task, 5365 mesh) and its name.
pub fn first_entry_point(words: &[u32]) -> Option<(u32, String)> {
    instructions(words)
        .find(|(op, w)| *op == OP_ENTRY_POINT && w.len() >= 3)
        .map(|(_, w)| (w[0], literal_string(&w[2..])))
}

/// [`reflect`]; with `any_stage`, a module of another stage too, reflected as if it were
/// a vertex shader (its bindings and push constants are right; `stage` is not).
fn reflect_as(words: &[u32], any_stage: bool) -> Option<Reflection> {
    #[derive(Clone, Copy)]
    enum Ty {
        Image { buffer: bool, storage: bool, shape: ImageShape, sampled_type: u32 },
        Sampler,
        SampledImage { image: u32 },
        Array { elem: u32, len_id: Option<u32> },
        Struct,
        Acceleration,
        Pointer { pointee: u32 },
    }
    let mut entry = None;
    let mut types: BTreeMap<u32, Ty> = BTreeMap::new();
    let mut constants: BTreeMap<u32, u32> = BTreeMap::new();
    let mut decorations: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    let mut variables: Vec<(u32, u32, u32)> = Vec::new(); // (id, pointer type, class)
    let mut scalars: BTreeMap<u32, Scalar> = BTreeMap::new();
    let mut local_size = None;
    let mut capabilities = Vec::new();
    let mut local_size_ids = None;
    for (op, w) in instructions(words) {
        match op {
            OP_ENTRY_POINT if entry.is_none() && w.len() >= 3 => {
                let stage = match w[0] {
                    0 => Stage::Vertex,
                    4 => Stage::Fragment,
                    5 => Stage::Compute,
                    _ if any_stage => Stage::Vertex,
                    _ => return None,
                };
                entry = Some((stage, literal_string(&w[2..])));
            }
            OP_TYPE_IMAGE if w.len() >= 8 => {
                let shape = ImageShape {
                    dim: w[2],
                    arrayed: w[4] != 0,
                    multisampled: w[5] != 0,
                    format: w[7],
                    scalar: Scalar::Float,
                };
                types.insert(w[0], Ty::Image { buffer: w[2] == 5, storage: w[6] == 2, shape, sampled_type: w[1] });
            }
            OP_CAPABILITY if !w.is_empty() => capabilities.push(w[0]),
            OP_TYPE_INT if w.len() >= 3 => {
                scalars.insert(w[0], if w[2] != 0 { Scalar::Int } else { Scalar::Uint });
            }
            OP_TYPE_FLOAT if !w.is_empty() => {
                scalars.insert(w[0], Scalar::Float);
            }
            OP_EXECUTION_MODE if w.len() >= 5 && w[1] == EM_LOCAL_SIZE && local_size.is_none() => {
                local_size = Some([w[2], w[3], w[4]]);
            }
            OP_EXECUTION_MODE_ID if w.len() >= 5 && w[1] == EM_LOCAL_SIZE_ID && local_size_ids.is_none() => {
                local_size_ids = Some([w[2], w[3], w[4]]);
            }
            OP_TYPE_SAMPLER if !w.is_empty() => {
                types.insert(w[0], Ty::Sampler);
            }
            OP_TYPE_SAMPLED_IMAGE if w.len() >= 2 => {
                types.insert(w[0], Ty::SampledImage { image: w[1] });
            }
            OP_TYPE_ARRAY if w.len() >= 3 => {
                types.insert(w[0], Ty::Array { elem: w[1], len_id: Some(w[2]) });
            }
            OP_TYPE_RUNTIME_ARRAY if w.len() >= 2 => {
                types.insert(w[0], Ty::Array { elem: w[1], len_id: None });
            }
            OP_TYPE_STRUCT if !w.is_empty() => {
                types.insert(w[0], Ty::Struct);
            }
            OP_TYPE_ACCELERATION_STRUCTURE if !w.is_empty() => {
                types.insert(w[0], Ty::Acceleration);
            }
            OP_TYPE_POINTER if w.len() >= 3 => {
                types.insert(w[0], Ty::Pointer { pointee: w[2] });
            }
            OP_CONSTANT if w.len() >= 3 => {
                constants.insert(w[1], w[2]);
            }
            OP_DECORATE if w.len() >= 2 => {
                decorations.insert((w[0], w[1]), w.get(2).copied().unwrap_or(0));
            }
            OP_VARIABLE if w.len() >= 3 => variables.push((w[1], w[0], w[2])),
            _ => {}
        }
    }
    let (stage, entry) = entry?;
    let local_size = local_size
        .or_else(|| local_size_ids.map(|ids| ids.map(|id| constants.get(&id).copied().unwrap_or(1))))
        .unwrap_or([1, 1, 1]);
    let mut out = Reflection {
        stage,
        entry,
        sets: BTreeMap::new(),
        push_constants: false,
        color_outputs: 0,
        images: BTreeMap::new(),
        local_size,
        capabilities,
    };
    for (id, ptr, class) in variables {
        let Some(&Ty::Pointer { pointee, .. }) = types.get(&ptr) else { continue };
        match class {
            SC_PUSH_CONSTANT => out.push_constants = true,
            SC_OUTPUT if stage == Stage::Fragment => {
                if let Some(&loc) = decorations.get(&(id, DEC_LOCATION)) {
                    out.color_outputs = out.color_outputs.max(loc + 1);
                }
            }
            SC_UNIFORM_CONSTANT | SC_UNIFORM | SC_STORAGE_BUFFER => {
                let (Some(&set), Some(&binding)) =
                    (decorations.get(&(id, DEC_DESCRIPTOR_SET)), decorations.get(&(id, DEC_BINDING)))
                else {
                    continue;
                };
                let (mut ty, mut count) = (pointee, 1u32);
                while let Some(&Ty::Array { elem, len_id }) = types.get(&ty) {
                    count = count.saturating_mul(match len_id {
                        Some(l) => constants.get(&l).copied().unwrap_or(1).max(1),
                        None => RUNTIME_ARRAY_COUNT,
                    });
                    ty = elem;
                }
                let descriptor = match (class, types.get(&ty)) {
                    (SC_STORAGE_BUFFER, _) => vk::DescriptorType::STORAGE_BUFFER,
                    (SC_UNIFORM, _) if decorations.contains_key(&(ty, DEC_BUFFER_BLOCK)) => {
                        vk::DescriptorType::STORAGE_BUFFER
                    }
                    (SC_UNIFORM, _) if decorations.contains_key(&(ty, DEC_BLOCK)) => vk::DescriptorType::UNIFORM_BUFFER,
                    (_, Some(Ty::Image { buffer: true, storage: true, .. })) => {
                        vk::DescriptorType::STORAGE_TEXEL_BUFFER
                    }
                    (_, Some(Ty::Image { buffer: true, storage: false, .. })) => {
                        vk::DescriptorType::UNIFORM_TEXEL_BUFFER
                    }
                    (_, Some(Ty::Image { buffer: false, storage: true, .. })) => vk::DescriptorType::STORAGE_IMAGE,
                    (_, Some(Ty::Image { buffer: false, storage: false, .. })) => vk::DescriptorType::SAMPLED_IMAGE,
                    (_, Some(Ty::Sampler)) => vk::DescriptorType::SAMPLER,
                    (_, Some(Ty::SampledImage { .. })) => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                    (_, Some(Ty::Acceleration)) => vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
                    _ => continue,
                };
                let image = match types.get(&ty) {
                    Some(&Ty::SampledImage { image }) => types.get(&image),
                    other => other,
                };
                if let Some(&Ty::Image { mut shape, sampled_type, .. }) = image {
                    shape.scalar = scalars.get(&sampled_type).copied().unwrap_or(Scalar::Float);
                    out.images.entry((set, binding)).or_insert(shape);
                }
                out.sets.entry(set).or_default().entry(binding).or_insert((descriptor, count));
            }
            _ => {}
        }
    }
    Some(out)
}

/// `words` with `OpSourceExtension "untangle-nonce-N"` after its entry points and
/// execution modes: the same shader, different bytes (debug instructions of section 7a
/// may come in any order, so the position is always valid).
pub fn with_nonce(words: &[u32], nonce: u64) -> Vec<u32> {
    let mut at = 5.min(words.len());
    let mut i = at;
    while i < words.len() {
        let op = (words[i] & 0xffff) as u16;
        let n = ((words[i] >> 16) as usize).max(1);
        if matches!(op, OP_ENTRY_POINT | OP_EXECUTION_MODE | OP_EXECUTION_MODE_ID) {
            at = i + n;
        }
        i += n;
    }
    let mut text = format!("untangle-nonce-{nonce}").into_bytes();
    text.resize(text.len() / 4 * 4 + 4, 0);
    let mut inst = vec![(((text.len() / 4 + 1) as u32) << 16) | OP_SOURCE_EXTENSION as u32];
    inst.extend(text.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    let mut out = Vec::with_capacity(words.len() + inst.len());
    out.extend_from_slice(&words[..at.min(words.len())]);
    out.extend(inst);
    out.extend_from_slice(&words[at.min(words.len())..]);
    out
}

/// One SPIR-V instruction: its first word and operands.
fn inst(op: u16, operands: &[u32]) -> Vec<u32> {
    let mut v = vec![((operands.len() as u32 + 1) << 16) | op as u32];
    v.extend_from_slice(operands);
    v
}

/// The header and opening of the hand-assembled vertex shaders: capability, memory model,
/// entry point `main` (%1) over `interface`, %2 `BuiltIn Position`, and types and
/// constants %3 void, %4 fn, %5 f32, %6 vec4, %7 Output vec4 pointer, %8 0.0, %9 1.0,
/// %2 itself. `bound` is the module's id bound.
fn vertex_shader_head(bound: u32, interface: &[u32], decorations: &[Vec<u32>]) -> Vec<u32> {
    let main = u32::from_le_bytes(*b"main");
    let mut w = vec![0x0723_0203, 0x0001_0000, 0, bound, 0];
    w.extend(inst(17, &[1])); // OpCapability Shader
    w.extend(inst(14, &[0, 1])); // OpMemoryModel Logical GLSL450
    w.extend(inst(OP_ENTRY_POINT, &[&[0, 1, main, 0][..], interface].concat())); // Vertex %1 "main"
    w.extend(inst(OP_DECORATE, &[2, 11, 0])); // %2 BuiltIn Position
    for d in decorations {
        w.extend(inst(OP_DECORATE, d));
    }
    w.extend(inst(19, &[3])); // %3 = OpTypeVoid
    w.extend(inst(33, &[4, 3])); // %4 = OpTypeFunction %3
    w.extend(inst(22, &[5, 32])); // %5 = OpTypeFloat 32
    w.extend(inst(23, &[6, 5, 4])); // %6 = OpTypeVector %5 4
    w.extend(inst(OP_TYPE_POINTER, &[7, SC_OUTPUT, 6])); // %7 = Output %6
    w.extend(inst(OP_CONSTANT, &[5, 8, 0])); // %8 = 0.0
    w.extend(inst(OP_CONSTANT, &[5, 9, 1.0f32.to_bits()])); // %9 = 1.0
    w.extend(inst(OP_VARIABLE, &[7, 2, SC_OUTPUT])); // %2
    w
}

/// A vertex shader that writes only `Position` = (0, 0, 0, 1): the vertex stage of the
/// fragment modules' pipelines. SPIR-V 1.0, assembled by hand (ids 1–11).
pub fn position_only_vertex_shader() -> Vec<u32> {
    let mut w = vertex_shader_head(12, &[2], &[]);
    w.extend(inst(54, &[3, 1, 0, 4])); // OpFunction
    w.extend(inst(248, &[10])); // OpLabel %10
    w.extend(inst(80, &[6, 11, 8, 8, 8, 9])); // %11 = OpCompositeConstruct
    w.extend(inst(62, &[2, 11])); // OpStore %2 %11
    w.extend(inst(253, &[])); // OpReturn
    w.extend(inst(56, &[])); // OpFunctionEnd
    w
}

/// A vertex shader drawing one triangle that covers the viewport: vertex `i` (0, 1, 2) at
/// (4·(i & 1) − 1, 2·(i & 2) − 1, 0, 1), i.e. (−1, −1), (3, −1), (−1, 3). The vertex stage
/// of [`super::gpu_times`]' fragment pipelines. SPIR-V 1.0, assembled by hand.
pub fn full_screen_triangle_vertex_shader() -> Vec<u32> {
    // %12 VertexIndex (Input i32), %13 i32, %14 Input i32 pointer, %15 = 1, %16 = 2,
    // %17 = 4.0, %18 = 2.0.
    let mut w = vertex_shader_head(30, &[2, 12], &[vec![12, 11, 42]]); // %12 BuiltIn VertexIndex
    w.extend(inst(21, &[13, 32, 1])); // %13 = OpTypeInt 32 1
    w.extend(inst(OP_TYPE_POINTER, &[14, 1, 13])); // %14 = Input %13
    w.extend(inst(OP_CONSTANT, &[13, 15, 1]));
    w.extend(inst(OP_CONSTANT, &[13, 16, 2]));
    w.extend(inst(OP_CONSTANT, &[5, 17, 4.0f32.to_bits()]));
    w.extend(inst(OP_CONSTANT, &[5, 18, 2.0f32.to_bits()]));
    w.extend(inst(OP_VARIABLE, &[14, 12, 1])); // %12
    w.extend(inst(54, &[3, 1, 0, 4])); // OpFunction
    w.extend(inst(248, &[10])); // OpLabel %10
    w.extend(inst(61, &[13, 19, 12])); // %19 = OpLoad VertexIndex
    w.extend(inst(199, &[13, 20, 19, 15])); // %20 = i & 1
    w.extend(inst(199, &[13, 21, 19, 16])); // %21 = i & 2
    w.extend(inst(111, &[5, 22, 20])); // %22 = float(%20)
    w.extend(inst(111, &[5, 23, 21])); // %23 = float(%21)
    w.extend(inst(133, &[5, 24, 22, 17])); // %24 = %22 * 4
    w.extend(inst(133, &[5, 25, 23, 18])); // %25 = %23 * 2
    w.extend(inst(131, &[5, 26, 24, 9])); // %26 = %24 - 1
    w.extend(inst(131, &[5, 27, 25, 9])); // %27 = %25 - 1
    w.extend(inst(80, &[6, 28, 26, 27, 8, 9])); // %28 = (%26, %27, 0, 1)
    w.extend(inst(62, &[2, 28])); // OpStore %2 %28
    w.extend(inst(253, &[])); // OpReturn
    w.extend(inst(56, &[])); // OpFunctionEnd
    w
}

/// A fragment shader that does nothing: the fragment stage of [`super::gpu_times`]' vertex
/// pipelines, so that their vertices are processed, not discarded with the rasterizer.
/// SPIR-V 1.0, assembled by hand (ids 1–5).
pub fn empty_fragment_shader() -> Vec<u32> {
    let main = u32::from_le_bytes(*b"main");
    let mut w = vec![0x0723_0203, 0x0001_0000, 0, 6, 0];
    w.extend(inst(17, &[1])); // OpCapability Shader
    w.extend(inst(14, &[0, 1])); // OpMemoryModel Logical GLSL450
    w.extend(inst(OP_ENTRY_POINT, &[4, 1, main, 0])); // Fragment %1 "main"
    w.extend(inst(OP_EXECUTION_MODE, &[1, 7])); // OriginUpperLeft
    w.extend(inst(19, &[2])); // %2 = OpTypeVoid
    w.extend(inst(33, &[3, 2])); // %3 = OpTypeFunction %2
    w.extend(inst(54, &[2, 1, 0, 3])); // OpFunction
    w.extend(inst(248, &[4])); // OpLabel %4
    w.extend(inst(253, &[])); // OpReturn
    w.extend(inst(56, &[])); // OpFunctionEnd
    w
}

/// The colour attachments' format (one per fragment output location) and the
/// depth/stencil attachment's, of every fragment pipeline made here.
pub const COLOR_FORMAT: vk::Format = vk::Format::R32G32B32A32_SFLOAT;
pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT_S8_UINT;

impl Gpu {
    /// Times creating the module and its pipeline once (`words` already carries its nonce);
    /// `vertex` is the vertex module paired with a fragment one.
    pub fn time_pipeline_creation(&self, r: &Reflection, words: &[u32], vertex: &[u32]) -> Result<Duration, VkError> {
        let mut s = Scratch::default();
        let result = self.create_timed(r, words, vertex, &mut s);
        // SAFETY: every object was created from this device and is used by nothing.
        unsafe { s.destroy(&self.device) };
        result
    }

    fn create_timed(
        &self,
        r: &Reflection,
        words: &[u32],
        vertex: &[u32],
        s: &mut Scratch,
    ) -> Result<Duration, VkError> {
        let layout = self.reflected_layout(r, s)?;
        // The vertex stage is not what is measured: created before the clock starts.
        let vertex = if r.stage == Stage::Fragment { Some(self.shader_module(vertex, s)?) } else { None };
        let start = Instant::now();
        let created = self.reflected_pipeline(r, words, vertex, layout, s);
        let elapsed = start.elapsed();
        created.map(|_| elapsed)
    }

    /// A module of `words`, recorded in `s`.
    pub(super) fn shader_module(&self, words: &[u32], s: &mut Scratch) -> Result<vk::ShaderModule, VkError> {
        let info = vk::ShaderModuleCreateInfo::default().code(words);
        // SAFETY: a valid device; the create info outlives the call.
        let m = unsafe { self.device.create_shader_module(&info, None) }.map_err(vkr("vkCreateShaderModule"))?;
        s.modules.push(m);
        Ok(m)
    }

    /// The descriptor set layouts (sets 0 to the highest used, every binding visible to all
    /// stages) and pipeline layout `r` describes, recorded in `s`.
    pub(super) fn reflected_layout(&self, r: &Reflection, s: &mut Scratch) -> Result<vk::PipelineLayout, VkError> {
        let dev = &self.device;
        let highest = r.sets.keys().next_back().map_or(0, |&s| s + 1);
        if highest > MAX_SETS {
            return Err(VkError::BadLayout(format!(
                "descriptor set {} is past the {MAX_SETS} sets a pipeline layout may have",
                highest - 1
            )));
        }
        let mut set_layouts = Vec::new();
        for set in 0..highest {
            let bindings: Vec<vk::DescriptorSetLayoutBinding> = r
                .sets
                .get(&set)
                .into_iter()
                .flatten()
                .map(|(&binding, &(ty, count))| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(binding)
                        .descriptor_type(ty)
                        .descriptor_count(count)
                        .stage_flags(vk::ShaderStageFlags::ALL)
                })
                .collect();
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
            // SAFETY: a valid device; the create info outlives the call.
            let l =
                unsafe { dev.create_descriptor_set_layout(&info, None) }.map_err(vkr("vkCreateDescriptorSetLayout"))?;
            s.set_layouts.push(l);
            set_layouts.push(l);
        }
        let ranges =
            [vk::PushConstantRange::default().stage_flags(vk::ShaderStageFlags::ALL).size(PUSH_CONSTANT_BYTES)];
        let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        if r.push_constants {
            info = info.push_constant_ranges(&ranges);
        }
        // SAFETY: as above.
        let layout = unsafe { dev.create_pipeline_layout(&info, None) }.map_err(vkr("vkCreatePipelineLayout"))?;
        s.layouts.push(layout);
        Ok(layout)
    }

    /// The module of `words` and its pipeline, recorded in `s`: compute; vertex with
    /// rasterization discarded, or, given a `companion` fragment stage, rasterized without
    /// attachments; fragment under the `companion` vertex stage (required then), with one
    /// [`COLOR_FORMAT`] attachment per output location and a [`DEPTH_FORMAT`] attachment.
    /// Graphics pipelines use dynamic rendering, viewport and scissor dynamic.
    pub(super) fn reflected_pipeline(
        &self,
        r: &Reflection,
        words: &[u32],
        companion: Option<vk::ShaderModule>,
        layout: vk::PipelineLayout,
        s: &mut Scratch,
    ) -> Result<vk::Pipeline, VkError> {
        let dev = &self.device;
        let entry = CString::new(r.entry.clone()).map_err(|_| VkError::BadLayout("entry name with NUL".into()))?;
        let main = c"main";
        let module = self.shader_module(words, s)?;
        let stage_flag = match r.stage {
            Stage::Compute => vk::ShaderStageFlags::COMPUTE,
            Stage::Vertex => vk::ShaderStageFlags::VERTEX,
            Stage::Fragment => vk::ShaderStageFlags::FRAGMENT,
        };
        let stage = vk::PipelineShaderStageCreateInfo::default().stage(stage_flag).module(module).name(&entry);
        let created = if r.stage == Stage::Compute {
            let info = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout)];
            // SAFETY: a valid device; the create info outlives the call; no pipeline cache.
            unsafe { dev.create_compute_pipelines(vk::PipelineCache::null(), &info, None) }
                .map_err(|(p, e)| (p, e, "vkCreateComputePipelines"))
        } else {
            let mut stages = vec![stage];
            let other =
                |flag, module| vk::PipelineShaderStageCreateInfo::default().stage(flag).module(module).name(main);
            match (r.stage, companion) {
                (Stage::Fragment, Some(v)) => stages.insert(0, other(vk::ShaderStageFlags::VERTEX, v)),
                (Stage::Fragment, None) => {
                    return Err(VkError::BadLayout("a fragment module without a vertex stage".into()));
                }
                (_, Some(f)) => stages.push(other(vk::ShaderStageFlags::FRAGMENT, f)),
                (_, None) => {}
            }
            let discard = r.stage == Stage::Vertex && companion.is_none();
            let fragment = r.stage == Stage::Fragment;
            let colors = vec![COLOR_FORMAT; if fragment { r.color_outputs as usize } else { 0 }];
            let blend: Vec<vk::PipelineColorBlendAttachmentState> = colors
                .iter()
                .map(|_| {
                    vk::PipelineColorBlendAttachmentState::default().color_write_mask(vk::ColorComponentFlags::RGBA)
                })
                .collect();
            let depth = if fragment { DEPTH_FORMAT } else { vk::Format::UNDEFINED };
            let mut rendering = vk::PipelineRenderingCreateInfo::default()
                .color_attachment_formats(&colors)
                .depth_attachment_format(depth)
                .stencil_attachment_format(depth);
            let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
            let assembly =
                vk::PipelineInputAssemblyStateCreateInfo::default().topology(vk::PrimitiveTopology::TRIANGLE_LIST);
            let viewport = vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1);
            let raster = vk::PipelineRasterizationStateCreateInfo::default()
                .rasterizer_discard_enable(discard)
                .polygon_mode(vk::PolygonMode::FILL)
                .cull_mode(vk::CullModeFlags::NONE)
                .line_width(1.0);
            let multisample =
                vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(vk::SampleCountFlags::TYPE_1);
            let depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default();
            let blend_state = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
            let dynamic = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
            let dynamic_state = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic);
            let mut info = vk::GraphicsPipelineCreateInfo::default()
                .stages(&stages)
                .vertex_input_state(&vertex_input)
                .input_assembly_state(&assembly)
                .rasterization_state(&raster)
                .dynamic_state(&dynamic_state)
                .layout(layout)
                .push_next(&mut rendering);
            if !discard {
                info = info
                    .viewport_state(&viewport)
                    .multisample_state(&multisample)
                    .depth_stencil_state(&depth_stencil)
                    .color_blend_state(&blend_state);
            }
            // SAFETY: as above; every state struct outlives the call; no pipeline cache.
            unsafe { dev.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
                .map_err(|(p, e)| (p, e, "vkCreateGraphicsPipelines"))
        };
        match created {
            Ok(p) => {
                s.pipelines.push(p[0]);
                Ok(p[0])
            }
            Err((p, e, call)) => {
                s.pipelines.extend(p.into_iter().filter(|p| *p != vk::Pipeline::null()));
                Err(VkError::Vk { call, result: e })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nonce_changes_the_bytes_and_the_vertex_shader_validates() {
        let vs = position_only_vertex_shader();
        let a = with_nonce(&vs, 1);
        let b = with_nonce(&vs, 2);
        assert_ne!(a, b);
        assert_eq!(a.len(), b.len());
        let val = crate::check::spirv_val::find_spirv_val().expect("spirv-val (tools/test.sh installs it)");
        let (triangle, fs) = (full_screen_triangle_vertex_shader(), empty_fragment_shader());
        for words in [&vs, &a, &triangle, &fs] {
            if let Err(e) = val.validate(words, "vulkan1.0") {
                panic!("{e}");
            }
        }
        let r = reflect(&a).unwrap();
        assert_eq!((r.stage, r.entry.as_str(), r.push_constants, r.sets.len()), (Stage::Vertex, "main", false, 0));
    }
}
