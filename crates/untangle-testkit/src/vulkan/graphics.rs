//! A minimal Vulkan graphics runner: one pipeline built from translated stages (vertex,
//! optional tessellation control + evaluation, optional geometry, fragment; or optional
//! task + mesh, optional fragment), one draw into offscreen colour attachments, everything
//! read back. The corpus cases with expected pixels are in [`super::graphics_cases`].
//!
//! * Mesh pipelines ([`Draw::mesh_tasks`]): task (D3D amplification) and mesh stages in
//!   place of the vertex stages, no vertex input or input-assembly state (Vulkan ignores
//!   them with a mesh stage; the runner passes none), drawn with
//!   `vkCmdDrawMeshTasksEXT(x, y, z)`. They need `VK_EXT_mesh_shader` with `taskShader` and
//!   `meshShader`, which [`Gpu::open`] enables where the device has them
//!   ([`super::Features::mesh_shader`]); without it such a draw is refused with a
//!   [`VkError::BadLayout`] before any Vulkan call. Descriptor bindings are then visible to
//!   the task and mesh stages too.
//!
//! * The draw follows D3D12's conventions as a translation layer sets them up: the viewport
//!   is flipped (negative height, `VK_KHR_maintenance1`, core in 1.1) so that framebuffer
//!   coordinates are D3D's screen coordinates (y down from the top-left) while clip space
//!   keeps D3D's y-up; `FrontCounterClockwise = FALSE` becomes `VK_FRONT_FACE_CLOCKWISE`;
//!   no tessellation domain origin is chained (`UPPER_LEFT`, the translator's default,
//!   `docs/stage-interfaces.md`).
//! * Attachments: one colour attachment per [`Target`] (its format and clear value, raw
//!   bits; none at all is allowed, for pipelines that only write UAVs), rendered with
//!   dynamic rendering (Vulkan 1.3). With [`Draw::layers`] > 1 each is a 2D array image
//!   rendered as layered (`SV_RenderTargetArrayIndex` picks the layer), read back layer
//!   after layer; with [`Draw::view_mask`] the pass is multiview instead (view `v` renders
//!   layer `v`). With more than one sample each is
//!   multisampled and resolved into a single-sample image by the rendering pass itself
//!   (average for float formats, sample 0 for integer ones). Each single-sample image is
//!   copied to a host buffer and returned as bytes.
//! * Vertex input: at most one binding of `vec4` positions (location 0, stride 16,
//!   `R32G32B32A32_SFLOAT`, D3D's `POSITION` at register 0); draws without vertex buffers
//!   are allowed (shaders that build positions from `SV_VertexID`).
//! * Optional state: specialization constants for every stage ([`Draw::spec_constants`]),
//!   several viewports with scissors of the same rectangles ([`Draw::viewports`]).
//! * Resources: uniform and storage buffers at given (set, binding), visible to every
//!   graphics stage; storage buffers are read back.
//! * Cost: every draw creates and destroys all of its objects (pipeline included): it is a
//!   checker, not a renderer. Waits on a fence at most [`Draw::timeout`]; a timeout poisons
//!   the [`Gpu`] as a compute dispatch does.

use super::{vkr, Gpu, HostBuffer, Scratch, VkError};
use ash::vk;
use std::ffi::CString;
use std::time::Duration;

/// One colour attachment: its format and clear value (raw 32-bit words, also for float
/// formats).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub format: vk::Format,
    pub clear: [u32; 4],
}

/// One stage's module.
#[derive(Clone, Debug)]
pub struct StageModule {
    pub stage: vk::ShaderStageFlags,
    pub words: Vec<u32>,
    pub entry: String,
}

/// A buffer bound at (set, binding).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferBinding {
    pub set: u32,
    pub binding: u32,
    pub storage: bool,
    pub bytes: Vec<u8>,
}

