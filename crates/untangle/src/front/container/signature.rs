//! Program signatures: `ISG1`/`OSG1`/`PSG1` (DXIL) and the older `ISGN`/`OSGN`/`PCSG`
//! and `OSG5` of FXC-era containers.
//!
//! Facts: DXC `DxilContainer.h` (`DxilProgramSignature`, `DxilProgramSignatureElement`
//! and its enums `DxilProgramSigSemantic`, `DxilProgramSigCompType`,
//! `DxilProgramSigMinPrecision`), DXC `DxilContainerAssembler.cpp`
//! (`DxilProgramSignatureWriter`: one element per semantic index, names after the
//! elements, offsets from the start of the chunk), and dxvk `src/dxbc/dxbc_chunk_isgn.cpp`
//! for which fourccs carry a stream (`*SG1`, `OSG5`) and a min precision (`*SG1`).
//!
//! ```text
//! 0  u32 element count
//! 4  u32 offset of the first element (from the chunk start; 8 in practice)
//! element (32 bytes in *SG1):
//!    u32 stream        (absent in ISGN/OSGN/PCSG)
//!    u32 semantic name offset, from the chunk start, NUL-terminated
//!    u32 semantic index, u32 system value (D3D_NAME), u32 component type, u32 register
//!    u8 mask, u8 read/write mask, u16 padding
//!    u32 min precision (only in *SG1)
//! ```

use serde::Serialize;

use super::chunk::{Chunk, FourCc};
use super::error::ContainerError;
use super::reader::Reader;

open_enum! {
    /// `DxilProgramSigSemantic` (= `D3D_NAME`): the system value an element carries.
    pub enum SystemValue: u32 {
        Undefined = 0, Position = 1, ClipDistance = 2, CullDistance = 3, RenderTargetArrayIndex = 4,
        ViewPortArrayIndex = 5, VertexID = 6, PrimitiveID = 7, InstanceID = 8, IsFrontFace = 9,
        SampleIndex = 10, FinalQuadEdgeTessfactor = 11, FinalQuadInsideTessfactor = 12,
        FinalTriEdgeTessfactor = 13, FinalTriInsideTessfactor = 14, FinalLineDetailTessfactor = 15,
        FinalLineDensityTessfactor = 16, Barycentrics = 23, ShadingRate = 24, CullPrimitive = 25,
        Target = 64, Depth = 65, Coverage = 66, DepthGE = 67, DepthLE = 68, StencilRef = 69,
        InnerCoverage = 70,
    }
}

open_enum! {
    /// `DxilProgramSigCompType` (the first four values are also `D3D_REGISTER_COMPONENT_TYPE`).
    pub enum ComponentType: u32 {
        Unknown = 0, UInt32 = 1, SInt32 = 2, Float32 = 3, UInt16 = 4, SInt16 = 5, Float16 = 6, UInt64 = 7,
        SInt64 = 8, Float64 = 9,
    }
}

open_enum! {
    /// `DxilProgramSigMinPrecision`.
    pub enum MinPrecision: u32 {
        Default = 0, Float16 = 1, Float2_8 = 2, Reserved = 3, SInt16 = 4, UInt16 = 5, Any16 = 0xf0,
        Any10 = 0xf1,
    }
}

/// Which element layout a signature chunk uses; decided by its fourcc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum SignatureLayout {
    /// `ISGN`, `OSGN`, `PCSG`: 24-byte elements, no stream, no min precision.
    Basic,
    /// `OSG5`: 28-byte elements with a stream.
    WithStream,
    /// `ISG1`, `OSG1`, `PSG1`: 32-byte elements with stream and min precision.
    Full,
}

impl SignatureLayout {
    pub fn for_fourcc(fourcc: FourCc) -> Option<Self> {
        match &fourcc.0 {
            b"ISG1" | b"OSG1" | b"PSG1" => Some(SignatureLayout::Full),
            b"OSG5" => Some(SignatureLayout::WithStream),
            b"ISGN" | b"OSGN" | b"PCSG" => Some(SignatureLayout::Basic),
            _ => None,
        }
    }

    pub fn element_size(self) -> usize {
        match self {
            SignatureLayout::Basic => 24,
            SignatureLayout::WithStream => 28,
            SignatureLayout::Full => 32,
        }
    }
}

