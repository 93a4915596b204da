//! [`Opt`] back to its C structure: the inverse of [`super::decode`], so that a decoded
//! configuration can be handed to dxil-spirv again (the shadow run, [`crate::shadow`]).
//!
//! An [`EncodedOption`] owns its structure and whatever the structure points to (the output
//! swizzle's array, the source file's name): dxil-spirv keeps the swizzle pointer until its
//! run, so the encoded option must outlive the run it is added for. Booleans are written as
//! `DXIL_SPV_TRUE` / `DXIL_SPV_FALSE` (the decoded form keeps only their truth).

use super::Opt;
use crate::ffi::*;
use std::any::Any;
use std::ffi::CString;

/// One option as `dxil_spv_converter_add_option` takes it, with the memory it points to.
pub struct EncodedOption {
    /// The option structure (its first member is the `dxil_spv_option_base`).
    structure: Box<dyn Any>,
    /// Where `structure` lies (a thin pointer to its first member).
    base: *const dxil_spv_option_base,
    /// What the structure's pointers point to; never read, only kept alive.
    _swizzles: Vec<u32>,
    _name: Option<CString>,
}

impl EncodedOption {
    fn new<T: 'static>(structure: T) -> EncodedOption {
        let structure = Box::new(structure);
        let base = &*structure as *const T as *const dxil_spv_option_base;
        EncodedOption { structure, base, _swizzles: Vec::new(), _name: None }
    }

    /// The structure, for `dxil_spv_converter_add_option`; valid while `self` lives.
    pub fn as_ptr(&self) -> *const dxil_spv_option_base {
        debug_assert!(std::ptr::eq(self.base as *const u8, &*self.structure as *const dyn Any as *const u8));
        self.base
    }
}

fn t(v: bool) -> dxil_spv_bool {
    if v {
        DXIL_SPV_TRUE
    } else {
        DXIL_SPV_FALSE
    }
}

/// `$ty { base: $tag, fields }` as an [`EncodedOption`].
macro_rules! c {
    ($ty:ident, $tag:ident { $($f:ident: $v:expr),* $(,)? }) => {
        EncodedOption::new($ty { base: dxil_spv_option_base { type_: $tag }, $($f: $v),* })
    };
}

