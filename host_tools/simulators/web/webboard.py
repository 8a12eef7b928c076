"""The board in a browser: the firmware's App on the fake pins, turned by the page.

Runs inside the MicroPython WebAssembly VM in the browser (and in CPython for the
tests).  The page cannot block in `App.run()`, so it calls `step(ms)` with the real
time that passed: the manual clock advances one loop period (App.FRAME_MS) at a time
and `App.tick()` runs once per period, exactly the loop the board runs between its
sleeps.  The page's fingers become sensor levels on the fake `machine` pins:

  down(pit) / up(pit)   a finger on / off a pit (mouse, touch, key)
  gesture(pits, ms)     pits pressed together for ms (take back, hint, menu buttons)
  set_battery(mv)       the simulated cell of a battery build (profile "NAME+battery")
  idle_now()            the quiet time passes at once (the board dims; again: dark)

A click can be shorter than one loop period, and two quick clicks could fall into
one debounce window and read as a chord, so a press lasts at least MIN_PRESS_MS and
a press that starts while nothing is held waits until GAP_MS after the last release.
Pits pressed while another is held go down at once (a chord is meant).

The board's /data lives in a MemFs; `files_json()` hands it to the page after every
change (the page keeps it in localStorage), `WebBoard(..., files)` puts it back, so a
reload boots the saved game as a power-up does on the board.
"""

import json

try:  # CPython (tests): the package paths
    from host_tools.fakes import machine, neopixel
    from host_tools.fakes.board import NAMES, SimBoard
    from host_tools.fakes.memfs import MemFs
except ImportError:  # the MicroPython VM: host_tools/fakes is /lib
    import machine  # type: ignore
    import neopixel  # type: ignore
    from board import NAMES, SimBoard  # type: ignore
    from memfs import MemFs  # type: ignore

from mancala import app as A
from mancala.hw.clock import ManualClock

LEVELS = ("beginner", "amateur", "strong", "master")  # the menu's opponents 1..4
MIN_PRESS_MS = 80  # > 2 loop periods + the 30 ms debounce: a click is always a tap
GAP_MS = 80  # a release settles (debounce) before the next press begins
MAX_STEP_MS = 250  # a page in the background catches up at most this much per call
_HEX = "0123456789abcdef"


class WebFs(MemFs):
    """MemFs that counts its changes, so the page saves only when something was written."""

    def __init__(self):
        MemFs.__init__(self)
        self.version = 0

    def rename(self, a, b):
        MemFs.rename(self, a, b)
        self.version += 1

    def remove(self, path):
        MemFs.remove(self, path)
        self.version += 1


# The opening books the page's bundle carries (web_serve.FLASH_TABLES), or this
# repository's when the glue runs in CPython (the tests).
FLASH_TABLES = ("/lib/tables", __file__.rsplit("/", 4)[0] + "/firmware/tables")


def put_flash_tables(fs):
    """The board's /tables/ as `make deploy` leaves it: the committed opening books
    (so the page's Master plays the board's book)."""
    import os

    for folder in FLASH_TABLES:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for n in names:
            if n.endswith(".book"):
                with open(folder + "/" + n, "rb") as f:
                    fs.files["/tables/" + n] = f.read()
        return


