//! The DXBC container header and its chunk ("part") table.
//!
//! Layout (DXC `include/dxc/DxilContainer/DxilContainer.h`: `DxilContainerHeader`,
//! `DxilPartHeader`; also `../shared/corpus/README.md`), all little-endian:
//!
//! ```text
//! 0   "DXBC"
//! 4   16-byte hash (a modified MD5 over the rest; not verified here)
//! 20  u16 major (1), u16 minor (0)
//! 24  u32 total size in bytes, from the start of the header
//! 28  u32 chunk count
//! 32  u32 chunk offsets[count], each to a part header
//! part header: fourcc, u32 payload size, payload
//! ```
//!
//! DXC's own `IsValidDxilContainer` demands that parts follow the offset table with no
//! gaps. We only forbid what would make reads ambiguous or unsafe (a chunk outside the
//! container, inside the header or offset table, or overlapping another chunk), so a
//! container re-packed by another tool with padding between chunks still reads.

use serde::Serialize;

use super::chunk::{Chunk, FourCc, CHUNK_HEADER_SIZE};
use super::error::{ContainerError, Location};
use super::reader::{serialize_hex, Reader};

/// Size of the fixed part of the container header.
pub const HEADER_SIZE: usize = 32;
/// The only container major version there is.
pub const SUPPORTED_MAJOR: u16 = 1;

/// The fixed fields of the container header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Header {
    /// The container hash, as stored; all zero when the container was never signed.
    #[serde(serialize_with = "serialize_hex")]
    pub hash: [u8; 16],
    pub major: u16,
    pub minor: u16,
    /// Total size in bytes claimed by the header; equals the input length.
    pub total_size: u32,
    pub chunk_count: u32,
}

impl Header {
    /// The version as the single `u32` some readers treat it as.
    pub fn version_u32(&self) -> u32 {
        u32::from(self.major) | (u32::from(self.minor) << 16)
    }
}

/// Reads the header and the chunk table, and checks every chunk's bounds.
pub(crate) fn parse(bytes: &[u8]) -> Result<(Header, Vec<Chunk<'_>>), ContainerError> {
    let mut r = Reader::new(bytes, 0, None);
    // Magic first: a short non-container should say "not a container", not "truncated".
    if bytes.len() >= 4 {
        let magic = r.fourcc("container")?;
        if magic != FourCc::DXBC {
            return Err(ContainerError::BadMagic {
                at: Location::new(0, None),
                what: "container",
                expected: FourCc::DXBC,
                found: magic,
            });
        }
        r = Reader::new(bytes, 0, None);
    }
    if bytes.len() < HEADER_SIZE {
        return Err(ContainerError::Truncated {
            at: Location::new(0, None),
            what: "container header",
            needed: HEADER_SIZE as u64,
            available: bytes.len() as u64,
        });
    }
    r.fourcc("container")?;
    let hash = r.array::<16>("container hash")?;
    let major = r.u16("container major version")?;
    let minor = r.u16("container minor version")?;
    if major != SUPPORTED_MAJOR {
        return Err(ContainerError::Unsupported {
            at: Location::new(20, None),
            what: "container major version",
            supported: "1",
            found: u64::from(major),
        });
    }
    let total_size = r.u32("container total size")?;
    if u64::from(total_size) != bytes.len() as u64 {
        return Err(ContainerError::SizeMismatch {
            at: Location::new(24, None),
            what: "container total size field vs input length",
            expected: bytes.len() as u64,
            found: u64::from(total_size),
        });
    }
    let chunk_count = r.u32("chunk count")?;
    let header = Header { hash, major, minor, total_size, chunk_count };

    let (table_len, count) = r.check_count(u64::from(chunk_count), 4, "chunk offset table")?;
    let table_end = HEADER_SIZE + table_len;
    let mut chunks = Vec::with_capacity(count);
    for _ in 0..count {
        let entry_at = r.pos();
        let offset = r.u32("chunk offset")?;
        chunks.push(read_chunk(bytes, offset, table_end, entry_at)?);
    }
    check_overlaps(&chunks)?;
    Ok((header, chunks))
}

