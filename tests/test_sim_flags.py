"""Issue 26 item 8: the terminal simulator's flags and the game saved in its state.
--variant/--level/--two ask for a game: with nothing under way it starts at once (no
menu, no key to find); a different game, puzzle or lesson under way refuses them in
one line that names it and the ways on; --fresh drops it and starts the new game."""

import os

import pytest

from host_tools.simulators import sim
from mancala import puzzles as PZ
from mancala.hw.clock import ManualClock
from mancala.hw.storage import OsFs, Storage


def boot(state, *flags, start_now=True):
    args = sim.parse_args(["--state", state, *flags])
    b = sim.make_board(args, clock=ManualClock(1000), start_now=start_now)
    b.run(3000)  # past the boot's blink code
    return b


@pytest.fixture
def state(tmp_path):
    return str(tmp_path / "state")


def test_fresh_with_a_variant_starts_that_game_at_once(state):
    b = boot(state, "--fresh", "--variant", "oware", "--level", "master")
    assert b.mode() == "select"  # not the menu: the game the flags asked for
    assert b.app.game.rules.id == "oware" and b.app.game.ply == 0
    assert b.app.meta["level"] == 4 and b.app.meta["human"] == 1
    # the next run without flags goes on with it
    assert boot(state).app.game.rules.id == "oware"


def test_nothing_saved_and_a_flag_starts_the_game_too(state):
    b = boot(state, "--two")
    assert b.mode() == "select" and b.app.meta["human"] == 3  # two people, kalah


def test_fresh_alone_is_the_menu_and_a_script_starts_at_the_boot(state):
    assert boot(state, "--fresh").mode() == "menu"
    # a headless script presses the keys itself: it begins where the board boots
    assert boot(state, "--fresh", "--variant", "oware", start_now=False).mode() == "menu"


def test_a_game_under_way_refuses_another_variant_in_words(state):
    boot(state, "--fresh", "--variant", "kalah", "--two")
    with pytest.raises(sim.SimError) as e:
        boot(state, "--variant", "oware")
    text = str(e.value)
    assert "a game is in progress (0 moves)" in text and "--variant oware (the game is kalah)" \
        in text and "applies to a new game: add --fresh" in text and "leave it out" in text
    b = boot(state, "--variant", "kalah")  # the same game: it goes on
    assert b.mode() == "select" and b.app.game.rules.id == "kalah"


def _puzzle_under_way(state):
    """A kalah puzzle begun from the menu (play: puzzles), as a person does."""
    b = boot(state, "--fresh", start_now=False)
    for pit in ("SS", "SS", "N2", "NS"):  # the play item, puzzles, start
        sim.run_line(b, ["tap", pit])
    assert b.until(("puzzle",), 5000), b.mode()
    prog = PZ.load_progress(Storage(OsFs(state)))
    assert prog["mode"] == "puzzle" and prog["variant"] == "kalah"
    return prog


def test_a_puzzle_under_way_is_not_switched_to_another_variant(state):
    """`--variant oware` without --fresh switched a kalah puzzle under way to oware."""
    _puzzle_under_way(state)
    with pytest.raises(sim.SimError) as e:
        boot(state, "--variant", "oware")
    text = str(e.value)
    assert "a kalah puzzle is under way (puzzle 1)" in text and \
        "--variant oware (the puzzle is kalah)" in text and "--fresh" in text
    with pytest.raises(sim.SimError) as e:  # a level means a game: not silently ignored
        boot(state, "--level", "master")
    assert "--level master applies to a new game" in str(e.value)
    b = boot(state, "--variant", "kalah")  # the puzzle's own variant: it goes on
    assert b.mode() == "puzzle"
    assert PZ.load_progress(Storage(OsFs(state)))["variant"] == "kalah"


def test_fresh_drops_the_puzzle_starts_the_game_and_keeps_the_progress(state):
    _puzzle_under_way(state)
    b = boot(state, "--fresh", "--variant", "oware")
    assert b.mode() == "select" and b.app.game.rules.id == "oware"
    assert b.app.settings["play"] == 0  # a game, not the puzzles
    assert os.path.exists(os.path.join(state, "data", "puzzle.json"))  # progress kept


def test_make_play_with_fresh_and_a_variant_opens_on_the_game(state):
    """The real terminal simulator (a pseudo-terminal): no menu to leave first."""
    from test_sim_terminal import Pty

    p = Pty("--state", state, "--fresh", "--variant", "oware", "--two")
    try:
        assert p.wait_for("mode: select"), p.out[-2000:]
        # (the words under the board come after its header: wait for them too)
        assert p.wait_for("South to move: press a glowing pit's key"), p.out[-2000:]
        p.send(b"\x1b")
        assert p.exit_status() == 0
    finally:
        p.close()
