"""The engine's benchmark on the RP2040 model (`make chip-bench MODEL=DIR`).

The model (`../shared/picobox/`, its README.md) runs the official MicroPython rp2
firmware (v1.27.0, RPI_PICO) in a cycle-counting RP2040 emulator: its
`time.ticks_us()` is the chip's own clock at 125 MHz, deterministic whatever the
PC's load.  This tool sends the firmware as deploy builds it for that chip (.mpy of
the chip's format, `host_tools/link/deploy_plan.build`) to the model's flash, runs the same
workload as `mancala bench` (the positions of `analysis.sample_positions`, the
levels' own node budgets) on the model and in the WebAssembly VM in the same
invocation, and prints nodes per second per variant and level, the chip's heap, and
the VM/chip ratio.

A measuring tool: no test depends on it (a fresh clone has no model).  Every problem
with the model (no folder, not the model, no node/npm, npm install failing, the
firmware failing on it) ends in one line, exit status 2.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

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


def _node(work, args, timeout):
    p = subprocess.run(["node", os.path.join(work, "pico.mjs"), "--quiet"] + args, cwd=work,
                       capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0 or "Traceback" in p.stdout:
        text = (p.stdout + p.stderr).strip().splitlines()
        raise ChipBenchError("the RP2040 model failed: %s" % (text[-1] if text else "exit %d"
                                                              % p.returncode))
    return p.stdout


def chip_mpy(work, tmp):
    """sys.implementation._mpy of the model's MicroPython (the .mpy deploy builds)."""
    script = os.path.join(tmp, "mpy.py")
    with open(script, "w") as f:
        f.write("import sys\nprint('MPY', getattr(sys.implementation, '_mpy', 0))\n")
    for line in _node(work, ["--exec", script], 600).splitlines():
        if line.startswith("MPY "):
            return int(line.split()[1])
    raise ChipBenchError("the RP2040 model did not say its .mpy format")


def firmware_puts(mpy, tmp, src=None):
    """--put arguments for the firmware as deploy builds it for this chip (the
    package's code; its data files, which the engine never reads, stay behind)."""
    from host_tools.link import deploy_plan

    _version, _root, slot, fmt = deploy_plan.build(src or deploy_plan.DEFAULT_SRC, mpy)
    args = []
    for rel, data in sorted(slot.items()):
        if rel.startswith("mancala/data/"):
            continue
        p = os.path.join(tmp, "fw", rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
        args += ["--put", "%s:/lib/%s" % (p, rel)]
    return args, fmt


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


def run_bench(model, variants=("ranok", "mangala", "kalah", "oware"), positions=3, vm=True,
              out=sys.stdout, err=sys.stderr):
    """Run the bench; returns {variant: {"chip": result, "vm": result}}."""
    from host_tools.runners import mpvm

    work = prepare_model(model, out=err)
    if vm and not mpvm.available():
        raise ChipBenchError("the MicroPython VM is not installed: run `make setup`")
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        mpy = chip_mpy(work, tmp)
        puts, fmt = firmware_puts(mpy, tmp)
        flash = os.path.join(tmp, "flash.img")
        for v in variants:
            ps = bench_positions(v, positions)
            code = BENCH % {"variant": v, "positions": ps, "levels": [0, 1, 2, 3],
                            "repeat": 1, "inner": [1, 1, 1, 1]}
            script = os.path.join(tmp, "bench_%s.py" % v)
            with open(script, "w") as f:
                f.write(code)
            err.write("chip bench: %s, %d positions, on the model (minutes of host time)\n"
                      % (v, len(ps)))
            err.flush()
            args = ["--flash", flash, "--save"] + puts + ["--exec", script]
            puts = []  # the firmware stays on the model's flash for the next variant
            row = {"chip": _parse(_node(work, args, 3600)), "positions": len(ps)}
            if vm:
                row["vm"] = _parse(mpvm.run(BENCH % {"variant": v, "positions": ps,
                                                      "levels": [0, 1, 2, 3],
                                                      "repeat": VM_REPEAT,
                                                      "inner": vm_inner(v, len(ps))}))
            res[v] = row
    report(res, fmt, vm, out)
    return res


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
              "firmware as deploy sends it (%s)\n" % fmt)
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
        run_bench(a.model, variants, a.positions, vm=not a.no_vm)
    except ChipBenchError as e:
        sys.stderr.write("chip bench: %s\n" % e)
        return 2
    except subprocess.TimeoutExpired:
        sys.stderr.write("chip bench: the RP2040 model did not finish in time\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