/// Everything one draw needs.
#[derive(Clone, Debug)]
pub struct Draw {
    pub stages: Vec<StageModule>,
    pub width: u32,
    pub height: u32,
    pub samples: vk::SampleCountFlags,
    /// Run the fragment shader once per sample (`minSampleShading` 1).
    pub sample_shading: bool,
    pub targets: Vec<Target>,
    /// `vec4` positions for vertex attribute location 0; empty: no vertex buffer.
    pub positions: Vec<[f32; 4]>,
    pub vertex_count: u32,
    pub instance_count: u32,
    pub topology: vk::PrimitiveTopology,
    /// Control points per patch (with `PATCH_LIST`).
    pub patch_control_points: u32,
    pub cull: vk::CullModeFlags,
    pub buffers: Vec<BufferBinding>,
    pub timeout: Duration,
    /// A mesh pipeline: `vkCmdDrawMeshTasksEXT` with these group counts instead of
    /// `vkCmdDraw` (positions, vertex count, topology and patch size unused).
    pub mesh_tasks: Option<[u32; 3]>,
    /// Array layers of every target (1: plain 2D images).
    pub layers: u32,
    /// Multiview: the pipeline's and the rendering's view mask (view `v` renders to layer
    /// `v` of every target, which needs that many [`Draw::layers`]); 0: no multiview.
    pub view_mask: u32,
    /// Specialization constants (`SpecId`, 32-bit value), given to every stage.
    pub spec_constants: Vec<(u32, u32)>,
    /// Viewports in D3D's screen coordinates (x, y, width, height; flipped like the
    /// default one), each with a scissor of the same rectangle; empty: one viewport and
    /// scissor covering the target. More than one needs `multiViewport`.
    pub viewports: Vec<[u32; 4]>,
}

impl Default for Draw {
    fn default() -> Self {
        Draw {
            stages: Vec::new(),
            width: 8,
            height: 8,
            samples: vk::SampleCountFlags::TYPE_1,
            sample_shading: false,
            targets: Vec::new(),
            positions: Vec::new(),
            vertex_count: 0,
            instance_count: 1,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            patch_control_points: 0,
            cull: vk::CullModeFlags::NONE,
            buffers: Vec::new(),
            timeout: Duration::from_secs(60),
            mesh_tasks: None,
            layers: 1,
            view_mask: 0,
            spec_constants: Vec::new(),
            viewports: Vec::new(),
        }
    }
}

/// What a draw left: each target's texels (row-major, tightly packed, single-sample, layer
/// after layer: layer `l`'s row `y` is row `l * height + y`) and
/// each storage buffer's bytes (in [`Draw::buffers`] order, uniform buffers skipped).
#[derive(Clone, Debug, Default)]
pub struct DrawResult {
    pub targets: Vec<Vec<u8>>,
    pub storage: Vec<Vec<u8>>,
}

/// Bytes per texel of the colour formats the runner supports.
pub fn color_texel_size(f: vk::Format) -> Option<usize> {
    Some(match f {
        vk::Format::R32_SFLOAT | vk::Format::R32_UINT | vk::Format::R8G8B8A8_UNORM => 4,
        vk::Format::R32G32_SFLOAT | vk::Format::R32G32_UINT => 8,
        vk::Format::R32G32B32A32_SFLOAT | vk::Format::R32G32B32A32_UINT => 16,
        _ => return None,
    })
}

fn is_integer(f: vk::Format) -> bool {
    matches!(f, vk::Format::R32_UINT | vk::Format::R32G32_UINT | vk::Format::R32G32B32A32_UINT)
}

/// A draw's pipeline layout, descriptor sets and buffers (in [`Draw::buffers`] order).
pub(super) struct Resources {
    pub(super) layout: vk::PipelineLayout,
    sets: Vec<vk::DescriptorSet>,
    buffers: Vec<HostBuffer>,
}

/// A colour attachment: its image, its view, and the single-sample resolve image and view
/// where multisampled.
type Rendered = (vk::Image, vk::ImageView, Option<(vk::Image, vk::ImageView)>);

/// A draw's colour attachments and vertex buffer.
pub(super) struct Attachments {
    rendered: Vec<Rendered>,
    vertex_buffer: Option<HostBuffer>,
}

