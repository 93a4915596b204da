//! What lowering a root signature produces ([`PipelineLayout`]) and the choices it takes
//! ([`LayoutOptions`]): push constants, the root argument buffer, descriptor set layouts,
//! immutable samplers, and where each root parameter and register range landed. The
//! lowering itself is `super::layout`; the budget split is `super::spill`.

use super::model::*;
use serde::Serialize;

/// Which lowering (`--binding-model`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BindingModel {
    #[default]
    Heap,
    Direct,
}

/// How `heap` lowers root CBV/SRV/UAV (`direct` always uses descriptors).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RootDescriptors {
    /// 64-bit buffer device addresses in push constants.
    #[default]
    Address,
    /// Plain uniform/storage buffer descriptors.
    Descriptor,
}

/// Vulkan's guaranteed `maxPushConstantsSize`, the default push-constant budget.
pub const DEFAULT_MAX_PUSH_CONSTANT_BYTES: u32 = 128;

/// The most root-argument bytes a root signature can need: D3D's 64 DWORDs, 4 bytes each
/// in push-constant form (a root descriptor's 2 DWORDs are its 8-byte address).
pub const MAX_ROOT_ARGUMENT_BYTES: u32 = 256;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct LayoutOptions {
    pub model: BindingModel,
    pub root_descriptors: RootDescriptors,
    /// The push-constant budget in bytes: a multiple of 4 (0 puts every root argument in
    /// the root argument buffer; 256 or more keeps every root signature in push
    /// constants). Set it to the device's `maxPushConstantsSize`.
    pub max_push_constant_bytes: u32,
}

impl Default for LayoutOptions {
    fn default() -> Self {
        LayoutOptions {
            model: BindingModel::default(),
            root_descriptors: RootDescriptors::default(),
            max_push_constant_bytes: DEFAULT_MAX_PUSH_CONSTANT_BYTES,
        }
    }
}

/// A Vulkan descriptor type (`VkDescriptorType` without its prefix).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DescriptorType {
    Sampler,
    SampledImage,
    StorageImage,
    UniformTexelBuffer,
    StorageTexelBuffer,
    UniformBuffer,
    StorageBuffer,
}

/// The Vulkan view a D3D register is bound through: which binding of a `direct` range's
/// group, or which array of a heap.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum View {
    /// A CBV: uniform buffer.
    ConstantBuffer,
    /// Textures: sampled image (SRV) or storage image (UAV).
    Image,
    /// Typed buffers: uniform (SRV) or storage (UAV) texel buffer.
    TexelBuffer,
    /// Raw and structured buffers: storage buffer.
    Buffer,
    /// A UAV's counter: storage buffer `{ uint counter; }`.
    Counter,
    Sampler,
}

impl View {
    /// The views of a register class, in binding order within a `direct` group.
    pub fn of_class(class: ResourceClass) -> &'static [View] {
        match class {
            ResourceClass::Cbv => &[View::ConstantBuffer],
            ResourceClass::Srv => &[View::Image, View::TexelBuffer, View::Buffer],
            ResourceClass::Uav => &[View::Image, View::TexelBuffer, View::Buffer, View::Counter],
            ResourceClass::Sampler => &[View::Sampler],
        }
    }

    pub fn descriptor_type(self, class: ResourceClass) -> DescriptorType {
        let uav = class == ResourceClass::Uav;
        match self {
            View::ConstantBuffer => DescriptorType::UniformBuffer,
            View::Image if uav => DescriptorType::StorageImage,
            View::Image => DescriptorType::SampledImage,
            View::TexelBuffer if uav => DescriptorType::StorageTexelBuffer,
            View::TexelBuffer => DescriptorType::UniformTexelBuffer,
            View::Buffer | View::Counter => DescriptorType::StorageBuffer,
            View::Sampler => DescriptorType::Sampler,
        }
    }
}

