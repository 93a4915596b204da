//! Parsing and reflection: `untangle_shader` and what it tells about a shader.

use crate::error::{
    c_string, guard, guard_simple, guard_value, object, slice, take, untangle_error, untangle_status, Failure, Out,
};
use std::ffi::{c_char, CString};
use untangle::dxil::{Resource, ResourceClass, SignatureElement};
use untangle::{Shader, ShaderKind};

/// A shader stage: DXIL's `ShaderKind` numbering (`UNTANGLE_STAGE_*`).
pub type untangle_stage = u32;
pub const UNTANGLE_STAGE_PIXEL: untangle_stage = 0;
pub const UNTANGLE_STAGE_VERTEX: untangle_stage = 1;
pub const UNTANGLE_STAGE_GEOMETRY: untangle_stage = 2;
pub const UNTANGLE_STAGE_HULL: untangle_stage = 3;
pub const UNTANGLE_STAGE_DOMAIN: untangle_stage = 4;
pub const UNTANGLE_STAGE_COMPUTE: untangle_stage = 5;
/// A ray-tracing or work-graph library (`lib_6_x`).
pub const UNTANGLE_STAGE_LIBRARY: untangle_stage = 6;
pub const UNTANGLE_STAGE_RAY_GENERATION: untangle_stage = 7;
pub const UNTANGLE_STAGE_INTERSECTION: untangle_stage = 8;
pub const UNTANGLE_STAGE_ANY_HIT: untangle_stage = 9;
pub const UNTANGLE_STAGE_CLOSEST_HIT: untangle_stage = 10;
pub const UNTANGLE_STAGE_MISS: untangle_stage = 11;
pub const UNTANGLE_STAGE_CALLABLE: untangle_stage = 12;
pub const UNTANGLE_STAGE_MESH: untangle_stage = 13;
pub const UNTANGLE_STAGE_AMPLIFICATION: untangle_stage = 14;
pub const UNTANGLE_STAGE_NODE: untangle_stage = 15;
/// A value DXIL does not define.
pub const UNTANGLE_STAGE_INVALID: untangle_stage = 16;

/// A register class: D3D12's and DXIL's numbering (`UNTANGLE_RESOURCE_CLASS_*`).
pub type untangle_resource_class = u32;
/// Shader resource views, `t` registers.
pub const UNTANGLE_RESOURCE_CLASS_SRV: untangle_resource_class = 0;
/// Unordered access views, `u` registers.
pub const UNTANGLE_RESOURCE_CLASS_UAV: untangle_resource_class = 1;
/// Constant buffers, `b` registers.
pub const UNTANGLE_RESOURCE_CLASS_CBV: untangle_resource_class = 2;
/// Samplers, `s` registers.
pub const UNTANGLE_RESOURCE_CLASS_SAMPLER: untangle_resource_class = 3;

