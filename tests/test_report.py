"""Game reports: `mancala analyse RECORD --html FILE --png FILE` - the data, one
self-contained HTML file, the graph as PNG; and the report opened in headless Chromium."""

import io
import re
import struct

import pytest
from web_helpers import browser_or_skip

from host_tools.command import game_analysis, report
from mancala.notation import parse_record

# A short kalah3 game with a careless South (made by the engine against random moves):
# it has blunders, a change of lead and a finished end.
RECORD = "kalah3 5 4 3 3 4 4 2 5 1 4 2 5 4 1 3 6 5 5 6 3 4 6 5 3 4 6 6 2 5 5 6"
NODES = 1500


@pytest.fixture(scope="module")
def analysed():
    rows = game_analysis.analyse_record(RECORD, NODES)
    return rows, report.build(RECORD, rows, NODES)


def test_the_data_follows_the_game_and_its_grades(analysed):
    rows, data = analysed
    game = parse_record(RECORD)
    n = game.ply
    assert len(data["positions"]) == n + 1 and len(data["evals"]) == n + 1
    assert data["positions"][0][:14] == [3] * 6 + [0] + [3] * 6 + [0]
    assert data["positions"][n] == list(game.pos[:15])
    # the end is the rules' final store difference, not a search
    assert data["evals"][n] == game.pos[6] - game.pos[13]
    assert data["result"]["winner"] == ("South", "North", "draw")[game.winner()]
    for side in "SN":
        mine = [r for r in rows if r["side"] == side]
        a = data["accuracy"][side]
        assert a["moves"] == len(mine)
        assert a["best_share"] == sum(r["grade"] == "best" for r in mine) / len(mine)
        assert a["lost"] == sum(r["loss"] for r in mine)
        assert sum(a["grades"].values()) == len(mine)
    worst = max(rows, key=lambda r: r["loss"])
    assert worst["grade"] in ("mistake", "blunder")
    assert worst["ply"] in [c["ply"] for c in data["critical"]]


def test_html_is_self_contained_with_graph_moves_and_accuracy(analysed, tmp_path):
    rows, data = analysed
    page = report.html(data)
    # nothing to fetch at view time: no external src/href, no URL but the SVG namespace
    assert not re.search(r'(src|href)\s*=\s*"(?!#)', page)
    urls = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls
    svg = report.graph_svg(data)
    assert svg in page
    marks = re.findall(r'<circle class="mv" data-ply="(\d+)" data-grade="(\w+)"[^>]*fill="(#\w+)"', svg)
    assert [int(p) for p, _, _ in marks] == [r["ply"] for r in rows]
    assert all(report.GRADE_COLOURS[g] == c for _, g, c in marks)
    assert [g for _, g, _ in marks] == [r["grade"] for r in rows]
    assert page.count('<tr data-ply="') == len(rows)
    bars = re.findall(r'<rect class="loss" data-ply="(\d+)"[^>]*fill="(#\w+)"', svg)
    assert [(int(p), c) for p, c in bars] == [
        (r["ply"], report.GRADE_COLOURS[r["grade"]]) for r in rows if r["loss"]]
    assert "%d%%" % round(100 * data["accuracy"]["S"]["best_share"]) in page


def test_analyse_writes_html_and_png(tmp_path, capsys):
    rec = tmp_path / "g.txt"
    rec.write_text(RECORD + "\n")
    html_path, png_path = tmp_path / "r.html", tmp_path / "r.png"
    rc = game_analysis.analyse_main([str(rec), "--nodes", "400", "--html", str(html_path),
                           "--png", str(png_path)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "wrote %s" % html_path in out and "wrote %s" % png_path in out
    assert html_path.read_text().startswith("<!doctype html>")
    blob = png_path.read_bytes()
    assert blob[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", blob[16:24])
    assert (w, h) == (1800, 660)
    from PIL import Image  # (CairoSVG's own dependency)

    img = Image.open(io.BytesIO(blob)).convert("RGB")
    colours = {c for _, c in img.getcolors(maxcolors=1 << 22)}
    assert (0xff, 0x00, 0x00) in colours or (0xff, 0x8c, 0x00) in colours  # a mistake's marker
    assert (0x1f, 0x1a, 0x16) in colours  # the graph's background


def test_analyse_report_errors_are_one_line(tmp_path, capsys):
    rec = tmp_path / "g.txt"
    rec.write_text(RECORD + "\n")
    rc = game_analysis.analyse_main([str(rec), "--nodes", "50", "--html",
                           str(tmp_path / "no" / "such" / "dir" / "r.html")])
    assert rc == 1
    assert "error: the report could not be written" in capsys.readouterr().err


def test_report_in_a_browser_graph_and_board_at_a_move(analysed, tmp_path):
    rows, data = analysed
    path = tmp_path / "report.html"
    path.write_text(report.html(data))
    browser = browser_or_skip(1000, 1400)
    try:
        browser.get("file://%s" % path)
        marks = browser.find_elements("css selector", "#graph circle.mv")
        assert len(marks) == len(rows)
        game = parse_record(RECORD)

        def board():
            return browser.js("return [Number(document.getElementById('board').dataset.ply),"
                              " [...document.querySelectorAll('#board .pit')]"
                              ".map(g => Number(g.dataset.count))]")

        assert board() == [0, list(game.position_at(0)[:14])]
        worst = max(rows, key=lambda r: r["loss"])["ply"]
        marks[worst - 1].click()  # the costliest move on the graph
        assert board() == [worst, list(game.position_at(worst)[:14])]
        text = browser.find_element("css selector", "#movetext").text
        assert rows[worst - 1]["grade"] in text
        row = browser.find_element("css selector", '#moves tr[data-ply="3"]')
        browser.js("arguments[0].scrollIntoView()", row)
        row.click()  # the move list
        assert board() == [3, list(game.position_at(3)[:14])]
        browser.find_element("css selector", "#next").click()
        assert board() == [4, list(game.position_at(4)[:14])]
        cursor_x = float(browser.find_element("css selector", "#cursor").get_attribute("x1"))
        col = browser.find_element("css selector", '#graph .col[data-ply="4"]')
        assert abs(cursor_x - (float(col.get_attribute("x")) + float(col.get_attribute("width")) / 2)) < 0.1
        assert not [m for m in browser.console() if "SEVERE" in m]
    finally:
        browser.quit()


def test_an_unfinished_game_ends_on_a_search():
    record = " ".join(RECORD.split()[:7])
    rows = game_analysis.analyse_record(record, 300)
    data = report.build(record, rows, 300)
    assert data["result"] is None and len(data["evals"]) == 7
    assert "not finished" in report.html(data)
