//! Vector views of raw buffers (`Resources::word_vectors`): a raw load or store of 2 or 4
//! 32-bit words (or 1, 2, 3, 4 64-bit components) whose byte address is known from the IR
//! to be a multiple of 8 or 16 goes through a `uvec2` or `uvec4` view of the buffer, one
//! `OpLoad`/`OpStore` per vector instead of one per word; other addresses, three words and
//! masks with gaps keep words. 16-bit components 0..2 or 0..4 at addresses known to be
//! multiples of 4 or 8 go through `u16vec2`/`u16vec4` views the same way; others keep
//! 16-bit elements.
//!
//! - Translation: the accesses each small kernel makes, counted by what its pointers point
//!   to (a word, a `uvec2`, a `uvec4` of a storage buffer); every module passes `spirv-val`.
//! - On a Vulkan device (feature `vulkan`; lavapipe in CI): loads and stores through the
//!   views give D3D's per-word robustness, including at a vector that straddles the end of
//!   the buffer (its in-bounds words read and written, the others 0 and dropped).

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, StorageClass};
use std::collections::HashMap;
use untangle::dxil::{ResourceClass, ResourceKind};
use untangle::Options;
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::dxil_ops::shell::{Res, Shell};

const DECLS: &str = "declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare %dx.types.ResRet.i64 @dx.op.rawBufferLoad.i64(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i64(i32, %dx.types.Handle, i32, i32, i64, i64, i64, i64, i8, i32)
declare %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32, %dx.types.Handle, i32, i32)
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)
declare %dx.types.ResRet.i16 @dx.op.rawBufferLoad.i16(i32, %dx.types.Handle, i32, i32, i8, i32)
declare %dx.types.ResRet.f16 @dx.op.rawBufferLoad.f16(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i16(i32, %dx.types.Handle, i32, i32, i16, i16, i16, i16, i8, i32)
declare void @dx.op.rawBufferStore.f16(i32, %dx.types.Handle, i32, i32, half, half, half, half, i8, i32)";

/// A compute kernel (4 threads) around `body`, with raw UAVs `src` (u1) and `dst` (u2)
/// besides the shell's `out` (u0).
fn kernel(body: &str) -> String {
    let mut shell = Shell::new("cs");
    shell.threads = [4, 1, 1];
    shell.resources.push(Res::new("src", ResourceClass::Uav, ResourceKind::RawBuffer, 1));
    shell.resources.push(Res::new("dst", ResourceClass::Uav, ResourceKind::RawBuffer, 2));
    shell.module(body, DECLS)
}

/// Storage-buffer loads and stores of the module by what they access: (32-bit words,
/// `uvec2`s, `uvec4`s).
#[derive(Debug, Default, PartialEq, Eq, Clone, Copy)]
struct Counts {
    words: usize,
    pairs: usize,
    quads: usize,
}

/// `(loads, stores)` of 32-bit storage-buffer memory in `m`, by the pointee of their
/// pointers.
fn accesses(m: &Module) -> (Counts, Counts) {
    accesses_of(m, 32)
}

/// `(loads, stores)` of storage-buffer memory in `m` whose pointers point to `bits`-bit
/// integers or vectors of them: (scalars, 2-vectors, 4-vectors).
fn accesses_of(m: &Module, bits: u32) -> (Counts, Counts) {
    let defs: HashMap<u32, &Instruction> = m
        .types_global_values
        .iter()
        .chain(m.functions.iter().flat_map(|f| f.blocks.iter().flat_map(|b| b.instructions.iter())))
        .filter_map(|i| i.result_id.map(|id| (id, i)))
        .collect();
    let id = |o: &Operand| match o {
        Operand::IdRef(x) => *x,
        _ => 0,
    };
    // What a storage-buffer pointer value points to: 1 (a `bits`-bit integer), 2 or 4 (a
    // vector of them), else None.
    let is_int = |t: u32| {
        defs.get(&t).is_some_and(|t| t.class.opcode == Op::TypeInt && t.operands[0] == Operand::LiteralBit32(bits))
    };
    let pointee = |ptr: u32| -> Option<u32> {
        let pt = defs.get(&ptr)?.result_type?;
        let p = defs.get(&pt)?;
        if p.class.opcode != Op::TypePointer || p.operands[0] != Operand::StorageClass(StorageClass::StorageBuffer) {
            return None;
        }
        let t = defs.get(&id(&p.operands[1]))?;
        match t.class.opcode {
            Op::TypeInt if is_int(t.result_id?) => Some(1),
            Op::TypeVector if is_int(id(&t.operands[0])) => match t.operands[1] {
                Operand::LiteralBit32(n) => Some(n),
                _ => None,
            },
            _ => None,
        }
    };
    let (mut loads, mut stores) = (Counts::default(), Counts::default());
    for f in &m.functions {
        for i in f.blocks.iter().flat_map(|b| b.instructions.iter()) {
            let c = match i.class.opcode {
                Op::Load => &mut loads,
                Op::Store => &mut stores,
                _ => continue,
            };
            match pointee(id(&i.operands[0])) {
                Some(1) => c.words += 1,
                Some(2) => c.pairs += 1,
                Some(4) => c.quads += 1,
                _ => {}
            }
        }
    }
    (loads, stores)
}

fn translate(body: &str) -> Vec<u32> {
    let t = untangle::translate(kernel(body).as_bytes(), &Options::default()).expect("translates");
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}\n{body}"));
    }
    t.words
}

