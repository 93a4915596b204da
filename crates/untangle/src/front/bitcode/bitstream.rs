//! The bit-level reader: fixed-width fields, variable-width (VBR) integers and 32-bit
//! alignment, little-endian as LLVM's bitstream container defines them
//! (LLVM "Bitcode File Format" document, "Bitstream Format" section: fields are packed
//! from the least significant bit of each byte; a VBR-n value is a sequence of n-bit chunks
//! whose high bit says another chunk follows).
//!
//! Every read checks the remaining bits first, so a truncated input ends in
//! [`ErrorKind::UnexpectedEof`], never in an out-of-bounds access; a failed read leaves the
//! position where the failing field (for a VBR: the failing chunk) starts.
//!
//! Cost: the reader is a bit position over the input, not a buffer. Each read loads the
//! eight bytes under the position as one little-endian word (a *window* of at least 57 valid
//! bits), so a fixed field of up to 57 bits, or a whole VBR value whose chunks fit in the
//! window (up to nine VBR-6 chunks), costs one load, a shift, a mask and one bound check:
//! the input ends at bit 8 × its length, so a field inside a window loaded whole ends inside
//! the input ([`full_window`]). Only the last seven bytes of the input and longer VBR
//! values take a slower path.

use super::error::ErrorKind;

pub type Res<T> = std::result::Result<T, ErrorKind>;

/// Bits a window is guaranteed to hold past the position (64 minus a partial byte).
const WINDOW_BITS: u32 = 57;

/// Bit 5 of each of the nine 6-bit chunks in a window: clear where a VBR-6 value ends.
const VBR6_HIGH_BITS: u64 = 0o404_040_404_040_404_040;

#[derive(Clone)]
pub struct BitReader<'a> {
    data: &'a [u8],
    /// Position in bits.
    pos: u64,
    /// Total bits: always 8 × `data.len()` ([`full_window`] relies on it).
    end: u64,
}

/// The window at bit `pos` of `data` when the eight bytes under it lie in the input: then
/// every field of up to [`WINDOW_BITS`] bits from `pos` ends inside the input (which ends
/// at bit 8 × its length, at least 57 bits past `pos`), and needs no other bounds check.
#[inline(always)]
fn full_window(data: &[u8], pos: u64) -> Option<u64> {
    let byte = (pos >> 3) as usize;
    let word = data.get(byte..byte + 8)?.first_chunk::<8>()?;
    Some(u64::from_le_bytes(*word) >> (pos & 7))
}

