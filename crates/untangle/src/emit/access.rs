//! Read-only and write-only descriptors: `NonWritable` and `NonReadable` on the variables
//! of storage buffers and storage images that the module only reads or only writes.
//!
//! D3D declares a UAV readable and writable whatever a shader does with it; SPIR-V lets the
//! module say more. NVIDIA's compiler takes a read-only storage buffer's loads through its
//! read-only path and a write-only one's stores without keeping reads ordered: on the H200,
//! decorating the read-only UAVs of vkd3d-proton's `oob_behavior_vectorized_byte_address`
//! shaders cut their pipeline creation by a fifth (BENCHMARKS.md, "Generated code on the
//! H200"). dxil-spirv decorates the same way, so layers already run modules so marked.
//!
//! # Invariants
//! - A variable is decorated `NonWritable` only if no instruction of the module may write
//!   through it, and `NonReadable` only if none may read through it. Accesses are followed
//!   from the variable through `OpAccessChain`, `OpInBoundsAccessChain`,
//!   `OpPtrAccessChain` and `OpCopyObject` (pointers) and, for images, through the
//!   `OpLoad` of the descriptor (image values). A use this module does not know (a call, a
//!   `OpPhi`, `OpSelect`, a store *of* the pointer, any unknown opcode) counts as both a
//!   read and a write: unknown means no decoration, never a wrong one.
//! - Views alias: the variables of one descriptor (`DescriptorSet`, `Binding`) — the
//!   `uvec2`/`uvec4`/16-bit views of a raw buffer, a heap's arrays — share their access:
//!   one written view makes all of them writable. Variables without a binding stand alone.
//!   Distinct descriptors of one resource (a UAV this module writes and another it only
//!   reads) are not related: the read-only one may then read through a cache that does not
//!   see this invocation's writes through the other. dxil-spirv's modules, which vkd3d-proton
//!   runs, make the same assumption.
//! - Storage buffers (`StorageBuffer` variables) and storage images and texel buffers
//!   (`UniformConstant` variables of `OpTypeImage` with `Sampled` 2, or arrays of them) are
//!   considered; other descriptors are never written by a shader and keep what the emitter
//!   gave them. A decoration the variable already has is not repeated.
//!
//! # Cost
//! One walk over the function words and one over the annotations and globals, with two
//! dense tables indexed by result id (what each type is; what each id stands for): O(words +
//! bound).

use super::cleanup::spans;
use rspirv::spirv::{Decoration, Op, StorageClass, Word};
use smallvec::SmallVec;

/// What the module does through a variable (or through the views of its descriptor).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Access {
    read: bool,
    write: bool,
}

/// What an id stands for, in one dense table by id (ids are defined once, so a type and a
/// tracked value never share a slot): the types that lead to candidates, and the tracked
/// ids — which variable (candidate index) each derives from, and whether it is a pointer
/// into the resource or an image value loaded from the descriptor.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Id {
    Other,
    /// A pointer type, to this type.
    PointerType(Word),
    /// An array or runtime array type, of this type.
    ArrayType(Word),
    /// An image type; whether it is a storage image (`Sampled` 2).
    ImageType(bool),
    Pointer(u32),
    Image(u32),
}

/// A candidate variable: a storage buffer or a storage image.
#[derive(Clone, Copy)]
struct Candidate {
    var: Word,
    /// `UniformConstant` (an image or an array of images), not `StorageBuffer`.
    image: bool,
    /// The pointee type: a storage buffer's block, whose members may be decorated already.
    pointee: Word,
}

fn op_of(w: Word) -> u32 {
    w & 0xffff
}

