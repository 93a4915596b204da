//! Ray-tracing stages (`SPV_KHR_ray_tracing`): a DXIL library's raygen, intersection,
//! any-hit, closest-hit, miss and callable entries, one SPIR-V module each.
//!
//! # Libraries and entries
//!
//! A library (`lib_6_x`) lists its entries in `dx.entryPoints`, each with its shader kind
//! (properties tag 8) and its function; the module-level entry without a function only
//! carries the resource table. An entry's name as the application exports it is the
//! function's name demangled ([`export_name`]: `\x01?RayGen@@YAXXZ` → `RayGen`), which is
//! also the `OpEntryPoint` name. Each module is built from its entry's function alone, so
//! it contains exactly what that entry reaches (resources are declared on first use); a
//! call to another function of the library is refused with a typed error.
//!
//! # Payloads, attributes and callable data
//!
//! DXIL passes them as pointer parameters of the entry function, typed by the HLSL
//! signature; each becomes a module-scope variable of that pointee type ([`RayState`]):
//!
//! | stage | parameter 0 | parameter 1 |
//! | --- | --- | --- |
//! | any-hit, closest-hit | `IncomingRayPayloadKHR` | `HitAttributeKHR` |
//! | miss | `IncomingRayPayloadKHR` | — |
//! | callable | `IncomingCallableDataKHR` | — |
//!
//! The `alloca`s a function passes to `traceRay` become `RayPayloadKHR` variables and those
//! passed to `callShader` `CallableDataKHR` variables (module scope: `OpTraceRayKHR` and
//! `OpExecuteCallableKHR` name the variable itself); loads and stores reach them through the
//! same access chains as any alloca. An intersection shader's `reportHit` copies its
//! attribute `alloca` into the one `HitAttributeKHR` variable (typed by the first
//! `reportHit`; another attribute type in the same shader is refused) before
//! `OpReportIntersectionKHR`.
//!
//! Cost: one pass over the entry function's instructions to find those `alloca`s.

use super::super::error::{Error, Result};
use super::super::module::ModuleBuilder;
use crate::dxil::{DxOp, EntryPoint};
use crate::front::container::ShaderKind;
use crate::ir::hash::HashMap;
use crate::ir::{Function, InstId, InstKind, Module, TypeId, Value};
use rspirv::spirv::{Capability, ExecutionModel, StorageClass, Word};

/// The ray-tracing variables of one entry function.
#[derive(Clone, Debug, Default)]
pub struct RayState {
    /// Entry parameter k → its variable and storage class.
    pub args: Vec<Option<(Word, StorageClass)>>,
    /// `alloca`s passed to `traceRay` / `callShader` → their module-scope variable.
    pub locals: HashMap<InstId, (Word, StorageClass)>,
    /// The `HitAttributeKHR` variable and its IR value type, once made.
    pub hit_attributes: Option<(Word, TypeId)>,
}

impl RayState {
    /// The variable that stands for `v` (an entry parameter or a payload `alloca`), if any.
    pub fn pointer(&self, v: Value) -> Option<(Word, StorageClass)> {
        match v {
            Value::Arg(k) => self.args.get(k as usize).copied().flatten(),
            Value::Inst(i) => self.locals.get(&i).copied(),
            _ => None,
        }
    }
}

/// Whether `kind` is one of the six ray-tracing stages.
pub fn is_ray_stage(kind: ShaderKind) -> bool {
    matches!(
        kind,
        ShaderKind::RayGeneration
            | ShaderKind::Intersection
            | ShaderKind::AnyHit
            | ShaderKind::ClosestHit
            | ShaderKind::Miss
            | ShaderKind::Callable
    )
}

