"""A Master think and pondering on the RP2040 model (`make chip-think MODEL=DIR`).

The model (`../shared/picobox/`, its README.md; host_tools/benches/chip_bench.py prepares it)
runs the firmware's real `App` (the rp2 port's `machine` and `neopixel`, the pixel
driver its profile picks, the pico_buttons profile's GPIO buttons) on the chip's own
clock.  Measured per firmware folder given (e.g. main's `firmware/` as "before" and
this tree's as "after"), all in one invocation:

* think: the board boots into a saved kalah midgame (North = Master to move; or the
  game `--record` gives: a variant's budgets are measured so, engine.NATIVE_BUDGETS), the
  script turns `App.tick()` as `App.run()` does and times the engine's slices in
  microseconds from the think's start (`App.start_thinking`) to the move; the model's
  tap.mjs runs it once without a press and once with presses of S1 (GP2) while the
  computer thinks (each a red "no" flash; counted from the think's start, which the
  script signals on ARM_PIN, so every run presses at the same moments of the chip's
  time), and decodes the WS2812 frames on GP22: think share, Master's nodes,
  frames, press -> first changed frame;
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

from host_tools.benches.chip_bench import (
    ROOT,
    ChipBenchError,
    chip_mpy,
    firmware_puts,
    prepare_model,
)

RECORD = "kalah 1 6 6 1 5 5 1 6 4 1"  # North (Master) to move, a midgame
PRESS_PIT = "S1"  # a pit of the person's row (a red "no" flash while the computer thinks):
# S1 is the chain's first ring (its frames' writes the shortest: Pixels.prefix_writes),
# --press S6 / N6 measure pits further down the chain
PIT_NAMES = ("S1", "S2", "S3", "S4", "S5", "S6", "Sstore",
             "N1", "N2", "N3", "N4", "N5", "N6", "Nstore")
PRESSES = 3
PRESS_HOLD_MS = 120
PRESS_GAP_MS = 420
PRESS_AT_MS = 1200  # the first press, after the think began
# The script raises this GPIO (free on pico_buttons) when the think starts, and
# tap.mjs (chip_think's patch) counts the presses from that edge, in the chip's own
# time: the script reaches the chip over USB at the host's pace, so a press timed
# from the upload fell 1,258-1,295 ms into the run, a different moment of the think
# from run to run (session 34's figures moved by 1-2 points with it)
ARM_PIN = 16
PHASE_MS = 37  # --phases: each run's presses this much later (not a multiple of the
# light's 250 ms steps nor the flash's 125 ms blinks)
STONE_MS = 700  # the person drops a stone this often (the simulator's pace)
PONDER_S = 3

# Runs on the model under tap.mjs (which presses the pins from outside).  Prints
# "T {json}" once the think has ended; keeps ticking (tap.mjs ends the run).
THINK = r"""
import time, gc, machine
ARM = machine.Pin(%(arm)d, machine.Pin.OUT, value=0)  # (high: the think starts, tap.mjs's taps count from it)
from mancala.hw.storage import Storage, OsFs
Storage(OsFs()).save("game.json", {"record": %(record)r, "number": 1, "human": 1,
                                   "level": 4, "hints": 0})
from mancala import profiles as PR
if %(driver)r:  # the chain's driver measured (the profile's own when empty)
    PR.load(PR.DEFAULT)["pixel_driver"] = %(driver)r
from mancala import app as A
b = A.main(run=False)
b.MASTER_CAP = 1000000  # the 2 s deadline ends the think, not the node cap
us = time.ticks_us
acc = [0, 0, 0]  # search us, think start us, frames at its start
e = b.engine
step_for = e.step_for
step = e.step
inside = [0]
def timed_step_for(ms, chunk, wake=None, watch=None):  # (a long slice's: App.LONG_SLICE_MS)
    t = us()
    inside[0] = 1
    if wake is None:
        done = step_for(ms, chunk)
    elif watch is None:
        done = step_for(ms, chunk, wake)
    else:
        done = step_for(ms, chunk, wake, watch)
    inside[0] = 0
    acc[0] += time.ticks_diff(us(), t)
    return done
