//! Scratch: differential run of corpus shaders matching a filter, or `gen FIRST COUNT` for
//! generated programs.
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let mut gpu = untangle_testkit::vulkan::Gpu::open().expect("gpu");
    eprintln!("{}\n{:?}", gpu.info(), gpu.info().features);
    let t = std::time::Duration::from_secs(10);
    if a.first().map(String::as_str) == Some("gen") {
        let first: u64 = a.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let n: u64 = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
        let s = untangle_testkit::difftest::gpu::run_generated(&mut gpu, first..first + n, 2, t, None, |_, l| {
            if !l.starts_with("pass") || l.contains("indeterminate:") {
                println!("{l}")
            }
        });
        println!("{s:?}");
        return;
    }
    if a.first().map(String::as_str) == Some("inputs") {
        // inputs FILE SEED: the first words of every input.
        let bytes = std::fs::read(&a[1]).expect("file");
        let m = untangle::front::load_bytes(bytes, "s").expect("load").module;
        let info = untangle::dxil::analyze(&m).expect("dxil");
        let seed: u64 = a[2].parse().expect("seed");
        for i in untangle_testkit::difftest::inputs::inputs(&info.resources, seed, Default::default()).expect("inputs")
        {
            let w: Vec<String> = i
                .bytes
                .chunks(4)
                .take(8)
                .map(|c| format!("{:#010x}", u32::from_le_bytes(c.try_into().unwrap())))
                .collect();
            println!("{:?}{} space{}: {}", i.class, i.register, i.space, w.join(" "));
        }
        return;
    }
    let filter = a.first().cloned().unwrap_or_default();
    let seeds: u64 = a.get(1).and_then(|s| s.parse().ok()).unwrap_or(3);
    let dir = std::path::Path::new("../shared/corpus/dxil/vkd3d-proton");
    let files: Vec<_> = untangle_testkit::difftest::gpu::corpus_files(dir)
        .unwrap()
        .into_iter()
        .filter(|f| f.to_string_lossy().contains(&filter))
        .collect();
    untangle_testkit::difftest::gpu::run_corpus(&mut gpu, &files, 0..seeds, t, None, |n, o| {
        println!("{}", untangle_testkit::difftest::gpu::outcome_line(n, o));
    });
}
