"""Issue 10, failure 8: a full flash never blocks the way back, and deploy's
options are range-checked; bring-up sets the board profile through deploy."""

import hashlib
import os

import pytest
from update_helpers import (
    PLAYER_DATA,
    assert_player_data_intact,
    board_fixture,
    built_version,
    make_app,
    quiet,
    read_board_files,
)

from host_tools.link import bridge, deploy, slots

pytestmark = pytest.mark.skipif(not bridge.available(), reason="MicroPython VM not installed (make setup)")

TRIAL = 2
board = pytest.fixture(board_fixture, name="board")


@pytest.mark.parametrize("args,needle", [
    (["--max-boots", "0"], "--max-boots must be 1 to 10 (got 0)"),
    (["--max-boots", "11"], "--max-boots must be 1 to 10 (got 11)"),
    (["--trial-seconds", "1"], "--trial-seconds must be 2 to 600 (got 1.0)"),
    (["--profile", "pico_hal"], "unknown board profile 'pico_hal': choose one of pico_buttons, pico_hall, esp32, pico_cheap"),
])
def test_options_are_range_checked_before_anything_happens(capsys, args, needle):
    # old code: --max-boots 0 was accepted (a healthy version then "failed")
    assert deploy.deploy_main(["--port", "/dev/nonexistent-board"] + args) == 1
    err = capsys.readouterr().err
    assert err == "mancala deploy: error: %s\n" % needle or err.startswith("mancala deploy: error: " + needle), err


