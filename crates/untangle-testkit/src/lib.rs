//! untangle's test tooling, shared by the integration tests, proptest strategies, cargo-fuzz
//! targets, examples and benchmarks. None of it is in the translator a layer links.
//!
//! - [`check`]: checkers and oracles: SPIR-V structured rules, CFG oracles, trace
//!   interpreters of the original CFG, the structurized graph and the emitted SPIR-V,
//!   `spirv-val`, layout matching;
//! - [`dxil_ops`]: test modules for every DXIL operation the translator lowers, and the CPU
//!   semantics the GPU tests compare with;
//! - [`fuzzing`]: generators and mutators: random CFGs, random reducible CFGs, bitcode and
//!   container mutations;
//! - [`rootsig_gen`]: root signatures that cover a shader's resources;
//! - [`vulkan`] (feature `vulkan`): the Vulkan compute runner, GPU trace suite and corpus cases.

pub mod ags;
pub mod check;
pub mod difftest;
pub mod dxil_ops;
pub mod fuzzing;
pub mod interp;
pub mod nvapi;
pub mod rootsig_gen;
#[cfg(feature = "vulkan")]
pub mod vulkan;
