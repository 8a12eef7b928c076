"""The board's opponent and coach: iterative deepening alpha-beta for all variants.

Written for MicroPython bytecode on a Pico / ESP32 and unchanged in CPython:

* The search is negamax alpha-beta driven by an explicit stack (one set of
  preallocated per-ply arrays), not by recursion, so it can stop after any
  number of nodes and resume: `step(n)` runs one slice and returns, the board
  keeps animating and reading its pits between slices; `stop()` ("move now")
  ends it at once with a legal best move.
* Extra turns: a child where the same side moves again keeps the score's sign
  and its window (no negation); the move does not use up depth (an extension),
  so chains of extra turns are searched to the end.
* Game ends are scored by the final store difference of the variant's rules
  (the rules core applies the sweep / the 25-stone limit before we see it).
* A transposition table of 2**tt_bits entries in two arrays allocated once,
  keyed by a Zobrist hash of 30-bit values (XOR of values < 2**30 stays below
  2**30: no big ints on the device).
* Move ordering: the table move, then a guess at the immediate gain from where the
  last stone lands (extra turn, capture size), without playing the move.  Children
  are made one at a time into a per-ply buffer (one memcpy plus a sowing), so a
  cutoff saves the rest; after the first, they get a null window (PVS).
* The frontier (kalah, oware): the children of a depth-1 node are valued from the
  parent's counts without being made (frontier_kalah / frontier_oware below).
* Node counting: one node = one child made or valued.  A node limit is exact (the
  search never goes past it) and the result does not depend on the slice sizes.

Scores are in quarter stones inside (SCALE); `score` and grades speak stones.

Where a port has a native emitter, the same search runs as machine code
(mancala/native.py: `_run`, the quiescence, the frontiers and the sowings in
viper, node for node the same tree); this bytecode stays the reference and runs
everywhere else (docs/ENGINE.md, "Native kernels").
"""

from mancala.compat import const
from mancala.rules import EXTRA, MASK, OVER, POPCOUNT, POS_LEN, SIDE

try:
    from array import array
except ImportError:  # pragma: no cover - very old MicroPython
    from uarray import array  # type: ignore

try:
    from time import ticks_ms as _ticks_ms  # MicroPython
except ImportError:  # CPython
    import time as _time

    def _ticks_ms():
        return int(_time.monotonic() * 1000) & 0x3FFFFFFF  # type: ignore[attr-defined]

try:  # the machine-code kernels: only a port with a native emitter compiles them
    from mancala import native as _native
except Exception:  # CPython (no micropython), the WebAssembly VM (rejects native code)
    _native = None
# sys.implementation._mpy >> 10 -> mpy-cross's -march name (py/persistentcode.h's
# MP_NATIVE_ARCH_*; host_tools/runners/mpycompile.py builds native code by it)
ARCHS = (None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp",
          "armv7emdp", "xtensa", "xtensawin", "rv32imc", "rv64imc")


def native_arch():
    """The CPU the machine code runs on (mpy-cross's -march name), or None."""
    if _native is None:
        return None
    import sys

    a = getattr(sys.implementation, "_mpy", 0) >> 10
    return ARCHS[a] if a < len(ARCHS) else None


LEVELS = ("beginner", "amateur", "strong", "master")
GRADES = ("best", "excellent", "good", "inaccuracy", "mistake", "blunder")

# A Pico's node rate per variant: the MicroPython VM's measured rate (`mancala
# bench`) / PICO_FACTOR, the VM-to-RP2040 ratio measured on a cycle-counting
# RP2040 model (docs/ENGINE.md has the derivation).  The simulated board's clock
# charges a node at this rate.
PICO_FACTOR = 30
PICO_NODES_PER_S = {"kalah": 1820, "mangala": 1190, "oware": 1380, "ranok": 1120}
# ... of a search with quiescence (QUIESCE below: Master, hints, pondering), which
# makes every leaf instead of valuing it from its parent: 0.67x (VM, measured; 0.6x
# before its leaves' evaluation was written out term by term, issue 13's third round)
PICO_QUIESCE_NODES_PER_S = {"kalah": 1220}
# On the board Master thinks MASTER_MS of its clock (its deadline); for reproducible
# play (tests, matches, the lower levels' scale) its node budget is what a Pico
# searches in that time.
MASTER_MS = 2000
MASTER_NODES = {"kalah": 2150, "mangala": 2100, "oware": 2400, "ranok": 2000}
# Lower levels: a fixed budget (Master's for "master"), and root noise in
# quarter stones (uniform in [-n, n], drawn from the engine's seed).
LEVEL_NODES = (20, 70, 250, 0)
LEVEL_NOISE = (16, 10, 4, 0)
# Mangala's levels sit closer together (depth buys less there): wider steps.
VARIANT_LEVELS = {"mangala": ((6, 40, 150, 0), (40, 14, 6, 0))}


def level_nodes(rules, li):
    """The node budget of level index `li` (0 beginner .. 3 master) for `rules`."""
    t = VARIANT_LEVELS.get(rules.name)
    n = t[0][li] if t else LEVEL_NODES[li]
    return n if n else MASTER_NODES.get(rules.name, 1300)


def level_noise(rules, li):
    """Root noise of level index `li` for `rules`, in quarter stones."""
    t = VARIANT_LEVELS.get(rules.name)
    return t[1][li] if t else LEVEL_NOISE[li]

# The machine-code kernels (mancala.native) search 13-17x the nodes of the bytecode
# on an RP2040 (docs/ENGINE.md, "Native kernels": measured on the RP2040 model).  Per
# CPU they run on (sys.implementation._mpy >> 10 names it): Master's node budget per
# variant (what it searches in MASTER_MS: its level's budget, the board's node cap),
# the coach's grading budget and the pondering cap.  A CPU without an entry (the unix
# port's x64: tests, the PC) keeps the bytecode Pico's numbers, and the lower levels
# keep theirs everywhere (the ladder's steps are the same).
NATIVE_BUDGETS = {
    # (Master's nodes per variant, grading nodes, pondering cap)
    # (RP2040 model, one run: native Master nodes in 2 s, the lower of two positions
    # per variant, kalah 36,043, mangala 39,872, oware 49,279, ranok 27,712; the
    # budget ~85% of it.  Grading 48,000: ~1.7 s (kalah) to 3.4 s (ranok), as 6,000
    # took the bytecode.  Pondering: 15x the bytecode's 30,000, as Master's.)
    "armv6m": ({"kalah": 30000, "mangala": 34000, "oware": 42000, "ranok": 23000},
               48000, 450000),
}
# The Pico 2 (RP2350: Cortex-M33 at 150 MHz, armv7emsp) and the ESP32 (240 MHz,
# xtensawin) are not modelled; both are faster than the RP2040 per node, so they
# get its budgets until measured on the chip (`mancala bench` on the board).
NATIVE_BUDGETS["armv7emsp"] = NATIVE_BUDGETS["armv6m"]
NATIVE_BUDGETS["xtensawin"] = NATIVE_BUDGETS["armv6m"]
# step_for's chunk (nodes between clock reads) is in bytecode nodes: a native node
# costs about 1/15 of one, so the kernel's chunk is this many times longer (same ms).
KERNEL_CHUNK = 8

