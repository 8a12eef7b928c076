"""Mechanics of the board as data -> drilling templates (SVG, 1:1 mm), top view, press
physics, mechanical BOM and assembly order.

One source: MECH below holds every dimension; host_tools/generators/hardware_gen.py (and
hardware_tables.py, for the mechanical BOM) calls the
render_* functions here for every build and writes the results under hardware/. The
electronics (sensor kind, LED spans) come from the board profile the firmware loads, so
a drawing shows the rings, strips or single LEDs that profile drives.

Coordinates: millimetres, origin at the top-left corner of the board seen from above,
x to the right, y down, the South player at the bottom (as in hardware/README.md).
"""

import math

from host_tools.generators.hardware_model import BOARD, STORES

G = 9.81  # m/s^2: grams -> newtons

MECH = {
    # top board: hardwood or MDF, pits bored through, counterbored from below
    "board": {"length": 600.0, "width": 240.0, "thickness": 18.0, "corner_r": 20.0},
    "pit": {
        "pitch": 70.0,           # centre to centre along a row
        "row_gap": 75.0,         # South row centre to North row centre
        "bore": 56.0,            # the pit: bored through the top board (Forstner bit)
        "counterbore": 62.0,     # from below: the pocket the acrylic disc sits in
        "counterbore_depth": 5.0,
    },
    "disc": {"diameter": 60.0, "thickness": 3.0, "density_g_cm3": 1.19},  # opal PMMA
    "store": {
        "slot": (60.0, 148.0),          # through the top board (x, y size)
        "floor": (66.0, 154.0),         # fixed acrylic floor, in a pocket of this size
        "centre_x_from_end": 55.0,      # pocket clear of the 18 mm end rail
        "button_gap": 3.0,              # wood between the floor pocket and the button's
        "button_bore": 30.0, "button_counterbore": 36.0, "button_disc": 34.0,
    },
    # the sensor plate: 6 mm plywood hung under the top board on spacers; rings,
    # switches, springs and hall sensors sit on it or under the discs
    "plate": {"margin": 20.0, "thickness": 6.0, "spacer": 6.0},
    "frame": {"rail_width": 18.0, "rail_height": 30.0},
    "back": {"thickness": 4.0},
    "ring12": {"od": 37.0, "id": 23.0, "height": 3.5},           # Adafruit 1643
    "strip": {"pitch": 1000.0 / 60, "width": 10.0},               # 60 LED/m WS2812B
    "switch": {"body": 12.0, "height": 7.3, "plunger": 3.5,       # Omron B3F-4055
               "force_n": 2.55, "force_tol_n": 0.69, "pretravel": 0.25},
    "spring": {"od": 6.0, "free_length": 10.0, "rate_n_mm": 0.15, "count": 3, "pocket": 6.5},
    "hall": {"body_w": 4.0, "body_t": 1.5, "magnet_in_stone": 1.0},  # DRV5055 TO-92 (UA)
    "stone": {"mass_g": (3.0, 6.0), "design_mass_g": 6.0},
    "wire_hole": 8.0,
    "screw": {"clearance": 3.5, "size": "M3"},
}


# ---------------------------------------------------------------------------
# Geometry
# ---------------------------------------------------------------------------

def board_size():
    b = MECH["board"]
    return b["length"], b["width"]


def pit_centres():
    """{index: (x, y)} for the 12 pits, in mm."""
    length, width = board_size()
    pitch, gap = MECH["pit"]["pitch"], MECH["pit"]["row_gap"]
    south_y, north_y = width / 2 + gap / 2, width / 2 - gap / 2
    c = {}
    for k in range(6):
        c[k] = (length / 2 + pitch * (k - 2.5), south_y)            # S1..S6 left to right
        c[7 + k] = (length / 2 + pitch * (2.5 - k), north_y)        # N1..N6 right to left
    return c


def store_slot(i):
    """(x, y, w, h) of store i's slot (6 = Sstore on the right, 13 = Nstore on the left)."""
    length, width = board_size()
    st = MECH["store"]
    w, h = st["slot"]
    cx = length - st["centre_x_from_end"] if i == 6 else st["centre_x_from_end"]
    # the store and its button sit centred together; the button at the owner's end
    shift = (st["button_gap"] + st["button_counterbore"]) / 2
    cy = width / 2 - shift if i == 6 else width / 2 + shift
    return cx - w / 2, cy - h / 2, w, h


