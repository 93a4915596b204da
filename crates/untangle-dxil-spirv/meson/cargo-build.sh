#!/bin/sh
# Builds libuntangle_dxil_spirv.a with cargo and copies it to meson's output when it changed.
# Usage: cargo-build.sh CARGO UNTANGLE_ROOT TARGET_DIR OUTPUT. The cargo profile is
# $UNTANGLE_PROFILE (default `dist`: release with fat LTO and one codegen unit, what a layer
# ships; `release` builds faster).
set -eu
cargo=$1 root=$2 target=$3 out=$4
profile=${UNTANGLE_PROFILE:-dist}
CARGO_TARGET_DIR=$target "$cargo" build --profile "$profile" --quiet --manifest-path "$root/Cargo.toml" -p untangle-dxil-spirv --lib
lib=$target/$profile/libuntangle_dxil_spirv.a
if ! cmp -s "$lib" "$out"; then
  cp "$lib" "$out.tmp"
  mv "$out.tmp" "$out"
fi
