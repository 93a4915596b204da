//! Stream output: D3D12's `D3D12_STREAM_OUTPUT_DESC`, which a pipeline gives for its last
//! pre-rasterization stage (a vertex, domain or geometry shader), lowered to Vulkan
//! transform feedback (`VK_EXT_transform_feedback`).
//!
//! # The description
//!
//! [`StreamOutput`] mirrors D3D12: an ordered list of [`StreamOutputDeclaration`]s, the byte
//! stride of each buffer slot and the rasterized stream. A declaration captures
//! `component_count` components of one output element, starting at component
//! `start_component` of that element (`x` = 0, relative to the element, not to the register
//! it was packed into), from one row of it (the row whose semantic index is
//! `semantic_index`), into buffer slot `output_slot`. Declarations for one slot are laid
//! out in order: each starts where the previous one of its slot ended, 4 bytes a
//! component. A declaration without a semantic (D3D's `SemanticName = NULL`) is a gap:
//! it advances its slot by `component_count` components and writes nothing.
//!
//! # Validation
//!
//! [`StreamOutput::validate`] checks what needs no shader; translation then checks the
//! rest against the output signature. Each failure is a [`StreamOutputError`] naming the
//! declaration (its index and semantic) or the slot:
//! - at least one declaration; streams and slots are 0–3; a slot receives one stream;
//! - a declaration writes 1–4 components within `x..w` (a gap: at least 1);
//! - every slot a declaration uses has a stride: a multiple of 4, at most 2048 bytes, and
//!   at least where the slot's last declaration ends;
//! - the rasterized stream is 0–3 or `None` (D3D12's `D3D12_SO_NO_RASTERIZED_STREAM`; the
//!   layer then enables rasterizer discard); stages with one stream use stream 0 only;
//! - stream output is for vertex, domain and geometry shaders only;
//! - the shader has an output with that semantic (names compare case-insensitively, as
//!   D3D's do), semantic index and stream, and the components lie within it.
//!
//! # Lowering
//!
//! The entry point gets execution mode `Xfb` and the module the `TransformFeedback`
//! capability. A *capture* is one declaration applied to one row of one element: its
//! components go to buffer `output_slot` at the declaration's byte offset. A variable that
//! carries a capture is decorated `XfbBuffer` (the slot), `XfbStride` (the slot's stride)
//! and `Offset` (the byte offset of its first component). Each captured element is lowered
//! one of three ways:
//!
//! 1. **Whole**: the element's first capture covers every component of a single-row
//!    element. The element's own variable (a `Location` varying, or a built-in such as
//!    `Position`) carries it.
//! 2. **Split** (a user varying captured in part, in several rows, or by several
//!    declarations): the shader's stores go to a `Private` copy of the element, and the
//!    element's `Output` variable is replaced by pieces. Each row becomes its own variables
//!    at `Location` = the element's location + row; a row's components are cut wherever a
//!    capture starts or ends, and each run of components is one variable at `Component` =
//!    the element's component + the run's start. The first capture (in declaration
//!    order) that covers a run decorates it; uncovered runs are plain varyings. A later
//!    consumer reading the element's locations sees every component where it was.
//! 3. **Extra** variables: a capture of a component another capture already took (the same
//!    element row sent to two buffers), and every capture of a built-in that is not its
//!    whole first one
//!    (part of `Position`, a clip or cull distance, which share one array) get an
//!    `Output` variable of their own, written only to be captured, at a fresh `Location`
//!    past every location the shader's outputs use (one location each, `Component` 0).
//!    The next stage does not read them.
//!
//! Split pieces and extras are written from the `Private` copy or the built-in (an
//! `Output` variable can be read back) right before the shader returns: every `OpReturn`
//! of the entry point. A geometry shader writes them before each vertex emission instead
//! (`OpEmitStreamVertex` / `OpEmitVertex`: the pieces and extras of that stream's elements
//! only), since its outputs are undefined after each emit; in a shader writing several
//! streams every piece and extra is decorated `Stream` like its element (the element's
//! own varying is decorated by `interface`, `docs/stage-interfaces.md`).
//!
//! Gaps write nothing: Vulkan leaves those bytes untouched, as D3D12 does. A slot that
//! receives only gaps has no variable to carry its stride, so Vulkan captures nothing to
//! it. Captured elements the shader never writes are captured undefined, as in D3D12.
//! Splitting keeps each component at its D3D location and component; strictly, Vulkan's
//! interface matching compares whole variables, so a consumer that declares the element
//! as one vector matches the pieces component by component (what drivers do, and what
//! D3D's register linkage means) rather than by type. A layer that wants no split gives
//! declarations that capture whole single-row elements.
//!
//! # Where it lives
//!
//! This module is a low-level module of `emit` (see its documentation): the description,
//! its validation and the plan (`XfbPlan`, `XfbState`) import only
//! [`super::locations`] and the layers below `emit`. The lowering itself (the pieces, the
//! extras and their copies) is `transform_feedback`'s; `interface` decorates whole
//! elements.

