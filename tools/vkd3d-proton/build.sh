#!/usr/bin/env bash
# Build vkd3d-proton (Linux, native, with its d3d12 test suite) from the shared archive, in one
# of two variants, into a self-contained folder to carry to the device machine.
#
#   tools/vkd3d-proton/build.sh stock    OUTDIR   vkd3d-proton as shipped (its own dxil-spirv)
#   tools/vkd3d-proton/build.sh untangle OUTDIR   subprojects/dxil-spirv replaced by
#                                                 crates/untangle-dxil-spirv (meson/)
#   tools/vkd3d-proton/build.sh delegate OUTDIR   only libdxil-spirv-c-shared.so (the C tests
#                                                 of crates/untangle-dxil-spirv use it)
#
# OUTDIR gets, stripped: d3d12 (the test suite), libvkd3d-proton-d3d12.so,
# libvkd3d-proton-d3d12core.so, and for `untangle` libdxil-spirv-c-shared.so (the archive's
# own dxil-spirv as a shared library: the delegate for DXBC and the reference mode, found
# next to libvkd3d-proton-d3d12core.so), plus BUILD-INFO.txt. Put OUTDIR inside the
# repository (an ignored path such as target/vkd3d/untangle) to carry it to the device:
# tools/vkd3d-proton/run-suite.sh runs the suite from it.
#
# Incremental: the archive is unpacked once (again only when it changes), meson is set up
# once per variant, and every later run is `ninja` (plus cargo for `untangle`), so only what
# changed is rebuilt. Sources and build trees live in $VKD3D_PROTON_WORK (default
# target/vkd3d-proton, ignored): archive/ (pristine sources, built by `stock`, and the
# delegate's dxil-spirv), src-untangle/ (sources with the replaced subproject),
# build-stock/, build-untangle/, build-delegate/.
#
# Environment: VKD3D_PROTON_ARCHIVE (default ../shared/vkd3d-proton/vkd3d-proton-src.tar.xz
# beside the repository), VKD3D_PROTON_WORK, JOBS (default: every core), NICE (niceness,
# default 10), CARGO (default cargo). Missing Debian packages (meson, ninja-build,
# glslang-tools, wine64-tools for widl, g++, binutils, xz-utils) are installed with apt-get.
# Times on 2 cores: see tools/vkd3d-proton/README.md.
set -euo pipefail
usage="usage: $0 stock|untangle|delegate OUTDIR"
variant=${1:?$usage}; out=${2:?$usage}
case $variant in stock|untangle|delegate) ;; *) echo "$usage" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
archive=${VKD3D_PROTON_ARCHIVE:-$repo/../shared/vkd3d-proton/vkd3d-proton-src.tar.xz}
work=${VKD3D_PROTON_WORK:-$repo/target/vkd3d-proton}
jobs=${JOBS:-$(nproc)}
log() { printf '[build.sh %s %s] %s\n' "$variant" "$(date +%T)" "$*" >&2; }
quiet() { nice -n "${NICE:-10}" "$@"; }
t0=$(date +%s)

[ -f "$archive" ] || { echo "no archive at $archive (set VKD3D_PROTON_ARCHIVE)" >&2; exit 1; }
mkdir -p "$work" "$out"; out=$(cd "$out" && pwd); work=$(cd "$work" && pwd)

