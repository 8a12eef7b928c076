"""`mancala pull` / `analyse` (games from the emulated board) and `mancala flash`
(installing MicroPython on a new Pico / ESP32)."""

import os
import struct

import pytest

from host_tools.command import game_analysis
from host_tools.link import board_games, bridge, flash_micropython

GAMES = {
    "g00001.txt": b"kalah 3 1 6 2\n",
    "g00002.txt": b"oware 2 4 1 6 3\n",
}


# ---------------------------------------------------------------------------
# pull and analyse

@pytest.mark.skipif(not bridge.available(), reason="MicroPython VM not installed (make setup)")
def test_pull_games_from_board(tmp_path, capsys):
    d = tmp_path / "board"
    (d / "data" / "games").mkdir(parents=True)
    for name, data in GAMES.items():
        (d / "data" / "games" / name).write_bytes(data)
    (d / "data" / "settings.json").write_bytes(b"{}")
    dest = tmp_path / "pc"
    with bridge.Bridge(str(d)) as b:
        assert board_games.pull_games_main(["--port", b.port, "--dest", str(dest)]) == 0
        assert "pulled 2 new game(s)" in capsys.readouterr().out
        assert {p.name: p.read_bytes() for p in dest.iterdir()} == GAMES
        # a new game on the board: only it comes over
        b.stop()  # power off: the board's flash is the host folder
        (d / "data" / "games" / "g00003.txt").write_bytes(b"kalah 4 1\n")
        b.start()
        new, known = board_games.pull_games(b.port, str(dest), out=open(os.devnull, "w"))
        assert new == ["g00003.txt"] and known == ["g00001.txt", "g00002.txt"]
    # the board was not changed
    assert sorted(p.name for p in (d / "data" / "games").iterdir()) == ["g00001.txt", "g00002.txt", "g00003.txt"]


@pytest.mark.skipif(not bridge.available(), reason="MicroPython VM not installed (make setup)")
def test_pull_leaves_a_damaged_game_on_the_board(tmp_path, capsys):
    """Issue 23, 4: a damaged gNNNNN.txt was pulled as a game."""
    from mancala.hw.storage import game_text

    d = tmp_path / "board"
    (d / "data" / "games").mkdir(parents=True)
    good, torn = game_text("kalah 3 1 6 2"), game_text("oware 2 4 1 6 3")
    (d / "data" / "games" / "g00001.txt").write_text(good)
    (d / "data" / "games" / "g00002.txt").write_text(torn.replace("6 3", "6"))
    dest = tmp_path / "pc"
    with bridge.Bridge(str(d)) as b:
        new, known = board_games.pull_games(b.port, str(dest), out=open(os.devnull, "w"))
        assert new == ["g00001.txt"] and known == []
        board_games.pull_games_main(["--port", b.port, "--dest", str(tmp_path / "pc2")])
    out = capsys.readouterr().out
    assert "g00002.txt on the board is damaged (its checksum does not match): not pulled" in out
    assert "1 damaged left out" in out
    assert [p.name for p in dest.iterdir()] == ["g00001.txt"]


def test_analyse_checks_an_archived_game_and_refuses_a_damaged_one(tmp_path, capsys):
    from mancala.hw.storage import game_text

    rec = tmp_path / "g00001.txt"
    rec.write_text(game_text("kalah 3 1 6 2"))
    assert game_analysis.analyse_main([str(rec), "--nodes", "500"]) == 0
    assert [ln.split()[2] for ln in capsys.readouterr().out.splitlines()[1:5]] == ["3", "1", "6", "2"]
    rec.write_text(game_text("kalah 3 1 6 2").replace("6 2", "6 3"))
    assert game_analysis.analyse_main([str(rec)]) != 0
    assert "is damaged: its checksum does not match" in capsys.readouterr().err


