//! D3D12 root signatures: the model ([`model`]), its two spellings (the RTS0 binary part
//! and the HLSL root-signature string), validation, and the lowering onto a Vulkan
//! pipeline layout under the `heap` and `direct` binding models ([`layout`]).

pub mod generate;
pub mod layout;
pub mod model;
pub mod resolve;

pub use model::*;
