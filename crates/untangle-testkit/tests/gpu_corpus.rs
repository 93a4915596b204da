//! Corpus compute shaders with known answers on a real Vulkan driver (lavapipe in CI,
//! any device with `UNTANGLE_VK_DEVICE`): every case of `untangle_testkit::vulkan::corpus`
//! translated, dispatched with its inputs and compared with its CPU-derived expectation.
//! Cases whose features the device lacks are skipped (and reported); every other case
//! must pass. A perturbed expectation must be caught.
//!
//! Without a Vulkan loader or driver the tests print why and pass, unless
//! `UNTANGLE_REQUIRE_VULKAN=1`, when they fail.

use std::path::Path;
use std::time::{Duration, Instant};
use untangle_testkit::vulkan::corpus::{cases, compare, run_spec, DefaultPlacement, Outcome, Want};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/dxil/vkd3d-proton");
const TIMEOUT: Duration = Duration::from_secs(120);
/// Cases in the library; the test fails if one is dropped by accident.
const CASES: usize = 43;
/// Cases that must run and pass (lavapipe: 38; 5 need descriptor indexing).
const MIN_PASSED: usize = 30;

use untangle_testkit::vulkan::open_or_skip as gpu_or_skip;

#[test]
fn corpus_cases_pass() {
    let Some(mut gpu) = gpu_or_skip("corpus_cases_pass") else { return };
    let all = cases();
    assert_eq!(all.len(), CASES, "corpus case count");
    let start = Instant::now();
    let (mut passed, mut skipped, mut failed) = (0, Vec::new(), Vec::new());
    for case in &all {
        let r =
            untangle_testkit::vulkan::corpus::run_case(&mut gpu, case, Path::new(CORPUS), &DefaultPlacement, TIMEOUT);
        println!("{:40} {:>8.1?} {:?}", r.name, r.wall, r.outcome);
        match r.outcome {
            Outcome::Pass => passed += 1,
            Outcome::Skipped(why) => skipped.push(format!("{}: {why}", r.name)),
            Outcome::Fail(e) => failed.push(format!("{}: {e}", r.name)),
        }
    }
    println!("{passed} passed, {} skipped, {} failed in {:.1?}", skipped.len(), failed.len(), start.elapsed());
    assert!(failed.is_empty(), "failed cases:\n{}", failed.join("\n"));
    assert_eq!(passed + skipped.len(), CASES);
    assert!(passed >= MIN_PASSED, "only {passed} cases ran and passed; skipped:\n{}", skipped.join("\n"));
}

/// A wrong expected word and a perturbed input are both detected.
#[test]
fn corpus_mismatch_is_caught() {
    let Some(mut gpu) = gpu_or_skip("corpus_mismatch_is_caught") else {
        return;
    };
    let case = cases().into_iter().find(|c| c.name == "msad").expect("msad case");
    let bytes = std::fs::read(Path::new(CORPUS).join(case.file)).expect("corpus file");
    let features = gpu.info().features.clone();
    let spec = (case.spec)(&features);
    run_spec(&mut gpu, &bytes, &spec, &DefaultPlacement, TIMEOUT).expect("the unperturbed case passes");
    // A wrong expectation.
    let mut wrong = spec.clone();
    if let Some(Want::Eq(v)) = wrong.expect[0].1.get_mut(5) {
        *v ^= 1;
    }
    let err =
        run_spec(&mut gpu, &bytes, &wrong, &DefaultPlacement, TIMEOUT).expect_err("a wrong expectation must fail");
    assert!(err.contains("[5]"), "{err}");
    // A perturbed input (one byte of the reference of element 1).
    let mut perturbed = spec.clone();
    if let untangle_testkit::vulkan::corpus::Kind::Buffer(b) = &mut perturbed.resources[0].kind {
        b[16] ^= 0x40;
    }
    assert!(run_spec(&mut gpu, &bytes, &perturbed, &DefaultPlacement, TIMEOUT).is_err(), "a perturbed input must fail");
    // The comparison itself.
    assert!(compare(untangle_testkit::vulkan::corpus::u(0, 0), &[1, 0, 0, 0], &[Want::Eq(2)]).is_err());
}

