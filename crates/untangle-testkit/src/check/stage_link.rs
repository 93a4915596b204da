//! Do two translated stages link? Vulkan's *Interface Matching* rules between the outputs of
//! one pre-rasterization stage and the inputs of the next, checked on the SPIR-V words (what
//! `vkCreateGraphicsPipelines` relies on and `spirv-val`, which sees one module, cannot
//! check):
//!
//! - every user-defined input of the consumer (a `Location`-decorated variable) has an output
//!   of the producer at the same `Location`, `Component` (absent = 0) and per-patch-ness;
//! - their types, after removing the per-vertex array level of tessellation control,
//!   tessellation evaluation and geometry inputs and of tessellation control and mesh
//!   outputs, and of fragment inputs decorated `PerVertexKHR`, are
//!   the same, or (Vulkan 1.3's `maintenance4`) both vectors of one component type with the
//!   output the wider; a vector output read by a scalar input is reported separately
//!   ([`LinkError::NarrowedToScalar`]) because D3D accepts it and drivers match it, but
//!   Vulkan's written rule does not list it;
//! - built-in inputs that carry the previous stage's data (`Position`, `PointSize`,
//!   `ClipDistance`, `CullDistance`, `TessLevelOuter`, `TessLevelInner`) are written by the
//!   producer with the same type; fragment shader built-ins are exempt (Vulkan: "except for
//!   built-in variables in fragment shaders");
//! - a geometry shader's outputs of streams other than 0 do not feed the fragment shader;
//! - a mesh shader's per-primitive output and the fragment input at its place are both
//!   decorated `PerPrimitiveEXT`, or neither ([`LinkError::PerPrimitive`]).
//!
//! Interpolation decorations are outside the rule and are not compared.

use rspirv::dr::{Module, Operand};
use rspirv::spirv::{BuiltIn, Decoration, ExecutionModel, Op, StorageClass, Word};
use std::collections::HashMap;
use std::fmt;

/// The type of an interface variable, as far as matching is concerned.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum IoType {
    /// `(kind, width)`: kind is `f`, `i` (signed) or `u`.
    Scalar(char, u32),
    Vector(char, u32, u32),
    Array(Box<IoType>, u32),
    Bool,
    Other(String),
}

impl fmt::Display for IoType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IoType::Scalar(k, w) => write!(f, "{k}{w}"),
            IoType::Vector(k, w, n) => write!(f, "{k}{w}x{n}"),
            IoType::Array(e, n) => write!(f, "{e}[{n}]"),
            IoType::Bool => f.write_str("bool"),
            IoType::Other(s) => f.write_str(s),
        }
    }
}

/// One `Input` or `Output` variable of an entry point's interface.
#[derive(Clone, Debug)]
pub struct IoVar {
    pub name: String,
    pub location: Option<u32>,
    pub component: u32,
    pub builtin: Option<BuiltIn>,
    pub patch: bool,
    pub stream: u32,
    /// Decorated `PerPrimitiveEXT` (mesh shader primitive outputs, the pixel inputs they
    /// feed).
    pub per_primitive: bool,
    /// With the per-vertex (per-primitive) array level removed.
    pub ty: IoType,
}

/// The interface of one translated stage.
#[derive(Clone, Debug)]
pub struct StageIo {
    pub model: ExecutionModel,
    pub inputs: Vec<IoVar>,
    pub outputs: Vec<IoVar>,
}

/// Why a consumer input does not match.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LinkError {
    /// No producer output at the input's place.
    Missing { input: String, location: u32, component: u32, patch: bool },
    /// An output is there, of another type.
    Type { input: String, output: String, input_ty: String, output_ty: String },
    /// A vector output read by a scalar input (see the module docs).
    NarrowedToScalar { input: String, output: String },
    /// A built-in the consumer reads from the previous stage that the producer does not write.
    MissingBuiltIn { input: String, builtin: String },
    /// A pixel input and the mesh output at its place disagree on `PerPrimitiveEXT`.
    PerPrimitive { input: String, output: String },
}

impl StageIo {
    /// Reads the interface of the module's first entry point.
    pub fn from_words(words: &[u32]) -> Result<StageIo, String> {
        let m = rspirv::dr::load_words(words).map_err(|e| format!("not SPIR-V: {e}"))?;
        StageIo::from_module(&m)
    }

