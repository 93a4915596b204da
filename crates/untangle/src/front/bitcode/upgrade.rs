//! The intrinsic upgrades LLVM applies when it reads a module (bitcode or text), mirrored so
//! that the native readers and the LLVM front end produce the same module.
//!
//! LLVM 3.7 named the lifetime markers `llvm.lifetime.start`/`llvm.lifetime.end`; newer
//! LLVM mangles the pointer type into the name (`llvm.lifetime.start.p0i8`). When LLVM 14's
//! reader meets the old name it declares the new intrinsic (appended to the module's
//! function list), moves the calls over and deletes the old declaration (LLVM's
//! `UpgradeIntrinsicFunction` semantics, LangRef "llvm.lifetime.start"). The result: the
//! function gets the mangled name and moves to the end of the function list, upgraded
//! functions in their original order.
//!
//! The memory intrinsics lost their alignment argument in LLVM 7 (LangRef "llvm.memcpy":
//! the alignment is a parameter attribute now): a 5-argument `llvm.memcpy`/`llvm.memmove`
//! (`dest, src, len, i32 align, i1 volatile`) or `llvm.memset` (`dest, i8 val, len, i32
//! align, i1 volatile`) is replaced the same way, by a declaration without the alignment
//! (named from its pointer and length types) at the end of the function list, and every
//! call drops its fourth argument.

use crate::ir::{FloatKind, FuncId, InstKind, Module, Type, TypeId, Types, Value};

fn mangle(types: &Types, t: TypeId, out: &mut String, depth: u32) -> bool {
    if depth > 8 {
        return false;
    }
    match types.get(t) {
        Type::Int(w) => out.push_str(&format!("i{w}")),
        Type::Float(FloatKind::Half) => out.push_str("f16"),
        Type::Float(FloatKind::Float) => out.push_str("f32"),
        Type::Float(FloatKind::Double) => out.push_str("f64"),
        Type::Pointer { pointee, addr_space } => {
            out.push_str(&format!("p{addr_space}"));
            return mangle(types, *pointee, out, depth + 1);
        }
        _ => return false,
    }
    true
}

/// The new function order (as old ids) after renaming upgraded intrinsics in place.
pub fn upgrade_intrinsics(m: &mut Module) -> Vec<FuncId> {
    let mut keep = Vec::with_capacity(m.functions.len());
    let mut moved = Vec::new();
    let mut dropped_alignment = Vec::new();
    for id in m.functions.keys().collect::<Vec<_>>() {
        if upgrade_lifetime(m, id) {
            moved.push(id);
        } else if upgrade_memory_intrinsic(m, id) {
            moved.push(id);
            dropped_alignment.push(id);
        } else {
            keep.push(id);
        }
    }
    if !dropped_alignment.is_empty() {
        drop_alignment_arguments(m, &dropped_alignment);
    }
    keep.extend(moved);
    keep
}

/// `llvm.lifetime.start`/`end` without the mangled pointer type.
fn upgrade_lifetime(m: &mut Module, id: FuncId) -> bool {
    let f = &m.functions[id];
    let old = matches!(f.name.as_str(), "llvm.lifetime.start" | "llvm.lifetime.end");
    let mut suffix = String::new();
    let ok = old
        && f.is_declaration()
        && f.params.len() == 2
        && matches!(m.types.get(f.params[1].ty), Type::Pointer { .. })
        && mangle(&m.types, f.params[1].ty, &mut suffix, 0);
    if ok {
        let f = &mut m.functions[id];
        f.name = format!("{}.{suffix}", f.name);
    }
    ok
}

/// A 5-argument `llvm.memcpy.*`/`llvm.memmove.*`/`llvm.memset.*` declaration: drop the
/// alignment parameter, rename from the remaining types.
fn upgrade_memory_intrinsic(m: &mut Module, id: FuncId) -> bool {
    let f = &m.functions[id];
    let base = ["llvm.memcpy.", "llvm.memmove.", "llvm.memset."].into_iter().find(|b| f.name.starts_with(b));
    let Some(base) = base else { return false };
    if !f.is_declaration() || f.params.len() != 5 {
        return false;
    }
    let types: Vec<TypeId> = f.params.iter().map(|p| p.ty).collect();
    // Overloaded on dest and len (memset), or dest, src and len.
    let overloads: &[usize] = if base == "llvm.memset." { &[0, 2] } else { &[0, 1, 2] };
    let mut name = base.trim_end_matches('.').to_string();
    for &i in overloads {
        let mut part = String::new();
        if !mangle(&m.types, types[i], &mut part, 0) {
            return false;
        }
        name.push('.');
        name.push_str(&part);
    }
    let void = m.types.void();
    let params = vec![types[0], types[1], types[2], types[4]];
    let ty = m.types.intern(Type::Function { ret: void, params: params.clone(), var_arg: false });
    let f = &mut m.functions[id];
    f.name = name;
    f.ty = ty;
    f.ret = void;
    f.params.remove(3);
    true
}

/// Calls to the upgraded memory intrinsics lose their fourth (alignment) argument.
fn drop_alignment_arguments(m: &mut Module, upgraded: &[FuncId]) {
    for f in m.functions.values_mut() {
        for inst in f.insts.values_mut() {
            if let InstKind::Call { callee: Value::Func(c), args } = &mut inst.kind {
                if upgraded.contains(c) && args.len() == 5 {
                    args.remove(3);
                }
            }
        }
    }
}