/// The candidate variables of `globals`, in order; notes in `ids` the pointee of each
/// pointer type, the element of each array type and whether an image type is a storage
/// one (no hashing).
fn candidates(globals: &[Word], ids: &mut [Id]) -> Vec<Candidate> {
    let fact = |ids: &[Id], id: Word| ids.get(id as usize).copied().unwrap_or(Id::Other);
    let mut vars = Vec::new();
    for (s, e) in spans(globals) {
        let inst = &globals[s..e];
        let get = |k: usize| inst.get(k).copied().unwrap_or(0);
        let known = match op_of(inst[0]) {
            o if o == Op::TypePointer as u32 => Id::PointerType(get(3)),
            o if o == Op::TypeArray as u32 || o == Op::TypeRuntimeArray as u32 => Id::ArrayType(get(2)),
            // OpTypeImage result, sampled type, dim, depth, arrayed, ms, sampled, format.
            o if o == Op::TypeImage as u32 => Id::ImageType(get(7) == 2),
            o if o == Op::Variable as u32 => {
                let class = get(3);
                let to = match fact(ids, get(1)) {
                    Id::PointerType(to) => to,
                    _ => 0,
                };
                let var = get(2);
                if class == StorageClass::StorageBuffer as u32 {
                    vars.push(Candidate { var, image: false, pointee: to });
                } else if class == StorageClass::UniformConstant as u32 {
                    let mut ty = to;
                    while let Id::ArrayType(inner) = fact(ids, ty) {
                        ty = inner;
                    }
                    if fact(ids, ty) == Id::ImageType(true) {
                        vars.push(Candidate { var, image: true, pointee: to });
                    }
                }
                continue;
            }
            _ => continue,
        };
        if let Some(slot) = ids.get_mut(get(1) as usize) {
            *slot = known;
        }
    }
    vars
}

/// What a use of a tracked id as word `k` of an instruction with opcode `op` does (word 0
/// is the opcode; an instruction with a result has its type at 1 and its id at 2). `image`
/// says the id is an image value. Positions are those of the SPIR-V grammar; any other
/// opcode or position is both a read and a write.
fn classify(op: u32, k: usize, image: bool) -> Access {
    const BOTH: Access = Access { read: true, write: true };
    const READ: Access = Access { read: true, write: false };
    const WRITE: Access = Access { read: false, write: true };
    const NONE: Access = Access { read: false, write: false };
    let is = |o: Op| op == o as u32;
    // The first operand of an instruction with a result.
    let first = 3;
    if image {
        return match () {
            _ if (is(Op::ImageRead) || is(Op::ImageSparseRead)) && k == first => READ,
            _ if is(Op::ImageWrite) && k == 1 => WRITE,
            _ if (is(Op::ImageQuerySize)
                || is(Op::ImageQuerySizeLod)
                || is(Op::ImageQueryLevels)
                || is(Op::ImageQuerySamples)
                || is(Op::ImageQueryFormat)
                || is(Op::ImageQueryOrder))
                && k == first =>
            {
                NONE
            }
            _ => BOTH,
        };
    }
    match () {
        _ if is(Op::Load) && k == first => READ,
        _ if is(Op::Store) && k == 1 => WRITE,
        _ if is(Op::ArrayLength) && k == first => NONE,
        _ if is(Op::AtomicLoad) && k == first => READ,
        _ if is(Op::AtomicStore) && k == 1 => WRITE,
        _ if is(Op::CooperativeMatrixLoadKHR) && k == first => READ,
        _ if is(Op::CooperativeMatrixStoreKHR) && k == 1 => WRITE,
        _ => BOTH,
    }
}

