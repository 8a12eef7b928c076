"""The recorded headless scripts give the very frames they gave before the loop became
modes (issue 15): every LED write, its board time, the mode and the status LED
(tests/frame_scripts.py records them; tests/data/frames/ holds the recordings)."""

import frame_scripts as F
import pytest


@pytest.mark.parametrize("name", sorted(F.SCRIPTS))
def test_frames_are_the_recorded_ones(name):
    want = F.load(name)
    got = F.record(name)
    assert F.first_difference(want, got) is None, F.first_difference(want, got)
    assert want == got


def test_the_recordings_cover_every_mode():
    seen = set()
    for name in F.SCRIPTS:
        seen.update(f[1] for f in F.load(name))
    from mancala import app as A

    # (online: its frames need a broker and a second board; they are pinned by
    # tests/test_modes_online.py and tests/test_online_board.py)
    assert set(A.MODE_NAMES) - {"error", "online"} <= seen, set(A.MODE_NAMES) - seen
    assert "tick" in seen  # the error boards' turns (the status LED)


def test_a_changed_frame_is_caught():
    want = F.load("menu")
    got = list(want)
    t, mode, status, buf = got[5]
    got[5] = (t, mode, status, buf[:-1] + bytes([buf[-1] ^ 1]))
    assert "the LEDs differ" in F.first_difference(want, got)
    assert F.first_difference(want, want[:-1]) == "recorded %d frames, now %d" % (
        len(want), len(want) - 1)
