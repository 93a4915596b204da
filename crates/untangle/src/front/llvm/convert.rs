//! Walk an LLVM module through the C API and build our IR.
//!
//! Two passes per function: the first numbers every block and every non-terminator
//! instruction (so PHIs and other forward references resolve), the second converts.

use super::super::error::{Error, Result};
use super::context::{is_metadata, print_value, value_name};
use super::types::TypeMap;
use crate::ir::*;
use cranelift_entity::{EntityRef, PrimaryMap};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate, LLVMTypeKind};
use smallvec::SmallVec;
use std::collections::HashMap;

pub(super) struct Converter {
    pub(super) module: Module,
    pub(super) types: TypeMap,
    consts: HashMap<LLVMValueRef, ConstId>,
    pub(super) funcs: HashMap<LLVMValueRef, FuncId>,
    pub(super) globals: HashMap<LLVMValueRef, GlobalId>,
}

/// Per-function value numbering.
struct Locals {
    values: HashMap<LLVMValueRef, Value>,
    blocks: HashMap<LLVMBasicBlockRef, BlockId>,
}

pub(super) fn convert_module(m: LLVMModuleRef, name: &str) -> Result<Module> {
    let mut cv = Converter {
        module: Module { source_name: name.to_string(), ..Module::default() },
        types: TypeMap::default(),
        consts: HashMap::new(),
        funcs: HashMap::new(),
        globals: HashMap::new(),
    };
    cv.module.data_layout = cstr(unsafe { LLVMGetDataLayoutStr(m) });
    cv.module.triple = cstr(unsafe { LLVMGetTarget(m) });

    // Declare every global and function first: initializers and bodies refer to them.
    let mut fns = Vec::new();
    let mut f = unsafe { LLVMGetFirstFunction(m) };
    while !f.is_null() {
        fns.push(f);
        f = unsafe { LLVMGetNextFunction(f) };
    }
    let mut globals = Vec::new();
    let mut g = unsafe { LLVMGetFirstGlobal(m) };
    while !g.is_null() {
        globals.push(g);
        g = unsafe { LLVMGetNextGlobal(g) };
    }
    for &g in &globals {
        cv.declare_global(g)?;
    }
    for &f in &fns {
        cv.declare_function(f)?;
    }
    for &g in &globals {
        let init = unsafe { LLVMGetInitializer(g) };
        if !init.is_null() {
            let c = cv.constant(init)?;
            let id = cv.globals[&g];
            cv.module.globals[id].initializer = Some(c);
        }
    }
    for &f in &fns {
        if unsafe { LLVMCountBasicBlocks(f) } > 0 {
            cv.define_function(f)?;
        }
    }
    cv.convert_named_metadata(m)?;
    Ok(cv.module)
}

