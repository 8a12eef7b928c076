"""The markdown hardware_gen.py writes under hardware/: each build's page (wiring,
power, LED chain, current, hall sensor and bill of materials tables), the summary of
the builds, and the blocks spliced into the hand-written power.md and sensors.md.
"""

from host_tools.generators import hardware_drawings, pins
from host_tools.generators.hardware_model import (
    BOARD,
    BUILDS,
    GENERATED,
    HALL_RANGE_MT,
    HALL_SENS_MV_PER_MT,
    MAGNET,
    PARTS,
    SUPPLIES,
    SUPPLY_DERATING,
    VCC,
    disc_field_mt,
    frame_current_ma,
    max_trip_distance_mm,
    scale_frame,
    seeds_frame,
    trip_mt,
    usb_powered,
    worst_case_ma,
)


def _pin_cell(mcu, pin):
    return "%s | %s" % (pins.label(mcu, pin), pins.header_pin(mcu, pin))


def wiring_rows(profile):
    """(signal, from, MCU pin label, header pin, to) rows of the wiring table."""
    mcu = pins.board_key(profile)
    rows = []
    if profile["sensor"] == "gpio":
        for i, p in enumerate(profile["pit_pins"]):
            rows.append((BOARD[i], pins.label(mcu, p), pins.header_pin(mcu, p),
                         "%s switch, other side to GND (or DRV5033 OUT)" % BOARD[i]))
    else:
        for i, p in enumerate(profile["mux_select"]):
            rows.append(("mux S%d" % i, pins.label(mcu, p), pins.header_pin(mcu, p),
                         "CD74HC4067 S%d" % i))
        p = profile["mux_adc"]
        rows.append(("mux SIG", pins.label(mcu, p), pins.header_pin(mcu, p),
                     "CD74HC4067 SIG (common); no capacitor on this line"))
    p = profile["led_pin"]
    rows.append(("LED data", pins.label(mcu, p), pins.header_pin(mcu, p),
                 "74AHCT125 1A; 1Y -> 330 ohm -> DIN of LED 0 (%s)" % BOARD[chain_start(profile)]))
    if profile["status_led"] is not None:
        p = profile["status_led"]
        rows.append(("status LED", pins.label(mcu, p), pins.header_pin(mcu, p),
                     "on-board LED (blink codes)" if p != pins.RADIO_LED else
                     "on-board LED on the radio chip (blink codes): nothing to wire"))
    return rows


def radio_notes(profile):
    """What a Wi-Fi Pico's page says about its radio (hardware/pico_w/)."""
    board = pins.BOARDS[pins.board_key(profile)]
    return [
        "### The radio's pins\n",
        "The CYW43439 Wi-Fi chip is wired to four GPIOs on the board itself; the profile "
        "leaves them alone (`make hardware-check` and the firmware's own check refuse "
        "them):\n",
        "| GPIO | on the %s |\n|---|---|" % board["board"].split(" (")[0],
    ] + ["| GP%d | %s |" % (gp, board["notes"][gp].split(": ", 1)[1]) for gp in (23, 24, 25, 29)] + [
        "",
        "The on-board LED is on the radio chip (its WL_GPIO0): `status_led` is `\"LED\"`, "
        "MicroPython's `machine.Pin(\"LED\")`. VBUS sense moved to the radio too "
        "(`Pin(\"WL_GPIO2\")`).\n",
        "**No battery option.** VSYS/3 reaches GP29 (ADC3), which is also the radio's SPI "
        "clock: it reads VSYS only while the radio is held off its bus, and MicroPython "
        "has no way to do that (micropython/micropython issue 10406; in C, "
        "`cyw43_thread_enter()`). So a Pico W board runs on USB or mains and does not read "
        "its supply (`\"battery\": None`; the firmware refuses a battery on a Pico W), "
        "and [battery.md](../battery.md)'s option is for the Pico builds without Wi-Fi.\n",
        "**Antenna.** The antenna is the end of the board opposite the USB socket: keep "
        "that end clear of the 18 AWG 5 V bus, the LED strips and any metal (at least "
        "a few cm), and out of a metal box; wood and acrylic do not block it.\n",
        "**Flash.** MicroPython for the Pico W leaves 848 KiB of the 2 MB flash to the "
        "filesystem (the Pico's: 1408 KiB): `mancala deploy` plans no endgame tables "
        "for it, and Master plays on its search alone.\n",
    ]