/// A resource's shape: DXIL's `ResourceKind` numbering (`UNTANGLE_RESOURCE_KIND_*`);
/// values past the list may appear with newer compilers.
pub type untangle_resource_kind = u32;
pub const UNTANGLE_RESOURCE_KIND_INVALID: untangle_resource_kind = 0;
pub const UNTANGLE_RESOURCE_KIND_TEXTURE1D: untangle_resource_kind = 1;
pub const UNTANGLE_RESOURCE_KIND_TEXTURE2D: untangle_resource_kind = 2;
pub const UNTANGLE_RESOURCE_KIND_TEXTURE2DMS: untangle_resource_kind = 3;
pub const UNTANGLE_RESOURCE_KIND_TEXTURE3D: untangle_resource_kind = 4;
pub const UNTANGLE_RESOURCE_KIND_TEXTURECUBE: untangle_resource_kind = 5;
pub const UNTANGLE_RESOURCE_KIND_TEXTURE1D_ARRAY: untangle_resource_kind = 6;
pub const UNTANGLE_RESOURCE_KIND_TEXTURE2D_ARRAY: untangle_resource_kind = 7;
pub const UNTANGLE_RESOURCE_KIND_TEXTURE2DMS_ARRAY: untangle_resource_kind = 8;
pub const UNTANGLE_RESOURCE_KIND_TEXTURECUBE_ARRAY: untangle_resource_kind = 9;
pub const UNTANGLE_RESOURCE_KIND_TYPED_BUFFER: untangle_resource_kind = 10;
pub const UNTANGLE_RESOURCE_KIND_RAW_BUFFER: untangle_resource_kind = 11;
pub const UNTANGLE_RESOURCE_KIND_STRUCTURED_BUFFER: untangle_resource_kind = 12;
pub const UNTANGLE_RESOURCE_KIND_CBUFFER: untangle_resource_kind = 13;
pub const UNTANGLE_RESOURCE_KIND_SAMPLER: untangle_resource_kind = 14;
pub const UNTANGLE_RESOURCE_KIND_TBUFFER: untangle_resource_kind = 15;
pub const UNTANGLE_RESOURCE_KIND_RT_ACCELERATION_STRUCTURE: untangle_resource_kind = 16;
pub const UNTANGLE_RESOURCE_KIND_FEEDBACK_TEXTURE2D: untangle_resource_kind = 17;
pub const UNTANGLE_RESOURCE_KIND_FEEDBACK_TEXTURE2D_ARRAY: untangle_resource_kind = 18;

/// The register count of an unbounded range (`Texture2D t[] : register(t0)`), as in
/// D3D12 (`UINT_MAX`).
pub const UNTANGLE_UNBOUNDED: u32 = u32::MAX;

/// A signature element's component type: DXIL's `ComponentType` numbering
/// (`UNTANGLE_COMPONENT_*`).
pub type untangle_component_type = u32;
pub const UNTANGLE_COMPONENT_INVALID: untangle_component_type = 0;
pub const UNTANGLE_COMPONENT_I1: untangle_component_type = 1;
pub const UNTANGLE_COMPONENT_I16: untangle_component_type = 2;
pub const UNTANGLE_COMPONENT_U16: untangle_component_type = 3;
pub const UNTANGLE_COMPONENT_I32: untangle_component_type = 4;
pub const UNTANGLE_COMPONENT_U32: untangle_component_type = 5;
pub const UNTANGLE_COMPONENT_I64: untangle_component_type = 6;
pub const UNTANGLE_COMPONENT_U64: untangle_component_type = 7;
pub const UNTANGLE_COMPONENT_F16: untangle_component_type = 8;
pub const UNTANGLE_COMPONENT_F32: untangle_component_type = 9;
pub const UNTANGLE_COMPONENT_F64: untangle_component_type = 10;
pub const UNTANGLE_COMPONENT_SNORM_F16: untangle_component_type = 11;
pub const UNTANGLE_COMPONENT_UNORM_F16: untangle_component_type = 12;
pub const UNTANGLE_COMPONENT_SNORM_F32: untangle_component_type = 13;
pub const UNTANGLE_COMPONENT_UNORM_F32: untangle_component_type = 14;
pub const UNTANGLE_COMPONENT_SNORM_F64: untangle_component_type = 15;
pub const UNTANGLE_COMPONENT_UNORM_F64: untangle_component_type = 16;
pub const UNTANGLE_COMPONENT_PACKED_S8X32: untangle_component_type = 17;
pub const UNTANGLE_COMPONENT_PACKED_U8X32: untangle_component_type = 18;