fn cstr(p: *const std::ffi::c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

impl Converter {
    pub(super) fn ty(&mut self, t: LLVMTypeRef) -> Result<TypeId> {
        self.types.convert(&mut self.module.types, t)
    }

    pub(super) fn type_of(&mut self, v: LLVMValueRef) -> Result<TypeId> {
        self.ty(unsafe { LLVMTypeOf(v) })
    }

    fn declare_global(&mut self, g: LLVMValueRef) -> Result<()> {
        let value_ty = self.ty(unsafe { LLVMGlobalGetValueType(g) })?;
        let ty = self.type_of(g)?;
        let addr_space = match self.module.types.get(ty) {
            Type::Pointer { addr_space, .. } => *addr_space,
            _ => 0,
        };
        let id = self.module.globals.push(Global {
            name: value_name(g).unwrap_or_default(),
            value_ty,
            ty,
            addr_space,
            is_constant: unsafe { LLVMIsGlobalConstant(g) } != 0,
            initializer: None,
            align: unsafe { LLVMGetAlignment(g) },
        });
        self.globals.insert(g, id);
        Ok(())
    }

    fn declare_function(&mut self, f: LLVMValueRef) -> Result<()> {
        let fty = unsafe { LLVMGlobalGetValueType(f) };
        let ty = self.ty(fty)?;
        let ret = self.ty(unsafe { LLVMGetReturnType(fty) })?;
        let n = unsafe { LLVMCountParams(f) };
        let mut params = Vec::with_capacity(n as usize);
        for i in 0..n {
            let p = unsafe { LLVMGetParam(f, i) };
            params.push(Param { name: value_name(p), ty: self.type_of(p)? });
        }
        let id = self.module.functions.push(Function {
            name: value_name(f).unwrap_or_default(),
            ty,
            ret,
            params,
            blocks: PrimaryMap::new(),
            insts: PrimaryMap::new(),
            layout: Vec::new(),
        });
        self.funcs.insert(f, id);
        let attrs = unsafe { string_attributes(f) };
        if !attrs.is_empty() {
            let name = self.module.functions[id].name.clone();
            self.module.function_attributes.entry(name).or_default().extend(attrs);
        }
        Ok(())
    }

    /// Convert a constant (hash-consed; LLVM constants are uniqued, so pointer keys work).
    pub(super) fn constant(&mut self, c: LLVMValueRef) -> Result<ConstId> {
        if let Some(&id) = self.consts.get(&c) {
            return Ok(id);
        }
        let ty = self.type_of(c)?;
        let kind = unsafe { self.constant_kind(c, ty)? };
        let id = self.module.constants.intern(Constant { ty, kind });
        self.consts.insert(c, id);
        Ok(id)
    }

    unsafe fn constant_kind(&mut self, c: LLVMValueRef, ty: TypeId) -> Result<ConstKind> {
        if !LLVMIsAConstantInt(c).is_null() {
            let bits = match self.module.types.get(ty) {
                Type::Int(b) => *b,
                Type::Vector { .. } => 0,
                _ => 0,
            };
            return Ok(if bits <= 64 {
                ConstKind::Int(LLVMConstIntGetZExtValue(c))
            } else {
                ConstKind::Opaque(print_value(c))
            });
        }
        if !LLVMIsAConstantFP(c).is_null() {
            let mut loses = 0;
            let v = LLVMConstRealGetDouble(c, &mut loses);
            return Ok(match self.module.types.get(ty) {
                Type::Float(FloatKind::Half) => ConstKind::Float(half::f16::from_f64(v).to_bits() as u64),
                Type::Float(FloatKind::Float) => ConstKind::Float((v as f32).to_bits() as u64),
                Type::Float(FloatKind::Double) => ConstKind::Float(v.to_bits()),
                _ => ConstKind::Opaque(print_value(c)),
            });
        }
        if !LLVMIsAConstantPointerNull(c).is_null() {
            return Ok(ConstKind::Null);
        }
        if !LLVMIsAConstantAggregateZero(c).is_null() {
            return Ok(ConstKind::Zero);
        }
        if !LLVMIsAPoisonValue(c).is_null() {
            return Ok(ConstKind::Poison);
        }
        if !LLVMIsAUndefValue(c).is_null() {
            return Ok(ConstKind::Undef);
        }
        if !LLVMIsAGlobalVariable(c).is_null() {
            return match self.globals.get(&c) {
                Some(&g) => Ok(ConstKind::GlobalAddr(g)),
                None => Err(Error::Llvm("reference to an unknown global".into())),
            };
        }
        if !LLVMIsAFunction(c).is_null() {
            return match self.funcs.get(&c) {
                Some(&f) => Ok(ConstKind::FuncAddr(f)),
                None => Err(Error::Llvm("reference to an unknown function".into())),
            };
        }
        if !LLVMIsAConstantDataSequential(c).is_null() {
            let n = match LLVMGetTypeKind(LLVMTypeOf(c)) {
                LLVMTypeKind::LLVMVectorTypeKind => LLVMGetVectorSize(LLVMTypeOf(c)),
                _ => LLVMGetArrayLength(LLVMTypeOf(c)),
            };
            let mut elems = Vec::with_capacity(n as usize);
            for i in 0..n {
                elems.push(self.constant(LLVMGetElementAsConstant(c, i))?);
            }
            return Ok(ConstKind::Aggregate(elems));
        }
        if !LLVMIsAConstantArray(c).is_null()
            || !LLVMIsAConstantStruct(c).is_null()
            || !LLVMIsAConstantVector(c).is_null()
        {
            let n = LLVMGetNumOperands(c);
            let mut elems = Vec::with_capacity(n as usize);
            for i in 0..n {
                elems.push(self.constant(LLVMGetOperand(c, i as u32))?);
            }
            return Ok(ConstKind::Aggregate(elems));
        }
        if !LLVMIsAConstantExpr(c).is_null() {
            let opcode = LLVMGetConstOpcode(c);
            let op = match opcode {
                LLVMOpcode::LLVMGetElementPtr => ConstExprOp::GetElementPtr { in_bounds: LLVMIsInBounds(c) != 0 },
                LLVMOpcode::LLVMICmp => ConstExprOp::ICmp(int_predicate(LLVMGetICmpPredicate(c))),
                LLVMOpcode::LLVMFCmp => ConstExprOp::FCmp(float_predicate(LLVMGetFCmpPredicate(c))),
                LLVMOpcode::LLVMSelect => ConstExprOp::Select,
                LLVMOpcode::LLVMExtractElement => ConstExprOp::ExtractElement,
                LLVMOpcode::LLVMInsertElement => ConstExprOp::InsertElement,
                LLVMOpcode::LLVMShuffleVector => ConstExprOp::ShuffleVector,
                other => {
                    if let Some(b) = binary_op(other) {
                        ConstExprOp::Binary(b)
                    } else if let Some(k) = cast_op(other) {
                        ConstExprOp::Cast(k)
                    } else {
                        return Ok(ConstKind::Opaque(print_value(c)));
                    }
                }
            };
            let source_ty = if let ConstExprOp::GetElementPtr { .. } = op {
                Some(self.ty(LLVMGetGEPSourceElementType(c))?)
            } else {
                None
            };
            let n = LLVMGetNumOperands(c);
            let mut operands = Vec::with_capacity(n as usize);
            for i in 0..n {
                operands.push(self.constant(LLVMGetOperand(c, i as u32))?);
            }
            return Ok(ConstKind::Expr { op, operands, source_ty });
        }
        // blockaddress, token none, global aliases, ...: never looked into.
        Ok(ConstKind::Opaque(print_value(c)))
    }

    fn define_function(&mut self, f: LLVMValueRef) -> Result<()> {
        let fid = self.funcs[&f];
        let fname = self.module.functions[fid].name.clone();
        let mut locals = Locals { values: HashMap::new(), blocks: HashMap::new() };
        for i in 0..unsafe { LLVMCountParams(f) } {
            locals.values.insert(unsafe { LLVMGetParam(f, i) }, Value::Arg(i));
        }
        // Pass 1: number blocks and instructions.
        let mut bbs = Vec::new();
        let mut bb = unsafe { LLVMGetFirstBasicBlock(f) };
        let mut next_inst = 0usize;
        while !bb.is_null() {
            let id = BlockId::new(bbs.len());
            locals.blocks.insert(bb, id);
            bbs.push(bb);
            let term = unsafe { LLVMGetBasicBlockTerminator(bb) };
            let mut i = unsafe { LLVMGetFirstInstruction(bb) };
            while !i.is_null() {
                if i != term {
                    locals.values.insert(i, Value::Inst(InstId::new(next_inst)));
                    next_inst += 1;
                }
                i = unsafe { LLVMGetNextInstruction(i) };
            }
            bb = unsafe { LLVMGetNextBasicBlock(bb) };
        }
        // Pass 2: convert.
        let mut blocks = PrimaryMap::new();
        let mut insts: PrimaryMap<InstId, Inst> = PrimaryMap::with_capacity(next_inst);
        for &bb in &bbs {
            let name = {
                let p = unsafe { LLVMGetBasicBlockName(bb) };
                let s = cstr(p);
                if s.is_empty() {
                    None
                } else {
                    Some(s)
                }
            };
            let label = name.clone().unwrap_or_else(|| format!("#{}", blocks.len()));
            let err = |message: String| Error::Ir { function: fname.clone(), block: label.clone(), message };
            let term = unsafe { LLVMGetBasicBlockTerminator(bb) };
            if term.is_null() {
                return Err(err("block has no terminator".into()));
            }
            let mut ids = Vec::new();
            let mut i = unsafe { LLVMGetFirstInstruction(bb) };
            while !i.is_null() && i != term {
                let inst = self.instruction(i, &locals).map_err(|e| match e {
                    Error::Llvm(m) => err(m),
                    other => other,
                })?;
                ids.push(insts.push(inst));
                i = unsafe { LLVMGetNextInstruction(i) };
            }
            let terminator = self.terminator(term, &locals).map_err(|e| match e {
                Error::Llvm(m) => err(m),
                other => other,
            })?;
            blocks.push(Block { name, insts: ids, terminator });
        }
        let func = &mut self.module.functions[fid];
        func.layout = blocks.keys().collect();
        func.blocks = blocks;
        func.insts = insts;
        Ok(())
    }

    fn value(&mut self, v: LLVMValueRef, locals: &Locals) -> Result<Value> {
        if let Some(&x) = locals.values.get(&v) {
            return Ok(x);
        }
        unsafe {
            if !LLVMIsAFunction(v).is_null() {
                if let Some(&f) = self.funcs.get(&v) {
                    return Ok(Value::Func(f));
                }
            }
            if !LLVMIsAGlobalVariable(v).is_null() {
                if let Some(&g) = self.globals.get(&v) {
                    return Ok(Value::Global(g));
                }
            }
            if is_metadata(v) {
                return Ok(Value::Metadata);
            }
            if !LLVMIsAInlineAsm(v).is_null() {
                return Err(Error::Llvm("inline assembly is not supported".into()));
            }
            if !LLVMIsAConstant(v).is_null() {
                return Ok(Value::Const(self.constant(v)?));
            }
        }
        Err(Error::Llvm(format!("operand `{}` is not a value we model", print_value(v))))
    }

    fn operand(&mut self, i: LLVMValueRef, n: u32, locals: &Locals) -> Result<Value> {
        let count = unsafe { LLVMGetNumOperands(i) };
        if n as i32 >= count {
            return Err(Error::Llvm(format!("instruction has {count} operands, expected more than {n}")));
        }
        self.value(unsafe { LLVMGetOperand(i, n) }, locals)
    }

    fn block_of(&self, bb: LLVMBasicBlockRef, locals: &Locals) -> Result<BlockId> {
        locals.blocks.get(&bb).copied().ok_or_else(|| Error::Llvm("branch to a block of another function".into()))
    }

    fn instruction(&mut self, i: LLVMValueRef, locals: &Locals) -> Result<Inst> {
        use LLVMOpcode::*;
        let ty = self.type_of(i)?;
        let name = value_name(i);
        let opcode = unsafe { LLVMGetInstructionOpcode(i) };
        let op = |cv: &mut Self, n: u32| cv.operand(i, n, locals);
        let kind = match opcode {
            LLVMPHI => {
                let n = unsafe { LLVMCountIncoming(i) };
                let mut incoming = SmallVec::with_capacity(n as usize);
                for k in 0..n {
                    let v = self.value(unsafe { LLVMGetIncomingValue(i, k) }, locals)?;
                    let b = self.block_of(unsafe { LLVMGetIncomingBlock(i, k) }, locals)?;
                    incoming.push((v, b));
                }
                InstKind::Phi { incoming }
            }
            LLVMFNeg => InstKind::FNeg { value: op(self, 0)? },
            LLVMICmp => InstKind::ICmp {
                pred: int_predicate(unsafe { LLVMGetICmpPredicate(i) }),
                lhs: op(self, 0)?,
                rhs: op(self, 1)?,
            },
            LLVMFCmp => InstKind::FCmp {
                pred: float_predicate(unsafe { LLVMGetFCmpPredicate(i) }),
                lhs: op(self, 0)?,
                rhs: op(self, 1)?,
            },
            LLVMSelect => InstKind::Select { cond: op(self, 0)?, if_true: op(self, 1)?, if_false: op(self, 2)? },
            LLVMExtractValue => InstKind::ExtractValue { aggregate: op(self, 0)?, indices: indices(i) },
            LLVMInsertValue => {
                InstKind::InsertValue { aggregate: op(self, 0)?, element: op(self, 1)?, indices: indices(i) }
            }
            LLVMExtractElement => InstKind::ExtractElement { vector: op(self, 0)?, index: op(self, 1)? },
            LLVMInsertElement => {
                InstKind::InsertElement { vector: op(self, 0)?, element: op(self, 1)?, index: op(self, 2)? }
            }
            LLVMShuffleVector => {
                let n = unsafe { LLVMGetNumMaskElements(i) };
                let undef = unsafe { LLVMGetUndefMaskElem() };
                let mask = (0..n)
                    .map(|k| {
                        let m = unsafe { LLVMGetMaskValue(i, k) };
                        if m == undef {
                            -1
                        } else {
                            m
                        }
                    })
                    .collect();
                InstKind::ShuffleVector { lhs: op(self, 0)?, rhs: op(self, 1)?, mask }
            }
            LLVMAlloca => InstKind::Alloca {
                allocated: self.ty(unsafe { LLVMGetAllocatedType(i) })?,
                count: op(self, 0)?,
                align: unsafe { LLVMGetAlignment(i) },
            },
            LLVMLoad => InstKind::Load {
                ptr: op(self, 0)?,
                align: unsafe { LLVMGetAlignment(i) },
                volatile: unsafe { LLVMGetVolatile(i) } != 0,
            },
            LLVMStore => InstKind::Store {
                value: op(self, 0)?,
                ptr: op(self, 1)?,
                align: unsafe { LLVMGetAlignment(i) },
                volatile: unsafe { LLVMGetVolatile(i) } != 0,
            },
            LLVMGetElementPtr => {
                let n = unsafe { LLVMGetNumOperands(i) } as u32;
                let mut idx = SmallVec::new();
                for k in 1..n {
                    idx.push(op(self, k)?);
                }
                InstKind::GetElementPtr {
                    source: self.ty(unsafe { LLVMGetGEPSourceElementType(i) })?,
                    base: op(self, 0)?,
                    indices: idx,
                    in_bounds: unsafe { LLVMIsInBounds(i) } != 0,
                }
            }
            LLVMAtomicRMW => InstKind::AtomicRmw {
                op: rmw_op(unsafe { LLVMGetAtomicRMWBinOp(i) })?,
                ptr: op(self, 0)?,
                value: op(self, 1)?,
                ordering: ordering(unsafe { LLVMGetOrdering(i) }),
                volatile: unsafe { LLVMGetVolatile(i) } != 0,
            },
            LLVMAtomicCmpXchg => InstKind::CmpXchg {
                ptr: op(self, 0)?,
                expected: op(self, 1)?,
                replacement: op(self, 2)?,
                success: ordering(unsafe { LLVMGetCmpXchgSuccessOrdering(i) }),
                failure: ordering(unsafe { LLVMGetCmpXchgFailureOrdering(i) }),
                weak: unsafe { LLVMGetWeak(i) } != 0,
                volatile: unsafe { LLVMGetVolatile(i) } != 0,
            },
            LLVMFence => InstKind::Fence { ordering: ordering(unsafe { LLVMGetOrdering(i) }) },
            LLVMCall => {
                let callee = self.value(unsafe { LLVMGetCalledValue(i) }, locals)?;
                let n = unsafe { LLVMGetNumArgOperands(i) };
                let mut args = SmallVec::with_capacity(n as usize);
                for k in 0..n {
                    args.push(op(self, k)?);
                }
                InstKind::Call { callee, args }
            }
            LLVMFreeze => InstKind::Freeze { value: op(self, 0)? },
            LLVMVAArg => InstKind::VaArg { list: op(self, 0)? },
            other => {
                if let Some(b) = binary_op(other) {
                    // The C API of LLVM 14 does not expose fast-math flags: read them from
                    // the instruction's text (`%x = fadd fast float ...`).
                    let fast = b.is_float() && {
                        let text = print_value(i);
                        let after = text.split_once(" = ").map_or(text.as_str(), |(_, r)| r);
                        after
                            .split_whitespace()
                            .skip(1)
                            .take_while(|w| !w.starts_with('%'))
                            .any(|w| matches!(w, "fast" | "reassoc" | "contract"))
                    };
                    InstKind::Binary { op: b, lhs: op(self, 0)?, rhs: op(self, 1)?, fast }
                } else if let Some(c) = cast_op(other) {
                    InstKind::Cast { op: c, value: op(self, 0)? }
                } else {
                    return Err(Error::Llvm(format!("unsupported instruction `{}`", print_value(i).trim())));
                }
            }
        };
        Ok(Inst { name, ty, kind })
    }

    fn terminator(&mut self, t: LLVMValueRef, locals: &Locals) -> Result<Terminator> {
        use LLVMOpcode::*;
        let succ = |cv: &Self, k: u32| cv.block_of(unsafe { LLVMGetSuccessor(t, k) }, locals);
        Ok(match unsafe { LLVMGetInstructionOpcode(t) } {
            LLVMRet => {
                if unsafe { LLVMGetNumOperands(t) } == 0 {
                    Terminator::Ret { value: None }
                } else {
                    Terminator::Ret { value: Some(self.operand(t, 0, locals)?) }
                }
            }
            LLVMBr => {
                if unsafe { LLVMIsConditional(t) } != 0 {
                    let cond = self.value(unsafe { LLVMGetCondition(t) }, locals)?;
                    Terminator::CondBr { cond, if_true: succ(self, 0)?, if_false: succ(self, 1)? }
                } else {
                    Terminator::Br { target: succ(self, 0)? }
                }
            }
            LLVMSwitch => {
                let value = self.operand(t, 0, locals)?;
                let n = unsafe { LLVMGetNumSuccessors(t) };
                let mut cases = Vec::with_capacity(n.saturating_sub(1) as usize);
                for k in 1..n {
                    // Operands: condition, default, then (case value, destination) pairs.
                    let c = unsafe { LLVMGetOperand(t, 2 * k) };
                    if unsafe { LLVMIsAConstantInt(c) }.is_null() {
                        return Err(Error::Llvm("switch case value is not an integer constant".into()));
                    }
                    let width = unsafe { LLVMGetIntTypeWidth(LLVMTypeOf(c)) };
                    if width > 64 {
                        return Err(Error::Llvm(format!("switch on i{width} is not supported")));
                    }
                    cases.push((unsafe { LLVMConstIntGetZExtValue(c) }, succ(self, k)?));
                }
                Terminator::Switch { value, default: succ(self, 0)?, cases }
            }
            LLVMUnreachable => Terminator::Unreachable,
            _ => return Err(Error::Llvm(format!("unsupported terminator `{}`", print_value(t).trim()))),
        })
    }
}

fn indices(i: LLVMValueRef) -> SmallVec<[u32; 2]> {
    let n = unsafe { LLVMGetNumIndices(i) } as usize;
    let p = unsafe { LLVMGetIndices(i) };
    if p.is_null() || n == 0 {
        return SmallVec::new();
    }
    unsafe { std::slice::from_raw_parts(p, n) }.iter().copied().collect()
}

fn binary_op(op: LLVMOpcode) -> Option<BinaryOp> {
    use LLVMOpcode::*;
    Some(match op {
        LLVMAdd => BinaryOp::Add,
        LLVMSub => BinaryOp::Sub,
        LLVMMul => BinaryOp::Mul,
        LLVMUDiv => BinaryOp::UDiv,
        LLVMSDiv => BinaryOp::SDiv,
        LLVMURem => BinaryOp::URem,
        LLVMSRem => BinaryOp::SRem,
        LLVMShl => BinaryOp::Shl,
        LLVMLShr => BinaryOp::LShr,
        LLVMAShr => BinaryOp::AShr,
        LLVMAnd => BinaryOp::And,
        LLVMOr => BinaryOp::Or,
        LLVMXor => BinaryOp::Xor,
        LLVMFAdd => BinaryOp::FAdd,
        LLVMFSub => BinaryOp::FSub,
        LLVMFMul => BinaryOp::FMul,
        LLVMFDiv => BinaryOp::FDiv,
        LLVMFRem => BinaryOp::FRem,
        _ => return None,
    })
}

fn cast_op(op: LLVMOpcode) -> Option<CastOp> {
    use LLVMOpcode::*;
    Some(match op {
        LLVMTrunc => CastOp::Trunc,
        LLVMZExt => CastOp::ZExt,
        LLVMSExt => CastOp::SExt,
        LLVMFPToUI => CastOp::FPToUI,
        LLVMFPToSI => CastOp::FPToSI,
        LLVMUIToFP => CastOp::UIToFP,
        LLVMSIToFP => CastOp::SIToFP,
        LLVMFPTrunc => CastOp::FPTrunc,
        LLVMFPExt => CastOp::FPExt,
        LLVMPtrToInt => CastOp::PtrToInt,
        LLVMIntToPtr => CastOp::IntToPtr,
        LLVMBitCast => CastOp::BitCast,
        LLVMAddrSpaceCast => CastOp::AddrSpaceCast,
        _ => return None,
    })
}

fn int_predicate(p: LLVMIntPredicate) -> IntPredicate {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => IntPredicate::Eq,
        LLVMIntNE => IntPredicate::Ne,
        LLVMIntUGT => IntPredicate::Ugt,
        LLVMIntUGE => IntPredicate::Uge,
        LLVMIntULT => IntPredicate::Ult,
        LLVMIntULE => IntPredicate::Ule,
        LLVMIntSGT => IntPredicate::Sgt,
        LLVMIntSGE => IntPredicate::Sge,
        LLVMIntSLT => IntPredicate::Slt,
        LLVMIntSLE => IntPredicate::Sle,
    }
}

