"""The simulator: headless scripts in, one JSON line per LED frame out; the terminal view."""

import io
import json
import os
import subprocess
import sys

from host_tools.simulators import sim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_sim(script, *flags, status=0):
    proc = subprocess.run([sys.executable, "-m", "host_tools.simulators.sim", "--headless", "-", *flags],
                          input=script, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == status, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_headless_two_people_counts_from_the_leds():
    frames = run_sim("wait 100\ntap NS\ntap S3\nsow\nuntil select\ntap N2\nuntil select\n"
                     "wait 700\n", "--variant", "kalah", "--two")
    assert frames[0]["mode"] in ("boot", "menu")
    last = frames[-1]
    assert last["mode"] == "select"
    # kalah: S3 (4 stones) ends in the store: extra turn... South's pit S3 then N2 was
    # rejected (not North's turn), so South still moves
    assert last["counts"] == [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]
    assert any("red" in (f.get("bg") or []) for f in frames)  # the N2 tap flashed red
    assert all(set(f) >= {"frame", "t", "mode", "counts", "bg"} for f in frames)
    assert [f["frame"] for f in frames] == sorted({f["frame"] for f in frames})


def test_headless_against_the_computer_carries_out_its_moves():
    frames = run_sim("wait 100\ntap NS\ntap S1\nsow\nuntil show\nsow\nuntil select\n",
                     "--variant", "oware", "--level", "beginner", "--coaching", "off")
    last = frames[-1]
    assert last["mode"] == "select"
    shown = [i for f in frames if f["mode"] == "show" for i in range(7, 13)
             if f["counts"][i] is None and f["bg"][i] == "north"]  # its pit blinked
    assert shown and len(set(shown)) == 1
    from mancala.rules import get_rules

    rules = get_rules("oware")
    pos = rules.start()
    rules.move(pos, 0)
    rules.move(pos, shown[0] - 7)
    assert last["counts"] == list(pos[:14])


def test_headless_reports_bad_commands_and_goes_on():
    frames = run_sim("jump S1\ntap X9\nwait 100\n", status=1)
    errors = [f for f in frames if "error" in f]
    assert len(errors) == 2 and "jump" in errors[0]["error"]
    assert frames[-1]["mode"] == "menu"


def test_terminal_view_draws_true_colour_leds():
    args = sim.parse_args(["--headless", "-", "--variant", "kalah"])
    from mancala.hw.clock import ManualClock

    board = sim.make_board(args, clock=ManualClock(1000))
    board.run(200)
    board.tap("NS")
    out = io.StringIO()
    sim.draw(board, out)
    text = out.getvalue()
    assert "\x1b[38;2;" in text and "mode: select" in text
    assert "S1 4" in text and "NS 0" in text


def test_make_play_refuses_without_a_terminal():
    proc = subprocess.run([sys.executable, "-m", "host_tools.simulators.sim"], input="", capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and "terminal" in proc.stderr
