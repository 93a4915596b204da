//! Why a shader could not be translated. Every failure on input is one of these: a typed
//! error naming what is missing or wrong (an operation, a stage, an entry, a signature
//! element, a resource, an instruction), never a panic.
//!
//! A low-level module of `emit` (see its documentation): it imports only [`super::writer`],
//! [`super::support`], [`super::stream_output`], [`super::locations`] and the layers below
//! `emit`. The structurizer's and root signatures' errors are carried as they are
//! ([`Error::Structurize`], [`Error::RootSig`], [`Error::RootSignature`]); `crate::Error`
//! carries the first two up as its own variants.

use super::locations::SigKind;
use super::stream_output::StreamOutputError;
use super::support::Refusal;
use super::writer::BuildError;
use crate::dxil::{DxOp, ResourceClass};
use crate::front::container::ShaderKind;
use crate::rootsig::resolve::ResolveError;

/// Why a translation failed: emission's own errors, and those of the layers below that
/// translation runs (the structurizer, root-signature checks), each carried typed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The module is not DXIL (no `dx.shaderModel`) or has no entry point with a body.
    #[error("not a DXIL shader: {0}")]
    NotAShader(NotAShader),
    /// A stage we do not translate yet (`stage`: its profile, `cs_6_0`, or for a library
    /// entry the library's and the entry's kind).
    #[error("shader stage `{stage}` is not supported yet")]
    UnsupportedStage { stage: String },
    /// A `dx.op` the translator does not lower in this stage (`stage`: the profile), and
    /// why (the [`Refusal`], which prints as its reason); `function` and `block` say where
    /// the call is.
    #[error("DXIL operation {} (opcode {}) is not supported in `{stage}` shaders: {reason} (function `{function}`, block `{block}`)", op.name(), op.opcode_text())]
    UnsupportedOp { op: DxOp, stage: String, reason: Refusal, function: String, block: String },
    /// An operation, signature element, resource or payload of a shape not supported (yet).
    #[error("DXIL operation {subject}: {message}")]
    UnsupportedForm { subject: Subject, message: String },
    /// An LLVM instruction or type we do not translate.
    #[error("function `{function}`: {message}")]
    Unsupported { function: String, message: String },
    /// The input breaks a DXIL rule (a bad operand, an unknown resource, a stage state out
    /// of range, ...): what breaks it, and how.
    #[error("malformed DXIL: {message}")]
    Malformed { subject: Subject, message: String },
    /// A value breaks a rule the translator relies on (a `dx.op` call with the wrong operand
    /// types, an operation on the wrong kind of resource, ...): where it is and why.
    #[error("malformed DXIL: function `{function}`, block `{block}`, {value}: {message}")]
    Invalid { function: String, block: String, value: String, message: String },
    /// A `dx.op` call with an opcode newer than the operation table (DXIL 1.9 and the SM
    /// 6.10 experimental table): valid DXIL of a newer version, not malformed input. Always
    /// [`crate::dxil::Error::NewerOperation`], which names the call, its opcode and where.
    #[error("{0}")]
    NewerOperation(Box<crate::dxil::Error>),
    /// A library translated without naming one of its entries (it has several), or with a
    /// name it does not export.
    #[error("library entry: {0}")]
    LibraryEntry(LibraryEntry),
    /// A library entry whose root signatures disagree: the global root signature the
    /// library declares for it (a subobject) does not cover the resources it uses.
    #[error("root-signature conflict: entry `{entry}` of the library: {message}")]
    RootSignatureConflict { entry: String, message: String },
    /// The binding map file could not be used.
    #[error("binding map: {0}")]
    BindingMap(BindingMapError),
    /// Placement by the layer (`Options::placement`): the layer declined a range, or
    /// answered something that range cannot use (`register` names it: `t3, space1`, or the
    /// descriptor heap and kind of an SM 6.6 access).
    #[error("resource placement: {register}: {reason}")]
    Placement { register: String, reason: String },
    /// A remapping callback ([`crate::Options::io_remap`], [`crate::Options::resource_remap`];
    /// `callback` names it: `I/O remapping callback`) answered a place that cannot be used:
    /// two signature elements on one location component, two ranges on one descriptor
    /// binding, or a location, set or binding past the limits a usable module keeps
    /// ([`super::locations::MAX_REMAPPED_LOCATIONS`],
    /// [`super::binding_model::MAX_REMAPPED_SETS`],
    /// [`super::binding_model::MAX_REMAPPED_BINDINGS`]). The layer's mistake, not the
    /// shader's.
    #[error("{callback}: {message}")]
    Remap { callback: &'static str, message: String },
    /// The shader does not fit the root signature (an uncovered register, a root
    /// descriptor of the wrong kind, ...), or the root signature cannot be lowered.
    #[error("root signature: {0}")]
    RootSignature(#[from] ResolveError),
    /// The stream-output description is invalid, or does not fit the shader.
    #[error("stream output: {0}")]
    StreamOutput(#[from] StreamOutputError),
    /// A root signature given to bind through is malformed or invalid.
    #[error("{0}")]
    RootSig(#[from] crate::rootsig::RootSigError),
    /// The structurizer could not handle a function (irreducible CFG, or an internal error).
    /// Boxed: it is the largest of the errors, and every emission result would carry its
    /// size.
    #[error("{0}")]
    Structurize(Box<crate::passes::StructurizeError>),
    /// A GPU vendor's driver-extension intrinsic (AMD AGS, NVIDIA NVAPI: accesses to a
    /// magic UAV that the vendor's D3D12 driver decodes) that cannot be translated:
    /// `instruction` names it (or the magic UAV, when the layer does not expose the
    /// extension), `reason` says why.
    #[error("{vendor} shader intrinsics: {instruction}: {reason}")]
    VendorExtension { vendor: &'static str, instruction: String, reason: VendorRefusal },
    /// A translation option cannot be honoured as given, or not for this shader (`option`:
    /// its field in the translation `Options`).
    #[error("option `{option}`: {message}")]
    Options { option: &'static str, message: String },
    /// The structurized graph is inconsistent or the SPIR-V builder refused a sequence (an
    /// internal bug).
    #[error("internal error: {0}")]
    Internal(String),
}

/// Why a vendor intrinsic was refused ([`Error::VendorExtension`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VendorRefusal {
    /// The lowering needs a device feature (or the layer's exposure of the extension) that
    /// [`crate::Options::vendor`] does not grant: `feature` names the Vulkan feature and
    /// extension, `option` the field of `VendorFeatures` that grants it.
    #[error("needs {feature}, which the options do not grant (Options::vendor.{option})")]
    MissingFeature { feature: &'static str, option: &'static str },
    /// The instruction stream is malformed.
    #[error("malformed instruction stream: {0}")]
    Malformed(#[from] crate::dxil::ags::AgsError),
    /// NVAPI's record sequence is malformed.
    #[error("malformed record sequence: {0}")]
    NvapiMalformed(#[from] crate::dxil::nvapi::NvapiError),
    /// Vulkan has no counterpart, or untangle does not lower it (yet): why.
    #[error("{0}")]
    NotLowered(String),
}

/// What an [`Error::UnsupportedForm`] or [`Error::Malformed`] is about. It prints as the
/// noun `UnsupportedForm` messages name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// The module itself: its constants, types, PHIs, or a fact that belongs to no one part.
    Module,
    /// A `dx.op` operation.
    Op(DxOp),
    /// The state of a stage the entry point's metadata declares (hull, domain, geometry,
    /// mesh or node properties, thread counts, derivatives).
    Stage(ShaderKind),
    /// An entry point, by its exported name.
    Entry(String),
    /// A signature as a whole (an element the stage cannot have, a component type).
    Signature(SigKind),
    /// Signature element `id`, as `loadInput`, `storeOutput` or a patch constant reach it.
    Element { kind: SigKind, id: u32 },
    /// A resource range of this class.
    Resource(ResourceClass),
    /// The payload of a mesh or amplification shader.
    Payload,
    /// A geometry shader's input primitive.
    InputPrimitive,
    /// Stream output's variables.
    StreamOutput,
}

impl std::fmt::Display for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Subject::Module => f.write_str("module"),
            Subject::Op(op) => f.write_str(op.name()),
            Subject::Stage(kind) => write!(f, "{kind:?} shader"),
            Subject::Entry(name) => write!(f, "entry `{name}`"),
            Subject::Signature(_) => f.write_str("signature"),
            Subject::Element { kind: SigKind::Input, .. } => f.write_str("loadInput"),
            Subject::Element { kind: SigKind::Output, .. } => f.write_str("storeOutput"),
            Subject::Element { kind: SigKind::PatchConstant, .. } => f.write_str("patch constant"),
            Subject::Resource(_) => f.write_str("resource"),
            Subject::Payload => f.write_str("mesh payload"),
            Subject::InputPrimitive => f.write_str("geometry shader input"),
            Subject::StreamOutput => f.write_str("stream output"),
        }
    }
}

/// Why a module is no shader to translate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotAShader {
    #[error("no dx.shaderModel")]
    NoShaderModel,
    #[error("no entry point with a function")]
    NoEntryFunction,
    #[error("a library without entry functions")]
    LibraryWithoutEntries,
    #[error("entry point without a function")]
    EntryWithoutFunction,
    /// The entry point's function is a declaration.
    #[error("entry point `{entry}` has no body")]
    EntryWithoutBody { entry: String },
}

/// Which library entry a translation could not take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LibraryEntry {
    /// Translated without naming an entry, and the library has these (exported names).
    #[error("the library has {} entries ({}): translate one by name or all of them", entries.len(), entries.join(", "))]
    Ambiguous { entries: Vec<String> },
    /// No entry is exported as `name` (or has a function of that name).
    #[error("no entry `{name}` (entries: {})", entries.join(", "))]
    Unknown { name: String, entries: Vec<String> },
}

/// Why a binding map file could not be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BindingMapError {
    /// Not the JSON array of entries the format asks for (serde's message).
    #[error("{0}")]
    Json(String),
    /// Two entries for the same register range.
    #[error("{}{register} space{space} is listed twice", class.register_letter())]
    Duplicate { class: ResourceClass, space: u32, register: u32 },
}

/// A result of emission.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An LLVM instruction or type of `function` that is not translated.
#[cold]
pub(crate) fn unsupported(function: &str, message: impl Into<String>) -> Error {
    Error::Unsupported { function: function.to_string(), message: message.into() }
}

/// `message` about `subject` breaks a DXIL rule.
#[cold]
pub(crate) fn malformed(subject: Subject, message: impl Into<String>) -> Error {
    Error::Malformed { subject, message: message.into() }
}

impl From<crate::passes::StructurizeError> for Error {
    fn from(e: crate::passes::StructurizeError) -> Self {
        Error::Structurize(Box::new(e))
    }
}

impl From<BuildError> for Error {
    fn from(e: BuildError) -> Self {
        Error::Internal(format!("SPIR-V builder: {e:?}"))
    }
}
