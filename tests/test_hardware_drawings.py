"""Issue 26 item 14: a hobbyist can build the board from hardware/: 1:1 drilling templates
and a dimensioned top view from one set of mechanical data, the press physics of the
floating discs, the full BOM, the assembly order, the direct-GPIO wiring diagrams with
their 14 pit wires, and one current limit per build."""

import itertools
import math
import os
import re
import xml.etree.ElementTree as ET

import pytest

from host_tools.generators import hardware_drawings as hd
from host_tools.generators import hardware_gen as hg
from host_tools.generators import hardware_model, hardware_tables, wiring_drawing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = hardware_model.profile_names()
M = hd.MECH
SVG_NS = "{http://www.w3.org/2000/svg}"


def _parse(text):
    root = ET.fromstring(text)
    assert root.tag == SVG_NS + "svg"
    return root


def _by_class(root, tag, cls):
    return [e for e in root.iter(SVG_NS + tag) if e.get("class") == cls]


def _circles(root, cls):
    return [(float(e.get("cx")), float(e.get("cy")), float(e.get("r"))) for e in _by_class(root, "circle", cls)]


def _rects(root, cls):
    return [tuple(float(e.get(k)) for k in ("x", "y", "width", "height")) for e in _by_class(root, "rect", cls)]


def _outputs():
    return hg.outputs()


# ---------------------------------------------------------------- templates and top view

@pytest.mark.parametrize("name", NAMES)
def test_template_is_one_to_one_and_matches_the_data(name):
    files = _outputs()
    text = files["%s/template.svg" % name]
    root = _parse(text)
    length, width = hd.board_size()
    # printable at 1:1: the page size is given in mm and equals the viewBox in user units
    vb = [float(v) for v in root.get("viewBox").split()]
    assert root.get("width") == "%.0fmm" % vb[2] and root.get("height") == "%.0fmm" % vb[3]
    assert vb[2] >= length and vb[3] >= width
    board = _rects(root, "board")
    assert board == [(0.0, 0.0, length, width)]
    bores = _circles(root, "pit-bore")
    assert len(bores) == 12
    centres = hd.pit_centres()
    for (x, y, r), i in zip(bores, sorted(centres), strict=True):
        assert (x, y) == pytest.approx(centres[i]) and 2 * r == pytest.approx(M["pit"]["bore"])
    assert len(_rects(root, "store-slot")) == 2 and len(_circles(root, "store-button-bore")) == 2
    for _x, _y, w, h in _rects(root, "store-slot"):
        assert (w, h) == M["store"]["slot"]
    pockets = _circles(root, "counterbore")
    assert sorted(round(2 * r, 2) for _x, _y, r in pockets) == [M["store"]["button_counterbore"]] * 2 + [M["pit"]["counterbore"]] * 12
    assert len(_circles(root, "screw")) == len(hd.screw_points())
    assert len(_circles(root, "wire-hole")) == 14
    sensor, led = hd.kind(hardware_model.load_profile(name))
    assert len(_rects(root, "switch")) == (14 if sensor == "button" else 0)
    assert len(_rects(root, "hall")) == (14 if sensor == "hall" else 0)
    assert len(_circles(root, "spring")) == (14 * M["spring"]["count"] if sensor == "button" else 0)
    assert len(_circles(root, "ring")) == (12 if led == "ring" else 0)
    assert len(_rects(root, "led")) == (12 if led == "single" else 0)
    assert "100 mm" in text and _by_class(root, "line", "scale")


def test_top_view_carries_the_dimensions_of_the_data():
    root = _parse(_outputs()["top_view.svg"])
    dims = sorted(round(float(e.get("data-mm")), 1) for e in _by_class(root, "line", "dim"))
    length, width = hd.board_size()
    c = hd.pit_centres()
    for wanted in (length, width, M["pit"]["pitch"], M["pit"]["row_gap"], c[0][0],
                   M["store"]["slot"][0], M["store"]["slot"][1]):
        assert round(wanted, 1) in dims
    words = " ".join(t.text or "" for t in root.iter(SVG_NS + "text"))
    assert "bore %.0f" % M["pit"]["bore"] in words and "pocket %.0f" % M["pit"]["counterbore"] in words


