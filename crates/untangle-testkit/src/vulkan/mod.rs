//! A minimal Vulkan compute runner (feature `vulkan`): load a SPIR-V module, bind
//! resources per a layout description, dispatch one entry point, read everything back.
//!
//! `ash` loads `libvulkan` when [`Gpu::open`] runs, so the crate builds without any Vulkan
//! installed; without a loader or a driver, `open` returns [`VkError::NoLoader`] or
//! [`VkError::NoDevice`] (callers decide whether that means "skip").
//!
//! * Device choice: `UNTANGLE_VK_DEVICE` = an index into the physical device list, or a
//!   case-insensitive substring of the device name (`llvmpipe`, `H100`); default: the
//!   first device. [`Gpu::info`] says which device and driver were picked.
//! * Layout: a [`Dispatch`] lists [`Binding`]s `(set, binding, element, resource)`; every
//!   set from 0 to the highest named gets a descriptor set layout (empty where nothing is
//!   bound). A binding's descriptor type comes from its [`Resource`]s (storage and uniform
//!   buffers, uniform and storage texel buffers with a `VkFormat`, storage and sampled
//!   images of one mip level (1D, 2D, 3D, 1D/2D arrays; uploaded, read back), samplers);
//!   its descriptor count is its highest element + 1 or [`Dispatch::min_counts`], and
//!   arrays are partially bound where the device supports it.
//! * Push constants: [`Dispatch::push_constants`], one range from 0 visible to compute.
//!   [`Dispatch::device_buffers`] are buffers reached by `bufferDeviceAddress`: each
//!   address is written into the push-constant bytes at its offset, into a buffer
//!   binding's bytes (a root argument buffer), or into an earlier device buffer's bytes
//!   (records and tables of addresses; [`AddressSlot`]); read back too.
//! * Features: device creation enables every feature the device reports (Vulkan 1.0
//!   core, 1.1, 1.2, 1.3 structs); [`DeviceInfo::features`] records the optional ones
//!   that matter here (descriptor indexing, device addresses, 16/64-bit types, 64-bit
//!   atomics, storage images without format, subgroup size and operations) so callers
//!   can skip what a device cannot run. Of the extensions, `VK_KHR_shader_clock` and
//!   `VK_EXT_mesh_shader` (`taskShader` and `meshShader` only) are enabled where present.
//!   The instance asks for Vulkan 1.3 where the loader has it (the translator emits SPIR-V
//!   1.6).
//! * Corpus cases: [`corpus`] runs vkd3d-proton compute shaders with known answers;
//!   [`graphics`] draws with translated graphics stages and [`graphics_cases`] checks
//!   vkd3d-proton graphics pipelines' pixels.
//! * Timeout: each dispatch waits on its fence at most [`Dispatch::timeout`]. A dispatch
//!   that does not finish in time is [`VkError::Timeout`], a hang reported, never a stuck
//!   caller. The device may still be running the shader then, so the [`Gpu`] is poisoned:
//!   later dispatches fail with [`VkError::Poisoned`] and dropping it leaks its objects
//!   instead of destroying objects in use.
//! * Memory: host-visible, host-coherent buffers (the runner is for checking, not speed);
//!   images in device memory, staged through such buffers.
//!
//! Every Vulkan call goes through `unsafe` ash functions; the invariants are the usual
//! ones (objects created from this device, destroyed once, not in use), kept by creating
//! all of a dispatch's objects in [`Scratch`] and destroying them after its fence.

pub mod corpus;
pub mod gpu_times;
pub mod graphics;
pub mod graphics_cases;
pub mod graphics_times;
pub mod pipeline_times;
pub mod program;
pub mod ray_tracing;
pub mod root_placement;
pub mod suite;
pub mod work_graph;

use ash::vk;

use std::time::Duration;

/// Why the runner failed.
#[derive(Debug, thiserror::Error)]
pub enum VkError {
    #[error("no Vulkan loader (libvulkan.so.1): {0}")]
    NoLoader(String),
    #[error("no Vulkan physical device{0}")]
    NoDevice(String),
    #[error("{call}: {result}")]
    Vk { call: &'static str, result: vk::Result },
    #[error("dispatch of `{entry}` did not finish within {timeout:?} (hang)")]
    Timeout { entry: String, timeout: Duration },
    #[error("the device was lost during `{entry}`")]
    DeviceLost { entry: String },
    #[error("an earlier dispatch timed out or lost the device; this runner can no longer be used")]
    Poisoned,
    #[error("bad layout: {0}")]
    BadLayout(String),
    #[error("no host-visible, host-coherent memory type for a buffer")]
    NoMemoryType,
}

fn vkr(call: &'static str) -> impl Fn(vk::Result) -> VkError {
    move |result| VkError::Vk { call, result }
}

/// Which device and driver a [`Gpu`] runs on, and which optional features it turned on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub index: usize,
    pub name: String,
    pub device_type: String,
    /// `driverName` and `driverInfo` (Vulkan 1.2), or the raw driver version.
    pub driver: String,
    pub api_version: String,
    pub features: Features,
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "device {} `{}` ({}), driver {}, Vulkan {}",
            self.index, self.name, self.device_type, self.driver, self.api_version
        )
    }
}

