//! Resources: descriptor variables (created on first use, placed by the binding model or
//! the root signature) and `dx.op` handles.
//!
//! A handle (`createHandle`, `createHandleFromBinding`, `annotateHandle`) is not a SPIR-V
//! value: it is a compile-time [`Handle`] naming a resource range and, for ranges of several
//! registers, the IR value of the register index. Operations resolve it to a pointer (or a
//! loaded image / sampler) where they use it.
//!
//! Representation:
//! - constant buffers: `Uniform` block `{ uvec4 data[ceil(size / 16)]; }`;
//! - raw and structured buffers: `StorageBuffer` block `{ uint data[]; }` (byte address / 4),
//!   `NonWritable` for SRVs; 16-bit accesses through a second variable at the same binding,
//!   `{ uint16_t data[]; }` (byte address / 2; `Resources::halves16`), and accesses of
//!   structured buffers whose stride is a multiple of 16, and of raw buffers at addresses
//!   known to be multiples of 8 or 16, through one at `{ uvec2 data[]; }` or
//!   `{ uvec4 data[]; }` (byte address / 8 or / 16; `Resources::word_vectors`), and 16-bit
//!   accesses of raw buffers at addresses known to be multiples of 4 or 8 through
//!   `{ u16vec2 data[]; }` or `{ u16vec4 data[]; }` (byte address / 4 or / 8), all
//!   `Aliased` for UAVs;
//! - typed buffers and textures: `OpTypeImage` (sampled 1 for SRVs, 2 with unknown format for
//!   UAVs); samplers: `OpTypeSampler`;
//! - a binding of several descriptors: one variable holding an array (runtime array if
//!   unbounded), indexed by register − the binding's first register;
//! - SM 6.6 descriptor heaps (`createHandleFromHeap`) and `heap`-model descriptor tables:
//!   runtime arrays, one per descriptor type, aliased where types share a binding (see
//!   `binding_model` and `rootsig::layout` for the heap sets); a table's element is the
//!   table's heap offset (a push constant) + the range's offset + the register delta;
//! - root CBV/SRV/UAV under `heap`: the block type behind a `PhysicalStorageBuffer`
//!   pointer, bit-cast from the address in push constants; root constants: words of the
//!   push-constant block;
//! - root arguments past the push-constant budget (`rootsig::spill`): the same values read
//!   from the root argument buffer, a `Uniform` block `{ uvec4 data[size / 16]; }` (std140)
//!   at the layout's set and binding, word `w` being `data[w / 4][w % 4]`; an address is
//!   components `2k, 2k + 1` of one row (spilled addresses are 8-aligned). Nothing else
//!   changes, and a layout that spills nothing declares no such block.
//!
//! Where each variable goes is a [`Place`]: the default model computes it from the
//! register ([`Binder::Default`]); with a root signature it was resolved up front
//! ([`Binder::Root`]); a layer that places resources itself answered for each range
//! ([`Binder::Layer`], `super::placement`), its answers read as places here. The layer's
//! `uvec2` address tables (acceleration structures, UAV counters) are one storage buffer
//! `{ uvec2 data[]; }` per binding, an element being an entry of `data`; so are its offset
//! tables (`placement::OffsetTable`), whose entry `descriptor index · stride + entry` a
//! buffer operation reads once ([`FnEmit::buffer_range`]) to bound each element it
//! accesses ([`FnEmit::in_range`]).
//!
//! A leaf of `emit` (see its documentation): methods of [`super::Resources`],
//! [`super::Binder`] and [`FnEmit`]; the types are the root's.

use crate::dxil::DxOp;
use crate::dxil::{ComponentType, Resource, ResourceClass, ResourceKind};
use crate::emit::binding_model;
use crate::emit::binding_model::VkBinding;
use crate::emit::error::{malformed, Error, Result, Subject};
use crate::emit::placement::{
    offsets_allowed, BufferView, CounterPlace, Location, OffsetTable, OffsetUnit, ResourcePlace, TableOffset,
};
use crate::emit::work_graph;
use crate::emit::work_graph::NodePush;
use crate::emit::ArgAt;
use crate::emit::ArrayLen;
use crate::emit::Binder;
use crate::emit::DescriptorKey;
use crate::emit::Handle;
use crate::emit::HeapHandle;
use crate::emit::Indexing;
use crate::emit::PushBlock;
use crate::emit::ResShape;
use crate::emit::ResVar;
use crate::emit::Resources;
use crate::emit::TexelKind;
use crate::emit::{FnEmit, ModuleBuilder};
use crate::ir::Value;
use crate::rootsig::layout::{heap_resource_binding, ArgStore, HeapSets, PushKind, View};
use crate::rootsig::resolve::{Place, ResolveError, ResourceName};
use rspirv::dr::Operand;
use rspirv::spirv::{self, Capability, Decoration, Dim, Op, StorageClass, Word};
use std::collections::BTreeMap;

impl ResShape {
    pub fn coords(&self) -> u32 {
        match self {
            ResShape::Image { dim, arrayed, .. } => {
                let base = match dim {
                    Dim::Dim1D | Dim::DimBuffer => 1,
                    Dim::Dim2D => 2,
                    _ => 3,
                };
                base + u32::from(*arrayed)
            }
            _ => 1,
        }
    }
}

impl Binder {
    fn place(&self, r: &Resource) -> Result<Place> {
        match self {
            Binder::Default(map) => {
                let b = map.binding_of(r);
                // Only UAVs have counters (the callback is asked nothing else).
                let counter =
                    (r.class == ResourceClass::Uav).then(|| map.counter_binding_of(r)).map(|c| (c.set, c.binding));
                Ok(Place::Descriptor {
                    set: b.set,
                    binding: b.binding,
                    first_register: r.lower_bound,
                    count: r.range_size,
                    counter,
                })
            }
            Binder::Root { places, .. } => places.get(&(r.class, r.id)).copied().ok_or_else(|| {
                Error::Internal(format!("{} was not resolved against the root signature", r.register()))
            }),
            Binder::Layer { .. } => layer_place(r, &self.layer_answer(r)?),
        }
    }

    /// The layer's answer for declared range `r` ([`Binder::Layer`] only).
    fn layer_answer(&self, r: &Resource) -> Result<ResourcePlace> {
        match self {
            Binder::Layer { places, .. } => places
                .get(&(r.class, r.id))
                .copied()
                .ok_or_else(|| Error::Internal(format!("the layer was not asked about {}", r.register()))),
            _ => Err(Error::Internal("a layer's answer without placement by the layer".into())),
        }
    }

    /// The binding of the bindless array holding `r` (a range in a descriptor table, or an
    /// SM 6.6 heap stand-in): the heap set's binding of its view, or the layer's answer.
    fn heap_array_binding(&self, r: &Resource, answer: Option<&ResourcePlace>) -> Result<VkBinding> {
        match answer {
            Some(ResourcePlace { location: Location::Heap { set, binding, .. }, .. }) => {
                Ok(VkBinding { set: *set, binding: *binding })
            }
            Some(_) => Err(Error::Internal(format!("{} is not in a heap", r.register()))),
            None => self.heap_binding(crate::rootsig::resolve::view_of(r), r.class),
        }
    }

    fn heap_sets(&self) -> Result<HeapSets> {
        match self {
            Binder::Default(_) => {
                Ok(HeapSets { resources: binding_model::RESOURCE_HEAP_SET, samplers: binding_model::SAMPLER_HEAP_SET })
            }
            Binder::Root { heaps: Some(h), .. } => Ok(*h),
            Binder::Root { heaps: None, .. } => Err(ResolveError::NoHeap.into()),
            Binder::Layer { .. } => Err(Error::Internal("heap sets asked of placement by the layer".into())),
        }
    }

    /// The heap binding holding `view`s of `class` (UAV counters: `View::Counter`).
    fn heap_binding(&self, view: View, class: ResourceClass) -> Result<VkBinding> {
        let sets = self.heap_sets()?;
        let set = if class == ResourceClass::Sampler { sets.samplers } else { sets.resources };
        Ok(VkBinding { set, binding: heap_resource_binding(view, class) })
    }
}

impl<'m> Resources<'m> {
    pub fn new(table: &'m crate::dxil::Resources, binder: Binder) -> Resources<'m> {
        Resources {
            table,
            binder,
            vars: BTreeMap::new(),
            counters: BTreeMap::new(),
            atomic_uavs: Default::default(),
            heap_vars: BTreeMap::new(),
            elem_views: BTreeMap::new(),
            halves16: BTreeMap::new(),
            word_vectors: BTreeMap::new(),
            view_blocks: BTreeMap::new(),
            image_views: BTreeMap::new(),
            heap_counters: None,
            layer_heaps: BTreeMap::new(),
            address_tables: BTreeMap::new(),
            push: None,
            spill: None,
            record: None,
            node_push_offset: None,
            node_record: None,
        }
    }

    pub fn resource(&self, class: ResourceClass, id: u32) -> Result<&'m Resource> {
        self.table
            .by_id(class, id)
            .ok_or_else(|| malformed(Subject::Resource(class), format!("no {} with range id {id}", class.name())))
    }

    /// The resource of `class` whose range holds `register` in `space`.
    pub fn find_binding(&self, class: ResourceClass, space: u32, register: u32) -> Result<u32> {
        self.table.holding(class, space, register).map(|r| r.id).ok_or_else(|| {
            malformed(
                Subject::Op(DxOp::CreateHandleFromBinding),
                format!(
                    "createHandleFromBinding: no {} range holds {}{register}, space{space}",
                    class.name(),
                    class.register_letter()
                ),
            )
        })
    }

