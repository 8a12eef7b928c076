"""A fake `neopixel` module (the micropython-lib API): frames land in `buf`.

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
        self.writes = 0
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
        if self.wire is not None:
            self.wire(self.n * US_PER_LED)
        if on_write is not None:
            on_write(self)