use super::locations::IoLocation;
use crate::dxil::SignatureElement;
use crate::front::container::ShaderKind;
use rspirv::spirv::{BuiltIn, Word};
use std::collections::BTreeMap;

/// D3D12 streams (`D3D12_SO_STREAM_COUNT`).
pub const STREAM_COUNT: u32 = 4;
/// D3D12 stream-output buffer slots (`D3D12_SO_BUFFER_SLOT_COUNT`).
pub const BUFFER_SLOT_COUNT: u32 = 4;
/// The largest buffer stride D3D12 allows (`D3D12_SO_BUFFER_MAX_STRIDE_IN_BYTES`).
pub const MAX_STRIDE: u32 = 2048;

/// A pipeline's stream-output description (`D3D12_STREAM_OUTPUT_DESC`); see the
/// [module documentation](self) for its meaning and lowering.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamOutput {
    /// `pSODeclaration`, in order.
    pub declarations: Vec<StreamOutputDeclaration>,
    /// `pBufferStrides`: the byte stride of buffer slot `k` is `buffer_strides[k]`; every
    /// slot a declaration uses needs one.
    pub buffer_strides: Vec<u32>,
    /// `RasterizedStream`; `None` for `D3D12_SO_NO_RASTERIZED_STREAM` (nothing is
    /// rasterized). The layer applies it (`VkPipelineRasterizationStateStreamCreateInfoEXT`,
    /// or rasterizer discard); translation only validates it.
    pub rasterized_stream: Option<u32>,
}

/// One `D3D12_SO_DECLARATION_ENTRY`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamOutputDeclaration {
    /// `Stream`: 0 except for geometry shaders that write several streams.
    pub stream: u32,
    /// `SemanticName`; `None` declares a gap of `component_count` components.
    pub semantic: Option<String>,
    /// `SemanticIndex`: selects the row of a multi-row element.
    pub semantic_index: u32,
    /// `StartComponent`: the element's first component to capture (`x` = 0).
    pub start_component: u32,
    /// `ComponentCount`.
    pub component_count: u32,
    /// `OutputSlot`: the buffer slot.
    pub output_slot: u32,
}

impl StreamOutputDeclaration {
    /// Components `start..start + count` of output `semantic`/`index` to buffer `slot`, stream 0.
    pub fn new(semantic: &str, index: u32, start: u32, count: u32, slot: u32) -> StreamOutputDeclaration {
        StreamOutputDeclaration {
            stream: 0,
            semantic: Some(semantic.to_string()),
            semantic_index: index,
            start_component: start,
            component_count: count,
            output_slot: slot,
        }
    }

    /// A gap: `count` components of slot `slot` skipped.
    pub fn gap(count: u32, slot: u32) -> StreamOutputDeclaration {
        StreamOutputDeclaration {
            stream: 0,
            semantic: None,
            semantic_index: 0,
            start_component: 0,
            component_count: count,
            output_slot: slot,
        }
    }

    /// The same declaration on stream `stream`.
    pub fn on_stream(self, stream: u32) -> StreamOutputDeclaration {
        StreamOutputDeclaration { stream, ..self }
    }

    /// `TEXCOORD1`, or `gap`, for messages.
    pub fn label(&self) -> String {
        match &self.semantic {
            Some(s) => format!("{s}{}", self.semantic_index),
            None => "gap".to_string(),
        }
    }
}

