"""Errors: the board that cannot play (modes/start.py build), the way back after an error
in the loop (App.tick's recover), the full-flash code while saves fail.  Imported only
when one of them happens, so a board that plays holds none of this code."""

from mancala import modes as M
from mancala.hw.pixels import AMBER
from mancala.modes import ERROR, MENU
from mancala.record import format_record


def recover(app):
    """After an error: back to the saved state; if that fails again, the menu."""
    app.errors += 1
    app.boot_codes = []
    app.hinting = app.grading = False
    try:
        if app.errors >= 3:
            raise RuntimeError("the saved game keeps failing: starting from the menu")
        if app.unsaved and app.game is not None:
            resume_unsaved(app)
        else:
            app.boot_game()
            M.forget_others(app.mode)  # the boot's module goes again (but in the boot)
    except Exception as e:  # noqa: BLE001
        app.log_exc(e)
        app.game = None
        app.next_mode = MENU
    app.set_mode(app.next_mode)


def resume_unsaved(app):
    """recover() while the flash refuses saves: the saved game is older than the
    one in memory, so the one in memory goes on, checked by replaying its record."""
    from mancala.modes.menu import need_engine
    from mancala.notation import parse_record

    app.session_game.assign(parse_record(format_record(app.game)))
    app.game = app.session_game
    need_engine(app)
    app.refresh()
    app.next_mode = app.turn_mode()


def draw_full_code(app, px, now):
    """While saves fail: the full-flash code (all 14 blink amber four times) when
    it begins and again every FULL_REMIND_MS."""
    t = app.clock.diff(now, app.t_unsaved)
    if t >= app.FULL_REMIND_MS:
        app.t_unsaved = now
        t = 0
    t //= app.BOOT_BLINK_MS
    if t < 2 * app.FULL_CODE and t & 1 == 0:
        for i in range(14):
            px.fill(i, AMBER)



class ErrorBoard:
    """A board that cannot play (a bad profile, hardware that will not start, or
    main.py's safe state): the reasons on the console every 10 s, a blink code
    on the status LED and, where the LEDs work, every pit blinking dim red.
    Never a crash, and never healthy: on trial, main.py's deadman resets it."""

    mode = ERROR

    def __init__(self, errors, status, clock, log, pixels=None):
        self.errors = errors
        self.status = status
        self.clock = clock
        self.log = log
        self.np = pixels  # a neopixel.NeoPixel, or None
        self.t0 = clock.now()
        self.last_print = None
        self.lit = -1
        self.report()

    def report(self):
        self.log("the board cannot play:" if self.np is not None else "board profile is not usable:")
        for e in self.errors:
            self.log("  " + e)
        self.last_print = self.clock.now()

    def tick(self):
        t = self.clock.diff(self.clock.now(), self.t0) // 150 % 14
        # 5 quick blinks, then a pause: "profile"
        on = 1 if t < 10 and t & 1 == 0 else 0
        if self.status is not None:
            self.status.value(on)
        if self.np is not None and on != self.lit:
            self.lit = on
            try:
                self.np.fill((6, 0, 0) if on else (0, 0, 0))  # dim: 0.5 mA an LED, within USB power
                self.np.write()
            except Exception:  # noqa: BLE001 - the LEDs are what failed: the console still tells
                self.np = None
        if self.clock.diff(self.clock.now(), self.last_print) >= 10000:
            self.report()

    def run(self):
        while True:
            self.tick()
            self.clock.sleep(50)
