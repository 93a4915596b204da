//! NVIDIA NVAPI test inputs: compute shaders that write `NvShaderExtnStruct` records to
//! NVAPI's magic UAV as `nvHLSLExtns.h` does (an `IncrementCounter` opens a record at its
//! index, stores fill the operands and then the opcode, and one more `IncrementCounter` or a
//! load of `dst0u` reads the result), in the DXIL DXC makes of it for shader model 6.0
//! (`bufferUpdateCounter`, `bufferStore`, `bufferLoad` on a structured buffer of 256-byte
//! records), and what each lane must get. Used by `tests/vendor_nvapi.rs` and
//! `tests/gpu_nvapi.rs`.

use untangle::dxil::nvapi::field;
use untangle::NvapiSlot;

/// Where the shaders put the magic UAV: `u7, space3`.
pub const SLOT: NvapiSlot = NvapiSlot { register: 7, space: 3 };

/// A compute shader of one group of `threads` threads with `body` between the handles and
/// the stores: `%tid` is the thread id, `%x` the word `u[tid]` (`u`: `RWByteAddressBuffer`
/// `u0`), `%t` a second `RWByteAddressBuffer` (`u1`, atomic targets), `%nv` the magic UAV
/// (`RWStructuredBuffer<NvShaderExtnStruct>` at [`SLOT`]); `%w0..%w{n-1}` are stored to
/// word `threads (k + 1) + tid` of `u`, and the wave size to word 0 when `size` is set.
pub fn cs(body: &str, n: usize, threads: u32) -> String {
    module(body, n, threads, Stage::Compute, false)
}

/// The stage of [`texture_shader`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Stage {
    Compute,
    /// A pixel shader without inputs or outputs: `%tid` is 0.
    Pixel,
}

/// [`cs`] (or a pixel shader) with also the texture SRVs `%tex2d` (`Texture2D<float4>`
/// `t0`), `%tex3d` (`Texture3D<float4>` `t1`), `%texarr` (`Texture2DArray<float4>` `t2`)
/// and the sampler `%smp` (`s0`), all in space 0: what a footprint's record names by
/// register.
pub fn texture_shader(body: &str, n: usize, threads: u32, stage: Stage) -> String {
    module(body, n, threads, stage, true)
}

