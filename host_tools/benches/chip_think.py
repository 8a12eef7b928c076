"""A Master think and pondering on the RP2040 model (`make chip-think MODEL=DIR`).

The model (`../shared/picobox/`, its README.md; host_tools/benches/chip_bench.py prepares it)
runs the firmware's real `App` (the rp2 port's `machine` and `neopixel`, the pixel
driver its profile picks, the pico_buttons profile's GPIO buttons) on the chip's own
clock, through the board's boot path: per firmware folder given (e.g. main's
`firmware/` as "before" and this tree's as "after"), all in one invocation, a flash
image laid out as `make deploy` lays it (host_tools/link/flash_image.py: the loaders and
the stage at the root, the slot's .mpy for armv6m with its data and manifest, /tables)
is powered on (boot.py, main.py, the stage, the app, until "main: confirmed"); then
chip_think.mjs soft-resets it in the raw REPL (boot.py's stage puts the slot on
sys.path again; the heap is a start's) and runs each script there with the slot's
firmware.  Each run is a power-on of its own, so the runs are the same up to the
first press.  Measured:

* think: the board boots into a saved kalah midgame (North = Master to move; or the
  game `--record` gives: a variant's budgets are measured so, engine.NATIVE_BUDGETS), the
  script turns `App.tick()` as `App.run()` does and times the engine's slices in
  microseconds from the think's start (`App.start_thinking`) to the move; once without a
  press and once with presses of S1 (GP2) while the computer thinks (each a red "no"
  flash; counted from the think's start, which the script signals on ARM_PIN, so every
  run presses at the same moments of the chip's time); chip_think.mjs decodes the
  WS2812 frames on GP22: think share, Master's nodes, frames, press -> first changed
  frame;
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

from host_tools.benches.chip_bench import ROOT, ChipBenchError, prepare_model

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "chip_think.mjs")  # one power-on and one script (its header)
PROFILE = "pico_buttons"  # the board measured (GPIO buttons on GP2..GP15, the chain on GP22)

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
# chip_think.mjs counts the presses from that edge, in the chip's own
# time: the script reaches the chip over USB at the host's pace, so a press timed
# from the upload fell 1,258-1,295 ms into the run, a different moment of the think
# from run to run (session 34's figures moved by 1-2 points with it)
ARM_PIN = 16
PHASE_MS = 37  # --phases: each run's presses this much later (not a multiple of the
# light's 250 ms steps nor the flash's 125 ms blinks)
STONE_MS = 700  # the person drops a stone this often (the simulator's pace)
PONDER_S = 3

# The saved game the App starts with, written on the flash before the script's soft
# reset (chip_think.mjs --prep: nothing of it on the heap the App starts on).
SAVE = r"""
from mancala.hw.storage import Storage, OsFs
Storage(OsFs()).save("game.json", {"record": %(record)r, "number": 1, "human": 1,
                                   "level": 4, "hints": 0})
"""

# Runs on the model under chip_think.mjs (which presses the pins from outside).  Prints
# "T {json}" once the think has ended; keeps ticking (chip_think.mjs ends the run).
THINK = r"""
import time, gc, machine
ARM = machine.Pin(%(arm)d, machine.Pin.OUT, value=0)  # (high: the think starts, the presses count from it)
from mancala import profiles as PR
if %(driver)r:  # the chain's driver measured (the profile's own when empty)
    PR.load(PR.DEFAULT)["pixel_driver"] = %(driver)r
gc.collect()  # (as the stage collects before it imports the app)
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

# A script's start on the model: the App built as main() builds it, its loop turned as
# App.run() turns it, a pit's stone given as its DOWN and TAP events (the App's own path
# after the sensors' debounce, which the scripts stand in for).
PERSON = r"""
import time, gc
from mancala import profiles as PR
if %(driver)r:  # the chain's driver measured (the profile's own when empty)
    PR.load(PR.DEFAULT)["pixel_driver"] = %(driver)r
gc.collect()  # (as the stage collects before it imports the app)
from mancala import app as A
from mancala.hw import pits as P
b = A.main(run=False)
e = b.engine
clock = b.clock
b.MASTER_MS = 300  # the computer's think: short (not measured here)
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
"""

