"""`make deploy` sends the endgame tables (issue 14) to an emulated board: only
when their hash differs from the board's, checked on the board, outside the
application slots (an update of the code alone leaves them); a table that is
not built is said and left out.  The opening book (committed) goes with them."""

import contextlib
import io
import os

import pytest
from update_helpers import (  # noqa: F401
    assert_player_data_intact,
    board_fixture,
    make_app,
)

from host_tools.generators.book import book_path
from host_tools.generators.tablebase import built_path, write_table
from host_tools.link import bridge, deploy
from mancala.tablebase import open_table

pytestmark = pytest.mark.skipif(not bridge.available(), reason="MicroPython VM not installed (make setup)")

TRIAL = 3
board = pytest.fixture(board_fixture, name="board")
PLAN = {"ranok": 3, "kalah": 2}


@contextlib.contextmanager
def said():
    """What deploy says, kept for the test to read."""
    yield io.StringIO()


def on_board(board, name):
    return os.path.join(board.board_dir, "tables", name)


def test_tables_sent_once_checked_and_left_by_code_updates(board, tmp_path):
    tables = tmp_path / "built"
    tables.mkdir()
    for v, n in PLAN.items():
        write_table(built_path(v, n, str(tables)), v, n)
    with said() as out:
        r = deploy.deploy(board.port, trial_seconds=TRIAL, src=make_app(tmp_path / "1", "1.0"),
                          out=out, tables_dir=str(tables), tables_for=PLAN)
    # (the opening book, committed, goes with the plan's kalah table)
    assert sorted(r["tables"]) == ["kalah.book", "kalah.tb", "ranok.tb"] and r["confirmed"]
    with open(on_board(board, "kalah.book"), "rb") as f:
        assert f.read() == open(book_path("kalah"), "rb").read()
    for v, n in PLAN.items():
        with open(on_board(board, v + ".tb"), "rb") as f, \
                open(built_path(v, n, str(tables)), "rb") as g:
            assert f.read() == g.read()
        assert open_table(on_board(board, v + ".tb"), v) is not None
    # the code changes, the tables do not: they are not sent again
    with said() as out:
        r = deploy.deploy(board.port, trial_seconds=TRIAL, src=make_app(tmp_path / "2", "1.0", util="x"),
                          out=out, tables_dir=str(tables), tables_for=PLAN)
    assert r["tables"] == [] and r["sent"] == ["mancala/util.mpy"]
    assert "tables: kalah, ranok unchanged on the board" in out.getvalue()
    # a table damaged on the board is sent again, even when the code is up to date
    path = on_board(board, "ranok.tb")
    data = bytearray(open(path, "rb").read())
    data[40] ^= 1
    bridge_write(board, "/tables/ranok.tb", bytes(data))
    with said() as out:
        r = deploy.deploy(board.port, trial_seconds=TRIAL, src=make_app(tmp_path / "3", "1.0", util="x"),
                          out=out, tables_dir=str(tables), tables_for=PLAN)
    assert r["up_to_date"] and r["tables"] == ["ranok.tb"]
    assert open_table(on_board(board, "ranok.tb"), "ranok") is not None
    assert_player_data_intact(board.port)


def test_a_table_not_built_is_said_and_left_out(board, tmp_path):
    # (and a table an older plan sent, of a variant this plan leaves out, goes)
    bridge_write(board, "/tables/ranok.tb", b"an older plan's table")
    with said() as out:
        r = deploy.deploy(board.port, trial_seconds=TRIAL, src=make_app(tmp_path / "1", "1.0"),
                          out=out, tables_dir=str(tmp_path / "none"), tables_for={"kalah": 9})
    assert r["tables"] == ["kalah.book"] and r["confirmed"]  # the book is committed
    assert "kalah-9.tb is not built (make tablebase)" in out.getvalue()
    assert not os.path.exists(on_board(board, "kalah.tb"))
    assert "tables: removed ranok.tb (not in this board's plan)" in out.getvalue()
    assert not os.path.exists(on_board(board, "ranok.tb"))


def bridge_write(board, path, data):
    """Change a file on the emulated board's flash through its REPL (as a bit
    flip on a real flash would: the board's own copy, not the host folder)."""
    from host_tools.link.board_transport import BOARD_FS, Board

    b = Board(board.port)
    try:
        b.raw(soft_reset=False)
        b.exec(BOARD_FS)
        b.write_file(path, data)
    finally:
        b.close(restart_app=False)
