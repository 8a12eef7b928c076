"""`mancala engine | best | match | bench`: the engine on the PC.

engine  a UCI-like line protocol on stdin/stdout (docs/ENGINE.md)
best    the best move of one position
match   a match between two players (levels, node budgets, OpenSpiel's C++ MCTS)
bench   node rates (CPython and the MicroPython VM, against a plain alpha-beta over
        list copies), heap growth of a Master search, seconds per Master move on a Pico
"""

import math
import os
import queue
import sys
import threading
import time

from host_tools.command.cli import Parser, UsageError, bounded, int_type, printable, stdin_lines
from mancala.engine import GRADES, LEVELS, Engine
from mancala.game import Game
from mancala.notation import parse_any, parse_move, parse_position
from mancala.rules import MASK, N_STORE, S_STORE, SIDE, get_rules

# The share of a Master think on the board spent searching (180 LEDs, measured on
# the simulated board's clock, tests/test_board_think.py; 14 LEDs: 0.93).
THINK_SHARE = 0.88

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
# (name: bounds; quarter stones, qdepth in plies up to the engine's QMAX buffers)
SETTABLE = {"w": (-64, 64), "ew": (-64, 64), "qew": (-64, 64), "xw": (-64, 64),
            "tw": (-64, 64), "qdepth": (0, 8)}


def parse_setting(text):
    """'NAME=INT' (NAME one of SETTABLE) -> (NAME, INT)."""
    name, eq, value = text.partition("=")
    name = name.strip()
    if not eq or name not in SETTABLE:
        raise UsageError("--set-a/--set-b takes NAME=INTEGER with NAME one of %s, not %r"
                         % ("/".join(SETTABLE), printable(text)))
    return name, bounded("the value of " + name, value.strip(), *SETTABLE[name])


class EnginePlayer:
    def __init__(self, rules, spec, seed, tt_bits=12, settings=()):
        self.kind, self.value = spec
        self.engine = Engine(rules, tt_bits=tt_bits, seed=seed)
        self.engine.keep = True  # as on the board: one table for the whole game
        for name, value in settings:
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

def board_engine(rules, seed=0, book=True):
    """An Engine that plays as the board's Master does: with the variant's opening book
    (the committed firmware/tables/VARIANT.book the board carries in /tables/), where
    there is one.  The board also probes the endgame table it was sent (`make
    deploy`); on the PC that is --tables, since build/tables holds what this machine
    happened to build."""
    eng = Engine(rules, seed=seed)
    if book:
        from host_tools.generators.book import book_path, load_book

        path = book_path(rules.id)
        if os.path.exists(path):
            bk = load_book(path, rules.id)
            eng.set_book(bk.f, bk.entries)
    return eng


# ---------------------------------------------------------------------------
# best

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
    p.add_argument("--tables", nargs="?", const="build/tables", metavar="DIR",
                   help="use the largest endgame table built in DIR (default build/tables)")
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
        eng = board_engine(game.rules, a.seed, book=not a.no_book)
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

END_OF_INPUT = object()  # what the stdin reader queues last (None: a non-UTF-8 line)


