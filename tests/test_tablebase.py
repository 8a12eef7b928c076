"""Endgame tables (issue 14): ranks, every entry against a plain exhaustive search
under the rules core, damaged files, and the reader in the MicroPython VM."""

import functools
import io
import os
import random

import pytest

from host_tools.generators.tablebase import (
    VARIANTS,
    MemoryTable,
    generate,
    main,
    table_bytes,
)
from host_tools.runners import mpvm
from mancala.rules import MASK, N_STORE, OVER, S_STORE, SIDE, get_rules
from mancala.tablebase import HEADER, OFFSET, UNKNOWN, Ranker, Table, TableError, open_table

SEEDS = 6


@functools.lru_cache(maxsize=None)
def built(variant, seeds=SEEDS):
    return table_bytes(variant, seeds)


def board(rules, counts12, side, stores=(0, 0), raw=False):
    """A position with the mover's row counts12[0:6] and the opponent's [6:12]
    (through the rules' end-of-game rule unless raw)."""
    counts = [0] * 14
    own, opp = (7, 0) if side else (0, 7)
    for j in range(6):
        counts[own + j] = counts12[j]
        counts[opp + j] = counts12[6 + j]
    counts[S_STORE], counts[N_STORE] = stores
    if raw:
        pos = bytearray(16)
        pos[:14] = bytes(counts)
        pos[SIDE] = side
        return pos
    return rules.new_position(counts, side)


def entry(table, counts12):
    b = table.value_at(table.ranker.rank(counts12, 0))
    return None if b == UNKNOWN else b - OFFSET


def test_rank_unrank_round_trip_every_position():
    r = Ranker(SEEDS)
    out = [0] * 12
    seen = set()
    for idx in range(r.size):
        r.unrank(idx, out)
        assert sum(out) <= SEEDS
        seen.add(tuple(out))
        assert r.rank(out, 0) == idx
        for side in (0, 1):
            assert r.rank_position(board(None, out, side, raw=True)) == idx
    assert len(seen) == r.size == 18564  # C(6 + 12, 12)


def test_rank_round_trip_large_tables():
    r = Ranker(16)
    assert r.size == 30421755 < 2 ** 30
    rng = random.Random(5)
    out = [0] * 12
    for _ in range(2000):
        idx = rng.randrange(r.size)
        r.unrank(idx, out)
        assert r.rank(out, 0) == idx
    assert r.rank_position(bytearray(16)) == 0
    many = bytearray(16)
    many[0] = 17
    assert r.rank_position(many) == -1


# -- every entry against a plain search ---------------------------------------------


_MEMO = {}  # one memo per rule set, shared by the calls of a test run


def plain_value(rules, pos):
    """The final store difference (side to move minus the other) with best play:
    a plain recursive search over the rules core, memoised on the whole position.
    Only for rules whose positions cannot repeat (kalah, mangala, ranok)."""
    memo = _MEMO.setdefault(rules.id, {})

    def search(p):
        key = bytes(p)
        got = memo.get(key)
        if got is not None:
            return got
        me = p[SIDE]
        if not p[MASK]:
            v = p[S_STORE] - p[N_STORE]
            return v if me == 0 else -v
        best = None
        for pit in range(6):
            if p[MASK] >> pit & 1:
                c = bytearray(p)
                flags = rules.move(c, pit)
                if flags & OVER:
                    v = c[S_STORE] - c[N_STORE]
                    v = v if me == 0 else -v
                else:
                    v = search(c)
                    if c[SIDE] != me:
                        v = -v
                if best is None or v > best:
                    best = v
        memo[key] = best
        return best

    return search(pos)


def stores_diff(pos):
    d = pos[S_STORE] - pos[N_STORE]
    return -d if pos[SIDE] else d


@pytest.mark.parametrize("variant", ["kalah", "mangala", "ranok"])
def test_every_entry_equals_plain_search_empty_stores(variant):
    rules = get_rules(variant)
    data, stats = built(variant)
    table = MemoryTable(data, variant)
    assert sum(s[2] for s in stats) == 0  # no cycles in these rules: all exact
    r = table.ranker
    out = [0] * 12
    for idx in range(r.size):
        r.unrank(idx, out)
        side = idx & 1  # both orientations, half each
        pos = board(rules, out, side)  # stores 0: the final difference is the future
        assert entry(table, out) == plain_value(rules, pos), (variant, out)
        if pos[MASK]:
            assert table.value(pos) == entry(table, out)


