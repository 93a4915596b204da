//! dxil-spirv's resource questions and answers as untangle's placement by the layer.
//!
//! For each range untangle asks about, the question dxil-spirv would put to the
//! application's SRV, UAV, CBV or sampler callback is built ([`d3d_binding`]), asked through
//! the converter's remapper (once per distinct question), and the answer turned into a
//! [`ResourcePlace`]:
//!
//! | answer | place |
//! | --- | --- |
//! | `descriptor_type` BUFFER_DEVICE_ADDRESS | root address at push byte `8 · root_constant_index` |
//! | `bindless.use_heap`, `root_constant_index` = UINT32_MAX | the SM 6.6 heap: a heap array, index as the shader gives it |
//! | `bindless.use_heap` | heap array at `(set, binding)`; table start = push word `root_constant_index` after the root descriptors' addresses; offset `heap_root_offset` |
//! | otherwise | descriptors at `(set, binding)` |
//! | CBV `push_constant` | root constants at push byte `8 · root descriptors + 4 · offset_in_words` |
//! | acceleration structure, heap, `descriptor_type` SSBO | the raw-address table: `uvec2` addresses |
//! | UAV counter, heap, identity type, physical storage buffers on | counter addresses in the raw-address table |
//! | UAV counter, SSBO | `{ uint counter; }` buffers (heap or plain) |
//!
//! Offset buffers, where dxil-spirv would read one (`get_ssbo_offset_buffer_id`): a raw or
//! structured buffer answered with an SSBO whose alignment is not a multiple of
//! `SSBO_ALIGNMENT` (the SSBO must be in the heap, the offset buffer must not), and any
//! raw, structured or typed buffer in the heap that is not an SSBO when
//! `BINDLESS_TYPED_BUFFER_OFFSETS` is on. The answer's `offset_binding` is the table
//! `{ uvec2 data[]; }`, entry `descriptor · stride + untyped_offset` (bytes) or
//! `+ typed_offset` (elements) as `BINDLESS_OFFSET_BUFFER_LAYOUT` says.
//!
//! Local root signatures (the shader record of ray-tracing stages) are matched first, in
//! the order the application added their parameters, as dxil-spirv does: constants on the
//! CBV's exact register, descriptors on class and register, tables on class, space and a
//! register inside the range (whose heap array the callback still names; the table's start
//! is the record's descriptor handle shifted right by `SBT_DESCRIPTOR_SIZE_LOG2`).
//!
//! A callback that declines an unbounded range is asked again about one register, as
//! dxil-spirv does. Answers untangle cannot honour (texel-buffer views of raw buffers,
//! texel-buffer counters, storage-buffer constant buffers, offset buffers dxil-spirv would
//! refuse too) decline with a reason the run's error reports.

use super::Shared;
use crate::ffi::*;
use crate::options::{ConverterSetup, LocalRootParameter, Opt, TableEntry};
use std::sync::{Arc, Mutex};
use untangle::dxil::{Resource, ResourceClass, ResourceKind};
use untangle::emit::placement::{
    BufferView, CounterPlace, Location, OffsetTable, OffsetUnit, PlaceQuery, Placement, PushLayout, ResourcePlace,
    TableOffset,
};
use untangle::front::container::ShaderKind;

/// The shader record's entries: where each local root parameter is (dxil-spirv's packing:
/// constants unaligned, descriptors and tables 8-aligned).
struct RecordEntry {
    offset: u32,
    parameter: LocalRootParameter,
}

fn record_layout(params: &[LocalRootParameter]) -> (Vec<RecordEntry>, u32) {
    let mut offset = 0u32;
    let mut out = Vec::new();
    for p in params {
        if !matches!(p, LocalRootParameter::Constants { .. }) {
            offset = offset.next_multiple_of(8);
        }
        out.push(RecordEntry { offset, parameter: p.clone() });
        offset = offset.saturating_add(match p {
            LocalRootParameter::Constants { num_words, .. } => num_words.saturating_mul(4),
            _ => 8,
        });
    }
    (out, offset)
}