def timed_step(n):  # (step_for calls step: only a step of its own is counted)
    if inside[0]:
        return step(n)
    t = us()
    done = step(n)
    acc[0] += time.ticks_diff(us(), t)
    return done
e.step_for = timed_step_for
e.step = timed_step
start_thinking = b.start_thinking
def timed_start():
    acc[0] = 0
    acc[1] = us()
    acc[2] = b.frame_no
    frame_us[:] = []
    start_thinking()
    ARM.value(1)
    print("THINK at", time.ticks_ms())
b.start_thinking = timed_start
frame_us = []  # when each frame of the think was handed to the chain (its write())
def on_frame(app):
    if len(frame_us) < 64:
        frame_us.append(us())
b.on_frame = on_frame
clock = b.clock
think = False
done = False
nodes = 0
while True:
    t = clock.now()
    t_us = us()
    was = b.mode == A.THINK
    b.tick()
    if b.mode == A.THINK and not think and not done:
        think = True  # (the boot began it inside main(): again, timed from here)
        timed_start()
    if b.mode == A.THINK:
        nodes = e.nodes  # (the turn that shows the move may start pondering: a new count)
    elif think:
        think = False
        done = True
        total = time.ticks_diff(t_us, acc[1])
        print("T", {"think_us": total, "search_us": acc[0], "nodes": nodes,
                    "frames": b.frame_no - acc[2], "search_ms": b.search_ms,
                    "frame_us": frame_us, "t0_us": acc[1]})
    clock.sleep(b.FRAME_MS - clock.diff(clock.now(), t))
"""

# The person's time against Master, with the native kernels the deploy sends: the
# computer's move shown (SHOW), its pit tapped, its stones sown one every STONE_MS
# (each a DOWN and a TAP event on the pit the board guides to: the App's own path
# after the sensors' debounce, which this script stands in for), then the person to
# move, thinking PONDER_S s without a press.  Nodes from the engine's counter.
PONDER = r"""
import time, gc
from mancala.hw.storage import Storage, OsFs
Storage(OsFs()).save("game.json", {"record": %(record)r, "number": 1, "human": 1,
                                   "level": 4, "hints": 0})
from mancala import profiles as PR
if %(driver)r:  # the chain's driver measured (the profile's own when empty)
    PR.load(PR.DEFAULT)["pixel_driver"] = %(driver)r
from mancala import app as A
from mancala.hw import pits as P
b = A.main(run=False)
e = b.engine
clock = b.clock
b.MASTER_MS = 300  # the computer's think: short (not measured here)
out = {}
def turn():
    t = clock.now()
    b.tick()
    clock.sleep(b.FRAME_MS - clock.diff(clock.now(), t))
def run_for(ms, stop=None):
    t0 = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), t0) < ms and not (stop and stop()):
        turn()
def tap(pit):
    b.on_event(P.DOWN << 16 | pit)
    turn()
    b.on_event(P.TAP << 16 | pit)
run_for(20000, lambda: b.mode == A.SHOW)
t0 = time.ticks_ms()
pm0 = b.ponder_ms
n = [0]
stones = 0
base = [0]
def nodes():
    return e.nodes if b.pondering else 0
tap(b.sow_side * 7 + b.sow_pit)
run_for(%(stone_ms)d)
while b.mode == A.SOW and stones < 40:
    before = nodes()
    tap(b.sow_path[b.sow_i])
    run_for(%(stone_ms)d, lambda: b.mode != A.SOW)
    stones += 1
carry_ms = time.ticks_diff(time.ticks_ms(), t0)
out["carry"] = {"ms": carry_ms, "stones": stones, "ponder_ms": b.ponder_ms - pm0,
                "nodes": nodes(), "mode": A.MODE_NAMES[b.mode]}
run_for(2000, lambda: b.mode == A.SELECT)
n0 = nodes()
pm0 = b.ponder_ms
t0 = time.ticks_ms()
run_for(%(think_ms)d)
out["think"] = {"ms": time.ticks_diff(time.ticks_ms(), t0), "nodes": nodes() - n0,
                "ponder_ms": b.ponder_ms - pm0, "mode": A.MODE_NAMES[b.mode],
                "cap": e.ponder_nodes}
