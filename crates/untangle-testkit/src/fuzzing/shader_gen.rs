//! Random well-formed DXIL compute programs for differential execution (issue 20, part
//! 3), built directly in untangle's IR, deterministic from a seed — csmith for the
//! translator.
//!
//! A program is one thread group of [`THREADS`] threads with a raw input buffer `t0` and
//! a raw output buffer `u0`. Each thread keeps [`VARS`] `i32` variables and [`VARS`]
//! `float` variables in a private array (`alloca`), loads their initial values from `t0`,
//! runs a random statement list, and stores every variable to its own slots of `u0`.
//!
//! * statements: assignments of random expression trees; `if`/`else`; counted loops (at
//!   most 7 iterations, from data) with data-dependent `break` and `continue`; `switch`
//!   with fall-through-free cases; early `return` (which skips the final stores: the
//!   output keeps its input bits);
//! * expressions: integer `add sub mul and or xor`, shifts (amount masked as HLSL does),
//!   `udiv`/`urem` (division by zero included: D3D defines it), `icmp` + `select`,
//!   `IMin IMax UMin UMax Countbits FirstbitLo FirstbitHi Bfrev Ibfe Ubfe Bfi`; float
//!   `fadd fsub fmul`, `FMin FMax FAbs Round_*`, `sitofp uitofp fptosi` and `fcmp`;
//!   buffer loads from `t0` at data-dependent addresses (out of bounds included);
//! * at the top level only (thread-group uniform control flow): wave reductions
//!   (`WaveActiveOp` sum/min/max, `WaveActiveBit`, `WaveReadLaneFirst`, `WaveActiveBallot`
//!   count via `WaveAllBitCount`, `WavePrefixOp` sum) and a groupshared exchange between
//!   two barriers (each thread writes its slot, reads a neighbour's).
//!
//! Termination: loops are counted; nothing else loops. The control-flow skeleton is this
//! module's own structured generator (if/loop/switch nesting with breaks, continues and
//! returns), not `structured_gen`: that one draws arbitrary reducible CFGs whose loops
//! need not terminate, and its values are plain `i32` arguments.

use super::mutate::SplitMix64;
use cranelift_entity::PrimaryMap;
use smallvec::smallvec;
use untangle::ir::*;

/// Threads of the one thread group.
pub const THREADS: u32 = 32;
/// Integer and float variables per thread.
pub const VARS: u32 = 4;
/// Words of `t0` (inputs).
pub const INPUT_WORDS: u32 = 256;
/// Bytes of an element of `u1`, the long-vector mode's store target: 64 lanes of 32 bits.
pub const VECTOR_STRIDE: u32 = 256;
/// Lane counts of the long-vector mode, by class: 2–4 (SPIR-V vectors), 5–16 and 17–32
/// (arrays of lanes after translation).
/// The longest class stops at 32: lavapipe compiles the lane-by-lane code of longer ones
/// slowly enough to hit the harness's dispatch timeout.
pub const VECTOR_LENGTHS: [std::ops::RangeInclusive<u32>; 3] = [2..=4, 5..=16, 17..=32];

struct B {
    m: Module,
    f: Function,
    cur: BlockId,
    rng: SplitMix64,
    i32t: TypeId,
    f32t: TypeId,
    i1t: TypeId,
    i8t: TypeId,
    void: TypeId,
    handle_t: TypeId,
    resret: TypeId,
    vars: Value,
    fvars: Value,
    gs: Value,
    ut: Value,
    tt: Value,
    tid: Value,
    decls: std::collections::HashMap<String, FuncId>,
    depth: u32,
    budget: u32,
    /// A conditional `return` was generated: a later group barrier would not be reached by
    /// every thread (undefined), so uniform statements are wave operations only.
    returned: bool,
    /// Long-vector mode ([`Config::long_vectors`]): the `RWStructuredBuffer` `u1` of
    /// [`VECTOR_STRIDE`]-byte elements, one per thread, for vector stores.
    sb: Option<Value>,
}