/// A signature element's system value: DXIL's `SemanticKind` numbering
/// (`UNTANGLE_SYSTEM_VALUE_*`; `NONE` for a user semantic).
pub type untangle_system_value = u32;
pub const UNTANGLE_SYSTEM_VALUE_NONE: untangle_system_value = 0;
pub const UNTANGLE_SYSTEM_VALUE_VERTEX_ID: untangle_system_value = 1;
pub const UNTANGLE_SYSTEM_VALUE_INSTANCE_ID: untangle_system_value = 2;
pub const UNTANGLE_SYSTEM_VALUE_POSITION: untangle_system_value = 3;
pub const UNTANGLE_SYSTEM_VALUE_RENDER_TARGET_ARRAY_INDEX: untangle_system_value = 4;
pub const UNTANGLE_SYSTEM_VALUE_VIEWPORT_ARRAY_INDEX: untangle_system_value = 5;
pub const UNTANGLE_SYSTEM_VALUE_CLIP_DISTANCE: untangle_system_value = 6;
pub const UNTANGLE_SYSTEM_VALUE_CULL_DISTANCE: untangle_system_value = 7;
pub const UNTANGLE_SYSTEM_VALUE_OUTPUT_CONTROL_POINT_ID: untangle_system_value = 8;
pub const UNTANGLE_SYSTEM_VALUE_DOMAIN_LOCATION: untangle_system_value = 9;
pub const UNTANGLE_SYSTEM_VALUE_PRIMITIVE_ID: untangle_system_value = 10;
pub const UNTANGLE_SYSTEM_VALUE_GS_INSTANCE_ID: untangle_system_value = 11;
pub const UNTANGLE_SYSTEM_VALUE_SAMPLE_INDEX: untangle_system_value = 12;
pub const UNTANGLE_SYSTEM_VALUE_IS_FRONT_FACE: untangle_system_value = 13;
pub const UNTANGLE_SYSTEM_VALUE_COVERAGE: untangle_system_value = 14;
pub const UNTANGLE_SYSTEM_VALUE_INNER_COVERAGE: untangle_system_value = 15;
pub const UNTANGLE_SYSTEM_VALUE_TARGET: untangle_system_value = 16;
pub const UNTANGLE_SYSTEM_VALUE_DEPTH: untangle_system_value = 17;
pub const UNTANGLE_SYSTEM_VALUE_DEPTH_LESS_EQUAL: untangle_system_value = 18;
pub const UNTANGLE_SYSTEM_VALUE_DEPTH_GREATER_EQUAL: untangle_system_value = 19;
pub const UNTANGLE_SYSTEM_VALUE_STENCIL_REF: untangle_system_value = 20;
pub const UNTANGLE_SYSTEM_VALUE_DISPATCH_THREAD_ID: untangle_system_value = 21;
pub const UNTANGLE_SYSTEM_VALUE_GROUP_ID: untangle_system_value = 22;
pub const UNTANGLE_SYSTEM_VALUE_GROUP_INDEX: untangle_system_value = 23;
pub const UNTANGLE_SYSTEM_VALUE_GROUP_THREAD_ID: untangle_system_value = 24;
pub const UNTANGLE_SYSTEM_VALUE_TESS_FACTOR: untangle_system_value = 25;
pub const UNTANGLE_SYSTEM_VALUE_INSIDE_TESS_FACTOR: untangle_system_value = 26;
pub const UNTANGLE_SYSTEM_VALUE_VIEW_ID: untangle_system_value = 27;
pub const UNTANGLE_SYSTEM_VALUE_BARYCENTRICS: untangle_system_value = 28;
pub const UNTANGLE_SYSTEM_VALUE_SHADING_RATE: untangle_system_value = 29;
pub const UNTANGLE_SYSTEM_VALUE_CULL_PRIMITIVE: untangle_system_value = 30;
pub const UNTANGLE_SYSTEM_VALUE_START_VERTEX_LOCATION: untangle_system_value = 31;
pub const UNTANGLE_SYSTEM_VALUE_START_INSTANCE_LOCATION: untangle_system_value = 32;

