"""`mancala engine | best | match | bench`: the engine on the PC.

engine  a UCI-like line protocol on stdin/stdout (docs/ENGINE.md)
best    the best move of one position
match   a match between two players (levels, node budgets, OpenSpiel's C++ MCTS)
bench   node rates (CPython and the MicroPython VM, against a plain alpha-beta over
        list copies), heap growth of a Master search, seconds per Master move on a Pico
"""

import argparse
import math
import os
import queue
import sys
import threading
import time

from mancala.engine import GRADES, LEVELS, Engine
from mancala.game import Game
from mancala.notation import NotationError, parse_move, parse_position
from mancala.rules import MASK, N_STORE, S_STORE, SIDE, get_rules

# A Pico runs MicroPython bytecode about 50-60x slower than the WebAssembly VM
# here (the figure); we use the middle, 55.
PICO_SLOWDOWN = 55


# ---------------------------------------------------------------------------
# players

def parse_player(text):
    """'master' | 'nodes:N' | 'N' | 'openspiel-mcts:SIMS' -> (kind, value)."""
    t = text.strip().lower()
    if t in LEVELS:
        return ("level", t)
    if t.startswith("openspiel-mcts:"):
        return ("mcts", int(t.split(":", 1)[1]))
    if t.startswith("nodes:"):
        t = t[6:]
    if t.isdigit():
        return ("nodes", int(t))
    raise ValueError("unknown player %r (a level %s, nodes:N, or openspiel-mcts:SIMS)"
                     % (text, "/".join(LEVELS)))


class EnginePlayer:
    def __init__(self, rules, spec, seed, tt_bits=12):
        self.kind, self.value = spec
        self.engine = Engine(rules, tt_bits=tt_bits, seed=seed)

    def move(self, game, history):
        if self.kind == "level":
            return self.engine.search(game.pos, level=self.value)
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


def make_player(rules, spec, seed):
    if spec[0] == "mcts":
        return MctsPlayer(rules, spec[1], seed)
    return EnginePlayer(rules, spec, seed)


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
    """One game: task = (variant, spec_a, spec_b, index, opening_plies, seed).
    A plays South in even games, North in odd ones.  Returns (index, A's points,
    S store, N store, plies)."""
    variant, spec_a, spec_b, index, oplies, seed = task
    rules = get_rules(variant)
    pair = index // 2
    a_side = index & 1
    pa = make_player(rules, spec_a, seed * 100003 + index * 2 + 1)
    pb = make_player(rules, spec_b, seed * 100003 + index * 2 + 2)
    players = (pa, pb) if a_side == 0 else (pb, pa)
    game = Game(rules)
    history = []
    for side, pit in opening(rules, oplies, seed * 1009 + pair):
        game.play(pit)
        history.append((side, pit))
    while not game.over and game.ply < MAX_PLIES:
        side = game.side
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


def run_match(variant, a, b, games, workers=2, oplies=2, seed=1, progress=True, out=sys.stdout,
              log=None):
    spec_a, spec_b = parse_player(a), parse_player(b)
    tasks = [(variant, spec_a, spec_b, i, oplies, seed) for i in range(games)]
    results = []
    t0 = time.time()

    def bar(done):
        if not progress:
            return
        w = 30
        fill = w * done // max(games, 1)
        pts = sum(r[1] for r in results)
        sys.stderr.write("\r[%s%s] %d/%d  %s %.1f - %.1f %s  %.0fs" % (
            "#" * fill, "." * (w - fill), done, games, a, pts, done - pts, b, time.time() - t0))
        sys.stderr.flush()

    logf = open(log, "a") if log else None

    def record(r):
        results.append(r)
        if logf:
            logf.write("%s %s %s game %d points %.1f stores %d %d plies %d\n" % ((variant, a, b) + r))
            logf.flush()

    bar(0)
    if workers > 1:
        import multiprocessing
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(workers) as pool:
            for r in pool.imap_unordered(play_game, tasks):
                record(r)
                bar(len(results))
    else:
        for t in tasks:
            record(play_game(t))
            bar(len(results))
    if logf:
        logf.close()
    if progress:
        sys.stderr.write("\n")
    return summarize(variant, a, b, results, time.time() - t0, out)


def summarize(variant, a, b, results, seconds, out=sys.stdout):
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
    p = argparse.ArgumentParser(prog="mancala match", description=(
        "A match between two players: a level (%s), a node budget (N or nodes:N), or "
        "openspiel-mcts:SIMS (kalah, oware).  Sides alternate; each random opening is "
        "played once from each side." % ", ".join(LEVELS)))
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--variant", default="kalah")
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--opening-plies", type=int, default=2,
                   help="random plies before the players take over (default 2)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--log", help="append one line per finished game to this file")
    a = p.parse_args(argv)
    try:
        get_rules(a.variant)
        parse_player(a.a)
        parse_player(a.b)
    except ValueError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    run_match(a.variant, a.a, a.b, a.games, a.workers, a.opening_plies, a.seed, not a.quiet,
              log=a.log)
    return 0


