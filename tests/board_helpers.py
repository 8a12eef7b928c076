"""Shared helpers of the board tests: a simulated board and a game driver that
checks, after every move, the counts read from the LEDs against the rules core."""

import random

from host_tools.fakes import machine, neopixel
from host_tools.fakes.board import SimBoard
from host_tools.fakes.memfs import MemFs
from mancala.game import END_REPETITION
from mancala.hw.pixels import LAPS
from mancala.hw.storage import Storage
from mancala.rules import MASK, SIDE, collect_rows, get_rules

SETTINGS = {"variant": "kalah", "opponent": 0, "starter": 0, "coaching": 0, "hints": 3,
            "brightness": 1, "quick": 0}


def board(profile="pico_buttons", fs=None, seed=5, held=(), noise=0, engine_cls=None,
          strict=True, **settings):
    if fs is None:
        fs = MemFs()
    if settings:
        s = dict(SETTINGS)
        s.update(settings)
        Storage(fs).save("settings.json", s)
    return SimBoard(profile, machine, neopixel, fs=fs, seed=seed, held=held, noise=noise,
                    engine_cls=engine_cls, strict=strict)


def shown_counts(b, pos):
    """What the LEDs should read for `pos` (one-LED builds cap at the legend)."""
    out = []
    for i in range(14):
        n = b.profile["leds"][i][1]
        out.append(min(pos[i], len(LAPS) * n))
    return out


def settled(b, limit=60000):
    assert b.until(("select", "show", "over", "blunder"), limit), b.frame()


def play_game(b, rng=None, max_moves=400, check=True):
    """Play from the current state to the end: random legal moves for people,
    the computer's moves carried out as guided.  Returns (reference position,
    moves as (side, pit))."""
    rng = rng or random.Random(1)
    app = b.app
    rules = app.game.rules
    ref = rules.new_position(app.game.pos[:14], app.game.pos[SIDE])
    moves = []
    checks = 0
    while len(moves) < max_moves:
        settled(b)
        m = b.mode()
        if m == "blunder":
            b.tap(12 if app.before[SIDE] == 0 else 0)  # keep the move
            continue
        if m == "over":
            break
        side = ref[SIDE]
        if m == "select":
            if check:
                assert b.counts() == shown_counts(b, ref), (b.frame(), list(ref))
                checks += 1
            legal = [k for k in range(6) if ref[MASK] >> k & 1]
            pit = rng.choice(legal)
            b.play_move(side * 7 + pit)
        else:  # show: the computer's pit blinks
            b.run(b.app.BLINK_MS * 2)
            c = b.counts()
            p = b.shown_pit()
            k = 0
            while p is None and k < 12:  # its dark phase (or the lit one not yet drawn:
                b.run(b.app.ANIM_FRAME_MS)  # a frame every ANIM_FRAME_MS): a frame later
                p = b.shown_pit()
                c = b.counts()
                k += 1
            if check:
                want = shown_counts(b, ref)
                assert [x for i, x in enumerate(c) if i != p] == \
                    [x for i, x in enumerate(want) if i != p], (b.frame(), list(ref))
            assert p is not None and side * 7 <= p < side * 7 + 6
            pit = p - side * 7
            assert ref[MASK] >> pit & 1
            b.sow()
        moves.append((side, pit))
        rules.move(ref, pit)
    assert b.mode() == "over", "no end after %d moves" % len(moves)
    g = app.game
    if g.end == END_REPETITION:
        ref[MASK] = 0
        if rules.name == "oware":
            collect_rows(ref)
    if check:
        for st in (6, 13):  # the end screen: each store's final count
            assert b.counts()[st] == shown_counts(b, ref)[st]
        assert checks > 0
    assert list(g.pos[:14]) == list(ref[:14])
    return ref, moves


def to_select(b):
    """Carry out the computer's move / dismiss the coach until a person may move."""
    for _ in range(20):
        settled(b)
        m = b.mode()
        if m == "select":
            return
        if m == "show":
            b.sow()
        elif m == "blunder":
            b.tap(12 if b.app.before[SIDE] == 0 else 0)
        else:
            raise AssertionError(b.frame())
    raise AssertionError("never a person's turn")


def start(b):
    """From the menu: start a game with the current settings."""
    assert b.until(("menu",), 5000), b.frame()
    b.tap("NS")
    assert b.mode() in ("select", "think", "show"), b.frame()


__all__ = ["board", "play_game", "start", "settled", "get_rules", "shown_counts", "to_select"]


def sampled_cuts(contexts, stride):
    """Cut points for a whole-game power-cut test: every `stride`-th operation, plus
    the first operation of every context not yet among them.  `contexts[k]` names
    where operation k falls (which save, which step of it), so every kind of cut
    point is tried at least once while a whole game is replayed only for a sample
    (trying every operation is the storage-level tests' job, tests/test_storage_cuts.py)."""
    picked = set(range(0, len(contexts), stride))
    seen = {contexts[k] for k in picked}
    for k, c in enumerate(contexts):
        if c not in seen:
            seen.add(c)
            picked.add(k)
    return sorted(picked)