fn class_of(c: ResourceClass) -> u32 {
    match c {
        ResourceClass::Srv => DXIL_SPV_RESOURCE_CLASS_SRV,
        ResourceClass::Uav => DXIL_SPV_RESOURCE_CLASS_UAV,
        ResourceClass::Cbv => DXIL_SPV_RESOURCE_CLASS_CBV,
        ResourceClass::Sampler => DXIL_SPV_RESOURCE_CLASS_SAMPLER,
    }
}

/// The question dxil-spirv puts to the application about range `r` of a `stage` shader
/// (`heap`: an SM 6.6 heap access, every register field UINT32_MAX).
pub fn d3d_binding(r: &Resource, stage: dxil_spv_shader_stage, heap: bool) -> dxil_spv_d3d_binding {
    let alignment = match r.kind {
        ResourceKind::RawBuffer => 16,
        ResourceKind::StructuredBuffer => {
            let s = r.struct_stride.unwrap_or(0);
            s & s.wrapping_neg()
        }
        _ => 0,
    };
    dxil_spv_d3d_binding {
        stage,
        kind: r.kind.to_raw() as _,
        resource_index: if heap { 0 } else { r.id },
        register_space: if heap { u32::MAX } else { r.space },
        register_index: if heap { u32::MAX } else { r.lower_bound },
        range_size: if heap { u32::MAX } else { r.range_size.unwrap_or(u32::MAX) },
        alignment,
    }
}

/// What the placement needs besides the remapper.
struct Context {
    stage: dxil_spv_shader_stage,
    root_descriptors: u32,
    physical_counters: bool,
    record: Vec<RecordEntry>,
    sbt_shift: (u32, u32),
    offsets: OffsetOptions,
}

/// The options that decide offset buffers (dxil-spirv's defaults: alignment 16, no typed
/// offsets, layout `(0, 0, 1)`).
#[derive(Clone, Copy)]
struct OffsetOptions {
    ssbo_alignment: u32,
    typed: bool,
    untyped_entry: u32,
    typed_entry: u32,
    stride: u32,
}

impl OffsetOptions {
    fn of(setup: &ConverterSetup) -> OffsetOptions {
        let ssbo_alignment = match setup.last(|o| matches!(o, Opt::SsboAlignment { .. })) {
            Some(Opt::SsboAlignment { alignment }) => *alignment,
            _ => 16,
        };
        let typed = matches!(
            setup.last(|o| matches!(o, Opt::BindlessTypedBufferOffsets { .. })),
            Some(Opt::BindlessTypedBufferOffsets { enable: true })
        );
        let (untyped_entry, typed_entry, stride) =
            match setup.last(|o| matches!(o, Opt::BindlessOffsetBufferLayout { .. })) {
                Some(Opt::BindlessOffsetBufferLayout { untyped_offset, typed_offset, stride }) => {
                    (*untyped_offset, *typed_offset, *stride)
                }
                _ => (0, 0, 1),
            };
        OffsetOptions { ssbo_alignment, typed, untyped_entry, typed_entry, stride }
    }
}

/// The placement untangle consults: every question goes through `shared`'s remapper;
/// why an answer was declined goes to `declined`.
pub fn placement(
    setup: &ConverterSetup,
    _kind: ShaderKind,
    stage: dxil_spv_shader_stage,
    shared: Arc<Shared>,
    declined: Arc<Mutex<Vec<String>>>,
) -> Placement {
    let physical_counters = matches!(
        setup.last(|o| matches!(o, Opt::PhysicalStorageBuffer { .. })),
        Some(Opt::PhysicalStorageBuffer { enable: true })
    );
    let sbt_shift = match setup.last(|o| matches!(o, Opt::SbtDescriptorSizeLog2 { .. })) {
        Some(Opt::SbtDescriptorSizeLog2 { size_log2_srv_uav_cbv, size_log2_sampler }) => {
            (*size_log2_srv_uav_cbv, *size_log2_sampler)
        }
        _ => (0, 0),
    };
    let (record, record_size) = record_layout(&setup.local_root_parameters);
    let cx = Context {
        stage,
        root_descriptors: setup.root_descriptor_count,
        physical_counters,
        record,
        sbt_shift,
        offsets: OffsetOptions::of(setup),
    };
    let push = PushLayout { addresses: setup.root_descriptor_count, words: setup.root_constant_word_count };
    Placement::new(push, record_size, move |q: &PlaceQuery<'_>| {
        let answer = place(&cx, &shared, q);
        match answer {
            Ok(a) => Some(a),
            Err(why) => {
                let who = if q.heap {
                    format!("the {} descriptor heap", q.resource.class.name())
                } else {
                    q.resource.register()
                };
                if let Ok(mut d) = declined.lock() {
                    d.push(format!("{who}: {why}"));
                }
                None
            }
        }
    })
}

