//! Differential execution (issue 20): a shader's DXIL run by the reference interpreter
//! ([`crate::interp`]) against its translated SPIR-V run on a Vulkan device, on seeded
//! random contents for every resource it declares; every UAV word compared.
//!
//! * [`inputs`]: random resource contents from the DXIL resource table;
//! * [`reference`]: the interpreter's result under several schedules; words whose value
//!   depends on the schedule (races, atomics' return values, the order groups run in) are
//!   marked undefined and not compared;
//! * [`compare`]: bit-exact where D3D is exact, within the ULP tolerance D3D allows
//!   otherwise (any NaN matches a NaN), skipped where D3D leaves the value open;
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

use crate::interp::float::{self, Fk};
use crate::interp::memory::FkTag;
use crate::interp::{Config, Program, Resources, RunError, Schedule};
use untangle::dxil::ResourceClass;

/// The schedules a reference run compares (see [`crate::interp::sched`]).
pub const SCHEDULES: [Schedule; 3] = [Schedule::Forward, Schedule::Reverse, Schedule::Shuffled(0x5c4e_d01e)];

/// Runs `p` over `res` under every schedule of [`SCHEDULES`]; returns the first run's
/// resources with every byte that differs between runs marked undefined.
pub fn reference(p: &Program, res: &Resources, wave_size: u32, groups: [u32; 3]) -> Result<Resources, RunError> {
    let mut first: Option<Resources> = None;
    for &schedule in &SCHEDULES {
        let mut r = res.clone();
        crate::interp::run(p, &mut r, &Config { wave_size, groups, schedule, ..Config::default() })?;
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
    Ok(first.expect("at least one schedule"))
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
    let mut out = Vec::new();
    let mut counts = Counts::default();
    for (r, g) in reference.list.iter().zip(got) {
        if r.class != ResourceClass::Uav {
            continue;
        }
        let Some(g) = g else { continue };
        let reg = format!("{}{}, space{}", r.class.register_letter(), r.register, r.space);
        let n = r.mem.len().min(g.len()) / 4;
        for w in 0..n {
            let o = 4 * w;
            let tags = &r.mem.tags[o..o + 4];
            let want = u32::from_le_bytes(r.mem.bytes[o..o + 4].try_into().expect("4 bytes"));
            let got = u32::from_le_bytes(g[o..o + 4].try_into().expect("4 bytes"));
            if tags.iter().any(|t| t.acc.is_any()) {
                counts.skipped += 1;
                continue;
            }
            counts.compared += 1;
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
                    if base + 8 <= r.mem.len() && base + 8 <= g.len() {
                        let x = u64::from_le_bytes(r.mem.bytes[base..base + 8].try_into().expect("8"));
                        let y = u64::from_le_bytes(g[base..base + 8].try_into().expect("8"));
                        float::ulp_distance(x, y, Fk::D) <= tol
                    } else {
                        want == got
                    }
                }
                _ => want == got,
            };
            if !ok {
                let rule = match (fk, tol) {
                    (None, _) => "exact".to_string(),
                    (Some(k), 0) => format!("exact {:?} (any NaN)", k.fk()),
                    (Some(k), t) => format!("{t} ulp {:?}", k.fk()),
                };
                out.push(Mismatch { register: reg.clone(), byte_offset: o, want, got, rule });
            }
        }
    }
    (out, counts)
}
