"""Board profiles: the reference builds pass; a bad one is reported, never a crash."""

import pytest

from host_tools.fakes import machine, neopixel
from host_tools.fakes.board import SimBoard
from mancala import app as A
from mancala import profiles
from mancala.profile import validate


@pytest.mark.parametrize("name", profiles.NAMES)
def test_reference_profiles_are_valid(name):
    assert validate(profiles.load(name)) == []


def broken(name="pico_buttons", **changes):
    p = dict(profiles.load(name))
    for k, v in changes.items():
        if v is KeyError:
            del p[k]
        else:
            p[k] = v
    return p


BAD = [
    (dict(pit_pins=(2, 3)), "pit_pins must be 14"),
    (dict(pit_pins=(2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 22)), "already used by"),
    (dict(led_count=100), "runs past led_count"),
    (dict(leds=((0, 12),) * 14), "also used by another pit"),
    (dict(sensor="laser"), "sensor must be"),
    (dict(mcu="avr"), "mcu must be"),
    (dict(current_limit_ma=100), "leaves nothing above"),
    (dict(brightness_levels=(0, 300)), "brightness_levels"),
    (dict(tt_bits=40), "tt_bits"),
    (dict(led_pin=99), "is not a GPIO"),
    (dict(tt_bits=KeyError), "missing key 'tt_bits'"),
    (dict(switch="reed"), "switch must be 'button' or 'hall'"),
    (dict(debounce_ms=-1), "debounce_ms must be"),
    (dict(debounce_ms=500), "debounce_ms must be"),
    (dict(debounce_ms=12.5), "debounce_ms must be"),
]


@pytest.mark.parametrize("changes,words", BAD)
def test_bad_profiles_say_what_is_wrong(changes, words):
    errs = validate(broken(**changes))
    assert errs and any(words in e for e in errs), errs


def test_bad_mux_profile():
    errs = validate(broken("pico_hall", mux_adc=5, mux_channels=(0,) * 14, hall_hysteresis=0.5))
    text = "\n".join(errs)
    assert "GPIO 26, 27, 28" in text and "mux_channels" in text and "hall_hysteresis" in text


@pytest.mark.parametrize("profile", [broken(led_count=100), {"name": "x"}, ["not", "a dict"],
                                     broken(leds=None)])
def test_boot_with_a_bad_profile_blinks_and_reports(profile):
    lines = []
    b = SimBoard(profile, machine, neopixel, log=lines.append)
    assert b.app.mode == A.ERROR
    assert lines[0] == "board profile is not usable:" and len(lines) > 1
    seen = set()
    for _ in range(60):  # the status LED blinks a pattern; nothing raises
        b.clock.advance(50)
        b.app.tick()
        seen.add(machine.level(25))
    if isinstance(profile, dict) and profile.get("status_led") == 25:
        assert seen == {0, 1}


def test_main_with_an_unknown_profile_name_does_not_crash():
    lines = []
    machine.reset()
    board = A.main(profile="pico_nope", machine=machine, neopixel=neopixel,
                   log=lines.append, run=False)
    assert board.mode == A.ERROR
    assert "unknown board profile" in "\n".join(lines)


@pytest.mark.parametrize("name,bits,ok", [
    ("esp32", 10, True), ("esp32", 11, False), ("esp32", 14, False),
    ("pico_buttons", 14, True), ("pico_buttons", 15, False), ("pico_hall", 16, False),
    ("pico_cheap", 6, True), ("pico_cheap", 5, False),
])
def test_tt_bits_limit_is_what_fits_the_board(name, bits, ok):
    """The limits are those the unix-port sessions measure (tests/test_unix_session.py)."""
    errs = validate(broken(name, tt_bits=bits))
    assert (errs == []) == ok, errs
    if not ok:
        assert "tt_bits must be 6..%d" % (10 if name == "esp32" else 14) in errs[0]


def test_debounce_comes_from_the_sensor_kind():
    """Push buttons bounce, digital hall switches and linear hall sensors do not: each
    kind gets its own debounce, the profile may set its own, and the Pits of a
    board built from the profile use it."""
    from mancala.profile import DEBOUNCE_MS, debounce_ms, sensor_kind

    cases = [(broken("pico_buttons"), "button"),
             (broken("pico_buttons", switch="hall"), "hall"),
             (broken("pico_hall"), "mux")]
    assert DEBOUNCE_MS["button"] > DEBOUNCE_MS["hall"]
    for p, kind in cases:
        assert validate(p) == []
        assert sensor_kind(p) == kind
        b = SimBoard(p, machine, neopixel)
        assert b.app.pits.debounce_ms == debounce_ms(p) == DEBOUNCE_MS[kind]
    p = broken("pico_buttons", switch="hall", debounce_ms=0)
    assert SimBoard(p, machine, neopixel).app.pits.debounce_ms == 0
    assert "switch must be" in validate(broken("pico_hall", switch="hall"))[0]
