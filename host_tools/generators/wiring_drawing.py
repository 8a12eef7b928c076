"""Each build's wiring diagram (hardware/<build>/wiring.svg): the board seen from above,
the MCU's pin rows and every wire from them, drawn from the profile.  The mechanical
drawings (templates, top view) are hardware_drawings.py's.
"""

import math

from host_tools.generators import pins
from host_tools.generators.hardware_model import BOARD, BUILDS, STORES, usb_powered, worst_case_ma
from host_tools.generators.hardware_tables import (
    chain_start,
    injection_points,
    supply_name,
    wiring_rows,
)

COL = {"sig": "#1f6fb2", "led": "#2e8b2e", "pwr": "#c0392b", "gnd": "#333333",
       "mux": "#8e44ad", "wood": "#f3e2c3", "woodedge": "#a07a43", "box": "#ffffff"}


class Svg:
    def __init__(self, w, h):
        self.w, self.h, self.items = w, h, []

    def add(self, s):
        self.items.append(s)

    def rect(self, x, y, w, h, fill="#fff", stroke="#000", rx=0, sw=1.5):
        self.add('<rect x="%d" y="%d" width="%d" height="%d" rx="%d" fill="%s" stroke="%s" stroke-width="%s"/>'
                 % (x, y, w, h, rx, fill, stroke, sw))

    def circle(self, x, y, r, fill="#fff", stroke="#000", sw=1.0):
        self.add('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" stroke="%s" stroke-width="%s"/>'
                 % (x, y, r, fill, stroke, sw))

    def line(self, pts, color="#000", sw=2.0, dash=None, arrow=False):
        d = " ".join("%d,%d" % p for p in pts)
        extra = ' stroke-dasharray="%s"' % dash if dash else ""
        if arrow:
            extra += ' marker-end="url(#arrow)"'
        self.add('<polyline points="%s" fill="none" stroke="%s" stroke-width="%s"%s/>'
                 % (d, color, sw, extra))

    def text(self, x, y, s, size=12, anchor="start", color="#000", weight="normal"):
        s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.add('<text x="%d" y="%d" font-size="%d" text-anchor="%s" fill="%s" font-weight="%s">%s</text>'
                 % (x, y, size, anchor, color, weight, s))

    def render(self):
        head = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
                'font-family="DejaVu Sans, Arial, sans-serif">\n'
                '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
                'fill="#2e8b2e"/></marker></defs>\n'
                '<rect width="100%%" height="100%%" fill="#ffffff"/>\n' % (self.w, self.h, self.w, self.h))
        return head + "\n".join(self.items) + "\n</svg>\n"


def _pit_centres():
    """Board layout seen from above, south player at the bottom."""
    c = {}
    for k in range(6):
        c[k] = (200 + k * 120, 265)          # S1..S6 left to right
        c[7 + k] = (800 - k * 120, 135)      # N1..N6 right to left
    c[6] = (905, 200)                        # Sstore on the right
    c[13] = (95, 200)                        # Nstore on the left
    return c


