//! `include/dxil_spirv_c.h` against the archive's own header (vkd3d-proton 0e65f3f3's
//! dxil-spirv 31ecc706, read from `../shared/vkd3d-proton/vkd3d-proton-src.tar.xz` at test
//! time, never copied here), and against this crate's Rust definitions (`src/ffi.rs`).
//!
//! 1. Both headers, preprocessed with both experimental switches on, declare the same
//!    names: functions, typedefs, enumerators, structure members, macros.
//! 2. One C++ translation unit includes the archive's header in `namespace arch` (its
//!    functions renamed, so the two sets of C declarations do not collide) and ours in
//!    `namespace ours`, and static-asserts for every name: enumerator values; enumeration
//!    sizes and underlying types; structure sizes, alignments and member offsets; function
//!    and callback signatures, parameter by parameter (types compared by name, size,
//!    constness and indirection); macro values.
//! 3. A C translation unit static-asserts the Rust layouts and enumerator values against
//!    our header; the Rust tables name every member and enumerator of the archive's header;
//!    the shared library exports every function the archive's header declares.
//! 4. Our header compiles as C11 and C++11 with and without the experimental switches,
//!    with every warning an error.

mod common;

use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use untangle_dxil_spirv::ffi;

const SWITCHES: [&str; 2] = ["-DDXIL_SPV_ENABLE_EXPERIMENTAL_WORKGRAPHS", "-DDXIL_SPV_ENABLE_EXPERIMENTAL_MULTIVIEW"];

fn our_header() -> std::path::PathBuf {
    Path::new(MANIFEST).join("include/dxil_spirv_c.h")
}

/// What a header declares (after preprocessing with both switches).
#[derive(Debug, Default)]
struct Decls {
    functions: BTreeSet<String>,
    /// Typedef names, with the kind of type (`struct`, `union`, `enum`, `fnptr`, `other`).
    typedefs: BTreeMap<String, &'static str>,
    /// Enumeration (typedef or tag name) → enumerators.
    enums: BTreeMap<String, Vec<String>>,
    /// Structure typedef → member designators (`bindless.use_heap` for nested members).
    structs: BTreeMap<String, BTreeSet<String>>,
    macros: BTreeSet<String>,
}

fn tokens(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(text[s..i].to_string());
        } else if c == b'"' {
            let s = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += 1;
            }
            i += 1;
            out.push(text[s..i.min(b.len())].to_string());
        } else {
            out.push((c as char).to_string());
            i += 1;
        }
    }
    out
}

fn is_ident(t: &str) -> bool {
    t.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

/// Splits `toks` at `sep` at brace/paren depth 0.
fn split(toks: &[String], sep: &str) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new()];
    let mut depth = 0i32;
    for t in toks {
        match t.as_str() {
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => depth -= 1,
            _ => {}
        }
        if depth == 0 && t == sep {
            out.push(Vec::new());
        } else {
            out.last_mut().unwrap().push(t.clone());
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// The tokens between the first `{` and its match, and what follows the match.
fn body(toks: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let open = toks.iter().position(|t| t == "{")?;
    let mut depth = 0;
    for (i, t) in toks.iter().enumerate().skip(open) {
        match t.as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return Some((toks[open + 1..i].to_vec(), toks[i + 1..].to_vec()));
                }
            }
            _ => {}
        }
    }
    None
}

fn members(toks: &[String], prefix: &str, out: &mut BTreeSet<String>) {
    for m in split(toks, ";") {
        if matches!(m[0].as_str(), "struct" | "union") && m.contains(&"{".to_string()) {
            let (inner, rest) = body(&m).unwrap();
            match rest.iter().find(|t| is_ident(t)) {
                Some(name) => members(&inner, &format!("{prefix}{name}."), out),
                None => members(&inner, prefix, out),
            }
        } else {
            let end = m.iter().position(|t| t == "[").unwrap_or(m.len());
            let name = m[..end].iter().rev().find(|t| is_ident(t)).unwrap();
            out.insert(format!("{prefix}{name}"));
        }
    }
}