    /// The id of the `class` range holding `register` of `space`, if any.
    pub fn table_holding(&self, class: ResourceClass, space: u32, register: u32) -> Option<u32> {
        self.table.holding(class, space, register).map(|r| r.id)
    }

    /// The id of the only `class` range in `space`: where a register index known only at
    /// run time must point (`None` when the space holds none or several).
    pub fn only_in_space(&self, class: ResourceClass, space: u32) -> Option<u32> {
        let mut it = self.table.class(class).iter().filter(|r| r.space == space);
        match (it.next(), it.next()) {
            (Some(r), None) => Some(r.id),
            _ => None,
        }
    }

    /// The push-constant block: every member of the layout, at its offset (root
    /// descriptor addresses as `uvec2`, root constants as `uint[n]`, table offsets as
    /// `uint`).
    /// The `NodeDispatch` members in the root block ([`Self::node_push_offset`] must be
    /// set): the block made now if not yet.
    pub fn node_push_block(&mut self, cx: &mut ModuleBuilder<'_>) -> Result<NodePush> {
        let Binder::Root { push, .. } = &self.binder else {
            return Err(Error::Internal("node push constants in a root block without a root signature".into()));
        };
        let first = push.members.len() as u32;
        Ok(NodePush { var: self.push_block(cx)?.var, first_member: first })
    }

    fn push_block(&mut self, cx: &mut ModuleBuilder<'_>) -> Result<PushBlock> {
        if let Some(p) = &self.push {
            return Ok(p.clone());
        }
        let u = cx.u32_t();
        let u_array = |cx: &mut ModuleBuilder<'_>, n: u32| array_type(cx, u, Some(n.max(1)), 4);
        let mut member_tys = Vec::new();
        let mut members = Vec::new();
        let mut names = Vec::new();
        match &self.binder {
            Binder::Root { push, .. } => {
                for (k, m) in push.members.iter().enumerate() {
                    let (ty, name, words) = match m.kind {
                        PushKind::RootDescriptorAddress { class, register, space } => (
                            cx.vec(u, 2),
                            format!(
                                "root_{}_{}{register}_space{space}",
                                class.name().to_lowercase(),
                                class.register_letter()
                            ),
                            None,
                        ),
                        PushKind::RootConstants { register, space, num_values } => (
                            u_array(cx, num_values),
                            format!("root_constants_b{register}_space{space}"),
                            Some(num_values.max(1)),
                        ),
                        PushKind::TableOffset { .. } => (u, format!("table{}_offset", m.parameter), None),
                    };
                    member_tys.push(ty);
                    members.push((m.offset, k as u32, words));
                    names.push(name);
                }
            }
            // The layer's layout: its root descriptor addresses, then its words as one
            // array (root constants and table offsets alike, dynamic indices included).
            Binder::Layer { placement, .. } => {
                let push = placement.push;
                for k in 0..push.addresses {
                    member_tys.push(cx.vec(u, 2));
                    members.push((8 * k, k, None));
                    names.push(format!("root_address{k}"));
                }
                if push.words > 0 {
                    member_tys.push(u_array(cx, push.words));
                    members.push((8 * push.addresses, push.addresses, Some(push.words)));
                    names.push("words".to_string());
                }
            }
            Binder::Default(_) => return Err(Error::Internal("push constants without a root signature".into())),
        }
        if let Some(base) = self.node_push_offset {
            let node = work_graph::push_members(cx);
            let first = members.len();
            for (k, (name, offset, ty)) in node.into_iter().enumerate() {
                member_tys.push(ty);
                members.push((base + offset, (first + k) as u32, None));
                names.push(format!("node_{name}"));
            }
        }
        let st = cx.b.id();
        cx.b.type_struct_id(Some(st), member_tys);
        cx.decorate(st, Decoration::Block, &[]);
        cx.b.name(st, "RootParameters");
        for (k, (off, _, _)) in members.iter().enumerate() {
            cx.b.member_decorate(st, k as u32, Decoration::Offset, [Operand::LiteralBit32(*off)]);
            cx.b.member_name(st, k as u32, names[k].as_str());
        }
        let var = cx.global_var(StorageClass::PushConstant, st, "root");
        let block = PushBlock { var, members };
        self.push = Some(block.clone());
        Ok(block)
    }

    /// The root argument buffer's variable: `Uniform` block `RootArgumentBuffer { uvec4
    /// data[size / 16]; }` at the layout's set and binding.
    fn spill_block(&mut self, cx: &mut ModuleBuilder<'_>) -> Result<Word> {
        if let Some(v) = self.spill {
            return Ok(v);
        }
        let Binder::Root { spill: Some(b), .. } = &self.binder else {
            return Err(Error::Internal("a spilled root argument without a root argument buffer".into()));
        };
        let (set, binding, rows) = (b.set, b.binding, (b.size / 16).max(1));
        let st = uvec4_block(cx, rows);
        cx.b.name(st, "RootArgumentBuffer");
        cx.b.member_name(st, 0, "data");
        let var = cx.global_var(StorageClass::Uniform, st, "root_arguments");
        cx.decorate(var, Decoration::DescriptorSet, &[set]);
        cx.decorate(var, Decoration::Binding, &[binding]);
        self.spill = Some(var);
        Ok(var)
    }

    /// The shader record's variable: `ShaderRecordBufferKHR` block `ShaderRecord { uint
    /// data[size / 4]; }` (local root arguments, `rootsig::record`).
    fn record_block(&mut self, cx: &mut ModuleBuilder<'_>) -> Result<Word> {
        if let Some(v) = self.record {
            return Ok(v);
        }
        let record = match &self.binder {
            Binder::Root { record, .. } => *record,
            Binder::Layer { placement, .. } => placement.record_size,
            Binder::Default(_) => {
                return Err(Error::Internal("a local root argument without a local root signature".into()))
            }
        };
        let words = (record / 4).max(1);
        let u = cx.u32_t();
        let st = array_block(cx, u, Some(words), 4);
        cx.b.name(st, "ShaderRecord");
        cx.b.member_decorate(st, 0, Decoration::NonWritable, []);
        cx.b.member_name(st, 0, "data");
        let var = cx.global_var(StorageClass::ShaderRecordBufferKHR, st, "shader_record");
        self.record = Some(var);
        Ok(var)
    }

    /// The counter buffer of UAV `id` (`{ uint counter; }` blocks), placed and indexed
    /// like the UAV itself.
    pub fn counter(&mut self, cx: &mut ModuleBuilder<'_>, id: u32) -> Result<ResVar> {
        if let Some(&v) = self.counters.get(&id) {
            return Ok(v);
        }
        let r = self.resource(ResourceClass::Uav, id)?;
        let place = self.binder.place(r)?;
        let v = match place {
            Place::Descriptor { first_register, count, counter: Some((cset, cbinding)), .. } => {
                let st = counter_block(cx);
                let (indexing, len) = descriptor_shape(r, first_register, count);
                declare(
                    cx,
                    &format!("{}_counter", display_name(r)),
                    ResShape::Words { stride: None },
                    st,
                    StorageClass::StorageBuffer,
                    VkBinding { set: cset, binding: cbinding },
                    indexing,
                    len,
                    true,
                )
            }
            Place::HeapTable { .. } => {
                let primary = self.var(cx, ResourceClass::Uav, id)?;
                let hc = match self.binder {
                    Binder::Layer { .. } => match self.binder.layer_answer(r)?.counter {
                        Some(c) => self.layer_counters(cx, c)?,
                        None => {
                            return Err(Error::Placement {
                                register: r.register(),
                                reason: "the layer gave this UAV no counter".into(),
                            })
                        }
                    },
                    _ => self.heap_counters(cx)?,
                };
                ResVar { indexing: primary.indexing, ..hc }
            }
            _ => return Err(ResolveError::NoCounter { resource: ResourceName::of(r) }.into()),
        };
        self.counters.insert(id, v);
        Ok(v)
    }

    /// A second view of a raw or structured buffer as 64-bit words (`{ uint64 data[]; }`,
    /// same binding and indexing), for 64-bit atomics.
    pub fn words64(&mut self, cx: &mut ModuleBuilder<'_>, class: ResourceClass, id: u32) -> Result<ResVar> {
        self.elem_view(cx, class, id, |cx| cx.uint(64), 8, "u64")
    }

    /// A second view of a raw or structured buffer as bytes (`{ uint8 data[]; }`, same
    /// binding and indexing; `StorageBuffer8BitAccess`), for cooperative-matrix loads and
    /// stores at byte offsets and strides (AGS WMMA).
    pub fn bytes8(&mut self, cx: &mut ModuleBuilder<'_>, class: ResourceClass, id: u32) -> Result<ResVar> {
        cx.capability(Capability::StorageBuffer8BitAccess);
        self.elem_view(cx, class, id, |cx| cx.uint(8), 1, "u8")
    }

