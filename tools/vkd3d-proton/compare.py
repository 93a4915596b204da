#!/usr/bin/env python3
"""Compares the d3d12 suite's results of vkd3d-proton variants, test by test.

    tools/vkd3d-proton/compare.py [--base stock] [--new NAME] [--markdown] [--all] RESULTS...

RESULTS are folders written by run-suite.sh ($OUT/vkd3d-suite: NAME.tgz and NAME-chunks.tsv
per variant), or NAME.tgz files; results of several shards (device calls) merge. For every
test it counts passed checks (the "NAME: N passed" lines run-suite.sh's filter writes),
failures, skips, todos and bugs, and whether the test ended, stalled, crashed or never ran.
Each variant other than the base is compared with the base; regressions come first:
  - more failures, or fewer passed checks, than the base;
  - the base's test ended and this one did not (stalled, crashed, not run);
  - more skips than the base (coverage lost).
Tests of timing-tests.txt (their check counts depend on timing) compare only failures and ends.
Then improvements, then (with --all) every test. --markdown prints markdown tables. Exit
status 1 when a variant has regressions.

    tools/vkd3d-proton/compare.py --remaining LIST [--variants stock,untangle] RESULTS...

prints the tests of LIST that have not ended in every named variant: what the next device call
still has to run (tools/vkd3d-proton/h200.sh's ONLY list).

    tools/vkd3d-proton/compare.py --expect-clean LIST [--failed-out FILE] RESULTS...

checks instead that every test named in LIST ended with passed checks and no failure or skip
in every variant of RESULTS (CI's lavapipe run: tools/vkd3d-proton/ci.sh).
"""

import argparse
import collections
import io
import os
import re
import sys
import tarfile

BEGIN = re.compile(r"^\S+: ======== (\S+) begin ========$")
END = re.compile(r"^\S+: ======== (\S+) end ==========$")
PASSED = re.compile(r"^(\S+): (\d+) passed( \(unfinished\))?$")
# `NAME:LINE: Test failed: ...`, or with the test's contexts between (`vkd3d_test_set_context`,
# nested: `NAME:LINE:Test: AddToStateObject: Test failed: ...`).
CHECK = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):\d+(?::[^:]*)*?: (Test failed|Test skipped|Todo succeeded|Todo|Bug|Fixed bug)\b(.*)$")
KINDS = {"Test failed": "failed", "Test skipped": "skipped", "Todo": "todo", "Todo succeeded": "todo_ok", "Bug": "bug", "Fixed bug": "bug_fixed"}


class Test:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.todo = 0
        self.todo_ok = 0
        self.bug = 0
        self.bug_fixed = 0
        self.state = "not-run"  # ended, stalled, crashed, unkillable, not-run
        self.first_failure = ""
        self.first_skip = ""
        self.chunk = ""

    def counts(self):
        return f"{self.passed}/{self.failed}/{self.skipped}"


def read_chunk(log_text, chunk, status, tests):
    """Reads one chunk's log into `tests` (name -> Test)."""
    stack = []
    for line in log_text.splitlines():
        m = BEGIN.match(line)
        if m:
            t = tests.setdefault(m.group(1), Test(m.group(1)))
            t.chunk = chunk
            t.state = status if status != "ended" else "began"
            stack.append(t.name)
            continue
        m = END.match(line)
        if m:
            t = tests.setdefault(m.group(1), Test(m.group(1)))
            t.state = "ended"
            if stack and stack[-1] == m.group(1):
                stack.pop()
            continue
        m = PASSED.match(line)
        if m:
            owner = stack[0] if stack else m.group(1)
            t = tests.setdefault(owner, Test(owner))
            t.passed += int(m.group(2))
            if not stack and t.state == "not-run":  # checks outside any test (the program's own)
                t.state = "ended" if status == "ended" else status
            continue
        m = CHECK.match(line)
        if m:
            owner = stack[0] if stack else m.group(1)
            t = tests.setdefault(owner, Test(owner))
            kind = KINDS[m.group(2)]
            setattr(t, kind, getattr(t, kind) + 1)
            if kind == "failed" and not t.first_failure:
                t.first_failure = line[:200]
            if kind == "skipped" and not t.first_skip:
                t.first_skip = m.group(3).strip(" :")[:160]
    for name in stack:  # began, never ended
        t = tests[name]
        if t.state == "began":
            t.state = "crashed" if status == "ended" else status
        else:
            t.state = status if status != "ended" else "crashed"


