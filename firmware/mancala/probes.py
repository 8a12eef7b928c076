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

from mancala.rules import MASK, POS_LEN, SIDE


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

