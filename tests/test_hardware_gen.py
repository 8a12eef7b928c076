"""hardware/ is generated from the profiles and is up to date; a pin changes in one place only."""

import copy
import os
import xml.etree.ElementTree as ET

import pytest

from host_tools.generators import hardware_gen as hg
from host_tools.generators import hardware_model, hardware_tables, wiring_drawing

NAMES = hardware_model.profile_names()


def test_generated_files_are_up_to_date():
    assert hg.stale() == [], "run `make hardware` and commit hardware/"


def test_stale_files_are_detected(tmp_path):
    files = hg.outputs()
    assert sorted(hg.write(str(tmp_path), files)) == sorted(files)
    assert hg.stale(str(tmp_path), files) == []
    assert hg.write(str(tmp_path), files) == []           # nothing rewritten
    victim = "pico_hall/README.md"
    (tmp_path / victim).write_text("edited by hand\n")
    os.remove(tmp_path / "esp32" / "wiring.svg")
    assert hg.stale(str(tmp_path), files) == ["esp32/wiring.svg", victim]


def test_check_command_fails_on_stale_output(tmp_path, capsys):
    assert hg.main(["--check", "--out", str(tmp_path)]) == 1
    assert "stale" in capsys.readouterr().err
    assert hg.main(["--out", str(tmp_path)]) == 0
    assert hg.main(["--check", "--out", str(tmp_path)]) == 0


def test_a_pin_change_reaches_table_and_diagram():
    profiles = {n: hardware_model.load_profile(n) for n in NAMES}
    before = hg.outputs(profiles)
    changed = copy.deepcopy(profiles)
    pits = list(changed["pico_buttons"]["pit_pins"])
    pits[0] = 16
    changed["pico_buttons"]["pit_pins"] = tuple(pits)
    changed["pico_hall"]["mux_adc"] = 27
    after = hg.outputs(changed)
    assert "| S1 | GP2 | 4 |" in before["pico_buttons/README.md"]
    assert "| S1 | GP16 | 21 |" in after["pico_buttons/README.md"]
    assert "GP16" in after["pico_buttons/wiring.svg"] and "GP16" not in before["pico_buttons/wiring.svg"]
    assert "GP27/ADC1 | 32 |" in after["pico_hall/README.md"]
    assert "GP27/ADC1" in after["pico_hall/wiring.svg"]
    assert after["esp32/README.md"] == before["esp32/README.md"]


@pytest.mark.parametrize("name", NAMES)
def test_svg_is_well_formed_and_complete(name):
    profile = hardware_model.load_profile(name)
    text = wiring_drawing.render_svg(name, profile)
    assert text == wiring_drawing.render_svg(name, profile)          # deterministic
    root = ET.fromstring(text)
    assert root.tag.endswith("svg")
    words = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    for pit in hardware_model.BOARD:
        assert pit in words
    for sig, label, _hdr, _to in hardware_tables.wiring_rows(profile):
        assert label in words and sig in words


@pytest.mark.parametrize("name", NAMES)
def test_build_page_has_bom_power_and_diagram(name):
    page = hardware_tables.render_build_md(name, hardware_model.load_profile(name))
    assert "![wiring diagram](wiring.svg)" in page
    for heading in ("## Signal wiring", "## Power wiring", "## LED chain", "## Current",
                    "## Bill of materials"):
        assert heading in page
    for key, qty in hardware_model.BUILDS[name]["bom"]:
        maker, mpn, desc, price = hardware_model.PARTS[key]
        assert qty > 0 and price > 0 and mpn and maker
        assert "| %d | %s | %s |" % (qty, maker, mpn) in page


def test_current_numbers():
    p = hardware_model.load_profile("pico_buttons")
    assert hardware_model.worst_case_ma(p, 255) == 180 * (1 + 3 * 20)
    assert round(hardware_model.worst_case_ma(p, 24)) == 1196
    cheap = hardware_model.load_profile("pico_cheap")
    assert round(hardware_model.worst_case_ma(cheap, 255)) == 854


def test_hall_model_matches_the_threshold():
    p = hardware_model.load_profile("pico_hall")
    assert hardware_model.trip_mt(p) == pytest.approx(3.3, abs=0.05)
    assert hardware_model.disc_field_mt(5) > hardware_model.disc_field_mt(10) > hardware_model.disc_field_mt(20)
    d = hardware_model.max_trip_distance_mm(p)
    assert 15 <= d <= 30
    assert hardware_model.disc_field_mt(d) >= hardware_model.trip_mt(p) > hardware_model.disc_field_mt(d + 0.5)