def load(paths):
    """variant -> {test -> Test}."""
    variants = collections.defaultdict(dict)
    tgzs = []
    for p in paths:
        if os.path.isdir(p):
            tgzs += [os.path.join(p, f) for f in sorted(os.listdir(p)) if f.endswith(".tgz")]
        else:
            tgzs.append(p)
    for tgz in tgzs:
        name = os.path.basename(tgz)[: -len(".tgz")]
        tests = {}
        status = {}
        chunk_tests = {}
        tsv = os.path.join(os.path.dirname(tgz), f"{name}-chunks.tsv")
        if os.path.exists(tsv):
            for row in open(tsv, encoding="utf-8", errors="replace"):
                f = row.rstrip("\n").split("\t")
                if len(f) >= 5:
                    status[f[0]] = f[1]
                    chunk_tests[f[0]] = f[4].split()
        with tarfile.open(tgz) as tar:
            for member in tar.getmembers():
                base = os.path.basename(member.name)
                if not (member.isfile() and base.endswith(".log")):
                    continue
                chunk = base[: -len(".log")]
                text = io.TextIOWrapper(tar.extractfile(member), encoding="utf-8", errors="replace").read()
                read_chunk(text, chunk, status.get(chunk, "ended"), tests)
        # Tests of chunks that never started, or that a dying chunk never reached.
        for chunk, names in chunk_tests.items():
            for n in names:
                t = tests.setdefault(n, Test(n))
                if t.state == "not-run" and status.get(chunk) not in (None, "ended"):
                    t.chunk = chunk
        merge(variants[name], tests)
    return variants


def merge(into, tests):
    """Results of one archive into the variant's: a test run again in a later archive (a later
    device call picking up what an earlier one left) replaces the earlier attempt, unless that
    one ended and the later did not; counts never add up across attempts."""
    for name, t in tests.items():
        old = into.get(name)
        if old is None or t.state == "ended" or (old.state != "ended" and t.state != "not-run"):
            into[name] = t


def compare(base, new, timing=frozenset()):
    """`timing`: tests whose passed checks and skips depend on timing (timing-tests.txt): only
    their failures and whether they ended are compared."""
    regress, improve, same = [], [], []
    for name in sorted(set(base) | set(new)):
        b = base.get(name, Test(name))
        n = new.get(name, Test(name))
        why_bad, why_good = [], []
        counts_matter = name not in timing
        if n.failed > b.failed:
            why_bad.append(f"failures {b.failed} -> {n.failed}")
        elif n.failed < b.failed:
            why_good.append(f"failures {b.failed} -> {n.failed}")
        if b.state == "ended" and n.state == "ended" and counts_matter:
            if n.passed < b.passed:
                why_bad.append(f"passed {b.passed} -> {n.passed}")
            elif n.passed > b.passed:
                why_good.append(f"passed {b.passed} -> {n.passed}")
        if b.state == "ended" and n.state != "ended" and n.state != "not-run":
            why_bad.append(f"{n.state}")
        if n.state == "ended" and b.state not in ("ended", "not-run"):
            why_good.append(f"base {b.state}")
        if n.skipped > b.skipped and counts_matter:
            why_bad.append(f"skips {b.skipped} -> {n.skipped}")
        elif n.skipped < b.skipped and counts_matter:
            why_good.append(f"skips {b.skipped} -> {n.skipped}")
        row = (name, b, n, "; ".join(why_bad or why_good))
        (regress if why_bad else improve if why_good else same).append(row)
    return regress, improve, same