    /// A second view of a raw or structured buffer as an array of the type `elem` makes
    /// (array stride `stride`; same binding and indexing), named with `suffix`, which also
    /// tells views apart (one per suffix): what atomics on other element types (64-bit
    /// words, floats, half-float pairs) operate on.
    pub fn elem_view(
        &mut self,
        cx: &mut ModuleBuilder<'_>,
        class: ResourceClass,
        id: u32,
        elem: impl FnOnce(&mut ModuleBuilder<'_>) -> Word,
        stride: u32,
        suffix: &'static str,
    ) -> Result<ResVar> {
        if let Some(&v) = self.elem_views.get(&(class, id, suffix)) {
            return Ok(v);
        }
        let primary = self.var(cx, class, id)?;
        let r = self.resource(class, id)?;
        let elem = elem(cx);
        let st = array_block(cx, elem, None, stride);
        let v = if primary.var == 0 {
            ResVar { elem_ty: st, ..primary }
        } else {
            declare_view(cx, &primary, &format!("{}_{suffix}", display_name(r)), st, true)
        };
        self.elem_views.insert((class, id, suffix), v);
        Ok(v)
    }

    /// A 16-bit view `{ uint16_t data[]; }` (array stride 2) of the raw or structured buffer
    /// variable `primary`: a second variable at the same binding, with the same array and
    /// indexing, so 16-bit components are accessed as 16-bit elements. A descriptor's base
    /// address need only be 2-aligned for a view of 16-bit elements (a structured buffer of
    /// stride 2 viewed from an odd `FirstElement`), and a 32-bit word access at such a base
    /// reads and writes the wrong halves. A UAV's two variables are `Aliased`. `None` for
    /// buffers without a variable of their own (root descriptors, whose addresses D3D
    /// requires 4-aligned).
    pub fn halves16(&mut self, cx: &mut ModuleBuilder<'_>, primary: &ResVar, name: &str) -> Option<ResVar> {
        if let Some(v) = self.halves16.get(&primary.var) {
            return Some(v.of(primary));
        }
        if !aliasable(primary) {
            return None;
        }
        cx.capability(Capability::StorageBuffer16BitAccess);
        let u16t = cx.uint(16);
        let v = aliased_view(cx, &mut self.view_blocks, primary, &format!("{name}_u16"), u16t, 2);
        self.halves16.insert(primary.var, v);
        Some(v.of(primary))
    }

    /// A view `{ uvecN data[]; }` (`bits` = 32) or `{ u16vecN data[]; }` (`bits` = 16) —
    /// `N = width`, 2 or 4; array stride `N·bits/8` — of the raw or structured buffer
    /// variable `primary`, as [`Self::halves16`], so `N` consecutive elements at a byte
    /// address that is a multiple of the stride are loaded or stored at once. Used where
    /// every vector accessed lies wholly inside the D3D view or wholly outside it (see
    /// `dxop::buffers`), so robustness bounds it as it bounds each of its words. One view
    /// per (variable, bits, width). `None` for root descriptors.
    pub fn word_vectors(
        &mut self,
        cx: &mut ModuleBuilder<'_>,
        primary: &ResVar,
        name: &str,
        bits: u32,
        width: u32,
    ) -> Option<ResVar> {
        if let Some(v) = self.word_vectors.get(&(primary.var, bits, width)) {
            return Some(v.of(primary));
        }
        if !aliasable(primary) {
            return None;
        }
        if bits == 16 {
            cx.capability(Capability::StorageBuffer16BitAccess);
        }
        let e = cx.uint(bits);
        let vt = cx.vec(e, width);
        let view_name = format!("{name}_u{bits}x{width}");
        let v = aliased_view(cx, &mut self.view_blocks, primary, &view_name, vt, bits / 8 * width);
        self.word_vectors.insert((primary.var, bits, width), v);
        Some(v.of(primary))
    }

    /// A 64-bit integer view (`R64ui`/`R64i`) of a typed UAV at the same binding and
    /// indexing, for 64-bit atomics (D3D's 64-bit typed UAVs are 32-bit two-channel views
    /// otherwise). Returns the view and its texel type.
    pub fn image64(&mut self, cx: &mut ModuleBuilder<'_>, id: u32, signed: bool) -> Result<(ResVar, Word)> {
        cx.extension("SPV_EXT_shader_image_int64");
        cx.capability(Capability::Int64ImageEXT);
        cx.capability(Capability::Int64Atomics);
        let (t, format) =
            if signed { (cx.sint(64), spirv::ImageFormat::R64i) } else { (cx.uint(64), spirv::ImageFormat::R64ui) };
        self.image_view(cx, id, t, format, "r64")
    }

    /// A view of typed UAV `id` at the same binding and indexing whose image type has
    /// sampled type `t` and format `format` (one per UAV and format): the format an image
    /// atomic needs under its `OpImageTexelPointer` (VUID-StandaloneSpirv-OpImageTexelPointer-04658)
    /// where the UAV's own declaration has none. The caller declares the capabilities the
    /// format needs; `suffix` ends the view's debug name. Returns the view and `t`.
    pub fn image_view(
        &mut self,
        cx: &mut ModuleBuilder<'_>,
        id: u32,
        t: Word,
        format: spirv::ImageFormat,
        suffix: &str,
    ) -> Result<(ResVar, Word)> {
        if let Some(&v) = self.image_views.get(&(id, format as u32)) {
            return Ok(v);
        }
        let r = self.resource(ResourceClass::Uav, id)?;
        let rv = self.var(cx, ResourceClass::Uav, id)?;
        let ResShape::Image { dim, arrayed, ms, .. } = rv.shape else {
            return Err(Error::Internal(format!("{format:?} image view of a non-image")));
        };
        let img = cx.b.type_image(t, dim, 0, u32::from(arrayed), u32::from(ms), 2, format, None);
        let v = declare(
            cx,
            &format!("{}_{suffix}", display_name(r)),
            rv.shape,
            img,
            StorageClass::UniformConstant,
            rv.binding,
            rv.indexing,
            rv.len,
            true,
        );
        self.image_views.insert((id, format as u32), (v, t));
        Ok((v, t))
    }

    /// Counters of descriptor-heap UAVs: a runtime array of `{ uint counter; }` blocks at
    /// the heap's counter binding, indexed by the heap index.
    pub fn heap_counters(&mut self, cx: &mut ModuleBuilder<'_>) -> Result<ResVar> {
        if let Some(v) = self.heap_counters {
            return Ok(v);
        }
        let st = counter_block(cx);
        let b = self.binder.heap_binding(View::Counter, ResourceClass::Uav)?;
        let v = declare(
            cx,
            "heap_uav_counters",
            ResShape::Words { stride: None },
            st,
            StorageClass::StorageBuffer,
            b,
            Indexing::Heap,
            ArrayLen::Runtime,
            true,
        );
        self.heap_counters = Some(v);
        Ok(v)
    }

    /// The counters of a layer's heap UAVs ([`CounterPlace::Heap`], `{ uint counter; }`
    /// blocks; [`CounterPlace::AddressTable`], counter addresses), indexed by the caller.
    fn layer_counters(&mut self, cx: &mut ModuleBuilder<'_>, c: CounterPlace) -> Result<ResVar> {
        match c {
            CounterPlace::Heap { set, binding } => {
                let st = counter_block(cx);
                Ok(declare(
                    cx,
                    "uav_counters",
                    ResShape::Words { stride: None },
                    st,
                    StorageClass::StorageBuffer,
                    VkBinding { set, binding },
                    Indexing::Heap,
                    ArrayLen::Runtime,
                    true,
                ))
            }
            CounterPlace::AddressTable { set, binding } => {
                let binding = VkBinding { set, binding };
                let (var, u2) = self.address_table(cx, binding, "uav_counter_addresses");
                Ok(ResVar {
                    var,
                    shape: ResShape::Words { stride: None },
                    elem_ty: u2,
                    storage: StorageClass::StorageBuffer,
                    indexing: Indexing::Heap,
                    uav: true,
                    binding,
                    len: ArrayLen::InBlock,
                })
            }
            CounterPlace::Binding { .. } => {
                Err(Error::Internal("a counter binding of a heap UAV (the layer answer was checked)".into()))
            }
        }
    }

    /// The counters of an SM 6.6 heap UAV of kind `kind`: the heap's counter array, or
    /// where the layer put them.
    pub fn heap_counter_var(&mut self, cx: &mut ModuleBuilder<'_>, r: &Resource) -> Result<ResVar> {
        match self.layer_heap_answer(r)? {
            Some(a) => match a.counter {
                Some(c) => self.layer_counters(cx, c),
                None => Err(Error::Placement {
                    register: format!("{} descriptor heap ({:?})", r.class.name(), r.kind),
                    reason: "the layer gave heap UAVs no counter".into(),
                }),
            },
            None => self.heap_counters(cx),
        }
    }

    /// The stand-in resource of a descriptor-heap handle: its class and kind (and stride or
    /// element type) from `annotateHandle`'s properties, no register, no count.
    pub fn heap_resource(hh: HeapHandle) -> Result<Resource> {
        let [basic, extra] = hh.props.ok_or_else(|| Error::UnsupportedForm {
            subject: Subject::Op(DxOp::CreateHandleFromHeap),
            message: "a heap handle without annotateHandle".into(),
        })?;
        let kind = ResourceKind::from_raw(basic & 0xff);
        let uav = basic & (1 << 12) != 0;
        let class = if hh.sampler {
            ResourceClass::Sampler
        } else if kind == ResourceKind::CBuffer {
            ResourceClass::Cbv
        } else if uav {
            ResourceClass::Uav
        } else {
            ResourceClass::Srv
        };
        let typed = !matches!(
            kind,
            ResourceKind::CBuffer | ResourceKind::RawBuffer | ResourceKind::StructuredBuffer | ResourceKind::Sampler
        );
        let r = Resource {
            class,
            id: u32::MAX,
            name: format!("heap_{}_{:?}", class.name(), kind),
            space: 0,
            lower_bound: 0,
            range_size: None,
            kind,
            type_name: None,
            element_type: typed.then(|| ComponentType::from_raw(extra & 0xff)),
            struct_stride: (kind == ResourceKind::StructuredBuffer).then_some(extra),
            sample_count: None,
            uav: None,
            cbuffer_size: Some(65536),
            sampler_kind: None,
            global: None,
        };
        Ok(r)
    }

    /// The heap array a descriptor-heap handle indexes; `atomic`: the array of the same
    /// binding whose typed images declare a 32-bit format, for image atomics.
    pub fn heap_var(&mut self, cx: &mut ModuleBuilder<'_>, hh: HeapHandle, atomic: bool) -> Result<ResVar> {
        let r = Resources::heap_resource(hh)?;
        let answer = self.layer_heap_answer(&r)?;
        if let Some(a) = answer {
            if a.view == BufferView::AddressTable {
                return self.address_table_var(cx, &r, &a, Indexing::Heap);
            }
        }
        let binding = self.binder.heap_array_binding(&r, answer.as_ref())?;
        self.heap_array(cx, &r, atomic && r.class == ResourceClass::Uav, binding)
    }

    /// The offset table the layer gave the buffer view behind handle `h`, if any
    /// (placement by the layer only).
    pub fn offsets_of(&mut self, h: Handle) -> Result<Option<OffsetTable>> {
        if !matches!(self.binder, Binder::Layer { .. }) {
            return Ok(None);
        }
        Ok(match h.heap {
            Some(hh) => self.layer_heap_answer(&Resources::heap_resource(hh)?)?.and_then(|a| a.offsets),
            None => {
                let r = self.resource(h.class, h.id)?;
                self.binder.layer_answer(r)?.offsets
            }
        })
    }

    /// The layer's answer for SM 6.6 heap stand-in `r` (asked once per kind), checked: a
    /// heap location without a table or offset. `None` without placement by the layer.
    fn layer_heap_answer(&mut self, r: &Resource) -> Result<Option<ResourcePlace>> {
        let Binder::Layer { placement, stage, .. } = &self.binder else { return Ok(None) };
        let key = (r.class, r.kind.to_raw(), r.struct_stride.unwrap_or(0), r.element_type.map_or(0, |t| t.to_raw()));
        if let Some(a) = self.layer_heaps.get(&key) {
            return Ok(Some(*a));
        }
        let query = Resource { space: u32::MAX, lower_bound: u32::MAX, ..r.clone() };
        let a = placement.ask(*stage, &query, true, r.class == ResourceClass::Uav).ok_or_else(|| Error::Placement {
            register: format!("{} descriptor heap ({:?})", r.class.name(), r.kind),
            reason: "the layer declined it".into(),
        })?;
        if let Err(reason) = offsets_allowed(r, &a) {
            return Err(Error::Placement {
                register: format!("{} descriptor heap ({:?})", r.class.name(), r.kind),
                reason,
            });
        }
        if !matches!(a.location, Location::Heap { table: None, offset: 0, .. }) {
            return Err(Error::Placement {
                register: format!("{} descriptor heap ({:?})", r.class.name(), r.kind),
                reason: format!(
                    "SM 6.6 heap accesses need a heap location without a table or offset, not {:?}",
                    a.location
                ),
            });
        }
        self.layer_heaps.insert(key, a);
        Ok(Some(a))
    }

    /// The `uvec2` address table at the binding the layer gave `r` ([`ArrayLen::InBlock`]):
    /// one storage buffer `{ uvec2 data[]; }` per binding, entries indexed as `indexing` says.
    fn address_table_var(
        &mut self,
        cx: &mut ModuleBuilder<'_>,
        r: &Resource,
        answer: &ResourcePlace,
        indexing: Indexing,
    ) -> Result<ResVar> {
        let Location::Heap { set, binding, .. } = answer.location else {
            return Err(Error::Placement {
                register: r.register(),
                reason: "an address table must be in a heap (its element is the descriptor index)".into(),
            });
        };
        let binding = VkBinding { set, binding };
        let shape = match (r.class, r.kind) {
            (ResourceClass::Srv, ResourceKind::RTAccelerationStructure) => ResShape::AccelerationStructure,
            _ => {
                return Err(Error::Placement {
                    register: r.register(),
                    reason: "only acceleration structures are read from an address table".into(),
                })
            }
        };
        let (var, u2) = self.address_table(cx, binding, "acceleration_structures");
        Ok(ResVar {
            var,
            shape,
            elem_ty: u2,
            storage: StorageClass::StorageBuffer,
            indexing,
            uav: false,
            binding,
            len: ArrayLen::InBlock,
        })
    }

    /// The storage buffer `{ uvec2 data[]; }` at `binding` (one per binding: acceleration
    /// structures and UAV counters of a layer may share it), and the `uvec2` type.
    fn address_table(&mut self, cx: &mut ModuleBuilder<'_>, binding: VkBinding, name: &str) -> (Word, Word) {
        let u = cx.u32_t();
        let u2 = cx.vec(u, 2);
        if let Some(&v) = self.address_tables.get(&binding) {
            return (v, u2);
        }
        let st = array_block(cx, u2, None, 8);
        cx.b.member_decorate(st, 0, Decoration::NonWritable, []);
        cx.b.name(st, "AddressTable");
        cx.b.member_name(st, 0, "data");
        let var = cx.global_var(StorageClass::StorageBuffer, st, name);
        cx.decorate(var, Decoration::DescriptorSet, &[binding.set]);
        cx.decorate(var, Decoration::Binding, &[binding.binding]);
        self.address_tables.insert(binding, var);
        (var, u2)
    }

    /// The heap array holding resources like `r` (its class, kind, element type and
    /// stride decide the array's type), indexed by heap index.
    fn heap_array(
        &mut self,
        cx: &mut ModuleBuilder<'_>,
        r: &Resource,
        atomic: bool,
        binding: VkBinding,
    ) -> Result<ResVar> {
        let typed = !matches!(
            r.kind,
            ResourceKind::CBuffer | ResourceKind::RawBuffer | ResourceKind::StructuredBuffer | ResourceKind::Sampler
        );
        let elem = r.element_type.map(|t| t.to_raw()).unwrap_or(0);
        let key_extra = if typed {
            elem
        } else if r.kind == ResourceKind::StructuredBuffer {
            r.struct_stride.unwrap_or(4)
        } else {
            0
        };
        // The binding is part of the key: a layer may put two ranges of one kind in
        // different arrays.
        let key = (
            r.class as u32 * 256 + r.kind.to_raw(),
            key_extra,
            u32::from(r.class == ResourceClass::Sampler),
            atomic,
            binding,
        );
        if let Some(v) = self.heap_vars.get(&key) {
            return Ok(*v);
        }
        // Every constant buffer of the heap shares one array type: the largest D3D allows
        // (4096 rows), whatever the first one to be used declares.
        let widest = Resource { cbuffer_size: Some(65536), ..r.clone() };
        let (shape, elem_ty, storage) = make_type(cx, &widest, atomic)?;
        let name = format!("heap_{}_{:?}{}", r.class.name(), r.kind, if atomic { "_atomic" } else { "" });
        let v = declare(
            cx,
            &name,
            shape,
            elem_ty,
            storage,
            binding,
            Indexing::Heap,
            ArrayLen::Runtime,
            r.class == ResourceClass::Uav,
        );
        self.heap_vars.insert(key, v);
        Ok(v)
    }

    pub fn var(&mut self, cx: &mut ModuleBuilder<'_>, class: ResourceClass, id: u32) -> Result<ResVar> {
        if let Some(v) = self.vars.get(&(class, id)) {
            return Ok(*v);
        }
        let r = self.resource(class, id)?;
        let atomic = class == ResourceClass::Uav && self.atomic_uavs.contains(&id);
        let place = self.binder.place(r)?;
        let v = match place {
            Place::Descriptor { set, binding, first_register, count, .. } => {
                let (shape, elem_ty, storage) = make_type(cx, r, atomic)?;
                let (indexing, len) = descriptor_shape(r, first_register, count);
                declare(
                    cx,
                    &display_name(r),
                    shape,
                    elem_ty,
                    storage,
                    VkBinding { set, binding },
                    indexing,
                    len,
                    class == ResourceClass::Uav,
                )
            }
            Place::HeapTable { store, table_offset, offset_in_table, base_register } => {
                let answer = match self.binder {
                    Binder::Layer { .. } => Some(self.binder.layer_answer(r)?),
                    _ => None,
                };
                let at = ArgAt { store, offset: table_offset };
                let shift = match answer {
                    Some(ResourcePlace {
                        location: Location::Heap { table: Some(TableOffset::Record { shift, .. }), .. },
                        ..
                    }) => shift,
                    _ => 0,
                };
                let indexing = Indexing::Table { at, bias: offset_in_table.wrapping_sub(base_register), shift };
                if let Some(a) = answer.filter(|a| a.view == BufferView::AddressTable) {
                    return self.address_table_var(cx, r, &a, indexing).inspect(|v| {
                        self.vars.insert((class, id), *v);
                    });
                }
                if r.kind == ResourceKind::RTAccelerationStructure {
                    return Err(Error::UnsupportedForm {
                        subject: Subject::Resource(r.class),
                        message: format!(
                            "acceleration structure {} in a descriptor table: Vulkan has no heap of them; bind it as a root SRV",
                            r.register()
                        ),
                    });
                }
                let binding = self.binder.heap_array_binding(r, answer.as_ref())?;
                let heap = self.heap_array(cx, r, atomic, binding)?;
                ResVar { indexing, ..heap }
            }
            Place::RootAddress { store, offset } => {
                let at = ArgAt { store, offset };
                let (shape, elem_ty, _) = make_type(cx, r, false)?;
                cx.physical_addressing();
                ResVar {
                    var: 0,
                    shape,
                    elem_ty,
                    storage: StorageClass::PhysicalStorageBuffer,
                    indexing: Indexing::Address { at },
                    uav: class == ResourceClass::Uav,
                    binding: VkBinding { set: u32::MAX, binding: u32::MAX },
                    len: ArrayLen::One,
                }
            }
            Place::RootConstants { store, offset, num_values } => {
                let at = ArgAt { store, offset };
                let storage = match store {
                    ArgStore::PushConstants => StorageClass::PushConstant,
                    ArgStore::ShaderRecord => StorageClass::ShaderRecordBufferKHR,
                    ArgStore::RootArgumentBuffer => StorageClass::Uniform,
                };
                ResVar {
                    var: 0,
                    shape: ResShape::CBuffer,
                    elem_ty: 0,
                    storage,
                    indexing: Indexing::RootWords { at, n: num_values },
                    uav: false,
                    binding: VkBinding { set: u32::MAX, binding: u32::MAX },
                    len: ArrayLen::One,
                }
            }
        };
        // A rasterizer-ordered UAV is coherent too: the next invocation of the pixel's
        // critical section must see this one's writes (`emit::rov`).
        if r.uav.is_some_and(|u| u.globally_coherent || u.rasterizer_ordered) && v.var != 0 {
            cx.decorate(v.var, Decoration::Coherent, &[]);
        }
        self.vars.insert((class, id), v);
        Ok(v)
    }
}

/// The layer's answer for declared range `r`, as a place. The answer was checked against
/// the range when it was given (`check_layer_answer`).
fn layer_place(r: &Resource, a: &ResourcePlace) -> Result<Place> {
    let counter = match a.counter {
        Some(CounterPlace::Binding { set, binding }) => Some((set, binding)),
        _ => None,
    };
    Ok(match a.location {
        Location::Binding { set, binding } => {
            Place::Descriptor { set, binding, first_register: r.lower_bound, count: r.range_size, counter }
        }
        Location::Descriptor { set, binding } => {
            Place::Descriptor { set, binding, first_register: r.lower_bound, count: Some(1), counter }
        }
        Location::Heap { table: Some(TableOffset::Push { offset }), offset: in_table, .. } => {
            heap_table(ArgStore::PushConstants, offset, in_table, r)
        }
        Location::Heap { table: Some(TableOffset::Record { offset, .. }), offset: in_table, .. } => {
            heap_table(ArgStore::ShaderRecord, offset, in_table, r)
        }
        Location::Heap { table: None, .. } => {
            return Err(Error::Placement {
                register: r.register(),
                reason: "a declared range in a heap needs a table offset (only SM 6.6 heap accesses have none)".into(),
            })
        }
        Location::RootAddress { offset } => Place::RootAddress { store: ArgStore::PushConstants, offset },
        Location::RecordAddress { offset } => Place::RootAddress { store: ArgStore::ShaderRecord, offset },
        Location::RootConstants { offset } => {
            Place::RootConstants { store: ArgStore::PushConstants, offset, num_values: cbuffer_words(r) }
        }
        Location::RecordConstants { offset } => {
            Place::RootConstants { store: ArgStore::ShaderRecord, offset, num_values: cbuffer_words(r) }
        }
    })
}

/// The heap table of declared range `r` whose offset is at byte `table_offset` of `store`.
fn heap_table(store: ArgStore, table_offset: u32, offset_in_table: u32, r: &Resource) -> Place {
    Place::HeapTable { store, table_offset, offset_in_table, base_register: r.lower_bound }
}

/// The 32-bit words of constant buffer `r` (its declared size, rounded up).
fn cbuffer_words(r: &Resource) -> u32 {
    r.cbuffer_size.unwrap_or(4).div_ceil(4).max(1)
}

fn display_name(r: &Resource) -> std::borrow::Cow<'_, str> {
    if r.name.is_empty() {
        r.default_name().into()
    } else {
        r.name.as_str().into()
    }
}