# Grade thresholds: the largest loss (stones vs the best move) of each grade after
# "best" (loss 0); anything above the last is a blunder.  docs/ENGINE.md.
GRADE_LIMITS = (1, 2, 4, 7)
GRADE_NODES = 6000  # default grading budget (~3.5 s on a Pico, begun at the tap)

SCALE = const(4)  # score units per stone
INF = const(30000)
MAXPLY = const(40)  # deepest ply of the stack (iterations stop below it)
MAXDEPTH = const(32)
ZSTRIDE = const(80)  # zobrist values per board index (counts 0..79)
M30 = const(0x3FFFFFFF)

EXACT = const(1)
LOWER = const(2)
UPPER = const(3)

# Evaluation: stones of the side to move's own row, in quarter stones, per variant.
# In kalah and mangala the row is likely to end up in its owner's store (sweeps);
# docs/ENGINE.md has the match that decided each weight.
ROW_WEIGHT = {"kalah": 0, "mangala": 1, "oware": 1, "ranok": 1}
# ... and per stone of the side to move's best capture at once (kalah, mangala).
THREAT_WEIGHT = {"kalah": 0, "mangala": 0, "oware": 0, "ranok": 0}
# ... and per empty pit of the opponent's row, minus per empty pit of one's own.
EMPTY_WEIGHT = {"kalah": 5, "oware": 5}
# ... and per stone of one's own row that its pit's move would sow into the
# opponent's row, against (oware: such stones feed the opponent).
EXPORT_WEIGHT = {"oware": 1}
# ... and at the leaves of a search with quiescence (Master's: they are quiet, the
# side to move's captures and extra turns played out), if not EMPTY_WEIGHT.  (Kalah 6
# won 53.8% engine against engine but not against MCTS-20000: docs/ENGINE.md.)
QUIESCE_EMPTY_WEIGHT = {}  # type: dict
# Quiescence at the horizon: a leaf's side to move may stand pat (its static value)
# or play on its captures and extra turns, up to QUIESCE plies beyond the horizon
# (0: off, leaves are static).  docs/ENGINE.md has the matches that set it.
QUIESCE = {"kalah": 4}
QMAX = const(8)  # deepest quiescence ply (buffers made once)
# The nodes one leaf's quiescence may make (it runs at once, not in slices): 98.6%
# of Master's kalah leaves need at most 8, the most seen was 38 (35 ms of a Pico).
QNODES = const(8)


class Rng:
    """A 30-bit xorshift: small ints only, reproducible on every port."""

    def __init__(self, seed):
        self.x = (seed * 2654435761 + 0x1234567) & M30 or 1

    def next(self):
        x = self.x
        x ^= (x & 0x1FFFF) << 13
        x ^= x >> 17
        x ^= (x & 0x1FFFFFF) << 5
        self.x = x
        return x

    def below(self, n):
        return self.next() % n


def evaluate(pos, side, w, tw, paths, ew=0, xw=0):
    """Static value of `pos` for `side` in quarter stones (any side to move).

    Store difference, plus `w` per stone of one's own row, plus `ew` per empty pit
    of the opponent's row minus per empty pit of one's own, minus `xw` per stone of
    one's row that its pit's move would sow into the opponent's row (a stone beyond
    5 - pit: in oware it feeds the opponent), plus `tw` per stone of the best capture
    the side to move could make at once (kalah's capture rule, for kalah and
    mangala: a one-ply look at the threat the horizon would otherwise hide; off,
    docs/ENGINE.md).  The frontiers
    take the same weights and give the same values without making the child."""
    a = pos[0] + pos[1] + pos[2] + pos[3] + pos[4] + pos[5]
    b = pos[7] + pos[8] + pos[9] + pos[10] + pos[11] + pos[12]
    v = (pos[6] - pos[13]) * SCALE + (a - b) * w
    if ew:
        e = 0
        for i in range(6):
            if not pos[i]:
                e += 1
            if not pos[7 + i]:
                e -= 1
        v -= e * ew
    if xw:
        e = 0
        for i in range(6):
            if pos[i] > 5 - i:
                e += pos[i] - 5 + i
            if pos[7 + i] > 5 - i:
                e -= pos[7 + i] - 5 + i
        v -= e * xw
    if side:
        v = -v
    if tw:
        stm = pos[SIDE]
        own0 = stm * 7
        best = 0
        for pit in range(6):
            c = pos[own0 + pit]
            if c and c < 13:
                last = paths[stm * 6 + pit][c - 1]
                if own0 <= last < own0 + 6 and not pos[last]:
                    g = pos[12 - last]
                    if g > best:
                        best = g
        if best:
            best += 1
            v += best * tw if stm == side else -best * tw
    return v


# -- the frontier -----------------------------------------------------------------
# At a node of depth 1 every child is a leaf, and a leaf's value (store difference
# plus row weight, or the final difference when the game ends) follows from the
# parent's stores and row sums and from where the move's stones fall: for fewer
# stones than a lap, a sowing from a pit is a fixed run of own pits, the store,
# the opponent's pits, own pits again.  So the frontier values its children
# without copying and sowing them, about 4x cheaper per child in MicroPython.  A
# child it cannot value that way (an extra turn, a lap, a row left empty that the
# opponent must feed) stops it; the search makes the rest of the children as usual.
# Each child valued counts as one node, as one made would.
#
# The result is packed in one small int (no tuple allocated per node):
# (best + 32768) << 8 | stop pit << 5 | children valued << 2 | stopped << 1 | cut,
# where "cut" says a leaf was scored by the evaluation (the depth limit mattered).

FR_CUT = const(1)
FR_STOPPED = const(2)


