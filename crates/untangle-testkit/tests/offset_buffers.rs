//! Offset tables (`untangle::emit::placement::OffsetTable`): a layer that binds whole
//! buffers passes each view's `(offset, count)` in a `{ uvec2 data[]; }` table, as
//! vkd3d-proton does on GPUs whose storage buffers need more than 4-byte offset alignment
//! (`DXIL_SPV_OPTION_BINDLESS_TYPED_BUFFER_OFFSETS`, `SSBO_ALIGNMENT`).
//!
//! - Translations with offset tables validate (`spirv-val`): declared ranges in a heap (raw,
//!   structured and typed buffers; loads, stores, atomics, counters, size queries; 16- and
//!   64-bit accesses) and SM 6.6 heap handles; answers that cannot hold an offset table are
//!   refused with the range named.
//! - On a Vulkan device (feature `vulkan`; lavapipe in CI): each view is bound as a whole,
//!   larger buffer with an offset table; in-range reads and writes land at the view's offset,
//!   out-of-range reads return 0 and writes and atomics are dropped, `GetDimensions` returns
//!   the view's size. The same run with the table left out must fail those checks.

use untangle::dxil::{ComponentType, ResourceClass, ResourceKind};
use untangle::emit::placement::{
    CounterPlace, Location, OffsetTable, OffsetUnit, PlaceQuery, Placement, PushLayout, ResourcePlace, TableOffset,
};
use untangle::Options;
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::dxil_ops::shell::{Res, Shell};

/// Threads of the kernel.
const THREADS: u32 = 16;
/// The heap index of the table's first descriptor (push-constant word 0).
const TABLE_START: u32 = 3;
/// The offset table: set and binding, `uvec2` entries per descriptor, and each unit's entry
/// (vkd3d-proton's layout: bytes first, elements second).
const TABLE: (u32, u32) = (1, 0);
const STRIDE: u32 = 2;
const BYTES_ENTRY: u32 = 0;
const ELEMENTS_ENTRY: u32 = 1;
/// The heap bindings (set 0): storage buffers, uniform texel buffers, storage texel
/// buffers, UAV counters; `out` is a plain binding.
const SSBO_HEAP: u32 = 0;
const UNIFORM_TEXEL_HEAP: u32 = 1;
const STORAGE_TEXEL_HEAP: u32 = 2;
const COUNTER_HEAP: u32 = 3;
const OUT: (u32, u32) = (2, 0);
/// Registers in each view's range; the kernel's handle names register `first + slot`.
/// (Small: without a heap, the storage buffer arrays count against the device's
/// per-stage limit, 32 on lavapipe.)
const SLOTS: u32 = 4;
/// Without a heap: view `k` at binding `FIRST_BINDING + k` of set 0 (an array of `SLOTS`
/// descriptors), the counter at `COUNTER_BINDING`.
const FIRST_BINDING: u32 = 10;
const COUNTER_BINDING: u32 = 20;

/// Where the layer puts the views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Bindless: each view's descriptor at heap index `TABLE_START + slot` of its
    /// descriptor type's heap binding, the table start in push word 0.
    Heap,
    /// Each view an array of `SLOTS` descriptors at its own binding, element `slot`
    /// (devices without descriptor indexing).
    Bindings,
}

/// One view of the kernel: its handle's name, the resource (a range of `SLOTS` registers),
/// its heap binding, its slot (the descriptor the handle names), the unit of its range,
/// the range itself (in that unit), and the bound buffer's initial words (`base + j`, one
/// per word or texel).
struct View {
    name: &'static str,
    res: Res,
    heap: u32,
    slot: u32,
    unit: OffsetUnit,
    range: (u32, u32),
    base: u32,
}

impl View {
    /// The descriptor index of the view's descriptor (its offset table entries are
    /// `index · STRIDE + entry`).
    fn index(&self, mode: Mode) -> u32 {
        match mode {
            Mode::Heap => TABLE_START + self.slot,
            Mode::Bindings => self.slot,
        }
    }
    /// The view's range in elements of its access (words or texels).
    fn elements(&self) -> (u32, u32) {
        match self.unit {
            OffsetUnit::Bytes => (self.range.0 / 4, self.range.1 / 4),
            OffsetUnit::Elements => self.range,
        }
    }
}

