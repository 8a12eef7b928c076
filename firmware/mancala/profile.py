"""Check a board profile at boot: every problem as a clear line, never an exception."""

from mancala.hw.pits import DEBOUNCE_MS, debounce_ms, sensor_kind  # noqa: F401 - what the pits read

REQUIRED = ("name", "mcu", "sensor", "led_pin", "led_count", "leds", "ma_per_channel",
            "idle_ma_per_led", "current_limit_ma", "brightness_levels", "tt_bits")
MCUS = {"rp2040": 29, "rp2350": 29, "esp32": 39}  # highest GPIO number (RP2350A: the Pico 2)
# The largest engine table (2**tt_bits entries, 6 bytes each) with which a whole
# session of games fits the board's free heap (measured by tests/test_unix_session.py
# under the heap cap that stands for the board, docs/BOARD.md "Memory"): an ESP32
# without PSRAM (100-110 KB free) takes 10 (6 KB), not 11 (the four-game session
# against Master ran out of room at 11 once the session held the new variant's engine
# beside the old: issue 42's ESP32 round, docs/BOARD.md); a Pico (240 KB) 14
# (96 KB), not 15; a Pico 2 (RP2350, ~470 KB free with the official RPI_PICO2 build)
# 15 (192 KB), not 16.
TT_BITS_MAX = {"rp2040": 14, "rp2350": 15, "esp32": 10}
SWITCHES = ("button", "hall")  # what sits under each pit of a "gpio" profile (hw/pits.py)
DEBOUNCE_MAX = 100  # longer and a quick tap would not count
# A Pico W (a Pico profile with "wifi": True): the CYW43439 radio owns GP23 (its power),
# GP24 (SPI data), GP25 (chip select) and GP29 (SPI clock, also VSYS/3 on ADC3); its
# on-board LED hangs off the radio, machine.Pin("LED").
RADIO_PINS = (23, 24, 25, 29)
RADIO_LED = "LED"


def pico_w(p):
    """True for a Pico (or Pico 2) W profile: a Pico with the CYW43439 radio."""
    return p.get("wifi") is True and p.get("mcu") in ("rp2040", "rp2350")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _ints(v, n=None):
    if not isinstance(v, (tuple, list)):
        return False
    if n is not None and len(v) != n:
        return False
    for x in v:
        if not _is_int(x):
            return False
    return True


IDLE_SLEEPS = ("poll", "lightsleep")  # how the dark board rests (mancala/idle.py)


def _power(p, pin, errs):
    """The idle sleep's and the battery's keys (hardware/battery.md): all optional."""
    if p.get("led_power_pin") is not None:
        pin("led_power_pin", p["led_power_pin"])
    hz = p.get("idle_hz")
    if hz is not None and (not _is_int(hz) or not 10000000 <= hz <= 250000000):
        errs.append("idle_hz must be the dark board's clock in Hz (10 to 250 MHz), got %r" % (hz,))
    sl = p.get("idle_sleep")
    if sl is not None and sl not in IDLE_SLEEPS:
        errs.append("idle_sleep must be 'poll' or 'lightsleep', got %r" % (sl,))
    bat = p.get("battery")
    if bat is None:
        return
    if pico_w(p):
        errs.append("battery: a Pico W cannot read its supply: GPIO 29 (VSYS/3 on ADC3) is "
                    "also its radio's SPI clock; set \"battery\": None")
        return
    if p["mcu"] not in ("rp2040", "rp2350"):  # a Pico or a Pico 2: VSYS/3 on ADC3
        errs.append("battery: only a Pico reads its supply (VSYS/3 on ADC3); an ESP32 "
                    "board has no VSYS: set \"battery\": None")
        return
    if not isinstance(bat, dict):
        errs.append("battery must be None or a dict (hardware/battery.md)")
        return
    if bat.get("adc_pin", 29) != 29:
        errs.append("battery adc_pin: the Pico reads VSYS/3 on GPIO 29 (ADC3) only")
    pin("battery adc_pin", 29)
    mv = [bat.get(k, d) for k, d in (("cut_mv", 3450), ("low_mv", 3600), ("usb_mv", 4400))]
    if not _ints(mv) or not 3000 <= mv[0] < mv[1] < mv[2] <= 5000:
        errs.append("battery: cut_mv < low_mv < usb_mv, whole mV in 3000..5000, got %r" % (mv,))
    cap = bat.get("cell_mah")
    if not _is_int(cap) or cap <= 0:
        errs.append("battery cell_mah must be the cell's capacity in mAh, got %r" % (cap,))


