"""Opening books for Master: its first moves from deep searches (docs/ENGINE.md,
"Opening book").

    mancala book build [--variant V] [--depth D] [--nodes N] [--workers W] [--out F]
    mancala book verify [FILE] [--variant V] [--sample K] [--nodes N]
    mancala book show [POSITION] [--variant V] [--file F]

Which positions: every position where a side is to move after 0, 1 or 2 plies
from the start (any moves; a ply is one sowing, so an extra turn is a ply, as
`mancala match` makes its random openings, host_tools/command/match.opening()).  From
each, for each book side (South, North): at the book side's positions the book
move only is followed, at the other side's every legal move (extra-turn chains
too), until the book side has had `depth` moves from the book.  A position with
North to move is stored mirrored (seen from South: `Engine.book_key`), so the
book serves either starter too.

Each move is Master's search of the position (seen from South) at `nodes` nodes,
quiescence on, the engine's table cleared first: the same input gives the same
book.  The file format is in mancala.book.
"""

import os
import struct
import sys
import time
import zlib

from mancala import book as fw
from mancala.engine import Engine
from mancala.rules import MASK, SIDE, get_rules

VARIANTS = ("kalah", "oware")
DEPTH = {"kalah": 3, "oware": 2}  # book moves per line: kalah 8,895 positions (D 2: 1,646)
NODES = 100000  # per position: ~45x Master's 2,150 on a Pico
OPENING_PLIES = 2
TT_BITS = 16
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOOK_DIR = os.path.join(ROOT, "firmware", "tables")  # the board's /tables/


def book_path(variant, where=BOOK_DIR):
    """The committed book of a variant on the PC (mancala.book.board_path on the board)."""
    return os.path.join(where, variant + ".book")


def canonical(pos):
    """`pos` seen from South (North to move: the rows swapped), as bytes."""
    if not pos[SIDE]:
        return bytes(pos)
    b = bytearray(pos)
    b[0:7] = pos[7:14]
    b[7:14] = pos[0:7]
    b[SIDE] = 0
    return bytes(b)


def openings(rules, plies=OPENING_PLIES):
    """Every position with a side to move after 0..plies plies from the start
    (South starts, as in `mancala match`), each once, in a fixed order."""
    seen = {}
    level = [bytes(rules.start())]
    for _ in range(plies + 1):
        nxt = []
        for p in level:
            if p in seen or not p[MASK]:
                continue
            seen[p] = True
            for k in range(6):
                if p[MASK] >> k & 1:
                    c = bytearray(p)
                    rules.move(c, k)
                    nxt.append(bytes(c))
        level = nxt
    return list(seen)


def header(variant, depth, entries, crc, nodes):
    """The 32-byte header of a book file (mancala.book's format)."""
    h = fw.MAGIC + variant.encode().ljust(8, b"\0") + struct.pack(
        "<BBHIII", depth, fw.VERSION, 0, entries, crc, nodes)
    return h + struct.pack("<I", zlib.crc32(h))


def entry(key, move, score):
    """One 6-byte entry: key (< 2**30), move, score + 128 (clamped to a byte)."""
    if not 0 <= key < 1 << 30 or not 0 <= move < 6:
        raise ValueError("a book entry holds a 30-bit key and a pit 0-5")
    return struct.pack("<IBB", key, move, max(0, min(255, score + fw.OFFSET)))


_ENGINES = {}


def deep_search(variant, pos, nodes):
    """(move, score, depth) of Master's search of `pos` at `nodes` nodes, the
    table cleared first (what the book stores; also the test's reference)."""
    e = _ENGINES.get(variant)
    if e is None:
        e = _ENGINES[variant] = Engine(get_rules(variant), tt_bits=TT_BITS, seed=0)
    e.keep = False
    e.start(bytearray(pos), level="master", nodes=nodes)
    while not e.step(4096):
        pass
    return e.best_move, e.score, e.depth


def _search_task(task):
    variant, pos, nodes = task
    return pos, deep_search(variant, pos, nodes)