# --- tools -----------------------------------------------------------------------------------
pkgs=()
command -v meson >/dev/null || pkgs+=(meson)
command -v ninja >/dev/null || pkgs+=(ninja-build)
command -v glslangValidator >/dev/null || pkgs+=(glslang-tools)
command -v widl >/dev/null || command -v widl-stable >/dev/null || pkgs+=(wine64-tools)
command -v c++ >/dev/null || pkgs+=(g++)
command -v strip >/dev/null || pkgs+=(binutils)
command -v xz >/dev/null || pkgs+=(xz-utils)
if [ ${#pkgs[@]} -gt 0 ]; then
  log "installing ${pkgs[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi

# --- sources ---------------------------------------------------------------------------------
# unpack DIR: DIR/vkd3d holds the archive's sources; redone only when the archive changes.
unpack() {
  local dir=$1 stamp; stamp="$(stat -c '%s %Y' "$archive") $archive"
  if [ ! -d "$dir/vkd3d" ] || [ "$(cat "$dir/.unpacked" 2>/dev/null)" != "$stamp" ]; then
    log "unpacking $(basename "$archive") into $dir"
    rm -rf "$dir"; mkdir -p "$dir.tmp"; tar -xJf "$archive" -C "$dir.tmp"; mv "$dir.tmp" "$dir"
    echo "$stamp" > "$dir/.unpacked"
  fi
}
unpack "$work/archive"
pristine=$work/archive/vkd3d

# meson_build SRC BUILD [meson options...]: set up once, then ninja.
meson_build() {
  local src=$1 build=$2; shift 2
  if [ ! -f "$build/build.ninja" ]; then
    log "meson setup $build"
    rm -rf "$build"
    quiet meson setup "$build" "$src" --buildtype release "$@" > "$build.setup.log" 2>&1 ||
      { cat "$build.setup.log" >&2; exit 1; }
  elif [ $# -gt 0 ]; then
    quiet meson configure "$build" "$@" > "$build.setup.log" 2>&1 || { cat "$build.setup.log" >&2; exit 1; }
  fi
  log "ninja -C $build"
  quiet ninja -C "$build" -j "$jobs"
}

# The delegate: the archive's dxil-spirv as libdxil-spirv-c-shared.so (delegate/meson.build).
build_delegate() {
  local src=$work/delegate-src
  mkdir -p "$src/subprojects"
  ln -sfn "$here/delegate/meson.build" "$src/meson.build"
  ln -sfn "$pristine/subprojects/dxil-spirv" "$src/subprojects/dxil-spirv"
  ln -sfn "$pristine/subprojects/dxil-spirv/subprojects/dxbc-spirv" "$src/subprojects/dxbc-spirv"
  meson_build "$src" "$work/build-delegate"
  # Only the C API may be visible: link.T's `global: dxil_spv_*; local: *`.
  local bad; bad=$(nm -D --defined-only "$work/build-delegate/libdxil-spirv-c-shared.so" | awk '$2 ~ /[TDBRVW]/ && $3 !~ /^dxil_spv_/ {print $3}' | head -5)
  [ -z "$bad" ] || { echo "delegate exports more than dxil_spv_*: $bad" >&2; exit 1; }
}

case $variant in
delegate)
  build_delegate
  ;;
stock)
  meson_build "$pristine" "$work/build-stock" -Denable_tests=true
  build=$work/build-stock
  ;;
untangle)
  unpack "$work/src-untangle"
  sub=$work/src-untangle/vkd3d/subprojects/dxil-spirv
  # Replace the subproject by ours (file links: edits in the repository reach the next ninja).
  if [ ! -f "$sub/.untangle" ]; then rm -rf "$sub"; mkdir -p "$sub"; touch "$sub/.untangle"; fi
  for f in "$repo"/crates/untangle-dxil-spirv/meson/*; do ln -sfn "$f" "$sub/$(basename "$f")"; done
  ln -sfn "$repo/crates/untangle-dxil-spirv/include/dxil_spirv_c.h" "$sub/dxil_spirv_c.h"
  # Build the crate first, so ninja's own cargo step (meson/cargo-build.sh) finds it done and
  # the compilers do not share the cores with cargo.
  export UNTANGLE_PROFILE=${UNTANGLE_PROFILE:-dist}
  log "cargo build --profile $UNTANGLE_PROFILE -p untangle-dxil-spirv"
  quiet "${CARGO:-cargo}" build --profile "$UNTANGLE_PROFILE" --manifest-path "$repo/Cargo.toml" -p untangle-dxil-spirv --lib -j "$jobs"
  build_delegate
  meson_build "$work/src-untangle/vkd3d" "$work/build-untangle" -Denable_tests=true \
    "-Ddxil-spirv:untangle_root=$repo" "-Ddxil-spirv:cargo=${CARGO:-cargo}"
  build=$work/build-untangle
  ;;
esac

# --- the carried folder ------------------------------------------------------------------------
files=()
[ "$variant" = delegate ] || files+=("$build/tests/d3d12" "$build/libs/d3d12/libvkd3d-proton-d3d12.so" "$build/libs/d3d12core/libvkd3d-proton-d3d12core.so")
[ "$variant" = stock ] || files+=("$work/build-delegate/libdxil-spirv-c-shared.so")
[ "$variant" != stock ] || rm -f "$out/libdxil-spirv-c-shared.so"
# vkd3d-proton writes its pipeline cache to the working directory: one left here by a run
# from this folder would be carried along and answer the next run's shaders from the cache.
rm -f "$out"/vkd3d-proton.cache*
for f in "${files[@]}"; do
  [ -f "$f" ] || { echo "missing $f" >&2; exit 1; }
  if [ ! -f "$out/$(basename "$f")" ] || [ "$f" -nt "$out/$(basename "$f")" ]; then
    strip --strip-unneeded -o "$out/$(basename "$f").tmp" "$f" && mv "$out/$(basename "$f").tmp" "$out/$(basename "$f")"
  fi
done
{
  echo "variant: $variant"
  echo "archive: $(basename "$archive") ($(stat -c %s "$archive") bytes)"
  echo "untangle: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$repo" diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
  echo "built: $(date -u +%FT%TZ) on $(uname -m)"
  (cd "$out" && ls -l ./* | awk '$NF != "./BUILD-INFO.txt" {print $5, $NF}')
} > "$out/BUILD-INFO.txt"
log "done in $(( $(date +%s) - t0 )) s: $out ($(du -sh "$out" | cut -f1))"
cat "$out/BUILD-INFO.txt"