def store_button_centre(i):
    """The store's own press spot: at the end of the slot next to its owner."""
    st = MECH["store"]
    x, y, w, h = store_slot(i)
    r = st["button_counterbore"] / 2
    lip = (st["floor"][1] - h) / 2 + st["button_gap"] + r
    return (x + w / 2, y + h + lip) if i == 6 else (x + w / 2, y - lip)


def sensor_centres():
    """{index: (x, y)}: where each of the 14 sensors sits (pit centres, store buttons)."""
    c = dict(pit_centres())
    for i in STORES:
        c[i] = store_button_centre(i)
    return c


def spring_centres(cx, cy, disc_d):
    """The return springs under a floating disc, 120 degrees apart between ring and edge."""
    sp = MECH["spring"]
    r = disc_d / 2 - sp["od"] / 2 - 1.5
    return [(cx + r * math.cos(math.radians(90 + 120 * k)), cy + r * math.sin(math.radians(90 + 120 * k)))
            for k in range(sp["count"])]


def screw_points():
    """Sensor plate screws: on the midline between pits and along both long edges."""
    length, width = board_size()
    pitch = MECH["pit"]["pitch"]
    xs = [length / 2 + pitch * (k - 2) for k in (0, 2, 4)]   # between pit 1|2, 3|4, 5|6
    edge = MECH["frame"]["rail_width"] + 8.0
    pts = [(x, y) for x in xs for y in (edge, width - edge)]
    pts += [(x, width / 2) for x in xs]
    # beside each store button, where the plate carries that store's switch
    for i in STORES:
        bx, by = store_button_centre(i)
        off = MECH["store"]["button_counterbore"] / 2 + 9.0
        pts += [(bx - off, by), (bx + off, by)]
    return pts


def plate_rect():
    length, width = board_size()
    m = MECH["plate"]["margin"]
    return m, m, length - 2 * m, width - 2 * m


def wire_hole(cx, cy, r):
    """The plate hole under each pit the ring and sensor wires go down through."""
    a = math.radians(30)   # between the springs at 330 and 90 degrees (y down)
    return cx + r * math.cos(a), cy + r * math.sin(a)


def kind(profile):
    """What sits under a pit: 'button' or 'hall' (sensor), 'ring' or 'single' (LED)."""
    sensor = "button" if profile["sensor"] == "gpio" else "hall"
    led = "ring" if all(c > 1 for c in (profile["leds"][i][1] for i in range(14) if i not in STORES)) else "single"
    return sensor, led


def disc_mass_g(d=None):
    disc = MECH["disc"]
    d = disc["diameter"] if d is None else d
    return math.pi * (d / 20.0) ** 2 * (disc["thickness"] / 10.0) * disc["density_g_cm3"]


# ---------------------------------------------------------------------------
# Physics of the press (button builds)
# ---------------------------------------------------------------------------

def press_model():
    """Forces (N) that hold a floating pit disc up, lowest case (switch at -tolerance).

    The disc is pushed up against the ledge of its counterbore by the springs. A load
    moves it only past the springs' preload; it then travels `gap` to the plunger
    (springs getting stiffer) and the switch fires at its operating force.
    """
    pit, sw, sp, plate = MECH["pit"], MECH["switch"], MECH["spring"], MECH["plate"]
    t = MECH["board"]["thickness"]
    disc_bottom_above_underside = pit["counterbore_depth"] - MECH["disc"]["thickness"]
    rest_len = plate["spacer"] + disc_bottom_above_underside   # plate top -> disc bottom
    gap = rest_len - sw["height"]                               # plunger top -> disc bottom
    rate = sp["rate_n_mm"] * sp["count"]
    preload = rate * (sp["free_length"] - rest_len)
    to_plunger = rate * gap
    fire_min = sw["force_n"] - sw["force_tol_n"]
    fire_max = sw["force_n"] + sw["force_tol_n"]
    return {"pit_depth": t - pit["counterbore_depth"], "gap": gap, "travel": gap + sw["pretravel"],
            "preload": preload, "to_plunger": to_plunger,
            "hold_min": preload + to_plunger + fire_min,      # a load above this may fire it
            "finger_nominal": preload + to_plunger + sw["force_n"],
            "finger_max": preload + to_plunger + fire_max,
            "switch_alone_1n": 1.0, "disc_g": disc_mass_g()}


