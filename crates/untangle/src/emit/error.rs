//! Why a shader could not be translated. Every failure on input is one of these: a typed
//! error naming what is missing (an opcode, a stage, an instruction), never a panic.

/// Why a translation failed: emission's own errors, and those of the layers below that
/// translation runs (the structurizer, root-signature checks), each carried typed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The module is not DXIL (no `dx.shaderModel`) or has no entry point with a body.
    #[error("not a DXIL shader: {0}")]
    NotAShader(String),
    /// A stage we do not translate yet.
    #[error("shader stage `{stage}` is not supported yet")]
    UnsupportedStage { stage: String },
    /// A `dx.op` the translator does not lower in this stage, and why (the
    /// [`crate::emit::support::Refusal`], which prints as its reason); `function` and `block`
    /// say where the call is.
    #[error("DXIL operation {name} (opcode {opcode}) is not supported in `{stage}` shaders: {reason} (function `{function}`, block `{block}`)")]
    UnsupportedOp {
        name: &'static str,
        opcode: u32,
        stage: String,
        reason: crate::emit::support::Refusal,
        function: String,
        block: String,
    },
    /// An operation with an overload or operand shape not supported yet.
    #[error("DXIL operation {name}: {message}")]
    UnsupportedForm { name: String, message: String },
    /// An LLVM instruction or type we do not translate.
    #[error("function `{function}`: {message}")]
    Unsupported { function: String, message: String },
    /// The input breaks a DXIL rule (bad operand, unknown resource, ...).
    #[error("malformed DXIL: {0}")]
    Malformed(String),
    /// A value breaks a rule the translator relies on (a `dx.op` call with the wrong operand
    /// types, an operation on the wrong kind of resource, ...): where it is and why.
    #[error("malformed DXIL: function `{function}`, block `{block}`, {value}: {message}")]
    Invalid { function: String, block: String, value: String, message: String },
    /// A library translated without naming one of its entries (it has several), or with a
    /// name it does not export.
    #[error("library entry: {0}")]
    LibraryEntry(String),
    /// A library entry whose root signatures disagree: the global root signature the
    /// library declares for it (a subobject) does not cover the resources it uses.
    #[error("root-signature conflict: entry `{entry}` of the library: {message}")]
    RootSignatureConflict { entry: String, message: String },
    /// The binding map file could not be used.
    #[error("binding map: {0}")]
    BindingMap(String),
    /// The shader does not fit the root signature (an uncovered register, a root
    /// descriptor of the wrong kind, ...), or the root signature cannot be lowered.
    #[error("root signature: {0}")]
    RootSignature(#[from] crate::rootsig::resolve::ResolveError),
    /// The stream-output description is invalid, or does not fit the shader.
    #[error("stream output: {0}")]
    StreamOutput(#[from] super::stream_output::StreamOutputError),
    /// A root signature given to bind through is malformed or invalid.
    #[error("{0}")]
    RootSig(#[from] crate::rootsig::RootSigError),
    /// The structurizer could not handle a function (irreducible CFG, or an internal error).
    #[error("{0}")]
    Structurize(#[from] crate::passes::StructurizeError),
    /// The shader calls a GPU vendor's driver-extension intrinsics (AMD AGS, NVIDIA NVAPI),
    /// which reach DXIL as accesses to a magic UAV that only that vendor's D3D12 driver
    /// interprets; Vulkan has no such channel.
    #[error("{vendor} shader intrinsics: {message}")]
    VendorExtension { vendor: &'static str, message: String },
    /// The structurized graph is inconsistent or rspirv refused a sequence (an internal bug).
    #[error("internal error: {0}")]
    Internal(String),
}

/// A result of emission.
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn unsupported(function: &str, message: impl Into<String>) -> Error {
    Error::Unsupported { function: function.to_string(), message: message.into() }
}

impl From<super::writer::BuildError> for Error {
    fn from(e: super::writer::BuildError) -> Self {
        Error::Internal(format!("SPIR-V builder: {e:?}"))
    }
}
