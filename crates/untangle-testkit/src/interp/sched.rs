//! Running a dispatch: thread groups one after another, the threads of a group
//! interleaved at wave operations and barriers.
//!
//! Execution model (a valid D3D execution, chosen to be simple and deterministic):
//!
//! 1. every runnable thread runs, in the schedule's order, until it stops at a wave
//!    operation, a group barrier or the end;
//! 2. in each wave, the lanes stopped at a wave operation are grouped by dynamic
//!    instance (instruction plus iteration of every enclosing loop); the smallest instance
//!    runs for its lanes, which become runnable; back to 1;
//! 3. when nothing can run: if every unfinished thread of the group waits at a barrier,
//!    all are released; a barrier that some threads never reach (they finished) is
//!    undefined in D3D and makes the run indeterminate.
//!
//! Waves are consecutive flattened thread ids (`SV_GroupIndex`), `wave_size` lanes each.
//! Groups run in the schedule's order, each to completion. Different [`Schedule`]s give
//! other valid interleavings; the harness compares runs under several schedules to find
//! outputs that depend on the order (races, atomics' return values) and excludes them.

use super::exec::{internal, step, Ctx, RunError, Status, Thread, R};
use super::float::Narrowing;
use super::memory::Mem;
use super::program::Program;
use super::resources::Resources;

/// A wave operation's dynamic instance: loop iterations, then the instruction.
type InstanceKey = (Vec<u32>, u32);

/// The order threads and groups take turns in.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Schedule {
    Forward,
    Reverse,
    /// A permutation drawn from this seed.
    Shuffled(u64),
}

#[derive(Clone, Debug)]
pub struct Config {
    pub wave_size: u32,
    pub groups: [u32; 3],
    pub schedule: Schedule,
    /// Most instructions one thread may run (a hang guard).
    pub step_limit: u64,
    /// How narrowing float conversions round ([`Narrowing`]).
    pub narrowing: Narrowing,
}

/// What a run found out beyond its results.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RunInfo {
    /// A narrowing float conversion met a value that round-to-nearest-even and
    /// round-toward-zero convert differently: another [`Narrowing`] may give other results.
    pub narrowing_differs: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            wave_size: 32,
            groups: [1, 1, 1],
            schedule: Schedule::Forward,
            step_limit: 1 << 20,
            narrowing: Narrowing::NearestEven,
        }
    }
}

fn order(n: usize, s: Schedule) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    match s {
        Schedule::Forward => {}
        Schedule::Reverse => v.reverse(),
        Schedule::Shuffled(seed) => {
            let mut rng = crate::fuzzing::mutate::SplitMix64::new(seed);
            for i in (1..n).rev() {
                let j = (rng.next_u64() % (i as u64 + 1)) as usize;
                v.swap(i, j);
            }
        }
    }
    v
}

/// Runs the whole dispatch over `res`, which holds the results afterwards.
pub fn run(p: &Program, res: &mut Resources, cfg: &Config) -> R<RunInfo> {
    if cfg.wave_size == 0 || cfg.wave_size > 128 {
        return internal(format!("wave size {}", cfg.wave_size));
    }
    let [gx, gy, gz] = cfg.groups;
    let mut groups = Vec::new();
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                groups.push([x, y, z]);
            }
        }
    }
    let mut constants: Vec<Mem> = p.globals.iter().map(|g| g.init.clone()).collect();
    let mut info = RunInfo::default();
    for gi in order(groups.len(), cfg.schedule) {
        // Groupshared memory is fresh (undefined) per group; constants persist.
        let mut globals: Vec<Mem> = p
            .globals
            .iter()
            .zip(&constants)
            .map(|(g, c)| if g.groupshared { g.init.clone() } else { c.clone() })
            .collect();
        let mut ctx = Ctx {
            p,
            res,
            globals: &mut globals,
            wave_size: cfg.wave_size,
            groups: cfg.groups,
            step_limit: cfg.step_limit,
            narrowing: cfg.narrowing,
            narrowing_differs: false,
            schedule: cfg.schedule,
        };
        run_group(&mut ctx, groups[gi], cfg.schedule)?;
        info.narrowing_differs |= ctx.narrowing_differs;
        for (k, g) in p.globals.iter().enumerate() {
            if !g.groupshared {
                constants[k] = globals[k].clone();
            }
        }
    }
    Ok(info)
}

fn run_group(ctx: &mut Ctx, gid: [u32; 3], schedule: Schedule) -> R<()> {
    let p = ctx.p;
    let [nx, ny, nz] = p.num_threads;
    let mut threads = Vec::with_capacity((nx * ny * nz) as usize);
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                threads.push(Thread::new(p, [x, y, z], gid, ctx.wave_size));
            }
        }
    }
    let turn = order(threads.len(), schedule);
    let ws = ctx.wave_size as usize;
    loop {
        for &i in &turn {
            while threads[i].status == Status::Run {
                step(ctx, &mut threads[i])?;
            }
        }
        let mut progressed = false;
        for w in 0..threads.len().div_ceil(ws) {
            let range = w * ws..((w + 1) * ws).min(threads.len());
            let mut best: Option<(InstanceKey, Vec<usize>)> = None;
            for i in range {
                let Status::Wave(inst) = threads[i].status else { continue };
                let key = threads[i].instance_key(inst);
                match &mut best {
                    Some((k, lanes)) if *k == key => lanes.push(i),
                    Some((k, _)) if *k < key => {}
                    _ => best = Some((key, vec![i])),
                }
            }
            if let Some(((_, inst), lanes)) = best {
                super::wave::execute(ctx, &mut threads, &lanes, untangle::ir::InstId::from_u32(inst))?;
                progressed = true;
            }
        }
        if progressed {
            continue;
        }
        let waiting = threads.iter().filter(|t| matches!(t.status, Status::Barrier(_))).count();
        let done = threads.iter().filter(|t| t.status == Status::Done).count();
        if done == threads.len() {
            return Ok(());
        }
        if waiting + done == threads.len() {
            if done > 0 {
                return Err(RunError::Indeterminate("a group barrier that some threads never reach".into()));
            }
            for t in &mut threads {
                t.status = Status::Run;
                t.pos += 1;
            }
            continue;
        }
        return internal("no thread can make progress");
    }
}