def load_n(stones, stone_g=None):
    stone_g = MECH["stone"]["design_mass_g"] if stone_g is None else stone_g
    return (disc_mass_g() + stones * stone_g) * G / 1000.0


def max_stones_held(stone_g=None, hold_n=None):
    """Most stones of stone_g grams the disc carries without the switch firing."""
    hold_n = press_model()["hold_min"] if hold_n is None else hold_n
    n = 0
    while load_n(n + 1, stone_g) < hold_n:
        n += 1
    return n


PRESS_STONES = (0, 1, 2, 4, 8, 12, 16, 20, 24, 30, 36, 48, 60, 72)


def press_table():
    """[(stones, load_g, load_N, fires a bare 1 N switch?, fires the design?)]"""
    m = press_model()
    rows = []
    for n in PRESS_STONES:
        f = load_n(n)
        rows.append((n, f * 1000.0 / G, f, f >= m["switch_alone_1n"], f >= m["hold_min"]))
    return rows


def render_press_md():
    m = press_model()
    sw, sp = MECH["switch"], MECH["spring"]
    lo, hi = MECH["stone"]["mass_g"]
    out = ["The pit disc is %.0f mm opal acrylic, %.0f mm thick: %.1f g. A glass stone weighs "
           "%.0f-%.0f g; the table uses %.0f g. A bare 1 N (102 g) tactile switch under the disc "
           "would be held down by %d stones: a pit of stones would read as pressed all game."
           % (MECH["disc"]["diameter"], MECH["disc"]["thickness"], m["disc_g"], lo, hi,
              MECH["stone"]["design_mass_g"], max_stones_held(hold_n=m["switch_alone_1n"]) + 1), "",
           "Design: the press is the finger's. %d springs (%.0f mm OD, %.0f mm free, %.2f N/mm) "
           "push the disc up against the ledge of its counterbore with %.2f N; a load first "
           "has to overcome that, then %.2f mm more travel (%.2f N) to reach the plunger of a "
           "%.2f +/- %.2f N switch (Omron B3F-4055, high-force). Lowest force that can fire "
           "it: **%.2f N (%.0f g)**; a finger presses %.2f N (at most %.2f N), %.2f mm travel."
           % (sp["count"], sp["od"], sp["free_length"], sp["rate_n_mm"], m["preload"],
              m["gap"], m["to_plunger"], sw["force_n"], sw["force_tol_n"], m["hold_min"],
              m["hold_min"] * 1000 / G, m["finger_nominal"], m["finger_max"], m["travel"]), "",
           "| stones | disc + stones | force | bare 1 N switch | this design |",
           "|---|---|---|---|---|"]
    for n, g, f, bare, design in press_table():
        out.append("| %d | %.0f g | %.2f N | %s | %s |" % (n, g, f, "pressed" if bare else "free",
                                                          "pressed" if design else "free"))
    out += ["", "Rule: up to **%d stones of %.0f g** (%d of %.0f g) never fire a pit: every "
            "stone of a 4-seed game (48) fits in one pit. A 6-seed game (72 stones) needs "
            "stones of %.0f g or less, or a fourth spring. Stores never carry stones on a "
            "sensor: the store's press spot is its own small disc beside the store."
            % (max_stones_held(), MECH["stone"]["design_mass_g"], max_stones_held(lo), lo,
               _max_stone_g(72)), ""]
    return out


def _max_stone_g(stones):
    m = press_model()
    return (m["hold_min"] * 1000 / G - m["disc_g"]) / stones


# ---------------------------------------------------------------------------
# SVG (mm units)
# ---------------------------------------------------------------------------

STYLE = {"cut": "#000000", "pocket": "#1f6fb2", "led": "#2e8b2e", "sensor": "#c0392b",
         "plate": "#8e44ad", "dim": "#555555"}


