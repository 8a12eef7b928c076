"""Storage: atomic write-then-rename, checksums, power cut between any two writes."""

import pytest

from host_tools.fakes.memfs import MemFs, PowerCut
from mancala.hw import storage as S


def test_round_trip_and_canonical_checksum():
    fs = MemFs()
    st = S.Storage(fs)
    obj = {"b": 2, "a": "x", "c": True, "d": None}
    st.save("settings.json", obj)
    assert st.load("settings.json") == (S.OK, obj)
    text = fs.files["/data/settings.json"].decode()
    assert '"sum":' in text and text.startswith('{"a":')


def test_missing_and_corrupt_files():
    fs = MemFs()
    st = S.Storage(fs)
    assert st.load("game.json") == (S.MISSING, None)
    st.save("game.json", {"record": "kalah 1 2 3"})
    good = fs.files["/data/game.json"]
    for bad in (good[:-5], good[: len(good) // 2], b"", b"\xff\xfe", good.replace(b"1", b"4"),
                b"[1, 2]", b'{"record": "kalah 1 2 3"}'):
        fs.files["/data/game.json"] = bad
        status, obj = st.load("game.json")
        assert status == S.CORRUPT and obj is None, bad


def test_power_cut_at_every_write_leaves_old_or_new():
    old = {"record": "kalah 3 1", "n": 1}
    new = {"record": "kalah 3 1 4 2 6 5 1 2 3 " * 5, "n": 2}
    k = 0
    while True:
        fs = MemFs()
        st = S.Storage(fs)
        st.save("game.json", old)
        fs.arm(k)
        try:
            st.save("game.json", new)
            done = True
        except PowerCut:
            done = False
        status, obj = S.Storage(fs).load("game.json")
        assert status == S.OK and obj in (old, new), k
        if done:
            assert obj == new
            break
        k += 1
    assert k > 3  # the write really was split into several writes


class NoReplaceFs(MemFs):
    """A filesystem whose rename refuses to replace a file (FAT)."""

    def rename(self, a, b):
        if b in self.files:
            self._op()
            raise OSError(17)
        MemFs.rename(self, a, b)


def test_rename_that_will_not_replace_still_never_loses_the_file():
    old, new = {"v": 1}, {"v": 2}
    for k in range(20):
        fs = NoReplaceFs()
        st = S.Storage(fs)
        st.save("settings.json", old)
        fs.arm(k)
        try:
            st.save("settings.json", new)
        except PowerCut:
            pass
        status, obj = S.Storage(fs).load("settings.json")
        assert status == S.OK and obj in (old, new), k


def test_history_is_bounded_and_idempotent():
    fs = MemFs()
    st = S.Storage(fs)
    st.HISTORY_MAX = 5
    for n in range(1, 9):
        assert st.next_game_number() == n
        st.add_game(n, "kalah %d" % n)
        st.add_game(n, "kalah %d" % n)  # again after a power cut: same file
    assert st.history() == [4, 5, 6, 7, 8]
    assert st.read_game(8) == "kalah 8"
    assert "/data/games/g00008.txt" in fs.files


def test_checksum_stays_small():
    assert S.checksum(b"\xff" * 5000) == S.checksum(bytes([255]) * 5000)
    assert int(S.checksum(b"\xff" * 5000), 16) < 2 ** 32


@pytest.mark.parametrize("value", [0, -5, "tab\tquote\"", True, None, 2 ** 29])
def test_values_round_trip(value):
    fs = MemFs()
    st = S.Storage(fs)
    st.save("settings.json", {"k": value})
    assert st.load("settings.json") == (S.OK, {"k": value})


def test_a_deeply_nested_file_is_corrupt_not_a_crash():
    """Issue 23, 5: json.loads raised RecursionError out of Storage.load in CPython."""
    fs = MemFs()
    st = S.Storage(fs)
    for name in ("game.json", "settings.json"):
        fs.files["/data/" + name] = b"[" * 100000 + b"]" * 100000
        assert st.load(name) == (S.CORRUPT, None)
        fs.files["/data/" + name] = b'{"a":' * 50000 + b"1" + b"}" * 50000
        assert st.load(name) == (S.CORRUPT, None)


def test_an_archived_game_carries_its_checksum_and_damage_is_found():
    """Issue 23, 4: a damaged gNNNNN.txt was read as a game."""
    fs = MemFs()
    st = S.Storage(fs)
    rec = "kalah 3 1 6 2 4"
    assert st.add_game(1, rec)
    data = fs.files["/data/games/g00001.txt"]
    assert S.game_record(data) == (rec, True) and st.read_game(1) == rec
    assert S.game_record(b"kalah 3 1\n") == ("kalah 3 1", False)  # an older firmware's file
    for k in range(len(data)):  # cut short anywhere
        assert S.game_record(data[:k]) == (None, False), k
    for k in range(len(data)):  # any byte changed
        for x in (1, 0x20):
            bad = bytearray(data)
            bad[k] ^= x
            got = S.game_record(bytes(bad))[0]
            assert got is None or got == rec, (k, x, bytes(bad))
    fs.files["/data/games/g00001.txt"] = data[:-3]
    assert st.read_game(1) is None
    assert st.archived(1, rec) == -1 and st.add_game(1, rec) is False  # never written over
    assert st.next_game_number(1) == 2


def test_game_numbers_out_of_range_never_name_a_file():
    fs = MemFs()
    st = S.Storage(fs)
    for bad in (-1, 0, True, "7", 2**30, 1.5):
        assert st.archived(bad, "kalah 1") == -1 and st.add_game(bad, "kalah 1") is False
        assert st.read_game(bad) is None
        assert st.next_game_number(bad) == 1
    assert not [p for p in fs.files if "/games/" in p]
    fs.files["/data/games/g%d.txt" % S.GAME_NUMBER_MAX] = S.game_text("kalah 1").encode()
    assert st.next_game_number(5) == 1  # past the top: the lowest free number