/// How a declared range sits in a binding of `count` descriptors starting at
/// `first_register`: a plain variable when the binding is one descriptor at the range's
/// first register (every access names it: D3D leaves registers past a binding undefined,
/// and native drivers read its descriptor there), else an array.
fn descriptor_shape(r: &Resource, first_register: u32, count: Option<u32>) -> (Indexing, ArrayLen) {
    match count {
        Some(1) if first_register == r.lower_bound => (Indexing::Single, ArrayLen::One),
        Some(n) => (Indexing::Relative { base: first_register }, ArrayLen::Fixed(n)),
        None => (Indexing::Relative { base: first_register }, ArrayLen::Runtime),
    }
}

fn counter_block(cx: &mut ModuleBuilder<'_>) -> Word {
    let u = cx.u32_t();
    let st = cx.b.id();
    cx.b.type_struct_id(Some(st), [u]);
    cx.decorate(st, Decoration::Block, &[]);
    cx.b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    st
}

fn texel_kind(class: ResourceClass, t: Option<ComponentType>) -> Result<TexelKind> {
    Ok(match t {
        Some(ComponentType::I32 | ComponentType::I16) => TexelKind::SInt,
        Some(ComponentType::U32 | ComponentType::U16) => TexelKind::UInt,
        Some(
            ComponentType::F32
            | ComponentType::F16
            | ComponentType::SNormF32
            | ComponentType::UNormF32
            | ComponentType::SNormF16
            | ComponentType::UNormF16,
        )
        | None => TexelKind::Float,
        Some(other) => {
            return Err(Error::UnsupportedForm {
                subject: Subject::Resource(class),
                message: format!("typed resource element type {other:?}"),
            })
        }
    })
}

