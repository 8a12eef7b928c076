"""Endgame tables: the exact value of every position with few seeds on the board.

A table holds, for one rule set and every arrangement of at most `seeds` stones
in the 12 pits, the exact future score of the side to move: what it will still
gain minus what the opponent will still gain, with best play from both sides.
The stores do not enter the index: the future of a position depends only on its
pits (docs/ENGINE.md, "Endgame tables", says why that stays exact for the winner
under the 25-stone and more-than-24 ends, and how Oware's repetition end is
treated).  So a position's final score difference is its store difference plus
the table's value.

Index: the pits seen from the side to move (its row first, then the opponent's),
ranked among all arrangements of at most `seeds` stones: first by the number of
stones n, then in lexicographic order of the 12 counts.  With C(m, k) the number
of ways to put m stones in k pits, the arrangements of fewer than n stones come
first (C(n - 1, 13) of them), and within n each pit adds the arrangements whose
count there is smaller with the same counts before it:
C(r, k) - C(r - c, k) for r stones left over k pits and a count c.

File: a 32-byte header, then one byte per position (value + 128; 255 = not
known, an Oware position whose value depends on how a cycle ends).

    0  b"MTB1"       4  variant name, 8 bytes, NUL padded   12  seeds (1 byte)
    13 version (1)   14 reserved (2)   16 entries (4, little endian)
    20 CRC-32 of the entries (4)       24 reserved (4)   28 CRC-32 of bytes 0-27

Lookups read one byte through a preallocated buffer: no allocation per lookup.
Written for MicroPython and CPython alike (pure, the file is injected).
"""

from mancala.compat import const
from mancala.probes import HEADER, UNKNOWN, TableLookups, rank_position

try:
    from binascii import crc32
except ImportError:  # pragma: no cover - ports without binascii.crc32
    crc32 = None  # type: ignore[assignment]

MAGIC = b"MTB1"
VERSION = const(1)
OFFSET = const(128)  # entry byte = value + OFFSET
MAX_SEEDS = const(16)  # C(16 + 12, 12) = 30,421,755 entries: below 2**30


def _comb(n, k):
    if k < 0 or k > n:
        return 0
    r = 1
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


class Ranker:
    """Combinatorial ranks of pit arrangements with at most `seeds` stones."""

    def __init__(self, seeds):
        if not 0 <= seeds <= MAX_SEEDS:
            raise ValueError("tables hold 0 to %d seeds, not %d" % (MAX_SEEDS, seeds))
        self.seeds = seeds
        w = seeds + 1
        self.width = w
        # ways[k * w + m]: arrangements of m stones in k pits (k 0..13), all < 2**30
        ways = []
        for k in range(14):
            for m in range(w):
                ways.append(_comb(m + k - 1, k - 1) if k else (1 if m == 0 else 0))
        self.ways = tuple(ways)
        # first[n]: the index of the first arrangement of n stones
        self.first = tuple(_comb(n - 1 + 12, 12) if n else 0 for n in range(w + 1))
        self.size = self.first[w]

    def rank(self, counts, start):
        """The index of the 12 counts counts[start .. start + 11] (n <= seeds)."""
        ways = self.ways
        w = self.width
        n = 0
        for i in range(start, start + 12):
            n += counts[i]
        idx = self.first[n]
        r = n
        k = 12
        for i in range(start, start + 11):
            c = counts[i]
            if c:
                idx += ways[k * w + r] - ways[k * w + r - c]
                r -= c
            k -= 1
        return idx

    def rank_position(self, pos):
        """The index of a board position (14 counts, side to move at byte 14),
        seen from the side to move, or -1 if it holds more than `seeds` stones."""
        return rank_position(pos, self.seeds, self.ways, self.width, self.first)

    def unrank(self, idx, out):
        """Write the 12 counts of index `idx` into out[0..11]."""
        first = self.first
        n = 0
        while first[n + 1] <= idx:
            n += 1
        idx -= first[n]
        ways = self.ways
        w = self.width
        r = n
        k = 12
        for i in range(11):
            # the count c here is the largest with ways(r, k) - ways(r - c, k) <= idx
            c = 0
            base = ways[k * w + r]
            while c < r and base - ways[k * w + r - c - 1] <= idx:
                c += 1
            if c:
                idx -= base - ways[k * w + r - c]
            out[i] = c
            r -= c
            k -= 1
        out[11] = r
        return out