def _holes():
    """Every hole or pocket of the top board as a circle (x, y, r) or rect (x, y, w, h)."""
    circles = [(x, y, M["pit"]["counterbore"] / 2) for x, y in hd.pit_centres().values()]
    circles += [(*hd.store_button_centre(i), M["store"]["button_counterbore"] / 2) for i in hd.STORES]
    rects = []
    for i in hd.STORES:
        x, y, w, h = hd.store_slot(i)
        fw, fh = M["store"]["floor"]
        rects.append((x + w / 2 - fw / 2, y + h / 2 - fh / 2, fw, fh))
    return circles, rects


def _circle_rect_gap(c, r):
    x, y, rad = c
    rx, ry, rw, rh = r
    dx = max(rx - x, 0, x - (rx + rw))
    dy = max(ry - y, 0, y - (ry + rh))
    return math.hypot(dx, dy) - rad


def test_pits_stores_and_screws_do_not_overlap_and_clear_the_frame():
    circles, rects = _holes()
    web = 4.0   # wood left between two pockets
    for a, b in itertools.combinations(circles, 2):
        assert math.hypot(a[0] - b[0], a[1] - b[1]) - a[2] - b[2] >= web
    for c in circles:
        for r in rects:
            assert _circle_rect_gap(c, r) >= 2.0
    length, width = hd.board_size()
    rail = M["frame"]["rail_width"]
    for x, y, r in circles:
        assert rail <= x - r and x + r <= length - rail and rail <= y - r and y + r <= width - rail
    for x, y, w, h in rects:
        assert rail <= x and x + w <= length - rail and rail <= y and y + h <= width - rail
    px, py, pw, ph = hd.plate_rect()
    clear = M["screw"]["clearance"] / 2
    for sx, sy in hd.screw_points():
        assert px + clear <= sx <= px + pw - clear and py + clear <= sy <= py + ph - clear
        for c in circles:
            assert math.hypot(sx - c[0], sy - c[1]) - c[2] - clear >= 2.0
        for r in rects:
            assert _circle_rect_gap((sx, sy, clear), r) >= 2.0


def test_the_parts_fit_their_holes():
    pit, disc, ring, sw, sp = M["pit"], M["disc"], M["ring12"], M["switch"], M["spring"]
    # the disc is held by the ledge: wider than the bore, narrower than its pocket
    assert pit["bore"] < disc["diameter"] < pit["counterbore"]
    assert M["store"]["button_bore"] < M["store"]["button_disc"] < M["store"]["button_counterbore"]
    assert disc["thickness"] < pit["counterbore_depth"] < M["board"]["thickness"]
    # the ring lights the pit: inside the bore; the switch fits inside the ring
    assert ring["od"] < pit["bore"] < disc["diameter"]
    assert sw["body"] * math.sqrt(2) / 2 < ring["id"] / 2
    assert M["hall"]["body_w"] < ring["id"]
    x, y = hd.pit_centres()[0]
    springs = hd.spring_centres(x, y, disc["diameter"])
    wx, wy = hd.wire_hole(x, y, disc["diameter"] / 2 - M["wire_hole"] / 2 - 1.0)
    for cx, cy in springs:
        d = math.hypot(cx - x, cy - y)
        assert d - sp["pocket"] / 2 > ring["od"] / 2            # outside the ring
        assert d + sp["od"] / 2 < disc["diameter"] / 2          # under the disc
        assert math.hypot(cx - wx, cy - wy) > (sp["pocket"] + M["wire_hole"]) / 2
    for a, b in itertools.combinations(springs, 2):
        assert math.hypot(a[0] - b[0], a[1] - b[1]) > sp["pocket"]
    assert math.hypot(wx - x, wy - y) - M["wire_hole"] / 2 > ring["od"] / 2
    bx, by = hd.store_button_centre(6)
    small = M["store"]["button_disc"]
    swx, swy = hd.wire_hole(bx, by, small / 2 - M["wire_hole"] / 2 - 1.0)
    corner = (bx + sw["body"] / 2, by + sw["body"] / 2)    # the switch corner nearest the hole
    assert math.hypot(swx - corner[0], swy - corner[1]) > M["wire_hole"] / 2
    for cx, cy in hd.spring_centres(bx, by, small):
        assert math.hypot(cx - bx, cy - by) - sp["pocket"] / 2 > sw["body"] * math.sqrt(2) / 2
        assert math.hypot(cx - swx, cy - swy) > (sp["pocket"] + M["wire_hole"]) / 2
    # cheap build: the single LED clears the switch and sits under the bore
    lx, ly = hd.single_led_centre(x, y)
    half_len, half_w = M["strip"]["pitch"] / 2, M["strip"]["width"] / 2
    assert abs(ly - y) - half_w > sw["body"] / 2
    assert math.hypot(abs(lx - x) + half_len, abs(ly - y) + half_w) < pit["bore"] / 2
    # the store strip, folded, fits under the store floor and its slot
    for name in NAMES:
        count = hardware_model.load_profile(name)["leds"][6][1]
        rows, per, length = hd.store_led_rows(count)
        assert rows * per >= count and length <= M["store"]["floor"][1]
        assert rows * M["strip"]["width"] + (rows - 1) * 4 < M["store"]["slot"][0]
    # the stack: the plunger stops short of the disc, the springs are compressed at rest
    m = hd.press_model()
    assert 0 < m["gap"] < 1.5 and m["preload"] > 0