# The person's time against Master, with the native kernels the deploy sends: the
# computer's move shown (SHOW), its pit tapped, its stones sown one every STONE_MS
# (each a DOWN and a TAP event on the pit the board guides to: the App's own path
# after the sensors' debounce, which this script stands in for), then the person to
# move, thinking PONDER_S s without a press.  Nodes from the engine's counter.
PONDER = PERSON + r"""
out = {}
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


# The coach's wait, with the native kernels the deploy sends: as PONDER up to the person's
# turn, then the coach on (its grading budget: the engine's, or --grade's), the person
# plays a move with nothing to show (no capture, no extra turn: the wait has no frames of
# its own) and the fewest stones, one every STONE_MS; measured from the last stone until
# the grade is shown: the person's wait, and the grade's nodes.
GRADE = PERSON + r"""
from mancala.rules import MASK
run_for(20000, lambda: b.mode == A.SHOW)
tap(b.sow_side * 7 + b.sow_pit)
while b.mode == A.SOW:
    tap(b.sow_path[b.sow_i])
    run_for(200, lambda: b.mode != A.SOW)
run_for(4000, lambda: b.mode == A.SELECT)
b.settings["coaching"] = 1
if %(nodes)d:
    b.COACH_NODES = %(nodes)d
g = b.game
side = g.side
quiet = -1
flags = -1
for pit in range(6):
    if g.pos[MASK] >> pit & 1:
        after = bytearray(g.pos)
        f = g.rules.move(after, pit)  # (its flags: a capture, an extra turn, the end)
        better = (f != 0, g.pos[side * 7 + pit]) < (flags != 0, g.pos[side * 7 + quiet]) \
            if quiet >= 0 else True  # (nothing to show first, then the fewest stones)
        if better:
            quiet, flags = pit, f
if quiet < 0:
    print("G", {"error": "no quiet move here"})
else:
    t0 = time.ticks_ms()
    tap(side * 7 + quiet)
    stones = 0
    run_for(%(stone_ms)d)
    while b.mode == A.SOW and stones < 40:
        tap(b.sow_path[b.sow_i])
        stones += 1
        if b.mode == A.SOW:
            run_for(%(stone_ms)d, lambda: b.mode != A.SOW)
    t_last = time.ticks_ms()
    mode_after = A.MODE_NAMES[b.mode]
    run_for(120000, lambda: b.mode != A.ANIM)
    t_end = time.ticks_ms()
    print("G", {"pit": quiet, "flags": flags, "stones": stones, "sown_ms": time.ticks_diff(t_last, t0),
                "wait_ms": time.ticks_diff(t_end, t_last), "nodes": e.nodes,
                "budget": b.COACH_NODES or e.grade_nodes, "after": mode_after,
                "mode": A.MODE_NAMES[b.mode], "grade": b.grade})
"""


def measure_grade(work, flash, nodes=0, driver="", record=RECORD):
    """The coach's wait after the last stone of a quiet move, and its nodes (`nodes`:
    the grading budget, 0 the engine's)."""
    code = GRADE % {"stone_ms": STONE_MS, "nodes": nodes, "driver": driver}
    res, _text = _run(work, flash, code, ["--max-ms", "200000"], record)
    rows = _dicts(res["console"], "G")
    if not rows or "error" in rows[0]:
        raise ChipBenchError("the grade script gave no result: %s" % res["console"][-800:])
    return rows[0]