/// Words of every bound buffer (and texels of every texel buffer).
const BUFFER_WORDS: u32 = 64;

fn views() -> Vec<View> {
    use ResourceClass::{Srv, Uav};
    use ResourceKind::{RawBuffer, StructuredBuffer, TypedBuffer};
    let u32t = ComponentType::U32;
    vec![
        // t0-t3: StructuredBuffer<uint2>, 10 elements from byte 24.
        View {
            name: "sb",
            res: Res::new("sb_range", Srv, StructuredBuffer, 0).extra(8).count(SLOTS),
            heap: SSBO_HEAP,
            slot: 1,
            unit: OffsetUnit::Bytes,
            range: (24, 80),
            base: 0x1000,
        },
        // t4-t7: Buffer<uint>, 9 texels from texel 5.
        View {
            name: "tb",
            res: Res::new("tb_range", Srv, TypedBuffer, SLOTS).typed(u32t).count(SLOTS),
            heap: UNIFORM_TEXEL_HEAP,
            slot: 1,
            unit: OffsetUnit::Elements,
            range: (5, 9),
            base: 0x2000,
        },
        // u1-u4: RWStructuredBuffer<uint> with a counter, 12 elements from byte 40.
        View {
            name: "sw",
            res: Res::new("sw_range", Uav, StructuredBuffer, 1).extra(4).counter().count(SLOTS),
            heap: SSBO_HEAP,
            slot: 2,
            unit: OffsetUnit::Bytes,
            range: (40, 48),
            base: 0xaaaa_0000,
        },
        // u5-u8: RWBuffer<uint> (stores), 11 texels from texel 7.
        View {
            name: "tw",
            res: Res::new("tw_range", Uav, TypedBuffer, 1 + SLOTS).typed(u32t).count(SLOTS),
            heap: STORAGE_TEXEL_HEAP,
            slot: 2,
            unit: OffsetUnit::Elements,
            range: (7, 11),
            base: 0xbbbb_0000,
        },
        // u9-u12: RWByteAddressBuffer (atomics), 52 bytes from byte 16.
        View {
            name: "ra",
            res: Res::new("ra_range", Uav, RawBuffer, 1 + 2 * SLOTS).count(SLOTS),
            heap: SSBO_HEAP,
            slot: 3,
            unit: OffsetUnit::Bytes,
            range: (16, 52),
            base: 0x3000,
        },
        // u13-u16: RWBuffer<uint> (atomics), 14 texels from texel 3.
        View {
            name: "ta",
            res: Res::new("ta_range", Uav, TypedBuffer, 1 + 3 * SLOTS).typed(u32t).count(SLOTS),
            heap: STORAGE_TEXEL_HEAP,
            slot: 3,
            unit: OffsetUnit::Elements,
            range: (3, 14),
            base: 0x4000,
        },
    ]
}

