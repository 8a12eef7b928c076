"""Endgame tables for the board: generate, check and probe (`mancala tablebase`).

For each number of seeds n = 0, 1, ..., N, every arrangement of n stones in the
12 pits (South to move; the tables are seen from the side to move) is valued
under the project's rules core with empty stores, so the 25-stone and
more-than-24 ends never fire inside the table (docs/ENGINE.md says why the
values stay exact for the winner).  A move either leaves n stones on the board
(a child of the same level) or fewer (a capture, a stone into a store: a lower
level, already final) or ends the game.

Values are found by retrograde iteration on each level: `lo` is what the side to
move can force in finitely many moves, `hi` what the opponent can hold it to,
starting from -inf / +inf and improved with lo(P) = max(g - hi(child)) and
hi(P) = max(g - lo(child)) (an extra turn adds instead of subtracting) until
nothing changes.  Where lo = hi the value is exact whatever the history (both
forcing strategies strictly shorten the play, so no position repeats on them).
Kalah, mangala and ranok cannot cycle inside a level (every move that keeps n
stones moves them towards the mover's store), so every value there is exact;
in oware stones can circle the board, and a position where best play cycles
keeps lo < hi: its entry is "unknown" and the engine searches it as before.
"""

import hashlib
import itertools
import os
import sys
import time
import zlib

from mancala.rules import MASK, N_STORE, OVER, POS_LEN, S_STORE, SIDE, get_rules
from mancala.tablebase import HEADER, OFFSET, UNKNOWN, Ranker, Table, TableError, header

VARIANTS = ("ranok", "mangala", "kalah", "oware")
# The seed-count variants of kalah play the same endgames: a table is over the
# pits only, and kalah has no store threshold, so one table serves kalah3..kalah6.
TABLE_OF = {"kalah3": "kalah", "kalah5": "kalah", "kalah6": "kalah"}

NEG = -10000
POS = 10000
BIG = 1000  # |a value| beyond this is an infinity


# -- which tables each board carries --------------------------------------------------
#
# The filesystem of each chip (KiB): a Pico's littlefs is 1408 KiB of its 2 MB flash;
# ESP32_GENERIC's 4 MB flash gives MicroPython a 2 MiB vfs partition; a Pico 2's
# (RPI_PICO2: 4 MB of flash less 1 MB for the firmware) 3072 KiB.  It is counted as
# littlefs lays it: 4 KiB blocks, a file past littlefs' inline limit (512 bytes) in
# whole blocks, every directory a metadata pair of two blocks.  From it:
# - the firmware with both application slots full, measured for the chip (its .mpy,
#   its native code) by host_tools/link/flash_image.firmware_kib: about 700 KiB on
#   every chip, not 2 x 100: some 60 files a slot, most of them a block or two with
#   half a block empty (`mancala tablebase plan` shows it for each chip);
# - the player's data, DATA_KIB: /data's and /data/games' metadata pairs (16 KiB), 51
#   finished games of one block each (HISTORY_MAX 50; the 51st is written before the
#   oldest goes; a short record is inlined and takes less), the game and the puzzle
#   progress (8): 228 KiB, what a littlefs image of those files takes;
# - MARGIN_KIB for the firmware's growth between versions: with the slots measured
#   that is all the margin is for.  64 KiB is 32 KiB more in each slot (8 blocks,
#   ~10% of a slot; both slots took 604 KiB on a Pico fifty commits before this plan,
#   676 twenty before, 700 at it).  An update past it still goes in, deploy
#   reclaiming the fallback slot ("flash: reclaiming slot"); the plan's test fails
#   as soon as the firmware outgrows what is left, and the plan shrinks;
# - /tables/'s metadata pair and each table and book in whole blocks (lfs_blocks).
FS_KIB = {"rp2": 1408, "rp2350": 3072, "esp32": 2048}
DATA_KIB = 228
MARGIN_KIB = 64
DIR_KIB = 8  # a littlefs directory's metadata pair
BLOCK = 4096
# sys.implementation._mpy of each chip: .mpy v6.3 and its native architecture
# (rp2 armv6m, rp2350 armv7emsp, esp32 xtensawin): what deploy compiles for it.
CHIP_MPY = {"rp2": 6 | 3 << 8 | 4 << 10, "rp2350": 6 | 3 << 8 | 7 << 10,
            "esp32": 6 | 3 << 8 | 10 << 10}
