"""`mancala match`: a match between two players (levels, node budgets, OpenSpiel's C++
MCTS), and the players and limits `mancala engine` and `mancala best` share.

The engine's other PC faces: the line protocol (protocol.py), one position's best move
and the benchmark (analysis.py).
"""

import math
import os
import sys
import time

from host_tools.command.cli import (
    Parser,
    SetupError,
    UsageError,
    bounded,
    int_type,
    printable,
)
from mancala.engine import LEVELS, Engine
from mancala.game import Game
from mancala.rules import N_STORE, S_STORE, SIDE, get_rules

# Sane bounds of what a person may ask for (a typo must not run for hours).
MAX_NODES = 10000000  # minutes of CPython search, never hours
MAX_MOVETIME_MS = 600000
MAX_SIMS = 1000000  # openspiel-mcts simulations per move
MAX_SEED = 2 ** 30 - 1
seed_type = int_type("--seed", 0, MAX_SEED)


# ---------------------------------------------------------------------------
# players

def parse_player(text):
    """'master' | 'master:N' (Master at N nodes) | 'nodes:N' | 'N' | 'openspiel-mcts:SIMS' -> (kind, value); an engine's
    player may add '+tables[:DIR]' (endgame tables) and '+book[:FILE]' (the opening
    book, default firmware/tables/VARIANT.book: Master's searches only)."""
    t = text.strip().lower()
    if "+book" in t:  # e.g. master+book or master+book:firmware/tables/kalah.book
        base, _, where = text.strip().partition("+book")
        kind, value = parse_player(base)
        if kind == "mcts":
            raise ValueError("an opening book is for the engine's players, not %r" % text)
        return (kind + "+book", (value, where.lstrip(":")))
    if "+tables" in t:  # e.g. master+tables or nodes:2000+tables:build/tables
        base, _, where = text.strip().partition("+tables")
        kind, value = parse_player(base)
        if kind == "mcts":
            raise ValueError("endgame tables are for the engine's players, not %r" % text)
        return (kind + "+tables", (value, where.lstrip(":") or "build/tables"))
    if t in LEVELS:
        return ("level", t)
    if t.startswith("master:"):  # Master (book, tables, its search) at a chip's budget
        return ("master", bounded("the nodes of player " + printable(text),
                                  t.split(":", 1)[1], 1, MAX_NODES))
    if t.startswith("openspiel-mcts:"):
        return ("mcts", bounded("the simulations of " + printable(text),
                                t.split(":", 1)[1], 1, MAX_SIMS))
    if t.startswith("nodes:") or t[:1].isdigit() or t[:1] in "+-":
        return ("nodes", bounded("the nodes of player " + printable(text),
                                 t[6:] if t.startswith("nodes:") else t, 1, MAX_NODES))
    raise UsageError("unknown player %r (a level %s, master:N, nodes:N, or openspiel-mcts:SIMS)"
                     % (printable(text), "/".join(LEVELS)))


# The engine's weights and switches `mancala match --set-a/--set-b` may change (an
# engine-against-engine test of a change before it goes into engine.py; docs/ENGINE.md).
# (name: bounds; quarter stones, qdepth in plies up to the engine's QMAX buffers;
# tt: the table's tt_bits, as a board profile sets it: 12 on a Pico unless set)
SETTABLE = {"w": (-64, 64), "ew": (-64, 64), "qew": (-64, 64), "xw": (-64, 64),
            "tw": (-64, 64), "qdepth": (0, 8), "tt": (6, 16)}


def parse_setting(text):
    """'NAME=INT' (NAME one of SETTABLE) -> (NAME, INT)."""
    name, eq, value = text.partition("=")
    name = name.strip()
    if not eq or name not in SETTABLE:
        raise UsageError("--set-a/--set-b takes NAME=INTEGER with NAME one of %s, not %r"
                         % ("/".join(SETTABLE), printable(text)))
    return name, bounded("the value of " + name, value.strip(), *SETTABLE[name])


