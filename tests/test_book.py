"""Master's opening book (issue 13): the generator, the file and its reader (also in
the MicroPython VM: no allocation per lookup), damaged and missing files, the engine
using it only for Master and hints, the board opening it, the match's master+book."""

import functools
import io
import random
import zlib

import pytest

from host_tools.generators import book as hb
from host_tools.runners import mpvm
from mancala.book import ENTRY, HEADER, Book, BookError, open_book
from mancala.engine import Engine
from mancala.rules import MASK, SIDE, get_rules

SHIPPED = hb.book_path("kalah")
TINY_NODES = 60


@functools.lru_cache(maxsize=None)
def tiny(depth=1):
    """A small book: every 0-2 ply opening (depth 1), cheap searches."""
    found = hb.build("kalah", depth, TINY_NODES, progress=False)
    return found, hb.book_bytes("kalah", depth, TINY_NODES, found)


def keys_of(data):
    n = (len(data) - HEADER) // ENTRY
    return [int.from_bytes(data[HEADER + i * ENTRY:HEADER + i * ENTRY + 4], "little")
            for i in range(n)]


def test_the_generator_stores_a_direct_search_of_every_opening():
    rules = get_rules("kalah")
    found, data = tiny()
    opens = [p for p in hb.openings(rules) if p[MASK]]
    # each position after 0-2 plies is a book position of one side (mirrored to
    # South), and so is each after the other side's replies to it
    assert {hb.canonical(p) for p in opens} < set(found)
    e = Engine(rules, tt_bits=16)
    for pos in random.Random(3).sample(sorted(found), 8):
        assert pos[SIDE] == 0
        m = e.search(bytearray(pos), level="master", nodes=TINY_NODES)
        assert (m, e.score, e.depth) == found[pos]
    assert tiny()[1] == hb.book_bytes("kalah", 1, TINY_NODES, hb.build(
        "kalah", 1, TINY_NODES, progress=False))  # deterministic


def test_the_book_follows_its_move_and_every_reply():
    rules = get_rules("kalah")
    t = hb.Tree(rules, 2)
    moves = {}
    while t.pending:
        for p, d in t.batch():
            m = next(k for k in range(6) if p[MASK] >> k & 1)  # any answer will do
            moves[p] = m
            t.expand(p, d, m)
    # after a depth-2 position's move, every reply of the other side (chains too)
    # reaches a book position again
    for p, d in t.best.items():
        if d < 2:
            continue
        c = bytearray(p)
        rules.move(c, moves[p])
        if not c[MASK] or c[SIDE] == 0:
            continue
        for k in range(6):
            if c[MASK] >> k & 1:
                g = bytearray(c)
                rules.move(g, k)
                while g[MASK] and g[SIDE] == 1:  # the reply's extra turns
                    rules.move(g, next(j for j in range(6) if g[MASK] >> j & 1))
                if g[MASK]:
                    assert hb.canonical(g) in moves


def test_reader_finds_every_entry_and_nothing_else():
    found, data = tiny()
    bk = Book(io.BytesIO(data), "kalah")
    assert bk.entries == len(found) and bk.depth == 1 and bk.nodes == TINY_NODES
    assert (HEADER, ENTRY) == (32, 6)  # what Engine.book_find reads
    keys = keys_of(data)
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    e = Engine(get_rules("kalah"), tt_bits=4)
    e.set_book(bk.f, bk.entries)
    for pos, (move, score, _) in found.items():
        assert e.book_find(e.book_key(bytearray(pos))) == move and e.book_score == score
    have = set(keys)
    rng = random.Random(1)
    others = [k + 1 for k in keys] + [k - 1 for k in keys] + \
        [rng.randrange(1 << 30) for _ in range(300)] + [0, (1 << 30) - 1]
    for k in others:
        if k not in have:
            assert e.book_find(k) == -1


def test_a_north_position_is_its_mirror():
    rules = get_rules("kalah")
    e = Engine(rules, tt_bits=4)
    south = rules.start(0)
    north = rules.start(1)
    assert e.book_key(north) == e.book_key(south) != e._hash(north)
    assert e._hash(south) == e.book_key(south)


def test_damaged_and_missing_books(tmp_path):
    _, data = tiny()
    Book(io.BytesIO(data), "kalah")
    flipped = bytearray(data)
    flipped[HEADER + 7] ^= 2
    with pytest.raises(BookError, match="CRC"):
        Book(io.BytesIO(bytes(flipped)), "kalah")
    with pytest.raises(BookError, match="short"):
        Book(io.BytesIO(data[:-3]), "kalah")
    with pytest.raises(BookError, match="longer"):
        Book(io.BytesIO(data + b"x"), "kalah")
    head = bytearray(data)
    head[12] ^= 1
    with pytest.raises(BookError, match="header"):
        Book(io.BytesIO(bytes(head)), "kalah")
    with pytest.raises(BookError, match="not a book"):
        Book(io.BytesIO(b"MTB1" + bytes(40)), "kalah")
    with pytest.raises(BookError, match="for kalah, not oware"):
        Book(io.BytesIO(data), "oware")
    path = tmp_path / "kalah.book"
    path.write_bytes(bytes(flipped))
    said = []
    assert open_book(str(path), "kalah", log=said.append) is None
    assert len(said) == 1 and "CRC" in said[0] and "playing on without it" in said[0]
    assert open_book(str(tmp_path / "none.book"), "kalah", log=said.append) is None
    assert "no " in said[1] and len(said) == 2


