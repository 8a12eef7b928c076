"""Exact values of small Kalah positions (few seeds on the board), to measure the
engine's grades against: a full minimax over the positions reachable, memoized.

The value of a position is what the side to move gains from here on with best
play by both, in stones: (its store - the opponent's store) at the end minus the
same now.  It depends only on the pits and the side to move (Kalah's end: a side
that cannot move ends the game, each side takes its own row), so the memo keys on
the pits alone, seen from the side to move.  The loss of a move is the best move's
value minus this move's.

    python -m host_tools.references.exact "kalah 1,0,3,0,0,2,20,0,1,0,2,1,0,18 S"

(A tablebase, when the project has one, replaces this.)
"""

import sys

from mancala.rules import EXTRA, MASK, OVER, SIDE, get_rules

sys.setrecursionlimit(10000)


class KalahSolver:
    def __init__(self, rules=None):
        self.rules = rules or get_rules("kalah")
        assert self.rules.name == "kalah"
        self.memo = {}

    def value(self, pos):
        """What the side to move of `pos` gains from now on, with best play."""
        side = pos[SIDE]
        if side:
            key = bytes(pos[7:13]) + bytes(pos[0:6])
        else:
            key = bytes(pos[0:6]) + bytes(pos[7:13])
        v = self.memo.get(key)
        if v is None:
            v = None
            for pit in range(6):
                if pos[MASK] >> pit & 1:
                    m = self.move_value(pos, pit)
                    if v is None or m > v:
                        v = m
            if v is None:  # no move (a finished position): nothing more to gain
                v = 0
            self.memo[key] = v
        return v

    def move_value(self, pos, pit):
        """What the side to move gains from now on by playing `pit`, then best play."""
        rules = self.rules
        side = pos[SIDE]
        c = bytearray(pos)
        fl = rules.move(c, pit)
        own, opp = (6, 13) if side == 0 else (13, 6)
        gain = (c[own] - pos[own]) - (c[opp] - pos[opp])
        if fl & OVER:
            return gain
        if fl & EXTRA or c[SIDE] == side:
            return gain + self.value(c)
        return gain - self.value(c)

    def losses(self, pos):
        """{pit: stones lost against the best move} for each legal move of `pos`."""
        vals = {pit: self.move_value(pos, pit) for pit in range(6) if pos[MASK] >> pit & 1}
        best = max(vals.values())
        return {pit: best - v for pit, v in vals.items()}


def seeds_on_board(pos):
    return sum(pos[0:6]) + sum(pos[7:13])


def sample(games=20, max_seeds=14, seed=1, out=None, nodes=2000):
    """Positions of engine self-play games after random 4-ply openings, each legal
    move's exact loss: one line per position with at most `max_seeds` seeds on the
    board, 'kalah C1,...,C14 S|N  L1 L2 .. L6' (a loss per pit 1..6, '-' illegal)."""
    import random

    from mancala.engine import Engine
    from mancala.game import Game
    from mancala.notation import format_position

    rules = get_rules("kalah")
    rng = random.Random(seed)
    solver = KalahSolver(rules)
    lines = []
    for _ in range(games):
        g = Game(rules)
        eng = Engine(rules, seed=rng.randrange(1 << 16))
        eng.keep = True
        while not g.over:
            legal = [k for k in range(6) if g.pos[MASK] >> k & 1]
            if g.ply < 4:
                pit = rng.choice(legal)
            else:
                pit = eng.search(g.pos, nodes=nodes)
            if seeds_on_board(g.pos) <= max_seeds and len(legal) > 1:
                ls = solver.losses(g.pos)
                line = "%s  %s" % (format_position(rules, g.pos), " ".join(
                    str(ls[k]) if k in ls else "-" for k in range(6)))
                lines.append(line)
                if out is not None:
                    out.write(line + "\n")
                    out.flush()
            g.play(pit)
        if len(solver.memo) > 3000000:
            solver.memo.clear()
    return lines


def loss_class(stones):
    """The grade index (engine.GRADES) a loss of `stones` belongs to."""
    from mancala.engine import GRADE_LIMITS

    if stones <= 0:
        return 0
    for i in range(4):
        if stones <= GRADE_LIMITS[i]:
            return i + 1
    return 5


def read_set(path):
    """[(position, {pit: exact loss})] from a file written by sample()."""
    from mancala.notation import parse_position

    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            w = line.split()
            _, pos = parse_position(" ".join(w[:3]))
            out.append((pos, {k: int(x) for k, x in enumerate(w[3:9]) if x != "-"}))
    return out


def measure_grades(cases, grade):
    """The coach against exact losses: `grade(pos, pit)` -> (grade index, ...).
    Returns (moves, right class, moves losing 5+ graded best/excellent/good,
    moves losing 5+)."""
    n = right = missed = big = 0
    for pos, losses in cases:
        for pit, loss in losses.items():
            g = grade(pos, pit)[0]
            n += 1
            right += g == loss_class(loss)
            if loss >= 5:
                big += 1
                missed += g <= 2
    return n, right, missed, big


def main(argv=None):
    from mancala.notation import parse_position

    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--sample":  # --sample GAMES MAX_SEEDS [SEED]
        sample(int(argv[1]), int(argv[2]), int(argv[3]) if len(argv) > 3 else 1, sys.stdout)
        return 0
    if not argv:
        print(__doc__)
        return 2
    rules, pos = parse_position(" ".join(argv))
    s = KalahSolver(rules)
    side = pos[SIDE]
    print("value %+d (side to move), %d seeds on the board" % (s.value(pos), seeds_on_board(pos)))
    for pit, loss in sorted(s.losses(pos).items()):
        print("move %d loses %d" % (pit + 1, loss))
    print("positions solved: %d" % len(s.memo))
    return 0 if side in (0, 1) else 1


if __name__ == "__main__":
    sys.exit(main())
