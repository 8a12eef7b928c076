"""What the App does with the heap it has (issue 42): its attributes all made in
__init__ (a dict that grows mid-game asks for a bigger block, and on an ESP32 the first
think's did not find one), and a loop turn out of memory gives up what the board plays
on without, then starts the board again rather than fail every turn."""

import random

from board_helpers import board, play_game, settled, start

from mancala import app as A


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