/// A new `Block` struct `{ uvec4 data[rows]; }` (std140: array stride 16), the type of
/// constant buffers and of the root argument buffer.
fn uvec4_block(cx: &mut ModuleBuilder<'_>, rows: u32) -> Word {
    let u = cx.u32_t();
    let v4 = cx.vec(u, 4);
    array_block(cx, v4, Some(rows), 16)
}

/// A new `Block` struct `{ elem data[len]; }` (`len` `None`: a runtime array) of array
/// stride `stride`, its member at offset 0. Its own array and struct types (explicit ids)
/// keep decorations from clashing between blocks.
fn array_block(cx: &mut ModuleBuilder<'_>, elem: Word, len: Option<u32>, stride: u32) -> Word {
    let arr = array_type(cx, elem, len, stride);
    let st = cx.b.id();
    cx.b.type_struct_id(Some(st), [arr]);
    cx.decorate(st, Decoration::Block, &[]);
    cx.b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    cx.block_arrays.insert(st, arr);
    st
}

/// A new array type of `elem`s (`len` `None`: a runtime array) with array stride `stride`.
fn array_type(cx: &mut ModuleBuilder<'_>, elem: Word, len: Option<u32>, stride: u32) -> Word {
    let n = len.map(|len| cx.const_u32(len));
    let arr = cx.b.id();
    match n {
        Some(n) => cx.b.type_array_id(Some(arr), elem, n),
        None => cx.b.type_runtime_array_id(Some(arr), elem),
    };
    cx.decorate(arr, Decoration::ArrayStride, &[stride]);
    arr
}