fn read_chunk(bytes: &[u8], offset: u32, table_end: usize, entry_at: usize) -> Result<Chunk<'_>, ContainerError> {
    let limit = bytes.len() as u64;
    let start = u64::from(offset);
    if start < table_end as u64 || start + CHUNK_HEADER_SIZE as u64 > limit {
        return Err(ContainerError::OutOfRange {
            at: Location::new(entry_at, None),
            what: "chunk header (must follow the offset table)",
            start,
            len: CHUNK_HEADER_SIZE as u64,
            limit,
        });
    }
    let mut r = Reader::new(bytes, 0, None);
    let mut part = r.sub(start, CHUNK_HEADER_SIZE as u64, "chunk header")?;
    let fourcc = part.fourcc("chunk fourcc")?;
    let size = part.u32("chunk size")?;
    let payload_start = start + CHUNK_HEADER_SIZE as u64;
    r = Reader::new(bytes, 0, Some(fourcc));
    let data = r.slice_at(payload_start, u64::from(size), "chunk payload").map_err(|_| ContainerError::OutOfRange {
        at: Location::new(offset as usize + 4, Some(fourcc)),
        what: "chunk payload",
        start: payload_start,
        len: u64::from(size),
        limit,
    })?;
    Ok(Chunk { fourcc, offset, size, data })
}

