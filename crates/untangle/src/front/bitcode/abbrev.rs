//! Abbreviations: `DEFINE_ABBREV` definitions and reading a record through one.
//!
//! Facts from LLVM's "Bitcode File Format" document (abbreviation operand encodings:
//! literal, Fixed(n), VBR(n), Array, Char6, Blob) and LLVM's bitstream reader semantics:
//! a Fixed(0) or VBR(0) operand reads no bits and yields zero; an Array's element encoding
//! is the operand after it (the last one); a Blob is 32-bit aligned bytes.
//!
//! Bounds: an operand count or array length is checked against the bits left before any
//! allocation. Zero-width array elements read no bits, so they draw on a per-stream
//! budget ([`ZeroBudget`]) instead; the total of all records stays linear in the input.

use super::bitstream::{BitReader, Res};
use super::error::ErrorKind;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Literal(u64),
    Fixed(u32),
    Vbr(u32),
    Array,
    Char6,
    Blob,
}

/// Where one abbreviation's operands lie in an [`AbbrevTable`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AbbrevId {
    start: u32,
    len: u32,
}

/// The operands of a stream's abbreviations, one definition after another, so defining
/// one costs no allocation of its own and a scope lists its abbreviations as [`AbbrevId`]s.
/// A definition takes at least two bits of input per operand, which bounds the table.
#[derive(Clone, Default)]
pub struct AbbrevTable {
    ops: Vec<Op>,
}

impl AbbrevTable {
    /// The operands of `id` (empty for an id from another table).
    #[inline]
    pub fn get(&self, id: AbbrevId) -> &[Op] {
        let start = id.start as usize;
        self.ops.get(start..start + id.len as usize).unwrap_or(&[])
    }

    /// How many operands the table holds (a mark for [`AbbrevTable::truncate`]).
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Appends `other`'s definitions (ids from `other` stay valid if this table was empty).
    pub fn extend_from(&mut self, other: &AbbrevTable) {
        self.ops.extend_from_slice(&other.ops);
    }

    /// Forget the definitions from `mark` on (the abbreviations of a block that ended).
    pub fn truncate(&mut self, mark: usize) {
        self.ops.truncate(mark);
    }

    /// Room for `ops` more operands.
    pub fn reserve(&mut self, ops: usize) {
        self.ops.reserve(ops);
    }
}

/// Values produced without reading bits (zero-width array elements) are limited to the
/// input's size in bits over the whole stream.
pub struct ZeroBudget(pub u64);

impl ZeroBudget {
    fn take(&mut self, n: u64) -> Res<()> {
        if n > self.0 {
            return Err(ErrorKind::Implausible(n));
        }
        self.0 -= n;
        Ok(())
    }
}

/// Read the body of a `DEFINE_ABBREV` (after its abbreviation id) into `table`.
pub fn read_definition(r: &mut BitReader, table: &mut AbbrevTable) -> Res<AbbrevId> {
    let n = r.vbr(5)?;
    // Each operand takes at least two bits (the literal flag and one more).
    if n > r.remaining() / 2 {
        return Err(ErrorKind::Implausible(n));
    }
    let start = table.ops.len();
    let (Ok(start32), Ok(len)) = (u32::try_from(start), u32::try_from(n)) else {
        return Err(ErrorKind::Implausible(n));
    };
    if let Err(e) = read_operands(r, n, &mut table.ops) {
        table.ops.truncate(start);
        return Err(e);
    }
    Ok(AbbrevId { start: start32, len })
}

fn read_operands(r: &mut BitReader, n: u64, ops: &mut Vec<Op>) -> Res<()> {
    let start = ops.len();
    ops.reserve(n as usize);
    for _ in 0..n {
        if let Some((op, bits)) = r.peek_window().and_then(operand_in) {
            r.consume(bits);
            ops.push(op);
            continue;
        }
        if r.read(1)? == 1 {
            ops.push(Op::Literal(r.vbr(8)?));
            continue;
        }
        let op = match r.read(3)? {
            enc @ (1 | 2) => {
                let width = r.vbr(5)?;
                if width > 64 {
                    return Err(ErrorKind::InvalidAbbrev("operand width over 64"));
                }
                match (enc, width) {
                    // Fixed(0) and VBR(0) read nothing: literal zero.
                    (_, 0) => Op::Literal(0),
                    (1, w) => Op::Fixed(w as u32),
                    (_, 1) => return Err(ErrorKind::InvalidAbbrev("VBR(1) cannot terminate")),
                    (_, w) if w > 32 => return Err(ErrorKind::InvalidAbbrev("VBR chunk over 32 bits")),
                    (_, w) => Op::Vbr(w as u32),
                }
            }
            3 => Op::Array,
            4 => Op::Char6,
            5 => Op::Blob,
            _ => return Err(ErrorKind::InvalidAbbrev("unknown operand encoding")),
        };
        ops.push(op);
    }
    validate(&ops[start..])
}

