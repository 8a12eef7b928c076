"""The same firmware plays a whole game on simulated pins in both real MicroPython
builds (the WebAssembly VM and the unix port); frame render time, pit-to-light latency
and heap growth are measured there."""

import json
import os

import pytest
from mp_builds import BUILDS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAKES = os.path.join(ROOT, "host_tools", "fakes")
# wasm: a Pico-sized first heap (the VM adds more as needed; a small one keeps
# gc.mem_alloc fast).  unix: a heap so large that no collection runs inside a
# measured loop turn (the allocation counts below are differences of gc.mem_alloc).
# (not more: gc.mem_alloc scans the whole heap's allocation table)
HEAPS = {"wasm": 256 * 1024, "unix": 2 * 1024 * 1024}
# The bytes one move may allocate (saves, searches, events): the 64-bit unix port
# counts 1.8x the WebAssembly port's bytes for the same game (two-word object
# headers, 8-byte pointers in 16-byte GC blocks).
ALLOC_PER_MOVE = {"wasm": 8 * 1024, "unix": 14 * 1024}

SCRIPT = r'''
import gc, time, json, sys
import machine, neopixel
from memfs import MemFs
from board import SimBoard
from mancala.hw.storage import Storage
from mancala import app as A

assert sys.implementation.name == "micropython"
fs = MemFs()
Storage(fs).save("settings.json", {"variant": VARIANT, "opponent": 4, "starter": 0,
                                   "coaching": 1, "hints": 3, "brightness": 1, "quick": 0})
b = SimBoard(PROFILE, machine, neopixel, fs=fs, seed=3)
b.run(100)
b.tap("NS")
app = b.app
rules = app.game.rules
out = {}

# -- frame render time and allocation per frame -------------------------------------------
N = 200
gc.collect()
a0 = gc.mem_alloc()
t0 = time.ticks_us()
for _ in range(N):
    app.dirty = True
    app.render()
t1 = time.ticks_us()
a1 = gc.mem_alloc()
out["render_us"] = time.ticks_diff(t1, t0) // N
out["render_alloc_bytes"] = (a1 - a0) // N
t0 = time.ticks_us()
for _ in range(N):
    app.px.show()
out["show_us"] = time.ticks_diff(time.ticks_us(), t0) // N
t0 = time.ticks_us()
for _ in range(N):
    app.pits.poll()
out["poll_us"] = time.ticks_diff(time.ticks_us(), t0) // N

# -- pit-to-light: the loop turn that sees the press and draws it --------------------------
# (times of single loop turns, 1 ms clock resolution here: summed over many presses)
total = 0
presses = 0
longest = 0
for k in range(30):
    name = ("N3", "N2", "NS")[k % 3]  # not the mover's: a dot at the raw edge, no move
    b.press(name)
    waited = 0
    while waited < 2000:
        b.clock.advance(A.App.FRAME_MS)
        waited += A.App.FRAME_MS
        f0 = app.frame_no
        t = time.ticks_us()
        app.tick()
        d = time.ticks_diff(time.ticks_us(), t)
        if app.frame_no != f0:  # the first frame after the press: its light
            total += d
            presses += 1
            break
    longest = max(longest, waited)
    b.release(name)
    b.run(600)
out["press_tick_us"] = total // max(1, presses)
out["press_wait_ms"] = longest  # simulated time from a press to its lit frame, the longest
# -- the idle loop: a person thinking, nothing pressed ----------------------------------
b.run(1000)
a = gc.mem_alloc()
b.run(2000)  # 100 loop turns
out["idle_100_ticks_alloc_bytes"] = gc.mem_alloc() - a

# -- a whole game against master, the counts checked after every move ----------------------
# This VM port's gc.collect() frees nothing, so mem_alloc only grows: the growth
# measured inside the firmware's loop turns is exactly what the firmware allocated.
fw = [0, 0]  # bytes allocated inside App.tick, loop turns
real_tick = app.tick
def tick():
    a = gc.mem_alloc()
    real_tick()
    fw[0] += gc.mem_alloc() - a
    fw[1] += 1
app.tick = tick
gc.collect()
free0 = gc.mem_free()
alloc0 = gc.mem_alloc()
ref = rules.new_position(app.game.pos[:14], app.game.pos[14])
seed = [12345]
def rnd(n):
    seed[0] = (seed[0] * 1103515245 + 12345) & 0x3FFFFFFF
    return (seed[0] >> 8) % n
moves = 0
checks = 0
t_game = time.ticks_ms()
while moves < 300:
    if not b.until(("select", "show", "over", "blunder")):
        raise AssertionError("stuck: %r" % (b.frame(),))
    m = b.mode()
    if m == "over":
        break
    if m == "blunder":
        b.tap(12)
        continue
    side = ref[14]
    if m == "select":
        c = b.counts()
        want = [ref[i] for i in range(14)]
        if c != want:
            raise AssertionError("LEDs %r != rules %r" % (c, want))
        checks += 1
        legal = [k for k in range(6) if ref[15] >> k & 1]
        pit = legal[rnd(len(legal))]
        b.play_move(side * 7 + pit)
    else:
        p = None
        k = 0
        while p is None:
            b.run(60)
            p = b.shown_pit()
            k += 1
            if k > 50:
                raise AssertionError("no blinking pit: %r" % (b.frame(),))
        pit = p - side * 7
        b.sow()
    rules.move(ref, pit)
    moves += 1
out["game_ms"] = time.ticks_diff(time.ticks_ms(), t_game)
assert b.mode() == "over", b.frame()
assert [app.game.pos[i] for i in (6, 13)] == [ref[6], ref[13]] or app.game.end == 2
app.tick = real_tick
gc.collect()
out["fw_alloc_bytes"] = fw[0]
out["fw_ticks"] = fw[1]
out["game_objects_bytes"] = len(app.game._history) + len(app.game._moves)
out["moves"] = moves
out["checks"] = checks
out["heap_growth_bytes"] = gc.mem_alloc() - alloc0  # firmware + harness, nothing freed
out["heap_free_start"] = free0
out["end"] = app.game.end
out["record"] = app.store.read_game(app.meta["number"])
print("RESULT " + json.dumps(out))
'''


