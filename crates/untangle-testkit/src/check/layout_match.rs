//! Does a translated module fit the pipeline layout its report describes? The check a
//! translation layer's `vkCreateComputePipelines` / `vkCreateGraphicsPipelines` makes
//! (Vulkan's "Shader Resource Interface" rules), done on the SPIR-V words:
//!
//! - every descriptor variable's `(set, binding)` exists in the report's set layouts;
//! - its type matches the binding's descriptor type (sampled / storage image by the
//!   image's `Sampled` operand and `Dim`, sampler, uniform / storage buffer by storage
//!   class);
//! - a fixed-size array is no longer than the binding's count; a runtime array sits on a
//!   binding whose count the application chooses, or on one at least as large;
//! - the push-constant block's members lie at the report's member offsets, within its size;
//! - the root argument buffer (spilled root arguments): a variable at its set and binding is
//!   a `Uniform` block whose bytes (member offset + array stride × length, std140 strides)
//!   lie within the report's `size`; the layout itself must describe one consistent
//!   buffer: its binding a single `UNIFORM_BUFFER` sourced `root_argument_buffer`, its
//!   members inside `size` with 8-aligned addresses, and no root parameter in both
//!   push constants and the buffer.

use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Decoration, Dim, Op, StorageClass, Word};
use std::collections::HashMap;
use untangle::rootsig::layout::{BindingSource, DescriptorType, PipelineLayout, PushKind};

/// The layout's own root argument buffer is consistent (see the module docs).
fn check_root_argument_buffer(layout: &PipelineLayout) -> Result<(), String> {
    let Some(rab) = &layout.root_argument_buffer else {
        let stray = layout.sets.iter().flat_map(|s| &s.bindings).any(|b| b.source == BindingSource::RootArgumentBuffer);
        return if stray {
            Err("a root argument buffer binding without a root_argument_buffer".into())
        } else {
            Ok(())
        };
    };
    let b = layout
        .sets
        .iter()
        .filter(|s| s.set == rab.set)
        .flat_map(|s| &s.bindings)
        .find(|b| b.binding == rab.binding)
        .ok_or_else(|| {
            format!("the root argument buffer's set {} binding {} is not in the layout", rab.set, rab.binding)
        })?;
    if (b.descriptor_type, b.count, b.source)
        != (DescriptorType::UniformBuffer, Some(1), BindingSource::RootArgumentBuffer)
    {
        return Err(format!(
            "the root argument buffer's binding is {:?} x{:?} ({:?})",
            b.descriptor_type, b.count, b.source
        ));
    }
    if !rab.size.is_multiple_of(16) {
        return Err(format!("root argument buffer size {} is not a multiple of 16", rab.size));
    }
    for m in &rab.members {
        if m.offset + m.size > rab.size {
            return Err(format!("root argument buffer member at {} ends past its size {}", m.offset, rab.size));
        }
        if matches!(m.kind, PushKind::RootDescriptorAddress { .. }) && !m.offset.is_multiple_of(8) {
            return Err(format!("spilled address at byte {} is not 8-aligned", m.offset));
        }
        if layout.push_constants.members.iter().any(|p| p.parameter == m.parameter) {
            return Err(format!("root parameter {} is both a push constant and spilled", m.parameter));
        }
    }
    Ok(())
}

