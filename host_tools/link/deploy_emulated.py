"""`make deploy` without a board: an emulated board (host_tools/link/bridge.py) on a
pseudo-terminal, and a real deploy to it over mpremote.

    python -m host_tools.link.deploy_emulated [--board build/emulated-board] [--src firmware]
    python -m host_tools.link.deploy_emulated --measure   # full and one-file update times
    python -m host_tools.link.deploy_emulated --recovery  # each kind of broken update: recovery, report

--measure deploys the firmware to a fresh emulated board (a full update), then
changes one module and deploys again (a one-file update), and prints the
transfer rate and the times.
"""

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import time

from host_tools.link import board_transport, bridge, deploy, deploy_plan, slots

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ---------------------------------------------------------------------------
# Fake firmware for the update tests and --recovery: the real boot.py and
# main.py, a small `mancala` package whose app behaves as asked.

# The app's loop, like App.run: a few healthy turns, then confirm_boot() (set
# by main.py), then it keeps running (sleeping: where a Ctrl-C reaches it).
HEALTHY = (
    "    for _ in range(5):\n"
    "        time.sleep_ms(10)\n"
    "    confirm_boot()\n"
    "    while True:\n"
    "        time.sleep_ms(500)\n")

BEHAVIOURS = {
    "healthy": HEALTHY,
    # a hang in a Python loop that never sleeps (on a chip: or one in C)
    "hangs": "    while True:\n        pass\n",
    # every loop turn raises; the loop swallows it and goes on (never healthy)
    "raises_every_turn": (
        "    while True:\n"
        "        try:\n"
        "            raise ValueError('turn failed')\n"
        "        except ValueError:\n"
        "            pass\n"
        "        time.sleep_ms(20)\n"),
    # the error board: a loop that runs fine but is not the game
    "error_board": "    while True:\n        time.sleep_ms(50)\n",
    "returns_after_trial": "    for _ in range(5):\n        time.sleep_ms(10)\n    confirm_boot()\n    return\n",
    "raises_after_trial": (
        "    for _ in range(5):\n        time.sleep_ms(10)\n    confirm_boot()\n"
        "    raise RuntimeError('late failure')\n"),
    "raises_at_start": "    raise RuntimeError('no pixels')\n",
    # healthy, but raises after its trial while /crash_now is on the flash
    "raises_when_told": (
        "    for _ in range(5):\n        time.sleep_ms(10)\n    confirm_boot()\n"
        "    import os\n"
        "    try:\n        os.stat('/crash_now')\n    except OSError:\n"
        "        while True:\n            time.sleep_ms(50)\n"
        "    raise RuntimeError('late failure')\n"),
}


def make_app(root, version, util="hello", app_extra="", big=0, behaviour="healthy", top="", ran_file=True):
    """A firmware folder: real boot.py/main.py/stage.py, a fake `mancala` package whose
    app prints `app <version> <util>` when it starts, then behaves."""
    src = os.path.join(str(root), "fw-" + version + "-" + behaviour)
    pkg = os.path.join(src, "mancala")
    os.makedirs(pkg, exist_ok=True)
    for name in board_transport.ROOT_FILES:
        with open(os.path.join(deploy_plan.DEFAULT_SRC, name), "rb") as f, open(os.path.join(src, name), "wb") as g:
            g.write(f.read())
    files = {
        "__init__.py": "__version__ = %r\n" % version,
        "util.py": "def word():\n    return %r\n" % util,
        "app.py": ("import time\n%s\nfrom mancala import util\nconfirm_boot = None\n%s\n"
                   "def main(fault=None):\n"
                   "    if fault:\n"
                   "        print('app safe state:', fault)\n"
                   "        while True:\n"
                   "            time.sleep_ms(50)\n"
                   "    print('app %s', util.word())\n"
                   "    if %r:\n"
                   "        with open('/app_ran.tmp', 'w') as f:\n"
                   "            f.write('app %s ' + util.word())\n"
                   "        import os\n"
                   "        os.rename('/app_ran.tmp', '/app_ran.txt')\n%s"
                   % (top, app_extra, version, ran_file, version, BEHAVIOURS[behaviour])),
    }
    for i in range(big):
        # Big modules (mostly a string constant) so a transfer takes a while.
        files["data%d.py" % i] = "BLOB = %r\n" % (hashlib.sha256(b"%d%s" % (i, version.encode())).hexdigest() * 120)
    for name, text in files.items():
        with open(os.path.join(pkg, name), "w") as f:
            f.write(text)
    return src