fn float_predicate(p: LLVMRealPredicate) -> FloatPredicate {
    use LLVMRealPredicate::*;
    match p {
        LLVMRealPredicateFalse => FloatPredicate::False,
        LLVMRealOEQ => FloatPredicate::Oeq,
        LLVMRealOGT => FloatPredicate::Ogt,
        LLVMRealOGE => FloatPredicate::Oge,
        LLVMRealOLT => FloatPredicate::Olt,
        LLVMRealOLE => FloatPredicate::Ole,
        LLVMRealONE => FloatPredicate::One,
        LLVMRealORD => FloatPredicate::Ord,
        LLVMRealUNO => FloatPredicate::Uno,
        LLVMRealUEQ => FloatPredicate::Ueq,
        LLVMRealUGT => FloatPredicate::Ugt,
        LLVMRealUGE => FloatPredicate::Uge,
        LLVMRealULT => FloatPredicate::Ult,
        LLVMRealULE => FloatPredicate::Ule,
        LLVMRealUNE => FloatPredicate::Une,
        LLVMRealPredicateTrue => FloatPredicate::True,
    }
}

fn rmw_op(op: LLVMAtomicRMWBinOp) -> Result<AtomicRmwOp> {
    use LLVMAtomicRMWBinOp::*;
    Ok(match op {
        LLVMAtomicRMWBinOpXchg => AtomicRmwOp::Xchg,
        LLVMAtomicRMWBinOpAdd => AtomicRmwOp::Add,
        LLVMAtomicRMWBinOpSub => AtomicRmwOp::Sub,
        LLVMAtomicRMWBinOpAnd => AtomicRmwOp::And,
        LLVMAtomicRMWBinOpNand => AtomicRmwOp::Nand,
        LLVMAtomicRMWBinOpOr => AtomicRmwOp::Or,
        LLVMAtomicRMWBinOpXor => AtomicRmwOp::Xor,
        LLVMAtomicRMWBinOpMax => AtomicRmwOp::Max,
        LLVMAtomicRMWBinOpMin => AtomicRmwOp::Min,
        LLVMAtomicRMWBinOpUMax => AtomicRmwOp::UMax,
        LLVMAtomicRMWBinOpUMin => AtomicRmwOp::UMin,
        LLVMAtomicRMWBinOpFAdd => AtomicRmwOp::FAdd,
        LLVMAtomicRMWBinOpFSub => AtomicRmwOp::FSub,
    })
}

