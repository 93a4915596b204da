//! Calls synthesized from an operation's DXIL signature ([`untangle::dxil::op_facts::signature`]): every
//! overload the signature lists, every operand fed from the invocation's input words (so
//! nothing is a constant the translator could fold), immediates from [`immediate_choices`],
//! and every result word stored. The same words-to-values and values-to-words rules are the
//! contract [`super::reference`] computes expectations with.
//!
//! Inputs: eight `i32` words at byte `32 * tid` of `out` (`tid` is the thread id x in compute
//! shaders, 0 elsewhere); a scalar operand takes the next one (two for 64-bit types, low
//! first), cycling. Outputs: the result's words at byte [`OUT_BASE`] `+ 64 * tid`, 16 at
//! most. Conversions: `i1` is bit 0 of its word, `i8`/`i16`/`half` the low bits, 64-bit
//! values two words; results are zero-extended back to words (`i1` to 0 or 1).

use std::collections::BTreeSet;
use untangle::dxil::op_facts::ParamTy;
use untangle::dxil::DxOp;

/// Byte offset of the output words.
pub const OUT_BASE: u32 = 4096;
/// Input words per invocation.
pub const INPUT_WORDS: usize = 8;
/// Output words per invocation.
pub const OUTPUT_WORDS: usize = 16;

/// A scalar LLVM type, by DXC overload letter.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Scalar {
    I1,
    I8,
    I16,
    I32,
    I64,
    F16,
    F32,
    F64,
}

impl Scalar {
    pub fn from_letter(l: char) -> Option<Scalar> {
        Some(match l {
            '1' => Scalar::I1,
            '8' => Scalar::I8,
            'w' => Scalar::I16,
            'i' => Scalar::I32,
            'l' => Scalar::I64,
            'h' => Scalar::F16,
            'f' => Scalar::F32,
            'd' => Scalar::F64,
            _ => return None,
        })
    }
    pub fn llvm(self) -> &'static str {
        match self {
            Scalar::I1 => "i1",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::F16 => "half",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
        }
    }
    /// DXC's overload suffix (`f32`, `i16`, ...).
    pub fn suffix(self) -> &'static str {
        match self {
            Scalar::I1 => "i1",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::F16 => "f16",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
        }
    }
    pub fn words(self) -> usize {
        if matches!(self, Scalar::I64 | Scalar::F64) {
            2
        } else {
            1
        }
    }
    pub fn bits(self) -> u32 {
        match self {
            Scalar::I1 => 1,
            Scalar::I8 => 8,
            Scalar::I16 | Scalar::F16 => 16,
            Scalar::I32 | Scalar::F32 => 32,
            Scalar::I64 | Scalar::F64 => 64,
        }
    }
}

