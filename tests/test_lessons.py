"""Issue 15, the course: every variant's lessons come in a beginner's order, each
task is solvable, its right moves are what the rule says and some offered move is
wrong; the first tactic is the single best move at the puzzles' deep budget."""

import pytest

from host_tools.generators.puzzles import Analyst
from mancala import lessons as L
from mancala.rules import CAPTURED, EXTRA, MASK, get_rules

VARIANTS = ("kalah", "oware", "mangala", "ranok")
# the rules each variant's course must teach (RULES.md), in this order
SYLLABUS = {
    "kalah": (L.SOW, L.EXTRA_TURN, L.EMPTY, L.END, L.BEST),
    "mangala": (L.SOW, L.EXTRA_TURN, L.TAKE, L.EMPTY, L.END, L.BEST),
    "oware": (L.SOW, L.TAKE, L.CHAIN, L.FEED, L.END, L.BEST),
    "ranok": (L.SOW, L.TAKE, L.CHAIN, L.FEED, L.END, L.BEST),
}


def lessons(variant):
    return [L.get(variant, n) for n in range(1, L.count(variant) + 1)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_course_teaches_each_rule_in_order(variant):
    kinds = [x.kind for x in lessons(variant)]
    firsts = [kinds.index(k) for k in SYLLABUS[variant]]
    assert firsts == sorted(firsts) and set(kinds) == set(SYLLABUS[variant]), kinds
    assert kinds[-1] == L.BEST
    assert L.get(variant, 0) is None and L.get(variant, len(kinds) + 1) is None


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_task_is_solvable_and_checked_right_and_wrong(variant):
    rules = get_rules(variant)
    for x in lessons(variant):
        pos = x.position(rules)
        assert pos[MASK] and sum(x.counts) <= rules.total, x.title
        offered = L.offered(x, pos)
        right = L.right_pits(rules, x)
        assert right and right & ~offered == 0, x.title
        if x.kind in (L.SOW, L.BEST):
            assert right == 1 << x.target
        else:  # a real choice: some offered pit does not do it
            assert offered & ~right, x.title
        for k in range(6):
            if offered >> k & 1:
                assert L.check(rules, x, pos, k) == bool(right >> k & 1)
        assert pos == x.position(rules)  # the check played on a copy


def _flags(rules, pos, pit):
    c = bytearray(pos)
    return rules.move(c, pit), c


def test_the_checks_are_the_rules():
    # what each kind accepts, seen from the move's own flags
    for variant in VARIANTS:
        rules = get_rules(variant)
        for x in lessons(variant):
            pos = x.position(rules)
            for k in range(6):
                if not L.right_pits(rules, x) >> k & 1:
                    continue
                fl, after = _flags(rules, pos, k)
                taken = fl // CAPTURED
                if x.kind == L.EXTRA_TURN:
                    assert fl & EXTRA
                elif x.kind in (L.TAKE, L.CHAIN):
                    assert taken >> 7 and not taken & 0x3F
                elif x.kind == L.EMPTY:
                    assert taken & 0x3F and taken >> 7
                elif x.kind == L.FEED:
                    assert after[7:13] != bytes(6)  # the opponent has stones after it
                elif x.kind == L.END:
                    assert not after[MASK] and after[6] > after[13]
    # a FEED lesson offers a pit the rule forbids
    for variant in ("oware", "ranok"):
        x = [y for y in lessons(variant) if y.kind == L.FEED][0]
        pos = x.position(get_rules(variant))
        assert L.offered(x, pos) & ~pos[MASK]


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_first_tactic_is_the_single_best_move(variant):
    rules = get_rules(variant)
    x = lessons(variant)[-1]
    a = Analyst(rules)
    values = a.move_values(x.position(rules), 40000)
    best, lead = a.margin(values)
    assert best == x.target and lead >= 4, values  # by a stone at least
