//! `SampleLevel` with point filtering and clamp addressing (the only sampler the
//! differential harness binds), from one mip level; `TextureGather`/`TextureGatherRaw`
//! (the 2×2 bilinear footprint, whatever the filter).
//!
//! Point sampling picks texel `floor(u · width)` clamped to the edge (D3D11.3 §7.18.7,
//! "Point sample addressing"); the array layer is `round(c)` clamped. Hardware converts
//! coordinates to fixed point with at least 8 fractional bits (§7.18.16.1), so a
//! coordinate within 2^-8 texel of a texel boundary may land on either side, and one that
//! does not fit 16 integer bits may land anywhere: such samples are [`Acc::ANY`]. A
//! coordinate exactly on a boundary is sure: it converts to fixed point exactly (the
//! harness's textures are powers of two wide, so `u · width` is exact in f32).

use super::exec::{indeterminate, scalar, Ctx, Thread, R};
use super::float::{self, Fk};
use super::resources::{ResKind, TexDim, COMPARE_LESS_EQUAL};
use super::value::{Acc, Scalar, Val};
use untangle::ir::Value;

/// The 2×2 footprint of a gather along one axis: the lower texel `floor(u·size - 0.5)`
/// and the upper one, each clamped to the edge (D3D11.3 §7.18.7 bilinear addressing,
/// clamp mode), and whether the lower one is sure (the same margin as point sampling).
fn footprint(u: f64, size: u32, offset: i64) -> ([u64; 2], bool) {
    let x = u * size as f64 - 0.5 + offset as f64;
    let fl = x.floor();
    let frac = x - fl;
    let sure = frac == 0.0 || frac.is_finite() && frac > 1.0 / 256.0 && frac < 1.0 - 1.0 / 256.0;
    let far = x.abs() >= FIXED_POINT_RANGE;
    // Both texels clamp to the same edge well beyond it: certain again.
    let beyond = x < -1.0 - 1.0 / 256.0 || x > size as f64 + 1.0 / 256.0;
    let lo = if fl.is_nan() { 0.0 } else { fl };
    let clamp = |v: f64| v.clamp(0.0, (size.max(1) - 1) as f64) as u64;
    ([clamp(lo), clamp(lo + 1.0)], !far && (sure || beyond) && !u.is_nan())
}

/// `TextureGather(handle, sampler, c0, c1, c2, c3, o0, o1, channel)` and
/// `TextureGatherRaw(handle, sampler, c0, c1, c2, c3, o0, o1)` (`channel` `None`: the raw
/// texel, channel 0 of the 32-bit formats the harness binds). Result order is D3D's
/// `gather4`: (x0, y1), (x1, y1), (x1, y0), (x0, y0) of the footprint, the same as
/// Vulkan's `OpImageGather` (SPIR-V spec, "OpImageGather": (i0, j1), (i1, j1), (i1, j0),
/// (i0, j0)).
pub fn gather(ctx: &mut Ctx, t: &mut Thread, a: &[Value], raw: bool) -> R<Val> {
    let p = ctx.p;
    let Val::Handle(h) = super::exec::operand(p, t, a[0])? else { return indeterminate("undefined texture handle") };
    let Some(r) = ctx.res.find(h) else { return indeterminate(format!("unbound texture {h:?}")) };
    let channel = if raw {
        0
    } else {
        let c = scalar(p, t, a[8])?;
        if !c.acc.is_exact() {
            return indeterminate("a gather channel D3D leaves undefined");
        }
        (c.bits & 3) as usize
    };
    let coords: Vec<Scalar> = (2..5).map(|k| scalar(p, t, a[k])).collect::<R<_>>()?;
    let mut offsets = [0i64; 2];
    for (k, &o) in a[6..8].iter().enumerate() {
        if let Value::Const(c) = o {
            if matches!(p.module.constants.get(c).kind, untangle::ir::ConstKind::Undef) {
                continue;
            }
        }
        let o = scalar(p, t, o)?;
        if !o.acc.is_exact() {
            return indeterminate("a texel offset D3D leaves undefined");
        }
        // Gather offsets: 6 bits, [-32, 31] (SM 5 `gather4_po`); immediate ones [-8, 7].
        offsets[k] = super::value::sext(o.bits & 0x3f, 6);
    }
    let res = &ctx.res.list[r];
    let ResKind::Texture { dim, extent, .. } = res.kind.clone() else {
        return indeterminate("a gather from a resource that is not a texture");
    };
    let used = match dim {
        TexDim::D2 => 2,
        TexDim::D2Array => 3,
        _ => return indeterminate("a gather from a texture that is not 2D"),
    };
    if coords.iter().take(used).any(|c| !c.acc.is_exact()) {
        return Ok(Val::agg(vec![Val::undefined(); 5]));
    }
    let f = |c: Scalar| float::to_f64(c.bits, Fk::F);
    let (xs, sx) = footprint(f(coords[0]), extent[0], offsets[0]);
    let (ys, sy) = footprint(f(coords[1]), extent[1], offsets[1]);
    let layer = if dim == TexDim::D2Array {
        f(coords[2]).round_ties_even().clamp(0.0, (extent[2].max(1) - 1) as f64) as u64
    } else {
        0
    };
    let sure = sx && sy;
    let order = [(xs[0], ys[1]), (xs[1], ys[1]), (xs[1], ys[0]), (xs[0], ys[0])];
    let mut v: Vec<Val> = order
        .iter()
        .map(|&(x, y)| {
            let c = res.load_typed([x, y, layer]).comps[channel];
            Val::S(if sure { c } else { Scalar { acc: Acc::ANY, ..c } })
        })
        .collect();
    v.push(Val::undefined());
    Ok(Val::agg(v))
}

