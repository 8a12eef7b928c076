"""`mancala deploy` against an emulated board (the MicroPython VM's REPL on a
pseudo-terminal, host_tools/link/bridge.py): mpremote talks to it as to a board.

Every test builds small fake firmware folders (the real boot.py and main.py,
a fake `mancala` package) in a tmp dir and uses a board of its own.
"""

import hashlib
import os
import signal
import subprocess
import sys
import time

import pytest
from update_helpers import (  # noqa: F401
    PLAYER_DATA,
    assert_player_data_intact,
    board_fixture,
    built_version,
    make_app,
    new_board,
    quiet,
    read_board_files,
    start_board,
)

from host_tools.link import board_transport, bridge, deploy, deploy_plan

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.skipif(not bridge.available(), reason="MicroPython VM not installed (make setup)")

TRIAL = 3  # seconds: a short deadman window keeps these tests quick


board = pytest.fixture(board_fixture, name="board")


def tree(d):
    out = {}
    for root, _dirs, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def test_first_deploy(board, tmp_path):
    src = make_app(tmp_path, "1.0")
    with quiet() as out:
        r = deploy.deploy(board.port, trial_seconds=TRIAL, src=src, out=out)
    v1 = built_version(src)
    assert r["running"] == (v1, "a") and r["confirmed"]
    assert sorted(r["sent"]) == ["boot.py", "main.py", "mancala/__init__.mpy", "mancala/app.mpy", "mancala/util.mpy",
                                 "stage.py"]
    # compiled for the board's .mpy format, and the app really ran from slot a
    with open(os.path.join(board.board_dir, "slots", "a", "mancala", "app.mpy"), "rb") as f:
        assert f.read(2) == b"M\x06"
    running, out = start_board(board)
    assert running == (v1, "a")
    assert "app 1.0 hello" in out
    assert_player_data_intact(board.port)


def test_update_sends_only_what_changed(board, tmp_path):
    with quiet() as out:
        deploy.deploy(board.port, trial_seconds=TRIAL, src=make_app(tmp_path / "1", "1.0"), out=out)
        src2 = make_app(tmp_path / "2", "1.0", util="changed")
        r = deploy.deploy(board.port, trial_seconds=TRIAL, src=src2, out=out)
        assert r["sent"] == ["mancala/util.mpy"]
        assert sorted(r["copied"]) == ["mancala/__init__.mpy", "mancala/app.mpy"]
        assert r["running"] == (built_version(src2), "b")
        # the same firmware again: nothing to send
        r = deploy.deploy(board.port, trial_seconds=TRIAL, src=src2, out=out)
        assert r["up_to_date"] and r["sent"] == []
        # back to a version that is still in the other slot: only its changed file
        src3 = make_app(tmp_path / "3", "1.0", util="third")
        r = deploy.deploy(board.port, trial_seconds=TRIAL, src=src3, out=out)
        assert r["sent"] == ["mancala/util.mpy"] and r["kept"] == ["mancala/__init__.mpy", "mancala/app.mpy"]
    running, text = start_board(board)
    assert running == (built_version(src3), "a") and "app 1.0 third" in text
    assert_player_data_intact(board.port)


