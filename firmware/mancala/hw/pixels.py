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
LAP_NAMES = ("white", "green", "blue", "yellow", "violet", "orange", "cyan", "pink")

SOUTH = (0, 140, 255)
NORTH = (255, 0, 200)
RED = (255, 0, 0)
GREEN = (0, 255, 40)
WHITE = (255, 255, 255)
AMBER = (255, 140, 0)
BG_DIV = 6  # background LEDs are drawn at 1/BG_DIV intensity
# Named backgrounds a decoder can tell apart (by hue, at background intensity).
BACKGROUNDS = (("south", SOUTH), ("north", NORTH), ("red", RED), ("green", GREEN),
               ("white", WHITE), ("amber", AMBER))


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
        self.ma = ma_per_channel
        self.budget = current_limit_ma - idle_ma_per_led * led_count
        self.levels = levels
        self.level = level if 0 <= level < len(levels) else 0
        self.table = bytearray(256)  # full-intensity byte -> byte at the level
        self.table2 = bytearray(256)  # level byte -> byte within the budget
        self.scale = -1
        self.total = 0  # sum of the frame's channels at full intensity
        self.last_scale = 0
        self._use(levels[self.level])

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
            for i in range(len(b)):
                b[i] = 0

    clear = begin

    def run(self, i, n, r, g, b):
        """LEDs i .. i+n-1 in colour (r, g, b) (full-intensity values)."""
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

    def show(self):
        """Keep the frame under the current budget, then write it to the chain."""
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
            for i in range(len(b)):
                b[i] = t[b[i]]
            s = s2
        self.last_scale = s
        self.np.write()

    def estimate_ma(self, idle_ma_per_led=1):
        """Estimated current of what the chain shows now (for tests and the sim)."""
        return sum(self.buf) * self.ma / 255 + idle_ma_per_led * self.n


# -- reading a frame back (simulator, tests): what a person sees -----------------

def _hue_distance(r, g, b, c, m):
    # compare chromaticities: (r,g,b)/m against c/255
    return (abs(r * 255 - c[0] * m) + abs(g * 255 - c[1] * m) + abs(b * 255 - c[2] * m))


def decode(buf, spans, order=(1, 0, 2, 3)):
    """Read the pixel buffer back: (counts, backgrounds) per pit/store.

    counts[i] is the count the legend shows (None if the pit shows something
    else, e.g. a red flash); backgrounds[i] the name of its dim background or
    of its uniform colour, or None.
    """
    top = 0
    for v in buf:
        if v > top:
            top = v
    counts = []  # type: list
    bgs = []  # type: list
    ro, go, bo = order[0], order[1], order[2]
    for first, n in spans:
        best_lap = 0
        in_best = 0
        bad = False
        bg = None
        for i in range(first, first + n):
            j = 3 * i
            r, g, b = buf[j + ro], buf[j + go], buf[j + bo]
            m = max(r, g, b)
            if m == 0:
                continue
            if top and m * 2 <= top and n > 1 or (n == 1 and m * 3 < top):
                bg = _nearest_bg(r, g, b, m)
                continue
            lap = _nearest_lap(r, g, b, m)
            if lap < 0:
                bad = True
                bg = _nearest_bg(r, g, b, m)
                continue
            if lap > best_lap:
                best_lap, in_best = lap, 1
            elif lap == best_lap:
                in_best += 1
        if bad:
            counts.append(None)
        elif best_lap == 0:
            counts.append(0)
        elif n == 1:
            counts.append(best_lap)
        else:
            counts.append((best_lap - 1) * n + in_best)
        bgs.append(bg)
    return counts, bgs


def _nearest_lap(r, g, b, m):
    best, bd = -1, 1 << 29
    for k in range(len(LAPS)):
        d = _hue_distance(r, g, b, LAPS[k], m)
        if d < bd:
            best, bd = k + 1, d
    # a colour far from every lap is not a count (a flash, an animation)
    return best if bd <= 40 * m + 400 else -1  # + rounding of dim frames


def _nearest_bg(r, g, b, m):
    best, bd = None, 1 << 29
    for name, c in BACKGROUNDS:
        d = _hue_distance(r, g, b, c, m)
        if d < bd:
            best, bd = name, d
    return best
