//! The default binding model: where each D3D register range lands in Vulkan when no root
//! signature says otherwise.
//!
//! Rules (deterministic, independent of which other resources a shader declares):
//! - descriptor set = register space;
//! - binding = class base + lower bound register, with the class bases
//!   CBV (`b`) 0, SRV (`t`) 1000, UAV (`u`) 2000, sampler (`s`) 3000;
//! - a UAV's counter (`RWStructuredBuffer` with `IncrementCounter` and the like) is a separate
//!   storage buffer at binding 4000 + register in the same set;
//! - a register range of several registers (`Texture2D t[4] : register(t2)`) is one binding
//!   holding an array of descriptors (unbounded ranges: a runtime array).
//!
//! SM 6.6 descriptor heaps (`ResourceDescriptorHeap[i]`, `SamplerDescriptorHeap[i]`) are
//! runtime arrays indexed by the heap index: the resource heap is descriptor set 30 with one
//! binding per Vulkan descriptor type (0 sampled images, 1 storage images, 2 uniform texel
//! buffers, 3 storage texel buffers, 4 uniform buffers, 5 storage buffers, 6 UAV counters;
//! image views of every dimension alias their binding), the sampler heap is set 31, binding 0. A heap
//! entry is written, at its index, into the binding of its type. The bindings within a heap
//! set are the root-signature `heap` model's (`rootsig::layout::heap_resource_binding`).
//!
//! Two ways to override it, consulted in this order ([`DefaultPlacement`]):
//! - a [`ResourceRemap`] callback (library and C API): asked for each register range the
//!   shader uses, and for each UAV also where its counter goes; `None` keeps what follows;
//! - `--binding-map FILE` ([`BindingMap`]): a JSON array of
//!   `{"class": "SRV"|"UAV"|"CBV"|"Sampler", "space": S, "register": R, "set": N, "binding": M}`;
//!   a range not listed keeps the default rule.
//!
//! A low-level module of `emit` (see its documentation): it imports only `error`
//! and the layers below `emit`.

use super::error::{BindingMapError, Error, Result};
use crate::dxil::{Resource, ResourceClass};
use crate::front::container::ShaderKind;
use serde::{Deserialize, Serialize};

pub const CBV_BASE: u32 = 0;
pub const SRV_BASE: u32 = 1000;
pub const UAV_BASE: u32 = 2000;
pub const SAMPLER_BASE: u32 = 3000;
pub const COUNTER_BASE: u32 = 4000;

/// Descriptor sets a [`ResourceRemap`] answer may use: `set` < 32. Vulkan needs
/// `set` < `maxBoundDescriptorSets`, which no implementation puts above 32 (the default
/// rule's heap sets are 30 and 31); an answer past it makes a module no device can bind.
pub const MAX_REMAPPED_SETS: u32 = 32;
/// Bindings a [`ResourceRemap`] answer may use: `binding` < 2^20. The SPIR-V decoration
/// takes any 32-bit value, but a descriptor set layout is sized by its highest binding: an
/// answer past 2^20 (a million descriptors slots, far past the default rule's 4000 +
/// register) is a layer's bug, not a placement.
pub const MAX_REMAPPED_BINDINGS: u32 = 1 << 20;

/// The name errors give the resource-remapping callback ([`Error::Remap`]).
pub const RESOURCE_REMAP_CALLBACK: &str = "resource remapping callback";

pub const RESOURCE_HEAP_SET: u32 = 30;
pub const SAMPLER_HEAP_SET: u32 = 31;

/// A Vulkan descriptor location.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, PartialOrd, Ord)]
pub struct VkBinding {
    pub set: u32,
    pub binding: u32,
}

/// One override of the binding map file.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct MapEntry {
    pub class: ResourceClass,
    pub space: u32,
    pub register: u32,
    pub set: u32,
    pub binding: u32,
}

#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct BindingMap {
    pub entries: Vec<MapEntry>,
}

impl<'de> Deserialize<'de> for ResourceClass {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        match s.as_str() {
            "SRV" | "t" => Ok(ResourceClass::Srv),
            "UAV" | "u" => Ok(ResourceClass::Uav),
            "CBV" | "b" => Ok(ResourceClass::Cbv),
            "Sampler" | "s" => Ok(ResourceClass::Sampler),
            _ => Err(serde::de::Error::custom(format!("unknown resource class `{s}`"))),
        }
    }
}