def _deploy_subprocess(port, src):
    return subprocess.Popen(
        [sys.executable, "-m", "host_tools.link.deploy", "--port", port, "--src", src],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_line(proc, needle, timeout=30):
    t0 = time.monotonic()
    seen = []
    while time.monotonic() - t0 < timeout:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if needle in line:
            return seen
    raise AssertionError("never saw %r in %r" % (needle, seen))


@pytest.mark.parametrize("cut", ["power", "host"])
def test_update_cut_off_midway_keeps_old_version(board, tmp_path, cut):
    src1 = make_app(tmp_path / "1", "1.0")
    with quiet() as out:
        deploy.deploy(board.port, trial_seconds=TRIAL, src=src1, out=out)
    v1 = built_version(src1)
    src2 = make_app(tmp_path / "2", "2.0", util="two", big=8)
    proc = _deploy_subprocess(board.port, src2)
    _wait_for_line(proc, "mancala/data0.mpy")  # three files of the new version are on the board
    if cut == "power":
        board.kill()  # the cable is pulled: the board loses power
    else:
        proc.send_signal(signal.SIGKILL)  # the PC side dies
    proc.wait(30)
    assert proc.returncode != 0
    if cut == "power":
        _, err = proc.communicate()
        assert err.startswith("mancala deploy: error: lost the board") and len(err.strip().splitlines()) == 1, err
        assert "nothing switched: the board will start 1.0+" in err
        board.start()  # power comes back, same flash
    # the half-written slot is on the board, but it starts the old version
    slot_b = os.path.join(board.board_dir, "slots", "b")
    assert os.path.exists(os.path.join(slot_b, "mancala", "data0.mpy"))
    assert not os.path.exists(os.path.join(slot_b, "manifest.json"))
    running, text = start_board(board)
    assert running == (v1, "a") and "app 1.0 hello" in text
    assert_player_data_intact(board.port)
    # and the next update finishes the job
    with quiet() as out:
        r = deploy.deploy(board.port, trial_seconds=TRIAL, src=src2, out=out)
    assert r["running"] == (built_version(src2), "b")
    assert_player_data_intact(board.port)


@pytest.mark.parametrize("failure", ["raises", "import"])
def test_new_version_failing_at_start_falls_back(board, tmp_path, failure):
    src1 = make_app(tmp_path / "1", "1.0")
    with quiet() as out:
        deploy.deploy(board.port, trial_seconds=TRIAL, src=src1, out=out)
    v1 = built_version(src1)
    if failure == "raises":
        src2 = make_app(tmp_path / "2", "2.0", app_extra="def _x():\n    raise RuntimeError('no pixels')\nutil.word = _x")
    else:
        src2 = make_app(tmp_path / "2", "2.0", app_extra="import mancala_missing_module")
    with quiet() as out, pytest.raises(board_transport.DeployError) as e:
        deploy.deploy(board.port, trial_seconds=TRIAL, src=src2, out=out, max_boots=2)
    assert "the new version 2.0+" in str(e.value) and "failed (failed its trial 2 times" in str(e.value)
    assert "the board is back on %s (slot a)" % v1 in str(e.value)
    out = board.board_dir
    with open(os.path.join(out, "slots", "state.json")) as f:
        state = f.read()
    assert '"active": "a"' in state and '"fell_back_from": "b"' in state
    running, text = start_board(board)
    assert running == (v1, "a") and "app 1.0 hello" in text
    assert_player_data_intact(board.port)


def test_errors_no_board(monkeypatch, capsys):
    import serial.tools.list_ports

    monkeypatch.delenv("PORT", raising=False)
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [])
    assert deploy.deploy_main([]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mancala deploy: error: no board found") and err.count("\n") == 1
    # a CLI user is told the CLI's option, a make user make's (issue 26: "give PORT=")
    assert err.rstrip().endswith("name its port: --port /dev/ttyACM0") and "PORT=" not in err
    monkeypatch.setenv("MANCALA_PORT_SPELLING", "make")  # as mk/deploy.mk runs it
    assert deploy.deploy_main([]) == 1
    err = capsys.readouterr().err
    assert err.rstrip().endswith("name its port: PORT=/dev/ttyACM0") and "--port" not in err
    monkeypatch.delenv("MANCALA_PORT_SPELLING")
    assert deploy.deploy_main(["--port", "/dev/nonexistent-board"]) == 1
    assert "no board found at /dev/nonexistent-board" in capsys.readouterr().err


def test_error_port_busy(board, capsys):
    import serial

    other = serial.Serial(board.port, exclusive=True)  # say, a serial monitor
    try:
        assert deploy.deploy_main(["--port", board.port]) == 1
    finally:
        other.close()
    err = capsys.readouterr().err
    assert err.startswith("mancala deploy: error: port %s is busy" % board.port) and err.count("\n") == 1


@pytest.mark.parametrize("version,mpy,needle", [
    ("1.19.1", 6, "too old"),
    ("1.30.0", 7, "uses .mpy format v7"),
])
def test_error_unsupported_micropython(tmp_path, capsys, version, mpy, needle):
    with bridge.Bridge(str(tmp_path / "board"), impl_version=version, impl_mpy=mpy) as b:
        assert deploy.deploy_main(["--port", b.port, "--src", make_app(tmp_path, "1.0")]) == 1
        err = capsys.readouterr().err
        assert err.startswith("mancala deploy: error: ") and needle in err and err.count("\n") == 1
        assert version in err
    assert not os.path.exists(tmp_path / "board" / "slots")


def test_error_flash_full_writes_nothing(tmp_path, capsys):
    d = tmp_path / "board"
    with bridge.Bridge(str(d), flash_size=72 * 1024) as b:  # (room for the loaders and the stage)
        assert deploy.deploy_main(["--port", b.port, "--src", make_app(tmp_path / "1", "1.0")]) == 0
        capsys.readouterr()
        before = tree(str(d))
        assert deploy.deploy_main(["--port", b.port, "--src", make_app(tmp_path / "2", "2.0", big=12)]) == 1
        err = capsys.readouterr().err
        assert err.startswith("mancala deploy: error: flash full") and err.count("\n") == 1
        assert "nothing was written" in err and "still runs 1.0+" in err  # and what it runs
        assert tree(str(d)) == before


def test_plain_py_fallback_and_older_mpy_format(board, tmp_path):
    src = make_app(tmp_path, "1.0")
    with quiet() as out:
        r = deploy.deploy(board.port, trial_seconds=TRIAL, src=src, use_mpy=False, out=out)
    assert "mancala/app.py" in r["sent"] and r["running"][1] == "a"
    # a MicroPython 1.22 board (.mpy v6.2) gets files from the 1.22 compiler
    _v, _root, slot, fmt = deploy_plan.build(src, mpy=0x206)
    assert fmt == ".mpy v6.2" and slot["mancala/app.mpy"][:2] == b"M\x06"
    # a board without .mpy support gets .py
    assert deploy_plan.build(src, mpy=None)[3] == ".py"


def test_app_confirmed_then_crashing_resets_then_falls_back(board, tmp_path):
    """A version that passed its trial but keeps failing right after: the board
    resets (bounded), then goes back to the previous version; deploy says so."""
    src1 = make_app(tmp_path / "1", "1.0")
    with quiet() as out:
        deploy.deploy(board.port, trial_seconds=TRIAL, src=src1, out=out)
        # the app confirms its start (app.confirm_boot, set by main.py), then fails
        src2 = make_app(tmp_path / "2", "2.0", app_extra=(
            "def _w():\n    confirm_boot()\n    raise RuntimeError('late failure')\nutil.word = _w"))
        with pytest.raises(board_transport.DeployError) as e:
            deploy.deploy(board.port, trial_seconds=TRIAL, src=src2, out=out)
    assert "kept failing after it was confirmed: RuntimeError: late failure" in str(e.value)
    assert "back on %s (slot a)" % built_version(src1) in str(e.value)
    running, text = start_board(board)
    assert running == (built_version(src1), "a") and "app 1.0 hello" in text
    assert_player_data_intact(board.port)


def test_update_over_an_unconfirmed_version_keeps_the_last_good_one(board, tmp_path):
    from host_tools.link.board_transport import serial_transport

    with quiet() as out:
        deploy.deploy(board.port, trial_seconds=TRIAL, src=make_app(tmp_path / "1", "1.0"), out=out)
        deploy.deploy(board.port, trial_seconds=TRIAL, src=make_app(tmp_path / "2", "2.0"), out=out)
        # the board was unplugged before 2.0 confirmed its start
        t = serial_transport(board.port, timeout=10)
        t.enter_raw_repl(soft_reset=False)
        t.exec("f=open('/slots/state.json','w')\nf.write('{\"active\": \"b\", \"previous\": \"a\", \"trial\": true, \"boots\": 1}')\nf.close()")
        t.exit_raw_repl()
        t.close()
        src3 = make_app(tmp_path / "3", "3.0")
        r = deploy.deploy(board.port, trial_seconds=TRIAL, src=src3, out=out)
    # 3.0 replaced the unconfirmed 2.0 (slot b); 1.0 in slot a stays the fallback
    assert r["target"] == "b" and r["running"] == (built_version(src3), "b")
    with open(os.path.join(board.board_dir, "slots", "state.json")) as f:
        assert '"previous": "a"' in f.read()
    with open(os.path.join(board.board_dir, "slots", "a", "manifest.json")) as f:
        assert '"1.0+' in f.read()


def test_verification_failure_switches_nothing(board, tmp_path, monkeypatch):
    src1 = make_app(tmp_path / "1", "1.0")
    with quiet() as out:
        deploy.deploy(board.port, trial_seconds=TRIAL, src=src1, out=out)
    real_write = board_transport.Board.write_file

    def corrupting_write(self, dest, data, progress=None):
        if dest.endswith("util.mpy"):
            data = data[:-1] + bytes([data[-1] ^ 0xFF])  # a bit flipped on the way
        return real_write(self, dest, data, progress)

    monkeypatch.setattr(board_transport.Board, "write_file", corrupting_write)
    with quiet() as out, pytest.raises(board_transport.DeployError) as e:
        deploy.deploy(board.port, trial_seconds=TRIAL, src=make_app(tmp_path / "2", "2.0", util="two"), out=out)
    assert "verification failed for 1 file(s) (/slots/b/mancala/util.mpy)" in str(e.value)
    assert "still runs 1.0+" in str(e.value)
    assert not os.path.exists(os.path.join(board.board_dir, "slots", "b", "manifest.json"))
    running, text = start_board(board)
    assert running == (built_version(src1), "a") and "app 1.0 hello" in text
    assert_player_data_intact(board.port)


def test_error_several_boards(monkeypatch, capsys):
    import serial.tools.list_ports

    class Port:
        def __init__(self, device, vid):
            self.device, self.vid = device, vid

        def __lt__(self, other):
            return self.device < other.device

    monkeypatch.delenv("PORT", raising=False)
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [
        Port("/dev/ttyACM0", 0x2E8A), Port("/dev/ttyUSB0", 0x303A), Port("/dev/ttyS0", None)])
    assert deploy.deploy_main([]) == 1
    err = capsys.readouterr().err
    assert err == ("mancala deploy: error: several boards found (/dev/ttyACM0, /dev/ttyUSB0): choose one with "
                   "--port /dev/ttyACM0\n")
