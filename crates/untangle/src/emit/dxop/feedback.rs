//! Sampler feedback: `writeSamplerFeedback`, `writeSamplerFeedbackBias`,
//! `writeSamplerFeedbackLevel`, `writeSamplerFeedbackGrad` (SM 6.5).
//!
//! Vulkan has no feedback maps, so the map is a storage image under an encoding the layer
//! chooses ([`crate::emit::Options::sampler_feedback`]; without one the operations are
//! refused). The one encoding today is vkd3d-proton's
//! ([`crate::emit::SamplerFeedbackEncoding::Vkd3dProton`], `docs/sampler-feedback.md`):
//!
//! - the feedback UAV is a 2D `R64ui` storage image ([`crate::emit::ResShape::Feedback`]),
//!   arrayed for `FeedbackTexture2DArray` (one layer per paired-texture layer);
//! - the low 4 bits of its width and height are log2 of the mip region's width and height
//!   (the layer pads the image so; the shader reads them with `OpImageQuerySize`);
//! - texel `(x, y)` holds, for each mip level `m` of the paired texture, a 4-bit field at
//!   bits `4m..4m+3` for mip region `(x, y)` of level `m`: bit 0 the region was touched,
//!   bits 1, 2, 3 its right, lower and diagonal neighbours too (a footprint straddling
//!   region borders). Writes OR fields in (`OpAtomicOr`, device scope, relaxed).
//!
//! What one call writes, as vkd3d-proton's own translator computes it (the layer's resolve
//! passes expect these footprints; the steps are the contract's, so they are kept exactly):
//!
//! 1. The level of detail `λ`: implicit ops query it (`OpImageQueryLod`'s clamped
//!    component; `Bias` first scales the coordinates by `exp2(bias)`, broadcast from quad
//!    lane 0, since the bias only shows through the gradients); `Level` takes its operand,
//!    `Grad` computes `0.5·log2(max(|size₀·ddx|², |size₀·ddy|²))`; those two are clamped
//!    (`NClamp`) to `[0, levels − 1]`. A defined clamp operand (all but `Level`) then
//!    raises `λ` to it, and `λ` stays at most 14 (16 fields of 4 bits).
//! 2. Trilinear filtering: the fine level `⌊λ⌋` always, the coarse level `⌊λ + 1 − 0.75/256⌋`
//!    too when it differs (the filter reads a second level once the fraction reaches
//!    about 1/256).
//! 3. For each level `m`: the coordinates wrap (`fract`) and scale to mip regions of that
//!    level (`size_m · 2^-log2(region)`); the footprint's half extent is half a texel for
//!    `Level` and `Grad` (bilinear), and for implicit ops half the next power of two of
//!    the derivatives' bounding box (anisotropy up to 16×), at most half a region. Its
//!    low corner (clamped at 0) is the texel written; the neighbour bits say whether its
//!    high corner falls in the next region horizontally, vertically, both.
//! 4. The write: `OpAtomicOr` of `field << 4m` at the texel (and the paired coordinate's
//!    layer, `roundEven`, for arrays), in pixel shaders only where the lane is not a helper
//!    invocation, and for the coarse level only when it differs from the fine one.
//!
//! The atomics are per lane (vkd3d-proton's translator first merges lanes that hit one
//! texel with a subgroup OR; the image holds the same bits either way). Each guarded write
//! splits the block ([`FnEmit::split_if`]); a call in a loop header block is a typed error,
//! as for `discard`. The operations reach this module only under an encoding: the
//! dispatcher (`dxop`) turns [`crate::emit::support`]'s refusal into this family when
//! [`crate::emit::Options::sampler_feedback`] is set, so the coverage table describes the
//! default options.
//!
//! A leaf of `emit` (see its documentation).

use crate::dxil::DxOp;
use crate::emit::error::Result;
use crate::emit::glsl::{EXP2, FABS, FMAX, FMIN, FRACT, FREXP_STRUCT, LDEXP, LOG2, NCLAMP, ROUND_EVEN, SCLAMP};
use crate::emit::{Call, FnEmit, ResShape, SamplerFeedbackEncoding, ThreadQuads};
use crate::front::container::ShaderKind;
use rspirv::spirv::{Capability, Dim, Op, Scope, StorageClass, Word};

const FAMILY: &str = "feedback";

