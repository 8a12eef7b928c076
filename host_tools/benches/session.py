"""Whole sessions of the firmware in the MicroPython unix port under a heap that
stands for a board (issue 11, docs/BOARD.md "Memory").

A session: several games in a row on one board, as a person plays them: the menu,
variant changes, a hint in every game, the coach grading every move, the computer
at Master.  The firmware runs as .mpy (as deployed) on the fakes; the heap is capped
at what stands for the board's free heap on this 64-bit build:

    cap = base + RATIO_64 x free_32

  free_32   the board's free heap after boot (FREE_32 below, from docs/HARDWARE
            and measured ports: esp32 without PSRAM 100-110 KB -> 100 KB; a Pico,
            rp2 port 1.27, about 240 KB -> 240 KB)
  RATIO_64  1.31: this firmware's objects take 1.31-1.35x more room on the 64-bit
            build; the low end makes the cap the strictest (a session that fits in
            1.31 x free_32 here needs at most free_32 on the 32-bit board)
  base      what the unix port, the fakes (machine, neopixel, memfs) and the
            harness module (board.py) hold, measured in the same build: the board
            has none of them

  python -m host_tools.benches.session [--profile esp32] [--games 4] [--old DIR]
  python -m host_tools.benches.session --bisect [--profile esp32]   the least heap a session needs
  python -m host_tools.benches.session --compare OLD_FIRMWARE_DIR  old and new side by side
  python -m host_tools.benches.session --modules [--compare OLD]    what each module costs held
"""

import argparse
import json
import os
import sys

from host_tools.runners import mpunix

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKES = os.path.join(ROOT, "host_tools", "fakes")
RATIO_64 = 1.35
FREE_32 = {"esp32": 110 * 1024, "rp2040": 240 * 1024, "rp2350": 470 * 1024}
VARIANTS = ("kalah", "kalah", "oware", "ranok", "mangala", "kalah")  # game by game

SESSION_SCRIPT = r'''
import gc, json, sys
import machine, neopixel
from memfs import MemFs
gc.collect()
BASE = gc.mem_alloc()  # the port, the fakes and this driver's own code
if MODE == "base":  # ... and the harness module board.py, on top of the firmware
    from mancala import app as _app
    gc.collect()
    a = gc.mem_alloc()
    import board
    try:  # (the harness reads the LEDs back: its decoder, which a board never loads)
        from mancala.hw import pixels_read
    except ImportError:  # an older firmware's: in hw/pixels, counted as the firmware
        pass
    gc.collect()
    print("BASE", BASE + gc.mem_alloc() - a)
    sys.exit(0)
from board import SimBoard
from mancala.hw.storage import Storage
if UNCHECKED:  # measure what fits past the profile check's limit: the start's check, on
    # each start (its module goes once the board is built, and again before the App is:
    # a second start imports it afresh)
    from mancala.modes import start as _start

    def _validate(p):
        from mancala import profile as _check

        _check.TT_BITS_MAX = {"rp2040": 16, "esp32": 16}
        return _check.validate(p)

    _start._validate = _validate
from mancala import app as A

out = {"base": BASE, "heap": gc.mem_alloc() + gc.mem_free(), "games": [], "samples": 0,
       "ends": [], "flash": []}
if TRACE:  # every sample's bytes, in one buffer made first (a list would grow as it goes)
    import array
    trace = array.array("i", bytes(4 * 400))
peak = [0, 0]  # the most heap held (after a collection), and the tightest free heap
def sample(where):
    gc.collect()
    a = gc.mem_alloc()
    if where == "boot":
        out["boot"] = a
    out["samples"] += 1
    if TRACE and out["samples"] <= len(trace):  # (the spikes: a module held twice)
        trace[out["samples"] - 1] = a
    if a > peak[0]:
        peak[0] = a
        peak[1] = gc.mem_free()
        out["tightest"] = where
        if HELD:  # the modules held at the peak (--modules; allocates: off by default)
            out["held"] = [k for k in sys.modules if k.startswith("mancala")]
            out["held_boot" if where == "boot" else "held_peak"] = out["held"]

fs = MemFs()
Storage(fs).save("settings.json", {"variant": VARIANTS[0], "opponent": 4, "starter": 0,
                                   "coaching": 1, "hints": 3, "brightness": 1, "quick": 0})
b = SimBoard(PROFILE, machine, neopixel, fs=fs, seed=3)
app = b.app
if app.mode == A.ERROR:
    raise AssertionError("the board did not start: %r" % (b.lines,))
out["short"] = list(getattr(app, "short", ()))  # what it started without (memory)
sample("boot")
seed = [12345]
def rnd(n):
    seed[0] = (seed[0] * 1103515245 + 12345) & 0x3FFFFFFF
    return (seed[0] >> 8) % n

for gi in range(GAMES):
    v = VARIANTS[gi]
    if not b.until(("menu",), 20000):
        raise AssertionError("no menu: %r" % (b.frame(),))
    sample("game %d menu" % (gi + 1))  # (the menu's code, not the game's, on the board)
    if app.settings["variant"] != v:
        b.tap(0)  # the variant item
        b.tap(7 + A.VARIANT_CHOICES.index(v))
    b.tap("NS")  # a new game
    sample("game %d start" % (gi + 1))
    hinted = False
    moves = 0
    while moves < 300:
        if not b.until(("select", "show", "over", "blunder"), 200000):
            raise AssertionError("stuck: %r" % (b.frame(),))
        m = b.mode()
        if m == "over":
            break
        if m == "blunder":
            b.tap(12)  # keep the move
            continue
        if m == "select":
            g = app.game
            if not hinted:
                hinted = True
                b.chord(("S3", "S4"))  # a hint: a master search in slices
                k = 0
                while app.hinting and k < 20000:
                    b.run(20)
                    k += 1
            legal = [p for p in range(6) if g.pos[15] >> p & 1]
            b.play_move(g.side * 7 + legal[rnd(len(legal))])
        else:
            b.sow()
        moves += 1
        if moves % 4 == 0:
            sample("game %d move %d" % (gi + 1, moves))
    if b.mode() != "over":
        raise AssertionError("game %d did not end: %r" % (gi + 1, b.frame()))
    sample("game %d end" % (gi + 1))
    b.lines.clear()  # (the harness's copy of the log: the board's console keeps none)
    gc.collect()
    out["ends"].append(gc.mem_alloc())  # what the session keeps, game after game
    # ... of which the simulated flash's files (on the board: flash, not heap): the
    # archive grows by each game's record
    out["flash"].append(sum(len(k) + len(d) for k, d in fs.files.items()))
    out["games"].append([v, moves, app.meta["number"]])
    b.tap("S1")  # the end screen: to the menu
if TRACE:
    out["trace"] = list(trace[:out["samples"]])
out["peak"] = peak[0]
out["free_at_peak"] = peak[1]
out["history"] = app.store.history()
print("RESULT " + json.dumps(out))
'''


