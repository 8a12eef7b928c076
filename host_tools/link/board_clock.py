"""The clock a board's watcher measures its windows by (deploy's reset_and_watch).

A board on a serial port lives on the wall clock: `now()` is time.monotonic()
and `idle_until()` returns at once (the read that follows does the waiting).
The emulated board (host_tools/link/bridge.py) publishes its own clock on a socket
next to its port (`PORT.clock`): `now()` is the board's time, and
`idle_until(t)` tells the bridge that this watcher has nothing to do before the
board's time `t` unless the board prints or resets, so the bridge may jump its
clock there when the board only sleeps.  A trial window of seconds then
passes in milliseconds, with every reset and every line in the order a real
board would produce them.
"""

import os
import socket
import time


class WallClock:
    def now(self):
        return time.monotonic()

    def idle_until(self, t):
        pass

    def close(self):
        pass


class EmulatedClock:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.buf = b""
        self.last_now = 0.0  # the board's time in the last answer

    def _answer(self, timeout):
        self.sock.settimeout(timeout)
        while b"\n" not in self.buf:
            data = self.sock.recv(4096)
            if not data:
                raise OSError("the emulated board's clock went away")
            self.buf += data
        line, _, self.buf = self.buf.partition(b"\n")
        self.last_now = float(line.split()[1]) / 1000
        return self.last_now

    def now(self):
        self.sock.sendall(b"NOW\n")
        return self._answer(10)

    def idle_until(self, t):
        """Returns when the board's time reaches t, or the board printed or reset."""
        self.sock.sendall(b"IDLE %r\n" % (t * 1000,))
        # (the board's time runs at least as fast as the wall clock)
        self._answer(max(0.0, t - self.last_now) + 30)

    def close(self):
        self.sock.close()


def board_clock(port):
    """The clock of the board on `port`: its own where it publishes one."""
    path = str(port) + ".clock"
    if os.path.exists(path):
        try:
            return EmulatedClock(path)
        except OSError:
            pass
    return WallClock()
