//! Several compute dispatches recorded into one command buffer and submitted once: the
//! runner behind [`Gpu::dispatch`] (a program of one dispatch) and behind GPU-driven
//! schedulers such as [`super::work_graph`]'s, whose dispatch sizes are computed on the
//! device (`vkCmdDispatchIndirect`).
//!
//! A [`Program`] has one set of [`Binding`]s (descriptors, bound for every step), device
//! buffers reached by address (written into other buffers by [`AddressSlot`]s and
//! [`AddressPatch`]es, into push constants by [`PushAddress`]es), pipelines (module + entry
//! point) that all share one pipeline layout (the bindings' set layouts and one
//! push-constant range covering the largest step's bytes), and [`Step`]s: dispatches, direct
//! or indirect, and barriers.
//!
//! # Invariants
//!
//! * Steps run in order only where a [`Step::Barrier`] separates them: the barrier makes
//!   shader writes visible to shader reads and to indirect-command reads. Dispatches with no
//!   barrier between them may overlap.
//! * Every buffer is host-visible and host-coherent and read back after the fence; device
//!   buffers can serve as indirect-command buffers.
//! * Objects live in one [`Scratch`] destroyed after the fence, or leaked when the device is
//!   poisoned (timeout, lost device), as for a single dispatch.
//!
//! Cost: one pipeline per [`Program::pipelines`] entry, one submission.

use super::{
    array_fillers, barrier_to_host, texel_size, vkr, AddressSlot, Binding, Dispatch, Gpu, HostBuffer, Image, ImageDim,
    Obj, Resource, Scratch, VkError,
};
use ash::vk;
use std::ffi::CString;
use std::time::{Duration, Instant};

/// A module and the entry point a pipeline is made of.
#[derive(Clone, Copy, Debug)]
pub struct Shader<'a> {
    pub spirv: &'a [u32],
    pub entry: &'a str,
}

/// The address of [`Program::device_buffers`]`[target]` plus `plus`, written (8 bytes,
/// little-endian) at byte `offset` of device buffer `buffer` before the submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressPatch {
    pub buffer: usize,
    pub offset: u64,
    pub target: usize,
    pub plus: u64,
}

/// The address of device buffer `buffer` plus `plus`, written at byte `at` of a step's push
/// constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PushAddress {
    pub at: u32,
    pub buffer: usize,
    pub plus: u64,
}

/// How many workgroups a dispatch launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launch {
    Groups([u32; 3]),
    /// `vkCmdDispatchIndirect`: a `VkDispatchIndirectCommand` at byte `offset` (a multiple of
    /// 4) of device buffer `buffer`, as it is when the dispatch starts.
    Indirect {
        buffer: usize,
        offset: u64,
    },
}

/// One dispatch of a program.
#[derive(Clone, Debug)]
pub struct ProgramDispatch {
    /// An index into [`Program::pipelines`].
    pub pipeline: usize,
    pub push: Vec<u8>,
    pub push_addresses: Vec<PushAddress>,
    pub launch: Launch,
}

/// A step of a program.
#[derive(Clone, Debug)]
pub enum Step {
    Dispatch(ProgramDispatch),
    /// Compute writes before it → compute reads and indirect-command reads after it.
    Barrier,
}

/// Dispatches recorded into one command buffer (module documentation).
#[derive(Clone, Debug, Default)]
pub struct Program<'a> {
    pub bindings: Vec<Binding>,
    /// As [`Dispatch::min_counts`].
    pub min_counts: Vec<(u32, u32, u32)>,
    /// [`AddressSlot::Push`] is refused here: a program's steps name addresses through
    /// [`ProgramDispatch::push_addresses`].
    pub device_buffers: Vec<super::DeviceBuffer>,
    pub patches: Vec<AddressPatch>,
    pub pipelines: Vec<Shader<'a>>,
    pub steps: Vec<Step>,
    /// How long the whole submission may take.
    pub timeout: Duration,
}