/// Optional device features the runner enabled (every one the device reports is enabled),
/// so that callers can skip what a device cannot run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// `bufferDeviceAddress` (needed by [`Dispatch::device_buffers`]).
    pub buffer_device_address: bool,
    /// `runtimeDescriptorArray`, `descriptorBindingPartiallyBound` and non-uniform indexing
    /// of sampled images, storage buffers, storage images and texel buffers.
    pub descriptor_indexing: bool,
    /// `descriptorBindingPartiallyBound` alone (arrays may have unwritten elements).
    pub partially_bound: bool,
    pub shader_int64: bool,
    pub shader_float64: bool,
    pub shader_int16: bool,
    /// `shaderResourceResidency`: the `SparseResidency` capability (residency-returning
    /// sampling and loads).
    pub resource_residency: bool,
    pub shader_float16: bool,
    pub shader_int8: bool,
    /// `storageBuffer16BitAccess` and `uniformAndStorageBuffer16BitAccess`.
    pub storage_16bit: bool,
    /// `shaderBufferInt64Atomics` and `shaderSharedInt64Atomics`.
    pub int64_atomics: bool,
    /// `shaderStorageImageReadWithoutFormat` and `...WriteWithoutFormat`.
    pub storage_image_without_format: bool,
    /// `multiview` (Vulkan 1.1): draws with a view mask ([`graphics::Draw::view_mask`]).
    pub multiview: bool,
    /// `multiViewport` and `shaderOutputViewportIndex`: several viewports, `ViewportIndex`
    /// written by vertex shaders.
    pub multi_viewport: bool,
    /// `VK_KHR_shader_clock` with `shaderSubgroupClock` (`OpReadClockKHR` at subgroup scope).
    pub shader_subgroup_clock: bool,
    /// `VK_EXT_mesh_shader` with `taskShader` and `meshShader` (mesh pipelines of the
    /// graphics runner); only these two of its features are enabled.
    pub mesh_shader: bool,
    /// `VK_KHR_shader_maximal_reconvergence` with `shaderMaximalReconvergence`: modules may
    /// declare `MaximallyReconvergesKHR` (the differential runs do, where it is present).
    pub maximal_reconvergence: bool,
    /// `VK_KHR_shader_float_controls2` with `shaderFloatControls2`: modules
    /// may say `FPFastMathMode None` (the differential runs do, where it is present).
    pub float_controls2: bool,
    /// `VK_KHR_compute_shader_derivatives` with `computeDerivativeGroupQuads` and
    /// `computeDerivativeGroupLinear`: derivatives and implicit-LOD sampling in compute
    /// shaders (SM 6.6).
    pub compute_derivatives: bool,
    /// `VK_NV_shader_image_footprint` with `imageFootprint`: `OpImageSampleFootprintNV`
    /// (NVAPI's texture footprints).
    pub image_footprint: bool,
    /// `cooperativeMatrix` (`VK_KHR_cooperative_matrix`), enabled, with a 16x16x16
    /// subgroup-scope multiply-add of f16 A and B into an f32 accumulator among the
    /// device's matrix forms (AGS WMMA's `WMMA_F32_16X16X16_F16`).
    pub cooperative_matrix_f16_f32: bool,
    /// `VK_KHR_fragment_shader_barycentric` with `fragmentShaderBarycentric`:
    /// `BaryCoordKHR` / `BaryCoordNoPerspKHR` and `PerVertexKHR` inputs (AGS barycentrics
    /// and vertex parameters).
    pub fragment_shader_barycentric: bool,
    /// `VK_EXT_shader_image_atomic_int64` with `shaderImageInt64Atomics`: 64-bit atomics on
    /// `R64_UINT` storage images (AGS's on texture targets).
    pub image_int64_atomics: bool,
    /// The subgroup size (Vulkan 1.1 properties), 0 if unknown.
    pub subgroup_size: u32,
    /// Subgroup operations (`VkSubgroupFeatureFlags` bits) supported in compute shaders.
    pub subgroup_ops: u32,
    /// The stages with subgroup operations (`VkShaderStageFlags`, Vulkan 1.1 properties).
    pub subgroup_stages: u32,
    /// `maxPerStageDescriptor*` limits: storage buffers, uniform buffers, sampled images,
    /// storage images, samplers.
    pub per_stage_descriptors: [u32; 5],
}

/// Image shapes: [`Image::layers`] > 1 or [`Image::arrayed`] makes 1D and 2D arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageDim {
    D1,
    D2,
    D3,
}

/// An image with one mip level, its texels tightly packed (x fastest, then y, z, layer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub dim: ImageDim,
    pub format: vk::Format,
    /// Width, height, depth (unused dimensions 1).
    pub extent: [u32; 3],
    pub layers: u32,
    /// An array view even with one layer.
    pub arrayed: bool,
    pub bytes: Vec<u8>,
}

impl Image {
    fn view_type(&self) -> vk::ImageViewType {
        let array = self.arrayed || self.layers > 1;
        match (self.dim, array) {
            (ImageDim::D1, false) => vk::ImageViewType::TYPE_1D,
            (ImageDim::D1, true) => vk::ImageViewType::TYPE_1D_ARRAY,
            (ImageDim::D2, false) => vk::ImageViewType::TYPE_2D,
            (ImageDim::D2, true) => vk::ImageViewType::TYPE_2D_ARRAY,
            (ImageDim::D3, _) => vk::ImageViewType::TYPE_3D,
        }
    }

    /// DEPTH for depth formats (sampled with comparison samplers), else COLOR.
    fn aspect(&self) -> vk::ImageAspectFlags {
        match self.format {
            vk::Format::D32_SFLOAT | vk::Format::D16_UNORM => vk::ImageAspectFlags::DEPTH,
            _ => vk::ImageAspectFlags::COLOR,
        }
    }

    /// Bytes the image holds (`None`: a format the runner does not know).
    pub fn byte_len(&self) -> Option<usize> {
        let [w, h, d] = self.extent;
        Some(texel_size(self.format)? * w as usize * h as usize * d as usize * self.layers as usize)
    }
}

/// Bytes per texel of the formats the runner handles.
pub fn texel_size(f: vk::Format) -> Option<usize> {
    use vk::Format as F;
    Some(match f {
        F::R8_UNORM | F::R8_UINT | F::R8_SINT => 1,
        F::D16_UNORM | F::R16_UINT | F::R16_SINT | F::R16_SFLOAT | F::R16_UNORM | F::R8G8_UNORM | F::R8G8_UINT => 2,
        F::D32_SFLOAT
        | F::R32_UINT
        | F::R32_SINT
        | F::R32_SFLOAT
        | F::R8G8B8A8_UNORM
        | F::R8G8B8A8_UINT
        | F::R8G8B8A8_SINT
        | F::R16G16_UINT
        | F::R16G16_SINT
        | F::R16G16_SFLOAT => 4,
        F::R32G32_UINT
        | F::R32G32_SINT
        | F::R32G32_SFLOAT
        | F::R16G16B16A16_UINT
        | F::R16G16B16A16_SINT
        | F::R16G16B16A16_SFLOAT
        | F::R64_UINT
        | F::R64_SINT => 8,
        F::R32G32B32_UINT | F::R32G32B32_SINT | F::R32G32B32_SFLOAT => 12,
        F::R32G32B32A32_UINT | F::R32G32B32A32_SINT | F::R32G32B32A32_SFLOAT => 16,
        _ => return None,
    })
}

/// A sampler (`VkSamplerCreateInfo` reduced to what tests vary).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerDesc {
    pub linear: bool,
    pub address: vk::SamplerAddressMode,
    /// A comparison sampler (`SamplerComparisonState`) with this operation.
    pub compare: Option<vk::CompareOp>,
    pub unnormalized: bool,
}