fn check_overlaps(chunks: &[Chunk<'_>]) -> Result<(), ContainerError> {
    let mut order: Vec<usize> = (0..chunks.len()).collect();
    order.sort_by_key(|&i| chunks[i].offset);
    for pair in order.windows(2) {
        let (first, second) = (&chunks[pair[0]], &chunks[pair[1]]);
        if second.offset() < first.end() {
            return Err(ContainerError::Overlap {
                first: first.fourcc,
                first_offset: first.offset(),
                first_end: first.end(),
                second: second.fourcc,
                second_offset: second.offset(),
            });
        }
    }
    Ok(())
}

/// A version 1.0 container with hash `hash` (all zeros: unsigned) holding `chunks`, (fourcc,
/// payload) pairs laid out in order without gaps.
pub fn write(hash: [u8; 16], chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
    let table_end = HEADER_SIZE + 4 * chunks.len();
    let total = table_end + chunks.iter().map(|(_, p)| CHUNK_HEADER_SIZE + p.len()).sum::<usize>();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"DXBC");
    out.extend_from_slice(&hash);
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(chunks.len() as u32).to_le_bytes());
    let mut at = table_end;
    for (_, payload) in chunks {
        out.extend_from_slice(&(at as u32).to_le_bytes());
        at += CHUNK_HEADER_SIZE + payload.len();
    }
    for (fourcc, payload) in chunks {
        out.extend_from_slice(*fourcc);
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(payload);
    }
    debug_assert_eq!(out.len(), total);
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Builds a container from (fourcc, payload) pairs, its hash all `0x11` bytes.
    pub(crate) fn build(chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
        write([0x11; 16], chunks)
    }

    fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
        bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }

    #[test]
    fn parses_a_well_formed_container() {
        let bytes = build(&[(b"SFI0", &[1, 0, 0, 0, 0, 0, 0, 0]), (b"ABCD", &[7, 7])]);
        let (header, chunks) = parse(&bytes).unwrap();
        assert_eq!((header.major, header.minor, header.chunk_count), (1, 0, 2));
        assert_eq!(header.hash, [0x11; 16]);
        assert_eq!(header.version_u32(), 1);
        assert_eq!(chunks[0].fourcc, FourCc::SFI0);
        assert_eq!(chunks[0].offset, 40);
        assert_eq!(chunks[0].size, 8);
        assert_eq!(chunks[1].data, &[7, 7]);
        assert_eq!(chunks[1].offset, 56);
    }

    #[test]
    fn rejects_bad_magic_and_short_inputs() {
        assert!(matches!(parse(b"DXB"), Err(ContainerError::Truncated { .. })));
        assert!(matches!(parse(b"DXBC"), Err(ContainerError::Truncated { needed: 32, available: 4, .. })));
        let mut bytes = build(&[]);
        bytes[0] = b'X';
        let err = parse(&bytes).unwrap_err();
        assert!(matches!(err, ContainerError::BadMagic { found: FourCc([b'X', b'X', b'B', b'C']), .. }), "{err}");
    }

    #[test]
    fn rejects_wrong_version_and_total_size() {
        let mut bytes = build(&[]);
        bytes[20] = 2;
        assert!(matches!(parse(&bytes), Err(ContainerError::Unsupported { found: 2, .. })));
        let mut bytes = build(&[]);
        put_u32(&mut bytes, 24, 33);
        let err = parse(&bytes).unwrap_err();
        assert!(matches!(err, ContainerError::SizeMismatch { expected: 32, found: 33, .. }), "{err}");
        let mut bytes = build(&[(b"ABCD", &[])]);
        bytes.push(0);
        assert!(matches!(parse(&bytes), Err(ContainerError::SizeMismatch { .. })));
    }

    #[test]
    fn rejects_huge_chunk_count() {
        let mut bytes = build(&[]);
        put_u32(&mut bytes, 28, u32::MAX);
        let err = parse(&bytes).unwrap_err();
        assert!(matches!(err, ContainerError::CountTooLarge { count: 0xffff_ffff, available: 0, .. }), "{err}");
    }

    #[test]
    fn rejects_out_of_range_chunks() {
        // Offset into the offset table itself.
        let mut bytes = build(&[(b"ABCD", &[1, 2, 3, 4])]);
        put_u32(&mut bytes, 32, 30);
        let err = parse(&bytes).unwrap_err();
        assert!(matches!(err, ContainerError::OutOfRange { start: 30, .. }), "{err}");
        // Offset past the end.
        put_u32(&mut bytes, 32, u32::MAX);
        assert!(matches!(parse(&bytes), Err(ContainerError::OutOfRange { .. })));
        // Payload size past the end, with the chunk named.
        let mut bytes = build(&[(b"ABCD", &[1, 2, 3, 4])]);
        put_u32(&mut bytes, 40, 5);
        let err = parse(&bytes).unwrap_err();
        assert_eq!(err.chunk(), Some(FourCc(*b"ABCD")));
        assert_eq!(err.offset(), Some(40));
        put_u32(&mut bytes, 40, u32::MAX);
        assert!(matches!(parse(&bytes), Err(ContainerError::OutOfRange { .. })));
    }

    #[test]
    fn rejects_overlapping_chunks() {
        let mut bytes = build(&[(b"AAAA", &[0; 8]), (b"BBBB", &[0; 8])]);
        // Point the second entry into the first chunk's payload, where a plausible
        // header (fourcc + size 0) sits.
        put_u32(&mut bytes, 36, 44);
        let err = parse(&bytes).unwrap_err();
        assert!(
            matches!(err, ContainerError::Overlap { first_offset: 40, first_end: 56, second_offset: 44, .. }),
            "{err}"
        );
        // The same chunk listed twice also overlaps.
        let mut bytes = build(&[(b"AAAA", &[0; 8]), (b"BBBB", &[0; 8])]);
        put_u32(&mut bytes, 36, 40);
        assert!(matches!(parse(&bytes), Err(ContainerError::Overlap { .. })));
    }

    #[test]
    fn allows_gaps_between_chunks() {
        let mut bytes = build(&[(b"AAAA", &[0; 8]), (b"BBBB", &[])]);
        // Move BBBB 4 bytes later: shrink AAAA's payload by 4 so BBBB's header still ends the file.
        put_u32(&mut bytes, 44, 4);
        put_u32(&mut bytes, 36, 60);
        bytes.truncate(60);
        bytes.extend_from_slice(b"BBBB");
        bytes.extend_from_slice(&0u32.to_le_bytes());
        let total = bytes.len() as u32;
        put_u32(&mut bytes, 24, total);
        let (_, chunks) = parse(&bytes).unwrap();
        assert_eq!(chunks[1].offset, 60);
        assert_eq!(chunks[0].data.len(), 4);
    }
}
