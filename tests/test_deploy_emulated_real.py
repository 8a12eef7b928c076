"""The real firmware on the emulated board (host_tools/link/deploy_emulated.py): deployed
with its tables, it starts on the fakes of `machine` and `neopixel` the tests use
(host_tools/fakes, given to the VM by host_tools/link/bridge.mjs), proves healthy, and
plays: pits pressed through the fake machine's pins, the game read back from the
board's /data/game.json."""

import json
import os
import time

import pytest
import serial

from host_tools.link import bridge, deploy, deploy_emulated, deploy_plan
from mancala.notation import parse_record

pytestmark = pytest.mark.skipif(not bridge.available(), reason="MicroPython VM not installed (make setup)")


class Port:
    """A serial port read up to a marker at a time (what came after it kept)."""

    def __init__(self, path):
        self.s = serial.Serial(path, 115200, timeout=0.1)
        self.buf = b""

    def write(self, data):
        self.s.write(data)

    def until(self, ending, timeout=10):
        t0 = time.monotonic()
        while ending not in self.buf:
            if time.monotonic() - t0 > timeout:
                raise AssertionError("timeout waiting for %r, got %r" % (ending, self.buf))
            self.buf += self.s.read(max(1, self.s.in_waiting))
        i = self.buf.index(ending) + len(ending)
        out, self.buf = self.buf[:i], self.buf[i:]
        return out

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.s.close()


def test_the_pins_of_the_fake_machine(tmp_path):
    """The board's `machine` is the tests' fake with the board's own reset, reset_cause
    and deadman over it; `neopixel` is the tests' fake; neither is on the flash.  A pin
    set from the host reaches the program at its next sleep, and holds across resets."""
    d = tmp_path / "board"
    d.mkdir()
    (d / "main.py").write_text(
        "import machine, neopixel, os, time\n"
        "print('FAKES', hasattr(machine, 'set_input'), neopixel.NeoPixel.__name__, "
        "machine.reset_cause(), sorted(os.listdir('/')))\n"
        "p = machine.Pin(5, machine.Pin.IN, machine.Pin.PULL_UP)\n"
        "seen = [p.value()]\n"
        "print('LEVEL', seen[0])\n"
        "while True:\n"
        "    time.sleep_ms(20)\n"
        "    if p.value() != seen[0]:\n"
        "        seen[0] = p.value()\n"
        "        print('LEVEL', seen[0])\n")
    with bridge.Bridge(str(d)) as b:
        with Port(b.port) as s:
            # (main.py ran before the port was open: again, by a soft reset in the friendly REPL)
            s.write(b"\r\x03\x04")
            s.until(b"soft reboot")
            out = s.until(b"LEVEL")
            assert b"FAKES True NeoPixel 5 ['main.py']" in out  # (/home/bridge is not the board's)
            assert s.until(b"\n") == b" 1\n"  # released: the pull-up
            b.press(5)
            s.until(b"LEVEL 0\n")
            b.release(5)
            s.until(b"LEVEL 1\n")
            b.press(5)  # held through a soft reset ...
            s.until(b"LEVEL 0\n")
            s.write(b"\x03\x04")
            s.until(b"soft reboot")
            s.until(b"LEVEL")
            assert s.until(b"\n") == b" 0\n"
            s.write(b"\x03")
            s.until(b">>> ")
            s.write(b"import machine; machine.reset()\r")
        # ... and a hard reset (a new process: the pins given at its start)
        t0 = time.monotonic()
        while "reset" not in [e for _t, e in b.events] or b.events[-1][1] != "booted":
            assert time.monotonic() - t0 < 10, b.events
            time.sleep(0.01)
        with Port(b.port) as s:
            s.write(b"\r\x03\x04")
            s.until(b"soft reboot")
            s.until(b"LEVEL")
            assert s.until(b"\n") == b" 0\n"


def test_the_real_firmware_deploys_starts_and_plays(tmp_path):
    """A fresh emulated board: the real firmware/ (boot.py, main.py, the stage, the
    package in slot a, the opening book in /tables) deployed, confirmed healthy by the
    real app, which then plays a new game from its menu and a move guided stone by
    stone.  (The endgame tables' transfer is the long test's: no table is built here.)"""
    d = tmp_path / "board"
    t0 = time.monotonic()
    with bridge.Bridge(str(d), flash_size=deploy_emulated.PICO_FLASH) as b, open(os.devnull, "w") as quiet:
        r = deploy.deploy(b.port, deploy_plan.DEFAULT_SRC, out=quiet, tables_for={"kalah": 9},
                          tables_dir=str(tmp_path / "no-tables"))
        took = time.monotonic() - t0
        assert r["confirmed"] and r["running"] == (r["version"], "a"), r["output"]
        assert r["tables"] == ["kalah.book"]
        assert r["resets"] == 0  # healthy at its first start on trial
        with open(os.path.join(str(d), "slots", "state.json")) as f:
            state = json.load(f)
        assert state["active"] == "a" and state["trial"] is False and state["boots"] == 0
        assert os.path.exists(os.path.join(str(d), "slots", "a", "confirmed"))
        # the real app started: its start line (the default profile, on the fakes)
        assert b"start: pico-buttons" in r["output"] and b"book: no /tables/kalah.book" not in r["output"]

        with deploy_emulated.Player(b.port, b.board_dir) as p:
            p.wait_healthy()
            game = p.new_game()
            assert game["number"] == 1 and not parse_record(game["record"]).moves()
            pit, _before, after = p.play_move()
            assert list(parse_record(after["record"]).moves()) == [pit]
            assert after["record"] == "kalah %d" % (pit + 1)
            console = p.console.text()
        assert b"main: healthy (" in console and b"Traceback" not in console, console
    print("deploy %.1f s, in all %.1f s" % (took, time.monotonic() - t0))


@pytest.mark.long
def test_make_deploy_emulated(tmp_path, capsys):
    """`make deploy-emulated` as it runs: the firmware and a Pico's tables (those built
    in build/tables; a table not built is said and left out) to a fresh emulated board,
    confirmed, then a game played; twice (the second deploy finds it up to date and the
    game in progress: the menu first, then a new game)."""
    board = str(tmp_path / "board")
    for n in (1, 2):
        rc = deploy_emulated.main(["--board", board])
        out = capsys.readouterr().out
        assert rc == 0, out
        assert ("confirmed healthy by the app" if n == 1 else "already up to date") in out, out
        assert "played: a new game from the menu (the North store): game %d saved" % n in out, out
        assert "/data/game.json holds 'kalah " in out, out
        assert "the emulated board lives in %s" % board in out
    with open(os.path.join(board, "data", "game.json")) as f:
        assert json.load(f)["number"] == 2
