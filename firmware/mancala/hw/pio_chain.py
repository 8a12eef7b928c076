"""The LED chain written by a PIO state machine fed by DMA (rp2: RP2040, RP2350).

The rp2 port's `neopixel` writes the chain with `machine.bitstream`: the CPU times
every bit itself, with interrupts off, for the whole frame (30 us a LED: 5.4 ms for
180, all of it taken from a think's search).  A PIO state machine can time the bits
and a DMA channel feed it the frame's bytes, so write() hands the frame over and
returns: the CPU is back at the search within a few tens of microseconds.  A profile
picks it ("pixel_driver": "pio_dma"); modes/start.build imports this module only
then, so a board on the bitstream never holds it."""

# The state machine's clock: 11 cycles a bit (1.32 us, 758 kbit/s).  A whole divider of
# the system clock (15 at the RP2040's 125 MHz, 18 at the RP2350's 150 MHz): a fractional
# one spaces the ticks 15 or 16 cycles apart, and 8 MHz (15 + 160/256) gave T0H 248 ns,
# short of the WS2812B's 250.  Measured on the RP2040 model (host_tools/benches/chip_wave.py,
# docs/BOARD.md): T0H 360, T1H 720, T0L 960, T1L 600 ns, within the WS2812B's and the
# WS2812B-V5's limits alike (the bitstream driver's T1L, 432-512 ns, is short of the V5's).
WS2812_HZ = 8333333
US_PER_BYTE = 11  # 8 bits of 1.32 us on the wire (10.6 us)
RESET_US = 300  # the line low this long ends a frame (WS2812B: above 280 us)


def ws2812_program(rp2):
    """The WS2812 bit timing as a PIO program (rp2.asm_pio): one bit per 11 cycles of
    120 ns, high 3 cycles for a 0 (360 ns, then 8 low) and 6 for a 1 (720 ns, then 5
    low), the pin driven by side-set.
    A byte written to the TX FIFO reaches every byte lane of the word (the bus
    replicates narrow IO writes), so with autopull at 8 bits, shifting left, each
    byte the DMA writes goes out whole, most significant bit first, as bitstream
    sends it."""

    @rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT,
                 autopull=True, pull_thresh=8)
    def ws2812():
        # (asm_pio runs this with its instructions as the module's globals)
        wrap_target()  # type: ignore[name-defined]  # noqa: F821
        label("bit")  # type: ignore[name-defined]  # noqa: F821
        out(x, 1).side(0)[4]  # type: ignore[name-defined]  # noqa: F821 - 5 cycles low
        jmp(not_x, "zero").side(1)[2]  # type: ignore[name-defined]  # noqa: F821 - 3 cycles high
        jmp("bit").side(1)[2]  # type: ignore[name-defined]  # noqa: F821 - a 1: 3 more high
        label("zero")  # type: ignore[name-defined]  # noqa: F821
        nop().side(0)[2]  # type: ignore[name-defined]  # noqa: F821 - a 0: 3 more low
        wrap()  # type: ignore[name-defined]  # noqa: F821

    return ws2812


class PioChain:
    """A NeoPixel-like chain (`buf`, `ORDER`, `write()`) written by a PIO state
    machine fed by DMA.  write() copies the frame into the chain's own wire buffer
    (the DMA reads that one while Pixels draws the next frame into `buf`) and starts
    the transfer; it first waits for the previous frame to be on the wire, its bytes
    out and the line low for RESET_US, which at a board's frame rate (20 ms apart at
    the closest) has long passed.  Nothing is allocated per frame."""

    ORDER = (1, 0, 2, 3)  # WS2812: G R B

    def __init__(self, rp2, pin, n, time, sm_id=0, bpp=3):
        self.n = n
        self.buf = bytearray(n * bpp)
        self.wire = bytearray(n * bpp)
        self.time = time
        self.sm = rp2.StateMachine(sm_id, ws2812_program(rp2), freq=WS2812_HZ, sideset_base=pin)
        self.dma = rp2.DMA()
        try:
            # bytes, the write address fixed (the FIFO), paced by the state machine's
            # TX FIFO (DREQ: its PIO's number * 8 + its own)
            self.ctrl = self.dma.pack_ctrl(size=0, inc_write=False,
                                           treq_sel=(sm_id >> 2) * 8 + (sm_id & 3))
            self.sm.active(1)
        except Exception:
            self.close()
            raise
        self.t_start = time.ticks_us()
        self.busy_us = 0  # the last frame's bytes plus the reset, from t_start

    def __len__(self):
        return self.n

    def wait(self):
        """Until the last frame is out and the line has been low for RESET_US."""
        t = self.time
        while self.dma.active():  # (its bytes still going into the FIFO)
            if t.ticks_diff(t.ticks_us(), self.t_start) > self.busy_us + 2000:
                self.dma.active(0)  # stalled (never seen): the next frame goes anyway
                break
        left = self.busy_us - t.ticks_diff(t.ticks_us(), self.t_start)
        if left > 0:
            t.sleep_us(left)

    def write(self):
        self.wait()
        self.wire[:] = self.buf
        self.t_start = self.time.ticks_us()
        self.busy_us = len(self.wire) * US_PER_BYTE + RESET_US
        self.dma.config(read=self.wire, write=self.sm, count=len(self.wire), ctrl=self.ctrl,
                        trigger=True)

    def close(self):
        try:
            self.sm.active(0)
        finally:
            self.dma.close()


def make_chain(profile, machine, neopixel, rp2=None, time=None, log=print):
    """The profile's LED chain: "pixel_driver" "pio_dma" (rp2 boards: hw/pio_chain.py, a
    PIO state machine fed by DMA, no CPU time on the wire) or the port's `neopixel`
    ("bitstream", the default, and wherever the PIO driver cannot be built: no rp2
    module, no free DMA channel or state machine)."""
    pin = machine.Pin(profile["led_pin"], machine.Pin.OUT)
    n = profile["led_count"]
    if profile.get("pixel_driver") == "pio_dma":
        try:
            if rp2 is None:
                rp2 = __import__("rp2")  # the rp2 port's own
            if time is None:
                time = __import__("time")
        except ImportError:  # not the rp2 port (the PC's fakes): its neopixel, quietly
            rp2 = None
        if rp2 is not None:
            try:
                return PioChain(rp2, pin, n, time)
            except Exception as e:  # noqa: BLE001 - the chain still lights, CPU-timed
                log("LEDs: no PIO driver (%r): bitstream" % (e,))
    return neopixel.NeoPixel(pin, n)