fn module(body: &str, n: usize, threads: u32, stage: Stage, textures: bool) -> String {
    let stores = crate::ags::word_stores(n, threads);
    let ps = stage == Stage::Pixel;
    let tid = if ps { "  %tid = add i32 0, 0\n" } else { "  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)\n" };
    let (tex_types, tex_handles, srvs, samplers) = if textures {
        (
            r#"%"class.Texture2D<vector<float, 4> >" = type { <4 x float>, %"class.Texture2D<vector<float, 4> >::mips_type" }
%"class.Texture2D<vector<float, 4> >::mips_type" = type { i32 }
%"class.Texture3D<vector<float, 4> >" = type { <4 x float>, %"class.Texture3D<vector<float, 4> >::mips_type" }
%"class.Texture3D<vector<float, 4> >::mips_type" = type { i32 }
%"class.Texture2DArray<vector<float, 4> >" = type { <4 x float>, %"class.Texture2DArray<vector<float, 4> >::mips_type" }
%"class.Texture2DArray<vector<float, 4> >::mips_type" = type { i32 }
%struct.SamplerState = type { i32 }
"#,
            "  %tex2d = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)\n  %tex3d = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 1, i32 1, i1 false)\n  %texarr = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 2, i32 2, i1 false)\n  %smp = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 3, i32 0, i32 0, i1 false)\n",
            "!20",
            "!24",
        )
    } else {
        ("", "", "null", "null")
    };
    let (model, props) = if ps { ("ps", "null") } else { ("cs", "!10") };
    let mut text = format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%dx.types.ResRet.i32 = type {{ i32, i32, i32, i32, i32 }}
%dx.types.ResRet.f32 = type {{ float, float, float, float, i32 }}
%struct.RWByteAddressBuffer = type {{ i32 }}
%struct.NvShaderExtnStruct = type {{ i32, i32, i32, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, i32, i32, [27 x float] }}
%"class.RWStructuredBuffer<NvShaderExtnStruct>" = type {{ %struct.NvShaderExtnStruct }}
{tex_types}define void @main() {{
entry:
  %u = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %t = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 1, i32 1, i1 false)
  %nv = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 2, i32 {reg}, i1 false)
{tex_handles}{tid}  %tid4 = shl i32 %tid, 2
  %in = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %u, i32 %tid4, i32 undef)
  %x = extractvalue %dx.types.ResRet.i32 %in, 0
{body}{stores}  ret void
}}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare i32 @dx.op.waveGetLaneCount(i32)
declare i32 @dx.op.bufferUpdateCounter(i32, %dx.types.Handle, i8)
declare %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32, %dx.types.Handle, i32, i32)
declare %dx.types.ResRet.f32 @dx.op.bufferLoad.f32(i32, %dx.types.Handle, i32, i32)
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)
!dx.version = !{{!0}}
!dx.valver = !{{!0}}
!dx.shaderModel = !{{!1}}
!dx.resources = !{{!2}}
!dx.entryPoints = !{{!9}}
!0 = !{{i32 1, i32 0}}
!1 = !{{!"{model}", i32 6, i32 0}}
!2 = !{{{srvs}, !3, null, {samplers}}}
!3 = !{{!4, !5, !6}}
!4 = !{{i32 0, %struct.RWByteAddressBuffer* undef, !"u", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}}
!5 = !{{i32 1, %struct.RWByteAddressBuffer* undef, !"t", i32 0, i32 1, i32 1, i32 11, i1 false, i1 false, i1 false, null}}
!6 = !{{i32 2, %"class.RWStructuredBuffer<NvShaderExtnStruct>"* undef, !"g_NvidiaExt", i32 {space}, i32 {reg}, i32 1, i32 12, i1 false, i1 true, i1 false, !7}}
!7 = !{{i32 1, i32 256}}
!9 = !{{void ()* @main, !"main", null, !2, {props}}}
!10 = !{{i32 4, !11}}
!11 = !{{i32 {threads}, i32 1, i32 1}}
"#,
        reg = SLOT.register,
        space = SLOT.space,
    );
    if textures {
        text += r#"!20 = !{!21, !22, !23}
!21 = !{i32 0, %"class.Texture2D<vector<float, 4> >"* undef, !"tex2d", i32 0, i32 0, i32 1, i32 2, i32 0, !25}
!22 = !{i32 1, %"class.Texture3D<vector<float, 4> >"* undef, !"tex3d", i32 0, i32 1, i32 1, i32 4, i32 0, !25}
!23 = !{i32 2, %"class.Texture2DArray<vector<float, 4> >"* undef, !"texarr", i32 0, i32 2, i32 1, i32 7, i32 0, !25}
!24 = !{!26}
!25 = !{i32 0, i32 9}
!26 = !{i32 0, %struct.SamplerState* undef, !"smp", i32 0, i32 0, i32 1, i32 0, null}
"#;
    }
    text
}

/// `%{out} = g_NvidiaExt.IncrementCounter()`.
pub fn counter(out: &str) -> String {
    format!("  %{out} = call i32 @dx.op.bufferUpdateCounter(i32 70, %dx.types.Handle %nv, i8 1)\n")
}

/// `g_NvidiaExt[%{index}]` dwords `dword..` = `values` (one store, mask of their count).
pub fn store(index: &str, dword: u32, values: &[&str]) -> String {
    let mut v: Vec<String> = values.iter().map(|s| format!("i32 {s}")).collect();
    let mask = (1u32 << v.len()) - 1;
    v.resize(4, "i32 undef".into());
    format!(
        "  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %nv, i32 %{index}, i32 {}, {}, i8 {mask})\n",
        dword * 4,
        v.join(", ")
    )
}

