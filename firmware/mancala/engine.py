"""The board's opponent and coach: Engine, what each level searches, and its parts.

Engine is put together from modules of their own, each with one reason to change:

  mancala.search      the search: iterative deepening alpha-beta a slice at a time
                      (start / step / stop), the transposition table, the quiescence
  mancala.grading     the coach's grade of a move (grade / start_grade / grade_result)
  mancala.probes      the endgame table and the opening book (set_table / set_book)
  mancala.native      the search, the evaluation and the sowings in machine code
                      where the port has a native emitter (the same tree, node for node)

This module holds what is left to decide: how strong each level is (node budgets and
root noise per variant, per CPU) and the API the modes call (start, search, hint).
docs/ENGINE.md has the algorithm and the matches that set the numbers.
"""

from mancala.grading import GRADE_LIMITS, GRADE_NODES, GRADES, Grading  # noqa: F401
from mancala.probes import Probes
from mancala.search import (  # noqa: F401
    SCALE,  # noqa: F401  (the PC tools' name for it)
    Rng,
    Search,
    native_available,
    native_why,
)

# sys.implementation._mpy >> 10 -> mpy-cross's -march name (py/persistentcode.h's
# MP_NATIVE_ARCH_*; host_tools/runners/mpycompile.py builds native code by it)
ARCHS = (None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp",
          "armv7emdp", "xtensa", "xtensawin", "rv32imc", "rv64imc")


def native_arch():
    """The CPU the machine code runs on (mpy-cross's -march name), or None."""
    if not native_available():
        return None
    import sys

    a = getattr(sys.implementation, "_mpy", 0) >> 10
    return ARCHS[a] if a < len(ARCHS) else None


LEVELS = ("beginner", "amateur", "strong", "master")

# A Pico's node rate per variant: the MicroPython VM's measured rate (`mancala
# bench`) / PICO_FACTOR, the VM-to-RP2040 ratio measured on a cycle-counting
# RP2040 model (docs/ENGINE.md has the derivation).  The simulated board's clock
# charges a node at this rate.
PICO_FACTOR = 30
PICO_NODES_PER_S = {"kalah": 1820, "mangala": 1190, "oware": 1380, "ranok": 1120}
# ... of a search with quiescence (mancala.search.QUIESCE: Master, hints, pondering), which
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


# The machine-code kernels (mancala.native) search 10.2-12.5x the nodes of the bytecode
# on an RP2040 in Master's 2 s think (docs/ENGINE.md, "Native kernels": both measured in
# one run on the RP2040 model, through the board's real start; kalah 41,285 against
# 3,329 at ply 2).  Per
# CPU they run on (sys.implementation._mpy >> 10 names it): Master's node budget per
# variant (what it searches in MASTER_MS: its level's budget, the board's node cap),
# the coach's grading budget and the pondering cap.  A CPU without an entry (the unix
# port's x64: tests, the PC) keeps the bytecode Pico's numbers, and the lower levels
# keep theirs everywhere (the ladder's steps are the same).
NATIVE_BUDGETS = {
    # (Master's nodes per variant, grading nodes, pondering cap)
    # (RP2040 model, the board's own loop (host_tools/benches/chip_think.py --record),
    # Master's think of 2 s with three taps of S6, node cap lifted, the lower of two
    # positions per variant: kalah 42,059 (since the kernel's inlined kalah sowing
    # and leaf stand-pat, session 40; 35,358 before), mangala 38,331, oware 46,264,
    # ranok 26,509; the budget 91% of it, rounded down to a thousand, so a think
    # with taps still ends by its budget, not the clock, and plays as `mancala match
    # master:N` does.  Grading 48,000: ~1.7 s (kalah) to 3.4 s (ranok), as 6,000
    # took the bytecode.  Kalah's coach grades with 200,000: 95.8% (95.0-96.5) of every
    # legal move of 16-24 seeds in its exact class with the Pico's tables, against 91.2%
    # at 48,000 (issue 43, item 2; docs/ENGINE.md, "The coach's budget"); it grades in
    # long slices on the person's sowing and wait (App.search_slice), so a grade that
    # spends it all, a blunder's threat search after it, is shown ~5 s after a 4-stone
    # sowing's last stone, and one of the average ~117,000 nodes ~1 s after
    # ("The coach's wait").  Pondering: 15x the bytecode's 30,000, as Master's.)
    "armv6m": ({"kalah": 38000, "mangala": 34000, "oware": 42000, "ranok": 24000},
               {"kalah": 200000, "mangala": 48000, "oware": 48000, "ranok": 48000}, 450000),
}
# The Pico 2 (RP2350: Cortex-M33 at 150 MHz, armv7emsp) and the ESP32 (240 MHz,
# xtensawin) are not modelled; both are faster than the RP2040 per node, so they
# get its budgets until measured on the chip (`mancala bench` on the board), but for
# the Pico 2's kalah coach: 100,000 nodes with its tables (2**14, the 10-seed kalah
# table) grade 96.2% (95.5-96.9) of every legal move of 16-24 seeds in their exact
# class (issue 43, item 2; docs/ENGINE.md, "The coach's budget"): ~65,000 nodes a grade
# on average.  (The ESP32's 200,000 with its tables: 97.4% on the tuning set.)
NATIVE_BUDGETS["armv7emsp"] = (NATIVE_BUDGETS["armv6m"][0],
                               dict(NATIVE_BUDGETS["armv6m"][1], kalah=100000),
                               NATIVE_BUDGETS["armv6m"][2])