/// The SPIR-V type of one descriptor of `r` (block struct, image or sampler), its shape
/// and storage class.
fn make_type(cx: &mut ModuleBuilder<'_>, r: &Resource, atomic: bool) -> Result<(ResShape, Word, StorageClass)> {
    let uav = r.class == ResourceClass::Uav;
    let unsupported = |what: &str| Error::UnsupportedForm {
        subject: Subject::Resource(r.class),
        message: format!("{} {} ({what})", r.class.name(), r.register()),
    };
    Ok(match r.class {
        ResourceClass::Cbv => {
            let rows = r.cbuffer_size.unwrap_or(16).div_ceil(16).max(1);
            (ResShape::CBuffer, uvec4_block(cx, rows), StorageClass::Uniform)
        }
        ResourceClass::Sampler => (ResShape::Sampler, cx.b.type_sampler(), StorageClass::UniformConstant),
        ResourceClass::Srv | ResourceClass::Uav => match r.kind {
            ResourceKind::RTAccelerationStructure if !uav => {
                (ResShape::AccelerationStructure, cx.b.type_acceleration_structure(), StorageClass::UniformConstant)
            }
            ResourceKind::RawBuffer | ResourceKind::StructuredBuffer => {
                let stride = (r.kind == ResourceKind::StructuredBuffer).then(|| r.struct_stride.unwrap_or(4));
                let u = cx.u32_t();
                // One array and block type per variable, so decorations never clash between
                // buffers.
                let st = array_block(cx, u, None, 4);
                if !uav {
                    cx.b.member_decorate(st, 0, Decoration::NonWritable, []);
                }
                (ResShape::Words { stride }, st, StorageClass::StorageBuffer)
            }
            // Feedback maps, under the layer's encoding (`dxop/feedback.rs`): 64-bit texels
            // that 64-bit atomics OR into.
            ResourceKind::FeedbackTexture2D | ResourceKind::FeedbackTexture2DArray if uav => {
                let arrayed = r.kind == ResourceKind::FeedbackTexture2DArray;
                cx.extension("SPV_EXT_shader_image_int64");
                cx.capability(Capability::Int64ImageEXT);
                cx.capability(Capability::Int64Atomics);
                let t = cx.uint(64);
                let img = cx.b.type_image(t, Dim::Dim2D, 0, u32::from(arrayed), 0, 2, spirv::ImageFormat::R64ui, None);
                (ResShape::Feedback { arrayed }, img, StorageClass::UniformConstant)
            }
            kind => {
                let (dim, arrayed, ms) = match kind {
                    ResourceKind::Texture1D => (Dim::Dim1D, false, false),
                    ResourceKind::Texture1DArray => (Dim::Dim1D, true, false),
                    ResourceKind::Texture2D => (Dim::Dim2D, false, false),
                    ResourceKind::Texture2DArray => (Dim::Dim2D, true, false),
                    ResourceKind::Texture2DMS => (Dim::Dim2D, false, true),
                    ResourceKind::Texture2DMSArray => (Dim::Dim2D, true, true),
                    ResourceKind::Texture3D => (Dim::Dim3D, false, false),
                    ResourceKind::TextureCube => (Dim::DimCube, false, false),
                    ResourceKind::TextureCubeArray => (Dim::DimCube, true, false),
                    ResourceKind::TypedBuffer => (Dim::DimBuffer, false, false),
                    _ => return Err(unsupported(&format!("{kind:?}"))),
                };
                let texel = texel_kind(r.class, r.element_type)?;
                let tt = texel.scalar(cx);
                match (dim, uav) {
                    (Dim::Dim1D, false) => cx.capability(Capability::Sampled1D),
                    (Dim::Dim1D, true) => cx.capability(Capability::Image1D),
                    (Dim::DimBuffer, false) => cx.capability(Capability::SampledBuffer),
                    (Dim::DimBuffer, true) => cx.capability(Capability::ImageBuffer),
                    (Dim::DimCube, _) if arrayed => {
                        cx.capability(if uav { Capability::ImageCubeArray } else { Capability::SampledCubeArray })
                    }
                    _ => {}
                }
                // The formatless-access capabilities come with the first read or write
                // (`ModuleBuilder::unformatted_access`).
                if uav && ms {
                    cx.capability(Capability::StorageImageMultisample);
                    if arrayed {
                        cx.capability(Capability::ImageMSArray);
                    }
                }
                let format = match (atomic, texel) {
                    (true, TexelKind::UInt) => spirv::ImageFormat::R32ui,
                    (true, TexelKind::SInt) => spirv::ImageFormat::R32i,
                    (true, TexelKind::Float) => spirv::ImageFormat::R32f,
                    (false, _) => spirv::ImageFormat::Unknown,
                };
                let img = cx.b.type_image(
                    tt,
                    dim,
                    0,
                    u32::from(arrayed),
                    u32::from(ms),
                    if uav { 2 } else { 1 },
                    format,
                    None,
                );
                if uav && format == spirv::ImageFormat::Unknown {
                    cx.unformatted_image(img);
                }
                (ResShape::Image { dim, arrayed, ms, texel }, img, StorageClass::UniformConstant)
            }
        },
    })
}

/// Whether a raw or structured buffer variable can have a second view at its binding (root
/// descriptors have no variable of their own).
fn aliasable(primary: &ResVar) -> bool {
    primary.var != 0 && primary.storage == StorageClass::StorageBuffer && primary.len != ArrayLen::InBlock
}

/// A second variable at `primary`'s binding, with its array and indexing, whose block is
/// `{ elem data[]; }` (array stride `stride`; one block type per element, stride and
/// writability, kept in `blocks`); `NonWritable` for SRVs, and for UAVs both variables
/// `Aliased`: neither may assume the other leaves its memory alone.
fn aliased_view(
    cx: &mut ModuleBuilder<'_>,
    blocks: &mut BTreeMap<(Word, u32, bool), Word>,
    primary: &ResVar,
    name: &str,
    elem: Word,
    stride: u32,
) -> ResVar {
    let st = *blocks.entry((elem, stride, primary.uav)).or_insert_with(|| {
        let st = array_block(cx, elem, None, stride);
        if !primary.uav {
            cx.b.member_decorate(st, 0, Decoration::NonWritable, []);
        }
        st
    });
    let v = declare_view(cx, primary, name, st, primary.uav);
    if primary.uav {
        cx.decorate(primary.var, Decoration::Aliased, &[]);
        cx.decorate(v.var, Decoration::Aliased, &[]);
    }
    v
}

/// A second variable `name` at `primary`'s binding, with its array and indexing, whose
/// elements are the block `block` (another view of the same buffers).
fn declare_view(cx: &mut ModuleBuilder<'_>, primary: &ResVar, name: &str, block: Word, uav: bool) -> ResVar {
    declare(cx, name, primary.shape, block, primary.storage, primary.binding, primary.indexing, primary.len, uav)
}

