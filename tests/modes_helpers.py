"""A fake App for testing one mode alone (tests/test_modes_*.py): the shared state a mode
reads (a real Game, real Pixels on the fake NeoPixel, a manual clock, a fake engine and
storage), and the App's helpers as recorders (set_mode, no, save_game, set_pause ...)."""

from host_tools.fakes import neopixel
from mancala import app as A
from mancala import modes as M
from mancala import profiles
from mancala.game import Game
from mancala.hw.clock import ManualClock
from mancala.hw.pixels import Pixels
from mancala.hw.pixels_read import decode
from mancala.rules import get_rules


class FakeEngine:
    def __init__(self, rules=None):
        self.rules = rules
        self.done = True
        self.best_move = 0
        self.calls = []
        self.keep = False
        self.result = (0, 0, -1)

    def start(self, pos, **kw):
        self.calls.append(("start", bytes(pos), kw.get("level")))
        self.done = False

    def start_grade(self, pos, pit, **kw):
        self.calls.append(("start_grade", bytes(pos), pit))
        self.done = False

    def grade_result(self):
        return self.result

    def stop(self):
        self.calls.append(("stop",))
        self.done = True


class FakeStore:
    def __init__(self):
        self.saved = {}
        self.fs = None  # no flash: no endgame tables

    def save(self, name, obj):
        self.saved[name] = dict(obj)


class FakeApp:
    """The attributes and helpers of mancala.app.App the modes use, nothing else."""

    BLINK_MS = A.App.BLINK_MS
    QUICK_MS = A.App.QUICK_MS
    ANIM_MS = A.App.ANIM_MS
    GRADE_MS = A.App.GRADE_MS
    SHOW_MS = A.App.SHOW_MS
    BOOT_BLINK_MS = A.App.BOOT_BLINK_MS
    LED_TEST_STEP_MS = A.App.LED_TEST_STEP_MS
    THINK_STEP_MS = A.App.THINK_STEP_MS
    THINK_SHARE_MS = A.App.THINK_SHARE_MS
    FRAME_MS = A.App.FRAME_MS
    COACH_NODES = A.App.COACH_NODES
    MASTER_MS = A.App.MASTER_MS
    MASTER_CAP = A.App.MASTER_CAP

    def __init__(self, variant="kalah", human=3, level=0, profile="pico_buttons", **settings):
        p = self.profile = profiles.load(profile)
        self.np = neopixel.NeoPixel(None, p["led_count"])
        self.px = Pixels(self.np, p["leds"], p["led_count"], p["ma_per_channel"],
                         p["idle_ma_per_led"], p["current_limit_ma"], p["brightness_levels"], 1)
        self.spans = p["leds"]
        self.single = self.spans[0][1] == 1
        self.clock = ManualClock(1000)
        self.store = FakeStore()
        self.log_lines = []
        rules = get_rules(variant)
        self.game = Game(rules)
        self.session_game = self.game
        self.engine = FakeEngine(rules)
        self.meta = {"number": 1, "human": human, "level": level, "hints": 2}
        self.settings = {"variant": variant, "opponent": level, "starter": 0, "coaching": 0,
                         "hints": 3, "brightness": 1, "quick": 0}
        self.settings.update(settings)
        self.shown = bytearray(self.game.pos[:14])
        self.mode = M.SELECT
        self.next_mode = M.MENU
        self.t_mode = self.clock.now()
        self.dirty = False
        self.calls = []  # what the mode asked of the App
        self.flash = 0
        self.blink_mask = 0
        self.blink_ms = 0
        self.t_blink = 0
        self.hint_pit = -1
        self.hinting = False
        self.grading = False
        self.pregrade = False
        self.pondering = False
        self.show_count_pit = -1
        self.t_count = 0
        self.think_frame = -1
        self.think_light = 0
        self.partial = 0
        self.touch_drawn = 0  # the pits under a finger in the frame being drawn
        self.sow_side = self.sow_pit = self.sow_i = self.sow_n = 0
        self.sow_path = b""
        self.flags = 0
        self.anim_side = 0
        self.grade = None
        self.before = bytearray(16)
        self.pause = 0
        self.pause_pit = -1
        self.item = 0
        self.boot_codes = []
        self.status = None
        self.status_on = 0
        self.turn = M.SELECT  # what turn_mode() answers

    set_status = A.App.set_status  # (the App's own: a pin, no frame)
    redraw = A.App.redraw  # (the App's own: the pits to draw again)

    # the App's helpers, recorded
    def log(self, text):
        self.log_lines.append(text)

    def set_mode(self, mode):
        self.calls.append(("set_mode", mode))
        self.mode = mode
        self.t_mode = self.clock.now()
        self.dirty = True

    def no(self, mask):
        self.calls.append(("no", mask))
        self.flash = mask

    def human(self, side):
        return self.meta["human"] >> side & 1

    def refresh(self):
        self.shown[:] = self.game.pos[:14]
        self.dirty = True

    def frame_pending(self):  # (App's: a frame goes out this turn anyway)
        return bool(self.dirty or self.partial)

    def since(self, t):
        return self.clock.diff(self.clock.now(), t)

    def turn_mode(self):
        self.calls.append(("turn_mode",))
        return self.turn

    def save_game(self):
        self.calls.append(("save_game", self.game.ply))

    def set_pause(self, kind, pit=-1):
        self.calls.append(("set_pause", kind, pit))
        self.pause = kind
        self.pause_pit = pit

    def toggle_menu(self):
        self.calls.append(("toggle_menu",))

    def new_game(self):
        self.calls.append(("new_game",))

    def save_settings(self):
        self.calls.append(("save_settings",))

    def apply_settings(self):
        self.calls.append(("apply_settings",))

    def saved(self, err):
        return err is None

    def store_call(self, fn, *args):
        fn(*args)

    # what the LEDs show
    def draw(self, el=0, phase=0):
        self.px.begin(True)
        M.MODES[self.mode].draw(self, self.px, el, phase)
        self.px.show()
        return decode(self.np.buf, self.profile["leds"], self.np.ORDER)

    def modes_asked(self):
        return [c[1] for c in self.calls if c[0] == "set_mode"]


def mode(number):
    return M.load(number)
