"""A simulated board: the firmware's App on fake pins, a manual clock, an
in-memory (or real) filesystem.  Used by the simulator, the tests and the
MicroPython VM test (MicroPython-compatible: no CPython-only modules).

Pits are named S1..S6, SS (South store), N1..N6, NS (North store), or given as
board indices 0..13.

On the manual clock the board's work takes a Pico's time (the cost model): each
LED frame its chain's wire time (the fake neopixel's, ~30 us a LED) plus
DRAW_US of Python drawing, each loop turn TURN_US of its own, and each engine
node 1/PICO_NODES_PER_S of a second (the engine given to the App is a
PicoTimedEngine).  Turns run as App.run() runs
them: a turn every FRAME_MS, sleeping what is left after its work.
"""

from mancala import app as A
from mancala.engine import KERNEL_CHUNK, PICO_NODES_PER_S, Engine

try:
    from mancala.engine import PICO_QUIESCE_NODES_PER_S
except ImportError:  # an older firmware (session.py --compare): no quiescence there
    PICO_QUIESCE_NODES_PER_S = {}
from mancala.hw.clock import ManualClock

# The Python side of drawing one frame on the RP2040 model (0.41 s for 35 frames of
# the 180-LED chain, less their 5.4 ms of wire time each; issue 13's measurement).
DRAW_US = 6300
# A loop turn's own Python besides the engine and the frames (the poll, the timers,
# the mode's tick, the frame check): ~2.4 ms of a 20 ms think turn on the RP2040
# model (issue 22's measurement, docs/ENGINE.md), charged at each poll.
TURN_US = 2400


# A board whose machine-code kernels run (a deployed one, SimBoard(..., native=True):
# the terminal simulator and the page): the CPU they are built for, by the profile's
# "mcu" (engine.NATIVE_BUDGETS' keys: its Master's and its coach's budgets) ...
CPU_OF_MCU = {"rp2040": "armv6m", "rp2350": "armv7emsp", "esp32": "xtensawin"}
# ... and the kernels' nodes a second on a Pico, charged on the manual clock (RP2040
# model, docs/ENGINE.md "Spending it": a 2 s Master think through the board's loop,
# 95.5% of it searching, the lower of two positions without taps; kalah's static
# search from a coach's grade of 2 s, 56,511 nodes, "Native kernels"), so a 2 s think
# ends by its budget as the board's does
NATIVE_NODES_PER_S = {"kalah": 28000, "mangala": 21300, "oware": 25500, "ranok": 14600}
NATIVE_QUIESCE_NODES_PER_S = {"kalah": 23100}


