"""`mancala best | bench`: the engine on one position, and its speed.

best    the best move of one position
bench   node rates (CPython and the MicroPython VM, against a plain alpha-beta over
        list copies), heap growth of a Master search, seconds per Master move on a Pico
"""

import os
import sys
import time

from host_tools.command.cli import (
    Parser,
    SetupError,
    UsageError,
    int_type,
    printable,
    stdin_lines,
)
from host_tools.command.match import MAX_NODES, board_engine, seed_type
from mancala.engine import LEVELS, Engine
from mancala.game import Game
from mancala.notation import parse_any
from mancala.rules import get_rules

# The share of a Master think on the board spent searching (180 LEDs, measured on
# the simulated board's clock, tests/test_board_think.py; 14 LEDs: 0.93).
THINK_SHARE = 0.88


def best_texts(words):
    """The positions/records of `mancala best`: each argument holding a space is one
    (`"kalah 3 1" "oware"`); otherwise all the words are one (`kalah 3 1`)."""
    if any(" " in w.strip() for w in words):
        return [w for w in words]
    return [" ".join(words)]


def best_main(argv):
    p = Parser(prog="mancala best", description=(
        "The best move of each position or game record given: one argument each when "
        "quoted (\"kalah 3 1\" \"oware 4,4,4,4,4,4,0,4,4,4,4,4,4,0 N\"), else the words "
        "are one; - reads one a line from stdin.  One line each: bestmove M score S "
        "depth D nodes N."))
    p.add_argument("position", nargs="+", help="POS | RECORD | VARIANT (its start) | -")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--level", choices=LEVELS)
    g.add_argument("--nodes", type=int_type("--nodes", 1, MAX_NODES))
    p.add_argument("--seed", type=seed_type, default=0)
    t = p.add_mutually_exclusive_group()
    t.add_argument("--tables", nargs="?", const="build/tables", metavar="DIR",
                   help="use the largest endgame table built in DIR (default: the one a "
                        "Pico carries, where built in build/tables)")
    t.add_argument("--no-tables", action="store_true",
                   help="no endgame table (the board probes the one deploy sent it)")
    p.add_argument("--no-book", action="store_true",
                   help="Master without its opening book (the board plays with it)")
    a = p.parse_args(argv)
    if a.position == ["-"]:
        texts = [t for t in stdin_lines()]
        if None in texts:
            raise UsageError("line %d of stdin is not UTF-8 text" % (texts.index(None) + 1))
    else:
        texts = best_texts(a.position)
    games = []
    for text in texts:  # all checked before the first search
        game = parse_any(text)
        if game.over:
            raise UsageError("%s: the game is over" % printable(text.strip()))
        games.append(game)
    level = a.level if a.level or a.nodes else "master"
    for game in games:
        eng = board_engine(game.rules, a.seed, book=not a.no_book,
                           tables=not (a.tables or a.no_tables))
        if a.tables:
            from host_tools.generators.tablebase import open_built

            eng.set_table(open_built(game.rules.id, a.tables))
        pit = eng.search(game.pos, level=level if a.nodes is None else None, nodes=a.nodes)
        score = eng.book_score if eng.book_hit else eng.score
        print("bestmove %d score %d depth %d nodes %d%s" % (
            pit + 1, score, eng.depth, eng.nodes, " book" if eng.book_hit else ""))
        sys.stdout.flush()
    return 0


# ---------------------------------------------------------------------------
# engine protocol



def sample_positions(variant, games=4, every=5):
    """Positions from a few deterministic games (random and greedy moves mixed):
    the spread a real game goes through."""
    from mancala.engine import Rng
    rules = get_rules(variant)
    out = []
    for g in range(games):
        game = Game(rules)
        rng = Rng(g + 11)
        while not game.over and game.ply < 150:
            if game.ply % every == 2:
                out.append(bytes(game.pos[:15]))
            m = game.legal_mask()
            legal = [k for k in range(6) if m >> k & 1]
            if game.ply < 3 or rng.below(3) == 0:
                game.play(legal[rng.below(len(legal))])
            else:
                game.play(legal[-1])
    return out


