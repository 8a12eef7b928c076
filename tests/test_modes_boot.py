"""modes/boot.py, modes/power_on.py, modes/errors.py and the interface (modes/__init__)
alone: the boot codes, the power-on tests, the registry, the error board."""

import sys

from modes_helpers import FakeApp, mode

from mancala import modes as M
from mancala.hw import pits as P
from mancala.hw.clock import ManualClock


def test_boot_codes_blink_their_time_and_any_press_skips_them():
    app = FakeApp()
    app.mode = M.BOOT
    app.boot_codes = [2, 3]
    boot = mode(M.BOOT)
    total = (2 * 2 + 3 + 2 * 3 + 3) * app.BOOT_BLINK_MS
    assert boot.tick(app, 0, total - 1) is None
    assert boot.tick(app, 0, total) == M.MENU
    counts, bgs = app.draw(el=0)
    assert bgs[6] == bgs[13] == "amber" and bgs[0] != "amber"  # code 2: the stores
    counts, bgs = app.draw(el=7 * app.BOOT_BLINK_MS)
    assert bgs[0] == "amber" and bgs[6] != "amber"  # code 3: the pits
    boot.on_event(app, P.TAP, 4)
    assert app.modes_asked() == [M.MENU]


def test_the_led_test_steps_then_goes_on_and_the_sensor_test_lights_the_pressed():
    app = FakeApp()
    app.mode = M.LED_TEST
    led = mode(M.LED_TEST)
    assert app.draw(el=0)[1] == ["red"] * 14
    assert app.draw(el=4 * app.LED_TEST_STEP_MS)[0] == list(range(1, 15))
    led.tick(app, 0, 7 * app.LED_TEST_STEP_MS - 1)
    assert app.modes_asked() == []
    app.boot_codes = [2]
    led.tick(app, 0, 7 * app.LED_TEST_STEP_MS)
    assert app.modes_asked() == [M.BOOT]  # the codes still to show
    app.mode = M.SENSOR_TEST
    app.pits = type("Pits", (), {"stable": 1 << 4, "ignored": 1 << 9 | 1 << 4})()
    counts, bgs = app.draw()
    assert counts[4] is None and bgs[4] == "red" and counts[5] == 0
    mode(M.SENSOR_TEST).on_event(app, P.LONG, (1 << 6) | (1 << 13))
    assert app.modes_asked()[-1] == M.BOOT
    assert not M.MODES[M.SENSOR_TEST].touch and mode(M.BOOT).status_blink  # (loaded here when run alone)


def test_a_new_mode_gets_the_next_number_and_a_family_is_imported_when_first_needed():
    class Puzzle(M.Mode):
        name = "test_puzzle"

    n = M.add(Puzzle())
    try:
        assert M.NAMES[n] == "test_puzzle" and M.MODES[n].name == "test_puzzle"
        assert M.add(Puzzle()) == n  # imported again: the same number
        assert M.MODES[n].tick(None, 0, 0) is None  # the hooks it does not implement
        k = M.family("test_lesson", "power_on")  # (an existing module stands in)
        assert M.MODES[k] is None and M.FAMILY[k] == "power_on"
        M.put(k, Puzzle())
        assert M.load(k) is M.MODES[k]
    finally:
        del M.NAMES[n:], M.MODES[n:], M.FAMILY[n:]


def test_the_pc_keeps_every_modes_module():
    mode(M.BOOT)
    mode(M.LED_TEST)
    M.forget_others(M.SELECT)
    assert "mancala.modes.boot" in sys.modules and M.MODES[M.LED_TEST] is not None


def test_the_error_board_blinks_and_says_why_every_ten_seconds():
    from host_tools.fakes import neopixel
    from mancala.modes.errors import ErrorBoard

    clock = ManualClock()
    lines = []
    np = neopixel.NeoPixel(None, 14)
    eb = ErrorBoard(["the profile is broken"], None, clock, lines.append, np)
    eb.tick()
    assert np.buf[:3] != bytearray(3) and lines[-1] == "  the profile is broken"
    clock.advance(150)
    eb.tick()
    assert np.buf == bytearray(42)
    clock.advance(10000)
    eb.tick()
    assert lines.count("  the profile is broken") == 2


def test_on_micropython_the_boots_and_the_tests_modules_go_once_the_loop_leaves_them():
    """In the unix port (a GC that frees): the boot's and the power-on tests' modules are
    dropped when the loop leaves them; the menu's and the game's are imported when
    needed and dropped when the loop goes from one to the other (modes.GROUPS)."""
    import os

    import pytest

    from host_tools.runners import mpunix

    if not mpunix.available():
        pytest.skip("run `make setup`")
    fakes = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "host_tools", "fakes")
    code = r'''
import gc, sys
import machine, neopixel
from memfs import MemFs
from board import SimBoard
from mancala.hw.storage import Storage
fs = MemFs()
Storage(fs).save("settings.json", {"variant": "kalah3", "opponent": 0, "starter": 0,
                                   "coaching": 0, "hints": 3, "brightness": 1, "quick": 0})
def held():
    return " ".join(sorted(k[14:] for k in sys.modules if k.startswith("mancala.modes.")))
b = SimBoard("pico_buttons", machine, neopixel, fs=fs, seed=3, held=("SS",))
print("TEST", held(), b.mode())
b.release("SS")
b.run(5000)
print("MENU", held(), b.mode())
b.tap("NS")
b.play_move(0)
print("GAME", held())
b.hold(("SS", "NS"), 3000)
print("MENU", held(), b.mode())
'''
    out = mpunix.run(code, mpy=True, mounts=[(fakes, "/lib")]).split("\n")
    # the menu and a game never hold each other's code (modes.GROUPS: issue 15's heap);
    # activities.py (the puzzles' numbers and menu entries) goes at the end of the boot
    assert out[0] == "TEST power_on led_test"
    assert out[1] == "MENU menu menu"
    assert out[2] == "GAME game play"  # (coaching off: the coach is imported when it first grades)
    assert out[3] == "MENU menu menu"