impl B {
    fn c32(&mut self, v: u32) -> Value {
        Value::Const(self.m.constants.intern(Constant { ty: self.i32t, kind: ConstKind::Int(v as u64) }))
    }
    fn c8(&mut self, v: u8) -> Value {
        Value::Const(self.m.constants.intern(Constant { ty: self.i8t, kind: ConstKind::Int(v as u64) }))
    }
    fn cbool(&mut self, v: bool) -> Value {
        Value::Const(self.m.constants.intern(Constant { ty: self.i1t, kind: ConstKind::Int(v as u64) }))
    }
    fn undef(&mut self, ty: TypeId) -> Value {
        Value::Const(self.m.constants.intern(Constant { ty, kind: ConstKind::Undef }))
    }
    fn r(&mut self, n: u32) -> u32 {
        self.rng.next_u32() % n.max(1)
    }
    fn inst(&mut self, ty: TypeId, kind: InstKind) -> Value {
        let i = self.f.insts.push(Inst { name: None, ty, kind });
        self.f.blocks[self.cur].insts.push(i);
        Value::Inst(i)
    }
    fn block(&mut self) -> BlockId {
        let b = self.f.blocks.push(Block { name: None, insts: Vec::new(), terminator: Terminator::Unreachable });
        self.f.layout.push(b);
        b
    }
    fn term(&mut self, t: Terminator) {
        self.f.blocks[self.cur].terminator = t;
    }
    fn decl(&mut self, name: &str, ret: TypeId, params: Vec<TypeId>) -> Value {
        if let Some(&f) = self.decls.get(name) {
            return Value::Func(f);
        }
        let ty = self.m.types.intern(Type::Function { ret, params: params.clone(), var_arg: false });
        let f = self.m.functions.push(Function {
            name: name.into(),
            ty,
            ret,
            params: params.into_iter().map(|ty| Param { name: None, ty }).collect(),
            blocks: PrimaryMap::new(),
            insts: PrimaryMap::new(),
            layout: Vec::new(),
        });
        self.decls.insert(name.into(), f);
        Value::Func(f)
    }
    /// `call ret @dx.op.<class>.<ov>(i32 opcode, args...)`.
    fn dxop(
        &mut self,
        class: &str,
        ov: &str,
        op: untangle::dxil::DxOp,
        ret: TypeId,
        args: Vec<(TypeId, Value)>,
    ) -> Value {
        let name = if ov.is_empty() { format!("dx.op.{class}") } else { format!("dx.op.{class}.{ov}") };
        let mut params = vec![self.i32t];
        params.extend(args.iter().map(|a| a.0));
        let callee = self.decl(&name, ret, params);
        let opc = self.c32(op.number());
        let mut a: smallvec::SmallVec<[Value; 8]> = smallvec![opc];
        a.extend(args.into_iter().map(|x| x.1));
        self.inst(ret, InstKind::Call { callee, args: a })
    }
    fn bin(&mut self, op: BinaryOp, a: Value, b: Value, ty: TypeId) -> Value {
        self.inst(ty, InstKind::Binary { op, lhs: a, rhs: b, fast: false })
    }
    fn var_ptr(&mut self, float: bool, k: u32) -> Value {
        let (base, src) = if float { (self.fvars, self.f32t) } else { (self.vars, self.i32t) };
        let arr = self.m.types.intern(Type::Array { elem: src, len: VARS as u64 });
        let ptr_t = self.m.types.intern(Type::Pointer { pointee: src, addr_space: 0 });
        let z = self.c32(0);
        let kk = self.c32(k);
        self.inst(ptr_t, InstKind::GetElementPtr { source: arr, base, indices: smallvec![z, kk], in_bounds: true })
    }
    fn load_var(&mut self, float: bool, k: u32) -> Value {
        let p = self.var_ptr(float, k);
        let ty = if float { self.f32t } else { self.i32t };
        self.inst(ty, InstKind::Load { ptr: p, align: 4, volatile: false })
    }
    fn store_var(&mut self, float: bool, k: u32, v: Value) {
        let p = self.var_ptr(float, k);
        let void = self.void;
        self.inst(void, InstKind::Store { ptr: p, value: v, align: 4, volatile: false });
    }
    fn raw_load(&mut self, addr: Value) -> Value {
        let (h, rr, i32t, i8t) = (self.tt, self.resret, self.i32t, self.i8t);
        let und = self.undef(i32t);
        let (m, al) = (self.c8(1), self.c32(4));
        let handle_t = self.handle_t;
        let v = self.dxop(
            "rawBufferLoad",
            "i32",
            untangle::dxil::DxOp::RawBufferLoad,
            rr,
            vec![(handle_t, h), (i32t, addr), (i32t, und), (i8t, m), (i32t, al)],
        );
        self.inst(i32t, InstKind::ExtractValue { aggregate: v, indices: smallvec![0] })
    }
    /// `u0[addr] = v`, `v` an `i32` or (`float`) an `f32`: floats are stored as floats so
    /// that the comparison applies float rules (any NaN, either zero sign).
    fn raw_store(&mut self, addr: Value, v: Value, float: bool) {
        let (h, i32t, i8t, void, handle_t) = (self.ut, self.i32t, self.i8t, self.void, self.handle_t);
        let vt = if float { self.f32t } else { i32t };
        let und_i = self.undef(i32t);
        let und = self.undef(vt);
        let (m, al) = (self.c8(1), self.c32(4));
        self.dxop(
            "rawBufferStore",
            if float { "f32" } else { "i32" },
            untangle::dxil::DxOp::RawBufferStore,
            void,
            vec![
                (handle_t, h),
                (i32t, addr),
                (i32t, und_i),
                (vt, v),
                (vt, und),
                (vt, und),
                (vt, und),
                (i8t, m),
                (i32t, al),
            ],
        );
    }

    fn int_expr(&mut self, d: u32) -> Value {
        use untangle::dxil::DxOp as O;
        let i32t = self.i32t;
        if d == 0 || self.r(4) == 0 {
            return match self.r(5) {
                0 => {
                    let v = self.rng.next_u32();
                    let small = self.r(2) == 0;
                    self.c32(if small { v % 40 } else { v })
                }
                1 => self.tid,
                _ => {
                    let k = self.r(VARS);
                    self.load_var(false, k)
                }
            };
        }
        match self.r(16) {
            0..=5 => {
                let ops = [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::And, BinaryOp::Or, BinaryOp::Xor];
                let op = ops[self.r(6) as usize];
                let (a, b) = (self.int_expr(d - 1), self.int_expr(d - 1));
                self.bin(op, a, b, i32t)
            }
            6 => {
                let ops = [BinaryOp::Shl, BinaryOp::LShr, BinaryOp::AShr];
                let op = ops[self.r(3) as usize];
                let (a, b) = (self.int_expr(d - 1), self.int_expr(d - 1));
                let m31 = self.c32(31);
                let amt = self.bin(BinaryOp::And, b, m31, i32t);
                self.bin(op, a, amt, i32t)
            }
            7 => {
                let op = if self.r(2) == 0 { BinaryOp::UDiv } else { BinaryOp::URem };
                let (a, b) = (self.int_expr(d - 1), self.int_expr(d - 1));
                self.bin(op, a, b, i32t)
            }
            8 => {
                let preds = [
                    IntPredicate::Eq,
                    IntPredicate::Ne,
                    IntPredicate::Ult,
                    IntPredicate::Slt,
                    IntPredicate::Uge,
                    IntPredicate::Sgt,
                ];
                let pred = preds[self.r(6) as usize];
                let (a, b) = (self.int_expr(d - 1), self.int_expr(d - 1));
                let c = self.inst(self.i1t, InstKind::ICmp { pred, lhs: a, rhs: b });
                let (x, y) = (self.int_expr(d - 1), self.int_expr(d - 1));
                self.inst(i32t, InstKind::Select { cond: c, if_true: x, if_false: y })
            }
            9 => {
                let (op, name) = [(O::IMin, "binary"), (O::IMax, "binary"), (O::UMin, "binary"), (O::UMax, "binary")]
                    [self.r(4) as usize];
                let (a, b) = (self.int_expr(d - 1), self.int_expr(d - 1));
                self.dxop(name, "i32", op, i32t, vec![(i32t, a), (i32t, b)])
            }
            10 => {
                let (op, class) = [
                    (O::Countbits, "unaryBits"),
                    (O::FirstbitLo, "unaryBits"),
                    (O::FirstbitHi, "unaryBits"),
                    (O::FirstbitSHi, "unaryBits"),
                    (O::Bfrev, "unary"),
                ][self.r(5) as usize];
                let a = self.int_expr(d - 1);
                self.dxop(class, "i32", op, i32t, vec![(i32t, a)])
            }
            11 => {
                let op = [O::Ibfe, O::Ubfe][self.r(2) as usize];
                let (a, b, c) = (self.int_expr(d - 1), self.int_expr(d - 1), self.int_expr(d - 1));
                self.dxop("tertiary", "i32", op, i32t, vec![(i32t, a), (i32t, b), (i32t, c)])
            }
            12 => {
                let xs: Vec<Value> = (0..4).map(|_| self.int_expr(d - 1)).collect();
                self.dxop("quaternary", "i32", O::Bfi, i32t, xs.into_iter().map(|x| (i32t, x)).collect())
            }
            13 => {
                // fptosi of a float clamped to ±65536, fptoui to [0, 65536] (D3D's max/min
                // return the other operand for NaN, so the conversion is always defined).
                let f = self.float_expr(d - 1);
                let f32t = self.f32t;
                let unsigned = self.r(2) == 0;
                let low = if unsigned { 0.0f32 } else { -65536.0 };
                let lo = Value::Const(
                    self.m.constants.intern(Constant { ty: f32t, kind: ConstKind::Float(low.to_bits() as u64) }),
                );
                let hi = Value::Const(
                    self.m.constants.intern(Constant { ty: f32t, kind: ConstKind::Float(65536.0f32.to_bits() as u64) }),
                );
                let f = self.dxop("binary", "f32", O::FMax, f32t, vec![(f32t, f), (f32t, lo)]);
                let f = self.dxop("binary", "f32", O::FMin, f32t, vec![(f32t, f), (f32t, hi)]);
                let op = if unsigned { CastOp::FPToUI } else { CastOp::FPToSI };
                self.inst(i32t, InstKind::Cast { op, value: f })
            }
            14 => {
                // A load from t0 at a data-dependent word (out of bounds now and then).
                let a = self.int_expr(d - 1);
                let m = self.c32(INPUT_WORDS * 4 + 64 - 1);
                let a = self.bin(BinaryOp::And, a, m, i32t);
                let m4 = self.c32(!3);
                let a = self.bin(BinaryOp::And, a, m4, i32t);
                self.raw_load(a)
            }
            _ => {
                // float comparison selecting integers
                let preds = [FloatPredicate::Olt, FloatPredicate::Oeq, FloatPredicate::Uge, FloatPredicate::Une];
                let pred = preds[self.r(4) as usize];
                let (a, b) = (self.float_expr(d - 1), self.float_expr(d - 1));
                let c = self.inst(self.i1t, InstKind::FCmp { pred, lhs: a, rhs: b });
                let (x, y) = (self.int_expr(d - 1), self.int_expr(d - 1));
                self.inst(i32t, InstKind::Select { cond: c, if_true: x, if_false: y })
            }
        }
    }