/// Per thread `tid`, 12 words at `out[12·tid]`: `sb[tid].y`, `tb[tid]`, the old values of
/// `ra` word `tid` (+5) and `ta[tid]` (+7), `sw`'s counter (incremented), then the six
/// views' `GetDimensions` (elements; bytes for `ra`), then 0. Stores: `sw[tid] = tid +
/// 1000`, `tw[tid] = tid + 2000` (then `tw[tid] |= 0`, an atomic, which gives `tw` a
/// format: devices without `shaderStorageImageWriteWithoutFormat` can run it).
const KERNEL: &str = r#"  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %o = mul i32 %tid, 48
  %r0 = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %sb, i32 %tid, i32 4, i8 1, i32 4)
  %v0 = extractvalue %dx.types.ResRet.i32 %r0, 0
  %r1 = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %tb, i32 %tid, i32 undef)
  %v1 = extractvalue %dx.types.ResRet.i32 %r1, 0
  %a3 = shl i32 %tid, 2
  %v2 = call i32 @dx.op.atomicBinOp.i32(i32 78, %dx.types.Handle %ra, i32 0, i32 %a3, i32 undef, i32 undef, i32 5)
  %v3 = call i32 @dx.op.atomicBinOp.i32(i32 78, %dx.types.Handle %ta, i32 0, i32 %tid, i32 undef, i32 undef, i32 7)
  %v4 = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %sw, i8 1)
  %w1 = add i32 %tid, 1000
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %sw, i32 %tid, i32 0, i32 %w1, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  %w2 = add i32 %tid, 2000
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %tw, i32 %tid, i32 undef, i32 %w2, i32 %w2, i32 %w2, i32 %w2, i8 15)
  %z = call i32 @dx.op.atomicBinOp.i32(i32 78, %dx.types.Handle %tw, i32 2, i32 %tid, i32 undef, i32 undef, i32 0)
  %d0 = call %dx.types.Dimensions @dx.op.getDimensions(i32 72, %dx.types.Handle %sb, i32 undef)
  %e0 = extractvalue %dx.types.Dimensions %d0, 0
  %d1 = call %dx.types.Dimensions @dx.op.getDimensions(i32 72, %dx.types.Handle %tb, i32 undef)
  %e1 = extractvalue %dx.types.Dimensions %d1, 0
  %d2 = call %dx.types.Dimensions @dx.op.getDimensions(i32 72, %dx.types.Handle %sw, i32 undef)
  %e2 = extractvalue %dx.types.Dimensions %d2, 0
  %d3 = call %dx.types.Dimensions @dx.op.getDimensions(i32 72, %dx.types.Handle %tw, i32 undef)
  %e3 = extractvalue %dx.types.Dimensions %d3, 0
  %d4 = call %dx.types.Dimensions @dx.op.getDimensions(i32 72, %dx.types.Handle %ra, i32 undef)
  %e4 = extractvalue %dx.types.Dimensions %d4, 0
  %d5 = call %dx.types.Dimensions @dx.op.getDimensions(i32 72, %dx.types.Handle %ta, i32 undef)
  %e5 = extractvalue %dx.types.Dimensions %d5, 0
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 %o, i32 undef, i32 %v0, i32 %v1, i32 %v2, i32 %v3, i8 15, i32 4)
  %o1 = add i32 %o, 16
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 %o1, i32 undef, i32 %v4, i32 %e0, i32 %e1, i32 %e2, i8 15, i32 4)
  %o2 = add i32 %o, 32
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 %o2, i32 undef, i32 %e3, i32 %e4, i32 %e5, i32 0, i8 15, i32 4)
  ret void"#;

const DECLS: &str = "declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
declare %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32, %dx.types.Handle, i32, i32)
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)
declare i32 @dx.op.atomicBinOp.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32)
declare i32 @dx.op.bufferUpdateCounter(i32, %dx.types.Handle, i8)
declare %dx.types.Dimensions @dx.op.getDimensions(i32, %dx.types.Handle, i32)";

/// The kernel over every view.
fn kernel() -> String {
    module(views(), KERNEL, DECLS)
}

/// A compute shader of `THREADS` threads declaring `views`, whose handles (`%sb`, ...)
/// name register `first + slot` of their ranges, then `body`.
fn module(views: Vec<View>, kernel: &str, decls: &str) -> String {
    let mut shell = Shell::new("cs");
    shell.threads = [THREADS, 1, 1];
    let mut body = String::new();
    // Range ids in declaration order, UAVs after `out` (id 0).
    let mut ids = [0u32, 1];
    for v in &views {
        let class = v.res.class.index() as usize;
        body.push_str(&format!(
            "  %{} = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 {class}, i32 {}, i32 {}, i1 false)\n",
            v.name,
            ids[class],
            v.res.register + v.slot
        ));
        ids[class] += 1;
    }
    body.push_str(kernel);
    shell.resources = views.into_iter().map(|v| v.res).collect();
    shell.module(&body, decls)
}

