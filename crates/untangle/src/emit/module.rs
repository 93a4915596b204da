//! The SPIR-V module under construction: types (LLVM types mapped to SPIR-V, with the
//! capabilities their widths need), constants (hash-consed), module-scope variables and the
//! entry point's interface list.
//!
//! Mapping: `i1` → `bool`; `iN` → unsigned `intN` (LLVM integers carry no sign; signed
//! operations pick signed opcodes); `half`/`float`/`double` → `floatN`; vectors, arrays and
//! structs → their SPIR-V counterparts, without explicit layout (they live in Function,
//! Private or Workgroup storage). 8-, 16- and 64-bit widths declare `Int8`, `Int16`,
//! `Int64`, `Float16`, `Float64`.
//!
//! A low-level module of `emit` (see its documentation): it imports only `error`,
//! [`super::writer`] and the layers below `emit`. Leaves add the builder methods that need
//! their own state (`ModuleBuilder::emit_function` in `function`, the stages' execution
//! modes and entry functions in `stage/*`, `decorate_capture` in `transform_feedback`).

use super::error::{malformed, Error, Result, Subject};
use super::writer::{Builder, Room};
use crate::dxil::linalg::{MatrixScope, MatrixType, MatrixUse};
use crate::ir::hash::HashMap;
use crate::ir::{ConstId, ConstKind, FloatKind, GlobalId, Module, Type, TypeId};
use cranelift_entity::SecondaryMap;
use rspirv::spirv::{self, Capability, StorageClass, Word};
use smallvec::SmallVec;
use std::collections::BTreeSet;

/// The SPIR-V extension of shader execution reordering ([`crate::emit::Options::shader_invocation_reorder`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReorderExtension {
    /// `SPV_NV_shader_invocation_reorder`: no ray flags in a hit object, no hit object made
    /// from a ray query, no changing its shader table index.
    #[default]
    Nv,
    /// `SPV_EXT_shader_invocation_reorder`: every operation.
    Ext,
}

/// The IR name of DXIL's hit object type (SM 6.9 shader execution reordering).
pub const HIT_OBJECT: &str = "dx.types.HitObject";

pub struct ModuleBuilder<'m> {
    pub m: &'m Module,
    pub b: Builder,
    caps: BTreeSet<u32>,
    exts: BTreeSet<String>,
    /// The SPIR-V type of each IR type converted so far (0: not yet; SPIR-V ids start at 1):
    /// dense by `TypeId`, looked up for every value an instruction names.
    types: SecondaryMap<TypeId, Word>,
    /// The structs whose fields [`ModuleBuilder::ty`] is converting: a struct met again
    /// there contains itself (possible in a malformed module), refused instead of recursing.
    open_structs: Vec<TypeId>,
    /// The SPIR-V constant of each IR constant made so far (0: not yet), dense by `ConstId`.
    consts: SecondaryMap<ConstId, Word>,
    u32_values: HashMap<Word, u32>,
    scalar_consts: HashMap<(Word, u64), Word>,
    undefs: HashMap<Word, Word>,
    nulls: HashMap<Word, Word>,
    /// The array types that stand for DXIL 1.9 long vectors (more than 4 lanes): element
    /// type and lane count ([`Self::ty`]).
    long_types: HashMap<Word, (Word, u32)>,
    /// Every value id of a long-vector array type, with that type (noted by
    /// [`Self::note_value`] where values are made: `FnEmit::ids_op`, constants, PHIs).
    long_ids: HashMap<Word, Word>,
    globals: HashMap<GlobalId, (Word, StorageClass)>,
    /// The array type of each buffer block struct made for a resource view (`{ T data[]; }`
    /// → `T[]`), for instructions that take a pointer to the array itself
    /// (`SPV_NV_cooperative_vector`'s matrix operands).
    pub block_arrays: HashMap<Word, Word>,
    /// Every module-scope variable, for the entry point's interface (SPIR-V 1.4+ lists all).
    pub interface: Vec<Word>,
    glsl: Option<Word>,
    /// The `NonSemantic.DebugBreak` import, made on first use.
    debug_break: Option<Word>,
    /// Decorations made so far, (target, decoration, literals): an operation lowered
    /// twice must not decorate twice. Membership only (the words keep their own order).
    decorations: crate::ir::hash::HashSet<(Word, u32, SmallVec<[u32; 2]>)>,
    /// Scalar type ids once made (0: not yet): void, bool, uint 8/16/32/64, sint 8/16/32/64,
    /// float 8(unused)/16/32/64. The writer would find them again; this skips its lookup.
    scalars: [Word; 14],
    /// The render target's sample count: the options' answer, and its id once made.
    pub sample_count: SampleCount,
    /// [`crate::emit::Options::ray_traversal_primitive_culling`].
    pub ray_primitive_culling: bool,
    /// [`crate::emit::Options::shader_invocation_reorder`].
    pub reorder: ReorderExtension,
    /// [`crate::Options::float_controls2`]: precise float operations also carry
    /// `FPFastMathMode None`.
    pub float_controls2: bool,
    /// The width the module's `half` computes at: 16, or 32 for minimum precision widened
    /// under [`crate::emit::MinPrecision::Float32`] (`half` types, constants and
    /// conversions then become 32-bit ones).
    pub half_bits: u32,
    /// Under `float_controls2`, what [`ModuleBuilder::finish_float_controls`] needs.
    pub float_controls: FloatControls,
    /// The storage image types declared without a format (`Unknown`): reading or writing
    /// one needs `StorageImageReadWithoutFormat` / `StorageImageWriteWithoutFormat`,
    /// declared by [`Self::unformatted_access`] at the first such access only (a UAV
    /// only written, or only used atomically through a formatted view, needs neither).
    unformatted_images: BTreeSet<Word>,
}

