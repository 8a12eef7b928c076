"""Issue 22: the Raspberry Pi Pico 2 (RP2350, pin-compatible with the Pico): its board
profile (the Pico's wiring, its heap's table size, its flash plan for the endgame
tables, its native architecture) and deploy's recognition of the chip."""

import sys

import pytest

from host_tools.generators import (
    hardware_gen,
    hardware_model,
    hardware_tables,
    hardware_validation,
    pins,
    tablebase,
)
from host_tools.link import board_transport, deploy_plan
from mancala import profile as check
from mancala import profiles

PICO2_MACHINE = "Raspberry Pi Pico2 with RP2350"  # sys.implementation._machine, RPI_PICO2


def test_the_pico2_profile_is_valid_and_wired_as_the_pico():
    p = profiles.load("pico2_buttons")
    assert check.validate(p) == []
    assert hardware_validation.validate(p, "pico2_buttons", hardware_model.BUILDS["pico2_buttons"]) == []
    pico = profiles.load("pico_buttons")
    for key in ("pit_pins", "led_pin", "status_led", "leds", "led_count"):
        assert p[key] == pico[key], key  # pin-compatible: the same wiring
    assert p["mcu"] == "rp2350"
    assert p["tt_bits"] > pico["tt_bits"]  # twice the heap: a larger table


def test_the_profile_check_knows_the_rp2350_limits():
    p = dict(profiles.load("pico2_buttons"), tt_bits=check.TT_BITS_MAX["rp2350"] + 1)
    assert any("tt_bits" in e and "rp2350" in e for e in check.validate(p))
    p = dict(profiles.load("pico2_buttons"), led_pin=30)  # RP2350A: GPIO 0..29
    assert any("led_pin" in e for e in check.validate(p))
    assert check.TT_BITS_MAX["rp2350"] > check.TT_BITS_MAX["rp2040"]
    p = dict(profiles.load("pico_hall"), mcu="rp2350", mux_adc=20)
    assert any("mux_adc" in e for e in check.validate(p))


def test_hardware_check_covers_the_pico2_build():
    assert "pico2_buttons" in hardware_model.profile_names()
    assert pins.MCUS["rp2350"]["board"] == "Raspberry Pi Pico 2 (RP2350)"
    md = hardware_tables.render_build_md("pico2_buttons", hardware_model.load_profile("pico2_buttons"))
    assert "Raspberry Pi Pico 2 (RP2350)" in md and "VSYS (pin 39)" in md
    assert "erratum E9" in md
    assert hardware_gen.main(["--check"]) == 0  # generated files up to date


def test_the_pico2_flash_plan_uses_its_4_mb():
    pytest.importorskip("littlefs")  # (board_plan measures the firmware in a littlefs image)
    plan, left = tablebase.board_plan("rp2350")
    assert left >= 0
    assert plan == tablebase.BOARD_SEEDS["rp2350"]
    rp2 = tablebase.BOARD_SEEDS["rp2"]
    assert all(plan[v] >= n for v, n in rp2.items()) and plan["kalah"] == 10
    assert len(plan) > len(rp2)  # every variant's table, the Pico two of them
    assert tablebase.platform_of("rp2350") == "rp2350"


def _info(machine, platform="rp2"):
    return {"version": (1, 27, 0), "mpy": 6 | 3 << 8, "platform": platform, "free": 10 ** 6,
            "machine": machine}


def test_deploy_recognises_a_pico2_and_plans_its_tables():
    info = _info(PICO2_MACHINE)
    chip = deploy_plan.check_board(info)
    assert chip == {"name": "Raspberry Pi Pico 2 (RP2350)", "plan": "rp2350", "arch": "armv7emsp",
                    "mcu": "rp2350", "wifi": False}
    assert deploy_plan.tables_plan(info) == tablebase.BOARD_SEEDS["rp2350"]
    line = deploy_plan.describe_chip(chip)
    assert "Pico 2 (RP2350)" in line and "kalah 10 seeds" in line and "armv7emsp" in line
    # the Pico and an ESP32 as before; a board that sends no _machine (older info line)
    assert deploy_plan.check_board(_info("Raspberry Pi Pico with RP2040"))["plan"] == "rp2"
    assert deploy_plan.tables_plan(_info("")) == tablebase.BOARD_SEEDS["rp2"]
    assert deploy_plan.chip_of(_info("Generic ESP32 module with ESP32", "esp32"))["arch"] == "xtensawin"
    assert deploy_plan.chip_of(_info("", "webassembly")) is None
    assert "not one deploy knows" in deploy_plan.describe_chip(None)


def test_the_info_line_carries_the_machine():
    """The board's info line (run here in the MicroPython VM) ends with its _machine."""
    import ast

    from host_tools.runners import mpvm

    if not mpvm.available():
        pytest.skip("run `make setup`")
    line = [x for x in mpvm.run(board_transport.BOARD_INFO).splitlines() if x.startswith("I ")][0]
    fields = ast.literal_eval(line[2:])
    assert len(fields) == 5 and isinstance(fields[4], str)


def test_a_pico2_without_board_txt_boots_its_own_profile(monkeypatch):
    from mancala.modes import start

    class Impl:
        _machine = PICO2_MACHINE

    monkeypatch.setattr(sys, "implementation", Impl)
    monkeypatch.setattr(sys, "platform", "rp2")
    assert start.default_profile() == "pico2_buttons"
    Impl._machine = "Raspberry Pi Pico with RP2040"
    assert start.default_profile() == profiles.DEFAULT


@pytest.mark.parametrize("name", ["pico_buttons", "pico2_buttons"])
def test_the_heap_figures_cover_each_pico(name):
    from host_tools.benches import session

    assert profiles.load(name)["mcu"] in session.FREE_32