fn counts(body: &str) -> (Counts, Counts) {
    accesses(&rspirv::dr::load_words(translate(body)).expect("loads"))
}

const fn c(words: usize, pairs: usize, quads: usize) -> Counts {
    Counts { words, pairs, quads }
}

/// `%a` = `tid << shift` (+ `add`), then a 32-bit load of `mask` from `src` at `%a`, its
/// components summed and stored as one word to `out` at word 0.
fn load_body(shift: u32, add: u32, mask: u32) -> String {
    let mut s = format!(
        "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a0 = shl i32 %t, {shift}
  %a = add i32 %a0, {add}
  %r = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 {mask}, i32 4)
  %s0 = add i32 0, 0
"
    );
    for k in 0..4 {
        if mask & (1 << k) != 0 {
            s +=
                &format!("  %x{k} = extractvalue %dx.types.ResRet.i32 %r, {k}\n  %s{} = add i32 %s{k}, %x{k}\n", k + 1);
        } else {
            s += &format!("  %s{} = add i32 %s{k}, 0\n", k + 1);
        }
    }
    s += "  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, i32 %s4, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void";
    s
}

/// `%a` = `tid << shift` (+ `add`), then a 32-bit store of `mask` (values `tid + k`) to `dst`.
fn store_body(shift: u32, add: u32, mask: u32) -> String {
    let v = |k: u32| if mask & (1 << k) != 0 { format!("i32 %v{k}") } else { "i32 undef".into() };
    format!(
        "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a0 = shl i32 %t, {shift}
  %a = add i32 %a0, {add}
  %v0 = add i32 %t, 0
  %v1 = add i32 %t, 1
  %v2 = add i32 %t, 2
  %v3 = add i32 %t, 3
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %dst, i32 %a, i32 undef, {}, {}, {}, {}, i8 {mask}, i32 4)
  ret void",
        v(0),
        v(1),
        v(2),
        v(3)
    )
}

/// The sink store of [`load_body`]: one word.
const SINK: Counts = c(1, 0, 0);

#[test]
fn aligned_loads_go_through_vector_views() {
    // (shift, add, mask) → loads.
    let cases = [
        ((4, 0, 15), c(0, 0, 1)),  // 16-aligned, 4 words: one uvec4
        ((4, 16, 15), c(0, 0, 1)), // a sum of 16-aligned parts
        ((5, 8, 15), c(0, 2, 0)),  // 8-aligned: two uvec2
        ((3, 0, 3), c(0, 1, 0)),   // 2 words at 8-aligned: one uvec2
        ((4, 0, 3), c(0, 1, 0)),   // 2 words at 16-aligned: one uvec2
        ((2, 0, 15), c(4, 0, 0)),  // only 4-aligned: words
        ((4, 4, 15), c(4, 0, 0)),  // 16-aligned + 4: words
        ((4, 0, 7), c(3, 0, 0)),   // three words keep words
        ((4, 0, 5), c(2, 0, 0)),   // a gap: words
        ((4, 0, 1), c(1, 0, 0)),   // one word
    ];
    for ((shift, add, mask), want) in cases {
        let (loads, stores) = counts(&load_body(shift, add, mask));
        assert_eq!(loads, want, "load at tid << {shift} + {add}, mask {mask:#x}");
        assert_eq!(stores, SINK, "load at tid << {shift} + {add}, mask {mask:#x}: the sink store");
    }
}

#[test]
fn aligned_stores_go_through_vector_views() {
    let cases = [
        ((4, 0, 15), c(0, 0, 1)),
        ((6, 32, 15), c(0, 0, 1)),
        ((3, 8, 15), c(0, 2, 0)),
        ((3, 0, 3), c(0, 1, 0)),
        ((2, 0, 15), c(4, 0, 0)),
        ((4, 0, 7), c(3, 0, 0)),
        ((4, 0, 11), c(3, 0, 0)),
    ];
    for ((shift, add, mask), want) in cases {
        let (loads, stores) = counts(&store_body(shift, add, mask));
        assert_eq!(stores, want, "store at tid << {shift} + {add}, mask {mask:#x}");
        assert_eq!(loads, c(0, 0, 0), "store at tid << {shift} + {add}, mask {mask:#x}: no loads");
    }
}