/// The layer: `out` at its binding, every view where `mode` says, with its offset table
/// entry (`with_offsets`) or without.
fn placement(mode: Mode, with_offsets: bool) -> Placement {
    let views = views();
    Placement::new(PushLayout { addresses: 0, words: 1 }, 0, move |q: &PlaceQuery<'_>| {
        let r = q.resource;
        if r.class == ResourceClass::Uav && r.lower_bound == 0 {
            return Some(ResourcePlace {
                location: Location::Binding { set: OUT.0, binding: OUT.1 },
                view: Default::default(),
                counter: None,
                offsets: None,
            });
        }
        let k = views.iter().position(|v| v.res.class == r.class && v.res.register == r.lower_bound)?;
        let v = &views[k];
        let entry = if v.unit == OffsetUnit::Bytes { BYTES_ENTRY } else { ELEMENTS_ENTRY };
        let (location, counter) = match mode {
            Mode::Heap => (
                Location::Heap { set: 0, binding: v.heap, table: Some(TableOffset::Push { offset: 0 }), offset: 0 },
                CounterPlace::Heap { set: 0, binding: COUNTER_HEAP },
            ),
            Mode::Bindings => (
                Location::Binding { set: 0, binding: FIRST_BINDING + k as u32 },
                CounterPlace::Binding { set: 0, binding: COUNTER_BINDING },
            ),
        };
        Some(ResourcePlace {
            location,
            view: Default::default(),
            counter: q.counter.then_some(counter),
            offsets: with_offsets.then_some(OffsetTable {
                set: TABLE.0,
                binding: TABLE.1,
                stride: STRIDE,
                entry,
                unit: v.unit,
            }),
        })
    })
}

fn options(mode: Mode, with_offsets: bool) -> Options {
    Options { placement: Some(placement(mode, with_offsets)), ..Default::default() }
}

fn validate(words: &[u32]) {
    if let Some(v) = find_spirv_val() {
        v.validate(words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}\n{}", v.disassemble(words).unwrap_or_default()));
    }
}

fn count_ops(words: &[u32], op: rspirv::spirv::Op) -> usize {
    let m = rspirv::dr::load_words(words).expect("loads");
    m.functions.iter().flat_map(|f| f.all_inst_iter()).filter(|i| i.class.opcode == op).count()
}

/// The offset table's variable: its set and binding, if declared.
fn offset_table_binding(words: &[u32]) -> Option<(u32, u32)> {
    use rspirv::dr::Operand;
    use rspirv::spirv::Decoration;
    let m = rspirv::dr::load_words(words).expect("loads");
    let var = m.debug_names.iter().find_map(|i| match &i.operands[..] {
        [Operand::IdRef(id), Operand::LiteralString(s)] if s == "offset_table" => Some(*id),
        _ => None,
    })?;
    let deco = |d: Decoration| {
        m.annotations.iter().find_map(|i| match &i.operands[..] {
            [Operand::IdRef(id), Operand::Decoration(x), Operand::LiteralBit32(n)] if *id == var && *x == d => Some(*n),
            _ => None,
        })
    };
    Some((deco(Decoration::DescriptorSet)?, deco(Decoration::Binding)?))
}

/// Translates `text` with and without offset tables (both must validate) and returns how
/// many more bounds (`OpULessThan`) the first has.
fn bounds(text: &str, with: Options, without: Options) -> usize {
    let with = untangle::translate(text.as_bytes(), &with).expect("translates with offsets");
    validate(&with.words);
    let without = untangle::translate(text.as_bytes(), &without).expect("translates without offsets");
    validate(&without.words);
    let op = rspirv::spirv::Op::ULessThan;
    count_ops(&with.words, op) - count_ops(&without.words, op)
}

#[test]
fn offset_tables_bound_every_buffer_access_and_validate() {
    let text = kernel();
    for mode in [Mode::Heap, Mode::Bindings] {
        let with = untangle::translate(text.as_bytes(), &options(mode, true)).expect("translates with offsets");
        assert_eq!(offset_table_binding(&with.words), Some(TABLE), "{mode:?}: one offset table at its binding");
        let without = untangle::translate(text.as_bytes(), &options(mode, false)).expect("translates");
        assert_eq!(offset_table_binding(&without.words), None, "{mode:?}: no offset table unless the layer gives one");
        // Size queries read the table instead of the descriptors.
        use rspirv::spirv::Op;
        assert_eq!(count_ops(&with.words, Op::ArrayLength), 0);
        assert_eq!(count_ops(&with.words, Op::ImageQuerySize), 0);
        assert_eq!(count_ops(&without.words, Op::ArrayLength), 3);
        assert_eq!(count_ops(&without.words, Op::ImageQuerySize), 3);
        // Every element access is bounded: two loads, three atomics, two stores (one word
        // or texel each) and nothing else compares with a count (`out` has no table).
        assert_eq!(bounds(&text, options(mode, true), options(mode, false)), 7, "{mode:?}: one bound per access");
    }
}

