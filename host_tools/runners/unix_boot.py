"""The board's start as it really happens, on the MicroPython unix port (issue 42): the
flash `make deploy` lays out (host_tools/link/flash_image.py) mounted at / as a
littlefs block device, then /boot.py and /main.py run the way the ESP32 port runs them
(ports/esp32/main.c: boot.py at every soft reset, main.py on the way to the friendly
REPL), which start the stage, which starts the app from its slot.  Nothing is put
under /lib by hand: what the board imports is what deploy installed.

The ESP32 has no model here (the RP2040 has one: tests/test_chip_boot.py); this is its
stand-in.  The flash is an ESP32 generic 4 MiB board's "vfs" partition
(ports/esp32/partitions-4MiB.csv: `vfs, data, fat, 0x200000, 0x200000`), mounted as
ports/esp32/modules/_boot.py mounts it (`vfs.mount(bdev, "/")`: littlefs v2 with the
defaults of extmod/vfs_lfs.c, readsize = progsize = lookahead = 32, on the
partition's 4096-byte blocks).  The image is a file on the PC, read and written in
place: what the board writes (the slot state, the confirmation, saved games) is
there for the next start, which is how a reset is modelled (`restarts`).

The heap is capped by session.py's formula for the board (cap = base + RATIO_64 x
free_32, host_tools/benches/session.py), with this harness's own base: what it holds
before boot.py runs (the unix port, the fake `machine` and `neopixel`, the launcher,
the mounted filesystem's buffers, which the board's free heap after _boot.py has
already paid), measured by the same launcher (base_bytes); with a person playing,
also the LED decoder the person reads the board with (mancala.hw.pixels_read, which a
board never loads), as session.py counts it.  (session.py's own base also holds the
firmware's engine modules, ~32 KB here: its harness board.py imports mancala.engine;
none of the firmware is in this one.)

The launcher, in the unix port, before anything is mounted:
  - imports the fakes `machine` and `neopixel` (host_tools/fakes): the pins a person
    presses, the LED chain's buffer; `machine.reset()` ends the process with
    RESET_CODE (the host starts it again when asked: a reset is a new start);
  - puts the board's clock in place of `time` (sys.modules["time"]): by default a
    virtual clock that moves by each sleep (at once: a second of the board's idle
    loop turns takes a few ms of the PC's) and by a millisecond at each reading
    (BOARD_TIME), so a start and a game are the same on every run, whatever the PC's
    load: with the heap cut into holes, a run whose moments differ runs into other
    holes.  clock="skip": the PC's ticks with the sleeps skipped; "real": as is.

Then, with a person (play=True), at every sleep of the board's loop (between loop
turns, as a person's hand moves while the board waits) the person acts: waits for
the menu, starts a game with the North store, picks a legal move at random, sows it
pit by pit following the guide lights it reads from the LED chain, sows the
computer's moves the same way, to the end of the game.  The person finds the App
the way a harness must (the App is a local of mancala.app.main()): its first loop
turn is seen once, through App.tick, which is put back at once.

  python -m host_tools.runners.unix_boot [--profile esp32] [--heap N] [--play]
  python -m host_tools.runners.unix_boot --scan 160:200:1 [--play]   what it starts with, by room
"""

import argparse
import os
import re
import selectors
import subprocess
import sys
import tempfile
import time

from host_tools.link import flash_image
from host_tools.runners import mpunix

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKES = os.path.join(ROOT, "host_tools", "fakes")
FIRMWARE = os.path.join(ROOT, "firmware")

# An ESP32 generic board with 4 MiB of flash: the "vfs" partition's size, the flash's
# erase block, littlefs' program size as the esp32 port mounts it (see the docstring)
ESP32_VFS_BYTES = 0x200000
ESP32_BLOCK = 4096
ESP32_PROG = 32

RESET_CODE = 3  # the process's exit status after machine.reset() (or main.py's SystemExit)
UNPLUGGED_CODE = 0  # ... after the person is done (the game is over)
STUCK_CODE = 5  # ... after the person found the board not where it should be

