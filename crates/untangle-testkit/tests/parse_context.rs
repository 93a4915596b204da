//! A caller-owned [`ParseContext`] (issue 32: the `BLOCKINFO` block every DXC module
//! carries, decoded once per batch instead of once per shader, without global state) only
//! saves work: over the shared vkd3d-proton corpus, twice in a row with one context, every
//! translation is word for word the one-shot [`untangle::translate`]'s (or the same
//! refusal), and the context is reused for most shaders.

use untangle::{translate, translate_in, Options, ParseContext, Shader};

#[test]
fn a_shared_context_changes_no_translation() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dxil/vkd3d-proton");
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("the shared corpus").flatten().map(|e| e.path()).collect();
    files.sort();
    let options = Options::default();
    let mut cx = ParseContext::new();
    let mut translated = 0;
    for pass in 0..2 {
        for path in &files {
            let bytes = std::fs::read(path).unwrap();
            let fresh = translate(&bytes, &options).map(|t| t.words).map_err(|e| e.to_string());
            let shared = translate_in(&mut cx, &bytes, &options).map(|t| t.words).map_err(|e| e.to_string());
            assert!(fresh == shared, "pass {pass}: {} differs with a shared context", path.display());
            let parsed = Shader::parse_for_translation_in(&mut cx, bytes, "corpus").map(|s| s.stage());
            assert_eq!(parsed.is_ok(), Shader::parse(&std::fs::read(path).unwrap()).is_ok(), "{}", path.display());
            translated += usize::from(fresh.is_ok());
        }
    }
    assert!(translated > 300, "only {translated} translations");
    // Two parses per file and pass; the first of all decodes, and so does each file whose
    // block is none of the last few distinct ones (`cursor::CACHED_BLOCKINFOS`).
    let parses = 4 * files.len() as u64;
    assert!(cx.blockinfo_reuses() * 2 > parses, "{} reuses in {parses} parses", cx.blockinfo_reuses());
}
