//! GPU execution time of a SPIR-V module: what a translator's output costs every frame,
//! measured with timestamp queries around a fixed workload.
//!
//! [`Gpu::prepare_bench`] takes a module's [`Reflection`] (the same one
//! [`super::pipeline_times`] creates pipelines from) and makes, once and untimed: the
//! pipeline (layout and pipeline shared with pipeline-times' creation code), one resource
//! per binding, a descriptor set per set and a command buffer that records the workload
//! between two `vkCmdWriteTimestamp`s; [`Gpu::run_bench`] submits that command buffer and
//! returns the time between the timestamps (ticks masked to `timestampValidBits`, times
//! `timestampPeriod`).
//!
//! # Workload ([`Workload`])
//! * compute: `dispatches` dispatches of `groups` × 1 × 1 workgroups, a compute-to-compute
//!   memory barrier between consecutive ones (each sees the previous one's writes, as in a
//!   frame; no two overlap);
//! * fragment: `dispatches` draws of one triangle covering an `extent` × `extent` target
//!   ([`full_screen_triangle_vertex_shader`]), one [`COLOR_FORMAT`] attachment per output
//!   location and a [`DEPTH_FORMAT`] attachment, cleared when rendering begins (before the
//!   first timestamp), depth test off;
//! * vertex: `dispatches` draws of `vertices` vertices (a triangle list) on a 64 × 64
//!   viewport without attachments, under [`empty_fragment_shader`] (not discarded with the
//!   rasterizer: a driver may then skip vertex shaders without side effects; with zero
//!   inputs most triangles are degenerate, so the vertex stage dominates).
//!
//! The first timestamp is written before the first dispatch or draw (inside the rendering,
//! after the attachments' clears), the second after the last dispatch or after the
//! rendering ends (store operations included, the same for both sides).
//!
//! # Resources
//! Every binding gets zero-filled device-local memory (cleared once, before any timing):
//! storage buffers [`STORAGE_BUFFER_BYTES`], uniform buffers [`UNIFORM_BUFFER_BYTES`], texel
//! buffers [`TEXEL_BUFFER_BYTES`], images of one mip level (1D 4096, 2D 512², 3D 64³, cube
//! 256² × 6, arrays 4 layers (cubes 6), multisampled 2D with 4 samples, left uncleared), one
//! nearest, clamp-to-edge sampler. Formats: the module's `ImageFormat` where it names one,
//! else by the texel scalar: RGBA32 float/uint/sint for storage images and texel buffers,
//! RGBA16F (filterable) or RGBA32 uint/sint for sampled images. Every element of an array
//! binding (runtime arrays: 1024, as in pipeline-times) names the binding's one resource.
//! Push constants, where declared: 256 zero bytes. Zero data means index-dependent
//! addresses follow the invocation ids; accesses past a resource are the device's robust
//! accesses (the runner enables `robustBufferAccess` and `robustImageAccess`).
//!
//! Refused with [`VkError::BadLayout`] (the caller lists the pair as skipped): acceleration
//! structures, `Rect` and `SubpassData` images, image formats not mapped here.
//!
//! # Invariants
//! * The two modules of a pair get the same workload; their resources follow each one's
//!   own reflection, so they are identical where the two declare the same bindings (the
//!   caller compares the reflections).
//! * The queue's `timestampValidBits` is non-zero (else [`VkError::BadLayout`]).
//! * A submission that does not finish within [`Workload::timeout`] poisons the runner, as a
//!   dispatch does; a [`Bench`] of a poisoned runner is leaked by [`Gpu::release_bench`].
//!
//! Cost: per module, one pipeline and its resources (a few MiB); per run, one submission.

use super::pipeline_times::{
    empty_fragment_shader, full_screen_triangle_vertex_shader, ImageShape, Reflection, Scalar, Stage, COLOR_FORMAT,
    DEPTH_FORMAT,
};
use super::{vkr, Gpu, Scratch, VkError};
use ash::vk;
use std::time::Duration;

pub const STORAGE_BUFFER_BYTES: u64 = 4 << 20;
pub const UNIFORM_BUFFER_BYTES: u64 = 64 << 10;
/// 65,536 RGBA32 texels: Vulkan's minimum `maxTexelBufferElements`.
pub const TEXEL_BUFFER_BYTES: u64 = 1 << 20;
const PUSH_CONSTANT_BYTES: usize = 256;

