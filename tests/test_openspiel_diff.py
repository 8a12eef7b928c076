"""Differential test against OpenSpiel: its `mancala` is our kalah, its `oware` our oware.

1,000 random games per variant per run (a new seed each run, printed on failure):
legal moves, positions, the end and the winner must agree at every ply.
"""

import os
import random

import pytest

from mancala.game import Game
from mancala.rules import get_rules

pyspiel = pytest.importorskip("pyspiel")
GAMES = int(os.environ.get("MANCALA_DIFF_GAMES", "1000"))
SEED = int(os.environ.get("MANCALA_DIFF_SEED", str(random.SystemRandom().randrange(10**9))))


def kalah_board(state):
    """OpenSpiel mancala board -> our board order (its 0 is North's store)."""
    obs = state.observation_tensor(0)[:14]
    b = [int(x) for x in obs]
    return b[1:7] + [b[7]] + b[8:14] + [b[0]]


def winner_from_returns(returns):
    return 0 if returns[0] > 0 else 1 if returns[0] < 0 else -1


def test_kalah_agrees_with_openspiel_mancala():
    game = pyspiel.load_game("mancala")
    rules = get_rules("kalah")
    rng = random.Random(SEED)
    for n in range(GAMES):
        state = game.new_initial_state()
        g = Game(rules)
        while True:
            assert kalah_board(state) == list(g.pos[:14]) or g.over, (SEED, n)
            if state.is_terminal():
                break
            assert not g.over, (SEED, n, g.ply)
            player = state.current_player()
            assert player == g.side
            legal = state.legal_actions()
            ours = [7 * g.side + k + 1 if g.side == 0 else 8 + k for k in range(6)
                    if g.legal_mask() >> k & 1]
            assert sorted(ours) == legal, (SEED, n, g.ply)
            action = rng.choice(legal)
            state.apply_action(action)
            g.play(action - 1 if player == 0 else action - 8)
        assert g.over
        b = kalah_board(state)  # OpenSpiel scores rows into the stores only in its returns
        assert [sum(b[0:7]), sum(b[7:14])] == [g.pos[6], g.pos[13]], (SEED, n)
        assert winner_from_returns(state.returns()) == g.winner(), (SEED, n)


def oware_board(state):
    obs = state.observation_tensor(0)
    total = 48
    seeds = [round(x * total) for x in obs[:12]]
    score = [round(x * total) for x in obs[12:14]]
    return seeds[0:6] + [score[0]] + seeds[6:12] + [score[1]]


def test_oware_agrees_with_openspiel_oware():
    game = pyspiel.load_game("oware")
    rules = get_rules("oware")
    rng = random.Random(SEED + 1)
    repetitions = 0
    for n in range(GAMES):
        state = game.new_initial_state()
        g = Game(rules)
        while True:
            assert oware_board(state) == list(g.pos[:14]), (SEED, n, g.ply)
            if state.is_terminal():
                break
            assert not g.over, (SEED, n, g.ply)
            assert state.current_player() == g.side
            legal = state.legal_actions()
            assert [k for k in range(6) if g.legal_mask() >> k & 1] == legal, (SEED, n, g.ply)
            action = rng.choice(legal)
            state.apply_action(action)
            g.play(action)
        assert g.over, (SEED, n)
        repetitions += g.end == 2
        assert winner_from_returns(state.returns()) == g.winner(), (SEED, n)
    print("oware: %d of %d games ended by repetition" % (repetitions, GAMES))
