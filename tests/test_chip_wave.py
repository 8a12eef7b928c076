"""The LED chain's waveform as the shipped RP2040 profiles drive it, on the RP2040 model
(issue 42 item 8; host_tools/benches/chip_wave.py, docs/BOARD.md "The chain by PIO and
DMA"): a pico_buttons board powered on from its deployed flash, its pulse widths on the
LED pin within the WS2812B datasheet's limits (T0H, T1H, T0L, T1L) and its frames
latched by a reset the V5 part also takes (>= 280 us).

CI has the model (a copy of shared/ beside the clone); a newcomer's clone does not,
and this test skips with one line.
"""

import pytest

from host_tools.benches import chip_wave
from host_tools.benches.chip_board import model_folder
from mancala import profiles

MODEL = model_folder()
pytestmark = pytest.mark.skipif(MODEL is None, reason="no RP2040 model (../shared/picobox): "
                                "the chip tier runs where a copy of shared/ lies beside the clone")


# make test-long (make test checks the shipped driver's widths in test_chip_boot.py's start)
@pytest.mark.long
def test_the_shipped_chain_driver_meets_the_ws2812b_datasheet_on_the_model():
    driver = profiles.load("pico_buttons").get("pixel_driver", "bitstream")
    # (the board measured stands for every RP2040 profile: they ship the same driver)
    assert {profiles.load(p).get("pixel_driver", "bitstream")
            for p in ("pico_buttons", "pico_hall", "pico_cheap")} == {driver}
    rec = chip_wave.measure(MODEL, driver, script=(("S1", 600),), settle_ms=300)
    full = chip_wave.full_frames(rec, profiles.load("pico_buttons")["led_count"])
    assert len(full) >= 3, rec["frames"][:3]  # whole frames seen, before and after a press
    assert chip_wave.misses(rec, "WS2812B") == [], chip_wave.spans(rec)
    assert chip_wave.spans(rec)["gap"][0] >= chip_wave.DATASHEETS["WS2812B-V5"]["gap"]
    # the chip_board.mjs reader (its own edges, the same rule) saw the same widths
    for kind in chip_wave.KINDS:
        assert [round(v) for v in chip_wave.spans(rec)[kind]] == rec["wave"][kind], kind
