//! Which entry point a translation takes, and as what: a library's entries by their
//! exported name ([`export_name`]: `\x01?RayGen@@YAXXZ` → `RayGen`, also the `OpEntryPoint`
//! name), the library's only one ([`only_entry`]), the shader kind a library entry is
//! translated in ([`entry_kind`]), its SPIR-V execution model ([`execution_model`]) and the
//! resources of the library's shared table it uses ([`used_resources`]).
//!
//! A low-level module of `emit` (see its documentation): it imports only [`super::error`],
//! [`super::support`] and the layers below `emit`. The shader handle (`crate::Shader`), the
//! library report and the driver all name entries through it.

use super::error::{malformed, Error, LibraryEntry, NotAShader, Result, Subject};
use crate::dxil::{DxOp, EntryPoint};
use crate::front::container::ShaderKind;
use crate::ir::{Function, InstKind, Module, Value};
use rspirv::spirv::ExecutionModel;

/// The SPIR-V execution model of a `kind` entry point (`None` for kinds that are no entry
/// point's: libraries, invalid kinds).
pub fn execution_model(kind: ShaderKind) -> Option<ExecutionModel> {
    Some(match kind {
        ShaderKind::Compute | ShaderKind::Node => ExecutionModel::GLCompute,
        ShaderKind::Pixel => ExecutionModel::Fragment,
        ShaderKind::Vertex => ExecutionModel::Vertex,
        ShaderKind::Hull => ExecutionModel::TessellationControl,
        ShaderKind::Domain => ExecutionModel::TessellationEvaluation,
        ShaderKind::Geometry => ExecutionModel::Geometry,
        ShaderKind::Mesh => ExecutionModel::MeshEXT,
        ShaderKind::Amplification => ExecutionModel::TaskEXT,
        ShaderKind::RayGeneration => ExecutionModel::RayGenerationKHR,
        ShaderKind::Intersection => ExecutionModel::IntersectionKHR,
        ShaderKind::AnyHit => ExecutionModel::AnyHitKHR,
        ShaderKind::ClosestHit => ExecutionModel::ClosestHitKHR,
        ShaderKind::Miss => ExecutionModel::MissKHR,
        ShaderKind::Callable => ExecutionModel::CallableKHR,
        _ => return None,
    })
}

/// The name an entry is exported under: an MSVC-mangled function name (`\x01?Name@@...`)
/// demangled to `Name`, any other name as it is.
pub fn export_name(name: &str) -> &str {
    let bare = name.strip_prefix('\u{1}').unwrap_or(name);
    match bare.strip_prefix('?') {
        Some(rest) => rest.split('@').next().filter(|s| !s.is_empty()).unwrap_or(bare),
        None => bare,
    }
}

/// The one entry of a library translated without naming an entry.
pub(crate) fn only_entry(entries: &[EntryPoint]) -> Result<&EntryPoint> {
    let with_function: Vec<&EntryPoint> = entries.iter().filter(|e| e.function.is_some()).collect();
    match with_function.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::NotAShader(NotAShader::LibraryWithoutEntries)),
        many => Err(Error::LibraryEntry(LibraryEntry::Ambiguous {
            entries: many.iter().map(|e| export_name(&e.name).to_string()).collect(),
        })),
    }
}

/// The library entry exported as `name` or whose function is named `name`: the LLVM name
/// (`\x01?RayGen@@YAXXZ`) or the mangled name without LLVM's `\x01` prefix
/// (`?RayGen@@YAXXZ`, as D3D12 and the MSVC ABI spell it).
pub(crate) fn named_entry<'e>(entries: &'e [EntryPoint], name: &str) -> Result<&'e EntryPoint> {
    let matches =
        |e: &EntryPoint| export_name(&e.name) == name || e.name == name || e.name.strip_prefix('\u{1}') == Some(name);
    entries.iter().filter(|e| e.function.is_some()).find(|e| matches(e)).ok_or_else(|| {
        Error::LibraryEntry(LibraryEntry::Unknown {
            name: name.to_string(),
            entries: entries
                .iter()
                .filter(|e| e.function.is_some())
                .map(|e| export_name(&e.name).to_string())
                .collect(),
        })
    })
}