# Seeds per variant and board, the largest that fit (tests/test_tablebase.py checks
# the sum, and that a littlefs image of it all fits), taken in this order: kalah
# (the board's main variant: its table and its opening book), mangala, ranok,
# oware.  No table under 7 seeds is planned: its 8-20 KiB would take the last
# blocks left, and the plan would fail at the firmware's next block (one still
# helps: with ranok's 5-seed table Master is perfect in the 25 choices within it
# over 60 games of `mancala tablebase perfect`, 68% without).  Oware's tables are
# mostly unknown (88% of the positions up to 7 seeds depend on how a cycle ends).
BOARD_SEEDS = {
    "rp2": {"kalah": 9, "mangala": 7},
    # the ESP32's firmware carries the online package (Wi-Fi play, issue 44: ~40 KiB
    # a slot), so mangala 8 (was 9)
    "esp32": {"kalah": 10, "mangala": 8, "ranok": 7},
    "rp2350": {"kalah": 10, "mangala": 10, "ranok": 10, "oware": 7},  # the Pico 2
}

# sha256 of whole table files (header included): generation is deterministic, so
# a build that differs means the rules core changed (or the generator did).
KNOWN_SHA256 = {
    ("kalah", 7): "4c6b269f75b7a23712d4a080b41af588d588b009ce49326385ba6f070ef5da23",
    ("mangala", 7): "139ce857608eecd89d67c58b5dcb7258c50ff0112847e62a59f6bc40cfb6fc82",
    ("ranok", 7): "d38b47f3704fd5877358f98b6f4e0d40571efcc421ff269a242a6a3c8d18a2b3",
    ("oware", 7): "14792464c79b79012cf04f3721224a0d371d98dd33739fc110ad67e72a628aee",
    ("kalah", 8): "75b9e78e9928023a6f49ab3967791fdfc33c5483d3bf1874d15a19a695b769d1",
    ("mangala", 8): "c5e4614de07c94c6a5955d9e754cb478c74af5b2f3faaf8d240b4daabf4de731",
    ("ranok", 8): "2b0f82dc9ca1fe75960b3f33bce9d81bbc136995d08f65894d2033986260a2e2",
    ("oware", 8): "24c77f46c14fb7d7776f52c98ae6169ca4dccfdd592c7de5df506971a0b63b04",
    ("kalah", 9): "5555ced540334cb5b477fa7d3a3cc977e5c69551f09102273b46f758c8e81c6a",
    ("mangala", 9): "f13c9dfbd878d14ca9c53ba08ac8d214d8edc2043323d540f95849aaaa4529c5",
    ("ranok", 9): "9680e22769a60414cc14d39229cc893576e09992c011507309fd447893280475",
    ("kalah", 10): "d668dd6d5a93d50fd7ea9e8a7eee3aa4eaa3996fcf810bdcdb6c9924f799319e",
    ("mangala", 10): "5de0548aac1bfb808fe931cc0dd1d0a42064c086f06cd103a8b7521d305d90b9",
    ("ranok", 10): "fe39fa4e55956fcf94239e3b82ac6f666562a1897980ab7d497c9f41277abad7",
    ("oware", 10): "41cfd490481ae51e24bd2bee60e2fe843c017eef46cddfce4947c7eb03fcc9e2",
}
TABLES_DIR = "build/tables"


def table_bytes_size(seeds):
    return HEADER + Ranker(seeds).size


def lfs_blocks(nbytes, block=BLOCK):
    """The blocks littlefs gives a file of `nbytes` (past its inline limit): a CTZ
    skip-list, whose block k > 0 begins with ctz(k) + 1 pointers of 4 bytes, so a
    10-seed table (646,678 bytes) takes 159 blocks, not 158."""
    blocks, room = 1, block
    while room < nbytes:
        room += block - 4 * (blocks & -blocks).bit_length()
        blocks += 1
    return blocks


def firmware_kib(platform):
    """The KiB the firmware takes on a chip's filesystem with both slots full, measured
    (host_tools/link/flash_image.firmware_kib: the deploy's files for that chip laid
    in a littlefs image; about 0.3 s)."""
    from host_tools.link import flash_image

    return flash_image.firmware_kib(mpy=CHIP_MPY[platform], size=FS_KIB[platform] * 1024,
                                     chip=platform)


