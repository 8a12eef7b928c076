# mypy: disable-error-code="attr-defined, has-type"
# (a mixin: its methods run on an Engine, whose attributes Search.__init__ makes)
"""What the search looks up instead of searching: the endgame table and the opening book.

The part of Engine (mancala.engine) that holds them: set_table() gives the search
(mancala.search) a mancala.tablebase.Table, whose exact values it reads for every
child with at most `table.seeds` stones (Table.probe, in the search loop itself);
set_book() an opening book's open file (mancala.book), whose move Master plays at
once in a position the book has.  Both stay on the flash: a probe reads a few bytes
into a buffer made once, nothing is allocated.
"""

from mancala.compat import const
from mancala.rules import MASK, POS_LEN, SIDE

UNKNOWN = const(255)  # a table's entry byte with no exact value (mancala.tablebase)
HEADER = const(32)  # the bytes of a table file's header (mancala.tablebase)


def rank_position(pos, seeds, ways, w, first):
    """The index of a board position (14 counts, side to move at byte 14) in a table
    of `seeds` stones, seen from the side to move, or -1 if it holds more stones.
    ways/w/first: the table's combinatorial counts (mancala.tablebase.Ranker)."""
    if pos[14]:
        own, opp = 7, 0
    else:
        own, opp = 0, 7
    n = 0
    for i in range(6):
        n += pos[own + i] + pos[opp + i]
    if n > seeds:
        return -1
    idx = first[n]
    r = n
    k = 12
    for j in range(11):
        c = pos[own + j] if j < 6 else pos[opp + j - 6]
        if c:
            idx += ways[k * w + r] - ways[k * w + r - c]
            r -= c
        k -= 1
    return idx


class TableLookups:
    """An open endgame table's lookups alone: what the search reads of it (probe, last,
    seeds, close).  The board keeps this and drops mancala.tablebase (its checks, ranks
    and builds: ~5 KB of code on the heap) once a table is open and checked
    (modes/menu.py open_tables); tablebase.Table is one too."""

    def __init__(self, f, seeds, ways, width, first):
        self.f = f
        self.seeds = seeds
        self.ways = ways
        self.width = width
        self.first = first
        self.buf = bytearray(1)
        self.last = UNKNOWN

    def value_at(self, idx):
        """The entry byte at index idx (UNKNOWN for no exact value)."""
        f = self.f
        f.seek(HEADER + idx)
        if f.readinto(self.buf) != 1:
            return UNKNOWN
        return self.buf[0]

    def probe(self, pos):
        """The entry byte of `pos` (value + 128), also kept in `last`; UNKNOWN when it
        holds more than `seeds` stones or has no exact value (nothing allocated)."""
        idx = rank_position(pos, self.seeds, self.ways, self.width, self.first)
        b = UNKNOWN if idx < 0 else self.value_at(idx)
        self.last = b
        return b

    def lookups(self):
        """This table's lookups alone (a TableLookups holds no other module's code)."""
        return TableLookups(self.f, self.seeds, self.ways, self.width, self.first)

    def close(self):
        self.f.close()


class Probes:
    """Engine's endgame-table and book methods (a mixin: their state and the keys are
    the search's, made by Search.__init__)."""

    def release(self):
        """Close the book and the table (Engine.release): an open file holds a buffer,
        and the next engine opens its own variant's."""
        if self.book is not None:
            self.book.close()
            self.book = None
        if self.table is not None:
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

