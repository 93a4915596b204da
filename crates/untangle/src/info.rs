//! `untangle info`: what a shader is, as text or JSON (schema in `docs/cli-json.md`).

use crate::dxil::{self, DxilInfo, Resource, SignatureElement};
use crate::error::Result;
use crate::front::container::ContainerSummary;
use crate::front::{input_kind_name, Loaded};
use serde::Serialize;
use std::fmt::Write;

#[derive(Serialize)]
pub struct Info<'a> {
    pub file: String,
    pub input: &'static str,
    pub container: Option<ContainerSummary<'a>>,
    pub module: ModuleInfo,
    pub dxil: DxilInfo,
}

#[derive(Serialize)]
pub struct ModuleInfo {
    pub triple: String,
    pub functions: Vec<FunctionInfo>,
    pub globals: usize,
}

#[derive(Serialize)]
pub struct FunctionInfo {
    pub name: String,
    pub blocks: usize,
    pub instructions: usize,
}

impl<'a> Info<'a> {
    pub fn new(loaded: &'a Loaded, container: Option<&crate::front::container::Container<'a>>) -> Result<Info<'a>> {
        let m = &loaded.module;
        let functions = m
            .defined_functions()
            .map(|(_, f)| FunctionInfo {
                name: f.name.clone(),
                blocks: f.layout.len(),
                instructions: f.layout.iter().map(|&b| f.blocks[b].insts.len() + 1).sum(),
            })
            .collect();
        Ok(Info {
            file: loaded.name.clone(),
            input: input_kind_name(loaded.input),
            container: container.map(crate::front::container::ContainerSummary::new),
            module: ModuleInfo { triple: m.triple.clone(), functions, globals: m.globals.len() },
            dxil: dxil::analyze(m)?,
        })
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    pub fn render_text(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "{}: {}", self.file, self.input);
        let d = &self.dxil;
        if let Some(sm) = &d.shader_model {
            let _ = write!(o, "shader model: {}_{}_{}", sm.profile, sm.major, sm.minor);
            if let Some([a, b]) = d.dxil_version {
                let _ = write!(o, ", DXIL {a}.{b}");
            }
            if let Some([a, b]) = d.validator_version {
                let _ = write!(o, ", validator {a}.{b}");
            }
            o.push('\n');
        } else {
            o.push_str("not DXIL (no dx.shaderModel)\n");
        }
        if let Some(c) = &self.container {
            let chunks: Vec<String> = c.chunks.iter().map(|ch| format!("{}({})", ch.fourcc, ch.data.len())).collect();
            let _ = writeln!(o, "container: {}", chunks.join(" "));
            if let Some(f) = &c.feature_info {
                let names = f.names();
                if !names.is_empty() {
                    let _ = writeln!(o, "features: {}", names.join(", "));
                }
            }
        }
        for e in &d.entry_points {
            let func = e.function_name.as_deref().map(|n| format!(" (@{n})")).unwrap_or_default();
            let _ = write!(o, "entry point: {}{}", if e.name.is_empty() { "<module>" } else { &e.name }, func);
            let p = &e.properties;
            if let Some(k) = p.shader_kind {
                let _ = write!(o, " kind {k:?}");
            }
            if let Some([x, y, z]) = p.num_threads {
                let _ = write!(o, " numthreads({x}, {y}, {z})");
            }
            if let Some(w) = p.wave_size {
                let _ = write!(o, " wavesize({}, {}, {})", w.min, w.max, w.preferred);
            }
            if let Some(g) = &p.geometry {
                let _ = write!(
                    o,
                    " input {:?} output {:?} maxvertexcount({}) instance({}) streams {:#x}",
                    g.input_primitive, g.output_topology, g.max_vertex_count, g.instance_count, g.active_stream_mask
                );
            }
            if let Some(d) = &p.domain {
                let _ = write!(o, " domain {:?} control points {}", d.domain, d.input_control_points);
            }
            if let Some(h) = &p.hull {
                let _ = write!(
                    o,
                    " domain {:?} partitioning {:?} output {:?} control points {} -> {} maxtessfactor({})",
                    h.domain,
                    h.partitioning,
                    h.output_primitive,
                    h.input_control_points,
                    h.output_control_points,
                    h.max_tess_factor
                );
            }
            if p.shader_flags != 0 {
                let _ = write!(o, " flags {:#x}", p.shader_flags);
            }
            o.push('\n');
            for (label, list) in [
                ("input", &e.signatures.inputs),
                ("output", &e.signatures.outputs),
                ("patch constant", &e.signatures.patch_constants),
            ] {
                for s in list {
                    let _ = writeln!(o, "  {label:<6} {}", signature_line(s));
                }
            }
        }
        if !d.resources.is_empty() {
            o.push_str("resources:\n");
            for r in d.resources.iter() {
                let _ = writeln!(o, "  {}", resource_line(r));
            }
        }
        for f in &self.module.functions {
            let _ = writeln!(o, "function @{}: {} blocks, {} instructions", f.name, f.blocks, f.instructions);
        }
        if let Some(ops) = d.ops.as_ref().filter(|ops| !ops.is_empty()) {
            let ops: Vec<String> = ops
                .iter()
                .map(|u| match (&u.op, &u.function) {
                    (Some(op), _) => format!("{op}({}) x{}", u.opcode, u.count),
                    (None, f) => {
                        format!("unknown opcode {} in @{} x{}", u.opcode, f.as_deref().unwrap_or("?"), u.count)
                    }
                })
                .collect();
            let _ = writeln!(o, "dx.ops: {}", ops.join(", "));
        }
        o
    }
}

fn signature_line(s: &SignatureElement) -> String {
    let idx: Vec<String> = s.semantic_indices.iter().map(|i| i.to_string()).collect();
    let loc = match (s.start_row, s.start_col) {
        (Some(r), Some(c)) => format!("row {r} col {c}"),
        _ => "unallocated".to_string(),
    };
    format!(
        "{}[{}] {:?} {:?} {}x{} {loc} {:?}",
        s.semantic,
        idx.join(","),
        s.system_value,
        s.component_type,
        s.rows,
        s.cols,
        s.interpolation
    )
}

fn resource_line(r: &Resource) -> String {
    let range = match r.range_size {
        None => " [unbounded]".to_string(),
        Some(1) => String::new(),
        Some(n) => format!(" [{n}]"),
    };
    let mut s = format!("{} {}{} id {} {:?}", r.class.name(), r.register(), range, r.id, r.kind);
    if let Some(t) = &r.type_name {
        let _ = write!(s, " {t}");
    }
    if let Some(e) = r.element_type {
        let _ = write!(s, " element {e:?}");
    }
    if let Some(st) = r.struct_stride {
        let _ = write!(s, " stride {st}");
    }
    if let Some(sz) = r.cbuffer_size {
        let _ = write!(s, " {sz} bytes");
    }
    if let Some(u) = r.uav {
        if u.has_counter {
            s.push_str(" counter");
        }
        if u.globally_coherent {
            s.push_str(" globallycoherent");
        }
        if u.rasterizer_ordered {
            s.push_str(" ROV");
        }
    }
    if !r.name.is_empty() {
        let _ = write!(s, " \"{}\"", r.name);
    }
    s
}
