"""The terminal simulator's screens, captured from a real terminal (tmux).

    python -m host_tools.simulators.sim_screens [--out DIR]

Runs `python -m host_tools.simulators.sim` in a detached tmux session of its own (a private
server socket: nothing else of yours is touched), types keys as a person would and
prints the screen text at five moments: the start (the menu), the computer's move
(thinking, then its pit blinking), the coach's blunder pause, game over, and a
puzzle's set-up (the counts to put in, by the pits).  With
--out, each screen is also written to DIR/NAME.txt.  Needs tmux
(apt-get install tmux); exit status 2 without it.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.join(ROOT, "firmware") not in sys.path:
    sys.path.insert(0, os.path.join(ROOT, "firmware"))

# South to move; S1 (key a) is a blunder of about 10 stones (the coach: 1500 nodes)
BLUNDER_RECORD = "kalah 5 5 2 4 6 4 1 6 2"
# South to move; S6 (key h) ends the game: South 31, North 17
LAST_MOVE_RECORD = "kalah 0,0,0,0,0,1,30,0,0,0,0,0,1,16 S"


class Tmux:
    """One simulator in a detached tmux session on a private server."""

    made = 0

    def __init__(self, args, cols=120, rows=36):
        # a server of its own each (the last one may still be exiting after kill-server:
        # a new session on its socket then fails)
        Tmux.made += 1
        self.sock = "mancala-screens-%d-%d" % (os.getpid(), Tmux.made)
        cmd = [sys.executable, "-m", "host_tools.simulators.sim"] + list(args)
        self.tmux("new-session", "-d", "-s", "sim", "-x", str(cols), "-y", str(rows),
                  "-c", ROOT, " ".join(_quote(c) for c in cmd))

    def tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.sock] + list(args), check=True,
                              capture_output=True, text=True).stdout

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "sim")

    def keys(self, text):
        self.tmux("send-keys", "-t", "sim", "-l", text)

    def wait_for(self, text, seconds=60):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            s = self.screen()
            if text in s:
                return s
            time.sleep(0.1)
        raise RuntimeError("the screen never showed %r; it shows:\n%s" % (text, self.screen()))

    def wait_for_any(self, texts, seconds=60):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            s = self.screen()
            if any(t in s for t in texts):
                return s
            time.sleep(0.05)
        raise RuntimeError("the screen never showed %r; it shows:\n%s" % (texts, self.screen()))

    def close(self):
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], capture_output=True)


def _quote(word):
    import shlex

    return shlex.quote(word)


def _saved_game(state, record, human, level, **settings):
    """A state folder holding a game in progress, as the board saved it."""
    from mancala.app import DEFAULTS
    from mancala.hw.storage import OsFs, Storage

    os.makedirs(state, exist_ok=True)
    st = Storage(OsFs(state))
    s = dict(DEFAULTS)
    s.update(settings)
    st.save("settings.json", s)
    st.save("game.json", {"record": record, "number": 1, "human": human, "level": level,
                          "hints": 3})


def capture(work):
    """[(name, screen text)] of the five moments."""
    screens = []
    # 1-2: the start, then a game the computer (strong) opens, chosen in the menu
    # (--variant/--level would start the game at once, without the menu); an opening
    # from the book is played at once: the thinking screen is there only when it thought
    t = Tmux(["--state", os.path.join(work, "a"), "--fresh"])
    try:
        screens.append(("start", t.wait_for("mode: menu")))
        t.keys("s")  # the menu item "opponent" ...
        t.wait_for(">s opponent")
        t.keys("e")  # ... strong (N4)
        t.wait_for("opponent: strong")
        t.keys("d")  # the menu item "who starts" ...
        t.wait_for(">d who starts")
        t.keys("t")  # ... North
        t.wait_for("who starts: North")
        t.keys("`")  # a new game
        first = t.wait_for_any(("mode: think", "mode: show"))
        if "mode: think" in first:
            screens.append(("computer thinking", first))
        screens.append(("computer's move", t.wait_for("mode: show")))
    finally:
        t.close()
    # 3: a blunder, graded by the coach; 4: the last move of a game between two people
    screens.append(("blunder pause", _one_move(os.path.join(work, "b"), BLUNDER_RECORD, 1, 2,
                                               "a", "blunder", coaching=1, quick=1)))
    screens.append(("game over", _one_move(os.path.join(work, "c"), LAST_MOVE_RECORD, 3, 0,
                                           "h", "over", quick=1)))
    # 5: the first kalah puzzle, chosen in the menu: the item "play" (the South store's
    # second item: j twice, typed together), puzzles (N2), start
    t = Tmux(["--state", os.path.join(work, "d"), "--fresh"])
    try:
        t.wait_for("mode: menu")
        t.keys("jj")
        t.wait_for(">j play")
        t.keys("t")
        t.wait_for("play: puzzles")
        t.keys("`")
        screens.append(("puzzle set-up", t.wait_for("set up: put the blinking counts in")))
    finally:
        t.close()
    return screens


def _one_move(state, record, human, level, key, mode, **settings):
    """The screen in `mode` after `key` is typed in a saved game of `record`."""
    _saved_game(state, record, human, level, **settings)
    t = Tmux(["--state", state])
    try:
        t.wait_for("mode: select")
        t.keys(key)
        return t.wait_for("mode: " + mode)
    finally:
        t.close()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m host_tools.simulators.sim_screens", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="also write each screen to OUT/NAME.txt")
    a = ap.parse_args(argv)
    if shutil.which("tmux") is None:
        print("sim_screens: error: tmux is not installed (apt-get install tmux)", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="mancala-screens-")
    try:
        screens = capture(work)
    except RuntimeError as e:
        print("sim_screens: error: %s" % e, file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for name, text in screens:
        print("==== %s " % name + "=" * (70 - len(name)))
        print(text.rstrip("\n"))
        if a.out:
            os.makedirs(a.out, exist_ok=True)
            with open(os.path.join(a.out, name.replace(" ", "_").replace("'", "") + ".txt"),
                      "w") as f:
                f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
