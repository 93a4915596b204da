//! Placement by the layer: a translation layer that decides itself where every resource
//! lives ([`Placement`], [`crate::Options::placement`]), the way dxil-spirv's remapper
//! callbacks let vkd3d-proton place resources after lowering a root signature its own way.
//!
//! The layer answers one question per declared register range (and one per SM 6.6
//! descriptor-heap kind the shader indexes): where the range's descriptors are
//! ([`Location`]), how raw and structured data and acceleration structures are viewed
//! ([`BufferView`]), and, for UAVs, where the counter is ([`CounterPlace`]). It also says
//! how its push constants are laid out ([`PushLayout`]): root descriptor addresses first,
//! then 32-bit words (root constants and descriptor-table offsets) — the layout D3D12
//! layers give `VkPushConstantRange`.
//!
//! Element rules (`r` the register a handle names, `first` the range's first register):
//! - [`Location::Binding`]: element `r - first` of the binding (one descriptor when the
//!   range has one register);
//! - [`Location::Descriptor`]: the binding's one descriptor, for every `r`;
//! - [`Location::Heap`]: element `table + offset + (r - first)` of a runtime array at the
//!   binding, `table` being the word [`TableOffset`] names (0 without one: an SM 6.6 heap,
//!   whose handles carry the heap index itself, `offset` must then be 0);
//! - [`Location::RootAddress`], [`Location::RecordAddress`]: a root descriptor, its 64-bit
//!   buffer device address (two words, low first) in push constants or in the shader
//!   record;
//! - [`Location::RootConstants`], [`Location::RecordConstants`]: a constant buffer made of
//!   32-bit words from that byte on.
//!
//! Offset tables ([`OffsetTable`], [`ResourcePlace::offsets`]): a layer that binds whole
//! buffers (one descriptor per buffer, at an aligned offset) passes each view's real range
//! in a storage buffer `{ uvec2 data[]; }`: entry `descriptor · stride + entry` (the
//! descriptor index being the element of the range's binding or heap that the handle
//! names) holds `(offset, count)`, in bytes or in elements. Every element access of a raw,
//! structured or typed buffer then reads element `i < count ? i + offset : past the end`
//! (robust buffer access reads 0 there and drops writes, as D3D does), and size queries
//! return `count`.
//!
//! Invariants: every answer is checked before use (a location outside the push layout or
//! the shader record, a heap with an offset, an address that is not 8-aligned): a bad answer
//! is an [`super::Error`] naming the range, never an invalid module. The layer is asked in a
//! deterministic order (class, then range id) and at most once per question.

use crate::dxil::{Resource, ResourceClass};
use crate::front::container::ShaderKind;
use std::sync::Arc;

/// Where a range's descriptors (or data) are.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Location {
    /// Plain descriptors at `(set, binding)`: element `r - first`; an unbounded range is a
    /// runtime array.
    Binding { set: u32, binding: u32 },
    /// Exactly one descriptor at `(set, binding)`, whatever the range's size: every register
    /// of the range names it. A layer that binds one descriptor where the shader declares an
    /// array (vkd3d-proton answers an unbounded sampler array with the one static sampler at
    /// its first register) gets what native D3D12 drivers give for the indices past it, the
    /// descriptor itself, and never an access past the binding.
    Descriptor { set: u32, binding: u32 },
    /// A bindless array at `(set, binding)`: element `table + offset + (r - first)`.
    Heap { set: u32, binding: u32, table: Option<TableOffset>, offset: u32 },
    /// A root descriptor: its address at push-constant byte `offset` (8-aligned, within the
    /// layout's addresses).
    RootAddress { offset: u32 },
    /// Root constants from push-constant byte `offset` (within the layout's words).
    RootConstants { offset: u32 },
    /// A local root descriptor: its address at byte `offset` of the shader record.
    RecordAddress { offset: u32 },
    /// Local root constants from byte `offset` of the shader record.
    RecordConstants { offset: u32 },
}

/// Where a descriptor table's start in the heap is read from.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum TableOffset {
    /// The push-constant word at byte `offset`: the table's first descriptor index.
    Push { offset: u32 },
    /// The shader record's word at byte `offset` (the low half of a D3D12 GPU descriptor
    /// handle), shifted right by `shift` (log2 of the layer's descriptor size): the
    /// table's first descriptor index.
    Record { offset: u32, shift: u32 },
}

/// How a range's data is viewed.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum BufferView {
    /// The usual type: images and texel buffers for typed resources, storage buffers for
    /// raw and structured ones, uniform buffers for constant buffers, acceleration
    /// structure descriptors.
    #[default]
    Descriptor,
    /// Acceleration structures only: the binding holds `uvec2` buffer device addresses of
    /// acceleration structures (a storage buffer `{ uvec2 data[]; }`), converted with
    /// `OpConvertUToAccelerationStructureKHR`.
    AddressTable,
}

/// Where a UAV's counter is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum CounterPlace {
    /// `{ uint counter; }` storage buffers at `(set, binding)`, indexed like the UAV.
    Binding { set: u32, binding: u32 },
    /// A bindless array of `{ uint counter; }` storage buffers at `(set, binding)`,
    /// indexed like the UAV (which must be in a heap).
    Heap { set: u32, binding: u32 },
    /// A bindless array at `(set, binding)` of counter addresses (`{ uvec2 data[]; }`,
    /// indexed like the UAV, which must be in a heap): the counter is the `uint` at that
    /// buffer device address.
    AddressTable { set: u32, binding: u32 },
}