/// The CBV/SRV/UAV heap's bindings: binding `k` holds [`HEAP_RESOURCE_BINDINGS`]`[k]`.
/// Sampled images of every dimension share binding 0, storage images binding 1.
pub const HEAP_RESOURCE_BINDINGS: [(View, ResourceClass); 7] = [
    (View::Image, ResourceClass::Srv),
    (View::Image, ResourceClass::Uav),
    (View::TexelBuffer, ResourceClass::Srv),
    (View::TexelBuffer, ResourceClass::Uav),
    (View::ConstantBuffer, ResourceClass::Cbv),
    (View::Buffer, ResourceClass::Uav),
    (View::Counter, ResourceClass::Uav),
];

/// The heap binding of a view of `class` (raw/structured SRVs share the UAVs' storage
/// buffer array).
pub fn heap_resource_binding(view: View, class: ResourceClass) -> u32 {
    match (view, class) {
        (View::Image, ResourceClass::Uav) => 1,
        (View::Image, _) => 0,
        (View::TexelBuffer, ResourceClass::Uav) => 3,
        (View::TexelBuffer, _) => 2,
        (View::ConstantBuffer, _) => 4,
        (View::Buffer, _) => 5,
        (View::Counter, _) => 6,
        (View::Sampler, _) => 0,
    }
}

/// Where descriptor heaps live in a layout.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
pub struct HeapSets {
    pub resources: u32,
    pub samplers: u32,
}

/// What a push-constant member holds.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PushKind {
    /// A root CBV/SRV/UAV's buffer device address (8 bytes).
    RootDescriptorAddress { class: ResourceClass, register: u32, space: u32 },
    /// `num_values` root constants, readable as `b<register>, space<space>`.
    RootConstants { register: u32, space: u32, num_values: u32 },
    /// A descriptor table's start in its heap, in descriptors (4 bytes).
    TableOffset { heap: HeapKind },
}

#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HeapKind {
    CbvSrvUav,
    Sampler,
}

#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct PushMember {
    /// The root parameter index.
    pub parameter: u32,
    pub offset: u32,
    pub size: u32,
    #[serde(flatten)]
    pub kind: PushKind,
}

/// The single push-constant range (all stages); `size` 0 when there is none.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Default)]
pub struct PushConstants {
    pub size: u32,
    pub members: Vec<PushMember>,
}

/// The root arguments past the push-constant budget: a uniform buffer (std140; the shader
/// reads it as `uvec4[size / 16]`) at `(set, binding)`, holding each member at its byte
/// `offset`, encoded as in push constants. The layer writes it at draw/dispatch time.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct RootArgumentBuffer {
    pub set: u32,
    pub binding: u32,
    /// Bytes, a multiple of 16: the descriptor's range must hold at least this many.
    pub size: u32,
    /// In increasing `offset`, laid out like push-constant members.
    pub members: Vec<PushMember>,
}

/// Where a root argument lives.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ArgStore {
    PushConstants,
    RootArgumentBuffer,
    /// A local root signature's arguments, in the shader record (`super::record`).
    ShaderRecord,
}

/// What a descriptor binding stands for.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum BindingSource {
    /// A heap array: element `i` is heap descriptor `i` when it has this binding's type.
    Heap { heap: HeapKind },
    /// One view of descriptor-table range `range` of root parameter `parameter`: element
    /// `k` is the range's `k`-th descriptor.
    Range { parameter: u32, range: u32, view: View },
    /// Root CBV/SRV/UAV `parameter` as a plain descriptor.
    RootDescriptor { parameter: u32 },
    /// Static sampler `index`.
    StaticSampler { index: u32 },
    /// The root argument buffer ([`RootArgumentBuffer`]).
    RootArgumentBuffer,
}

/// An immutable sampler, as `VkSamplerCreateInfo` fields (Vulkan enum names).
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct SamplerDesc {
    pub mag_filter: &'static str,
    pub min_filter: &'static str,
    pub mipmap_mode: &'static str,
    pub address_mode_u: &'static str,
    pub address_mode_v: &'static str,
    pub address_mode_w: &'static str,
    pub mip_lod_bias: f32,
    pub anisotropy_enable: bool,
    pub max_anisotropy: f32,
    pub compare_enable: bool,
    pub compare_op: &'static str,
    pub min_lod: f32,
    pub max_lod: f32,
    pub border_color: &'static str,
    pub unnormalized_coordinates: bool,
    /// `VkSamplerReductionModeCreateInfo` (min/max filters).
    pub reduction_mode: &'static str,
}