/// An intrinsic whose result comes back through `IncrementCounter` (`%{out}`): a record
/// at `%{out}_i` with `srcs` (dword, values) then the opcode.
pub fn op(out: &str, opcode: u32, srcs: &[(u32, &[&str])]) -> String {
    let i = format!("{out}_i");
    let mut s = counter(&i);
    for (d, v) in srcs {
        s += &store(&i, *d, v);
    }
    s += &store(&i, field::OPCODE, &[&opcode.to_string()]);
    s + &counter(out)
}

/// A shuffle (`NvShfl` 1, `NvShflUp` 2, `NvShflDown` 3, `NvShflXor` 4) of `val` with lane
/// operand `b` over segments of `width` lanes.
pub fn shuffle(out: &str, opcode: u32, val: &str, b: &str, width: u32) -> String {
    let clamp = ((32 - width) << 8) | if opcode == 2 { 0 } else { 0x1f };
    op(out, opcode, &[(field::SRC0U, &[val, b, &clamp.to_string()])])
}

/// An atomic on `%t` (`RWByteAddressBuffer u1`): the marking record, the store that names
/// `%t`, the record (`src0u.x` = `addr`, `src1u` = `value`, `src2u.x` = `sub`), and a load
/// of `dst0u` whose components 0 and 1 are `%{out}0`, `%{out}1`. With `mark` false the
/// marking record is left out (malformed).
pub fn atomic(out: &str, opcode: u32, addr: &str, value: &[&str], sub: u32, mark: bool) -> String {
    let target = mark.then_some(Target::ByteAddress);
    atomic_on(out, opcode, target, &[addr], value, sub)
}

/// The UAV an atomic's marking record names: `%t` (`RWByteAddressBuffer u1`), or `%img`,
/// the typed UAV of [`typed_uav_cs`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Target {
    ByteAddress,
    Typed(TypedUav),
}

/// [`atomic`] on `target` (`None`: no marking record), its address `src0u.x..` = `addr`
/// (a texture's coordinates, one word each, as `nvHLSLExtns.h`'s texture overloads pass them).
pub fn atomic_on(out: &str, opcode: u32, target: Option<Target>, addr: &[&str], value: &[&str], sub: u32) -> String {
    let (m, i) = (format!("{out}_m"), format!("{out}_i"));
    let mut s = String::new();
    if let Some(target) = target {
        s += &counter(&m);
        s += &store(&m, field::MARK_UAV_REF, &["1"]);
        s += &match target {
            Target::ByteAddress => format!(
                "  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %t, i32 %{m}, i32 undef, i32 0, i32 undef, i32 undef, i32 undef, i8 1)\n"
            ),
            Target::Typed(uav) => uav.marking_store(&m),
        };
    }
    s += &counter(&i);
    s += &store(&i, field::SRC0U, addr);
    s += &store(&i, field::SRC1U, value);
    s += &store(&i, field::SRC2U, &[&sub.to_string()]);
    s += &store(&i, field::OPCODE, &[&opcode.to_string()]);
    s += &format!(
        "  %{out}_r = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %nv, i32 %{i}, i32 {})\n  %{out}0 = extractvalue %dx.types.ResRet.i32 %{out}_r, 0\n  %{out}1 = extractvalue %dx.types.ResRet.i32 %{out}_r, 1\n",
        field::DST0U * 4
    );
    s
}

/// The shape of [`typed_uav_cs`]'s typed UAV.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum UavShape {
    Texture1D,
    Texture2D,
    Texture3D,
    Texture2DArray,
    Buffer,
}

/// A typed UAV (`%img`, `u4` in space 0) of shape `shape` whose elements are `uint2`
/// (`float` when `float`): `RWTexture2D<uint2>`, `RWBuffer<float>` and so on.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct TypedUav {
    pub shape: UavShape,
    pub float: bool,
}