def blob(tag, blocks):
    """A module whose .mpy takes about `blocks` 4 KiB blocks (a string constant)."""
    text = hashlib.sha256(tag.encode()).hexdigest() * (blocks * 4096 // 64 - 2)
    return "BLOB = %r\n" % text


def firmware(root, version, sizes):
    src = make_app(root, version)
    for name, blocks in sizes.items():
        with open(os.path.join(src, "mancala", name + ".py"), "w") as f:
            f.write(blob(version + name, blocks))
    return src


def used_blocks(board_dir):
    n = 0
    for root, dirs, files in os.walk(board_dir):
        n += len(dirs)
        for f in files:
            n += (os.path.getsize(os.path.join(root, f)) + 4095) // 4096
    return n


def test_a_nearly_full_flash_reclaims_the_inactive_slot_first(tmp_path):
    """Slot a holds 1.0 (a big data9), slot b runs 2.0; 3.0 goes into slot a
    with a big data0 instead.  The old deploy wrote data0 while 1.0's data9
    still took its blocks, and ran out of flash in the middle."""
    d = tmp_path / "board"
    d.mkdir()
    for rel, data in PLAYER_DATA.items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    src1 = firmware(tmp_path / "1", "1.0", {"data0": 1, "data9": 8})
    src2 = firmware(tmp_path / "2", "2.0", {})
    src3 = firmware(tmp_path / "3", "3.0", {"data0": 8, "data9": 1})
    with bridge.Bridge(str(d)) as b, quiet() as out:
        deploy.deploy(b.port, src1, trial_seconds=TRIAL, out=out)
        deploy.deploy(b.port, src2, trial_seconds=TRIAL, out=out)
    flash = (used_blocks(str(d)) + 3) * 4096  # 3 blocks free: data0 (8) fits only once 1.0 has gone
    lines = []

    class Out:
        def write(self, s):
            lines.append(s)

        def flush(self):
            pass

    with bridge.Bridge(str(d), flash_size=flash) as b:
        r = deploy.deploy(b.port, src3, trial_seconds=TRIAL, out=Out())
        assert r["running"] == (built_version(src3), "a") and r["healthy"]
        text = "".join(lines)
        assert "flash: reclaiming slot a (%s, " % built_version(src1) in text
        assert "that version is no longer a fallback" in text
        assert_player_data_intact(b.port)


def test_flash_too_small_even_with_the_inactive_slot_reclaimed_says_so(tmp_path, capsys):
    d = tmp_path / "board"
    with bridge.Bridge(str(d), flash_size=96 * 1024) as b:
        assert deploy.deploy_main(["--port", b.port, "--src", make_app(tmp_path / "1", "1.0"), "--trial-seconds", "2"]) == 0
        capsys.readouterr()
        src = firmware(tmp_path / "2", "2.0", {"data0": 30})
        assert deploy.deploy_main(["--port", b.port, "--src", src, "--trial-seconds", "2"]) == 1
        err = capsys.readouterr().err
        assert err.startswith("mancala deploy: error: flash full: the update needs ") and "even with slot b reclaimed" in err
        assert "nothing was written (board still runs 1.0+" in err and err.count("\n") == 1


def test_deploy_profile_writes_board_txt_closed(tmp_path):
    """Failure 5: bring-up's open(...).write(...) left board.txt open (empty
    after a power cut on littlefs); `deploy --profile` writes, closes, renames
    and reads it back."""
    d = tmp_path / "board"
    src = make_app(tmp_path / "1", "1.0")
    os.makedirs(os.path.join(src, "mancala", "profiles"))
    with open(os.path.join(src, "mancala", "profiles", "__init__.py"), "w") as f:
        f.write('NAMES = ("pico_buttons", "pico_hall", "esp32", "pico_cheap")\n')
    with bridge.Bridge(str(d)) as b:
        assert deploy.deploy_main(["--port", b.port, "--src", src, "--trial-seconds", "2",
                                   "--profile", "pico-hall"]) == 0
        assert read_board_files(b.port, ["data/board.txt"]) == {"data/board.txt": b"pico_hall\n"}
        # again, on an up-to-date board: only the profile changes
        assert deploy.deploy_main(["--port", b.port, "--src", src, "--profile", "esp32"]) == 0
        assert read_board_files(b.port, ["data/board.txt"]) == {"data/board.txt": b"esp32\n"}
    b.kill()
    assert (d / "data" / "board.txt").read_bytes() == b"esp32\n"


# ---------------------------------------------------------------------------
# Issue 23, 1: main.py on a full flash (docs/BOARD.md: a full flash is a normal
# condition, the game goes on in memory)

def used_flash(d):
    """Bytes the emulated board counts as used (4 KiB blocks; one per folder)."""
    blocks = 0
    for dirpath, dirnames, files in os.walk(d):
        blocks += len(dirnames)
        blocks += sum((os.path.getsize(os.path.join(dirpath, f)) + 4095) // 4096 for f in files)
    return blocks * 4096


def full_flash_board(board, change):
    """Power off, change the flash, power on with not one block free."""
    board.stop()
    change(board.board_dir)
    full = bridge.Bridge(board.board_dir, flash_size=used_flash(board.board_dir))
    return full.start()


def running_app(port):
    """Interrupt the running app and ask the board what it runs: (word, slot path)."""
    from host_tools.link.board_transport import serial_transport

    t = serial_transport(port, timeout=10)
    try:
        t.enter_raw_repl(soft_reset=False)  # (Ctrl-C: the app stops where it sleeps)
        out = t.exec("import sys\nu = sys.modules.get('mancala.util')\n"
                     "print(u.word() if u else None, sys.path[0])").decode().split()
        t.exit_raw_repl()
        return out[0], out[1]
    finally:
        t.close()


def test_a_trial_start_on_a_full_flash_runs_the_previous_version(board, tmp_path):
    """The old main.py raised OSError(28) counting the start, before the app was
    imported: no app, no start counted, so no fallback, ever."""
    import json

    src1 = make_app(tmp_path / "1", "1.0", ran_file=False)
    src2 = make_app(tmp_path / "2", "2.0", util="two", ran_file=False)
    with quiet() as out:
        deploy.deploy(board.port, src1, trial_seconds=TRIAL, out=out)
        deploy.deploy(board.port, src2, trial_seconds=TRIAL, out=out)
    on_trial = {"active": "b", "previous": "a", "trial": True, "boots": 0, "max_boots": 3,
                "trial_ms": 30000, "crashes": 0}

    def trial(d):
        with open(os.path.join(d, "slots", "state.json"), "w") as f:
            json.dump(on_trial, f)

    full = full_flash_board(board, trial)
    try:
        o = slots.start_board(full.port, timeout=8)
        assert o["answered"]
        assert running_app(full.port) == ("hello", "/slots/a")  # the old code: (None, /slots/b)
        with open(os.path.join(full.board_dir, "slots", "state.json")) as f:
            assert json.load(f) == on_trial  # nothing could be written, and nothing was lost
    finally:
        full.stop()


def test_a_crash_on_a_full_flash_still_restarts_the_board(board, tmp_path):
    """The old crash handler's own _save() raised: the board sat at the REPL until
    a power cycle."""
    src = make_app(tmp_path / "1", "1.0", ran_file=False, behaviour="raises_when_told")
    with quiet() as out:
        deploy.deploy(board.port, src, trial_seconds=TRIAL, out=out)

    def crash(d):
        with open(os.path.join(d, "crash_now"), "w") as f:
            f.write("1")

    full = full_flash_board(board, crash)
    try:
        o = slots.start_board(full.port, timeout=6)
        assert o["resets"] >= 1  # it restarts itself (the old code: 0, at the REPL)
        assert b"late failure" in o["output"] and b"restarting" in o["output"]
    finally:
        full.stop()
