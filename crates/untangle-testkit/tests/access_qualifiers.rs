//! `NonWritable` / `NonReadable` on descriptors the module only reads or only writes
//! (`emit/access.rs`): each small kernel's storage buffers and storage images, by the
//! decorations their variables carry. A variable is read-only or write-only only if every
//! view of its descriptor (set, binding) is; an atomic is both a read and a write. Every
//! module passes `spirv-val`.
//!
//! Also what a module asks of the device for what it does: `StorageImageReadWithoutFormat`
//! only with a read of a storage image declared without a format, `...WriteWithoutFormat`
//! only with a write, and no width capability (`Int64`, ...) once no type of that width
//! is left.

use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Capability, Decoration, Op, StorageClass};
use std::collections::BTreeMap;
use untangle::dxil::{ComponentType, ResourceClass, ResourceKind};
use untangle::Options;
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::dxil_ops::shell::{Res, Shell};

const DECLS: &str = "declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)
declare %dx.types.ResRet.i64 @dx.op.rawBufferLoad.i64(i32, %dx.types.Handle, i32, i32, i8, i32)
declare void @dx.op.rawBufferStore.i64(i32, %dx.types.Handle, i32, i32, i64, i64, i64, i64, i8, i32)
declare i32 @dx.op.atomicBinOp.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32)
declare %dx.types.ResRet.i32 @dx.op.textureLoad.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i32)
declare void @dx.op.textureStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i32, i8)
declare i32 @dx.op.atomicBinOp.i32.tex(i32, %dx.types.Handle, i32, i32, i32, i32, i32)";

/// The module of `body` in a compute kernel with raw UAVs `src` (u1) and `dst` (u2), and a
/// `RWTexture2D<uint>` `img` (u3), besides the shell's `out` (u0); it passes `spirv-val`.
fn translate(body: &str) -> Module {
    let mut shell = Shell::new("cs");
    shell.threads = [4, 1, 1];
    shell.resources.push(Res::new("src", ResourceClass::Uav, ResourceKind::RawBuffer, 1));
    shell.resources.push(Res::new("dst", ResourceClass::Uav, ResourceKind::RawBuffer, 2));
    shell.resources.push(Res::new("img", ResourceClass::Uav, ResourceKind::Texture2D, 3).typed(ComponentType::U32));
    let text = shell.module(body, DECLS);
    let t = untangle::translate(text.as_bytes(), &Options::default()).expect("translates");
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}\n{body}"));
    }
    rspirv::dr::load_words(&t.words).expect("loads")
}

