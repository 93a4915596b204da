//! `dxil_spv_parsed_blob`: a parsed shader, either ours (DXIL read by untangle) or the
//! delegate's (DXBC; DXIL in the reference mode), decided when it is parsed.
//!
//! Routing follows dxil-spirv's own test: a container with a `SHDR` or `SHEX` part is DXBC
//! (even if it also has a `DXIL` part), anything else is DXIL.

use crate::delegate;
use crate::ffi::*;
use crate::shadow::ShadowBlob;
use std::ffi::{c_char, c_void, CString};
use std::sync::Arc;
use untangle::ShaderKind;

thread_local! {
    /// The calling thread's parse context: dxil-spirv's API has no handle to keep one in, and
    /// a layer parses its shaders one after another on a few threads, all made by one
    /// compiler, so each thread decodes their common `BLOCKINFO` block once. The untangle
    /// library itself keeps no state; this shim, which must look like dxil-spirv, does.
    static PARSE_CONTEXT: std::cell::RefCell<untangle::ParseContext> = std::cell::RefCell::new(untangle::ParseContext::new());
}

/// Where a blob's calls go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// DXIL, translated by untangle.
    Untangle,
    /// DXIL, sent to the delegate (reference mode).
    DelegateDxil,
    /// DXBC (shader model 5 and older), always the delegate's.
    DelegateDxbc,
}

impl Route {
    pub fn is_dxil(self) -> bool {
        self != Route::DelegateDxbc
    }
}

/// What kind of input a parse function got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseKind {
    /// `dxil_spv_parse_dxil_blob`: a container.
    Container,
    /// `dxil_spv_parse_reflection_dxil_blob`: a container's STAT part.
    Reflection,
    /// `dxil_spv_parse_dxil`: raw bitcode.
    Bitcode,
}

