//! Signature elements from entry-point metadata.
//!
//! Each element (DXC `DxilMDHelper`): ID, semantic name, component type, semantic kind,
//! semantic indices (tuple or null), interpolation mode, rows, columns, start row (-1 when
//! not allocated), start column, extended properties (tag/value: 0 output stream,
//! 2 dynamically indexed component mask, 3 usage component mask).

use super::enums::{ComponentType, InterpolationMode, SemanticKind};
use super::error::Result;
use super::md::Tuple;
use serde::Serialize;

#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct SignatureElement {
    pub id: u32,
    pub semantic: String,
    pub semantic_indices: Vec<u32>,
    pub component_type: ComponentType,
    pub system_value: SemanticKind,
    pub interpolation: InterpolationMode,
    pub rows: u32,
    pub cols: u32,
    /// `None` when the element is not allocated to a register (system values that live
    /// outside the signature, like `SV_Depth` in some cases).
    pub start_row: Option<u32>,
    pub start_col: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_stream: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage_mask: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dynamic_index_mask: Option<u32>,
}

#[derive(Clone, PartialEq, Debug, Default, Serialize)]
pub struct Signatures {
    pub inputs: Vec<SignatureElement>,
    pub outputs: Vec<SignatureElement>,
    pub patch_constants: Vec<SignatureElement>,
}

impl Signatures {
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty() && self.outputs.is_empty() && self.patch_constants.is_empty()
    }

    pub(crate) fn read(t: &Tuple<'_>) -> Result<Signatures> {
        let list = |i: usize| -> Result<Vec<SignatureElement>> {
            match t.opt_tuple(i)? {
                None => Ok(Vec::new()),
                Some(l) => (0..l.len()).map(|k| read_element(&l.tuple(k)?)).collect(),
            }
        };
        Ok(Signatures { inputs: list(0)?, outputs: list(1)?, patch_constants: list(2)? })
    }
}

fn read_element(e: &Tuple<'_>) -> Result<SignatureElement> {
    let semantic_indices = match e.opt_tuple(4)? {
        None => Vec::new(),
        Some(ix) => (0..ix.len()).map(|k| ix.u32(k)).collect::<Result<_>>()?,
    };
    let start_row = e.i32(8)?;
    // The start column is an `i8` (-1 when not allocated), which the reader zero-extends.
    let start_col = match e.i32(9)? {
        c @ 0..=255 => c as u8 as i8 as i32,
        c => c,
    };
    let mut el = SignatureElement {
        id: e.u32(0)?,
        semantic: e.string(1)?.to_string(),
        semantic_indices,
        component_type: ComponentType::from_raw(e.u32(2)?),
        system_value: SemanticKind::from_raw(e.u32(3)?),
        interpolation: InterpolationMode::from_raw(e.u32(5)?),
        rows: e.u32(6)?,
        cols: e.u32(7)?,
        start_row: (start_row >= 0).then_some(start_row as u32),
        start_col: (start_col >= 0).then_some(start_col as u32),
        output_stream: None,
        usage_mask: None,
        dynamic_index_mask: None,
    };
    if e.len() > 10 {
        if let Some(props) = e.opt_tuple(10)? {
            for (tag, at) in props.tag_pairs()? {
                match tag {
                    0 => el.output_stream = Some(props.u32(at)?),
                    2 => el.dynamic_index_mask = Some(props.u32(at)?),
                    3 => el.usage_mask = Some(props.u32(at)?),
                    _ => {}
                }
            }
        }
    }
    Ok(el)
}
