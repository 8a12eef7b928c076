"""Nothing lost: resume exactly, power cuts at each kind of write, corrupt/missing files."""

import random

import pytest
from board_helpers import board, play_game, sampled_cuts, settled, shown_counts, start, to_select

from host_tools.fakes.memfs import MemFs, PowerCut
from mancala.hw import storage as S
from mancala.notation import format_record, parse_record


def test_resume_exactly_after_a_reboot():
    fs = MemFs()
    b = board(fs=fs, variant="oware", opponent=3, starter=0, coaching=1, hints=5)
    start(b)
    rng = random.Random(3)
    for _ in range(3):
        settled(b)
        if b.mode() == "select":
            g = b.app.game
            b.play_move(rng.choice([k for k in range(6) if g.pos[15] >> k & 1]))
        else:
            b.sow()
    to_select(b)
    b.chord(("S3", "S4"))  # a hint: one fewer left
    assert b.app.meta["hints"] == 4
    rec = format_record(b.app.game)
    pos = list(b.app.game.pos)
    b2 = board(fs=fs)  # power off, power on
    b2.run(200)
    assert format_record(b2.app.game) == rec and list(b2.app.game.pos) == pos
    assert b2.app.meta == b.app.meta and b2.app.settings == b.app.settings
    assert b2.mode() == "select"
    assert b2.counts() == shown_counts(b2, pos)
    play_game(b2, rng)


def test_resume_on_the_computers_turn_thinks_again():
    fs = MemFs()
    b = board(fs=fs, variant="kalah", opponent=4, starter=1)
    start(b)
    b2 = board(fs=fs)
    assert b2.until(("show",), 20000)
    assert b2.app.game.ply == 0 and b2.app.game.side == 1


def reference_game(fs, seed):
    """Play a short game (kalah3, two people) logging every finished write."""
    saves = []
    real = S.Storage.save

    def save(self, name, obj):
        real(self, name, obj)
        saves.append((fs.ops, name, dict(obj)))

    S.Storage.save = save
    try:
        b = board(PROFILE, fs=fs, variant="kalah3", opponent=0, starter=0)
        fs.arm(-1)
        start(b)
        play_game(b, random.Random(seed), check=False)
    finally:
        S.Storage.save = real
    return saves, fs.ops, b


# The one-LED build draws fastest; storage does not depend on the LED layout.
PROFILE = "pico_cheap"


# make test: every 21st operation and each step of each kind of save; make
# test-long: every operation (the storage-level cuts are tests/test_storage_cuts.py)
@pytest.mark.parametrize("stride, half", [(21, 0), (21, 1),
                                          pytest.param(1, 0, marks=pytest.mark.long),
                                          pytest.param(1, 1, marks=pytest.mark.long)],
                         ids=["sample-0", "sample-1", "every-0", "every-1"])
def test_power_cut_at_each_kind_of_write_of_a_game(stride, half):
    """A cut at every `stride`-th operation of a whole game, and at least once at
    each step of each kind of save (sampled_cuts); the two halves run in parallel."""
    setup = MemFs()
    S.Storage(setup).save("settings.json", {"variant": "kalah3", "opponent": 0, "starter": 0,
                                            "coaching": 0, "hints": 3, "brightness": 1,
                                            "quick": 0})
    base = setup.snapshot()
    fs = MemFs()
    fs.files.update(base)
    saves, total, ref = reference_game(fs, 11)
    saves = saves[1:]  # the first is the helper's settings, before the count starts
    final = format_record(ref.app.game)
    assert total > 50
    # where each operation falls: (the file saved, the step within that save)
    contexts, first = [], 0
    for ops, name, _ in saves:
        contexts += [(name, k - first) for k in range(first, ops)]
        first = ops
    contexts += [("after", 0)] * (total - len(contexts))
    cuts = sampled_cuts(contexts, stride)
    assert len({contexts[k] for k in cuts}) == len(set(contexts)) > 8
    for k in cuts[half::2]:
        fs = MemFs()
        fs.files.update(base)
        b = board(PROFILE, fs=fs, variant="kalah3", opponent=0, starter=0)
        fs.arm(k)
        try:
            start(b)
            play_game(b, random.Random(11), check=False)
            raise AssertionError("no power cut at write %d of %d" % (k, total))
        except PowerCut:
            pass
        # power back: the board boots into the last complete state
        b = board(PROFILE, fs=fs)
        b.run(300)
        games = [o for (ops, name, o) in saves if name == "game.json" and ops <= k]
        if not games:  # cut at the rename of the very first save: its .tmp is complete
            games = [o for (ops, name, o) in saves if name == "game.json" and ops - 1 == k]
        if not games:
            assert b.app.game is None, k
            assert b.mode() == "menu"
            continue
        assert b.app.game is not None, k
        assert format_record(b.app.game) == games[-1]["record"], k
        assert b.app.meta["number"] == games[-1]["number"]
        g = parse_record(games[-1]["record"])
        assert list(b.app.game.pos) == list(g.pos)
        if g.over:
            assert b.mode() == "over"
            assert b.app.store.history() == [games[-1]["number"]]  # archived at boot
        else:
            assert b.mode() == "select"
            assert b.counts() == shown_counts(b, g.pos)
    assert saves[-1][2]["record"] == final if saves[-1][1] == "game.json" else True


