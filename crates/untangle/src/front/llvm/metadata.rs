//! Named metadata through the C API into [`crate::ir::MetadataTable`].
//!
//! Nodes are visited with an explicit worklist (debug-info graphs are deep and may be
//! cyclic); a node gets its id before its operands are visited, so cycles resolve.

use super::super::error::Result;
use super::context::{is_metadata, lossy};
use super::convert::Converter;
use crate::ir::{MdId, Value};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::collections::HashMap;

impl Converter {
    /// Every named metadata node of `m` into the module's metadata table.
    pub(super) fn convert_named_metadata(&mut self, m: LLVMModuleRef) -> Result<()> {
        named_metadata(self, m)
    }
}

fn named_metadata(cv: &mut Converter, m: LLVMModuleRef) -> Result<()> {
    let mut ids: HashMap<LLVMValueRef, MdId> = HashMap::new();
    let mut work: Vec<(LLVMValueRef, MdId)> = Vec::new();
    let mut nm = unsafe { LLVMGetFirstNamedMetadata(m) };
    while !nm.is_null() {
        let mut len = 0usize;
        let name_ptr = unsafe { LLVMGetNamedMetadataName(nm, &mut len) };
        let name = lossy(name_ptr, len);
        let cname = std::ffi::CString::new(name.clone()).unwrap_or_default();
        let n = unsafe { LLVMGetNamedMetadataNumOperands(m, cname.as_ptr()) } as usize;
        let mut ops = vec![std::ptr::null_mut(); n];
        if n > 0 {
            unsafe { LLVMGetNamedMetadataOperands(m, cname.as_ptr(), ops.as_mut_ptr()) };
        }
        let mut list = Vec::with_capacity(n);
        for op in ops {
            if let Some(id) = node_id(cv, &mut ids, &mut work, op)? {
                list.push(id);
            }
        }
        cv.module.metadata.set_named(&name, &list);
        drain(cv, &mut ids, &mut work)?;
        nm = unsafe { LLVMGetNextNamedMetadata(nm) };
    }
    Ok(())
}

/// The id of a metadata operand, allocating it (and queueing its operands) if new.
fn node_id(
    cv: &mut Converter,
    ids: &mut HashMap<LLVMValueRef, MdId>,
    work: &mut Vec<(LLVMValueRef, MdId)>,
    v: LLVMValueRef,
) -> Result<Option<MdId>> {
    if v.is_null() {
        return Ok(None);
    }
    if let Some(&id) = ids.get(&v) {
        return Ok(Some(id));
    }
    let is_md = is_metadata(v);
    let id = if !is_md {
        // A value wrapped in metadata: the C API unwraps it for us.
        let ty = cv.type_of(v)?;
        let value = if let Some(&f) = cv.funcs.get(&v) {
            Value::Func(f)
        } else if let Some(&g) = cv.globals.get(&v) {
            Value::Global(g)
        } else if unsafe { !LLVMIsAConstant(v).is_null() } {
            Value::Const(cv.constant(v)?)
        } else {
            // Function-local values cannot appear in named metadata.
            Value::Metadata
        };
        cv.module.metadata.push_value(ty, value)
    } else if unsafe { !LLVMIsAMDString(v).is_null() } {
        let mut len = 0u32;
        let p = unsafe { LLVMGetMDString(v, &mut len) };
        cv.module.metadata.push_string(&lossy(p, len as usize))
    } else if unsafe { !LLVMIsAMDNode(v).is_null() } {
        let id = cv.module.metadata.push_placeholder();
        work.push((v, id));
        id
    } else {
        cv.module.metadata.push_other()
    };
    ids.insert(v, id);
    Ok(Some(id))
}

fn drain(
    cv: &mut Converter,
    ids: &mut HashMap<LLVMValueRef, MdId>,
    work: &mut Vec<(LLVMValueRef, MdId)>,
) -> Result<()> {
    while let Some((v, id)) = work.pop() {
        let n = unsafe { LLVMGetMDNodeNumOperands(v) } as usize;
        let mut raw = vec![std::ptr::null_mut(); n];
        if n > 0 {
            unsafe { LLVMGetMDNodeOperands(v, raw.as_mut_ptr()) };
        }
        // `node_id` pushes only placeholders for tuples, never operands, so this tuple's
        // operands stay one run of the pool.
        let run = cv.module.metadata.begin_operands();
        for op in raw {
            let op = node_id(cv, ids, work, op)?;
            cv.module.metadata.push_operand(op);
        }
        cv.module.metadata.end_operands(id, run);
    }
    Ok(())
}
