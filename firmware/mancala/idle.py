"""Idle sleep and the battery (docs/PLAYER_GUIDE.md "When nobody plays", hardware/battery.md).

A board left alone dims, then goes dark and lowers its own draw; any pit or store wakes
it into exactly the state it left, and the press that wakes it is never played:

  AWAKE   the loop as always; the quiet time counts from the last pit touched (never
          while the computer thinks, in the boot's codes or the power-on tests)
  DIM     after the menu's "idle" minutes of quiet: every LED off but one of the
          mover's store, breathing slowly (the loop's modes, the engine: not run)
  DARK    after DARK_AFTER times as long: every LED off, the LEDs' supply switched off
          where the profile has a switch ("led_power_pin"), the chip's clock lowered
          ("idle_hz"), the pits read every DARK_POLL_MS (between two reads the chip
          sleeps: time.sleep_ms, or machine.lightsleep with "idle_sleep": "lightsleep")
  WAKING  a pit went down: the LEDs show the state left at once (the finger's dot on
          it); the press's events are dropped until every pit is up again
  OFF     the battery fell below its safe level: the game saved, a note of why left
          in /data/power.json, the board dark; only power coming back (USB or a
          charger) wakes it, and the board then says why (POWER_CODE)

Why polling, not a pin wake: on rp2 machine.lightsleep() stops the clocks and USB, and
its GPIO wake is unreliable in MicroPython 1.27 for many pins; the mux build's hall
sensors are read through an ADC, which cannot wake the chip at all.  So the reference
builds lower the clock, switch the LEDs off and read the pits slowly (the sensors stay
powered: their draw counts in hardware/battery.md); "idle_sleep": "lightsleep" (a timer
wake between two reads) is for a build whose port is known to do it and that needs no
USB serial while dark.

While not AWAKE the loop's turn is this module's (App.tick): no mode runs, the engine
neither thinks nor ponders; on waking every timer of the App is moved on by the time
slept (a blink, a mode's own time go on where they stopped) and pondering resumes.
A battery build's cell is watched in every state (mancala/power.py, imported only
then).  Nothing is allocated per turn.
"""

from mancala.hw.pixels import NORTH, SOUTH, WHITE
from mancala.modes import BOOT, ERROR, LED_TEST, MENU, SENSOR_TEST, THINK
from mancala.rules import N_STORE, S_STORE

AWAKE = 0
DIM = 1
DARK = 2
WAKING = 3
OFF = 4
STATE_NAMES = ("awake", "dim", "dark", "waking", "off")
# the modes that never go idle: the computer's think (it ends by itself), the boot's
# codes, the power-on tests, the error board
BUSY = (THINK, BOOT, SENSOR_TEST, LED_TEST, ERROR)