/// The operand definition at the start of the window `w` and its length in bits, for the
/// common valid forms only: a literal of one or two VBR-8 chunks, Fixed/VBR with a width of
/// one or two VBR-5 chunks in the accepted ranges, Array, Char6, Blob. `None` for anything
/// else, which [`read_operands`] then reads field by field (with that path's errors and
/// error positions). A definition's operands take 4 to 17 bits each, so this reads each
/// from one window instead of two or three separate reads.
#[inline(always)]
fn operand_in(w: u64) -> Option<(Op, u32)> {
    if w & 1 == 1 {
        let c0 = (w >> 1) & 0xff;
        if c0 & 0x80 == 0 {
            return Some((Op::Literal(c0), 9));
        }
        let c1 = (w >> 9) & 0xff;
        return (c1 & 0x80 == 0).then_some((Op::Literal((c0 & 0x7f) | c1 << 7), 17));
    }
    match (w >> 1) & 7 {
        enc @ (1 | 2) => {
            let c0 = (w >> 4) & 0x1f;
            let (width, bits) = if c0 & 0x10 == 0 {
                (c0, 9)
            } else {
                let c1 = (w >> 9) & 0x1f;
                if c1 & 0x10 != 0 {
                    return None;
                }
                ((c0 & 0xf) | c1 << 4, 14)
            };
            let op = match (enc, width) {
                (_, 0) => Op::Literal(0),
                (1, 1..=64) => Op::Fixed(width as u32),
                (2, 2..=32) => Op::Vbr(width as u32),
                _ => return None,
            };
            Some((op, bits))
        }
        3 => Some((Op::Array, 4)),
        4 => Some((Op::Char6, 4)),
        5 => Some((Op::Blob, 4)),
        _ => None,
    }
}

fn validate(ops: &[Op]) -> Res<()> {
    if ops.is_empty() {
        return Err(ErrorKind::InvalidAbbrev("no operands"));
    }
    for (i, op) in ops.iter().enumerate() {
        match op {
            Op::Array => {
                if i + 2 != ops.len() {
                    return Err(ErrorKind::InvalidAbbrev("array is not the second-to-last operand"));
                }
                if matches!(ops.get(i + 1), Some(Op::Array | Op::Blob)) {
                    return Err(ErrorKind::InvalidAbbrev("array of arrays or blobs"));
                }
            }
            Op::Blob if i + 1 != ops.len() => return Err(ErrorKind::InvalidAbbrev("blob is not the last operand")),
            _ => {}
        }
    }
    if i_is_aggregate(ops.first()) {
        return Err(ErrorKind::InvalidAbbrev("record code cannot be an array or blob"));
    }
    Ok(())
}

fn i_is_aggregate(op: Option<&Op>) -> bool {
    matches!(op, Some(Op::Array | Op::Blob))
}

/// The Char6 alphabet: `a`–`z`, `A`–`Z`, `0`–`9`, `.`, `_`.
const CHAR6: &[u8; 64] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._";

#[inline(always)]
fn scalar(r: &mut BitReader, op: Op) -> Res<u64> {
    match op {
        Op::Literal(v) => Ok(v),
        Op::Fixed(w) => r.read(w),
        Op::Vbr(w) => r.vbr(w),
        Op::Char6 => Ok(CHAR6[r.read(6)? as usize & 63] as u64),
        Op::Array | Op::Blob => Err(ErrorKind::InvalidAbbrev("aggregate operand in scalar position")),
    }
}

/// Read one abbreviated record; the code is returned and the operands appended to `out`.
pub fn read_record(r: &mut BitReader, abbrev: &[Op], out: &mut Vec<u64>, budget: &mut ZeroBudget) -> Res<u32> {
    let mut ops = abbrev.iter().copied();
    let code_op = ops.next().ok_or(ErrorKind::InvalidAbbrev("no operands"))?;
    let code = scalar(r, code_op)?;
    let code = u32::try_from(code).map_err(|_| ErrorKind::Malformed(format!("record code {code}")))?;
    while let Some(op) = ops.next() {
        match op {
            Op::Array => {
                let elem = ops.next().ok_or(ErrorKind::InvalidAbbrev("array without element"))?;
                let n = r.vbr(6)?;
                let width = match elem {
                    Op::Literal(_) => 0,
                    Op::Fixed(w) => w as u64,
                    Op::Vbr(w) => w as u64,
                    _ => 6,
                };
                if width == 0 {
                    budget.take(n)?;
                } else if n > r.remaining() / width {
                    return Err(ErrorKind::Implausible(n));
                }
                match elem {
                    Op::Fixed(w) => r.fixed_array(w, n, out, |v| v)?,
                    Op::Vbr(w) => r.vbr_array(w, n, out)?,
                    Op::Char6 => r.fixed_array(6, n, out, |v| CHAR6[v as usize & 63] as u64)?,
                    _ => {
                        out.reserve(n as usize);
                        for _ in 0..n {
                            out.push(scalar(r, elem)?);
                        }
                    }
                }
            }
            Op::Blob => {
                let n = r.vbr(6)?;
                r.align32()?;
                let bytes = r.bytes(n)?;
                out.extend(bytes.iter().map(|&b| b as u64));
                r.align32()?;
            }
            other => out.push(scalar(r, other)?),
        }
    }
    Ok(code)
}

