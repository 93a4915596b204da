//! The SPIR-V module under construction, written straight into words.
//!
//! Each logical section of a module (SPIR-V 1.6 §2.4: capabilities, extensions, imports,
//! memory model, entry points, execution modes, debug names, annotations, types/constants/
//! globals, functions) is one `Vec<u32>`; an instruction is encoded into its section when it
//! is added, and [`Builder::assemble`] concatenates the sections behind the header. There
//! are no instruction objects, no operand enums per instruction and no second pass.
//!
//! The interface is the subset of rspirv's `dr::Builder` that the emitters use, with the
//! same meaning and the same result ids in the same order, so a module comes out word for
//! word as rspirv assembled it (`tests/translate_digests.rs` holds every corpus module to
//! that). Differences from rspirv's builder:
//! - **Type deduplication** (`type_*` without an explicit id returns the first identical
//!   type instruction, identical meaning same opcode and operands) is a hash map from the
//!   instruction's words to its id instead of a scan over every global instruction: O(1)
//!   per request instead of O(globals), which made type requests quadratic in module size.
//!   Types added with an explicit id are recorded too (the first one wins, as in the scan).
//! - Instructions go to the end of the current block only (no insertion points, no
//!   reselection of earlier blocks or functions: the emitters never use them). Function
//!   parameters must come before the function's first block.
//! - An instruction longer than SPIR-V's 65,535-word limit is not silently wrapped: it
//!   makes [`Builder::assemble`] fail.
//!
//! Besides rspirv's names, the emitters use word-level entry points: [`Builder::block_value`]
//! and [`Builder::block_inst`] take operand words as they are encoded, and module-scope
//! `OpUndef`/`OpVariable` have their own methods (rspirv's would go into an open block).
//! Operands that rspirv's signatures take as [`Operand`]s (decorations, memory-access
//! extras, loop controls, switch literals) are encoded with rspirv's own operand encoder.
//!
//! Cost: O(words) to build and assemble; a hash lookup per type request.
//!
//! A low-level module of `emit` (see its documentation): it imports nothing from `emit`.

use super::access;
use super::cleanup::{self, Answer, Cleanup, TABLE_ROOM};
use foldhash::fast::FixedState;
use rspirv::binary::Assemble;
use rspirv::dr::Operand;
use rspirv::spirv::{self, Op, Word};
use smallvec::SmallVec;
use std::collections::HashMap;

/// A sequence the module structure forbids (an emitter bug), or an instruction too long to
/// encode. The names are rspirv's for the same conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// An instruction outside any block.
    DetachedInstruction,
    /// A block outside any function.
    DetachedBlock,
    /// A block begun while another is open.
    NestedBlock,
    /// A function begun inside another.
    NestedFunction,
    /// A function ended outside any function, or with a block still open.
    MismatchedFunctionEnd,
    /// A terminator outside any block.
    MismatchedTerminator,
    /// A parameter outside a function, or after its first block.
    DetachedFunctionParameter,
    /// An instruction of more than 65,535 words.
    InstructionTooLong,
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self, f)
    }
}

impl std::error::Error for BuildError {}

pub type BuildResult<T> = Result<T, BuildError>;

/// Where the function under construction stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Position {
    /// Between functions.
    Module,
    /// In a function, before its first block (parameters go here).
    FunctionHead,
    /// In a function, between blocks.
    Function,
    /// In an open block.
    Block,
}

/// A type instruction's opcode and operand words.
type TypeKey = SmallVec<[Word; 8]>;

/// SPIR-V's header generator word as rspirv writes it (its registered tool id, version 0).
const GENERATOR: Word = 0x000f_0000;

