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


LEDS_SCRIPT = r"""
from mancala.hw.pixels import Pixels, LAPS, SOUTH, NORTH, RED, WHITE, BG_DIV
from mancala.search import native_module
from mancala.engine import Rng

k = native_module()
assert k is not None


class Chain:  # a NeoPixel's buffer and write(), GRB
    ORDER = (1, 0, 2, 3)

    def __init__(self, n):
        self.buf = bytearray(3 * n)
        self.writes = 0

    def write(self):
        self.writes += 1


SPANS = ((0, 12), (12, 12), (24, 12), (36, 12), (48, 12), (60, 12), (72, 18),
         (90, 1), (91, 1), (92, 12), (104, 12), (116, 12), (128, 12), (140, 18))
N = 158
pxs = []
for limit in (6000, 900):  # (900 mA: most whole frames rescaled by show())
    byte = Pixels(Chain(N), SPANS, N, current_limit_ma=limit)
    fast = Pixels(Chain(N), SPANS, N, current_limit_ma=limit)
    fast.use_kernels(k.leds_fill2, k.leds_remap)
    pxs.append((byte, fast))
rng = Rng(%(seed)d)
BGS = (None, SOUTH, NORTH, RED, WHITE)
COLOURS = LAPS + (SOUTH, NORTH, RED, WHITE, (0, 0, 0))
bad = []
rescaled = 0
for f in range(%(frames)d):
    level = rng.next() %% 4
    whole = rng.next() %% 3 != 0
    ops = []
    for _ in range(1 + rng.next() %% 14):
        kind = rng.next() %% 4
        i = rng.next() %% 14
        if kind == 0:
            ops.append(("count", i, rng.next() %% 110 - 2, BGS[rng.next() %% len(BGS)]))
        elif kind == 1:
            ops.append(("fill", i, COLOURS[rng.next() %% len(COLOURS)], 1 + rng.next() %% BG_DIV))
        elif kind == 2:
            ops.append(("dot", i, rng.next() %% 30, COLOURS[rng.next() %% len(COLOURS)]))
        else:
            a = rng.next() %% N
            ops.append(("run", a, rng.next() %% (N - a + 1), COLOURS[rng.next() %% len(COLOURS)]))
    for byte, fast in pxs:
        for px in (byte, fast):
            px.set_level(level)
            px.begin(whole)
            for op in ops:
                if op[0] == "count":
                    px.count(op[1], op[2], op[3])
                elif op[0] == "fill":
                    px.fill(op[1], op[2], op[3])
                elif op[0] == "dot":
                    px.dot(op[1], op[2], op[3])
                else:
                    c = op[3]
                    px.run(op[1], op[2], c[0], c[1], c[2])
            px.show()
        if byte.last_scale != byte.scale:
            rescaled += 1
        if byte.buf != fast.buf or byte.total != fast.total or \
                byte.last_scale != fast.last_scale:
            bad.append((f, ops, byte.total, fast.total))
print("frames", %(frames)d, "bad", len(bad), "rescaled", rescaled, "first", bad[:1])
"""


def test_the_led_kernels_draw_the_bytecode_frames():
    """mancala.native's LED loops (Pixels.use_kernels) against the Pixels' own, over
    random frames of counts (every lap, beyond the legend, one-LED pits, backgrounds),
    fills, dots and runs at every brightness level, whole and drawn over, with a
    current limit that makes show() rescale: the same bytes, totals and scale."""
    out = mpunix.run(LEDS_SCRIPT % {"seed": 11, "frames": 150})
    words = out.split()
    assert words[:4] == ["frames", "150", "bad", "0"], out
    assert int(words[5]) >= 20, out  # (the rescale's kernel ran)


