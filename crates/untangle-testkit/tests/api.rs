//! The library's public API as a layer uses it: parse once, reflect, translate with remapping
//! callbacks; every module produced goes through spirv-val.

use std::sync::{Arc, Mutex};
use untangle::{IoLocation, IoRemap, Options, ResourceRemap, Shader, ShaderKind, VkBinding};
use untangle_testkit::check::spirv_val::find_spirv_val;

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../../corpus/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn validate(words: &[u32]) {
    if let Some(v) = find_spirv_val() {
        if let Err(e) = v.validate(words, "vulkan1.3") {
            panic!("spirv-val: {e}\n{}", v.disassemble(words).unwrap_or_default());
        }
    }
}

/// Every (set, binding) and (location, component) decoration of a module, by variable name.
fn decorations(words: &[u32]) -> Vec<(String, &'static str, u32)> {
    use rspirv::dr::Operand;
    use rspirv::spirv::Decoration;
    let m = rspirv::dr::load_words(words).unwrap();
    let name_of = |id: u32| {
        m.debug_names
            .iter()
            .find(|n| n.operands.first() == Some(&Operand::IdRef(id)))
            .and_then(|n| match n.operands.get(1) {
                Some(Operand::LiteralString(s)) => Some(s.clone()),
                _ => None,
            })
            .unwrap_or_else(|| format!("%{id}"))
    };
    let mut out = Vec::new();
    for d in &m.annotations {
        let (Some(Operand::IdRef(target)), Some(Operand::Decoration(dec)), Some(Operand::LiteralBit32(v))) =
            (d.operands.first(), d.operands.get(1), d.operands.get(2))
        else {
            continue;
        };
        let kind = match dec {
            Decoration::DescriptorSet => "set",
            Decoration::Binding => "binding",
            Decoration::Location => "location",
            Decoration::Component => "component",
            _ => continue,
        };
        out.push((name_of(*target), kind, *v));
    }
    out.sort();
    out
}

#[test]
fn parse_reflect_and_translate() {
    let shader = Shader::parse(&sample("ps_textured.ll")).unwrap();
    assert_eq!(shader.stage(), ShaderKind::Pixel);
    assert_eq!(shader.shader_model().profile, "ps");
    assert_eq!(shader.entry_point().unwrap().name, "main");
    let regs: Vec<String> = shader.resources().iter().map(|r| r.register()).collect();
    assert_eq!(regs, ["t0, space0", "s0, space0"]);
    let sig = shader.signatures().unwrap();
    assert_eq!(sig.inputs.iter().map(|e| e.semantic.as_str()).collect::<Vec<_>>(), ["SV_Position", "TEXCOORD"]);
    assert_eq!(sig.outputs[0].semantic, "SV_Target");
    assert!(shader.embedded_root_signature().unwrap().is_none());
    let t = shader.translate(&Options::default()).unwrap();
    validate(&t.words);
    // Translating again, or through the one-call form, gives the same words.
    assert_eq!(shader.translate(&Options::default()).unwrap().words, t.words);
    assert_eq!(untangle::translate(&sample("ps_textured.ll"), &Options::default()).unwrap().words, t.words);
}

#[test]
fn a_non_dxil_module_is_a_typed_error() {
    let text = b"define void @f() {\nentry:\n  ret void\n}\n";
    match Shader::parse(text) {
        Err(untangle::Error::Translate(untangle::TranslateError::NotAShader(_))) => {}
        other => panic!("expected NotAShader, got {other:?}"),
    }
}

#[test]
fn resource_remap_places_ranges_and_is_asked_in_order() {
    let shader = Shader::parse(&sample("ps_textured.ll")).unwrap();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    let remap = ResourceRemap::new(move |q| {
        log.lock().unwrap().push((q.stage, q.resource.register(), q.counter));
        // Move the texture; leave the sampler to the default rule.
        (q.resource.name == "tex").then_some(VkBinding { set: 2, binding: 9 })
    });
    let t = shader.translate(&Options { resource_remap: Some(remap), ..Default::default() }).unwrap();
    validate(&t.words);
    let d = decorations(&t.words);
    let of = |name: &str, kind: &str| d.iter().find(|(n, k, _)| n.contains(name) && *k == kind).map(|x| x.2);
    assert_eq!((of("tex", "set"), of("tex", "binding")), (Some(2), Some(9)));
    assert_eq!((of("smp", "set"), of("smp", "binding")), (Some(0), Some(3000)));
    // The bindings report says the same.
    let tex = t.bindings.iter().find(|r| r.name == "tex").unwrap();
    assert_eq!((tex.set, tex.binding), (2, 9));
    let asked = asked.lock().unwrap().clone();
    assert!(asked.contains(&(ShaderKind::Pixel, "t0, space0".to_string(), false)), "{asked:?}");
    assert!(asked.iter().all(|(_, _, counter)| !counter), "no UAV, so no counter question: {asked:?}");
}

#[test]
fn io_remap_places_varyings_and_refuses_impossible_components() {
    let shader = Shader::parse(&sample("ps_textured.ll")).unwrap();
    let remap = IoRemap::new(|q| match (q.output, q.element.semantic.as_str()) {
        (false, "TEXCOORD") => Some(IoLocation { location: 5, component: 2 }),
        (true, "SV_Target") => Some(IoLocation { location: 1, component: 0 }),
        _ => None,
    });
    let t = shader.translate(&Options { io_remap: Some(remap), ..Default::default() }).unwrap();
    validate(&t.words);
    let d = decorations(&t.words);
    assert!(d.contains(&("in.TEXCOORD0".into(), "location", 5)), "{d:?}");
    assert!(d.contains(&("in.TEXCOORD0".into(), "component", 2)), "{d:?}");
    assert!(d.contains(&("out.SV_Target0".into(), "location", 1)), "{d:?}");
    // A float2 cannot start at component 3: the callback's mistake, not malformed DXIL.
    let bad = IoRemap::new(|q| (q.element.semantic == "TEXCOORD").then_some(IoLocation { location: 0, component: 3 }));
    match shader.translate(&Options { io_remap: Some(bad), ..Default::default() }) {
        Err(untangle::Error::Translate(untangle::TranslateError::Remap { callback, message })) => {
            assert_eq!(callback, "I/O remapping callback");
            assert!(message.contains("TEXCOORD") && message.contains("component 3"), "{message}")
        }
        other => panic!("expected a typed error, got {other:?}"),
    }
}

#[test]
fn io_remap_refuses_two_elements_on_one_component_naming_both() {
    let shader = Shader::parse(&sample("pipeline/vs.ll")).unwrap();
    let same = IoRemap::new(|q| (!q.output).then_some(IoLocation { location: 3, component: 0 }));
    match shader.translate(&Options { io_remap: Some(same), ..Default::default() }) {
        Err(untangle::Error::Translate(untangle::TranslateError::Remap { message, .. })) => assert_eq!(
            message, "places input NORMAL0 and input POSITION0 both at location 3, component 0",
            "the element placed second, then the owner of the component"
        ),
        other => panic!("expected a typed error, got {other:?}"),
    }
}

#[test]
fn shaders_translate_from_several_threads_alike() {
    let shader = Shader::parse(&sample("cs_groupshared_reduce.ll")).unwrap();
    let one = shader.translate(&Options::default()).unwrap().words;
    std::thread::scope(|s| {
        let handles: Vec<_> =
            (0..4).map(|_| s.spawn(|| shader.translate(&Options::default()).unwrap().words)).collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), one);
        }
    });
}
