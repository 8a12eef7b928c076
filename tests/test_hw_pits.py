"""Pit inputs: debounce, taps, holds, chords, stuck sensors, the hall mux."""

import pytest

from mancala.hw import pits as P
from mancala.hw.clock import ManualClock
from mancala.hw.mux import MuxSensors


class FakeSensors:
    def __init__(self):
        self.mask = 0

    def read(self):
        return self.mask


def run(pits, clock, ms, step=10):
    out = []
    for _ in range(ms // step):
        clock.advance(step)
        out.extend((P.KIND_NAMES[P.kind(e)], P.arg(e)) for e in pits.poll())
    return out


@pytest.fixture
def rig():
    clock = ManualClock()
    s = FakeSensors()
    return s, clock, P.Pits(s, clock)


def test_tap_is_down_then_tap(rig):
    s, clock, pits = rig
    s.mask = 1 << 3
    ev = run(pits, clock, 100)
    assert ev == [("down", 3)]
    s.mask = 0
    assert run(pits, clock, 100) == [("tap", 3)]


def test_bounce_shorter_than_debounce_is_ignored(rig):
    s, clock, pits = rig
    for _ in range(10):  # contact bounce: 10 ms on, 10 ms off
        s.mask = 1 << 2
        assert run(pits, clock, 10) == []
        s.mask = 0
        assert run(pits, clock, 10) == []
    # a bouncing press that then settles: exactly one tap
    ev = []
    for v in (1, 0, 1, 0, 1):
        s.mask = v << 2
        ev += run(pits, clock, 10)
    ev += run(pits, clock, 100)
    s.mask = 0
    ev += run(pits, clock, 100)
    assert ev == [("down", 2), ("tap", 2)]


def test_two_pits_together_are_a_chord_never_a_tap(rig):
    s, clock, pits = rig
    s.mask = (1 << 0) | (1 << 5)
    ev = run(pits, clock, 200)
    s.mask = 0
    ev += run(pits, clock, 100)
    assert ("chord", (1 << 0) | (1 << 5)) in ev
    assert not [e for e in ev if e[0] == "tap"]


def test_second_finger_later_still_makes_a_chord(rig):
    s, clock, pits = rig
    s.mask = 1 << 4
    run(pits, clock, 100)
    s.mask |= 1 << 9
    run(pits, clock, 100)
    s.mask = 1 << 4  # one finger lifts first
    ev = run(pits, clock, 100)
    s.mask = 0
    ev += run(pits, clock, 100)
    assert ev == [("chord", (1 << 4) | (1 << 9))]


def test_hold_then_release_says_nothing_more(rig):
    s, clock, pits = rig
    s.mask = 1 << 6
    ev = run(pits, clock, P.Pits.HOLD_MS + 100)
    assert ev == [("down", 6), ("hold", 6)]
    s.mask = 0
    assert run(pits, clock, 100) == []


def test_long_chord_of_both_stores(rig):
    s, clock, pits = rig
    s.mask = (1 << 6) | (1 << 13)
    ev = run(pits, clock, P.Pits.LONG_MS + 100)
    assert ev[-1] == ("long", (1 << 6) | (1 << 13))
    s.mask = 0
    assert run(pits, clock, 100) == []


def test_stuck_sensor_reported_once_ignored_and_freed(rig):
    s, clock, pits = rig
    s.mask = 1 << 8
    ev = run(pits, clock, P.Pits.STUCK_MS + 200, step=50)
    assert ev.count(("stuck", 8)) == 1
    assert pits.active() == 0
    # with pit 8 stuck, a tap on pit 2 is a tap, not a chord
    s.mask |= 1 << 2
    ev = run(pits, clock, 100)
    s.mask &= ~(1 << 2)
    ev += run(pits, clock, 100)
    assert ev == [("down", 2), ("tap", 2)]
    s.mask = 0
    assert run(pits, clock, 100) == [("freed", 8)]
    s.mask = 1 << 8
    run(pits, clock, 100)
    s.mask = 0
    assert run(pits, clock, 100) == [("tap", 8)]


class FakePin:
    def __init__(self, v=1):
        self.v = v

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v


def test_each_sensor_kind_has_its_debounce():
    """A change must hold the source's debounce: a button's 30 ms, a hall switch's
    10 ms (read every 10 ms here: a hall switch's press counts one poll after it is
    seen, a button's three)."""
    pins = [FakePin(1) for _ in range(14)]
    clock = ManualClock()
    button = P.Pits(P.GpioSensors(pins), clock)
    hall = P.Pits(P.GpioSensors(pins, 10), clock)
    assert (button.debounce_ms, hall.debounce_ms) == (30, 10)
    seen = {}
    pins[4].v = 0
    for t in range(0, 60, 10):
        for name, pits in (("button", button), ("hall", hall)):
            if pits.poll() and name not in seen:
                seen[name] = t
        clock.advance(10)
    assert seen == {"hall": 10, "button": 30}
    # a one-reading glitch still never counts on a hall switch
    glitch = P.Pits(P.GpioSensors(pins, 10), clock)
    pins[4].v = 1
    clock.advance(10)
    glitch.poll()
    pins[4].v = 0
    clock.advance(5)
    assert glitch.poll() == []
    pins[4].v = 1
    clock.advance(5)
    assert glitch.poll() == [] and glitch.active() == 0


def test_gpio_sensors_are_active_low():
    pins = [FakePin(1) for _ in range(14)]
    g = P.GpioSensors(pins)
    assert g.read() == 0
    pins[13].v = 0
    pins[0].v = 0
    assert g.read() == (1 << 13) | 1


class Mux:
    """A CD74HC4067 with hall sensors: channel from the select pins' levels."""

    def __init__(self, rest):
        self.sel = [FakePin(0) for _ in range(4)]
        self.rest = list(rest)
        self.field = [0] * 16

    def read_u16(self):
        ch = sum(self.sel[k].v << k for k in range(4))
        return self.rest[ch] + self.field[ch]


def test_mux_baseline_per_sensor_threshold_and_hysteresis():
    rest = [30000 + 500 * i for i in range(16)]  # each sensor rests somewhere else
    mux = Mux(rest)
    chans = tuple(range(2, 16))
    m = MuxSensors(mux.sel, mux, chans, threshold=0.06, hysteresis=0.02)
    assert m.read() == 0
    on, off = int(0.06 * 65535), int(0.04 * 65535)
    mux.field[2] = on + 50  # board index 0
    assert m.read() == 1
    mux.field[2] = off + 50  # inside the hysteresis band: still active
    assert m.read() == 1
    mux.field[2] = off - 50
    assert m.read() == 0
    mux.field[2] = on - 50  # below threshold from rest: not active
    assert m.read() == 0
    mux.field[15] = -(on + 100)  # the other magnet pole
    assert m.read() == 1 << 13
    # noise smaller than the threshold never shows
    mux.field = [(-1) ** i * (on // 2) for i in range(16)]
    assert m.read() == 0


def test_mux_stone_on_a_store_at_power_up_reads_held_then_recalibrates():
    """hardware/bringup.md: on the hall build a stone set on a store before power-up
    must read as held (the sensor test / LED test gestures), and once lifted the
    store gets its real resting baseline."""
    rest = [32768 - 600 + 100 * i for i in range(16)]  # resting sensors near mid-scale
    mux = Mux(rest)
    chans = tuple(range(14))  # board index i on channel i
    mux.field[6] = 30000  # a stone on the South store: the reading goes to the rail
    mux.field[13] = -31000  # on the North store, the other pole
    m = MuxSensors(mux.sel, mux, chans, threshold=0.06, hysteresis=0.02)
    stores = (1 << 6) | (1 << 13)
    assert m.read() == stores
    mux.field[6] = 0  # South's stone lifted: released, baseline taken again
    assert m.read() == 1 << 13
    assert m.base[6] == rest[6] and m.base[13] == m.MID
    on = int(0.06 * 65535)
    mux.field[6] = on + 50  # from its real rest, a stone now reads normally
    assert m.read() == stores
    mux.field[6] = int(0.04 * 65535) - 50  # below the release level (hysteresis)
    assert m.read() == 1 << 13
    # A sensor resting off-centre but within the band is an ordinary baseline.
    mux2 = Mux([32768 + 15000] + [32768] * 15)
    m2 = MuxSensors(mux2.sel, mux2, chans)
    assert m2.read() == 0 and m2.base[0] == 32768 + 15000


# -- failure 5: two quick taps never merge into a chord, whatever the loop timing ------

TURNS = (1, 2, 5, 10, 16, 20, 25, 33, 40, 50, 75, 100, 150, 200, 250, 300, 400)


class ScriptedSensors:
    """Each pit down over [start, end) ms of the clock."""

    def __init__(self, clock, presses):
        self.clock = clock
        self.presses = presses

    def read(self):
        t = self.clock.now()
        m = 0
        for pit, a, b in self.presses:
            if a <= t < b:
                m |= 1 << pit
        return m


def simulate(presses, turn, offset=0, length=None):
    """Poll every `turn` ms (the loop's turn) from `offset`; every event as (kind, arg)."""
    clock = ManualClock(0)
    pits = P.Pits(ScriptedSensors(clock, presses), clock)
    clock.advance(offset)
    end = length or max(b for _, _, b in presses) + 2 * turn + 200
    out = []
    while clock.now() < end:
        clock.advance(turn)
        out.extend((P.KIND_NAMES[P.kind(e)], P.arg(e)) for e in pits.poll())
    return out


TAP_MS = 120  # a quick tap


@pytest.mark.parametrize("turn", TURNS)
def test_failure_5_two_quick_taps_never_become_a_chord(turn):
    """S1 tapped, then S6 tapped 0..100 ms after S1 went up (every ms), the loop turning
    every `turn` ms from three phases: never a chord, never a tap out of order; with
    a loop turn short enough to see a tap, both taps."""
    for gap in range(0, 101):
        for offset in sorted({0, turn // 3, (2 * turn) // 3}):
            s6 = 100 + TAP_MS + gap
            ev = simulate([(0, 100, 100 + TAP_MS), (5, s6, s6 + TAP_MS)], turn, offset)
            kinds = [k for k, _ in ev]
            assert "chord" not in kinds and "long" not in kinds, (gap, offset, ev)
            taps = [a for k, a in ev if k == "tap"]
            assert taps in ([0, 5], [0], [5], []), (gap, offset, ev)
            if turn <= TAP_MS // 2 - P.Pits.DEBOUNCE_MS // 2:
                assert taps == [0, 5], (gap, offset, ev)


@pytest.mark.parametrize("turn", TURNS)
def test_a_chord_on_purpose_still_works_at_every_loop_turn(turn):
    """Both pits down together (the second within CHORD_MS of the first, while the
    first is held), held long enough for the loop to see them: one chord."""
    hold = 2 * turn + 300
    for lag in (0, 10, 40, 100, P.Pits.CHORD_MS - 2 * turn - 40):
        if lag < 0:
            continue
        for offset in sorted({0, turn // 2}):
            ev = simulate([(0, 100, 100 + lag + hold), (5, 100 + lag, 100 + lag + hold + 15)],
                          turn, offset)
            chords = [a for k, a in ev if k == "chord"]
            assert chords == [1 << 0 | 1 << 5], (lag, offset, ev)
            assert "tap" not in [k for k, _ in ev], (lag, offset, ev)


def test_a_second_pit_after_the_chord_window_is_no_chord(rig):
    s, clock, pits = rig
    s.mask = 1 << 0
    run(pits, clock, P.Pits.CHORD_MS + 100)
    s.mask = 1 << 0 | 1 << 5  # far too late to mean "together"
    ev = run(pits, clock, 200)
    s.mask = 0
    ev += run(pits, clock, 200)
    assert "chord" not in [k for k, _ in ev], ev


def test_a_pico_reads_its_consecutive_pit_pins_in_one_register_read():
    """Issue 22: on the rp2 port the pits on GP2..GP15 are read from the SIO's GPIO_IN
    at once (14 Pin.value() calls were ~0.25 ms of every loop turn on the RP2040
    model); the same mask as pin by pin, active low; any other wiring or port reads
    pin by pin."""
    from host_tools.fakes import machine
    from mancala import profiles
    from mancala.modes import start

    class Mem32:
        reads = 0

        def __getitem__(self, addr):
            assert addr == start.SIO_GPIO_IN
            Mem32.reads += 1
            word = 0x3FFFFFFF  # pulled up: high
            for n, v in machine._inputs.items():
                if not v:
                    word &= ~(1 << n)
            return word

    machine.reset()
    machine.mem32 = Mem32()
    try:
        pins = profiles.load("pico2_buttons")["pit_pins"]
        port, shift = start.gpio_port(pins, machine, "rp2")
        assert port is not None and shift == 2
        fast = P.GpioSensors([machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in pins],
                             None, port, shift)
        slow = P.GpioSensors([machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in pins])
        for mask in (0, 1, 1 << 13, 0x2A5A, 0x3FFF):
            for i, n in enumerate(pins):
                machine.set_input(n, 0 if mask >> i & 1 else 1)
            machine.set_input(16, 0)  # a GPIO beyond the pits: not theirs
            assert fast.read() == slow.read() == mask
        assert Mem32.reads == 5
        assert start.gpio_port(pins, machine, "esp32") == (None, 0)
        assert start.gpio_port((2, 3, 5, 4) + pins[4:], machine, "rp2") == (None, 0)
    finally:
        del machine.mem32
        machine.reset()


def test_a_port_or_edge_irqs_say_a_level_changed_and_the_pits_say_when_to_poll():
    """Issue 22 (a think is all search): a think's long slice asks the sensors every
    few ms whether a level changed (one GPIO_IN read on a Pico; a flag the pins'
    edge IRQs set elsewhere), and runs no longer than Pits.unpolled_ms: until the
    next debounce, hold or stuck timer falls due."""
    from host_tools.fakes import machine

    machine.reset()
    try:
        ids = list(range(2, 16))
        word = [0x3FFFFFFF]
        ported = P.GpioSensors([machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in ids],
                               None, lambda: word[0], 2)
        assert ported.can_wake and not ported.woken()
        word[0] &= ~(1 << 5)  # GP5: S4 down
        assert ported.woken()
        assert ported.read() == 1 << 3 and not ported.woken()

        pins = [machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in ids]
        irq = P.GpioSensors(pins)  # not one port: the pins' edge IRQs
        assert irq.can_wake and all(p.handler is not None for p in pins)
        assert irq.read() == 0 and not irq.woken()
        machine.press(9)
        assert irq.woken()
        assert irq.read() == 1 << 7 and not irq.woken()
        machine.release(9)
        assert irq.woken()

        clock = ManualClock()
        pits = P.Pits(irq, clock)
        pits.poll()
        assert pits.woken is not None and not pits.woken()
        assert pits.unpolled_ms(clock.now(), 5000) == 5000  # all up, settled
        clock.advance(100)
        machine.press(2)
        assert pits.woken()  # the edge: the slice ends
        pits.poll()
        clock.advance(12)
        assert pits.unpolled_ms(clock.now(), 5000) == 30 - 12  # the debounce's end
        clock.advance(18)
        assert pits.poll() == [P.DOWN << 16 | 0]
        clock.advance(200)
        assert pits.unpolled_ms(clock.now(), 5000) == pits.HOLD_MS - 200  # a hold
        clock.advance(pits.HOLD_MS - 200)
        assert pits.poll() == [P.HOLD << 16 | 0]
        # held on: the stuck timer from the moment it went down
        assert pits.unpolled_ms(clock.now(), 99999) == pits.STUCK_MS - pits.HOLD_MS
        assert pits.unpolled_ms(clock.now(), 250) == 250
        machine.release(2)
        pits.poll()
        clock.advance(30)
        assert pits.poll() == [] and not pits.woken()
        assert pits.unpolled_ms(clock.now(), 250) == 250
        machine.press(3)
        pits.poll()
        clock.advance(pits.debounce_ms + 5)
        assert pits.unpolled_ms(clock.now(), 250) == 0  # past due: poll now
    finally:
        machine.reset()


def test_sensors_that_cannot_tell_a_change_cheaply_never_wake():
    """Pins without IRQs and the hall mux (14 ADC readings) give no wake check: the
    loop keeps its 20 ms turns there."""
    plain = P.GpioSensors([FakePin(1) for _ in range(14)])
    assert not plain.can_wake and P.Pits(plain, ManualClock()).woken is None
    m = Mux([30000] * 16)
    mux = MuxSensors(m.sel, m, list(range(14)))
    pits = P.Pits(mux, ManualClock())
    pits.poll()
    assert pits.woken is None and pits.unpolled_ms(0, 250) == 0


def test_lowest_finds_the_lowest_set_bit_of_every_mask():
    """(The poll and unpolled_ms loops visit a mask's set bits through it.)"""
    for i in range(30):
        for above in (0, 1 << 29, (1 << 30) - 1):
            m = (above | 1 << i) & ~((1 << i) - 1)
            assert P.lowest(m) == i, (i, bin(m))
