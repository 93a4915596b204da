//! Chunk identifiers ([`FourCc`]) and the chunks ("parts") of a container, borrowed from
//! its bytes. Every other module of the reader builds on these two types.

use std::fmt;

use serde::Serialize;

/// Size of a part header: fourcc and payload size.
pub const CHUNK_HEADER_SIZE: usize = 8;

/// A chunk identifier: four ASCII bytes, in file order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FourCc(pub [u8; 4]);

impl FourCc {
    pub const DXBC: FourCc = FourCc(*b"DXBC");
    pub const DXIL: FourCc = FourCc(*b"DXIL");
    /// Debug DXIL: the program with debug info, when `DXIL` holds the stripped one.
    pub const ILDB: FourCc = FourCc(*b"ILDB");
    pub const ILDN: FourCc = FourCc(*b"ILDN");
    pub const SFI0: FourCc = FourCc(*b"SFI0");
    pub const HASH: FourCc = FourCc(*b"HASH");
    pub const ISG1: FourCc = FourCc(*b"ISG1");
    pub const OSG1: FourCc = FourCc(*b"OSG1");
    pub const PSG1: FourCc = FourCc(*b"PSG1");
    pub const ISGN: FourCc = FourCc(*b"ISGN");
    pub const OSGN: FourCc = FourCc(*b"OSGN");
    pub const OSG5: FourCc = FourCc(*b"OSG5");
    pub const PCSG: FourCc = FourCc(*b"PCSG");
    pub const PSV0: FourCc = FourCc(*b"PSV0");
    pub const RDAT: FourCc = FourCc(*b"RDAT");
    pub const RTS0: FourCc = FourCc(*b"RTS0");
    pub const VERS: FourCc = FourCc(*b"VERS");
    pub const STAT: FourCc = FourCc(*b"STAT");
    pub const PRIV: FourCc = FourCc(*b"PRIV");
    pub const SHEX: FourCc = FourCc(*b"SHEX");
    pub const SHDR: FourCc = FourCc(*b"SHDR");

    /// The value as DXC's `DXIL_FOURCC` macro builds it (first byte lowest).
    pub fn to_u32(self) -> u32 {
        u32::from_le_bytes(self.0)
    }

    pub fn from_u32(value: u32) -> Self {
        FourCc(value.to_le_bytes())
    }

    /// Whether all four bytes are printable ASCII.
    pub fn is_printable(self) -> bool {
        self.0.iter().all(|b| b.is_ascii_graphic() || *b == b' ')
    }
}

impl fmt::Display for FourCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_printable() {
            self.0.iter().try_for_each(|&b| write!(f, "{}", b as char))
        } else {
            write!(f, "{:#010x}", self.to_u32())
        }
    }
}

impl fmt::Debug for FourCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FourCc({self})")
    }
}

impl Serialize for FourCc {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One chunk ("part") of a container, borrowed from the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Chunk<'a> {
    pub fourcc: FourCc,
    /// Offset of the chunk header (fourcc, size) from the start of the container.
    pub offset: u32,
    /// Payload size in bytes.
    pub size: u32,
    #[serde(skip)]
    pub data: &'a [u8],
}

#[cfg(test)]
impl<'a> Chunk<'a> {
    /// A chunk of `data` whose header is at byte 40, where a one-chunk container has it
    /// (for the part parsers' tests).
    pub(crate) fn test(fourcc: FourCc, data: &'a [u8]) -> Chunk<'a> {
        Chunk { fourcc, offset: 40, size: data.len() as u32, data }
    }
}

impl Chunk<'_> {
    /// Absolute offset of the payload.
    pub fn payload_offset(&self) -> usize {
        (self.offset as usize).saturating_add(CHUNK_HEADER_SIZE)
    }

    /// Offset of the chunk header, widened.
    pub fn offset(&self) -> u64 {
        u64::from(self.offset)
    }

    /// One past the last byte of the payload.
    pub fn end(&self) -> u64 {
        self.offset() + CHUNK_HEADER_SIZE as u64 + u64::from(self.size)
    }
}
