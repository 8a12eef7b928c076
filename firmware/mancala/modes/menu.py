"""The menu: the settings on the South row, their choices on the North row, the North
store starts (docs/PLAYER_GUIDE.md "The menu").

  tap an item's pit (S1..S6, the South store) .... that item; its choices light N1..
  tap a choice ................................... chosen (green) and saved at once
  tap the North store ............................ a new game (or the chosen activity)
  hold both stores ............................... back to the game in progress
"""

import gc
import sys

from mancala import forget
from mancala.hw import pits as P
from mancala.hw.pixels import GREEN, NORTH, SOUTH, WHITE
from mancala.modes import ACTIVITIES, MENU, Mode, put
from mancala.rules import MENU_VARIANTS, N_STORE, S_STORE, get_rules, keep_only

STORES = (1 << S_STORE) | (1 << N_STORE)
VARIANT_CHOICES = MENU_VARIANTS
HINT_CHOICES = (0, 1, 2, 3, 5, 9)
# minutes of quiet before the board dims (0: never; dark after 3x that, mancala/idle.py)
IDLE_CHOICES = (0, 2, 5, 10, 20, 60)
# the settings (ITEMS below); "play" is added with activities (App, at its start)
DEFAULTS = {"variant": "kalah", "opponent": 2, "starter": 0, "coaching": 1, "hints": 3,
            "brightness": 1, "quick": 0, "idle": 10}  # type: dict
# Menu items: (settings key, the board index of the item's pit, colour).  Items may share
# a pit: a tap on it selects the first, a tap again the next (the "play" item of the
# activities, modes.add_activity, shares the South store with "quick").
ITEMS = [
    ("variant", 0, (255, 170, 90)),
    ("opponent", 1, NORTH),
    ("starter", 2, SOUTH),
    ("coaching", 3, GREEN),
    ("hints", 4, (255, 210, 0)),
    ("brightness", 5, WHITE),
    ("idle", 5, (120, 60, 255)),  # minutes before the board dims: S6 tapped again
    ("quick", S_STORE, (0, 255, 210)),
]
PLAY_COLOUR = (255, 255, 120)
if not ACTIVITIES:  # imported before the App registered them (modes/start.py first, a
    # test): registered now, so the import order does not matter.  (On the board the App
    # imports activities at its start; what they register outlives the module.)
    import mancala.modes.activities  # noqa: F401
if ACTIVITIES:  # (modes.add_activity): the "play" item chooses what the North store starts
    ITEMS.append(("play", S_STORE, PLAY_COLOUR))
    DEFAULTS["play"] = 0  # (0: a game; the board imports this module again after a game)


# -- the settings and a new game (the boot's and the menu's: a game need not hold them)

def apply_settings(app):
    """Settings out of range (a file edited by hand) fall back to the defaults."""
    s = app.settings
    if s["variant"] not in VARIANT_CHOICES:
        s["variant"] = DEFAULTS["variant"]
    if s["hints"] not in HINT_CHOICES:
        s["hints"] = DEFAULTS["hints"]
    if s.get("idle") not in IDLE_CHOICES:
        s["idle"] = DEFAULTS["idle"]
    for key in ("opponent", "starter", "coaching", "brightness", "quick", "play"):
        if key not in s:
            continue
        if not 0 <= s[key] < choices(app, key):
            s[key] = DEFAULTS[key] if DEFAULTS[key] < choices(app, key) else 0
    app.px.set_level(s["brightness"])

def save_settings(app):
    app.saved(app.store_call(app.store.save, "settings.json", app.settings))

def need_engine(app, rules=None):
    """The engine for `rules` (the game's): kept while the variant stays."""
    if rules is None:
        rules = app.game.rules
    if app.engine_cls is None:
        return
    if app.engine is not None and app.engine.rules is rules:
        return
    release = getattr(app.engine, "release", None)
    if release is not None:
        release()  # its table and keys go to the new one: nothing big allocated again
    release = None  # (the bound method held the old engine and its ~1.5 KB dict alive
    # while the new one was built: at a variant change in the ESP32's session its dict
    # then found no block of its size; docs/BOARD.md "Memory through the boot path")
    app.engine = None  # the old one released before the new one is built
    if sys.implementation.name == "micropython":  # the board: the old variant's tables go
        keep_only(rules)  # (the PC keeps them: tests hold rule sets across boards)
    gc.collect()
    seed = app.rng.next() & 0xFFFF
    bits = app.profile["tt_bits"]
    while True:
        try:
            app.engine = app.engine_cls(rules, tt_bits=bits, seed=seed)
            break
        except MemoryError:
            # A fragmented heap, a smaller chip: a smaller table plays a little
            # weaker, a board that does not start does not play at all
            if bits <= MIN_TT_BITS:
                raise
            bits -= 1
            gc.collect()
    if bits != app.profile["tt_bits"]:
        short(app, "memory: no room for the engine's table of 2**%d entries: it has 2**%d"
              % (app.profile["tt_bits"], bits))
    for opener in (open_tables, open_book):
        try:
            opener(app)
        except MemoryError:
            gc.collect()
            short(app, "memory: no room for the %s: playing without it"
                  % ("endgame table" if opener is open_tables else "opening book"))


