//! The C ABI of `include/dxil_spirv_c.h`: its types, enumerators and structures as Rust
//! `#[repr(C)]` definitions.
//!
//! Enumerations are plain integers with constants, never Rust enums: the application may pass
//! any value, and an out-of-range Rust enum would be undefined behaviour. Every enumeration
//! has a `*_name` function giving an enumerator's name without its prefix, lower case (what
//! the record files write). [`struct_layouts`] lists every structure with its fields' offsets:
//! `tests/header_abi.rs` checks them against the header.

#![allow(non_camel_case_types, non_upper_case_globals)]

use std::ffi::{c_char, c_uint, c_ulonglong, c_void};
use std::mem::{align_of, offset_of, size_of};

/// `dxil_spv_bool`: one byte, 0 or 1.
pub type dxil_spv_bool = u8;
pub const DXIL_SPV_TRUE: dxil_spv_bool = 1;
pub const DXIL_SPV_FALSE: dxil_spv_bool = 0;

pub const DXIL_SPV_API_VERSION_MAJOR: c_uint = 2;
pub const DXIL_SPV_API_VERSION_MINOR: c_uint = 66;
pub const DXIL_SPV_API_VERSION_PATCH: c_uint = 0;

/// Declares a C enumeration: a type alias, one constant per enumerator, `$table` (every
/// enumerator's name and value) and `$names(value)`, the enumerator's name without
/// `$prefix`, lower case.
macro_rules! c_enum {
    ($(#[$meta:meta])* $ty:ident: $repr:ty, $names:ident, $table:ident, $prefix:literal { $($name:ident = $value:expr),* $(,)? }) => {
        $(#[$meta])*
        pub type $ty = $repr;
        $(pub const $name: $ty = $value;)*
        /// Every enumerator with its value.
        pub const $table: &[(&str, i64)] = &[$((stringify!($name), $value as i64)),*];
        /// The enumerator's name without its prefix, lower case (`None` for other values).
        pub fn $names(value: $ty) -> Option<String> {
            $(if value == $name {
                let full = stringify!($name);
                return Some(full.strip_prefix($prefix).unwrap_or(full).to_ascii_lowercase());
            })*
            None
        }
    };
}

c_enum!(dxil_spv_result: i32, result_name, RESULT_ENUMERATORS, "DXIL_SPV_" {
    DXIL_SPV_SUCCESS = 0,
    DXIL_SPV_ERROR_OUT_OF_MEMORY = -1,
    DXIL_SPV_ERROR_GENERIC = -2,
    DXIL_SPV_ERROR_UNSUPPORTED_FEATURE = -3,
    DXIL_SPV_ERROR_PARSER = -4,
    DXIL_SPV_ERROR_FAILED_VALIDATION = -5,
    DXIL_SPV_ERROR_INVALID_ARGUMENT = -6,
    DXIL_SPV_ERROR_NO_DATA = -7,
    DXIL_SPV_RESULT_INT_MAX = 0x7fff_ffff,
});

c_enum!(dxil_spv_shader_stage: u32, stage_name, STAGE_ENUMERATORS, "DXIL_SPV_STAGE_" {
    DXIL_SPV_STAGE_UNKNOWN = 0,
    DXIL_SPV_STAGE_VERTEX = 1,
    DXIL_SPV_STAGE_HULL = 2,
    DXIL_SPV_STAGE_DOMAIN = 3,
    DXIL_SPV_STAGE_GEOMETRY = 4,
    DXIL_SPV_STAGE_PIXEL = 5,
    DXIL_SPV_STAGE_COMPUTE = 6,
    DXIL_SPV_STAGE_INTERSECTION = 7,
    DXIL_SPV_STAGE_CLOSEST_HIT = 8,
    DXIL_SPV_STAGE_MISS = 9,
    DXIL_SPV_STAGE_ANY_HIT = 10,
    DXIL_SPV_STAGE_RAY_GENERATION = 11,
    DXIL_SPV_STAGE_CALLABLE = 12,
    DXIL_SPV_STAGE_AMPLIFICATION = 13,
    DXIL_SPV_STAGE_MESH = 14,
    DXIL_SPV_STAGE_INT_MAX = 0x7fff_ffff,
});

c_enum!(dxil_spv_vulkan_shader_stage_io_flags: u32, stage_io_flag_name, STAGE_IO_FLAG_ENUMERATORS, "DXIL_SPV_SHADER_STAGE_IO_" {
    DXIL_SPV_SHADER_STAGE_IO_NONE = 0,
    DXIL_SPV_SHADER_STAGE_IO_PER_PRIMITIVE = 1,
});

c_enum!(dxil_spv_resource_kind: u32, resource_kind_name, RESOURCE_KIND_ENUMERATORS, "DXIL_SPV_RESOURCE_KIND_" {
    DXIL_SPV_RESOURCE_KIND_INVALID = 0,
    DXIL_SPV_RESOURCE_KIND_TEXTURE_1D = 1,
    DXIL_SPV_RESOURCE_KIND_TEXTURE_2D = 2,
    DXIL_SPV_RESOURCE_KIND_TEXTURE_2DMS = 3,
    DXIL_SPV_RESOURCE_KIND_TEXTURE_3D = 4,
    DXIL_SPV_RESOURCE_KIND_TEXTURE_CUBE = 5,
    DXIL_SPV_RESOURCE_KIND_TEXTURE_1D_ARRAY = 6,
    DXIL_SPV_RESOURCE_KIND_TEXTURE_2D_ARRAY = 7,
    DXIL_SPV_RESOURCE_KIND_TEXTURE_2D_MS_ARRAY = 8,
    DXIL_SPV_RESOURCE_KIND_TEXTURE_CUBE_ARRAY = 9,
    DXIL_SPV_RESOURCE_KIND_TYPED_BUFFER = 10,
    DXIL_SPV_RESOURCE_KIND_RAW_BUFFER = 11,
    DXIL_SPV_RESOURCE_KIND_STRUCTURED_BUFFER = 12,
    DXIL_SPV_RESOURCE_KIND_CONSTANT_BUFFER = 13,
    DXIL_SPV_RESOURCE_KIND_SAMPLER = 14,
    DXIL_SPV_RESOURCE_KIND_TBUFFER = 15,
    DXIL_SPV_RESOURCE_KIND_RT_ACCELERATION_STRUCTURE = 16,
    DXIL_SPV_RESOURCE_KIND_FEEDBACK_TEXTURE_2D = 17,
    DXIL_SPV_RESOURCE_KIND_FEEDBACK_TEXTURE_2D_ARRAY = 18,
    DXIL_SPV_RESOURCE_KIND_INT_MAX = 0x7fff_ffff,
});

c_enum!(dxil_spv_resource_class: u32, resource_class_name, RESOURCE_CLASS_ENUMERATORS, "DXIL_SPV_RESOURCE_CLASS_" {
    DXIL_SPV_RESOURCE_CLASS_SRV = 0,
    DXIL_SPV_RESOURCE_CLASS_UAV = 1,
    DXIL_SPV_RESOURCE_CLASS_CBV = 2,
    DXIL_SPV_RESOURCE_CLASS_SAMPLER = 3,
    DXIL_SPV_RESOURCE_CLASS_INT_MAX = 0x7fff_ffff,
});

c_enum!(dxil_spv_vulkan_descriptor_type: u32, descriptor_type_name, DESCRIPTOR_TYPE_ENUMERATORS, "DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_" {
    DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_IDENTITY = 0,
    DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_SSBO = 1,
    DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_TEXEL_BUFFER = 2,
    DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_BUFFER_DEVICE_ADDRESS = 3,
    DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_UBO = 4,
    DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_INPUT_ATTACHMENT = 5,
    DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_INT_MAX = 0x7fff_ffff,
});

c_enum!(dxil_spv_rdat_subobject_kind: u32, rdat_subobject_kind_name, RDAT_SUBOBJECT_KIND_ENUMERATORS, "DXIL_SPV_RDAT_SUBOBJECT_KIND_" {
    DXIL_SPV_RDAT_SUBOBJECT_KIND_STATE_OBJECT_CONFIG = 0,
    DXIL_SPV_RDAT_SUBOBJECT_KIND_GLOBAL_ROOT_SIGNATURE = 1,
    DXIL_SPV_RDAT_SUBOBJECT_KIND_LOCAL_ROOT_SIGNATURE = 2,
    DXIL_SPV_RDAT_SUBOBJECT_KIND_SUBOBJECT_TO_EXPORTS_ASSOCIATION = 8,
    DXIL_SPV_RDAT_SUBOBJECT_KIND_RAYTRACING_SHADER_CONFIG = 9,
    DXIL_SPV_RDAT_SUBOBJECT_KIND_RAYTRACING_PIPELINE_CONFIG = 10,
    DXIL_SPV_RDAT_SUBOBJECT_KIND_HIT_GROUP = 11,
    DXIL_SPV_RDAT_SUBOBJECT_KIND_RAYTRACING_PIPELINE_CONFIG1 = 12,
    DXIL_SPV_RDAT_SUBOBJECT_TYPE_INT_MAX = 0x7fff_ffff,
});

c_enum!(dxil_spv_hit_group_type: u32, hit_group_type_name, HIT_GROUP_TYPE_ENUMERATORS, "DXIL_SPV_HIT_GROUP_TYPE_" {
    DXIL_SPV_HIT_GROUP_TYPE_TRIANGLE = 0,
    DXIL_SPV_HIT_GROUP_TYPE_PROCEDURAL = 1,
    DXIL_SPV_HIT_GROUP_TYPE_INT_MAX = 0x7fff_ffff,
});

c_enum!(dxil_spv_shader_quirk: u32, shader_quirk_name, SHADER_QUIRK_ENUMERATORS, "DXIL_SPV_SHADER_QUIRK_" {
    DXIL_SPV_SHADER_QUIRK_NONE = 0,
    DXIL_SPV_SHADER_QUIRK_FORCE_DEVICE_MEMORY_BARRIERS_THREAD_GROUP_COHERENCE = 1,
    DXIL_SPV_SHADER_QUIRK_ASSUME_BROKEN_SUB_8x8_CUBE_MIPS = 2,
    DXIL_SPV_SHADER_QUIRK_ROBUST_PHYSICAL_CBV_FORWARDING = 3,
    DXIL_SPV_SHADER_QUIRK_MESH_OUTPUTS_ROBUSTNESS = 4,
    DXIL_SPV_SHADER_QUIRK_AGGRESSIVE_NONUNIFORM = 5,
    DXIL_SPV_SHADER_QUIRK_ROBUST_PHYSICAL_CBV = 6,
    DXIL_SPV_SHADER_QUIRK_PROMOTE_GROUP_TO_DEVICE_MEMORY_BARRIER = 7,
    DXIL_SPV_SHADER_QUIRK_GROUP_SHARED_AUTO_BARRIER = 8,
    DXIL_SPV_SHADER_QUIRK_FIXUP_LOOP_HEADER_UNDEF_PHIS = 9,
    DXIL_SPV_SHADER_QUIRK_FIXUP_RSQRT_INF_NAN = 10,
    DXIL_SPV_SHADER_QUIRK_IGNORE_PRIMITIVE_SHADING_RATE = 11,
    DXIL_SPV_SHADER_QUIRK_ROBUST_COMPUTE_QUAD_BROADCAST = 12,
    DXIL_SPV_SHADER_QUIRK_PRECISE_FMA = 13,
    DXIL_SPV_SHADER_QUIRK_INT_MAX = 0x7fff_ffff,
});

c_enum!(dxil_spv_meta_descriptor: u32, meta_descriptor_name, META_DESCRIPTOR_ENUMERATORS, "DXIL_SPV_META_DESCRIPTOR_" {
    DXIL_SPV_META_DESCRIPTOR_RESOURCE_DESCRIPTOR_HEAP_SIZE = 0,
    DXIL_SPV_META_DESCRIPTOR_RAW_DESCRIPTOR_HEAP_VIEW = 1,
    DXIL_SPV_META_DESCRIPTOR_DYNAMIC_VIEW_INSTANCING_OFFSETS = 2,
    DXIL_SPV_META_DESCRIPTOR_DYNAMIC_VIEW_INSTANCING_MASK = 3,
    DXIL_SPV_META_DESCRIPTOR_INT_MAX = 0x7fff_ffff,
});

c_enum!(dxil_spv_meta_descriptor_kind: u32, meta_descriptor_kind_name, META_DESCRIPTOR_KIND_ENUMERATORS, "DXIL_SPV_META_DESCRIPTOR_KIND_" {
    DXIL_SPV_META_DESCRIPTOR_KIND_INVALID = 0,
    DXIL_SPV_META_DESCRIPTOR_KIND_PUSH_CONSTANT = 1,
    DXIL_SPV_META_DESCRIPTOR_KIND_PUSH_BDA = 2,
    DXIL_SPV_META_DESCRIPTOR_KIND_UBO_CONTAINING_CONSTANT = 3,
    DXIL_SPV_META_DESCRIPTOR_KIND_UBO_CONTAINING_BDA = 4,
    DXIL_SPV_META_DESCRIPTOR_KIND_READONLY_SSBO = 5,
    DXIL_SPV_META_DESCRIPTOR_KIND_INT_MAX = 0x7fff_ffff,
});

c_enum!(dxil_spv_node_launch_type: u32, node_launch_type_name, NODE_LAUNCH_TYPE_ENUMERATORS, "DXIL_SPV_NODE_LAUNCH_TYPE_" {
    DXIL_SPV_NODE_LAUNCH_TYPE_INVALID = 0,
    DXIL_SPV_NODE_LAUNCH_TYPE_BROADCASTING = 1,
    DXIL_SPV_NODE_LAUNCH_TYPE_COALESCING = 2,
    DXIL_SPV_NODE_LAUNCH_TYPE_THREAD = 3,
    DXIL_SPV_NODE_LAUNCH_TYPE_INT_MAX = 0x7fff_ffff,
});

c_enum!(dxil_spv_log_level: u32, log_level_name, LOG_LEVEL_ENUMERATORS, "DXIL_SPV_LOG_LEVEL_" {
    DXIL_SPV_LOG_LEVEL_DEBUG = 0,
    DXIL_SPV_LOG_LEVEL_WARN = 1,
    DXIL_SPV_LOG_LEVEL_ERROR = 2,
    DXIL_SPV_LOG_LEVEL_INT_MAX = 0x7fff_ffff,
});

c_enum!(dxil_spv_option: u32, option_name, OPTION_ENUMERATORS, "DXIL_SPV_OPTION_" {
    DXIL_SPV_OPTION_INVALID = 0,
    DXIL_SPV_OPTION_SHADER_DEMOTE_TO_HELPER = 1,
    DXIL_SPV_OPTION_DUAL_SOURCE_BLENDING = 2,
    DXIL_SPV_OPTION_OUTPUT_SWIZZLE = 3,
    DXIL_SPV_OPTION_RASTERIZER_SAMPLE_COUNT = 4,
    DXIL_SPV_OPTION_ROOT_CONSTANT_INLINE_UNIFORM_BLOCK = 5,
    DXIL_SPV_OPTION_BINDLESS_CBV_SSBO_EMULATION = 6,
    DXIL_SPV_OPTION_PHYSICAL_STORAGE_BUFFER = 7,
    DXIL_SPV_OPTION_SBT_DESCRIPTOR_SIZE_LOG2 = 8,
    DXIL_SPV_OPTION_SSBO_ALIGNMENT = 9,
    DXIL_SPV_OPTION_TYPED_UAV_READ_WITHOUT_FORMAT = 10,
    DXIL_SPV_OPTION_SHADER_SOURCE_FILE = 11,
    DXIL_SPV_OPTION_BINDLESS_TYPED_BUFFER_OFFSETS = 12,
    DXIL_SPV_OPTION_BINDLESS_OFFSET_BUFFER_LAYOUT = 13,
    DXIL_SPV_OPTION_STORAGE_INPUT_OUTPUT_16BIT = 14,
    DXIL_SPV_OPTION_DESCRIPTOR_QA = 15,
    DXIL_SPV_OPTION_MIN_PRECISION_NATIVE_16BIT = 16,
    DXIL_SPV_OPTION_SHADER_I8_DOT = 17,
    DXIL_SPV_OPTION_SHADER_RAY_TRACING_PRIMITIVE_CULLING = 18,
    DXIL_SPV_OPTION_INVARIANT_POSITION = 19,
    DXIL_SPV_OPTION_SCALAR_BLOCK_LAYOUT = 20,
    DXIL_SPV_OPTION_BARYCENTRIC_KHR = 21,
    DXIL_SPV_OPTION_ROBUST_PHYSICAL_CBV_LOAD = 22,
    DXIL_SPV_OPTION_ARITHMETIC_RELAXED_PRECISION = 23,
    DXIL_SPV_OPTION_PHYSICAL_ADDRESS_DESCRIPTOR_INDEXING = 24,
    DXIL_SPV_OPTION_FORCE_SUBGROUP_SIZE = 25,
    DXIL_SPV_OPTION_DENORM_PRESERVE_SUPPORT = 26,
    DXIL_SPV_OPTION_STRICT_HELPER_LANE_WAVE_OPS = 27,
    DXIL_SPV_OPTION_SUBGROUP_PARTITIONED_NV = 28,
    DXIL_SPV_OPTION_DEAD_CODE_ELIMINATE = 29,
    DXIL_SPV_OPTION_PRECISE_CONTROL = 30,
    DXIL_SPV_OPTION_SAMPLE_GRAD_OPTIMIZATION_CONTROL = 31,
    DXIL_SPV_OPTION_OPACITY_MICROMAP = 32,
    DXIL_SPV_OPTION_BRANCH_CONTROL = 33,
    DXIL_SPV_OPTION_SUBGROUP_PROPERTIES = 34,
    DXIL_SPV_OPTION_DESCRIPTOR_HEAP_ROBUSTNESS = 35,
    DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES_NV = 36,
    DXIL_SPV_OPTION_QUAD_CONTROL_RECONVERGENCE = 37,
    DXIL_SPV_OPTION_RAW_ACCESS_CHAINS_NV = 38,
    DXIL_SPV_OPTION_DRIVER_VERSION = 39,
    DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES = 40,
    DXIL_SPV_OPTION_INSTRUCTION_INSTRUMENTATION = 41,
    DXIL_SPV_OPTION_SHADER_QUIRK = 42,
    DXIL_SPV_OPTION_EXTENDED_ROBUSTNESS = 43,
    DXIL_SPV_OPTION_MAX_TESS_FACTOR = 44,
    DXIL_SPV_OPTION_VULKAN_MEMORY_MODEL = 45,
    DXIL_SPV_OPTION_FLOAT8_SUPPORT = 46,
    DXIL_SPV_OPTION_NVAPI = 47,
    DXIL_SPV_OPTION_EXTENDED_NON_SEMANTIC = 48,
    DXIL_SPV_OPTION_VIEW_INSTANCING = 49,
    DXIL_SPV_OPTION_MIXED_FLOAT_DOT_PRODUCT = 50,
    DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES_QUAD = 51,
    DXIL_SPV_OPTION_INT_MAX = 0x7fff_ffff,
});

/// One past the last option type; `dxil_spv_converter_supports_option` is true below it
/// (dxil-spirv's rule, which counts `DXIL_SPV_OPTION_INVALID` as recognized).
pub const DXIL_SPV_OPTION_COUNT: dxil_spv_option = 52;

c_enum!(dxil_spv_shader_feature: u32, shader_feature_name, SHADER_FEATURE_ENUMERATORS, "DXIL_SPV_SHADER_FEATURE_" {
    DXIL_SPV_SHADER_FEATURE_NATIVE_16BIT_OPERATIONS = 0,
    DXIL_SPV_SHADER_FEATURE_INT_MAX = 0x7fff_ffff,
});

c_enum!(dxil_spv_instruction_instrumentation_type: u32, instrumentation_type_name, INSTRUMENTATION_TYPE_ENUMERATORS, "DXIL_SPV_INSTRUCTION_INSTRUMENTATION_" {
    DXIL_SPV_INSTRUCTION_INSTRUMENTATION_TYPE_FULL_NAN_INF = 0,
    DXIL_SPV_INSTRUCTION_INSTRUMENTATION_TYPE_EXTERNALLY_VISIBLE_WRITE_NAN_INF = 1,
    DXIL_SPV_INSTRUCTION_INSTRUMENTATION_TYPE_FLUSH_NAN_TO_ZERO = 2,
    DXIL_SPV_INSTRUCTION_INSTRUMENTATION_TYPE_EXPECT_ASSUME = 3,
    DXIL_SPV_INSTRUCTION_INSTRUMENTATION_TYPE_BUFFER_SYNCHRONIZATION_VALIDATION = 4,
    DXIL_SPV_INSTRUCTION_INSTRUMENTATION_INT_MAX = 0x7fff_ffff,
});

/// Every enumeration of the header (its C type name) with its enumerators.
pub fn enumerations() -> Vec<(&'static str, &'static [(&'static str, i64)])> {
    vec![
        ("dxil_spv_result", RESULT_ENUMERATORS),
        ("dxil_spv_shader_stage", STAGE_ENUMERATORS),
        ("dxil_spv_vulkan_shader_stage_io_flags", STAGE_IO_FLAG_ENUMERATORS),
        ("dxil_spv_resource_kind", RESOURCE_KIND_ENUMERATORS),
        ("dxil_spv_resource_class", RESOURCE_CLASS_ENUMERATORS),
        ("dxil_spv_vulkan_descriptor_type", DESCRIPTOR_TYPE_ENUMERATORS),
        ("dxil_spv_rdat_subobject_kind", RDAT_SUBOBJECT_KIND_ENUMERATORS),
        ("dxil_spv_hit_group_type", HIT_GROUP_TYPE_ENUMERATORS),
        ("dxil_spv_shader_quirk", SHADER_QUIRK_ENUMERATORS),
        ("dxil_spv_meta_descriptor", META_DESCRIPTOR_ENUMERATORS),
        ("dxil_spv_meta_descriptor_kind", META_DESCRIPTOR_KIND_ENUMERATORS),
        ("dxil_spv_node_launch_type", NODE_LAUNCH_TYPE_ENUMERATORS),
        ("dxil_spv_log_level", LOG_LEVEL_ENUMERATORS),
        ("dxil_spv_option", OPTION_ENUMERATORS),
        ("dxil_spv_shader_feature", SHADER_FEATURE_ENUMERATORS),
        ("dxil_spv_instruction_instrumentation_type", INSTRUMENTATION_TYPE_ENUMERATORS),
    ]
}

// ---- Stage I/O ------------------------------------------------------------------------------

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dxil_spv_d3d_vertex_input {
    pub semantic: *const c_char,
    pub semantic_index: c_uint,
    pub start_row: c_uint,
    pub rows: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dxil_spv_vulkan_vertex_input {
    pub location: c_uint,
}

pub type dxil_spv_vertex_input_remapper_cb = Option<
    unsafe extern "C" fn(
        *mut c_void,
        *const dxil_spv_d3d_vertex_input,
        *mut dxil_spv_vulkan_vertex_input,
    ) -> dxil_spv_bool,
>;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dxil_spv_d3d_stream_output {
    pub semantic: *const c_char,
    pub semantic_index: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dxil_spv_vulkan_stream_output {
    pub offset: c_uint,
    pub stride: c_uint,
    pub buffer_index: c_uint,
    pub enable: dxil_spv_bool,
}

pub type dxil_spv_stream_output_remapper_cb = Option<
    unsafe extern "C" fn(
        *mut c_void,
        *const dxil_spv_d3d_stream_output,
        *mut dxil_spv_vulkan_stream_output,
    ) -> dxil_spv_bool,
>;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dxil_spv_d3d_shader_stage_io {
    pub semantic: *const c_char,
    pub semantic_index: c_uint,
    pub start_row: c_uint,
    pub rows: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dxil_spv_vulkan_shader_stage_io {
    pub location: c_uint,
    pub component: c_uint,
    pub flags: c_uint,
}

pub type dxil_spv_shader_stage_io_remapper_cb = Option<
    unsafe extern "C" fn(
        *mut c_void,
        *const dxil_spv_d3d_shader_stage_io,
        *mut dxil_spv_vulkan_shader_stage_io,
    ) -> dxil_spv_bool,
>;

// ---- Resources ------------------------------------------------------------------------------

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct dxil_spv_d3d_binding {
    pub stage: dxil_spv_shader_stage,
    pub kind: dxil_spv_resource_kind,
    pub resource_index: c_uint,
    pub register_space: c_uint,
    pub register_index: c_uint,
    pub range_size: c_uint,
    pub alignment: c_uint,
}

/// The header's unnamed `struct bindless` inside [`dxil_spv_vulkan_binding`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dxil_spv_vulkan_binding_bindless {
    pub heap_root_offset: c_uint,
    pub use_heap: dxil_spv_bool,
}

/// `root_constant_index` is the header's unnamed union of two `unsigned`s
/// (`root_constant_index`, `input_attachment_index`): one `unsigned` has the same layout.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dxil_spv_vulkan_binding {
    pub set: c_uint,
    pub binding: c_uint,
    pub root_constant_index: c_uint,
    pub bindless: dxil_spv_vulkan_binding_bindless,
    pub descriptor_type: dxil_spv_vulkan_descriptor_type,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct dxil_spv_uav_d3d_binding {
    pub d3d_binding: dxil_spv_d3d_binding,
    pub has_counter: dxil_spv_bool,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dxil_spv_srv_vulkan_binding {
    pub buffer_binding: dxil_spv_vulkan_binding,
    pub offset_binding: dxil_spv_vulkan_binding,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dxil_spv_uav_vulkan_binding {
    pub buffer_binding: dxil_spv_vulkan_binding,
    pub counter_binding: dxil_spv_vulkan_binding,
    pub offset_binding: dxil_spv_vulkan_binding,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dxil_spv_push_constant_mapping {
    pub offset_in_words: c_uint,
}

/// The header's unnamed union `vulkan` inside [`dxil_spv_cbv_vulkan_binding`].
#[repr(C)]
#[derive(Clone, Copy)]
pub union dxil_spv_cbv_vulkan_binding_vulkan {
    pub uniform_binding: dxil_spv_vulkan_binding,
    pub push_constant: dxil_spv_push_constant_mapping,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct dxil_spv_cbv_vulkan_binding {
    pub vulkan: dxil_spv_cbv_vulkan_binding_vulkan,
    pub push_constant: dxil_spv_bool,
}

impl Default for dxil_spv_cbv_vulkan_binding {
    fn default() -> Self {
        dxil_spv_cbv_vulkan_binding {
            vulkan: dxil_spv_cbv_vulkan_binding_vulkan { uniform_binding: dxil_spv_vulkan_binding::default() },
            push_constant: DXIL_SPV_FALSE,
        }
    }
}

impl dxil_spv_cbv_vulkan_binding {
    /// The union's bytes read as the uniform binding (every bit pattern is valid for it).
    pub fn uniform_binding(&self) -> dxil_spv_vulkan_binding {
        // SAFETY: both union members are plain integers; the larger one covers all bytes.
        unsafe { self.vulkan.uniform_binding }
    }
}

impl PartialEq for dxil_spv_cbv_vulkan_binding {
    fn eq(&self, other: &Self) -> bool {
        self.push_constant == other.push_constant && self.uniform_binding() == other.uniform_binding()
    }
}

impl std::fmt::Debug for dxil_spv_cbv_vulkan_binding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("dxil_spv_cbv_vulkan_binding")
            .field("vulkan", &self.uniform_binding())
            .field("push_constant", &self.push_constant)
            .finish()
    }
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dxil_spv_compiled_spirv {
    pub data: *const c_void,
    pub size: usize,
}

pub type dxil_spv_srv_remapper_cb = Option<
    unsafe extern "C" fn(*mut c_void, *const dxil_spv_d3d_binding, *mut dxil_spv_srv_vulkan_binding) -> dxil_spv_bool,
>;
pub type dxil_spv_sampler_remapper_cb = Option<
    unsafe extern "C" fn(*mut c_void, *const dxil_spv_d3d_binding, *mut dxil_spv_vulkan_binding) -> dxil_spv_bool,
>;
pub type dxil_spv_uav_remapper_cb = Option<
    unsafe extern "C" fn(
        *mut c_void,
        *const dxil_spv_uav_d3d_binding,
        *mut dxil_spv_uav_vulkan_binding,
    ) -> dxil_spv_bool,
>;
pub type dxil_spv_cbv_remapper_cb = Option<
    unsafe extern "C" fn(*mut c_void, *const dxil_spv_d3d_binding, *mut dxil_spv_cbv_vulkan_binding) -> dxil_spv_bool,
>;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dxil_spv_rdat_subobject {
    pub kind: dxil_spv_rdat_subobject_kind,
    pub subobject_name: *const c_char,
    pub hit_group_type: dxil_spv_hit_group_type,
    pub exports: *const *const c_char,
    pub num_exports: c_uint,
    pub args: [c_uint; 2],
    pub payload: *const c_void,
    pub payload_size: usize,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dxil_spv_node_input_data {
    pub node_id: *const c_char,
    pub payload_stride: c_uint,
    pub launch_type: dxil_spv_node_launch_type,
    pub node_array_index: c_uint,
    pub dispatch_grid_offset: c_uint,
    pub dispatch_grid_type_bits: c_uint,
    pub dispatch_grid_components: c_uint,
    pub broadcast_grid: [c_uint; 3],
    pub thread_group_size_spec_id: [c_uint; 3],
    pub max_broadcast_grid_spec_id: [c_uint; 3],
    pub recursion_factor: c_uint,
    pub coalesce_factor: c_uint,
    pub node_share_input_id: *const c_char,
    pub node_share_input_array_index: c_uint,
    pub local_root_arguments_table_index: c_uint,
    pub is_indirect_bda_stride_program_entry_spec_id: c_uint,
    pub is_entry_point_spec_id: c_uint,
    pub dispatch_grid_is_upper_bound_spec_id: c_uint,
    pub is_static_broadcast_node_spec_id: c_uint,
    pub dispatch_grid_is_upper_bound: dxil_spv_bool,
    pub node_track_rw_input_sharing: dxil_spv_bool,
    pub is_program_entry: dxil_spv_bool,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dxil_spv_node_output_data {
    pub node_id: *const c_char,
    pub node_array_index: c_uint,
    pub node_array_size: c_uint,
    pub node_index_spec_constant_id: c_uint,
    pub max_records: c_uint,
    pub sparse_array: dxil_spv_bool,
}

pub type dxil_spv_log_cb = Option<unsafe extern "C" fn(*mut c_void, dxil_spv_log_level, *const c_char)>;

/// Opaque handle types (pointers to our boxed structures).
pub type dxil_spv_parsed_blob = *mut c_void;
pub type dxil_spv_converter = *mut c_void;

// ---- Options --------------------------------------------------------------------------------

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dxil_spv_option_base {
    pub type_: dxil_spv_option,
}

/// Declares option structures: each starts with [`dxil_spv_option_base`].
macro_rules! option_structs {
    ($($name:ident { $($field:ident: $ty:ty),* $(,)? })*) => {
        $(
            #[repr(C)]
            #[derive(Clone, Copy, Debug)]
            pub struct $name {
                pub base: dxil_spv_option_base,
                $(pub $field: $ty,)*
            }
        )*
    };
}

option_structs! {
    dxil_spv_option_shader_demote_to_helper { supported: dxil_spv_bool }
    dxil_spv_option_dual_source_blending { enabled: dxil_spv_bool }
    dxil_spv_option_output_swizzle { swizzles: *const c_uint, swizzle_count: c_uint }
    dxil_spv_option_rasterizer_sample_count { sample_count: c_uint, spec_constant: dxil_spv_bool }
    dxil_spv_option_root_constant_inline_uniform_block { desc_set: c_uint, binding: c_uint, enable: dxil_spv_bool }
    dxil_spv_option_bindless_cbv_ssbo_emulation { enable: dxil_spv_bool }
    dxil_spv_option_physical_storage_buffer { enable: dxil_spv_bool }
    dxil_spv_option_sbt_descriptor_size_log2 { size_log2_srv_uav_cbv: c_uint, size_log2_sampler: c_uint }
    dxil_spv_option_ssbo_alignment { alignment: c_uint }
    dxil_spv_option_typed_uav_read_without_format { supported: dxil_spv_bool }
    dxil_spv_option_shader_source_file { name: *const c_char }
    dxil_spv_option_bindless_typed_buffer_offsets { enable: dxil_spv_bool }
    dxil_spv_option_bindless_offset_buffer_layout { untyped_offset: c_uint, typed_offset: c_uint, stride: c_uint }
    dxil_spv_option_storage_input_output_16bit { supported: dxil_spv_bool }
    dxil_spv_option_descriptor_qa {
        enabled: dxil_spv_bool,
        version: c_uint,
        global_desc_set: c_uint,
        global_binding: c_uint,
        heap_desc_set: c_uint,
        heap_binding: c_uint,
        shader_hash: c_ulonglong,
    }
    dxil_spv_option_min_precision_native_16bit { enabled: dxil_spv_bool }
    dxil_spv_option_shader_i8_dot { supported: dxil_spv_bool }
    dxil_spv_option_shader_ray_tracing_primitive_culling { supported: dxil_spv_bool }
    dxil_spv_option_invariant_position { enabled: dxil_spv_bool }
    dxil_spv_option_scalar_block_layout { supported: dxil_spv_bool, supports_per_component_robustness: dxil_spv_bool }
    dxil_spv_option_barycentric_khr { supported: dxil_spv_bool }
    dxil_spv_option_robust_physical_cbv_load { enabled: dxil_spv_bool }
    dxil_spv_option_arithmetic_relaxed_precision { enabled: dxil_spv_bool }
    dxil_spv_option_physical_address_descriptor_indexing { element_stride: c_uint, element_offset: c_uint }
    dxil_spv_option_force_subgroup_size { forced_value: c_uint, wave_size_enable: dxil_spv_bool }
    dxil_spv_option_denorm_preserve_support {
        supports_float16_denorm_preserve: dxil_spv_bool,
        supports_float64_denorm_preserve: dxil_spv_bool,
    }
    dxil_spv_option_strict_helper_lane_wave_ops { enable: dxil_spv_bool }
    dxil_spv_option_subgroup_partitioned_nv { supported: dxil_spv_bool }
    dxil_spv_option_dead_code_eliminate { enabled: dxil_spv_bool }
    dxil_spv_option_precise_control { force_precise: dxil_spv_bool, propagate_precise: dxil_spv_bool }
    dxil_spv_option_sample_grad_optimization_control { enabled: dxil_spv_bool, assume_uniform_scale: dxil_spv_bool }
    dxil_spv_option_opacity_micromap { enabled: dxil_spv_bool }
    dxil_spv_option_branch_control {
        use_shader_metadata: dxil_spv_bool,
        force_unroll: dxil_spv_bool,
        force_loop: dxil_spv_bool,
        force_flatten: dxil_spv_bool,
        force_branch: dxil_spv_bool,
    }
    dxil_spv_option_subgroup_properties { minimum_size: c_uint, maximum_size: c_uint }
    dxil_spv_option_descriptor_heap_robustness { enabled: dxil_spv_bool }
    dxil_spv_option_compute_shader_derivatives_nv { supported: dxil_spv_bool }
    dxil_spv_option_quad_control_reconvergence {
        supports_quad_control: dxil_spv_bool,
        supports_maximal_reconvergence: dxil_spv_bool,
        force_maximal_reconvergence: dxil_spv_bool,
    }
    dxil_spv_option_raw_access_chains_nv { supported: dxil_spv_bool }
    dxil_spv_option_driver_version { driver_id: c_uint, driver_version: c_uint }
    dxil_spv_option_compute_shader_derivatives { supports_nv: dxil_spv_bool, supports_khr: dxil_spv_bool }
    dxil_spv_option_instruction_instrumentation {
        enabled: dxil_spv_bool,
        version: c_uint,
        control_desc_set: c_uint,
        control_binding: c_uint,
        payload_desc_set: c_uint,
        payload_binding: c_uint,
        shader_hash: c_ulonglong,
        type_: dxil_spv_instruction_instrumentation_type,
    }
    dxil_spv_option_shader_quirk { quirk: dxil_spv_shader_quirk }
    dxil_spv_option_extended_robustness {
        robust_group_shared: dxil_spv_bool,
        robust_alloca: dxil_spv_bool,
        robust_constant_lut: dxil_spv_bool,
    }
    dxil_spv_option_max_tess_factor { max_tess_factor: c_uint }
    dxil_spv_option_vulkan_memory_model { enabled: dxil_spv_bool }
    dxil_spv_option_float8_support { wmma_fp8: dxil_spv_bool, nv_cooperative_matrix2_conversions: dxil_spv_bool }
    dxil_spv_option_nvapi { enabled: dxil_spv_bool, register_index: c_uint, register_space: c_uint }
    dxil_spv_option_extended_non_semantic { enabled: dxil_spv_bool }
    dxil_spv_option_view_instancing {
        enabled: dxil_spv_bool,
        last_pre_rasterization_stage: dxil_spv_bool,
        view_index_to_view_instance_spec_id: c_uint,
        view_instance_to_viewport_spec_id: c_uint,
    }
    dxil_spv_option_mixed_float_dot_product { fp16_fp16_fp32: dxil_spv_bool, reserved: [dxil_spv_bool; 4] }
    dxil_spv_option_compute_shader_derivatives_quad { supports_quad: dxil_spv_bool }
}

// ---- Layout table (tests/header_abi.rs) -----------------------------------------------------

/// A structure's layout as Rust sees it: the C name, size, alignment, and each field's C
/// member designator (`bindless.use_heap` for a nested member) with its offset.
#[derive(Clone, Debug)]
pub struct StructLayout {
    pub name: &'static str,
    pub size: usize,
    pub align: usize,
    pub fields: Vec<(String, usize)>,
}

macro_rules! layouts {
    ($($s:ident { $($($f:ident).+ $(as $c:literal)?),* $(,)? })*) => {
        /// Every structure of the header with the offsets of its fields.
        pub fn struct_layouts() -> Vec<StructLayout> {
            vec![$(StructLayout {
                name: stringify!($s),
                size: size_of::<$s>(),
                align: align_of::<$s>(),
                fields: vec![$({
                    #[allow(unused_mut, unused_assignments)]
                    let mut name = stringify!($($f).+).replace(' ', "");
                    $(name = $c.to_string();)?
                    (name, offset_of!($s, $($f).+))
                }),*],
            }),*]
        }
    };
}

layouts! {
    dxil_spv_d3d_vertex_input { semantic, semantic_index, start_row, rows }
    dxil_spv_vulkan_vertex_input { location }
    dxil_spv_d3d_stream_output { semantic, semantic_index }
    dxil_spv_vulkan_stream_output { offset, stride, buffer_index, enable }
    dxil_spv_d3d_shader_stage_io { semantic, semantic_index, start_row, rows }
    dxil_spv_vulkan_shader_stage_io { location, component, flags }
    dxil_spv_d3d_binding { stage, kind, resource_index, register_space, register_index, range_size, alignment }
    dxil_spv_vulkan_binding {
        set, binding, root_constant_index, root_constant_index as "input_attachment_index",
        bindless.heap_root_offset, bindless.use_heap, descriptor_type,
    }
    dxil_spv_uav_d3d_binding { d3d_binding, has_counter }
    dxil_spv_srv_vulkan_binding { buffer_binding, offset_binding }
    dxil_spv_uav_vulkan_binding { buffer_binding, counter_binding, offset_binding }
    dxil_spv_push_constant_mapping { offset_in_words }
    dxil_spv_cbv_vulkan_binding { vulkan.uniform_binding, vulkan.push_constant, push_constant }
    dxil_spv_compiled_spirv { data, size }
    dxil_spv_rdat_subobject { kind, subobject_name, hit_group_type, exports, num_exports, args, payload, payload_size }
    dxil_spv_node_input_data {
        node_id, payload_stride, launch_type, node_array_index, dispatch_grid_offset, dispatch_grid_type_bits,
        dispatch_grid_components, broadcast_grid, thread_group_size_spec_id, max_broadcast_grid_spec_id,
        recursion_factor, coalesce_factor, node_share_input_id, node_share_input_array_index,
        local_root_arguments_table_index, is_indirect_bda_stride_program_entry_spec_id, is_entry_point_spec_id,
        dispatch_grid_is_upper_bound_spec_id, is_static_broadcast_node_spec_id, dispatch_grid_is_upper_bound,
        node_track_rw_input_sharing, is_program_entry,
    }
    dxil_spv_node_output_data {
        node_id, node_array_index, node_array_size, node_index_spec_constant_id, max_records, sparse_array,
    }
    dxil_spv_option_base { type_ as "type" }
    dxil_spv_option_shader_demote_to_helper { base, supported }
    dxil_spv_option_dual_source_blending { base, enabled }
    dxil_spv_option_output_swizzle { base, swizzles, swizzle_count }
    dxil_spv_option_rasterizer_sample_count { base, sample_count, spec_constant }
    dxil_spv_option_root_constant_inline_uniform_block { base, desc_set, binding, enable }
    dxil_spv_option_bindless_cbv_ssbo_emulation { base, enable }
    dxil_spv_option_physical_storage_buffer { base, enable }
    dxil_spv_option_sbt_descriptor_size_log2 { base, size_log2_srv_uav_cbv, size_log2_sampler }
    dxil_spv_option_ssbo_alignment { base, alignment }
    dxil_spv_option_typed_uav_read_without_format { base, supported }
    dxil_spv_option_shader_source_file { base, name }
    dxil_spv_option_bindless_typed_buffer_offsets { base, enable }
    dxil_spv_option_bindless_offset_buffer_layout { base, untyped_offset, typed_offset, stride }
    dxil_spv_option_storage_input_output_16bit { base, supported }
    dxil_spv_option_descriptor_qa {
        base, enabled, version, global_desc_set, global_binding, heap_desc_set, heap_binding, shader_hash,
    }
    dxil_spv_option_min_precision_native_16bit { base, enabled }
    dxil_spv_option_shader_i8_dot { base, supported }
    dxil_spv_option_shader_ray_tracing_primitive_culling { base, supported }
    dxil_spv_option_invariant_position { base, enabled }
    dxil_spv_option_scalar_block_layout { base, supported, supports_per_component_robustness }
    dxil_spv_option_barycentric_khr { base, supported }
    dxil_spv_option_robust_physical_cbv_load { base, enabled }
    dxil_spv_option_arithmetic_relaxed_precision { base, enabled }
    dxil_spv_option_physical_address_descriptor_indexing { base, element_stride, element_offset }
    dxil_spv_option_force_subgroup_size { base, forced_value, wave_size_enable }
    dxil_spv_option_denorm_preserve_support { base, supports_float16_denorm_preserve, supports_float64_denorm_preserve }
    dxil_spv_option_strict_helper_lane_wave_ops { base, enable }
    dxil_spv_option_subgroup_partitioned_nv { base, supported }
    dxil_spv_option_dead_code_eliminate { base, enabled }
    dxil_spv_option_precise_control { base, force_precise, propagate_precise }
    dxil_spv_option_sample_grad_optimization_control { base, enabled, assume_uniform_scale }
    dxil_spv_option_opacity_micromap { base, enabled }
    dxil_spv_option_branch_control { base, use_shader_metadata, force_unroll, force_loop, force_flatten, force_branch }
    dxil_spv_option_subgroup_properties { base, minimum_size, maximum_size }
    dxil_spv_option_descriptor_heap_robustness { base, enabled }
    dxil_spv_option_compute_shader_derivatives_nv { base, supported }
    dxil_spv_option_quad_control_reconvergence {
        base, supports_quad_control, supports_maximal_reconvergence, force_maximal_reconvergence,
    }
    dxil_spv_option_raw_access_chains_nv { base, supported }
    dxil_spv_option_driver_version { base, driver_id, driver_version }
    dxil_spv_option_compute_shader_derivatives { base, supports_nv, supports_khr }
    dxil_spv_option_instruction_instrumentation {
        base, enabled, version, control_desc_set, control_binding, payload_desc_set, payload_binding, shader_hash,
        type_ as "type",
    }
    dxil_spv_option_shader_quirk { base, quirk }
    dxil_spv_option_extended_robustness { base, robust_group_shared, robust_alloca, robust_constant_lut }
    dxil_spv_option_max_tess_factor { base, max_tess_factor }
    dxil_spv_option_vulkan_memory_model { base, enabled }
    dxil_spv_option_float8_support { base, wmma_fp8, nv_cooperative_matrix2_conversions }
    dxil_spv_option_nvapi { base, enabled, register_index, register_space }
    dxil_spv_option_extended_non_semantic { base, enabled }
    dxil_spv_option_view_instancing {
        base, enabled, last_pre_rasterization_stage, view_index_to_view_instance_spec_id,
        view_instance_to_viewport_spec_id,
    }
    dxil_spv_option_mixed_float_dot_product { base, fp16_fp16_fp32, reserved }
    dxil_spv_option_compute_shader_derivatives_quad { base, supports_quad }
}