/// How a call finds its level of detail.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Lod {
    Implicit,
    Bias,
    Level,
    Grad,
}

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn feedback_op(&mut self, c: &Call<'_>, encoding: SamplerFeedbackEncoding) -> Result<Option<Word>> {
        let lod = match c.op {
            DxOp::WriteSamplerFeedback => Lod::Implicit,
            DxOp::WriteSamplerFeedbackBias => Lod::Bias,
            DxOp::WriteSamplerFeedbackLevel => Lod::Level,
            DxOp::WriteSamplerFeedbackGrad => Lod::Grad,
            other => return Err(self.not_in_family(other, FAMILY)),
        };
        match encoding {
            SamplerFeedbackEncoding::Vkd3dProton => self.feedback_vkd3d_proton(c, lod).map(|_| None),
        }
    }

    fn feedback_vkd3d_proton(&mut self, c: &Call<'_>, lod: Lod) -> Result<()> {
        // Operands: feedback UAV, paired texture, sampler, 4 coordinates, then bias / level /
        // gradients, and (but for Level) the clamp last.
        let fh = self.handle(self.arg(c, 0)?)?;
        let frv = self.res_var(fh)?;
        let ResShape::Feedback { arrayed } = frv.shape else {
            return Err(self.invalid(c, "operand 0", "not a sampler-feedback texture UAV"));
        };
        let th = self.handle(self.arg(c, 1)?)?;
        let trv = self.res_var(th)?;
        match trv.shape {
            ResShape::Image { dim: Dim::Dim2D, arrayed: a, ms: false, .. } if !trv.uav && a == arrayed => {}
            _ => {
                return Err(self.invalid(
                    c,
                    "operand 1",
                    if arrayed {
                        "a FeedbackTexture2DArray pairs with a Texture2DArray SRV"
                    } else {
                        "a FeedbackTexture2D pairs with a Texture2D SRV"
                    },
                ))
            }
        }
        let (_, img) = self.load_descriptor(th)?;
        let sh = self.handle(self.arg(c, 2)?)?;
        let (srv, sampler) = self.load_descriptor(sh)?;
        if srv.shape != ResShape::Sampler {
            return Err(self.invalid(c, "operand 2", "not a sampler"));
        }
        self.cx.capability(Capability::ImageQuery);

        let b = self.cx.bool_t();
        let i = self.cx.sint(32);
        let f = self.cx.float(32);
        let u64t = self.cx.uint(64);
        let i2 = self.cx.vec(i, 2);
        let i3 = self.cx.vec(i, 3);
        let f2 = self.cx.vec(f, 2);
        let b2 = self.cx.vec(b, 2);
        let fc = |me: &mut Self, x: f32| me.cx.const_bits(f, 32, u64::from(x.to_bits()));
        let ic = |me: &mut Self, x: i32| me.cx.const_bits(i, 32, u64::from(x as u32));
        let splat = |me: &mut Self, ty: Word, x: Word| me.cx.b.constant_composite(ty, [x, x]);

        // The paired coordinate's layer, rounded as sampling rounds it.
        let layer = if arrayed {
            let l = self.arg_val(c, 5)?;
            let r = self.glsl(f, ROUND_EVEN, &[l])?;
            Some(self.ids_op(Op::ConvertFToS, i, &[r])?)
        } else {
            None
        };
        let coord = self.args_vector(c, 3, 2, f)?;

        // log2 of the mip region size: the low 4 bits of the map's width and height.
        let fp = self.element_ptr(fh, &frv)?;
        let map = self.ids_op(Op::Load, frv.elem_ty, &[fp])?;
        if fh.non_uniform {
            self.non_uniform(map);
        }
        let map_size = if arrayed {
            let s = self.ids_op(Op::ImageQuerySize, i3, &[map])?;
            self.ids_op(Op::VectorShuffle, i2, &[s, s, 0, 1])?
        } else {
            self.ids_op(Op::ImageQuerySize, i2, &[map])?
        };
        let fifteen = ic(self, 15);
        let fifteen = splat(self, i2, fifteen);
        let region_log2 = self.ids_op(Op::BitwiseAnd, i2, &[map_size, fifteen])?;
        let to_regions = self.ids_op(Op::SNegate, i2, &[region_log2])?;

        let levels = self.ids_op(Op::ImageQueryLevels, i, &[img])?;
        let one = ic(self, 1);
        let max_level = self.ids_op(Op::ISub, i, &[levels, one])?;

        // 1. The level of detail.
        let mut grad_scale = None;
        let mut lambda = match lod {
            Lod::Implicit | Lod::Bias => {
                self.need_thread_quads(ThreadQuads::Derivatives);
                let q = if lod == Lod::Bias {
                    let bias = self.arg_val(c, 7)?;
                    let scale = self.glsl(f, EXP2, &[bias])?;
                    // The lane's own factor scales its footprint; the quad's first lane's
                    // scales the coordinates of the query (one LOD per quad).
                    grad_scale = Some(scale);
                    self.cx.capability(Capability::GroupNonUniformQuad);
                    let sg = self.cx.const_u32(Scope::Subgroup as u32);
                    let lane0 = self.cx.const_u32(0);
                    let quad = self.ids_op(Op::GroupNonUniformQuadBroadcast, f, &[sg, scale, lane0])?;
                    self.ids_op(Op::VectorTimesScalar, f2, &[coord, quad])?
                } else {
                    coord
                };
                let st = self.cx.b.type_sampled_image(trv.elem_ty);
                let si = self.ids_op(Op::SampledImage, st, &[img, sampler])?;
                let l = self.ids_op(Op::ImageQueryLod, f2, &[si, q])?;
                self.extract(f, l, 0)?
            }
            Lod::Level => self.arg_val(c, 7)?,
            Lod::Grad => {
                let zero = ic(self, 0);
                let size0 = self.texture_size(img, arrayed, zero)?;
                let size0 = self.ids_op(Op::ConvertSToF, f2, &[size0])?;
                let ddx = self.args_vector(c, 7, 2, f)?;
                let ddy = self.args_vector(c, 10, 2, f)?;
                let gx = self.ids_op(Op::FMul, f2, &[size0, ddx])?;
                let gy = self.ids_op(Op::FMul, f2, &[size0, ddy])?;
                let dx = self.ids_op(Op::Dot, f, &[gx, gx])?;
                let dy = self.ids_op(Op::Dot, f, &[gy, gy])?;
                let m = self.glsl(f, FMAX, &[dx, dy])?;
                let l = self.glsl(f, LOG2, &[m])?;
                let half = fc(self, 0.5);
                self.ids_op(Op::FMul, f, &[l, half])?
            }
        };
        if matches!(lod, Lod::Level | Lod::Grad) {
            let top = self.ids_op(Op::ConvertSToF, f, &[max_level])?;
            let zero = fc(self, 0.0);
            lambda = self.glsl(f, NCLAMP, &[lambda, zero, top])?;
        }
        if lod != Lod::Level {
            let clamp = self.arg(c, c.args.len().saturating_sub(1))?;
            if !self.is_undef(clamp) {
                let clamp = self.value(clamp)?;
                let at_least = self.glsl(f, FMAX, &[lambda, clamp])?;
                let fourteen = fc(self, 14.0);
                lambda = self.glsl(f, FMIN, &[at_least, fourteen])?;
            }
        }

        // 2. The levels the filter reads.
        let fine = self.ids_op(Op::ConvertFToS, i, &[lambda])?;
        let up = fc(self, 1.0 - 0.75 / 256.0);
        let coarse = self.ids_op(Op::FAdd, f, &[lambda, up])?;
        let coarse = self.ids_op(Op::ConvertFToS, i, &[coarse])?;
        let trilinear = self.ids_op(Op::INotEqual, b, &[fine, coarse])?;

        // The derivatives' bounding box in normalized coordinates (implicit ops).
        let extent_uv = if matches!(lod, Lod::Implicit | Lod::Bias) {
            let dx = self.ids_op(Op::DPdx, f2, &[coord])?;
            let dy = self.ids_op(Op::DPdy, f2, &[coord])?;
            let dx = self.glsl(f2, FABS, &[dx])?;
            let dy = self.glsl(f2, FABS, &[dy])?;
            let mut comps = [0; 2];
            for (k, comp) in comps.iter_mut().enumerate() {
                let a = self.extract(f, dx, k as u32)?;
                let b = self.extract(f, dy, k as u32)?;
                *comp = self.glsl(f, FMAX, &[a, b])?;
            }
            let e = self.ids_op(Op::CompositeConstruct, f2, &comps)?;
            Some(match grad_scale {
                Some(s) => self.ids_op(Op::VectorTimesScalar, f2, &[e, s])?,
                None => e,
            })
        } else {
            None
        };
        let uv = self.glsl(f2, FRACT, &[coord])?;
        let pixel = self.sm.kind == ShaderKind::Pixel;
        if pixel {
            self.cx.capability(Capability::DemoteToHelperInvocation);
        }

        // 3. and 4., for the fine level, then the coarse one.
        for (k, level) in [fine, coarse].into_iter().enumerate() {
            let size = self.texture_size(img, arrayed, level)?;
            let size = self.ids_op(Op::ConvertSToF, f2, &[size])?;
            let scale = self.glsl(f2, LDEXP, &[size, to_regions])?;
            let p = self.ids_op(Op::FMul, f2, &[uv, scale])?;
            let half = fc(self, 0.5);
            let half2 = splat(self, f2, half);
            let extent = match extent_uv {
                Some(e) => {
                    let texels = self.ids_op(Op::FMul, f2, &[e, size])?;
                    let eps = fc(self, 1.0 / 256.0);
                    let eps = splat(self, f2, eps);
                    let texels = self.ids_op(Op::FSub, f2, &[texels, eps])?;
                    let fr = self.cx.b.type_struct([f2, i2]);
                    let fr = self.glsl(fr, FREXP_STRUCT, &[texels])?;
                    let exp = self.ids_op(Op::CompositeExtract, i2, &[fr, 1])?;
                    let lo = ic(self, 0);
                    let lo = splat(self, i2, lo);
                    let hi = ic(self, 4);
                    let hi = splat(self, i2, hi);
                    let exp = self.glsl(i2, SCLAMP, &[exp, lo, hi])?;
                    let exp = self.ids_op(Op::IAdd, i2, &[exp, to_regions])?;
                    let e = self.glsl(f2, LDEXP, &[half2, exp])?;
                    self.glsl(f2, FMIN, &[e, half2])?
                }
                None => self.glsl(f2, LDEXP, &[half2, to_regions])?,
            };
            let lo = self.ids_op(Op::FSub, f2, &[p, extent])?;
            let zero = fc(self, 0.0);
            let zero2 = splat(self, f2, zero);
            let lo = self.glsl(f2, FMAX, &[lo, zero2])?;
            let hi = self.ids_op(Op::FAdd, f2, &[p, extent])?;
            let lo = self.ids_op(Op::ConvertFToS, i2, &[lo])?;
            let hi = self.ids_op(Op::ConvertFToS, i2, &[hi])?;
            let straddles = self.ids_op(Op::INotEqual, b2, &[lo, hi])?;
            let right = self.extract(b, straddles, 0)?;
            let below = self.extract(b, straddles, 1)?;
            let diagonal = self.ids_op(Op::LogicalAnd, b, &[right, below])?;
            let mut field = ic(self, 1);
            for (bit, cond) in [(2, right), (4, below), (8, diagonal)] {
                let set = ic(self, bit);
                let clear = ic(self, 0);
                let x = self.ids_op(Op::Select, i, &[cond, set, clear])?;
                field = self.ids_op(Op::BitwiseOr, i, &[field, x])?;
            }
            let field = self.ids_op(Op::SConvert, u64t, &[field])?;
            let four = ic(self, 4);
            let shift = self.ids_op(Op::IMul, i, &[level, four])?;
            let shift = self.ids_op(Op::SConvert, u64t, &[shift])?;
            let value = self.ids_op(Op::ShiftLeftLogical, u64t, &[field, shift])?;
            let texel = match layer {
                Some(l) => self.ids_op(Op::CompositeConstruct, i3, &[lo, l])?,
                None => lo,
            };
            let participate = match (pixel, k) {
                (true, _) => {
                    let h = self.ids_op(Op::IsHelperInvocationEXT, b, &[])?;
                    let p = self.ids_op(Op::LogicalNot, b, &[h])?;
                    if k == 0 {
                        p
                    } else {
                        self.ids_op(Op::LogicalAnd, b, &[p, trilinear])?
                    }
                }
                (false, 0) => {
                    // Every lane writes the fine level: no guard.
                    self.feedback_or(fh.non_uniform, fp, texel, value)?;
                    continue;
                }
                (false, _) => trilinear,
            };
            self.split_if(participate, |me| me.feedback_or(fh.non_uniform, fp, texel, value))?;
        }
        Ok(())
    }

    /// `OpAtomicOr` of `value` (a `u64` id) into texel `texel` of the feedback map `map` (its
    /// variable or element pointer), device scope, relaxed.
    fn feedback_or(&mut self, non_uniform: bool, map: Word, texel: Word, value: Word) -> Result<()> {
        let u64t = self.cx.uint(64);
        let ptr_ty = self.cx.ptr(StorageClass::Image, u64t);
        let sample = self.cx.const_u32(0);
        let ptr = self.ids_op(Op::ImageTexelPointer, ptr_ty, &[map, texel, sample])?;
        if non_uniform {
            self.non_uniform(ptr);
        }
        let device = self.cx.const_u32(Scope::Device as u32);
        let relaxed = self.cx.const_u32(0);
        self.ids_op(Op::AtomicOr, u64t, &[ptr, device, relaxed, value]).map(|_| ())
    }

    /// The `ivec2` size of level `level` (a signed id) of the 2D texture `img`.
    fn texture_size(&mut self, img: Word, arrayed: bool, level: Word) -> Result<Word> {
        let i = self.cx.sint(32);
        let i2 = self.cx.vec(i, 2);
        if arrayed {
            let i3 = self.cx.vec(i, 3);
            let s = self.ids_op(Op::ImageQuerySizeLod, i3, &[img, level])?;
            self.ids_op(Op::VectorShuffle, i2, &[s, s, 0, 1])
        } else {
            self.ids_op(Op::ImageQuerySizeLod, i2, &[img, level])
        }
    }
}
