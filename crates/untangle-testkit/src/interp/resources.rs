//! Resources as D3D defines them: raw, structured and typed buffers, textures, constant
//! buffers, samplers; their contents, out-of-bounds rules and format conversion.
//!
//! Sources: DXC `docs/DXIL.rst` ("Out-of-bounds behavior": loads return 0, stores are
//! dropped; `RawBufferLoad`/`BufferLoad`/`TextureLoad` coordinates), the D3D11.3
//! functional spec (structured buffer bounds: an access is out of bounds when the element
//! index is past the end *or* the byte offset is past the stride).
//!
//! Where D3D leaves a choice open the value is tagged [`Acc::ANY`]: a component partly out
//! of bounds, a structured offset past the stride (D3D11 drops it; D3D12 drivers differ),
//! components a typed format does not have, the status of an out-of-bounds access.

use super::float::Fk;
use super::memory::Mem;
use super::value::{Acc, Handle, Scalar};
use untangle::dxil::ResourceClass;

/// The per-component type of a texel format.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum CompKind {
    Uint,
    Sint,
    Float,
    /// 32-bit float depth (`D32_SFLOAT` on Vulkan: what comparison sampling needs).
    Depth,
}

impl CompKind {
    /// Float components (`Float` or `Depth`).
    pub fn is_float(self) -> bool {
        matches!(self, CompKind::Float | CompKind::Depth)
    }
}

/// A texel format: 1–4 components of 32 bits, or of 16 bits for integers (the formats
/// the differential harness binds: conversion is the identity, so a typed load returns
/// the stored bits, zero-extended).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct TexelFormat {
    pub kind: CompKind,
    pub comps: u32,
    /// Bits of a component: 32, or 16 (`Uint`/`Sint` only).
    pub bits: u32,
}

impl TexelFormat {
    /// A format of 32-bit components.
    pub fn w32(kind: CompKind, comps: u32) -> TexelFormat {
        TexelFormat { kind, comps, bits: 32 }
    }

    /// Bytes of one component.
    pub fn comp_bytes(self) -> usize {
        self.bits as usize / 8
    }

    pub fn bytes(self) -> usize {
        self.comp_bytes() * self.comps as usize
    }
}

/// Texture shapes the interpreter reads and writes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum TexDim {
    D1,
    D1Array,
    D2,
    D2Array,
    D3,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Filter {
    Point,
    Linear,
}

#[derive(Clone, PartialEq, Debug)]
pub enum ResKind {
    Raw,
    Structured {
        stride: u32,
    },
    Typed {
        format: TexelFormat,
    },
    /// `extent`: width, height, depth or layers (unused 1).
    Texture {
        dim: TexDim,
        format: TexelFormat,
        extent: [u32; 3],
    },
    Cbuffer,
    /// `compare`: a comparison sampler, with the harness's one operation
    /// ([`COMPARE_LESS_EQUAL`]).
    Sampler {
        filter: Filter,
        compare: bool,
    },
}

/// The comparison the harness's comparison samplers make: `reference <= texel` passes
/// (D3D `COMPARISON_LESS_EQUAL`, Vulkan `COMPARE_OP_LESS_OR_EQUAL`: reference first in both).
pub const COMPARE_LESS_EQUAL: bool = true;

/// One bound resource: its register, kind and contents (after a run, the results).
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceData {
    pub class: ResourceClass,
    pub space: u32,
    pub register: u32,
    pub kind: ResKind,
    pub mem: Mem,
    /// The UAV counter (`IncrementCounter`/`DecrementCounter`), if it has one.
    pub counter: Option<u32>,
}

/// The resources of a dispatch, looked up by register.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resources {
    pub list: Vec<ResourceData>,
    /// Acceleration structures, as scenes of the interpreter's own model.
    pub scenes: Vec<super::ray_query::SceneBinding>,
}

impl Resources {
    pub fn find(&self, h: Handle) -> Option<usize> {
        match h {
            Handle::Reg { class, space, register } => {
                self.list.iter().position(|r| r.class == class && r.space == space && r.register == register)
            }
            Handle::Heap { .. } => None,
        }
    }
}

