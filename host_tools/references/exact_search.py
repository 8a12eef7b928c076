"""Exact values of Kalah positions with up to ~24 seeds on the board, by search.

`exact.py` enumerates everything reachable (a memoized full minimax): exact, but 18
seeds already take 36 s and 10 million memo entries.  This solver searches instead:
fail-soft alpha-beta (negamax) over the pits alone, with

* a transposition table of bounds (lower, upper) per position, so a position met
  again (and every re-search) reuses what is proven about it;
* MTD(f)-style null-window probes converging on each root move's exact value,
  started from the previous move's value;
* move ordering: the table's best move first, then extra turns, captures, the rest;
* the value's natural bounds: a side can gain at most the seeds still in play;
* the endgame table at the leaves (`mancala.tablebase`, docs/TABLEBASE.md): a
  position with at most its N seeds on the board is looked up, not searched.  Its
  entry is the future score of the side to move for the seeds still in play, the
  same quantity `value()` returns (the stores do not enter it).

The value convention is exact.py's: what the side to move gains from here on with
best play by both, (its store - the opponent's) at the end minus the same now.  It
depends on the pits alone, so positions are keyed by their 12 counts seen from the
side to move (its row first).  The loss of a move is the best move's value minus
the move's: exact, not just the best move (the coach's classes need the loss).

The rules are Kalah's as `mancala.rules.Kalah.move` plays them (its tests check
this solver against exact.py, which plays through that core): sowing skips the
opponent's store and passes the origin on later laps; the last stone in the
mover's store gives an extra turn; the last stone in an empty own pit captures it
with the opposite pit when that pit is not empty; when either row is empty after a
move the game ends and each side takes its own row.

    python -m host_tools.references.exact_search "kalah 1,0,3,0,0,2,20,0,1,0,2,1,0,18 S"
    python -m host_tools.references.exact_search --table build/tables/kalah-10.tb POS
"""

import sys
from operator import add

from mancala.rules import MASK, SIDE

sys.setrecursionlimit(10000)

CYCLE = 13  # the mover's 6 pits, its store, the opponent's 6 pits
STORE = -1  # "the last stone fell in the mover's store"
MAX_PIT = 48  # sowing tables cover pits of up to 48 stones (a whole kalah game)


def _sowing_tables():
    """SOW[i][n] = (increments of the 12 pits, stones into the store, last pit or
    STORE or 6..11) for sowing n stones from the mover's pit i: the child's pits are
    the parent's plus the increments (the origin's -n included)."""
    table = []
    for i in range(6):
        row = [None]
        for n in range(1, MAX_PIT + 1):
            inc = [0] * 12
            inc[i] -= n
            store = 0
            c = i
            for _ in range(n):
                c = (c + 1) % CYCLE
                if c < 6:
                    inc[c] += 1
                elif c == 6:
                    store += 1
                else:
                    inc[c - 1] += 1
            last = c if c < 6 else (STORE if c == 6 else c - 1)
            row.append((tuple(inc), store, last))
        table.append(tuple(row))
    return tuple(table)


SOW = _sowing_tables()


def _order(kid):
    # extra turns first, then the larger immediate gain
    return (kid[1] != 1, -kid[0])


class TableLeaves:
    """An endgame table held in memory (the file's entries as one bytes object) and
    ranked as mancala.tablebase.Ranker ranks positions: value(pits, seeds) for the
    12 counts seen from the side to move."""

    def __init__(self, path):
        from mancala.tablebase import HEADER, OFFSET, Table

        with open(path, "rb") as f:
            t = Table(f, "kalah", check=True)
            f.seek(HEADER)
            self.entries = f.read(t.entries)
        self.seeds = t.seeds
        r = t.ranker
        w = r.width
        # ways[k][m] for k pits left (12 down to 2) and m stones: rows as tuples
        self.ways = tuple(tuple(r.ways[k * w:(k + 1) * w]) for k in range(14))
        self.first = r.first
        self.offset = OFFSET

    def value(self, b, n):
        ways = self.ways
        idx = self.first[n]
        r = n
        k = 12
        for i in range(11):
            c = b[i]
            if c:
                w = ways[k]
                idx += w[r] - w[r - c]
                r -= c
            k -= 1
        v = self.entries[idx]
        if v == 255:  # pragma: no cover - kalah tables have no unknown entries
            raise ValueError("table entry unknown")
        return v - self.offset