class Tree:
    """The book's positions: a closure over the openings that asks `answer(pos)`
    (pos seen from South) for the book side's move.  `layers()` yields the
    positions still to answer, a batch at a time (a batch can be searched in
    parallel: none depends on another)."""

    def __init__(self, rules, depth, plies=OPENING_PLIES):
        self.rules = rules
        self.depth = depth
        self.best = {}  # canonical position -> the most book moves left it was reached with
        self.pending = {}
        self._seen = set()
        for root in openings(rules, plies):
            for side in (0, 1):
                self.reach(bytearray(root), side, depth)

    def reach(self, pos, side, d):
        """Follow every move of the other side from `pos` until `side` is to move."""
        if not pos[MASK]:
            return
        if pos[SIDE] == side:
            if d <= 0:
                return
            c = canonical(pos)
            if self.best.get(c, 0) >= d or self.pending.get(c, 0) >= d:
                return
            self.pending[c] = d
            return
        tag = (bytes(pos), side, d)
        if tag in self._seen:
            return
        self._seen.add(tag)
        for k in range(6):
            if pos[MASK] >> k & 1:
                child = bytearray(pos)
                self.rules.move(child, k)
                self.reach(child, side, d)

    def batch(self):
        """The positions to expand next (sorted), taking them out of pending."""
        items = sorted(self.pending.items())
        self.pending = {}
        return items

    def expand(self, pos, d, move):
        """`pos` (seen from South) gets `move`: follow it with d - 1 book moves."""
        if self.best.get(pos, 0) >= d:
            return
        self.best[pos] = d
        child = bytearray(pos)
        self.rules.move(child, move)
        self.reach(child, 0, d - 1)


def build(variant, depth, nodes, workers=1, progress=True, plies=OPENING_PLIES, out=None):
    """{canonical position: (move, score, search depth)} of a book, searched."""
    rules = get_rules(variant)
    tree = Tree(rules, depth, plies)
    found = {}
    t0 = time.time()
    pool = None
    if workers > 1:
        import multiprocessing
        pool = multiprocessing.get_context("fork").Pool(workers)
    err = out or sys.stderr
    try:
        while tree.pending:
            items = tree.batch()
            todo = [(variant, p, nodes) for p, _ in items if p not in found]
            results = pool.imap(_search_task, todo, 4) if pool else map(_search_task, todo)
            for i, (pos, r) in enumerate(results, 1):
                found[pos] = r
                if progress:
                    err.write("book %s: %d positions searched (this batch %d/%d), %.0f s\n"
                              % (variant, len(found), i, len(todo), time.time() - t0))
                    err.flush()
            for p, d in items:
                tree.expand(p, d, found[p][0])
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return found


def count(variant, depth, nodes=200, plies=OPENING_PLIES):
    """Positions a book of `depth` would hold (moves from cheap searches: the
    size, not the book)."""
    return len(build(variant, depth, nodes, progress=False, plies=plies))


def book_bytes(variant, depth, nodes, found):
    """The file of a book: header and entries sorted by key."""
    e = Engine(get_rules(variant), tt_bits=4, seed=0)
    entries = {}
    for pos, (move, score, _) in found.items():
        key = e.book_key(bytearray(pos))
        if key in entries and entries[key][0] != pos:
            raise ValueError("two book positions share the key %d" % key)
        entries[key] = (pos, move, score)
    body = bytearray()
    for key in sorted(entries):
        _, move, score = entries[key]
        body += entry(key, move, score)
    return header(variant, depth, len(entries), zlib.crc32(body), nodes) + bytes(body)


