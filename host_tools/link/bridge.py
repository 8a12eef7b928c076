"""An emulated board on a pseudo-terminal: the MicroPython WebAssembly VM's REPL
(host_tools/link/bridge.mjs) behind a pty, so mpremote connects to it by device path
exactly as to a board on a USB serial port.

    python -m host_tools.link.bridge --board DIR [--flash-size BYTES] [--no-raw-paste]
                                [--impl-version X.Y.Z] [--impl-mpy N]

prints the port (/dev/pts/N) and runs until interrupted.  DIR holds the board's
files (its flash) between soft resets and runs; restarting the bridge on the
same DIR is a power cycle.

The board's clock is this side's: CLOCK_MONOTONIC plus a skew that only grows.
When the board sleeps, no byte is in flight, and every watcher connected to
the clock socket (`PORT.clock`, host_tools/link/board_clock.py: deploy's
reset_and_watch) has said it is idle until some board time, the clock jumps
to the first of: the board's wake-up, the armed deadman, the watchers' time.
So a trial window, a settle time or a deadman passes in milliseconds, in the
order it would on a board; code that computes (a hang) takes its real time,
and without a watcher the board's time runs as the wall clock.

The board's `machine` and `neopixel` are the project's fakes (host_tools/fakes,
as the tests give them to the firmware), so the real firmware starts on it: its
input pins idle released.  `set_pin(n, level)` / `press(n)` / `release(n)` (or
"PIN n level" on the clock socket, from another process) change a pin's level;
the board's program takes it at the end of its next sleep.
"""

import argparse
import fcntl
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tty

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BRIDGE_JS = os.path.join(ROOT, "host_tools", "link", "bridge.mjs")
VM_ENTRY = os.path.join(
    ROOT, "node_modules", "@micropython", "micropython-webassembly-pyscript", "micropython.mjs"
)


def available():
    return os.path.exists(VM_ENTRY)