# The board's `time`.  VIRTUAL (the default): a clock of its own, which moves by each
# sleep and by READ_US at each reading of it (the board's work between two readings:
# an engine's slice of SLICE nodes, a loop turn's steps): the same start and the same
# game on every run, whatever the PC's load (with the heap cut into holes, a start or
# a game that ran at other moments ran into other holes).  SKIP: the PC's ticks, each
# sleep skipped (the clock jumps over it).  REAL: the PC's ticks and sleeps.
VIRTUAL, SKIP, REAL = 0, 1, 2
CLOCKS = {"virtual": VIRTUAL, "skip": SKIP, "real": REAL}
READ_US = 1000

BOARD_TIME = r'''
import time as _t

_ticks_ms = _t.ticks_ms
_ticks_us = _t.ticks_us
ticks_add = _t.ticks_add
ticks_diff = _t.ticks_diff
mode = [0]  # VIRTUAL, SKIP, REAL (unix_boot.py)
t_us = [0]  # VIRTUAL: the clock
skipped = [0]  # SKIP: ms the clock jumped over
hook = [None]  # called after every sleep (the person's turn)


def ticks_ms():
    if mode[0] == 0:
        t = t_us[0] + READ_US
        t_us[0] = t
        return t // 1000
    return ticks_add(_ticks_ms(), skipped[0])


def ticks_us():
    if mode[0] == 0:
        t = t_us[0] + 10
        t_us[0] = t
        return t
    return ticks_add(_ticks_us(), skipped[0] * 1000)


def peek_ms():
    """The clock's ms without a reading's cost (the person's look at it)."""
    if mode[0] == 0:
        return t_us[0] // 1000
    return ticks_add(_ticks_ms(), skipped[0])


def sleep_ms(ms):
    if ms > 0:
        m = mode[0]
        if m == 0:
            t_us[0] += ms * 1000
        elif m == 1:
            skipped[0] += ms
        else:
            _t.sleep_ms(ms)
    h = hook[0]
    if h is not None:
        h()


def sleep_us(us):
    if us >= 1000 or mode[0] == 2:
        sleep_ms(us // 1000)


def sleep(s):
    sleep_ms(int(s * 1000))


def time():
    if mode[0] == 0:
        return 1735689600 + t_us[0] // 1000000  # (2025-01-01)
    return _t.time() + skipped[0] // 1000


def __getattr__(name):
    return getattr(_t, name)
'''

