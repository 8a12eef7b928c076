"""Every board profile is valid for its microcontroller and its supply; broken ones are rejected."""

import copy
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host_tools.generators import hardware_model, hardware_validation, pins

NAMES = hardware_model.profile_names()
PROFILES = {n: hardware_model.load_profile(n) for n in NAMES}


def test_names_match_files_and_builds():
    files = sorted(f[:-3] for f in os.listdir(hardware_model.PROFILE_DIR)
                   if f.endswith(".py") and f != "__init__.py")
    assert sorted(NAMES) == files
    assert set(NAMES) <= set(hardware_model.BUILDS)
    assert {"pico_buttons", "pico_hall", "esp32"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_profile_is_valid(name):
    assert hardware_validation.validate(PROFILES[name], module=name, build=hardware_model.BUILDS[name]) == []


@pytest.mark.parametrize("name", NAMES)
def test_firmware_load_returns_the_same_data(name):
    from mancala import profiles
    assert profiles.load(name) == PROFILES[name]
    assert profiles.load(name.replace("_", "-")) == PROFILES[name]


def test_firmware_load_rejects_unknown_names():
    from mancala import profiles
    with pytest.raises(ValueError):
        profiles.load("os")


def _pin_jobs(p):
    jobs = [(p["led_pin"], "led")]
    if p["status_led"] is not None:
        jobs.append((p["status_led"], "status_led"))
    if p["sensor"] == "gpio":
        jobs += [(x, "pit") for x in p["pit_pins"]]
    else:
        jobs += [(x, "mux_select") for x in p["mux_select"]] + [(p["mux_adc"], "mux_adc")]
    return jobs


@pytest.mark.parametrize("name", NAMES)
def test_every_pin_exists_can_do_its_job_and_is_used_once(name):
    p = PROFILES[name]
    jobs = _pin_jobs(p)
    board = pins.board_key(p)  # its MCU's table, or a Pico W's
    for pin, job in jobs:
        assert pins.exists(board, pin), (pin, job)
        assert pins.pin_problems(board, pin, job) == [], (pin, job)
    used = [pin for pin, _ in jobs]
    assert len(used) == len(set(used))


@pytest.mark.parametrize("name", NAMES)
def test_led_spans_inside_chain_and_disjoint(name):
    p = PROFILES[name]
    seen = set()
    for first, count in p["leds"]:
        assert count >= 1 and first >= 0 and first + count <= p["led_count"]
        span = set(range(first, first + count))
        assert not span & seen
        seen |= span


@pytest.mark.parametrize("name", NAMES)
def test_current_budget_holds_at_every_brightness(name):
    p, b = PROFILES[name], hardware_model.BUILDS[name]
    assert p["current_limit_ma"] + b["mcu_ma"] <= hardware_model.SUPPLY_DERATING * b["supply_ma"]
    for level in p["brightness_levels"]:
        white = [(level, level, level)] * p["led_count"]
        assert hardware_model.frame_current_ma(p, hardware_model.scale_frame(p, white)) <= p["current_limit_ma"]
    # at full brightness the big builds really need the budget
    if p["led_count"] > 100:
        assert hardware_model.worst_case_ma(p, 255) > p["current_limit_ma"]


class _FakeChain:
    ORDER = (1, 0, 2, 3)

    def __init__(self, n):
        self.buf = bytearray(3 * n)

    def write(self):
        pass


@pytest.mark.parametrize("name", NAMES)
def test_firmware_pixels_respect_the_profile_budget(name):
    """The firmware's own budget (mancala.hw.pixels), fed with each profile, all LEDs white."""
    pixels = pytest.importorskip("mancala.hw.pixels")
    p = PROFILES[name]
    px = pixels.Pixels(_FakeChain(p["led_count"]), p["leds"], p["led_count"],
                       ma_per_channel=p["ma_per_channel"], idle_ma_per_led=p["idle_ma_per_led"],
                       current_limit_ma=p["current_limit_ma"], levels=p["brightness_levels"],
                       level=len(p["brightness_levels"]) - 1)
    for level in range(len(p["brightness_levels"])):
        px.set_level(level)
        for i in range(p["led_count"]):
            px.led(i, (255, 255, 255))
        px.show()
        assert px.estimate_ma(p["idle_ma_per_led"]) <= p["current_limit_ma"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(NAMES), st.data())
def test_scale_frame_never_exceeds_the_limit(name, data):
    p = PROFILES[name]
    chan = st.integers(0, 255)
    frame = data.draw(st.lists(st.tuples(chan, chan, chan), min_size=p["led_count"],
                               max_size=p["led_count"]))
    out = hardware_model.scale_frame(p, frame)
    assert hardware_model.frame_current_ma(p, out) <= p["current_limit_ma"]
    if hardware_model.frame_current_ma(p, frame) <= p["current_limit_ma"]:
        assert out == frame
    assert all(o <= f for fo, oo in zip(frame, out, strict=True) for f, o in zip(fo, oo, strict=True))


def test_profiles_are_plain_literals():
    for name in NAMES:
        with open(os.path.join(hardware_model.PROFILE_DIR, name + ".py")) as f:
            hardware_model.parse_profile_source(f.read())
    with pytest.raises(ValueError):
        hardware_model.parse_profile_source("PROFILE = dict(name='x')\n")
    with pytest.raises(ValueError):
        hardware_model.parse_profile_source("import os\nPROFILE = {}\n")


# --- broken profiles must be rejected -------------------------------------------------

def _set(key, value):
    def f(p):
        p[key] = value
    return f


def _set_item(key, index, value):
    def f(p):
        seq = list(p[key])
        seq[index] = value
        p[key] = tuple(seq)
    return f


BROKEN = [
    # (base profile, mutation, expected words in an error)
    ("pico_buttons", _set_item("pit_pins", 0, 30), "does not exist"),
    ("pico_buttons", _set_item("pit_pins", 0, 24), "used on the board"),
    ("pico_buttons", _set_item("pit_pins", 0, 23), "used on the board"),
    ("pico_buttons", _set_item("pit_pins", 0, True), "does not exist"),
    ("pico_buttons", _set_item("pit_pins", 1, 2), "used twice"),
    ("pico_buttons", _set("led_pin", 2), "used twice"),
    ("pico_buttons", _set("led_pin", 25), "used on the board"),
    ("pico_buttons", _set("pit_pins", (2, 3, 4)), "14 GPIOs"),
    ("pico_buttons", _set_item("leds", 13, (170, 18)), "outside the chain"),
    ("pico_buttons", _set_item("leds", 1, (6, 12)), "belongs to both"),
    ("pico_buttons", _set_item("leds", 1, (12, 0)), "outside the chain"),
    ("pico_buttons", _set("current_limit_ma", 3000), "over the supply"),
    ("pico_buttons", _set("current_limit_ma", 150), "no room for colour"),
    ("pico_buttons", _set("brightness_levels", (64, 24)), "increasing"),
    ("pico_buttons", _set("brightness_levels", (24, 300)), "increasing"),
    ("pico_buttons", _set("name", "pico-button"), "module name"),
    ("pico_buttons", _set("mcu", "avr"), "unknown mcu"),
    ("pico_buttons", _set("mux_adc", 26), "unexpected key"),
    ("pico_buttons", _set("tt_bits", 30), "tt_bits"),
    ("pico_hall", _set("mux_adc", 22), "no ADC"),
    ("pico_hall", _set_item("mux_select", 0, 26), "used twice"),
    ("pico_hall", _set_item("mux_channels", 0, 1), "used twice"),
    ("pico_hall", _set_item("mux_channels", 0, 16), "0..15"),
    ("pico_hall", _set("hall_hysteresis", 0.2), "hysteresis"),
    ("pico_hall", _set("hall_threshold", 0.9), "hall_threshold"),
    ("esp32", _set_item("pit_pins", 0, 34), "no internal pull-up"),
    ("esp32", _set_item("pit_pins", 0, 12), "strapping"),
    ("esp32", _set_item("pit_pins", 0, 0), "strapping"),
    ("esp32", _set_item("pit_pins", 0, 2), "strapping"),
    ("esp32", _set_item("pit_pins", 0, 5), "strapping"),
    ("esp32", _set_item("pit_pins", 0, 15), "strapping"),
    ("esp32", _set_item("pit_pins", 0, 7), "flash"),
    ("esp32", _set_item("pit_pins", 0, 1), "console"),
    ("esp32", _set_item("pit_pins", 0, 20), "does not exist"),
    ("esp32", _set_item("pit_pins", 0, 37), "does not exist"),
    ("esp32", _set("led_pin", 35), "input only"),
    ("esp32", _set("led_pin", 14), "during boot"),
    ("esp32", _set("status_led", 39), "input only"),
    ("esp32", _set("current_limit_ma", 2400), "over the supply"),
    ("pico_cheap", _set("current_limit_ma", 900), "over the supply"),
]


def _esp32_mux():
    """An ESP32 profile with the hall multiplexer (to test ADC rules on the ESP32)."""
    p = copy.deepcopy(PROFILES["esp32"])
    del p["pit_pins"]
    hall = PROFILES["pico_hall"]
    p.update(sensor="mux", mux_select=(16, 17, 18, 19), mux_adc=34,
             mux_channels=hall["mux_channels"], hall_threshold=hall["hall_threshold"],
             hall_hysteresis=hall["hall_hysteresis"])
    return p


@pytest.mark.parametrize("base,mutate,words", BROKEN, ids=[
    "%s-%d-%s" % (b, i, w.replace(" ", "_")) for i, (b, _m, w) in enumerate(BROKEN)])
def test_broken_profile_is_rejected(base, mutate, words):
    p = copy.deepcopy(PROFILES[base])
    assert hardware_validation.validate(p, module=base, build=hardware_model.BUILDS[base]) == []
    mutate(p)
    errors = hardware_validation.validate(p, module=base, build=hardware_model.BUILDS[base])
    assert any(words in e for e in errors), errors


@pytest.mark.parametrize("adc,ok", [(34, True), (35, True), (36, True), (39, True), (32, True),
                                    (4, False), (25, False), (26, False), (27, False),
                                    (13, False), (14, False), (0, False), (2, False),
                                    (21, False)])
def test_esp32_mux_adc_only_on_adc1(adc, ok):
    p = _esp32_mux()
    p["mux_adc"] = adc
    errors = hardware_validation.validate(p, module="esp32", build=hardware_model.BUILDS["esp32"])
    assert (errors == []) == ok, errors
    if not ok and adc not in (0, 2, 21):
        assert any("ADC2" in e for e in errors)


def test_pin_tables():
    esp, pico = pins.MCUS["esp32"]["pins"], pins.MCUS["rp2040"]["pins"]
    assert all("flash" in esp[g] for g in range(6, 12))
    assert all("pull" not in esp[g] and "out" not in esp[g] for g in (34, 35, 36, 39))
    assert {g for g in esp if "adc2" in esp[g]} == {0, 2, 4, 12, 13, 14, 15, 25, 26, 27}
    assert {g for g in esp if "strap" in esp[g]} == {0, 2, 5, 12, 15}
    assert {g for g in pico if "adc" in pico[g]} == {26, 27, 28, 29}
    assert {g for g in pico if "onboard" in pico[g]} == {23, 24, 25, 29}
    assert set(pico) == set(range(30))


def test_profiles_load_in_the_micropython_vm():
    from host_tools.runners import mpvm
    if not mpvm.available():
        pytest.skip("MicroPython VM not installed (make setup)")
    out = mpvm.run(
        "from mancala import profiles\n"
        "for n in profiles.NAMES:\n"
        "    p = profiles.load(n)\n"
        "    print(n, p['name'], p['led_count'], len(p['leds']))\n")
    lines = out.split("\n")
    for name in NAMES:
        p = PROFILES[name]
        assert "%s %s %d 14" % (name, p["name"], p["led_count"]) in lines


@pytest.mark.parametrize("name", NAMES)
def test_firmware_boot_check_accepts_the_profile(name):
    """The firmware's own boot-time check (mancala.profile) agrees with the host validator."""
    check = pytest.importorskip("mancala.profile")
    assert check.validate(PROFILES[name]) == []
