#!/usr/bin/env python3
"""Writes crates/untangle/src/dxil/op_facts/table.rs: per DXIL operation (DXIL 1.0-1.9, opcodes
0..311, and the SM 6.10 experimental table, FeatureID 0x8000), the overload letters, the result
and parameter types, which parameters must be immediate constants, and the stages the operation
is valid in, as DXC's own instruction database states them.

Usage: tools/gen-dxil-op-facts.py DXC_1_8_TREE DXC_TREE > crates/untangle/src/dxil/op_facts/table.rs
       tools/gen-dxil-op-facts.py --rows DXC_1_8_TREE DXC_TREE   (the `dx_ops!` rows of
       opcodes.rs for opcodes 258 and up, to paste; the older rows are hand-grouped)

DXC_1_8_TREE is a DirectXShaderCompiler tree at tag v1.8.2505 and DXC_TREE one at commit
9a3e225dab9683212c648d2cc2b7f09bbf57cbe8 (2026-08-21, the newest snapshot read; DXIL 1.9 and
the 6.10 experimental table); only utils/hct/hctdb.py is read from each.

Why two trees: DXIL 1.9 rewrote some DXIL 1.8 rows (Msad/Ibfe/Ubfe lost their i64 overload,
several fixed types became `$o`). A DXIL 1.8 shader is checked against what DXIL 1.8 allowed, so
opcodes 0..257 keep the 1.8 row, gaining from the newer tree only what DXIL 1.9 added to them:
the native-vector overloads (the letters after `<`) and the vector-shaped results
(`$o_i1`, `$o_i32`: an i1/i32 of the overload's shape) that go with them.

Experimental opcodes are numbered (0x8000 << 16) | index, as hctdb's db_dxil_op_table does.
"""

import sys

# hctdb parameter type -> the Rust `ParamTy` variant.
TYPES = {
    "v": "Void",
    "$o": "Overload",
    "i1": "I1",
    "i8": "I8",
    "u8": "I8",
    "i16": "I16",
    "i32": "I32",
    "u32": "I32",
    "i64": "I64",
    "h": "F16",
    "f": "F32",
    "d": "F64",
    "$r": "ResRet",
    "$cb": "CBufRet",
    "res": "Handle",
    "dims": "Dimensions",
    "twoi32": "TwoI32",
    "i32c": "I32Carry",
    "SamplePos": "SamplePos",
    "fouri32": "FourI32",
    "splitdouble": "SplitDouble",
    "$vec4": "OverloadVec4",
    "resbind": "ResBind",
    "resproperty": "ResProperties",
    "pf32": "PointerF32",
    "udt": "UserDefined",
    "$udt": "UserDefined",
    "obj": "Object",
    "$obj": "Object",
    "nodehandle": "NodeHandle",
    "noderecordhandle": "NodeRecordHandle",
    "nodeproperty": "NodeProperties",
    "noderecordproperty": "NodeRecordProperties",
    # DXIL 1.9 and the experimental table.
    "$o_i1": "OverloadShapedI1",
    "$o_i32": "OverloadShapedI32",
    "$elt": "OverloadElement",
    "$vec9": "OverloadVec9",
    "int2": "I32Vec2",
    "hit_object": "HitObject",
    "$x0": "ExtOverload(0)",
    "$x1": "ExtOverload(1)",
    "$x2": "ExtOverload(2)",
    "$x3": "ExtOverload(3)",
    "$x_gs1": "ExtOverloadGroupShared(1)",
}

# hctdb stage names -> DXC's DXIL::ShaderKind numbers (crate::container::ShaderKind order).
STAGES = {
    "pixel": 0,
    "vertex": 1,
    "geometry": 2,
    "hull": 3,
    "domain": 4,
    "compute": 5,
    "library": 6,
    "raygeneration": 7,
    "intersection": 8,
    "anyhit": 9,
    "closesthit": 10,
    "miss": 11,
    "callable": 12,
    "mesh": 13,
    "amplification": 14,
    "node": 15,
}

# hctdb fn_attr -> `FnAttr` (opcodes.rs).
ATTRS = {"rn": "ReadNone", "ro": "ReadOnly", "": "None", "nd": "NoDuplicate", "nr": "NoReturn", "amo": "ArgMemOnly"}

CORE = 312  # NumOpCodes_Dxil_1_9
OLD = 258  # NumOpCodes_Dxil_1_8


