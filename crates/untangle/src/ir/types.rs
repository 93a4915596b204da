//! Interned types.
//!
//! Every distinct type is stored once in [`Types`] and named by a [`TypeId`], so type
//! equality is index equality. Named structs are nominal (two structs with the same body
//! but different names stay distinct), as in LLVM.

use indexmap::IndexSet;

entity!(
    /// Index of an interned [`Type`] in a module's [`Types`].
    pub struct TypeId, "ty"
);

/// Floating-point widths DXIL and LLVM use.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FloatKind {
    Half,
    Float,
    Double,
    /// x86 80-bit, only seen in non-DXIL CFG inputs.
    X86Fp80,
    Fp128,
}

impl FloatKind {
    pub fn bits(self) -> u32 {
        match self {
            FloatKind::Half => 16,
            FloatKind::Float => 32,
            FloatKind::Double => 64,
            FloatKind::X86Fp80 => 80,
            FloatKind::Fp128 => 128,
        }
    }
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    Void,
    Int(u32),
    Float(FloatKind),
    Pointer {
        pointee: TypeId,
        addr_space: u32,
    },
    Vector {
        elem: TypeId,
        len: u32,
    },
    Array {
        elem: TypeId,
        len: u64,
    },
    /// A literal (anonymous) struct.
    Struct {
        fields: Vec<TypeId>,
        packed: bool,
    },
    /// A named struct: nominal, its body (possibly recursive) kept in [`Types::body`].
    Named(String),
    Function {
        ret: TypeId,
        params: Vec<TypeId>,
        var_arg: bool,
    },
    Label,
    Metadata,
    Token,
}

/// Body of a named struct; `fields` is `None` for opaque structs.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct StructBody {
    pub fields: Option<Vec<TypeId>>,
    pub packed: bool,
}

/// The module's type table.
#[derive(Clone, Debug, Default)]
pub struct Types {
    set: IndexSet<Type, super::hash::InternHasher>,
    /// Bodies of named structs, by type index (`None` for every other type and for named
    /// structs whose body is not set yet).
    bodies: Vec<Option<StructBody>>,
}

interned_pool!(Types, TypeId, Type);

impl Types {
    /// The types in id order, each with its struct body (named structs only), taking the
    /// table apart (for a pass that rebuilds it in another order without copying).
    pub fn into_entries(self) -> Vec<(Type, Option<StructBody>)> {
        let mut bodies = self.bodies.into_iter();
        self.set.into_iter().map(|t| (t, bodies.next().flatten())).collect()
    }

    /// Set the body of a named struct (after interning `Type::Named`, so that the body
    /// may refer to the struct itself). An id that is not in this table is ignored.
    pub fn set_body(&mut self, id: TypeId, body: StructBody) {
        let i = id.0 as usize;
        debug_assert!(i < self.set.len(), "set_body of a type outside the table");
        if i >= self.set.len() {
            return;
        }
        if self.bodies.len() <= i {
            // Once for all the types interned so far (front ends intern named structs
            // first and set their bodies after).
            self.bodies.resize(self.set.len(), None);
        }
        self.bodies[i] = Some(body);
    }

    pub fn body(&self, id: TypeId) -> Option<&StructBody> {
        self.bodies.get(id.0 as usize).and_then(Option::as_ref)
    }

    /// Fields of a literal or named struct (`None` for opaque structs and non-structs).
    pub fn struct_fields(&self, id: TypeId) -> Option<&[TypeId]> {
        match self.get(id) {
            Type::Struct { fields, .. } => Some(fields),
            Type::Named(_) => self.body(id).and_then(|b| b.fields.as_deref()),
            _ => None,
        }
    }

    pub fn void(&mut self) -> TypeId {
        self.intern(Type::Void)
    }

    pub fn int(&mut self, bits: u32) -> TypeId {
        self.intern(Type::Int(bits))
    }

