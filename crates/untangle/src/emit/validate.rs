//! Checks on the entry point's metadata that the translator relies on, before anything is
//! emitted: signature elements (shape and register range) and resource records (class and
//! kind). A violation is a typed [`TranslateError::Malformed`] naming the element or
//! resource; metadata that does not even have the right shape was refused when it was read
//! (`crate::dxil::md`). `dx.op` calls are checked where they are lowered (`dxop::check`).
//!
//! The limits are DXC's (`DxilValidation.cpp`, `DxilSignatureElement`): 1 to 4 columns, rows
//! that fit the 32 registers of a signature, and an allocated element within its registers'
//! four components; the class/kind pairs are those `DxilResource` and `DxilSampler` can
//! describe.

use super::error::{Result, TranslateError};
use crate::dxil::{EntryPoint, ResourceClass, ResourceKind, SignatureElement};

/// Signature registers (`D3D12_*_REGISTER_COUNT`).
const SIGNATURE_ROWS: u32 = 32;

/// Checks every signature element and resource of `ep`.
pub fn entry_point(ep: &EntryPoint) -> Result<()> {
    let sigs = &ep.signatures;
    for (which, list) in [("input", &sigs.inputs), ("output", &sigs.outputs), ("patch constant", &sigs.patch_constants)]
    {
        for el in list {
            element(which, el)?;
        }
    }
    for r in ep.resources.iter() {
        resource(r)?;
    }
    Ok(())
}

fn element(which: &str, el: &SignatureElement) -> Result<()> {
    let bad = |what: String| {
        TranslateError::Malformed(format!(
            "{which} signature element {} ({}{}): {what}",
            el.id,
            el.semantic,
            el.semantic_indices.first().copied().unwrap_or(0)
        ))
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
    if el.semantic_indices.len() > el.rows as usize {
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
        return Err(TranslateError::Malformed(format!(
            "{} {} ({}) is declared with resource kind {:?}",
            r.class.name(),
            r.register(),
            r.name,
            r.kind
        )));
    }
    if r.range_size == Some(0) {
        return Err(TranslateError::Malformed(format!("{} {} has an empty range", r.class.name(), r.register())));
    }
    if let Some(n) = r.range_size {
        if u64::from(r.lower_bound) + u64::from(n) > u64::from(u32::MAX) + 1 {
            return Err(TranslateError::Malformed(format!(
                "{} {}: {n} registers run past register 2^32",
                r.class.name(),
                r.register()
            )));
        }
    }
    Ok(())
}
