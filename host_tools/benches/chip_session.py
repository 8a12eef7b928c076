"""Whole games against Master on the RP2040 model, through the boot path (issue 42).

    python -m host_tools.benches.chip_session [MODEL] [--games 4] [--cut-at 9] [--json F]

The flash is laid out as `make deploy` lays it (host_tools/link/flash_image.py, with
/data/heap_watch so the board says its heap at each think and game end); the model
powers it on (boot.py, main.py, the stage, the app) and a person plays South: each
move a seeded random legal pit, pressed on its GPIO and sown stone by stone as the
guide lights; Master's moves are read off the LEDs (the pit it blinks), carried out
the same way.  Every count the LEDs show is checked against the rules before each of
the person's moves.  Once (--cut-at PLY of the first game) the power is cut: the flash
as it is, powered on again, and the game must go on where it was.

Prints the heap (gc.mem_free and the largest free block) after the start, at each
think (the tightest moment: the engine's buffers all live) and after each game, and
the chip's time.  A measuring tool: docs/BOARD.md, "Memory through the boot path",
has its figures; tests/test_chip_boot.py's long test runs one game.
"""

import argparse
import json
import re
import sys
import time

from host_tools.benches.chip_bench import ChipBenchError
from host_tools.benches.chip_board import ChipBoard, model_folder
from host_tools.link import flash_image
from mancala.hw.storage import encode
from mancala.rules import OVER, get_rules

HEAP_RE = re.compile(r"(start: [^\r\n]*|heap: [^\r\n]*)")
NUM_RE = re.compile(r"heap (\d+) KB free, largest block (\d+) KB")


def image(variant, profile="pico_buttons", extra=None, heap_watch=True):
    files, version = flash_image.board_files(profile=profile)
    files["/data/settings.json"] = encode(
        {"variant": variant, "opponent": 4, "starter": 0, "coaching": 0, "hints": 3,
         "brightness": 1, "quick": 0}).encode()
    if heap_watch:
        files["/data/heap_watch"] = b"1"
    files.update(extra or {})
    return flash_image.littlefs_image(files), version


def _wait(board, test, ms, step=100):
    waited = 0
    while waited < ms:
        v = test(board)
        if v is not None and v is not False:
            return v
        board.run(step)
        waited += step
    return test(board)


def computer_pit(board):
    """The pit Master blinks in its colour (its count not shown), or None.  (North's
    row only: a store may light in a side's colour, an extra turn's or a capture's.)"""
    counts, bgs = board.shown()
    if counts is None:
        return None
    for i in range(7, 13):
        if counts[i] is None and bgs[i] in ("south", "north"):
            return i
    return None


def play_game(board, variant, seed, cut_at=None, restart=None, out=sys.stderr):
    """One game from the menu's start; returns (plies, board after, cut done)."""
    rules = get_rules(variant)
    ref = rules.start(0)
    rnd = [seed]

    def pick(n):
        rnd[0] = (rnd[0] * 1103515245 + 12345) & 0x3FFFFFFF
        return (rnd[0] >> 8) % n

    board.tap("NS")  # (from the menu: a new game)
    board.run(400)
    plies = 0
    cut = False
    while plies < 300:
        if cut_at is not None and plies == cut_at and restart is not None and not cut:
            board = restart(board)
            cut = True
        side = ref[14]
        if side == 0:
            want = list(ref[:14])
            shown = _wait(board, lambda b, want=want: b.counts() == want or None, 15000)
            if not shown:
                raise ChipBenchError("ply %d: the LEDs show %r, the rules %r"
                                     % (plies, board.counts(), want))
            legal = [k for k in range(6) if ref[15] >> k & 1]
            pit = legal[pick(len(legal))]
            board.play_move(pit)
        else:
            p = _wait(board, computer_pit, 20000)
            if p is None:
                raise ChipBenchError("ply %d: no move of Master's shown: %r" % (plies, board.shown()))
            pit = p - 7
            board.play_move(p)
        flags = rules.move(ref, pit)
        plies += 1
        out.write("  ply %d: %s %s (chip %.1f s)\n" % (plies, "S" if side == 0 else "N", pit + 1,
                                                      board.t_ms / 1000))
        if flags & OVER:
            board.run(3000)
            board.tap("S1")  # the end screen: back to the menu
            board.run(600)
            return plies, board, cut
    raise ChipBenchError("the game did not end in 300 plies")


