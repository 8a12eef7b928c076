"""Pixels: the count legend reads back, brightness, the current budget, no allocation."""

import pytest

from host_tools.fakes import neopixel
from mancala import profiles
from mancala.hw.pixels import LAPS, SOUTH, WHITE, Pixels
from mancala.hw.pixels_read import decode


def make(profile="pico_buttons", level=3, limit=None):
    p = profiles.load(profile)
    np = neopixel.NeoPixel(None, p["led_count"])
    px = Pixels(np, p["leds"], p["led_count"], p["ma_per_channel"], p["idle_ma_per_led"],
                limit if limit is not None else p["current_limit_ma"], p["brightness_levels"],
                level)
    return p, np, px


@pytest.mark.parametrize("profile", ["pico_buttons", "esp32"])
@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_every_count_reads_back_at_every_level(profile, level):
    p, np, px = make(profile, level)
    for c in range(0, 97):
        px.clear()
        for i in range(14):
            px.count(i, (c + 5 * i) % 97, SOUTH if i % 3 == 0 else None)
        px.show()
        counts, bgs = decode(np.buf, p["leds"], np.ORDER)
        want = [min((c + 5 * i) % 97, len(LAPS) * p["leds"][i][1]) for i in range(14)]
        assert counts == want
        for i in range(14):
            if i % 3 == 0 and want[i] < p["leds"][i][1]:
                assert bgs[i] == "south"


def test_single_led_build_reads_colours_up_to_the_legend():
    p, np, px = make("pico_cheap", 1)
    for c in range(0, 12):
        px.clear()
        for i in range(14):
            px.count(i, c)
        px.show()
        counts, _ = decode(np.buf, p["leds"], np.ORDER)
        assert counts == [min(c, len(LAPS))] * 14


def test_brightness_levels_scale_the_frame():
    p, np, px = make(level=0)
    px.clear()
    px.count(0, 3)
    px.show()
    low = max(np.buf)
    px.set_level(3)
    px.clear()
    px.count(0, 3)
    px.show()
    assert max(np.buf) == 255 and low == p["brightness_levels"][0]


@pytest.mark.parametrize("profile", ["pico_buttons", "pico_cheap", "esp32"])
def test_current_budget_holds_for_a_full_white_frame(profile):
    p, np, px = make(profile, level=3)
    for i in range(14):
        px.fill(i, WHITE)
    px.show()
    ma = px.estimate_ma(p["idle_ma_per_led"])
    assert ma <= p["current_limit_ma"]
    # and the frame is not dimmed more than needed (within one step of 255)
    full = sum(3 * 255 for _ in range(p["led_count"])) * p["ma_per_channel"] / 255
    assert ma >= (full + p["led_count"]) * (px.last_scale - 1) / 255


def test_under_budget_frames_are_not_scaled():
    p, np, px = make(level=3)
    px.clear()
    px.count(0, 5)
    px.show()
    assert px.last_scale == 255
    assert max(np.buf) == 255


def test_a_tight_budget_dims_and_still_reads():
    p, np, px = make(level=3, limit=400)
    px.clear()
    for i in range(14):
        px.count(i, 18 if i in (6, 13) else 12)
    px.show()
    assert px.last_scale < 255
    assert px.estimate_ma(p["idle_ma_per_led"]) <= 400
    assert decode(np.buf, p["leds"], np.ORDER)[0] == [12] * 6 + [18] + [12] * 6 + [18]


def test_grb_order_in_the_chain_buffer():
    p, np, px = make(level=3)
    px.clear()
    px.led(0, (10, 20, 30))
    px.show()
    assert bytes(np.buf[:3]) == bytes((20, 10, 30))


class _Port:
    """A port's `machine.bitstream` (what micropython-lib's neopixel write() calls)."""

    def __init__(self):
        self.sent = []

    def bitstream(self, pin, encoding, timing, buf):
        self.sent.append((pin, encoding, timing, bytes(buf)))


class _PortChain:  # micropython-lib's NeoPixel as the port has it: pin, timing, buf
    ORDER = (1, 0, 2, 3)

    def __init__(self, n):
        self.pin = "GP22"
        self.timing = (400, 850, 800, 450)
        self.buf = bytearray(3 * n)
        self.writes = 0

    def write(self):
        self.writes += 1


def test_show_with_a_pit_writes_the_chain_up_to_that_pits_span_only():
    """Pixels.prefix_writes: show(last) sends the buffer's bytes up to the end of pit
    `last`'s LEDs through the port's bitstream (with the chain's own pin and timing);
    show() and a frame the current budget rescales send all of it."""
    from mancala.hw.pixels import prefix_writer

    p = profiles.load("pico_buttons")
    np, port = _PortChain(p["led_count"]), _Port()
    px = Pixels(np, p["leds"], p["led_count"], p["ma_per_channel"], p["idle_ma_per_led"],
                p["current_limit_ma"], p["brightness_levels"], level=1)
    px.prefix_writes(prefix_writer(np, port))
    px.begin()
    px.count(0, 5)
    px.count(2, 3)
    px.show(2)
    first, n = p["leds"][2]
    assert len(port.sent) == 1 and np.writes == 0
    pin, enc, timing, sent = port.sent[0]
    assert (pin, enc, timing) == ("GP22", 0, (400, 850, 800, 450))
    assert sent == bytes(np.buf[:3 * (first + n)]) and any(sent)
    px.show()  # a whole frame
    assert np.writes == 1 and len(port.sent) == 1
    px.begin()
    for i in range(14):  # over the budget: rescaled, so every LED goes out
        px.fill(i, WHITE)
    px.set_level(3)
    px.begin(False)
    for i in range(14):
        px.fill(i, WHITE)
    px.show(0)
    assert px.last_scale < px.scale and np.writes == 2 and len(port.sent) == 1


def test_a_chain_without_a_prefix_write_is_sent_whole():
    """No bitstream (or a chain without pin and timing, like the PIO chain): no
    prefix writer, and show(last) writes the whole chain."""
    from mancala.hw.pixels import prefix_writer

    np = _PortChain(180)
    assert prefix_writer(np, object()) is None
    del np.timing
    assert prefix_writer(np, _Port()) is None
    _, fake, px = make()
    assert prefix_writer(fake, object()) == fake.write_prefix  # the PC's fake: its own
    px.begin()
    px.count(0, 2)
    px.show(0)  # (prefix_writes never called: whole)
    assert fake.prefix_writes == 0 and fake.last_sent == len(fake.buf)


def test_the_fake_chain_fails_a_prefix_write_that_leaves_an_led_stale():
    """The check every board test gets from host_tools/fakes/neopixel.py."""
    _, fake, px = make()
    px.prefix_writes(fake.write_prefix)
    px.begin()
    px.count(3, 4)
    px.show(3)
    assert fake.prefix_writes == 1 and fake.shown == fake.buf
    px.begin(False)
    px.count(5, 2)  # pit 5 changed, but only up to pit 3 is sent
    with pytest.raises(AssertionError, match="stale"):
        px.show(3)