def header(variant, seeds, entries, crc):
    """The 32-byte header of a table file."""
    h = bytearray(HEADER)
    h[0:4] = MAGIC
    name = variant.encode()
    h[4:4 + len(name)] = name
    h[12] = seeds
    h[13] = VERSION
    _put32(h, 16, entries)
    _put32(h, 20, crc)
    _put32(h, 28, _crc(h[0:28]))
    return h


def _put32(b, at, v):
    b[at] = v & 255
    b[at + 1] = v >> 8 & 255
    b[at + 2] = v >> 16 & 255
    b[at + 3] = v >> 24 & 255


def _get32(b, at):
    # two 16-bit halves: a 32-bit CRC does not fit a small int on the device,
    # so CRCs are compared as (high, low) pairs of halves
    return b[at] | b[at + 1] << 8, b[at + 2] | b[at + 3] << 8


def _crc(data, crc=0):
    if crc32 is None:  # pragma: no cover
        return 0
    return crc32(data, crc) & 0xFFFFFFFF


class TableError(Exception):
    pass


class Table(TableLookups):
    """One table file, opened for lookups (probe, value; the board keeps its lookups()
    alone once it is checked).

    `f` is an open binary file (the board's flash, or a PC file); `check=True`
    reads the whole file once to verify its CRC (the board does it at start-up,
    through the same small buffer)."""

    def __init__(self, f, variant=None, check=True, chunk=None):
        h = bytearray(HEADER)
        if f.readinto(h) != HEADER or h[0:4] != MAGIC:
            raise TableError("not a table file")
        if h[13] != VERSION:
            raise TableError("table version %d, this firmware reads %d" % (h[13], VERSION))
        # (a port without binascii.crc32 checks sizes only)
        if crc32 is not None and _get32(h, 28) != _halves(_crc(h[0:28])):
            raise TableError("damaged table header")
        name = bytes(h[4:12]).split(b"\0")[0].decode()
        if variant is not None and name != variant:
            raise TableError("table is for %s, not %s" % (name, variant))
        self.variant = name
        self.ranker = Ranker(h[12])
        r = self.ranker
        TableLookups.__init__(self, f, r.seeds, r.ways, r.width, r.first)
        lo, hi = _get32(h, 16)
        entries = lo | hi << 16
        if entries != self.ranker.size:
            raise TableError("table has %d entries, %d seeds need %d"
                             % (entries, self.seeds, self.ranker.size))
        self.entries = entries
        self._crc = _get32(h, 20)
        if check and crc32 is not None:
            self.verify(chunk)

    def verify(self, chunk=None):
        """Read every entry once and compare the CRC; raises TableError."""
        buf = chunk if chunk is not None else bytearray(512)
        f = self.f
        f.seek(HEADER)
        left = self.entries
        crc = 0
        mv = memoryview(buf)
        while left > 0:
            n = f.readinto(buf)
            if not n:
                raise TableError("table file is short by %d bytes" % left)
            if n > left:
                n = left
            crc = _crc(mv[:n], crc)
            left -= n
        if _halves(crc) != self._crc:
            raise TableError("table entries damaged (CRC mismatch)")

    def value(self, pos):
        """Future score of the side to move in stones, or None (too many seeds,
        or no exact value)."""
        idx = self.ranker.rank_position(pos)
        if idx < 0:
            return None
        b = self.value_at(idx)
        if b == UNKNOWN:
            return None
        return b - OFFSET


def _halves(v):
    return v & 0xFFFF, v >> 16 & 0xFFFF


TABLE_DIR = "/tables"  # on the board: outside the application slots (docs/UPDATING.md)


def board_path(variant):
    """Where the board keeps the table of a rule set (kalah3..kalah6 share kalah's)."""
    return TABLE_DIR + "/" + variant + ".tb"


def open_table(path, variant=None, check=True, log=None, opener=None):
    """The table at `path`, or None when it is missing or damaged (said on `log`).
    `opener(path)` opens it for reading (the board's filesystem; default open)."""
    try:
        f = opener(path) if opener is not None else open(path, "rb")
    except OSError:
        if log is not None:
            log("tables: no %s; playing on without it" % path)
        return None
    try:
        return Table(f, variant, check)
    except (TableError, OSError, ValueError) as e:
        f.close()
        if log is not None:
            log("tables: %s: %s; playing on without it" % (path, e))
        return None