/// Declare a descriptor variable of `len` descriptors of `elem_ty` at `binding`.
#[allow(clippy::too_many_arguments)]
fn declare(
    cx: &mut ModuleBuilder<'_>,
    name: &str,
    shape: ResShape,
    elem_ty: Word,
    storage: StorageClass,
    binding: VkBinding,
    indexing: Indexing,
    len: ArrayLen,
    uav: bool,
) -> ResVar {
    let pointee = match len {
        ArrayLen::One => elem_ty,
        ArrayLen::Fixed(n) => {
            let n = cx.const_u32(n);
            cx.b.type_array(elem_ty, n)
        }
        ArrayLen::Runtime => {
            cx.capability(Capability::RuntimeDescriptorArray);
            cx.b.type_runtime_array(elem_ty)
        }
        // Address tables are declared by `Resources::address_table`, not here.
        ArrayLen::InBlock => elem_ty,
    };
    let var = cx.global_var(storage, pointee, name);
    cx.decorate(var, Decoration::DescriptorSet, &[binding.set]);
    cx.decorate(var, Decoration::Binding, &[binding.binding]);
    ResVar { var, shape, elem_ty, storage, indexing, uav, binding, len }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    pub fn handle(&self, v: Value) -> Result<Handle> {
        match v {
            Value::Inst(i) => self.handles.get(&i).copied(),
            _ => None,
        }
        .ok_or_else(|| self.err("a resource handle that does not come from createHandle/annotateHandle"))
    }

    /// The descriptor variable of a handle.
    pub fn res_var(&mut self, h: Handle) -> Result<ResVar> {
        match h.heap {
            Some(hh) => self.res.heap_var(self.cx, hh, false),
            None => self.res.var(self.cx, h.class, h.id),
        }
    }

    /// The variable of typed UAV handle `h` as a 32-bit image atomic (call `c`) takes it:
    /// its image type declares R32ui, R32i or R32f (by its texel), since Vulkan requires
    /// one of those (or a 64-bit format) of the image under an `OpImageTexelPointer` that
    /// an atomic uses (VUID-StandaloneSpirv-OpImageTexelPointer-04658). A heap handle takes
    /// the heap's atomic array at the same binding. A declared UAV is declared so when
    /// `dxil::handles::atomic_uavs` saw the atomic; one it did not is a typed error, not a
    /// format-less image.
    pub fn atomic_image_var(&mut self, c: &crate::emit::Call<'_>, h: Handle) -> Result<ResVar> {
        match h.heap {
            Some(hh) => self.res.heap_var(self.cx, hh, true),
            None if h.class == ResourceClass::Uav && self.res.atomic_uavs.contains(&h.id) => {
                self.res.var(self.cx, h.class, h.id)
            }
            None => Err(self.invalid(
                c,
                "operand 0",
                "an atomic on a typed UAV declared without a 32-bit integer or float format \
                 (its handle was not traced to the UAV before emission)",
            )),
        }
    }

    /// The descriptor variable of a handle and a pointer to its descriptor (for root
    /// descriptors: the `PhysicalStorageBuffer` pointer to its block).
    pub fn res_ptr(&mut self, h: Handle) -> Result<(ResVar, Word)> {
        let rv = self.res_var(h)?;
        let p = self.element_ptr(h, &rv)?;
        Ok((rv, p))
    }

    /// Loads a word of a root argument: word `index` of the argument at `at` (`None`: its
    /// first word).
    pub fn root_word(&mut self, at: ArgAt, index: Option<Word>) -> Result<Word> {
        let u = self.cx.u32_t();
        let p = match at.store {
            ArgStore::PushConstants => self.push_member_ptr(at.offset, u, index)?,
            ArgStore::RootArgumentBuffer => self.spilled_word_ptr(at.offset, index)?,
            ArgStore::ShaderRecord => return self.record_word(at.offset, index),
        };
        self.ids_op(Op::Load, u, &[p])
    }

    /// Loads a root descriptor's address (`uvec2`, low word first) from `at`.
    pub(crate) fn root_address(&mut self, at: ArgAt) -> Result<Word> {
        let u = self.cx.u32_t();
        let u2 = self.cx.vec(u, 2);
        match at.store {
            ArgStore::PushConstants => {
                let p = self.push_member_ptr(at.offset, u2, None)?;
                self.ids_op(Op::Load, u2, &[p])
            }
            ArgStore::RootArgumentBuffer => {
                // 8-aligned (`rootsig::spill`): components 0-1 or 2-3 of one row.
                let var = self.res.spill_block(self.cx)?;
                let u4 = self.cx.vec(u, 4);
                let pty = self.cx.ptr(StorageClass::Uniform, u4);
                let (zero, row) = (self.cx.const_u32(0), self.cx.const_u32(at.offset / 16));
                let p = self.ids_op(Op::AccessChain, pty, &[var, zero, row])?;
                let v = self.ids_op(Op::Load, u4, &[p])?;
                let first = (at.offset % 16) / 4;
                self.ids_op(Op::VectorShuffle, u2, &[v, v, first, first + 1])
            }
            ArgStore::ShaderRecord => {
                let lo = self.record_word(at.offset, None)?;
                let hi = self.record_word(at.offset + 4, None)?;
                self.ids_op(Op::CompositeConstruct, u2, &[lo, hi])
            }
        }
    }

    /// Loads word `index` (`None`: 0) of the local root argument at byte `offset` of the
    /// shader record, or for a work-graph node of its local root arguments (a 4-aligned
    /// `PhysicalStorageBuffer` load at the address the push constants give).
    fn record_word(&mut self, offset: u32, index: Option<Word>) -> Result<Word> {
        let u = self.cx.u32_t();
        if let Some((var, member)) = self.res.node_record {
            let u64t = self.cx.uint(64);
            let pty = self.cx.ptr(StorageClass::PushConstant, u64t);
            let m = self.cx.const_u32(member);
            let p = self.ids_op(Op::AccessChain, pty, &[var, m])?;
            let base = self.ids_op(Op::Load, u64t, &[p])?;
            let first = self.cx.const_u32(offset / 4);
            let word = match index {
                None => first,
                Some(i) => self.ids_op(Op::IAdd, u, &[i, first])?,
            };
            let four = self.cx.const_u32(4);
            let addr = work_graph::element_addr(self.cx, base, word, four)?;
            return work_graph::load_at(self.cx, addr, u, 4);
        }
        let p = self.record_word_ptr(offset, index)?;
        self.ids_op(Op::Load, u, &[p])
    }

    /// A pointer to word `index` (`None`: 0) of the local root argument at byte `offset` of
    /// the shader record.
    fn record_word_ptr(&mut self, offset: u32, index: Option<Word>) -> Result<Word> {
        let var = self.res.record_block(self.cx)?;
        let u = self.cx.u32_t();
        let first = offset / 4;
        let w = match index {
            None => self.cx.const_u32(first),
            Some(i) => match self.cx.const_value_u32(i) {
                Some(k) => self.cx.const_u32(first.wrapping_add(k)),
                None if first == 0 => i,
                None => {
                    let f = self.cx.const_u32(first);
                    self.ids_op(Op::IAdd, u, &[i, f])?
                }
            },
        };
        let zero = self.cx.const_u32(0);
        let pty = self.cx.ptr(StorageClass::ShaderRecordBufferKHR, u);
        self.ids_op(Op::AccessChain, pty, &[var, zero, w])
    }

    /// A pointer to word `index` (`None`: 0) of the root argument at byte `offset` of the
    /// root argument buffer: `data[w / 4][w % 4]` with `w = offset / 4 + index`.
    fn spilled_word_ptr(&mut self, offset: u32, index: Option<Word>) -> Result<Word> {
        let var = self.res.spill_block(self.cx)?;
        let u = self.cx.u32_t();
        let first = offset / 4;
        let dynamic = index.filter(|&i| self.cx.const_value_u32(i).is_none());
        let (row, comp) = match dynamic {
            Some(i) => {
                let w = if first == 0 {
                    i
                } else {
                    let f = self.cx.const_u32(first);
                    self.ids_op(Op::IAdd, u, &[i, f])?
                };
                let (two, three) = (self.cx.const_u32(2), self.cx.const_u32(3));
                (self.ids_op(Op::ShiftRightLogical, u, &[w, two])?, self.ids_op(Op::BitwiseAnd, u, &[w, three])?)
            }
            None => {
                let k = index.and_then(|i| self.cx.const_value_u32(i)).unwrap_or(0);
                let w = first.wrapping_add(k);
                (self.cx.const_u32(w / 4), self.cx.const_u32(w % 4))
            }
        };
        let zero = self.cx.const_u32(0);
        let pty = self.cx.ptr(StorageClass::Uniform, u);
        self.ids_op(Op::AccessChain, pty, &[var, zero, row, comp])
    }

    /// A pointer to the push-constant member at byte `pc_offset` (of type `ty`), or to
    /// element `index` of it.
    fn push_member_ptr(&mut self, pc_offset: u32, ty: Word, index: Option<Word>) -> Result<Word> {
        let block = self.res.push_block(self.cx)?;
        let pty = self.cx.ptr(StorageClass::PushConstant, ty);
        // The member at `pc_offset` itself (an array member with an index for its element).
        if let Some(&(_, member, _)) =
            block.members.iter().find(|m| m.0 == pc_offset && (m.2.is_none() || index.is_some()))
        {
            let m = self.cx.const_u32(member);
            return match index {
                Some(i) => self.ids_op(Op::AccessChain, pty, &[block.var, m, i]),
                None => self.ids_op(Op::AccessChain, pty, &[block.var, m]),
            };
        }
        // A word inside a `uint` array member (a layer's words): element
        // (`pc_offset` − the member's offset) / 4, plus `index`.
        let &(start, member, _) = block
            .members
            .iter()
            .find(|m| {
                m.2.is_some_and(|n| pc_offset >= m.0 && pc_offset < m.0 + 4 * n && (pc_offset - m.0).is_multiple_of(4))
            })
            .ok_or_else(|| Error::Internal(format!("no push-constant member at byte {pc_offset}")))?;
        let m = self.cx.const_u32(member);
        let first = (pc_offset - start) / 4;
        let element = match index {
            Some(i) if first != 0 => {
                let (u, k) = (self.cx.u32_t(), self.cx.const_u32(first));
                self.ids_op(Op::IAdd, u, &[i, k])?
            }
            Some(i) => i,
            None => self.cx.const_u32(first),
        };
        self.ids_op(Op::AccessChain, pty, &[block.var, m, element])
    }

    /// A pointer to the descriptor (or block) `rv` holds for handle `h`.
    /// Made once where it dominates its later uses ([`Self::reusable`]).
    pub fn element_ptr(&mut self, h: Handle, rv: &ResVar) -> Result<Word> {
        // The type first, as it always was: the module's ids stay as they were.
        self.cx.u32_t();
        if matches!(rv.indexing, Indexing::Single) {
            return Ok(rv.var);
        }
        let key = DescriptorKey::Pointer { var: rv.var, h };
        if let Some(p) = self.reusable(key) {
            return Ok(p);
        }
        let p = self.new_element_ptr(h, rv)?;
        self.remember(key, p);
        Ok(p)
    }

    fn new_element_ptr(&mut self, h: Handle, rv: &ResVar) -> Result<Word> {
        // `fresh`: the index is an id made here, which may take a decoration (the
        // shader's own value may be used, and decorated, elsewhere).
        let (element, fresh) = match rv.indexing {
            Indexing::Single => return Ok(rv.var),
            Indexing::Address { at } => {
                let addr = self.root_address(at)?;
                let bptr = self.cx.ptr(StorageClass::PhysicalStorageBuffer, rv.elem_ty);
                return self.ids_op(Op::Bitcast, bptr, &[addr]);
            }
            Indexing::RootWords { .. } => {
                return Err(Error::Internal("root constants have no descriptor".into()));
            }
            Indexing::Relative { .. } | Indexing::Heap | Indexing::Table { .. } => self
                .descriptor_index(h, rv)?
                .ok_or_else(|| Error::Internal("an array descriptor without an index".into()))?,
        };
        if h.non_uniform && fresh {
            self.non_uniform(element);
        }
        let pty = self.cx.ptr(rv.storage, rv.elem_ty);
        let p = if rv.len == ArrayLen::InBlock {
            let zero = self.cx.const_u32(0);
            self.ids_op(Op::AccessChain, pty, &[rv.var, zero, element])?
        } else {
            self.ids_op(Op::AccessChain, pty, &[rv.var, element])?
        };
        if h.non_uniform {
            self.non_uniform(p);
        }
        Ok(p)
    }

    /// The element of `rv`'s array (binding, heap or address table) that handle `h`
    /// names, and whether the id was made here (`fresh`); `None` for a variable that is
    /// not an array (one descriptor, a root descriptor, root constants).
    fn descriptor_index(&mut self, h: Handle, rv: &ResVar) -> Result<Option<(Word, bool)>> {
        let u = self.cx.u32_t();
        let register = |me: &mut Self| -> Result<Word> {
            match h.index {
                Some(index) => me.value(index),
                // A library's single resource (`createHandleForLib`): its one register.
                None if h.heap.is_none() => {
                    let r = me.res.resource(h.class, h.id)?.lower_bound;
                    Ok(me.cx.const_u32(r))
                }
                None => Err(malformed(Subject::Resource(h.class), "handle into a range without an index")),
            }
        };
        Ok(Some(match rv.indexing {
            Indexing::Relative { base } => {
                let x = register(self)?;
                if base == 0 {
                    (x, false)
                } else {
                    let lower = self.cx.const_u32(base);
                    (self.ids_op(Op::ISub, u, &[x, lower])?, true)
                }
            }
            Indexing::Heap => (register(self)?, false),
            Indexing::Table { at, bias, shift } => {
                let x = register(self)?;
                let mut start = self.root_word(at, None)?;
                if shift != 0 {
                    let s = self.cx.const_u32(shift);
                    start = self.ids_op(Op::ShiftRightLogical, u, &[start, s])?;
                }
                let y = self.ids_op(Op::IAdd, u, &[start, x])?;
                if bias == 0 {
                    (y, true)
                } else {
                    let b = self.cx.const_u32(bias);
                    (self.ids_op(Op::IAdd, u, &[y, b])?, true)
                }
            }
            Indexing::Single | Indexing::Address { .. } | Indexing::RootWords { .. } => return Ok(None),
        }))
    }

    /// The range of handle `h`'s buffer view that the layer's offset table gives
    /// ([`OffsetTable`]): `(first, count)` in the view's elements (32-bit words for raw
    /// and structured buffers, texels for typed ones); `None` without an offset table.
    /// Read once per operation, it bounds every element the operation accesses
    /// ([`Self::in_range`]).
    pub fn buffer_range(&mut self, h: Handle) -> Result<Option<(Word, Word)>> {
        self.buffer_range_in(h, false)
    }

    /// [`Self::buffer_range`] in 16-bit elements (`halves`) of a raw or structured buffer's
    /// 16-bit view ([`Self::half_view`]) instead of 32-bit words.
    pub fn buffer_range_in(&mut self, h: Handle, halves: bool) -> Result<Option<(Word, Word)>> {
        let Some(t) = self.res.offsets_of(h)? else { return Ok(None) };
        let rv = self.res_var(h)?;
        let u = self.cx.u32_t();
        let entry = match self.descriptor_index(h, &rv)? {
            None => self.cx.const_u32(t.entry),
            Some((i, _)) => match self.cx.const_value_u32(i) {
                Some(k) => self.cx.const_u32(k.wrapping_mul(t.stride).wrapping_add(t.entry)),
                None => {
                    let scaled = if t.stride == 1 {
                        i
                    } else {
                        let s = self.cx.const_u32(t.stride);
                        self.ids_op(Op::IMul, u, &[i, s])?
                    };
                    if t.entry == 0 {
                        scaled
                    } else {
                        let e = self.cx.const_u32(t.entry);
                        self.ids_op(Op::IAdd, u, &[scaled, e])?
                    }
                }
            },
        };
        let (var, u2) = self.res.address_table(self.cx, VkBinding { set: t.set, binding: t.binding }, "offset_table");
        let pty = self.cx.ptr(StorageClass::StorageBuffer, u2);
        let zero = self.cx.const_u32(0);
        let p = self.ids_op(Op::AccessChain, pty, &[var, zero, entry])?;
        let pair = self.ids_op(Op::Load, u2, &[p])?;
        let mut first = self.ids_op(Op::CompositeExtract, u, &[pair, 0])?;
        let mut count = self.ids_op(Op::CompositeExtract, u, &[pair, 1])?;
        match (t.unit, halves) {
            (OffsetUnit::Bytes, _) => {
                // Words: raw and structured views start and end on 4-byte boundaries.
                let shift = self.cx.const_u32(if halves { 1 } else { 2 });
                first = self.ids_op(Op::ShiftRightLogical, u, &[first, shift])?;
                count = self.ids_op(Op::ShiftRightLogical, u, &[count, shift])?;
            }
            (OffsetUnit::Elements, true) => {
                // Words to halves.
                let one = self.cx.const_u32(1);
                first = self.ids_op(Op::ShiftLeftLogical, u, &[first, one])?;
                count = self.ids_op(Op::ShiftLeftLogical, u, &[count, one])?;
            }
            (OffsetUnit::Elements, false) => {}
        }
        Ok(Some((first, count)))
    }

    /// Element `index` of a buffer view whose range is `range` ([`Self::buffer_range`]):
    /// `index < count ? index + first : past`, `past` being an element past the end of any
    /// buffer (robust buffer access reads 0 there and drops writes); `index` itself
    /// without a range.
    pub fn in_range(&mut self, range: Option<(Word, Word)>, index: Word, past: u32) -> Result<Word> {
        let Some((first, count)) = range else { return Ok(index) };
        let (u, b) = (self.cx.u32_t(), self.cx.bool_t());
        let inside = self.ids_op(Op::ULessThan, b, &[index, count])?;
        let moved = self.ids_op(Op::IAdd, u, &[index, first])?;
        let past = self.cx.const_u32(past);
        self.ids_op(Op::Select, u, &[inside, moved, past])
    }

    pub fn non_uniform(&mut self, id: Word) {
        self.cx.capability(Capability::ShaderNonUniform);
        self.cx.decorate(id, Decoration::NonUniform, &[]);
    }

    /// The loaded image (or sampler) of a handle, loaded once where it dominates its later
    /// uses ([`Self::reusable`]).
    pub fn load_descriptor(&mut self, h: Handle) -> Result<(ResVar, Word)> {
        let (rv, p) = self.res_ptr(h)?;
        let key = DescriptorKey::Loaded { ptr: p };
        if let Some(w) = self.reusable(key) {
            return Ok((rv, w));
        }
        let w = self.ids_op(Op::Load, rv.elem_ty, &[p])?;
        if h.non_uniform {
            self.non_uniform(w);
        }
        self.remember(key, w);
        Ok((rv, w))
    }

    /// The 16-bit view ([`Resources::halves16`]) of the raw or structured buffer behind
    /// `h`; `None` where it has none (root descriptors).
    pub fn half_view(&mut self, h: Handle) -> Result<Option<ResVar>> {
        let rv = self.res_var(h)?;
        let name = self.view_name(h)?;
        Ok(self.res.halves16(self.cx, &rv, &name))
    }

    /// The `uvecN` (`bits` = 32) or `u16vecN` (`bits` = 16) view (`N = width`,
    /// [`Resources::word_vectors`]) of the raw or structured buffer behind `h`; `None` where
    /// it has none (root descriptors).
    pub fn word_vector_view(&mut self, h: Handle, bits: u32, width: u32) -> Result<Option<ResVar>> {
        let rv = self.res_var(h)?;
        let name = self.view_name(h)?;
        Ok(self.res.word_vectors(self.cx, &rv, &name, bits, width))
    }

    /// The name a second view of `h`'s buffer is derived from.
    fn view_name(&self, h: Handle) -> Result<String> {
        Ok(match h.heap {
            Some(_) => "heap_buffer".to_string(),
            None => display_name(self.res.resource(h.class, h.id)?).into_owned(),
        })
    }

    /// A pointer to 16-bit element `index` of `view`, the 16-bit view of `h`'s buffer.
    pub fn half_ptr(&mut self, h: Handle, view: &ResVar, index: Word) -> Result<Word> {
        let u16t = self.cx.uint(16);
        self.view_ptr(h, view, u16t, &[index])
    }

    /// A pointer (to a `ty`) into the data of `view`, a view of `h`'s buffer: array
    /// element `path[0]`, then its members `path[1..]`.
    pub fn view_ptr(&mut self, h: Handle, view: &ResVar, ty: Word, path: &[Word]) -> Result<Word> {
        let p = self.element_ptr(h, view)?;
        let pty = self.cx.ptr(view.storage, ty);
        let zero = self.cx.const_u32(0);
        let mut ops: smallvec::SmallVec<[Word; 4]> = smallvec::smallvec![p, zero];
        ops.extend_from_slice(path);
        let e = self.ids_op(Op::AccessChain, pty, &ops)?;
        if h.non_uniform {
            self.non_uniform(e);
        }
        Ok(e)
    }

    /// A pointer to word `word_index` of a raw/structured buffer handle, and its storage
    /// class (loads and stores through `PhysicalStorageBuffer` need an alignment).
    pub fn word_ptr(&mut self, h: Handle, word_index: Word) -> Result<(Word, StorageClass)> {
        let (rv, p) = self.res_ptr(h)?;
        let u = self.cx.u32_t();
        let pty = self.cx.ptr(rv.storage, u);
        let zero = self.cx.const_u32(0);
        let w = self.ids_op(Op::AccessChain, pty, &[p, zero, word_index])?;
        if h.non_uniform {
            self.non_uniform(w);
        }
        Ok((w, rv.storage))
    }

    /// `OpLoad`, with the `Aligned` operand `PhysicalStorageBuffer` pointers require.
    pub fn load_from(&mut self, ty: Word, ptr: Word, storage: StorageClass, align: u32) -> Result<Word> {
        if storage == StorageClass::PhysicalStorageBuffer {
            self.ids_op(Op::Load, ty, &[ptr, spirv::MemoryAccess::ALIGNED.bits(), align])
        } else {
            self.ids_op(Op::Load, ty, &[ptr])
        }
    }

    /// `OpStore`, with the `Aligned` operand `PhysicalStorageBuffer` pointers require.
    pub fn store_to(&mut self, ptr: Word, value: Word, storage: StorageClass, align: u32) -> Result<()> {
        if storage == StorageClass::PhysicalStorageBuffer {
            self.ids_void(Op::Store, &[ptr, value, spirv::MemoryAccess::ALIGNED.bits(), align])
        } else {
            self.ids_void(Op::Store, &[ptr, value])
        }
    }
}
