"""The coach's grading from REFINED_NODES on (mancala/grading.py): kalah losses in even
stones, the grade's own row weight given back to play afterwards; and the accuracy bench's
measure on a few recorded positions (docs/ENGINE.md, "The coach on every legal move")."""

import io
import os

from host_tools.benches.coach_accuracy import measure, report, wilson
from host_tools.references.exact import read_set
from mancala.engine import Engine
from mancala.grading import GRADE_ROW_WEIGHT, REFINED_NODES
from mancala.rules import get_rules

DATA = os.path.join(os.path.dirname(__file__), "data")


def test_refined_grades_are_even_and_play_weights_come_back():
    rules = get_rules("kalah")
    eng = Engine(rules)
    play_w = eng.w
    assert GRADE_ROW_WEIGHT["kalah"] != play_w
    odd = seen = 0
    for pos, losses in read_set(os.path.join(DATA, "kalah_exact_24_master.txt"))[:6]:
        for pit in losses:
            g, stones, _ = eng.grade(pos, pit, REFINED_NODES)
            assert eng.w == play_w  # play's weight again after the grade
            seen += 1
            odd += stones % 2
    assert seen >= 15 and odd == 0
    # below REFINED_NODES the plain grading: odd losses exist
    odd_small = 0
    for pos, losses in read_set(os.path.join(DATA, "kalah_exact_15.txt"))[:40]:
        for pit in losses:
            odd_small += eng.grade(pos, pit, 2000)[1] % 2
    assert odd_small > 0
    # a grade abandoned half-way: the next search plays with play's weight
    pos, losses = read_set(os.path.join(DATA, "kalah_exact_24_master.txt"))[0]
    eng.start_grade(pos, min(losses), REFINED_NODES)
    eng.step(500)
    assert eng.w == GRADE_ROW_WEIGHT["kalah"]
    eng.stop()
    eng.start(pos, nodes=500)
    assert eng.w == play_w


def test_measure_counts_classes():
    cases = read_set(os.path.join(DATA, "kalah_exact_24_tune.txt"))[:3]
    res = measure(cases, nodes=3000, tables=False, log=io.StringIO())
    n = sum(len(c[1]) for c in cases)
    assert res["moves"] == n == sum(res["confusion"].values())
    assert res["right"] == sum(v for (a, b), v in res["confusion"].items() if a == b)
    assert report(res)[0].startswith("%d moves" % n)
    lo, hi = wilson(91, 100)
    assert 0.83 < lo < 0.91 < hi < 0.96


def test_measure_on_another_boards_tables_says_its_budget_and_depths():
    """`measure --tt-bits B [--table FILE]`: another board's search table (here 2**8, no
    endgame table); the report gives the budget, the nodes a grade and the depths."""
    cases = read_set(os.path.join(DATA, "kalah_exact_24_tune.txt"))[:2]
    res = measure(cases, nodes=2000, tables=False, log=io.StringIO(), tt_bits=8)
    n = sum(len(c[1]) for c in cases)
    assert res["moves"] == n and res["budget"] == 2000 and res["positions"] == 2
    assert 0 < res["nodes"] <= 2000 * n + n and sum(res["depths"].values()) == n
    lines = report(res)
    assert lines[-2].startswith("budget 2000 nodes a grade: ")
    assert lines[-1].startswith("last finished depth of the grades: ")