print("P", out)
"""


def measure_ponder(work, flash, driver="", record=RECORD):
    """Pondering's nodes (under tap.mjs: its pins held high as the pull-ups would,
    no press from outside; pico.mjs leaves them low: every pit held, the sensor test)."""
    code = PONDER % {"record": record, "stone_ms": STONE_MS, "think_ms": PONDER_S * 1000,
                     "driver": driver}
    out = _tap(work, flash, code, ["--no-control", "--taps", "0", "--settle-ms", "0",
                                   "--gap-ms", "0", "--hold-ms", "0", "--after-ms", "16000"])
    rows = _dicts(out, "P")
    if not rows:
        raise ChipBenchError("the ponder script printed no result: %s" % out[-800:])
    return rows[0]


PIO_JS = os.path.join("node_modules", "rp2040js", "dist", "esm", "peripherals", "pio.js")
PIO_RUN = """    run() {
        for (let i = 0; i < 1000 && !this.stopped; i++) {
            this.step();
        }
        if (!this.stopped) {
            this.runTimer = setTimeout(() => this.run(), 0);
        }
    }"""
PIO_RUN_EMULATED = """    run() {
        // (chip_think's patch: the PIO stepped in emulated time, 80 steps every 10 us =
        // 8 MHz, the WS2812 program's clock, not 1000 steps a host event-loop turn)
        for (let i = 0; i < 80 && !this.stopped; i++) {
            this.step();
        }
        if (!this.stopped) {
            if (!this.emuAlarm) this.emuAlarm = this.rp2040.clock.createAlarm(() => this.run());
            this.emuAlarm.schedule(10000);
        }
    }"""


def patch_pio(work):
    """rp2040js 1.4.1 steps the PIO per host event-loop turn, not in emulated time (a
    PIO frame of 180 LEDs then takes ~1.4 s of the chip's time): the model's copy in
    `work` gets its PIO stepped in emulated time (idempotent; ../shared untouched)."""
    path = os.path.join(work, PIO_JS)
    with open(path) as f:
        text = f.read()
    if PIO_RUN_EMULATED in text:
        return
    if PIO_RUN not in text:
        raise ChipBenchError("the model's rp2040js is not the one patched here (%s)" % path)
    text = text.replace(PIO_RUN, PIO_RUN_EMULATED)
    text = text.replace("        this.stopped = true;\n        if (this.runTimer) {",
                        "        this.stopped = true;\n        if (this.emuAlarm) this.emuAlarm.cancel();\n"
                        "        if (this.runTimer) {")
    _replace(path, text)


TAP_KEY = """  const key = Buffer.from(bytes).toString('hex');"""
TAP_KEY_LATCHED = """  // (chip_think's patch: an LED past the end of a short frame keeps what it showed, as
  // a WS2812 does: a frame's content is the chain's, the bytes sent over the last ones)
  for (let i = 0; i < bytes.length; i++) latched[i] = bytes[i];
  const key = Buffer.from(latched).toString('hex');"""


TAP_ARG = """  else if (a === '--no-control') opt.noControl = true;\n"""
TAP_ARG_ARM = TAP_ARG + """  else if (a === '--arm-pin') opt.arm = +args[++i];\n"""
TAP_LOOP = """for (let k = 0; k < nTaps; k++) {\n"""
TAP_END = """const h0 = Date.now();
await new Promise((resolve) => at(tEnd, resolve));
"""
TAP_END_ARMED = """const h0 = Date.now();
await new Promise((resolve) => {
  if (opt.arm === undefined) { scheduleTaps(); at(tEnd, resolve); return; }
  // (chip_think's patch: the taps and the run's end counted from the script's signal,
  // the first rising edge on --arm-pin, in the chip's own time)
  let armed = false;
  b.pin(opt.arm).addListener((value) => {
    if (armed || value !== 1) return;
    armed = true;
    scheduleTaps();
    at(tEnd, resolve);
  });
  at(tEnd + 20000 * 1e6, resolve); // (no signal: the run ends 20 s later)
});
"""


def patch_tap(work):
    """The model's copy of tap.mjs in `work`, patched (idempotent; ../shared untouched):
    * it compares whole frames, and the firmware's frames of a few pits send the chain
      only up to the last pit they changed (Pixels.prefix_writes): it reads each
      frame as what the chain then shows;
    * `--arm-pin N`: the taps (and the run's end) count from the first rising edge
      the script gives GPIO N, not from the script's upload (ARM_PIN)."""
    path = os.path.join(work, "tap.mjs")
    with open(path) as f:
        text = f.read()
    if TAP_KEY_LATCHED in text and TAP_ARG_ARM in text:
        return
    if TAP_KEY_LATCHED not in text:
        if TAP_KEY not in text or "const frames = [];\n" not in text:
            raise ChipBenchError("the model's tap.mjs is not the one patched here (%s)" % path)
        text = text.replace(TAP_KEY, TAP_KEY_LATCHED)
        text = text.replace("const frames = [];\n", "const frames = [];\nconst latched = [];\n", 1)
    if TAP_ARG not in text or text.count(TAP_LOOP) != 1 or TAP_END not in text:
        raise ChipBenchError("the model's tap.mjs is not the one patched here (%s)" % path)
    text = text.replace(TAP_ARG, TAP_ARG_ARM)
    text = text.replace(TAP_LOOP, "function scheduleTaps() {\n" + TAP_LOOP)
    text = text.replace("const tEnd = ", "}\nconst tEnd = ", 1)
    text = text.replace(TAP_END, TAP_END_ARMED)
    _replace(path, text)


def _replace(path, text):
    """Write `path` whole or not at all (two runs side by side patch the same copy)."""
    tmp = "%s.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


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


def press_pin(pit):
    """The GPIO of a pit's button on the model's board (profiles/pico_buttons.py)."""
    from mancala.profiles import load

    return load("pico_buttons")["pit_pins"][PIT_NAMES.index(pit)]


def measure_think(work, flash, settle_ms, driver="", pit=PRESS_PIT, record=RECORD):
    """(no presses, with presses, tap.mjs's report) for the firmware on `flash`."""
    out = _tap(work, flash, THINK % {"record": record, "driver": driver, "arm": ARM_PIN},
               ["--arm-pin", str(ARM_PIN),
                "--seq", ",".join([str(press_pin(pit))] * PRESSES), "--settle-ms", str(settle_ms),
                "--gap-ms", str(PRESS_GAP_MS), "--hold-ms", str(PRESS_HOLD_MS),
                "--after-ms", "2500"])
    rows = _dicts(out, "T")
    if len(rows) != 2:
        raise ChipBenchError("the think did not end in both runs: %s" % out[-600:])
    lat = [float(m) / 1000 for m in re.findall(r"first changed frame after the press: \+(\d+) us", out)]
    rel = [float(m) / 1000 for m in re.findall(r"first changed frame after the release: \+(\d+) us", out)]
    starts = [int(m) for m in re.findall(r"THINK at (\d+)", out)]
    return rows[0], rows[1], lat, rel, starts, out


def report(results, out=sys.stdout, pit=PRESS_PIT, record=RECORD):
    names = list(results)
    out.write("A Master think on the RP2040 model (%r, North = Master; "
              "presses: %s x%d, %d ms held, %d ms apart, from %d ms into the think)\n"
              % (record, pit, PRESSES, PRESS_HOLD_MS, PRESS_GAP_MS, PRESS_AT_MS))
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
    if any(len(results[n].get("phases", ())) > 1 for n in names):
        def over(r, fn):
            v = [fn(q, p) for q, p in r["phases"]]
            return "%.1f%% (%.1f-%.1f)" % (sum(v) / len(v), min(v), max(v))

        k = max(len(results[n].get("phases", ())) for n in names)
        row("... share with presses, %d phases: mean (range)" % k,
            lambda r: over(r, lambda q, p: 100.0 * p["search_us"] / p["think_us"]))
        row("... nodes with presses, of no presses",
            lambda r: over(r, lambda q, p: 100.0 * p["nodes"] / max(1, q["nodes"])))
    row("frames in the think, no presses / presses",
        lambda r: "%d / %d" % (r["quiet"]["frames"], r["pressed"]["frames"]))
    row("press -> first changed frame, ms", lambda r: " ".join("%.1f" % x for x in r["lat"]))
    row("release -> first changed frame, ms", lambda r: " ".join("%.1f" % x for x in r["rel"]))
    if all("ponder" in results[n] for n in names):
        row("pondered per stone carried out (%d ms)" % STONE_MS,
            lambda r: "%.0f" % (r["ponder"]["carry"]["nodes"] / max(1, r["ponder"]["carry"]["stones"])))
        row("pondered per 3 s of the person's thought",
            lambda r: "%.0f" % (r["ponder"]["think"]["nodes"] * 3000.0 / max(1, r["ponder"]["think"]["ms"])))
    out.flush()


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(prog="chip_think", description=__doc__.split("\n")[0])
    p.add_argument("model", nargs="?", default=os.environ.get("MODEL"))
    p.add_argument("--firmware", action="append", default=[],
                   help="NAME=FOLDER[@DRIVER] of a firmware to measure, DRIVER a pixel_driver "
                        "for its profile (repeat: before/after in one run; default this "
                        "tree's firmware/ as its profile says)")
    p.add_argument("--json", help="write the results here too")
    p.add_argument("--ponder", action="store_true", help="pondering too (host minutes more)")
    p.add_argument("--settle", type=int, default=PRESS_AT_MS,
                   help="the first press, ms of the chip's time after the think starts")
    p.add_argument("--press", default=PRESS_PIT, choices=PIT_NAMES,
                   help="the pit pressed during the think (default %(default)s)")
    p.add_argument("--phases", type=int, default=1,
                   help="run the pressed think this many times, the presses PHASE_MS later "
                        "each time, and give the mean and range (where in the think's frames "
                        "and slices a press falls moves its cost)")
    p.add_argument("--record", default=RECORD,
                   help="the game the board boots into, North (Master) to move: a record "
                        "or a position, docs/RULES.en.md \"Notation\" (default the kalah "
                        "midgame %(default)r)")
    a = p.parse_args(argv)
    fws = [x.split("=", 1) for x in a.firmware] or [["this tree", os.path.join(ROOT, "firmware")]]
    try:
        work = prepare_model(a.model)
        patch_pio(work)
        patch_tap(work)
        results = {}
        tmp = os.path.join(ROOT, "build", "chip_think")  # (kept: flash images, outputs)
        os.makedirs(tmp, exist_ok=True)
        for name, src in fws:
            src, _, driver = src.partition("@")  # FOLDER@DRIVER: that pixel_driver
            sys.stderr.write("chip think: %s: firmware on the model\n" % name)
            d = "fw-" + re.sub(r"\W", "_", name)
            flash = flash_with(work, tmp, d, src)
            sys.stderr.write("chip think: %s: the think, twice (host minutes)\n" % name)
            # (the presses: counted from the think's start, which the script signals on ARM_PIN)
            quiet, pressed, lat, rel, starts, text = measure_think(work, flash, a.settle, driver, a.press,
                                                                  a.record)
            results[name] = {"quiet": quiet, "pressed": pressed, "lat": lat, "rel": rel,
                             "starts": starts, "phases": [(quiet, pressed)]}
            for k in range(1, a.phases):
                sys.stderr.write("chip think: %s: presses %d ms later\n" % (name, k * PHASE_MS))
                q, pr = measure_think(work, flash, a.settle + k * PHASE_MS, driver, a.press,
                                      a.record)[:2]
                results[name]["phases"].append((q, pr))
            with open(os.path.join(tmp, d, "think.out"), "w") as f:
                f.write(text)
            if a.ponder:
                sys.stderr.write("chip think: %s: pondering\n" % name)
                results[name]["ponder"] = measure_ponder(work, flash, driver, a.record)
        report(results, pit=a.press, record=a.record)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(results, f, indent=1)
    except ChipBenchError as e:
        sys.stderr.write("chip think: %s\n" % e)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
