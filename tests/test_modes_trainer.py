"""Issue 15: the puzzle and course modes on their own (a fake App, a manual clock):
set up, confirm, play, the verdict, the score, a power cut, leaving to the menu."""

import pytest

from host_tools.fakes.memfs import MemFs
from mancala import lessons as L
from mancala import puzzles as PZ
from mancala.hw import pits as P
from mancala.hw.pixels import GREEN, RED, WHITE
from mancala.hw.storage import Storage
from mancala.modes import MENU
from mancala.modes import NAMES as MODES_NAMES
from mancala.modes import activities as ACT
from mancala.modes import course as CM
from mancala.modes import puzzle as PM
from mancala.modes import trainer as T
from mancala.rules import MASK, N_STORE, S_STORE, get_rules

STORES = (1 << S_STORE) | (1 << N_STORE)


class Clock:
    def __init__(self):
        self.t = 0

    def now(self):
        return self.t


class Px:
    """Records the calls of one frame."""

    def __init__(self):
        self.counts = {}
        self.fills = {}

    def count(self, i, n, bg=None):
        self.counts[i] = (n, bg)

    def fill(self, i, c, div=1):
        self.fills[i] = c


class FakeApp:
    QUICK_MS = 300

    def __init__(self, variant="kalah", store=None, quick=0):
        self.settings = {"variant": variant, "quick": quick, "play": 1}
        self.store = store or Storage(MemFs())
        self.clock = Clock()
        self.t_mode = 0
        self.dirty = False
        self.flashed = []
        self.modes = []
        self.mode = -1
        self.item = 3
        self.spans = [(0, 12)] * 14

    def no(self, mask):
        self.flashed.append(mask)

    def store_call(self, fn, *args):
        fn(*args)

    def saved(self, err):
        assert err is None

    def set_mode(self, n):
        self.mode = n
        self.modes.append(n)


def tap(mode, app, pit):
    mode.on_event(app, P.TAP, pit)


def frame(mode, app, el, phase=1):
    px = Px()
    mode.draw(app, px, el, phase)
    return px


def set_up(mode, app):
    need = mode.need()
    for i in range(14):
        if need >> i & 1 and not mode.confirmed >> i & 1:
            assert mode.stage == T.SETUP
            tap(mode, app, i)
    assert mode.stage == T.PLAY


def sow(mode, app, pit):
    tap(mode, app, pit)
    assert mode.stage == T.SOWING
    while mode.stage == T.SOWING:
        tap(mode, app, mode.path[mode.sow_i])


def test_a_puzzle_set_up_solved_scored_and_the_next_one():
    app = FakeApp("kalah")
    m = PM.Puzzle()
    m.enter(app)
    p = PZ.read("kalah", 1)
    assert m.number == 1 and m.stage == T.SETUP and bytes(m.shown) == p.counts
    # setting up: the pits to fill blink white until tapped; an empty pit says no
    f = frame(m, app, 0)
    assert all(f.counts[i] == (p.counts[i], WHITE if p.counts[i] else None) for i in range(14))
    empty = [i for i in range(14) if not p.counts[i]]
    tap(m, app, empty[0])
    assert app.flashed == [1 << empty[0]]
    first = [i for i in range(14) if p.counts[i]][0]
    tap(m, app, first)
    tap(m, app, first)  # a tap again: not yet
    assert not m.confirmed
    tap(m, app, first)
    assert frame(m, app, 0).counts[first] == (p.counts[first], None)
    assert PZ.load_progress(app.store)["confirmed"] == 1 << first  # each tap is kept
    set_up(m, app)
    assert PZ.load_progress(app.store)["stage"] == T.PLAY
    # playing: the legal pits lit; a North pit says no
    tap(m, app, 8)
    assert app.flashed[-1] == 1 << 8
    sow(m, app, p.answer)
    assert m.stage == T.VERDICT and m.right
    assert m.line_n == len(p.line) - 1  # the rest of the line is shown
    f = frame(m, app, 0)
    assert f.counts[S_STORE] == (1, GREEN)  # the score: one solved
    prog = PZ.load_progress(app.store)
    assert PZ.marks(prog, "kalah", m.total).startswith("o")
    assert prog["number"] == 2 and prog["stage"] == T.SETUP  # a cut now: the next one
    # the line blinks ply by ply after the verdict
    f = frame(m, app, T.VERDICT_MS)
    assert m.line[0] in f.fills
    tap(m, app, 0)
    assert m.number == 2 and m.stage == T.SETUP


