//! The library's module graph: no import circles, and no import from a lower layer back up.
//!
//! Every source file of `src/` is parsed (with `syn`) and each module's references to other
//! modules of the crate are collected: `use` declarations (re-exports included) and every
//! path in the code that starts with `crate`, `super`, `self` or the name of a child module.
//! A reference lands on the deepest module its path names (`crate::emit::writer::Writer`
//! → `emit::writer`). `#[cfg(test)]` items are left out. This is the same graph of "uses"
//! edges between modules that `cargo modules dependencies --no-fns --no-types --no-traits
//! --no-owns` draws; cargo-modules' own `--acyclic` cannot serve as the check because it
//! works on items, where a type and its own methods always form a cycle.
//!
//! Three rules:
//! 1. **Acyclic**: no strongly connected component of more than one module. A parent that
//!    re-exports a child's items while the child imports the parent's counts as a circle.
//! 2. **Layers**: each top-level module belongs to a layer (see [`LAYERS`]); a module may
//!    use modules of its own layer or lower ones only.
//! 3. **A blind structurizer**: `ir`, `cfg` and `passes` reach nothing but each other (no
//!    DXIL, no front end, no SPIR-V).
//!
//! Cost: one parse of the crate's ~50k lines, well under a second in release builds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The layers, lowest first. A top-level module not listed here fails the test, so a new
/// module must be placed on purpose.
const LAYERS: &[&[&str]] = &[
    // Our SSA IR: depends on nothing of ours.
    &["ir"],
    // Inputs into the IR: containers, bitcode, LLVM text, LLVM (feature `llvm`), detection.
    &["front"],
    // What the IR means as DXIL.
    &["dxil"],
    // One CFG representation and its analyses.
    &["cfg"],
    // DXIL-aware IR rewrites before structurizing; the structurizer and PHI repair.
    &["rewrite", "passes"],
    // Root signatures and their lowering onto Vulkan pipeline layouts.
    &["rootsig"],
    // SPIR-V.
    &["emit"],
    // The public API: the shader handle, the crate's error, reflection reports, the root.
    &["shader", "error", "info", ""],
];

fn layer_of(module: &str) -> Option<usize> {
    let top = module.split("::").next().unwrap_or("");
    LAYERS.iter().position(|l| l.contains(&top))
}

/// The module path of a source file (`emit/dxop/mod.rs` → `emit::dxop`; `lib.rs` → ``).
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts.join("::")
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("read src").map(|e| e.expect("dir entry").path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.require_list().is_ok_and(|l| l.tokens.to_string().contains("test")))
}

/// Collects the module paths a file refers to, as raw segment lists.
struct Refs {
    paths: Vec<Vec<String>>,
}

impl Refs {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                if n.ident != "self" {
                    full.push(n.ident.to_string());
                }
                self.paths.push(full);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                self.paths.push(full);
            }
            syn::UseTree::Glob(_) => self.paths.push(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Refs {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Enum(e) => &e.attrs,
            _ => &[],
        };
        if is_cfg_test(attrs) {
            return;
        }
        if let syn::Item::Use(u) = item {
            self.use_tree(&mut Vec::new(), &u.tree);
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        if let syn::ImplItem::Fn(f) = item {
            if is_cfg_test(&f.attrs) {
                return;
            }
        }
        syn::visit::visit_impl_item(self, item);
    }

    fn visit_vis_restricted(&mut self, _: &'ast syn::VisRestricted) {
        // `pub(in crate::front)` names a scope, not something used.
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() && path.segments.len() > 1 {
            self.paths.push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // Paths inside macro invocations (`format!("{}", crate::x::y())`) are tokens, not
        // syntax: pick out `a::b::c` runs by hand, groups included.
        fn walk(tokens: proc_macro2::TokenStream, paths: &mut Vec<Vec<String>>) {
            let mut run: Vec<String> = Vec::new();
            let mut colons = 0;
            for tt in tokens {
                match tt {
                    proc_macro2::TokenTree::Ident(i) => {
                        if colons < 2 && run.len() > 1 {
                            paths.push(std::mem::take(&mut run));
                        }
                        if colons < 2 {
                            run.clear();
                        }
                        run.push(i.to_string());
                        colons = 0;
                    }
                    proc_macro2::TokenTree::Punct(p) if p.as_char() == ':' => colons += 1,
                    other => {
                        if run.len() > 1 {
                            paths.push(std::mem::take(&mut run));
                        }
                        run.clear();
                        colons = 0;
                        if let proc_macro2::TokenTree::Group(g) = other {
                            walk(g.stream(), paths);
                        }
                    }
                }
            }
            if run.len() > 1 {
                paths.push(run);
            }
        }
        walk(mac.tokens.clone(), &mut self.paths);
        syn::visit::visit_macro(self, mac);
    }
}

/// The deepest module of the crate that `path`, written in `module`, names; `None` for
/// paths that leave the crate (other crates, the standard library) or name nothing of ours.
fn resolve(modules: &BTreeSet<String>, module: &str, path: &[String]) -> Option<String> {
    let mut cur: Vec<&str> = if module.is_empty() { Vec::new() } else { module.split("::").collect() };
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            cur.clear();
            rest = &path[1..];
        }
        Some("super") | Some("self") => {
            while let Some(s) = rest.first().map(String::as_str) {
                match s {
                    "super" => {
                        cur.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        Some(first) => {
            // A child module of `module`, named without `self::` (edition 2018).
            let child = if module.is_empty() { first.to_string() } else { format!("{module}::{first}") };
            if !modules.contains(&child) {
                return None;
            }
        }
        None => return None,
    }
    let mut best: String = cur.join("::");
    let mut probe: Vec<&str> = cur.clone();
    for seg in rest {
        probe.push(seg);
        let name = probe.join("::");
        if modules.contains(&name) {
            best = name;
        } else {
            break;
        }
    }
    Some(best)
}

/// Tarjan's strongly connected components with more than one member.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'e> {
        edges: &'e BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'e str, usize>,
        low: BTreeMap<&'e str, usize>,
        stack: Vec<&'e str>,
        on_stack: BTreeSet<&'e str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'e>(s: &mut State<'e>, v: &'e str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(ws) = s.edges.get(v) {
            for w in ws {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(lw));
                } else if s.on_stack.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(iw));
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().expect("tarjan stack");
                s.on_stack.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v.as_str());
        }
    }
    s.out
}

fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(f.strip_prefix(&src).expect("under src"))).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let module = module_of(f.strip_prefix(&src).expect("under src"));
        let text = std::fs::read_to_string(f).expect("read source");
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let mut refs = Refs { paths: Vec::new() };
        refs.visit_file(&file);
        let out = edges.entry(module.clone()).or_default();
        for p in &refs.paths {
            if let Some(target) = resolve(&modules, &module, p) {
                if target != module {
                    out.insert(target);
                }
            }
        }
    }
    edges
}

#[test]
fn module_graph_is_acyclic() {
    let edges = module_graph();
    let found = cycles(&edges);
    let text: Vec<String> = found.iter().map(|c| format!("  {} modules: {}", c.len(), c.join(", "))).collect();
    assert!(found.is_empty(), "import circles in the library's module graph:\n{}", text.join("\n"));
}

#[test]
fn modules_import_only_their_layer_or_lower() {
    let edges = module_graph();
    let mut bad = Vec::new();
    for (from, tos) in &edges {
        let Some(lf) = layer_of(from) else {
            bad.push(format!("  `{from}` belongs to no layer (add it to LAYERS)"));
            continue;
        };
        for to in tos {
            match layer_of(to) {
                Some(lt) if lt <= lf => {}
                Some(_) => bad.push(format!("  `{from}` imports `{to}`, a higher layer")),
                None => bad.push(format!("  `{to}` belongs to no layer (add it to LAYERS)")),
            }
        }
    }
    bad.sort();
    bad.dedup();
    assert!(bad.is_empty(), "layering violations:\n{}", bad.join("\n"));
}

/// The structurizer and the CFG analyses know no DXIL and no SPIR-V: `cfg` may use only
/// `ir`, and `passes` only `ir` and `cfg` (besides themselves). That is what lets csmith
/// CFGs, random CFGs and shaders share one structurizer, and it is stricter than the layers
/// (which would let `cfg` read `dxil`).
#[test]
fn structurizer_knows_no_dxil_and_no_spirv() {
    const ALLOWED: &[(&str, &[&str])] =
        &[("ir", &["ir"]), ("cfg", &["ir", "cfg"]), ("passes", &["ir", "cfg", "passes"])];
    let top = |m: &str| m.split("::").next().unwrap_or("").to_string();
    let mut bad = Vec::new();
    for (from, tos) in module_graph() {
        let Some((_, allowed)) = ALLOWED.iter().find(|(m, _)| *m == top(&from)) else { continue };
        for to in tos {
            if !allowed.contains(&top(&to).as_str()) {
                bad.push(format!("  `{from}` imports `{to}`"));
            }
        }
    }
    assert!(bad.is_empty(), "the structurizer's layers reach outside ir/cfg/passes:\n{}", bad.join("\n"));
}

/// The checker itself: a planted circle and a planted upward import are found.
#[test]
fn checker_finds_planted_cycle() {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    edges.entry("a".into()).or_default().insert("b".into());
    edges.entry("b".into()).or_default().insert("c".into());
    edges.entry("c".into()).or_default().insert("a".into());
    edges.entry("d".into()).or_default().insert("a".into());
    assert_eq!(cycles(&edges), vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]);
    let modules: BTreeSet<String> =
        ["emit", "emit::dxop", "emit::writer", "ir"].iter().map(|s| s.to_string()).collect();
    let p = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    assert_eq!(resolve(&modules, "emit::dxop", &p("super::writer::Writer")), Some("emit::writer".into()));
    assert_eq!(resolve(&modules, "emit::dxop", &p("super::FnEmit")), Some("emit".into()));
    assert_eq!(resolve(&modules, "emit", &p("dxop::emit")), Some("emit::dxop".into()));
    assert_eq!(resolve(&modules, "emit", &p("crate::ir::Type")), Some("ir".into()));
    assert_eq!(resolve(&modules, "emit", &p("std::mem::take")), None);
    assert!(layer_of("ir") < layer_of("emit::dxop"));
}