NATIVE_BUDGETS["xtensawin"] = NATIVE_BUDGETS["armv6m"]
# step_for's chunk (nodes between clock reads) is in bytecode nodes: a native node
# costs about 1/11 of one, so the kernel's chunk is this many times longer (same ms).
KERNEL_CHUNK = 8


class Engine(Search, Grading, Probes):
    """The engine of one variant at the levels above: the search, grading, the probes.
    (Search first among the bases: step and step_for, once a slice, are looked up
    there right after this class; the node loop itself is a function, `_loop`.)"""

    def __init__(self, rules, tt_bits=12, seed=0, native=None):
        """`native`: use the machine-code kernels (None: where they run, False:
        never, the bytecode reference).  Both search the same tree."""
        Grading.__init__(self)
        Search.__init__(self, rules, tt_bits, seed, native)
        self.stand_for(native_arch() if self.kernel else None)
        self.chunk_scale = KERNEL_CHUNK if self.kernel else 1

    def stand_for(self, cpu):
        """Search with the budgets of a board whose machine-code kernels run on `cpu`
        (a key of NATIVE_BUDGETS, mpy-cross's -march name; None or a CPU without an
        entry: the bytecode Pico's).  The board: its own CPU.  The PC, which runs no
        machine code, plays the board it stands for with the same numbers (the
        simulators: their profile's chip; the `mancala` command: a Pico's), so the
        same Master and the same coach (docs/ENGINE.md, "The PC plays the board's")."""
        budgets = NATIVE_BUDGETS.get(cpu) if cpu else None
        self.master_nodes = budgets[0].get(self.rules.name) if budgets else None
        self.grade_nodes = budgets[1].get(self.rules.name, GRADE_NODES) if budgets else GRADE_NODES
        self.ponder_nodes = budgets[2] if budgets else 30000  # (the App's PONDER_NODES)
        self.master_cap = self.master_nodes or 30000  # (the App's MASTER_CAP)

    def describe(self):
        """What the board's start line says of it: 'native armv6m' or 'bytecode (why)',
        and its table's size."""
        if self.kernel:
            what = "native " + str(native_arch())
        else:
            what = "bytecode (%s)" % (native_why() or (
                "its evaluation has no kernel" if self.native else "native code off"))
        return "%s, table 2**%d" % (what, self.tt_bits)

    def release(self):
        """This engine is done: its table, keys and ply stacks go to the next Engine built (a board
        changing variant then allocates nothing big, so a fragmented heap never refuses
        it: the App's need_engine()), its book and endgame table are closed.  The
        engine must not be used after."""
        Search.release(self)
        Probes.release(self)

    def start(self, pos, level=None, nodes=None, deadline_ms=None, clock=None):
        """Begin a search of `pos` (copied) at `level` (a name of LEVELS or its index)
        or of `nodes` (None: Master's budget); run it with step() or search().  The
        lower levels search without the endgame table and the quiescence (their
        mistakes are theirs), Master plays the book's move where there is one."""
        self._end_grade_weights()  # (a grade abandoned: play's weights again)
        li = -1
        noise = 0
        if level is not None:
            li = LEVELS.index(level) if not isinstance(level, int) else level
            if nodes is None:
                nodes = self.master_nodes if li == 3 and self.master_nodes else \
                    level_nodes(self.rules, li)
            noise = level_noise(self.rules, li)
        if nodes is None:
            nodes = self.master_nodes or level_nodes(self.rules, 3)
        self._begin(pos, nodes, noise, li < 0 or li >= 3, deadline_ms, clock)
        if li == 3 and not self.done and self.force < 0 and self.book is not None:
            m = self.book_move(self.root)
            if m >= 0:  # Master's (or a hint's) move from the book: no search
                self.best_move = m
                self.book_hit = True
                self.done = True

    def search(self, pos, level=None, nodes=None, deadline_ms=None, clock=None):
        self.start(pos, level, nodes, deadline_ms, clock)
        while not self.step(1024):
            pass
        return self.best_move

    def hint(self, pos, level="master"):
        return self.search(pos, level)

