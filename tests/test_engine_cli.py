"""`mancala engine | best | match | bench` (host_tools/command/protocol.py, analysis.py, match.py)."""

import io
import queue

import pytest

from host_tools.command import analysis
from host_tools.command.analysis import best_main
from host_tools.command.cli import UsageError
from host_tools.command.match import match_main, parse_player, play_game
from host_tools.command.protocol import Protocol
from host_tools.references.plain_search import PlainSearch
from host_tools.references.reference_rules import ReferenceRules
from mancala.engine import GRADES
from mancala.game import Game
from mancala.rules import get_rules


def run_protocol(lines):
    out = io.StringIO()
    proto = Protocol(out)
    for line in lines:
        if not proto.handle(line):
            break
    return out.getvalue().splitlines()


def test_protocol_go_nodes_and_bestmove():
    out = run_protocol(["isready", "position kalah moves 3", "go nodes 500", "quit"])
    assert out[0] == "readyok"
    info = [ln for ln in out if ln.startswith("info depth")]
    assert info and info[-1].split()[-1] == "500"
    assert out[-1].startswith("bestmove ")
    pit = int(out[-1].split()[1])
    assert 1 <= pit <= 6


def test_protocol_position_text_level_and_grade():
    out = run_protocol([
        "position kalah 2,1,0,0,1,4,9,0,0,0,1,0,0,8 S",
        "go level beginner",
        "grade 6",
        "grade 1",
        "grade 3",
        "bogus",
    ])
    assert out[0].startswith("info depth") or out[0].startswith("bestmove")
    grades = [ln for ln in out if ln.startswith("grade ")]
    assert grades[0].split()[:4] == ["grade", "blunder", "loss", "10"]
    assert grades[0].split()[5] != "none"
    assert grades[1].split()[1] == "best"
    assert [ln for ln in out if ln.startswith("error")][0].startswith("error 'S3'") or \
        any("not a legal move" in ln for ln in out)
    assert out[-1].startswith("error unknown command")


def test_protocol_stop_while_searching():
    out = io.StringIO()
    proto = Protocol(out)
    proto.handle("position oware")
    lines = queue.Queue()
    lines.put("stop\n")
    assert proto.go(["nodes", "10000000"], lines) is True
    text = out.getvalue().splitlines()
    assert text[-1].startswith("bestmove ")
    nodes = int(text[-2].split()[-1])
    assert nodes < 10000000


def test_best_main(capsys):
    assert best_main(["kalah", "1,0,0,0,0,3,20,0,0,0,0,9,2,13", "S", "--nodes", "2000"]) == 0
    assert capsys.readouterr().out.startswith("bestmove 1 ")
    assert best_main(["oware", "--level", "beginner"]) == 0
    assert capsys.readouterr().out.startswith("bestmove ")


def test_play_game_and_match_summary(capsys):
    r = play_game(("ranok", parse_player("nodes:30"), parse_player("beginner"), 1, 2, 5))
    assert r[0] == 1 and r[1] in (0.0, 0.5, 1.0)
    assert match_main(["nodes:40", "nodes:10", "--variant", "mangala", "--games", "4",
                       "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "mangala: nodes:40 vs nodes:10" in out and "/4 points" in out


def test_match_against_openspiel_mcts():
    pytest.importorskip("pyspiel")
    for v in ("kalah", "oware"):
        idx, pts, s, n, plies = play_game((v, parse_player("nodes:50"),
                                           parse_player("openspiel-mcts:30"), 0, 2, 3))
        assert pts in (0.0, 0.5, 1.0) and s + n == 48


def test_player_parsing():
    assert parse_player("Master") == ("level", "master")
    assert parse_player("1500") == ("nodes", 1500)
    assert parse_player("openspiel-mcts:20000") == ("mcts", 20000)
    with pytest.raises(ValueError):
        parse_player("grandmaster")


def test_plain_search_agrees_on_a_capture():
    rr = ReferenceRules("kalah")
    pos = [1, 0, 0, 0, 0, 3, 20, 0, 0, 0, 0, 9, 2, 13, 0]
    ps = PlainSearch(rr)
    pit, score = ps.search(pos, 3)
    assert pit == 0 and ps.nodes > 0


def test_bench_engine_cpython_only():
    out = io.StringIO()
    res = analysis.bench_engine(nodes=200, plain_depth=2, vm=False, out=out,
                                  variants=["kalah"])
    assert res["kalah"]["cpy_engine"] > 0 and "kalah" in out.getvalue()
    assert get_rules("kalah")


def test_protocol_keeps_commands_sent_during_a_search():
    out = io.StringIO()
    proto = Protocol(out)
    proto.handle("position kalah")
    lines = queue.Queue()
    for ln in ("isready\n", "grade 6\n", "stop\n"):
        lines.put(ln)
    proto.go(["nodes", "10000000"], lines)
    assert "readyok" in out.getvalue()
    assert proto.pending == ["grade 6\n"]
    proto.handle(proto.pending.pop(0))
    # graded as the board's coach grades (a Pico's budget), after the search stopped
    from host_tools.command.match import board_engine

    g, loss, _threat = board_engine(get_rules("kalah")).grade(Game(get_rules("kalah")).pos, 5)
    assert out.getvalue().splitlines()[-1] == "grade %s loss %d threat none" % (GRADES[g], loss)


def test_match_sets_engine_weights_and_ponders_b(capsys, monkeypatch):
    """--set-a/--set-b change one engine's weights (an engine-against-engine test of a
    change), --ponder-b lets B think on A's time; a bad setting is a usage error."""
    from host_tools.command import match as E
    from mancala.engine import Engine

    made = []
    searches = []
    orig_init, orig_search = E.EnginePlayer.__init__, Engine.search

    def spy_init(self, *args, **kw):
        orig_init(self, *args, **kw)
        made.append(self)

    def spy_search(self, pos, level=None, nodes=None, *rest):
        searches.append((self, nodes))
        return orig_search(self, pos, level, nodes, *rest)
    monkeypatch.setattr(E.EnginePlayer, "__init__", spy_init)
    monkeypatch.setattr(Engine, "search", spy_search)
    r = play_game(("kalah", parse_player("nodes:60"), parse_player("nodes:60"), 0, 2, 5,
                   0, 200, (("qew", 9), ("w", -1)), (("ew", 3),)))
    a, b = made
    assert (a.engine.qew, a.engine.w, a.engine.ew) == (9, -1, 5)
    default = Engine(get_rules("kalah"))
    assert (b.engine.qew, b.engine.w, b.engine.ew) == (default.qew, default.w, 3)
    assert {n for e, n in searches if e is a.engine} == {60}  # A does not ponder
    assert {n for e, n in searches if e is b.engine} == {60, 200}  # B does, on A's time
    assert r[1] in (0.0, 0.5, 1.0)
    monkeypatch.undo()
    assert match_main(["nodes:40", "nodes:40", "--games", "2", "--workers", "1", "--quiet",
                       "--set-a", "qew=4", "--ponder-b", "50"]) == 0
    assert "nodes:40+qew=4 vs nodes:40+ponder:50" in capsys.readouterr().out
    for bad in ("qew", "size=3", "qdepth=9", "ew=x"):
        with pytest.raises(UsageError):
            match_main(["nodes:40", "nodes:40", "--set-a", bad])