/// 16- and 64-bit accesses through an offset table: 64-bit loads and stores (two words
/// each, each bounded), 16-bit stores (half words, atomically), 64-bit atomics (both words
/// of the value in range).
#[test]
fn wide_and_narrow_accesses_with_offsets_validate() {
    let body = r#"  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a = shl i32 %tid, 3
  %r = call %dx.types.ResRet.i64 @dx.op.rawBufferLoad.i64(i32 139, %dx.types.Handle %ra, i32 %a, i32 undef, i8 3, i32 8)
  %x = extractvalue %dx.types.ResRet.i64 %r, 0
  %y = extractvalue %dx.types.ResRet.i64 %r, 1
  call void @dx.op.rawBufferStore.i64(i32 140, %dx.types.Handle %ra, i32 %a, i32 undef, i64 %y, i64 %x, i64 undef, i64 undef, i8 3, i32 8)
  %old = call i64 @dx.op.atomicBinOp.i64(i32 78, %dx.types.Handle %ra, i32 0, i32 %a, i32 undef, i32 undef, i64 1)
  %h = trunc i64 %old to i16
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %sw, i32 %tid, i32 2, i16 %h, i16 undef, i16 undef, i16 undef, i8 1, i32 2)
  ret void"#;
    let decls = "declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.i64 @dx.op.rawBufferLoad.i64(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i64(i32, %dx.types.Handle, i32, i32, i64, i64, i64, i64, i8, i32)
declare void @dx.op.rawBufferStore.i16(i32, %dx.types.Handle, i32, i32, i16, i16, i16, i16, i8, i32)
declare i64 @dx.op.atomicBinOp.i64(i32, %dx.types.Handle, i32, i32, i32, i32, i64)";
    let text = module(views().into_iter().filter(|v| matches!(v.name, "ra" | "sw")).collect(), body, decls);
    // Four word loads, four word stores, one 64-bit atomic, one 16-bit store.
    assert_eq!(bounds(&text, options(Mode::Heap, true), options(Mode::Heap, false)), 10);
}

/// SM 6.6 heap handles (`createHandleFromHeap`): the layer's heap answer carries the
/// table; the descriptor index is the heap index itself.
#[test]
fn heap_handles_read_their_offset_entry() {
    let body = r#"  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %h0 = call %dx.types.Handle @dx.op.createHandleFromHeap(i32 218, i32 %tid, i1 false, i1 false)
  %s = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %h0, %dx.types.ResourceProperties { i32 12, i32 8 })
  %r = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %s, i32 %tid, i32 0, i8 3, i32 4)
  %x = extractvalue %dx.types.ResRet.i32 %r, 0
  %k = add i32 %tid, 100
  %h1 = call %dx.types.Handle @dx.op.createHandleFromHeap(i32 218, i32 %k, i1 false, i1 false)
  %t = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %h1, %dx.types.ResourceProperties { i32 4106, i32 261 })
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %t, i32 %tid, i32 undef, i32 %x, i32 %x, i32 %x, i32 %x, i8 15)
  %d = call %dx.types.Dimensions @dx.op.getDimensions(i32 72, %dx.types.Handle %t, i32 undef)
  %n = extractvalue %dx.types.Dimensions %d, 0
  %o = shl i32 %tid, 2
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 %o, i32 undef, i32 %n, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void"#;
    let decls = "declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.Handle @dx.op.createHandleFromHeap(i32, i32, i1, i1)
