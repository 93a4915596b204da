//! The module block (`MODULE_BLOCK`, block 8): globals, functions, and the order in which
//! the other blocks are read.
//!
//! Record layouts from LLVM's `LLVMBitCodes.h` (`MODULE_CODE_*`) as LLVM 3.7's reader
//! interprets them: `VERSION [1]` (relative value ids in function blocks; 0 means absolute),
//! `TRIPLE`/`DATALAYOUT` (character arrays), `GLOBALVAR [type, constant | explicit-type << 1
//! | address space << 2, initializer id + 1, linkage, alignment, ...]` (without the explicit
//! type flag the type is the global's pointer type), `FUNCTION [type, calling convention,
//! is-declaration, linkage, attributes, alignment, ...]` (the type is the function type, or
//! a pointer to it in older files). Function bodies follow in the order of the defined
//! functions. The global value list is globals and functions in record order, then
//! module-level constants; function blocks extend it with arguments, their constants and
//! instruction results, and drop those again at the end of the block.

use super::attributes;
use super::bitstream::Res;
use super::constants;
use super::cursor::{Cursor, Entry};
use super::error::{malformed, unsupported};
use super::metadata;
use super::reader::{Buffers, Reader, Slot};
use super::symtab::{self, string_of, Name};
use crate::ir::*;
use cranelift_entity::PrimaryMap;

/// Read the module block (after [`Entry::SubBlock`]`(8)`), working in `buffers` (left
/// empty for the next read when this one succeeds).
pub fn read(cur: &mut Cursor, name: &str, buffers: &mut Buffers) -> Res<Module> {
    cur.enter(8)?;
    let mut rd = Reader::new(name, cur.r.end() as usize, std::mem::take(buffers));
    // The value list holds globals, constants, arguments and instruction results (DXC
    // writes a value in 23 to 64 bits); one allocation for a fresh read instead of one per
    // block that outgrows it (nothing for a reused list that is large enough).
    rd.values.reserve((cur.bits_left_in_block() / 64) as usize);
    let mut initializers: Vec<(GlobalId, u64)> = Vec::new();
    let mut bodies: Vec<FuncId> = Vec::new();
    let mut next_body = 0usize;
    let mut resolved_globals = false;
    let mut names: Vec<Name> = Vec::new();
    let mut attr_groups = crate::ir::hash::HashMap::default();
    let mut attr_lists: Vec<attributes::StringAttributes> = Vec::new();
    // (function, its attribute operand), resolved once the names are known.
    let mut fn_attrs: Vec<(FuncId, u64)> = Vec::new();
    loop {
        match cur.advance()? {
            Entry::End => break,
            Entry::SubBlock(id) => {
                if id == 12 && !resolved_globals {
                    resolve_initializers(&mut rd, &initializers)?;
                    resolved_globals = true;
                }
                match id {
                    0 => cur.read_blockinfo()?,
                    17 => {
                        if !rd.type_ids.is_empty() {
                            return Err(malformed("second type table"));
                        }
                        rd.type_ids = super::types::read(cur, &mut rd.m.types)?;
                    }
                    11 => constants::read(&mut rd, cur)?,
                    15 => metadata::read(&mut rd, cur)?,
                    14 => names.extend(symtab::read(cur)?),
                    10 => attributes::read_groups(cur, &mut attr_groups)?,
                    9 => attributes::read_lists(cur, &attr_groups, &mut attr_lists)?,
                    12 => {
                        let fid = *bodies
                            .get(next_body)
                            .ok_or_else(|| malformed("more function bodies than defined functions"))?;
                        next_body += 1;
                        super::function::read(&mut rd, cur, fid)?;
                    }
                    _ => cur.skip()?,
                }
            }
            Entry::Record(code) => {
                let ops = std::mem::take(&mut cur.ops);
                let r = record(&mut rd, code, &ops, &mut initializers, &mut bodies, &mut fn_attrs);
                cur.ops = ops;
                r?;
            }
        }
    }
    if !resolved_globals {
        resolve_initializers(&mut rd, &initializers)?;
    }
    if next_body != bodies.len() {
        return Err(malformed(format!("{} function bodies missing", bodies.len() - next_body)));
    }
    for n in names {
        if let Name::Value(id, name) = n {
            match rd.values.get(id as usize) {
                Some(Slot::Val(Value::Global(g), _)) => rd.m.globals[*g].name = name,
                Some(Slot::Val(Value::Func(f), _)) => rd.m.functions[*f].name = name,
                _ => {}
            }
        }
    }
    for (f, list) in fn_attrs {
        let attrs = usize::try_from(list).ok().and_then(|k| k.checked_sub(1)).and_then(|k| attr_lists.get(k));
        if let Some(attrs) = attrs.filter(|a| !a.is_empty()) {
            let name = rd.m.functions[f].name.clone();
            rd.m.function_attributes.entry(name).or_default().extend(attrs.clone());
        }
    }
    metadata::convert(&mut rd)?;
    let (m, emptied) = rd.finish();
    *buffers = emptied;
    Ok(m)
}