impl Gpu {
    /// Builds the pipeline, draws once, reads every target and storage buffer back.
    pub fn draw(&mut self, d: &Draw) -> Result<DrawResult, VkError> {
        if self.poisoned {
            return Err(VkError::Poisoned);
        }
        let mut scratch = Scratch::default();
        let result = self.draw_in(d, &mut scratch);
        if self.poisoned {
            std::mem::forget(scratch);
        } else {
            // SAFETY: the fence signalled (or nothing was submitted): nothing is in use.
            unsafe { scratch.destroy(&self.device) };
        }
        result
    }

    /// A device-local image with one mip level and layer, bound, with a view.
    ///
    /// SAFETY: `s` belongs to this device.
    unsafe fn attachment(
        &self,
        s: &mut Scratch,
        format: vk::Format,
        extent: vk::Extent3D,
        samples: vk::SampleCountFlags,
        layers: u32,
        usage: vk::ImageUsageFlags,
    ) -> Result<(vk::Image, vk::ImageView), VkError> {
        let dev = &self.device;
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(extent)
            .mip_levels(1)
            .array_layers(layers)
            .samples(samples)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let image = self.bound_image(s, &info)?;
        let view_info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(if layers > 1 { vk::ImageViewType::TYPE_2D_ARRAY } else { vk::ImageViewType::TYPE_2D })
            .format(format)
            .subresource_range(color_range(layers));
        let view = dev.create_image_view(&view_info, None).map_err(vkr("vkCreateImageView"))?;
        s.image_views.push(view);
        Ok((image, view))
    }

    /// Refuses a draw the runner cannot build (before any Vulkan call).
    pub(super) fn check_draw(&self, d: &Draw) -> Result<(), VkError> {
        if d.width == 0 || d.height == 0 || d.layers == 0 {
            return Err(VkError::BadLayout("a draw needs a non-empty extent and at least one layer".into()));
        }
        if d.mesh_tasks.is_some() && !self.info.features.mesh_shader {
            return Err(VkError::BadLayout("a mesh draw needs VK_EXT_mesh_shader (taskShader, meshShader)".into()));
        }
        match d.targets.iter().find(|t| color_texel_size(t.format).is_none()) {
            Some(t) => Err(VkError::BadLayout(format!("colour format {:?} unsupported", t.format))),
            None => Ok(()),
        }
    }