impl Default for SamplerDesc {
    fn default() -> Self {
        SamplerDesc {
            linear: false,
            address: vk::SamplerAddressMode::CLAMP_TO_EDGE,
            compare: None,
            unnormalized: false,
        }
    }
}

/// A resource bound to one descriptor (one element of a binding).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resource {
    /// A storage buffer with these initial bytes (its size; a multiple of 4, not 0). Read
    /// back after the dispatch.
    StorageBuffer(Vec<u8>),
    /// A uniform buffer (bytes as for a storage buffer).
    UniformBuffer(Vec<u8>),
    /// A uniform texel buffer of texels in `format`.
    UniformTexelBuffer {
        format: vk::Format,
        bytes: Vec<u8>,
    },
    /// A storage texel buffer of texels in `format`; read back.
    StorageTexelBuffer {
        format: vk::Format,
        bytes: Vec<u8>,
    },
    /// A storage image (layout GENERAL); uploaded and read back.
    StorageImage(Image),
    /// A sampled image (layout GENERAL, separate from any sampler).
    SampledImage(Image),
    Sampler(SamplerDesc),
}

impl Resource {
    /// A storage buffer holding `words`.
    pub fn words(words: &[u32]) -> Resource {
        Resource::StorageBuffer(words.iter().flat_map(|w| w.to_le_bytes()).collect())
    }

    pub fn descriptor_type(&self) -> vk::DescriptorType {
        match self {
            Resource::StorageBuffer(_) => vk::DescriptorType::STORAGE_BUFFER,
            Resource::UniformBuffer(_) => vk::DescriptorType::UNIFORM_BUFFER,
            Resource::UniformTexelBuffer { .. } => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
            Resource::StorageTexelBuffer { .. } => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
            Resource::StorageImage(_) => vk::DescriptorType::STORAGE_IMAGE,
            Resource::SampledImage(_) => vk::DescriptorType::SAMPLED_IMAGE,
            Resource::Sampler(_) => vk::DescriptorType::SAMPLER,
        }
    }

    /// The bytes of a buffer or image resource (`None` for a sampler).
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Resource::StorageBuffer(b) | Resource::UniformBuffer(b) => Some(b),
            Resource::UniformTexelBuffer { bytes, .. } | Resource::StorageTexelBuffer { bytes, .. } => Some(bytes),
            Resource::StorageImage(i) | Resource::SampledImage(i) => Some(&i.bytes),
            Resource::Sampler(_) => None,
        }
    }

    fn with_bytes(&self, bytes: Vec<u8>) -> Resource {
        match self {
            Resource::StorageBuffer(_) => Resource::StorageBuffer(bytes),
            Resource::UniformBuffer(_) => Resource::UniformBuffer(bytes),
            Resource::UniformTexelBuffer { format, .. } => Resource::UniformTexelBuffer { format: *format, bytes },
            Resource::StorageTexelBuffer { format, .. } => Resource::StorageTexelBuffer { format: *format, bytes },
            Resource::StorageImage(i) => Resource::StorageImage(Image { bytes, ..i.clone() }),
            Resource::SampledImage(i) => Resource::SampledImage(Image { bytes, ..i.clone() }),
            Resource::Sampler(s) => Resource::Sampler(*s),
        }
    }
}

/// One descriptor: element `element` of binding `binding` in set `set`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub set: u32,
    pub binding: u32,
    /// The array element (0 for a binding that is not an array).
    pub element: u32,
    pub resource: Resource,
}

impl Binding {
    /// Element 0 of `(set, binding)`.
    pub fn new(set: u32, binding: u32, resource: Resource) -> Binding {
        Binding { set, binding, element: 0, resource }
    }
}

/// A buffer reached through its device address (`bufferDeviceAddress`): the 64-bit address
/// is written, little-endian, where `address` says; the buffer is read back after the
/// dispatch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceBuffer {
    pub bytes: Vec<u8>,
    pub address: AddressSlot,
}

/// Where a [`DeviceBuffer`]'s address is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressSlot {
    /// [`Dispatch::push_constants`] at this byte offset.
    Push(u32),
    /// Byte `offset` of the buffer of [`Dispatch::bindings`]`[binding]` (a uniform or
    /// storage buffer), before the dispatch.
    Binding { binding: usize, offset: u32 },
    /// Byte `offset` of [`Dispatch::device_buffers`]`[buffer]`, an earlier one in the list
    /// (addresses inside device memory: tables of addresses, records naming buffers).
    Device { buffer: usize, offset: u32 },
    /// Nowhere: a [`program::Program`] names the buffer's address in its commands and
    /// patches instead.
    Nowhere,
}

/// One dispatch: module, entry point, layout, workgroup counts, time limit.
#[derive(Clone, Debug, Default)]
pub struct Dispatch<'a> {
    pub spirv: &'a [u32],
    pub entry: &'a str,
    pub bindings: Vec<Binding>,
    /// Minimum descriptor counts `(set, binding, count)`; otherwise a binding's count is
    /// its highest element + 1. Arrays (count > 1) are partially bound where the device
    /// supports it.
    pub min_counts: Vec<(u32, u32, u32)>,
    /// One push-constant range from offset 0, visible to compute (empty: none).
    pub push_constants: Vec<u8>,
    pub device_buffers: Vec<DeviceBuffer>,
    pub groups: [u32; 3],
    pub timeout: Duration,
}

/// The resources after a dispatch, in the order of [`Dispatch::bindings`].
#[derive(Clone, Debug)]
pub struct DispatchResult {
    pub resources: Vec<Resource>,
    /// [`Dispatch::device_buffers`] after the dispatch, in order.
    pub device_buffers: Vec<Vec<u8>>,
    /// From submission to the fence.
    pub gpu_wall: Duration,
}