declare %dx.types.Handle @dx.op.annotateHandle(i32, %dx.types.Handle, %dx.types.ResourceProperties)
declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)
declare %dx.types.Dimensions @dx.op.getDimensions(i32, %dx.types.Handle, i32)";
    let text = Shell::new("cs").module(body, decls);
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let place = |with_offsets: bool| {
        let log = asked.clone();
        Placement::new(PushLayout::default(), 0, move |q: &PlaceQuery<'_>| {
            let r = q.resource;
            log.lock().unwrap().push((q.heap, r.class, r.kind));
            let typed = r.kind == ResourceKind::TypedBuffer;
            Some(ResourcePlace {
                location: if q.heap {
                    Location::Heap { set: 0, binding: if typed { 2 } else { 0 }, table: None, offset: 0 }
                } else {
                    Location::Binding { set: OUT.0, binding: OUT.1 }
                },
                view: Default::default(),
                counter: None,
                offsets: (q.heap && with_offsets).then_some(OffsetTable {
                    set: 5,
                    binding: 6,
                    stride: 2,
                    entry: u32::from(typed),
                    unit: if typed { OffsetUnit::Elements } else { OffsetUnit::Bytes },
                }),
            })
        })
    };
    let options = |with_offsets| Options { placement: Some(place(with_offsets)), ..Default::default() };
    // One bounded word load (only `.x` is used), one bounded texel store.
    assert_eq!(bounds(&text, options(true), options(false)), 2);
    let t = untangle::translate(text.as_bytes(), &options(true)).expect("translates");
    assert_eq!(offset_table_binding(&t.words), Some((5, 6)));
    let asked = asked.lock().unwrap().clone();
    assert!(asked.contains(&(true, ResourceClass::Srv, ResourceKind::StructuredBuffer)), "{asked:?}");
    assert!(asked.contains(&(true, ResourceClass::Uav, ResourceKind::TypedBuffer)), "{asked:?}");
    assert_eq!(count_ops(&t.words, rspirv::spirv::Op::ImageQuerySize), 0);
}

/// Answers that cannot hold an offset table are refused, naming the range: a table in
/// bytes for a typed buffer, a table for a texture, a table for a root descriptor.
#[test]
fn offset_tables_only_where_they_mean_something() {
    let body = r#"  %r = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %tb, i32 0, i32 undef)
  %v = extractvalue %dx.types.ResRet.i32 %r, 0
  %q = call %dx.types.ResRet.i32 @dx.op.textureLoad.i32(i32 66, %dx.types.Handle %tx, i32 0, i32 0, i32 0, i32 undef, i32 undef, i32 undef, i32 undef)
  %w = extractvalue %dx.types.ResRet.i32 %q, 0
  %s = add i32 %v, %w
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, i32 %s, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void"#;
    let decls = "declare %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32, %dx.types.Handle, i32, i32)
declare %dx.types.ResRet.i32 @dx.op.textureLoad.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)";
    let mut shell = Shell::new("cs");
    shell.resources = vec![
        Res::new("tb", ResourceClass::Srv, ResourceKind::TypedBuffer, 0).typed(ComponentType::U32),
        Res::new("tx", ResourceClass::Srv, ResourceKind::Texture2D, 1).typed(ComponentType::U32),
    ];
    let text = shell.module(body, decls);
    let table = |unit| OffsetTable { set: 1, binding: 0, stride: 1, entry: 0, unit };
    let heap = Location::Heap { set: 0, binding: 0, table: Some(TableOffset::Push { offset: 8 }), offset: 0 };
    // (register the bad answer is for, its location, its table, what the error says)
    let cases = [
        ("t0", heap, OffsetUnit::Bytes, "bytes"),
        ("t1", heap, OffsetUnit::Elements, "not a raw, structured or typed buffer"),
        ("t0", Location::RootAddress { offset: 0 }, OffsetUnit::Elements, "without a descriptor"),
    ];
    for (register, bad_location, unit, says) in cases {
        let place = Placement::new(PushLayout { addresses: 1, words: 1 }, 0, move |q: &PlaceQuery<'_>| {
            let r = q.resource;
            let this = r.class == ResourceClass::Srv && format!("t{}", r.lower_bound) == register;
            Some(ResourcePlace {
                location: match (r.class, this) {
                    (ResourceClass::Uav, _) => Location::Binding { set: 2, binding: 0 },
                    (_, true) => bad_location,
                    _ => heap,
                },
                view: Default::default(),
                counter: None,
                offsets: this.then_some(table(unit)),
            })
        });
        let e = untangle::translate(text.as_bytes(), &Options { placement: Some(place), ..Default::default() })
            .expect_err("a bad offset table is refused");
        let msg = e.to_string();
        assert!(msg.contains(register) && msg.contains(says), "{register}: {msg}");
    }
}