_VM_SETUP = """
import gc
from mancala.rules import get_rules
from mancala.engine import Engine
from plain_search import PlainSearch
from reference_rules import ReferenceRules
r = get_rules(%r)
e = Engine(r)
P = %r
n = 0
"""

_VM_ENGINE = """
for p in P:
    pos = bytearray(16)
    pos[:15] = p
    pos[15] = r.legal_mask(pos)
    if pos[15]:
        e.search(pos, nodes=%d)
        n += e.nodes
print("N", n)
"""

_VM_PLAIN = """
rr = ReferenceRules(r.name, r.seeds)
for p in P:
    if p[15 - 1] >= 0:
        ps = PlainSearch(rr)
        lp = [p[i] for i in range(15)]
        if rr.legal(lp):
            ps.search(lp, %d)
            n += ps.nodes
print("N", n)
"""

_VM_HEAP = """
gc.collect()
a0 = gc.mem_alloc()
e2 = Engine(r)
gc.collect()
build = gc.mem_alloc() - a0
peak = 0
for p in P[:8]:
    pos = bytearray(16)
    pos[:15] = p
    pos[15] = r.legal_mask(pos)
    if not pos[15]:
        continue
    gc.collect()
    gc.disable()
    a0 = gc.mem_alloc()
    e2.start(pos, level="master")
    while not e2.step(64):
        g = gc.mem_alloc() - a0
        if g > peak:
            peak = g
    g = gc.mem_alloc() - a0
    if g > peak:
        peak = g
    gc.enable()
print("H", build, peak)
"""


def _vm_cpu(code, mounts):
    import resource

    from host_tools.runners import mpvm
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = mpvm.run(code, mounts=mounts)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def _vm_rate(setup, work, mounts):
    _, base = _vm_cpu(setup + 'print("N", 0)\n', mounts)
    out, full = _vm_cpu(setup + work, mounts)
    n = int(out.split()[-1])
    return n / max(full - base, 1e-3), n


def _cpy_rates(variant, positions, nodes, plain_depth):
    from host_tools.references.plain_search import PlainSearch
    from host_tools.references.reference_rules import ReferenceRules
    rules = get_rules(variant)
    eng = Engine(rules)
    n = 0
    t0 = time.process_time()
    for p in positions:
        pos = bytearray(16)
        pos[:15] = p
        pos[15] = rules.legal_mask(pos)
        if pos[15]:
            eng.search(pos, nodes=nodes)
            n += eng.nodes
    er = n / (time.process_time() - t0)
    rr = ReferenceRules(rules.name, rules.seeds)
    n = 0
    t0 = time.process_time()
    for p in positions:
        lp = list(p)
        if rr.legal(lp):
            ps = PlainSearch(rr)
            ps.search(lp, plain_depth)
            n += ps.nodes
    return er, n / (time.process_time() - t0)