impl TypedUav {
    /// The HLSL class, DXIL resource kind and coordinate count.
    fn class(self) -> (&'static str, u32, usize) {
        match self.shape {
            UavShape::Texture1D => ("RWTexture1D", 1, 1),
            UavShape::Texture2D => ("RWTexture2D", 2, 2),
            UavShape::Texture3D => ("RWTexture3D", 4, 3),
            UavShape::Texture2DArray => ("RWTexture2DArray", 7, 3),
            UavShape::Buffer => ("RWBuffer", 10, 1),
        }
    }

    /// The number of coordinates a texel takes.
    pub fn coords(self) -> usize {
        self.class().2
    }

    /// The LLVM class type's name, and its element type.
    fn type_name(self) -> (String, &'static str) {
        let (class, ..) = self.class();
        if self.float {
            (format!("%\"class.{class}<float>\""), "float")
        } else {
            (format!("%\"class.{class}<vector<unsigned int, 2> >\""), "<2 x i32>")
        }
    }

    /// The store that names `%img` at index `%{m}` (`__NvReferenceUAVForOp`: zero at the
    /// marking record's index in every coordinate).
    fn marking_store(self, m: &str) -> String {
        let (ty, suffix, mask) = if self.float { ("float", "f32", 1) } else { ("i32", "i32", 3) };
        let zero = if self.float { "0.000000e+00" } else { "0" };
        let vals = if self.float {
            format!("{ty} {zero}, {ty} undef, {ty} undef, {ty} undef")
        } else {
            format!("{ty} {zero}, {ty} {zero}, {ty} undef, {ty} undef")
        };
        let n = self.coords();
        if self.shape == UavShape::Buffer {
            return format!(
                "  call void @dx.op.bufferStore.{suffix}(i32 69, %dx.types.Handle %img, i32 %{m}, i32 undef, {vals}, i8 {mask})\n"
            );
        }
        let coords: Vec<String> =
            (0..3).map(|k| if k < n { format!("i32 %{m}") } else { "i32 undef".into() }).collect();
        format!(
            "  call void @dx.op.textureStore.{suffix}(i32 67, %dx.types.Handle %img, {}, {vals}, i8 {mask})\n",
            coords.join(", ")
        )
    }
}

/// [`cs`] with also the typed UAV `uav` as `%img` (`u4`, space 0): a texture atomic's target.
pub fn typed_uav_cs(body: &str, n: usize, threads: u32, uav: TypedUav) -> String {
    let text = cs(body, n, threads);
    let (ty, elem) = uav.type_name();
    let (_, kind, _) = uav.class();
    let ctype = if uav.float { 9 } else { 5 };
    let text = text.replacen("define void @main()", &format!("{ty} = type {{ {elem} }}\ndefine void @main()"), 1);
    let text = text.replacen(
        "  %nv = call",
        "  %img = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 3, i32 4, i1 false)\n  %nv = call",
        1,
    );
    let text = text.replacen("!3 = !{!4, !5, !6}", "!3 = !{!4, !5, !6, !30}", 1);
    text + &format!(
        "!30 = !{{i32 3, {ty}* undef, !\"img\", i32 0, i32 4, i32 1, i32 {kind}, i1 false, i1 false, i1 false, !31}}\n!31 = !{{i32 0, i32 {ctype}}}\n\
declare void @dx.op.textureStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i32, i8)\n\
declare void @dx.op.textureStore.f32(i32, %dx.types.Handle, i32, i32, i32, float, float, float, float, i8)\n\
declare void @dx.op.bufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8)\n"
    )
}