#[cfg(feature = "vulkan")]
mod device {
    use super::*;
    use ash::vk;
    use std::time::Duration;
    use untangle_testkit::vulkan::{open_or_skip, Binding, Dispatch, Resource};

    fn bytes(words: impl IntoIterator<Item = u32>) -> Vec<u8> {
        words.into_iter().flat_map(u32::to_le_bytes).collect()
    }

    /// The bindings: `out`, each view a whole `BUFFER_WORDS` buffer as its descriptor
    /// (and the counter after the view that has one), the offset table (entries of other
    /// descriptors hold a decoy range); and the descriptor counts of arrays.
    fn bindings(views: &[View], mode: Mode) -> (Vec<Binding>, Vec<(u32, u32, u32)>) {
        let mut out = vec![Binding::new(OUT.0, OUT.1, Resource::words(&[0; 12 * THREADS as usize]))];
        let mut counts = Vec::new();
        let mut table = vec![(4u32, 8u32); (STRIDE * (TABLE_START + SLOTS)) as usize];
        for (k, v) in views.iter().enumerate() {
            let entry = if v.unit == OffsetUnit::Bytes { BYTES_ENTRY } else { ELEMENTS_ENTRY };
            let element = v.index(mode);
            table[(element * STRIDE + entry) as usize] = v.range;
            let data = bytes((0..BUFFER_WORDS).map(|j| v.base + j));
            let format = vk::Format::R32_UINT;
            let resource = match v.heap {
                SSBO_HEAP => Resource::StorageBuffer(data),
                UNIFORM_TEXEL_HEAP => Resource::UniformTexelBuffer { format, bytes: data },
                _ => Resource::StorageTexelBuffer { format, bytes: data },
            };
            let (binding, counter) = match mode {
                Mode::Heap => (v.heap, COUNTER_HEAP),
                Mode::Bindings => (FIRST_BINDING + k as u32, COUNTER_BINDING),
            };
            out.push(Binding { set: 0, binding, element, resource });
            if v.res.counter {
                out.push(Binding { set: 0, binding: counter, element, resource: Resource::words(&[100]) });
            }
            if mode == Mode::Bindings {
                counts.push((0, binding, SLOTS));
                if v.res.counter {
                    counts.push((0, counter, SLOTS));
                }
            }
        }
        out.push(Binding::new(
            TABLE.0,
            TABLE.1,
            Resource::words(&table.iter().flat_map(|&(a, b)| [a, b]).collect::<Vec<_>>()),
        ));
        (out, counts)
    }

