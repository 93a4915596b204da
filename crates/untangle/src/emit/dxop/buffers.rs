//! Buffers: constant buffers (`cbufferLoadLegacy`, `cbufferLoad`), raw and structured
//! buffers (`bufferLoad`/`bufferStore` and `rawBufferLoad`/`rawBufferStore` with 16-, 32- and
//! 64-bit overloads), typed buffers (`bufferLoad`/`bufferStore` through texel buffers),
//! atomics on buffers and images, UAV counters and `checkAccessFullyMapped`.
//!
//! Raw and structured buffers are arrays of 32-bit words: byte address = index (raw) or
//! index × stride + offset (structured), an address that would wrap 32 bits saturating
//! past the end (out of bounds, as in D3D); a 64-bit component is two words, low first.
//! Word accesses of a structured buffer whose stride is a multiple of 4 compute the word
//! address directly, the index clamped instead of the sum checked for a wrap (same words in
//! bounds, still past the end out of them: `structured_word`). A
//! 16-bit component is one element of the buffer's 16-bit view (`{ uint16_t data[]; }` at
//! the same binding, `Resources::halves16`): a view of 16-bit elements may start at any
//! 2-aligned address (stride 2, odd `FirstElement`), where 32-bit words would straddle the
//! view's start, and each 16-bit store is a plain store of its own element. Only root
//! descriptors (4-aligned by D3D's rules) keep 16-bit components as halves of words. Only
//! the components the mask names (loads: that the program extracts) are accessed, so no
//! element outside the accessed one is touched.
//!
//! Vector views (`Resources::word_vectors`, `{ uvec2 data[]; }` / `{ uvec4 data[]; }` at the
//! same binding): 32- and 64-bit components of a structured buffer whose stride is a
//! multiple of 16 at a constant offset go through `uvec4`s (a quad lies wholly inside the
//! view or wholly outside); those of a raw buffer go through `uvec4`s or `uvec2`s when they
//! are components `0..n` filling whole vectors and the byte address is known from the IR
//! (constants, shifts and products by constants, sums of aligned parts) to be a multiple of
//! the vector's size: one `OpLoad`/`OpStore` per vector instead of one per word. 16-bit
//! components `0..n` (n = 2 or 4) of a raw buffer at an address known to be a multiple of
//! `2n` go through a `u16vec2` or `u16vec4` view the same way (one access instead of `n`
//! 16-bit ones; sub-dword scalar accesses are slow on some GPUs). Bounds: see
//! `raw_vectors`. Views with an offset table keep words (and halves).
//!
//! Residency: a typed buffer load whose status the program reads is an `OpImageSparseFetch`
//! (SRV) or `OpImageSparseRead` (UAV) of the texel buffer, the status its residency code;
//! `checkAccessFullyMapped(status)` is `OpImageSparseTexelsResident(status)` (capability
//! `SparseResidency`), true on resources that are not tiled. Storage buffers (raw and
//! structured loads) have no residency query in Vulkan: their status is 0, and
//! `checkAccessFullyMapped` of a status taken straight from such a load (`extractvalue` of
//! field 4) is `true`, D3D's answer for resources that are not tiled; a tiled raw or
//! structured buffer cannot report an unmapped tile (dxil-spirv refuses such a shader
//! instead). A status reaching the check some other way (a phi, a select) is tested as a
//! residency code.
//!
//! A view whose range comes from the layer's offset table (`placement::OffsetTable`) reads
//! it once per operation; every word (raw, structured) or texel (typed) the operation
//! touches is then `i < count ? i + offset : past the end`, atomics included, so robust
//! buffer access reads 0 and drops writes outside the view as D3D does.

use crate::dxil::DxOp;
use crate::emit::error::{malformed, Error, Result, Subject};
use crate::emit::{ArgAt, ArrayLen, Call, FnEmit, Handle, Indexing, Num, ResShape, ResVar, Resources, TexelKind};
use crate::ir::{InstKind, TypeId, Value};
use crate::rewrite::cbuffer_array::CbufferArray;
use crate::rootsig::layout::ArgStore;
use rspirv::spirv::{Capability, Op, Scope, StorageClass, Word};

const FAMILY: &str = "buffers";

/// `DXIL::AtomicBinOpCode`.
fn atomic_opcode(n: u64) -> Result<Op> {
    Ok(match n {
        0 => Op::AtomicIAdd,
        1 => Op::AtomicAnd,
        2 => Op::AtomicOr,
        3 => Op::AtomicXor,
        4 => Op::AtomicSMin,
        5 => Op::AtomicSMax,
        6 => Op::AtomicUMin,
        7 => Op::AtomicUMax,
        8 => Op::AtomicExchange,
        n => return Err(malformed(Subject::Op(DxOp::AtomicBinOp), format!("atomic operation {n}"))),
    })
}

/// The largest byte address a raw or structured access computes (see `byte_address`):
/// 64 KiB below 2^32, so that the components after it (at most 32 bytes) do not wrap, and
/// neither does the byte offset a driver computes from an element index in 32 bits (a word
/// index of 2^30 is offset 0 to lavapipe: `raw_vector_views`'
/// `unclamped_raw_addresses_near_2_32_read_zero`).
pub(crate) const FAR_ADDRESS: u32 = 0xffff_0000;

/// The word a raw or structured access outside its offset table's range goes to: past the
/// end of any storage buffer.
const PAST_WORD: u32 = FAR_ADDRESS / 4;

/// The 16-bit element a raw or structured access through a 16-bit view outside its offset
/// table's range goes to.
const PAST_HALF: u32 = FAR_ADDRESS / 2;

/// The texel a typed buffer access outside its offset table's range goes to.
const PAST_TEXEL: u32 = u32::MAX;

/// Where the components of a raw-buffer store come from.
#[derive(Clone, Copy)]
enum Lanes {
    /// Operands `k..k + 4` of the call (`rawBufferStore`).
    Args(usize),
    /// Lanes `first..first + 4` of a vector value (`rawBufferVectorStore`): its id, lane type
    /// and `first`.
    Vector(Word, Word, u32),
}

/// The quad a structured access through the `uvec4` view goes to when its address would
/// pass 32 bits.
const PAST_QUAD: u32 = FAR_ADDRESS / 16;

/// Where a raw or structured buffer access goes through a `uvecN` or `u16vecN` view of its
/// buffer (`Resources::word_vectors`, `N = width`, elements of `bits` bits, 32 or 16):
/// element `w` of the access is component `(first + w) % N` of vector
/// `base + (first + w) / N`. A component of 64 bits is two 32-bit elements (low first), of
/// 32 or 16 bits one element of its own size.
struct Vectors {
    view: ResVar,
    base: Word,
    first: u32,
    width: u32,
    bits: u32,
}

/// How an access maps onto a vector view, decided from the IR before anything is written
/// ([`FnEmit::vector_access`] then writes the base).
#[derive(Clone, Copy)]
enum VectorPlan {
    /// Structured: quad `index × m + n` of the `uvec4` view, from component `first`; `spread`:
    /// the last quad the access reaches, after quad `index × m`.
    Quads { m: u32, n: u32, first: u32, spread: u32 },
    /// Raw: vector `address >> shift` of the `uvecN` (`u16vecN`) view, `N = width`.
    Raw { elem_bits: u32, width: u32, shift: u32 },
}

impl Vectors {
    /// The vector (after `base`) and component of word `w` of the access.
    fn place(&self, w: u32) -> (u32, u32) {
        ((self.first + w) / self.width, (self.first + w) % self.width)
    }
}

/// At most this many vectors (after `base`) are touched by one access: 8 words (four 64-bit
/// components) in `uvec2`s, or from component 3 of a quad in `uvec4`s.
const MAX_VECTORS: usize = 4;

impl<'a, 'm> FnEmit<'a, 'm> {
    pub(super) fn buffer_op(&mut self, c: &Call<'_>) -> Result<Option<Word>> {
        match c.op {
            DxOp::CBufferLoadLegacy => self.cbuffer_legacy(c).map(Some),
            DxOp::CBufferLoad => self.cbuffer_load(c).map(Some),
            DxOp::BufferLoad | DxOp::RawBufferLoad => self.buffer_load(c).map(Some),
            DxOp::BufferStore | DxOp::RawBufferStore => self.buffer_store(c).map(|_| None),
            DxOp::RawBufferVectorLoad => self.buffer_vector_load(c).map(Some),
            DxOp::RawBufferVectorStore => self.buffer_vector_store(c).map(|_| None),
            DxOp::AtomicBinOp | DxOp::AtomicCompareExchange => self.atomic(c).map(Some),
            DxOp::CheckAccessFullyMapped => self.check_access_fully_mapped(c).map(Some),
            DxOp::BufferUpdateCounter => self.update_counter(c).map(Some),
            other => Err(self.not_in_family(other, FAMILY)),
        }
    }

    /// `checkAccessFullyMapped(status)`: whether the access that gave the residency code
    /// `status` touched only resident memory.
    fn check_access_fully_mapped(&mut self, c: &Call<'_>) -> Result<Word> {
        let t = self.cx.ty(c.ty)?;
        if self.storage_buffer_status(self.arg(c, 0)?)? {
            return Ok(self.cx.b.constant_true(t));
        }
        let code = self.arg_val(c, 0)?;
        self.cx.capability(Capability::SparseResidency);
        self.ids_op(Op::ImageSparseTexelsResident, t, &[code])
    }

    /// Whether `v` is the status (field 4) of a raw or structured buffer load, which has no
    /// residency code.
    fn storage_buffer_status(&mut self, v: Value) -> Result<bool> {
        let Value::Inst(x) = v else { return Ok(false) };
        let InstKind::ExtractValue { aggregate: Value::Inst(load), indices } = &self.f.insts[x].kind else {
            return Ok(false);
        };
        if indices.as_slice() != [4] {
            return Ok(false);
        }
        let Ok(Some(call)) = crate::dxil::decode_call(self.cx.m, self.f, *load, "") else { return Ok(false) };
        if !matches!(call.op, DxOp::BufferLoad | DxOp::RawBufferLoad) {
            return Ok(false);
        }
        let Some(&handle) = call.args.first() else { return Ok(false) };
        let h = self.handle(handle)?;
        Ok(matches!(self.res_var(h)?.shape, ResShape::Words { .. }))
    }

    /// Rows (16 bytes each) of the constant buffer behind `h`: its declared size, or the
    /// largest D3D allows for heap descriptors.
    fn cbuffer_rows(&self, h: Handle) -> u32 {
        match h.heap {
            Some(_) => 4096,
            None => {
                self.res.resource(h.class, h.id).ok().and_then(|r| r.cbuffer_size).unwrap_or(16).div_ceil(16).max(1)
            }
        }
    }