class MmSvg:
    def __init__(self, w, h, scale_1to1=True, pad=10.0):
        self.w, self.h, self.pad, self.items = w, h, pad, []
        self.one_to_one = scale_1to1

    def add(self, s):
        self.items.append(s)

    def circle(self, cls, x, y, d, color, label=None, dash=None, sw=0.3):
        extra = ' stroke-dasharray="%s"' % dash if dash else ""
        ident = ' id="%s"' % label if label else ""
        self.add('<circle class="%s"%s cx="%.2f" cy="%.2f" r="%.2f" fill="none" stroke="%s" '
                 'stroke-width="%s"%s/>' % (cls, ident, x, y, d / 2, color, sw, extra))

    def rect(self, cls, x, y, w, h, color, rx=0.0, label=None, dash=None, sw=0.3):
        extra = ' stroke-dasharray="%s"' % dash if dash else ""
        ident = ' id="%s"' % label if label else ""
        self.add('<rect class="%s"%s x="%.2f" y="%.2f" width="%.2f" height="%.2f" rx="%.2f" '
                 'fill="none" stroke="%s" stroke-width="%s"%s/>'
                 % (cls, ident, x, y, w, h, rx, color, sw, extra))

    def line(self, x1, y1, x2, y2, color, sw=0.2, cls="mark"):
        self.add('<line class="%s" x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="%s" stroke-width="%s"/>'
                 % (cls, x1, y1, x2, y2, color, sw))

    def cross(self, x, y, size=3.0):
        self.line(x - size, y, x + size, y, STYLE["cut"], cls="centre")
        self.line(x, y - size, x, y + size, STYLE["cut"], cls="centre")

    def text(self, x, y, s, size=3.0, anchor="middle", color="#000"):
        s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.add('<text x="%.2f" y="%.2f" font-size="%.1f" text-anchor="%s" fill="%s">%s</text>'
                 % (x, y, size, anchor, color, s))

    def dim(self, x1, y1, x2, y2, label, off):
        """A dimension line between two points, offset perpendicular by `off` mm."""
        dx, dy = x2 - x1, y2 - y1
        n = math.hypot(dx, dy) or 1.0
        ox, oy = -dy / n * off, dx / n * off
        a, b = (x1 + ox, y1 + oy), (x2 + ox, y2 + oy)
        self.line(x1, y1, a[0], a[1], STYLE["dim"], 0.15, "dim-ext")
        self.line(x2, y2, b[0], b[1], STYLE["dim"], 0.15, "dim-ext")
        self.add('<line class="dim" data-mm="%.2f" x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="%s" '
                 'stroke-width="0.2" marker-start="url(#tick)" marker-end="url(#tick)"/>'
                 % (n, a[0], a[1], b[0], b[1], STYLE["dim"]))
        self.text((a[0] + b[0]) / 2 + (oy and 0), (a[1] + b[1]) / 2 - 1.0, label, 3.2, color=STYLE["dim"])

    def render(self):
        p = self.pad
        w, h = self.w + 2 * p, self.h + 2 * p
        size = ('width="%.0fmm" height="%.0fmm"' % (w, h)) if self.one_to_one else 'width="%.0f" height="%.0f"' % (w * 2, h * 2)
        head = ('<svg xmlns="http://www.w3.org/2000/svg" %s viewBox="%.1f %.1f %.1f %.1f" '
                'font-family="DejaVu Sans, Arial, sans-serif">\n'
                '<defs><marker id="tick" viewBox="0 0 4 4" refX="2" refY="2" markerWidth="4" '
                'markerHeight="4" orient="auto"><path d="M2,0 L2,4" stroke="#555" stroke-width="0.6"/>'
                '</marker></defs>\n<rect x="%.1f" y="%.1f" width="100%%" height="100%%" fill="#ffffff"/>\n'
                % (size, -p, -p, w, h, -p, -p))
        return head + "\n".join(self.items) + "\n</svg>\n"