    fn float_expr(&mut self, d: u32) -> Value {
        use untangle::dxil::DxOp as O;
        let f32t = self.f32t;
        if d == 0 || self.r(4) == 0 {
            return match self.r(3) {
                0 => {
                    let v = ((self.rng.next_u32() % 256) as i32 - 128) as f32 / 4.0;
                    Value::Const(
                        self.m.constants.intern(Constant { ty: f32t, kind: ConstKind::Float(v.to_bits() as u64) }),
                    )
                }
                _ => {
                    let k = self.r(VARS);
                    self.load_var(true, k)
                }
            };
        }
        match self.r(8) {
            0..=2 => {
                let op = [BinaryOp::FAdd, BinaryOp::FSub, BinaryOp::FMul][self.r(3) as usize];
                let (a, b) = (self.float_expr(d - 1), self.float_expr(d - 1));
                self.bin(op, a, b, f32t)
            }
            3 => {
                let op = [O::FMin, O::FMax][self.r(2) as usize];
                let (a, b) = (self.float_expr(d - 1), self.float_expr(d - 1));
                self.dxop("binary", "f32", op, f32t, vec![(f32t, a), (f32t, b)])
            }
            4 => {
                let op = [O::FAbs, O::Round_ne, O::Round_ni, O::Round_pi, O::Round_z, O::Saturate][self.r(6) as usize];
                let a = self.float_expr(d - 1);
                self.dxop("unary", "f32", op, f32t, vec![(f32t, a)])
            }
            5 => {
                let a = self.int_expr(d - 1);
                let op = if self.r(2) == 0 { CastOp::SIToFP } else { CastOp::UIToFP };
                self.inst(f32t, InstKind::Cast { op, value: a })
            }
            6 => {
                let a = self.float_expr(d - 1);
                self.inst(f32t, InstKind::FNeg { value: a })
            }
            _ => {
                let a = self.int_expr(d - 1);
                let m = self.c32(0x87ff_ffff);
                let a = self.bin(BinaryOp::And, a, m, self.i32t);
                let bias = self.c32(0x3c00_0000);
                // Reinterpreted bits kept in ±[2^-7, 2): products stay far from the
                // denormals, whose flushing D3D leaves open.
                let a = self.bin(BinaryOp::Or, a, bias, self.i32t);
                self.inst(f32t, InstKind::Cast { op: CastOp::BitCast, value: a })
            }
        }
    }

    fn cond(&mut self) -> Value {
        let a = self.int_expr(2);
        let b = self.int_expr(1);
        let pred = [IntPredicate::Ult, IntPredicate::Sgt, IntPredicate::Eq, IntPredicate::Ne][self.r(4) as usize];
        self.inst(self.i1t, InstKind::ICmp { pred, lhs: a, rhs: b })
    }

    fn assign(&mut self) {
        let k = self.r(VARS);
        if self.r(3) == 0 {
            let v = self.float_expr(3);
            self.store_var(true, k, v);
        } else {
            let v = self.int_expr(3);
            self.store_var(false, k, v);
        }
    }