impl DispatchResult {
    /// Resource `i` as little-endian words (`None` if absent or a sampler).
    pub fn words(&self, i: usize) -> Option<Vec<u32>> {
        let b = self.resources.get(i)?.bytes()?;
        Some(b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
}

/// Without `descriptorBindingPartiallyBound`, every element of an array binding a shader
/// uses must hold a valid descriptor, even those it never reads (Vulkan treats the whole
/// array as statically used; lavapipe crashes on the unwritten ones). So the elements a
/// dispatch leaves empty, up to the binding's count (highest element + 1, or
/// [`Dispatch::min_counts`]), get copies of the binding's first element: the bindings this
/// returns, which go after the caller's, whose result indices stay as they were.
fn array_fillers(bindings: &[Binding], min_counts: &[(u32, u32, u32)]) -> Vec<Binding> {
    use std::collections::BTreeMap;
    let mut counts: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    let mut first: BTreeMap<(u32, u32), &Binding> = BTreeMap::new();
    let mut written = std::collections::BTreeSet::new();
    for b in bindings {
        let c = counts.entry((b.set, b.binding)).or_insert(0);
        *c = (*c).max(b.element + 1);
        first.entry((b.set, b.binding)).or_insert(b);
        written.insert((b.set, b.binding, b.element));
    }
    for &(set, binding, count) in min_counts {
        if let Some(c) = counts.get_mut(&(set, binding)) {
            *c = (*c).max(count);
        }
    }
    let mut fillers = Vec::new();
    for (&(set, binding), &count) in &counts {
        let model = first[&(set, binding)];
        for element in 0..count {
            if !written.contains(&(set, binding, element)) {
                fillers.push(Binding { set, binding, element, resource: model.resource.clone() });
            }
        }
    }
    fillers
}

/// An open device with one compute queue.
pub struct Gpu {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
    memory: vk::PhysicalDeviceMemoryProperties,
    info: DeviceInfo,
    poisoned: bool,
    timestamps: Timestamps,
}

/// What timestamp queries on the runner's queue mean ([`gpu_times`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timestamps {
    /// `timestampValidBits` of the queue family: 0 means no timestamps.
    pub valid_bits: u32,
    /// `timestampPeriod`: nanoseconds per tick.
    pub period_ns: f32,
    /// `timestampComputeAndGraphics`: every compute and graphics queue has timestamps.
    pub compute_and_graphics: bool,
}

/// What the device supports, queried into structs that then enable all of it.
struct FeatureChain {
    f11: vk::PhysicalDeviceVulkan11Features<'static>,
    f12: vk::PhysicalDeviceVulkan12Features<'static>,
    f13: vk::PhysicalDeviceVulkan13Features<'static>,
    core: vk::PhysicalDeviceFeatures,
}

/// Records a barrier making shader and transfer writes of `shader_stages` (and of copies)
/// visible to host reads after the submission completes.
///
/// # Safety
/// `cb` is a command buffer of `dev` in the recording state.
pub(crate) unsafe fn barrier_to_host(dev: &ash::Device, cb: vk::CommandBuffer, shader_stages: vk::PipelineStageFlags) {
    let barrier = [vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ)];
    // SAFETY: the caller's contract.
    unsafe {
        dev.cmd_pipeline_barrier(
            cb,
            shader_stages | vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &barrier,
            &[],
            &[],
        )
    };
}

/// A device for test `test`, or `None` (printing why) when there is no Vulkan loader or
/// device and `UNTANGLE_REQUIRE_VULKAN=1` is not set (`tools/test.sh` sets it, after
/// installing lavapipe, so CI never skips); any other failure panics. Prints the device and
/// the optional features it enabled.
pub fn open_or_skip(test: &str) -> Option<Gpu> {
    let required = std::env::var("UNTANGLE_REQUIRE_VULKAN").is_ok_and(|v| v == "1");
    match Gpu::open() {
        Ok(gpu) => {
            println!("{test}: Vulkan {}; {:?}", gpu.info(), gpu.info().features);
            Some(gpu)
        }
        Err(e @ (VkError::NoLoader(_) | VkError::NoDevice(_))) if !required => {
            println!(
                "SKIPPED {test}: no Vulkan driver ({e}); install mesa-vulkan-drivers libvulkan1 (tools/test.sh does)"
            );
            None
        }
        Err(e) => panic!("{test}: cannot open a Vulkan device: {e}"),
    }
}

impl Gpu {
    /// Loads Vulkan, picks the device (`UNTANGLE_VK_DEVICE`, else the first) and opens it.
    pub fn open() -> Result<Gpu, VkError> {
        let choice = std::env::var("UNTANGLE_VK_DEVICE").ok();
        Self::open_with(choice.as_deref())
    }

    /// [`Gpu::open`] with an explicit device choice (index or name substring).
    pub fn open_with(choice: Option<&str>) -> Result<Gpu, VkError> {
        // SAFETY: loading the system loader; its initialisation has no preconditions.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| VkError::NoLoader(e.to_string()))?;
        // SAFETY: a valid entry; the call takes no pointers from us.
        let loader_version =
            unsafe { entry.try_enumerate_instance_version() }.ok().flatten().unwrap_or(vk::API_VERSION_1_0);
        let api = if loader_version >= vk::API_VERSION_1_3 {
            vk::API_VERSION_1_3
        } else if loader_version >= vk::API_VERSION_1_2 {
            vk::API_VERSION_1_2
        } else {
            vk::API_VERSION_1_1
        };
        let app_name = c"untangle";
        let app = vk::ApplicationInfo::default().application_name(app_name).api_version(api);
        let create = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: the create info outlives the call.
        let instance = unsafe { entry.create_instance(&create, None) }.map_err(|e| match e {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => VkError::NoDevice(" (no compatible driver / ICD)".into()),
            e => VkError::Vk { call: "vkCreateInstance", result: e },
        })?;
        match Self::open_device(entry.clone(), instance.clone(), choice, api) {
            Ok(gpu) => Ok(gpu),
            Err(e) => {
                // SAFETY: nothing was created from the instance that is still alive.
                unsafe { instance.destroy_instance(None) };
                Err(e)
            }
        }
    }

