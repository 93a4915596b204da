//! Scratch: differential run of corpus shaders matching a filter.
fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let seeds: u64 = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let dir = std::path::Path::new("../shared/corpus/dxil/vkd3d-proton");
    let mut gpu = untangle_testkit::vulkan::Gpu::open().expect("gpu");
    eprintln!("{}", gpu.info());
    let files: Vec<_> = untangle_testkit::difftest::gpu::corpus_files(dir)
        .unwrap()
        .into_iter()
        .filter(|f| f.to_string_lossy().contains(&filter))
        .collect();
    untangle_testkit::difftest::gpu::run_corpus(
        &mut gpu,
        &files,
        0..seeds,
        std::time::Duration::from_secs(10),
        |n, o| {
            println!("{}", untangle_testkit::difftest::gpu::outcome_line(n, o));
        },
    );
}
