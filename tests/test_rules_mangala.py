"""mangala (Turkish Mangala): one test per numbered rule of RULES.md, plus the seed examples."""

from mancala.rules import CAPTURED, EXTRA, SWEPT, get_rules

from rules_helpers import game, legal, play


def test_rule1_start_south_first():
    p = get_rules("mangala").start()
    assert list(p[:14]) == [4] * 6 + [0] + [4] * 6 + [0] and p[14] == 0


def test_rule2_first_stone_back_into_the_pit():
    # seed example: pit 5 with 5 stones -> S5, S6, store, N1, N2.
    counts, side, _, _ = play("mangala", [4, 4, 4, 4, 5, 4, 0, 4, 4, 4, 4, 4, 4, 0], "S", 5)
    assert counts == [4, 4, 4, 4, 1, 5, 1, 5, 5, 4, 4, 4, 4, 0] and side == "N"


def test_rule2_single_stone_moves_on():
    counts, _, _, _ = play("mangala", [1, 3, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0], "S", 1)
    assert counts[0] == 0 and counts[1] == 4


def test_rule2_skips_opponents_store_and_laps_do_not_skip_origin():
    # N6 (index 12) with 15: N6 itself, N store, S1..S6 (S store skipped), N1..N6 = 1+1+6+6 = 14,
    # the 15th lands in the N store.
    counts, side, _, flags = play("mangala", [1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 15, 0], "N", 6)
    assert counts[6] == 0  # South's store untouched
    assert counts[12] == 2  # the origin got the first stone and a stone on the lap
    assert counts[13] == 2 and flags & EXTRA and side == "N"


def test_rule3_extra_turn_from_the_start_pit_4():
    # seed example: pit 4 at the start ends in the store and gives an extra turn.
    g = game("mangala")
    flags = g.play(3)
    assert flags & EXTRA and g.side == 0
    assert list(g.pos[:14]) == [4, 4, 4, 1, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]


def test_rule3_chain_of_extra_turns():
    g = game("mangala", [1, 0, 0, 0, 3, 1, 0, 1, 1, 1, 1, 1, 1, 0], "S")
    assert g.play(5) == EXTRA and g.side == 0  # S6 (1) -> store
    assert g.play(4) == EXTRA and g.side == 0  # S5 (3) -> S5, S6, store
    assert g.play(5) == EXTRA and g.side == 0  # S6 (1) -> store
    # S5 (1) -> empty S6, opposite N1 holds 1: captured; the chain ends.
    assert g.play(4) == (CAPTURED << 5) | (CAPTURED << 7) and g.side == 1
    assert list(g.pos[:14]) == [1, 0, 0, 0, 0, 0, 5, 0, 1, 1, 1, 1, 1, 0]


def test_rule4_even_capture_only_that_pit():
    # S6 with 3: S6, store, N1; N1 3 -> 4 even: captured; N2 = 2 (even) untouched.
    counts, _, _, flags = play("mangala", [1, 0, 0, 0, 0, 3, 0, 3, 2, 1, 1, 1, 1, 0], "S", 6)
    assert counts == [1, 0, 0, 0, 0, 1, 1 + 4, 0, 2, 1, 1, 1, 1, 0]
    assert flags == CAPTURED << 7


def test_rule4_odd_nothing_and_own_pit_even_nothing():
    counts, _, _, flags = play("mangala", [1, 0, 0, 0, 0, 3, 0, 2, 2, 1, 1, 1, 1, 0], "S", 6)
    assert flags == 0 and counts[7] == 3
    counts, _, _, flags = play("mangala", [2, 1, 0, 0, 0, 0, 0, 2, 2, 1, 1, 1, 1, 0], "S", 1)
    assert flags == 0 and counts[1] == 2


def test_rule5_empty_own_pit_takes_opposite():
    # seed example: last stone into empty S3 with 5 opposite (N4): store +6.
    counts, _, _, flags = play("mangala", [0, 2, 0, 0, 0, 1, 0, 1, 1, 1, 5, 1, 1, 0], "S", 2)
    assert counts[6] == 6 and counts[2] == 0 and counts[10] == 0
    assert flags == (CAPTURED << 2) | (CAPTURED << 10)


def test_rule5_opposite_empty_nothing():
    counts, _, _, flags = play("mangala", [0, 2, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0], "S", 2)
    assert flags == 0 and counts[2] == 1 and counts[6] == 0


def test_rule6_store_of_25_ends_without_sweep():
    counts, _, over, flags = play("mangala", [0, 0, 0, 0, 0, 1, 24, 1, 1, 1, 1, 1, 1, 10], "S", 6)
    assert over and counts[6] == 25 and counts[7] == 1 and not flags & SWEPT


def test_rule6_empty_row_owner_takes_the_rest():
    # South plays its last stone into the store: South's row is empty, South takes North's row.
    counts, _, over, flags = play("mangala", [0, 0, 0, 0, 0, 1, 10, 2, 2, 2, 2, 2, 2, 13], "S", 6)
    assert over and flags & SWEPT
    assert counts == [0] * 6 + [10 + 1 + 12] + [0] * 6 + [13]


def test_rule6_game_over_when_a_row_is_already_empty():
    # North's row is empty: over, North takes what is left in South's row.
    g = game("mangala", [0, 0, 0, 0, 0, 1, 23, 0, 0, 0, 0, 0, 0, 24], "S")
    assert g.over and (g.pos[6], g.pos[13]) == (23, 25) and g.winner() == 1


def test_rule6_draw_24_24():
    # S1 -> empty S2 captures N5 (2) + 1; South's row is empty: South takes N1 -> 24-24.
    g = game("mangala", [1, 0, 0, 0, 0, 0, 20, 1, 0, 0, 0, 2, 0, 24], "S")
    g.play(0)
    assert g.over and (g.pos[6], g.pos[13]) == (24, 24) and g.winner() == -1


def test_legal_moves_are_the_nonempty_pits():
    assert legal("mangala", [0, 3, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0]) == [2, 4]