/// One row of a signature. Multi-row elements (e.g. a tess factor array) appear once
/// per semantic index, each with its own register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SignatureElement<'a> {
    /// Geometry-shader output stream; 0 where the layout has none.
    pub stream: u32,
    pub semantic_name: &'a str,
    pub semantic_index: u32,
    pub system_value: SystemValue,
    pub component_type: ComponentType,
    /// Register (row); `0xffffffff` for elements that are not allocated a register.
    pub register: u32,
    /// Components the element occupies (bit 0 = x).
    pub mask: u8,
    /// In an input signature, the components the shader always reads; in an output
    /// signature, the components it never writes (DXC's `AlwaysReads_Mask` /
    /// `NeverWrites_Mask` union).
    pub rw_mask: u8,
    /// `Default` where the layout has none.
    pub min_precision: MinPrecision,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Signature<'a> {
    pub fourcc: FourCc,
    pub layout: SignatureLayout,
    pub elements: Vec<SignatureElement<'a>>,
}

impl<'a> Signature<'a> {
    pub fn parse(chunk: &Chunk<'a>) -> Result<Self, ContainerError> {
        let mut r = Reader::of(chunk);
        let Some(layout) = SignatureLayout::for_fourcc(chunk.fourcc) else {
            return Err(ContainerError::InvalidValue {
                at: r.here(),
                what: "signature chunk fourcc",
                expected: "ISG1, OSG1, PSG1, OSG5, ISGN, OSGN or PCSG",
                found: u64::from(chunk.fourcc.to_u32()),
            });
        };
        let count = r.u32("signature element count")?;
        let first = r.u32("signature element offset")?;
        if count == 0 {
            return Ok(Signature { fourcc: chunk.fourcc, layout, elements: Vec::new() });
        }
        // Elements may not overlap the 8-byte signature header.
        if first < 8 {
            return Err(r.invalid(4, "signature element offset", "at least 8", u64::from(first)));
        }
        let stride = layout.element_size() as u64;
        let len = chunk.data.len() as u64;
        let first = u64::from(first);
        if first > len {
            return Err(ContainerError::OutOfRange {
                at: r.at(4),
                what: "signature elements",
                start: first,
                len: 0,
                limit: len,
            });
        }
        let mut table = r.sub(first, len - first, "signature elements")?;
        let (_, count) = table.check_count(u64::from(count), stride, "signature element")?;
        let strings = Reader::of(chunk);
        let mut elements = Vec::with_capacity(count);
        for _ in 0..count {
            let stream = match layout {
                SignatureLayout::Basic => 0,
                _ => table.u32("element stream")?,
            };
            let name_offset = table.u32("semantic name offset")?;
            let semantic_name = strings.cstr_at(u64::from(name_offset), "semantic name")?;
            let semantic_index = table.u32("semantic index")?;
            let system_value = SystemValue::from_raw(table.u32("system value")?);
            let component_type = ComponentType::from_raw(table.u32("component type")?);
            let register = table.u32("register")?;
            let mask = table.u8("mask")?;
            let rw_mask = table.u8("read/write mask")?;
            table.u16("padding")?;
            let min_precision = match layout {
                SignatureLayout::Full => MinPrecision::from_raw(table.u32("min precision")?),
                _ => MinPrecision::Default,
            };
            elements.push(SignatureElement {
                stream,
                semantic_name,
                semantic_index,
                system_value,
                component_type,
                register,
                mask,
                rw_mask,
                min_precision,
            });
        }
        Ok(Signature { fourcc: chunk.fourcc, layout, elements })
    }