def tables_kib(plan):
    """The KiB a plan's tables and opening books take in /tables/ (whole blocks, and
    the directory's metadata pair)."""
    from host_tools.generators.book import book_path

    if not plan:
        return 0
    sizes = [table_bytes_size(n) for n in plan.values()]
    # the opening books of the plan's variants go to /tables/ with them (deploy)
    sizes += [os.path.getsize(book_path(v)) for v in plan if os.path.exists(book_path(v))]
    return DIR_KIB + sum(lfs_blocks(n) for n in sizes) * BLOCK // 1024


def board_plan(platform, firmware=None):
    """{variant: seeds} for a board ('rp2', 'rp2350' or 'esp32'), and the KiB it
    leaves free once the firmware (both slots, measured unless `firmware` gives its
    KiB), the player's data, the margin and the tables are counted."""
    plan = BOARD_SEEDS[platform]
    if firmware is None:
        firmware = firmware_kib(platform)
    left = FS_KIB[platform] - firmware - DATA_KIB - MARGIN_KIB - tables_kib(plan)
    return plan, left


def plan_lines(out=None):
    """`mancala tablebase plan`: each board's flash, as docs/TABLEBASE.md tabulates it."""
    out = sys.stdout if out is None else out
    for platform in ("rp2", "rp2350", "esp32"):
        fw = firmware_kib(platform)
        plan, left = board_plan(platform, fw)
        print("%s: filesystem %d KiB; firmware (both slots, measured) %d KiB; data %d KiB; "
              "margin %d KiB; tables %s: %d KiB; left %d KiB"
              % (platform, FS_KIB[platform], fw, DATA_KIB, MARGIN_KIB,
                 ", ".join("%s %d" % kv for kv in sorted(plan.items())), tables_kib(plan), left),
              file=out)


def built_path(variant, seeds, where=TABLES_DIR):
    """Where `make tablebase` keeps a table on the PC."""
    return os.path.join(where, "%s-%d.tb" % (table_variant(variant), seeds))


def best_built(variant, where=TABLES_DIR):
    """The largest built table of a variant on the PC, or None (PC tools)."""
    name = table_variant(variant)
    best = None
    try:
        files = os.listdir(where)
    except OSError:
        return None
    for f in files:
        if f.startswith(name + "-") and f.endswith(".tb"):
            try:
                n = int(f[len(name) + 1:-3])
            except ValueError:
                continue
            if best is None or n > best[0]:
                best = (n, os.path.join(where, f))
    return best[1] if best else None


def platform_of(mcu):
    """A profile's "mcu" as the boards' plans name it."""
    return "rp2" if mcu == "rp2040" else mcu


def install_into(folder, platform, where=TABLES_DIR):
    """Copy the built tables a board carries into `folder`/tables/ as the board
    keeps them (the simulator's flash); returns the variants copied or current."""
    import shutil

    out = []
    dest = os.path.join(folder, "tables")
    for variant, seeds in sorted(BOARD_SEEDS[platform].items()):
        src = built_path(variant, seeds, where)
        if not os.path.exists(src):
            continue
        os.makedirs(dest, exist_ok=True)
        target = os.path.join(dest, variant + ".tb")
        if not (os.path.exists(target) and os.path.getsize(target) == os.path.getsize(src)
                and os.path.getmtime(target) >= os.path.getmtime(src)):
            shutil.copyfile(src, target + ".tmp")
            os.replace(target + ".tmp", target)
        out.append(variant)
    from host_tools.generators.book import install_books

    install_books(dest, BOARD_SEEDS[platform])  # the opening books go with them
    return out


def table_variant(variant):
    return TABLE_OF.get(variant, variant)


def table_name(variant):
    return "%s.tb" % table_variant(variant)