def write_book(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def install_books(dest, variants):
    """Copy the committed books of `variants` into the folder `dest` (the
    simulator's /tables/, as deploy sends them); returns the names copied."""
    import shutil

    out = []
    for v in sorted(variants):
        src = book_path(v)
        if not os.path.exists(src):
            continue
        os.makedirs(dest, exist_ok=True)
        target = os.path.join(dest, v + ".book")
        if not (os.path.exists(target) and open(target, "rb").read() == open(src, "rb").read()):
            shutil.copyfile(src, target + ".tmp")
            os.replace(target + ".tmp", target)
        out.append(v + ".book")
    return out


def load_book(path, variant=None, check=True):
    """A book file on the PC (raises BookError or OSError)."""
    return fw.Book(open(path, "rb"), variant, check)


def walk(book, variant, plies=OPENING_PLIES):
    """Walk the book's tree from the openings with its own moves: every book
    position it meets ({canonical position: move}) and those it misses."""
    rules = get_rules(variant)
    e = Engine(rules, tt_bits=4, seed=0)
    e.set_book(book.f, book.entries)

    class Reader(Tree):
        def __init__(self):
            self.met = {}
            self.missing = []
            Tree.__init__(self, rules, book.depth, plies)

    t = Reader()
    while t.pending:
        for p, d in t.batch():
            m = e.book_move(bytearray(p))
            if m < 0:
                t.missing.append(p)
                continue
            t.met[p] = m
            t.expand(p, d, m)
    return t.met, t.missing


# ---------------------------------------------------------------------------
# the command

def main(argv=None):
    """`mancala book`; every failure is one line and a non-zero status."""
    from host_tools.argkit import run_command

    return run_command("book", _main, sys.argv[1:] if argv is None else argv)


def _main(argv):
    from host_tools.argkit import Parser, UsageError, int_type

    p = Parser(prog="mancala book", description="Opening books for Master: build, verify, show.")
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="search the book's positions and write the file")
    b.add_argument("--variant", default="kalah", choices=VARIANTS)
    b.add_argument("--depth", type=int_type("--depth", 1, 12), default=None,
                   help="book moves per line (default %s)" % DEPTH)
    b.add_argument("--nodes", type=int_type("--nodes", 1, 10000000), default=NODES)
    b.add_argument("--workers", type=int_type("--workers", 1, 8), default=1)
    b.add_argument("--out", default=None, help="file (default firmware/tables/VARIANT.book)")
    b.add_argument("--count", action="store_true",
                   help="only count the positions of each depth up to --depth (cheap searches)")
    v = sub.add_parser("verify", help="header, size, CRC; every entry on the book's tree; "
                                      "a sample of moves searched again")
    v.add_argument("file", nargs="?", default=None)
    v.add_argument("--variant", default="kalah", choices=VARIANTS)
    v.add_argument("--sample", type=int_type("--sample", 0, 100000), default=0,
                   help="search this many entries again (default none)")
    v.add_argument("--nodes", type=int_type("--nodes", 1, 10000000), default=None,
                   help="their budget (default the book's)")
    s = sub.add_parser("show", help="the book's move of a position (default the start)")
    s.add_argument("position", nargs="*", help="e.g. kalah 4,4,4,4,4,4,0,4,4,4,4,4,4,0 N")
    s.add_argument("--variant", default="kalah", choices=VARIANTS)
    s.add_argument("--file", default=None)
    a = p.parse_args(argv)
    if a.cmd == "build":
        depth = a.depth or DEPTH[a.variant]
        if a.count:
            for d in range(1, depth + 1):
                print("%s depth %d: %d positions" % (a.variant, d, count(a.variant, d)))
            return 0
        out = a.out or book_path(a.variant)
        t0 = time.time()
        found = build(a.variant, depth, a.nodes, a.workers)
        data = book_bytes(a.variant, depth, a.nodes, found)
        write_book(out, data)
        print("%s: %d positions, depth %d, %d nodes each, %d bytes, %.0f s"
              % (out, len(found), depth, a.nodes, len(data), time.time() - t0))
        return 0
    path = (a.file if a.cmd == "verify" else None) or getattr(a, "file", None) \
        or book_path(a.variant)
    try:
        bk = load_book(path, a.variant)
    except OSError as e:
        print("mancala book: %s: %s" % (path, e.strerror), file=sys.stderr)
        return 1
    except fw.BookError as e:
        print("mancala book: %s: %s" % (path, e), file=sys.stderr)
        return 1
    if a.cmd == "verify":
        met, missing = walk(bk, a.variant)
        bad = len(missing) + (bk.entries - len(met))
        print("%s: ok (%s, depth %d, %d entries, %d nodes each); the tree meets %d, "
              "misses %d" % (path, bk.variant, bk.depth, bk.entries, bk.nodes, len(met),
                             len(missing)))
        if a.sample:
            nodes = a.nodes or bk.nodes
            keys = sorted(met)
            step = max(1, len(keys) // a.sample)
            same = 0
            picked = keys[::step][:a.sample]
            for pos in picked:
                m = deep_search(a.variant, pos, nodes)[0]
                same += m == met[pos]
            print("%d of %d sampled moves found again at %d nodes" % (same, len(picked), nodes))
            bad += len(picked) - same if nodes == bk.nodes else 0
        return 1 if bad else 0
    from mancala.notation import NotationError, format_position, parse_any

    try:
        game = parse_any(" ".join(a.position) if a.position else a.variant)
    except NotationError as e:
        raise UsageError(str(e)) from None
    rules, pos = game.rules, game.pos
    if rules.id != bk.variant:
        raise UsageError("the book is for %s, not %s" % (bk.variant, rules.id))
    e = Engine(rules, tt_bits=4, seed=0)
    e.set_book(bk.f, bk.entries)
    print("%s: %d entries, depth %d, %d nodes each" % (path, bk.entries, bk.depth, bk.nodes))
    m = e.book_move(pos)
    print("%s: %s" % (format_position(rules, pos),
                      "pit %d (score %+d)" % (m + 1, e.book_score) if m >= 0 else "not in the book"))
    return 0
