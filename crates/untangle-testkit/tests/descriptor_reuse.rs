//! Descriptor accesses made once where they dominate (`FnEmit::reusable`): a handle used in
//! several blocks has its descriptor pointer (`OpAccessChain` into a descriptor array) and
//! its loaded descriptor (`OpLoad` of the image) made at the first use, and reused in every
//! block that use dominates; blocks it does not dominate (the other side of a selection,
//! the merge after it) make their own. Every module passes `spirv-val`.

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, StorageClass};
use std::collections::HashMap;
use untangle::dxil::{ComponentType, ResourceClass, ResourceKind};
use untangle::Options;
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::dxil_ops::shell::{Res, Shell};

const DECLS: &str = "declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32, %dx.types.Handle, i32, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)";

/// A compute kernel around `body` with typed SRV buffers `tb` (t0) and `tr` (t1..t4, a range
/// of four, its handle taken at register 2).
fn translate(body: &str) -> Module {
    let mut shell = Shell::new("cs");
    shell.threads = [4, 1, 1];
    let u = ComponentType::U32;
    shell.resources.push(Res::new("tb", ResourceClass::Srv, ResourceKind::TypedBuffer, 0).typed(u));
    shell.resources.push(Res::new("tr", ResourceClass::Srv, ResourceKind::TypedBuffer, 1).typed(u).count(4));
    let text = shell.module(body, DECLS).replace("i32 1, i32 1, i1 false)", "i32 1, i32 2, i1 false)");
    let t = untangle::translate(text.as_bytes(), &Options::default()).expect("translates");
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3").unwrap_or_else(|e| panic!("{e}\n{body}"));
    }
    rspirv::dr::load_words(t.words).expect("loads")
}

/// `(descriptor pointers, loaded images)`: `OpAccessChain`s whose result points into
/// `UniformConstant` memory, and `OpLoad`s whose result is an image.
fn descriptor_accesses(m: &Module) -> (usize, usize) {
    let defs: HashMap<u32, &Instruction> =
        m.types_global_values.iter().filter_map(|i| Some((i.result_id?, i))).collect();
    let is = |ty: Option<u32>, f: &dyn Fn(&Instruction) -> bool| ty.and_then(|t| defs.get(&t)).is_some_and(|i| f(i));
    let (mut ptrs, mut images) = (0, 0);
    for i in m.functions.iter().flat_map(|f| f.blocks.iter().flat_map(|b| b.instructions.iter())) {
        match i.class.opcode {
            Op::AccessChain
                if is(i.result_type, &|t| {
                    t.class.opcode == Op::TypePointer
                        && t.operands[0] == Operand::StorageClass(StorageClass::UniformConstant)
                }) =>
            {
                ptrs += 1
            }
            Op::Load if is(i.result_type, &|t| t.class.opcode == Op::TypeImage) => images += 1,
            _ => {}
        }
    }
    (ptrs, images)
}

/// Loads `tb` (and `tr`) at `tid` in the entry block when `entry_use`, then at 1 in one
/// side of a selection and 2 in the other, and (when `merge_use`) at 3 after it; stores the
/// sum.
fn body(entry_use: bool, merge_use: bool) -> String {
    let load = |name: &str, at: &str| {
        format!(
            "  %{name}_b = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %tb, i32 {at}, i32 undef)
  %{name}_bx = extractvalue %dx.types.ResRet.i32 %{name}_b, 0
  %{name}_r = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %tr, i32 {at}, i32 undef)
  %{name}_rx = extractvalue %dx.types.ResRet.i32 %{name}_r, 0
  %{name} = add i32 %{name}_bx, %{name}_rx
"
        )
    };
    let mut s = String::from("  %t = call i32 @dx.op.threadId.i32(i32 93, i32 0)\n");
    if entry_use {
        s += &load("e", "%t");
    } else {
        s += "  %e = add i32 %t, 0\n";
    }
    s += "  %c = icmp ult i32 %t, 2\n  br i1 %c, label %then, label %else\nthen:\n";
    s += &load("x", "1");
    s += "  br label %join\nelse:\n";
    s += &load("y", "2");
    s += "  br label %join\njoin:\n  %v = phi i32 [ %x, %then ], [ %y, %else ]\n";
    if merge_use {
        s += &load("z", "3");
    } else {
        s += "  %z = add i32 %t, 0\n";
    }
    s += "  %s0 = add i32 %v, %e
  %s = add i32 %s0, %z
  %a = shl i32 %t, 2
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 %a, i32 undef, i32 %s, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void";
    s
}

#[test]
fn a_dominating_use_serves_every_later_block() {
    // One pointer into the range, one load of each buffer: the entry block's.
    assert_eq!(descriptor_accesses(&translate(&body(true, true))), (1, 2));
    assert_eq!(descriptor_accesses(&translate(&body(true, false))), (1, 2));
}

#[test]
fn uses_that_do_not_dominate_make_their_own() {
    // Each side of the selection its own; the merge, dominated by neither, its own too.
    assert_eq!(descriptor_accesses(&translate(&body(false, true))), (3, 6));
    assert_eq!(descriptor_accesses(&translate(&body(false, false))), (2, 4));
}
