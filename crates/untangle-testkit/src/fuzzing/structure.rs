//! Structure-aware mutation through both translate routes (issue 33): byte mutation rarely
//! makes a well-formed module with one wrong lane, opcode or index; these mutants are.
//! Shared by `tests/structure_mutations.rs` (10,000 cases in CI) and
//! `examples/structure_mutations.rs` (the long run).
//!
//! Case `i` of run `seed` is reproducible from the two alone. Even cases take the **text
//! route**: a seed module (a corpus container read natively, or a DXC `.ll` test, that
//! translates; every stage, libraries included: each entry is translated) is mutated in the IR, dumped as LLVM text ([`untangle::ir::dump`]) and
//! translated from that text, so the native text reader meets the mutant first. Odd cases
//! take the **bitcode route**: the records of a corpus container's bitcode
//! ([`super::bitstream`]) are mutated, written back as bitcode, put back in the container
//! and translated, so the native bitcode and container readers meet it first.
//!
//! IR mutations (one to three per mutant): an integer or float constant operand replaced
//! by an interesting value of its type (lanes, opcodes and their `i8`/`i32` class operands,
//! `createHandle` indices, GEP indices: 0, ±1, 10, −14, 2^31, 2^32−1, ...; NaN, ±inf, −0);
//! `dx.op` opcodes moved to another opcode the module uses, or next to one; an operand
//! swapped for another value of the same type (or any type); `extractvalue`/`insertvalue`
//! indices and `shufflevector` mask entries set to interesting values; phi incoming values
//! and blocks, and branch targets, redirected; a result type changed (a vector's width,
//! another type of the module); metadata values (resource and signature records)
//! replaced by interesting integers. In 30% of text mutants one token of the dump changes
//! too ([`mutate_text`]: an integer literal, a vector width). Record mutations: an integer or float constant, the
//! type of a constant run, a vector width or array length or integer width in the type
//! table, an instruction operand (relative value ids, type ids, flags) nudged or
//! exchanged, a metadata value or node operand redirected.
//!
//! Every outcome must be a typed error or a module `spirv-val` accepts; a panic is caught
//! and reported with its case number. `spirv-val` runs once per distinct module (most
//! mutants of a seed that still translate give one of a few modules).

use super::bitstream::{self, Block, Item};
use super::mutate::SplitMix64;
use super::translate::{classify, Outcome};
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};
use untangle::ir::{ConstId, ConstKind, Constant, FloatKind, InstKind, MdRef, Module, Terminator, Type, TypeId, Value};
use untangle::Options;
use untangle_spirv_tools::SpirvVal;

/// A seed of the bitcode route: the container and its bitcode's blocks.
pub struct BitcodeSeed {
    pub name: String,
    pub container: Vec<u8>,
    pub blocks: Vec<Block>,
}

/// The seeds of both routes, read once.
pub struct Seeds {
    /// Modules whose dump reads back as LLVM text and translates.
    pub text: Vec<(String, Module)>,
    pub bitcode: Vec<BitcodeSeed>,
}

impl Seeds {
    /// Every container of `containers` (libraries, mesh and amplification shaders too) and
    /// the `.ll` files of `ll`; text seeds are those that translate.
    pub fn load(containers: &Path, ll: &Path) -> Seeds {
        let files = |dir: &Path, ext: &str| {
            let mut v: Vec<_> = std::fs::read_dir(dir)
                .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == ext)).collect())
                .unwrap_or_default();
            v.sort();
            v
        };
        let name = |p: &Path| p.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let mut seeds = Seeds { text: Vec::new(), bitcode: Vec::new() };
        for p in files(containers, "dxil").into_iter().chain(files(ll, "ll")) {
            let Ok(bytes) = std::fs::read(&p) else { continue };
            let Ok(loaded) = untangle::front::load_bytes(bytes.clone(), &name(&p)) else { continue };
            let text = untangle::ir::dump::Dumper::new(&loaded.module).module();
            if translate_all(text.as_bytes()).is_ok() {
                seeds.text.push((name(&p), loaded.module));
            }
            if let Some(blocks) = untangle::front::bitcode_of(&bytes).ok().flatten().and_then(bitstream::read) {
                seeds.bitcode.push(BitcodeSeed { name: name(&p), container: bytes, blocks });
            }
        }
        seeds
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty() || self.bitcode.is_empty()
    }
}

