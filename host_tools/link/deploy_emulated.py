"""`make deploy` without a board: an emulated board (host_tools/link/bridge.py) on a
pseudo-terminal, and a real deploy to it over mpremote.

    python -m host_tools.link.deploy_emulated [--board build/emulated-board] [--src firmware]
                                              [--tables DIR] [--no-play]
    python -m host_tools.link.deploy_emulated --measure   # full and one-file update times
    python -m host_tools.link.deploy_emulated --recovery  # each kind of broken update: recovery, report

The emulated board stands for a Pico (the firmware's default profile,
pico_buttons, on the fakes of `machine` and `neopixel` the tests use): a Pico's
flash, and the endgame tables and opening books of a Pico's plan.  The real
firmware is deployed, starts and proves healthy; then (unless --no-play) a
person plays at it (Player: the pits are the fake machine's pins): a new game
from the menu and one move, read back from the game the board saved in its
/data/game.json.

--measure deploys the firmware to a fresh emulated board (a full update), then
changes one module and deploys again (a one-file update), and prints the
transfer rate and the times.
"""

import argparse
import hashlib
import json
import os
import re
import select
import shutil
import sys
import tempfile
import threading
import time

from host_tools.link import board_transport, bridge, deploy, deploy_plan, slots
from host_tools.link.board_clock import EmulatedClock

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




# ---------------------------------------------------------------------------
# A person at the emulated board

PICO_FLASH = 1408 * 1024  # a Pico's filesystem (host_tools/generators/tablebase.py FS_KIB)
HEALTHY_RE = re.compile(rb"main: (?:confirmed slot|healthy \()")
S_STORE, N_STORE = 6, 13  # board indices (mancala.rules)


class PlayError(RuntimeError):
    """The board did not do what a person at it expects."""


