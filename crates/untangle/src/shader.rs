//! A parsed shader ([`Shader`]): an input read into our IR with its DXIL meaning decoded
//! once, ready to reflect (stage, entry points, resources, signatures, an embedded root
//! signature) and to translate any number of times with different [`Options`].
//!
//! A `Shader` owns its data and is `Send + Sync`: parse once, translate from several threads.

use crate::dxil::DxOp;
use crate::dxil::{DxilInfo, EntryPoint, Resources, ShaderModel, Signatures};
use crate::emit::support::{support, Support, UnsupportedOperation};
use crate::emit::translate::{translate_analyzed, Options, RootSignatureBinding, Translation};
use crate::emit::Error as EmitError;
use crate::error::Result;
use crate::front::container::{Container, ShaderKind};
use crate::front::{FrontEnd, Loaded, ParseContext};
use crate::ir::Module;
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
        Shader::from_loaded(crate::front::load_bytes(bytes, name)?)
    }

    /// [`Shader::parse_named`] with the chosen front end ([`FrontEnd::Llvm`] needs the
    /// `llvm` feature; the native readers are the default).
    pub fn parse_with(bytes: Vec<u8>, name: &str, front_end: FrontEnd) -> Result<Shader> {
        Shader::from_loaded(crate::front::load_bytes_with(bytes, name, front_end)?)
    }

    /// [`Shader::parse_named`] for a caller that translates and reflects but does not read
    /// type or constant ids of [`Shader::module`]: bitcode keeps the file's numbering of
    /// types and constants instead of the LLVM front end's
    /// ([`crate::front::load_for_translation`]), which saves about 6% of a translation.
    /// Translations are the same word for word (`tests/translate_digests.rs`).
    pub fn parse_for_translation(bytes: Vec<u8>, name: &str) -> Result<Shader> {
        Shader::parse_for_translation_in(&mut ParseContext::one_shot(), bytes, name)
    }

    /// [`Shader::parse_for_translation`] with the caller's [`ParseContext`]: a batch of
    /// shaders parsed with one context decodes their common `BLOCKINFO` block once.
    pub fn parse_for_translation_in(cx: &mut ParseContext, bytes: Vec<u8>, name: &str) -> Result<Shader> {
        let mut loaded = crate::front::load_for_translation_in(cx, &bytes, name, FrontEnd::Native)?;
        loaded.keep_bytes(bytes);
        Shader::from_loaded(loaded)
    }

    /// [`Shader::parse`] then [`Shader::translate`] without keeping a copy of `bytes`
    /// unless the translation reads the container again (a library's subobjects, an
    /// embedded root signature): what [`crate::translate`] does.
    pub(crate) fn parse_and_translate(cx: &mut ParseContext, bytes: &[u8], options: &Options) -> Result<Translation> {
        let loaded = crate::front::load_for_translation_in(cx, bytes, "input", FrontEnd::Native)?;
        // This shader lives only for this translation: nothing reads its operation counts.
        let mut shader = Shader::analysed(loaded, crate::dxil::analyze_for_translation)?;
        let embedded = options.root_signature.is_none() && options.embedded_root_signature.is_some();
        if shader.stage() == ShaderKind::Library || embedded {
            shader.loaded.keep_bytes(bytes.to_vec());
        }
        shader.translate(options)
    }

    /// A shader from an input already loaded with [`crate::front`].
    pub fn from_loaded(loaded: Loaded) -> Result<Shader> {
        Shader::analysed(loaded, crate::dxil::analyze)
    }

    /// A shader from `loaded`, its DXIL meaning decoded by `analyze`.
    fn analysed(loaded: Loaded, analyze: fn(&Module) -> crate::dxil::error::Result<DxilInfo>) -> Result<Shader> {
        let dxil = analyze(&loaded.module)?;
        if dxil.shader_model.is_none() {
            return Err(EmitError::NotAShader(crate::emit::NotAShader::NoShaderModel).into());
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
        if self.stage() == ShaderKind::Library {
            let ep = crate::emit::entry::only_entry(&self.dxil.entry_points)?;
            return self.translate_entry(crate::emit::entry::export_name(&ep.name), options);
        }
        if let (None, Some(layout)) = (&options.root_signature, options.embedded_root_signature) {
            if let Some(signature) = self.embedded_root_signature()? {
                let options =
                    Options { root_signature: Some(RootSignatureBinding { signature, layout }), ..options.clone() };
                return Ok(translate_analyzed(&self.loaded.module, &self.dxil, &options)?);
            }
        }
        Ok(translate_analyzed(&self.loaded.module, &self.dxil, options)?)
    }

    /// The options with the embedded root signature bound, as [`Shader::translate`] does.
    fn bound_options(&self, options: &Options) -> Result<Options> {
        if let (None, Some(layout)) = (&options.root_signature, options.embedded_root_signature) {
            if let Some(signature) = self.embedded_root_signature()? {
                return Ok(Options {
                    root_signature: Some(RootSignatureBinding { signature, layout }),
                    ..options.clone()
                });
            }
        }
        Ok(options.clone())
    }

    /// A library's state subobjects (hit groups, configs, root signatures, associations),
    /// from its `RDAT` part; empty for other inputs.
    pub fn subobjects(&self) -> Result<Vec<crate::front::container::rdat::Subobject>> {
        match self.container() {
            Some(c) => Ok(c.subobjects()?),
            None => Ok(Vec::new()),
        }
    }

    /// What a layer needs to build a ray-tracing pipeline from this library: entries,
    /// the subobjects that apply to each, every subobject ([`crate::emit::library`]).
    pub fn library_report(&self) -> Result<crate::emit::library::LibraryReport> {
        Ok(crate::emit::library::report(&self.loaded.module, &self.dxil.entry_points, &self.subobjects()?)?)
    }

    /// A library entry that is not a ray-tracing stage (a compute shader) gets its root
    /// signature from the library's global root-signature subobjects (the ones associated
    /// with it, else the unassociated ones): each must cover the resources it uses, or the
    /// entry and the library disagree on its root signature.
    fn check_library_entry(&self, ep: &EntryPoint) -> Result<()> {
        use crate::front::container::rdat::SubobjectKind;
        let kind = ep.properties.shader_kind.unwrap_or(ShaderKind::Invalid);
        if self.stage() != ShaderKind::Library || kind != ShaderKind::Compute {
            return Ok(());
        }
        let subobjects = self.subobjects()?;
        let export = crate::emit::entry::export_name(&ep.name);
        let associated: Vec<&str> = subobjects
            .iter()
            .filter_map(|s| match &s.kind {
                SubobjectKind::SubobjectToExportsAssociation { subobject, exports }
                    if exports.iter().any(|e| e == export) =>
                {
                    Some(subobject.as_str())
                }
                _ => None,
            })
            .collect();
        let any_association: Vec<&str> = subobjects
            .iter()
            .filter_map(|s| match &s.kind {
                SubobjectKind::SubobjectToExportsAssociation { subobject, .. } => Some(subobject.as_str()),
                _ => None,
            })
            .collect();
        for s in &subobjects {
            let SubobjectKind::GlobalRootSignature { rts0 } = &s.kind else { continue };
            let applies = if associated.is_empty() {
                !any_association.contains(&s.name.as_str())
            } else {
                associated.contains(&s.name.as_str())
            };
            if !applies {
                continue;
            }
            let conflict = |message: String| EmitError::RootSignatureConflict { entry: export.to_string(), message };
            let signature = crate::rootsig::decode_rts0(rts0)
                .map_err(|e| conflict(format!("global root signature `{}` does not parse: {e}", s.name)))?;
            let layout = crate::rootsig::layout::lower(&signature, &crate::rootsig::LayoutOptions::default())
                .map_err(|e| conflict(format!("global root signature `{}` cannot be lowered: {e}", s.name)))?;
            crate::rootsig::resolve::resolve_all(&signature, &layout, kind, ep.resources.iter()).map_err(|e| {
                conflict(format!(
                    "the compute entry's resources do not fit the library's global root signature `{}` ({}): {e} \
                     (an entry [RootSignature] in a library with root-signature subobjects is dropped by DXC)",
                    s.name,
                    crate::rootsig::to_hlsl(&signature)
                ))
            })?;
        }
        Ok(())
    }

    /// The names a library exports its entries under (demangled, in `dx.entryPoints`
    /// order); for another stage, its one entry point's name.
    pub fn entry_names(&self) -> Vec<String> {
        self.dxil
            .entry_points
            .iter()
            .filter(|e| e.function.is_some())
            .map(|e| crate::emit::entry::export_name(&e.name).to_string())
            .collect()
    }

    /// Translates the library entry exported as `name` (a ray-tracing stage: one SPIR-V
    /// module per entry); for other stages, the entry point if it has that name.
    pub fn translate_entry(&self, name: &str, options: &Options) -> Result<Translation> {
        let options = self.bound_options(options)?;
        let ep = crate::emit::entry::named_entry(&self.dxil.entry_points, name)?;
        self.translate_one_entry(ep, &options)
    }

    /// Translates entry `ep` with bound `options`; a library's entry is checked against the
    /// library's global root-signature subobjects and translated through the local root
    /// signature that applies to it, if any.
    fn translate_one_entry(&self, ep: &EntryPoint, options: &Options) -> Result<Translation> {
        self.check_library_entry(ep)?;
        let local = self.local_root_signature(ep, options)?;
        Ok(crate::emit::translate::translate_entry_local(&self.loaded.module, &self.dxil, ep, options, local.as_ref())?)
    }

    /// [`Shader::translate_entry`] with the local root signature the pipeline associates
    /// with the entry (a layer's `D3D12_LOCAL_ROOT_SIGNATURE` subobject): resources it
    /// covers are read from the shader record (`rootsig::record`, reported as the layout
    /// report's `shader_record`). Needs `options.root_signature` (the global one).
    pub fn translate_entry_with_local_root_signature(
        &self,
        name: &str,
        options: &Options,
        local: &RootSignature,
    ) -> Result<Translation> {
        let options = self.bound_options(options)?;
        if options.root_signature.is_none() {
            return Err(EmitError::RootSignatureConflict {
                entry: name.to_string(),
                message: "a local root signature needs a global one to bind through (Options::root_signature)".into(),
            }
            .into());
        }
        let ep = crate::emit::entry::named_entry(&self.dxil.entry_points, name)?;
        Ok(crate::emit::translate::translate_entry_local(&self.loaded.module, &self.dxil, ep, &options, Some(local))?)
    }

    /// The local root-signature subobject of the library that applies to ray-tracing or
    /// work-graph node entry `ep`, when it is bound through a root signature; several are a
    /// conflict.
    fn local_root_signature(&self, ep: &EntryPoint, options: &Options) -> Result<Option<RootSignature>> {
        use crate::front::container::rdat::SubobjectKind;
        let kind = ep.properties.shader_kind.unwrap_or(ShaderKind::Invalid);
        let ray_or_node = kind.is_ray_tracing() || ep.properties.node.is_some();
        if options.root_signature.is_none() || !ray_or_node {
            return Ok(None);
        }
        let subobjects = self.subobjects()?;
        let export = crate::emit::entry::export_name(&ep.name);
        let local = crate::front::container::rdat::applying_to(&subobjects, export, |k| {
            matches!(k, SubobjectKind::LocalRootSignature { .. })
        });
        match local.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(crate::rootsig::decode_rts0(one.kind.root_signature().unwrap_or_default())?)),
            many => Err(EmitError::RootSignatureConflict {
                entry: export.to_string(),
                message: format!(
                    "{} local root signatures apply to it ({})",
                    many.len(),
                    many.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
                ),
            }
            .into()),
        }
    }

    /// Translates every entry of a library, in `dx.entryPoints` order (each
    /// [`Translation::entry_point`] is the exported name); for other stages, the one entry
    /// point. The first entry that fails fails the whole call.
    pub fn translate_library(&self, options: &Options) -> Result<Vec<Translation>> {
        if self.stage() != ShaderKind::Library {
            return Ok(vec![self.translate(options)?]);
        }
        let options = self.bound_options(options)?;
        self.dxil
            .entry_points
            .iter()
            .filter(|e| e.function.is_some())
            .map(|ep| self.translate_one_entry(ep, &options))
            .collect()
    }
}

/// Translate a DXBC container, LLVM bitcode or LLVM text: [`Shader::parse`], then
/// [`Shader::translate`].
pub fn translate(bytes: &[u8], options: &Options) -> Result<Translation> {
    Shader::parse_and_translate(&mut ParseContext::one_shot(), bytes, options)
}

/// [`translate`] with the caller's [`ParseContext`], kept across the shaders of a batch
/// (the same result; the shared `BLOCKINFO` block is decoded once).
pub fn translate_in(cx: &mut ParseContext, bytes: &[u8], options: &Options) -> Result<Translation> {
    Shader::parse_and_translate(cx, bytes, options)
}

/// Translate a loaded module (its DXIL meaning decoded here).
pub fn translate_module(m: &Module, options: &Options) -> Result<Translation> {
    let info = crate::dxil::analyze(m)?;
    Ok(translate_analyzed(m, &info, options)?)
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
