"""Checks of the board profiles and their builds (make hardware-check): every key and
pin against the pin-capability tables in host_tools/generators/pins.py, the current
limit against the build's supply, the power design against USB and Espressif's rules.
"""

from host_tools.generators import pins
from host_tools.generators.hardware_model import (
    BOARD,
    BUILDS,
    COMMON_KEYS,
    OPTIONAL_KEYS,
    POWER_KEYS,
    SENSOR_KEYS,
    STRIP_UF_PER_LED,
    SUPPLY_DERATING,
    USB_MA,
    USB_VBUS_MAX_UF,
    frame_current_ma,
    load_profile,
    profile_names,
    scale_frame,
    usb_powered,
)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def validate(profile, module=None, build=None):
    """Every problem of a profile as a list of sentences (empty: valid).

    module: the module name (checks "name"); build: a BUILDS entry (checks the
    current limit against that build's supply and MCU headroom).
    """
    errors = []
    err = errors.append
    if not isinstance(profile, dict):
        return ["PROFILE must be a dict"]
    sensor = profile.get("sensor")
    if sensor not in SENSOR_KEYS:
        return ["sensor must be one of %s, not %r" % (sorted(SENSOR_KEYS), sensor)]
    wanted = set(COMMON_KEYS) | set(SENSOR_KEYS[sensor])
    for key in sorted(wanted - set(profile)):
        err("missing key %r" % key)
    for key in sorted(set(profile) - wanted - set(POWER_KEYS) - set(OPTIONAL_KEYS)):
        err("unexpected key %r for a %s profile" % (key, sensor))
    if errors:
        return errors

    if module is not None and profile["name"] != module.replace("_", "-"):
        err("name %r should be %r (the module name with - for _)"
            % (profile["name"], module.replace("_", "-")))
    mcu = profile["mcu"]
    if mcu not in pins.MCUS:
        return errors + ["unknown mcu %r" % (mcu,)]
    wifi = profile.get("wifi")
    if wifi is not None and not isinstance(wifi, bool):
        err("wifi must be True or False (whether the board has Wi-Fi), not %r" % (wifi,))
    board = pins.board_key(profile)  # a Pico W's pin table: its radio's GPIOs refused
    if board != mcu and profile.get("battery") is not None:
        err("battery: a Pico W cannot read its supply (GPIO 29, VSYS/3, is its radio's "
            "SPI clock): set \"battery\": None")

    # --- pins: existence, capability, used once
    used = []  # (pin, what)
    if sensor == "gpio":
        pp = profile["pit_pins"]
        if not isinstance(pp, tuple) or len(pp) != 14:
            err("pit_pins must be a tuple of 14 GPIOs in board order")
        else:
            for i, p in enumerate(pp):
                used.append((p, "pit_pins[%d] (%s)" % (i, BOARD[i]), "pit"))
    else:
        sel = profile["mux_select"]
        if not isinstance(sel, tuple) or len(sel) != 4:
            err("mux_select must be a tuple of 4 GPIOs (S0..S3)")
        else:
            for i, p in enumerate(sel):
                used.append((p, "mux_select[%d] (S%d)" % (i, i), "mux_select"))
        used.append((profile["mux_adc"], "mux_adc", "mux_adc"))
        ch = profile["mux_channels"]
        if (not isinstance(ch, tuple) or len(ch) != 14
                or not all(_is_int(c) and 0 <= c <= 15 for c in ch)):
            err("mux_channels must be 14 channel numbers 0..15 in board order")
        elif len(set(ch)) != 14:
            err("mux_channels: a channel is used twice: %r" % (ch,))
        th, hy = profile["hall_threshold"], profile["hall_hysteresis"]
        if not isinstance(th, (int, float)) or not 0.01 <= th <= 0.4:
            err("hall_threshold %r must be a fraction of full scale in 0.01..0.4" % (th,))
        elif not isinstance(hy, (int, float)) or not 0 <= hy < th:
            err("hall_hysteresis %r must be >= 0 and below hall_threshold" % (hy,))
    used.append((profile["led_pin"], "led_pin", "led"))
    if profile["status_led"] is not None:
        used.append((profile["status_led"], "status_led", "status_led"))
    seen = {}
    for pin, what, job in used:
        for why in pins.pin_problems(board, pin, job):
            err("%s: %s" % (what, why))
        if _is_int(pin):
            if pin in seen:
                err("GPIO %d used twice: %s and %s" % (pin, seen[pin], what))
            seen[pin] = what

    # --- LEDs
    n = profile["led_count"]
    spans = profile["leds"]
    if not _is_int(n) or n < 14:
        err("led_count must be an integer >= 14, not %r" % (n,))
    elif not isinstance(spans, tuple) or len(spans) != 14:
        err("leds must be 14 (first, count) spans in board order")
    else:
        owner = {}
        for i, span in enumerate(spans):
            if (not isinstance(span, tuple) or len(span) != 2
                    or not all(_is_int(v) for v in span)):
                err("leds[%d] (%s) must be a (first, count) pair of ints" % (i, BOARD[i]))
                continue
            first, count = span
            if count < 1 or first < 0 or first + count > n:
                err("leds[%d] (%s) = %r runs outside the chain of %d LEDs (0..%d)"
                    % (i, BOARD[i], span, n, n - 1))
                continue
            for k in range(first, first + count):
                if k in owner:
                    err("LED %d belongs to both %s and %s" % (k, BOARD[owner[k]], BOARD[i]))
                    break
                owner[k] = i

    # --- current
    per, idle, limit = profile["ma_per_channel"], profile["idle_ma_per_led"], profile["current_limit_ma"]
    levels = profile["brightness_levels"]
    if not (isinstance(levels, tuple) and levels and all(_is_int(v) and 1 <= v <= 255 for v in levels)
            and list(levels) == sorted(set(levels))):
        err("brightness_levels must be increasing ints in 1..255")
    if not (isinstance(per, (int, float)) and per > 0 and isinstance(idle, (int, float)) and idle >= 0
            and _is_int(limit) and limit > 0):
        err("ma_per_channel > 0, idle_ma_per_led >= 0 and current_limit_ma > 0 are required")
    elif _is_int(n):
        idle_total = idle * n
        if idle_total + 3 * per > limit:
            err("current_limit_ma %d leaves no room for colour: the %d LEDs draw %d mA "
                "when dark" % (limit, n, idle_total))
        elif not errors:
            for level in levels:
                full = scale_frame(profile, [(level, level, level)] * n)
                if frame_current_ma(profile, full) > limit:
                    err("brightness %d: the budgeted full-white frame still draws %.0f mA > %d"
                        % (level, frame_current_ma(profile, full), limit))
        if build is not None:
            ceiling = SUPPLY_DERATING * build["supply_ma"] - build["mcu_ma"]
            if limit > ceiling:
                err("current_limit_ma %d is over the supply: %d mA x %.1f - %d mA for the "
                    "MCU and sensors = %d mA" % (limit, build["supply_ma"], SUPPLY_DERATING,
                                                build["mcu_ma"], ceiling))
    tt = profile["tt_bits"]
    if not _is_int(tt) or not 8 <= tt <= 16:
        err("tt_bits must be an int in 8..16")
    return errors


