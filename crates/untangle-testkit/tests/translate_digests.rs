//! Every translation's exact words, as a digest per input: the shared corpora
//! (`../shared/corpus/dxil/*`, `../shared/corpus/ll/dxc-tests`) and the repo's `corpus/*.ll`,
//! each with default options (every stage that translates: cs, ps, vs, and since main's
//! graphics-stage work hs, ds and gs); and the vkd3d-proton shaders that translate, also under two of
//! `rootsig_gen`'s generated root signatures (root parameters; near the 64-DWORD limit,
//! which spills to the root argument buffer) lowered under both binding models.
//!
//! One line per input and option set: `name options digest` where digest is FNV-1a 64 over
//! the module's words with its length, or `error` for an input that is refused. A change
//! to emission shows up here as the list of inputs whose modules changed, even where the
//! validator still accepts them; refactors of the SPIR-V writing layer keep the snapshot
//! byte for byte. Review with `cargo insta review` after a deliberate change, and check
//! the changed modules with spirv-val (tests/translate_corpus.rs does for the corpus).
//! `untangle::translate`, which reads bitcode in the file's numbering, must give the same
//! words as `Shader::translate` on the canonically numbered module.

use std::path::{Path, PathBuf};
use untangle::rootsig::layout::{BindingModel, LayoutOptions, RootDescriptors};
use untangle::{Options, RootSignatureBinding, Shader};
use untangle_testkit::rootsig_gen::{covering, shader_facts, Variant};

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");
const REPO_CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus");

/// FNV-1a, 64 bits, over the little-endian bytes of the word count and the words.
fn digest(words: &[u32]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let len = words.len() as u64;
    for byte in len.to_le_bytes().into_iter().chain(words.iter().flat_map(|w| w.to_le_bytes())) {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(d) => d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == ext)).collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

#[test]
fn translation_digests() {
    let shared = Path::new(SHARED);
    let mut inputs: Vec<(String, PathBuf)> = Vec::new();
    for (group, dir, ext) in [
        ("vkd3d-proton", shared.join("dxil/vkd3d-proton"), "dxil"),
        ("dxil-spirv-asm", shared.join("dxil/dxil-spirv-asm"), "dxil"),
        ("dxc-tests", shared.join("ll/dxc-tests"), "ll"),
        ("repo", PathBuf::from(REPO_CORPUS), "ll"),
    ] {
        let found = files(&dir, ext);
        if found.is_empty() {
            assert!(std::env::var_os("CI").is_none(), "{} is missing under CI", dir.display());
            eprintln!("{} not found: skipping", dir.display());
            return;
        }
        for p in found {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            inputs.push((format!("{group}/{name}"), p));
        }
    }
    let models = [
        (
            "heap",
            LayoutOptions {
                model: BindingModel::Heap,
                root_descriptors: RootDescriptors::Address,
                ..Default::default()
            },
        ),
        (
            "direct",
            LayoutOptions {
                model: BindingModel::Direct,
                root_descriptors: RootDescriptors::Descriptor,
                ..Default::default()
            },
        ),
    ];
    let mut lines = Vec::new();
    let (mut translated, mut refused) = (0, 0);
    let mut line = |name: &str, options: &str, r: &untangle::Result<untangle::Translation>| match r {
        Ok(t) => {
            translated += 1;
            format!("{name} {options} {:016x}", digest(&t.words))
        }
        Err(_) => {
            refused += 1;
            format!("{name} {options} error")
        }
    };
    for (name, path) in &inputs {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let shader = match Shader::parse_named(bytes.clone(), name) {
            Ok(s) => s,
            Err(_) => {
                lines.push(format!("{name} - unreadable"));
                continue;
            }
        };
        let plain = shader.translate(&Options::default());
        // Same input, same words.
        if let Ok(t) = &plain {
            let again = shader.translate(&Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(t.words, again.words, "{name}: output is not deterministic");
        }
        // `untangle::translate` reads bitcode without the canonical renumbering of types
        // and constants (`bitcode::parse_for_translation`): the same words, or a refusal.
        let direct = untangle::translate(&bytes, &Options::default());
        assert_eq!(
            plain.as_ref().map(|t| &t.words).ok(),
            direct.as_ref().map(|t| &t.words).ok(),
            "{name}: translate() differs from Shader::translate()"
        );
        lines.push(line(name, "default", &plain));
        if plain.is_err() || !name.starts_with("vkd3d-proton/") {
            continue;
        }
        let Some(ep) = shader.entry_point() else { continue };
        let facts = shader_facts(shader.module());
        for variant in [Variant::RootParameters, Variant::NearLimit] {
            let signature = covering(&ep.resources, shader.stage(), variant, &facts);
            for (model, layout) in models {
                let options = Options {
                    root_signature: Some(RootSignatureBinding { signature: signature.clone(), layout }),
                    ..Options::default()
                };
                lines.push(line(name, &format!("{}/{model}", variant.name()), &shader.translate(&options)));
            }
        }
    }
    eprintln!("{} inputs: {translated} modules, {refused} refusals", inputs.len());
    // The corpora translate at least this many modules today (1,192: hull, domain, geometry,
    // mesh and amplification shaders in, the 25 AGS compute shaders' 125 modules out as
    // typed errors); a digest list of refusals alone would prove nothing.
    assert!(translated >= 1190, "only {translated} modules translated");
    insta::assert_snapshot!("translation_digests", lines.join("\n"));
}
