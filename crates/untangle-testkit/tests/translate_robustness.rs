//! Malformed DXIL never panics the translator: seeded mutations of loaded corpus modules
//! (a `dx.op` call's argument, or any instruction operand, replaced by a random constant of
//! the module, which breaks opcodes, resource ids, types and shapes) must give `Ok` or a
//! typed error. `UNTANGLE_TRANSLATE_MUTATIONS` overrides the number of mutants per file.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use untangle::emit::{translate_module, Options};
use untangle::ir::{ConstId, InstKind, Module, Value};
use untangle_testkit::fuzzing::mutate::SplitMix64 as Rng;

fn mutate(m: &mut Module, rng: &mut Rng) {
    let consts = m.constants.len();
    if consts == 0 {
        return;
    }
    let Some(fid) = m.defined_functions().map(|(id, _)| id).next() else { return };
    let f = &mut m.functions[fid];
    let insts: Vec<_> = f.insts.keys().collect();
    for _ in 0..1 + rng.below(3) {
        let Some(&i) = rng.pick(&insts) else { return };
        let c = Value::Const(ConstId::from_u32(rng.below(consts) as u32));
        match &mut f.insts[i].kind {
            InstKind::Call { args, .. } if !args.is_empty() => {
                let k = rng.below(args.len());
                args[k] = c;
            }
            InstKind::Binary { lhs, .. } => *lhs = c,
            InstKind::Select { cond, .. } => *cond = c,
            InstKind::ExtractValue { aggregate, .. } => *aggregate = c,
            InstKind::Store { value, .. } => *value = c,
            InstKind::Cast { value, .. } => *value = c,
            _ => {}
        }
    }
}

#[test]
fn mutated_modules_give_typed_errors() {
    let per_file: usize = std::env::var("UNTANGLE_TRANSLATE_MUTATIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(25);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("{} not found: skipping", dir.display());
        return;
    };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    let paths: Vec<_> = paths
        .into_iter()
        .filter(|p| {
            let n = p.to_string_lossy();
            n.contains(".cs_6_") || n.contains(".ps_6_") || n.contains(".vs_6_")
        })
        .step_by(4)
        .collect();
    let mut rng = Rng::new(0x7a11_5eed);
    let (mut ok, mut err) = (0usize, 0usize);
    for p in &paths {
        let base = untangle::load::load_path(p).expect("corpus file loads").module;
        for k in 0..per_file {
            let mut m = base.clone();
            mutate(&mut m, &mut rng);
            let r = catch_unwind(AssertUnwindSafe(|| translate_module(&m, &Options::default())));
            match r {
                Ok(Ok(_)) => ok += 1,
                Ok(Err(e)) => {
                    assert!(!e.to_string().is_empty());
                    err += 1;
                }
                Err(_) => panic!("{}: mutant {k} panicked", p.display()),
            }
        }
    }
    eprintln!("{} mutants: {ok} translated, {err} typed errors", ok + err);
    assert!(err > 0, "the mutations must break something");
}