/// The resources after a program, in the order of [`Program::bindings`], and its device
/// buffers.
#[derive(Clone, Debug)]
pub struct ProgramResult {
    pub resources: Vec<Resource>,
    pub device_buffers: Vec<Vec<u8>>,
    /// From submission to the fence.
    pub gpu_wall: Duration,
}

impl<'a> Program<'a> {
    /// The program of one dispatch: push-constant address slots become the step's push
    /// addresses.
    pub fn from_dispatch(d: &Dispatch<'a>) -> Program<'a> {
        let mut device_buffers = d.device_buffers.clone();
        let mut push_addresses = Vec::new();
        for (k, db) in device_buffers.iter_mut().enumerate() {
            if let AddressSlot::Push(at) = db.address {
                push_addresses.push(PushAddress { at, buffer: k, plus: 0 });
                db.address = AddressSlot::Nowhere;
            }
        }
        Program {
            bindings: d.bindings.clone(),
            min_counts: d.min_counts.clone(),
            device_buffers,
            patches: Vec::new(),
            pipelines: vec![Shader { spirv: d.spirv, entry: d.entry }],
            steps: vec![Step::Dispatch(ProgramDispatch {
                pipeline: 0,
                push: d.push_constants.clone(),
                push_addresses,
                launch: Launch::Groups(d.groups),
            })],
            timeout: d.timeout,
        }
    }

    /// The entry points, for errors.
    fn label(&self) -> String {
        let names: Vec<&str> = self.pipelines.iter().map(|p| p.entry).collect();
        if names.len() <= 3 {
            names.join(" + ")
        } else {
            format!("{} + {} more", names[..3].join(" + "), names.len() - 3)
        }
    }
}

impl Gpu {
    /// Records the program's steps into one command buffer, submits it, waits at most
    /// [`Program::timeout`], and reads every resource and device buffer back.
    pub fn run_program(&mut self, p: &Program) -> Result<ProgramResult, VkError> {
        if self.poisoned {
            return Err(VkError::Poisoned);
        }
        let own = p.bindings.len();
        let mut scratch = Scratch::default();
        let result = self.program_in(p, &mut scratch).map(|mut r| {
            // Fillers are not the caller's: report only its own bindings.
            r.resources.truncate(own);
            r
        });
        if self.poisoned {
            // The shaders may still run: leak the program's objects rather than free them.
            std::mem::forget(scratch);
        } else {
            // SAFETY: the fence signalled (or nothing was submitted): nothing is in use.
            unsafe { scratch.destroy(&self.device) };
        }
        result
    }