/// Texel-space coordinates at or beyond this magnitude are open: D3D's texture addressing
/// works on fixed-point coordinates (§7.18.16.1) and says nothing of values that do not fit.
const FIXED_POINT_RANGE: f64 = 65536.0;

/// Texel index along one axis and whether it is far enough from a boundary to be sure.
fn axis(u: f64, size: u32, offset: i64) -> (u64, bool) {
    // The offset moves the sample by whole texels before addressing (clamp).
    let x = u * size as f64 + offset as f64;
    let fl = x.floor();
    let frac = x - fl;
    let sure = frac == 0.0 || frac.is_finite() && frac > 1.0 / 256.0 && frac < 1.0 - 1.0 / 256.0;
    let i = if fl.is_nan() { 0.0 } else { fl.clamp(0.0, (size - 1) as f64) };
    // Beyond the edges clamping makes the choice certain again, as long as the coordinate
    // fits the fixed-point range hardware converts to (16 integer bits; lavapipe turns a
    // larger one into the wrong edge).
    let far = x.abs() >= FIXED_POINT_RANGE;
    let sure = !far && (sure || x < -1.0 / 256.0 && size > 0 || x > size as f64 + 1.0 / 256.0);
    (i as u64, sure && !u.is_nan())
}

/// The texel a point sample at `a[2..5]` (offsets `a[6..9]`) picks and whether the
/// choice is sure; `None` when the coordinates are undefined.
fn point_sample(ctx: &mut Ctx, t: &mut Thread, a: &[Value]) -> R<Option<(Vec<Scalar>, bool)>> {
    let p = ctx.p;
    let Val::Handle(h) = super::exec::operand(p, t, a[0])? else { return indeterminate("undefined texture handle") };
    let Some(r) = ctx.res.find(h) else { return indeterminate(format!("unbound texture {h:?}")) };
    let coords: Vec<Scalar> = (2..5).map(|k| scalar(p, t, a[k])).collect::<R<_>>()?;
    let mut offsets = [0i64; 3];
    for (k, &o) in a[6..9].iter().enumerate() {
        // Offsets a texture's shape does not use are `undef`: 0.
        if let Value::Const(c) = o {
            if matches!(p.module.constants.get(c).kind, untangle::ir::ConstKind::Undef) {
                continue;
            }
        }
        let o = scalar(p, t, o)?;
        if !o.acc.is_exact() {
            return indeterminate("a texel offset D3D leaves undefined");
        }
        // The 4 least significant bits, as a signed value in [-8, 7] (SM 6.7
        // "Programmable Offsets"; immediate offsets have the same range).
        offsets[k] = super::value::sext(o.bits & 0xf, 4);
    }
    if coords.iter().take(2).any(|c| !c.acc.is_exact()) {
        return Ok(None);
    }
    let res = &ctx.res.list[r];
    let ResKind::Texture { dim, extent, .. } = res.kind.clone() else {
        return indeterminate("SampleLevel of a resource that is not a texture");
    };
    let f = |c: Scalar| float::to_f64(c.bits, Fk::F);
    let (x, sx) = axis(f(coords[0]), extent[0], offsets[0]);
    let (mut cs, mut sure) = ([x, 0, 0], sx);
    match dim {
        TexDim::D2 | TexDim::D2Array | TexDim::D3 => {
            let (y, sy) = axis(f(coords[1]), extent[1], offsets[1]);
            cs[1] = y;
            sure &= sy;
        }
        _ => {}
    }
    let layer = |c: Scalar, n: u32| -> u64 { f(c).round_ties_even().clamp(0.0, (n.max(1) - 1) as f64) as u64 };
    match dim {
        TexDim::D1Array => cs[1] = layer(coords[1], extent[1].max(extent[2])),
        TexDim::D2Array => cs[2] = layer(coords[2], extent[2]),
        TexDim::D3 => {
            let (z, sz) = axis(f(coords[2]), extent[2], offsets[2]);
            cs[2] = z;
            sure &= sz;
        }
        _ => {}
    }
    Ok(Some((res.load_typed(cs).comps, sure)))
}

