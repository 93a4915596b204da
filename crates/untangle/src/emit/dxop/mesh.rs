//! The `MeshShading` family (`crate::emit::support::Family::MeshShading`): mesh shader
//! operations (`setMeshOutputCounts`, `emitIndices`, `storeVertexOutput`,
//! `storePrimitiveOutput`, `getMeshPayload`) go to `crate::emit::stage::mesh`, the
//! amplification shader's `dispatchMesh` to `crate::emit::stage::amplification`, which also
//! own execution modes and the D3D ↔ Vulkan differences (`docs/stage-interfaces.md`).
//!
//! `crate::emit::support` refuses each of them outside the one stage DXIL allows it in.

use crate::emit::error::Result;
use crate::emit::{Call, FnEmit};
use rspirv::spirv::Word;

impl<'a, 'm> FnEmit<'a, 'm> {
    /// Lowers a mesh or amplification shader operation.
    pub(super) fn mesh_family_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        self.mesh_op(c)
    }
}
