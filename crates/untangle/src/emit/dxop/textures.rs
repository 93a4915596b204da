//! Textures and queries: `textureLoad`, `textureStore`, `textureStoreSample`, the `sample*`
//! family (implicit, bias, level, grad, comparison), `textureGather*`, `calculateLOD` and
//! `getDimensions` (every resource kind), `textureGatherRaw` (16- and 32-bit).
//!
//! Constant offsets become `ConstOffset`; the clamp operand becomes `MinLod`. Gathers take a
//! non-constant offset as `Offset`. Vulkan (without `VK_KHR_maintenance8`) allows `Offset`
//! on gathers only, so a sample with explicit level or gradients and a non-constant offset
//! (SM 6.7 programmable offsets) becomes a switch over the offset's 4 low bits per
//! component, the only bits D3D honours, with one `ConstOffset` sample per case (see
//! `sample_switch`); 1D and 2D offsets only (3D would need 4096 cases), and not with
//! implicit derivatives (the cases are non-uniform control flow): both typed errors.
//!
//! A load, sample or gather whose residency status (`ResRet` field 4) the program reads is
//! the `OpImageSparse*` form of its access, and the status is the residency code that
//! `checkAccessFullyMapped` (`OpImageSparseTexelsResident`, in `buffers`) tests; a status
//! nobody reads costs nothing (the plain access, status 0). A raw 64-bit gather (two
//! gathers of the same texels) takes the first one's code.

use crate::dxil::DxOp;
use crate::emit::error::{Error, Result};
use crate::emit::Indexing;
use crate::emit::ResVar;
use crate::emit::{Call, FnEmit, Handle, ResShape, TexelKind, ThreadQuads};
use crate::ir::{TypeId, Value};
use rspirv::spirv::{Capability, Dim, ImageOperands, Op, Word};

const FAMILY: &str = "textures";

/// Image operand list, sorted by mask bit as SPIR-V requires.
#[derive(Clone)]
struct ImgOps(Vec<(ImageOperands, Vec<Word>)>);

