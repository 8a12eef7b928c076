"""The searching exact solver (host_tools/references/exact_search.py) against exact.py's
full minimax and the rules core: every legal move's value identical, with and without an
endgame table at the leaves."""

import os
import random

import pytest

from host_tools.references.exact import KalahSolver, read_set, seeds_on_board
from host_tools.references.exact_search import KalahSearchSolver, TableLeaves
from mancala.game import Game
from mancala.rules import EXTRA, MASK, OVER, SIDE, get_rules

DATA = os.path.join(os.path.dirname(__file__), "data")


def random_positions(rng, count, lo, hi):
    """Positions of random kalah games with lo..hi seeds on the board and a choice."""
    rules = get_rules("kalah")
    out = []
    while len(out) < count:
        g = Game(rules)
        while not g.over and seeds_on_board(g.pos) > hi:
            g.play(rng.choice([k for k in range(6) if g.pos[MASK] >> k & 1]))
        if not g.over and seeds_on_board(g.pos) >= lo and bin(g.pos[MASK]).count("1") > 1:
            out.append(bytearray(g.pos))
    return out


@pytest.fixture(scope="module")
def table5(tmp_path_factory):
    from host_tools.generators.tablebase import write_table

    path = str(tmp_path_factory.mktemp("tb") / "kalah-5.tb")
    write_table(path, "kalah", 5)
    return path


def test_children_are_the_rules_moves():
    """Each move of the solver's inner loop (sowing laps, the store, captures, the end)
    gives the gain, the turn and the pits rules.Kalah.move gives, big pits included."""
    rules = get_rules("kalah")
    rng = random.Random(3)
    solver = KalahSearchSolver()
    checked = 0
    for _ in range(400):
        counts = [0] * 14
        for _ in range(rng.randrange(2, 40)):  # some pits of 13 stones and more
            counts[rng.choice((0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12))] += 1
        counts[6], counts[13] = rng.randrange(10), rng.randrange(10)
        pos = rules.new_position(counts, rng.randrange(2))
        if not pos[MASK]:
            continue
        side = pos[SIDE]
        own, opp = (6, 13) if side == 0 else (13, 6)
        for gain, kind, child, pit in solver._children(solver.pits(pos)):
            c = bytearray(pos)
            fl = rules.move(c, pit)
            assert gain == (c[own] - pos[own]) - (c[opp] - pos[opp])
            if fl & OVER:
                assert kind == 0
            else:
                assert kind == (1 if fl & EXTRA else 2)
                assert child == solver.pits(c)
            checked += 1
    assert checked > 800


def test_values_identical_to_the_full_minimax():
    """Every legal move's value of 30 positions with 8-11 seeds, as exact.py finds it."""
    full = KalahSolver()
    solver = KalahSearchSolver()
    for pos in random_positions(random.Random(11), 30, 8, 11):
        vals = solver.move_values(pos)
        assert vals == {p: full.move_value(pos, p) for p in range(6) if pos[MASK] >> p & 1}
        assert solver.value(pos) == full.value(pos)


def test_table_leaves_give_the_same_values(table5):
    """With a 5-seed table at the leaves: the same values, fewer nodes; the in-memory
    lookup reads what mancala.tablebase.Table reads."""
    from host_tools.generators.tablebase import load_table

    rules = get_rules("kalah")
    leaves = TableLeaves(table5)
    table = load_table(table5)
    rng = random.Random(4)
    for _ in range(300):
        counts = [0] * 14
        for _ in range(rng.randrange(6)):
            counts[rng.choice((0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12))] += 1
        pos = rules.new_position(counts, rng.randrange(2))
        pos[MASK] = 1  # (probed as a position in play)
        b = KalahSearchSolver.pits(pos)
        assert leaves.value(b, sum(b)) == table.value(pos)
    plain, tabled = KalahSearchSolver(), KalahSearchSolver(leaves)
    for pos in random_positions(random.Random(12), 30, 8, 12):
        # (the plain search is exact.py's values: the test above)
        assert tabled.move_values(pos) == plain.move_values(pos)
    assert tabled.nodes < plain.nodes


def test_recorded_losses(table5):
    """The recorded sets' losses (exact.py's, up to 15 seeds): a sample of 40 positions."""
    cases = read_set(os.path.join(DATA, "kalah_exact_15_master.txt"))[::9]
    solver = KalahSearchSolver(table5)
    assert len(cases) >= 35
    for pos, losses in cases:
        assert solver.losses(pos) == losses


@pytest.mark.long
def test_recorded_sets_whole():
    """make test-long: every position of both recorded sets (643, exact.py's losses),
    searched to the end without a table."""
    solver = KalahSearchSolver()
    n = 0
    for name in ("kalah_exact_15.txt", "kalah_exact_15_master.txt"):
        for pos, losses in read_set(os.path.join(DATA, name)):
            assert solver.losses(pos) == losses
            n += 1
    assert n >= 640
