"""The NeoPixel chain: count encoding, brightness levels and a current budget.

Works over any object with a NeoPixel-like `buf` (bytearray, 3 bytes a LED in
the order given by its `ORDER`, GRB for WS2812) and `write()`.  Colours are
given at full intensity and written straight into the chain's buffer scaled to
the brightness level; `show()` lowers a frame further, in place, if its
estimated current would pass the profile's limit.  Nothing is allocated per
frame.

Count legend (docs/PLAYER_GUIDE.md): a pit or store with n LEDs shows a count c
as LEDs lit one per stone in the colour of the first "lap" (warm white); past n
stones the ring fills again from its first LED in the next lap's colour (green,
then blue, yellow, violet, orange, cyan, pink), the older lap staying lit under
it.  So c = (laps - 1) * n + (LEDs in the newest colour); 0 is dark.  A single
LED shows the colour of lap c (1 white, 2 green, ... 8 pink = 8 or more).
LEDs of a pit not showing stones may carry a dim background (its state:
mover's colour = may be played, ...), at 1/6 of full intensity, never mistaken
for a stone.

Reading a frame back (what a person sees: the simulators, the tests) is
mancala.hw.pixels_read, which the board never imports.

Where the port compiles machine code the buffer's loops are mancala.native's
(`use_kernels`: modes/start.py hands them over); the loops here are the reference
and what CPython and the WebAssembly VM run.  Same bytes and totals either way
(tests/test_native.py).
"""

# Colours at full intensity (max channel 255); laps are told apart by hue.
OFF = (0, 0, 0)
LAPS = (
    (255, 170, 90),  # 1 warm white
    (0, 255, 0),  # 2 green
    (0, 60, 255),  # 3 blue
    (255, 210, 0),  # 4 yellow
    (170, 0, 255),  # 5 violet
    (255, 70, 0),  # 6 orange
    (0, 255, 210),  # 7 cyan
    (255, 0, 60),  # 8 pink
)
LAPS_RGB = tuple(c[0] << 16 | c[1] << 8 | c[2] for c in LAPS)  # (the kernels' 0xRRGGBB)

SOUTH = (0, 140, 255)
NORTH = (255, 0, 200)
RED = (255, 0, 0)
GREEN = (0, 255, 40)
WHITE = (255, 255, 255)
AMBER = (255, 140, 0)
BG_DIV = 6  # background LEDs are drawn at 1/BG_DIV intensity