def frontier_kalah(pos, alpha, beta, left, w, half, ew, xw):
    """Kalah: the best child value of `pos` for its side to move (packed, above)."""
    side = pos[14]
    own0 = side * 7
    opp0 = 7 - own0
    a = pos[own0] + pos[own0 + 1] + pos[own0 + 2] + pos[own0 + 3] + pos[own0 + 4] \
        + pos[own0 + 5]
    b = pos[opp0] + pos[opp0 + 1] + pos[opp0 + 2] + pos[opp0 + 3] + pos[opp0 + 4] \
        + pos[opp0 + 5]
    s = pos[own0 + 6]
    t = pos[opp0 + 6]
    eo = ep = 0  # empty pits of each row, as bit masks
    if ew:
        for i in range(6):
            if not pos[own0 + i]:
                eo |= 1 << i
            if not pos[opp0 + i]:
                ep |= 1 << i
    mask = pos[15]
    bv = -INF
    used = 0
    cut = 0
    for pit in range(6):
        if not mask >> pit & 1:
            continue
        n = pos[own0 + pit]
        r = 5 - pit  # stones before the store
        if n == r + 1 or n > 12 or used >= left:  # extra turn, a lap, the node limit
            return ((bv + 32768) << 8) | (pit << 5) | (used << 2) | FR_STOPPED | cut
        used += 1
        taken = 0  # own pit | the opponent's pit << 6 emptied by a capture (bit masks)
        if n <= r:  # within the own row
            s2 = s
            a2 = a
            b2 = b
            sown = ((1 << n) - 1) << (pit + 1)  # own pits that get a stone
            filled = 0  # ... and the opponent's
            last = own0 + pit + n
            if not pos[last] and pos[12 - last]:  # lands in an empty pit: capture
                g = pos[12 - last]
                s2 = s + g + 1
                a2 = a - 1
                b2 = b - g
                taken = (1 << (pit + n)) | (1 << (11 - pit - n))
        else:
            k = n - r - 1  # stones past the store
            s2 = s + 1
            sown = ((1 << r) - 1) << (pit + 1)
            if k <= 6:
                filled = (1 << k) - 1
                a2 = a - n + r
                b2 = b + k
            else:  # round into the own row again, up to the pit before the origin
                filled = 63
                sown |= (1 << (k - 6)) - 1
                a2 = a - n + r + k - 6
                b2 = b + 6
                last = own0 + k - 7
                if not pos[last]:  # empty before: capture (its opposite was sown)
                    g = pos[12 - last] + 1
                    s2 += g + 1
                    a2 -= 1
                    b2 -= g
                    taken = (1 << (k - 7)) | (1 << (18 - k))
        if a2 and b2:
            v = (s2 - t) * SCALE + (a2 - b2) * w
            if ew:  # empty pits after the move: theirs count for us
                v += (POPCOUNT[(ep & ~filled) | taken >> 6]
                      - POPCOUNT[(eo & ~sown) | (1 << pit) | (taken & 63)]) * ew
            cut = FR_CUT
        else:  # a row is empty: each side takes its own row
            v = (s2 + a2 - t - b2) * SCALE
        if v > bv:
            bv = v
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    return ((bv + 32768) << 8) | (7 << 5) | (used << 2) | cut


def frontier_oware(pos, alpha, beta, left, w, half, ew, xw):
    """Oware: the best child value of `pos` for its side to move (packed, above)."""
    # (The opening lines repeat frontier_kalah's: a shared helper would hand back
    # a tuple, an allocation per node.)
    side = pos[14]
    own0 = side * 7
    opp0 = 7 - own0
    a = pos[own0] + pos[own0 + 1] + pos[own0 + 2] + pos[own0 + 3] + pos[own0 + 4] \
        + pos[own0 + 5]
    b = pos[opp0] + pos[opp0 + 1] + pos[opp0 + 2] + pos[opp0 + 3] + pos[opp0 + 4] \
        + pos[opp0 + 5]
    s = pos[own0 + 6]
    t = pos[opp0 + 6]
    eo = ep = 0  # empty pits of each row, as bit masks
    if ew:
        for i in range(6):
            if not pos[own0 + i]:
                eo |= 1 << i
            if not pos[opp0 + i]:
                ep |= 1 << i
    xo = xp = go = gp = 0  # stones each row would export; pits one more stone adds to
    if xw:
        for i in range(6):
            c = pos[own0 + i] + i - 5
            if c >= 0:
                xo += c
                go |= 1 << i
            c = pos[opp0 + i] + i - 5
            if c >= 0:
                xp += c
                gp |= 1 << i
    mask = pos[15]
    bv = -INF
    used = 0
    cut = 0
    for pit in range(6):
        if not mask >> pit & 1:
            continue
        n = pos[own0 + pit]
        r = 5 - pit  # stones that stay in the own row
        if n > 11 or used >= left:  # a lap (skips the origin), the node limit
            return ((bv + 32768) << 8) | (pit << 5) | (used << 2) | FR_STOPPED | cut
        s2 = s
        xc = 0  # export of the opponent's pits captured
        if n <= r:
            a2 = a
            b2 = b
            sown = ((1 << n) - 1) << (pit + 1)  # own pits that get a stone
            filled = 0  # ... and the opponent's
            taken = 0  # the opponent's pits captured
        else:
            k = n - r  # stones into the opponent's row
            sown = ((1 << r) - 1) << (pit + 1)
            taken = 0
            if k <= 6:
                filled = (1 << k) - 1
                a2 = a - n + r
                b2 = b + k
                # the chain of 1s and 2s (2s and 3s once sown) ending at the last pit
                last = opp0 + k - 1
                g = 0
                j = last
                while j >= opp0 and 0 < pos[j] < 3:
                    g += pos[j] + 1
                    if pos[j] + j - opp0 > 4:  # it exported once sown
                        xc += pos[j] + j - opp0 - 4
                    j -= 1
                if g:
                    # the pits taken: after j up to the last (bit masks of the row)
                    taken = filled & ~((1 << (j - opp0 + 1)) - 1) if j >= opp0 else filled
                    if j < opp0:  # from the first pit: a grand slam unless stones lie beyond
                        j = last + 1
                        while j < opp0 + 6 and not pos[j]:
                            j += 1
                        if j == opp0 + 6:
                            g = 0  # taking every stone of the opponent captures nothing
                            taken = 0
                            xc = 0
                    s2 = s + g
                    b2 -= g
            else:  # round into the own row again
                filled = 63
                sown |= (1 << (k - 6)) - 1
                a2 = a - n + r + k - 6
                b2 = b + 6
        if not b2 or s2 > half or (s2 == half and t == half):
            v = (s2 + a2 - t - b2) * SCALE  # over: each side takes its own row
        elif not a2:  # the opponent must feed us: a real move decides
            return ((bv + 32768) << 8) | (pit << 5) | (used << 2) | FR_STOPPED | cut
        else:
            v = (s2 - t) * SCALE + (a2 - b2) * w
            if ew:  # empty pits after the move: theirs count for us
                v += (POPCOUNT[(ep & ~filled) | taken]
                      - POPCOUNT[(eo & ~sown) | (1 << pit)]) * ew
            if xw:  # exporting stones after the move: theirs count for us
                v += (xp + POPCOUNT[filled & gp] - xc - xo - POPCOUNT[sown & go]
                      + (n - r if n > r else 0)) * xw
            cut = FR_CUT
        used += 1
        if v > bv:
            bv = v
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    return ((bv + 32768) << 8) | (7 << 5) | (used << 2) | cut


