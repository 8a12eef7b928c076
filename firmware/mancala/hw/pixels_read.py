"""Reading the chain's buffer back: what a person sees, pit by pit (the simulators'
displays, the tests, the web board's checks).  The board never imports it, so its
code costs no RAM there (in mancala.hw.pixels it held ~2 KB of every board's heap)."""

from mancala.hw.pixels import AMBER, GREEN, LAPS, NORTH, RED, SOUTH, WHITE

LAP_NAMES = ("white", "green", "blue", "yellow", "violet", "orange", "cyan", "pink")
# Named backgrounds a decoder can tell apart (by hue, at background intensity).
BACKGROUNDS = (("south", SOUTH), ("north", NORTH), ("red", RED), ("green", GREEN),
               ("white", WHITE), ("amber", AMBER))


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