fn ordering(o: LLVMAtomicOrdering) -> Ordering {
    use LLVMAtomicOrdering::*;
    match o {
        LLVMAtomicOrderingNotAtomic => Ordering::NotAtomic,
        LLVMAtomicOrderingUnordered => Ordering::Unordered,
        LLVMAtomicOrderingMonotonic => Ordering::Monotonic,
        LLVMAtomicOrderingAcquire => Ordering::Acquire,
        LLVMAtomicOrderingRelease => Ordering::Release,
        LLVMAtomicOrderingAcquireRelease => Ordering::AcqRel,
        LLVMAtomicOrderingSequentiallyConsistent => Ordering::SeqCst,
    }
}

/// The string attributes of function `f` itself (`"key"` or `"key"="value"`).
unsafe fn string_attributes(f: LLVMValueRef) -> std::collections::BTreeMap<String, String> {
    let index = llvm_sys::LLVMAttributeFunctionIndex;
    let n = LLVMGetAttributeCountAtIndex(f, index);
    let mut attrs: Vec<LLVMAttributeRef> = vec![std::ptr::null_mut(); n as usize];
    if n > 0 {
        LLVMGetAttributesAtIndex(f, index, attrs.as_mut_ptr());
    }
    let text = |p: *const std::os::raw::c_char, len: u32| -> String {
        if p.is_null() {
            return String::new();
        }
        let bytes = std::slice::from_raw_parts(p.cast::<u8>(), len as usize);
        String::from_utf8_lossy(bytes).into_owned()
    };
    let mut out = std::collections::BTreeMap::new();
    for a in attrs {
        if a.is_null() || LLVMIsStringAttribute(a) == 0 {
            continue;
        }
        let mut klen = 0u32;
        let k = LLVMGetStringAttributeKind(a, &mut klen);
        let mut vlen = 0u32;
        let v = LLVMGetStringAttributeValue(a, &mut vlen);
        out.insert(text(k, klen), text(v, vlen));
    }
    out
}
