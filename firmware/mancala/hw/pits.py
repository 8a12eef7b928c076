"""Pit inputs: 14 sensors in board order (S1..S6, S store, N1..N6, N store).

A sensor source only answers "which are active now" as a 14-bit mask:
  GpioSensors  push buttons or digital hall switches, active low, pull-ups
  MuxSensors   linear hall sensors through a CD74HC4067 (4 select pins, 1 ADC),
               baseline per sensor taken at start, threshold with hysteresis
               (hw/mux.py: a board with switches never loads it)
`Pits` turns those raw masks into gestures, with debounce, stuck sensors
reported and ignored, and several pits pressed together taken as a chord,
never as a tap:
  DOWN pit     a pit went down alone (the board lights it at once)
  TAP pit      a single pit pressed and released
  HOLD pit     a single pit held HOLD_MS (its release then says nothing)
  CHORD mask   two or more pits down together, all released before LONG_MS (the
               others go down while the first is held, within CHORD_MS of it)
  LONG mask    two or more pits held together LONG_MS
  STUCK pit    a sensor active STUCK_MS: reported once, ignored until it releases
Events are ints: kind << 16 | arg (no allocation per event).

A source that can tell cheaply whether a level may have changed since its last
read has `woken()` (GpioSensors: one port read, or a flag its pins' edge IRQs
set); with it the loop can give a long search slice that ends at the first edge
(App.search_slice) instead of polling every 20 ms, as long as `Pits.unpolled_ms`
says no debounce or hold timer falls due before.  MuxSensors cannot (14 ADC
readings): Pits.woken is None there.

A gesture ends when every pit of it is up, in the poll that sees it, even if
another pit went down in that same poll: that pit starts a new gesture, so two
quick taps are two taps whatever the loop's timing (a slow turn can make one pit's
release and the next pit's press stable in one poll).
"""

DOWN = 1
TAP = 2
HOLD = 3
CHORD = 4
LONG = 5
STUCK = 6
FREED = 7

KIND_NAMES = ("", "down", "tap", "hold", "chord", "long", "stuck", "freed")
ALL = 0x3FFF


def kind(ev):
    return ev >> 16


def arg(ev):
    return ev & 0xFFFF


def popcount(m):
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


# The index of a mask's lowest set bit in one lookup, BIT_AT[(m & -m) % 37]: 2**i % 37
# differs for every i below 36 (2 generates the integers mod 37), so the loops over
# the pits visit only those something happens on (a think's turns during a tap: one
# pit, not fourteen; mancala.app's frames of a few pits too).
BIT_AT = bytearray(37)
for _i in range(30):
    BIT_AT[(1 << _i) % 37] = _i


# What sits under each pit ("switch" of a "gpio" profile; a "mux" board reads linear
# hall sensors) and how long a raw change must hold before it counts, per kind: a
# push button's contacts bounce for up to ~10-20 ms, so 30 ms; a digital hall switch
# (DRV5033: a comparator with hysteresis) and a linear hall sensor behind its
# threshold + hysteresis do not bounce, so 10 ms only rejects a one-reading glitch
# (a change then counts at the next poll).  A profile may set "debounce_ms" itself.
DEBOUNCE_MS = {"button": 30, "hall": 10, "mux": 10}


def sensor_kind(p):
    """"button", "hall" (digital hall switches, gpio) or "mux" (linear hall sensors)."""
    if p["sensor"] == "mux":
        return "mux"
    return p.get("switch", "button")


def debounce_ms(p):
    """How long a raw change of a pit sensor must hold to count (ms)."""
    d = p.get("debounce_ms")
    return DEBOUNCE_MS[sensor_kind(p)] if d is None else d


def lowest(m):
    """The index of the lowest set bit of m (> 0)."""
    return BIT_AT[(m & -m) % 37]


