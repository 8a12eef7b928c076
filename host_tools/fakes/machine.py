"""A fake `machine` module for the PC: the firmware runs unchanged against it.

MicroPython-compatible (it also runs in the MicroPython VM).  The board's
physical side lives in module-level state a harness drives:
  press(pin_id) / release(pin_id)  a GPIO input pulled low / let go (pull-up)
  set_input(pin_id, level)         any level
  set_adc(pin_id, value) or set_adc_source(pin_id, fn)   what an ADC reads
  level(pin_id)                    what an output pin drives (status LED, mux select)
  freq()                           the chip's clock the firmware set; lightsleep(ms) calls
                                   _lightsleep[0] (a harness moves its clock there)
"""

_inputs = {}  # pin id -> level driven from outside
_outputs = {}  # pin id -> level the firmware drives
_adc_values = {}
_adc_sources = {}
_pins = {}
_freq = [125000000]  # the clock the firmware set (machine.freq)
_lightsleep = [None]  # fn(ms) a harness sets: what a lightsleep does (moves its clock)


def reset():
    _inputs.clear()
    _outputs.clear()
    _adc_values.clear()
    _adc_sources.clear()
    _pins.clear()
    _freq[0] = 125000000
    _lightsleep[0] = None


def set_input(pin_id, level):
    pin = _pins.get(pin_id)
    before = pin.value() if pin is not None else None
    _inputs[pin_id] = level
    if pin is not None and pin.handler is not None and before != pin.value():
        # an edge: its IRQ (on the board a soft IRQ runs between bytecodes; here at once)
        if pin.trigger & (Pin.IRQ_FALLING if before else Pin.IRQ_RISING):
            pin.handler(pin)


def press(pin_id):
    set_input(pin_id, 0)


def release(pin_id):
    set_input(pin_id, 1)


def level(pin_id):
    return _outputs.get(pin_id, 0)


def set_adc(pin_id, value):
    _adc_values[pin_id] = value


def set_adc_source(pin_id, fn):
    _adc_sources[pin_id] = fn


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4  # (the rp2 port's values)
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, value=None):
        if not isinstance(id, int) or id < 0 or id > 48:
            raise ValueError("invalid pin")
        self.id = id
        self.mode = mode
        self.pull = pull
        self.handler = None  # irq(): called with the pin at an edge of `trigger`
        self.trigger = 0
        _pins[id] = self
        if value is not None:
            _outputs[id] = value

    def init(self, mode=-1, pull=-1, value=None):
        self.mode = mode
        self.pull = pull

    def value(self, v=None):
        if v is None:
            if self.mode == Pin.OUT:
                return _outputs.get(self.id, 0)
            return _inputs.get(self.id, 1 if self.pull == Pin.PULL_UP else 0)
        _outputs[self.id] = 1 if v else 0

    def __call__(self, v=None):
        return self.value(v)

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        self.handler = handler
        self.trigger = trigger if handler is not None else 0

    def on(self):
        _outputs[self.id] = 1

    def off(self):
        _outputs[self.id] = 0


class ADC:
    def __init__(self, pin, atten=None):
        self.id = pin.id if isinstance(pin, Pin) else pin

    def read_u16(self):
        fn = _adc_sources.get(self.id)
        if fn is not None:
            return fn()
        return _adc_values.get(self.id, 32768)


def unique_id():
    return b"\x00\x01\x02\x03\x04\x05\x06\x07"


def reset_cause():
    return 1


def freq(hz=None):
    if hz is None:
        return _freq[0]
    _freq[0] = hz
    return None


def lightsleep(ms=None):
    fn = _lightsleep[0]
    if fn is not None:
        fn(ms)


def idle():
    pass