def _level_children(rules, ranker, n):
    """Children of every position of level n: (index, kind, gain) arrays, 6 per
    position (kind 0 no move, 1 opponent to move, 2 same mover, 3 game over),
    and the exact values of the positions that are over on entry."""
    import numpy as np

    first = ranker.first[n]
    count = ranker.first[n + 1] - first
    child = np.zeros((count, 6), dtype=np.int64)
    kind = np.zeros((count, 6), dtype=np.int8)
    gain = np.zeros((count, 6), dtype=np.int16)
    over = np.zeros(count, dtype=bool)
    over_value = np.zeros(count, dtype=np.int16)
    pos = bytearray(POS_LEN)
    kid = bytearray(POS_LEN)
    rank = ranker.rank_position
    move = rules.move
    legal_mask = rules.legal_mask
    finish = rules.finish_if_over
    row = 0
    # Lexicographic order of the counts = lexicographic order of the bar
    # positions of the stars-and-bars picture: the rank order of mancala.tablebase.
    for bars in itertools.combinations(range(n + 11), 11):
        prev = -1
        for j in range(11):
            c = bars[j] - prev - 1
            pos[j if j < 6 else j + 1] = c
            prev = bars[j]
        pos[12] = n + 10 - prev
        pos[S_STORE] = 0
        pos[N_STORE] = 0
        pos[SIDE] = 0
        pos[MASK] = legal_mask(pos)
        if finish(pos):
            over[row] = True
            over_value[row] = pos[S_STORE] - pos[N_STORE]
        else:
            mask = pos[MASK]
            for pit in range(6):
                if mask >> pit & 1:
                    kid[:] = pos
                    flags = move(kid, pit)
                    gain[row, pit] = kid[S_STORE] - kid[N_STORE]
                    if flags & OVER:
                        kind[row, pit] = 3
                    else:
                        kind[row, pit] = 2 if kid[SIDE] == 0 else 1
                        child[row, pit] = rank(kid)
        row += 1
    assert row == count
    return child, kind, gain, over, over_value


def generate(variant, seeds, progress=None):
    """The entry bytes (one per position, value + 128 or UNKNOWN) of `variant`
    up to `seeds` stones, and per level (n, positions, unknown, rounds)."""
    import numpy as np

    rules = get_rules(table_variant(variant))
    ranker = Ranker(seeds)
    lo = np.full(ranker.size, NEG, dtype=np.int32)
    hi = np.full(ranker.size, POS, dtype=np.int32)
    stats = []
    for n in range(seeds + 1):
        t0 = time.monotonic()
        a, b = ranker.first[n], ranker.first[n + 1]
        child, kind, gain, over, over_value = _level_children(rules, ranker, n)
        g = gain.astype(np.int32)
        lo[a:b][over] = over_value[over]
        hi[a:b][over] = over_value[over]
        live = ~over
        rounds = 0
        while True:
            rounds += 1
            clo = lo[child]
            chi = hi[child]
            lo_c = np.where(kind == 1, g - chi, np.where(kind == 2, g + clo, g))
            hi_c = np.where(kind == 1, g - clo, np.where(kind == 2, g + chi, g))
            lo_c = np.where(lo_c < -BIG, NEG, lo_c)
            hi_c = np.where(hi_c > BIG, POS, hi_c)
            lo_c[kind == 0] = NEG
            hi_c[kind == 0] = NEG
            new_lo = lo_c.max(axis=1)
            new_hi = hi_c.max(axis=1)
            old_lo = lo[a:b][live]
            old_hi = hi[a:b][live]
            nl = new_lo[live]
            nh = new_hi[live]
            if np.array_equal(nl, old_lo) and np.array_equal(nh, old_hi):
                break
            seg_lo = lo[a:b]
            seg_hi = hi[a:b]
            seg_lo[live] = nl
            seg_hi[live] = nh
        unknown = int(np.count_nonzero(lo[a:b] != hi[a:b]))
        stats.append((n, b - a, unknown, rounds, time.monotonic() - t0))
        if progress is not None:
            progress(n, seeds, b - a, unknown, rounds, time.monotonic() - t0)
    exact = lo == hi
    out = np.where(exact, lo + OFFSET, UNKNOWN).astype(np.uint8)
    return out.tobytes(), stats


def table_bytes(variant, seeds, progress=None):
    entries, stats = generate(variant, seeds, progress)
    crc = zlib.crc32(entries) & 0xFFFFFFFF
    return bytes(header(table_variant(variant), seeds, len(entries), crc)) + entries, stats


def write_table(path, variant, seeds, progress=None):
    data, stats = table_bytes(variant, seeds, progress)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return data, stats