def measure_ponder(work, flash, driver="", record=RECORD):
    """Pondering's nodes (the pins held high as the pull-ups hold them, no press from
    outside; the script ends the run)."""
    code = PONDER % {"stone_ms": STONE_MS, "think_ms": PONDER_S * 1000,
                     "driver": driver}
    res, _text = _run(work, flash, code, ["--max-ms", "60000"], record)
    rows = _dicts(res["console"], "P")
    if not rows:
        raise ChipBenchError("the ponder script printed no result: %s" % res["console"][-800:])
    return rows[0]


def board_image(tmp, name, src):
    """The flash of firmware folder `src` as `make deploy` lays it for a pico_buttons
    board (host_tools/link/flash_image.py: the loaders and the stage at the root,
    slot a's .mpy and data with their manifest, on trial; /tables), written as the
    littlefs image the model's board.mjs loads; (its path, the version)."""
    from host_tools.link import flash_image
    from host_tools.link.board_transport import DeployError

    try:
        files, version = flash_image.board_files(src=src, profile=PROFILE)
        image = flash_image.littlefs_image(files)
    except (DeployError, OSError) as e:
        raise ChipBenchError("no flash image of %s: %s" % (src, e)) from None
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    flash = os.path.join(d, "flash.img")
    with open(flash, "wb") as f:
        f.write(image)
    return flash, version


def _run(work, flash, code, args, record=RECORD, timeout=3600):
    """One power-on of `flash` on the model, `record` saved as the game, and `code` run
    after the boot (chip_think.mjs); (its RESULT, its text)."""
    from mancala.profiles import load

    prof = load(PROFILE)
    script = os.path.join(os.path.dirname(flash), "code.py")
    with open(script, "w") as f:
        f.write(code)
    prep = os.path.join(os.path.dirname(flash), "save.py")
    with open(prep, "w") as f:
        f.write(SAVE % {"record": record})
    cmd = ["node", RUNNER, "--model", work, "--flash", flash, "--code", script, "--prep", prep,
           "--pull-ups", ",".join(str(p) for p in prof["pit_pins"]),
           "--led", str(prof["led_pin"])] + args
    try:
        p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ChipBenchError("the RP2040 model did not finish in %d s" % timeout) from None
    res = None
    for line in p.stdout.splitlines():
        if line.startswith("RESULT {"):
            res = json.loads(line[len("RESULT "):])
    if res is None:
        text = (p.stdout + p.stderr).strip().splitlines()
        raise ChipBenchError("the RP2040 model failed: %s" % "\n".join(text[-12:]))
    if "error" in res:
        raise ChipBenchError(res["error"])
    ran = res["reset"] + res["console"]
    if "Traceback" in ran:
        raise ChipBenchError("the script failed on the chip: %s"
                             % "\n".join(ran.replace("\x04", "\n").strip().splitlines()[-8:]))
    return res, p.stdout


def _dicts(text, tag):
    import ast

    return [ast.literal_eval(line[len(tag) + 1:]) for line in text.splitlines()
            if line.startswith(tag + " {")]


def _start_line(text):
    """The App's "start: ..." line (its engine's table, the heap after its start)."""
    lines = [line.strip() for line in text.splitlines() if line.startswith("start: ")]
    return lines[-1] if lines else ""


def press_pin(pit):
    """The GPIO of a pit's button on the model's board (profiles/pico_buttons.py)."""
    from mancala.profiles import load

    return load(PROFILE)["pit_pins"][PIT_NAMES.index(pit)]