    pub fn from_module(m: &Module) -> Result<StageIo, String> {
        let ep = m.entry_points.first().ok_or("no entry point")?;
        let model = match ep.operands.first() {
            Some(Operand::ExecutionModel(e)) => *e,
            _ => return Err("entry point without an execution model".into()),
        };
        let iface: Vec<Word> = ep.operands[3..]
            .iter()
            .filter_map(|o| match o {
                Operand::IdRef(w) => Some(*w),
                _ => None,
            })
            .collect();
        let names: HashMap<Word, String> = m
            .debug_names
            .iter()
            .filter(|i| i.class.opcode == Op::Name)
            .filter_map(|i| match (&i.operands[0], &i.operands[1]) {
                (Operand::IdRef(t), Operand::LiteralString(s)) => Some((*t, s.clone())),
                _ => None,
            })
            .collect();
        let mut decos: HashMap<Word, Vec<(Decoration, Option<u32>)>> = HashMap::new();
        for d in &m.annotations {
            if d.class.opcode != Op::Decorate {
                continue;
            }
            let (Some(Operand::IdRef(t)), Some(Operand::Decoration(k))) = (d.operands.first(), d.operands.get(1))
            else {
                continue;
            };
            let lit = match d.operands.get(2) {
                Some(Operand::LiteralBit32(v)) => Some(*v),
                Some(Operand::BuiltIn(b)) => Some(*b as u32),
                _ => None,
            };
            decos.entry(*t).or_default().push((*k, lit));
        }
        let defs: HashMap<Word, &rspirv::dr::Instruction> =
            m.types_global_values.iter().filter_map(|i| i.result_id.map(|r| (r, i))).collect();
        let mut io = StageIo { model, inputs: Vec::new(), outputs: Vec::new() };
        for v in iface {
            let Some(var) = defs.get(&v) else { continue };
            if var.class.opcode != Op::Variable {
                continue;
            }
            let class = match var.operands.first() {
                Some(Operand::StorageClass(c)) => *c,
                _ => continue,
            };
            if class != StorageClass::Input && class != StorageClass::Output {
                continue;
            }
            let ptr = var.result_type.and_then(|t| defs.get(&t)).ok_or("variable without a pointer type")?;
            let pointee = match ptr.operands.get(1) {
                Some(Operand::IdRef(t)) => *t,
                _ => return Err("pointer type without a pointee".into()),
            };
            let ds = decos.get(&v).cloned().unwrap_or_default();
            let get = |k: Decoration| ds.iter().find(|(d, _)| *d == k).map(|(_, l)| l.unwrap_or(0));
            let builtin = get(Decoration::BuiltIn).and_then(BuiltIn::from_u32);
            let patch = get(Decoration::Patch).is_some();
            let mut ty = io_type(&defs, pointee);
            let input = class == StorageClass::Input;
            // A fragment input decorated `PerVertexKHR` (`VK_KHR_fragment_shader_barycentric`)
            // is an array of the vertices' values of the output at its place.
            let per_vertex_khr = input && model == ExecutionModel::Fragment && get(Decoration::PerVertexKHR).is_some();
            if per_vertex(model, input, patch, builtin)
                || (model == ExecutionModel::MeshEXT && !input)
                || per_vertex_khr
            {
                ty = match ty {
                    IoType::Array(e, _) => *e,
                    other => return Err(format!("per-vertex variable {v} is not an array ({other})")),
                };
            }
            let var = IoVar {
                name: names.get(&v).cloned().unwrap_or_else(|| format!("%{v}")),
                location: get(Decoration::Location),
                component: get(Decoration::Component).unwrap_or(0),
                builtin,
                patch,
                stream: get(Decoration::Stream).unwrap_or(0),
                per_primitive: get(Decoration::PerPrimitiveEXT).is_some(),
                ty,
            };
            if input {
                io.inputs.push(var);
            } else {
                io.outputs.push(var);
            }
        }
        Ok(io)
    }
}

/// Whether a variable has the extra per-vertex array level.
fn per_vertex(model: ExecutionModel, input: bool, patch: bool, builtin: Option<BuiltIn>) -> bool {
    let arrayed_builtin = matches!(
        builtin,
        None | Some(BuiltIn::Position | BuiltIn::PointSize | BuiltIn::ClipDistance | BuiltIn::CullDistance)
    );
    if patch || !arrayed_builtin {
        return false;
    }
    match model {
        ExecutionModel::TessellationControl => true,
        ExecutionModel::TessellationEvaluation | ExecutionModel::Geometry => input,
        _ => false,
    }
}