    fn vec_t(&mut self, float: bool, n: u32) -> TypeId {
        let elem = if float { self.f32t } else { self.i32t };
        self.m.types.intern(Type::Vector { elem, len: n })
    }
    /// `v0 v1 ...`: the overload suffix of a `<n x i32|float>`.
    fn vec_ov(float: bool, n: u32) -> String {
        format!("v{n}{}", if float { "f32" } else { "i32" })
    }
    fn cf32(&mut self, v: f32) -> Value {
        let f32t = self.f32t;
        Value::Const(self.m.constants.intern(Constant { ty: f32t, kind: ConstKind::Float(v.to_bits() as u64) }))
    }
    /// `<n x T>` with every lane `x`: `insertelement` into lane 0 and a zero-mask shuffle.
    fn splat(&mut self, x: Value, float: bool, n: u32) -> Value {
        let vt = self.vec_t(float, n);
        let und = self.undef(vt);
        let z = self.c32(0);
        let one = self.inst(vt, InstKind::InsertElement { vector: und, element: x, index: z });
        self.inst(vt, InstKind::ShuffleVector { lhs: one, rhs: und, mask: vec![0; n as usize] })
    }
    /// A lane index in `[0, n)` computed from data.
    fn lane_index(&mut self, n: u32) -> Value {
        let i32t = self.i32t;
        let x = self.int_expr(1);
        let nn = self.c32(n);
        self.bin(BinaryOp::URem, x, nn, i32t)
    }
    /// `rawBufferVectorLoad` of `<n x T>` from `t0` at a data-dependent aligned byte
    /// address; the last lanes past the end now and then (they read 0).
    fn vec_load(&mut self, float: bool, n: u32) -> Value {
        let (i32t, handle_t, h) = (self.i32t, self.handle_t, self.tt);
        let vt = self.vec_t(float, n);
        let name = format!("dx.types.ResRet.{}", Self::vec_ov(float, n));
        let rr = self.m.types.intern(Type::Named(name));
        self.m.types.set_body(rr, StructBody { fields: Some(vec![vt, i32t]), packed: false });
        // A word in [0, INPUT_WORDS + 8): the last lanes past the end now and then.
        let a = self.int_expr(1);
        let words = self.c32(INPUT_WORDS + 8);
        let a = self.bin(BinaryOp::URem, a, words, i32t);
        let four = self.c32(4);
        let a = self.bin(BinaryOp::Mul, a, four, i32t);
        let und = self.undef(i32t);
        let al = self.c32(4);
        let ov = Self::vec_ov(float, n);
        let v = self.dxop(
            "rawBufferVectorLoad",
            &ov,
            untangle::dxil::DxOp::RawBufferVectorLoad,
            rr,
            vec![(handle_t, h), (i32t, a), (i32t, und), (i32t, al)],
        );
        self.inst(vt, InstKind::ExtractValue { aggregate: v, indices: smallvec![0] })
    }
    /// A `<n x T>` operand: a load, a splat of an expression, or `v` itself.
    fn vec_operand(&mut self, v: Value, float: bool, n: u32) -> Value {
        match self.r(3) {
            0 => self.vec_load(float, n),
            1 if float => {
                let x = self.float_expr(1);
                self.splat(x, true, n)
            }
            1 => {
                let x = self.int_expr(1);
                self.splat(x, false, n)
            }
            _ => v,
        }
    }
    /// One lane-wise operation on `v` (`<n x i32>` or `<n x float>`, same type out).
    fn vec_op(&mut self, v: Value, float: bool, n: u32) -> Value {
        use untangle::dxil::DxOp as O;
        let vt = self.vec_t(float, n);
        let ov = Self::vec_ov(float, n);
        if float {
            match self.r(8) {
                0..=1 => {
                    let op = [BinaryOp::FAdd, BinaryOp::FSub, BinaryOp::FMul][self.r(3) as usize];
                    let w = self.vec_operand(v, true, n);
                    self.bin(op, v, w, vt)
                }
                2 => self.inst(vt, InstKind::FNeg { value: v }),
                3 => {
                    let op = [O::FMin, O::FMax][self.r(2) as usize];
                    let w = self.vec_operand(v, true, n);
                    self.dxop("binary", &ov, op, vt, vec![(vt, v), (vt, w)])
                }
                4 => {
                    let op =
                        [O::FAbs, O::Round_ne, O::Round_ni, O::Round_pi, O::Round_z, O::Saturate][self.r(6) as usize];
                    self.dxop("unary", &ov, op, vt, vec![(vt, v)])
                }
                5 => {
                    let (w, x) = (self.vec_operand(v, true, n), self.vec_operand(v, true, n));
                    self.dxop("tertiary", &ov, O::FMad, vt, vec![(vt, v), (vt, w), (vt, x)])
                }
                6 => {
                    let pred = [FloatPredicate::Olt, FloatPredicate::Oeq, FloatPredicate::Uge, FloatPredicate::Une]
                        [self.r(4) as usize];
                    let w = self.vec_operand(v, true, n);
                    let ct = self.m.types.intern(Type::Vector { elem: self.i1t, len: n });
                    let c = self.inst(ct, InstKind::FCmp { pred, lhs: v, rhs: w });
                    self.inst(vt, InstKind::Select { cond: c, if_true: v, if_false: w })
                }
                _ => {
                    // Through integers and back: clamped, `fptosi`, integer work, `sitofp`.
                    let (lo, hi) = (self.cf32(-65536.0), self.cf32(65536.0));
                    let (lo, hi) = (self.splat(lo, true, n), self.splat(hi, true, n));
                    let c = self.dxop("binary", &ov, O::FMax, vt, vec![(vt, v), (vt, lo)]);
                    let c = self.dxop("binary", &ov, O::FMin, vt, vec![(vt, c), (vt, hi)]);
                    let it = self.vec_t(false, n);
                    let i = self.inst(it, InstKind::Cast { op: CastOp::FPToSI, value: c });
                    let i = self.vec_op(i, false, n);
                    let op = if self.r(2) == 0 { CastOp::SIToFP } else { CastOp::UIToFP };
                    self.inst(vt, InstKind::Cast { op, value: i })
                }
            }
        } else {
            match self.r(9) {
                0..=1 => {
                    let ops = [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::And, BinaryOp::Or, BinaryOp::Xor];
                    let op = ops[self.r(6) as usize];
                    let w = self.vec_operand(v, false, n);
                    self.bin(op, v, w, vt)
                }
                2 => {
                    let op = [BinaryOp::Shl, BinaryOp::LShr, BinaryOp::AShr][self.r(3) as usize];
                    let x = self.int_expr(1);
                    let m31 = self.c32(31);
                    let i32t = self.i32t;
                    let x = self.bin(BinaryOp::And, x, m31, i32t);
                    let amt = self.splat(x, false, n);
                    self.bin(op, v, amt, vt)
                }
                3 => {
                    let op = if self.r(2) == 0 { BinaryOp::UDiv } else { BinaryOp::URem };
                    let w = self.vec_operand(v, false, n);
                    self.bin(op, v, w, vt)
                }
                4 => {
                    let op = [O::IMin, O::IMax, O::UMin, O::UMax][self.r(4) as usize];
                    let w = self.vec_operand(v, false, n);
                    self.dxop("binary", &ov, op, vt, vec![(vt, v), (vt, w)])
                }
                5 => {
                    // IMad (the vector overloads of Countbits and Bfrev aren't lowered).
                    let (w, x) = (self.vec_operand(v, false, n), self.vec_operand(v, false, n));
                    self.dxop("tertiary", &ov, O::IMad, vt, vec![(vt, v), (vt, w), (vt, x)])
                }
                6 => {
                    let pred =
                        [IntPredicate::Eq, IntPredicate::Ult, IntPredicate::Slt, IntPredicate::Sgt][self.r(4) as usize];
                    let w = self.vec_operand(v, false, n);
                    let ct = self.m.types.intern(Type::Vector { elem: self.i1t, len: n });
                    let c = self.inst(ct, InstKind::ICmp { pred, lhs: v, rhs: w });
                    self.inst(vt, InstKind::Select { cond: c, if_true: v, if_false: w })
                }
                7 => {
                    // A shuffle of `v` and another vector, lanes from either.
                    let w = self.vec_operand(v, false, n);
                    let mask = (0..n).map(|_| self.r(2 * n) as i32).collect();
                    self.inst(vt, InstKind::ShuffleVector { lhs: v, rhs: w, mask })
                }
                _ => {
                    // A lane replaced at a dynamic index.
                    let x = self.int_expr(1);
                    let i = self.lane_index(n);
                    self.inst(vt, InstKind::InsertElement { vector: v, element: x, index: i })
                }
            }
        }
    }