/// The place of the range `q` asks about.
fn place(cx: &Context, shared: &Shared, q: &PlaceQuery<'_>) -> Result<ResourcePlace, String> {
    let r = q.resource;
    if !q.heap {
        if let Some(p) = local_place(cx, shared, q)? {
            return Ok(p);
        }
    }
    let d3d = d3d_binding(r, cx.stage, q.heap);
    // dxil-spirv asks again about one register when an unbounded range is declined.
    let retry = |d: dxil_spv_d3d_binding| {
        (d.range_size == u32::MAX && !q.heap).then_some(dxil_spv_d3d_binding { range_size: 1, ..d })
    };
    match r.class {
        ResourceClass::Srv => {
            let (out, retried) = ask(&d3d, retry, |d| {
                let mut o = dxil_spv_srv_vulkan_binding::default();
                shared.with(|m| m.srv(d, &mut o)).then_some(o)
            })?;
            let b = out.buffer_binding;
            let view = buffer_view(r, &b)?;
            let offsets = offset_table(cx, r, d3d.alignment, &b, &out.offset_binding)?;
            Ok(ResourcePlace { location: location(cx, r, &b, q.heap, retried)?, view, counter: None, offsets })
        }
        ResourceClass::Uav => {
            let d = dxil_spv_uav_d3d_binding { d3d_binding: d3d, has_counter: q.counter.into() };
            let (out, retried) = ask(
                &d,
                |d| retry(d.d3d_binding).map(|x| dxil_spv_uav_d3d_binding { d3d_binding: x, ..d }),
                |d| {
                    let mut o = dxil_spv_uav_vulkan_binding::default();
                    shared.with(|m| m.uav(d, &mut o)).then_some(o)
                },
            )?;
            let b = out.buffer_binding;
            buffer_view(r, &b)?;
            let location = location(cx, r, &b, q.heap, retried)?;
            let counter = if q.counter { Some(counter_place(cx, &out.counter_binding)?) } else { None };
            let offsets = offset_table(cx, r, d3d.alignment, &b, &out.offset_binding)?;
            Ok(ResourcePlace { location, view: BufferView::Descriptor, counter, offsets })
        }
        ResourceClass::Cbv => {
            let (out, retried) = ask(&d3d, retry, |d| {
                let mut o = dxil_spv_cbv_vulkan_binding::default();
                shared.with(|m| m.cbv(d, &mut o)).then_some(o)
            })?;
            if out.push_constant != 0 {
                // SAFETY: `push_constant` selects the union's push-constant member.
                let words = unsafe { out.vulkan.push_constant.offset_in_words };
                let offset = 8 * cx.root_descriptors + 4 * words;
                return Ok(ResourcePlace {
                    location: Location::RootConstants { offset },
                    view: BufferView::Descriptor,
                    counter: None,
                    offsets: None,
                });
            }
            // SAFETY: not a push constant: the union holds the uniform binding.
            let b = unsafe { out.vulkan.uniform_binding };
            if b.descriptor_type == DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_SSBO {
                return Err(
                    "constant buffers as storage buffers (BINDLESS_CBV_SSBO_EMULATION) are not implemented".into()
                );
            }
            Ok(ResourcePlace {
                location: location(cx, r, &b, q.heap, retried)?,
                view: BufferView::Descriptor,
                counter: None,
                offsets: None,
            })
        }
        ResourceClass::Sampler => {
            let (b, retried) = ask(&d3d, retry, |d| {
                let mut o = dxil_spv_vulkan_binding::default();
                shared.with(|m| m.sampler(d, &mut o)).then_some(o)
            })?;
            Ok(ResourcePlace {
                location: location(cx, r, &b, q.heap, retried)?,
                view: BufferView::Descriptor,
                counter: None,
                offsets: None,
            })
        }
    }
}

