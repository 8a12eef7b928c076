"""An emulated board on a pseudo-terminal: the MicroPython WebAssembly VM's REPL
(host_tools/bridge.mjs) behind a pty, so mpremote connects to it by device path
exactly as to a board on a USB serial port.

    python -m host_tools.bridge --board DIR [--flash-size BYTES] [--no-raw-paste]
                                [--impl-version X.Y.Z] [--impl-mpy N]

prints the port (/dev/pts/N) and runs until interrupted.  DIR holds the board's
files (its flash) between soft resets and runs; restarting the bridge on the
same DIR is a power cycle.
"""

import argparse
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tty

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BRIDGE_JS = os.path.join(ROOT, "host_tools", "bridge.mjs")
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
        self.deadline = None  # monotonic time the armed deadman fires
        self.events = []  # (monotonic time, "booted" | "reset" | "deadman" | "armed")
        self.bytes_in = 0   # host -> board
        self.bytes_out = 0  # board -> host

    # -- lifecycle ----------------------------------------------------------
    def start(self, timeout=20):
        """Power on (the same flash): the port appears once boot.py has returned."""
        if not available():
            raise RuntimeError("MicroPython VM not installed: run `make setup` (npm ci)")
        self._ready.clear()
        self._stop = False
        self.deadline = None
        os.makedirs(self.link_dir, exist_ok=True)
        self._spawn(after_reset=False)
        self._thread = threading.Thread(target=self._relay, daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            self.kill()
            raise RuntimeError("emulated board did not start")
        return self

    def _spawn(self, after_reset):
        ctl_r, ctl_w = os.pipe()
        args = self.args + ["--control-fd", str(ctl_w)] + (["--after-reset"] if after_reset else [])
        self.proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log if self.log is not None else subprocess.DEVNULL,
            bufsize=0, start_new_session=True, pass_fds=(ctl_w,))
        os.close(ctl_w)
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
        self.events.append((time.monotonic(), why))
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
        self._port_down()
        time.sleep(self.reset_off_s)
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
                self.events.append((time.monotonic(), "booted"))
                if self._master is None:
                    self._port_up()
                self._ready.set()
            elif cmd[0] == "ARM":
                self.deadline = time.monotonic() + int(cmd[1]) / 1000
                self.events.append((time.monotonic(), "armed"))
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
            rl = [vm_out, self._ctl] + ([master] if master is not None else [])
            wl = [master] if pending and master is not None else []
            wait = 0.1
            if self.deadline is not None:
                wait = max(0.0, min(wait, self.deadline - time.monotonic()))
            try:
                r, w, _ = select.select(rl, wl, [], wait)
            except (OSError, ValueError):
                break
            why = None
            if self._ctl in r:
                data = os.read(self._ctl, 4096)
                why = self._control(data) if data else None
            if why is None and self.deadline is not None and time.monotonic() >= self.deadline:
                why = "deadman"
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

    def stop(self, timeout=10):
        """Orderly stop: the board's files are saved to the host folder."""
        if self.proc is None:
            return
        with self._lock:
            self._stop = True
            proc = self.proc
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
