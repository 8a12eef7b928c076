"""Small hardware interfaces: pit inputs, pixels, clock, storage.

The only package that touches `machine` / `neopixel`; every class takes the
objects it drives (pins, ADC, NeoPixel, filesystem, clock) from its caller.
"""


def device_modules():
    """The board's own `machine` and `neopixel` (ImportError on the PC: inject fakes)."""
    import machine
    import neopixel

    return machine, neopixel