def chain_start(profile):
    return min(range(14), key=lambda i: profile["leds"][i][0])


def render_build_md(name, profile):
    b = BUILDS[name]
    mcu = profile["mcu"]
    board = pins.BOARDS[pins.board_key(profile)]
    out = [GENERATED % name, "# %s (`%s`)\n" % (b["title"], name), b["summary"] + "\n"]
    out.append("Firmware profile: [`firmware/mancala/profiles/%s.py`](../../firmware/mancala/profiles/%s.py). "
               "Everything on this page is generated from it; to move a wire, change the "
               "profile and run `make hardware`.\n" % (name, name))
    out.append("![wiring diagram](wiring.svg)\n")
    out.append("## Signal wiring (%s)\n" % board["board"])
    out.append("| signal | MCU pin | header pin | goes to | note |\n|---|---|---|---|---|")
    gpio_of = {}
    for key in ("pit_pins", "mux_select"):
        for k, g in enumerate(profile.get(key, ())):
            gpio_of[BOARD[k] if key == "pit_pins" else "mux S%d" % k] = g
    gpio_of["mux SIG"] = profile.get("mux_adc")
    gpio_of["LED data"] = profile["led_pin"]
    gpio_of["status LED"] = profile["status_led"]
    for sig, lab, hdr, to in wiring_rows(profile):
        note = board["notes"].get(gpio_of.get(sig), "")
        out.append("| %s | %s | %s | %s | %s |" % (sig, lab, hdr, to, note))
    out.append("")
    if mcu == "esp32":
        out.append("ADC2 matters only for analog reads (Wi-Fi takes ADC2 over); as digital inputs "
                   "those pins are fine. WROVER modules (with PSRAM) use GPIO16/17: this wiring "
                   "needs a WROOM-32/32E board such as the DevKitC-32E.\n")
    if mcu == "rp2350":
        out.append("RP2350 erratum E9 (a Bank 0 input can latch near 2 V when only its "
                   "pull-down holds it) does not touch this wiring: every pit input uses the "
                   "internal pull-up and its button pulls it to GND.\n")
    if mcu != "esp32" and profile["status_led"] == 25:
        out.append("A Pico W does not take this profile: its radio owns GP23, GP24, GP25 and "
                   "GP29, and its on-board LED hangs off the radio chip: build "
                   "[pico_w](../pico_w/README.md) on it.\n")
    if pins.board_key(profile) != mcu:
        out.extend(radio_notes(profile))
    if profile["sensor"] == "mux":
        out.append("### Multiplexer channels\n")
        out.append("| pit | CD74HC4067 channel | sensor |\n|---|---|---|")
        for i, c in enumerate(profile["mux_channels"]):
            out.append("| %s | C%d | DRV5055A1 OUT (VCC 3V3, GND, 100 nF VCC-GND) |" % (BOARD[i], c))
        spare = sorted(set(range(16)) - set(profile["mux_channels"]))
        out.append("| (unused) | %s | tie to GND |" % ", ".join("C%d" % c for c in spare))
        out.append("\nCD74HC4067: VCC = 3V3(OUT), GND and E (enable, active low) = GND. Sensor "
                   "and multiplexer run from 3.3 V so the ratiometric output matches the ADC "
                   "reference.\n")
    out.append("## Power wiring\n")
    out.append("| from | to | wire |\n|---|---|---|")
    out.extend(power_rows(name, profile))
    out.append("")
    out.append("## LED chain (%d WS2812 LEDs, one data line)\n" % profile["led_count"])
    out.append("| pit/store | first LED | LEDs | last LED |\n|---|---|---|---|")
    order = sorted(range(14), key=lambda i: profile["leds"][i][0])
    for i in order:
        first, count = profile["leds"][i]
        out.append("| %s | %d | %d | %d |" % (BOARD[i], first, count, first + count - 1))
    out.append("\nThe chain runs in the order above: DOUT of the last LED of each row goes to "
               "DIN of the first LED of the next. LED 0 of a ring is the one nearest the "
               "player who owns the pit; indices then run clockwise seen from above.\n")
    out.append("## Current\n")
    out.extend(render_current_table(name, profile))
    if profile["sensor"] == "mux":
        out.append("## Hall sensor and magnet\n")
        out.extend(render_hall_table(profile))
    out.append("## Bill of materials\n")
    out.extend(render_bom(name))
    out.extend(hardware_drawings.render_mech_bom(profile))
    return "\n".join(out) + "\n"


