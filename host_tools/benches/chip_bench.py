"""The engine's benchmark on the RP2040 model (`make chip-bench MODEL=DIR`).

The model (`../shared/picobox/`, its README.md) runs the official MicroPython rp2
firmware (v1.27.0, RPI_PICO) in a cycle-counting RP2040 emulator: its
`time.ticks_us()` is the chip's own clock at 125 MHz, deterministic whatever the
PC's load.  This tool powers the model on from a flash laid out as `make deploy` lays
it (host_tools/link/flash_image.py: the board's real start, which its start line
reports: the engine, the heap), then runs the same workload as `mancala bench` (the
positions of `analysis.sample_positions`, the levels' own node budgets) with the
firmware of the slot the stage started, and the same in the WebAssembly VM in the same
invocation; it prints nodes per second per variant and level, the chip's heap, the
VM/chip ratio, and Master's 2 s think on the bytecode and the native engine side by
side (engine.NATIVE_BUDGETS' ratio).

A measuring tool: no test depends on it (a fresh clone has no model).  Every problem
with the model (no folder, not the model, no node/npm, npm install failing, the
firmware failing on it) ends in one line, exit status 2.
"""

import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL_FILES = ("pico.mjs", "board.mjs", "firmware.uf2", "package.json")
WORK = os.path.join(ROOT, "build", "picobox")  # the model's copy, with its node_modules
LEVEL_NAMES = ("beginner", "amateur", "strong", "master")
VM_NODES = 6000  # nodes of one timed VM run of a level (the same searches repeated)
VM_REPEAT = 7  # the VM's clock is the PC's wall time: the fastest of this many runs
# (CPU time, as `mancala bench` takes, cannot time the lower levels' few ms apart from
# the VM's start)


class ChipBenchError(Exception):
    """One line for the person running the bench."""


# Runs unchanged on the chip and in the VM: per level, every position searched at the
# level's own budget (Master: its node budget, no deadline), timed by ticks_us.
BENCH = r"""
import gc, json, sys, time
gc.collect()
free_boot = gc.mem_free()
from mancala.rules import get_rules
from mancala.engine import Engine
gc.collect()
free_imports = gc.mem_free()
r = get_rules(%(variant)r)
e = Engine(r)
gc.collect()
build = free_imports - gc.mem_free()
P = %(positions)r
out = {"free_boot": free_boot, "imports": free_boot - free_imports, "build": build,
       "levels": [], "machine": getattr(sys.implementation, "_machine", sys.platform)}
peak = 0
for li in %(levels)r:
  best = None
  for _ in range(%(repeat)d):  # (the VM: wall time, the fastest of a few runs)
    n = 0
    us = 0
    for p in P * %(inner)r[li]:
        pos = bytearray(16)
        pos[:15] = p
        pos[15] = r.legal_mask(pos)
        if not pos[15]:
            continue
        gc.collect()
        gc.disable()
        a0 = gc.mem_free()
        t = time.ticks_us()
        e.search(pos, level=li)
        us += time.ticks_diff(time.ticks_us(), t)
        g = a0 - gc.mem_free()
        gc.enable()
        if g > peak:
            peak = g
        n += e.nodes
    if best is None or us < best[1]:
        best = [n, us]
  out["levels"].append(best)
out["peak"] = peak
gc.collect()
out["free_after"] = gc.mem_free()
print("R", json.dumps(out))
"""


def _which(name):
    p = shutil.which(name)
    if p is None:
        raise ChipBenchError("%s not found: the RP2040 model runs on Node.js (install node and "
                             "npm, then run again)" % name)
    return p


def check_model(folder):
    """The model's folder, checked: raises ChipBenchError naming what is missing."""
    if not folder:
        raise ChipBenchError("no model folder given: make chip-bench MODEL=DIR (the RP2040 model, "
                             "../shared/picobox; a fresh clone has none)")
    if not os.path.isdir(folder):
        raise ChipBenchError("no RP2040 model at %s (not a folder)" % folder)
    missing = [f for f in MODEL_FILES if not os.path.isfile(os.path.join(folder, f))]
    if missing:
        raise ChipBenchError("%s is not the RP2040 model's folder (no %s; see its README.md)"
                             % (folder, ", ".join(missing)))
    return os.path.abspath(folder)


