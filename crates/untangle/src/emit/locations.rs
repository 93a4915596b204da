//! Where stage inputs and outputs go: the *location rule* and the callback that overrides
//! it.
//!
//! A signature element that is not a built-in is a varying: a vector of its columns (an
//! array of such vectors when it has several rows), always 32 bits wide per component;
//! loads and stores convert to and from the operation's overload (`interface`). Its place is
//! the *location rule* ([`default_location`], written down in `docs/stage-interfaces.md`): the
//! same element gets the same `Location`/`Component` in every stage, because D3D links
//! stages by signature register and both sides of a D3D link carry the same registers:
//!
//! - control-point and vertex data: `Location` = the element's start row, `Component` = its
//!   start column;
//! - patch constants (hull outputs, domain inputs; decorated `Patch`): start row + the
//!   number of rows of the stage's control-point signature (hull outputs, domain inputs), so
//!   per-patch and per-vertex locations never overlap whatever the implementation's view of
//!   the two location spaces;
//! - geometry-shader outputs of stream *s* > 0: start row + the rows of streams 0..*s*
//!   (D3D packs each stream from row 0; Vulkan needs distinct locations);
//! - mesh-shader per-primitive outputs (DXIL's primitive signature, decorated
//!   `PerPrimitiveEXT`): start row + the rows of the vertex output signature, as for patch
//!   constants. A pixel shader cannot tell which of its inputs a mesh shader writes per
//!   primitive (D3D's pixel signature does not say, and D3D links mesh and pixel shaders by
//!   semantic): [`crate::Options::per_primitive_inputs`] names them, and an [`IoRemap`] on
//!   both sides places them (`docs/stage-interfaces.md`).
//!
//! An [`IoRemap`] callback (library and C API) may place any varying elsewhere: a layer
//! matching vertex attributes to an input layout by semantic, or assigning locations across
//! stages itself, answers per element.
//!
//! A low-level module of `emit` (see its documentation): it imports only the layers below
//! `emit`. The interface (`interface`), stream output and the command line's reports use
//! it.

use crate::dxil::{SignatureElement, Signatures};
use crate::front::container::ShaderKind;

/// Which of an entry point's three signatures an element belongs to.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub enum SigKind {
    Input,
    Output,
    /// Hull shader outputs / domain shader inputs of the patch-constant signature.
    PatchConstant,
}

impl SigKind {
    /// The elements of this signature.
    pub fn of(self, sigs: &Signatures) -> &[SignatureElement] {
        match self {
            SigKind::Input => &sigs.inputs,
            SigKind::Output => &sigs.outputs,
            SigKind::PatchConstant => &sigs.patch_constants,
        }
    }
}

/// What an [`IoRemap`] callback is asked: one element of the shader's input (`output`
/// false), output or patch-constant (`patch`) signature that becomes a `Location`-decorated
/// variable (no built-in).
#[derive(Clone, Copy, Debug)]
pub struct IoQuery<'a> {
    pub stage: ShaderKind,
    /// An output of this stage (hull shader patch constants included).
    pub output: bool,
    /// A patch constant (hull outputs and domain inputs decorated `Patch`).
    pub patch: bool,
    /// Semantic name and index, component type, rows, columns, start row and column,
    /// geometry-shader output stream.
    pub element: &'a SignatureElement,
    /// Where the location rule ([`default_location`]) puts it.
    pub default: IoLocation,
}

/// Where an element goes: its first row's `Location` and its first `Component` (0–3).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct IoLocation {
    pub location: u32,
    pub component: u32,
}

/// How many locations an [`IoRemap`] answer may use: `location` + the element's rows must
/// not pass it. 64: twice the 32 four-component registers of a D3D12 signature (the location
/// rule's patch-constant and per-primitive offsets stay within it), and past every Vulkan
/// implementation's `maxVertexInputAttributes` and `maxFragmentInputComponents` / 4: an
/// answer beyond it makes a module no device can use (or overflows).
pub const MAX_REMAPPED_LOCATIONS: u32 = 64;

/// The name errors give the stage-I/O remapping callback ([`crate::emit::Error::Remap`]).
pub const IO_REMAP_CALLBACK: &str = "I/O remapping callback";

remap_callback! {
    /// A shared stage-I/O remapping callback ([`crate::Options::io_remap`]).
    pub struct IoRemap;
    /// The signature of a stage-I/O remapping callback: `Some` places the element, `None`
    /// keeps the default ([`default_location`]). Called once per element the shader uses, in a
    /// deterministic order.
    pub type IoRemapFn = Fn(&IoQuery) -> Option<IoLocation>;
}

/// Rows a signature uses: one past the last row of any element with a register (0 when
/// empty). Only elements of geometry-shader stream `stream` count when it is given.
pub fn signature_rows(elements: &[SignatureElement], stream: Option<u32>) -> u32 {
    elements
        .iter()
        .filter(|e| stream.is_none_or(|s| e.output_stream.unwrap_or(0) == s))
        .filter_map(|e| e.start_row.map(|r| r.saturating_add(e.rows.max(1))))
        .max()
        .unwrap_or(0)
}

/// The location rule: where untangle puts signature element `el` of signature `kind` of a
/// `stage` shader with signatures `sigs` when it is a varying and no [`IoRemap`] says
/// otherwise. `None` when the element has no register.
pub fn default_location(
    stage: ShaderKind,
    kind: SigKind,
    el: &SignatureElement,
    sigs: &Signatures,
) -> Option<IoLocation> {
    let row = el.start_row?;
    let offset = match (stage, kind) {
        (ShaderKind::Hull, SigKind::PatchConstant) => signature_rows(&sigs.outputs, None),
        (ShaderKind::Domain, SigKind::PatchConstant) => signature_rows(&sigs.inputs, None),
        (ShaderKind::Mesh, SigKind::PatchConstant) => signature_rows(&sigs.outputs, None),
        (ShaderKind::Geometry, SigKind::Output) => {
            let stream = el.output_stream.unwrap_or(0);
            (0..stream.min(4)).map(|s| signature_rows(&sigs.outputs, Some(s))).fold(0, u32::saturating_add)
        }
        _ => 0,
    };
    Some(IoLocation { location: row.saturating_add(offset), component: el.start_col.unwrap_or(0) })
}
