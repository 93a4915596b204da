//! A bounds-checked little-endian cursor over a byte slice.
//!
//! All container structures are little-endian and packed (DXC declares them under
//! `#pragma pack(1)`), so fields are read byte-wise with no alignment assumptions. The
//! cursor knows its absolute position in the input and the chunk it reads, so every
//! error it makes names both. Arithmetic on untrusted offsets and sizes is done in `u64`
//! (two `u32`s cannot overflow it) and checked against the slice before any indexing.

use super::chunk::{Chunk, FourCc};
use super::error::{ContainerError, Location};

#[derive(Clone, Debug)]
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute offset of `data[0]` in the whole input, for error locations.
    base: usize,
    chunk: Option<FourCc>,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], base: usize, chunk: Option<FourCc>) -> Self {
        Reader { data, pos: 0, base, chunk }
    }

    /// A reader over `chunk`'s payload, its errors located in the chunk.
    pub fn of(chunk: &Chunk<'a>) -> Self {
        Reader::new(chunk.data, chunk.payload_offset(), Some(chunk.fourcc))
    }

    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Location of the cursor.
    pub fn here(&self) -> Location {
        self.at(self.pos)
    }

    /// Location of a position relative to the start of this reader's slice.
    pub fn at(&self, rel: usize) -> Location {
        Location::new(self.base.saturating_add(rel), self.chunk)
    }

    /// Absolute offset of a position relative to this reader's slice.
    pub fn absolute(&self, rel: usize) -> usize {
        self.base.saturating_add(rel)
    }

    pub fn bytes(&mut self, len: usize, what: &'static str) -> Result<&'a [u8], ContainerError> {
        if len > self.remaining() {
            return Err(ContainerError::Truncated {
                at: self.here(),
                what,
                needed: len as u64,
                available: self.remaining() as u64,
            });
        }
        let out = &self.data[self.pos..self.pos + len];
        self.pos += len;
        Ok(out)
    }

    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], ContainerError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.bytes(N, what)?);
        Ok(out)
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8, ContainerError> {
        Ok(self.array::<1>(what)?[0])
    }

    pub fn u16(&mut self, what: &'static str) -> Result<u16, ContainerError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub fn u32(&mut self, what: &'static str) -> Result<u32, ContainerError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub fn u64(&mut self, what: &'static str) -> Result<u64, ContainerError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    pub fn fourcc(&mut self, what: &'static str) -> Result<FourCc, ContainerError> {
        Ok(FourCc(self.array(what)?))
    }

    /// Everything after the cursor; the cursor moves to the end.
    pub fn rest(&mut self) -> &'a [u8] {
        let out = &self.data[self.pos..];
        self.pos = self.data.len();
        out
    }

    /// `data[offset .. offset + len]`, relative to this reader's slice.
    pub fn slice_at(&self, offset: u64, len: u64, what: &'static str) -> Result<&'a [u8], ContainerError> {
        let limit = self.data.len() as u64;
        match offset.checked_add(len) {
            Some(end) if end <= limit => Ok(&self.data[offset as usize..end as usize]),
            _ => Err(ContainerError::OutOfRange { at: self.at(self.pos), what, start: offset, len, limit }),
        }
    }

    /// A reader over `data[offset .. offset + len]` that keeps absolute locations.
    pub fn sub(&self, offset: u64, len: u64, what: &'static str) -> Result<Reader<'a>, ContainerError> {
        let data = self.slice_at(offset, len, what)?;
        Ok(Reader::new(data, self.absolute(offset as usize), self.chunk))
    }

    /// Checks that `count` records of `stride` bytes fit in what remains, before anyone
    /// allocates for them; returns the byte length and the count as `usize`.
    pub fn check_count(&self, count: u64, stride: u64, what: &'static str) -> Result<(usize, usize), ContainerError> {
        let available = self.remaining() as u64;
        let needed = count.saturating_mul(stride);
        if needed > available {
            return Err(ContainerError::CountTooLarge { at: self.here(), what, count, needed, available });
        }
        Ok((needed as usize, count as usize))
    }

    /// The NUL-terminated string starting at `offset` of this reader's slice.
    pub fn cstr_at(&self, offset: u64, what: &'static str) -> Result<&'a str, ContainerError> {
        let limit = self.data.len() as u64;
        if offset >= limit {
            return Err(ContainerError::OutOfRange { at: self.at(self.pos), what, start: offset, len: 1, limit });
        }
        let start = offset as usize;
        let tail = &self.data[start..];
        let Some(len) = tail.iter().position(|&b| b == 0) else {
            return Err(ContainerError::UnterminatedString { at: self.at(start), what });
        };
        std::str::from_utf8(&tail[..len]).map_err(|_| ContainerError::InvalidUtf8 { at: self.at(start), what })
    }

    /// A string stored as a `u16` byte count, that many bytes, and a NUL (`ILDN`'s debug
    /// name). The count must match: a missing NUL is `UnterminatedString`.
    pub fn counted_cstr(&mut self, count_what: &'static str, what: &'static str) -> Result<&'a str, ContainerError> {
        let len = self.u16(count_what)?;
        let start = self.pos;
        let bytes = self.bytes(usize::from(len), what)?;
        if self.u8(what)? != 0 {
            return Err(ContainerError::UnterminatedString { at: self.at(start), what });
        }
        std::str::from_utf8(bytes).map_err(|_| ContainerError::InvalidUtf8 { at: self.at(start), what })
    }

    /// An error for a field just read (`width` bytes before the cursor).
    #[cold]
    pub fn invalid(&self, width: usize, what: &'static str, expected: &'static str, found: u64) -> ContainerError {
        ContainerError::InvalidValue { at: self.at(self.pos.saturating_sub(width)), what, expected, found }
    }
}

/// Serde helper: bytes as a lowercase hex string.
pub(crate) fn serialize_hex<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&to_hex(bytes))
}