impl<'a> BitReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        BitReader { data, pos: 0, end: data.len() as u64 * 8 }
    }

    /// Current position in bits.
    #[inline]
    pub fn pos(&self) -> u64 {
        self.pos
    }

    pub fn end(&self) -> u64 {
        self.end
    }

    #[inline]
    /// The input's bytes from bit `from` to bit `to`, both byte-aligned (`None` otherwise,
    /// or past the end).
    pub fn bytes_between(&self, from: u64, to: u64) -> Option<&'a [u8]> {
        if !from.is_multiple_of(8) || !to.is_multiple_of(8) || from > to || to > self.end {
            return None;
        }
        self.data.get(usize::try_from(from / 8).ok()?..usize::try_from(to / 8).ok()?)
    }

    pub fn remaining(&self) -> u64 {
        self.end - self.pos
    }

    #[cfg(test)]
    pub fn at_end(&self) -> bool {
        self.pos >= self.end
    }

    /// The input from the position on, least significant bit first: at least
    /// [`WINDOW_BITS`] bits, zero past the end of the input.
    #[inline(always)]
    fn window(&self) -> u64 {
        let byte = (self.pos >> 3) as usize;
        let word = match self.data.get(byte..).and_then(<[u8]>::first_chunk::<8>) {
            Some(w) => u64::from_le_bytes(*w),
            None => self.tail_word(byte),
        };
        word >> (self.pos & 7)
    }

    /// The last (fewer than eight) bytes from `byte` on, zero-padded.
    #[cold]
    fn tail_word(&self, byte: usize) -> u64 {
        let mut w = [0u8; 8];
        if let Some(tail) = self.data.get(byte..) {
            w[..tail.len()].copy_from_slice(tail);
        }
        u64::from_le_bytes(w)
    }

    /// The next [`WINDOW_BITS`] bits or more, when the eight bytes under the position lie in
    /// the input (`None` near its end): a caller decoding several small fields at once takes
    /// them from here and then [`BitReader::consume`]s what it used.
    #[inline(always)]
    pub fn peek_window(&self) -> Option<u64> {
        full_window(self.data, self.pos)
    }

    /// Move past `bits` bits of a window from [`BitReader::peek_window`] (at most
    /// [`WINDOW_BITS`], which lie in the input).
    #[inline(always)]
    pub fn consume(&mut self, bits: u32) {
        debug_assert!(bits <= WINDOW_BITS && self.pos + bits as u64 <= self.end);
        self.pos += bits as u64;
    }

    /// Move to an absolute bit position inside the input.
    pub fn seek(&mut self, bit: u64) -> Res<()> {
        if bit > self.end {
            return Err(ErrorKind::UnexpectedEof);
        }
        self.pos = bit;
        Ok(())
    }

    /// Read `width` bits (0..=64) as an unsigned value.
    #[inline(always)]
    pub fn read(&mut self, width: u32) -> Res<u64> {
        if width > WINDOW_BITS {
            return self.read_wide(width);
        }
        match full_window(self.data, self.pos) {
            Some(w) => {
                self.pos += width as u64;
                Ok(w & mask(width))
            }
            None => self.read_tail(width),
        }
    }

    /// [`BitReader::read`] in the last seven bytes of the input.
    #[cold]
    fn read_tail(&mut self, width: u32) -> Res<u64> {
        let next = self.pos + width as u64;
        if next > self.end {
            return Err(ErrorKind::UnexpectedEof);
        }
        let v = self.window() & mask(width);
        self.pos = next;
        Ok(v)
    }

    /// A field wider than a window: two reads.
    #[cold]
    fn read_wide(&mut self, width: u32) -> Res<u64> {
        if width > 64 {
            return Err(ErrorKind::InvalidAbbrev("field wider than 64 bits"));
        }
        if self.remaining() < width as u64 {
            return Err(ErrorKind::UnexpectedEof);
        }
        let low = self.read(32)?;
        let high = self.read(width - 32)?;
        Ok(low | high << 32)
    }

    /// Read a VBR-`width` value (`width` in 2..=32), at most 64 bits of payload.
    #[inline(always)]
    pub fn vbr(&mut self, width: u32) -> Res<u64> {
        if !(2..=32).contains(&width) {
            return Err(ErrorKind::InvalidAbbrev("VBR width out of range"));
        }
        let Some(w) = full_window(self.data, self.pos) else {
            return self.vbr_chunks(width, self.window());
        };
        let hi = 1u64 << (width - 1);
        let chunk = w & mask(width);
        if chunk & hi == 0 {
            self.pos += width as u64;
            return Ok(chunk);
        }
        // Two chunks (characters of names and strings in VBR-6 arrays are), if both are
        // in the window.
        let second = (w >> width) & mask(width);
        if 2 * width <= WINDOW_BITS && second & hi == 0 {
            self.pos += 2 * width as u64;
            return Ok((chunk & (hi - 1)) | second << (width - 1));
        }
        self.vbr_chunks(width, w)
    }

    /// Two VBR-6 values of one or two chunks each (below 1024), both from one full window
    /// (an unabbreviated record's code and operand count); `None`, having read nothing,
    /// for anything else.
    #[inline(always)]
    pub fn vbr6_pair(&mut self) -> Option<(u64, u64)> {
        let w = full_window(self.data, self.pos)?;
        let (a, a_bits) = vbr6_in(w)?;
        let (b, b_bits) = vbr6_in(w >> a_bits)?;
        self.pos += a_bits + b_bits;
        Some((a, b))
    }

    /// A VBR value of several chunks: decoded from the window `w` if it ends there (no
    /// overflow is possible in 57 bits), else chunk by chunk.
    #[inline(never)]
    fn vbr_chunks(&mut self, width: u32, w: u64) -> Res<u64> {
        if width == 6 {
            // VBR-6 (unabbreviated operands: a call's calling-convention field, with its
            // explicit-type flag 1 << 15, takes four chunks): the value's length from the
            // chunks' high bits, then its payloads packed chunk by chunk.
            let ends = !w & VBR6_HIGH_BITS;
            let bits = ends.trailing_zeros() as u64 + 1;
            if ends != 0 && self.pos + bits <= self.end {
                let mut chunks = w & (u64::MAX >> (64 - bits));
                let (mut value, mut shift) = (0u64, 0);
                while chunks != 0 {
                    value |= (chunks & 0x1f) << shift;
                    chunks >>= 6;
                    shift += 5;
                }
                self.pos += bits;
                return Ok(value);
            }
            return self.vbr_slow(width);
        }
        let hi = 1u64 << (width - 1);
        let mut value = 0u64;
        for k in 0..WINDOW_BITS / width {
            let chunk = (w >> (k * width)) & mask(width);
            value |= (chunk & (hi - 1)) << (k * (width - 1));
            if chunk & hi == 0 {
                let next = self.pos + ((k + 1) * width) as u64;
                if next > self.end {
                    break;
                }
                self.pos = next;
                return Ok(value);
            }
        }
        self.vbr_slow(width)
    }

    /// Chunk by chunk, with the overflow and end-of-input checks after each chunk.
    #[cold]
    fn vbr_slow(&mut self, width: u32) -> Res<u64> {
        let hi = 1u64 << (width - 1);
        let mut piece = self.read(width)?;
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let payload = piece & (hi - 1);
            if shift >= 64 || (shift > 0 && payload >> (64 - shift) != 0 && shift + width - 1 > 64) {
                return Err(ErrorKind::Malformed("VBR value wider than 64 bits".into()));
            }
            value |= payload << shift;
            if piece & hi == 0 {
                return Ok(value);
            }
            shift += width - 1;
            piece = self.read(width)?;
        }
    }

    /// Append `n` VBR-`width` values to `out` (the caller has checked `n` against the bits
    /// left). Same values and errors as `n` calls of [`BitReader::vbr`] (on an error `out`
    /// holds the values before the failing one); the loop keeps the position in a register,
    /// writes into `out`'s new elements without a capacity check per value, and takes values
    /// of one or two chunks straight from a full window, which is what records made of
    /// small ids and characters consist of.
    #[inline(always)]
    pub fn vbr_array(&mut self, width: u32, n: u64, out: &mut Vec<u64>) -> Res<()> {
        if !(2..=32).contains(&width) {
            return Err(ErrorKind::InvalidAbbrev("VBR width out of range"));
        }
        let start = out.len();
        out.resize(start + n as usize, 0);
        let (hi, m, w64) = (1u64 << (width - 1), mask(width), width as u64);
        // A copy of the input's bounds in registers: the stores into `out` would otherwise
        // make the compiler reload them for every value.
        let data = self.data;
        let mut pos = self.pos;
        let mut failed = None;
        for (k, slot) in out[start..].iter_mut().enumerate() {
            if let Some(w) = full_window(data, pos) {
                let c0 = w & m;
                if c0 & hi == 0 {
                    pos += w64;
                    *slot = c0;
                    continue;
                }
                let c1 = (w >> width) & m;
                if 2 * width <= WINDOW_BITS && c1 & hi == 0 {
                    pos += 2 * w64;
                    *slot = (c0 & (hi - 1)) | c1 << (width - 1);
                    continue;
                }
            }
            self.pos = pos;
            match self.vbr(width) {
                Ok(v) => *slot = v,
                Err(e) => {
                    failed = Some((start + k, e));
                    break;
                }
            }
            pos = self.pos;
        }
        if let Some((read, e)) = failed {
            out.truncate(read);
            return Err(e);
        }
        self.pos = pos;
        Ok(())
    }

    /// Append `n` fixed-width fields to `out` (the caller has checked `n` against the bits
    /// left); as `n` calls of [`BitReader::read`], `map` applied to each value (on an error
    /// `out` holds the values before the failing one).
    #[inline(always)]
    pub fn fixed_array(&mut self, width: u32, n: u64, out: &mut Vec<u64>, map: impl Fn(u64) -> u64) -> Res<()> {
        if width > WINDOW_BITS {
            for _ in 0..n {
                out.push(map(self.read(width)?));
            }
            return Ok(());
        }
        let start = out.len();
        out.resize(start + n as usize, 0);
        let (m, w64) = (mask(width), width as u64);
        let data = self.data; // in registers, as in `vbr_array`
        let mut pos = self.pos;
        let mut failed_at = None;
        for (k, slot) in out[start..].iter_mut().enumerate() {
            let w = match full_window(data, pos) {
                Some(w) => w,
                None if pos + w64 <= self.end => self.tail_word((pos >> 3) as usize) >> (pos & 7),
                None => {
                    failed_at = Some(start + k);
                    break;
                }
            };
            *slot = map(w & m);
            pos += w64;
        }
        self.pos = pos;
        if let Some(read) = failed_at {
            out.truncate(read);
            return Err(ErrorKind::UnexpectedEof);
        }
        Ok(())
    }

    /// Skip `n` VBR-6 values (the caller has checked `n` against the bits left): the same
    /// end position and errors as `n` calls of [`BitReader::vbr`]`(6)`, but whole windows
    /// at a time: the values that end in a window are counted from its chunks' high bits.
    /// A value of nine chunks or more (where an overflow could hide) and anything at the
    /// end of the input are read one by one instead.
    pub fn skip_vbr6_array(&mut self, mut n: u64) -> Res<()> {
        while n > 0 {
            let ends = !self.window() & VBR6_HIGH_BITS;
            let here = ends.count_ones() as u64;
            let used = if here == 0 {
                None
            } else if here <= n {
                // Up to and including the chunk of the last value that ends here.
                Some((64 - ends.leading_zeros()) as u64)
            } else {
                // Up to and including the chunk of the n-th value that ends here.
                let mut e = ends;
                for _ in 1..n {
                    e &= e - 1;
                }
                Some(e.trailing_zeros() as u64 + 1)
            };
            match used {
                Some(bits) if self.pos + bits <= self.end => {
                    self.pos += bits;
                    n -= here.min(n);
                }
                _ => {
                    self.vbr(6)?;
                    n -= 1;
                }
            }
        }
        Ok(())
    }

    /// Skip to the next multiple of 32 bits.
    pub fn align32(&mut self) -> Res<()> {
        let aligned = (self.pos + 31) & !31;
        if aligned > self.end {
            return Err(ErrorKind::UnexpectedEof);
        }
        self.pos = aligned;
        Ok(())
    }

    /// The bytes from the current (byte-aligned) position, `len` of them.
    pub fn bytes(&mut self, len: u64) -> Res<&'a [u8]> {
        let pos = self.pos;
        if !pos.is_multiple_of(8) || len.saturating_mul(8) > self.remaining() {
            return Err(ErrorKind::UnexpectedEof);
        }
        let start = (pos / 8) as usize;
        let slice = self.data.get(start..start + len as usize).ok_or(ErrorKind::UnexpectedEof)?;
        self.pos = pos + len * 8;
        Ok(slice)
    }
}