class Pixels:
    """Draws straight into the chain's buffer, scaled by the brightness level
    through a 256-byte table; `show()` checks the frame's estimated current
    (summed while drawing) and only an over-budget frame is rescaled in place."""

    def __init__(self, np, spans, led_count, ma_per_channel=20, idle_ma_per_led=1,
                 current_limit_ma=2000, levels=(24, 64, 128, 255), level=1):
        self.np = np
        self.spans = spans
        self.n = led_count
        self.buf = np.buf
        order = getattr(np, "ORDER", (1, 0, 2, 3))
        self.o_r, self.o_g, self.o_b = order[0], order[1], order[2]
        self.order = order[0] | order[1] << 2 | order[2] << 4  # (the kernels' packing)
        self.fill2 = None  # machine-code loops (use_kernels), None: the bytecode ones
        self.remap = None
        self.ma = ma_per_channel
        self.budget = current_limit_ma - idle_ma_per_led * led_count
        self.levels = levels
        self.level = level if 0 <= level < len(levels) else 0
        self.table = bytearray(256)  # full-intensity byte -> byte at the level
        self.table2 = bytearray(256)  # level byte -> byte within the budget
        self.scale = -1
        self.total = 0  # sum of the frame's channels at full intensity
        self.last_scale = 0
        self.write_prefix = None  # writes the chain's first LEDs only (prefix_writes)
        self.prefixes = ()  # type: tuple
        self._use(levels[self.level])

    def prefix_writes(self, write_prefix):
        """Let show(last) write only the LEDs up to the end of pit `last`'s span:
        `write_prefix(view)` sends the bytes of `view` (the buffer's start) and nothing
        after them.  A WS2812 takes the first 24 bits it receives after a reset, passes
        the rest on, and shows what it took at the next reset; an LED past the end of
        a short write receives nothing and keeps what it shows, so a frame that
        changed only the first pits costs their LEDs' wire time, not the chain's (on
        the rp2 and ESP32 ports the bitstream holds the CPU for all of it: 30 us a
        LED).  The views are made here, once."""
        mv = memoryview(self.buf)
        self.prefixes = tuple(mv[:3 * (first + n)] for first, n in self.spans)
        self.write_prefix = write_prefix

    def use_kernels(self, fill2, remap):
        """Draw with machine code: `fill2(buf, i, n1, c1, n2, c2, table, order)` and
        `remap(buf, n, table)` (mancala.native.leds_fill2, leds_remap), which do what
        run() twice and show()'s rescale do here, byte for byte (a 12-LED run costs
        ~300 us in bytecode on an RP2040, a frame of a think is search time lost)."""
        self.fill2 = fill2
        self.remap = remap

    def _use(self, s):
        if s != self.scale:
            t = self.table
            for v in range(256):
                t[v] = v * s // 255
            self.scale = s

    def set_level(self, level):
        if 0 <= level < len(self.levels):
            self.level = level
            self._use(self.levels[level])

    # -- drawing (into the chain's buffer) -----------------------------------------

    def begin(self, whole=True):
        """Start a frame; whole=False: the caller draws every LED (no clearing)."""
        self.total = 0
        self._use(self.levels[self.level])
        if whole:
            b = self.buf
            if self.fill2 is not None:
                self.fill2(b, 0, len(b) // 3, 0, 0, 0, self.table, self.order)
                return
            for i in range(len(b)):
                b[i] = 0

    clear = begin

    def run(self, i, n, r, g, b):
        """LEDs i .. i+n-1 in colour (r, g, b) (full-intensity values)."""
        fill2 = self.fill2
        if fill2 is not None:
            self.total += fill2(self.buf, i, n, r << 16 | g << 8 | b, 0, 0, self.table,
                                self.order)
            return
        self.total += n * (r + g + b)
        t = self.table
        r = t[r]
        g = t[g]
        b = t[b]
        buf = self.buf
        ro, go, bo = self.o_r, self.o_g, self.o_b
        j = 3 * i
        end = j + 3 * n
        while j < end:
            buf[j + ro] = r
            buf[j + go] = g
            buf[j + bo] = b
            j += 3

    def led(self, i, c):
        self.run(i, 1, c[0], c[1], c[2])

    def led_dim(self, i, c, div):
        self.run(i, 1, c[0] // div, c[1] // div, c[2] // div)

    def fill(self, index, c, div=1):
        """Every LED of pit/store `index` in colour c (at 1/div intensity)."""
        first, count = self.spans[index]
        self.run(first, count, c[0] // div, c[1] // div, c[2] // div)

    def count(self, index, c, bg=None):
        """Show count c on pit/store `index` (legend above); bg: the dim background."""
        first, n = self.spans[index]
        laps = LAPS
        if n == 1:
            if c <= 0:
                if bg is None:
                    self.led(first, OFF)
                else:
                    self.led_dim(first, bg, BG_DIV)
            else:
                self.led(first, laps[min(c, len(laps)) - 1])
            return
        if c <= 0:
            k, r = 0, 0
        else:
            k = (c - 1) // n
            r = c - k * n
            if k >= len(laps):  # beyond the legend: the last lap, full
                k, r = len(laps) - 1, n
        fill2 = self.fill2
        if fill2 is not None:  # the same LEDs and total in one call of machine code
            if k > 0:
                under = LAPS_RGB[k - 1]
            elif bg is None:
                under = 0
            else:
                under = (bg[0] // BG_DIV) << 16 | (bg[1] // BG_DIV) << 8 | bg[2] // BG_DIV
            self.total += fill2(self.buf, first, r, LAPS_RGB[k], n - r, under, self.table,
                                self.order)
            return
        if r:
            col = laps[k]
            self.run(first, r, col[0], col[1], col[2])
        if r < n:
            if k > 0:
                col = laps[k - 1]
                self.run(first + r, n - r, col[0], col[1], col[2])
            elif bg is None:
                self.run(first + r, n - r, 0, 0, 0)
            else:
                self.run(first + r, n - r, bg[0] // BG_DIV, bg[1] // BG_DIV, bg[2] // BG_DIV)

    def dot(self, index, pos, c, div=1):
        """One LED of a pit (pos wraps round its span)."""
        first, n = self.spans[index]
        self.led_dim(first + pos % n, c, div)

    # -- output ----------------------------------------------------------------

    def show(self, last=-1):
        """Keep the frame under the current budget, then write it to the chain: all of
        it, or (last >= 0, where the chain takes prefix writes) its LEDs up to the end
        of pit `last`'s span, when the caller changed none after it since the last
        write."""
        s = self.scale
        total = self.total  # (LEDs drawn twice count twice: the estimate errs high)
        # estimated mA = total * s / 255 * ma / 255 must stay <= budget
        if total and total * s * self.ma > self.budget * 65025:
            s2 = (self.budget * 65025) // (total * self.ma)
            if s2 < 0:
                s2 = 0
            t = self.table2
            for v in range(256):
                t[v] = v * s2 // s if s else 0
            b = self.buf
            if self.remap is not None:
                self.remap(b, len(b), t)
            else:
                for i in range(len(b)):
                    b[i] = t[b[i]]
            s = s2
            last = -1  # (every LED rescaled)
        self.last_scale = s
        if last >= 0 and self.write_prefix is not None:
            self.write_prefix(self.prefixes[last])
        else:
            self.np.write()

    def estimate_ma(self, idle_ma_per_led=1):
        """Estimated current of what the chain shows now (for tests and the sim)."""
        return sum(self.buf) * self.ma / 255 + idle_ma_per_led * self.n


def prefix_writer(np, machine):
    """How `np` writes its first bytes alone (Pixels.prefix_writes), or None: the
    chain's own `write_prefix` (the PC's fake chain), else what micropython-lib's
    neopixel write() does, `machine.bitstream` with the chain's pin and timing, over
    a view of the buffer's start.  None for a chain without either (the PIO chain:
    its wire costs the CPU nothing)."""
    own = getattr(np, "write_prefix", None)
    if own is not None:
        return own
    bitstream = getattr(machine, "bitstream", None)
    pin = getattr(np, "pin", None)
    timing = getattr(np, "timing", None)
    if bitstream is None or pin is None or timing is None:
        return None

    def write_prefix(view):
        bitstream(pin, 0, timing, view)

    return write_prefix