    fn open_device(entry: ash::Entry, instance: ash::Instance, choice: Option<&str>, api: u32) -> Result<Gpu, VkError> {
        // SAFETY: a valid instance.
        let physicals = unsafe { instance.enumerate_physical_devices() }.map_err(vkr("vkEnumeratePhysicalDevices"))?;
        if physicals.is_empty() {
            return Err(VkError::NoDevice(" (the loader found no ICD)".into()));
        }
        let names: Vec<String> = physicals
            .iter()
            .map(|&p| {
                // SAFETY: `p` came from this instance.
                let props = unsafe { instance.get_physical_device_properties(p) };
                props.device_name_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default()
            })
            .collect();
        let index = match choice {
            None | Some("") => 0,
            Some(c) => match c.parse::<usize>() {
                Ok(i) if i < physicals.len() => i,
                Ok(i) => return Err(VkError::NoDevice(format!(" with index {i}: devices are {names:?}"))),
                Err(_) => names
                    .iter()
                    .position(|n| n.to_lowercase().contains(&c.to_lowercase()))
                    .ok_or_else(|| VkError::NoDevice(format!(" named like {c:?}: devices are {names:?}")))?,
            },
        };
        let physical = physicals[index];
        // SAFETY: `physical` came from this instance.
        let props = unsafe { instance.get_physical_device_properties(physical) };
        let version =
            |v: u32| format!("{}.{}.{}", vk::api_version_major(v), vk::api_version_minor(v), vk::api_version_patch(v));
        let mut driver = format!("version {:#x}", props.driver_version);
        let mut features = Features::default();
        let l = &props.limits;
        features.per_stage_descriptors = [
            l.max_per_stage_descriptor_storage_buffers,
            l.max_per_stage_descriptor_uniform_buffers,
            l.max_per_stage_descriptor_sampled_images,
            l.max_per_stage_descriptor_storage_images,
            l.max_per_stage_descriptor_samplers,
        ];
        let v12 = api >= vk::API_VERSION_1_2 && props.api_version >= vk::API_VERSION_1_2;
        let v13 = api >= vk::API_VERSION_1_3 && props.api_version >= vk::API_VERSION_1_3;
        if api >= vk::API_VERSION_1_1 && props.api_version >= vk::API_VERSION_1_1 {
            let mut d = vk::PhysicalDeviceDriverProperties::default();
            let mut sg = vk::PhysicalDeviceSubgroupProperties::default();
            let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut sg);
            if v12 {
                p2 = p2.push_next(&mut d);
            }
            // SAFETY: a 1.1+ instance and device; the chain lives through the call.
            unsafe { instance.get_physical_device_properties2(physical, &mut p2) };
            if v12 {
                let name = d.driver_name_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
                let info = d.driver_info_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
                driver = format!("{name} {info}").trim().to_string();
            }
            features.subgroup_size = sg.subgroup_size;
            features.subgroup_stages = sg.supported_stages.as_raw();
            if sg.supported_stages.contains(vk::ShaderStageFlags::COMPUTE) {
                features.subgroup_ops = sg.supported_operations.as_raw();
            }
        }
        let mut chain = FeatureChain {
            f11: Default::default(),
            f12: Default::default(),
            f13: Default::default(),
            core: Default::default(),
        };
        if v12 {
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut chain.f11).push_next(&mut chain.f12);
            if v13 {
                f2 = f2.push_next(&mut chain.f13);
            }
            // SAFETY: a 1.2 instance and device; the chain lives through the call.
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            chain.core = f2.features;
        } else {
            // SAFETY: `physical` came from this instance.
            chain.core = unsafe { instance.get_physical_device_features(physical) };
        }
        let (c, f11, f12) = (&chain.core, &chain.f11, &chain.f12);
        let on = |b: vk::Bool32| b == vk::TRUE;
        features.buffer_device_address = v12 && on(f12.buffer_device_address);
        features.partially_bound = v12 && on(f12.descriptor_binding_partially_bound);
        features.descriptor_indexing = v12
            && on(f12.runtime_descriptor_array)
            && on(f12.descriptor_binding_partially_bound)
            && on(f12.shader_sampled_image_array_non_uniform_indexing)
            && on(f12.shader_storage_buffer_array_non_uniform_indexing)
            && on(f12.shader_storage_image_array_non_uniform_indexing)
            && on(f12.shader_uniform_texel_buffer_array_non_uniform_indexing)
            && on(f12.shader_storage_texel_buffer_array_non_uniform_indexing);
        features.shader_int64 = on(c.shader_int64);
        features.shader_float64 = on(c.shader_float64);
        features.shader_int16 = on(c.shader_int16);
        features.resource_residency = on(c.shader_resource_residency);
        features.shader_float16 = v12 && on(f12.shader_float16);
        features.shader_int8 = v12 && on(f12.shader_int8);
        features.storage_16bit =
            v12 && on(f11.storage_buffer16_bit_access) && on(f11.uniform_and_storage_buffer16_bit_access);
        features.int64_atomics = v12 && on(f12.shader_buffer_int64_atomics) && on(f12.shader_shared_int64_atomics);
        features.storage_image_without_format =
            on(c.shader_storage_image_read_without_format) && on(c.shader_storage_image_write_without_format);
        features.multiview = v12 && on(f11.multiview);
        features.multi_viewport = v12 && on(c.multi_viewport) && on(f12.shader_output_viewport_index);
        // Device extensions the runner turns on when present.
        // SAFETY: `physical` came from this instance.
        let extensions = unsafe { instance.enumerate_device_extension_properties(physical) }.unwrap_or_default();
        let has = |name: &std::ffi::CStr| extensions.iter().any(|e| e.extension_name_as_c_str() == Ok(name));
        let mut clock = vk::PhysicalDeviceShaderClockFeaturesKHR::default();
        if v12 && has(ash::khr::shader_clock::NAME) {
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut clock);
            // SAFETY: a 1.2 instance and device; the chain lives through the call.
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            features.shader_subgroup_clock = clock.shader_subgroup_clock == vk::TRUE;
        }
        let mut mesh = vk::PhysicalDeviceMeshShaderFeaturesEXT::default();
        if v12 && has(ash::ext::mesh_shader::NAME) {
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut mesh);
            // SAFETY: a 1.2 instance and device; the chain lives through the call.
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            features.mesh_shader = on(mesh.task_shader) && on(mesh.mesh_shader);
        }
        let mut reconvergence = vk::PhysicalDeviceShaderMaximalReconvergenceFeaturesKHR::default();
        if v12 && has(ash::khr::shader_maximal_reconvergence::NAME) {
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut reconvergence);
            // SAFETY: a 1.2 instance and device; the chain lives through the call.
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            features.maximal_reconvergence = on(reconvergence.shader_maximal_reconvergence);
        }
        let mut controls2 = vk::PhysicalDeviceShaderFloatControls2FeaturesKHR::default();
        let controls2_ext = has(ash::khr::shader_float_controls2::NAME);
        if v12 && controls2_ext {
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut controls2);
            // SAFETY: a 1.2 instance and device; the chain lives through the call.
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            features.float_controls2 = on(controls2.shader_float_controls2);
        }
        // The KHR extension kept the NV feature structure (same structure type).
        let derivatives_ext = c"VK_KHR_compute_shader_derivatives";
        let mut derivatives = vk::PhysicalDeviceComputeShaderDerivativesFeaturesNV::default();
        if v12 && has(derivatives_ext) {
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut derivatives);
            // SAFETY: a 1.2 instance and device; the chain lives through the call.
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            features.compute_derivatives =
                on(derivatives.compute_derivative_group_quads) && on(derivatives.compute_derivative_group_linear);
        }
        let mut coopmat = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default();
        if v12 && has(ash::khr::cooperative_matrix::NAME) {
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut coopmat);
            // SAFETY: a 1.2 instance and device; the chain lives through the call.
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            let loader = ash::khr::cooperative_matrix::Instance::new(&entry, &instance);
            // SAFETY: `physical` came from this instance, which has the extension's loader.
            let forms =
                unsafe { loader.get_physical_device_cooperative_matrix_properties(physical) }.unwrap_or_default();
            let f16_f32 = forms.iter().any(|p| {
                (p.m_size, p.n_size, p.k_size) == (16, 16, 16)
                    && p.scope == vk::ScopeKHR::SUBGROUP
                    && (p.a_type, p.b_type) == (vk::ComponentTypeKHR::FLOAT16, vk::ComponentTypeKHR::FLOAT16)
                    && (p.c_type, p.result_type) == (vk::ComponentTypeKHR::FLOAT32, vk::ComponentTypeKHR::FLOAT32)
            });
            features.cooperative_matrix_f16_f32 = on(coopmat.cooperative_matrix) && f16_f32;
        }
        let mut barycentric = vk::PhysicalDeviceFragmentShaderBarycentricFeaturesKHR::default();
        if v12 && has(ash::khr::fragment_shader_barycentric::NAME) {
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut barycentric);
            // SAFETY: a 1.2 instance and device; the chain lives through the call.
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            features.fragment_shader_barycentric = on(barycentric.fragment_shader_barycentric);
        }
        let mut image_int64 = vk::PhysicalDeviceShaderImageAtomicInt64FeaturesEXT::default();
        if v12 && has(ash::ext::shader_image_atomic_int64::NAME) {
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut image_int64);
            // SAFETY: a 1.2 instance and device; the chain lives through the call.
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            features.image_int64_atomics = on(image_int64.shader_image_int64_atomics);
        }
        let mut footprint = vk::PhysicalDeviceShaderImageFootprintFeaturesNV::default();
        if v12 && has(ash::nv::shader_image_footprint::NAME) {
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut footprint);
            // SAFETY: a 1.2 instance and device; the chain lives through the call.
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            features.image_footprint = on(footprint.image_footprint);
        }
        let mut footprint_enabled = vk::PhysicalDeviceShaderImageFootprintFeaturesNV::default().image_footprint(true);
        let mut barycentric_enabled =
            vk::PhysicalDeviceFragmentShaderBarycentricFeaturesKHR::default().fragment_shader_barycentric(true);
        let mut image_int64_enabled =
            vk::PhysicalDeviceShaderImageAtomicInt64FeaturesEXT::default().shader_image_int64_atomics(true);
        let mut coopmat_enabled = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default().cooperative_matrix(true);
        let mut derivatives_enabled = vk::PhysicalDeviceComputeShaderDerivativesFeaturesNV::default()
            .compute_derivative_group_quads(true)
            .compute_derivative_group_linear(true);
        let mut controls2_enabled =
            vk::PhysicalDeviceShaderFloatControls2FeaturesKHR::default().shader_float_controls2(true);
        let mut reconvergence_enabled =
            vk::PhysicalDeviceShaderMaximalReconvergenceFeaturesKHR::default().shader_maximal_reconvergence(true);
        // Only taskShader and meshShader are enabled: multiviewMeshShader would need
        // multiview, primitiveFragmentShadingRateMeshShader needs VK_KHR_fragment_shading_rate
        // (not enabled), and mesh-shader queries are not used.
        let mut mesh_enabled = vk::PhysicalDeviceMeshShaderFeaturesEXT::default().task_shader(true).mesh_shader(true);
        let info = DeviceInfo {
            index,
            name: names[index].clone(),
            device_type: format!("{:?}", props.device_type),
            driver,
            api_version: version(props.api_version),
            features,
        };
        if props.api_version < vk::API_VERSION_1_1 {
            return Err(VkError::NoDevice(format!(": {info} is below Vulkan 1.1 (SPIR-V 1.3)")));
        }
        // SAFETY: `physical` came from this instance.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        // A family with graphics and compute where there is one (the graphics runner draws
        // on the same queue), else any compute family.
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE | vk::QueueFlags::GRAPHICS))
            .or_else(|| families.iter().position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE)))
            .ok_or_else(|| VkError::NoDevice(format!(": {info} has no compute queue")))? as u32;
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
        // Everything the device supports is enabled (robust buffer access included, as
        // D3D12 buffer views are bounds-checked), except robustness when
        // `UNTANGLE_VK_ROBUST=0`: out-of-bounds accesses then stay undefined instead of
        // being masked, which is what checking generated code for them needs.
        if std::env::var("UNTANGLE_VK_ROBUST").is_ok_and(|v| v == "0") {
            chain.core.robust_buffer_access = vk::FALSE;
            chain.f13.robust_image_access = vk::FALSE;
        }
        let mut f2 = vk::PhysicalDeviceFeatures2::default().features(chain.core);
        let mut create = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
        if v12 {
            chain.f11.p_next = std::ptr::null_mut();
            chain.f12.p_next = std::ptr::null_mut();
            chain.f13.p_next = std::ptr::null_mut();
            f2 = f2.push_next(&mut chain.f11).push_next(&mut chain.f12);
            if v13 {
                f2 = f2.push_next(&mut chain.f13);
            }
            if info.features.shader_subgroup_clock {
                clock.p_next = std::ptr::null_mut();
                f2 = f2.push_next(&mut clock);
            }
            if info.features.mesh_shader {
                f2 = f2.push_next(&mut mesh_enabled);
            }
            if info.features.maximal_reconvergence {
                f2 = f2.push_next(&mut reconvergence_enabled);
            }
            if info.features.float_controls2 {
                f2 = f2.push_next(&mut controls2_enabled);
            }
            if info.features.compute_derivatives {
                f2 = f2.push_next(&mut derivatives_enabled);
            }
            if info.features.cooperative_matrix_f16_f32 {
                f2 = f2.push_next(&mut coopmat_enabled);
            }
            if info.features.fragment_shader_barycentric {
                f2 = f2.push_next(&mut barycentric_enabled);
            }
            if info.features.image_int64_atomics {
                f2 = f2.push_next(&mut image_int64_enabled);
            }
            if info.features.image_footprint {
                f2 = f2.push_next(&mut footprint_enabled);
            }
            create = create.push_next(&mut f2);
        } else {
            create = create.enabled_features(&chain.core);
        }
        let mut extension_names = Vec::new();
        if info.features.shader_subgroup_clock {
            extension_names.push(ash::khr::shader_clock::NAME.as_ptr());
        }
        if info.features.mesh_shader {
            extension_names.push(ash::ext::mesh_shader::NAME.as_ptr());
        }
        if info.features.maximal_reconvergence {
            extension_names.push(ash::khr::shader_maximal_reconvergence::NAME.as_ptr());
        }
        // The extension (core in 1.4, but the instance asks for 1.3).
        if info.features.float_controls2 && controls2_ext {
            extension_names.push(ash::khr::shader_float_controls2::NAME.as_ptr());
        }
        if info.features.compute_derivatives {
            extension_names.push(derivatives_ext.as_ptr());
        }
        if info.features.cooperative_matrix_f16_f32 {
            extension_names.push(ash::khr::cooperative_matrix::NAME.as_ptr());
        }
        if info.features.fragment_shader_barycentric {
            extension_names.push(ash::khr::fragment_shader_barycentric::NAME.as_ptr());
        }
        if info.features.image_int64_atomics {
            extension_names.push(ash::ext::shader_image_atomic_int64::NAME.as_ptr());
        }
        if info.features.image_footprint {
            extension_names.push(ash::nv::shader_image_footprint::NAME.as_ptr());
        }
        create = create.enabled_extension_names(&extension_names);
        // SAFETY: the create info and its arrays outlive the call.
        let device = unsafe { instance.create_device(physical, &create, None) }.map_err(vkr("vkCreateDevice"))?;
        // SAFETY: queue 0 of a family we asked for.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: a valid device.
        let pool = match unsafe { device.create_command_pool(&pool_info, None) } {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: nothing else was created from the device.
                unsafe { device.destroy_device(None) };
                return Err(VkError::Vk { call: "vkCreateCommandPool", result: e });
            }
        };
        // SAFETY: `physical` came from this instance.
        let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
        let timestamps = Timestamps {
            valid_bits: families[family as usize].timestamp_valid_bits,
            period_ns: props.limits.timestamp_period,
            compute_and_graphics: props.limits.timestamp_compute_and_graphics == vk::TRUE,
        };
        Ok(Gpu { _entry: entry, instance, device, queue, pool, memory, info, poisoned: false, timestamps })
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Timestamp support of the runner's queue.
    pub fn timestamps(&self) -> Timestamps {
        self.timestamps
    }

    /// Runs one dispatch and reads every resource back.
    pub fn dispatch(&mut self, d: &Dispatch) -> Result<DispatchResult, VkError> {
        let r = self.run_program(&program::Program::from_dispatch(d))?;
        Ok(DispatchResult { resources: r.resources, device_buffers: r.device_buffers, gpu_wall: r.gpu_wall })
    }

    fn memory_type(&self, bits: u32, want: vk::MemoryPropertyFlags) -> Result<u32, VkError> {
        (0..self.memory.memory_type_count)
            .find(|&i| bits & (1 << i) != 0 && self.memory.memory_types[i as usize].property_flags.contains(want))
            .ok_or(VkError::NoMemoryType)
    }

    /// The image `info` describes, bound to device-local memory (any memory type where no
    /// device-local one fits), both recorded in `s` to be freed with it.
    ///
    /// SAFETY: `s` belongs to this device.
    unsafe fn bound_image(&self, s: &mut Scratch, info: &vk::ImageCreateInfo) -> Result<vk::Image, VkError> {
        let dev = &self.device;
        let image = dev.create_image(info, None).map_err(vkr("vkCreateImage"))?;
        s.images.push(image);
        let mem = self.device_local_memory(s, dev.get_image_memory_requirements(image))?;
        dev.bind_image_memory(image, mem, 0).map_err(vkr("vkBindImageMemory"))?;
        Ok(image)
    }

    /// Memory for `req`, device-local (any memory type where no device-local one fits),
    /// recorded in `s` to be freed with it.
    ///
    /// SAFETY: `s` belongs to this device.
    unsafe fn device_local_memory(
        &self,
        s: &mut Scratch,
        req: vk::MemoryRequirements,
    ) -> Result<vk::DeviceMemory, VkError> {
        let ti = self
            .memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL)
            .or_else(|_| self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::empty()))?;
        let alloc = vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(ti);
        let mem = self.device.allocate_memory(&alloc, None).map_err(vkr("vkAllocateMemory"))?;
        s.memories.push(mem);
        Ok(mem)
    }

    /// A host-visible buffer holding `bytes` (at least 4 bytes), mapped.
    ///
    /// SAFETY: `s` belongs to this device.
    unsafe fn host_buffer(
        &self,
        s: &mut Scratch,
        bytes: &[u8],
        usage: vk::BufferUsageFlags,
    ) -> Result<HostBuffer, VkError> {
        let dev = &self.device;
        let size = bytes.len().max(4);
        let info =
            vk::BufferCreateInfo::default().size(size as u64).usage(usage).sharing_mode(vk::SharingMode::EXCLUSIVE);
        let buffer = dev.create_buffer(&info, None).map_err(vkr("vkCreateBuffer"))?;
        s.buffers.push(buffer);
        let req = dev.get_buffer_memory_requirements(buffer);
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let mut flags = vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let mut alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(self.memory_type(req.memory_type_bits, want)?);
        if usage.contains(vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS) {
            alloc = alloc.push_next(&mut flags);
        }
        let mem = dev.allocate_memory(&alloc, None).map_err(vkr("vkAllocateMemory"))?;
        s.memories.push(mem);
        dev.bind_buffer_memory(buffer, mem, 0).map_err(vkr("vkBindBufferMemory"))?;
        let ptr = dev.map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()).map_err(vkr("vkMapMemory"))?;
        std::ptr::write_bytes(ptr.cast::<u8>(), 0, size);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr.cast::<u8>(), bytes.len());
        Ok(HostBuffer { buffer, ptr: ptr.cast::<u8>(), len: bytes.len() })
    }
}