/// An element's interpolation mode: DXIL's `InterpolationMode` numbering
/// (`UNTANGLE_INTERPOLATION_*`).
pub type untangle_interpolation = u32;
pub const UNTANGLE_INTERPOLATION_UNDEFINED: untangle_interpolation = 0;
pub const UNTANGLE_INTERPOLATION_CONSTANT: untangle_interpolation = 1;
pub const UNTANGLE_INTERPOLATION_LINEAR: untangle_interpolation = 2;
pub const UNTANGLE_INTERPOLATION_LINEAR_CENTROID: untangle_interpolation = 3;
pub const UNTANGLE_INTERPOLATION_LINEAR_NOPERSPECTIVE: untangle_interpolation = 4;
pub const UNTANGLE_INTERPOLATION_LINEAR_NOPERSPECTIVE_CENTROID: untangle_interpolation = 5;
pub const UNTANGLE_INTERPOLATION_LINEAR_SAMPLE: untangle_interpolation = 6;
pub const UNTANGLE_INTERPOLATION_LINEAR_NOPERSPECTIVE_SAMPLE: untangle_interpolation = 7;

/// Which signature of the entry point (`UNTANGLE_SIGNATURE_*`).
pub type untangle_signature_kind = u32;
pub const UNTANGLE_SIGNATURE_INPUT: untangle_signature_kind = 0;
pub const UNTANGLE_SIGNATURE_OUTPUT: untangle_signature_kind = 1;
pub const UNTANGLE_SIGNATURE_PATCH_CONSTANT: untangle_signature_kind = 2;

/// One declared register range. `name` is owned by the object it came from (the shader,
/// or for a callback's query, valid during the call).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct untangle_resource {
    /// `UNTANGLE_RESOURCE_CLASS_*`.
    pub resource_class: untangle_resource_class,
    /// `UNTANGLE_RESOURCE_KIND_*`.
    pub kind: untangle_resource_kind,
    /// The range's index within its class (DXIL's range id).
    pub id: u32,
    /// The register space.
    pub space: u32,
    /// The first register (`3` for `t3`).
    pub base_register: u32,
    /// Registers in the range; `UNTANGLE_UNBOUNDED` for an unbounded one.
    pub count: u32,
    /// A UAV with a counter (`IncrementCounter` and the like).
    pub has_counter: bool,
    /// The variable's name in HLSL (may be empty).
    pub name: *const c_char,
}

/// One signature element. `semantic` and `semantic_indices` are owned by the object it
/// came from (the shader, or for a callback's query, valid during the call).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct untangle_signature_element {
    /// The semantic name (`TEXCOORD`, `SV_Position`), without index.
    pub semantic: *const c_char,
    /// The semantic index of the first row.
    pub semantic_index: u32,
    /// The semantic index of each row: `semantic_index_count` entries (`rows` for
    /// well-formed DXIL).
    pub semantic_indices: *const u32,
    pub semantic_index_count: u32,
    /// `UNTANGLE_SYSTEM_VALUE_*`.
    pub system_value: untangle_system_value,
    /// `UNTANGLE_COMPONENT_*`.
    pub component_type: untangle_component_type,
    /// `UNTANGLE_INTERPOLATION_*`.
    pub interpolation: untangle_interpolation,
    pub rows: u32,
    pub cols: u32,
    /// The first register row and column it was packed at; -1 when not allocated.
    pub start_row: i32,
    pub start_col: i32,
    /// The geometry-shader stream (0 elsewhere).
    pub stream: u32,
    /// The element's id in its signature.
    pub id: u32,
}

/// A parsed shader: immutable, so every call taking a `const untangle_shader *` may run
/// on several threads at once (translations included). Free with
/// `untangle_shader_free` once nothing uses it.
pub struct untangle_shader {
    pub(crate) shader: Shader,
    /// The library report's JSON, made on first request (any thread), or why it failed.
    library_report: std::sync::OnceLock<Result<CString, (untangle_status, String)>>,
    entry_names: Vec<CString>,
    resource_names: Vec<CString>,
    signatures: [Vec<ElementNames>; 3],
}

/// The C strings of one signature element.
pub(crate) struct ElementNames {
    semantic: CString,
    indices: Vec<u32>,
}

impl ElementNames {
    pub fn of(e: &SignatureElement) -> ElementNames {
        let indices = if e.semantic_indices.is_empty() { vec![0] } else { e.semantic_indices.clone() };
        ElementNames { semantic: c_string(&e.semantic), indices }
    }

