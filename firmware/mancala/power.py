"""The battery's watch on a battery build (hardware/battery.md; imported by mancala/idle.py
only when the profile has a "battery": a board on USB or mains never holds this code).

Every BATTERY_MS, in every idle state, the cell is read (mancala/hw/battery.py):

  below low_mv .......... the warning: both stores blink red LOW_BLINKS times over the
                          frame, again every LOW_REMIND_MS (cleared 0.1 V above: a cell
                          recovers at rest)
  below cut_mv, CUT_READS readings in a row (a bright frame's sag is not a reason)
                     .... the game saved, /data/power.json written (why), the board dark
                          (idle.py OFF: LEDs and their supply off, the clock lowered);
                          presses do nothing, only power coming back wakes it
  usb_mv or more while OFF .. power is back: the board wakes into the state it left and
                          the pits blink amber POWER_CODE times; power.json goes
  at the next boot after a brown-out: the same code, as a boot code (boot_note)
"""

from mancala.hw.battery import Battery
from mancala.hw.pixels import AMBER, RED
from mancala.rules import N_STORE, S_STORE

POWER_CODE = 5  # the pits blink amber five times: the board went dark on a low battery
POWER_FILE = "power.json"
STORES = (1 << S_STORE) | (1 << N_STORE)


class Watch:
    BATTERY_MS = 2000  # the cell read this often
    CUT_READS = 3  # readings in a row below the safe level before the board goes dark
    LOW_REMIND_MS = 30000  # the low-battery warning again this often
    LOW_BLINKS = 3  # ... the stores blink red three times
    BLINK_MS = 250

    def __init__(self, app, machine, cfg):
        self.battery = Battery(machine.ADC(cfg.get("adc_pin", 29)), cfg)
        self.battery.read_mv()
        now = app.clock.now()
        self.t_battery = now
        self.t_low = now
        self.t_note = now
        self.note = 0  # a code drawn over the frame (POWER_CODE when power came back)
        self.low = False  # the battery is low: the warning
        self.cut = 0  # readings in a row below the safe level

    def turn(self, app, idle, now):
        if app.clock.diff(now, self.t_battery) >= self.BATTERY_MS:
            self.t_battery = now
            self.check(app, idle, now)

    def check(self, app, idle, now):
        b = self.battery
        mv = b.read_mv()
        if idle.state == idle.OFF:
            if b.on_usb():  # power is back: the board wakes and says why
                self.note = POWER_CODE  # (drawn over the first frame: wake() renders)
                self.t_note = now
                idle.state = idle.DARK
                idle.wake(app, now)
                app.saved(app.store_call(app.store.remove, POWER_FILE))
                app.log("power: back (the board went dark on a low battery)")
            return
        if mv < b.cut_mv and not b.on_usb():
            self.cut += 1
            if self.cut >= self.CUT_READS:
                self.shut_down(app, idle, mv)
            return
        self.cut = 0
        if not self.low and mv < b.low_mv:
            self.low = True
            self.t_low = now
            app.log("battery: low (%d mV): charge the board" % mv)
            app.dirty = True
        elif self.low and mv >= b.low_mv + 100:  # (hysteresis: a cell recovers at rest)
            self.low = False
            app.dirty = True
        elif self.low and app.clock.diff(now, self.t_low) >= self.LOW_REMIND_MS:
            app.dirty = True  # the warning again (draw_over)

    def shut_down(self, app, idle, mv):
        """Below the safe level: save, leave the why, go dark before the chip browns
        out.  The game is saved after every move; saved again here (a record in memory
        only, if the flash refused the last save), with a note of why."""
        app.log("battery: %d mV, below the safe %d mV: saving and going dark" %
                (mv, self.battery.cut_mv))
        if app.game is not None and app.meta is not None:
            app.save_game()
        app.saved(app.store_call(app.store.save, POWER_FILE, {"why": "battery", "mv": mv}))
        idle.dark(app, "battery low", idle.OFF)

    def draw_over(self, app, px, now):
        """The power-back code (the pits blink amber POWER_CODE times) or the low-battery
        warning (the stores blink red) over the mode's frame."""
        clock = app.clock
        if self.note:
            t = clock.diff(now, self.t_note) // self.BLINK_MS
            if t >= 2 * self.note:
                self.note = 0
            elif t & 1 == 0:
                for i in range(14):
                    if not STORES >> i & 1:
                        px.fill(i, AMBER)
            app.dirty = True  # (the next blink drawn on time)
            return
        if not self.low:
            return
        t = clock.diff(now, self.t_low)
        if t >= self.LOW_REMIND_MS:
            self.t_low = now
            t = 0
        t //= self.BLINK_MS
        if t < 2 * self.LOW_BLINKS + 1:
            if t & 1 == 0 and t < 2 * self.LOW_BLINKS:
                px.fill(S_STORE, RED)
                px.fill(N_STORE, RED)
            app.dirty = True


def boot_note(app):
    """At boot: the board went dark on a low battery before this boot: the boot's code
    says so (POWER_CODE) once; the note goes."""
    from mancala.hw import storage as S

    st, note = app.store.load(POWER_FILE)
    if st == S.OK:
        app.log("power: the board went dark on a low battery (%r): the game was kept" %
                (note.get("mv"),))
        app.boot_codes.append(POWER_CODE)
    if st != S.MISSING:
        app.saved(app.store_call(app.store.remove, POWER_FILE))
