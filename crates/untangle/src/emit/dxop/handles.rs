//! Handles: `createHandle` (range id), `createHandleFromBinding` (register binding, SM 6.6)
//! and `annotateHandle` (passes its handle through). They emit nothing; the handle is
//! recorded for the operations that use it.
//!
//! A handle to AMD's AGS magic UAV (`u0, space2147420894`, i.e. `0x7FFF0ADE`: how
//! `ags_shader_intrinsics_dx12.hlsl` reaches the AMD D3D12 driver) is recorded like any
//! other when the layer exposes AGS (`Options::vendor.amd_ags`): the calls through it are
//! intrinsics, which `dxop/ags.rs` lowers, and the UAV itself is never declared. Without
//! the option it is a typed [`Error::VendorExtension`] error naming the option.

use crate::dxil::{DxOp, ResourceClass};
use crate::emit::error::{malformed, Error, Result, Subject, VendorRefusal};
use crate::emit::{Call, FnEmit, Handle, HeapHandle};
use crate::front::container::ShaderKind;
use crate::ir::{ConstKind, Value};

const FAMILY: &str = "handles";

fn class_of(n: u64) -> Result<ResourceClass> {
    ResourceClass::from_index(n).ok_or_else(|| malformed(Subject::Module, format!("resource class {n}")))
}

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn handle_op(&mut self, c: &Call<'_>) -> Result<()> {
        let h = match c.op {
            DxOp::CreateHandle => {
                let class = class_of(self.arg_const(c, 0)?)?;
                let id = self.arg_const(c, 1)? as u32;
                let index = self.arg(c, 2)?;
                let non_uniform = self.arg_const(c, 3).unwrap_or(0) != 0;
                Handle { class, id, index: Some(index), non_uniform, heap: None }
            }
            DxOp::CreateHandleFromHeap => {
                let index = self.arg(c, 0)?;
                let sampler = self.arg_const(c, 1)? != 0;
                let non_uniform = self.arg_const(c, 2).unwrap_or(0) != 0;
                let class = if sampler { ResourceClass::Sampler } else { ResourceClass::Srv };
                Handle {
                    class,
                    id: 0,
                    index: Some(index),
                    non_uniform,
                    heap: Some(HeapHandle { sampler, props: None }),
                }
            }
            DxOp::CreateHandleFromBinding => {
                let bind = self.arg(c, 0)?;
                let fields = self.const_fields(bind, 4);
                if fields.len() < 4 {
                    return Err(malformed(
                        Subject::Op(DxOp::CreateHandleFromBinding),
                        "createHandleFromBinding needs a constant binding",
                    ));
                }
                let class = class_of(fields[3])?;
                let id = self.res.find_binding(class, fields[2] as u32, fields[0] as u32)?;
                let index = self.arg(c, 1)?;
                let non_uniform = self.arg_const(c, 2).unwrap_or(0) != 0;
                Handle { class, id, index: Some(index), non_uniform, heap: None }
            }
            DxOp::AnnotateHandle => {
                let h = self.arg(c, 0)?;
                let mut h = self.handle(h)?;
                if let Some(hh) = h.heap.as_mut() {
                    let props = self.arg(c, 1)?;
                    let fields: Vec<u32> = self.const_fields(props, 2).into_iter().map(|f| f as u32).collect();
                    if fields.len() < 2 {
                        return Err(malformed(
                            Subject::Op(DxOp::AnnotateHandle),
                            "annotateHandle needs constant properties",
                        ));
                    }
                    hh.props = Some([fields[0], fields[1]]);
                    if crate::emit::rov::is_rov_heap_props(fields[0]) && self.sm.kind == ShaderKind::Pixel {
                        self.iface.stage.rov_interlock = true;
                    }
                }
                h
            }
            DxOp::CreateHandleForLib => {
                // The operand is the value loaded from the resource's global variable.
                let loaded = self.arg(c, 0)?;
                let ptr = match loaded {
                    Value::Inst(i) => match &self.f.insts[i].kind {
                        crate::ir::InstKind::Load { ptr, .. } => Some(*ptr),
                        _ => None,
                    },
                    _ => None,
                };
                let (class, id, index) = ptr.and_then(|p| self.library_resource(p)).ok_or_else(|| {
                    self.invalid(c, "operand 1", "not a value loaded from a resource variable of the library")
                })?;
                Handle { class, id, index, non_uniform: false, heap: None }
            }
            other => return Err(self.not_in_family(other, FAMILY)),
        };
        if h.heap.is_none() {
            self.check_register(c, &h)?;
            self.refuse_vendor_uav(&h)?;
        }
        self.handles.insert(c.inst, h);
        Ok(())
    }

    /// The integer fields of constant `v`: an aggregate's elements (a non-integer one reads
    /// 0), `zero_len` zeros for a zero initializer, none for anything else.
    fn const_fields(&self, v: Value, zero_len: usize) -> Vec<u64> {
        let Value::Const(k) = v else { return Vec::new() };
        match &self.cx.m.constants.get(k).kind {
            ConstKind::Aggregate(elems) => elems.iter().map(|&e| self.cx.m.constants.as_int(e).unwrap_or(0)).collect(),
            ConstKind::Zero | ConstKind::Null => vec![0; zero_len],
            _ => Vec::new(),
        }
    }

    /// AMD AGS's magic UAV (see the module documentation).
    fn refuse_vendor_uav(&self, h: &Handle) -> Result<()> {
        if self.iface.stage.vendor.amd_ags || !self.is_ags_uav(h)? {
            return Ok(());
        }
        let r = self.res.resource(h.class, h.id)?;
        Err(Error::VendorExtension {
            vendor: "AMD AGS",
            instruction: format!(
                "{}u0, space{} (the magic UAV, whose atomics encode driver intrinsics)",
                if r.name.is_empty() { String::new() } else { format!("`{}` at ", r.name) },
                crate::dxil::ags::MAGIC_SPACE
            ),
            reason: VendorRefusal::MissingFeature {
                feature: "a layer that exposes AMD AGS and decodes its intrinsics",
                option: "amd_ags",
            },
        })
    }

    /// `h` is AGS's magic UAV.
    pub fn is_ags_uav(&self, h: &Handle) -> Result<bool> {
        if h.class != ResourceClass::Uav || h.heap.is_some() {
            return Ok(false);
        }
        Ok(crate::dxil::ags::is_magic_uav(self.res.resource(h.class, h.id)?))
    }

    /// A handle into a declared range must name a register of the range when its index is a
    /// constant (DXC's validator checks it; a constant index past a descriptor array is
    /// invalid SPIR-V).
    fn check_register(&self, c: &Call<'_>, h: &Handle) -> Result<()> {
        let r = self.res.resource(h.class, h.id)?;
        let Some(index) = h.index.and_then(|v| self.const_int(v)) else { return Ok(()) };
        let end = r.range_size.map(|n| u64::from(r.lower_bound) + u64::from(n));
        if index < u64::from(r.lower_bound) || end.is_some_and(|e| index >= e) {
            let k = if c.op == DxOp::CreateHandle { 2 } else { 1 };
            return Err(self.invalid(
                c,
                &format!("operand {k}"),
                format!("register {index} is outside {} ({} registers)", r.register(), r.range_size.unwrap_or(0)),
            ));
        }
        Ok(())
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    /// The resource range a library's global variable (or an element of an array of them,
    /// `getelementptr @g, 0, index`) stands for: class, range id and the register index for
    /// arrays. Arrays are indexed relative to the range, so they must start at register 0.
    pub fn library_resource(&self, ptr: Value) -> Option<(ResourceClass, u32, Option<Value>)> {
        let (g, index) = crate::dxil::handles::library_global(self.cx.m, self.f, ptr)?;
        let r = self.res.table.iter().find(|r| r.global == Some(g))?;
        if index.is_some() && r.lower_bound != 0 {
            return None;
        }
        Some((r.class, r.id, index))
    }
}