def corrupt_variants(data):
    return {
        "truncated": data[: len(data) // 2],
        "flipped": data.replace(b"3", b"5", 1),
        "empty": b"",
        "garbage": bytes(range(256)),
    }


@pytest.mark.parametrize("kind", ["truncated", "flipped", "empty", "garbage", "missing"])
def test_corrupt_game_file_blinks_keeps_settings(kind):
    fs = MemFs()
    b = board(fs=fs, variant="ranok", opponent=0, brightness=2)
    start(b)
    b.play_move(2)
    data = fs.files["/data/game.json"]
    if kind == "missing":
        del fs.files["/data/game.json"]
    else:
        fs.files["/data/game.json"] = corrupt_variants(data)[kind]
    b2 = board(fs=fs)
    assert b2.app.settings["variant"] == "ranok" and b2.app.settings["brightness"] == 2
    frames = []
    b2.app.on_frame = lambda app: frames.append(b2.frame())
    if kind == "missing":
        assert b2.app.boot_codes == []
    else:
        assert b2.app.boot_codes == [3]
        assert any("game.json" in line for line in b2.lines)
    assert b2.until(("menu",), 10000)
    amber_rows = [f for f in frames if f["mode"] == "boot" and f["bg"][0] == "amber"]
    assert bool(amber_rows) == (kind != "missing")
    assert all(f["bg"][6] != "amber" for f in frames if f["mode"] == "boot")


@pytest.mark.parametrize("kind", ["truncated", "flipped", "empty", "garbage"])
def test_corrupt_settings_file_blinks_keeps_the_game(kind):
    fs = MemFs()
    b = board(fs=fs, variant="mangala", opponent=0)
    start(b)
    b.play_move(3)
    rec = format_record(b.app.game)
    fs.files["/data/settings.json"] = corrupt_variants(fs.files["/data/settings.json"])[kind]
    b2 = board(fs=fs)
    assert b2.app.boot_codes == [2]
    frames = []
    b2.app.on_frame = lambda app: frames.append(b2.frame())
    assert b2.until(("select",), 10000)
    assert any(f["mode"] == "boot" and f["bg"][6] == "amber" and f["bg"][13] == "amber"
               for f in frames)  # the stores blink: "settings"
    assert format_record(b2.app.game) == rec


def test_both_files_corrupt_show_both_codes_and_reach_the_menu():
    fs = MemFs()
    b = board(fs=fs, variant="kalah", opponent=0)
    start(b)
    fs.files["/data/settings.json"] = b"{"
    fs.files["/data/game.json"] = b'{"record": "kalah 9 9 9", "sum": "00000000"}'
    b2 = board(fs=fs)
    assert b2.app.boot_codes == [2, 3]
    assert b2.until(("menu",), 10000)
    assert b2.app.settings["variant"] == "kalah"  # the defaults


def test_a_valid_checksum_around_nonsense_is_still_rejected():
    fs = MemFs()
    st = S.Storage(fs)
    st.save("game.json", {"record": "kalah 7 7 7", "number": 1, "human": 3, "level": 0,
                          "hints": 3})
    b = board(fs=fs)
    assert b.app.boot_codes == [3] and b.app.game is None
    assert b.until(("menu",), 10000)


def test_finished_games_go_to_a_bounded_history():
    fs = MemFs()
    b = board(fs=fs, variant="kalah3", opponent=0)
    b.app.store.HISTORY_MAX = 2
    nums = []
    for seed in range(3):
        if b.mode() != "menu":
            b.tap("S1")  # the end screen: a tap goes to the menu
        start(b)
        play_game(b, random.Random(seed), check=False)
        nums.append(b.app.meta["number"])
    assert nums == [1, 2, 3]
    assert b.app.store.history() == [2, 3]
    assert parse_record(b.app.store.read_game(3)).over