/// Whether `bytes` is a DXBC container holding shader model 5 code (a `SHDR`/`SHEX` part).
/// Anything that is not a readable container answers false (untangle then reports why).
pub fn is_dxbc_program(bytes: &[u8]) -> bool {
    let word = |at: usize| bytes.get(at..at + 4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    if bytes.get(0..4) != Some(b"DXBC") {
        return false;
    }
    let Some(count) = word(28) else { return false };
    (0..count as usize).take(4096).any(|i| {
        word(32 + 4 * i)
            .and_then(|offset| bytes.get(offset as usize..offset as usize + 4))
            .is_some_and(|fourcc| fourcc == b"SHDR" || fourcc == b"SHEX")
    })
}

/// One entry point of a native blob, with the strings handed out for it.
pub struct NativeEntry {
    /// The `dx.entryPoints` name (MSVC-mangled in libraries).
    pub mangled: CString,
    pub demangled: CString,
    pub stage: dxil_spv_shader_stage,
    /// Work-graph reflection ([`crate::nodes`]).
    pub node_input: crate::nodes::NodeInput,
    pub node_outputs: Vec<crate::nodes::NodeOutput>,
}

/// A library subobject as `dxil_spv_rdat_subobject` hands it out (owning its strings).
struct CSubobject {
    kind: dxil_spv_rdat_subobject_kind,
    name: CString,
    hit_group_type: dxil_spv_hit_group_type,
    exports: Vec<CString>,
    export_ptrs: Vec<*const c_char>,
    args: [u32; 2],
    payload: Vec<u8>,
    /// Where `payload`'s bytes sit in the caller's buffer, when they do (root signatures,
    /// which the container stores verbatim).
    payload_in_input: Option<usize>, // an address: the blob stays `Send`
}

/// DXIL parsed by untangle.
pub struct NativeBlob {
    pub shader: untangle::Shader,
    pub entries: Vec<NativeEntry>,
    subobjects: Vec<CSubobject>,
}

/// dxil-spirv's demangling: the identifier between the first `?` and the next `@`.
pub fn demangle(name: &str) -> &str {
    match name.find('?') {
        Some(q) => match name[q + 1..].find('@') {
            Some(at) => &name[q + 1..q + 1 + at],
            None => name,
        },
        None => name,
    }
}

/// dxil-spirv's stage numbering of untangle's shader kinds (a work-graph node is compute).
pub fn stage_of(kind: ShaderKind) -> dxil_spv_shader_stage {
    match kind {
        ShaderKind::Vertex => DXIL_SPV_STAGE_VERTEX,
        ShaderKind::Hull => DXIL_SPV_STAGE_HULL,
        ShaderKind::Domain => DXIL_SPV_STAGE_DOMAIN,
        ShaderKind::Geometry => DXIL_SPV_STAGE_GEOMETRY,
        ShaderKind::Pixel => DXIL_SPV_STAGE_PIXEL,
        ShaderKind::Compute | ShaderKind::Node => DXIL_SPV_STAGE_COMPUTE,
        ShaderKind::Intersection => DXIL_SPV_STAGE_INTERSECTION,
        ShaderKind::ClosestHit => DXIL_SPV_STAGE_CLOSEST_HIT,
        ShaderKind::Miss => DXIL_SPV_STAGE_MISS,
        ShaderKind::AnyHit => DXIL_SPV_STAGE_ANY_HIT,
        ShaderKind::RayGeneration => DXIL_SPV_STAGE_RAY_GENERATION,
        ShaderKind::Callable => DXIL_SPV_STAGE_CALLABLE,
        ShaderKind::Amplification => DXIL_SPV_STAGE_AMPLIFICATION,
        ShaderKind::Mesh => DXIL_SPV_STAGE_MESH,
        ShaderKind::Library | ShaderKind::Invalid => DXIL_SPV_STAGE_UNKNOWN,
    }
}

/// The first position of `needle` (not empty) in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

impl NativeBlob {
    pub fn parse(bytes: &[u8]) -> Result<NativeBlob, String> {
        let shader = PARSE_CONTEXT
            .with(|cx| untangle::Shader::parse_for_translation_in(&mut cx.borrow_mut(), bytes.to_vec(), "shader"))
            .map_err(|e| e.to_string())?;
        let module_stage = stage_of(shader.stage());
        let entries = shader
            .entry_points()
            .iter()
            .filter(|e| e.function.is_some())
            .map(|e| {
                let stage = match e.properties.shader_kind {
                    Some(kind) if shader.stage() == ShaderKind::Library => stage_of(kind),
                    _ => module_stage,
                };
                NativeEntry {
                    mangled: cstring(&e.name),
                    demangled: cstring(demangle(&e.name)),
                    stage,
                    node_input: crate::nodes::NodeInput::of(e.properties.node.as_ref()),
                    node_outputs: crate::nodes::NodeOutput::all_of(e.properties.node.as_ref()),
                }
            })
            .collect();
        let subobjects = match shader.subobjects() {
            Ok(list) => list.iter().filter_map(c_subobject).collect(),
            Err(e) => {
                crate::log::warn(&format!("the library's RDAT subobjects do not read: {e}"));
                Vec::new()
            }
        };
        let mut subobjects: Vec<CSubobject> = subobjects;
        for s in &mut subobjects {
            // dxil-spirv hands out root-signature payloads as pointers into the caller's
            // buffer, and layers rely on it: vkd3d-proton frees the parsed blob and then
            // reads the root signature it found (`vkd3d_shader_dxil_find_global_root_signature_subobject`).
            s.payload_in_input = find(bytes, &s.payload).map(|at| bytes[at..].as_ptr() as usize);
        }
        Ok(NativeBlob { shader, entries, subobjects })
    }

    /// The stage of the blob (no entry: the module's, or a library's first entry's).
    pub fn stage(&self) -> dxil_spv_shader_stage {
        let module = stage_of(self.shader.stage());
        if module != DXIL_SPV_STAGE_UNKNOWN {
            return module;
        }
        self.entries.first().map_or(DXIL_SPV_STAGE_UNKNOWN, |e| e.stage)
    }

    /// The bytes this blob was parsed from, as the caller gave them (untangle keeps them).
    pub fn input(&self) -> &[u8] {
        &self.shader.loaded().bytes
    }

    /// The entry `name` names, mangled or demangled (dxil-spirv's matching).
    pub fn entry_index(&self, name: &str) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.mangled.to_bytes() == name.as_bytes() || e.demangled.to_bytes() == name.as_bytes())
    }

    pub fn num_subobjects(&self) -> usize {
        self.subobjects.len()
    }

    /// Fills `out` with subobject `index` (pointers valid while the blob lives).
    pub fn subobject(&self, index: usize, out: &mut dxil_spv_rdat_subobject) -> bool {
        let Some(s) = self.subobjects.get(index) else { return false };
        *out = dxil_spv_rdat_subobject {
            kind: s.kind,
            subobject_name: s.name.as_ptr(),
            hit_group_type: s.hit_group_type,
            exports: if s.export_ptrs.is_empty() { std::ptr::null() } else { s.export_ptrs.as_ptr() },
            num_exports: s.export_ptrs.len() as u32,
            args: s.args,
            payload: match (s.payload.is_empty(), s.payload_in_input) {
                (true, _) => std::ptr::null(),
                (false, Some(p)) => p as *const c_void,
                (false, None) => s.payload.as_ptr() as *const c_void,
            },
            payload_size: s.payload.len(),
        };
        true
    }
}