fn enumerators(toks: &[String]) -> Vec<String> {
    split(toks, ",").iter().filter_map(|item| item.first().cloned()).collect()
}

fn declarations(header: &Path) -> Decls {
    let out = Command::new(cc())
        .args(["-E", "-P", "-x", "c"])
        .args(SWITCHES)
        .arg(header)
        .output()
        .expect("the C preprocessor");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let toks = tokens(&text);
    let mut d = Decls::default();
    for stmt in split(&toks, ";") {
        let ours = stmt.iter().any(|t| t.starts_with("dxil_spv_"));
        if !ours {
            continue; // <stddef.h>
        }
        if stmt[0] == "typedef" {
            let paren_star = stmt.windows(3).find(|w| w[0] == "(" && w[1] == "*" && is_ident(&w[2]));
            if let Some(w) = paren_star {
                d.typedefs.insert(w[2].clone(), "fnptr");
                continue;
            }
            let name = stmt.iter().rev().find(|t| is_ident(t)).unwrap().clone();
            let kind = match stmt[1].as_str() {
                "struct" if stmt.contains(&"{".to_string()) => "struct",
                "union" => "union",
                "enum" => "enum",
                _ => "other",
            };
            d.typedefs.insert(name.clone(), kind);
            if let Some((inner, _)) = body(&stmt) {
                if kind == "enum" {
                    d.enums.insert(name, enumerators(&inner));
                } else {
                    let mut m = BTreeSet::new();
                    members(&inner, "", &mut m);
                    d.structs.insert(name, m);
                }
            }
        } else if stmt[0] == "enum" {
            let (inner, _) = body(&stmt).unwrap();
            d.enums.insert(stmt[1].clone(), enumerators(&inner));
        } else if let Some(p) = stmt.iter().position(|t| t == "(") {
            d.functions.insert(stmt[p - 1].clone());
        }
    }
    let raw = std::fs::read_to_string(header).unwrap();
    for line in raw.lines() {
        let t = tokens(line);
        if t.len() >= 3
            && t[0] == "#"
            && t[1] == "define"
            && t[2] != "DXIL_SPV_C_API_H"
            && t[2] != "DXIL_SPV_PUBLIC_API"
        {
            d.macros.insert(t[2].clone());
        }
    }
    d
}

fn archive_decls() -> Option<(std::path::PathBuf, Decls)> {
    let h = archive_header()?;
    let d = declarations(&h);
    Some((h, d))
}

#[test]
fn same_names_as_the_archive() {
    let Some((_, arch)) = archive_decls() else {
        eprintln!("no vkd3d-proton archive: skipping");
        return;
    };
    let ours = declarations(&our_header());
    assert_eq!(ours.functions, arch.functions, "functions");
    assert!(arch.functions.len() >= 60, "{} functions: the parser missed some", arch.functions.len());
    assert_eq!(ours.typedefs, arch.typedefs, "typedefs");
    assert_eq!(ours.enums, arch.enums, "enumerations");
    assert_eq!(ours.structs, arch.structs, "structure members");
    assert_eq!(ours.macros, arch.macros, "macros");
    eprintln!(
        "{} functions, {} typedefs, {} enumerations ({} enumerators), {} structures, {} macros",
        arch.functions.len(),
        arch.typedefs.len(),
        arch.enums.len(),
        arch.enums.values().map(Vec::len).sum::<usize>(),
        arch.structs.len(),
        arch.macros.len()
    );
}