def power_rows(name, profile):
    mcu = profile["mcu"]
    rows = []
    if usb_powered(BUILDS[name]):
        vin = "VBUS (pin 40)" if mcu in pins.PICO_MCUS else "5V (J2-19)"
        rows.append("| Pico USB port (250 mA: what the rp2 port asks the PC for) | powers the Pico; %s = 5 V out | - |" % vin)
        rows.append("| %s | 5V pad of LED 0 and 74AHCT125 VCC (pin 14); 4.7 uF ceramic across 5V-GND at LED 0 (USB allows 10 uF on VBUS: no 1000 uF here) | 22 AWG |" % vin)
        rows.append("| Pico GND (pin 38) | LED GND, 74AHCT125 GND (pin 7) and 1OE (pin 1) | 22 AWG |")
        return rows
    mcu_in = "VSYS (pin 39)" if mcu in pins.PICO_MCUS else "5V (J2-19)"
    gnd = "GND (pin 38)" if mcu in pins.PICO_MCUS else "GND (J2-14)"
    rows.append("| 5 V supply, barrel jack + | RXEF300 fuse -> 5 V rail | 18 AWG |")
    if mcu == "esp32":
        rows.append("| 5 V rail | 1N5817 anode; cathode -> 5V-IN jumper -> MCU %s (pull the jumper before plugging in USB: Espressif allows one supply at a time) | 22 AWG |" % mcu_in)
    else:
        rows.append("| 5 V rail | 1N5817 anode; cathode -> MCU %s (the Pico's own VBUS diode lets USB and VSYS share, per its datasheet) | 22 AWG |" % mcu_in)
    rows.append("| 5 V rail | 74AHCT125 VCC (pin 14), 100 nF to GND | 22 AWG |")
    for point, i in injection_points(profile):
        rows.append("| 5 V rail and GND | feed point %s: the 5V/GND bus at LED %d (%s)%s | 18 AWG |"
                    % (point, profile["leds"][i][0], BOARD[i],
                       "; 1000 uF across 5V-GND here" if point == "A" else ""))
    rows.append("| 5V/GND bus (18 AWG, under the board along the chain) | 5V and GND pads of every ring and store strip | 22 AWG taps, < 15 cm |")
    rows.append("| GND rail | MCU %s, 74AHCT125 GND (pin 7) and 1OE (pin 1) | 22 AWG |" % gnd)
    return rows


def injection_points(profile):
    """Where 5 V is fed into the chain: its start and then about every 60 LEDs, at a pit start."""
    order = sorted(range(14), key=lambda i: profile["leds"][i][0])
    points = [("A", order[0])]
    last = profile["leds"][order[0]][0]
    for i in order[1:]:
        if profile["leds"][i][0] - last >= 60:
            points.append((chr(ord("A") + len(points)), i))
            last = profile["leds"][i][0]
    return points


def current_numbers(name, profile):
    """[(level, all_white_mA, seeds48_mA, budgeted_white_mA, budgeted_seeds_mA)]"""
    rows = []
    for level in profile["brightness_levels"]:
        white = [(level, level, level)] * profile["led_count"]
        seeds = seeds_frame(profile, level)
        rows.append((level, frame_current_ma(profile, white), frame_current_ma(profile, seeds),
                     frame_current_ma(profile, scale_frame(profile, white)),
                     frame_current_ma(profile, scale_frame(profile, seeds))))
    return rows


