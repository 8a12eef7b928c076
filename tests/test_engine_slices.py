"""Time slices (Engine.step_for): a search run a loop turn's time at a time gives the
same result as the same nodes in one go.  The clock here is simulated: every node
advances it at a Pico's rate, as on the simulated board."""

import random

import pytest
from test_engine import random_midgame

from mancala.engine import PICO_NODES_PER_S, Engine
from mancala.rules import get_rules


class NodeClock:
    """A clock in ms that the engine's own nodes move (us_per_node each)."""

    def __init__(self, eng, us_per_node):
        self.eng = eng
        self.us = us_per_node
        self.base = 0  # nodes of earlier searches

    def __call__(self):
        return (self.base + self.eng.nodes) * self.us // 1000


def positions(variant, n, seed=1):
    rules = get_rules(variant)
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = random_midgame(rules, rng, 2, 40)
        if pos is not None:
            out.append(pos)
    return rules, out


@pytest.mark.parametrize("variant", ["kalah", "oware", "mangala", "ranok"])
def test_time_slices_give_the_nodes_in_one_go(variant):
    """A node-limited search stepped by time (turns of 3..20 ms of a Pico, the
    chunk between clock reads 1..16 nodes) = the same search in one go."""
    rules, poss = positions(variant, 12)
    rng = random.Random(7)
    us = 1000000 // PICO_NODES_PER_S[variant]
    for pos in poss:
        nodes = rng.choice((300, 900, 2000))
        one = Engine(rules)
        one.search(pos, nodes=nodes)
        eng = Engine(rules)
        clock = NodeClock(eng, us)
        eng.start(pos, nodes=nodes, clock=clock)
        turns = 0
        while not eng.step_for(rng.randint(3, 20), rng.choice((1, 4, 8, 16))):
            turns += 1
        assert (eng.best_move, eng.score, eng.depth, eng.nodes) == \
            (one.best_move, one.score, one.depth, one.nodes), (list(pos), nodes)
        if nodes >= 900:
            assert turns >= 10  # it really ran in many slices


@pytest.mark.parametrize("variant", ["kalah", "oware"])
def test_deadline_search_in_slices_gives_its_nodes_in_one_go(variant):
    """Master by the clock: a search stopped by its deadline, stepped by time, plays
    what the same number of nodes in one go plays."""
    rules, poss = positions(variant, 10, seed=3)
    us = 1000000 // PICO_NODES_PER_S[variant]
    for pos in poss:
        eng = Engine(rules)
        clock = NodeClock(eng, us)
        eng.start(pos, nodes=10 ** 6, deadline_ms=400, clock=clock)
        while not eng.step_for(17, 8):
            pass
        assert 400 <= clock() < 420  # it stopped at its deadline (a chunk late at most)
        one = Engine(rules)
        one.search(pos, nodes=eng.nodes)
        assert (eng.best_move, eng.depth) == (one.best_move, one.depth), list(pos)


def test_step_for_returns_after_its_time():
    rules, poss = positions("kalah", 1)
    eng = Engine(rules)
    clock = NodeClock(eng, 500)  # 2 nodes a ms
    eng.start(poss[0], nodes=5000, clock=clock)
    assert eng.step_for(10, 4) is False
    assert 20 <= eng.nodes <= 28  # 10 ms = 20 nodes, one chunk (and a frontier) late


def test_step_for_ends_at_a_wake_within_a_chunk():
    """A board's long slice (App.LONG_SLICE_MS) ends as soon as wake() says a pit's
    level changed: at the first clock read after it (one chunk late at most), long
    before its time; the search goes on from there as if never stopped."""
    rules, poss = positions("kalah", 1)
    one = Engine(rules)
    one.search(poss[0], nodes=5000)
    eng = Engine(rules)
    clock = NodeClock(eng, 500)  # 2 nodes a ms
    eng.start(poss[0], nodes=5000, clock=clock)
    asked = []

    def wake():
        asked.append(eng.nodes)
        return eng.nodes >= 40  # the edge comes at about 20 ms of a 250 ms slice

    assert eng.step_for(250, 4, wake) is False
    chunk = 4 * eng.chunk_scale
    assert 40 <= eng.nodes <= 40 + chunk + 8, (eng.nodes, asked)  # (a frontier late)
    # asked after every chunk, with the clock
    assert all(0 < b - a <= chunk + 8 for a, b in zip([0] + asked[:-1], asked, strict=True)), asked
    # a slice that a wake ended changes nothing of the search: its result is the
    # same nodes' in one go
    while not eng.step_for(250, 4, lambda: eng.nodes % 3 == 0):
        pass
    assert (eng.best_move, eng.score, eng.depth, eng.nodes) == \
        (one.best_move, one.score, one.depth, one.nodes)