def table(rows, markdown, base_name, new_name):
    head = ["test", f"{base_name} pass/fail/skip", f"{new_name} pass/fail/skip", "state", "why"]
    body = [[name, b.counts(), n.counts(), f"{b.state} / {n.state}", why + (f" ({n.first_failure})" if n.failed > b.failed and n.first_failure else "")]
            for name, b, n, why in rows]
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in body]
        return "\n".join(out)
    widths = [max(len(r[i]) for r in [head] + body) for i in range(4)]
    return "\n".join("  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4] for r in [head] + body)


def totals(tests):
    c = collections.Counter(t.state for t in tests.values())
    return (f"{len(tests)} tests ({c['ended']} ended, {c['stalled'] + c['unkillable']} stalled, {c['crashed']} crashed, "
            f"{c['not-run']} not run); {sum(t.passed for t in tests.values())} checks passed, "
            f"{sum(t.failed for t in tests.values())} failed, {sum(t.skipped for t in tests.values())} skipped")


def expect_clean(variants, names, failed_out):
    """Every test in `names` ran to its end in every variant without a failure or a skip:
    prints the ones that did not (and writes their names to `failed_out`); 1 if any."""
    bad = []
    for v, tests in sorted(variants.items()):
        for n in names:
            t = tests.get(n, Test(n))
            if t.state != "ended" or t.failed or t.skipped or not t.passed:
                bad.append(n)
                why = t.first_failure or f"{t.state}, {t.counts()} passed/failed/skipped"
                print(f"{v}: {n}: {why}")
    if failed_out:
        with open(failed_out, "w") as f:
            f.writelines(f"{n}\n" for n in sorted(set(bad)))
    print(f"{len(names)} tests expected clean: {len(set(bad))} not")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--expect-clean", metavar="LIST",
                    help="no comparison: every test named in LIST must end with passes, no failure and no skip")
    ap.add_argument("--failed-out", metavar="FILE", help="with --expect-clean: write the tests that were not clean")
    ap.add_argument("--remaining", metavar="LIST",
                    help="no comparison: print the tests of LIST that have not ended in every variant "
                         "(the next device call's list)")
    ap.add_argument("--variants", default="stock,untangle",
                    help="with --remaining: the variants that must have ended each test")
    ap.add_argument("--base", default="stock")
    ap.add_argument("--new", action="append", help="variant(s) to compare (default: every other)")
    ap.add_argument("--timing", metavar="LIST", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "timing-tests.txt"),
                    help="tests whose check counts depend on timing: only failures and ends compared")
    ap.add_argument("--both", action="store_true",
                    help="also list the tests that fail or skip in the base and in the variant, with the first reason of each")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--all", action="store_true", help="also list tests that did not change")
    args = ap.parse_args()
    variants = load(args.results)
    if args.expect_clean:
        names = [l.strip() for l in open(args.expect_clean) if l.strip() and not l.startswith("#")]
        sys.exit(expect_clean(variants, names, args.failed_out))
    if args.remaining:
        names = [l.strip() for l in open(args.remaining) if l.strip() and not l.startswith("#")]
        need = args.variants.split(",")
        for n in names:
            if any(variants.get(v, {}).get(n, Test(n)).state != "ended" for v in need):
                print(n)
        return
    if args.base not in variants:
        sys.exit(f"no results for the base variant {args.base!r} (have: {', '.join(sorted(variants))})")
    news = args.new or [v for v in sorted(variants) if v != args.base]
    bad = False
    h = "## " if args.markdown else "== "
    for v in sorted(variants):
        print(f"{v}: {totals(variants[v])}")
    for v in news:
        timing = frozenset(l.strip() for l in open(args.timing) if l.strip() and not l.startswith("#")) if os.path.exists(args.timing) else frozenset()
        regress, improve, same = compare(variants[args.base], variants.get(v, {}), timing)
        print(f"\n{h}{v} against {args.base}: {len(regress)} regressions, {len(improve)} improvements, {len(same)} the same")
        for title, rows in (("regressions", regress), ("improvements", improve)) + ((("the same", same),) if args.all else ()):
            if rows:
                print(f"\n{h}{title} ({len(rows)})\n")
                print(table(rows, args.markdown, args.base, v))
        if args.both:
            pairs = [(name, t, variants[v].get(name, Test(name))) for name, t in sorted(variants[args.base].items())]
            rows = [(name, b, n) for name, b, n in pairs if (b.failed or b.skipped) and (n.failed or n.skipped)]
            print(f"\n{h}failing or skipping with both ({len(rows)})\n")
            for name, b, n in rows:
                why = b.first_failure or b.first_skip
                print(f"| {name} | {b.counts()} | {n.counts()} | {why.replace('|', '/')} |" if args.markdown
                      else f"{name}  {b.counts()}  {n.counts()}  {why}")
        bad |= bool(regress)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
