//! `Location::Descriptor`: a layer that binds one descriptor where the shader declares an
//! array (vkd3d-proton answers an unbounded sampler array with the one static sampler at
//! its first register, after declining the whole range). Every register of the range then
//! names that descriptor: the variable is not an array and no access chain indexes it, so
//! a dynamic index past the one descriptor reads it (as native D3D12 drivers do, which
//! vkd3d-proton's `test_static_sampler_dynamic_index` checks) and never reads past the
//! binding. The same range placed with `Location::Binding` stays a runtime array indexed
//! by the handle's register.

use rspirv::spirv::Op;
use untangle::dxil::{ComponentType, ResourceClass, ResourceKind};
use untangle::emit::placement::{Location, PlaceQuery, Placement, PushLayout, ResourcePlace};
use untangle::Options;
use untangle_testkit::check::spirv_val::find_spirv_val;
use untangle_testkit::dxil_ops::shell::{Res, Shell};

/// Thread `tid` reads texel 0 of `tb[tid]` (an unbounded `Buffer<uint> tb[] : register(t0)`,
/// the handle's index dynamic) and stores it at `out[tid]`.
const BODY: &str = r#"  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %h = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 %tid, i1 true)
  %r = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %h, i32 0, i32 undef)
  %v = extractvalue %dx.types.ResRet.i32 %r, 0
  %o = shl i32 %tid, 2
  call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %out, i32 %o, i32 undef, i32 %v, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
  ret void"#;

const DECLS: &str = "declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32, %dx.types.Handle, i32, i32)
declare void @dx.op.rawBufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8, i32)";

fn shader() -> String {
    let mut shell = Shell::new("cs");
    shell.resources = vec![Res::new("tb", ResourceClass::Srv, ResourceKind::TypedBuffer, 0)
        .typed(ComponentType::U32)
        .count(u32::MAX)];
    shell.module(BODY, DECLS)
}

/// Places `out` at (0, 0) and the texel-buffer range at (0, 1) as `location`.
fn options(location: Location) -> Options {
    let place = Placement::new(PushLayout::default(), 0, move |q: &PlaceQuery<'_>| {
        let uav = q.resource.class == ResourceClass::Uav;
        Some(ResourcePlace {
            location: if uav { Location::Binding { set: 0, binding: 0 } } else { location },
            view: Default::default(),
            counter: None,
            offsets: None,
        })
    });
    Options { placement: Some(place), ..Default::default() }
}

fn translate(location: Location) -> Vec<u32> {
    let t = untangle::translate(shader().as_bytes(), &options(location)).expect("translates");
    if let Some(v) = find_spirv_val() {
        v.validate(&t.words, "vulkan1.3")
            .unwrap_or_else(|e| panic!("{e}\n{}", v.disassemble(&t.words).unwrap_or_default()));
    }
    t.words
}

/// Declarations of arrays of images (runtime or sized) and access chains into them.
fn image_arrays(words: &[u32]) -> (usize, usize) {
    let m = rspirv::dr::load_words(words).expect("loads");
    let images: Vec<u32> =
        m.types_global_values.iter().filter(|i| i.class.opcode == Op::TypeImage).filter_map(|i| i.result_id).collect();
    let arrays: Vec<u32> = m
        .types_global_values
        .iter()
        .filter(|i| matches!(i.class.opcode, Op::TypeRuntimeArray | Op::TypeArray))
        .filter(|i| i.operands.first().and_then(|o| o.id_ref_any()).is_some_and(|e| images.contains(&e)))
        .filter_map(|i| i.result_id)
        .collect();
    let pointers: Vec<u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypePointer)
        .filter(|i| i.operands.get(1).and_then(|o| o.id_ref_any()).is_some_and(|t| arrays.contains(&t)))
        .filter_map(|i| i.result_id)
        .collect();
    let variables: Vec<u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Variable && i.result_type.is_some_and(|t| pointers.contains(&t)))
        .filter_map(|i| i.result_id)
        .collect();
    let chains = m
        .functions
        .iter()
        .flat_map(|f| f.all_inst_iter())
        .filter(|i| matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain))
        .filter(|i| i.operands.first().and_then(|o| o.id_ref_any()).is_some_and(|b| variables.contains(&b)))
        .count();
    (variables.len(), chains)
}

#[test]
fn one_descriptor_serves_every_register_of_the_range() {
    let words = translate(Location::Descriptor { set: 0, binding: 1 });
    assert_eq!(image_arrays(&words), (0, 0), "one descriptor: a plain variable, never indexed");
}

#[test]
fn a_binding_keeps_the_range_an_array() {
    let words = translate(Location::Binding { set: 0, binding: 1 });
    assert_eq!(image_arrays(&words), (1, 1), "a runtime array indexed by the handle's register");
}