def test_analyse_record(tmp_path, capsys):
    rec = tmp_path / "g00001.txt"
    rec.write_bytes(GAMES["g00001.txt"])
    assert game_analysis.analyse_main([str(rec), "--nodes", "3000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    moves = [ln.split() for ln in lines[1:5]]
    assert [m[2] for m in moves] == ["3", "1", "6", "2"]  # the record's moves, in order
    assert [m[1] for m in moves] == ["S", "S", "N", "S"]  # kalah: 3 then 1 ends in the store, S again
    from mancala.engine import GRADES

    for m in moves:
        assert m[4] in GRADES
        assert (m[4] == "best") == (m[5] == "0")


def test_analyse_losses_match_the_engine_grade(tmp_path):
    from mancala.engine import Engine
    from mancala.notation import parse_record

    rows = game_analysis.analyse_record("kalah 3 1 6 2", nodes=3000)
    game = parse_record("kalah 3 1 6 2")
    e = Engine(game.rules, tt_bits=12)  # (the board's table, as the analysis grades)
    for r in rows:
        g, loss, _t = e.grade(game.position_at(r["ply"] - 1), r["move"] - 1, nodes=3000)
        assert r["loss"] == loss


def test_analyse_errors(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("kalah 3 3\n")
    assert game_analysis.analyse_main([str(bad)]) == 2  # bad input (issue 12: one prefix)
    err = capsys.readouterr().err
    assert err.startswith("mancala analyse: error: ") and "move 2" in err and err.count("\n") == 1
    assert game_analysis.analyse_main([str(tmp_path / "missing.txt")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mancala analyse: error: ") and "No such file" in err


# ---------------------------------------------------------------------------
# flash MicroPython

def uf2(family=0xE48BFF56, blocks=3):
    out = b""
    for i in range(blocks):
        head = struct.pack("<8I", 0x0A324655, 0x9E5D5157, 0x2000, 0x10000000 + 256 * i, 256, i, blocks, family)
        out += head + bytes(476) + struct.pack("<I", 0x0AB16F30)
    return out


@pytest.fixture
def pico_drive(tmp_path):
    d = tmp_path / "RPI-RP2"
    d.mkdir()
    (d / "INFO_UF2.TXT").write_text("UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n")
    return d


def test_flash_pico_copies_uf2(tmp_path, pico_drive, capsys):
    f = tmp_path / "RPI_PICO-20251209-v1.27.0.uf2"
    f.write_bytes(uf2())
    assert flash_micropython.flash_main(["pico", "--uf2", str(f), "--drive", str(pico_drive)]) == 0
    assert (pico_drive / f.name).read_bytes() == f.read_bytes()
    assert "MicroPython 1.27.0" in capsys.readouterr().out


@pytest.mark.parametrize("name,data,needle", [
    ("RPI_PICO-20220618-v1.19.1.uf2", None, "1.19.1 is not supported"),
    ("RPI_PICO-20270101-v1.29.0.uf2", None, "1.29.0 is not supported by this firmware (supported: 1.22 to 1.28"),
    ("RPI_PICO-20251209-v1.27.0.uf2", b"hello" * 200, "not a UF2 file"),
    ("RPI_PICO2-20251209-v1.27.0.uf2", "rp2350", "is for rp2350-arm-s but the board is RPI-RP2"),
    ("missing-v1.27.0.uf2", "absent", "no such file"),
])
def test_flash_pico_errors(tmp_path, pico_drive, capsys, name, data, needle):
    f = tmp_path / name
    if data != "absent":
        f.write_bytes(uf2(0xE48BFF59) if data == "rp2350" else data if data else uf2())
    assert flash_micropython.flash_main(["pico", "--uf2", str(f), "--drive", str(pico_drive)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mancala flash: error: ") and needle in err and err.count("\n") == 1
    assert [p.name for p in pico_drive.iterdir()] == ["INFO_UF2.TXT"]


def test_flash_pico_takes_what_is_tested(tmp_path, pico_drive, capsys):
    """1.28 runs the tests (the unix port): it is not refused; the help names the exact
    file the RP2040 model runs."""
    f = tmp_path / "RPI_PICO-20260601-v1.28.0.uf2"
    f.write_bytes(uf2())
    assert flash_micropython.flash_main(["pico", "--uf2", str(f), "--drive", str(pico_drive)]) == 0
    assert "MicroPython 1.28.0" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        flash_micropython.flash_main(["pico", "--help"])
    assert "RPI_PICO-20251209-v1.27.0.uf2" in capsys.readouterr().out.replace("\n", " ")


def test_flash_pico_no_drive(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(flash_micropython.glob, "glob", lambda pattern: [])
    f = tmp_path / "RPI_PICO-20251209-v1.27.0.uf2"
    f.write_bytes(uf2())
    assert flash_micropython.flash_main(["pico", "--uf2", str(f)]) == 1
    assert "no Pico USB drive found" in capsys.readouterr().err


def test_flash_esp32_commands_and_esptool(tmp_path, capsys):
    f = tmp_path / "ESP32_GENERIC-20251209-v1.27.0.bin"
    f.write_bytes(b"\xe9" + bytes(4095))
    assert flash_micropython.flash_main(["esp32", "--bin", str(f), "--port", "/dev/ttyUSB7", "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("esptool --chip esp32 --port /dev/ttyUSB7 --baud 460800 erase-flash")
    # a dry run needs no port: it only prints the commands
    assert flash_micropython.flash_main(["esp32", "--bin", str(f), "--dry-run"]) == 0
    assert "--port PORT " in capsys.readouterr().out
    assert out[1].endswith("write-flash -z 0x1000 %s" % f)
    # esptool itself runs (from PyPI) and its failure comes back as one line
    assert flash_micropython.flash_main(["esp32", "--bin", str(f), "--port", str(tmp_path / "no-port")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mancala flash: error: esptool failed: ") and "no-port" in err and err.count("\n") == 1
    # not an ESP image
    g = tmp_path / "ESP32_GENERIC-20251209-v1.27.0-x.bin"
    g.write_bytes(b"\x00" * 16)
    assert flash_micropython.flash_main(["esp32", "--bin", str(g), "--port", "/dev/ttyUSB7"]) == 1
    assert "not an ESP firmware image" in capsys.readouterr().err
