"""What each GPIO of a supported microcontroller board can do (host side only).

One table per MCU value of a board profile ("rp2040", "rp2350", "esp32") in MCUS, and
per board in BOARDS: those and the Wi-Fi Picos ("rp2040_w": a Pico W, "rp2350_w": a
Pico 2 W), whose radio takes four of the Pico's GPIOs; `board_key(profile)` names a
profile's.  `pin_problems()` answers "can this pin do this job?" and returns
human-readable reasons when not; `host_tools.generators.hardware_validation.validate()`
uses it for every pin of every profile.

Jobs a pin can have in a profile:
  "pit"        gpio sensor input, active low, needs an internal pull-up
  "mux_select" digital output to a CD74HC4067 select line
  "mux_adc"    analog input reading the multiplexer's common pin
  "led"        WS2812 data output
  "status_led" on-board (or wired) LED for blink codes
"""

JOBS = ("pit", "mux_select", "mux_adc", "led", "status_led")

# Capability flags:
#   in, out   digital input / output
#   pull      internal pull-up available
#   adc       analog input usable (ESP32: ADC1 only; ADC2 is taken by Wi-Fi)
#   adc2      ADC2 channel: analog input only while Wi-Fi is off -> never for us
#   onboard   wired to something on the module/board: not free for wiring
#   flash     connected to the SPI flash: never touch
#   strap     strapping pin: sampled at reset, an external load can stop the boot
#   console   UART0 TX/RX of the REPL / bootloader
#   bootnoise toggles (PWM/UART output) during boot: no LED data on it
#   onboard_led   drives the board's own LED (the right pin for "status_led")
#   radio     the Pico W's CYW43439 (power, SPI): the radio stops if anything else drives it


def _rp2040(chip="RP2040", board="Raspberry Pi Pico", short="Pico"):
    # The Pico 2 (RP2350A) is pin-compatible with the Pico: the same 30 GPIOs, header
    # and on-board wiring (GP23-25, GP29), so one table serves both.
    pins = {}
    for gp in range(0, 30):
        pins[gp] = {"in", "out", "pull"}
    for gp in (26, 27, 28):
        pins[gp].add("adc")
    notes = {
        23: "%s: SMPS power-save control (on-board)" % short,
        24: "%s: VBUS sense (on-board)" % short,
        25: "%s: on-board LED" % short,
        29: "%s: VSYS/3 measurement on ADC3 (on-board)" % short,
    }
    for gp in (23, 24, 25, 29):
        pins[gp] = {"onboard"}
    pins[25].add("onboard_led")
    pins[29].add("adc")
    # Pico header pin number of each GP (for the wiring tables)
    header = {
        0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14,
        11: 15, 12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25,
        20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34,
    }
    labels = {gp: "GP%d" % gp for gp in pins}
    for gp, ch in ((26, 0), (27, 1), (28, 2)):
        labels[gp] = "GP%d/ADC%d" % (gp, ch)
    return {
        "board": "%s (%s)" % (board, chip),
        "pins": pins,
        "notes": notes,
        "header": header,
        "labels": labels,
        "power_pins": {"VBUS": 40, "VSYS": 39, "3V3(OUT)": 36, "GND": 38, "ADC_GND": 33},
    }


