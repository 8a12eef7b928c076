# Cheap build: the pico_buttons wiring with one WS2812 LED per pit and store
# (14 LEDs), powered from USB: 250 mA, what MicroPython's rp2 port asks the PC for. Counts are read by colour and by
# holding a pit (see hardware/README.md). Wiring: hardware/pico_cheap/ (generated).
PROFILE = {
    "name": "pico-cheap",
    "mcu": "rp2040",
    "sensor": "gpio",
    "pit_pins": (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
    "led_pin": 22,
    # The chain by PIO and DMA (hw/pio_chain.py): no CPU time on the wire, and its
    # waveform within the WS2812B's and the V5's limits on the RP2040 model, where
    # "bitstream"'s T1L is short of the V5's (docs/BOARD.md, "The chain's waveform")
    "pixel_driver": "pio_dma",
    "led_count": 14,
    "leds": (
        (0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1),
        (7, 1), (8, 1), (9, 1), (10, 1), (11, 1), (12, 1), (13, 1),
    ),
    "ma_per_channel": 20,
    "idle_ma_per_led": 1,
    # USB: the rp2 port's descriptor asks for 250 mA: 0.9 * 250 - 100 (Pico) = 125
    "current_limit_ma": 125,
    "brightness_levels": (24, 64, 128, 255),
    "tt_bits": 12,
    "battery": None,  # USB / mains only (a battery option: hardware/battery.md)
    "idle_hz": 48000000,  # the clock while the board is dark (mancala/idle.py)
    "status_led": 25,
}