impl ImgOps {
    /// The operand words: the mask, then each operand's ids in mask-bit order.
    fn operands(mut self) -> Vec<Word> {
        if self.0.is_empty() {
            return Vec::new();
        }
        self.0.sort_by_key(|(m, _)| m.bits());
        let mask = self.0.iter().fold(ImageOperands::NONE, |a, (m, _)| a | *m);
        let mut out = vec![mask.bits()];
        for (_, ws) in self.0 {
            out.extend(ws);
        }
        out
    }
}

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn texture_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        match c.op {
            DxOp::TextureLoad => self.texture_load(c).map(Some),
            DxOp::TextureStore | DxOp::TextureStoreSample => self.texture_store(c).map(|_| None),
            DxOp::GetDimensions => self.get_dimensions(c).map(Some),
            DxOp::Sample
            | DxOp::SampleBias
            | DxOp::SampleLevel
            | DxOp::SampleGrad
            | DxOp::SampleCmp
            | DxOp::SampleCmpLevelZero
            | DxOp::SampleCmpLevel
            | DxOp::SampleCmpBias
            | DxOp::SampleCmpGrad => self.sample(c).map(Some),
            DxOp::TextureGather | DxOp::TextureGatherCmp | DxOp::TextureGatherRaw => self.gather(c).map(Some),
            DxOp::CalculateLOD => self.calculate_lod(c).map(Some),
            DxOp::Texture2DMSGetSamplePosition => self.sample_position(c).map(Some),
            other => Err(self.not_in_family(other, FAMILY)),
        }
    }

    fn image_of(&mut self, c: &Call<'_>) -> Result<(ResVar, Word, Dim, bool, bool, TexelKind)> {
        let h = self.handle(self.arg(c, 0)?)?;
        let rv = self.res_var(h)?;
        let ResShape::Image { dim, arrayed, ms, texel } = rv.shape else {
            return Err(self.invalid(c, "operand 0", "not a texture or typed buffer"));
        };
        // What DXC's validator requires of each operation's resource, where SPIR-V would
        // otherwise be invalid (sampling a storage image, a multisampled or buffer image,
        // depth comparison on 3D images, writing a sampled image, ...).
        let why = match c.op {
            DxOp::Sample
            | DxOp::SampleBias
            | DxOp::SampleLevel
            | DxOp::SampleGrad
            | DxOp::CalculateLOD
            | DxOp::SampleCmp
            | DxOp::SampleCmpLevelZero
            | DxOp::SampleCmpLevel
            | DxOp::SampleCmpBias
            | DxOp::SampleCmpGrad => {
                let cmp = !matches!(
                    c.op,
                    DxOp::Sample | DxOp::SampleBias | DxOp::SampleLevel | DxOp::SampleGrad | DxOp::CalculateLOD
                );
                if rv.uav || ms || dim == Dim::DimBuffer {
                    Some("sampling needs a non-multisampled texture SRV")
                } else if cmp && dim == Dim::Dim3D {
                    Some("comparison sampling needs a 1D, 2D or cube texture")
                } else {
                    None
                }
            }
            DxOp::TextureGather | DxOp::TextureGatherCmp | DxOp::TextureGatherRaw => {
                (rv.uav || ms || !matches!(dim, Dim::Dim2D | Dim::DimCube))
                    .then_some("gathers need a 2D or cube texture SRV")
            }
            DxOp::TextureLoad => (dim == Dim::DimCube).then_some("cube textures cannot be loaded from"),
            DxOp::TextureStore => (!rv.uav || ms).then_some("stores need a non-multisampled texture UAV"),
            DxOp::TextureStoreSample => (!rv.uav || !ms).then_some("sample stores need a multisampled texture UAV"),
            DxOp::Texture2DMSGetSamplePosition => {
                (rv.uav || !ms).then_some("sample positions need a multisampled texture SRV")
            }
            _ => None,
        };
        if let Some(why) = why {
            return Err(self.invalid(c, "operand 0", why));
        }
        let (rv, img) = self.load_descriptor(h)?;
        Ok((rv, img, dim, arrayed, ms, texel))
    }

    /// The texel offset operand from arguments `first..first + n`: `ConstOffset` when all are
    /// constants (none when all are zero or undefined), else `Offset`.
    fn offset_operand(&mut self, c: &Call<'_>, first: usize, n: u32) -> Result<Option<(ImageOperands, Word)>> {
        if let Some(w) = self.const_offset(c, first, n)? {
            return Ok(Some((ImageOperands::CONST_OFFSET, w)));
        }
        let mut dynamic = false;
        for k in 0..n as usize {
            let v = self.arg(c, first + k)?;
            dynamic |= !self.is_undef(v) && self.const_int(v).is_none();
        }
        if !dynamic {
            return Ok(None);
        }
        self.cx.capability(Capability::ImageGatherExtended);
        let ws = self.offset_components(c, first, n)?;
        let w = if n == 1 {
            ws[0]
        } else {
            let i = self.cx.sint(32);
            let vt = self.cx.vec(i, n);
            self.ids_op(Op::CompositeConstruct, vt, &ws)?
        };
        Ok(Some((ImageOperands::OFFSET, w)))
    }

    /// The offset arguments `first..first + n` as 32-bit signed ids (undefined ones zero).
    fn offset_components(&mut self, c: &Call<'_>, first: usize, n: u32) -> Result<Vec<Word>> {
        let i = self.cx.sint(32);
        let mut ws = Vec::new();
        for k in 0..n as usize {
            let v = self.arg(c, first + k)?;
            let w = if self.is_undef(v) {
                self.cx.null(i)
            } else {
                let x = self.value(v)?;
                self.ids_op(Op::Bitcast, i, &[x])?
            };
            ws.push(w);
        }
        Ok(ws)
    }

    /// Whether any of the offset arguments `first..first + n` is not a constant.
    fn dynamic_offset(&self, c: &Call<'_>, first: usize, n: u32) -> Result<bool> {
        let mut dynamic = false;
        for k in 0..n as usize {
            let v = self.arg(c, first + k)?;
            dynamic |= !self.is_undef(v) && self.const_int(v).is_none();
        }
        Ok(dynamic)
    }

    /// Constant offsets from arguments `first..first + n` (all undef or zero: none; `None`
    /// too when one is not a constant).
    fn const_offset(&mut self, c: &Call<'_>, first: usize, n: u32) -> Result<Option<Word>> {
        let mut vals = Vec::new();
        let mut any = false;
        for k in 0..n as usize {
            let v = self.arg(c, first + k)?;
            if self.is_undef(v) {
                vals.push(0i64);
                continue;
            }
            let Some(x) = self.const_int(v) else { return Ok(None) };
            let x = x as u32 as i32 as i64;
            any |= x != 0;
            vals.push(x);
        }
        if !any {
            return Ok(None);
        }
        let i = self.cx.sint(32);
        let ws: Vec<Word> = vals.iter().map(|&x| self.cx.const_bits(i, 32, x as u32 as u64)).collect();
        if n == 1 {
            return Ok(Some(ws[0]));
        }
        let vt = self.cx.vec(i, n);
        Ok(Some(self.cx.b.constant_composite(vt, ws)))
    }

    fn offset_dims(dim: Dim) -> u32 {
        match dim {
            Dim::Dim1D => 1,
            Dim::Dim2D => 2,
            Dim::Dim3D => 3,
            _ => 0,
        }
    }

    fn texture_load(&mut self, c: &Call<'_>) -> Result<Word> {
        let (rv, img, dim, arrayed, ms, texel) = self.image_of(c)?;
        let n = ResShape::Image { dim, arrayed, ms, texel }.coords();
        let mut coord = self.coord(c, 2, n)?;
        let tt = texel.scalar(self.cx);
        let v4 = self.cx.vec(tt, 4);
        let mut ops = ImgOps(Vec::new());
        let mip = self.arg(c, 1)?;
        // A fetch with a non-constant offset fetches at coordinate + offset (Vulkan allows
        // `Offset` on gathers only), the offset's 4 least significant bits as a signed value
        // in [-8, 7] as for samples (see `sample_switch`); the array layer gets no offset.
        let od = Self::offset_dims(dim);
        if !rv.uav && od > 0 && self.const_offset(c, 5, od)?.is_none() {
            let mut dynamic = false;
            for k in 0..od as usize {
                let v = self.arg(c, 5 + k)?;
                dynamic |= !self.is_undef(v) && self.const_int(v).is_none();
            }
            if dynamic {
                let u = self.cx.u32_t();
                let mut parts = Vec::new();
                for k in 0..n {
                    let x = if n == 1 { coord } else { self.extract(u, coord, k)? };
                    let o = if k < od {
                        self.arg(c, 5 + k as usize)?
                    } else {
                        Value::Const(crate::ir::ConstId::from_u32(0))
                    };
                    let x = if k < od && !self.is_undef(o) {
                        let ow = self.value(o)?;
                        let k28 = self.cx.const_u32(28);
                        let high = self.ids_op(Op::ShiftLeftLogical, u, &[ow, k28])?;
                        let ow = self.ids_op(Op::ShiftRightArithmetic, u, &[high, k28])?;
                        self.ids_op(Op::IAdd, u, &[x, ow])?
                    } else {
                        x
                    };
                    parts.push(x);
                }
                coord = if n == 1 {
                    parts[0]
                } else {
                    let vt = self.cx.vec(u, n);
                    self.ids_op(Op::CompositeConstruct, vt, &parts)?
                };
            }
        }
        if ms {
            let s = self.value(mip)?;
            ops.0.push((ImageOperands::SAMPLE, vec![s]));
        } else if !rv.uav && dim != Dim::DimBuffer {
            let l = if self.is_undef(mip) { self.cx.const_u32(0) } else { self.value(mip)? };
            ops.0.push((ImageOperands::LOD, vec![l]));
        }
        if !rv.uav {
            if let Some(o) = self.const_offset(c, 5, od)? {
                ops.0.push((ImageOperands::CONST_OFFSET, vec![o]));
            }
        }
        let mut operands = vec![img, coord];
        operands.extend(ops.operands());
        let op = if rv.uav { Op::ImageRead } else { Op::ImageFetch };
        self.cx.unformatted_access(rv.elem_ty, false);
        let sparse = self.wants_status(c);
        let (v, code) = self.image_access(op, v4, &operands, sparse)?;
        let scalar = self.overload_scalar(c.ty);
        let comps = self.split_texel(v, texel, scalar)?;
        self.make_ret(c.ty, &comps, code)
    }

    fn texture_store(&mut self, c: &Call<'_>) -> Result<()> {
        let (rv, img, dim, arrayed, ms, texel) = self.image_of(c)?;
        self.cx.unformatted_access(rv.elem_ty, true);
        let n = ResShape::Image { dim, arrayed, ms, texel }.coords();
        let coord = self.coord(c, 1, n)?;
        let t = self.make_texel(c, 4, texel)?;
        let mut operands = vec![img, coord, t];
        if c.op == DxOp::TextureStoreSample {
            let s = self.arg_val(c, 9)?;
            operands.extend(ImgOps(vec![(ImageOperands::SAMPLE, vec![s])]).operands());
        }
        self.ids_void(Op::ImageWrite, &operands)
    }

    fn get_dimensions(&mut self, c: &Call<'_>) -> Result<Word> {
        let h = self.handle(self.arg(c, 0)?)?;
        let rv = self.res_var(h)?;
        let u = self.cx.u32_t();
        let mut comps = Vec::new();
        match rv.shape {
            ResShape::Words { stride } => {
                if matches!(rv.indexing, Indexing::Address { .. }) {
                    // A buffer device address has no size to query.
                    return Err(self.form(
                        c.op,
                        "on a root SRV/UAV bound by buffer device address (root descriptors carry no size); \
                         bind it through a descriptor table or lower root descriptors as descriptors",
                    ));
                }
                let words = match self.buffer_range(h)? {
                    // The view's words, from the layer's offset table.
                    Some((_, count)) => count,
                    None => {
                        let (_, p) = self.res_ptr(h)?;
                        self.ids_op(Op::ArrayLength, u, &[p, 0])?
                    }
                };
                let four = self.cx.const_u32(4);
                let bytes = self.ids_op(Op::IMul, u, &[words, four])?;
                comps.push(match stride {
                    None => bytes,
                    Some(s) => {
                        let sw = self.cx.const_u32(s.max(1));
                        self.ids_op(Op::UDiv, u, &[bytes, sw])?
                    }
                });
            }
            ResShape::Image { dim: Dim::DimBuffer, .. } if self.res.offsets_of(h)?.is_some() => {
                // The view's texels, from the layer's offset table.
                let (_, count) = self.buffer_range(h)?.ok_or_else(|| Error::Internal("no buffer range".into()))?;
                comps.push(count);
                while comps.len() < 3 {
                    comps.push(self.cx.undef(u));
                }
            }
            ResShape::Image { dim, arrayed, ms, .. } => {
                self.cx.capability(Capability::ImageQuery);
                let (rv, img) = self.load_descriptor(h)?;
                let n = match dim {
                    Dim::Dim1D | Dim::DimBuffer => 1,
                    Dim::Dim2D | Dim::DimCube => 2,
                    _ => 3,
                } + u32::from(arrayed);
                let vt = self.cx.vec(u, n);
                let lod_query = !rv.uav && !ms && dim != Dim::DimBuffer;
                // D3D (`resinfo`): a mip level past the last gives width, height, depth and
                // array size 0 (the level count is still returned; vkd3d-proton's
                // `test_tex*_array_reinterpretation` checks it); SPIR-V's size query needs a
                // level that exists. `Some(in range)` when the level is not the constant 0.
                let mut level_check = None;
                let size = if lod_query {
                    let mip = self.arg(c, 1)?;
                    let m = if self.is_undef(mip) { self.cx.const_u32(0) } else { self.value(mip)? };
                    if self.cx.const_value_u32(m) == Some(0) {
                        self.ids_op(Op::ImageQuerySizeLod, vt, &[img, m])?
                    } else {
                        let levels = self.ids_op(Op::ImageQueryLevels, u, &[img])?;
                        let b = self.cx.bool_t();
                        level_check = Some(self.ids_op(Op::ULessThan, b, &[m, levels])?);
                        let one = self.cx.const_u32(1);
                        let last = self.ids_op(Op::ISub, u, &[levels, one])?;
                        let m = self.glsl(u, 38, &[m, last])?; // UMin
                        self.ids_op(Op::ImageQuerySizeLod, vt, &[img, m])?
                    }
                } else {
                    self.ids_op(Op::ImageQuerySize, vt, &[img])?
                };
                for k in 0..n {
                    let x = if n == 1 { size } else { self.extract(u, size, k)? };
                    comps.push(match level_check {
                        Some(ok) => {
                            let zero = self.cx.const_u32(0);
                            self.ids_op(Op::Select, u, &[ok, x, zero])?
                        }
                        _ => x,
                    });
                }
                while comps.len() < 3 {
                    comps.push(self.cx.undef(u));
                }
                if lod_query {
                    comps.push(self.ids_op(Op::ImageQueryLevels, u, &[img])?);
                } else if ms {
                    comps.push(self.ids_op(Op::ImageQuerySamples, u, &[img])?);
                }
            }
            _ => return Err(self.form(c.op, "on a constant buffer or sampler")),
        }
        self.make_ret(c.ty, &comps, None)
    }

    /// The sampled image from the texture (argument 0) and sampler (argument 1).
    fn sampled_image(&mut self, c: &Call<'_>) -> Result<(Word, Dim, bool, TexelKind)> {
        let (si, _, dim, arrayed, texel) = self.sampled_image_parts(c)?;
        Ok((si, dim, arrayed, texel))
    }

    /// [`Self::sampled_image`], with the `OpSampledImage` operands (type, image, sampler):
    /// a sampled image must be used in the block that makes it.
    fn sampled_image_parts(&mut self, c: &Call<'_>) -> Result<(Word, [Word; 3], Dim, bool, TexelKind)> {
        let (rv, img, dim, arrayed, _, texel) = self.image_of(c)?;
        let sh = self.handle(self.arg(c, 1)?)?;
        let (si, parts) =
            self.combine_sampler(&rv, img, sh)?.ok_or_else(|| self.invalid(c, "operand 1", "not a sampler"))?;
        Ok((si, parts, dim, arrayed, texel))
    }

    /// The `OpSampledImage` of loaded texture `img` (of variable `rv`) and the sampler
    /// handle `sh` names, with its operands (type, image, sampler); `None` when `sh` is no
    /// sampler.
    pub(super) fn combine_sampler(&mut self, rv: &ResVar, img: Word, sh: Handle) -> Result<Option<(Word, [Word; 3])>> {
        let (srv, sampler) = self.load_descriptor(sh)?;
        if srv.shape != ResShape::Sampler {
            return Ok(None);
        }
        let st = self.cx.b.type_sampled_image(rv.elem_ty);
        let si = self.ids_op(Op::SampledImage, st, &[img, sampler])?;
        Ok(Some((si, [st, img, sampler])))
    }

    fn float_coord(&mut self, c: &Call<'_>, first: usize, n: u32) -> Result<Word> {
        let f = self.cx.float(32);
        self.args_vector(c, first, n, f)
    }

    fn sample_coords(dim: Dim, arrayed: bool) -> u32 {
        (match dim {
            Dim::Dim1D => 1,
            Dim::Dim2D => 2,
            _ => 3,
        }) + u32::from(arrayed)
    }

    fn sample(&mut self, c: &Call<'_>) -> Result<Word> {
        let (si, si_parts, dim, arrayed, texel) = self.sampled_image_parts(c)?;
        let n = Self::sample_coords(dim, arrayed);
        let coord = self.float_coord(c, 2, n)?;
        let mut ops = ImgOps(Vec::new());
        let odims = Self::offset_dims(dim);
        let dynamic = self.dynamic_offset(c, 6, odims)?;
        let dyn_offs = if dynamic {
            if matches!(c.op, DxOp::Sample | DxOp::SampleBias | DxOp::SampleCmp | DxOp::SampleCmpBias) {
                // Implicit derivatives inside the offset switch's non-uniform cases would be
                // undefined.
                return Err(self.form(c.op, "non-constant texel offsets with implicit derivatives"));
            }
            if odims > 2 {
                // 4096 cases: not lowered.
                return Err(self.form(c.op, "non-constant texel offsets on 3D textures"));
            }
            Some(self.offset_components(c, 6, odims)?)
        } else {
            if let Some(o) = self.const_offset(c, 6, odims)? {
                ops.0.push((ImageOperands::CONST_OFFSET, vec![o]));
            }
            None
        };
        let clamp = |me: &mut Self, ops: &mut ImgOps, k: usize| -> Result<()> {
            if let Some(v) = c.args.get(k).copied() {
                if !me.is_undef(v) {
                    me.cx.capability(Capability::MinLod);
                    let w = me.value(v)?;
                    ops.0.push((ImageOperands::MIN_LOD, vec![w]));
                }
            }
            Ok(())
        };
        if matches!(c.op, DxOp::Sample | DxOp::SampleBias | DxOp::SampleCmp | DxOp::SampleCmpBias) {
            self.need_thread_quads(ThreadQuads::Derivatives);
        }
        let (op, dref) = match c.op {
            DxOp::Sample => {
                clamp(self, &mut ops, 9)?;
                (Op::ImageSampleImplicitLod, None)
            }
            DxOp::SampleBias => {
                let b = self.arg_val(c, 9)?;
                ops.0.push((ImageOperands::BIAS, vec![b]));
                clamp(self, &mut ops, 10)?;
                (Op::ImageSampleImplicitLod, None)
            }
            DxOp::SampleLevel => {
                let l = self.arg_val(c, 9)?;
                ops.0.push((ImageOperands::LOD, vec![l]));
                (Op::ImageSampleExplicitLod, None)
            }
            DxOp::SampleGrad => {
                let gn = Self::offset_dims(dim).max(if dim == Dim::DimCube { 3 } else { 1 });
                let dx = self.float_coord(c, 9, gn)?;
                let dy = self.float_coord(c, 12, gn)?;
                ops.0.push((ImageOperands::GRAD, vec![dx, dy]));
                clamp(self, &mut ops, 15)?;
                (Op::ImageSampleExplicitLod, None)
            }
            DxOp::SampleCmp => {
                let d = self.arg_val(c, 9)?;
                clamp(self, &mut ops, 10)?;
                (Op::ImageSampleDrefImplicitLod, Some(d))
            }
            DxOp::SampleCmpBias => {
                let d = self.arg_val(c, 9)?;
                let b = self.arg_val(c, 10)?;
                ops.0.push((ImageOperands::BIAS, vec![b]));
                clamp(self, &mut ops, 11)?;
                (Op::ImageSampleDrefImplicitLod, Some(d))
            }
            DxOp::SampleCmpGrad => {
                let d = self.arg_val(c, 9)?;
                let gn = Self::offset_dims(dim).max(if dim == Dim::DimCube { 3 } else { 1 });
                let dx = self.float_coord(c, 10, gn)?;
                let dy = self.float_coord(c, 13, gn)?;
                ops.0.push((ImageOperands::GRAD, vec![dx, dy]));
                clamp(self, &mut ops, 16)?;
                (Op::ImageSampleDrefExplicitLod, Some(d))
            }
            DxOp::SampleCmpLevelZero | DxOp::SampleCmpLevel => {
                let d = self.arg_val(c, 9)?;
                let l = if c.op == DxOp::SampleCmpLevel {
                    self.arg_val(c, 10)?
                } else {
                    let f = self.cx.float(32);
                    self.cx.null(f)
                };
                ops.0.push((ImageOperands::LOD, vec![l]));
                (Op::ImageSampleDrefExplicitLod, Some(d))
            }
            other => return Err(self.not_in_family(other, FAMILY)),
        };
        let tt = texel.scalar(self.cx);
        let scalar = self.overload_scalar(c.ty);
        let mut operands = vec![si, coord];
        if let Some(d) = dref {
            operands.push(d);
        }
        let rty = if dref.is_some() { tt } else { self.cx.vec(tt, 4) };
        let sparse = self.wants_status(c);
        let (x, code) = match dyn_offs {
            Some(offs) => {
                // Every case samples sparsely; the merge's phi takes the whole result.
                let (op, ty) = if sparse { (self.sparse_twin(op)?, self.sparse_result(rty)) } else { (op, rty) };
                let v = sample_switch(self, op, ty, si_parts, &operands, &ops, &offs)?;
                if sparse {
                    let (x, code) = self.split_sparse(v, rty)?;
                    (x, Some(code))
                } else {
                    (v, None)
                }
            }
            None => {
                operands.extend(ops.operands());
                self.image_access(op, rty, &operands, sparse)?
            }
        };
        if dref.is_some() {
            let v = self.num_to_ir(x, texel.num(), scalar)?;
            return self.make_ret(c.ty, &[v], code);
        }
        let comps = self.split_texel(x, texel, scalar)?;
        self.make_ret(c.ty, &comps, code)
    }

    fn gather(&mut self, c: &Call<'_>) -> Result<Word> {
        let (si, dim, arrayed, texel) = self.sampled_image(c)?;
        let n = Self::sample_coords(dim, arrayed);
        let coord = self.float_coord(c, 2, n)?;
        let mut ops = ImgOps(Vec::new());
        if let Some((kind, o)) = self.offset_operand(c, 6, Self::offset_dims(dim).min(2))? {
            ops.0.push((kind, vec![o]));
        }
        let tt = texel.scalar(self.cx);
        let v4 = self.cx.vec(tt, 4);
        let mut operands = vec![si, coord];
        let sparse = self.wants_status(c);
        let op = if c.op == DxOp::TextureGatherRaw {
            // The raw bits of the first channel (R16/R32 formats) as integers; 64-bit texels
            // are R32G32 views: gather both channels and join them, low word first.
            let scalar = self.overload_scalar(c.ty);
            if self.scalar_bits(scalar) == Some(64) {
                let u = self.cx.u32_t();
                let u2 = self.cx.vec(u, 2);
                let st = self.cx.ty(scalar)?;
                let extra = ops.operands();
                let mut channels = Vec::new();
                let mut status = None;
                for ch in 0..2 {
                    let mut o = vec![si, coord, self.cx.const_u32(ch)];
                    o.extend(extra.clone());
                    // Both gathers read the same texels: the first one's code is the status.
                    let (g, code) = self.image_access(Op::ImageGather, v4, &o, sparse && ch == 0)?;
                    status = status.or(code);
                    let g = if texel == TexelKind::UInt {
                        g
                    } else {
                        let uv4 = self.cx.vec(u, 4);
                        self.ids_op(Op::Bitcast, uv4, &[g])?
                    };
                    channels.push(g);
                }
                let mut comps = Vec::new();
                for k in 0..4 {
                    let lo = self.extract(u, channels[0], k)?;
                    let hi = self.extract(u, channels[1], k)?;
                    let pair = self.ids_op(Op::CompositeConstruct, u2, &[lo, hi])?;
                    comps.push(self.ids_op(Op::Bitcast, st, &[pair])?);
                }
                return self.make_ret(c.ty, &comps, status);
            }
            operands.push(self.cx.const_u32(0));
            Op::ImageGather
        } else if c.op == DxOp::TextureGather {
            let ch = self.arg_const(c, 8)? as u32;
            operands.push(self.cx.const_u32(ch));
            Op::ImageGather
        } else {
            let d = self.arg_val(c, 9)?;
            operands.push(d);
            Op::ImageDrefGather
        };
        operands.extend(ops.operands());
        let (v, code) = self.image_access(op, v4, &operands, sparse)?;
        let scalar = self.overload_scalar(c.ty);
        let comps = self.split_texel(v, texel, scalar)?;
        self.make_ret(c.ty, &comps, code)
    }

    fn calculate_lod(&mut self, c: &Call<'_>) -> Result<Word> {
        self.cx.capability(Capability::ImageQuery);
        self.need_thread_quads(ThreadQuads::Derivatives);
        let (si, dim, _, _) = self.sampled_image(c)?;
        let n = Self::sample_coords(dim, false);
        let coord = self.float_coord(c, 2, n)?;
        let f = self.cx.float(32);
        let v2 = self.cx.vec(f, 2);
        let q = self.ids_op(Op::ImageQueryLod, v2, &[si, coord])?;
        let clamped = self.arg_const(c, 5)? != 0;
        self.extract(f, q, if clamped { 0 } else { 1 })
    }

    /// `texture2DMSGetSamplePosition(srv, index)`: D3D's standard sample positions (Vulkan's
    /// standard sample locations are the same; a layer checks `standardSampleLocations`) for
    /// the texture's sample count, relative to the pixel centre; (0, 0) for a sample count
    /// without a standard pattern or an index past the count.
    fn sample_position(&mut self, c: &Call<'_>) -> Result<Word> {
        let (_, img, ..) = self.image_of(c)?;
        self.cx.capability(Capability::ImageQuery);
        let u = self.cx.u32_t();
        let count = self.ids_op(Op::ImageQuerySamples, u, &[img])?;
        let index = self.arg_val(c, 1)?;
        self.standard_sample_position(count, index, c.ty)
    }

    /// Entry `index` of D3D's standard pattern for `count` samples (both `u32` ids), as the
    /// `SamplePos` struct `ty`: (0, 0) when `count` has no standard pattern or `index` is not
    /// below it. Also `renderTargetGetSamplePosition`'s (`interpolation.rs`).
    pub(super) fn standard_sample_position(&mut self, count: Word, index: Word, ty: TypeId) -> Result<Word> {
        let u = self.cx.u32_t();
        let b = self.cx.bool_t();
        // Valid: count is 1, 2, 4, 8 or 16 and index < count; then the entry is count - 1 + index.
        let (one, zero, sixteen) = (self.cx.const_u32(1), self.cx.const_u32(0), self.cx.const_u32(16));
        let below = self.ids_op(Op::ISub, u, &[count, one])?;
        let low_bits = self.ids_op(Op::BitwiseAnd, u, &[count, below])?;
        let pow2 = self.ids_op(Op::IEqual, b, &[low_bits, zero])?;
        let small = self.ids_op(Op::ULessThanEqual, b, &[count, sixteen])?;
        let nonzero = self.ids_op(Op::INotEqual, b, &[count, zero])?;
        let in_range = self.ids_op(Op::ULessThan, b, &[index, count])?;
        let mut valid = pow2;
        for cond in [small, nonzero, in_range] {
            valid = self.ids_op(Op::LogicalAnd, b, &[valid, cond])?;
        }
        let entry = self.ids_op(Op::IAdd, u, &[below, index])?;
        let entry = self.ids_op(Op::Select, u, &[valid, entry, zero])?;
        // The table packed one byte per entry (x in the low nibble, y in the high one, both
        // signed 1/16ths), four entries per word, in two `uvec4` constants.
        let mut words = [0u32; 8];
        for (k, &(x, y)) in STANDARD_SAMPLE_POSITIONS.iter().enumerate() {
            let byte = (x as u32 & 0xf) | ((y as u32 & 0xf) << 4);
            words[k / 4] |= byte << (8 * (k % 4));
        }
        let u4 = self.cx.vec(u, 4);
        let halves: Vec<Word> = words
            .chunks(4)
            .map(|ws| {
                let ids: Vec<Word> = ws.iter().map(|&w| self.cx.const_u32(w)).collect();
                self.cx.b.constant_composite(u4, ids)
            })
            .collect();
        let (two, three, four) = (self.cx.const_u32(2), self.cx.const_u32(3), self.cx.const_u32(4));
        let word_index = self.ids_op(Op::ShiftRightLogical, u, &[entry, two])?;
        let upper = self.ids_op(Op::UGreaterThanEqual, b, &[word_index, four])?;
        let half = self.ids_op(Op::Select, u4, &[upper, halves[1], halves[0]])?;
        let lane = self.ids_op(Op::BitwiseAnd, u, &[word_index, three])?;
        let word = self.ids_op(Op::VectorExtractDynamic, u, &[half, lane])?;
        let byte = self.ids_op(Op::BitwiseAnd, u, &[entry, three])?;
        let shift = self.ids_op(Op::ShiftLeftLogical, u, &[byte, three])?;
        let f = self.cx.float(32);
        let sixteenth = self.cx.const_bits(f, 32, (1.0f32 / 16.0).to_bits() as u64);
        let nibble = self.cx.const_u32(4);
        let mut comps = Vec::new();
        for k in 0..2 {
            let at = if k == 0 { shift } else { self.ids_op(Op::IAdd, u, &[shift, nibble])? };
            let v = self.ids_op(Op::BitFieldSExtract, u, &[word, at, nibble])?;
            let v = self.ids_op(Op::ConvertSToF, f, &[v])?;
            comps.push(self.ids_op(Op::FMul, f, &[v, sixteenth])?);
        }
        self.make_ret(ty, &comps, None)
    }
}