    /// The scalar type of `id`: a vector's element type, else `id` itself.
    pub fn scalar_of(&self, id: TypeId) -> TypeId {
        match self.get(id) {
            Type::Vector { elem, .. } => *elem,
            _ => id,
        }
    }

    /// Whether `id` is an integer type or a vector of them.
    pub fn is_int_like(&self, id: TypeId) -> bool {
        matches!(self.get(self.scalar_of(id)), Type::Int(_))
    }

    /// Whether `id` is a floating-point type or a vector of them.
    pub fn is_fp_like(&self, id: TypeId) -> bool {
        matches!(self.get(self.scalar_of(id)), Type::Float(_))
    }

    /// Whether `id` is a pointer type or a vector of them.
    pub fn is_ptr_like(&self, id: TypeId) -> bool {
        matches!(self.get(self.scalar_of(id)), Type::Pointer { .. })
    }

    pub fn is_void(&self, id: TypeId) -> bool {
        matches!(self.get(id), Type::Void)
    }

    /// The pointee of a pointer type.
    pub fn pointee(&self, id: TypeId) -> Option<TypeId> {
        match self.get(id) {
            Type::Pointer { pointee, .. } => Some(*pointee),
            _ => None,
        }
    }

    /// Name of a named struct, or of the struct a pointer points to.
    pub fn struct_name(&self, id: TypeId) -> Option<&str> {
        match self.get(id) {
            Type::Named(n) => Some(n),
            Type::Pointer { pointee, .. } => self.struct_name(*pointee),
            _ => None,
        }
    }

    /// LLVM textual spelling, used by dumps and error messages.
    pub fn display(&self, id: TypeId) -> String {
        let mut s = String::new();
        self.write(id, &mut s);
        s
    }

    fn write(&self, id: TypeId, out: &mut String) {
        use std::fmt::Write;
        match self.get(id) {
            Type::Void => out.push_str("void"),
            Type::Int(b) => {
                let _ = write!(out, "i{b}");
            }
            Type::Float(k) => out.push_str(match k {
                FloatKind::Half => "half",
                FloatKind::Float => "float",
                FloatKind::Double => "double",
                FloatKind::X86Fp80 => "x86_fp80",
                FloatKind::Fp128 => "fp128",
            }),
            Type::Pointer { pointee, addr_space } => {
                self.write(*pointee, out);
                if *addr_space != 0 {
                    let _ = write!(out, " addrspace({addr_space})");
                }
                out.push('*');
            }
            Type::Vector { elem, len } => {
                let _ = write!(out, "<{len} x ");
                self.write(*elem, out);
                out.push('>');
            }
            Type::Array { elem, len } => {
                let _ = write!(out, "[{len} x ");
                self.write(*elem, out);
                out.push(']');
            }
            Type::Named(n) => {
                out.push('%');
                out.push_str(&quote_name(n));
            }
            Type::Struct { fields, packed } => {
                if *packed {
                    out.push('<');
                }
                out.push_str("{ ");
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write(*f, out);
                }
                out.push_str(" }");
                if *packed {
                    out.push('>');
                }
            }
            Type::Function { ret, params, var_arg } => {
                self.write(*ret, out);
                out.push_str(" (");
                for (i, p) in params.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write(*p, out);
                }
                if *var_arg {
                    out.push_str(if params.is_empty() { "..." } else { ", ..." });
                }
                out.push(')');
            }
            Type::Label => out.push_str("label"),
            Type::Metadata => out.push_str("metadata"),
            Type::Token => out.push_str("token"),
        }
    }
}

/// Quote an LLVM identifier if it is not a plain one.
pub fn quote_name(name: &str) -> String {
    use std::fmt::Write;
    let plain = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '$'))
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        name.to_string()
    } else {
        let mut s = String::from("\"");
        for c in name.chars() {
            if c == '"' || c == '\\' || !c.is_ascii_graphic() && c != ' ' {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    let _ = write!(s, "\\{b:02X}");
                }
            } else {
                s.push(c);
            }
        }
        s.push('"');
        s
    }
}