def load(tree):
    sys.path.insert(0, tree + "/utils/hct")
    sys.modules.pop("hctdb", None)
    import hctdb  # noqa: E402

    db = hctdb.db_dxil()
    sys.path.pop(0)
    return db


def tables(db):
    """(core ops by opcode, experimental ops by index)."""
    if hasattr(db, "op_tables"):
        core = list(db.get_dxil_op_table("CoreOps"))
        exp = list(db.get_dxil_op_table("ExperimentalOps"))
        return core, exp
    return sorted((i for i in db.instr if i.is_dxil_op), key=lambda i: i.dxil_opid), []


def row(i, params, oload, number):
    result = TYPES[params[0].llvm_type]
    rest = params[2:]  # [0] is the result, [1] the opcode
    types = ", ".join(TYPES[p.llvm_type] for p in rest)
    immediates = 0
    for k, p in enumerate(rest):
        if p.is_const:
            immediates |= 1 << k
    stages = 0
    for s in i.shader_stages:
        stages |= 1 << STAGES[s]
    return (
        f'    /* {number} {i.name} */ OpFacts {{ overloads: "{oload}", result: {result}, '
        f"params: &[{types}], immediates: {immediates:#x}, stages: {stages:#x} }},"
    )


def merged_core(old, new):
    """Opcodes 0..257 as DXIL 1.8 declared them plus DXIL 1.9's vector additions; 258.. as 1.9."""
    out = []
    for n, i in enumerate(new):
        if n >= OLD:
            out.append(row(i, i.ops, i.oload_types, n))
            continue
        o = old[n]
        assert o.name == i.name, (n, o.name, i.name)
        scalar = o.oload_types.split("<")[0]
        vector = i.oload_types.split("<")[1] if "<" in i.oload_types else None
        oload = scalar + ("<" + vector if vector is not None else "")
        params = list(o.ops)
        for k, p in enumerate(i.ops):
            if p.llvm_type in ("$o_i1", "$o_i32"):
                params[k] = p
        out.append(row(o, params, oload, n))
    return out


def main():
    args = sys.argv[1:]
    rows_only = args[:1] == ["--rows"]
    if rows_only:
        args = args[1:]
    old_core = [i for i in tables(load(args[0]))[0] if i.dxil_opid < OLD]
    core, exp = tables(load(args[1]))
    assert [i.dxil_opid for i in old_core] == list(range(OLD)), "DXIL 1.8 has opcodes 0..257"
    assert [i.dxil_opid for i in core] == list(range(CORE)), "DXIL 1.9 has opcodes 0..311"
    assert [i.dxil_opid for i in exp] == [(0x8000 << 16) | k for k in range(len(exp))]
    if rows_only:
        category = None
        for i in core[OLD:] + exp:
            sm = (6, 9) if i.dxil_opid < CORE else (6, 10)
            cat = i.category or "Reserved"
            if cat != category:
                print(f"\n    // {cat}")
                category = cat
            cls = i.dxil_class[0].lower() + i.dxil_class[1:]
            num = i.dxil_opid if i.dxil_opid < CORE else f"0x{i.dxil_opid:08X}"
            print(f'    {i.name} = {num}, "{cls}", {sm}, {ATTRS[i.fn_attr]};')
        return
    out = []
    w = out.append
    w("//! Generated by `tools/gen-dxil-op-facts.py` from DXC `utils/hct/hctdb.py` at tag v1.8.2505")
    w("//! (opcodes 0..257) and commit 9a3e225d (DXIL 1.9 additions, opcodes 258..311, and the SM 6.10")
    w("//! experimental table); do not edit. The types are described in `super::schema`.")
    w("")
    w("use super::schema::{OpFacts, ParamTy::*};")
    w("")
    w("#[rustfmt::skip]")
    w(f"pub(super) const FACTS: [OpFacts; {CORE}] = [")
    out.extend(merged_core(old_core, core))
    w("];")
    w("")
    w("/// The experimental table (FeatureID 0x8000): index `k` is opcode `0x8000_0000 | k`.")
    w("#[rustfmt::skip]")
    w(f"pub(super) const EXPERIMENTAL: [OpFacts; {len(exp)}] = [")
    for i in exp:
        out.append(row(i, i.ops, i.oload_types, f"0x{i.dxil_opid:08X}"))
    w("];")
    print("\n".join(out))


main()