/// A mapped host-visible buffer of a dispatch.
struct HostBuffer {
    buffer: vk::Buffer,
    ptr: *mut u8,
    len: usize,
}

/// What backs one binding: a buffer, a texel buffer and its view, an image's staging
/// buffer and view, a sampler.
enum Obj {
    Buffer(HostBuffer),
    Texel(HostBuffer, vk::BufferView),
    Image(HostBuffer, vk::ImageView),
    Sampler(vk::Sampler),
}

impl Drop for Gpu {
    fn drop(&mut self) {
        if self.poisoned {
            // A shader may still be running: leak the device rather than destroy it in use.
            return;
        }
        // SAFETY: every dispatch's objects were destroyed after its fence; nothing runs.
        unsafe {
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// The objects of one dispatch, destroyed together once the device is done with them.
#[derive(Default)]
struct Scratch {
    buffers: Vec<vk::Buffer>,
    buffer_views: Vec<vk::BufferView>,
    images: Vec<vk::Image>,
    image_views: Vec<vk::ImageView>,
    samplers: Vec<vk::Sampler>,
    memories: Vec<vk::DeviceMemory>,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    layouts: Vec<vk::PipelineLayout>,
    modules: Vec<vk::ShaderModule>,
    pipelines: Vec<vk::Pipeline>,
    descriptor_pools: Vec<vk::DescriptorPool>,
    command_buffers: Vec<(vk::CommandPool, vk::CommandBuffer)>,
    fences: Vec<vk::Fence>,
    query_pools: Vec<vk::QueryPool>,
}

impl Scratch {
    /// SAFETY: the objects belong to `dev` and are no longer in use.
    unsafe fn destroy(self, dev: &ash::Device) {
        for q in self.query_pools {
            dev.destroy_query_pool(q, None);
        }
        for f in self.fences {
            dev.destroy_fence(f, None);
        }
        for (pool, cb) in self.command_buffers {
            dev.free_command_buffers(pool, &[cb]);
        }
        for p in self.descriptor_pools {
            dev.destroy_descriptor_pool(p, None);
        }
        for p in self.pipelines {
            dev.destroy_pipeline(p, None);
        }
        for m in self.modules {
            dev.destroy_shader_module(m, None);
        }
        for l in self.layouts {
            dev.destroy_pipeline_layout(l, None);
        }
        for l in self.set_layouts {
            dev.destroy_descriptor_set_layout(l, None);
        }
        for v in self.buffer_views {
            dev.destroy_buffer_view(v, None);
        }
        for v in self.image_views {
            dev.destroy_image_view(v, None);
        }
        for x in self.samplers {
            dev.destroy_sampler(x, None);
        }
        for i in self.images {
            dev.destroy_image(i, None);
        }
        for b in self.buffers {
            dev.destroy_buffer(b, None);
        }
        for m in self.memories {
            dev.free_memory(m, None);
        }
    }
}

/// A module whose entry point `spin` loops until word 0 of the storage buffer at set 0,
/// binding 0 is non-zero, reading it with a relaxed device-scope atomic load each time (so
/// no compiler may hoist the read). Three nested loops, each leaving only when the word is
/// non-zero, because some drivers cap a single loop's iterations (llvmpipe: 65,535), and
/// each inner iteration atomically increments word 1, so that no compiler may delete the
/// loops as free of side effects. Bound to two zero words it runs, in effect, forever. The
/// runner's timeout test.
pub fn spin_module() -> Vec<u32> {
    use rspirv::binary::Assemble;
    use rspirv::dr::{Builder, Operand};
    use rspirv::spirv::{self, Word};
    let mut b = Builder::new();
    b.set_version(1, 3);
    b.capability(spirv::Capability::Shader);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let bool_t = b.type_bool();
    let uint = b.type_int(32, 0);
    let array = b.type_runtime_array(uint);
    b.decorate(array, spirv::Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    let st = b.type_struct([array]);
    b.decorate(st, spirv::Decoration::Block, []);
    b.member_decorate(st, 0, spirv::Decoration::Offset, [Operand::LiteralBit32(0)]);
    let sb = spirv::StorageClass::StorageBuffer;
    let p_st = b.type_pointer(None, sb, st);
    let p_uint = b.type_pointer(None, sb, uint);
    let var = b.variable(p_st, None, sb, None);
    b.decorate(var, spirv::Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
    b.decorate(var, spirv::Decoration::Binding, [Operand::LiteralBit32(0)]);
    let zero = b.constant_bit32(uint, 0);
    let one = b.constant_bit32(uint, 1);
    let device_scope = b.constant_bit32(uint, spirv::Scope::Device as u32);
    let fn_void = b.type_function(void, []);
    let build = |b: &mut Builder| -> Result<(), rspirv::dr::Error> {
        let f = b.begin_function(void, None, spirv::FunctionControl::NONE, fn_void)?;
        b.entry_point(spirv::ExecutionModel::GLCompute, f, "spin", []);
        b.execution_mode(f, spirv::ExecutionMode::LocalSize, [1, 1, 1]);
        // Loops k = 0 (outer) .. 2 (inner): header[k] → header[k + 1] (or the test block
        // for the innermost); merge[k + 1] tests again and continues loop k or leaves it.
        let depth = 3;
        let header: Vec<_> = (0..depth).map(|_| b.id()).collect();
        let cont: Vec<_> = (0..depth).map(|_| b.id()).collect();
        let merge: Vec<_> = (0..depth).map(|_| b.id()).collect();
        let test = b.id();
        b.begin_block(None)?;
        b.branch(header[0])?;
        for k in 0..depth {
            b.begin_block(Some(header[k]))?;
            b.loop_merge(merge[k], cont[k], spirv::LoopControl::NONE, [])?;
            b.branch(if k + 1 < depth { header[k + 1] } else { test })?;
        }
        let still = |b: &mut Builder| -> Result<Word, rspirv::dr::Error> {
            let p = b.access_chain(p_uint, None, var, [zero, zero])?;
            let v = b.atomic_load(uint, None, p, device_scope, zero)?;
            b.i_equal(bool_t, None, v, zero)
        };
        b.begin_block(Some(test))?;
        // A side effect, so that no compiler may delete the loops as dead code.
        let p1 = b.access_chain(p_uint, None, var, [zero, one])?;
        b.atomic_i_increment(uint, None, p1, device_scope, zero)?;
        let c = still(b)?;
        b.branch_conditional(c, cont[depth - 1], merge[depth - 1], [])?;
        for k in (0..depth).rev() {
            b.begin_block(Some(cont[k]))?;
            b.branch(header[k])?;
            b.begin_block(Some(merge[k]))?;
            if k == 0 {
                b.ret()?;
            } else {
                let c = still(b)?;
                b.branch_conditional(c, cont[k - 1], merge[k - 1], [])?;
            }
        }
        b.end_function()
    };
    // The builder only fails on misuse (a block outside a function), not here.
    if build(&mut b).is_err() {
        return Vec::new();
    }
    b.module().assemble()
}
