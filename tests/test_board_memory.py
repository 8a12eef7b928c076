"""Never down for lack of memory (issue 42 item 3) and the start line (item 4), on the
simulated board: each place where the start or a move cannot have what it wants gives
it up, says so on the console and in the start line (and the blink code at power-on),
and the board plays on.  The real heaps are in tests/test_chip_boot.py (the RP2040
model) and tests/test_unix_boot.py / test_unix_session.py (the unix port, capped)."""

import board_helpers as H
import pytest

from host_tools.fakes.memfs import MemFs
from mancala import app as A
from mancala import engine as E
from mancala.hw.storage import Storage
from mancala.modes import start as S
from mancala.modes.menu import MIN_TT_BITS

SETTINGS = dict(H.SETTINGS, opponent=4)


def engine_needing(bits_at_most, fails=None):
    """An engine class whose table of more than 2**bits_at_most entries finds no room."""

    class Short(E.Engine):
        def __init__(self, rules, tt_bits=12, seed=0, native=None):
            if tt_bits > bits_at_most:
                if fails is not None:
                    fails.append(tt_bits)
                raise MemoryError("memory allocation failed, allocating %d bytes" % (4 << tt_bits))
            E.Engine.__init__(self, rules, tt_bits, seed, native)

    return Short


def started(engine_cls=None, fs=None, **kw):
    if fs is None:
        fs = MemFs()
        Storage(fs).save("settings.json", SETTINGS)
    return H.board(fs=fs, engine_cls=engine_cls, **kw)


def new_game(b):
    b.run(5000)  # (the boot's blink codes, if any: code 6 takes 4.5 s)
    b.tap("NS")  # the menu's start: a new game, the person (South) to move
    H.settled(b)


def start_line(b):
    lines = [x for x in b.lines if x.startswith("start: ")]
    assert len(lines) == 1, b.lines
    return lines[0]


def test_the_start_line_names_the_profile_and_the_engine():
    b = started()
    line = start_line(b)
    # (CPython runs no machine code: the bytecode reference, and why; no heap to say)
    assert line == "start: pico-buttons; engine bytecode (the PC runs no machine code), table 2**12"
    assert b.app.short == [] and 6 not in b.app.boot_codes


def test_a_table_that_finds_no_room_is_smaller_said_and_the_board_plays():
    tried = []
    b = started(engine_needing(10, tried))
    assert tried == [12, 11]  # halved until it fitted
    assert b.app.engine.tt_bits == 10
    note = "memory: no room for the engine's table of 2**12 entries: it has 2**10"
    assert note in b.lines and b.app.short == [note]
    assert "started with less memory: " + note in start_line(b)
    assert b.app.boot_codes == [S.MEMORY_CODE]  # the pits blink amber six times
    new_game(b)
    b.play_move(0)  # S1: a move, and Master answers with its smaller table
    H.settled(b)
    assert b.mode() == "show"  # Master's move, shown
    b.sow()
    H.settled(b)
    assert b.app.game.ply >= 2 and b.app.game.side == 0


def test_no_room_even_for_the_smallest_table_is_the_stages_to_handle():
    # (the start raises: main.py's stage counts a failed start and restarts the board)
    with pytest.raises(MemoryError):
        started(engine_needing(MIN_TT_BITS - 1))


def test_a_save_with_no_room_keeps_the_game_in_memory_and_the_next_move_saves_it(monkeypatch):
    b = started()
    new_game(b)
    app = b.app
    real = app._save_game
    failing = [True]

    def save():
        if failing[0]:
            raise MemoryError("memory allocation failed, allocating 512 bytes")
        real()

    monkeypatch.setattr(app, "_save_game", save)
    b.play_move(2)  # S3: four stones, the last in the store (an extra turn)
    assert any(x.startswith("memory: no room to save now") for x in b.lines), b.lines
    ply = app.game.ply
    assert ply == 1 and app.mode != A.ERROR and app.errors == 0
    failing[0] = False
    H.settled(b)
    st, saved = Storage(b.fs).load("game.json")
    before = saved["record"]
    if app.game.side == 0:
        legal = [k for k in range(6) if app.game.pos[15] >> k & 1]
        b.play_move(legal[0])
    else:
        b.sow()
    st, saved = Storage(b.fs).load("game.json")
    assert saved["record"] != before and saved["record"].count(" ") >= ply


def test_a_start_that_runs_out_of_room_starts_again_without_the_room(monkeypatch):
    import mancala.game as G

    real = S._hardware
    calls = []

    def hardware(*a, **kw):
        calls.append(G._room is not None)
        if len(calls) == 1:
            raise MemoryError("memory allocation failed, allocating 1259 bytes")
        return real(*a, **kw)

    monkeypatch.setattr(S, "_hardware", hardware)
    monkeypatch.setattr(G, "_room", bytearray(16))  # (the PC's start has freed it long ago)
    b = started()
    assert calls == [True, False]  # the second start without the room
    note = "memory: started again without the room for its buffers"
    assert b.app.short == [note] and note in start_line(b)
    assert any(x.startswith("memory: the start ran out of room (MemoryError(") for x in b.lines)
    new_game(b)


def test_a_profile_check_with_no_room_is_skipped_and_said(monkeypatch):
    def no_room(profile):
        raise MemoryError("memory allocation failed, allocating 752 bytes")

    monkeypatch.setattr(S, "_validate", no_room)
    b = started()
    note = "memory: no room to check the board profile: starting with it unchecked"
    assert b.app.short == [note] and b.app.boot_codes == [S.MEMORY_CODE]
    new_game(b)
