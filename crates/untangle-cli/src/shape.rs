//! `untangle translate FILE -o OUT`: the full translation with default options, or with
//! `--shape` every function's structurized control flow as a trace program
//! (`untangle::emit::shape`), optionally dumping the graph after every structurizer pass.

use crate::failure::Failure;
use std::path::Path;
use untangle::emit::shape::ShapeOptions;
use untangle::passes::{self, Options, Scfg};

pub fn translate(
    file: &Path,
    shape: bool,
    output: &Path,
    dump_cfg: Option<&Path>,
    options: &ShapeOptions,
) -> Result<(), Failure> {
    let words = if shape {
        shape_module(file, dump_cfg, options)?
    } else {
        let bytes = crate::read_input(file)?;
        untangle::translate(&bytes, &untangle::Options::default()).map_err(|e| Failure::new(file, e))?.words
    };
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    crate::write_output(output, &bytes)
}

fn shape_module(file: &Path, dump_cfg: Option<&Path>, options: &ShapeOptions) -> Result<Vec<u32>, Failure> {
    let loaded = crate::load(file)?;
    if let Some(dir) = dump_cfg {
        std::fs::create_dir_all(dir).map_err(|e| Failure::lib(dir, e))?;
    }
    let mut structured = Vec::new();
    for (_, func) in loaded.module.defined_functions() {
        let result = match dump_cfg {
            None => passes::structurize(func, Options::default()),
            Some(dir) => {
                let mut dump_error: Option<std::io::Error> = None;
                let mut hook = |index: usize, pass: &str, scfg: &Scfg| {
                    if dump_error.is_none() {
                        if let Err(e) = passes::dot::write_pass_dot(dir, &func.name, index, pass, scfg) {
                            dump_error = Some(e);
                        }
                    }
                };
                let result = passes::structurize(func, Options { dump: Some(&mut hook), ..Options::default() });
                if let Some(e) = dump_error {
                    return Err(Failure::lib(dir, e));
                }
                result
            }
        };
        structured.push((func, result.map_err(|e| Failure::lib(file, e))?));
    }
    let pairs: Vec<_> = structured.iter().map(|(f, s)| (*f, s)).collect();
    untangle::emit::shape::emit_shape_module_with(&loaded.module, &pairs, options).map_err(|e| Failure::lib(file, e))
}