CAP_UF = {"c1000u": 1000.0, "c4u7": 4.7, "c100n": 0.1}


def check_power(name, build, profile):
    """The power design against USB and Espressif's rules (one line per problem)."""
    errs = []
    bom = dict(build["bom"])
    if usb_powered(build):
        # every capacitor of a USB-powered build sits on VBUS, and so does the 100 nF of every LED
        uf = sum(CAP_UF[k] * n for k, n in bom.items() if k in CAP_UF)
        uf += STRIP_UF_PER_LED * profile["led_count"]
        if uf > USB_VBUS_MAX_UF:
            errs.append("%.1f uF on USB VBUS (bulk capacitor + 100 nF per LED): USB allows %.0f uF at attach"
                        % (uf, USB_VBUS_MAX_UF))
        if build["supply_ma"] > USB_MA:
            errs.append("a USB-powered build may plan on %d mA (the rp2 port's USB descriptor), not %d"
                        % (USB_MA, build["supply_ma"]))
    if profile["mcu"] == "esp32" and not usb_powered(build) and "jumper5v" not in bom:
        errs.append("ESP32-DevKitC: USB and the 5V pin must never feed it together (Espressif); "
                    "the 5 V rail needs the 5V-IN jumper (jumper5v) to be pulled for USB")
    return errs


def validate_all():
    problems = {}
    for name in profile_names():
        try:
            prof = load_profile(name)
        except (OSError, ValueError, SyntaxError) as e:
            problems[name] = [str(e)]
            continue
        errs = validate(prof, module=name, build=BUILDS.get(name))
        if name not in BUILDS:
            errs.append("no build entry in host_tools/generators/hardware_model.py BUILDS")
        elif not errs:
            errs += check_power(name, BUILDS[name], prof)
        if errs:
            problems[name] = errs
    return problems

