"""Issue 15: the puzzles and the course cost a game nothing.  In the MicroPython unix
port (a GC that really frees), the firmware compiled as deployed, under the esp32's
heap cap (host_tools/benches/session.py): boot to the menu, a whole puzzle and a whole lesson
played, back to the menu, then a game; the heap the game holds is the same as on a
board that never opened a puzzle (their modules are imported when chosen and dropped
on leaving), and the puzzle session itself fits under the cap.

    python -m pytest -q -s tests/test_unix_puzzle_heap.py   (prints the numbers)
"""

import json
import os
import tempfile

import pytest

from host_tools.benches import session
from host_tools.runners import mpunix

pytestmark = pytest.mark.skipif(not mpunix.available(), reason="run `make setup`")

DRIVER = r'''
import gc, json, sys
import machine, neopixel
from memfs import MemFs
from board import SimBoard
from mancala.hw.storage import Storage
from mancala import app as A
from mancala import modes as M

out = {}
def alloc():
    gc.collect()
    return gc.mem_alloc()

fs = MemFs()
Storage(fs).save("settings.json", {"variant": "kalah", "opponent": 4, "starter": 0,
                                   "coaching": 1, "hints": 3, "brightness": 1, "quick": 0})
b = SimBoard("esp32", machine, neopixel, fs=fs, seed=3)
app = b.app
b.until(("menu",), 20000)
out["menu"] = alloc()
peak = [0]
def sample():
    a = alloc()
    if a > peak[0]:
        peak[0] = a

def choose(choice):  # the menu's "play" item (the South store, tapped twice), then start
    b.tap("SS")
    b.tap("SS")
    b.tap(7 + choice)
    b.tap("NS")

def set_up_and_play(answer):
    m = M.MODES[app.mode]
    need = m.need()
    for i in range(14):
        if need >> i & 1:
            b.tap(i)
    sample()
    b.tap(answer)
    while m.stage == 2:
        b.tap(m.path[m.sow_i])
    sample()
    b.run(2500)
    sample()

if PUZZLE:
    choose(1)
    assert M.NAMES[app.mode] == "puzzle", M.NAMES[app.mode]
    set_up_and_play(M.MODES[app.mode].puzzle.answer)
    assert M.MODES[app.mode].right
    b.tap("S1")  # the next puzzle
    b.hold(("SS", "NS"), 3000)  # the menu
    assert M.NAMES[app.mode] == "menu"
    choose(2)
    assert M.NAMES[app.mode] == "course"
    set_up_and_play(M.MODES[app.mode].lesson.target)
    assert M.MODES[app.mode].right
    out["in_activity"] = peak[0]
    b.hold(("SS", "NS"), 3000)
    assert M.NAMES[app.mode] == "menu"
    out["modules_left"] = [n for n in sys.modules if n in ("mancala.puzzles", "mancala.lessons",
                           "mancala.modes.puzzle", "mancala.modes.course", "mancala.modes.trainer")]
    out["menu_after"] = alloc()
    b.tap("SS")
    b.tap("SS")
    b.tap(7)  # play: a game again
b.tap("NS")  # a new game against Master
moves = 0
while moves < 12:
    b.until(("select", "show", "over", "blunder"), 200000)
    mm = b.mode()
    if mm == "over":
        break
    if mm == "blunder":
        b.tap(12)
        continue
    if mm == "select":
        g = app.game
        legal = [p for p in range(6) if g.pos[15] >> p & 1]
        b.play_move(g.side * 7 + legal[moves % len(legal)])
    else:
        b.sow()
    moves += 1
    gp = alloc()
    if gp > out.get("game_peak", 0):
        out["game_peak"] = gp
out["game"] = alloc()
out["free"] = gc.mem_free()
print("RESULT " + json.dumps(out))
'''


def run(puzzle, heap):
    with tempfile.TemporaryDirectory(prefix="pzheap-") as tmp:
        path = os.path.join(tmp, "pz_driver.py")
        with open(path, "w") as f:
            f.write("PUZZLE = %r\n" % puzzle + DRIVER)
        out = mpunix.run("import pz_driver\n", heap=heap, mpy=True,
                         mounts=[(session.FAKES, "/lib"), (path, "/lib/pz_driver.py")],
                         timeout=600)
    return json.loads([x for x in out.splitlines() if x.startswith("RESULT ")][-1][7:])


def test_puzzles_and_the_course_leave_their_room_to_the_game():
    # both runs under the esp32's cap (host_tools/benches/session.py); the least heap each needs:
    # `python tests/test_unix_puzzle_heap.py` (docs/PUZZLES.md)
    heap = session.cap_for("esp32")[0]
    plain = run(False, heap)
    pz = run(True, heap)
    print("menu %d B, in a puzzle/lesson %d (+%d), menu after %d, game %d, game peak %d "
          "(a board that never opened one: game %d, peak %d)" % (
              pz["menu"], pz["in_activity"], pz["in_activity"] - pz["menu"],
              pz["menu_after"], pz["game"], pz["game_peak"], plain["game"],
              plain["game_peak"]))
    assert pz["modules_left"] == []  # dropped on leaving
    assert pz["menu"] == plain["menu"]  # activities.py is all a game carries of them
    # what stays: the names MicroPython interned when it loaded their code (qstrs are
    # never freed) and puzzle.json in the fake flash (in RAM here): about 2 KB on this
    # 64-bit build, once; their code and state (~16 KB here) are gone
    assert pz["menu_after"] - pz["menu"] < 3072, pz
    assert pz["game"] - plain["game"] < 3072, (pz, plain)
    assert pz["in_activity"] - pz["menu"] > 4 * (pz["menu_after"] - pz["menu"])


def least_heap(puzzle, profile="esp32", step=1024):
    """The least heap (bytes, to `step`) the driver completes in."""
    lo, hi = 64 * 1024, 1024 * 1024
    while hi - lo > step:
        mid = (lo + hi) // 2 // step * step
        try:
            run(puzzle, mid)
            hi = mid
        except mpunix.MicroPythonError:
            lo = mid
    return hi


if __name__ == "__main__":  # the least heap, side by side, and the esp32 cap
    cap = session.cap_for("esp32")[0]
    a, b = least_heap(False), least_heap(True)
    print("esp32 cap %d KB; least heap: a game %d KB, menu -> puzzle -> lesson -> menu -> "
          "game %d KB (%.3fx)" % (cap // 1024, a // 1024, b // 1024, b / a))