class PicoTimedEngine(Engine):
    """The firmware's engine, each node charged to `charge` (us) at a Pico's rate."""

    charge = None

    us_per_qnode = 0  # a node of a search with quiescence (0: as any node)

    def step(self, max_nodes=256):
        n = self.nodes
        over = Engine.step(self, max_nodes)
        if self.charge is not None:
            us = self.us_per_qnode if self.us_per_qnode and self._qplies else self.us_per_node
            self.charge((self.nodes - n) * us)
        return over

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
                 seed=1, strict=True, log=None, held=(), noise=0, native=False):
        self.machine = machine
        self.neopixel = neopixel
        machine.reset()
        if isinstance(profile, str):
            from mancala import profiles

            profile = profiles.load(profile)
        self.profile = profile
        # native: the deployed board's engine (its chip's budgets, the kernels' rates);
        # else the bytecode Pico's (the tests' boards)
        self.cpu = CPU_OF_MCU.get(profile.get("mcu")) if native and isinstance(profile, dict) \
            else None
        self.clock = clock or ManualClock(1000)
        self.magnets = [0] * 14
        self.noise = noise
        self._n = 0
        self.lines = []
        self.log = log if log is not None else self.lines.append
        self.timed = hasattr(self.clock, "advance")  # a real clock pays its own time
        self._us = 0  # charged time not yet a whole ms on the clock
        self.busy = 0  # ms the last loop turn worked (the rest of FRAME_MS it slept)
        self.t_after = None  # the clock after the last turn (None: no turn yet)
        self.t_person = 0  # the person's time (run() advances it by exactly its ms)
        self.t_next = 0  # when the next loop turn starts
        self.t_turn = 0  # when the last (or the current) loop turn started
        self.wire_us = 0  # time charged: LED wire, Python drawing, engine nodes
        self.draw_us = 0
        self.engine_us = 0
        self.due = []  # [(clock ms, pit, active)]: pins changed while the board works
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
        if engine_cls is None and self.timed:
            engine_cls = self.timed_engine
        elif engine_cls is None and self.cpu:
            engine_cls = self.board_engine
        # the firmware's own entry point, on the fakes (run=False: we turn its loop)
        neopixel.wire = self._wire if self.timed else None
        try:
            self.app = A.main(profile, machine, neopixel, self.clock, fs, engine_cls,
                              self.log, seed, run=False, strict=strict)
        finally:
            neopixel.wire = None
        self.np = neopixel.last
        self.horizon = None  # run()'s end: the person's next action may come then
        self.turn_us = 0
        pits = getattr(self.app, "pits", None)
        if pits is not None and self.timed:
            poll = pits.poll

            def timed_poll():
                self.turn_us += TURN_US
                self.spend(TURN_US)
                return poll()

            pits.poll = timed_poll
        if pits is not None and pits.woken is not None:
            woken = pits.woken

            def woken_or_person():
                # A think's long slice (App.LONG_SLICE_MS) ends at a pin's edge; the
                # edges at() schedules fire in spend(), but the script's next press
                # comes after run() returns: its slice must end at run()'s end, as
                # the board's would at that press
                return woken() or (self.horizon is not None and
                                   self.clock.diff(self.clock.now(), self.horizon) >= 0)

            pits.woken = woken_or_person

    # -- the cost model ------------------------------------------------------------------

    def board_engine(self, rules, tt_bits=12, seed=0):
        """The engine of the board simulated (`cpu`: a deployed board's budgets)."""
        e = Engine(rules, tt_bits, seed)
        e.stand_for(self.cpu)
        return e

    def timed_engine(self, rules, tt_bits=12, seed=0):
        e = PicoTimedEngine(rules, tt_bits, seed)
        rate, qrate = PICO_NODES_PER_S, PICO_QUIESCE_NODES_PER_S
        if self.cpu:  # a deployed board: its chip's budgets, at the kernels' rates
            e.stand_for(self.cpu)
            e.chunk_scale = KERNEL_CHUNK  # (the same ms between clock reads as the kernel)
            rate, qrate = NATIVE_NODES_PER_S, NATIVE_QUIESCE_NODES_PER_S
        e.us_per_node = 1000000 // rate.get(rules.name, 1200)
        q = qrate.get(rules.name)
        e.us_per_qnode = 1000000 // q if q else 0
        e.charge = self._engine
        return e

    def spend(self, us):
        """Let `us` microseconds of the board's work pass on the clock."""
        us += self._us
        ms = us // 1000
        self._us = us - ms * 1000
        if ms:
            self.clock.advance(ms)
            if self.due:
                self._changes()

    def at(self, t, name, active=True):
        """Press (or release) pit `name` at clock time `t`, even in the middle of a
        loop turn's work (the firmware sees it at its next poll, as on the board)."""
        self.due.append((t, index(name), active))

    def _changes(self):
        now = self.clock.now()
        for item in list(self.due):
            if item[0] <= now:
                self.due.remove(item)
                self.set_pit(item[1], item[2])

    def _wire(self, us):
        self.wire_us += us
        self.draw_us += DRAW_US
        self.spend(us + DRAW_US)

    def _engine(self, us):
        self.engine_us += us
        self.spend(us)

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

    def set_battery(self, mv):
        """The cell at `mv` (a battery build: VSYS/3 on ADC3, mancala/hw/battery.py;
        4700 and more: on USB)."""
        from mancala.hw.battery import mv_to_reading

        self.machine.set_adc(self.profile.get("battery", {}).get("adc_pin", 29), mv_to_reading(mv))

    def press(self, name):
        self.set_pit(name, True)

    def release(self, name):
        self.set_pit(name, False)

    # -- time ------------------------------------------------------------------------

    def run(self, ms, waiting=False):
        """Let `ms` of the person's time pass, the board's loop turning as App.run()
        turns it: a turn every FRAME_MS, each sleeping what is left of it after its
        work (a turn that worked longer: the next at once).  The person's time does
        not wait for the board's work, so the same presses come at the same moments
        whatever the board did in between.  `waiting`: the person does nothing at its
        end (until()'s steps), so no long slice ends there as it would at a press."""
        clock = self.clock
        if self.t_after is None:
            self._first()
        elif clock.now() != self.t_after:  # the clock was moved from outside
            d = clock.diff(clock.now(), self.t_after)
            self.t_person += d
            self.t_next += d
            self.t_after = clock.now()
        self.t_person += ms
        self.horizon = None if waiting else self.t_person
        try:
            while clock.diff(self.t_person, self.t_next) >= 0:
                self.turn()
                if waiting:  # (one turn: until() looks at the mode after each)
                    break
        finally:
            self.horizon = None

    def _first(self):
        self.t_after = self.t_person = self.clock.now()
        self.t_next = self.t_person + A.App.FRAME_MS

    def turn(self):
        """One loop turn, at its time (after the last turn's sleep)."""
        clock = self.clock
        if self.t_after is None:
            self._first()
        w = clock.diff(self.t_next, clock.now())
        clock.sleep(w)
        if w > 0:
            self._us = 0  # (the last turn's sub-ms of work ended in its sleep)
        if self.due:
            self._changes()
        t = self.t_turn = clock.now()
        self.app.tick()
        self.t_after = clock.now()
        self.busy = clock.diff(self.t_after, t)
        self.t_next = t + (self.busy if self.busy > A.App.FRAME_MS else A.App.FRAME_MS)
        if self.horizon is None and clock.diff(self.t_person, self.t_after) < 0:
            # a turn called on its own moves the person's time to its end (a press
            # the script makes next comes after it)
            self.t_person = self.t_after
        elif clock.diff(self.t_person, t) < 0:
            self.t_person = t

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
        t0 = self.clock.now()
        while A.MODE_NAMES[self.app.mode] not in modes:
            if self.clock.diff(self.clock.now(), t0) >= limit:
                return False
            self.run(A.App.FRAME_MS, waiting=True)
        return True

    # -- what the board shows ----------------------------------------------------------

    def decoded(self):
        """(counts, backgrounds) read from the pixel buffer through the profile's layout
        (mancala.hw.pixels_read imported only then: in the unix port's sessions its code
        is not in the heap that stands for the board's, where it never is)."""
        try:
            from mancala.hw.pixels_read import decode
        except ImportError:  # an older firmware's (session.py --compare OLD): hw/pixels
            from mancala.hw.pixels import decode
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
