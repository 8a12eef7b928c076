"""The `mancala` command, run as a person runs it (a subprocess of the installed script)."""

import json
import os
import random
import subprocess
import sys

import pytest

from mancala.game import Game
from mancala.notation import format_position, format_record
from mancala.rules import get_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mancala(*args, stdin=None):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.path.join(ROOT, "firmware"))
    return subprocess.run([sys.executable, "-m", "host_tools.command.cli", *args], input=stdin,
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def test_show_draws_board_and_position():
    p = mancala("show", "kalah", "3")
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    assert lines[-1] == "kalah 4,4,0,5,5,5,1,4,4,4,4,4,4,0 S"
    assert any("N6" in line and "N1" in line for line in lines)
    assert any("South to move" in line for line in lines)


def test_show_json_after_game_end():
    p = mancala("show", "--json", "kalah", "0,0,0,0,0,1,20,3,3,3,3,3,3,9", "S")
    out = json.loads(p.stdout)
    assert out == {"position": "kalah 0,0,0,0,0,1,20,3,3,3,3,3,3,9 S", "over": False,
                   "scores": [20, 9], "winner": None}
    p = mancala("play", "--json", "kalah", "0,0,0,0,0,1,20,3,3,3,3,3,3,9", "S", "6")
    out = json.loads(p.stdout)
    assert out["over"] and out["scores"] == [21, 27] and out["winner"] == "N"


def test_legal_lists_moves():
    assert mancala("legal", "ranok", "1,0,0,0,0,2,0,1,0,0,0,0,0,0", "S").stdout.strip() == "1"
    out = json.loads(mancala("legal", "--json", "oware").stdout)
    assert out["legal"] == [1, 2, 3, 4, 5, 6]


def test_perft_last_line_is_the_count():
    p = mancala("perft", "mangala", "5")
    assert p.stdout.splitlines()[-1] == "6956"
    p = mancala("perft", "--divide", "kalah", "4,4,4,4,4,4,0,4,4,4,4,4,4,0", "S", "3")
    lines = p.stdout.splitlines()
    assert lines[-1] == "185" and sum(int(x.split(": ")[1]) for x in lines[:-1]) == 185


@pytest.mark.parametrize("args, message", [
    (["play", "mancala", "1"], "unknown variant 'mancala'"),
    (["show", "kalah", "4,4,4", "S"], "expected 14 counts"),
    (["show", "kalah", "4,4,4,4,4,-4,8,4,4,4,4,4,4,0", "S"], "count of S6 is negative: -4"),
    (["show", "kalah", "5,4,4,4,4,4,0,4,4,4,4,4,4,0", "S"], "the counts add up to 49 stones"),
    (["play", "kalah", "0,4,4,4,4,4,4,4,4,4,4,4,4,0", "S", "1"], "pit S1 is empty"),
    (["play", "kalah", "1", "S2"], "S2 is not a pit of the side to move (North)"),
    (["play", "kalah", "0,0,0,0,0,1,0,0,0,0,0,0,1,0", "S", "6", "1"], "the game is over"),
    (["play", "ranok", "1,0,0,0,0,2,0,1,0,0,0,0,0,0", "S", "6"], "would leave North no stones"),
    (["play", "kalah", "9"], "'9' is not a pit number 1..6"),
    (["perft", "kalah", "x"], "depth must be a whole number"),
    (["frobnicate"], "unknown command 'frobnicate'"),
])
def test_bad_input_gets_one_clear_line(args, message):
    p = mancala(*args)
    assert p.returncode == 2
    assert message in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr


def test_play_stdin_thousands_of_games_in_one_process():
    rng = random.Random(5)
    records, expected = [], []
    for i in range(2000):
        v = ("ranok", "mangala", "kalah", "oware", "kalah6")[i % 5]
        rules = get_rules(v)
        g = Game(rules)
        for _ in range(rng.randrange(0, 60)):
            if g.over:
                break
            m = g.legal_mask()
            g.play(rng.choice([k for k in range(6) if m >> k & 1]))
        records.append(format_record(g))
        expected.append(format_position(rules, g.pos))
    records.insert(7, "kalah 4 4 4 4")  # a bad line answers with an error line, in place
    expected.insert(7, "error: move 3 (S4): pit S4 is empty")
    p = mancala("play", "-", stdin="\n".join(records) + "\n")
    assert p.returncode == 1  # every line answered, one of them an error
    assert p.stdout.splitlines() == expected


def test_play_stdin_json():
    p = mancala("play", "--json", "-", stdin="mangala 4\nfoo\n")
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert lines[0]["position"] == "mangala 4,4,4,1,5,5,1,4,4,4,4,4,4,0 S"
    assert "unknown variant" in lines[1]["error"]
