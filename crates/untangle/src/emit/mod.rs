//! SPIR-V emission: shape mode (the structurizer's testable output) and the full DXIL →
//! SPIR-V translation.
//!
//! # The star rule
//!
//! `emit` is shaped as a star, as naga's backends are. This root owns the state every part
//! shares; the parts around it are leaves that add behaviour and import only *downward*:
//!
//! - **The root** (`emit/mod.rs`) defines the shared types: the public [`Options`] and
//!   [`Translation`] (with [`LayoutReport`], [`RootSignatureBinding`],
//!   [`TessDomainOrigin`]), the emission state of one function ([`FnEmit`]) and of one
//!   `dx.op` call ([`Call`]), the entry point's interface ([`Interface`] and its parts)
//!   and resource table ([`Resources`] and its handles and variables). It imports only
//!   the low-level modules below and the layers under `emit`, never a leaf.
//! - **Low-level modules** hold data and utilities. Each imports only other low-level
//!   modules (without circles) and the layers under `emit`, never the root or a leaf:
//!   [`writer`] (the module's words), `cleanup` (the writer's local clean-ups: value
//!   numbering, load reuse, dead code), `access` (read-only and write-only descriptors), [`control`] (merge and dispatch instructions, shared
//!   with shape mode), [`module`] ([`ModuleBuilder`]: types, constants, capabilities,
//!   globals), `error` ([`Error`]), [`support`](mod@support) (which operation is
//!   lowered in which stage), [`binding_model`] (where registers land without a root
//!   signature), [`locations`] (where stage I/O lands), [`stream_output`] (the D3D12
//!   description and its plan), `entry` (which entry point a translation takes), `work_graph`
//!   (the node scheduler's contract), `glsl` (extended-instruction numbers), `typecheck` and
//!   `validate` (checks of the input before emission), [`placement`] (where a layer that
//!   places resources itself put them).
//! - **Leaves** add methods to the root's types (`impl FnEmit { fn texture_op(..) }`,
//!   `impl ModuleBuilder { fn emit_function(..) }`, `impl StageIo { fn hull(..) }`) and
//!   import the root, the low-level modules and the layers under `emit`; never another
//!   leaf. The driver and the dispatcher reach them through those methods, which need no
//!   import. The leaves:
//!   - [`translate`](mod@translate): the driver, one entry point from DXIL module to SPIR-V
//!     words (its resources, interface, functions, entry point and execution modes);
//!   - `function`: one DXIL function over its structurized CFG (LLVM instructions, SSA
//!     values, structured control flow);
//!   - `dxop`: the `dx.op` dispatcher and its operation families, one file each
//!     (`dxop/*`);
//!   - `stage`: what is particular to a stage, one file each (`stage/*`: hull, domain,
//!     geometry, pixel, mesh, amplification, ray tracing, work-graph nodes): its
//!     operations, interface facts, execution modes and entry functions;
//!   - `interface` (signature elements and built-ins as variables), `resources`
//!     (descriptor variables, root arguments and handles), `transform_feedback` (stream
//!     output's variables and copies);
//!   - `long_vector`: DXIL 1.9 vectors of more than 4 lanes as arrays, operated on lane by
//!     lane;
//!   - [`library`]: the report of a library's entries and subobjects;
//!   - [`shape`]: shape mode, which needs only [`writer`] and [`control`].
//!
//! The module graph test (`crates/untangle/tests/module_graph.rs`) checks that no import
//! circle forms; the rule above is what keeps one from forming.
//!
//! # Translating
//!
//! [`translate`](mod@translate) decodes nothing itself: the DXIL meaning comes from
//! `crate::dxil` (the caller analyzes the module once), structured control flow from
//! `crate::passes`, root-signature lowering from `crate::rootsig`. The module is SPIR-V 1.6
//! for Vulkan 1.3, and the same input and options give the same words.