#[test]
fn sixty_four_bit_components_and_buffer_ops() {
    // One i64 at an 8-aligned address: one uvec2; two at a 16-aligned one: one uvec4;
    // four: two uvec4.
    let body64 = |shift: u32, mask: u32| {
        let mut s = format!(
            "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a = shl i32 %t, {shift}
  %r = call %dx.types.ResRet.i64 @dx.op.rawBufferLoad.i64(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 {mask}, i32 8)
"
        );
        let mut vals = Vec::new();
        for k in 0..4 {
            if mask & (1 << k) != 0 {
                s += &format!("  %x{k} = extractvalue %dx.types.ResRet.i64 %r, {k}\n");
                vals.push(format!("i64 %x{k}"));
            } else {
                vals.push("i64 undef".into());
            }
        }
        s += &format!(
            "  call void @dx.op.rawBufferStore.i64(i32 140, %dx.types.Handle %dst, i32 %a, i32 undef, {}, i8 {mask}, i32 8)
  ret void",
            vals.join(", ")
        );
        s
    };
    assert_eq!(counts(&body64(3, 1)), (c(0, 1, 0), c(0, 1, 0)));
    assert_eq!(counts(&body64(4, 3)), (c(0, 0, 1), c(0, 0, 1)));
    assert_eq!(counts(&body64(5, 15)), (c(0, 0, 2), c(0, 0, 2)));
    assert_eq!(counts(&body64(3, 3)), (c(0, 2, 0), c(0, 2, 0)));
    // SM 5.1-style bufferLoad/bufferStore on a raw buffer (all four words, mask 15).
    let body = "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a = mul i32 %t, 16
  %r = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %src, i32 %a, i32 undef)
  %x = extractvalue %dx.types.ResRet.i32 %r, 0
  %y = extractvalue %dx.types.ResRet.i32 %r, 1
  %z = extractvalue %dx.types.ResRet.i32 %r, 2
  %w = extractvalue %dx.types.ResRet.i32 %r, 3
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %dst, i32 %a, i32 undef, i32 %w, i32 %z, i32 %y, i32 %x, i8 15)
  ret void";
    assert_eq!(counts(body), (c(0, 0, 1), c(0, 0, 1)));
}

#[test]
fn one_view_per_width_and_buffer() {
    // Two uvec4 loads and a uvec2 load of `src`: one uvec4 view and one uvec2 view, both
    // at `src`'s binding, and `Aliased` with it (UAVs).
    let body = "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a = shl i32 %t, 5
  %b = add i32 %a, 16
  %r = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 15, i32 4)
  %q = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %src, i32 %b, i32 undef, i8 15, i32 4)
  %p = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %src, i32 %b, i32 undef, i8 3, i32 4)
{}  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, i32 %s10, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void";
    // Every component the loads read is used: `%s10` sums them.
    let parts = [("r", 0), ("r", 1), ("r", 2), ("r", 3), ("q", 0), ("q", 1), ("q", 2), ("q", 3), ("p", 0), ("p", 1)];
    let mut sums = String::from("  %s0 = add i32 0, 0\n");
    for (n, (load, k)) in parts.iter().enumerate() {
        sums += &format!(
            "  %e{n} = extractvalue %dx.types.ResRet.i32 %{load}, {k}\n  %s{} = add i32 %s{n}, %e{n}\n",
            n + 1
        );
    }
    let body = body.replace("{}", &sums);
    let m = rspirv::dr::load_words(translate(&body)).expect("loads");
    let (loads, _) = accesses(&m);
    assert_eq!(loads, c(0, 1, 2));
    let named = |suffix: &str| {
        m.debug_names
            .iter()
            .filter(|i| matches!(&i.operands[1], Operand::LiteralString(s) if s.ends_with(suffix)))
            .count()
    };
    assert_eq!(named("_u32x4"), 1, "one uvec4 view");
    assert_eq!(named("_u32x2"), 1, "one uvec2 view");
}

/// `%a` = `tid << shift` (+ `add`), then a 16-bit load (`ty`: `i16` or `half`) of `mask`
/// from `src` at `%a`, its components stored back with the same mask to `dst` at `%a`.
fn copy16_body(ty: &str, shift: u32, add: u32, mask: u32) -> String {
    let ov = if ty == "half" { "f16" } else { "i16" };
    let mut s = format!(
        "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a0 = shl i32 %t, {shift}
  %a = add i32 %a0, {add}
  %r = call %dx.types.ResRet.{ov} @dx.op.rawBufferLoad.{ov}(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 {mask}, i32 2)
"
    );
    let mut vals = Vec::new();
    for k in 0..4 {
        if mask & (1 << k) != 0 {
            s += &format!("  %x{k} = extractvalue %dx.types.ResRet.{ov} %r, {k}\n");
            vals.push(format!("{ty} %x{k}"));
        } else {
            vals.push(format!("{ty} undef"));
        }
    }
    s += &format!(
        "  call void @dx.op.rawBufferStore.{ov}(i32 140, %dx.types.Handle %dst, i32 %a, i32 undef, {}, i8 {mask}, i32 2)
  ret void",
        vals.join(", ")
    );
    s
}

