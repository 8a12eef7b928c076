"""The simulators show the idle states and a simulated battery (issue 25): the terminal
simulator's headless script and screen line, the browser page's glue (webboard.py)."""

import io
import json
import os
import sys

from host_tools.simulators import sim

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "host_tools", "simulators", "web"))

from webboard import WebBoard  # noqa: E402


def test_headless_battery_command_idle_and_the_waking_tap():
    args = sim.parse_args(["--headless", "-", "--battery", "3900", "--two"])
    board = sim.make_board(args)
    out = io.StringIO()
    errors = sim.run_script(board, ["until menu 5000", "tap NS", "battery 3550", "wait 3000"],
                            out)
    assert errors == 0 and board.app.idle.watch.low
    assert "battery 3550 mV" in sim._power_line(board) and "LOW" in sim._power_line(board)
    board.app.settings["idle"] = 2  # (as the menu sets it: a shorter wait)
    errors = sim.run_script(board, ["wait 120000", "wait 1000"], out)
    assert errors == 0 and board.app.idle.state_name() == "dim"
    assert "dim" in sim._power_line(board)
    errors = sim.run_script(board, ["tap S1", "wait 300"], out)
    last = json.loads(out.getvalue().splitlines()[-1])
    assert errors == 0 and last["mode"] == "select" and last["counts"][0] == 4  # not played
    plain = sim.make_board(sim.parse_args(["--headless", "-"]))
    out = io.StringIO()
    assert sim.run_script(plain, ["battery 3500"], out) == 1
    assert "no battery" in out.getvalue()


def test_terminal_keys_skip_the_quiet_time_and_move_the_cell():
    board = sim.make_board(sim.parse_args(["--headless", "-", "--battery", "3900", "--two"]))
    cell = [3900, False]
    board.run(500)
    assert sim.power_key(board, "z", cell)
    board.run(100)
    assert board.app.idle.state_name() == "dim"
    assert sim.power_key(board, "z", cell)
    board.run(100)
    assert board.app.idle.state_name() == "dark"
    for _ in range(8):
        sim.power_key(board, "-", cell)
    board.run(100)
    assert board.app.idle.watch.battery.mv == 3500 and board.app.idle.watch.low
    sim.power_key(board, "p", cell)
    board.run(100)
    assert board.app.idle.watch.battery.on_usb() and "on USB" in sim._power_line(board)


def test_the_page_shows_the_idle_state_and_a_battery_level():
    wb = WebBoard("pico_cheap+battery")
    wb.step(3000)
    p = json.loads(wb.power())
    assert p["idle"] == "awake" and p["mv"] == 3900 and not p["low"] and p["after"] == 10
    wb.set_battery(3550)
    wb.step(100)
    assert json.loads(wb.power())["low"]
    wb.idle_now()
    assert wb.step(100)  # the dim frame is handed to the page (no frame_no of its own)
    assert json.loads(wb.power())["idle"] == "dim"
    wb.set_battery(3300)
    for _ in range(40):
        wb.step(250)
    assert json.loads(wb.power())["idle"] == "off"
    wb.set_battery(4700)
    for _ in range(12):
        wb.step(250)
    p = json.loads(wb.power())
    assert p["idle"] == "awake" and p["usb"]
    assert json.loads(WebBoard("pico_buttons").power()).get("mv") is None
