"""A Master think and pondering on the RP2040 model (`make chip-think MODEL=DIR`).

The model (`../shared/picobox/`, its README.md; host_tools/chip_bench.py prepares it)
runs the firmware's real `App` (the rp2 port's `machine` and `neopixel`, the pixel
driver its profile picks, the pico_buttons profile's GPIO buttons) on the chip's own
clock.  Measured per firmware folder given (e.g. main's `firmware/` as "before" and
this tree's as "after"), all in one invocation:

* think: the board boots into a saved kalah midgame (North = Master to move), the
  script turns `App.tick()` as `App.run()` does and times the engine's slices in
  microseconds from the think's start (`App.start_thinking`) to the move; the model's
  tap.mjs runs it once without a press and once with presses of S1 (GP2) while the
  computer thinks (each a red "no" flash), and decodes the WS2812 frames on GP22:
  think share, Master's nodes, frames, press -> first changed frame;
* ponder: the board with the person to move against Master, no press, for
  PONDER_S seconds: the nodes pondered a second of the person's thought (and so per
  3 s); then the person carrying out the computer's move, one stone every STONE_MS
  (the simulator's pace, docs/ENGINE.md): nodes pondered per stone.

A measuring tool like chip_bench: no test depends on it.  Problems end in one line,
exit status 2.
"""

import json
import os
import re
import subprocess
import sys

from host_tools.chip_bench import ROOT, ChipBenchError, chip_mpy, firmware_puts, prepare_model

RECORD = "kalah 1 6 6 1 5 5 1 6 4 1"  # North (Master) to move, a midgame
PRESS_PIN = 2  # S1: a pit of the person's row (a red "no" flash while the computer thinks)
PRESSES = 3
PRESS_HOLD_MS = 120
PRESS_GAP_MS = 420
PRESS_AT_MS = 1200  # the first press, after the think began
STONE_MS = 700  # the person drops a stone this often (the simulator's pace)
PONDER_S = 3

# Runs on the model under tap.mjs (which presses the pins from outside).  Prints
# "T {json}" once the think has ended; keeps ticking (tap.mjs ends the run).
THINK = r"""
import time, gc
from mancala.hw.storage import Storage, OsFs
Storage(OsFs()).save("game.json", {"record": %(record)r, "number": 1, "human": 1,
                                   "level": 4, "hints": 0})
from mancala import app as A
b = A.main(run=False)
us = time.ticks_us
acc = [0, 0, 0]  # search us, think start us, frames at its start
e = b.engine
step_for = e.step_for
step = e.step
def timed_step_for(ms, chunk):
    t = us()
    step_for(ms, chunk)
    acc[0] += time.ticks_diff(us(), t)
def timed_step(n):
    t = us()
    step(n)
    acc[0] += time.ticks_diff(us(), t)
e.step_for = timed_step_for
e.step = timed_step
start_thinking = b.start_thinking
def timed_start():
    acc[0] = 0
    acc[1] = us()
    acc[2] = b.frame_no
    start_thinking()
    print("THINK at", time.ticks_ms())
b.start_thinking = timed_start
clock = b.clock
think = False
done = False
while True:
    t = clock.now()
    t_us = us()
    was = b.mode == A.THINK
    b.tick()
    if b.mode == A.THINK and not think and not done:
        think = True
    elif think and b.mode != A.THINK:
        think = False
        done = True
        total = time.ticks_diff(t_us, acc[1])
        print("T", {"think_us": total, "search_us": acc[0], "nodes": e.nodes,
                    "frames": b.frame_no - acc[2], "search_ms": b.search_ms})
    clock.sleep(b.FRAME_MS - clock.diff(clock.now(), t))
"""

# The person's time against Master: thinking (SELECT, no press), then carrying out
# the computer's move (SHOW: a tap on its pit takes the stones; SOW: a stone every
# STONE_MS, each a tap on the pit the board shows).  Nodes from the engine's counter.
PONDER = r"""
import time, gc
from mancala.hw.storage import Storage, OsFs
Storage(OsFs()).save("game.json", {"record": %(record)r, "number": 1, "human": 1,
                                   "level": 4, "hints": 0})
from mancala import app as A
b = A.main(run=False)
e = b.engine
clock = b.clock
b.MASTER_MS = 300  # the computer's think: short (not measured here)
out = {}
def turn():
    t = clock.now()
    b.tick()
    clock.sleep(b.FRAME_MS - clock.diff(clock.now(), t))
def until(cond, ms):
    t0 = time.ticks_ms()
    while not cond() and time.ticks_diff(time.ticks_ms(), t0) < ms:
        turn()
until(lambda: b.mode == A.SHOW, 20000)  # the computer's move, to be carried out
# carry it out: the sensors are pressed by hand here (the script plays the person:
# a debounced press and release through the Pits' own path, by the fake pin value)
pins = b.pits.sensors
def press(pit, hold_ms=120):
    pins.force(pit, 1)
    t0 = time.ticks_ms()
    until(lambda: False, hold_ms)
    pins.force(pit, 0)
n0 = e.nodes
p0 = b.ponder_ms
t0 = time.ticks_ms()
stones = 0
pit = b.sow_side * 7 + b.sow_pit
press(pit)
until(lambda: False, %(stone_ms)d - 120)
while b.mode == A.SOW:
    nxt = b.sow_path[b.sow_i] if b.sow_i < len(b.sow_path) else -1
    if nxt < 0:
        break
    press(nxt)
    until(lambda: b.mode != A.SOW, %(stone_ms)d - 120)
    stones += 1
out["carry"] = {"ms": time.ticks_diff(time.ticks_ms(), t0), "stones": stones,
                "ponder_ms": b.ponder_ms - p0}
print("P", out)
"""