def _esp32():
    # ESP32-WROOM-32 / -32E module (e.g. ESP32-DevKitC V4). 20, 24, 28-31 do not
    # exist; 37 and 38 are not brought out of the WROOM module.
    existing = list(range(0, 20)) + [21, 22, 23, 25, 26, 27, 32, 33, 34, 35, 36, 39]
    pins = {gp: {"in", "out", "pull"} for gp in existing}
    for gp in range(6, 12):
        pins[gp] = {"flash"}
    for gp in (34, 35, 36, 39):
        pins[gp] = {"in", "adc"}          # input only, no internal pull-up/down
    for gp in (32, 33):
        pins[gp].add("adc")               # ADC1_CH4, ADC1_CH5
    for gp in (0, 2, 4, 12, 13, 14, 15, 25, 26, 27):
        pins[gp].add("adc2")
    for gp in (0, 2, 5, 12, 15):
        pins[gp].add("strap")
    for gp in (1, 3):
        pins[gp].add("console")
    for gp in (1, 3, 5, 14, 15):
        pins[gp].add("bootnoise")
    notes = {
        0: "strapping (boot mode), ADC2",
        1: "UART0 TX: REPL console",
        2: "strapping (boot mode), ADC2",
        3: "UART0 RX: REPL console",
        5: "strapping (SDIO timing), outputs during boot",
        12: "strapping (flash voltage: high at reset = 1.8 V flash, no boot), ADC2",
        14: "outputs a PWM burst during boot, ADC2",
        15: "strapping (boot log), ADC2",
        16: "PSRAM on WROVER modules (free on WROOM-32)",
        17: "PSRAM on WROVER modules (free on WROOM-32)",
    }
    for gp in range(6, 12):
        notes[gp] = "SPI flash"
    for gp in (34, 35, 36, 39):
        notes[gp] = "input only, no pull-up"
    adc_names = {36: "ADC1_CH0", 39: "ADC1_CH3", 32: "ADC1_CH4", 33: "ADC1_CH5",
                 34: "ADC1_CH6", 35: "ADC1_CH7"}
    labels = {gp: "GPIO%d" % gp for gp in pins}
    for gp, name in adc_names.items():
        labels[gp] = "GPIO%d/%s" % (gp, name)
    # ESP32-DevKitC V4 header position: (side, pin) J2 = left, J3 = right, top to bottom
    j2 = ["3V3", "EN", 36, 39, 34, 35, 32, 33, 25, 26, 27, 14, 12, "GND", 13, 9, 10, 11, "5V"]
    j3 = ["GND", 23, 22, 1, 3, 21, "GND", 19, 18, 5, 17, 16, 4, 0, 2, 15, 8, 7, 6]
    header = {}
    for i, p in enumerate(j2):
        if isinstance(p, int):
            header[p] = "J2-%d" % (i + 1)
    for i, p in enumerate(j3):
        if isinstance(p, int):
            header[p] = "J3-%d" % (i + 1)
    return {
        "board": "ESP32-DevKitC V4 (ESP32-WROOM-32E)",
        "pins": pins,
        "notes": notes,
        "header": header,
        "labels": labels,
        "power_pins": {"5V": "J2-19", "3V3": "J2-1", "GND": "J2-14"},
    }


# The Pico W's on-board LED: on the radio chip (CYW43439 WL_GPIO0), MicroPython's
# machine.Pin("LED") (ports/rp2/boards/RPI_PICO_W/pins.csv), the status_led of a Pico W.
RADIO_LED = "LED"


def _pico_w(chip="RP2040", board="Raspberry Pi Pico W", short="Pico W"):
    # The Pico W (and the Pico 2 W): the Pico's header, with the CYW43439 Wi-Fi chip on
    # four GPIOs (the Pico W datasheet, "Pinout"): GP23 WL_ON (the radio's power), GP24
    # its SPI data and interrupt, GP25 its SPI chip select, GP29 its SPI clock, which is
    # also VSYS/3 on ADC3 (read only while the radio is held off its bus, which
    # MicroPython cannot do).  The LED, the SMPS mode and VBUS sense moved to the radio.
    t = _rp2040(chip + " + CYW43439", board, short)
    for gp in (23, 24, 25, 29):
        t["pins"][gp] = {"onboard", "radio"}
    t["notes"].update({
        23: "%s: WL_ON, the radio's power (on-board)" % short,
        24: "%s: the radio's SPI data and interrupt (on-board)" % short,
        25: "%s: the radio's SPI chip select (on-board)" % short,
        29: "%s: the radio's SPI clock; VSYS/3 on ADC3 only while the radio is off its bus" % short,
    })
    t["pins"][RADIO_LED] = {"onboard", "onboard_led", "radio"}
    t["labels"][RADIO_LED] = 'Pin("LED")'
    t["notes"][RADIO_LED] = "%s: the on-board LED, on the radio chip (CYW43439 WL_GPIO0)" % short
    return t


