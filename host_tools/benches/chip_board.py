"""A board on the RP2040 model, powered on from a flash image (chip_board.mjs).

The flash is laid out as `make deploy` lays it (host_tools/link/flash_image.py), so a
power-on runs what a board runs: the boot ROM, MicroPython v1.27.0 (rp2), boot.py,
main.py, the stage, the app.  The chip's time is the model's (125 MHz, deterministic);
pits are pressed on their GPIO (or their hall sensors' volts through the mux), the LED
frames are decoded from the WS2812 waveform on the LED pin.

    with ChipBoard(model, image, profile) as board:
        out = board.run(8000, until="main: confirmed")
        board.tap("S1")

The model is a measuring tool beside the clone (../shared/picobox): `model_folder()`
finds it, and the tests that need it skip with one line where it is missing.
"""

import json
import os
import pathlib
import shutil
import subprocess
import tempfile

from host_tools.benches.chip_bench import ROOT, ChipBenchError, prepare_model

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED_MODEL = os.path.join(os.path.dirname(ROOT), "shared", "picobox")
PIT_NAMES = ("S1", "S2", "S3", "S4", "S5", "S6", "Sstore",
             "N1", "N2", "N3", "N4", "N5", "N6", "Nstore")
HALL_IDLE_V = 1.65  # a linear hall sensor at rest (half of 3.3 V)
HALL_MAGNET_V = 2.4  # ... with a pit's magnet pressed near it (over the threshold)


def model_folder():
    """The RP2040 model beside the clone (or $PICOBOX), or None."""
    folder = os.environ.get("PICOBOX") or SHARED_MODEL
    return folder if os.path.isfile(os.path.join(folder, "board.mjs")) else None


def load_profile(name):
    from mancala import profiles

    return profiles.load(name)


