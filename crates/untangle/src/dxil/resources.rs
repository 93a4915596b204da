//! The resource table (`dx.resources` and entry-point resource lists).
//!
//! Layout (DXC `DxilMDHelper`): every record starts with ID, variable (`%T* undef`),
//! name, space, lower bound, range size; then per class: SRV shape, sample count, tags;
//! UAV shape, globally coherent, has counter, rasterizer ordered, tags; CBV size in bytes,
//! tags; sampler kind, tags. Extended tags: 0 element type, 1 structure stride,
//! 2 sampler-feedback kind, 3 atomic64 use.

use super::enums::{ComponentType, ResourceKind, SamplerKind};
use super::error::Result;
use super::md::{pointee_struct_name, Tuple};
use crate::ir::{MdId, Module};
use serde::Serialize;

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, PartialOrd, Ord)]
pub enum ResourceClass {
    #[serde(rename = "SRV")]
    Srv,
    #[serde(rename = "UAV")]
    Uav,
    #[serde(rename = "CBV")]
    Cbv,
    Sampler,
}

impl ResourceClass {
    /// The HLSL register letter (`t`, `u`, `b`, `s`).
    pub fn register_letter(self) -> char {
        match self {
            ResourceClass::Srv => 't',
            ResourceClass::Uav => 'u',
            ResourceClass::Cbv => 'b',
            ResourceClass::Sampler => 's',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ResourceClass::Srv => "SRV",
            ResourceClass::Uav => "UAV",
            ResourceClass::Cbv => "CBV",
            ResourceClass::Sampler => "Sampler",
        }
    }

    pub const ALL: [ResourceClass; 4] =
        [ResourceClass::Srv, ResourceClass::Uav, ResourceClass::Cbv, ResourceClass::Sampler];

    /// The class from its DXIL / D3D12 number (SRV 0, UAV 1, CBV 2, Sampler 3; the
    /// `createHandle` class operand and `D3D12_DESCRIPTOR_RANGE_TYPE` alike).
    pub fn from_index(n: u64) -> Option<ResourceClass> {
        usize::try_from(n).ok().and_then(|i| Self::ALL.get(i)).copied()
    }

    /// The inverse of [`ResourceClass::from_index`].
    pub fn index(self) -> u32 {
        self as u32
    }
}

#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Resource {
    pub class: ResourceClass,
    /// Index within its class: the `createHandle` range id.
    pub id: u32,
    pub name: String,
    pub space: u32,
    pub lower_bound: u32,
    /// `None` for an unbounded range (`-1` in DXIL).
    pub range_size: Option<u32>,
    pub kind: ResourceKind,
    /// The struct the variable's type names (`%struct.RWByteAddressBuffer`, `%CBVs`).
    pub type_name: Option<String>,
    /// Element type of typed buffers and textures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element_type: Option<ComponentType>,
    /// Stride of structured buffers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub struct_stride: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_count: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uav: Option<UavFlags>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cbuffer_size: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler_kind: Option<SamplerKind>,
    /// The global variable that stands for the range (libraries load it and pass the value
    /// to `createHandleForLib`); `None` when the metadata names none.
    #[serde(skip)]
    pub global: Option<crate::ir::GlobalId>,
}

impl Resource {
    /// `t3, space1`-style binding for messages and the binding report.
    pub fn register(&self) -> String {
        self.spelled(", space")
    }

    /// `t3_space1`: the name a translation gives a range the metadata leaves unnamed.
    pub fn default_name(&self) -> String {
        self.spelled("_space")
    }

    /// The register letter, first register, `between`, space. Every translation spells
    /// each range it reports (and each unnamed one it declares): written digit by digit
    /// into a string of the right size, without `format!`'s machinery (a third of the
    /// cost of a tiny shader's binding report).
    fn spelled(&self, between: &str) -> String {
        spell_register(self.class.register_letter(), self.lower_bound, between, self.space)
    }
}

/// Appends `n` in decimal.
/// `letter`, `lower`, `between`, `space`, the numbers in decimal ([`Resource::register`]).
fn spell_register(letter: char, lower: u32, between: &str, space: u32) -> String {
    let mut s = String::with_capacity(1 + 10 + between.len() + 10);
    s.push(letter);
    push_decimal(&mut s, lower);
    s.push_str(between);
    push_decimal(&mut s, space);
    s
}

fn push_decimal(s: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    s.extend(digits[at..].iter().map(|&d| char::from(d)));
}

#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
pub struct UavFlags {
    pub globally_coherent: bool,
    pub has_counter: bool,
    pub rasterizer_ordered: bool,
    pub atomic64: bool,
}

/// All four classes; the index of a resource is `(class, id)`.
#[derive(Clone, PartialEq, Debug, Default, Serialize)]
pub struct Resources {
    pub srvs: Vec<Resource>,
    pub uavs: Vec<Resource>,
    pub cbvs: Vec<Resource>,
    pub samplers: Vec<Resource>,
}

impl Resources {
    /// The resource of class `class` whose register range holds `register` in `space`.
    pub fn holding(&self, class: ResourceClass, space: u32, register: u32) -> Option<&Resource> {
        self.class(class).iter().find(|r| {
            r.space == space && register >= r.lower_bound && r.range_size.is_none_or(|n| register - r.lower_bound < n)
        })
    }