/// The shader kind a library entry is translated in: an entry with node properties is a
/// work-graph node (`stage::node`), whatever its kind tag says.
pub(crate) fn entry_kind(ep: &EntryPoint) -> Result<ShaderKind> {
    let name = export_name(&ep.name);
    let kind = ep.properties.shader_kind.ok_or_else(|| {
        malformed(Subject::Entry(name.to_string()), format!("library entry `{name}` has no shader kind"))
    })?;
    // A compute shader with node properties (tags 13-22) is a work-graph node too
    // (`stage::node`).
    if ep.properties.node.is_some() {
        return Ok(ShaderKind::Node);
    }
    if let Some(e) = &ep.properties.node_error {
        return Err(malformed(Subject::Entry(name.to_string()), e.clone()));
    }
    if kind == ShaderKind::Node {
        let message = format!("node entry `{name}` has no node properties (tags 13-22)");
        return Err(malformed(Subject::Entry(name.to_string()), message));
    }
    // Since DXIL 1.8 a library may hold entries of any stage (generic programs of state
    // objects, linking); each is translated as a shader of its own stage. A library or
    // invalid kind tag on an entry is malformed input.
    if matches!(kind, ShaderKind::Library | ShaderKind::Invalid) {
        let message = format!("library entry `{name}` has shader kind {kind:?}, which names no stage");
        return Err(malformed(Subject::Entry(name.to_string()), message));
    }
    Ok(kind)
}

/// The resources of a library's table that `func` uses (the entries of a library share one
/// table; each entry declares and binds only its own): ranges whose global variable it
/// loads, and ranges `createHandle` names. Cost: one pass over the function.
pub(crate) fn used_resources(m: &Module, func: &Function, table: &crate::dxil::Resources) -> crate::dxil::Resources {
    use crate::dxil::ResourceClass;
    use crate::ir::ConstKind;
    let mut globals = Vec::new();
    let mut ids: Vec<(ResourceClass, u32)> = Vec::new();
    let global_of = |v: Value| match v {
        Value::Global(g) => Some(g),
        Value::Const(k) => match &m.constants.get(k).kind {
            ConstKind::GlobalAddr(g) => Some(*g),
            ConstKind::Expr { operands, .. } => operands.first().and_then(|&o| match m.constants.get(o).kind {
                ConstKind::GlobalAddr(g) => Some(g),
                _ => None,
            }),
            _ => None,
        },
        _ => None,
    };
    for &b in &func.layout {
        for &i in &func.blocks[b].insts {
            match &func.insts[i].kind {
                InstKind::Load { ptr, .. } => globals.extend(global_of(*ptr)),
                InstKind::GetElementPtr { base, .. } => globals.extend(global_of(*base)),
                InstKind::Call { .. } => {
                    let Ok(Some(call)) = crate::dxil::ops::decode_call(m, func, i, "") else { continue };
                    if call.op != DxOp::CreateHandle {
                        continue;
                    }
                    let konst = |k: usize| match call.args.get(k) {
                        Some(&Value::Const(c)) => m.constants.as_int(c),
                        _ => None,
                    };
                    if let (Some(class), Some(id)) = (konst(0).and_then(ResourceClass::from_index), konst(1)) {
                        ids.push((class, id as u32));
                    }
                }
                _ => {}
            }
        }
    }
    let used =
        |r: &crate::dxil::Resource| r.global.is_some_and(|g| globals.contains(&g)) || ids.contains(&(r.class, r.id));
    let mut out = table.clone();
    out.srvs.retain(used);
    out.uavs.retain(used);
    out.cbvs.retain(used);
    out.samplers.retain(used);
    out
}
