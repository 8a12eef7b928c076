"""What the board waits for, in words: the lines the simulators show beside the board.

The terminal simulator (host_tools/simulators/sim.py) prints them under the drawn board; the
page (host_tools/simulators/web/) shows them beside it, computed here inside the MicroPython
VM that runs the firmware.  The facts are the same; only how a pit is pressed
differs: a key in the terminal, a click on the page (TERMINAL and PAGE below).
The board itself never imports this module: it has no screen.  So it is written
for MicroPython as well as CPython: %-formatting only, no str.ljust / format specs.
"""

from mancala import app as A
from mancala.rules import CAPTURED, EXTRA, OVER, SIDE

PIT_NAMES = ("S1", "S2", "S3", "S4", "S5", "S6", "SS", "N1", "N2", "N3", "N4", "N5", "N6", "NS")
PIT_KEYS = ("a", "s", "d", "f", "g", "h", "j", "y", "t", "r", "e", "w", "q", "`")
WHO = ("South", "North")

# How each simulator says "press": the pit's key in the terminal, a click on the page.
TERMINAL = {
    "labels": PIT_KEYS,  # a pit named with its key: "S3 (d)"
    "press_lit": "press a glowing pit's key",
    "press_it": "press its key",
    "press_each": "press each pit's key",
    "any": "any key",
    "a_key": "a key",
    "any_pit": "any pit",
    "menu": "m menu",
    "menu_hold": "hold both stores (m)",
    "takeback": "u takes back",
    "takeback_move": "u takes the move back",
    "hint": "i asks for a hint",
    "stores_now": "press a store (` or j)",
    "menu_head": "MENU: a South key picks a setting (a..h, j), a North key its value "
                 "(q..y), ` starts a new game",
    "menu_back": "m goes back to the game",
    "skip": "` skips the puzzle",
    "leave_test": "hold both stores (m) to leave",
}
PAGE = {
    "labels": None,  # a pit named alone: "S3"
    "press_lit": "click a glowing pit",
    "press_it": "click it",
    "press_each": "click each pit",
    "any": "any pit",
    "a_key": "any pit",
    "any_pit": "any pit",
    "menu": "the menu button (both stores held) for the menu",
    "menu_hold": "the menu / new game button (both stores held)",
    "takeback": "take back (S1 + S6) takes back",
    "takeback_move": "take back (S1 + S6) takes the move back",
    "hint": "hint (S3 + S4) asks for a hint",
    "stores_now": "click a store",
    "menu_head": "MENU: a South pit (or the South store) picks a setting, a North pit "
                 "its value; the North store starts a new game",
    "menu_back": "the menu button goes back to the game",
    "skip": "the North store skips the puzzle",
    "leave_test": "the menu button (both stores held) leaves",
}

MENU_VALUES = {
    "variant": ("ranok", "mangala", "kalah", "oware", "kalah 3 seeds", "kalah 6 seeds"),
    "opponent": ("a person", "beginner", "amateur", "strong", "master"),
    "starter": ("South", "North", "by lot"),
    "coaching": ("off", "on"),
    "hints": ("0", "1", "2", "3", "5", "9"),
    "brightness": ("lowest", "low", "high", "highest"),
    "quick": ("guided", "quick"),
    "play": ("a game", "puzzles", "the course"),
    "idle": ("never", "2 min", "5 min", "10 min", "20 min", "60 min"),
}
MENU_LABELS = {"variant": "variant", "opponent": "opponent", "starter": "who starts",
               "coaching": "coaching", "hints": "hints", "brightness": "brightness",
               "quick": "sowing", "play": "play", "idle": "idle"}
# The coach's grades as a sentence says them ("the move S3 was a blunder").
GRADE_WORDS = ("the best move", "an excellent move", "a good move", "an inaccuracy",
               "a mistake", "a blunder")


def stones(n):
    return "1 stone" if n == 1 else "%d stones" % n


def pit(ui, i):
    """A pit as the lines name it: "S3 (d)" in the terminal, "S3" on the page."""
    keys = ui["labels"]
    return PIT_NAMES[i] if keys is None else "%s (%s)" % (PIT_NAMES[i], keys[i])


def label(ui, i):
    """A pit as a list of them names it: its key, or its name."""
    keys = ui["labels"]
    return PIT_NAMES[i] if keys is None else keys[i]


def counts(app):
    """The stones in each pit as the firmware holds them (not read back from the LEDs,
    which in the menu show settings and in a blink nothing); "" outside a game."""
    mode = getattr(app, "mode", A.ERROR)
    if getattr(app, "game", None) is None or not A.SELECT <= mode <= A.OVER_:
        return [""] * 14
    return [str(app.shown[i]) for i in range(14)]