/// Declares a shared remapping callback `$name` (`Some` places what `$query` asks about,
/// `None` leaves it to the default) and `$signature`, its callback type, with `new` and an
/// opaque `Debug`. Defined before the modules that use it (`binding_model`, `locations`).
macro_rules! remap_callback {
    (
        $(#[$meta:meta])* pub struct $name:ident;
        $(#[$signature_meta:meta])* pub type $signature:ident = Fn(&$query:ident) -> Option<$place:ty>;
    ) => {
        $(#[$signature_meta])*
        pub type $signature = dyn Fn(&$query<'_>) -> Option<$place> + Send + Sync;

        $(#[$meta])*
        #[derive(Clone)]
        pub struct $name(pub std::sync::Arc<$signature>);

        impl $name {
            pub fn new(f: impl Fn(&$query<'_>) -> Option<$place> + Send + Sync + 'static) -> $name {
                $name(std::sync::Arc::new(f))
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(concat!(stringify!($name), "(..)"))
            }
        }
    };
}

mod access;
pub mod binding_model;
mod cleanup;
pub mod control;
mod dxop;
pub(crate) mod entry;
mod error;
pub mod features;
mod function;
mod glsl;
mod interface;
pub mod library;
pub mod locations;
mod long_vector;
pub mod module;
pub mod placement;
mod resources;
pub(crate) mod rov;
pub mod shape;
pub(crate) mod stage;
pub mod stream_output;
pub mod support;
mod transform_feedback;
pub mod translate;
mod typecheck;
mod validate;
mod view_instancing;
mod work_graph;
pub mod writer;

pub use error::{BindingMapError, Error, LibraryEntry, NotAShader, Result, Subject, VendorRefusal};
pub use module::{ModuleBuilder, ReorderExtension};
pub use support::{stage_support, support, Family, Refusal, StageFamily, Support};

use binding_model::{BindingMap, DefaultPlacement, MappingRow, ResourceRemap, VkBinding};
use locations::{IoRemap, SigKind};
use stream_output::{StreamOutput, XfbState};
use work_graph::NodeState;

use crate::cfg::dominators::DomTree;
use crate::dxil::{DxOp, ResourceClass, ShaderModel};
use crate::front::container::ShaderKind;
use crate::ir::hash::{HashMap, HashSet};
use crate::ir::{BlockId, Function, InstId, TypeId, Value};
use crate::passes::graph::Preds;
use crate::passes::{SBlock, Scfg};
use crate::rootsig::layout::{ArgStore, HeapSets, LayoutOptions, PipelineLayout, PushConstants, RootArgumentBuffer};
use crate::rootsig::resolve::{Place, ResolvedResource};
use crate::rootsig::RootSignature;
use cranelift_entity::SecondaryMap;
use rspirv::spirv::{BuiltIn, Dim, ExecutionMode, StorageClass, Word};
use std::collections::BTreeMap;

// --- The public options and results ---

/// What a translation is asked to do beyond the shader itself: how resources are bound,
/// where stage I/O goes, stream output, pipeline facts the shader cannot see.
#[derive(Clone, Debug)]
pub struct Options {
    /// Overrides of the default binding model (`--binding-map`); unused with a root
    /// signature.
    pub binding_map: BindingMap,
    /// Bind resources through this root signature instead of the default model.
    pub root_signature: Option<RootSignatureBinding>,
    /// When `root_signature` is `None` and the input is a DXBC container with an `RTS0`
    /// part, bind through that root signature, lowered like this (the command line does).
    pub embedded_root_signature: Option<LayoutOptions>,
    /// Places register ranges (and UAV counters) under the default model before the
    /// binding map and the default rule are consulted; unused with a root signature, whose
    /// layout places everything.
    pub resource_remap: Option<ResourceRemap>,
    /// The layer places every resource itself ([`placement`]): descriptors, bindless heap
    /// arrays indexed through its push constants or the shader record, root descriptors and
    /// root constants, UAV counters. Takes precedence over `root_signature` and the default
    /// model.
    pub placement: Option<placement::Placement>,
    /// Pixel shaders: dual-source blending (the pipeline blends with `SRC1` factors):
    /// `SV_Target0` and `SV_Target1` become `Location 0` with `Index` 0 and 1; other
    /// targets are not written (Vulkan has one color attachment then).
    pub dual_source_blending: bool,
    /// Decorate `Position` outputs `Invariant` (the same computation gives the same
    /// position in every pipeline, as D3D drivers keep depth-equal passes consistent).
    pub invariant_position: bool,
    /// The render target's sample count when the layer knows it at translation time (an
    /// immediate constant); `None`: a specialization constant (default 1) with id
    /// `render_target_sample_count_spec_id`.
    pub render_target_sample_count: Option<u32>,
    /// The specialization constant id of the render target's sample count when
    /// `render_target_sample_count` is `None` (default [`RENDER_TARGET_SAMPLE_COUNT_SPEC_ID`];
    /// dxil-spirv's layers name their own).
    pub render_target_sample_count_spec_id: u32,
    /// The SPIR-V entry point's name (default: the entry's DXIL name, demangled for library
    /// exports). D3D12 layers that name every stage `main` set it.
    pub entry_point_name: Option<String>,
    /// Places the shader's stage inputs and outputs (`Location`, `Component`) instead of
    /// their signature registers.
    pub io_remap: Option<IoRemap>,
    /// D3D12 stream output for the last pre-rasterization stage, lowered to transform
    /// feedback ([`stream_output`]).
    pub stream_output: Option<StreamOutput>,
    /// The tessellation domain origin the pipeline will use
    /// (`VkPipelineTessellationDomainOriginStateCreateInfo`): hull shaders' triangle winding
    /// is expressed for it (`docs/stage-interfaces.md`).
    pub tess_domain_origin: TessDomainOrigin,
    /// Hull shaders: tessellation factors are clamped to this as well as to the shader's
    /// `[maxtessfactor]` (a device limit, or a layer's workaround such as vkd3d-proton's
    /// `VKD3D_LIMIT_TESS_FACTORS`); below 1 counts as 1.
    pub max_tess_factor: Option<f32>,
    /// Pixel shaders of mesh pipelines: the inputs (semantic name, case-insensitive, and
    /// index) the mesh shader writes per primitive, decorated `PerPrimitiveEXT` as Vulkan
    /// requires (D3D's pixel signature does not say which they are).
    pub per_primitive_inputs: Vec<(String, u32)>,
    /// Declare `MaximallyReconvergesKHR` (`SPV_KHR_maximal_reconvergence`): invocations
    /// that diverged at a branch run together again where the structured control flow
    /// merges, as D3D drivers do and as wave operations after an `if` expect. Without it
    /// Vulkan promises no reconvergence (NVIDIA's driver then runs a wave operation after
    /// a merge once per divergent group: `docs/dxil-semantics.md`). The pipeline's device
    /// must enable `shaderMaximalReconvergence` (`VK_KHR_shader_maximal_reconvergence`).
    pub maximal_reconvergence: bool,
    /// Float operations DXIL marks precise (no fast-math flags) carry `FPFastMathMode None`
    /// (`SPV_KHR_float_controls2`) in place of `NoContraction`, and the entry point declares
    /// `FPFastMathDefault None` for their widths (fast operations of those widths then carry
    /// their relaxations). Neither `NoContraction` nor the decoration alone stopped NVIDIA's
    /// compiler from folding `x - (x - 12.25)` to `12.25`; the default did
    /// (`docs/dxil-semantics.md`). The pipeline's device must enable `shaderFloatControls2`
    /// (Vulkan 1.4, `VK_KHR_shader_float_controls2`).
    pub float_controls2: bool,
    /// How a module's `half` values compute when the module uses minimum precision
    /// (`min16float`: DXIL's shader flags lack `UseNativeLowPrecision`). A module with
    /// native 16-bit types (`-enable-16bit-types`) always computes `half` in 16 bits.
    pub min_precision: MinPrecision,
    /// Pixel shaders whose entry lacks SM 6.7's `[WaveOpsIncludeHelperLanes]` (the DXIL
    /// function attribute `"waveops-include-helper-lanes"`): wave operations leave helper
    /// lanes out, as D3D specifies (Vulkan counts helper invocations as active in subgroup
    /// operations). Ballots, votes, bit counts, reductions and scans see helpers as
    /// inactive (they feed the operation's identity), `WaveIsFirstLane` and
    /// `WaveReadLaneFirst` pick the first non-helper lane, `WaveActiveAllEqual`,
    /// `WaveMatch` and `WaveMultiPrefix*` ignore helpers; lane index, lane count,
    /// `WaveReadLaneAt` and quad operations are unchanged (`dxop/wave.rs`). Default
    /// `true`; `false` keeps helpers in every wave operation, as dxil-spirv's
    /// `STRICT_HELPER_LANE_WAVE_OPS` off does.
    pub strict_helper_lane_wave_ops: bool,
    /// Raw-buffer (`ByteAddressBuffer`) accesses of 2 or 4 whole words at an address the IR
    /// shows aligned go through `uvec2`/`uvec4` views of the buffer: one access instead of
    /// one per word. D3D bounds-checks each word of a raw access; a vector straddling the
    /// end of a view whose size is not a multiple of the vector's is one partly
    /// out-of-bounds access in Vulkan, which a driver may drop whole (NVIDIA reads 0 for all
    /// of its words; lavapipe keeps the in-bounds ones). dxil-spirv vectorizes the same way,
    /// and vkd3d-proton relies on it. `false` keeps one access per word: D3D's bounds, word
    /// by word, on every driver. Default `true`.
    pub raw_buffer_vectors: bool,
    /// The emitter's local clean-ups (`emit/cleanup.rs`, `emit/access.rs`): value numbering
    /// and load reuse within blocks, folds of constructs, extracts and bitcasts, dead code,
    /// unused types, constants and storage-buffer views, width capabilities no type needs,
    /// and `NonWritable`/`NonReadable` on the storage buffers and images a module only reads
    /// or only writes. They make modules smaller and faster for a driver to compile (and
    /// the decorations let NVIDIA's compiler take the read-only path); they take about an
    /// eighth of the translation's time (BENCHMARKS.md, "In process, fifth pass"). `false`
    /// writes what the emitters ask for, as it comes: for a layer that counts translation
    /// time above pipeline-creation time, and to tell a clean-up's effect from the
    /// emitters' when debugging. Both are valid SPIR-V. Default `true`.
    pub cleanups: bool,
    /// `WaveGetLaneCount()` returns this constant instead of the subgroup size (a layer's
    /// workaround for applications that assume one wave size: vkd3d-proton's
    /// `FORCE_SUBGROUP_SIZE` quirks). Other wave operations are unchanged.
    pub wave_lane_count: Option<u32>,
    /// The device has `rayTraversalPrimitiveCulling`: a `TraceRay` or `TraceRayInline` whose
    /// flags may hold `RAY_FLAG_SKIP_TRIANGLES` or `RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES` (not
    /// a constant, or a constant with either) declares `RayTraversalPrimitiveCullingKHR`,
    /// which Vulkan requires before a driver honours those flags. Without it the flags are
    /// passed as they are and the capability is never declared (a device without the
    /// feature would reject it).
    pub ray_traversal_primitive_culling: bool,
    /// D3D12 view instancing (the pipeline's `ViewInstanceCount` is not 0), drawn through
    /// Vulkan multiview as vkd3d-proton sets it up: `SV_ViewID` is the view instance that
    /// Vulkan's `ViewIndex` renders, and the last pre-rasterization stage routes each
    /// instance to its viewport. `None`: `SV_ViewID` is `ViewIndex` itself (0 outside a
    /// multiview render pass). See [`ViewInstancing`] and `docs/view-instancing.md`.
    pub view_instancing: Option<ViewInstancing>,
    /// Pixel shaders: one swizzle per render target, `SV_Target<n>` by `n`. Attachment
    /// component `k` of target `n` receives the shader's component `output_swizzles[n][k]`;
    /// each entry is a permutation of `0..=3`, and targets past the list keep their
    /// components. A layer that renders a format the device lacks through another one sets
    /// it: vkd3d-proton draws `DXGI_FORMAT_A8_UNORM` into `R8_UNORM` with `[3, 0, 1, 2]`
    /// (alpha lands in red). A swizzled target's variable is a full `vec4` at component 0
    /// (the components a narrower target does not write stay undefined, as in D3D).
    pub output_swizzles: Vec<[u8; 4]>,
    /// How `writeSamplerFeedback*` (SM 6.5 sampler feedback) write their feedback maps.
    /// Vulkan has no feedback maps: a layer emulates one in a storage image whose encoding
    /// the shader and the layer's own resolve passes share, so the layer names it here
    /// (`dxop/feedback.rs`, `docs/sampler-feedback.md`). `None` (the default): the
    /// operations are refused with [`support::Refusal::NoVulkanFeature`].
    pub sampler_feedback: Option<SamplerFeedbackEncoding>,
    /// Which SPIR-V extension SM 6.9 shader execution reordering (`HitObject_*`,
    /// `MaybeReorderThread`) lowers to: NVIDIA's (the default; the device needs
    /// `VK_NV_ray_tracing_invocation_reorder`) or the cross-vendor one
    /// (`VK_EXT_ray_tracing_invocation_reorder`), which also expresses the operations NVIDIA's
    /// lacks (`dxop/hit_object.rs`).
    pub shader_invocation_reorder: ReorderExtension,
    /// The vendor driver extensions the layer exposes and the device features their
    /// lowering may use ([`VendorFeatures`]). Default: none, and every vendor intrinsic is
    /// refused with an error naming the missing feature.
    pub vendor: VendorFeatures,
}

/// Vendor intrinsics the layer accepts, and the Vulkan device features their lowerings
/// may use (`dxop/ags.rs`). A lowering that needs a feature not set here is refused with
/// [`Error::VendorExtension`] naming it ([`VendorRefusal::MissingFeature`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct VendorFeatures {
    /// The layer exposes AMD AGS (its magic UAV, `u0, space2147420894`) and wants the
    /// intrinsics lowered. Off: a shader with AGS calls is refused.
    pub amd_ags: bool,
    /// `shaderSubgroupClock` / `shaderDeviceClock` (`VK_KHR_shader_clock`): AGS's shader
    /// clocks.
    pub shader_clock: bool,
    /// `shaderDrawParameters` (Vulkan 1.1): AGS's draw index, base vertex and base
    /// instance in vertex shaders.
    pub draw_parameters: bool,
    /// `cooperativeMatrix` (`VK_KHR_cooperative_matrix`): AGS WMMA.
    pub cooperative_matrix: bool,
    /// `VK_NV_cooperative_matrix2`'s conversions and per-element operations, for WMMA forms
    /// the KHR extension cannot express in one instruction (without it, an accumulator
    /// becomes an A or B matrix through a groupshared round trip in compute shaders).
    pub cooperative_matrix2: bool,
    /// `fragmentShaderBarycentric` (`VK_KHR_fragment_shader_barycentric`): AGS's
    /// barycentrics (`BaryCoordKHR` / `BaryCoordNoPerspKHR`) and vertex parameters
    /// (`PerVertexKHR` inputs) in pixel shaders.
    pub fragment_shader_barycentric: bool,
    /// `shaderImageInt64Atomics` (`VK_EXT_shader_image_atomic_int64`): AGS's and NVAPI's
    /// 64-bit atomics on texture and typed-buffer targets, through the UAV's `R64ui` view. Without
    /// it they are refused naming the feature.
    pub image_int64_atomics: bool,
    /// `shaderFloat8` (`VK_EXT_shader_float8`): float8 conversions in one instruction.
    /// Without it AGS's scalar float8 conversions are emulated in 32-bit arithmetic.
    pub float8: bool,
    /// `bufferDeviceAddress` (Vulkan 1.2 / `VK_KHR_buffer_device_address`): AGS's loads
    /// from raw GPU addresses (`LoadDwAtAddr`) and WMMA global loads and stores, through
    /// `PhysicalStorageBuffer` pointers. Without it they are refused naming the feature.
    pub buffer_device_address: bool,
    /// The layer exposes NVIDIA NVAPI's HLSL extensions with their magic UAV at this
    /// register (`NvAPI_D3D12_SetNvShaderExtnSlotSpace`; dxil-spirv's `NVAPI` option):
    /// its records are intrinsics (`dxop/nvapi.rs`). `None`: that UAV is an ordinary one, as
    /// on a D3D driver without the extension.
    pub nvapi: Option<NvapiSlot>,
    /// `shaderBufferInt64Atomics` (Vulkan 1.2): NVAPI's 64-bit atomics on buffers (on
    /// textures they need [`Self::image_int64_atomics`]).
    pub int64_atomics: bool,
    /// `shaderBufferFloat32AtomicAdd` (`VK_EXT_shader_atomic_float`): NVAPI's fp32 atomic add.
    pub float32_atomic_add: bool,
    /// `shaderImageFloat32AtomicAdd` (`VK_EXT_shader_atomic_float`): NVAPI's fp32 atomic add
    /// on a `RWTexture*<float>` / `RWBuffer<float>` target, through its `R32f` view.
    pub image_float32_atomic_add: bool,
    /// `shaderFloat16VectorAtomics` (`VK_NV_shader_atomic_float16_vector`): NVAPI's fp16x2
    /// atomics.
    pub float16_vector_atomics: bool,
    /// `VK_NV_shader_subgroup_partitioned`: NVAPI's `NvWaveMatch`.
    pub subgroup_partitioned: bool,
    /// `imageFootprint` (`VK_NV_shader_image_footprint`): NVAPI's texture footprints
    /// (`NvFootprint*`) as `OpImageSampleFootprintNV`.
    pub image_footprint: bool,
    /// `rayTracingInvocationReorder` (`VK_NV_ray_tracing_invocation_reorder`, or the EXT
    /// extension under [`Options::shader_invocation_reorder`]): NVAPI's hit objects
    /// (`NvHitObject`, `NvReorderThread`).
    pub invocation_reorder: bool,
    /// `clusterAccelerationStructure` (`VK_NV_cluster_acceleration_structure`): NVAPI's
    /// cluster ids (`NvRtGetClusterID`, `NvRtGet{Candidate,Committed}ClusterID`).
    pub cluster_acceleration_structure: bool,
    /// `rayTracingPositionFetch` (`VK_KHR_ray_tracing_position_fetch`): NVAPI's triangle
    /// object positions (`NvRt[Candidate/Committed]TriangleObjectPositions`).
    pub ray_tracing_position_fetch: bool,
    /// `spheres` (`VK_NV_ray_tracing_linear_swept_spheres`): NVAPI's sphere queries
    /// (`NvRt*Sphere*`).
    pub spheres: bool,
    /// `linearSweptSpheres` (`VK_NV_ray_tracing_linear_swept_spheres`): NVAPI's
    /// linear-swept-sphere queries (`NvRt*Lss*`).
    pub linear_swept_spheres: bool,
}

/// The register of NVAPI's magic UAV (`u<register>, space<space>`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NvapiSlot {
    pub register: u32,
    pub space: u32,
}

/// The storage-image encodings of a feedback map ([`Options::sampler_feedback`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SamplerFeedbackEncoding {
    /// vkd3d-proton's: the feedback UAV (`FeedbackTexture2D[Array]`) is an `R64ui` storage
    /// image (one array layer per paired-texture layer) holding, at texel `(x, y)`, one
    /// 4-bit field per mip level `m` (bits `4m..4m+3`) for mip region `(x, y)` of level
    /// `m`: bit 0 the region itself was touched, bit 1 also its right neighbour, bit 2 the
    /// one below, bit 3 the diagonal one. The low 4 bits of the image's width and height
    /// are log2 of the mip region's width and height (the layer pads the image so). The
    /// shader ORs fields in with 64-bit image atomics; the layer's resolve passes decode
    /// them into `MIN_MIP_OPAQUE` / `MIP_REGION_USED_OPAQUE` results.
    Vkd3dProton,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            binding_map: BindingMap::default(),
            root_signature: None,
            embedded_root_signature: None,
            resource_remap: None,
            placement: None,
            dual_source_blending: false,
            invariant_position: false,
            render_target_sample_count: None,
            render_target_sample_count_spec_id: RENDER_TARGET_SAMPLE_COUNT_SPEC_ID,
            entry_point_name: None,
            io_remap: None,
            stream_output: None,
            tess_domain_origin: TessDomainOrigin::default(),
            max_tess_factor: None,
            per_primitive_inputs: Vec::new(),
            maximal_reconvergence: false,
            float_controls2: false,
            min_precision: MinPrecision::default(),
            strict_helper_lane_wave_ops: true,
            raw_buffer_vectors: true,
            cleanups: true,
            wave_lane_count: None,
            ray_traversal_primitive_culling: false,
            view_instancing: None,
            output_swizzles: Vec::new(),
            sampler_feedback: None,
            vendor: VendorFeatures::default(),
            shader_invocation_reorder: ReorderExtension::Nv,
        }
    }
}

/// The width of minimum-precision floats (`min16float`, DXIL `half` in a module without
/// native 16-bit types). D3D lets a driver compute them at any precision of at least 16
/// bits; memory holds them at 32 bits either way (DXC lays min-precision values out in
/// 32-bit slots), so only arithmetic and the declared capabilities differ.
/// 16-bit integers (`min16int`) stay 16-bit in both: only floats are widened, as in
/// dxil-spirv.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum MinPrecision {
    /// Real 16-bit floats (`Float16`): the device needs `shaderFloat16`. What a layer picks
    /// when the device reports D3D12's `Native16BitShaderOpsSupported`.
    #[default]
    Native16Bit,
    /// 32-bit floats: no 16-bit capability, for devices without 16-bit arithmetic.
    Float32,
}

