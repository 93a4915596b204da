//! A JSON dump of the model (`untangle rootsig --json`), built by hand so that the model
//! types stay free of serialization attributes. Enumerations are written as their HLSL
//! keywords, flags as their `|`-joined keywords, unbounded counts and `APPEND` offsets as
//! the strings `"unbounded"` and `"append"`.

use serde_json::{json, Value};

use super::model::*;
use super::names::*;

pub fn to_json(rs: &RootSignature) -> Value {
    let parameters: Vec<Value> = rs
        .parameters
        .iter()
        .enumerate()
        .map(|(index, p)| {
            let mut v = match &p.kind {
                ParameterKind::Table(ranges) => json!({
                    "kind": "DescriptorTable",
                    "ranges": ranges.iter().map(range_json).collect::<Vec<_>>(),
                }),
                ParameterKind::Constants(c) => json!({
                    "kind": "RootConstants",
                    "register": format!("b{}", c.register),
                    "space": c.space,
                    "num32BitConstants": c.num_values,
                }),
                ParameterKind::Descriptor(d) => json!({
                    "kind": d.class.name(),
                    "register": format!("{}{}", d.class.register_letter(), d.register),
                    "space": d.space,
                    "flags": flags_text(d.flags.0, DESCRIPTOR_FLAG_NAMES),
                }),
            };
            if let Some(obj) = v.as_object_mut() {
                obj.insert("index".into(), json!(index));
                obj.insert("visibility".into(), json!(p.visibility.keyword()));
            }
            v
        })
        .collect();
    let samplers: Vec<Value> = rs
        .static_samplers
        .iter()
        .map(|s| {
            json!({
                "register": format!("s{}", s.register),
                "space": s.space,
                "visibility": s.visibility.keyword(),
                "filter": s.filter.keyword().unwrap_or_else(|| format!("{:#x}", s.filter.0)),
                "addressU": s.address_u.keyword(),
                "addressV": s.address_v.keyword(),
                "addressW": s.address_w.keyword(),
                "mipLODBias": s.mip_lod_bias,
                "maxAnisotropy": s.max_anisotropy,
                "comparisonFunc": s.comparison.keyword(),
                "borderColor": s.border_color.keyword(),
                "minLOD": s.min_lod,
                "maxLOD": s.max_lod,
                "flags": flags_text(s.flags.0, SAMPLER_FLAG_NAMES),
            })
        })
        .collect();
    json!({
        "version": rs.version.name(),
        "flags": flags_text(rs.flags.0, ROOT_FLAG_NAMES),
        "root_cost_dwords": super::validate::root_cost(rs),
        "parameters": parameters,
        "static_samplers": samplers,
    })
}

fn range_json(r: &DescriptorRange) -> Value {
    json!({
        "kind": r.class.name(),
        "register": format!("{}{}", r.class.register_letter(), r.base_register),
        "numDescriptors": r.count.map_or(json!("unbounded"), |n| json!(n)),
        "space": r.space,
        "offset": match r.offset { RangeOffset::Append => json!("append"), RangeOffset::At(o) => json!(o) },
        "flags": flags_text(r.flags.0, RANGE_FLAG_NAMES),
    })
}
