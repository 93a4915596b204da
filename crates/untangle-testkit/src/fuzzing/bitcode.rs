//! Robustness driver for the native bitcode reader ([`untangle::front::parse_bitcode`]), shared by
//! `tests/native_robustness.rs`, `examples/bitcode_mutations.rs` and the cargo-fuzz target
//! `bitcode`: read the bytes; if they are accepted, also dump the module and run the DXIL
//! semantic layer over it, since an accepted module must be safe for everything downstream.

use std::path::Path;

/// What happened to one input (a panic is not an outcome: it propagates).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Read, dumped and analysed (the DXIL layer may still reject it with a typed error).
    Read,
    /// A typed [`untangle::front::Error`].
    Rejected,
}

pub fn exercise(bitcode: &[u8]) -> Outcome {
    match untangle::front::parse_bitcode(bitcode, "input", untangle::front::FrontEnd::Native) {
        Ok(m) => {
            let _ = untangle::ir::dump::Dumper::new(&m).module();
            let _ = untangle::dxil::analyze(&m);
            Outcome::Read
        }
        Err(e) => {
            // Every error must render.
            let _ = e.to_string();
            Outcome::Rejected
        }
    }
}

/// The bitcode of every `.dxil` file under `dir` (recursively), sorted by path.
pub fn corpus_bitcode(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut paths = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "dxil") {
                paths.push(p);
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            let bc = untangle::front::bitcode_of(&bytes).ok()??.to_vec();
            Some((p.file_name()?.to_string_lossy().into_owned(), bc))
        })
        .collect()
}
