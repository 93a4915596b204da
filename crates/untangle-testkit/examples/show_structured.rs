//! Prints the structured form, the block listing and any structured-rule violations of
//! every function of an input: `cargo run --release -p untangle-testkit --example show_structured -- FILE.ll`.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: show_structured FILE");
        std::process::exit(2);
    };
    let loaded = match untangle::front::load_path(std::path::Path::new(&path)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    for (_, f) in loaded.module.functions.iter().filter(|(_, f)| !f.is_declaration()) {
        match untangle::passes::structurize(f, Default::default()) {
            Ok(s) => {
                println!("{}", untangle::passes::text::render_structured(&s.scfg, Some(f)));
                println!("{}", untangle::passes::text::render_listing(&s.scfg, Some(f)));
                if let Err(violations) = untangle_testkit::check::structured::check_structured(&s.scfg) {
                    println!("{violations}");
                }
            }
            Err(e) => println!("error: {e}"),
        }
    }
}
