"""Issue 23, 6: a power cut at every flash operation of an update, on the emulated
board (host_tools/link/bridge.mjs, $MPBOARD_CUT_AT): every open for writing, write,
rename, remove, mkdir and rmdir of `make deploy` (the code files, the endgame
table, the part outside the slots, state.json) and of the board's own first
start of the new version.  After each cut the board is powered on again and
must start one consistent version, the old or the new one (its app, its slot's
files, its start-up stage, its table; never a mix), with the player's data
intact, and the next `make deploy` must complete.

`make test` tries a sample of cut points (the ones that mixed versions before
issue 23); `make test-long-update` (MANCALA_LONG_UPDATE=1) tries them all, for
two updates: a new start-up stage (stage.py), and a board still on the firmware
before the loaders (boot.py / main.py as the stage, tests/data/stage_v1/)."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading

import pytest
from update_helpers import PLAYER_DATA, built_version, make_app, new_board, start_board

from host_tools.generators.tablebase import built_path, write_table
from host_tools.link import board_transport, bridge, deploy

pytestmark = pytest.mark.skipif(not bridge.available(), reason="MicroPython VM not installed (make setup)")

LONG = os.environ.get("MANCALA_LONG_UPDATE") == "1"
TRIAL = 2  # seconds: the deadman's window
LEGACY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "stage_v1")
# What changes outside the slots from one firmware to the next: the loaders
# (boot.py, main.py) never do, the stage does.  (Before issue 23: boot.py and main.py.)
LOADERS = board_transport.LOADERS
OUTSIDE = tuple(n for n in board_transport.ROOT_FILES if n not in LOADERS)
ROOT_NAMES = ("boot.py", "main.py", "stage.py", "boot_v1.py", "main_v1.py")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEPLOY_CUT = (  # deploy(port, src, tables dir, plan) as `make deploy` would, in a process of its own
    "import json, os, sys\n"
    "from host_tools.link import deploy\n"
    "deploy.deploy(sys.argv[1], sys.argv[2], trial_seconds=%d, max_boots=2, out=open(os.devnull, 'w'),\n"
    "              tables_dir=sys.argv[3], tables_for=json.loads(sys.argv[4]))\n" % TRIAL)


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def tree_hash(d):
    h = hashlib.sha256()
    for dirpath, dirnames, files in sorted(os.walk(d)):
        dirnames.sort()
        for f in sorted(files):
            p = os.path.join(dirpath, f)
            h.update(os.path.relpath(p, d).encode() + b"\0" + read(p) + b"\0")
    return h.hexdigest()


class Update:
    """Version 1 installed on a board (the base flash), and version 2 to update to."""

    def __init__(self, tmp_path, kind):
        self.tmp = tmp_path
        self.kind = kind
        self.v1 = make_app(tmp_path / "1", "1.0")
        if kind == "legacy":  # a board on the firmware before the loaders
            for n in ("boot.py", "main.py"):
                shutil.copy(os.path.join(LEGACY, n), os.path.join(self.v1, n))
            os.remove(os.path.join(self.v1, "stage.py"))
        self.v2 = make_app(tmp_path / "2", "2.0", util="two")
        if kind == "stage":  # a new start-up stage: what changes outside the slots
            for n in OUTSIDE:
                with open(os.path.join(self.v2, n), "a") as f:
                    f.write("\n# the next start-up stage\n")
        self.tables = {}
        for k, seeds in ((1, 2), (2, 3)):
            d = str(tmp_path / ("tables%d" % k))
            os.makedirs(d)
            write_table(built_path("ranok", seeds, d), "ranok", seeds)
            self.tables[k] = (d, {"ranok": seeds}, read(built_path("ranok", seeds, d)))
        self.version = {1: built_version(self.v1), 2: built_version(self.v2)}
        b = new_board(tmp_path, "base")
        try:
            self.deploy(b, 1)
        finally:
            b.stop()
        self.base = b.board_dir
        os.remove(os.path.join(self.base, "app_ran.txt"))
        self.ops = None

    def deploy(self, b, k, restart_timeout=None):
        d, plan, _ = self.tables[k]
        with open(os.devnull, "w") as out:
            r = deploy.deploy(b.port, self.v1 if k == 1 else self.v2, trial_seconds=TRIAL, max_boots=2,
                              out=out, tables_dir=d, tables_for=plan, restart_timeout=restart_timeout)
        assert r.get("confirmed") or r.get("up_to_date"), r
        return r

    def board(self, name):
        d = self.tmp / name
        shutil.copytree(self.base, d)
        return bridge.Bridge(str(d))

    def run_counted(self, name, cut_at=0):
        """Update to version 2 with every flash operation counted, the power cut at
        operation `cut_at` (0: none).  Returns (board, [(n, op)], cut).  With a cut,
        `make deploy` runs as its own process, ended with the power (it would wait
        for the board to come back)."""
        b = self.board(name)
        ops = str(self.tmp / (name + ".ops"))
        os.environ["MPBOARD_OPS"] = ops
        os.environ["MPBOARD_CUT_AT"] = str(cut_at)
        try:
            b.start()
            if not cut_at:
                self.deploy(b, 2)
            else:
                self.deploy_until_cut(b)
        finally:
            del os.environ["MPBOARD_OPS"], os.environ["MPBOARD_CUT_AT"]
        log = (read(ops + ".log") or b"").decode().splitlines()
        cut = any(line.startswith("CUT ") for line in log)
        return b, [line.split(" ", 1) for line in log], cut

    def deploy_until_cut(self, b):
        d, plan, _ = self.tables[2]
        proc = subprocess.Popen([sys.executable, "-c", DEPLOY_CUT, b.port, self.v2, d, json.dumps(plan)],
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ended = threading.Event()
        relay = b._thread  # ends when the board's process ends without a reset: the cut

        def watch(wait):
            wait()
            ended.set()

        for w in (proc.wait, relay.join):
            threading.Thread(target=watch, args=(w,), daemon=True).start()
        ended.wait(300)
        if proc.poll() is None:
            proc.kill()
        proc.wait()

    def record(self):
        """The operations of a whole update (no cut), and a check that it completed."""
        b, ops, _ = self.run_counted("record")
        b.stop()
        self.check_new(b.board_dir)
        self.ops = [(int(n), what) for n, what in ops]
        return self.ops

    # -- what the board holds -------------------------------------------------------

    def stage_of(self, d):
        """Which version's start-up stage the flash holds: 1, 2, or None (a mix)."""
        have = {n: read(os.path.join(d, n)) for n in ROOT_NAMES}
        want = {k: {n: read(os.path.join(src, n)) for n in board_transport.ROOT_FILES}
                for k, src in ((1, self.v1), (2, self.v2))}
        loader = {n: want[2][n] for n in LOADERS}
        if self.kind == "legacy":
            if have["stage.py"] is not None:
                ok = have["stage.py"] == want[2]["stage.py"] and all(have[n] == loader[n] for n in LOADERS)
                return 2 if ok else None
            # the stage of older firmware: boot.py and main.py, or the loaders running their copies
            for n in ("boot.py", "main.py"):
                old = want[1][n]
                if not (have[n] == old or (have[n] == loader[n] and have[n[:-3] + "_v1.py"] == old)):
                    return None
            return 1
        if any(have[n] != loader[n] for n in LOADERS):
            return None
        for k in (1, 2):
            if all(have[n] == want[k][n] for n in OUTSIDE):
                return k
        return None

    def slot_whole(self, d, slot):
        m = json.loads(read(os.path.join(d, "slots", slot, "manifest.json")))
        for rel, (h, _n) in m["files"].items():
            data = read(os.path.join(d, "slots", slot, rel))
            if data is None or hashlib.sha256(data).hexdigest() != h:
                return False
        return True

    def verdict(self, b, running, text):
        """'old' or 'new' (one consistent version), else what is wrong."""
        d = b.board_dir
        if running is None or running[0] not in self.version.values():
            return "bricked (runs %r)" % (running,)
        k = 1 if running[0] == self.version[1] else 2
        word = "app 1.0 hello" if k == 1 else "app 2.0 two"
        if word not in text:
            return "bricked (the app of %s did not start)" % running[0]
        if not self.slot_whole(d, running[1]):
            return "mixed (slot %s is not whole)" % running[1]
        stage = self.stage_of(d)
        if stage != k:
            return "mixed (the start-up stage of %s, the app of %s)" % (stage, k)
        table = read(os.path.join(d, "tables", "ranok.tb"))
        if table not in (None, self.tables[1][2], self.tables[2][2]):
            return "mixed (a torn table)"
        for rel, data in PLAYER_DATA.items():
            if read(os.path.join(d, rel)) != data:
                return "lost %s" % rel
        return "old" if k == 1 else "new"

    def check_new(self, d):
        assert self.stage_of(d) == 2, "the new start-up stage"
        for left in ("stage_next.py", "stage_try.py", "slots/state.back"):
            assert read(os.path.join(d, left)) is None, left
        assert read(os.path.join(d, "tables", "ranok.tb")) == self.tables[2][2], "the new table"
        for rel, data in PLAYER_DATA.items():
            assert read(os.path.join(d, rel)) == data

    def cut(self, n, seen):
        """Cut the power at operation n, power on, judge, update again."""
        b, _ops, cut = self.run_counted("cut%d" % n, cut_at=n)
        b.stop()
        assert cut, "operation %d never came" % n
        h = tree_hash(b.board_dir)
        if h in seen:
            return seen[h] + " (the same flash as an earlier cut)"
        try:
            os.remove(os.path.join(b.board_dir, "app_ran.txt"))
        except OSError:
            pass
        b.start()
        try:
            running, text = start_board(b, timeout=10)
            v = self.verdict(b, running, text)
            try:  # the next `make deploy` completes
                r = self.deploy(b, 2)
                assert r.get("up_to_date") or r["running"][0] == self.version[2], r
            except (board_transport.DeployError, AssertionError) as e:
                v = "%s; then make deploy failed: %s" % (v, e)
        finally:
            b.stop()
        if v in ("old", "new"):
            try:
                self.check_new(b.board_dir)
            except AssertionError as e:
                v = "%s; after make deploy: %s" % (v, e)
        seen[h] = v
        return v


