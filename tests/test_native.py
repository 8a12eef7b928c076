"""The machine-code kernels (mancala/native.py, issue 22) against the bytecode engine,
in the MicroPython unix port (its x64 emitter runs viper, as the chips' do).

Positions come from seeded real play (engine moves of every level, with a random move
now and then), 1,000+ per variant, each searched by both engines at the same node
budget, level and slice sizes drawn per position: the best move, score (stones and
quarter stones), node count and depth must be the same.  Every legal move of each
position is also made by both sowings (bytes and flags).  The counts of what the
positions hold (extra turns, captures, moves that end the game, table probes made by
the searches) are asserted, so a sample that misses them fails."""

import functools
import os

import pytest

from host_tools.generators.tablebase import table_bytes
from host_tools.runners import mpunix, mpvm

pytestmark = pytest.mark.skipif(not mpunix.available(), reason="run `make setup`")

POSITIONS = 1000
TABLE_SEEDS = 6

SCRIPT = r"""
from mancala.rules import get_rules, EXTRA, OVER, CAPTURED
from mancala import engine as E
from mancala.tablebase import open_table
from mancala import native

VARIANT = %(variant)r
N = %(n)d
r = get_rules(VARIANT)
table = open_table(%(table)r, r.name, log=print)
probes = [0]


class Counting:  # the table, counting the probes the searches make
    def __init__(self, t):
        self.t = t
        self.seeds = t.seeds
        self.last = 0

    def probe(self, pos):
        probes[0] += 1
        b = self.t.probe(pos)
        self.last = self.t.last
        return b


ct = Counting(table)
eb = E.Engine(r, seed=5, native=False)
en = E.Engine(r, seed=5)
assert en.kernel and not eb.kernel, (en.native, en.kernel)
for e in (eb, en):
    e.set_table(ct)
player = E.Engine(r, seed=9, native=False)
rng = E.Rng(%(seed)d)
a = bytearray(16)
b = bytearray(16)
stats = {"positions": 0, "extra": 0, "capture": 0, "ends": 0, "moves": 0}
bad = []
games = 0
while stats["positions"] < N:
    games += 1
    pos = r.start(games & 1)
    ply = 0
    while pos[15] and ply < 150 and stats["positions"] < N:
        ply += 1
        stats["positions"] += 1
        m = pos[15]
        for pit in range(6):
            if m >> pit & 1:
                a[:] = pos
                b[:] = pos
                fa = r.move(a, pit)
                fb = en._move(b, pit)
                stats["moves"] += 1
                if fa & EXTRA:
                    stats["extra"] += 1
                if fa >> 3:
                    stats["capture"] += 1
                if fa & OVER:
                    stats["ends"] += 1
                if (fa, a) != (fb, b):
                    bad.append(("move", list(pos), pit, fa, fb))
        level = rng.below(5)  # 0-3: the levels, 4: the coach grading a move
        budget = 30 + rng.below(%(budget)d)
        legal = [k for k in range(6) if m >> k & 1]
        graded = legal[rng.below(len(legal))]
        out = []
        for e in (eb, en):
            if level == 4:
                e.start_grade(pos, graded, nodes=budget)
            else:
                e.start(pos, level=level, nodes=budget)
            while not e.step(1 + rng.below(96)):
                pass
            out.append((e.best_move, e.score, e.qscore, e.nodes, e.depth,
                        e.grade_result() if level == 4 else None))
        if out[0] != out[1]:
            bad.append(("search", list(pos), level, budget, out[0], out[1]))
        # the game goes on by a player's move (the three lower levels: quick), a
        # random one now and then
        if rng.below(6) == 0:
            pit = graded
        else:
            pit = player.search(pos, level=rng.below(3))
        r.move(pos, pit)
stats["probes"] = probes[0]
stats["games"] = games
print(repr((stats, bad[:5], len(bad))))
"""


@functools.lru_cache(maxsize=None)
def _table_file(variant, tmp):
    path = os.path.join(tmp, "%s.tb" % variant)
    with open(path, "wb") as f:
        f.write(table_bytes(variant, TABLE_SEEDS)[0])
    return path


