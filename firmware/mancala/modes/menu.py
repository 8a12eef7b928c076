"""The menu: the settings on the South row, their choices on the North row, the North
store starts (docs/PLAYER_GUIDE.md "The menu").

  tap an item's pit (S1..S6, the South store) .... that item; its choices light N1..
  tap a choice ................................... chosen (green) and saved at once
  tap the North store ............................ a new game (or the chosen activity)
  hold both stores ............................... back to the game in progress
"""

from mancala.hw import pits as P
from mancala.hw.pixels import GREEN, NORTH, SOUTH, WHITE
from mancala.modes import MENU, THINK, Mode, put
from mancala.rules import N_STORE, S_STORE

STORES = (1 << S_STORE) | (1 << N_STORE)
VARIANT_CHOICES = ("ranok", "mangala", "kalah", "oware", "kalah3", "kalah6")
HINT_CHOICES = (0, 1, 2, 3, 5, 9)
# Menu items: (settings key, the board index of the item's pit, colour).  Items may share
# a pit: a tap on it selects the first, a tap again the next (activities, add_activity).
ITEMS = [
    ("variant", 0, (255, 170, 90)),
    ("opponent", 1, NORTH),
    ("starter", 2, SOUTH),
    ("coaching", 3, GREEN),
    ("hints", 4, (255, 210, 0)),
    ("brightness", 5, WHITE),
    ("quick", S_STORE, (0, 255, 210)),
]
DEFAULTS = {"variant": "kalah", "opponent": 2, "starter": 0, "coaching": 1, "hints": 3,
            "brightness": 1, "quick": 0}  # type: dict
# What the North store may start besides a new game: (mode number, colour), choices 1..
# of the "play" item (0: the game).  Empty on a build without puzzles or a course.
ACTIVITIES = []  # type: list
PLAY_COLOUR = (255, 255, 120)


def add_activity(number, colour=None):
    """List mode `number` in the menu: a choice of the "play" item (on the South store,
    after "quick"), which the North store's tap then starts.  At import, before the App
    is built (its settings are read with DEFAULTS)."""
    for a in ACTIVITIES:
        if a[0] == number:
            return
    ACTIVITIES.append((number, colour or PLAY_COLOUR))
    if "play" not in DEFAULTS:
        ITEMS.append(("play", S_STORE, PLAY_COLOUR))
        DEFAULTS["play"] = 0


def first_on(pit):
    """The first item on `pit` (items may share a pit)."""
    for k in range(len(ITEMS)):
        if ITEMS[k][1] == pit:
            return k
    return -1


def choices(app, key):
    if key == "variant" or key == "hints":
        return 6
    if key == "opponent":
        return 5
    if key == "starter":
        return 3
    if key == "brightness":
        return len(app.px.levels)
    if key == "play":
        return 1 + len(ACTIVITIES)
    return 2


def choice(app, key):
    v = app.settings[key]
    if key == "variant":
        return VARIANT_CHOICES.index(v)
    if key == "hints":
        return HINT_CHOICES.index(v) if v in HINT_CHOICES else -1
    return v


def toggle(app):
    """Both stores held: the menu (a new game), or from the menu back to the game."""
    if app.mode == MENU:
        if app.game is not None and not app.game.over:
            app.refresh()
            app.set_mode(app.turn_mode())
        return
    if app.engine is not None and app.mode == THINK:
        app.engine.stop()
    app.item = 0
    app.set_mode(MENU)


class Menu(Mode):
    name = "menu"
    animated = True  # the North store blinks: start
    again = False  # the last tap selected an item (a shared pit's next tap: the next item)

    def on_event(self, app, kind, arg):
        if kind == P.LONG:
            if arg == STORES:
                toggle(app)
        elif kind == P.TAP:
            self.tap(app, arg)

    def tap(self, app, pit):
        if pit == N_STORE:
            app.save_settings()
            play = app.settings.get("play", 0)
            if play and play <= len(ACTIVITIES):
                app.set_mode(ACTIVITIES[play - 1][0])
            else:
                app.new_game()
            return
        first = -1
        for k in range(len(ITEMS)):
            if ITEMS[k][1] == pit:
                if first < 0:
                    first = k
                if k > app.item and ITEMS[app.item][1] == pit and self.again:
                    app.item = k  # tapped again, no choice between: the next item
                    app.dirty = True
                    return
        if first >= 0:
            app.item = first
            self.again = True
            app.dirty = True
            return
        self.again = False  # a choice: the item's pit selects its first item again
        key = ITEMS[app.item][0]
        n = choices(app, key)
        c = pit - 7
        if not 0 <= c < n:
            app.no(1 << pit)
            return
        s = app.settings
        if key == "variant":
            s[key] = VARIANT_CHOICES[c]
        elif key == "hints":
            s[key] = HINT_CHOICES[c]
        else:
            s[key] = c
        app.apply_settings()
        app.save_settings()
        app.dirty = True

    def draw(self, app, px, el, phase):
        for k in range(len(ITEMS)):
            key, pit, col = ITEMS[k]
            if k == app.item or ITEMS[app.item][1] != pit and first_on(pit) == k:
                px.fill(pit, col, 1 if k == app.item else 6)  # a shared pit: the chosen
                # item's colour, else its first item's
        key, _, col = ITEMS[app.item]
        cur = choice(app, key)
        for c in range(choices(app, key)):
            px.count(7 + c, c + 1, GREEN if c == cur else col)
        if phase:
            px.fill(N_STORE, GREEN, 1)
        else:
            px.fill(N_STORE, GREEN, 4)


MENU_MODE = Menu()
put(MENU, MENU_MODE)