#[test]
fn aligned_16_bit_accesses_go_through_u16_vector_views() {
    // (shift, add, mask) → 16-bit (loads, stores) counted as (halves, u16vec2, u16vec4).
    let cases = [
        ((3, 0, 15), c(0, 0, 1)), // 8-aligned, four halves: one u16vec4
        ((4, 8, 15), c(0, 0, 1)), // a sum of 8-aligned parts
        ((2, 0, 3), c(0, 1, 0)),  // two halves at 4-aligned: one u16vec2
        ((3, 4, 3), c(0, 1, 0)),  // 8-aligned + 4: still 4-aligned
        ((2, 0, 15), c(4, 0, 0)), // four halves only 4-aligned: halves
        ((3, 2, 15), c(4, 0, 0)), // 2-aligned: halves
        ((1, 0, 3), c(2, 0, 0)),  // two halves at 2-aligned: halves
        ((3, 0, 7), c(3, 0, 0)),  // three halves keep halves
        ((3, 0, 6), c(2, 0, 0)),  // not from component 0: halves
        ((3, 0, 1), c(1, 0, 0)),  // one half
    ];
    for ty in ["i16", "half"] {
        for ((shift, add, mask), want) in cases {
            let body = copy16_body(ty, shift, add, mask);
            let m = rspirv::dr::load_words(translate(&body)).expect("loads");
            let what = format!("{ty} at tid << {shift} + {add}, mask {mask:#x}");
            assert_eq!(accesses_of(&m, 16), (want, want), "{what}");
            assert_eq!(accesses(&m), (c(0, 0, 0), c(0, 0, 0)), "{what}: no 32-bit accesses");
        }
    }
    // With `raw_buffer_vectors` off, every half alone.
    let t = untangle::translate(
        kernel(&copy16_body("i16", 3, 0, 15)).as_bytes(),
        &Options { raw_buffer_vectors: false, ..Options::default() },
    )
    .expect("translates");
    let m = rspirv::dr::load_words(t.words).expect("loads");
    assert_eq!(accesses_of(&m, 16), (c(4, 0, 0), c(4, 0, 0)));
}

/// Instructions `op` in the functions of `m`, with their operands.
fn instructions(m: &Module, op: Op) -> Vec<Vec<Operand>> {
    m.functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter(|i| i.class.opcode == op)
        .map(|i| i.operands.clone())
        .collect()
}

/// Half-float components loaded through a `u16vec4` view are read as one `f16vec4`
/// (`OpBitcast` of the loaded vector, then its lanes); copied back unchanged, each lane's
/// bits are the loaded lane's (`cleanup`'s lanes of bitcast vectors), so the store writes
/// the loaded vector itself and the bitcast goes as dead code.
#[test]
fn half_vectors_are_read_as_floats_once() {
    let m = rspirv::dr::load_words(translate(&copy16_body("half", 3, 0, 15))).expect("loads");
    assert!(instructions(&m, Op::Bitcast).is_empty(), "a copy needs no bitcast");
    let loaded: Vec<_> = m
        .functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter(|i| i.class.opcode == Op::Load)
        .filter_map(|i| i.result_id)
        .collect();
    let stored = instructions(&m, Op::Store);
    assert!(
        stored.iter().any(|o| matches!(o[1], Operand::IdRef(v) if loaded.contains(&v))),
        "the loaded vector is stored as it is: {stored:?}"
    );
    // Arithmetic on the halves: one vector bitcast per loaded vector, none per lane.
    let body = "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a = shl i32 %t, 3
  %r = call %dx.types.ResRet.f16 @dx.op.rawBufferLoad.f16(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 15, i32 2)
  %x = extractvalue %dx.types.ResRet.f16 %r, 0
  %y = extractvalue %dx.types.ResRet.f16 %r, 1
  %z = extractvalue %dx.types.ResRet.f16 %r, 2
  %w = extractvalue %dx.types.ResRet.f16 %r, 3
  %s0 = fadd fast half %x, %z
  %s1 = fadd fast half %y, %w
  call void @dx.op.rawBufferStore.f16(i32 140, %dx.types.Handle %dst, i32 %a, i32 undef, half %s0, half %s1, half undef, half undef, i8 3, i32 2)
  ret void";
    let m = rspirv::dr::load_words(translate(body)).expect("loads");
    let casts = instructions(&m, Op::Bitcast).len();
    // The loaded u16vec4 read as f16vec4, and the two sums written back as bits.
    assert_eq!(casts, 3, "one vector bitcast in, one per stored lane out");
}