def session(model, games=4, variant="kalah", cut_at=9, out=sys.stderr, heap_watch=True):
    img, version = image(variant, heap_watch=heap_watch)
    board = ChipBoard(model, img, "pico_buttons", watch_alloc=True)
    results = {"version": version, "games": [], "cut": None}
    try:
        board.run(9000, until=r"main: confirmed|main: the new version failed|SAFE STATE")
        if "confirmed" not in board.console:
            raise ChipBenchError("the board did not start: %s" % board.console[-300:])
        results["boot_allocs"] = board.allocs(reset=True)  # from here on: after the start

        def restart(old):
            flash = old.save_flash()
            results["allocs_before_cut"] = old.allocs()
            old.close()
            new = ChipBoard(model, flash, "pico_buttons", watch_alloc=True)
            new.run(9000, until=r"main: (confirmed|healthy)")
            new.allocs(reset=True)
            results["cut"] = "resumed" if "healthy" in new.console or "confirmed" in new.console \
                else new.console[-300:]
            out.write("power cut, powered on again: %s\n" % results["cut"])
            return new

        for g in range(games):
            h0 = time.time()
            plies, board, _cut = play_game(board, variant, 1234 + g,
                                          cut_at if g == 0 else None, restart, out)
            results["games"].append({"plies": plies, "host_s": round(time.time() - h0),
                                     "allocs": board.allocs(reset=True)})
            out.write("game %d: %d plies, chip %.0f s, host %.0f s\n"
                      % (g + 1, plies, board.t_ms / 1000, time.time() - h0))
        results["heap"] = HEAP_RE.findall(board.console)
    finally:
        console = board.console
        board.close()
    results["console_tail"] = console[-2000:]
    return results


def summary(results):
    lines = results.get("heap", [])
    rows = []
    for line in lines:
        m = NUM_RE.search(line)
        if m:
            rows.append((line.split(";")[0].split(":")[1].strip() if line.startswith("heap")
                         else "after start", int(m.group(1)), int(m.group(2))))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(prog="chip_session", description=__doc__.splitlines()[0])
    ap.add_argument("model", nargs="?", default=None)
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--variant", default="kalah")
    ap.add_argument("--cut-at", type=int, default=9)
    ap.add_argument("--json", default=None)
    ap.add_argument("--no-heap-watch", action="store_true",
                    help="no /data/heap_watch: the allocations watched are the firmware's "
                    "alone (the heap's reports find the largest block by allocating)")
    a = ap.parse_args(argv)
    model = a.model or model_folder()
    if model is None:
        print("chip_session: no RP2040 model (../shared/picobox, or give its folder)")
        return 2
    try:
        r = session(model, a.games, a.variant, a.cut_at, heap_watch=not a.no_heap_watch)
    except ChipBenchError as e:
        print("chip_session: %s" % e)
        return 2
    if a.json:
        with open(a.json, "w") as f:
            json.dump(r, f, indent=1)
    rows = summary(r)
    print("%-16s %10s %14s" % ("when", "free KB", "largest KB"))
    for when, free, big in rows:
        print("%-16s %10d %14d" % (when, free, big))
    if rows:
        print("tightest: %d KB free, smallest largest block %d KB"
              % (min(r[1] for r in rows), min(r[2] for r in rows)))
    print("power cut mid-game: %s" % r["cut"])
    print("allocations at the boot: %d, the largest %d B" % (r["boot_allocs"]["count"],
                                                             r["boot_allocs"]["max"]))
    cut = r.get("allocs_before_cut")
    for k, g in enumerate(r["games"]):
        a = g["allocs"]
        if k == 0 and cut:  # (game 1 ran on two boards: before the cut and after)
            a = {"count": a["count"] + cut["count"], "max": max(a["max"], cut["max"]),
                 "big": {x: a["big"].get(x, 0) + cut["big"].get(x, 0)
                         for x in set(a["big"]) | set(cut["big"])}}
        print("game %d: %d plies, %d allocations after the start, the largest %d B; "
              "of 1 KB or more: %s" % (k + 1, g["plies"], a["count"], a["max"],
                                       ", ".join("%s KB x%d" % kv for kv in sorted(a["big"].items()))
                                       or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