def _tap(work, flash, code, args, timeout=3600):
    script = os.path.join(os.path.dirname(flash), "code.py")
    with open(script, "w") as f:
        f.write(code)
    cmd = ["node", os.path.join(work, "tap.mjs"), "--flash", flash, "--code", script] + args
    p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0 or "Traceback" in p.stdout:
        text = (p.stdout + p.stderr).strip().splitlines()
        raise ChipBenchError("the RP2040 model failed: %s" % "\n".join(text[-12:]))
    return p.stdout


def _dicts(text, tag):
    import ast

    return [ast.literal_eval(line[len(tag) + 1:]) for line in text.splitlines()
            if line.startswith(tag + " {")]


def flash_with(work, tmp, name, src):
    """A flash image with the firmware of folder `src` under /lib."""
    mpy = chip_mpy(work, tmp)
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    puts, _fmt = firmware_puts(mpy, d, src)
    flash = os.path.join(d, "flash.img")
    noop = os.path.join(d, "noop.py")
    with open(noop, "w") as f:
        f.write("print('ok')\n")
    p = subprocess.run(["node", os.path.join(work, "pico.mjs"), "--quiet", "--flash", flash,
                        "--save"] + puts + ["--exec", noop], cwd=work, capture_output=True,
                       text=True, timeout=1800)
    if p.returncode != 0:
        raise ChipBenchError("could not put the firmware on the model: %s" % p.stderr[-300:])
    return flash


def measure_think(work, flash, settle_ms):
    """(no presses, with presses, tap.mjs's report) for the firmware on `flash`."""
    out = _tap(work, flash, THINK % {"record": RECORD},
               ["--seq", ",".join([str(PRESS_PIN)] * PRESSES), "--settle-ms", str(settle_ms),
                "--gap-ms", str(PRESS_GAP_MS), "--hold-ms", str(PRESS_HOLD_MS),
                "--after-ms", "2500"])
    rows = _dicts(out, "T")
    if len(rows) != 2:
        raise ChipBenchError("the think did not end in both runs: %s" % out[-600:])
    lat = [float(m) / 1000 for m in re.findall(r"first changed frame after the press: \+(\d+) us", out)]
    rel = [float(m) / 1000 for m in re.findall(r"first changed frame after the release: \+(\d+) us", out)]
    starts = [int(m) for m in re.findall(r"THINK at (\d+)", out)]
    return rows[0], rows[1], lat, rel, starts, out


def report(results, out=sys.stdout):
    names = list(results)
    out.write("A Master think on the RP2040 model (kalah midgame %r, North = Master; "
              "presses: S1 x%d, %d ms held, %d ms apart, from %d ms into the think)\n"
              % (RECORD, PRESSES, PRESS_HOLD_MS, PRESS_GAP_MS, PRESS_AT_MS))
    head = "%-44s" % "" + "".join("%22s" % n for n in names)
    out.write(head + "\n")

    def row(label, fn):
        out.write("%-44s" % label + "".join("%22s" % fn(results[n]) for n in names) + "\n")

    def share(r):
        return "%.1f%% (%d/%d ms)" % (100.0 * r["search_us"] / r["think_us"], r["search_us"] // 1000,
                                      r["think_us"] // 1000)

    row("think share searching, no presses", lambda r: share(r["quiet"]))
    row("think share searching, with presses", lambda r: share(r["pressed"]))
    row("Master nodes in the think, no presses", lambda r: "%d" % r["quiet"]["nodes"])
    row("Master nodes in the think, with presses",
        lambda r: "%d (%.1f%%)" % (r["pressed"]["nodes"],
                                   100.0 * r["pressed"]["nodes"] / max(1, r["quiet"]["nodes"])))
    row("frames in the think, no presses / presses",
        lambda r: "%d / %d" % (r["quiet"]["frames"], r["pressed"]["frames"]))
    row("press -> first changed frame, ms", lambda r: " ".join("%.1f" % x for x in r["lat"]))
    row("release -> first changed frame, ms", lambda r: " ".join("%.1f" % x for x in r["rel"]))
    out.flush()


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(prog="chip_think", description=__doc__.split("\n")[0])
    p.add_argument("model", nargs="?", default=os.environ.get("MODEL"))
    p.add_argument("--firmware", action="append", default=[],
                   help="NAME=FOLDER of a firmware to measure (repeat: before/after in one run; "
                        "default this tree's firmware/)")
    p.add_argument("--json", help="write the results here too")
    a = p.parse_args(argv)
    fws = [x.split("=", 1) for x in a.firmware] or [["this tree", os.path.join(ROOT, "firmware")]]
    try:
        work = prepare_model(a.model)
        results = {}
        tmp = os.path.join(ROOT, "build", "chip_think")  # (kept: flash images, outputs)
        os.makedirs(tmp, exist_ok=True)
        if True:
            for k, (name, src) in enumerate(fws):
                sys.stderr.write("chip think: %s: firmware on the model\n" % name)
                flash = flash_with(work, tmp, "fw%d" % k, src)
                sys.stderr.write("chip think: %s: the think, twice (host minutes)\n" % name)
                # the presses land PRESS_AT_MS into the think: the think starts at a
                # fixed emulated moment after the script is sent (deterministic), found
                # by a first run's "THINK at" (ticks_ms) against the run's start
                quiet, pressed, lat, rel, starts, text = measure_think(work, flash, 4000)
                results[name] = {"quiet": quiet, "pressed": pressed, "lat": lat, "rel": rel,
                                 "starts": starts}
                with open(os.path.join(tmp, "fw%d" % k, "think.out"), "w") as f:
                    f.write(text)
        report(results)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(results, f, indent=1)
    except ChipBenchError as e:
        sys.stderr.write("chip think: %s\n" % e)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
