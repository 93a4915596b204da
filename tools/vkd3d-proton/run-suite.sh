#!/usr/bin/env bash
# Runs vkd3d-proton's d3d12 test suite on a Vulkan device, for one or several builds of
# tools/vkd3d-proton/build.sh, a few tests per process, several processes at once.
#
#   tools/vkd3d-proton/run-suite.sh VARIANT...
#
# VARIANT is [NAME=]DIR[:VAR=VALUE...]: a folder made by build.sh (d3d12 and the .so files),
# the name results go under (default: the folder's name) and environment for its processes,
# e.g.  stock=target/vkd3d/stock  untangle-ref=target/vkd3d/untangle:UNTANGLE_DXIL_SPIRV_REFERENCE=1
#
# The NVIDIA driver refuses Vulkan instances after about 30 in one process, so each process
# (a chunk) runs CH tests, excluding every other through VKD3D_TEST_EXCLUDE. Chunks of all
# variants are interleaved (chunk 0 of each variant, then chunk 1, ...), so the variants
# share the machine's conditions. With VKD3D_TEST_DEBUG=2 the suite prints one line per
# passing check; an awk filter turns them into one "NAME: N passed" line per test, so the
# logs stay small and compare.py can count passes per test.
#
# Results in $OUT/vkd3d-suite/ (default OUT=/tmp):
#   meta.txt                 settings, machine, driver
#   NAME-chunks.tsv          per chunk: status (ended, stalled, crashed, not-started), exit
#                            status, seconds, tests, the suite's closing line
#   NAME.tgz                 per chunk: .log (the suite's output, filtered), .err (its
#                            stderr: vkd3d-proton's messages; DETAIL=1 only), .progress (a
#                            timestamped line per test begun), .stall (for a chunk that ran
#                            past its limit: the test it was in, /proc state of the process
#                            and every thread, wchan, kernel stacks when readable, gdb
#                            backtraces with GDB=1, the log's tail, load, GPU state)
#   NAME-untangle-summary.jsonl  the exit summaries of untangle's library, one per process
#   times.txt                untangle's translation times against dxil-spirv's (times.py;
#                            dxil-spirv's column filled with SHADOW=1)
#   compare with: tools/vkd3d-proton/compare.py $OUT/vkd3d-suite
#
# Environment (defaults in brackets):
#   CH [8] tests per chunk; P [6] processes at once; TT [150] seconds a chunk may run;
#   TOTAL [540] seconds for everything (no chunk starts that could not finish in time);
#   SHARD=K/N only chunks whose number is K modulo N (spread the suite over device calls);
#   TESTS a file of test names to run instead of the whole list; SKIP=name,name tests not to
#   run (on lavapipe, test_fence_pending_signal_cpu_rewind_plain never ends);
#   DETAIL [1] count passes per test (VKD3D_TEST_DEBUG=2 + awk); 0: the suite's own output.
#   PACK=FILE also write every result above into one .tgz (the device tool returns at most a
#   few files per call: pass PACK=$OUT/suite.tgz there, or the chunk logs are left behind).
#   SHADOW [0] 1: UNTANGLE_DXIL_SPIRV_SHADOW=1 for every variant (a variant's own
#   :UNTANGLE_DXIL_SPIRV_SHADOW=0 overrides): untangle's library also runs dxil-spirv on
#   each DXIL shader it translates, only to time it (stock builds ignore the variable). An
#   UNTANGLE_DXIL_SPIRV_* variable in run-suite.sh's own environment reaches every variant too.
# Mitigations for chunks that stall (seen with 16 processes, not with 6):
#   NV_CACHE [chunk] NVIDIA's shader disk cache: chunk (a private __GL_SHADER_DISK_CACHE_PATH
#            per chunk), off (__GL_SHADER_DISK_CACHE=0), shared (the driver's default,
#            ~/.cache/nvidia, shared by every process: suspected of serializing them)
#   VKD3D_CACHE [chunk] vkd3d-proton's pipeline cache: chunk (its default, the working
#            directory, which is private per chunk), off (VKD3D_SHADER_CACHE_PATH=0)
#   CPUS [0] pin each running chunk to this many CPUs of its own (slots), 0: no pinning
#   GDB [0] 1: attach gdb to a stalled process for all threads' backtraces before killing it
set -uo pipefail
[ $# -ge 1 ] || { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }

OUTROOT=${OUT:-/tmp}/vkd3d-suite
mkdir -p "$OUTROOT"
L=$(mktemp -d /tmp/vkd3d-suite.XXXXXX)
start=$(date +%s)
export CH=${CH:-8} P=${P:-6} TT=${TT:-150} TOTAL=${TOTAL:-540} DETAIL=${DETAIL:-1} SHADOW=${SHADOW:-0}
export NV_CACHE=${NV_CACHE:-chunk} VKD3D_CACHE=${VKD3D_CACHE:-chunk} CPUS=${CPUS:-0} GDB=${GDB:-0}
export DEADLINE=$((start + TOTAL)) L
# The device machine's NVIDIA driver, unless the environment names one (lavapipe here:
# `. target/lavapipe/env`, from tools/vkd3d-proton/lavapipe.sh).
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && export VK_DRIVER_FILES=$icd

# ---- variants ---------------------------------------------------------------------------------
names=()
for spec in "$@"; do
  name=${spec%%=*}; rest=${spec#*=}
  if [ "$name" = "$spec" ] || [[ "$name" == */* ]] || [[ "$name" == *:* ]]; then name=""; rest=$spec; fi
  dir=${rest%%:*}; envs=""; [ "$dir" != "$rest" ] && envs=${rest#*:}
  dir=$(cd "$dir" && pwd) || { echo "no folder $dir" >&2; exit 2; }
  [ -n "$name" ] || name=$(basename "$dir")
  [ -x "$dir/d3d12" ] || { echo "$dir has no d3d12" >&2; exit 2; }
  mkdir -p "$L/$name"
  echo "$dir" > "$L/$name/dir"
  tr ':' '\n' <<< "$envs" | sed '/^$/d' > "$L/$name/env"
  names+=("$name")
done

first=$(cat "$L/${names[0]}/dir")
# all.txt: every test (a chunk excludes all but its own); list.txt: the tests to run.
LD_LIBRARY_PATH=$first${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$first/d3d12" --list-tests > "$L/all.txt" ||
  { echo "d3d12 --list-tests failed" >&2; exit 1; }
if [ -n "${TESTS:-}" ]; then grep -xF -f <(grep -v '^\s*$' "$TESTS") "$L/all.txt" > "$L/list.txt"; else cp "$L/all.txt" "$L/list.txt"; fi
if [ -n "${SKIP:-}" ]; then grep -vxF -f <(tr ',' '\n' <<< "$SKIP") "$L/list.txt" > "$L/list.kept"; mv "$L/list.kept" "$L/list.txt"; fi
for n in "${names[@]}"; do
  d=$(cat "$L/$n/dir")
  LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$d/d3d12" --list-tests | cmp -s - "$L/all.txt" ||
    echo "warning: $n lists other tests than ${names[0]}" >&2
done
split -l "$CH" -d -a 3 "$L/list.txt" "$L/chunk."
sh=${SHARD:-0/1}; k=${sh%/*}; nshards=${sh#*/}
: > "$L/jobs"
for c in "$L"/chunk.???; do
  num=${c##*.}; (( 10#$num % nshards == k )) || continue
  for n in "${names[@]}"; do echo "$n ${c##*/}" >> "$L/jobs"; done
done
echo "$(wc -l < "$L/list.txt") tests, $(ls "$L"/chunk.??? | wc -l) chunks of $CH; shard $sh: $(wc -l < "$L/jobs") jobs for ${names[*]}; P=$P TT=$TT TOTAL=$TOTAL NV_CACHE=$NV_CACHE VKD3D_CACHE=$VKD3D_CACHE CPUS=$CPUS SHADOW=$SHADOW"

# ---- one chunk ----------------------------------------------------------------------------------
# The awk filter of DETAIL=1: passes are counted per test, everything else passes through.
export AWK_FILTER='
/: Test succeeded\.$/ { split($0, a, ":"); ok[a[1]]++; next }
/ ======== .* begin ========$/ { print; fflush(); next }
/ ======== .* end ==========$/ { done[$3] = 1; print $3 ": " (ok[$3] + 0) " passed"; print; fflush(); next }
{ print }
END { for (t in ok) if (!(t in done)) print t ": " ok[t] " passed (unfinished)"; fflush() }'

diagnose() { # PID START LOG: what a stalled process is doing
  local pid=$1 t0=$2 log=$3 t
  echo "stalled after $(( $(date +%s) - t0 )) s"
  echo "in test: $(grep -a ' ======== .* begin ========' "$log" | tail -1 | awk '{print $3}')"
  echo "last test ended: $(grep -a ' ======== .* end ==========' "$log" | tail -1 | awk '{print $3}')"
  echo "load: $(cat /proc/loadavg); d3d12 processes running: $(pgrep -c -x d3d12)"
  echo "--- /proc/$pid/status"; grep -E '^(State|Threads|VmRSS|VmSize|voluntary|nonvoluntary)' "/proc/$pid/status" 2>&1
  echo "wchan: $(cat "/proc/$pid/wchan" 2>&1)"
  echo "--- threads: tid comm state wchan utime stime (ticks)"
  for t in /proc/"$pid"/task/*; do
    [ -r "$t/stat" ] || continue
    # stat: pid (comm) state ... utime=14 stime=15; comm may hold spaces, so cut after ')'.
    local st; st=$(sed 's/^.*) //' "$t/stat")
    echo "${t##*/} $(cat "$t/comm" 2>/dev/null) $(awk '{print $1, "utime=" $12, "stime=" $13}' <<< "$st") wchan=$(cat "$t/wchan" 2>/dev/null)"
    [ -r "$t/stack" ] && sed 's/^/    /' "$t/stack" 2>/dev/null | head -12
  done
  echo "--- open files of interest"
  ls -l "/proc/$pid/fd" 2>/dev/null | awk '{print $NF}' | grep -E 'nvidia|cache|\.nv|vkd3d' | sort | uniq -c | head -20
  if [ "$GDB" = 1 ] && command -v gdb >/dev/null; then
    echo "--- gdb"; timeout 60 gdb -p "$pid" -batch -ex 'thread apply all bt 12' 2>&1 | grep -v '^\[New LWP' | head -300
  fi
  if command -v nvidia-smi >/dev/null; then
    echo "--- nvidia-smi"; timeout 10 nvidia-smi --query-gpu=utilization.gpu,memory.used,temperature.gpu,clocks.sm --format=csv 2>&1
    timeout 10 nvidia-smi --query-compute-apps=pid,used_memory --format=csv 2>&1 | head -20
  fi
  echo "--- log tail"; tail -n 25 "$log"
  [ -f "${log%.log}.err" ] && { echo "--- stderr tail"; tail -n 25 "${log%.log}.err"; }
}
export -f diagnose

descendants() { local p; for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done; }
export -f descendants
# mawk reads a pipe in blocks: without -W interactive a stalled test's "begin" line would sit
# in its buffer, and the log would not say which test stalled.
if awk -W version 2>&1 | grep -qi mawk; then export AWKI="awk -W interactive"; else export AWKI=awk; fi
# The suite's stdout line-buffered: a stall report's log then ends where the test stopped.
if command -v stdbuf >/dev/null; then export STDBUF="stdbuf -oL"; else export STDBUF=""; fi

one() { # NAME CHUNK
  local n=$1 c=$2 dir w log prog now t0 limit sub pid last cur rc status slot=-1 i
  dir=$(cat "$L/$n/dir"); w=$L/$n/w/$c; mkdir -p "$w"
  log=$L/$n/$c.log; prog=$L/$n/$c.progress
  now=$(date +%s); limit=$(( DEADLINE - now )); (( limit > TT )) && limit=$TT
  # Too little time left for a useful run (the shorter of TT and 30 s): leave it for later.
  if (( limit < (TT < 30 ? TT : 30) )); then echo -e "$c\tnot-started\t-\t0\t$(paste -sd' ' "$L/$c")\t" >> "$L/$n/chunks.tsv"; return; fi
  local ex; ex=$(grep -vxF -f "$L/$c" "$L/all.txt" | paste -sd,)
  local -a envs=(VKD3D_TEST_EXCLUDE="$ex" LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    UNTANGLE_DXIL_SPIRV_SUMMARY="$L/$n/untangle-summary.jsonl")
  case $NV_CACHE in chunk) mkdir -p "$w/nv"; envs+=(__GL_SHADER_DISK_CACHE_PATH="$w/nv" __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1) ;;
    off) envs+=(__GL_SHADER_DISK_CACHE=0) ;; esac
  [ "$VKD3D_CACHE" = off ] && envs+=(VKD3D_SHADER_CACHE_PATH=0)
  [ "$DETAIL" = 1 ] && envs+=(VKD3D_TEST_DEBUG=2)
  # Before the variant's own variables, which may override it.
  [ "$SHADOW" = 1 ] && envs+=(UNTANGLE_DXIL_SPIRV_SHADOW=1)
  while read -r kv; do envs+=("$kv"); done < "$L/$n/env"
  local -a pin=()
  if (( CPUS > 0 )); then # take a free slot: slot s owns CPUs s*CPUS .. s*CPUS+CPUS-1
    for ((i = 0; slot < 0; i = (i + 1) % P)); do
      if mkdir "$L/slot.$i" 2>/dev/null; then slot=$i; fi
      (( i == P - 1 && slot < 0 )) && sleep 0.2
    done
    pin=(taskset -c "$((slot * CPUS))-$((slot * CPUS + CPUS - 1))")
  fi
  t0=$(date +%s)
  # Each chunk in a session of its own, so that a stalled one is killed with everything it
  # started (the awk filter, any child), and nothing keeps its pipes open afterwards.
  if [ "$DETAIL" = 1 ]; then
    # stderr (vkd3d-proton's messages, written piecewise from several threads) goes to a file
    # of its own: merged, its pieces land inside the suite's lines and spoil the counts.
    LOGF=$log setsid bash -c 'cd "$0" && "$@" 2> "${LOGF%.log}.err" | $AWKI "$AWK_FILTER" > "$LOGF"' "$w" env "${envs[@]}" "${pin[@]}" $STDBUF "$dir/d3d12" < /dev/null &
  else
    LOGF=$log setsid bash -c 'cd "$0" && exec "$@" > "$LOGF" 2>&1' "$w" env "${envs[@]}" "${pin[@]}" "$dir/d3d12" < /dev/null &
  fi
  sub=$!; sleep 0.5
  pid=$(descendants "$sub" | while read -r p; do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = d3d12 ] && echo "$p"; done | head -1)
  [ -z "$pid" ] && [ "$(cat "/proc/$sub/comm" 2>/dev/null)" = d3d12 ] && pid=$sub
  last=""; status=ended
  while kill -0 "$sub" 2>/dev/null; do
    cur=$(tail -c 20000 "$log" 2>/dev/null | grep -a ' ======== .* begin ========' | tail -1 | awk '{print $3}')
    [ -n "$cur" ] && [ "$cur" != "$last" ] && { echo "$(date +%s) $(( $(date +%s) - t0 )) $cur" >> "$prog"; last=$cur; }
    if (( $(date +%s) - t0 >= limit )); then
      status=stalled
      [ -n "$pid" ] && diagnose "$pid" "$t0" "$log" > "$L/$n/$c.stall" 2>&1
      local all; all=$(descendants "$sub")
      [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; sleep 3
      kill -KILL -- "-$sub" $all "$sub" 2>/dev/null
      break
    fi
    sleep 1
  done
  # A process in uninterruptible sleep outlives SIGKILL: never wait on it for ever.
  for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$sub" 2>/dev/null || break; sleep 1; done
  if kill -0 "$sub" 2>/dev/null; then
    status=unkillable; rc=-
    echo "--- still alive 10 s after SIGKILL: $(grep State "/proc/${pid:-$sub}/status" 2>/dev/null)" >> "$L/$n/$c.stall"
  else
    wait "$sub" 2>/dev/null; rc=$?
  fi
  (( slot >= 0 )) && rmdir "$L/slot.$slot"
  local closing; closing=$(grep -a 'tests executed' "$log" | tail -1)
  if [ "$status" = ended ] && [ -z "$closing" ]; then status=crashed; fi
  echo -e "$c\t$status\t$rc\t$(( $(date +%s) - t0 ))\t$(paste -sd' ' "$L/$c")\t$closing" >> "$L/$n/chunks.tsv"
  rm -rf "$w"
}
export -f one

# ---- run ------------------------------------------------------------------------------------------
xargs -P "$P" -L 1 bash -c 'one "$0" "$1"' < "$L/jobs"
echo "stopped after $(( $(date +%s) - start )) s"

{
  echo "date: $(date -u +%FT%TZ)"; echo "host: $(uname -a)"
  echo "variants: $*"; echo "shard: $sh; CH=$CH P=$P TT=$TT TOTAL=$TOTAL DETAIL=$DETAIL NV_CACHE=$NV_CACHE VKD3D_CACHE=$VKD3D_CACHE CPUS=$CPUS GDB=$GDB SHADOW=$SHADOW"
  echo "cpus: $(nproc)"; command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for n in "${names[@]}"; do echo "$n: $(cat "$L/$n/dir") $(paste -sd' ' "$L/$n/env")"; cat "$(cat "$L/$n/dir")/BUILD-INFO.txt" 2>/dev/null | sed 's/^/  /'; done
} > "$OUTROOT/meta.txt"
for n in "${names[@]}"; do
  sort "$L/$n/chunks.tsv" > "$OUTROOT/$n-chunks.tsv" 2>/dev/null
  rm -f "$OUTROOT/$n-untangle-summary.jsonl" # not a previous run's
  [ -f "$L/$n/untangle-summary.jsonl" ] && cp "$L/$n/untangle-summary.jsonl" "$OUTROOT/$n-untangle-summary.jsonl"
  (cd "$L" && tar -czf "$OUTROOT/$n.tgz" --exclude="$n/w" "$n")
  awk -F'\t' -v n="$n" '
    { s[$2]++; if (match($6, /[0-9]+ tests executed \([0-9]+ failures/)) { split(substr($6, RSTART, RLENGTH), a, /[ (]+/); t += a[1]; f += a[4] }
      if (match($6, /[0-9]+ skipped/)) { split(substr($6, RSTART, RLENGTH), b, " "); k += b[1] } }
    END { printf "%s: %d chunks: %d ended, %d stalled (%d unkillable), %d crashed, %d not started; %d checks, %d failures, %d skips\n",
          n, NR, s["ended"], s["stalled"] + s["unkillable"], s["unkillable"], s["crashed"], s["not-started"], t, f, k }' "$OUTROOT/$n-chunks.tsv"
done | tee "$OUTROOT/totals.txt"
# Translation times from this run's summaries (variants without untangle's library write none).
sums=(); for n in "${names[@]}"; do [ -f "$OUTROOT/$n-untangle-summary.jsonl" ] && sums+=("$OUTROOT/$n-untangle-summary.jsonl"); done
if (( ${#sums[@]} )) && command -v python3 >/dev/null; then
  python3 "$(dirname "$0")/times.py" "${sums[@]}" > "$OUTROOT/times.txt" 2>&1 && cat "$OUTROOT/times.txt"
fi
for n in "${names[@]}"; do
  ls "$L/$n"/*.stall >/dev/null 2>&1 && { echo "== $n stalls"; for s in "$L/$n"/*.stall; do echo "$(basename "$s" .stall): $(sed -n 2p "$s")"; done; }
done
# One file for the results (the device tool brings back a few files per call, not a folder).
if [ -n "${PACK:-}" ]; then tar -czf "$PACK" -C "$(dirname "$OUTROOT")" "$(basename "$OUTROOT")" && echo "packed: $PACK"; fi
rm -rf "$L"
