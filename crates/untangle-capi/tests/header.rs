//! `include/untangle.h` is what cbindgen makes of this crate with `cbindgen.toml`. When
//! the API changes, regenerate it (the failure message says how) and commit both.

use std::path::Path;

#[test]
fn checked_in_header_is_up_to_date() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen failed on the crate");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8 header");
    let path = dir.join("include/untangle.h");
    if std::env::var_os("UNTANGLE_BLESS_HEADER").is_some() {
        std::fs::write(&path, &generated).unwrap();
        eprintln!("wrote {}", path.display());
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    if checked_in != generated {
        let first = checked_in.lines().zip(generated.lines()).position(|(a, b)| a != b);
        panic!(
            "include/untangle.h is out of date with the crate's API (first difference at line {}).\n\
             Regenerate it and commit the result:\n\
             \n    UNTANGLE_BLESS_HEADER=1 cargo test -p untangle-capi --test header\n",
            first.map_or_else(|| checked_in.lines().count().min(generated.lines().count()) + 1, |n| n + 1)
        );
    }
}