/// The C++ translation unit of part 2.
fn cxx_unit(arch_header: &Path, arch: &Decls) -> String {
    let mut s = String::new();
    s.push_str("#include <stddef.h>\n#include <type_traits>\n\n");
    for f in &arch.functions {
        writeln!(s, "#define {f} arch_fn_{f}").unwrap();
    }
    writeln!(s, "namespace arch {{\n#include \"{}\"\n}}", arch_header.display()).unwrap();
    for f in &arch.functions {
        writeln!(s, "#undef {f}").unwrap();
    }
    // Macro values, read inside the namespaces (DXIL_SPV_TRUE names dxil_spv_bool).
    s.push_str("namespace arch {\n");
    for m in &arch.macros {
        writeln!(s, "constexpr long long macro_{m} = (long long)({m});").unwrap();
    }
    s.push_str("}\n#undef DXIL_SPV_C_API_H\n");
    for m in &arch.macros {
        writeln!(s, "#undef {m}").unwrap();
    }
    writeln!(s, "namespace ours {{\n#include \"{}\"\n}}", our_header().display()).unwrap();
    s.push_str(
        r#"
template <class T, class = void> struct complete : std::false_type {};
template <class T> struct complete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};
template <class T> struct Name { static constexpr const char *v = nullptr; };
constexpr bool same_name(const char *a, const char *b)
{
	if (!a || !b) return false;
	while (*a && *a == *b) { a++; b++; }
	return *a == *b;
}
template <class A, class B> constexpr bool shape();
template <class A, class B> struct Fn : std::false_type {};
template <class RA, class... PA, class RB, class... PB> struct Fn<RA(PA...), RB(PB...)>
{
	static constexpr bool params()
	{
		if constexpr (sizeof...(PA) == sizeof...(PB)) return (true && ... && shape<PA, PB>());
		else return false;
	}
	static constexpr bool value = shape<RA, RB>() && params();
};
template <class A, class B> constexpr bool shape()
{
	if constexpr (std::is_const_v<A> != std::is_const_v<B>) return false;
	else if constexpr (std::is_const_v<A>) return shape<std::remove_const_t<A>, std::remove_const_t<B>>();
	else if constexpr (std::is_pointer_v<A> || std::is_pointer_v<B>)
	{
		if constexpr (std::is_pointer_v<A> && std::is_pointer_v<B>) return shape<std::remove_pointer_t<A>, std::remove_pointer_t<B>>();
		else return false;
	}
	else if constexpr (std::is_array_v<A> || std::is_array_v<B>)
	{
		if constexpr (std::is_array_v<A> && std::is_array_v<B>) return std::extent_v<A> == std::extent_v<B> && shape<std::remove_extent_t<A>, std::remove_extent_t<B>>();
		else return false;
	}
	else if constexpr (std::is_function_v<A> && std::is_function_v<B>) return Fn<A, B>::value;
	else if constexpr (std::is_enum_v<A> && std::is_enum_v<B>)
		return same_name(Name<A>::v, Name<B>::v) && sizeof(A) == sizeof(B) && std::is_same_v<std::underlying_type_t<A>, std::underlying_type_t<B>>;
	else if constexpr ((std::is_class_v<A> && std::is_class_v<B>) || (std::is_union_v<A> && std::is_union_v<B>))
	{
		if constexpr (complete<A>::value && complete<B>::value)
			return same_name(Name<A>::v, Name<B>::v) && sizeof(A) == sizeof(B) && alignof(A) == alignof(B);
		else return complete<A>::value == complete<B>::value && same_name(Name<A>::v, Name<B>::v);
	}
	else return std::is_same_v<A, B>;
}
"#,
    );
    // Names of every struct, union and enumeration type (typedefs, and the handle tags).
    let mut named: Vec<String> = arch
        .typedefs
        .iter()
        .filter(|(_, k)| matches!(**k, "struct" | "union" | "enum"))
        .map(|(n, _)| n.clone())
        .collect();
    named.extend(["struct dxil_spv_parsed_blob_s".into(), "struct dxil_spv_converter_s".into()]);
    for (e, _) in arch.enums.iter().filter(|(e, _)| !arch.typedefs.contains_key(*e)) {
        named.push(format!("enum {e}"));
    }
    for n in &named {
        let bare = n.rsplit(' ').next().unwrap();
        let tag = if n.contains(' ') { format!("{} ", n.split(' ').next().unwrap()) } else { String::new() };
        for ns in ["arch", "ours"] {
            writeln!(
                s,
                "template <> struct Name<{tag}{ns}::{bare}> {{ static constexpr const char *v = \"{bare}\"; }};"
            )
            .unwrap();
        }
    }
    // Enumerators.
    for (e, items) in &arch.enums {
        let ty = if arch.typedefs.contains_key(e) { e.clone() } else { format!("enum {e}") };
        let (tag, bare) = match ty.split_once(' ') {
            Some((t, b)) => (format!("{t} "), b.to_string()),
            None => (String::new(), ty.clone()),
        };
        writeln!(s, "static_assert(shape<{tag}arch::{bare}, {tag}ours::{bare}>(), \"{ty}\");").unwrap();
        for i in items {
            writeln!(s, "static_assert((long long)arch::{i} == (long long)ours::{i}, \"{i}\");").unwrap();
        }
    }
    // Typedefs: structures member by member, callbacks and others by shape.
    for (t, kind) in &arch.typedefs {
        writeln!(s, "static_assert(shape<arch::{t}, ours::{t}>(), \"{t}\");").unwrap();
        if *kind == "struct" {
            for m in &arch.structs[t] {
                writeln!(s, "static_assert(offsetof(arch::{t}, {m}) == offsetof(ours::{t}, {m}), \"{t}.{m}\");")
                    .unwrap();
                // Nested members (`bindless.use_heap`) have no `decltype(T::a::b)`; their types
                // are covered by the enclosing member's size and the offsets.
                if !m.contains('.') {
                    writeln!(
                        s,
                        "static_assert(shape<decltype(arch::{t}::{m}), decltype(ours::{t}::{m})>(), \"{t}.{m} type\");"
                    )
                    .unwrap();
                }
            }
        }
    }
    for f in &arch.functions {
        writeln!(s, "static_assert(shape<decltype(arch::arch_fn_{f}), decltype(ours::{f})>(), \"{f}\");").unwrap();
    }
    s.push_str("namespace ours {\n");
    for m in &arch.macros {
        writeln!(s, "static_assert(arch::macro_{m} == (long long)({m}), \"{m}\");").unwrap();
    }
    s.push_str("}\n");
    s
}