/// A load's result components and whether the access was in bounds (the status).
pub struct Loaded {
    pub comps: Vec<Scalar>,
    pub in_bounds: bool,
}

fn zero() -> Scalar {
    Scalar::exact(0)
}

impl ResourceData {
    /// Number of elements of a buffer (raw: bytes; structured: structures; typed: texels).
    pub fn elements(&self) -> u64 {
        let n = self.mem.len() as u64;
        match &self.kind {
            ResKind::Raw | ResKind::Cbuffer => n,
            ResKind::Structured { stride } => n / (*stride).max(1) as u64,
            ResKind::Typed { format } => n / format.bytes() as u64,
            ResKind::Texture { extent, .. } => extent.iter().map(|&e| e as u64).product(),
            ResKind::Sampler { .. } => 0,
        }
    }

    /// Byte address of a raw or structured access, and whether D3D calls it in bounds
    /// structurally (structured: the offset lies inside the stride). `None`: not a buffer.
    fn buffer_address(&self, c0: u64, c1: u64, size: u64, k: u64) -> Option<(i64, bool)> {
        match &self.kind {
            ResKind::Raw => Some(((c0 + k * size) as i64, true)),
            ResKind::Structured { stride } => {
                let stride = *stride as u64;
                let off = c1 + k * size;
                Some(((c0 * stride + off) as i64, off + size <= stride))
            }
            _ => None,
        }
    }

    /// `RawBufferLoad`/`BufferLoad` on a raw or structured buffer: `count` components of
    /// `size` bytes from `c0` (bytes) or element `c0` at byte offset `c1`.
    pub fn load_raw(&self, c0: u64, c1: u64, size: usize, count: usize) -> Loaded {
        let mut comps = Vec::with_capacity(count);
        let mut all_in = true;
        for k in 0..count {
            if self.misaligned(c0, c1, size) {
                // D3D requires aligned raw addresses; what a misaligned one reads is open.
                comps.push(Scalar::undefined());
                continue;
            }
            let Some((addr, inside_stride)) = self.buffer_address(c0, c1, size as u64, k as u64) else {
                comps.push(Scalar::undefined());
                all_in = false;
                continue;
            };
            match self.mem.read(addr, size) {
                Some(v) if inside_stride => comps.push(v),
                // Past the stride: D3D11 says out of bounds (0), a linear address reads the
                // next structure: both seen in practice, so undefined.
                Some(_) => {
                    comps.push(Scalar::undefined());
                    all_in = false;
                }
                None => {
                    let partly = addr < self.mem.len() as i64 && addr >= 0;
                    comps.push(if partly { Scalar::undefined() } else { zero() });
                    all_in = false;
                }
            }
        }
        Loaded { comps, in_bounds: all_in }
    }

    /// `RawBufferStore` (components whose mask bit is set) and `RawBufferVectorStore` (every
    /// lane): component `k` of `vals` when `written(k)`; out of bounds dropped, past a
    /// structure's stride undefined (the word that a linear address would hit is marked).
    pub fn store_raw(
        &mut self,
        c0: u64,
        c1: u64,
        size: usize,
        vals: &[(Scalar, Option<Fk>)],
        written: impl Fn(usize) -> bool,
    ) {
        for (k, (v, fk)) in vals.iter().enumerate() {
            if !written(k) {
                continue;
            }
            let Some((addr, inside_stride)) = self.buffer_address(c0, c1, size as u64, k as u64) else { continue };
            if self.misaligned(c0, c1, size) {
                let a = addr & !3;
                self.mem.mark_any(a, size + 4);
                continue;
            }
            if inside_stride {
                if !self.mem.write(addr, size, *v, *fk) && addr >= 0 {
                    // Partly out of bounds: the bytes inside may or may not be written.
                    self.mem.mark_any(addr, size);
                }
            } else {
                self.mem.mark_any(addr, size);
            }
        }
    }

    /// A raw or structured address not aligned to its component size (4 bytes at most).
    fn misaligned(&self, c0: u64, c1: u64, size: usize) -> bool {
        let a = size.min(4) as u64;
        match &self.kind {
            ResKind::Raw => !c0.is_multiple_of(a),
            ResKind::Structured { stride } => !(c0 * *stride as u64 + c1).is_multiple_of(a),
            _ => false,
        }
    }