@pytest.mark.parametrize("variant", ["kalah", "kalah3", "kalah6"])
def test_kalah_entries_exact_with_real_stores(variant):
    """Kalah has no store threshold: one table is exact for every seed count."""
    rules = get_rules(variant)
    table = MemoryTable(built("kalah")[0], "kalah")
    rng = random.Random(variant)
    r = table.ranker
    out = [0] * 12
    for _ in range(400):
        idx = rng.randrange(r.size)
        r.unrank(idx, out)
        left = rules.total - sum(out)
        s = rng.randint(0, left)
        side = rng.randrange(2)
        pos = board(rules, out, side, (s, left - s))
        mover_diff = s - (left - s) if side == 0 else left - 2 * s
        assert mover_diff + entry(table, out) == plain_value(rules, pos)


@pytest.mark.parametrize("variant", ["mangala", "ranok"])
def test_25_stone_end_keeps_the_winner(variant):
    """With real stores the 25-stone end fires inside the game; the table plays
    on instead, and the winner (the sign of the final difference) is the same."""
    rules = get_rules(variant)
    table = MemoryTable(built(variant)[0], variant)
    rng = random.Random(variant)
    r = table.ranker
    out = [0] * 12
    fired = 0
    for _ in range(600):
        idx = rng.randrange(r.size)
        r.unrank(idx, out)
        left = rules.total - sum(out)
        s = rng.randint(max(0, left - 24), min(24, left))  # both stores below 25
        side = rng.randrange(2)
        pos = board(rules, out, side, (s, left - s))
        exact = plain_value(rules, pos)
        mine = (s - (left - s) if side == 0 else left - 2 * s) + entry(table, out)
        assert (exact > 0) == (mine > 0) and (exact < 0) == (mine < 0), (out, s)
        fired += exact != mine
    assert fired  # the sample does reach the 25-stone end (else it tests nothing)


def oware_search(rules, pos, path, alpha=-99, beta=99):
    """Oware with its repetition end: a plain alpha-beta search over the rules
    core (no table of any kind: the value depends on the line), the positions of
    the line so far in `path` (a repetition ends the game, each player taking its
    own row).  The final store difference from the mover's view."""
    me = pos[SIDE]
    if not pos[MASK]:
        v = pos[S_STORE] - pos[N_STORE]
        return v if me == 0 else -v
    key = bytes(pos[:15])
    if key in path:
        own, opp = (7, 0) if me else (0, 7)
        return stores_diff(pos) + sum(pos[own:own + 6]) - sum(pos[opp:opp + 6])
    path.add(key)
    best = -99
    for pit in range(6):
        if pos[MASK] >> pit & 1:
            c = bytearray(pos)
            flags = rules.move(c, pit)
            if flags & OVER:
                v = c[S_STORE] - c[N_STORE]
                v = v if me == 0 else -v
            else:
                v = -oware_search(rules, c, path, -beta, -max(alpha, best))
            if v > best:
                best = v
                if best >= beta:
                    break
    path.discard(key)
    return best


def test_oware_exact_entries_equal_search_with_repetition_end():
    rules = get_rules("oware")
    entries, stats = generate("oware", 3)
    table = MemoryTable(table_bytes("oware", 3)[0], "oware")
    r = table.ranker
    out = [0] * 12
    checked = unknown = 0
    for idx in range(r.size):
        b = entries[idx]
        r.unrank(idx, out)
        pos = board(rules, out, 0)
        if b == UNKNOWN:
            unknown += 1
            continue
        v = b - OFFSET
        # the exact value: the search proves "at least v" and "at most v"
        assert oware_search(rules, pos, set(), v - 1, v) >= v, out
        assert oware_search(rules, pos, set(), v, v + 1) <= v, out
        checked += 1
    assert checked > 100 and unknown == sum(s[2] for s in stats)