def run_kernel_check(variant, tmp_path, n=POSITIONS, seed=1, budget=220):
    tb = _table_file(get_name(variant), str(tmp_path))
    code = SCRIPT % {"variant": variant, "n": n, "table": "t/table.tb", "seed": seed,
                     "budget": budget}
    out = mpunix.run(code, mounts=[(tb, "/t/table.tb")], timeout=300)
    return eval(out.strip().splitlines()[-1])


def get_name(variant):
    return "kalah" if variant.startswith("kalah") else variant


@pytest.mark.parametrize("variant", ["kalah", "mangala", "ranok", "oware"])
def test_the_native_search_is_the_bytecode_search(variant, tmp_path):
    stats, bad, nbad = run_kernel_check(variant, tmp_path)
    assert nbad == 0, "%d positions differ, first: %r" % (nbad, bad)
    assert stats["positions"] >= POSITIONS
    # what the sample must hold to mean something
    assert stats["extra"] >= 50 or variant in ("ranok", "oware"), stats  # no store sowing
    assert stats["capture"] >= 50, stats
    assert stats["ends"] >= 10, stats
    assert stats["probes"] >= 50, stats
    print(variant, stats)


def test_kalah6_the_longest_paths(tmp_path):
    stats, bad, nbad = run_kernel_check("kalah6", tmp_path, n=300, seed=2)
    assert nbad == 0, "%d positions differ, first: %r" % (nbad, bad)
    assert stats["extra"] >= 50 and stats["capture"] >= 50, stats


def test_the_kernels_are_only_taken_where_they_run():
    # CPython: no micropython module, the bytecode engine
    from mancala import engine
    from mancala.rules import get_rules

    assert not engine.native_available()
    e = engine.Engine(get_rules("kalah"))
    assert not e.native and not e.kernel
    # the WebAssembly VM rejects native code: the import fails, the engine goes on
    if mpvm.available():
        out = mpvm.run("from mancala import engine\nfrom mancala.rules import get_rules\n"
                       "e = engine.Engine(get_rules('oware'))\n"
                       "print(engine.native_available(), e.kernel, e.search(get_rules('oware')"
                       ".start(), nodes=300))\n")
        assert out.split() == ["False", "False", out.split()[2]], out
    # the unix port: the kernels run; native=False keeps the bytecode engine
    # (and the bytecode loop, mancala.search_loop, is imported only by the latter: a
    # board running the kernels does not hold its code)
    out = mpunix.run("import sys\nfrom mancala import engine\nfrom mancala.rules import get_rules\n"
                     "r = get_rules('ranok')\n"
                     "k = engine.Engine(r).kernel\n"
                     "held = 'mancala.search_loop' in sys.modules\n"
                     "print(engine.native_available(), k, held,"
                     " engine.Engine(r, native=False).kernel, 'mancala.search_loop' in sys.modules)\n")
    assert out.split() == ["True", "True", "False", "False", "True"], out


@pytest.mark.parametrize("arch", [None, "armv6m", "armv7emsp", "xtensawin"])
def test_deploy_builds_the_kernels_for_the_boards_cpu(arch):
    from host_tools.link import deploy_plan
    from host_tools.runners.mpycompile import ARCHS

    mpy = deploy_plan.MPY_MAJOR | 3 << 8 | (ARCHS.index(arch) << 10 if arch else 0)
    _version, _root, slot, fmt = deploy_plan.build(deploy_plan.DEFAULT_SRC, mpy)
    assert fmt == ".mpy v%d.3" % deploy_plan.MPY_MAJOR
    if arch is None:  # no native emitter: the module stays off the board (the engine's
        assert "mancala/native.mpy" not in slot  # import fails, it runs bytecode)
        assert "mancala/engine.mpy" in slot
        return
    code = slot["mancala/native.mpy"]
    assert code[0:1] == b"M" and code[2] >> 2 == ARCHS.index(arch)  # the CPU in the header
    assert slot["mancala/engine.mpy"][2] >> 2 == 0  # the bytecode modules: any CPU
