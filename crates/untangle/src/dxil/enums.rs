//! DXIL's enumerations as they appear in metadata (numbering from DXC's `DXIL::` enums in
//! `DxilConstants.h`). Unknown values are kept (`Other(n)`), never rejected: a newer
//! compiler may add enumerants. The ones the container's `PSV0` part also stores live in
//! [`crate::front::container::dxil_enums`] and are re-exported here.

pub use crate::front::container::dxil_enums::{InterpolationMode, ResourceKind, SemanticKind};

crate::front::container::open_enum::open_enum! {
    /// `DXIL::ComponentType`: element types of signatures and typed resources, and (SM 6.10,
    /// hlsl-specs proposal 0035, from `I8` on) of LinAlg matrices and vector interpretations.
    pub enum ComponentType: u32 {
        Invalid = 0, I1 = 1, I16 = 2, U16 = 3, I32 = 4, U32 = 5, I64 = 6, U64 = 7, F16 = 8, F32 = 9,
        F64 = 10, SNormF16 = 11, UNormF16 = 12, SNormF32 = 13, UNormF32 = 14, SNormF64 = 15, UNormF64 = 16,
        PackedS8x32 = 17, PackedU8x32 = 18, I8 = 19, U8 = 20,
        // DXC's spelling (the enumerant names are printed).
        #[allow(non_camel_case_types)] F8_E4M3FN = 21,
        #[allow(non_camel_case_types)] F8_E5M2 = 22,
        BFloat16 = 23,
    }
}

crate::front::container::open_enum::open_enum! {
    /// `DXIL::SamplerKind`.
    pub enum SamplerKind: u32 {
        Default = 0, Comparison = 1, Mono = 2, Invalid = 3,
    }
}

crate::front::container::open_enum::open_enum! {
    /// `DXIL::InputPrimitive`: what a geometry shader reads (`ControlPointPatchN` is
    /// 7 + N for N = 1–32).
    pub enum InputPrimitive: u32 {
        Undefined = 0, Point = 1, Line = 2, Triangle = 3, LineWithAdjacency = 6, TriangleWithAdjacency = 7,
    }
}

crate::front::container::open_enum::open_enum! {
    /// `DXIL::PrimitiveTopology` (= `D3D_PRIMITIVE_TOPOLOGY`): a geometry shader's output.
    pub enum PrimitiveTopology: u32 {
        Undefined = 0, PointList = 1, LineList = 2, LineStrip = 3, TriangleList = 4, TriangleStrip = 5,
    }
}

crate::front::container::open_enum::open_enum! {
    /// `DXIL::TessellatorDomain` (= `D3D_TESSELLATOR_DOMAIN`).
    pub enum TessellatorDomain: u32 {
        Undefined = 0, IsoLine = 1, Tri = 2, Quad = 3,
    }
}

crate::front::container::open_enum::open_enum! {
    /// `DXIL::TessellatorOutputPrimitive` (= `D3D_TESSELLATOR_OUTPUT_PRIMITIVE`).
    pub enum TessellatorOutputPrimitive: u32 {
        Undefined = 0, Point = 1, Line = 2, TriangleCW = 3, TriangleCCW = 4,
    }
}

crate::front::container::open_enum::open_enum! {
    /// `DXIL::TessellatorPartitioning` (= `D3D_TESSELLATOR_PARTITIONING`).
    pub enum TessellatorPartitioning: u32 {
        Undefined = 0, Integer = 1, Pow2 = 2, FractionalOdd = 3, FractionalEven = 4,
    }
}