def _draw_board(s, profile, dimensioned):
    length, width = board_size()
    pit, st, disc = MECH["pit"], MECH["store"], MECH["disc"]
    s.rect("board", 0, 0, length, width, STYLE["cut"], rx=MECH["board"]["corner_r"], sw=0.5)
    px, py, pw, ph = plate_rect()
    s.rect("plate", px, py, pw, ph, STYLE["plate"], dash="4,2")
    sensor, led = kind(profile) if profile else ("button", "ring")
    spans = profile["leds"] if profile else None
    for i, (x, y) in sorted(pit_centres().items()):
        s.circle("pit-bore", x, y, pit["bore"], STYLE["cut"], label="bore-" + BOARD[i], sw=0.5)
        s.circle("counterbore", x, y, pit["counterbore"], STYLE["pocket"], label="pocket-" + BOARD[i], dash="2,1")
        s.cross(x, y)
        _draw_mount(s, x, y, disc["diameter"], sensor, led, BOARD[i])
        s.text(x, y - pit["bore"] / 2 + 6, BOARD[i], 4.0)
        if spans:
            first, count = spans[i]
            s.text(x, y + pit["bore"] / 2 - 3, "LED %s" % (first if count == 1 else "%d-%d" % (first, first + count - 1)),
                   2.6, color=STYLE["led"])
    for i in STORES:
        x, y, w, h = store_slot(i)
        fw, fh = st["floor"]
        s.rect("store-slot", x, y, w, h, STYLE["cut"], rx=8, label="slot-" + BOARD[i], sw=0.5)
        s.rect("store-pocket", x + w / 2 - fw / 2, y + h / 2 - fh / 2, fw, fh, STYLE["pocket"], rx=10, dash="2,1")
        count = spans[i][1] if spans else 18
        _draw_store_leds(s, x + w / 2, y + h / 2, count)
        bx, by = store_button_centre(i)
        s.circle("store-button-bore", bx, by, st["button_bore"], STYLE["cut"], label="bore-" + BOARD[i], sw=0.5)
        s.circle("counterbore", bx, by, st["button_counterbore"], STYLE["pocket"], dash="2,1")
        s.cross(bx, by)
        _draw_mount(s, bx, by, st["button_disc"], sensor, None, BOARD[i])
        s.text(x + w / 2, y + 8, BOARD[i], 4.0)
    for k, (x, y) in enumerate(screw_points()):
        s.circle("screw", x, y, MECH["screw"]["clearance"], STYLE["plate"], label="screw-%d" % k)
    if dimensioned:
        _dimensions(s)
    else:
        s.line(10, width - 6, 110, width - 6, STYLE["cut"], 0.4, "scale")
        s.text(60, width - 8, "100 mm: check this with a ruler after printing (print at 100 %, no fit-to-page)", 3.0)


def _draw_mount(s, x, y, disc_d, sensor, led, name):
    sw, ring, sp, strip = MECH["switch"], MECH["ring12"], MECH["spring"], MECH["strip"]
    if led == "ring":
        s.circle("ring", x, y, ring["od"], STYLE["led"], label="ring-" + name)
        s.circle("ring-id", x, y, ring["id"], STYLE["led"])
    elif led == "single":
        lx, ly = single_led_centre(x, y)
        s.rect("led", lx - strip["pitch"] / 2, ly - strip["width"] / 2, strip["pitch"], strip["width"],
               STYLE["led"], label="led-" + name)
    if sensor == "button":
        b = sw["body"]
        s.rect("switch", x - b / 2, y - b / 2, b, b, STYLE["sensor"], label="switch-" + name)
        s.circle("plunger", x, y, sw["plunger"], STYLE["sensor"])
        for k, (cx, cy) in enumerate(spring_centres(x, y, disc_d)):
            s.circle("spring", cx, cy, sp["pocket"], STYLE["sensor"], label="spring-%s-%d" % (name, k))
    else:
        h = MECH["hall"]
        s.rect("hall", x - h["body_w"] / 2, y - h["body_t"] / 2, h["body_w"], h["body_t"], STYLE["sensor"],
               label="hall-" + name)
    # every sensor's wires (and a pit's ring taps) go down through the plate
    wx, wy = wire_hole(x, y, disc_d / 2 - MECH["wire_hole"] / 2 - 1.0)
    s.circle("wire-hole", wx, wy, MECH["wire_hole"], STYLE["plate"], label="wire-" + name)


def single_led_centre(x, y):
    """Cheap build: the one LED sits beside the switch, towards the middle of the board."""
    off = MECH["switch"]["body"] / 2 + MECH["strip"]["width"] / 2 + 2.0
    return x, (y - off if y > board_size()[1] / 2 else y + off)