# ---------------------------------------------------------------- the press

def test_press_table_from_the_data():
    disc = M["disc"]
    disc_g = math.pi * (disc["diameter"] / 2) ** 2 * disc["thickness"] / 1000 * disc["density_g_cm3"]
    assert hd.disc_mass_g() == pytest.approx(disc_g) and 9 < disc_g < 11
    sw, sp = M["switch"], M["spring"]
    rest = M["plate"]["spacer"] + M["pit"]["counterbore_depth"] - disc["thickness"]
    hold = (sp["count"] * sp["rate_n_mm"] * (sp["free_length"] - rest)
            + sp["count"] * sp["rate_n_mm"] * (rest - sw["height"]) + sw["force_n"] - sw["force_tol_n"])
    assert hd.press_model()["hold_min"] == pytest.approx(hold)
    stone = M["stone"]["design_mass_g"]
    for n, grams, newtons, bare, design in hd.press_table():
        assert grams == pytest.approx(disc_g + n * stone)
        assert newtons == pytest.approx(grams * 9.81 / 1000)
        assert bare == (newtons >= 1.0) and design == (newtons >= hold)
    # the point of the design: one stone cannot press a 1 N switch, a pit of them can;
    # with the springs every stone of a 4-seed game sits in one pit without firing it
    assert hd.load_n(1) < 1.0 <= hd.load_n(20)
    assert hd.max_stones_held() >= hd.STONES_4_SEED
    assert hd.load_n(hd.max_stones_held()) < hold <= hd.load_n(hd.max_stones_held() + 1)
    assert hd.press_model()["finger_max"] < 5.0   # still a finger press


def test_hardware_doc_states_the_computed_table():
    with open(os.path.join(ROOT, "docs", "HARDWARE.md"), encoding="utf-8") as f:
        doc = f.read()
    rows = {int(m.group(1)): (m.group(2), m.group(3), m.group(4), m.group(5)) for m in
            re.finditer(r"^\| (\d+) \| (\d+) g \| ([\d.]+) N \| (pressed|free) \| (pressed|free) \|$", doc, re.M)}
    assert sorted(rows) == list(hd.PRESS_STONES)
    for n, grams, newtons, bare, design in hd.press_table():
        assert rows[n] == ("%.0f" % grams, "%.2f" % newtons, "pressed" if bare else "free",
                           "pressed" if design else "free")
    assert "%d stones of %.0f g" % (hd.max_stones_held(), M["stone"]["design_mass_g"]) in doc
    assert "%.2f N" % hd.press_model()["hold_min"] in doc
    with open(os.path.join(ROOT, "hardware", "sensors.md"), encoding="utf-8") as f:
        sensors = f.read()
    assert "(%d glass stones do it)" % (hd.max_stones_held(hold_n=1.0) + 1) in sensors
    assert "up to %d stones from firing" % hd.max_stones_held() in sensors


def test_hall_chooser_stone_is_within_range_and_not_seen_by_the_next_pit():
    p = hardware_model.load_profile("pico_hall")
    assert hd.hall_distance_mm() <= hardware_model.max_trip_distance_mm(p)
    release_mt = (p["hall_threshold"] - p["hall_hysteresis"]) * hardware_model.VCC * 1000 / hardware_model.HALL_SENS_MV_PER_MT
    assert hardware_model.disc_field_mt(M["pit"]["pitch"]) < release_mt   # on-axis bound at the neighbour's distance


# ---------------------------------------------------------------- BOM and assembly

