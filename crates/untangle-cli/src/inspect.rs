//! `untangle info`, `untangle ir`, `untangle cfg`: describe an input without translating it.

use crate::failure::Failure;
use std::fmt::Write as _;
use std::path::Path;
use untangle::emit::binding_model::{mapping, DefaultPlacement};
use untangle::emit::support::{coverage, support, StageCoverage, TABLE_STAGES};

/// `untangle info [--json]`: container, shader model, entry points, signatures, resources,
/// functions, DXIL operations, and where the default model binds each resource.
pub fn info(file: &Path, json: bool) -> Result<(), Failure> {
    let loaded = crate::load(file)?;
    let container = loaded.container();
    let info = untangle::info::Info::new(&loaded, container.as_ref()).map_err(|e| Failure::lib(file, e))?;
    let placement = info.dxil.shader_model.as_ref().map(|sm| DefaultPlacement {
        stage: sm.kind,
        map: Default::default(),
        remap: None,
    });
    if json {
        let mut v = info.to_json();
        if let (Some(obj), Some(placement)) = (v.as_object_mut(), &placement) {
            let rows = mapping(&info.dxil.resources, placement);
            obj.insert("vulkan_bindings".into(), serde_json::to_value(rows).unwrap_or_default());
        }
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(());
    }
    print!("{}", info.render_text());
    if let Some(placement) = placement.filter(|_| !info.dxil.resources.is_empty()) {
        println!("vulkan bindings (default model: set = space; binding = b 0 / t 1000 / u 2000 / s 3000 + register):");
        for row in mapping(&info.dxil.resources, &placement) {
            let count = row.count.map_or("unbounded".to_string(), |n| n.to_string());
            println!(
                "  {:<18} {:<24} count {:<9} -> set {} binding {}",
                row.register, row.name, count, row.set, row.binding
            );
        }
    }
    Ok(())
}

/// `untangle info --ops [FILE] [--json]`: without FILE, every DXIL 1.9 operation and every
/// SM 6.10 experimental one (opcode printed in hex) and how
/// each stage handles it (`emit::support::coverage`, the data of docs/dxil-coverage.md);
/// with FILE, the operations it calls and how its stage handles each.
pub fn ops(file: Option<&Path>, json: bool) -> Result<(), Failure> {
    let Some(file) = file else {
        let rows = coverage();
        if json {
            let stages: Vec<&str> = TABLE_STAGES.iter().map(|s| s.profile_prefix().unwrap_or("?")).collect();
            let v = serde_json::json!({ "stages": stages, "operations": rows });
            return print_all(&format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default()));
        }
        let head: Vec<&str> = TABLE_STAGES.iter().map(|s| s.profile_prefix().unwrap_or("?")).collect();
        let mut out = String::new();
        out.push_str("legend: + lowered, x refused (reason after the cells), . not allowed in that stage by DXIL,\n");
        out.push_str("        s stage not translated yet, r reserved opcode slot\n");
        let _ = writeln!(out, "{:>10} {:<53} {:<4} {}", "#", "operation", "SM", head.join(" "));
        for row in &rows {
            let cells: Vec<String> = row
                .stages
                .iter()
                .zip(&head)
                .map(|(c, h)| {
                    let mark = match c.status {
                        "lowered" => "+",
                        "not_in_stage" => ".",
                        "stage_not_translated" => "s",
                        "reserved" => "r",
                        _ => "x",
                    };
                    format!("{mark:<w$}", w = h.len())
                })
                .collect();
            let how = match row.stages.iter().find_map(|c| c.module) {
                Some(m) => format!("emit/dxop/{m}"),
                None => {
                    let mut reasons: Vec<&str> = row
                        .stages
                        .iter()
                        .filter(|c| matches!(c.status, "refused" | "reserved"))
                        .filter_map(|c| c.reason.as_deref())
                        .collect();
                    reasons.dedup();
                    reasons.join("; ")
                }
            };
            let opcode = if row.opcode >= untangle::dxil::opcodes::EXPERIMENTAL_BASE {
                format!("{:#x}", row.opcode)
            } else {
                row.opcode.to_string()
            };
            let _ = writeln!(out, "{opcode:>10} {:<53} {:<4} {}  {how}", row.name, row.shader_model, cells.join(" "));
        }
        let lowered = rows.iter().filter(|r| r.is_lowered_somewhere()).count();
        let _ = writeln!(out, "{} operations, {lowered} lowered in at least one stage", rows.len());
        return print_all(&out);
    };
    let shader = untangle::Shader::from_loaded(crate::load(file)?).map_err(|e| Failure::lib(file, e))?;
    let stage = shader.stage();
    let rows: Vec<FileOp> = untangle::dxil::op_uses(shader.module())
        .into_iter()
        .map(|u| {
            let cell = u32::try_from(u.opcode)
                .ok()
                .and_then(untangle::dxil::DxOp::from_u32)
                .map(|op| StageCoverage::new(stage, support(op, stage)));
            FileOp {
                opcode: u.opcode,
                name: u.op.map(str::to_string).or(u.function).unwrap_or_default(),
                calls: u.count,
                status: cell.as_ref().map_or("unknown_opcode", |c| c.status),
                module: cell.as_ref().and_then(|c| c.module),
                reason: match cell {
                    Some(c) => c.reason,
                    None => Some("newer than DXIL 1.9 (not in the operation table)".into()),
                },
            }
        })
        .collect();
    let sm = shader.shader_model();
    let profile = format!("{}_{}_{}", sm.profile, sm.major, sm.minor);
    if json {
        let ops: Vec<serde_json::Value> = rows.iter().map(FileOp::to_json).collect();
        let v = serde_json::json!({ "profile": profile, "operations": ops });
        return print_all(&format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default()));
    }
    let refused = rows.iter().filter(|r| r.status != "lowered").count();
    let mut out = String::new();
    let _ = writeln!(out, "{profile}: {} operations, {refused} refused", rows.len());
    for r in &rows {
        let how = match (r.module, &r.reason) {
            (Some(m), _) => format!("lowered (emit/dxop/{m})"),
            (None, Some(reason)) => format!("refused: {reason}"),
            (None, None) => String::new(),
        };
        let _ = writeln!(out, "  {:>3} {:<40} x{:<5} {how}", r.opcode, r.name, r.calls);
    }
    print_all(&out)
}