# ---------------------------------------------------------------------------
# best

def best_main(argv):
    p = argparse.ArgumentParser(prog="mancala best", description="The best move of a position.")
    p.add_argument("position", nargs="+", help="'VARIANT C1,...,C14 S|N' or a variant (its start)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--level", choices=LEVELS)
    g.add_argument("--nodes", type=int)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    try:
        rules, pos = parse_position(" ".join(a.position))
    except NotationError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    if not pos[MASK]:
        print("error: the game is over", file=sys.stderr)
        return 2
    eng = Engine(rules, seed=a.seed)
    level = a.level if a.level or a.nodes else "master"
    pit = eng.search(pos, level=level if a.nodes is None else None, nodes=a.nodes)
    print("bestmove %d score %d depth %d nodes %d" % (pit + 1, eng.score, eng.depth, eng.nodes))
    return 0


# ---------------------------------------------------------------------------
# engine protocol

class Protocol:
    """position POS [moves M...] | go level NAME | go nodes N | go movetime MS |
    stop | grade M | hint [LEVEL] | isready | quit."""

    def __init__(self, out=sys.stdout, seed=0):
        self.out = out
        self.seed = seed
        self.rules, self.pos = parse_position("kalah")
        self.engine = Engine(self.rules, seed=seed)

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
        rules, pos = parse_position(" ".join(text))
        game = Game(rules, pos)
        for m in moves:
            game.play(parse_move(m, game.side))
        if rules is not self.rules:
            self.rules = rules
            self.engine = Engine(rules, seed=self.seed)
        self.pos = bytearray(game.pos)

    def go(self, words, lines):
        level = nodes = deadline = None
        i = 0
        while i + 1 < len(words):
            if words[i] == "level":
                level = words[i + 1]
                if level not in LEVELS:
                    raise ValueError("unknown level %r" % level)
            elif words[i] == "nodes":
                nodes = int(words[i + 1])
            elif words[i] == "movetime":
                deadline = int(words[i + 1])
            i += 2
        if not self.pos[MASK]:
            self.say("bestmove none")
            return True
        eng = self.engine
        if level is None and nodes is None:
            level = "master"
        eng.start(self.pos, level=level, nodes=nodes, deadline_ms=deadline)
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
                w = line.split()
                if w and w[0] == "stop":
                    eng.stop()
                    break
                if w and w[0] == "quit":
                    eng.stop()
                    alive = False
                    break
        self.say("info depth %d score %d nodes %d" % (eng.depth, eng.score, eng.nodes))
        self.say("bestmove %d" % (eng.best_move + 1))
        return alive

    def cmd_grade(self, words):
        pit = parse_move(words[0], self.pos[SIDE])
        if not self.pos[MASK] >> pit & 1:
            raise ValueError("%s is not a legal move here" % words[0])
        nodes = int(words[2]) if len(words) > 2 and words[1] == "nodes" else None
        g, loss, threat = self.engine.grade(self.pos, pit, nodes)
        self.say("grade %s loss %d threat %s" % (
            GRADES[g], loss, "none" if threat < 0 else str(threat + 1)))

    def handle(self, line, lines=None):
        """One command; False to quit."""
        words = line.split()
        if not words:
            return True
        cmd, rest = words[0], words[1:]
        try:
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
                lvl = rest[0] if rest else "master"
                self.say("hint %d" % (self.engine.hint(self.pos, lvl) + 1))
            else:
                self.say("error unknown command %r" % cmd)
        except (ValueError, IndexError) as e:
            self.say("error %s" % e)
        return True


def engine_main(argv):
    p = argparse.ArgumentParser(prog="mancala engine", description=Protocol.__doc__)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    proto = Protocol(sys.stdout, a.seed)
    lines = queue.Queue()

    def reader():
        for line in sys.stdin:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=reader, daemon=True).start()
    while True:
        line = lines.get()
        if line is None or not proto.handle(line, lines):
            break
    return 0


# ---------------------------------------------------------------------------
# bench

BENCH_POSITIONS = {
    "kalah": ("kalah", "kalah 6,0,6,6,2,1,3,0,8,2,2,0,8,4 S"),
    "oware": ("oware", "oware 6,1,8,1,0,7,0,0,8,8,1,1,7,0 S"),
    "mangala": ("mangala", "mangala 2,0,1,6,1,7,2,5,0,2,6,6,2,8 S"),
    "ranok": ("ranok", "ranok 2,6,6,0,0,0,3,7,0,3,9,1,7,4 S"),
}