pub fn sample_level(ctx: &mut Ctx, t: &mut Thread, a: &[Value]) -> R<Val> {
    let Some((comps, sure)) = point_sample(ctx, t, a)? else { return Ok(Val::agg(vec![Val::undefined(); 5])) };
    let mut v: Vec<Val> =
        comps.into_iter().map(|c| Val::S(if sure { c } else { Scalar { acc: Acc::ANY, ..c } })).collect();
    v.push(Val::undefined());
    Ok(Val::agg(v))
}

/// `Sample(srv, sampler, c0..c3, o0..o2, clamp)`: the LOD comes from the quad's
/// derivatives, but the harness's textures have one mip level and its sampler filters by
/// point for minification and magnification alike, so every LOD (and LOD clamp) samples
/// level 0 as `SampleLevel` does (D3D11.3 §7.18.10: the LOD picks the filter and the
/// mip level, nothing else).
pub fn sample_implicit(ctx: &mut Ctx, t: &mut Thread, a: &[Value]) -> R<Val> {
    sample_level(ctx, t, a)
}

/// `CalculateLOD(srv, sampler, c0, c1, c2, clamped)`. Clamped: the LOD clamped to the
/// view's mip range, which for the harness's one-level textures is 0.0 whatever the
/// derivatives (when the coordinates are numbers). Unclamped: `log2` of the scaled
/// derivatives, which D3D lets hardware approximate: open.
pub fn calculate_lod(ctx: &mut Ctx, t: &mut Thread, a: &[Value]) -> R<Val> {
    let p = ctx.p;
    let clamped = super::exec::exact(p, t, a[5], "CalculateLOD's clamp flag")? & 1 == 1;
    let coords: Vec<Scalar> = (2..5).map(|k| scalar(p, t, a[k])).collect::<R<_>>()?;
    let numbers = coords.iter().take(2).all(|c| c.acc.is_exact() && float::to_f64(c.bits, Fk::F).is_finite());
    let bits = 0.0f32.to_bits() as u64;
    Ok(Val::S(Scalar { bits, acc: if clamped && numbers { Acc::EXACT } else { Acc::ANY } }))
}

/// `SampleCmpLevelZero(srv, sampler, c0..c3, o0..o2, reference)` and `SampleCmpLevel`
/// (the same and a level, which one mip level makes moot): the point-sampled texel
/// compared with the reference by the sampler's operation (the harness's:
/// [`COMPARE_LESS_EQUAL`], reference first), 1.0 when it passes, else 0.0 (D3D11.3
/// §7.18.12; Vulkan "Depth Compare Operation"). NaN and denormal operands are open.
pub fn sample_cmp(ctx: &mut Ctx, t: &mut Thread, a: &[Value]) -> R<Val> {
    let p = ctx.p;
    let Val::Handle(sh) = super::exec::operand(p, t, a[1])? else { return indeterminate("undefined sampler handle") };
    match ctx.res.find(sh).map(|i| &ctx.res.list[i].kind) {
        Some(ResKind::Sampler { compare: true, .. }) => {}
        _ => return indeterminate("SampleCmp without a comparison sampler"),
    }
    let reference = scalar(p, t, a[9])?;
    let Some((comps, sure)) = point_sample(ctx, t, a)? else { return Ok(Val::agg(vec![Val::undefined(); 5])) };
    let texel = comps[0];
    let (r, x) = (float::to_f64(reference.bits, Fk::F), float::to_f64(texel.bits, Fk::F));
    let open = !sure
        || !reference.acc.is_exact()
        || !texel.acc.is_exact()
        || r.is_nan()
        || x.is_nan()
        || float::is_denorm(reference.bits, Fk::F)
        || float::is_denorm(texel.bits, Fk::F);
    let pass = if COMPARE_LESS_EQUAL { r <= x } else { r < x };
    let bits = (if pass { 1.0f32 } else { 0.0 }).to_bits() as u64;
    let v = Scalar { bits, acc: if open { Acc::ANY } else { Acc::EXACT } };
    Ok(Val::agg(vec![Val::S(v), Val::undefined(), Val::undefined(), Val::undefined(), Val::undefined()]))
}
