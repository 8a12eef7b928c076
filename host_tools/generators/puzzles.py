"""Puzzles for the board: positions with a single best move, found and checked by
the engine at a deep budget on the PC (docs/PUZZLES.md).

    mancala puzzles generate [--variant V] [--count N] [--seconds S]   (make puzzles)
    mancala puzzles verify [--variant V] [--sample K]
    mancala puzzles show VARIANT NUMBER

Where the positions come from: engine self-play games (levels with root noise, so
the games differ) after a random opening, sampled in three phases (opening,
middle game, endgame).  Each candidate is mirrored so that South moves (the
person sits at South), then every legal move is valued by searching its child
at DEEP_NODES (a value is the final store difference the engine expects, the
mover's view).  A puzzle is kept when the best move beats every other by at
least MIN_MARGIN stones; a cheap screen at SCREEN_NODES throws most candidates
away first.  Its difficulty is the smallest of the budgets in GRADE_BUDGETS at
which a plain search from the position finds the answer (1..3), 4 if none does.

The data file (firmware/mancala/data/puzzles_<variant>.txt) is read on the board
one line at a time (mancala.puzzles); its format is in that module.
"""

import os
import sys
import time

from mancala import puzzles as fw
from mancala.engine import LEVELS, Engine, Rng
from mancala.rules import MASK, N_STORE, OVER, POPCOUNT, S_STORE, SIDE, get_rules

VARIANTS = ("kalah", "oware", "mangala", "ranok")
DEEP_NODES = 40000  # per root move: ~12x what Master searches per move on a Pico
SCREEN_NODES = 3000
LINE_NODES = 12000  # the plies after the first of a line
LINE_PLIES = 3  # the solution line: the answer, the reply, our next move
REF_PLIES = 2  # a refutation: the opponent's reply and what follows it
MIN_MARGIN = 2  # stones the answer must win over the second-best move
GRADE_BUDGETS = (30, 300, 3000)  # nodes: difficulty 1, 2, 3 (4: none finds it)
TT_BITS = 16
PHASES = ((6, 16), (16, 36), (36, 90))  # plies of the game sampled: opening, middle, end
PER_PHASE_GAME = 2  # candidates taken from each phase of each game


def mirror(rules, pos):
    """The same position seen from the other seat (the rules are symmetric)."""
    counts = bytes(pos[7:14]) + bytes(pos[0:7])
    return rules.new_position(counts, 1 - pos[SIDE])