# The board the command stands for: a Pico whose machine-code kernels run (as `make
# deploy` leaves it): its Master's and its coach's budgets (engine.NATIVE_BUDGETS of
# its CPU), its table size (tt_bits 12), its opening book (committed) and the endgame
# tables deploy sends it (tablebase.BOARD_SEEDS of its platform, where built here).
BOARD_CPU = "armv6m"
BOARD_PLATFORM = "rp2"
BOARD_TT_BITS = 12


def board_table(rules, platform=BOARD_PLATFORM, where=None):
    """The endgame table a board of `platform` carries for `rules`, opened, if this PC
    has built it (`make tablebase`); else None (such a board plays without, as one
    that was not sent it)."""
    from host_tools.generators import tablebase as TB

    seeds = TB.BOARD_SEEDS[platform].get(TB.table_variant(rules.id))
    if seeds is None:
        return None
    path = TB.built_path(rules.id, seeds, where or TB.TABLES_DIR)
    if not os.path.exists(path):
        return None
    return TB.load_table(path, check=False)


def set_board_book(eng, rules):
    """The committed opening book of `rules` (the one the board carries), if any."""
    from host_tools.generators.book import book_path, load_book

    path = book_path(rules.id)
    if os.path.exists(path):
        bk = load_book(path, rules.id)
        eng.set_book(bk.f, bk.entries)


class EnginePlayer:
    def __init__(self, rules, spec, seed, tt_bits=BOARD_TT_BITS, settings=()):
        self.kind, self.value = spec
        settings = dict(settings)
        tt_bits = settings.pop("tt", tt_bits)
        self.engine = Engine(rules, tt_bits=tt_bits, seed=seed)
        self.engine.stand_for(BOARD_CPU)  # a level plays the board's budgets
        self.engine.keep = True  # as on the board: one table for the whole game
        for name, value in settings.items():
            setattr(self.engine, name, value)
        if self.kind.endswith("+book"):  # Master's (and hints') first moves looked up
            from host_tools.generators.book import book_path, load_book

            self.kind = self.kind[:-5]
            self.value, where = self.value
            bk = load_book(where or book_path(rules.id), rules.id)
            self.engine.set_book(bk.f, bk.entries)
        if self.kind.endswith("+tables"):
            from host_tools.generators.tablebase import best_built, load_table

            self.kind = self.kind[:-7]
            self.value, where = self.value
            path = best_built(rules.id, where)
            if path is None:
                raise ValueError("no %s table in %s: build it with `make tablebase`"
                                 % (rules.name, where))
            self.engine.set_table(load_table(path, check=False))
        if self.kind in ("level", "master"):  # the board's Master: its book and tables
            # (unless given above; the lower levels read neither; `nodes:N` is a plain
            # search)
            if self.engine.book is None:
                set_board_book(self.engine, rules)
            if self.engine.table is None:
                table = board_table(rules)
                if table is not None:
                    self.engine.set_table(table)

    def move(self, game, history):
        if self.kind == "level":
            return self.engine.search(game.pos, level=self.value)
        if self.kind == "master":  # as a native board's Master: its book, its budget
            return self.engine.search(game.pos, level="master", nodes=self.value)
        return self.engine.search(game.pos, nodes=self.value)


def _os_action(variant, side, pit):
    if variant == "kalah":
        return side * 7 + pit + 1  # OpenSpiel's board: ours shifted by one
    return pit  # oware: the house within the mover's row