def store_led_rows(count):
    """A store's strip piece folded into rows: (rows, LEDs per row, row length mm)."""
    rows = 1 if count <= 9 else 2
    per = int(math.ceil(count / float(rows)))
    return rows, per, per * MECH["strip"]["pitch"]


def _draw_store_leds(s, cx, cy, count):
    strip = MECH["strip"]
    rows, per, length = store_led_rows(count)
    for r in range(rows):
        x = cx - (rows * strip["width"] + (rows - 1) * 4) / 2 + r * (strip["width"] + 4)
        s.rect("store-strip", x, cy - length / 2, strip["width"], length, STYLE["led"])


def _dimensions(s):
    length, width = board_size()
    c = pit_centres()
    pit = MECH["pit"]
    s.dim(0, 0, length, 0, "%.0f" % length, -6)
    s.dim(0, 0, 0, width, "%.0f" % width, 6)
    s.dim(c[0][0], c[0][1], c[1][0], c[1][1], "%.0f pitch" % pit["pitch"], width - c[0][1] + 8)
    s.dim(c[12][0], c[12][1], c[0][0], c[0][1], "%.0f rows" % pit["row_gap"], -(c[0][0] - c[0][0] * 0.5))
    s.dim(0, c[0][1], c[0][0], c[0][1], "%.0f" % c[0][0], -(c[0][1] + 14))
    for i in STORES:
        x, y, w, h = store_slot(i)
        s.dim(x, y, x, y + h, "%.0f" % h, -(w + 6) if i == 6 else 6 + 0 * w)
        s.dim(x, y + h / 2, x + w, y + h / 2, "%.0f" % w, 0)
    bx, by = store_button_centre(6)
    s.text(bx, by + MECH["store"]["button_counterbore"] / 2 + 4, "button %.0f / %.0f" % (
        MECH["store"]["button_bore"], MECH["store"]["button_counterbore"]), 3.0, color=STYLE["dim"])
    x, y = c[3]
    s.text(x, y + pit["counterbore"] / 2 + 4, "bore %.0f, pocket %.0f" % (pit["bore"], pit["counterbore"]), 3.0,
           color=STYLE["dim"])
    s.text(c[3][0], width + 6, "pit: bore %.0f through, pocket %.0f x %.0f deep from below, disc %.0f x %.0f; "
           "store slot %.0f x %.0f, store button bore %.0f" % (pit["bore"], pit["counterbore"], pit["counterbore_depth"],
                                                               MECH["disc"]["diameter"], MECH["disc"]["thickness"],
                                                               MECH["store"]["slot"][0], MECH["store"]["slot"][1],
                                                               MECH["store"]["button_bore"]), 3.4)


def render_template_svg(name, profile):
    """1:1 drilling template of the top board and sensor plate for one build."""
    length, width = board_size()
    s = MmSvg(length, width + 10)
    s.text(length / 2, -3, "%s drilling template 1:1 (mm), seen from above. Black: through; blue dashed: "
           "pocket from below; purple: sensor plate; green: LEDs; red: sensors" % name, 3.5)
    _draw_board(s, profile, dimensioned=False)
    return s.render()


def render_top_view_svg():
    """Dimensioned top view (not to scale on screen; every number in mm)."""
    length, width = board_size()
    s = MmSvg(length + 20, width + 20, scale_1to1=False, pad=20)
    s.text(length / 2, -12, "Top view, dimensions in mm (generated by host_tools/generators/hardware_drawings.py)", 5)
    _draw_board(s, None, dimensioned=True)
    return s.render()


# ---------------------------------------------------------------------------
# Mechanical BOM and assembly order
# ---------------------------------------------------------------------------

STONES_4_SEED = 48
STONES_6_SEED = 72


