//! Gives the shared library an `SONAME` (its file name), so programs linked against it
//! record `libuntangle_capi.so` rather than the path they were linked with.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "android" || os.ends_with("bsd") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libuntangle_capi.so");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
