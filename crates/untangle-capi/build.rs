//! Gives the shared library a versioned `SONAME`, `libuntangle_capi.so.<ABI>`
//! (`UNTANGLE_ABI_VERSION` in src/lib.rs), so programs linked against it record that name
//! rather than the path they were linked with, and a release that breaks the ABI is not
//! loaded in its place.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/lib.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "android" || os.ends_with("bsd") {
        let abi = abi_version();
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libuntangle_capi.so.{abi}");
    }
}

/// `UNTANGLE_ABI_VERSION` as src/lib.rs defines it.
fn abi_version() -> u32 {
    const DEFINITION: &str = "pub const UNTANGLE_ABI_VERSION: u32 = ";
    let lib = std::fs::read_to_string("src/lib.rs").expect("src/lib.rs");
    let line = lib.lines().find_map(|l| l.strip_prefix(DEFINITION)).expect("src/lib.rs defines UNTANGLE_ABI_VERSION");
    line.trim_end_matches(';').trim().parse().expect("UNTANGLE_ABI_VERSION is a number")
}
