//! A minimal ray-tracing runner (feature `vulkan`): a bottom-level structure of triangles
//! and one of AABBs, a top-level structure of their instances, a ray-tracing pipeline from
//! translated library entries, a shader binding table whose records hold local root
//! arguments, global root arguments in push constants, and one `vkCmdTraceRaysKHR`; or,
//! for inline ray queries ([`RtCase::compute`]), a compute pipeline and one
//! `vkCmdDispatch` over the same structures (`VK_KHR_ray_query`, enabled when present:
//! [`RtDevice::ray_query`]).
//!
//! Everything binds by address or push constant (the `heap` model with root descriptors as
//! addresses: root SRV/UAV buffers and the top-level structure are buffer device
//! addresses), so no descriptor set is needed. Buffers are host-visible and coherent (this
//! is for checking, not speed) and every [`RtCase::buffers`] entry is read back.
//!
//! [`RtDevice::open`] answers [`RtOpen::Unsupported`] with the reason on a device without
//! `VK_KHR_ray_tracing_pipeline` and `VK_KHR_acceleration_structure` (lavapipe): callers
//! skip and say so. Every Vulkan call is `unsafe` ash; objects are created per run and
//! destroyed after its fence (a timeout leaks them instead of destroying objects in use).

use super::{vkr, VkError};
use ash::vk;
use std::time::Duration;

/// An opened device, or why ray tracing cannot run on it.
pub enum RtOpen {
    Ready(Box<RtDevice>),
    Unsupported(String),
}

pub struct RtDevice {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
    memory: vk::PhysicalDeviceMemoryProperties,
    accel: ash::khr::acceleration_structure::Device,
    rt: ash::khr::ray_tracing_pipeline::Device,
    /// Shader group handle size, handle alignment and base alignment.
    sbt: [u32; 3],
    /// The device's name.
    pub name: String,
    /// `VK_KHR_ray_query` and its `rayQuery` feature are enabled: compute cases can run.
    pub ray_query: bool,
    /// `VK_NV_ray_tracing_invocation_reorder` and its `rayTracingInvocationReorder` feature
    /// are enabled: modules with `SPV_NV_shader_invocation_reorder` (SM 6.9 shader execution
    /// reordering) can run.
    pub invocation_reorder: bool,
}

/// Where a push-constant address points.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Address {
    /// The top-level acceleration structure.
    Tlas,
    /// [`RtCase::buffers`]`[k]`.
    Buffer(usize),
}

/// An instance of one of the two bottom-level structures.
#[derive(Clone, Debug)]
pub struct RtInstance {
    /// `false`: the triangles, `true`: the AABBs.
    pub aabbs: bool,
    /// Row-major 3x4 object-to-world transform.
    pub transform: [f32; 12],
    pub custom_index: u32,
    pub mask: u8,
    pub sbt_offset: u32,
    /// `VkGeometryInstanceFlagsKHR`.
    pub flags: u8,
}

/// A hit group: its shaders (entry names of [`RtCase::modules`]) and shader record.
#[derive(Clone, Debug, Default)]
pub struct RtHitGroup {
    pub closest: Option<String>,
    pub any: Option<String>,
    pub intersection: Option<String>,
    pub record: Vec<u8>,
}

/// One launch.
#[derive(Clone, Debug, Default)]
pub struct RtCase {
    pub name: String,
    /// Translated entries: (entry name, SPIR-V words, stage).
    pub modules: Vec<(String, Vec<u32>, vk::ShaderStageFlags)>,
    /// Raygen entry and its shader record.
    pub raygen: (String, Vec<u8>),
    pub misses: Vec<(String, Vec<u8>)>,
    pub hit_groups: Vec<RtHitGroup>,
    pub callables: Vec<(String, Vec<u8>)>,
    /// Triangles (three vertices each) of the first bottom-level structure; geometry flags
    /// `geometry_opaque` decide whether any-hit shaders run.
    pub triangles: Vec<[[f32; 3]; 3]>,
    /// AABBs (min xyz, max xyz) of the second.
    pub aabbs: Vec<[f32; 6]>,
    pub geometry_opaque: bool,
    pub instances: Vec<RtInstance>,
    /// Global root arguments.
    pub push_constants: Vec<u8>,
    /// 64-bit addresses written into `push_constants` at these byte offsets.
    pub push_addresses: Vec<(u32, Address)>,
    /// Buffers reached by address; read back after the launch.
    pub buffers: Vec<Vec<u8>>,
    pub launch: [u32; 2],
    pub max_recursion: u32,
    pub timeout: Duration,
    /// A compute entry of [`RtCase::modules`]: dispatched over `launch` workgroups
    /// (`launch[0] x launch[1] x 1`) instead of tracing rays; the ray-tracing fields other
    /// than the scene are unused. Needs [`RtDevice::ray_query`].
    pub compute: Option<String>,
}