LAUNCHER = r'''
import gc
import os
import sys

import machine
import neopixel
import vfs

import board_time

BLOCK = 4096


class FlashBdev:
    """The flash partition: a file on the PC, blocks read and written in place
    (littlefs' extended block interface; an erase is a no-op: littlefs never relies
    on erased bytes)."""

    def __init__(self, f, count):
        self.f = f
        self.count = count

    def readblocks(self, n, buf, off=0):
        f = self.f
        f.seek(n * BLOCK + off)
        f.readinto(buf)

    def writeblocks(self, n, buf, off=0):
        f = self.f
        f.seek(n * BLOCK + (off or 0))
        f.write(buf)

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return self.count
        if op == 5:  # block size
            return BLOCK
        return 0


class Unplugged(BaseException):
    """The person is done with the board (neither the app's nor the stage's handlers
    catch it: it is no error of theirs)."""


class Reset(BaseException):
    """machine.reset(): the process ends; the host starts it again (a new start)."""


def _reset():
    print("launcher: machine.reset()")
    raise Reset()


class Person:
    """Plays one game on the board through its pins and LEDs (unix_boot.py)."""

    def __init__(self, seed):
        self.A = None
        self.app = None
        self.gen = None
        self.wake = 0
        self.seed = seed
        self.decode = None
        self.moves = 0

    def turn(self):
        if self.app is None:
            A = sys.modules.get("mancala.app")
            if A is not None and self.A is None:
                self.A = A
                orig = A.App.tick
                me = self

                def tick(app):
                    me.app = app  # the App, seen once; its tick put back at once
                    A.App.tick = orig
                    orig(app)

                A.App.tick = tick
            return
        now = board_time.peek_ms()
        if self.gen is None:
            self.gen = self.script()
            self.wake = now
        if board_time.ticks_diff(now, self.wake) < 0:
            return
        ms = next(self.gen)
        self.wake = board_time.ticks_add(now, ms)

    # -- the board as the person sees it

    def mode(self):
        return self.A.MODE_NAMES[self.app.mode]

    def leds(self):
        if self.decode is None:
            from mancala.hw.pixels_read import decode

            self.decode = decode
        np = neopixel.last
        return self.decode(np.buf, self.app.profile["leds"], np.ORDER)

    def target(self):
        bgs = self.leds()[1]
        for i in range(14):
            if bgs[i] == "white":
                return i
        return None

    def shown(self):
        counts, bgs = self.leds()
        for i in range(14):
            if counts[i] is None and bgs[i] in ("south", "north"):
                return i
        return None

    def stuck(self, why):
        print("person: stuck: %s (mode %s, moves %d)" % (why, self.mode(), self.moves))
        raise Unplugged(STUCK)

    # -- the person's hands

    def tap(self, pit, hold=100):
        pin = self.app.profile["pit_pins"][pit]
        machine.set_input(pin, 0)
        yield hold
        machine.set_input(pin, 1)
        yield 80

    def until(self, modes, limit):
        t = 0
        while self.mode() not in modes:
            if t >= limit:
                self.stuck("waited %d ms for %s" % (limit, "/".join(modes)))
            yield 20
            t += 20

    def rnd(self, n):
        self.seed = (self.seed * 1103515245 + 12345) & 0x3FFFFFFF
        return (self.seed >> 8) % n

    def sow(self):
        if self.mode() == "show":  # the computer's pit blinks: take its stones
            t = self.shown()
            k = 0
            while t is None and k < 12:
                yield 60
                t = self.shown()
                k += 1
            if t is None:
                self.stuck("no blinking pit")
            yield from self.tap(t)
        while self.mode() == "sow":
            t = self.target()
            k = 0
            while t is None and k < 12:  # a full ring blinks white: its other phase
                yield 60
                t = self.target()
                k += 1
            if t is None:
                self.stuck("no guide light")
            yield from self.tap(t)

    def script(self):
        MASK = sys.modules["mancala.rules"].MASK
        yield from self.until(("menu",), 30000)
        yield from self.tap(13)  # the North store: a new game
        print("person: a new game")
        while self.moves < 300:
            yield from self.until(("select", "show", "over", "blunder"), 600000)
            m = self.mode()
            if m == "over":
                break
            if m == "blunder":
                yield from self.tap(12)  # keep the move
                continue
            if m == "select":
                g = self.app.game
                legal = [p for p in range(6) if g.pos[MASK] >> p & 1]
                yield from self.tap(g.side * 7 + legal[self.rnd(len(legal))])
            yield from self.sow()
            self.moves += 1
        if self.mode() != "over":
            self.stuck("the game did not end")
        g = self.app.game
        print("person: the game is over after %d moves (%s, %d plies): South %d, North %d"
              % (self.moves, g.rules.name, g.ply, g.pos[6], g.pos[13]))
        raise Unplugged(DONE)


def held():
    gc.collect()
    return gc.mem_alloc()


def run(image, count, play=False, clock=0, seed=1, base=False, watch=False):
    # the board's clock and reset, before anything imports `time`
    board_time.mode[0] = clock
    sys.modules["time"] = board_time
    machine.reset = _reset
    # ports/esp32/modules/_boot.py: the "vfs" partition mounted at /
    f = open(image, "r+b")
    bdev = FlashBdev(f, count)
    vfs.umount("/")  # (the unix port's view of the PC's root)
    vfs.mount(bdev, "/")
    os.chdir("/")
    sys.path[:] = ["", ".frozen", "/lib"]  # the esp32 port's
    person = Person(seed) if play else None
    if person is not None:
        board_time.hook[0] = person.turn
    if base:  # what the harness holds, and the person's LED decoder (session.py's base)
        n = held()
        if play:
            sys.path.insert(0, "/slots/a")
            import mancala.app  # noqa: F401

            a = held()
            import micropython
            micropython.qstr_info()  # (base_bytes takes off a pool the decoder happened
            from mancala.hw import pixels_read  # noqa: F401  to open: the board's names
            micropython.qstr_info()  # would have opened it)

            n += held() - a
        print("BASE", n)
        return
    print("launcher: harness holds %d B; the flash mounted; boot.py" % held())
    g = {"__name__": "__main__"}
    for name in ("/boot.py", "/main.py"):
        try:
            execfile(name, g)
        except Unplugged as e:
            print("launcher: the person is done")
            raise SystemExit(e.args[0])
        except Reset:
            raise SystemExit(RESET)
        except SystemExit:  # main.py's SystemExit: the port's soft reset
            print("MPY: soft reboot")
            raise SystemExit(RESET)
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # as pyexec_file: printed, and on to the next
            sys.print_exception(e)
        if watch and name == "/boot.py":  # (a collection the board does not make here)
            print("launcher: after boot.py the heap holds %d B" % held())
    print("launcher: main.py ended: the board is at its REPL")
'''


