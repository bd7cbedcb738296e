#!/usr/bin/env python3
"""Regenerates perf/frame-order.txt, the order in which the release link places functions.

A rolling frame runs about 1 300 cache lines of code spread over the executable's 16 MB of
text; on a machine whose caches and TLBs are cold by the next frame, every scattered line
costs. The release toolset (config/release-toolset.json) compiles every function into its
own section and hands lld this file (--symbol-ordering-file), so that the functions a
running, animating daemon executes lie together, hottest first.

The list comes from a profile: valgrind's callgrind counts the instructions of each
function while `vitrined` (headless, real-time clock) rolls an 8-digit counter once a
second, as `vitrine-bench rolling` does (perf/workload.py). Functions that are not alone
in their section (most of the Swift standard library's private ones) would drag their
whole object file along, so they are left out, and so is any function the link shows
followed by more than 4 KB of code the list does not name.

A stale list is harmless: names that no longer exist are skipped (--no-warn-symbol-ordering).
Run it after changes to the frame's path, and after perf/frame-profile.py (the
profile-guided build inlines and lays out code differently), from the package root:

    swift build -c release --toolset config/release-toolset.json
    python3 perf/frame-order.py

Needs valgrind, python3 and binutils (nm, readelf, objcopy).
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import workload

ORDER = "perf/frame-order.txt"
BINARY = ".build/release/vitrined"
BUILD = ["swift", "build", "-c", "release", "--toolset", "config/release-toolset.json", "--product", "vitrined"]
STDLIB = "/opt/swift/usr/lib/swift_static/linux"
SECONDS = 6


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def profile(workdir):
    """Callgrind's instruction count per function (mangled) of the daemon's event loop."""
    copy = os.path.join(workdir, "vitrined")
    # valgrind 3.19 cannot read the toolchain's DWARF 5; symbols are all it needs.
    run("objcopy", "--strip-debug", BINARY, copy)
    out = os.path.join(workdir, "callgrind.out")
    workload.run_daemon(
        ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}", "--toggle-collect=*9EventLoopC3run*", copy],
        workdir, SECONDS, label=False, startup=120)
    costs = {}
    for line in run("callgrind_annotate", "--threshold=100", out).splitlines():
        m = re.match(r"^\s*([\d,]+)\s+\([\s\d.]+%\)\s+[^:]*:(\S+)\s+\[(.*)\]$", line)
        if m and m.group(3) == copy:
            name = m.group(2).split("'")[0]
            costs[name] = costs.get(name, 0) + int(m.group(1).replace(",", ""))
    return costs


def own_sections():
    """Names of the functions compiled into a section of their own."""
    objects = glob.glob(".build/release/**/*.o", recursive=True) + glob.glob(os.path.join(STDLIB, "*.a"))
    names = set()
    for start in range(0, len(objects), 200):
        listing = subprocess.run(["readelf", "-S", "-W", *objects[start:start + 200]], capture_output=True, text=True).stdout
        names.update(re.findall(r"\s\.text\.(\S+)\s", listing))
    return names


def stragglers(order):
    """Listed functions that the link placed before code the list does not name."""
    listed = set(order)
    placed = []
    for line in run("nm", "-n", "-S", BINARY).splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tTwW" and fields[3] in listed:
            placed.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    return {name for (a, size, name), (b, _, _) in zip(placed, placed[1:]) if b - (a + size) > 4096}


def link(order):
    with open(ORDER, "w") as f:
        f.write("\n".join(order) + "\n")
    os.remove(BINARY)
    run(*BUILD)


def main():
    if not os.path.exists(BINARY):
        sys.exit(f"frame-order: {BINARY} is missing: build it first ({' '.join(BUILD[:-2])})")
    workdir = tempfile.mkdtemp(prefix="frame-order.")
    try:
        costs = profile(workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if not costs:
        sys.exit("frame-order: the profile is empty")
    sections = own_sections()
    order = [name for name, ir in sorted(costs.items(), key=lambda kv: -kv[1]) if ir >= 700 and name in sections]
    for _ in range(5):
        link(order)
        bad = stragglers(order)
        if not bad:
            break
        order = [name for name in order if name not in bad]
    print(f"frame-order: {len(order)} functions in {ORDER}")


if __name__ == "__main__":
    main()
