"""Whole games for every variant, against the computer and between two people:
after every move the counts read from the LEDs equal the rules core's position."""

import random

import pytest
from board_helpers import board, play_game, start

from mancala.notation import parse_record

VARIANTS = ["ranok", "mangala", "kalah", "oware", "kalah3", "kalah6"]
LEVEL_OF = {"ranok": 4, "mangala": 3, "kalah": 2, "oware": 1, "kalah3": 4, "kalah6": 1}


@pytest.mark.parametrize("variant", VARIANTS)
def test_whole_game_against_the_computer(variant):
    b = board(variant=variant, opponent=LEVEL_OF[variant], starter=1, coaching=1)
    start(b)
    ref, moves = play_game(b, random.Random(variant))
    sides = {s for s, _ in moves}
    assert sides == {0, 1}
    # the finished game is in the history, and game.json says the same
    st = b.app.store
    rec = st.read_game(st.history()[-1])
    g = parse_record(rec)
    assert [m for m in g.moves()] == [p for _, p in moves]


@pytest.mark.parametrize("variant", VARIANTS)
def test_whole_game_between_two_people(variant):
    b = board(variant=variant, opponent=0, starter=0)
    start(b)
    play_game(b, random.Random(variant + "pvp"))


@pytest.mark.parametrize("profile", ["pico_hall", "esp32", "pico_cheap"])
def test_whole_game_on_every_build(profile):
    b = board(profile, variant="kalah", opponent=2, starter=0, noise=300)
    start(b)
    play_game(b, random.Random(profile))


def test_quick_mode_sows_by_itself():
    b = board(variant="mangala", opponent=0, quick=1)
    start(b)
    b.tap("S1")
    b.run(4 * b.app.QUICK_MS + 200)
    assert list(b.app.game.pos[:14]) == [1, 5, 5, 5, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0]
    play_game(b, random.Random(7))