/// The C structure of `opt`.
pub fn encode(opt: &Opt) -> EncodedOption {
    match opt {
        Opt::ShaderDemoteToHelper { supported } => {
            c!(
                dxil_spv_option_shader_demote_to_helper,
                DXIL_SPV_OPTION_SHADER_DEMOTE_TO_HELPER { supported: t(*supported) }
            )
        }
        Opt::DualSourceBlending { enabled } => {
            c!(dxil_spv_option_dual_source_blending, DXIL_SPV_OPTION_DUAL_SOURCE_BLENDING { enabled: t(*enabled) })
        }
        Opt::OutputSwizzle { swizzles, swizzle_count } => encode_output_swizzle(swizzles, *swizzle_count),
        Opt::RasterizerSampleCount { sample_count, spec_constant } => c!(
            dxil_spv_option_rasterizer_sample_count,
            DXIL_SPV_OPTION_RASTERIZER_SAMPLE_COUNT { sample_count: *sample_count, spec_constant: t(*spec_constant) }
        ),
        Opt::RootConstantInlineUniformBlock { desc_set, binding, enable } => c!(
            dxil_spv_option_root_constant_inline_uniform_block,
            DXIL_SPV_OPTION_ROOT_CONSTANT_INLINE_UNIFORM_BLOCK {
                desc_set: *desc_set,
                binding: *binding,
                enable: t(*enable)
            }
        ),
        Opt::BindlessCbvSsboEmulation { enable } => c!(
            dxil_spv_option_bindless_cbv_ssbo_emulation,
            DXIL_SPV_OPTION_BINDLESS_CBV_SSBO_EMULATION { enable: t(*enable) }
        ),
        Opt::PhysicalStorageBuffer { enable } => {
            c!(dxil_spv_option_physical_storage_buffer, DXIL_SPV_OPTION_PHYSICAL_STORAGE_BUFFER { enable: t(*enable) })
        }
        Opt::SbtDescriptorSizeLog2 { size_log2_srv_uav_cbv, size_log2_sampler } => c!(
            dxil_spv_option_sbt_descriptor_size_log2,
            DXIL_SPV_OPTION_SBT_DESCRIPTOR_SIZE_LOG2 {
                size_log2_srv_uav_cbv: *size_log2_srv_uav_cbv,
                size_log2_sampler: *size_log2_sampler
            }
        ),
        Opt::SsboAlignment { alignment } => {
            c!(dxil_spv_option_ssbo_alignment, DXIL_SPV_OPTION_SSBO_ALIGNMENT { alignment: *alignment })
        }
        Opt::TypedUavReadWithoutFormat { supported } => c!(
            dxil_spv_option_typed_uav_read_without_format,
            DXIL_SPV_OPTION_TYPED_UAV_READ_WITHOUT_FORMAT { supported: t(*supported) }
        ),
        Opt::ShaderSourceFile { name } => encode_shader_source_file(name.as_deref()),
        Opt::BindlessTypedBufferOffsets { enable } => c!(
            dxil_spv_option_bindless_typed_buffer_offsets,
            DXIL_SPV_OPTION_BINDLESS_TYPED_BUFFER_OFFSETS { enable: t(*enable) }
        ),
        Opt::BindlessOffsetBufferLayout { untyped_offset, typed_offset, stride } => c!(
            dxil_spv_option_bindless_offset_buffer_layout,
            DXIL_SPV_OPTION_BINDLESS_OFFSET_BUFFER_LAYOUT {
                untyped_offset: *untyped_offset,
                typed_offset: *typed_offset,
                stride: *stride
            }
        ),
        Opt::StorageInputOutput16bit { supported } => c!(
            dxil_spv_option_storage_input_output_16bit,
            DXIL_SPV_OPTION_STORAGE_INPUT_OUTPUT_16BIT { supported: t(*supported) }
        ),
        Opt::DescriptorQa {
            enabled,
            version,
            global_desc_set,
            global_binding,
            heap_desc_set,
            heap_binding,
            shader_hash,
        } => c!(
            dxil_spv_option_descriptor_qa,
            DXIL_SPV_OPTION_DESCRIPTOR_QA {
                enabled: t(*enabled),
                version: *version,
                global_desc_set: *global_desc_set,
                global_binding: *global_binding,
                heap_desc_set: *heap_desc_set,
                heap_binding: *heap_binding,
                shader_hash: *shader_hash,
            }
        ),
        Opt::MinPrecisionNative16bit { enabled } => c!(
            dxil_spv_option_min_precision_native_16bit,
            DXIL_SPV_OPTION_MIN_PRECISION_NATIVE_16BIT { enabled: t(*enabled) }
        ),
        Opt::ShaderI8Dot { supported } => {
            c!(dxil_spv_option_shader_i8_dot, DXIL_SPV_OPTION_SHADER_I8_DOT { supported: t(*supported) })
        }
        Opt::ShaderRayTracingPrimitiveCulling { supported } => c!(
            dxil_spv_option_shader_ray_tracing_primitive_culling,
            DXIL_SPV_OPTION_SHADER_RAY_TRACING_PRIMITIVE_CULLING { supported: t(*supported) }
        ),
        Opt::InvariantPosition { enabled } => {
            c!(dxil_spv_option_invariant_position, DXIL_SPV_OPTION_INVARIANT_POSITION { enabled: t(*enabled) })
        }
        Opt::ScalarBlockLayout { supported, supports_per_component_robustness } => c!(
            dxil_spv_option_scalar_block_layout,
            DXIL_SPV_OPTION_SCALAR_BLOCK_LAYOUT {
                supported: t(*supported),
                supports_per_component_robustness: t(*supports_per_component_robustness)
            }
        ),
        Opt::BarycentricKhr { supported } => {
            c!(dxil_spv_option_barycentric_khr, DXIL_SPV_OPTION_BARYCENTRIC_KHR { supported: t(*supported) })
        }
        Opt::RobustPhysicalCbvLoad { enabled } => c!(
            dxil_spv_option_robust_physical_cbv_load,
            DXIL_SPV_OPTION_ROBUST_PHYSICAL_CBV_LOAD { enabled: t(*enabled) }
        ),
        Opt::ArithmeticRelaxedPrecision { enabled } => c!(
            dxil_spv_option_arithmetic_relaxed_precision,
            DXIL_SPV_OPTION_ARITHMETIC_RELAXED_PRECISION { enabled: t(*enabled) }
        ),
        Opt::PhysicalAddressDescriptorIndexing { element_stride, element_offset } => c!(
            dxil_spv_option_physical_address_descriptor_indexing,
            DXIL_SPV_OPTION_PHYSICAL_ADDRESS_DESCRIPTOR_INDEXING {
                element_stride: *element_stride,
                element_offset: *element_offset
            }
        ),
        Opt::ForceSubgroupSize { forced_value, wave_size_enable } => c!(
            dxil_spv_option_force_subgroup_size,
            DXIL_SPV_OPTION_FORCE_SUBGROUP_SIZE { forced_value: *forced_value, wave_size_enable: t(*wave_size_enable) }
        ),
        Opt::DenormPreserveSupport { supports_float16_denorm_preserve, supports_float64_denorm_preserve } => c!(
            dxil_spv_option_denorm_preserve_support,
            DXIL_SPV_OPTION_DENORM_PRESERVE_SUPPORT {
                supports_float16_denorm_preserve: t(*supports_float16_denorm_preserve),
                supports_float64_denorm_preserve: t(*supports_float64_denorm_preserve)
            }
        ),
        Opt::StrictHelperLaneWaveOps { enable } => c!(
            dxil_spv_option_strict_helper_lane_wave_ops,
            DXIL_SPV_OPTION_STRICT_HELPER_LANE_WAVE_OPS { enable: t(*enable) }
        ),
        Opt::SubgroupPartitionedNv { supported } => c!(
            dxil_spv_option_subgroup_partitioned_nv,
            DXIL_SPV_OPTION_SUBGROUP_PARTITIONED_NV { supported: t(*supported) }
        ),
        Opt::DeadCodeEliminate { enabled } => {
            c!(dxil_spv_option_dead_code_eliminate, DXIL_SPV_OPTION_DEAD_CODE_ELIMINATE { enabled: t(*enabled) })
        }
        Opt::PreciseControl { force_precise, propagate_precise } => c!(
            dxil_spv_option_precise_control,
            DXIL_SPV_OPTION_PRECISE_CONTROL {
                force_precise: t(*force_precise),
                propagate_precise: t(*propagate_precise)
            }
        ),
        Opt::SampleGradOptimizationControl { enabled, assume_uniform_scale } => c!(
            dxil_spv_option_sample_grad_optimization_control,
            DXIL_SPV_OPTION_SAMPLE_GRAD_OPTIMIZATION_CONTROL {
                enabled: t(*enabled),
                assume_uniform_scale: t(*assume_uniform_scale)
            }
        ),
        Opt::OpacityMicromap { enabled } => {
            c!(dxil_spv_option_opacity_micromap, DXIL_SPV_OPTION_OPACITY_MICROMAP { enabled: t(*enabled) })
        }
        Opt::BranchControl { use_shader_metadata, force_unroll, force_loop, force_flatten, force_branch } => c!(
            dxil_spv_option_branch_control,
            DXIL_SPV_OPTION_BRANCH_CONTROL {
                use_shader_metadata: t(*use_shader_metadata),
                force_unroll: t(*force_unroll),
                force_loop: t(*force_loop),
                force_flatten: t(*force_flatten),
                force_branch: t(*force_branch),
            }
        ),
        Opt::SubgroupProperties { minimum_size, maximum_size } => c!(
            dxil_spv_option_subgroup_properties,
            DXIL_SPV_OPTION_SUBGROUP_PROPERTIES { minimum_size: *minimum_size, maximum_size: *maximum_size }
        ),
        Opt::DescriptorHeapRobustness { enabled } => c!(
            dxil_spv_option_descriptor_heap_robustness,
            DXIL_SPV_OPTION_DESCRIPTOR_HEAP_ROBUSTNESS { enabled: t(*enabled) }
        ),
        Opt::ComputeShaderDerivativesNv { supported } => c!(
            dxil_spv_option_compute_shader_derivatives_nv,
            DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES_NV { supported: t(*supported) }
        ),
        Opt::QuadControlReconvergence {
            supports_quad_control,
            supports_maximal_reconvergence,
            force_maximal_reconvergence,
        } => c!(
            dxil_spv_option_quad_control_reconvergence,
            DXIL_SPV_OPTION_QUAD_CONTROL_RECONVERGENCE {
                supports_quad_control: t(*supports_quad_control),
                supports_maximal_reconvergence: t(*supports_maximal_reconvergence),
                force_maximal_reconvergence: t(*force_maximal_reconvergence),
            }
        ),
        Opt::RawAccessChainsNv { supported } => {
            c!(dxil_spv_option_raw_access_chains_nv, DXIL_SPV_OPTION_RAW_ACCESS_CHAINS_NV { supported: t(*supported) })
        }
        Opt::DriverVersion { driver_id, driver_version } => c!(
            dxil_spv_option_driver_version,
            DXIL_SPV_OPTION_DRIVER_VERSION { driver_id: *driver_id, driver_version: *driver_version }
        ),
        Opt::ComputeShaderDerivatives { supports_nv, supports_khr } => c!(
            dxil_spv_option_compute_shader_derivatives,
            DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES { supports_nv: t(*supports_nv), supports_khr: t(*supports_khr) }
        ),
        Opt::InstructionInstrumentation {
            enabled,
            version,
            control_desc_set,
            control_binding,
            payload_desc_set,
            payload_binding,
            shader_hash,
            instrumentation_type,
        } => c!(
            dxil_spv_option_instruction_instrumentation,
            DXIL_SPV_OPTION_INSTRUCTION_INSTRUMENTATION {
                enabled: t(*enabled),
                version: *version,
                control_desc_set: *control_desc_set,
                control_binding: *control_binding,
                payload_desc_set: *payload_desc_set,
                payload_binding: *payload_binding,
                shader_hash: *shader_hash,
                type_: *instrumentation_type,
            }
        ),
        Opt::ShaderQuirk { quirk, .. } => {
            c!(dxil_spv_option_shader_quirk, DXIL_SPV_OPTION_SHADER_QUIRK { quirk: *quirk })
        }
        Opt::ExtendedRobustness { robust_group_shared, robust_alloca, robust_constant_lut } => c!(
            dxil_spv_option_extended_robustness,
            DXIL_SPV_OPTION_EXTENDED_ROBUSTNESS {
                robust_group_shared: t(*robust_group_shared),
                robust_alloca: t(*robust_alloca),
                robust_constant_lut: t(*robust_constant_lut),
            }
        ),
        Opt::MaxTessFactor { max_tess_factor } => {
            c!(dxil_spv_option_max_tess_factor, DXIL_SPV_OPTION_MAX_TESS_FACTOR { max_tess_factor: *max_tess_factor })
        }
        Opt::VulkanMemoryModel { enabled } => {
            c!(dxil_spv_option_vulkan_memory_model, DXIL_SPV_OPTION_VULKAN_MEMORY_MODEL { enabled: t(*enabled) })
        }
        Opt::Float8Support { wmma_fp8, nv_cooperative_matrix2_conversions } => c!(
            dxil_spv_option_float8_support,
            DXIL_SPV_OPTION_FLOAT8_SUPPORT {
                wmma_fp8: t(*wmma_fp8),
                nv_cooperative_matrix2_conversions: t(*nv_cooperative_matrix2_conversions)
            }
        ),
        Opt::Nvapi { enabled, register_index, register_space } => c!(
            dxil_spv_option_nvapi,
            DXIL_SPV_OPTION_NVAPI {
                enabled: t(*enabled),
                register_index: *register_index,
                register_space: *register_space
            }
        ),
        Opt::ExtendedNonSemantic { enabled } => {
            c!(dxil_spv_option_extended_non_semantic, DXIL_SPV_OPTION_EXTENDED_NON_SEMANTIC { enabled: t(*enabled) })
        }
        Opt::ViewInstancing {
            enabled,
            last_pre_rasterization_stage,
            view_index_to_view_instance_spec_id,
            view_instance_to_viewport_spec_id,
        } => c!(
            dxil_spv_option_view_instancing,
            DXIL_SPV_OPTION_VIEW_INSTANCING {
                enabled: t(*enabled),
                last_pre_rasterization_stage: t(*last_pre_rasterization_stage),
                view_index_to_view_instance_spec_id: *view_index_to_view_instance_spec_id,
                view_instance_to_viewport_spec_id: *view_instance_to_viewport_spec_id,
            }
        ),
        Opt::MixedFloatDotProduct { fp16_fp16_fp32, reserved } => c!(
            dxil_spv_option_mixed_float_dot_product,
            DXIL_SPV_OPTION_MIXED_FLOAT_DOT_PRODUCT { fp16_fp16_fp32: t(*fp16_fp16_fp32), reserved: reserved.map(t) }
        ),
        Opt::ComputeShaderDerivativesQuad { supports_quad } => c!(
            dxil_spv_option_compute_shader_derivatives_quad,
            DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES_QUAD { supports_quad: t(*supports_quad) }
        ),
    }
}

