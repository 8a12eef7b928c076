# Reference build C: ESP32-WROOM-32 (ESP32-DevKitC), 14 push buttons (or digital hall
# switches) on GPIOs with internal pull-ups, no strapping/flash/input-only pins,
# 12-LED rings and 18-LED store strips, 5 V 3 A supply.
# Wiring table and diagram: hardware/esp32/ (generated from this file).
PROFILE = {
    "name": "esp32",
    "mcu": "esp32",
    "wifi": True,  # the radio inside the WROOM module: online play (docs/ONLINE.md)
    "sensor": "gpio",
    # S1..S6, Sstore, N1..N6, Nstore
    "pit_pins": (13, 14, 27, 26, 25, 33, 32, 4, 16, 17, 18, 19, 21, 22),
    "led_pin": 23,
    "led_count": 180,
    "leds": (
        (0, 12), (12, 12), (24, 12), (36, 12), (48, 12), (60, 12), (72, 18),
        (90, 12), (102, 12), (114, 12), (126, 12), (138, 12), (150, 12), (162, 18),
    ),
    "ma_per_channel": 20,
    "idle_ma_per_led": 1,
    # 5 V 3 A supply: 0.9 * 3000 - 500 (ESP32 with Wi-Fi transmitting) = 2200 -> 2100
    "current_limit_ma": 2100,
    "brightness_levels": (24, 64, 128, 255),
    # 2**10 entries (6 KB): an ESP32 without PSRAM has ~110 KB of heap for the firmware's
    # code and its buffers (docs/BOARD.md, "Memory through the boot path"); 11 is the
    # most the profile check accepts there
    "tt_bits": 10,
    "battery": None,  # no VSYS to read on an ESP32 board: no battery build
    "idle_hz": 80000000,  # the clock while the board is dark (mancala/idle.py)
    "status_led": None,
}
