"""What the App does with the heap it has (issue 42): its attributes all made in
__init__ (a dict that grows mid-game asks for a bigger block, and on an ESP32 the first
think's did not find one), and a loop turn out of memory gives up what the board plays
on without, then starts the board again rather than fail every turn."""

import random

from board_helpers import board, play_game, settled, start, to_select

from mancala import app as A
from mancala.record import format_record


def test_a_game_with_the_coach_adds_no_attribute_to_the_app():
    b = board(opponent=3, coaching=1, hints=3)
    start(b)
    held = set(vars(b.app))
    play_game(b, random.Random(4))
    grown = set(vars(b.app)) - held
    assert not grown, "App attributes first set after __init__: %s" % sorted(grown)


class _Closing:
    """A book's file, an endgame table: what the engine closes when it gives them up."""

    seeds = 9

    def __init__(self):
        self.closed = False

    def close(self):
        self.closed = True


def test_turns_out_of_memory_give_up_the_book_then_the_table_then_restart():
    b = board(strict=False)
    start(b)
    app = b.app
    book, table = _Closing(), _Closing()
    app.engine.set_book(book, 10)
    app.engine.set_table(table)
    restarts = []
    app.restart = lambda: restarts.append(1)
    app.update = lambda: (_ for _ in ()).throw(MemoryError("memory allocation failed"))
    app.recover = lambda: None  # (the way back itself is modes/errors.py's test)

    app.tick()  # one turn out of room: a moment, nothing given up
    assert app.engine.book is book and app.starved == 1
    app.tick()
    assert app.engine.book is None and book.closed
    assert "memory: out of room in play: playing on without the opening book" in b.lines
    assert app.engine.table is table
    app.tick()
    assert app.engine.table is None and table.closed and app.engine.table_seeds == -1
    assert app.short[-1].endswith("without the endgame table")
    for _ in range(A.App.STARVED_TURNS - 4):
        app.tick()
    assert not restarts and b.lines[-1] == "memory: out of room this turn: trying again"
    app.tick()
    assert restarts == [1], b.lines[-3:]
    assert b.lines[-1].startswith("memory: %d turns in a row out of room" % A.App.STARVED_TURNS)


def test_a_turn_that_runs_clean_ends_the_count():
    b = board(strict=False)
    start(b)
    app = b.app
    update = app.update
    app.update = lambda: (_ for _ in ()).throw(MemoryError("memory allocation failed"))
    app.recover = lambda: None
    app.tick()
    assert app.starved == 1
    app.update = update
    app.tick()
    assert app.starved == 0


def test_a_mode_whose_module_did_not_load_is_loaded_again_next_turn(monkeypatch):
    """The board drops a group's modules on a switch (modes.forget_others); if the next
    mode's module then finds no room, the turn after loads it again before anything asks
    the mode (it used to fail every turn on the empty slot)."""
    from mancala import modes as M

    b = board(strict=False)
    start(b)
    app = b.app
    mode = app.mode
    kept = M.MODES[mode]
    M.MODES[mode] = None
    loads = []

    def load(number):
        loads.append(number)
        M.MODES[number] = kept
        return kept

    monkeypatch.setattr(M, "load", load)
    app.recover = lambda: None
    app.update = lambda: (_ for _ in ()).throw(MemoryError("memory allocation failed"))
    app.tick()
    assert app.switching and M.MODES[mode] is None
    del app.update
    app.tick()
    assert loads == [mode] and M.MODES[mode] is kept and not app.switching


def test_no_room_to_read_the_saved_game_back_keeps_it(monkeypatch):
    """A MemoryError while game.json is read back is not a damaged file: the saved game
    stays on the flash, whole, for the next try (it was said lost, and the board went
    to the menu to write over it)."""
    from mancala.hw import storage as S
    from mancala.modes import start as boot

    b = board(strict=False)
    start(b)
    app = b.app
    b.tap("S3")  # a move: the game is saved
    b.sow()
    settled(b)
    saved = app.store.fs.read(app.store.path("game.json"))
    assert saved

    def no_room(data):
        raise MemoryError("memory allocation failed, allocating 4112 bytes")

    monkeypatch.setattr(S.json, "loads", no_room)
    try:
        boot.boot_game(app)
    except MemoryError:
        pass
    else:
        raise AssertionError("boot_game swallowed the MemoryError")
    assert not any("the game is lost" in line for line in b.lines), b.lines[-3:]
    assert app.store.fs.read(app.store.path("game.json")) == saved


def _no_room_until_the_spare_goes(app, calls):
    """store.save as on a heap in pieces: no block for a file's buffer while the spare
    holds the one there is."""
    save = app.store.save

    def tight_save(name, obj):
        calls.append(app.spare is not None)
        if app.spare is not None:
            raise MemoryError("memory allocation failed, allocating 304 bytes")
        return save(name, obj)

    app.store.save = tight_save