def prepare_model(folder, work=WORK, out=sys.stderr):
    """A writable copy of the model with its npm packages (the shared folder is
    read-only): copied once into `work` (again when the model's files change), then
    `npm install` there."""
    folder = check_model(folder)
    _which("node")
    npm = _which("npm")
    os.makedirs(work, exist_ok=True)
    for name in os.listdir(folder):
        src = os.path.join(folder, name)
        dst = os.path.join(work, name)
        if os.path.isfile(src):
            same = os.path.isfile(dst) and os.path.getsize(dst) == os.path.getsize(src) and \
                os.path.getmtime(dst) >= os.path.getmtime(src)
            if not same:
                shutil.copyfile(src, dst)
    if not os.path.isdir(os.path.join(work, "node_modules", "rp2040js")):
        out.write("chip bench: npm install in %s\n" % work)
        p = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
                           cwd=work, capture_output=True, text=True)
        if p.returncode != 0:
            last = (p.stderr.strip().splitlines() or ["exit status %d" % p.returncode])[-1]
            raise ChipBenchError("npm install of the RP2040 model failed: %s" % last)
    return work


def bench_positions(variant, count):
    """`count` of the positions `mancala bench` searches, spread over its games."""
    from host_tools.command.analysis import sample_positions

    ps = sample_positions(variant)
    if count >= len(ps):
        return ps
    step = len(ps) / count
    return [ps[int(k * step)] for k in range(count)]


def _parse(text):
    for line in text.splitlines():
        if line.startswith("R "):
            return json.loads(line[2:])
    raise ChipBenchError("no result from the bench script: %s" % text.strip()[-200:])


# Master's think on the board's terms, the bytecode engine and the machine-code one in
# the same run (docs/ENGINE.md, "Native kernels"): a 2 s deadline (engine.MASTER_MS),
# the node cap lifted, step_for slices of a loop turn (20 ms), the board's table size.
THINKS = r"""
import gc, json, time
from mancala.rules import get_rules
from mancala.engine import Engine, MASTER_MS
r = get_rules(%(variant)r)
out = []
for native in (False, True):
    row = []
    for p in %(positions)r:
        e = None
        gc.collect()
        e = Engine(r, tt_bits=12, native=native)
        pos = bytearray(16)
        pos[:15] = p
        pos[15] = r.legal_mask(pos)
        e.start(pos, level=3, nodes=1000000, deadline_ms=MASTER_MS, clock=time.ticks_ms)
        while not e.step_for(20):
            pass
        row.append([e.nodes, e.kernel])
        e.release()
    out.append(row)
print("R", json.dumps(out))
"""


def booted_board(model, err=sys.stderr):
    """The RP2040 model powered on from a flash laid out as `make deploy` lays it
    (host_tools/link/flash_image.py): boot.py, main.py, the stage and the app start as
    on a board.  The bench's scripts then run over the raw REPL after a soft reset
    (boot.py and the stage again: the slot's .mpy on sys.path, never a copy under
    /lib; the heap whole, as the app's own start finds it)."""
    from host_tools.benches.chip_board import ChipBoard
    from host_tools.link import flash_image

    work = prepare_model(model, out=err)
    files, version = flash_image.board_files(profile="pico_buttons")
    board = ChipBoard(model, flash_image.littlefs_image(files), "pico_buttons", work=work)
    out = board.run(9000, until=r"main: confirmed|main: the new version failed|SAFE STATE")
    if "main: confirmed" not in out:
        board.close()
        raise ChipBenchError("the deployed firmware did not start on the model: %s"
                             % (out.strip().splitlines() or ["no output"])[-1])
    start = [line for line in out.splitlines() if line.startswith("start: ")]
    err.write("chip bench: %s booted: %s\n" % (version, start[0] if start else "no start line"))
    return board, version, (start[0] if start else "")


def run_bench(model, variants=("ranok", "mangala", "kalah", "oware"), positions=3, vm=True,
              out=sys.stdout, err=sys.stderr, thinks=True):
    """Run the bench; returns {variant: {"chip": result, "vm": result, "thinks": ...}}."""
    from host_tools.runners import mpvm

    if vm and not mpvm.available():
        raise ChipBenchError("the MicroPython VM is not installed: run `make setup`")
    res = {}
    board, version, start = booted_board(model, err)
    try:
        for v in variants:
            ps = bench_positions(v, positions)
            err.write("chip bench: %s, %d positions, on the model (minutes of host time)\n"
                      % (v, len(ps)))
            err.flush()
            code = BENCH % {"variant": v, "positions": ps, "levels": [0, 1, 2, 3],
                            "repeat": 1, "inner": [1, 1, 1, 1]}
            row = {"chip": _parse(board.exec(code, soft_reset=True)), "positions": len(ps)}
            if thinks:
                row["thinks"] = _parse(board.exec(THINKS % {"variant": v,
                                                            "positions": think_positions(v)},
                                                  soft_reset=True))
            if vm:
                row["vm"] = _parse(mpvm.run(BENCH % {"variant": v, "positions": ps,
                                                      "levels": [0, 1, 2, 3],
                                                      "repeat": VM_REPEAT,
                                                      "inner": vm_inner(v, len(ps))}))
            res[v] = row
    finally:
        board.close()
    report(res, "%s, %s" % (version, start), vm, out)
    return res