/// The capabilities the module of `body` ([`qualifiers`]' kernel) declares.
fn capabilities(body: &str) -> Vec<Capability> {
    translate(body)
        .capabilities
        .iter()
        .filter_map(|i| match i.operands[0] {
            Operand::Capability(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// Translates `body` in a compute kernel with raw UAVs `src` (u1) and `dst` (u2), and a
/// `RWTexture2D<uint>` `img` (u3), besides the shell's `out` (u0); returns, per
/// `(binding, variable name)`, whether the variable is decorated (`NonWritable`,
/// `NonReadable`).
fn qualifiers(body: &str) -> BTreeMap<(u32, String), (bool, bool)> {
    let m = translate(body);
    let name = |id: u32| {
        m.debug_names
            .iter()
            .find(|i| i.class.opcode == Op::Name && i.operands[0] == Operand::IdRef(id))
            .and_then(|i| match &i.operands[1] {
                Operand::LiteralString(s) => Some(s.clone()),
                _ => None,
            })
            .unwrap_or_else(|| format!("%{id}"))
    };
    let decorated = |id: u32, d: Decoration| {
        m.annotations.iter().any(|i| {
            i.class.opcode == Op::Decorate
                && i.operands[0] == Operand::IdRef(id)
                && i.operands[1] == Operand::Decoration(d)
        })
    };
    let binding = |id: u32| {
        m.annotations.iter().find_map(|i| match (&i.operands[..], i.class.opcode) {
            ([Operand::IdRef(x), Operand::Decoration(Decoration::Binding), Operand::LiteralBit32(b)], Op::Decorate)
                if *x == id =>
            {
                Some(*b)
            }
            _ => None,
        })
    };
    m.types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Variable
                && matches!(
                    i.operands[0],
                    Operand::StorageClass(StorageClass::StorageBuffer | StorageClass::UniformConstant)
                )
        })
        .filter_map(|i| {
            let id = i.result_id?;
            Some((
                (binding(id)?, name(id)),
                (decorated(id, Decoration::NonWritable), decorated(id, Decoration::NonReadable)),
            ))
        })
        .collect()
}

/// The decorations of the variables at `binding` (D3D register + 2000 for UAVs under the
/// default model), as one pair if all views agree.
fn at(q: &BTreeMap<(u32, String), (bool, bool)>, register: u32) -> (bool, bool) {
    let views: Vec<_> = q.iter().filter(|((b, _), _)| *b == 2000 + register).map(|(_, &v)| v).collect();
    assert!(!views.is_empty(), "no variable at u{register}: {q:?}");
    assert!(views.iter().all(|&v| v == views[0]), "the views of u{register} disagree: {q:?}");
    views[0]
}

const READ_ONLY: (bool, bool) = (true, false);
const WRITE_ONLY: (bool, bool) = (false, true);
const READ_WRITE: (bool, bool) = (false, false);

const TID: &str = "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)\n  %a = shl i32 %t, 4\n";
const SINK: &str =
    "  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 0, i32 undef, i32 %x, i32 undef, i32 undef, i32 undef, i8 1, i32 4)\n  ret void";

#[test]
fn a_buffer_only_loaded_is_non_writable_and_one_only_stored_non_readable() {
    let q = qualifiers(&format!(
        "{TID}  %r = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 1, i32 4)
  %x = extractvalue %dx.types.ResRet.i32 %r, 0
{SINK}"
    ));
    assert_eq!(at(&q, 1), READ_ONLY, "{q:?}");
    assert_eq!(at(&q, 0), WRITE_ONLY, "{q:?}");
}

#[test]
fn a_write_through_one_view_makes_every_view_of_the_buffer_writable() {
    // Four words at a 16-byte aligned address: a `uvec4` view; then one word stored at the
    // same address through the word view of the same binding.
    let q = qualifiers(&format!(
        "{TID}  %r = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 15, i32 4)
  %x0 = extractvalue %dx.types.ResRet.i32 %r, 0
  %x1 = extractvalue %dx.types.ResRet.i32 %r, 1
  %x2 = extractvalue %dx.types.ResRet.i32 %r, 2
  %x3 = extractvalue %dx.types.ResRet.i32 %r, 3
  %y0 = add i32 %x0, %x1
  %y1 = add i32 %x2, %x3
  %x = add i32 %y0, %y1
  %b = add i32 %a, 4
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %src, i32 %b, i32 undef, i32 %x, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
{SINK}"
    ));
    assert!(q.keys().filter(|(b, _)| *b == 2001).count() >= 2, "expected a vector view and a word view: {q:?}");
    assert_eq!(at(&q, 1), READ_WRITE, "{q:?}");
}

#[test]
fn an_atomic_reads_and_writes() {
    let q = qualifiers(&format!(
        "{TID}  %x = call i32 @dx.op.atomicBinOp.i32(i32 78, %dx.types.Handle %dst, i32 0, i32 %a, i32 undef, i32 undef, i32 1)
{SINK}"
    ));
    assert_eq!(at(&q, 2), READ_WRITE, "{q:?}");
}

#[test]
fn storage_images_only_stored_or_only_loaded() {
    let store = qualifiers(STORE_IMG);
    assert_eq!(at(&store, 3), WRITE_ONLY, "{store:?}");
    let load = qualifiers(&format!(
        "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %r = call %dx.types.ResRet.i32 @dx.op.textureLoad.i32(i32 66, %dx.types.Handle %img, i32 undef, i32 %t, i32 0, i32 undef, i32 undef, i32 undef, i32 undef)
  %x = extractvalue %dx.types.ResRet.i32 %r, 0
{SINK}"
    ));
    assert_eq!(at(&load, 3), READ_ONLY, "{load:?}");
}

const STORE_IMG: &str = "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  call void @dx.op.textureStore.i32(i32 67, %dx.types.Handle %img, i32 %t, i32 0, i32 undef, i32 %t, i32 %t, i32 %t, i32 %t, i8 15)
  ret void";

#[test]
fn formatless_image_capabilities_follow_the_accesses() {
    let read = Capability::StorageImageReadWithoutFormat;
    let write = Capability::StorageImageWriteWithoutFormat;
    let store = capabilities(STORE_IMG);
    assert!(store.contains(&write) && !store.contains(&read), "{store:?}");
    let load = capabilities(&format!(
        "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %r = call %dx.types.ResRet.i32 @dx.op.textureLoad.i32(i32 66, %dx.types.Handle %img, i32 undef, i32 %t, i32 0, i32 undef, i32 undef, i32 undef, i32 undef)
  %x = extractvalue %dx.types.ResRet.i32 %r, 0
{SINK}"
    ));
    assert!(load.contains(&read) && !load.contains(&write), "{load:?}");
    // An atomic goes through the `R32ui` declaration: no access without a format.
    let atomic = capabilities(&format!(
        "  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %x = call i32 @dx.op.atomicBinOp.i32.tex(i32 78, %dx.types.Handle %img, i32 0, i32 %t, i32 0, i32 undef, i32 1)
{SINK}"
    ));
    assert!(!atomic.contains(&read) && !atomic.contains(&write), "{atomic:?}");
}

#[test]
fn a_64_bit_copy_that_folds_to_words_declares_no_int64() {
    // Two 64-bit components loaded and stored unchanged: each is assembled from two words
    // and split again, the bitcasts fold, and no 64-bit type is left.
    let copy = capabilities(&format!(
        "{TID}  %r = call %dx.types.ResRet.i64 @dx.op.rawBufferLoad.i64(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 3, i32 8)
  %x0 = extractvalue %dx.types.ResRet.i64 %r, 0
  %x1 = extractvalue %dx.types.ResRet.i64 %r, 1
  call void @dx.op.rawBufferStore.i64(i32 140, %dx.types.Handle %dst, i32 %a, i32 undef, i64 %x0, i64 %x1, i64 undef, i64 undef, i8 3, i32 8)
  ret void"
    ));
    assert!(!copy.contains(&Capability::Int64), "{copy:?}");
    // Arithmetic on the value keeps the type and the capability.
    let add = capabilities(&format!(
        "{TID}  %r = call %dx.types.ResRet.i64 @dx.op.rawBufferLoad.i64(i32 139, %dx.types.Handle %src, i32 %a, i32 undef, i8 1, i32 8)
  %x0 = extractvalue %dx.types.ResRet.i64 %r, 0
  %y = add i64 %x0, 1
  call void @dx.op.rawBufferStore.i64(i32 140, %dx.types.Handle %dst, i32 %a, i32 undef, i64 %y, i64 undef, i64 undef, i64 undef, i8 1, i32 8)
  ret void"
    ));
    assert!(add.contains(&Capability::Int64), "{add:?}");
}
