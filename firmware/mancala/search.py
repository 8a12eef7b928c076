"""The search: iterative deepening alpha-beta for all variants, a slice at a time.

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
  parent's counts without being made (mancala.search_loop's in bytecode, mancala.native's; the weights: below).
* Node counting: one node = one child made or valued.  A node limit is exact (the
  search never goes past it) and the result does not depend on the slice sizes.

Scores are in quarter stones inside (SCALE); `score` speaks stones.

Where a port has a native emitter, the same search runs as machine code
(mancala/native.py: `run`, the quiescence, the frontiers and the sowings in
viper, node for node the same tree); this bytecode stays the reference and runs
everywhere else (docs/ENGINE.md, "Native kernels").

Search is the searching part of Engine (mancala.engine: the levels, and the parts
put together); what a level searches reaches it as a node limit and a noise
(`_begin`).
"""

from mancala.compat import const
from mancala.rules import MASK, POPCOUNT, POS_LEN, SIDE

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

def _why_not_native(e):
    import sys

    if sys.implementation.name != "micropython":
        return "the PC runs no machine code"
    if isinstance(e, ImportError) and "mancala.native" in str(e):
        return "no native.mpy for this CPU"  # deploy sends none to a CPU with no emitter
    # a damaged or foreign .mpy, no room on the heap for its code (rp2 keeps it there),
    # a port that rejects native code (the WebAssembly VM)
    return "mancala.native failed to import: %s: %s" % (type(e).__name__, e)


# The machine-code kernels: only a port with a native emitter compiles them.  Why a
# board runs the bytecode instead is kept (native_why) and said at its start: a
# board that silently plays the weaker engine is a board nobody can diagnose.
_native_why = ""
try:
    from mancala import native as _native
except Exception as e:  # noqa: BLE001 - see _why_not_native
    _native = None
    _native_why = _why_not_native(e)

# What a position is worth: the weights of the static evaluation and the frontier, per
# variant, in quarter stones (SCALE).  The functions that use them are search_loop.py's
# (the bytecode engine's) and native.py's (the same in viper, the board's): a board
# running the kernels never holds the bytecode ones (their code is heap).  (Their own
# module once: a module takes whole 4 KiB blocks of a Pico's flash in both slots.)
SCALE = const(4)  # score units per stone
INF = const(30000)
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

_MAXPLY = const(40)  # deepest ply of the stack (iterations stop below it: search_loop)
_MAXDEPTH = const(32)
_ZSTRIDE = const(80)  # zobrist values per board index (counts 0..79)
_M30 = const(0x3FFFFFFF)

# Quiescence at the horizon: a leaf's side to move may stand pat (its static value)
# or play on its captures and extra turns, up to QUIESCE plies beyond the horizon
# (0: off, leaves are static).  docs/ENGINE.md has the matches that set it.
QUIESCE = {"kalah": 4}
_QMAX = const(8)  # deepest quiescence ply (buffers made once)


class Rng:
    """A 30-bit xorshift: small ints only, reproducible on every port."""

    def __init__(self, seed):
        self.x = (seed * 2654435761 + 0x1234567) & _M30 or 1

    def next(self):
        x = self.x
        x ^= (x & 0x1FFFF) << 13
        x ^= x >> 17
        x ^= (x & 0x1FFFFFF) << 5
        self.x = x
        return x

    def below(self, n):
        return self.next() % n




_spare = None  # (tt_bits, ttc, ttd, z, ply stacks) of a released engine (Search.release)
_keys = None  # the Zobrist keys: one array for every engine (a fixed seed), made once


def _zobrist_keys():
    global _keys
    if _keys is None:
        z = array("i", range(14 * _ZSTRIDE + 1))
        r = Rng(0x2545F49)
        for i in range(len(z)):
            z[i] = r.next()
        _keys = z
    return _keys


def _ply_stacks():
    """A search's stacks by ply (the same for every variant: a released engine hands
    them to the next, Search.release): kids (the child of each ply), node (the
    position at each ply: references), root, alpha, beta, oalpha, best, dep, bmove,
    cur, cnt, hkey, order (pits in search order, 6 a ply), same (the child being
    searched has the same mover), scout (... and is searched with a null window)."""
    root = bytearray(POS_LEN)
    return ([bytearray(POS_LEN) for _ in range(_MAXPLY)], [root] * (_MAXPLY + 1), root,
            array("h", bytes(2 * _MAXPLY)), array("h", bytes(2 * _MAXPLY)),
            array("h", bytes(2 * _MAXPLY)), array("h", bytes(2 * _MAXPLY)),
            bytearray(_MAXPLY), bytearray(_MAXPLY), bytearray(_MAXPLY), bytearray(_MAXPLY),
            array("i", bytes(4 * _MAXPLY)), bytearray(_MAXPLY * 6), bytearray(_MAXPLY),
            bytearray(_MAXPLY))


