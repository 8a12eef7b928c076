"""A fake `neopixel` module (the micropython-lib API): frames land in `buf`; `shown`
is what the LEDs show (the bytes last sent to each).

MicroPython-compatible.  `NeoPixel.last` is the newest chain, `writes` counts
frames, `on_write` (if set) is called after each write.

A write takes its chain's wire time: `wire` (the chain's own, else the module's),
if set, is called with the microseconds the write holds the CPU, US_PER_LED a LED
(WS2812 at 800 kHz, 24 bits: 30 us; 5.4 ms for 180, as measured on the RP2040
model: the rp2 port bit-bangs the chain with interrupts off).  The simulated board
advances its clock by it.
"""

US_PER_LED = 30
last = None
on_write = None
wire = None  # the default `wire` of new chains (SimBoard sets it while it builds)


class NeoPixel:
    ORDER = (1, 0, 2, 3)  # WS2812: G R B

    def __init__(self, pin, n, bpp=3, timing=1):
        global last
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.shown = bytearray(n * bpp)  # what the LEDs show: the bytes last sent
        self.writes = 0
        self.prefix_writes = 0  # of them, writes of the chain's first LEDs alone
        self.last_sent = 0  # the bytes the last write sent
        self.wire = wire
        last = self

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        o = i * self.bpp
        for k in range(self.bpp):
            self.buf[o + self.ORDER[k]] = v[k]

    def __getitem__(self, i):
        o = i * self.bpp
        return tuple(self.buf[o + self.ORDER[k]] for k in range(self.bpp))

    def fill(self, v):
        for i in range(self.n):
            self[i] = v

    def write(self):
        self.writes += 1
        self.last_sent = len(self.buf)
        self.shown[:] = self.buf
        if self.wire is not None:
            self.wire(self.n * US_PER_LED)
        if on_write is not None:
            on_write(self)

    def write_prefix(self, view):
        """The chain's first len(view) bytes alone (the firmware's Pixels.prefix_writes:
        on the chip `machine.bitstream` over a view of `buf`): the wire time of those
        LEDs, and the LEDs after them keep what they showed.  A write that leaves an
        LED showing other than what `buf` holds fails here, in every test that draws:
        the frame changed an LED past the end of what it sent."""
        k = len(view)
        if k % self.bpp or not 0 < k <= len(self.buf):
            raise ValueError("a prefix write of %d bytes on a chain of %d" % (k, len(self.buf)))
        self.writes += 1
        self.prefix_writes += 1
        self.last_sent = k
        self.shown[:k] = view
        if self.shown != self.buf:
            i = next(i for i in range(len(self.buf)) if self.shown[i] != self.buf[i])
            raise AssertionError("a prefix write of %d LEDs left LED %d stale"
                                 % (k // self.bpp, i // self.bpp))
        if self.wire is not None:
            self.wire(k // self.bpp * US_PER_LED)
        if on_write is not None:
            on_write(self)