class KalahSearchSolver:
    """Exact Kalah values by alpha-beta over the pits (see the module's doc)."""

    def __init__(self, table=None, tt_limit=2000000):
        """`table`: a TableLeaves, a table file's path, or None (search to the end)."""
        if isinstance(table, str):
            table = TableLeaves(table)
        self.table = table
        self.tseeds = table.seeds if table is not None else -1
        self.tt = {}
        self.tt_limit = tt_limit
        self.nodes = 0

    # -- the search ------------------------------------------------------------

    def _children(self, b):
        """[(gain, kind, child)] of the pits b (mover first), ordered for the search:
        kind 0 the game ended (gain is final), 1 an extra turn (child seen from the
        same mover), 2 the opponent moves (child seen from it)."""
        out = []
        for i in range(6):
            n = b[i]
            if not n:
                continue
            inc, gain, last = SOW[i][n]
            c = list(map(add, b, inc))
            if 0 <= last < 6 and c[last] == 1 and c[11 - last]:
                gain += 1 + c[11 - last]
                c[11 - last] = 0
                c[last] = 0
            own = c[0] + c[1] + c[2] + c[3] + c[4] + c[5]
            opp = c[6] + c[7] + c[8] + c[9] + c[10] + c[11]
            if not own or not opp:  # a row is empty: each side takes its own row
                out.append((gain + own - opp, 0, None, i))
            elif last == STORE:
                out.append((gain, 1, tuple(c), i))
            else:
                out.append((gain, 2, tuple(c[6:] + c[:6]), i))
        return out

    def _search(self, b, n, alpha, beta):
        """The value of pits b (n seeds on them) for the mover, fail-soft within
        (alpha, beta): exact when strictly inside, else a bound on the right side."""
        self.nodes += 1
        if n <= self.tseeds:
            return self.table.value(b, n)
        tt = self.tt
        e = tt.get(b)
        best_i = -1
        if e is not None:
            lo, hi, best_i = e
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        else:
            lo, hi = -n, n
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
        a0 = alpha
        kids = self._children(b)
        # order: the table's best move, extra turns, big gains
        kids.sort(key=_order)
        if best_i >= 0:
            for j in range(1, len(kids)):
                if kids[j][3] == best_i:
                    kids.insert(0, kids.pop(j))
                    break
        best = -1000
        bi = -1
        for gain, kind, c, i in kids:
            if kind == 0:
                v = gain
            elif kind == 1:
                v = gain + self._search(c, n - gain, alpha - gain, beta - gain)
            else:
                v = gain - self._search(c, n - gain, gain - beta, gain - alpha)
            if v > best:
                best = v
                bi = i
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        break
        if best <= a0:
            hi = best
        elif best >= beta:
            lo = best
        else:
            lo = hi = best
        if len(tt) >= self.tt_limit:
            tt.clear()
        tt[b] = (lo, hi, bi)
        return best

    def solve(self, b, n, guess=0):
        """The exact value of pits b (n seeds) by MTD(f) from `guess`: null-window
        probes, each proving a bound, until the bounds meet."""
        lower, upper = -n, n  # a side gains at most the seeds in play
        g = min(max(guess, lower), upper)
        while lower < upper:
            beta = g + 1 if g == lower else g
            g = self._search(b, n, beta - 1, beta)
            if g < beta:
                upper = g
            else:
                lower = g
        return lower

    # -- positions (mancala.rules bytearrays) ------------------------------------

    @staticmethod
    def pits(pos):
        """The 12 counts of `pos` seen from the side to move (its row first)."""
        if pos[SIDE]:
            return tuple(pos[7:13]) + tuple(pos[0:6])
        return tuple(pos[0:6]) + tuple(pos[7:13])

    def move_values(self, pos):
        """{pit: exact value of playing it} (what the mover gains from now on)."""
        if not pos[MASK]:
            return {}
        b = self.pits(pos)
        n = sum(b)
        out = {}
        guess = 0
        for gain, kind, c, i in self._children(b):
            if kind == 0:
                out[i] = gain
                continue
            if kind == 1:
                v = self.solve(c, n - gain, guess - gain)
                out[i] = gain + v
            else:
                v = self.solve(c, n - gain, gain - guess)
                out[i] = gain - v
            guess = out[i]
        return out

    def value(self, pos):
        """What the side to move of `pos` gains from now on, with best play."""
        vals = self.move_values(pos)
        return max(vals.values()) if vals else 0

    def move_value(self, pos, pit):
        return self.move_values(pos)[pit]

    def losses(self, pos):
        """{pit: stones lost against the best move} for each legal move of `pos`."""
        vals = self.move_values(pos)
        best = max(vals.values())
        return {pit: best - v for pit, v in vals.items()}


def main(argv=None):
    import time

    from host_tools.references.exact import seeds_on_board
    from mancala.notation import parse_position

    argv = sys.argv[1:] if argv is None else list(argv)
    table = None
    if argv[:1] == ["--table"]:
        table = argv[1]
        argv = argv[2:]
    if not argv:
        print(__doc__)
        return 2
    _, pos = parse_position(" ".join(argv))
    s = KalahSearchSolver(table)
    t0 = time.monotonic()
    vals = s.move_values(pos)
    best = max(vals.values()) if vals else 0
    print("value %+d (side to move), %d seeds on the board" % (best, seeds_on_board(pos)))
    for pit, v in sorted(vals.items()):
        print("move %d: value %+d, loses %d" % (pit + 1, v, best - v))
    print("%d nodes, %d table entries, %.2f s" % (s.nodes, len(s.tt), time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
