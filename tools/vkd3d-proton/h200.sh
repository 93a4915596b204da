#!/usr/bin/env bash
# Issue 31's acceptance run on the device machine: vkd3d-proton's whole d3d12 suite with the
# stock build and the untangle build, in the same call, spread over N calls.
#
#   tools/vkd3d-proton/h200.sh K N        (one device call per K = 0 .. N-1; N = 3 fits)
#   ONLY=LIST tools/vkd3d-proton/h200.sh K 1   (only the tests of LIST: what earlier calls left,
#                                              from compare.py --remaining ALL RESULTS...)
#
# The device tool's call: carry [".gl", "target/vkd3d/stock", "target/vkd3d/untangle"]
# (tools/gpu-suite-prepare.sh unpacks the Vulkan loader debs into .gl; build.sh makes the
# two builds), command `tools/vkd3d-proton/h200.sh K 3`, timeout 600. Everything comes back
# as one file, $OUT/h200-K.tgz (the tool returns at most 8 files); merge the shards with
#   tools/vkd3d-proton/compare.py RESULTS-0 RESULTS-1 RESULTS-2        (regressions first)
#   tools/vkd3d-proton/times.py RESULTS-*/vkd3d-suite/*-untangle-summary.jsonl
#
# What the earlier calls taught (tools/vkd3d-proton/README.md): the driver serializes about a
# second per device creation, so the suite moves at about one test per second whatever the
# process count; graphics-heavy tests take minutes each at 12 or more processes. So the tests
# of heavy-tests.txt run one per process (CH=1) next to the others (CH=8), both variants
# interleaved, and each chunk may run up to TT seconds.
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
