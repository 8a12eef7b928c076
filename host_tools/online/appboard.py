"""A board with Wi-Fi as a person uses it, online, as a process of the MicroPython unix
port (run by host_tools/online/app_boards.py; MicroPython only, like fakes/).

The firmware's whole App (mancala.app.main) on the pico_w profile, on the fakes
(host_tools/fakes: the pins, the LED chain, SimBoard's loop and its Pico cost model on
a manual clock: each loop turn, frame and LED write charged as the RP2040 pays them),
its flash a folder of the PC (`data`: a power cut is the process killed and a new one
started on the same folder), its network the PC's (the online mode's link is
online/link.FakeLink there: `down` / `up` below drop and bring back the "Wi-Fi").  A
flash save (a file renamed over the last) costs `save_ms` of the board's clock, as the
RP2040's flash does (docs/ONLINE.md "Measured": 24-120 ms), so a save made in the turn
of a press would show in its press-to-light.

The board's clock runs by its loop (a turn every FRAME_MS), not by the PC's: while the
person waits on the other board each turn also sleeps a real millisecond, so the two
boards' clocks keep within reach of the broker's.

One argument: a JSON object {"data": folder, "seed": n, "save_ms": ms}.  Commands on
stdin, one a line, each answered by one JSON line:

  leds            {"leds": counts, "bg": backgrounds, "mode": .., "stage": ..}
  tap PIT         PIT (0..13) pressed 100 ms, released, 80 ms more: {"tapped": PIT}
  hold PITS MS    PITS (comma separated) held MS: {"held": PITS}
  run MS          {"ran": MS}
  play            the person plays on through the light (their moves chosen by the
                  seed from what the pits show; the other side's carried out as
                  shown) until the end, then taps it: {"done": record, ...}
  alloc N         {"alloc": bytes}: what N turns' tick and N frames of the online mode
                  allocate (the session and its client polled inside)
  down / up       the Wi-Fi drops / comes back
  quit

Besides the answers: {"log": line} for each console line of the board.
"""

import json
import select
import sys
import time

import machine
import neopixel
from board import SimBoard

from mancala.hw.clock import ManualClock
from mancala.hw.storage import OsFs

CFG = json.loads(sys.argv[1])


def say(**kw):
    sys.stdout.write(json.dumps(kw) + "\n")
    try:
        sys.stdout.flush()
    except AttributeError:
        pass


class SlowFs(OsFs):
    """The PC's folder as the board's flash, a save's rename charged `save_ms`."""

    charge = None

    def rename(self, a, b):
        OsFs.rename(self, a, b)
        if self.charge is not None:
            self.charge(CFG.get("save_ms", 0) * 1000)


fs = SlowFs(CFG["data"])
clock = ManualClock(1000)
board = SimBoard("pico_w", machine, neopixel, fs=fs, clock=clock, seed=CFG.get("seed", 1),
                 strict=True, log=lambda line: say(log=line))
fs.charge = board.spend
app = board.app
A = sys.modules["mancala.app"]

stdin = select.poll()
stdin.register(sys.stdin, select.POLLIN)
press = {"pit": -1, "t": 0, "max": 0, "n": 0, "worst_at": "", "game": 0}
GAME_STAGES = ("select", "wait", "show", "sow", "send", "anim", "over")


def on_frame(app):
    """Press to light: the first frame that lights the pressed pit (its finger's dot)."""
    p = press["pit"]
    if p >= 0 and app.touch_drawn >> p & 1:
        d = clock.diff(clock.now(), press["t"])
        press["n"] += 1
        st = stage()
        if d > press["max"]:
            press["max"] = d
            press["worst_at"] = st
        if st in GAME_STAGES and d > press["game"]:
            press["game"] = d  # (in the game: the network and the session at work)
        press["pit"] = -1


app.on_frame = on_frame
refused = []  # the red flashes: (stage, mask), a press the board said "no" to
_no = app.no


def no(mask):
    refused.append((stage(), mask))
    _no(mask)


app.no = no
_oe = app.on_event


def on_event(ev):
    if CFG.get("debug"):
        say(ev=ev >> 16, arg=ev & 0xFFFF, st=stage(), t=clock.now())
    _oe(ev)


app.on_event = on_event
_tick = app.tick


def tick():
    t = clock.now()
    _tick()
    if CFG.get("debug") and clock.diff(clock.now(), t) > 25:
        say(long_turn=clock.diff(clock.now(), t), at=t, st=stage(), touched=app.pits.touched())


app.tick = tick


def online():
    return sys.modules.get("mancala.modes.online")


def stage():
    m = A.MODE_NAMES[app.mode]
    o = online()
    if m == "online" and o is not None:
        return o.STAGE_NAMES[o.MODE.stage]
    return m


def leds():
    return board.decoded()


