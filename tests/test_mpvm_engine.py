"""The engine in both real MicroPython builds (WebAssembly and unix ports): a short search in each variant gives the
same move, score, depth and nodes as CPython (the same bytecode-level algorithm,
small ints only), a sliced search and stop work, and a search allocates next to
nothing."""

from mp_builds import BUILDS

from mancala.engine import Engine
from mancala.rules import VARIANTS, get_rules

NODES = 600

CODE = """
import gc
from mancala.rules import get_rules
from mancala.engine import Engine
for v in %r:
    r = get_rules(v)
    e = Engine(r, tt_bits=10, seed=1)
    pos = r.start()
    gc.collect()
    a0 = gc.mem_alloc()
    m = e.search(pos, nodes=%d)
    grow = gc.mem_alloc() - a0
    print("S", v, m, e.score, e.depth, e.nodes, grow)
    e.start(pos, level="master")
    e.step(40)
    e.stop()
    print("T", v, pos[15] >> e.best_move & 1, e.step())
    print("L", v, e.search(pos, level="beginner"))
"""


@BUILDS
def test_engine_in_micropython_matches_cpython(build):
    out = build.run(CODE % (VARIANTS, NODES))
    lines = [ln.split() for ln in out.splitlines()]
    search = {w[1]: w[2:] for w in lines if w[0] == "S"}
    stops = {w[1]: w[2:] for w in lines if w[0] == "T"}
    levels = {w[1]: w[2] for w in lines if w[0] == "L"}
    for v in VARIANTS:
        r = get_rules(v)
        e = Engine(r, tt_bits=10, seed=1)
        pos = r.start()
        m = e.search(pos, nodes=NODES)
        e.start(pos, level="master")
        e.step(40)
        e.stop()
        lv = e.search(pos, level="beginner")
        got = search[v]
        assert [int(x) for x in got[:4]] == [m, e_score(r, pos), e_depth(r, pos), NODES]
        assert int(got[4]) < 2048  # bytes allocated by a whole search
        assert stops[v] == ["1", "True"]
        assert int(levels[v]) == lv


def _fresh(rules, pos):
    e = Engine(rules, tt_bits=10, seed=1)
    e.search(pos, nodes=NODES)
    return e


def e_score(rules, pos):
    return _fresh(rules, pos).score


def e_depth(rules, pos):
    return _fresh(rules, pos).depth
