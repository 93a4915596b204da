//! Resources: descriptor variables (created on first use, bound by the binding model) and
//! `dx.op` handles.
//!
//! A handle (`createHandle`, `createHandleFromBinding`, `annotateHandle`) is not a SPIR-V
//! value: it is a compile-time [`Handle`] naming a resource range and, for ranges of several
//! registers, the IR value of the register index. Operations resolve it to a pointer (or a
//! loaded image / sampler) where they use it.
//!
//! Representation:
//! - constant buffers: `Uniform` block `{ uvec4 data[ceil(size / 16)]; }`;
//! - raw and structured buffers: `StorageBuffer` block `{ uint data[]; }` (byte address / 4),
//!   `NonWritable` for SRVs;
//! - typed buffers and textures: `OpTypeImage` (sampled 1 for SRVs, 2 with unknown format for
//!   UAVs); samplers: `OpTypeSampler`;
//! - a range of several registers: one variable holding an array (runtime array if
//!   unbounded), indexed by register − lower bound;
//! - SM 6.6 descriptor heaps (`createHandleFromHeap`): runtime arrays indexed by the heap
//!   index, one per descriptor type, aliased where types share a binding (see
//!   `binding_model` for the heap sets).

use super::binding_model::BindingMap;
use super::error::{Result, TranslateError};
use super::function::FnEmit;
use super::module::ModuleBuilder;
use crate::dxil::{ComponentType, Resource, ResourceClass, ResourceKind};
use crate::ir::Value;
use rspirv::dr::Operand;
use rspirv::spirv::{self, Capability, Decoration, Dim, Op, StorageClass, Word};
use std::collections::BTreeMap;

/// A resource handle as the translator tracks it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Handle {
    pub class: ResourceClass,
    /// The range id within its class.
    pub id: u32,
    /// The absolute register index (for ranges of more than one register).
    pub index: Option<Value>,
    pub non_uniform: bool,
    /// For `createHandleFromHeap` (SM 6.6 bindless): which heap, and the resource
    /// properties `annotateHandle` gave it.
    pub heap: Option<HeapHandle>,
}

/// A descriptor-heap handle: the index is [`Handle::index`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct HeapHandle {
    pub sampler: bool,
    /// `dx.types.ResourceProperties` (basic, extra), once annotated.
    pub props: Option<[u32; 2]>,
}

/// The numeric kind of image texels.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum TexelKind {
    Float,
    SInt,
    UInt,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ResShape {
    CBuffer,
    /// Raw (stride `None`) or structured buffer, as `uint[]`.
    Words { stride: Option<u32> },
    Image { dim: Dim, arrayed: bool, ms: bool, texel: TexelKind },
    Sampler,
}

#[derive(Clone, Copy, Debug)]
pub struct ResVar {
    pub var: Word,
    pub shape: ResShape,
    /// Pointee type of one descriptor (the block struct, image or sampler type).
    pub elem_ty: Word,
    pub storage: StorageClass,
    /// `Some(lower bound)` when the variable is an array of descriptors.
    pub array_base: Option<u32>,
    pub uav: bool,
}

impl ResShape {
    pub fn coords(&self) -> u32 {
        match self {
            ResShape::Image { dim, arrayed, .. } => {
                let base = match dim {
                    Dim::Dim1D | Dim::DimBuffer => 1,
                    Dim::Dim2D => 2,
                    _ => 3,
                };
                base + u32::from(*arrayed)
            }
            _ => 1,
        }
    }
}

/// The resource table with the variables made so far.
pub struct Resources {
    pub table: crate::dxil::Resources,
    pub map: BindingMap,
    vars: BTreeMap<(ResourceClass, u32), ResVar>,
    counters: BTreeMap<u32, (Word, Word, Option<u32>)>,
    /// UAVs that atomics use: their images get an `R32ui`/`R32i` format, as Vulkan requires
    /// for image atomics.
    pub atomic_uavs: std::collections::BTreeSet<u32>,
    heap_vars: BTreeMap<(u32, u32, u32), ResVar>,
    words64: BTreeMap<(ResourceClass, u32), Word>,
    image64: BTreeMap<u32, (Word, Word)>,
    heap_counters: Option<Word>,
}

