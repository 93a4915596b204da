#!/usr/bin/env python3
"""untangle and the reference translator (dxil-spirv), side by side in one run.

Build the reference first (once, ~15 min on 2 cores; an ignored folder):
    ../shared/tools/reference/build.sh MIRRORS .reference     (MIRRORS: the `fetch` tool's mirrors)
(or anywhere, named by UNTANGLE_REFERENCE), then:
    tools/bench-reference.py [--rounds R] [--update BENCHMARKS.md] [--pipeline-modules DIR] [--quality-only]

Measures, alternating the two translators so that the machine's load hits both alike:
1. in process: every vkd3d-proton cs/ps/vs shader both translate with default options, each
   file's best of R rounds (untangle: examples/translate_times; reference: reference-time,
   through its C API), repeated 3 times, the per-file minimum kept; the ratio of the sums
   and the median and p10/p90 of the per-file ratios;
2. one shader as a whole process (`untangle F -o X` vs `dxil-spirv F --output X`), 30 runs
   each: median wall time, and the median and largest of the runs' peak RSS;
3. batch: the whole corpus directory through `untangle DIR -o OUT -j 1` and `-j 2`, 5 runs
   each, median wall time, and whether the outputs are byte-identical;
4. output quality on the common set: module bytes, instructions, blocks, merges and PHIs per
   shader (the reference's modules written by tools/reference-modules.cpp: remappers that
   mirror untangle's default placement, so the modules are comparable, and the compute-shader
   derivative options a layer passes on the measuring device; see that file).
Prints a markdown section; with --update, replaces the section between the markers
`<!-- bench-reference:begin -->` and `<!-- bench-reference:end -->` of that file.
"""

import argparse
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus", "dxil", "vkd3d-proton")
# The reference build: `.reference` in the checkout, or the folder UNTANGLE_REFERENCE names
# (one build shared by several worktrees).
REF = os.environ.get("UNTANGLE_REFERENCE", os.path.join(ROOT, ".reference"))
REF_TIME = os.path.join(REF, "reference-time")
REF_CLI = os.path.join(REF, "dxil-spirv", "build", "dxil-spirv")
REF_MODULES_SRC = os.path.join(ROOT, "tools", "reference-modules.cpp")
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
# The `dist` profile (release with fat LTO and one codegen unit, see Cargo.toml): what a
# build for users is. UNTANGLE_BENCH_PROFILE picks another (`release`, `dev`) for
# --quality-only, whose module sizes do not depend on the profile.
PROFILE = os.environ.get("UNTANGLE_BENCH_PROFILE", "dist")
PROFILE_DIR = "debug" if PROFILE == "dev" else PROFILE
UNTANGLE = os.path.join(TARGET, PROFILE_DIR, "untangle")
TIMES = os.path.join(TARGET, PROFILE_DIR, "examples", "translate_times")


def reference_modules_tool():
    """tools/reference-modules.cpp built against the reference (into the target folder; again
    when the source is newer)."""
    exe = os.path.join(TARGET, "reference-modules")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(REF_MODULES_SRC):
        lib = os.path.join(REF, "dxil-spirv", "build")
        os.makedirs(TARGET, exist_ok=True)
        subprocess.run(["g++", "-O2", "-std=c++17", "-Wall", "-I", os.path.join(REF, "dxil-spirv"), REF_MODULES_SRC,
                        "-o", exe, "-L", lib, "-ldxil-spirv-c-shared", f"-Wl,-rpath,{lib}"], check=True)
    return exe


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def build(cli_only=False):
    # The command line and the timing example without LLVM: what a user runs.
    subprocess.run(["cargo", "build", "--profile", PROFILE, "-q", "-p", "untangle-cli"], check=True, cwd=ROOT)
    if cli_only:
        return
    subprocess.run(["cargo", "build", "--profile", PROFILE, "-q", "-p", "untangle-testkit", "--no-default-features",
                    "--example", "translate_times"], check=True, cwd=ROOT)


def parse_times(text):
    out = {}
    for line in text.splitlines():
        name, status, us = line.split("\t")
        if name != "total" and status == "ok":
            out[name] = float(us)
    return out


