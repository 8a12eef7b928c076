"""Type-check the firmware against the real device APIs (micropython-stubs).

For each target board the stubs are installed into their own folder (they
overwrite each other's `machine.pyi` if they share one), then mypy checks
firmware/ with that folder as its typeshed: a call to something the device's
`machine`, `time`, `os`... doesn't have is an error.

  python -m host_tools.runners.typecheck [--board rp2|esp32]...
"""

import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STUBS = {
    "rp2": "micropython-rp2-rpi-pico-stubs==1.29.0.post1",
    "esp32": "micropython-esp32-stubs==1.29.0.post1",
}


def stub_dir(board):
    path = os.path.join(ROOT, "build", "stubs", board)
    stamp = os.path.join(path, ".installed-" + STUBS[board])
    if not os.path.exists(stamp):
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--upgrade",
                        "--target", path, STUBS[board]], check=True)
        open(stamp, "w").close()
    return path


def start(board):
    """mypy for one board, started (the boards run side by side).  Each board has
    its own incremental cache (build/mypy-cache/BOARD: one shared cache would mix
    the two typesheds), so a second run only checks what changed."""
    stubs = stub_dir(board)
    env = dict(os.environ, MYPYPATH=stubs + os.pathsep + os.path.join(ROOT, "firmware"))
    cmd = [sys.executable, "-m", "mypy", "--custom-typeshed-dir", stubs,
           "--check-untyped-defs", "--no-strict-optional", "--python-version", "3.11",
           "--cache-dir", os.path.join(ROOT, "build", "mypy-cache", board),
           "--platform", "linux", "--explicit-package-bases",
           "--disable-error-code", "import-untyped",
           os.path.join(ROOT, "firmware")]
    return subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def report(board, popen):
    out, err = popen.communicate()
    proc = subprocess.CompletedProcess(popen.args, popen.returncode, out, err)
    # The stub packages carry a few errors of their own; only the firmware's count.
    ours = [line for line in proc.stdout.splitlines()
            if line.startswith("firmware") and ": error:" in line]
    for line in ours:
        print(line)
    print("typecheck %s (%s): %s" % (board, STUBS[board],
                                     "%d errors" % len(ours) if ours else "clean"), flush=True)
    if proc.returncode not in (0, 1):  # mypy itself failed
        print(proc.stdout + proc.stderr)
        return 2
    return 1 if ours else 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--board", action="append", choices=sorted(STUBS))
    a = p.parse_args(argv)
    rc = 0
    boards = a.board or sorted(STUBS)
    running = [(board, start(board)) for board in boards]
    for board, popen in running:
        rc |= report(board, popen)
    return rc


if __name__ == "__main__":
    sys.exit(main())