class Idle:
    AWAKE = AWAKE  # (the states, for mancala/power.py)
    DARK = DARK
    OFF = OFF
    DARK_AFTER = 3  # dark after this many times the dim time (10 min -> 30 min)
    DIM_FRAME_MS = 100  # the breathing LED is redrawn this often
    BREATH_MS = 4000  # one breath
    DARK_POLL_MS = 60  # dark: the pits read this often (a tap lasts 100 ms or more)

    def __init__(self, app, profile, machine):
        self.machine = machine
        self.state = AWAKE
        now = app.clock.now()
        self.t_active = now  # the last time a pit was touched (or the board was busy)
        self.t_sleep = now  # when the board went dim
        self.t_wake = now
        self.t_draw = now
        self.awake_hz = 0
        self.idle_hz = profile.get("idle_hz") or 0
        self.lightsleep = profile.get("idle_sleep") == "lightsleep" and \
            hasattr(machine, "lightsleep")
        self.led_power = None
        pin = profile.get("led_power_pin")
        if pin is not None:
            self.led_power = machine.Pin(pin, machine.Pin.OUT, value=1)
        self.watch = None  # the battery's watch (mancala/power.py: a battery build only)
        cfg = profile.get("battery")
        if cfg:
            from mancala.power import Watch

            self.watch = Watch(app, machine, cfg)

    # -- the loop's turn -------------------------------------------------------------

    def turn(self, app, now):
        """Called first in every loop turn: True if the turn is this module's (the
        board is not awake), False to let the loop run it."""
        try:
            return self._turn(app, now)
        except Exception as e:  # noqa: BLE001 - the board must keep running
            if app.strict:
                raise
            app.log("idle: %r" % (e,))
            if self.state != AWAKE and self.state != OFF:
                self._lit(app)
                self.state = AWAKE
            return False

    def _turn(self, app, now):
        clock = app.clock
        if self.watch is not None:
            self.watch.turn(app, self, now)
        st = self.state
        if st == AWAKE:
            pits = app.pits
            if pits.touched() or pits.gesture or app.mode in BUSY:
                self.t_active = now
                return False
            minutes = app.settings.get("idle", 0)
            if minutes and clock.diff(now, self.t_active) >= minutes * 60000:
                self.dim(app, now)
                return True
            return False
        if st == OFF:
            self._pause(app)
            return True
        if st == WAKING:
            pits = app.pits
            pits.poll()  # the waking press: its events dropped, never played
            app.render()
            if not (pits.touched() or pits.gesture):
                self._shift(app, clock.diff(clock.now(), self.t_wake))
                self.state = AWAKE
                self.t_active = clock.now()
            return True
        # DIM or DARK: a pit wakes the board
        if app.pits.sensors.read() & ~app.pits.ignored:
            self.wake(app, now)
            return True
        if st == DIM:
            minutes = app.settings.get("idle", 0)
            if clock.diff(now, self.t_active) >= self.DARK_AFTER * minutes * 60000:
                self.dark(app)
            elif clock.diff(now, self.t_draw) >= self.DIM_FRAME_MS:
                self.t_draw = now
                self.draw_dim(app, now)
            return True
        self._pause(app)
        return True

    def _pause(self, app):
        """Dark: the chip rests until the next read of the pits (on top of the loop's
        own FRAME_MS sleep)."""
        ms = self.DARK_POLL_MS - app.FRAME_MS
        if self.lightsleep:
            self.machine.lightsleep(ms)
        else:
            app.clock.sleep(ms)

    # -- the states ------------------------------------------------------------------

    def dim(self, app, now):
        self.state = DIM
        self.t_sleep = now
        self.t_draw = now
        if app.status is not None:
            app.status.value(0)
        app.log("idle: dim (no one played for %d min)" % app.settings.get("idle", 0))
        self.draw_dim(app, now)

    def draw_dim(self, app, now):
        """One LED of the mover's store (the South store in the menu), breathing."""
        g = app.game
        i = S_STORE
        col = WHITE
        if g is not None and not g.over and app.mode != MENU:
            col = SOUTH
            if g.side:
                i = N_STORE
                col = NORTH
        t = app.clock.diff(now, self.t_sleep) % self.BREATH_MS
        half = self.BREATH_MS // 2
        k = 8 + 120 * (t if t < half else self.BREATH_MS - t) // half  # 8..128 of 255
        px = app.px
        px.begin()
        px.run(app.spans[i][0], 1, col[0] * k // 255, col[1] * k // 255, col[2] * k // 255)
        px.show()

    def dark(self, app, reason="idle", state=DARK):
        """Every LED off, their supply off, the clock lowered (`state`: DARK, or OFF
        on an empty battery)."""
        if self.state == AWAKE:
            self.t_sleep = app.clock.now()
        self.state = state
        px = app.px
        px.begin()
        px.show()
        if self.led_power is not None:
            self.led_power.value(0)
        if self.idle_hz and not self.awake_hz:
            self.awake_hz = self.machine.freq()
            self.machine.freq(self.idle_hz)
        if app.status is not None:
            app.status.value(0)
        app.log("idle: dark (%s)" % reason)

    def _lit(self, app):
        """The clock and the LEDs' supply back (before any LED is written: the chain's
        timing is the chip's)."""
        if self.awake_hz:
            self.machine.freq(self.awake_hz)
            self.awake_hz = 0
        if self.led_power is not None:
            self.led_power.value(1)
        app.dirty = True

    def wake(self, app, now):
        """A pit went down: the state left is shown at once; its press is dropped."""
        self._lit(app)
        self._shift(app, app.clock.diff(now, self.t_sleep))
        self.state = WAKING
        self.t_wake = now
        app.log("idle: awake")
        app.render()

    def _shift(self, app, d):
        """Every timer of the App moved on by `d` ms: the board goes on where it
        stopped (a mode's time, a blink, the full-flash code, the frame's)."""
        if d <= 0:
            return
        add = _adder(app.clock)
        app.t_mode = add(app.t_mode, d)
        app.t_flash = add(app.t_flash, d)
        app.t_blink = add(app.t_blink, d)
        app.t_count = add(app.t_count, d)
        app.t_unsaved = add(app.t_unsaved, d)
        app.t_frame = add(app.t_frame, d)
        if self.watch is not None:
            self.watch.t_low = add(self.watch.t_low, d)

    def draw_over(self, app, px, now):
        """Over the mode's frame (App.render): the battery's warning and codes."""
        if self.watch is not None:
            self.watch.draw_over(app, px, now)

    def state_name(self):
        return STATE_NAMES[self.state]


try:
    from time import ticks_add  # type: ignore[attr-defined]
except ImportError:  # CPython
    ticks_add = None


def _adder(clock):
    """t + d on `clock`'s ticks (time.ticks_add on the chip's clock: they wrap)."""
    if ticks_add is not None and type(clock).__name__ == "Clock":
        return ticks_add
    return _plus


def _plus(t, d):
    return t + d


def attach(app, profile, machine):
    """Give the App its idle sleep and battery (modes/start.py build())."""
    app.idle = Idle(app, profile, machine)
    return app.idle