def test_generation_is_deterministic():
    a = table_bytes("oware", 4)[0]
    b = table_bytes("oware", 4)[0]
    assert a == b


# -- damaged files --------------------------------------------------------------------


def test_damaged_tables_are_detected(tmp_path):
    data = built("kalah")[0]
    Table(io.BytesIO(data), "kalah")  # the good one opens
    flipped = bytearray(data)
    flipped[HEADER + 777] ^= 4
    with pytest.raises(TableError, match="CRC"):
        Table(io.BytesIO(bytes(flipped)), "kalah")
    with pytest.raises(TableError, match="short"):
        Table(io.BytesIO(data[:-10]), "kalah")
    bad_head = bytearray(data)
    bad_head[12] ^= 1
    with pytest.raises(TableError, match="header"):
        Table(io.BytesIO(bytes(bad_head)), "kalah")
    with pytest.raises(TableError, match="not a table"):
        Table(io.BytesIO(b"hello"), "kalah")
    with pytest.raises(TableError, match="for kalah, not oware"):
        Table(io.BytesIO(data), "oware")
    # the board's opener: says so and plays on without the table
    path = tmp_path / "kalah.tb"
    path.write_bytes(bytes(flipped))
    said = []
    assert open_table(str(path), "kalah", log=said.append) is None
    assert "CRC" in said[0] and "playing on without it" in said[0]
    assert open_table(str(tmp_path / "none.tb"), "kalah", log=said.append) is None
    assert "no " in said[1]


def test_cli_build_verify_probe(tmp_path, capsys):
    out = str(tmp_path)
    assert main(["build", "kalah", "--seeds", "4", "--out", out]) == 0
    assert "sha256" in capsys.readouterr().out
    path = os.path.join(out, "kalah-4.tb")
    assert main(["build", "kalah", "--seeds", "4", "--out", out]) == 0
    assert "present and sound" in capsys.readouterr().out
    assert main(["verify", path]) == 0
    # South: 1 stone in pit 6 (into the store: extra turn), then pit 5's stone
    assert main(["probe", "kalah", "0,0,0,0,1,1,20,1,0,0,0,0,0,25", "S", "--dir", out]) == 0
    assert "+3" in capsys.readouterr().out
    data = bytearray(open(path, "rb").read())
    data[-1] ^= 1
    open(path, "wb").write(bytes(data))
    assert main(["verify", path]) == 1
    assert "damaged" in capsys.readouterr().out
    assert main(["build", "--seeds", "17"]) == 2
    assert "--seeds must be 0..16, got 17" in capsys.readouterr().err
    assert main(["probe", "kalah", "--dir", str(tmp_path / "none")]) == 1
    assert "no kalah table here" in capsys.readouterr().err


# -- in real MicroPython --------------------------------------------------------------

VM_CODE = """
import gc
from mancala.tablebase import open_table, Ranker
from mancala.rules import get_rules
t = open_table("/t/kalah.tb", "kalah")
r = get_rules("kalah")
pos = r.new_position([0,0,0,0,1,1,20,1,0,0,0,0,0,25], 0)
v = t.value(pos)


def lookups(n):
    gc.collect()
    a0 = gc.mem_alloc()
    i = 0
    while i < n:
        t.value(pos)
        i += 1
    return gc.mem_alloc() - a0


lookups(1)
grow = lookups(200)
out = [0] * 12
ok = 0
for idx in range(0, t.entries, 97):
    t.ranker.unrank(idx, out)
    ok += t.ranker.rank(out, 0) == idx
print("V", v, grow, ok, len(range(0, t.entries, 97)))
bad = open("/t/kalah.tb", "rb").read()
f = open("/t/bad.tb", "wb")
f.write(bad[:100] + bytes([bad[100] ^ 1]) + bad[101:])
f.close()
print("B", open_table("/t/bad.tb", "kalah", log=print) is None)
"""