def bench_engine(nodes=1500, plain_depth=4, vm=True, out=None, variants=None):
    """The engine part of `mancala bench`; returns {variant: numbers}."""
    out = out or sys.stdout
    from mancala.engine import MASTER_MS, PICO_FACTOR, level_nodes
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "references")
    mounts = [(os.path.join(here, "plain_search.py"), "/lib/plain_search.py"),
              (os.path.join(here, "reference_rules.py"), "/lib/reference_rules.py")]
    res = {}
    for v in variants or ("ranok", "mangala", "kalah", "oware"):
        ps = sample_positions(v)
        row = {"positions": len(ps)}
        row["cpy_engine"], row["cpy_plain"] = _cpy_rates(v, ps, nodes, plain_depth)
        if vm:
            setup = _VM_SETUP % (v, ps)
            row["vm_engine"], _ = _vm_rate(setup, _VM_ENGINE % nodes, mounts)
            row["vm_plain"], _ = _vm_rate(setup, _VM_PLAIN % plain_depth, mounts)
            from host_tools.runners import mpvm
            h = mpvm.run(setup + _VM_HEAP, mounts=mounts).split()
            row["build"], row["heap"] = int(h[-2]), int(h[-1])
            row["master"] = level_nodes(get_rules(v), 3)
            row["pico_rate"] = row["vm_engine"] / PICO_FACTOR
            row["pico_s"] = row["master"] / row["pico_rate"]
            # nodes of a Master think on the board: its deadline, THINK_SHARE searching
            row["pico_2s"] = row["pico_rate"] * MASTER_MS / 1000 * THINK_SHARE
        res[v] = row
    print("engine nodes/s (a node = one child made or valued), plain = recursive alpha-beta over list "
          "copies (host_tools/references/plain_search.py, depth %d); CPU time, %d-node searches over "
          "positions from sample games" % (plain_depth, nodes), file=out)
    head = "%-8s %10s %10s %6s" % ("variant", "cpy engine", "cpy plain", "ratio")
    if vm:
        head += " | %10s %10s %6s | %9s %9s | %6s %8s %6s" % (
            "vm engine", "vm plain", "ratio", "eng build", "heap grow", "master", "pico n/s",
            "pico s") + " %8s" % "2s nodes"
    print(head, file=out)
    for v, r in res.items():
        line = "%-8s %10.0f %10.0f %5.1fx" % (v, r["cpy_engine"], r["cpy_plain"],
                                             r["cpy_engine"] / r["cpy_plain"])
        if vm:
            line += " | %10.0f %10.0f %5.1fx | %9d %9d | %6d %8.0f %5.2fs" % (
                r["vm_engine"], r["vm_plain"], r["vm_engine"] / r["vm_plain"], r["build"],
                r["heap"], r["master"], r["pico_rate"], r["pico_s"]) + " %8.0f" % r["pico_2s"]
        print(line, file=out)
    if vm:
        print("eng build = bytes of Engine(rules) (tt_bits=12); heap grow = peak gc.mem_alloc() "
              "growth during a Master search; master = its node budget (tests, matches);\n"
              "pico n/s = VM rate / %d (engine.PICO_FACTOR: the search on a cycle-counting "
              "RP2040 model of the official rp2 port, v1.27.0 at 125 MHz, ran 30-34x slower "
              "than this VM on Master searches, 23-25x on this bench's workload; issue 13, "
              "docs/ENGINE.md); pico s = seconds of search per Master budget; 2s nodes = "
              "what a %d ms think on the board searches at %.0f%% of its time (the share "
              "measured on the simulated board, tests/test_board_think.py)"
              % (PICO_FACTOR, MASTER_MS, THINK_SHARE * 100), file=out)
    out.flush()
    return res


def bench_main(argv):
    p = Parser(prog="mancala bench", description=(
        "Rules core and engine speed in CPython and the MicroPython VM, against plain "
        "list-copying baselines; heap growth of a Master search; seconds per Master "
        "move on a Pico."))
    p.add_argument("--nodes", type=int_type("--nodes", 1, 100000), default=1500,
                   help="nodes per engine search (1..100000)")
    p.add_argument("--plain-depth", type=int_type("--plain-depth", 1, 8), default=4,
                   help="depth of the plain alpha-beta (1..8)")
    p.add_argument("--no-vm", action="store_true", help="CPython only")
    p.add_argument("--engine-only", action="store_true", help="skip the rules core part")
    a = p.parse_args(argv)
    if not a.no_vm:
        from host_tools.runners import mpvm

        if not mpvm.available():  # said before the CPython part, not after it
            raise SetupError("the MicroPython VM is not installed (`make play` leaves it "
                             "out): run `make setup`, or `mancala bench --no-vm` for "
                             "CPython only")
    if not a.engine_only:
        try:  # the rules core (moves/s, perft(6)) against the plain rules: the rules area
            from host_tools.benches import rules_bench
        except ImportError:
            rules_bench = None
        if rules_bench is not None:
            rules_bench.bench_rules(vm=not a.no_vm)
            print()
    bench_engine(a.nodes, a.plain_depth, not a.no_vm)
    return 0
