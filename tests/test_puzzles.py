"""Issue 15, puzzles: the data files shipped with the firmware parse, hold at least 30
puzzles per variant graded by difficulty, every line and refutation is legal, and a
sample's answer is still the single best move at the deep budget (re-searched here);
the board's module reads one puzzle at a time and keeps the score."""

import os

import pytest

from host_tools.command.cli import main as cli_main
from host_tools.fakes.memfs import MemFs
from host_tools.generators import puzzles as H
from mancala import puzzles as P
from mancala.hw.storage import Storage
from mancala.rules import MASK, SIDE, get_rules

VARIANTS = ("kalah", "oware", "mangala", "ranok")


def all_puzzles(variant):
    out = []
    n = 1
    while True:
        p = P.read(variant, n)
        if p is None:
            return out
        out.append(p)
        n += 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_data_file_parses_and_has_30_graded_puzzles(variant):
    assert os.path.isfile(P.data_path(variant))
    rules = get_rules(variant)
    ps = all_puzzles(variant)
    assert len(ps) >= 30 and P.count(variant) == len(ps)
    grades = [p.difficulty for p in ps]
    assert set(grades) <= {1, 2, 3, 4} and len(set(grades)) >= 3, grades
    assert grades == sorted(grades)  # easy first
    seen = set()
    for p in ps:
        assert p.counts not in seen  # no puzzle twice
        seen.add(p.counts)
        pos = p.position(rules)
        assert pos[SIDE] == 0 and pos[MASK] and sum(p.counts) == rules.total
        assert p.margin >= H.MIN_MARGIN
        wrong = {k for k in range(6) if pos[MASK] >> k & 1 and k != p.answer}
        assert wrong and set(p.refs) == wrong  # a refutation for every other legal move
        assert not H.check_puzzle_lines(rules, p)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_sample_is_still_the_single_best_move_at_the_deep_budget(variant):
    # the easiest and the hardest puzzle of each file, searched again from scratch
    rules = get_rules(variant)
    analyst = H.Analyst(rules)
    total = P.count(variant)
    for n in (1, total):
        assert H.check_puzzle(rules, analyst, P.read(variant, n)) == [], (variant, n)


def test_the_check_finds_a_wrong_answer_and_an_illegal_line():
    rules = get_rules("kalah")
    p = P.read("kalah", 1)
    wrong = sorted(p.refs)[0]
    bad = P.Puzzle("kalah", 1, p.difficulty, p.counts, bytes([wrong]) + p.line[1:], p.margin, {})
    analyst = H.Analyst(rules)
    assert any("best move" in w for w in H.check_puzzle(rules, analyst, bad))
    pos = p.position(rules)
    empty = [k for k in range(6) if not pos[k]]
    if empty:
        bad2 = P.Puzzle("kalah", 1, 1, p.counts, bytes([empty[0]]), 2, {})
        assert any("not legal" in w for w in H.check_puzzle_lines(rules, bad2))


def test_generation_finds_single_best_moves_and_a_line_round_trips():
    rules = get_rules("oware")
    found = H.generate("oware", count=1, seconds=60, seed=7)
    assert len(found) == 1
    p = found[0]
    text = H.format_line(p)
    q = P.parse_line("oware", 1, text)
    assert (q.counts, q.line, q.margin, q.difficulty) == (p.counts, bytes(p.line), p.margin, p.difficulty)
    assert {k: bytes(v) for k, v in p.refs.items()} == q.refs
    assert H.check_puzzle(rules, H.Analyst(rules), q) == []


def test_bad_lines_are_refused():
    for text in ("1 4,4 12 2 -", "1 " + ",".join(["4"] * 14) + " 72 2 -", "1"):
        with pytest.raises(ValueError):
            P.parse_line("kalah", 1, text)


def test_reading_past_the_end_and_a_missing_variant():
    assert P.read("kalah", 10000) is None
    assert P.read("nosuch", 1) is None and P.count("nosuch") == 0


def test_progress_marks_score_and_resume_through_storage():
    store = Storage(MemFs())
    prog = P.load_progress(store)
    assert P.score(prog, "kalah", 5) == (0, 0)
    P.record(prog, "kalah", 2, 5, False)
    P.record(prog, "kalah", 1, 5, True)
    P.record(prog, "kalah", 1, 5, False)  # solved stays solved
    assert P.marks(prog, "kalah", 5) == "ox..."
    assert P.score(prog, "kalah", 5) == (1, 2)
    assert P.next_number(prog, "kalah", 5, after=1) == 2
    prog["variant"], prog["number"], prog["stage"], prog["confirmed"] = "kalah", 2, 1, 0x3FFF
    P.save_progress(store, prog)
    again = P.load_progress(Storage(store.fs))
    assert again == prog
    assert P.score(again, "oware", 3) == (0, 0)  # other variants untouched


def test_cli_show_and_one_line_errors(capsys):
    assert cli_main(["puzzles", "show", "ranok", "1"]) == 0
    out = capsys.readouterr().out
    assert "puzzle ranok 1" in out and "refuted by" in out
    assert cli_main(["puzzles", "show", "ranok", "9999"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error: ranok has 40 puzzles: the number must be 1..40, " \
        "got 9999" in err
    assert cli_main(["puzzles", "show", "chess", "1"]) == 2
    assert "invalid choice: 'chess'" in capsys.readouterr().err
    assert cli_main(["puzzles", "generate", "--count", "0"]) == 2
    assert "--count must be 1..200" in capsys.readouterr().err
