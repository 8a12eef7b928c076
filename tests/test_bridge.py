"""The emulated board: the MicroPython WebAssembly VM's REPL on a pseudo-terminal
(host_tools/link/bridge.py + bridge.mjs), spoken to as a board over a serial port."""

import os
import subprocess
import sys
import threading
import time

import pytest
import serial

from host_tools.link import bridge
from host_tools.link.board_clock import EmulatedClock

pytestmark = pytest.mark.skipif(not bridge.available(), reason="MicroPython VM not installed (make setup)")

MPREMOTE = [sys.executable, "-m", "mpremote"]


def read_until(s, ending, timeout=10):
    data = b""
    t0 = time.monotonic()
    while not data.endswith(ending):
        if time.monotonic() - t0 > timeout:
            raise AssertionError("timeout waiting for %r, got %r" % (ending, data))
        c = s.read(1)
        data += c
    return data


def raw_repl(s):
    s.write(b"\r\x03\r\x01")
    read_until(s, b"raw REPL; CTRL-B to exit\r\n>")


@pytest.fixture
def board(tmp_path):
    with bridge.Bridge(str(tmp_path / "board")) as b:
        yield b


def test_pyserial_opens_the_pty(board):
    assert os.path.realpath(board.port).startswith("/dev/pts/")  # a stable link to the pty
    with serial.Serial(board.port, 115200, timeout=5, exclusive=True) as s:
        s.write(b"\r\x03")
        s.write(b"print(6 * 7)\r")
        assert read_until(s, b"42\n>>> ").endswith(b"print(6 * 7)\r\n42\n>>> ")