def render_current_table(name, profile):
    b = BUILDS[name]
    out = ["Model: each LED draws %s mA dark plus %s mA per colour channel at 255 "
           "(so %s mA white at full). Every frame is scaled so the LEDs stay under "
           "`current_limit_ma` = **%d mA**; the board, sensors and level shifter get %d mA "
           "on top. The build's supply is %s."
           % (profile["idle_ma_per_led"], profile["ma_per_channel"],
              _fmt(profile["idle_ma_per_led"] + 3 * profile["ma_per_channel"]),
              profile["current_limit_ma"], b["mcu_ma"], supply_name(b["supply_ma"])), ""]
    head = "| brightness | all LEDs white | 48 seeds lit white | after the budget (white / 48 seeds) |"
    for _ma, label in SUPPLIES:
        head += " %s: all white fits? |" % label
    out.append(head)
    out.append("|---" * (4 + len(SUPPLIES)) + "|")
    for level, white, seeds, bw, bs in current_numbers(name, profile):
        row = "| %d | %d mA | %d mA | %d / %d mA |" % (level, round(white), round(seeds), round(bw), round(bs))
        for ma, _label in SUPPLIES:
            row += " %s |" % ("yes" if white + b["mcu_ma"] <= SUPPLY_DERATING * ma else "no: scaled")
        out.append(row)
    out.append("")
    margin = int(SUPPLY_DERATING * b["supply_ma"] - b["mcu_ma"]) - profile["current_limit_ma"]
    out.append("`current_limit_ma` to set for another supply (%.0f %% of its rating minus %d mA "
               "for the MCU and the %d mA margin this profile keeps; its own supply: the profile's number):"
               % (SUPPLY_DERATING * 100, b["mcu_ma"], margin))
    out.append("")
    out.append("| supply | current_limit_ma |\n|---|---|")
    for ma, label in SUPPLIES:
        lim = limit_for_supply(name, profile, ma)
        idle = profile["led_count"] * profile["idle_ma_per_led"]
        note = "" if lim > idle + 100 else " (too small: the dark LEDs alone draw %d mA)" % idle
        out.append("| %s | %d%s |" % (label, lim, note))
    out.append("")
    return out


def limit_for_supply(name, profile, supply_ma):
    """current_limit_ma for `supply_ma`: the profile's own number on the build's supply.

    One source: the profile. On another supply the same rule applies with the margin the
    profile keeps below its own ceiling (90 % of the rating - MCU - margin).
    """
    b = BUILDS[name]
    margin = int(SUPPLY_DERATING * b["supply_ma"] - b["mcu_ma"]) - profile["current_limit_ma"]
    if supply_ma == b["supply_ma"]:
        return profile["current_limit_ma"]
    return int(SUPPLY_DERATING * supply_ma - b["mcu_ma"]) - margin


def supply_name(ma):
    for m, label in SUPPLIES:
        if m == ma:
            return label
    return "%d mA" % ma


def _fmt(x):
    return ("%d" % x) if float(x) == int(x) else ("%.1f" % x)


def render_hall_table(profile):
    trip = trip_mt(profile)
    rel = (profile["hall_threshold"] - profile["hall_hysteresis"]) * VCC * 1000.0 / HALL_SENS_MV_PER_MT
    out = ["DRV5055A1 at 3.3 V: %.0f mV/mT, output 1.65 V with no field, linear to about "
           "+/-%.0f mT. The firmware reports a pit when the reading moves %.2f of full scale "
           "(%.0f mV = %.1f mT) away from the baseline it measured at start, either pole, and "
           "releases below %.2f (%.1f mT)."
           % (HALL_SENS_MV_PER_MT, HALL_RANGE_MT, profile["hall_threshold"],
              profile["hall_threshold"] * VCC * 1000, trip,
              profile["hall_threshold"] - profile["hall_hysteresis"], rel), "",
           "Field on the axis of the sowing-stone magnet (%s disc %.0f x %.0f mm) against the "
           "distance from the magnet face to the sensor face:"
           % (MAGNET["grade"], MAGNET["diameter_mm"], MAGNET["thickness_mm"]), "",
           "| distance | field | reading |\n|---|---|---|"]
    for z in (3, 5, 8, 10, 12, 15, 18, 20, 25, 30):
        b = disc_field_mt(z)
        if b >= HALL_RANGE_MT:
            what = "saturated: detected"
        elif b >= trip:
            what = "detected"
        elif b >= rel:
            what = "held (hysteresis band)"
        else:
            what = "not detected"
        out.append("| %d mm | %.1f mT | %s |" % (z, b, what))
    out.append("\nDetected up to about %.0f mm. Mount the sensor (marked face up) so the "
               "pit floor puts the stone 3-10 mm above it; pits are far enough apart "
               "(> 40 mm) that a stone never triggers its neighbour.\n" % max_trip_distance_mm(profile))
    return out


def bom_rows(name):
    rows = []
    for key, qty in BUILDS[name]["bom"]:
        maker, mpn, desc, price = PARTS[key]
        rows.append((key, qty, maker, mpn, desc, price, qty * price))
    return rows