    /// A vector statement (see [`generate_with`]): a vector from `t0`, a few lane-wise
    /// operations (one `if`/`else` joining in a PHI now and then), and its results to
    /// variables and to `u1`.
    fn vector_stmt(&mut self) {
        use untangle::dxil::DxOp as O;
        let class = VECTOR_LENGTHS[self.r(3) as usize].clone();
        let n = class.start() + self.r(class.end() - class.start() + 1);
        let float = self.r(2) == 0;
        let (i32t, f32t, i1t) = (self.i32t, self.f32t, self.i1t);
        let vt = self.vec_t(float, n);
        let ov = Self::vec_ov(float, n);
        let mut v = if float && self.r(4) != 0 {
            // Small integers converted: exact lanes (loaded float bits are often denormal).
            let i = self.vec_load(false, n);
            let m = self.c32(0xfff);
            let m = self.splat(m, false, n);
            let it = self.vec_t(false, n);
            let i = self.bin(BinaryOp::And, i, m, it);
            self.inst(vt, InstKind::Cast { op: CastOp::SIToFP, value: i })
        } else {
            self.vec_load(float, n)
        };
        for _ in 0..1 + self.r(2) {
            v = self.vec_op(v, float, n);
        }
        if self.r(3) == 0 {
            let c = self.cond();
            let (t, e, j) = (self.block(), self.block(), self.block());
            self.term(Terminator::CondBr { cond: c, if_true: t, if_false: e });
            self.cur = t;
            let vt_ = self.vec_op(v, float, n);
            let t_end = self.cur;
            self.term(Terminator::Br { target: j });
            self.cur = e;
            let ve = self.vec_op(v, float, n);
            let e_end = self.cur;
            self.term(Terminator::Br { target: j });
            self.cur = j;
            v = self.inst(vt, InstKind::Phi { incoming: smallvec![(vt_, t_end), (ve, e_end)] });
        }
        // Results: a scalar to a variable ...
        let k = self.r(VARS);
        match self.r(4) {
            0 => {
                let i = self.lane_index(n);
                let x = self.inst(if float { f32t } else { i32t }, InstKind::ExtractElement { vector: v, index: i });
                self.store_var(float, k, x);
            }
            1 if float && n <= 4 => {
                let w = self.vec_operand(v, true, n);
                let d = self.dxop("dot", &ov, O::FDot, f32t, vec![(vt, v), (vt, w)]);
                self.store_var(true, k, d);
            }
            1 | 2 if float => {
                // Which lanes are NaN/infinite/finite: an `i1` vector, reduced and stored
                // with the others to `u1` (not to a variable: a float computed from loaded
                // bits is often undefined, and a variable may steer control flow).
                let op = [O::IsNaN, O::IsInf, O::IsFinite][self.r(3) as usize];
                let ct = self.m.types.intern(Type::Vector { elem: i1t, len: n });
                let c = self.dxop("isSpecialFloat", &ov, op, ct, vec![(vt, v)]);
                let it = self.vec_t(false, n);
                let z = self.inst(it, InstKind::Cast { op: CastOp::ZExt, value: c });
                let rop = [O::VectorReduceAnd, O::VectorReduceOr][self.r(2) as usize];
                let iov = Self::vec_ov(false, n);
                let x = self.dxop("vectorReduce", &iov, rop, i32t, vec![(it, z)]);
                let lane = self.c32(0);
                let z = self.inst(it, InstKind::InsertElement { vector: z, element: x, index: lane });
                self.vec_store(z, false, n);
            }
            _ if !float => {
                let rop = [O::VectorReduceAnd, O::VectorReduceOr][self.r(2) as usize];
                let x = self.dxop("vectorReduce", &ov, rop, i32t, vec![(vt, v)]);
                self.store_var(false, k, x);
            }
            _ => {
                let z = self.c32(n - 1);
                let x = self.inst(f32t, InstKind::ExtractElement { vector: v, index: z });
                self.store_var(true, k, x);
            }
        }
        // ... and the vector to the thread's element of `u1`.
        if self.r(3) != 0 {
            self.vec_store(v, float, n);
        }
    }

    /// `rawBufferVectorStore` of `v` to the thread's element of `u1`, at a lane offset that
    /// keeps it inside the element.
    fn vec_store(&mut self, v: Value, float: bool, n: u32) {
        use untangle::dxil::DxOp as O;
        let (i32t, handle_t) = (self.i32t, self.handle_t);
        let vt = self.vec_t(float, n);
        let ov = Self::vec_ov(float, n);
        {
            let sb = self.sb.expect("long-vector mode");
            let slack = VECTOR_STRIDE / 4 - n + 1;
            let o = self.int_expr(1);
            let sl = self.c32(slack);
            let o = self.bin(BinaryOp::URem, o, sl, i32t);
            let four = self.c32(4);
            let o = self.bin(BinaryOp::Mul, o, four, i32t);
            let (void, tid, al) = (self.void, self.tid, self.c32(4));
            self.dxop(
                "rawBufferVectorStore",
                &ov,
                O::RawBufferVectorStore,
                void,
                vec![(handle_t, sb), (i32t, tid), (i32t, o), (vt, v), (i32t, al)],
            );
        }
    }

