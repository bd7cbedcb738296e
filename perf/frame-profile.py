#!/usr/bin/env python3
"""Regenerates perf/frame.profdata, the profile that release builds of the frame's logic are
optimized with (LLVM's IR-level profile-guided optimization).

A rolling frame runs with caches, TLBs and branch predictors that the machine has cooled
by the time of the next frame, 16 ms later; what it costs is mostly the code it touches.
With the profile, the compiler knows which branches a running daemon takes: it lays the
hot path of each function out straight and together, moves the blocks a frame never
reaches out of the way, and inlines by measured calls instead of by guess.

Package.swift passes the profile (`-ir-profile-use`) to release builds of the modules a
frame's logic runs through: VitrineCore, VitrineText, VitrineRolling, VitrineRender,
VitrineOutput and VitrineDaemon. Not to VitrineRaster: the daemon's workload draws only
fills and glyphs, and a profile that never saw an image or gradient drawn would have the
compiler treat those kernels as cold code.

The profile comes from an instrumented release build (in .build-profile) of `vitrined`
at work: the counter and the label of perf/workload.py. Functions whose code changed
since have no profile and are compiled as without one, so a stale profile costs speed,
never correctness. Run it after changes to the frame's path, then perf/frame-order.py,
from the package root:

    python3 perf/frame-profile.py

Needs the toolchain's llvm-profdata (beside swift) and python3.
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile

import workload

PROFILE = "perf/frame.profdata"
SCRATCH = ".build-profile"
SECONDS = 12
BUILD = ["swift", "build", "-c", "release", "--toolset", "config/release-toolset.json", "--scratch-path", SCRATCH,
         "--product", "vitrined",
         # Counters in every function, and the runtime that writes them out at exit.
         "-Xswiftc", "-Xfrontend", "-Xswiftc", "-ir-profile-generate",
         "-Xswiftc", "-Xclang-linker", "-Xswiftc", "-fprofile-generate"]


def main():
    swift = shutil.which("swift")
    if swift is None:
        sys.exit("frame-profile: swift is not on PATH")
    profdata = os.path.join(os.path.dirname(os.path.realpath(swift)), "llvm-profdata")
    if not os.path.exists(profdata):
        sys.exit(f"frame-profile: {profdata} is missing: it comes with the Swift toolchain")
    print("frame-profile: building an instrumented vitrined in " + SCRATCH)
    if subprocess.run(BUILD, stdout=subprocess.DEVNULL).returncode != 0:
        sys.exit(f"frame-profile: the instrumented build failed (its errors are above): {' '.join(BUILD)}")
    workdir = tempfile.mkdtemp(prefix="frame-profile.")
    try:
        os.environ["LLVM_PROFILE_FILE"] = os.path.join(workdir, "vitrined-%p.profraw")
        workload.run_daemon([os.path.join(SCRATCH, "release", "vitrined")], workdir, SECONDS)
        raw = glob.glob(os.path.join(workdir, "*.profraw"))
        if not raw:
            sys.exit("frame-profile: the instrumented daemon wrote no profile")
        # Sparse: functions that never ran are left out rather than listed with zeros.
        subprocess.run([profdata, "merge", "--sparse", "-o", PROFILE, *raw], check=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    forget_release_objects()
    print(f"frame-profile: {PROFILE} written; build the release again, then run perf/frame-order.py")


def forget_release_objects():
    """Makes the next release build compile Vitrine's modules with the new profile: SwiftPM
    does not recompile for a changed profile alone, so their object files go, and the
    manifest is touched so that it plans the build again."""
    for obj in glob.glob(".build/*/release/Vitrine*.build/*.o"):
        os.remove(obj)
    os.utime("Package.swift")


if __name__ == "__main__":
    main()
