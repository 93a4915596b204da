//! Second views of buffers that share a heap array: the `uvec4` view of structured buffers
//! of 16-byte stride and the 16-bit view of raw buffers (`Resources::quads`,
//! `Resources::halves16`) are one variable per heap array, but every range of a descriptor
//! table reaches it with its own descriptor index (`Indexing::Table`'s bias).
//!
//! vkd3d-proton's `test_register_space_dxil` found the views keeping the indexing of the
//! first range that used them: `RWStructuredBufResult[0] = res` stored through the view with
//! the index of `RWStructuredBuf`, one range before it, and the result buffer kept its 9.0.
//!
//! - The translation validates and goes through both views (an `ArrayStride 16` `uvec4`
//!   runtime array and an `ArrayStride 2` 16-bit one).
//! - On a Vulkan device (feature `vulkan`; lavapipe in CI): a load through the view from
//!   range `a` then a store through it to range `b` (and a 16-bit store to `c` then to `d`)
//!   land in their own buffers, and the others are untouched.

use untangle::dxil::{ResourceClass, ResourceKind};
use untangle::emit::placement::{Location, PlaceQuery, Placement, PushLayout, ResourcePlace, TableOffset};
use untangle::Options;
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::dxil_ops::shell::{Res, Shell};

/// The storage-buffer heap (set, binding); the table starts at the heap index in push word 0.
const HEAP: (u32, u32) = (0, 0);
const TABLE_START: u32 = 2;
/// The shell's `out` UAV, which the kernel leaves alone.
const OUT: (u32, u32) = (1, 0);

/// The four UAV ranges (one register each, u1-u4) and their offsets in the table:
/// `a`, `b` structured buffers of stride 16, `c`, `d` raw buffers. The offsets do not
/// follow the registers, so each pair's descriptor indices differ in their bias (offset −
/// register): with offsets in register order one bias would reach every range.
const RANGES: [(&str, ResourceKind, u32); 4] = [
    ("a", ResourceKind::StructuredBuffer, 1),
    ("b", ResourceKind::StructuredBuffer, 0),
    ("c", ResourceKind::RawBuffer, 3),
    ("d", ResourceKind::RawBuffer, 2),
];

/// `b[0] = a[0] + (1, 2, 3, 4)` (all four words: one `uvec4` load and store), then a 16-bit
/// store of `0x1111` to `c` byte 2 and of `0x2222` to `d` byte 2.
const BODY: &str = r#"  %r = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %a, i32 0, i32 0, i8 15, i32 4)
  %x = extractvalue %dx.types.ResRet.i32 %r, 0
  %y = extractvalue %dx.types.ResRet.i32 %r, 1
  %z = extractvalue %dx.types.ResRet.i32 %r, 2
  %w = extractvalue %dx.types.ResRet.i32 %r, 3
  %x1 = add i32 %x, 1
  %y1 = add i32 %y, 2
  %z1 = add i32 %z, 3
  %w1 = add i32 %w, 4
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %b, i32 0, i32 0, i32 %x1, i32 %y1, i32 %z1, i32 %w1, i8 15, i32 4)
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %c, i32 2, i32 undef, i16 4369, i16 undef, i16 undef, i16 undef, i8 1, i32 2)
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %d, i32 2, i32 undef, i16 8738, i16 undef, i16 undef, i16 undef, i8 1, i32 2)
  ret void"#;

const DECLS: &str = "declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i16(i32, %dx.types.Handle, i32, i32, i16, i16, i16, i16, i8, i32)";

/// The kernel: the shell's `out` (u0, unused) and the ranges at u1-u4.
fn kernel() -> String {
    let mut shell = Shell::new("cs");
    for (k, (name, kind, _)) in RANGES.iter().enumerate() {
        let res = Res::new(name, ResourceClass::Uav, *kind, 1 + k as u32);
        shell.resources.push(if *kind == ResourceKind::StructuredBuffer { res.extra(16) } else { res });
    }
    shell.module(BODY, DECLS)
}