/// The VBR-6 value of one or two chunks at the bottom of `w`, and its length in bits.
#[inline(always)]
fn vbr6_in(w: u64) -> Option<(u64, u64)> {
    let c0 = w & 0x3f;
    if c0 & 0x20 == 0 {
        return Some((c0, 6));
    }
    let c1 = (w >> 6) & 0x3f;
    (c1 & 0x20 == 0).then_some(((c0 & 0x1f) | c1 << 5, 12))
}

#[inline(always)]
fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_and_vbr() {
        // Bits are taken least significant first.
        let data = [0b1010_1101u8, 0b0000_0001, 0, 0];
        let mut r = BitReader::new(&data);
        assert_eq!(r.read(3).unwrap(), 0b101);
        assert_eq!(r.read(5).unwrap(), 0b10101);
        let mut r = BitReader::new(&data);
        // VBR-4: first chunk 1101 -> payload 101 with continuation, next 1010 -> payload 010, cont,
        // next 0001 -> payload 001, stop: 5 | 2<<3 | 1<<6 = 85.
        assert_eq!(r.vbr(4).unwrap(), 5 | (2 << 3) | (1 << 6));
        let mut r = BitReader::new(&data);
        assert_eq!(r.read(33), Err(ErrorKind::UnexpectedEof));
        let mut r = BitReader::new(&data);
        assert_eq!(r.read(32).unwrap(), 0x0000_01AD);
        assert!(r.at_end());
    }

    #[test]
    fn vbr_overflow_is_an_error() {
        let data = [0xffu8; 16];
        let mut r = BitReader::new(&data);
        assert!(r.vbr(6).is_err());
    }

    /// Skipping VBR-6 values ends where reading them does, and fails where reading does.
    #[test]
    fn skipping_matches_reading() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..2000 {
            // Mostly short values, sometimes long runs of continuation chunks.
            let len = 1 + (next() % 48) as usize;
            let data: Vec<u8> = (0..len)
                .map(|_| match case % 3 {
                    0 => next() as u8,
                    1 => (next() as u8) | 0b0010_0000,
                    _ => 0xff,
                })
                .collect();
            let end = data.len() as u64 * 8;
            for at in [0, 3, 7] {
                for n in [1u64, 2, 5, 9, 17, 40] {
                    let mut a = BitReader::new(&data);
                    let mut b = BitReader::new(&data);
                    if at > end {
                        continue;
                    }
                    a.seek(at).unwrap();
                    b.seek(at).unwrap();
                    let read = (0..n).try_for_each(|_| a.vbr(6).map(|_| ()));
                    let skipped = b.skip_vbr6_array(n);
                    assert_eq!(read, skipped, "case {case} at {at} n {n}");
                    assert_eq!(a.pos(), b.pos(), "case {case} at {at} n {n}");
                }
            }
        }
    }

    /// The window paths agree with a plain bit-by-bit decoder at every offset, for fixed
    /// fields of every width and VBR values of every width, including near the end.
    #[test]
    fn window_reads_match_bit_by_bit_reads() {
        let data: Vec<u8> = (0..40u32).map(|i| (i.wrapping_mul(0x9E37_79B9) >> 13) as u8).collect();
        let bit = |i: u64| (data[(i / 8) as usize] >> (i % 8)) & 1;
        let end = data.len() as u64 * 8;
        let fixed = |at: u64, w: u32| -> Option<u64> {
            (at + w as u64 <= end).then(|| (0..w as u64).fold(0, |v, k| v | (bit(at + k) as u64) << k))
        };
        for at in 0..end {
            for w in 0..=64 {
                let mut r = BitReader::new(&data);
                r.seek(at).unwrap();
                assert_eq!(r.read(w).ok(), fixed(at, w), "read({w}) at {at}");
                let mut r = BitReader::new(&data);
                r.seek(at).unwrap();
                let mut out = Vec::new();
                let got = r.fixed_array(w, 1, &mut out, |v| v).ok().map(|_| out[0]);
                assert_eq!(got, fixed(at, w), "fixed_array({w}) at {at}");
            }
            for w in 2..=32u32 {
                let mut r = BitReader::new(&data);
                r.seek(at).unwrap();
                // Reference: chunk by chunk.
                let (mut p, mut value, mut shift, mut want) = (at, 0u64, 0u32, None);
                while let Some(c) = fixed(p, w) {
                    p += w as u64;
                    let payload = c & ((1 << (w - 1)) - 1);
                    if shift >= 64 || (shift > 0 && payload >> (64 - shift) != 0 && shift + w - 1 > 64) {
                        break;
                    }
                    value |= payload << shift;
                    if c >> (w - 1) == 0 {
                        want = Some((value, p));
                        break;
                    }
                    shift += w - 1;
                }
                let got = r.vbr(w).ok().map(|v| (v, r.pos()));
                assert_eq!(got, want, "vbr({w}) at {at}");
                let mut r = BitReader::new(&data);
                r.seek(at).unwrap();
                let mut out = Vec::new();
                let got = r.vbr_array(w, 1, &mut out).ok().map(|_| (out[0], r.pos()));
                assert_eq!(got, want, "vbr_array({w}) at {at}");
            }
        }
    }
}
