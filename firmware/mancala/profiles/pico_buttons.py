# Reference build A: Raspberry Pi Pico, 14 push buttons (or digital hall switches),
# 12-LED WS2812 ring under each pit, 18-LED strip in each store, 5 V 3 A supply.
# Wiring table and diagram: hardware/pico_buttons/ (generated from this file).
PROFILE = {
    "name": "pico-buttons",
    "mcu": "rp2040",
    "sensor": "gpio",
    # S1..S6, Sstore, N1..N6, Nstore -> GP2..GP15 (Pico pins 4..20, one side of the board)
    "pit_pins": (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
    "led_pin": 22,
    # The chain by PIO and DMA (hw/pio_chain.py): no CPU time on the wire, and its
    # waveform within the WS2812B's and the V5's limits on the RP2040 model, where
    # "bitstream"'s T1L is short of the V5's (docs/BOARD.md, "The chain's waveform")
    "pixel_driver": "pio_dma",
    "led_count": 180,
    "leds": (
        (0, 12), (12, 12), (24, 12), (36, 12), (48, 12), (60, 12), (72, 18),
        (90, 12), (102, 12), (114, 12), (126, 12), (138, 12), (150, 12), (162, 18),
    ),
    "ma_per_channel": 20,
    "idle_ma_per_led": 1,
    # 5 V 3 A supply: 0.9 * 3000 - 100 (Pico) - 200 (margin) = 2400
    "current_limit_ma": 2400,
    "brightness_levels": (24, 64, 128, 255),
    "tt_bits": 12,
    "battery": None,  # USB / mains only (a battery option: hardware/battery.md)
    "idle_hz": 48000000,  # the clock while the board is dark (mancala/idle.py)
    "status_led": 25,
}
