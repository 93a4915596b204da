//! LLVM bitstream as a tree of blocks and records, read and written back, so that a fuzzer
//! can change record operands (constants, types, value ids, metadata) and hand the result
//! to the native bitcode reader. Format: LLVM's "Bitcode File Format" document,
//! "Bitstream Format" section (abbreviation ids 0 `END_BLOCK`, 1 `ENTER_SUBBLOCK`,
//! 2 `DEFINE_ABBREV`, 3 `UNABBREV_RECORD`; `BLOCKINFO` is block 0).
//!
//! Reading expands every abbreviation, so a [`Record`] holds plain operand values (a blob
//! kept apart). Writing emits every record unabbreviated (VBR-6 operands) and drops the
//! `BLOCKINFO` block, which only carries abbreviations and names; a record with a blob gets
//! an abbreviation of its own, the only way to write a blob. The written stream reads back
//! to the same tree; it is larger than the original, never different in meaning.
//!
//! Cost: linear in the input; an unreadable stream is `None` (test tooling: no diagnosis).

/// A block: its id and its contents in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub id: u32,
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Block(Block),
    Record(Record),
}

/// A record: code, operands, and the bytes of a blob operand (always the last operand).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub code: u32,
    pub ops: Vec<u64>,
    pub blob: Option<Vec<u8>>,
}

#[derive(Clone, Debug)]
enum Op {
    Literal(u64),
    Fixed(u32),
    Vbr(u32),
    Array,
    Char6,
    Blob,
}

struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Bits<'_> {
    fn remaining(&self) -> usize {
        self.data.len() * 8 - self.pos.min(self.data.len() * 8)
    }

    fn read(&mut self, width: u32) -> Option<u64> {
        if width > 64 || self.remaining() < width as usize {
            return None;
        }
        let mut v = 0u64;
        for k in 0..width as usize {
            let bit = self.pos + k;
            v |= u64::from((self.data[bit / 8] >> (bit % 8)) & 1) << k;
        }
        self.pos += width as usize;
        Some(v)
    }

    fn vbr(&mut self, width: u32) -> Option<u64> {
        if !(2..=32).contains(&width) {
            return None;
        }
        let high = 1u64 << (width - 1);
        let (mut v, mut shift) = (0u64, 0u32);
        loop {
            let chunk = self.read(width)?;
            if shift >= 64 {
                return None;
            }
            v |= (chunk & (high - 1)) << shift;
            if chunk & high == 0 {
                return Some(v);
            }
            shift += width - 1;
        }
    }

    fn align32(&mut self) -> Option<()> {
        self.pos = self.pos.div_ceil(32) * 32;
        (self.pos <= self.data.len() * 8).then_some(())
    }
}

/// Reads a bitcode stream (`BC\xC0\xDE` magic) into its top-level blocks.
pub fn read(data: &[u8]) -> Option<Vec<Block>> {
    if data.len() < 4 || data[..4] != [0x42, 0x43, 0xc0, 0xde] {
        return None;
    }
    let mut bits = Bits { data, pos: 32 };
    let mut info: Vec<(u32, Vec<Vec<Op>>)> = Vec::new();
    let mut blocks = Vec::new();
    while bits.remaining() >= 32 {
        match bits.read(2)? {
            1 => {
                if let Some(b) = read_block(&mut bits, &mut info, 0)? {
                    blocks.push(b);
                }
            }
            // Padding after the last block.
            0 if data[bits.pos.div_ceil(8)..].iter().all(|&b| b == 0) => break,
            _ => return None,
        }
    }
    Some(blocks)
}