#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct SetBinding {
    pub binding: u32,
    pub descriptor_type: DescriptorType,
    /// `None`: a runtime array; the application picks the size (heap size, or its own
    /// bound for an unbounded range) and the shader needs descriptor indexing.
    pub count: Option<u32>,
    /// Vulkan stage names (`ALL`, `VERTEX`, `FRAGMENT`, ...).
    pub stages: &'static str,
    pub source: BindingSource,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub immutable_sampler: Option<SamplerDesc>,
}

#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct SetLayout {
    pub set: u32,
    pub bindings: Vec<SetBinding>,
}

/// Where a `direct` range's views start (the binding of its first view).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RangeSlot {
    pub parameter: u32,
    pub range: u32,
    pub set: u32,
    pub first_binding: u32,
}

/// The lowered root signature.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct PipelineLayout {
    pub binding_model: BindingModel,
    pub root_descriptors: RootDescriptors,
    pub push_constants: PushConstants,
    /// The root arguments that did not fit the push-constant budget (absent when all fit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_argument_buffer: Option<RootArgumentBuffer>,
    /// Sets in increasing order; a pipeline layout needs every set below the highest, so
    /// a missing number is an empty set layout.
    pub sets: Vec<SetLayout>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heaps: Option<HeapSets>,
    /// Every table range's resolved offset in descriptors from its table's start
    /// (`APPEND` resolved), by parameter then range; empty for non-table parameters.
    #[serde(skip)]
    pub range_offsets: Vec<Vec<u32>>,
    #[serde(skip)]
    pub range_slots: Vec<RangeSlot>,
    /// Root descriptor `parameter` → its binding (`direct`, or `heap` with descriptors).
    #[serde(skip)]
    pub root_descriptor_slots: Vec<(u32, u32, u32)>,
}

/// Why a root signature cannot be lowered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("root parameter {parameter}: range {range} overflows the descriptor table (offsets past 2^32 or an APPEND range after an unbounded one)")]
    TableOverflow { parameter: u32, range: u32 },
    /// The root arguments (push constants and root argument buffer together) exceed what
    /// a valid D3D12 root signature can need.
    #[error("the root arguments need {size} bytes; the layout allows at most 256 (what D3D's 64-DWORD root signatures need)")]
    PushConstantsTooLarge { size: u32 },
    #[error("push-constant budget of {bytes} bytes: it must be a multiple of 4 (push constants are 32-bit words)")]
    PushConstantBudget { bytes: u32 },
}

impl PipelineLayout {
    /// Where root parameter `parameter`'s argument lives, if it has one in push-constant
    /// form (root constants, a root descriptor's address, a `heap` table offset).
    pub fn root_argument(&self, parameter: u32) -> Option<(ArgStore, &PushMember)> {
        let push = self.push_constants.members.iter().find(|m| m.parameter == parameter);
        let spilled = || self.root_argument_buffer.iter().flat_map(|b| &b.members).find(|m| m.parameter == parameter);
        push.map(|m| (ArgStore::PushConstants, m)).or_else(|| spilled().map(|m| (ArgStore::RootArgumentBuffer, m)))
    }
}

pub const RESOURCE_SET_HEAP: u32 = 0;
pub const SAMPLER_SET_HEAP: u32 = 1;
pub const STATIC_SAMPLER_SET_HEAP: u32 = 2;
pub const ROOT_DESCRIPTOR_SET_HEAP: u32 = 3;

pub fn stage_names(v: Visibility) -> &'static str {
    match v {
        Visibility::All => "ALL",
        Visibility::Vertex => "VERTEX",
        Visibility::Hull => "TESSELLATION_CONTROL",
        Visibility::Domain => "TESSELLATION_EVALUATION",
        Visibility::Geometry => "GEOMETRY",
        Visibility::Pixel => "FRAGMENT",
        Visibility::Amplification => "TASK_EXT",
        Visibility::Mesh => "MESH_EXT",
    }
}