def name(build):
    return "unix" if build.__name__.endswith("mpunix") else "wasm"


def run_vm(build, variant, profile):
    code = "VARIANT = %r\nPROFILE = %r\n" % (variant, profile) + SCRIPT
    out = build.run(code, mounts=[(FAKES, "/lib")], timeout=600, heap=HEAPS[name(build)])
    line = [x for x in out.splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[7:])


# kalah in make test; the long matches (ranok, oware: 20-30 s each) in make test-long
@pytest.mark.parametrize("variant,profile", [("kalah", "pico_buttons"),
                                             pytest.param("ranok", "pico_hall", marks=pytest.mark.long),
                                             pytest.param("oware", "esp32", marks=pytest.mark.long)])
@BUILDS
def test_whole_game_against_master_in_the_micropython_vm(build, variant, profile):
    r = run_vm(build, variant, profile)
    assert r["checks"] > 5 and r["end"] in (1, 2)
    # every press lit in the loop turn that first saw it (a turn every FRAME_MS)
    assert r["press_wait_ms"] == 20, r["press_wait_ms"]
    assert r["record"].startswith(variant + " ")
    assert r["render_alloc_bytes"] == 0  # no allocation per LED frame
    assert r["idle_100_ticks_alloc_bytes"] == 0  # nor per loop turn while idle
    # what the firmware allocates in a whole game (saves, searches, events) stays
    # small per move: the Pico's GC has little to do
    assert r["fw_alloc_bytes"] < ALLOC_PER_MOVE[name(build)] * r["moves"], r
    report = os.environ.get("BOARD_MEASURE")
    if report and variant == "kalah" and name(build) == "wasm":  # `BOARD_MEASURE=path pytest ...` keeps the numbers for docs/BOARD.md
        with open(report, "w") as f:
            json.dump(r, f, indent=1)
