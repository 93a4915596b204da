#!/usr/bin/env bash
# The C API as a layer ships it (issue 33, item 5): a stripped shared library under its
# SONAME, a stripped static library, and the header.
#
#   tools/package-capi.sh OUTDIR
#
# OUTDIR gets include/untangle.h, lib/libuntangle_capi.so.ABI (the SONAME; ABI is the header's
# UNTANGLE_ABI_VERSION) with the link libuntangle_capi.so, and lib/libuntangle_capi.a. Built
# with cargo's `dist` profile (fat LTO, no debug info compiled in). The static library's copy
# of the Rust standard library still carries its own debug info and LLVM bitcode (`.llvmbc`,
# for cross-language LTO, which a C layer does not use): both are stripped, 46 MB -> 15 MB
# (symbols kept: perf and callgrind still name functions). The script fails if a debug or
# bitcode section is left in either library, if the SONAME is not the header's, or if a C
# program cannot link and run against each library.
set -euo pipefail
out=${1:?usage: tools/package-capi.sh OUTDIR}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
cargo build --profile dist -p untangle-capi
abi=$(sed -n 's/^#define UNTANGLE_ABI_VERSION \([0-9]*\).*/\1/p' crates/untangle-capi/include/untangle.h)
[ -n "$abi" ] || { echo "no UNTANGLE_ABI_VERSION in the header" >&2; exit 1; }
mkdir -p "$out/include" "$out/lib"
cp crates/untangle-capi/include/untangle.h "$out/include/"
cp target/dist/libuntangle_capi.so "$out/lib/libuntangle_capi.so.$abi"
ln -sf "libuntangle_capi.so.$abi" "$out/lib/libuntangle_capi.so"
strip --strip-debug --remove-section=.llvmbc --remove-section=.llvmcmd \
  -o "$out/lib/libuntangle_capi.a" target/dist/libuntangle_capi.a
for f in "$out/lib/libuntangle_capi.so.$abi" "$out/lib/libuntangle_capi.a"; do
  if readelf -S --wide "$f" 2>/dev/null | grep -Eq ' \.(debug_|llvmbc|llvmcmd)'; then
    echo "$f: debug or bitcode sections left" >&2; exit 1
  fi
done
soname=$(readelf -d "$out/lib/libuntangle_capi.so.$abi" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libuntangle_capi.so.$abi" ] || { echo "SONAME $soname, header ABI $abi" >&2; exit 1; }
# Both libraries link and run from C, the shared one found under its SONAME.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/v.c" <<'C'
#include "untangle.h"
#include <stdio.h>
int main(void) {
    unsigned major = 0; const char *text = NULL;
    if (untangle_version(&major, NULL, NULL, &text) != UNTANGLE_OK || !text) return 1;
    printf("untangle %s (major %u), %s\n", text, major, untangle_status_name(UNTANGLE_CALLBACK));
    return 0;
}
C
cc "$tmp/v.c" -I"$out/include" "$out/lib/libuntangle_capi.a" -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o "$tmp/static"
cc "$tmp/v.c" -I"$out/include" -L"$out/lib" -luntangle_capi -Wl,-rpath,"$out/lib" -o "$tmp/shared"
"$tmp/static" && "$tmp/shared"
ls -l "$out/lib" | awk 'NR > 1 { printf "%s %s\n", $5, $9 }'
