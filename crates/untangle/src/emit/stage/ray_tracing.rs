//! Ray-tracing stages (`SPV_KHR_ray_tracing`): a DXIL library's raygen, intersection,
//! any-hit, closest-hit, miss and callable entries, one SPIR-V module each.
//!
//! # Libraries and entries
//!
//! A library (`lib_6_x`) lists its entries in `dx.entryPoints`, each with its shader kind
//! (properties tag 8) and its function; the module-level entry without a function only
//! carries the resource table. An entry's name as the application exports it is the
//! function's name demangled ([`crate::emit::entry::export_name`]: `\x01?RayGen@@YAXXZ` → `RayGen`), which is
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
//! `HitAttributeKHR` is read-only outside intersection shaders: a store or atomic into the
//! attributes of an any-hit or closest-hit shader is refused (`FnEmit::written_pointer`).
//!
//! The `alloca`s a function passes to `traceRay` become `RayPayloadKHR` variables and those
//! passed to `callShader` `CallableDataKHR` variables (module scope: `OpTraceRayKHR` and
//! `OpExecuteCallableKHR` name the variable itself; so do SM 6.9's `HitObject_TraceRay` and
//! `HitObject_Invoke`, which may also name the incoming payload); loads and stores reach them through the
//! same access chains as any alloca. An intersection shader's `reportHit` copies its
//! attribute `alloca` into the one `HitAttributeKHR` variable (typed by the first
//! `reportHit`; another attribute type in the same shader is refused) before
//! `OpReportIntersectionKHR`.
//!
//! Cost: one pass over the entry function's instructions to find those `alloca`s.

use crate::dxil::DxOp;
use crate::emit::entry::export_name;
use crate::emit::error::{malformed, Error, Result, Subject};
use crate::emit::{ModuleBuilder, RayState};
use crate::front::container::ShaderKind;
use crate::ir::{ConstKind, Function, InstKind, Module, Value};
use rspirv::spirv::{Capability, StorageClass, Word};

impl RayState {
    /// The variable that stands for `v` (an entry parameter or a payload `alloca`), if any.
    pub fn pointer(&self, v: Value) -> Option<(Word, StorageClass)> {
        match v {
            Value::Arg(k) => self.args.get(k as usize).copied().flatten(),
            Value::Inst(i) => self.locals.get(&i).copied(),
            _ => None,
        }
    }

    /// Makes the variables of `func` (a `kind` entry): its parameters and payload `alloca`s.
    pub(in crate::emit) fn prepare(
        cx: &mut ModuleBuilder<'_>,
        m: &Module,
        func: &Function,
        kind: ShaderKind,
    ) -> Result<RayState> {
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
            return Err(malformed(
                Subject::Entry(export_name(&func.name).to_string()),
                format!(
                    "{kind:?} entry `{}` has {} parameters ({} expected)",
                    export_name(&func.name),
                    func.params.len(),
                    classes.len()
                ),
            ));
        }
        for (p, &(class, name)) in func.params.iter().zip(classes) {
            let pointee = m.types.pointee(p.ty).ok_or_else(|| {
                malformed(
                    Subject::Entry(export_name(&func.name).to_string()),
                    format!("{kind:?} entry parameter `{name}` is not a pointer"),
                )
            })?;
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
                    DxOp::TraceRay | DxOp::HitObject_TraceRay => {
                        (call.args.get(14), StorageClass::RayPayloadKHR, "ray_payload")
                    }
                    DxOp::HitObject_Invoke => (call.args.get(1), StorageClass::RayPayloadKHR, "ray_payload"),
                    DxOp::CallShader => (call.args.get(1), StorageClass::CallableDataKHR, "callable_data"),
                    _ => continue,
                };
                // The hit-object operations may also name the stage's incoming payload
                // (`SPV_*_shader_invocation_reorder` accept `IncomingRayPayloadKHR`).
                if matches!(arg, Some(Value::Arg(_)))
                    && matches!(call.op, DxOp::HitObject_TraceRay | DxOp::HitObject_Invoke)
                {
                    continue;
                }
                let undef = |k| matches!(m.constants.get(k).kind, ConstKind::Undef | ConstKind::Poison);
                if arg.is_some_and(|&v| matches!(v, Value::Const(k) if undef(k))) {
                    return Err(malformed(Subject::Op(call.op), "the payload is undef (DXC's validator rejects it)"));
                }
                let Some(&Value::Inst(a)) = arg else {
                    return Err(Error::UnsupportedForm {
                        subject: Subject::Op(call.op),
                        message: "the payload must be an alloca of the calling function".into(),
                    });
                };
                let InstKind::Alloca { allocated, .. } = &func.insts[a].kind else {
                    return Err(Error::UnsupportedForm {
                        subject: Subject::Op(call.op),
                        message: "the payload must be an alloca of the calling function".into(),
                    });
                };
                match state.locals.get(&a) {
                    Some(&(_, c)) if c != class => {
                        return Err(Error::UnsupportedForm {
                            subject: Subject::Op(call.op),
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
}
