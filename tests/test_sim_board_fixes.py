"""Issue 12, firmware items 1-5: what a newcomer met on the simulated board
(the same code runs on a real board)."""

import random

from board_helpers import board, start, to_select
from test_board_play import BlunderEngine
from test_engine import random_midgame

from host_tools.fakes.board import index
from host_tools.fakes.memfs import MemFs
from mancala.engine import GRADES, Engine
from mancala.rules import MASK, get_rules


def frames_of(b):
    frames = []
    b.app.on_frame = lambda app: frames.append(b.frame())
    return frames


# -- 1: the touch dot goes out when the finger lifts -------------------------------

def test_touch_dot_goes_out_after_a_hold():
    b = board(variant="kalah", opponent=0)
    start(b)
    frames = frames_of(b)
    b.hold("S1", 1500)  # a hold: its release says nothing to the game
    t_release = b.clock.now() - 80
    b.run(300)
    after = [f for f in frames if f["t"] > t_release]
    assert after, "no frame drawn after the finger lifted"
    assert b.counts()[0] == 4  # the count again, no white dot on it


def test_touch_dot_goes_out_after_the_menu():
    b = board(variant="kalah", opponent=0)
    start(b)
    b.hold(("SS", "NS"), 3000)
    assert b.mode() == "menu"
    b.hold(("SS", "NS"), 3000)
    assert b.mode() == "select"
    b.run(300)
    counts = b.counts()
    assert counts[6] == 0 and counts[13] == 0, b.frame()


# -- 2: a move that loses nothing is "best" ------------------------------------------

def test_a_move_that_loses_no_stone_is_best():
    rng = random.Random(12)
    seen = 0
    for variant in ("kalah", "oware", "mangala", "ranok"):
        rules = get_rules(variant)
        eng = Engine(rules)
        for _ in range(12):
            pos = random_midgame(rules, rng, 2, 25)
            if pos is None:
                continue
            for pit in range(6):
                if pos[MASK] >> pit & 1:
                    g, loss, _ = eng.grade(pos, pit, nodes=400)
                    seen += 1
                    assert (g == 0) == (loss == 0), (variant, list(pos), pit, GRADES[g], loss)
    assert seen > 100


# -- 3: asking again for the hint of the same position costs nothing ---------------

def test_a_second_hint_in_the_same_position_is_free():
    b = board(variant="kalah", opponent=1, hints=3, coaching=0)
    start(b)
    to_select(b)
    b.chord(("S3", "S4"))
    for _ in range(40):  # the hint's search, at a Pico's speed on the simulated clock
        if b.app.hint_pit >= 0:
            break
        b.run(250)
    assert b.app.hint_pit >= 0 and b.app.meta["hints"] == 2
    first = b.app.hint_pit
    for _ in range(2):
        b.chord(("S3", "S4"))
        b.run(1000)
    assert b.app.meta["hints"] == 2 and b.app.hint_pit == first


# -- 4: a power cut in the blunder pause or mid-sowing ------------------------------

def test_power_cut_in_the_blunder_pause_comes_back_to_the_pause():
    fs = MemFs()
    b = board(fs=fs, variant="kalah", opponent=1, coaching=1, engine_cls=BlunderEngine)
    start(b)
    b.play_move(index("S2"))
    assert b.until(("blunder",), 5000)
    b2 = board(fs=fs, engine_cls=BlunderEngine)  # power off, power on
    assert b2.until(("blunder",), 2000), b2.frame()
    frames = frames_of(b2)
    b2.run(600)
    assert any(f["bg"][9] == "red" for f in frames)  # the threat N3 blinks again
    assert any(f["bg"][6] == "white" for f in frames)  # the takeback offer
    b2.run(3000)
    assert b2.mode() == "blunder"  # it waits for the person, the computer does not move
    b2.tap("SS")
    assert b2.mode() == "select" and b2.app.game.ply == 0
    b3 = board(fs=fs, engine_cls=BlunderEngine)  # the pause is over: not restored again
    assert b3.until(("select",), 2000) and b3.app.game.ply == 0


def test_power_cut_after_keeping_a_blunder_does_not_pause_again():
    fs = MemFs()
    b = board(fs=fs, variant="kalah", opponent=1, coaching=1, engine_cls=BlunderEngine)
    start(b)
    b.play_move(index("S2"))
    assert b.until(("blunder",), 5000)
    b.tap("S5")  # keep the move
    b2 = board(fs=fs, engine_cls=BlunderEngine)
    assert b2.until(("think", "show"), 2000), b2.frame()


def test_power_cut_mid_sowing_blinks_the_pits_to_put_back():
    fs = MemFs()
    b = board(fs=fs, variant="kalah", opponent=0)
    start(b)
    b.tap("S2")  # four stones for S3 S4 S5 S6
    b.tap(b.target())
    b.tap(b.target())  # two dropped, then the power goes
    assert b.mode() == "sow"
    b2 = board(fs=fs)
    frames = frames_of(b2)
    assert b2.until(("select",), 2000)
    b2.run(3000)
    assert b2.app.game.ply == 0  # the position before the move (as before)
    blinking = set(i for f in frames for i in range(14) if f["bg"][i] == "white")
    assert blinking == {1, 2, 3, 4, 5}  # S2 and every pit its stones may be in
    b2.run(10000)
    assert b2.counts()[:6] == [4] * 6  # then the counts again


def test_the_saved_game_of_an_older_firmware_still_loads():
    from mancala.hw.storage import Storage

    fs = MemFs()
    Storage(fs).save("game.json", {"record": "kalah 3", "number": 1, "human": 1, "level": 1,
                                   "hints": 3})
    b = board(fs=fs, variant="kalah", opponent=1)
    assert b.until(("select",), 2000) and b.app.game.ply == 1


# -- 5: the live grade never reads better than the loss it measured ----------------

def test_live_grade_stopped_in_a_re_search_keeps_the_larger_measured_loss():
    """A grade whose budget ends while a better root move is searched again: the
    lower bound measured in that unfinished iteration is a loss the move surely has;
    the grade must not fall back to a smaller one from a shallower depth."""
    rng = random.Random(5)
    found = 0
    for variant in ("kalah", "oware", "mangala", "ranok"):
        rules = get_rules(variant)
        eng = Engine(rules)
        for _ in range(25):
            pos = random_midgame(rules, rng, 2, 30)
            if pos is None:
                continue
            for pit in range(6):
                if not pos[MASK] >> pit & 1:
                    continue
                for nodes in (150, 300, 600):
                    eng.start_grade(pos, pit, nodes=nodes)
                    while not eng.step(64):
                        pass
                    measured = eng.qscore - eng.first_score if eng._bound else None
                    g, loss, _ = eng.grade_result()
                    if measured is not None and measured > 0:
                        found += 1
                        assert loss >= (measured + 2) // 4, (variant, list(pos), pit, nodes)
    assert found > 0
