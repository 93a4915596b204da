//! The Vulkan device features a translated module needs (issue 33, item 4).
//!
//! A pipeline may use a module only if the device allows each of its `OpCapability` and
//! `OpExtension` instructions. The Vulkan specification's "SPIR-V Environment" appendix
//! (`appendices/spirvenv.adoc`, machine-readable in `xml/vk.xml`'s `<spirvcapabilities>`
//! and `<spirvextensions>`) lists, for every capability and extension, the ways a device
//! can allow it ([`Enable`]): a core version, a device extension, a feature member the
//! layer enables, or a property value it checks. The ways listed for one capability are
//! alternatives: any one of them suffices (`StorageImageReadWithoutFormat`:
//! `VkPhysicalDeviceFeatures::shaderStorageImageReadWithoutFormat`, Vulkan 1.3, or
//! `VK_KHR_format_feature_flags2`). `CAPABILITIES` and `EXTENSIONS` are that table: `spirv_env.tsv`,
//! extracted from vk.xml by `tools/gen-device-features.py`, which `build.rs` compiles in.
//!
//! [`requirements`] reads a module's capabilities and extensions (module order) and
//! answers one [`Requirement`] per item: the alternatives that allow it. The answer is a
//! conjunction of disjunctions: the device needs every requirement, each through one of
//! its alternatives. One capability is made more precise than the table: `Int64Atomics`
//! is allowed by any of the buffer, shared-memory and image 64-bit atomic features, but
//! Vulkan requires the feature of the memory an atomic instruction works on
//! (`shaderBufferInt64Atomics` for storage buffers, `shaderSharedInt64Atomics` for
//! workgroup memory, `shaderImageInt64Atomics` for images), so a module's 64-bit atomics
//! give one requirement per kind of memory they touch.
//!
//! One extension is made more precise too: a `Workgroup`-scope cooperative matrix
//! (`SPV_NV_cooperative_matrix2`) also needs `cooperativeMatrixWorkgroupScope`, which the
//! registry does not tie to any SPIR-V item.
//!
//! Cost: one pass over the module's words; a linear search of the table (about 200
//! capabilities, 120 extensions) per declared item. No state outlives a call.

use super::Translation;
use rspirv::spirv::{Capability, Op, StorageClass};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

/// One way a Vulkan device allows a SPIR-V capability or extension (vk.xml's `<enable>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Enable {
    /// Core in this Vulkan version (`"VK_VERSION_1_1"`): nothing to enable.
    Version { version: &'static str },
    /// The device extension (`"VK_KHR_shader_float16_int8"`) must be enabled.
    Extension { extension: &'static str },
    /// The feature `structure::member` (`VkPhysicalDeviceVulkan12Features::shaderFloat16`)
    /// must be enabled; the structure exists with any of `requires` (comma-separated
    /// versions and extensions).
    Feature { structure: &'static str, member: &'static str, requires: &'static str },
    /// The device property `structure::member` must include `value`
    /// (`VkPhysicalDeviceVulkan11Properties::subgroupSupportedOperations` with
    /// `VK_SUBGROUP_FEATURE_BALLOT_BIT`): nothing to enable, only to check.
    Property { structure: &'static str, member: &'static str, value: &'static str, requires: &'static str },
}

/// Whether a [`Requirement`] comes from an `OpCapability` or an `OpExtension`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpirvItem {
    Capability,
    Extension,
}

/// What one capability or extension of a module needs of the device.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Requirement {
    pub item: SpirvItem,
    /// The SPIR-V name (`"Float16"`, `"SPV_EXT_fragment_shader_interlock"`).
    pub spirv: String,
    /// The ways the device can allow it: any one suffices. Empty when the Vulkan
    /// registry does not list the item (Vulkan does not allow it at all).
    pub any_of: Vec<Enable>,
}

impl Requirement {
    /// Whether the Vulkan registry lists the item.
    pub fn is_known(&self) -> bool {
        !self.any_of.is_empty()
    }
}

impl Translation {
    /// The device features the module needs ([`requirements`] of its words).
    pub fn device_features(&self) -> Vec<Requirement> {
        requirements(&self.words)
    }
}

/// The ways a device allows the SPIR-V capability `name` (`None`: Vulkan does not list it).
pub fn capability_enables(name: &str) -> Option<&'static [Enable]> {
    CAPABILITIES.iter().find(|(n, _)| *n == name).map(|&(_, e)| e)
}

/// The ways a device allows the SPIR-V extension `name` (`None`: Vulkan does not list it).
pub fn extension_enables(name: &str) -> Option<&'static [Enable]> {
    EXTENSIONS.iter().find(|(n, _)| *n == name).map(|&(_, e)| e)
}

/// The SPIR-V name of capability `value` (the grammar's name, which vk.xml uses).
fn capability_name(value: u32) -> String {
    match Capability::from_u32(value) {
        Some(c) => format!("{c:?}"),
        None => format!("Capability{value}"),
    }
}

