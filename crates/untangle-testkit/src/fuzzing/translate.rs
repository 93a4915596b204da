//! The whole translate path under mutation: seeded mutants of corpus shaders go through
//! `untangle::translate` and `Shader::parse` + `translate`, which must agree (or
//! `translate_module`), and every module that comes out
//! is checked by `spirv-val --target-env vulkan1.3`. An accepted input must give a valid
//! module; anything else must be a typed error; nothing may panic or hang. Shared by
//! `tests/translate_robustness.rs` (thousands of cases in CI) and
//! `examples/translate_mutations.rs` (the long run, parallel over all cores).
//!
//! Case `i` is reproducible from `i` alone. Three mutation kinds take turns (`i % 3`):
//!
//! 0. bytes: a [`Mutator`] mutant of a container (AFL moves and container fields; the size
//!    field patched in 60% of cases) through the full path, bitcode reader included;
//! 1. instructions: one to three operands of the entry function (a `dx.op` call argument,
//!    binary, select, extract, store or cast operands) replaced by a random constant of the
//!    module: opcodes, resource ids, types and shapes break;
//! 2. metadata: one to three value operands of the metadata (resource records, signature
//!    elements, entry properties, shader model) replaced by a random constant (with its
//!    type) or a nearby integer.

use super::mutate::{patch_container_size, Mutator, SplitMix64};
use std::path::Path;
use std::time::{Duration, Instant};
use untangle::ir::{ConstId, ConstKind, InstKind, MdRef, Module, Value};
use untangle::Options;
use untangle_spirv_tools::SpirvVal;

/// What one case did (a panic is not an outcome: it propagates to the caller's
/// `catch_unwind`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Refused before translation (container, bitcode, DXIL metadata).
    Rejected,
    /// A typed translation error; the label is its kind.
    Refused(String),
    /// `TranslateError::Internal`: typed, but the translator's own inconsistency (a check
    /// that should have refused the input earlier is missing); the message.
    Internal(String),
    /// Translated, and `spirv-val` accepts the module (or no validator was given).
    Valid,
    /// Translated to a module `spirv-val` rejects: the validator's first error.
    Invalid(String),
}

/// The seeds: every container of a corpus directory, parsed once.
pub struct Seeds {
    pub names: Vec<String>,
    pub bytes: Vec<Vec<u8>>,
    /// The parsed module of each seed (`None` if it does not load).
    pub modules: Vec<Option<Module>>,
}

