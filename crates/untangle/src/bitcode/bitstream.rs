//! The bit-level reader: fixed-width fields, variable-width (VBR) integers and 32-bit
//! alignment, little-endian as LLVM's bitstream container defines them
//! (LLVM "Bitcode File Format" document, "Bitstream Format" section: fields are packed
//! from the least significant bit of each byte; a VBR-n value is a sequence of n-bit chunks
//! whose high bit says another chunk follows).
//!
//! Every read checks the remaining bits first, so a truncated input ends in
//! [`ErrorKind::UnexpectedEof`], never in an out-of-bounds access.

use super::error::ErrorKind;

pub type Res<T> = std::result::Result<T, ErrorKind>;

#[derive(Clone)]
pub struct BitReader<'a> {
    data: &'a [u8],
    /// Next byte to load into `word`.
    next_byte: usize,
    /// Unread bits, least significant first.
    word: u64,
    /// How many bits of `word` are unread.
    bits: u32,
    /// Total bits.
    end: u64,
}

impl<'a> BitReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        BitReader { data, next_byte: 0, word: 0, bits: 0, end: data.len() as u64 * 8 }
    }

    /// Current position in bits.
    pub fn pos(&self) -> u64 {
        self.next_byte as u64 * 8 - self.bits as u64
    }

    pub fn end(&self) -> u64 {
        self.end
    }

    pub fn remaining(&self) -> u64 {
        self.end - self.pos()
    }

    pub fn at_end(&self) -> bool {
        self.pos() >= self.end
    }

    /// Load the next (up to) eight bytes; `bits` must be 0.
    #[inline]
    fn refill(&mut self) {
        match self.data.get(self.next_byte..self.next_byte + 8) {
            Some(w) => {
                self.word = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
                self.bits = 64;
                self.next_byte += 8;
            }
            None => {
                let mut w = 0u64;
                let mut n = 0;
                for &b in self.data.iter().skip(self.next_byte) {
                    w |= (b as u64) << (8 * n);
                    n += 1;
                }
                self.word = w;
                self.bits = 8 * n;
                self.next_byte += n as usize;
            }
        }
    }

    /// Move to an absolute bit position inside the input.
    pub fn seek(&mut self, bit: u64) -> Res<()> {
        if bit > self.end {
            return Err(ErrorKind::UnexpectedEof);
        }
        self.next_byte = (bit / 8) as usize;
        self.word = 0;
        self.bits = 0;
        let skip = (bit % 8) as u32;
        if skip > 0 {
            self.refill();
            self.word >>= skip;
            self.bits -= skip;
        }
        Ok(())
    }

    /// Read `width` bits (0..=64) as an unsigned value.
    #[inline]
    pub fn read(&mut self, width: u32) -> Res<u64> {
        if width <= self.bits {
            let v = self.word & mask(width);
            self.word = if width >= 64 { 0 } else { self.word >> width };
            self.bits -= width;
            return Ok(v);
        }
        if width > 64 {
            return Err(ErrorKind::InvalidAbbrev("field wider than 64 bits"));
        }
        if self.remaining() < width as u64 {
            return Err(ErrorKind::UnexpectedEof);
        }
        let (low, low_bits) = (self.word, self.bits);
        self.refill();
        let need = width - low_bits;
        let v = low | ((self.word & mask(need)) << low_bits);
        self.word = if need >= 64 { 0 } else { self.word >> need };
        self.bits -= need;
        Ok(v)
    }

    /// Read a VBR-`width` value (`width` in 2..=32), at most 64 bits of payload.
    #[inline]
    pub fn vbr(&mut self, width: u32) -> Res<u64> {
        if !(2..=32).contains(&width) {
            return Err(ErrorKind::InvalidAbbrev("VBR width out of range"));
        }
        let hi = 1u64 << (width - 1);
        let mut piece = self.read(width)?;
        if piece & hi == 0 {
            return Ok(piece);
        }
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

    /// Skip to the next multiple of 32 bits.
    pub fn align32(&mut self) -> Res<()> {
        let aligned = (self.pos() + 31) & !31;
        if aligned > self.end {
            return Err(ErrorKind::UnexpectedEof);
        }
        self.seek(aligned)
    }

    /// The bytes from the current (byte-aligned) position, `len` of them.
    pub fn bytes(&mut self, len: u64) -> Res<&'a [u8]> {
        let pos = self.pos();
        if !pos.is_multiple_of(8) || len.saturating_mul(8) > self.remaining() {
            return Err(ErrorKind::UnexpectedEof);
        }
        let start = (pos / 8) as usize;
        let slice = self.data.get(start..start + len as usize).ok_or(ErrorKind::UnexpectedEof)?;
        self.seek(pos + len * 8)?;
        Ok(slice)
    }
}

#[inline]
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
}
