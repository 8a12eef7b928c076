"""The rules core, unchanged, in both real MicroPython builds (the WebAssembly port under
Node and the unix port)."""

import json

from mp_builds import BUILDS

SCRIPT = r"""
import gc, json, sys
from mancala.rules import get_rules, perft, VARIANTS, MASK
from mancala.notation import parse_record, format_position

out = {"impl": sys.implementation.name}
out["perft"] = {}
for v in VARIANTS:
    r = get_rules(v)
    out["perft"][v] = [perft(r, r.start(), d) for d in range(1, 6)]

seeds = {}
g = parse_record("mangala 3,4,4,4,5,4,0,4,4,4,4,4,4,0 S 5")
seeds["mangala_pit5"] = format_position(g.rules, g.pos)
g = parse_record("mangala 4")
seeds["mangala_pit4"] = [format_position(g.rules, g.pos), g.side]
g = parse_record("mangala 0,2,0,0,0,1,0,1,1,1,5,1,1,0 S 2")
seeds["mangala_empty_pit"] = format_position(g.rules, g.pos)
g = parse_record("ranok 0,0,0,0,0,3,0,1,1,2,3,1,0,0 S 6")
seeds["ranok_triple"] = format_position(g.rules, g.pos)
out["seeds"] = seeds

# No allocation per move: 2000 moves per variant in place on preallocated positions.
out["alloc_per_2000_moves"] = {}
for v in VARIANTS:
    r = get_rules(v)
    start = r.start()
    pos = bytearray(16)
    child = bytearray(16)
    def run(n):
        played = 0
        while played < n:
            pos[:] = start
            while pos[MASK] and played < n:
                m = pos[MASK]
                k = 0
                while not m >> k & 1:
                    k += 1
                child[:] = pos
                r.move(child, k)
                pos[:] = child
                played += 1
        return played
    run(10)
    gc.collect()
    before = gc.mem_alloc()
    run(2000)
    out["alloc_per_2000_moves"][v] = gc.mem_alloc() - before
print(json.dumps(out))
"""


@BUILDS
def test_rules_core_runs_unchanged_in_micropython(build):
    res = json.loads(build.run(SCRIPT).strip().splitlines()[-1])
    assert res["impl"] == "micropython"
    assert res["perft"] == {
        "ranok": [6, 36, 186, 973, 4823],
        "mangala": [6, 36, 213, 1233, 6956],
        "kalah": [6, 35, 185, 942, 4690],
        "oware": [6, 36, 190, 1014, 5219],
    }
    s = res["seeds"]
    assert s["mangala_pit5"] == "mangala 3,4,4,4,1,5,1,5,5,4,4,4,4,0 N"
    assert s["mangala_pit4"] == ["mangala 4,4,4,1,5,5,1,4,4,4,4,4,4,0 S", 0]
    assert s["mangala_empty_pit"] == "mangala 0,1,0,0,0,1,6,1,1,1,0,1,1,0 N"
    assert s["ranok_triple"] == "ranok 0,0,0,0,0,0,7,0,0,0,3,1,0,0 N"
    assert res["alloc_per_2000_moves"] == {"ranok": 0, "mangala": 0, "kalah": 0, "oware": 0}
