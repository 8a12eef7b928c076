"""`mancala wifi` (issue 44, item 4): the board's Wi-Fi and broker settings written to
/data/online.json on an emulated board (the MicroPython VM's raw REPL on a
pseudo-terminal, host_tools/link/bridge.py, as `mancala pull`'s tests), shown with the
passwords as set / not set, cleared; the passwords never in any output; bad input
refused with one line before the board is opened."""

import io
import os
import sys

import pytest

from host_tools.command import cli, wifi
from host_tools.link import bridge

WIFI_PW = "correct-horse-battery"
BROKER_PW = "s3cret-broker-pw"

needs_vm = pytest.mark.skipif(not bridge.available(), reason="MicroPython VM not installed (make setup)")


class Stdin(io.StringIO):
    def isatty(self):
        return False


def run(argv, stdin="", monkeypatch=None, capsys=None):
    """`mancala wifi ...` through the command's entry point: (status, out, err)."""
    monkeypatch.setattr(sys, "stdin", Stdin(stdin))
    status = cli.main(["wifi", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture()
def board(tmp_path):
    d = tmp_path / "board"
    (d / "data").mkdir(parents=True)
    (d / "data" / "settings.json").write_bytes(b"{}")
    with bridge.Bridge(str(d)) as b:
        yield b


def online(board):
    """The board's /data/online.json as the firmware reads it (its Storage's checksum
    checked, mancala/online/link.py's keys), or None."""
    from mancala.hw.storage import decode
    from mancala.online import link

    with open(os.path.join(board.board_dir, "data", "online.json"), "rb") as f:
        obj = decode(f.read())
    return link.check_settings(obj)


@needs_vm
def test_written_shown_as_set_cleared_and_never_printed(board, monkeypatch, capsys):
    status, out, err = run(["--port", board.port, "--ssid", "Home Net", "--broker",
                            "mqtt.example.org:8883", "--user", "alice", "--tls",
                            "--password-stdin"], WIFI_PW + "\n" + BROKER_PW + "\n",
                           monkeypatch, capsys)
    assert status == 0 and err == "", err
    assert online(board) == {"ssid": "Home Net", "wifi_password": WIFI_PW,
                             "broker": "mqtt.example.org", "port": 8883, "user": "alice",
                             "password": BROKER_PW, "tls": True}
    assert sorted(os.listdir(os.path.join(board.board_dir, "data"))) == [
        "online.json", "settings.json"]  # no temporary file left beside it
    seen = out
    status, out, err = run(["--port", board.port, "--show"], "", monkeypatch, capsys)
    assert status == 0 and err == ""
    assert out.splitlines() == ["Wi-Fi network: Home Net", "Wi-Fi password: set",
                                "broker: mqtt.example.org:8883 (TLS)", "broker user: alice",
                                "broker password: set"]
    seen += out
    # a second write replaces the first (an open network, no broker user)
    status, out, err = run(["--port", board.port, "--ssid", "Cafe", "--broker", "10.0.0.7",
                            "--password-stdin"], "\n", monkeypatch, capsys)
    assert status == 0, err
    assert online(board) == {"ssid": "Cafe", "wifi_password": "", "broker": "10.0.0.7",
                             "port": 1883, "user": "", "password": "", "tls": False}
    seen += out
    status, out, err = run(["--port", board.port, "--show"], "", monkeypatch, capsys)
    assert "Wi-Fi password: not set" in out and "broker password: not set" in out
    seen += out
    status, out, err = run(["--port", board.port, "--clear"], "", monkeypatch, capsys)
    assert status == 0 and out == "removed the Wi-Fi settings from the board\n"
    assert not os.path.exists(os.path.join(board.board_dir, "data", "online.json"))
    assert os.path.exists(os.path.join(board.board_dir, "data", "settings.json"))  # the rest kept
    status, out, err = run(["--port", board.port, "--show"], "", monkeypatch, capsys)
    assert status == 0 and out.startswith("the board has no Wi-Fi settings")
    seen += out + err
    assert WIFI_PW not in seen and BROKER_PW not in seen


@needs_vm
def test_passwords_are_asked_unechoed_and_not_taken_from_the_command_line(board, monkeypatch, capsys):
    asked = []

    def fake_getpass(prompt):
        asked.append(prompt)
        return WIFI_PW if len(asked) == 1 else BROKER_PW

    monkeypatch.setattr(wifi.getpass, "getpass", fake_getpass)
    status, out, err = run(["--port", board.port, "--ssid", "Home", "--broker",
                            "broker.local:1883", "--user", "bob"], "", monkeypatch, capsys)
    assert status == 0, err
    assert len(asked) == 2 and "Wi-Fi password of Home" in asked[0] and "bob" in asked[1]
    assert online(board)["wifi_password"] == WIFI_PW and online(board)["password"] == BROKER_PW
    assert WIFI_PW not in out + err and BROKER_PW not in out + err
    assert "Wi-Fi password set, broker password set" in out
    # there is no option that takes a password
    status, out, err = run(["--port", board.port, "--ssid", "Home", "--broker", "b:1",
                            "--password", WIFI_PW], "", monkeypatch, capsys)
    assert status == 2 and "unrecognized arguments" in err


@needs_vm
def test_a_damaged_file_is_said_without_its_content(board, monkeypatch, capsys):
    board.stop()  # power off: the board's flash is the host folder
    with open(os.path.join(board.board_dir, "data", "online.json"), "w") as f:
        f.write('{"ssid": "x", "password": "%s"' % WIFI_PW)  # cut short
    board.start()
    status, out, err = run(["--port", board.port, "--show"], "", monkeypatch, capsys)
    assert status == 1 and "damaged" in out and WIFI_PW not in out + err, (out, err)


BAD = [
    # (arguments, stdin, words in the one error line)
    (["--ssid", "", "--broker", "h:1883"], "pw-long-enough\n", "is empty"),
    (["--ssid", "x" * 33, "--broker", "h:1883"], "pw-long-enough\n", "at most 32"),
    (["--ssid", "a\x1bb", "--broker", "h:1883"], "pw-long-enough\n", "control character"),
    (["--ssid", "net", "--broker", ""], "pw-long-enough\n", "broker's address"),
    (["--ssid", "net", "--broker", "host:"], "pw-long-enough\n", "is not a number"),
    (["--ssid", "net", "--broker", ":1883"], "pw-long-enough\n", "not HOST:PORT"),
    (["--ssid", "net", "--broker", "ho st:1883"], "pw-long-enough\n", "not HOST:PORT"),
    (["--ssid", "net", "--broker", "host:abc"], "pw-long-enough\n", "is not a number"),
    (["--ssid", "net", "--broker", "host:0"], "pw-long-enough\n", "out of range: 1..65535"),
    (["--ssid", "net", "--broker", "host:65536"], "pw-long-enough\n", "out of range: 1..65535"),
    (["--ssid", "net", "--broker", "host:1883:1"], "pw-long-enough\n", "not HOST:PORT"),
    (["--ssid", "net", "--broker", "h:1883"], "short\n", "a WPA2 password is 8 to 63"),
    (["--ssid", "net", "--broker", "h:1883"], "p" * 64 + "\n", "a WPA2 password is 8 to 63"),
    (["--ssid", "net", "--broker", "h:1883", "--user", ""], "pw-long-enough\n", "user name"),
    (["--show", "--ssid", "net"], "", "--show takes only --port"),
    (["--show", "--clear"], "", "not allowed with"),
    (["--broker", "h:1883"], "pw-long-enough\n", "Wi-Fi network is missing"),
]


@pytest.mark.parametrize("argv,stdin,words", BAD, ids=[
    "%d-%s" % (i, w.replace(" ", "_")) for i, (_a, _s, w) in enumerate(BAD)])
def test_bad_input_is_refused_by_one_line_before_the_board_is_opened(argv, stdin, words, monkeypatch, capsys):
    opened = []
    monkeypatch.setattr(wifi, "find_port", lambda port: opened.append(port) or port)
    status, out, err = run(["--port", "/dev/no-board-here", "--password-stdin", *argv]
                           if "--show" not in argv else ["--port", "/dev/no-board-here", *argv],
                           stdin, monkeypatch, capsys)
    assert status == 2, (out, err)
    assert out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("mancala wifi: error: ") and words in err, err
    assert opened == []  # refused before the board is looked for
    assert "pw-long-enough" not in err and "short" not in err.split("error: ", 1)[1]


def test_no_board_is_one_line_and_status_1(monkeypatch, capsys):
    status, out, err = run(["--port", "/dev/no-board-here", "--ssid", "net", "--broker",
                            "h:1883", "--password-stdin"], WIFI_PW + "\n", monkeypatch, capsys)
    assert status == 1 and out == ""
    assert err == "mancala wifi: error: no board found at /dev/no-board-here: is it plugged in?\n"
    status, out, err = run(["--port", "/dev/no-board-here", "--show"], "", monkeypatch, capsys)
    assert status == 1 and len(err.splitlines()) == 1


def test_the_file_format_and_broker_forms():
    from mancala.hw.storage import decode

    assert decode(wifi.settings_json("n", "pw", "h:1", "", "bpw", False)) == {
        "ssid": "n", "wifi_password": "pw", "broker": "h", "port": 1, "user": "",
        "password": "bpw", "tls": False}
    assert wifi.parse_broker("Broker.Example.org") == "broker.example.org:1883"
    assert wifi.parse_broker("broker.example.org", tls=True) == "broker.example.org:8883"
    assert wifi.parse_broker(" 192.168.1.20:1884 ") == "192.168.1.20:1884"
    assert wifi.check_wifi_password("a" * 64) == "a" * 64  # a WPA2 key as 64 hex digits


def test_credentials_files_are_ignored_by_git():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, ".gitignore")) as f:
        ignored = f.read().split()
    assert "online.json" in ignored and "online.json.tmp" in ignored