class GpioSensors:
    # A raw change must hold this long to count: push buttons bounce (the profile
    # sets 10 ms for digital hall switches, which do not: DEBOUNCE_MS above)
    DEBOUNCE_MS = 30
    watch_addr = 0  # (no port: no register for the machine-code search to watch)

    def __init__(self, pins, debounce_ms=None, port=None, shift=0, port_addr=0):
        self.pins = pins  # 14 machine.Pin inputs with pull-ups, board order
        self.debounce_ms = self.DEBOUNCE_MS if debounce_ms is None else debounce_ms
        # port(): every GPIO's level in one word (rp2: the SIO's GPIO_IN, one register
        # read instead of 14 Pin.value() calls, ~0.25 ms a poll on a Pico), when the
        # pins are consecutive GPIOs in board order from `shift`
        self.port = port
        self.shift = shift
        self.all = (1 << len(pins)) - 1
        # The register port() reads, for the machine-code search to watch during a
        # think's long slice (Search.step_for's `watch`): its address, the pits' bits
        # in it and their levels at the last read()
        if port is not None and port_addr:
            self.watch_addr = port_addr
        self.watch_mask = self.all << shift
        self.watch_level = 0
        self.last = 0  # what read() last returned (woken() with a port compares)
        self.edge = 0  # an edge IRQ came since the last read() (pins without a port)
        self.can_wake = port is not None
        if port is None:
            self.can_wake = self._arm(pins)

    def _arm(self, pins):
        """Edge IRQs on every pin (either edge) that set `edge`: the ESP32 and any
        board whose pits are not one port's consecutive GPIOs.  False where the
        pins have no IRQ (the PC's simulated pins)."""
        if not pins or getattr(pins[0], "irq", None) is None:
            return False
        handler = self._on_edge  # (one bound method for all: made once)
        try:
            for p in pins:
                p.irq(handler=handler, trigger=p.IRQ_FALLING | p.IRQ_RISING)
        except (AttributeError, OSError, ValueError, TypeError):
            return False
        return True

    def _on_edge(self, pin):
        self.edge = 1  # (a soft IRQ: runs between bytecodes, allocates nothing)

    def woken(self):
        """Whether a level may have changed since the last read() (cheap: a search
        slice asks it every few ms)."""
        port = self.port
        if port is not None:
            return (~(port() >> self.shift) & self.all) != self.last
        return self.edge

    def read(self):
        port = self.port
        if port is not None:
            w = port()
            self.watch_level = w & self.watch_mask
            m = self.last = ~(w >> self.shift) & self.all  # active low
            return m
        self.edge = 0  # (before the reads: an edge during them wakes the next slice)
        m = 0
        bit = 1
        for p in self.pins:
            if not p.value():
                m |= bit
            bit <<= 1
        self.last = m
        return m