    /// The C view of `e`, borrowing these names.
    pub fn element(&self, e: &SignatureElement) -> untangle_signature_element {
        let row = |r: Option<u32>| r.and_then(|r| i32::try_from(r).ok()).unwrap_or(-1);
        untangle_signature_element {
            semantic: self.semantic.as_ptr(),
            semantic_index: self.indices[0],
            semantic_indices: self.indices.as_ptr(),
            semantic_index_count: u32::try_from(self.indices.len()).unwrap_or(u32::MAX),
            system_value: e.system_value.to_raw(),
            component_type: e.component_type.to_raw(),
            interpolation: e.interpolation.to_raw(),
            rows: e.rows,
            cols: e.cols,
            start_row: row(e.start_row),
            start_col: row(e.start_col),
            stream: e.output_stream.unwrap_or(0),
            id: e.id,
        }
    }
}

pub(crate) fn stage_of(k: ShaderKind) -> untangle_stage {
    k.to_raw()
}

pub(crate) fn class_of(c: ResourceClass) -> untangle_resource_class {
    c.index()
}

/// The C view of `r`, with `name` as its name.
pub(crate) fn resource_of(r: &Resource, name: &CString) -> untangle_resource {
    untangle_resource {
        resource_class: class_of(r.class),
        kind: r.kind.to_raw(),
        id: r.id,
        space: r.space,
        base_register: r.lower_bound,
        count: r.range_size.unwrap_or(UNTANGLE_UNBOUNDED),
        has_counter: r.uav.is_some_and(|u| u.has_counter),
        name: name.as_ptr(),
    }
}

impl untangle_shader {
    fn new(shader: Shader) -> untangle_shader {
        // The names entries translate by: a library's exported (demangled) names, without
        // `dx.entryPoints`' function-less module entry or LLVM's `\x01` prefix.
        let entry_names = shader.entry_names().iter().map(|n| c_string(n)).collect();
        let resource_names = shader.resources().iter().map(|r| c_string(&r.name)).collect();
        let names = |list: &[SignatureElement]| list.iter().map(ElementNames::of).collect::<Vec<_>>();
        let signatures = match shader.signatures() {
            Some(s) => [names(&s.inputs), names(&s.outputs), names(&s.patch_constants)],
            None => [Vec::new(), Vec::new(), Vec::new()],
        };
        untangle_shader { shader, library_report: std::sync::OnceLock::new(), entry_names, resource_names, signatures }
    }

    fn signature(
        &self,
        which: untangle_signature_kind,
    ) -> Result<(&[SignatureElement], &[ElementNames]), untangle_status> {
        let names = self.signatures.get(which as usize).ok_or(untangle_status::UNTANGLE_INVALID_ARGUMENT)?;
        let elements = match self.shader.signatures() {
            None => &[][..],
            Some(s) => match which {
                UNTANGLE_SIGNATURE_INPUT => &s.inputs[..],
                UNTANGLE_SIGNATURE_OUTPUT => &s.outputs[..],
                _ => &s.patch_constants[..],
            },
        };
        Ok((elements, names))
    }
}

/// Checks a shader argument of a simple accessor.
///
/// # Safety
/// `p` is NULL or a live shader.
unsafe fn shader_ref<'a>(p: *const untangle_shader) -> Result<&'a untangle_shader, untangle_status> {
    // SAFETY: the caller's contract.
    unsafe { object(p, "shader") }.map_err(|f| f.status)
}

fn out<T>(p: *mut T) -> Result<Out<T>, untangle_status> {
    Out::new(p, "out").map_err(|f| f.status)
}

