//! A DXIL module in LLVM text around a function body: the `dx.types` the operations use,
//! the resources a case declares (each with a `createHandle` in the entry block, named
//! `%<name>`), signature elements, and the entry-point metadata of a compute, vertex, hull,
//! domain, geometry or pixel shader (or any other profile, for stage-refusal tests). Hull
//! shaders get a patch-constant function (`@pc`, empty unless the case gives its body), a
//! tri-domain integer-partitioned 3-to-3 control point state; domain shaders a tri domain of 3
//! control points; geometry shaders a triangle input and a triangle-strip output of at most
//! 4 vertices.
//!
//! Every module has a `RWByteAddressBuffer` `out` at u0 (UAV range 0), which bodies read
//! their inputs from and write their results to.

use std::fmt::Write;
use untangle::dxil::{ComponentType, ResourceClass, ResourceKind};

/// The `dx.types` (and placeholder structs) any case may use; unused ones are harmless.
pub const PRELUDE: &str = r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type { i8* }
%dx.types.ResBind = type { i32, i32, i32, i8 }
%dx.types.ResourceProperties = type { i32, i32 }
%dx.types.ResRet.f16 = type { half, half, half, half, i32 }
%dx.types.ResRet.f32 = type { float, float, float, float, i32 }
%dx.types.ResRet.f64 = type { double, double, double, double, i32 }
%dx.types.ResRet.i16 = type { i16, i16, i16, i16, i32 }
%dx.types.ResRet.i32 = type { i32, i32, i32, i32, i32 }
%dx.types.ResRet.i64 = type { i64, i64, i64, i64, i32 }
%dx.types.CBufRet.f16 = type { half, half, half, half }
%dx.types.CBufRet.f16.8 = type { half, half, half, half, half, half, half, half }
%dx.types.CBufRet.f32 = type { float, float, float, float }
%dx.types.CBufRet.f64 = type { double, double }
%dx.types.CBufRet.i16 = type { i16, i16, i16, i16 }
%dx.types.CBufRet.i16.8 = type { i16, i16, i16, i16, i16, i16, i16, i16 }
%dx.types.CBufRet.i32 = type { i32, i32, i32, i32 }
%dx.types.CBufRet.i64 = type { i64, i64 }
%dx.types.Dimensions = type { i32, i32, i32, i32 }
%dx.types.SamplePos = type { float, float }
%dx.types.twoi32 = type { i32, i32 }
%dx.types.i32c = type { i32, i1 }
%dx.types.fouri32 = type { i32, i32, i32, i32 }
%dx.types.fouri16 = type { i16, i16, i16, i16 }
%dx.types.splitdouble = type { i32, i32 }
%dx.types.NodeHandle = type { i8* }
%dx.types.NodeRecordHandle = type { i8* }
%dx.types.NodeInfo = type { i32, i32 }
%dx.types.NodeRecordInfo = type { i32, i32 }
%dx.types.HitObject = type { i8* }
%dx.types.LinAlgMatrix = type { i8* }
%struct.R = type { i32 }
%struct.Payload = type { i32 }
"#;

/// A resource a case declares besides `out`.
#[derive(Clone, Debug)]
pub struct Res {
    /// The handle's name in the body (`%name`) and the resource's name.
    pub name: &'static str,
    pub class: ResourceClass,
    pub kind: ResourceKind,
    /// Register (the range's lower bound) in space 0.
    pub register: u32,
    /// Registers in the range.
    pub count: u32,
    /// Element type of typed resources.
    pub element: Option<ComponentType>,
    /// Structured buffers: stride; constant buffers: size in bytes; samplers: kind.
    pub extra: u32,
    /// Multisampled textures: samples.
    pub samples: u32,
    /// UAVs: has a counter.
    pub counter: bool,
}

impl Res {
    pub const fn new(name: &'static str, class: ResourceClass, kind: ResourceKind, register: u32) -> Res {
        Res { name, class, kind, register, count: 1, element: None, extra: 0, samples: 0, counter: false }
    }
    pub const fn typed(mut self, element: ComponentType) -> Res {
        self.element = Some(element);
        self
    }
    pub const fn extra(mut self, extra: u32) -> Res {
        self.extra = extra;
        self
    }
    pub const fn samples(mut self, samples: u32) -> Res {
        self.samples = samples;
        self
    }
    pub const fn counter(mut self) -> Res {
        self.counter = true;
        self
    }
    pub const fn count(mut self, count: u32) -> Res {
        self.count = count;
        self
    }
}

