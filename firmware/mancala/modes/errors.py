"""The board that cannot play: imported only then (mancala.app.build), so a board
that plays never holds its code."""

from mancala.modes import ERROR


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