    /// Uniform-only statements: a wave operation or a groupshared exchange.
    fn uniform_stmt(&mut self) {
        use untangle::dxil::DxOp as O;
        let (i32t, i8t) = (self.i32t, self.i8t);
        let k = self.r(VARS);
        let x = self.load_var(false, k);
        let v = match self.r(if self.returned { 5 } else { 7 }) {
            0 => {
                let (kr, sr) = ([0u8, 2, 3][self.r(3) as usize], self.r(2) as u8);
                let (kind, sop) = (self.c8(kr), self.c8(sr));
                self.dxop("waveActiveOp", "i32", O::WaveActiveOp, i32t, vec![(i32t, x), (i8t, kind), (i8t, sop)])
            }
            1 => {
                let kr = self.r(3) as u8;
                let kind = self.c8(kr);
                self.dxop("waveActiveBit", "i32", O::WaveActiveBit, i32t, vec![(i32t, x), (i8t, kind)])
            }
            2 => self.dxop("waveReadLaneFirst", "i32", O::WaveReadLaneFirst, i32t, vec![(i32t, x)]),
            3 => {
                let c = self.cond();
                let i1t = self.i1t;
                self.dxop("waveAllOp", "", O::WaveAllBitCount, i32t, vec![(i1t, c)])
            }
            4 => {
                let (kind, sop) = (self.c8(0), self.c8(1));
                self.dxop("wavePrefixOp", "i32", O::WavePrefixOp, i32t, vec![(i32t, x), (i8t, kind), (i8t, sop)])
            }
            _ => {
                // gs[tid] = x; barrier; x = gs[(tid + s) % THREADS]; barrier
                let gs_arr = self.m.types.intern(Type::Array { elem: i32t, len: THREADS as u64 });
                let pt = self.m.types.intern(Type::Pointer { pointee: i32t, addr_space: 3 });
                let (z, tid, void) = (self.c32(0), self.tid, self.void);
                let p = self.inst(
                    pt,
                    InstKind::GetElementPtr {
                        source: gs_arr,
                        base: self.gs,
                        indices: smallvec![z, tid],
                        in_bounds: true,
                    },
                );
                self.inst(void, InstKind::Store { ptr: p, value: x, align: 4, volatile: false });
                let flags = self.c32(9);
                self.dxop("barrier", "", O::Barrier, void, vec![(i32t, flags)]);
                let sr = 1 + self.r(THREADS - 1);
                let s = self.c32(sr);
                let j = self.bin(BinaryOp::Add, tid, s, i32t);
                let m = self.c32(THREADS - 1);
                let j = self.bin(BinaryOp::And, j, m, i32t);
                let q = self.inst(
                    pt,
                    InstKind::GetElementPtr {
                        source: gs_arr,
                        base: self.gs,
                        indices: smallvec![z, j],
                        in_bounds: true,
                    },
                );
                let v = self.inst(i32t, InstKind::Load { ptr: q, align: 4, volatile: false });
                self.dxop("barrier", "", O::Barrier, void, vec![(i32t, flags)]);
                v
            }
        };
        let k2 = self.r(VARS);
        self.store_var(false, k2, v);
    }

    /// Statements; `loop_ctx`: (continue target, break target) of the innermost loop.
    fn stmts(&mut self, n: u32, loop_ctx: Option<(BlockId, BlockId)>, exit: BlockId, uniform: bool) {
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            let pick = self.r(if self.depth >= 3 { 3 } else { 10 });
            if self.sb.is_some() && self.r(8) == 0 {
                self.vector_stmt();
                continue;
            }
            match pick {
                0 | 1 => self.assign(),
                2 if uniform => self.uniform_stmt(),
                2 => self.assign(),
                3 | 4 => {
                    // if / else
                    let c = self.cond();
                    let (t, e, j) = (self.block(), self.block(), self.block());
                    self.term(Terminator::CondBr { cond: c, if_true: t, if_false: e });
                    self.depth += 1;
                    self.cur = t;
                    let k = 1 + self.r(3);
                    self.stmts(k, loop_ctx, exit, false);
                    self.term(Terminator::Br { target: j });
                    self.cur = e;
                    let k = self.r(3);
                    self.stmts(k, loop_ctx, exit, false);
                    self.term(Terminator::Br { target: j });
                    self.depth -= 1;
                    self.cur = j;
                }
                5 | 6 => self.counted_loop(exit),
                7 => {
                    // switch on a small value
                    let i32t = self.i32t;
                    let v = self.int_expr(2);
                    let m = self.c32(3);
                    let v = self.bin(BinaryOp::And, v, m, i32t);
                    let (d, j) = (self.block(), self.block());
                    let ncase = 1 + self.r(3);
                    let mut cases = Vec::new();
                    let mut bodies = Vec::new();
                    for c in 0..ncase {
                        let b = self.block();
                        cases.push((c as u64, b));
                        bodies.push(b);
                    }
                    self.term(Terminator::Switch { value: v, default: d, cases });
                    self.depth += 1;
                    for b in bodies.into_iter().chain([d]) {
                        self.cur = b;
                        let k = 1 + self.r(2);
                        self.stmts(k, loop_ctx, exit, false);
                        self.term(Terminator::Br { target: j });
                    }
                    self.depth -= 1;
                    self.cur = j;
                }
                8 if loop_ctx.is_some() => {
                    // if (c) break|continue
                    let (cont, brk) = loop_ctx.expect("checked");
                    let c = self.cond();
                    let next = self.block();
                    let target = if self.r(2) == 0 { cont } else { brk };
                    self.term(Terminator::CondBr { cond: c, if_true: target, if_false: next });
                    self.cur = next;
                }
                9 if self.r(4) == 0 => {
                    // if (c) return
                    let c = self.cond();
                    let next = self.block();
                    self.returned = true;
                    self.term(Terminator::CondBr { cond: c, if_true: exit, if_false: next });
                    self.cur = next;
                }
                _ => self.assign(),
            }
        }
    }

    /// `for (i = 0; i < (x & 7); i++) { body }` with the counter in its own alloca.
    fn counted_loop(&mut self, exit: BlockId) {
        let (i32t, void) = (self.i32t, self.void);
        let ctr_t = self.m.types.intern(Type::Pointer { pointee: i32t, addr_space: 0 });
        let one = self.c32(1);
        let ctr = self.inst(ctr_t, InstKind::Alloca { allocated: i32t, count: one, align: 4 });
        let z = self.c32(0);
        self.inst(void, InstKind::Store { ptr: ctr, value: z, align: 4, volatile: false });
        let x = self.int_expr(2);
        let m = self.c32(7);
        let n = self.bin(BinaryOp::And, x, m, i32t);
        let (header, body, latch, after) = (self.block(), self.block(), self.block(), self.block());
        self.term(Terminator::Br { target: header });
        self.cur = header;
        let i = self.inst(i32t, InstKind::Load { ptr: ctr, align: 4, volatile: false });
        let c = self.inst(self.i1t, InstKind::ICmp { pred: IntPredicate::Ult, lhs: i, rhs: n });
        self.term(Terminator::CondBr { cond: c, if_true: body, if_false: after });
        self.cur = body;
        self.depth += 1;
        let k = 1 + self.r(3);
        self.stmts(k, Some((latch, after)), exit, false);
        self.depth -= 1;
        self.term(Terminator::Br { target: latch });
        self.cur = latch;
        let i = self.inst(i32t, InstKind::Load { ptr: ctr, align: 4, volatile: false });
        let i1 = self.bin(BinaryOp::Add, i, one, i32t);
        self.inst(void, InstKind::Store { ptr: ctr, value: i1, align: 4, volatile: false });
        self.term(Terminator::Br { target: header });
        self.cur = after;
    }
}

