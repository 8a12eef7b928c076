"""The current each board draws in each state (playing at each brightness level, dim,
dark) and the hours of play per charge of the battery option (hardware/battery.md).

The LEDs' share is the firmware's own: each profile's board is built on the simulated
pins and shows the start of a kalah game (48 stones, the mover's pits on their dim
background) at each of the menu's brightness levels; its current is the profile's model
(`idle_ma_per_led` per LED + `ma_per_channel` per channel at 255, mancala.hw.pixels
estimate_ma) after the firmware's own current budget.  The chip's and the sensors' share
are the figures below.

    python -m host_tools.generators.battery_budget            print the tables
    python -m host_tools.generators.battery_budget --write    write them into hardware/battery.md
    python -m host_tools.generators.battery_budget --check    exit 1 if hardware/battery.md differs
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIRMWARE = os.path.join(ROOT, "firmware")
if FIRMWARE not in sys.path:
    sys.path.insert(0, FIRMWARE)
DOC = os.path.join(ROOT, "hardware", "battery.md")
BEGIN = "<!-- BEGIN GENERATED budget (host_tools/generators/battery_budget.py --write) -->"
END = "<!-- END GENERATED budget -->"

# The chip board's draw (mA at its supply): awake (the loop at its full clock) and dark
# (the clock lowered to the profile's idle_hz, the loop asleep in time.sleep_ms between
# two reads of the pits).  Pico: the Raspberry Pi Pico datasheet's figures for a busy
# RP2040 at 125 MHz (~20-25 mA) and the core's draw falling with the clock down to
# 48 MHz; ESP32-DevKitC: ~50 mA with the radio off at 240 MHz, ~25 mA at 80 MHz.
# Estimates, to be checked with a USB meter (hardware/battery.md "Measuring").
CHIP_MA = {"rp2040": (25, 12), "rp2350": (25, 12), "esp32": (50, 25)}  # (RP2350: as the RP2040, an estimate)
# The pit sensors stay powered in every state (they must see the waking press):
# push buttons draw nothing until pressed (a pull-up's 66 uA); a DRV5033 digital hall
# switch 2.7 mA typical; a DRV5055 linear hall sensor 6 mA typical, the CD74HC4067
# next to nothing.
SENSOR_MA = {"button": 0.0, "hall": 14 * 2.7, "mux": 14 * 6.0}
# The battery option (hardware/battery.md): one 18650 Li-ion cell, 3000 mAh, of which
# the board uses what lies above the safe level it goes dark at (3.45 V: ~95 %) less
# the wiring's and the Pico's buck-boost losses: USABLE of the rating.
CELL_MAH = 3000
USABLE = 0.85
BATTERY_LED_POWER_PIN = 16  # the LEDs' supply switch on a battery build (a free GPIO)


def sensor_kind(p):
    if p["sensor"] == "mux":
        return "mux"
    return p.get("switch", "button")


_PLAYED = {}  # play_ma's boots, by profile: the tables and their check ask again


def play_ma(profile):
    """The LEDs' current (mA) at the start of a kalah game at each brightness level,
    as the firmware draws it (its budget applied)."""
    key = json.dumps(profile, sort_keys=True)
    if key not in _PLAYED:
        _PLAYED[key] = _play_ma(profile)
    return list(_PLAYED[key])


def _play_ma(profile):
    from host_tools.fakes import machine, neopixel
    from host_tools.fakes.board import SimBoard
    from host_tools.fakes.memfs import MemFs
    from mancala.hw.storage import Storage

    out = []
    for level in range(len(profile["brightness_levels"])):
        fs = MemFs()
        Storage(fs).save("settings.json", {"variant": "kalah", "opponent": 0, "starter": 0,
                                           "coaching": 0, "hints": 3, "brightness": level,
                                           "quick": 0})
        b = SimBoard(profile, machine, neopixel, fs=fs, seed=1, log=lambda *a: None)
        b.until(("menu",), 5000)
        b.tap("NS")
        b.run(500)
        out.append(b.app.px.estimate_ma(profile["idle_ma_per_led"]))
    return out


def dim_ma(profile):
    """The LEDs dim: the chain's idle current and one LED breathing (its mean: half
    of its top, 128 of 255 of a store's colour at the brightest level)."""
    top = profile["brightness_levels"][-1]
    return profile["idle_ma_per_led"] * profile["led_count"] + \
        profile["ma_per_channel"] * (0 + 140 + 255) / 255 * 68 / 255 * top / 255


