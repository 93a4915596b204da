//! Mesh shaders → `MeshEXT` (`SPV_EXT_mesh_shader`, capability `MeshShadingEXT`).
//!
//! Execution modes from the MS state: `[numthreads]` → `LocalSize`, `[outputtopology]` →
//! `OutputTrianglesEXT` / `OutputLinesEXT` (D3D has no point topology; a shader that
//! declares none emits nothing and gets triangles), the declared vertex and primitive
//! counts → `OutputVertices`, `OutputPrimitivesEXT` (at least 1: Vulkan requires a positive
//! count, D3D allows an empty mesh shader).
//!
//! Operations:
//! - `setMeshOutputCounts(v, p)` → `OpSetMeshOutputsEXT v p`, where D3D calls it. D3D and
//!   Vulkan have the same rule (at most once per group, in thread-group-uniform control
//!   flow, before any output write), so the call is translated in place; DXC may place it
//!   inside a branch on a group-uniform value (a loaded groupshared count, a root
//!   constant), which is uniform control flow for Vulkan too. A shader that breaks D3D's
//!   rule (counts written twice, or outputs before the counts) is undefined in both APIs.
//! - `emitIndices(p, a, b, c)` stores `uvec3(a, b, c)` to `PrimitiveTriangleIndicesEXT[p]`
//!   (lines: `uvec2(a, b)` to `PrimitiveLineIndicesEXT[p]`); D3D's index buffer is an array
//!   of `uint3`/`uint2` with the same meaning.
//! - `storeVertexOutput(id, row, col, value, v)`: element `id` of vertex `v`, an array of
//!   `[maxvertices]` per element (`crate::emit::interface`, `SigPoint::MsOut`).
//! - `storePrimitiveOutput(id, row, col, value, p)`: element `id` of the primitive signature
//!   for primitive `p`, arrays of `[maxprimitives]` decorated `PerPrimitiveEXT`; its system
//!   values are `gl_MeshPrimitivesEXT`'s built-ins (`SV_PrimitiveID` → `PrimitiveId`,
//!   `SV_RenderTargetArrayIndex` → `Layer`, `SV_ViewportArrayIndex` → `ViewportIndex`,
//!   `SV_CullPrimitive` → `CullPrimitiveEXT`, `SV_ShadingRate` →
//!   `PrimitiveShadingRateKHR`).
//! - `getMeshPayload()` → the entry point's one `TaskPayloadWorkgroupEXT` variable of the
//!   payload's type; loads through it read what the amplification shader dispatched
//!   (`super::amplification`).
//!
//! D3D's payload limit (16384 bytes) is Vulkan's guaranteed `maxTaskPayloadSize`; a larger
//! declared payload is a typed error rather than a module a device may reject.

use crate::dxil::{DxOp, MsState};
use crate::emit::error::{malformed, Error, Result, Subject};
use crate::emit::locations::SigKind;
use crate::emit::MeshVars;
use crate::emit::{Call, FnEmit, ModuleBuilder, StageIo};
use crate::front::container::ShaderKind;
use crate::ir::TypeId;
use rspirv::spirv::{BuiltIn, Capability, ExecutionMode, Op, StorageClass, Word};

/// D3D's largest payload and Vulkan's guaranteed `maxTaskPayloadSize`, in bytes.
pub const MAX_PAYLOAD_BYTES: u32 = 16384;

/// D3D's limits on `[outputtopology]` counts (and Vulkan's guaranteed
/// `maxMeshOutputVertices` / `maxMeshOutputPrimitives`).
pub const MAX_OUTPUT_COUNT: u32 = 256;

/// `DXIL::MeshOutputTopology`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Topology {
    Line,
    Triangle,
}

fn topology(ms: &MsState) -> Result<Topology> {
    match ms.output_topology {
        1 => Ok(Topology::Line),
        // Undefined: a shader that writes no primitives.
        0 | 2 => Ok(Topology::Triangle),
        n => Err(malformed(Subject::Stage(ShaderKind::Mesh), format!("mesh shader output topology {n}"))),
    }
}

fn check_limits(ms: &MsState) -> Result<()> {
    for (what, n) in [("vertices", ms.max_vertex_count), ("primitives", ms.max_primitive_count)] {
        if n > MAX_OUTPUT_COUNT {
            return Err(malformed(
                Subject::Stage(ShaderKind::Mesh),
                format!("a mesh shader declaring {n} output {what} (D3D's limit is {MAX_OUTPUT_COUNT})"),
            ));
        }
    }
    MeshVars::check_payload(ms.payload_size)
}

impl MeshVars {
    /// Refuses a payload larger than [`MAX_PAYLOAD_BYTES`].
    pub(in crate::emit) fn check_payload(bytes: u32) -> Result<()> {
        if bytes > MAX_PAYLOAD_BYTES {
            return Err(Error::UnsupportedForm {
                subject: Subject::Payload,
                message: format!(
                    "{bytes} bytes: D3D and Vulkan's guaranteed maxTaskPayloadSize allow {MAX_PAYLOAD_BYTES}"
                ),
            });
        }
        Ok(())
    }
}

