"""The app's side of a trial boot (issue 10): healthy means HEALTHY_TURNS loop
turns in a row with no exception, and not the error board; the safe state and
an empty or unknown board.txt say what is wrong."""

import pytest
from board_helpers import board

from host_tools.fakes import machine, neopixel
from host_tools.fakes.memfs import MemFs
from mancala import app as A
from mancala.hw.clock import ManualClock


class Done(BaseException):
    pass


def run_for(b_app, clock, ms, monkeypatch):
    calls = []

    def sleep(n):
        clock.advance(max(n, 1))
        if clock.now() > ms:
            raise Done()

    monkeypatch.setattr(A, "confirm_boot", lambda: calls.append(clock.now()))
    b_app.clock.sleep = sleep
    try:
        b_app.run()
    except Done:
        pass
    return calls


def test_a_loop_whose_every_turn_raises_never_confirms(monkeypatch):
    # old code: tick() swallowed the exception and run() confirmed after 50 turns anyway
    b = board(variant="kalah", opponent=0, strict=False)
    logs = []
    b.app.log = logs.append

    def broken():
        raise RuntimeError("every turn fails")

    b.app.update = broken
    assert run_for(b.app, b.clock, 5000, monkeypatch) == []
    assert any("every turn fails" in str(x) for x in logs)


def test_turns_must_be_clean_in_a_row(monkeypatch):
    b = board(variant="kalah", opponent=0, strict=False)
    b.app.log = lambda *a: None
    real = b.app.update
    n = [0]

    def sometimes():
        n[0] += 1
        if n[0] % 40 == 0:  # one failure every 40 turns: never 50 clean in a row
            raise RuntimeError("flaky")
        return real()

    b.app.update = sometimes
    assert run_for(b.app, b.clock, 5000, monkeypatch) == []
    b.app.update = real
    calls = run_for(b.app, b.clock, 10000, monkeypatch)
    assert len(calls) == 1


def test_error_board_never_confirms(monkeypatch):
    clock = ManualClock()
    eb = A.build({"error": "broken profile"}, machine, neopixel, clock, fs=MemFs(), log=lambda *a: None)
    assert isinstance(eb, A.ErrorBoard)
    assert run_for(eb, clock, 5000, monkeypatch) == []


def test_safe_state_lights_the_board_and_says_why():
    from mancala import profiles

    clock = ManualClock()
    logs = []
    eb = A.build(profiles.load("pico_buttons"), machine, neopixel, clock, fs=MemFs(), log=logs.append,
                 fault="2.0 kept failing: RuntimeError: late failure")
    assert isinstance(eb, A.ErrorBoard) and eb.np is not None
    eb.tick()
    assert eb.np.buf[:3] != bytearray(3)  # lit (dim red)
    assert "  2.0 kept failing: RuntimeError: late failure" in logs


@pytest.mark.parametrize("text,needle", [
    ("", "/data/board.txt is empty"),
    ("pico_hal\n", "unknown board profile 'pico_hal'"),
])
def test_empty_or_unknown_board_txt_is_reported_with_the_profiles(tmp_path, monkeypatch, text, needle):
    # old code: an empty board.txt (the bring-up's unclosed open().write) was
    # "unknown board profile: " with no way to set it right
    import builtins

    from mancala import profiles

    real_open = builtins.open
    p = tmp_path / "board.txt"
    p.write_text(text)
    monkeypatch.setattr(builtins, "open", lambda f, *a, **k: real_open(p if f == "/data/board.txt" else f, *a, **k))
    with pytest.raises(ValueError) as e:
        A.pick_profile()
    msg = str(e.value)
    assert needle in msg and "make deploy PROFILE=" in msg
    assert all(n in msg for n in profiles.NAMES)