    /// The draw's pipeline layout (one set layout per set `0..=max`), its buffers filled
    /// with their bytes and bound in descriptor sets.
    ///
    /// SAFETY: `s` belongs to this device.
    pub(super) unsafe fn draw_resources(&self, d: &Draw, s: &mut Scratch) -> Result<Resources, VkError> {
        let dev = &self.device;
        let visible = draw_visibility(d);
        let highest = d.buffers.iter().map(|b| b.set + 1).max().unwrap_or(0);
        let mut set_layouts = Vec::new();
        for set in 0..highest {
            let bindings: Vec<vk::DescriptorSetLayoutBinding> = d
                .buffers
                .iter()
                .filter(|b| b.set == set)
                .map(|b| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b.binding)
                        .descriptor_type(buffer_type(b))
                        .descriptor_count(1)
                        .stage_flags(visible)
                })
                .collect();
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
            let l = dev.create_descriptor_set_layout(&info, None).map_err(vkr("vkCreateDescriptorSetLayout"))?;
            s.set_layouts.push(l);
            set_layouts.push(l);
        }
        let layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        let layout = dev.create_pipeline_layout(&layout_info, None).map_err(vkr("vkCreatePipelineLayout"))?;
        s.layouts.push(layout);
        let mut buffers = Vec::new();
        for b in &d.buffers {
            let usage =
                if b.storage { vk::BufferUsageFlags::STORAGE_BUFFER } else { vk::BufferUsageFlags::UNIFORM_BUFFER };
            let mut bytes = b.bytes.clone();
            bytes.resize(bytes.len().max(16).next_multiple_of(16), 0);
            buffers.push(self.host_buffer(s, &bytes, usage)?);
        }
        let mut sets = Vec::new();
        if highest > 0 {
            let sizes = [
                vk::DescriptorPoolSize::default().ty(vk::DescriptorType::UNIFORM_BUFFER).descriptor_count(16),
                vk::DescriptorPoolSize::default().ty(vk::DescriptorType::STORAGE_BUFFER).descriptor_count(16),
            ];
            let info = vk::DescriptorPoolCreateInfo::default().max_sets(highest).pool_sizes(&sizes);
            let pool = dev.create_descriptor_pool(&info, None).map_err(vkr("vkCreateDescriptorPool"))?;
            s.descriptor_pools.push(pool);
            let alloc = vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&set_layouts);
            sets = dev.allocate_descriptor_sets(&alloc).map_err(vkr("vkAllocateDescriptorSets"))?;
            let infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers
                .iter()
                .map(|hb| [vk::DescriptorBufferInfo::default().buffer(hb.buffer).range(vk::WHOLE_SIZE)])
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = d
                .buffers
                .iter()
                .zip(&infos)
                .map(|(b, info)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(sets[b.set as usize])
                        .dst_binding(b.binding)
                        .descriptor_type(buffer_type(b))
                        .buffer_info(info)
                })
                .collect();
            dev.update_descriptor_sets(&writes, &[]);
        }
        Ok(Resources { layout, sets, buffers })
    }

    /// The draw's graphics pipeline under `layout`: its stages' shader modules and
    /// `vkCreateGraphicsPipelines`, no cache.
    ///
    /// SAFETY: `layout` and `s` belong to this device.
    pub(super) unsafe fn draw_pipeline(
        &self,
        d: &Draw,
        layout: vk::PipelineLayout,
        s: &mut Scratch,
    ) -> Result<vk::Pipeline, VkError> {
        let dev = &self.device;
        let entries: Vec<CString> = d
            .stages
            .iter()
            .map(|m| CString::new(m.entry.clone()))
            .collect::<Result<_, _>>()
            .map_err(|_| VkError::BadLayout("entry point name contains NUL".into()))?;
        let spec_entries: Vec<vk::SpecializationMapEntry> = (0..d.spec_constants.len() as u32)
            .zip(&d.spec_constants)
            .map(|(k, &(id, _))| vk::SpecializationMapEntry::default().constant_id(id).offset(4 * k).size(4))
            .collect();
        let spec_data: Vec<u8> = d.spec_constants.iter().flat_map(|&(_, v)| v.to_le_bytes()).collect();
        let spec_info = vk::SpecializationInfo::default().map_entries(&spec_entries).data(&spec_data);
        let mut stages = Vec::new();
        for (m, entry) in d.stages.iter().zip(&entries) {
            let info = vk::ShaderModuleCreateInfo::default().code(&m.words);
            let module = dev.create_shader_module(&info, None).map_err(vkr("vkCreateShaderModule"))?;
            s.modules.push(module);
            let mut stage = vk::PipelineShaderStageCreateInfo::default().stage(m.stage).module(module).name(entry);
            if !d.spec_constants.is_empty() {
                stage = stage.specialization_info(&spec_info);
            }
            stages.push(stage);
        }
        let vertex_bindings = [vk::VertexInputBindingDescription::default().binding(0).stride(16)];
        let vertex_attributes = [vk::VertexInputAttributeDescription::default()
            .location(0)
            .binding(0)
            .format(vk::Format::R32G32B32A32_SFLOAT)];
        let mut vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        if !d.positions.is_empty() {
            vertex_input = vertex_input
                .vertex_binding_descriptions(&vertex_bindings)
                .vertex_attribute_descriptions(&vertex_attributes);
        }
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(d.topology);
        let tessellation =
            vk::PipelineTessellationStateCreateInfo::default().patch_control_points(d.patch_control_points);
        let viewport_count = d.viewports.len().max(1) as u32;
        let viewport =
            vk::PipelineViewportStateCreateInfo::default().viewport_count(viewport_count).scissor_count(viewport_count);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(d.cull)
            .front_face(vk::FrontFace::CLOCKWISE)
            .line_width(1.0);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(d.samples)
            .sample_shading_enable(d.sample_shading)
            .min_sample_shading(if d.sample_shading { 1.0 } else { 0.0 });
        let depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default();
        let blend: Vec<vk::PipelineColorBlendAttachmentState> = d
            .targets
            .iter()
            .map(|_| vk::PipelineColorBlendAttachmentState::default().color_write_mask(vk::ColorComponentFlags::RGBA))
            .collect();
        let blend_state = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
        let dynamic = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic_state = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic);
        let formats: Vec<vk::Format> = d.targets.iter().map(|t| t.format).collect();
        let mut rendering =
            vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats).view_mask(d.view_mask);
        let mut info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth_stencil)
            .color_blend_state(&blend_state)
            .dynamic_state(&dynamic_state)
            .layout(layout)
            .push_next(&mut rendering);
        if d.mesh_tasks.is_none() {
            info = info.vertex_input_state(&vertex_input).input_assembly_state(&assembly);
            if d.topology == vk::PrimitiveTopology::PATCH_LIST {
                info = info.tessellation_state(&tessellation);
            }
        }
        match dev.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) {
            Ok(p) => {
                s.pipelines.push(p[0]);
                Ok(p[0])
            }
            Err((p, e)) => {
                s.pipelines.extend(p.into_iter().filter(|p| *p != vk::Pipeline::null()));
                Err(VkError::Vk { call: "vkCreateGraphicsPipelines", result: e })
            }
        }
    }

    /// The draw's attachments and vertex buffer.
    ///
    /// SAFETY: `s` belongs to this device.
    pub(super) unsafe fn draw_attachments(&self, d: &Draw, s: &mut Scratch) -> Result<Attachments, VkError> {
        let extent = vk::Extent3D { width: d.width, height: d.height, depth: 1 };
        let usage_single = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
        let one = vk::SampleCountFlags::TYPE_1;
        let mut rendered = Vec::new();
        for t in &d.targets {
            if d.samples != one {
                let ms =
                    self.attachment(s, t.format, extent, d.samples, d.layers, vk::ImageUsageFlags::COLOR_ATTACHMENT)?;
                let single = self.attachment(s, t.format, extent, one, d.layers, usage_single)?;
                rendered.push((ms.0, ms.1, Some(single)));
            } else {
                let single = self.attachment(s, t.format, extent, one, d.layers, usage_single)?;
                rendered.push((single.0, single.1, None));
            }
        }
        let vertex_buffer = if d.positions.is_empty() {
            None
        } else {
            let bytes: Vec<u8> = d.positions.iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
            Some(self.host_buffer(s, &bytes, vk::BufferUsageFlags::VERTEX_BUFFER)?)
        };
        Ok(Attachments { rendered, vertex_buffer })
    }

    /// Records the pass into `cb`: every attachment from `UNDEFINED` to
    /// `COLOR_ATTACHMENT_OPTIMAL`, the rendering (clears, and resolves where multisampled)
    /// and `draws` draws; with `queries`, timestamp 0 after the rendering begins (after the
    /// clears) and timestamp 1 after it ends.
    ///
    /// SAFETY: every object belongs to this device; `cb` is recording.
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn record_pass(
        &self,
        cb: vk::CommandBuffer,
        d: &Draw,
        pipeline: vk::Pipeline,
        r: &Resources,
        a: &Attachments,
        draws: u32,
        queries: Option<vk::QueryPool>,
    ) {
        let dev = &self.device;
        let all_images: Vec<vk::Image> =
            a.rendered.iter().flat_map(|(i, _, r)| std::iter::once(*i).chain(r.map(|r| r.0))).collect();
        let to_attachment: Vec<vk::ImageMemoryBarrier> = all_images
            .iter()
            .map(|&image| {
                vk::ImageMemoryBarrier::default()
                    .image(image)
                    .subresource_range(color_range(d.layers))
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                    .dst_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            })
            .collect();
        dev.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &to_attachment,
        );
        let color_attachments: Vec<vk::RenderingAttachmentInfo> = a
            .rendered
            .iter()
            .zip(&d.targets)
            .map(|((_, view, resolve), t)| {
                let mut info = vk::RenderingAttachmentInfo::default()
                    .image_view(*view)
                    .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                    .load_op(vk::AttachmentLoadOp::CLEAR)
                    .store_op(vk::AttachmentStoreOp::STORE)
                    .clear_value(vk::ClearValue { color: vk::ClearColorValue { uint32: t.clear } });
                if let Some((_, resolve_view)) = resolve {
                    info = info
                        .resolve_mode(if is_integer(t.format) {
                            vk::ResolveModeFlags::SAMPLE_ZERO
                        } else {
                            vk::ResolveModeFlags::AVERAGE
                        })
                        .resolve_image_view(*resolve_view)
                        .resolve_image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL);
                }
                info
            })
            .collect();
        let area =
            vk::Rect2D { offset: vk::Offset2D::default(), extent: vk::Extent2D { width: d.width, height: d.height } };
        let rendering_info = vk::RenderingInfo::default()
            .render_area(area)
            .layer_count(d.layers)
            .view_mask(d.view_mask)
            .color_attachments(&color_attachments);
        dev.cmd_begin_rendering(cb, &rendering_info);
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        if !r.sets.is_empty() {
            dev.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::GRAPHICS, r.layout, 0, &r.sets, &[]);
        }
        // D3D's viewports, flipped: framebuffer y runs down as D3D's screen y does.
        let rects = if d.viewports.is_empty() { vec![[0, 0, d.width, d.height]] } else { d.viewports.clone() };
        let vps: Vec<vk::Viewport> = rects
            .iter()
            .map(|&[x, y, w, h]| vk::Viewport {
                x: x as f32,
                y: (y + h) as f32,
                width: w as f32,
                height: -(h as f32),
                min_depth: 0.0,
                max_depth: 1.0,
            })
            .collect();
        let scissors: Vec<vk::Rect2D> = rects
            .iter()
            .map(|&[x, y, w, h]| vk::Rect2D {
                offset: vk::Offset2D { x: x as i32, y: y as i32 },
                extent: vk::Extent2D { width: w, height: h },
            })
            .collect();
        dev.cmd_set_viewport(cb, 0, &vps);
        dev.cmd_set_scissor(cb, 0, &scissors);
        if let Some(vb) = &a.vertex_buffer {
            dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        }
        if let Some(q) = queries {
            dev.cmd_write_timestamp(cb, vk::PipelineStageFlags::TOP_OF_PIPE, q, 0);
        }
        // The extension is enabled where a mesh draw gets here (`check_draw`): its entry
        // point loads.
        let mesh = d.mesh_tasks.map(|_| ash::ext::mesh_shader::Device::new(&self.instance, dev));
        for _ in 0..draws {
            match (d.mesh_tasks, &mesh) {
                (Some([x, y, z]), Some(mesh)) => mesh.cmd_draw_mesh_tasks(cb, x, y, z),
                _ => dev.cmd_draw(cb, d.vertex_count, d.instance_count, 0, 0),
            }
        }
        // After the pass: drivers that bin draws (llvmpipe) rasterize at its end.
        dev.cmd_end_rendering(cb);
        if let Some(q) = queries {
            dev.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, q, 1);
        }
    }

    fn draw_in(&mut self, d: &Draw, s: &mut Scratch) -> Result<DrawResult, VkError> {
        self.check_draw(d)?;
        let dev = self.device.clone();
        // SAFETY (this block): create infos and their arrays outlive each call; every object
        // is recorded in `s` for destruction.
        unsafe {
            let r = self.draw_resources(d, s)?;
            let pipeline = self.draw_pipeline(d, r.layout, s)?;
            let a = self.draw_attachments(d, s)?;
            let readable: Vec<vk::Image> = a.rendered.iter().map(|(i, _, res)| res.map_or(*i, |r| r.0)).collect();
            let mut readbacks = Vec::new();
            for t in &d.targets {
                let size = color_texel_size(t.format).unwrap_or(16);
                let bytes = vec![0u8; size * (d.width * d.height * d.layers) as usize];
                readbacks.push(self.host_buffer(s, &bytes, vk::BufferUsageFlags::TRANSFER_DST)?);
            }

            // Commands.
            let alloc = vk::CommandBufferAllocateInfo::default()
                .command_pool(self.pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            let cb = dev.allocate_command_buffers(&alloc).map_err(vkr("vkAllocateCommandBuffers"))?[0];
            s.command_buffers.push((self.pool, cb));
            let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            dev.begin_command_buffer(cb, &begin).map_err(vkr("vkBeginCommandBuffer"))?;
            self.record_pass(cb, d, pipeline, &r, &a, 1, None);
            let to_transfer: Vec<vk::ImageMemoryBarrier> = readable
                .iter()
                .map(|&image| {
                    vk::ImageMemoryBarrier::default()
                        .image(image)
                        .subresource_range(color_range(d.layers))
                        .old_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                        .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                        .src_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
                        .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
                        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                })
                .collect();
            dev.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &to_transfer,
            );
            for (&image, hb) in readable.iter().zip(&readbacks) {
                let region = vk::BufferImageCopy::default()
                    .image_subresource(
                        vk::ImageSubresourceLayers::default()
                            .aspect_mask(vk::ImageAspectFlags::COLOR)
                            .layer_count(d.layers),
                    )
                    .image_extent(vk::Extent3D { width: d.width, height: d.height, depth: 1 });
                dev.cmd_copy_image_to_buffer(cb, image, vk::ImageLayout::TRANSFER_SRC_OPTIMAL, hb.buffer, &[region]);
            }
            super::barrier_to_host(&dev, cb, vk::PipelineStageFlags::ALL_GRAPHICS);
            dev.end_command_buffer(cb).map_err(vkr("vkEndCommandBuffer"))?;
            self.submit_and_wait(s, cb, d.timeout, "draw")?;
            let read = |hb: &HostBuffer| std::slice::from_raw_parts(hb.ptr, hb.len).to_vec();
            let targets = readbacks.iter().map(read).collect();
            let storage = d.buffers.iter().zip(&r.buffers).filter(|(b, _)| b.storage).map(|(b, hb)| {
                let mut v = read(hb);
                v.truncate(b.bytes.len());
                v
            });
            Ok(DrawResult { targets, storage: storage.collect() })
        }
    }

    /// Submits `cb` and waits for it at most `timeout`; a timeout or a lost device poisons
    /// the runner.
    ///
    /// SAFETY: `cb` was recorded on this device and `s` belongs to it.
    pub(super) unsafe fn submit_and_wait(
        &mut self,
        s: &mut Scratch,
        cb: vk::CommandBuffer,
        timeout: Duration,
        what: &str,
    ) -> Result<(), VkError> {
        let dev = &self.device;
        let fence = dev.create_fence(&vk::FenceCreateInfo::default(), None).map_err(vkr("vkCreateFence"))?;
        s.fences.push(fence);
        let cbs = [cb];
        let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
        dev.queue_submit(self.queue, &submit, fence).map_err(|e| {
            if e == vk::Result::ERROR_DEVICE_LOST {
                self.poisoned = true;
            }
            VkError::Vk { call: "vkQueueSubmit", result: e }
        })?;
        let nanos = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        match dev.wait_for_fences(&[fence], true, nanos) {
            Ok(()) => Ok(()),
            Err(vk::Result::TIMEOUT) => {
                self.poisoned = true;
                Err(VkError::Timeout { entry: what.to_string(), timeout })
            }
            Err(vk::Result::ERROR_DEVICE_LOST) => {
                self.poisoned = true;
                Err(VkError::DeviceLost { entry: what.to_string() })
            }
            Err(e) => {
                self.poisoned = true;
                Err(VkError::Vk { call: "vkWaitForFences", result: e })
            }
        }
    }
}

/// The stages that see a draw's descriptors: every graphics stage, and the task and mesh
/// stages of a mesh draw.
fn draw_visibility(d: &Draw) -> vk::ShaderStageFlags {
    if d.mesh_tasks.is_some() {
        vk::ShaderStageFlags::ALL_GRAPHICS | vk::ShaderStageFlags::TASK_EXT | vk::ShaderStageFlags::MESH_EXT
    } else {
        vk::ShaderStageFlags::ALL_GRAPHICS
    }
}

fn buffer_type(b: &BufferBinding) -> vk::DescriptorType {
    if b.storage {
        vk::DescriptorType::STORAGE_BUFFER
    } else {
        vk::DescriptorType::UNIFORM_BUFFER
    }
}

fn color_range(layers: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange::default().aspect_mask(vk::ImageAspectFlags::COLOR).level_count(1).layer_count(layers)
}
