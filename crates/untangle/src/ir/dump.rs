//! Textual dump of the IR, close to LLVM assembly so it reads familiar.
//!
//! The format is ours and stable (snapshot tests depend on it): unnamed values and blocks
//! are numbered with one counter per function in layout order, as LLVM does; constants are
//! printed inline. A `float` or `double` constant prints as the shortest decimal that
//! reads back (as LLVM reads it: a double that must convert exactly) to the same bits,
//! else, as LLVM writes it, as the bits of the equal double in hex (`0x3FB99999A0000000`
//! for `float 0.1`; infinities and NaNs, payload included); `half` as `0xH` bits. An
//! alignment of 0 (none known) is left out, as LLVM text has no `align 0`.

use super::function::Function;
use super::inst::{InstKind, Terminator};
use super::metadata::MdRef;
use super::module::Module;
use super::types::{quote_name, FloatKind, Type};
use super::value::{BlockId, ConstExprOp, ConstId, ConstKind, InstId, Value};
use cranelift_entity::SecondaryMap;
use std::fmt::Write;

/// `, align N`, or nothing for alignment 0 (unknown), which LLVM text cannot spell.
fn align_suffix(align: u32) -> String {
    if align == 0 {
        String::new()
    } else {
        format!(", align {align}")
    }
}

/// The bits of the double equal to float `bits` (a NaN keeps its sign and payload, the
/// payload's bits moved to the top of the double's), the value LLVM text spells a `float`
/// by.
fn f32_as_double_bits(bits: u32) -> u64 {
    let f = f32::from_bits(bits);
    if f.is_nan() {
        (u64::from(bits >> 31) << 63) | (0x7FF << 52) | (u64::from(bits & 0x7F_FFFF) << 29)
    } else {
        f64::from(f).to_bits()
    }
}

/// Writes `decimal` (Rust's shortest form of a float constant) if it reads back as the
/// double of bits `double` and is LLVM's decimal form (a `.` before any exponent, which
/// is added), else `double` in hex.
fn float_literal(out: &mut String, decimal: String, double: u64) {
    let decimal = match decimal.find('e') {
        Some(e) if !decimal[..e].contains('.') => format!("{}.0{}", &decimal[..e], &decimal[e..]),
        _ => decimal,
    };
    let exact = decimal.contains('.') && decimal.parse::<f64>().is_ok_and(|d| d.to_bits() == double);
    if exact {
        out.push_str(&decimal);
    } else {
        let _ = write!(out, "0x{double:016X}");
    }
}

/// Names of a function's values as the dump prints them.
struct Names {
    args: Vec<String>,
    insts: SecondaryMap<InstId, String>,
    blocks: SecondaryMap<BlockId, String>,
}

impl Names {
    fn new(f: &Function, types: &super::types::Types) -> Names {
        let mut next = 0u32;
        let mut fresh = |name: &Option<String>| match name {
            Some(n) => quote_name(n),
            None => {
                next += 1;
                (next - 1).to_string()
            }
        };
        let args = f.params.iter().map(|p| fresh(&p.name)).collect();
        let mut insts = SecondaryMap::new();
        let mut blocks = SecondaryMap::new();
        for &b in &f.layout {
            blocks[b] = fresh(&f.blocks[b].name);
            for &inst in &f.blocks[b].insts {
                let data = &f.insts[inst];
                // Void results take no number, as in LLVM.
                if data.name.is_some() || !types.is_void(data.ty) {
                    insts[inst] = fresh(&data.name);
                }
            }
        }
        Names { args, insts, blocks }
    }
}

/// How the dump (and LLVM) names instruction `inst` of `f`: `%name`, or `%N` for unnamed
/// values, numbered as LLVM numbers them. For error messages.
pub fn inst_name(f: &Function, types: &super::types::Types, inst: InstId) -> String {
    let names = Names::new(f, types);
    match names.insts.get(inst).filter(|n| !n.is_empty()) {
        Some(n) => format!("%{n}"),
        None => format!("an unnamed void instruction (#{})", inst.as_u32()),
    }
}