impl Resources {
    pub fn new(table: crate::dxil::Resources, map: BindingMap) -> Resources {
        Resources { table, map, vars: BTreeMap::new(), counters: BTreeMap::new(), atomic_uavs: Default::default(), heap_vars: BTreeMap::new(), words64: BTreeMap::new(), image64: BTreeMap::new(), heap_counters: None }
    }

    pub fn resource(&self, class: ResourceClass, id: u32) -> Result<&Resource> {
        self.table
            .by_id(class, id)
            .ok_or_else(|| TranslateError::Malformed(format!("no {} with range id {id}", class.name())))
    }

    /// The resource of `class` whose range holds `register` in `space`.
    pub fn find_binding(&self, class: ResourceClass, space: u32, register: u32) -> Result<u32> {
        self.table
            .class(class)
            .iter()
            .find(|r| {
                r.space == space
                    && register >= r.lower_bound
                    && r.range_size.is_none_or(|n| register - r.lower_bound < n)
            })
            .map(|r| r.id)
            .ok_or_else(|| {
                TranslateError::Malformed(format!(
                    "createHandleFromBinding: no {} range holds {}{register}, space{space}",
                    class.name(),
                    class.register_letter()
                ))
            })
    }

    /// The counter buffer of UAV `id`: a storage block `{ uint counter; }` at the binding
    /// model's counter binding.
    /// For a range of several UAVs the variable is an array of such blocks, indexed like
    /// the UAVs (`Some(lower bound)` is returned with it).
    pub fn counter(&mut self, cx: &mut ModuleBuilder<'_>, id: u32) -> Result<(Word, Word, Option<u32>)> {
        if let Some(&v) = self.counters.get(&id) {
            return Ok(v);
        }
        let r = self.resource(ResourceClass::Uav, id)?.clone();
        let u = cx.u32_t();
        let st = cx.b.id();
        cx.b.type_struct_id(Some(st), [u]);
        cx.decorate(st, Decoration::Block, &[]);
        cx.b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        let (pointee, base) = match r.range_size {
            Some(1) => (st, None),
            Some(n) => {
                let len = cx.const_u32(n);
                (cx.b.type_array(st, len), Some(r.lower_bound))
            }
            None => {
                cx.capability(Capability::RuntimeDescriptorArray);
                (cx.b.type_runtime_array(st), Some(r.lower_bound))
            }
        };
        let var = cx.global_var(StorageClass::StorageBuffer, pointee, &format!("{}_counter", r.name));
        let b = self.map.counter_binding_of(&r);
        cx.decorate(var, Decoration::DescriptorSet, &[b.set]);
        cx.decorate(var, Decoration::Binding, &[b.binding]);
        self.counters.insert(id, (var, st, base));
        Ok((var, st, base))
    }

    /// A second view of a raw or structured buffer as 64-bit words (`{ uint64 data[]; }` at
    /// the same binding), for 64-bit atomics.
    pub fn words64(&mut self, cx: &mut ModuleBuilder<'_>, class: ResourceClass, id: u32) -> Result<Word> {
        if let Some(&v) = self.words64.get(&(class, id)) {
            return Ok(v);
        }
        let r = self.resource(class, id)?.clone();
        if r.range_size != Some(1) {
            return Err(TranslateError::UnsupportedForm { name: "AtomicBinOp".into(), message: "64-bit atomics on buffer arrays".into() });
        }
        let u64t = cx.uint(64);
        let arr = cx.b.id();
        cx.b.type_runtime_array_id(Some(arr), u64t);
        cx.decorate(arr, Decoration::ArrayStride, &[8]);
        let st = cx.b.id();
        cx.b.type_struct_id(Some(st), [arr]);
        cx.decorate(st, Decoration::Block, &[]);
        cx.b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        let var = cx.global_var(StorageClass::StorageBuffer, st, &format!("{}_u64", r.name));
        let b = self.map.binding_of(&r);
        cx.decorate(var, Decoration::DescriptorSet, &[b.set]);
        cx.decorate(var, Decoration::Binding, &[b.binding]);
        self.words64.insert((class, id), var);
        Ok(var)
    }