def command(line):
    """A command from stdin; True: quit."""
    w = line.split()
    if not w:
        return True
    c = w[0]
    if c == "leds":
        counts, bgs = leds()
        say(leds=counts, bg=bgs, mode=A.MODE_NAMES[app.mode], stage=stage())
    elif c == "tap":
        tap(int(w[1]))
        say(tapped=int(w[1]), stage=stage())
    elif c == "hold":
        board.hold([int(x) for x in w[1].split(",")], int(w[2]))
        say(held=w[1], stage=stage())
    elif c == "run":
        board.run(int(w[1]))
        say(ran=int(w[1]), stage=stage())
    elif c == "play":
        play()
    elif c == "alloc":  # what the online mode's turns and frames allocate (N of each)
        say(alloc=alloc(int(w[1])), stage=stage())
    elif c in ("down", "up"):
        link = online().MODE.link
        link.down() if c == "down" else link.up()
        say(link=c)
    elif c == "quit":
        return True
    return False


def alloc(n):
    """Bytes the online mode allocates over n loop turns' tick (the session's and the
    client's polls inside) and n frames' draw, the GC held off meanwhile."""
    import gc

    mode = online().MODE
    px = app.px
    gc.collect()
    gc.disable()
    try:
        a0 = gc.mem_alloc()
        for i in range(n):
            clock.advance(A.App.FRAME_MS)
            mode.tick(app, clock.now(), 0)
            px.begin(False)
            mode.draw(app, px, 0, i & 1)
        return gc.mem_alloc() - a0
    finally:
        gc.enable()


def commands():
    for _, ev in stdin.poll(0):
        if ev & select.POLLIN:
            if command(sys.stdin.readline().strip()):
                say(quit=stage())
                sys.exit(0)


def tap(pit, react=0):
    press["pit"] = pit
    press["t"] = clock.now()
    board.tap(pit)
    if react:
        wait(react)  # (the person reads the board before the next press)


REACT_MS = 150  # the person's next press comes this long after the last one's end


def wait(ms=A.App.FRAME_MS):
    """The person waits on the board (the other side): a real ms a turn besides."""
    end = clock.now() + ms
    while clock.diff(end, clock.now()) > 0:
        board.run(A.App.FRAME_MS)
        time.sleep_ms(1)
        commands()


def mine_lit(counts, bgs):
    """The pits the light offers to play: lit in a side's colour, with their count."""
    return [i for i in range(14) if i not in (6, 13) and counts[i] is not None and
            bgs[i] in ("south", "north")]


def blinking(counts, bgs):
    for i in range(14):
        if i not in (6, 13) and counts[i] is None and bgs[i] in ("south", "north"):
            return i
    return -1


def choose(pits, counts, seed):
    """The person's choice: a function of what the pits show and the seed alone (after
    a power cut the same position brings the same choice)."""
    return pits[(seed * 7 + sum(counts[i] or 0 for i in range(14)) * 13 + (counts[0] or 0) * 3)
                % len(pits)]


def play():
    seed = CFG.get("seed", 1)
    moves = 0
    while True:
        commands()
        st = stage()
        if st == "select":
            counts, bgs = leds()
            pits = mine_lit(counts, bgs)
            if not pits:
                wait(60)  # (the other phase of a blink)
                continue
            t0 = clock.now()
            tap(choose(pits, counts, seed), REACT_MS)
            moves += 1
            if CFG.get("debug"):
                say(dbg=stage(), pits=pits, t=clock.now(), t0=t0, pit=choose(pits, counts, seed))
        elif st == "show":
            counts, bgs = leds()
            p = blinking(counts, bgs)
            if p < 0:
                wait(60)
                continue
            tap(p, REACT_MS)
        elif st == "sow":
            t = board.target()
            if t is None:
                wait(60)
                continue
            tap(t, REACT_MS)
        elif st == "over":
            s = online().MODE.session
            from mancala.online.protocol import record_of

            rec = record_of(s.game.rules.id, s.game.moves())
            done = {"done": rec, "archived": s.archived, "seat": s.seat, "moves": moves,
                    "ignored": s.ignored, "refused": s.refused, "press_max_ms": press["max"],
                    "press_game_ms": press["game"],
                    "presses": press["n"], "worst_at": press["worst_at"],
                    "peer_ply": s.peer_ply, "ply": s.game.ply, "no": refused[-10:],
                    "nos": len(refused)}
            wait(300)  # (the other side's state read back: it holds the same record)
            tap(0)  # the end: to the menu
            board.run(200)
            done["after"] = stage()
            say(**done)
            return
        else:
            wait()


say(started=stage(), resumed=A.MODE_NAMES[app.next_mode] if app.mode == 0 else "")
while True:
    commands()
    board.run(A.App.FRAME_MS)
    time.sleep_ms(1)
