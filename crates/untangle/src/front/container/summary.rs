//! A serializable overview of a container, for `untangle info --json`.
//!
//! Every accessor is run once; a chunk that fails to decode leaves its field empty and
//! adds its error to `errors`, so a report still shows what could be read.

use serde::Serialize;

use super::chunk::{Chunk, FourCc};
use super::error::ContainerError;
use super::file::Container;
use super::hash::ShaderHash;
use super::header::Header;
use super::program::Program;
use super::psv0::Psv0;
use super::sfi0::FeatureInfo;
use super::signature::Signature;
use super::vers::{CompilerVersion, DebugName};

/// A chunk that failed to decode.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChunkError {
    pub chunk: Option<FourCc>,
    pub offset: Option<usize>,
    pub message: String,
}

impl From<ContainerError> for ChunkError {
    fn from(err: ContainerError) -> Self {
        ChunkError { chunk: err.chunk(), offset: err.offset(), message: err.to_string() }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ContainerSummary<'a> {
    pub header: Header,
    pub chunks: Vec<Chunk<'a>>,
    pub program: Option<Program<'a>>,
    /// `ps_6_0`-style, where the shader kind has a profile.
    pub profile: Option<String>,
    pub debug_program: Option<Program<'a>>,
    pub feature_info: Option<FeatureInfo<'a>>,
    pub shader_hash: Option<ShaderHash>,
    pub compiler_version: Option<CompilerVersion<'a>>,
    pub debug_name: Option<DebugName<'a>>,
    pub input_signature: Option<Signature<'a>>,
    pub output_signature: Option<Signature<'a>>,
    pub patch_constant_signature: Option<Signature<'a>>,
    pub psv0: Option<Psv0<'a>>,
    /// Size of the `RTS0` chunk; decoding it is the root-signature module's job.
    pub root_signature_size: Option<usize>,
    pub runtime_data_size: Option<usize>,
    pub errors: Vec<ChunkError>,
}

impl<'a> ContainerSummary<'a> {
    pub fn new(container: &Container<'a>) -> Self {
        let mut errors = Vec::new();
        let program = keep(&mut errors, container.dxil().map(Some));
        let debug_program = keep(&mut errors, container.debug_dxil());
        let feature_info = keep(&mut errors, container.sfi0());
        let shader_hash = keep(&mut errors, container.hash());
        let compiler_version = keep(&mut errors, container.compiler_version());
        let debug_name = keep(&mut errors, container.debug_name());
        let input_signature = keep(&mut errors, container.input_signature());
        let output_signature = keep(&mut errors, container.output_signature());
        let patch_constant_signature = keep(&mut errors, container.patch_constant_signature());
        let psv0 = keep(&mut errors, container.psv0());
        ContainerSummary {
            header: container.header,
            chunks: container.chunks.clone(),
            profile: program.as_ref().and_then(Program::profile),
            program,
            debug_program,
            feature_info,
            shader_hash,
            compiler_version,
            debug_name,
            input_signature,
            output_signature,
            patch_constant_signature,
            psv0,
            root_signature_size: container.rts0().map(<[u8]>::len),
            runtime_data_size: container.rdat().map(<[u8]>::len),
            errors,
        }
    }
}

fn keep<T>(errors: &mut Vec<ChunkError>, result: Result<Option<T>, ContainerError>) -> Option<T> {
    result.unwrap_or_else(|err| {
        errors.push(ChunkError::from(err));
        None
    })
}