def sample(ops):
    """The cut points that left a mix before issue 23: before each rename that puts
    a file outside the slots in place, and early in the first start after the switch."""
    out = [n for n, what in ops if what.startswith("rename /") and what.split()[1].count("/") == 1
           and what.split()[1].endswith(".new")]
    switch = [n for n, what in ops if what.startswith("rename /slots/state.tmp")]
    if switch:
        out.append(switch[0] + 2)
    return sorted(set(out))


@pytest.mark.parametrize("kind", ["stage"])
def test_power_cuts_during_an_update_sample(tmp_path, kind):
    u = Update(tmp_path, kind)
    ops = u.record()
    points = sample(ops)
    assert points
    seen = {}
    results = {n: u.cut(n, seen) for n in points}
    assert all(v in ("old", "new") for v in results.values()), results


PARTS = 2  # each update's cut points in this many tests (workers share them: -n)


@pytest.mark.skipif(not LONG, reason="the full sweep: make test-long-update")
@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize("kind", ["stage", "legacy"])
def test_power_cuts_during_an_update_sweep(tmp_path, kind, part):
    u = Update(tmp_path, kind)
    ops = u.record()
    seen = {}
    results = {}
    for n, what in ops[part::PARTS]:
        results[n] = (what, u.cut(n, seen))
    bad = {n: r for n, r in results.items() if r[1].split(" (the same")[0] not in ("old", "new")}
    counts = {"old": sum(r[1].startswith("old") for r in results.values()),
              "new": sum(r[1].startswith("new") for r in results.values())}
    report = "%s part %d/%d: %d cut points of %d (%d distinct flash states): %d old, %d new, %d bad" % (
        kind, part + 1, PARTS, len(results), len(ops), len(seen), counts["old"], counts["new"], len(bad))
    print(report)
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)  # (kept: pytest's own temp folders are not)
    with open(os.path.join(ROOT, "build", "update-cuts-%s-%d.txt" % (kind, part)), "w") as f:
        f.write(report + "\n" + "\n".join("%d %s: %s" % (n, w, v) for n, (w, v) in sorted(results.items())) + "\n")
    assert not bad, bad
