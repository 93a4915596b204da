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
//! * Layout: a [`Dispatch`] lists [`Binding`]s `(set, binding, resource)`; every set from
//!   0 to the highest named gets a descriptor set layout (empty where nothing is bound).
//!   Only [`Resource::StorageBuffer`] exists so far; the enum is where storage images and
//!   others go.
//! * Timeout: each dispatch waits on its fence at most [`Dispatch::timeout`]. A dispatch
//!   that does not finish in time is [`VkError::Timeout`], a hang reported, never a stuck
//!   caller. The device may still be running the shader then, so the [`Gpu`] is poisoned:
//!   later dispatches fail with [`VkError::Poisoned`] and dropping it leaks its objects
//!   instead of destroying objects in use.
//! * Memory: host-visible, host-coherent buffers (the runner is for checking, not speed).
//!
//! Every Vulkan call goes through `unsafe` ash functions; the invariants are the usual
//! ones (objects created from this device, destroyed once, not in use), kept by creating
//! all of a dispatch's objects in [`Scratch`] and destroying them after its fence.

pub mod suite;

use ash::vk;
use std::ffi::CString;
use std::time::{Duration, Instant};

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

/// Which device and driver a [`Gpu`] runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub index: usize,
    pub name: String,
    pub device_type: String,
    /// `driverName` and `driverInfo` (Vulkan 1.2), or the raw driver version.
    pub driver: String,
    pub api_version: String,
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "device {} `{}` ({}), driver {}, Vulkan {}", self.index, self.name, self.device_type, self.driver, self.api_version)
    }
}

/// A resource bound to one binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resource {
    /// A storage buffer with these initial bytes (its size; a multiple of 4, not 0). Read
    /// back after the dispatch.
    StorageBuffer(Vec<u8>),
}

impl Resource {
    /// A storage buffer holding `words`.
    pub fn words(words: &[u32]) -> Resource {
        Resource::StorageBuffer(words.iter().flat_map(|w| w.to_le_bytes()).collect())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub set: u32,
    pub binding: u32,
    pub resource: Resource,
}

/// One dispatch: module, entry point, layout, workgroup counts, time limit.
#[derive(Clone, Debug)]
pub struct Dispatch<'a> {
    pub spirv: &'a [u32],
    pub entry: &'a str,
    pub bindings: Vec<Binding>,
    pub groups: [u32; 3],
    pub timeout: Duration,
}

/// The resources after a dispatch, in the order of [`Dispatch::bindings`].
#[derive(Clone, Debug)]
pub struct DispatchResult {
    pub resources: Vec<Resource>,
    /// From submission to the fence.
    pub gpu_wall: Duration,
}

impl DispatchResult {
    /// Resource `i` as little-endian words (`None` if absent).
    pub fn words(&self, i: usize) -> Option<Vec<u32>> {
        match self.resources.get(i)? {
            Resource::StorageBuffer(b) => {
                Some(b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
            }
        }
    }
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
        let loader_version = unsafe { entry.try_enumerate_instance_version() }.ok().flatten().unwrap_or(vk::API_VERSION_1_0);
        let api = if loader_version >= vk::API_VERSION_1_2 { vk::API_VERSION_1_2 } else { vk::API_VERSION_1_1 };
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
        let version = |v: u32| format!("{}.{}.{}", vk::api_version_major(v), vk::api_version_minor(v), vk::api_version_patch(v));
        let mut driver = format!("version {:#x}", props.driver_version);
        if api >= vk::API_VERSION_1_2 && props.api_version >= vk::API_VERSION_1_2 {
            let mut d = vk::PhysicalDeviceDriverProperties::default();
            let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut d);
            // SAFETY: a 1.2 instance and device; the chain lives through the call.
            unsafe { instance.get_physical_device_properties2(physical, &mut p2) };
            let name = d.driver_name_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
            let info = d.driver_info_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
            driver = format!("{name} {info}").trim().to_string();
        }
        let info = DeviceInfo {
            index,
            name: names[index].clone(),
            device_type: format!("{:?}", props.device_type),
            driver,
            api_version: version(props.api_version),
        };
        if props.api_version < vk::API_VERSION_1_1 {
            return Err(VkError::NoDevice(format!(": {info} is below Vulkan 1.1 (SPIR-V 1.3)")));
        }
        // SAFETY: `physical` came from this instance.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or_else(|| VkError::NoDevice(format!(": {info} has no compute queue")))? as u32;
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
        let create = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
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
        Ok(Gpu { _entry: entry, instance, device, queue, pool, memory, info, poisoned: false })
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Runs one dispatch and reads every resource back.
    pub fn dispatch(&mut self, d: &Dispatch) -> Result<DispatchResult, VkError> {
        if self.poisoned {
            return Err(VkError::Poisoned);
        }
        let mut scratch = Scratch::default();
        let result = self.dispatch_in(d, &mut scratch);
        if self.poisoned {
            // The shader may still run: leak the dispatch's objects rather than free them.
            std::mem::forget(scratch);
        } else {
            // SAFETY: the fence signalled (or nothing was submitted): nothing is in use.
            unsafe { scratch.destroy(&self.device) };
        }
        result
    }