fn io_type(defs: &HashMap<Word, &rspirv::dr::Instruction>, t: Word) -> IoType {
    let Some(i) = defs.get(&t) else { return IoType::Other(format!("%{t}")) };
    let lit = |k: usize| match i.operands.get(k) {
        Some(Operand::LiteralBit32(v)) => *v,
        _ => 0,
    };
    let id = |k: usize| match i.operands.get(k) {
        Some(Operand::IdRef(v)) => *v,
        _ => 0,
    };
    match i.class.opcode {
        Op::TypeBool => IoType::Bool,
        Op::TypeFloat => IoType::Scalar('f', lit(0)),
        Op::TypeInt => IoType::Scalar(if lit(1) == 1 { 'i' } else { 'u' }, lit(0)),
        Op::TypeVector => match io_type(defs, id(0)) {
            IoType::Scalar(k, w) => IoType::Vector(k, w, lit(1)),
            other => IoType::Other(format!("vector of {other}")),
        },
        Op::TypeArray => {
            let len = defs
                .get(&id(1))
                .and_then(|c| match c.operands.first() {
                    Some(Operand::LiteralBit32(v)) => Some(*v),
                    _ => None,
                })
                .unwrap_or(0);
            IoType::Array(Box::new(io_type(defs, id(0))), len)
        }
        other => IoType::Other(format!("{other:?}")),
    }
}

/// Built-ins a consumer reads from the previous stage's outputs.
fn carried(b: BuiltIn) -> bool {
    matches!(
        b,
        BuiltIn::Position
            | BuiltIn::PointSize
            | BuiltIn::ClipDistance
            | BuiltIn::CullDistance
            | BuiltIn::TessLevelOuter
            | BuiltIn::TessLevelInner
    )
}

/// Checks the interface between `producer` (outputs) and the next stage `consumer`
/// (inputs); empty when they link.
pub fn link(producer: &StageIo, consumer: &StageIo) -> Vec<LinkError> {
    let to_fragment = consumer.model == ExecutionModel::Fragment;
    let outputs: Vec<&IoVar> = producer
        .outputs
        .iter()
        .filter(|o| !(to_fragment && producer.model == ExecutionModel::Geometry && o.stream != 0))
        .collect();
    let mut errors = Vec::new();
    for input in &consumer.inputs {
        match (input.builtin, input.location) {
            (Some(b), _) => {
                if to_fragment || !carried(b) {
                    continue;
                }
                match outputs.iter().find(|o| o.builtin == Some(b)) {
                    None => {
                        errors.push(LinkError::MissingBuiltIn { input: input.name.clone(), builtin: format!("{b:?}") })
                    }
                    Some(o) if o.ty != input.ty => errors.push(LinkError::Type {
                        input: input.name.clone(),
                        output: o.name.clone(),
                        input_ty: input.ty.to_string(),
                        output_ty: o.ty.to_string(),
                    }),
                    Some(_) => {}
                }
            }
            (None, Some(location)) => {
                let found = outputs.iter().find(|o| {
                    o.builtin.is_none()
                        && o.location == Some(location)
                        && o.component == input.component
                        && o.patch == input.patch
                });
                match found {
                    None => errors.push(LinkError::Missing {
                        input: input.name.clone(),
                        location,
                        component: input.component,
                        patch: input.patch,
                    }),
                    Some(o) if o.per_primitive != input.per_primitive => {
                        errors.push(LinkError::PerPrimitive { input: input.name.clone(), output: o.name.clone() })
                    }
                    Some(o) => match (&o.ty, &input.ty) {
                        (a, b) if a == b => {}
                        (IoType::Vector(k, w, n), IoType::Vector(k2, w2, n2)) if (k, w) == (k2, w2) && n > n2 => {}
                        (IoType::Vector(k, w, _), IoType::Scalar(k2, w2)) if (k, w) == (k2, w2) => errors
                            .push(LinkError::NarrowedToScalar { input: input.name.clone(), output: o.name.clone() }),
                        _ => errors.push(LinkError::Type {
                            input: input.name.clone(),
                            output: o.name.clone(),
                            input_ty: input.ty.to_string(),
                            output_ty: o.ty.to_string(),
                        }),
                    },
                }
            }
            (None, None) => errors.push(LinkError::Missing {
                input: input.name.clone(),
                location: u32::MAX,
                component: 0,
                patch: input.patch,
            }),
        }
    }
    errors
}
