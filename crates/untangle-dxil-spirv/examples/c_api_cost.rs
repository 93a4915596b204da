//! The per-call cost of a translation through the C library's entry points, as
//! vkd3d-proton makes it: the blob is parsed once (`dxil_spv_parse_dxil_blob`), then each
//! of N rounds creates a converter, runs it, takes the
//! SPIR-V and frees the converter. No remapping callback is set (each query gets
//! dxil-spirv's default answer), so the rounds time this library and untangle, not an
//! application. Compare with `untangle-testkit`'s `fixed_cost` example (the translation
//! alone) on the same file to see what the C library adds.
//!
//!     cargo build --release -p untangle-dxil-spirv --example c_api_cost
//!     target/release/examples/c_api_cost FILE.dxil [N]
//!     valgrind --tool=callgrind target/release/examples/c_api_cost FILE.dxil 100
//!
//! Prints the best and mean time of one round. Side by side with dxil-spirv in the same
//! process: with `UNTANGLE_DXIL_SPIRV_DELEGATE=PATH/libdxil-spirv-c-shared.so`,
//! `UNTANGLE_DXIL_SPIRV_SHADOW=1` and `UNTANGLE_DXIL_SPIRV_SUMMARY=FILE` each round also
//! runs the delegate on the same blob (`crate::shadow`), and the summary's last line has
//! both totals under `shadow_paired`; under callgrind, compare the inclusive counts of
//! `untangle_path::run` and the delegate's `dxil_spv_converter_run`. Wall-clock numbers
//! want an idle machine: the two runs interleave, so each starts with the other's caches.

use std::ffi::c_void;
use std::time::Instant;
use untangle_dxil_spirv::exports::*;
use untangle_dxil_spirv::ffi::*;

fn check(what: &str, r: dxil_spv_result) {
    if r != DXIL_SPV_SUCCESS {
        eprintln!("{what}: error {r}");
        std::process::exit(1);
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: c_api_cost FILE.dxil [N]");
        std::process::exit(2);
    };
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000).max(1);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let mut blob: dxil_spv_parsed_blob = std::ptr::null_mut();
    // SAFETY: `bytes` outlives the call; the blob is freed below, after every converter.
    unsafe {
        check("parse", dxil_spv_parse_dxil_blob(bytes.as_ptr() as *const c_void, bytes.len(), &mut blob));
    }
    let mut best = f64::INFINITY;
    let mut words = 0;
    let started = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        // SAFETY: the blob lives until the end; each converter is freed in its round.
        unsafe {
            let mut c: dxil_spv_converter = std::ptr::null_mut();
            check("create converter", dxil_spv_create_converter(blob, &mut c));
            check("run", dxil_spv_converter_run(c));
            let mut spirv = dxil_spv_compiled_spirv { data: std::ptr::null(), size: 0 };
            check("get spirv", dxil_spv_converter_get_compiled_spirv(c, &mut spirv));
            words = spirv.size / 4;
            dxil_spv_converter_free(c);
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mean = started.elapsed().as_secs_f64() / n as f64;
    // SAFETY: no converter of the blob is left.
    unsafe { dxil_spv_parsed_blob_free(blob) };
    println!("{path}: {n} rounds, {words} words; best {:.1} us, mean {:.1} us", best * 1e6, mean * 1e6);
}