/// The LLVM type of a signature slot under overload `o`, and its scalar fields (empty for
/// `void` and for slots the synthesizer passes as `undef`).
pub fn slot_type(p: ParamTy, o: Scalar) -> (String, Vec<Scalar>) {
    use ParamTy::*;
    let sixteen = matches!(o, Scalar::F16 | Scalar::I16);
    let s = |x: Scalar| (x.llvm().to_string(), vec![x]);
    match p {
        Void => ("void".into(), vec![]),
        Overload => s(o),
        I1 => s(Scalar::I1),
        I8 => s(Scalar::I8),
        I16 => s(Scalar::I16),
        I32 => s(Scalar::I32),
        I64 => s(Scalar::I64),
        F16 => s(Scalar::F16),
        F32 => s(Scalar::F32),
        F64 => s(Scalar::F64),
        ResRet => (format!("%dx.types.ResRet.{}", o.suffix()), vec![o, o, o, o, Scalar::I32]),
        CBufRet => {
            let n = match o.words() {
                2 => 2,
                _ if sixteen => 8,
                _ => 4,
            };
            let name = if sixteen {
                format!("%dx.types.CBufRet.{}.8", o.suffix())
            } else {
                format!("%dx.types.CBufRet.{}", o.suffix())
            };
            (name, vec![o; n])
        }
        Handle => ("%dx.types.Handle".into(), vec![]),
        Dimensions => ("%dx.types.Dimensions".into(), vec![Scalar::I32; 4]),
        FourI32 => ("%dx.types.fouri32".into(), vec![Scalar::I32; 4]),
        TwoI32 => ("%dx.types.twoi32".into(), vec![Scalar::I32; 2]),
        SplitDouble => ("%dx.types.splitdouble".into(), vec![Scalar::I32; 2]),
        I32Carry => ("%dx.types.i32c".into(), vec![Scalar::I32, Scalar::I1]),
        SamplePos => ("%dx.types.SamplePos".into(), vec![Scalar::F32; 2]),
        OverloadVec4 => (if sixteen { "%dx.types.fouri16".into() } else { "%dx.types.fouri32".into() }, vec![o; 4]),
        ResBind => ("%dx.types.ResBind".into(), vec![]),
        ResProperties => ("%dx.types.ResourceProperties".into(), vec![]),
        PointerF32 => ("float*".into(), vec![]),
        UserDefined | Object => ("%struct.Payload*".into(), vec![]),
        NodeHandle => ("%dx.types.NodeHandle".into(), vec![]),
        NodeRecordHandle => ("%dx.types.NodeRecordHandle".into(), vec![]),
        NodeProperties => ("%dx.types.NodeInfo".into(), vec![]),
        NodeRecordProperties => ("%dx.types.NodeRecordInfo".into(), vec![]),
        // DXIL 1.9 shapes under a scalar overload, and slots no synthesized case uses (vectors:
        // no fields, so nothing extracts from them).
        OverloadShapedI1 => s(Scalar::I1),
        OverloadShapedI32 => s(Scalar::I32),
        OverloadElement => s(o),
        OverloadVec9 => (format!("<9 x {}>", o.llvm()), vec![]),
        I32Vec2 => ("<2 x i32>".into(), vec![]),
        HitObject => ("%dx.types.HitObject".into(), vec![]),
        ExtOverload(_) | ExtOverloadGroupShared(_) => ("%dx.types.LinAlgMatrix".into(), vec![]),
    }
}

/// The overloads a synthesized call may use (`v`: the operation's fixed types).
pub fn overloads(op: DxOp) -> Vec<Scalar> {
    let sig = untangle::dxil::op_facts::signature(op);
    let v: Vec<Scalar> = sig.overloads.chars().filter_map(Scalar::from_letter).collect();
    if v.is_empty() {
        // No overload: any scalar does, it names nothing.
        vec![Scalar::I32]
    } else {
        v
    }
}

/// Operand positions that need constants, and the combinations to try for them (the
/// immediates DXIL requires plus the modes the translator needs as constants).
pub fn immediate_choices(op: DxOp) -> (Vec<usize>, Vec<Vec<u64>>) {
    use DxOp::*;
    let sig = untangle::dxil::op_facts::signature(op);
    let mut at: Vec<usize> = (0..sig.params.len()).filter(|&k| sig.is_immediate(k)).collect();
    let combos: Vec<Vec<u64>> = match op {
        WaveActiveOp | WavePrefixOp => {
            vec![vec![0, 0], vec![1, 0], vec![2, 0], vec![2, 1], vec![3, 0], vec![3, 1]]
        }
        WaveActiveBit => vec![vec![0], vec![1], vec![2]],
        QuadOp => vec![vec![0], vec![1], vec![2]],
        QuadVote => vec![vec![0], vec![1]],
        WaveMultiPrefixOp => vec![vec![0, 0], vec![1, 1], vec![2, 1], vec![3, 1], vec![4, 0]],
        Pack4x8 => {
            at = vec![0];
            vec![vec![0], vec![1], vec![2]]
        }
        Unpack4x8 => {
            at = vec![0];
            vec![vec![0], vec![1]]
        }
        ThreadId | GroupId | ThreadIdInGroup => {
            at = vec![0];
            vec![vec![0], vec![1], vec![2]]
        }
        _ if at.is_empty() => vec![vec![]],
        _ => vec![vec![0; at.len()]],
    };
    (at, combos)
}

