//! `dxil_spv_converter_add_option` decoded: one [`Opt`] per option structure, every field
//! kept (what each means is the translator's business: `untangle_path`), and the rest of a
//! converter's configuration ([`ConverterSetup`]).
//!
//! Pointers in options are read when the option is added: the output swizzle's array is
//! copied (dxil-spirv keeps the pointer and reads it at run time; vkd3d-proton keeps the
//! array alive until then, so the copy reads the same values), the source file name too.
//! [`encode`] turns an [`Opt`] back into its C structure (to hand the setup to dxil-spirv).

use crate::ffi::*;
use serde::{Deserialize, Serialize};
use std::ffi::CStr;

mod encode;
pub use encode::{encode, EncodedOption};

/// One option, decoded. Serializes as `{"type": "<option name>", <fields>}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Opt {
    ShaderDemoteToHelper {
        supported: bool,
    },
    DualSourceBlending {
        enabled: bool,
    },
    OutputSwizzle {
        swizzles: Vec<u32>,
        swizzle_count: u32,
    },
    RasterizerSampleCount {
        sample_count: u32,
        spec_constant: bool,
    },
    RootConstantInlineUniformBlock {
        desc_set: u32,
        binding: u32,
        enable: bool,
    },
    BindlessCbvSsboEmulation {
        enable: bool,
    },
    PhysicalStorageBuffer {
        enable: bool,
    },
    SbtDescriptorSizeLog2 {
        size_log2_srv_uav_cbv: u32,
        size_log2_sampler: u32,
    },
    SsboAlignment {
        alignment: u32,
    },
    TypedUavReadWithoutFormat {
        supported: bool,
    },
    ShaderSourceFile {
        name: Option<String>,
    },
    BindlessTypedBufferOffsets {
        enable: bool,
    },
    BindlessOffsetBufferLayout {
        untyped_offset: u32,
        typed_offset: u32,
        stride: u32,
    },
    StorageInputOutput16bit {
        supported: bool,
    },
    DescriptorQa {
        enabled: bool,
        version: u32,
        global_desc_set: u32,
        global_binding: u32,
        heap_desc_set: u32,
        heap_binding: u32,
        shader_hash: u64,
    },
    MinPrecisionNative16bit {
        enabled: bool,
    },
    ShaderI8Dot {
        supported: bool,
    },
    ShaderRayTracingPrimitiveCulling {
        supported: bool,
    },
    InvariantPosition {
        enabled: bool,
    },
    ScalarBlockLayout {
        supported: bool,
        supports_per_component_robustness: bool,
    },
    BarycentricKhr {
        supported: bool,
    },
    RobustPhysicalCbvLoad {
        enabled: bool,
    },
    ArithmeticRelaxedPrecision {
        enabled: bool,
    },
    PhysicalAddressDescriptorIndexing {
        element_stride: u32,
        element_offset: u32,
    },
    ForceSubgroupSize {
        forced_value: u32,
        wave_size_enable: bool,
    },
    DenormPreserveSupport {
        supports_float16_denorm_preserve: bool,
        supports_float64_denorm_preserve: bool,
    },
    StrictHelperLaneWaveOps {
        enable: bool,
    },
    SubgroupPartitionedNv {
        supported: bool,
    },
    DeadCodeEliminate {
        enabled: bool,
    },
    PreciseControl {
        force_precise: bool,
        propagate_precise: bool,
    },
    SampleGradOptimizationControl {
        enabled: bool,
        assume_uniform_scale: bool,
    },
    OpacityMicromap {
        enabled: bool,
    },
    BranchControl {
        use_shader_metadata: bool,
        force_unroll: bool,
        force_loop: bool,
        force_flatten: bool,
        force_branch: bool,
    },
    SubgroupProperties {
        minimum_size: u32,
        maximum_size: u32,
    },
    DescriptorHeapRobustness {
        enabled: bool,
    },
    ComputeShaderDerivativesNv {
        supported: bool,
    },
    QuadControlReconvergence {
        supports_quad_control: bool,
        supports_maximal_reconvergence: bool,
        force_maximal_reconvergence: bool,
    },
    RawAccessChainsNv {
        supported: bool,
    },
    DriverVersion {
        driver_id: u32,
        driver_version: u32,
    },
    ComputeShaderDerivatives {
        supports_nv: bool,
        supports_khr: bool,
    },
    InstructionInstrumentation {
        enabled: bool,
        version: u32,
        control_desc_set: u32,
        control_binding: u32,
        payload_desc_set: u32,
        payload_binding: u32,
        shader_hash: u64,
        /// `dxil_spv_instruction_instrumentation_type` (the number; `instrumentation_type_name`).
        instrumentation_type: u32,
    },
    ShaderQuirk {
        quirk: u32,
        quirk_name: Option<String>,
    },
    ExtendedRobustness {
        robust_group_shared: bool,
        robust_alloca: bool,
        robust_constant_lut: bool,
    },
    MaxTessFactor {
        max_tess_factor: u32,
    },
    VulkanMemoryModel {
        enabled: bool,
    },
    Float8Support {
        wmma_fp8: bool,
        nv_cooperative_matrix2_conversions: bool,
    },
    Nvapi {
        enabled: bool,
        register_index: u32,
        register_space: u32,
    },
    ExtendedNonSemantic {
        enabled: bool,
    },
    ViewInstancing {
        enabled: bool,
        last_pre_rasterization_stage: bool,
        view_index_to_view_instance_spec_id: u32,
        view_instance_to_viewport_spec_id: u32,
    },
    MixedFloatDotProduct {
        fp16_fp16_fp32: bool,
        reserved: [bool; 4],
    },
    ComputeShaderDerivativesQuad {
        supports_quad: bool,
    },
}