def load_table(path, variant=None, check=True):
    """A Table over a PC file (the same reader the board uses)."""
    f = open(path, "rb")
    try:
        return Table(f, variant, check)
    except Exception:
        f.close()
        raise


class MemoryTable(Table):
    """A table held in memory (PC tools and tests): the same lookups."""

    def __init__(self, data, variant=None):
        import io

        Table.__init__(self, io.BytesIO(data), variant, check=True)


# -- the command -----------------------------------------------------------------


def _progress_printer(variant, stream):
    def show(n, seeds, count, unknown, rounds, secs):
        extra = ", %d unknown" % unknown if unknown else ""
        print("tablebase %s: %2d/%d seeds: %9d positions, %3d rounds, %6.1f s%s"
              % (variant, n, seeds, count, rounds, secs, extra), file=stream, flush=True)
    return show


def _wanted(variants, seeds):
    """(variant, seeds) pairs to build: the boards' plans unless told."""
    pairs = []
    for platform in sorted(BOARD_SEEDS):
        for v, n in sorted(BOARD_SEEDS[platform].items()):
            if (not variants or v in variants) and (v, n) not in pairs:
                pairs.append((v, n if seeds is None else seeds))
    for v in variants:
        if seeds is not None and (table_variant(v), seeds) not in pairs:
            pairs.append((table_variant(v), seeds))
        elif not any(p[0] == table_variant(v) for p in pairs):
            pairs.append((table_variant(v), 8))
    return sorted(set(pairs))


def _check_variant(variant):
    from host_tools.argkit import UsageError, printable

    if variant not in VARIANTS and variant not in TABLE_OF:
        raise UsageError("unknown variant '%s' (expected one of: %s)"
                         % (printable(variant), ", ".join(VARIANTS)))


def _build(a):
    for variant in a.variants:
        _check_variant(variant)
    os.makedirs(a.out, exist_ok=True)
    for variant, seeds in _wanted(a.variants, a.seeds):
        path = built_path(variant, seeds, a.out)
        if os.path.exists(path) and not a.force:
            try:
                load_table(path, variant).close()
                print("%s: present and sound (--force builds it again)" % path)
                continue
            except (OSError, TableError) as e:
                print("%s: %s; building it again" % (path, e))
        t0 = time.monotonic()
        data, stats = write_table(path, variant, seeds,
                                  _progress_printer(variant, sys.stderr))
        unknown = sum(s[2] for s in stats)
        digest = hashlib.sha256(data).hexdigest()
        known = KNOWN_SHA256.get((variant, seeds))
        note = ("matches the recorded hash" if known == digest else
                "no recorded hash" if known is None else
                "DIFFERS from the recorded hash %s (rules or generator changed)" % known[:16])
        print("%s: %d entries, %d bytes, %d without an exact value, %.1f s, sha256 %s (%s)"
              % (path, len(data) - HEADER, len(data), unknown, time.monotonic() - t0,
                 digest[:16], note))
        if known is not None and known != digest:
            return 1
    return 0


def main(argv=None):
    """`mancala tablebase`; every failure is one line and a non-zero status."""
    from host_tools.argkit import run_command

    return run_command("tablebase", _main, sys.argv[1:] if argv is None else argv)


def _verify(files):
    """`tablebase verify`: a line for each file on stdout (ok, or damaged: what the
    check found); a file that cannot be read is no damaged table but an error line
    (`mancala tablebase: error: ...`, stderr).  Exit status 1 if any is not ok."""
    from host_tools.argkit import printable

    bad = 0
    for path in files:
        try:
            t = load_table(path)
        except TableError as e:
            print("%s: damaged: %s" % (printable(path), printable(e)))
        except OSError as e:
            if isinstance(e, FileNotFoundError):
                why = ("no such file (no tables built? `make tablebase` builds them into %s)"
                       % TABLES_DIR)
            else:
                why = "cannot read it: %s" % (e.strerror or e)
            print("mancala tablebase: error: %s: %s" % (printable(path), printable(why)),
                  file=sys.stderr)
        else:
            print("%s: ok (%s, up to %d seeds, %d entries)"
                  % (printable(path), t.variant, t.seeds, t.entries))
            t.close()
            continue
        bad += 1
    return 1 if bad else 0