/// Whether immediate combination `imm` makes sense for `op` under overload `o` (float wave
/// reductions have no bitwise kinds).
pub fn combination_valid(op: DxOp, o: Scalar, imm: &[u64]) -> bool {
    let float = matches!(o, Scalar::F16 | Scalar::F32 | Scalar::F64);
    match op {
        DxOp::WaveMultiPrefixOp => !float || matches!(imm.first(), Some(0 | 4)),
        _ => true,
    }
}

/// A body being written.
#[derive(Default)]
pub struct Body {
    pub lines: Vec<String>,
    pub decls: BTreeSet<String>,
    next: usize,
    /// Input words loaded so far (`%in.k`).
    inputs: Vec<String>,
    cursor: usize,
    /// Output words to store.
    pub outputs: Vec<String>,
}

impl Body {
    pub fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%v{}", self.next)
    }

    pub fn line(&mut self, s: impl Into<String>) {
        self.lines.push(format!("  {}", s.into()));
    }

    pub fn declare(&mut self, d: impl Into<String>) {
        self.decls.insert(d.into());
    }

    /// Loads the invocation's input words; `tid` is an `i32` value.
    pub fn load_inputs(&mut self, tid: &str) {
        self.declare("declare %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32, %dx.types.Handle, i32, i32)");
        let addr = self.fresh();
        self.line(format!("{addr} = mul i32 {tid}, 32"));
        for half in 0..2 {
            let a = if half == 0 {
                addr.clone()
            } else {
                let a = self.fresh();
                self.line(format!("{a} = add i32 {addr}, 16"));
                a
            };
            let r = self.fresh();
            self.line(format!("{r} = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %out, i32 {a}, i32 undef)"));
            for k in 0..4 {
                let w = self.fresh();
                self.line(format!("{w} = extractvalue %dx.types.ResRet.i32 {r}, {k}"));
                self.inputs.push(w);
            }
        }
    }

    fn next_word(&mut self) -> String {
        let w = self.inputs[self.cursor % self.inputs.len()].clone();
        self.cursor += 1;
        w
    }

    /// A value of scalar type `t` from the next input word(s).
    pub fn input(&mut self, t: Scalar) -> String {
        let w = self.next_word();
        let v = self.fresh();
        match t {
            Scalar::I32 => return w,
            Scalar::F32 => self.line(format!("{v} = bitcast i32 {w} to float")),
            Scalar::I1 | Scalar::I8 | Scalar::I16 => self.line(format!("{v} = trunc i32 {w} to {}", t.llvm())),
            Scalar::F16 => {
                let h = self.fresh();
                self.line(format!("{h} = trunc i32 {w} to i16"));
                self.line(format!("{v} = bitcast i16 {h} to half"));
            }
            Scalar::I64 | Scalar::F64 => {
                let hi = self.next_word();
                let (l, h, s) = (self.fresh(), self.fresh(), self.fresh());
                self.line(format!("{l} = zext i32 {w} to i64"));
                self.line(format!("{h} = zext i32 {hi} to i64"));
                self.line(format!("{s} = shl i64 {h}, 32"));
                if t == Scalar::I64 {
                    self.line(format!("{v} = or i64 {s}, {l}"));
                } else {
                    let x = self.fresh();
                    self.line(format!("{x} = or i64 {s}, {l}"));
                    self.line(format!("{v} = bitcast i64 {x} to double"));
                }
            }
        }
        v
    }

    /// Appends the words of scalar `v` of type `t` to the outputs.
    pub fn output(&mut self, t: Scalar, v: &str) {
        match t {
            Scalar::I32 => self.outputs.push(v.to_string()),
            Scalar::F32 => {
                let w = self.fresh();
                self.line(format!("{w} = bitcast float {v} to i32"));
                self.outputs.push(w);
            }
            Scalar::I1 | Scalar::I8 | Scalar::I16 => {
                let w = self.fresh();
                self.line(format!("{w} = zext {} {v} to i32", t.llvm()));
                self.outputs.push(w);
            }
            Scalar::F16 => {
                let (h, w) = (self.fresh(), self.fresh());
                self.line(format!("{h} = bitcast half {v} to i16"));
                self.line(format!("{w} = zext i16 {h} to i32"));
                self.outputs.push(w);
            }
            Scalar::I64 | Scalar::F64 => {
                let x = if t == Scalar::F64 {
                    let x = self.fresh();
                    self.line(format!("{x} = bitcast double {v} to i64"));
                    x
                } else {
                    v.to_string()
                };
                let (lo, s, hi) = (self.fresh(), self.fresh(), self.fresh());
                self.line(format!("{lo} = trunc i64 {x} to i32"));
                self.line(format!("{s} = lshr i64 {x}, 32"));
                self.line(format!("{hi} = trunc i64 {s} to i32"));
                self.outputs.push(lo);
                self.outputs.push(hi);
            }
        }
    }

    /// Stores the outputs (at most [`OUTPUT_WORDS`]) for invocation `tid`.
    pub fn store_outputs(&mut self, tid: &str) {
        self.declare("declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)");
        let base = self.fresh();
        let m = self.fresh();
        self.line(format!("{m} = mul i32 {tid}, 64"));
        self.line(format!("{base} = add i32 {m}, {OUT_BASE}"));
        let words: Vec<String> = self.outputs.iter().take(OUTPUT_WORDS).cloned().collect();
        for (k, chunk) in words.chunks(4).enumerate() {
            let a = self.fresh();
            self.line(format!("{a} = add i32 {base}, {}", 16 * k));
            let mut vals: Vec<String> = chunk.iter().map(|w| format!("i32 {w}")).collect();
            let mask = (1u32 << chunk.len()) - 1;
            while vals.len() < 4 {
                vals.push("i32 undef".into());
            }
            self.line(format!(
                "call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %out, i32 {a}, i32 undef, {}, i8 {mask})",
                vals.join(", ")
            ));
        }
    }

    pub fn text(&self) -> String {
        self.lines.join("\n")
    }
}

