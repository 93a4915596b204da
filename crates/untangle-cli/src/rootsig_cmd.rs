//! `untangle rootsig`: read a root signature (RTS0 part, container, text file or string),
//! validate it, print it as a canonical string or JSON, write its RTS0 part.

use crate::failure::Failure;
use crate::RootsigArgs;
use std::path::{Path, PathBuf};

pub fn parse_rootsig_version(text: &str) -> Result<untangle::rootsig::Version, String> {
    untangle::rootsig::Version::from_name(text)
        .ok_or_else(|| format!("unknown root signature version `{text}` (1.0, 1.1 or 1.2)"))
}

/// Reads, validates and prints one root signature; writes its RTS0 part with `-o`.
pub fn rootsig_command(args: RootsigArgs) -> Result<(), Failure> {
    use untangle::rootsig;
    let source = args.file.clone().unwrap_or_else(|| PathBuf::from("<string>"));
    let fail = |error: untangle::Error| Failure::new(&source, error);
    let from_text = |text: &str| rootsig::parse_hlsl(text, args.version.unwrap_or(rootsig::Version::V1_1));
    let rs = match (&args.string, &args.file) {
        (Some(text), _) => from_text(text).map_err(|e| fail(e.into()))?,
        (None, Some(file)) => {
            let (rs, binary) = read_root_signature(file, args.version).map_err(fail)?;
            if let Some(wanted) = args.version.filter(|&v| binary && v != rs.version) {
                let message = format!("root signature version is {}, not {}", rs.version.name(), wanted.name());
                return Err(Failure::new(source, message));
            }
            rs
        }
        (None, None) => return Err(Failure::new(source, "a FILE or --string is required")),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rootsig::json::to_json(&rs)).unwrap_or_default());
    } else {
        println!("{}", rootsig::to_hlsl(&rs));
    }
    if let Some(out) = &args.output {
        crate::write_output(out, &rootsig::to_rts0(&rs))?;
    }
    Ok(())
}

/// A root signature from a file: an RTS0 part, a DXBC container holding one, or text
/// (parsed for `version`, default 1.1). `true` with it when the file was binary.
pub fn read_root_signature(
    file: &Path,
    version: Option<untangle::rootsig::Version>,
) -> Result<(untangle::rootsig::RootSignature, bool), untangle::Error> {
    use untangle::rootsig;
    let bytes = std::fs::read(file)?;
    // A bare RTS0 part starts with its version as a little-endian u32 (1 to 3).
    let bare_part = bytes.len() >= 4 && (1..=3).contains(&bytes[0]) && bytes[1..4] == [0, 0, 0];
    let text = std::str::from_utf8(&bytes).ok().filter(|_| !bare_part && !bytes.starts_with(b"DXBC"));
    Ok(match text {
        Some(text) => (rootsig::parse_hlsl(text, version.unwrap_or(rootsig::Version::V1_1))?, false),
        None => (rootsig::parse_rts0_file(&bytes)?, true),
    })
}
