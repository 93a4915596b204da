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
    /// Current position in bits.
    pos: u64,
    /// Total bits.
    end: u64,
}

impl<'a> BitReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        BitReader { data, pos: 0, end: data.len() as u64 * 8 }
    }

    pub fn pos(&self) -> u64 {
        self.pos
    }

    pub fn end(&self) -> u64 {
        self.end
    }

    pub fn remaining(&self) -> u64 {
        self.end - self.pos
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.end
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
    #[inline]
    pub fn read(&mut self, width: u32) -> Res<u64> {
        if width == 0 {
            return Ok(0);
        }
        if width > 32 {
            let lo = self.read(32)?;
            let hi = self.read(width - 32)?;
            return Ok(lo | (hi << 32));
        }
        if self.remaining() < width as u64 {
            return Err(ErrorKind::UnexpectedEof);
        }
        let byte = (self.pos / 8) as usize;
        let shift = (self.pos % 8) as u32;
        // Eight bytes from `byte` (zero-padded past the end: the bits we keep are inside).
        let window = match self.data.get(byte..byte + 8) {
            Some(w) => [w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]],
            None => {
                let mut w = [0u8; 8];
                for (d, s) in w.iter_mut().zip(self.data.iter().skip(byte)) {
                    *d = *s;
                }
                w
            }
        };
        let word = u64::from_le_bytes(window) >> shift;
        self.pos += width as u64;
        Ok(word & ((1u64 << width) - 1))
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
        let aligned = (self.pos + 31) & !31;
        if aligned > self.end {
            // A stream may end right after its last block without padding bytes.
            self.pos = self.end;
            return Err(ErrorKind::UnexpectedEof);
        }
        self.pos = aligned;
        Ok(())
    }

    /// The bytes from the current (byte-aligned) position, `len` of them.
    pub fn bytes(&mut self, len: u64) -> Res<&'a [u8]> {
        if !self.pos.is_multiple_of(8) || len.saturating_mul(8) > self.remaining() {
            return Err(ErrorKind::UnexpectedEof);
        }
        let start = (self.pos / 8) as usize;
        let slice = self.data.get(start..start + len as usize).ok_or(ErrorKind::UnexpectedEof)?;
        self.pos += len * 8;
        Ok(slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_and_vbr() {
        // 0b1_0110 (VBR-4: payload 6? no) — build by hand: bits LSB first.
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