    pub(super) fn program_in(&mut self, p: &Program, s: &mut Scratch) -> Result<ProgramResult, VkError> {
        let mut all_bindings;
        let bindings: &[Binding] = if self.info.features.partially_bound {
            &p.bindings
        } else {
            all_bindings = p.bindings.clone();
            all_bindings.extend(array_fillers(&p.bindings, &p.min_counts));
            &all_bindings
        };
        let label = p.label();
        // Layout: sets 0..=max; per binding a descriptor type and a count.
        let mut by_set: std::collections::BTreeMap<u32, std::collections::BTreeMap<u32, (vk::DescriptorType, u32)>> =
            Default::default();
        let mut seen = std::collections::HashSet::new();
        for b in bindings {
            let at = format!("set {} binding {} element {}", b.set, b.binding, b.element);
            if let Some(bytes) = b.resource.bytes() {
                let image = matches!(b.resource, Resource::StorageImage(_) | Resource::SampledImage(_));
                if !image && (bytes.is_empty() || bytes.len() % 4 != 0) {
                    return Err(VkError::BadLayout(format!(
                        "{at}: {} bytes (need a non-zero multiple of 4)",
                        bytes.len()
                    )));
                }
            }
            match &b.resource {
                Resource::StorageImage(i) | Resource::SampledImage(i) => match i.byte_len() {
                    Some(n) if n == i.bytes.len() && n > 0 => {}
                    n => {
                        return Err(VkError::BadLayout(format!(
                            "{at}: {} image bytes, format {:?} needs {n:?}",
                            i.bytes.len(),
                            i.format
                        )))
                    }
                },
                Resource::UniformTexelBuffer { format, .. } | Resource::StorageTexelBuffer { format, .. }
                    if texel_size(*format).is_none() =>
                {
                    return Err(VkError::BadLayout(format!("{at}: texel format {format:?} unknown")));
                }
                _ => {}
            }
            if b.set >= 32 {
                return Err(VkError::BadLayout(format!("set {} (at most 31)", b.set)));
            }
            if !seen.insert((b.set, b.binding, b.element)) {
                return Err(VkError::BadLayout(format!("{at} named twice")));
            }
            let ty = b.resource.descriptor_type();
            let slot = by_set.entry(b.set).or_default().entry(b.binding).or_insert((ty, 0));
            if slot.0 != ty {
                return Err(VkError::BadLayout(format!("{at}: {ty:?} in a binding of {:?}", slot.0)));
            }
            slot.1 = slot.1.max(b.element + 1);
        }
        for &(set, binding, count) in &p.min_counts {
            if let Some(slot) = by_set.get_mut(&set).and_then(|m| m.get_mut(&binding)) {
                slot.1 = slot.1.max(count);
            }
        }
        let mut entries = Vec::with_capacity(p.pipelines.len());
        for sh in &p.pipelines {
            entries
                .push(CString::new(sh.entry).map_err(|_| VkError::BadLayout("entry point name contains NUL".into()))?);
        }
        if !p.device_buffers.is_empty() && !self.info.features.buffer_device_address {
            return Err(VkError::BadLayout("device-address buffers, but the device has no bufferDeviceAddress".into()));
        }
        let buffers = p.device_buffers.len();
        for (k, db) in p.device_buffers.iter().enumerate() {
            match db.address {
                AddressSlot::Device { buffer, offset } => {
                    let len = p.device_buffers.get(buffer).filter(|_| buffer < k).map(|b| b.bytes.len());
                    if len.is_none_or(|n| offset as usize + 8 > n) {
                        return Err(VkError::BadLayout(format!(
                            "a device address at byte {offset} of device buffer {buffer}, which is no earlier \
                             device buffer that holds it"
                        )));
                    }
                }
                AddressSlot::Push(_) => {
                    return Err(VkError::BadLayout("a push-constant address slot in a program".into()));
                }
                AddressSlot::Binding { binding, offset } => {
                    let len = bindings.get(binding).and_then(|b| match &b.resource {
                        Resource::UniformBuffer(bytes) | Resource::StorageBuffer(bytes) => Some(bytes.len()),
                        _ => None,
                    });
                    if len.is_none_or(|n| offset as usize + 8 > n) {
                        return Err(VkError::BadLayout(format!(
                            "a device address at byte {offset} of binding {binding}, which is no buffer that holds it"
                        )));
                    }
                }
                AddressSlot::Nowhere => {}
            }
        }
        for a in &p.patches {
            let len = p.device_buffers.get(a.buffer).map(|b| b.bytes.len() as u64);
            if a.target >= buffers || len.is_none_or(|n| a.offset.checked_add(8).is_none_or(|end| end > n)) {
                return Err(VkError::BadLayout(format!("address patch {a:?} outside the device buffers")));
            }
        }
        // Per step: its push bytes (addresses filled in below), padded to the layout's size.
        let mut pushes: Vec<Vec<u8>> = Vec::new();
        for step in &p.steps {
            let Step::Dispatch(d) = step else { continue };
            if d.pipeline >= p.pipelines.len() {
                return Err(VkError::BadLayout(format!(
                    "a dispatch of pipeline {}, of {}",
                    d.pipeline,
                    p.pipelines.len()
                )));
            }
            match d.launch {
                Launch::Groups(g) if g.contains(&0) => {
                    return Err(VkError::BadLayout(format!("workgroup counts {g:?}")));
                }
                Launch::Indirect { buffer, offset } => {
                    let len = p.device_buffers.get(buffer).map(|b| b.bytes.len() as u64);
                    if offset % 4 != 0 || len.is_none_or(|n| offset + 12 > n) {
                        return Err(VkError::BadLayout(format!(
                            "an indirect dispatch at byte {offset} of device buffer {buffer}"
                        )));
                    }
                }
                Launch::Groups(_) => {}
            }
            let mut push = d.push.clone();
            for a in &d.push_addresses {
                if a.buffer >= buffers {
                    return Err(VkError::BadLayout(format!("a push address of device buffer {}", a.buffer)));
                }
                let end = a.at as usize + 8;
                if push.len() < end {
                    push.resize(end, 0);
                }
            }
            pushes.push(push);
        }
        let push_size = pushes.iter().map(|p| p.len().next_multiple_of(4)).max().unwrap_or(0);
        for push in &mut pushes {
            push.resize(push_size, 0);
        }

        // SAFETY (this block): create infos and their arrays outlive each call; every object
        // is recorded in `s` for destruction.
        unsafe {
            let dev = &self.device;
            // Resources.
            let mut objects = Vec::with_capacity(bindings.len());
            let mut images = Vec::new();
            for b in bindings {
                let obj = match &b.resource {
                    Resource::StorageBuffer(bytes) => {
                        Obj::Buffer(self.host_buffer(s, bytes, vk::BufferUsageFlags::STORAGE_BUFFER)?)
                    }
                    Resource::UniformBuffer(bytes) => {
                        Obj::Buffer(self.host_buffer(s, bytes, vk::BufferUsageFlags::UNIFORM_BUFFER)?)
                    }
                    Resource::UniformTexelBuffer { format, bytes } | Resource::StorageTexelBuffer { format, bytes } => {
                        let usage = if matches!(b.resource, Resource::UniformTexelBuffer { .. }) {
                            vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
                        } else {
                            vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER
                        };
                        let hb = self.host_buffer(s, bytes, usage)?;
                        let info = vk::BufferViewCreateInfo::default()
                            .buffer(hb.buffer)
                            .format(*format)
                            .offset(0)
                            .range(vk::WHOLE_SIZE);
                        let view = dev.create_buffer_view(&info, None).map_err(vkr("vkCreateBufferView"))?;
                        s.buffer_views.push(view);
                        Obj::Texel(hb, view)
                    }
                    Resource::StorageImage(img) | Resource::SampledImage(img) => {
                        let staging = self.host_buffer(
                            s,
                            &img.bytes,
                            vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
                        )?;
                        let ty = match img.dim {
                            ImageDim::D1 => vk::ImageType::TYPE_1D,
                            ImageDim::D2 => vk::ImageType::TYPE_2D,
                            ImageDim::D3 => vk::ImageType::TYPE_3D,
                        };
                        let usage = vk::ImageUsageFlags::TRANSFER_SRC
                            | vk::ImageUsageFlags::TRANSFER_DST
                            | if matches!(b.resource, Resource::StorageImage(_)) {
                                vk::ImageUsageFlags::STORAGE
                            } else {
                                vk::ImageUsageFlags::SAMPLED
                            };
                        let info = vk::ImageCreateInfo::default()
                            .image_type(ty)
                            .format(img.format)
                            .extent(vk::Extent3D { width: img.extent[0], height: img.extent[1], depth: img.extent[2] })
                            .mip_levels(1)
                            .array_layers(img.layers.max(1))
                            .samples(vk::SampleCountFlags::TYPE_1)
                            .tiling(vk::ImageTiling::OPTIMAL)
                            .usage(usage)
                            .sharing_mode(vk::SharingMode::EXCLUSIVE)
                            .initial_layout(vk::ImageLayout::UNDEFINED);
                        let image = self.bound_image(s, &info)?;
                        let range = vk::ImageSubresourceRange::default()
                            .aspect_mask(img.aspect())
                            .level_count(1)
                            .layer_count(img.layers.max(1));
                        let vinfo = vk::ImageViewCreateInfo::default()
                            .image(image)
                            .view_type(img.view_type())
                            .format(img.format)
                            .subresource_range(range);
                        let view = dev.create_image_view(&vinfo, None).map_err(vkr("vkCreateImageView"))?;
                        s.image_views.push(view);
                        images.push((image, staging.buffer, img.clone()));
                        Obj::Image(staging, view)
                    }
                    Resource::Sampler(sd) => {
                        let filter = if sd.linear { vk::Filter::LINEAR } else { vk::Filter::NEAREST };
                        let mut info = vk::SamplerCreateInfo::default()
                            .mag_filter(filter)
                            .min_filter(filter)
                            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                            .address_mode_u(sd.address)
                            .address_mode_v(sd.address)
                            .address_mode_w(sd.address)
                            .max_lod(if sd.unnormalized { 0.0 } else { vk::LOD_CLAMP_NONE })
                            .unnormalized_coordinates(sd.unnormalized);
                        if let Some(op) = sd.compare {
                            info = info.compare_enable(true).compare_op(op);
                        }
                        let sampler = dev.create_sampler(&info, None).map_err(vkr("vkCreateSampler"))?;
                        s.samplers.push(sampler);
                        Obj::Sampler(sampler)
                    }
                };
                objects.push(obj);
            }
            let mut dbufs: Vec<HostBuffer> = Vec::new();
            let mut addresses: Vec<u64> = Vec::new();
            for db in &p.device_buffers {
                let hb = self.host_buffer(
                    s,
                    &db.bytes,
                    vk::BufferUsageFlags::STORAGE_BUFFER
                        | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
                        | vk::BufferUsageFlags::INDIRECT_BUFFER,
                )?;
                let addr = dev.get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(hb.buffer));
                match db.address {
                    AddressSlot::Binding { binding, offset } => {
                        // Checked above: a buffer binding holding `offset + 8` bytes, mapped.
                        if let Obj::Buffer(target) = &objects[binding] {
                            let at = target.ptr.add(offset as usize);
                            std::ptr::copy_nonoverlapping(addr.to_le_bytes().as_ptr(), at, 8);
                        }
                    }
                    AddressSlot::Device { buffer, offset } => {
                        // Checked above: an earlier device buffer holding `offset + 8` bytes,
                        // mapped.
                        let target: &HostBuffer = &dbufs[buffer];
                        let at = target.ptr.add(offset as usize);
                        std::ptr::copy_nonoverlapping(addr.to_le_bytes().as_ptr(), at, 8);
                    }
                    AddressSlot::Push(_) | AddressSlot::Nowhere => {}
                }
                dbufs.push(hb);
                addresses.push(addr);
            }
            for a in &p.patches {
                // Checked above: inside device buffer `a.buffer`, mapped.
                let value = addresses[a.target].wrapping_add(a.plus);
                let at = dbufs[a.buffer].ptr.add(a.offset as usize);
                std::ptr::copy_nonoverlapping(value.to_le_bytes().as_ptr(), at, 8);
            }
            {
                let mut k = 0;
                for step in &p.steps {
                    let Step::Dispatch(d) = step else { continue };
                    for a in &d.push_addresses {
                        let value = addresses[a.buffer].wrapping_add(a.plus);
                        pushes[k][a.at as usize..a.at as usize + 8].copy_from_slice(&value.to_le_bytes());
                    }
                    k += 1;
                }
            }

            let max_set = by_set.keys().next_back().copied().unwrap_or(0);
            let partial = self.info.features.partially_bound;
            let mut set_layouts = Vec::new();
            let mut pool_sizes: std::collections::HashMap<vk::DescriptorType, u32> = Default::default();
            for set in 0..=max_set {
                let list: Vec<(u32, (vk::DescriptorType, u32))> =
                    by_set.get(&set).map(|m| m.iter().map(|(&k, &v)| (k, v)).collect()).unwrap_or_default();
                let bindings: Vec<vk::DescriptorSetLayoutBinding> = list
                    .iter()
                    .map(|&(binding, (ty, count))| {
                        *pool_sizes.entry(ty).or_default() += count;
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(binding)
                            .descriptor_type(ty)
                            .descriptor_count(count)
                            .stage_flags(vk::ShaderStageFlags::COMPUTE)
                    })
                    .collect();
                let flags: Vec<vk::DescriptorBindingFlags> = list
                    .iter()
                    .map(|&(_, (_, count))| {
                        if partial && count > 1 {
                            vk::DescriptorBindingFlags::PARTIALLY_BOUND
                        } else {
                            vk::DescriptorBindingFlags::empty()
                        }
                    })
                    .collect();
                let mut flag_info = vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&flags);
                let mut info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
                if partial {
                    info = info.push_next(&mut flag_info);
                }
                let l = dev.create_descriptor_set_layout(&info, None).map_err(vkr("vkCreateDescriptorSetLayout"))?;
                s.set_layouts.push(l);
                set_layouts.push(l);
            }
            let ranges = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                .offset(0)
                .size(push_size as u32)];
            let mut layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
            if push_size > 0 {
                layout_info = layout_info.push_constant_ranges(&ranges);
            }
            let layout = dev.create_pipeline_layout(&layout_info, None).map_err(vkr("vkCreatePipelineLayout"))?;
            s.layouts.push(layout);
            let mut pipelines = Vec::with_capacity(p.pipelines.len());
            for (sh, entry) in p.pipelines.iter().zip(&entries) {
                let module_info = vk::ShaderModuleCreateInfo::default().code(sh.spirv);
                let module = dev.create_shader_module(&module_info, None).map_err(vkr("vkCreateShaderModule"))?;
                s.modules.push(module);
                let stage = vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::COMPUTE)
                    .module(module)
                    .name(entry);
                let pinfo = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout)];
                let pipeline = match dev.create_compute_pipelines(vk::PipelineCache::null(), &pinfo, None) {
                    Ok(p) => p[0],
                    Err((p, e)) => {
                        s.pipelines.extend(p.into_iter().filter(|p| *p != vk::Pipeline::null()));
                        return Err(VkError::Vk { call: "vkCreateComputePipelines", result: e });
                    }
                };
                s.pipelines.push(pipeline);
                pipelines.push(pipeline);
            }

            let mut sizes: Vec<vk::DescriptorPoolSize> = pool_sizes
                .iter()
                .map(|(&ty, &n)| vk::DescriptorPoolSize::default().ty(ty).descriptor_count(n.max(1)))
                .collect();
            if sizes.is_empty() {
                sizes
                    .push(vk::DescriptorPoolSize::default().ty(vk::DescriptorType::STORAGE_BUFFER).descriptor_count(1));
            }
            let pool_info =
                vk::DescriptorPoolCreateInfo::default().max_sets(set_layouts.len() as u32).pool_sizes(&sizes);
            let dpool = dev.create_descriptor_pool(&pool_info, None).map_err(vkr("vkCreateDescriptorPool"))?;
            s.descriptor_pools.push(dpool);
            let alloc = vk::DescriptorSetAllocateInfo::default().descriptor_pool(dpool).set_layouts(&set_layouts);
            let sets = dev.allocate_descriptor_sets(&alloc).map_err(vkr("vkAllocateDescriptorSets"))?;
            let buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> = objects
                .iter()
                .map(|o| match o {
                    Obj::Buffer(hb) => {
                        [vk::DescriptorBufferInfo::default().buffer(hb.buffer).offset(0).range(vk::WHOLE_SIZE)]
                    }
                    _ => [vk::DescriptorBufferInfo::default()],
                })
                .collect();
            let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = objects
                .iter()
                .map(|o| match o {
                    Obj::Image(_, view) => {
                        [vk::DescriptorImageInfo::default().image_view(*view).image_layout(vk::ImageLayout::GENERAL)]
                    }
                    Obj::Sampler(sampler) => [vk::DescriptorImageInfo::default().sampler(*sampler)],
                    _ => [vk::DescriptorImageInfo::default()],
                })
                .collect();
            let texel_views: Vec<[vk::BufferView; 1]> = objects
                .iter()
                .map(|o| match o {
                    Obj::Texel(_, v) => [*v],
                    _ => [vk::BufferView::null()],
                })
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = bindings
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let w = vk::WriteDescriptorSet::default()
                        .dst_set(sets[b.set as usize])
                        .dst_binding(b.binding)
                        .dst_array_element(b.element)
                        .descriptor_type(b.resource.descriptor_type());
                    match &objects[i] {
                        Obj::Buffer(_) => w.buffer_info(&buffer_infos[i]),
                        Obj::Texel(..) => w.texel_buffer_view(&texel_views[i]),
                        Obj::Image(..) | Obj::Sampler(_) => w.image_info(&image_infos[i]),
                    }
                })
                .collect();
            dev.update_descriptor_sets(&writes, &[]);

            let cb_info = vk::CommandBufferAllocateInfo::default()
                .command_pool(self.pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            let cb = dev.allocate_command_buffers(&cb_info).map_err(vkr("vkAllocateCommandBuffers"))?[0];
            s.command_buffers.push((self.pool, cb));
            let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            dev.begin_command_buffer(cb, &begin).map_err(vkr("vkBeginCommandBuffer"))?;
            // Images: UNDEFINED → TRANSFER_DST, upload, → GENERAL.
            let range_of = |img: &Image| {
                vk::ImageSubresourceRange::default()
                    .aspect_mask(img.aspect())
                    .level_count(1)
                    .layer_count(img.layers.max(1))
            };
            let copy_of = |img: &Image| {
                [vk::BufferImageCopy::default()
                    .image_subresource(
                        vk::ImageSubresourceLayers::default().aspect_mask(img.aspect()).layer_count(img.layers.max(1)),
                    )
                    .image_extent(vk::Extent3D { width: img.extent[0], height: img.extent[1], depth: img.extent[2] })]
            };
            let image_barrier = |image, img: &Image, from, to, src, dst| {
                vk::ImageMemoryBarrier::default()
                    .image(image)
                    .old_layout(from)
                    .new_layout(to)
                    .src_access_mask(src)
                    .dst_access_mask(dst)
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .subresource_range(range_of(img))
            };
            if !images.is_empty() {
                let to_dst: Vec<_> = images
                    .iter()
                    .map(|(image, _, img)| {
                        image_barrier(
                            *image,
                            img,
                            vk::ImageLayout::UNDEFINED,
                            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                            vk::AccessFlags::empty(),
                            vk::AccessFlags::TRANSFER_WRITE,
                        )
                    })
                    .collect();
                let host = [vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::HOST_WRITE)
                    .dst_access_mask(vk::AccessFlags::TRANSFER_READ)];
                dev.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::HOST | vk::PipelineStageFlags::TOP_OF_PIPE,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &host,
                    &[],
                    &to_dst,
                );
                for (image, staging, img) in &images {
                    dev.cmd_copy_buffer_to_image(
                        cb,
                        *staging,
                        *image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &copy_of(img),
                    );
                }
                let to_general: Vec<_> = images
                    .iter()
                    .map(|(image, _, img)| {
                        image_barrier(
                            *image,
                            img,
                            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                            vk::ImageLayout::GENERAL,
                            vk::AccessFlags::TRANSFER_WRITE,
                            vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                        )
                    })
                    .collect();
                dev.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &to_general,
                );
            }
            dev.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &sets, &[]);
            let mut k = 0;
            for step in &p.steps {
                match step {
                    Step::Dispatch(d) => {
                        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipelines[d.pipeline]);
                        if push_size > 0 {
                            dev.cmd_push_constants(cb, layout, vk::ShaderStageFlags::COMPUTE, 0, &pushes[k]);
                        }
                        match d.launch {
                            Launch::Groups(g) => dev.cmd_dispatch(cb, g[0], g[1], g[2]),
                            Launch::Indirect { buffer, offset } => {
                                dev.cmd_dispatch_indirect(cb, dbufs[buffer].buffer, offset)
                            }
                        }
                        k += 1;
                    }
                    Step::Barrier => {
                        let barrier = [vk::MemoryBarrier::default()
                            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                            .dst_access_mask(
                                vk::AccessFlags::SHADER_READ
                                    | vk::AccessFlags::SHADER_WRITE
                                    | vk::AccessFlags::INDIRECT_COMMAND_READ,
                            )];
                        dev.cmd_pipeline_barrier(
                            cb,
                            vk::PipelineStageFlags::COMPUTE_SHADER,
                            vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::DRAW_INDIRECT,
                            vk::DependencyFlags::empty(),
                            &barrier,
                            &[],
                            &[],
                        );
                    }
                }
            }
            if !images.is_empty() {
                let after = [vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                    .dst_access_mask(vk::AccessFlags::TRANSFER_READ)];
                dev.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &after,
                    &[],
                    &[],
                );
                for (image, staging, img) in &images {
                    dev.cmd_copy_image_to_buffer(cb, *image, vk::ImageLayout::GENERAL, *staging, &copy_of(img));
                }
            }
            barrier_to_host(dev, cb, vk::PipelineStageFlags::COMPUTE_SHADER);
            dev.end_command_buffer(cb).map_err(vkr("vkEndCommandBuffer"))?;
            let fence = dev.create_fence(&vk::FenceCreateInfo::default(), None).map_err(vkr("vkCreateFence"))?;
            s.fences.push(fence);
            let cbs = [cb];
            let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
            let start = Instant::now();
            dev.queue_submit(self.queue, &submit, fence).map_err(|e| {
                if e == vk::Result::ERROR_DEVICE_LOST {
                    self.poisoned = true;
                }
                VkError::Vk { call: "vkQueueSubmit", result: e }
            })?;
            let nanos = u64::try_from(p.timeout.as_nanos()).unwrap_or(u64::MAX);
            match dev.wait_for_fences(&[fence], true, nanos) {
                Ok(()) => {}
                Err(vk::Result::TIMEOUT) => {
                    self.poisoned = true;
                    return Err(VkError::Timeout { entry: label.clone(), timeout: p.timeout });
                }
                Err(vk::Result::ERROR_DEVICE_LOST) => {
                    self.poisoned = true;
                    return Err(VkError::DeviceLost { entry: label.clone() });
                }
                Err(e) => {
                    self.poisoned = true;
                    return Err(VkError::Vk { call: "vkWaitForFences", result: e });
                }
            }
            let gpu_wall = start.elapsed();
            let read = |hb: &HostBuffer| std::slice::from_raw_parts(hb.ptr, hb.len).to_vec();
            let resources = bindings
                .iter()
                .zip(&objects)
                .map(|(b, o)| match o {
                    Obj::Buffer(hb) | Obj::Texel(hb, _) | Obj::Image(hb, _) => b.resource.with_bytes(read(hb)),
                    Obj::Sampler(_) => b.resource.clone(),
                })
                .collect();
            let device_buffers = dbufs.iter().map(read).collect();
            Ok(ProgramResult { resources, device_buffers, gpu_wall })
        }
    }
}