class Run:
    """One start of the board: its console, its exit status (None: stopped by the
    host), why it ended."""

    def __init__(self, out, rc, ended):
        self.out = out
        self.rc = rc
        self.ended = ended  # "exit", "matched", "timeout"

    @property
    def reset(self):
        return self.rc == RESET_CODE

    def __repr__(self):
        return "Run(rc=%r, ended=%r)\n%s" % (self.rc, self.ended, self.out)


_MPY = []


def unix_mpy():
    """sys.implementation._mpy of the unix port (its .mpy version and native arch)."""
    if not _MPY:
        out = subprocess.run([mpunix.executable(), "-c",
                              "import sys;print(sys.implementation._mpy)"],
                             capture_output=True, text=True, check=True).stdout
        _MPY.append(int(out.split()[-1]))
    return _MPY[0]


def image(profile="esp32", settings=None, tables_for="esp32", tables_dir=None, src=None,
          patch=None, size=ESP32_VFS_BYTES, heap_watch=False):
    """(littlefs image of the flash after `make deploy PROFILE=profile` onto an empty
    ESP32, compiled for the unix port's CPU; settings: /data/settings.json as the
    board writes it; heap_watch: /data/heap_watch, the board says its heap at each
    think and game end), version."""
    files, version = flash_image.board_files(src or FIRMWARE, mpy=unix_mpy(), profile=profile,
                                             tables_dir=tables_dir, tables_for=tables_for,
                                             patch=patch)
    if heap_watch:
        files["/data/heap_watch"] = b""
    if settings is not None:
        if FIRMWARE not in sys.path:
            sys.path.insert(0, FIRMWARE)
        from mancala.hw.storage import encode

        files["/data/settings.json"] = encode(settings).encode()
    return flash_image.littlefs_image(files, size=size, block=ESP32_BLOCK, prog=ESP32_PROG), version


def write_image(path, **kw):
    """image(**kw) written to `path`; returns the version."""
    img, version = image(**kw)
    with open(path, "wb") as f:
        f.write(img)
    return version