impl Seeds {
    /// The compute, vertex, hull, domain, geometry and pixel shaders among the `.dxil` files
    /// of `dir` (named `*.<stage>_<major>_<minor>.dxil`, sorted): the stages the translator
    /// handles, so that mutants reach it.
    pub fn load(dir: &Path) -> Seeds {
        let translated = |p: &Path| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            n.ends_with(".dxil")
                && [".cs_6_", ".vs_6_", ".hs_6_", ".ds_6_", ".gs_6_", ".ps_6_"].iter().any(|s| n.contains(s))
        };
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .map(|d| d.flatten().map(|e| e.path()).filter(|p| translated(p)).collect())
            .unwrap_or_default();
        paths.sort();
        let mut seeds = Seeds { names: Vec::new(), bytes: Vec::new(), modules: Vec::new() };
        for p in paths {
            let Ok(bytes) = std::fs::read(&p) else { continue };
            seeds.modules.push(untangle::front::load_path(&p).ok().map(|l| l.module));
            seeds.names.push(p.file_name().unwrap_or_default().to_string_lossy().into_owned());
            seeds.bytes.push(bytes);
        }
        seeds
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// The mutant of case `i`: bytes to parse, or a module to translate directly.
pub enum Mutant {
    Bytes(Vec<u8>),
    Module(Box<Module>),
}

/// Builds case `i` (seed `i / 3 % seeds`, kind `i % 3`).
pub fn mutant(seeds: &Seeds, i: u64) -> Mutant {
    let n = seeds.len() as u64;
    let seed = ((i / 3) % n) as usize;
    let mut rng = SplitMix64::new(0x7472_616e_736c_6174 ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    match (i % 3, &seeds.modules[seed]) {
        (1, Some(m)) => {
            let mut m = m.clone();
            mutate_instructions(&mut m, &mut rng);
            Mutant::Module(Box::new(m))
        }
        (2, Some(m)) => {
            let mut m = m.clone();
            mutate_metadata(&mut m, &mut rng);
            Mutant::Module(Box::new(m))
        }
        _ => {
            let donors: Vec<&[u8]> = seeds.bytes.iter().map(Vec::as_slice).collect();
            let mut mutator = Mutator::new(rng.next_u64());
            let mut bytes = mutator.mutate(&seeds.bytes[seed], &donors);
            if mutator.rng.chance(60) {
                patch_container_size(&mut bytes);
            }
            Mutant::Bytes(bytes)
        }
    }
}

fn random_const(m: &Module, rng: &mut SplitMix64) -> Option<ConstId> {
    let n = m.constants.len();
    (n > 0).then(|| ConstId::from_u32(rng.below(n) as u32))
}

/// Replaces one to three instruction operands of the first defined function by constants.
pub fn mutate_instructions(m: &mut Module, rng: &mut SplitMix64) {
    let Some(fid) = m.defined_functions().map(|(id, _)| id).next() else { return };
    for _ in 0..1 + rng.below(3) {
        let Some(c) = random_const(m, rng) else { return };
        let c = Value::Const(c);
        let f = &mut m.functions[fid];
        let insts: Vec<_> = f.insts.keys().collect();
        let Some(&i) = rng.pick(&insts) else { return };
        match &mut f.insts[i].kind {
            InstKind::Call { args, .. } if !args.is_empty() => {
                let k = rng.below(args.len());
                args[k] = c;
            }
            InstKind::Binary { lhs, rhs, .. } => {
                if rng.chance(50) {
                    *lhs = c
                } else {
                    *rhs = c
                }
            }
            InstKind::Select { cond, .. } => *cond = c,
            InstKind::ExtractValue { aggregate, .. } => *aggregate = c,
            InstKind::Store { value, .. } => *value = c,
            InstKind::Cast { value, .. } => *value = c,
            _ => {}
        }
    }
}

/// Replaces one to three value operands of the metadata: by a random constant (type and
/// value), or an integer by a nearby one (so fields stay plausible more often).
pub fn mutate_metadata(m: &mut Module, rng: &mut SplitMix64) {
    let values: Vec<_> =
        m.metadata.iter().filter(|(_, md)| matches!(md, MdRef::Value { .. })).map(|(id, _)| id).collect();
    for _ in 0..1 + rng.below(3) {
        let Some(&id) = rng.pick(&values) else { return };
        let Some((ty, value)) = m.metadata.value(id) else { continue };
        let new = match value {
            Value::Const(c) if rng.chance(60) => match m.constants.get(c).kind {
                ConstKind::Int(v) => {
                    let delta = [1u64, 2, 3, 4, 8, 16, 31, 32, 255, u64::MAX][rng.below(10)];
                    let v = if rng.chance(50) { v.wrapping_add(delta) } else { v.wrapping_sub(delta) };
                    let Some(k) = (0..m.constants.len())
                        .map(|k| ConstId::from_u32(k as u32))
                        .find(|&k| m.constants.get(k).ty == ty && m.constants.get(k).kind == ConstKind::Int(v))
                    else {
                        // No such constant yet: any constant of the same type.
                        let same: Vec<ConstId> = (0..m.constants.len())
                            .map(|k| ConstId::from_u32(k as u32))
                            .filter(|&k| m.constants.get(k).ty == ty)
                            .collect();
                        let Some(&k) = rng.pick(&same) else { continue };
                        m.metadata.set_value(id, ty, Value::Const(k));
                        continue;
                    };
                    (ty, Value::Const(k))
                }
                _ => continue,
            },
            _ => {
                let Some(c) = random_const(m, rng) else { return };
                (m.constants.get(c).ty, Value::Const(c))
            }
        };
        m.metadata.set_value(id, new.0, new.1);
    }
}

/// Runs one mutant through the translator (and `val`).
pub fn exercise(mutant: &Mutant, val: Option<&SpirvVal>) -> Outcome {
    let result = match mutant {
        Mutant::Bytes(b) => {
            // The library's entry point (bitcode kept in the file's numbering) and the
            // reflecting route (`Shader::parse`, canonical numbering) must agree: the same
            // words, or both an error.
            let direct = untangle::translate(b, &Options::default());
            let shader = match untangle::Shader::parse(b) {
                Ok(s) => s.translate(&Options::default()),
                Err(e) => Err(e),
            };
            match (&direct, &shader) {
                (Ok(a), Ok(s)) if a.words != s.words => {
                    return Outcome::Internal("translate() and Shader::translate() give different words".into())
                }
                (Ok(_), Err(e)) | (Err(e), Ok(_)) => {
                    return Outcome::Internal(format!("only one of translate() and Shader::translate() fails: {e}"))
                }
                _ => {}
            }
            direct
        }
        Mutant::Module(m) => untangle::translate_module(m, &Options::default()),
    };
    classify(result, |words| val.map_or(Ok(()), |v| v.validate(words, "vulkan1.3")))
}

/// The outcome of a translation; `validate` checks a module that comes out.
pub fn classify(
    result: untangle::Result<untangle::Translation>,
    validate: impl FnOnce(&[u32]) -> Result<(), String>,
) -> Outcome {
    match result {
        Err(untangle::Error::Translate(untangle::TranslateError::Internal(m))) => Outcome::Internal(m),
        Err(untangle::Error::Translate(e)) => {
            let s = e.to_string();
            assert!(!s.is_empty());
            let debug = format!("{e:?}");
            Outcome::Refused(debug.split([' ', '{', '(']).next().unwrap_or("").to_string())
        }
        Err(e) => {
            let _ = e.to_string();
            Outcome::Rejected
        }
        Ok(t) => match validate(&t.words) {
            Err(msg) => {
                let first = msg.lines().find(|l| l.contains("error")).unwrap_or(msg.lines().next().unwrap_or(""));
                Outcome::Invalid(first.to_string())
            }
            _ => Outcome::Valid,
        },
    }
}

/// Figures of a run.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub cases: u64,
    pub rejected: u64,
    pub refused: std::collections::BTreeMap<String, u64>,
    pub valid: u64,
    /// (case, first validator error)
    pub invalid: Vec<(u64, String)>,
    /// (case, message) of internal errors
    pub internal: Vec<(u64, String)>,
    /// (case, panic message)
    pub panics: Vec<(u64, String)>,
    /// The slowest case and its time.
    pub slowest: (u64, Duration),
}

impl Tally {
    pub fn add(&mut self, i: u64, outcome: Result<Outcome, String>, took: Duration) {
        self.cases += 1;
        if took > self.slowest.1 {
            self.slowest = (i, took);
        }
        match outcome {
            Ok(Outcome::Rejected) => self.rejected += 1,
            Ok(Outcome::Refused(k)) => *self.refused.entry(k).or_default() += 1,
            Ok(Outcome::Valid) => self.valid += 1,
            Ok(Outcome::Invalid(e)) => self.invalid.push((i, e)),
            Ok(Outcome::Internal(m)) => self.internal.push((i, m)),
            Err(p) => self.panics.push((i, p)),
        }
    }

    pub fn merge(&mut self, o: Tally) {
        self.cases += o.cases;
        self.rejected += o.rejected;
        for (k, n) in o.refused {
            *self.refused.entry(k).or_default() += n;
        }
        self.valid += o.valid;
        self.invalid.extend(o.invalid);
        self.internal.extend(o.internal);
        self.panics.extend(o.panics);
        if o.slowest.1 > self.slowest.1 {
            self.slowest = o.slowest;
        }
    }

    /// Typed translation errors.
    pub fn refused_total(&self) -> u64 {
        self.refused.values().sum()
    }
}

/// Runs case `i` under `catch_unwind`, timing it.
pub fn run_case(seeds: &Seeds, i: u64, val: Option<&SpirvVal>) -> (Result<Outcome, String>, Duration) {
    let start = Instant::now();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let m = mutant(seeds, i);
        exercise(&m, val)
    }));
    let r = r.map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into())
    });
    (r, start.elapsed())
}
