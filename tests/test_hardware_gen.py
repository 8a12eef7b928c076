"""hardware/ is generated from the profiles and is up to date; a pin changes in one place only."""

import copy
import os
import xml.etree.ElementTree as ET

import pytest

from host_tools.generators import hardware_gen as hg

NAMES = hg.profile_names()


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
    profiles = {n: hg.load_profile(n) for n in NAMES}
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
    profile = hg.load_profile(name)
    text = hg.render_svg(name, profile)
    assert text == hg.render_svg(name, profile)          # deterministic
    root = ET.fromstring(text)
    assert root.tag.endswith("svg")
    words = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    for pit in hg.BOARD:
        assert pit in words
    for sig, label, _hdr, _to in hg.wiring_rows(profile):
        assert label in words and sig in words


@pytest.mark.parametrize("name", NAMES)
def test_build_page_has_bom_power_and_diagram(name):
    page = hg.render_build_md(name, hg.load_profile(name))
    assert "![wiring diagram](wiring.svg)" in page
    for heading in ("## Signal wiring", "## Power wiring", "## LED chain", "## Current",
                    "## Bill of materials"):
        assert heading in page
    for key, qty in hg.BUILDS[name]["bom"]:
        maker, mpn, desc, price = hg.PARTS[key]
        assert qty > 0 and price > 0 and mpn and maker
        assert "| %d | %s | %s |" % (qty, maker, mpn) in page


def test_current_numbers():
    p = hg.load_profile("pico_buttons")
    assert hg.worst_case_ma(p, 255) == 180 * (1 + 3 * 20)
    assert round(hg.worst_case_ma(p, 24)) == 1196
    cheap = hg.load_profile("pico_cheap")
    assert round(hg.worst_case_ma(cheap, 255)) == 854


def test_hall_model_matches_the_threshold():
    p = hg.load_profile("pico_hall")
    assert hg.trip_mt(p) == pytest.approx(3.3, abs=0.05)
    assert hg.disc_field_mt(5) > hg.disc_field_mt(10) > hg.disc_field_mt(20)
    d = hg.max_trip_distance_mm(p)
    assert 15 <= d <= 30
    assert hg.disc_field_mt(d) >= hg.trip_mt(p) > hg.disc_field_mt(d + 0.5)