def one_entry_book(pos, move, variant="kalah"):
    key = Engine(get_rules(variant), tt_bits=4).book_key(pos)
    body = hb.entry(key, move, 3)
    return Book(io.BytesIO(hb.header(variant, 1, 1, zlib.crc32(body), 1) + body), variant)


def test_engine_uses_the_book_for_master_and_hints_only():
    rules = get_rules("kalah")
    pos = rules.start()
    plain = Engine(rules, tt_bits=12)
    with_book = Engine(rules, tt_bits=12)
    want = 5 if plain.search(pos, level="master") != 5 else 4  # not what it would play
    bk = one_entry_book(pos, want)
    with_book.set_book(bk.f, bk.entries)
    assert with_book.search(pos, level="master") == want
    assert with_book.book_hit and with_book.depth == 0 and with_book.nodes == 0
    assert with_book.hint(pos) == want
    # North to move in the mirrored start: the same entry
    assert with_book.search(rules.start(1), level=3) == want
    # grades, pondering (a node budget) and the lower levels search as without it
    for run in (lambda e: e.grade(pos, want),
                lambda e: (e.search(pos, nodes=900), e.nodes, e.depth, e.score),
                lambda e: (e.search(pos, level="strong"), e.nodes, e.depth, e.score),
                lambda e: (e.search(pos, level="beginner"), e.nodes, e.score)):
        assert run(with_book) == run(plain)
        assert not with_book.book_hit
    with_book.release()  # a variant change: the old engine's book file is closed
    assert bk.f.closed and with_book.book is None


def test_an_illegal_book_move_is_never_played():
    rules = get_rules("kalah")
    pos = rules.new_position([0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0], 0)
    plain = Engine(rules, tt_bits=12)
    e = Engine(rules, tt_bits=12)
    bk = one_entry_book(pos, 0)  # pit 1 is empty: a key's collision
    e.set_book(bk.f, bk.entries)
    assert e.search(pos, level="master") == plain.search(pos, level="master")
    assert not e.book_hit and e.nodes == plain.nodes > 0


