//! Records the commit the binary was built from, for `untangle --version`: the short hash,
//! with `-dirty` when the work tree had changes, or `unknown` outside a git checkout.
//!
//! Links the binary with packed relative relocations (`-z pack-relative-relocs`, DT_RELR)
//! where the toolchain and C library support them (GNU ld 2.38+ or lld, glibc 2.36+; probed
//! by linking and running a small C program). The position-independent binary has about
//! 6,500 relative relocations (tables of string slices, vtables): as RELA entries they take
//! 158 KiB that the loader reads at every start, as RELR a few KiB. One translation's peak
//! RSS drops by about 120 KiB (`BENCHMARKS.md`).

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Whether a C program linked with `flag` links and runs here (the binary's linker is the
/// C compiler driver on linux-gnu targets).
fn links_and_runs(flag: &str) -> bool {
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else { return false };
    let (src, exe) = (out.join("relr_probe.c"), out.join("relr_probe"));
    if std::fs::write(&src, "int main(void) { return 0; }\n").is_err() {
        return false;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let linked = Command::new(cc).arg(&src).arg("-o").arg(&exe).arg(flag).output();
    linked.is_ok_and(|o| o.status.success()) && Command::new(&exe).status().is_ok_and(|s| s.success())
}

fn main() {
    let native = std::env::var("TARGET").ok() == std::env::var("HOST").ok();
    let linux_gnu = std::env::var("TARGET").is_ok_and(|t| t.ends_with("-linux-gnu"));
    if native && linux_gnu && links_and_runs("-Wl,-z,pack-relative-relocs") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo:rerun-if-env-changed=CC");
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let suffix = if dirty { "-dirty" } else { "" };
    println!("cargo:rustc-env=UNTANGLE_COMMIT={commit}{suffix}");
    // Rebuild the string when HEAD moves or the index changes.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/index");
        if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{head}");
        }
    }
}