/// Why a stream-output description cannot be used. `declaration` is the index in
/// [`StreamOutput::declarations`], `name` its semantic and index (or `gap`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StreamOutputError {
    #[error(
        "applies to the last pre-rasterization stage (a vertex, domain or geometry shader), not to a {stage} shader"
    )]
    Stage { stage: String },
    #[error("stream output without declarations")]
    NoDeclarations,
    #[error("declaration {declaration} ({name}): stream {stream} does not exist (streams are 0-3)")]
    Stream { declaration: usize, name: String, stream: u32 },
    #[error("declaration {declaration} ({name}): output slot {slot} does not exist (slots are 0-3)")]
    Slot { declaration: usize, name: String, slot: u32 },
    #[error("declaration {declaration} ({name}): {count} components from component {start}: a declaration writes 1 to 4 components within x..w (a gap at least 1)")]
    Components { declaration: usize, name: String, start: u32, count: u32 },
    #[error(
        "declaration {declaration} ({name}): slot {slot} already receives stream {other}; a slot receives one stream"
    )]
    SlotStreams { declaration: usize, name: String, slot: u32, other: u32 },
    #[error("declaration {declaration} ({name}): the shader has no output {name} on stream {stream}")]
    UnknownSemantic { declaration: usize, name: String, stream: u32 },
    #[error("declaration {declaration} ({name}): components {start}..{end} lie outside the element, which has {cols}", end = start + count)]
    OutsideElement { declaration: usize, name: String, start: u32, count: u32, cols: u32 },
    #[error("declaration {declaration} ({name}): slot {slot} has no stride ({given} strides given)")]
    MissingStride { declaration: usize, name: String, slot: u32, given: usize },
    #[error("slot {slot}: stride {stride} is not a multiple of 4 of at most 2048 bytes")]
    BadStride { slot: u32, stride: u32 },
    #[error("declaration {declaration} ({name}): ends at byte {end} of slot {slot}, past its stride {stride}")]
    StrideTooSmall { declaration: usize, name: String, slot: u32, end: u64, stride: u32 },
    #[error("rasterized stream {stream}: {reason}")]
    RasterizedStream { stream: u32, reason: &'static str },
}

impl StreamOutput {
    /// The checks that need no shader (see the [module documentation](self)).
    pub fn validate(&self) -> std::result::Result<(), StreamOutputError> {
        self.layout().map(|_| ())
    }

    /// Validates and computes each declaration's byte offset in its slot.
    fn layout(&self) -> std::result::Result<Vec<u32>, StreamOutputError> {
        if self.declarations.is_empty() {
            return Err(StreamOutputError::NoDeclarations);
        }
        if let Some(stream) = self.rasterized_stream {
            if stream >= STREAM_COUNT {
                return Err(StreamOutputError::RasterizedStream { stream, reason: "streams are 0-3" });
            }
        }
        let mut end = [0u64; BUFFER_SLOT_COUNT as usize];
        let mut stream_of: [Option<u32>; BUFFER_SLOT_COUNT as usize] = [None; BUFFER_SLOT_COUNT as usize];
        let mut offsets = Vec::with_capacity(self.declarations.len());
        for (i, d) in self.declarations.iter().enumerate() {
            let name = || d.label();
            if d.stream >= STREAM_COUNT {
                return Err(StreamOutputError::Stream { declaration: i, name: name(), stream: d.stream });
            }
            if d.output_slot >= BUFFER_SLOT_COUNT {
                return Err(StreamOutputError::Slot { declaration: i, name: name(), slot: d.output_slot });
            }
            let fits = match d.semantic {
                Some(_) => (1..=4).contains(&d.component_count) && d.start_component + d.component_count <= 4,
                None => d.component_count >= 1,
            };
            if !fits {
                return Err(StreamOutputError::Components {
                    declaration: i,
                    name: name(),
                    start: d.start_component,
                    count: d.component_count,
                });
            }
            let slot = d.output_slot as usize;
            match stream_of[slot] {
                Some(other) if other != d.stream => {
                    return Err(StreamOutputError::SlotStreams {
                        declaration: i,
                        name: name(),
                        slot: d.output_slot,
                        other,
                    })
                }
                _ => stream_of[slot] = Some(d.stream),
            }
            let Some(&stride) = self.buffer_strides.get(slot) else {
                return Err(StreamOutputError::MissingStride {
                    declaration: i,
                    name: name(),
                    slot: d.output_slot,
                    given: self.buffer_strides.len(),
                });
            };
            if stride % 4 != 0 || stride > MAX_STRIDE {
                return Err(StreamOutputError::BadStride { slot: d.output_slot, stride });
            }
            let start = end[slot];
            end[slot] += 4 * u64::from(d.component_count);
            if end[slot] > u64::from(stride) {
                return Err(StreamOutputError::StrideTooSmall {
                    declaration: i,
                    name: name(),
                    slot: d.output_slot,
                    end: end[slot],
                    stride,
                });
            }
            offsets.push(start as u32); // start < stride <= 2048
        }
        Ok(offsets)
    }