/// The function a call of `op` under overload `o` calls, with its declaration.
pub fn callee(op: DxOp, o: Scalar) -> (String, String) {
    let sig = untangle::dxil::op_facts::signature(op);
    let name = if sig.overloads == "v" {
        format!("dx.op.{}", op.class())
    } else {
        format!("dx.op.{}.{}", op.class(), o.suffix())
    };
    let (ret, _) = slot_type(sig.result, o);
    let params: Vec<String> =
        std::iter::once("i32".to_string()).chain(sig.params.iter().map(|&p| slot_type(p, o).0)).collect();
    (name.clone(), format!("declare {ret} @{name}({})", params.join(", ")))
}

/// Writes a call of `op` (overload `o`, immediates `imm` at positions `at`) with operands
/// from the inputs, stores its result words, and returns the result's name (if any).
pub fn call(body: &mut Body, op: DxOp, o: Scalar, at: &[usize], imm: &[u64]) -> Option<String> {
    let sig = untangle::dxil::op_facts::signature(op);
    let (name, decl) = callee(op, o);
    body.declare(decl);
    let mut args = vec![format!("i32 {}", op.number())];
    for (k, &p) in sig.params.iter().enumerate() {
        let (ty, fields) = slot_type(p, o);
        if let Some(i) = at.iter().position(|&a| a == k) {
            if fields.len() == 1 {
                args.push(format!("{ty} {}", imm[i]));
            } else {
                args.push(format!("{ty} zeroinitializer"));
            }
        } else if fields.len() == 1 {
            let v = body.input(fields[0]);
            args.push(format!("{ty} {v}"));
        } else {
            args.push(format!("{ty} undef"));
        }
    }
    let (ret, fields) = slot_type(sig.result, o);
    if ret == "void" {
        body.line(format!("call void @{name}({})", args.join(", ")));
        return None;
    }
    let r = body.fresh();
    body.line(format!("{r} = call {ret} @{name}({})", args.join(", ")));
    if fields.len() == 1 && !ret.starts_with('%') {
        body.output(fields[0], &r);
    } else {
        for (k, &f) in fields.iter().enumerate() {
            let x = body.fresh();
            body.line(format!("{x} = extractvalue {ret} {r}, {k}"));
            body.output(f, &x);
        }
    }
    Some(r)
}