#[test]
fn one_u16_vector_view_per_width_and_buffer() {
    // Two u16vec4 loads and two u16vec2 loads of `src`: one view of each width, named and
    // declared once, at `src`'s binding.
    let body = "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a = shl i32 %t, 4
  %b = add i32 %a, 8
  %r = call %dx.types.ResRet.i16 @dx.op.rawBufferLoad.i16(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 15, i32 2)
  %q = call %dx.types.ResRet.i16 @dx.op.rawBufferLoad.i16(i32 139, %dx.types.Handle %src, i32 %b, i32 undef, i8 15, i32 2)
  %p = call %dx.types.ResRet.i16 @dx.op.rawBufferLoad.i16(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 3, i32 2)
  %o = call %dx.types.ResRet.i16 @dx.op.rawBufferLoad.i16(i32 139, %dx.types.Handle %src, i32 %b, i32 undef, i8 3, i32 2)
  %r0 = extractvalue %dx.types.ResRet.i16 %r, 0
  %r1 = extractvalue %dx.types.ResRet.i16 %r, 1
  %r2 = extractvalue %dx.types.ResRet.i16 %r, 2
  %r3 = extractvalue %dx.types.ResRet.i16 %r, 3
  %q0 = extractvalue %dx.types.ResRet.i16 %q, 0
  %q1 = extractvalue %dx.types.ResRet.i16 %q, 1
  %q2 = extractvalue %dx.types.ResRet.i16 %q, 2
  %q3 = extractvalue %dx.types.ResRet.i16 %q, 3
  %p0 = extractvalue %dx.types.ResRet.i16 %p, 0
  %p1 = extractvalue %dx.types.ResRet.i16 %p, 1
  %o0 = extractvalue %dx.types.ResRet.i16 %o, 0
  %o1 = extractvalue %dx.types.ResRet.i16 %o, 1
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %dst, i32 %a, i32 undef, i16 %r0, i16 %r1, i16 %r2, i16 %r3, i8 15, i32 2)
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %dst, i32 %b, i32 undef, i16 %q0, i16 %q1, i16 %q2, i16 %q3, i8 15, i32 2)
  %c = add i32 %a, 256
  %d = add i32 %b, 256
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %dst, i32 %c, i32 undef, i16 %p0, i16 %p1, i16 undef, i16 undef, i8 3, i32 2)
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %dst, i32 %d, i32 undef, i16 %o0, i16 %o1, i16 undef, i16 undef, i8 3, i32 2)
  ret void";
    let m = rspirv::dr::load_words(translate(body)).expect("loads");
    assert_eq!(accesses_of(&m, 16), (c(0, 2, 2), c(0, 2, 2)));
    let named = |suffix: &str| {
        m.debug_names
            .iter()
            .filter(|i| matches!(&i.operands[1], Operand::LiteralString(s) if s.ends_with(suffix)))
            .count()
    };
    // `src` and `dst` each have one view of each width; no scalar 16-bit view is left.
    assert_eq!(named("_u16x4"), 2, "one u16vec4 view per buffer");
    assert_eq!(named("_u16x2"), 2, "one u16vec2 view per buffer");
    assert_eq!(named("_u16"), 0, "no unused uint16_t view");
}

#[cfg(feature = "vulkan")]
mod device {
    use super::*;
    use std::time::Duration;
    use untangle_testkit::vulkan::{open_or_skip, Binding, Dispatch, Resource};

    /// Dispatches one group of `t` (the kernel of [`kernel`]) with `out`, `src` and `dst`
    /// holding these words; returns the result, whose buffers are in that order.
    fn dispatch(
        gpu: &mut untangle_testkit::vulkan::Gpu,
        t: &untangle::Translation,
        [out, src, dst]: [&[u32]; 3],
    ) -> untangle_testkit::vulkan::DispatchResult {
        let bind = |name: &str, words: &[u32]| {
            let r = t.bindings.iter().find(|r| r.name == name).expect("bound");
            Binding::new(r.set, r.binding, Resource::words(words))
        };
        let d = Dispatch {
            spirv: &t.words,
            entry: &t.entry_point,
            bindings: vec![bind("out", out), bind("src", src), bind("dst", dst)],
            groups: [1, 1, 1],
            timeout: Duration::from_secs(60),
            ..Default::default()
        };
        gpu.dispatch(&d).expect("dispatches")
    }