    /// A 64-bit integer view (`R64ui`/`R64i`) of a typed UAV at the same binding, for 64-bit
    /// atomics (D3D's 64-bit typed UAVs are 32-bit two-channel views otherwise).
    pub fn image64(&mut self, cx: &mut ModuleBuilder<'_>, id: u32, signed: bool) -> Result<(Word, Word)> {
        if let Some(&v) = self.image64.get(&id) {
            return Ok(v);
        }
        let r = self.resource(ResourceClass::Uav, id)?.clone();
        let rv = self.var(cx, ResourceClass::Uav, id)?;
        let ResShape::Image { dim, arrayed, ms, .. } = rv.shape else {
            return Err(TranslateError::Internal("64-bit image view of a non-image".into()));
        };
        if r.range_size != Some(1) {
            return Err(TranslateError::UnsupportedForm { name: "AtomicBinOp".into(), message: "64-bit atomics on image arrays".into() });
        }
        cx.extension("SPV_EXT_shader_image_int64");
        cx.capability(Capability::Int64ImageEXT);
        cx.capability(Capability::Int64Atomics);
        let t = if signed { cx.sint(64) } else { cx.uint(64) };
        let format = if signed { spirv::ImageFormat::R64i } else { spirv::ImageFormat::R64ui };
        let img = cx.b.type_image(t, dim, 0, u32::from(arrayed), u32::from(ms), 2, format, None);
        let var = cx.global_var(StorageClass::UniformConstant, img, &format!("{}_r64", r.name));
        let b = self.map.binding_of(&r);
        cx.decorate(var, Decoration::DescriptorSet, &[b.set]);
        cx.decorate(var, Decoration::Binding, &[b.binding]);
        self.image64.insert(id, (var, t));
        Ok((var, t))
    }

    /// Counters of descriptor-heap UAVs: a runtime array of `{ uint counter; }` blocks at
    /// the heap's counter binding, indexed by the heap index.
    pub fn heap_counters(&mut self, cx: &mut ModuleBuilder<'_>) -> Word {
        if let Some(v) = self.heap_counters {
            return v;
        }
        let u = cx.u32_t();
        let st = cx.b.id();
        cx.b.type_struct_id(Some(st), [u]);
        cx.decorate(st, Decoration::Block, &[]);
        cx.b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        cx.capability(Capability::RuntimeDescriptorArray);
        let arr = cx.b.type_runtime_array(st);
        let var = cx.global_var(StorageClass::StorageBuffer, arr, "heap_uav_counters");
        let b = super::binding_model::heap_binding(super::binding_model::HeapSlot::UavCounter);
        cx.decorate(var, Decoration::DescriptorSet, &[b.set]);
        cx.decorate(var, Decoration::Binding, &[b.binding]);
        self.heap_counters = Some(var);
        var
    }

    /// The heap array a descriptor-heap handle indexes.
    pub fn heap_var(&mut self, cx: &mut ModuleBuilder<'_>, hh: HeapHandle) -> Result<ResVar> {
        use super::binding_model::{heap_binding, HeapSlot};
        let [basic, extra] = hh.props.ok_or_else(|| {
            TranslateError::UnsupportedForm { name: "CreateHandleFromHeap".into(), message: "a heap handle without annotateHandle".into() }
        })?;
        let kind = ResourceKind::from_raw(basic & 0xff);
        let uav = basic & (1 << 12) != 0;
        let (class, slot) = if hh.sampler {
            (ResourceClass::Sampler, HeapSlot::Sampler)
        } else {
            match kind {
                ResourceKind::CBuffer => (ResourceClass::Cbv, HeapSlot::UniformBuffer),
                ResourceKind::RawBuffer | ResourceKind::StructuredBuffer => {
                    (if uav { ResourceClass::Uav } else { ResourceClass::Srv }, HeapSlot::StorageBuffer)
                }
                ResourceKind::TypedBuffer => {
                    if uav { (ResourceClass::Uav, HeapSlot::StorageTexelBuffer) } else { (ResourceClass::Srv, HeapSlot::UniformTexelBuffer) }
                }
                _ => {
                    if uav { (ResourceClass::Uav, HeapSlot::StorageImage) } else { (ResourceClass::Srv, HeapSlot::SampledImage) }
                }
            }
        };
        let typed = !matches!(kind, ResourceKind::CBuffer | ResourceKind::RawBuffer | ResourceKind::StructuredBuffer | ResourceKind::Sampler);
        let key_extra = if typed { extra & 0xff } else if kind == ResourceKind::StructuredBuffer { extra } else { 0 };
        let key = (class as u32 * 256 + (basic & 0xff), key_extra, u32::from(hh.sampler));
        if let Some(v) = self.heap_vars.get(&key) {
            return Ok(*v);
        }
        let r = Resource {
            class,
            id: u32::MAX,
            name: format!("heap_{}_{:?}", class.name(), kind),
            space: 0,
            lower_bound: 0,
            range_size: None,
            kind,
            type_name: None,
            element_type: typed.then(|| ComponentType::from_raw(extra & 0xff)),
            struct_stride: (kind == ResourceKind::StructuredBuffer).then_some(extra),
            sample_count: None,
            uav: None,
            cbuffer_size: Some(65536),
            sampler_kind: None,
        };
        let v = make_var(cx, &r, heap_binding(slot), false)?;
        self.heap_vars.insert(key, v);
        Ok(v)
    }

