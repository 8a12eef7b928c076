"""The battery of a battery build (hardware/battery.md): the cell's voltage read on the
Pico's VSYS/3 divider (GPIO29 = ADC3), and the charge it means.

The Pico's VSYS feeds the ADC through a 200k/100k divider: ADC3 reads VSYS / 3 against
the 3.3 V reference, so mV = reading * 3 * 3300 / 65535.  On USB (or a charger) VSYS is
the USB's 5 V less a diode (~4.7 V), far above a cell's 4.2 V: that reads as "on USB".
Every number stays a small int (no allocation per reading on the chip).
"""

# The charge of a LiPo / Li-ion cell by its resting voltage (mV, %), a coarse table
# (the curve of a typical cell at a light load); between two rows: linear.
CURVE = ((4200, 100), (4050, 85), (3950, 70), (3850, 55), (3770, 40), (3700, 25),
         (3620, 12), (3500, 5), (3400, 0))
SAMPLES = 4  # readings averaged (the ADC is noisy by a few LSB)
# What the profile's "battery" may set (mV), and the defaults
LOW_MV = 3600  # below: the low-battery warning (~10 % left)
CUT_MV = 3450  # below: the board saves and goes dark (the Pico browns out near 3.0 V
# on VSYS through its buck-boost, the LEDs dim near 3.3 V: 3.45 V leaves both a margin
# under load, when the cell sags 0.1-0.2 V below its resting voltage)
USB_MV = 4400  # at or above: USB or a charger feeds VSYS (a cell never reads that high)


def percent(mv):
    """The charge left (0..100) a cell at `mv` holds (CURVE)."""
    if mv >= CURVE[0][0]:
        return 100
    for k in range(1, len(CURVE)):
        v, p = CURVE[k]
        if mv >= v:
            v0, p0 = CURVE[k - 1]
            return p + (mv - v) * (p0 - p) // (v0 - v)
    return 0


class Battery:
    """Reads the cell on an ADC (VSYS/3 on a Pico); `cfg` is the profile's "battery"."""

    def __init__(self, adc, cfg):
        self.adc = adc
        self.low_mv = cfg.get("low_mv", LOW_MV)
        self.cut_mv = cfg.get("cut_mv", CUT_MV)
        self.usb_mv = cfg.get("usb_mv", USB_MV)
        self.mv = 0  # the last reading

    def read_mv(self):
        t = 0
        for _ in range(SAMPLES):
            t += self.adc.read_u16()
        # (t // SAMPLES) * 9900 stays below 2**30: a small int on the chip
        self.mv = (t // SAMPLES) * 9900 // 65535
        return self.mv

    def on_usb(self):
        return self.mv >= self.usb_mv


def mv_to_reading(mv):
    """The ADC3 reading of a VSYS of `mv` (the fakes and the simulators set it)."""
    return min(65535, mv * 65535 // 9900 + 1)