/// Parses a shader: a DXBC container, DXIL bitcode (raw or wrapped) or DXIL as LLVM 14
/// text; the kind is detected from the bytes, which are copied (free them whenever). On
/// success `*shader` receives a new shader.
/// Errors: `UNTANGLE_PARSE_ERROR` (not an input untangle reads, or malformed),
/// `UNTANGLE_NOT_A_SHADER` (well-formed, not DXIL), `UNTANGLE_MALFORMED` (bad DXIL
/// metadata), `UNTANGLE_UNSUPPORTED`.
#[no_mangle]
pub unsafe extern "C" fn untangle_shader_parse(
    bytes: *const u8,
    len: usize,
    shader: *mut *mut untangle_shader,
    error: *mut *mut untangle_error,
) -> untangle_status {
    guard(error, || {
        let out = Out::new(shader, "shader")?;
        if bytes.is_null() {
            return Err(Failure::invalid("`bytes` is NULL"));
        }
        // SAFETY: the caller passes `len` readable bytes.
        let bytes = unsafe { slice(bytes, len, "bytes") }?;
        // The handle reflects and translates; it never shows the IR, so the bitcode keeps
        // the file's numbering (`Shader::parse_for_translation`: the same results, without
        // the canonical renumbering's 6%).
        let parsed = Shader::parse_for_translation(bytes.to_vec(), "input")?;
        let boxed = Box::into_raw(Box::new(untangle_shader::new(parsed)));
        // SAFETY: checked by Out::new; writable by contract.
        unsafe { out.set(boxed) };
        Ok(())
    })
}

/// Frees a shader; NULL is ignored. No other call may be using it.
#[no_mangle]
pub unsafe extern "C" fn untangle_shader_free(shader: *mut untangle_shader) {
    // SAFETY: NULL or a shader from untangle_shader_parse, freed once.
    guard_value((), || drop(unsafe { take(shader) }));
}

/// The shader's stage (`UNTANGLE_STAGE_*`).
#[no_mangle]
pub unsafe extern "C" fn untangle_shader_stage(
    shader: *const untangle_shader,
    stage: *mut untangle_stage,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract (shader live; out writable).
        unsafe {
            let s = shader_ref(shader)?;
            out(stage)?.set(stage_of(s.shader.stage()));
        }
        Ok(())
    })
}

/// The shader model: `6` and `0` for `cs_6_0`. Either out-parameter may be NULL.
#[no_mangle]
pub unsafe extern "C" fn untangle_shader_model(
    shader: *const untangle_shader,
    major: *mut u32,
    minor: *mut u32,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let sm = shader_ref(shader)?.shader.shader_model();
            crate::error::write_opt(major, sm.major);
            crate::error::write_opt(minor, sm.minor);
        }
        Ok(())
    })
}

/// How many entry points the shader has: one for a non-library shader, for a library its
/// entries (each with a function; not `dx.entryPoints`' module-level entry).
#[no_mangle]
pub unsafe extern "C" fn untangle_shader_entry_point_count(
    shader: *const untangle_shader,
    count: *mut usize,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let s = shader_ref(shader)?;
            out(count)?.set(s.entry_names.len());
        }
        Ok(())
    })
}

/// The name of entry point `index` (owned by the shader): for a library entry, its export
/// name (`RayGen` for the function `?RayGen@@YAXXZ`), which `untangle_translate_entry`
/// takes. Never empty.
#[no_mangle]
pub unsafe extern "C" fn untangle_shader_entry_point_name(
    shader: *const untangle_shader,
    index: usize,
    name: *mut *const c_char,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let s = shader_ref(shader)?;
            let n = s.entry_names.get(index).ok_or(untangle_status::UNTANGLE_INVALID_ARGUMENT)?;
            out(name)?.set(n.as_ptr());
        }
        Ok(())
    })
}

/// How many register ranges the module declares (SRVs, then UAVs, CBVs, samplers).
#[no_mangle]
pub unsafe extern "C" fn untangle_shader_resource_count(
    shader: *const untangle_shader,
    count: *mut usize,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let s = shader_ref(shader)?;
            out(count)?.set(s.resource_names.len());
        }
        Ok(())
    })
}