class Protocol:
    """position VARIANT [C1,...,C14 S|N] [moves M...] | go [level NAME] [nodes N]
    [movetime MS] | stop | grade M [nodes N] | hint [LEVEL] | isready | quit.
    A bad command answers one line `error ...` and the engine goes on; the exit
    status is then 1."""

    def __init__(self, out=None, seed=0, clock=None):
        self.out = out or sys.stdout
        self.seed = seed
        self.clock = clock  # ms clock of movetime (None: the engine's own)
        self.errors = 0
        self.pending = []  # commands that arrived during a search
        self.rules, self.pos = parse_position("kalah")
        self.engine = board_engine(self.rules, seed)

    def say(self, line):
        self.out.write(line + "\n")
        self.out.flush()

    def cmd_position(self, words):
        if "moves" in words:
            i = words.index("moves")
            text, moves = words[:i], words[i + 1:]
        else:
            text, moves = words, []
        if text and text[0] == "startpos":
            text = text[1:] or ["kalah"]
        if not text:
            raise ValueError("position needs a variant (position VARIANT [C1,...,C14 S|N] "
                             "[moves M...])")
        rules, pos = parse_position(" ".join(text))
        game = Game(rules, pos)
        for k, m in enumerate(moves):
            try:
                pit = parse_move(m, game.side)
                game.play(pit)
            except ValueError as e:  # NotationError, IllegalMove
                raise ValueError("move %d: %s" % (k + 1, e)) from None
        if rules is not self.rules:
            self.rules = rules
            self.engine.release()  # (closes the old variant's book)
            self.engine = board_engine(rules, self.seed)
        self.pos = bytearray(game.pos)

    def go(self, words, lines):
        level = nodes = deadline = None
        for i in range(0, len(words), 2):
            key = words[i]
            if key not in ("level", "nodes", "movetime"):
                raise ValueError("unknown go option %r (level NAME, nodes N, movetime MS)"
                                 % key)
            if i + 1 >= len(words):
                raise ValueError("go %s needs a value" % key)
            value = words[i + 1]
            if key == "level":
                if value not in LEVELS:
                    raise ValueError("unknown level %r (%s)" % (value, " ".join(LEVELS)))
                level = value
            elif key == "nodes":
                nodes = _protocol_int("go nodes", value, 1, MAX_NODES)
            else:
                deadline = _protocol_int("go movetime", value, 1, MAX_MOVETIME_MS)
        if not self.pos[MASK]:
            self.say("bestmove none")
            return True
        eng = self.engine
        if deadline is not None and level is None and nodes is None:
            nodes = MAX_NODES  # movetime alone: search until the time is up
        if level is None and nodes is None:
            level = "master"
        eng.start(self.pos, level=level, nodes=nodes, deadline_ms=deadline, clock=self.clock)
        shown = -1
        alive = True
        while True:
            finished = eng.step(256)
            if eng.depth != shown and eng.depth:
                shown = eng.depth
                self.say("info depth %d score %d nodes %d pv %d" % (
                    eng.depth, eng.score, eng.nodes, eng.best_move + 1))
            if finished:
                break
            if lines is not None:
                try:
                    line = lines.get_nowait()
                except queue.Empty:
                    continue
                # Commands are handled in the order they came: during a search only
                # `stop` and `isready` act at once; the rest wait for its end.  A
                # `quit` or the end of input with nothing waiting before it has nothing
                # left to wait for: the search ends now (its best move is said).
                if line is END_OF_INPUT:
                    lines = None
                    if not self.pending:
                        eng.stop()
                        alive = False
                        break
                    self.pending.append(END_OF_INPUT)
                    continue
                w = line.split() if line is not None else None
                if w == ["stop"]:
                    eng.stop()
                    break
                if w == ["isready"]:
                    self.say("readyok")
                elif w == ["quit"] and not self.pending:
                    eng.stop()
                    alive = False
                    break
                elif w is None or w:  # None (not UTF-8): answered in its turn
                    self.pending.append(line)
        if eng.book_hit:  # Master's move from its opening book, as on the board
            self.say("info depth 0 score %d nodes 0 book" % eng.book_score)
        else:
            self.say("info depth %d score %d nodes %d" % (eng.depth, eng.score, eng.nodes))
        self.say("bestmove %d" % (eng.best_move + 1))
        return alive

    def cmd_grade(self, words):
        if not words or len(words) not in (1, 3) or len(words) == 3 and words[1] != "nodes":
            raise ValueError("grade takes a move and optionally nodes N (grade M [nodes N])")
        pit = parse_move(words[0], self.pos[SIDE])
        if not self.pos[MASK] >> pit & 1:
            raise ValueError("%s is not a legal move here" % words[0])
        nodes = _protocol_int("grade nodes", words[2], 1, MAX_NODES) if len(words) == 3 \
            else None
        g, loss, threat = self.engine.grade(self.pos, pit, nodes)
        self.say("grade %s loss %d threat %s" % (
            GRADES[g], loss, "none" if threat < 0 else str(threat + 1)))

    def error(self, message):
        self.errors += 1
        self.say("error %s" % printable(message))

    def handle(self, line, lines=None):
        """One command; False to quit."""
        if line is None:
            self.error("the line is not UTF-8 text")
            return True
        words = line.split()
        if not words:
            return True
        cmd, rest = words[0], words[1:]
        try:
            if cmd in ("quit", "isready", "uci", "mancala", "stop") and rest:
                raise ValueError("%s takes no arguments" % cmd)
            if cmd == "quit":
                return False
            if cmd == "isready":
                self.say("readyok")
            elif cmd in ("uci", "mancala"):
                self.say("id name mancala-engine")
                self.say("ok")
            elif cmd == "position":
                self.cmd_position(rest)
            elif cmd == "go":
                return self.go(rest, lines)
            elif cmd == "stop":
                pass  # nothing is running
            elif cmd == "grade":
                self.cmd_grade(rest)
            elif cmd == "hint":
                if len(rest) > 1 or rest and rest[0] not in LEVELS:
                    raise ValueError("hint takes a level (%s), got %r"
                                     % (" ".join(LEVELS), " ".join(rest)))
                if not self.pos[MASK]:
                    raise ValueError("the game is over: no hint")
                lvl = rest[0] if rest else "master"
                self.say("hint %d" % (self.engine.hint(self.pos, lvl) + 1))
            else:
                self.error("unknown command %r (position go stop grade hint isready quit)"
                           % cmd)
        except (ValueError, IndexError) as e:
            self.error(e)
        return True


