//! Differential execution (issue 20): a shader's DXIL run by the reference interpreter
//! ([`crate::interp`]) against its translated SPIR-V run on a Vulkan device, on seeded
//! random contents for every resource it declares; every UAV word compared.
//!
//! * [`inputs`]: random resource contents from the DXIL resource table;
//! * [`reference`]: the interpreter's result under several schedules; words whose value
//!   depends on the schedule (races, atomics' return values, the order groups run in) are
//!   marked undefined and not compared; [`reference_variants`]: one such result per
//!   rounding of narrowing float conversions D3D allows (to nearest even, toward zero);
//! * [`compare`], [`compare_variants`]: bit-exact where D3D is exact, within the ULP tolerance D3D allows
//!   otherwise (any NaN matches a NaN), skipped where D3D leaves the value open; a word
//!   matching any allowed variant matches;
//! * `gpu` (feature `vulkan`): translating, binding through the default placement and
//!   dispatching; the corpus and generated-program drivers and their reports;
//! * [`heap_sets`]: where the translation's descriptor-heap arrays live (moved for
//!   devices with few descriptor sets);
//! * [`reduce`]: shrinking a mismatching program while the mismatch persists;
//! * [`sabotage`]: deliberately broken lowerings the runs must catch.

#[cfg(feature = "vulkan")]
pub mod gpu;
pub mod heap_sets;
pub mod inputs;
pub mod known;
pub mod reduce;
pub mod sabotage;

use crate::interp::float::{self, Fk, Narrowing};
use crate::interp::memory::FkTag;
use crate::interp::{Config, Program, Resources, RunError, Schedule};
use untangle::dxil::ResourceClass;

/// The schedules a reference run compares (see [`crate::interp::sched`]).
pub const SCHEDULES: [Schedule; 3] = [Schedule::Forward, Schedule::Reverse, Schedule::Shuffled(0x5c4e_d01e)];

/// Runs `p` over `res` under every schedule of [`SCHEDULES`]; returns the first run's
/// resources with every byte that differs between runs marked undefined. Narrowing float
/// conversions round to nearest even (see [`reference_variants`] for the other mode).
pub fn reference(p: &Program, res: &Resources, wave_size: u32, groups: [u32; 3]) -> Result<Resources, RunError> {
    Ok(schedules(p, res, wave_size, groups, Narrowing::NearestEven)?.0)
}

/// The results D3D allows, one [`Resources`] per variant (each as [`reference`] gives it):
/// round-to-nearest-even narrowing conversions, and, when some conversion of the run rounds
/// differently toward zero, round-toward-zero ones (D3D leaves the mode to the device: see
/// [`crate::interp::float::Narrowing`]). [`compare_variants`] accepts a word any variant
/// accepts.
///
/// Limits: a device is taken to round every narrowing conversion of a dispatch one way
/// (per word: different words may match different variants); a device mixing modes
/// within one data path (one conversion RNE, a later one RTZ) is not modelled. The
/// variants propagate through everything the shader does afterwards (arithmetic,
/// bitcasts, branches), since each is a whole run.
pub fn reference_variants(
    p: &Program,
    res: &Resources,
    wave_size: u32,
    groups: [u32; 3],
) -> Result<Vec<Resources>, RunError> {
    let (nearest, differs) = schedules(p, res, wave_size, groups, Narrowing::NearestEven)?;
    let mut out = vec![nearest];
    if differs {
        out.push(schedules(p, res, wave_size, groups, Narrowing::TowardZero)?.0);
    }
    Ok(out)
}

/// [`reference`] under one narrowing mode; also whether any run met a conversion that the
/// other mode rounds differently.
fn schedules(
    p: &Program,
    res: &Resources,
    wave_size: u32,
    groups: [u32; 3],
    narrowing: Narrowing,
) -> Result<(Resources, bool), RunError> {
    let mut first: Option<Resources> = None;
    let mut differs = false;
    for &schedule in &SCHEDULES {
        let mut r = res.clone();
        let cfg = Config { wave_size, groups, schedule, narrowing, ..Config::default() };
        differs |= crate::interp::run(p, &mut r, &cfg)?.narrowing_differs;
        match &mut first {
            None => first = Some(r),
            Some(f) => {
                for (a, b) in f.list.iter_mut().zip(&r.list) {
                    for i in 0..a.mem.len() {
                        if a.mem.bytes[i] != b.mem.bytes[i] || a.mem.tags[i].acc != b.mem.tags[i].acc {
                            a.mem.tags[i].acc = crate::interp::value::Acc::ANY;
                        }
                    }
                }
            }
        }
    }
    Ok((first.expect("at least one schedule"), differs))
}

