#!/bin/sh
# Builds libuntangle_dxil_spirv.a with cargo (release profile) and copies it to meson's
# output when it changed. Usage: cargo-build.sh CARGO UNTANGLE_ROOT TARGET_DIR OUTPUT
set -eu
cargo=$1 root=$2 target=$3 out=$4
CARGO_TARGET_DIR=$target "$cargo" build --release --quiet --manifest-path "$root/Cargo.toml" -p untangle-dxil-spirv --lib
lib=$target/release/libuntangle_dxil_spirv.a
if ! cmp -s "$lib" "$out"; then
  cp "$lib" "$out.tmp"
  mv "$out.tmp" "$out"
fi
