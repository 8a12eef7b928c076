"""Issue 15: the board's puzzle and course modules in both real MicroPython builds:
a puzzle read from the data file next to the package one line at a time, its
answer checked, the score saved and read back, and every lesson checked."""

import json

from mp_builds import BUILDS

from host_tools.generators import puzzles as H
from mancala import lessons as L
from mancala import puzzles as P
from mancala.rules import get_rules

SCRIPT = r'''
import gc, json, sys
from memfs import MemFs
from mancala.hw.storage import Storage
from mancala import puzzles as P, lessons as L
from mancala.rules import get_rules
assert sys.implementation.name == "micropython"
out = {}
for v in ("kalah", "oware", "mangala", "ranok"):
    n = P.count(v)
    gc.collect()
    a0 = gc.mem_alloc()
    p = P.read(v, n)  # the last line: every line before it read and dropped
    out[v] = [n, list(p.counts), list(p.line), p.margin, p.difficulty,
              sorted([k, list(r)] for k, r in p.refs.items()),
              p.is_right(p.answer), p.is_right((p.answer + 1) % 6)]
    rules = get_rules(v)
    checks = []
    for k in range(1, L.count(v) + 1):
        x = L.get(v, k)
        checks.append(L.right_pits(rules, x))
    out[v].append(checks)
store = Storage(MemFs())
prog = P.load_progress(store)
P.record(prog, "kalah", 3, 40, True)
prog["number"] = 3
P.save_progress(store, prog)
out["score"] = P.score(P.load_progress(store), "kalah", 40)
print("RESULT " + json.dumps(out))
'''


@BUILDS
def test_puzzles_and_lessons_in_micropython(build):
    import os

    from host_tools.fakes import __file__ as fakes_init

    fakes = os.path.dirname(fakes_init)
    out = build.run(SCRIPT, mounts=[(fakes, "/lib")], heap=512 * 1024)
    r = json.loads([x for x in out.splitlines() if x.startswith("RESULT ")][-1][7:])
    for v in H.VARIANTS:
        n = P.count(v)
        last = P.read(v, n)
        assert r[v][:8] == [n, list(last.counts), list(last.line), last.margin, last.difficulty,
                            sorted([k, list(x)] for k, x in last.refs.items()), True, False]
        rules = get_rules(v)
        assert r[v][8] == [L.right_pits(rules, L.get(v, k)) for k in range(1, L.count(v) + 1)]
    assert r["score"] == [1, 1]


def test_a_puzzle_and_a_lesson_on_the_simulated_board_in_the_webassembly_vm():
    # the unix port runs the same driver, compiled, in tests/test_unix_puzzle_heap.py
    from test_unix_puzzle_heap import DRIVER

    from host_tools.benches import session
    from host_tools.runners import mpvm

    if not mpvm.available():
        import pytest

        pytest.skip("the MicroPython VM is not installed: run `make setup`")
    out = mpvm.run("PUZZLE = True\n" + DRIVER, mounts=[(session.FAKES, "/lib")], timeout=600)
    r = json.loads([x for x in out.splitlines() if x.startswith("RESULT ")][-1][7:])
    assert r["modules_left"] == [] and r["in_activity"] > r["menu"]