/// How a translation maps D3D12 view instancing onto Vulkan ([`Options::view_instancing`]).
///
/// D3D12 renders view instance `i` (`SV_ViewID` = `i`, at most 4) to render-target array
/// slice `RenderTargetArrayIndex[i]` through viewport `ViewportArrayIndex[i]`, offsets added
/// to what the shader writes itself. vkd3d-proton draws that as one multiview pass whose
/// view mask has bit `RenderTargetArrayIndex[i]` set for each instance, so Vulkan's
/// `ViewIndex` *is* the instance's slice (multiview renders view `v` to layer `v`), and the
/// shader maps it back to the instance with a specialization constant. Pipelines that cannot
/// use multiview (an instance whose slice the shader offsets with its own
/// `SV_RenderTargetArrayIndex`, two instances on one slice) take the instance and its slice
/// from a uniform buffer instead ([`ViewInstancing::offsets_buffer`]), drawing the instances
/// one at a time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ViewInstancing {
    /// This shader is the pipeline's last pre-rasterization stage (the vertex, domain,
    /// geometry or mesh shader that feeds the rasterizer): it writes the instance's
    /// viewport (and, through the offsets buffer, its slice) or adds them to its own
    /// `SV_ViewportArrayIndex` / `SV_RenderTargetArrayIndex`. Earlier stages and pixel
    /// shaders only read `SV_ViewID`.
    pub last_pre_rasterization: bool,
    /// `SpecId` of a `uint` specialization constant mapping Vulkan's `ViewIndex` to
    /// `SV_ViewID`: bits `2·ViewIndex` and `2·ViewIndex + 1` hold the instance rendered as
    /// view `ViewIndex` (`ViewID = bitfieldExtract(c, 2·ViewIndex, 2)`; the module declares
    /// `MultiView`). Used unless the shader writes `SV_RenderTargetArrayIndex` (multiview
    /// cannot offset the slice: [`ViewInstancing::multiview_compatible`] is false then);
    /// `None`: the instance comes from the offsets buffer.
    pub view_index_to_view_id_spec_id: Option<u32>,
    /// `SpecId` of a `uint` specialization constant whose byte `SV_ViewID` holds the
    /// instance's `ViewportArrayIndex` (`bitfieldExtract(c, 8·ViewID, 8)`). The last
    /// pre-rasterization stage writes it to `ViewportIndex` (a vertex or domain shader at
    /// its start, a geometry shader before each emitted vertex, a mesh shader for every
    /// primitive once it sets its output counts), or adds it to the shader's own
    /// `SV_ViewportArrayIndex`. The pipeline needs `multiViewport` (and, for vertex and
    /// domain shaders, `shaderOutputViewportIndex`). `None`: every instance draws through
    /// viewport 0 (or the one the shader writes).
    pub view_id_to_viewport_spec_id: Option<u32>,
    /// A uniform buffer holding one `uint` at (descriptor set, binding): bits 0..16 the view
    /// instance being drawn, bits 16..32 its render-target array slice (dxil-spirv's
    /// "dynamic view instancing offsets"). `SV_ViewID` reads it where the specialization
    /// constant cannot serve; the last pre-rasterization stage adds the slice to its own
    /// `SV_RenderTargetArrayIndex`, or, without a `ViewIndex` mapping, writes the slice to
    /// `Layer`. A shader that needs it without one is refused ([`Error::Options`]).
    pub offsets_buffer: Option<(u32, u32)>,
}

