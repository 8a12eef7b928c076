"""The saving guarantee under faults (docs/BOARD.md, "Saving"), the way the attack
tested it: a filesystem model that records every operation (tests/fsmodel.py), both
rename behaviours, with and without littlefs's commit-at-close, a power cut at every
operation and partway through every write, a write error (ENOSPC, EIO) at every
operation, a flash that stays full, and two cuts in a row.

The invariant checked after every fault: loading finds a complete copy of the last
state whose save returned, or of a state saved after it (never an older one, never
nothing once a save has returned)."""

import pytest
from fsmodel import EIO, ENOSPC, ModelFs

from host_tools.fakes.memfs import PowerCut
from mancala.hw import storage as S

KINDS = [(True, True), (True, False), (False, True), (False, False)]  # (replace, eager)
KIND_IDS = ["replace-eager", "noreplace-eager", "replace-littlefs", "noreplace-littlefs"]


def state(n):
    # sizes vary so that writes split differently from save to save
    return {"n": n, "record": "kalah " + " ".join(str(1 + (n * 7 + k) % 6) for k in range(n * 40))}


class Run:
    """Saves states first..last in order, keeping what the invariant allows."""

    def __init__(self, fs, first=1, committed=None):
        self.fs = fs
        self.committed = committed  # n of the last save that returned
        self.attempted = committed if committed is not None else 0
        self.first = first
        self.errors = 0

    def go(self, last):
        st = S.Storage(self.fs)
        st.load("game.json")  # what a boot does first
        for n in range(self.first, last + 1):
            self.attempted = n
            try:
                st.save("game.json", state(n))
                self.committed = n
            except OSError:
                self.errors += 1

    def check(self, files):
        """Boot on these files: returns the n found (None if there was nothing)."""
        status, obj = S.Storage(ModelFs(files=files)).load("game.json")
        if self.committed is None:
            assert status in (S.OK, S.MISSING), status
            if status == S.MISSING:
                return None
        else:
            assert status == S.OK, (status, self.committed)
        n = obj["n"]
        assert obj == state(n)
        lo = self.committed if self.committed is not None else 1
        assert lo <= n <= self.attempted, (n, self.committed, self.attempted)
        return n


LAST = 4  # the first save of a file, then three over it


def ops_of(replace, eager, first=1, files=None, committed=None):
    fs = ModelFs(replace=replace, eager=eager, files=files)
    Run(fs, first, committed).go(LAST)
    return fs.ops


def faults(ops):
    """Every fault to try: a cut before every operation, a cut partway through every
    write, an ENOSPC and an EIO at every operation."""
    for k, (kind, _path, _n) in enumerate(ops):
        yield k, "cut"
        if kind == "write":
            yield k, "cut-mid"
        yield k, ENOSPC
        yield k, EIO


def one_fault(replace, eager, k, fault, first=1, files=None, committed=None):
    fs = ModelFs(replace=replace, eager=eager, files=files)
    run = Run(fs, first, committed)
    fs.plan(k, fault)
    try:
        run.go(LAST)
        cut = False
    except PowerCut:
        cut = True
    assert fs.faults == 1
    found = run.check(fs.snapshot())
    if not cut:
        # an error is not a loss: the next save goes through and is found
        st = S.Storage(fs)
        st.save("game.json", state(LAST + 1))
        assert S.Storage(ModelFs(files=fs.snapshot())).load("game.json") == \
            (S.OK, state(LAST + 1))
    return fs, run, found


@pytest.mark.parametrize("replace,eager", KINDS, ids=KIND_IDS)
def test_a_cut_or_an_error_at_every_operation_loses_nothing(replace, eager):
    ops = ops_of(replace, eager)
    assert len(ops) > 4 * 5  # several writes per save
    n = 0
    for k, fault in faults(ops):
        one_fault(replace, eager, k, fault)
        n += 1
    assert n > 90


@pytest.mark.parametrize("replace,eager", KINDS, ids=KIND_IDS)
def test_two_cuts_in_a_row_lose_nothing(replace, eager):
    """A cut anywhere, a boot, the next saves, and a second cut anywhere in them."""
    ops = ops_of(replace, eager)
    n = 0
    for k, fault in faults(ops):
        if fault not in ("cut", "cut-mid"):
            continue
        fs, run, found = one_fault(replace, eager, k, fault)
        files = fs.snapshot()
        # the board boots on what the cut left and goes on saving from there
        nxt = (found or 0) + 1
        committed = found
        ops2 = ops_of(replace, eager, nxt, files, committed)
        for k2, fault2 in faults(ops2):
            if fault2 not in ("cut", "cut-mid"):
                continue
            fs2 = ModelFs(replace=replace, eager=eager, files=files)
            run2 = Run(fs2, nxt, committed)
            fs2.plan(k2, fault2)
            try:
                run2.go(LAST + 2)
            except PowerCut:
                pass
            run2.check(fs2.snapshot())
            n += 1
    assert n > 500


