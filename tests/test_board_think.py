"""The computer's think on the simulated clock, which charges a Pico's time for the
board's work (host_tools/fakes/board.py: the chain's wire time, the Python side of a
frame, each engine node at a Pico's rate): the think spends its loop turns
searching, no turn sleeps while a search runs, a press lights within 40 ms."""

import pytest
from board_helpers import board, start

from host_tools.fakes.board import index
from mancala import app as A
from mancala.engine import MASTER_NODES, PICO_NODES_PER_S


def to_think(variant="kalah", profile="pico_buttons", **kw):
    """A board where the person (South) has just moved: the computer (Master) thinks."""
    b = board(profile, variant=variant, opponent=4, starter=0, **kw)
    start(b)
    b.play_move(index("S1"))
    for _ in range(500):
        if b.mode() == "think":
            return b
        b.run(1)
    raise AssertionError(b.frame())


def one_think(b):
    """Turn the loop one turn at a time through the think: (ms, engine ms charged,
    the app's own search ms, the busy ms of each turn)."""
    app = b.app
    t0 = b.clock.now()
    e0 = b.engine_us
    s0 = getattr(app, "search_ms", 0)
    busy = []
    while b.mode() == "think":
        b.run(1)  # one loop turn
        busy.append(b.busy)
    ms = b.clock.now() - t0
    return ms, (b.engine_us - e0) / 1000, getattr(app, "search_ms", 0) - s0, busy


@pytest.mark.parametrize("variant,profile", [("kalah", "pico_buttons"), ("oware", "pico_hall"),
                                             ("kalah", "pico_cheap")])
def test_think_spends_its_turns_searching(variant, profile):
    b = to_think(variant, profile)
    ms, engine_ms, search_ms, busy = one_think(b)
    assert ms > 500  # a real Master think, many turns
    share = engine_ms / ms
    assert share >= 0.85, (share, ms, engine_ms)  # the fixed 16-node slice: ~0.45
    assert search_ms / ms >= 0.85  # the loop's own timings agree
    # no turn slept while the search ran (the last two: it finished; the move shown)
    assert min(busy[:-2]) >= A.App.FRAME_MS, busy


def test_master_thinks_about_two_seconds_of_board_time():
    b = to_think("kalah", "pico_buttons")
    ms, engine_ms, _, _ = one_think(b)
    assert 1900 <= ms <= 2100, ms  # its deadline (MASTER_MS) and the turn it ends in
    # it spent the time searching: ~88% of 2 s at a Pico's kalah rate
    assert b.app.engine.nodes >= 0.85 * 2 * PICO_NODES_PER_S["kalah"]
    assert b.app.engine.nodes > 2 * MASTER_NODES["kalah"] // 3


def test_press_lights_within_40_ms_while_the_computer_thinks():
    b = to_think("kalah", "pico_buttons")
    i = index("S4")
    lit = []

    def frame(app):
        if b.decoded()[1][i] == "white" and b.app.pits.raw >> i & 1:
            lit.append(b.clock.now())

    b.app.on_frame = frame
    worst = 0
    t = b.clock.now() + 7
    presses = 0
    while b.mode() == "think" and presses < 12:
        b.at(t, i, True)  # a press at any moment of a loop turn's work
        del lit[:]
        b.run(40)
        if b.mode() != "think":
            break
        assert lit, "no frame showed the press"
        worst = max(worst, lit[0] - t)
        b.release(i)
        b.run(80)
        presses += 1
        t = b.clock.now() + 3 + 7 * presses % 19
    assert presses >= 5
    assert worst <= 40, worst
