"""`make deploy` without a board: an emulated board (host_tools/bridge.py) on a
pseudo-terminal, and a real deploy to it over mpremote.

    python -m host_tools.deploy_emulated [--board build/emulated-board] [--src firmware]
    python -m host_tools.deploy_emulated --measure   # full and one-file update times

--measure deploys the firmware to a fresh emulated board (a full update), then
changes one module and deploys again (a one-file update), and prints the
transfer rate and the times.
"""

import argparse
import os
import shutil
import sys
import tempfile
import time

from host_tools import bridge, deploy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(src, out=sys.stdout):
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, "src")
        shutil.copytree(src, work, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        # The emulated board has no `machine`: the app's main() is replaced (the
        # modules, and so the bytes sent, stay the same) so that it starts.
        with open(os.path.join(work, "mancala", "app.py"), "a") as f:
            f.write("\n\ndef main(*args, **kwargs):\n    print('app started (measurement stand-in)')\n")
        quiet = open(os.devnull, "w")
        with bridge.Bridge(os.path.join(tmp, "board")) as b:
            wire0 = b.bytes_in
            try:
                full = deploy.deploy(b.port, work, out=quiet)
            except deploy.DeployError as e:  # e.g. the real app needs `machine`
                full = getattr(e, "result", None)
                print("note: %s" % e, file=out)
            with open(os.path.join(work, "mancala", "app.py"), "a") as f:
                f.write("\n_UPDATE_MARK = %d\n" % int(time.time()))
            wire1 = b.bytes_in
            try:
                one = deploy.deploy(b.port, work, out=quiet)
            except deploy.DeployError as e:
                one = getattr(e, "result", None)
                print("note: %s" % e, file=out)
            wire2 = b.bytes_in
        quiet.close()
    for name, r, wire in (("full update", full, wire1 - wire0), ("one-file update", one, wire2 - wire1)):
        if r:
            print("%-16s %2d files sent, %6d bytes in %.2f s (%.0f bytes/s); whole update %.2f s; %d bytes on the wire to the board"
                  % (name, len(r["sent"]), r["bytes"], r["send_seconds"], r["rate"], r["seconds"], wire), file=out)
    return full, one


def main(argv=None):
    ap = argparse.ArgumentParser(prog="deploy_emulated", description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", default=os.path.join(ROOT, "build", "emulated-board"))
    ap.add_argument("--src", default=deploy.DEFAULT_SRC)
    ap.add_argument("--measure", action="store_true")
    a = ap.parse_args(argv)
    if a.measure:
        measure(a.src)
        return 0
    with bridge.Bridge(a.board) as b:
        return deploy.deploy_main(["--port", b.port, "--src", a.src])


if __name__ == "__main__":
    sys.exit(main())