def dark_led_ma(profile):
    """The LEDs dark: nothing with a supply switch, else every LED's idle current."""
    if profile.get("led_power_pin") is not None:
        return 0.0
    return float(profile["idle_ma_per_led"] * profile["led_count"])


def states(profile):
    """{state: mA} for one profile: play at each level, dim, dark."""
    awake, dark = CHIP_MA[profile["mcu"]]
    if not profile.get("idle_hz"):
        dark = awake
    sensors = SENSOR_MA[sensor_kind(profile)]
    rows = []
    for level, ma in zip(profile["brightness_levels"], play_ma(profile), strict=True):
        rows.append(("play, brightness %d" % level, ma + awake + sensors))
    rows.append(("dim (one LED breathing)", dim_ma(profile) + awake + sensors))
    rows.append(("dark", dark_led_ma(profile) + dark + sensors))
    return rows


def with_battery(profile):
    p = dict(profile)
    p["battery"] = {"cell_mah": CELL_MAH}
    p["led_power_pin"] = BATTERY_LED_POWER_PIN
    return p


def tables():
    from mancala import profiles

    names = list(profiles.NAMES)
    lines = ["Current drawn in each state, as built (USB or mains; the LEDs have no supply "
             "switch, so dark still feeds every LED its idle current):", "",
             "| state | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    cols = [states(profiles.load(n)) for n in names]
    for k in range(len(cols[0])):
        label = cols[0][k][0] if len({len(c) for c in cols}) == 1 else ""
        lines.append("| %s | " % label + " | ".join("%.0f mA" % c[k][1] for c in cols) + " |")
    # (a Pico W reads no VSYS: its GPIO 29 is the radio's clock, hardware/pico_w/)
    picos = [n for n in names if profiles.load(n)["mcu"] in ("rp2040", "rp2350")
             and not profiles.load(n).get("wifi")]
    lines += ["", "With the battery option (hardware/battery.md: a %d mAh 18650 cell, %d %% "
              "of it usable, the LEDs' supply switched off when dark): current and hours per "
              "charge (no ESP32: it has no VSYS to read; no Pico W: its VSYS pin is also the "
              "radio's clock):" % (CELL_MAH, USABLE * 100), "",
              "| state | " + " | ".join(picos) + " |", "|---|" + "---|" * len(picos)]
    cols = [states(with_battery(profiles.load(n))) for n in picos]
    for k in range(len(cols[0])):
        cells = []
        for c in cols:
            ma = c[k][1]
            hours = CELL_MAH * USABLE / ma
            cells.append("%.0f mA: %s" % (ma, ("%.1f h" % hours) if hours < 48 else
                                          "%.0f days" % (hours / 24)))
        lines.append("| %s | " % cols[0][k][0] + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _splice(doc, body):
    a = doc.index(BEGIN) + len(BEGIN)
    b = doc.index(END)
    return doc[:a] + "\n" + body + doc[b:]


def main(argv):
    body = tables()
    if "--write" in argv or "--check" in argv:
        with open(DOC) as f:
            doc = f.read()
        new = _splice(doc, body)
        if "--check" in argv:
            if new != doc:
                print("hardware/battery.md is out of date: python -m host_tools.generators.battery_budget "
                      "--write")
                return 1
            return 0
        with open(DOC, "w") as f:
            f.write(new)
        return 0
    sys.stdout.write(body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