/// A signature element.
#[derive(Clone, Debug)]
pub struct El {
    pub name: &'static str,
    pub component: ComponentType,
    /// `DXIL::SemanticKind` number (0: arbitrary).
    pub system_value: u32,
    /// `DXIL::InterpolationMode` number.
    pub interpolation: u32,
    pub rows: u32,
    pub cols: u32,
    /// `None`: not allocated (system values outside the register file).
    pub start: Option<(u32, u32)>,
}

/// What goes around a body.
#[derive(Clone, Debug, Default)]
pub struct Shell {
    /// Profile prefix: `cs`, `ps`, `vs`, `hs`, ...
    pub profile: &'static str,
    pub resources: Vec<Res>,
    pub inputs: Vec<El>,
    pub outputs: Vec<El>,
    /// Hull and domain shaders: the patch-constant signature.
    pub patch_constants: Vec<El>,
    /// Hull shaders: the body of the patch-constant function `@pc` (from `entry:`; it has
    /// no handles). `None`: it only returns.
    pub patch_body: Option<String>,
    /// Compute, mesh and amplification: numthreads.
    pub threads: [u32; 3],
    /// The entry's shader flags (properties tag 0) when not 0; bit 3: `[earlydepthstencil]`.
    pub shader_flags: u64,
}

impl Shell {
    pub fn new(profile: &'static str) -> Shell {
        Shell { profile, threads: [8, 8, 1], ..Default::default() }
    }