    /// Thread `t` (of 4): `out.Store4(16t, src.Load4(16t))`, `out.Store2(64 + 8t,
    /// src.Load2(8t))` and `dst.Store4(16t, 16t + (100, 101, 102, 103))`: the 4-word
    /// accesses through `uvec4`s, the 2-word ones through `uvec2`s.
    const BODY: &str = "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a = shl i32 %t, 4
  %r = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 15, i32 4)
  %x = extractvalue %dx.types.ResRet.i32 %r, 0
  %y = extractvalue %dx.types.ResRet.i32 %r, 1
  %z = extractvalue %dx.types.ResRet.i32 %r, 2
  %w = extractvalue %dx.types.ResRet.i32 %r, 3
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 %a, i32 undef, i32 %x, i32 %y, i32 %z, i32 %w, i8 15, i32 4)
  %b = shl i32 %t, 3
  %p = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %src, i32 %b, i32 undef, i8 3, i32 4)
  %u = extractvalue %dx.types.ResRet.i32 %p, 0
  %v = extractvalue %dx.types.ResRet.i32 %p, 1
  %c = add i32 %b, 64
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 %c, i32 undef, i32 %u, i32 %v, i32 undef, i32 undef, i8 3, i32 4)
  %v0 = add i32 %a, 100
  %v1 = add i32 %a, 101
  %v2 = add i32 %a, 102
  %v3 = add i32 %a, 103
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %dst, i32 %a, i32 undef, i32 %v0, i32 %v1, i32 %v2, i32 %v3, i8 15, i32 4)
  ret void";

    /// The kernel translated with `options`, dispatched over `src` = 1..=6 (the `uvec4` at
    /// byte 16 straddles its end) and `dst` = 6 words: (`out`, `dst`) as read back.
    fn run(gpu: &mut untangle_testkit::vulkan::Gpu, options: &Options, views: bool) -> (Vec<u32>, Vec<u32>) {
        let t = untangle::translate(kernel(BODY).as_bytes(), options).expect("translates");
        let (loads, stores) = accesses(&rspirv::dr::load_words(t.words.clone()).expect("loads"));
        if views {
            assert_eq!((loads, stores), (c(0, 1, 1), c(0, 1, 2)), "the accesses go through the views");
        } else {
            assert_eq!((loads, stores), (c(6, 0, 0), c(10, 0, 0)), "one access per word");
        }
        let src: Vec<u32> = (1..=6).collect();
        let r = dispatch(gpu, &t, [&[0xbbbb_bbbb; 24], &src, &[0xaaaa_aaaa; 6]]);
        (r.words(0).expect("out"), r.words(2).expect("dst"))
    }

    /// A 2-component load at a byte address read from memory, near 2^32: both components
    /// are past the end, so D3D reads 0. Without the clamp to `FAR_ADDRESS` lavapipe reads
    /// `src[0]` for the 32-bit load: word `2^30` is past the end, but the driver computes
    /// its byte offset `2^30 × 4` in 32 bits, which wraps to 0; the 16-bit load's second
    /// half, at byte `addr + 2`, would wrap the same way. At 8 the same load reads `src[2]`
    /// and `src[3]`, or `src[2]`'s two halves.
    #[test]
    fn unclamped_raw_addresses_near_2_32_read_zero() {
        let Some(mut gpu) = open_or_skip("unclamped_raw_addresses_near_2_32_read_zero") else { return };
        let f = gpu.info().features.clone();
        for bits in [32, 16] {
            if bits == 16 && !(f.shader_int16 && f.shader_float16) {
                println!("skipped: the device lacks 16-bit types");
                continue;
            }
            let t =
                untangle::translate(kernel(&unbounded_body(bits)).as_bytes(), &Options::default()).expect("translates");
            for (addr, want) in [(0xffff_fffcu32, 0u32), (0xffff_fffe, 0), (8, 30 + 40)] {
                if bits == 32 && addr % 4 != 0 {
                    continue;
                }
                let r = dispatch(&mut gpu, &t, [&[7; 4], &[addr, 0, 30, 40, 50, 60], &[0; 4]]);
                // 16 bits at byte 8: src[2]'s low half (30) and its high half (0).
                let want = if bits == 16 && addr == 8 { 30 } else { want };
                assert_eq!(r.words(0).expect("out")[0], want, "{bits}-bit components at {addr:#x}");
            }
        }
    }

    /// D3D checks each word of a raw access on its own: with `raw_buffer_vectors` off that
    /// holds on every driver. With the views, every vector wholly inside or outside a view
    /// is exact, and the one straddling the end keeps its in-bounds words or loses them
    /// whole, the two answers Vulkan allows (lavapipe keeps them, NVIDIA drops them).
    #[test]
    fn vector_views_keep_per_word_robustness() {
        let Some(mut gpu) = open_or_skip("vector_views_keep_per_word_robustness") else { return };
        let mut want_out = vec![1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        want_out.extend([1, 2, 3, 4, 5, 6, 0, 0]);
        let want_dst = vec![100, 101, 102, 103, 116, 117];
        let words = Options { raw_buffer_vectors: false, ..Options::default() };
        let (out, dst) = run(&mut gpu, &words, false);
        assert_eq!((&out, &dst), (&want_out, &want_dst), "per word: {out:x?} {dst:x?}");

        let (out, dst) = run(&mut gpu, &Options::default(), true);
        let mut dropped_out = want_out.clone();
        dropped_out[4..6].fill(0);
        let mut dropped_dst = want_dst.clone();
        dropped_dst[4..6].fill(0xaaaa_aaaa);
        let kept = out == want_out && dst == want_dst;
        let dropped = out == dropped_out && dst == dropped_dst;
        eprintln!("straddling vectors: {}", if kept { "in-bounds words kept" } else { "dropped whole" });
        assert!(kept || dropped, "views: {out:x?} {dst:x?}");
    }

    /// Thread `t` (of 4): `v = src.Load<uint16_t4>(8t)`, `dst.Store<uint16_t2>(4t, v.yw)`,
    /// `dst.Store<uint16_t2>(16 + 4t, v.xz)`, and `h = src.Load<half4>(8t)`,
    /// `dst.Store<half2>(32 + 4t, h.zx)`, `dst.Store<half2>(48 + 4t, h.wy)` (bit patterns):
    /// `u16vec4` loads, `u16vec2` stores, against the bytes D3D reads and writes, and then
    /// the same with the views off.
    #[test]
    fn u16_vector_views_load_and_store_halves() {
        let Some(mut gpu) = open_or_skip("u16_vector_views_load_and_store_halves") else { return };
        let f = gpu.info().features.clone();
        if !(f.shader_int16 && f.shader_float16) {
            println!("skipped: the device lacks 16-bit types");
            return;
        }
        let body = "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %a = shl i32 %t, 3
  %b = shl i32 %t, 2
  %r = call %dx.types.ResRet.i16 @dx.op.rawBufferLoad.i16(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 15, i32 2)
  %x = extractvalue %dx.types.ResRet.i16 %r, 0
  %y = extractvalue %dx.types.ResRet.i16 %r, 1
  %z = extractvalue %dx.types.ResRet.i16 %r, 2
  %w = extractvalue %dx.types.ResRet.i16 %r, 3
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %dst, i32 %b, i32 undef, i16 %y, i16 %w, i16 undef, i16 undef, i8 3, i32 2)
  %b1 = add i32 %b, 16
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %dst, i32 %b1, i32 undef, i16 %x, i16 %z, i16 undef, i16 undef, i8 3, i32 2)
  %h = call %dx.types.ResRet.f16 @dx.op.rawBufferLoad.f16(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 15, i32 2)
  %hx = extractvalue %dx.types.ResRet.f16 %h, 0
  %hy = extractvalue %dx.types.ResRet.f16 %h, 1
  %hz = extractvalue %dx.types.ResRet.f16 %h, 2
  %hw = extractvalue %dx.types.ResRet.f16 %h, 3
  %c = add i32 %b, 32
  call void @dx.op.rawBufferStore.f16(i32 140, %dx.types.Handle %dst, i32 %c, i32 undef, half %hz, half %hx, half undef, half undef, i8 3, i32 2)
  %c1 = add i32 %b, 48
  call void @dx.op.rawBufferStore.f16(i32 140, %dx.types.Handle %dst, i32 %c1, i32 undef, half %hw, half %hy, half undef, half undef, i8 3, i32 2)
  ret void";
        // `src`: half `i` is 0x3c00 + i (finite half floats, so any conversion would show).
        let src: Vec<u32> = (0..8u32).map(|w| (0x3c00 + 2 * w) | (0x3c00 + 2 * w + 1) << 16).collect();
        let half = |i: u32| 0x3c00 + i;
        let mut want = vec![0u32; 16];
        for t in 0..4u32 {
            let t4 = t as usize;
            want[t4] = half(4 * t + 1) | half(4 * t + 3) << 16;
            want[4 + t4] = half(4 * t) | half(4 * t + 2) << 16;
            want[8 + t4] = half(4 * t + 2) | half(4 * t) << 16;
            want[12 + t4] = half(4 * t + 3) | half(4 * t + 1) << 16;
        }
        for (options, views) in
            [(Options::default(), true), (Options { raw_buffer_vectors: false, ..Options::default() }, false)]
        {
            let t = untangle::translate(kernel(body).as_bytes(), &options).expect("translates");
            let m = rspirv::dr::load_words(t.words.clone()).expect("loads");
            let want_counts = if views { (c(0, 0, 2), c(0, 4, 0)) } else { (c(8, 0, 0), c(8, 0, 0)) };
            assert_eq!(accesses_of(&m, 16), want_counts, "views {views}");
            let r = dispatch(&mut gpu, &t, [&[0; 4], &src, &[0; 16]]);
            assert_eq!(r.words(2).expect("dst"), want, "views {views}");
        }
    }
}