    /// Validates the description against a shader's stage and output signature and lists
    /// its captures.
    pub(crate) fn plan(
        &self,
        stage: ShaderKind,
        outputs: &[SignatureElement],
    ) -> std::result::Result<XfbPlan, StreamOutputError> {
        if !matches!(stage, ShaderKind::Vertex | ShaderKind::Domain | ShaderKind::Geometry) {
            return Err(StreamOutputError::Stage { stage: format!("{stage:?}").to_lowercase() });
        }
        let offsets = self.layout()?;
        if stage != ShaderKind::Geometry {
            if let Some(stream @ 1..) = self.rasterized_stream {
                return Err(StreamOutputError::RasterizedStream {
                    stream,
                    reason: "only a geometry shader writes streams other than 0",
                });
            }
        }
        let mut captures = Vec::new();
        for (i, (d, &offset)) in self.declarations.iter().zip(&offsets).enumerate() {
            let Some(semantic) = &d.semantic else { continue };
            let found = outputs.iter().find_map(|e| {
                let row = row_of(e, semantic, d.semantic_index)?;
                (e.output_stream.unwrap_or(0) == d.stream).then_some((e, row))
            });
            let Some((e, row)) = found else {
                return Err(StreamOutputError::UnknownSemantic { declaration: i, name: d.label(), stream: d.stream });
            };
            let cols = e.cols.max(1);
            if d.start_component + d.component_count > cols {
                return Err(StreamOutputError::OutsideElement {
                    declaration: i,
                    name: d.label(),
                    start: d.start_component,
                    count: d.component_count,
                    cols,
                });
            }
            captures.push(Capture {
                declaration: i,
                element: e.id,
                row,
                first: d.start_component,
                count: d.component_count,
                buffer: d.output_slot,
                stream: d.stream,
                offset,
                stride: self.buffer_strides[d.output_slot as usize],
            });
        }
        Ok(XfbPlan { captures })
    }
}

/// The row of element `e` that semantic `name` / `index` names, if it is `e`'s.
fn row_of(e: &SignatureElement, name: &str, index: u32) -> Option<u32> {
    if !e.semantic.eq_ignore_ascii_case(name) {
        return None;
    }
    if e.semantic_indices.is_empty() {
        return (index == 0).then_some(0);
    }
    e.semantic_indices.iter().position(|&k| k == index).map(|r| r as u32)
}

/// One declaration applied to one row of one element: components `first..first + count`
/// to `buffer` at byte `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Capture {
    pub declaration: usize,
    /// The output element's signature id.
    pub element: u32,
    pub row: u32,
    pub first: u32,
    pub count: u32,
    pub buffer: u32,
    pub stream: u32,
    pub offset: u32,
    pub stride: u32,
}

impl Capture {
    /// The part of this capture that covers components `from..to` of its row.
    pub fn part(self, from: u32, to: u32) -> Capture {
        Capture { first: from, count: to - from, offset: self.offset + 4 * (from - self.first), ..self }
    }
}

/// The captures of one translation, in declaration order.
#[derive(Clone, Debug, Default)]
pub(crate) struct XfbPlan {
    pub captures: Vec<Capture>,
}

impl XfbPlan {
    pub fn of(&self, element: u32) -> impl Iterator<Item = &Capture> + '_ {
        self.captures.iter().filter(move |c| c.element == element)
    }

    /// How an output element with these properties is lowered, `None` when not captured.
    pub fn lowering(&self, el: &SignatureElement, builtin: Option<BuiltIn>) -> Option<Lowering> {
        let caps: Vec<Capture> = self.of(el.id).copied().collect();
        let first = *caps.first()?;
        let shared = matches!(builtin, Some(BuiltIn::ClipDistance | BuiltIn::CullDistance));
        Some(if el.rows <= 1 && first.first == 0 && first.count == el.cols.max(1) && !shared {
            Lowering::Whole(first)
        } else if builtin.is_none() {
            Lowering::Split
        } else {
            Lowering::Extra
        })
    }
}

/// How a captured output element is lowered (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lowering {
    Whole(Capture),
    Split,
    Extra,
}

/// A variable written at copy-out: components `first..first + count` of row `row` of an
/// element, carrying `capture` if any.
#[derive(Clone, Copy, Debug)]
pub(crate) struct XfbVar {
    pub var: Word,
    pub element: u32,
    pub row: u32,
    pub first: u32,
    pub count: u32,
    /// Extras get a fresh `Location` when the body is done.
    pub extra: bool,
}

/// The state of stream-output lowering during one translation ([`super::Interface::xfb`]).
#[derive(Default)]
pub(crate) struct XfbState {
    pub plan: XfbPlan,
    /// Split elements: where the element was placed (`Location`, `Component`).
    pub split_place: BTreeMap<u32, IoLocation>,
    /// Copy-out variables, created on first need (`transform_feedback`).
    pub vars: Option<Vec<XfbVar>>,
}

impl XfbState {
    pub fn new(plan: XfbPlan) -> XfbState {
        XfbState { plan, ..XfbState::default() }
    }
}
