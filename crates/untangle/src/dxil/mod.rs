//! What the IR means as DXIL: shader model, entry points, resources, signatures, type
//! annotations and `dx.op` calls, read from the module's named metadata and calls.
//!
//! Nothing here knows LLVM: it reads [`crate::ir::Module`], whichever front end built it.
//! Facts about the metadata layout come from DXC (`DxilMDHelper`, `DxilConstants.h`).

pub mod ags;
pub mod annotations;
pub mod entry;
pub mod enums;
pub mod error;
pub mod handles;
pub mod linalg;
pub(crate) mod md;
pub mod node;
pub mod nvapi;
pub mod op_facts;
pub mod opcodes;
pub mod ops;
pub mod resources;
pub mod signature;

pub use annotations::{FieldAnnotation, StructAnnotation};
pub use entry::{AsState, DsState, EntryPoint, EntryProperties, GsState, HsState, MsState, WaveSize};
pub use enums::*;
pub use error::Error;
pub use opcodes::DxOp;
pub use ops::{decode_call, op_uses, DxOpCall, OpUse};
pub use resources::{Resource, ResourceClass, Resources, UavFlags};
pub use signature::{SignatureElement, Signatures};

use crate::front::container::ShaderKind;
use crate::ir::{ConstKind, Module, Value};
use error::Result;
use md::Tuple;
use serde::Serialize;

#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct ShaderModel {
    /// The profile's stage prefix as written (`cs`, `ps`, `lib`, ...).
    pub profile: String,
    pub kind: ShaderKind,
    pub major: u32,
    pub minor: u32,
}

impl ShaderModel {
    /// Whether the module is a library (profile `lib`), even once `kind` names the stage of
    /// the library entry being translated.
    pub fn is_library(&self) -> bool {
        self.profile == "lib"
    }
}

/// Everything `src/dxil` decodes from a module.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct DxilInfo {
    /// `None` for a module that is not DXIL (e.g. a csmith CFG).
    pub shader_model: Option<ShaderModel>,
    pub dxil_version: Option<[u32; 2]>,
    pub validator_version: Option<[u32; 2]>,
    pub entry_points: Vec<EntryPoint>,
    /// The module-level resource table (`dx.resources`).
    pub resources: Resources,
    pub struct_annotations: Vec<StructAnnotation>,
    /// `dx.viewIdState`, as the raw u32 array DXC writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view_id_state: Option<Vec<u32>>,
    /// DXIL operations used, by opcode; `None` where the module was analysed only to be
    /// translated, which never reads them (see `analyze_for_translation`): not counted,
    /// which an empty list would not tell apart from none used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ops: Option<Vec<OpUse>>,
}

impl DxilInfo {
    pub fn is_dxil(&self) -> bool {
        self.shader_model.is_some()
    }
}

fn stage_of(profile: &str) -> ShaderKind {
    match profile {
        "ps" => ShaderKind::Pixel,
        "vs" => ShaderKind::Vertex,
        "gs" => ShaderKind::Geometry,
        "hs" => ShaderKind::Hull,
        "ds" => ShaderKind::Domain,
        "cs" => ShaderKind::Compute,
        "lib" => ShaderKind::Library,
        "ms" => ShaderKind::Mesh,
        "as" => ShaderKind::Amplification,
        _ => ShaderKind::Invalid,
    }
}

fn version_pair(m: &Module, name: &str) -> Result<Option<[u32; 2]>> {
    match m.metadata.named(name).first() {
        None => Ok(None),
        Some(&id) => {
            let t = Tuple::of(m, id, name)?;
            Ok(Some([t.u32(0)?, t.u32(1)?]))
        }
    }
}

fn view_id_state(m: &Module) -> Option<Vec<u32>> {
    let &id = m.metadata.named("dx.viewIdState").first()?;
    let ops = m.metadata.operands(id)?;
    let (_, Value::Const(c)) = m.metadata.value((*ops.first()?)?)? else { return None };
    match &m.constants.get(c).kind {
        ConstKind::Aggregate(elems) => elems.iter().map(|e| m.constants.as_int(*e).map(|v| v as u32)).collect(),
        ConstKind::Zero => Some(Vec::new()),
        _ => None,
    }
}

/// Decode the DXIL meaning of a module. A module without `dx.shaderModel` is not DXIL and
/// yields an empty description (no error).
pub fn analyze(m: &Module) -> Result<DxilInfo> {
    let mut info = analyze_for_translation(m)?;
    info.ops = Some(op_uses(m));
    Ok(info)
}

/// [`analyze`] without [`DxilInfo::ops`] (left `None`): a count of every call that
/// describes the module and that translation never reads, for the one-shot path that
/// analyses a module only to translate it (`Shader::parse_and_translate`).
pub(crate) fn analyze_for_translation(m: &Module) -> Result<DxilInfo> {
    let shader_model = match m.metadata.named("dx.shaderModel").first() {
        None => None,
        Some(&id) => {
            let t = Tuple::of(m, id, "dx.shaderModel")?;
            let profile = t.string(0)?.to_string();
            Some(ShaderModel { kind: stage_of(&profile), profile, major: t.u32(1)?, minor: t.u32(2)? })
        }
    };
    let resources_node = m.metadata.named("dx.resources").first().copied();
    let resources = match resources_node {
        Some(id) => Resources::read(m, id, "dx.resources")?,
        None => Resources::default(),
    };
    let entry_points = entry::read_entry_points(m, (resources_node, &resources))?;
    Ok(DxilInfo {
        shader_model,
        dxil_version: version_pair(m, "dx.version")?,
        validator_version: version_pair(m, "dx.valver")?,
        entry_points,
        struct_annotations: annotations::read_struct_annotations(m)?,
        view_id_state: view_id_state(m),
        ops: None,
        resources,
    })
}