def mech_bom(profile, led_bom_rings=True):
    """[(qty, item, size/spec, note)] of everything that is not electronics."""
    sensor, led = kind(profile)
    length, width = board_size()
    b, f, plate, back = MECH["board"], MECH["frame"], MECH["plate"], MECH["back"]
    px, py, pw, ph = plate_rect()
    pit, disc, st = MECH["pit"], MECH["disc"], MECH["store"]
    rows = [
        (1, "top board", "%.0f x %.0f x %.0f mm hardwood or MDF" % (length, width, b["thickness"]), "pits bored through"),
        (2, "frame rail, long", "%.0f x %.0f x %.0f mm" % (length, f["rail_width"], f["rail_height"]), "sides of the cavity"),
        (2, "frame rail, short", "%.0f x %.0f x %.0f mm" % (width - 2 * f["rail_width"], f["rail_width"], f["rail_height"]), "ends; slot for USB at the S1 end"),
        (1, "sensor plate", "%.0f x %.0f x %.0f mm plywood" % (pw, ph, plate["thickness"]), "carries rings and sensors"),
        (1, "back panel", "%.0f x %.0f x %.0f mm plywood or hardboard" % (length, width, back["thickness"]), "screwed, removable"),
        (12, "pit disc", "%.0f mm x %.0f mm opal (frosted) acrylic" % (disc["diameter"], disc["thickness"]), "floats on springs" if sensor == "button" else "glued in its pocket"),
        (2, "store button disc", "%.0f mm x %.0f mm opal acrylic" % (st["button_disc"], disc["thickness"]), "floats on springs" if sensor == "button" else "glued; set the chooser stone here"),
        (2, "store floor", "%.0f x %.0f x %.0f mm opal acrylic" % (st["floor"][0], st["floor"][1], disc["thickness"]), "glued in its pocket"),
        (len(screw_points()), "spacer", "%s nylon, %.0f mm long" % (MECH["screw"]["size"], plate["spacer"]), "top board -> sensor plate"),
        (len(screw_points()), "wood screw", "3 x 20 mm pan head", "sensor plate, through the spacers"),
        (8, "wood screw", "4 x 40 mm countersunk", "rails to top board (with glue)"),
        (10, "wood screw", "3 x 12 mm countersunk", "back panel to rails"),
        (4, "rubber foot", "12 mm self-adhesive", "under the back panel"),
        (STONES_4_SEED, "stones", "glass, 15-20 mm, %.0f-%.0f g" % MECH["stone"]["mass_g"], "4 per pit; 72 for a 6-seed game"),
    ]
    if sensor == "button":
        sp = MECH["spring"]
        rows.insert(9, (14 * sp["count"], "compression spring", "%.0f mm OD, %.0f mm free length, %.2f N/mm"
                        % (sp["od"], sp["free_length"], sp["rate_n_mm"]), "%d under every disc" % sp["count"]))
    else:
        rows.append((4, "chooser stone", "stone with the 10 x 3 mm magnet glued in, marked", "the magnet is in the BOM above"))
    rows.append((1, "consumables", "wood glue, hot glue, epoxy (acrylic), solder, heat-shrink, cable ties, sandpaper, finish oil", ""))
    rows.append((1, "tools", "drill press or router, Forstner bits %.0f, %.0f, %.0f and %.0f mm, jigsaw, drills 3.5 / %.0f / %.1f mm, "
                 "soldering iron, multimeter, clamps" % (pit["bore"], pit["counterbore"], st["button_bore"], st["button_counterbore"],
                                                         MECH["wire_hole"], MECH["spring"]["pocket"]), ""))
    return rows


def render_mech_bom(profile):
    out = ["### Mechanics\n", "| qty | item | size | note |", "|---|---|---|---|"]
    for qty, item, size, note in mech_bom(profile):
        out.append("| %d | %s | %s | %s |" % (qty, item, size, note))
    out.append("\nDrilling template (1:1, print at 100 % and tile): [template.svg](template.svg); "
               "dimensioned top view: [../top_view.svg](../top_view.svg); order of work: "
               "[../ASSEMBLY.md](../ASSEMBLY.md).\n")
    return out