def think_positions(variant):
    """Ply 2 and ply 12 of the first of `mancala bench`'s games (sample_positions keeps
    every fifth ply from the second): an opening and a midgame."""
    from host_tools.command.analysis import sample_positions

    ps = sample_positions(variant)
    return [bytes(ps[0][:15]), bytes(ps[2][:15])]


def vm_inner(variant, positions):
    """How many times the VM searches each level's positions in one timed run: about
    VM_NODES nodes, so its clock (ms steps) times the lower levels' searches too."""
    from mancala.engine import level_nodes
    from mancala.rules import get_rules

    rules = get_rules(variant)
    return [max(1, VM_NODES // max(1, level_nodes(rules, li) * positions)) for li in range(4)]


def _rate(level):
    n, us = level
    return n * 1e6 / us if us else 0.0


def report(res, fmt, vm, out):
    out.write("Engine on the RP2040 model (MicroPython rp2 v1.27.0 at 125 MHz, emulated: its "
              "own clock) against the WebAssembly VM, same positions and node budgets; "
              "the firmware deployed and powered on (%s)\n" % fmt)
    head = "%-8s %-9s %7s %10s" % ("variant", "level", "nodes", "chip n/s")
    if vm:
        head += " %10s %8s" % ("vm n/s", "vm/chip")
    out.write(head + "\n")
    for v, row in res.items():
        c = row["chip"]
        for li in range(4):
            line = "%-8s %-9s %7d %10.0f" % (v, LEVEL_NAMES[li], c["levels"][li][0],
                                            _rate(c["levels"][li]))
            if vm:
                r_vm = _rate(row["vm"]["levels"][li])
                r_c = _rate(c["levels"][li])
                line += " %10.0f %7.1fx" % (r_vm, r_vm / r_c if r_c else 0)
            out.write(line + "\n")
    if any("thinks" in row for row in res.values()):
        out.write("\nMaster's think of 2 s (step_for slices of 20 ms, node cap lifted), "
                  "bytecode and native in the same run:\n")
        out.write("%-8s %-9s %9s %9s %8s\n" % ("variant", "position", "bytecode", "native", "ratio"))
        for v, row in res.items():
            if "thinks" not in row:
                continue
            bc, nat = row["thinks"]
            for k, name in enumerate(("ply 2", "ply 12")):
                out.write("%-8s %-9s %9d %9d %7.1fx\n" % (
                    v, name, bc[k][0], nat[k][0], nat[k][0] / bc[k][0] if bc[k][0] else 0))
    out.write("\n%-8s %9s %9s %9s %9s %9s\n" % ("variant", "free boot", "imports", "engine",
                                             "search", "free end"))
    for v, row in res.items():
        c = row["chip"]
        out.write("%-8s %8dK %8dK %8dK %8dK %8dK\n" % (
            v, c["free_boot"] // 1024, c["imports"] // 1024, c["build"] // 1024,
            c["peak"] // 1024, c["free_after"] // 1024))
    out.write("heap on the chip (gc.mem_free): free after boot, taken by importing the rules "
              "and the engine, by Engine(rules) (its table), at most by one search (GC off); "
              "free at the end.  vm n/s: the VM's own ticks_us, the fastest of %d runs "
              "(the PC's wall time: on a loaded PC still noisy); vm/chip is what "
              "engine.PICO_FACTOR stands for" % VM_REPEAT + ")\n")
    out.flush()


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(prog="chip_bench", description=__doc__.split("\n")[0])
    p.add_argument("model", nargs="?", default=os.environ.get("MODEL"),
                   help="the RP2040 model's folder (../shared/picobox)")
    p.add_argument("--variants", default="ranok,mangala,kalah,oware",
                   help="comma-separated (default all four)")
    p.add_argument("--positions", type=int, default=3,
                   help="positions per variant, of `mancala bench`'s (default 3: ~2 min each)")
    p.add_argument("--no-vm", action="store_true", help="the chip only")
    p.add_argument("--no-thinks", action="store_true",
                   help="leave out the 2 s thinks of the bytecode and the native engine")
    a = p.parse_args(argv)
    from mancala.rules import VARIANTS

    variants = tuple(x for x in a.variants.split(",") if x)
    bad = [x for x in variants if x not in VARIANTS]
    try:
        if bad or not variants:
            raise ChipBenchError("unknown variant %s: choose from %s"
                                 % (", ".join(bad) or "(none)", ", ".join(VARIANTS)))
        if a.positions < 1:
            raise ChipBenchError("--positions must be 1 or more")
        run_bench(a.model, variants, a.positions, vm=not a.no_vm, thinks=not a.no_thinks)
    except ChipBenchError as e:
        sys.stderr.write("chip bench: %s\n" % e)
        return 2
    except subprocess.TimeoutExpired:
        sys.stderr.write("chip bench: the RP2040 model did not finish in time\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