/// Asks `call` about `d`, and about `retry(d)` when declined and a retry exists; the
/// answer, and whether it is the retry's (the range is then one descriptor, as dxil-spirv
/// declares it).
fn ask<D: Copy, O>(d: &D, retry: impl Fn(D) -> Option<D>, call: impl Fn(&D) -> Option<O>) -> Result<(O, bool), String> {
    if let Some(o) = call(d) {
        return Ok((o, false));
    }
    match retry(*d) {
        Some(again) => call(&again).map(|o| (o, true)).ok_or_else(|| "the application's callback declined it".into()),
        None => Err("the application's callback declined it".into()),
    }
}

/// How `r` is viewed under answer `b` (the descriptor type the callback chose).
fn buffer_view(r: &Resource, b: &dxil_spv_vulkan_binding) -> Result<BufferView, String> {
    let raw = matches!(r.kind, ResourceKind::RawBuffer | ResourceKind::StructuredBuffer);
    match (r.kind, b.descriptor_type) {
        (ResourceKind::RTAccelerationStructure, DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_SSBO) if b.bindless.use_heap != 0 => {
            Ok(BufferView::AddressTable)
        }
        (_, DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_TEXEL_BUFFER) if raw => {
            Err("raw and structured buffers as texel buffers are not implemented".into())
        }
        _ => Ok(BufferView::Descriptor),
    }
}

/// The offset table dxil-spirv would read for `r` (asked about with `alignment`) under
/// answer `b` and offset binding `o` (`get_ssbo_offset_buffer_id`), if any.
fn offset_table(
    cx: &Context,
    r: &Resource,
    alignment: u32,
    b: &dxil_spv_vulkan_binding,
    o: &dxil_spv_vulkan_binding,
) -> Result<Option<OffsetTable>, String> {
    let raw = matches!(r.kind, ResourceKind::RawBuffer | ResourceKind::StructuredBuffer);
    if !raw && r.kind != ResourceKind::TypedBuffer {
        return Ok(None);
    }
    let opts = cx.offsets;
    let table = |entry: u32, unit: OffsetUnit| {
        Some(OffsetTable { set: o.set, binding: o.binding, stride: opts.stride, entry, unit })
    };
    if b.descriptor_type == DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_SSBO {
        if !raw || alignment & opts.ssbo_alignment.wrapping_sub(1) == 0 {
            return Ok(None);
        }
        if b.bindless.use_heap == 0 {
            return Err(format!(
                "a storage buffer aligned to {alignment} bytes (SSBO_ALIGNMENT {}) needs an offset buffer, \
                 which only bindless storage buffers have",
                opts.ssbo_alignment
            ));
        }
        if o.bindless.use_heap != 0 {
            return Err("the offset buffer must be a plain binding, not in the heap".into());
        }
        return Ok(table(opts.untyped_entry, OffsetUnit::Bytes));
    }
    Ok(if opts.typed && b.bindless.use_heap != 0 { table(opts.typed_entry, OffsetUnit::Elements) } else { None })
}

/// Where answer `b` puts `r` (`retried`: the answer to the question about one register).
fn location(
    cx: &Context,
    r: &Resource,
    b: &dxil_spv_vulkan_binding,
    heap: bool,
    retried: bool,
) -> Result<Location, String> {
    if b.descriptor_type == DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_BUFFER_DEVICE_ADDRESS {
        if heap || !(retried || r.range_size == Some(1)) {
            return Err("a buffer device address for a range of several descriptors".into());
        }
        return Ok(Location::RootAddress { offset: 8 * b.root_constant_index });
    }
    if b.bindless.use_heap == 0 {
        // The answer about one register of a range the layer declined whole: that one
        // descriptor serves the whole range.
        if retried {
            return Ok(Location::Descriptor { set: b.set, binding: b.binding });
        }
        return Ok(Location::Binding { set: b.set, binding: b.binding });
    }
    if b.root_constant_index == u32::MAX || heap {
        return Ok(Location::Heap { set: b.set, binding: b.binding, table: None, offset: 0 });
    }
    let offset = 8 * cx.root_descriptors + 4 * b.root_constant_index;
    Ok(Location::Heap {
        set: b.set,
        binding: b.binding,
        table: Some(TableOffset::Push { offset }),
        offset: b.bindless.heap_root_offset,
    })
}

