//! A digest of the structurizer's output for a fixed set of functions, one line each, so two
//! builds can be compared for byte-identical output (`diff` the printouts): performance
//! work on the passes must not change what they produce.
//!
//!     cargo run --release -p untangle-testkit --example shape_digests -- [RANDOM_CASES] > digests.txt
//!
//! Per function: the words of its shape-mode module (`emit::shape`, names included) and the
//! structurizer's statistics; per file, its whole module in the default and the batch mode
//! (`ShapeOptions::batch`), and every tenth random function in both modes too. Functions:
//! every csmith function of the shared corpus (`../shared/corpus/cfg/csmith`), every function of the DXIL corpus (`../shared/corpus/dxil`,
//! plus the full translation of each file that translates), the scaling benchmark's shapes
//! at about 2,000 blocks, and `RANDOM_CASES` (default 20,000) random functions of
//! `structured_gen` in the size classes of `fuzz_structurizer`.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use untangle::emit::shape::{emit_shape_module, emit_shape_module_with, ShapeBatch, ShapeOptions};
use untangle::ir::{Function, Module};
use untangle::passes::{structurize, Options};
use untangle_testkit::fuzzing::shape_text::Shape;
use untangle_testkit::fuzzing::structured_gen::{generate, ShapeGenConfig};

fn digest(words: &[u32]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    words.hash(&mut h);
    h.finish()
}

/// One line for `func` of `module`.
fn line(name: &str, module: &Module, func: &Function) -> String {
    match structurize(func, Options::default()) {
        Ok(s) => match emit_shape_module(module, &[(func, &s)]) {
            Ok(words) => format!("{name} {:016x} {:?}", digest(&words), s.stats),
            Err(e) => format!("{name} emit error: {e}"),
        },
        Err(e) => format!("{name} structurize error: {e}"),
    }
}

/// The whole module of `functions` in the default and the batch mode.
fn module_line(name: &str, module: &Module, functions: &[&Function]) -> String {
    let structured: Result<Vec<_>, _> = functions.iter().map(|f| structurize(f, Options::default())).collect();
    let Ok(structured) = structured else { return format!("{name} module structurize error") };
    let pairs: Vec<_> = functions.iter().copied().zip(structured.iter()).collect();
    let batch = ShapeOptions {
        batch: Some(ShapeBatch { local_size: 16, decision_stride: 64, trace_stride: 512, out_of_line_helpers: true }),
    };
    let mut out = name.to_string();
    for options in [ShapeOptions::default(), batch] {
        match emit_shape_module_with(module, &pairs, &options) {
            Ok(words) => out.push_str(&format!(" {:016x}", digest(&words))),
            Err(e) => out.push_str(&format!(" emit error: {e}")),
        }
    }
    out
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn config_for(seed: u64) -> ShapeGenConfig {
    let mut c = ShapeGenConfig::default();
    match seed % 10 {
        0 => c.max_blocks = 600,
        1..=3 => c.max_blocks = 40,
        _ => {}
    }
    c
}

fn main() {
    let random: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    for (dir, ext) in [("cfg/csmith", "ll"), ("dxil", "dxil"), ("dxil", "ll")] {
        for path in files(&shared.join(dir), ext) {
            let rel = path.strip_prefix(&shared).unwrap_or(&path).display().to_string();
            let Ok(loaded) = untangle::front::load_path(&path) else {
                println!("{rel} load error");
                continue;
            };
            for (_, f) in loaded.module.defined_functions() {
                println!("{}", line(&format!("{rel}:{}", f.name), &loaded.module, f));
            }
            let functions: Vec<&Function> = loaded.module.defined_functions().map(|(_, f)| f).collect();
            println!("{}", module_line(&format!("{rel} module"), &loaded.module, &functions));
            if dir == "dxil" {
                if let Ok(t) = untangle::translate_module(&loaded.module, &untangle::Options::default()) {
                    println!("{rel} translate {:016x}", digest(&t.words));
                }
            }
        }
    }
    for shape in Shape::ALL {
        let text = shape.text(shape.count_for_blocks(2_000));
        let loaded = untangle::front::load_bytes(text.into_bytes(), "shape.ll").expect("generated text loads");
        for (_, f) in loaded.module.defined_functions() {
            println!("{}", line(&format!("shape:{}", shape.name()), &loaded.module, f));
        }
    }
    for seed in 0..random {
        let mut module = Module::default();
        let f = generate(seed, &config_for(seed), &mut module.types);
        module.functions.push(f.clone());
        println!("{}", line(&format!("random:{seed}"), &module, &f));
        if seed % 10 == 0 {
            println!("{}", module_line(&format!("random:{seed} module"), &module, &[&f]));
        }
    }
}