/// The wave intrinsics NVAPI lowers without device features, one result each (`w0..w9`),
/// and the wave size as `w10`: see [`wave_expected`].
pub fn wave_shader() -> (String, usize) {
    let mut b = String::from(
        "  %odd = and i32 %tid, 1\n  %is5 = icmp eq i32 %tid, 5\n  %p5 = zext i1 %is5 to i32\n  %lt100 = icmp ult i32 %tid, 100\n  %p100 = zext i1 %lt100 to i32\n",
    );
    b += &shuffle("w0", 1, "%tid", "5", 32);
    b += &shuffle("w1", 1, "%tid", "1", 8);
    b += &shuffle("w2", 2, "%tid", "1", 32);
    b += &shuffle("w3", 3, "%tid", "2", 8);
    b += &shuffle("w4", 4, "%tid", "3", 32);
    b += &op("w5", 6, &[(field::SRC0U, &["%p5"])]);
    b += &op("w6", 5, &[(field::SRC0U, &["%p100"])]);
    b += &op("w7", 7, &[(field::SRC0U, &["%odd"])]);
    b += &op("w8", 8, &[]);
    b += &op("w9", 19, &[(field::SRC0U, &["4"])]);
    b += "  %w10 = call i32 @dx.op.waveGetLaneCount(i32 112)\n";
    (b, 11)
}

/// What thread `tid` of [`wave_shader`] must store with `size` lanes a subgroup (NVIDIA:
/// 32; every lane active, subgroups of consecutive threads); `None` where the source lane
/// would be past the subgroup.
pub fn wave_expected(tid: u32, size: u32) -> Vec<Option<u32>> {
    let lane = tid % size;
    let base = tid - lane;
    let in_wave = |l: u32| (l < size).then_some(base + l);
    // Segments of 8: [min, min + 7].
    let min8 = lane & 24;
    let odd = (0..size.min(32)).filter(|l| l % 2 == 1).fold(0u32, |m, l| m | 1 << l);
    vec![
        in_wave(5),
        in_wave(min8 + 1),
        Some(if lane >= 1 { tid - 1 } else { tid }),
        if lane + 2 <= min8 + 7 { in_wave(lane + 2) } else { Some(tid) },
        in_wave(lane ^ 3),
        Some(if (base..base + size).contains(&5) { u32::MAX } else { 0 }),
        Some(u32::MAX),
        Some(odd),
        Some(lane),
        Some(if lane >= 32 { u32::MAX } else { (1u32 << lane) - 1 }),
        Some(size),
    ]
}

/// A texture footprint (`opcode`: `NV_EXTN_OP_FOOTPRINT` 28, `_BIAS` 29, `_LEVEL` 31,
/// `_GRAD` 32) as `__NvFootprint*` writes it: texture register `tex` and sampler register
/// `smp` (space 0), texture type `ty` (4 2D, 5 2D array, 6 3D), location `loc` and
/// `extra` (bias or level: one word; gradients: `ddx` then `ddy`, three words each) as
/// float bits, granularity `gran`, mode `mode` (0 fine, 1 coarse), texel offset `offset`;
/// the four result words are `%{out}0..%{out}3`.
#[allow(clippy::too_many_arguments)]
pub fn footprint(
    out: &str,
    opcode: u32,
    tex: &str,
    smp: &str,
    ty: u32,
    loc: [&str; 3],
    gran: &str,
    mode: &str,
    extra: &[&str],
    offset: [&str; 3],
) -> String {
    let i = format!("{out}_i");
    let ty = ty.to_string();
    let mut s = counter(&i);
    s += &store(&i, field::SRC0U, &[tex]);
    s += &store(&i, field::SRC0U + 1, &[smp]);
    s += &store(&i, field::SRC1U, &loc);
    s += &store(&i, field::SRC1U + 3, &[gran]);
    match extra.len() {
        0 => {}
        1 => s += &store(&i, field::SRC2U, extra),
        _ => {
            s += &store(&i, field::SRC2U, &extra[..3]);
            s += &store(&i, field::SRC5U, &extra[3..]);
        }
    }
    s += &store(&i, field::SRC3U, &["0"]);
    s += &store(&i, field::SRC3U + 1, &["0"]);
    s += &store(&i, field::SRC3U + 2, &[&ty]);
    s += &store(&i, field::SRC3U + 3, &[mode]);
    s += &store(&i, field::SRC4U, &offset);
    s += &store(&i, field::OPCODE, &[&opcode.to_string()]);
    s += &store(&i, field::NUM_OUTPUTS, &["4"]);
    for k in 0..4 {
        s += &counter(&format!("{out}{k}"));
    }
    s
}