    fn memory_type(&self, bits: u32) -> Result<u32, VkError> {
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        (0..self.memory.memory_type_count)
            .find(|&i| bits & (1 << i) != 0 && self.memory.memory_types[i as usize].property_flags.contains(want))
            .ok_or(VkError::NoMemoryType)
    }

    fn dispatch_in(&mut self, d: &Dispatch, s: &mut Scratch) -> Result<DispatchResult, VkError> {
        let dev = &self.device;
        // Layout: sets 0..=max, bindings sorted, duplicates refused.
        let mut by_set: std::collections::BTreeMap<u32, Vec<(u32, usize)>> = Default::default();
        for (i, b) in d.bindings.iter().enumerate() {
            let Resource::StorageBuffer(bytes) = &b.resource;
            if bytes.is_empty() || bytes.len() % 4 != 0 {
                return Err(VkError::BadLayout(format!("set {} binding {}: {} bytes (need a non-zero multiple of 4)", b.set, b.binding, bytes.len())));
            }
            if b.set >= 32 {
                return Err(VkError::BadLayout(format!("set {} (at most 31)", b.set)));
            }
            let list = by_set.entry(b.set).or_default();
            if list.iter().any(|&(n, _)| n == b.binding) {
                return Err(VkError::BadLayout(format!("set {} binding {} named twice", b.set, b.binding)));
            }
            list.push((b.binding, i));
        }
        if d.groups.contains(&0) {
            return Err(VkError::BadLayout(format!("workgroup counts {:?}", d.groups)));
        }
        let entry = CString::new(d.entry).map_err(|_| VkError::BadLayout("entry point name contains NUL".into()))?;

        // Buffers.
        let mut buffers = Vec::with_capacity(d.bindings.len());
        for b in &d.bindings {
            let Resource::StorageBuffer(bytes) = &b.resource;
            let info = vk::BufferCreateInfo::default()
                .size(bytes.len() as u64)
                .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
                .sharing_mode(vk::SharingMode::EXCLUSIVE);
            // SAFETY (this block): objects of this device; each recorded in `s` once.
            unsafe {
                let buffer = dev.create_buffer(&info, None).map_err(vkr("vkCreateBuffer"))?;
                s.buffers.push(buffer);
                let req = dev.get_buffer_memory_requirements(buffer);
                let alloc = vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(self.memory_type(req.memory_type_bits)?);
                let mem = dev.allocate_memory(&alloc, None).map_err(vkr("vkAllocateMemory"))?;
                s.memories.push(mem);
                dev.bind_buffer_memory(buffer, mem, 0).map_err(vkr("vkBindBufferMemory"))?;
                let ptr = dev.map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()).map_err(vkr("vkMapMemory"))?;
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr.cast::<u8>(), bytes.len());
                buffers.push((buffer, mem, ptr.cast::<u8>(), bytes.len()));
            }
        }

        // SAFETY (this block): create infos and their arrays outlive each call; every object
        // is recorded in `s` for destruction.
        unsafe {
            let max_set = by_set.keys().next_back().copied().unwrap_or(0);
            let mut set_layouts = Vec::new();
            for set in 0..=max_set {
                let bindings: Vec<vk::DescriptorSetLayoutBinding> = by_set
                    .get(&set)
                    .map(|list| {
                        list.iter()
                            .map(|&(binding, _)| {
                                vk::DescriptorSetLayoutBinding::default()
                                    .binding(binding)
                                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                                    .descriptor_count(1)
                                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
                let l = dev.create_descriptor_set_layout(&info, None).map_err(vkr("vkCreateDescriptorSetLayout"))?;
                s.set_layouts.push(l);
                set_layouts.push(l);
            }
            let layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
            let layout = dev.create_pipeline_layout(&layout_info, None).map_err(vkr("vkCreatePipelineLayout"))?;
            s.layouts.push(layout);
            let module_info = vk::ShaderModuleCreateInfo::default().code(d.spirv);
            let module = dev.create_shader_module(&module_info, None).map_err(vkr("vkCreateShaderModule"))?;
            s.modules.push(module);
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(&entry);
            let pinfo = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout)];
            let pipeline = match dev.create_compute_pipelines(vk::PipelineCache::null(), &pinfo, None) {
                Ok(p) => p[0],
                Err((p, e)) => {
                    s.pipelines.extend(p.into_iter().filter(|p| *p != vk::Pipeline::null()));
                    return Err(VkError::Vk { call: "vkCreateComputePipelines", result: e });
                }
            };
            s.pipelines.push(pipeline);

            let sizes = [vk::DescriptorPoolSize::default()
                .ty(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(d.bindings.len().max(1) as u32)];
            let pool_info = vk::DescriptorPoolCreateInfo::default().max_sets(set_layouts.len() as u32).pool_sizes(&sizes);
            let dpool = dev.create_descriptor_pool(&pool_info, None).map_err(vkr("vkCreateDescriptorPool"))?;
            s.descriptor_pools.push(dpool);
            let alloc = vk::DescriptorSetAllocateInfo::default().descriptor_pool(dpool).set_layouts(&set_layouts);
            let sets = dev.allocate_descriptor_sets(&alloc).map_err(vkr("vkAllocateDescriptorSets"))?;
            let infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers
                .iter()
                .map(|&(buffer, ..)| [vk::DescriptorBufferInfo::default().buffer(buffer).offset(0).range(vk::WHOLE_SIZE)])
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = d
                .bindings
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(sets[b.set as usize])
                        .dst_binding(b.binding)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(&infos[i])
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
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            dev.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &sets, &[]);
            dev.cmd_dispatch(cb, d.groups[0], d.groups[1], d.groups[2]);
            let barrier = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)];
            dev.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &barrier,
                &[],
                &[],
            );
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
            let nanos = u64::try_from(d.timeout.as_nanos()).unwrap_or(u64::MAX);
            match dev.wait_for_fences(&[fence], true, nanos) {
                Ok(()) => {}
                Err(vk::Result::TIMEOUT) => {
                    self.poisoned = true;
                    return Err(VkError::Timeout { entry: d.entry.to_string(), timeout: d.timeout });
                }
                Err(vk::Result::ERROR_DEVICE_LOST) => {
                    self.poisoned = true;
                    return Err(VkError::DeviceLost { entry: d.entry.to_string() });
                }
                Err(e) => {
                    self.poisoned = true;
                    return Err(VkError::Vk { call: "vkWaitForFences", result: e });
                }
            }
            let gpu_wall = start.elapsed();
            let resources = buffers
                .iter()
                .map(|&(_, _, ptr, len)| Resource::StorageBuffer(std::slice::from_raw_parts(ptr, len).to_vec()))
                .collect();
            Ok(DispatchResult { resources, gpu_wall })
        }
    }
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
    memories: Vec<vk::DeviceMemory>,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    layouts: Vec<vk::PipelineLayout>,
    modules: Vec<vk::ShaderModule>,
    pipelines: Vec<vk::Pipeline>,
    descriptor_pools: Vec<vk::DescriptorPool>,
    command_buffers: Vec<(vk::CommandPool, vk::CommandBuffer)>,
    fences: Vec<vk::Fence>,
}

impl Scratch {
    /// SAFETY: the objects belong to `dev` and are no longer in use.
    unsafe fn destroy(self, dev: &ash::Device) {
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