def menu_items(app, ui):
    """[(pit, label, value, chosen)] of the menu's items, and the chosen item's values
    [(pit, value, chosen)]."""
    from mancala.modes.menu import ITEMS, choice, choices  # (in the menu: loaded)

    items = []
    for k in range(len(ITEMS)):
        key, p, _ = ITEMS[k]
        c = choice(app, key)
        vals = MENU_VALUES[key]
        items.append((p, MENU_LABELS[key], vals[c] if 0 <= c < len(vals) else "?",
                      k == app.item))
    key = ITEMS[app.item][0]
    chosen = choice(app, key)
    vals = MENU_VALUES[key][:choices(app, key)]
    return items, [(7 + c, vals[c], c == chosen) for c in range(len(vals))]


def _menu(app, ui):
    back = "; " + ui["menu_back"] if app.game is not None and not app.game.over else ""
    lines = [ui["menu_head"] + back]
    items, values = menu_items(app, ui)
    words = ["%s%s %s: %s" % (">" if on else " ", label(ui, p), name, v)
             for p, name, v, on in items]
    lines.append("  ".join(words[:4]))  # lines an 80-column terminal keeps whole
    lines.append("  ".join(words[4:8]))
    if words[8:]:
        lines.append("  ".join(words[8:]))
    lines.append("%s: " % items[app.item][1] + "  ".join(
        "%s=%s%s" % (label(ui, p), v, "*" if on else "") for p, v, on in values))
    return lines


def _trainer(app, name, ui):
    """A puzzle or a lesson (modes/trainer.py): its stage in words."""
    from mancala.modes import MODES
    from mancala.modes import trainer as T

    m = MODES[app.mode]
    what = "puzzle %d of %d" % (m.number, m.total) if name == "puzzle" else \
        "lesson %d of %d: %s" % (m.number, m.total, m.lesson.title if m.lesson else "")
    lines = ["%s (%s), score %d" % (what, m.variant, m.score())]
    if m.stage == T.SETUP:
        todo = [label(ui, i) for i in range(14) if m.need() >> i & 1 and
                not m.confirmed >> i & 1]
        lines.append("set up: put the blinking counts in and %s (%s)"
                     % (ui["press_each"], " ".join(todo)))
    elif m.stage == T.PLAY:
        lines.append("your move: %s (%s)" % (ui["press_lit"], " ".join(
            label(ui, k) for k in range(6) if m.offered() >> k & 1)))
    elif m.stage == T.SOWING:
        lines.append("sow: drop one stone into the white pit %s and %s"
                     % (pit(ui, m.path[m.sow_i]), ui["press_it"]))
    else:
        lines.append("%s; %s goes on%s" % (
            "right" if m.right else "wrong: the refutation blinks" if name == "puzzle"
            else "wrong: the green pits would have done it", ui["any"],
            "" if m.right or name != "puzzle" else ", " + ui["skip"]))
    lines.append("%s for the menu" % ui["menu_hold"])
    return lines


