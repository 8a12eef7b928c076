"""Issue 15: a whole puzzle and a whole lesson played through the headless simulator
(host_tools/simulators/sim.py --headless, one JSON line per LED frame): chosen in the menu, the
position set up pit by pit from the lights, the move sown as guided, the verdict read
from the LEDs."""

import json
import os
import subprocess
import sys

from host_tools.fakes.board import NAMES
from mancala import lessons as L
from mancala import puzzles as PZ
from mancala.rules import get_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_sim(script, *flags):
    proc = subprocess.run([sys.executable, "-m", "host_tools.simulators.sim", "--headless", "-", *flags],
                          input=script, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr + proc.stdout[-2000:]
    return [json.loads(line) for line in proc.stdout.splitlines()]


def play_script(rules, counts, pit, choice):
    """Menu -> play item -> choice -> start; tap every pit holding stones; the move."""
    lines = ["wait 100", "tap SS", "tap SS", "tap N%d" % (choice + 1), "tap NS",
             "until %s 5000" % ("puzzle", "course")[choice - 1]]
    lines += ["tap %s" % NAMES[i] for i in range(14) if counts[i]]
    lines.append("tap %s" % NAMES[pit])
    path = rules.paths[pit]
    n = counts[pit]
    path = path[1:2] if rules.name == "mangala" and n == 1 else path[:n]
    lines += ["tap %s" % NAMES[i] for i in path]
    return lines


def test_a_whole_puzzle_in_the_headless_simulator():
    rules = get_rules("mangala")
    p = PZ.read("mangala", 1)
    lines = play_script(rules, p.counts, p.answer, 1)
    n_setup = len(lines)
    frames = run_sim("\n".join(lines + ["wait 4000", "tap S1", "wait 300"]) + "\n",
                     "--variant", "mangala", "--two")
    pz = [f for f in frames if f["mode"] == "puzzle"]
    assert pz and n_setup > 8
    first = pz[0]
    # setting up: the board shows the counts the pits must hold, blinking on white
    assert [c or 0 for c in first["counts"]] == list(p.counts) or \
        any([c or 0 for c in f["counts"]] == list(p.counts) for f in pz[:6])
    assert any("white" in f["bg"] for f in pz[:6])
    # the verdict: the South store green (the score 1), then the line's pits lit
    after = bytearray(p.position(rules))
    rules.move(after, p.answer)
    green = [f for f in pz if f["bg"][6] == "green"]
    assert green and green[0]["counts"][6] == 1
    reply = after[14] * 7 + p.line[1]  # (an extra turn: South again)
    colour = ("south", "north")[after[14]]
    assert any(f["bg"][reply] == colour for f in pz if f["t"] > green[0]["t"] + 1500)
    # then the next puzzle: its counts on the board, set-up blinking again
    q = PZ.read("mangala", 2)
    assert any([c or 0 for c in f["counts"]] == list(q.counts) for f in pz[-5:])


def test_a_whole_lesson_in_the_headless_simulator():
    rules = get_rules("ranok")
    x = L.get("ranok", 4)  # capture the neighbours too (the seed's example)
    pit = [k for k in range(6) if L.right_pits(rules, x) >> k & 1][0]
    lines = play_script(rules, x.counts, pit, 2)
    # the course starts at lesson 1: do lessons 1-3 the same way first
    pre = []
    for k in (1, 2, 3):
        y = L.get("ranok", k)
        right = [i for i in range(6) if L.right_pits(rules, y) >> i & 1][0]
        steps = play_script(rules, y.counts, right, 2)
        pre += (steps if k == 1 else steps[6:]) + ["wait 2000", "tap S1"]
    script = pre + lines[6:] + ["wait 2500"]
    frames = run_sim("\n".join(script) + "\n", "--variant", "ranok", "--two")
    co = [f for f in frames if f["mode"] == "course"]
    green = [f for f in co if f["bg"][6] == "green"]
    # four lessons done: each verdict shows the count of lessons done in the store, green
    scores = [f["counts"][6] for f in green]
    assert {1, 2, 3, 4} <= set(scores) and scores.index(4) > scores.index(1)
    assert not any(f["bg"][6] == "red" for f in co)
    # the last one's capture of three pits: the board shows the position after it
    after = bytearray(x.position(rules))
    rules.move(after, pit)
    assert [c or 0 for c in co[-1]["counts"]] == list(after[:14])


def test_the_terminal_says_what_a_puzzle_waits_for():
    from host_tools.fakes import machine, neopixel
    from host_tools.fakes.board import SimBoard
    from host_tools.simulators import sim

    b = SimBoard("pico_buttons", machine, neopixel)
    b.until(("menu",), 5000)
    assert any("play: a game" in ln for ln in sim.explain(b))
    for name in ("SS", "SS", "N2", "NS"):
        b.tap(name)
    lines = sim.explain(b)
    assert lines[0].startswith("puzzle 1 of 40 (kalah), score 0") and "set up" in lines[1]
    b.hold(("SS", "NS"), 3000)
    for name in ("SS", "SS", "N3", "NS"):
        b.tap(name)
    assert sim.explain(b)[0].startswith("lesson 1 of 6: Sowing")