MIN_TT_BITS = 8  # the smallest table the engine is built with (256 entries, 1.5 KB)
MEMORY_CODE = 6  # the pits blink amber six times: started with a smaller engine table, or
# without the endgame table or the book, for lack of memory (short(); PLAYER_GUIDE.md)


def short(app, why):
    """The board starts with less than it wants (memory): said on the console and kept
    for its start line (App.short)."""
    app.log(why)
    if why not in app.short:
        app.short.append(why)


def on_flash(app, opener, path, what):
    """True if the flash has `path`; else said on the console (the board plays on
    without it).  The module that reads it is imported only then (its code is heap)."""
    try:
        opener(path).close()
    except OSError:
        app.log("%s: no %s; playing on without it" % (what, path))
        return False
    return True


def open_tables(app):
    """Give the engine the endgame table of its rules, if the flash has a good
    one (docs/TABLEBASE.md); a missing or damaged one is said on the console
    and the board plays on without it."""
    set_table = getattr(app.engine, "set_table", None)
    opener = getattr(app.store.fs, "open_read", None)
    if set_table is None or opener is None:
        return
    name = app.engine.rules.name  # (the old engine's table was closed by its release())
    path = "/tables/" + name + ".tb"  # tablebase.board_path()
    if not on_flash(app, opener, path, "tables"):
        return
    from mancala import tablebase

    table = tablebase.open_table(path, name, log=app.log, opener=opener)
    if table is not None and sys.implementation.name == "micropython":
        table = table.lookups()  # the board keeps what the search reads: the module goes
    set_table(table)
    table = tablebase = None
    forget("tablebase")

def open_book(app):
    """Give the engine the opening book of its rules, if the flash has a good one
    (/tables/VARIANT.book, docs/ENGINE.md "Opening book"); a missing or damaged
    one is said on the console and the board plays on without it."""
    set_book = getattr(app.engine, "set_book", None)
    opener = getattr(app.store.fs, "open_read", None)
    if set_book is None or opener is None:
        return
    path = "/tables/" + app.engine.rules.id + ".book"  # (the old one: closed by release())
    if not on_flash(app, opener, path, "book"):
        return
    from mancala import book

    bk = book.open_book(path, app.engine.rules.id, log=app.log, opener=opener)
    if bk is not None:
        set_book(bk.f, bk.entries)  # the engine looks up by itself: the file is all it keeps
    bk = book = None
    forget("book")


def new_game(app):
    s = app.settings
    rules = get_rules(s["variant"])
    side = s["starter"]
    if side == 2:
        side = app.rng.next() & 1
    app.game = app.session_game  # its buffers reused: a session allocates them once
    app.game.reset(rules, rules.start(side))
    opp = s["opponent"]
    last = app.meta["number"] if app.meta is not None else 0
    app.meta = {"number": app.store.next_game_number(last),
                 "human": 3 if opp == 0 else 1, "level": opp, "hints": s["hints"]}
    need_engine(app)
    app.save_game()
    app.pause = 0
    # an abandoned game's may carry the same number
    app.saved(app.store_call(app.store.remove, "pause.json"))
    app.refresh()
    app.hint_pit = -1
    app.set_mode(app.turn_mode())

# 1: the last tap selected an item (a shared pit's next tap then selects the next item);
# a byte, not an attribute: setting one on the singleton would build its dict
AGAIN = bytearray(1)


def first_on(pit):
    """The first item on `pit` (items may share a pit)."""
    for k in range(len(ITEMS)):
        if ITEMS[k][1] == pit:
            return k
    return -1


def choices(app, key):
    if key == "variant" or key == "hints" or key == "idle":
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
    if key == "idle":
        return IDLE_CHOICES.index(v) if v in IDLE_CHOICES else -1
    return v


class Menu(Mode):
    name = "menu"
    animated = True  # the North store blinks: start

    def on_event(self, app, kind, arg):
        if kind == P.LONG:
            if arg == STORES:
                app.toggle_menu()
        elif kind == P.TAP:
            self.tap(app, arg)

    def tap(self, app, pit):
        if pit == N_STORE:
            save_settings(app)
            play = app.settings.get("play", 0)
            if play and play <= len(ACTIVITIES):
                app.set_mode(ACTIVITIES[play - 1][0])
            else:
                new_game(app)
            return
        first = -1
        for k in range(len(ITEMS)):
            if ITEMS[k][1] == pit:
                if first < 0:
                    first = k
                if k > app.item and ITEMS[app.item][1] == pit and AGAIN[0]:
                    app.item = k  # tapped again, no choice between: the next item
                    app.dirty = True
                    return
        if first >= 0:
            app.item = first
            AGAIN[0] = 1
            app.dirty = True
            return
        AGAIN[0] = 0  # a choice: the item's pit selects its first item again
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
        elif key == "idle":
            s[key] = IDLE_CHOICES[c]
        else:
            s[key] = c
        apply_settings(app)
        save_settings(app)
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