/// The SPIR-V execution model of a ray-tracing stage.
pub fn execution_model(kind: ShaderKind) -> Option<ExecutionModel> {
    Some(match kind {
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

/// Makes the variables of `func` (a `kind` entry): its parameters and payload `alloca`s.
pub(crate) fn prepare(cx: &mut ModuleBuilder<'_>, m: &Module, func: &Function, kind: ShaderKind) -> Result<RayState> {
    cx.capability(Capability::RayTracingKHR);
    cx.extension("SPV_KHR_ray_tracing");
    let mut state = RayState::default();
    let classes: &[(StorageClass, &str)] = match kind {
        ShaderKind::AnyHit | ShaderKind::ClosestHit => {
            &[(StorageClass::IncomingRayPayloadKHR, "payload"), (StorageClass::HitAttributeKHR, "hit_attributes")]
        }
        ShaderKind::Miss => &[(StorageClass::IncomingRayPayloadKHR, "payload")],
        ShaderKind::Callable => &[(StorageClass::IncomingCallableDataKHR, "callable_data")],
        _ => &[],
    };
    if func.params.len() > classes.len() {
        return Err(Error::Malformed(format!(
            "{kind:?} entry `{}` has {} parameters ({} expected)",
            export_name(&func.name),
            func.params.len(),
            classes.len()
        )));
    }
    for (p, &(class, name)) in func.params.iter().zip(classes) {
        let pointee = m
            .types
            .pointee(p.ty)
            .ok_or_else(|| Error::Malformed(format!("{kind:?} entry parameter `{name}` is not a pointer")))?;
        let ty = cx.ty(pointee)?;
        let var = cx.global_var(class, ty, name);
        if class == StorageClass::HitAttributeKHR {
            state.hit_attributes = Some((var, pointee));
        }
        state.args.push(Some((var, class)));
    }
    for &b in &func.layout {
        for &i in &func.blocks[b].insts {
            let Ok(Some(call)) = crate::dxil::ops::decode_call(m, func, i, "") else { continue };
            let (arg, class, name) = match call.op {
                DxOp::TraceRay => (call.args.get(14), StorageClass::RayPayloadKHR, "ray_payload"),
                DxOp::CallShader => (call.args.get(1), StorageClass::CallableDataKHR, "callable_data"),
                _ => continue,
            };
            let Some(&Value::Inst(a)) = arg else {
                return Err(Error::UnsupportedForm {
                    name: call.op.name().into(),
                    message: "the payload must be an alloca of the calling function".into(),
                });
            };
            let InstKind::Alloca { allocated, .. } = &func.insts[a].kind else {
                return Err(Error::UnsupportedForm {
                    name: call.op.name().into(),
                    message: "the payload must be an alloca of the calling function".into(),
                });
            };
            match state.locals.get(&a) {
                Some(&(_, c)) if c != class => {
                    return Err(Error::UnsupportedForm {
                        name: call.op.name().into(),
                        message: "one alloca passed both as a ray payload and as callable data".into(),
                    })
                }
                Some(_) => {}
                None => {
                    let ty = cx.ty(*allocated)?;
                    let var = cx.global_var(class, ty, name);
                    state.locals.insert(a, (var, class));
                }
            }
        }
    }
    Ok(state)
}

/// The one entry of a library translated without naming an entry.
pub(crate) fn only_entry(entries: &[EntryPoint]) -> Result<&EntryPoint> {
    let with_function: Vec<&EntryPoint> = entries.iter().filter(|e| e.function.is_some()).collect();
    match with_function.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::NotAShader("a library without entry functions".into())),
        many => Err(Error::LibraryEntry(format!(
            "the library has {} entries ({}): translate one by name or all of them",
            many.len(),
            many.iter().map(|e| export_name(&e.name)).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// The library entry exported as `name` (or whose function is named `name`).
pub(crate) fn named_entry<'e>(entries: &'e [EntryPoint], name: &str) -> Result<&'e EntryPoint> {
    entries.iter().filter(|e| e.function.is_some()).find(|e| export_name(&e.name) == name || e.name == name).ok_or_else(
        || {
            Error::LibraryEntry(format!(
                "no entry `{name}` (entries: {})",
                entries
                    .iter()
                    .filter(|e| e.function.is_some())
                    .map(|e| export_name(&e.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        },
    )
}

/// The shader kind a library entry is translated in: an entry with node properties is a
/// work-graph node (`super::node`), whatever its kind tag says.
pub(crate) fn entry_kind(ep: &EntryPoint) -> Result<ShaderKind> {
    let kind = ep
        .properties
        .shader_kind
        .ok_or_else(|| Error::Malformed(format!("library entry `{}` has no shader kind", export_name(&ep.name))))?;
    // A compute shader with node properties (tags 13-22) is a work-graph node too
    // (`stage::node`).
    if ep.properties.node.is_some() {
        return Ok(ShaderKind::Node);
    }
    if let Some(e) = &ep.properties.node_error {
        return Err(Error::Malformed(e.clone()));
    }
    if kind == ShaderKind::Node {
        return Err(Error::Malformed(format!(
            "node entry `{}` has no node properties (tags 13-22)",
            export_name(&ep.name)
        )));
    }
    if !is_ray_stage(kind) && kind != ShaderKind::Compute {
        return Err(Error::UnsupportedStage { stage: format!("lib ({kind:?} entry)") });
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
