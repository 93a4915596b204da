#!/usr/bin/env python3
"""untangle's DXIL translation time against dxil-spirv's, from one run of the suite.

    tools/vkd3d-proton/times.py [--markdown] RESULTS...

RESULTS are folders written by run-suite.sh (several shards merge) or summary files. Every
`NAME-untangle-summary.jsonl` holds one line per process of variant NAME, written by
untangle's library at exit (crates/untangle-dxil-spirv/src/summary.rs). With the shadow
mode (run-suite.sh's SHADOW=1, i.e. UNTANGLE_DXIL_SPIRV_SHADOW=1) each DXIL run untangle
made was also run through dxil-spirv in the same process, timed and discarded.

Printed per variant, one row per translator: DXIL runs (calls of dxil_spv_converter_run),
modules translated, runs failed or refused, total and mean ms inside the runs; then the
same two over the runs both translated (the like-for-like figures) and the ratio
untangle / dxil-spirv there. Failure reasons follow (untangle's refusals, the shadow's
failures). Without the shadow mode dxil-spirv's rows are empty.
"""

import argparse
import collections
import json
import os
import sys

SUFFIX = "-untangle-summary.jsonl"


def summary_files(paths):
    """(variant, path) for every summary file under `paths` (folders or files)."""
    for p in paths:
        if not os.path.exists(p):
            sys.exit(f"no such file or folder: {p}")
        if os.path.isdir(p):
            for f in sorted(os.listdir(p)):
                if f.endswith(SUFFIX):
                    yield f[: -len(SUFFIX)], os.path.join(p, f)
        else:
            f = os.path.basename(p)
            yield (f[: -len(SUFFIX)] if f.endswith(SUFFIX) else f), p


class Sums:
    def __init__(self):
        self.n = collections.Counter()
        self.refusals = collections.Counter()
        self.shadow_failures = collections.Counter()


def add_up(paths):
    """variant -> Sums of its processes' summaries (lines that are not JSON are skipped)."""
    sums = collections.defaultdict(Sums)
    for variant, path in summary_files(paths):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    s = json.loads(line)
                except ValueError:
                    continue
                ms, count, paired = s.get("run_ms", {}), s.get("run_count", {}), s.get("shadow_paired", {})
                v = sums[variant]
                c = v.n
                c["processes"] += 1
                c["shadowed"] += bool(s.get("shadow_mode"))
                c["untangle_ok"] += s.get("dxil_untangle", 0)
                c["untangle_failed"] += s.get("dxil_refused", 0)
                c["untangle_runs"] += count.get("untangle", s.get("dxil_untangle", 0) + s.get("dxil_refused", 0))
                c["untangle_ms"] += ms.get("untangle", 0)
                c["shadow_ok"] += s.get("shadow_ok", 0)
                c["shadow_failed"] += s.get("shadow_failed", 0)
                c["shadow_runs"] += count.get("shadow_dxil", 0)
                c["shadow_ms"] += ms.get("shadow_dxil", 0)
                c["paired_runs"] += paired.get("runs", 0)
                c["paired_untangle_ms"] += paired.get("untangle_ms", 0)
                c["paired_callbacks_ms"] += paired.get("untangle_callbacks_ms", 0)
                c["paired_shadow_ms"] += paired.get("shadow_dxil_ms", 0)
                v.refusals.update(s.get("refusals", {}))
                v.shadow_failures.update(s.get("shadow_failures", {}))
    return sums


HEAD = ["", "runs", "translated", "failed", "total ms", "mean ms"]


def mean(total, runs):
    return f"{total / runs:.3f}" if runs else "-"


def rows(c):
    """The table of one variant."""
    out = [
        ["untangle", c["untangle_runs"], c["untangle_ok"], c["untangle_failed"],
         f"{c['untangle_ms']:.1f}", mean(c["untangle_ms"], c["untangle_runs"])],
    ]
    if c["shadowed"]:
        # Timed shadow runs: those that reached dxil-spirv's run (see summary.rs).
        out.append(["dxil-spirv (shadow)", c["shadow_ok"] + c["shadow_failed"], c["shadow_ok"],
                    c["shadow_failed"], f"{c['shadow_ms']:.1f}", mean(c["shadow_ms"], c["shadow_runs"])])
        n = c["paired_runs"]
        out.append(["untangle, both translated", n, n, 0, f"{c['paired_untangle_ms']:.1f}",
                    mean(c["paired_untangle_ms"], n)])
        out.append(["dxil-spirv, both translated", n, n, 0, f"{c['paired_shadow_ms']:.1f}",
                    mean(c["paired_shadow_ms"], n)])
        if c["paired_callbacks_ms"]:
            # The application's callbacks inside untangle's runs: the shadow run is answered
            # from the record and does not pay them.
            own = c["paired_untangle_ms"] - c["paired_callbacks_ms"]
            out.append(["untangle without callbacks", n, n, 0, f"{own:.1f}", mean(own, n)])
    return out


def table(body, markdown):
    cells = [HEAD] + [[str(x) for x in r] for r in body]
    if markdown:
        lines = ["| " + " | ".join(r) + " |" for r in cells]
        lines.insert(1, "|" + "|".join(["---"] + ["---:"] * (len(HEAD) - 1)) + "|")
        return "\n".join(lines)
    w = [max(len(r[i]) for r in cells) for i in range(len(HEAD))]
    return "\n".join(
        "  " + r[0].ljust(w[0]) + "".join("  " + x.rjust(w[i + 1]) for i, x in enumerate(r[1:])) for r in cells
    )


def reasons(title, counter):
    if not counter:
        return ""
    return f"{title}: " + ", ".join(f"{k} {v}" for k, v in counter.most_common())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--markdown", action="store_true", help="markdown tables")
    ap.add_argument("results", nargs="+", help="run-suite.sh result folders or summary files")
    args = ap.parse_args()
    sums = add_up(args.results)
    if not sums:
        sys.exit("no *" + SUFFIX + " files")
    h = "## " if args.markdown else "== "
    for variant, v in sorted(sums.items()):
        c = v.n
        print(f"{h}{variant}: {c['processes']} processes, {c['shadowed']} in the shadow mode")
        print()
        print(table(rows(c), args.markdown))
        n = c["paired_runs"]
        if n and c["paired_shadow_ms"]:
            print(f"\nratio untangle / dxil-spirv over the {n} runs both translated: "
                  f"{c['paired_untangle_ms'] / c['paired_shadow_ms']:.2f}")
            if c["paired_callbacks_ms"]:
                own = c["paired_untangle_ms"] - c["paired_callbacks_ms"]
                print(f"the same without the application's callbacks in untangle's runs: "
                      f"{own / c['paired_shadow_ms']:.2f}")
        for line in (reasons("untangle's refusals", v.refusals), reasons("shadow failures", v.shadow_failures)):
            if line:
                print(line)
        print()


if __name__ == "__main__":
    main()
