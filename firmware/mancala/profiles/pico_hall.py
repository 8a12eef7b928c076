# Reference build B: Raspberry Pi Pico, 14 linear hall sensors (DRV5055A1) read through
# one CD74HC4067 16:1 analog multiplexer into ADC0, 12-LED rings and 18-LED store strips,
# 5 V 3 A supply. Wiring table and diagram: hardware/pico_hall/ (generated from this file).
PROFILE = {
    "name": "pico-hall",
    "mcu": "rp2040",
    "sensor": "mux",
    "mux_select": (10, 11, 12, 13),
    "mux_adc": 26,
    # mux channel C0..C13 = S1..S6, Sstore, N1..N6, Nstore; C14, C15 tied to GND
    "mux_channels": (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13),
    "hall_threshold": 0.06,
    "hall_hysteresis": 0.02,
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
    # 5 V 3 A supply: 0.9 * 3000 - 240 (Pico + 14 sensors + mux) = 2460 -> 2300
    "current_limit_ma": 2300,
    "brightness_levels": (24, 64, 128, 255),
    "tt_bits": 12,
    "battery": None,  # USB / mains only (a battery option: hardware/battery.md)
    "idle_hz": 48000000,  # the clock while the board is dark (mancala/idle.py)
    "status_led": 25,
}