/// Register range `index` (0 to count - 1); its `name` is owned by the shader.
#[no_mangle]
pub unsafe extern "C" fn untangle_shader_resource(
    shader: *const untangle_shader,
    index: usize,
    resource: *mut untangle_resource,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let s = shader_ref(shader)?;
            let r = s.shader.resources().iter().nth(index).ok_or(untangle_status::UNTANGLE_INVALID_ARGUMENT)?;
            out(resource)?.set(resource_of(r, &s.resource_names[index]));
        }
        Ok(())
    })
}

/// How many elements signature `which` (`UNTANGLE_SIGNATURE_*`) of the entry point has
/// (0 for a library or a stage without one).
#[no_mangle]
pub unsafe extern "C" fn untangle_shader_signature_count(
    shader: *const untangle_shader,
    which: untangle_signature_kind,
    count: *mut usize,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let (elements, _) = shader_ref(shader)?.signature(which)?;
            out(count)?.set(elements.len());
        }
        Ok(())
    })
}

/// Element `index` of signature `which`; its strings are owned by the shader.
#[no_mangle]
pub unsafe extern "C" fn untangle_shader_signature_element(
    shader: *const untangle_shader,
    which: untangle_signature_kind,
    index: usize,
    element: *mut untangle_signature_element,
) -> untangle_status {
    guard_simple(|| {
        // SAFETY: the caller's contract.
        unsafe {
            let (elements, names) = shader_ref(shader)?.signature(which)?;
            let e = elements.get(index).ok_or(untangle_status::UNTANGLE_INVALID_ARGUMENT)?;
            out(element)?.set(names[index].element(e));
        }
        Ok(())
    })
}

/// Whether the container carries a root signature (an `RTS0` part); false for inputs
/// that are not containers. A malformed part is `UNTANGLE_ROOT_SIGNATURE`.
#[no_mangle]
pub unsafe extern "C" fn untangle_shader_has_root_signature(
    shader: *const untangle_shader,
    has: *mut bool,
    error: *mut *mut untangle_error,
) -> untangle_status {
    guard(error, || {
        // SAFETY: the caller's contract.
        let s = unsafe { object(shader, "shader") }?;
        let out = Out::new(has, "has")?;
        let found = s.shader.embedded_root_signature()?.is_some();
        // SAFETY: checked; writable by contract.
        unsafe { out.set(found) };
        Ok(())
    })
}

/// The library report as JSON (schema `untangle-library/1`, docs/layout-json.md
/// "Libraries"; owned by the shader, on one line; what `untangle LIB -o DIR --layout-json
/// FILE` writes, less each entry's `layout`, which is its translation's
/// `untangle_result_layout_json`): every entry with its stage, the subobjects that apply to
/// it and, for work-graph nodes, the `node` object a scheduler needs (launch mode, group
/// size, grids, recursion, input and output records and their layouts, output-table
/// indices; docs/work-graphs.md). For a shader that is not a library, its one entry.
/// Errors: `UNTANGLE_MALFORMED` (a corrupt `RDAT` part), `UNTANGLE_INTERNAL`.
#[no_mangle]
pub unsafe extern "C" fn untangle_shader_library_report_json(
    shader: *const untangle_shader,
    json: *mut *const c_char,
    error: *mut *mut untangle_error,
) -> untangle_status {
    guard(error, || {
        // SAFETY: a live shader (the caller's contract).
        let s = unsafe { object(shader, "shader") }?;
        let out = Out::new(json, "json")?;
        let made = s.library_report.get_or_init(|| {
            let report = s.shader.library_report().map_err(|e| {
                let f = Failure::from(e);
                (f.status, f.message)
            })?;
            serde_json::to_string(&report)
                .map(|j| c_string(&j))
                .map_err(|e| (untangle_status::UNTANGLE_INTERNAL, e.to_string()))
        });
        match made {
            // SAFETY: checked; writable by contract.
            Ok(j) => unsafe { out.set(j.as_ptr()) },
            Err((status, message)) => return Err(Failure::new(*status, message.clone())),
        }
        Ok(())
    })
}