    /// The handle of argument `k`, which must be a constant buffer.
    fn cbuffer_handle(&mut self, c: &Call<'_>, k: usize) -> Result<Handle> {
        let h = self.handle(self.arg(c, k)?)?;
        let rv = self.res_var(h)?;
        if rv.shape != ResShape::CBuffer {
            return Err(self.invalid(c, &format!("operand {k}"), "not a constant buffer"));
        }
        Ok(h)
    }

    /// Row `row` of a constant buffer as a `uvec4` (0 for a constant row past the end, as
    /// D3D reads out-of-bounds constants; a dynamic one is left to robust buffer access).
    fn cbuffer_row(&mut self, h: Handle, row: Word) -> Result<Word> {
        let u = self.cx.u32_t();
        let v4 = self.cx.vec(u, 4);
        let rv = self.res_var(h)?;
        if let Indexing::RootWords { at: arg, n } = rv.indexing {
            let mut words = Vec::new();
            match self.cx.const_value_u32(row) {
                Some(r) => {
                    for k in 0..4 {
                        let at = self.cx.const_u32(r.saturating_mul(4).saturating_add(k));
                        words.push(self.root_constant(arg, n, at)?);
                    }
                }
                None => {
                    let four = self.cx.const_u32(4);
                    let first = self.ids_op(Op::IMul, u, &[row, four])?;
                    for k in 0..4 {
                        let at = self.add_const(first, k)?;
                        words.push(self.root_constant(arg, n, at)?);
                    }
                }
            }
            return self.ids_op(Op::CompositeConstruct, v4, &words);
        }
        if self.cx.const_value_u32(row).is_some_and(|r| r >= self.cbuffer_rows(h)) {
            return Ok(self.cx.null(v4));
        }
        let (rv, p) = self.res_ptr(h)?;
        let pty = self.cx.ptr(rv.storage, v4);
        let zero = self.cx.const_u32(0);
        let ptr = self.ids_op(Op::AccessChain, pty, &[p, zero, row])?;
        self.load_from(v4, ptr, rv.storage, 16)
    }

    /// Word `word` (byte offset / 4) of a constant buffer, bounds as [`Self::cbuffer_row`].
    fn cbuffer_word(&mut self, h: Handle, word: Word) -> Result<Word> {
        let u = self.cx.u32_t();
        let rv = self.res_var(h)?;
        if let Indexing::RootWords { at: arg, n } = rv.indexing {
            return self.root_constant(arg, n, word);
        }
        if self.cx.const_value_u32(word).is_some_and(|w| w / 4 >= self.cbuffer_rows(h)) {
            return Ok(self.cx.const_u32(0));
        }
        let (two, three, zero) = (self.cx.const_u32(2), self.cx.const_u32(3), self.cx.const_u32(0));
        let (rv, p) = self.res_ptr(h)?;
        let row = self.ids_op(Op::ShiftRightLogical, u, &[word, two])?;
        let comp = self.ids_op(Op::BitwiseAnd, u, &[word, three])?;
        self.cbuffer_chain_load(&rv, [p, zero, row, comp])
    }

    /// Component `comp` of row `row` of constant buffer `h` (a descriptor, not root
    /// constants), both in bounds.
    fn cbuffer_component(&mut self, h: Handle, row: Word, comp: Word) -> Result<Word> {
        let zero = self.cx.const_u32(0);
        let (rv, p) = self.res_ptr(h)?;
        self.cbuffer_chain_load(&rv, [p, zero, row, comp])
    }

    /// The word at access chain `chain` (the block pointer, 0, row, component) of `rv`.
    fn cbuffer_chain_load(&mut self, rv: &ResVar, chain: [Word; 4]) -> Result<Word> {
        let u = self.cx.u32_t();
        let pty = self.cx.ptr(rv.storage, u);
        let ptr = self.ids_op(Op::AccessChain, pty, &chain)?;
        self.load_from(u, ptr, rv.storage, 4)
    }

    /// Element `index` of a local array copied from constant-buffer words
    /// (`crate::rewrite::cbuffer_array`), read from the constant buffer: word
    /// `base + min(index, len - 1)·stride`. The clamp keeps an out-of-range index (undefined
    /// in D3D) on the words the array was copied from, inside the buffer. An array within one
    /// row names the row as a constant and indexes the component; a stride of whole rows
    /// indexes the row and names the component as a constant.
    pub(crate) fn cbuffer_array_load(&mut self, a: &CbufferArray, index: Value, ty: TypeId) -> Result<Word> {
        let h = self.handle(a.handle)?;
        let u = self.cx.u32_t();
        let i = self.value(index)?;
        let last = a.len.saturating_sub(1);
        let i = match self.cx.const_value_u32(i) {
            Some(k) => self.cx.const_u32(k.min(last)),
            None => {
                let last = self.cx.const_u32(last);
                self.glsl(u, 38, &[i, last])? // UMin
            }
        };
        let rv = self.res_var(h)?;
        let root = matches!(rv.indexing, Indexing::RootWords { .. });
        // The array's words are in range (the analysis checked them against the size).
        let one_row = u64::from(a.base % 4) + u64::from(a.stride) * u64::from(last) < 4;
        let word = if one_row && !root {
            let step = self.mul_const(i, a.stride)?;
            let comp = self.add_const(step, a.base % 4)?;
            let row = self.cx.const_u32(a.base / 4);
            self.cbuffer_component(h, row, comp)?
        } else if a.stride.is_multiple_of(4) && !root {
            let step = self.mul_const(i, a.stride / 4)?;
            let row = self.add_const(step, a.base / 4)?;
            let comp = self.cx.const_u32(a.base % 4);
            self.cbuffer_component(h, row, comp)?
        } else {
            let step = self.mul_const(i, a.stride)?;
            let w = self.add_const(step, a.base)?;
            self.cbuffer_word(h, w)?
        };
        self.num_to_ir(word, Num::UInt, ty)
    }

    /// `x · k` (32-bit), no instruction for `k` 1.
    fn mul_const(&mut self, x: Word, k: u32) -> Result<Word> {
        self.op_const(Op::IMul, x, k, 1)
    }

    /// `x op k` on 32-bit integers, or `x` itself when `k` is `op`'s `identity`.
    fn op_const(&mut self, op: Op, x: Word, k: u32, identity: u32) -> Result<Word> {
        if k == identity {
            return Ok(x);
        }
        let u = self.cx.u32_t();
        let k = self.cx.const_u32(k);
        self.ids_op(op, u, &[x, k])
    }

    fn cbuffer_legacy(&mut self, c: &Call<'_>) -> Result<Word> {
        let h = self.cbuffer_handle(c, 0)?;
        let row = self.arg_val(c, 1)?;
        let u = self.cx.u32_t();
        let vec = self.cbuffer_row(h, row)?;
        let scalar = self.overload_scalar(c.ty);
        let st = self.cx.ty(scalar)?;
        let bits = self.scalar_bits(scalar).unwrap_or(32);
        let mut comps = Vec::new();
        match bits {
            32 => {
                for k in 0..4 {
                    let x = self.extract(u, vec, k)?;
                    comps.push(self.num_to_ir(x, Num::UInt, scalar)?);
                }
            }
            16 if self.fields(c.ty).len() == 4 => {
                // Minimum precision: each value has a 32-bit slot and is stored at 32 bits.
                let f = self.cx.float(32);
                for k in 0..4 {
                    let x = self.extract(u, vec, k)?;
                    comps.push(if self.is_float_ty(scalar) {
                        let y = self.ids_op(Op::Bitcast, f, &[x])?;
                        self.ids_op(Op::FConvert, st, &[y])?
                    } else {
                        self.ids_op(Op::UConvert, st, &[x])?
                    });
                }
            }
            16 => {
                let v2 = self.cx.vec(st, 2);
                for k in 0..4 {
                    let x = self.extract(u, vec, k)?;
                    let pair = self.ids_op(Op::Bitcast, v2, &[x])?;
                    comps.push(self.extract(st, pair, 0)?);
                    comps.push(self.extract(st, pair, 1)?);
                }
            }
            64 => {
                let u2 = self.cx.vec(u, 2);
                for k in 0..2u32 {
                    let pair = self.ids_op(Op::VectorShuffle, u2, &[vec, vec, 2 * k, 2 * k + 1])?;
                    comps.push(self.ids_op(Op::Bitcast, st, &[pair])?);
                }
            }
            _ => return Err(self.form(c.op, format!("{bits}-bit overload"))),
        }
        self.make_ret(c.ty, &comps, None)
    }

    pub fn extract(&mut self, ty: Word, composite: Word, k: u32) -> Result<Word> {
        self.ids_op(Op::CompositeExtract, ty, &[composite, k])
    }

    /// `cbufferLoad(handle, byteOffset, alignment)`: one value of the overload (8, 16, 32 or
    /// 64 bits) at a byte offset; a 64-bit value is two words, low first.
    fn cbuffer_load(&mut self, c: &Call<'_>) -> Result<Word> {
        let h = self.cbuffer_handle(c, 0)?;
        let t = self.cx.ty(c.ty)?;
        let bits = self.scalar_bits(c.ty).unwrap_or(32);
        let off = self.arg_val(c, 1)?;
        let u = self.cx.u32_t();
        let word = match self.cx.const_value_u32(off) {
            Some(o) => self.cx.const_u32(o / 4),
            None => {
                let two = self.cx.const_u32(2);
                self.ids_op(Op::ShiftRightLogical, u, &[off, two])?
            }
        };
        let x = self.cbuffer_word(h, word)?;
        match bits {
            64 => {
                let next = self.add_const(word, 1)?;
                let y = self.cbuffer_word(h, next)?;
                let u2 = self.cx.vec(u, 2);
                let pair = self.ids_op(Op::CompositeConstruct, u2, &[x, y])?;
                self.ids_op(Op::Bitcast, t, &[pair])
            }
            32 => self.num_to_ir(x, Num::UInt, c.ty),
            _ => {
                // The part of the word that holds byte offset `off`.
                let within = self.cx.const_u32(if bits == 16 { 2 } else { 3 });
                let byte = self.ids_op(Op::BitwiseAnd, u, &[off, within])?;
                let three = self.cx.const_u32(3);
                let shift = self.ids_op(Op::ShiftLeftLogical, u, &[byte, three])?;
                let y = self.ids_op(Op::ShiftRightLogical, u, &[x, shift])?;
                let small = self.cx.uint(bits);
                let z = self.ids_op(Op::UConvert, small, &[y])?;
                if self.is_float_ty(c.ty) {
                    self.ids_op(Op::Bitcast, t, &[z])
                } else {
                    Ok(z)
                }
            }
        }
    }