def _lay_out(lib):
    """The launcher, the board's clock and the fakes, compiled (nothing parsed on the
    capped heap), in `lib`."""
    from host_tools.runners.mpycompile import mpy_cross_exe

    srcs = {"board_time": BOARD_TIME, "unix_boot_launcher": LAUNCHER}
    for name in ("machine", "neopixel"):
        with open(os.path.join(FAKES, name + ".py")) as f:
            srcs[name] = f.read()
    consts = {"unix_boot_launcher": "RESET = %d\nDONE = %d\nSTUCK = %d\n"
              % (RESET_CODE, UNPLUGGED_CODE, STUCK_CODE), "board_time": "READ_US = %d\n" % READ_US}
    for name, text in srcs.items():
        py = os.path.join(lib, name + ".py")
        with open(py, "w") as f:
            f.write(consts.get(name, "") + text)
        proc = subprocess.run([mpy_cross_exe(), "-o", py[:-3] + ".mpy", "-s", name + ".py", py],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise mpunix.MicroPythonError("mpy-cross failed on %s: %s" % (name, proc.stderr))
        os.remove(py)


GRACE_S = 0.5  # after `until` shows: a little more of the console (the reason after the
GRACE_LINES = 12  # headline: "board profile is not usable:" then why), at most these lines


def _watch(proc, until, timeout):
    """Read the process's console until it exits, `until` (a regex, matched on whole
    lines) shows, or `timeout` s pass; the process is killed in the two last cases."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    out = b""
    deadline = time.monotonic() + timeout
    pattern = re.compile(until) if until else None
    ended = "exit"
    lines_at = None  # the console's lines when `until` showed
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            if lines_at is None:
                ended = "timeout"
            break
        if lines_at is not None and out.count(b"\n") >= lines_at + GRACE_LINES:
            break
        if not sel.select(min(left, 0.5)):
            if proc.poll() is not None:
                break
            continue
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        out += chunk
        if pattern is not None and lines_at is None:
            text = out[:out.rfind(b"\n") + 1].decode(errors="replace")
            if pattern.search(text):
                ended = "matched"
                lines_at = text.count("\n")
                deadline = min(deadline, time.monotonic() + GRACE_S)
    sel.close()
    rc = proc.poll()
    if rc is None and ended == "exit":  # its console closed: it is ending
        try:
            rc = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    if rc is None:
        proc.kill()
        proc.wait()
    elif ended == "exit":
        out += proc.stdout.read()
    proc.stdout.close()
    if lines_at is not None:  # (the board's loop may print on fast: what came after)
        keep = out.split(b"\n")[:lines_at + GRACE_LINES]
        out = b"\n".join(keep) + (b"\n" if len(keep) == lines_at + GRACE_LINES else b"")
    return out.decode(errors="replace"), rc, ended


def start(image_path, heap, play=False, until=None, timeout=60, clock="virtual", seed=1,
          restarts=0, base=False, watch=False):
    """Power the board on with the flash in `image_path` (a littlefs image of
    ESP32_VFS_BYTES, changed in place), its heap capped at `heap` bytes; watch its
    console until `until` (a regex) shows, the process ends, or `timeout` s pass.
    A machine.reset() starts it again, up to `restarts` times (their consoles joined).
    play: a person plays one game (GPIO boards); clock: "virtual", "skip" or "real"
    (BOARD_TIME).  Returns a Run."""
    exe = mpunix.executable()
    if exe is None:
        raise RuntimeError("MicroPython unix port not installed: run `make setup`")
    size = os.path.getsize(image_path)
    if size % ESP32_BLOCK:
        raise ValueError("%s: not a whole number of %d-byte blocks" % (image_path, ESP32_BLOCK))
    outs = []
    t_end = time.monotonic() + timeout
    with tempfile.TemporaryDirectory(prefix="unix-boot-") as tmp:
        lib = os.path.join(tmp, "lib")
        os.makedirs(lib)
        _lay_out(lib)
        env = dict(os.environ, MICROPYPATH=lib)
        code = ("import unix_boot_launcher as L\nL.run(%r, %d, play=%r, clock=%d, seed=%d, base=%r, "
                "watch=%r)\n" % (os.path.abspath(image_path), size // ESP32_BLOCK, play,
                                  CLOCKS[clock], seed, base, watch))
        while True:
            proc = subprocess.Popen([exe, "-X", "heapsize=%d" % heap, "-c", code], cwd=tmp,
                                    env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            out, rc, ended = _watch(proc, until, max(0.1, t_end - time.monotonic()))
            outs.append(out)
            if rc != RESET_CODE or restarts <= 0:
                break
            restarts -= 1
    return Run("".join(outs), rc, ended)


def base_bytes(image_path, play=False):
    """What the harness holds before boot.py runs (with play: and the person's LED
    decoder), in bytes: the `base` of the cap."""
    r = start(image_path, 1024 * 1024, play=play, base=True, timeout=60)
    m = re.search(r"^BASE (\d+)", r.out, re.M)
    if m is None:
        raise mpunix.MicroPythonError(r.out)
    # A pool of interned names opened while the decoder was imported is the board's: its
    # own names would have opened it at their next one (found when issue 42's third round
    # moved the moment: the base grew by the pool's 7.2 KB, and the cap with it).  The
    # decoder's own names stay in the base.
    pools = [(int(a), int(b)) for a, b in re.findall(
        r"n_str_data_bytes=(\d+), n_total_bytes=(\d+)", r.out)]
    opened = 0
    if len(pools) == 2:
        opened = (pools[1][1] - pools[0][1]) - (pools[1][0] - pools[0][0])
    return int(m.group(1)) - opened


def cap_for(image_path, mcu="esp32", play=False):
    """(cap, base, free_32): the heap that stands for the board's (session.py's
    formula, this harness's base)."""
    from host_tools.benches.session import FREE_32, RATIO_64

    base = base_bytes(image_path, play)
    return base + int(RATIO_64 * FREE_32[mcu]), base, FREE_32[mcu]


# The app's start line: the profile, the engine (and why the bytecode), its table, what
# it started without, the heap (mancala.app.say_start)
START_LINE = re.compile(r"start: (\S+); engine (.+?), table 2\*\*(\d+)"
                        r"(?:; started with less memory: (.*?))?"
                        r"; heap (\d+) KB free, largest block (\d+) KB")


STARTED = r"main: confirmed|main: healthy|SAFE STATE|failed to start|not usable|Traceback"


def outcome(run):
    """A start in a few characters: N/B (the native engine or the bytecode), the
    table's bits, -less (started with less memory), free/largest KB; or DOWN (the
    board refused to start: an error board), RESET (the start failed: a restart),
    '?' (anything else)."""
    m = START_LINE.search(run.out)
    if m is None:
        return "DOWN" if "not usable" in run.out else "RESET" if "failed to start" in \
            run.out else "?"
    return "%s%s%s %s/%s" % ("N" if m.group(2).startswith("native") else "B", m.group(3),
                             "-less" if m.group(4) else "", m.group(5), m.group(6))


def scan(image_path, rooms, play=False):
    """[(room, outcome)]: a start of the flash in `image_path` (a fresh copy each
    time) at each room (bytes above the harness's base): where the board starts with
    everything, with less, or not at all (tests/test_unix_boot.py's ROOM_LESS)."""
    import shutil

    base = base_bytes(image_path, play)
    out = []
    with tempfile.TemporaryDirectory(prefix="unix-boot-scan-") as tmp:
        path = os.path.join(tmp, "flash.img")
        for room in rooms:
            shutil.copy(image_path, path)
            r = start(path, base + room, play=play, timeout=60,
                      until=STARTED + "|person: a new game")
            out.append((room, outcome(r)))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="esp32")
    ap.add_argument("--heap", type=int, help="the heap cap in bytes (default: the board's, cap_for)")
    ap.add_argument("--play", action="store_true", help="a person plays one game")
    ap.add_argument("--image", help="an image file to start (default: a fresh deploy's)")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="virtual",
                    help="the board's clock (virtual: the same run every time)")
    ap.add_argument("--scan", metavar="LO:HI:STEP", help="start at every room (KiB above the "
                    "harness's base) from LO to HI: what the board starts with at each")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="unix-boot-img-") as tmp:
        path = a.image
        if path is None:
            path = os.path.join(tmp, "flash.img")
            write_image(path, profile=a.profile, settings={
                "variant": "kalah", "opponent": 4, "starter": 0, "coaching": 0, "hints": 3,
                "brightness": 1, "quick": 0})
        if a.scan:
            lo, hi, step = (int(x) for x in a.scan.split(":"))
            for room, what in scan(path, range(lo * 1024, hi * 1024 + 1, step * 1024), a.play):
                print("%4d KiB  %s" % (room // 1024, what))
            return 0
        heap = a.heap
        if heap is None:
            heap, base, free32 = cap_for(path, play=a.play)
            print("heap cap %d B (base %d B + %.2f x %d KB)" % (heap, base, _ratio(), free32 // 1024))
        until = (r"person: the game is over|person: stuck|failed to start|not usable|SAFE STATE"
                 if a.play else STARTED)
        r = start(path, heap, play=a.play, until=until, timeout=a.timeout, clock=a.clock)
        print(r.out, end="")
        print("(%s%s)" % (r.ended, "" if r.rc is None else ", exit status %d" % r.rc))
    if a.play:
        return 0 if "person: the game is over" in r.out else 1
    return 0 if START_LINE.search(r.out) and re.search(r"main: (confirmed|healthy)", r.out) else 1


def _ratio():
    from host_tools.benches.session import RATIO_64

    return RATIO_64


if __name__ == "__main__":
    sys.exit(main())
