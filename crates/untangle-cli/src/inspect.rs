//! `untangle info`, `untangle ir`, `untangle cfg`: describe an input without translating it.

use crate::failure::Failure;
use std::path::Path;
use untangle::emit::binding_model::{mapping, DefaultPlacement};

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
