"""kalah: one test per numbered rule of RULES.md."""

import pytest

from mancala.notation import NotationError, parse_position
from mancala.rules import CAPTURED, EXTRA, SWEPT, get_rules, perft

from rules_helpers import game, play


@pytest.mark.parametrize("seeds", [3, 4, 5, 6])
def test_rule1_seed_options(seeds):
    r = get_rules("kalah" if seeds == 4 else "kalah%d" % seeds)
    p = r.start()
    assert list(p[:14]) == [seeds] * 6 + [0] + [seeds] * 6 + [0]
    assert r.total == 12 * seeds and perft(r, p, 1) == 6


def test_rule1_other_seed_counts_rejected():
    with pytest.raises(ValueError):
        get_rules("kalah7")
    with pytest.raises(NotationError):
        parse_position("kalah2 2,2,2,2,2,2,0,2,2,2,2,2,2,0 S")


def test_rule2_sow_from_next_pit_skipping_opponents_store():
    counts, side, _, _ = play("kalah", [0, 4, 0, 0, 0, 9, 0, 1, 1, 1, 1, 1, 1, 0], "S", 6)
    # S store, N1..N6, (N store skipped), S1, S2
    assert counts == [1, 5, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2, 2, 0] and side == "N"


def test_rule2_laps_do_not_skip_origin():
    # S1 with 13: S2..S6, S store, N1..N6, (skip N store), S1 again: 13 places.
    counts, _, _, _ = play("kalah", [13, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0], "S", 1)
    assert counts[0] == 0  # landed in S1: it held 0 -> 1 -> capture of N6 (2) + 1
    assert counts[6] == 1 + 3 and counts[12] == 0


def test_rule3_extra_turn():
    g = game("kalah")
    assert g.play(2) & EXTRA and g.side == 0  # S3 (4) -> S4, S5, S6, store


def test_rule4_capture_into_own_empty_pit():
    counts, side, _, flags = play("kalah", [1, 0, 0, 0, 0, 2, 0, 1, 1, 1, 1, 7, 1, 0], "S", 1)
    assert counts == [0, 0, 0, 0, 0, 2, 8, 1, 1, 1, 1, 0, 1, 0] and side == "N"
    assert flags == (CAPTURED << 1) | (CAPTURED << 11)


def test_rule4_opposite_empty_no_capture():
    counts, _, _, flags = play("kalah", [1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 0], "S", 1)
    assert flags == 0 and counts[1] == 1


def test_rule5_empty_row_each_takes_own():
    counts, _, over, flags = play("kalah", [0, 0, 0, 0, 0, 1, 20, 3, 3, 3, 3, 3, 3, 9], "S", 6)
    assert over and flags & SWEPT and flags & EXTRA
    assert counts == [0] * 6 + [21] + [0] * 6 + [9 + 18]
    g = game("kalah", [0, 0, 0, 0, 0, 1, 20, 3, 3, 3, 3, 3, 3, 9], "S")
    g.play(5)
    assert g.winner() == 1