/// `__NvGetSpecial(NV_SPECIALOP_FOOTPRINT_SINGLELOD_PRED)` into `%{out}`.
pub fn single_lod(out: &str) -> String {
    op(out, 19, &[(field::SRC0U, &["5"])])
}

/// An NVAPI ray-tracing query (`NV_EXTN_OP_RT_*` `opcode`) whose `results` words come back
/// as `%{out}0..`: the opcode, then for a ray-query form `src0u.x = %{rq}.RayFlags()` (the
/// `rayQuery_StateScalar` call `%{out}_f`), as `nvHLSLExtnsInternal.h`'s
/// `__NvRt*(rq.RayFlags())` writes them; a hit-shader form stores only the opcode.
pub fn rt_query(out: &str, opcode: u32, rq: Option<&str>, results: usize) -> String {
    let f = format!("{out}_f");
    let (prelude, src0u) = match rq {
        Some(rq) => (format!("  %{f} = call i32 @dx.op.rayQuery_StateScalar.i32(i32 195, i32 %{rq})\n"), Some(f)),
        None => (String::new(), None),
    };
    rt_record(out, opcode, &prelude, src0u.as_deref(), results)
}

/// The hit-object form `opcode` of a ray-tracing query (`NvHitObject::GetClusterID` and
/// the like) on the hit object whose handle is `%{handle}`: `rt_query`'s record with the
/// handle in `src0u.x`.
pub fn rt_hit_object_query(out: &str, opcode: u32, handle: &str, results: usize) -> String {
    rt_record(out, opcode, "", Some(handle), results)
}

/// A record at `%{out}_i`: `prelude`, the opcode, `src0u.x = %{src0u}`, then `results`
/// `IncrementCounter`s `%{out}0..`.
fn rt_record(out: &str, opcode: u32, prelude: &str, src0u: Option<&str>, results: usize) -> String {
    let i = format!("{out}_i");
    let mut s = counter(&i);
    s += &store(&i, field::OPCODE, &[&opcode.to_string()]);
    s += prelude;
    if let Some(v) = src0u {
        s += &store(&i, field::SRC0U, &[&format!("%{v}")]);
    }
    for k in 0..results {
        s += &counter(&format!("{out}{k}"));
    }
    s
}

/// [`cs`] with the ray query `%rq` (`RayQuery<0>`, never traced: the tests only translate).
pub fn ray_query_shader(body: &str, n: usize, threads: u32) -> String {
    let body = format!("  %rq = call i32 @dx.op.allocateRayQuery(i32 178, i32 0)\n{body}");
    cs(&body, n, threads)
        + "declare i32 @dx.op.allocateRayQuery(i32, i32)\ndeclare i32 @dx.op.rayQuery_StateScalar.i32(i32, i32)\n"
}