def test_mpremote_command_line(board, tmp_path):
    src = tmp_path / "hello.txt"
    src.write_bytes(b"hello board\n" * 300)  # several raw-paste windows
    p = subprocess.run(MPREMOTE + ["connect", board.port, "fs", "mkdir", ":/data", "+",
                                   "fs", "cp", str(src), ":/data/hello.txt", "+",
                                   "fs", "sha256sum", ":/data/hello.txt", "+",
                                   "exec", "import sys; print(sys.implementation._mpy)"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    import hashlib

    assert hashlib.sha256(src.read_bytes()).hexdigest() in p.stdout
    assert "774" in p.stdout  # MicroPython 1.27: .mpy v6.3
    # the board's flash is the host folder
    assert (tmp_path / "board" / "data" / "hello.txt").read_bytes() == src.read_bytes()
    # errors come back as a board's errno (ENOENT = 2), so mpremote understands them
    p = subprocess.run(MPREMOTE + ["connect", board.port, "fs", "cat", ":/nope.txt"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "No such file" in p.stdout + p.stderr


@pytest.mark.parametrize("raw_paste", [True, False])
def test_raw_paste_answered_by_the_bridge(tmp_path, raw_paste):
    with bridge.Bridge(str(tmp_path / "board"), raw_paste=raw_paste) as b, \
            serial.Serial(b.port, 115200, timeout=5) as s:
        raw_repl(s)
        s.write(b"\x05A\x01")
        if raw_paste:
            assert s.read(2) == b"R\x01"
            window = int.from_bytes(s.read(2), "little")
            assert window >= 32
            code = b"x = 0\n" + b"x += 1\n" * (2 * window // 7 + 1) + b"print('x', x)\n"
            sent = 0
            credit = window
            while sent < len(code):
                if credit == 0:
                    assert s.read(1) == b"\x01"  # the board's flow control
                    credit += window
                n = min(credit, len(code) - sent)
                s.write(code[sent:sent + n])
                sent += n
                credit -= n
            s.write(b"\x04")
            out = read_until(s, b"\x04\x04>")
            out = out.replace(b"\x01", b"")  # window credits we did not wait for
            assert out.replace(b"\r", b"") == b"\x04x %d\n\x04\x04>" % (2 * window // 7 + 1)
        else:
            assert s.read(2) == b"R\x00"  # unsupported: the host falls back to the raw REPL
            s.write(b"print('fallback')\x04")
            assert read_until(s, b"\x04\x04>").replace(b"\r", b"") == b"OKfallback\n\x04\x04>"


def test_soft_reset_runs_boot_and_main_and_keeps_files(tmp_path):
    d = tmp_path / "board"
    d.mkdir()
    (d / "boot.py").write_text("print('BOOT ran')\n")
    (d / "main.py").write_text("print('MAIN ran', open('/count.txt').read())\n")
    (d / "count.txt").write_text("0")
    with bridge.Bridge(str(d)) as b, serial.Serial(b.port, 115200, timeout=5) as s:
        raw_repl(s)
        s.write(b"f = open('/count.txt', 'w'); f.write('1'); f.close()\x04")
        read_until(s, b"\x04\x04>")
        # soft reset from the raw REPL (what mpremote does): boot.py only
        s.write(b"\x04")
        out = read_until(s, b"raw REPL; CTRL-B to exit\r\n>")
        assert b"soft reboot\r\n" in out and b"BOOT ran" in out and b"MAIN ran" not in out
        # soft reset from the friendly REPL: boot.py then main.py, files kept
        s.write(b"\x02")
        read_until(s, b">>> ")
        s.write(b"\x04")
        out = read_until(s, b">>> ")
        assert b"MPY: soft reboot" in out and b"BOOT ran" in out and b"MAIN ran 1" in out


def test_sys_exit_in_main_is_a_soft_reset(tmp_path):
    d = tmp_path / "board"
    d.mkdir()
    # main.py resets the board twice, then stays
    (d / "main.py").write_text(
        "import sys\nn = int(open('/n').read()) + 1\nf = open('/n', 'w'); f.write(str(n)); f.close()\n"
        "print('start', n)\nif n < 3:\n    sys.exit()\n")
    (d / "n").write_text("0")
    with bridge.Bridge(str(d)) as b:
        pass
    assert (d / "n").read_text() == "3"
    assert b.bytes_out > 0


def test_power_cycle_keeps_what_was_written(tmp_path):
    d = tmp_path / "board"
    b = bridge.Bridge(str(d)).start()
    try:
        with serial.Serial(b.port, 115200, timeout=5) as s:
            raw_repl(s)
            s.write(b"import os\nos.mkdir('/data')\nf = open('/data/x', 'wb'); f.write(b'saved'); f.close()\x04")
            read_until(s, b"\x04\x04>")
    finally:
        b.kill()  # no orderly shutdown: a cable pulled out
    assert (d / "data" / "x").read_bytes() == b"saved"
    with bridge.Bridge(str(d)) as b2, serial.Serial(b2.port, 115200, timeout=5) as s:
        raw_repl(s)
        s.write(b"print(open('/data/x').read())\x04")
        assert b"saved" in read_until(s, b"\x04\x04>")


def test_flash_size_and_other_micropython(tmp_path):
    with bridge.Bridge(str(tmp_path / "b"), flash_size=256 * 1024, impl_version="1.22.2", impl_mpy=518) as b, \
            serial.Serial(b.port, 115200, timeout=5) as s:
        raw_repl(s)
        s.write(b"import os, sys\nv = os.statvfs('/')\nprint(v[0] * v[2], sys.implementation.version, sys.implementation._mpy, sorted(os.listdir('/')))\x04")
        out = read_until(s, b"\x04\x04>")
        assert b"262144 (1, 22, 2, '') 518 []" in out


def test_port_is_exclusive(board):
    with serial.Serial(board.port, 115200, timeout=1, exclusive=True):
        with pytest.raises(serial.SerialException):
            serial.Serial(board.port, 115200, timeout=1, exclusive=True)


def test_bridge_command_line(tmp_path):
    p = subprocess.Popen([sys.executable, "-m", "host_tools.link.bridge", "--board", str(tmp_path / "b")],
                         stdout=subprocess.PIPE, text=True, cwd=os.path.dirname(os.path.dirname(__file__)))
    try:
        port = p.stdout.readline().strip()
        with serial.Serial(port, 115200, timeout=5) as s:
            raw_repl(s)
            s.write(b"print('cli')\x04")
            assert b"cli" in read_until(s, b"\x04\x04>")
    finally:
        p.terminate()
        p.wait(10)


# -- issue 10: resets, hangs and flash as on the rp2 port (ports/rp2/main.c) ----------

def _port_gone_then_back(b, timeout=10):
    t0 = time.monotonic()
    while os.path.exists(b.port):
        assert time.monotonic() - t0 < timeout, "the port never went away"
        time.sleep(0.01)
    gone = b.now()  # the board's clock: the off time is board time (bridge.py)
    while not os.path.exists(b.port):
        assert time.monotonic() - t0 < timeout, "the port never came back"
        time.sleep(0.01)
    return b.now() - gone


def test_machine_reset_drops_the_port_and_loses_boot_output(tmp_path):
    d = tmp_path / "board"
    d.mkdir()
    (d / "boot.py").write_text("import machine\nprint('BOOT cause', machine.reset_cause())\n")
    (d / "main.py").write_text("import machine, time\nprint('MAIN cause', machine.reset_cause())\n"
                               "while True:\n    time.sleep_ms(20)\n")
    with bridge.Bridge(str(d)) as b:
        s = serial.Serial(b.port, 115200, timeout=5)
        s.write(b"\r\x03")  # main.py sleeps: a Ctrl-C reaches it there
        assert b"KeyboardInterrupt" in read_until(s, b">>> ")
        s.write(b"import machine; machine.reset()\r")
        with pytest.raises(serial.SerialException):  # the USB port is gone
            for _ in range(200):
                s.read(100)
        s.close()
        off = _port_gone_then_back(b)
        assert off >= b.reset_off_s * 0.9
        with serial.Serial(b.port, 115200, timeout=5) as s2:
            s2.write(b"\r\x03")
            out = read_until(s2, b">>> ")
        assert b"BOOT cause" not in out  # printed before the port was back: lost
        assert [e for _t, e in b.events].count("reset") == 1


def test_a_hung_board_answers_nothing_until_its_deadman_resets_it(tmp_path):
    d = tmp_path / "board"
    d.mkdir()
    (d / "n").write_text("0")
    (d / "main.py").write_text(
        "import machine, os\nn = int(open('/n').read()) + 1\nf = open('/n.tmp', 'w'); f.write(str(n)); f.close()\n"
        "os.rename('/n.tmp', '/n')\n"  # written through to the flash at the rename
        "if n < 3:\n"
        "    t = machine.Timer(-1, mode=machine.Timer.ONE_SHOT, period=500, callback=lambda t: machine.reset(), hard=True)\n"
        "    while True:\n        pass\n")
    with bridge.Bridge(str(d)) as b:
        b.hung_after = 0.1  # a hang: the board's clock runs on to the deadman (not 500 ms of wall clock)
        t0 = time.monotonic()
        while [e for _t, e in b.events].count("deadman") < 2:
            assert time.monotonic() - t0 < 20
            time.sleep(0.05)
        while [e for _t, e in b.events].count("booted") < 3 or not os.path.exists(b.port):
            assert time.monotonic() - t0 < 20
            time.sleep(0.05)
        with serial.Serial(b.port, 115200, timeout=5) as s:
            raw_repl(s)  # the third start did not hang: the REPL answers
    assert (d / "n").read_text() == "3"


def test_writes_past_the_flash_size_raise_enospc(tmp_path):
    with bridge.Bridge(str(tmp_path / "b"), flash_size=64 * 1024) as b, \
            serial.Serial(b.port, 115200, timeout=5) as s:
        raw_repl(s)
        s.write(b"f = open('/big', 'wb')\ntry:\n for i in range(40):\n  f.write(bytes(4096))\nexcept OSError as e:\n"
                b" print('errno', e.errno, i)\nf.close()\x04")
        out = read_until(s, b"\x04\x04>")
        assert b"errno 28 16" in out or b"errno 28 15" in out, out


def test_an_idle_watcher_is_woken_by_output_it_has_not_read(board):
    """A watcher idles on the board's clock until a window's end; output that reaches
    the port while it idles wakes it, however it got there (after a reset the port is
    a new one, and the bytes wait unread there). Left asleep, it would wait out its
    window on the wall clock: unread bytes stop the bridge's clock jumps."""
    idler, other = EmulatedClock(board.clock_path), EmulatedClock(board.clock_path)
    try:
        with serial.Serial(board.port, 115200, timeout=0.2) as s:
            while s.read(4096):  # what the board said at its start: read, as a watcher would
                pass
        assert not board._in_flight()
        other.now()  # a second watcher, busy: no clock jump can end the idle
        t0 = board.now()
        woke = []

        def idle():
            idler.idle_until(t0 + 30)
            woke.append(time.monotonic())

        th = threading.Thread(target=idle, daemon=True)
        th.start()
        deadline = time.monotonic() + 5
        while not any(st[1] is not None for st in board._watchers.values()):
            assert time.monotonic() < deadline, "the watcher's IDLE never arrived"
            time.sleep(0.01)
        sent = time.monotonic()
        os.write(board._master, b"late output\r\n")  # on the port, and no one told
        th.join(10)
        assert woke and woke[0] - sent < 2, "the idle watcher slept on with output waiting"
        assert idler.last_now < t0 + 30  # woken by the output, not by its window's end
    finally:
        idler.close()
        other.close()