impl BindingMap {
    /// Parse a binding map file's text.
    pub fn parse(text: &str) -> Result<BindingMap> {
        let entries: Vec<MapEntry> =
            serde_json::from_str(text).map_err(|e| Error::BindingMap(BindingMapError::Json(e.to_string())))?;
        let mut seen = std::collections::BTreeSet::new();
        for e in &entries {
            if !seen.insert((e.class, e.space, e.register)) {
                return Err(Error::BindingMap(BindingMapError::Duplicate {
                    class: e.class,
                    space: e.space,
                    register: e.register,
                }));
            }
        }
        Ok(BindingMap { entries })
    }

    /// Where `r` goes: the map's entry for its first register, else the default rule.
    pub fn binding_of(&self, r: &Resource) -> VkBinding {
        self.entries
            .iter()
            .find(|e| e.class == r.class && e.space == r.space && e.register == r.lower_bound)
            .map(|e| VkBinding { set: e.set, binding: e.binding })
            .unwrap_or_else(|| default_binding(r.class, r.space, r.lower_bound))
    }

    /// Where the counter of UAV `r` goes (default rule only).
    pub fn counter_binding_of(&self, r: &Resource) -> VkBinding {
        VkBinding { set: r.space, binding: COUNTER_BASE.saturating_add(r.lower_bound) }
    }
}

pub fn class_base(class: ResourceClass) -> u32 {
    match class {
        ResourceClass::Cbv => CBV_BASE,
        ResourceClass::Srv => SRV_BASE,
        ResourceClass::Uav => UAV_BASE,
        ResourceClass::Sampler => SAMPLER_BASE,
    }
}

/// The default rule for a range starting at `register` in `space`.
pub fn default_binding(class: ResourceClass, space: u32, register: u32) -> VkBinding {
    VkBinding { set: space, binding: class_base(class).saturating_add(register) }
}

/// What a [`ResourceRemap`] callback is asked: one register range the shader declares, or
/// (`counter`) the counter of a UAV range.
#[derive(Clone, Copy, Debug)]
pub struct ResourceQuery<'a> {
    pub stage: ShaderKind,
    /// The range as declared: class, space, first register, count, kind, name.
    pub resource: &'a Resource,
    /// `true`: where the UAV's counter buffer goes (asked only for UAVs).
    pub counter: bool,
}

remap_callback! {
    /// A shared resource-remapping callback ([`crate::Options::resource_remap`]).
    pub struct ResourceRemap;
    /// The signature of a resource-remapping callback: `Some` places the range (or counter);
    /// `None` leaves it to the binding map and the default rule. Called from the translating
    /// thread only, in a deterministic order (class, then range id).
    pub type ResourceRemapFn = Fn(&ResourceQuery) -> Option<VkBinding>;
}

/// The default model with its overrides: where each range and counter of one shader goes.
#[derive(Clone, Debug)]
pub struct DefaultPlacement {
    pub stage: ShaderKind,
    pub map: BindingMap,
    pub remap: Option<ResourceRemap>,
}

impl DefaultPlacement {
    /// Where range `r` goes: the callback's answer, else the map's entry, else the default rule.
    pub fn binding_of(&self, r: &Resource) -> VkBinding {
        self.ask(r, false).unwrap_or_else(|| self.map.binding_of(r))
    }

    /// Where the counter of UAV `r` goes: the callback's answer, else the default rule.
    pub fn counter_binding_of(&self, r: &Resource) -> VkBinding {
        self.ask(r, true).unwrap_or_else(|| self.map.counter_binding_of(r))
    }

    fn ask(&self, r: &Resource, counter: bool) -> Option<VkBinding> {
        let remap = self.remap.as_ref()?;
        (remap.0)(&ResourceQuery { stage: self.stage, resource: r, counter })
    }

