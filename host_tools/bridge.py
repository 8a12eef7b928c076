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
import signal
import subprocess
import sys
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
    """One emulated board.  Use as a context manager; `port` is the device path."""

    def __init__(self, board_dir, flash_size=1024 * 1024, raw_paste=True,
                 impl_version=None, impl_mpy=None, heap=2 * 1024 * 1024, log=None):
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
        self.proc = None
        self.port = None
        self._master = self._slave = None
        self._thread = None
        self._stop = False
        self._ready = threading.Event()
        self.bytes_in = 0   # host -> board
        self.bytes_out = 0  # board -> host

    # -- lifecycle ----------------------------------------------------------
    def start(self, timeout=20):
        if not available():
            raise RuntimeError("MicroPython VM not installed: run `make setup` (npm ci)")
        self._ready.clear()
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.port = os.ttyname(self._slave)
        os.set_blocking(self._master, False)
        self.proc = subprocess.Popen(
            self.args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log if self.log is not None else subprocess.DEVNULL,
            bufsize=0, start_new_session=True)
        self._stop = False
        self._thread = threading.Thread(target=self._relay, daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            self.kill()
            raise RuntimeError("emulated board did not start")
        return self

    def _relay(self):
        vm_out = self.proc.stdout.fileno()
        vm_in = self.proc.stdin.fileno()
        pending = b""
        while not self._stop:
            rl = [vm_out, self._master]
            wl = [self._master] if pending else []
            try:
                r, w, _ = select.select(rl, wl, [], 0.1)
            except (OSError, ValueError):
                break
            if vm_out in r:
                data = os.read(vm_out, 65536)
                if not data:
                    break
                self._ready.set()
                pending += data
                self.bytes_out += len(data)
            if self._master in r:
                try:
                    data = os.read(self._master, 65536)
                except BlockingIOError:
                    data = None
                except OSError:
                    data = None
                if data:
                    self.bytes_in += len(data)
                    try:
                        os.write(vm_in, data)
                    except (BrokenPipeError, OSError):
                        break
            if pending and (self._master in w or not wl):
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
        try:
            self.proc.stdin.close()  # end of input: the bridge saves and exits
        except OSError:
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout)
        self._close()

    def kill(self):
        """Power cut: whatever was not yet saved to the host folder is lost."""
        if self.proc is None:
            return
        self.proc.kill()
        self.proc.wait()
        self._close()

    def _close(self):
        self._stop = True
        if self._thread is not None:
            self._thread.join(2)
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self._master = self._slave = None
        self.proc = None

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
    b.start()
    print(b.port, flush=True)
    try:
        while b.proc.poll() is None:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    b.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