impl ViewInstancing {
    /// Whether the module draws its instances through Vulkan multiview: a `ViewIndex`
    /// mapping is given and the shader does not write `SV_RenderTargetArrayIndex` (in
    /// `outputs`, its output signature, or a mesh shader's primitive outputs), which
    /// multiview cannot offset per view. dxil-spirv's `is_multiview_compatible`.
    pub fn multiview_compatible(&self, stage: ShaderKind, signatures: &crate::dxil::Signatures) -> bool {
        self.view_index_to_view_id_spec_id.is_some() && !writes_layer(stage, signatures)
    }
}

/// Whether a shader of `stage` writes `SV_RenderTargetArrayIndex` as a system value (a
/// vertex, domain or geometry output, a mesh shader's primitive output; hull shaders pass
/// system values on as plain data).
pub fn writes_layer(stage: ShaderKind, signatures: &crate::dxil::Signatures) -> bool {
    writes_system_value(stage, signatures, crate::dxil::SemanticKind::RenderTargetArrayIndex)
}

/// Whether a shader of `stage` writes system value `sv` as one ([`writes_layer`]'s rule).
pub fn writes_system_value(
    stage: ShaderKind,
    signatures: &crate::dxil::Signatures,
    sv: crate::dxil::SemanticKind,
) -> bool {
    let has = |els: &[crate::dxil::SignatureElement]| els.iter().any(|e| e.system_value == sv);
    match stage {
        ShaderKind::Vertex | ShaderKind::Domain | ShaderKind::Geometry => has(&signatures.outputs),
        ShaderKind::Mesh => has(&signatures.patch_constants),
        _ => false,
    }
}

/// A root signature and how to lower it.
#[derive(Clone, Debug)]
pub struct RootSignatureBinding {
    pub signature: RootSignature,
    pub layout: LayoutOptions,
}

/// Where the pipeline puts the origin of the tessellation domain
/// (`VkTessellationDomainOrigin`); it decides which Vulkan vertex order is D3D's winding.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum TessDomainOrigin {
    /// Vulkan's default (`VK_TESSELLATION_DOMAIN_ORIGIN_UPPER_LEFT`).
    #[default]
    UpperLeft,
    /// `VK_TESSELLATION_DOMAIN_ORIGIN_LOWER_LEFT` (Vulkan 1.1 / `VK_KHR_maintenance2`).
    LowerLeft,
}

/// The `SpecId` of the render target's sample count (`stage/pixel.rs` documents the contract):
/// `0x554E_5301` ("UNS" and 1), far from the small ids applications and layers number their
/// own constants with.
pub const RENDER_TARGET_SAMPLE_COUNT_SPEC_ID: u32 = 0x554E_5301;