@pytest.mark.parametrize("name", NAMES)
def test_full_bom_counts(name):
    profile = hardware_model.load_profile(name)
    sensor, led = hd.kind(profile)
    electronics = dict(hardware_model.BUILDS[name]["bom"])
    assert electronics.get("button", 0) + electronics.get("hall_lin", 0) == 14
    mech = {(item, size): qty for qty, item, size, _note in hd.mech_bom(profile)}
    by_item = {}
    for (item, _size), qty in mech.items():
        by_item[item] = by_item.get(item, 0) + qty
    assert by_item["pit disc"] == 12 and by_item["store button disc"] == 2 and by_item["store floor"] == 2
    assert by_item["stones"] == 48
    assert by_item.get("compression spring", 0) == (14 * M["spring"]["count"] if sensor == "button" else 0)
    assert by_item["spacer"] == len(hd.screw_points())
    assert by_item.get("chooser stone", 0) == (electronics.get("magnet", 0) if sensor == "hall" else 0)
    for item in ("top board", "back panel", "sensor plate", "tools", "consumables", "frame rail, long"):
        assert item in by_item
    # LEDs: the rings and the strip length hold the profile's chain
    rings = electronics.get("ring12", 0)
    assert rings == (12 if led == "ring" else 0)
    assert profile["led_count"] - 12 * rings <= 60 * electronics["strip60"]
    page = _outputs()["%s/README.md" % name]
    assert "### Mechanics" in page and "(template.svg)" in page and "ASSEMBLY.md" in page
    for qty, item, size, _note in hd.mech_bom(profile):
        assert "| %d | %s | %s |" % (qty, item, size) in page


def test_assembly_order_runs_from_cutting_to_bring_up():
    text = _outputs()["ASSEMBLY.md"]
    steps = [int(m.group(1)) for m in re.finditer(r"^(\d+)\. ", text, re.M)]
    assert steps == list(range(1, len(steps) + 1)) and len(steps) >= 10
    first = re.search(r"^1\. (.*)$", text, re.M).group(1)
    assert first.startswith("Cut")
    assert "(bringup.md)" in text and "template.svg" in text
    for name in NAMES:
        assert "(%s/README.md)" % name in text
    assert os.path.exists(os.path.join(ROOT, "hardware", "bringup.md"))


# ---------------------------------------------------------------- wiring diagram, current limit

@pytest.mark.parametrize("name", NAMES)
def test_direct_gpio_diagrams_draw_14_pit_wires_and_no_multiplexer(name):
    profile = hardware_model.load_profile(name)
    root = _parse(wiring_drawing.render_svg(name, profile))
    wires = _by_class(root, "polyline", "pit-wire")
    mux = [e for e in root.iter() if e.get("id") == "mux"]
    words = " ".join(t.text or "" for t in root.iter(SVG_NS + "text")).lower()
    if profile["sensor"] == "gpio":
        assert sorted(w.get("data-pit") for w in wires) == sorted(hardware_model.BOARD)
        assert not mux and "mux" not in words and "multiplexer" not in words
        starts = {w.get("points").split()[0] for w in wires}
        ends = {w.get("points").split()[-1] for w in wires}
        assert len(starts) == 14 and len(ends) == 14       # 14 pins, 14 pits: no shared bus
    else:
        assert not wires and len(mux) == 1 and "cd74hc4067" in words


@pytest.mark.parametrize("name", NAMES)
def test_current_limit_is_one_number(name):
    # old: the 5 V 3 A rows said 2600 (0.9 x 3000 - 100) while pico_buttons sets 2400
    profile, build = hardware_model.load_profile(name), hardware_model.BUILDS[name]
    limit = profile["current_limit_ma"]
    label = hardware_tables.supply_name(build["supply_ma"])
    page = hardware_tables.render_build_md(name, profile)
    assert "| %s | %d |" % (label, limit) in page
    summary = hardware_tables.render_current_summary(NAMES, {n: hardware_model.load_profile(n) for n in NAMES})
    col = [lab for _ma, lab in hardware_model.SUPPLIES].index(label)
    rows = 0
    for line in summary.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == name and len(cells) == 3 + len(hardware_model.SUPPLIES) and cells[1].isdigit():
            rows += 1
            assert cells[3 + col] in ("ok", "scaled to %d" % limit), line
    assert rows == len(profile["brightness_levels"])
    assert hardware_tables.limit_for_supply(name, profile, build["supply_ma"]) == limit