MCUS = {"rp2040": _rp2040(), "rp2350": _rp2040("RP2350", "Raspberry Pi Pico 2", "Pico 2"),
        "esp32": _esp32()}
PICO_MCUS = ("rp2040", "rp2350")  # the Pico's header and power pins (VBUS, VSYS, 3V3)
# Every board's table: each MCU's own, and the Wi-Fi Picos'
BOARDS = dict(MCUS, rp2040_w=_pico_w(), rp2350_w=_pico_w("RP2350", "Raspberry Pi Pico 2 W", "Pico 2 W"))


def board_key(profile):
    """The BOARDS table of a profile: its "mcu", or a Pico W's ("wifi": True on a Pico).
    An ESP32's radio is inside its module: no pin of the DevKitC changes."""
    mcu = profile.get("mcu")
    if profile.get("wifi") is True and mcu in PICO_MCUS:
        return mcu + "_w"
    return mcu


def exists(mcu, pin):
    """`mcu`: a BOARDS key (an MCU, or a Wi-Fi Pico's board)."""
    if isinstance(pin, bool) or not isinstance(pin, (int, str)):
        return False
    return pin in BOARDS[mcu]["pins"]


def pin_problems(mcu, pin, job):
    """Reasons why `pin` cannot do `job` on `mcu` (a BOARDS key; empty list: fine)."""
    if mcu not in BOARDS:
        return ["unknown mcu %r" % (mcu,)]
    if job not in JOBS:
        return ["unknown job %r" % (job,)]
    if not exists(mcu, pin):
        return ["GPIO %r does not exist on %s" % (pin, BOARDS[mcu]["board"])]
    caps = BOARDS[mcu]["pins"][pin]
    note = BOARDS[mcu]["notes"].get(pin, "")
    why = []

    def bad(text):
        what = ("GPIO %d" % pin) if isinstance(pin, int) else label(mcu, pin)
        why.append("%s cannot be %s: %s" % (what, job, text + (" (%s)" % note if note else "")))

    if "flash" in caps:
        bad("wired to the SPI flash")
        return why
    if job == "status_led":
        if "onboard_led" in caps:
            return why
        if "radio" in caps:
            bad("belongs to the radio")
            return why
        if "out" not in caps:
            bad("input only")
        if "onboard" in caps:
            bad("used on the board")
        return why
    if "radio" in caps:
        bad("belongs to the radio")
        return why
    if "onboard" in caps:
        bad("used on the board")
        return why
    if "strap" in caps:
        bad("strapping pin: a button or load on it can stop the chip from booting")
    if "console" in caps:
        bad("REPL console UART")
    if job == "pit":
        if "in" not in caps:
            bad("not an input")
        elif "pull" not in caps:
            bad("no internal pull-up (input-only pin; the gpio sensor relies on pull-ups)")
    elif job in ("mux_select", "led"):
        if "out" not in caps:
            bad("input only")
        if job == "led" and "bootnoise" in caps:
            bad("toggles during boot: the LEDs would flash garbage at every reset")
    elif job == "mux_adc":
        if "adc2" in caps:
            bad("ADC2 channel: unusable while Wi-Fi is on")
        elif "adc" not in caps:
            bad("no ADC")
    return why


def label(mcu, pin):
    return BOARDS[mcu]["labels"].get(pin, str(pin))


def header_pin(mcu, pin):
    if "onboard_led" in BOARDS[mcu]["pins"].get(pin, ()):
        return "on board"
    return BOARDS[mcu]["header"].get(pin, "-")
