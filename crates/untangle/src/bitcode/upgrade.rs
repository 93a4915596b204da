//! The one intrinsic upgrade LLVM applies to DXIL when it reads it, mirrored so both front
//! ends produce the same module.
//!
//! LLVM 3.7 named the lifetime markers `llvm.lifetime.start`/`llvm.lifetime.end`; newer
//! LLVM mangles the pointer type into the name (`llvm.lifetime.start.p0i8`). When LLVM 14's
//! reader meets the old name it declares the new intrinsic (appended to the module's
//! function list), moves the calls over and deletes the old declaration (LLVM's
//! `UpgradeIntrinsicFunction` semantics, LangRef "llvm.lifetime.start"). The result: the
//! function gets the mangled name and moves to the end of the function list, upgraded
//! functions in their original order.

use crate::ir::{FloatKind, FuncId, Module, Type, TypeId, Types};

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
    for (id, f) in m.functions.iter_mut() {
        let old = matches!(f.name.as_str(), "llvm.lifetime.start" | "llvm.lifetime.end");
        let mut suffix = String::new();
        let ok = old
            && f.is_declaration()
            && f.params.len() == 2
            && matches!(m.types.get(f.params[1].ty), Type::Pointer { .. })
            && mangle(&m.types, f.params[1].ty, &mut suffix, 0);
        if ok {
            f.name = format!("{}.{suffix}", f.name);
            moved.push(id);
        } else {
            keep.push(id);
        }
    }
    keep.extend(moved);
    keep
}