/// Where answer `b` puts a UAV's counter.
fn counter_place(cx: &Context, b: &dxil_spv_vulkan_binding) -> Result<CounterPlace, String> {
    let (set, binding) = (b.set, b.binding);
    match (b.bindless.use_heap != 0, b.descriptor_type) {
        (true, DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_SSBO) => Ok(CounterPlace::Heap { set, binding }),
        (false, DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_SSBO) => Ok(CounterPlace::Binding { set, binding }),
        (true, DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_IDENTITY) if cx.physical_counters => {
            Ok(CounterPlace::AddressTable { set, binding })
        }
        _ => Err("texel-buffer UAV counters are not implemented".into()),
    }
}

/// The place of `r` in the shader record, if a local root parameter covers it.
fn local_place(cx: &Context, shared: &Shared, q: &PlaceQuery<'_>) -> Result<Option<ResourcePlace>, String> {
    let r = q.resource;
    let class = class_of(r.class);
    for e in &cx.record {
        match &e.parameter {
            LocalRootParameter::Constants { register_space, register_index, .. }
                if r.class == ResourceClass::Cbv && *register_space == r.space && *register_index == r.lower_bound =>
            {
                return Ok(Some(ResourcePlace {
                    location: Location::RecordConstants { offset: e.offset },
                    view: BufferView::Descriptor,
                    counter: None,
                    offsets: None,
                }));
            }
            LocalRootParameter::Descriptor { resource_class, register_space, register_index }
                if *resource_class == class && *register_space == r.space && *register_index == r.lower_bound =>
            {
                return Ok(Some(ResourcePlace {
                    location: Location::RecordAddress { offset: e.offset },
                    view: BufferView::Descriptor,
                    counter: None,
                    offsets: None,
                }));
            }
            LocalRootParameter::Table { entries } => {
                if let Some(t) = entries.iter().find(|t| covers(t, class, r)) {
                    return local_table(cx, shared, q, e.offset, t).map(Some);
                }
            }
            _ => {}
        }
    }
    Ok(None)
}

fn covers(t: &TableEntry, class: u32, r: &Resource) -> bool {
    t.resource_class == class
        && t.register_space == r.space
        && r.lower_bound >= t.register_index
        && (t.num_descriptors_in_range == u32::MAX || r.lower_bound - t.register_index < t.num_descriptors_in_range)
}

/// A range in a local root table: the heap array the callback names, indexed from the
/// record's descriptor handle.
fn local_table(
    cx: &Context,
    shared: &Shared,
    q: &PlaceQuery<'_>,
    offset: u32,
    t: &TableEntry,
) -> Result<ResourcePlace, String> {
    let r = q.resource;
    let global = place(&cx.clone_without_record(), shared, q)?;
    let Location::Heap { set, binding, .. } = global.location else {
        return Err("a range of a local root table must be answered with a heap array".into());
    };
    let shift = if r.class == ResourceClass::Sampler { cx.sbt_shift.1 } else { cx.sbt_shift.0 };
    Ok(ResourcePlace {
        location: Location::Heap {
            set,
            binding,
            table: Some(TableOffset::Record { offset, shift }),
            offset: t.offset_in_heap.wrapping_add(r.lower_bound - t.register_index),
        },
        view: global.view,
        counter: global.counter,
        offsets: global.offsets,
    })
}

impl Context {
    fn clone_without_record(&self) -> Context {
        Context {
            stage: self.stage,
            root_descriptors: self.root_descriptors,
            physical_counters: self.physical_counters,
            record: Vec::new(),
            sbt_shift: self.sbt_shift,
            offsets: self.offsets,
        }
    }
}
