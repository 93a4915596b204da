//! Checks on the entry point's metadata that the translator relies on, before anything is
//! emitted: signature elements (shape and register range) and resource records (class and
//! kind). A violation is a typed [`Error::Malformed`] naming the element or
//! resource; metadata that does not even have the right shape was refused when it was read
//! (`crate::dxil::md`). `dx.op` calls are checked where they are lowered (`dxop::check`).
//!
//! The limits are DXC's (`DxilValidation.cpp`, `DxilSignatureElement`): 1 to 4 columns, rows
//! that fit the 32 registers of a signature, and an allocated element within its registers'
//! four components; the class/kind pairs are those `DxilResource` and `DxilSampler` can
//! describe.
//!
//! A low-level module of `emit` (see its documentation): it imports only `error`,
//! [`super::locations`] and the layers below `emit`; the driver (`translate`) runs it
//! before emission.

use super::error::{malformed, Result, Subject};
use super::locations::SigKind;
use crate::dxil::{EntryPoint, ResourceClass, ResourceKind, SemanticKind, SignatureElement};

/// Signature registers (`D3D12_*_REGISTER_COUNT`).
const SIGNATURE_ROWS: u32 = 32;

/// Checks every signature element and resource of `ep`, and a compute shader's thread-group
/// size (D3D12: each dimension at least 1, z at most 64, at most 1024 threads).
pub fn entry_point(ep: &EntryPoint, stage: crate::front::container::ShaderKind) -> Result<()> {
    if matches!(stage, crate::front::container::ShaderKind::Compute | crate::front::container::ShaderKind::Node) {
        let [x, y, z] = ep.properties.num_threads.unwrap_or([1, 1, 1]);
        let dims_ok = (1..=1024).contains(&x) && (1..=1024).contains(&y) && (1..=64).contains(&z);
        if !dims_ok || x * y * z > 1024 {
            return Err(malformed(
                Subject::Stage(stage),
                format!("numthreads({x}, {y}, {z}) is outside D3D12's limits"),
            ));
        }
    }
    // Mesh and amplification shaders: each dimension at least 1, at most 128 threads (DXC's
    // validator, `DxilValidation.cpp`). A zero would make the `LocalSize` (at least 1)
    // disagree with the quad shape chosen from the declared sizes.
    let task = ep.properties.mesh.as_ref().map(|m| m.num_threads);
    if let Some([x, y, z]) = task.or(ep.properties.amplification.as_ref().map(|a| a.num_threads)) {
        if x == 0 || y == 0 || z == 0 || x.saturating_mul(y).saturating_mul(z) > 128 {
            return Err(malformed(
                Subject::Stage(stage),
                format!("numthreads({x}, {y}, {z}) is outside D3D12's limits (1 to 128 threads)"),
            ));
        }
    }
    let sigs = &ep.signatures;
    let signatures = [
        ("input", SigKind::Input, &sigs.inputs),
        ("output", SigKind::Output, &sigs.outputs),
        ("patch constant", SigKind::PatchConstant, &sigs.patch_constants),
    ];
    for (which, kind, list) in signatures {
        for el in list {
            // DXC 1.7 gives a mesh shader's `SV_Position` vertex output one semantic index per
            // declared vertex (`{0, 1, 2}` for one row); only the first means anything.
            let quirk = stage == crate::front::container::ShaderKind::Mesh && which == "output";
            element(which, kind, el, quirk)?;
            if !system_value_allowed(stage, which, el.system_value) {
                return Err(malformed(
                    Subject::Element { kind, id: el.id },
                    format!(
                    "{which} signature element {} ({}): system value {:?} does not exist there in a {stage:?} shader",
                    el.id, el.semantic, el.system_value
                ),
                ));
            }
        }
    }
    for r in ep.resources.iter() {
        resource(r)?;
    }
    Ok(())
}

/// The system values of pixel and vertex signatures (DXC's `DxilSigPoint` table, for the
/// `PSIn`, `PSOut`, `VSIn` and `VSOut` points); hull, domain and geometry signatures are
/// checked element by element where `interface` places them (its `SigPoint` rules refuse
/// what Vulkan cannot express), and other stages have no signature. A system value
/// elsewhere would become a built-in Vulkan forbids in that stage or direction.
fn system_value_allowed(stage: crate::front::container::ShaderKind, which: &str, sv: SemanticKind) -> bool {
    use crate::front::container::ShaderKind::{Pixel, Vertex};
    use SemanticKind as S;
    match (stage, which) {
        (Pixel, "input") => matches!(
            sv,
            S::Arbitrary
                | S::Position
                | S::VertexID
                | S::InstanceID
                | S::PrimitiveID
                | S::RenderTargetArrayIndex
                | S::ViewPortArrayIndex
                | S::ClipDistance
                | S::CullDistance
                | S::IsFrontFace
                | S::SampleIndex
                | S::Coverage
                | S::InnerCoverage
                | S::Barycentrics
                | S::ShadingRate
                | S::ViewID
        ),
        (Pixel, "output") => {
            matches!(sv, S::Target | S::Depth | S::DepthLessEqual | S::DepthGreaterEqual | S::Coverage | S::StencilRef)
        }
        (Vertex, "input") => matches!(sv, S::Arbitrary | S::VertexID | S::InstanceID),
        (Vertex, "output") => matches!(
            sv,
            S::Arbitrary
                | S::Position
                | S::ClipDistance
                | S::CullDistance
                | S::RenderTargetArrayIndex
                | S::ViewPortArrayIndex
                | S::ShadingRate
        ),
        (Pixel | Vertex, _) => false,
        _ => true,
    }
}

