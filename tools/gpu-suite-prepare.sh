#!/usr/bin/env bash
# Host half of tools/gpu-suite.sh: puts everything the NVIDIA device machine needs into two
# folders git ignores, to be carried by the device `run` tool:
#   .gl/        the Vulkan loader and glvnd as Debian packages (amd64), unpacked there;
#   .vkrunner/  untangle-gpu built without LLVM (the device has no LLVM 14), the corpus CFG
#               functions exported as batch modules + CFG shapes, the vkd3d-proton compute
#               shaders for
#               `untangle-gpu corpus-shaders` and `diff-corpus`, and the vertex, hull, domain,
#               geometry, amplification, mesh and pixel shaders of `untangle-gpu graphics`
#               (corpus-dxil/; ../shared
#               is not on the device), the work-graph scheduler's test binary with the
#               work-graph libraries (wg/), the ray-tracing test binary (rt/), the scaling
#               benchmark with the system allocator and with mimalloc (scaling/), and a copy
#               of gpu-suite.sh.
# Then: run `bash .vkrunner/gpu-suite.sh` on the device, carrying .gl and .vkrunner
# (SUITE=corpus-shaders for the corpus compute shaders only, SUITE=graphics for the graphics
# pipelines, SUITE=device for those and the differential runs, SUITE=all for everything).
set -euo pipefail
cd "$(dirname "$0")/.."
common=$(git rev-parse --git-common-dir)
mkdir -p "$common/info"
for p in /.gl/ /.vkrunner/; do
  grep -qxF "$p" "$common/info/exclude" 2>/dev/null || echo "$p" >>"$common/info/exclude"
done
if ! ls .gl/libvulkan1_*.deb >/dev/null 2>&1; then
  mkdir -p .gl /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  # shellcheck disable=SC2086
  apt-get $o update -qq
  # shellcheck disable=SC2086
  # The loader, and glvnd: the NVIDIA ICD is libGLX_nvidia.so.0, which needs it.
  (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fi
rm -rf .vkrunner
mkdir -p .vkrunner
# Without LLVM: the device has no LLVM 14, and the native text reader reads the .ll corpus.
cargo build --release -p untangle-testkit --no-default-features --features vulkan --bin untangle-gpu
target/release/untangle-gpu export --corpus ../shared/corpus/cfg --out .vkrunner/corpus-cases
cp target/release/untangle-gpu .vkrunner/untangle-gpu
strip .vkrunner/untangle-gpu
cp tools/gpu-suite.sh .vkrunner/gpu-suite.sh
mkdir -p .vkrunner/corpus-dxil
cp ../shared/corpus/dxil/vkd3d-proton/*.cs_6_*.dxil .vkrunner/corpus-dxil/
# The graphics pipelines' stages (vkd3d-proton vs/hs/ds/gs/ps shaders, and the as/ms shaders
# of the mesh pipelines).
cp ../shared/corpus/dxil/vkd3d-proton/*.[vhdgpam]s_6_*.dxil .vkrunner/corpus-dxil/
# A test binary of the test kit (no LLVM), built with the Vulkan runners: its path.
test_binary() {
  cargo test --release -p untangle-testkit --no-default-features --features vulkan --test "$1" \
    --no-run --message-format json 2>/dev/null | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == sys.argv[1] and m.get("executable"):
        print(m["executable"])' "$1"
}
# The work-graph scheduler's test binary and the libraries it runs.
mkdir -p .vkrunner/wg
wg=$(test_binary gpu_work_graphs)
cp "$wg" .vkrunner/wg/gpu_work_graphs
strip .vkrunner/wg/gpu_work_graphs
cp ../shared/corpus/dxil/vkd3d-proton/workgraph.*.dxil .vkrunner/wg/
# The ray-tracing test binary (its own .ll inputs built in; rt.default from the corpus):
# SUITE=raytracing, including shader execution reordering.
mkdir -p .vkrunner/rt
cp "$(test_binary gpu_ray_tracing)" .vkrunner/rt/gpu_ray_tracing
strip .vkrunner/rt/gpu_ray_tracing
cp ../shared/corpus/dxil/vkd3d-proton/rt.default.lib_6_3.dxil .vkrunner/rt/
# The scaling benchmark (no LLVM), with the system allocator and with mimalloc
# (SUITE=scaling: BENCHMARKS.md's quiet-machine table).
mkdir -p .vkrunner/scaling
for variant in system mimalloc; do
  features=""
  [ "$variant" = mimalloc ] && features="--features mimalloc"
  # shellcheck disable=SC2086
  cargo build --release -q -p untangle-testkit --no-default-features $features --example scaling
  cp target/release/examples/scaling ".vkrunner/scaling/scaling-$variant"
  strip ".vkrunner/scaling/scaling-$variant"
done
du -sh .gl .vkrunner
