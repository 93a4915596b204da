#!/usr/bin/env bash
# CI's part of vkd3d-proton: runs a part of vkd3d-proton's d3d12 test suite on lavapipe with the
# untangle variant (tools/vkd3d-proton/build.sh untangle; tools/test.sh builds it first, so the
# library's ABI and the meson subproject stay linkable), and fails unless every test of
# tools/vkd3d-proton/ci-tests.txt ends with no failure and no skip, and untangle translated the
# DXIL (its exit summaries count no DXIL delegated to dxil-spirv).
#
#   tools/vkd3d-proton/ci.sh [BUILD]     (default BUILD: target/vkd3d/untangle)
#
# Lavapipe: tools/vkd3d-proton/lavapipe.sh (Mesa 25 from bookworm-backports, unpacked under
# target/lavapipe; Debian 12's own Mesa cannot create a vkd3d-proton device). A test that fails
# is run once more on its own; CI fails only when it fails again (lavapipe on a loaded machine
# has timing-sensitive tests), and says so either way.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
build=${1:-$repo/target/vkd3d/untangle}
list=$here/ci-tests.txt
out=$repo/target/vkd3d-ci
[ -x "$build/d3d12" ] || { echo "no $build/d3d12: run tools/vkd3d-proton/build.sh untangle $build" >&2; exit 1; }
"$here/lavapipe.sh" "$repo/target/lavapipe" >/dev/null
# shellcheck disable=SC1091
. "$repo/target/lavapipe/env"
rm -rf "$out"; mkdir -p "$out"
run() { # run OUTDIR TESTS
  OUT=$1 TESTS=$2 P=${P:-$(nproc)} CH=8 TT=900 TOTAL=2400 "$here/run-suite.sh" "untangle=$build" | tail -2
}
t0=$(date +%s)
run "$out/1" "$list"
if ! python3 "$here/compare.py" --expect-clean "$list" --failed-out "$out/failed.txt" "$out/1/vkd3d-suite"; then
  echo "running again, one at a time: $(tr '\n' ' ' < "$out/failed.txt")"
  P=1 run "$out/2" "$out/failed.txt"
  python3 "$here/compare.py" --expect-clean "$out/failed.txt" "$out/2/vkd3d-suite"
fi
# Every DXIL shader went through untangle: no DXIL delegated, some translated.
python3 - "$out" <<'PY'
import glob, json, sys
n = {"dxil_untangle": 0, "dxil_delegated": 0, "dxil_refused": 0, "dxbc_delegated": 0}
for f in glob.glob(f"{sys.argv[1]}/*/vkd3d-suite/*-untangle-summary.jsonl"):
    for line in open(f):
        d = json.loads(line)
        for k in n:
            n[k] += d.get(k, 0)
print("untangle's summaries:", ", ".join(f"{k} {v}" for k, v in n.items()))
sys.exit(0 if n["dxil_untangle"] > 0 and n["dxil_delegated"] == 0 else 1)
PY
echo "vkd3d-proton on lavapipe: $(grep -vc '^#' "$list") tests clean in $(( $(date +%s) - t0 )) s"
