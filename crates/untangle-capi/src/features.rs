//! `untangle_result_device_feature*`: the Vulkan device features a translated module
//! needs (the library's `untangle::emit::features`, from the Vulkan registry's SPIR-V
//! environment table), flattened into rows a C program reads one at a time.

use crate::error::{c_string, guard_simple};
use crate::translate::{out, result_ref, untangle_result};
use crate::untangle_status;
use std::ffi::{c_char, CString};
use untangle::emit::features::{Enable, Requirement, SpirvItem};

/// What an `untangle_device_feature` row asks of the device: a `UNTANGLE_DEVICE_FEATURE_*`
/// value.
pub type untangle_device_feature_kind = u32;
/// Core in the Vulkan version `name` (`"VK_VERSION_1_3"`): nothing to enable.
pub const UNTANGLE_DEVICE_FEATURE_VERSION: untangle_device_feature_kind = 0;
/// The device extension `name` (`"VK_KHR_shader_float16_int8"`) must be enabled.
pub const UNTANGLE_DEVICE_FEATURE_EXTENSION: untangle_device_feature_kind = 1;
/// The feature `name::member` (`VkPhysicalDeviceVulkan12Features::shaderFloat16`) must be
/// enabled; the structure exists with any of `provided_by`.
pub const UNTANGLE_DEVICE_FEATURE_STRUCT_MEMBER: untangle_device_feature_kind = 2;
/// The device property `name::member` must include `value`
/// (`VkPhysicalDeviceVulkan11Properties::subgroupSupportedOperations` with
/// `VK_SUBGROUP_FEATURE_BALLOT_BIT`): nothing to enable, only to check.
pub const UNTANGLE_DEVICE_FEATURE_PROPERTY: untangle_device_feature_kind = 3;
/// Vulkan lists no way to allow the capability or extension `spirv`: no device runs the
/// module.
pub const UNTANGLE_DEVICE_FEATURE_NONE: untangle_device_feature_kind = 4;

/// One way to meet one of a module's device requirements. The module needs every
/// requirement (`requirement` 0 to the highest); rows with the same `requirement` are
/// alternatives, any one of which meets it. Strings are owned by the result and never
/// NULL (empty where a kind has no such part).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct untangle_device_feature {
    /// The requirement this row meets: rows of one requirement are consecutive.
    pub requirement: u32,
    /// The SPIR-V capability (`"Float16"`, `"Int64Atomics"`) or extension
    /// (`"SPV_EXT_fragment_shader_interlock"`) the requirement comes from.
    pub spirv: *const c_char,
    /// `spirv` names an `OpExtension` (else an `OpCapability`).
    pub spirv_is_extension: bool,
    /// `UNTANGLE_DEVICE_FEATURE_*`.
    pub kind: untangle_device_feature_kind,
    /// The version, the extension, or the feature or property structure.
    pub name: *const c_char,
    /// The structure's member (features and properties).
    pub member: *const c_char,
    /// The bit the property member must hold (properties).
    pub value: *const c_char,
    /// The Vulkan versions and extensions, comma-separated, any of which provides the
    /// structure (features and properties; vk.xml's `requires`, a C++20 keyword).
    pub provided_by: *const c_char,
}

/// One row, its strings kept alive by the result.
pub(crate) struct FeatureRow {
    requirement: u32,
    spirv: CString,
    spirv_is_extension: bool,
    kind: untangle_device_feature_kind,
    name: CString,
    member: CString,
    value: CString,
    provided_by: CString,
}

/// The rows of a module's requirements, in requirement order.
pub(crate) fn feature_rows(words: &[u32]) -> Vec<FeatureRow> {
    let mut rows = Vec::new();
    for (k, req) in untangle::emit::features::requirements(words).iter().enumerate() {
        let row = |kind, [name, member, value, requires]: [&str; 4]| FeatureRow {
            requirement: k as u32,
            spirv: c_string(&req.spirv),
            spirv_is_extension: req.item == SpirvItem::Extension,
            kind,
            name: c_string(name),
            member: c_string(member),
            value: c_string(value),
            provided_by: c_string(requires),
        };
        if !req.is_known() {
            rows.push(row(UNTANGLE_DEVICE_FEATURE_NONE, ["", "", "", ""]));
        }
        rows.extend(alternatives(req).map(|(kind, parts)| row(kind, parts)));
    }
    rows
}

fn alternatives(req: &Requirement) -> impl Iterator<Item = (untangle_device_feature_kind, [&'static str; 4])> + '_ {
    req.any_of.iter().map(|e| match *e {
        Enable::Version { version } => (UNTANGLE_DEVICE_FEATURE_VERSION, [version, "", "", ""]),
        Enable::Extension { extension } => (UNTANGLE_DEVICE_FEATURE_EXTENSION, [extension, "", "", ""]),
        Enable::Feature { structure, member, requires } => {
            (UNTANGLE_DEVICE_FEATURE_STRUCT_MEMBER, [structure, member, "", requires])
        }
        Enable::Property { structure, member, value, requires } => {
            (UNTANGLE_DEVICE_FEATURE_PROPERTY, [structure, member, value, requires])
        }
    })
}

/// How many `untangle_device_feature` rows the module's device requirements have (see
/// `untangle_result_device_feature`): the Vulkan registry's ways to allow each capability
/// and extension the module declares, 64-bit atomics narrowed to the memory they touch.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_device_feature_count(
    result: *const untangle_result,
    count: *mut usize,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe { out(count)?.set(result_ref(result)?.device_features().len()) };
        Ok(())
    })
}

/// Row `index` (0 to count - 1) of the module's device requirements. A layer enables, for
/// each `requirement`, one of its rows that the device supports (an extension, a feature
/// member in the matching `VkPhysicalDevice*Features` structure), or rejects the shader
/// when none is supported.
#[no_mangle]
pub unsafe extern "C" fn untangle_result_device_feature(
    result: *const untangle_result,
    index: usize,
    feature: *mut untangle_device_feature,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let r = result_ref(result)?;
            let row = r.device_features().get(index).ok_or(untangle_status::UNTANGLE_INVALID_ARGUMENT)?;
            out(feature)?.set(untangle_device_feature {
                requirement: row.requirement,
                spirv: row.spirv.as_ptr(),
                spirv_is_extension: row.spirv_is_extension,
                kind: row.kind,
                name: row.name.as_ptr(),
                member: row.member.as_ptr(),
                value: row.value.as_ptr(),
                provided_by: row.provided_by.as_ptr(),
            });
        }
        Ok(())
    })
}