def _main(argv):
    from host_tools.argkit import Parser, int_type

    p = Parser(prog="mancala tablebase", description="Endgame tables: build, verify, probe.")
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="compute tables")
    b.add_argument("variants", nargs="*", default=[],
                   help="ranok, mangala, kalah, oware (default: every table of the boards)")
    b.add_argument("--seeds", type=int_type("--seeds", 0, 16), default=None,
                   help="the most seeds on the board (default: what each board carries)")
    b.add_argument("--out", default=TABLES_DIR, help="folder (default %s)" % TABLES_DIR)
    b.add_argument("--force", action="store_true", help="build again even if present")
    v = sub.add_parser("verify", help="check table files (header, size, CRC)")
    v.add_argument("files", nargs="+")
    be = sub.add_parser("bench", help="a lookup's cost against a search node (MicroPython VM)")
    be.add_argument("--dir", default=TABLES_DIR)
    be.add_argument("--nodes", type=int_type("--nodes", 1, 100000), default=3000)
    ps = sub.add_parser("perfect", help="share of perfect endgame moves, with and without")
    ps.add_argument("variant")
    ps.add_argument("--dir", default=TABLES_DIR)
    ps.add_argument("--games", type=int_type("--games", 1, 10000), default=40)
    sub.add_parser("plan", help="each board's flash: firmware (measured), data, margin, tables, left")
    q = sub.add_parser("probe", help="the exact value of a position")
    q.add_argument("position", nargs="+", help="e.g. kalah 0,0,1,0,0,2,20,1,0,0,0,0,1,23 S")
    q.add_argument("--dir", default=TABLES_DIR)
    a = p.parse_args(argv)
    if a.cmd == "build":
        return _build(a)
    if a.cmd == "verify":
        return _verify(a.files)
    if a.cmd == "bench":
        bench(a.dir, a.nodes)
        return 0
    if a.cmd == "perfect":
        _check_variant(a.variant)
        perfect_share(table_variant(a.variant), a.dir, a.games)
        return 0
    if a.cmd == "plan":
        plan_lines()
        return 0
    from mancala.notation import parse_position

    rules, pos = parse_position(" ".join(a.position))
    t = open_built(rules.id, a.dir)
    v = t.value(pos)
    if v is None:
        print("not in the table (more than %d seeds, or an oware cycle)" % t.seeds)
        return 1
    own = pos[N_STORE] if pos[SIDE] else pos[S_STORE]
    opp = pos[S_STORE] if pos[SIDE] else pos[N_STORE]
    print("exact: the side to move gains %+d stones more than the opponent from here;"
          " final store difference %+d" % (v, own - opp + v))
    return 0


# -- what a lookup costs (mancala tablebase bench) ----------------------------------

BENCH_CODE = """
import time
from mancala.engine import Engine
from mancala.rules import get_rules
from mancala.notation import parse_position
from mancala.tablebase import open_table
rules, pos = parse_position(%r)
t = open_table(%r, rules.name)
small = rules.new_position([1, 0, 0, 1, 0, 2, 21, 1, 0, 0, 0, 0, 0, 22], 0)  # in the table
n = 0
t0 = time.ticks_ms()
while time.ticks_diff(time.ticks_ms(), t0) < 300:
    t.probe(small)
    n += 1
look = n * 1000 // max(1, time.ticks_diff(time.ticks_ms(), t0))
rates = []
for use in (0, 1):
    e = Engine(rules, tt_bits=10)
    if use:
        e.set_table(t)
    t0 = time.ticks_ms()
    e.search(pos, nodes=%d)
    ms = max(1, time.ticks_diff(time.ticks_ms(), t0))
    rates.append((e.nodes * 1000 // ms, e.depth, e.score))
print("BENCH", look, rates[0][0], rates[0][1], rates[0][2], rates[1][0], rates[1][1], rates[1][2])
"""

BENCH_POSITIONS = {
    "kalah": "kalah 2,1,3,0,2,1,20,1,2,0,3,1,0,12 S",
    "mangala": "mangala 1,2,0,3,1,1,20,2,1,0,0,2,1,14 S",
    "ranok": "ranok 1,0,2,1,3,1,20,1,2,0,1,2,0,14 S",
    "oware": "oware 1,2,0,3,1,1,18,2,1,0,0,2,1,16 S",
}