/// What `GetRenderTargetSampleCount` reads (`dxop/interpolation.rs`): an immediate
/// count, or else a specialization constant (default 1) with id `spec_id`; `constant`
/// is the id made for either, on first use.
#[derive(Default)]
pub struct SampleCount {
    /// [`crate::emit::Options::render_target_sample_count`].
    pub value: Option<u32>,
    /// [`crate::emit::Options::render_target_sample_count_spec_id`].
    pub spec_id: u32,
    pub constant: Option<Word>,
}

/// The float widths with precise operations, and the fast operations, of an entry point
/// translated under [`crate::Options::float_controls2`].
///
/// NVIDIA's compiler (driver 580) reassociated `x - (x - 12.25)` to `12.25` with
/// `FPFastMathMode None` on both operations, and computed it as written once the entry
/// point also declared `FPFastMathDefault None` for `float` (`docs/dxil-semantics.md`).
/// So a width with a precise operation gets that default, and since it also applies to
/// every undecorated operation of the width, the fast ones are decorated with the
/// relaxations D3D allows them (contraction, reassociation, reciprocals), keeping NaNs,
/// infinities and the sign of zero.
#[derive(Default)]
pub struct FloatControls {
    /// Widths 16, 32, 64 (by [`width_slot`]) with a precise operation.
    precise: [bool; 4],
    /// Fast operations' results and widths.
    fast: Vec<(Word, u32)>,
}

impl FloatControls {
    pub fn precise(&mut self, bits: u32) {
        if let Some(slot) = width_slot(bits) {
            self.precise[slot] = true;
        }
    }

    pub fn fast(&mut self, result: Word, bits: u32) {
        self.fast.push((result, bits));
    }
}

/// An empty map with room for `n` entries.
fn sized<K, V>(n: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(n, Default::default())
}

/// The slot of a bit width among 8, 16, 32, 64.
fn width_slot(bits: u32) -> Option<usize> {
    match bits {
        8 => Some(0),
        16 => Some(1),
        32 => Some(2),
        64 => Some(3),
        _ => None,
    }
}