struct Buf {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    address: vk::DeviceAddress,
    size: usize,
}

fn align(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

impl RtDevice {
    /// Opens the device `UNTANGLE_VK_DEVICE` names (index or name substring; default the
    /// first) with the ray-tracing extensions, or says why it cannot.
    pub fn open() -> Result<RtOpen, VkError> {
        // SAFETY: loading the system loader.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| VkError::NoLoader(e.to_string()))?;
        let app = vk::ApplicationInfo::default().application_name(c"untangle-rt").api_version(vk::API_VERSION_1_3);
        let create = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: the create info outlives the call.
        let instance = unsafe { entry.create_instance(&create, None) }.map_err(vkr("vkCreateInstance"))?;
        // SAFETY: a valid instance.
        let physicals = unsafe { instance.enumerate_physical_devices() }.map_err(vkr("vkEnumeratePhysicalDevices"))?;
        let names: Vec<String> = physicals
            .iter()
            .map(|&p| {
                // SAFETY: `p` came from this instance.
                let props = unsafe { instance.get_physical_device_properties(p) };
                props.device_name_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default()
            })
            .collect();
        let choice = std::env::var("UNTANGLE_VK_DEVICE").ok().filter(|c| !c.is_empty());
        let index = match &choice {
            None => (!names.is_empty()).then_some(0),
            Some(c) => c
                .parse::<usize>()
                .ok()
                .filter(|&i| i < names.len())
                .or_else(|| names.iter().position(|n| n.to_lowercase().contains(&c.to_lowercase()))),
        };
        let Some(index) = index else {
            // SAFETY: nothing was created from the instance.
            unsafe { instance.destroy_instance(None) };
            return Err(VkError::NoDevice(format!(" (devices: {names:?})")));
        };
        let physical = physicals[index];
        let name = names[index].clone();
        // SAFETY: `physical` came from this instance.
        let extensions = unsafe { instance.enumerate_device_extension_properties(physical) }.unwrap_or_default();
        let has = |n: &std::ffi::CStr| extensions.iter().any(|e| e.extension_name_as_c_str() == Ok(n));
        let needed = [
            ash::khr::acceleration_structure::NAME,
            ash::khr::ray_tracing_pipeline::NAME,
            ash::khr::deferred_host_operations::NAME,
        ];
        if let Some(missing) = needed.iter().find(|n| !has(n)) {
            // SAFETY: nothing was created from the instance.
            unsafe { instance.destroy_instance(None) };
            return Ok(RtOpen::Unsupported(format!("{name} has no {}", missing.to_string_lossy())));
        }
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut fas = vk::PhysicalDeviceAccelerationStructureFeaturesKHR::default();
        let mut frt = vk::PhysicalDeviceRayTracingPipelineFeaturesKHR::default();
        let mut frq = vk::PhysicalDeviceRayQueryFeaturesKHR::default();
        let mut fro = vk::PhysicalDeviceRayTracingInvocationReorderFeaturesNV::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut f12)
            .push_next(&mut fas)
            .push_next(&mut frt)
            .push_next(&mut frq)
            .push_next(&mut fro);
        // SAFETY: the chain lives through the call.
        unsafe { instance.get_physical_device_features2(physical, &mut f2) };
        let core = f2.features;
        let ray_query = has(ash::khr::ray_query::NAME) && frq.ray_query == vk::TRUE;
        let invocation_reorder =
            has(ash::nv::ray_tracing_invocation_reorder::NAME) && fro.ray_tracing_invocation_reorder == vk::TRUE;
        if f12.buffer_device_address != vk::TRUE
            || fas.acceleration_structure != vk::TRUE
            || frt.ray_tracing_pipeline != vk::TRUE
        {
            // SAFETY: nothing was created from the instance.
            unsafe { instance.destroy_instance(None) };
            return Ok(RtOpen::Unsupported(format!(
                "{name} lacks bufferDeviceAddress, accelerationStructure or rayTracingPipeline"
            )));
        }
        let mut rt_props = vk::PhysicalDeviceRayTracingPipelinePropertiesKHR::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut rt_props);
        // SAFETY: the chain lives through the call.
        unsafe { instance.get_physical_device_properties2(physical, &mut p2) };
        let sbt = [
            rt_props.shader_group_handle_size,
            rt_props.shader_group_handle_alignment,
            rt_props.shader_group_base_alignment,
        ];
        // SAFETY: `physical` came from this instance.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let Some(family) = families.iter().position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE)) else {
            // SAFETY: nothing was created from the instance.
            unsafe { instance.destroy_instance(None) };
            return Ok(RtOpen::Unsupported(format!("{name} has no compute queue")));
        };
        let priorities = [1.0f32];
        let queues =
            [vk::DeviceQueueCreateInfo::default().queue_family_index(family as u32).queue_priorities(&priorities)];
        let mut e12 = vk::PhysicalDeviceVulkan12Features::default().buffer_device_address(true);
        let mut eas = vk::PhysicalDeviceAccelerationStructureFeaturesKHR::default().acceleration_structure(true);
        let mut ert = vk::PhysicalDeviceRayTracingPipelineFeaturesKHR::default().ray_tracing_pipeline(true);
        let mut erq = vk::PhysicalDeviceRayQueryFeaturesKHR::default().ray_query(true);
        let mut ero =
            vk::PhysicalDeviceRayTracingInvocationReorderFeaturesNV::default().ray_tracing_invocation_reorder(true);
        let enabled = vk::PhysicalDeviceFeatures::default()
            .shader_int64(core.shader_int64 == vk::TRUE)
            .shader_float64(core.shader_float64 == vk::TRUE)
            .shader_int16(core.shader_int16 == vk::TRUE);
        let mut e2 = vk::PhysicalDeviceFeatures2::default()
            .features(enabled)
            .push_next(&mut e12)
            .push_next(&mut eas)
            .push_next(&mut ert);
        if ray_query {
            e2 = e2.push_next(&mut erq);
        }
        if invocation_reorder {
            e2 = e2.push_next(&mut ero);
        }
        let mut ext_names: Vec<*const std::ffi::c_char> = needed.iter().map(|n| n.as_ptr()).collect();
        if ray_query {
            ext_names.push(ash::khr::ray_query::NAME.as_ptr());
        }
        if invocation_reorder {
            ext_names.push(ash::nv::ray_tracing_invocation_reorder::NAME.as_ptr());
        }
        let create = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&ext_names)
            .push_next(&mut e2);
        // SAFETY: the create info and its chain outlive the call.
        let device = match unsafe { instance.create_device(physical, &create, None) } {
            Ok(d) => d,
            Err(e) => {
                // SAFETY: nothing else was created from the instance.
                unsafe { instance.destroy_instance(None) };
                return Err(VkError::Vk { call: "vkCreateDevice", result: e });
            }
        };
        // SAFETY: queue 0 of a family we asked for.
        let queue = unsafe { device.get_device_queue(family as u32, 0) };
        let pool_info = vk::CommandPoolCreateInfo::default().queue_family_index(family as u32);
        // SAFETY: a valid device.
        let pool = unsafe { device.create_command_pool(&pool_info, None) }.map_err(vkr("vkCreateCommandPool"))?;
        // SAFETY: `physical` came from this instance.
        let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
        let accel = ash::khr::acceleration_structure::Device::new(&instance, &device);
        let rt = ash::khr::ray_tracing_pipeline::Device::new(&instance, &device);
        Ok(RtOpen::Ready(Box::new(RtDevice {
            _entry: entry,
            instance,
            device,
            queue,
            pool,
            memory,
            accel,
            rt,
            sbt,
            name,
            ray_query,
            invocation_reorder,
        })))
    }

    /// A host-visible, coherent buffer with a device address, filled with `data` (zeros
    /// past it up to `size`).
    fn buffer(
        &self,
        size: usize,
        usage: vk::BufferUsageFlags,
        data: &[u8],
        made: &mut Vec<Buf>,
    ) -> Result<usize, VkError> {
        let size = size.max(data.len()).max(16);
        let info = vk::BufferCreateInfo::default()
            .size(size as u64)
            .usage(usage | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: a valid device and create info.
        let buffer = unsafe { self.device.create_buffer(&info, None) }.map_err(vkr("vkCreateBuffer"))?;
        // SAFETY: `buffer` came from this device.
        let req = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let wanted = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let kind = (0..self.memory.memory_type_count)
            .find(|&i| {
                req.memory_type_bits & (1 << i) != 0
                    && self.memory.memory_types[i as usize].property_flags.contains(wanted)
            })
            .ok_or(VkError::NoMemoryType)?;
        let mut flags = vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let alloc =
            vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(kind).push_next(&mut flags);
        // SAFETY: a valid allocate info.
        let memory = unsafe { self.device.allocate_memory(&alloc, None) }.map_err(vkr("vkAllocateMemory"))?;
        // SAFETY: fresh buffer and memory of this device; mapping host-visible memory.
        unsafe {
            self.device.bind_buffer_memory(buffer, memory, 0).map_err(vkr("vkBindBufferMemory"))?;
            let p = self
                .device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vkr("vkMapMemory"))? as *mut u8;
            std::ptr::write_bytes(p, 0, size);
            std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len());
            self.device.unmap_memory(memory);
        }
        // SAFETY: a buffer created with SHADER_DEVICE_ADDRESS.
        let address =
            unsafe { self.device.get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(buffer)) };
        made.push(Buf { buffer, memory, address, size });
        Ok(made.len() - 1)
    }

    fn read(&self, b: &Buf) -> Result<Vec<u8>, VkError> {
        let mut out = vec![0u8; b.size];
        // SAFETY: host-visible memory of this device, not in use after the fence.
        unsafe {
            let p = self
                .device
                .map_memory(b.memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vkr("vkMapMemory"))? as *const u8;
            std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), b.size);
            self.device.unmap_memory(b.memory);
        }
        Ok(out)
    }

    /// Runs `case`; returns every [`RtCase::buffers`] entry, read back.
    pub fn run(&self, case: &RtCase) -> Result<Vec<Vec<u8>>, VkError> {
        let mut bufs: Vec<Buf> = Vec::new();
        let mut structures: Vec<vk::AccelerationStructureKHR> = Vec::new();
        let mut modules: Vec<vk::ShaderModule> = Vec::new();
        let mut layout = vk::PipelineLayout::null();
        let mut pipeline = vk::Pipeline::null();
        let result = self.run_inner(case, &mut bufs, &mut structures, &mut modules, &mut layout, &mut pipeline);
        if !matches!(result, Err(VkError::Timeout { .. })) {
            // SAFETY: the fence was waited on (or nothing was submitted); objects of this device.
            unsafe {
                self.device.destroy_pipeline(pipeline, None);
                self.device.destroy_pipeline_layout(layout, None);
                for m in modules {
                    self.device.destroy_shader_module(m, None);
                }
                for s in structures {
                    self.accel.destroy_acceleration_structure(s, None);
                }
                for b in bufs {
                    self.device.destroy_buffer(b.buffer, None);
                    self.device.free_memory(b.memory, None);
                }
            }
        }
        result
    }

    fn build(
        &self,
        cb: vk::CommandBuffer,
        ty: vk::AccelerationStructureTypeKHR,
        geometry: vk::AccelerationStructureGeometryKHR<'_>,
        count: u32,
        bufs: &mut Vec<Buf>,
        structures: &mut Vec<vk::AccelerationStructureKHR>,
    ) -> Result<(vk::AccelerationStructureKHR, vk::DeviceAddress), VkError> {
        let geometries = [geometry];
        let mut info = vk::AccelerationStructureBuildGeometryInfoKHR::default()
            .ty(ty)
            .flags(vk::BuildAccelerationStructureFlagsKHR::PREFER_FAST_TRACE)
            .mode(vk::BuildAccelerationStructureModeKHR::BUILD)
            .geometries(&geometries);
        let mut sizes = vk::AccelerationStructureBuildSizesInfoKHR::default();
        // SAFETY: a valid build info.
        unsafe {
            self.accel.get_acceleration_structure_build_sizes(
                vk::AccelerationStructureBuildTypeKHR::DEVICE,
                &info,
                &[count],
                &mut sizes,
            )
        };
        let storage = self.buffer(
            sizes.acceleration_structure_size as usize,
            vk::BufferUsageFlags::ACCELERATION_STRUCTURE_STORAGE_KHR,
            &[],
            bufs,
        )?;
        let scratch =
            self.buffer(sizes.build_scratch_size as usize + 256, vk::BufferUsageFlags::STORAGE_BUFFER, &[], bufs)?;
        let create = vk::AccelerationStructureCreateInfoKHR::default()
            .buffer(bufs[storage].buffer)
            .size(sizes.acceleration_structure_size)
            .ty(ty);
        // SAFETY: a valid create info on a buffer of this device.
        let structure = unsafe { self.accel.create_acceleration_structure(&create, None) }
            .map_err(vkr("vkCreateAccelerationStructureKHR"))?;
        structures.push(structure);
        info = info
            .dst_acceleration_structure(structure)
            .scratch_data(vk::DeviceOrHostAddressKHR { device_address: align(bufs[scratch].address, 256) });
        let range = [vk::AccelerationStructureBuildRangeInfoKHR::default().primitive_count(count)];
        // SAFETY: recording into a command buffer in the recording state.
        unsafe { self.accel.cmd_build_acceleration_structures(cb, &[info], &[&range]) };
        let barrier = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::ACCELERATION_STRUCTURE_WRITE_KHR)
            .dst_access_mask(vk::AccessFlags::ACCELERATION_STRUCTURE_READ_KHR);
        // SAFETY: as above.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::ACCELERATION_STRUCTURE_BUILD_KHR,
                vk::PipelineStageFlags::ACCELERATION_STRUCTURE_BUILD_KHR
                    | vk::PipelineStageFlags::RAY_TRACING_SHADER_KHR
                    | vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            )
        };
        let address_info = vk::AccelerationStructureDeviceAddressInfoKHR::default().acceleration_structure(structure);
        // SAFETY: a structure of this device.
        let address = unsafe { self.accel.get_acceleration_structure_device_address(&address_info) };
        Ok((structure, address))
    }

    #[allow(clippy::too_many_arguments)]
    fn run_inner(
        &self,
        case: &RtCase,
        bufs: &mut Vec<Buf>,
        structures: &mut Vec<vk::AccelerationStructureKHR>,
        modules: &mut Vec<vk::ShaderModule>,
        layout: &mut vk::PipelineLayout,
        pipeline: &mut vk::Pipeline,
    ) -> Result<Vec<Vec<u8>>, VkError> {
        let bad = |m: String| VkError::BadLayout(format!("{}: {m}", case.name));
        let user: Vec<usize> = case
            .buffers
            .iter()
            .map(|b| self.buffer(b.len(), vk::BufferUsageFlags::STORAGE_BUFFER, b, bufs))
            .collect::<Result<_, _>>()?;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: a pool of this device.
        let cb = unsafe { self.device.allocate_command_buffers(&alloc) }.map_err(vkr("vkAllocateCommandBuffers"))?[0];
        // SAFETY: a fresh command buffer.
        unsafe { self.device.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default()) }
            .map_err(vkr("vkBeginCommandBuffer"))?;
        let build_input = vk::BufferUsageFlags::ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_KHR;
        let geometry_flags =
            if case.geometry_opaque { vk::GeometryFlagsKHR::OPAQUE } else { vk::GeometryFlagsKHR::empty() };
        let mut blas = [0u64; 2];
        if !case.triangles.is_empty() {
            let vertices: Vec<u8> = case.triangles.iter().flatten().flatten().flat_map(|f| f.to_le_bytes()).collect();
            let v = self.buffer(vertices.len(), build_input, &vertices, bufs)?;
            let triangles = vk::AccelerationStructureGeometryTrianglesDataKHR::default()
                .vertex_format(vk::Format::R32G32B32_SFLOAT)
                .vertex_data(vk::DeviceOrHostAddressConstKHR { device_address: bufs[v].address })
                .vertex_stride(12)
                .max_vertex(case.triangles.len() as u32 * 3 - 1)
                .index_type(vk::IndexType::NONE_KHR);
            let geometry = vk::AccelerationStructureGeometryKHR::default()
                .geometry_type(vk::GeometryTypeKHR::TRIANGLES)
                .geometry(vk::AccelerationStructureGeometryDataKHR { triangles })
                .flags(geometry_flags);
            blas[0] = self
                .build(
                    cb,
                    vk::AccelerationStructureTypeKHR::BOTTOM_LEVEL,
                    geometry,
                    case.triangles.len() as u32,
                    bufs,
                    structures,
                )?
                .1;
        }
        if !case.aabbs.is_empty() {
            let boxes: Vec<u8> = case.aabbs.iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
            let a = self.buffer(boxes.len(), build_input, &boxes, bufs)?;
            let aabbs = vk::AccelerationStructureGeometryAabbsDataKHR::default()
                .data(vk::DeviceOrHostAddressConstKHR { device_address: bufs[a].address })
                .stride(24);
            let geometry = vk::AccelerationStructureGeometryKHR::default()
                .geometry_type(vk::GeometryTypeKHR::AABBS)
                .geometry(vk::AccelerationStructureGeometryDataKHR { aabbs })
                .flags(geometry_flags);
            blas[1] = self
                .build(
                    cb,
                    vk::AccelerationStructureTypeKHR::BOTTOM_LEVEL,
                    geometry,
                    case.aabbs.len() as u32,
                    bufs,
                    structures,
                )?
                .1;
        }
        // VkAccelerationStructureInstanceKHR, 64 bytes each.
        let mut instances = Vec::new();
        for i in &case.instances {
            let target = blas[usize::from(i.aabbs)];
            if target == 0 {
                return Err(bad("an instance of an empty bottom-level structure".into()));
            }
            instances.extend(i.transform.iter().flat_map(|f| f.to_le_bytes()));
            instances.extend(((i.custom_index & 0xff_ffff) | (u32::from(i.mask) << 24)).to_le_bytes());
            instances.extend(((i.sbt_offset & 0xff_ffff) | (u32::from(i.flags) << 24)).to_le_bytes());
            instances.extend(target.to_le_bytes());
        }
        let inst = self.buffer(instances.len(), build_input, &instances, bufs)?;
        let data = vk::AccelerationStructureGeometryInstancesDataKHR::default()
            .data(vk::DeviceOrHostAddressConstKHR { device_address: bufs[inst].address });
        let geometry = vk::AccelerationStructureGeometryKHR::default()
            .geometry_type(vk::GeometryTypeKHR::INSTANCES)
            .geometry(vk::AccelerationStructureGeometryDataKHR { instances: data });
        let (_, tlas) = self.build(
            cb,
            vk::AccelerationStructureTypeKHR::TOP_LEVEL,
            geometry,
            case.instances.len() as u32,
            bufs,
            structures,
        )?;
        // Global root arguments.
        let mut push = case.push_constants.clone();
        for &(at, what) in &case.push_addresses {
            let address = match what {
                Address::Tlas => tlas,
                Address::Buffer(k) => bufs[*user.get(k).ok_or_else(|| bad(format!("no buffer {k}")))?].address,
            };
            let at = at as usize;
            if push.len() < at + 8 {
                return Err(bad(format!("address at push-constant byte {at} past the {} bytes", push.len())));
            }
            push[at..at + 8].copy_from_slice(&address.to_le_bytes());
        }
        match &case.compute {
            Some(entry) => self.record_dispatch(case, entry, cb, &push, modules, layout, pipeline)?,
            None => self.record_trace_rays(case, cb, &push, bufs, modules, layout, pipeline)?,
        }
        // SAFETY: a command buffer in the recording state.
        unsafe { self.device.end_command_buffer(cb) }.map_err(vkr("vkEndCommandBuffer"))?;
        // SAFETY: a valid device.
        let fence =
            unsafe { self.device.create_fence(&vk::FenceCreateInfo::default(), None) }.map_err(vkr("vkCreateFence"))?;
        let cbs = [cb];
        let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
        // SAFETY: a recorded command buffer and a fresh fence.
        unsafe { self.device.queue_submit(self.queue, &submit, fence) }.map_err(vkr("vkQueueSubmit"))?;
        let timeout = if case.timeout.is_zero() { Duration::from_secs(10) } else { case.timeout };
        // SAFETY: a fence of this device.
        match unsafe { self.device.wait_for_fences(&[fence], true, timeout.as_nanos() as u64) } {
            Ok(()) => {}
            Err(vk::Result::TIMEOUT) => return Err(VkError::Timeout { entry: case.name.clone(), timeout }),
            Err(vk::Result::ERROR_DEVICE_LOST) => return Err(VkError::DeviceLost { entry: case.name.clone() }),
            Err(e) => return Err(VkError::Vk { call: "vkWaitForFences", result: e }),
        }
        // SAFETY: the work finished.
        unsafe {
            self.device.destroy_fence(fence, None);
            self.device.free_command_buffers(self.pool, &cbs);
        }
        user.iter().map(|&k| self.read(&bufs[k])).collect()
    }

    /// Records the ray-tracing pipeline of `case`, its shader binding table and one
    /// `vkCmdTraceRaysKHR` with the global root arguments `push`.
    #[allow(clippy::too_many_arguments)]
    fn record_trace_rays(
        &self,
        case: &RtCase,
        cb: vk::CommandBuffer,
        push: &[u8],
        bufs: &mut Vec<Buf>,
        modules: &mut Vec<vk::ShaderModule>,
        layout: &mut vk::PipelineLayout,
        pipeline: &mut vk::Pipeline,
    ) -> Result<(), VkError> {
        // The pipeline: stages, then groups (raygen, misses, hit groups, callables).
        let bad = |m: String| VkError::BadLayout(format!("{}: {m}", case.name));
        let mut stages = Vec::new();
        let mut stage_of = std::collections::HashMap::new();
        for (name, words, stage) in &case.modules {
            let info = vk::ShaderModuleCreateInfo::default().code(words);
            // SAFETY: SPIR-V words, a valid device.
            let m = unsafe { self.device.create_shader_module(&info, None) }.map_err(vkr("vkCreateShaderModule"))?;
            modules.push(m);
            stage_of.insert(name.clone(), stages.len() as u32);
            stages.push((m, *stage, std::ffi::CString::new(name.as_str()).map_err(|e| bad(e.to_string()))?));
        }
        let stage_infos: Vec<vk::PipelineShaderStageCreateInfo> = stages
            .iter()
            .map(|(m, s, n)| vk::PipelineShaderStageCreateInfo::default().stage(*s).module(*m).name(n.as_c_str()))
            .collect();
        let index = |n: &str| stage_of.get(n).copied().ok_or_else(|| bad(format!("no module for entry `{n}`")));
        let general = |k: u32| {
            vk::RayTracingShaderGroupCreateInfoKHR::default()
                .ty(vk::RayTracingShaderGroupTypeKHR::GENERAL)
                .general_shader(k)
                .closest_hit_shader(vk::SHADER_UNUSED_KHR)
                .any_hit_shader(vk::SHADER_UNUSED_KHR)
                .intersection_shader(vk::SHADER_UNUSED_KHR)
        };
        let mut groups = vec![general(index(&case.raygen.0)?)];
        for (m, _) in &case.misses {
            groups.push(general(index(m)?));
        }
        for h in &case.hit_groups {
            let opt = |n: &Option<String>| n.as_deref().map_or(Ok(vk::SHADER_UNUSED_KHR), index);
            let ty = if h.intersection.is_some() {
                vk::RayTracingShaderGroupTypeKHR::PROCEDURAL_HIT_GROUP
            } else {
                vk::RayTracingShaderGroupTypeKHR::TRIANGLES_HIT_GROUP
            };
            groups.push(
                vk::RayTracingShaderGroupCreateInfoKHR::default()
                    .ty(ty)
                    .general_shader(vk::SHADER_UNUSED_KHR)
                    .closest_hit_shader(opt(&h.closest)?)
                    .any_hit_shader(opt(&h.any)?)
                    .intersection_shader(opt(&h.intersection)?),
            );
        }
        for (c, _) in &case.callables {
            groups.push(general(index(c)?));
        }
        let all_stages = vk::ShaderStageFlags::RAYGEN_KHR
            | vk::ShaderStageFlags::MISS_KHR
            | vk::ShaderStageFlags::CLOSEST_HIT_KHR
            | vk::ShaderStageFlags::ANY_HIT_KHR
            | vk::ShaderStageFlags::INTERSECTION_KHR
            | vk::ShaderStageFlags::CALLABLE_KHR;
        let ranges = [vk::PushConstantRange::default().stage_flags(all_stages).size(case.push_constants.len() as u32)];
        let mut layout_info = vk::PipelineLayoutCreateInfo::default();
        if !case.push_constants.is_empty() {
            layout_info = layout_info.push_constant_ranges(&ranges);
        }
        // SAFETY: a valid create info.
        *layout =
            unsafe { self.device.create_pipeline_layout(&layout_info, None) }.map_err(vkr("vkCreatePipelineLayout"))?;
        let info = vk::RayTracingPipelineCreateInfoKHR::default()
            .stages(&stage_infos)
            .groups(&groups)
            .max_pipeline_ray_recursion_depth(case.max_recursion.max(1))
            .layout(*layout);
        // SAFETY: valid create infos whose arrays outlive the call.
        *pipeline = unsafe {
            self.rt.create_ray_tracing_pipelines(
                vk::DeferredOperationKHR::null(),
                vk::PipelineCache::null(),
                &[info],
                None,
            )
        }
        .map_err(|(_, e)| VkError::Vk { call: "vkCreateRayTracingPipelinesKHR", result: e })?[0];
        // The shader binding table: one buffer per region, records of handle + local
        // root arguments at the group handle alignment.
        let [handle, handle_alignment, base] = self.sbt;
        let handle = handle as usize;
        // SAFETY: a pipeline of this device with `groups.len()` groups.
        let handles = unsafe {
            self.rt.get_ray_tracing_shader_group_handles(*pipeline, 0, groups.len() as u32, handle * groups.len())
        }
        .map_err(vkr("vkGetRayTracingShaderGroupHandlesKHR"))?;
        let base = u64::from(base);
        let mut first_group = 0usize;
        let mut region = |records: Vec<&[u8]>,
                          bufs: &mut Vec<Buf>|
         -> Result<vk::StridedDeviceAddressRegionKHR, VkError> {
            if records.is_empty() {
                return Ok(vk::StridedDeviceAddressRegionKHR::default());
            }
            let longest = records.iter().map(|r| r.len()).max().unwrap_or(0);
            let stride = align((handle + longest) as u64, u64::from(handle_alignment));
            let mut bytes = vec![0u8; stride as usize * records.len()];
            for (k, r) in records.iter().enumerate() {
                let at = k * stride as usize;
                let g = first_group + k;
                bytes[at..at + handle].copy_from_slice(&handles[g * handle..(g + 1) * handle]);
                bytes[at + handle..at + handle + r.len()].copy_from_slice(r);
            }
            first_group += records.len();
            let usage = vk::BufferUsageFlags::SHADER_BINDING_TABLE_KHR;
            let b = self.buffer(bytes.len() + base as usize, usage, &[], bufs)?;
            let start = align(bufs[b].address, base);
            // SAFETY: host-visible memory of this device; `start` lies inside the buffer.
            unsafe {
                let p = self
                    .device
                    .map_memory(bufs[b].memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                    .map_err(vkr("vkMapMemory"))? as *mut u8;
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.add((start - bufs[b].address) as usize), bytes.len());
                self.device.unmap_memory(bufs[b].memory);
            }
            let size = stride * records.len() as u64;
            Ok(vk::StridedDeviceAddressRegionKHR { device_address: start, stride, size })
        };
        let mut raygen = region(vec![case.raygen.1.as_slice()], bufs)?;
        raygen.size = raygen.stride;
        let miss = region(case.misses.iter().map(|m| m.1.as_slice()).collect(), bufs)?;
        let hit = region(case.hit_groups.iter().map(|h| h.record.as_slice()).collect(), bufs)?;
        let callable = region(case.callables.iter().map(|c| c.1.as_slice()).collect(), bufs)?;
        // SAFETY: recording into the command buffer; objects of this device.
        unsafe {
            self.device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::RAY_TRACING_KHR, *pipeline);
            if !push.is_empty() {
                self.device.cmd_push_constants(cb, *layout, all_stages, 0, push);
            }
            self.rt.cmd_trace_rays(cb, &raygen, &miss, &hit, &callable, case.launch[0], case.launch[1], 1);
            let barrier = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::RAY_TRACING_SHADER_KHR,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            );
        }
        Ok(())
    }

    /// Records a compute pipeline of the entry `entry` of `case`'s modules and one
    /// `vkCmdDispatch` over `case.launch` workgroups with the root arguments `push`.
    #[allow(clippy::too_many_arguments)]
    fn record_dispatch(
        &self,
        case: &RtCase,
        entry: &str,
        cb: vk::CommandBuffer,
        push: &[u8],
        modules: &mut Vec<vk::ShaderModule>,
        layout: &mut vk::PipelineLayout,
        pipeline: &mut vk::Pipeline,
    ) -> Result<(), VkError> {
        let bad = |m: String| VkError::BadLayout(format!("{}: {m}", case.name));
        if !self.ray_query {
            return Err(bad(format!("{} has no VK_KHR_ray_query", self.name)));
        }
        let (_, words, _) = case
            .modules
            .iter()
            .find(|(n, _, _)| n == entry)
            .ok_or_else(|| bad(format!("no module for entry `{entry}`")))?;
        let info = vk::ShaderModuleCreateInfo::default().code(words);
        // SAFETY: SPIR-V words, a valid device.
        let module = unsafe { self.device.create_shader_module(&info, None) }.map_err(vkr("vkCreateShaderModule"))?;
        modules.push(module);
        let ranges =
            [vk::PushConstantRange::default().stage_flags(vk::ShaderStageFlags::COMPUTE).size(push.len() as u32)];
        let mut layout_info = vk::PipelineLayoutCreateInfo::default();
        if !push.is_empty() {
            layout_info = layout_info.push_constant_ranges(&ranges);
        }
        // SAFETY: a valid create info.
        *layout =
            unsafe { self.device.create_pipeline_layout(&layout_info, None) }.map_err(vkr("vkCreatePipelineLayout"))?;
        let name = std::ffi::CString::new(entry).map_err(|e| bad(e.to_string()))?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(name.as_c_str());
        let info = vk::ComputePipelineCreateInfo::default().stage(stage).layout(*layout);
        // SAFETY: valid create infos that outlive the call.
        *pipeline = unsafe { self.device.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) }
            .map_err(|(_, e)| VkError::Vk { call: "vkCreateComputePipelines", result: e })?[0];
        // SAFETY: recording into the command buffer; objects of this device.
        unsafe {
            self.device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, *pipeline);
            if !push.is_empty() {
                self.device.cmd_push_constants(cb, *layout, vk::ShaderStageFlags::COMPUTE, 0, push);
            }
            self.device.cmd_dispatch(cb, case.launch[0], case.launch[1], 1);
            let barrier = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            );
        }
        Ok(())
    }
}

impl Drop for RtDevice {
    fn drop(&mut self) {
        // SAFETY: every run destroyed its objects after its fence (or leaked them on a
        // timeout, when the device is dropped with work possibly in flight: wait first).
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