@pytest.mark.parametrize("replace,eager", KINDS, ids=KIND_IDS)
def test_a_flash_that_stays_full_keeps_the_last_save(replace, eager):
    """Failure 2: from any operation on the flash refuses (writes and renames fail,
    opens still truncate); every later save fails; the last good save stays whole
    and boot finds it, with or without a cut on top."""
    ops = ops_of(replace, eager)
    for k in range(len(ops)):
        for then_cut in (False, True):
            fs = ModelFs(replace=replace, eager=eager)
            run = Run(fs)
            real_op = fs._op
            seen = [0]

            def op(kind, path, data=b"", real_op=real_op, seen=seen, fs=fs, k=k):
                if seen[0] == k:
                    fs.fail(ENOSPC)
                seen[0] += 1
                return real_op(kind, path, data)

            fs._op = op
            run.go(LAST)
            run.go(LAST + 3)  # more saves on the full flash
            if then_cut:
                fs.fail(None)
                fs.plan(0, "cut")
            run.check(fs.snapshot())


def test_failure_2_a_failed_rename_never_removes_the_good_save():
    """littlefs gives ENOSPC at a rename: the old code took it for "will not replace",
    removed game.json, and the next failed save truncated the only copy."""
    fs = ModelFs(replace=True, eager=True)
    st = S.Storage(fs)
    st.save("game.json", state(1))
    fs.fail(ENOSPC, ("rename",))
    with pytest.raises(OSError):
        st.save("game.json", state(2))
    assert S.decode(fs.files["/data/game.json"]) == state(1)
    fs.fail(ENOSPC)  # now the writes fail too
    with pytest.raises(OSError):
        st.save("game.json", state(3))
    assert S.Storage(ModelFs(files=fs.snapshot())).load("game.json") == (S.OK, state(1))


@pytest.mark.parametrize("replace", [True, False], ids=["replace", "noreplace"])
def test_failure_3_a_second_cut_after_a_tmp_only_copy(replace):
    """A cut left the only copy in game.json.tmp; the next save, cut partway through
    its first write, must not have truncated it."""
    fs = ModelFs(replace=replace, eager=True)
    run = Run(fs)
    fs.plan([k for k, o in enumerate(ops_of(replace, True)) if o[0] == "rename"][0], "cut")
    with pytest.raises(PowerCut):
        run.go(LAST)
    files = fs.snapshot()
    assert "/data/game.json" not in files and "/data/game.json.tmp" in files
    assert S.Storage(ModelFs(files=files)).load("game.json") == (S.OK, state(1))
    fs2 = ModelFs(replace=replace, eager=True, files=files)
    st = S.Storage(fs2)
    assert st.load("game.json") == (S.OK, state(1))  # the boot
    fs2.plan(2, "cut-mid")  # a write of the next save (after its settling rename)
    with pytest.raises(PowerCut):
        st.save("game.json", state(3))
    assert fs2.ops[-1][0] == "write"
    assert S.Storage(ModelFs(files=fs2.snapshot())).load("game.json") == (S.OK, state(1))


def test_archive_keeps_every_finished_game_and_numbers_never_wrap():
    """Failure 4 (storage side): add_game never overwrites another game, a number
    is never used twice, past 99999 too, and the bound drops the oldest."""
    fs = ModelFs()
    st = S.Storage(fs)
    assert st.add_game(7, "kalah 1 2") is True
    assert st.add_game(7, "kalah 1 2") is True  # the same game again: no write
    n = len(fs.ops)
    st.add_game(7, "kalah 1 2")
    assert len(fs.ops) == n
    assert st.add_game(7, "kalah 3 4") is False  # another game under 7: refused
    assert st.read_game(7) == "kalah 1 2"
    assert st.next_game_number() == 8
    assert st.next_game_number(after=12) == 13
    st.HISTORY_MAX = 3
    st.add_game(99999, "kalah 5")
    assert st.next_game_number() == 100000
    st.add_game(100000, "kalah 6")
    assert st.history() == [7, 99999, 100000]
    assert st.next_game_number() == 100001
    st.add_game(100001, "kalah 1")
    assert st.history() == [99999, 100000, 100001]  # the oldest went, not the newest
    assert st.read_game(100000) == "kalah 6"