class MctsPlayer:
    """OpenSpiel's C++ MCTS (pyspiel.MCTSBot) with random rollouts; its state is
    rebuilt from the game's moves, and checked against ours."""

    def __init__(self, rules, sims, seed):
        import pyspiel
        if rules.id not in ("kalah", "oware"):
            raise ValueError("openspiel-mcts plays kalah (4 seeds) and oware only")
        self.variant = rules.id
        self.game = pyspiel.load_game("mancala" if rules.id == "kalah" else "oware")
        ev = pyspiel.RandomRolloutEvaluator(1, seed)
        self.bot = pyspiel.MCTSBot(self.game, ev, 2.0, sims, 1000, False, seed, False)

    def state_for(self, history):
        state = self.game.new_initial_state()
        for side, pit in history:
            a = _os_action(self.variant, side, pit)
            if a not in state.legal_actions():
                raise RuntimeError("OpenSpiel disagrees: %s%d is not legal there" % ("SN"[side], pit + 1))
            state.apply_action(a)
        return state

    def move(self, game, history):
        state = self.state_for(history)
        if state.current_player() != game.pos[SIDE]:
            raise RuntimeError("OpenSpiel disagrees on the side to move")
        a = self.bot.step(state)
        return a - game.pos[SIDE] * 7 - 1 if self.variant == "kalah" else a


def make_player(rules, spec, seed, settings=()):
    if spec[0] == "mcts":
        if settings:
            raise ValueError("--set-a/--set-b are for the engine's players")
        return MctsPlayer(rules, spec[1], seed)
    return EnginePlayer(rules, spec, seed, settings=settings)


# ---------------------------------------------------------------------------
# match

MAX_PLIES = 600


def opening(rules, plies, seed):
    """A random opening of `plies` moves (the same for both games of a pair)."""
    from mancala.engine import Rng
    rng = Rng(seed * 7919 + 17)
    game = Game(rules)
    moves = []
    for _ in range(plies):
        mask = game.legal_mask()
        if not mask:
            break
        legal = [k for k in range(6) if mask >> k & 1]
        pit = legal[rng.below(len(legal))]
        moves.append((game.side, pit))
        game.play(pit)
    return moves


def play_game(task):
    """One game: task = (variant, spec_a, spec_b, index, opening_plies, seed[, ponder,
    ponder_b, settings_a, settings_b]).  A plays South in even games, North in odd
    ones.  Returns (index, A's points, S store, N store, plies)."""
    variant, spec_a, spec_b, index, oplies, seed = task[:6]
    ponder = task[6] if len(task) > 6 else 0  # nodes A thinks on B's time
    ponder_b = task[7] if len(task) > 7 else 0  # ... and B on A's
    set_a = task[8] if len(task) > 8 else ()
    set_b = task[9] if len(task) > 9 else ()
    rules = get_rules(variant)
    pair = index // 2
    a_side = index & 1
    pa = make_player(rules, spec_a, seed * 100003 + index * 2 + 1, set_a)
    pb = make_player(rules, spec_b, seed * 100003 + index * 2 + 2, set_b)
    players = (pa, pb) if a_side == 0 else (pb, pa)
    game = Game(rules)
    history = []
    for side, pit in opening(rules, oplies, seed * 1009 + pair):
        game.play(pit)
        history.append((side, pit))
    while not game.over and game.ply < MAX_PLIES:
        side = game.side
        if ponder and side != a_side and isinstance(pa, EnginePlayer) and \
                game.legal_mask() & (game.legal_mask() - 1):
            # as the board ponders: A searches the position B faces, keeping its table
            pa.engine.search(game.pos, nodes=ponder)
        if ponder_b and side == a_side and isinstance(pb, EnginePlayer) and \
                game.legal_mask() & (game.legal_mask() - 1):
            pb.engine.search(game.pos, nodes=ponder_b)
        pit = players[side].move(game, history)
        why = game.why_illegal(pit)
        if why:
            raise RuntimeError("illegal move %d by %s: %s" % (pit + 1, "AB"[side ^ a_side], why))
        game.play(pit)
        history.append((side, pit))
    s, n = game.pos[S_STORE], game.pos[N_STORE]
    mine, theirs = (s, n) if a_side == 0 else (n, s)
    pts = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    for p in players:  # check our rules against OpenSpiel's at the end of the game
        if isinstance(p, MctsPlayer) and game.end == 1:
            st = p.state_for(history)
            if not st.is_terminal():
                raise RuntimeError("OpenSpiel's game is not over where ours is")
    return index, pts, s, n, game.ply


