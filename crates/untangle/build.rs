//! Compiles `src/emit/spirv_env.tsv` (the Vulkan registry's SPIR-V environment table,
//! extracted by `tools/gen-device-features.py`) into the `CAPABILITIES` and `EXTENSIONS`
//! tables of `emit::features`: `$OUT_DIR/spirv_env.rs`. The table is data, kept as data;
//! a malformed line fails the build naming it.

use std::fmt::Write as _;

fn main() {
    const SOURCE: &str = "src/emit/spirv_env.tsv";
    println!("cargo:rerun-if-changed={SOURCE}");
    let text = std::fs::read_to_string(SOURCE).expect("src/emit/spirv_env.tsv");
    // (item, name) -> the Rust expressions of its enables, in file order.
    let mut rows: Vec<(String, String, Vec<String>)> = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [item, name, kind, a, b, c, requires] = cols[..] else {
            panic!("{SOURCE}:{}: expected 7 tab-separated columns", n + 1)
        };
        let enable = match kind {
            "version" => format!("Enable::Version {{ version: {a:?} }}"),
            "extension" => format!("Enable::Extension {{ extension: {a:?} }}"),
            "feature" => format!("Enable::Feature {{ structure: {a:?}, member: {b:?}, requires: {requires:?} }}"),
            "property" => {
                format!("Enable::Property {{ structure: {a:?}, member: {b:?}, value: {c:?}, requires: {requires:?} }}")
            }
            other => panic!("{SOURCE}:{}: unknown kind {other:?}", n + 1),
        };
        match rows.last_mut() {
            Some((i, m, list)) if i == item && m == name => list.push(enable),
            _ => rows.push((item.to_string(), name.to_string(), vec![enable])),
        }
    }
    let mut out = String::new();
    for (item, konst) in [("capability", "CAPABILITIES"), ("extension", "EXTENSIONS")] {
        writeln!(out, "/// Every SPIR-V {item} Vulkan allows, with the ways a device can allow it.").unwrap();
        writeln!(out, "const {konst}: &[(&str, &[Enable])] = &[").unwrap();
        for (_, name, list) in rows.iter().filter(|(i, _, _)| i == item) {
            writeln!(out, "    ({name:?}, &[{}]),", list.join(", ")).unwrap();
        }
        writeln!(out, "];").unwrap();
    }
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("spirv_env.rs");
    std::fs::write(dest, out).expect("write spirv_env.rs");
}
