#!/usr/bin/env python3
"""Side-by-side in-process translation times of two builds (BENCHMARKS.md, issue 32).

    python3 tools/translate-times-compare.py [--runs 3] [--rounds 20] BASE_BIN NEW_BIN...

Each BIN is a `translate_times` example binary (`cargo build --release -p untangle-testkit
--example translate_times`, then target/release/examples/translate_times). The builds run
alternately, `--runs` times each, over the vkd3d-proton cs/ps/vs shaders (each file's best
of `--rounds`); each file keeps its minimum over the runs. Printed per build: files, the
sum of the per-file minimums over the files every build translates, the sum against
BASE_BIN, and the median of the per-file ratios against BASE_BIN.
"""
import argparse
import statistics
import subprocess


def run(binary, rounds):
    out = subprocess.run([binary, str(rounds)], check=True, capture_output=True, text=True).stdout
    times = {}
    for line in out.splitlines():
        name, status, us = line.split("\t")
        if name != "total" and status == "ok":
            times[name] = float(us)
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("bins", nargs="+")
    a = ap.parse_args()
    best = [dict() for _ in a.bins]
    for _ in range(a.runs):
        for k, b in enumerate(a.bins):
            for name, us in run(b, a.rounds).items():
                best[k][name] = min(us, best[k].get(name, us))
    common = sorted(set.intersection(*(set(b) for b in best)))
    base = sum(best[0][n] for n in common)
    print(f"{len(common)} files in every build; per-file minimum of {a.runs} runs, best of {a.rounds} each")
    for k, b in enumerate(a.bins):
        total = sum(best[k][n] for n in common)
        median = statistics.median(best[k][n] / best[0][n] for n in common)
        print(f"{b}\tsum {total / 1e3:.2f} ms\tsum/base {total / base:.3f}\tmedian file ratio {median:.3f}")


if __name__ == "__main__":
    main()