def _ignore_interrupts():
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_match(variant, a, b, games, workers=2, oplies=2, seed=1, progress=True, out=None,
              log=None, first=0, ponder=0, ponder_b=0, set_a=(), set_b=()):
    spec_a, spec_b = parse_player(a), parse_player(b)
    set_a, set_b = tuple(set_a), tuple(set_b)
    tasks = [(variant, spec_a, spec_b, i, oplies, seed, ponder, ponder_b, set_a, set_b)
             for i in range(first, first + games)]
    a += "".join("+%s=%d" % s for s in set_a)
    b += "".join("+%s=%d" % s for s in set_b)
    if ponder:
        a = "%s+ponder:%d" % (a, ponder)
    if ponder_b:
        b = "%s+ponder:%d" % (b, ponder_b)
    results = []
    t0 = time.time()

    tty = sys.stderr.isatty()

    def bar(done):
        if not progress:
            return
        w = 30
        fill = w * done // max(games, 1)
        pts = sum(r[1] for r in results)
        # a terminal redraws one line; a file or pipe gets whole lines
        sys.stderr.write("%s[%s%s] %d/%d  %s %.1f - %.1f %s  %.0fs%s" % (
            "\r" if tty else "", "#" * fill, "." * (w - fill), done, games, a, pts,
            done - pts, b, time.time() - t0, "" if tty else "\n"))
        sys.stderr.flush()

    logf = open(log, "a") if log else None  # match_main checked that it opens

    def record(r):
        results.append(r)
        if logf:
            logf.write("%s %s %s game %d points %.1f stores %d %d plies %d\n" % ((variant, a, b) + r))
            logf.flush()

    bar(0)
    if workers > 1:
        import multiprocessing
        ctx = multiprocessing.get_context("fork")
        # The workers leave Ctrl-C to this process, which ends them (the pool's exit):
        # each would print its own traceback ("Process ForkPoolWorker-1: ...").
        with ctx.Pool(workers, initializer=_ignore_interrupts) as pool:
            for r in pool.imap_unordered(play_game, tasks):
                record(r)
                bar(len(results))
    else:
        for t in tasks:
            record(play_game(t))
            bar(len(results))
    if logf:
        logf.close()
    if progress and tty:
        sys.stderr.write("\n")
    return summarize(variant, a, b, results, time.time() - t0, out)


def summarize(variant, a, b, results, seconds, out=None):
    out = out or sys.stdout
    n = len(results)
    pts = [r[1] for r in results]
    total = sum(pts)
    wins = sum(1 for x in pts if x == 1.0)
    draws = sum(1 for x in pts if x == 0.5)
    mean = total / n if n else 0.0
    var = sum((x - mean) ** 2 for x in pts) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n) if n else 0.0
    line = ("%s: %s vs %s: %.1f/%d points (%.1f%%, 95%% CI %.1f-%.1f%%), "
            "%d wins %d draws %d losses, %.0f s" % (
                variant, a, b, total, n, 100 * mean, 100 * max(0, mean - half),
                100 * min(1, mean + half), wins, draws, n - wins - draws, seconds))
    print(line, file=out)
    out.flush()
    return {"variant": variant, "a": a, "b": b, "points": total, "games": n,
            "pct": 100 * mean, "ci": (100 * max(0, mean - half), 100 * min(1, mean + half)),
            "wins": wins, "draws": draws, "line": line}