/// dxil-spirv's reading of a `dxil_spv_bool` in options: most fields are any non-zero value,
/// a few compare with DXIL_SPV_TRUE; the record keeps the raw truth (non-zero).
fn b(v: dxil_spv_bool) -> bool {
    v != 0
}

/// Why an option was not taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// Not a type this API knows (`dxil_spv_converter_add_option` returns
    /// `DXIL_SPV_ERROR_UNSUPPORTED_FEATURE`).
    Unknown(u32),
}

/// Decodes the option structure `option` points to.
///
/// # Safety
/// `option` points to the structure its `type` names (as the API requires).
pub unsafe fn decode(option: *const dxil_spv_option_base) -> Result<Opt, OptionError> {
    macro_rules! get {
        ($t:ty) => {
            &*(option as *const $t)
        };
    }
    let ty = (*option).type_;
    Ok(match ty {
        DXIL_SPV_OPTION_SHADER_DEMOTE_TO_HELPER => {
            Opt::ShaderDemoteToHelper { supported: b(get!(dxil_spv_option_shader_demote_to_helper).supported) }
        }
        DXIL_SPV_OPTION_DUAL_SOURCE_BLENDING => {
            Opt::DualSourceBlending { enabled: b(get!(dxil_spv_option_dual_source_blending).enabled) }
        }
        DXIL_SPV_OPTION_OUTPUT_SWIZZLE => {
            let o = get!(dxil_spv_option_output_swizzle);
            let swizzles = if o.swizzles.is_null() || o.swizzle_count == 0 {
                Vec::new()
            } else {
                std::slice::from_raw_parts(o.swizzles, o.swizzle_count as usize).to_vec()
            };
            Opt::OutputSwizzle { swizzles, swizzle_count: o.swizzle_count }
        }
        DXIL_SPV_OPTION_RASTERIZER_SAMPLE_COUNT => {
            let o = get!(dxil_spv_option_rasterizer_sample_count);
            Opt::RasterizerSampleCount { sample_count: o.sample_count, spec_constant: b(o.spec_constant) }
        }
        DXIL_SPV_OPTION_ROOT_CONSTANT_INLINE_UNIFORM_BLOCK => {
            let o = get!(dxil_spv_option_root_constant_inline_uniform_block);
            Opt::RootConstantInlineUniformBlock { desc_set: o.desc_set, binding: o.binding, enable: b(o.enable) }
        }
        DXIL_SPV_OPTION_BINDLESS_CBV_SSBO_EMULATION => {
            Opt::BindlessCbvSsboEmulation { enable: b(get!(dxil_spv_option_bindless_cbv_ssbo_emulation).enable) }
        }
        DXIL_SPV_OPTION_PHYSICAL_STORAGE_BUFFER => {
            Opt::PhysicalStorageBuffer { enable: b(get!(dxil_spv_option_physical_storage_buffer).enable) }
        }
        DXIL_SPV_OPTION_SBT_DESCRIPTOR_SIZE_LOG2 => {
            let o = get!(dxil_spv_option_sbt_descriptor_size_log2);
            Opt::SbtDescriptorSizeLog2 {
                size_log2_srv_uav_cbv: o.size_log2_srv_uav_cbv,
                size_log2_sampler: o.size_log2_sampler,
            }
        }
        DXIL_SPV_OPTION_SSBO_ALIGNMENT => {
            Opt::SsboAlignment { alignment: get!(dxil_spv_option_ssbo_alignment).alignment }
        }
        DXIL_SPV_OPTION_TYPED_UAV_READ_WITHOUT_FORMAT => Opt::TypedUavReadWithoutFormat {
            supported: b(get!(dxil_spv_option_typed_uav_read_without_format).supported),
        },
        DXIL_SPV_OPTION_SHADER_SOURCE_FILE => {
            let o = get!(dxil_spv_option_shader_source_file);
            let name = (!o.name.is_null()).then(|| CStr::from_ptr(o.name).to_string_lossy().into_owned());
            Opt::ShaderSourceFile { name }
        }
        DXIL_SPV_OPTION_BINDLESS_TYPED_BUFFER_OFFSETS => {
            Opt::BindlessTypedBufferOffsets { enable: b(get!(dxil_spv_option_bindless_typed_buffer_offsets).enable) }
        }
        DXIL_SPV_OPTION_BINDLESS_OFFSET_BUFFER_LAYOUT => {
            let o = get!(dxil_spv_option_bindless_offset_buffer_layout);
            Opt::BindlessOffsetBufferLayout {
                untyped_offset: o.untyped_offset,
                typed_offset: o.typed_offset,
                stride: o.stride,
            }
        }
        DXIL_SPV_OPTION_STORAGE_INPUT_OUTPUT_16BIT => {
            Opt::StorageInputOutput16bit { supported: b(get!(dxil_spv_option_storage_input_output_16bit).supported) }
        }
        DXIL_SPV_OPTION_DESCRIPTOR_QA => {
            let o = get!(dxil_spv_option_descriptor_qa);
            Opt::DescriptorQa {
                enabled: b(o.enabled),
                version: o.version,
                global_desc_set: o.global_desc_set,
                global_binding: o.global_binding,
                heap_desc_set: o.heap_desc_set,
                heap_binding: o.heap_binding,
                shader_hash: o.shader_hash,
            }
        }
        DXIL_SPV_OPTION_MIN_PRECISION_NATIVE_16BIT => {
            Opt::MinPrecisionNative16bit { enabled: b(get!(dxil_spv_option_min_precision_native_16bit).enabled) }
        }
        DXIL_SPV_OPTION_SHADER_I8_DOT => {
            Opt::ShaderI8Dot { supported: b(get!(dxil_spv_option_shader_i8_dot).supported) }
        }
        DXIL_SPV_OPTION_SHADER_RAY_TRACING_PRIMITIVE_CULLING => Opt::ShaderRayTracingPrimitiveCulling {
            supported: b(get!(dxil_spv_option_shader_ray_tracing_primitive_culling).supported),
        },
        DXIL_SPV_OPTION_INVARIANT_POSITION => {
            Opt::InvariantPosition { enabled: b(get!(dxil_spv_option_invariant_position).enabled) }
        }
        DXIL_SPV_OPTION_SCALAR_BLOCK_LAYOUT => {
            let o = get!(dxil_spv_option_scalar_block_layout);
            Opt::ScalarBlockLayout {
                supported: b(o.supported),
                supports_per_component_robustness: b(o.supports_per_component_robustness),
            }
        }
        DXIL_SPV_OPTION_BARYCENTRIC_KHR => {
            Opt::BarycentricKhr { supported: b(get!(dxil_spv_option_barycentric_khr).supported) }
        }
        DXIL_SPV_OPTION_ROBUST_PHYSICAL_CBV_LOAD => {
            Opt::RobustPhysicalCbvLoad { enabled: b(get!(dxil_spv_option_robust_physical_cbv_load).enabled) }
        }
        DXIL_SPV_OPTION_ARITHMETIC_RELAXED_PRECISION => {
            Opt::ArithmeticRelaxedPrecision { enabled: b(get!(dxil_spv_option_arithmetic_relaxed_precision).enabled) }
        }
        DXIL_SPV_OPTION_PHYSICAL_ADDRESS_DESCRIPTOR_INDEXING => {
            let o = get!(dxil_spv_option_physical_address_descriptor_indexing);
            Opt::PhysicalAddressDescriptorIndexing {
                element_stride: o.element_stride,
                element_offset: o.element_offset,
            }
        }
        DXIL_SPV_OPTION_FORCE_SUBGROUP_SIZE => {
            let o = get!(dxil_spv_option_force_subgroup_size);
            Opt::ForceSubgroupSize { forced_value: o.forced_value, wave_size_enable: b(o.wave_size_enable) }
        }
        DXIL_SPV_OPTION_DENORM_PRESERVE_SUPPORT => {
            let o = get!(dxil_spv_option_denorm_preserve_support);
            Opt::DenormPreserveSupport {
                supports_float16_denorm_preserve: b(o.supports_float16_denorm_preserve),
                supports_float64_denorm_preserve: b(o.supports_float64_denorm_preserve),
            }
        }
        DXIL_SPV_OPTION_STRICT_HELPER_LANE_WAVE_OPS => {
            Opt::StrictHelperLaneWaveOps { enable: b(get!(dxil_spv_option_strict_helper_lane_wave_ops).enable) }
        }
        DXIL_SPV_OPTION_SUBGROUP_PARTITIONED_NV => {
            Opt::SubgroupPartitionedNv { supported: b(get!(dxil_spv_option_subgroup_partitioned_nv).supported) }
        }
        DXIL_SPV_OPTION_DEAD_CODE_ELIMINATE => {
            Opt::DeadCodeEliminate { enabled: b(get!(dxil_spv_option_dead_code_eliminate).enabled) }
        }
        DXIL_SPV_OPTION_PRECISE_CONTROL => {
            let o = get!(dxil_spv_option_precise_control);
            Opt::PreciseControl { force_precise: b(o.force_precise), propagate_precise: b(o.propagate_precise) }
        }
        DXIL_SPV_OPTION_SAMPLE_GRAD_OPTIMIZATION_CONTROL => {
            let o = get!(dxil_spv_option_sample_grad_optimization_control);
            Opt::SampleGradOptimizationControl {
                enabled: b(o.enabled),
                assume_uniform_scale: b(o.assume_uniform_scale),
            }
        }
        DXIL_SPV_OPTION_OPACITY_MICROMAP => {
            Opt::OpacityMicromap { enabled: b(get!(dxil_spv_option_opacity_micromap).enabled) }
        }
        DXIL_SPV_OPTION_BRANCH_CONTROL => {
            let o = get!(dxil_spv_option_branch_control);
            Opt::BranchControl {
                use_shader_metadata: b(o.use_shader_metadata),
                force_unroll: b(o.force_unroll),
                force_loop: b(o.force_loop),
                force_flatten: b(o.force_flatten),
                force_branch: b(o.force_branch),
            }
        }
        DXIL_SPV_OPTION_SUBGROUP_PROPERTIES => {
            let o = get!(dxil_spv_option_subgroup_properties);
            Opt::SubgroupProperties { minimum_size: o.minimum_size, maximum_size: o.maximum_size }
        }
        DXIL_SPV_OPTION_DESCRIPTOR_HEAP_ROBUSTNESS => {
            Opt::DescriptorHeapRobustness { enabled: b(get!(dxil_spv_option_descriptor_heap_robustness).enabled) }
        }
        DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES_NV => Opt::ComputeShaderDerivativesNv {
            supported: b(get!(dxil_spv_option_compute_shader_derivatives_nv).supported),
        },
        DXIL_SPV_OPTION_QUAD_CONTROL_RECONVERGENCE => {
            let o = get!(dxil_spv_option_quad_control_reconvergence);
            Opt::QuadControlReconvergence {
                supports_quad_control: b(o.supports_quad_control),
                supports_maximal_reconvergence: b(o.supports_maximal_reconvergence),
                force_maximal_reconvergence: b(o.force_maximal_reconvergence),
            }
        }
        DXIL_SPV_OPTION_RAW_ACCESS_CHAINS_NV => {
            Opt::RawAccessChainsNv { supported: b(get!(dxil_spv_option_raw_access_chains_nv).supported) }
        }
        DXIL_SPV_OPTION_DRIVER_VERSION => {
            let o = get!(dxil_spv_option_driver_version);
            Opt::DriverVersion { driver_id: o.driver_id, driver_version: o.driver_version }
        }
        DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES => {
            let o = get!(dxil_spv_option_compute_shader_derivatives);
            Opt::ComputeShaderDerivatives { supports_nv: b(o.supports_nv), supports_khr: b(o.supports_khr) }
        }
        DXIL_SPV_OPTION_INSTRUCTION_INSTRUMENTATION => {
            let o = get!(dxil_spv_option_instruction_instrumentation);
            Opt::InstructionInstrumentation {
                enabled: b(o.enabled),
                version: o.version,
                control_desc_set: o.control_desc_set,
                control_binding: o.control_binding,
                payload_desc_set: o.payload_desc_set,
                payload_binding: o.payload_binding,
                shader_hash: o.shader_hash,
                instrumentation_type: o.type_,
            }
        }
        DXIL_SPV_OPTION_SHADER_QUIRK => {
            let quirk = get!(dxil_spv_option_shader_quirk).quirk;
            Opt::ShaderQuirk { quirk, quirk_name: shader_quirk_name(quirk) }
        }
        DXIL_SPV_OPTION_EXTENDED_ROBUSTNESS => {
            let o = get!(dxil_spv_option_extended_robustness);
            Opt::ExtendedRobustness {
                robust_group_shared: b(o.robust_group_shared),
                robust_alloca: b(o.robust_alloca),
                robust_constant_lut: b(o.robust_constant_lut),
            }
        }
        DXIL_SPV_OPTION_MAX_TESS_FACTOR => {
            Opt::MaxTessFactor { max_tess_factor: get!(dxil_spv_option_max_tess_factor).max_tess_factor }
        }
        DXIL_SPV_OPTION_VULKAN_MEMORY_MODEL => {
            Opt::VulkanMemoryModel { enabled: b(get!(dxil_spv_option_vulkan_memory_model).enabled) }
        }
        DXIL_SPV_OPTION_FLOAT8_SUPPORT => {
            let o = get!(dxil_spv_option_float8_support);
            Opt::Float8Support {
                wmma_fp8: b(o.wmma_fp8),
                nv_cooperative_matrix2_conversions: b(o.nv_cooperative_matrix2_conversions),
            }
        }
        DXIL_SPV_OPTION_NVAPI => {
            let o = get!(dxil_spv_option_nvapi);
            Opt::Nvapi { enabled: b(o.enabled), register_index: o.register_index, register_space: o.register_space }
        }
        DXIL_SPV_OPTION_EXTENDED_NON_SEMANTIC => {
            Opt::ExtendedNonSemantic { enabled: b(get!(dxil_spv_option_extended_non_semantic).enabled) }
        }
        DXIL_SPV_OPTION_VIEW_INSTANCING => {
            let o = get!(dxil_spv_option_view_instancing);
            Opt::ViewInstancing {
                enabled: b(o.enabled),
                last_pre_rasterization_stage: b(o.last_pre_rasterization_stage),
                view_index_to_view_instance_spec_id: o.view_index_to_view_instance_spec_id,
                view_instance_to_viewport_spec_id: o.view_instance_to_viewport_spec_id,
            }
        }
        DXIL_SPV_OPTION_MIXED_FLOAT_DOT_PRODUCT => {
            let o = get!(dxil_spv_option_mixed_float_dot_product);
            Opt::MixedFloatDotProduct { fp16_fp16_fp32: b(o.fp16_fp16_fp32), reserved: o.reserved.map(b) }
        }
        DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES_QUAD => Opt::ComputeShaderDerivativesQuad {
            supports_quad: b(get!(dxil_spv_option_compute_shader_derivatives_quad).supports_quad),
        },
        other => return Err(OptionError::Unknown(other)),
    })
}