    pub fn var(&mut self, cx: &mut ModuleBuilder<'_>, class: ResourceClass, id: u32) -> Result<ResVar> {
        if let Some(v) = self.vars.get(&(class, id)) {
            return Ok(*v);
        }
        let r = self.resource(class, id)?.clone();
        let atomic = class == ResourceClass::Uav && self.atomic_uavs.contains(&id);
        let v = make_var(cx, &r, self.map.binding_of(&r), atomic)?;
        self.vars.insert((class, id), v);
        Ok(v)
    }
}

fn texel_kind(t: Option<ComponentType>) -> Result<TexelKind> {
    Ok(match t {
        Some(ComponentType::I32 | ComponentType::I16) => TexelKind::SInt,
        Some(ComponentType::U32 | ComponentType::U16) => TexelKind::UInt,
        Some(
            ComponentType::F32
            | ComponentType::F16
            | ComponentType::SNormF32
            | ComponentType::UNormF32
            | ComponentType::SNormF16
            | ComponentType::UNormF16,
        )
        | None => TexelKind::Float,
        Some(other) => {
            return Err(TranslateError::UnsupportedForm {
                name: "resource".into(),
                message: format!("typed resource element type {other:?}"),
            })
        }
    })
}

pub fn texel_type(cx: &mut ModuleBuilder<'_>, k: TexelKind) -> Word {
    match k {
        TexelKind::Float => cx.float(32),
        TexelKind::SInt => cx.sint(32),
        TexelKind::UInt => cx.uint(32),
    }
}

