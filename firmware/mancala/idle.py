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

While not AWAKE the loop's turn is this module's (App.tick; the code of the states but
AWAKE is mancala/asleep.py, held only while the board is not awake): no mode runs, the engine
neither thinks nor ponders; on waking every timer of the App is moved on by the time
slept (a blink, a mode's own time go on where they stopped) and pondering resumes.
A battery build's cell is watched in every state (mancala/power.py, imported only
then).  Nothing is allocated per turn.
"""

import sys

from mancala.modes import BOOT, ERROR, LED_TEST, SENSOR_TEST, THINK

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
    AWAKE = AWAKE  # (the states, for mancala/asleep.py and mancala/power.py: they use
    DIM = DIM  # these, never import this module, which imports them)
    DARK = DARK
    WAKING = WAKING
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
        self.sleeper = None  # mancala/asleep.py while the board is not awake
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
                self.asleep().lit(self, app)
                self.state = AWAKE
                self.forget()
            return False

    def _turn(self, app, now):
        if self.watch is not None:
            self.watch.turn(app, self, now)
        if self.state == AWAKE:
            pits = app.pits  # (the mode first: a think's turns ask no more)
            if app.mode in BUSY or pits.touched() or pits.gesture:
                self.t_active = now
                return False
            minutes = app.settings.get("idle", 0)
            if minutes and app.clock.diff(now, self.t_active) >= minutes * 60000:
                self.asleep().dim(self, app, now)
                return True
            return False
        done = self.asleep().turn(self, app, now)
        if self.state == AWAKE:
            self.forget()  # (its turn has returned: none of its code is running)
        return done

    def asleep(self):
        """The code of the states but AWAKE (mancala/asleep.py): imported when the board
        first dims, dropped again on the board once it is awake (code is RAM there)."""
        m = self.sleeper
        if m is None:
            from mancala import asleep as m

            self.sleeper = m
        return m

    def forget(self):
        self.sleeper = None
        if sys.implementation.name == "micropython":
            import mancala

            sys.modules.pop("mancala.asleep", None)
            try:
                delattr(mancala, "asleep")
            except (AttributeError, KeyError):  # (MicroPython: KeyError)
                pass

    def dark(self, app, reason, state):
        self.asleep().dark(self, app, reason, state)

    def wake(self, app, now):
        self.asleep().wake(self, app, now)

    def draw_over(self, app, px, now):
        """Over the mode's frame (App.render): the battery's warning and codes."""
        if self.watch is not None:
            self.watch.draw_over(app, px, now)

    def state_name(self):
        return STATE_NAMES[self.state]


def attach(app, profile, machine):
    """Give the App its idle sleep and battery (modes/start.py build())."""
    app.idle = Idle(app, profile, machine)
    return app.idle
