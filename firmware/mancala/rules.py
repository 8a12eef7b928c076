"""The four rule sets of the board: ranok, mangala, kalah (3-6 seeds), oware.

The exact rules are in docs/RULES.en.md (from the product's RULES.md).  This module
holds what they share, kalah's move (the default game) and get_rules(); mangala's,
ranok's and oware's moves are mancala/variants.py's, imported when get_rules() first
asks for one of them: a board playing kalah holds none of their code (keep_only()).
The moves are the inner loop of the engine, so they are written for MicroPython bytecode:

* A position is one bytearray of POS_LEN bytes: the 14 counts in board order
  (S1..S6, S store, N1..N6, N store), the side to move, and the bitmask of the
  side to move's legal pits (bit k = its pit k+1).  A mask of 0 means the game is
  over, so "is it over" and "what may I play" cost one byte read.
* `Rules.move(pos, pit)` plays in place and allocates nothing; sowing follows a
  precomputed path per (side, pit), so no modular arithmetic or skip tests run
  per stone.  Copying a position (`dst[:] = src`) is one memcpy, which is how the
  engine undoes a move: it keeps one preallocated bytearray per ply.
* Pits are numbered 0..5 from the mover's own seat (the text notation adds 1).
"""

import sys

from mancala.compat import const

SOUTH = const(0)
NORTH = const(1)
S_STORE = const(6)
N_STORE = const(13)
SIDE = const(14)  # byte holding the side to move
MASK = const(15)  # byte holding the legal-pit mask of the side to move (0 = over)
POS_LEN = const(16)

# Flags returned by Rules.move().  Captured board indices are bits CAPTURED << i.
EXTRA = const(1)  # the same side moves again
OVER = const(2)  # the game ended with this move
SWEPT = const(4)  # an end-of-game rule moved stones from the rows to the stores
CAPTURED = const(8)

# Number of set bits of a 6-bit mask.
POPCOUNT = bytes(bin(i).count("1") for i in range(64))


class Rules:
    """Tables and moves of one rule set; subclasses specialise the move."""

    name = ""
    skips_origin = False  # the origin pit gets no stone on later laps
    sows_stores = True  # stones go into the mover's store while sowing
    win_threshold = 0  # a store holding this many ends the game at once (0: none)

    def __init__(self, seeds=4):
        self.seeds = seeds
        self.total = 12 * seeds
        self.id = self.name if seeds == 4 else self.name + str(seeds)
        # paths[side * 6 + pit]: board indices receiving stones 1, 2, 3, ...
        self.paths = tuple(self._path(side, pit) for side in (0, 1) for pit in range(6))

    def _path(self, side, pit):
        origin = side * 7 + pit
        out = bytearray()
        i = self._first(origin)
        while len(out) < self.total + 1:
            if self._receives(side, origin, i):
                out.append(i)
            i = (i + 1) % 14
        return bytes(out)

    def _first(self, origin):
        return (origin + 1) % 14

    def _receives(self, side, origin, index):
        if index == S_STORE or index == N_STORE:
            return self.sows_stores and index == side * 7 + 6
        return not (self.skips_origin and index == origin)

    # -- positions -------------------------------------------------------------

    def start(self, side=SOUTH):
        pos = bytearray(POS_LEN)
        for i in range(14):
            if i != S_STORE and i != N_STORE:
                pos[i] = self.seeds
        pos[SIDE] = side
        pos[MASK] = self.legal_mask(pos)
        return pos

    def new_position(self, counts, side):
        """A position from 14 counts; the legal mask (and so `over`) is derived."""
        pos = bytearray(POS_LEN)
        for i in range(14):
            pos[i] = counts[i]
        pos[SIDE] = side
        pos[MASK] = self.legal_mask(pos)
        self.finish_if_over(pos)
        return pos

    def finish_if_over(self, pos):
        """Apply the end-of-game rule to a position given from outside (text, a
        board's saved state) that is already over; True if it is over."""
        t = self.win_threshold
        if pos[MASK] and not (t and (pos[S_STORE] >= t or pos[N_STORE] >= t)):
            return False
        pos[MASK] = 0
        return True

    def legal_mask(self, pos):
        """Mover's non-empty pits; subclasses add their restrictions."""
        b = pos[SIDE] * 7
        m = 0
        if pos[b]:
            m = 1
        if pos[b + 1]:
            m |= 2
        if pos[b + 2]:
            m |= 4
        if pos[b + 3]:
            m |= 8
        if pos[b + 4]:
            m |= 16
        if pos[b + 5]:
            m |= 32
        return m

    def move(self, pos, pit):  # pragma: no cover - every variant overrides it
        raise NotImplementedError


def row_empty(pos, base):
    return not (pos[base] or pos[base + 1] or pos[base + 2] or pos[base + 3]
                or pos[base + 4] or pos[base + 5])


def row_sum(pos, base):
    return pos[base] + pos[base + 1] + pos[base + 2] + pos[base + 3] + pos[base + 4] + pos[base + 5]