impl<'m> ModuleBuilder<'m> {
    /// A builder for `m`'s module, with the writer's clean-ups on when `cleanups` is set
    /// ([`crate::Options::cleanups`]).
    pub fn new(m: &'m Module, cleanups: bool) -> ModuleBuilder<'m> {
        let room = Room { insts: m.functions.values().map(|f| f.insts.len()).sum() };
        let mut b = Builder::with_room(room);
        if cleanups {
            b.enable_cleanup(room);
        }
        b.set_version(1, 6);
        b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
        let mut mb = ModuleBuilder {
            m,
            b,
            caps: BTreeSet::new(),
            exts: BTreeSet::new(),
            // Sized once from the module (each is filled about once per type or constant
            // the body uses; growing them by rehashing cost more than the inserts).
            types: SecondaryMap::with_capacity(m.types.len()),
            open_structs: Vec::new(),
            consts: SecondaryMap::with_capacity(m.constants.len()),
            u32_values: sized(room.scaled(1, 8, 64)),
            scalar_consts: sized(m.constants.len().max(room.scaled(1, 8, 64))),
            undefs: HashMap::default(),
            nulls: HashMap::default(),
            long_types: HashMap::default(),
            long_ids: HashMap::default(),
            globals: HashMap::default(),
            block_arrays: HashMap::default(),
            interface: Vec::new(),
            glsl: None,
            debug_break: None,
            // Each descriptor takes two or three, each block type a few more.
            decorations: crate::ir::hash::HashSet::with_capacity_and_hasher(
                room.scaled(1, 16, 256),
                Default::default(),
            ),
            scalars: [0; 14],
            // Set from the options by `translate`, the only maker of modules.
            sample_count: SampleCount::default(),
            ray_primitive_culling: false,
            reorder: ReorderExtension::Nv,
            float_controls2: false,
            half_bits: 16,
            float_controls: FloatControls::default(),
            unformatted_images: BTreeSet::new(),
        };
        mb.capability(Capability::Shader);
        mb
    }

    pub fn capability(&mut self, c: Capability) {
        if self.caps.insert(c as u32) {
            self.b.capability(c);
        }
    }

    /// Notes that storage image type `image_type` has no format ([`Self::unformatted_access`]).
    pub fn unformatted_image(&mut self, image_type: Word) {
        self.unformatted_images.insert(image_type);
    }

    /// An `OpImageRead` / `OpImageSparseRead` (`write` false) or `OpImageWrite` (`write`
    /// true) of an image of type `image_type`: declares the capability an access without a
    /// format needs, when the type has none.
    pub fn unformatted_access(&mut self, image_type: Word, write: bool) {
        if self.unformatted_images.contains(&image_type) {
            self.capability(if write {
                Capability::StorageImageWriteWithoutFormat
            } else {
                Capability::StorageImageReadWithoutFormat
            });
        }
    }

    /// Whether the module declares capability `c` so far.
    pub fn has_capability(&self, c: Capability) -> bool {
        self.caps.contains(&(c as u32))
    }

    pub fn extension(&mut self, e: &str) {
        if self.exts.insert(e.to_string()) {
            self.b.extension(e);
        }
    }

    /// The `GLSL.std.450` import.
    pub fn glsl(&mut self) -> Word {
        if let Some(id) = self.glsl {
            return id;
        }
        let id = self.b.ext_inst_import("GLSL.std.450");
        self.glsl = Some(id);
        id
    }

    /// The `NonSemantic.DebugBreak` import (SM 6.10 `debugBreak`, `dxop/debug.rs`).
    pub fn debug_break_set(&mut self) -> Word {
        if let Some(id) = self.debug_break {
            return id;
        }
        let id = self.b.ext_inst_import("NonSemantic.DebugBreak");
        self.debug_break = Some(id);
        id
    }

    // --- scalar and vector types by width ---

    /// A scalar type from [`Self::scalars`], made by `make` on first use.
    #[inline]
    fn scalar(&mut self, slot: Option<usize>, make: impl FnOnce(&mut Self) -> Word) -> Word {
        match slot.and_then(|k| self.scalars.get(k).copied()) {
            Some(w) if w != 0 => w,
            _ => {
                let w = make(self);
                if let Some(s) = slot.and_then(|k| self.scalars.get_mut(k)) {
                    *s = w;
                }
                w
            }
        }
    }

    pub fn void(&mut self) -> Word {
        self.scalar(Some(0), |me| me.b.type_void())
    }
    pub fn bool_t(&mut self) -> Word {
        self.scalar(Some(1), |me| me.b.type_bool())
    }
    pub fn uint(&mut self, bits: u32) -> Word {
        self.scalar(width_slot(bits).map(|k| 2 + k), |me| {
            me.int_caps(bits);
            me.b.type_int(bits, 0)
        })
    }
    pub fn sint(&mut self, bits: u32) -> Word {
        self.scalar(width_slot(bits).map(|k| 6 + k), |me| {
            me.int_caps(bits);
            me.b.type_int(bits, 1)
        })
    }
    pub fn float(&mut self, bits: u32) -> Word {
        self.scalar(width_slot(bits).map(|k| 10 + k), |me| {
            match bits {
                16 => me.capability(Capability::Float16),
                64 => me.capability(Capability::Float64),
                _ => {}
            }
            me.b.type_float(bits, None)
        })
    }
    /// `OpTypeFloat 8` of the E5M2 or the E4M3 encoding (`SPV_EXT_float8`).
    pub fn float8(&mut self, e5m2: bool) -> Word {
        let e = if e5m2 { spirv::FPEncoding::Float8E5M2EXT } else { spirv::FPEncoding::Float8E4M3EXT };
        self.b.type_float(8, Some(e))
    }
    pub fn u32_t(&mut self) -> Word {
        self.uint(32)
    }
    pub fn vec(&mut self, elem: Word, n: u32) -> Word {
        if n == 1 {
            elem
        } else {
            self.b.type_vector(elem, n)
        }
    }
    fn int_caps(&mut self, bits: u32) {
        match bits {
            8 => self.capability(Capability::Int8),
            16 => self.capability(Capability::Int16),
            64 => self.capability(Capability::Int64),
            _ => {}
        }
    }

    pub fn ptr(&mut self, class: StorageClass, pointee: Word) -> Word {
        self.b.type_pointer(None, class, pointee)
    }

    /// Switches the module to the `PhysicalStorageBuffer64` addressing model (declaring
    /// `PhysicalStorageBufferAddresses`, which Vulkan 1.2's `bufferDeviceAddress` allows):
    /// what every `PhysicalStorageBuffer` pointer needs. Idempotent.
    pub fn physical_addressing(&mut self) {
        self.capability(Capability::PhysicalStorageBufferAddresses);
        self.b.memory_model(spirv::AddressingModel::PhysicalStorageBuffer64, spirv::MemoryModel::GLSL450);
    }

    /// The SPIR-V type of an LLVM value type. Pointers are mapped by [`Self::ptr_to`], which
    /// needs the storage class the value lives in.
    pub fn ty(&mut self, t: TypeId) -> Result<Word> {
        if let Some(&w) = self.types.get(t).filter(|&&w| w != 0) {
            return Ok(w);
        }
        let types = &self.m.types;
        let w = match types.get(t).clone() {
            Type::Void => self.void(),
            Type::Int(1) => self.bool_t(),
            Type::Int(bits @ (8 | 16 | 32 | 64)) => self.uint(bits),
            Type::Float(FloatKind::Half) => self.float(self.half_bits),
            Type::Float(FloatKind::Float) => self.float(32),
            Type::Float(FloatKind::Double) => self.float(64),
            // SPIR-V vectors have 2 to 4 components (8 and 16 only with the Kernel-only
            // `Vector16`): DXIL 1.9's longer native vectors are arrays of their lanes,
            // operated on lane by lane (`emit::long_vector`).
            Type::Vector { elem, len } if len > 4 => {
                let e = self.ty(elem)?;
                self.lanes_type(e, len)
            }
            Type::Vector { elem, len } => {
                // `<1 x T>` (or a zero-length vector) is no SPIR-V vector either.
                if len < 2 {
                    return Err(Error::Unsupported {
                        function: "-".into(),
                        message: format!("vector of {len} elements"),
                    });
                }
                let e = self.ty(elem)?;
                self.b.type_vector(e, len)
            }
            Type::Array { elem, len } => {
                let e = self.ty(elem)?;
                let len = u32::try_from(len).ok().filter(|&l| l > 0).ok_or_else(|| Error::Unsupported {
                    function: "-".into(),
                    message: format!("array length {len}"),
                })?;
                let n = self.const_u32(len);
                self.b.type_array(e, n)
            }
            // A hit object is the index of its slot in the function's array of hit objects
            // (`dxop/hit_object.rs`): SPIR-V's hit objects are opaque and live only in
            // variables, so PHIs, selects and memory carry the index.
            Type::Named(_) if types.struct_name(t) == Some(HIT_OBJECT) => self.u32_t(),
            // SM 6.10 LinAlg wave and thread-group matrices are cooperative matrices
            // (`dxop/linalg_matrix.rs`); thread-scope ones have no value (`dxop/linalg.rs`).
            Type::Named(_) if register_matrix(types.struct_name(t)).is_some() => {
                let mt = register_matrix(types.struct_name(t)).expect("matched above");
                self.linalg_matrix_type(mt).map_err(|message| Error::Unsupported { function: "-".into(), message })?
            }
            // Node record pointers are 64-bit device addresses (`stage::node`).
            Type::Pointer { addr_space: 6, .. } => self.uint(64),
            Type::Struct { .. } | Type::Named(_) => {
                let fields = types
                    .struct_fields(t)
                    .ok_or_else(|| Error::Unsupported {
                        function: "-".into(),
                        message: format!("opaque struct type {}", types.display(t)),
                    })?
                    .to_vec();
                if self.open_structs.contains(&t) {
                    return Err(malformed(
                        Subject::Module,
                        format!("struct type {} contains itself (an infinite type)", types.display(t)),
                    ));
                }
                self.open_structs.push(t);
                let ws = fields.iter().map(|&f| self.ty(f)).collect::<Result<Vec<_>>>();
                self.open_structs.pop();
                self.b.type_struct(ws?)
            }
            _ => {
                return Err(Error::Unsupported {
                    function: "-".into(),
                    message: format!("type {} has no SPIR-V value type", types.display(t)),
                })
            }
        };
        self.types[t] = w;
        Ok(w)
    }

    /// The cooperative-matrix component type of LinAlg component type `ct` (SPIR-V's
    /// signed integers for `I*`, unsigned for `U*`; `SPV_EXT_float8` and `SPV_KHR_bfloat16`
    /// encodings for the 8-bit and bfloat16 floats), or `Err` naming a type no cooperative
    /// matrix holds.
    pub fn linalg_component_type(&mut self, ct: crate::dxil::ComponentType) -> std::result::Result<Word, String> {
        use crate::dxil::ComponentType as C;
        Ok(match ct {
            C::F16 => self.float(16),
            C::F32 => self.float(32),
            C::F64 => self.float(64),
            C::I8 => self.sint(8),
            C::I16 => self.sint(16),
            C::I32 => self.sint(32),
            C::I64 => self.sint(64),
            C::U8 => self.uint(8),
            C::U16 => self.uint(16),
            C::U32 => self.uint(32),
            C::U64 => self.uint(64),
            C::F8_E4M3FN | C::F8_E5M2 => {
                self.extension("SPV_EXT_float8");
                self.capability(Capability::Float8EXT);
                self.capability(Capability::Float8CooperativeMatrixEXT);
                self.float8(ct == C::F8_E5M2)
            }
            C::BFloat16 => {
                self.extension("SPV_KHR_bfloat16");
                self.capability(Capability::BFloat16TypeKHR);
                self.capability(Capability::BFloat16CooperativeMatrixKHR);
                self.b.type_float(16, Some(spirv::FPEncoding::BFloat16KHR))
            }
            other => {
                let name = other.name().map(str::to_string).unwrap_or_else(|| other.to_raw().to_string());
                return Err(format!("a LinAlg matrix of component type {name}, which no cooperative matrix holds"));
            }
        })
    }

    /// The `OpTypeCooperativeMatrixKHR` of SM 6.10 LinAlg matrix type `t` (a wave or
    /// thread-group matrix; hlsl-specs proposal 0035): component type, `Subgroup` scope for
    /// `Wave` and `Workgroup` scope (`SPV_NV_cooperative_matrix2`) for `ThreadGroup`, `M` rows,
    /// `N` columns, the use. Declares what the type needs (`CooperativeMatrixKHR`, the Vulkan
    /// memory model the extension requires, the component type's capabilities). A component
    /// type without a cooperative-matrix form (packed, normalized, `I1`) is `Err` naming it.
    pub fn linalg_matrix_type(&mut self, t: MatrixType) -> std::result::Result<Word, String> {
        let component = self.linalg_component_type(t.component)?;
        self.extension("SPV_KHR_cooperative_matrix");
        self.capability(Capability::CooperativeMatrixKHR);
        // SPV_KHR_cooperative_matrix requires the Vulkan memory model with `Shader`.
        self.capability(Capability::VulkanMemoryModel);
        self.b.vulkan_memory_model = true;
        let scope = match t.scope {
            MatrixScope::ThreadGroup => {
                // Workgroup-scope cooperative matrices: `cooperativeMatrixWorkgroupScope`.
                self.extension("SPV_NV_cooperative_matrix2");
                spirv::Scope::Workgroup
            }
            _ => spirv::Scope::Subgroup,
        };
        let scope = self.const_u32(scope as u32);
        let (rows, columns) = (self.const_u32(t.m), self.const_u32(t.n));
        let usage = self.const_u32(match t.use_ {
            MatrixUse::A => 0,
            MatrixUse::B => 1,
            MatrixUse::Accumulator => 2,
        });
        Ok(self.b.type_cooperative_matrix_khr(component, scope, rows, columns, usage))
    }

    /// Pointer type to the value type `pointee`, in `class`.
    pub fn ptr_to(&mut self, class: StorageClass, pointee: TypeId) -> Result<Word> {
        let p = self.ty(pointee)?;
        Ok(self.ptr(class, p))
    }

    // --- constants ---

    pub fn const_u32(&mut self, n: u32) -> Word {
        let t = self.u32_t();
        self.const_bits(t, 32, n as u64)
    }

    /// A constant of scalar type `ty` (a SPIR-V int or float of `bits` width) from raw bits.
    pub fn const_bits(&mut self, ty: Word, bits: u32, value: u64) -> Word {
        if let Some(&w) = self.scalar_consts.get(&(ty, value)) {
            return w;
        }
        let w = if bits == 64 { self.b.constant_bit64(ty, value) } else { self.b.constant_bit32(ty, value as u32) };
        self.scalar_consts.insert((ty, value), w);
        if bits == 32 && ty == self.u32_t() {
            self.u32_values.insert(w, value as u32);
        }
        w
    }

    /// `true` or `false`, made once.
    pub fn const_bool(&mut self, v: bool) -> Word {
        let t = self.bool_t();
        if let Some(&w) = self.scalar_consts.get(&(t, u64::from(v))) {
            return w;
        }
        let w = if v { self.b.constant_true(t) } else { self.b.constant_false(t) };
        self.scalar_consts.insert((t, u64::from(v)), w);
        w
    }

    /// The value of `w` if it is a 32-bit unsigned constant made here.
    pub fn const_value_u32(&self, w: Word) -> Option<u32> {
        self.u32_values.get(&w).copied()
    }

    pub fn undef(&mut self, ty: Word) -> Word {
        let b = &mut self.b;
        let id = *self.undefs.entry(ty).or_insert_with(|| b.global_undef(ty));
        self.note_value(id, ty)
    }

    pub fn null(&mut self, ty: Word) -> Word {
        let b = &mut self.b;
        let id = *self.nulls.entry(ty).or_insert_with(|| b.constant_null(ty));
        self.note_value(id, ty)
    }

    /// The SPIR-V type of `n` lanes of `elem`: `elem` itself for one, a vector for 2 to 4,
    /// an array of the lanes (a long vector, `emit::long_vector`) past 4.
    pub fn lanes_type(&mut self, elem: Word, n: u32) -> Word {
        if n <= 4 {
            return self.vec(elem, n);
        }
        let len = self.const_u32(n);
        let a = self.b.type_array(elem, len);
        self.long_types.insert(a, (elem, n));
        a
    }

    /// Whether any long-vector type was declared (most modules have none).
    pub fn has_long_types(&self) -> bool {
        !self.long_types.is_empty()
    }

    /// The element type and lane count of `ty` when it stands for a long vector.
    pub fn long_type(&self, ty: Word) -> Option<(Word, u32)> {
        self.long_types.get(&ty).copied()
    }

    /// The element type and lane count of value `id` when it is a long vector.
    pub fn long_value(&self, id: Word) -> Option<(Word, u32)> {
        self.long_ids.get(&id).and_then(|t| self.long_type(*t))
    }

    /// Notes value `id` of type `ty` (kept only for long vectors); returns `id`.
    pub fn note_value(&mut self, id: Word, ty: Word) -> Word {
        if self.long_types.contains_key(&ty) {
            self.long_ids.insert(id, ty);
        }
        id
    }

    /// The SPIR-V constant of an IR constant of value type (not an address).
    pub fn constant(&mut self, c: ConstId) -> Result<Word> {
        if let Some(&w) = self.consts.get(c).filter(|&&w| w != 0) {
            return Ok(w);
        }
        let k = self.m.constants.get(c).clone();
        let ty = self.ty(k.ty)?;
        let w = match &k.kind {
            ConstKind::Int(v) => match self.m.types.get(k.ty) {
                Type::Int(1) => {
                    if *v & 1 == 1 {
                        self.b.constant_true(ty)
                    } else {
                        self.b.constant_false(ty)
                    }
                }
                Type::Int(bits) => self.const_bits(ty, *bits, *v),
                _ => return Err(malformed(Subject::Module, "integer constant of a non-integer type")),
            },
            ConstKind::Float(v) => match self.m.types.get(k.ty) {
                Type::Float(FloatKind::Half) if self.half_bits == 32 => {
                    let widened = half::f16::from_bits(*v as u16).to_f32();
                    self.const_bits(ty, 32, u64::from(widened.to_bits()))
                }
                Type::Float(f) => self.const_bits(ty, f.bits(), *v),
                _ => self.const_bits(ty, 32, *v),
            },
            ConstKind::Null | ConstKind::Zero => self.null(ty),
            ConstKind::Undef | ConstKind::Poison => self.undef(ty),
            ConstKind::Aggregate(elems) => {
                let ws = elems.iter().map(|&e| self.constant(e)).collect::<Result<Vec<_>>>()?;
                let w = self.b.constant_composite(ty, ws);
                self.note_value(w, ty);
                w
            }
            other => {
                return Err(Error::Unsupported {
                    function: "-".into(),
                    message: format!("constant {other:?} as a value"),
                })
            }
        };
        self.consts[c] = w;
        Ok(w)
    }

    /// The variable of an LLVM global: `addrspace(3)` is groupshared (`Workgroup`), others
    /// are `Private`, initialised from a constant initializer.
    pub fn global(&mut self, g: GlobalId) -> Result<(Word, StorageClass)> {
        if let Some(&v) = self.globals.get(&g) {
            return Ok(v);
        }
        let gl = &self.m.globals[g];
        let class = match gl.addr_space {
            3 => StorageClass::Workgroup,
            0 => StorageClass::Private,
            n => {
                return Err(Error::Unsupported {
                    function: "-".into(),
                    message: format!("global `{}` in address space {n}", gl.name),
                })
            }
        };
        let ptr = self.ptr_to(class, gl.value_ty)?;
        let init = match gl.initializer {
            Some(c) if class == StorageClass::Private => match self.m.constants.get(c).kind {
                ConstKind::Undef | ConstKind::Poison => None,
                _ => Some(self.constant(c)?),
            },
            _ => None,
        };
        let var = self.module_variable(ptr, class, init);
        if !gl.name.is_empty() && !gl.name.contains('\0') {
            self.b.name(var, gl.name.as_str());
        }
        self.interface.push(var);
        self.globals.insert(g, (var, class));
        Ok((var, class))
    }

    /// A module-scope variable of `class` holding `pointee`, added to the interface.
    pub fn global_var(&mut self, class: StorageClass, pointee: Word, name: &str) -> Word {
        let ptr = self.ptr(class, pointee);
        let var = self.module_variable(ptr, class, None);
        if !name.is_empty() && !name.contains('\0') {
            self.b.name(var, name);
        }
        self.interface.push(var);
        var
    }

    /// An `OpVariable` in the module's global section (the builder would put it in the
    /// block being built, if any).
    pub(crate) fn module_variable(&mut self, ptr: Word, class: StorageClass, init: Option<Word>) -> Word {
        self.b.global_variable(ptr, class, init)
    }

    /// Decorates `target`, once: repeating a decoration is invalid SPIR-V.
    /// `FPFastMathDefault None` on `entry` for every float width with a precise operation,
    /// and the fast operations of those widths decorated with their relaxations
    /// ([`FloatControls`]). Call once, after the entry point's functions.
    pub fn finish_float_controls(&mut self, entry: Word) {
        let fc = std::mem::take(&mut self.float_controls);
        // AllowContract | AllowReassoc | AllowTransform (which requires the other two),
        // AllowRecip.
        const RELAXED: u32 = 0x1_0000 | 0x2_0000 | 0x4_0000 | 0x8;
        for bits in [16, 32, 64] {
            if !width_slot(bits).is_some_and(|slot| fc.precise[slot]) {
                continue;
            }
            let float = self.float(bits);
            let none = self.const_u32(0);
            self.b.execution_mode_id(entry, spirv::ExecutionMode::FPFastMathDefault, [float, none]);
            for &(r, _) in fc.fast.iter().filter(|&&(_, b)| b == bits) {
                self.decorate(r, spirv::Decoration::FPFastMathMode, &[RELAXED]);
            }
        }
    }

    /// Ray flags `flags` (an id) on a trace: declares `RayTraversalPrimitiveCullingKHR` when
    /// the device has it and the flags may skip triangles or procedural primitives
    /// ([`crate::emit::Options::ray_traversal_primitive_culling`]).
    pub fn ray_flags_used(&mut self, flags: Word) {
        const SKIP_TRIANGLES_OR_PROCEDURAL: u32 = 0x100 | 0x200;
        // `RAY_FLAG_FORCE_OMM_2_STATE` is Vulkan's `ForceOpacityMicromap2StateEXT` (both
        // 0x400), which needs `SPV_EXT_opacity_micromap`'s capability.
        const FORCE_OMM_2_STATE: u32 = 0x400;
        if self.const_value_u32(flags).is_some_and(|f| f & FORCE_OMM_2_STATE != 0) {
            self.extension("SPV_EXT_opacity_micromap");
            self.capability(spirv::Capability::RayTracingOpacityMicromapEXT);
        }
        if self.ray_primitive_culling
            && self.const_value_u32(flags).is_none_or(|f| f & SKIP_TRIANGLES_OR_PROCEDURAL != 0)
        {
            self.capability(spirv::Capability::RayTraversalPrimitiveCullingKHR);
        }
    }

    /// The hit object type of [`Self::reorder`]'s extension, declaring the extension and
    /// its capability.
    pub fn hit_object_t(&mut self) -> Word {
        match self.reorder {
            ReorderExtension::Nv => {
                self.extension("SPV_NV_shader_invocation_reorder");
                self.capability(spirv::Capability::ShaderInvocationReorderNV);
                self.b.type_hit_object_nv()
            }
            ReorderExtension::Ext => {
                self.extension("SPV_EXT_shader_invocation_reorder");
                self.capability(spirv::Capability::ShaderInvocationReorderEXT);
                self.b.type_hit_object_ext()
            }
        }
    }

    pub fn decorate(&mut self, target: Word, d: spirv::Decoration, literals: &[u32]) {
        if self.decorations.insert((target, d as u32, SmallVec::from_slice(literals))) {
            self.b.decorate_literals(target, d, literals);
        }
    }
}

/// The LinAlg matrix type named `name`, when it is one held in registers (wave or
/// thread-group scope: a cooperative matrix).
pub fn register_matrix(name: Option<&str>) -> Option<MatrixType> {
    name.and_then(MatrixType::parse).filter(|t| t.scope != MatrixScope::Thread)
}
