"""A fake `neopixel` module (the micropython-lib API): frames land in `buf`.

MicroPython-compatible.  `NeoPixel.last` is the newest chain, `writes` counts
frames, `on_write` (if set) is called after each write.
"""

last = None
on_write = None


class NeoPixel:
    ORDER = (1, 0, 2, 3)  # WS2812: G R B

    def __init__(self, pin, n, bpp=3, timing=1):
        global last
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.writes = 0
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
        if on_write is not None:
            on_write(self)
