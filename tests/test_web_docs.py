"""Issue 43 item 13: the docs and the page against the data they describe - every board
profile (firmware/mancala/profiles NAMES) in hardware/README.md, hardware/bringup.md and
the page's build menu; the page's hold of both stores is the firmware's; the Russian
rules carry the English "Checking a rule yourself".  And item 8's README part: the
terminal's minimum is the simulator's."""

import json
import os
import re

import pytest

from host_tools.runners import mpvm
from host_tools.simulators.web.webboard import WebBoard
from mancala.hw.pits import Pits
from mancala.profiles import NAMES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEB = os.path.join(ROOT, "host_tools", "simulators", "web")
NUMBER_WORDS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


def test_hardware_readme_counts_and_links_every_build():
    text = read("hardware", "README.md")
    m = re.search(r"(\w+) reference builds", text)
    assert m and m.group(1) == NUMBER_WORDS[len(NAMES)], m and m.group(0)
    table = text[text.index("## The builds"):text.index("Summary of parts cost")]
    linked = re.findall(r"\]\((\w+)/README\.md\)", table)
    assert linked == list(NAMES)


def test_bringup_lists_every_profile():
    text = " ".join(read("hardware", "bringup.md").split())
    m = re.search(r"list of profiles \(([^)]*)\)", text)
    assert m, "bringup.md: no 'list of profiles (...)'"
    assert re.findall(r"`(\w+)`", m.group(1)) == list(NAMES)


def page_builds():
    html = read("host_tools", "simulators", "web", "index.html")
    select = html[html.index('<select id="profile"'):]
    select = select[:select.index("</select>")]
    options = re.findall(r'<option value="([^"]+)"', select)
    js = read("host_tools", "simulators", "web", "board.js")
    profiles = json.loads(re.search(r"const PROFILES = (\[[^\]]*\]);", js).group(1))
    return options, profiles


def test_the_page_build_menu_has_every_profile():
    options, profiles = page_builds()
    assert options == profiles  # the menu and what board.js accepts
    assert [p for p in options if "+" not in p] == list(NAMES)
    assert all(p.split("+")[0] in NAMES and p.endswith("+battery") for p in options if "+" in p)


@pytest.mark.parametrize("build", page_builds()[0])
def test_every_build_of_the_menu_boots_in_the_glue(build):
    wb = WebBoard(build, "", 1, "")
    for _ in range(400):
        if wb.board.mode() == "menu":
            break
        wb.step(20)
    assert wb.board.mode() == "menu", wb.logs()
    assert json.loads(wb.layout())["led_count"] == wb.board.profile["led_count"]


def test_the_pico2_build_runs_in_the_pages_micropython(tmp_path):
    if not mpvm.available():
        pytest.skip("MicroPython VM not installed: run `make setup` (npm ci)")
    code = r'''
import json
from webboard import WebBoard
wb = WebBoard("pico2_buttons", "", 1, json.dumps({"variant": "kalah3", "opponent": 0}))
for _ in range(100):
    wb.step(20)
print(json.dumps([wb.board.mode(), json.loads(wb.layout())["led_count"]]))
'''
    out = mpvm.run(code, heap=8 * 1024 * 1024,  # the page's heap (board.js)
                   mounts=[(os.path.join(ROOT, "host_tools", "fakes"), "/lib"),
                           (os.path.join(WEB, "webboard.py"), "/lib/webboard.py")])
    assert json.loads(out.strip().splitlines()[-1]) == ["menu", 180]


def seconds(ms):
    return ("%.1f" % (ms / 1000)).rstrip("0").rstrip(".")


def test_the_page_says_the_firmwares_hold_of_both_stores():
    """The menu comes after both stores held Pits.LONG_MS (2.5 s); the page said 3 s."""
    want = seconds(Pits.LONG_MS)
    html = read("host_tools", "simulators", "web", "index.html")
    said = re.findall(r"hold both stores ([\d.]+) s", html)
    assert said and set(said) == {want}, (said, want)
    # what the page's button and key `m` hold is long enough for the firmware
    holds = [int(ms) for ms in re.findall(r'data-pits="6,13" data-ms="(\d+)"', html)]
    assert max(holds) >= Pits.LONG_MS
    js = read("host_tools", "simulators", "web", "board.js")
    m_hold = int(re.search(r"\bm: \[\[6, 13\], (\d+)\]", js).group(1))
    assert m_hold >= Pits.LONG_MS


def code_block(text, heading):
    i = text.index(heading)
    m = re.search(r"```\n(.*?)```", text[i:], re.S)
    return m.group(1).splitlines()


def test_russian_rules_have_the_checking_section():
    en, ru = read("docs", "RULES.en.md"), read("docs", "RULES.ru.md")
    assert en.count("\n## ") == ru.count("\n## ")
    want = code_block(en, "## Checking a rule yourself")
    last = ru[ru.rindex("\n## "):]  # the section in the same place, the last
    got = code_block(ru, last.strip().splitlines()[0])
    assert [ln.split("#")[0].strip() for ln in got] == [ln.split("#")[0].strip() for ln in want]
    # the numbers the comments give (perft's 27332) are the same
    assert [re.findall(r"\d+", ln.split("#", 1)[1]) for ln in got if "#" in ln] == \
        [re.findall(r"\d+", ln.split("#", 1)[1]) for ln in want if "#" in ln]
    # and the comments in words are in Russian
    words = [ln.split("#", 1)[1] for ln in got if re.search("#.*[^\\d\\s]", ln)]
    assert words and all(re.search("[а-я]", w) for w in words), words


def test_readme_gives_the_terminals_minimum_for_make_play():
    from host_tools.simulators import sim

    text = " ".join(read("README.md").split())
    want = "%d x %d" % (sim.WIDTH + 1, sim.HEIGHT)  # (79 columns drawn: the 80th wraps)
    assert want == "80 x 24"
    i = text.index("`make play`")
    assert want in text[i:i + 400]