/// A module for the runner's push constants and device-address buffers: push constants
/// `{ buffer_reference ptr (offset 0); uint value (offset 8) }`; `main` sets
/// `ptr.data[1] = value` and `ssbo.data[0] = ptr.data[0]`, `ssbo.data[1] = value`
/// (storage buffer at set 0, binding 0).
fn push_bda_module() -> Vec<u32> {
    use rspirv::binary::Assemble;
    use rspirv::dr::{Builder, Operand};
    use rspirv::spirv::{self, Decoration as D, StorageClass as SC};
    let mut b = Builder::new();
    b.set_version(1, 5);
    b.capability(spirv::Capability::Shader);
    b.capability(spirv::Capability::PhysicalStorageBufferAddresses);
    b.memory_model(spirv::AddressingModel::PhysicalStorageBuffer64, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let uint = b.type_int(32, 0);
    let rta = b.type_runtime_array(uint);
    b.decorate(rta, D::ArrayStride, [Operand::LiteralBit32(4)]);
    let blk = b.type_struct([rta]);
    b.decorate(blk, D::Block, []);
    b.member_decorate(blk, 0, D::Offset, [Operand::LiteralBit32(0)]);
    let p_psb_blk = b.type_pointer(None, SC::PhysicalStorageBuffer, blk);
    let p_psb_uint = b.type_pointer(None, SC::PhysicalStorageBuffer, uint);
    let pc = b.type_struct([p_psb_blk, uint]);
    b.decorate(pc, D::Block, []);
    b.member_decorate(pc, 0, D::Offset, [Operand::LiteralBit32(0)]);
    b.member_decorate(pc, 1, D::Offset, [Operand::LiteralBit32(8)]);
    let p_pc = b.type_pointer(None, SC::PushConstant, pc);
    let p_pc_ptr = b.type_pointer(None, SC::PushConstant, p_psb_blk);
    let p_pc_uint = b.type_pointer(None, SC::PushConstant, uint);
    let pc_var = b.variable(p_pc, None, SC::PushConstant, None);
    // A distinct struct type for the storage buffer (the block above is PSB-only).
    let rta2 = b.type_runtime_array(uint);
    b.decorate(rta2, D::ArrayStride, [Operand::LiteralBit32(4)]);
    let sblk = b.type_struct([rta2]);
    b.decorate(sblk, D::Block, []);
    b.member_decorate(sblk, 0, D::Offset, [Operand::LiteralBit32(0)]);
    let p_sb = b.type_pointer(None, SC::StorageBuffer, sblk);
    let p_sb_uint = b.type_pointer(None, SC::StorageBuffer, uint);
    let sb_var = b.variable(p_sb, None, SC::StorageBuffer, None);
    b.decorate(sb_var, D::DescriptorSet, [Operand::LiteralBit32(0)]);
    b.decorate(sb_var, D::Binding, [Operand::LiteralBit32(0)]);
    let c0 = b.constant_bit32(uint, 0);
    let c1 = b.constant_bit32(uint, 1);
    let fn_void = b.type_function(void, []);
    let build = |b: &mut Builder| -> Result<(), rspirv::dr::Error> {
        let f = b.begin_function(void, None, spirv::FunctionControl::NONE, fn_void)?;
        b.entry_point(spirv::ExecutionModel::GLCompute, f, "main", [pc_var, sb_var]);
        b.execution_mode(f, spirv::ExecutionMode::LocalSize, [1, 1, 1]);
        b.begin_block(None)?;
        let aligned = || Some(spirv::MemoryAccess::ALIGNED);
        let pp = b.access_chain(p_pc_ptr, None, pc_var, [c0])?;
        let ptr = b.load(p_psb_blk, None, pp, None, [])?;
        let pv = b.access_chain(p_pc_uint, None, pc_var, [c1])?;
        let value = b.load(uint, None, pv, None, [])?;
        let d1 = b.access_chain(p_psb_uint, None, ptr, [c0, c1])?;
        b.store(d1, value, aligned(), [Operand::LiteralBit32(4)])?;
        let d0 = b.access_chain(p_psb_uint, None, ptr, [c0, c0])?;
        let first = b.load(uint, None, d0, aligned(), [Operand::LiteralBit32(4)])?;
        let s0 = b.access_chain(p_sb_uint, None, sb_var, [c0, c0])?;
        b.store(s0, first, None, [])?;
        let s1 = b.access_chain(p_sb_uint, None, sb_var, [c0, c1])?;
        b.store(s1, value, None, [])?;
        b.ret()?;
        b.end_function()
    };
    build(&mut b).expect("module");
    b.module().assemble()
}

/// The runner's push constants and device-address buffers (the placements a root
/// signature needs), on a hand-built module.
#[test]
fn runner_push_constants_and_device_addresses() {
    use untangle_testkit::vulkan::{Binding, DeviceBuffer, Dispatch, Resource};
    let Some(mut gpu) = gpu_or_skip("runner_push_constants_and_device_addresses") else {
        return;
    };
    if !gpu.info().features.buffer_device_address {
        println!("skipped: no bufferDeviceAddress");
        return;
    }
    let words = push_bda_module();
    let mut push = vec![0u8; 8];
    push.extend(0xC0FF_EE01u32.to_le_bytes());
    let d = Dispatch {
        spirv: &words,
        entry: "main",
        bindings: vec![Binding::new(0, 0, Resource::words(&[7, 7]))],
        push_constants: push,
        device_buffers: vec![DeviceBuffer {
            bytes: [0x1234_5678u32, 9].iter().flat_map(|w| w.to_le_bytes()).collect(),
            address: untangle_testkit::vulkan::AddressSlot::Push(0),
        }],
        groups: [1, 1, 1],
        timeout: TIMEOUT,
        ..Default::default()
    };
    let r = gpu.dispatch(&d).expect("dispatch");
    assert_eq!(r.words(0), Some(vec![0x1234_5678, 0xC0FF_EE01]));
    let dev: Vec<u32> =
        r.device_buffers[0].chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(dev, vec![0x1234_5678, 0xC0FF_EE01]);
}

/// The same cases bound through generated root signatures (`rootsig_gen`: tables, root
/// parameters, mixed spaces with offsets, near the 64-DWORD limit), under push-constant
/// budgets of 128 and 256 bytes, every binding and root argument taken from the
/// translation's layout report (`vulkan::root_placement`; under 128 bytes the near-limit
/// signatures read spilled root arguments from the root argument buffer). `direct` runs
/// wherever the default model does; `heap` needs buffer device addresses, and descriptor
/// indexing for its heap arrays: without it (lavapipe) only the cases whose layout has no
/// runtime array run (signatures of root parameters only: addresses and root constants,
/// spilled or not), the rest are skipped; the NVIDIA device runs them all (`untangle-gpu
/// corpus-shaders --root-signatures`).
#[test]
fn corpus_cases_pass_under_root_signatures() {
    use untangle::rootsig::layout::{BindingModel, LayoutOptions, RootDescriptors};
    use untangle_testkit::rootsig_gen::Variant;
    use untangle_testkit::vulkan::root_placement::RootSignaturePlacement;
    let Some(mut gpu) = gpu_or_skip("corpus_cases_pass_under_root_signatures") else { return };
    let features = gpu.info().features.clone();
    let all = cases();
    let mut failed = Vec::new();
    let mut direct_passed = 0;
    let mut heap_spilled_passed = 0;
    for model in [BindingModel::Direct, BindingModel::Heap] {
        if model == BindingModel::Heap && !features.buffer_device_address {
            println!("heap model: skipped (the device lacks buffer device addresses)");
            continue;
        }
        for variant in Variant::ALL {
            for max_push_constant_bytes in [128, 256] {
                let layout =
                    LayoutOptions { model, root_descriptors: RootDescriptors::Address, max_push_constant_bytes };
                let placement = RootSignaturePlacement { variant, layout };
                let what = format!("{} / {model:?} / {max_push_constant_bytes}", variant.name());
                let (mut passed, mut skipped) = (0, 0);
                for case in &all {
                    let tr = translated(&placement, case);
                    if model == BindingModel::Heap && !features.descriptor_indexing && runtime_arrays(&tr) {
                        skipped += 1;
                        continue;
                    }
                    let spills = tr
                        .as_ref()
                        .is_some_and(|t| t.layout.as_ref().is_some_and(|l| l.layout.root_argument_buffer.is_some()));
                    eprintln!("running {} [{what}]", case.name);
                    let r = untangle_testkit::vulkan::corpus::run_case(
                        &mut gpu,
                        case,
                        Path::new(CORPUS),
                        &placement,
                        TIMEOUT,
                    );
                    match r.outcome {
                        Outcome::Pass => {
                            passed += 1;
                            heap_spilled_passed += usize::from(model == BindingModel::Heap && spills);
                        }
                        Outcome::Skipped(_) => skipped += 1,
                        Outcome::Fail(e) => failed.push(format!("{} [{what}]: {e}", r.name)),
                    }
                }
                println!("{what}: {passed} passed, {skipped} skipped");
                if model == BindingModel::Direct {
                    direct_passed += passed;
                }
            }
        }
    }
    assert!(failed.is_empty(), "failed:\n{}", failed.join("\n"));
    let runs = Variant::ALL.len() * 2;
    assert!(direct_passed >= runs * MIN_PASSED, "only {direct_passed} direct-model runs passed");
    if features.buffer_device_address {
        println!("heap runs reading a root argument buffer: {heap_spilled_passed} passed");
        assert!(heap_spilled_passed >= 2, "spilled heap-model root arguments ran in only {heap_spilled_passed} cases");
    }
}

/// The translation a placement makes of `case` (`None` if it fails: `run_case` reports it).
fn translated(
    placement: &dyn untangle_testkit::vulkan::corpus::Placement,
    case: &untangle_testkit::vulkan::corpus::Case,
) -> Option<untangle::emit::Translation> {
    let bytes = std::fs::read(Path::new(CORPUS).join(case.file)).ok()?;
    untangle::translate(&bytes, &placement.options(&bytes).ok()?).ok()
}

/// Whether the layout has a runtime array (which needs descriptor indexing to bind).
fn runtime_arrays(tr: &Option<untangle::emit::Translation>) -> bool {
    let layout = tr.as_ref().and_then(|t| t.layout.as_ref());
    layout.is_none_or(|l| l.layout.sets.iter().flat_map(|s| &s.bindings).any(|b| b.count.is_none()))
}

/// [`RootSignaturePlacement`] reading a corrupted layout report: every spilled root
/// constant's place one word further into the root argument buffer than the report says.
struct MisplacedSpills(untangle_testkit::vulkan::root_placement::RootSignaturePlacement);

fn misplace_spills(tr: &untangle::emit::Translation) -> untangle::emit::Translation {
    use untangle::rootsig::layout::ArgStore;
    use untangle::rootsig::resolve::Place;
    let mut bad = tr.clone();
    for r in bad.layout.iter_mut().flat_map(|l| l.resources.iter_mut()) {
        if let Place::RootConstants { store: ArgStore::RootArgumentBuffer, offset, .. } = &mut r.place {
            *offset += 4;
        }
    }
    bad
}

impl untangle_testkit::vulkan::corpus::Placement for MisplacedSpills {
    fn options(&self, shader: &[u8]) -> Result<untangle::emit::Options, String> {
        self.0.options(shader)
    }
    fn base_push_constants(&self, tr: &untangle::emit::Translation) -> Vec<u8> {
        self.0.base_push_constants(tr)
    }
    fn root_argument_buffer(
        &self,
        tr: &untangle::emit::Translation,
    ) -> Option<untangle_testkit::vulkan::corpus::RootArgumentBytes> {
        self.0.root_argument_buffer(tr)
    }
    fn place(
        &self,
        tr: &untangle::emit::Translation,
        res: &untangle_testkit::vulkan::corpus::CaseResource,
    ) -> Result<untangle_testkit::vulkan::corpus::Placed, String> {
        self.0.place(&misplace_spills(tr), res)
    }
    fn min_counts(&self, tr: &untangle::emit::Translation) -> Vec<(u32, u32, u32)> {
        self.0.min_counts(tr)
    }
}

/// Spilled root arguments are read where the report says, and only there: the cases that
/// read a spilled root constant pass when bound from the report and fail when bound one
/// word off (`direct` near the 64-DWORD limit under 128 bytes).
#[test]
fn misplaced_spilled_root_arguments_are_caught() {
    use untangle::rootsig::layout::{ArgStore, BindingModel, LayoutOptions};
    use untangle::rootsig::resolve::Place;
    use untangle_testkit::rootsig_gen::Variant;
    use untangle_testkit::vulkan::corpus::{run_case, Placement};
    use untangle_testkit::vulkan::root_placement::RootSignaturePlacement;
    let Some(mut gpu) = gpu_or_skip("misplaced_spilled_root_arguments_are_caught") else { return };
    let layout = LayoutOptions { model: BindingModel::Direct, ..LayoutOptions::default() };
    let placement = RootSignaturePlacement { variant: Variant::NearLimit, layout };
    let (mut checked, mut missed) = (Vec::new(), Vec::new());
    for case in &cases() {
        if case.needs.missing(&gpu.info().features).is_some() {
            continue;
        }
        let bytes = std::fs::read(Path::new(CORPUS).join(case.file)).expect("corpus file");
        let options = placement.options(&bytes).expect("options");
        let tr = untangle::translate(&bytes, &options).expect("translation");
        let spilled_constants = tr.layout.as_ref().is_some_and(|l| {
            l.resources
                .iter()
                .any(|r| matches!(r.place, Place::RootConstants { store: ArgStore::RootArgumentBuffer, .. }))
        });
        if !spilled_constants {
            continue;
        }
        let good = run_case(&mut gpu, case, Path::new(CORPUS), &placement, TIMEOUT);
        assert!(matches!(good.outcome, Outcome::Pass), "{}: {:?}", case.name, good.outcome);
        let bad = run_case(&mut gpu, case, Path::new(CORPUS), &MisplacedSpills(placement), TIMEOUT);
        println!("{}: misplaced spills: {:?}", case.name, bad.outcome);
        match bad.outcome {
            Outcome::Fail(_) => checked.push(case.name),
            _ => missed.push(case.name),
        }
    }
    assert!(missed.is_empty(), "misplaced spilled root constants went unnoticed in {missed:?}");
    assert!(checked.len() >= 2, "only {checked:?} read spilled root constants");
}