def validate(p):
    """A list of problems (empty if the profile is usable)."""
    if not isinstance(p, dict):
        return ["the profile is not a dict (PROFILE = {...})"]
    errs = []
    for k in REQUIRED:
        if k not in p:
            errs.append("missing key %r" % k)
    if errs:
        return errs
    top = MCUS.get(p["mcu"])
    if top is None:
        errs.append("mcu must be one of rp2040, rp2350, esp32, got %r" % (p["mcu"],))
        top = 39
    used = {}  # type: dict
    radio = pico_w(p)
    wifi = p.get("wifi")
    if wifi is not None and not isinstance(wifi, bool):
        errs.append("wifi must be True or False (whether the board has Wi-Fi), got %r" % (wifi,))

    def pin(key, v):
        if not _is_int(v) or not 0 <= v <= top:
            errs.append("%s: %r is not a GPIO of %s (0..%d)" % (key, v, p["mcu"], top))
        elif radio and v in RADIO_PINS:
            errs.append("%s: GPIO %d belongs to the Pico W's radio (GPIO 23, 24, 25, 29)"
                        % (key, v))
        elif v in used:
            errs.append("%s: GPIO %d is already used by %s" % (key, v, used[v]))
        else:
            used[v] = key

    sensor = p["sensor"]
    if sensor == "gpio":
        pins = p.get("pit_pins")
        if not _ints(pins, 14):
            errs.append("pit_pins must be 14 GPIO numbers in board order")
        else:
            for i, v in enumerate(pins):
                pin("pit_pins[%d]" % i, v)
    elif sensor == "mux":
        sel = p.get("mux_select")
        if not _ints(sel, 4):
            errs.append("mux_select must be 4 GPIO numbers (S0..S3)")
        else:
            for i, v in enumerate(sel):
                pin("mux_select[%d]" % i, v)
        pin("mux_adc", p.get("mux_adc"))
        if p["mcu"] != "esp32" and p.get("mux_adc") not in (26, 27, 28):
            errs.append("mux_adc: the Pico (and the Pico 2) reads analog only on GPIO 26, 27, 28")
        ch = p.get("mux_channels")
        if not _ints(ch, 14) or len(set(ch)) != 14 or min(ch) < 0 or max(ch) > 15:
            errs.append("mux_channels must be 14 different channels 0..15 in board order")
        th, hy = p.get("hall_threshold"), p.get("hall_hysteresis")
        if not isinstance(th, (int, float)) or not 0 < th < 1:
            errs.append("hall_threshold must be a fraction of full scale, 0 < t < 1")
        elif not isinstance(hy, (int, float)) or not 0 <= hy < th:
            errs.append("hall_hysteresis must be >= 0 and below hall_threshold")
    else:
        errs.append("sensor must be 'gpio' or 'mux', got %r" % (sensor,))
    sw = p.get("switch")
    if sw is not None and (sensor != "gpio" or sw not in SWITCHES):
        errs.append("switch must be 'button' or 'hall' (what a gpio board has under "
                    "each pit), got %r" % (sw,))
    db = p.get("debounce_ms")
    if db is not None and (not _is_int(db) or not 0 <= db <= DEBOUNCE_MAX):
        errs.append("debounce_ms must be a whole number of ms, 0..%d, got %r"
                    % (DEBOUNCE_MAX, db))
    pin("led_pin", p["led_pin"])
    drv = p.get("pixel_driver")
    if drv is not None and drv not in ("bitstream", "pio_dma") or \
            drv == "pio_dma" and p["mcu"] not in ("rp2040", "rp2350"):
        errs.append("pixel_driver must be 'bitstream' or (a Pico, a Pico 2) 'pio_dma' "
                    "(hw/pio_chain.py), got %r" % (drv,))
    pw = p.get("prefix_writes")
    if pw is not None and not isinstance(pw, bool):
        errs.append("prefix_writes must be True or False (a frame that changed the "
                    "chain's first pits writes those alone: hw/pixels.py), got %r" % (pw,))
    _power(p, pin, errs)
    st = p.get("status_led")
    if radio and st == RADIO_LED:
        pass  # the LED on the radio chip: no GPIO of the RP2040
    elif st is not None:
        pin("status_led", st)
    n = p["led_count"]
    if not _is_int(n) or not 14 <= n <= 1024:
        errs.append("led_count must be 14..1024, got %r" % (n,))
        n = 0
    leds = p["leds"]
    if not isinstance(leds, (tuple, list)) or len(leds) != 14:
        errs.append("leds must be 14 (first, count) spans in board order")
    else:
        taken = [0] * n
        for i, span in enumerate(leds):
            if not _ints(span, 2) or span[1] < 1 or span[0] < 0:
                errs.append("leds[%d] must be (first index, count >= 1), got %r" % (i, span))
                continue
            a, c = span
            if n and a + c > n:
                errs.append("leds[%d] = %r runs past led_count %d" % (i, span, n))
                continue
            for led in range(a, a + c):
                if n and taken[led]:
                    errs.append("leds[%d]: LED %d is also used by another pit" % (i, led))
                    break
                if n:
                    taken[led] = 1
    for k in ("ma_per_channel", "idle_ma_per_led", "current_limit_ma"):
        if not _is_int(p[k]) or p[k] < 0:
            errs.append("%s must be a whole number of mA >= 0" % k)
    if not errs and p["current_limit_ma"] <= p["idle_ma_per_led"] * p["led_count"]:
        errs.append("current_limit_ma %d leaves nothing above the LEDs' idle current"
                    % p["current_limit_ma"])
    lv = p["brightness_levels"]
    if not _ints(lv) or not 1 <= len(lv) <= 6 or min(lv) < 1 or max(lv) > 255:
        errs.append("brightness_levels must be 1..6 levels, each 1..255")
    tb = p["tt_bits"]
    most = TT_BITS_MAX.get(p["mcu"], 11)
    if not _is_int(tb) or not 6 <= tb <= most:
        errs.append("tt_bits must be 6..%d on %s (a table of 2**tt_bits x 6 bytes must fit "
                    "the free heap beside the firmware), got %r" % (most, p["mcu"], tb))
    return errs
