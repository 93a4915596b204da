//! D3D12 root signatures: the model ([`model`]), its two spellings (the RTS0 binary part,
//! [`binary`], and the HLSL root-signature string, [`text`]), D3D12's rules ([`validate`](mod@validate)),
//! typed errors ([`error`]), and the lowering onto a Vulkan pipeline layout under the `heap`
//! and `direct` binding models ([`layout`]) under a push-constant budget ([`spill`]), and the
//! resolution of a shader's resources against it ([`resolve`]).

pub mod binary;
pub mod error;
pub mod json;
pub mod layout;
pub mod model;
pub mod names;
pub mod pipeline;
pub mod place;
pub mod record;
pub mod resolve;
pub mod spill;
pub mod text;
pub mod validate;

pub use binary::{decode_rts0, from_container, parse_rts0, parse_rts0_file, to_rts0, to_rts0_container};
pub use error::{RootSigError, Rule, SyntaxKind, TextPos};
pub use layout::{BindingModel, LayoutOptions, RootDescriptors};
pub use model::*;
pub use text::{parse_hlsl, to_hlsl};
pub use validate::validate;
