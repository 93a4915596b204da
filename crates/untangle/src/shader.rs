//! A parsed shader ([`Shader`]): an input read into our IR with its DXIL meaning decoded
//! once, ready to reflect (stage, entry points, resources, signatures, an embedded root
//! signature) and to translate any number of times with different [`Options`].
//!
//! A `Shader` owns its data and is `Send + Sync`: parse once, translate from several threads.

use crate::container::{Container, ShaderKind};
use crate::dxil::DxOp;
use crate::dxil::{DxilInfo, EntryPoint, Resources, ShaderModel, Signatures};
use crate::emit::support::{support, Support, UnsupportedOperation};
use crate::emit::translate::{translate_analyzed, Options, RootSignatureBinding, Translation};
use crate::emit::TranslateError;
use crate::error::Result;
use crate::ir::Module;
use crate::load::Loaded;
use crate::rootsig::RootSignature;

/// A DXIL shader: a DXBC container, raw (or wrapped) DXIL bitcode, or DXIL as LLVM text.
pub struct Shader {
    loaded: Loaded,
    dxil: DxilInfo,
}

impl Shader {
    /// Reads any supported input; the kind is detected from the bytes. Fails with a typed
    /// error on malformed input, and on a module that is not DXIL (no `dx.shaderModel`).
    pub fn parse(bytes: &[u8]) -> Result<Shader> {
        Shader::parse_named(bytes.to_vec(), "input")
    }

    /// [`Shader::parse`], with `name` used in messages (a file name, say).
    pub fn parse_named(bytes: Vec<u8>, name: &str) -> Result<Shader> {
        Shader::from_loaded(crate::load::load_bytes(bytes, name)?)
    }

    /// A shader from an input already loaded with [`crate::load`].
    pub fn from_loaded(loaded: Loaded) -> Result<Shader> {
        let dxil = crate::dxil::analyze(&loaded.module)?;
        if dxil.shader_model.is_none() {
            return Err(TranslateError::NotAShader("no dx.shaderModel: not a DXIL module".into()).into());
        }
        Ok(Shader { loaded, dxil })
    }

    /// The shader model: stage, profile and version.
    pub fn shader_model(&self) -> &ShaderModel {
        self.dxil.shader_model.as_ref().expect("checked in from_loaded")
    }

    /// The stage (`Compute`, `Pixel`, ..., `Library` for ray-tracing and work-graph libraries).
    pub fn stage(&self) -> ShaderKind {
        self.shader_model().kind
    }

    /// Every entry point in `dx.entryPoints` order (one for a non-library shader; a library
    /// also lists a module-level entry without a function, which only carries resources).
    pub fn entry_points(&self) -> &[EntryPoint] {
        &self.dxil.entry_points
    }

    /// The entry point a non-library shader is translated from: the first with a function.
    pub fn entry_point(&self) -> Option<&EntryPoint> {
        self.dxil.entry_points.iter().find(|e| e.function.is_some())
    }

    /// The module's resource table (`dx.resources`): every declared register range.
    pub fn resources(&self) -> &Resources {
        &self.dxil.resources
    }

    /// The input, output and patch-constant signatures of [`Shader::entry_point`].
    pub fn signatures(&self) -> Option<&Signatures> {
        self.entry_point().map(|e| &e.signatures)
    }

    /// The root signature the container carries in an `RTS0` part, if any.
    pub fn embedded_root_signature(&self) -> Result<Option<RootSignature>> {
        match self.container() {
            Some(c) => Ok(crate::rootsig::from_container(&c)?),
            None => Ok(None),
        }
    }

    /// Everything the DXIL metadata says (the `info --json` report's `dxil` object).
    pub fn dxil(&self) -> &DxilInfo {
        &self.dxil
    }

    /// The module in our IR.
    pub fn module(&self) -> &Module {
        &self.loaded.module
    }

    /// The input as loaded: its bytes, what kind they were, the module.
    pub fn loaded(&self) -> &Loaded {
        &self.loaded
    }

    /// The DXBC container, for container inputs.
    pub fn container(&self) -> Option<Container<'_>> {
        self.loaded.container()
    }

    /// The DXIL operations this shader calls that [`Shader::translate`] would refuse in its
    /// stage, each with the reason (`emit::support`), in opcode order: a layer can ask up
    /// front instead of translating. Empty does not promise success (resources, signatures
    /// and the control flow can still be refused); a non-empty answer does promise failure.
    /// In a stage the translator does not handle, every operation is refused
    /// ([`crate::emit::support::Refusal::StageNotTranslated`]). Opcodes past DXIL 1.8 are
    /// not listed (the translator refuses them as malformed).
    pub fn unsupported_operations(&self) -> Vec<UnsupportedOperation> {
        let stage = self.stage();
        crate::dxil::ops::op_uses(self.module())
            .into_iter()
            .filter_map(|u| {
                let op = DxOp::from_u32(u32::try_from(u.opcode).ok()?)?;
                match support(op, stage) {
                    Support::Refused(refusal) => Some(UnsupportedOperation { op, calls: u.count, refusal }),
                    Support::Lowered(_) => None,
                }
            })
            .collect()
    }

    /// Translates the entry point to SPIR-V (Vulkan 1.3, SPIR-V 1.6). With
    /// `options.embedded_root_signature` set and no `options.root_signature`, a container's
    /// own `RTS0` part is bound through.
    pub fn translate(&self, options: &Options) -> Result<Translation> {
        if let (None, Some(layout)) = (&options.root_signature, options.embedded_root_signature) {
            if let Some(signature) = self.embedded_root_signature()? {
                let options =
                    Options { root_signature: Some(RootSignatureBinding { signature, layout }), ..options.clone() };
                return translate_analyzed(&self.loaded.module, &self.dxil, &options);
            }
        }
        translate_analyzed(&self.loaded.module, &self.dxil, options)
    }
}

impl std::fmt::Debug for Shader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shader")
            .field("name", &self.loaded.name)
            .field("profile", &self.shader_model().profile)
            .field("entry_points", &self.dxil.entry_points.iter().map(|e| &e.name).collect::<Vec<_>>())
            .finish()
    }
}