class Bridge:
    """One emulated board.  Use as a context manager; `port` is the device path.

    Like a board on USB (docs/UPDATING.md, "The emulated board"): the port is a
    stable path (a link to the current pseudo-terminal) that disappears at a
    hard reset (machine.reset(), the deadman timer) and comes back once boot.py
    has returned; what the board printed before that is lost.
    """

    def __init__(self, board_dir, flash_size=1024 * 1024, raw_paste=True,
                 impl_version=None, impl_mpy=None, heap=2 * 1024 * 1024, log=None,
                 reset_off_s=0.3):
        self.board_dir = os.path.abspath(board_dir)
        self.args = ["node", BRIDGE_JS, "--board", self.board_dir,
                     "--heap", str(heap), "--flash-size", str(flash_size)]
        if not raw_paste:
            self.args.append("--no-raw-paste")
        if impl_version is not None:
            self.args += ["--impl-version", impl_version]
        if impl_mpy is not None:
            self.args += ["--impl-mpy", str(impl_mpy)]
        self.log = log
        self.reset_off_s = reset_off_s
        self.link_dir = tempfile.mkdtemp(prefix="mpboard-")
        self.port = os.path.join(self.link_dir, "ttyACM0")
        self.interrupt_file = os.path.join(self.link_dir, "interrupt")
        self.args += ["--interrupt-file", self.interrupt_file]
        self.proc = None
        self.pty = None  # the current /dev/pts/N while the port is there
        self._master = self._slave = None
        self._ctl = None
        self._thread = None
        self._stop = False
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._pin_lock = threading.Lock()  # the wake pipe's fd while set_pin writes to it
        self.skew = 0.0  # ms: board time = CLOCK_MONOTONIC + skew (only grows)
        self.clock_path = self.port + ".clock"
        self._clock_srv = None
        self._watchers = {}  # socket -> [input buffer, idle until (board ms) or None]
        self.deadline = None  # board time (ms) the armed deadman fires
        self.sleeping_until = None  # board time (ms) the sleeping board wakes, or None
        self._wake = None  # the write end of the board's wake pipe
        self.jumps = 0  # times the clock jumped ahead
        # Seconds of real time a board may go without sleeping, printing or being
        # written to before it counts as hung: the clock then runs on to the armed
        # deadman (a test of a hang sets it; None: code that computes takes the
        # time it really takes, as on a chip).
        self.hung_after = None
        self._last_activity = time.monotonic()
        self.events = []  # (board time s, "booted" | "reset" | "deadman" | "armed")
        self.bytes_in = 0   # host -> board
        self.bytes_out = 0  # board -> host
        self.pins = {}  # pin -> level set from here (the fake machine's inputs; the rest idle released)

    # -- the board's clock ----------------------------------------------------
    def now_ms(self):
        return time.monotonic() * 1000 + self.skew

    def now(self):
        """The board's time in seconds (monotonic, as time.monotonic())."""
        return self.now_ms() / 1000

    def _clock_up(self):
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            os.remove(self.clock_path)
        except OSError:
            pass
        srv.bind(self.clock_path)
        srv.listen(4)
        srv.setblocking(False)
        self._clock_srv = srv

    def _watcher_say(self, sock, what):
        try:
            sock.sendall(("%s %r\n" % (what, self.now_ms())).encode())
        except OSError:
            self._watcher_gone(sock)

    def _watcher_gone(self, sock):
        self._watchers.pop(sock, None)
        try:
            sock.close()
        except OSError:
            pass

    def _watchers_wake(self, what="NOW"):
        """Something happened (output, a reset): every idle watcher looks."""
        for sock, st in list(self._watchers.items()):
            if st[1] is not None:
                st[1] = None
                self._watcher_say(sock, what)

    def _watcher_input(self, sock):
        try:
            data = sock.recv(4096)
        except OSError:
            data = b""
        if not data:
            self._watcher_gone(sock)
            return
        st = self._watchers[sock]
        st[0] += data
        while b"\n" in st[0]:
            line, _, st[0] = st[0].partition(b"\n")
            cmd = line.decode().split()
            if cmd and cmd[0] == "IDLE":
                st[1] = float(cmd[1])
                if self._in_flight() or self._master is None:  # something to read first, or a reset to see
                    st[1] = None
                    self._watcher_say(sock, "NOW")
            elif cmd and cmd[0] == "NOW":
                self._watcher_say(sock, "NOW")
            elif cmd and cmd[0] == "PIN" and len(cmd) == 3:
                self.set_pin(int(cmd[1]), int(cmd[2]))
                self._watcher_say(sock, "PIN")

    def _in_flight(self):
        """Bytes the board sent that no one has read yet."""
        if self._slave is None:
            return 0
        try:
            return int.from_bytes(fcntl.ioctl(self._slave, termios.FIONREAD, b"\0\0\0\0"), "little")
        except OSError:
            return 0

    def _wake_board(self):
        self.sleeping_until = None
        try:
            os.write(self._wake, ("WAKE %r\n" % self.skew).encode())
        except (OSError, TypeError):  # (TypeError: no pipe, the board is resetting)
            pass

    def _next_event(self):
        """The board time of the next thing that happens by the clock alone."""
        times = [t for t in (self.deadline, self.sleeping_until) if t is not None]
        times += [st[1] for st in self._watchers.values() if st[1] is not None]
        return min(times) if times else None

    def _maybe_jump(self, quiet):
        """Jump the clock when only the clock can make something happen."""
        if (self.sleeping_until is None or not self._watchers or not quiet
                or any(st[1] is None for st in self._watchers.values()) or self._in_flight()):
            return
        gap = self._next_event() - self.now_ms()
        if gap > 0:
            self.skew += gap
            self.jumps += 1

    # -- the board's pins (the fake `machine`'s inputs) -------------------------
    def set_pin(self, pin, level):
        """Drive input pin `pin` to `level` (0: a button pressed against its pull-up).
        The board's program takes it at the end of its next sleep (a program that
        never sleeps does not see it); it holds across resets until set again."""
        level = 1 if level else 0
        with self._pin_lock:
            self.pins[pin] = level
            if self._wake is not None:
                try:
                    os.write(self._wake, b"PIN %d %d\n" % (pin, level))
                except OSError:  # the board is resetting: the new one starts with self.pins
                    pass

    def _close_wake(self):
        with self._pin_lock:
            if self._wake is not None:
                try:
                    os.close(self._wake)
                except OSError:
                    pass
                self._wake = None

    def press(self, pin):
        self.set_pin(pin, 0)

    def release(self, pin):
        self.set_pin(pin, 1)

    # -- lifecycle ----------------------------------------------------------
    def start(self, timeout=20):
        """Power on (the same flash): the port appears once boot.py has returned."""
        if not available():
            raise RuntimeError("MicroPython VM not installed: run `make setup` (npm ci)")
        self._ready.clear()
        self._stop = False
        self.deadline = None
        os.makedirs(self.link_dir, exist_ok=True)
        self._clock_up()
        self._spawn(after_reset=False)
        self._thread = threading.Thread(target=self._relay, daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            self.kill()
            raise RuntimeError("emulated board did not start")
        return self

    def _spawn(self, after_reset):
        ctl_r, ctl_w = os.pipe()
        wake_r, wake_w = os.pipe()
        args = self.args + ["--control-fd", str(ctl_w), "--wake-fd", str(wake_r), "--skew", repr(self.skew)] \
            + (["--after-reset"] if after_reset else [])
        with self._pin_lock:  # (a pin set from now on goes down the new pipe)
            for pin, level in sorted(self.pins.items()):
                args += ["--pin", "%d:%d" % (pin, level)]
            self._wake = wake_w
        self.sleeping_until = None
        self.proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log if self.log is not None else subprocess.DEVNULL,
            bufsize=0, start_new_session=True, pass_fds=(ctl_w, wake_r))
        os.close(ctl_w)
        os.close(wake_r)
        self._ctl = ctl_r
        self._ctl_buf = b""

    def _port_up(self):
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.pty = os.ttyname(self._slave)
        os.set_blocking(self._master, False)
        tmp = self.port + ".new"
        try:
            os.remove(tmp)
        except OSError:
            pass
        os.symlink(self.pty, tmp)
        os.replace(tmp, self.port)

    def _port_down(self):
        try:
            os.remove(self.port)
        except OSError:
            pass
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None
        self.pty = None

    def _hard_reset(self, why):
        """machine.reset() or the deadman: the chip restarts, USB drops off."""
        self.events.append((self.now(), why))
        self.deadline = None
        proc = self.proc
        proc.kill()
        proc.wait()
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        os.close(self._ctl)
        self._close_wake()
        self._port_down()
        self._watchers_wake("RESET")
        # Off for reset_off_s of board time; only a moment of it real, for
        # whoever polls for the port to go.
        real = min(self.reset_off_s, 0.05)
        time.sleep(real)
        self.skew += (self.reset_off_s - real) * 1000
        if self._stop:
            return False
        self._spawn(after_reset=True)
        return True

    def _control(self, data):
        self._ctl_buf += data
        reset = None
        while b"\n" in self._ctl_buf:
            line, _, self._ctl_buf = self._ctl_buf.partition(b"\n")
            cmd = line.decode().split()
            if not cmd:
                continue
            if cmd[0] == "BOOTED":
                self.events.append((self.now(), "booted"))
                if self._master is None:
                    self._port_up()
                self._ready.set()
            elif cmd[0] == "ARM":
                self.deadline = float(cmd[1])
                self.events.append((self.now(), "armed"))
            elif cmd[0] == "SLEEP":
                self.sleeping_until = float(cmd[1])
            elif cmd[0] == "DISARM":
                self.deadline = None
            elif cmd[0] == "RESET":
                reset = "reset"
        return reset

    def _relay(self):
        pending = b""
        while not self._stop:
            proc = self.proc
            vm_out = proc.stdout.fileno()
            vm_in = proc.stdin.fileno()
            master = self._master
            watchers = list(self._watchers)
            rl = [vm_out, self._ctl, self._clock_srv] + watchers + ([master] if master is not None else [])
            wl = [master] if pending and master is not None else []
            wait = 0.1
            nxt = self._next_event()
            if nxt is not None:
                wait = max(0.0, min(wait, (nxt - self.now_ms()) / 1000))
            try:
                r, w, _ = select.select(rl, wl, [], wait)
            except (OSError, ValueError):
                break
            why = None
            if self._ctl in r:
                data = os.read(self._ctl, 4096)
                why = self._control(data) if data else None
            if self._clock_srv in r:
                try:
                    sock, _ = self._clock_srv.accept()
                    self._watchers[sock] = [b"", None]
                except OSError:
                    pass
            for sock in watchers:
                if sock in r and sock in self._watchers:
                    self._watcher_input(sock)
            if why is None:
                now = self.now_ms()
                if self.deadline is not None and now >= self.deadline:
                    why = "deadman"
                elif self.sleeping_until is not None and now >= self.sleeping_until:
                    self._wake_board()
                for sock, st in list(self._watchers.items()):
                    if st[1] is not None and now >= st[1]:
                        st[1] = None
                        self._watcher_say(sock, "NOW")
                if any(st[1] is not None for st in self._watchers.values()) and self._in_flight():
                    # an idle watcher with output waiting for it: it is not reading this
                    # port (it opened the one a reset replaced a moment ago); wake it, or
                    # it sleeps out its window while the unread bytes stop the clock's jumps
                    self._watchers_wake()
            if why is not None:
                with self._lock:
                    if self._stop or not self._hard_reset(why):
                        break
                pending = b""
                continue
            if vm_out in r:
                data = os.read(vm_out, 65536)
                if not data:  # the board's process ended (a power cut, $MPBOARD_CUT_AT): USB goes
                    self._port_down()
                    break
                self.bytes_out += len(data)
                if self._master is not None:
                    pending += data
            if master is not None and master in r:
                try:
                    data = os.read(master, 65536)
                except (BlockingIOError, OSError):
                    data = None
                if data:
                    self.bytes_in += len(data)
                    if b"\x03" in data:  # Ctrl-C: the running program sees it at its next sleep
                        with open(self.interrupt_file, "wb"):
                            pass
                        if self.sleeping_until is not None:
                            self._wake_board()  # (it sleeps now: it sees it at once)
                    try:
                        os.write(vm_in, data)
                    except (BrokenPipeError, OSError):
                        break
            if pending and self._master is not None and (self._master in w or not wl):
                try:
                    n = os.write(self._master, pending)
                    pending = pending[n:]
                except BlockingIOError:
                    pass
                except OSError:
                    pending = b""
                self._watchers_wake()  # there is something to read
            if not pending and self.sleeping_until is not None:
                busy = [vm_out, self._ctl] + ([self._master] if self._master is not None else [])
                try:
                    quiet = not select.select(busy, [], [], 0)[0]
                except (OSError, ValueError):
                    quiet = False
                self._maybe_jump(quiet)
            if vm_out in r or self._ctl in r or (master is not None and master in r) \
                    or self.sleeping_until is not None:
                self._last_activity = time.monotonic()
            elif (self.hung_after is not None and self.deadline is not None and not pending
                  and time.monotonic() - self._last_activity >= self.hung_after):
                gap = self.deadline - self.now_ms()
                if gap > 0:  # hung: only the deadman can happen next
                    self.skew += gap
                    self.jumps += 1

    def stop(self, timeout=10):
        """Orderly stop: the board's files are saved to the host folder."""
        if self.proc is None:
            return
        with self._lock:
            self._stop = True
            proc = self.proc
            try:
                os.write(self._wake, b"STOP\n")  # a sleeping board saves and exits at once
            except (OSError, TypeError):
                pass
            try:
                proc.stdin.close()  # end of input: the bridge saves and exits
            except OSError:
                pass
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()  # a hung board: its files were written through already
                proc.wait(timeout)
        self._close()

    def kill(self):
        """Power cut: whatever was not yet saved to the host folder is lost."""
        if self.proc is None:
            return
        with self._lock:
            self._stop = True
            self.proc.kill()
            self.proc.wait()
        self._close()

    def _close(self):
        self._stop = True
        if self._thread is not None:
            self._thread.join(5)
        self._port_down()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        try:
            os.close(self._ctl)
        except OSError:
            pass
        self._close_wake()
        for sock in list(self._watchers):
            self._watcher_gone(sock)
        if self._clock_srv is not None:
            self._clock_srv.close()
            self._clock_srv = None
        self.proc = None
        self.deadline = None
        shutil.rmtree(self.link_dir, ignore_errors=True)  # (start() makes it again)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="bridge", description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", required=True, help="host folder holding the board's files")
    ap.add_argument("--flash-size", type=int, default=1024 * 1024)
    ap.add_argument("--no-raw-paste", action="store_true")
    ap.add_argument("--impl-version")
    ap.add_argument("--impl-mpy", type=int)
    a = ap.parse_args(argv)
    b = Bridge(a.board, flash_size=a.flash_size, raw_paste=not a.no_raw_paste,
               impl_version=a.impl_version, impl_mpy=a.impl_mpy, log=sys.stderr)
    def _term(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _term)  # stop as on Ctrl-C: the flash saved, the link removed
    b.start()
    print(b.port, flush=True)  # a link to the pty: it vanishes during a hard reset
    try:
        while b.proc.poll() is None:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    b.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