fn make_var(cx: &mut ModuleBuilder<'_>, r: &Resource, b: super::binding_model::VkBinding, atomic: bool) -> Result<ResVar> {
    let uav = r.class == ResourceClass::Uav;
    let unsupported = |what: &str| TranslateError::UnsupportedForm {
        name: "resource".into(),
        message: format!("{} {} ({what})", r.class.name(), r.register()),
    };
    let (shape, elem_ty, storage) = match r.class {
        ResourceClass::Cbv => {
            let rows = r.cbuffer_size.unwrap_or(16).div_ceil(16).max(1);
            let u = cx.u32_t();
            let v4 = cx.vec(u, 4);
            let n = cx.const_u32(rows);
            let arr = cx.b.id();
            cx.b.type_array_id(Some(arr), v4, n);
            cx.decorate(arr, Decoration::ArrayStride, &[16]);
            let st = cx.b.id();
            cx.b.type_struct_id(Some(st), [arr]);
            cx.decorate(st, Decoration::Block, &[]);
            cx.b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
            (ResShape::CBuffer, st, StorageClass::Uniform)
        }
        ResourceClass::Sampler => (ResShape::Sampler, cx.b.type_sampler(), StorageClass::UniformConstant),
        ResourceClass::Srv | ResourceClass::Uav => match r.kind {
            ResourceKind::RawBuffer | ResourceKind::StructuredBuffer => {
                let stride = (r.kind == ResourceKind::StructuredBuffer).then(|| r.struct_stride.unwrap_or(4));
                let u = cx.u32_t();
                // Explicit ids: one array and block type per variable, so decorations never
                // clash between buffers.
                let arr = cx.b.id();
                cx.b.type_runtime_array_id(Some(arr), u);
                cx.decorate(arr, Decoration::ArrayStride, &[4]);
                let st = cx.b.id();
                cx.b.type_struct_id(Some(st), [arr]);
                cx.decorate(st, Decoration::Block, &[]);
                cx.b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
                if !uav {
                    cx.b.member_decorate(st, 0, Decoration::NonWritable, []);
                }
                (ResShape::Words { stride }, st, StorageClass::StorageBuffer)
            }
            kind => {
                let (dim, arrayed, ms) = match kind {
                    ResourceKind::Texture1D => (Dim::Dim1D, false, false),
                    ResourceKind::Texture1DArray => (Dim::Dim1D, true, false),
                    ResourceKind::Texture2D => (Dim::Dim2D, false, false),
                    ResourceKind::Texture2DArray => (Dim::Dim2D, true, false),
                    ResourceKind::Texture2DMS => (Dim::Dim2D, false, true),
                    ResourceKind::Texture2DMSArray => (Dim::Dim2D, true, true),
                    ResourceKind::Texture3D => (Dim::Dim3D, false, false),
                    ResourceKind::TextureCube => (Dim::DimCube, false, false),
                    ResourceKind::TextureCubeArray => (Dim::DimCube, true, false),
                    ResourceKind::TypedBuffer => (Dim::DimBuffer, false, false),
                    _ => return Err(unsupported(&format!("{kind:?}"))),
                };
                let texel = texel_kind(r.element_type)?;
                let tt = texel_type(cx, texel);
                match (dim, uav) {
                    (Dim::Dim1D, false) => cx.capability(Capability::Sampled1D),
                    (Dim::Dim1D, true) => cx.capability(Capability::Image1D),
                    (Dim::DimBuffer, false) => cx.capability(Capability::SampledBuffer),
                    (Dim::DimBuffer, true) => cx.capability(Capability::ImageBuffer),
                    (Dim::DimCube, _) if arrayed => cx.capability(if uav { Capability::ImageCubeArray } else { Capability::SampledCubeArray }),
                    _ => {}
                }
                if uav {
                    cx.capability(Capability::StorageImageReadWithoutFormat);
                    cx.capability(Capability::StorageImageWriteWithoutFormat);
                    if ms {
                        cx.capability(Capability::StorageImageMultisample);
                        if arrayed {
                            cx.capability(Capability::ImageMSArray);
                        }
                    }
                }
                let img = cx.b.type_image(
                    tt,
                    dim,
                    0,
                    u32::from(arrayed),
                    u32::from(ms),
                    if uav { 2 } else { 1 },
                    match (atomic, texel) {
                        (true, TexelKind::UInt) => spirv::ImageFormat::R32ui,
                        (true, TexelKind::SInt) => spirv::ImageFormat::R32i,
                        (true, TexelKind::Float) => spirv::ImageFormat::R32f,
                        (false, _) => spirv::ImageFormat::Unknown,
                    },
                    None,
                );
                (ResShape::Image { dim, arrayed, ms, texel }, img, StorageClass::UniformConstant)
            }
        },
    };
    let (pointee, array_base) = match r.range_size {
        Some(1) => (elem_ty, None),
        Some(n) => {
            let len = cx.const_u32(n);
            (cx.b.type_array(elem_ty, len), Some(r.lower_bound))
        }
        None => {
            cx.capability(Capability::RuntimeDescriptorArray);
            (cx.b.type_runtime_array(elem_ty), Some(r.lower_bound))
        }
    };
    let name = if r.name.is_empty() { format!("{}{}_space{}", r.class.register_letter(), r.lower_bound, r.space) } else { r.name.clone() };
    let var = cx.global_var(storage, pointee, &name);
    cx.decorate(var, Decoration::DescriptorSet, &[b.set]);
    cx.decorate(var, Decoration::Binding, &[b.binding]);
    if r.uav.is_some_and(|u| u.globally_coherent) {
        cx.decorate(var, Decoration::Coherent, &[]);
    }
    Ok(ResVar { var, shape, elem_ty, storage, array_base, uav })
}

impl<'a, 'm> FnEmit<'a, 'm> {
    pub fn handle(&self, v: Value) -> Result<Handle> {
        match v {
            Value::Inst(i) => self.handles.get(&i).copied(),
            _ => None,
        }
        .ok_or_else(|| self.err("a resource handle that does not come from createHandle/annotateHandle"))
    }

    /// The descriptor variable of a handle.
    pub fn res_var(&mut self, h: Handle) -> Result<ResVar> {
        match h.heap {
            Some(hh) => self.res.heap_var(self.cx, hh),
            None => self.res.var(self.cx, h.class, h.id),
        }
    }