/// The swizzle array is owned by the encoded option (NULL when it was empty or NULL).
fn encode_output_swizzle(swizzles: &[u32], count: u32) -> EncodedOption {
    let owned = swizzles.to_vec();
    let ptr = if owned.is_empty() { std::ptr::null() } else { owned.as_ptr() };
    let mut e =
        c!(dxil_spv_option_output_swizzle, DXIL_SPV_OPTION_OUTPUT_SWIZZLE { swizzles: ptr, swizzle_count: count });
    e._swizzles = owned;
    e
}

fn encode_shader_source_file(name: Option<&str>) -> EncodedOption {
    let owned = name.map(|n| CString::new(n.replace('\0', "")).unwrap_or_default());
    let ptr = owned.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
    let mut e = c!(dxil_spv_option_shader_source_file, DXIL_SPV_OPTION_SHADER_SOURCE_FILE { name: ptr });
    e._name = owned;
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::decode;

    /// One option of every type, with fields set to values that tell them apart.
    fn every_option() -> Vec<Opt> {
        let json = r#"[
            {"type": "shader_demote_to_helper", "supported": true},
            {"type": "dual_source_blending", "enabled": true},
            {"type": "output_swizzle", "swizzles": [1, 2, 3], "swizzle_count": 3},
            {"type": "output_swizzle", "swizzles": [], "swizzle_count": 0},
            {"type": "rasterizer_sample_count", "sample_count": 4, "spec_constant": true},
            {"type": "root_constant_inline_uniform_block", "desc_set": 3, "binding": 4, "enable": true},
            {"type": "bindless_cbv_ssbo_emulation", "enable": true},
            {"type": "physical_storage_buffer", "enable": false},
            {"type": "sbt_descriptor_size_log2", "size_log2_srv_uav_cbv": 5, "size_log2_sampler": 6},
            {"type": "ssbo_alignment", "alignment": 16},
            {"type": "typed_uav_read_without_format", "supported": true},
            {"type": "shader_source_file", "name": "a.hlsl"},
            {"type": "shader_source_file", "name": null},
            {"type": "bindless_typed_buffer_offsets", "enable": true},
            {"type": "bindless_offset_buffer_layout", "untyped_offset": 1, "typed_offset": 2, "stride": 3},
            {"type": "storage_input_output16bit", "supported": true},
            {"type": "descriptor_qa", "enabled": true, "version": 1, "global_desc_set": 2, "global_binding": 3,
             "heap_desc_set": 4, "heap_binding": 5, "shader_hash": 20015998343868},
            {"type": "min_precision_native16bit", "enabled": true},
            {"type": "shader_i8_dot", "supported": true},
            {"type": "shader_ray_tracing_primitive_culling", "supported": true},
            {"type": "invariant_position", "enabled": true},
            {"type": "scalar_block_layout", "supported": true, "supports_per_component_robustness": false},
            {"type": "barycentric_khr", "supported": true},
            {"type": "robust_physical_cbv_load", "enabled": true},
            {"type": "arithmetic_relaxed_precision", "enabled": true},
            {"type": "physical_address_descriptor_indexing", "element_stride": 8, "element_offset": 2},
            {"type": "force_subgroup_size", "forced_value": 32, "wave_size_enable": true},
            {"type": "denorm_preserve_support", "supports_float16_denorm_preserve": true,
             "supports_float64_denorm_preserve": false},
            {"type": "strict_helper_lane_wave_ops", "enable": true},
            {"type": "subgroup_partitioned_nv", "supported": true},
            {"type": "dead_code_eliminate", "enabled": true},
            {"type": "precise_control", "force_precise": false, "propagate_precise": true},
            {"type": "sample_grad_optimization_control", "enabled": true, "assume_uniform_scale": false},
            {"type": "opacity_micromap", "enabled": true},
            {"type": "branch_control", "use_shader_metadata": true, "force_unroll": false, "force_loop": true,
             "force_flatten": false, "force_branch": true},
            {"type": "subgroup_properties", "minimum_size": 16, "maximum_size": 64},
            {"type": "descriptor_heap_robustness", "enabled": true},
            {"type": "compute_shader_derivatives_nv", "supported": true},
            {"type": "quad_control_reconvergence", "supports_quad_control": true,
             "supports_maximal_reconvergence": false, "force_maximal_reconvergence": true},
            {"type": "raw_access_chains_nv", "supported": true},
            {"type": "driver_version", "driver_id": 4, "driver_version": 555},
            {"type": "compute_shader_derivatives", "supports_nv": false, "supports_khr": true},
            {"type": "instruction_instrumentation", "enabled": true, "version": 1, "control_desc_set": 2,
             "control_binding": 3, "payload_desc_set": 4, "payload_binding": 5, "shader_hash": 77,
             "instrumentation_type": 1},
            {"type": "extended_robustness", "robust_group_shared": true, "robust_alloca": false,
             "robust_constant_lut": true},
            {"type": "max_tess_factor", "max_tess_factor": 32},
            {"type": "vulkan_memory_model", "enabled": true},
            {"type": "float8_support", "wmma_fp8": true, "nv_cooperative_matrix2_conversions": false},
            {"type": "nvapi", "enabled": true, "register_index": 7, "register_space": 8},
            {"type": "extended_non_semantic", "enabled": true},
            {"type": "view_instancing", "enabled": true, "last_pre_rasterization_stage": false,
             "view_index_to_view_instance_spec_id": 9, "view_instance_to_viewport_spec_id": 10},
            {"type": "mixed_float_dot_product", "fp16_fp16_fp32": true, "reserved": [false, true, false, true]},
            {"type": "compute_shader_derivatives_quad", "supports_quad": true}
        ]"#;
        let mut options: Vec<Opt> = serde_json::from_str(json).expect("every option reads");
        options.push(Opt::ShaderQuirk { quirk: 1, quirk_name: shader_quirk_name(1) });
        options
    }

    #[test]
    fn encode_is_the_inverse_of_decode() {
        let options = every_option();
        let types: std::collections::BTreeSet<u32> = options
            .iter()
            .map(|o| {
                let e = encode(o);
                // SAFETY: the encoded structure of the type its base names.
                unsafe { (*e.as_ptr()).type_ }
            })
            .collect();
        assert_eq!(types.len() as u32, DXIL_SPV_OPTION_COUNT - 1, "an option type has no case here");
        for o in &options {
            let e = encode(o);
            // SAFETY: as above; the pointed-to memory lives in `e`.
            let back = unsafe { decode(e.as_ptr()) };
            assert_eq!(back.as_ref(), Ok(o));
        }
    }
}
