//! Dump a random batch trace case's SPIR-V (`cargo run --example dump_case SEED [out-of-line]`).
fn main() {
    let mut args = std::env::args().skip(1);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let ool = args.next().is_some();
    let mut batch = untangle::check::gpu_trace::DEFAULT_BATCH;
    batch.out_of_line_helpers = ool;
    let case = untangle::check::gpu_trace::random_case(seed, batch, 64, None).unwrap();
    let bytes: Vec<u8> = case.words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(format!("/tmp/dni/seed{seed}{}.spv", if ool { "_ool" } else { "" }), bytes).unwrap();
    eprintln!("{} words", case.words.len());
}