/// Read the head of an unabbreviated record (abbreviation id 3): its code and operand
/// count, which is checked against the bits left. The operands follow, VBR-6 each.
#[inline(always)]
pub fn unabbreviated_head(r: &mut BitReader) -> Res<(u32, u64)> {
    // Both values of one or two chunks (codes and counts below 1024) from one window.
    if let Some((code, n)) = r.vbr6_pair() {
        if n * 6 > r.remaining() {
            return Err(ErrorKind::Implausible(n));
        }
        return Ok((code as u32, n));
    }
    unabbreviated_head_slow(r)
}

#[inline(never)]
fn unabbreviated_head_slow(r: &mut BitReader) -> Res<(u32, u64)> {
    let code = r.vbr(6)?;
    let code = u32::try_from(code).map_err(|_| ErrorKind::Malformed(format!("record code {code}")))?;
    let n = r.vbr(6)?;
    if n > r.remaining() / 6 {
        return Err(ErrorKind::Implausible(n));
    }
    Ok((code, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A little bit writer for tests.
    struct W(Vec<u8>, u64);
    impl W {
        fn put(&mut self, v: u64, w: u32) {
            for k in 0..w {
                let bit = (v >> k) & 1;
                let byte = (self.1 / 8) as usize;
                if byte >= self.0.len() {
                    self.0.push(0);
                }
                self.0[byte] |= (bit as u8) << (self.1 % 8);
                self.1 += 1;
            }
        }
    }

    #[test]
    fn fixed_zero_is_literal_zero_and_reads_nothing() {
        let mut w = W(Vec::new(), 0);
        w.put(3, 5); // three operands
        w.put(1, 1); // literal
        w.put(7, 8); //   7
        w.put(0, 1);
        w.put(1, 3); // Fixed
        w.put(0, 5); //   (0)
        w.put(0, 1);
        w.put(2, 3); // VBR
        w.put(0, 5); //   (0)
        w.0.extend([0; 4]);
        let mut r = BitReader::new(&w.0);
        let mut table = AbbrevTable::default();
        let a = read_definition(&mut r, &mut table).unwrap();
        assert_eq!(table.get(a), [Op::Literal(7), Op::Literal(0), Op::Literal(0)]);
        let before = r.pos();
        let mut out = Vec::new();
        let code = read_record(&mut r, table.get(a), &mut out, &mut ZeroBudget(100)).unwrap();
        assert_eq!((code, out, r.pos()), (7, vec![0, 0], before));
    }

    /// One operand definition read field by field (the reference for [`operand_in`]).
    fn operand_field_by_field(r: &mut BitReader) -> Res<Op> {
        if r.read(1)? == 1 {
            return Ok(Op::Literal(r.vbr(8)?));
        }
        Ok(match r.read(3)? {
            enc @ (1 | 2) => match (enc, r.vbr(5)?) {
                (_, 0) => Op::Literal(0),
                (1, w @ 1..=64) => Op::Fixed(w as u32),
                (2, w @ 2..=32) => Op::Vbr(w as u32),
                _ => return Err(ErrorKind::InvalidAbbrev("width")),
            },
            3 => Op::Array,
            4 => Op::Char6,
            5 => Op::Blob,
            _ => return Err(ErrorKind::InvalidAbbrev("encoding")),
        })
    }

    /// Whatever the window, a form read from it is the one read field by field, with the
    /// same length; the forms left to the field-by-field path are rare.
    #[test]
    fn operand_from_a_window_matches_field_by_field() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut taken = 0;
        for case in 0..200_000u32 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // Small fields are the interesting ones: clear high bits of chunks now and then.
            let w = if case % 2 == 0 { seed & 0x3fff } else { seed };
            let bytes = w.to_le_bytes();
            let mut r = BitReader::new(&bytes);
            let want = operand_field_by_field(&mut r).ok().map(|op| (op, r.pos() as u32));
            if let Some(got) = operand_in(w) {
                assert_eq!(Some(got), want, "window {w:#x}");
                taken += 1;
            }
        }
        assert!(taken > 100_000, "{taken}");
    }

    #[test]
    fn huge_array_of_zero_width_elements_is_refused() {
        let a = [Op::Literal(1), Op::Array, Op::Literal(0)];
        let mut w = W(Vec::new(), 0);
        w.put(0x3f, 6); // vbr6 with continuation ...
        w.put(0x3f, 6);
        w.put(0x1f, 6); // ~ 2^15
        let mut r = BitReader::new(&w.0);
        let mut out = Vec::new();
        assert!(matches!(read_record(&mut r, &a, &mut out, &mut ZeroBudget(1000)), Err(ErrorKind::Implausible(_))));
    }
}
