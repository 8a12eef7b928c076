"""Rules-core benchmark: the fast core against the plain list-copying version
(host_tools/references/reference_rules.py), in CPython and in the MicroPython VM, same run.

Two measures per variant:
  moves/s   random playouts (a fixed LCG picks the moves, so both implementations
            play the very same games), counting every move played;
  perft(6)  wall time of the full count from the start position.
Ratios are what to read: the machines here are noisy, the ratio in one run is not.
"""

import json
import os
import sys

from host_tools.runners import mpvm

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Runs unchanged in CPython and MicroPython.
BENCH = r"""
import sys, json
try:
    from time import ticks_ms, ticks_diff
except ImportError:
    from time import perf_counter
    def ticks_ms():
        return int(perf_counter() * 1000)
    def ticks_diff(a, b):
        return a - b
from mancala.rules import get_rules, perft, MASK, VARIANTS
from reference_rules import ReferenceRules

PLAYOUT_MOVES = %(moves)d
DEPTH = %(depth)d

def lcg(x):
    return (x * 1103515245 + 12345) & 0x3FFFFFFF  # stays a small int on the device

def playouts_fast(rules, n):
    start = rules.start()
    pos = bytearray(16)
    child = bytearray(16)
    x = 1
    played = 0
    while played < n:
        pos[:] = start
        while pos[MASK] and played < n:
            m = pos[MASK]
            x = lcg(x)
            k = (x >> 8) %% 6
            while not m >> k & 1:
                k = (k + 1) %% 6
            child[:] = pos
            rules.move(child, k)
            pos[:] = child
            played += 1
    return x

def playouts_plain(ref, n):
    x = 1
    played = 0
    while played < n:
        pos = ref.start()
        legal = ref.legal(pos)
        while legal and played < n:
            x = lcg(x)
            k = (x >> 8) %% 6
            while k not in legal:
                k = (k + 1) %% 6
            pos = ref.play(pos, k)
            legal = ref.legal(pos)
            played += 1
    return x

out = {}
for v in VARIANTS:
    r = get_rules(v)
    ref = ReferenceRules(v)
    t = ticks_ms(); a = playouts_fast(r, PLAYOUT_MOVES); fast_ms = max(1, ticks_diff(ticks_ms(), t))
    t = ticks_ms(); b = playouts_plain(ref, PLAYOUT_MOVES); plain_ms = max(1, ticks_diff(ticks_ms(), t))
    assert a == b  # the same games were played
    t = ticks_ms(); pf = perft(r, r.start(), DEPTH); pf_ms = max(1, ticks_diff(ticks_ms(), t))
    t = ticks_ms(); pp = ref.perft(ref.start(), DEPTH); pp_ms = max(1, ticks_diff(ticks_ms(), t))
    assert pf == pp
    out[v] = [PLAYOUT_MOVES * 1000 // fast_ms, PLAYOUT_MOVES * 1000 // plain_ms, pf_ms, pp_ms, pf]
print(json.dumps(out))
"""


def _script(moves, depth):
    return BENCH % {"moves": moves, "depth": depth}


def run_cpython(moves=20000, depth=6):
    sys.path.insert(0, os.path.join(ROOT, "host_tools", "references"))
    scope = {"__name__": "rules_bench"}
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(_script(moves, depth), "rules_bench", "exec"), scope)
    return json.loads(buf.getvalue().strip().splitlines()[-1])


def run_micropython(moves=20000, depth=6):
    out = mpvm.run(_script(moves, depth),
                   mounts=[(os.path.join(ROOT, "host_tools", "references", "reference_rules.py"),
                            "/lib/reference_rules.py")])
    return json.loads(out.strip().splitlines()[-1])


def bench_rules(moves=20000, depth=6, vm=True, out=sys.stdout):
    """Print the table; returns {runtime: {variant: [...]}}."""
    results = {"CPython": run_cpython(moves, depth)}
    if vm and mpvm.available():
        results["MicroPython VM"] = run_micropython(moves, depth)
    out.write("Rules core vs plain list-copy rules (%d playout moves, perft(%d))\n" % (moves, depth))
    out.write("%-15s %-8s %12s %12s %7s %11s %11s %7s\n" % (
        "runtime", "variant", "fast mv/s", "plain mv/s", "ratio", "perft fast", "perft plain", "ratio"))
    for runtime, table in results.items():
        for v, (fm, pm, pf, pp, _count) in table.items():
            out.write("%-15s %-8s %12d %12d %6.1fx %9d ms %9d ms %6.1fx\n" % (
                runtime, v, fm, pm, fm / pm, pf, pp, pp / pf))
    return results


def main(argv=None):
    import argparse
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--moves", type=int, default=20000)
    p.add_argument("--depth", type=int, default=6)
    p.add_argument("--no-vm", action="store_true")
    a = p.parse_args(argv)
    bench_rules(a.moves, a.depth, vm=not a.no_vm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