    /// Byte address of element `index` (+ `offset` for structured buffers), at most
    /// [`FAR_ADDRESS`]: an element index whose `index × stride` passes 32 bits, an offset
    /// that wraps, or a raw address so near 2^32 that a later component would wrap to the
    /// start all address past the end of the buffer, which D3D reads as 0 and does not
    /// write (robust buffer access does the same past `FAR_ADDRESS`).
    /// Addresses the IR bounds at `FAR_ADDRESS` ([`Self::known_max`] of `index_ir` and
    /// `offset_ir`, the IR values of `index` and `offset`) need neither the clamp nor the
    /// wrap checks.
    pub(super) fn byte_address(
        &mut self,
        shape: ResShape,
        index: Word,
        index_ir: Value,
        offset: Option<Word>,
        offset_ir: Option<Value>,
    ) -> Result<Word> {
        let u = self.cx.u32_t();
        let far = self.cx.const_u32(FAR_ADDRESS);
        let offset = offset.filter(|&o| self.cx.const_value_u32(o) != Some(0));
        self.exact_shift = None;
        match shape {
            // A structured address the IR bounds at `FAR_ADDRESS` (index × stride + offset,
            // each bounded) can neither wrap nor pass it: no checks.
            ResShape::Words { stride: Some(s) }
                if self
                    .known_max(index_ir, 0)
                    .zip(match offset {
                        Some(_) => offset_ir.and_then(|o| self.known_max(o, 0)),
                        None => Some(0),
                    })
                    .is_some_and(|(i, o)| i * u64::from(s) + o <= u64::from(FAR_ADDRESS)) =>
            {
                let sw = self.cx.const_u32(s);
                let base = self.ids_op(Op::IMul, u, &[index, sw])?;
                match offset {
                    Some(o) => self.ids_op(Op::IAdd, u, &[base, o]),
                    None => Ok(base),
                }
            }
            ResShape::Words { stride: None }
                if self.known_max(index_ir, 0).is_some_and(|m| m <= u64::from(FAR_ADDRESS)) =>
            {
                if let Some((x, k)) = self.lossless_shl(index_ir) {
                    let x = self.value(x)?;
                    self.exact_shift = Some((index, x, k));
                }
                Ok(index)
            }
            ResShape::Words { stride: None } => self.glsl(u, 38, &[index, far]), // UMin
            ResShape::Words { stride: Some(s) } => {
                if s % 4 == 0 && s > 0 {
                    self.structured_word(index, offset, s)?;
                }
                let sw = self.cx.const_u32(s);
                let base = self.ids_op(Op::IMul, u, &[index, sw])?;
                let b = self.cx.bool_t();
                let limit = self.cx.const_u32(FAR_ADDRESS / s.max(1));
                let mut wraps = self.ids_op(Op::UGreaterThan, b, &[index, limit])?;
                let addr = match offset {
                    Some(o) => {
                        let a = self.ids_op(Op::IAdd, u, &[base, o])?;
                        let carry = self.ids_op(Op::ULessThan, b, &[a, base])?;
                        wraps = self.ids_op(Op::LogicalOr, b, &[wraps, carry])?;
                        a
                    }
                    None => base,
                };
                let addr = self.ids_op(Op::Select, u, &[wraps, far, addr])?;
                let addr = self.glsl(u, 38, &[addr, far])?; // UMin
                if let Some(w) = self.pending_word.take() {
                    self.address_words.insert(addr, w);
                }
                Ok(addr)
            }
            _ => Err(Error::Internal("byte address of a non-buffer".into())),
        }
    }

    /// The word address of a structured access whose stride `s` is a multiple of 4, kept in
    /// [`FnEmit::pending_word`] for [`Self::byte_address`] to record against the byte
    /// address it returns: `min(index, ⌈FAR_ADDRESS / s⌉) × s/4 + offset / 4`. Where the
    /// byte address is exact (below [`FAR_ADDRESS`]) this is that address / 4 (`s/4 · index`
    /// is exact and the offset's low bits are dropped either way); where the byte address
    /// saturates (an index past `⌈FAR_ADDRESS / s⌉`, or a sum that passes it or would wrap)
    /// this is at least `FAR_ADDRESS / 4`, past the end of the buffer like the saturated
    /// address, and it does not wrap: `index × s/4 < FAR_ADDRESS/4 + s/4` and
    /// `offset / 4 < 2^30`, so the sum and the few words after it stay below 2^32. Four
    /// instructions (`UMin`, `IMul`, `ShiftRightLogical`, `IAdd`) where the saturating byte
    /// address and its `/ 4` take eight; the byte address is still written, for accesses
    /// that need bytes (16-bit parts), and goes as dead code where nothing uses it.
    fn structured_word(&mut self, index: Word, offset: Option<Word>, s: u32) -> Result<()> {
        let u = self.cx.u32_t();
        let limit = self.cx.const_u32(FAR_ADDRESS.div_ceil(s));
        let clamped = self.glsl(u, 38, &[index, limit])?; // UMin
        let sw = self.cx.const_u32(s / 4);
        let base = self.ids_op(Op::IMul, u, &[clamped, sw])?;
        let w = match offset {
            Some(o) => {
                let two = self.cx.const_u32(2);
                let ow = self.ids_op(Op::ShiftRightLogical, u, &[o, two])?;
                self.ids_op(Op::IAdd, u, &[base, ow])?
            }
            None => base,
        };
        self.pending_word = Some(w);
        Ok(())
    }

    /// Word `addr / 4` of a byte address from [`Self::byte_address`]: the word address
    /// written beside it where there is one ([`Self::structured_word`]), else
    /// [`Self::shift_right`] by 2.
    fn address_word(&mut self, addr: Word) -> Result<Word> {
        if let Some(&w) = self.address_words.get(&addr) {
            return Ok(w);
        }
        self.shift_right(addr, 2)
    }

    /// `addr >> s` for a raw address `addr` that [`Self::byte_address`] just returned. Where
    /// the IR computed it as `x << k` and no bit was shifted out (`tid * 4` written as a
    /// shift, the usual raw-buffer address), this is `x` shifted by the difference (`x`
    /// itself for `k = s`): one instruction or none instead of the shift pair, which a
    /// driver cannot fold without knowing `x`'s range.
    fn shift_right(&mut self, addr: Word, s: u32) -> Result<Word> {
        let u = self.cx.u32_t();
        match self.exact_shift {
            Some((a, x, k)) if a == addr => match k.cmp(&s) {
                std::cmp::Ordering::Equal => Ok(x),
                std::cmp::Ordering::Greater => {
                    let by = self.cx.const_u32(k - s);
                    self.ids_op(Op::ShiftLeftLogical, u, &[x, by])
                }
                std::cmp::Ordering::Less => {
                    let by = self.cx.const_u32(s - k);
                    self.ids_op(Op::ShiftRightLogical, u, &[x, by])
                }
            },
            _ => {
                let by = self.cx.const_u32(s);
                self.ids_op(Op::ShiftRightLogical, u, &[addr, by])
            }
        }
    }

    /// `(x, k)` where the 32-bit IR value `v` is `x << k` for a constant `k` and
    /// [`Self::known_max`] shows that no bit of `x` is shifted out.
    fn lossless_shl(&self, v: Value) -> Option<(Value, u32)> {
        use crate::ir::{BinaryOp, InstKind};
        let Value::Inst(i) = v else { return None };
        let InstKind::Binary { op: BinaryOp::Shl, lhs, rhs, .. } = self.f.insts[i].kind else { return None };
        let k = self.const_int(rhs).filter(|&k| k < 32)?;
        (self.known_max(lhs, 0)? << k <= u64::from(u32::MAX)).then_some((lhs, k as u32))
    }

    /// A 16-bit value's bits in the low half of a 32-bit word (a float is not converted;
    /// the high half is not cleared).
    fn half_bits(&mut self, v: Word, ty: TypeId) -> Result<Word> {
        let u = self.cx.u32_t();
        if self.is_float_ty(ty) {
            let u16t = self.cx.uint(16);
            let b = self.ids_op(Op::Bitcast, u16t, &[v])?;
            self.ids_op(Op::UConvert, u, &[b])
        } else {
            self.ir_to_num(v, ty, Num::UInt)
        }
    }

    /// Low bits known to be zero in a buffer access's byte address (operands 1 and 2:
    /// index and offset), from the IR that computes them; 0 when unknown. The clamp to
    /// [`FAR_ADDRESS`] keeps them (it is a multiple of 2^16).
    fn known_address_alignment(&self, shape: ResShape, c: &Call<'_>) -> u32 {
        let index = c.args.get(1).map_or(0, |&v| self.known_zero_bits(v, 0));
        match shape {
            ResShape::Words { stride: None } => index,
            ResShape::Words { stride: Some(s) } => {
                let base = (index + s.trailing_zeros()).min(32);
                match c.args.get(2) {
                    Some(&o) if !self.is_undef(o) => base.min(self.known_zero_bits(o, 0)),
                    _ => base,
                }
            }
            _ => 0,
        }
    }

    /// How many low bits of the 32-bit integer `v` are known to be zero: constants,
    /// shifts left by a constant, products, sums, `or` and `and`, at most 8 levels deep.
    fn known_zero_bits(&self, v: Value, depth: u32) -> u32 {
        use crate::ir::{BinaryOp, InstKind};
        if let Some(k) = self.const_int(v) {
            return (k as u32).trailing_zeros();
        }
        let Value::Inst(i) = v else { return 0 };
        if depth >= 8 {
            return 0;
        }
        let InstKind::Binary { op, lhs, rhs, .. } = &self.f.insts[i].kind else { return 0 };
        let (l, r) = (*lhs, *rhs);
        let of = |x: Value| self.known_zero_bits(x, depth + 1);
        match op {
            BinaryOp::Shl => match self.const_int(r) {
                Some(n) if n < 32 => (of(l) + n as u32).min(32),
                _ => 0,
            },
            BinaryOp::Mul => (of(l) + of(r)).min(32),
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Or | BinaryOp::Xor => of(l).min(of(r)),
            BinaryOp::And => of(l).max(of(r)),
            _ => 0,
        }
    }