/// One word that differs.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// `u3, space0` and the element of an array.
    pub register: String,
    pub byte_offset: usize,
    pub want: u32,
    pub got: u32,
    /// What the reference allowed: `exact`, `N ulp (float)` ...
    pub rule: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} byte {}: interpreter {:#010x}, device {:#010x} ({})",
            self.register, self.byte_offset, self.want, self.got, self.rule
        )
    }
}

/// How many words were compared and skipped (D3D leaves them open).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub compared: usize,
    pub skipped: usize,
}

/// Compares the UAVs of `reference` with the device's bytes (`got[i]` for
/// `reference.list[i]`; `None`: not bound, not compared).
pub fn compare(reference: &Resources, got: &[Option<Vec<u8>>]) -> (Vec<Mismatch>, Counts) {
    compare_variants(std::slice::from_ref(reference), got)
}

/// Compares the UAVs of the variants D3D allows ([`reference_variants`], all of one
/// program and input) with the device's bytes: a word matches when it matches some
/// variant; it is skipped when some variant leaves it open. A mismatch reports the first
/// variant's value and rule.
pub fn compare_variants(variants: &[Resources], got: &[Option<Vec<u8>>]) -> (Vec<Mismatch>, Counts) {
    let mut out = Vec::new();
    let mut counts = Counts::default();
    let Some(reference) = variants.first() else { return (out, counts) };
    for (k, (r, g)) in reference.list.iter().zip(got).enumerate() {
        if r.class != ResourceClass::Uav {
            continue;
        }
        let Some(g) = g else { continue };
        let reg = format!("{}{}, space{}", r.class.register_letter(), r.register, r.space);
        let n = r.mem.len().min(g.len()) / 4;
        for w in 0..n {
            let o = 4 * w;
            let checks: Vec<Word> = variants.iter().map(|v| check_word(&v.list[k].mem, g, o)).collect();
            if checks.iter().any(|c| matches!(c, Word::Open)) {
                counts.skipped += 1;
                continue;
            }
            counts.compared += 1;
            if checks.iter().any(|c| matches!(c, Word::Ok)) {
                continue;
            }
            if let Word::Bad { want, got, rule } = &checks[0] {
                out.push(Mismatch {
                    register: reg.clone(),
                    byte_offset: o,
                    want: *want,
                    got: *got,
                    rule: rule.clone(),
                });
            }
        }
    }
    (out, counts)
}

/// One word of one reference variant against the device's.
enum Word {
    Open,
    Ok,
    Bad { want: u32, got: u32, rule: String },
}

/// Bit-exact where D3D is exact, within the ULP tolerance D3D allows otherwise (any NaN
/// matches a NaN); `Open` where D3D leaves the word open.
fn check_word(mem: &crate::interp::memory::Mem, g: &[u8], o: usize) -> Word {
    let tags = &mem.tags[o..o + 4];
    let want = u32::from_le_bytes(mem.bytes[o..o + 4].try_into().expect("4 bytes"));
    let got = u32::from_le_bytes(g[o..o + 4].try_into().expect("4 bytes"));
    if tags.iter().any(|t| t.acc.is_any()) {
        return Word::Open;
    }
    let fk = tags[0].fk;
    let tol = tags.iter().map(|t| t.acc.tolerance()).max().unwrap_or(0) as u64;
    let ok = match fk {
        Some(FkTag::F) if tags.iter().all(|t| t.fk == Some(FkTag::F)) => {
            float::ulp_distance(want as u64, got as u64, Fk::F) <= tol
        }
        Some(FkTag::H) => (0..2).all(|h| {
            let (x, y) = ((want >> (16 * h)) & 0xffff, (got >> (16 * h)) & 0xffff);
            match tags[2 * h].fk {
                Some(FkTag::H) => float::ulp_distance(x as u64, y as u64, Fk::H) <= tol,
                _ => x == y,
            }
        }),
        Some(FkTag::D) => {
            // Compare the whole double this word belongs to.
            let base = o & !7;
            if base + 8 <= mem.len() && base + 8 <= g.len() {
                let x = u64::from_le_bytes(mem.bytes[base..base + 8].try_into().expect("8"));
                let y = u64::from_le_bytes(g[base..base + 8].try_into().expect("8"));
                float::ulp_distance(x, y, Fk::D) <= tol
            } else {
                want == got
            }
        }
        _ => want == got,
    };
    if ok {
        return Word::Ok;
    }
    let rule = match (fk, tol) {
        (None, _) => "exact".to_string(),
        (Some(k), 0) => format!("exact {:?} (any NaN)", k.fk()),
        (Some(k), t) => format!("{t} ulp {:?}", k.fk()),
    };
    Word::Bad { want, got, rule }
}