/// What one timed submission runs (module documentation).
#[derive(Clone, Debug)]
pub struct Workload {
    /// Compute: workgroups per dispatch (X).
    pub groups: u32,
    /// Fragment: the render target's side in pixels.
    pub extent: u32,
    /// Vertex: vertices per draw.
    pub vertices: u32,
    /// Dispatches or draws between the two timestamps.
    pub dispatches: u32,
    pub timeout: Duration,
}

impl Default for Workload {
    fn default() -> Self {
        Workload { groups: 1024, extent: 1024, vertices: 1 << 20, dispatches: 10, timeout: Duration::from_secs(20) }
    }
}

impl Workload {
    /// The work of one timed submission, in words.
    pub fn describe(&self, r: &Reflection) -> String {
        let k = self.dispatches;
        match r.stage {
            Stage::Compute => {
                let [x, y, z] = r.local_size;
                format!("{k} x {} groups of {x}x{y}x{z}", self.groups)
            }
            Stage::Fragment => format!("{k} x {0}x{0} px, {1} targets", self.extent, r.color_outputs),
            Stage::Vertex => format!("{k} x {} vertices", self.vertices),
        }
    }
}

/// A pipeline with its resources bound and its timed command buffer recorded.
pub struct Bench {
    pub(super) scratch: Scratch,
    pub(super) cb: vk::CommandBuffer,
    pub(super) queries: vk::QueryPool,
    pub(super) timeout: Duration,
    pub(super) label: String,
}

/// The Vulkan format bound for an image of `shape` (module documentation).
pub fn resource_format(shape: &ImageShape, storage_or_texel: bool) -> Result<vk::Format, VkError> {
    use vk::Format as F;
    Ok(match (shape.format, shape.scalar) {
        (0, Scalar::Float) if storage_or_texel => F::R32G32B32A32_SFLOAT,
        (0, Scalar::Float) => F::R16G16B16A16_SFLOAT,
        (0, Scalar::Uint) => F::R32G32B32A32_UINT,
        (0, Scalar::Int) => F::R32G32B32A32_SINT,
        (1, _) => F::R32G32B32A32_SFLOAT,
        (2, _) => F::R16G16B16A16_SFLOAT,
        (3, _) => F::R32_SFLOAT,
        (4, _) => F::R8G8B8A8_UNORM,
        (5, _) => F::R8G8B8A8_SNORM,
        (6, _) => F::R32G32_SFLOAT,
        (7, _) => F::R16G16_SFLOAT,
        (8, _) => F::B10G11R11_UFLOAT_PACK32,
        (9, _) => F::R16_SFLOAT,
        (10, _) => F::R16G16B16A16_UNORM,
        (11, _) => F::A2B10G10R10_UNORM_PACK32,
        (12, _) => F::R16G16_UNORM,
        (13, _) => F::R8G8_UNORM,
        (14, _) => F::R16_UNORM,
        (15, _) => F::R8_UNORM,
        (21, _) => F::R32G32B32A32_SINT,
        (22, _) => F::R16G16B16A16_SINT,
        (23, _) => F::R8G8B8A8_SINT,
        (24, _) => F::R32_SINT,
        (25, _) => F::R32G32_SINT,
        (30, _) => F::R32G32B32A32_UINT,
        (31, _) => F::R16G16B16A16_UINT,
        (32, _) => F::R8G8B8A8_UINT,
        (33, _) => F::R32_UINT,
        (35, _) => F::R32G32_UINT,
        (40, _) => F::R64_UINT,
        (41, _) => F::R64_SINT,
        (f, _) => return Err(VkError::BadLayout(format!("SPIR-V image format {f} is not bound by gpu-times"))),
    })
}

/// What one binding's descriptors point at.
enum Backing {
    Buffer(vk::Buffer, u64),
    Texel(vk::BufferView),
    Image(vk::ImageView, Option<vk::Sampler>),
    Sampler(vk::Sampler),
}

