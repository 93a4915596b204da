//! SM 6.6 descriptor heaps: `CreateHandleFromHeap` and the `AnnotateHandle` that gives a
//! heap handle its type (DXC `docs/DXIL.rst`, "Shader Model 6.6: Dynamic Resources";
//! `%dx.types.ResourceProperties`: word 0 bits 0–7 the `ResourceKind`, bit 12 set for a
//! UAV; word 1 the structure stride, the constant buffer's size, or for typed resources
//! the component type (bits 0–7) and count (bits 8–15)).
//!
//! The interpreter's heap is a set of arrays, one per Vulkan descriptor kind the
//! translation indexes by heap index (`rootsig::layout::heap_resource_binding`): element
//! `i` of the array of kind `k` is heap descriptor `i` read as `k`. A heap resource is a
//! [`ResourceData`](super::ResourceData) in space [`HEAP_SPACE`]` + binding` (samplers:
//! [`HEAP_SAMPLER_SPACE`]), register `i`. Reading a descriptor as a type other than the
//! one bound there (another texture shape or format, a raw view of a structured buffer)
//! is undefined in D3D: the run is indeterminate. Cost: constant per handle.

use super::resources::{CompKind, ResKind, TexDim, TexelFormat};
use untangle::dxil::{ComponentType, ResourceClass, ResourceKind};

/// Space of heap resources (plus the binding); no declared range uses it.
pub const HEAP_SPACE: u32 = 0xffff_0000;
/// Space of heap samplers.
pub const HEAP_SAMPLER_SPACE: u32 = 0xffff_0100;

/// What an annotated heap handle reads: its array (Vulkan binding in the heap set), the
/// class the interpreter files it under, and the resource shape (texture extents 0).
#[derive(Clone, Debug, PartialEq)]
pub struct HeapView {
    /// Binding in the heap set (`rootsig::layout::heap_resource_binding`).
    pub binding: u32,
    pub sampler: bool,
    /// Buffers and storage images are UAVs (compared after the run) whichever view reads
    /// them: the translation gives SRV and UAV buffer views one binding.
    pub class: ResourceClass,
    pub kind: ResKind,
}

impl HeapView {
    pub fn space(&self) -> u32 {
        if self.sampler {
            HEAP_SAMPLER_SPACE
        } else {
            HEAP_SPACE + self.binding
        }
    }

    /// Whether a resource bound as `bound` can be read through this view (textures: same
    /// shape and format, any extent).
    pub fn reads(&self, bound: &ResKind) -> bool {
        match (&self.kind, bound) {
            (ResKind::Texture { dim: a, format: fa, .. }, ResKind::Texture { dim: b, format: fb, .. }) => {
                a == b && fa == fb
            }
            (ResKind::Cbuffer, ResKind::Cbuffer) => true,
            (a, b) => a == b,
        }
    }
}

fn format(extra: u32) -> Result<TexelFormat, String> {
    let kind = match ComponentType::from_raw(extra & 0xff) {
        ComponentType::F32 => CompKind::Float,
        ComponentType::I32 => CompKind::Sint,
        ComponentType::U32 => CompKind::Uint,
        other => return Err(format!("heap typed element {other:?}")),
    };
    let comps = ((extra >> 8) & 0xff).clamp(1, 4);
    if comps == 3 {
        return Err("3-component heap texture format".into());
    }
    Ok(TexelFormat::w32(kind, comps))
}

/// Decodes `%dx.types.ResourceProperties` of a heap handle (`sampler`: the handle came from
/// the sampler heap).
pub fn view(props: [u32; 2], sampler: bool) -> Result<HeapView, String> {
    let [basic, extra] = props;
    let kind = ResourceKind::from_raw(basic & 0xff);
    let uav = basic & (1 << 12) != 0;
    if sampler || kind == ResourceKind::Sampler {
        return Ok(HeapView {
            binding: 0,
            sampler: true,
            class: ResourceClass::Sampler,
            kind: ResKind::Sampler { filter: super::resources::Filter::Point, compare: false },
        });
    }
    let tex = |dim: TexDim| -> Result<ResKind, String> {
        Ok(ResKind::Texture { dim, format: format(extra)?, extent: [0; 3] })
    };
    let (binding, class, kind) = match kind {
        ResourceKind::RawBuffer => (5, ResourceClass::Uav, ResKind::Raw),
        ResourceKind::StructuredBuffer => (5, ResourceClass::Uav, ResKind::Structured { stride: extra.max(1) }),
        ResourceKind::CBuffer => (4, ResourceClass::Cbv, ResKind::Cbuffer),
        ResourceKind::TypedBuffer => {
            let k = ResKind::Typed { format: format(extra)? };
            if uav {
                (3, ResourceClass::Uav, k)
            } else {
                (2, ResourceClass::Srv, k)
            }
        }
        other => {
            let dim = match other {
                ResourceKind::Texture1D => TexDim::D1,
                ResourceKind::Texture1DArray => TexDim::D1Array,
                ResourceKind::Texture2D => TexDim::D2,
                ResourceKind::Texture2DArray => TexDim::D2Array,
                ResourceKind::Texture3D => TexDim::D3,
                _ => return Err(format!("heap resource kind {other:?}")),
            };
            if uav {
                (1, ResourceClass::Uav, tex(dim)?)
            } else {
                (0, ResourceClass::Srv, tex(dim)?)
            }
        }
    };
    Ok(HeapView { binding, sampler: false, class, kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The properties DXC writes for the corpus's heap handles decode to the arrays the
    /// translation indexes (`rootsig::layout::heap_resource_binding`).
    #[test]
    fn properties_decode_to_heap_arrays() {
        let v = view([2, 0x109], false).expect("Texture2D<float>");
        assert_eq!((v.binding, v.class, v.space()), (0, ResourceClass::Srv, HEAP_SPACE));
        let float1 = TexelFormat::w32(CompKind::Float, 1);
        assert_eq!(v.kind, ResKind::Texture { dim: TexDim::D2, format: float1, extent: [0; 3] });
        let v = view([0x1002, 0x205], false).expect("RWTexture2D<uint2>");
        assert_eq!((v.binding, v.class), (1, ResourceClass::Uav));
        let uint2 = TexelFormat::w32(CompKind::Uint, 2);
        assert!(v.reads(&ResKind::Texture { dim: TexDim::D2, format: uint2, extent: [8, 8, 1] }));
        assert!(!v.reads(&ResKind::Texture { dim: TexDim::D2, format: float1, extent: [8, 8, 1] }));
        let v = view([0x100c, 4], false).expect("RWStructuredBuffer stride 4");
        assert_eq!((v.binding, v.class, v.kind.clone()), (5, ResourceClass::Uav, ResKind::Structured { stride: 4 }));
        let v = view([11, 0], false).expect("ByteAddressBuffer");
        assert_eq!((v.binding, v.class, v.kind.clone()), (5, ResourceClass::Uav, ResKind::Raw));
        assert!(!v.reads(&ResKind::Structured { stride: 4 }));
        assert_eq!(view([13, 16], false).expect("cbuffer").binding, 4);
        assert_eq!(view([0x100a, 0x109], false).expect("RWBuffer<float>").binding, 3);
        assert_eq!(view([10, 0x109], false).expect("Buffer<float>").binding, 2);
        let s = view([14, 0], true).expect("sampler");
        assert!(s.sampler && s.space() == HEAP_SAMPLER_SPACE);
        assert!(view([3, 0x109], false).is_err(), "multisampled textures are not modelled");
        assert!(view([2, 0x308], false).is_err(), "half textures are not modelled");
    }
}
