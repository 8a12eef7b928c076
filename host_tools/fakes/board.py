"""A simulated board: the firmware's App on fake pins, a manual clock, an
in-memory (or real) filesystem.  Used by the simulator, the tests and the
MicroPython VM test (MicroPython-compatible: no CPython-only modules).

Pits are named S1..S6, SS (South store), N1..N6, NS (North store), or given as
board indices 0..13.
"""

from mancala import app as A
from mancala.hw.clock import ManualClock
from mancala.hw.pixels import decode

NAMES = ("S1", "S2", "S3", "S4", "S5", "S6", "SS", "N1", "N2", "N3", "N4", "N5", "N6", "NS")
HALL_REST = 32000  # ADC reading with no magnet
HALL_MAGNET = 30000  # a sowing stone on the pit floor: near the rail (hardware/sensors.md)


def index(name):
    if isinstance(name, int):
        return name
    n = name.upper()
    if n in ("SSTORE", "S STORE", "S7"):
        n = "SS"
    if n in ("NSTORE", "N STORE", "N7"):
        n = "NS"
    return NAMES.index(n)


class SimBoard:
    def __init__(self, profile, machine, neopixel, fs=None, clock=None, engine_cls=None,
                 seed=1, strict=True, log=None, held=(), noise=0):
        self.machine = machine
        self.neopixel = neopixel
        machine.reset()
        if isinstance(profile, str):
            from mancala import profiles

            profile = profiles.load(profile)
        self.profile = profile
        self.clock = clock or ManualClock(1000)
        self.magnets = [0] * 14
        self.noise = noise
        self._n = 0
        self.lines = []
        self.log = log if log is not None else self.lines.append
        if isinstance(profile, dict) and profile.get("sensor") == "mux":
            machine.set_adc_source(profile["mux_adc"], self._adc)
        for h in held:
            self.press(h)
        if fs is None:
            try:
                from host_tools.fakes.memfs import MemFs
            except ImportError:  # the MicroPython VM: host_tools/fakes is /lib
                from memfs import MemFs  # type: ignore

            fs = MemFs()
        self.fs = fs
        # the firmware's own entry point, on the fakes (run=False: we turn its loop)
        self.app = A.main(profile, machine, neopixel, self.clock, fs, engine_cls, self.log,
                          seed, run=False, strict=strict)
        self.np = neopixel.last

    # -- the physical side ---------------------------------------------------------

    def _adc(self):
        p = self.profile
        ch = 0
        for k in range(4):
            ch |= self.machine.level(p["mux_select"][k]) << k
        v = HALL_REST
        if ch in p["mux_channels"]:
            i = p["mux_channels"].index(ch)
            v += self.magnets[i] * HALL_MAGNET
        if self.noise:
            self._n = (self._n * 1103515245 + 12345) & 0x3FFFFFFF
            v += (self._n >> 8) % (2 * self.noise + 1) - self.noise
        return v

    def set_pit(self, name, active):
        i = index(name)
        p = self.profile
        if p.get("sensor") == "mux":
            self.magnets[i] = 1 if active else 0
        else:
            self.machine.set_input(p["pit_pins"][i], 0 if active else 1)

    def press(self, name):
        self.set_pit(name, True)

    def release(self, name):
        self.set_pit(name, False)

    # -- time ------------------------------------------------------------------------

    def run(self, ms):
        """Let `ms` pass, one loop turn every FRAME_MS."""
        step = A.App.FRAME_MS
        t = 0
        while t < ms:
            self.clock.advance(step)
            self.app.tick()
            t += step

    def tap(self, name, hold=100):
        self.press(name)
        self.run(hold)
        self.release(name)
        self.run(80)

    def chord(self, names, hold=200):
        for n in names:
            self.press(n)
        self.run(hold)
        for n in names:
            self.release(n)
        self.run(80)

    def hold(self, names, ms=3000):
        if isinstance(names, (str, int)):
            names = (names,)
        self.chord(names, ms)

    def until(self, modes, limit=120000):
        """Run until the app is in one of `modes` (names); False if it never got there."""
        t = 0
        while A.MODE_NAMES[self.app.mode] not in modes:
            if t >= limit:
                return False
            self.run(A.App.FRAME_MS)
            t += A.App.FRAME_MS
        return True

    # -- what the board shows ----------------------------------------------------------

    def decoded(self):
        """(counts, backgrounds) read from the pixel buffer through the profile's layout."""
        return decode(self.np.buf, self.profile["leds"], self.np.ORDER)

    def counts(self):
        return self.decoded()[0]

    def mode(self):
        return A.MODE_NAMES[self.app.mode]

    def frame(self):
        counts, bgs = self.decoded()
        return {"frame": self.app.frame_no, "t": self.clock.now(), "mode": self.mode(),
                "counts": counts, "bg": bgs}

    def target(self):
        """The pit the guide lights for the next stone (white background), or None."""
        bgs = self.decoded()[1]
        for i in range(14):
            if bgs[i] == "white":
                return i
        return None

    # -- playing a move as a person would --------------------------------------------

    def play_move(self, pit):
        """Choose board index `pit` (a person's move) and sow it as guided, reading
        each next target from the LEDs.  Returns the number of stones dropped."""
        self.tap(pit)
        return self.sow()

    def shown_pit(self):
        """The computer's chosen pit, blinking in its colour (None in the dark phase)."""
        counts, bgs = self.decoded()
        for i in range(14):
            if counts[i] is None and bgs[i] in ("south", "north"):
                return i
        return None

    def sow(self):
        """Carry out the guided sowing: the computer's blinking pit first, if any."""
        n = 0
        if self.mode() == "show":
            t = self.shown_pit()
            k = 0
            while t is None and k < 12:
                self.run(A.App.ANIM_FRAME_MS)
                t = self.shown_pit()
                k += 1
            if t is None:
                raise AssertionError("no blinking pit in show mode: %r" % (self.frame(),))
            self.tap(t)
        if self.app.settings["quick"]:  # the board sows by itself
            while self.mode() == "sow":
                self.run(A.App.FRAME_MS)
            return 0
        while self.mode() == "sow":
            t = self.target()
            k = 0
            while t is None and k < 12:  # a full ring blinks white: wait for the other phase
                self.run(A.App.ANIM_FRAME_MS)
                t = self.target()
                k += 1
            if t is None:
                    raise AssertionError("no guide light in sow mode: %r" % (self.frame(),))
            self.tap(t)
            n += 1
        return n
