"""Talking to the board for `mancala deploy` (docs/UPDATING.md): finding its port,
mpremote's SerialTransport and raw REPL, files written over it, and the small
MicroPython programs run there (hashes, the file walk, file operations).

The lowest of the deploy modules (deploy_plan.py, slots.py and deploy.py build on
it): the error they all raise and the flash layout the board's info walk names
live here.
"""

import ast
import base64
import json
import os
import time

# Outside the slots (docs/UPDATING.md, "The start-up stage"): two loaders that
# never change and the stage they run; all stay .py, at the root of the flash.
ROOT_FILES = ("boot.py", "main.py", "stage.py")
LOADERS = ("main.py", "boot.py")  # the order they are renamed in (stage_steps)
STAGE = "stage.py"
# The stage of firmware before the loaders (boot.py and main.py themselves),
# kept by the loaders' first install until the first stage has proved itself.
OLD_STAGE = {"boot.py": "boot_v1.py", "main.py": "main_v1.py"}
BOARD_ROOTS = ROOT_FILES + ("stage_next.py", "stage_try.py") + tuple(sorted(OLD_STAGE.values()))
BLOCK = 4096
RESERVE = 2 * BLOCK  # kept free for the state file and the player's data
CHUNK = 2048  # bytes of a file per write command over the REPL
KNOWN_VIDS = {0x2E8A, 0x303A, 0xF055, 0x10C4, 0x1A86, 0x0403}  # RPi, Espressif, MicroPython, CP210x, CH34x, FTDI


class DeployError(Exception):
    """A one-line, user-facing error."""


# ---------------------------------------------------------------------------
# code run on the board (MicroPython)

# sha256 (hex) and size of a file on the board, read in 512-byte pieces.
BOARD_HASH = r"""
try:
    import hashlib, binascii
except ImportError:
    hashlib = None
def _h(p):
    h = hashlib.sha256()
    b = bytearray(512)
    n = 0
    with open(p, 'rb') as f:
        while True:
            k = f.readinto(b)
            if not k:
                break
            h.update(b if k == 512 else b[:k])
            n += k
    return binascii.hexlify(h.digest()).decode(), n
"""

BOARD_INFO = BOARD_HASH + r"""
import sys, os, json
def _walk(d, rel):
    try:
        es = list(os.ilistdir(d))
    except OSError:
        return
    for e in es:
        p = d + '/' + e[0]
        r = rel + e[0]
        if e[1] & 0x4000:
            print('D', r)
            _walk(p, r + '/')
        else:
            x = _h(p)
            print('F', r, x[0], x[1])
def _j(p):
    try:
        with open(p) as f:
            return f.read()
    except OSError:
        return ''
i = sys.implementation
try:
    v = os.statvfs('/')
    free = v[0] * v[4]
except Exception:
    free = -1
print('I', repr((tuple(i.version[:3]), getattr(i, '_mpy', None), sys.platform, free,
                 getattr(i, '_machine', ''))))
print('S', _j('/slots/state.json'))
for s in ('a', 'b'):
    print('M', s, _j('/slots/' + s + '/manifest.json'))
for f in %r:
    try:
        x = _h('/' + f)
        print('R', f, x[0], x[1])
    except OSError:
        pass
if hashlib:
    _walk('/slots/a', 'a/')
    _walk('/slots/b', 'b/')
    _walk('/tables', 't/')
""" % (BOARD_ROOTS,)

BOARD_FS = r"""
import os
def _mkdirs(p):
    q = ''
    for part in p.split('/')[1:-1]:
        q += '/' + part
        try:
            os.mkdir(q)
        except OSError:
            pass
def _rm(p):
    try:
        os.remove(p)
    except OSError:
        pass
def _cp(a, b):
    _mkdirs(b)
    buf = bytearray(512)
    with open(a, 'rb') as f, open(b, 'wb') as g:
        while True:
            k = f.readinto(buf)
            if not k:
                break
            g.write(buf if k == 512 else buf[:k])
def _rmtree_empty(d):
    try:
        es = list(os.ilistdir(d))
    except OSError:
        return
    for e in es:
        if e[1] & 0x4000:
            _rmtree_empty(d + '/' + e[0])
    try:
        os.rmdir(d)
    except OSError:
        pass
"""