def explain(app, ui=TERMINAL):
    """What the board waits for, in words (a list of lines)."""
    mode = getattr(app, "mode", A.ERROR)
    if mode == A.ERROR or not hasattr(app, "px"):
        return ["the board cannot start: its profile is not usable (see the console)"]
    if mode == A.BOOT:
        return ["starting: a blink code is shown (%s skips it)" % ui["any_pit"]]
    if mode == A.SENSOR_TEST:
        return ["sensor test: a pit lights white while pressed, red if stuck; "
                + ui["leave_test"]]
    if mode == A.LED_TEST:
        return ["LED test: red, green, blue, white, then pit k shows k stones"]
    if mode == A.MENU:
        return _menu(app, ui)
    name = A.MODE_NAMES[mode]
    if name in ("puzzle", "course"):
        return _trainer(app, name, ui)
    g = app.game
    if g is None:
        return ["no game: %s for the menu" % ui["menu_hold"]]
    side = g.side
    lines = []
    if mode == A.SELECT:
        lit = " ".join(label(ui, side * 7 + k) for k in range(6) if g.pos[15] >> k & 1)
        lines.append("%s to move: %s (%s)" % (WHO[side], ui["press_lit"], lit))
        if app.hinting:
            lines.append("the coach looks for a hint...")
        elif app.hint_pit >= 0:
            lines.append("hint: play %s" % pit(ui, app.hint_pit))
        if app.meta["hints"]:
            lines.append("%s, %s (%d left), %s" % (ui["takeback"], ui["hint"],
                                                   app.meta["hints"], ui["menu"]))
        else:  # a hint asked for flashes red then: say why, and where more are set
            lines.append("%s, %s; no hints left in this game (the menu's S5 sets how "
                         "many a game has)" % (ui["takeback"], ui["menu"]))
    elif mode == A.SOW:
        left = app.sow_n - app.sow_i
        if app.settings["quick"]:
            lines.append("quick mode: the board sows by itself (%s left)" % stones(left))
        else:
            lines.append("sow: drop one stone into the white pit %s and %s (%s in hand)"
                         % (pit(ui, app.sow_path[app.sow_i]), ui["press_it"], stones(left)))
        lines.append(ui["takeback_move"])
    elif mode == A.THINK:
        lines.append("the computer (%s) is thinking... %s to make it move now"
                     % (WHO[side], ui["stores_now"]))
    elif mode == A.SHOW:
        p = app.sow_side * 7 + app.sow_pit
        lines.append("the computer plays %s: take the blinking pit's stones and %s"
                     % (pit(ui, p), ui["press_it"]))
    elif mode == A.ANIM:
        f = app.flags
        if f & OVER:
            lines.append("the last stones go to the stores")
        elif f >= CAPTURED:
            lines.append("capture: put the flashing pits' stones into %s's store"
                         % WHO[app.anim_side])
        elif f & EXTRA:
            lines.append("extra turn: %s moves again" % WHO[app.anim_side])
        else:
            lines.append("...")
        if app.grading:
            lines.append("the coach grades the move...")
    elif mode == A.GRADE:
        g0, loss, _ = app.grade
        lines.append("coach: the move %s%d was %s%s (%s goes on)" % (
            "SN"[app.before[SIDE]], app.sow_pit + 1,
            GRADE_WORDS[g0], " (%s lost)" % stones(loss) if loss else "", ui["a_key"]))
    elif mode == A.BLUNDER:
        th = app.grade[2]
        mover = app.before[SIDE]
        lines.append("blunder%s%s: your store (%s) takes the move back, %s keeps it" % (
            " (%s)" % stones(app.grade[1]) if app.grade[1] else "",
            ", the red pit %s is the threat" % PIT_NAMES[(mover ^ 1) * 7 + th]
            if th >= 0 else "", label(ui, mover * 7 + 6), ui["any_pit"]))
    elif mode == A.OVER_:
        lines.append(game_over(app, ui))
    if app.blink_mask:
        lines.append("white blinking pits: their counts changed; put the stones back as "
                     "the counts show")
    return lines


def result(app):
    """(how it ended: "" / " (repetition)" / " (agreement)", "South wins" or "a draw",
    South's store, North's store) of a finished game: the stores hold the score."""
    from mancala.game import END_AGREEMENT, END_REPETITION

    g = app.game
    s, n = g.pos[6], g.pos[13]
    w = g.winner()
    how = " (repetition)" if g.end == END_REPETITION else \
        " (agreement)" if g.end == END_AGREEMENT else ""
    return how, ("a draw" if w == -1 else "%s wins" % WHO[w]), s, n


def game_over(app, ui):
    how, text, s, n = result(app)
    return "game over%s: %s, %d-%d; %s for the menu" % (how, text, s, n, ui["any_pit"])


def event(app):
    """What just happened, said once in the past tense for the page's list of events
    (the computer's move, the coach's grade, a capture, the result), or ""."""
    mode = getattr(app, "mode", A.ERROR)
    g = getattr(app, "game", None)
    if g is None or not A.SELECT <= mode <= A.OVER_:
        return ""
    if mode == A.SHOW:
        return "the computer (%s) played %s" % (WHO[app.sow_side],
                                               PIT_NAMES[app.sow_side * 7 + app.sow_pit])
    if mode == A.GRADE or mode == A.BLUNDER:
        g0, loss, _ = app.grade
        return "coach: the move %s%d was %s%s" % (
            "SN"[app.before[SIDE]], app.sow_pit + 1, GRADE_WORDS[g0],
            " (%s lost)" % stones(loss) if loss else "")
    if mode == A.ANIM:
        f = app.flags
        if f & OVER:
            return ""
        if f >= CAPTURED:
            return "%s captured" % WHO[app.anim_side]
        if f & EXTRA:
            return "extra turn: %s moves again" % WHO[app.anim_side]
        return ""
    if mode == A.OVER_:
        how, text, s, n = result(app)
        return "game over%s: %s, %d-%d" % (how, text, s, n)
    return ""