    /// An upper bound of the 32-bit integer `v` from the IR that computes it, when one is
    /// known without wrapping: constants, zero extensions, `and`, `or`, `xor`, `lshr`,
    /// `urem` by a constant, and shifts, products and sums whose bounds stay below 2^32;
    /// compute shaders' thread and group ids by D3D12's dispatch limits (65,535 groups a
    /// dimension, 1,024 threads a group, at most 64 in z). At most 8 levels deep.
    fn known_max(&self, v: Value, depth: u32) -> Option<u64> {
        use crate::ir::{BinaryOp, CastOp, InstKind};
        const MAX: u64 = u32::MAX as u64;
        if let Some(k) = self.const_int(v) {
            return (k <= MAX).then_some(k);
        }
        let Value::Inst(i) = v else { return None };
        if depth >= 8 {
            return None;
        }
        let of = |x: Value| self.known_max(x, depth + 1);
        let fits = |n: u64| (n <= MAX).then_some(n);
        match &self.f.insts[i].kind {
            InstKind::Cast { op: CastOp::ZExt, value } => {
                let bits = self.value_ty(*value).and_then(|t| self.scalar_bits(t))?;
                (bits < 32).then(|| (1u64 << bits) - 1)
            }
            InstKind::Binary { op, lhs, rhs, .. } => {
                let (l, r) = (*lhs, *rhs);
                // All ones up to the highest bit of `n`.
                let ones = |n: u64| if n == 0 { 0 } else { u64::MAX >> n.leading_zeros() };
                match op {
                    BinaryOp::And => match (of(l), of(r)) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    },
                    BinaryOp::Or | BinaryOp::Xor => Some(ones(of(l)?.max(of(r)?))),
                    BinaryOp::LShr => Some(of(l).unwrap_or(MAX) >> self.const_int(r).filter(|&n| n < 32)?),
                    BinaryOp::URem => self.const_int(r).filter(|&n| n > 0).map(|n| n - 1),
                    BinaryOp::Shl => {
                        let n = self.const_int(r).filter(|&n| n < 32)?;
                        fits(of(l)? << n)
                    }
                    BinaryOp::Mul => fits(of(l)?.checked_mul(of(r)?)?),
                    BinaryOp::Add => fits(of(l)? + of(r)?),
                    _ => None,
                }
            }
            InstKind::Call { .. } => {
                let call = crate::dxil::decode_call(self.cx.m, self.f, i, "").ok()??;
                let compute = self.sm.kind == crate::front::container::ShaderKind::Compute;
                let component = call.args.first().and_then(|&a| self.const_int(a));
                match call.op {
                    DxOp::ThreadIdInGroup => Some(if component == Some(2) { 63 } else { 1023 }),
                    DxOp::FlattenedThreadIdInGroup => Some(1023),
                    DxOp::GroupId if compute => Some(65_534),
                    DxOp::ThreadId if compute => Some(65_535 * if component == Some(2) { 64 } else { 1024 } - 1),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `a + k` (32-bit), no instruction for `k` 0.
    fn add_const(&mut self, a: Word, k: u32) -> Result<Word> {
        self.op_const(Op::IAdd, a, k, 0)
    }

    /// A pointer to word `word` of the view behind `h` whose range is `range`
    /// ([`Self::buffer_range`]; `None`: the whole descriptor), and its storage class.
    fn ranged_word_ptr(&mut self, h: Handle, word: Word, range: Option<(Word, Word)>) -> Result<(Word, StorageClass)> {
        let word = self.in_range(range, word, PAST_WORD)?;
        self.word_ptr(h, word)
    }

    fn load_word(&mut self, h: Handle, word: Word, range: Option<(Word, Word)>) -> Result<Word> {
        let (p, storage) = self.ranged_word_ptr(h, word, range)?;
        let u = self.cx.u32_t();
        self.load_from(u, p, storage, 4)
    }

    fn store_word(&mut self, h: Handle, word: Word, value: Word, range: Option<(Word, Word)>) -> Result<()> {
        let (p, storage) = self.ranged_word_ptr(h, word, range)?;
        self.store_to(p, value, storage, 4)
    }

    /// Root constant word `index` (of `n`) at `at`. A constant index past the end reads 0;
    /// a dynamic one is clamped to the last word, so no access leaves the root constants
    /// (D3D leaves such reads undefined).
    fn root_constant(&mut self, at: ArgAt, n: u32, index: Word) -> Result<Word> {
        let u = self.cx.u32_t();
        if let Some(k) = self.cx.const_value_u32(index) {
            if k >= n {
                return Ok(self.cx.const_u32(0));
            }
            if at.store == ArgStore::RootArgumentBuffer {
                // A constant row and component (push constants keep their clamp, as they
                // always did, so their output does not change).
                return self.root_word(at, Some(index));
            }
        }
        let last = self.cx.const_u32(n.saturating_sub(1));
        let i = self.glsl(u, 38, &[index, last])?; // UMin
        self.root_word(at, Some(i))
    }

    /// Loads the masked components of type `scalar` starting at byte `addr` (each word
    /// bounded by `range`, [`Self::buffer_range`]).
    fn load_components(
        &mut self,
        c: &Call<'_>,
        h: Handle,
        addr: Word,
        scalar: TypeId,
        mask: u32,
        range: Option<(Word, Word)>,
    ) -> Result<Vec<Word>> {
        let bits = self.scalar_bits(scalar).unwrap_or(32);
        let st = self.cx.ty(scalar)?;
        let u = self.cx.u32_t();
        let two = self.cx.const_u32(2);
        let mut comps = Vec::new();
        for k in 0..4u32 {
            if mask & (1 << k) == 0 {
                comps.push(self.cx.undef(st));
                continue;
            }
            let w = match bits {
                32 => {
                    // (addr + 4k) / 4 = addr / 4 + k: addresses stay below 2^32 - 64 KiB.
                    let word0 = self.address_word(addr)?;
                    let word = self.add_const(word0, k)?;
                    let x = self.load_word(h, word, range)?;
                    self.num_to_ir(x, Num::UInt, scalar)?
                }
                64 => {
                    let word0 = self.address_word(addr)?;
                    let word = self.add_const(word0, 2 * k)?;
                    let lo = self.load_word(h, word, range)?;
                    let word1 = self.add_const(word, 1)?;
                    let hi = self.load_word(h, word1, range)?;
                    let u2 = self.cx.vec(u, 2);
                    let pair = self.ids_op(Op::CompositeConstruct, u2, &[lo, hi])?;
                    self.ids_op(Op::Bitcast, st, &[pair])?
                }
                16 => {
                    let a = self.add_const(addr, 2 * k)?;
                    let word = self.ids_op(Op::ShiftRightLogical, u, &[a, two])?;
                    let x = self.load_word(h, word, range)?;
                    let half = self.ids_op(Op::BitwiseAnd, u, &[a, two])?;
                    let three = self.cx.const_u32(3);
                    let shift = self.ids_op(Op::ShiftLeftLogical, u, &[half, three])?;
                    let y = self.ids_op(Op::ShiftRightLogical, u, &[x, shift])?;
                    let u16t = self.cx.uint(16);
                    let z = self.ids_op(Op::UConvert, u16t, &[y])?;
                    if self.is_float_ty(scalar) {
                        self.ids_op(Op::Bitcast, st, &[z])?
                    } else {
                        z
                    }
                }
                _ => return Err(self.form(c.op, format!("{bits}-bit overload"))),
            };
            comps.push(w);
        }
        Ok(comps)
    }

    /// The 16-bit view of `h`'s buffer when `scalar` is a 16-bit type and the buffer has
    /// one ([`FnEmit::half_view`]).
    fn half_view_for(&mut self, h: Handle, scalar: TypeId) -> Result<Option<ResVar>> {
        if self.scalar_bits(scalar) != Some(16) {
            return Ok(None);
        }
        self.half_view(h)
    }

    /// Loads the masked 16-bit components of type `scalar` starting at byte `addr` through
    /// the 16-bit view `view`, each element bounded by the view's range.
    fn load_halves(&mut self, h: Handle, view: &ResVar, addr: Word, scalar: TypeId, mask: u32) -> Result<Vec<Word>> {
        let st = self.cx.ty(scalar)?;
        let u = self.cx.u32_t();
        let u16t = self.cx.uint(16);
        let one = self.cx.const_u32(1);
        let range = self.buffer_range_in(h, true)?;
        let mut comps = Vec::new();
        for k in 0..4u32 {
            if mask & (1 << k) == 0 {
                comps.push(self.cx.undef(st));
                continue;
            }
            let a = self.add_const(addr, 2 * k)?;
            let i = self.ids_op(Op::ShiftRightLogical, u, &[a, one])?;
            let i = self.in_range(range, i, PAST_HALF)?;
            let p = self.half_ptr(h, view, i)?;
            let z = self.ids_op(Op::Load, u16t, &[p])?;
            comps.push(if self.is_float_ty(scalar) { self.ids_op(Op::Bitcast, st, &[z])? } else { z });
        }
        Ok(comps)
    }

    /// Stores the masked 16-bit components of `c` (operands 3-6, of type `ty`) at byte
    /// `addr` through the 16-bit view `view`: one element each, so no other value is
    /// touched and robustness drops each out-of-range element alone.
    #[allow(clippy::too_many_arguments)]
    fn store_halves(
        &mut self,
        c: &Call<'_>,
        h: Handle,
        view: &ResVar,
        addr: Word,
        ty: TypeId,
        mask: u32,
        src: Lanes,
    ) -> Result<()> {
        let u = self.cx.u32_t();
        let u16t = self.cx.uint(16);
        let one = self.cx.const_u32(1);
        let range = self.buffer_range_in(h, true)?;
        for k in 0..4u32 {
            if mask & (1 << k) == 0 {
                continue;
            }
            let v = self.lane(c, src, k)?;
            let x = if self.is_float_ty(ty) { self.ids_op(Op::Bitcast, u16t, &[v])? } else { v };
            let a = self.add_const(addr, 2 * k)?;
            let i = self.ids_op(Op::ShiftRightLogical, u, &[a, one])?;
            self.store_half(h, view, range, i, x)?;
        }
        Ok(())
    }

    /// Stores the 16-bit `x` at element `i` of `h`'s 16-bit view `view` whose range in
    /// halves is `range`: one element, bounded by the range.
    fn store_half(&mut self, h: Handle, view: &ResVar, range: Option<(Word, Word)>, i: Word, x: Word) -> Result<()> {
        let i = self.in_range(range, i, PAST_HALF)?;
        let p = self.half_ptr(h, view, i)?;
        self.ids_void(Op::Store, &[p, x])
    }

    /// Writes the low `bytes` (1 or 2) bytes of the `u32` `x` at byte `addr` (a multiple
    /// of `bytes`) of `h`'s buffer without touching its neighbours, which other threads
    /// may be writing: 16 bits through the buffer's 16-bit view where it has one (one
    /// element store), else — and for bytes — by clearing and then setting the bits in
    /// their 32-bit word with `OpAtomicAnd` and `OpAtomicOr` (never a plain
    /// read-modify-write). Bounded like the buffer's other accesses. AGS's
    /// `BufferStoreByte` / `BufferStoreShort` (`ags.rs`).
    pub(super) fn store_sub_word(&mut self, h: Handle, addr: Word, x: Word, bytes: u32) -> Result<()> {
        if bytes == 2 {
            if let Some(view) = self.half_view(h)? {
                let (u, u16t) = (self.cx.u32_t(), self.cx.uint(16));
                let x = self.ids_op(Op::UConvert, u16t, &[x])?;
                let range = self.buffer_range_in(h, true)?;
                let one = self.cx.const_u32(1);
                let i = self.ids_op(Op::ShiftRightLogical, u, &[addr, one])?;
                return self.store_half(h, &view, range, i, x);
            }
        }
        let range = self.buffer_range(h)?;
        self.atomic_sub_word(h, addr, |_| Ok(x), bytes, range)
    }

    /// The low `bytes` (1 or 2) bytes of the `u32` `value` makes into their place at byte
    /// `addr` of the word holding it (`range`: [`Self::buffer_range`]): the place cleared
    /// by `OpAtomicAnd`, then set by `OpAtomicOr`, so the word's other bytes (maybe
    /// another thread's) are never rewritten. (`value` runs after the word index is
    /// computed, the order the 16-bit store path has always emitted.)
    fn atomic_sub_word(
        &mut self,
        h: Handle,
        addr: Word,
        value: impl FnOnce(&mut Self) -> Result<Word>,
        bytes: u32,
        range: Option<(Word, Word)>,
    ) -> Result<()> {
        let u = self.cx.u32_t();
        let word = self.address_word(addr)?;
        let x = value(self)?;
        let ones = self.cx.const_u32(if bytes == 1 { 0xff } else { 0xffff });
        let x = self.ids_op(Op::BitwiseAnd, u, &[x, ones])?;
        // The place's first bit: 8 × (addr & 3), the low bits of a short's address cleared.
        let within = self.cx.const_u32(4 - bytes);
        let place = self.ids_op(Op::BitwiseAnd, u, &[addr, within])?;
        let three = self.cx.const_u32(3);
        let shift = self.ids_op(Op::ShiftLeftLogical, u, &[place, three])?;
        let keep_mask = self.ids_op(Op::ShiftLeftLogical, u, &[ones, shift])?;
        let keep = self.ids_op(Op::Not, u, &[keep_mask])?;
        let bits_in = self.ids_op(Op::ShiftLeftLogical, u, &[x, shift])?;
        let (p, _) = self.ranged_word_ptr(h, word, range)?;
        let scope = self.cx.const_u32(Scope::Device as u32);
        let sem = self.cx.const_u32(0);
        self.ids_op(Op::AtomicAnd, u, &[p, scope, sem, keep])?;
        self.ids_op(Op::AtomicOr, u, &[p, scope, sem, bits_in])?;
        Ok(())
    }

    /// The access of `c` (operands 1 and 2: element index or byte address, and offset; the
    /// components of `mask`, each of type `scalar`) through a vector view of its buffer,
    /// where one applies ([`Self::structured_quads`] or [`Self::raw_vectors`] decides, before
    /// anything is written) and the view has no offset table.
    fn vector_access(
        &mut self,
        c: &Call<'_>,
        h: Handle,
        shape: ResShape,
        scalar: TypeId,
        mask: u32,
    ) -> Result<Option<Vectors>> {
        let bits = self.scalar_bits(scalar).unwrap_or(0);
        let plan = match shape {
            ResShape::Words { stride: Some(s) } => self.structured_quads(c, s, bits, mask),
            ResShape::Words { stride: None } => self.raw_vectors(c, shape, bits, mask),
            _ => None,
        };
        let Some(plan) = plan else { return Ok(None) };
        if self.res.offsets_of(h)?.is_some() {
            return Ok(None);
        }
        let (elem_bits, width) = match plan {
            VectorPlan::Quads { .. } => (32, 4),
            VectorPlan::Raw { elem_bits, width, .. } => (elem_bits, width),
        };
        let Some(view) = self.word_vector_view(h, elem_bits, width)? else { return Ok(None) };
        let index = self.arg_val(c, 1)?;
        let (base, first) = match plan {
            VectorPlan::Quads { m, n, first, spread } => {
                let u = self.cx.u32_t();
                let mut base = index;
                if m > 1 {
                    let mw = self.cx.const_u32(m);
                    base = self.ids_op(Op::IMul, u, &[index, mw])?;
                }
                base = self.add_const(base, n)?;
                if m > 1 || spread > 0 {
                    // `index × m + spread` must not wrap.
                    let b = self.cx.bool_t();
                    let limit = self.cx.const_u32((u32::MAX - spread) / m);
                    let wraps = self.ids_op(Op::UGreaterThan, b, &[index, limit])?;
                    let past = self.cx.const_u32(PAST_QUAD);
                    base = self.ids_op(Op::Select, u, &[wraps, past, base])?;
                }
                (base, first)
            }
            VectorPlan::Raw { shift, .. } => {
                let addr = self.byte_address(shape, index, self.arg(c, 1)?, None, None)?;
                (self.shift_right(addr, shift)?, 0)
            }
        };
        Ok(Some(Vectors { view, base, first, width, bits: elem_bits }))
    }

    /// Whether the access of `c` (element index operand 1, constant byte offset operand 2,
    /// the components of `mask`, each of `bits` bits) to a structured buffer of stride
    /// `stride` goes through the `uvec4` view of the buffer (`Resources::word_vectors`):
    /// when the stride is a multiple of 16, the components are 32 or 64 bits and the offset
    /// is a constant. Quad `index × stride / 16 + offset / 16`, which is the byte address /
    /// 16 exactly. An index whose address (or a later quad's) would pass 32 bits goes to
    /// [`PAST_QUAD`], out of bounds as the word path's [`FAR_ADDRESS`] is. A quad lies
    /// wholly inside the D3D view (`NumElements × stride` bytes) or wholly outside it.
    fn structured_quads(&self, c: &Call<'_>, stride: u32, bits: u32, mask: u32) -> Option<VectorPlan> {
        if stride == 0 || !stride.is_multiple_of(16) || !matches!(bits, 32 | 64) || mask & 0xF == 0 {
            return None;
        }
        let o = c.args.get(2).and_then(|&v| self.const_int(v))?;
        if !o.is_multiple_of(4) || o >= 1 << 28 {
            return None;
        }
        let (m, n, first) = (stride / 16, o as u32 / 16, (o as u32 % 16) / 4);
        let last = 31 - (mask & 0xF).leading_zeros();
        let spread = n + (first + (last + 1) * (bits / 32) - 1) / 4;
        Some(VectorPlan::Quads { m, n, first, spread })
    }

    /// Whether the access of `c` (byte address operand 1, the components of `mask`, each of
    /// `bits` bits) goes through a `uvec4` or `uvec2` view of its raw buffer
    /// (`Resources::word_vectors`): when the components are 32 or 64 bits, the mask is
    /// components `0..n` whose words fill whole vectors (2 or 4 words, or 6 or 8 of 64-bit
    /// components), the byte address is known from the IR that computes it to be a multiple
    /// of the vector's size (16 or 8 bytes): vector
    /// `address / 16` (or `/ 8`), the address clamped to [`FAR_ADDRESS`] as the word path
    /// clamps it. Three 32-bit components keep words (a `uvec4` would reach a word the
    /// access does not name). 16-bit components go the same way through a `u16vec4` or
    /// `u16vec2` view (8 or 4 bytes) when they are components `0..4` or `0..2` exactly
    /// (three keep halves: a `u16vec4` would reach a half, in a word, the access does not
    /// name; four at an address known only to be 4-aligned keep halves too).
    ///
    /// Bounds: D3D checks each 32-bit word of a raw access against the view. A raw view
    /// starts 16-aligned (`D3D12_RAW_UAV_SRV_BYTE_ALIGNMENT`), so a vector of the view is
    /// wholly inside or wholly outside it whenever the view's size is a multiple of the
    /// vector's, and robust buffer access then reads 0 and drops writes exactly for the
    /// words D3D does. A vector straddling the end of a view whose size is not such a
    /// multiple is one access that is partly out of bounds, for which Vulkan lets the
    /// implementation keep or zero its in-bounds words (lavapipe keeps them, NVIDIA zeroes
    /// them: `tests/raw_vector_views.rs`); dxil-spirv vectorizes these accesses the same
    /// way. A raw view's size is a whole number of words, so a `u16vec2` (one word) is
    /// always wholly inside or outside, and a `u16vec4` (two words) straddles exactly where
    /// a `uvec2` would, with the same caveat. `Options::raw_buffer_vectors` off keeps words
    /// (and 16-bit elements).
    fn raw_vectors(&self, c: &Call<'_>, shape: ResShape, bits: u32, mask: u32) -> Option<VectorPlan> {
        if !self.iface.stage.raw_buffer_vectors {
            return None;
        }
        let mask = mask & 0xF;
        if !matches!(bits, 16 | 32 | 64) || mask == 0 || mask & (mask + 1) != 0 {
            return None;
        }
        // Elements of the view: 16-bit halves for 16-bit components, else 32-bit words.
        let elem_bits = bits.min(32);
        let elems = mask.count_ones() * bits / elem_bits;
        // log2 of the element's size in bytes: 1 or 2.
        let elem_shift = (elem_bits / 8).trailing_zeros();
        let align = self.known_address_alignment(shape, c);
        let width = match () {
            _ if elems.is_multiple_of(4) && align >= elem_shift + 2 => 4,
            _ if elems.is_multiple_of(2) && align > elem_shift => 2,
            _ => return None,
        };
        // 16-bit: only components 0..width exactly (no vector reaches a half not named).
        if bits == 16 && elems != width {
            return None;
        }
        Some(VectorPlan::Raw { elem_bits, width, shift: elem_shift + width.trailing_zeros() })
    }

    /// A pointer to vector `d` after `q.base` (`comp`: to that component of it).
    fn vector_ptr(&mut self, h: Handle, q: &Vectors, d: u32, comp: Option<u32>) -> Result<Word> {
        let e = self.cx.uint(q.bits);
        let at = self.add_const(q.base, d)?;
        match comp {
            None => {
                let vt = self.cx.vec(e, q.width);
                self.view_ptr(h, &q.view, vt, &[at])
            }
            Some(k) => {
                let kw = self.cx.const_u32(k);
                self.view_ptr(h, &q.view, e, &[at, kw])
            }
        }
    }

    /// The elements (of `elem_bits` bits) of the masked components (of `bits` bits each)
    /// of an access, in order: (component, element within it).
    fn access_words(mask: u32, bits: u32, elem_bits: u32) -> impl Iterator<Item = (u32, u32)> {
        let per = (bits / elem_bits).max(1);
        (0..4u32).filter(move |k| mask & (1 << k) != 0).flat_map(move |k| (0..per).map(move |j| (k, j)))
    }

    /// Loads the masked components of type `scalar` through a vector view: each vector
    /// they touch once.
    fn load_vectors(&mut self, h: Handle, q: &Vectors, scalar: TypeId, mask: u32) -> Result<Vec<Word>> {
        let bits = self.scalar_bits(scalar).unwrap_or(32);
        let st = self.cx.ty(scalar)?;
        let u = self.cx.u32_t();
        let e = self.cx.uint(q.bits);
        let vt = self.cx.vec(e, q.width);
        let per = bits / q.bits;
        // Float components of the view's width: each vector is read as floats once
        // (`OpBitcast` of the vector, then its lanes), the form NVIDIA's compiler turns into
        // packed 16-bit arithmetic; a lane written back as bits folds to the loaded lane
        // (`cleanup`'s lanes of bitcast vectors).
        let as_floats = per == 1 && self.is_float_ty(scalar);
        let (lane_ty, read_ty) = if as_floats { (st, self.cx.vec(st, q.width)) } else { (e, vt) };
        let mut vectors: [Option<Word>; MAX_VECTORS] = [None; MAX_VECTORS];
        let mut words = [[0; 2]; 4];
        for (k, j) in Self::access_words(mask, bits, q.bits) {
            let (d, comp) = q.place(k * per + j);
            let vector = match vectors[d as usize] {
                Some(x) => x,
                None => {
                    let p = self.vector_ptr(h, q, d, None)?;
                    let x = self.ids_op(Op::Load, vt, &[p])?;
                    let x = if as_floats { self.ids_op(Op::Bitcast, read_ty, &[x])? } else { x };
                    vectors[d as usize] = Some(x);
                    x
                }
            };
            words[k as usize][j as usize] = self.extract(lane_ty, vector, comp)?;
        }
        let mut comps = Vec::new();
        for (k, w) in words.iter().enumerate() {
            comps.push(if mask & (1 << k) == 0 {
                self.cx.undef(st)
            } else if as_floats {
                w[0]
            } else if bits == 64 {
                let u2 = self.cx.vec(u, 2);
                let pair = self.ids_op(Op::CompositeConstruct, u2, w)?;
                self.ids_op(Op::Bitcast, st, &[pair])?
            } else if bits == 16 {
                // A 16-bit element as `load_halves` reads one.
                if self.is_float_ty(scalar) {
                    self.ids_op(Op::Bitcast, st, &[w[0]])?
                } else {
                    w[0]
                }
            } else {
                self.num_to_ir(w[0], Num::UInt, scalar)?
            });
        }
        Ok(comps)
    }

    /// Stores the masked components of `c` (operands 3-6, of type `ty`) through a vector
    /// view: a vector all of whose words are written as one, the others word by word, so no
    /// word outside the mask is touched.
    fn store_vectors(&mut self, c: &Call<'_>, h: Handle, q: &Vectors, ty: TypeId, mask: u32) -> Result<()> {
        let bits = self.scalar_bits(ty).unwrap_or(32);
        let u = self.cx.u32_t();
        let e = self.cx.uint(q.bits);
        let per = bits / q.bits;
        let mut vectors = [[None; 4]; MAX_VECTORS];
        for k in (0..4u32).filter(|k| mask & (1 << k) != 0) {
            let v = self.arg_val(c, 3 + k as usize)?;
            let parts = match bits {
                64 => {
                    let u2 = self.cx.vec(u, 2);
                    let pair = self.ids_op(Op::Bitcast, u2, &[v])?;
                    [self.extract(u, pair, 0)?, self.extract(u, pair, 1)?]
                }
                // A 16-bit element as `store_halves` writes one.
                16 if self.is_float_ty(ty) => [self.ids_op(Op::Bitcast, e, &[v])?, 0],
                16 => [v, 0],
                _ => [self.ir_to_num(v, ty, Num::UInt)?, 0],
            };
            for j in 0..per {
                let (d, comp) = q.place(k * per + j);
                vectors[d as usize][comp as usize] = Some(parts[j as usize]);
            }
        }
        let width = q.width as usize;
        for (d, words) in vectors.iter().enumerate() {
            let whole: Option<Vec<Word>> = words[..width].iter().copied().collect();
            if let Some(ws) = whole {
                let vt = self.cx.vec(e, q.width);
                let x = self.ids_op(Op::CompositeConstruct, vt, &ws)?;
                let p = self.vector_ptr(h, q, d as u32, None)?;
                self.ids_void(Op::Store, &[p, x])?;
                continue;
            }
            for (comp, w) in words.iter().enumerate() {
                if let Some(x) = *w {
                    let p = self.vector_ptr(h, q, d as u32, Some(comp as u32))?;
                    self.ids_void(Op::Store, &[p, x])?;
                }
            }
        }
        Ok(())
    }

    fn buffer_load(&mut self, c: &Call<'_>) -> Result<Word> {
        let h = self.handle(self.arg(c, 0)?)?;
        let rv = self.res_var(h)?;
        let scalar = self.overload_scalar(c.ty);
        let index = self.arg_val(c, 1)?;
        let used = self.used(c) & 0xF;
        match rv.shape {
            ResShape::Words { .. } => {
                let off = if self.is_undef(self.arg(c, 2)?) { None } else { Some(self.arg_val(c, 2)?) };
                let mask = if c.op == DxOp::RawBufferLoad { self.arg_const(c, 3)? as u32 & used } else { used };
                if let Some(q) = self.vector_access(c, h, rv.shape, scalar, mask)? {
                    let comps = self.load_vectors(h, &q, scalar, mask)?;
                    return self.make_ret(c.ty, &comps, None);
                }
                let addr = self.byte_address(rv.shape, index, self.arg(c, 1)?, off, self.arg(c, 2).ok())?;
                let comps = match self.half_view_for(h, scalar)? {
                    Some(view) => self.load_halves(h, &view, addr, scalar, mask)?,
                    None => {
                        let range = self.buffer_range(h)?;
                        self.load_components(c, h, addr, scalar, mask, range)?
                    }
                };
                self.make_ret(c.ty, &comps, None)
            }
            ResShape::Image { dim: rspirv::spirv::Dim::DimBuffer, texel, .. } => {
                let range = self.buffer_range(h)?;
                let index = self.in_range(range, index, PAST_TEXEL)?;
                let (rv, img) = self.load_descriptor(h)?;
                let tt = texel.scalar(self.cx);
                let v4 = self.cx.vec(tt, 4);
                let op = if rv.uav { Op::ImageRead } else { Op::ImageFetch };
                self.cx.unformatted_access(rv.elem_ty, false);
                let sparse = self.wants_status(c);
                let (texel_v, code) = self.image_access(op, v4, &[img, index], sparse)?;
                let comps = self.split_texel(texel_v, texel, scalar)?;
                self.make_ret(c.ty, &comps, code)
            }
            _ => Err(self.form(c.op, "on a non-buffer resource")),
        }
    }

    /// The four components of a texel vector, converted to `scalar`.
    pub fn split_texel(&mut self, v: Word, texel: TexelKind, scalar: TypeId) -> Result<Vec<Word>> {
        let tt = texel.scalar(self.cx);
        // Integer texels that every lane converts alike: the vector converted once, then
        // its lanes (the reference's form, which NVIDIA's compiler keeps packed).
        if let Some(op) = self.texel_vector_conversion(texel, scalar) {
            let st = self.cx.ty(scalar)?;
            let vt = self.cx.vec(st, 4);
            let w = self.ids_op(op, vt, &[v])?;
            return (0..4).map(|k| self.extract(st, w, k)).collect();
        }
        let mut comps = Vec::new();
        for k in 0..4 {
            let x = self.extract(tt, v, k)?;
            comps.push(self.num_to_ir(x, texel.num(), scalar)?);
        }
        Ok(comps)
    }

    /// The one instruction that converts a vector of `texel` lanes into lanes of the IR
    /// scalar `scalar` as [`FnEmit::num_to_ir`] converts each (an integer texel to a
    /// narrower or wider integer, or its bits to a 32-bit float), if there is one.
    fn texel_vector_conversion(&self, texel: TexelKind, scalar: TypeId) -> Option<Op> {
        let bits = self.scalar_bits(scalar)?;
        match (texel, self.is_float_ty(scalar), bits) {
            (TexelKind::UInt, false, 8 | 16 | 64) => Some(Op::UConvert),
            (TexelKind::SInt, false, 8 | 16 | 64) => Some(Op::SConvert),
            (TexelKind::UInt | TexelKind::SInt, true, 32) => Some(Op::Bitcast),
            _ => None,
        }
    }

    /// A texel vector from four IR values.
    pub fn make_texel(&mut self, c: &Call<'_>, first: usize, texel: TexelKind) -> Result<Word> {
        let tt = texel.scalar(self.cx);
        let mut comps = Vec::new();
        for k in 0..4 {
            let v = self.arg(c, first + k)?;
            let w = if self.is_undef(v) {
                self.cx.undef(tt)
            } else {
                let ty = self.arg_ty(c, first + k)?;
                let w = self.value(v)?;
                self.ir_to_num(w, ty, texel.num())?
            };
            comps.push(w);
        }
        let v4 = self.cx.vec(tt, 4);
        self.ids_op(Op::CompositeConstruct, v4, &comps)
    }

    fn buffer_store(&mut self, c: &Call<'_>) -> Result<()> {
        let h = self.handle(self.arg(c, 0)?)?;
        let rv = self.res_var(h)?;
        if !rv.uav {
            return Err(self.invalid(c, "operand 0", "stores need a UAV"));
        }
        let index = self.arg_val(c, 1)?;
        let mask = self.arg_const(c, 7)? as u32;
        match rv.shape {
            ResShape::Words { .. } => {
                let ty = self.arg_ty(c, 3)?;
                if let Some(q) = self.vector_access(c, h, rv.shape, ty, mask & 0xF)? {
                    return self.store_vectors(c, h, &q, ty, mask & 0xF);
                }
                let off = if self.is_undef(self.arg(c, 2)?) { None } else { Some(self.arg_val(c, 2)?) };
                let addr = self.byte_address(rv.shape, index, self.arg(c, 1)?, off, self.arg(c, 2).ok())?;
                self.store_components(c, h, rv.shape, addr, ty, mask, Lanes::Args(3))
            }
            ResShape::Image { dim: rspirv::spirv::Dim::DimBuffer, texel, .. } => {
                let range = self.buffer_range(h)?;
                let index = self.in_range(range, index, PAST_TEXEL)?;
                let (rv, img) = self.load_descriptor(h)?;
                self.cx.unformatted_access(rv.elem_ty, true);
                let t = self.make_texel(c, 3, texel)?;
                self.ids_void(Op::ImageWrite, &[img, index, t])
            }
            _ => Err(self.form(c.op, "on a non-buffer resource")),
        }
    }

    /// Stores the masked components (of 4) of type `ty`, read from `src`, at byte `addr`
    /// of the raw or structured buffer behind `h`.
    #[allow(clippy::too_many_arguments)]
    fn store_components(
        &mut self,
        c: &Call<'_>,
        h: Handle,
        shape: ResShape,
        addr: Word,
        ty: TypeId,
        mask: u32,
        src: Lanes,
    ) -> Result<()> {
        if let Some(view) = self.half_view_for(h, ty)? {
            return self.store_halves(c, h, &view, addr, ty, mask, src);
        }
        let range = self.buffer_range(h)?;
        let bits = self.scalar_bits(ty).unwrap_or(32);
        let u = self.cx.u32_t();
        // The constant 2 first, as it always was: the module's ids stay as they were.
        self.cx.const_u32(2);
        // Whether the address is a known multiple of 4: then 16-bit components
        // 0-1 and 2-3 each fill one whole word.
        let word_aligned = bits == 16 && self.known_address_alignment(shape, c) >= 2;
        let mut k = 0u32;
        while k < 4 {
            let this = k;
            k += 1;
            if mask & (1 << this) == 0 {
                continue;
            }
            let v = self.lane(c, src, this)?;
            if word_aligned && this.is_multiple_of(2) && mask & (1 << (this + 1)) != 0 {
                // Both halves of one word: a plain store of the pair (low half
                // first), no atomics: no other value shares the word.
                let next = self.lane(c, src, this + 1)?;
                let lo = self.half_bits(v, ty)?;
                let hi = self.half_bits(next, ty)?;
                let ffff = self.cx.const_u32(0xffff);
                let lo = self.ids_op(Op::BitwiseAnd, u, &[lo, ffff])?;
                let sixteen = self.cx.const_u32(16);
                let hi = self.ids_op(Op::ShiftLeftLogical, u, &[hi, sixteen])?;
                let both = self.ids_op(Op::BitwiseOr, u, &[lo, hi])?;
                let word0 = self.address_word(addr)?;
                let word = self.add_const(word0, this / 2)?;
                self.store_word(h, word, both, range)?;
                k += 1;
                continue;
            }
            let k = this;
            match bits {
                32 => {
                    let word0 = self.address_word(addr)?;
                    let word = self.add_const(word0, k)?;
                    let x = self.ir_to_num(v, ty, Num::UInt)?;
                    self.store_word(h, word, x, range)?;
                }
                64 => {
                    let word0 = self.address_word(addr)?;
                    let word = self.add_const(word0, 2 * k)?;
                    let u2 = self.cx.vec(u, 2);
                    let pair = self.ids_op(Op::Bitcast, u2, &[v])?;
                    let lo = self.extract(u, pair, 0)?;
                    let hi = self.extract(u, pair, 1)?;
                    self.store_word(h, word, lo, range)?;
                    let word1 = self.add_const(word, 1)?;
                    self.store_word(h, word1, hi, range)?;
                }
                16 => {
                    let a = self.add_const(addr, 2 * k)?;
                    self.atomic_sub_word(h, a, |fe| fe.half_bits(v, ty), 2, range)?;
                }
                _ => return Err(self.form(c.op, format!("{bits}-bit stores"))),
            }
        }
        Ok(())
    }

    /// Component `k` (0-3) of a store's value.
    fn lane(&mut self, c: &Call<'_>, src: Lanes, k: u32) -> Result<Word> {
        match src {
            Lanes::Args(first) => self.arg_val(c, first + k as usize),
            Lanes::Vector(v, elem, first) => self.extract(elem, v, first + k),
        }
    }

    /// The lane type and count of a native-vector overload (a scalar: one lane).
    fn vector_lanes(&self, t: TypeId) -> (TypeId, u32) {
        match self.cx.m.types.get(t) {
            crate::ir::Type::Vector { elem, len } => (*elem, *len),
            _ => (t, 1),
        }
    }

    /// `rawBufferVectorLoad(handle, index, elementOffset, alignment)` (DXIL 1.9, opcode 303):
    /// `{ <N x T>, i32 status }`, the N lanes read from consecutive elements at the byte
    /// address, in groups of 4 as `rawBufferLoad` reads them. Raw and structured buffers
    /// only (no status: storage buffers have no residency code, it reads 0).
    fn buffer_vector_load(&mut self, c: &Call<'_>) -> Result<Word> {
        let h = self.handle(self.arg(c, 0)?)?;
        let rv = self.res_var(h)?;
        if !matches!(rv.shape, ResShape::Words { .. }) {
            return Err(self.form(c.op, "on a resource other than a raw or structured buffer"));
        }
        let vty = self.overload_scalar(c.ty);
        let (scalar, n) = self.vector_lanes(vty);
        let bytes = self.scalar_bits(scalar).unwrap_or(32) / 8;
        let index = self.arg_val(c, 1)?;
        let off = if self.is_undef(self.arg(c, 2)?) { None } else { Some(self.arg_val(c, 2)?) };
        let base = self.byte_address(rv.shape, index, self.arg(c, 1)?, off, self.arg(c, 2).ok())?;
        let view = self.half_view_for(h, scalar)?;
        let mut lanes = Vec::with_capacity(n as usize);
        for first in (0..n).step_by(4) {
            let count = (n - first).min(4);
            let mask = (1u32 << count) - 1;
            let addr = self.add_const(base, first * bytes)?;
            let comps = match &view {
                Some(view) => self.load_halves(h, view, addr, scalar, mask)?,
                None => {
                    let range = self.buffer_range(h)?;
                    self.load_components(c, h, addr, scalar, mask, range)?
                }
            };
            lanes.extend_from_slice(&comps[..count as usize]);
        }
        let v = if n == 1 {
            lanes[0]
        } else {
            let t = self.cx.ty(vty)?;
            self.ids_op(Op::CompositeConstruct, t, &lanes)?
        };
        self.make_ret(c.ty, &[v], None)
    }

    /// `rawBufferVectorStore(handle, index, elementOffset, value, alignment)` (DXIL 1.9,
    /// opcode 304): the N lanes of `value` to consecutive elements at the byte address, in
    /// groups of 4 as `rawBufferStore` writes them.
    fn buffer_vector_store(&mut self, c: &Call<'_>) -> Result<()> {
        let h = self.handle(self.arg(c, 0)?)?;
        let rv = self.res_var(h)?;
        if !rv.uav {
            return Err(self.invalid(c, "operand 0", "stores need a UAV"));
        }
        if !matches!(rv.shape, ResShape::Words { .. }) {
            return Err(self.form(c.op, "on a resource other than a raw or structured buffer"));
        }
        let vty = self.arg_ty(c, 3)?;
        let (scalar, n) = self.vector_lanes(vty);
        let bytes = self.scalar_bits(scalar).unwrap_or(32) / 8;
        let index = self.arg_val(c, 1)?;
        let off = if self.is_undef(self.arg(c, 2)?) { None } else { Some(self.arg_val(c, 2)?) };
        let base = self.byte_address(rv.shape, index, self.arg(c, 1)?, off, self.arg(c, 2).ok())?;
        let v = self.arg_val(c, 3)?;
        if n == 1 {
            return self.store_components(c, h, rv.shape, base, scalar, 1, Lanes::Args(3));
        }
        let elem = self.cx.ty(scalar)?;
        for first in (0..n).step_by(4) {
            let count = (n - first).min(4);
            let addr = self.add_const(base, first * bytes)?;
            self.store_components(c, h, rv.shape, addr, scalar, (1u32 << count) - 1, Lanes::Vector(v, elem, first))?;
        }
        Ok(())
    }

    /// A pointer for an atomic on a resource: a buffer word or an image texel.
    fn atomic_ptr(&mut self, c: &Call<'_>, h: Handle, rv: ResVar, first: usize) -> Result<(Word, Option<TexelKind>)> {
        match rv.shape {
            ResShape::Words { .. } => {
                let index = self.arg_val(c, first)?;
                let off = if self.is_undef(self.arg(c, first + 1)?) { None } else { Some(self.arg_val(c, first + 1)?) };
                let addr = self.byte_address(rv.shape, index, self.arg(c, first)?, off, self.arg(c, first + 1).ok())?;
                let word = self.address_word(addr)?;
                let range = self.buffer_range(h)?;
                Ok((self.ranged_word_ptr(h, word, range)?.0, None))
            }
            ResShape::Image { texel, .. } => {
                let n = rv.shape.coords();
                let coord = self.coord(c, first, n)?;
                let coord = self.texel_in_range(h, rv.shape, coord)?;
                let image = self.atomic_image_var(c, h)?;
                let p = self.element_ptr(h, &image)?;
                let tt = texel.scalar(self.cx);
                let pty = self.cx.ptr(StorageClass::Image, tt);
                let zero = self.cx.const_u32(0);
                Ok((self.ids_op(Op::ImageTexelPointer, pty, &[p, coord, zero])?, Some(texel)))
            }
            _ => Err(self.form(c.op, "on a constant buffer or sampler")),
        }
    }

    /// An integer coordinate vector of `n` components from arguments `first..first + n`.
    pub fn coord(&mut self, c: &Call<'_>, first: usize, n: u32) -> Result<Word> {
        let u = self.cx.u32_t();
        self.args_vector(c, first, n, u)
    }

    /// A vector of `n` `scalar`s from arguments `first..first + n` (the scalar itself for
    /// one).
    pub fn args_vector(&mut self, c: &Call<'_>, first: usize, n: u32, scalar: Word) -> Result<Word> {
        let mut ws = Vec::new();
        for k in 0..n as usize {
            ws.push(self.arg_val(c, first + k)?);
        }
        if n == 1 {
            return Ok(ws[0]);
        }
        let vt = self.cx.vec(scalar, n);
        self.ids_op(Op::CompositeConstruct, vt, &ws)
    }

    /// A typed buffer's texel coordinate bounded by its offset table's range (other
    /// images' coordinates as they are).
    fn texel_in_range(&mut self, h: Handle, shape: ResShape, coord: Word) -> Result<Word> {
        if !matches!(shape, ResShape::Image { dim: rspirv::spirv::Dim::DimBuffer, .. }) {
            return Ok(coord);
        }
        let range = self.buffer_range(h)?;
        self.in_range(range, coord, PAST_TEXEL)
    }

    /// The 64-bit view of raw or structured buffer `h` and its element (`Int64Atomics`
    /// declared): [`Self::buffer_u64_ptr`]'s first operand.
    pub(super) fn buffer_u64_view(&mut self, h: Handle) -> Result<(ResVar, Word)> {
        self.cx.capability(rspirv::spirv::Capability::Int64Atomics);
        let view = self.res.words64(self.cx, h.class, h.id)?;
        let var = self.element_ptr(h, &view)?;
        Ok((view, var))
    }

    /// A pointer to the 64-bit word at byte address `addr` (8-aligned) of raw or structured
    /// buffer `h`, through its 64-bit view (bounded like the buffer's other accesses): what
    /// 64-bit atomics operate on (SM 6.6's, and AGS's in `ags.rs`).
    pub(super) fn buffer_u64_ptr(&mut self, h: Handle, (view, var): (ResVar, Word), addr: Word) -> Result<Word> {
        let u = self.cx.u32_t();
        let word = match self.buffer_range(h)? {
            None => {
                let three = self.cx.const_u32(3);
                self.ids_op(Op::ShiftRightLogical, u, &[addr, three])?
            }
            Some((first, count)) => {
                // Both words of the 8-aligned value in the range: `(w | 1) < count`.
                let two = self.cx.const_u32(2);
                let w = self.ids_op(Op::ShiftRightLogical, u, &[addr, two])?;
                let one = self.cx.const_u32(1);
                let last = self.ids_op(Op::BitwiseOr, u, &[w, one])?;
                let b = self.cx.bool_t();
                let inside = self.ids_op(Op::ULessThan, b, &[last, count])?;
                let moved = self.ids_op(Op::IAdd, u, &[w, first])?;
                let past = self.cx.const_u32(PAST_WORD);
                let w = self.ids_op(Op::Select, u, &[inside, moved, past])?;
                self.ids_op(Op::ShiftRightLogical, u, &[w, one])?
            }
        };
        let u64t = self.cx.uint(64);
        let pty = self.cx.ptr(view.storage, u64t);
        let zero = self.cx.const_u32(0);
        self.ids_op(Op::AccessChain, pty, &[var, zero, word])
    }

    /// A pointer (`OpImageTexelPointer`, sample 0) to the 64-bit texel of typed UAV `h`
    /// (of shape `shape`) at the coordinates `coord` makes, through the UAV's `R64ui` view
    /// (`Resources::image64`; typed-buffer coordinates bounded
    /// like the buffer's other accesses), and the texel type: what 64-bit image atomics
    /// operate on (SM 6.6's, and AGS's on texture targets in `ags.rs`).
    pub(super) fn image_u64_ptr(
        &mut self,
        h: Handle,
        shape: ResShape,
        coord: impl FnOnce(&mut Self) -> Result<Word>,
    ) -> Result<(Word, Word)> {
        let view = self.res.image64(self.cx, h.id, false)?;
        self.image_view_ptr(h, shape, view, coord)
    }

    /// A pointer (`OpImageTexelPointer`, sample 0) to the texel of typed UAV `h` (of shape
    /// `shape`) at the coordinates `coord` makes, through `(view, t)`, a view of it
    /// (`Resources::image_view`) of texel type `t` (typed-buffer coordinates bounded like
    /// the buffer's other accesses), and `t`.
    pub(super) fn image_view_ptr(
        &mut self,
        h: Handle,
        shape: ResShape,
        (view, t): (ResVar, Word),
        coord: impl FnOnce(&mut Self) -> Result<Word>,
    ) -> Result<(Word, Word)> {
        let var = self.element_ptr(h, &view)?;
        let coord = coord(self)?;
        let coord = self.texel_in_range(h, shape, coord)?;
        let pty = self.cx.ptr(StorageClass::Image, t);
        let zero = self.cx.const_u32(0);
        let ptr = self.ids_op(Op::ImageTexelPointer, pty, &[var, coord, zero])?;
        Ok((ptr, t))
    }

    fn atomic(&mut self, c: &Call<'_>) -> Result<Word> {
        let h = self.handle(self.arg(c, 0)?)?;
        let rv = self.res_var(h)?;
        if !rv.uav {
            return Err(self.invalid(c, "operand 0", "atomics need a UAV"));
        }
        let first = if c.op == DxOp::AtomicBinOp { 2 } else { 1 };
        let wide = self.scalar_bits(c.ty) == Some(64);
        let (ptr, texel) = if wide {
            if h.heap.is_some() {
                return Err(self.form(c.op, "64-bit atomics on heap resources"));
            }
            if let ResShape::Image { .. } = rv.shape {
                let n = rv.shape.coords();
                let (ptr, t) = self.image_u64_ptr(h, rv.shape, |fe| fe.coord(c, first, n))?;
                let scope = self.cx.const_u32(Scope::Device as u32);
                let sem = self.cx.const_u32(0);
                let old = if c.op == DxOp::AtomicBinOp {
                    let opcode = atomic_opcode(self.arg_const(c, 1)?)?;
                    let v = self.arg_val(c, 5)?;
                    self.ids_op(opcode, t, &[ptr, scope, sem, v])?
                } else {
                    let cmp = self.arg_val(c, 4)?;
                    let new = self.arg_val(c, 5)?;
                    self.ids_op(Op::AtomicCompareExchange, t, &[ptr, scope, sem, sem, new, cmp])?
                };
                return Ok(old);
            }
            // 64-bit atomics on a raw or structured buffer, through its 64-bit view.
            let view = self.buffer_u64_view(h)?;
            let index = self.arg_val(c, first)?;
            let off = if self.is_undef(self.arg(c, first + 1)?) { None } else { Some(self.arg_val(c, first + 1)?) };
            let addr = self.byte_address(rv.shape, index, self.arg(c, first)?, off, self.arg(c, first + 1).ok())?;
            (self.buffer_u64_ptr(h, view, addr)?, None)
        } else {
            if let ResShape::Image { texel: TexelKind::Float, .. } = rv.shape {
                return Err(self.invalid(c, "operand 0", "atomics need an integer typed UAV"));
            }
            self.atomic_ptr(c, h, rv, first)?
        };
        let num = texel.map(TexelKind::num).unwrap_or(Num::UInt);
        let vt = if wide { self.cx.uint(64) } else { num.scalar(self.cx) };
        let scope = self.cx.const_u32(Scope::Device as u32);
        let sem = self.cx.const_u32(0);
        let conv = |me: &mut Self, k: usize| -> Result<Word> {
            let ty = me.arg_ty(c, k)?;
            let w = me.arg_val(c, k)?;
            if wide {
                return Ok(w);
            }
            me.ir_to_num(w, ty, num)
        };
        let old = if c.op == DxOp::AtomicBinOp {
            let opcode = atomic_opcode(self.arg_const(c, 1)?)?;
            let v = conv(self, 5)?;
            self.ids_op(opcode, vt, &[ptr, scope, sem, v])?
        } else {
            let cmp = conv(self, 4)?;
            let new = conv(self, 5)?;
            self.ids_op(Op::AtomicCompareExchange, vt, &[ptr, scope, sem, sem, new, cmp])?
        };
        if wide {
            return Ok(old);
        }
        self.num_to_ir(old, num, c.ty)
    }

    fn update_counter(&mut self, c: &Call<'_>) -> Result<Word> {
        let h = self.handle(self.arg(c, 0)?)?;
        if !self.res_var(h)?.uav {
            return Err(self.invalid(c, "operand 0", "counters belong to UAVs"));
        }
        let inc = self.arg_const(c, 1)? as i8;
        let counters = match h.heap {
            Some(hh) => {
                let r = Resources::heap_resource(hh)?;
                self.res.heap_counter_var(self.cx, &r)?
            }
            None => self.res.counter(self.cx, h.id)?,
        };
        let u = self.cx.u32_t();
        if counters.len == ArrayLen::InBlock {
            // The counter's buffer device address, from the layer's address table.
            let entry = self.element_ptr(h, &counters)?;
            let u2 = self.cx.vec(u, 2);
            let address = self.ids_op(Op::Load, u2, &[entry])?;
            self.cx.physical_addressing();
            let pty = self.cx.ptr(StorageClass::PhysicalStorageBuffer, u);
            if self.cur_loop_header {
                // A loop header cannot be split; the address is used as it is.
                let p = self.ids_op(Op::Bitcast, pty, &[address])?;
                return self.counter_atomic(p, inc);
            }
            // A UAV without a counter has address 0 (vkd3d-proton writes it for NULL
            // counters): the operation then touches no memory and returns 0, as D3D
            // drivers do (vkd3d-proton's `test_uav_counter_null_behavior_dxil`) and as
            // dxil-spirv's robust counters do; an atomic at address 0 faults the device.
            let zero2 = self.cx.null(u2);
            let b = self.cx.bool_t();
            let b2 = self.cx.vec(b, 2);
            let nonzero = self.ids_op(Op::INotEqual, b2, &[address, zero2])?;
            let has_counter = self.ids_op(Op::Any, b, &[nonzero])?;
            let (one, zero) = (self.cx.const_u32(1), self.cx.const_u32(0));
            let case = self.ids_op(Op::Select, u, &[has_counter, one, zero])?;
            return self.split_switch(case, 2, u, |fe, k| {
                if k == 0 {
                    return Ok(fe.cx.const_u32(0));
                }
                let p = fe.ids_op(Op::Bitcast, pty, &[address])?;
                fe.counter_atomic(p, inc)
            });
        }
        let block = self.element_ptr(h, &counters)?;
        let pty = self.cx.ptr(StorageClass::StorageBuffer, u);
        let zero = self.cx.const_u32(0);
        let p = self.ids_op(Op::AccessChain, pty, &[block, zero])?;
        self.counter_atomic(p, inc)
    }

    /// `IncrementCounter` (`inc` ≥ 0: the value before) or `DecrementCounter` (the value
    /// after) on the counter `p` points to.
    fn counter_atomic(&mut self, p: Word, inc: i8) -> Result<Word> {
        let u = self.cx.u32_t();
        let scope = self.cx.const_u32(Scope::Device as u32);
        let sem = self.cx.const_u32(0);
        let one = self.cx.const_u32(1);
        if inc >= 0 {
            // IncrementCounter returns the value before the increment.
            self.ids_op(Op::AtomicIAdd, u, &[p, scope, sem, one])
        } else {
            // DecrementCounter returns the value after the decrement.
            let old = self.ids_op(Op::AtomicISub, u, &[p, scope, sem, one])?;
            self.ids_op(Op::ISub, u, &[old, one])
        }
    }
}