@pytest.mark.skipif(not mpvm.available(), reason="MicroPython VM not installed")
def test_reader_in_micropython(tmp_path):
    (tmp_path / "kalah.tb").write_bytes(built("kalah", 4)[0])
    out = mpvm.run(VM_CODE, mounts=[(str(tmp_path), "/t")])
    v = [ln.split() for ln in out.splitlines() if ln.startswith("V")][0]
    assert v[1] == "3"
    assert int(v[2]) == 0  # no allocation per lookup
    assert v[3] == v[4]
    assert "CRC" in out and out.strip().endswith("B True")


# The player's data at its most (host_tools/generators/tablebase.py DATA_KIB): 51
# finished games of one block each (a game past littlefs' inline limit; the 51st
# is written before the oldest goes), the game, the puzzle progress, the settings.
PLAYER_DATA = dict({"/data/games/g%05d.txt" % n: b"g" * 600 for n in range(1, 52)}, **{
    "/data/game.json": b"j" * 2000, "/data/puzzle.json": b"p" * 700,
    "/data/settings.json": b"s" * 300, "/data/board.txt": b"pico_buttons\n"})


# (the Pico's in make test: the tightest flash; the others' in make test-long)
@pytest.mark.parametrize("platform", ["rp2", pytest.param("rp2350", marks=pytest.mark.long),
                                      pytest.param("esp32", marks=pytest.mark.long)])
def test_board_plans_fit_the_flash(platform, tmp_path):
    """Each board's plan leaves what it says once the firmware (both slots, as
    measured for the chip), the player's data, the margin and the tables are
    counted; and a littlefs image of it all (two slots as two deploys lay them,
    the plan's tables and books, the data) holds it with at least the margin and
    what is left free: the plan does not count too little."""
    pytest.importorskip("littlefs")
    from host_tools.generators import tablebase
    from host_tools.link import deploy_plan, flash_image

    firmware = tablebase.firmware_kib(platform)
    plan, left = tablebase.board_plan(platform, firmware)
    assert plan == tablebase.BOARD_SEEDS[platform]
    assert left >= 0, ("%s: the plan %s overcommits the flash by %d KiB (the firmware "
                       "takes %d KiB): shrink BOARD_SEEDS" % (platform, plan, -left, firmware))
    assert plan["kalah"] >= 9
    # the plan's tables: the built one where `make tablebase` made it, else a file
    # of its exact size (littlefs stores the bytes as they are: the size is what counts)
    for variant, seeds in plan.items():
        path = tablebase.built_path(variant, seeds, str(tmp_path))
        built_one = os.path.abspath(tablebase.built_path(variant, seeds))
        if os.path.isfile(built_one):
            os.symlink(built_one, path)
        else:
            with open(path, "wb") as f:
                f.write(bytes(tablebase.table_bytes_size(seeds)))
    src = deploy_plan.DEFAULT_SRC
    files, _version = flash_image.board_files(src, tablebase.CHIP_MPY[platform], tables_dir=str(tmp_path),
                                              tables_for=platform, over=src)
    assert sorted(p for p in files if p.endswith(".tb")) == sorted("/tables/%s.tb" % v for v in plan)
    assert "/tables/kalah.book" in files
    size = tablebase.FS_KIB[platform] * 1024
    flash_image.littlefs_image(files, size)  # (no LFS_ERR_NOSPC)
    used = flash_image.used_kib(dict(files, **PLAYER_DATA), size)
    assert tablebase.FS_KIB[platform] - used >= tablebase.MARGIN_KIB + left, (used, left)