def match_main(argv):
    p = Parser(prog="mancala match", description=(
        "A match between two players: a level (%s), a node budget (N or nodes:N), or "
        "openspiel-mcts:SIMS (kalah, oware).  Sides alternate; each random opening is "
        "played once from each side." % ", ".join(LEVELS)))
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--variant", default="kalah")
    p.add_argument("--games", type=int_type("--games", 1, 10000), default=20)
    p.add_argument("--workers", type=int_type("--workers", 1, 64), default=2)
    p.add_argument("--opening-plies", type=int_type("--opening-plies", 0, 60), default=2,
                   help="random plies before the players take over (default 2)")
    p.add_argument("--seed", type=seed_type, default=1)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--log", help="append one line per finished game to this file")
    p.add_argument("--first", type=int_type("--first", 0, 1000000), default=0,
                   help="index of the first game (to split a match over runs)")
    p.add_argument("--ponder", type=int, default=0, metavar="N",
                   help="A (an engine player) ponders N nodes on B's time, keeping its "
                        "table, as the board does on the person's turn (Master on a Pico: "
                        "see docs/ENGINE.md for what a person's turn is worth)")
    p.add_argument("--ponder-b", type=int, default=0, metavar="N",
                   help="B (an engine player) ponders N nodes on A's time")
    p.add_argument("--set-a", action="append", default=[], metavar="NAME=N",
                   help="set an evaluation weight or switch of A's engine (%s; "
                        "repeatable): test a change against the engine as it is"
                        % "/".join(SETTABLE))
    p.add_argument("--set-b", action="append", default=[], metavar="NAME=N",
                   help="the same for B")
    a = p.parse_args(argv)
    if a.ponder < 0 or a.ponder_b < 0:
        print("error: --ponder and --ponder-b must be 0 or more nodes", file=sys.stderr)
        return 2
    set_a = [parse_setting(t) for t in a.set_a]
    set_b = [parse_setting(t) for t in a.set_b]
    if (set_a and parse_player(a.a)[0] == "mcts") or (set_b and parse_player(a.b)[0] == "mcts"):
        raise UsageError("--set-a/--set-b are for the engine's players, not openspiel-mcts")
    try:
        get_rules(a.variant)
    except ValueError as e:
        raise UsageError("--variant: %s" % e) from None
    for spec in (parse_player(a.a), parse_player(a.b)):
        if spec[0] == "mcts" and a.variant not in ("kalah", "oware"):
            raise UsageError("openspiel-mcts plays kalah (4 seeds) and oware only")
    if "mcts" in (parse_player(a.a)[0], parse_player(a.b)[0]):
        try:  # here, before the workers: each would fail in its own traceback
            import pyspiel  # noqa: F401
        except ImportError:
            raise SetupError("openspiel-mcts needs OpenSpiel (pyspiel), which `make play` "
                             "leaves out: run `make setup`") from None
    if a.log:
        try:
            open(a.log, "a").close()
        except OSError as e:
            raise UsageError("--log %s: %s" % (printable(a.log), e.strerror)) from None
    run_match(a.variant, a.a, a.b, a.games, a.workers, a.opening_plies, a.seed, not a.quiet,
              log=a.log, first=a.first, ponder=a.ponder, ponder_b=a.ponder_b,
              set_a=set_a, set_b=set_b)
    return 0


# ---------------------------------------------------------------------------
# the board's Master on the PC

def board_engine(rules, seed=0, book=True, tables=True):
    """An Engine that plays and grades as the board the command stands for (a Pico,
    BOARD_CPU): its Master's and its coach's budgets, its table size, the variant's
    opening book (the committed firmware/tables/VARIANT.book the board carries in
    /tables/) and the endgame table `make deploy` sends it, where built on this PC
    (board_table)."""
    eng = Engine(rules, tt_bits=BOARD_TT_BITS, seed=seed)
    eng.stand_for(BOARD_CPU)
    if book:
        set_board_book(eng, rules)
    if tables:
        table = board_table(rules)
        if table is not None:
            eng.set_table(table)
    return eng


# ---------------------------------------------------------------------------
# best