#[test]
fn static_asserts_against_the_archive() {
    let Some((arch_header, arch)) = archive_decls() else {
        eprintln!("no vkd3d-proton archive: skipping");
        return;
    };
    let dir = scratch("abi");
    let unit = cxx_unit(&arch_header, &arch);
    let path = dir.join("abi.cpp");
    std::fs::write(&path, &unit).unwrap();
    let mut cmd = Command::new(cxx());
    cmd.args(["-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-Wno-invalid-offsetof"])
        .args(SWITCHES)
        .arg(&path);
    if let Err(e) = compile(cmd) {
        panic!("{e}\n(the unit: {})", path.display());
    }
    let asserts = unit.matches("static_assert(").count();
    eprintln!("{asserts} static assertions hold");
    assert!(asserts > 500, "only {asserts} assertions");
}

#[test]
fn rust_definitions_match_our_header() {
    let mut c = String::from("#include <stddef.h>\n#include \"dxil_spirv_c.h\"\n");
    for l in ffi::struct_layouts() {
        writeln!(c, "_Static_assert(sizeof({0}) == {1}, \"{0}: size\");", l.name, l.size).unwrap();
        writeln!(c, "_Static_assert(_Alignof({0}) == {1}, \"{0}: alignment\");", l.name, l.align).unwrap();
        for (f, off) in &l.fields {
            writeln!(c, "_Static_assert(offsetof({0}, {f}) == {off}, \"{0}.{f}\");", l.name).unwrap();
        }
    }
    for (ty, items) in ffi::enumerations() {
        if ty.starts_with("dxil_spv_vulkan_shader_stage_io_flags") {
            writeln!(c, "_Static_assert(sizeof(enum {ty}) == 4, \"{ty}\");").unwrap();
        } else {
            writeln!(c, "_Static_assert(sizeof({ty}) == 4, \"{ty}\");").unwrap();
        }
        for (name, value) in items {
            writeln!(c, "_Static_assert((long long){name} == {value}LL, \"{name}\");").unwrap();
        }
    }
    writeln!(c, "_Static_assert(DXIL_SPV_API_VERSION_MAJOR == {}, \"major\");", ffi::DXIL_SPV_API_VERSION_MAJOR)
        .unwrap();
    writeln!(c, "_Static_assert(DXIL_SPV_API_VERSION_MINOR == {}, \"minor\");", ffi::DXIL_SPV_API_VERSION_MINOR)
        .unwrap();
    writeln!(c, "_Static_assert(DXIL_SPV_API_VERSION_PATCH == {}, \"patch\");", ffi::DXIL_SPV_API_VERSION_PATCH)
        .unwrap();
    let dir = scratch("rust-abi");
    let path = dir.join("rust_abi.c");
    std::fs::write(&path, &c).unwrap();
    let mut cmd = Command::new(cc());
    cmd.args(["-std=c11", "-fsyntax-only", "-Wall", "-Wextra", "-Werror"])
        .args(SWITCHES)
        .arg("-I")
        .arg(Path::new(MANIFEST).join("include"))
        .arg(&path);
    compile(cmd).unwrap();
}

