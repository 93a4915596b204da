//! Geometry shaders → `Geometry`.
//!
//! Execution modes from the GS state: the input primitive (`InputPoints`, `InputLines`,
//! `Triangles`, `InputLinesAdjacency`, `InputTrianglesAdjacency`; D3D's patch inputs have
//! no Vulkan counterpart and are a typed error), the output topology (`OutputPoints`,
//! `OutputLineStrip`, `OutputTriangleStrip`), `[maxvertexcount]` → `OutputVertices`,
//! `[instance(n)]` → `Invocations`.
//!
//! Operations: `loadInput(id, row, col, v)` reads vertex `v` of the input primitive
//! (per-vertex arrays of the primitive's vertex count); `storeOutput` writes the outputs of
//! the next vertex (undefined again after each emit, in D3D as in SPIR-V; stream output's
//! copies are written right before each emit, `crate::emit::stream_output`);
//! `emitStream(s)` → `OpEmitVertex`, `cutStream(s)` → `OpEndPrimitive`,
//! `emitThenCutStream(s)` → both. A shader whose GS state names a stream other than 0 uses
//! the stream forms (`OpEmitStreamVertex`, `OpEndStreamPrimitive`; capability
//! `GeometryStreams`) and decorates its varyings with their `Stream`; their locations
//! follow the location rule (`interface`: each stream after the rows of the streams
//! before it). `gsInstanceID` → `InvocationId`; `primitiveID` → `PrimitiveId` (`stage`).

use crate::dxil::{DxOp, GsState, InputPrimitive, PrimitiveTopology};
use crate::emit::error::{malformed, Error, Result, Subject};
use crate::emit::{Call, FnEmit, ModuleBuilder, Num, StageIo};
use crate::front::container::ShaderKind;
use rspirv::spirv::{BuiltIn, Capability, ExecutionMode, Op, Word};

/// Vertices of an input primitive, and its execution mode.
fn input_primitive(p: InputPrimitive) -> Result<(u32, ExecutionMode)> {
    Ok(match p {
        InputPrimitive::Point => (1, ExecutionMode::InputPoints),
        InputPrimitive::Line => (2, ExecutionMode::InputLines),
        InputPrimitive::Triangle => (3, ExecutionMode::Triangles),
        InputPrimitive::LineWithAdjacency => (4, ExecutionMode::InputLinesAdjacency),
        InputPrimitive::TriangleWithAdjacency => (6, ExecutionMode::InputTrianglesAdjacency),
        InputPrimitive::Other(n @ 8..=39) => {
            return Err(Error::UnsupportedForm {
                subject: Subject::InputPrimitive,
                message: format!(
                    "a patch of {} control points: Vulkan geometry shaders read points, lines and triangles only",
                    n - 7
                ),
            })
        }
        other => {
            return Err(malformed(
                Subject::Stage(ShaderKind::Geometry),
                format!("geometry shader input primitive {other:?}"),
            ))
        }
    })
}

impl StageIo {
    /// Checks the GS state and derives the interface facts.
    pub(in crate::emit) fn geometry(gs: &GsState) -> Result<StageIo> {
        let (vertices, _) = input_primitive(gs.input_primitive)?;
        Ok(StageIo { input_vertices: vertices, multi_stream: gs.active_stream_mask & !1 != 0, ..Default::default() })
    }
}

impl ModuleBuilder<'_> {
    /// The geometry shader's execution modes (module documentation).
    pub(in crate::emit) fn geometry_modes(&mut self, entry: Word, gs: &GsState) -> Result<()> {
        self.capability(Capability::Geometry);
        let (_, input) = input_primitive(gs.input_primitive)?;
        self.b.execution_mode(entry, input, []);
        self.b.execution_mode(entry, ExecutionMode::Invocations, [gs.instance_count.max(1)]);
        let output = match gs.output_topology {
            PrimitiveTopology::PointList => ExecutionMode::OutputPoints,
            PrimitiveTopology::LineStrip => ExecutionMode::OutputLineStrip,
            PrimitiveTopology::TriangleStrip => ExecutionMode::OutputTriangleStrip,
            // A shader that never emits may leave the topology undefined.
            PrimitiveTopology::Undefined if gs.max_vertex_count == 0 => ExecutionMode::OutputPoints,
            other => {
                return Err(malformed(
                    Subject::Stage(ShaderKind::Geometry),
                    format!("geometry shader output topology {other:?}"),
                ))
            }
        };
        self.b.execution_mode(entry, output, []);
        self.b.execution_mode(entry, ExecutionMode::OutputVertices, [gs.max_vertex_count.max(1)]);
        Ok(())
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(in crate::emit) fn geometry_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        match c.op {
            DxOp::GSInstanceID => self.load_builtin(BuiltIn::InvocationId, Num::SInt, c.ty).map(Some),
            DxOp::EmitStream | DxOp::CutStream | DxOp::EmitThenCutStream => {
                let stream = self.arg_const(c, 0)?;
                if stream > 3 {
                    return Err(self.form(c.op, format!("stream {stream} (D3D has streams 0-3)")));
                }
                let emit = c.op != DxOp::CutStream;
                let cut = c.op != DxOp::EmitStream;
                if emit {
                    // View instancing: the vertex goes to its instance's viewport (and slice).
                    self.view_instance_outputs(None)?;
                    // Stream output's split pieces and extras take the vertex's values.
                    self.xfb_copy_out_stream(stream as u32)?;
                }
                if stream == 0 && !self.iface.stage.multi_stream {
                    if emit {
                        self.ids_void(Op::EmitVertex, &[])?;
                    }
                    if cut {
                        self.ids_void(Op::EndPrimitive, &[])?;
                    }
                } else {
                    self.cx.capability(Capability::GeometryStreams);
                    let s = self.cx.const_u32(stream as u32);
                    if emit {
                        self.ids_void(Op::EmitStreamVertex, &[s])?;
                    }
                    if cut {
                        self.ids_void(Op::EndStreamPrimitive, &[s])?;
                    }
                }
                Ok(None)
            }
            other => Err(self.not_in_family(other, "graphics stages")),
        }
    }
}