/// Reads a block whose `ENTER_SUBBLOCK` id was just read; `None` inside for `BLOCKINFO`.
fn read_block(bits: &mut Bits<'_>, info: &mut Vec<(u32, Vec<Vec<Op>>)>, depth: u32) -> Option<Option<Block>> {
    if depth > 64 {
        return None;
    }
    let id = u32::try_from(bits.vbr(8)?).ok()?;
    let width = u32::try_from(bits.vbr(4)?).ok()?;
    bits.align32()?;
    let _words = bits.read(32)?;
    let mut abbrevs: Vec<Vec<Op>> = info.iter().find(|(b, _)| *b == id).map(|(_, a)| a.clone()).unwrap_or_default();
    let mut items = Vec::new();
    let mut info_target: Option<u32> = None;
    loop {
        let abbrev = bits.read(width)?;
        match abbrev {
            0 => {
                bits.align32()?;
                return Some((id != 0).then_some(Block { id, items }));
            }
            1 => {
                if let Some(b) = read_block(bits, info, depth + 1)? {
                    items.push(Item::Block(b));
                }
            }
            2 => {
                let def = read_abbrev(bits)?;
                if id == 0 {
                    let target = info_target?;
                    match info.iter_mut().find(|(b, _)| *b == target) {
                        Some((_, list)) => list.push(def),
                        None => info.push((target, vec![def])),
                    }
                } else {
                    abbrevs.push(def);
                }
            }
            3 => {
                let code = u32::try_from(bits.vbr(6)?).ok()?;
                let n = bits.vbr(6)?;
                if n as usize > bits.remaining() {
                    return None;
                }
                let ops = (0..n).map(|_| bits.vbr(6)).collect::<Option<Vec<_>>>()?;
                if id == 0 && code == 1 {
                    info_target = Some(u32::try_from(*ops.first()?).ok()?);
                } else if id != 0 {
                    items.push(Item::Record(Record { code, ops, blob: None }));
                }
            }
            k => {
                let def = abbrevs.get(usize::try_from(k - 4).ok()?)?.clone();
                let r = read_abbreviated(bits, &def)?;
                if id != 0 {
                    items.push(Item::Record(r));
                }
            }
        }
    }
}

fn read_abbrev(bits: &mut Bits<'_>) -> Option<Vec<Op>> {
    let n = bits.vbr(5)?;
    let mut ops = Vec::new();
    let mut k = 0;
    while k < n {
        if bits.read(1)? == 1 {
            ops.push(Op::Literal(bits.vbr(8)?));
        } else {
            ops.push(match bits.read(3)? {
                1 => Op::Fixed(u32::try_from(bits.vbr(5)?).ok()?),
                2 => Op::Vbr(u32::try_from(bits.vbr(5)?).ok()?),
                3 => Op::Array,
                4 => Op::Char6,
                5 => Op::Blob,
                _ => return None,
            });
        }
        k += 1;
    }
    Some(ops)
}

fn read_scalar(bits: &mut Bits<'_>, op: &Op) -> Option<u64> {
    match *op {
        Op::Literal(v) => Some(v),
        Op::Fixed(w) => bits.read(w),
        Op::Vbr(w) => bits.vbr(w),
        Op::Char6 => {
            let c = bits.read(6)? as u8;
            Some(u64::from(match c {
                0..=25 => b'a' + c,
                26..=51 => b'A' + c - 26,
                52..=61 => b'0' + c - 52,
                62 => b'.',
                _ => b'_',
            }))
        }
        Op::Array | Op::Blob => None,
    }
}

fn read_abbreviated(bits: &mut Bits<'_>, def: &[Op]) -> Option<Record> {
    let mut values = Vec::new();
    let mut blob = None;
    let mut k = 0;
    while k < def.len() {
        match &def[k] {
            Op::Array => {
                let elem = def.get(k + 1)?;
                let n = bits.vbr(6)?;
                if n as usize > bits.remaining() {
                    return None;
                }
                for _ in 0..n {
                    values.push(read_scalar(bits, elem)?);
                }
                k += 2;
                continue;
            }
            Op::Blob => {
                let n = bits.vbr(6)? as usize;
                bits.align32()?;
                if n > bits.remaining() / 8 {
                    return None;
                }
                let start = bits.pos / 8;
                blob = Some(bits.data[start..start + n].to_vec());
                bits.pos += n * 8;
                bits.align32()?;
            }
            op => values.push(read_scalar(bits, op)?),
        }
        k += 1;
    }
    let code = u32::try_from(*values.first()?).ok()?;
    Some(Record { code, ops: values[1..].to_vec(), blob })
}

#[derive(Default)]
struct Writer {
    words: Vec<u8>,
    bit: usize,
}

impl Writer {
    fn write(&mut self, v: u64, width: u32) {
        for k in 0..width as usize {
            if self.bit / 8 == self.words.len() {
                self.words.push(0);
            }
            self.words[self.bit / 8] |= (((v >> k) & 1) as u8) << (self.bit % 8);
            self.bit += 1;
        }
    }

    fn vbr(&mut self, mut v: u64, width: u32) {
        let high = 1u64 << (width - 1);
        while v >= high {
            self.write((v & (high - 1)) | high, width);
            v >>= width - 1;
        }
        self.write(v, width);
    }