def port_spelling(device):
    """How the user names a port: the make targets say PORT=, which mk/deploy.mk tells
    us by MANCALA_PORT_SPELLING; the `mancala` commands say --port."""
    if os.environ.get("MANCALA_PORT_SPELLING") == "make":
        return "PORT=%s" % device
    return "--port %s" % device


def find_port(port=None):
    port = port or os.environ.get("PORT") or None
    if port:
        return port
    import serial.tools.list_ports

    found = [p.device for p in sorted(serial.tools.list_ports.comports())
             if p.vid is not None and p.vid in KNOWN_VIDS]
    if not found:
        raise DeployError("no board found: plug the board in over USB, or name its port: %s"
                          % port_spelling("/dev/ttyACM0"))
    if len(found) > 1:
        raise DeployError("several boards found (%s): choose one with %s"
                          % (", ".join(found), port_spelling(found[0])))
    return found[0]




def serial_transport(port, **kw):
    """mpremote's SerialTransport, waiting for the board's bytes with select().

    mpremote's read_until sleeps 10 ms each time no byte is waiting: every REPL
    round trip (a command, its "OK", its output, its end) then ends up to 10 ms
    after the board answered, and a deploy is hundreds of round trips.  Here the
    wait ends when a byte arrives (at most 10 ms, as before, so every timeout
    keeps its meaning), and bytes are still taken one at a time: nothing past
    `ending` is consumed.  Where select() cannot wait on the port (Windows), it
    is mpremote's own."""
    import select

    from mpremote import transport_serial

    class Transport(transport_serial.SerialTransport):
        def read_until(self, min_num_bytes, ending, timeout=10, data_consumer=None,
                       timeout_overall=None):
            try:
                fd = self.serial.fileno()
            except Exception:  # (no file descriptor: Windows, a URL handler)
                fd = None
            if fd is None:
                return super().read_until(min_num_bytes, ending, timeout, data_consumer,
                                          timeout_overall)
            data = b""
            begin_overall = begin_char = time.monotonic()
            while not data.endswith(ending):
                new = self.serial.read(1) if self.serial.in_waiting else None
                if new:
                    if data_consumer:
                        data_consumer(new)
                        data = new
                    else:
                        data += new
                    begin_char = time.monotonic()
                    continue
                now = time.monotonic()
                if timeout is not None and now >= begin_char + timeout:
                    break
                if timeout_overall is not None and now >= begin_overall + timeout_overall:
                    break
                select.select([fd], [], [], 0.01)
            return data

    return Transport(port, **kw)