/// The layout report (`--layout-json`): everything a translation layer needs to build the
/// `VkPipelineLayout` and fill it, and where each of this shader's resources went.
/// Its JSON schema is documented in `docs/layout-json.md`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LayoutReport {
    /// `"untangle-layout/1"`.
    pub schema: &'static str,
    pub stage: &'static str,
    pub entry_point: String,
    #[serde(flatten)]
    pub layout: PipelineLayout,
    /// Ray-tracing entries with a local root signature: where its arguments are in the
    /// shader record (`rootsig::record`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shader_record: Option<crate::rootsig::record::ShaderRecordLayout>,
    pub resources: Vec<ResolvedResource>,
}

/// The layout report's schema name.
pub const LAYOUT_SCHEMA: &str = "untangle-layout/1";

/// A translated shader.
#[derive(Clone, Debug)]
pub struct Translation {
    pub words: Vec<u32>,
    pub stage: ShaderKind,
    pub entry_point: String,
    /// Where each declared resource landed (descriptor bindings; with a root signature,
    /// see `layout` for push constants and heap tables).
    pub bindings: Vec<MappingRow>,
    /// The lowered root signature and this shader's resources in it (with a root
    /// signature only).
    pub layout: Option<LayoutReport>,
}

// --- Emission state: one function, one dx.op call ---

/// What a function needs of quads of threads in compute-like stages (compute, mesh,
/// amplification, node), which have no quads of their own: Vulkan forms them only under a
/// derivative group execution mode (`SPV_KHR_compute_shader_derivatives`). Ordered: an
/// entry needs the most any of its operations does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum ThreadQuads {
    /// Nothing.
    #[default]
    None,
    /// SM 6.6+ quad operations (`QuadReadAcrossX/Y/Diagonal`, `QuadReadLaneAt`,
    /// `QuadAny/All`): D3D's SM 6.6 gives them the quads of compute derivatives (2x2 threads
    /// of the group's X and Y when both are even, else 4 consecutive threads), where the
    /// group's size allows quads; elsewhere they keep the lanes' quads.
    QuadOps,
    /// Derivatives (explicit, or implicit in sampling and LOD queries): the group's size must
    /// be a multiple of 4.
    Derivatives,
}

/// One DXIL function being emitted: the module builder, the entry point's resources and
/// interface, the function and its structurized CFG, and the ids made so far. `function`
/// emits LLVM instructions and control flow; `dxop`, `interface`, `resources`,
/// `transform_feedback` and the stage modules add the methods that lower everything else.
pub struct FnEmit<'a, 'm> {
    pub cx: &'a mut ModuleBuilder<'m>,
    pub res: &'a mut Resources<'m>,
    pub sm: &'a ShaderModel,
    pub f: &'m Function,
    pub sigs: &'a crate::dxil::Signatures,
    pub iface: Interface,
    scfg: &'a Scfg,
    /// The structurized block of each original block (dense tables: every value and
    /// block lookup of emission goes through these three).
    sblock_of: SecondaryMap<BlockId, Option<SBlock>>,
    doms: DomTree<SBlock>,
    def_block: SecondaryMap<InstId, Option<BlockId>>,
    /// Result ids so far; 0 (never a SPIR-V id) for none.
    ids: SecondaryMap<InstId, Word>,
    /// Pointer results: id and storage class.
    ptrs: HashMap<InstId, (Word, StorageClass)>,
    /// Operation results that are module-scope variables (`getMeshPayload`), valid
    /// everywhere.
    global_ptrs: HashMap<InstId, (Word, StorageClass)>,
    demoted: HashMap<InstId, Word>,
    phi_vars: HashMap<InstId, Word>,
    allocas: HashMap<InstId, Word>,
    /// Allocas copied from constant-buffer words, read from the constant buffer instead
    /// (`crate::rewrite::cbuffer_array`; planned with the variables).
    cb_arrays: crate::rewrite::cbuffer_array::CbufferArrays,
    /// Per long-vector array type, the `Function` variable of its dynamic lane accesses
    /// (`long_vector`).
    long_scratch: HashMap<Word, Word>,
    pub handles: HashMap<InstId, Handle>,
    /// `allocateRayQuery` results: the query's variable and its constant ray flags.
    pub ray_queries: HashMap<InstId, (Word, u32)>,
    /// Hit-object producing calls: their slot in [`Self::hit_array`] (`dxop/hit_object.rs`).
    pub hit_slots: HashMap<InstId, u32>,
    /// The function's `Function` array of hit objects, one slot per producing call (0:
    /// none).
    pub hit_array: Word,
    /// `HitObjectAttribute*` variables by attribute type.
    pub hit_attrs: HashMap<TypeId, Word>,
    /// The original block being emitted.
    cur: SBlock,
    reloads: HashMap<(SBlock, InstId), Word>,
    /// Descriptor pointers and loaded descriptors made so far, with the original block and
    /// the SPIR-V label they were written in (see [`FnEmit::reusable`]).
    descriptors: HashMap<DescriptorKey, (SBlock, Word, Word)>,
    /// Byte addresses of raw and structured accesses → an id of the same address / 4 written
    /// beside them (`dxop/buffers.rs`, `structured_word`), and the one being written.
    address_words: HashMap<Word, Word>,
    pending_word: Option<Word>,
    /// The raw address [`Self::byte_address`] returned last when the IR computed it as
    /// `x << k` with no bit shifted out: `(address, x, k)`, so that a word or vector index
    /// `address >> s` is `x` shifted by `k - s` (`FnEmit::shift_right`). Reset by every
    /// `byte_address`, whose callers use it at once, in the same block.
    exact_shift: Option<(Word, Word, u32)>,
    /// For `dx.op` results: which struct members are extracted (bit k: member k).
    pub used_members: HashMap<InstId, u32>,
    /// Blocks split by a conditional operation (`discard`): entry label → label of the last
    /// part, which is the predecessor that `OpPhi`s in successors must name.
    pub exit_labels: HashMap<Word, Word>,
    /// Original blocks whose PHIs become `OpPhi`s (see [`Self::direct_phis`]).
    direct: HashSet<BlockId>,
    block_labels: HashMap<SBlock, Word>,
    /// Inputs of PHIs with many entries, by predecessor (see [`Self::phi_input`]).
    phi_inputs: HashMap<InstId, HashMap<BlockId, Value>>,
    layout_pos: HashMap<SBlock, usize>,
    preds: Preds,
    /// What the function's operations need of quads of threads (compute-like stages then
    /// declare a derivative group execution mode): see [`ThreadQuads`].
    pub thread_quads: ThreadQuads,
    cur_label: Word,
    cur_loop_header: bool,
    /// AMD AGS intrinsics: the phase order of this function's magic-UAV calls, and the
    /// SPIR-V ids the open intrinsic's earlier phases left for its later ones (`dxop/ags.rs`).
    pub ags: crate::dxil::ags::Sequencer,
    pub ags_pending: Vec<Word>,
    /// An AGS 64-bit atomic between its phases (`dxop/ags.rs`).
    pub ags_u64: Option<AgsU64>,
    /// An AGS byte or short buffer store between its phases (`dxop/ags.rs`).
    pub ags_store: Option<AgsStore>,
    /// NVAPI: where this function's record sequence on the magic UAV stands, and the
    /// target an atomic's marking record named (`dxop/nvapi.rs`).
    pub nvapi: crate::dxil::nvapi::Stream<Word, Handle>,
    /// An NVAPI hit-object record waiting for the `TraceRay` or `CallShader` on its token
    /// (`dxop/nvapi_hit.rs`).
    pub nv_hit: Option<NvHitPending>,
    /// AGS WMMA: matrices and the intrinsic being assembled (`dxop/ags_wmma.rs`).
    pub wmma: Wmma,
    /// `dx.op` functions (with the operation called through them) whose declared type
    /// passed the signature check (`dxop/check.rs`): a later call whose result and
    /// operands have the declared types needs only its immediates checked.
    pub signatures_checked: HashSet<(crate::ir::FuncId, crate::dxil::DxOp)>,
}