/// Encoded `OpDecorate %var NonWritable` / `NonReadable` instructions for the storage
/// buffers and storage images of the module (sections as the writer keeps them) that it
/// only reads or only writes; `bound` is the module's id bound.
pub fn access_decorations(globals: &[Word], annotations: &[Word], functions: &[Word], bound: Word) -> Vec<Word> {
    let mut tracked = vec![Id::Other; bound as usize];
    let vars = candidates(globals, &mut tracked);
    if vars.is_empty() {
        return Vec::new();
    }
    // What each id stands for (a candidate's own id stays `Pointer` to it: ids are defined
    // once); each candidate's access so far.
    for (i, c) in vars.iter().enumerate() {
        if let Some(t) = tracked.get_mut(c.var as usize) {
            *t = Id::Pointer(i as u32);
        }
    }
    // Per candidate: its access, its descriptor (set, binding), the decorations it has
    // (`NonWritable`, `NonReadable`).
    #[derive(Clone, Copy, Default)]
    struct State {
        access: Access,
        set: Option<Word>,
        binding: Option<Word>,
        has: (bool, bool),
    }
    let mut state = vec![State::default(); vars.len()];
    let is = |op: u32, o: Op| op == o as u32;
    for (s, e) in spans(functions) {
        let inst = &functions[s..e];
        let op = op_of(inst[0]);
        // Derivations: the result stands for the same variable.
        if is(op, Op::AccessChain)
            || is(op, Op::InBoundsAccessChain)
            || is(op, Op::PtrAccessChain)
            || is(op, Op::CopyObject)
        {
            if let (Some(&result), Some(&base)) = (inst.get(2), inst.get(3)) {
                if let Some(Id::Pointer(i)) = tracked.get(base as usize).copied() {
                    if let Some(t) = tracked.get_mut(result as usize) {
                        *t = Id::Pointer(i);
                    }
                    // Indices are values, never tracked ids of ours.
                    continue;
                }
            }
        }
        // The load of a storage image's descriptor: its result is the image.
        if is(op, Op::Load) {
            if let (Some(&result), Some(&Id::Pointer(i))) =
                (inst.get(2), inst.get(3).and_then(|&p| tracked.get(p as usize)))
            {
                if vars[i as usize].image {
                    if let Some(t) = tracked.get_mut(result as usize) {
                        *t = Id::Image(i);
                    }
                    continue;
                }
            }
        }
        // Every word counts: a type or result id is never a tracked id (those are results
        // defined earlier), and a literal that equals one only costs a decoration.
        for (k, &w) in inst.iter().enumerate().skip(1) {
            let (i, image) = match tracked.get(w as usize) {
                Some(&Id::Pointer(i)) => (i, false),
                Some(&Id::Image(i)) => (i, true),
                _ => continue,
            };
            let a = classify(op, k, image);
            let slot = &mut state[i as usize].access;
            slot.read |= a.read;
            slot.write |= a.write;
        }
    }
    // Blocks whose member 0 is `NonWritable` already (the emitter's SRVs): for a storage
    // buffer's one-member block that says what the variable's decoration would.
    let mut block_nonwritable: SmallVec<[Word; 8]> = SmallVec::new();
    for (s, e) in spans(annotations) {
        let inst = &annotations[s..e];
        if is(op_of(inst[0]), Op::MemberDecorate)
            && inst.len() >= 4
            && inst[2] == 0
            && inst[3] == Decoration::NonWritable as u32
        {
            block_nonwritable.push(inst[1]);
        }
        if !is(op_of(inst[0]), Op::Decorate) || inst.len() < 3 {
            continue;
        }
        let i = match tracked.get(inst[1] as usize) {
            Some(&Id::Pointer(i)) if vars[i as usize].var == inst[1] => i as usize,
            _ => continue,
        };
        match inst[2] {
            d if d == Decoration::DescriptorSet as u32 => state[i].set = inst.get(3).copied(),
            d if d == Decoration::Binding as u32 => state[i].binding = inst.get(3).copied(),
            d if d == Decoration::NonWritable as u32 => state[i].has.0 = true,
            d if d == Decoration::NonReadable as u32 => state[i].has.1 = true,
            _ => {}
        }
    }
    // Views of one descriptor share their access (sorted keys keep the output stable).
    let mut shared: std::collections::BTreeMap<(Word, Word), Access> = Default::default();
    for st in &state {
        if let (Some(s), Some(b)) = (st.set, st.binding) {
            let a = shared.entry((s, b)).or_default();
            a.read |= st.access.read;
            a.write |= st.access.write;
        }
    }
    let mut out = Vec::new();
    for (i, c) in vars.iter().enumerate() {
        let v = c.var;
        let mut has = state[i].has;
        if !c.image && block_nonwritable.contains(&c.pointee) {
            has.0 = true;
        }
        let a = match (state[i].set, state[i].binding) {
            (Some(s), Some(b)) => shared[&(s, b)],
            _ => state[i].access,
        };
        let mut decorate = |d: Decoration| out.extend_from_slice(&[(3 << 16) | Op::Decorate as u32, v, d as u32]);
        if !a.write && !has.0 {
            decorate(Decoration::NonWritable);
        }
        if !a.read && !has.1 {
            decorate(Decoration::NonReadable);
        }
    }
    out
}
