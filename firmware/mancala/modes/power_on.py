"""The power-on tests (hardware/bringup.md): both stores held at power-on = the sensor
test (every active pit lit white, an ignored stuck one red; hold both stores to leave),
the South store held = the LED test (red, green, blue, white, then every pit its count
1..14, then on)."""

from mancala.hw import pits as P
from mancala.hw.pixels import GREEN, RED, SOUTH, WHITE
from mancala.modes import BOOT, LED_TEST, SENSOR_TEST, Mode, put
from mancala.rules import N_STORE, S_STORE

STORES = (1 << S_STORE) | (1 << N_STORE)


def leave(app):
    app.set_mode(BOOT if app.boot_codes else app.next_mode)


class SensorTest(Mode):
    name = "sensor_test"
    animated = True
    touch = False  # the test lights the touched pits itself

    def on_event(self, app, kind, arg):
        if kind == P.LONG and arg == STORES:
            leave(app)

    def draw(self, app, px, el, phase):
        act = app.pits.stable
        for i in range(14):
            if act >> i & 1:
                px.fill(i, RED if app.pits.ignored >> i & 1 else WHITE)
            else:
                px.count(i, 0, SOUTH)


class LedTest(Mode):
    name = "led_test"
    animated = True
    touch = False

    def tick(self, app, now, el):
        if el >= 7 * app.LED_TEST_STEP_MS:
            leave(app)

    def draw(self, app, px, el, phase):
        step = el // app.LED_TEST_STEP_MS
        if step < 4:
            c = (RED, GREEN, (0, 0, 255), WHITE)[step]
            for i in range(14):
                px.fill(i, c)
        else:
            for i in range(14):
                px.count(i, i + 1)


put(SENSOR_TEST, SensorTest())
put(LED_TEST, LedTest())