/// An NVAPI hit-object record performed up to the call on its token (`dxop/nvapi_hit.rs`):
/// `TRACE_RAY`, `MAKE_HIT*` and `INVOKE` wait for a `TraceRay`, `MAKE_HIT*` first for a
/// `CallShader` with the attributes, `GET_ATTRIBUTES` for a `CallShader`.
#[derive(Clone, Debug)]
pub struct NvHitPending {
    /// The `NV_EXTN_OP_HIT_OBJECT_*` number.
    pub opcode: u32,
    /// The pointer to the hit object's slot (its own for the makers, the operand's else).
    pub slot: Word,
    /// The record's operand words the call needs (`src0u`, then `src1u`).
    pub words: Vec<Word>,
    /// The `IncrementCounter` that returned the token, once it ran.
    pub token: Option<InstId>,
    /// `MAKE_HIT*`: the `HitObjectAttribute*` variable the `CallShader` filled.
    pub attributes: Option<Word>,
}

/// An AGS 64-bit atomic (`AtomicU64`) between its phases: phase 0 gave the address, phase 1
/// the value's low word, and a store of phase 1's result at phase 0's names the target
/// buffer or texture; phase 2 (the value's high word) performs the atomic and defines phase 0's
/// result (the old value's low word) anew.
#[derive(Clone, Copy, Debug)]
pub struct AgsU64 {
    pub phase0: InstId,
    pub phase1: Option<InstId>,
    /// A buffer target's byte address (phase 0's first source).
    pub address: Word,
    /// A texture target's coordinates: phase 0's two sources and phase 1's first (AGS's
    /// `uint3 address`), read only for texture targets.
    pub texel: [Option<crate::ir::Value>; 3],
    pub value_lo: Word,
    pub target: Option<Handle>,
    /// The compare-exchange's phase 2 operands (the value's high word, the comparator's
    /// low word), which its phase 3 (the comparator's high word) completes.
    pub cmpxchg: Option<(Word, Word)>,
}

/// An AGS `BufferStoreByte` / `BufferStoreShort` between its phases: phase 0 gave the
/// value (its low `bytes` bytes are stored); a store of phase 0's result names the target
/// buffer and the byte address, and is where the sub-word store is emitted; phase 1 ends
/// the intrinsic.
#[derive(Clone, Copy, Debug)]
pub struct AgsStore {
    pub phase0: InstId,
    pub value: Word,
    pub bytes: u32,
    pub stored: bool,
}

/// One function's AGS WMMA state (`dxop/ags_wmma.rs`).
#[derive(Default)]
pub struct Wmma {
    /// Output words: the matrix id, its type and the word's index (0..7).
    pub(super) words: HashMap<InstId, (Word, crate::dxil::ags::MatrixType, u32)>,
    /// The words were checked to reach only magic-UAV calls.
    pub(super) checked: bool,
    pub(super) open: Option<Open>,
    /// Where the first block's variables end (`Builder::function_offset`).
    pub(super) vars_at: usize,
    /// `Function` variables of cooperative-matrix type the lowering needed (dynamic
    /// element access, matrices through PHIs): (pointer type, id), inserted at `vars_at`
    /// when the function ends.
    pub(super) late_vars: Vec<(Word, Word)>,
    /// The groupshared scratch of use changes through memory (`u32` slots of 256).
    pub(super) scratch: Option<Word>,
    /// PHIs that carry matrix words: PHI → (its group's leader, the word index). The
    /// leader (word 0) carries the matrix in a `Function` variable; the other 7 name it.
    pub(super) carriers: HashMap<InstId, (InstId, u32)>,
    /// Leader PHI → its variable, the matrix type and the cooperative-matrix type id.
    pub(super) carrier_vars: HashMap<InstId, (Word, crate::dxil::ags::MatrixType, Word)>,
    /// Instructions of allocas holding matrices (`dxop/ags_wmma_memory.rs`).
    pub(super) slots: HashMap<InstId, SlotAccess>,
    /// Matrix alloca → its variable (an array of matrices), the matrix type and the
    /// cooperative-matrix type id.
    pub(super) slot_vars: HashMap<InstId, (Word, crate::dxil::ags::MatrixType, Word)>,
    /// A load group's leader → the matrix it loaded.
    pub(super) slot_loads: HashMap<InstId, (Word, crate::dxil::ags::MatrixType)>,
    /// Alloca holding matrix words but not planned → why (the word check says it).
    pub(super) slot_refusals: HashMap<InstId, String>,
}

/// Which matrix of a matrix alloca an access names.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum Slot {
    Const(u32),
    Dynamic(Value),
}

/// What an instruction of a matrix alloca's does (`Wmma::slots`, `dxop/ags_wmma_memory.rs`).
#[derive(Clone, Copy, Debug)]
pub(super) enum SlotAccess {
    /// The alloca, an address into it, or a cast for lifetime markers: nothing emitted.
    Address,
    /// A word store; at the group's last one, `whole` is the value its word-0 store stores.
    Store { alloca: InstId, slot: Slot, whole: Option<Value> },
    /// Word `k` loaded; the group's first load (`leader`) loads the matrix.
    Load { alloca: InstId, slot: Slot, k: u32, leader: InstId },
}

/// The intrinsic being assembled.
pub(super) struct Open {
    pub(super) opcode: crate::dxil::ags::Opcode,
    /// Matrices passed so far, by register kind (0: return-value register, 1..3: A, B, C),
    /// with how many of their 4 input calls came.
    pub(super) inputs: Vec<(u32, Word, crate::dxil::ags::MatrixType, u32)>,
    /// A load or store's memory: its pointer and the stride id.
    pub(super) memory: Option<Memory>,
    /// The doorbell call (its result is the address the hooking access uses).
    pub(super) doorbell: Option<InstId>,
    /// The access that named the memory (a buffer load or an LDS atomic).
    pub(super) hook: Option<InstId>,
    /// The result matrix and how many of its words were returned.
    pub(super) result: Option<(Word, crate::dxil::ags::MatrixType, u32)>,
}

#[derive(Clone, Copy)]
pub(super) struct Memory {
    pub(super) offset: Word,
    pub(super) stride: Word,
    /// The element pointer (LDS) or `None` until the buffer load names the buffer.
    pub(super) ptr: Option<(Word, bool)>,
}

/// A decoded call: the operation, its arguments after the opcode, the call instruction and
/// its result type.
pub struct Call<'c> {
    pub op: DxOp,
    pub args: &'c [Value],
    pub inst: InstId,
    pub ty: TypeId,
}

// --- The entry point's interface ---

/// The numeric kind of a 32-bit interface scalar.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Num {
    Float,
    SInt,
    UInt,
    Bool,
}

/// Per-stage facts the interface needs, from the entry point's properties.
#[derive(Clone, Debug, Default)]
pub struct StageIo {
    /// Length of per-vertex input arrays: a hull shader's input control points, a domain
    /// shader's control points, the vertices of a geometry shader's input primitive.
    pub input_vertices: u32,
    /// A hull shader's output control points (length of its per-vertex output arrays).
    pub output_vertices: u32,
    /// A geometry shader writes streams other than 0 (`OpEmitStreamVertex`, `Stream`
    /// decorations).
    pub multi_stream: bool,
    /// Hull shaders: how tessellation factors are adjusted before they are stored.
    pub tess_factors: Option<TessFactorRule>,
    /// Mesh shaders: `[maxprimitives]` (length of per-primitive output arrays); their
    /// `[maxvertices]` is `output_vertices`.
    pub output_primitives: u32,
    /// Mesh shaders: `[outputtopology("line")]` (else triangles).
    pub mesh_lines: bool,
    /// Mesh shaders: the threads of a group (`[numthreads]`'s product).
    pub mesh_threads: u32,
    /// Pixel shaders: inputs (semantic, index) a mesh shader writes per primitive
    /// ([`Options::per_primitive_inputs`]), decorated `PerPrimitiveEXT`.
    pub per_primitive_inputs: Vec<(String, u32)>,
    /// Pixel shaders: wave operations leave helper lanes out
    /// ([`Options::strict_helper_lane_wave_ops`] and no `"waveops-include-helper-lanes"`
    /// on the entry).
    pub wave_excludes_helpers: bool,
    /// Pixel shaders with a rasterizer-ordered UAV (`RasterizerOrdered*`: the ROV flag of the
    /// resource metadata, or a heap handle annotated so): the entry function is one
    /// fragment-shader-interlock critical section (`emit::rov`).
    pub rov_interlock: bool,
    /// [`Options::wave_lane_count`].
    pub wave_lane_count: Option<u32>,
    /// [`Options::sampler_feedback`].
    pub sampler_feedback: Option<SamplerFeedbackEncoding>,
    /// [`Options::vendor`].
    pub vendor: VendorFeatures,
    /// [`Options::raw_buffer_vectors`].
    pub raw_buffer_vectors: bool,
    /// Compute shaders: the most subgroups a group can have (`[numthreads]`'s product over
    /// `[WaveSize]`'s minimum, or the product when no wave size is declared): AGS WMMA's
    /// use changes through groupshared scratch take one slot per subgroup.
    pub max_subgroups: Option<u32>,
    /// Pixel shaders: the input elements some `attributeAtVertex` reads. They are
    /// `PerVertexKHR` arrays of the primitive's 3 vertices (`SPV_KHR_fragment_shader_barycentric`;
    /// `loadInput` reads vertex 0, the provoking vertex), see `crate::emit::stage::pixel`.
    pub per_vertex_inputs: std::collections::BTreeSet<u32>,
}