def test_a_wrong_move_shows_the_refutation_and_comes_again():
    app = FakeApp("oware")
    m = PM.Puzzle()
    m.enter(app)
    p = m.puzzle
    set_up(m, app)
    wrong = sorted(p.refs)[0]
    sow(m, app, wrong)
    assert m.stage == T.VERDICT and not m.right
    assert frame(m, app, 0).counts[S_STORE] == (0, RED)
    assert m.line_n == min(len(p.refutation(wrong)), 8)
    if m.line_n:
        assert m.line[0] >= 7  # the opponent's reply comes first
    assert PZ.marks(m.prog, "oware", m.total)[0] == "x"
    tap(m, app, 3)
    assert m.number == 1  # the same again
    set_up(m, app)
    sow(m, app, p.answer)
    tap(m, app, N_STORE)
    assert m.number == 2
    assert PZ.score(m.prog, "oware", m.total) == (1, 1)
    # at a wrong verdict the North store skips the puzzle
    set_up(m, app)
    sow(m, app, sorted(m.puzzle.refs)[0])
    tap(m, app, N_STORE)
    assert m.number == 3


def test_a_power_cut_resumes_the_puzzle_and_its_confirmed_pits():
    store = Storage(MemFs())
    app = FakeApp("ranok", store)
    m = PM.Puzzle()
    m.enter(app)
    set_up(m, app)
    sow(m, app, m.puzzle.answer)
    tap(m, app, 0)  # to puzzle 2
    n = m.number
    need = [i for i in range(14) if m.need() >> i & 1]
    tap(m, app, need[0])
    tap(m, app, need[1])
    # the power goes: a new board, a new mode object, the same flash
    app2 = FakeApp("ranok", Storage(store.fs))
    ACT.resume(app2)
    assert app2.mode == MODES_NAMES.index("puzzle")
    m2 = PM.Puzzle()
    m2.enter(app2)
    assert m2.number == n and m2.stage == T.SETUP
    assert m2.confirmed == (1 << need[0]) | (1 << need[1])
    assert PZ.score(m2.prog, "ranok", m2.total) == (1, 1)
    # a cut once all is set: straight back to the move
    set_up(m2, app2)
    m4 = PM.Puzzle()
    m4.enter(FakeApp("ranok", Storage(store.fs)))
    assert m4.number == n and m4.stage == T.PLAY
    # a cut mid-sowing: the position is set up again
    tap(m2, app2, m2.puzzle.answer)
    m3 = PM.Puzzle()
    m3.enter(FakeApp("ranok", Storage(store.fs)))
    assert m3.number == n and m3.stage == T.SETUP and m3.confirmed == 0


def test_quick_mode_sows_by_itself_and_leaving_goes_to_the_menu():
    app = FakeApp("mangala", quick=1)
    m = PM.Puzzle()
    m.enter(app)
    set_up(m, app)
    tap(m, app, m.puzzle.answer)
    tap(m, app, m.path[0])  # quick: taps do not sow
    assert m.sow_i == 0
    el = 0
    while m.stage == T.SOWING:
        el += app.QUICK_MS
        m.tick(app, el, app.QUICK_MS)
    assert m.right
    m.on_event(app, P.LONG, STORES)
    assert app.modes[-1] == MENU and app.item == 0
    assert PZ.load_progress(app.store)["mode"] == ""
    app3 = FakeApp("mangala", app.store)
    ACT.resume(app3)
    assert app3.mode == -1  # nothing under way any more


def test_kalah6_setting_plays_the_4_seed_puzzles():
    app = FakeApp("kalah6")
    m = PM.Puzzle()
    m.enter(app)
    assert m.variant == "kalah" and m.total == PZ.count("kalah")


@pytest.mark.parametrize("variant", ["kalah", "oware", "mangala", "ranok"])
def test_a_whole_course_right_and_wrong(variant):
    app = FakeApp(variant)
    m = CM.Course()
    m.enter(app)
    rules = get_rules(variant)
    n = L.count(variant)
    for k in range(1, n + 1):
        assert m.number == k and m.stage == T.SETUP
        x = L.get(variant, k)
        set_up(m, app)
        right = L.right_pits(rules, x)
        offered = L.offered(x, m.pos)
        wrong = [i for i in range(6) if offered >> i & 1 and not right >> i & 1]
        if wrong:  # a wrong try first: the right pits are shown, the same lesson again
            if m.pos[MASK] >> wrong[0] & 1:
                sow(m, app, wrong[0])
            else:
                tap(m, app, wrong[0])  # the rule forbids it: refused at once
            assert m.stage == T.VERDICT and not m.right and m.hint == right
            tap(m, app, 0)
            assert m.number == k
            set_up(m, app)
        # a pit not offered says no
        off = [i for i in range(6) if not offered >> i & 1]
        if off:
            tap(m, app, off[0])
            assert app.flashed[-1] == 1 << off[0] and m.stage == T.PLAY
        pit = [i for i in range(6) if right >> i & 1][0]
        sow(m, app, pit)
        assert m.right
        assert frame(m, app, 0).counts[S_STORE] == (k, GREEN)  # lessons done
        tap(m, app, 0)
    assert app.modes[-1] == MENU  # after the last lesson: the menu
    prog = PZ.load_progress(app.store)
    assert PZ.score(prog, "course_" + variant, n) == (n, n) and prog["mode"] == ""
