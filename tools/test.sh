#!/usr/bin/env bash
# Install what is missing (Debian packages), then run the whole test suite.
# Usage: tools/test.sh [extra cargo test args]
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
[ -x /usr/lib/llvm-14/bin/llvm-config ] || need+=(llvm-14-dev)
command -v cc >/dev/null || need+=(build-essential)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

export LLVM_SYS_140_PREFIX=/usr/lib/llvm-14
# Release mode: the corpus and robustness suites run LLVM over ~800 files and 10,000
# mutations; the analyses' own checks (recompute comparisons) run explicitly in tests.
cargo test --release "$@"
