"""oware (Abapa): each rule of RULES.md."""

from mancala.game import END_REPETITION
from mancala.rules import CAPTURED, SWEPT

from rules_helpers import game, legal, play


def test_sowing_never_enters_a_store():
    # N6 with 8: (N store skipped) S1..S6, (S store skipped), N1, N2.
    counts, side, _, _ = play("oware", [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 8, 0], "N", 6)
    assert counts == [1, 1, 1, 1, 1, 1, 0, 2, 1, 0, 0, 0, 0, 0] and side == "S"


def test_capture_chain_of_twos_and_threes_backwards():
    # S6 with 3 -> N1, N2, N3 each +1: 1->2, 2->3, 1->2: all three captured (chain back from N3).
    counts, _, _, flags = play("oware", [1, 0, 0, 0, 0, 3, 0, 1, 2, 1, 4, 1, 1, 0], "S", 6)
    assert counts == [1, 0, 0, 0, 0, 0, 7, 0, 0, 0, 4, 1, 1, 0]
    assert flags == (CAPTURED << 7) | (CAPTURED << 8) | (CAPTURED << 9)


def test_chain_breaks_at_a_pit_not_two_or_three():
    counts, _, _, _ = play("oware", [1, 0, 0, 0, 0, 3, 0, 1, 4, 1, 4, 1, 1, 0], "S", 6)
    assert counts == [1, 0, 0, 0, 0, 0, 2, 2, 5, 0, 4, 1, 1, 0]


def test_no_capture_in_own_row():
    counts, _, _, flags = play("oware", [1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0], "S", 1)
    assert flags == 0 and counts[1] == 2


def test_origin_skipped_on_laps():
    counts, _, _, _ = play("oware", [12, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0], "S", 1)
    assert counts[0] == 0 and counts[1] == 2  # 11 places, the 12th stone skips S1 into S2


def test_grand_slam_is_legal_and_captures_nothing():
    # S6 (2) -> N1, N2 making 2 and 2: that would take all of North's stones.
    counts, side, over, flags = play("oware", [1, 0, 0, 0, 0, 2, 0, 1, 1, 0, 0, 0, 0, 0], "S", 6)
    assert flags == 0 and counts[7:9] == [2, 2] and not over and side == "N"


def test_must_feed_an_empty_row():
    assert legal("oware", [0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0]) == [6]


def test_cannot_move_each_takes_own_row():
    # North is empty and no South move reaches it: over, South takes its own row.
    g = game("oware", [1, 1, 0, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 26], "S")
    assert g.over and (g.pos[6], g.pos[13]) == (22, 26)


def test_more_than_24_ends_and_24_24_draws():
    counts, _, over, flags = play("oware", [1, 0, 0, 0, 0, 1, 23, 1, 1, 1, 1, 1, 1, 17], "S", 6)
    assert over and flags & SWEPT and counts[6] == 23 + 2 + 1 and counts[13] == 17 + 5
    # 24-24 is a draw (only collecting can get there: a capture leaving North empty is a grand
    # slam and captures nothing).
    g = game("oware", [0] * 6 + [24] + [0] * 6 + [24], "S")
    assert g.over and g.winner() == -1
    g = game("oware", [0, 0, 0, 0, 0, 1, 22, 1, 1, 0, 0, 0, 0, 23], "S")
    # S6 -> N1 (1 -> 2) captured: 24-23, North keeps N2. South's row is now empty and N2 (1)
    # cannot reach it: North cannot move, each takes own row: 24-24, a draw.
    g.play(5)
    assert g.over and (g.pos[6], g.pos[13]) == (24, 24) and g.winner() == -1


def test_repetition_ends_the_game_each_takes_own_row():
    g = game("oware", [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0], "S")
    for pit in (6, 6, 1, 1, 2, 2, 3, 3, 4, 4, 5):
        g.play(pit - 1)
        assert not g.over
    g.play(4)  # back to the start position with South to move
    assert g.end == END_REPETITION and list(g.pos[:14]) == [0] * 6 + [1] + [0] * 6 + [1]
    assert g.winner() == -1
    g.undo()
    assert not g.over and g.ply == 11