    /// The module: the prelude, `@main` with the handles then `body` (which must end the
    /// function's blocks; `entry:` starts it), the declarations (`createHandle`'s is added)
    /// and the metadata.
    pub fn module(&self, body: &str, decls: &str) -> String {
        let mut s = String::from(PRELUDE);
        s.push_str("define void @main() {\nentry:\n");
        s.push_str("  %out = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)\n");
        let mut ids = [0u32; 4];
        ids[ResourceClass::Uav.index() as usize] = 1;
        let mut records: [Vec<String>; 4] = Default::default();
        records[1].push(
            "!{i32 0, %struct.R* undef, !\"out\", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}"
                .into(),
        );
        for r in &self.resources {
            let class = r.class.index() as usize;
            let id = ids[class];
            ids[class] += 1;
            let _ = writeln!(
                s,
                "  %{} = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 {class}, i32 {id}, i32 {}, i1 false)",
                r.name, r.register
            );
            records[class].push(record(r, id));
        }
        s.push_str(body);
        s.push_str("\n}\n");
        if self.profile == "hs" {
            s.push_str("define void @pc() {\nentry:\n");
            s.push_str(self.patch_body.as_deref().unwrap_or("  ret void"));
            s.push_str("\n}\n");
        }
        s.push_str("declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)\n");
        s.push_str(decls);
        s.push('\n');
        // Metadata: numbered in one pass.
        let mut md: Vec<String> = Vec::new();
        let mut node = |text: String, md: &mut Vec<String>| -> String {
            md.push(text);
            format!("!{}", md.len() + 99)
        };
        let lists: Vec<String> = records
            .iter()
            .map(|rs| {
                if rs.is_empty() {
                    "null".to_string()
                } else {
                    let items: Vec<String> = rs.iter().map(|r| node(r.clone(), &mut md)).collect();
                    node(format!("!{{{}}}", items.join(", ")), &mut md)
                }
            })
            .collect();
        let resources = node(format!("!{{{}}}", lists.join(", ")), &mut md);
        let sig_list = |els: &[El], md: &mut Vec<String>, node: &mut dyn FnMut(String, &mut Vec<String>) -> String| {
            if els.is_empty() {
                return "null".to_string();
            }
            let items: Vec<String> = els
                .iter()
                .enumerate()
                .map(|(k, e)| {
                    let (row, col) = e.start.map_or((-1i64, -1i64), |(r, c)| (r as i64, c as i64));
                    let index = node("!{i32 0}".to_string(), md);
                    node(
                        format!(
                            "!{{i32 {k}, !\"{}\", i8 {}, i8 {}, {index}, i8 {}, i32 {}, i8 {}, i32 {row}, i8 {col}, null}}",
                            e.name,
                            e.component.to_raw(),
                            e.system_value,
                            e.interpolation,
                            e.rows,
                            e.cols
                        ),
                        md,
                    )
                })
                .collect();
            node(format!("!{{{}}}", items.join(", ")), md)
        };
        let inputs = sig_list(&self.inputs, &mut md, &mut node);
        let outputs = sig_list(&self.outputs, &mut md, &mut node);
        let patch = sig_list(&self.patch_constants, &mut md, &mut node);
        let sigs = if inputs == "null" && outputs == "null" && patch == "null" {
            "null".to_string()
        } else {
            node(format!("!{{{inputs}, {outputs}, {patch}}}"), &mut md)
        };
        let props = match self.profile {
            "cs" => {
                let [x, y, z] = self.threads;
                let nt = node(format!("!{{i32 {x}, i32 {y}, i32 {z}}}"), &mut md);
                node(format!("!{{i32 4, {nt}}}"), &mut md)
            }
            // Input triangle, 4 vertices, stream 0, triangle strip, 1 instance.
            "gs" => {
                let state = node("!{i32 3, i32 4, i32 1, i32 5, i32 1}".into(), &mut md);
                node(format!("!{{i32 1, {state}}}"), &mut md)
            }
            // Tri domain, 3 control points.
            "ds" => {
                let state = node("!{i32 2, i32 3}".into(), &mut md);
                node(format!("!{{i32 2, {state}}}"), &mut md)
            }
            // @pc, 3 -> 3 control points, tri, integer, triangle_cw, max factor 64.
            "hs" => {
                let state =
                    node("!{void ()* @pc, i32 3, i32 3, i32 2, i32 1, i32 3, float 6.400000e+01}".into(), &mut md);
                node(format!("!{{i32 3, {state}}}"), &mut md)
            }
            // numthreads, 3 vertices, 1 primitive, triangles, no payload.
            "ms" => {
                let [x, y, z] = self.threads;
                let nt = node(format!("!{{i32 {x}, i32 {y}, i32 {z}}}"), &mut md);
                let state = node(format!("!{{{nt}, i32 3, i32 1, i32 2, i32 0}}"), &mut md);
                node(format!("!{{i32 9, {state}}}"), &mut md)
            }
            // numthreads, no payload.
            "as" => {
                let [x, y, z] = self.threads;
                let nt = node(format!("!{{i32 {x}, i32 {y}, i32 {z}}}"), &mut md);
                let state = node(format!("!{{{nt}, i32 0}}"), &mut md);
                node(format!("!{{i32 10, {state}}}"), &mut md)
            }
            _ if self.shader_flags != 0 => node(format!("!{{i32 0, i64 {}}}", self.shader_flags), &mut md),
            _ => "null".to_string(),
        };
        let entry = node(format!("!{{void ()* @main, !\"main\", {sigs}, {resources}, {props}}}"), &mut md);
        let sm = node(format!("!{{!\"{}\", i32 6, i32 8}}", self.profile), &mut md);
        let version = node("!{i32 1, i32 8}".into(), &mut md);
        let _ = writeln!(s, "!dx.version = !{{{version}}}");
        let _ = writeln!(s, "!dx.valver = !{{{version}}}");
        let _ = writeln!(s, "!dx.shaderModel = !{{{sm}}}");
        let _ = writeln!(s, "!dx.resources = !{{{resources}}}");
        let _ = writeln!(s, "!dx.entryPoints = !{{{entry}}}");
        for (k, text) in md.iter().enumerate() {
            let _ = writeln!(s, "!{} = {text}", k + 100);
        }
        s
    }
}

fn record(r: &Res, id: u32) -> String {
    let head = format!("i32 {id}, %struct.R* undef, !\"{}\", i32 0, i32 {}, i32 {}", r.name, r.register, r.count);
    let tags = match (r.element, r.kind) {
        (Some(e), _) => format!("!{{i32 0, i32 {}}}", e.to_raw()),
        (None, ResourceKind::StructuredBuffer) => format!("!{{i32 1, i32 {}}}", r.extra.max(4)),
        _ => "null".into(),
    };
    match r.class {
        ResourceClass::Srv => format!("!{{{head}, i32 {}, i32 {}, {tags}}}", r.kind.to_raw(), r.samples),
        ResourceClass::Uav => {
            format!("!{{{head}, i32 {}, i1 false, i1 {}, i1 false, {tags}}}", r.kind.to_raw(), r.counter)
        }
        ResourceClass::Cbv => format!("!{{{head}, i32 {}, null}}", r.extra),
        ResourceClass::Sampler => format!("!{{{head}, i32 {}, null}}", r.extra),
    }
}