impl Gpu {
    /// A zero-filled (by `setup`) device-local buffer of `size` bytes.
    unsafe fn bench_buffer(
        &self,
        s: &mut Scratch,
        setup: vk::CommandBuffer,
        size: u64,
        usage: vk::BufferUsageFlags,
    ) -> Result<vk::Buffer, VkError> {
        let dev = &self.device;
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage | vk::BufferUsageFlags::TRANSFER_DST)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        let buffer = dev.create_buffer(&info, None).map_err(vkr("vkCreateBuffer"))?;
        s.buffers.push(buffer);
        let mem = self.device_local_memory(s, dev.get_buffer_memory_requirements(buffer))?;
        dev.bind_buffer_memory(buffer, mem, 0).map_err(vkr("vkBindBufferMemory"))?;
        dev.cmd_fill_buffer(setup, buffer, 0, vk::WHOLE_SIZE, 0);
        Ok(buffer)
    }

    /// A device-local image and its view, moved to `GENERAL` (and cleared, unless
    /// multisampled) by `setup`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn bench_image(
        &self,
        s: &mut Scratch,
        setup: vk::CommandBuffer,
        ty: vk::ImageType,
        view_type: vk::ImageViewType,
        extent: [u32; 3],
        layers: u32,
        samples: vk::SampleCountFlags,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
    ) -> Result<vk::ImageView, VkError> {
        let dev = &self.device;
        let depth = format == DEPTH_FORMAT;
        let cube = matches!(view_type, vk::ImageViewType::CUBE | vk::ImageViewType::CUBE_ARRAY);
        let info = vk::ImageCreateInfo::default()
            .flags(if cube { vk::ImageCreateFlags::CUBE_COMPATIBLE } else { vk::ImageCreateFlags::empty() })
            .image_type(ty)
            .format(format)
            .extent(vk::Extent3D { width: extent[0], height: extent[1], depth: extent[2] })
            .mip_levels(1)
            .array_layers(layers)
            .samples(samples)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage | vk::ImageUsageFlags::TRANSFER_DST)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let image = self.bound_image(s, &info)?;
        let aspect = if depth {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        } else {
            vk::ImageAspectFlags::COLOR
        };
        let range = vk::ImageSubresourceRange::default().aspect_mask(aspect).level_count(1).layer_count(layers);
        let barrier = [vk::ImageMemoryBarrier::default()
            .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::GENERAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(range)];
        dev.cmd_pipeline_barrier(
            setup,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &barrier,
        );
        if !depth && samples == vk::SampleCountFlags::TYPE_1 {
            dev.cmd_clear_color_image(
                setup,
                image,
                vk::ImageLayout::GENERAL,
                &vk::ClearColorValue::default(),
                &[range],
            );
        }
        let vinfo = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(view_type)
            .format(format)
            .subresource_range(range);
        let view = dev.create_image_view(&vinfo, None).map_err(vkr("vkCreateImageView"))?;
        s.image_views.push(view);
        Ok(view)
    }

    /// The resource behind a binding of `ty` whose image type (if any) is `shape`.
    unsafe fn bench_backing(
        &self,
        s: &mut Scratch,
        setup: vk::CommandBuffer,
        ty: vk::DescriptorType,
        shape: Option<&ImageShape>,
        sampler: vk::Sampler,
    ) -> Result<Backing, VkError> {
        use vk::DescriptorType as D;
        let need_shape = || shape.ok_or_else(|| VkError::BadLayout(format!("a {ty:?} binding without an image type")));
        Ok(match ty {
            D::STORAGE_BUFFER | D::UNIFORM_BUFFER => {
                let (size, usage) = if ty == D::STORAGE_BUFFER {
                    (STORAGE_BUFFER_BYTES, vk::BufferUsageFlags::STORAGE_BUFFER)
                } else {
                    (UNIFORM_BUFFER_BYTES, vk::BufferUsageFlags::UNIFORM_BUFFER)
                };
                Backing::Buffer(self.bench_buffer(s, setup, size, usage)?, size)
            }
            D::UNIFORM_TEXEL_BUFFER | D::STORAGE_TEXEL_BUFFER => {
                let format = resource_format(need_shape()?, true)?;
                let usage = if ty == D::STORAGE_TEXEL_BUFFER {
                    vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER
                } else {
                    vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
                };
                let buffer = self.bench_buffer(s, setup, TEXEL_BUFFER_BYTES, usage)?;
                let texel = super::texel_size(format).unwrap_or(16) as u64;
                let info = vk::BufferViewCreateInfo::default()
                    .buffer(buffer)
                    .format(format)
                    .range(TEXEL_BUFFER_BYTES / texel * texel);
                let view = self.device.create_buffer_view(&info, None).map_err(vkr("vkCreateBufferView"))?;
                s.buffer_views.push(view);
                Backing::Texel(view)
            }
            D::STORAGE_IMAGE | D::SAMPLED_IMAGE | D::COMBINED_IMAGE_SAMPLER => {
                let shape = need_shape()?;
                let storage = ty == D::STORAGE_IMAGE;
                let format = resource_format(shape, storage)?;
                let layers = if shape.arrayed { 4 } else { 1 };
                use vk::{ImageType as T, ImageViewType as V};
                let (image_type, view_type, extent, layers) = match (shape.dim, shape.arrayed) {
                    (0, false) => (T::TYPE_1D, V::TYPE_1D, [4096, 1, 1], 1),
                    (0, true) => (T::TYPE_1D, V::TYPE_1D_ARRAY, [4096, 1, 1], layers),
                    (1, false) => (T::TYPE_2D, V::TYPE_2D, [512, 512, 1], 1),
                    (1, true) => (T::TYPE_2D, V::TYPE_2D_ARRAY, [512, 512, 1], layers),
                    (2, _) => (T::TYPE_3D, V::TYPE_3D, [64, 64, 64], 1),
                    (3, false) => (T::TYPE_2D, V::CUBE, [256, 256, 1], 6),
                    (3, true) => (T::TYPE_2D, V::CUBE_ARRAY, [256, 256, 1], 6),
                    (dim, _) => {
                        return Err(VkError::BadLayout(format!(
                            "images of SPIR-V Dim {dim} are not bound by gpu-times"
                        )))
                    }
                };
                let samples =
                    if shape.multisampled { vk::SampleCountFlags::TYPE_4 } else { vk::SampleCountFlags::TYPE_1 };
                let usage = if storage { vk::ImageUsageFlags::STORAGE } else { vk::ImageUsageFlags::SAMPLED };
                let view = self.bench_image(s, setup, image_type, view_type, extent, layers, samples, format, usage)?;
                Backing::Image(view, (ty == D::COMBINED_IMAGE_SAMPLER).then_some(sampler))
            }
            D::SAMPLER => Backing::Sampler(sampler),
            other => return Err(VkError::BadLayout(format!("{other:?} bindings are not bound by gpu-times"))),
        })
    }

    /// The pipeline of `words` (reflected as `r`) with every binding backed and the timed
    /// workload recorded (module documentation).
    pub fn prepare_bench(&mut self, r: &Reflection, words: &[u32], w: &Workload) -> Result<Bench, VkError> {
        if self.poisoned {
            return Err(VkError::Poisoned);
        }
        if self.timestamps.valid_bits == 0 {
            return Err(VkError::BadLayout("the queue has no timestamps (timestampValidBits 0)".into()));
        }
        let mut s = Scratch::default();
        match self.prepare_in(r, words, w, &mut s) {
            Ok((cb, queries)) => {
                Ok(Bench { scratch: s, cb, queries, timeout: w.timeout, label: format!("gpu-times {}", r.entry) })
            }
            Err(e) => {
                self.release_scratch(s);
                Err(e)
            }
        }
    }

    pub(super) fn release_scratch(&self, s: Scratch) {
        if self.poisoned {
            // Work may still run: leak rather than destroy objects in use.
            std::mem::forget(s);
        } else {
            // SAFETY: every submission using these objects has completed.
            unsafe { s.destroy(&self.device) };
        }
    }

    /// Destroys a bench's objects (leaks them if the runner is poisoned).
    pub fn release_bench(&mut self, b: Bench) {
        self.release_scratch(b.scratch);
    }

    /// Runs the bench's recorded workload once; the time between its timestamps.
    pub fn run_bench(&mut self, b: &mut Bench) -> Result<Duration, VkError> {
        if self.poisoned {
            return Err(VkError::Poisoned);
        }
        // SAFETY: the command buffer and query pool belong to this device; the submission
        // is waited for before the results are read.
        unsafe {
            self.submit_and_wait(&mut b.scratch, b.cb, b.timeout, &b.label)?;
            let mut ticks = [0u64; 2];
            self.device
                .get_query_pool_results(
                    b.queries,
                    0,
                    &mut ticks,
                    vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                )
                .map_err(vkr("vkGetQueryPoolResults"))?;
            let bits = self.timestamps.valid_bits;
            let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let elapsed = ticks[1].wrapping_sub(ticks[0]) & mask;
            Ok(Duration::from_nanos((elapsed as f64 * self.timestamps.period_ns as f64).round() as u64))
        }
    }

    /// Refuses a module declaring a capability whose device feature is off, or whose
    /// extension the runner does not enable (drivers may crash compiling it: lavapipe does
    /// on `SparseResidency` and `FragmentShadingRateKHR`).
    fn check_capabilities(&self, r: &Reflection) -> Result<(), VkError> {
        let f = &self.info.features;
        let needs = [
            (10, "Float64", f.shader_float64),
            (11, "Int64", f.shader_int64),
            (22, "Int16", f.shader_int16),
            (41, "SparseResidency", f.resource_residency),
            // Extensions the runner does not enable (lavapipe crashes compiling them).
            (4422, "FragmentShadingRateKHR", false),
            (5265, "FragmentFullyCoveredEXT", false),
        ];
        match needs.iter().find(|(cap, _, on)| !on && r.capabilities.contains(cap)) {
            Some((_, name, _)) => {
                Err(VkError::BadLayout(format!("capability {name}, whose device feature is not supported")))
            }
            None => Ok(()),
        }
    }

    /// Refuses a layout past the device's `maxPerStageDescriptor*` limits: drivers need
    /// not check them (lavapipe crashes executing such a pipeline).
    fn check_descriptor_limits(&self, r: &Reflection) -> Result<(), VkError> {
        use vk::DescriptorType as D;
        const NAMES: [&str; 5] = ["StorageBuffers", "UniformBuffers", "SampledImages", "StorageImages", "Samplers"];
        let mut used = [0u64; 5];
        for &(ty, count) in r.sets.values().flat_map(|b| b.values()) {
            let classes: &[usize] = match ty {
                D::STORAGE_BUFFER => &[0],
                D::UNIFORM_BUFFER => &[1],
                D::SAMPLED_IMAGE | D::UNIFORM_TEXEL_BUFFER => &[2],
                D::COMBINED_IMAGE_SAMPLER => &[2, 4],
                D::STORAGE_IMAGE | D::STORAGE_TEXEL_BUFFER => &[3],
                D::SAMPLER => &[4],
                _ => &[],
            };
            for &c in classes {
                used[c] += u64::from(count);
            }
        }
        let limits = self.info.features.per_stage_descriptors;
        match (0..5).find(|&c| used[c] > u64::from(limits[c])) {
            Some(c) => Err(VkError::BadLayout(format!(
                "{} descriptors past maxPerStageDescriptor{} ({})",
                used[c], NAMES[c], limits[c]
            ))),
            None => Ok(()),
        }
    }

    fn prepare_in(
        &mut self,
        r: &Reflection,
        words: &[u32],
        w: &Workload,
        s: &mut Scratch,
    ) -> Result<(vk::CommandBuffer, vk::QueryPool), VkError> {
        self.check_capabilities(r)?;
        self.check_descriptor_limits(r)?;
        let layout = self.reflected_layout(r, s)?;
        let companion = match r.stage {
            Stage::Fragment => Some(self.shader_module(&full_screen_triangle_vertex_shader(), s)?),
            Stage::Vertex => Some(self.shader_module(&empty_fragment_shader(), s)?),
            Stage::Compute => None,
        };
        let pipeline = self.reflected_pipeline(r, words, companion, layout, s)?;
        let set_layouts = s.set_layouts.clone();
        // SAFETY (this block): create infos outlive each call; every object is recorded in
        // `s`; the setup submission is waited for before the timed one is recorded.
        unsafe {
            let dev = self.device.clone();
            let cbs = dev
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(self.pool)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(2),
                )
                .map_err(vkr("vkAllocateCommandBuffers"))?;
            s.command_buffers.extend(cbs.iter().map(|&cb| (self.pool, cb)));
            let (setup, timed) = (cbs[0], cbs[1]);
            dev.begin_command_buffer(setup, &vk::CommandBufferBeginInfo::default())
                .map_err(vkr("vkBeginCommandBuffer"))?;
            let sinfo = vk::SamplerCreateInfo::default()
                .mag_filter(vk::Filter::NEAREST)
                .min_filter(vk::Filter::NEAREST)
                .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                .max_lod(vk::LOD_CLAMP_NONE);
            let sampler = dev.create_sampler(&sinfo, None).map_err(vkr("vkCreateSampler"))?;
            s.samplers.push(sampler);

            // One resource per binding; its descriptor repeated over the array.
            let mut pool_sizes: std::collections::BTreeMap<i32, u32> = Default::default();
            let mut backed = Vec::new();
            for (&set, bindings) in &r.sets {
                for (&binding, &(ty, count)) in bindings {
                    let backing = self.bench_backing(s, setup, ty, r.images.get(&(set, binding)), sampler)?;
                    *pool_sizes.entry(ty.as_raw()).or_default() += count;
                    backed.push((set, binding, ty, count, backing));
                }
            }
            // Fragment targets.
            let mut targets = Vec::new();
            if r.stage == Stage::Fragment {
                let extent = [w.extent, w.extent, 1];
                let one = vk::SampleCountFlags::TYPE_1;
                let (t2, v2) = (vk::ImageType::TYPE_2D, vk::ImageViewType::TYPE_2D);
                for _ in 0..r.color_outputs {
                    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT;
                    targets.push(self.bench_image(s, setup, t2, v2, extent, 1, one, COLOR_FORMAT, usage)?);
                }
                let usage = vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT;
                targets.push(self.bench_image(s, setup, t2, v2, extent, 1, one, DEPTH_FORMAT, usage)?);
            }
            dev.end_command_buffer(setup).map_err(vkr("vkEndCommandBuffer"))?;
            let label = format!("gpu-times setup of {}", r.entry);
            self.submit_and_wait(s, setup, w.timeout, &label)?;

            // Descriptor sets.
            let mut sets = Vec::new();
            if !set_layouts.is_empty() {
                let sizes: Vec<vk::DescriptorPoolSize> = pool_sizes
                    .iter()
                    .map(|(&ty, &n)| {
                        vk::DescriptorPoolSize::default().ty(vk::DescriptorType::from_raw(ty)).descriptor_count(n)
                    })
                    .collect();
                let sizes = if sizes.is_empty() {
                    vec![vk::DescriptorPoolSize::default().ty(vk::DescriptorType::SAMPLER).descriptor_count(1)]
                } else {
                    sizes
                };
                let info =
                    vk::DescriptorPoolCreateInfo::default().max_sets(set_layouts.len() as u32).pool_sizes(&sizes);
                let dpool = dev.create_descriptor_pool(&info, None).map_err(vkr("vkCreateDescriptorPool"))?;
                s.descriptor_pools.push(dpool);
                let alloc = vk::DescriptorSetAllocateInfo::default().descriptor_pool(dpool).set_layouts(&set_layouts);
                sets = dev.allocate_descriptor_sets(&alloc).map_err(vkr("vkAllocateDescriptorSets"))?;
            }
            let mut buffer_infos = Vec::new();
            let mut image_infos = Vec::new();
            let mut texel_views = Vec::new();
            for (_, _, _, count, backing) in &backed {
                let n = *count as usize;
                match *backing {
                    Backing::Buffer(buffer, range) => {
                        buffer_infos.push(vec![vk::DescriptorBufferInfo { buffer, offset: 0, range }; n])
                    }
                    Backing::Texel(view) => texel_views.push(vec![view; n]),
                    Backing::Image(view, sampler) => image_infos.push(vec![
                        vk::DescriptorImageInfo {
                            sampler: sampler.unwrap_or_default(),
                            image_view: view,
                            image_layout: vk::ImageLayout::GENERAL,
                        };
                        n
                    ]),
                    Backing::Sampler(sampler) => image_infos.push(vec![
                        vk::DescriptorImageInfo {
                            sampler,
                            image_view: vk::ImageView::null(),
                            image_layout: vk::ImageLayout::UNDEFINED,
                        };
                        n
                    ]),
                }
            }
            let (mut bi, mut ii, mut ti) = (buffer_infos.iter(), image_infos.iter(), texel_views.iter());
            let mut writes = Vec::new();
            for (set, binding, ty, _, backing) in &backed {
                let write = vk::WriteDescriptorSet::default()
                    .dst_set(sets[*set as usize])
                    .dst_binding(*binding)
                    .descriptor_type(*ty);
                writes.push(match backing {
                    Backing::Buffer(..) => write.buffer_info(bi.next().expect("one per buffer")),
                    Backing::Texel(_) => write.texel_buffer_view(ti.next().expect("one per texel buffer")),
                    Backing::Image(..) | Backing::Sampler(_) => write.image_info(ii.next().expect("one per image")),
                });
            }
            dev.update_descriptor_sets(&writes, &[]);

            // The timed command buffer.
            let qinfo = vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(2);
            let queries = dev.create_query_pool(&qinfo, None).map_err(vkr("vkCreateQueryPool"))?;
            s.query_pools.push(queries);
            dev.begin_command_buffer(timed, &vk::CommandBufferBeginInfo::default())
                .map_err(vkr("vkBeginCommandBuffer"))?;
            dev.cmd_reset_query_pool(timed, queries, 0, 2);
            let bind_point = if r.stage == Stage::Compute {
                vk::PipelineBindPoint::COMPUTE
            } else {
                vk::PipelineBindPoint::GRAPHICS
            };
            dev.cmd_bind_pipeline(timed, bind_point, pipeline);
            if !sets.is_empty() {
                dev.cmd_bind_descriptor_sets(timed, bind_point, layout, 0, &sets, &[]);
            }
            if r.push_constants {
                dev.cmd_push_constants(timed, layout, vk::ShaderStageFlags::ALL, 0, &[0u8; PUSH_CONSTANT_BYTES]);
            }
            let k = w.dispatches.max(1);
            if r.stage == Stage::Compute {
                dev.cmd_write_timestamp(timed, vk::PipelineStageFlags::TOP_OF_PIPE, queries, 0);
                for i in 0..k {
                    if i > 0 {
                        let barrier = [vk::MemoryBarrier::default()
                            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                            .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE)];
                        dev.cmd_pipeline_barrier(
                            timed,
                            vk::PipelineStageFlags::COMPUTE_SHADER,
                            vk::PipelineStageFlags::COMPUTE_SHADER,
                            vk::DependencyFlags::empty(),
                            &barrier,
                            &[],
                            &[],
                        );
                    }
                    dev.cmd_dispatch(timed, w.groups.max(1), 1, 1);
                }
                dev.cmd_write_timestamp(timed, vk::PipelineStageFlags::BOTTOM_OF_PIPE, queries, 1);
            } else {
                let side = if r.stage == Stage::Fragment { w.extent } else { 64 };
                let area =
                    vk::Rect2D { offset: vk::Offset2D::default(), extent: vk::Extent2D { width: side, height: side } };
                let (depth, colors) = targets.split_last().map_or((None, &[][..]), |(d, c)| (Some(*d), c));
                let color_info: Vec<vk::RenderingAttachmentInfo> = colors
                    .iter()
                    .map(|&view| {
                        vk::RenderingAttachmentInfo::default()
                            .image_view(view)
                            .image_layout(vk::ImageLayout::GENERAL)
                            .load_op(vk::AttachmentLoadOp::CLEAR)
                            .store_op(vk::AttachmentStoreOp::STORE)
                    })
                    .collect();
                let depth_info = depth.map(|view| {
                    vk::RenderingAttachmentInfo::default()
                        .image_view(view)
                        .image_layout(vk::ImageLayout::GENERAL)
                        .load_op(vk::AttachmentLoadOp::CLEAR)
                        .store_op(vk::AttachmentStoreOp::STORE)
                        .clear_value(vk::ClearValue {
                            depth_stencil: vk::ClearDepthStencilValue { depth: 1.0, stencil: 0 },
                        })
                });
                let mut rendering =
                    vk::RenderingInfo::default().render_area(area).layer_count(1).color_attachments(&color_info);
                if let Some(d) = &depth_info {
                    rendering = rendering.depth_attachment(d).stencil_attachment(d);
                }
                dev.cmd_begin_rendering(timed, &rendering);
                let viewport = vk::Viewport {
                    x: 0.0,
                    y: 0.0,
                    width: side as f32,
                    height: side as f32,
                    min_depth: 0.0,
                    max_depth: 1.0,
                };
                dev.cmd_set_viewport(timed, 0, &[viewport]);
                dev.cmd_set_scissor(timed, 0, &[area]);
                let vertices = if r.stage == Stage::Fragment { 3 } else { w.vertices.max(1) };
                dev.cmd_write_timestamp(timed, vk::PipelineStageFlags::TOP_OF_PIPE, queries, 0);
                for _ in 0..k {
                    dev.cmd_draw(timed, vertices, 1, 0, 0);
                }
                // After the pass: drivers that bin draws (llvmpipe) rasterize at its end.
                dev.cmd_end_rendering(timed);
                dev.cmd_write_timestamp(timed, vk::PipelineStageFlags::BOTTOM_OF_PIPE, queries, 1);
            }
            dev.end_command_buffer(timed).map_err(vkr("vkEndCommandBuffer"))?;
            Ok((timed, queries))
        }
    }
}
