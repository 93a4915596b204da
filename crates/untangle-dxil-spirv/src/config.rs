//! The environment switches, read once per process.
//!
//! | variable | effect |
//! |---|---|
//! | `UNTANGLE_DXIL_SPIRV_REFERENCE=1` | reference mode: DXIL goes to the delegate (dxil-spirv) too |
//! | `UNTANGLE_DXIL_SPIRV_RECORD=DIR` | record mode: a JSON file per DXIL converter run in `DIR` ([`crate::record`]) |
//! | `UNTANGLE_DXIL_SPIRV_SUMMARY=PATH` | at exit, one JSON line of counts and times appended to `PATH` (`1` or `stderr`: standard error) ([`crate::summary`]) |
//! | `UNTANGLE_DXIL_SPIRV_DELEGATE=PATH` | the delegate library (default: `libdxil-spirv-c-shared.so` next to the library holding this code) |
//! | `UNTANGLE_DXIL_SPIRV_SHADOW=1` | shadow mode: each DXIL run on the untangle route is also run through the delegate, only to time it (its output is dropped; the summary's `shadow_*` keys) ([`crate::shadow`]) |
//!
//! The shadow mode needs the delegate (without one every shadow run counts as failed, and
//! one warning says why); in the reference mode it does nothing, DXIL not taking the
//! untangle route there.

use std::path::PathBuf;
use std::sync::OnceLock;

pub const ENV_REFERENCE: &str = "UNTANGLE_DXIL_SPIRV_REFERENCE";
pub const ENV_RECORD: &str = "UNTANGLE_DXIL_SPIRV_RECORD";
pub const ENV_SUMMARY: &str = "UNTANGLE_DXIL_SPIRV_SUMMARY";
pub const ENV_DELEGATE: &str = "UNTANGLE_DXIL_SPIRV_DELEGATE";
pub const ENV_SHADOW: &str = "UNTANGLE_DXIL_SPIRV_SHADOW";

/// Where the exit summary goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SummaryTarget {
    Stderr,
    File(PathBuf),
}

#[derive(Clone, Debug, Default)]
pub struct Config {
    /// DXIL goes to the delegate as DXBC does.
    pub reference: bool,
    /// Record every DXIL converter run here.
    pub record_dir: Option<PathBuf>,
    pub summary: Option<SummaryTarget>,
    /// The delegate library's path, when the environment names one.
    pub delegate: Option<PathBuf>,
    /// Time dxil-spirv on every untangle-route DXIL run as well ([`crate::shadow`]).
    pub shadow: bool,
}

fn truthy(value: &str) -> bool {
    !matches!(value.trim(), "" | "0" | "false" | "no" | "off")
}

impl Config {
    pub fn from_env() -> Config {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        Config {
            reference: var(ENV_REFERENCE).is_some_and(|v| truthy(&v.to_string_lossy())),
            record_dir: var(ENV_RECORD).map(PathBuf::from),
            summary: var(ENV_SUMMARY).map(|v| match v.to_str() {
                Some("1") | Some("stderr") | Some("-") => SummaryTarget::Stderr,
                _ => SummaryTarget::File(PathBuf::from(v)),
            }),
            delegate: var(ENV_DELEGATE).map(PathBuf::from),
            shadow: var(ENV_SHADOW).is_some_and(|v| truthy(&v.to_string_lossy())),
        }
    }
}

static CONFIG: OnceLock<Config> = OnceLock::new();

/// The process's configuration (the environment at the first call). The first call also
/// arranges the exit summary when one is asked for.
pub fn get() -> &'static Config {
    CONFIG.get_or_init(|| {
        let config = Config::from_env();
        if config.summary.is_some() {
            crate::summary::register_at_exit();
        }
        if let Some(dir) = &config.record_dir {
            if let Err(e) = std::fs::create_dir_all(dir) {
                crate::log::error(&format!("{ENV_RECORD}: cannot create {}: {e}", dir.display()));
            }
        }
        config
    })
}