def test_the_shipped_book_verifies_and_its_moves_are_found_again():
    bk = hb.load_book(SHIPPED, "kalah")  # header, size, CRC
    met, missing = hb.walk(bk, "kalah")
    assert not missing and len(met) == bk.entries >= 1500
    # a sample searched again at the book's own budget gives the same moves
    for pos in sorted(met)[::max(1, len(met) // 3)][:3]:
        assert hb.deep_search("kalah", pos, bk.nodes)[0] == met[pos]
    assert hb.main(["verify", SHIPPED]) == 0


def test_board_plays_the_book_and_says_a_damaged_one():
    from board_helpers import board, start

    from host_tools.fakes.board import index
    from host_tools.fakes.memfs import MemFs

    rules = get_rules("kalah")
    data = open(SHIPPED, "rb").read()
    fs = MemFs()
    fs.files["/tables/kalah.book"] = data
    b = board("pico_buttons", fs=fs, engine_cls=Engine, variant="kalah", opponent=4, starter=0)
    start(b)
    app = b.app
    assert app.engine.book is not None
    b.play_move(index("S1"))
    for _ in range(500):
        if b.mode() == "think":
            break
        b.turn()
    t0 = b.clock.now()
    assert b.until(("show",), 3000)
    assert b.clock.now() - t0 < 100  # no 2 s think: the book's move at once
    ref = Engine(rules, tt_bits=4)
    bk = hb.load_book(SHIPPED, "kalah")
    ref.set_book(bk.f, bk.entries)
    first = rules.start(0)
    rules.move(first, 0)
    assert app.sow_pit == ref.book_move(first) >= 0
    # a damaged book: one line on the console, the board plays on without it
    bad = bytearray(data)
    bad[HEADER + 11] ^= 1
    fs2 = MemFs()
    fs2.files["/tables/kalah.book"] = bytes(bad)
    b2 = board("pico_buttons", fs=fs2, engine_cls=Engine, variant="kalah", opponent=4)
    b2.app.new_game()
    assert b2.app.engine.book is None
    assert sum("book:" in ln for ln in b2.lines) == 1
    assert any("CRC" in ln and "without it" in ln for ln in b2.lines)


def test_match_plays_master_with_the_book():
    from host_tools.command.match import EnginePlayer, parse_player, play_game

    assert parse_player("master+book") == ("level+book", ("master", ""))
    assert parse_player("master+book:x.book") == ("level+book", ("master", "x.book"))
    assert parse_player("master")[0] == "level"
    rules = get_rules("kalah")
    p = EnginePlayer(rules, parse_player("master+book"), 1)
    assert p.engine.book is not None and p.kind == "level"
    r = play_game(("kalah", parse_player("master+book"), parse_player("beginner"), 0, 2, 1,
                   500))
    assert r[1] == 1.0


def test_match_plays_master_at_a_chips_budget():
    # master:N is the board's Master on a native chip: its book, its level, N nodes
    from host_tools.command.match import EnginePlayer, parse_player
    from mancala.game import Game

    assert parse_player("master:3000+book") == ("master+book", (3000, ""))
    rules = get_rules("kalah")
    game = Game(rules)
    p = EnginePlayer(rules, parse_player("master:3000+book"), 1)
    pit = p.move(game, [])
    assert p.engine.book_hit and pit == p.engine.book_move(game.pos)
    game.play(pit)
    while game.side == 0 and not game.over:  # the book's first move may give a turn
        game.play(p.move(game, []))
    # master:N without +book is the board's Master too: the book it carries (issue 43)
    board = EnginePlayer(rules, parse_player("master:3000"), 1)
    assert board.move(game, []) == p.engine.book_move(game.pos) and board.engine.book_hit
    # a node budget is a plain search, never the book
    plain = EnginePlayer(rules, parse_player("nodes:3000"), 1)
    plain.move(game, [])
    assert not plain.engine.book_hit and plain.engine.nodes >= 3000 > 2150


VM_CODE = """
import gc
from mancala.book import open_book
from mancala.engine import Engine
from mancala.rules import get_rules
b = open_book("/b/kalah.book", "kalah")
keys = [int(x) for x in open("/b/keys.txt").read().split()]
e = Engine(get_rules("kalah"), tt_bits=8)
e.set_book(b.f, b.entries)


def lookups(n, k):
    gc.collect()
    a0 = gc.mem_alloc()
    i = 0
    while i < n:
        e.book_find(k)
        i += 1
    return gc.mem_alloc() - a0


lookups(1, keys[0])
grow = lookups(200, keys[len(keys) // 2]) + lookups(200, keys[0] + 1)
ok = 0
for k in keys:
    ok += e.book_find(k) >= 0
miss = 0
for k in keys:
    miss += e.book_find(k + 1) >= 0 and (k + 1) not in keys
pos = get_rules("kalah").start()
m = e.search(pos, level=3)
print("V", grow, ok, len(keys), miss, m, e.book_hit, e.depth)
bad = open("/b/kalah.book", "rb").read()
f = open("/b/bad.book", "wb")
f.write(bad[:40] + bytes([bad[40] ^ 1]) + bad[41:])
f.close()
print("B", open_book("/b/bad.book", "kalah", log=print) is None)
"""


@pytest.mark.skipif(not mpvm.available(), reason="MicroPython VM not installed")
def test_reader_in_micropython(tmp_path):
    found, data = tiny()
    (tmp_path / "kalah.book").write_bytes(data)
    keys = keys_of(data)
    (tmp_path / "keys.txt").write_text(" ".join(map(str, keys)))
    out = mpvm.run(VM_CODE, mounts=[(str(tmp_path), "/b")])
    v = [ln.split() for ln in out.splitlines() if ln.startswith("V")][0]
    assert int(v[1]) == 0  # no allocation per lookup
    assert v[2] == v[3] == str(len(found))
    assert v[4] == "0"
    start = hb.canonical(get_rules("kalah").start())
    assert v[5:] == [str(found[start][0]), "True", "0"]
    assert "CRC" in out and out.strip().endswith("B True")


def test_cli_verify_and_show(tmp_path, capsys):
    found, data = tiny()
    path = tmp_path / "kalah.book"
    path.write_bytes(data)
    assert hb.main(["verify", str(path), "--sample", "2"]) == 0
    out = capsys.readouterr().out
    assert "the tree meets %d, misses 0" % len(found) in out
    assert "2 of 2 sampled moves found again at %d nodes" % TINY_NODES in out
    assert hb.main(["show", "--file", str(path)]) == 0
    start = hb.canonical(get_rules("kalah").start())
    assert "pit %d" % (found[start][0] + 1) in capsys.readouterr().out
    assert hb.main(["show", "kalah", "0,0,0,0,0,9,0,0,9,9,9,9,3,0", "S",
                    "--file", str(path)]) == 0
    assert "not in the book" in capsys.readouterr().out
    bad = bytearray(data)
    bad[-2] ^= 1
    path.write_bytes(bytes(bad))
    assert hb.main(["verify", str(path)]) == 1
    assert "CRC" in capsys.readouterr().err
    assert hb.main(["build", "--depth", "0"]) == 2