def collect_rows(pos):
    """Each player takes the stones of their own row (kalah, oware)."""
    pos[S_STORE] += row_sum(pos, 0)
    pos[N_STORE] += row_sum(pos, 7)
    for i in range(6):
        pos[i] = 0
        pos[7 + i] = 0


def sweep_to_empty_row(pos, s_empty):
    """Mangala: the player whose row is empty takes what is left in the other row."""
    if s_empty:
        pos[S_STORE] += row_sum(pos, 7)
    else:
        pos[N_STORE] += row_sum(pos, 0)
    for i in range(6):
        pos[i] = 0
        pos[7 + i] = 0


class Kalah(Rules):
    name = "kalah"

    def finish_if_over(self, pos):
        if pos[MASK] and not (row_empty(pos, 0) or row_empty(pos, 7)):
            return False
        collect_rows(pos)
        pos[MASK] = 0
        return True

    def move(self, pos, pit):
        # The sowing, the empty-row test and the legal mask are written out here: a
        # call costs as much as a dozen bytecodes, and this runs at every node of
        # the search.
        side = pos[SIDE]
        own = side * 7
        origin = own + pit
        n = pos[origin]
        pos[origin] = 0
        path = self.paths[side * 6 + pit]
        for i in range(n):
            pos[path[i]] += 1
        last = path[n - 1]
        flags = 0
        if last == own + 6:
            flags = EXTRA
            b = own  # row of the side to move next
        else:
            if own <= last < own + 6 and pos[last] == 1 and pos[12 - last]:
                pos[own + 6] += pos[12 - last] + 1
                pos[12 - last] = 0
                pos[last] = 0
                flags = (CAPTURED << last) | (CAPTURED << (12 - last))
            pos[SIDE] = side ^ 1
            b = 7 - own
        # The next mover's legal pits are its non-empty ones; 0 means its row is empty.
        m = 0
        if pos[b]:
            m = 1
        if pos[b + 1]:
            m |= 2
        if pos[b + 2]:
            m |= 4
        if pos[b + 3]:
            m |= 8
        if pos[b + 4]:
            m |= 16
        if pos[b + 5]:
            m |= 32
        o = 7 - b
        if not (m and (pos[o] or pos[o + 1] or pos[o + 2] or pos[o + 3] or pos[o + 4]
                       or pos[o + 5])):  # a row is empty: the game is over
            collect_rows(pos)
            pos[MASK] = 0
            return flags | OVER | SWEPT
        pos[MASK] = m
        return flags


VARIANTS = ("ranok", "mangala", "kalah", "oware")
# What the board's menu offers (its variant item, in order): the four and kalah's
# 3- and 6-seed games.
MENU_VARIANTS = ("ranok", "mangala", "kalah", "oware", "kalah3", "kalah6")
# the classes of mancala/variants.py (kalah's is here)
_CLASSES = {"ranok": "Ranok", "mangala": "Mangala", "oware": "Oware"}
_cache = {}  # type: dict


def get_rules(variant):
    """Rules for a variant id: ranok, mangala, kalah (= kalah4), kalah3..kalah6, oware.

    Raises ValueError with a one-line message for anything else.
    """
    rules = _cache.get(variant)
    if rules is not None:
        return rules
    name, seeds = variant, 4
    if variant[:5] == "kalah" and len(variant) == 6 and variant[5] in "3456":
        name, seeds = "kalah", int(variant[5])
    if name == "kalah":
        rules = Kalah(seeds)
    else:
        cls = _CLASSES.get(name)
        if cls is None:
            raise ValueError("unknown variant %r (expected one of: ranok, mangala, kalah, "
                             "kalah3, kalah5, kalah6, oware)" % variant)
        # (by its name, as modes.load imports a mode's family: variants.py builds on
        # this module, which looks its classes up only when one is asked for)
        rules = getattr(__import__("mancala.variants", None, None, (cls,), 0), cls)(seeds)
    _cache[variant] = rules
    _cache[rules.id] = rules
    return rules


def keep_only(rules):
    """Forget every cached rule set but `rules` (the board: one variant in play, and a
    rule set's tables are RAM; get_rules() makes another again when asked)."""
    for k in [k for k in _cache if _cache[k] is not rules]:
        del _cache[k]
    if sys.implementation.name == "micropython":  # (the PC keeps them: tests hold many)
        if rules.name == "kalah":  # the other three's code goes (get_rules: back if asked)
            from mancala import forget

            forget("variants")
        kernels = sys.modules.get("mancala.native")  # (its flat paths: loaded or not,
        if kernels is not None:  # this module does not import the kernels)
            kernels.keep_only(rules.name)


def perft(rules, pos, depth):
    """Number of legal move sequences of `depth` plies from `pos`."""
    if depth == 0:
        return 1
    stack = [bytearray(POS_LEN) for _ in range(depth)]
    return _perft(rules, pos, stack, 0, depth)


def _perft(rules, pos, stack, ply, depth):
    mask = pos[MASK]
    if depth == 1:
        return POPCOUNT[mask]
    child = stack[ply]
    total = 0
    for pit in range(6):
        if mask >> pit & 1:
            child[:] = pos
            rules.move(child, pit)
            total += _perft(rules, child, stack, ply + 1, depth - 1)
    return total
