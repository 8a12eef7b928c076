"""Idle sleep and the battery in both real MicroPython builds (issue 25): the states
come and go, the waking press is not played, and no loop turn allocates while the board
is quiet, dim, dark or reading its battery."""

import json
import os

from mp_builds import BUILDS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAKES = os.path.join(ROOT, "host_tools", "fakes")
HEAPS = {"wasm": 256 * 1024, "unix": 2 * 1024 * 1024}  # (tests/test_mpvm_board.py's)

SCRIPT = r'''
import gc, json, sys
import machine, neopixel
from memfs import MemFs
from board import SimBoard
from mancala.hw.storage import Storage
from mancala import profiles

assert sys.implementation.name == "micropython"
p = dict(profiles.load("pico_buttons"))
p["battery"] = {"cell_mah": 3000}
p["led_power_pin"] = 16
fs = MemFs()
Storage(fs).save("settings.json", {"variant": "kalah", "opponent": 0, "starter": 0,
                                   "coaching": 0, "hints": 3, "brightness": 1, "quick": 0,
                                   "idle": 2})
b = SimBoard(p, machine, neopixel, fs=fs, seed=3)
b.set_battery(3900)
b.run(100)
b.tap("NS")
app = b.app
idle = app.idle
out = {}

def alloc(ms):
    gc.collect()
    a = gc.mem_alloc()
    b.run(ms)
    return gc.mem_alloc() - a

b.run(3000)
out["quiet"] = alloc(4000)  # 200 turns, two battery reads
b.run(2 * 60000 - 6000)
out["dim_state"] = idle.state_name()
out["held_dim"] = "mancala.asleep" in sys.modules
out["dim"] = alloc(4000)  # the breathing LED's frames, two battery reads
b.run(4 * 60000)
out["dark_state"] = idle.state_name()
out["dark"] = alloc(4000)
out["dark_leds"] = sum(b.np.buf)
ply = app.game.ply
b.tap("S1")
b.run(300)
out["woke"] = [idle.state_name(), b.mode(), app.game.ply == ply]
out["held_awake"] = "mancala.asleep" in sys.modules  # its code dropped again
b.tap("S1")
out["played"] = b.mode()
print("RESULT " + json.dumps(out))
'''


def name(build):
    return "unix" if build.__name__.endswith("mpunix") else "wasm"


@BUILDS
def test_idle_states_and_no_allocation_per_idle_turn_in_micropython(build):
    out = build.run(SCRIPT, mounts=[(FAKES, "/lib")], timeout=300, heap=HEAPS[name(build)])
    r = json.loads([x for x in out.splitlines() if x.startswith("RESULT ")][-1][7:])
    assert r["dim_state"] == "dim" and r["dark_state"] == "dark" and r["dark_leds"] == 0
    assert r["woke"] == ["awake", "select", True] and r["played"] == "sow"
    assert r["held_dim"] and not r["held_awake"]
    assert (r["quiet"], r["dim"], r["dark"]) == (0, 0, 0), r