    pub fn class(&self, c: ResourceClass) -> &[Resource] {
        match c {
            ResourceClass::Srv => &self.srvs,
            ResourceClass::Uav => &self.uavs,
            ResourceClass::Cbv => &self.cbvs,
            ResourceClass::Sampler => &self.samplers,
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &Resource> {
        self.srvs.iter().chain(&self.uavs).chain(&self.cbvs).chain(&self.samplers)
    }

    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// The resource a `createHandle(class, id)` refers to.
    pub fn by_id(&self, c: ResourceClass, id: u32) -> Option<&Resource> {
        self.class(c).iter().find(|r| r.id == id)
    }

    /// Read a `!{SRVs, UAVs, CBVs, Samplers}` tuple.
    pub fn read(m: &Module, id: MdId, path: &str) -> Result<Resources> {
        Resources::from_tuple(&Tuple::of(m, id, path)?)
    }

    pub(crate) fn from_tuple(t: &Tuple<'_>) -> Result<Resources> {
        let m = t.m;
        let mut out = Resources::default();
        for (k, class) in ResourceClass::ALL.iter().enumerate() {
            let Some(list) = t.opt_tuple(k)? else { continue };
            let mut v = Vec::with_capacity(list.len());
            for i in 0..list.len() {
                v.push(read_resource(m, &list.tuple(i)?, *class)?);
            }
            match class {
                ResourceClass::Srv => out.srvs = v,
                ResourceClass::Uav => out.uavs = v,
                ResourceClass::Cbv => out.cbvs = v,
                ResourceClass::Sampler => out.samplers = v,
            }
        }
        Ok(out)
    }
}

fn read_resource(m: &Module, r: &Tuple<'_>, class: ResourceClass) -> Result<Resource> {
    // `Resource` owns its strings (it is serialized and outlives the module): the one copy.
    let type_name = r.value(1).ok().and_then(|(ty, _)| pointee_struct_name(m, ty)).map(str::to_string);
    // The global itself, or (SM 6.6+, where the global holds a `dx.types.Handle`) a bitcast
    // of it to the resource's type.
    let global = match r.value(1) {
        Ok((_, crate::ir::Value::Global(g))) => Some(g),
        Ok((_, crate::ir::Value::Const(c))) => match &m.constants.get(c).kind {
            crate::ir::ConstKind::GlobalAddr(g) => Some(*g),
            crate::ir::ConstKind::Expr { op: crate::ir::ConstExprOp::Cast(_), operands, .. } => {
                match operands.first().map(|&o| &m.constants.get(o).kind) {
                    Some(crate::ir::ConstKind::GlobalAddr(g)) => Some(*g),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    };
    // A resource's symbol stands for the resource; a groupshared variable (address space 3)
    // is workgroup memory the shader reads and writes, and cannot also be one.
    if let Some(g) = global.filter(|&g| m.globals.get(g).is_some_and(|v| v.addr_space == 3)) {
        return Err(r.err(1, &format!("a resource symbol, not the groupshared variable @{}", m.globals[g].name)));
    }
    let range = r.i32(5)?;
    let mut res = Resource {
        class,
        id: r.u32(0)?,
        name: r.string(2).unwrap_or("").to_string(),
        space: r.u32(3)?,
        lower_bound: r.u32(4)?,
        range_size: if range == -1 { None } else { Some(range as u32) },
        kind: ResourceKind::Invalid,
        type_name,
        element_type: None,
        struct_stride: None,
        sample_count: None,
        uav: None,
        cbuffer_size: None,
        sampler_kind: None,
        global,
    };
    let tags_at = match class {
        ResourceClass::Srv => {
            res.kind = ResourceKind::from_raw(r.u32(6)?);
            res.sample_count = Some(r.u32(7)?);
            8
        }
        ResourceClass::Uav => {
            res.kind = ResourceKind::from_raw(r.u32(6)?);
            res.uav = Some(UavFlags {
                globally_coherent: r.bool(7)?,
                has_counter: r.bool(8)?,
                rasterizer_ordered: r.bool(9)?,
                atomic64: false,
            });
            10
        }
        ResourceClass::Cbv => {
            res.kind = ResourceKind::CBuffer;
            res.cbuffer_size = Some(r.u32(6)?);
            7
        }
        ResourceClass::Sampler => {
            res.kind = ResourceKind::Sampler;
            res.sampler_kind = Some(SamplerKind::from_raw(r.u32(6)?));
            7
        }
    };
    if let Some(tags) = r.opt_tuple(tags_at)? {
        for (tag, at) in tags.tag_pairs()? {
            match tag {
                0 => res.element_type = Some(ComponentType::from_raw(tags.u32(at)?)),
                1 => res.struct_stride = Some(tags.u32(at)?),
                3 => {
                    if let Some(f) = res.uav.as_mut() {
                        f.atomic64 = tags.bool(at)?;
                    }
                }
                _ => {}
            }
        }
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_are_spelled_as_format_would() {
        for (letter, lower, space) in [('t', 0, 0), ('u', 10, 1), ('s', u32::MAX, 2147420894)] {
            assert_eq!(spell_register(letter, lower, ", space", space), format!("{letter}{lower}, space{space}"));
            assert_eq!(spell_register(letter, lower, "_space", space), format!("{letter}{lower}_space{space}"));
        }
    }
}
