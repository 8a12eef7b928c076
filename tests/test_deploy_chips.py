"""What deploy sends a chip (host_tools/link/deploy_plan.for_chip): flash is what a
board runs short of first (its endgame tables' plan, tests/test_tablebase.py), so a
board without Wi-Fi is sent no online package and a board only its own chip's
profiles; the firmware refuses a profile that was not sent with one line."""

import pytest

from host_tools.link import deploy_plan
from host_tools.link.board_transport import DeployError

ALL_PROFILES = ("pico_buttons", "pico_hall", "esp32", "pico_cheap", "pico2_buttons", "pico_w")


def sent(plan_key):
    chip = deploy_plan.chip_named(plan_key) if plan_key else None
    _version, _root, slot, _fmt = deploy_plan.build(deploy_plan.DEFAULT_SRC, None, chip=chip)
    return set(slot)


def profiles_in(files):
    return {f.split("/")[-1][:-3] for f in files
            if f.startswith("mancala/profiles/") and not f.endswith("__init__.py")}


@pytest.mark.parametrize("plan_key, wifi, profiles", [
    ("rp2", False, {"pico_buttons", "pico_hall", "pico_cheap", "pico_w"}),
    ("rp2w", True, {"pico_buttons", "pico_hall", "pico_cheap", "pico_w"}),
    ("rp2350", False, {"pico2_buttons"}),
    ("esp32", True, {"esp32"}),
    (None, True, set(ALL_PROFILES)),  # a chip deploy does not know: all of it
])
def test_a_chip_gets_its_profiles_and_the_online_package_only_with_wifi(plan_key, wifi, profiles):
    files = sent(plan_key)
    assert profiles_in(files) == profiles
    assert any(f.startswith("mancala/online/") for f in files) == wifi
    assert ("mancala/modes/online.py" in files) == wifi
    assert "mancala/profiles/__init__.py" in files and "mancala/app.py" in files


def test_the_version_names_the_whole_source_whatever_a_chip_is_sent():
    versions = {deploy_plan.build(deploy_plan.DEFAULT_SRC, None, chip=deploy_plan.chip_named(k))[0]
                for k in ("rp2", "esp32")}
    assert len(versions) == 1


def test_chip_of_reads_wifi_from_the_boards_machine():
    pico_w = deploy_plan.chip_of({"machine": "Raspberry Pi Pico W with RP2040", "platform": "rp2"})
    pico = deploy_plan.chip_of({"machine": "Raspberry Pi Pico with RP2040", "platform": "rp2"})
    assert (pico_w["wifi"], pico["wifi"]) == (True, False)
    with pytest.raises(KeyError):
        deploy_plan.chip_named("z80")


def test_a_profile_not_on_the_board_is_refused_in_one_line(tmp_path, monkeypatch):
    """A Pico's flash (laid as deploy lays it) has no esp32 profile: load says so."""
    import importlib
    import sys

    pkg = tmp_path / "mancala" / "profiles"
    pkg.mkdir(parents=True)
    src = deploy_plan.DEFAULT_SRC + "/mancala/profiles/"
    (tmp_path / "mancala" / "__init__.py").write_text("")
    for name in ("__init__", "pico_buttons"):
        (pkg / (name + ".py")).write_text(open(src + name + ".py").read())
    saved = {k: v for k, v in sys.modules.items() if k == "mancala" or k.startswith("mancala.")}
    for k in saved:
        del sys.modules[k]
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        profiles = importlib.import_module("mancala.profiles")
        assert profiles.load("pico_buttons")["mcu"] == "rp2040"
        with pytest.raises(ValueError, match="esp32 is not on this board"):
            profiles.load("esp32")
    finally:
        for k in [k for k in sys.modules if k == "mancala" or k.startswith("mancala.")]:
            del sys.modules[k]
        sys.modules.update(saved)


def test_deploy_refuses_a_profile_for_another_chip_before_writing_it():
    src = deploy_plan.DEFAULT_SRC
    deploy_plan.check_profile(deploy_plan.chip_named("rp2"), src, "pico_hall")
    deploy_plan.check_profile(None, src, "esp32")  # a chip deploy does not know
    with pytest.raises(DeployError) as e:
        deploy_plan.check_profile(deploy_plan.chip_named("rp2"), src, "esp32")
    assert str(e.value) == ("board profile esp32 is for an esp32 board, this board is a Raspberry "
                            "Pi Pico (RP2040): choose one of pico_buttons, pico_hall, pico_cheap, "
                            "pico_w")


def test_deploy_refuses_a_profile_with_problems_before_it_sends_anything(tmp_path):
    """The board trusts the profiles deploy sends (its start checks none of its own:
    modes/start.py _deployed): deploy runs the firmware's check on each one it sends and
    refuses one with problems, every problem said."""
    import os
    import shutil

    src = str(tmp_path / "firmware")
    shutil.copytree(deploy_plan.DEFAULT_SRC, src, ignore=shutil.ignore_patterns("__pycache__"))
    path = os.path.join(src, "mancala", "profiles", "esp32.py")
    with open(path) as f:
        text = f.read()
    assert '"tt_bits": 10,' in text and '"led_pin": 23,' in text
    with open(path, "w") as f:
        f.write(text.replace('"tt_bits": 10,', '"tt_bits": 20,').replace('"led_pin": 23,', '"led_pin": 99,'))
    chip = deploy_plan.chip_named("esp32")
    with pytest.raises(DeployError) as e:
        deploy_plan.build(src, None, chip=chip)
    said = str(e.value)
    assert said.startswith("board profile esp32 has problems"), said
    assert "tt_bits" in said and "led_pin" in said, said
    # the Pico's deploy does not send the ESP32's profile: it goes ahead
    assert deploy_plan.build(src, None, chip=deploy_plan.chip_named("rp2"))[0]