    pub fn len(&self) -> usize {
        self.elements.len()
    }

    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ISG1 payload with the given (name, index, register) rows.
    pub(crate) fn isg1(rows: &[(&str, u32, u32)]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
        out.extend_from_slice(&8u32.to_le_bytes());
        let mut name_at = 8 + 32 * rows.len();
        let mut names = Vec::new();
        for &(name, index, register) in rows {
            for v in [0, name_at as u32, index, 0, 3, register] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&[0xf, 0x3, 0, 0]);
            out.extend_from_slice(&1u32.to_le_bytes());
            names.extend_from_slice(name.as_bytes());
            names.push(0);
            name_at += name.len() + 1;
        }
        out.extend_from_slice(&names);
        while out.len() % 4 != 0 {
            out.push(0);
        }
        out
    }

    fn chunk<'a>(fourcc: &[u8; 4], data: &'a [u8]) -> Chunk<'a> {
        Chunk { fourcc: FourCc(*fourcc), offset: 64, size: data.len() as u32, data }
    }

    fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
        bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }

    #[test]
    fn parses_isg1() {
        let bytes = isg1(&[("TEXCOORD", 0, 0), ("TEXCOORD", 1, 1)]);
        let sig = Signature::parse(&chunk(b"ISG1", &bytes)).unwrap();
        assert_eq!(sig.layout, SignatureLayout::Full);
        assert_eq!(sig.len(), 2);
        let e = sig.elements[1];
        assert_eq!(e.semantic_name, "TEXCOORD");
        assert_eq!((e.semantic_index, e.register, e.mask, e.rw_mask), (1, 1, 0xf, 3));
        assert_eq!(e.component_type, ComponentType::Float32);
        assert_eq!(e.min_precision, MinPrecision::Float16);
        assert_eq!(e.system_value, SystemValue::Undefined);
    }

    #[test]
    fn parses_legacy_isgn() {
        // One 24-byte element: name, index, sv=Position, type=float, register 0, mask xyzw.
        let mut bytes = Vec::new();
        for v in [1u32, 8, 32, 0, 1, 3, 0] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        bytes.extend_from_slice(&[0xf, 0xf, 0, 0]);
        bytes.extend_from_slice(b"SV_Position\0");
        let sig = Signature::parse(&chunk(b"ISGN", &bytes)).unwrap();
        assert_eq!(sig.layout, SignatureLayout::Basic);
        assert_eq!(sig.elements[0].semantic_name, "SV_Position");
        assert_eq!(sig.elements[0].system_value, SystemValue::Position);
        assert_eq!(sig.elements[0].stream, 0);
    }

    #[test]
    fn empty_signature() {
        let bytes = [0u8, 0, 0, 0, 8, 0, 0, 0];
        assert!(Signature::parse(&chunk(b"OSG1", &bytes)).unwrap().is_empty());
    }

    #[test]
    fn rejects_bad_signatures() {
        let good = isg1(&[("A", 0, 0)]);
        // Count larger than the chunk.
        let mut bad = good.clone();
        put_u32(&mut bad, 0, 1000);
        let err = Signature::parse(&chunk(b"ISG1", &bad)).unwrap_err();
        assert!(matches!(err, ContainerError::CountTooLarge { count: 1000, .. }), "{err}");
        assert_eq!(err.chunk(), Some(FourCc::ISG1));
        // Element offset inside the header or past the end.
        let mut bad = good.clone();
        put_u32(&mut bad, 4, 4);
        assert!(matches!(Signature::parse(&chunk(b"ISG1", &bad)), Err(ContainerError::InvalidValue { .. })));
        let mut bad = good.clone();
        put_u32(&mut bad, 4, u32::MAX);
        assert!(Signature::parse(&chunk(b"ISG1", &bad)).is_err());
        // Name offset out of range.
        let mut bad = good.clone();
        put_u32(&mut bad, 12, 4096);
        let err = Signature::parse(&chunk(b"ISG1", &bad)).unwrap_err();
        assert!(matches!(err, ContainerError::OutOfRange { start: 4096, .. }), "{err}");
        // Name without terminator.
        let mut bad = good.clone();
        let len = bad.len();
        bad[len - 3..].copy_from_slice(b"xyz");
        put_u32(&mut bad, 12, (len - 3) as u32);
        assert!(matches!(Signature::parse(&chunk(b"ISG1", &bad)), Err(ContainerError::UnterminatedString { .. })));
        // Truncated header.
        assert!(matches!(Signature::parse(&chunk(b"ISG1", &good[..6])), Err(ContainerError::Truncated { .. })));
        // Not a signature chunk.
        assert!(Signature::parse(&chunk(b"DXIL", &good)).is_err());
    }
}
