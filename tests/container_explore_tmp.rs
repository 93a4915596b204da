use untangle::container::*;
#[test]
fn explore() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/dxil/vkd3d-proton");
    let mut names: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    for p in names {
        let bytes = std::fs::read(&p).unwrap();
        let c = Container::parse(&bytes).unwrap();
        let s = c.summary();
        if !s.errors.is_empty() { println!("ERR {:?} {:?}", p.file_name(), s.errors); }
        let Some(psv) = s.psv0 else { continue };
        let v1 = psv.runtime_info.v1.unwrap();
        let sigs = [(&s.input_signature, &psv.input_elements), (&s.output_signature, &psv.output_elements), (&s.patch_constant_signature, &psv.patch_const_or_prim_elements)];
        for (i, (sig, psvel)) in sigs.iter().enumerate() {
            let n = sig.as_ref().map_or(0, |s| s.len());
            let rows: usize = psvel.iter().map(|e| e.rows as usize).sum();
            if p.to_str().unwrap().contains("ms_cull_primitive") { println!("sig{} {:?}\n psv {:?}", i, sig.as_ref().map(|s| s.elements.iter().map(|e| (e.semantic_name, e.semantic_index, e.system_value, e.register, e.stream)).collect::<Vec<_>>()), psvel); }
            if n != rows { println!("{:?} {:?}", psv.runtime_info.stage_info, s.compiler_version); }
            if n != rows || (n == 0) != psvel.is_empty() {
                println!("{} sig{} isg={} psv_elems={} psv_rows={} kinds={:?} dep={}", p.file_name().unwrap().to_str().unwrap(), i, n, psvel.len(), rows,
                    psvel.iter().map(|e| (e.semantic_kind, e.rows, e.start_row)).collect::<Vec<_>>(), psv.dependency_data.len());
            }
        }
        let _ = v1;
    }
}