    /// Checks the callback's answers for every range of `resources` and the counters of
    /// the UAVs `counted` says have one: each within [`MAX_REMAPPED_SETS`] and
    /// [`MAX_REMAPPED_BINDINGS`], and no two places the same (set, binding) when the
    /// callback chose either. [`Error::Remap`] otherwise, naming the ranges and the place.
    pub fn check_answers(&self, resources: &crate::dxil::Resources, counted: impl Fn(&Resource) -> bool) -> Result<()> {
        if self.remap.is_none() {
            return Ok(());
        }
        let refuse = |message: String| Error::Remap { callback: RESOURCE_REMAP_CALLBACK, message };
        let mut taken: std::collections::BTreeMap<VkBinding, (String, bool)> = Default::default();
        for r in resources.iter() {
            let has_counter = r.class == ResourceClass::Uav && counted(r);
            for counter in [false, true] {
                if counter && !has_counter {
                    continue;
                }
                let asked = self.ask(r, counter);
                let b = match (asked, counter) {
                    (Some(b), _) => b,
                    (None, false) => self.map.binding_of(r),
                    (None, true) => self.map.counter_binding_of(r),
                };
                let what = if counter { format!("the counter of {}", r.register()) } else { r.register() };
                if asked.is_some() && (b.set >= MAX_REMAPPED_SETS || b.binding >= MAX_REMAPPED_BINDINGS) {
                    return Err(refuse(format!(
                        "places {what} at set {}, binding {}: past the limits (set < {MAX_REMAPPED_SETS}, \
                         binding < {MAX_REMAPPED_BINDINGS})",
                        b.set, b.binding
                    )));
                }
                match taken.get(&b) {
                    Some((other, other_asked)) if asked.is_some() || *other_asked => {
                        return Err(refuse(format!(
                            "places {what} and {other} both at set {}, binding {}",
                            b.set, b.binding
                        )));
                    }
                    Some(_) => {}
                    None => {
                        taken.insert(b, (what, asked.is_some()));
                    }
                }
            }
        }
        Ok(())
    }
}

/// One row of the mapping report (`untangle info`).
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct MappingRow {
    pub register: String,
    pub name: String,
    pub count: Option<u32>,
    pub set: u32,
    pub binding: u32,
    /// The range's class, space and first register (what `register` spells).
    #[serde(skip)]
    pub class: ResourceClass,
    #[serde(skip)]
    pub space: u32,
    #[serde(skip)]
    pub lower_bound: u32,
    /// The range's first register's element in the binding's descriptor array: 0 unless
    /// the binding holds more than the range (a root-signature `direct` table of several
    /// ranges: `t1` after `t0` in one binding is element 1).
    #[serde(skip)]
    pub array_element: u32,
    /// Where the UAV's counter buffers are (indexed like the range), for a UAV with a
    /// counter.
    #[serde(skip)]
    pub counter: Option<VkBinding>,
}

/// The mapping of every resource in the table, in class then id order (counters: of the
/// UAVs declared with one).
pub fn mapping(resources: &crate::dxil::Resources, map: &DefaultPlacement) -> Vec<MappingRow> {
    mapping_with_counters(resources, map, |r| r.uav.is_some_and(|u| u.has_counter))
}

/// [`mapping`], with the counters of the UAVs `counted` says have one.
pub fn mapping_with_counters(
    resources: &crate::dxil::Resources,
    map: &DefaultPlacement,
    counted: impl Fn(&Resource) -> bool,
) -> Vec<MappingRow> {
    resources
        .iter()
        .map(|r| {
            let b = map.binding_of(r);
            let counter = (r.class == ResourceClass::Uav && counted(r)).then(|| map.counter_binding_of(r));
            MappingRow {
                register: r.register(),
                name: r.name.clone(),
                count: r.range_size,
                set: b.set,
                binding: b.binding,
                class: r.class,
                space: r.space,
                lower_bound: r.lower_bound,
                array_element: 0,
                counter,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_rule_uses_space_and_class_base() {
        assert_eq!(default_binding(ResourceClass::Cbv, 0, 3), VkBinding { set: 0, binding: 3 });
        assert_eq!(default_binding(ResourceClass::Srv, 2, 3), VkBinding { set: 2, binding: 1003 });
        assert_eq!(default_binding(ResourceClass::Uav, 0, 0), VkBinding { set: 0, binding: 2000 });
        assert_eq!(default_binding(ResourceClass::Sampler, 1, 7), VkBinding { set: 1, binding: 3007 });
    }

    #[test]
    fn map_file_overrides_one_range_and_rejects_duplicates() {
        let map = BindingMap::parse(r#"[{"class":"SRV","space":0,"register":3,"set":4,"binding":9}]"#).unwrap();
        assert_eq!(map.entries.len(), 1);
        let dup = r#"[{"class":"t","space":0,"register":3,"set":4,"binding":9},
                      {"class":"SRV","space":0,"register":3,"set":1,"binding":1}]"#;
        assert!(matches!(BindingMap::parse(dup), Err(Error::BindingMap(_))));
        assert!(BindingMap::parse("not json").is_err());
    }
}
