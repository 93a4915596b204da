#!/usr/bin/env bash
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
# The whole GPU trace suite on the NVIDIA device machine: 10,000 random CFGs (every size
# class, up to 600 blocks) and every corpus CFG function (exported on the host), each
# structurized, emitted as a batch shape module, run with 64 decision streams, every trace
# slice compared with the original CFG. Prepare with tools/gpu-suite-prepare.sh, then run
# `bash .vkrunner/gpu-suite.sh` from the repository root on the device, carrying .gl and
# .vkrunner. RANDOM_CASES (10000), FIRST_SEED (0) and GPUS (16 device instances) may be set.
# SUITE=traces (default) runs the above; SUITE=corpus-shaders runs `untangle-gpu
# corpus-shaders` instead (the vkd3d-proton compute shaders with known answers, from
# .vkrunner/corpus-dxil: a pass/fail/skip table, every root signature under push-constant
# budgets of 128 and 256 bytes); SUITE=diff runs `untangle-gpu diff-corpus` (every corpus
# compute shader against the DXIL interpreter, SEEDS (20) random inputs each), `diff-gen`
# (DIFF_GEN (10000) generated programs, 4 inputs each) and both again under each deliberately
# broken lowering (`--sabotage`, which must fail them); SUITE=graphics runs `untangle-gpu
# graphics` (the vkd3d-proton graphics pipelines with expected pixels, mesh pipelines with
# amplification/mesh/pixel shaders included (skipped, saying so, without VK_EXT_mesh_shader),
# from .vkrunner/corpus-dxil: a pass/fail/skip/known-failure table, then a self-check that
# every passing pipeline fails with one expected value changed; docs/graphics-runner.md);
# SUITE=workgraphs runs the test binary `gpu_work_graphs` (every vkd3d-proton work-graph
# library through the test kit's reference scheduler, expected buffers compared; the
# libraries are copied to ../shared/corpus, where the binary looks for them);
# SUITE=raytracing runs the test binary `gpu_ray_tracing` (rt.default's pipeline, callable
# shaders, inline ray queries, and SM 6.9 shader execution reordering: hit objects traced,
# reordered and invoked, skipped without VK_NV_ray_tracing_invocation_reorder);
# SUITE=scaling runs the scaling benchmark (BENCHMARKS.md) with the system allocator and with
# mimalloc, writing scaling-system.md and scaling-mimalloc.md;
# SUITE=device runs corpus-shaders, diff, graphics, workgraphs and raytracing; SUITE=all runs
# everything.
set -uo pipefail
R=.vkrunner
nvidia-smi -L 2>/dev/null || true
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$icd" ] && ! ls /usr/share/vulkan/icd.d/nvidia_icd*.json /etc/vulkan/icd.d/nvidia_icd*.json >/dev/null 2>&1; then
  export VK_DRIVER_FILES=$icd __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
log=${OUT:-/tmp}/gpu-suite.log
threads=$(nproc)
start=$(date +%s)
suite=${SUITE:-traces}
# SUITE=device: corpus shaders and differential runs, no random traces.
[ "$suite" = device ] && { SUITE_DIFF=1; SUITE_SHADERS=1; SUITE_GRAPHICS=1; SUITE_WORKGRAPHS=1; SUITE_RAYTRACING=1; }
crc=0
if [ "$suite" = scaling ]; then
  # The scaling benchmark on this quiet machine, system allocator then mimalloc (each
  # (shape, size) in a child process of its own; SCALING_ARGS overrides the options).
  args=${SCALING_ARGS:---shapes diamonds,loops,unrolled --budget 8 --max-run 120 --no-csmith}
  for variant in system mimalloc; do
    # shellcheck disable=SC2086
    "$R/scaling/scaling-$variant" $args >"${OUT:-/tmp}/scaling-$variant.md" 2>"${OUT:-/tmp}/scaling-$variant.err"
    echo "scaling ($variant): exit $? after $(( $(date +%s) - start )) s"
  done
  # One OpSwitch holds at most about 32,000 cases: the switch at 10^3 / 10^4 / 3·10^4.
  "$R/scaling/scaling-system" --shapes switch --sizes 1000,10000,30000 --budget 8 --no-csmith \
    >"${OUT:-/tmp}/scaling-switch.md" 2>/dev/null
  echo "scaling (switch): exit $? after $(( $(date +%s) - start )) s"
  exit 0