    fn align32(&mut self) {
        self.bit = self.bit.div_ceil(32) * 32;
        self.words.resize(self.bit / 8, 0);
    }
}

/// Abbreviation width of every written block: room for the four fixed ids and 60 blob
/// abbreviations.
const WIDTH: u32 = 6;

/// Writes top-level blocks as a bitcode stream; `None` if a block holds more blob records
/// than the written abbreviation width can number.
pub fn write(blocks: &[Block]) -> Option<Vec<u8>> {
    let mut w = Writer::default();
    w.write(0xdec0_4342, 32);
    for b in blocks {
        write_block(&mut w, b, 2)?;
    }
    Some(w.words)
}

fn write_block(w: &mut Writer, b: &Block, outer: u32) -> Option<()> {
    w.write(1, outer);
    w.vbr(u64::from(b.id), 8);
    w.vbr(u64::from(WIDTH), 4);
    w.align32();
    let len_at = w.bit / 8;
    w.write(0, 32);
    let mut blobs = 0u64;
    for item in &b.items {
        match item {
            Item::Block(inner) => write_block(w, inner, WIDTH)?,
            Item::Record(r) => match &r.blob {
                None => {
                    w.write(3, WIDTH);
                    w.vbr(u64::from(r.code), 6);
                    w.vbr(r.ops.len() as u64, 6);
                    for &op in &r.ops {
                        w.vbr(op, 6);
                    }
                }
                Some(bytes) => {
                    let id = 4 + blobs;
                    if id >= 1 << WIDTH {
                        return None;
                    }
                    blobs += 1;
                    w.write(2, WIDTH);
                    w.vbr(r.ops.len() as u64 + 2, 5);
                    w.write(1, 1);
                    w.vbr(u64::from(r.code), 8);
                    for _ in &r.ops {
                        w.write(0, 1);
                        w.write(2, 3);
                        w.vbr(6, 5);
                    }
                    w.write(0, 1);
                    w.write(5, 3);
                    w.write(id, WIDTH);
                    for &op in &r.ops {
                        w.vbr(op, 6);
                    }
                    w.vbr(bytes.len() as u64, 6);
                    w.align32();
                    for &byte in bytes {
                        w.write(u64::from(byte), 8);
                    }
                    w.align32();
                }
            },
        }
    }
    w.write(0, WIDTH);
    w.align32();
    let words = ((w.bit / 8 - len_at - 4) / 4) as u32;
    w.words[len_at..len_at + 4].copy_from_slice(&words.to_le_bytes());
    Some(())
}

/// `container` (a DXBC container) with the bitcode of its `DXIL` part replaced by `bitcode`
/// (a multiple of four bytes): the part's program header and every size and offset after it
/// follow. `None` if `container` is not a container with a `DXIL` part.
pub fn replace_program(container: &[u8], bitcode: &[u8]) -> Option<Vec<u8>> {
    let u32_at = |b: &[u8], at: usize| -> Option<u32> { Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?)) };
    if container.get(..4)? != b"DXBC" {
        return None;
    }
    let count = u32_at(container, 28)? as usize;
    let mut parts: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for k in 0..count {
        let at = u32_at(container, 32 + 4 * k)? as usize;
        let fourcc = container.get(at..at + 4)?.to_vec();
        let size = u32_at(container, at + 4)? as usize;
        let mut payload = container.get(at + 8..at + 8 + size)?.to_vec();
        if fourcc == b"DXIL" {
            let offset = u32_at(&payload, 16)? as usize;
            payload.truncate(8 + offset);
            payload.extend_from_slice(bitcode);
            let dwords = u32::try_from(payload.len() / 4).ok()?;
            payload[4..8].copy_from_slice(&dwords.to_le_bytes());
            payload[20..24].copy_from_slice(&u32::try_from(bitcode.len()).ok()?.to_le_bytes());
        }
        parts.push((fourcc, payload));
    }
    let mut out = container[..32].to_vec();
    let mut at = 32 + 4 * count;
    for (_, p) in &parts {
        out.extend_from_slice(&u32::try_from(at).ok()?.to_le_bytes());
        at += 8 + p.len();
    }
    for (fourcc, p) in &parts {
        out.extend_from_slice(fourcc);
        out.extend_from_slice(&u32::try_from(p.len()).ok()?.to_le_bytes());
        out.extend_from_slice(p);
    }
    let total = u32::try_from(out.len()).ok()?;
    out[24..28].copy_from_slice(&total.to_le_bytes());
    Some(out)
}