def pct(values, p):
    values = sorted(values)
    k = (len(values) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def in_process(files, rounds):
    best_u, best_r = {}, {}
    for _ in range(3):
        for tool, best in ((REF_TIME, best_r), (TIMES, best_u)):
            times = parse_times(run([tool, str(rounds)] + files, cwd=CORPUS))
            for name, us in times.items():
                best[name] = min(best.get(name, us), us)
    common = sorted(set(best_u) & set(best_r))
    ratios = [best_u[n] / best_r[n] for n in common]
    su, sr = sum(best_u[n] for n in common), sum(best_r[n] for n in common)
    return {
        "files": len(common), "reference_only": len(set(best_r) - set(best_u)),
        "untangle_only": len(set(best_u) - set(best_r)),
        "sum_u": su, "sum_r": sr, "med_u": statistics.median(best_u[n] for n in common),
        "med_r": statistics.median(best_r[n] for n in common), "ratio_sum": su / sr,
        "ratio_med": statistics.median(ratios), "p10": pct(ratios, 10), "p90": pct(ratios, 90),
        "common": common,
    }


def whole_process(shader, runs=30):
    tmp = tempfile.mkdtemp()
    res = {"untangle": [], "reference": []}
    rss = {"untangle": [], "reference": []}
    cmds = {
        "untangle": [UNTANGLE, shader, "-o", os.path.join(tmp, "u.spv")],
        "reference": [REF_CLI, shader, "--output", os.path.join(tmp, "r.spv")],
    }
    # Peak RSS from GNU time (a child's own rusage would include the forked Python image
    # before exec); wall time around it, the same overhead on both sides.
    for _ in range(runs):
        for name, cmd in cmds.items():
            t0 = time.perf_counter()
            p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
            res[name].append(time.perf_counter() - t0)
            if p.returncode != 0:
                sys.exit(f"{name} failed on {shader}: {p.stderr}")
            rss[name].append(int(p.stderr.strip().splitlines()[-1]))
    shutil.rmtree(tmp)
    # Peak RSS varies from run to run by about 0.5 MiB on both sides (where address-space
    # randomization puts the code decides which 64 KiB fault-around windows one run
    # touches): the median of the runs' peaks, and the largest.
    return {k: (statistics.median(v) * 1e3, statistics.median(rss[k]) / 1024, max(rss[k]) / 1024) for k, v in res.items()}


def batch(runs=5):
    tmp = tempfile.mkdtemp()
    times = {}
    for jobs in ("1", "2"):
        times[jobs] = []
    for _ in range(runs):
        for jobs in ("1", "2"):
            out = os.path.join(tmp, f"out{jobs}")
            shutil.rmtree(out, ignore_errors=True)
            t0 = time.perf_counter()
            subprocess.run([UNTANGLE, CORPUS, "-o", out, "-j", jobs], capture_output=True)
            times[jobs].append(time.perf_counter() - t0)
    # Every output file, libraries' folders of entry points included, compared byte for byte.
    out1, out2 = os.path.join(tmp, "out1"), os.path.join(tmp, "out2")
    files = sorted(os.path.relpath(os.path.join(d, f), out1) for d, _, fs in os.walk(out1) for f in fs)
    same = all(os.path.exists(os.path.join(out2, f)) for f in files)
    for name in files:
        if same:
            with open(os.path.join(out1, name), "rb") as a, open(os.path.join(out2, name), "rb") as b:
                same &= a.read() == b.read()
    count = len(files)
    shutil.rmtree(tmp)
    return {k: statistics.median(v) * 1e3 for k, v in times.items()}, same, count


OP_LABEL, OP_PHI, OP_LOOP_MERGE, OP_SELECTION_MERGE = 248, 245, 246, 247


def spirv_stats(path):
    data = open(path, "rb").read()
    words = struct.unpack(f"<{len(data) // 4}I", data)
    insts = blocks = merges = phis = 0
    i = 5
    while i < len(words):
        op, n = words[i] & 0xFFFF, words[i] >> 16
        insts += 1
        blocks += op == OP_LABEL
        merges += op in (OP_LOOP_MERGE, OP_SELECTION_MERGE)
        phis += op == OP_PHI
        i += max(n, 1)
    return {"bytes": len(data), "insts": insts, "blocks": blocks, "merges": merges, "phis": phis}


def quality(files, keep=None):
    tmp = tempfile.mkdtemp()
    ud, rd = os.path.join(tmp, "u"), os.path.join(tmp, "r")
    os.makedirs(ud)
    os.makedirs(rd)
    run([reference_modules_tool(), rd] + files, cwd=CORPUS)
    for f in files:
        # With --quality-only the list is every cs/ps/vs file, some of which untangle refuses
        # without per-shader options (AGS magic UAVs): those have no pair.
        # `--min-precision-32bit`: dxil-spirv's default (min16float computes in 32 bits); ours is
        # native 16-bit, what vkd3d-proton asks of both where the device has it. Same semantics.
        subprocess.run([UNTANGLE, os.path.join(CORPUS, f), "--min-precision-32bit", "-o",
                        os.path.join(ud, f + ".spv")], capture_output=True)
    totals = {"untangle": {}, "reference": {}}
    # Remappers change what the reference accepts: compare where both wrote a module.
    files = [f for f in files if all(os.path.exists(os.path.join(d, f + ".spv")) for d in (ud, rd))]
    totals["files"] = len(files)
    for f in files:
        for name, d in (("untangle", ud), ("reference", rd)):
            for k, v in spirv_stats(os.path.join(d, f + ".spv")).items():
                totals[name][k] = totals[name].get(k, 0) + v
    if keep:
        # Both module sets for `untangle-gpu pipeline-times --ours KEEP/u --reference KEEP/r`.
        # (KEEP/graphics is graphics_modules's.)
        for side in ("u", "r"):
            shutil.rmtree(os.path.join(keep, side), ignore_errors=True)
            os.makedirs(os.path.join(keep, side))
            for f in files:
                shutil.copy(os.path.join(tmp, side, f + ".spv"), os.path.join(keep, side, f + ".spv"))
    shutil.rmtree(tmp)
    return totals


GRAPHICS_STAGES = ("vs", "hs", "ds", "gs", "ps", "as", "ms")


def graphics_modules(keep):
    """The reference's modules of every corpus graphics-stage file (vs, hs, ds, gs, ps, as, ms:
    all the files the graphics runner's pipelines use) in KEEP/graphics/r, with the same
    remappers, for `untangle-gpu gpu-times --graphics --reference KEEP/graphics/r` (and
    `pipeline-times --graphics`). The untangle side of those pipelines is translated by
    untangle-gpu itself, with each case's own stage options (remapping hooks, view
    instancing) that the command line cannot express. Returns (written, refused)."""
    files = sorted(f for f in os.listdir(CORPUS) if any(f".{s}_6_" in f for s in GRAPHICS_STAGES))
    # Absolute: the reference runs in the corpus directory.
    out = os.path.abspath(os.path.join(keep, "graphics", "r"))
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    lines = run([REF_TIME, "1", "--remap", "-o", out] + files, cwd=CORPUS).splitlines()
    refused = [line.split("\t")[0] for line in lines if line.split("\t")[1:2] == ["fail"]]
    return len(os.listdir(out)), refused


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--update")
    ap.add_argument("--pipeline-modules", metavar="DIR",
                    help="keep the output-quality modules of both sides in DIR/u and DIR/r (for the "
                         "device's `untangle-gpu pipeline-times` and `gpu-times`), and the reference's "
                         "modules of every corpus graphics-stage file in DIR/graphics/r (for their "
                         "`--graphics` mode)")
    ap.add_argument("--quality-only", action="store_true",
                    help="only the output-quality part (with --pipeline-modules: just write the modules)")
    args = ap.parse_args()
    for tool in (REF_TIME, REF_CLI):
        if not os.path.exists(tool):
            sys.exit(f"{tool} is missing: build the reference with ../shared/tools/reference/build.sh")
    if PROFILE != "dist" and not args.quality_only:
        sys.exit("UNTANGLE_BENCH_PROFILE other than dist is for --quality-only (timings need the dist build)")
    build(cli_only=args.quality_only)
    files = sorted(f for f in os.listdir(CORPUS) if any(f".{s}_6_" in f for s in ("cs", "ps", "vs")))
    if args.pipeline_modules:
        written, refused = graphics_modules(args.pipeline_modules)
        print(f"graphics: {written} reference modules in {args.pipeline_modules}/graphics/r; refused: "
              f"{', '.join(refused) or 'none'}", file=sys.stderr)
    if args.quality_only:
        print(quality(files, args.pipeline_modules))
        return
    ip = in_process(files, args.rounds)
    common = ip["common"]
    shader = os.path.join(CORPUS, "sm66.cs_heap_indexing_dynamic.cs_6_6.dxil")
    if not os.path.exists(shader) or os.path.basename(shader) not in common:
        shader = os.path.join(CORPUS, common[len(common) // 2])
    wp = whole_process(shader)
    bt, same, count = batch()
    q = quality(common, args.pipeline_modules)
    cpu = run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).strip()
    commit = run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT).strip()
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} at commit `{commit}` on {os.cpu_count()} cores ({cpu}), "
        f"`tools/bench-reference.py --rounds {args.rounds}`; reference: dxil-spirv `cff94dae`, built by "
        f"`../shared/tools/reference/build.sh`; untangle: `cargo build --profile {PROFILE}` (release, fat LTO, one "
        "codegen unit). Both sides in one run, alternating.",
        "",
        f"**In process**, the {ip['files']} of the {len(files)} vkd3d-proton cs/ps/vs shaders that both translate "
        f"with default options (untangle translates {ip['untangle_only'] + ip['files']}; the reference refuses the "
        "others without per-shader flags), best of "
        f"{args.rounds} each, best of 3 repeats:",
        "",
        "| | untangle | reference | untangle / reference |",
        "| --- | --- | --- | --- |",
        f"| sum | {ip['sum_u'] / 1e3:.2f} ms | {ip['sum_r'] / 1e3:.2f} ms | **{ip['ratio_sum']:.2f}** |",
        f"| median shader | {ip['med_u']:.0f} µs | {ip['med_r']:.0f} µs | per-file ratio: median **{ip['ratio_med']:.2f}**, "
        f"p10 {ip['p10']:.2f}, p90 {ip['p90']:.2f} |",
        "",
        f"**One shader as a whole process** (`{os.path.basename(shader)}`, 30 runs each):",
        "",
        "| | wall (median) | peak RSS (median) | peak RSS (largest) |",
        "| --- | --- | --- | --- |",
        f"| `untangle F -o X` | {wp['untangle'][0]:.1f} ms | {wp['untangle'][1]:.2f} MiB | {wp['untangle'][2]:.2f} MiB |",
        f"| `dxil-spirv F --output X` | {wp['reference'][0]:.1f} ms | {wp['reference'][1]:.2f} MiB | "
        f"{wp['reference'][2]:.2f} MiB |",
        "",
        f"**Batch**: `untangle {os.path.relpath(CORPUS, ROOT)} -o OUT` ({count} outputs), median of 5: "
        f"`-j 1` {bt['1']:.0f} ms, `-j 2` {bt['2']:.0f} ms, speed-up {bt['1'] / bt['2']:.2f}×; outputs "
        f"{'byte-identical' if same else 'DIFFERENT'}.",
        "",
        f"**Output** over the {q['files']} shaders both translate with the reference's remappers mirroring "
        "untangle's default placement (so its modules are comparable):",
        "",
        "| | bytes | instructions | blocks | merges | PHIs |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name in ("untangle", "reference"):
        t = q[name]
        lines.append(f"| {name} | {t['bytes']:,} | {t['insts']:,} | {t['blocks']:,} | {t['merges']:,} | {t['phis']:,} |")
    u, r = q["untangle"], q["reference"]
    lines.append(
        f"| ratio | {u['bytes'] / r['bytes']:.2f} | {u['insts'] / r['insts']:.2f} | {u['blocks'] / r['blocks']:.2f} | "
        f"{u['merges'] / max(r['merges'], 1):.2f} | {u['phis'] / max(r['phis'], 1):.2f} |"
    )
    section = "\n".join(lines) + "\n"
    print(section)
    if args.update:
        text = open(args.update).read()
        begin, end = "<!-- bench-reference:begin -->", "<!-- bench-reference:end -->"
        if begin in text and end in text:
            a, b = text.index(begin) + len(begin), text.index(end)
            text = text[:a] + "\n" + section + text[b:]
        else:
            text += f"\n## Side by side with the reference translator\n\n{begin}\n{section}{end}\n"
        open(args.update, "w").write(text)


if __name__ == "__main__":
    main()