/// Which reader meets a mutant first.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Route {
    Text,
    Bitcode,
}

/// The input of case `i` of run `run`: its route, seed name and bytes.
pub fn mutant(seeds: &Seeds, run: u64, i: u64) -> (Route, &str, Vec<u8>) {
    let mut rng = SplitMix64::new(run ^ 0x5354_5255_4354_5552 ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    if i.is_multiple_of(2) {
        let (name, seed) = &seeds.text[(i / 2 % seeds.text.len() as u64) as usize];
        let mut m = seed.clone();
        for _ in 0..1 + rng.below(3) {
            mutate_ir(&mut m, &mut rng);
        }
        let mut text = untangle::ir::dump::Dumper::new(&m).module();
        if rng.chance(30) {
            mutate_text(&mut text, &mut rng);
        }
        (Route::Text, name, text.into_bytes())
    } else {
        let seed = &seeds.bitcode[(i / 2 % seeds.bitcode.len() as u64) as usize];
        let mut blocks = seed.blocks.clone();
        for _ in 0..1 + rng.below(3) {
            mutate_records(&mut blocks, &mut rng);
        }
        let bytes = bitstream::write(&blocks)
            .and_then(|bc| bitstream::replace_program(&seed.container, &bc))
            .unwrap_or_else(|| seed.container.clone());
        (Route::Bitcode, &seed.name, bytes)
    }
}

/// One token of the text: an integer literal after an integer type (`i32 7`) set to an
/// interesting value, or a vector width (`<4 x`) changed, at one random place: the text
/// reader meets types that disagree, the translator widths and values no IR mutation makes.
pub fn mutate_text(text: &mut String, rng: &mut SplitMix64) {
    let widths: Vec<usize> = text
        .match_indices(" x ")
        .filter(|(k, _)| {
            text[..*k].rfind('<').is_some_and(|l| text[l + 1..*k].bytes().all(|b| b.is_ascii_digit()) && *k > l + 1)
        })
        .map(|(k, _)| k)
        .collect();
    let ints: Vec<usize> = ["i32 ", "i8 ", "i16 ", "i64 ", "i1 "]
        .iter()
        .flat_map(|t| text.match_indices(t).map(|(k, t)| k + t.len()))
        .filter(|&k| text[k..].starts_with(|c: char| c.is_ascii_digit() || c == '-'))
        .collect();
    if rng.chance(30) && !widths.is_empty() {
        let end = widths[rng.below(widths.len())];
        let start = text[..end].rfind('<').unwrap_or(end) + 1;
        let n = [1, 2, 3, 4, 5, 8][rng.below(6)];
        text.replace_range(start..end, &n.to_string());
    } else if let Some(&start) = rng.pick(&ints) {
        let len = text[start + 1..].find(|c: char| !c.is_ascii_digit()).map_or(text.len() - start, |l| l + 1);
        text.replace_range(start..start + len, &interesting(rng).to_string());
    }
}

/// Integers that break indices, opcodes, widths and ranges.
const INTERESTING: [i64; 24] = [
    0,
    1,
    2,
    3,
    4,
    5,
    7,
    8,
    10,
    15,
    16,
    31,
    32,
    64,
    255,
    256,
    65535,
    -1,
    -2,
    -14,
    i32::MAX as i64,
    i32::MIN as i64,
    u32::MAX as i64,
    i64::MIN,
];

fn interesting(rng: &mut SplitMix64) -> i64 {
    INTERESTING[rng.below(INTERESTING.len())]
}

fn interesting_float(kind: FloatKind, rng: &mut SplitMix64) -> Option<u64> {
    let k = rng.below(6);
    Some(match kind {
        FloatKind::Half => [0x7e00, 0x7c00, 0xfc00, 0x8000, 0x0001, 0x7bff][k],
        FloatKind::Float => [0x7fc0_0000, 0x7f80_0000, 0xff80_0000, 0x8000_0000, 0x0000_0001, 0x7f7f_ffff][k],
        FloatKind::Double => [
            0x7ff8_0000_0000_0000,
            0x7ff0_0000_0000_0000,
            0xfff0_0000_0000_0000,
            0x8000_0000_0000_0000,
            1,
            0x7fef_ffff_ffff_ffff,
        ][k],
        _ => return None,
    })
}

/// A constant of `ty` (an integer or float type) with an interesting value.
fn interesting_const(m: &mut Module, ty: TypeId, rng: &mut SplitMix64) -> Option<ConstId> {
    let kind = match *m.types.get(ty) {
        Type::Int(bits) if bits <= 64 => {
            let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            ConstKind::Int(interesting(rng) as u64 & mask)
        }
        Type::Float(k) => ConstKind::Float(interesting_float(k, rng)?),
        _ => return None,
    };
    Some(m.constants.intern(Constant { ty, kind }))
}

fn value_type(m: &Module, f: &untangle::ir::Function, v: Value) -> Option<TypeId> {
    match v {
        Value::Inst(i) => Some(f.insts[i].ty),
        Value::Arg(k) => Some(f.params.get(k as usize)?.ty),
        Value::Const(c) => Some(m.constants.get(c).ty),
        _ => None,
    }
}

/// The value operands of an instruction, in place, in [`InstKind::operands`]'s order.
fn operands_mut(kind: &mut InstKind) -> Vec<&mut Value> {
    match kind {
        InstKind::Phi { incoming } => incoming.iter_mut().map(|(v, _)| v).collect(),
        InstKind::Binary { lhs, rhs, .. } | InstKind::ICmp { lhs, rhs, .. } | InstKind::FCmp { lhs, rhs, .. } => {
            vec![lhs, rhs]
        }
        InstKind::FNeg { value } | InstKind::Cast { value, .. } | InstKind::Freeze { value } => vec![value],
        InstKind::Select { cond, if_true, if_false } => vec![cond, if_true, if_false],
        InstKind::ExtractValue { aggregate, .. } => vec![aggregate],
        InstKind::InsertValue { aggregate, element, .. } => vec![aggregate, element],
        InstKind::ExtractElement { vector, index } => vec![vector, index],
        InstKind::InsertElement { vector, element, index } => vec![vector, element, index],
        InstKind::ShuffleVector { lhs, rhs, .. } => vec![lhs, rhs],
        InstKind::Alloca { count, .. } => vec![count],
        InstKind::Load { ptr, .. } => vec![ptr],
        InstKind::Store { ptr, value, .. } | InstKind::AtomicRmw { ptr, value, .. } => vec![ptr, value],
        InstKind::GetElementPtr { base, indices, .. } => std::iter::once(base).chain(indices.iter_mut()).collect(),
        InstKind::CmpXchg { ptr, expected, replacement, .. } => vec![ptr, expected, replacement],
        InstKind::Call { callee, args } => std::iter::once(callee).chain(args.iter_mut()).collect(),
        InstKind::VaArg { list } => vec![list],
        InstKind::Fence { .. } => Vec::new(),
    }
}

/// One IR mutation of the first defined function with instructions (or the metadata).
pub fn mutate_ir(m: &mut Module, rng: &mut SplitMix64) {
    let funcs: Vec<_> = m.defined_functions().filter(|(_, f)| !f.insts.is_empty()).map(|(id, _)| id).collect();
    let Some(&fid) = rng.pick(&funcs) else { return };
    let insts: Vec<_> = m.functions[fid].insts.keys().collect();
    let Some(&inst) = rng.pick(&insts) else { return };
    let blocks = m.functions[fid].layout.clone();
    match rng.below(10) {
        // A constant operand with an interesting value of its type.
        0..=2 => {
            let f = &m.functions[fid];
            let consts: Vec<(usize, TypeId)> = f.insts[inst]
                .kind
                .operands()
                .iter()
                .enumerate()
                .filter_map(|(k, v)| match *v {
                    Value::Const(c) if matches!(m.constants.get(c).kind, ConstKind::Int(_) | ConstKind::Float(_)) => {
                        Some((k, m.constants.get(c).ty))
                    }
                    _ => None,
                })
                .collect();
            let Some(&(k, ty)) = rng.pick(&consts) else { return };
            let Some(c) = interesting_const(m, ty, rng) else { return };
            set_operand(m, fid, inst, k, Value::Const(c));
        }
        // A `dx.op` opcode: another one the module uses, or one next to it.
        3 => {
            let opcodes: Vec<ConstId> = m
                .defined_functions()
                .flat_map(|(_, f)| f.insts.values())
                .filter_map(|i| match &i.kind {
                    InstKind::Call { args, .. } => match args.first() {
                        Some(Value::Const(c)) => Some(*c),
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            let f = &m.functions[fid];
            let calls: Vec<_> = f.insts.keys().filter(|&i| matches!(&f.insts[i].kind, InstKind::Call { args, .. } if matches!(args.first(), Some(Value::Const(_))))).collect();
            let (Some(&call), Some(&op)) = (rng.pick(&calls), rng.pick(&opcodes)) else { return };
            let c = m.constants.get(op).clone();
            let c = match c.kind {
                ConstKind::Int(v) if rng.chance(50) => {
                    let v = if rng.chance(50) { v.wrapping_add(1) } else { v.wrapping_sub(1) } & 0xffff_ffff;
                    m.constants.intern(Constant { ty: c.ty, kind: ConstKind::Int(v) })
                }
                _ => op,
            };
            set_operand(m, fid, call, 1, Value::Const(c));
        }
        // An operand swapped for another value: of the same type mostly.
        4 => {
            let f = &m.functions[fid];
            let n = f.insts[inst].kind.operands().len();
            if n == 0 {
                return;
            }
            let k = rng.below(n);
            let Some(ty) = value_type(m, f, f.insts[inst].kind.operands()[k]) else { return };
            let same = rng.chance(80);
            let mut candidates: Vec<Value> = f
                .insts
                .iter()
                .filter(|(i, d)| *i != inst && (!same || d.ty == ty) && !m.types.is_void(d.ty))
                .map(|(i, _)| Value::Inst(i))
                .collect();
            candidates
                .extend((0..f.params.len() as u32).filter(|&a| !same || f.params[a as usize].ty == ty).map(Value::Arg));
            let Some(&v) = rng.pick(&candidates) else { return };
            set_operand(m, fid, inst, k, v);
        }
        // Aggregate indices and shuffle masks.
        5 => {
            let v = interesting(rng);
            match &mut m.functions[fid].insts[inst].kind {
                InstKind::ExtractValue { indices, .. } | InstKind::InsertValue { indices, .. }
                    if !indices.is_empty() =>
                {
                    let k = rng.below(indices.len());
                    indices[k] = v as u32;
                }
                InstKind::ShuffleVector { mask, .. } if !mask.is_empty() => {
                    let k = rng.below(mask.len());
                    mask[k] = v as i32;
                }
                _ => {}
            }
        }
        // Phi incoming blocks and branch targets.
        6 => {
            let Some(&to) = rng.pick(&blocks) else { return };
            let f = &mut m.functions[fid];
            if let InstKind::Phi { incoming } = &mut f.insts[inst].kind {
                if !incoming.is_empty() {
                    let k = rng.below(incoming.len());
                    incoming[k].1 = to;
                    return;
                }
            }
            let Some(&b) = rng.pick(&blocks) else { return };
            let mut succ = f.blocks[b].terminator.successors_mut();
            if !succ.is_empty() {
                let k = rng.below(succ.len());
                *succ[k] = to;
            }
        }
        // A result type: a vector of another width, or any type of the module.
        7 => {
            let ty = m.functions[fid].insts[inst].ty;
            let new = match *m.types.get(ty) {
                Type::Vector { elem, .. } => {
                    m.types.intern(Type::Vector { elem, len: [1u32, 2, 3, 4, 5, 8, 16][rng.below(7)] })
                }
                _ => TypeId::from_u32(rng.below(m.types.len()) as u32),
            };
            m.functions[fid].insts[inst].ty = new;
        }
        // A metadata value: an interesting integer of its type.
        8 => {
            let values: Vec<_> =
                m.metadata.iter().filter(|(_, md)| matches!(md, MdRef::Value { .. })).map(|(id, _)| id).collect();
            let Some(&id) = rng.pick(&values) else { return };
            let Some((ty, _)) = m.metadata.value(id) else { return };
            let Some(c) = interesting_const(m, ty, rng) else { return };
            m.metadata.set_value(id, ty, Value::Const(c));
        }
        // A terminator's operand (a branch condition, a switch value).
        _ => {
            let Some(&b) = rng.pick(&blocks) else { return };
            let f = &m.functions[fid];
            let ty = match &f.blocks[b].terminator {
                Terminator::CondBr { cond, .. } => value_type(m, f, *cond),
                Terminator::Switch { value, .. } => value_type(m, f, *value),
                _ => None,
            };
            let Some(c) = ty.and_then(|ty| interesting_const(m, ty, rng)) else { return };
            match &mut m.functions[fid].blocks[b].terminator {
                Terminator::CondBr { cond, .. } => *cond = Value::Const(c),
                Terminator::Switch { value, .. } => *value = Value::Const(c),
                _ => {}
            }
        }
    }
}

fn set_operand(m: &mut Module, fid: untangle::ir::FuncId, inst: untangle::ir::InstId, k: usize, v: Value) {
    if let Some(slot) = operands_mut(&mut m.functions[fid].insts[inst].kind).into_iter().nth(k) {
        *slot = v;
    }
}

/// Block ids of LLVM's bitcode (`LLVMBitCodes.h`).
const CONSTANTS_BLOCK: u32 = 11;
const FUNCTION_BLOCK: u32 = 12;
const METADATA_BLOCK: u32 = 15;
const TYPE_BLOCK: u32 = 17;

/// Where a record mutation can land: the record's path (indices into nested `items`) and
/// its block id.
fn records(blocks: &[Block]) -> Vec<(Vec<usize>, u32)> {
    fn walk(b: &Block, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, u32)>) {
        for (k, item) in b.items.iter().enumerate() {
            path.push(k);
            match item {
                Item::Block(inner) => walk(inner, path, out),
                Item::Record(_) if matches!(b.id, CONSTANTS_BLOCK | FUNCTION_BLOCK | METADATA_BLOCK | TYPE_BLOCK) => {
                    out.push((path.clone(), b.id))
                }
                Item::Record(_) => {}
            }
            path.pop();
        }
    }
    let mut out = Vec::new();
    for (k, b) in blocks.iter().enumerate() {
        walk(b, &mut vec![k], &mut out);
    }
    out
}

fn record_at<'a>(blocks: &'a mut [Block], path: &[usize]) -> Option<&'a mut bitstream::Record> {
    let mut b = blocks.get_mut(path[0])?;
    for &k in &path[1..path.len() - 1] {
        match b.items.get_mut(k)? {
            Item::Block(inner) => b = inner,
            Item::Record(_) => return None,
        }
    }
    match b.items.get_mut(*path.last()?)? {
        Item::Record(r) => Some(r),
        Item::Block(_) => None,
    }
}

/// LLVM's signed VBR operand: the magnitude shifted left, the sign in bit 0.
fn signed(v: i64) -> u64 {
    if v < 0 {
        (v.unsigned_abs() << 1) | 1
    } else {
        (v as u64) << 1
    }
}

/// One record mutation (see the module documentation).
pub fn mutate_records(blocks: &mut [Block], rng: &mut SplitMix64) {
    let sites = records(blocks);
    // Constants and types are few and shared; instructions many: weigh the blocks evenly.
    let block = [CONSTANTS_BLOCK, FUNCTION_BLOCK, METADATA_BLOCK, TYPE_BLOCK][rng.below(4)];
    let sites: Vec<_> = sites.into_iter().filter(|(_, b)| *b == block).collect();
    let Some((path, _)) = rng.pick(&sites) else { return };
    let Some(r) = record_at(blocks, path) else { return };
    if r.ops.is_empty() {
        return;
    }
    let nudge = |rng: &mut SplitMix64, v: u64| {
        let d = 1 + rng.below(4) as u64;
        if rng.chance(50) {
            v.wrapping_add(d)
        } else {
            v.saturating_sub(d)
        }
    };
    match (block, r.code) {
        // CST_CODE_INTEGER: a signed VBR value.
        (CONSTANTS_BLOCK, 4) => r.ops[0] = signed(interesting(rng)),
        // CST_CODE_FLOAT: raw bits (of the current type, unknown here: any width).
        (CONSTANTS_BLOCK, 6) => {
            r.ops[0] = [0x7fc0_0000, 0x7f80_0000, 0xff80_0000, 0x7e00, 0x7ff8_0000_0000_0000, 0x8000_0000][rng.below(6)]
        }
        // TYPE_CODE_VECTOR [len, elem], TYPE_CODE_ARRAY [len, elem], TYPE_CODE_INTEGER [width].
        (TYPE_BLOCK, 11 | 12) => r.ops[0] = [0, 1, 2, 3, 4, 5, 8, 16, 4096][rng.below(9)],
        (TYPE_BLOCK, 7) => r.ops[0] = [1, 8, 16, 32, 64, 7, 128][rng.below(7)],
        (TYPE_BLOCK, _) => {
            let k = rng.below(r.ops.len());
            r.ops[k] = nudge(rng, r.ops[k]);
        }
        // Metadata and instructions: an operand nudged (a relative value id, type id, index
        // or flag), set to an interesting value, or two operands exchanged.
        _ => {
            let k = rng.below(r.ops.len());
            match rng.below(4) {
                0 | 1 => r.ops[k] = nudge(rng, r.ops[k]),
                2 => {
                    r.ops[k] =
                        if rng.chance(50) { interesting(rng) as u64 & 0xffff_ffff } else { signed(interesting(rng)) }
                }
                _ => {
                    let j = rng.below(r.ops.len());
                    r.ops.swap(k, j);
                }
            }
        }
    }
}

/// `spirv-val` once per distinct module.
pub struct Validator {
    val: Option<SpirvVal>,
    seen: HashMap<u64, Option<String>>,
}

impl Validator {
    pub fn new(val: Option<SpirvVal>) -> Validator {
        Validator { val, seen: HashMap::new() }
    }

    /// Distinct modules validated so far.
    pub fn distinct(&self) -> usize {
        self.seen.len()
    }

    fn check(&mut self, words: &[u32]) -> Result<(), String> {
        let Some(val) = &self.val else { return Ok(()) };
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        words.hash(&mut h);
        let e = self.seen.entry(h.finish()).or_insert_with(|| val.validate(words, "vulkan1.3").err());
        e.clone().map_or(Ok(()), Err)
    }
}

/// Every entry point of a shader or library ([`untangle::Shader::translate_library`]).
fn translate_all(bytes: &[u8]) -> untangle::Result<Vec<untangle::Translation>> {
    untangle::Shader::parse(bytes)?.translate_library(&Options::default())
}

/// Runs case `i` of run `run` under `catch_unwind`, timing it.
pub fn run_case(seeds: &Seeds, run: u64, i: u64, val: &mut Validator) -> (Route, Result<Outcome, String>, Duration) {
    let start = Instant::now();
    let (route, _, bytes) = mutant(seeds, run, i);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| translate_all(&bytes)));
    let took = start.elapsed();
    let r = r.map(|result| match result {
        Err(e) => classify(Err(e), |_| Ok(())),
        Ok(modules) => modules
            .into_iter()
            .map(|t| classify(Ok(t), |w| val.check(w)))
            .find(|o| *o != Outcome::Valid)
            .unwrap_or(Outcome::Valid),
    });
    let r = r.map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into())
    });
    (route, r, took)
}
