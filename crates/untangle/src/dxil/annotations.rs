//! Struct type annotations (`dx.typeAnnotations`): field names and constant-buffer offsets.
//!
//! Each annotation list starts with a tag (0 structs, 1 functions) followed by pairs of
//! (`%T undef`, annotation). A struct annotation is `{size in bytes, field...}`, each field a
//! tag/value list (DXC `DxilMDHelper`: 3 cbuffer offset, 6 field name, 7 component type,
//! 2 matrix, 13 vector size). Function annotations are not needed and skipped.

use super::enums::ComponentType;
use super::error::Result;
use super::md::Tuple;
use crate::ir::Module;
use serde::Serialize;

#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct StructAnnotation {
    pub type_name: String,
    pub size_in_bytes: u32,
    pub fields: Vec<FieldAnnotation>,
}

#[derive(Clone, PartialEq, Debug, Default, Serialize)]
pub struct FieldAnnotation {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cbuffer_offset: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component_type: Option<ComponentType>,
}

pub(crate) fn read_struct_annotations(m: &Module) -> Result<Vec<StructAnnotation>> {
    let mut out = Vec::new();
    for (k, &id) in m.metadata.named("dx.typeAnnotations").iter().enumerate() {
        let t = Tuple::of_named(m, id, "dx.typeAnnotations", k)?;
        if t.len() == 0 || t.u32(0)? != 0 {
            continue;
        }
        let mut i = 1;
        while i + 1 < t.len() {
            let (ty, _) = t.value(i)?;
            let type_name = m.types.struct_name(ty).unwrap_or("").to_string();
            let a = t.tuple(i + 1)?;
            let mut fields = Vec::new();
            for f in 1..a.len() {
                let ft = a.tuple(f)?;
                let mut field = FieldAnnotation::default();
                for (tag, at) in ft.tag_pairs()? {
                    match tag {
                        3 => field.cbuffer_offset = Some(ft.u32(at)?),
                        6 => field.name = ft.string(at)?.to_string(),
                        7 => field.component_type = Some(ComponentType::from_raw(ft.u32(at)?)),
                        _ => {}
                    }
                }
                fields.push(field);
            }
            out.push(StructAnnotation { type_name, size_in_bytes: a.u32(0)?, fields });
            i += 2;
        }
    }
    Ok(out)
}
