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
for t in %r:
    r = get_rules("kalah")
    e = Engine(r, tt_bits=10, seed=1)
    pos = bytearray(16)
    pos[:15] = bytes(t)
    pos[15] = r.legal_mask(pos)
    m = e.search(pos, level="master")
    print("M", m, e.qscore, e.depth, e.nodes)
"""

# Kalah middle games with empty pits on both sides: Master's leaves (quiescence, the
# empty-pit sum of truth values) must value them as CPython does.
MIDGAMES = ([4, 0, 1, 0, 9, 2, 10, 0, 6, 0, 1, 0, 3, 12, 0],
            [0, 3, 0, 2, 0, 8, 14, 1, 0, 4, 0, 0, 6, 10, 1])


@BUILDS
def test_engine_in_micropython_matches_cpython(build):
    out = build.run(CODE % (VARIANTS, NODES, MIDGAMES))
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
    masters = [[int(x) for x in w[1:]] for w in lines if w[0] == "M"]
    assert len(masters) == len(MIDGAMES)
    for t, got in zip(MIDGAMES, masters, strict=True):
        r = get_rules("kalah")
        e = Engine(r, tt_bits=10, seed=1)
        pos = bytearray(16)
        pos[:15] = bytes(t)
        pos[15] = r.legal_mask(pos)
        assert got == [e.search(pos, level="master"), e.qscore, e.depth, e.nodes]


def _fresh(rules, pos):
    e = Engine(rules, tt_bits=10, seed=1)
    e.search(pos, nodes=NODES)
    return e


def e_score(rules, pos):
    return _fresh(rules, pos).score


def e_depth(rules, pos):
    return _fresh(rules, pos).depth
