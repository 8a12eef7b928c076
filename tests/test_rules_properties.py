"""Properties of every variant (hypothesis), perft against RULES.md, and the independent
reference implementation (host_tools/references/reference_rules.py) agreeing move by move."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host_tools.references.reference_rules import ReferenceRules
from mancala.game import Game
from mancala.notation import format_position, format_record, parse_position, parse_record
from mancala.rules import MASK, VARIANTS, get_rules, perft

PERFT = {  # RULES.md's table, depths 1..7
    "ranok": [6, 36, 186, 973, 4823, 24142, 116475],
    "mangala": [6, 36, 213, 1233, 6956, 38116, 204921],
    "kalah": [6, 35, 185, 942, 4690, 23233, 114430],
    "oware": [6, 36, 190, 1014, 5219, 27332, 139157],
}
ALL = VARIANTS + ("kalah3", "kalah5", "kalah6")


@pytest.mark.parametrize("variant", VARIANTS)
def test_perft_table(variant):
    r = get_rules(variant)
    assert [perft(r, r.start(), d) for d in range(1, 8)] == PERFT[variant]


def random_game(rules, rng, max_plies=400):
    g = Game(rules, rules.start(rng.randrange(2)))
    while not g.over and g.ply < max_plies:
        m = g.legal_mask()
        g.play(rng.choice([k for k in range(6) if m >> k & 1]))
    return g


variant_st = st.sampled_from(ALL)


@settings(max_examples=150, deadline=None)
@given(variant=variant_st, seed=st.integers(0, 2**31 - 1))
def test_stones_conserved_no_empty_pit_moves_finished_has_no_moves(variant, seed):
    rules = get_rules(variant)
    rng = random.Random(seed)
    g = Game(rules, rules.start(rng.randrange(2)))
    while not g.over:
        pos = g.pos
        assert sum(pos[:14]) == rules.total
        side = pos[14]
        for k in range(6):
            if pos[MASK] >> k & 1:
                assert pos[side * 7 + k] > 0  # no move from an empty pit
            elif pos[side * 7 + k] == 0:
                assert g.why_illegal(k) == "pit %s%d is empty" % ("SN"[side], k + 1)
        m = g.legal_mask()
        g.play(rng.choice([k for k in range(6) if m >> k & 1]))
    assert sum(g.pos[:14]) == rules.total
    assert g.legal_mask() == 0 and g.why_illegal(0) == "the game is over"


@settings(max_examples=150, deadline=None)
@given(variant=variant_st, seed=st.integers(0, 2**31 - 1), cut=st.floats(0, 1))
def test_text_round_trips(variant, seed, cut):
    rules = get_rules(variant)
    g = random_game(rules, random.Random(seed))
    text = format_record(g)
    g2 = parse_record(text)
    assert format_record(g2) == text and bytes(g2.pos) == bytes(g.pos)
    # a position from the middle of the game round-trips too
    pos = g.position_at(int(cut * g.ply))
    r2, p2 = parse_position(format_position(rules, pos))
    assert r2 is rules and bytes(p2) == bytes(pos)


@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(VARIANTS), counts=st.lists(st.integers(0, 6), min_size=14, max_size=14),
       side=st.integers(0, 1))
def test_fast_core_equals_reference_on_arbitrary_positions(variant, counts, side):
    rules = get_rules(variant)
    if sum(counts) == 0:
        counts[0] = 1
    ref = ReferenceRules(variant)
    pos = rules.new_position(counts, side)
    rpos = list(counts) + [side]
    if pos[MASK] == 0:
        assert ref.over_now(rpos)
        return
    assert [k for k in range(6) if pos[MASK] >> k & 1] == ref.legal(rpos)
    for k in ref.legal(rpos):
        child = bytearray(pos)
        rules.move(child, k)
        rchild = ref.play(rpos, k)
        assert list(child[:15]) == rchild, (variant, counts, side, k)
        assert (child[MASK] == 0) == ref.over_now(rchild)


@pytest.mark.parametrize("variant", ALL)
def test_fast_core_equals_reference_in_random_games(variant):
    rules = get_rules(variant)
    ref = ReferenceRules(rules.name, rules.seeds)
    rng = random.Random(variant)
    for _ in range(150):
        pos = rules.start(rng.randrange(2))
        rpos = list(pos[:15])
        plies = 0
        while pos[MASK] and plies < 500:  # oware may cycle: repetition is the Game's job
            plies += 1
            legal = [k for k in range(6) if pos[MASK] >> k & 1]
            assert legal == ref.legal(rpos)
            k = rng.choice(legal)
            rules.move(pos, k)
            rpos = ref.play(rpos, k)
            assert list(pos[:15]) == rpos
        assert (pos[MASK] == 0) == (ref.legal(rpos) == [])