/// `UMin` instructions of the module (GLSL.std.450 38): the clamp of raw addresses to
/// `FAR_ADDRESS`.
fn umins(words: &[u32]) -> usize {
    let m = rspirv::dr::load_words(words).expect("loads");
    m.functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter(|i| i.class.opcode == Op::ExtInst && i.operands.get(1) == Some(&Operand::LiteralExtInstInteger(38)))
        .count()
}

/// A raw address read from memory: `src`'s first word is the address of a 2-word load
/// (`bits` 32) or a 2-half load (`bits` 16) from `src`, whose components' sum `out` gets.
fn unbounded_body(bits: u32) -> String {
    let (ret, load, add) = match bits {
        16 => ("i16", "rawBufferLoad.i16", "  %s16 = add i16 %x0, %x1\n  %s = zext i16 %s16 to i32"),
        _ => ("i32", "rawBufferLoad.i32", "  %s = add i32 %x0, %x1"),
    };
    format!(
        "  %r0 = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %src, i32 0, i32 undef, i8 1, i32 4)
  %a = extractvalue %dx.types.ResRet.i32 %r0, 0
  %r = call %dx.types.ResRet.{ret} @dx.op.{load}(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 3, i32 {align})
  %x0 = extractvalue %dx.types.ResRet.{ret} %r, 0
  %x1 = extractvalue %dx.types.ResRet.{ret} %r, 1
{add}
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, i32 %s, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void",
        align = bits / 8
    )
}

/// A raw address the IR bounds (a compute shader's thread id, at most 65,535 × 1,024, shifted
/// by 4, plus a constant) is used unclamped; one read from memory is clamped to
/// `FAR_ADDRESS`, whatever the components' width: the words after it must not wrap to the
/// buffer's start, and neither may the byte offset a driver computes from a word index
/// (`unclamped_raw_addresses_near_2_32_read_zero` shows lavapipe's does, in 32 bits).
#[test]
fn bounded_raw_addresses_are_not_clamped() {
    assert_eq!(umins(&translate(&load_body(4, 32, 1))), 0, "tid << 4 + 32 is bounded");
    assert_eq!(umins(&translate(&store_body(2, 0, 15))), 0, "tid << 2 is bounded");
    assert_eq!(umins(&translate(&unbounded_body(32))), 1, "an address read from memory is clamped");
    assert_eq!(umins(&translate(&unbounded_body(16))), 1, "so is one of 16-bit components");
    // `tid << 30` may pass 2^32: clamped.
    assert_eq!(umins(&translate(&load_body(30, 0, 1))), 1, "tid << 30 is not bounded below 2^32");
}