    /// The descriptor variable of a handle and a pointer to its descriptor.
    pub fn res_ptr(&mut self, h: Handle) -> Result<(ResVar, Word)> {
        let rv = self.res_var(h)?;
        let Some(base) = rv.array_base else { return Ok((rv, rv.var)) };
        let index = h.index.ok_or_else(|| TranslateError::Malformed("handle into a range without an index".into()))?;
        let x = self.value(index)?;
        let u = self.cx.u32_t();
        let lower = self.cx.const_u32(base);
        let rel = self.ids_op(Op::ISub, u, &[x, lower])?;
        if h.non_uniform {
            self.non_uniform(rel);
        }
        let pty = self.cx.ptr(rv.storage, rv.elem_ty);
        let p = self.ids_op(Op::AccessChain, pty, &[rv.var, rel])?;
        if h.non_uniform {
            self.non_uniform(p);
        }
        Ok((rv, p))
    }

    pub fn non_uniform(&mut self, id: Word) {
        self.cx.capability(Capability::ShaderNonUniform);
        self.cx.decorate(id, Decoration::NonUniform, &[]);
    }

    /// The loaded image (or sampler) of a handle.
    pub fn load_descriptor(&mut self, h: Handle) -> Result<(ResVar, Word)> {
        let (rv, p) = self.res_ptr(h)?;
        let w = self.ids_op(Op::Load, rv.elem_ty, &[p])?;
        if h.non_uniform {
            self.non_uniform(w);
        }
        Ok((rv, w))
    }

    /// A pointer to word `word_index` of a raw/structured buffer handle.
    pub fn word_ptr(&mut self, h: Handle, word_index: Word) -> Result<Word> {
        let (rv, p) = self.res_ptr(h)?;
        let u = self.cx.u32_t();
        let pty = self.cx.ptr(rv.storage, u);
        let zero = self.cx.const_u32(0);
        let w = self.ids_op(Op::AccessChain, pty, &[p, zero, word_index])?;
        if h.non_uniform {
            self.non_uniform(w);
        }
        Ok(w)
    }
}

/// The UAV range ids that `atomicBinOp` / `atomicCompareExchange` calls of `f` use, found by
/// following each call's handle back through `annotateHandle` to its creation.
pub fn atomic_uavs(m: &crate::ir::Module, f: &crate::ir::Function, table: &crate::dxil::Resources) -> std::collections::BTreeSet<u32> {
    use crate::dxil::{decode_call, DxOp};
    use crate::ir::{ConstKind, InstKind};
    let mut out = std::collections::BTreeSet::new();
    let resolve = |mut v: Value| -> Option<u32> {
        for _ in 0..64 {
            let Value::Inst(i) = v else { return None };
            let call = decode_call(m, f, i, "").ok()??;
            let int = |k: usize| call.args.get(k).and_then(|a| match a {
                Value::Const(c) => m.constants.as_int(*c),
                _ => None,
            });
            match call.op {
                DxOp::AnnotateHandle => v = *call.args.first()?,
                DxOp::CreateHandle => return (int(0)? == 1).then_some(int(1)? as u32),
                DxOp::CreateHandleFromBinding => {
                    let Value::Const(c) = call.args.first()? else { return None };
                    let ConstKind::Aggregate(e) = &m.constants.get(*c).kind else { return None };
                    let field = |k: usize| e.get(k).and_then(|x| m.constants.as_int(*x));
                    if field(3)? != 1 {
                        return None;
                    }
                    let (lower, space) = (field(0)? as u32, field(2)? as u32);
                    return table
                        .uavs
                        .iter()
                        .find(|r| r.space == space && lower >= r.lower_bound && r.range_size.is_none_or(|n| lower - r.lower_bound < n))
                        .map(|r| r.id);
                }
                _ => return None,
            }
        }
        None
    };
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            if !matches!(f.insts[i].kind, InstKind::Call { .. }) {
                continue;
            }
            let Ok(Some(call)) = decode_call(m, f, i, "") else { continue };
            // 64-bit atomics use their own 64-bit view (`image64`).
            let wide = matches!(m.types.get(f.insts[i].ty), crate::ir::Type::Int(64));
            if matches!(call.op, DxOp::AtomicBinOp | DxOp::AtomicCompareExchange) && !wide {
                if let Some(id) = call.args.first().copied().and_then(resolve) {
                    out.insert(id);
                }
            }
        }
    }
    out
}