def test_the_plan_command_says_each_boards_flash(capsys):
    pytest.importorskip("littlefs")
    from host_tools.generators.tablebase import MARGIN_KIB, board_plan

    assert main(["plan"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split(":")[0] for ln in lines] == ["rp2", "rp2350", "esp32"]
    _plan, left = board_plan("rp2")
    assert "margin %d KiB" % MARGIN_KIB in lines[0] and lines[0].endswith("left %d KiB" % left)


def test_a_table_takes_whole_blocks_and_its_skip_list():
    """lfs_blocks counts what littlefs gives a table file: 10 seeds take one block
    more than their bytes' 158 (the CTZ skip-list's pointers)."""
    from host_tools.generators.tablebase import lfs_blocks, table_bytes_size

    assert [lfs_blocks(table_bytes_size(n)) for n in (7, 8, 9, 10)] == [13, 31, 72, 159]
    assert -(-table_bytes_size(10) // 4096) == 158
    assert lfs_blocks(1) == lfs_blocks(4096) == 1 and lfs_blocks(4097) == 2


def test_recorded_hash_matches_a_fresh_build():
    import hashlib

    from host_tools.generators.tablebase import KNOWN_SHA256

    data = table_bytes("kalah", 8)[0]
    assert hashlib.sha256(data).hexdigest() == KNOWN_SHA256[("kalah", 8)]


def test_all_variants_build_small():
    for v in VARIANTS:
        data, stats = table_bytes(v, 2)
        assert len(data) == HEADER + Ranker(2).size


# -- the engine with a table ------------------------------------------------------------

# Endgames where the move that gains at once (an extra turn or a capture) loses:
# (position, the greedy move, the best moves, the final store difference with best play)
NOT_GREEDY = [
    ("kalah 1,0,0,1,0,2,21,1,0,0,0,0,0,22 S", 6, {1}, 4),
    ("mangala 0,0,1,1,0,1,21,0,1,1,0,0,0,22 S", 4, {3, 6}, 0),
    ("ranok 0,0,1,1,1,1,21,0,0,0,0,0,1,22 S", 6, {5}, 1),
]


def exact_children(rules, table, pos):
    """{pit 1..6: final store difference, mover's view} by the table (None: a
    child without an exact value, an oware cycle)."""
    from host_tools.generators.tablebase import exact_moves

    kids = exact_moves(rules, table, pos)
    return {None: None} if kids is None else {k + 1: v for k, v in kids.items()}


@pytest.mark.parametrize("text,greedy,best,final", NOT_GREEDY)
def test_engine_with_table_finds_the_exact_value(text, greedy, best, final):
    from mancala.engine import Engine
    from mancala.notation import parse_position

    rules, pos = parse_position(text)
    table = MemoryTable(built(rules.name)[0], rules.name)
    kids = exact_children(rules, table, pos)
    assert {k for k, v in kids.items() if v == max(kids.values())} == best
    assert greedy not in best and max(kids.values()) == final
    # the plain search agrees (the table is not checked against itself)
    assert plain_value(rules, pos) == final
    e = Engine(rules, tt_bits=10)
    e.set_table(table)
    m = e.search(pos, level="master")
    assert m + 1 in best and e.score == final
    assert e.depth == 1 and e.nodes <= 6  # every child is in the table: one iteration
    assert e.hint(pos) + 1 in best
    g, loss, _ = e.grade(pos, greedy - 1)
    assert loss == final - kids[greedy] and g > 0


def _endgames(variant, count, seeds, seed):
    """Positions with at most `seeds` stones on the board from games the engine's
    levels played against each other (the board's own kind of endgame)."""
    from mancala.engine import Engine

    rules = get_rules(variant)
    rng = random.Random(seed)
    engines = [Engine(rules, tt_bits=8, seed=s) for s in (1, 2)]
    found = []
    while len(found) < count:
        pos = rules.start()
        levels = (rng.choice(("beginner", "amateur")), rng.choice(("beginner", "amateur")))
        while pos[MASK]:
            if rules.total - pos[S_STORE] - pos[N_STORE] <= seeds:
                found.append(bytearray(pos))
                break
            m = engines[pos[SIDE]].search(pos, level=levels[pos[SIDE]])
            rules.move(pos, m)
    return rules, found


@pytest.mark.parametrize("variant", ["kalah", "mangala", "ranok", "oware"])
def test_master_with_table_plays_every_endgame_perfectly(variant):
    from mancala.engine import Engine

    rules, endgames = _endgames(variant, 20, SEEDS, seed=len(variant))
    table = MemoryTable(built(variant)[0], variant)
    e = Engine(rules, tt_bits=10)
    e.set_table(table)
    perfect = known = 0
    for pos in endgames:
        if table.value(pos) is None:  # an oware cycle: the engine searches as before
            continue
        kids = exact_children(rules, table, pos)
        if None in kids.values():
            continue
        known += 1
        m = e.search(pos, level="master")
        perfect += kids[m + 1] == max(kids.values())
    assert perfect == known and known >= (20 if variant != "oware" else 1)


def test_lower_levels_keep_their_mistakes():
    from mancala.engine import Engine
    from mancala.notation import parse_position

    rules, pos = parse_position(NOT_GREEDY[0][0])
    e = Engine(rules, tt_bits=10, seed=3)
    e.set_table(MemoryTable(built("kalah")[0], "kalah"))
    e.search(pos, level="beginner")
    assert e.depth > 1  # searched as without a table, not looked up


# -- on the board ---------------------------------------------------------------------------


def test_board_engine_gets_its_table_and_plays_on_without_a_bad_one():
    from board_helpers import board

    from host_tools.fakes.memfs import MemFs
    from mancala.engine import Engine
    from mancala.tablebase import board_path

    fs = MemFs()
    fs.files[board_path("kalah")] = built("kalah", 4)[0]
    b = board(fs=fs, engine_cls=Engine, variant="kalah", opponent=3)
    b.app.new_game()  # what the menu's start does
    app = b.app
    assert app.engine is not None and app.engine.table is not None
    assert app.engine.table.seeds == 4
    # a damaged table: said on the console, the engine has none, the game goes on
    bad = bytearray(built("kalah", 4)[0])
    bad[HEADER + 5] ^= 1
    fs2 = MemFs()
    fs2.files[board_path("kalah")] = bytes(bad)
    b2 = board(fs=fs2, engine_cls=Engine, variant="kalah", opponent=3)
    b2.app.new_game()
    assert b2.until(("select", "think", "show"), 5000)
    assert b2.app.engine.table is None
    assert any("CRC" in line and "without it" in line for line in b2.lines)


def test_simulator_flash_gets_the_boards_tables(tmp_path):
    from host_tools.generators.tablebase import BOARD_SEEDS, built_path, install_into, write_table

    built_dir = tmp_path / "built"
    built_dir.mkdir()
    # a stand-in for `make tablebase`: one of the Pico's tables, small
    v = "mangala"
    write_table(built_path(v, BOARD_SEEDS["rp2"][v], str(built_dir)), v, 2)
    state = tmp_path / "state"
    assert install_into(str(state), "rp2", str(built_dir)) == ["mangala"]
    copied = state / "tables" / "mangala.tb"
    assert open_table(str(copied), "mangala") is not None
    assert BOARD_SEEDS["esp32"][v] != BOARD_SEEDS["rp2"][v]
    assert install_into(str(state), "esp32", str(built_dir)) == []  # another size of table


def test_pc_tools_use_a_larger_table(tmp_path, capsys):
    from host_tools.command import cli
    from host_tools.generators.tablebase import built_path, write_table

    write_table(built_path("kalah", 7, str(tmp_path)), "kalah", 7)
    pos = NOT_GREEDY[0][0]
    assert cli.main(["best", pos, "--tables", str(tmp_path)]) == 0
    assert capsys.readouterr().out.split()[:4] == ["bestmove", "1", "score", "4"]
    # analyse grades the greedy move exactly: it loses 8 stones (4 against -4)
    assert cli.main(["analyse", pos.replace(" S", " S 6"), "--tables", str(tmp_path),
                     "--nodes", "500"]) == 0
    out = capsys.readouterr().out
    assert "blunder" in out and " 8" in out
    assert cli.main(["best", pos, "--tables", str(tmp_path / "none")]) == 1
    assert "no kalah table here" in capsys.readouterr().err


def test_a_released_engine_closes_its_tables_file():
    """A variant change releases the old engine: its endgame table's file is closed
    then (on littlefs an open file holds a cache buffer of the heap), not left to
    the garbage collector."""
    from mancala.engine import Engine

    t = Table(io.BytesIO(built("kalah", 2)[0]), "kalah")
    e = Engine(get_rules("kalah"), tt_bits=10)
    e.set_table(t)
    e.release()
    assert t.f.closed and e.table is None and e.table_seeds == -1
