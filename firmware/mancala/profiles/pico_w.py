# Reference build W: Raspberry Pi Pico W (RP2040 + the CYW43439 Wi-Fi chip), for online
# play; the pico_buttons wiring (14 push buttons or digital hall switches on GP2..GP15,
# the LED data on GP22), 12-LED rings and 18-LED store strips, 5 V 3 A supply.
# The radio owns GP23 (its power, WL_ON), GP24 (SPI data and its interrupt), GP25 (SPI
# chip select) and GP29 (SPI clock): none of them is wired here.  The on-board LED hangs
# off the radio chip (its WL_GPIO0), so it is MicroPython's Pin("LED"), not GP25.
# The chain's PIO is PIO0 (state machine 0); the CYW43 driver takes PIO1 (the SDK's
# default), so both run side by side.
# No battery option: VSYS/3 reaches GP29 (ADC3), which is also the radio's SPI clock,
# and MicroPython offers no way to hold the radio off the bus for an ADC read (its
# issue 10406): the board runs on USB or mains only (hardware/pico_w/README.md).
# Wiring table and diagram: hardware/pico_w/ (generated from this file).
PROFILE = {
    "name": "pico-w",
    "mcu": "rp2040",
    "wifi": True,  # the board has Wi-Fi: online play (docs/ONLINE.md)
    "sensor": "gpio",
    # S1..S6, Sstore, N1..N6, Nstore -> GP2..GP15 (Pico W pins 4..20, as on the Pico)
    "pit_pins": (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
    "led_pin": 22,
    # The chain by PIO and DMA (hw/pio_chain.py), as the Pico builds: no CPU time on the
    # wire, a waveform within the WS2812B's limits (docs/BOARD.md)
    "pixel_driver": "pio_dma",
    "led_count": 180,
    "leds": (
        (0, 12), (12, 12), (24, 12), (36, 12), (48, 12), (60, 12), (72, 18),
        (90, 12), (102, 12), (114, 12), (126, 12), (138, 12), (150, 12), (162, 18),
    ),
    "ma_per_channel": 20,
    "idle_ma_per_led": 1,
    # 5 V 3 A supply: 0.9 * 3000 - 300 (Pico W with the radio sending) - 200 (margin) = 2200
    "current_limit_ma": 2200,
    "brightness_levels": (24, 64, 128, 255),
    "tt_bits": 12,
    "battery": None,  # no battery option on a Pico W (above): USB / mains only
    "idle_hz": 48000000,  # the clock while the board is dark (mancala/idle.py)
    "status_led": "LED",  # the LED on the radio chip (machine.Pin("LED"))
}