#[test]
fn rust_tables_cover_the_archive() {
    let Some((_, arch)) = archive_decls() else {
        eprintln!("no vkd3d-proton archive: skipping");
        return;
    };
    let layouts: BTreeMap<String, BTreeSet<String>> = ffi::struct_layouts()
        .into_iter()
        .map(|l| (l.name.to_string(), l.fields.into_iter().map(|(f, _)| f).collect()))
        .collect();
    assert_eq!(layouts, arch.structs, "src/ffi.rs's layout table against the archive's structures");
    let rust_enums: BTreeMap<String, Vec<String>> = ffi::enumerations()
        .into_iter()
        .map(|(t, items)| (t.to_string(), items.iter().map(|(n, _)| n.to_string()).collect()))
        .collect();
    assert_eq!(rust_enums, arch.enums, "src/ffi.rs's enumerations against the archive's");
}

#[test]
fn the_library_exports_every_function() {
    let Some((_, arch)) = archive_decls() else {
        eprintln!("no vkd3d-proton archive: skipping");
        return;
    };
    let so = library_dir().join("libuntangle_dxil_spirv.so");
    let out = Command::new("nm").args(["-D", "--defined-only"]).arg(&so).output().expect("nm");
    let text = String::from_utf8_lossy(&out.stdout);
    let exported: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|n| n.starts_with("dxil_spv_"))
        .map(String::from)
        .collect();
    assert_eq!(exported, arch.functions, "exported dxil_spv_* functions of {}", so.display());
}

#[test]
fn our_header_compiles_everywhere() {
    let dir = scratch("header-compiles");
    let c = dir.join("t.c");
    std::fs::write(&c, "#include \"dxil_spirv_c.h\"\nint main(void) { dxil_spv_bool b = DXIL_SPV_TRUE; return b == DXIL_SPV_FALSE; }\n")
        .unwrap();
    let cpp = dir.join("t.cpp");
    std::fs::write(&cpp, "#include \"dxil_spirv_c.h\"\nint main() { return int(DXIL_SPV_SUCCESS); }\n").unwrap();
    for (compiler, std, file) in [(cc(), "-std=c11", &c), (cxx(), "-std=c++11", &cpp)] {
        for switches in [&[][..], &SWITCHES[..]] {
            let mut cmd = Command::new(&compiler);
            cmd.args([std, "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-pedantic"])
                .args(switches)
                .arg("-I")
                .arg(Path::new(MANIFEST).join("include"))
                .arg(file);
            compile(cmd).unwrap();
        }
    }
}