def _protocol_int(what, text, low, high):
    try:
        return bounded(what, text, low, high)
    except UsageError as e:
        raise ValueError(str(e)) from None


def fd_lines(fd):
    """The lines of file descriptor `fd` without their line ends (None: a line that is
    not UTF-8), read with os.read.  The protocol's reader thread blocks here while a
    search runs; blocked in sys.stdin's buffered read instead it would hold that
    buffer's lock, and the interpreter's exit (quit, Ctrl-C) aborts on it: "Fatal
    Python error: _enter_buffered_busy: could not acquire lock for <stdin> ... daemon
    threads", exit status 134."""
    rest = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # stdin closed under us: as the end of input
            chunk = b""
        if not chunk:
            break
        *whole, rest = (rest + chunk).split(b"\n")
        for raw in whole:
            yield _decoded(raw)
    if rest:
        yield _decoded(rest)


def _decoded(raw):
    try:
        return raw.decode("utf-8").rstrip("\r")
    except UnicodeDecodeError:
        return None


def engine_main(argv):
    p = Parser(prog="mancala engine", description=Protocol.__doc__)
    p.add_argument("--seed", type=seed_type, default=0)
    a = p.parse_args(argv)
    proto = Protocol(sys.stdout, a.seed)
    lines = queue.Queue()

    try:
        source = fd_lines(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):  # no descriptor (a stdin in memory)
        source = stdin_lines()

    def reader():
        try:
            for line in source:
                lines.put(line)
        finally:  # whatever ends the reading ends the protocol, never a wait forever
            lines.put(END_OF_INPUT)

    threading.Thread(target=reader, daemon=True).start()
    while True:
        line = proto.pending.pop(0) if proto.pending else lines.get()
        if line is END_OF_INPUT or not proto.handle(line, lines):
            break
    return 1 if proto.errors else 0


# ---------------------------------------------------------------------------
# bench
#
# Node rates are taken from CPU time (CPython: time.process_time; the VM: the node
# process's CPU time from getrusage, minus the same script without the work), so
# other load on the machine does not leak into the Pico estimate.


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