/// D3D's standard sample patterns (D3D11 `D3D11_STANDARD_MULTISAMPLE_PATTERN`, the same as
/// Vulkan's standard sample locations) in 1/16 pixel from the pixel centre: 1, 2, 4, 8 and 16
/// samples, the pattern for `n` samples starting at entry `n - 1`.
const STANDARD_SAMPLE_POSITIONS: [(i8, i8); 31] = [
    (0, 0),
    (4, 4),
    (-4, -4),
    (-2, -6),
    (6, -2),
    (-6, 2),
    (2, 6),
    (1, -3),
    (-1, 3),
    (5, 1),
    (-3, -5),
    (-5, 5),
    (-7, -1),
    (3, 7),
    (7, -7),
    (1, 1),
    (-1, -3),
    (-3, 2),
    (4, -1),
    (-5, -2),
    (2, 5),
    (5, 3),
    (3, -5),
    (-2, 6),
    (0, -7),
    (-4, -6),
    (-6, 4),
    (-8, 0),
    (7, -4),
    (6, 7),
    (-7, -8),
];

/// A sample (`op`, result type `ty`, `operands` before the image operands, the first
/// one the sampled image, remade in each case from `OpSampledImage` operands) whose texel
/// offset `offs` (32-bit signed ids, one per dimension) is not a constant. Vulkan allows
/// the `Offset` image operand on gathers only, so this switches on the offset: D3D
/// honours only the 4 least significant bits of each component, as a signed value in
/// [-8, 7] (DirectX-Specs, `d3d/HLSL_ShaderModel6_7.md`, "Programmable Offsets": "the
/// respected offset range remains [-8,7] corresponding to the 4 least significant bits
/// of the value"; immediate offsets have the same [-8..7] range, per Microsoft's
/// `gather4_po (sm5 - asm)` reference page). The selector packs
/// those bits, component k at bits 4k..4k+3, and each of the 16^n cases samples with
/// the matching `ConstOffset`; an `OpPhi` in the merge block picks the result. Splits
/// the current block like [`FnEmit::split_if`].
fn sample_switch(
    fe: &mut FnEmit<'_, '_>,
    op: Op,
    ty: Word,
    [st, img, sampler]: [Word; 3],
    operands: &[Word],
    ops: &ImgOps,
    offs: &[Word],
) -> Result<Word> {
    let n = offs.len() as u32;
    if n == 0 || n > 2 {
        return Err(Error::Internal(format!("offset switch over {n} components")));
    }
    let u = fe.cx.u32_t();
    let fifteen = fe.cx.const_u32(15);
    let mut sel = None;
    for (k, &o) in offs.iter().enumerate() {
        let ou = fe.ids_op(Op::Bitcast, u, &[o])?;
        let m = fe.ids_op(Op::BitwiseAnd, u, &[ou, fifteen])?;
        let m = if k == 0 {
            m
        } else {
            let sh = fe.cx.const_u32(4 * k as u32);
            fe.ids_op(Op::ShiftLeftLogical, u, &[m, sh])?
        };
        sel = Some(match sel {
            None => m,
            Some(prev) => fe.ids_op(Op::BitwiseOr, u, &[prev, m])?,
        });
    }
    let sel = sel.ok_or_else(|| fe.err("texel offset without components"))?;
    // Every case's operands: these, with its sampled image first and its offset in the
    // `ConstOffset` slot (u32::MAX here: no id or mask is that large).
    let mut all = operands.to_vec();
    let mut case_ops = ops.clone();
    case_ops.0.push((ImageOperands::CONST_OFFSET, vec![u32::MAX]));
    all.extend(case_ops.operands());
    let off_at = all.iter().rposition(|&w| w == u32::MAX).ok_or_else(|| fe.err("offset operand"))?;
    fe.split_switch(sel, 1 << (4 * n), ty, |me, k| {
        let i = me.cx.sint(32);
        let mut comps = [0; 2];
        for (d, c) in comps.iter_mut().enumerate().take(n as usize) {
            // Sign-extend the 4-bit field.
            let x = (((k >> (4 * d)) & 15) as i32) << 28 >> 28;
            *c = me.cx.const_bits(i, 32, x as u32 as u64);
        }
        let off = if n == 1 {
            comps[0]
        } else {
            let vt = me.cx.vec(i, n);
            me.cx.b.constant_composite(vt, &comps[..n as usize])
        };
        all[0] = me.ids_op(Op::SampledImage, st, &[img, sampler])?;
        all[off_at] = off;
        me.ids_op(op, ty, &all)
    })
}
