//! Every function of the shared corpus analyses: `../shared/corpus/cfg/csmith/*.ll`
//! (optimizer-shaped, possibly irreducible) and `../shared/corpus/dxil/**/*.dxil` (always
//! reducible). Irreducible functions must give the typed error; functions small enough are
//! also checked query by query against the brute-force oracle.

use std::path::{Path, PathBuf};
use untangle::cfg::{Cfg, CfgError};
use untangle_testkit::check::cfg_compare::compare_with_oracle;
use untangle_testkit::check::cfg_oracle::CfgOracle;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");
/// Functions up to this size are compared with the oracle (it is O(n²·e)).
const ORACLE_LIMIT: usize = 250;

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

#[derive(Default, Debug, PartialEq)]
struct Tally {
    files: usize,
    unloadable: usize,
    functions: usize,
    analysed: usize,
    irreducible: usize,
    oracle_checked: usize,
    blocks: usize,
}

fn run(paths: &[PathBuf]) -> Tally {
    let mut t = Tally::default();
    for path in paths {
        t.files += 1;
        let loaded = match untangle::front::load_path(path) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("{}: not loadable: {e}", path.display());
                t.unloadable += 1;
                continue;
            }
        };
        for (_, func) in loaded.module.defined_functions() {
            t.functions += 1;
            t.blocks += func.layout.len();
            let small = func.layout.len() <= ORACLE_LIMIT;
            let oracle = small.then(|| CfgOracle::new(func));
            match Cfg::new(func) {
                Ok(cfg) => {
                    t.analysed += 1;
                    if let Some(o) = &oracle {
                        assert!(o.is_reducible(), "{}: {} accepted but irreducible", path.display(), func.name);
                        if let Err(e) = compare_with_oracle(func, &cfg, o) {
                            panic!("{}: {}: {e}", path.display(), func.name);
                        }
                        t.oracle_checked += 1;
                    }
                }
                Err(CfgError::Irreducible { function, blocks }) => {
                    assert_eq!(function, func.name);
                    assert!(blocks.len() >= 2, "{}: {function}: {blocks:?}", path.display());
                    if let Some(o) = &oracle {
                        assert!(!o.is_reducible(), "{}: {} rejected but reducible", path.display(), func.name);
                    }
                    t.irreducible += 1;
                }
                Err(e) => panic!("{}: {}: {e}", path.display(), func.name),
            }
        }
    }
    t
}

#[test]
fn csmith_functions_analyse() {
    let mut paths = Vec::new();
    files(&Path::new(CORPUS).join("cfg/csmith"), "ll", &mut paths);
    paths.sort();
    let t = run(&paths);
    eprintln!("csmith: {t:?}");
    assert_eq!(t.files, 257);
    assert_eq!(t.unloadable, 0);
    assert_eq!(t.functions, CSMITH_FUNCTIONS);
    assert_eq!(t.irreducible, CSMITH_IRREDUCIBLE);
    assert_eq!(t.analysed + t.irreducible, t.functions);
    assert_eq!(t.oracle_checked, CSMITH_ORACLE_CHECKED);
}

#[test]
fn dxil_functions_analyse() {
    let mut paths = Vec::new();
    files(&Path::new(CORPUS).join("dxil"), "dxil", &mut paths);
    paths.sort();
    let t = run(&paths);
    eprintln!("dxil: {t:?}");
    assert_eq!(t.files, 273);
    assert_eq!(t.unloadable, DXIL_UNLOADABLE);
    assert_eq!(t.functions, DXIL_FUNCTIONS);
    // DXIL is reducible by validator rule.
    assert_eq!(t.irreducible, 0);
    assert_eq!(t.analysed, t.functions);
}

// Observed counts. The corpus README warns that some csmith functions "may be
// irreducible"; clang -O2 left all 257 reducible (28,556 blocks in all). The DXIL files hold
// 337 defined functions with 673 blocks.
const CSMITH_FUNCTIONS: usize = 257;
const CSMITH_IRREDUCIBLE: usize = 0;
const CSMITH_ORACLE_CHECKED: usize = 254;
const DXIL_UNLOADABLE: usize = 0;
const DXIL_FUNCTIONS: usize = 337;