/// D3D's treatment of tessellation factors that Vulkan's tessellator does not share: the
/// `[maxtessfactor]` clamp and `pow2` partitioning (rounding up to a power of two, then
/// integer spacing).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TessFactorRule {
    /// Factors above it are clamped to it (at most D3D's maximum: 64, 63 with
    /// fractional-odd partitioning; Vulkan implementations may allow more).
    pub max: f32,
    pub pow2: bool,
}

/// How a signature element's values are held: their numeric kind, rows and columns (of
/// the element in its signature, or of the variable holding it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repr {
    pub num: Num,
    /// Array length (1: not an array).
    pub rows: u32,
    /// Vector size (1 for scalars).
    pub cols: u32,
}

/// A signature element's variable and how its values are represented there.
#[derive(Clone, Copy, Debug)]
pub struct SigVar {
    pub var: Word,
    /// `Input` or `Output`; `Private` for an output element split for stream output
    /// (see [`stream_output`]), whose stores go to a copy.
    pub class: StorageClass,
    /// The variable's numeric kind and shape.
    pub repr: Repr,
    pub builtin: Option<BuiltIn>,
    /// Value to subtract (`BaseVertex` / `BaseInstance` variable) after loading.
    pub minus: Option<Word>,
    /// Clip and cull distances, tessellation factors: where this element starts in the
    /// built-in's float array (its elements are laid out in register order, row by row).
    pub flat_base: Option<u32>,
    /// Length of the outer per-vertex array (0: the variable is not arrayed).
    pub vertices: u32,
    /// A varying that receives a copy of every store (built-ins a later pre-rasterization
    /// stage reads as a varying; see the module documentation).
    pub copy: Option<Word>,
    /// The element's own numeric kind (that of the copy) and its rows and columns in its
    /// signature (what `row` and `col` index).
    pub element: Repr,
    /// A render target under [`Options::output_swizzles`]: the variable's component that
    /// receives each column of the element.
    pub swizzle: Option<[u8; 4]>,
}

/// The entry point's interface as it is built: built-in and signature variables, the
/// stage's facts and the per-stage state its operations share (`interface` and the stage
/// modules add the methods).
#[derive(Default)]
pub struct Interface {
    /// The remapping callback of [`Options::io_remap`], if any.
    pub remap: Option<IoRemap>,
    /// [`Options::dual_source_blending`].
    pub dual_source: bool,
    /// [`Options::invariant_position`].
    pub invariant_position: bool,
    pub stage: StageIo,
    builtins: BTreeMap<(u32, u32), Word>,
    elements: BTreeMap<(SigKind, u32), SigVar>,
    /// Components taken per (output?, location), bit k: component k.
    locations: BTreeMap<(bool, u32), u8>,
    /// Who took each component: (output?, location, component) -> the element (its
    /// signature and id: messages name it from there), and whether the I/O remapping
    /// callback placed it.
    location_owners: BTreeMap<(bool, u32, u32), (SigKind, u32, bool)>,
    pub modes: Vec<ExecutionMode>,
    /// Stream output ([`Options::stream_output`]), when given.
    pub(crate) xfb: Option<XfbState>,
    /// The highest `Location` an output variable occupies.
    pub max_output_location: Option<u32>,
    /// Mesh and amplification shaders' payload and group counts.
    pub(crate) mesh: MeshVars,
    /// Ray-tracing stages: payload, attribute and callable-data variables.
    pub(crate) ray: Option<RayState>,
    /// Work-graph nodes: push constants, record variables and handles.
    pub(crate) node: Option<NodeState>,
    /// [`Options::view_instancing`] and what its lowering declared so far.
    pub view: Option<ViewState>,
    /// [`Options::output_swizzles`] (pixel shaders).
    pub output_swizzles: Vec<[u8; 4]>,
    /// AMD AGS barycentrics: where each barycentric built-in (`BaryCoordKHR`,
    /// `BaryCoordNoPerspKHR`, by number) is evaluated (its `Centroid` / `Sample`
    /// decoration, by number, or `None` at the pixel centre): one variable per built-in.
    pub ags_barycentrics: BTreeMap<u32, Option<u32>>,
}

/// View instancing while an entry point is emitted (`view_instancing`).
#[derive(Clone, Debug, Default)]
pub struct ViewState {
    pub options: ViewInstancing,
    /// The shader writes `SV_RenderTargetArrayIndex` / `SV_ViewportArrayIndex` itself.
    pub writes_layer: bool,
    pub writes_viewport: bool,
    /// The `ViewIndex` → `SV_ViewID` and `SV_ViewID` → viewport specialization constants,
    /// and the offsets buffer's variable, once declared.
    pub view_id_map: Option<Word>,
    pub viewport_map: Option<Word>,
    pub offsets: Option<Word>,
}

/// The module-scope state of a mesh or amplification shader's operations.
#[derive(Clone, Debug, Default)]
pub struct MeshVars {
    /// The `TaskPayloadWorkgroupEXT` variable (one per entry point): its id, possibly
    /// reserved by an `OpEmitMeshTasksEXT` before the variable is defined.
    pub payload: Option<Word>,
    /// Whether `payload` has its `OpVariable` yet.
    pub payload_defined: bool,
    /// Amplification shaders: the `Private` group counts `dispatchMesh` recorded.
    pub task_counts: Option<[Word; 3]>,
}

/// The ray-tracing variables of one entry function.
#[derive(Clone, Debug, Default)]
pub struct RayState {
    /// Entry parameter k → its variable and storage class.
    pub args: Vec<Option<(Word, StorageClass)>>,
    /// `alloca`s passed to `traceRay` / `callShader` → their module-scope variable.
    pub locals: HashMap<InstId, (Word, StorageClass)>,
    /// The `HitAttributeKHR` variable and its IR value type, once made.
    pub hit_attributes: Option<(Word, TypeId)>,
}

impl Num {
    /// The 32-bit SPIR-V scalar type of this kind.
    pub fn scalar(self, cx: &mut ModuleBuilder<'_>) -> Word {
        match self {
            Num::Float => cx.float(32),
            Num::SInt => cx.sint(32),
            Num::UInt => cx.uint(32),
            Num::Bool => cx.bool_t(),
        }
    }
}

// --- Resources ---

/// A resource handle as the translator tracks it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Handle {
    pub class: ResourceClass,
    /// The range id within its class.
    pub id: u32,
    /// The absolute register index (for ranges of more than one register).
    pub index: Option<Value>,
    pub non_uniform: bool,
    /// For `createHandleFromHeap` (SM 6.6 bindless): which heap, and the resource
    /// properties `annotateHandle` gave it.
    pub heap: Option<HeapHandle>,
}