WATCH_SCRIPT = r"""
import uctypes
from mancala import engine as E
from mancala import search as S
from mancala.rules import get_rules

r = get_rules(%(variant)r)
reg = bytearray(4)  # stands for the pits' input register (rp2: SIO GPIO_IN)


class Watch:  # what GpioSensors offers step_for
    watch_addr = uctypes.addressof(reg)
    watch_mask = 0xFFFC  # (GPIO 2..15)
    watch_level = 0x0124


def put(word):
    for k in range(4):
        reg[k] = word >> 8 * k & 0xFF


pos = r.start()
moves = 0
for pit in (2, 3, 1, 5, 0, 4, 2):
    if pos[15] >> pit & 1:
        r.move(pos, pit)
        moves += 1
ref = E.Engine(r, seed=3)
ref.start(pos, level=3, nodes=%(nodes)d)
while not ref.step(64):
    pass
e = E.Engine(r, seed=3)
e.start(pos, level=3, nodes=%(nodes)d)
put(0x0124 | 0x3)  # (bits outside the mask: not the pits')
n = e.nodes
e._waddr, e._wmask, e._wlevel = Watch.watch_addr, Watch.watch_mask, Watch.watch_level
e.step(500)
same_level = e.nodes - n
put(0x0120)  # a pit's level changed: every call stops at its next node
calls = 0
most = 0
while True:
    n = e.nodes
    done = e.step(500)
    calls += 1
    if e.nodes - n > most:
        most = e.nodes - n
    if done:
        break
e._waddr = 0
print("same", same_level, "calls", calls, "most", most,
      "result", (e.best_move, e.score, e.qscore, e.nodes, e.depth) == (ref.best_move, ref.score, ref.qscore, ref.nodes, ref.depth),
      e.nodes, ref.nodes)
# step_for: a slice's chunks sized by its rate, a press, the think's deadline (a clock
# of the engine's own nodes: 18 a ms)
e2 = E.Engine(r, seed=3)
e2.start(pos, level=3, nodes=10 ** 6, clock=lambda: e2.nodes // 18)
calls = [0]
real = e2.step
def counting(n):
    calls[0] += 1
    return real(n)
e2.step = counting
def woken():  # (Pits.woken: the register against the levels last read)
    return (reg[0] | reg[1] << 8) & 0xFFFC != 0x0124
put(0x0124)
t = e2.clock()
e2.step_for(250, 8, woken, Watch)
print("watched", calls[0], e2.clock() - t)
calls[0] = 0
t = e2.clock()
e2.step_for(250, 8, woken)
print("unwatched", calls[0], e2.clock() - t)
put(0x0120)
calls[0] = 0
n = e2.nodes
e2.step_for(250, 8, woken, Watch)
print("pressed", calls[0], e2.nodes - n, "left", e2._waddr)
put(0x0124)
e3 = E.Engine(r, seed=3)
e3.start(pos, level=3, nodes=10 ** 6, deadline_ms=100, clock=lambda: e3.nodes // 18)
k = 0
while not e3.step_for(250, 8, woken, Watch):
    k += 1
print("deadline", e3.clock(), k)
"""


@pytest.mark.parametrize("variant", ["kalah", "oware"])
def test_the_kernel_watches_the_pits_register(variant):
    """A think's long slice on rp2 (Search.step_for's watch): the machine-code search
    reads the pits' register at every node.  While it shows the levels last read the
    chunk runs whole; once a level differs every call stops at the next node it
    expands (after one at least: a frontier's leaves, counted within a node, make
    some calls longer), and the search stopped that way is the same search (move,
    score, nodes, depth) as one in whole chunks.  step_for, watched, sizes its chunks
    by the slice's rate (a 250 ms slice in a few calls, not ~70), ends on time and by
    the think's deadline, stops at a press, and leaves no watch behind."""
    out = mpunix.run(WATCH_SCRIPT % {"variant": variant, "nodes": 3000})
    w = out.split()
    assert w[0] == "same" and int(w[1]) >= 500, out
    assert int(w[3]) >= 3000 // 64 and int(w[5]) <= 64, out  # (not the 500 asked)
    assert w[7] == "True" and w[8] == w[9] and int(w[8]) >= 2900, out
    assert w[10] == "watched" and w[13] == "unwatched" and w[16] == "pressed", out
    watched_calls, watched_ms, calls, ms = int(w[11]), int(w[12]), int(w[14]), int(w[15])
    assert 250 <= watched_ms <= 255 and 250 <= ms <= 255, out  # on time
    assert watched_calls <= 12 and calls >= 60, out
    assert int(w[17]) == 1 and 0 < int(w[18]) <= 64 and w[20] == "0", out
    assert w[21] == "deadline" and 100 <= int(w[22]) <= 105, out


def test_a_board_holds_the_code_of_the_variant_in_play_alone():
    """On MicroPython mangala's, ranok's and oware's moves are mancala/variants.py's: a
    board playing kalah drops them (rules.keep_only, at each engine built), the kernels
    make the flat paths of the variant in play alone, and the others come back when
    asked."""
    code = """
import sys
from mancala import native
from mancala.rules import get_rules, keep_only
k = get_rules("kalah")
o = get_rules("oware")
print(native.mover(k) is native.move_kalah, native.mover(o) is native.move_oware)
print("mancala.variants" in sys.modules)
keep_only(k)
print("mancala.variants" in sys.modules, native._OP is None and native._KP is not None)
r = get_rules("ranok")
keep_only(r)
print("mancala.variants" in sys.modules, r.name, native._KP is None)
"""
    out = mpunix.run(code, mpy=True).strip().split("\n")
    assert out == ["True True", "True", "False True", "True ranok True"], out
