//! DXIL's enumerations that both the DXIL metadata and the container's `PSV0` part store
//! (numbering from DXC's `DXIL::` enums in `DxilConstants.h`; PSV0 writes the same values
//! in a byte). Unknown values are kept (`Other(n)`): a newer compiler may add enumerants.

open_enum! {
    /// `DXIL::ResourceKind`: the shape of a resource.
    pub enum ResourceKind: u32 {
        Invalid = 0, Texture1D = 1, Texture2D = 2, Texture2DMS = 3, Texture3D = 4, TextureCube = 5,
        Texture1DArray = 6, Texture2DArray = 7, Texture2DMSArray = 8, TextureCubeArray = 9, TypedBuffer = 10,
        RawBuffer = 11, StructuredBuffer = 12, CBuffer = 13, Sampler = 14, TBuffer = 15,
        RTAccelerationStructure = 16, FeedbackTexture2D = 17, FeedbackTexture2DArray = 18,
    }
}

open_enum! {
    /// `DXIL::SemanticKind`: the system value of a signature element.
    pub enum SemanticKind: u32 {
        Arbitrary = 0, VertexID = 1, InstanceID = 2, Position = 3, RenderTargetArrayIndex = 4,
        ViewPortArrayIndex = 5, ClipDistance = 6, CullDistance = 7, OutputControlPointID = 8,
        DomainLocation = 9, PrimitiveID = 10, GSInstanceID = 11, SampleIndex = 12, IsFrontFace = 13,
        Coverage = 14, InnerCoverage = 15, Target = 16, Depth = 17, DepthLessEqual = 18,
        DepthGreaterEqual = 19, StencilRef = 20, DispatchThreadID = 21, GroupID = 22, GroupIndex = 23,
        GroupThreadID = 24, TessFactor = 25, InsideTessFactor = 26, ViewID = 27, Barycentrics = 28,
        ShadingRate = 29, CullPrimitive = 30, StartVertexLocation = 31, StartInstanceLocation = 32,
        Invalid = 33,
    }
}

open_enum! {
    /// `DXIL::InterpolationMode`.
    pub enum InterpolationMode: u32 {
        Undefined = 0, Constant = 1, Linear = 2, LinearCentroid = 3, LinearNoperspective = 4,
        LinearNoperspectiveCentroid = 5, LinearSample = 6, LinearNoperspectiveSample = 7, Invalid = 8,
    }
}
