//! SM 6.10 LinAlg matrix types (hlsl-specs proposal 0035, "DXIL Types"): a matrix value is
//! an opaque `%dx.types.LinAlgMatrixC<c>M<m>N<n>U<u>S<s>` (`{ i8* }`), its element type,
//! dimensions, use and scope spelled in the name (and repeated in `!dx.targetTypes`). This
//! module reads the name; it knows no SPIR-V. Enumerations from the proposal's "HLSL
//! Enumerations" (values equal to the DXIL constants).
//!
//! Invariant: [`MatrixType::parse`] accepts exactly the names `LinAlgMatrix` + `C`, `M`, `N`,
//! `U`, `S` each followed by a decimal number, in that order (with or without the
//! `dx.types.` prefix); anything else is `None`. Cost: one pass over the name.

use super::ComponentType;

/// Whether a struct named `name` is a LinAlg matrix (`dx.types.LinAlgMatrix…`, whatever its
/// parameters).
pub fn is_matrix_name(name: &str) -> bool {
    name.starts_with("dx.types.LinAlgMatrix")
}

/// `MatrixUse`: the operand position the matrix is made for.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum MatrixUse {
    A,
    B,
    Accumulator,
}

/// `MatrixScope`: who holds the matrix.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum MatrixScope {
    /// One invocation (only matrix-vector products and outer products; the matrix lives in
    /// memory).
    Thread,
    /// The wave (a subgroup-scope cooperative matrix).
    Wave,
    /// The thread group (a workgroup-scope cooperative matrix).
    ThreadGroup,
}

/// `MatrixLayout`: how a matrix is laid out in memory.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum MatrixLayout {
    RowMajor,
    ColMajor,
    MulOptimal,
    MulOptimalTranspose,
    OuterProductOptimal,
    OuterProductOptimalTranspose,
}

impl MatrixLayout {
    pub fn from_raw(v: u64) -> Option<Self> {
        use MatrixLayout::*;
        Some(match v {
            0 => RowMajor,
            1 => ColMajor,
            2 => MulOptimal,
            3 => MulOptimalTranspose,
            4 => OuterProductOptimal,
            5 => OuterProductOptimalTranspose,
            _ => return None,
        })
    }
}

/// A LinAlg matrix type, read from its name.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct MatrixType {
    pub component: ComponentType,
    /// Rows.
    pub m: u32,
    /// Columns (the `K` of a matrix-vector product).
    pub n: u32,
    pub use_: MatrixUse,
    pub scope: MatrixScope,
}

impl MatrixType {
    /// The type named `name` (`dx.types.LinAlgMatrixC9M4N8U0S0`), or `None` when the name
    /// is not a LinAlg matrix's or an enumerant is out of range.
    pub fn parse(name: &str) -> Option<Self> {
        let rest = name.strip_prefix("dx.types.").unwrap_or(name).strip_prefix("LinAlgMatrix")?;
        let mut fields = [0u32; 5];
        let mut s = rest;
        for (k, tag) in ['C', 'M', 'N', 'U', 'S'].into_iter().enumerate() {
            s = s.strip_prefix(tag)?;
            let digits = s.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return None;
            }
            fields[k] = s[..digits].parse().ok()?;
            s = &s[digits..];
        }
        if !s.is_empty() {
            return None;
        }
        let [c, m, n, u, sc] = fields;
        let use_ = match u {
            0 => MatrixUse::A,
            1 => MatrixUse::B,
            2 => MatrixUse::Accumulator,
            _ => return None,
        };
        let scope = match sc {
            0 => MatrixScope::Thread,
            1 => MatrixScope::Wave,
            2 => MatrixScope::ThreadGroup,
            _ => return None,
        };
        Some(MatrixType { component: ComponentType::from_raw(c), m, n, use_, scope })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let t = MatrixType::parse("dx.types.LinAlgMatrixC21M4N8U0S0").unwrap();
        assert_eq!(t.component, ComponentType::F8_E4M3FN);
        assert_eq!((t.m, t.n, t.use_, t.scope), (4, 8, MatrixUse::A, MatrixScope::Thread));
        let t = MatrixType::parse("LinAlgMatrixC8M16N16U2S1").unwrap();
        assert_eq!((t.component, t.use_, t.scope), (ComponentType::F16, MatrixUse::Accumulator, MatrixScope::Wave));
        for bad in ["dx.types.Handle", "LinAlgMatrixC8M16N16U3S1", "LinAlgMatrixC8M16N16U0S1x", "LinAlgMatrixC8M16U0S1"]
        {
            assert_eq!(MatrixType::parse(bad), None, "{bad}");
        }
    }
}
