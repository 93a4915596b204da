#!/usr/bin/env python3
"""`untangle-gpu gpu-times --out FILE.tsv` as BENCHMARKS.md tables.

    tools/gpu-times-table.py FILE.tsv [--top N]

Prints a summary table (pairs per stage, sums of the medians and their ratio, the median
and largest per-pair ratio, pairs above 1.0 and above 1.2), the N pairs with the largest
ratio (default 15; every pair with --top 0), and the skipped pairs with their reasons.

The TSV of `gpu-times --graphics` has one row per graphics pipeline (the runner's case
name, its stage list such as `vs+hs+ds+ps` in the stage column): the same tables, counted
as pipelines by stage list.
"""

import argparse
import csv
import statistics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tsv")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    with open(args.tsv, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    ok = [r for r in rows if r["status"] == "ok"]
    skipped = [r for r in rows if r["status"] != "ok"]
    if not ok:
        raise SystemExit("no measured pairs")
    for r in ok:
        r["u"], r["r"], r["q"] = float(r["untangle_us"]), float(r["reference_us"]), float(r["ratio"])
    stages = {}
    for r in ok:
        stages[r["stage"]] = stages.get(r["stage"], 0) + 1
    su, sr = sum(r["u"] for r in ok), sum(r["r"] for r in ok)
    ratios = [r["q"] for r in ok]
    # Graphics pipelines (`gpu-times --graphics`) name a stage list in the stage column.
    graphics = any("+" in r["stage"] for r in rows)
    noun, item = ("pipelines", "pipeline") if graphics else ("pairs", "shader")
    print(f"{len(ok)} {noun} ({', '.join(f'{n} {s}' for s, n in sorted(stages.items()))}); {len(skipped)} skipped.")
    print()
    print("| | untangle | reference | untangle / reference |")
    print("| --- | --- | --- | --- |")
    print(f"| sum of medians | {su:.1f} µs | {sr:.1f} µs | **{su / sr:.2f}** |")
    print(f"| per-{item if graphics else 'pair'} ratio | | | median {statistics.median(ratios):.2f}, largest {max(ratios):.2f}; "
          f"{sum(q > 1.0 for q in ratios)} above 1.0, {sum(q > 1.2 for q in ratios)} above 1.2 |")
    print()
    top = sorted(ok, key=lambda r: -r["q"])
    if args.top:
        top = top[:args.top]
    print(f"| {item} | stage{'s' if graphics else ''} | untangle | reference | ratio | workload |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in top:
        name = r["module"].removesuffix(".spv")
        print(f"| `{name}` | {r['stage']} | {r['u']:.1f} µs | {r['r']:.1f} µs | {r['q']:.2f} | {r['detail']} |")
    if skipped:
        print()
        print("Skipped:")
        print()
        for r in skipped:
            print(f"- `{r['module'].removesuffix('.spv')}`: {r['detail']}")


if __name__ == "__main__":
    main()
