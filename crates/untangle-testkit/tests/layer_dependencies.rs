//! What a translation layer links: `examples/layer` depends on the library with default
//! features off; its dependency tree must hold the translator's own dependencies only, none
//! of the test tooling (the test kit, proptest, criterion, insta), no Vulkan loader and no
//! LLVM.

use std::process::Command;

#[test]
fn a_layer_links_no_test_tooling() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "-p",
            "untangle-layer-example",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("run cargo tree");
    assert!(out.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&out.stderr));
    let tree = String::from_utf8_lossy(&out.stdout);
    let crates: Vec<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(crates.contains(&"untangle"), "{tree}");
    for forbidden in
        ["untangle-testkit", "untangle-spirv-tools", "proptest", "criterion", "insta", "ash", "llvm-sys", "clap"]
    {
        assert!(!crates.contains(&forbidden), "a layer would link {forbidden}:\n{tree}");
    }
}
