//! Amplification shaders → `TaskEXT` (`SPV_EXT_mesh_shader`).
//!
//! Execution mode: `[numthreads]` → `LocalSize`.
//!
//! `dispatchMesh(x, y, z, payload)`: D3D calls it once per group, at the end of the shader,
//! and the group's mesh shaders then read the payload; Vulkan's `OpEmitMeshTasksEXT x y z
//! payload` is a *terminator* that names a `TaskPayloadWorkgroupEXT` variable. The call
//! therefore becomes a copy and a record: the payload (an `alloca` or groupshared value in
//! DXIL) is loaded and stored to the entry point's `TaskPayloadWorkgroupEXT` variable
//! ([`MeshVars::payload`]; every invocation stores the same value, D3D requiring
//! the same arguments from all of them), and `x`, `y`, `z` go to three `Private` variables
//! initialised to 0. Every `ret` of the entry function becomes `OpEmitMeshTasksEXT` with the
//! recorded counts, so a path on which the shader never called `dispatchMesh` launches no
//! mesh groups (D3D's meaning of not calling it) and the call may sit in any block the
//! structurizer leaves it in. D3D's and Vulkan's limits on the counts agree (each at most
//! 65535, guaranteed `maxTaskWorkGroupTotalCount` 2^22 = D3D's limit on the product).
//!
//! The payload's layout: both stages declare the payload with the types DXC gave it
//! (unlaid-out `TaskPayloadWorkgroupEXT` storage, as Vulkan requires without
//! `WorkgroupMemoryExplicitLayoutKHR`); the amplification and mesh shaders of one pipeline
//! must declare the same payload structure, as D3D requires.

use crate::dxil::AsState;
use crate::dxil::DxOp;
use crate::emit::error::{malformed, Result, Subject};
use crate::emit::{Call, FnEmit, MeshVars, ModuleBuilder, StageIo};
use rspirv::spirv::{ExecutionMode, Op, StorageClass, Word};

impl StageIo {
    /// Checks the AS state; amplification shaders have no signature.
    pub(in crate::emit) fn amplification(a: &AsState) -> Result<StageIo> {
        MeshVars::check_payload(a.payload_size)?;
        Ok(StageIo::default())
    }
}

impl ModuleBuilder<'_> {
    /// The amplification shader's execution modes.
    pub(in crate::emit) fn amplification_modes(&mut self, entry: Word, a: &AsState) -> Result<()> {
        self.declare_mesh_shading();
        let [x, y, z] = a.num_threads;
        self.b.execution_mode(entry, ExecutionMode::LocalSize, [x.max(1), y.max(1), z.max(1)]);
        Ok(())
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    /// `dispatchMesh(x, y, z, payload)`: copies the payload, records the counts.
    pub(in crate::emit) fn dispatch_mesh(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        let counts = [self.arg_val(c, 0)?, self.arg_val(c, 1)?, self.arg_val(c, 2)?];
        let payload = self.arg(c, 3)?;
        let pty = self.arg_ty(c, 3)?;
        let pointee = self
            .cx
            .m
            .types
            .pointee(pty)
            .ok_or_else(|| malformed(Subject::Op(DxOp::DispatchMesh), "dispatchMesh's payload is not a pointer"))?;
        let (src, _) = self.pointer(payload)?;
        let t = self.cx.ty(pointee)?;
        let value = self.ids_op(Op::Load, t, &[src])?;
        let dst = self.payload_var(pointee)?;
        self.ids_void(Op::Store, &[dst, value])?;
        let vars = self.task_count_vars();
        for (var, n) in vars.into_iter().zip(counts) {
            self.ids_void(Op::Store, &[var, n])?;
        }
        Ok(None)
    }

    /// The `Private` group-count variables (created on first use, initialised to 0).
    fn task_count_vars(&mut self) -> [Word; 3] {
        if let Some(v) = self.iface.mesh.task_counts {
            return v;
        }
        let u = self.cx.u32_t();
        let zero = self.cx.const_u32(0);
        let ptr = self.cx.ptr(StorageClass::Private, u);
        let vars = ["x", "y", "z"].map(|axis| {
            let v = self.cx.module_variable(ptr, StorageClass::Private, Some(zero));
            self.cx.b.name(v, format!("mesh_groups.{axis}"));
            self.cx.interface.push(v);
            v
        });
        self.iface.mesh.task_counts = Some(vars);
        vars
    }

    /// At an amplification shader's `ret`: loads the recorded counts (before the block's
    /// merge instruction); [`Self::emit_mesh_tasks`] then ends the block.
    pub(in crate::emit) fn task_return_counts(&mut self) -> Result<[Word; 3]> {
        let u = self.cx.u32_t();
        let vars = self.task_count_vars();
        let mut out = [0; 3];
        for (o, v) in out.iter_mut().zip(vars) {
            *o = self.ids_op(Op::Load, u, &[v])?;
        }
        Ok(out)
    }

    /// `OpEmitMeshTasksEXT` with `counts` and the payload variable. A `ret` may be laid out
    /// before the `dispatchMesh` that gives the payload its type, so the variable's id is
    /// reserved here and defined by [`Self::payload_var`] (or [`MeshVars::define_unused_payload`]).
    pub(in crate::emit) fn emit_mesh_tasks(&mut self, counts: [Word; 3]) -> Result<()> {
        let payload = match self.iface.mesh.payload {
            Some(v) => v,
            None => {
                let v = self.cx.b.id();
                self.iface.mesh.payload = Some(v);
                v
            }
        };
        self.cx.b.emit_mesh_tasks(counts, Some(payload))?;
        Ok(())
    }
}

impl MeshVars {
    /// Defines the payload variable whose id [`FnEmit::emit_mesh_tasks`] reserved when no
    /// `dispatchMesh` defined it (a shader that never dispatches: every count stays 0, so a
    /// 32-bit placeholder is never read).
    pub(in crate::emit) fn define_unused_payload(&mut self, cx: &mut ModuleBuilder<'_>) {
        if let (Some(id), false) = (self.payload, self.payload_defined) {
            let u = cx.u32_t();
            cx.define_task_payload(id, u);
            self.payload_defined = true;
        }
    }
}