/// A descriptor access that gives the same result wherever in a function it is made
/// ([`FnEmit::reusable`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DescriptorKey {
    /// The pointer to handle `h`'s descriptor (or block) in variable `var`.
    Pointer { var: Word, h: Handle },
    /// The descriptor loaded through pointer `ptr`.
    Loaded { ptr: Word },
}

/// A descriptor-heap handle: the index is [`Handle::index`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct HeapHandle {
    pub sampler: bool,
    /// `dx.types.ResourceProperties` (basic, extra), once annotated.
    pub props: Option<[u32; 2]>,
}

/// The numeric kind of image texels.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum TexelKind {
    Float,
    SInt,
    UInt,
}

/// What a descriptor variable holds, as its operations see it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ResShape {
    CBuffer,
    /// Raw (stride `None`) or structured buffer, as `uint[]`.
    Words {
        stride: Option<u32>,
    },
    Image {
        dim: Dim,
        arrayed: bool,
        ms: bool,
        texel: TexelKind,
    },
    /// A sampler-feedback map (`FeedbackTexture2D[Array]` UAV) under
    /// [`Options::sampler_feedback`]'s encoding: a 2D `R64ui` storage image.
    Feedback {
        arrayed: bool,
    },
    Sampler,
    /// A ray-tracing acceleration structure (`OpTypeAccelerationStructureKHR`).
    AccelerationStructure,
}

/// How a handle's descriptor (or data) is found from its variable.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Indexing {
    /// One descriptor: the variable itself.
    Single,
    /// An array: element = register − `base`.
    Relative { base: u32 },
    /// A heap array, indexed by the handle's index as is (SM 6.6 heaps).
    Heap,
    /// A `heap`-model table: element = (root word at `at` >> `shift`) + register + `bias`
    /// (wrapping; `bias` = range offset − range base register; `shift`: a shader record
    /// holding descriptor handles rather than indices, [`placement::TableOffset::Record`]).
    Table { at: ArgAt, bias: u32, shift: u32 },
    /// A root descriptor: the buffer device address at `at`.
    Address { at: ArgAt },
    /// Root constants: `n` words from `at`.
    RootWords { at: ArgAt, n: u32 },
}

/// Where a root argument's bytes are: byte `offset` of the push constants or of the root
/// argument buffer.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct ArgAt {
    pub store: ArgStore,
    pub offset: u32,
}

/// The array shape of a descriptor variable.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum ArrayLen {
    One,
    Fixed(u32),
    Runtime,
    /// One storage buffer whose member 0 is a runtime array: an element is an entry of
    /// that array (the `uvec2` address tables of [`placement::BufferView::AddressTable`] and
    /// [`placement::CounterPlace::AddressTable`]), not a descriptor.
    InBlock,
}

/// A resource's variable (or root argument) and how a handle finds its descriptor there.
#[derive(Clone, Copy, Debug)]
pub struct ResVar {
    /// The variable (0 for root descriptors and root constants, which have none).
    pub var: Word,
    pub shape: ResShape,
    /// Pointee type of one descriptor (the block struct, image or sampler type).
    pub elem_ty: Word,
    pub storage: StorageClass,
    pub indexing: Indexing,
    pub uav: bool,
    binding: VkBinding,
    len: ArrayLen,
}

impl ResVar {
    /// This view (a second variable at `primary`'s binding, [`Resources::halves16`],
    /// [`Resources::word_vectors`]) as `primary`'s resource reaches it: the view's variable and
    /// descriptor type with `primary`'s indexing. A view is made once per variable, and
    /// the resources sharing a variable (the ranges of a descriptor heap) each find their
    /// descriptor with their own indexing (`Indexing::Table`'s `bias`): the view's own
    /// indexing is the first resource's.
    fn of(&self, primary: &ResVar) -> ResVar {
        ResVar { var: self.var, elem_ty: self.elem_ty, ..*primary }
    }
}

/// Where resources go: the default binding model, or places resolved from a root
/// signature.
#[derive(Clone, Debug)]
pub enum Binder {
    Default(DefaultPlacement),
    Root {
        places: BTreeMap<(ResourceClass, u32), Place>,
        push: PushConstants,
        heaps: Option<HeapSets>,
        spill: Option<RootArgumentBuffer>,
        /// Bytes of local root arguments in the shader record (0: no local root signature).
        record: u32,
    },
    /// The layer placed everything ([`Options::placement`]): its answers for the declared
    /// ranges, asked up front; SM 6.6 heap questions are asked when a heap kind is first
    /// indexed ([`Resources::heap_var`]).
    Layer {
        placement: placement::Placement,
        stage: ShaderKind,
        places: BTreeMap<(ResourceClass, u32), placement::ResourcePlace>,
    },
}

/// The push-constant block, once declared.
#[derive(Clone, Debug)]
struct PushBlock {
    var: Word,
    /// (byte offset, member index, words when the member is a `uint` array).
    members: Vec<(u32, u32, Option<u32>)>,
}

/// The resource table with the variables made so far.
pub struct Resources<'m> {
    /// The entry's resource table, borrowed: a translation copies none of it.
    pub table: &'m crate::dxil::Resources,
    pub binder: Binder,
    vars: BTreeMap<(ResourceClass, u32), ResVar>,
    counters: BTreeMap<u32, ResVar>,
    /// UAVs that atomics use: their images get an `R32ui`/`R32i` format, as Vulkan requires
    /// for image atomics.
    pub atomic_uavs: std::collections::BTreeSet<u32>,
    heap_vars: BTreeMap<(u32, u32, u32, bool, VkBinding), ResVar>,
    elem_views: BTreeMap<(ResourceClass, u32, &'static str), ResVar>,
    /// 16-bit views of raw and structured buffer variables, by the variable they alias.
    /// Several resources may share one variable (the ranges of a descriptor heap), each
    /// with its own indexing: only the view's variable and type are shared
    /// ([`ResVar::of`]).
    halves16: BTreeMap<Word, ResVar>,
    /// `uvec2`/`uvec4` and `u16vec2`/`u16vec4` views of raw and structured buffer
    /// variables, by the variable they alias, the element's bits and the vector's width
    /// (shared as `halves16` are).
    word_vectors: BTreeMap<(Word, u32, u32), ResVar>,
    /// The block types of those views, shared by the views of one element type, array
    /// stride and writability: (element, stride, writable) → block.
    view_blocks: BTreeMap<(Word, u32, bool), Word>,
    /// Views of typed UAVs in another format (`Resources::image_view`): (range id,
    /// format) → (view, texel type).
    image_views: BTreeMap<(u32, u32), (ResVar, Word)>,
    heap_counters: Option<ResVar>,
    /// The layer's answers to SM 6.6 heap questions, by the heap array's key.
    layer_heaps: BTreeMap<(ResourceClass, u32, u32, u32), placement::ResourcePlace>,
    /// Variables of bindings the layer declared `uvec2` address tables at.
    address_tables: BTreeMap<VkBinding, Word>,
    push: Option<PushBlock>,
    /// The root argument buffer's variable, once declared.
    spill: Option<Word>,
    /// The shader record block's variable, once declared.
    record: Option<Word>,
    /// Work-graph nodes bound through a root signature with push constants: the byte
    /// offset at which the node's `NodeDispatch` members follow the root arguments in the
    /// one push-constant block (`stage::node`).
    pub node_push_offset: Option<u32>,
    /// Work-graph nodes: the push-constant variable and member holding the address of the
    /// node's local root arguments (its record of the local root argument table), read in
    /// place of the ray-tracing shader record.
    pub node_record: Option<(Word, u32)>,
}

impl TexelKind {
    /// The 32-bit SPIR-V scalar type of these texels.
    pub fn scalar(self, cx: &mut ModuleBuilder<'_>) -> Word {
        self.num().scalar(cx)
    }

    /// The interface numeric kind of these texels.
    pub fn num(self) -> Num {
        match self {
            TexelKind::Float => Num::Float,
            TexelKind::SInt => Num::SInt,
            TexelKind::UInt => Num::UInt,
        }
    }
}
