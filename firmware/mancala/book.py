"""Opening book: Master's first moves, looked up instead of searched.

A book holds, for the positions of the first plies of a game (host_tools/generators/book.py:
every 0-2 ply opening, then the book side's deep-search move and every reply of the
other side, up to `depth` book moves), the move a deep search found.  Positions are
keyed by the engine's own 30-bit Zobrist key of the position seen from South
(`Engine.book_key`: a position with North to move is mirrored first, so one entry
serves both sides and both starters).

File: a 32-byte header, then `entries` entries of 6 bytes sorted by key:

    0  b"MBK1"       4  variant name, 8 bytes, NUL padded   12  depth (book moves)
    13 version (1)   14 reserved (2)   16 entries (4, little endian)
    20 CRC-32 of the entries (4)       24 nodes of each search (4)
    28 CRC-32 of bytes 0-27
    entry: key (4, little endian, < 2**30), move (pit 0-5 of the side to move),
           the search's score + 128 (stones, the side to move's view)

This module opens and checks a book; the lookups are the engine's own
(`Engine.set_book(book.f, book.entries)`, `Engine.book_move`): a binary search by
`seek` + `readinto` of one preallocated 6-byte buffer, nothing allocated, no int
reaching 2**30.  So the board drops this module once the book is open: only the
open file stays.  Pure; the file is injected.  (The writer is the PC's:
host_tools/generators/book.py.)
"""

from mancala.compat import const

try:
    from binascii import crc32
except ImportError:  # pragma: no cover - ports without binascii.crc32
    crc32 = None  # type: ignore[assignment]

MAGIC = b"MBK1"
VERSION = const(1)
HEADER = const(32)
ENTRY = const(6)
OFFSET = const(128)  # score byte = score + OFFSET
MAX_ENTRIES = const(100000)


class BookError(Exception):
    pass


def _halves(b, at):
    # a 32-bit CRC is not a small int on the device: compared as 16-bit halves
    return b[at] | b[at + 1] << 8, b[at + 2] | b[at + 3] << 8


def _crc(data, crc=0):
    return crc32(data, crc) & 0xFFFFFFFF if crc32 is not None else 0


class Book:
    """One book file, opened and checked: `f` (the open file), `entries`, `depth`,
    `nodes`.  `check=True` reads the entries once to verify their CRC (the board
    does it when it opens the book)."""

    def __init__(self, f, variant=None, check=True):
        self.f = f
        h = bytearray(HEADER)
        if f.readinto(h) != HEADER or h[0:4] != MAGIC:
            raise BookError("not a book file")
        if h[13] != VERSION:
            raise BookError("book version %d, this firmware reads %d" % (h[13], VERSION))
        c = _crc(h[0:28])
        if crc32 is not None and _halves(h, 28) != (c & 0xFFFF, c >> 16 & 0xFFFF):
            raise BookError("damaged book header")
        name = bytes(h[4:12]).split(b"\0")[0].decode()
        if variant is not None and name != variant:
            raise BookError("book is for %s, not %s" % (name, variant))
        self.variant = name
        self.depth = h[12]
        lo, hi = _halves(h, 16)
        if hi or lo > MAX_ENTRIES:
            raise BookError("book has too many entries")
        self.entries = lo
        lo, hi = _halves(h, 24)
        self.nodes = lo | hi << 16 if hi < 0x4000 else -1
        self._crc = _halves(h, 20)
        if check:
            self.verify()

    def verify(self):
        """Read every entry once: the size and (where the port has it) the CRC;
        raises BookError."""
        f = self.f
        f.seek(HEADER)
        buf = bytearray(16 * ENTRY)
        mv = memoryview(buf)
        left = self.entries * ENTRY
        crc = 0
        while left > 0:
            n = f.readinto(buf)
            if not n:
                raise BookError("book file is short by %d bytes" % left)
            if n > left:
                raise BookError("book file is longer than its entries")
            crc = _crc(mv[:n], crc)
            left -= n
        if f.readinto(buf):
            raise BookError("book file is longer than its entries")
        if crc32 is not None and (crc & 0xFFFF, crc >> 16 & 0xFFFF) != self._crc:
            raise BookError("book entries damaged (CRC mismatch)")

    def close(self):
        self.f.close()


def open_book(path, variant=None, check=True, log=None, opener=None):
    """The book at `path`, or None when it is missing or damaged (said on `log`
    in one line).  `opener(path)` opens it for reading (default open)."""
    try:
        f = opener(path) if opener is not None else open(path, "rb")
    except OSError:
        if log is not None:
            log("book: no %s; playing on without it" % path)
        return None
    try:
        return Book(f, variant, check)
    except (BookError, OSError, ValueError) as e:
        f.close()
        if log is not None:
            log("book: %s: %s; playing on without it" % (path, e))
        return None