def _bench_code(nodes, master, plain_depths):
    return r"""
import gc, time
from mancala.rules import get_rules
from mancala.notation import parse_position
from mancala.engine import Engine, level_nodes
import plain_search
from reference_rules import ReferenceRules
POS = %r
out = []
for v, texts in POS.items():
    rules = get_rules(v)
    e = Engine(rules)
    tn = 0; tt = 0
    for t in texts:
        r, pos = parse_position(t)
        gc.collect()
        t0 = time.ticks_ms()
        e.search(pos, nodes=%d)
        tt += time.ticks_diff(time.ticks_ms(), t0); tn += e.nodes
    # heap growth of a Master search, the engine already built
    m = level_nodes(rules, 3)
    r, pos = parse_position(texts[0])
    gc.collect(); gc.disable()
    a0 = gc.mem_alloc()
    e.search(pos, level="master")
    grow = gc.mem_alloc() - a0
    gc.enable(); gc.collect()
    a1 = gc.mem_alloc()
    e2 = Engine(rules)
    build = gc.mem_alloc() - a1
    del e2
    # plain alpha-beta over list copies
    rr = ReferenceRules(rules.name, rules.seeds)
    pn = 0; pt = 0
    for t in texts:
        r, pos = parse_position(t)
        lp = [pos[i] for i in range(15)]
        t0 = time.ticks_ms()
        ps = plain_search.PlainSearch(rr)
        ps.search(lp, %d)
        pt += time.ticks_diff(time.ticks_ms(), t0); pn += ps.nodes
    print("R", v, tn, tt, pn, pt, grow, build, m)
""" % ({k: v for k, v in master.items()}, nodes, plain_depths)


def _bench_cpython(positions, nodes, plain_depth):
    import gc as _gc

    from host_tools import plain_search
    from host_tools.reference_rules import ReferenceRules
    res = {}
    for v, texts in positions.items():
        rules = get_rules(v)
        e = Engine(rules)
        tn = tt = 0
        for t in texts:
            _, pos = parse_position(t)
            t0 = time.perf_counter()
            e.search(pos, nodes=nodes)
            tt += time.perf_counter() - t0
            tn += e.nodes
        rr = ReferenceRules(rules.name, rules.seeds)
        pn = pt = 0
        for t in texts:
            _, pos = parse_position(t)
            lp = [pos[i] for i in range(15)]
            ps = plain_search.PlainSearch(rr)
            _gc.collect()
            t0 = time.perf_counter()
            ps.search(lp, plain_depth)
            pt += time.perf_counter() - t0
            pn += ps.nodes
        res[v] = (tn / tt, pn / pt)
    return res


def bench_main(argv):
    p = argparse.ArgumentParser(prog="mancala bench", description=__doc__.split("\n")[5])
    p.add_argument("--nodes", type=int, default=20000, help="nodes per engine search")
    p.add_argument("--plain-depth", type=int, default=6, help="depth of the plain alpha-beta")
    p.add_argument("--no-vm", action="store_true", help="CPython only")
    a = p.parse_args(argv)
    positions = {v: BENCH_POSITIONS[v] for v in ("ranok", "mangala", "kalah", "oware")}
    # the rules core itself (moves/s, perft(6)), if the rules area provides it
    try:
        from host_tools import rules_bench
        rules_bench.bench_rules()
    except ImportError:
        pass
    print("engine: nodes/s (one node = one rules.move), plain = alpha-beta over list copies "
          "(host_tools/plain_search.py)")
    cp = _bench_cpython(positions, a.nodes, a.plain_depth)
    vm = {}
    if not a.no_vm:
        from host_tools import mpvm
        here = os.path.dirname(os.path.abspath(__file__))
        code = _bench_code(a.nodes, positions, a.plain_depth)
        mounts = [(os.path.join(here, "plain_search.py"), "/lib/plain_search.py"),
                  (os.path.join(here, "reference_rules.py"), "/lib/reference_rules.py")]
        out = mpvm.run(code, mounts=mounts)
        for line in out.splitlines():
            w = line.split()
            if w and w[0] == "R":
                tn, tt, pn, pt, grow, build, m = (int(x) for x in w[2:])
                vm[w[1]] = (tn * 1000 / max(tt, 1), pn * 1000 / max(pt, 1), grow, build, m)
    print("%-8s %12s %12s %6s | %12s %12s %6s | %9s %9s %7s %8s" % (
        "variant", "cpy engine", "cpy plain", "ratio", "vm engine", "vm plain", "ratio",
        "heap grow", "eng build", "master", "pico s"))
    for v in positions:
        e, pl = cp[v]
        row = "%-8s %12.0f %12.0f %5.1fx" % (v, e, pl, e / pl)
        if v in vm:
            ve, vp, grow, build, m = vm[v]
            pico = ve / PICO_SLOWDOWN
            row += " | %12.0f %12.0f %5.1fx | %9d %9d %7d %7.2fs" % (
                ve, vp, ve / vp, grow, build, m, m / pico)
        print(row)
    if vm:
        print("pico s = master nodes / (vm engine nodes/s / %d): a Pico runs bytecode about "
              "50-60x slower than the VM" % PICO_SLOWDOWN)
    return 0
