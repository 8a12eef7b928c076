"""The PIO + DMA chain driver (hw/pio_chain.py PioChain, hw/pio_chain.py make_chain) against a fake rp2
module (tests/fake_rp2.py): the frame it hands to the DMA, that it waits for the
last transfer and the line's reset before reusing its wire buffer, the bitstream
fallback, and no allocation per frame (in the unix port, under heap_lock)."""

import fake_rp2
import pytest

from host_tools.fakes import machine, neopixel
from host_tools.runners import mpunix
from mancala import profiles
from mancala.hw import pio_chain as PX
from mancala.hw.pio_chain import PioChain, make_chain
from mancala.hw.pixels import SOUTH, Pixels


class Time:
    """A microsecond clock the test moves (sleep_us moves it too)."""

    def __init__(self):
        self.us = 1000
        self.slept = []

    def ticks_us(self):
        return self.us

    def ticks_diff(self, a, b):
        return a - b

    def sleep_us(self, us):
        self.slept.append(us)
        self.us += us


def chain(n=180):
    t = Time()
    c = PioChain(fake_rp2, "pin22", n, t)
    return c, t, fake_rp2.channels[-1], fake_rp2.machines[-1]


def draw(px, k):
    px.begin()
    for i in range(14):
        px.count(i, (k + 3 * i) % 40, SOUTH if i % 2 else None)
    px.show()