    /// What D3D gives: the kernel's outputs and every view's buffer afterwards.
    fn check(views: &[View], result: &untangle_testkit::vulkan::DispatchResult) -> Result<(), String> {
        let out = result.words(0).ok_or("no out")?;
        let buffer = |name: &str| -> Result<Vec<u32>, String> {
            let k = views.iter().position(|v| v.name == name).ok_or("no view")?;
            // `out`, then each view (and the counter after the view that has one).
            let at = 1 + k + views[..k].iter().filter(|v| v.res.counter).count();
            result.words(at).ok_or_else(|| format!("no buffer for {name}"))
        };
        let view = |name: &str| views.iter().find(|v| v.name == name).expect("view");
        let mut bad = Vec::new();
        let mut expect = |what: String, got: u32, want: u32| {
            if got != want {
                bad.push(format!("{what}: {got:#x}, want {want:#x}"));
            }
        };
        let mut counters = Vec::new();
        for tid in 0..THREADS {
            let o = &out[12 * tid as usize..12 * (tid as usize + 1)];
            let inside = |v: &View| tid < v.elements().1;
            let (sb, tb, ra, ta) = (view("sb"), view("tb"), view("ra"), view("ta"));
            // sb: 8-byte elements; word 1 of element tid.
            let want = if tid < sb.elements().1 / 2 { sb.base + sb.elements().0 + 2 * tid + 1 } else { 0 };
            expect(format!("sb[{tid}].y"), o[0], want);
            expect(format!("tb[{tid}]"), o[1], if inside(tb) { tb.base + tb.elements().0 + tid } else { 0 });
            expect(
                format!("ra word {tid} before +5"),
                o[2],
                if inside(ra) { ra.base + ra.elements().0 + tid } else { 0 },
            );
            expect(format!("ta[{tid}] before +7"), o[3], if inside(ta) { ta.base + ta.elements().0 + tid } else { 0 });
            counters.push(o[4]);
            let dims = [o[5], o[6], o[7], o[8], o[9], o[10]];
            for (k, name) in ["sb", "tb", "sw", "tw", "ra", "ta"].iter().enumerate() {
                let v = view(name);
                let want = match (v.unit, v.res.kind) {
                    (OffsetUnit::Bytes, ResourceKind::StructuredBuffer) => v.range.1 / v.res.extra,
                    _ => v.range.1,
                };
                expect(format!("GetDimensions({name}), thread {tid}"), dims[k], want);
            }
        }
        counters.sort_unstable();
        let unique: Vec<u32> = (100..100 + THREADS).collect();
        for (k, (&got, &want)) in counters.iter().zip(&unique).enumerate() {
            expect(format!("counter value {k} (sorted)"), got, want);
        }
        // Writes land inside the view only; atomics change in-range elements only.
        for (name, value) in [("sw", 1000u32), ("tw", 2000)] {
            let v = view(name);
            let (first, count) = v.elements();
            let got = buffer(name)?;
            for j in 0..BUFFER_WORDS {
                let want = if j >= first && j - first < count.min(THREADS) { value + j - first } else { v.base + j };
                expect(format!("{name} word {j}"), got[j as usize], want);
            }
        }
        for (name, add) in [("ra", 5u32), ("ta", 7)] {
            let v = view(name);
            let (first, count) = v.elements();
            let got = buffer(name)?;
            for j in 0..BUFFER_WORDS {
                let hit = j >= first && j - first < count.min(THREADS);
                expect(format!("{name} word {j}"), got[j as usize], v.base + j + if hit { add } else { 0 });
            }
        }
        if bad.is_empty() {
            Ok(())
        } else {
            Err(bad.join("\n"))
        }
    }

    fn run(gpu: &mut untangle_testkit::vulkan::Gpu, mode: Mode, with_offsets: bool) -> Result<(), String> {
        let views = views();
        let t = untangle::translate(kernel().as_bytes(), &options(mode, with_offsets)).map_err(|e| e.to_string())?;
        let (bindings, min_counts) = bindings(&views, mode);
        let d = Dispatch {
            spirv: &t.words,
            entry: &t.entry_point,
            bindings,
            min_counts,
            push_constants: TABLE_START.to_le_bytes().to_vec(),
            groups: [1, 1, 1],
            timeout: Duration::from_secs(60),
            ..Default::default()
        };
        let r = gpu.dispatch(&d).map_err(|e| e.to_string())?;
        check(&views, &r)
    }

    #[test]
    fn offset_tables_bound_views_on_the_device() {
        let Some(mut gpu) = open_or_skip("offset_tables_bound_views_on_the_device") else { return };
        // Heap arrays are runtime descriptor arrays.
        let modes: &[Mode] =
            if gpu.info().features.descriptor_indexing { &[Mode::Heap, Mode::Bindings] } else { &[Mode::Bindings] };
        for &mode in modes {
            println!("{mode:?}");
            run(&mut gpu, mode, true).unwrap_or_else(|e| panic!("{mode:?}, with offset tables:\n{e}"));
            // The check notices a translation that ignores the table.
            assert!(run(&mut gpu, mode, false).is_err(), "{mode:?}: the checks pass without offset tables");
        }
    }
}