class Console:
    """What the board prints on its USB serial port, read as it comes (output left
    unread would stop the emulated board's clock from jumping), through resets
    (the port goes away and comes back)."""

    def __init__(self, port):
        self.port = port
        self.data = bytearray()
        self.lock = threading.Lock()
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        fd = None
        while not self._stop:
            if fd is None:
                try:  # (not pyserial: its open() drops what the board printed before)
                    fd = os.open(self.port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
                except OSError:
                    time.sleep(0.02)
                    continue
            try:
                if not select.select([fd], [], [], 0.05)[0]:
                    continue
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            except OSError:  # a reset: the port went away
                chunk = b""
            if not chunk:
                os.close(fd)
                fd = None
                continue
            with self.lock:
                self.data += chunk
        if fd is not None:
            os.close(fd)

    def text(self, since=0):
        with self.lock:
            return bytes(self.data[since:])

    def close(self):
        self._stop = True
        self._thread.join(2)


class _PinClock(EmulatedClock):
    """The emulated board's clock socket, which also sets its pins ("PIN n level")."""

    def set_pin(self, pin, level):
        self.sock.sendall(b"PIN %d %d\n" % (pin, 1 if level else 0))
        self._answer(10)


class Player:
    """A person at the emulated board on `port` (its flash in `board_dir`): taps
    pits (the fake machine's input pins of the board's profile, held and let go
    on the board's clock), reads the console and the game the board saved."""

    def __init__(self, port, board_dir, profile="pico_buttons", out=None):
        from mancala import profiles

        self.pins = profiles.load(profile)["pit_pins"]
        self.board_dir = board_dir
        self.out = out
        self.clock = _PinClock(port + ".clock")
        self.console = Console(port)

    def close(self):
        self.console.close()
        self.clock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def say(self, line):
        if self.out is not None:
            print(line, file=self.out, flush=True)

    # -- time and the pits ---------------------------------------------------
    def wait(self, seconds):
        """Let `seconds` of the board's time pass (in milliseconds while it sleeps)."""
        t = self.clock.now() + seconds
        while self.clock.now() < t:
            self.clock.idle_until(t)

    def wait_for(self, cond, seconds, step=0.05):
        """Poll cond() every `step` of the board's time; False after `seconds`."""
        end = self.clock.now() + seconds
        while True:
            if cond():
                return True
            now = self.clock.now()
            if now >= end:
                return False
            self.clock.idle_until(min(end, now + step))

    def press(self, *pits):
        for p in pits:
            self.clock.set_pin(self.pins[p], 0)

    def release(self, *pits):
        for p in pits:
            self.clock.set_pin(self.pins[p], 1)

    def tap(self, pit, hold=0.15, after=0.2):
        self.press(pit)
        self.wait(hold)
        self.release(pit)
        self.wait(after)

    # -- what the board shows ------------------------------------------------
    def wait_healthy(self, seconds=60):
        """Until the app's loop has run healthily ("main: healthy" / "confirmed")."""
        if not self.wait_for(lambda: HEALTHY_RE.search(self.console.text()), seconds, 0.1):
            raise PlayError("the app did not say it runs healthily within %d s; it printed:\n%s"
                            % (seconds, self.console.text()[-2000:].decode("utf-8", "replace")))

    def saved(self, name):
        """A JSON file the board keeps in /data (its flash is the host folder), or None."""
        try:
            with open(os.path.join(self.board_dir, "data", name)) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    # -- playing ---------------------------------------------------------------
    def new_game(self, seconds=10):
        """From the menu (or a game: both stores held first, to the menu) a new game:
        the North store.  Returns the game the board saved."""
        old = self.saved("game.json")
        if old is not None:
            self.press(S_STORE, N_STORE)
            self.wait(2.8)  # Pits.LONG_MS: the menu
            self.release(S_STORE, N_STORE)
            self.wait(0.2)
        self.tap(N_STORE)
        if not self.wait_for(lambda: self.saved("game.json") not in (None, old), seconds):
            raise PlayError("no new game in /data/game.json after the North store's tap in the menu")
        return self.saved("game.json")

    def play_move(self, seconds=20):
        """The person (South) plays a move as a board guides it: taps a pit, then
        drops its stones one by one where the board lights the next.  Returns
        (the pit, the game saved before, the game saved after)."""
        from mancala.notation import parse_record
        from mancala.rules import MASK, SIDE

        before = self.saved("game.json")
        if before is None:
            raise PlayError("no game on the board (/data/game.json)")
        g = parse_record(before["record"])
        side = g.pos[SIDE]
        if g.over or not before["human"] >> side & 1:
            raise PlayError("not a person's turn in the saved game %r" % (before,))
        legal = [k for k in range(6) if g.pos[MASK] >> k & 1]
        own = side * 7
        path_of = lambda k: g.rules.paths[side * 6 + k]  # noqa: E731
        # a move that ends in the store (the person moves again), else the first
        pit = next((k for k in legal if path_of(k)[g.pos[own + k] - 1] == own + 6), legal[0])
        n = g.pos[own + pit]
        path = path_of(pit)[1:2] if g.rules.name == "mangala" and n == 1 else path_of(pit)[:n]
        quick = (self.saved("settings.json") or {}).get("quick")
        self.tap(own + pit)
        if not quick:
            for target in path:  # the board lights each next pit; a stone dropped there
                self.tap(target, hold=0.1, after=0.1)
        want = len(g.moves()) + 1

        def moved():
            now = self.saved("game.json")
            return now is not None and len(parse_record(now["record"]).moves()) == want

        if not self.wait_for(moved, seconds):
            raise PlayError("the move S%d was not saved in /data/game.json (it holds %r)"
                            % (pit + 1, self.saved("game.json")))
        return pit, before, self.saved("game.json")


def play_demo(port, board_dir, out=None):
    """What `make deploy-emulated` shows after the deploy: the board's app runs,
    a new game is started from its menu and one move played.  Returns the game saved."""
    with Player(port, board_dir, out=out or sys.stdout) as p:
        p.wait_healthy()
        game = p.new_game()
        p.say("played: a new game from the menu (the North store): game %d saved in /data/game.json"
              % game["number"])
        pit, _before, after = p.play_move()
        p.say("played: S%d, sown stone by stone as the board lit the pits: /data/game.json holds %r"
              % (pit + 1, after["record"]))
        return after


def measure(src, out=sys.stdout):
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, "src")
        shutil.copytree(src, work, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        # The app's main() is replaced by a stand-in that proves healthy at once (the
        # modules, and so the bytes sent, stay the same): the times are the update's,
        # not the real app's start (which main() shows, and test_deploy_emulated_real).
        with open(os.path.join(work, "mancala", "app.py"), "a") as f:
            f.write("\n\ndef main(*args, **kwargs):\n    import time\n    print('app started (measurement stand-in)')\n"
                    + HEALTHY)
        quiet = open(os.devnull, "w")
        with bridge.Bridge(os.path.join(tmp, "board")) as b:
            wire0 = b.bytes_in
            try:
                full = deploy.deploy(b.port, work, out=quiet)
            except board_transport.DeployError as e:
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
    ap.add_argument("--tables", default=None, metavar="DIR",
                    help="where make tablebase built the endgame tables (default build/tables)")
    ap.add_argument("--no-play", action="store_true", help="deploy only: no game played after it")
    a = ap.parse_args(argv)
    if a.measure:
        measure(a.src)
        return 0
    if a.recovery:
        recovery(trial_seconds=a.trial_seconds, only=a.only)
        return 0
    with bridge.Bridge(a.board, flash_size=PICO_FLASH) as b:
        # a Pico's tables (the emulated board's own platform has no plan); deploy's
        # default trial window: a healthy app proves itself in about a second of the
        # board's clock, which jumps while the app sleeps
        rc = deploy.deploy_main(["--port", b.port, "--src", a.src, "--tables-for", "rp2"]
                                + (["--tables", a.tables] if a.tables else []))
        if rc == 0 and not a.no_play:
            try:
                play_demo(b.port, b.board_dir)
            except (PlayError, OSError) as e:  # (OSError: the board's clock socket went away)
                print("deploy_emulated: error: playing on the board: %s" % e, file=sys.stderr)
                rc = 1
    where = os.path.relpath(b.board_dir, ROOT)
    again = ("make emulated-board" if where == os.path.join("build", "emulated-board")
             else "python -m host_tools.link.bridge --board %s" % b.board_dir)
    print("the emulated board lives in %s (its flash); `%s` powers it on again and prints its port"
          % (where if not where.startswith("..") else b.board_dir, again))
    return rc


if __name__ == "__main__":
    sys.exit(main())