/// What the module `words` needs of the device: one [`Requirement`] per `OpCapability`
/// and `OpExtension`, in module order, `Int64Atomics` split by the memory its atomics
/// touch (see the module documentation). A module too short to have a header gives none.
pub fn requirements(words: &[u32]) -> Vec<Requirement> {
    let mut out = Vec::new();
    let mut int64_atomics = None;
    for (op, operands) in instructions(words) {
        match op {
            Op::Capability => {
                let Some(&value) = operands.first() else { continue };
                let spirv = capability_name(value);
                if value == Capability::Int64Atomics as u32 {
                    int64_atomics = Some(out.len());
                }
                let any_of = capability_enables(&spirv).unwrap_or(&[]).to_vec();
                out.push(Requirement { item: SpirvItem::Capability, spirv, any_of });
            }
            Op::Extension => {
                let spirv = literal_string(operands);
                let any_of = extension_enables(&spirv).unwrap_or(&[]).to_vec();
                out.push(Requirement { item: SpirvItem::Extension, spirv, any_of });
            }
            _ => {}
        }
    }
    if workgroup_cooperative_matrix(words) {
        out.push(Requirement {
            item: SpirvItem::Extension,
            spirv: "SPV_NV_cooperative_matrix2".into(),
            any_of: vec![Enable::Feature {
                structure: "VkPhysicalDeviceCooperativeMatrix2FeaturesNV",
                member: "cooperativeMatrixWorkgroupScope",
                requires: "VK_NV_cooperative_matrix2",
            }],
        });
    }
    if let Some(at) = int64_atomics {
        let members = int64_atomic_features(words);
        if !members.is_empty() {
            let general = out.remove(at);
            let split = members.into_iter().map(|member| Requirement {
                any_of: general
                    .any_of
                    .iter()
                    .copied()
                    .filter(|e| matches!(e, Enable::Feature { member: m, .. } if *m == member))
                    .collect(),
                ..general.clone()
            });
            out.splice(at..at, split);
        }
    }
    out
}

/// Whether the module has an `OpTypeCooperativeMatrixKHR` of `Workgroup` scope (a constant
/// 2), which `SPV_NV_cooperative_matrix2` allows and Vulkan gates on the feature
/// `cooperativeMatrixWorkgroupScope` (SM 6.10 LinAlg thread-group matrices).
fn workgroup_cooperative_matrix(words: &[u32]) -> bool {
    let mut workgroup_ids = BTreeSet::new();
    for (op, operands) in instructions(words) {
        match (op, operands) {
            (Op::Constant, [_, id, value]) if *value == rspirv::spirv::Scope::Workgroup as u32 => {
                workgroup_ids.insert(*id);
            }
            (Op::TypeCooperativeMatrixKHR, [_, _, scope, ..]) if workgroup_ids.contains(scope) => return true,
            _ => {}
        }
    }
    false
}

/// The module's instructions after the header: opcode (unknown ones skipped) and operands.
fn instructions(words: &[u32]) -> impl Iterator<Item = (Op, &[u32])> {
    let mut at = 5.min(words.len());
    std::iter::from_fn(move || loop {
        let first = *words.get(at)?;
        let len = (first >> 16) as usize;
        let inst = words.get(at..at + len.max(1))?;
        at += len.max(1);
        if let Some(op) = Op::from_u32(first & 0xffff) {
            return Some((op, &inst[1..]));
        }
    })
}

/// A SPIR-V literal string (UTF-8, nul-terminated, packed little-endian into words).
fn literal_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).take_while(|&b| b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The 64-bit atomic features the module's atomic instructions need, by the memory each
/// one works on: its pointer operand's type (`OpTypePointer`: storage class, and a pointee
/// that is a 64-bit integer, `OpTypeInt 64`).
fn int64_atomic_features(words: &[u32]) -> BTreeSet<&'static str> {
    let mut int64 = BTreeSet::new();
    // Pointer type id -> (storage class, pointee type).
    let mut pointer_types: HashMap<u32, (u32, u32)> = HashMap::new();
    // Pointer value id -> its pointer type.
    let mut pointer_of: HashMap<u32, u32> = HashMap::new();
    let mut in_functions = false;
    let mut needed = BTreeSet::new();
    for (op, o) in instructions(words) {
        match (op, o) {
            (Op::TypeInt, [id, 64, ..]) => {
                int64.insert(*id);
            }
            (Op::TypePointer, [id, class, pointee, ..]) => {
                pointer_types.insert(*id, (*class, *pointee));
            }
            (Op::Function, _) => in_functions = true,
            _ => {}
        }
        // A result of pointer type: a global `OpVariable`, or in a function any
        // instruction whose first operand (its result type) is a pointer type (decorations,
        // whose first operand may also name a type, precede the functions).
        if let [ty, id, ..] = o {
            if (in_functions || op == Op::Variable) && pointer_types.contains_key(ty) {
                pointer_of.insert(*id, *ty);
            }
        }
        let pointer = match op {
            Op::AtomicStore => o.first(),
            Op::AtomicLoad
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor => o.get(2),
            _ => None,
        };
        let memory = pointer.and_then(|p| pointer_of.get(p)).and_then(|t| pointer_types.get(t));
        if let Some(&(class, _)) = memory.filter(|(_, pointee)| int64.contains(pointee)) {
            needed.insert(match class {
                c if c == StorageClass::Workgroup as u32 => "shaderSharedInt64Atomics",
                c if c == StorageClass::Image as u32 => "shaderImageInt64Atomics",
                _ => "shaderBufferInt64Atomics",
            });
        }
    }
    needed
}

// `CAPABILITIES` and `EXTENSIONS`: `build.rs` makes them from `spirv_env.tsv`.
include!(concat!(env!("OUT_DIR"), "/spirv_env.rs"));
