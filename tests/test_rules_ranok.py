"""ranok (the Ranok box "Манкала"): one test per numbered rule of RULES.md."""

import pytest

from mancala.game import END_AGREEMENT, IllegalMove
from mancala.rules import CAPTURED, EXTRA, get_rules

from rules_helpers import game, legal, play


def test_rule1_start_48_stones_either_side_may_start():
    r = get_rules("ranok")
    for side in (0, 1):
        p = r.start(side)
        assert list(p[:14]) == [4] * 6 + [0] + [4] * 6 + [0]
        assert p[14] == side and p[15] == 0b111111


def test_rule2_sows_own_store_never_opponents():
    # S6 with 3: store, N1, N2.
    assert play("ranok", [0, 0, 0, 0, 1, 3, 0, 1, 3, 1, 1, 1, 1, 0], "S", 6)[0] == \
        [0, 0, 0, 0, 1, 0, 1, 2, 4, 1, 1, 1, 1, 0]
    # N6 with 10 stones: N store, then S1..S6, (S store skipped), N1, N2, N3.
    counts, side, _, _ = play("ranok", [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0], "N", 6)
    assert counts == [2, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1]
    assert side == "S"


def test_rule2_origin_skipped_on_every_lap():
    # S1 with 13 stones: the cycle has 12 other places, the 13th stone skips S1.
    counts, _, _, _ = play("ranok", [13, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5, 5, 5, 0], "S", 1)
    assert counts[0] == 0
    assert counts[1] == 2  # S2 got stones 1 and 13
    assert counts[6] == 1 and counts[13] == 0


def test_rule3_capture_two_or_three_with_neighbours():
    # S5 (3 stones) -> S6, store, N1; N1 becomes 2; N2 holds 3 (neighbour) -> captured.
    counts, _, _, flags = play("ranok", [1, 0, 0, 0, 3, 0, 0, 1, 3, 4, 1, 1, 1, 0], "S", 5)
    assert counts == [1, 0, 0, 0, 0, 1, 6, 0, 0, 4, 1, 1, 1, 0]
    assert flags == (CAPTURED << 7) | (CAPTURED << 8)


def test_rule3_neighbours_both_sides_at_most_three_pits():
    # S6 with 3 -> store, N1, N2; N2 = 2; N1 = 3 and N3 = 2 neighbours; N4 = 2 not adjacent.
    counts, _, _, flags = play("ranok", [1, 0, 0, 0, 0, 3, 0, 2, 1, 2, 2, 1, 0, 0], "S", 6)
    assert counts == [1, 0, 0, 0, 0, 0, 1 + 3 + 2 + 2, 0, 0, 0, 2, 1, 0, 0]
    assert flags == (CAPTURED << 7) | (CAPTURED << 8) | (CAPTURED << 9)


def test_rule3_no_capture_of_four_or_one_and_none_in_own_row():
    # last stone makes 4: nothing.
    counts, _, _, flags = play("ranok", [1, 0, 0, 0, 0, 2, 0, 3, 2, 1, 1, 1, 1, 0], "S", 6)
    assert flags == 0 and counts[6] == 1 and counts[7] == 4
    # last stone in own row making 2: nothing.
    counts, _, _, flags = play("ranok", [1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0], "S", 1)
    assert flags == 0 and counts[1] == 2 and counts[6] == 0


def test_rule3_neighbour_must_be_in_the_opponents_row():
    # S4 (4) -> S5, S6, store, N1: N1 = 2 captured; S6 (now 2) and the store next to N1 in
    # board order are not the opponent's row, so they stay.
    counts, _, _, flags = play("ranok", [0, 0, 0, 4, 1, 1, 0, 1, 5, 1, 1, 1, 1, 0], "S", 4)
    assert counts == [0, 0, 0, 0, 2, 2, 3, 0, 5, 1, 1, 1, 1, 0]
    assert flags == CAPTURED << 7


def test_rule3_no_extra_turns():
    counts, side, _, flags = play("ranok", [0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0], "S", 6)
    assert counts[6] == 1 and side == "N" and not flags & EXTRA


def test_rule4_may_not_take_opponents_last_stones():
    # S6 (2) -> store, N1 = 2 captured would leave North empty: illegal; S1 is fine.
    assert legal("ranok", [1, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0]) == [1]


def test_rule4_must_feed_an_empty_row():
    # North empty: only moves reaching North's row are legal (S5 with 1 does not).
    assert legal("ranok", [0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0]) == [6]


def test_rule5_no_legal_move_ends_stones_count_for_nobody():
    g = game("ranok", [0, 0, 0, 0, 0, 1, 10, 0, 0, 0, 0, 0, 0, 5], "S")
    assert g.over and g.winner() == 0
    assert g.pos[6] == 10 and g.pos[5] == 1  # the stone on the board stays uncounted


def test_rule5_store_of_25_ends_at_once():
    counts, _, over, _ = play("ranok", [1, 0, 0, 0, 0, 1, 24, 2, 2, 2, 2, 2, 2, 0], "S", 6)
    assert over and counts[6] == 25 and counts[7] == 2  # no sweep


def _progress(pos):
    """Sum over stones of their distance to the end of their row."""
    return sum(pos[7 * row + k] * (6 - k) for row in (0, 1) for k in range(6))


def test_rule5_repetition_cannot_happen_in_ranok():
    """Why the third-repetition end never fires in ranok (docs/RULES.en.md): a stone crossing
    rows passes the sower's store and raises it; a move inside a row strictly lowers
    `_progress`. So between two store changes no position can come back. Checked on many
    random games: every move either changes a store or lowers the progress measure."""
    import random
    r = get_rules("ranok")
    rng = random.Random(7)
    moves = 0
    for _ in range(300):
        pos = r.start(rng.randrange(2))
        while pos[15]:
            pits = [k for k in range(6) if pos[15] >> k & 1]
            before = bytes(pos)
            r.move(pos, rng.choice(pits))
            moves += 1
            stores_changed = (before[6], before[13]) != (pos[6], pos[13])
            assert stores_changed or _progress(pos) < _progress(before)
    assert moves > 5000


def test_rule5_agreement_and_winner():
    g = game("ranok")
    g.play(2)
    g.agree()
    assert g.over and g.end == END_AGREEMENT and g.winner() == 0  # S3 put one in the store
    with pytest.raises(IllegalMove):
        g.play(0)
    g2 = game("kalah")
    with pytest.raises(IllegalMove):
        g2.agree()


def test_seed_example_triple_capture():
    counts, side, _, _ = play("ranok", [0, 0, 0, 0, 0, 3, 0, 1, 1, 2, 3, 1, 0, 0], "S", 6)
    assert counts == [0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 3, 1, 0, 0] and side == "N"


def test_record_word_agreed_round_trips_and_is_ranok_only():
    from mancala.notation import NotationError, format_record, parse_record

    g = parse_record("ranok 3 2 agreed")
    assert g.over and g.end == END_AGREEMENT and format_record(g) == "ranok 3 2 agreed"
    with pytest.raises(NotationError, match="only ranok ends by agreement"):
        parse_record("kalah 3 agreed")
    with pytest.raises(NotationError, match="'agreed' must be the last word"):
        parse_record("ranok agreed 3")