impl StageIo {
    /// Checks the MS state and derives the interface facts.
    pub(in crate::emit) fn mesh(ms: &MsState) -> Result<StageIo> {
        check_limits(ms)?;
        Ok(StageIo {
            mesh_lines: topology(ms)? == Topology::Line,
            mesh_threads: ms.num_threads.iter().fold(1u32, |a, &n| a.saturating_mul(n.max(1))),
            output_vertices: ms.max_vertex_count.max(1),
            output_primitives: ms.max_primitive_count.max(1),
            ..Default::default()
        })
    }
}

impl ModuleBuilder<'_> {
    /// The extension and capability every mesh and amplification shader declares.
    pub(in crate::emit) fn declare_mesh_shading(&mut self) {
        self.extension("SPV_EXT_mesh_shader");
        self.capability(Capability::MeshShadingEXT);
    }

    /// The mesh shader's execution modes.
    pub(in crate::emit) fn mesh_modes(&mut self, entry: Word, ms: &MsState) -> Result<()> {
        self.declare_mesh_shading();
        let [x, y, z] = ms.num_threads;
        self.b.execution_mode(entry, ExecutionMode::LocalSize, [x.max(1), y.max(1), z.max(1)]);
        self.b.execution_mode(entry, ExecutionMode::OutputVertices, [ms.max_vertex_count.max(1)]);
        self.b.execution_mode(entry, ExecutionMode::OutputPrimitivesEXT, [ms.max_primitive_count.max(1)]);
        let mode = match topology(ms)? {
            Topology::Line => ExecutionMode::OutputLinesEXT,
            Topology::Triangle => ExecutionMode::OutputTrianglesEXT,
        };
        self.b.execution_mode(entry, mode, []);
        Ok(())
    }

    /// The `TaskPayloadWorkgroupEXT` variable `id` of type `pointee`, named and in the entry
    /// point's interface.
    pub(in crate::emit) fn define_task_payload(&mut self, id: Word, pointee: Word) {
        let class = StorageClass::TaskPayloadWorkgroupEXT;
        let ptr = self.ptr(class, pointee);
        self.b.global_inst(Op::Variable, Some(ptr), Some(id), &[class as u32]);
        self.b.name(id, "payload");
        self.interface.push(id);
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(in crate::emit) fn mesh_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        match c.op {
            DxOp::SetMeshOutputCounts => {
                let v = self.arg_val(c, 0)?;
                let p = self.arg_val(c, 1)?;
                self.ids_void(Op::SetMeshOutputsEXT, &[v, p])?;
                // View instancing: every primitive goes to the instance's viewport (and slice).
                self.view_instance_outputs(Some(p))?;
                Ok(None)
            }
            DxOp::EmitIndices => {
                let prim = self.arg_val(c, 0)?;
                let (builtin, n) = if self.iface.stage.mesh_lines {
                    (BuiltIn::PrimitiveLineIndicesEXT, 2)
                } else {
                    (BuiltIn::PrimitiveTriangleIndicesEXT, 3)
                };
                let mut vs = Vec::with_capacity(n);
                for k in 0..n {
                    vs.push(self.arg_val(c, 1 + k)?);
                }
                let u = self.cx.u32_t();
                let vec = self.cx.vec(u, n as u32);
                let len = self.cx.const_u32(self.iface.stage.output_primitives.max(1));
                let arr = self.cx.b.type_array(vec, len);
                let var = self.iface.builtin(self.cx, builtin, StorageClass::Output, arr);
                let pty = self.cx.ptr(StorageClass::Output, vec);
                let p = self.ids_op(Op::AccessChain, pty, &[var, prim])?;
                let value = self.ids_op(Op::CompositeConstruct, vec, &vs)?;
                self.ids_void(Op::Store, &[p, value])?;
                Ok(None)
            }
            DxOp::StoreVertexOutput | DxOp::StorePrimitiveOutput => {
                let kind = if c.op == DxOp::StoreVertexOutput { SigKind::Output } else { SigKind::PatchConstant };
                let at = self.element_operands(c, kind, Some(4))?;
                let value = self.arg(c, 3)?;
                self.store_element(at, value)?;
                Ok(None)
            }
            DxOp::GetMeshPayload => {
                let pointee = self.cx.m.types.pointee(c.ty).ok_or_else(|| {
                    malformed(Subject::Op(DxOp::GetMeshPayload), "getMeshPayload does not return a pointer")
                })?;
                let var = self.payload_var(pointee)?;
                self.define_pointer(c.inst, var, StorageClass::TaskPayloadWorkgroupEXT);
                Ok(None)
            }
            DxOp::DispatchMesh => self.dispatch_mesh(c),
            other => Err(self.not_in_family(other, "mesh shading")),
        }
    }

    /// The entry point's `TaskPayloadWorkgroupEXT` variable, holding IR type `pointee` (its
    /// declared size was checked against [`MAX_PAYLOAD_BYTES`] with the stage's state).
    pub(in crate::emit) fn payload_var(&mut self, pointee: TypeId) -> Result<Word> {
        let mesh = &mut self.iface.mesh;
        match mesh.payload {
            Some(v) if mesh.payload_defined => return Ok(v),
            _ => {}
        }
        let t = self.cx.ty(pointee)?;
        let v = *self.iface.mesh.payload.get_or_insert_with(|| self.cx.b.id());
        self.cx.define_task_payload(v, t);
        self.iface.mesh.payload_defined = true;
        Ok(v)
    }
}