def native_available():
    """True where the machine-code kernels (mancala.native) run."""
    return _native is not None


def native_why():
    """Why the kernels do not run here ('' where they do)."""
    return _native_why


def native_module():
    """mancala.native where its kernels run (the LED chain's too: modes/start.py hands
    them to the Pixels), else None."""
    return _native


class Search:
    """Engine's search (its state and the loop); Engine (mancala.engine) adds the
    levels, grading (mancala.grading) and the table and book (mancala.probes)."""

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
        if self.native:
            self.frontier = _native.FRONTIERS.get(rules.name)  # type: ignore[union-attr]
        else:  # (the bytecode's: its module loaded only where it plays)
            from mancala.search_loop import FRONTIERS

            self.frontier = FRONTIERS.get(rules.name)
        self.qdepth = QUIESCE.get(rules.name, 0)  # quiescence plies at the horizon
        # (only a variant with quiescence makes its buffers: QUIESCE, kalah)
        self.qkids = [bytearray(POS_LEN) for _ in range(_QMAX)] if self.qdepth else None
        self._qleft = 0  # nodes the quiescence may still make (the node limit)
        self._qplies = 0
        self.half = rules.total // 2
        # (the scalars first: the instance's dict reaches its size (~1.5 KB, one block)
        # before the arrays below cut up the holes an engine released left)
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
        self._raw_best = 0  # the root's value of the iteration just finished (the loop's)
        # What the probes (mancala.probes: set_table, set_book) give the search
        self.table = None  # endgame table (mancala.tablebase.Table) or None
        self.table_seeds = -1  # positions with at most this many seeds are looked up
        self._use_table = -1  # table_seeds for the search under way (-1: off)
        self.book = None  # the opening book's open file (set_book) or None
        self.book_entries = 0
        self.book_score = 0  # the score stored with the last entry found (stones)
        self.book_hit = False  # the last start() took its move from the book
        self._book_buf = None  # (buffers made by set_book: an entry, a mirrored position)
        self._book_pos = None
        self.tt_bits = tt_bits
        n = 1 << tt_bits
        self.tmask = n - 1
        global _spare
        spare = _spare
        _spare = None
        # The keys first: their 4.5 KB are the same at every table size, and a table too
        # big for the heap (need_engine steps it down) once left no block for them
        self.z = _zobrist_keys()  # (the same keys for every variant: a fixed seed)
        if spare is not None and spare[0] == tt_bits:  # the last engine's (release())
            self.ttc, self.ttd = spare[1], spare[2]
        else:
            spare = None
            # (arrays built from a range: no temporary buffer as big as the array)
            self.ttc = array("H", range(n))  # check bits of the key (read only where ttd is set)
            self.ttd = array("i", range(n))  # packed entry, 0 = empty
        self.clear()
        # the last engine's stacks as they are: a search writes each ply's entries
        # before it reads them (the same tree as a fresh engine's: tests/test_engine.py)
        plies = _ply_stacks() if spare is None else spare[4]
        (self.kids, self.node, self.root, self.alpha, self.beta, self.oalpha, self.best,
         self.dep, self.bmove, self.cur, self.cnt, self.hkey, self.order, self.same,
         self.scout) = plies
        self.plies = plies
        self.vcode = ("kalah", "mangala", "oware", "ranok").index(rules.name)
        self.bias = array("h", bytes(12))
        # The machine-code search (mancala.native.run: the same tree as search_loop.run) where
        # the kernels run and the evaluation has no threat term (not written there).
        self.kernel = self.native and not self.tw
        self.chunk_scale = 1  # step_for's chunk per bytecode node (Engine: the kernel's)
        # A word the machine-code search watches (step_for's `watch`): the address of
        # the pits' input register, the bits of the pits, the levels last read; 0: none
        self._waddr = 0
        self._wmask = 0
        self._wlevel = 0
        if self.kernel:
            self._kpaths = _native.flat_paths(rules)
            self._qstate = array("i", bytes(4 * 7))  # the quiescence's ints (native.quiesce)
            self._kfrontier = 0 if self.frontier is None else 1
            self._loop = _native.run  # type: ignore[union-attr]
        else:  # the bytecode reference: loaded only where it runs (its code is on the heap)
            from mancala.search_loop import run

            self._loop = run

    # -- public API --------------------------------------------------------------

    def release(self):
        """This engine is done: its table, keys and ply stacks go to the next Engine built (a board
        changing variant then allocates nothing big, so a fragmented heap never refuses
        it: the App's need_engine()).  The engine must not be used after."""
        global _spare
        _spare = (self.tt_bits, self.ttc, self.ttd, self.z, self.plies)
        self.ttc = self.ttd = self.z = self.plies = None

    def _begin(self, pos, limit, noise, full, deadline_ms, clock):
        """Begin a search of `pos` (copied) of `limit` nodes with root noise `noise`
        (Engine.start: what a level searches, and the book); `full`: with the endgame
        table and the quiescence (Master, hints, a given node count).  Run it with
        step() or search()."""
        root = self.root
        root[:] = pos
        self.nodes = 0
        self.depth = 0
        self.score = 0
        self.qscore = 0
        self._bound = False
        self._pbest = False  # the best move comes from an unfinished iteration
        # (the lower levels keep their searches, and mistakes: no table, static leaves)
        self._use_table = self.table_seeds if full else -1
        self._qplies = self.qdepth if full else 0  # quiescence plies (0: static leaves)
        self.book_hit = False
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
                ((int(self.clock()) - self.t0) & _M30) >= self.deadline:  # type: ignore
            self._take_partial()
            self.done = True
            return True
        end = self.nodes + max_nodes
        while True:
            r = self._loop(self, end)
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
            if self.iter >= _MAXDEPTH or not self._cut or self.nodes >= self.limit:
                self.done = True
                return True
            self._new_iteration()
            if self.nodes >= end:
                return False

    def step_for(self, ms, chunk=8, wake=None, watch=None):
        """Search for about `ms` of the engine's clock (the one given to start()),
        `chunk` nodes at a time with the clock read in between (so a slice ends at
        most one chunk late); True when the search is over.  The board gives each
        loop turn's time left after reading its pits and drawing; `wake()`, asked
        with the clock, ends the slice early when true (a pit's level changed: the
        board's long slices, Pits.woken).
        `watch`: an object with `watch_addr`, `watch_mask`, `watch_level` (the pits'
        sensors: GpioSensors on the rp2 port), a word the machine-code search reads
        at every node, ending its chunk when its masked bits differ from the levels.
        A press then ends the slice at the next node, not the chunk's end, so after
        the first chunk (which times the slice's nodes) each chunk takes two thirds
        of the time left, at that rate, capped by the think's deadline: a slice of
        250 ms makes ~7 calls into the kernel, not ~65 (each costs ~0.3 ms to set up
        on an RP2040: ~6% of the search at the unwatched chunk)."""
        clock = self.clock
        t0 = int(clock())  # type: ignore
        chunk *= self.chunk_scale  # (the kernel's nodes are cheaper: as many ms)
        watched = watch is not None and self.kernel and watch.watch_addr
        if watched:
            self._waddr = watch.watch_addr
            self._wmask = watch.watch_mask
            self._wlevel = watch.watch_level
        n_start = self.nodes
        n = chunk
        done = False
        while True:
            if self.step(n):
                done = True
                break
            now = int(clock())  # type: ignore
            el = (now - t0) & _M30
            if el >= ms or wake is not None and wake():
                break
            if watched and el > 0:
                left = ms - el
                if self.deadline is not None:
                    d = self.deadline - ((now - self.t0) & _M30)
                    if d < left:
                        left = d
                # (< 2**30: a think's nodes times at most LONG_SLICE_MS)
                n = (self.nodes - n_start) * left * 2 // (3 * el)
                if n < chunk:
                    n = chunk
        self._waddr = 0  # (no other search reads a stale watch)
        return done

    def stop(self):
        """Move now: end the search; best_move stays the best found so far.
        (A grade begun by start_grade() is abandoned.)"""
        if not self.done:
            self._take_partial()
        self.done = True
        self.force = -1

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
        for i in range(_MAXPLY):
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
