"""Issue 44, item 8: the Raspberry Pi Pico W build (RP2040 + the CYW43439 radio on
GP23, GP24, GP25 and GP29, the on-board LED on the radio): its profile, the pin rules
that keep the radio's pins free (the host's and the firmware's), no battery option,
its hardware page, and deploy's recognition of the board (the RP2040's native code,
no endgame tables on its smaller filesystem)."""

import pytest

from host_tools.generators import (
    hardware_model,
    hardware_tables,
    hardware_validation,
    pins,
    tablebase,
)
from host_tools.link import deploy_plan
from host_tools.runners.mpycompile import arch_of, march_args
from mancala import profile as check
from mancala import profiles

PICO_W_MACHINE = "Raspberry Pi Pico W with RP2040"  # sys.implementation._machine, RPI_PICO_W
RADIO = (23, 24, 25, 29)
BUILD = hardware_model.BUILDS["pico_w"]


def _host(p):
    return hardware_validation.validate(p, module="pico_w", build=BUILD)


def test_the_pico_w_profile_is_valid_and_says_it_has_wifi():
    p = profiles.load("pico_w")
    assert p["wifi"] is True and p["mcu"] == "rp2040" and p["status_led"] == "LED"
    assert check.validate(p) == [] and _host(p) == []
    assert check.pico_w(p) and not check.pico_w(profiles.load("pico_buttons"))
    assert pins.board_key(p) == "rp2040_w" and pins.board_key(profiles.load("esp32")) == "esp32"
    used = set(p["pit_pins"]) | {p["led_pin"]}
    assert not used & set(RADIO)


def _with(p, key, index, value):
    p = dict(p)
    if index is None:
        p[key] = value
    else:
        seq = list(p[key])
        seq[index] = value
        p[key] = tuple(seq)
    return p


@pytest.mark.parametrize("gp", RADIO)
@pytest.mark.parametrize("key,index", [("pit_pins", 0), ("pit_pins", 13), ("led_pin", None),
                                       ("status_led", None)])
def test_the_radio_pins_are_refused_on_a_pico_w(gp, key, index):
    p = _with(profiles.load("pico_w"), key, index, gp)
    fw = check.validate(p)
    assert any("belongs to the Pico W's radio" in e for e in fw), fw
    host = _host(p)
    assert any("GPIO %d" % gp in e and "belongs to the radio" in e for e in host), host
    # the same pin is fine on a plain Pico, where it is not the radio's (GP25 is its LED)
    plain = dict(p, wifi=False)
    if key == "status_led" and gp == 25:
        assert check.validate(plain) == []


def test_the_status_led_on_the_radio_only_on_a_pico_w():
    pico = dict(profiles.load("pico_buttons"), status_led="LED")
    assert any("status_led" in e for e in check.validate(pico))
    assert any("does not exist" in e for e in hardware_validation.validate(
        pico, module="pico_buttons", build=hardware_model.BUILDS["pico_buttons"]))
    # and "LED" is no pit on a Pico W
    p = _with(profiles.load("pico_w"), "pit_pins", 0, "LED")
    assert check.validate(p) and any("belongs to the radio" in e for e in _host(p))


def test_no_battery_on_a_pico_w_and_wifi_is_a_boolean():
    p = dict(profiles.load("pico_w"), battery={"cell_mah": 3000})
    assert any("GPIO 29" in e and "radio" in e for e in check.validate(p))
    assert any("GPIO 29" in e and "radio" in e for e in _host(p))
    odd = dict(profiles.load("pico_w"), wifi="yes")
    assert any("wifi must be True or False" in e for e in check.validate(odd))
    assert any("wifi must be True or False" in e for e in _host(odd))
    # a plain Pico keeps its battery option
    assert check.validate(dict(profiles.load("pico_buttons"), battery={"cell_mah": 3000})) == []


def test_the_pin_table_of_the_pico_w():
    w = pins.BOARDS["rp2040_w"]["pins"]
    assert {g for g in w if "radio" in w[g]} == {23, 24, 25, 29, "LED"}
    assert all(pins.pin_problems("rp2040_w", g, "pit") for g in RADIO)
    assert pins.pin_problems("rp2040_w", "LED", "status_led") == []
    assert pins.pin_problems("rp2040", 25, "status_led") == []  # the plain Pico's LED
    assert pins.header_pin("rp2040_w", "LED") == "on board"
    assert "Pico W" in pins.BOARDS["rp2040_w"]["board"]
    assert "rp2040_w" not in pins.MCUS  # a board, not an "mcu" a profile may name


def test_the_hardware_page_names_the_radio_and_no_battery():
    md = hardware_tables.render_build_md("pico_w", hardware_model.load_profile("pico_w"))
    assert "Raspberry Pi Pico W (RP2040 + CYW43439)" in md
    for gp in RADIO:
        assert "| GP%d |" % gp in md  # the radio's table
        assert "| GP%d | " % gp not in md.split("### The radio's pins")[0]  # never wired
    assert 'Pin("LED")' in md and "No battery option" in md
    assert "SC0918" in md  # the Pico W in its BOM


def test_deploy_sends_a_pico_w_the_rp2040s_native_code_and_no_tables():
    info = {"version": (1, 27, 0), "mpy": tablebase.CHIP_MPY["rp2"], "platform": "rp2",
            "free": 10 ** 6, "machine": PICO_W_MACHINE}
    chip = deploy_plan.check_board(info)
    assert chip == {"name": "Raspberry Pi Pico W (RP2040)", "plan": "rp2w", "arch": "armv6m",
                    "mcu": "rp2040", "wifi": True}
    # the board's .mpy format names its native architecture: the Pico's
    assert arch_of(info["mpy"]) == "armv6m"
    assert march_args("mancala/native.py", arch_of(info["mpy"])) == ["-march=armv6m"]
    assert deploy_plan.tables_plan(info) == {}
    assert "endgame tables none" in deploy_plan.describe_chip(chip)
    # a plain Pico still gets its tables
    plain = dict(info, machine="Raspberry Pi Pico with RP2040")
    assert deploy_plan.tables_plan(plain) == tablebase.BOARD_SEEDS["rp2"]


PICO_W_FS_KIB = 848  # MICROPY_HW_FLASH_STORAGE_BYTES of MicroPython's RPI_PICO_W


def test_the_picos_tables_would_not_fit_a_pico_w():
    """Why the plan holds none: the firmware's two slots and the Pico's tables are
    more than the Pico W's filesystem (the firmware measured as laid on it)."""
    pytest.importorskip("littlefs")
    from host_tools.link import flash_image

    firmware = flash_image.firmware_kib(mpy=tablebase.CHIP_MPY["rp2"], size=PICO_W_FS_KIB * 1024)
    tables = tablebase.tables_kib(tablebase.BOARD_SEEDS["rp2"])
    assert firmware + tables > PICO_W_FS_KIB, (firmware, tables)