def render_svg(name, profile):
    mcu = profile["mcu"]
    b = BUILDS[name]
    rows = wiring_rows(profile)
    W = 1000
    mcu_top = 400
    row_h = 22
    mcu_h = 60 + row_h * (len(rows) + 3)
    H = max(mcu_top + mcu_h + 140, 800)
    s = Svg(W, H)
    s.text(20, 28, "%s: %s" % (name, b["title"]), size=18, weight="bold")
    s.text(20, 48, "generated from firmware/mancala/profiles/%s.py by host_tools/generators/hardware_gen.py" % name,
           size=11, color="#555")

    # --- the board, seen from above
    s.rect(30, 65, 940, 270, fill=COL["wood"], stroke=COL["woodedge"], rx=40, sw=3)
    s.text(500, 82, "north player", size=11, anchor="middle", color="#7a5a2a")
    s.text(500, 328, "south player", size=11, anchor="middle", color="#7a5a2a")
    cent = _pit_centres()
    leds = profile["leds"]
    for i in range(14):
        x, y = cent[i]
        first, count = leds[i]
        if i in STORES:
            s.rect(x - 38, y - 110, 76, 220, fill="#e8d2a8", stroke=COL["woodedge"], rx=30)
            for k in range(count):
                yy = y - 95 + (190.0 * k / max(count - 1, 1) if i == 6 else 190.0 * (count - 1 - k) / max(count - 1, 1))
                s.circle(x + 26, yy, 3.5, fill="#7ddc7d", stroke=COL["led"])
        else:
            s.circle(x, y, 50, fill="#e8d2a8", stroke=COL["woodedge"], sw=1.5)
            for k in range(count):
                a = math.pi / 2 + 2 * math.pi * k / count if i < 6 else -math.pi / 2 + 2 * math.pi * k / count
                if count == 1:
                    a = math.pi / 2 if i < 6 else -math.pi / 2
                s.circle(x + 41 * math.cos(a), y + 41 * math.sin(a), 4, fill="#7ddc7d", stroke=COL["led"])
        ty = y - 8 if i not in STORES else y - 20
        tx = x - (10 if i in STORES else 0)
        s.text(tx, ty, BOARD[i], size=14, anchor="middle", weight="bold")
        s.text(tx, ty + 16, _sensor_label(profile, i), size=11, anchor="middle", color=COL["sig"])
        s.text(tx, ty + 30, _led_range(first, count), size=10, anchor="middle", color=COL["led"])
    # chain order arrows
    order = sorted(range(14), key=lambda i: leds[i][0])
    for a, c in zip(order, order[1:], strict=False):
        (x1, y1), (x2, y2) = cent[a], cent[c]
        dx, dy = x2 - x1, y2 - y1
        dist = math.hypot(dx, dy) or 1
        ra = 52 if a not in STORES else 40
        rc = 58 if c not in STORES else 44
        p1 = (int(x1 + dx * ra / dist), int(y1 + dy * ra / dist))
        p2 = (int(x2 - dx * rc / dist), int(y2 - dy * rc / dist))
        s.line([p1, p2], color=COL["led"], sw=2, arrow=True)

    # --- MCU box with its used pins (LED data first: its wire leaves upwards)
    rows = sorted(rows, key=lambda r: 0 if r[0] == "LED data" else (1 if r[0] == "status LED" else 2))
    mx, my, mw = 40, mcu_top, 300
    stub = mx + mw + 25
    s.rect(mx, my, mw, mcu_h, fill="#e9f1f9", stroke="#34495e", rx=6, sw=2)
    s.text(mx + mw // 2, my + 22, pins.BOARDS[pins.board_key(profile)]["board"].replace("ESP32-WROOM-", "WROOM-"), size=13, anchor="middle", weight="bold")
    s.text(mx + 10, my + 42, "pin    signal", size=10, color="#555")
    pin_y = {}
    for k, (sig, lab, hdr, _to) in enumerate(rows):
        y = my + 62 + k * row_h
        color = COL["mux"] if sig.startswith("mux") else (COL["led"] if sig == "LED data" else COL["sig"])
        s.text(mx + 10, y, "%-5s %s" % (hdr, lab), size=11)
        s.text(mx + mw - 10, y, sig, size=11, anchor="end", color=color, weight="bold")
        s.line([(mx + mw, y - 4), (stub, y - 4)], color=color, sw=2)
        pin_y[sig] = y - 4
    py0 = my + 62 + len(rows) * row_h
    for k, (lab, color) in enumerate(power_pin_labels(name, mcu, profile["sensor"])):
        y = py0 + k * row_h
        s.text(mx + 10, y, lab, size=11, color=color)
        s.line([(mx + mw, y - 4), (stub, y - 4)], color=color, sw=2)

    # --- pit sensor connection (a 14-wire bus to the labelled pits) or multiplexer
    bx, by = 400, mcu_top
    if profile["sensor"] == "gpio":
        # one wire per pit, pin to pit: no bus and no multiplexer (each pit has its own GPIO)
        mid_h = 150
        for i in range(14):
            _pit_wire(s, i, stub, pin_y[BOARD[i]])
        s.rect(bx, by, 240, mid_h, fill="#fff", stroke="#34495e", rx=6)
        s.text(bx + 120, by + 20, "each pit switch (x14)", size=12, anchor="middle", weight="bold")
        s.text(bx + 12, by + 42, "GPIO -- switch -- GND", size=11)
        s.text(bx + 12, by + 59, "internal pull-up, pressed = low", size=10, color="#555")
        s.text(bx + 12, by + 82, "or DRV5033 hall switch:", size=11)
        s.text(bx + 12, by + 99, "VCC=3V3, GND, OUT=GPIO", size=10, color="#555")
        s.text(bx + 12, by + 116, "100 nF VCC-GND at the sensor", size=10, color="#555")
        s.text(bx + 12, by + 138, "14 wires: one GPIO per pit", size=10, color=COL["sig"])
    else:
        mid_h = 205
        s.add('<g id="mux">')
        s.rect(bx, by, 240, mid_h, fill="#f5eefa", stroke=COL["mux"], rx=6, sw=2)
        s.text(bx + 120, by + 20, "CD74HC4067 (3V3)", size=12, anchor="middle", weight="bold")
        for k in range(4):
            y = by + 44 + k * 20
            s.text(bx + 10, y, "S%d" % k, size=11, color=COL["mux"])
            src = pin_y["mux S%d" % k]
            s.line([(stub, src), (370 + k * 6, src), (370 + k * 6, y - 4), (bx, y - 4)], color=COL["mux"], sw=1.5)
        y = by + 132
        s.text(bx + 10, y, "SIG", size=11, color=COL["mux"])
        src = pin_y["mux SIG"]
        s.line([(stub, src), (394, src), (394, y - 4), (bx, y - 4)], color=COL["mux"], sw=1.5)
        s.text(bx + 10, by + 152, "E, C14, C15 -> GND", size=10, color="#555")
        s.text(bx + 10, by + 170, "C0..C13 <- DRV5055A1 OUT", size=10, color="#555")
        s.text(bx + 10, by + 188, "channel of each pit: labels above", size=10, color=COL["sig"])
        s.text(bx + 230, by + 44, "C0..C15", size=11, anchor="end", color=COL["mux"])
        s.line([(bx + 200, by), (bx + 200, 338)], color=COL["mux"], sw=3, dash="8,4")
        s.add('</g>')

    # --- LED data path: resistor, level shifter, first LED
    lx, ly = 690, mcu_top
    s.rect(lx, ly, 270, 150, fill="#eef8ee", stroke=COL["led"], rx=6, sw=2)
    s.text(lx + 135, ly + 20, "74AHCT125 (5 V)", size=12, anchor="middle", weight="bold")
    s.text(lx + 10, ly + 42, "1A <- LED data (3.3 V)", size=11)
    s.text(lx + 10, ly + 60, "1Y -> 330 ohm -> DIN of LED 0 (%s)" % BOARD[chain_start(profile)], size=11)
    s.text(lx + 10, ly + 78, "1OE (pin 1), GND (pin 7) -> GND", size=10, color="#555")
    s.text(lx + 10, ly + 96, "VCC (pin 14) -> 5 V, 100 nF", size=10, color="#555")
    s.text(lx + 10, ly + 114, "unused inputs 2A,3A,4A -> GND", size=10, color="#555")
    src = pin_y["LED data"]
    s.line([(stub, src), (stub + 8, src), (stub + 8, mcu_top - 14), (665, mcu_top - 14),
            (665, ly + 38), (lx, ly + 38)], color=COL["led"], sw=2)
    first_pit = chain_start(profile)
    fx, fy = _pit_centres()[first_pit]
    s.line([(lx + 270, ly + 56), (980, ly + 56), (980, 339), (fx, 339), (fx, fy + 52)], color=COL["led"], sw=2, arrow=True)
    s.text(975, ly + 50, "DIN", size=10, anchor="end", color=COL["led"])

    # --- power
    px, py = 400, mcu_top + mid_h + 25
    s.rect(px, py, 580, 120, fill="#fdf0ee", stroke=COL["pwr"], rx=6, sw=2)
    s.text(px + 10, py + 20, "Power (%s)" % supply_name(b["supply_ma"]), size=12, weight="bold", color=COL["pwr"])
    lines = power_summary(name, profile)
    for k, t in enumerate(lines):
        s.text(px + 10, py + 40 + k * 17, t, size=11)
    # power feed points on the board
    for point, i in injection_points(profile):
        x, y = _pit_centres()[i]
        s.circle(x - 30, y + (40 if i < 7 else -40), 9, fill="#fdf0ee", stroke=COL["pwr"], sw=2)
        s.text(x - 30, y + (44 if i < 7 else -36), point, size=10, anchor="middle", color=COL["pwr"], weight="bold")
    s.text(20, H - 16, "Legend: blue = pit sensor signal, " + ("purple = multiplexer, " if profile["sensor"] == "mux" else "")
           + "green = LED data (arrows: chain order), "
           "red = 5 V feed points A, B, ...", size=10, color="#555")
    return s.render()


def _led_range(first, count):
    return "#%d" % first if count == 1 else "#%d-%d" % (first, first + count - 1)


def _sensor_label(profile, i):
    if profile["sensor"] == "gpio":
        return pins.label(pins.board_key(profile), profile["pit_pins"][i]).split("/")[0]
    return "mux C%d" % profile["mux_channels"][i]


def _pit_wire(s, i, stub, src_y):
    """Pit i's own wire: pin row -> its lane -> its level under the board -> up to the pit."""
    x, y = _pit_centres()[i]
    lane, level = 376 + 1.5 * i, 344 + 3 * i
    if i in STORES:
        drop = x + (20 if i == 13 else -20)
        end = [(drop, y + 110)]
    elif i < 6:
        drop = x + 20
        end = [(drop, int(y + math.sqrt(50 ** 2 - 20 ** 2)))]
    else:   # north row: up between two south pits, then across to the pit
        drop = x + 60
        end = [(drop, 200), (x + 25, 200), (x + 25, int(y + math.sqrt(50 ** 2 - 25 ** 2)))]
    pts = [(stub, src_y), (lane, src_y), (lane, level), (drop, level)] + end
    d = " ".join("%.1f,%d" % p for p in pts)
    s.add('<polyline class="pit-wire" data-pit="%s" points="%s" fill="none" stroke="%s" stroke-width="1.2"/>'
          % (BOARD[i], d, COL["sig"]))


def power_pin_labels(name, mcu, sensor="gpio"):
    if mcu in pins.PICO_MCUS:
        if usb_powered(BUILDS[name]):
            return [("VBUS  40  5 V out to LEDs", COL["pwr"]), ("GND   38", COL["gnd"])]
        return [("VSYS  39  <- 1N5817 <- 5 V", COL["pwr"]), ("3V3   36  " + ("sensors/mux" if sensor == "mux" else "hall switches (option)"), COL["pwr"]),
                ("GND   38", COL["gnd"])]
    return [("5V  J2-19  <- jumper <- 1N5817 <- 5 V", COL["pwr"]), ("3V3  J2-1  sensors", COL["pwr"]),
            ("GND  J2-14", COL["gnd"])]


def power_summary(name, profile):
    b = BUILDS[name]
    pts = injection_points(profile)
    if usb_powered(b):
        return ["USB 5 V from the Pico's VBUS feeds the %d LEDs (point A)." % profile["led_count"],
                "4.7 uF ceramic across 5V-GND at LED 0 (USB: 10 uF max); 330 ohm at DIN of LED 0.",
                "Firmware budget: %d mA for the LEDs, all white at 255 would be %d mA."
                % (profile["current_limit_ma"], round(worst_case_ma(profile, 255))),
                "Powering from a PC port: keep brightness at the lower levels."]
    return ["5 V %.1f A jack -> 3 A polyfuse -> 5 V rail (18 AWG); 1000 uF at feed point A." % (b["supply_ma"] / 1000.0),
            "Rail -> 1N5817 -> MCU board; rail -> 74AHCT125 VCC.",
            "Rail -> 5V/GND bus at %s; every ring taps the bus." % ", ".join("%s (LED %d)" % (p, profile["leds"][i][0]) for p, i in pts),
            "Firmware budget: %d mA for the LEDs (all white at 255 would be %d mA)."
            % (profile["current_limit_ma"], round(worst_case_ma(profile, 255))),
            "All grounds meet at the jack. Never feed the LEDs from USB."
            + (" ESP32: pull the 5V-IN jumper before plugging in USB." if profile["mcu"] == "esp32" else "")]