class Analyst:
    """Values every legal move of a position at a fixed node budget (reproducible:
    the engine's table is cleared at every search)."""

    def __init__(self, rules):
        self.rules = rules
        self.engine = Engine(rules, tt_bits=TT_BITS, seed=0)

    def move_values(self, pos, nodes):
        """{pit: (value in quarter stones for the mover, the reply pit or -1)}."""
        rules, e = self.rules, self.engine
        me = pos[SIDE]
        out = {}
        for pit in range(6):
            if not pos[MASK] >> pit & 1:
                continue
            child = bytearray(pos)
            fl = rules.move(child, pit)
            if fl & OVER or not child[MASK]:
                d = (child[S_STORE] - child[N_STORE]) * 4
                out[pit] = (-d if me else d, -1)
                continue
            e.search(child, nodes=nodes)
            v = e.qscore if child[SIDE] == me else -e.qscore
            out[pit] = (v, e.best_move)
        return out

    def best_line(self, pos, plies, nodes):
        """The engine's line from `pos`: up to `plies` pits (0..5), each side's best."""
        line = []
        p = bytearray(pos)
        for _ in range(plies):
            if not p[MASK]:
                break
            pit = self.engine.search(p, nodes=nodes)
            line.append(pit)
            self.rules.move(p, pit)
        return line

    def find_budget(self, pos, answer):
        for i, n in enumerate(GRADE_BUDGETS):
            if self.engine.search(pos, nodes=n) == answer:
                return i + 1
        return len(GRADE_BUDGETS) + 1

    def margin(self, values):
        """(best pit, its lead over the second-best in quarter stones)."""
        ranked = sorted(values.items(), key=lambda kv: (-kv[1][0], kv[0]))
        if len(ranked) < 2:
            return ranked[0][0], 0
        return ranked[0][0], ranked[0][1][0] - ranked[1][1][0]

    def puzzle(self, pos, screen=True):
        """A Puzzle from `pos` (South to move) or None when it has no single best move."""
        if POPCOUNT[pos[MASK]] < 2:
            return None
        if screen:
            best, lead = self.margin(self.move_values(pos, SCREEN_NODES))
            if lead < MIN_MARGIN * 4:
                return None
        values = self.move_values(pos, DEEP_NODES)
        best, lead = self.margin(values)
        if lead < MIN_MARGIN * 4:
            return None
        child = bytearray(pos)
        self.rules.move(child, best)
        line = [best] + self.best_line(child, LINE_PLIES - 1, LINE_NODES)
        refs = {}
        for pit, (_v, _reply) in sorted(values.items()):
            if pit == best:
                continue
            c = bytearray(pos)
            self.rules.move(c, pit)
            refs[pit] = self.best_line(c, REF_PLIES, LINE_NODES) if c[MASK] else []
        grade = self.find_budget(pos, best)
        return fw.Puzzle(self.rules.name, 0, grade, bytes(pos[0:14]), bytes(line),
                         (lead + 2) // 4, refs)


def candidates(rules, seed, phases=PHASES):
    """Positions (South to move) from one self-play game after a random opening."""
    rng = Rng(seed * 104729 + 3)
    players = [Engine(rules, tt_bits=12, seed=seed * 2 + s) for s in (0, 1)]
    levels = (LEVELS[1 + rng.below(3)], LEVELS[1 + rng.below(3)])
    pos = rules.start(rng.below(2))
    want = []
    for lo, hi in phases:
        for _ in range(PER_PHASE_GAME):
            want.append(lo + rng.below(hi - lo))
    opening = 2 + rng.below(5)
    ply = 0
    while pos[MASK] and ply < 200:
        if ply in want:
            yield mirror(rules, pos) if pos[SIDE] else bytearray(pos)
        mask = pos[MASK]
        if ply < opening:
            legal = [k for k in range(6) if mask >> k & 1]
            pit = legal[rng.below(len(legal))]
        else:
            side = pos[SIDE]
            pit = players[side].search(pos, level=levels[side])
        rules.move(pos, pit)
        ply += 1


def generate(variant, count=36, seconds=600, seed=1, progress=None):
    """Up to `count` puzzles of `variant` within about `seconds`, numbered 1..;
    `progress(found, games, candidates, elapsed)` after each game."""
    rules = get_rules(variant)
    analyst = Analyst(rules)
    found, seen = [], set()
    cap = max(1, count * 2 // 5)  # no difficulty takes more than 40%: easy ones abound
    t0 = time.monotonic()
    game = 0
    tried = 0
    while len(found) < count and time.monotonic() - t0 < seconds:
        game += 1
        for pos in candidates(rules, seed * 1000 + game):
            key = bytes(pos[0:14])
            if key in seen:
                continue
            seen.add(key)
            tried += 1
            p = analyst.puzzle(pos)
            if p is not None and sum(q.difficulty == p.difficulty for q in found) < cap:
                found.append(p)
                if len(found) >= count:
                    break
            if time.monotonic() - t0 >= seconds:
                break
        if progress:
            progress(len(found), game, tried, time.monotonic() - t0)
    found.sort(key=lambda p: p.difficulty)  # easy first: the order a player meets them
    for i, p in enumerate(found):
        p.number = i + 1
    return found


def format_line(p):
    """One data line of puzzle `p` (mancala/puzzles.py reads it)."""
    def digits(pits):
        return "".join(chr(49 + k) for k in pits)

    refs = ",".join("%d:%s" % (k + 1, digits(p.refs[k])) for k in sorted(p.refs))
    return "%d %s %s %d %s" % (p.difficulty, ",".join(str(c) for c in p.counts),
                              digits(p.line), p.margin, refs or "-")


def data_path(variant, root=None):
    root = root or os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "firmware", "mancala", "data")
    return os.path.join(root, "puzzles_%s.txt" % variant)


def write(variant, found, path, seconds):
    counts = [sum(1 for p in found if p.difficulty == d) for d in range(1, 5)]
    with open(path, "w") as f:
        f.write("# mancala puzzles %s v%d: %d puzzles, difficulty 1..4: %s; %.0f s to make\n"
                % (variant, fw.FORMAT, len(found), " ".join(map(str, counts)), seconds))
        f.write("# DIFFICULTY COUNTS LINE MARGIN REFUTATIONS (docs/PUZZLES.md); South moves\n")
        for p in found:
            f.write(format_line(p) + "\n")


def verify(variant, path=None, sample=None, out=sys.stdout):
    """Re-check puzzles of a data file at the deep budget: each answer still the only
    best move by MIN_MARGIN stones, each line and refutation legal.  Returns the
    list of (number, problem) found."""
    rules = get_rules(variant)
    analyst = Analyst(rules)
    path = path or data_path(variant)
    with open(path) as f:
        lines = [ln for ln in f if ln.strip() and not ln.startswith("#")]
    numbers = list(range(1, len(lines) + 1))
    if sample is not None and sample < len(numbers):
        step = len(numbers) / sample
        numbers = [numbers[int(i * step)] for i in range(sample)]
    problems = []
    for n in numbers:
        p = fw.parse_line(variant, n, lines[n - 1])
        problems += [(n, why) for why in check_puzzle(rules, analyst, p)]
        print("%s %d: %s" % (variant, n, "ok" if not problems or problems[-1][0] != n else "FAILED"),
              file=out)
    return problems


def check_puzzle_lines(rules, p):
    """What is illegal in puzzle `p`'s position, line or refutations ([]: nothing)."""
    pos = p.position(rules)
    if not pos[MASK]:
        return ["the position is over"]
    why = []
    tries = [(None, p.line, "the line")]
    tries += [(k, p.refutation(k), "the refutation of %d" % (k + 1))
              for k in range(6) if k != p.answer and pos[MASK] >> k & 1]
    for first, pits, what in tries:
        q = bytearray(pos)
        if first is not None:
            rules.move(q, first)
        for pit in pits:
            if not q[MASK] >> pit & 1:
                why.append("%s: pit %d is not legal" % (what, pit + 1))
                break
            rules.move(q, pit)
    return why


def check_puzzle(rules, analyst, p):
    """What is wrong with puzzle `p` ([]: nothing): an illegal line, or an answer
    that is not the single best move by MIN_MARGIN stones at DEEP_NODES."""
    why = check_puzzle_lines(rules, p)
    if why:
        return why
    values = analyst.move_values(p.position(rules), DEEP_NODES)
    best, lead = analyst.margin(values)
    if best != p.answer:
        why.append("the best move at %d nodes is %d, not %d" % (DEEP_NODES, best + 1, p.answer + 1))
    elif lead < MIN_MARGIN * 4:
        why.append("the answer leads by %.2f stones only" % (lead / 4))
    return why


def _progress(variant):
    def show(found, games, tried, elapsed):
        print("\r%s: %d puzzles from %d games (%d positions tried), %.0f s"
              % (variant, found, games, tried, elapsed), end="", file=sys.stderr, flush=True)
    return show


def main(argv=None):
    from host_tools.argkit import Parser, UsageError, int_type

    p = Parser(prog="mancala puzzles", description="Make, check and show the board's puzzles.")
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate", help="make the data files (make puzzles)")
    g.add_argument("--variant", choices=VARIANTS, action="append")
    g.add_argument("--count", type=int_type("--count", 1, 200), default=36)
    g.add_argument("--seconds", type=int_type("--seconds", 1, 36000), default=900,
                   help="time budget per variant")
    g.add_argument("--seed", type=int_type("--seed", 0, 10 ** 6), default=1)
    g.add_argument("--out", help="folder of the data files (default: the firmware's)")
    v = sub.add_parser("verify", help="re-check the puzzles at the deep budget")
    v.add_argument("--variant", choices=VARIANTS, action="append")
    v.add_argument("--sample", type=int_type("--sample", 1, 1000))
    s = sub.add_parser("show", help="draw a puzzle and its solution")
    s.add_argument("variant", choices=VARIANTS)
    s.add_argument("number", type=int)
    a = p.parse_args(argv)
    if a.cmd == "generate":
        for variant in a.variant or VARIANTS:
            t0 = time.monotonic()
            found = generate(variant, a.count, a.seconds, a.seed, _progress(variant))
            dt = time.monotonic() - t0
            path = data_path(variant, a.out)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            write(variant, found, path, dt)
            print("\n%s: %d puzzles in %.0f s -> %s" % (variant, len(found), dt, path),
                  file=sys.stderr)
            if len(found) < a.count:
                print("%s: only %d of %d puzzles in the time given" % (variant, len(found), a.count),
                      file=sys.stderr)
        return 0
    if a.cmd == "verify":
        bad = []
        for variant in a.variant or VARIANTS:
            bad += [(variant,) + b for b in verify(variant, sample=a.sample)]
        for variant, n, why in bad:
            print("%s %d: %s" % (variant, n, why))
        return 1 if bad else 0
    from host_tools.board_text import draw

    rules = get_rules(a.variant)
    with open(data_path(a.variant)) as f:
        total = fw.count_in(f)
    if not 1 <= a.number <= total:  # the set's own size, not the parser's sanity bound
        raise UsageError("%s has %d puzzles: the number must be 1..%d, got %d"
                         % (a.variant, total, total, a.number))
    with open(data_path(a.variant)) as f:
        puzzle = fw.read_from(f, a.variant, a.number)
    if puzzle is None:
        raise UsageError("%s has no puzzle %d" % (a.variant, a.number))
    for line in draw(rules, puzzle.position(rules)):
        print(line)
    print("puzzle %s %d, difficulty %d: play %d (%s), %d stones better than any other"
          % (a.variant, a.number, puzzle.difficulty, puzzle.answer + 1,
             " ".join(str(k + 1) for k in puzzle.line), puzzle.margin))
    for k in sorted(puzzle.refs):
        print("  %d is refuted by %s" % (k + 1, " ".join(str(x + 1) for x in puzzle.refs[k]) or
                                          "(the game ends)"))
    return 0