/// dxil-spirv's view of a subobject: a hit group's exports are its any-hit, closest-hit and
/// intersection names (empty when absent); an association's are the associated subobject's
/// name followed by the exports; configs carry their numbers in `args`.
fn c_subobject(s: &untangle::front::container::rdat::Subobject) -> Option<CSubobject> {
    use untangle::front::container::rdat::{HitGroupType, SubobjectKind as K};
    let mut c = CSubobject {
        kind: 0,
        name: cstring(&s.name),
        hit_group_type: DXIL_SPV_HIT_GROUP_TYPE_TRIANGLE,
        exports: Vec::new(),
        export_ptrs: Vec::new(),
        args: [0; 2],
        payload: Vec::new(),
        payload_in_input: None,
    };
    match &s.kind {
        K::StateObjectConfig { flags } => {
            c.kind = DXIL_SPV_RDAT_SUBOBJECT_KIND_STATE_OBJECT_CONFIG;
            c.args[0] = *flags;
        }
        K::GlobalRootSignature { rts0 } => {
            c.kind = DXIL_SPV_RDAT_SUBOBJECT_KIND_GLOBAL_ROOT_SIGNATURE;
            c.payload = rts0.clone();
        }
        K::LocalRootSignature { rts0 } => {
            c.kind = DXIL_SPV_RDAT_SUBOBJECT_KIND_LOCAL_ROOT_SIGNATURE;
            c.payload = rts0.clone();
        }
        K::SubobjectToExportsAssociation { subobject, exports } => {
            c.kind = DXIL_SPV_RDAT_SUBOBJECT_KIND_SUBOBJECT_TO_EXPORTS_ASSOCIATION;
            c.exports = std::iter::once(subobject).chain(exports).map(|e| cstring(e)).collect();
        }
        K::RaytracingShaderConfig { max_payload_size_in_bytes, max_attribute_size_in_bytes } => {
            c.kind = DXIL_SPV_RDAT_SUBOBJECT_KIND_RAYTRACING_SHADER_CONFIG;
            c.args = [*max_payload_size_in_bytes, *max_attribute_size_in_bytes];
        }
        K::RaytracingPipelineConfig { max_trace_recursion_depth } => {
            c.kind = DXIL_SPV_RDAT_SUBOBJECT_KIND_RAYTRACING_PIPELINE_CONFIG;
            c.args = [*max_trace_recursion_depth, 0];
        }
        K::RaytracingPipelineConfig1 { max_trace_recursion_depth, flags } => {
            c.kind = DXIL_SPV_RDAT_SUBOBJECT_KIND_RAYTRACING_PIPELINE_CONFIG1;
            c.args = [*max_trace_recursion_depth, *flags];
        }
        K::HitGroup { hit_group_type, any_hit, closest_hit, intersection } => {
            c.kind = DXIL_SPV_RDAT_SUBOBJECT_KIND_HIT_GROUP;
            c.hit_group_type = match hit_group_type {
                HitGroupType::Triangles => DXIL_SPV_HIT_GROUP_TYPE_TRIANGLE,
                HitGroupType::ProceduralPrimitive => DXIL_SPV_HIT_GROUP_TYPE_PROCEDURAL,
            };
            c.exports =
                [any_hit, closest_hit, intersection].iter().map(|n| cstring(n.as_deref().unwrap_or(""))).collect();
        }
        K::Other { .. } => return None,
    }
    c.export_ptrs = c.exports.iter().map(|e| e.as_ptr()).collect();
    Some(c)
}

/// What a blob is.
pub enum BlobImpl {
    Native(Box<NativeBlob>),
    /// The delegate's blob handle.
    Delegate(*mut c_void),
}

/// The structure behind `dxil_spv_parsed_blob`.
pub struct ParsedBlob {
    pub route: Route,
    pub kind: ParseKind,
    pub imp: BlobImpl,
    /// The parsed bytes, kept when the record mode needs them (content hash, copy).
    pub bytes: Option<Arc<[u8]>>,
    /// SHA-256 of the parsed bytes (record mode).
    pub sha256: Option<String>,
    /// The delegate's parse of a native blob, for shadow runs (made on the first one).
    pub shadow: ShadowBlob,
}

impl ParsedBlob {
    pub fn native(&self) -> Option<&NativeBlob> {
        match &self.imp {
            BlobImpl::Native(n) => Some(n),
            BlobImpl::Delegate(_) => None,
        }
    }

    pub fn delegate_handle(&self) -> Option<*mut c_void> {
        match self.imp {
            BlobImpl::Delegate(h) => Some(h),
            BlobImpl::Native(_) => None,
        }
    }
}

impl Drop for ParsedBlob {
    fn drop(&mut self) {
        if let BlobImpl::Delegate(h) = self.imp {
            if let Some(d) = delegate::loaded() {
                d.enter();
                // SAFETY: the delegate's handle, freed once.
                unsafe { (d.f.dxil_spv_parsed_blob_free)(h) };
            }
        }
    }
}