fi
if [ "$suite" = workgraphs ] || [ "$suite" = all ] || [ -n "${SUITE_WORKGRAPHS:-}" ]; then
  mkdir -p ../shared/corpus/dxil/vkd3d-proton
  cp -n "$R"/wg/*.dxil ../shared/corpus/dxil/vkd3d-proton/
  "$R/wg/gpu_work_graphs" --nocapture --test-threads 1 2>&1 | tee "${OUT:-/tmp}/gpu-work-graphs.log"
  wrc=${PIPESTATUS[0]}
  echo "workgraphs: exit $wrc after $(( $(date +%s) - start )) s"
  if [ "$suite" = workgraphs ]; then exit "$wrc"; fi
  crc=$wrc
fi
if [ "$suite" = raytracing ] || [ "$suite" = all ] || [ -n "${SUITE_RAYTRACING:-}" ]; then
  mkdir -p ../shared/corpus/dxil/vkd3d-proton
  cp -n "$R"/rt/*.dxil ../shared/corpus/dxil/vkd3d-proton/
  "$R/rt/gpu_ray_tracing" --nocapture --test-threads 1 2>&1 | tee "${OUT:-/tmp}/gpu-ray-tracing.log"
  trc=${PIPESTATUS[0]}
  echo "raytracing: exit $trc after $(( $(date +%s) - start )) s"
  if [ "$suite" = raytracing ]; then exit "$trc"; fi
  [ "$crc" = 0 ] && crc=$trc
fi
if [ "$suite" = graphics ] || [ "$suite" = all ] || [ -n "${SUITE_GRAPHICS:-}" ]; then
  "$R/untangle-gpu" graphics --corpus "$R/corpus-dxil" 2>&1 | tee "${OUT:-/tmp}/gpu-graphics.log"
  xrc=${PIPESTATUS[0]}
  echo "graphics: exit $xrc after $(( $(date +%s) - start )) s"
  if [ "$suite" = graphics ]; then exit "$xrc"; fi
  crc=$xrc
fi
if [ "$suite" = diff ] || [ "$suite" = all ] || [ -n "${SUITE_DIFF:-}" ]; then
  "$R/untangle-gpu" diff-corpus --corpus "$R/corpus-dxil" --seeds "${SEEDS:-20}" 2>&1 | tee "${OUT:-/tmp}/gpu-diff-corpus.log"
  drc=${PIPESTATUS[0]}
  echo "diff-corpus: exit $drc after $(( $(date +%s) - start )) s"
  "$R/untangle-gpu" diff-gen --random "${DIFF_GEN:-10000}" --seeds 4 2>&1 | tail -40 | tee "${OUT:-/tmp}/gpu-diff-gen.log"
  grc=${PIPESTATUS[0]}
  echo "diff-gen: exit $grc after $(( $(date +%s) - start )) s"
  [ "$drc" = 0 ] && drc=$grc
  # Deliberately broken lowerings: both runs must fail (exit 1) under each.
  for s in swap-sub unsigned; do
    "$R/untangle-gpu" diff-corpus --corpus "$R/corpus-dxil" --seeds 4 --sabotage "$s" >"${OUT:-/tmp}/gpu-sabotage-$s.log" 2>&1
    src=$?
    "$R/untangle-gpu" diff-gen --random 100 --seeds 2 --sabotage "$s" >>"${OUT:-/tmp}/gpu-sabotage-$s.log" 2>&1
    sgc=$?
    echo "sabotage $s: diff-corpus exit $src, diff-gen exit $sgc (both must be 1); $(grep -c '^FAIL' "${OUT:-/tmp}/gpu-sabotage-$s.log") failing"
    { [ "$src" = 1 ] && [ "$sgc" = 1 ]; } || drc=1
  done
  if [ "$suite" = diff ]; then exit "$drc"; fi
  [ "$crc" = 0 ] && crc=$drc
fi
if [ "$suite" = corpus-shaders ] || [ "$suite" = all ] || [ -n "${SUITE_SHADERS:-}" ]; then
  "$R/untangle-gpu" corpus-shaders --root-signatures --corpus "$R/corpus-dxil" --timeout-ms 20000 2>&1 | tee "${OUT:-/tmp}/gpu-corpus-shaders.log"
  src=${PIPESTATUS[0]}
  [ "$crc" = 0 ] && crc=$src
  echo "corpus-shaders: exit $src after $(( $(date +%s) - start )) s"
  if [ "$suite" = corpus-shaders ] || [ "$suite" = device ]; then exit "$crc"; fi
fi
"$R/untangle-gpu" run --random "${RANDOM_CASES:-10000}" --first-seed "${FIRST_SEED:-0}" \
  --cases "$R/corpus-cases" --threads "$threads" --gpus "${GPUS:-16}" --progress 1000 \
  --timeout-ms 20000 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
echo "gpu-suite: exit $rc after $(( $(date +%s) - start )) s; log $log"
[ "$rc" = 0 ] && rc=$crc
exit "$rc"
