#!/usr/bin/env python3
"""A/B: the same `vitrine-bench` suites from two commits, run interleaved in one session.

This machine's absolute times drift by ±20 % from hour to hour, so a change to a hot path
(the model, render trees, raster, the frame loop) is judged by its ratio to the code
before it, both measured in the same run: A and B alternate round by round (ABBA…), and
each figure is the median over the rounds. Where time is too noisy, `--instructions`
also counts the instructions of one `--quick` run of each suite under callgrind, which
repeat to the instruction for the same binary and input whatever else the machine does.
Valgrind cannot read the release toolset's binaries (lld's output), so with
`--instructions` both sides are built without the toolset (plain `-c release`, in
`.build-ab-plain`), and every figure comes from those builds.

Each commit is checked out in a worktree under /tmp/vitrine-ab/ and built there in
release (its own Package.swift's settings, with the release toolset when it has one);
`WORK` stands for the working tree as it is, uncommitted changes included. Run it from
the package root:

    python3 perf/ab.py 64e5154 HEAD --suite core --rounds 5
    python3 perf/ab.py main WORK --suite core --suite rolling --instructions

It prints every figure of every suite as `bench.field  A  B  B/A`, then a line per
suite with the instruction counts. Ratios above 1 mean B is slower (for times) or larger.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = "/tmp/vitrine-ab"


def run(command, cwd, capture=True):
    result = subprocess.run(command, cwd=cwd, text=True, capture_output=capture)
    if result.returncode != 0:
        sys.stderr.write(f"ab: {' '.join(command)} in {cwd} failed ({result.returncode})\n")
        if capture:
            sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        sys.exit(1)
    return result.stdout


def checkout(revision):
    """The folder to build `revision` in: the package root for WORK, else a worktree."""
    top = run(["git", "rev-parse", "--show-toplevel"], ".").strip()
    if revision == "WORK":
        return top, "WORK"
    commit = run(["git", "rev-parse", "--verify", revision + "^{commit}"], top).strip()
    folder = os.path.join(ROOT, commit[:12])
    if not os.path.isdir(folder):
        os.makedirs(ROOT, exist_ok=True)
        run(["git", "worktree", "add", "--detach", folder, commit], top)
    return folder, commit[:12]


def build(folder, toolset):
    """Builds vitrine-bench in release in `folder`, with the release toolset when `toolset`
    and the commit has one; returns the binary's path."""
    scratch = os.path.join(folder, ".build-ab" if toolset else ".build-ab-plain")
    command = ["swift", "build", "-c", "release", "--product", "vitrine-bench", "--scratch-path", scratch]
    if toolset and os.path.exists(os.path.join(folder, "config/release-toolset.json")):
        command += ["--toolset", "config/release-toolset.json"]
    sys.stderr.write(f"ab: building {folder}\n")
    run(command, folder, capture=True)
    return os.path.join(scratch, "release", "vitrine-bench")


def figures(binary, folder, suite, quick):
    """Every numeric field of every line the suite prints, as {bench.field: value}."""
    command = [binary, suite] + (["--quick"] if quick else [])
    out = run(command, folder)
    values = {}
    for line in out.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        name = record.get("bench", "?")
        for key, value in record.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                values[f"{name}.{key}"] = float(value)
    return values


def instructions(binary, folder, suite):
    """Instructions callgrind counts over one `--quick` run of the suite."""
    result = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary, suite, "--quick"],
        cwd=folder, text=True, capture_output=True)
    match = re.search(r"Collected\s*:\s*(\d+)", result.stderr)
    return int(match.group(1)) if match else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a", help="the commit before (a revision, or WORK)")
    parser.add_argument("b", nargs="?", default="WORK", help="the commit after (default: the working tree)")
    parser.add_argument("--suite", action="append", required=True, help="a vitrine-bench suite; repeat for several")
    parser.add_argument("--rounds", type=int, default=4, help="rounds of A and B each (default 4)")
    parser.add_argument("--quick", action="store_true", help="pass --quick to the suites")
    parser.add_argument("--instructions", action="store_true", help="also count instructions with callgrind")
    options = parser.parse_args()

    sides = []
    for revision in (options.a, options.b):
        folder, label = checkout(revision)
        sides.append((label, folder, build(folder, toolset=not options.instructions)))

    results = [dict() for _ in sides]
    for suite in options.suite:
        for round_ in range(options.rounds):
            order = [0, 1] if round_ % 2 == 0 else [1, 0]
            for side in order:
                label, folder, binary = sides[side]
                sys.stderr.write(f"ab: {suite} round {round_ + 1} {label}\n")
                for key, value in figures(binary, folder, suite, options.quick).items():
                    results[side].setdefault(key, []).append(value)

    a, b = sides[0][0], sides[1][0]
    print(f"{'figure':<58} {a:>14} {b:>14} {'B/A':>7}")
    for key in sorted(set(results[0]) | set(results[1])):
        va, vb = results[0].get(key), results[1].get(key)
        ma = statistics.median(va) if va else None
        mb = statistics.median(vb) if vb else None
        ratio = f"{mb / ma:7.3f}" if ma and mb is not None else "      -"
        show = lambda v: f"{v:14.4g}" if v is not None else f"{'-':>14}"
        print(f"{key:<58} {show(ma)} {show(mb)} {ratio}")
    if options.instructions:
        for suite in options.suite:
            counts = [instructions(binary, folder, suite) for _, folder, binary in sides]
            if None in counts:
                print(f"{suite}: instructions not counted (is valgrind installed?)")
                continue
            print(f"{suite} --quick instructions: {counts[0]:,} {counts[1]:,} B/A {counts[1] / counts[0]:.3f}")


if __name__ == "__main__":
    main()