/// How the dump (and LLVM) names block `b` of `f` (without the `%`).
pub fn block_name(f: &Function, types: &super::types::Types, b: BlockId) -> String {
    Names::new(f, types).blocks.get(b).cloned().unwrap_or_else(|| f.block_label(b))
}

pub struct Dumper<'m> {
    m: &'m Module,
}

impl<'m> Dumper<'m> {
    pub fn new(m: &'m Module) -> Self {
        Dumper { m }
    }

    pub fn ty(&self, t: super::types::TypeId) -> String {
        self.m.types.display(t)
    }

    pub fn constant(&self, c: ConstId) -> String {
        let mut s = String::new();
        self.write_const_body(c, &mut s);
        s
    }

    fn write_const_body(&self, c: ConstId, out: &mut String) {
        let k = self.m.constants.get(c);
        match &k.kind {
            ConstKind::Int(v) => match self.m.types.get(k.ty) {
                Type::Int(1) => out.push_str(if *v & 1 == 1 { "true" } else { "false" }),
                Type::Int(bits) => {
                    let bits = *bits;
                    let signed = if bits >= 64 { *v as i64 } else { ((*v << (64 - bits)) as i64) >> (64 - bits) };
                    let _ = write!(out, "{signed}");
                }
                _ => {
                    let _ = write!(out, "{v}");
                }
            },
            ConstKind::WideInt(words) => {
                out.push_str("0x");
                for w in words.iter().rev() {
                    let _ = write!(out, "{w:016x}");
                }
            }
            ConstKind::Float(bits) => match self.m.types.get(k.ty) {
                Type::Float(FloatKind::Float) => {
                    let f = f32::from_bits(*bits as u32);
                    float_literal(out, format!("{f:?}"), f32_as_double_bits(*bits as u32));
                }
                Type::Float(FloatKind::Double) => {
                    float_literal(out, format!("{:?}", f64::from_bits(*bits)), *bits);
                }
                _ => {
                    let _ = write!(out, "0xH{bits:04X}");
                }
            },
            ConstKind::Null => out.push_str("null"),
            ConstKind::Zero => out.push_str("zeroinitializer"),
            ConstKind::Undef => out.push_str("undef"),
            ConstKind::Poison => out.push_str("poison"),
            ConstKind::Aggregate(elems) => {
                let (open, close) = match self.m.types.get(k.ty) {
                    Type::Vector { .. } => ("<", ">"),
                    Type::Array { .. } => ("[", "]"),
                    _ => ("{ ", " }"),
                };
                out.push_str(open);
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&self.typed_const(*e));
                }
                out.push_str(close);
            }
            ConstKind::GlobalAddr(g) => {
                let _ = write!(out, "@{}", quote_name(&self.m.globals[*g].name));
            }
            ConstKind::FuncAddr(f) => {
                let _ = write!(out, "@{}", quote_name(&self.m.functions[*f].name));
            }
            ConstKind::Expr { op, operands, source_ty } => {
                let name = match op {
                    ConstExprOp::GetElementPtr { in_bounds: true } => "getelementptr inbounds".to_string(),
                    ConstExprOp::GetElementPtr { in_bounds: false } => "getelementptr".to_string(),
                    ConstExprOp::Cast(c) => c.name().to_string(),
                    ConstExprOp::Binary(b) => b.name().to_string(),
                    ConstExprOp::ICmp(p) => format!("icmp {}", p.name()),
                    ConstExprOp::FCmp(p) => format!("fcmp {}", p.name()),
                    ConstExprOp::Select => "select".into(),
                    ConstExprOp::ExtractElement => "extractelement".into(),
                    ConstExprOp::InsertElement => "insertelement".into(),
                    ConstExprOp::ShuffleVector => "shufflevector".into(),
                };
                let _ = write!(out, "{name} (");
                let mut first = true;
                if let Some(t) = source_ty {
                    out.push_str(&self.ty(*t));
                    first = false;
                }
                for o in operands {
                    if !first {
                        out.push_str(", ");
                    }
                    first = false;
                    out.push_str(&self.typed_const(*o));
                }
                if let ConstExprOp::Cast(_) = op {
                    let _ = write!(out, " to {}", self.ty(k.ty));
                }
                out.push(')');
            }
            ConstKind::Opaque(text) => out.push_str(text),
        }
    }

    pub fn typed_const(&self, c: ConstId) -> String {
        format!("{} {}", self.ty(self.m.constants.get(c).ty), self.constant(c))
    }

    fn value(&self, f: &Function, names: &Names, v: Value) -> String {
        match v {
            Value::Inst(i) => format!("%{}", names.insts[i]),
            Value::Arg(a) => format!("%{}", names.args.get(a as usize).map(String::as_str).unwrap_or("?")),
            Value::Const(c) => self.constant(c),
            Value::Global(g) => format!("@{}", quote_name(&self.m.globals[g].name)),
            Value::Func(fid) => format!("@{}", quote_name(&self.m.functions[fid].name)),
            Value::Metadata => {
                let _ = f;
                "metadata !{}".into()
            }
        }
    }

    /// Type of a value, as far as the module knows it ([`Module::value_type`]).
    #[inline]
    pub fn value_type(&self, f: &Function, v: Value) -> Option<super::types::TypeId> {
        self.m.value_type(f, v)
    }

    fn typed_value(&self, f: &Function, names: &Names, v: Value) -> String {
        match self.value_type(f, v) {
            Some(t) => format!("{} {}", self.ty(t), self.value(f, names, v)),
            None => self.value(f, names, v),
        }
    }

    pub fn function(&self, f: &Function) -> String {
        let mut out = String::new();
        let names = Names::new(f, &self.m.types);
        let params: Vec<String> = f
            .params
            .iter()
            .enumerate()
            .map(
                |(i, p)| {
                    if f.is_declaration() {
                        self.ty(p.ty)
                    } else {
                        format!("{} %{}", self.ty(p.ty), names.args[i])
                    }
                },
            )
            .collect();
        let kw = if f.is_declaration() { "declare" } else { "define" };
        let _ = write!(out, "{kw} {} @{}({})", self.ty(f.ret), quote_name(&f.name), params.join(", "));
        if f.is_declaration() {
            out.push('\n');
            return out;
        }
        out.push_str(" {\n");
        for (i, &b) in f.layout.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let _ = write!(out, "{}:", names.blocks[b]);
            let _ = writeln!(out);
            for &inst in &f.blocks[b].insts {
                out.push_str("  ");
                self.write_inst(f, &names, inst, &mut out);
                out.push('\n');
            }
            out.push_str("  ");
            self.write_terminator(f, &names, &f.blocks[b].terminator, &mut out);
            out.push('\n');
        }
        out.push_str("}\n");
        out
    }

    fn write_inst(&self, f: &Function, n: &Names, inst: InstId, out: &mut String) {
        let data = &f.insts[inst];
        if !self.m.types.is_void(data.ty) {
            let _ = write!(out, "%{} = ", n.insts[inst]);
        }
        let v = |x: Value| self.value(f, n, x);
        let tv = |x: Value| self.typed_value(f, n, x);
        let blk = |b: BlockId| format!("%{}", n.blocks[b]);
        match &data.kind {
            InstKind::Phi { incoming } => {
                let _ = write!(out, "phi {} ", self.ty(data.ty));
                let parts: Vec<String> = incoming.iter().map(|(x, b)| format!("[ {}, {} ]", v(*x), blk(*b))).collect();
                out.push_str(&parts.join(", "));
            }
            InstKind::Binary { op, lhs, rhs, fast } => {
                let flag = if *fast { " fast" } else { "" };
                let _ = write!(out, "{}{flag} {}, {}", op.name(), tv(*lhs), v(*rhs));
            }
            InstKind::FNeg { value } => {
                let _ = write!(out, "fneg {}", tv(*value));
            }
            InstKind::Cast { op, value } => {
                let _ = write!(out, "{} {} to {}", op.name(), tv(*value), self.ty(data.ty));
            }
            InstKind::ICmp { pred, lhs, rhs } => {
                let _ = write!(out, "icmp {} {}, {}", pred.name(), tv(*lhs), v(*rhs));
            }
            InstKind::FCmp { pred, lhs, rhs } => {
                let _ = write!(out, "fcmp {} {}, {}", pred.name(), tv(*lhs), v(*rhs));
            }
            InstKind::Select { cond, if_true, if_false } => {
                let _ = write!(out, "select {}, {}, {}", tv(*cond), tv(*if_true), tv(*if_false));
            }
            InstKind::ExtractValue { aggregate, indices } => {
                let _ = write!(out, "extractvalue {}", tv(*aggregate));
                for i in indices {
                    let _ = write!(out, ", {i}");
                }
            }
            InstKind::InsertValue { aggregate, element, indices } => {
                let _ = write!(out, "insertvalue {}, {}", tv(*aggregate), tv(*element));
                for i in indices {
                    let _ = write!(out, ", {i}");
                }
            }
            InstKind::ExtractElement { vector, index } => {
                let _ = write!(out, "extractelement {}, {}", tv(*vector), tv(*index));
            }
            InstKind::InsertElement { vector, element, index } => {
                let _ = write!(out, "insertelement {}, {}, {}", tv(*vector), tv(*element), tv(*index));
            }
            InstKind::ShuffleVector { lhs, rhs, mask } => {
                let m: Vec<String> =
                    mask.iter().map(|i| if *i < 0 { "undef".into() } else { format!("i32 {i}") }).collect();
                let _ = write!(out, "shufflevector {}, {}, <{}>", tv(*lhs), tv(*rhs), m.join(", "));
            }
            InstKind::Alloca { allocated, count, align } => {
                let _ = write!(out, "alloca {}, {}{}", self.ty(*allocated), tv(*count), align_suffix(*align));
            }
            InstKind::Load { ptr, align, volatile } => {
                let vol = if *volatile { "volatile " } else { "" };
                let _ = write!(out, "load {vol}{}, {}{}", self.ty(data.ty), tv(*ptr), align_suffix(*align));
            }
            InstKind::Store { ptr, value, align, volatile } => {
                let vol = if *volatile { "volatile " } else { "" };
                let _ = write!(out, "store {vol}{}, {}{}", tv(*value), tv(*ptr), align_suffix(*align));
            }
            InstKind::GetElementPtr { source, base, indices, in_bounds } => {
                let ib = if *in_bounds { "inbounds " } else { "" };
                let _ = write!(out, "getelementptr {ib}{}, {}", self.ty(*source), tv(*base));
                for i in indices {
                    let _ = write!(out, ", {}", tv(*i));
                }
            }
            InstKind::AtomicRmw { op, ptr, value, ordering, volatile } => {
                let vol = if *volatile { "volatile " } else { "" };
                let _ = write!(out, "atomicrmw {vol}{} {}, {} {}", op.name(), tv(*ptr), tv(*value), ordering.name());
            }
            InstKind::CmpXchg { ptr, expected, replacement, success, failure, weak, volatile } => {
                let w = if *weak { "weak " } else { "" };
                let vol = if *volatile { "volatile " } else { "" };
                let _ = write!(
                    out,
                    "cmpxchg {w}{vol}{}, {}, {} {} {}",
                    tv(*ptr),
                    tv(*expected),
                    tv(*replacement),
                    success.name(),
                    failure.name()
                );
            }
            InstKind::Fence { ordering } => {
                let _ = write!(out, "fence {}", ordering.name());
            }
            InstKind::Call { callee, args } => {
                let a: Vec<String> = args.iter().map(|x| tv(*x)).collect();
                let _ = write!(out, "call {} {}({})", self.ty(data.ty), v(*callee), a.join(", "));
            }
            InstKind::Freeze { value } => {
                let _ = write!(out, "freeze {}", tv(*value));
            }
            InstKind::VaArg { list } => {
                let _ = write!(out, "va_arg {}, {}", tv(*list), self.ty(data.ty));
            }
        }
    }

    fn write_terminator(&self, f: &Function, n: &Names, t: &Terminator, out: &mut String) {
        let blk = |b: BlockId| format!("label %{}", n.blocks[b]);
        match t {
            Terminator::Br { target } => {
                let _ = write!(out, "br {}", blk(*target));
            }
            Terminator::CondBr { cond, if_true, if_false } => {
                let _ = write!(out, "br {}, {}, {}", self.typed_value(f, n, *cond), blk(*if_true), blk(*if_false));
            }
            Terminator::Switch { value, default, cases } => {
                let ty = self.value_type(f, *value).map(|t| self.ty(t)).unwrap_or_default();
                let _ = write!(out, "switch {}, {} [", self.typed_value(f, n, *value), blk(*default));
                for (val, b) in cases {
                    let _ = write!(out, "\n    {ty} {val}, {}", blk(*b));
                }
                out.push_str("\n  ]");
            }
            Terminator::Ret { value: None } => out.push_str("ret void"),
            Terminator::Ret { value: Some(v) } => {
                let _ = write!(out, "ret {}", self.typed_value(f, n, *v));
            }
            Terminator::Unreachable => out.push_str("unreachable"),
        }
    }

    /// Named metadata and the tuples it reaches; tuples are renumbered densely, strings and
    /// values are printed inline where they are used.
    fn metadata(&self, out: &mut String) {
        let md = &self.m.metadata;
        let mut number = std::collections::HashMap::new();
        for (id, node) in md.iter() {
            if matches!(node, MdRef::Node(_) | MdRef::Other) {
                let n = number.len();
                number.insert(id, n);
            }
        }
        let operand = |o: Option<super::metadata::MdId>| -> String {
            match o {
                None => "null".into(),
                Some(o) => match md.get(o) {
                    MdRef::String(s) => format!("!{:?}", s),
                    MdRef::Value { ty, value } => format!("{} {}", self.ty(ty), self.md_value(value)),
                    _ => format!("!{}", number[&o]),
                },
            }
        };
        for (name, ops) in md.named_lists() {
            let ops: Vec<String> = ops.iter().map(|o| operand(Some(*o))).collect();
            let _ = writeln!(out, "!{name} = !{{{}}}", ops.join(", "));
        }
        for (id, node) in md.iter() {
            match node {
                MdRef::Node(ops) => {
                    let parts: Vec<String> = ops.iter().map(|o| operand(*o)).collect();
                    let _ = writeln!(out, "!{} = !{{{}}}", number[&id], parts.join(", "));
                }
                MdRef::Other => {
                    let _ = writeln!(out, "!{} = !{{}} ; not modelled", number[&id]);
                }
                _ => {}
            }
        }
    }

    fn md_value(&self, v: Value) -> String {
        match v {
            Value::Const(c) => self.constant(c),
            Value::Global(g) => format!("@{}", quote_name(&self.m.globals[g].name)),
            Value::Func(fid) => format!("@{}", quote_name(&self.m.functions[fid].name)),
            _ => "?".into(),
        }
    }

    pub fn module(&self) -> String {
        let mut out = String::new();
        for (id, t) in self.m.types.iter() {
            if let Type::Named(n) = t {
                let body = match self.m.types.body(id) {
                    None | Some(super::types::StructBody { fields: None, .. }) => "opaque".to_string(),
                    Some(super::types::StructBody { fields: Some(fs), packed }) => {
                        let parts: Vec<String> = fs.iter().map(|f| self.ty(*f)).collect();
                        if *packed {
                            format!("<{{ {} }}>", parts.join(", "))
                        } else {
                            format!("{{ {} }}", parts.join(", "))
                        }
                    }
                };
                let _ = writeln!(out, "%{} = type {body}", quote_name(n));
            }
        }
        if !out.is_empty() {
            out.push('\n');
        }
        for (_, g) in self.m.globals.iter() {
            let kind = if g.is_constant { "constant" } else { "global" };
            let aspace = if g.addr_space != 0 { format!("addrspace({}) ", g.addr_space) } else { String::new() };
            // A global without an initializer is a declaration: LLVM spells it `external`.
            let (linkage, init) = match g.initializer {
                Some(c) => ("", format!(" {}", self.constant(c))),
                None => ("external ", String::new()),
            };
            let _ = writeln!(
                out,
                "@{} = {linkage}{aspace}{kind} {}{init}{}",
                quote_name(&g.name),
                self.ty(g.value_ty),
                align_suffix(g.align)
            );
        }
        if !self.m.globals.is_empty() {
            out.push('\n');
        }
        for (_, f) in self.m.functions.iter() {
            out.push_str(&self.function(f));
            out.push('\n');
        }
        self.metadata(&mut out);
        out
    }
}
