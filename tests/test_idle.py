"""Idle sleep, waking, the battery's warning and its brown-out (issue 25, mancala/idle.py),
frame by frame on the simulated board with the clock it turns."""

import pytest
from board_helpers import SETTINGS, board, start, to_select

from host_tools.fakes import machine, neopixel
from host_tools.fakes.board import SimBoard
from host_tools.fakes.memfs import MemFs
from mancala import idle as I
from mancala import profiles
from mancala.hw.storage import Storage
from mancala.modes import THINK
from mancala.power import POWER_CODE

MIN = 60000


def battery_profile(**kw):
    p = dict(profiles.load("pico_buttons"))
    p["battery"] = {"cell_mah": 3000}
    p["led_power_pin"] = 16
    p.update(kw)
    return p


class Frames:
    """Every LED write, as (clock ms, idle state, buffer)."""

    def __init__(self, b):
        self.b = b
        self.list = []

    def __enter__(self):
        b = self.b
        neopixel.on_write = lambda np: self.list.append(
            (b.clock.now(), b.app.idle.state_name(), bytes(np.buf)))
        return self

    def __exit__(self, *exc):
        neopixel.on_write = None

    def since(self, t):
        return [f for f in self.list if f[0] >= t]


def lit(buf):
    """The LEDs lit in a GRB buffer."""
    return [i // 3 for i in range(0, len(buf), 3) if buf[i] or buf[i + 1] or buf[i + 2]]


def a_game(idle=2, profile="pico_buttons", fs=None):
    """A game of two people on `profile`, North to move."""
    fs = fs or MemFs()
    s = dict(SETTINGS, opponent=0, idle=idle)
    Storage(fs).save("settings.json", s)
    b = SimBoard(profile, machine, neopixel, fs=fs, seed=5, strict=True)
    if b.profile.get("battery"):
        b.set_battery(3900)
    start(b)
    b.play_move(0)  # S1: North to move
    assert b.until(("select",), 3000) and b.app.game.side == 1
    return b


def test_idle_dims_then_darkens_and_the_waking_press_is_not_played():
    b = a_game(idle=2)
    app = b.app
    before = bytes(b.np.buf)
    ply = app.game.ply
    with Frames(b) as fr:
        t0 = b.clock.now()
        b.run(2 * MIN - 1000)
        assert app.idle.state == I.AWAKE and bytes(b.np.buf) == before
        b.run(2000)
        assert app.idle.state == I.DIM
        t_dim = b.clock.now()
        b.run(8000)  # two breaths
        dim = [f for f in fr.since(t0) if f[1] == "dim"]
        store = app.spans[13][0]  # North to move: the North store's first LED breathes
        assert len(dim) >= 60 and all(lit(f[2]) == [store] for f in dim)
        levels = sorted(set(max(f[2][3 * store:3 * store + 3]) for f in dim))
        assert len(levels) >= 5 and levels[-1] > 3 * levels[0]  # it breathes
        assert machine.freq() == 125000000
        b.run(3 * 2 * MIN - (b.clock.now() - t_dim) - 2 * MIN + 500)
        assert app.idle.state == I.DARK
        assert bytes(b.np.buf) == bytes(len(before))  # dark
        assert machine.freq() == 48000000  # the profile's idle_hz
        t_dark = b.clock.now()
        b.run(10 * MIN)
        assert fr.since(t_dark + 100) == []  # no frame written while dark
        assert app.game.ply == ply and b.mode() == "select"
        # wake with N2, a legal pit for North: the state left is back at once
        b.press("N2")
        b.run(100)
        assert app.idle.state == I.WAKING and machine.freq() == 125000000
        woke = fr.list[-1][2]
        n2 = app.spans[8]
        skip = set(range(n2[0], n2[0] + n2[1]))  # (the finger's white dot on N2)
        assert [woke[i] for i in range(len(woke)) if i // 3 not in skip] == \
            [before[i] for i in range(len(before)) if i // 3 not in skip]
        b.release("N2")
        b.run(300)
    assert app.idle.state == I.AWAKE
    assert b.mode() == "select" and app.game.ply == ply and app.game.side == 1
    assert bytes(b.np.buf) == before  # exactly the state it left
    b.tap("N2")  # a press now plays
    assert b.mode() == "sow"


@pytest.mark.parametrize("gesture", ["chord", "hold"])
def test_a_waking_chord_or_hold_does_nothing_either(gesture):
    b = a_game(idle=2)
    b.run(2 * MIN + 500)
    assert b.app.idle.state == I.DIM
    if gesture == "chord":
        b.chord(["SS", "NS"], 3000)  # the menu's gesture
    else:
        b.hold("N3", 2000)
    b.run(300)
    assert b.app.idle.state == I.AWAKE and b.mode() == "select" and b.app.show_count_pit < 0


def test_the_computer_never_ponders_into_an_empty_room_and_resumes_on_waking():
    b = board("pico_buttons", opponent=4, idle=2)
    app = b.app
    app.PONDER_NODES = 1 << 28  # (a ponder that outlasts the quiet time)
    start(b)
    b.play_move(0)
    to_select(b)
    b.run(2000)
    e = app.engine
    assert app.pondering and not e.done
    app.idle.t_active -= 2 * MIN  # (the quiet time passed: the test need not ponder it out)
    b.run(100)
    assert app.idle.state == I.DIM
    nodes, ms = e.nodes, app.ponder_ms
    b.run(10 * MIN)  # dim, then dark
    assert app.idle.state == I.DARK
    assert (e.nodes, app.ponder_ms) == (nodes, ms)
    b.tap("N1")
    b.run(1000)
    assert app.idle.state == I.AWAKE and app.pondering and e.nodes > nodes


def test_no_idle_while_the_computer_thinks():
    b = a_game(idle=2)
    app = b.app
    app.idle.t_active -= 60 * MIN
    app.mode = THINK
    assert app.idle.turn(app, b.clock.now()) is False and app.idle.state == I.AWAKE


def test_the_idle_setting_is_a_menu_item_saved_and_old_settings_load():
    fs = MemFs()
    b = board("pico_buttons", fs=fs, opponent=0)  # an old settings file: no "idle"
    assert b.app.settings["idle"] == 10
    assert b.until(("menu",), 5000)
    b.tap("S6")  # the brightness
    b.tap("S6")  # again: the idle time
    counts = b.counts()
    assert counts[7:13] == [1, 2, 3, 4, 5, 6]
    b.tap("N1")  # off
    assert b.app.settings["idle"] == 0
    assert Storage(fs).load("settings.json")[1]["idle"] == 0
    b2 = SimBoard("pico_buttons", machine, neopixel, fs=fs, seed=5)  # a power cut
    assert b2.app.settings["idle"] == 0
    start(b2)
    b2.run(11 * MIN)  # past the default 10
    assert b2.app.idle.state == I.AWAKE


def test_lightsleep_where_the_profile_says_it_works():
    b = a_game(profile=battery_profile(idle_sleep="lightsleep"))
    slept = []
    machine._lightsleep[0] = lambda ms: (slept.append(ms), b.clock.sleep(ms))
    b.run(7 * MIN)
    assert b.app.idle.state == I.DARK and slept and set(slept) == {40}
    assert machine.level(16) == 0  # the LEDs' supply off
    b.tap("N1")
    b.run(300)
    assert b.app.idle.state == I.AWAKE and machine.level(16) == 1


def test_low_battery_warns_in_light():
    b = a_game(profile=battery_profile())
    with Frames(b) as fr:
        b.run(3000)
        assert not b.app.idle.watch.low
        t = b.clock.now()
        b.set_battery(3550)
        b.run(5000)
        assert b.app.idle.watch.low
        ss, ns = b.app.spans[6], b.app.spans[13]
        leds = list(range(ss[0], ss[0] + ss[1])) + list(range(ns[0], ns[0] + ns[1]))
        red = [f for f in fr.since(t) if all(f[2][3 * i + 1] > 0 and f[2][3 * i] == 0
                                              for i in leds)]
        assert len(red) >= 3  # the stores blink red (G R B: red in byte 1)
        assert b.mode() == "select" and b.counts()[:6] == [0, 5, 5, 5, 5, 4]


def test_a_brown_out_during_a_game_saves_goes_dark_and_the_game_resumes():
    fs = MemFs()
    b = a_game(profile=battery_profile(), fs=fs)
    app = b.app
    b.play_move(7)  # N1
    assert b.until(("select",), 3000) and app.game.side == 0
    b.tap("S2")  # a move being sown: its first stone dropped
    b.tap(b.target())
    assert b.mode() == "sow"
    pos = bytes(app.game.pos)
    rec = Storage(fs).load("game.json")[1]["record"]
    b.set_battery(3400)  # below the safe 3450 mV
    b.run(8000)
    assert app.idle.state == I.OFF
    assert bytes(b.np.buf) == bytes(len(b.np.buf)) and machine.level(16) == 0
    assert Storage(fs).load("power.json")[1]["why"] == "battery"
    assert Storage(fs).load("game.json")[1]["record"] == rec
    b.tap("N1")  # a press does not wake a board whose battery is empty
    b.run(3000)
    assert app.idle.state == I.OFF and bytes(app.game.pos) == pos
    # the chip browns out; charged, it boots again
    b2 = SimBoard(battery_profile(), machine, neopixel, fs=fs, seed=5)
    b2.set_battery(4700)
    assert b2.mode() == "boot" and b2.app.boot_codes == [POWER_CODE]
    with Frames(b2) as fr:
        assert b2.until(("select",), 10000)
    amber = [f for f in fr.list if len(lit(f[2])) == 12 * 12]  # the 12 pits, not the stores
    assert len(amber) >= 5
    assert bytes(b2.app.game.pos) == pos and b2.app.game.ply == app.game.ply
    assert Storage(fs).load("power.json")[0] != 0  # said once
    assert b2.app.blink_mask  # the pits of the move being sown blink to be put back


def test_power_back_before_the_chip_browns_out_wakes_and_says_why():
    fs = MemFs()
    b = a_game(profile=battery_profile(), fs=fs)
    before = bytes(b.np.buf)
    b.set_battery(3300)
    b.run(8000)
    assert b.app.idle.state == I.OFF
    with Frames(b) as fr:
        b.set_battery(4700)  # USB plugged in
        b.run(6000)
        assert b.app.idle.state == I.AWAKE and b.app.idle.watch.note == 0
    assert any(len(lit(f[2])) >= 12 * 12 for f in fr.list)  # the code was shown
    assert bytes(b.np.buf) == before and Storage(fs).load("power.json")[0] != 0


@pytest.mark.parametrize("profile,hz", [("pico_hall", 48000000), ("pico_cheap", 48000000),
                                        ("esp32", 80000000)])
def test_every_build_dims_darkens_and_wakes_unplayed(profile, hz):
    b = a_game(idle=2, profile=profile)
    app = b.app
    before, ply = bytes(b.np.buf), app.game.ply
    b.run(2 * MIN + 500)
    assert app.idle.state == I.DIM and lit(b.np.buf) == [app.spans[13][0]]
    b.run(4 * MIN)
    assert app.idle.state == I.DARK and not any(b.np.buf) and machine.freq() == hz
    b.tap("N2")  # (the hall build: a magnet on its sensor, read through the mux's ADC)
    b.run(300)
    assert app.idle.state == I.AWAKE and app.game.ply == ply and bytes(b.np.buf) == before
    assert machine.freq() == 125000000
