"""Milliseconds and sleeping, behind one tiny interface so tests control time."""

import time

try:
    _ticks_ms = time.ticks_ms
    _ticks_diff = time.ticks_diff
    _sleep_ms = time.sleep_ms
except AttributeError:  # CPython
    _monotonic = time.monotonic  # type: ignore[attr-defined]

    def _ticks_ms():
        return int(_monotonic() * 1000) & 0x3FFFFFFF

    def _ticks_diff(a, b):
        d = (a - b) & 0x3FFFFFFF
        return d - 0x40000000 if d & 0x20000000 else d

    def _sleep_ms(ms):
        time.sleep(ms / 1000)


class Clock:
    """The real clock: `now()` in ms (wraps; compare with `diff`)."""

    def now(self):
        return _ticks_ms()

    def diff(self, a, b):
        return _ticks_diff(a, b)

    def sleep(self, ms):
        if ms > 0:
            _sleep_ms(ms)


class ManualClock:
    """A clock that moves only when told (tests, headless simulator)."""

    def __init__(self, start=0):
        self.t = start

    def now(self):
        return self.t

    def diff(self, a, b):
        return a - b

    def sleep(self, ms):
        if ms > 0:
            self.t += ms

    def advance(self, ms):
        self.t += ms