class WebBoard:
    def __init__(self, profile="pico_buttons", files="", seed=1, settings=""):
        self.lines = []
        fs = WebFs()
        self.damaged = None  # why the saved board could not be read back, or None
        for path, data in self._saved_files(files):
            fs.files[path] = data
        if settings:  # first visit with URL options (variant, level...): as set in the menu
            from mancala.hw.storage import OK, Storage

            st = Storage(fs)
            status, s = st.load("settings.json")
            s = s if status == OK else dict(A.DEFAULTS)
            s.update(json.loads(settings))
            st.save("settings.json", s)
        self.fs = fs
        put_flash_tables(fs)
        self.clock = ManualClock(1000)
        battery = profile.endswith("+battery")  # the battery option (hardware/battery.md)
        if battery:
            from mancala import profiles

            profile = dict(profiles.load(profile[:-8]))
            profile["battery"] = {"cell_mah": 3000}
            profile["led_power_pin"] = 16
        # the deployed board's engine: its chip's Master and coach (engine.NATIVE_BUDGETS),
        # their nodes charged at the kernels' rate (the VM runs the bytecode: the same tree)
        self.board = SimBoard(profile, machine, neopixel, fs=fs, clock=self.clock, seed=seed,
                              strict=False, log=self.lines.append, native=True)
        self.app = self.board.app
        # the page's presses are applied between loop turns (step()): a think's long
        # slice (App.LONG_SLICE_MS, which a pin's edge ends on the board) would hold
        # them back, and turn 250 ms of the board's clock in one period
        self.app.LONG_SLICE_MS = A.App.FRAME_MS
        # Master's think ends by its node budget, as the board's does (the budget is 91%
        # of what a Pico searches in its 2 s): not by the page's clock, which moves a
        # whole period and then the turn's charged work besides (each step() below), so
        # it reads about twice the board's time during a think
        self.app.MASTER_MS = None
        if battery:
            self.set_battery(3900)
        self.writes = -1  # the chain's writes when the last frame was handed out
        self.saved = fs.version
        self.held = 0  # pits the page holds down (bit mask)
        self.pressed_at = [0] * 14
        self.last_release = -10000
        self.pending = []  # [time, pit, down] sorted by time
        self.spare = 0  # ms not yet turned into loop periods
        self.last_frame = -1
        self.hexbuf = bytearray(2 * len(self.board.np.buf))

    def _saved_files(self, files):
        """The files of the page's saved blob (localStorage), as (path, bytes).  A blob
        that is truncated, not JSON, nested past the parser, not an object, or holds a
        file that is not text is damaged: the board starts clean, as the firmware does
        with a damaged save, and says so (the page shows the firmware's lines; the clean
        board is saved over the blob at its first frame)."""
        if not files:
            return []
        try:
            saved = json.loads(files)
        except Exception as e:  # ValueError; RecursionError / RuntimeError when too deep
            return self._damaged("not JSON: %s" % type(e).__name__)
        if not isinstance(saved, dict):
            return self._damaged("not an object but %s" % type(saved).__name__)
        out = []
        for path, text in saved.items():
            if not (isinstance(path, str) and path.startswith("/data/") and isinstance(text, str)):
                return self._damaged("%r is not a saved file" % (path,))
            out.append((path, text.encode()))
        return out

    def _damaged(self, why):
        self.damaged = why
        self.lines.append("web: the saved board in this browser was damaged (%s): starting clean" % why)
        return []

    # -- what the page needs once ---------------------------------------------------

    def layout(self):
        p = self.board.profile
        return json.dumps({"name": p.get("name"), "leds": [list(s) for s in p["leds"]],
                           "led_count": p["led_count"], "order": list(self.board.np.ORDER),
                           "levels": list(p["brightness_levels"]), "names": list(NAMES),
                           "sensor": p.get("sensor"), "frame_ms": A.App.FRAME_MS})

    # -- fingers -------------------------------------------------------------------------

    def _schedule(self, t, pit, down):
        q = self.pending
        k = len(q)
        while k > 0 and q[k - 1][0] > t:
            k -= 1
        q.insert(k, [t, pit, down])

    def down(self, pit):
        pit = pit if isinstance(pit, int) else NAMES.index(pit)
        now = self.clock.now()
        t = now
        busy = self.held or any(e[2] for e in self.pending)
        if not busy and now - self.last_release < GAP_MS:
            t = self.last_release + GAP_MS
        self.held |= 1 << pit
        self.pressed_at[pit] = t
        self._schedule(t, pit, True)

    def up(self, pit):
        pit = pit if isinstance(pit, int) else NAMES.index(pit)
        if not self.held >> pit & 1:
            return
        self.held &= ~(1 << pit)
        t = max(self.clock.now(), self.pressed_at[pit] + MIN_PRESS_MS)
        self.last_release = max(self.last_release, t)
        self._schedule(t, pit, False)

    def gesture(self, pits, ms):
        """Press `pits` (a list of indices or names) together for `ms`."""
        if isinstance(pits, str):
            pits = json.loads(pits)
        for p in pits:
            self.down(p)
        t0 = max(self.pressed_at[p if isinstance(p, int) else NAMES.index(p)] for p in pits)
        for p in pits:
            i = p if isinstance(p, int) else NAMES.index(p)
            self.held &= ~(1 << i)
            self.last_release = max(self.last_release, t0 + ms)
            self._schedule(t0 + ms, i, False)

    def quiet(self):
        """True when every press and release has reached the firmware and settled
        (nothing held, nothing waiting, the last release past its debounce)."""
        return not self.pending and not self.held and \
            self.clock.now() >= self.last_release + GAP_MS

    # -- time --------------------------------------------------------------------------

    def step(self, ms):
        """Let `ms` of real time pass; the new frame as text if one was drawn, else ''."""
        self.spare += min(ms, MAX_STEP_MS)
        period = A.App.FRAME_MS
        clock = self.clock
        q = self.pending
        while self.spare >= period:
            self.spare -= period
            clock.advance(period)
            now = clock.now()
            while q and q[0][0] <= now:
                e = q.pop(0)
                self.board.set_pit(e[1], e[2])
            self.app.tick()
        changed = self.app.frame_no != self.last_frame or self.board.np.writes != self.writes
        return self.frame() if changed else ""  # (an idle board's frames: no frame_no)

    def frame(self):
        """'frame|mode|level scale|stable pits|fs version|GRB buffer in hex'."""
        app = self.app
        self.last_frame = app.frame_no
        self.writes = self.board.np.writes
        buf = self.board.np.buf
        h = self.hexbuf
        j = 0
        for v in buf:
            h[j] = ord(_HEX[v >> 4])
            h[j + 1] = ord(_HEX[v & 15])
            j += 2
        px = getattr(app, "px", None)
        scale = px.levels[px.level] if px is not None else 255
        stable = app.pits.stable if hasattr(app, "pits") else 0
        return "%d|%s|%d|%d|%d|%s" % (app.frame_no, A.MODE_NAMES[app.mode], scale, stable,
                                      self.fs.version, h.decode())

    # -- what the page shows beside the LEDs ----------------------------------------------

    def decoded(self):
        """[counts, backgrounds] read back from the pixel buffer (the terminal's labels)."""
        return json.dumps(self.board.decoded())

    def words(self):
        """What the board waits for, in words, and the pits' labels: the terminal's
        lines (mancala/words.py, computed here in the VM) with clicks for keys; the
        stones the firmware counts (not the LEDs read back: in the menu they show
        settings, in a blink nothing); in the menu, each item's and value's name."""
        from mancala import words as W

        app = self.app
        out = {"lines": W.explain(app, W.PAGE), "counts": W.counts(app), "menu": None,
               "event": W.event(app)}
        if getattr(app, "mode", A.ERROR) == A.MENU:
            items, values = W.menu_items(app, W.PAGE)
            out["menu"] = {"items": [list(t) for t in items],
                           "values": [list(t) for t in values]}
        return json.dumps(out)

    def status(self):
        """The game as the firmware holds it, for the page's side panel."""
        app = self.app
        g = getattr(app, "game", None)
        out = {"mode": A.MODE_NAMES[app.mode], "record": None, "side": None,
               "variant": app.settings["variant"] if hasattr(app, "settings") else None}
        if g is not None:
            from mancala.notation import format_record

            out["record"] = format_record(g)
            out["side"] = "SN"[g.side]
            out["over"] = bool(g.over)
            out["ply"] = g.ply
            m = app.meta
            out["players"] = [("person" if m["human"] >> k & 1 else
                               "computer (%s)" % LEVELS[m["level"] - 1]) for k in (0, 1)]
        return json.dumps(out)

    def power(self):
        """The idle state and the simulated battery (mancala/idle.py), for the panel."""
        idle = getattr(self.app, "idle", None)
        if idle is None:
            return "{}"
        out = {"idle": idle.state_name(), "after": self.app.settings.get("idle", 0)}
        if idle.watch is not None:
            from mancala.hw.battery import percent

            out["mv"] = idle.watch.battery.mv
            out["usb"] = idle.watch.battery.on_usb()
            out["percent"] = percent(idle.watch.battery.mv)
            out["low"] = idle.watch.low
        return json.dumps(out)

    def set_battery(self, mv):
        """The simulated cell at `mv` (4700: on USB), read at the next loop turn."""
        self.board.set_battery(int(mv))
        idle = self.app.idle
        idle.watch.t_battery -= idle.watch.BATTERY_MS

    def idle_now(self):
        """The quiet time passes at once: the board dims (called again: dark)."""
        idle = self.app.idle
        minutes = self.app.settings.get("idle", 0) or 10
        idle.t_active -= minutes * 60000 * (1 if idle.state_name() == "awake" else idle.DARK_AFTER)

    def logs(self):
        """Console lines printed by the firmware since the last call."""
        s = "\n".join(self.lines)
        del self.lines[:]
        return s

    def files_json(self):
        self.saved = self.fs.version
        out = {}
        for path, data in self.fs.files.items():
            if not path.endswith(".tmp") and not path.startswith("/tables/"):  # (firmware's)
                out[path] = bytes(data).decode()
        return json.dumps(out)