class Board:
    """A board on a serial port, through mpremote's SerialTransport."""

    def __init__(self, port, timeout=10):
        import serial
        from mpremote.transport import TransportError

        self.port = port
        if port.startswith("/") and not os.path.exists(port):  # (COM3 on Windows is no path)
            raise DeployError("no board found at %s: is it plugged in?" % port)
        try:
            self.t = serial_transport(port, baudrate=115200, timeout=timeout)
        except TransportError:
            # mpremote only says "failed to access": find out why.
            why = "it cannot be opened"
            try:
                s = serial.Serial()
                s.port = port
                s.exclusive = True
                s.open()
                s.close()
            except serial.SerialException as e:
                why = str(e)
            if "lock" in why or "busy" in why.lower() or "Errno 16" in why:
                raise DeployError("port %s is busy: close the other program using it (mpremote, a serial monitor, Thonny)" % port) from None
            raise DeployError("cannot open %s: %s" % (port, why)) from None
        self.TransportError = TransportError
        self.sent_bytes = 0
        self.send_seconds = 0.0
        self.b64 = None
        self.restarted = False

    def close(self, restart_app=True):
        """Leave the board running its application again: mpremote's soft reset
        into the raw REPL ran boot.py only, so the app is stopped until a soft
        reset in the friendly REPL (boot.py, main.py) or a reset."""
        try:
            if self.t.in_raw_repl:
                self.t.exit_raw_repl()
                if restart_app and not self.restarted:
                    self.t.read_until(1, b">>> ", timeout=2)
                    self.t.serial.write(b"\x04")
            self.t.close()
        except Exception:
            pass

    def raw(self, soft_reset=True, patience=15.0):
        """Into the raw REPL.  A board that resets by itself meanwhile (its USB
        port drops and comes back) is reconnected for up to `patience` s."""
        t0 = time.monotonic()
        while True:
            try:
                self.t.enter_raw_repl(soft_reset=soft_reset)
                return
            except self.TransportError:
                raise DeployError("the board on %s does not answer: is it running MicroPython?" % self.port) from None
            except OSError:
                if time.monotonic() - t0 > patience:
                    raise DeployError("lost the board on %s: it keeps resetting" % self.port) from None
            try:
                self.t.close()
            except Exception:
                pass
            while time.monotonic() - t0 <= patience:
                time.sleep(0.2)
                try:
                    self.t = serial_transport(self.port, baudrate=115200, timeout=10)
                    break
                except Exception:
                    continue

    def exec(self, code):
        try:
            return self.t.exec(code).decode("utf-8", "replace")
        except self.TransportError as e:
            msg = str(e).strip().splitlines()
            last = msg[-1] if msg else str(e)
            if "ENOSPC" in last or "Errno 28" in last:
                raise DeployError("flash full while writing (%s)" % last) from None
            if "timeout" in last:
                raise DeployError("lost the board on %s: it stopped answering" % self.port) from None
            raise DeployError("board error: %s" % last) from None
        except OSError as e:
            raise DeployError("lost the board on %s: %s" % (self.port, e)) from None

    def info(self):
        out = self.exec(BOARD_INFO)
        info = {"files": {}, "manifests": {}, "state": None, "root": {}}
        for line in out.splitlines():
            tag, _, rest = line.partition(" ")
            if tag == "I":
                fields = ast.literal_eval(rest)
                ver, mpy, platform, free = fields[:4]
                info.update(version=tuple(ver), mpy=mpy, platform=platform, free=free,
                            machine=fields[4] if len(fields) > 4 else "")
            elif tag == "S":
                info["state"] = json_or_none(rest)
            elif tag == "M":
                s, _, text = rest.partition(" ")
                info["manifests"][s] = json_or_none(text)
            elif tag == "R":
                name, h, n = rest.split(" ")
                info["root"][name] = (h, int(n))
            elif tag == "F":
                rel, h, n = rest.split(" ")
                info["files"][rel] = (h, int(n))
        return info

    def write_file(self, dest, data, progress=None):
        """Write a file over the REPL: base64 (4/3 of the bytes) where the board
        has binascii.a2b_base64, else Python bytes literals (about 2.4x for .mpy)."""
        t0 = time.monotonic()
        if self.b64 is None:
            self.b64 = self.exec("try:\n from binascii import a2b_base64 as _a\n print(1)\nexcept ImportError:\n print(0)").strip() == "1"
        self.exec("_mkdirs(%r)\nf=open(%r,'wb')\nw=f.write" % (dest, dest))
        done = 0
        while done < len(data):
            chunk = data[done:done + CHUNK]
            if self.b64:
                self.exec("w(_a(%r))" % base64.b64encode(chunk))
            else:
                self.exec("w(%r)" % (chunk,))
            done += len(chunk)
            if progress:
                progress(done, len(data))
        self.exec("f.close()")
        self.sent_bytes += len(data)
        self.send_seconds += time.monotonic() - t0


def json_or_none(text):
    """The JSON in `text`, or None for an empty or broken file."""
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


# ---------------------------------------------------------------------------