/// One operation a file calls, for `info --ops FILE`.
struct FileOp {
    opcode: u64,
    /// The operation's name (the callee's for an unknown opcode).
    name: String,
    calls: usize,
    /// A [`StageCoverage`] status, or `unknown_opcode`.
    status: &'static str,
    module: Option<&'static str>,
    reason: Option<String>,
}

impl FileOp {
    /// `{opcode, name, calls, status, module?, reason?}` (docs/cli-json.md).
    fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "opcode": self.opcode, "name": self.name, "calls": self.calls, "status": self.status,
        });
        if let Some(m) = self.module {
            v["module"] = m.into();
        }
        if let Some(r) = &self.reason {
            v["reason"] = r.as_str().into();
        }
        v
    }
}

/// Writes `text` to standard output; a closed pipe (`| head`) is not an error.
fn print_all(text: &str) -> Result<(), Failure> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    Ok(())
}

/// `untangle ir`: the module in untangle's IR (LLVM-like text).
pub fn ir(file: &Path) -> Result<(), Failure> {
    let loaded = crate::load(file)?;
    print!("{}", untangle::ir::dump::Dumper::new(&loaded.module).module());
    Ok(())
}

/// `untangle cfg`: per function, the CFG analyses as text or JSON; `--dot DIR` writes each
/// function's input CFG.
pub fn cfg(file: &Path, json: bool, dot: Option<&Path>) -> Result<(), Failure> {
    let loaded = crate::load(file)?;
    let m = &loaded.module;
    let fail = |e: untangle::cfg::CfgError| Failure::lib(file, e);
    if json {
        let v = untangle::cfg::report::render_json(m).map_err(fail)?;
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        print!("{}", untangle::cfg::report::render_text(m).map_err(fail)?);
    }
    if let Some(dir) = dot {
        std::fs::create_dir_all(dir).map_err(|e| Failure::lib(dir, e))?;
        untangle::cfg::report::write_dot(m, dir).map_err(|e| Failure::lib(dir, e))?;
    }
    Ok(())
}