def test_the_dma_gets_the_frame_pixels_drew_byte_for_byte():
    p = profiles.load("pico_buttons")
    c, t, dma, sm = chain(p["led_count"])
    ref = neopixel.NeoPixel(None, p["led_count"])
    args = (p["leds"], p["led_count"], p["ma_per_channel"], p["idle_ma_per_led"],
            p["current_limit_ma"], p["brightness_levels"], 2)
    px, px_ref = Pixels(c, *args), Pixels(ref, *args)
    for k in range(5):
        draw(px, k)
        draw(px_ref, k)
        t.us += 20000  # a frame every loop turn
        assert dma.frames[-1] == bytes(ref.buf)  # (bitstream's bytes, in its order)
    write, count, ctrl, trigger = dma.last
    assert write is sm and count == 3 * p["led_count"] and trigger
    # bytes into the state machine's TX FIFO, paced by it (DREQ_PIO0_TX0), one address
    assert dma.packed == {"size": 0, "inc_read": True, "inc_write": False, "treq_sel": 0}
    assert ctrl == dma.pack_ctrl(size=0, inc_write=False, treq_sel=0)
    assert sm.running == 1 and sm.freq == PX.WS2812_HZ and sm.sideset_base == "pin22"
    # a whole clock divider on both chips (the rp2 port: 256 * sys / freq, its low
    # byte the fraction): a fractional one jitters the bits by a cycle, and 8 MHz's
    # put T0H 2 ns under the WS2812B's 250 ns on the RP2040 model (docs/BOARD.md)
    for sys_hz in (125000000, 150000000):
        assert (256 * sys_hz // PX.WS2812_HZ) % 256 == 0, sys_hz
    # one wire buffer, not the one Pixels draws into (the next frame is drawn while
    # the DMA still reads the last)
    assert len(set(dma.reads)) == 1 and dma.reads[0] == id(c.wire) and c.wire is not c.buf


def test_a_write_waits_for_the_last_transfer_before_reusing_the_buffer():
    c, t, dma, _ = chain(180)
    c.buf[0] = 7
    c.write()
    dma.busy = 4  # the DMA is still feeding the FIFO: four polls report it running
    c.buf[0] = 9
    c.write()  # (the fake fails a config while busy)
    assert dma.busy == 0 and dma.polls >= 5
    assert dma.frames == [bytes([7]) + bytes(539), bytes([9]) + bytes(539)]


def test_a_write_right_after_another_waits_out_the_wire_and_the_reset():
    c, t, dma, _ = chain(180)
    c.write()
    t.us += 1000  # 1 ms later: 5.4 ms of bytes + 0.3 ms of reset from the first's start
    c.write()
    assert t.slept == [180 * 3 * PX.US_PER_BYTE + PX.RESET_US - 1000]
    t.us += 20000  # a loop turn later: nothing to wait for
    c.write()
    assert len(t.slept) == 1 and len(dma.frames) == 3


def test_the_pio_program_times_a_bit_in_eleven_cycles():
    c, _, _, sm = chain(14)
    prog = sm.prog
    assert prog["config"]["pull_thresh"] == 8 and prog["config"]["autopull"]
    assert prog["config"]["out_shiftdir"] == fake_rp2.PIO.SHIFT_LEFT
    cycles = {}
    for op, args, side, delay in prog["instructions"]:
        if op in ("out", "jmp", "nop"):
            cycles[(op, args[0] if args else None)] = (side, 1 + delay)
    # a 1: out (low 5) + jmp not_x (high 3) + jmp bit (high 3); a 0: + nop (low 3)
    assert cycles[("out", "x")] == (0, 5) and cycles[("jmp", "not_x")] == (1, 3)
    assert cycles[("jmp", "bit")] == (1, 3) and cycles[("nop", None)] == (0, 3)
    tick_ns = 1e9 / PX.WS2812_HZ  # 120 ns
    # the widths against the WS2812B's (and the V5's) limits (docs/BOARD.md)
    t0h, t1h, t0l, t1l = 3 * tick_ns, 6 * tick_ns, 8 * tick_ns, 5 * tick_ns
    assert 250 <= t0h <= 380 and 650 <= t1h <= 950 and 700 <= t0l <= 1000
    assert 580 <= t1l <= 601  # (the two sheets' T1L overlap: 580-600 ns)
    assert PX.US_PER_BYTE * 1000 >= 8 * 11 * tick_ns  # a byte's wire time, rounded up


@pytest.mark.parametrize("name", ["pico_buttons", "pico_hall", "pico_cheap", "pico2_buttons"])
def test_rp2040_profiles_ship_the_pio_driver_and_the_pico_2_the_bitstream(name):
    # (the RP2040 profiles: the PIO waveform measured within the datasheets on the
    # model, issue 42; the RP2350 keeps the bitstream until measured there: docs/BOARD.md)
    shipped = "bitstream" if name == "pico2_buttons" else "pio_dma"
    assert profiles.load(name).get("pixel_driver") == shipped
    assert profiles.load("esp32").get("pixel_driver", "bitstream") == "bitstream"
    c = make_chain(profiles.load(name), machine, neopixel, rp2=fake_rp2, time=Time())
    assert isinstance(c, PioChain if shipped == "pio_dma" else neopixel.NeoPixel)
    opted = dict(profiles.load(name), pixel_driver="pio_dma")
    c = make_chain(opted, machine, neopixel, rp2=fake_rp2, time=Time())
    assert isinstance(c, PioChain) and len(c.buf) == 3 * opted["led_count"]
    bits = dict(profiles.load(name), pixel_driver="bitstream")
    assert isinstance(make_chain(bits, machine, neopixel, rp2=fake_rp2, time=Time()),
                      neopixel.NeoPixel)


def test_no_dma_channel_falls_back_to_bitstream(monkeypatch):
    lines = []
    monkeypatch.setattr(fake_rp2, "refuse", OSError("no free DMA channel"))
    opted = dict(profiles.load("pico_buttons"), pixel_driver="pio_dma")
    c = make_chain(opted, machine, neopixel, rp2=fake_rp2, time=Time(), log=lines.append)
    assert isinstance(c, neopixel.NeoPixel) and "bitstream" in lines[0]
    # on the PC (no rp2 module) the profile's driver is the bitstream one
    c = make_chain(opted, machine, neopixel, log=lines.append)
    assert isinstance(c, neopixel.NeoPixel) and len(lines) == 1  # (and quietly)


NO_ALLOC = r"""
import micropython, time, sys
import rp2
from mancala.hw.pio_chain import PioChain
from mancala.hw.pixels import Pixels
from mancala import profiles
p = profiles.load("pico_buttons")
c = PioChain(rp2, None, p["led_count"], time)
px = Pixels(c, p["leds"], p["led_count"], p["ma_per_channel"], p["idle_ma_per_led"],
            p["current_limit_ma"], p["brightness_levels"], 1)
def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
    pass  # (the fake's own copy of the frame allocates; the port's config does not)
rp2.DMA.config = config
def frame(k):
    px.begin(False)
    px.count(k % 14, k % 30, None)
    px.show()
frame(0)
micropython.heap_lock()
try:
    for k in range(50):
        frame(k)
finally:
    micropython.heap_unlock()
print("OK")
"""


def test_no_allocation_per_frame_in_the_unix_port():
    if not mpunix.available():
        pytest.skip("MicroPython unix build not installed: run `make setup`")

    fake = fake_rp2.__file__
    out = mpunix.run(NO_ALLOC, mounts=[(fake, "lib/rp2.py")])
    assert out.strip().endswith("OK")


def test_a_stalled_transfer_is_given_up_after_its_wire_time():
    class Ticking(Time):
        def ticks_us(self):  # every read of the clock: 100 us later
            self.us += 100
            return self.us

    t = Ticking()
    c = PioChain(fake_rp2, "pin22", 180, t)
    dma = fake_rp2.channels[-1]
    c.write()
    dma.busy = 10 ** 9  # never ends by itself
    c.buf[1] = 5
    c.write()  # gives up on the last one (aborts it) and sends this frame
    assert getattr(dma, "aborted", False) and dma.frames[-1][1] == 5
    assert t.us - 1000 < 2 * (180 * 3 * PX.US_PER_BYTE + PX.RESET_US + 2000)


def test_the_profile_check_knows_the_drivers():
    from mancala.profile import validate

    for name in ("pico_buttons", "pico2_buttons", "esp32"):
        assert validate(profiles.load(name)) == []
    esp = dict(profiles.load("esp32"), pixel_driver="pio_dma")  # (no PIO on an ESP32)
    odd = dict(profiles.load("pico_buttons"), pixel_driver="spi")
    assert ["pixel_driver" in e for e in validate(esp)] == [True]
    assert ["pixel_driver" in e for e in validate(odd)] == [True]