/// The most rows and columns an element of system value `sv` may have (DXC's
/// `DxilSemantic` table: scalars, `SV_Position` a `float4`, `SV_Barycentrics` a `float3`,
/// clip and cull distances two registers), or `None` where the signature rules above
/// suffice. The translator gives these built-ins Vulkan's fixed types, so another shape
/// would index past them.
fn system_value_shape(sv: SemanticKind) -> Option<(u32, u32)> {
    use SemanticKind as S;
    match sv {
        S::VertexID
        | S::InstanceID
        | S::RenderTargetArrayIndex
        | S::ViewPortArrayIndex
        | S::PrimitiveID
        | S::GSInstanceID
        | S::SampleIndex
        | S::IsFrontFace
        | S::Coverage
        | S::InnerCoverage
        | S::Depth
        | S::DepthLessEqual
        | S::DepthGreaterEqual
        | S::StencilRef
        | S::ViewID
        | S::ShadingRate
        | S::CullPrimitive
        | S::StartVertexLocation
        | S::StartInstanceLocation => Some((1, 1)),
        S::Position => Some((1, 4)),
        S::Barycentrics => Some((1, 3)),
        S::ClipDistance | S::CullDistance => Some((2, 4)),
        _ => None,
    }
}

fn element(which: &str, kind: SigKind, el: &SignatureElement, extra_indices_ok: bool) -> Result<()> {
    let bad = |what: String| {
        malformed(
            Subject::Element { kind, id: el.id },
            format!(
                "{which} signature element {} ({}{}): {what}",
                el.id,
                el.semantic,
                el.semantic_indices.first().copied().unwrap_or(0)
            ),
        )
    };
    if !(1..=4).contains(&el.cols) {
        return Err(bad(format!("{} columns (1 to 4)", el.cols)));
    }
    if !(1..=SIGNATURE_ROWS).contains(&el.rows) {
        return Err(bad(format!("{} rows (1 to {SIGNATURE_ROWS})", el.rows)));
    }
    if let (Some(col), Some(_)) = (el.start_col, el.start_row) {
        if col + el.cols > 4 {
            return Err(bad(format!("{} columns from component {col} leave the register", el.cols)));
        }
    }
    if let Some(row) = el.start_row {
        if u64::from(row) + u64::from(el.rows) > u64::from(SIGNATURE_ROWS) {
            return Err(bad(format!(
                "rows {row}..{} pass register {}",
                u64::from(row) + u64::from(el.rows),
                SIGNATURE_ROWS
            )));
        }
    }
    if let Some((rows, cols)) = system_value_shape(el.system_value) {
        if el.rows > rows || el.cols > cols {
            return Err(bad(format!(
                "system value {:?} of {}x{} components (at most {rows}x{cols})",
                el.system_value, el.rows, el.cols
            )));
        }
    }
    if el.semantic_indices.len() > el.rows as usize && !extra_indices_ok {
        return Err(bad(format!("{} semantic indices for {} rows", el.semantic_indices.len(), el.rows)));
    }
    Ok(())
}

fn resource(r: &crate::dxil::Resource) -> Result<()> {
    use ResourceKind as K;
    let ok = match r.class {
        ResourceClass::Srv => matches!(
            r.kind,
            K::Texture1D
                | K::Texture2D
                | K::Texture2DMS
                | K::Texture3D
                | K::TextureCube
                | K::Texture1DArray
                | K::Texture2DArray
                | K::Texture2DMSArray
                | K::TextureCubeArray
                | K::TypedBuffer
                | K::RawBuffer
                | K::StructuredBuffer
                | K::TBuffer
                | K::RTAccelerationStructure
        ),
        ResourceClass::Uav => matches!(
            r.kind,
            K::Texture1D
                | K::Texture2D
                | K::Texture2DMS
                | K::Texture3D
                | K::Texture1DArray
                | K::Texture2DArray
                | K::Texture2DMSArray
                | K::TypedBuffer
                | K::RawBuffer
                | K::StructuredBuffer
                | K::FeedbackTexture2D
                | K::FeedbackTexture2DArray
        ),
        ResourceClass::Cbv => r.kind == K::CBuffer,
        ResourceClass::Sampler => r.kind == K::Sampler,
    };
    if !ok {
        return Err(malformed(
            Subject::Resource(r.class),
            format!("{} {} ({}) is declared with resource kind {:?}", r.class.name(), r.register(), r.name, r.kind),
        ));
    }
    if r.range_size == Some(0) {
        return Err(malformed(
            Subject::Resource(r.class),
            format!("{} {} has an empty range", r.class.name(), r.register()),
        ));
    }
    if let Some(n) = r.range_size {
        if u64::from(r.lower_bound) + u64::from(n) > u64::from(u32::MAX) + 1 {
            return Err(malformed(
                Subject::Resource(r.class),
                format!("{} {}: {n} registers run past register 2^32", r.class.name(), r.register()),
            ));
        }
    }
    Ok(())
}
