//! untangle translates DXIL (Direct3D 12 shaders: DXBC containers, raw DXIL bitcode, or DXIL
//! as LLVM text) into structured SPIR-V for Vulkan, and lowers D3D12 root signatures onto
//! Vulkan pipeline layouts.
//!
//! # Translating a shader
//!
//! Parse once ([`Shader::parse`]), reflect what a layer needs to know up front, translate
//! with [`Options`]:
//!
//! ```
//! # fn main() -> Result<(), untangle::Error> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/cs_groupshared_reduce.ll");
//! let bytes = std::fs::read(path)?;
//! let shader = untangle::Shader::parse(&bytes)?;
//! assert_eq!(shader.stage(), untangle::ShaderKind::Compute);
//! for r in shader.resources().iter() {
//!     println!("{} {}", r.register(), r.name); // u0, space0 ...
//! }
//! let spirv = shader.translate(&untangle::Options::default())?;
//! assert_eq!(spirv.words[0], 0x0723_0203); // the SPIR-V magic number
//! # Ok(()) }
//! ```
//!
//! # Binding through a root signature
//!
//! With a root signature, resources are bound the way a D3D12-on-Vulkan layer binds them, and
//! the [`LayoutReport`] says how to build the `VkPipelineLayout` (it depends on the root
//! signature and binding model only, so one layout serves every shader translated against it):
//!
//! ```
//! # fn main() -> Result<(), untangle::Error> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/cs_groupshared_reduce.ll");
//! # let shader = untangle::Shader::parse(&std::fs::read(path)?)?;
//! use untangle::rootsig::{self, BindingModel, LayoutOptions, Version};
//! let signature = rootsig::parse_hlsl("DescriptorTable(SRV(t0), UAV(u0))", Version::V1_1)?;
//! let options = untangle::Options {
//!     root_signature: Some(untangle::RootSignatureBinding {
//!         signature,
//!         layout: LayoutOptions { model: BindingModel::Heap, ..Default::default() },
//!     }),
//!     ..Default::default()
//! };
//! let t = shader.translate(&options)?;
//! let layout = t.layout.expect("bound through a root signature");
//! println!("{}", serde_json::to_string_pretty(&layout).unwrap()); // docs/layout-json.md
//! # Ok(()) }
//! ```
//!
//! # The API
//!
//! | need | call |
//! | --- | --- |
//! | load any input | [`Shader::parse`] (kind detected from the bytes) |
//! | reflect | [`Shader::stage`], [`Shader::entry_points`], [`Shader::resources`], [`Shader::signatures`], [`Shader::embedded_root_signature`], [`Shader::dxil`] |
//! | translate | [`Shader::translate`] or [`translate()`] with [`Options`] → [`Translation`] (SPIR-V words, bindings, [`LayoutReport`]) |
//! | place resources or stage I/O yourself | [`Options::resource_remap`] ([`ResourceRemap`]), [`Options::io_remap`] ([`IoRemap`]; the default places are [`default_location`], `docs/stage-interfaces.md`), [`Options::binding_map`] |
//! | tessellation winding | [`Options::tess_domain_origin`] ([`TessDomainOrigin`]): the pipeline's tessellation domain origin |
//! | stream output (transform feedback) | [`Options::stream_output`] ([`StreamOutput`], lowering in [`emit::stream_output`]) |
//! | root signatures | [`rootsig`]: parse RTS0 or HLSL strings, validate, print, lower ([`rootsig::layout`]) |
//! | errors | [`Error`]: every failure on bad input is typed; nothing panics |
//! | the structurizer alone | [`passes::structurize`] over [`ir`] functions, [`cfg`](mod@cfg) analyses, shape mode ([`emit::shape`]) |
//!
//! Everything is deterministic: the same input and options give the same words, whatever
//! thread translates them. Types are `Send + Sync`; there is no global state.
//!
//! Cargo feature `llvm` (off by default) adds LLVM 14 as an alternative front end, used by the
//! tests as an oracle; no input needs it.
//!
//! # Modules
//!
//! Data flow: bytes → [`front`] (detection once, then the container and the native `bitcode`
//! or `lltext` reader) → [`ir`] → [`dxil`] (meaning) → [`cfg`](mod@cfg) (analyses) →
//! [`rewrite`] (DXIL-aware IR rewrites) → [`passes`] (the structurizer, ending with
//! [`passes::phi`]) → [`rootsig`] (binding layout) → [`emit`] (SPIR-V).
//!
//! The structurizer's stages, under the names of the design reference (the blog series on
//! dxil-spirv), live in these files; [`passes`] explains how each works here:
//!
//! | design reference | here |
//! | --- | --- |
//! | ladders | [`passes::loop_exit`], [`passes::selection`] |
//! | continue ladders | [`passes::loop_continue`] |
//! | loop transposition | [`passes::loop_exit`] with [`passes::selection`]'s block constructs |
//! | merge splitting | [`passes::selection`], [`passes::header_split`], [`passes::edge_split`], [`passes::loop_entry`] |
//! | PHI repair | [`passes::phi`] |
//! | block order and merge instructions | [`passes::mark`] |
//!
//! `docs/architecture.md` in the repository describes the boundaries between the modules
//! and the test that keeps them (`tests/module_graph.rs`: no import circles, layers, a
//! structurizer that knows no DXIL and no SPIR-V). Modules hidden from these docs are
//! implementation details, public for the test kit only and not covered by any
//! compatibility promise.

/// Declares an entity reference: a `u32` index into a `cranelift_entity` map, with the
/// derives every such index takes and `entity_impl!` (its display prefix). Defined before
/// the modules so that every one of them can use it.
macro_rules! entity {
    ($(#[$meta:meta])* $vis:vis struct $name:ident, $prefix:literal) => {
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis struct $name(u32);
        cranelift_entity::entity_impl!($name, $prefix);
    };
}

pub mod cfg;
pub mod dxil;
pub mod emit;
pub mod error;
pub mod info;
pub mod ir;
pub mod passes;
pub mod rootsig;
mod shader;

pub mod front;
pub mod rewrite;

pub use emit::binding_model::{BindingMap, ResourceQuery, ResourceRemap, VkBinding};
pub use emit::locations::{default_location, IoLocation, IoQuery, IoRemap, SigKind};
pub use emit::stream_output::{StreamOutput, StreamOutputDeclaration, StreamOutputError};
pub use emit::translate::{LayoutReport, RootSignatureBinding};
pub use emit::{
    Error as TranslateError, MinPrecision, NvapiSlot, Options, ReorderExtension, SamplerFeedbackEncoding,
    TessDomainOrigin, Translation, VendorFeatures, VendorRefusal, ViewInstancing, RENDER_TARGET_SAMPLE_COUNT_SPEC_ID,
};
pub use error::{Error, Result};
pub use front::container::ShaderKind;
pub use front::ParseContext;
pub use rootsig::RootSignature;
pub use shader::{translate, translate_in, translate_module, Shader};