/// Every range in the one storage-buffer heap array, at its own offset in the table;
/// `out` at its own binding.
fn options() -> Options {
    let placement = Placement::new(PushLayout { addresses: 0, words: 1 }, 0, |q: &PlaceQuery<'_>| {
        let location = match RANGES.iter().find(|(name, ..)| *name == q.resource.name) {
            Some(&(_, _, offset)) => {
                Location::Heap { set: HEAP.0, binding: HEAP.1, table: Some(TableOffset::Push { offset: 0 }), offset }
            }
            None => Location::Binding { set: OUT.0, binding: OUT.1 },
        };
        Some(ResourcePlace { location, view: Default::default(), counter: None, offsets: None })
    });
    Options { placement: Some(placement), ..Default::default() }
}

/// Runtime arrays of the module with the given element type opcode and array stride.
fn runtime_arrays(words: &[u32], elem: rspirv::spirv::Op, stride: u32) -> usize {
    use rspirv::dr::Operand;
    use rspirv::spirv::{Decoration, Op};
    let m = rspirv::dr::load_words(words).expect("loads");
    let def = |id: u32| m.types_global_values.iter().find(|i| i.result_id == Some(id));
    m.types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeRuntimeArray)
        .filter(|i| match i.operands.first() {
            Some(Operand::IdRef(e)) => def(*e).is_some_and(|d| d.class.opcode == elem),
            _ => false,
        })
        .filter(|i| {
            m.annotations.iter().any(|a| {
                a.operands[..]
                    == [
                        Operand::IdRef(i.result_id.unwrap_or(0)),
                        Operand::Decoration(Decoration::ArrayStride),
                        Operand::LiteralBit32(stride),
                    ]
            })
        })
        .count()
}

#[test]
fn shared_heap_views_translate_through_both_views() {
    let t = untangle::translate(kernel().as_bytes(), &options()).expect("translates");
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}"));
    }
    use rspirv::spirv::Op;
    assert_eq!(runtime_arrays(&t.words, Op::TypeVector, 16), 1, "one uvec4 view of the structured heap array");
    assert_eq!(runtime_arrays(&t.words, Op::TypeInt, 2), 1, "one 16-bit view of the raw heap array");
}

#[cfg(feature = "vulkan")]
mod device {
    use super::*;
    use std::time::Duration;
    use untangle_testkit::vulkan::{open_or_skip, Binding, Dispatch, Resource};

    /// Each range's buffer: 8 words, word `j` of range `k` holding `k·0x100 + j`.
    fn initial(k: usize) -> Vec<u32> {
        (0..8).map(|j| (k as u32) * 0x100 + j).collect()
    }

    #[test]
    fn shared_heap_views_reach_their_own_descriptors() {
        let Some(mut gpu) = open_or_skip("shared_heap_views_reach_their_own_descriptors") else { return };
        if !gpu.info().features.descriptor_indexing {
            println!("skipped: heap arrays need descriptor indexing");
            return;
        }
        let t = untangle::translate(kernel().as_bytes(), &options()).expect("translates");
        let mut bindings: Vec<Binding> = RANGES
            .iter()
            .enumerate()
            .map(|(k, (_, _, offset))| Binding {
                set: HEAP.0,
                binding: HEAP.1,
                element: TABLE_START + offset,
                resource: Resource::words(&initial(k)),
            })
            .collect();
        bindings.push(Binding::new(OUT.0, OUT.1, Resource::words(&[0; 4])));
        let d = Dispatch {
            spirv: &t.words,
            entry: &t.entry_point,
            bindings,
            push_constants: TABLE_START.to_le_bytes().to_vec(),
            groups: [1, 1, 1],
            timeout: Duration::from_secs(60),
            ..Default::default()
        };
        let r = gpu.dispatch(&d).expect("dispatches");
        let got: Vec<Vec<u32>> = (0..RANGES.len()).map(|k| r.words(k).expect("buffer")).collect();
        let mut want: Vec<Vec<u32>> = (0..RANGES.len()).map(initial).collect();
        let sums: Vec<u32> = want[0][..4].iter().zip(1..).map(|(x, k)| x + k).collect();
        want[1][..4].copy_from_slice(&sums);
        want[2][0] = (0x1111 << 16) | (want[2][0] & 0xffff);
        want[3][0] = (0x2222 << 16) | (want[3][0] & 0xffff);
        for (k, (name, ..)) in RANGES.iter().enumerate() {
            assert_eq!(got[k], want[k], "buffer {name}: {got:x?}");
        }
    }
}