# What each firmware module costs held: imported as .mpy, one after the other in an
# order that has its imports done first, the heap held after a collection before and
# after (its bytecode, functions, classes, dicts, tables and new names: all on the heap
# on a board, where .mpy modules are not frozen).
MODULES_SCRIPT = r'''
import gc, sys, micropython
for i in range(len(ORDER)):
    gc.collect()
    a = gc.mem_alloc()
    __import__(ORDER[i])
    if ORDER[i] == "mancala.game":  # its room for the session's buffers, freed at boot
        sys.modules[ORDER[i]].release_room()
    gc.collect()
    c = gc.mem_alloc() - a
    print("COST", ORDER[i], c)
    micropython.qstr_info()  # the names interned so far (their pools are on the heap)
'''


def _module_file(firmware, name):
    base = os.path.join(firmware, *name.split("."))
    for path in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.exists(path):
            return path
    return None


def _top_imports(firmware, name):
    """The firmware modules `name` imports when it is imported (its top-level imports,
    not those inside functions), with the packages above each."""
    import ast

    path = _module_file(firmware, name)
    tree = ast.parse(open(path).read())
    found = []

    def visit(body):
        for node in body:
            if isinstance(node, ast.Import):
                found.extend(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.append(node.module)
                for a in node.names:  # `from mancala.modes import activities`
                    if _module_file(firmware, node.module + "." + a.name):
                        found.append(node.module + "." + a.name)
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                visit(node.orelse)
                for h in getattr(node, "handlers", ()):
                    visit(h.body)
    visit(tree.body)
    deps = []
    for d in found:
        parts = d.split(".")
        for k in range(1, len(parts) + 1):
            m = ".".join(parts[:k])
            if m.startswith("mancala") and m != name and _module_file(firmware, m) \
                    and m not in deps:
                deps.append(m)
    return deps


def import_order(firmware, names):
    """`names` and what they import, each after its imports (a topological order)."""
    order = []

    def add(n, stack=()):
        if n in order or n in stack:
            return
        for d in _top_imports(firmware, n):
            add(d, stack + (n,))
        order.append(n)
    for n in names:
        add(n)
    return order


def module_costs(names, firmware=None):
    """[(module, bytes held, of which new names)] for `names` and their imports, in
    import order; the names: the growth of the interned strings' pools and data (a
    pool grows in steps: the module that fills one pays for the next)."""
    order = import_order(os.path.join(firmware or mpunix.FIRMWARE), names)
    out = mpunix.run(("ORDER = %r\n" % (order,)) + MODULES_SCRIPT, mpy=True, firmware=firmware,
                     mounts=[(FAKES, "/lib")], heap=1024 * 1024)
    rows = []
    q0 = None
    for line in out.splitlines():
        if line.startswith("COST "):
            _, name, cost = line.split()
            rows.append([name, int(cost), 0])
        elif line.startswith("qstr pool:"):
            q = int(line.split("n_total_bytes=")[1].split(",")[0])
            if q0 is not None and rows:
                rows[-1][2] = q - q0
            q0 = q
    return [tuple(r) for r in rows]


def modules_report(profile_name, firmwares, games=4):
    """Per firmware (label, folder): the modules held at the boot and at the session's
    peak, and what each costs held (module_costs)."""
    rows = {}
    held = {}
    for label, fw in firmwares:
        ok, r, _ = run_session(profile_name, games, None, fw, held=True)
        if not ok:
            print("%s: FAILED: %s" % (label, r.strip().splitlines()[-1]))
            return 1
        held[label] = (set(r["held_boot"]), set(r["held_peak"]))
        names = sorted(held[label][0] | held[label][1])
        rows[label] = {r[0]: r[1:] for r in module_costs(names, fw)}
        print("%s: boot %d, peak %d (%s), %d modules held at the peak" % (
            label, r["boot"], r["peak"], r["tightest"], len(held[label][1])))
    labels = [f[0] for f in firmwares]
    allnames = sorted(set().union(*[set(rows[k]) for k in labels]))
    print("bytes held per module (names: of which interned names), b: held at the boot, "
          "p: at the peak")
    print("%-26s " % "module" + " ".join("%17s" % ("%s (names)" % k) for k in labels))
    tot = {k: [0, 0, 0, 0] for k in labels}
    for n in allnames:
        cells = []
        for k in labels:
            if n not in rows[k]:
                cells.append("%17s" % "-")
                continue
            mark = ("b" if n in held[k][0] else " ") + ("p" if n in held[k][1] else " ")
            cells.append("%7d (%5d) %s" % (rows[k][n][0], rows[k][n][1], mark))
            for j in (0, 1):
                if n in held[k][j]:
                    tot[k][2 * j] += rows[k][n][0]
                    tot[k][2 * j + 1] += rows[k][n][1]
        print("%-26s %s" % (n, " ".join(cells)))
    for j, what in ((0, "held at the boot"), (1, "held at the peak")):
        print("%-26s %s" % (what, " ".join("%7d (%5d)   " % (tot[k][2 * j], tot[k][2 * j + 1])
                                           for k in labels)))
    return 0


def base_bytes(firmware=None):
    return int(_driver("base", "esp32", 0, 1024 * 1024, firmware).split()[-1])


def load_profile(name, overrides=None):
    sys.path.insert(0, os.path.join(ROOT, "firmware"))
    from mancala import profiles

    p = dict(profiles.load(name))
    p.update(overrides or {})
    return p


def _driver(mode, profile_name, games, heap, firmware, timeout=900, overrides=None,
            unchecked=False, held=False, trace=False):
    """Run the session driver (compiled, like the firmware: no parse on the heap)."""
    import tempfile

    profile = load_profile(profile_name, overrides) if overrides else profile_name
    driver = ("MODE = %r\nPROFILE = %r\nGAMES = %d\nVARIANTS = %r\nUNCHECKED = %r\n"
              "HELD = %r\nTRACE = %r\n" % (mode, profile, games, VARIANTS, unchecked, held,
                                             trace)) + SESSION_SCRIPT
    with tempfile.TemporaryDirectory(prefix="session-") as tmp:
        path = os.path.join(tmp, "session_driver.py")
        with open(path, "w") as f:
            f.write(driver)
        return mpunix.run("import session_driver\n", heap=heap, mpy=True, firmware=firmware,
                          mounts=[(FAKES, "/lib"), (path, "/lib/session_driver.py")],
                          timeout=timeout)


def cap_for(profile_name, firmware=None):
    """(cap in bytes, base, free_32) for a profile."""
    mcu = load_profile(profile_name)["mcu"]
    base = base_bytes(firmware)
    return base + int(RATIO_64 * FREE_32[mcu]), base, FREE_32[mcu]


def run_session(profile_name, games=4, heap=None, firmware=None, timeout=900, overrides=None,
                unchecked=False, held=False, trace=False):
    """Run a session; returns (ok, result dict or the error text, heap).
    overrides: profile keys changed for this run (e.g. {"tt_bits": 13});
    unchecked: the boot's profile check lets any tt_bits through (to measure);
    held: the result's "held_boot"/"held_peak" list the firmware's modules in
    sys.modules at the boot and at the peak; trace: "trace" every sample."""
    if heap is None:
        heap = cap_for(profile_name, firmware)[0]
    try:
        out = _driver("session", profile_name, games, heap, firmware, timeout, overrides,
                      unchecked, held, trace)
    except mpunix.MicroPythonError as e:
        return False, str(e), heap
    line = [x for x in out.splitlines() if x.startswith("RESULT ")][-1]
    return True, json.loads(line[7:]), heap


def bisect(profile_name, games=4, firmware=None, step=1024):
    """The least heap (bytes, to `step`) the session completes in."""
    lo, hi = 64 * 1024, 1024 * 1024
    while hi - lo > step:
        mid = (lo + hi) // 2 // step * step
        ok = run_session(profile_name, games, mid, firmware)[0]
        if ok:
            hi = mid
        else:
            lo = mid
    return hi


def compare(old, names=None, games=4, new=None):
    """Per profile: the old and the new firmware's session, side by side (bytes held at
    the boot, at the tightest moment, at each game's end; the free heap there)."""
    sys.path.insert(0, os.path.join(ROOT, "firmware"))
    from mancala import profiles

    print("%-13s %-4s %8s %9s %9s %9s  %s" % ("profile", "fw", "cap", "boot", "peak",
                                              "free@peak", "held after each game"))
    for name in names or list(profiles.NAMES):
        got = []
        for label, fw in (("old", old), ("new", new)):
            cap = cap_for(name, fw)[0]
            ok, r, _ = run_session(name, games, cap, fw)
            if not ok:
                print("%-13s %-4s %7dK  FAILED: %s" % (name, label, cap // 1024,
                                                       r.strip().splitlines()[-1]))
                got.append(None)
                continue
            got.append(r)
            print("%-13s %-4s %7dK %9d %9d %9d  %s" % (name, label, cap // 1024, r["boot"],
                                                      r["peak"], r["free_at_peak"], r["ends"]))
        if got[0] and got[1]:
            print("%-13s new/old %14.3f %9.3f %9.3f" % (
                name, got[1]["boot"] / got[0]["boot"], got[1]["peak"] / got[0]["peak"],
                got[1]["free_at_peak"] / got[0]["free_at_peak"]))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--profile", action="append", help="profile (default: all)")
    p.add_argument("--games", type=int, default=4)
    p.add_argument("--bisect", action="store_true", help="find the least heap a session needs")
    p.add_argument("--firmware", help="another firmware folder (e.g. an old checkout's)")
    p.add_argument("--compare", metavar="OLD", help="side by side with the firmware folder "
                   "OLD (e.g. `git archive REV firmware | tar -x -C /tmp/old`), each "
                   "under its own cap, in one run")
    p.add_argument("--modules", action="store_true", help="the modules held at the boot and "
                   "the peak, and what each costs held (with --compare OLD: both firmwares); "
                   "one profile (default esp32)")
    a = p.parse_args(argv)
    if a.modules:
        fws = ([("old", a.compare)] if a.compare else []) + [("new", a.firmware)]
        return modules_report((a.profile or ["esp32"])[0], fws, a.games)
    if a.compare:
        return compare(a.compare, a.profile, a.games, a.firmware)
    sys.path.insert(0, os.path.join(ROOT, "firmware"))
    from mancala import profiles

    names = a.profile or list(profiles.NAMES)
    print("%-13s %9s %9s %9s %9s %10s  %s" % ("profile", "free_32", "cap", "peak", "free@peak",
                                              "least heap", "tightest"))
    for name in names:
        cap, base, free32 = cap_for(name, a.firmware)
        ok, r, _ = run_session(name, a.games, cap, a.firmware)
        least = bisect(name, a.games, a.firmware) if a.bisect else None
        if ok:
            print("%-13s %8dK %8dK %8dK %8dK %10s  %s (base %d B)" % (
                name, free32 // 1024, cap // 1024, r["peak"] // 1024, r["free_at_peak"] // 1024,
                "%dK" % (least // 1024) if least else "-", r["tightest"], base))
        else:
            print("%-13s %8dK %8dK  FAILED under the cap: %s" % (
                name, free32 // 1024, cap // 1024, r.strip().splitlines()[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