/// Check `words` against `layout`; the error says which variable breaks which rule.
pub fn check(words: &[u32], layout: &PipelineLayout) -> Result<(), String> {
    check_root_argument_buffer(layout)?;
    let m: Module = rspirv::dr::load_words(words).map_err(|e| format!("not SPIR-V: {e}"))?;
    let mut array_stride: HashMap<Word, u32> = HashMap::new();
    let mut set_of = HashMap::new();
    let mut binding_of = HashMap::new();
    let mut offsets: HashMap<(Word, u32), u32> = HashMap::new();
    for d in &m.annotations {
        match (d.class.opcode, d.operands.as_slice()) {
            (
                Op::Decorate,
                [Operand::IdRef(t), Operand::Decoration(Decoration::DescriptorSet), Operand::LiteralBit32(s)],
            ) => {
                set_of.insert(*t, *s);
            }
            (Op::Decorate, [Operand::IdRef(t), Operand::Decoration(Decoration::Binding), Operand::LiteralBit32(b)]) => {
                binding_of.insert(*t, *b);
            }
            (
                Op::Decorate,
                [Operand::IdRef(t), Operand::Decoration(Decoration::ArrayStride), Operand::LiteralBit32(s)],
            ) => {
                array_stride.insert(*t, *s);
            }
            (
                Op::MemberDecorate,
                [Operand::IdRef(t), Operand::LiteralBit32(k), Operand::Decoration(Decoration::Offset), Operand::LiteralBit32(o)],
            ) => {
                offsets.insert((*t, *k), *o);
            }
            _ => {}
        }
    }
    let defs: HashMap<Word, &rspirv::dr::Instruction> =
        m.types_global_values.iter().filter_map(|i| i.result_id.map(|r| (r, i))).collect();
    let const_u32 = |id: Word| -> Option<u32> {
        let i = defs.get(&id)?;
        match (i.class.opcode, i.operands.first()) {
            (Op::Constant, Some(Operand::LiteralBit32(v))) => Some(*v),
            _ => None,
        }
    };
    for inst in &m.types_global_values {
        if inst.class.opcode != Op::Variable {
            continue;
        }
        let (Some(var), Some(ptr_ty)) = (inst.result_id, inst.result_type) else { continue };
        let Some(Operand::StorageClass(storage)) = inst.operands.first() else { continue };
        let pointee = match defs.get(&ptr_ty).map(|p| (p.class.opcode, p.operands.get(1))) {
            Some((Op::TypePointer, Some(Operand::IdRef(t)))) => *t,
            _ => return Err(format!("variable %{var}: type is not a pointer")),
        };
        if *storage == StorageClass::PushConstant {
            let Some(st) = defs.get(&pointee) else { return Err("push block type missing".into()) };
            for k in 0..st.operands.len() as u32 {
                let off =
                    offsets.get(&(pointee, k)).copied().ok_or_else(|| format!("push member {k} has no Offset"))?;
                let member = layout.push_constants.members.iter().find(|m| m.offset == off).ok_or_else(|| {
                    format!("push member {k} at byte {off} is not a member of the layout's push constants")
                })?;
                if member.offset + member.size > layout.push_constants.size {
                    return Err(format!(
                        "push member at {off} ends past the push-constant size {}",
                        layout.push_constants.size
                    ));
                }
            }
            continue;
        }
        if !matches!(storage, StorageClass::UniformConstant | StorageClass::Uniform | StorageClass::StorageBuffer) {
            continue;
        }
        let (Some(&set), Some(&binding)) = (set_of.get(&var), binding_of.get(&var)) else {
            return Err(format!("descriptor variable %{var} has no DescriptorSet/Binding"));
        };
        let b = layout
            .sets
            .iter()
            .filter(|s| s.set == set)
            .flat_map(|s| &s.bindings)
            .find(|b| b.binding == binding)
            .ok_or_else(|| {
                format!("variable %{var} is bound at set {set} binding {binding}, which the layout does not have")
            })?;
        // Peel one array level.
        let (elem, len) = match defs.get(&pointee).map(|t| (t.class.opcode, t.operands.as_slice())) {
            Some((Op::TypeArray, [Operand::IdRef(e), Operand::IdRef(n)])) => {
                (*e, Some(const_u32(*n).unwrap_or(u32::MAX)))
            }
            Some((Op::TypeRuntimeArray, [Operand::IdRef(e)])) => (*e, None),
            _ => (pointee, Some(1)),
        };
        match (len, b.count) {
            (Some(n), Some(c)) if n > c => {
                return Err(format!("variable %{var}: {n} descriptors at set {set} binding {binding}, which holds {c}"))
            }
            (None, Some(c)) => {
                return Err(format!(
                    "variable %{var}: a runtime array at set {set} binding {binding}, which holds a fixed {c}"
                ))
            }
            _ => {}
        }
        let elem_def = defs.get(&elem).ok_or_else(|| format!("variable %{var}: element type missing"))?;
        let found = match (storage, elem_def.class.opcode) {
            (StorageClass::Uniform, _) => DescriptorType::UniformBuffer,
            (StorageClass::StorageBuffer, _) => DescriptorType::StorageBuffer,
            (_, Op::TypeSampler) => DescriptorType::Sampler,
            (_, Op::TypeImage) => {
                let dim = elem_def.operands.get(1);
                let sampled = elem_def.operands.get(5);
                let buffer = matches!(dim, Some(Operand::Dim(Dim::DimBuffer)));
                let storage_image = matches!(sampled, Some(Operand::LiteralBit32(2)));
                match (buffer, storage_image) {
                    (true, true) => DescriptorType::StorageTexelBuffer,
                    (true, false) => DescriptorType::UniformTexelBuffer,
                    (false, true) => DescriptorType::StorageImage,
                    (false, false) => DescriptorType::SampledImage,
                }
            }
            (_, other) => return Err(format!("variable %{var}: unexpected descriptor type {other:?}")),
        };
        if found != b.descriptor_type {
            return Err(format!(
                "variable %{var} is a {found:?} at set {set} binding {binding}, which the layout declares {:?}",
                b.descriptor_type
            ));
        }
        if let (BindingSource::RootArgumentBuffer, Some(rab)) = (b.source, &layout.root_argument_buffer) {
            // The block's extent: each member's offset + stride × length (arrays; members
            // of other types are 16 bytes at most, which std140 rounds to a row).
            let st = defs.get(&elem).ok_or("root argument block type missing")?;
            let mut end = 0u32;
            for (k, op) in st.operands.iter().enumerate() {
                let Operand::IdRef(mty) = op else { continue };
                let off = offsets.get(&(elem, k as u32)).copied().ok_or("root argument member without Offset")?;
                let extent = match defs.get(mty).map(|t| (t.class.opcode, t.operands.as_slice())) {
                    Some((Op::TypeArray, [_, Operand::IdRef(n)])) => {
                        let stride = array_stride.get(mty).copied().ok_or("root argument array without ArrayStride")?;
                        stride.saturating_mul(const_u32(*n).unwrap_or(u32::MAX))
                    }
                    _ => 16,
                };
                end = end.max(off.saturating_add(extent));
            }
            if end > rab.size {
                return Err(format!(
                    "variable %{var}: the root argument block reaches byte {end}; the buffer holds {}",
                    rab.size
                ));
            }
        }
    }
    Ok(())
}