/// The unit of an offset table's `(offset, count)` pairs.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum OffsetUnit {
    /// Bytes (raw and structured buffers only; both multiples of 4).
    Bytes,
    /// Elements: texels of a typed buffer, 32-bit words of a raw or structured buffer.
    Elements,
}

/// Where a buffer view's range is read from ([`ResourcePlace::offsets`]): the `uvec2` at
/// entry `descriptor · stride + entry` of the storage buffer `{ uvec2 data[]; }` at
/// `(set, binding)` is `(offset, count)` in `unit`s. The binding holds plain descriptors
/// (not a heap array); ranges may share it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct OffsetTable {
    pub set: u32,
    pub binding: u32,
    /// `uvec2` entries per descriptor.
    pub stride: u32,
    /// This kind of view's entry among a descriptor's `stride` entries.
    pub entry: u32,
    pub unit: OffsetUnit,
}

/// The layer's answer for one range.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct ResourcePlace {
    pub location: Location,
    pub view: BufferView,
    /// UAVs with a counter; `None` otherwise (a counter operation on a UAV without one is
    /// an error naming it).
    pub counter: Option<CounterPlace>,
    /// Raw, structured and typed buffers in a heap or at a binding: the view's range from
    /// an offset table; `None`: the descriptor's own range.
    pub offsets: Option<OffsetTable>,
}

/// What the layer is asked.
#[derive(Clone, Copy, Debug)]
pub struct PlaceQuery<'a> {
    pub stage: ShaderKind,
    /// The range: class, space, first register, count, kind, stride. For an SM 6.6 heap
    /// question (`heap`), a stand-in with register and space `u32::MAX`, no count, and the
    /// kind (and stride or element type) of the resources indexed.
    pub resource: &'a Resource,
    /// An SM 6.6 descriptor-heap question (`ResourceDescriptorHeap`,
    /// `SamplerDescriptorHeap`): the answer must be a [`Location::Heap`] without a table.
    pub heap: bool,
    /// The UAV's counter is used (an `IncrementCounter`/`DecrementCounter` or the
    /// declaration's counter flag).
    pub counter: bool,
}

/// The layer's callback: `None` declines (the translation fails with an error naming the
/// range).
pub type PlaceFn = dyn Fn(&PlaceQuery<'_>) -> Option<ResourcePlace> + Send + Sync;

/// The layer's push constants: `addresses` root descriptor addresses (8 bytes each,
/// first), then `words` 32-bit words. The shader's push-constant block declares exactly
/// this.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct PushLayout {
    pub addresses: u32,
    pub words: u32,
}

impl PushLayout {
    /// Bytes the layout covers.
    pub fn size(&self) -> u32 {
        self.addresses.saturating_mul(8).saturating_add(self.words.saturating_mul(4))
    }
}

/// Placement by the layer ([`crate::Options::placement`]).
#[derive(Clone)]
pub struct Placement {
    pub place: Arc<PlaceFn>,
    pub push: PushLayout,
    /// Bytes of local root arguments in the shader record (ray-tracing stages; 0: none).
    pub record_size: u32,
}

impl Placement {
    pub fn new(
        push: PushLayout,
        record_size: u32,
        place: impl Fn(&PlaceQuery<'_>) -> Option<ResourcePlace> + Send + Sync + 'static,
    ) -> Placement {
        Placement { place: Arc::new(place), push, record_size }
    }

    /// Asks the layer about `r`.
    pub fn ask(&self, stage: ShaderKind, r: &Resource, heap: bool, counter: bool) -> Option<ResourcePlace> {
        (self.place)(&PlaceQuery { stage, resource: r, heap, counter })
    }
}

impl std::fmt::Debug for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Placement").field("push", &self.push).field("record_size", &self.record_size).finish()
    }
}

/// Whether `class` may sit at `location` (root descriptors hold buffers only; root
/// constants only constant buffers).
pub fn location_allows(location: &Location, class: ResourceClass) -> bool {
    match location {
        Location::RootConstants { .. } | Location::RecordConstants { .. } => class == ResourceClass::Cbv,
        Location::RootAddress { .. } | Location::RecordAddress { .. } => class != ResourceClass::Sampler,
        Location::Binding { .. } | Location::Descriptor { .. } | Location::Heap { .. } => true,
    }
}

/// Why the offset table of answer `a` cannot serve `r`, if it cannot: offset tables give
/// the range of raw, structured and typed buffer views (bytes only for raw and structured
/// ones) whose descriptors are at a binding or in a heap.
pub fn offsets_allowed(r: &Resource, a: &ResourcePlace) -> Result<(), String> {
    use crate::dxil::ResourceKind;
    let Some(t) = a.offsets else { return Ok(()) };
    let words = matches!(r.kind, ResourceKind::RawBuffer | ResourceKind::StructuredBuffer);
    if !matches!(r.class, ResourceClass::Srv | ResourceClass::Uav) || !(words || r.kind == ResourceKind::TypedBuffer) {
        return Err("an offset table for a resource that is not a raw, structured or typed buffer".into());
    }
    if t.unit == OffsetUnit::Bytes && !words {
        return Err("an offset table in bytes for a typed buffer (its entries count texels)".into());
    }
    if !matches!(a.location, Location::Binding { .. } | Location::Descriptor { .. } | Location::Heap { .. })
        || a.view != BufferView::Descriptor
    {
        return Err(format!("an offset table for a buffer without a descriptor (at {:?})", a.location));
    }
    Ok(())
}