def exact_moves(rules, table, pos):
    """{pit: the final store difference after it, mover's view} by the table, or
    None when a child has no exact value."""
    from mancala.rules import OVER as _OVER

    me = pos[SIDE]
    out = {}
    for k in range(6):
        if pos[MASK] >> k & 1:
            c = bytearray(pos)
            if rules.move(c, k) & _OVER:
                d = c[S_STORE] - c[N_STORE]
            else:
                tv = table.value(c)
                if tv is None:
                    return None
                d = c[S_STORE] - c[N_STORE] + (-tv if c[SIDE] else tv)
            out[k] = -d if me else d
    return out


def open_built(variant, where):
    """The largest built table of `variant` in `where`; a missing or damaged one
    is an OSError naming the file (exit status 1)."""
    path = best_built(variant, where)
    if path is None:
        raise OSError(2, "no %s table here (build it with `make tablebase`)"
                      % table_variant(variant), where)
    try:
        return load_table(path)
    except TableError as e:
        raise OSError(5, "%s (build it again with `make tablebase`)" % e, path) from None


def perfect_share(variant, tables_dir, games=40, seed=1, out=sys.stdout):
    """Games between the levels (each side a random level, as people meet the
    board); at every position within the table, is Master's move perfect, with
    and without the table?  Only positions where the moves differ in value count.
    Returns (positions, perfect without, perfect with)."""
    import random

    from mancala.engine import LEVELS, Engine

    rules = get_rules(variant)
    table = open_built(variant, tables_dir)
    rng = random.Random(seed)
    players = [Engine(rules, tt_bits=12, seed=s) for s in (1, 2)]
    plain = Engine(rules, tt_bits=12, seed=3)
    with_t = Engine(rules, tt_bits=12, seed=4)
    with_t.set_table(table)
    seen = good_plain = good_table = 0
    for _g in range(games):
        pos = rules.start()
        levels = (rng.choice(LEVELS), rng.choice(LEVELS))
        while pos[MASK]:
            if rules.total - pos[S_STORE] - pos[N_STORE] <= table.seeds:
                kids = exact_moves(rules, table, pos)
                # only real choices: a forced move, or moves all worth the same,
                # would count as perfect whatever was played
                if kids is not None and len(set(kids.values())) > 1:
                    best = max(kids.values())
                    seen += 1
                    good_plain += kids[plain.search(pos, level="master")] == best
                    good_table += kids[with_t.search(pos, level="master")] == best
            rules.move(pos, players[pos[SIDE]].search(pos, level=levels[pos[SIDE]]))
    print("%s (table up to %d seeds): %d choices within the table from %d games; Master "
          "plays a perfect move in %.1f%% without the table, %.1f%% with it"
          % (variant, table.seeds, seen, games, 100.0 * good_plain / max(1, seen),
             100.0 * good_table / max(1, seen)), file=out)
    return seen, good_plain, good_table


def bench(tables_dir, nodes=3000, out=sys.stdout):
    """Lookups per second against search nodes per second, with and without the
    table, in the MicroPython VM (endgames of 14-16 seeds: part of the search
    reaches the table)."""
    from host_tools.runners import mpvm

    print("MicroPython VM; endgames of 14-16 seeds, %d nodes a search" % nodes, file=out)
    print("variant  lookups/s  nodes/s plain  nodes/s table  lookup/node  depth plain/table",
          file=out)
    for variant, text in BENCH_POSITIONS.items():
        path = best_built(variant, tables_dir)
        if path is None:
            print("%-8s (no table in %s)" % (variant, tables_dir), file=out)
            continue
        code = BENCH_CODE % (text, "/t/" + os.path.basename(path), nodes)
        res = mpvm.run(code, mounts=[(os.path.abspath(tables_dir), "/t")])
        w = [ln.split() for ln in res.splitlines() if ln.startswith("BENCH")][0]
        look, plain, pd, _ps, with_t, td, _ts = (int(x) for x in w[1:])
        print("%-8s %9d  %13d  %13d  %10.2fx  %d/%d"
              % (variant, look, plain, with_t, plain / look, pd, td), file=out)


if __name__ == "__main__":
    sys.exit(main())