/// The module's `OpShiftRightLogical`s and `OpShiftLeftLogical`s, and whether one of the
/// right shifts shifts the thread id itself (not a byte address computed from it).
fn shifts(words: &[u32]) -> (usize, usize, bool) {
    let m = rspirv::dr::load_words(words).expect("loads");
    let insts: Vec<&Instruction> = m.functions.iter().flat_map(|f| f.all_inst_iter()).collect();
    let tid = insts
        .iter()
        .find(|i| i.class.opcode == Op::Load && i.result_type.is_some_and(|t| t != 0))
        .and_then(|i| i.result_id);
    let count = |op: Op| insts.iter().filter(|i| i.class.opcode == op).count();
    let shifts_tid = insts
        .iter()
        .any(|i| i.class.opcode == Op::ShiftRightLogical && i.operands.first() == tid.map(Operand::IdRef).as_ref());
    (count(Op::ShiftRightLogical), count(Op::ShiftLeftLogical), shifts_tid)
}

/// [`load_body`] without the added constant: the address is `tid << shift` itself.
fn shifted_load(shift: u32, mask: u32) -> String {
    load_body(shift, 0, mask).replace("  %a0 = shl", "  %a = shl").replace("  %a = add i32 %a0, 0\n", "")
}

/// A raw address `tid << k` that cannot lose a bit (the IR bounds the thread id) is indexed
/// by the thread id shifted by `k` less the element's shift, not by the byte address
/// shifted back: `(tid << 2) >> 2` is `tid`, `(tid << 4) >> 2` is `tid << 2`, `(tid << 1)
/// >> 2` is `tid >> 1`; a `uvec2` or `uvec4` view's index likewise. Addresses that may
/// lose bits (`tid << 30`) or come from memory keep `>> 2` of the (clamped) address.
/// `vector_views_keep_per_word_robustness` runs such addresses on a device.
#[test]
fn exact_shifted_addresses_index_by_the_shifted_value() {
    // (right shifts, left shifts, a right shift of the thread id)
    assert_eq!(shifts(&translate(&shifted_load(2, 1))), (0, 0, false), "(tid << 2) >> 2");
    assert_eq!(shifts(&translate(&shifted_load(4, 1))), (0, 1, false), "(tid << 4) >> 2");
    assert_eq!(shifts(&translate(&shifted_load(1, 1))), (1, 0, true), "(tid << 1) >> 2");
    assert_eq!(shifts(&translate(&shifted_load(3, 3))), (0, 0, false), "a uvec2 at tid << 3");
    assert_eq!(shifts(&translate(&shifted_load(4, 15))), (0, 0, false), "a uvec4 at tid << 4");
    let (right, _, of_tid) = shifts(&translate(&shifted_load(30, 1)));
    assert!(right == 1 && !of_tid, "tid << 30 may lose bits: its clamped address is shifted back");
    assert_eq!(shifts(&translate(&unbounded_body(32))).0, 1, "an address read from memory");
}

/// Structured buffers: `index × stride + offset` that the IR bounds at `FAR_ADDRESS` (a
/// compute thread id; a constant offset) needs no wrap checks (`OpUGreaterThan`, the
/// carry's `OpULessThan`, `OpSelect`) nor the clamp; a word access at an index read from
/// memory clamps the index (one `UMin`) and computes the word address directly, which
/// cannot wrap, so it needs no wrap checks either (`gpu_differential` runs the wrapping
/// indices and offsets).
#[test]
fn bounded_structured_addresses_are_not_checked() {
    let module = |index: &str| {
        let mut shell = Shell::new("cs");
        shell.threads = [4, 1, 1];
        let mut st = Res::new("st", ResourceClass::Uav, ResourceKind::StructuredBuffer, 1);
        st.extra = 12;
        shell.resources.push(st);
        let body = format!(
            "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %r0 = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %out, i32 0, i32 undef, i8 1, i32 4)
  %m = extractvalue %dx.types.ResRet.i32 %r0, 0
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %st, i32 {index}, i32 8, i32 %t, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void"
        );
        let t = untangle::translate(shell.module(&body, DECLS).as_bytes(), &Options::default()).expect("translates");
        if let Some(v) = find_spirv_val() {
            v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}"));
        }
        let m = rspirv::dr::load_words(&t.words).expect("loads");
        let ops: Vec<Op> = m.functions.iter().flat_map(|f| f.all_inst_iter()).map(|i| i.class.opcode).collect();
        (ops.iter().filter(|&&o| o == Op::Select).count(), umins(&t.words))
    };
    assert_eq!(module("%t"), (0, 0), "a thread id times 12, plus 8");
    assert_eq!(module("%m"), (0, 1), "an index read from memory");
}
