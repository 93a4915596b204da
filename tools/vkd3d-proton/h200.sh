#!/usr/bin/env bash
# Issue 31's acceptance run on the device machine: vkd3d-proton's whole d3d12 suite with the
# stock build and the untangle build, in the same call, spread over N calls.
#
#   TOTAL=515 tools/vkd3d-proton/h200.sh 0 1              (call 1: every test)
#   ONLY=LIST TOTAL=515 tools/vkd3d-proton/h200.sh 0 1    (later calls: the tests of LIST, in
#                                                         its order: what earlier calls left,
#                                                         from compare.py --remaining ALL RESULTS...)
#   tools/vkd3d-proton/h200.sh K N                        (or fixed shards, one call per K)
#
# The device tool's call: carry [".gl", "target/vkd3d/stock", "target/vkd3d/untangle"] and the
# ONLY list (tools/gpu-suite-prepare.sh unpacks the Vulkan loader debs into .gl; build.sh
# makes the two builds), timeout 600. Everything comes back as one file, $OUT/h200-K.tgz (the
# tool returns at most 8 files); merge the calls' results with
#   tools/vkd3d-proton/compare.py RESULTS...        (regressions first; a later attempt of a
#                                                   test replaces an unfinished one)
#   tools/vkd3d-proton/times.py RESULTS...
# On 2026-11-28 three calls (515, 505, 123 s) ended all 547 tests in both builds.
#
# What the calls taught (tools/vkd3d-proton/README.md): device creation takes the NVIDIA
# driver's global resource-manager lock, so more processes move fewer tests (16: 1.2 tests/s;
# 8: 2/s), and graphics-heavy tests wait minutes at 14-16 processes. So the tests of
# heavy-tests.txt run one per process (CH=1, 4 at once, up to the whole call each) next to
# chunks of 6 others in 6 processes, both variants interleaved.
set -uo pipefail
k=${1:?usage: h200.sh K N}; n=${2:?usage: h200.sh K N}
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
cd "$repo"
out=${OUT:-/tmp}
if [ -d .gl ] && command -v nvidia-smi >/dev/null; then  # the device machine only
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
variants=(stock=target/vkd3d/stock untangle=target/vkd3d/untangle)
lists=$(mktemp -d)
LD_LIBRARY_PATH=target/vkd3d/stock target/vkd3d/stock/d3d12 --list-tests > "$lists/all.txt"
if [ -n "${ONLY:-}" ]; then
  # In ONLY's order (what must run first goes first), tests the suite has.
  grep -xF -f "$lists/all.txt" "$ONLY" | awk '!seen[$0]++' > "$lists/only.txt"; mv "$lists/only.txt" "$lists/all.txt"
fi
grep -v '^#' "$here/heavy-tests.txt" | grep -xF -f - "$lists/all.txt" > "$lists/heavy.txt"
grep -vxF -f "$lists/heavy.txt" "$lists/all.txt" > "$lists/light.txt"
total=${TOTAL:-540}
export SHADOW=1 SHARD="$k/$n" TOTAL="$total"
OUT="$out/h200-$k/heavy" TESTS="$lists/heavy.txt" CH=1 P=${P_HEAVY:-4} TT=${TT_HEAVY:-$total} \
  "$here/run-suite.sh" "${variants[@]}" > "$out/h200-$k-heavy.log" 2>&1 &
OUT="$out/h200-$k/light" TESTS="$lists/light.txt" CH=${CH_LIGHT:-6} P=${P_LIGHT:-6} TT=${TT_LIGHT:-300} \
  "$here/run-suite.sh" "${variants[@]}" > "$out/h200-$k-light.log" 2>&1 &
wait
cp "$lists"/*.txt "$out/h200-$k/"
cp "$out/h200-$k"-*.log "$out/h200-$k/"
tar -czf "$out/h200-$k.tgz" -C "$out" "h200-$k"
tail -n 4 "$out/h200-$k"-*.log