def render_assembly_md(names, profiles, generated_line):
    pit, st, disc, pm = MECH["pit"], MECH["store"], MECH["disc"], press_model()
    sp, f = MECH["spring"], MECH["frame"]
    length, width = board_size()
    out = [generated_line, "# Assembly order\n",
           "Every number below comes from `host_tools/generators/hardware_drawings.py` (MECH), the same data "
           "as the drilling templates (`hardware/<build>/template.svg`) and the mechanical BOMs. "
           "Builds: %s.\n" % ", ".join("[%s](%s/README.md)" % (n, n) for n in names),
           "![top view](top_view.svg)\n"]
    steps = [
        "Cut the top board to %.0f x %.0f mm, the rails (%.0f x %.0f mm section), the sensor plate and the back panel "
        "(sizes: the build's mechanical BOM)." % (length, width, f["rail_width"], f["rail_height"]),
        "Print the build's `template.svg` at 100 % (tiled), check the 100 mm bar, tape it on the top board's face and "
        "centre-punch every cross.",
        "Bore the 12 pits %.0f mm through and the 2 store buttons %.0f mm through (Forstner bit, drill press; a backing "
        "board stops tear-out); rout the 2 store slots %.0f x %.0f mm." % (pit["bore"], st["button_bore"], *st["slot"]),
        "Turn the board over: from below, pocket every pit %.0f mm wide, %.0f mm deep (concentric with the bore), the "
        "store buttons %.0f mm and the store floors %.0f x %.0f mm, same depth. The ledge this leaves holds the discs."
        % (pit["counterbore"], pit["counterbore_depth"], st["button_counterbore"], *st["floor"]),
        "Lay the template on the sensor plate, aligned on its dashed outline: drill the %d screw holes 3.5 mm, the "
        "%.0f mm wire holes beside every pit and store button and, for button builds, the spring pockets %.1f mm, 2 mm deep."
        % (len(screw_points()), MECH["wire_hole"], sp["pocket"]),
        "Sand, round the pit edges, finish (oil) and let it cure before any acrylic goes in.",
        "Glue the rails to the top board (4 x 40 mm screws), cut the USB slot in the rail at the S1 end.",
        "Glue the store floors (%.0f mm opal acrylic) into their pockets." % disc["thickness"],
        "On the sensor plate: glue the rings (or single LEDs) centred on their marks, the sensors in the middle "
        "(button builds: the switch, then the %d springs in their pockets; hall builds: nothing, the sensor goes on "
        "the disc), the store strips in rows." % sp["count"],
        "Wire the plate per the build's wiring page (`<build>/README.md`): LED data chain, 18 AWG 5 V / GND bus with "
        "short taps, sensor wires of each row bundled.",
        "Discs: button builds drop the %.0f mm discs into their pockets loose (they float on the springs, stopped by "
        "the ledge); hall builds glue them in and tape each DRV5055 under its disc's centre, marked face up against the "
        "acrylic." % disc["diameter"],
        "Hang the sensor plate under the top board on the %.0f mm spacers (3 x 20 mm screws). Button builds: press "
        "each disc: a click after about %.1f mm, and it springs back." % (MECH["plate"]["spacer"], pm["travel"]),
        "Mount the perfboard (MCU, 74AHCT125, fuse, diode, jack) at the S1 end; power and bring-up before closing: "
        "[bringup.md](bringup.md).",
        "Screw the back panel on (10 x 3 x 12 mm), stick the feet, put 4 stones in every pit.",
    ]
    for k, step in enumerate(steps, 1):
        out.append("%d. %s" % (k, step))
    out += ["", "## The press (button builds)\n"] + render_press_md()
    out += ["## Hall builds: where the magnet is\n",
            "The DRV5055 sits under the fixed pit disc, on its axis; the magnet is in a marked **chooser "
            "stone** (4 supplied, two per player: some gestures touch two places at once) that a player "
            "sets in the pit to choose it. "
            "Not in every stone: a pit holding any stones would then always read as chosen. Not in a sprung "
            "disc: the stones' weight would push it down just as it does a switch, and the board would lose "
            "its sealed, moving-part-free top. Magnet to sensor: %.0f mm acrylic + %.0f mm in the stone = "
            "%.0f mm, well inside the detection range in [sensors.md](sensors.md); the next pit is %.0f mm "
            "away." % (disc["thickness"], MECH["hall"]["magnet_in_stone"], hall_distance_mm(), pit["pitch"]), ""]
    return "\n".join(out) + "\n"


def hall_distance_mm():
    return MECH["disc"]["thickness"] + MECH["hall"]["magnet_in_stone"]