    /// Texel index of typed coordinates, `None` out of bounds.
    fn texel_index(&self, coords: [u64; 3]) -> Option<u64> {
        match &self.kind {
            ResKind::Typed { .. } => (coords[0] < self.elements()).then_some(coords[0]),
            ResKind::Texture { dim, extent, .. } => {
                let [w, h, d] = extent.map(|e| e as u64);
                let (x, y, z) = match dim {
                    TexDim::D1 => (coords[0], 0, 0),
                    TexDim::D1Array => (coords[0], 0, coords[1]),
                    TexDim::D2 => (coords[0], coords[1], 0),
                    TexDim::D2Array | TexDim::D3 => (coords[0], coords[1], coords[2]),
                };
                let (h, d) = match dim {
                    TexDim::D1Array => (1, h.max(d)),
                    _ => (h, d),
                };
                (x < w && y < h && z < d).then_some(x + w * (y + h * z))
            }
            _ => None,
        }
    }

    fn format(&self) -> Option<TexelFormat> {
        match &self.kind {
            ResKind::Typed { format } | ResKind::Texture { format, .. } => Some(*format),
            _ => None,
        }
    }

    /// A typed load (`BufferLoad` on a typed buffer, `TextureLoad`): four components,
    /// those the format lacks undefined; out of bounds all 0.
    pub fn load_typed(&self, coords: [u64; 3]) -> Loaded {
        let Some(format) = self.format() else {
            return Loaded { comps: vec![Scalar::undefined(); 4], in_bounds: false };
        };
        let Some(i) = self.texel_index(coords) else {
            return Loaded { comps: vec![zero(); 4], in_bounds: false };
        };
        let base = i as i64 * format.bytes() as i64;
        let comps = (0..4)
            .map(|k| {
                if k < format.comps {
                    let cb = format.comp_bytes();
                    let mut v = self.mem.read(base + (cb * k as usize) as i64, cb).unwrap_or_else(Scalar::undefined);
                    if format.kind.is_float() && super::float::is_denorm(v.bits, Fk::F) {
                        // Format conversion may flush denormals.
                        v.acc = Acc::ANY;
                    }
                    v
                } else {
                    Scalar::undefined()
                }
            })
            .collect();
        Loaded { comps, in_bounds: true }
    }

    /// A typed store of the components in `mask`; out of bounds dropped.
    pub fn store_typed(&mut self, coords: [u64; 3], vals: &[Scalar; 4], mask: u8) {
        let Some(format) = self.format() else { return };
        let Some(i) = self.texel_index(coords) else { return };
        let base = i as i64 * format.bytes() as i64;
        let fk = format.kind.is_float().then_some(Fk::F);
        for (k, &val) in vals.iter().enumerate().take(format.comps as usize) {
            if mask & (1 << k) != 0 {
                let mut v = val;
                if fk.is_some() && super::float::is_denorm(v.bits, Fk::F) {
                    v.acc = Acc::ANY;
                }
                let cb = format.comp_bytes();
                self.mem.write(base + (cb * k) as i64, cb, v, fk);
            }
        }
    }

    /// Byte offset of the 32-bit word an atomic at these coordinates touches.
    pub fn atomic_address(&self, coords: [u64; 3], size: usize) -> Option<i64> {
        match &self.kind {
            ResKind::Raw => Some(coords[0] as i64),
            ResKind::Structured { stride } => {
                (coords[1] + size as u64 <= *stride as u64).then(|| (coords[0] * *stride as u64 + coords[1]) as i64)
            }
            ResKind::Typed { format } | ResKind::Texture { format, .. } => {
                let f = *format;
                self.texel_index(coords).map(|i| i as i64 * f.bytes() as i64)
            }
            _ => None,
        }
        .filter(|&a| self.mem.in_bounds(a, size))
    }

    /// One 16-byte row of a constant buffer (`CBufferLoadLegacy`); past the end undefined.
    pub fn cbuffer_read(&self, offset: i64, size: usize) -> Scalar {
        self.mem.read(offset, size).unwrap_or_else(Scalar::undefined)
    }
}
