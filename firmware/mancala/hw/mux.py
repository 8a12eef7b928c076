"""Linear hall sensors under the pits, read through a CD74HC4067 analog multiplexer
(4 select pins, 1 ADC): a sensor source for hw/pits.py's Pits (its `read()` answers
which pits are active as a 14-bit mask).  A module of its own: a board with switches
(GpioSensors) never holds its code (code is heap on a board).

Each sensor's baseline is taken at start; a reading counts as active past a threshold
(a fraction of full scale, either magnet pole) and inactive again below it minus the
hysteresis.
"""


class MuxSensors:
    watch_addr = 0  # (read through the ADC: nothing for the search to watch)
    SAMPLES = 4  # readings averaged for the baseline
    MID = 32768  # a linear hall sensor at rest reads mid-scale (0.50 +/- 0.02)
    # A reading this far (fraction of full scale) from mid-scale at power-up means a
    # stone is already on the sensor (hardware/bringup.md: "held at power-up").
    BOOT_HELD = 0.25
    # no contacts to bounce: threshold + hysteresis already hold a reading steady;
    # 10 ms only asks two readings in a row at the 20 ms loop
    DEBOUNCE_MS = 10

    def __init__(self, select_pins, adc, channels, threshold=0.06, hysteresis=0.02,
                 debounce_ms=None):
        self.debounce_ms = self.DEBOUNCE_MS if debounce_ms is None else debounce_ms
        self.sel = select_pins
        self.adc = adc
        self.channels = channels
        self.on = int(threshold * 65535)
        self.off = int((threshold - hysteresis) * 65535)
        self.base = [0] * len(channels)
        self.state = 0
        self.recalibrate = 0  # sensors held at power-up: baseline again once released
        self.calibrate()

    def _read(self, ch):
        s = self.sel
        s[0].value(ch & 1)
        s[1].value(ch >> 1 & 1)
        s[2].value(ch >> 2 & 1)
        s[3].value(ch >> 3 & 1)
        return self.adc.read_u16()

    def _average(self, ch):
        t = 0
        for _ in range(self.SAMPLES):
            t += self._read(ch)
        return t // self.SAMPLES

    def calibrate(self):
        """Take every sensor's resting value as its baseline.  A sensor already far
        from mid-scale has a stone on it: it starts held, measured against a nominal
        mid-scale baseline, and gets its real baseline when the stone is lifted."""
        far = int(self.BOOT_HELD * 65535)
        self.state = 0
        self.recalibrate = 0
        bit = 1
        for i in range(len(self.channels)):
            v = self._average(self.channels[i])
            if v - self.MID > far or self.MID - v > far:
                self.base[i] = self.MID
                self.state |= bit
                self.recalibrate |= bit
            else:
                self.base[i] = v
            bit <<= 1

    def read(self):
        m = self.state
        bit = 1
        for i in range(len(self.channels)):
            d = self._read(self.channels[i]) - self.base[i]
            if d < 0:
                d = -d  # either magnet pole
            if m & bit:
                if d < self.off:
                    m &= ~bit
                    if self.recalibrate & bit:
                        self.base[i] = self._average(self.channels[i])
                        self.recalibrate &= ~bit
            elif d > self.on:
                m |= bit
            bit <<= 1
        self.state = m
        return m