class ChipBoard:
    """One emulated board, powered on from `image` (the filesystem region's bytes) or
    from `uf2` alone (a `make image` UF2 that carries its filesystem)."""

    def __init__(self, model, image=None, profile="pico_buttons", uf2=None, work=None,
                 watch_alloc=False):
        self.work = prepare_model(model) if work is None else work
        self.prof = load_profile(profile)
        self.tmp = tempfile.mkdtemp(prefix="chip-board-")
        # (chip_wave.mjs: the PIO clocked in the chip's time, as the chain's driver
        # needs; rp2040js alone runs it in the host's, its waveform unreadable)
        args = ["node", "--import=" + pathlib.Path(HERE, "chip_wave.mjs").as_uri(),
                os.path.join(HERE, "chip_board.mjs"), "--model", self.work,
                "--led", str(self.prof["led_pin"])]
        if image is not None:
            flash = os.path.join(self.tmp, "flash.img")
            with open(flash, "wb") as f:
                f.write(image)
            args += ["--flash", flash]
        if uf2 is not None:
            args += ["--uf2", uf2]
        if watch_alloc:
            args.append("--watch-alloc")
        if self.prof.get("pit_pins"):
            args += ["--pull-ups", ",".join(str(p) for p in self.prof["pit_pins"])]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, cwd=self.work)
        self.console = ""
        self.t_ms = 0.0
        self.frame = None
        self.frames = 0
        if self.prof.get("sensor") == "mux":
            self.volts = [0.0] * 16
            for ch in self.prof["mux_channels"]:
                self.volts[ch] = HALL_IDLE_V
            self._ask({"cmd": "mux", "select": list(self.prof["mux_select"]),
                       "adc": self.prof["mux_adc"] - 26, "values": self.volts})

    def _ask(self, cmd):
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            err = self.proc.stderr.read().strip().splitlines()
            raise ChipBenchError("the RP2040 model stopped: %s" % (err[-1] if err else "no output"))
        ans = json.loads(line)
        if "error" in ans:
            raise ChipBenchError("the RP2040 model: %s" % ans["error"])
        return ans

    def run(self, ms, until=None):
        """Run `ms` of the chip's time (or until the console written meanwhile matches
        the regex `until`); returns that console text."""
        a = self._ask({"cmd": "run", "ms": ms, "until": until})
        self.console += a["console"]
        self.t_ms = a["t_ms"]
        self.frames = a["frames"]
        if a["frame"] is not None:
            self.frame = bytes.fromhex(a["frame"])
        self.matched = a["matched"]
        return a["console"]

    def hold(self, pit, down):
        """Press (down=True) or release a pit's sensor (a name of PIT_NAMES, or SS/NS)."""
        k = PIT_NAMES.index({"SS": "Sstore", "NS": "Nstore"}.get(pit, pit))
        if self.prof.get("sensor") == "mux":
            ch = self.prof["mux_channels"][k]
            self._ask({"cmd": "set", "index": ch, "value": HALL_MAGNET_V if down else HALL_IDLE_V})
        else:
            self._ask({"cmd": "pin", "pin": self.prof["pit_pins"][k], "value": 0 if down else 1})

    def tap(self, pit, hold_ms=150, after_ms=400):
        self.hold(pit, True)
        out = self.run(hold_ms)
        self.hold(pit, False)
        return out + self.run(after_ms)

    def counts(self):
        return list(self.shown()[0] or [])

    def target(self):
        """The pit the guide lights for the next stone (white background), or None."""
        bgs = self.shown()[1] or []
        for i, bg in enumerate(bgs):
            if bg == "white":
                return i
        return None

    def sow(self, quiet_ms=1500, limit=80):
        """Carry out a guided sowing: tap each pit the guide lights until it lights
        none for `quiet_ms`; returns the stones dropped."""
        dropped = quiet = 0
        last = None
        while quiet < quiet_ms and dropped < limit:
            t = self.target()
            if t is None or (t == last and quiet < 1000):
                # (no guide light, or still the one just tapped: the board has not
                # drawn the next yet; two stones in a row never go to one pit)
                self.run(60)
                quiet += 60
                continue
            self.tap(PIT_NAMES[t], hold_ms=100, after_ms=120)
            last = t
            dropped += 1
            quiet = 0
        return dropped

    def play_move(self, pit):
        """A move carried out: tap board index `pit`, then every pit the guide lights
        (the stones one by one, a capture's too) until it lights none; returns the taps."""
        self.tap(PIT_NAMES[pit], hold_ms=100, after_ms=200)
        return self.sow()

    def shown(self):
        """(counts, backgrounds) a person reads off the newest frame (pixels_read)."""
        from mancala.hw.pixels_read import decode

        if self.frame is None:
            return None, None
        return decode(self.frame, self.prof["leds"])

    def exec(self, code, timeout_ms=None, soft_reset=False):
        """Stop the app (Ctrl-C: the board falls to its REPL, the firmware the stage
        started stays imported and on sys.path) and run `code` over the raw REPL;
        returns what it printed.  soft_reset: first a soft reset in the raw REPL
        (boot.py and the stage again, not main.py: the slot on sys.path and a whole
        heap, without the app's objects).  A traceback raises ChipBenchError."""
        a = self._ask({"cmd": "exec", "code": code, "timeout_ms": timeout_ms,
                       "soft_reset": soft_reset})
        self.t_ms = a["t_ms"]
        if a["err"]:
            raise ChipBenchError("the script failed on the chip: %s"
                                 % a["err"].strip().splitlines()[-1])
        return a["out"]

    def allocs(self, reset=False):
        """(watch_alloc) The heap allocations since the last reset: {"count", "max"
        (bytes), "big": {KB: how many of at least that many KB}}."""
        return self._ask({"cmd": "allocs", "reset": reset})["allocs"]

    def wave(self):
        return self._ask({"cmd": "wave"})["wave"]

    def save_flash(self):
        """The filesystem region as it is now (the flash a power cut leaves)."""
        path = os.path.join(self.tmp, "saved.img")
        self._ask({"cmd": "save", "path": path})
        with open(path, "rb") as f:
            return f.read()

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)  # (closed twice: nothing left to do)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