/// Metadata helpers.
fn md_i32(m: &mut Module, ty: TypeId, v: u64) -> MdId {
    let c = m.constants.intern(Constant { ty, kind: ConstKind::Int(v) });
    m.metadata.push_value(ty, Value::Const(c))
}

/// What a generated program may use.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// Shader Model 6.9 native vectors of 2 to 32 lanes and the DXIL 1.9 vector operations
    /// (see [`generate_with`]).
    pub long_vectors: bool,
}

/// A random program from `seed`: a DXIL SM 6.0 compute module (see the module docs).
pub fn generate(seed: u64) -> Module {
    generate_with(seed, Config::default())
}

/// A random program from `seed` under `config`. With [`Config::long_vectors`] the module
/// is SM 6.9 (DXIL 1.9) and has a `RWStructuredBuffer` `u1` of [`VECTOR_STRIDE`]-byte
/// elements; its statements include vector statements ([`VECTOR_LENGTHS`]): a
/// `RawBufferVectorLoad` from `t0` (out of bounds now and then), lane-wise arithmetic,
/// comparisons and selects, conversions, shuffles, dynamic inserts and extracts, the
/// vector overloads of `FMin FMax FAbs Round_* Saturate FMad IMad IMin IMax UMin UMax`, a PHI of vectors across an `if`, and results through
/// `VectorReduceAnd`/`Or`, `FDot` (2–4 lanes: the translator refuses it on longer
/// vectors), vector `IsNaN`/`IsInf`/`IsFinite`, extracts, and `RawBufferVectorStore`s
/// to the thread's element of `u1` (never past its stride: no thread writes another's).
/// Programs of one seed differ between the modes.
pub fn generate_with(seed: u64, config: Config) -> Module {
    let mut m = Module { source_name: format!("gen-{seed}"), ..Module::default() };
    let t = &mut m.types;
    let void = t.intern(Type::Void);
    let i1t = t.intern(Type::Int(1));
    let i8t = t.intern(Type::Int(8));
    let i32t = t.intern(Type::Int(32));
    let i64t = t.intern(Type::Int(64));
    let f32t = t.intern(Type::Float(FloatKind::Float));
    let i8p = t.intern(Type::Pointer { pointee: i8t, addr_space: 0 });
    let handle_t = t.intern(Type::Named("dx.types.Handle".into()));
    t.set_body(handle_t, StructBody { fields: Some(vec![i8p]), packed: false });
    let resret = t.intern(Type::Named("dx.types.ResRet.i32".into()));
    t.set_body(resret, StructBody { fields: Some(vec![i32t; 5]), packed: false });
    let rw = t.intern(Type::Named("struct.RWByteAddressBuffer".into()));
    t.set_body(rw, StructBody { fields: Some(vec![i32t]), packed: false });
    let ro = t.intern(Type::Named("struct.ByteAddressBuffer".into()));
    t.set_body(ro, StructBody { fields: Some(vec![i32t]), packed: false });
    let rwp = t.intern(Type::Pointer { pointee: rw, addr_space: 0 });
    let rop = t.intern(Type::Pointer { pointee: ro, addr_space: 0 });
    let fn_t = t.intern(Type::Function { ret: void, params: vec![], var_arg: false });
    let fn_p = t.intern(Type::Pointer { pointee: fn_t, addr_space: 0 });
    let gs_arr = t.intern(Type::Array { elem: i32t, len: THREADS as u64 });
    let gs_p = t.intern(Type::Pointer { pointee: gs_arr, addr_space: 3 });
    let gs = m.globals.push(Global {
        name: "gs".into(),
        value_ty: gs_arr,
        ty: gs_p,
        addr_space: 3,
        is_constant: false,
        initializer: None,
        align: 4,
    });
    let main = m.functions.push(Function {
        name: "main".into(),
        ty: fn_t,
        ret: void,
        params: vec![],
        blocks: PrimaryMap::new(),
        insts: PrimaryMap::new(),
        layout: vec![],
    });
    let f = std::mem::replace(
        &mut m.functions[main],
        Function {
            name: String::new(),
            ty: fn_t,
            ret: void,
            params: vec![],
            blocks: PrimaryMap::new(),
            insts: PrimaryMap::new(),
            layout: vec![],
        },
    );
    let mut b = B {
        m,
        f,
        cur: BlockId::from_u32(0),
        rng: SplitMix64::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x6e6),
        i32t,
        f32t,
        i1t,
        i8t,
        void,
        handle_t,
        resret,
        vars: Value::Metadata,
        fvars: Value::Metadata,
        gs: Value::Global(gs),
        ut: Value::Metadata,
        tt: Value::Metadata,
        tid: Value::Metadata,
        decls: Default::default(),
        depth: 0,
        budget: 12 + (seed % 24) as u32,
        returned: false,
        sb: None,
    };
    let entry = b.block();
    let exit_store = b.block();
    let exit = b.block();
    b.cur = entry;
    use untangle::dxil::DxOp as O;
    let (one_u8, zero, f) = (b.c8(1), b.c32(0), b.cbool(false));
    let _ = one_u8;
    let (c0, c1) = (b.c8(0), b.c8(1));
    let ut =
        b.dxop("createHandle", "", O::CreateHandle, handle_t, vec![(i8t, c1), (i32t, zero), (i32t, zero), (i1t, f)]);
    let tt =
        b.dxop("createHandle", "", O::CreateHandle, handle_t, vec![(i8t, c0), (i32t, zero), (i32t, zero), (i1t, f)]);
    b.ut = ut;
    b.tt = tt;
    b.tid = b.dxop("flattenedThreadIdInGroup", "i32", O::FlattenedThreadIdInGroup, i32t, vec![]);
    if config.long_vectors {
        let one = b.c32(1);
        b.sb = Some(b.dxop(
            "createHandle",
            "",
            O::CreateHandle,
            handle_t,
            vec![(i8t, c1), (i32t, one), (i32t, one), (i1t, f)],
        ));
    }
    let arr = b.m.types.intern(Type::Array { elem: i32t, len: VARS as u64 });
    let farr = b.m.types.intern(Type::Array { elem: f32t, len: VARS as u64 });
    let arr_p = b.m.types.intern(Type::Pointer { pointee: arr, addr_space: 0 });
    let farr_p = b.m.types.intern(Type::Pointer { pointee: farr, addr_space: 0 });
    let one = b.c32(1);
    b.vars = b.inst(arr_p, InstKind::Alloca { allocated: arr, count: one, align: 4 });
    b.fvars = b.inst(farr_p, InstKind::Alloca { allocated: farr, count: one, align: 4 });
    // Initial values: t0[(tid * 2 * VARS + k) * 4].
    for k in 0..2 * VARS {
        let base = b.c32(2 * VARS);
        let w = b.bin(BinaryOp::Mul, b.tid, base, i32t);
        let kk = b.c32(k);
        let w = b.bin(BinaryOp::Add, w, kk, i32t);
        let four = b.c32(4);
        let a = b.bin(BinaryOp::Mul, w, four, i32t);
        let v = b.raw_load(a);
        if k < VARS {
            b.store_var(false, k, v);
        } else {
            // Converted, not reinterpreted: small integers' bits are denormal floats,
            // whose flushing D3D leaves open (every comparison of them undefined).
            let fv = b.inst(f32t, InstKind::Cast { op: CastOp::SIToFP, value: v });
            b.store_var(true, k - VARS, fv);
        }
    }
    if config.long_vectors {
        b.vector_stmt();
    }
    let n = 3 + b.r(6);
    b.stmts(n, None, exit, true);
    b.term(Terminator::Br { target: exit_store });
    b.cur = exit_store;
    for k in 0..2 * VARS {
        let v = if k < VARS { b.load_var(false, k) } else { b.load_var(true, k - VARS) };
        let base = b.c32(2 * VARS);
        let w = b.bin(BinaryOp::Mul, b.tid, base, i32t);
        let kk = b.c32(k);
        let w = b.bin(BinaryOp::Add, w, kk, i32t);
        let four = b.c32(4);
        let a = b.bin(BinaryOp::Mul, w, four, i32t);
        b.raw_store(a, v, k >= VARS);
    }
    b.term(Terminator::Br { target: exit });
    b.cur = exit;
    b.term(Terminator::Ret { value: None });
    // Blocks in creation order are not a valid layout (the exit blocks came early): put the
    // exit-store and exit blocks last.
    b.f.layout.retain(|&x| x != exit_store && x != exit);
    b.f.layout.push(exit_store);
    b.f.layout.push(exit);
    let B { mut m, f, .. } = b;
    m.functions[main] = Function { name: "main".into(), ..f };
    // Metadata: shader model, resources, entry point.
    let sm_s = m.metadata.push_string("cs");
    let minor = if config.long_vectors { 9 } else { 0 };
    let (v6, v0) = (md_i32(&mut m, i32t, 6), md_i32(&mut m, i32t, minor));
    let sm = m.metadata.push_node(&[Some(sm_s), Some(v6), Some(v0)]);
    m.metadata.set_named("dx.shaderModel", &[sm]);
    let (one_md, ver0) = (md_i32(&mut m, i32t, 1), md_i32(&mut m, i32t, minor));
    let ver = m.metadata.push_node(&[Some(one_md), Some(ver0)]);
    m.metadata.set_named("dx.version", &[ver]);
    // (range id, pointer type, name, register, shape, structure stride)
    let record = |m: &mut Module, id: u64, ptr_t: TypeId, name: &str, uav: bool, shape: u64, stride: Option<u64>| {
        let und = m.constants.intern(Constant { ty: ptr_t, kind: ConstKind::Undef });
        let var = m.metadata.push_value(ptr_t, Value::Const(und));
        let name = m.metadata.push_string(name);
        let (id, space, lb, size, shape) =
            (md_i32(m, i32t, id), md_i32(m, i32t, 0), md_i32(m, i32t, id), md_i32(m, i32t, 1), md_i32(m, i32t, shape));
        let mut ops = vec![Some(id), Some(var), Some(name), Some(space), Some(lb), Some(size), Some(shape)];
        let extra = stride.map(|st| {
            let (tag, st) = (md_i32(m, i32t, 1), md_i32(m, i32t, st));
            m.metadata.push_node(&[Some(tag), Some(st)])
        });
        if uav {
            let fb = md_i32(m, i1t, 0);
            ops.extend([Some(fb), Some(fb), Some(fb), extra]);
        } else {
            let sc = md_i32(m, i32t, 0);
            ops.extend([Some(sc), extra]);
        }
        m.metadata.push_node(&ops)
    };
    let srv = record(&mut m, 0, rop, "t0", false, 11, None);
    let uav = record(&mut m, 0, rwp, "u0", true, 11, None);
    let mut uav_list = vec![Some(uav)];
    if config.long_vectors {
        let words = m.types.intern(Type::Array { elem: i32t, len: VECTOR_STRIDE as u64 / 4 });
        let st = m.types.intern(Type::Named("struct.VectorElement".into()));
        m.types.set_body(st, StructBody { fields: Some(vec![words]), packed: false });
        let stp = m.types.intern(Type::Pointer { pointee: st, addr_space: 0 });
        uav_list.push(Some(record(&mut m, 1, stp, "u1", true, 12, Some(VECTOR_STRIDE as u64))));
    }
    let srvs = m.metadata.push_node(&[Some(srv)]);
    let uavs = m.metadata.push_node(&uav_list);
    let res = m.metadata.push_node(&[Some(srvs), Some(uavs), None, None]);
    m.metadata.set_named("dx.resources", &[res]);
    let fmd = m.metadata.push_value(fn_p, Value::Func(main));
    let name = m.metadata.push_string("main");
    let (tag0, flags, tag4) = (md_i32(&mut m, i32t, 0), md_i32(&mut m, i64t, 0), md_i32(&mut m, i32t, 4));
    let (nx, n1) = (md_i32(&mut m, i32t, THREADS as u64), md_i32(&mut m, i32t, 1));
    let nt = m.metadata.push_node(&[Some(nx), Some(n1), Some(n1)]);
    let props = m.metadata.push_node(&[Some(tag0), Some(flags), Some(tag4), Some(nt)]);
    let ep = m.metadata.push_node(&[Some(fmd), Some(name), None, Some(res), Some(props)]);
    m.metadata.set_named("dx.entryPoints", &[ep]);
    m
}

/// The program as LLVM-like text (untangle's IR dump), for triage.
pub fn dump(m: &Module) -> String {
    let d = untangle::ir::dump::Dumper::new(m);
    m.functions.iter().map(|(_, f)| d.function(f)).collect::<Vec<_>>().join("\n")
}
