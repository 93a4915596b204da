// Prints the structured form and listing of each function of an .ll file.
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let loaded = untangle::load::load_path(std::path::Path::new(&path)).expect("load");
    for (_, f) in loaded
        .module
        .functions
        .iter()
        .filter(|(_, f)| !f.is_declaration())
    {
        let s = untangle::passes::structurize(f, Default::default()).expect("structurize");
        println!(
            "{}",
            untangle::passes::text::render_structured(&s.scfg, Some(f))
        );
        println!(
            "{}",
            untangle::passes::text::render_listing(&s.scfg, Some(f))
        );
        for v in untangle::check::structured::check_structured(&s.scfg) {
            println!("VIOLATION {v:?}");
        }
    }
}