def measure_think(work, flash, settle_ms, driver="", pit=PRESS_PIT, record=RECORD, presses=True):
    """The think of the firmware on `flash`, after a power-on: with the presses of
    `pit` (counted from the think's start, the script's ARM_PIN edge) or without;
    (its "T" row, press -> first changed frame ms, release -> ..., the think's starts
    (ms of the chip's clock), the App's start lines (the power-on's, the measured
    one's), the run's text)."""
    args = ["--arm-pin", str(ARM_PIN), "--taps", str(PRESSES), "--settle-ms", str(settle_ms),
            "--gap-ms", str(PRESS_GAP_MS), "--hold-ms", str(PRESS_HOLD_MS), "--after-ms", "2500"]
    if presses:
        args += ["--seq", ",".join([str(press_pin(pit))] * PRESSES)]
    res, text = _run(work, flash, THINK % {"driver": driver, "arm": ARM_PIN}, args, record)
    rows = _dicts(res["console"], "T")
    if len(rows) != 1 or not res["armed"]:
        raise ChipBenchError("the think did not %s: %s" % ("start" if not res["armed"] else "end",
                                                            res["console"][-600:]))
    lat = [t["press_us"] / 1000.0 for t in res["taps"] if "press_us" in t]
    rel = [t["release_us"] / 1000.0 for t in res["taps"] if "release_us" in t]
    starts = [int(m) for m in re.findall(r"THINK at (\d+)", res["console"])]
    return rows[0], lat, rel, starts, (_start_line(res["boot"]), _start_line(res["console"])), text


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
    for n in names:
        if "version" in results[n]:
            boot, measured = results[n]["start"]
            out.write("%s: %s powered on from a flash laid out as deploy lays it, its App's %s; "
                      "the measured App's (after a soft reset) %s\n"
                      % (n, results[n]["version"], boot or "start: (no line)",
                         measured or "start: (no line)"))
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
    p.add_argument("--grade", default=None, metavar="N[,N...]",
                   help="only the coach's wait after a move's last stone, grading with N nodes "
                        "each (0: the engine's budget)")
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
        results = {}
        tmp = os.path.join(ROOT, "build", "chip_think")  # (kept: flash images, outputs)
        os.makedirs(tmp, exist_ok=True)
        for name, src in fws:
            src, _, driver = src.partition("@")  # FOLDER@DRIVER: that pixel_driver
            d = "fw-" + re.sub(r"\W", "_", name)
            flash, version = board_image(tmp, d, src)
            if a.grade is not None:
                for n in a.grade.split(","):
                    sys.stderr.write("chip think: %s: the coach's wait, %s nodes\n" % (name, n))
                    r = measure_grade(work, flash, int(n), driver, a.record)
                    print("%-12s grade budget %7d: waited %6d ms after the last stone (%d stones "
                          "in %d ms before; flags %d), %d nodes searched, grade %r"
                          % (name, r["budget"], r["wait_ms"], r["stones"], r["sown_ms"],
                             r["flags"], r["nodes"], r["grade"]), flush=True)
                continue
            sys.stderr.write("chip think: %s: %s, its flash as deploy lays it; the think, "
                             "powered on twice (host minutes)\n" % (name, version))
            # (the presses: counted from the think's start, which the script signals on ARM_PIN)
            quiet, _l, _r, starts, start, _t = measure_think(work, flash, a.settle, driver, a.press,
                                                             a.record, presses=False)
            pressed, lat, rel, starts2, _s, text = measure_think(work, flash, a.settle, driver,
                                                                 a.press, a.record)
            results[name] = {"quiet": quiet, "pressed": pressed, "lat": lat, "rel": rel,
                             "starts": starts + starts2, "phases": [(quiet, pressed)],
                             "version": version, "start": start}
            for k in range(1, a.phases):
                # (the run without presses is the same power-on, the same think: not repeated)
                sys.stderr.write("chip think: %s: presses %d ms later\n" % (name, k * PHASE_MS))
                pr = measure_think(work, flash, a.settle + k * PHASE_MS, driver, a.press,
                                   a.record)[0]
                results[name]["phases"].append((quiet, pr))
            with open(os.path.join(tmp, d, "think.out"), "w") as f:
                f.write(text)
            if a.ponder:
                sys.stderr.write("chip think: %s: pondering\n" % name)
                results[name]["ponder"] = measure_ponder(work, flash, driver, a.record)
        if a.grade is None:
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