def render_bom(name):
    out = ["| qty | manufacturer | part number | description | unit USD | total USD |",
           "|---|---|---|---|---|---|"]
    total = 0.0
    for _key, qty, maker, mpn, desc, price, line in bom_rows(name):
        total += line
        out.append("| %d | %s | %s | %s | %.2f | %.2f |" % (qty, maker, mpn, desc, price, line))
    out.append("| | | | **total (typical single-unit prices)** | | **%.2f** |" % total)
    for key, qty, why in BUILDS[name]["optional"]:
        maker, mpn, desc, price = PARTS[key]
        out.append("\nOption: %d x %s %s (%s, %.2f USD each): %s." % (qty, maker, mpn, desc, price, why))
    out.append("\nPrices are typical one-off distributor prices (USD, 2025) for planning only. "
               "Generic WS2812B rings/strips from other sellers work the same and cost less.\n")
    return out


def render_index_md(names, profiles):
    out = [GENERATED % "*", "# Reference builds: summary\n",
           "| build | MCU | sensors | LEDs | supply | current_limit_ma | all white at 255 | parts total |",
           "|---|---|---|---|---|---|---|---|"]
    for name in names:
        p = profiles[name]
        b = BUILDS[name]
        total = sum(r[6] for r in bom_rows(name))
        out.append("| [%s](%s/README.md) | %s | %s | %d | %s | %d | %d mA | %.0f USD |"
                   % (name, name, pins.BOARDS[pins.board_key(p)]["board"],
                      "buttons / hall switches" if p["sensor"] == "gpio" else "linear hall via CD74HC4067",
                      p["led_count"], supply_name(b["supply_ma"]), p["current_limit_ma"],
                      round(worst_case_ma(p, 255)), total))
    out.append("\n## Current at each brightness level (all LEDs white, before the budget)\n")
    head = "| build |" + "".join(" %d |" % lv for lv in profiles[names[0]]["brightness_levels"])
    out.append(head + " limit |")
    out.append("|---" * (len(profiles[names[0]]["brightness_levels"]) + 2) + "|")
    for name in names:
        p = profiles[name]
        out.append("| %s |" % name + "".join(" %d mA |" % round(worst_case_ma(p, lv)) for lv in p["brightness_levels"])
                   + " %d mA |" % p["current_limit_ma"])
    out.append("")
    return "\n".join(out) + "\n"


def render_current_summary(names, profiles):
    out = ["| build | LEDs | " + " | ".join("level %d" % lv for lv in profiles[names[0]]["brightness_levels"])
           + " | current_limit_ma | supply | MCU + sensors |",
           "|---|---|" + "---|" * len(profiles[names[0]]["brightness_levels"]) + "---|---|---|"]
    for name in names:
        p, b = profiles[name], BUILDS[name]
        out.append("| %s | %d | " % (name, p["led_count"])
                   + " | ".join("%d mA" % round(worst_case_ma(p, lv)) for lv in p["brightness_levels"])
                   + " | %d mA | %s | %d mA |" % (p["current_limit_ma"], supply_name(b["supply_ma"]), b["mcu_ma"]))
    out.append("")
    out.append("All LEDs white at each brightness level, before the budget, against the three "
               "supplies. **ok**: the frame fits that supply as it is. **scaled to N**: with "
               "`current_limit_ma` set for that supply, N = 90 % of its rating minus the MCU and "
               "sensors and the margin the profile keeps (on the build's own supply N is the "
               "profile's `current_limit_ma`), the firmware scales the frame down to N mA. **too small**: the dark LEDs "
               "alone leave less than 100 mA for colour.")
    out.append("")
    out.append("| build | level | all white | %s |" % " | ".join(label for _ma, label in SUPPLIES))
    out.append("|---|---|---|---|---|---|")
    for name in names:
        p, b = profiles[name], BUILDS[name]
        for lv in p["brightness_levels"]:
            w = worst_case_ma(p, lv)
            cells = []
            for ma, _label in SUPPLIES:
                room = limit_for_supply(name, p, ma)
                if p["led_count"] * p["idle_ma_per_led"] + 100 > room:
                    cells.append("too small")
                else:
                    cells.append("ok" if w <= room else "scaled to %d" % int(room))
            out.append("| %s | %d | %d mA | %s |" % (name, lv, round(w), " | ".join(cells)))
    return "\n".join(out) + "\n"


def render_hall_block(profiles):
    hall = [n for n in profiles if profiles[n]["sensor"] == "mux"]
    out = []
    for n in hall:
        out.append("Profile `%s`:\n" % n)
        out.extend(render_hall_table(profiles[n]))
    return "\n".join(out) + "\n"