def measure(src, out=sys.stdout):
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, "src")
        shutil.copytree(src, work, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        # The emulated board has no `machine`: the app's main() is replaced (the
        # modules, and so the bytes sent, stay the same) so that it starts.
        with open(os.path.join(work, "mancala", "app.py"), "a") as f:
            f.write("\n\ndef main(*args, **kwargs):\n    import time\n    print('app started (measurement stand-in)')\n"
                    + HEALTHY)
        quiet = open(os.devnull, "w")
        with bridge.Bridge(os.path.join(tmp, "board")) as b:
            wire0 = b.bytes_in
            try:
                full = deploy.deploy(b.port, work, out=quiet)
            except board_transport.DeployError as e:  # e.g. the real app needs `machine`
                full = getattr(e, "result", None)
                print("note: %s" % e, file=out)
            with open(os.path.join(work, "mancala", "app.py"), "a") as f:
                f.write("\n_UPDATE_MARK = %d\n" % int(time.time()))
            wire1 = b.bytes_in
            try:
                one = deploy.deploy(b.port, work, out=quiet)
            except board_transport.DeployError as e:
                one = getattr(e, "result", None)
                print("note: %s" % e, file=out)
            wire2 = b.bytes_in
        quiet.close()
    for name, r, wire in (("full update", full, wire1 - wire0), ("one-file update", one, wire2 - wire1)):
        if r:
            print("%-16s %2d files sent, %6d bytes in %.2f s (%.0f bytes/s); whole update %.2f s; %d bytes on the wire to the board"
                  % (name, len(r["sent"]), r["bytes"], r["send_seconds"], r["rate"], r["seconds"], wire), file=out)
    return full, one


def recovery(out=sys.stdout, trial_seconds=2, max_boots=3, only=()):
    """Each kind of broken update on a fresh emulated board: how long until the
    board runs the old version again, and the one line `make deploy` prints."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for behaviour in only or ("hangs", "raises_every_turn", "error_board", "raises_at_start",
                                  "import_memoryerror", "returns_after_trial", "raises_after_trial", "healthy"):
            root = os.path.join(tmp, behaviour)
            top = ""
            if behaviour == "import_memoryerror":
                behaviour_run, top = "healthy", "raise MemoryError('memory allocation failed')"
            else:
                behaviour_run = behaviour
            src1 = make_app(os.path.join(root, "1"), "1.0")
            src2 = make_app(os.path.join(root, "2"), "2.0", behaviour=behaviour_run, top=top)
            with bridge.Bridge(os.path.join(root, "board")) as b, open(os.devnull, "w") as quiet:
                deploy.deploy(b.port, src1, out=quiet, trial_seconds=trial_seconds)
                n0 = len(b.events)
                try:
                    r = deploy.deploy(b.port, src2, out=quiet, trial_seconds=trial_seconds, max_boots=max_boots)
                    line = slots.outcome_line(r, r["version"], r["target"])
                    ok = True
                except board_transport.DeployError as e:
                    r, line, ok = getattr(e, "result", {}) or {}, str(e), False
                ev = b.events[n0:]
                resets = [t for t, what in ev if what in ("reset", "deadman")]
                boots = [t for t, what in ev if what == "booted"]
                # from the deploy's reset to the start that runs a working version
                back = (boots[-1] - resets[0]) if resets and boots else float("nan")
                rows.append((behaviour, ok, len(resets) - 1, sum(1 for _t, w in ev if w == "deadman"),
                             back, r.get("watch_seconds", float("nan")), r.get("seconds", float("nan")), line))
    print("trial window %d s, %d starts on trial (make deploy: --trial-seconds %d --max-boots %d)"
          % (trial_seconds, max_boots, trial_seconds, max_boots), file=out)
    print("%-20s %6s %7s %8s %11s %10s  %s" % ("new version", "resets", "deadman", "back in", "deploy saw", "deploy", "what make deploy printed"), file=out)
    for behaviour, ok, resets, deadman, back, watch, total, line in rows:
        print("%-20s %6d %7d %7.1fs %10.1fs %9.1fs  %s%s" % (behaviour, resets, deadman, back, watch, total,
                                                           "" if ok else "error: ", line), file=out)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(prog="deploy_emulated", description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", default=os.path.join(ROOT, "build", "emulated-board"))
    ap.add_argument("--src", default=deploy_plan.DEFAULT_SRC)
    ap.add_argument("--measure", action="store_true")
    ap.add_argument("--recovery", action="store_true", help="each kind of broken update: recovery time and report")
    ap.add_argument("--trial-seconds", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=(), help="with --recovery: these kinds only (e.g. hangs)")
    a = ap.parse_args(argv)
    if a.measure:
        measure(a.src)
        return 0
    if a.recovery:
        recovery(trial_seconds=a.trial_seconds, only=a.only)
        return 0
    with bridge.Bridge(a.board) as b:
        # (the emulated board has no pins: the real app shows its error board and never
        # proves healthy; a short trial window keeps the demonstration short)
        return deploy.deploy_main(["--port", b.port, "--src", a.src, "--trial-seconds", "5"])


if __name__ == "__main__":
    sys.exit(main())