pub struct Builder {
    next_id: Word,
    version: Word,
    capabilities: Vec<Word>,
    extensions: Vec<Word>,
    ext_inst_imports: Vec<Word>,
    memory_model: Option<[Word; 3]>,
    /// The module needs the Vulkan memory model (cooperative matrices): the memory model
    /// written is `Vulkan` whatever addressing model was set.
    pub vulkan_memory_model: bool,
    entry_points: Vec<Word>,
    execution_modes: Vec<Word>,
    debug_names: Vec<Word>,
    annotations: Vec<Word>,
    /// Types, constants and module-scope variables, in the order they were added.
    globals: Vec<Word>,
    functions: Vec<Word>,
    /// Where the function under construction (or the last one) begins in `functions`.
    function_start: usize,
    position: Position,
    /// The label of the open block (or of the last one).
    label: Word,
    /// Each type instruction's opcode and operands → its result id (the first one added).
    /// Keys of up to 8 words (every type but large structs) are stored inline.
    types: HashMap<TypeKey, Word, FixedState>,
    /// Set when an instruction exceeded 65,535 words.
    too_long: bool,
    /// The local clean-ups ([`cleanup`]), once [`Builder::enable_cleanup`] turned them on.
    cleanup: Option<Box<Cleanup>>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

/// Encode one instruction at the end of `out`. Returns `false` when it is too long.
#[inline]
fn encode(out: &mut Vec<Word>, op: Op, ty: Option<Word>, id: Option<Word>, operands: &[Word]) -> bool {
    let len = 1 + usize::from(ty.is_some()) + usize::from(id.is_some()) + operands.len();
    out.reserve(len);
    out.push(((len as u32) << 16) | (op as u32));
    if let Some(t) = ty {
        out.push(t);
    }
    if let Some(i) = id {
        out.push(i);
    }
    out.extend_from_slice(operands);
    len <= 0xffff
}

/// How many words [`push_str`] writes for `s`.
fn str_words(s: &str) -> usize {
    s.len() / 4 + 1
}

/// The words of a literal string: UTF-8, NUL-terminated, zero-padded to a word.
fn push_str(out: &mut Vec<Word>, s: &str) {
    let bytes = s.as_bytes();
    let chunks = bytes.chunks_exact(4);
    let rest = chunks.remainder();
    out.extend(chunks.map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    let mut last = [0u8; 4];
    last[..rest.len()].copy_from_slice(rest);
    out.push(u32::from_le_bytes(last));
}

/// Builds an instruction whose operands are not a plain word slice: header word first,
/// its length patched in at the end.
struct Open {
    start: usize,
}

impl Open {
    fn begin(out: &mut Vec<Word>, op: Op, ty: Option<Word>, id: Option<Word>) -> Open {
        let start = out.len();
        out.push(op as u32);
        out.extend(ty);
        out.extend(id);
        Open { start }
    }

    /// Patch the word count; `false` when it is too long.
    fn finish(self, out: &mut [Word]) -> bool {
        let len = out.len() - self.start;
        out[self.start] |= (len as u32) << 16;
        len <= 0xffff
    }
}

/// Starting capacities of a [`Builder`]'s sections, scaled to the input: one translation
/// of a tiny shader should not allocate (and free) tens of KiB of room it never uses, and
/// allocations above glibc's per-thread cache size (1 KiB) take its slower paths. The caps
/// are the sizes most shaders' sections reach, so large inputs grow as before. Capacities
/// never change the words written (no table here is iterated for output).
#[derive(Clone, Copy, Debug)]
pub struct Room {
    /// The input's instruction count (IR instructions of its defined functions).
    pub insts: usize,
}

impl Room {
    /// Room for inputs of any size: the caps.
    pub const LARGE: Room = Room { insts: usize::MAX / 16 };

    /// `per_inst` per input instruction, at least `min` and at most `max`.
    pub fn scaled(self, per_inst: usize, min: usize, max: usize) -> usize {
        self.insts.saturating_mul(per_inst).clamp(min, max)
    }
}

impl Builder {
    pub fn new() -> Builder {
        Builder::with_room(Room::LARGE)
    }

    /// A builder whose sections start with room for an input of `room`'s size.
    pub fn with_room(room: Room) -> Builder {
        Builder {
            next_id: 1,
            version: (u32::from(spirv::MAJOR_VERSION) << 16) | (u32::from(spirv::MINOR_VERSION) << 8),
            // `Shader` and the few a small shader adds, without growing step by step.
            capabilities: Vec::with_capacity(16),
            extensions: Vec::new(),
            ext_inst_imports: Vec::new(),
            memory_model: None,
            vulkan_memory_model: false,
            // One entry point (its interface lists every global variable) and a few modes:
            // sized once instead of grown from empty.
            entry_points: Vec::with_capacity(room.scaled(1, 16, 64)),
            execution_modes: Vec::with_capacity(16),
            debug_names: Vec::with_capacity(room.scaled(2, 64, 256)),
            annotations: Vec::with_capacity(room.scaled(2, 64, 128)),
            globals: Vec::with_capacity(room.scaled(4, 128, 512)),
            functions: Vec::with_capacity(room.scaled(8, 256, 2048)),
            function_start: 0,
            position: Position::Module,
            label: 0,
            types: HashMap::with_capacity_and_hasher(room.scaled(1, 16, 64), FixedState::default()),
            too_long: false,
            cleanup: None,
        }
    }

    /// Turns on the local clean-ups of `cleanup` (value numbering and load reuse in
    /// blocks, extracts of constructs, dead code at each function's end) for everything
    /// written from now on. Before any type, constant or function is added.
    pub fn enable_cleanup(&mut self, room: Room) {
        self.cleanup = Some(Box::new(Cleanup::with_room(room.scaled(4, 16, TABLE_ROOM), room.scaled(4, 64, 256))));
    }

    pub fn set_version(&mut self, major: u8, minor: u8) {
        self.version = (u32::from(major) << 16) | (u32::from(minor) << 8);
    }

    /// A fresh result id.
    #[inline]
    pub fn id(&mut self) -> Word {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// The module: header (bound = the next unused id) and every section in order; with
    /// the clean-ups on, without the types, constants, undefs and storage-buffer variables
    /// nothing uses (`cleanup::prune_globals`) and their names, decorations and places in
    /// entry-point interfaces, and with `NonWritable`/`NonReadable` on the storage buffers and
    /// images the functions only read or only write (`access`).
    pub fn assemble(&self) -> BuildResult<Vec<Word>> {
        if self.too_long {
            return Err(BuildError::InstructionTooLong);
        }
        let Some(c) = &self.cleanup else {
            return Ok(self.assemble_with(&self.globals, None));
        };
        let users = [&self.entry_points[..], &self.execution_modes[..]];
        let (globals, removed) =
            cleanup::prune_globals(&self.globals, c.function_uses(), &users, &self.annotations, self.next_id);
        let access = access::access_decorations(&globals, &self.annotations, &self.functions, self.next_id);
        Ok(self.assemble_with(&globals, Some((&removed, &access))))
    }

    /// The module with global section `globals`. With `cleaned` (the ids
    /// [`cleanup::prune_globals`] removed, the access decorations): without the width
    /// capabilities no type needs, without the removed ids' names, decorations and
    /// interface entries, with the access decorations after the others. Each section is
    /// filtered straight into the module (one allocation), never copied first.
    fn assemble_with(&self, globals: &[Word], cleaned: Option<(&cleanup::IdSet, &[Word])>) -> Vec<Word> {
        let access = cleaned.map_or(&[][..], |(_, access)| access);
        let sections = [
            &self.capabilities,
            &self.extensions,
            &self.ext_inst_imports,
            &self.entry_points,
            &self.execution_modes,
            &self.debug_names,
            &self.annotations,
            access,
            globals,
            &self.functions,
        ];
        let total = 5 + 3 + sections.iter().map(|s| s.len()).sum::<usize>();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(&[spirv::MAGIC_NUMBER, self.version, GENERATOR, self.next_id, 0]);
        match cleaned {
            Some(_) => cleanup::extend_width_capabilities_used(&mut out, &self.capabilities, globals),
            None => out.extend_from_slice(&self.capabilities),
        }
        out.extend_from_slice(&self.extensions);
        out.extend_from_slice(&self.ext_inst_imports);
        if let Some(mut mm) = self.memory_model {
            if self.vulkan_memory_model {
                mm[2] = spirv::MemoryModel::Vulkan as u32;
            }
            out.extend_from_slice(&mm);
        }
        let none = cleanup::IdSet::default();
        let removed = cleaned.map_or(&none, |(removed, _)| removed);
        cleanup::extend_without_interface(&mut out, &self.entry_points, removed);
        out.extend_from_slice(&self.execution_modes);
        cleanup::extend_without_targets(&mut out, &self.debug_names, removed);
        cleanup::extend_without_targets(&mut out, &self.annotations, removed);
        out.extend_from_slice(access);
        out.extend_from_slice(globals);
        out.extend_from_slice(&self.functions);
        out
    }

    // --- low-level appends ---

    #[inline]
    fn note(&mut self, fits: bool) {
        self.too_long |= !fits;
    }

    /// An instruction at the end of the open block, its operands given as words.
    #[inline]
    pub fn block_inst(&mut self, op: Op, ty: Option<Word>, id: Option<Word>, operands: &[Word]) -> BuildResult<()> {
        if self.position != Position::Block {
            return Err(BuildError::DetachedInstruction);
        }
        if let Some(c) = &mut self.cleanup {
            c.effect(op, operands);
        }
        let fits = encode(&mut self.functions, op, ty, id, operands);
        self.note(fits);
        Ok(())
    }

    /// An instruction with a fresh result id at the end of the open block; returns the id.
    #[inline]
    pub fn block_value(&mut self, op: Op, ty: Word, operands: &[Word]) -> BuildResult<Word> {
        if self.position == Position::Block {
            if let Some(c) = &mut self.cleanup {
                match c.before(op, ty, operands, self.next_id) {
                    Answer::Reuse(id) => return Ok(id),
                    Answer::Extract(vector, k) => return self.block_value(Op::CompositeExtract, ty, &[vector, k]),
                    Answer::Write => {}
                }
            }
        }
        let id = self.id();
        self.block_inst(op, Some(ty), Some(id), operands)?;
        if let Some(c) = &mut self.cleanup {
            c.after(op, ty, id, operands);
        }
        Ok(id)
    }

    /// An instruction at the end of the open block, its operands as rspirv [`Operand`]s.
    pub fn block_inst_operands(
        &mut self,
        op: Op,
        ty: Option<Word>,
        id: Option<Word>,
        operands: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<()> {
        if self.position != Position::Block {
            return Err(BuildError::DetachedInstruction);
        }
        if let Some(c) = &mut self.cleanup {
            c.effect(op, &[]);
        }
        let open = Open::begin(&mut self.functions, op, ty, id);
        for o in operands {
            o.assemble_into(&mut self.functions);
        }
        let fits = open.finish(&mut self.functions);
        self.note(fits);
        Ok(())
    }

    /// An instruction at the end of the open block whose operands `fill` writes in place
    /// (operand lists of any length, not gathered first); returns its result id
    /// (`result_id`, or a fresh one).
    fn block_list_inst(
        &mut self,
        op: Op,
        ty: Word,
        result_id: Option<Word>,
        fill: impl FnOnce(&mut Vec<Word>),
    ) -> BuildResult<Word> {
        let id = result_id.unwrap_or_else(|| self.id());
        if self.position != Position::Block {
            return Err(BuildError::DetachedInstruction);
        }
        if let Some(c) = &mut self.cleanup {
            c.effect(op, &[]);
        }
        let open = Open::begin(&mut self.functions, op, Some(ty), Some(id));
        fill(&mut self.functions);
        let fits = open.finish(&mut self.functions);
        self.note(fits);
        Ok(id)
    }

    /// A terminator: the block ends.
    fn terminate(&mut self, op: Op, operands: &[Word]) -> BuildResult<()> {
        if self.position != Position::Block {
            return Err(BuildError::MismatchedTerminator);
        }
        let fits = encode(&mut self.functions, op, None, None, operands);
        self.note(fits);
        self.position = Position::Function;
        Ok(())
    }

    /// A type, constant or variable in the global section.
    #[inline]
    pub fn global_inst(&mut self, op: Op, ty: Option<Word>, id: Option<Word>, operands: &[Word]) {
        let fits = encode(&mut self.globals, op, ty, id, operands);
        self.note(fits);
    }

    /// A type instruction: the existing id of an identical one, else `result_id` or a fresh
    /// id for a new one. With an explicit `result_id` the instruction is always added.
    fn type_inst(&mut self, op: Op, result_id: Option<Word>, operands: &[Word]) -> Word {
        // Built inline (no scratch vector) and moved into the table when new.
        let mut key = TypeKey::new();
        key.push(op as u32);
        key.extend_from_slice(operands);
        let id = match result_id {
            Some(id) => {
                self.types.entry(key).or_insert(id);
                id
            }
            None => {
                if let Some(&id) = self.types.get(key.as_slice()) {
                    return id;
                }
                let id = self.id();
                self.types.insert(key, id);
                id
            }
        };
        self.global_inst(op, None, Some(id), operands);
        if let Some(c) = &mut self.cleanup {
            match op {
                Op::TypeStruct => c.struct_type(id),
                Op::TypePointer => c.pointer_type(id, operands[0]),
                Op::TypeVector => c.vector_type(id, operands[0]),
                _ => {}
            }
        }
        id
    }

    // --- module-level instructions ---

    pub fn capability(&mut self, capability: spirv::Capability) {
        let fits = encode(&mut self.capabilities, Op::Capability, None, None, &[capability as u32]);
        self.note(fits);
    }

    /// Appends one instruction `op` (no result type; result `id` if any) to the section
    /// `section` picks, its operands written in place by `fill`: the one encoder behind the
    /// module-level methods below. `operands` is the operand count when known in advance (0
    /// when not): the section then grows once, not word by word from empty.
    fn section_inst(
        &mut self,
        section: fn(&mut Builder) -> &mut Vec<Word>,
        op: Op,
        id: Option<Word>,
        operands: usize,
        fill: impl FnOnce(&mut Vec<Word>),
    ) {
        let out = section(self);
        out.reserve(2 + operands);
        let open = Open::begin(out, op, None, id);
        fill(out);
        let fits = open.finish(out);
        self.note(fits);
    }

    pub fn extension(&mut self, name: &str) {
        self.section_inst(|b| &mut b.extensions, Op::Extension, None, str_words(name), |out| push_str(out, name));
    }

    pub fn ext_inst_import(&mut self, set: &str) -> Word {
        let id = self.id();
        let words = str_words(set);
        self.section_inst(|b| &mut b.ext_inst_imports, Op::ExtInstImport, Some(id), words, |out| push_str(out, set));
        if set == "GLSL.std.450" {
            if let Some(c) = &mut self.cleanup {
                c.glsl_import(id);
            }
        }
        id
    }

    /// Sets (or replaces) the memory model.
    pub fn memory_model(&mut self, addressing: spirv::AddressingModel, memory: spirv::MemoryModel) {
        self.memory_model = Some([(3 << 16) | Op::MemoryModel as u32, addressing as u32, memory as u32]);
    }

    pub fn entry_point(
        &mut self,
        model: spirv::ExecutionModel,
        function: Word,
        name: &str,
        interface: impl AsRef<[Word]>,
    ) {
        let words = 2 + str_words(name) + interface.as_ref().len();
        self.section_inst(
            |b| &mut b.entry_points,
            Op::EntryPoint,
            None,
            words,
            |out| {
                out.extend_from_slice(&[model as u32, function]);
                push_str(out, name);
                out.extend_from_slice(interface.as_ref());
            },
        );
    }

    pub fn execution_mode(&mut self, function: Word, mode: spirv::ExecutionMode, params: impl AsRef<[u32]>) {
        self.mode_inst(Op::ExecutionMode, function, mode, params.as_ref());
    }

    /// `OpExecutionModeId`: a mode whose operands are ids.
    pub fn execution_mode_id(&mut self, function: Word, mode: spirv::ExecutionMode, ids: impl AsRef<[Word]>) {
        self.mode_inst(Op::ExecutionModeId, function, mode, ids.as_ref());
    }

    fn mode_inst(&mut self, op: Op, function: Word, mode: spirv::ExecutionMode, operands: &[Word]) {
        self.section_inst(
            |b| &mut b.execution_modes,
            op,
            None,
            2 + operands.len(),
            |out| {
                out.extend_from_slice(&[function, mode as u32]);
                out.extend_from_slice(operands);
            },
        );
    }

    pub fn name(&mut self, target: Word, name: impl AsRef<str>) {
        self.named(Op::Name, &[target], name.as_ref());
    }

    pub fn member_name(&mut self, ty: Word, member: u32, name: impl AsRef<str>) {
        self.named(Op::MemberName, &[ty, member], name.as_ref());
    }

    fn named(&mut self, op: Op, target: &[Word], name: &str) {
        self.section_inst(
            |b| &mut b.debug_names,
            op,
            None,
            target.len() + str_words(name),
            |out| {
                out.extend_from_slice(target);
                push_str(out, name);
            },
        );
    }

    pub fn decorate(&mut self, target: Word, decoration: spirv::Decoration, params: impl IntoIterator<Item = Operand>) {
        self.decoration(Op::Decorate, &[target, decoration as u32], params);
    }

    /// `OpDecorate` with literal operands.
    pub fn decorate_literals(&mut self, target: Word, decoration: spirv::Decoration, literals: &[u32]) {
        self.section_inst(
            |b| &mut b.annotations,
            Op::Decorate,
            None,
            2 + literals.len(),
            |out| {
                out.extend_from_slice(&[target, decoration as u32]);
                out.extend_from_slice(literals);
            },
        );
    }

    pub fn member_decorate(
        &mut self,
        ty: Word,
        member: u32,
        decoration: spirv::Decoration,
        params: impl IntoIterator<Item = Operand>,
    ) {
        self.decoration(Op::MemberDecorate, &[ty, member, decoration as u32], params);
    }

    /// `OpDecorate`/`OpMemberDecorate`: `head` (target, member, decoration), then `params`.
    fn decoration(&mut self, op: Op, head: &[Word], params: impl IntoIterator<Item = Operand>) {
        self.section_inst(
            |b| &mut b.annotations,
            op,
            None,
            head.len(),
            |out| {
                out.extend_from_slice(head);
                for p in params {
                    p.assemble_into(out);
                }
            },
        );
    }

    // --- types (deduplicated) ---

    pub fn type_void(&mut self) -> Word {
        self.type_inst(Op::TypeVoid, None, &[])
    }

    pub fn type_bool(&mut self) -> Word {
        self.type_inst(Op::TypeBool, None, &[])
    }

    pub fn type_int(&mut self, width: u32, signedness: u32) -> Word {
        self.type_inst(Op::TypeInt, None, &[width, signedness])
    }

    pub fn type_float(&mut self, width: u32, encoding: Option<spirv::FPEncoding>) -> Word {
        match encoding {
            None => self.type_inst(Op::TypeFloat, None, &[width]),
            Some(e) => self.type_inst(Op::TypeFloat, None, &[width, e as u32]),
        }
    }

    pub fn type_vector(&mut self, component: Word, count: u32) -> Word {
        self.type_inst(Op::TypeVector, None, &[component, count])
    }

    #[allow(clippy::too_many_arguments)]
    pub fn type_image(
        &mut self,
        sampled_type: Word,
        dim: spirv::Dim,
        depth: u32,
        arrayed: u32,
        ms: u32,
        sampled: u32,
        format: spirv::ImageFormat,
        access: Option<spirv::AccessQualifier>,
    ) -> Word {
        let ops = [sampled_type, dim as u32, depth, arrayed, ms, sampled, format as u32];
        match access {
            None => self.type_inst(Op::TypeImage, None, &ops),
            Some(a) => {
                let mut with = [0; 8];
                with[..7].copy_from_slice(&ops);
                with[7] = a as u32;
                self.type_inst(Op::TypeImage, None, &with)
            }
        }
    }

    pub fn type_sampler(&mut self) -> Word {
        self.type_inst(Op::TypeSampler, None, &[])
    }

    pub fn type_matrix(&mut self, column: Word, count: u32) -> Word {
        self.type_inst(Op::TypeMatrix, None, &[column, count])
    }

    /// `OpTypeCooperativeMatrixKHR` (scope, rows, columns and use are constant ids).
    pub fn type_cooperative_matrix_khr(
        &mut self,
        component: Word,
        scope: Word,
        rows: Word,
        cols: Word,
        usage: Word,
    ) -> Word {
        self.type_inst(Op::TypeCooperativeMatrixKHR, None, &[component, scope, rows, cols, usage])
    }

    /// `OpTypeCooperativeVectorNV` (`SPV_NV_cooperative_vector`; the count is a constant id).
    pub fn type_cooperative_vector_nv(&mut self, component: Word, count: Word) -> Word {
        self.type_inst(Op::TypeCooperativeVectorNV, None, &[component, count])
    }

    pub fn type_acceleration_structure(&mut self) -> Word {
        self.type_inst(Op::TypeAccelerationStructureKHR, None, &[])
    }

    pub fn type_hit_object_nv(&mut self) -> Word {
        self.type_inst(Op::TypeHitObjectNV, None, &[])
    }

    pub fn type_hit_object_ext(&mut self) -> Word {
        self.type_inst(Op::TypeHitObjectEXT, None, &[])
    }

    pub fn type_ray_query(&mut self) -> Word {
        self.type_inst(Op::TypeRayQueryKHR, None, &[])
    }

    pub fn type_sampled_image(&mut self, image: Word) -> Word {
        self.type_inst(Op::TypeSampledImage, None, &[image])
    }

    pub fn type_array(&mut self, element: Word, length: Word) -> Word {
        self.type_inst(Op::TypeArray, None, &[element, length])
    }

    pub fn type_array_id(&mut self, result_id: Option<Word>, element: Word, length: Word) -> Word {
        self.type_inst(Op::TypeArray, result_id, &[element, length])
    }

    pub fn type_runtime_array(&mut self, element: Word) -> Word {
        self.type_inst(Op::TypeRuntimeArray, None, &[element])
    }

    pub fn type_runtime_array_id(&mut self, result_id: Option<Word>, element: Word) -> Word {
        self.type_inst(Op::TypeRuntimeArray, result_id, &[element])
    }

    pub fn type_struct(&mut self, members: impl AsRef<[Word]>) -> Word {
        self.type_inst(Op::TypeStruct, None, members.as_ref())
    }

    pub fn type_struct_id(&mut self, result_id: Option<Word>, members: impl AsRef<[Word]>) -> Word {
        self.type_inst(Op::TypeStruct, result_id, members.as_ref())
    }

    pub fn type_pointer(&mut self, result_id: Option<Word>, class: spirv::StorageClass, pointee: Word) -> Word {
        self.type_inst(Op::TypePointer, result_id, &[class as u32, pointee])
    }

    pub fn type_function(&mut self, ret: Word, params: impl AsRef<[Word]>) -> Word {
        let mut ops = Vec::with_capacity(1 + params.as_ref().len());
        ops.push(ret);
        ops.extend_from_slice(params.as_ref());
        self.type_inst(Op::TypeFunction, None, &ops)
    }

    // --- constants and global values (not deduplicated: callers cache them) ---

    fn constant_inst(&mut self, op: Op, ty: Word, operands: &[Word]) -> Word {
        let id = self.id();
        self.global_inst(op, Some(ty), Some(id), operands);
        if let Some(c) = &mut self.cleanup {
            c.value(id, ty);
        }
        id
    }

    pub fn constant_true(&mut self, ty: Word) -> Word {
        self.constant_inst(Op::ConstantTrue, ty, &[])
    }

    pub fn constant_false(&mut self, ty: Word) -> Word {
        self.constant_inst(Op::ConstantFalse, ty, &[])
    }

    pub fn constant_bit32(&mut self, ty: Word, value: u32) -> Word {
        self.constant_inst(Op::Constant, ty, &[value])
    }

    pub fn constant_bit64(&mut self, ty: Word, value: u64) -> Word {
        self.constant_inst(Op::Constant, ty, &[value as u32, (value >> 32) as u32])
    }

    pub fn constant_null(&mut self, ty: Word) -> Word {
        self.constant_inst(Op::ConstantNull, ty, &[])
    }

    pub fn constant_composite(&mut self, ty: Word, constituents: impl AsRef<[Word]>) -> Word {
        self.constant_inst(Op::ConstantComposite, ty, constituents.as_ref())
    }

    /// `OpUndef` in the global section (whether or not a block is open).
    pub fn global_undef(&mut self, ty: Word) -> Word {
        self.constant_inst(Op::Undef, ty, &[])
    }

    /// A module-scope `OpVariable` (whether or not a block is open).
    pub fn global_variable(&mut self, ptr: Word, class: spirv::StorageClass, init: Option<Word>) -> Word {
        let id = self.id();
        if let Some(c) = &mut self.cleanup {
            c.value(id, ptr);
        }
        match init {
            Some(i) => self.global_inst(Op::Variable, Some(ptr), Some(id), &[class as u32, i]),
            None => self.global_inst(Op::Variable, Some(ptr), Some(id), &[class as u32]),
        }
        id
    }

    /// `OpVariable`: in the open block if there is one, else module-scope.
    pub fn variable(
        &mut self,
        ptr: Word,
        result_id: Option<Word>,
        class: spirv::StorageClass,
        init: Option<Word>,
    ) -> Word {
        let id = result_id.unwrap_or_else(|| self.id());
        if let Some(c) = &mut self.cleanup {
            c.value(id, ptr);
        }
        let ops = [class as u32, init.unwrap_or(0)];
        let ops = if init.is_some() { &ops[..] } else { &ops[..1] };
        if self.position == Position::Block {
            let fits = encode(&mut self.functions, Op::Variable, Some(ptr), Some(id), ops);
            self.note(fits);
        } else {
            self.global_inst(Op::Variable, Some(ptr), Some(id), ops);
        }
        id
    }

    // --- functions and blocks ---

    pub fn begin_function(
        &mut self,
        ret: Word,
        function_id: Option<Word>,
        control: spirv::FunctionControl,
        function_type: Word,
    ) -> BuildResult<Word> {
        if self.position != Position::Module {
            return Err(BuildError::NestedFunction);
        }
        let id = function_id.unwrap_or_else(|| self.id());
        self.function_start = self.functions.len();
        if let Some(c) = &mut self.cleanup {
            c.begin_function();
        }
        encode(&mut self.functions, Op::Function, Some(ret), Some(id), &[control.bits(), function_type]);
        self.position = Position::FunctionHead;
        Ok(id)
    }

    pub fn function_parameter(&mut self, ty: Word) -> BuildResult<Word> {
        if self.position != Position::FunctionHead {
            return Err(BuildError::DetachedFunctionParameter);
        }
        let id = self.id();
        if let Some(c) = &mut self.cleanup {
            c.value(id, ty);
        }
        encode(&mut self.functions, Op::FunctionParameter, Some(ty), Some(id), &[]);
        Ok(id)
    }

    pub fn end_function(&mut self) -> BuildResult<()> {
        if !matches!(self.position, Position::FunctionHead | Position::Function) {
            return Err(BuildError::MismatchedFunctionEnd);
        }
        if let Some(c) = &mut self.cleanup {
            let removed = c.remove_dead(&mut self.functions, self.function_start, self.next_id);
            if !removed.is_empty() {
                cleanup::drop_targets(&mut self.debug_names, &removed);
                cleanup::drop_targets(&mut self.annotations, &removed);
            }
        }
        encode(&mut self.functions, Op::FunctionEnd, None, None, &[]);
        self.position = Position::Module;
        Ok(())
    }

    pub fn begin_block(&mut self, label: Option<Word>) -> BuildResult<Word> {
        match self.position {
            Position::Module => return Err(BuildError::DetachedBlock),
            Position::Block => return Err(BuildError::NestedBlock),
            Position::FunctionHead | Position::Function => {}
        }
        let id = label.unwrap_or_else(|| self.id());
        if let Some(c) = &mut self.cleanup {
            c.begin_block();
        }
        encode(&mut self.functions, Op::Label, None, Some(id), &[]);
        self.position = Position::Block;
        self.label = id;
        Ok(id)
    }

    /// The label of the open block; `None` outside a block.
    pub fn current_label(&self) -> Option<Word> {
        (self.position == Position::Block).then_some(self.label)
    }

    /// Where the next instruction of the open function is encoded: an insertion point for
    /// [`Builder::insert_function_variables`], taken after the first block's variables.
    pub fn function_offset(&self) -> usize {
        self.functions.len()
    }

    /// Inserts `Function` variables `(pointer type, id)` at `at` (a
    /// [`Builder::function_offset`] of the open function, among its first block's
    /// variables): for variables whose need shows only while the body is emitted.
    pub fn insert_function_variables(&mut self, at: usize, vars: &[(Word, Word)]) {
        let mut words = Vec::new();
        for &(ptr, id) in vars {
            if let Some(c) = &mut self.cleanup {
                c.value(id, ptr);
            }
            let fits = encode(&mut words, Op::Variable, Some(ptr), Some(id), &[spirv::StorageClass::Function as u32]);
            self.note(fits);
        }
        let at = at.clamp(self.function_start, self.functions.len());
        self.functions.splice(at..at, words);
    }

    /// The functions section (every function so far, as encoded): for fix-ups that insert
    /// instructions into a finished function. Callers keep it a sequence of whole
    /// instructions.
    pub fn functions_words_mut(&mut self) -> &mut Vec<Word> {
        &mut self.functions
    }

    /// The words of the function under construction, or the last one built: for fix-ups
    /// that need every block of the function written first.
    pub fn current_function_words_mut(&mut self) -> &mut [Word] {
        &mut self.functions[self.function_start..]
    }

    // --- instructions in blocks ---

    pub fn load(
        &mut self,
        ty: Word,
        result_id: Option<Word>,
        pointer: Word,
        access: Option<spirv::MemoryAccess>,
        params: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<Word> {
        let id = result_id.unwrap_or_else(|| self.id());
        let mut params = params.into_iter().peekable();
        match (access, params.peek()) {
            (None, None) => self.block_inst(Op::Load, Some(ty), Some(id), &[pointer])?,
            _ => {
                let ops =
                    std::iter::once(Operand::IdRef(pointer)).chain(access.map(Operand::MemoryAccess)).chain(params);
                self.block_inst_operands(Op::Load, Some(ty), Some(id), ops)?
            }
        }
        Ok(id)
    }

    pub fn store(
        &mut self,
        pointer: Word,
        object: Word,
        access: Option<spirv::MemoryAccess>,
        params: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<()> {
        let mut params = params.into_iter().peekable();
        match (access, params.peek()) {
            (None, None) => self.block_inst(Op::Store, None, None, &[pointer, object]),
            _ => {
                let ops = [Operand::IdRef(pointer), Operand::IdRef(object)]
                    .into_iter()
                    .chain(access.map(Operand::MemoryAccess))
                    .chain(params);
                self.block_inst_operands(Op::Store, None, None, ops)
            }
        }
    }

    /// `OpPhi` from (value, parent label) pairs.
    pub fn phi(
        &mut self,
        ty: Word,
        result_id: Option<Word>,
        incoming: impl IntoIterator<Item = (Word, Word)>,
    ) -> BuildResult<Word> {
        self.block_list_inst(Op::Phi, ty, result_id, |out| {
            for (v, parent) in incoming {
                out.extend_from_slice(&[v, parent]);
            }
        })
    }

    // --- merges and terminators ---

    /// Ends the open block with a call of `function` (returning `void`) made only when
    /// `cond` holds, then `OpReturn`.
    pub fn call_if_and_return(&mut self, cond: Word, void: Word, function: Word) -> BuildResult<()> {
        let (call, end) = (self.id(), self.id());
        self.selection_merge(end, spirv::SelectionControl::NONE)?;
        self.branch_conditional(cond, call, end, [])?;
        self.begin_block(Some(call))?;
        self.block_value(Op::FunctionCall, void, &[function])?;
        self.branch(end)?;
        self.begin_block(Some(end))?;
        self.ret()
    }

    pub fn selection_merge(&mut self, merge: Word, control: spirv::SelectionControl) -> BuildResult<()> {
        self.block_inst(Op::SelectionMerge, None, None, &[merge, control.bits()])
    }

    pub fn loop_merge(
        &mut self,
        merge: Word,
        continue_target: Word,
        control: spirv::LoopControl,
        params: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<()> {
        let ops = [Operand::IdRef(merge), Operand::IdRef(continue_target), Operand::LoopControl(control)];
        self.block_inst_operands(Op::LoopMerge, None, None, ops.into_iter().chain(params))
    }

    pub fn branch(&mut self, target: Word) -> BuildResult<()> {
        self.terminate(Op::Branch, &[target])
    }

    pub fn branch_conditional(
        &mut self,
        cond: Word,
        if_true: Word,
        if_false: Word,
        weights: impl AsRef<[u32]>,
    ) -> BuildResult<()> {
        let weights = weights.as_ref();
        if weights.is_empty() {
            return self.terminate(Op::BranchConditional, &[cond, if_true, if_false]);
        }
        let mut ops = vec![cond, if_true, if_false];
        ops.extend_from_slice(weights);
        self.terminate(Op::BranchConditional, &ops)
    }

    /// `OpSwitch` on `selector`: `default`, then (literal, label) cases.
    pub fn switch(
        &mut self,
        selector: Word,
        default: Word,
        cases: impl IntoIterator<Item = (Operand, Word)>,
    ) -> BuildResult<()> {
        if self.position != Position::Block {
            return Err(BuildError::MismatchedTerminator);
        }
        let out = &mut self.functions;
        let open = Open::begin(out, Op::Switch, None, None);
        out.extend_from_slice(&[selector, default]);
        for (literal, label) in cases {
            literal.assemble_into(out);
            out.push(label);
        }
        let fits = open.finish(out);
        self.note(fits);
        self.position = Position::Function;
        Ok(())
    }

    pub fn ret(&mut self) -> BuildResult<()> {
        self.terminate(Op::Return, &[])
    }

    pub fn ret_value(&mut self, value: Word) -> BuildResult<()> {
        self.terminate(Op::ReturnValue, &[value])
    }

    pub fn unreachable(&mut self) -> BuildResult<()> {
        self.terminate(Op::Unreachable, &[])
    }

    /// `OpEmitMeshTasksEXT`, a task shader's terminator.
    pub fn emit_mesh_tasks(&mut self, [x, y, z]: [Word; 3], payload: Option<Word>) -> BuildResult<()> {
        match payload {
            Some(p) => self.terminate(Op::EmitMeshTasksEXT, &[x, y, z, p]),
            None => self.terminate(Op::EmitMeshTasksEXT, &[x, y, z]),
        }
    }

    /// A terminator without operands (`OpIgnoreIntersectionKHR`, `OpTerminateRayKHR`, ...).
    pub fn terminator(&mut self, op: Op) -> BuildResult<()> {
        self.terminate(op, &[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::spirv::{Capability, Decoration, StorageClass};

    /// The same calls through rspirv's builder and this one give the same words: type
    /// deduplication (including types added with explicit ids, and identical structs),
    /// strings of every padding, sections in order, functions and blocks, terminators.
    #[test]
    fn words_match_rspirv() {
        let mut r = rspirv::dr::Builder::new();
        let mut w = Builder::new();
        macro_rules! both {
            ($($call:tt)*) => {{
                let a = r.$($call)*;
                let b = w.$($call)*;
                (a, b)
            }};
        }
        // rspirv's named method there, `block_value` here.
        macro_rules! value {
            ($op:ident, $ty:expr, [$($operand:expr),*], $rspirv:ident($($arg:expr),*)) => {{
                let a = r.$rspirv($($arg),*);
                let b = w.block_value(Op::$op, $ty, &[$($operand),*]);
                (a, b)
            }};
        }
        both!(set_version(1, 6));
        both!(memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450));
        both!(capability(Capability::Shader));
        both!(capability(Capability::Int64));
        both!(extension("SPV_KHR_x"));
        both!(extension("SPV_KHR_ab"));
        let (g1, g2) = both!(ext_inst_import("GLSL.std.450"));
        assert_eq!(g1, g2);
        let (u, u2) = both!(type_int(32, 0));
        assert_eq!(u, u2);
        let (u_again, _) = both!(type_int(32, 0));
        assert_eq!(u_again, u);
        let (s, _) = both!(type_int(32, 1));
        let (f, _) = both!(type_float(32, None));
        let (v4, _) = both!(type_vector(f, 4));
        let (n, _) = both!(constant_bit32(u, 4));
        let (big, _) = both!(constant_bit64(s, 0x1234_5678_9abc_def0));
        let (arr, _) = both!(type_array(v4, n));
        let (arr_again, _) = both!(type_array(v4, n));
        assert_eq!(arr, arr_again);
        // An explicit id is always added; a later request finds the first identical one.
        let explicit_a = r.id();
        assert_eq!(w.id(), explicit_a);
        r.type_struct_id(Some(explicit_a), [arr]);
        w.type_struct_id(Some(explicit_a), [arr]);
        let explicit_b = r.id();
        w.id();
        r.type_struct_id(Some(explicit_b), [arr]);
        w.type_struct_id(Some(explicit_b), [arr]);
        let (found, found2) = (r.type_struct([arr]), w.type_struct([arr]));
        assert_eq!((found, found2), (explicit_a, explicit_a));
        let (st2, st2b) = (r.type_struct([u, f, v4]), w.type_struct([u, f, v4]));
        assert_eq!(st2, st2b);
        let (p, _) = both!(type_pointer(None, StorageClass::Private, st2));
        let (p_again, _) = both!(type_pointer(None, StorageClass::Private, st2));
        assert_eq!(p, p_again);
        let (pf, _) = both!(type_pointer(None, StorageClass::Function, u));
        let (void, _) = both!(type_void());
        let (bool_t, _) = both!(type_bool());
        let (fn_t1, fn_t2) = (r.type_function(void, []), w.type_function(void, []));
        assert_eq!(fn_t1, fn_t2);
        let (fn_u1, fn_u2) = (r.type_function(u, [u, f]), w.type_function(u, [u, f]));
        assert_eq!(fn_u1, fn_u2);
        let (img, _) = both!(type_image(f, spirv::Dim::Dim2D, 0, 0, 0, 1, spirv::ImageFormat::Unknown, None));
        let (_, _) = both!(type_sampled_image(img));
        let (_, _) = both!(type_sampler());
        let (_, _) = both!(type_runtime_array(u));
        let (t, _) = both!(constant_true(bool_t));
        let (_, _) = both!(constant_false(bool_t));
        let (_, _) = both!(constant_null(v4));
        let (_, _) = both!(constant_composite(st2, [n, n, n]));
        let _ = big;
        let (var, _) = both!(variable(p, None, StorageClass::Private, None));
        for name in ["", "a", "ab", "abc", "abcd", "abcde", "main"] {
            both!(name(var, name));
        }
        both!(member_name(st2, 1, "member"));
        both!(decorate(var, Decoration::Binding, [Operand::LiteralBit32(3)]));
        both!(member_decorate(st2, 0, Decoration::Offset, [Operand::LiteralBit32(16)]));
        let (fid, _) = both!(begin_function(void, None, spirv::FunctionControl::NONE, fn_t1));
        let fid = fid.unwrap();
        assert!(both!(begin_block(None)).0.is_ok());
        let (lv, _) = both!(variable(pf, None, StorageClass::Function, None));
        let l1 = r.id();
        let l2 = r.id();
        let l3 = r.id();
        w.id();
        w.id();
        w.id();
        let (x, _) = both!(load(u, None, lv, None, []));
        let (x, _) = (x.unwrap(), ());
        let (y, _) = value!(IAdd, u, [x, n], i_add(u, None, x, n));
        let y = y.unwrap();
        both!(store(lv, y, None, [])).0.unwrap();
        both!(store(lv, y, Some(spirv::MemoryAccess::VOLATILE), [])).0.unwrap();
        let (c, _) = value!(ULessThan, bool_t, [x, y], u_less_than(bool_t, None, x, y));
        let c = c.unwrap();
        both!(selection_merge(l3, spirv::SelectionControl::NONE)).0.unwrap();
        both!(branch_conditional(c, l1, l2, [])).0.unwrap();
        both!(begin_block(Some(l1))).0.unwrap();
        let (e, _) = value!(AccessChain, pf, [var, n], access_chain(pf, None, var, [n]));
        let _ = e.unwrap();
        both!(switch(x, l3, [(Operand::LiteralBit32(0), l2), (Operand::LiteralBit32(7), l3)])).0.unwrap();
        both!(begin_block(Some(l2))).0.unwrap();
        both!(loop_merge(l3, l2, spirv::LoopControl::NONE, [])).0.unwrap();
        both!(branch(l3)).0.unwrap();
        both!(begin_block(Some(l3))).0.unwrap();
        both!(phi(u, None, [(x, l1), (y, l2)])).0.unwrap();
        both!(ret()).0.unwrap();
        both!(end_function()).0.unwrap();
        both!(entry_point(spirv::ExecutionModel::GLCompute, fid, "main", [var]));
        both!(execution_mode(fid, spirv::ExecutionMode::LocalSize, [8, 8, 1]));
        let _ = t;
        assert_eq!(w.assemble().unwrap(), r.module().assemble());
    }

    /// With the clean-ups on, a bitcast back to the type a bitcast came from is the first
    /// one's operand (a 64-bit value assembled from two words and split again), so the
    /// words extracted from it are the words it was built of; a bitcast to a third type is
    /// written.
    #[test]
    fn bitcasts_of_bitcasts_fold() {
        let mut w = Builder::new();
        w.enable_cleanup(Room { insts: 16 });
        let void = w.type_void();
        let u = w.type_int(32, 0);
        let u64t = w.type_int(64, 0);
        let f64t = w.type_float(64, None);
        let u2 = w.type_vector(u, 2);
        let (a, b) = (w.constant_bit32(u, 1), w.constant_bit32(u, 2));
        let f = w.type_function(void, []);
        w.begin_function(void, None, spirv::FunctionControl::NONE, f).unwrap();
        w.begin_block(None).unwrap();
        let pair = w.block_value(Op::CompositeConstruct, u2, &[a, b]).unwrap();
        let wide = w.block_value(Op::Bitcast, u64t, &[pair]).unwrap();
        assert_eq!(w.block_value(Op::Bitcast, u2, &[wide]).unwrap(), pair);
        let back = w.block_value(Op::Bitcast, u2, &[wide]).unwrap();
        assert_eq!(w.block_value(Op::CompositeExtract, u, &[back, 1]).unwrap(), b);
        let other = w.block_value(Op::Bitcast, f64t, &[wide]).unwrap();
        assert_ne!(other, pair);
        assert_ne!(other, wide);
    }

    #[test]
    fn misuse_is_an_error() {
        let mut w = Builder::new();
        assert_eq!(w.branch(1), Err(BuildError::MismatchedTerminator));
        assert_eq!(w.begin_block(None), Err(BuildError::DetachedBlock));
        let void = w.type_void();
        let f = w.type_function(void, []);
        w.begin_function(void, None, spirv::FunctionControl::NONE, f).unwrap();
        assert_eq!(w.load(void, None, 1, None, []), Err(BuildError::DetachedInstruction));
        w.begin_block(None).unwrap();
        assert_eq!(w.begin_block(None), Err(BuildError::NestedBlock));
        assert_eq!(w.function_parameter(void), Err(BuildError::DetachedFunctionParameter));
        assert_eq!(w.end_function(), Err(BuildError::MismatchedFunctionEnd));
        let too_many = vec![1u32; 70_000];
        w.block_inst(Op::Nop, None, None, &too_many).unwrap();
        assert_eq!(w.assemble(), Err(BuildError::InstructionTooLong));
    }
}