/// A shader model 6.5 library with one ray-tracing shader `Hit` of `kind` (DXIL shader
/// kind: 9 any hit, 10 closest hit, 11 miss) that runs `body` (with `%nv` the magic UAV at
/// [`SLOT`]) and stores `%w0..%w{n-1}` to words `0..n` of `u` (`RWByteAddressBuffer u0`).
pub fn hit_shader(body: &str, n: usize, kind: u32) -> String {
    let stores: String = (0..n)
        .map(|k| {
            format!(
                "  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %u, i32 {}, i32 undef, i32 %w{k}, i32 undef, i32 undef, i32 undef, i8 1)\n",
                4 * k
            )
        })
        .collect();
    let (params, sig, props) = if kind == 11 {
        (
            "%struct.Payload* noalias nocapture %p",
            "void (%struct.Payload*)*",
            "!{i32 8, i32 11, i32 6, i32 16, i32 5, !8}",
        )
    } else {
        (
            "%struct.Payload* noalias nocapture %p, %struct.Attribs* nocapture readonly %a",
            "void (%struct.Payload*, %struct.Attribs*)*",
            if kind == 9 {
                "!{i32 8, i32 9, i32 6, i32 16, i32 7, i32 8, i32 5, !8}"
            } else {
                "!{i32 8, i32 10, i32 6, i32 16, i32 7, i32 8, i32 5, !8}"
            },
        )
    };
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type {{ i8* }}
%struct.RWByteAddressBuffer = type {{ i32 }}
%struct.NvShaderExtnStruct = type {{ i32, i32, i32, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, <4 x i32>, i32, i32, [27 x float] }}
%"class.RWStructuredBuffer<NvShaderExtnStruct>" = type {{ %struct.NvShaderExtnStruct }}
%struct.Payload = type {{ <4 x float> }}
%struct.Attribs = type {{ <2 x float> }}
@"\01?u@@3URWByteAddressBuffer@@A" = external constant %struct.RWByteAddressBuffer, align 4
@"\01?g_NvidiaExt@@3V?$RWStructuredBuffer@UNvShaderExtnStruct@@@@A" = external constant %"class.RWStructuredBuffer<NvShaderExtnStruct>", align 4
define void @"\01?Hit@@YAXXZ"({params}) #0 {{
  %ul = load %struct.RWByteAddressBuffer, %struct.RWByteAddressBuffer* @"\01?u@@3URWByteAddressBuffer@@A", align 4
  %u = call %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32 160, %struct.RWByteAddressBuffer %ul)
  %nvl = load %"class.RWStructuredBuffer<NvShaderExtnStruct>", %"class.RWStructuredBuffer<NvShaderExtnStruct>"* @"\01?g_NvidiaExt@@3V?$RWStructuredBuffer@UNvShaderExtnStruct@@@@A", align 4
  %nv = call %dx.types.Handle @"dx.op.createHandleForLib.class.RWStructuredBuffer<NvShaderExtnStruct>"(i32 160, %"class.RWStructuredBuffer<NvShaderExtnStruct>" %nvl)
{body}{stores}  ret void
}}
declare %dx.types.Handle @dx.op.createHandleForLib.struct.RWByteAddressBuffer(i32, %struct.RWByteAddressBuffer) #1
declare %dx.types.Handle @"dx.op.createHandleForLib.class.RWStructuredBuffer<NvShaderExtnStruct>"(i32, %"class.RWStructuredBuffer<NvShaderExtnStruct>") #1
declare i32 @dx.op.bufferUpdateCounter(i32, %dx.types.Handle, i8) #0
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8) #0
attributes #0 = {{ nounwind }}
attributes #1 = {{ nounwind readonly }}
!dx.version = !{{!1}}
!dx.valver = !{{!1}}
!dx.shaderModel = !{{!2}}
!dx.resources = !{{!3}}
!dx.entryPoints = !{{!10, !12}}
!1 = !{{i32 1, i32 5}}
!2 = !{{!"lib", i32 6, i32 5}}
!3 = !{{null, !4, null, null}}
!4 = !{{!5, !6}}
!5 = !{{i32 0, %struct.RWByteAddressBuffer* @"\01?u@@3URWByteAddressBuffer@@A", !"u", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}}
!6 = !{{i32 1, %"class.RWStructuredBuffer<NvShaderExtnStruct>"* @"\01?g_NvidiaExt@@3V?$RWStructuredBuffer@UNvShaderExtnStruct@@@@A", !"g_NvidiaExt", i32 {space}, i32 {reg}, i32 1, i32 12, i1 false, i1 true, i1 false, !7}}
!7 = !{{i32 1, i32 256}}
!8 = !{{i32 0}}
!10 = !{{null, !"", null, !3, !11}}
!11 = !{{i32 0, i64 65536}}
!12 = !{{{sig} @"\01?Hit@@YAXXZ", !"\01?Hit@@YAXXZ", null, null, !13}}
!13 = {props}
"#,
        reg = SLOT.register,
        space = SLOT.space,
    )
}
