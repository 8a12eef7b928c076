"""Issue 10, failures 6 and 7 on the emulated board: boot.py and main.py trust
neither /slots/state.json nor the files of a slot, and always end on a
complete, working slot (or the safe state, which still answers deploy)."""

import json
import os

import pytest
from test_update_trial import TRIAL, deploy_fails, deploy_ok, write_state
from update_helpers import (
    assert_player_data_intact,
    board_fixture,
    built_version,
    make_app,
    quiet,
    start_board,
    state_of,
)

from host_tools.link import bridge, deploy, slots

pytestmark = pytest.mark.skipif(not bridge.available(), reason="MicroPython VM not installed (make setup)")


board = pytest.fixture(board_fixture, name="board")


def power_cycle_with(board, change):
    """Cut the power, change the flash (a bit rots, a file is cut short), power on."""
    board.stop()
    change(board.board_dir)
    board.start()


def flip_byte(path, at=-3):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[at] ^= 0x5A
    with open(path, "wb") as f:
        f.write(bytes(data))


def test_a_damaged_mpy_in_the_confirmed_slot_falls_back(board, tmp_path):
    """Failure 6/7: one flipped byte of a .mpy on the flash; the old firmware
    ran it at every start (a hang or an exception, forever)."""
    src1, src2 = make_app(tmp_path / "1", "1.0"), make_app(tmp_path / "2", "2.0", util="two")
    deploy_ok(board, src1)
    deploy_ok(board, src2)
    power_cycle_with(board, lambda d: flip_byte(os.path.join(d, "slots", "b", "mancala", "util.mpy")))
    running, text = start_board(board)
    assert running == (built_version(src1), "a") and "app 1.0 hello" in text
    st = state_of(board)
    assert st["fell_back_from"] == "b" and "mancala/util.mpy is damaged (sha256)" in st["reason"]
    assert_player_data_intact(board.port)


def test_a_truncated_mpy_on_trial_never_runs(board, tmp_path):
    src1, src2 = make_app(tmp_path / "1", "1.0"), make_app(tmp_path / "2", "2.0", util="two")
    deploy_ok(board, src1)
    deploy_ok(board, src2)

    def cut(d):
        p = os.path.join(d, "slots", "b", "mancala", "app.mpy")
        with open(p, "rb") as f:
            data = f.read()
        with open(p, "wb") as f:
            f.write(data[: len(data) // 2])
        with open(os.path.join(d, "slots", "state.json"), "w") as f:
            json.dump({"active": "b", "previous": "a", "trial": True, "boots": 0, "max_boots": 3,
                       "trial_ms": 2000}, f)

    power_cycle_with(board, cut)
    running, _text = start_board(board)
    assert running == (built_version(src1), "a")
    st = state_of(board)
    assert st["fell_back_from"] == "b" and st["reason"] == "slot b is damaged: mancala/app.mpy has the wrong size"


DAMAGED_STATES = [
    "",  # empty (a power cut while it was written by hand)
    '{"active": "a", "prev',  # truncated
    "[]",
    "null",
    '{"active": "c"}',
    '{"active": "a", "previous": "b", "trial": true, "boots": "1", "max_boots": null}',
]


def test_damaged_slot_state_never_adopts_the_broken_version(board, tmp_path):
    """Failure 7: slot a holds a broken version that never passed its trial,
    slot b the good one.  The old boot.py took an empty/truncated/[] state as
    "run slot a, confirmed", and raised on a wrong-typed field before it
    wrote its counter (a reset loop)."""
    src1 = make_app(tmp_path / "1", "1.0")
    src2 = make_app(tmp_path / "2", "2.0", util="good")
    src3 = make_app(tmp_path / "3", "3.0", behaviour="raises_at_start")
    deploy_ok(board, src1)
    deploy_ok(board, src2)
    msg, _r = deploy_fails(board, src3, max_boots=1)
    assert "back on %s (slot b)" % built_version(src2) in msg
    for text in DAMAGED_STATES:
        write_state(board.port, text)
        running, out = start_board(board, timeout=15)
        assert running == (built_version(src2), "b"), (text, out)
        st = state_of(board)
        assert st["active"] == "b" and isinstance(st["boots"], int) and isinstance(st["max_boots"], int), (text, st)
    assert_player_data_intact(board.port)


def test_wrong_typed_fields_on_trial_still_count_and_fall_back(board, tmp_path):
    board.hung_after = 0.3  # the hang's starts end at the deadman by the board's clock, not the wall's
    src1 = make_app(tmp_path / "1", "1.0")
    src2 = make_app(tmp_path / "2", "2.0", behaviour="hangs")
    deploy_ok(board, src1)
    msg, _r = deploy_fails(board, src2, max_boots=1)
    write_state(board.port, '{"active": "b", "previous": "a", "trial": true, "boots": "1", "max_boots": null, "trial_ms": 1000}')
    o = slots.start_board(board.port, timeout=20)  # 3 starts of 1 s, each ended by the deadman, then back to a
    assert o["running"] == (built_version(src1), "a")
    st = state_of(board)
    assert st["fell_back_from"] == "b" and st["reason"].startswith("failed its trial 3 times")


def test_both_manifests_damaged_is_a_safe_state_that_deploy_can_repair(board, tmp_path):
    src1, src2 = make_app(tmp_path / "1", "1.0"), make_app(tmp_path / "2", "2.0")
    deploy_ok(board, src1)
    deploy_ok(board, src2)

    def damage(d):
        for s in "ab":
            with open(os.path.join(d, "slots", s, "manifest.json"), "w") as f:
                f.write('{"version": "2.0", "fi')

    power_cycle_with(board, damage)
    # (it returns as soon as the safe state is seen; the margin is for a loaded machine)
    o = slots.start_board(board.port, timeout=30)
    assert o["safe"] is not None and "no complete firmware" in o["safe"]
    with quiet() as out:
        r = deploy.deploy(board.port, src2, trial_seconds=TRIAL, out=out)
    assert r["running"] == (built_version(src2), r["target"]) and r["healthy"]
    assert_player_data_intact(board.port)