fn resolve_initializers(rd: &mut Reader, inits: &[(GlobalId, u64)]) -> Res<()> {
    for &(g, v) in inits {
        let c = constants::const_of(rd, v)?;
        if rd.m.constants.get(c).ty != rd.m.globals[g].value_ty {
            return Err(malformed("global initializer of the wrong type"));
        }
        rd.m.globals[g].initializer = Some(c);
    }
    Ok(())
}

fn record(
    rd: &mut Reader,
    code: u32,
    ops: &[u64],
    inits: &mut Vec<(GlobalId, u64)>,
    bodies: &mut Vec<FuncId>,
    fn_attrs: &mut Vec<(FuncId, u64)>,
) -> Res<()> {
    let op = |i: usize| ops.get(i).copied().ok_or_else(|| malformed(format!("module record {code} too short")));
    match code {
        1 if op(0)? != 1 => return Err(unsupported(format!("module version {} (DXIL uses 1)", op(0)?))),
        2 => rd.m.triple = string_of(ops)?,
        3 => {
            rd.set_data_layout(string_of(ops)?);
        }
        7 => {
            let t = rd.ty(op(0)?)?;
            let flags = op(1)?;
            let (value_ty, addr_space) = if flags & 2 != 0 {
                (t, u32::try_from(flags >> 2).map_err(|_| malformed("address space"))?)
            } else {
                match rd.m.types.get(t) {
                    Type::Pointer { pointee, addr_space } => (*pointee, *addr_space),
                    _ => return Err(malformed("global type is not a pointer")),
                }
            };
            if matches!(rd.m.types.get(value_ty), Type::Function { .. } | Type::Void | Type::Label | Type::Metadata) {
                return Err(malformed("global of a non-first-class type"));
            }
            let ty = rd.m.types.intern(Type::Pointer { pointee: value_ty, addr_space });
            let init = op(2)?;
            let align = if ops.len() > 4 { alignment(op(4)?)? } else { 0 };
            let g = rd.m.globals.push(Global {
                name: String::new(),
                value_ty,
                ty,
                addr_space,
                is_constant: flags & 1 != 0,
                initializer: None,
                align,
            });
            if init != 0 {
                inits.push((g, init - 1));
            }
            rd.values.push(Slot::Val(Value::Global(g), ty));
        }
        8 => {
            let mut fty = rd.ty(op(0)?)?;
            if let Type::Pointer { pointee, .. } = rd.m.types.get(fty) {
                fty = *pointee;
            }
            let (ret, params) = match rd.m.types.get(fty) {
                Type::Function { ret, params, .. } => {
                    (*ret, params.iter().map(|&ty| Param { name: None, ty }).collect())
                }
                _ => return Err(malformed("function of a non-function type")),
            };
            let ty = rd.m.types.intern(Type::Pointer { pointee: fty, addr_space: 0 });
            let f = rd.m.functions.push(Function {
                name: String::new(),
                ty: fty,
                ret,
                params,
                blocks: PrimaryMap::new(),
                insts: PrimaryMap::new(),
                layout: Vec::new(),
            });
            if op(2)? == 0 {
                bodies.push(f);
            }
            if let Some(&list) = ops.get(4).filter(|&&l| l != 0) {
                fn_attrs.push((f, list));
            }
            rd.values.push(Slot::Val(Value::Func(f), ty));
        }
        9 | 14 => return Err(unsupported("global aliases")),
        _ => {}
    }
    Ok(())
}

fn alignment(e: u64) -> Res<u32> {
    if e > 32 {
        return Err(malformed(format!("alignment exponent {e}")));
    }
    Ok(((1u64 << e) >> 1) as u32)
}
