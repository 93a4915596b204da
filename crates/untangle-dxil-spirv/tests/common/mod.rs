//! What the C tests share: where the archive, its header, the delegate and this crate's
//! libraries are, and the C compiler.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some()
}

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(MANIFEST).join("../..").canonicalize().unwrap()
}

/// `../shared` beside the repository.
pub fn shared() -> PathBuf {
    repo().join("../shared")
}

pub fn corpus_dxil() -> Vec<PathBuf> {
    let dir = shared().join("corpus/dxil/vkd3d-proton");
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "dxil")).collect()
        }
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

/// A fresh directory for one test's files.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("dxil-spirv-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The vkd3d-proton archive (`VKD3D_PROTON_ARCHIVE`, else `../shared/vkd3d-proton/`).
pub fn archive() -> Option<PathBuf> {
    let p = std::env::var_os("VKD3D_PROTON_ARCHIVE")
        .map(PathBuf::from)
        .unwrap_or_else(|| shared().join("vkd3d-proton/vkd3d-proton-src.tar.xz"));
    p.is_file().then_some(p)
}

/// Files of the archive, unpacked once per target directory under `unpacked/` (the
/// members named, as `tar` selects them). Returns the `vkd3d/` directory.
pub fn unpack(members: &[&str]) -> Option<PathBuf> {
    let archive = archive()?;
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("vkd3d-proton-unpacked");
    let stamp = root.join(format!(".{}", members.join("+").replace('/', "_")));
    if !stamp.exists() {
        std::fs::create_dir_all(&root).unwrap();
        let status = Command::new("tar")
            .arg("-xJf")
            .arg(&archive)
            .arg("-C")
            .arg(&root)
            .args(members.iter().map(|m| format!("vkd3d/{m}")))
            .status()
            .expect("tar");
        assert!(status.success(), "tar could not unpack {members:?} from {}", archive.display());
        std::fs::write(&stamp, "").unwrap();
    }
    Some(root.join("vkd3d"))
}

/// The archive's `dxil_spirv_c.h`: `UNTANGLE_DXIL_SPIRV_ARCHIVE_HEADER`, else unpacked from
/// the archive. `None` only outside CI without the archive.
pub fn archive_header() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("UNTANGLE_DXIL_SPIRV_ARCHIVE_HEADER") {
        return Some(PathBuf::from(p));
    }
    match unpack(&["subprojects/dxil-spirv/dxil_spirv_c.h"]) {
        Some(dir) => Some(dir.join("subprojects/dxil-spirv/dxil_spirv_c.h")),
        None if in_ci() => panic!("no vkd3d-proton archive at ../shared/vkd3d-proton (CI must have it)"),
        None => None,
    }
}

/// The delegate (the archive's dxil-spirv as a shared library): `UNTANGLE_DXIL_SPIRV_DELEGATE`,
/// else what `tools/vkd3d-proton/build.sh` left in the target directory.
pub fn delegate() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("UNTANGLE_DXIL_SPIRV_DELEGATE") {
        return Some(PathBuf::from(p));
    }
    let target = target_dir();
    [
        target.join("vkd3d-proton/build-delegate/libdxil-spirv-c-shared.so"),
        target.join("vkd3d/delegate/libdxil-spirv-c-shared.so"),
        target.join("vkd3d/untangle/libdxil-spirv-c-shared.so"),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

/// `<target>` from the test executable's path (`<target>/<profile>/deps/<test>`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().parent().unwrap().to_path_buf()
}

/// The directory holding this build's `libuntangle_dxil_spirv.so` and `.a`.
pub fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for dir in [deps, deps.parent().unwrap()] {
        if dir.join("libuntangle_dxil_spirv.so").exists() && dir.join("libuntangle_dxil_spirv.a").exists() {
            return dir.to_path_buf();
        }
    }
    panic!("libuntangle_dxil_spirv.so and .a are neither in {} nor its parent", deps.display());
}

pub fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".into())
}

pub fn cxx() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "c++".into())
}

/// Runs a compiler command; `Err` holds its messages.
pub fn compile(mut cmd: Command) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed:\n{}{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        ))
    }
}

/// A command running a built C program, with a clean environment for this library's
/// switches (so the test's own environment cannot change what is tested).
pub fn c_command(exe: &Path) -> Command {
    let mut c = Command::new(exe);
    c.env_remove("LD_LIBRARY_PATH");
    for var in [
        "UNTANGLE_DXIL_SPIRV_REFERENCE",
        "UNTANGLE_DXIL_SPIRV_RECORD",
        "UNTANGLE_DXIL_SPIRV_SUMMARY",
        "UNTANGLE_DXIL_SPIRV_DELEGATE",
    ] {
        c.env_remove(var);
    }
    c
}
