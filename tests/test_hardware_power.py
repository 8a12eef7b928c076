"""Issue 10, power: no 1000 uF on USB VBUS, the USB-powered build inside the
250 mA that MicroPython's rp2 port asks the PC for, and the ESP32-DevKitC
never fed by USB and its 5V pin together.  `make hardware-check` enforces
these (host_tools/generators/hardware_gen.check_power); these tests show it does."""

import copy
import os

import pytest

from host_tools.generators import hardware_model, hardware_validation

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = hardware_model.profile_names()


def test_every_build_passes_the_power_checks():
    assert hardware_validation.validate_all() == {}
    for name in NAMES:
        assert hardware_validation.check_power(name, hardware_model.BUILDS[name], hardware_model.load_profile(name)) == []


def test_usb_powered_builds_stay_inside_the_rp2_usb_descriptor():
    # old: the cheap build planned on 500 mA (current_limit_ma 350 + 100 for the Pico)
    usb = [n for n in NAMES if hardware_model.usb_powered(hardware_model.BUILDS[n])]
    assert usb == ["pico_cheap"]
    for n in usb:
        p, b = hardware_model.load_profile(n), hardware_model.BUILDS[n]
        assert p["current_limit_ma"] + b["mcu_ma"] <= hardware_model.SUPPLY_DERATING * 250


def test_the_old_cheap_build_is_rejected():
    p = hardware_model.load_profile("pico_cheap")
    old_build = dict(hardware_model.BUILDS["pico_cheap"], supply_ma=500,
                     bom=tuple((k if k != "c4u7" else "c1000u", n) for k, n in hardware_model.BUILDS["pico_cheap"]["bom"]))
    old = dict(p, current_limit_ma=350)
    assert "over the supply" in " ".join(hardware_validation.validate(old, build=hardware_model.BUILDS["pico_cheap"]))
    errs = hardware_validation.check_power("pico_cheap", dict(old_build, supply_ma=250), old)
    assert any("uF on USB VBUS" in e and "USB allows 10 uF" in e for e in errs)


def test_esp32_without_the_5v_jumper_is_rejected():
    b = copy.deepcopy(hardware_model.BUILDS["esp32"])
    b["bom"] = tuple((k, n) for k, n in b["bom"] if k != "jumper5v")
    errs = hardware_validation.check_power("esp32", b, hardware_model.load_profile("esp32"))
    assert errs and "never feed it together" in errs[0]


def test_docs_say_what_the_checks_enforce():
    with open(os.path.join(ROOT, "hardware", "power.md")) as f:
        power = f.read()
    assert "No 1000 uF here" in power and "250 mA" in power and "mutually exclusive" in power
    with open(os.path.join(ROOT, "hardware", "pico_cheap", "README.md")) as f:
        cheap = f.read()
    assert "1000 uF across" not in cheap and "4.7 uF ceramic across 5V-GND at LED 0" in cheap
    with open(os.path.join(ROOT, "hardware", "esp32", "README.md")) as f:
        assert "5V-IN jumper" in f.read()
    with open(os.path.join(ROOT, "hardware", "bringup.md")) as f:
        bring = f.read()
    assert "open('/data/board.txt','w').write" not in bring and "make deploy PROFILE=" in bring


@pytest.mark.parametrize("name", NAMES)
def test_generated_pages_have_no_500_ma_usb(name):
    with open(os.path.join(ROOT, "hardware", name, "README.md")) as f:
        assert "USB port 500 mA" not in f.read()