/// A local root signature parameter (`dxil_spv_converter_add_local_root_*`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LocalRootParameter {
    Constants { register_space: u32, register_index: u32, num_words: u32 },
    Descriptor { resource_class: u32, register_space: u32, register_index: u32 },
    Table { entries: Vec<TableEntry> },
}

/// One range of a local root descriptor table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableEntry {
    pub resource_class: u32,
    pub register_space: u32,
    pub register_index: u32,
    pub num_descriptors_in_range: u32,
    pub offset_in_heap: u32,
}

/// `dxil_spv_converter_add_root_parameter_mapping` / `_add_root_descriptor_mapping`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RootParameterMapping {
    Offset { root_parameter_index: u32, offset: u32 },
    Descriptor { root_parameter_index: u32, desc_set: u32, binding: u32 },
}

/// `dxil_spv_converter_set_meta_descriptor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaDescriptor {
    pub meta: u32,
    pub kind: u32,
    pub desc_set: u32,
    pub binding_or_push_index: u32,
}

/// `dxil_spv_converter_add_non_semantic_debug_info`: the tag copied; the data stays the
/// application's until the run (as the header says).
#[derive(Clone, Debug)]
pub struct NonSemanticDebugInfo {
    pub tag: Option<String>,
    pub data: *const u8,
    pub size: usize,
}

/// Everything a converter was told before `dxil_spv_converter_run`, in the order told.
#[derive(Clone, Debug, Default)]
pub struct ConverterSetup {
    pub entry_point: Option<String>,
    pub options: Vec<Opt>,
    pub root_constant_word_count: u32,
    pub root_descriptor_count: u32,
    pub local_root_parameters: Vec<LocalRootParameter>,
    /// The table being built between `begin_` and `end_local_root_descriptor_table`.
    pub open_table: Option<Vec<TableEntry>>,
    pub root_parameter_mappings: Vec<RootParameterMapping>,
    pub non_semantic_debug_info: Vec<NonSemanticDebugInfo>,
    /// `dxil_spv_converter_set_patch_location_offset` (None: not set, dxil-spirv's UINT32_MAX).
    pub patch_location_offset: Option<u32>,
    pub meta_descriptors: Vec<MetaDescriptor>,
}

impl ConverterSetup {
    /// The last option of a kind (dxil-spirv applies options in order, so a later one of the
    /// same type overrides an earlier one).
    pub fn last(&self, pick: impl Fn(&Opt) -> bool) -> Option<&Opt> {
        self.options.iter().rev().find(|o| pick(o))
    }
}