def test_a_save_that_finds_no_room_goes_through_in_the_spare():
    """An ESP32 near its heap's end had kilobytes free and no block for a file's buffer:
    each move's save failed.  The spare kept from the start is that block: the save is
    made again in it, then the spare is taken again for the next."""
    b = board(strict=False)
    start(b)
    app = b.app
    assert isinstance(app.spare, bytearray) and len(app.spare) == A.App.SPARE_BYTES
    calls = []
    _no_room_until_the_spare_goes(app, calls)
    b.tap("S3")
    b.sow()
    settled(b)
    assert True in calls and False in calls, calls  # refused, then made in the spare's room
    assert not any("no room to save" in line for line in b.lines), b.lines[-3:]
    st, saved = app.store.load("game.json")
    assert saved["record"] == format_record(app.game) and app.game.ply >= 1, saved
    assert isinstance(app.spare, bytearray)  # taken again
    assert not app.unsaved  # (not the full flash's code: the flash is fine)


def test_no_room_even_in_the_spare_says_so_and_the_next_save_writes_it_all():
    b = board(strict=False)
    start(b)
    app = b.app
    save = app.store.save
    room = [False]

    def no_room(name, obj):
        if not room[0]:
            raise MemoryError("memory allocation failed, allocating 304 bytes")
        return save(name, obj)

    app.store.save = no_room
    before = app.store.fs.read(app.store.path("game.json"))
    b.tap("S3")
    b.sow()
    settled(b)
    said = [line for line in b.lines if line.startswith("memory: no room to save now")]
    assert said and "MemoryError" in said[0], b.lines[-4:]
    assert app.store.fs.read(app.store.path("game.json")) == before  # the last save, whole
    assert not app.unsaved and app.game.ply >= 1  # the game goes on in memory
    room[0] = True
    ply = app.game.ply
    to_select(b)
    b.tap(next(n for n in ("S1", "S2", "S4", "S5", "S6")
               if app.game.pos[("S1", "S2", "S3", "S4", "S5", "S6").index(n)]))
    b.sow()
    settled(b)
    st, saved = app.store.load("game.json")
    assert app.game.ply > ply and saved["record"] == format_record(app.game)  # the unsaved moves too


def test_a_line_about_no_room_that_itself_finds_none_goes_alone():
    b = board(strict=False)
    start(b)
    app = b.app
    said = []

    def log(text):
        if "(" in text:  # the error's text formatted in: no room for it
            raise MemoryError("memory allocation failed")
        said.append(text)

    app.log = log
    app.say_no_room("memory: out of room in the loop", MemoryError("allocating 208 bytes"))
    assert said == ["memory: out of room in the loop"]


def test_a_game_turn_out_of_room_keeps_the_game_in_memory_and_its_mode(monkeypatch):
    """A MemoryError in a game's turn (here: the computer's mode's module finds no room
    as the person's move ends) does not read the last save back (itself a file to open,
    and a menu when that fails): the game in memory stays, the mode is loaded again next
    turn, and the game goes on where it was."""
    from mancala import modes as M
    from mancala.modes import errors

    b = board(strict=False, opponent=1)
    start(b)
    app = b.app
    recovered = []
    monkeypatch.setattr(errors, "recover", lambda a: recovered.append(1))
    kept = M.load(M.THINK)
    fails = [1]

    def load(number):
        if fails:
            fails.pop()
            raise MemoryError("memory allocation failed, allocating 368 bytes")
        M.MODES[number] = kept
        return kept

    monkeypatch.setattr(M, "load", load)
    M.MODES[M.THINK] = None  # (as on the board: the computer's module went with the menu)
    b.tap("S1")  # (4 stones: S2..S5, no extra turn: the computer's turn comes)
    b.sow()
    settled(b)
    assert not fails, "the load never failed"
    assert any(line.startswith("memory: out of room in the loop") for line in b.lines)
    assert not recovered
    assert app.game.ply == 1 and b.mode() == "show", b.frame()  # the computer's move, found
    assert app.starved == 0  # the next turns ran clean


def test_a_table_that_would_leave_the_game_no_room_is_built_smaller(monkeypatch):
    """The engine's table was as big as the heap gave, and on the ESP32's stand-in one
    that left 8 KB ran out in the game: a table above the smallest that leaves less than
    GAME_ROOM free is refused (App.board_engine), and need_engine builds the next smaller,
    said as a start with less."""
    from mancala.modes.menu import need_engine
    from mancala.rules import get_rules

    b = board(strict=False)
    app = b.app
    heap = {"free": A.GAME_ROOM + 6 * 1024}  # room for a table of 2**10 (6 KB) and the game's
    built = [0]  # the bytes of the last table built (taken from the heap's free)
    real = A.App.board_engine

    def board_engine(rules, **kw):
        built.append(6 * (1 << kw["tt_bits"]))
        return real(rules, **kw)

    monkeypatch.setattr(A.gc, "mem_free", lambda: heap["free"] - built[-1], raising=False)
    app.engine_cls = board_engine
    app.engine = None
    app.short[:] = []
    need_engine(app, get_rules("oware"))
    assert app.engine.tt_bits == 10 and built[1:] == [6 << 12, 6 << 11, 6 << 10], built
    assert app.short == ["memory: no room for the engine's table of 2**12 entries: it has "
                         "2**10"], app.short
    heap["free"] = 0  # no room at all: the smallest table still plays
    app.engine = None
    need_engine(app, get_rules("kalah"))
    assert app.engine.tt_bits == 8
