"""The boot's blink codes (settings lost: the stores blink amber twice; the game lost:
every pit three times; any press skips them): the loop's first mode, dropped on the board
once the loop leaves it (modes.GROUPS).  The App's start: modes/start.py; the board that
cannot play: errors.py."""

from mancala.hw.pixels import AMBER
from mancala.modes import BOOT, Mode, put
from mancala.rules import N_STORE, S_STORE

STORES = (1 << S_STORE) | (1 << N_STORE)


class Boot(Mode):
    name = "boot"
    animated = True
    status_blink = True

    def on_event(self, app, kind, arg):  # any press skips the boot blink
        app.set_mode(app.next_mode)

    def tick(self, app, now, el):
        total = 0
        for c in app.boot_codes:
            total += (2 * c + 3) * app.BOOT_BLINK_MS
        if el >= total:
            return app.next_mode
        return None

    def draw(self, app, px, el, phase):
        # each code: c amber blinks of the stores (settings: 2) or all pits (game: 3)
        t = el // app.BOOT_BLINK_MS
        for c in app.boot_codes:
            span = 2 * c + 3
            if t < span:
                if t < 2 * c and t & 1 == 0:
                    mask = STORES if c == 2 else 0x3FFF & ~STORES
                    for i in range(14):
                        if mask >> i & 1:
                            px.fill(i, AMBER)
                if app.status is not None:
                    app.status.value(1 if t < 2 * c and t & 1 == 0 else 0)
                return
            t -= span


put(BOOT, Boot())
