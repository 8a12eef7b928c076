"""The coach's grade of every legal move against exact Kalah values (issue 43, item 2).

    python -m host_tools.benches.coach_accuracy sample GAMES MAX_SEEDS SEED OUT [--min-seeds M]
    python -m host_tools.benches.coach_accuracy measure SET... [--nodes N] [--no-tables]
        [--tt-bits B] [--table FILE.tb]

`sample` plays GAMES games of the board's Master against itself (a Pico's: 38,000 kalah
nodes, its book, `match.board_engine`) after random 4-ply openings (the seed picks them)
and writes every position with M (default 1) to MAX_SEEDS seeds on the board and a
choice, with each legal move's exact loss, to OUT: not only the moves played.  The
losses come from references/exact_search.py (alpha-beta to the end, the largest kalah
table built in build/tables/ at its leaves; identical to exact.py's full minimax
wherever that can run, tests/test_exact_search.py), so MAX_SEEDS may reach 24.
`measure` grades every legal move of the sets' positions as the board's coach grades it
(`board_engine`: kalah 200,000 nodes, a table of 2**12, the endgame table a Pico carries where
built, each grade from an empty table) and prints the share graded in its exact loss
class with a 95% Wilson interval, the misses by exact class, and the moves losing 5+
graded good or better.  A measuring tool (progress on stderr), not a test: the sets
behind docs/ENGINE.md's figures are in tests/data/.
"""

import math
import sys
import time