FRONTIERS = {"kalah": frontier_kalah, "oware": frontier_oware}


_spare = None  # (tt_bits, ttc, ttd, z) of a released engine (Engine.release)


def native_available():
    """True where the machine-code kernels (mancala.native) run."""
    return _native is not None


class Engine:
    def __init__(self, rules, tt_bits=12, seed=0, native=None):
        """`native`: use the machine-code kernels (None: where they run, False:
        never, the bytecode reference).  Both search the same tree."""
        self.rules = rules
        move = None
        if native is not False and _native is not None:
            move = _native.mover(rules)
        self.native = move is not None
        self._move = move or rules.move
        self.seed = seed
        self.rng = Rng(seed)
        self.w = ROW_WEIGHT.get(rules.name, 0)
        self.tw = THREAT_WEIGHT.get(rules.name, 0)
        self.ew = EMPTY_WEIGHT.get(rules.name, 0)
        self.xw = EXPORT_WEIGHT.get(rules.name, 0)
        # ... at the leaves of a search with quiescence (Master's): the empty-pit weight
        self.qew = QUIESCE_EMPTY_WEIGHT.get(rules.name, self.ew)
        # children of depth-1 nodes valued without being made (None: made)
        self.frontier = (_native.FRONTIERS if self.native else FRONTIERS).get(rules.name)
        self.qdepth = QUIESCE.get(rules.name, 0)  # quiescence plies at the horizon
        # (only a variant with quiescence makes its buffers: QUIESCE, kalah)
        self.qkids = [bytearray(POS_LEN) for _ in range(QMAX)] if self.qdepth else None
        self._qleft = 0  # nodes the quiescence may still make (the node limit)
        self._qplies = 0
        self.half = rules.total // 2
        self.tt_bits = tt_bits
        n = 1 << tt_bits
        self.tmask = n - 1
        global _spare
        spare = _spare
        _spare = None
        if spare is not None and spare[0] == tt_bits:  # the last engine's (release())
            self.ttc, self.ttd, z = spare[1], spare[2], spare[3]
        else:
            spare = None
            # (arrays built from a range: no temporary buffer as big as the array)
            self.ttc = array("H", range(n))  # check bits of the key (read only where ttd is set)
            self.ttd = array("i", range(n))  # packed entry, 0 = empty
        # Grading a move a slice at a time (start_grade / grade_result).
        self._grade_pos = bytearray(POS_LEN)
        self._grade_child = bytearray(POS_LEN)
        self._grade_pit = -1
        self._grade_nodes = GRADE_NODES
        self.clear()
        if spare is None:
            z = array("i", range(14 * ZSTRIDE + 1))
            r = Rng(0x2545F49)
            for i in range(len(z)):
                z[i] = r.next()
        self.z = z  # (the same keys for every variant: a fixed seed)
        self.kids = [bytearray(POS_LEN) for _ in range(MAXPLY)]  # the child of each ply
        self.root = bytearray(POS_LEN)
        self.node = [self.root] * (MAXPLY + 1)  # the position at each ply (references)
        self.alpha = array("h", bytes(2 * MAXPLY))
        self.beta = array("h", bytes(2 * MAXPLY))
        self.oalpha = array("h", bytes(2 * MAXPLY))
        self.best = array("h", bytes(2 * MAXPLY))
        self.dep = bytearray(MAXPLY)
        self.bmove = bytearray(MAXPLY)
        self.cur = bytearray(MAXPLY)
        self.cnt = bytearray(MAXPLY)
        self.hkey = array("i", bytes(4 * MAXPLY))
        self.order = bytearray(MAXPLY * 6)  # pits in search order
        self.same = bytearray(MAXPLY)  # the child being searched has the same mover
        self.scout = bytearray(MAXPLY)  # ... and is searched with a null window (PVS)
        self.vcode = ("kalah", "mangala", "oware", "ranok").index(rules.name)
        self.bias = array("h", bytes(12))
        self.first_score = 0
        self.keep = False  # keep the table from search to search (stronger, history-dependent)
        self.force = -1
        self.best_move = -1
        self.score = 0
        self.qscore = 0
        self.depth = 0
        self.nodes = 0
        self.limit = 0
        self.done = True
        self.deadline = None
        self.t0 = 0
        self.iter = 0
        self.keys = bytearray(6)
        self._p = 0
        self._state = 0
        self._ret = 0
        self._cut = False
        self._rootx = False
        self._fh = -1
        self._fhv = 0
        self._bound = False
        self._pbest = False
        self._done_first = 0
        self._done_q = 0
        self.clock = _ticks_ms
        self.table = None  # endgame table (mancala.tablebase.Table) or None
        self.table_seeds = -1  # positions with at most this many seeds are looked up
        self._use_table = -1  # table_seeds for the search under way (-1: off)
        self.book = None  # the opening book's open file (set_book) or None
        self.book_entries = 0
        self.book_score = 0  # the score stored with the last entry found (stones)
        self.book_hit = False  # the last start() took its move from the book
        self._book_buf = None  # (buffers made by set_book: an entry, a mirrored position)
        self._book_pos = None
        # The machine-code search (mancala.native.run: the same tree as _run) where
        # the kernels run and the evaluation has no threat term (not written there).
        self.kernel = self.native and not self.tw
        # Budgets of the CPU (NATIVE_BUDGETS; the bytecode Pico's without an entry)
        budgets = NATIVE_BUDGETS.get(native_arch()) if self.kernel else None
        self.master_nodes = budgets[0].get(rules.name) if budgets else None
        self.grade_nodes = budgets[1] if budgets else GRADE_NODES
        self.ponder_nodes = budgets[2] if budgets else 30000  # (the App's PONDER_NODES)
        self.master_cap = self.master_nodes or 30000  # (the App's MASTER_CAP)
        self.chunk_scale = KERNEL_CHUNK if self.kernel else 1
        if self.kernel:
            self._kpaths = _native.flat_paths(rules)
            self._qstate = array("i", bytes(4 * 6))  # the quiescence's ints (native.quiesce)
            self._kfrontier = 0 if self.frontier is None else 1
            self._run = self._run_native  # type: ignore[method-assign]

    # -- public API --------------------------------------------------------------

    def release(self):
        """This engine is done: its table and keys go to the next Engine built (a board
        changing variant then allocates nothing big, so a fragmented heap never refuses
        it: the App's need_engine()).  The engine must not be used after."""
        global _spare
        _spare = (self.tt_bits, self.ttc, self.ttd, self.z)
        self.ttc = self.ttd = self.z = None
        if self.book is not None:  # (the next engine opens its own variant's)
            self.book.close()
            self.book = None
        if self.table is not None:  # ... and its table: an open file holds a buffer
            self.table.close()
            self.set_table(None)

    def set_table(self, table):
        """Use an endgame table: a made child with at most table.seeds stones on
        the board gets its exact value (Master, hints, grades; the lower levels
        keep their own mistakes)."""
        self.table = table
        self.table_seeds = table.seeds if table is not None else -1

    def set_book(self, f, entries=0):
        """Use an opening book: `f` its open file, `entries` its count (a
        mancala.book.Book's f and entries; None: no book).  Master's searches and
        hints (level 3) of a position in it play the book's move at once (depth 0);
        grades, pondering and the lower levels never read it."""
        self.book = f
        self.book_entries = entries if f is not None else 0
        if f is not None and self._book_buf is None:
            self._book_buf = bytearray(6)
            self._book_pos = bytearray(POS_LEN)

    def book_find(self, key):
        """The book's move for `key` (pit 0-5) or -1, its score in `book_score`:
        a binary search of the sorted 6-byte entries after the 32-byte header
        (mancala.book), one preallocated buffer, nothing allocated."""
        f = self.book
        b = self._book_buf
        lo = 0
        hi = self.book_entries
        while lo < hi:
            mid = (lo + hi) >> 1
            f.seek(32 + mid * 6)
            if f.readinto(b) != 6:
                return -1
            k = b[0] | b[1] << 8 | b[2] << 16 | (b[3] & 63) << 24
            if k < key:
                lo = mid + 1
            elif k > key:
                hi = mid
            else:
                self.book_score = b[5] - 128
                return b[4] if b[4] < 6 else -1
        return -1

    def book_key(self, pos):
        """The book's key of `pos`: the Zobrist key of the position seen from South
        (North to move: the rows swapped, so one entry serves both sides)."""
        if not pos[SIDE]:
            return self._hash(pos)
        b = self._book_pos
        if b is None:
            b = self._book_pos = bytearray(POS_LEN)
        for i in range(7):
            b[i] = pos[7 + i]
            b[7 + i] = pos[i]
        b[SIDE] = 0
        b[MASK] = pos[MASK]
        return self._hash(b)

    def book_move(self, pos):
        """The book's move of `pos` if it is legal there, else -1 (a key that only
        collides with a book position is never played)."""
        book = self.book
        if book is None or not pos[MASK]:
            return -1
        m = self.book_find(self.book_key(pos))
        if m >= 0 and pos[MASK] >> m & 1:
            return m
        return -1

    def start(self, pos, level=None, nodes=None, deadline_ms=None, clock=None):
        """Begin a search of `pos` (copied); run it with step() or search()."""
        root = self.root
        root[:] = pos
        self.nodes = 0
        self.depth = 0
        self.score = 0
        self.qscore = 0
        self._bound = False
        self._pbest = False  # the best move comes from an unfinished iteration
        noise = 0
        limit = nodes
        self._use_table = self.table_seeds
        self._qplies = self.qdepth  # quiescence plies for this search (0: static leaves)
        self.book_hit = False
        li = -1
        if level is not None:
            li = LEVELS.index(level) if not isinstance(level, int) else level
            if limit is None:
                limit = self.master_nodes if li == 3 and self.master_nodes else \
                    level_nodes(self.rules, li)
            noise = level_noise(self.rules, li)
            if li < 3:  # the lower levels keep their searches (and mistakes)
                self._use_table = -1
                self._qplies = 0
        if limit is None:
            limit = self.master_nodes or level_nodes(self.rules, 3)
        self.limit = limit
        bias = self.bias
        for k in range(6):
            bias[k] = (self.rng.below(2 * noise + 1) - noise) if noise else 0
        self.clock = clock or _ticks_ms
        self.deadline = deadline_ms
        self.t0 = int(self.clock())  # type: ignore[arg-type]
        if not self.keep:
            self.clear()
        mask = root[MASK]
        self.best_move = -1
        if not mask:
            self.done = True
            return
        # A legal move at once, for stop() before the first iteration ends.
        f = self.force
        if f >= 0 and mask >> f & 1:
            self.best_move = f
        else:
            for k in range(6):
                if mask >> k & 1:
                    self.best_move = k
                    break
        self.done = False
        if POPCOUNT[mask] == 1 and f < 0:
            self.done = True  # a forced move: nothing to think about
            return
        if li == 3 and f < 0 and self.book is not None:
            m = self.book_move(root)
            if m >= 0:  # Master's (or a hint's) move from the book: no search
                self.best_move = m
                self.book_hit = True
                self.done = True
                return
        self.iter = 0
        self._new_iteration()

    def clear(self):
        """Empty the table (a new game; `keep` False does it at every start)."""
        ttd = self.ttd
        for i in range(len(ttd)):
            ttd[i] = 0

    def step(self, max_nodes=256):
        """Run one slice of about `max_nodes` nodes; True when the search is over."""
        if self.done:
            return True
        if self.deadline is not None and \
                ((int(self.clock()) - self.t0) & M30) >= self.deadline:  # type: ignore
            self._take_partial()
            self.done = True
            return True
        end = self.nodes + max_nodes
        while True:
            r = self._run(end)
            if r == 0:  # slice used up
                return False
            if r == 2:  # node limit: keep what the partial iteration proved
                self._take_partial()
                self.done = True
                return True
            # an iteration finished
            self.depth = self.iter
            self.best_move = self.bmove[0]
            self.qscore = self._raw_best
            self.score = (self._raw_best + SCALE // 2) // SCALE
            self._done_first = self.first_score  # both exact at this depth (grades)
            self._done_q = self.qscore
            if self.iter >= MAXDEPTH or not self._cut or self.nodes >= self.limit:
                self.done = True
                return True
            self._new_iteration()
            if self.nodes >= end:
                return False

    def step_for(self, ms, chunk=8):
        """Search for about `ms` of the engine's clock (the one given to start()),
        `chunk` nodes at a time with the clock read in between (so a slice ends at
        most one chunk late); True when the search is over.  The board gives each
        loop turn's time left after reading its pits and drawing."""
        clock = self.clock
        t0 = int(clock())  # type: ignore
        chunk *= self.chunk_scale  # (the kernel's nodes are cheaper: as many ms)
        while not self.step(chunk):
            if ((int(clock()) - t0) & M30) >= ms:  # type: ignore
                return False
        return True

    def stop(self):
        """Move now: end the search; best_move stays the best found so far.
        (A grade begun by start_grade() is abandoned.)"""
        if not self.done:
            self._take_partial()
        self.done = True
        self.force = -1

    def search(self, pos, level=None, nodes=None, deadline_ms=None, clock=None):
        self.start(pos, level, nodes, deadline_ms, clock)
        while not self.step(1024):
            pass
        return self.best_move

    def hint(self, pos, level="master"):
        return self.search(pos, level)

    def grade(self, pos, pit, nodes=None):
        """(grade index, loss in stones vs the best move, threat pit or -1).

        The move is searched first at the root with a full window, so its score
        and the best score come from the same iteration and are both exact.
        A blunder also gives the threat: the opponent's best reply to it.
        """
        self.start_grade(pos, pit, nodes)
        try:
            while not self.step(1024):
                pass
        finally:
            self.force = -1
        return self.grade_result()

    def start_grade(self, pos, pit, nodes=None, clock=None):
        """Begin grading `pit` in `pos` a slice at a time: run step() until it
        returns True, then grade_result().  (The board keeps its pits live.)"""
        self._grade_nodes = self.grade_nodes if nodes is None else nodes
        self._grade_pit = pit
        self._grade_pos[:] = pos
        self.force = pit
        self.start(pos, nodes=self._grade_nodes, clock=clock)
        self._qplies = 0  # the frontier's depth grades better than quiescence (docs/ENGINE.md)

    def grade_result(self):
        """The grade of the search begun by start_grade() (see grade())."""
        self.force = -1
        pos = self._grade_pos
        pit = self._grade_pit
        if self.best_move == pit or self.depth == 0 and not self._bound:
            return 0, 0, -1
        if self._pbest and not self._bound:  # the unfinished iteration found it
            loss = self.qscore - self.first_score  # (both from that iteration)
        else:  # both from the last finished iteration
            loss = self._done_q - self._done_first if self.depth else 0
            if self._bound:
                # stopped in a re-search: the better move's score is a lower bound,
                # the graded move's (searched first) exact: never report less
                low = self.qscore - self.first_score
                if low > loss:
                    loss = low
        if loss <= 0:
            return 0, 0, -1
        stones = (loss + SCALE // 2) // SCALE
        if stones <= 0:  # loses no stone (rounded): as good as the best (docs/ENGINE.md)
            return 0, 0, -1
        g = 5
        for i in range(4):
            if stones <= GRADE_LIMITS[i]:
                g = i + 1
                break
        threat = -1
        if g == 5:
            child = self._grade_child
            child[:] = pos
            self.rules.move(child, pit)
            if child[MASK] and child[SIDE] != pos[SIDE]:
                threat = self._tt_move(child)
                if threat < 0:
                    threat = self.search(child, nodes=self._grade_nodes // 4 + 1)
        return g, stones, threat

    # -- the search ----------------------------------------------------------------

    def _new_iteration(self):
        self.iter += 1
        self._cut = False
        self._rootx = False
        self._fh = -1  # a root move being searched again after failing high
        self.dep[0] = self.iter
        self.alpha[0] = -INF
        self.beta[0] = INF
        self.cur[0] = 0
        scout = self.scout
        for i in range(MAXPLY):
            scout[i] = 0
        self._p = 0
        self._state = 0

    def _take_partial(self):
        # The root's first move is the previous best (or the move being graded): a
        # move that scored above it in the unfinished iteration is better.  (The
        # first move itself proves nothing: when it is the graded move, taking it
        # made every move whose iteration ran out "best".)
        if self._rootx and self.cur[0] >= 1:
            b = self.bmove[0]
            if self.root[MASK] >> b & 1:
                raw = self.best[0] - self.bias[b]
                if self.depth == 0 or b != self.order[0]:
                    self.best_move = b
                    self.qscore = raw
                    self.score = (raw + SCALE // 2) // SCALE
                    self._pbest = self.depth > 0
        fh = self._fh
        if fh >= 0 and self.root[MASK] >> fh & 1:
            # a move whose null-window search beat the best so far, stopped in its
            # full search: better than the best (its score is a lower bound)
            raw = self._fhv - self.bias[fh]
            self.best_move = fh
            self._bound = True  # its score is a lower bound: grade_result knows
            self.qscore = raw
            self.score = (raw + SCALE // 2) // SCALE

    def _quiesce(self, pos, alpha, beta, qp):
        """The value of leaf `pos` for its side to move: its static value (stand
        pat), or better by one of its captures or extra turns, searched the same
        way up to `qdepth` plies on (fail-soft alpha-beta).  Each child made is a
        node, taken from `_qleft` (the node limit stays exact).  Buffers: qkids."""
        side = pos[SIDE]
        # evaluate(pos, side, ...) written out (a call less per leaf; no threat term:
        # the quiescence plays the captures themselves), each term only if weighed
        v = (pos[6] - pos[13]) * SCALE
        w = self.w
        if w:
            v += (pos[0] + pos[1] + pos[2] + pos[3] + pos[4] + pos[5] - pos[7] - pos[8]
                  - pos[9] - pos[10] - pos[11] - pos[12]) * w
        ew = self.qew
        xw = self.xw
        if xw:
            e = 0
            x = 0
            for i in range(6):
                if not pos[i]:
                    e += 1
                if not pos[7 + i]:
                    e -= 1
                if pos[i] > 5 - i:
                    x += pos[i] - 5 + i
                if pos[7 + i] > 5 - i:
                    x -= pos[7 + i] - 5 + i
            v -= e * ew + x * xw
        elif ew:  # (a sum of truth values: no loop)
            v -= ((not pos[0]) + (not pos[1]) + (not pos[2]) + (not pos[3]) + (not pos[4])
                  + (not pos[5]) - (not pos[7]) - (not pos[8]) - (not pos[9])
                  - (not pos[10]) - (not pos[11]) - (not pos[12])) * ew
        if side:
            v = -v
        if v >= beta or qp >= self._qplies or self._qleft <= 0:
            return v
        if v > alpha:
            alpha = v
        bv = v
        own0 = side * 7
        own = own0 + 6
        opp0 = 7 - own0
        paths = self.rules.paths
        oware = self.vcode == 2
        mask = pos[MASK]
        c = self.qkids[qp]
        move = self._move
        for pit in range(6):
            if not mask >> pit & 1:
                continue
            cn = pos[own0 + pit]
            last = paths[side * 6 + pit][cn - 1]
            if oware:
                if cn > 11 or not (opp0 <= last < opp0 + 6 and 0 < pos[last] < 3):
                    continue
            elif last == own:
                pass  # an extra turn: the same side plays on
            elif cn > 12 or not own0 <= last < own or pos[last] or not pos[12 - last]:
                continue
            if self._qleft <= 0:
                break
            self._qleft -= 1
            c[:] = pos
            fl = move(c, pit)
            if fl & OVER:
                x = c[6] - c[13]
                if side:
                    x = -x
                x *= SCALE
            elif c[SIDE] == side:
                x = self._quiesce(c, alpha, beta, qp + 1)
            else:
                x = -self._quiesce(c, -beta, -alpha, qp + 1)
            if x > bv:
                bv = x
                if x > alpha:
                    alpha = x
                    if x >= beta:
                        break
        return bv

    def _hash(self, pos):
        z = self.z
        h = z[pos[0]] ^ z[80 + pos[1]] ^ z[160 + pos[2]] ^ z[240 + pos[3]] \
            ^ z[320 + pos[4]] ^ z[400 + pos[5]] ^ z[480 + pos[6]] ^ z[560 + pos[7]] \
            ^ z[640 + pos[8]] ^ z[720 + pos[9]] ^ z[800 + pos[10]] ^ z[880 + pos[11]] \
            ^ z[960 + pos[12]] ^ z[1040 + pos[13]]
        if pos[SIDE]:
            h ^= z[1120]
        return h

    def _tt_move(self, pos):
        h = self._hash(pos)
        i = h & self.tmask
        e = self.ttd[i]
        if e and self.ttc[i] == (h >> self.tt_bits) & 0xFFFF:
            m = e >> 20
            if pos[MASK] >> m & 1:
                return m
        return -1

    def _run_native(self, end):
        return _native.run(self, end)  # type: ignore[union-attr]

    def _run(self, end):
        """Advance the search.  0: `end` nodes reached (resumable), 1: the iteration
        finished, 2: the node limit was hit (the search is over).

        States: 0 enter node p (table, order its moves); 1 the child at cur[p]
        returned v (from its own side to move's view); 2 play the next move of
        node p.  Children are made one at a time, so a cutoff saves the rest.
        """
        move = self._move  # (a bound method made once: `self.rules.move` here
        # would make one at every call, 16 bytes of garbage a slice)
        paths = self.rules.paths
        vcode = self.vcode
        kids = self.kids
        node = self.node
        alpha = self.alpha
        beta = self.beta
        best = self.best
        dep = self.dep
        bmove = self.bmove
        cur = self.cur
        cnt = self.cnt
        order = self.order
        same = self.same
        scout = self.scout
        keys = self.keys
        bias = self.bias
        ttc = self.ttc
        ttd = self.ttd
        tmask = self.tmask
        bits = self.tt_bits
        z = self.z
        w = self.w
        tw = self.tw
        ew = self.ew
        xw = self.xw
        static = evaluate
        frontier = self.frontier
        if tw or (xw and vcode == 0):  # weights kalah's frontier cannot value
            frontier = None
        quiet = self._qplies
        plain = not (tw or ew or xw)  # the evaluation is stores and rows only
        if quiet:  # leaves are searched on (quiescence): the frontier cannot
            frontier = None
        half = self.half
        limit = self.limit
        tseeds = self._use_table
        table = self.table
        total = self.rules.total
        nodes = self.nodes
        p = self._p
        v = self._ret
        state = self._state
        pending = -1  # a frontier result for the node being entered
        while True:
            if state == 0:
                # ---- a new node at ply p: the table, then its moves in order
                if nodes >= end and pending < 0:
                    self._p = p
                    self._state = 0
                    self.nodes = nodes
                    return 0
                pos = node[p]
                d = dep[p]
                tm = 7
                e = 0
                if d > 1:  # frontier nodes do without the table (cheaper than hashing)
                    # (the Zobrist key of _hash, written out: a call less per node)
                    h = z[pos[0]] ^ z[80 + pos[1]] ^ z[160 + pos[2]] ^ z[240 + pos[3]] \
                        ^ z[320 + pos[4]] ^ z[400 + pos[5]] ^ z[480 + pos[6]] \
                        ^ z[560 + pos[7]] ^ z[640 + pos[8]] ^ z[720 + pos[9]] \
                        ^ z[800 + pos[10]] ^ z[880 + pos[11]] ^ z[960 + pos[12]] \
                        ^ z[1040 + pos[13]]
                    if pos[SIDE]:
                        h ^= z[1120]
                    self.hkey[p] = h
                    i = h & tmask
                    e = ttd[i]
                if e and ttc[i] == (h >> bits) & 0xFFFF:
                    tm = e >> 20
                    if p and (e >> 14) & 63 >= d:
                        s = (e & 4095) - 2048
                        f = (e >> 12) & 3
                        if f == EXACT or (f == LOWER and s >= beta[p]) or \
                                (f == UPPER and s <= alpha[p]):
                            self._cut = True
                            v = s
                            p -= 1
                            state = 1
                            continue
                if d <= 1 and p and frontier is not None:
                    if pending >= 0:  # valued up to a stop by the parent
                        r = pending
                        pending = -1
                    else:
                        r = frontier(pos, alpha[p], beta[p], limit - nodes, w, half, ew, xw)
                        nodes += (r >> 2) & 7
                        if r & FR_CUT:
                            self._cut = True
                    v = (r >> 8) - 32768
                    if not r & FR_STOPPED:
                        p -= 1
                        state = 1
                        continue
                    # a child it could not value: make the rest, from that pit on
                    sp = (r >> 5) & 7
                    base = p * 6
                    n = 0
                    mask = pos[MASK]
                    for pit in range(sp, 6):
                        if mask >> pit & 1:
                            order[base + n] = pit
                            n += 1
                    cnt[p] = n
                    cur[p] = 0
                    best[p] = v
                    bmove[p] = sp
                    if v > alpha[p]:
                        alpha[p] = v
                    self.oalpha[p] = alpha[p]
                    state = 2
                    continue
                if p == 0:
                    tm = self.force
                    if tm < 0:
                        tm = self.best_move
                side = pos[SIDE]
                own0 = side * 7
                own = own0 + 6
                opp0 = 7 - own0
                mask = pos[MASK]
                base = p * 6
                n = 0
                for pit in range(6):
                    if not mask >> pit & 1:
                        continue
                    # a guess at the move's worth without playing it: where the
                    # last stone lands (extra turn, capture)
                    if pit == tm:
                        key = 200
                    else:
                        cn = pos[own0 + pit]
                        path = paths[side * 6 + pit]
                        last = path[1] if cn == 1 and vcode == 1 else path[cn - 1]
                        key = 0
                        if vcode <= 1:
                            if last == own:
                                key = 100
                            elif own0 <= last < own:
                                if not pos[last] and cn < 13:
                                    key = pos[12 - last] + 1
                            elif vcode == 1 and pos[last] & 1:
                                key = pos[last] + 1
                        elif opp0 <= last < opp0 + 6 and 0 < pos[last] < 3:
                            key = pos[last] + 1
                    keys[pit] = key
                    j = base + n
                    while j > base and keys[order[j - 1]] < key:
                        order[j] = order[j - 1]
                        j -= 1
                    order[j] = pit
                    n += 1
                cnt[p] = n
                cur[p] = 0
                best[p] = -INF
                bmove[p] = order[base]
                self.oalpha[p] = alpha[p]
                if p == 0:
                    self._rootx = True
                state = 2
                continue
            base = p * 6
            k = cur[p]
            if state == 1:
                pit = order[base + k]
                if not same[p]:
                    v = -v
            else:
                if k >= cnt[p]:
                    # ---- node p is finished
                    val = best[p]
                    if p == 0:
                        self._raw_best = val - bias[bmove[0]]
                        self.nodes = nodes
                        self._state = 2
                        return 1
                    v = val
                    p -= 1
                    state = 1
                    if dep[p + 1] <= 1:
                        continue
                    if val <= self.oalpha[p + 1]:
                        f = UPPER
                    elif val >= beta[p + 1]:
                        f = LOWER
                    else:
                        f = EXACT
                    h = self.hkey[p + 1]
                    i = h & tmask
                    ttc[i] = (h >> bits) & 0xFFFF
                    ttd[i] = ((val + 2048) & 4095) | (f << 12) | (dep[p + 1] << 14) | \
                        (bmove[p + 1] << 20)
                    continue
                # ---- play the next move of node p
                if nodes >= limit:
                    self._p = p
                    self._state = 2
                    self.nodes = nodes
                    return 2
                if nodes >= end:  # the slice is used up (a depth-1 node's leaves, the
                    self._p = p  # levels of an extra-turn chain: no longer all at once)
                    self._state = 2
                    self.nodes = nodes
                    return 0
                pit = order[base + k]
                pos = node[p]
                c = kids[p]
                c[:] = pos
                fl = move(c, pit)
                nodes += 1
                side = pos[SIDE]
                q = p + 1
                if fl & OVER:
                    v = c[6] - c[13]
                    if side:
                        v = -v
                    v *= SCALE
                elif total - c[6] - c[13] <= tseeds and table.probe(c) < 255:
                    # an endgame in the table: its exact final difference
                    tv = table.last - 128
                    v = c[6] - c[13] + (-tv if c[SIDE] else tv)
                    if side:
                        v = -v
                    v *= SCALE
                elif fl & EXTRA and q + 1 < MAXPLY:
                    # the same side moves again: same window, no depth used
                    same[p] = 1
                    a = alpha[p]
                    b = beta[p]
                    if p == 0:
                        a -= bias[pit]
                        b -= bias[pit]
                    if k and b - a > 1:  # after the first move: a null window
                        b = a + 1
                        scout[p] = 1
                    alpha[q] = a
                    beta[q] = b
                    dep[q] = dep[p]
                    node[q] = c
                    p = q
                    state = 0
                    continue
                elif dep[p] <= 1 or q + 1 >= MAXPLY:
                    self._cut = True
                    if quiet:
                        a = alpha[p]
                        b = beta[p]
                        if p == 0:
                            a -= bias[pit]
                            b -= bias[pit]
                        ql = limit - nodes
                        if ql > QNODES:  # a leaf's quiescence makes at most QNODES:
                            ql = QNODES  # a slice ends at most that late
                        self._qleft = ql
                        if c[SIDE] == side:
                            v = self._quiesce(c, a, b, 0)
                        else:
                            v = -self._quiesce(c, -b, -a, 0)
                        nodes += ql - self._qleft
                    elif plain:  # evaluate() written out (mangala, ranok): a call less
                        v = (c[6] - c[13]) * SCALE + (c[0] + c[1] + c[2] + c[3] + c[4] + c[5]
                                                      - c[7] - c[8] - c[9] - c[10] - c[11]
                                                      - c[12]) * w
                        if side:
                            v = -v
                    else:
                        v = static(c, side, w, tw, paths, ew, xw)
                else:
                    a = alpha[p]
                    b = beta[p]
                    if p == 0:
                        a -= bias[pit]
                        b -= bias[pit]
                    if k and b - a > 1:  # after the first move: a null window
                        b = a + 1
                        scout[p] = 1
                    if c[SIDE] == side:
                        same[p] = 1
                        alpha[q] = a
                        beta[q] = b
                    else:
                        same[p] = 0
                        alpha[q] = -b
                        beta[q] = -a
                    dep[q] = dep[p] - 1
                    node[q] = c
                    if dep[q] == 1 and frontier is not None and not same[p] and nodes < end:
                        # the child is a frontier node: value it here, no push
                        # (unless the slice is used up: then it is entered, and
                        # the slice ends there)
                        r = frontier(c, -b, -a, limit - nodes, w, half, ew, xw)
                        nodes += (r >> 2) & 7
                        if r & FR_CUT:
                            self._cut = True
                        if r & FR_STOPPED:  # enter it; it goes on from the stop
                            pending = r
                            p = q
                            state = 0
                            continue
                        v = 32768 - (r >> 8)  # negated: node p's view
                    else:
                        p = q
                        state = 0
                        continue
            # ---- v: the value of move `pit` of node p, from p's side to move
            if p == 0:
                if k == 0:
                    self.first_score = v
                v += bias[pit]
                self._fh = -1
            if scout[p]:
                scout[p] = 0
                if alpha[p] < v < beta[p]:
                    # the null window failed high inside (alpha, beta): this move
                    # may be the best, search it again with the full window
                    if p == 0:
                        self._fh = pit
                        self._fhv = v
                    q = p + 1
                    a = alpha[p]
                    b = beta[p]
                    if p == 0:
                        a -= bias[pit]
                        b -= bias[pit]
                    if same[p]:
                        alpha[q] = a
                        beta[q] = b
                        dep[q] = dep[p]
                    else:
                        alpha[q] = -b
                        beta[q] = -a
                        dep[q] = dep[p] - 1
                    node[q] = kids[p]
                    p = q
                    state = 0
                    continue
            if v > best[p]:
                best[p] = v
                bmove[p] = pit
                if v > alpha[p]:
                    alpha[p] = v
                    if v >= beta[p]:
                        k = cnt[p] - 1  # cutoff
            cur[p] = k + 1
            state = 2