class Pits:
    DEBOUNCE_MS = 30  # a raw change must hold this long to count (a source may say)
    HOLD_MS = 1200
    LONG_MS = 2500
    STUCK_MS = 15000
    # a chord: every pit goes down while the first is still held, at most this long
    # after it; a pit later than that spoils the gesture (it reports nothing)
    CHORD_MS = 500

    def __init__(self, sensors, clock, n=14, debounce_ms=None):
        self.sensors = sensors
        if debounce_ms is None:  # the sensor kind's own (GpioSensors, MuxSensors)
            debounce_ms = getattr(sensors, "debounce_ms", self.DEBOUNCE_MS)
        self.debounce_ms = debounce_ms
        self.clock = clock
        self.n = n
        self.raw = 0
        self.stable = 0  # debounced state
        self.changed = [0] * n  # when each raw bit last changed
        self.down_since = [0] * n
        self.ignored = 0  # stuck sensors
        self.gesture = 0  # union of pits down in this gesture
        self.g_start = 0  # when the gesture's last pit went down
        self.g_first = 0  # when its first pit went down
        self.fired = False
        self.events = []
        # the sensors' woken(), bound once (asked after every search chunk of a long slice)
        self.woken = sensors.woken if getattr(sensors, "can_wake", False) else None
        t = clock.now()
        for i in range(n):
            self.changed[i] = t
            self.down_since[i] = t

    def active(self):
        """Debounced pits down now, stuck ones left out."""
        return self.stable & ~self.ignored

    def unpolled_ms(self, now, most):
        """How long (ms, at most `most`) these pits may go without a poll, given that
        woken() says when a level changes: until the first debounce, hold, long
        hold or stuck timer falls due.  0: they need every loop turn's poll (the
        sensors cannot wake a slice)."""
        if self.woken is None:
            return 0
        raw = self.raw
        stable = self.stable
        if not (raw | stable | self.gesture):
            return most  # every pit up and settled: only an edge can start anything
        clock = self.clock  # (not clock.diff bound once: a bound method is an allocation)
        due = most
        pending = raw ^ stable
        held = stable & ~self.ignored
        todo = pending | held
        while todo:
            bit = todo & -todo
            todo ^= bit
            i = BIT_AT[bit % 37]
            if pending & bit:
                d = self.debounce_ms - clock.diff(now, self.changed[i])
            elif held & bit:
                d = self.STUCK_MS - clock.diff(now, self.down_since[i])
            else:
                continue
            if d < due:
                due = d
        if self.gesture and not self.fired:
            d = (self.HOLD_MS if popcount(self.gesture) == 1 else self.LONG_MS) - \
                clock.diff(now, self.g_start)
            if d < due:
                due = d
        return due if due > 0 else 0

    def touched(self):
        """Pits to light under a finger: down now by the debounced state or by the
        last raw reading (the first raw edge lights at once; the gesture still
        waits for a stable reading, so a bounce never makes a move)."""
        return (self.stable | self.raw) & ~self.ignored

    def poll(self):
        """Read the sensors once; returns the list of new events (reused)."""
        ev = self.events
        ev.clear()  # (del ev[:] would allocate a slice)
        clock = self.clock
        now = clock.now()
        raw = self.sensors.read()
        diff = raw ^ self.raw
        self.raw = raw
        stable = self.stable
        pending = raw ^ stable
        if not (diff | pending | stable | self.gesture):
            return ev  # every pit up and settled, no gesture: nothing to time or report
        rose = 0
        todo = diff | pending | stable  # (the pits the loop has anything to do on)
        while todo:
            bit = todo & -todo
            todo ^= bit
            i = BIT_AT[bit % 37]
            if diff & bit:
                self.changed[i] = now
            if pending & bit and clock.diff(now, self.changed[i]) >= self.debounce_ms:
                stable ^= bit
                if stable & bit:
                    self.down_since[i] = now
                    rose |= bit
                elif self.ignored & bit:
                    self.ignored &= ~bit
                    ev.append(FREED << 16 | i)
            elif stable & bit and not self.ignored & bit and \
                    clock.diff(now, self.down_since[i]) >= self.STUCK_MS:
                self.ignored |= bit
                ev.append(STUCK << 16 | i)
                self.gesture &= ~bit
                if not self.gesture:
                    self.fired = True  # nothing left to report for this gesture
        self.stable = stable
        act = stable & ~self.ignored
        if self.gesture and not act & self.gesture:
            # every pit of the gesture is up: it ends now, whatever went down meanwhile
            if not self.fired:
                if popcount(self.gesture) == 1:
                    ev.append(TAP << 16 | lowest(self.gesture))
                else:
                    ev.append(CHORD << 16 | self.gesture)
            self.gesture = 0
            self.fired = False
        if rose & act and popcount(act) == 1:
            ev.append(DOWN << 16 | lowest(act))  # a pit went down alone
        if act:
            if not self.gesture:
                self.gesture = act
                self.g_start = now
                self.g_first = now
                self.fired = False
            elif act & ~self.gesture:
                if clock.diff(now, self.g_first) > self.CHORD_MS:
                    self.fired = True  # too late to be "together": neither chord nor tap
                self.gesture |= act
                self.g_start = now  # a chord's hold counts from its last finger
            if not self.fired:
                held = clock.diff(now, self.g_start)
                if popcount(self.gesture) == 1:
                    if held >= self.HOLD_MS:
                        self.fired = True
                        ev.append(HOLD << 16 | lowest(self.gesture))
                elif held >= self.LONG_MS:
                    self.fired = True
                    ev.append(LONG << 16 | self.gesture)
        return ev