def wilson(k, n, z=1.96):
    """95% Wilson score interval of k successes in n, as (low, high) shares."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = p + z * z / (2 * n)
    r = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (c - r) / d, (c + r) / d


def exact_solver():
    """The searching exact solver with the largest kalah table built on this PC (or
    none: it then searches to the end, slower, the same values)."""
    from host_tools.generators.tablebase import best_built
    from host_tools.references.exact_search import KalahSearchSolver

    return KalahSearchSolver(best_built("kalah"))


def sample(games, max_seeds, seed, out, log=sys.stderr, min_seeds=1):
    import random

    from host_tools.command.match import board_engine
    from host_tools.references.exact import seeds_on_board
    from mancala.game import Game
    from mancala.notation import format_position
    from mancala.rules import MASK, get_rules

    rules = get_rules("kalah")
    rng = random.Random(seed)
    solver = exact_solver()
    written = 0
    t0 = time.monotonic()
    for k in range(games):
        g = Game(rules)
        eng = board_engine(rules, seed=rng.randrange(1 << 16), tables=False)
        eng.keep = True
        while not g.over:
            legal = [p for p in range(6) if g.pos[MASK] >> p & 1]
            if min_seeds <= seeds_on_board(g.pos) <= max_seeds and len(legal) > 1:
                ls = solver.losses(g.pos)
                out.write("%s  %s\n" % (format_position(rules, g.pos), " ".join(
                    str(ls[p]) if p in ls else "-" for p in range(6))))
                out.flush()
                written += 1
            pit = rng.choice(legal) if g.ply < 4 else eng.search(g.pos, level="master")
            g.play(pit)
        print("game %d of %d: %d positions, %.0f s" % (k + 1, games, written,
              time.monotonic() - t0), file=log, flush=True)
    return written


def measure(cases, nodes=None, tables=True, log=sys.stderr, tt_bits=None, table=None):
    """{'moves', 'right', 'big', 'big_missed', 'confusion': {(exact, graded): n},
    'positions', 'budget', 'nodes' (searched, all grades), 'seconds',
    'depths': {a grade's last finished depth: n}}.  `tt_bits`, `table` (a .tb file):
    another board's search table and endgame table (default: a Pico's)."""
    from host_tools.command.match import board_engine
    from host_tools.references.exact import loss_class
    from mancala.rules import get_rules

    eng = board_engine(get_rules("kalah"), book=False, tables=tables and table is None)
    if tt_bits is not None or table is not None:  # another board's table sizes
        from host_tools.generators.tablebase import load_table
        from mancala.engine import Engine

        if tt_bits is not None:
            from host_tools.command.match import BOARD_CPU, board_table

            eng = Engine(get_rules("kalah"), tt_bits=tt_bits)
            eng.stand_for(BOARD_CPU)
            if tables and table is None:
                t = board_table(get_rules("kalah"))
                if t is not None:
                    eng.set_table(t)
        if tables and table is not None:
            eng.set_table(load_table(table, check=False))
    nodes = nodes or eng.grade_nodes
    res = {"moves": 0, "right": 0, "big": 0, "big_missed": 0, "confusion": {},
           "positions": len(cases), "budget": nodes, "nodes": 0, "seconds": 0.0,
           "depths": {}}
    t0 = time.monotonic()
    for i, (pos, losses) in enumerate(cases):
        for pit, loss in sorted(losses.items()):
            eng.keep = False  # as the coach: from an empty table
            g = eng.grade(pos, pit, nodes)[0]
            res["nodes"] += eng.nodes
            res["depths"][eng.depth] = res["depths"].get(eng.depth, 0) + 1
            want = loss_class(loss)
            res["moves"] += 1
            res["right"] += g == want
            res["confusion"][(want, g)] = res["confusion"].get((want, g), 0) + 1
            if loss >= 5:
                res["big"] += 1
                res["big_missed"] += g <= 2
        if (i + 1) % 50 == 0:
            print("%d of %d positions, %.0f s" % (i + 1, len(cases), time.monotonic() - t0),
                  file=log, flush=True)
    res["seconds"] = time.monotonic() - t0
    return res


def report(res):
    from mancala.engine import GRADES

    n, k = res["moves"], res["right"]
    lo, hi = wilson(k, n)
    lines = ["%d moves, %d in their exact loss class: %.1f%% (95%% interval %.1f-%.1f%%)"
             % (n, k, 100.0 * k / n if n else 0, 100 * lo, 100 * hi),
             "moves losing 5+: %d, graded good or better: %d" % (res["big"], res["big_missed"]),
             "misses (exact class -> graded): " + ", ".join(
                 "%s->%s %d" % (GRADES[a], GRADES[b], c)
                 for (a, b), c in sorted(res["confusion"].items()) if a != b)]
    if res.get("positions"):
        lines.append("budget %d nodes a grade: %.0f nodes searched a grade on average, "
                     "%.0f s in all, %.2f s a position, %.3f s a grade (this PC)"
                     % (res["budget"], res["nodes"] / max(n, 1), res["seconds"],
                        res["seconds"] / res["positions"], res["seconds"] / max(n, 1)))
        lines.append("last finished depth of the grades: " + ", ".join(
            "%d: %d" % kv for kv in sorted(res["depths"].items())))
    return lines


def main(argv=None):
    from host_tools.argkit import Parser, int_type, run_command

    def body(argv):
        p = Parser(prog="python -m host_tools.benches.coach_accuracy")
        sub = p.add_subparsers(dest="what", required=True)
        s = sub.add_parser("sample")
        s.add_argument("games", type=int_type("GAMES", 1, 10000))
        s.add_argument("max_seeds", type=int_type("MAX_SEEDS", 1, 24))
        s.add_argument("seed", type=int_type("SEED", 0, 2 ** 30 - 1))
        s.add_argument("out")
        s.add_argument("--min-seeds", type=int_type("--min-seeds", 1, 24), default=1)
        m = sub.add_parser("measure")
        m.add_argument("sets", nargs="+")
        m.add_argument("--nodes", type=int_type("--nodes", 1, 10000000))
        m.add_argument("--no-tables", action="store_true")
        m.add_argument("--tt-bits", type=int_type("--tt-bits", 6, 20),
                       help="the search table's size (default: a Pico's, 12; ESP32 10, Pico 2 14)")
        m.add_argument("--table", help="an endgame table file instead of the Pico's "
                       "(build/tables/kalah-10.tb: the ESP32's and the Pico 2's)")
        a = p.parse_args(argv)
        if a.what == "sample":
            with open(a.out, "w") as f:
                f.write("# Kalah positions with %d to %d seeds on the board from %d games of "
                        "a Pico's Master against itself after random 4-ply openings\n"
                        "# (python -m host_tools.benches.coach_accuracy sample %d %d %d%s): "
                        "each legal move's exact loss in stones (- illegal)\n"
                        % (a.min_seeds, a.max_seeds, a.games, a.games, a.max_seeds, a.seed,
                           " --min-seeds %d" % a.min_seeds if a.min_seeds > 1 else ""))
                sample(a.games, a.max_seeds, a.seed, f, min_seeds=a.min_seeds)
            return 0
        from host_tools.references.exact import read_set

        cases = [c for path in a.sets for c in read_set(path)]
        for line in report(measure(cases, a.nodes, not a.no_tables, tt_bits=a.tt_bits,
                                   table=a.table)):
            print(line)
        return 0

    return run_command("coach_accuracy", body, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