pub(crate) fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_and_reports_truncation() {
        let bytes = [1, 0, 2, 0, 0, 0, 9];
        let mut r = Reader::new(&bytes, 100, None);
        assert_eq!(r.u16("a").unwrap(), 1);
        assert_eq!(r.u32("b").unwrap(), 2);
        let err = r.u32("c").unwrap_err();
        assert_eq!(err, ContainerError::Truncated { at: Location::new(106, None), what: "c", needed: 4, available: 1 });
    }

    #[test]
    fn slice_at_checks_overflowing_ranges() {
        let bytes = [0u8; 8];
        let r = Reader::new(&bytes, 0, None);
        assert!(r.slice_at(4, 4, "x").is_ok());
        assert!(r.slice_at(4, 5, "x").is_err());
        assert!(r.slice_at(u64::MAX, 2, "x").is_err());
    }

    #[test]
    fn count_checks_before_allocation() {
        let bytes = [0u8; 8];
        let r = Reader::new(&bytes, 0, None);
        assert_eq!(r.check_count(2, 4, "x").unwrap(), (8, 2));
        assert!(matches!(r.check_count(u64::MAX, u64::MAX, "x"), Err(ContainerError::CountTooLarge { .. })));
    }

    #[test]
    fn cstr_needs_terminator_and_utf8() {
        let bytes = b"ab\0cd";
        let r = Reader::new(bytes, 0, None);
        assert_eq!(r.cstr_at(0, "s").unwrap(), "ab");
        assert_eq!(r.cstr_at(2, "s").unwrap(), "");
        assert!(matches!(r.cstr_at(3, "s"), Err(ContainerError::UnterminatedString { .. })));
        assert!(matches!(r.cstr_at(5, "s"), Err(ContainerError::OutOfRange { .. })));
        let bad = [0xffu8, 0];
        assert!(matches!(Reader::new(&bad, 0, None).cstr_at(0, "s"), Err(ContainerError::InvalidUtf8 { .. })));
    }

    #[test]
    fn hex() {
        assert_eq!(to_hex(&[0x00, 0xab, 0x10]), "00ab10");
    }
}
