//! LLVM types into interned IR types.

use super::super::error::{Error, Result};
use crate::ir::{FloatKind, StructBody, Type, TypeId, Types};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMTypeKind;
use std::collections::HashMap;

#[derive(Default)]
pub(super) struct TypeMap {
    cache: HashMap<LLVMTypeRef, TypeId>,
}

impl TypeMap {
    pub(super) fn convert(&mut self, types: &mut Types, t: LLVMTypeRef) -> Result<TypeId> {
        if let Some(&id) = self.cache.get(&t) {
            return Ok(id);
        }
        let kind = unsafe { LLVMGetTypeKind(t) };
        let ty = match kind {
            LLVMTypeKind::LLVMVoidTypeKind => Type::Void,
            LLVMTypeKind::LLVMIntegerTypeKind => Type::Int(unsafe { LLVMGetIntTypeWidth(t) }),
            LLVMTypeKind::LLVMHalfTypeKind => Type::Float(FloatKind::Half),
            LLVMTypeKind::LLVMFloatTypeKind => Type::Float(FloatKind::Float),
            LLVMTypeKind::LLVMDoubleTypeKind => Type::Float(FloatKind::Double),
            LLVMTypeKind::LLVMX86_FP80TypeKind => Type::Float(FloatKind::X86Fp80),
            LLVMTypeKind::LLVMFP128TypeKind => Type::Float(FloatKind::Fp128),
            LLVMTypeKind::LLVMLabelTypeKind => Type::Label,
            LLVMTypeKind::LLVMMetadataTypeKind => Type::Metadata,
            LLVMTypeKind::LLVMTokenTypeKind => Type::Token,
            LLVMTypeKind::LLVMPointerTypeKind => {
                let pointee = self.convert(types, unsafe { LLVMGetElementType(t) })?;
                Type::Pointer { pointee, addr_space: unsafe { LLVMGetPointerAddressSpace(t) } }
            }
            LLVMTypeKind::LLVMVectorTypeKind => {
                let elem = self.convert(types, unsafe { LLVMGetElementType(t) })?;
                Type::Vector { elem, len: unsafe { LLVMGetVectorSize(t) } }
            }
            LLVMTypeKind::LLVMArrayTypeKind => {
                let elem = self.convert(types, unsafe { LLVMGetElementType(t) })?;
                Type::Array { elem, len: unsafe { LLVMGetArrayLength(t) } as u64 }
            }
            LLVMTypeKind::LLVMFunctionTypeKind => {
                let ret = self.convert(types, unsafe { LLVMGetReturnType(t) })?;
                let n = unsafe { LLVMCountParamTypes(t) } as usize;
                let mut raw = vec![std::ptr::null_mut(); n];
                unsafe { LLVMGetParamTypes(t, raw.as_mut_ptr()) };
                let params = raw.into_iter().map(|p| self.convert(types, p)).collect::<Result<Vec<_>>>()?;
                Type::Function { ret, params, var_arg: unsafe { LLVMIsFunctionVarArg(t) } != 0 }
            }
            LLVMTypeKind::LLVMStructTypeKind => {
                let name_ptr = unsafe { LLVMGetStructName(t) };
                let packed = unsafe { LLVMIsPackedStruct(t) } != 0;
                if !name_ptr.is_null() {
                    // Named: intern the name first so a recursive body can refer to it.
                    let name = unsafe { std::ffi::CStr::from_ptr(name_ptr) }.to_string_lossy().into_owned();
                    let id = types.intern(Type::Named(name));
                    self.cache.insert(t, id);
                    let fields =
                        if unsafe { LLVMIsOpaqueStruct(t) } != 0 { None } else { Some(self.struct_fields(types, t)?) };
                    types.set_body(id, StructBody { fields, packed });
                    return Ok(id);
                }
                Type::Struct { fields: self.struct_fields(types, t)?, packed }
            }
            other => return Err(Error::Llvm(format!("unsupported LLVM type kind {other:?}"))),
        };
        let id = types.intern(ty);
        self.cache.insert(t, id);
        Ok(id)
    }

    fn struct_fields(&mut self, types: &mut Types, t: LLVMTypeRef) -> Result<Vec<TypeId>> {
        let n = unsafe { LLVMCountStructElementTypes(t) } as usize;
        let mut raw = vec![std::ptr::null_mut(); n];
        unsafe { LLVMGetStructElementTypes(t, raw.as_mut_ptr()) };
        raw.into_iter().map(|f| self.convert(types, f)).collect()
    }
}
