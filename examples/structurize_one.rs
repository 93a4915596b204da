//! Development aid: print the listing of one function after every pass.
use std::path::Path;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let loaded = untangle::load::load_path(Path::new(&args[1])).expect("load");
    for func in loaded.module.functions.values() {
        if func.is_declaration() || (args.len() > 2 && func.name != args[2]) {
            continue;
        }
        let mut hook = |i: usize, name: &str, scfg: &untangle::passes::Scfg| {
            println!("==== {i} {name}");
            print!("{}", listing(scfg));
        };
        let r = untangle::passes::structurize(func, untangle::passes::Options { dump: Some(&mut hook) });
        match r {
            Ok(s) => {
                if let Err(e) = untangle::check::structured::check_structured(&s.scfg) {
                    println!("{e}");
                }
            }
            Err(e) => println!("error: {e}"),
        }
    }
}

fn listing(scfg: &untangle::passes::Scfg) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for &b in &scfg.layout {
        let blk = &scfg.blocks[b];
        let succs: Vec<String> = blk.term.succs().iter().map(|&s| scfg.label(s)).collect();
        let kind = match &blk.term {
            untangle::passes::Term::Goto(_) => "goto".to_string(),
            untangle::passes::Term::Orig { .. } => "orig".to_string(),
            untangle::passes::Term::Dispatch { var, .. } => format!("dispatch {var}"),
            untangle::passes::Term::Unreachable => "unreachable".to_string(),
        };
        let defs: Vec<String> = blk.edge_defs.iter().map(|d| format!("{}:{}={:?}", d.slot, d.var, d.val)).collect();
        let merge = match blk.merge {
            Some(untangle::passes::Merge::Loop { merge, continue_target }) => format!(" LOOP(merge {}, cont {})", scfg.label(merge), scfg.label(continue_target)),
            Some(untangle::passes::Merge::Selection { merge }) => format!(" SEL(merge {})", scfg.label(merge)),
            None => String::new(),
        };
        let _ = writeln!(out, "{}{}: {} [{}] {}", scfg.label(b), merge, kind, succs.join(", "), defs.join(" "));
    }
    out
}
